/*
 * The plugin loader through real plugin files (plugins/tp_*.c, built as
 * shared modules next to this program): a good plugin, each error of
 * tsl_registry_load with its message and an unchanged registry afterwards,
 * options, registration after init, and the search path
 * (tsl_registry_load_default: extra folders, TESSEL_PLUGIN_PATH, the build
 * tree's plugin folders).
 */
#include "tap.h"
#include "tessel/tessel.h"

#include <dlfcn.h>
#include <limits.h>
#include <stddef.h>
#include <sys/stat.h>
#include <unistd.h>

#define TEXT_(x) #x
#define TEXT(x) TEXT_(x)
/* "1.1": this tessel's ABI as messages print it */
#define TSL_ABI_TEXT TEXT(TSL_ABI_MAJOR) "." TEXT(TSL_ABI_MINOR)

static char dir[PATH_MAX], tmp[PATH_MAX];

static const char *plugin(const char *name) {
  static char buf[8][PATH_MAX + 64];
  static int k;
  k = (k + 1) % 8;
  snprintf(buf[k], sizeof buf[k], "%s/%s.so", dir, name);
  return buf[k];
}

static int has(const tsl_diag *d, const char *s) {
  int r = strstr(d->text, s) != NULL;
  if (!r)
    tap_diag("  message lacks \"%s\":\n%s", s, d->text);
  return r;
}

static char *snapshot(const tsl_registry *reg) {
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  for (uint32_t k = 0; k < tsl_registry_count(reg); k++) {
    const tsl_component *c = tsl_registry_get(reg, k);
    tsl_strbuf_printf(&sb, "%u:%s@%s,", c->kind, c->name,
                      tsl_registry_path(reg, k));
  }
  tsl_strbuf_append(&sb, "");
  return tsl_strbuf_take(&sb);
}

/* Loading `path` fails with `status`, the message holds each of `want`
 * (NULL-terminated) and the registry is unchanged. */
static void expect_fail(tsl_registry *reg, const char *what, const char *path,
                        int status, const char *const *want) {
  char *before = snapshot(reg);
  tsl_diag d = {0};
  int rc = tsl_registry_load(reg, path, &d);
  is_int(rc, status, "%s: load fails with %s", what, tsl_status_name(status));
  int all = 1;
  for (int i = 0; want[i]; i++)
    all &= has(&d, want[i]);
  ok(all, "%s: the message names what is wrong", what);
  char *after = snapshot(reg);
  is_str(after, before, "%s: the registry is unchanged", what);
  free(before);
  free(after);
}

static int find_path(const tsl_registry *reg, uint32_t kind, const char *name,
                     const char **path, uint32_t *abi) {
  for (uint32_t k = 0; k < tsl_registry_count(reg); k++) {
    const tsl_component *c = tsl_registry_get(reg, k);
    if (c->kind == kind && strcmp(c->name, name) == 0) {
      *path = tsl_registry_path(reg, k);
      *abi = tsl_registry_abi(reg, k);
      return 1;
    }
  }
  return 0;
}

static void test_ok(tsl_ctx *ctx) {
  tsl_registry *reg;
  tsl_diag d = {0};
  tsl_registry_new(ctx, &reg, &d);
  uint32_t n0 = tsl_registry_count(reg);
  int rc = tsl_registry_load(reg, plugin("tp_ok"), &d);
  is_int(rc, 0, "tp_ok loads");
  if (rc)
    tap_diag("%s", d.text);
  is_int(tsl_registry_count(reg), n0 + 2, "  ... registering two components");
  const tsl_component *s = tsl_registry_find(reg, TSL_COMPONENT_STRATEGY, "tp.ok-strategy");
  ok(s && strcmp(s->version, "1.2.3") == 0 && s->summary &&
         strstr(s->summary, "42"),
     "  ... the strategy with its version and summary");
  const tsl_strategy_vtable *vt = s ? s->vtable : NULL;
  tsl_strategy *inst = NULL;
  ok(vt && vt->struct_size == sizeof *vt && vt->create(s->user_data, 0, NULL, &inst, &d) == 0 &&
         inst && *(const int32_t *)inst == 42,
     "  ... whose vtable function runs and sees its user_data");
  const tsl_component *i = tsl_registry_find(reg, TSL_COMPONENT_INTRIN, "tp_ok_add4");
  ok(i && i->user_data == NULL && i->summary == NULL &&
         i->struct_size == sizeof(tsl_component),
     "  ... the intrin, given with a smaller struct_size: user_data not read");
  const char *p = NULL;
  uint32_t abi = 0;
  find_path(reg, TSL_COMPONENT_INTRIN, "tp_ok_add4", &p, &abi);
  is_str(p, plugin("tp_ok"), "  ... its path is the plugin file");
  is_int(abi, TSL_ABI_VERSION, "  ... its ABI is the one the plugin declared (this tessel's)");

  is_int(tsl_registry_load(reg, plugin("tp_ok"), &d), 0, "loading the same file again succeeds");
  is_int(tsl_registry_count(reg), n0 + 2, "  ... and is a no-op");
  char link[PATH_MAX + 16];
  snprintf(link, sizeof link, "%s/alias.so", tmp);
  ok(symlink(plugin("tp_ok"), link) == 0, "make a symlink to tp_ok.so");
  is_int(tsl_registry_load(reg, link, &d), 0, "loading it through a symlink succeeds");
  is_int(tsl_registry_count(reg), n0 + 2, "  ... and is a no-op (same real path)");
  unlink(link);
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd) && chdir(dir) == 0) {
    is_int(tsl_registry_load(reg, "tp_ok.so", &d), 0,
           "a bare file name loads from the working directory");
    is_int(tsl_registry_count(reg), n0 + 2, "  ... (the same file: no-op)");
    if (chdir(cwd) != 0)
      tap_diag("chdir back failed");
  }

  tsl_arena *a = tsl_arena_new(ctx);
  tsl_intrin_registry *ir = NULL;
  rc = tsl_registry_intrins(reg, a, &ir, &d);
  is_int(rc, 0, "the plugin's intrinsic parses into an intrinsic registry");
  if (rc)
    tap_diag("%s", d.text);
  const tsl_func *desc = NULL, *impl = NULL;
  ok(tsl_intrin_registry_get(ir, "tp_ok_add4", &desc, &impl) && desc && impl &&
         strcmp(impl->name, "tp_add4_impl") == 0,
     "  ... tp_ok_add4 with its description and implementation");
  tsl_intrin_registry_free(ir);
  tsl_arena_free(a);

  /* Errors, each leaving the registry as it is. */
  expect_fail(reg, "tp_dup (a name tp_ok has)", plugin("tp_dup"), TSL_EINVALID,
              (const char *const[]){plugin("tp_dup"), "duplicate strategy 'tp.ok-strategy'",
                                    plugin("tp_ok"), NULL});
  ok(!tsl_registry_find(reg, TSL_COMPONENT_MUTATOR, "tp_dup_mutator"),
     "tp_dup: its first, valid component is not kept");
  tsl_registry_free(reg);
}

static void test_errors(tsl_ctx *ctx) {
  tsl_registry *reg;
  tsl_diag d = {0};
  tsl_registry_new(ctx, &reg, &d);

  char missing[PATH_MAX + 16];
  snprintf(missing, sizeof missing, "%s/nope.so", tmp);
  expect_fail(reg, "missing file", missing, TSL_EIO,
              (const char *const[]){missing, "No such file", NULL});
  char text[PATH_MAX + 16];
  snprintf(text, sizeof text, "%s/x.so", tmp);
  FILE *f = fopen(text, "w");
  fputs("this is not an ELF file\n", f);
  fclose(f);
  expect_fail(reg, "a text file named x.so", text, TSL_EIO,
              (const char *const[]){text, "not a loadable shared object", NULL});
  expect_fail(reg, "a directory", tmp, TSL_EIO,
              (const char *const[]){tmp, "is a directory", NULL});
  expect_fail(reg, "no entry symbol", plugin("tp_noentry"), TSL_ENOTFOUND,
              (const char *const[]){plugin("tp_noentry"), "tessel_plugin_init",
                                    "TSL_PLUGIN_ENTRY", NULL});
  expect_fail(reg, "ABI major 2", plugin("tp_abi2"), TSL_EUNSUPPORTED,
              (const char *const[]){plugin("tp_abi2"), "plugin ABI 2.0",
                                    "host's ABI " TSL_ABI_TEXT, NULL});
  ok(!tsl_registry_find(reg, TSL_COMPONENT_TARGET, "tp_abi2_target"),
     "ABI major 2: the component it registered is not kept");
  expect_fail(reg, "init fails", plugin("tp_initfail"), TSL_ERUNTIME,
              (const char *const[]){plugin("tp_initfail"), "initialisation failed",
                                    "tp_initfail: no device /dev/tp0", NULL});
  ok(!tsl_registry_find(reg, TSL_COMPONENT_SCHEDULE_RULE, "tp_initfail_rule"),
     "init fails: the component it registered first is not kept");

  static const struct {
    const char *value, *what, *want;
  } bad[] = {
      {"kind", "unknown kind", "unknown kind 99"},
      {"name", "bad name", "'bad name!' is not valid"},
      {"empty", "empty name", "name '' is not valid"},
      {"null_vtable", "NULL vtable", "NULL vtable"},
      {"vtable_size0", "vtable struct_size 0", "struct_size is 0"},
      {"vtable_small", "vtable smaller than ABI 1.0's",
       "struct_size is 8, smaller than a tsl_postproc_vtable of ABI 1.0"},
      {"small_struct", "tsl_component struct_size 8", "struct_size is 8"},
      {"twice", "one name registered twice", "registered twice by"},
      {"ignored", "refused registration ignored by the entry", "unknown kind 0"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    tsl_registry_set_option(reg, "tp_bad.case", bad[k].value, &d);
    char what[128];
    snprintf(what, sizeof what, "tp_bad (%s)", bad[k].what);
    expect_fail(reg, what, plugin("tp_bad"), TSL_EINVALID,
                (const char *const[]){plugin("tp_bad"), bad[k].want, NULL});
  }

  /* A plugin registering after its entry returned. */
  tsl_registry_set_option(reg, "tp_bad.case", "late", &d);
  int rc = tsl_registry_load(reg, plugin("tp_bad"), &d);
  is_int(rc, 0, "tp_bad (late) loads");
  uint32_t n = tsl_registry_count(reg);
  void *h = dlopen(plugin("tp_bad"), RTLD_NOW | RTLD_NOLOAD);
  int (*late)(tsl_diag *) = h ? (int (*)(tsl_diag *))dlsym(h, "tp_bad_register_late") : NULL;
  const char *(*opt)(const char *) =
      h ? (const char *(*)(const char *))dlsym(h, "tp_bad_option_late") : NULL;
  ok(late && opt, "tp_bad's test hooks are reachable");
  if (late && opt) {
    tsl_diag ld = {0};
    is_int(late(&ld), TSL_EINVALID, "registering after init returned is refused");
    ok(has(&ld, "after its tessel_plugin_init returned"), "  ... saying why");
    is_int(tsl_registry_count(reg), n, "  ... and nothing is added");
    is_str(opt("tp_bad.case"), "late",
           "a loaded plugin still reads options through its session");
  }
  if (h)
    dlclose(h);
  tsl_registry_free(reg);

  /* Options reach the entry. */
  tsl_registry_new(ctx, &reg, &d);
  tsl_registry_set_option(reg, "tp_ok.mode", "refuse", &d);
  expect_fail(reg, "tp_ok with tp_ok.mode=refuse", plugin("tp_ok"), TSL_EINVALID,
              (const char *const[]){plugin("tp_ok"), "tp_ok refuses: tp_ok.mode=refuse", NULL});
  tsl_registry_set_option(reg, "tp_ok.mode", "normal", &d);
  is_int(tsl_registry_load(reg, plugin("tp_ok"), &d), 0,
         "the same file loads once the option changed (a failed load is not remembered)");

  /* A newer minor version is served. */
  rc = tsl_registry_load(reg, plugin("tp_minor"), &d);
  is_int(rc, 0, "tp_minor (ABI 1.99, newer than the host's, a larger tsl_component) loads");
  if (rc)
    tap_diag("%s", d.text);
  const char *p = NULL;
  uint32_t abi = 0;
  ok(find_path(reg, TSL_COMPONENT_COST_MODEL, "tp_minor_cost", &p, &abi),
     "  ... its cost model is registered");
  is_int(abi, TSL_ABI_MAKE(1, 99), "  ... with the ABI it declared, 1.99");
  const tsl_component *c = tsl_registry_find(reg, TSL_COMPONENT_COST_MODEL, "tp_minor_cost");
  ok(c && c->struct_size == sizeof(tsl_component) && c->user_data == NULL &&
         strcmp(c->version, "1.99.0") == 0,
     "  ... copied as the host's tsl_component (the appended field dropped)");
  tsl_registry_free(reg);
}

static void mkfile(const char *path, const char *target) {
  if (target) {
    if (symlink(target, path) != 0)
      tap_diag("symlink %s failed", path);
  } else {
    FILE *f = fopen(path, "w");
    if (f)
      fclose(f);
  }
}

static void test_search(tsl_ctx *ctx) {
  char f1[PATH_MAX + 16], f2[PATH_MAX + 16], f3[PATH_MAX + 16], x[PATH_MAX + 64];
  snprintf(f1, sizeof f1, "%s/f1", tmp);
  snprintf(f2, sizeof f2, "%s/f2", tmp);
  snprintf(f3, sizeof f3, "%s/f3", tmp);
  mkdir(f1, 0755);
  mkdir(f2, 0755);
  mkdir(f3, 0755);
  snprintf(x, sizeof x, "%s/b.so", f1);
  mkfile(x, plugin("tp_ok"));
  snprintf(x, sizeof x, "%s/a.so", f1);
  mkfile(x, plugin("tp_minor"));
  snprintf(x, sizeof x, "%s/notes.txt", f1);
  mkfile(x, NULL);
  snprintf(x, sizeof x, "%s/sub", f1);
  mkdir(x, 0755);
  snprintf(x, sizeof x, "%s/sub/c.so", f1);
  mkfile(x, plugin("tp_abi2"));

  tsl_registry *reg;
  tsl_diag d = {0};
  tsl_registry_new(ctx, &reg, &d);
  const char *extra[] = {f1, plugin("tp_ok")};
  int rc = tsl_registry_load_default(reg, 2, extra, &d);
  is_int(rc, 0, "load_default with an extra folder and a file found twice");
  if (rc)
    tap_diag("%s", d.text);
  const char *p = NULL;
  uint32_t abi;
  ok(find_path(reg, TSL_COMPONENT_COST_MODEL, "tp_minor_cost", &p, &abi) &&
         strstr(p, "/f1/a.so"),
     "  ... loads the folder's a.so under the name it was found by");
  int i_minor = -1, i_ok = -1;
  for (uint32_t k = 0; k < tsl_registry_count(reg); k++) {
    const char *name = tsl_registry_get(reg, k)->name;
    if (!strcmp(name, "tp_minor_cost"))
      i_minor = (int)k;
    if (!strcmp(name, "tp.ok-strategy"))
      i_ok = (int)k;
  }
  ok(i_minor >= 0 && i_ok > i_minor, "  ... files in name order (a.so before b.so)");
  ok(!tsl_registry_find(reg, TSL_COMPONENT_TARGET, "tp_abi2_target"),
     "  ... without searching subfolders");
  tsl_registry_free(reg);

  tsl_registry_new(ctx, &reg, &d);
  char missing[PATH_MAX + 16];
  snprintf(missing, sizeof missing, "%s/missing", tmp);
  const char *bad_extra[] = {missing};
  is_int(tsl_registry_load_default(reg, 1, bad_extra, &d), TSL_EIO,
         "a missing extra path is an error");
  ok(has(&d, missing) && has(&d, "No such file"), "  ... naming it");
  tsl_registry_free(reg);

  /* TESSEL_PLUGIN_PATH: missing entries skipped, folders and files. */
  snprintf(x, sizeof x, "%s/ok.so", f2);
  mkfile(x, plugin("tp_ok"));
  char env[3 * PATH_MAX];
  snprintf(env, sizeof env, "%s::%s:%s", missing, f2, plugin("tp_minor"));
  setenv("TESSEL_PLUGIN_PATH", env, 1);
  tsl_registry_new(ctx, &reg, &d);
  rc = tsl_registry_load_default(reg, 0, NULL, &d);
  is_int(rc, 0, "TESSEL_PLUGIN_PATH with a missing entry, a folder and a file");
  if (rc)
    tap_diag("%s", d.text);
  ok(find_path(reg, TSL_COMPONENT_STRATEGY, "tp.ok-strategy", &p, &abi) && strstr(p, "/f2/ok.so"),
     "  ... loads the folder's plugin");
  ok(tsl_registry_find(reg, TSL_COMPONENT_COST_MODEL, "tp_minor_cost") != NULL,
     "  ... and the file");
  tsl_registry_free(reg);

  /* The first failure stops the search with its error. */
  snprintf(x, sizeof x, "%s/a.so", f3);
  mkfile(x, plugin("tp_abi2"));
  snprintf(x, sizeof x, "%s/b.so", f3);
  mkfile(x, plugin("tp_minor"));
  setenv("TESSEL_PLUGIN_PATH", f3, 1);
  tsl_registry_new(ctx, &reg, &d);
  is_int(tsl_registry_load_default(reg, 0, NULL, &d), TSL_EUNSUPPORTED,
         "a failing plugin on the path stops the search");
  ok(has(&d, "/f3/a.so") && has(&d, "plugin ABI 2.0"), "  ... with its error");
  ok(!tsl_registry_find(reg, TSL_COMPONENT_COST_MODEL, "tp_minor_cost"),
     "  ... before the next file");
  tsl_registry_free(reg);
  unsetenv("TESSEL_PLUGIN_PATH");
}

/* This program runs from the build tree: load_default searches the build's
 * plugin folders (targets/X, strategies/X, plugins/X), never tests/. */
static void test_build_tree(tsl_ctx *ctx) {
  const char *root = getenv("TESSEL_BUILD_ROOT");
  if (!root) {
    tap_skip("TESSEL_BUILD_ROOT unset", "build tree plugin folders");
    return;
  }
  char real_root[PATH_MAX];
  if (!realpath(root, real_root))
    snprintf(real_root, sizeof real_root, "%s", root);
  tsl_registry *reg;
  tsl_diag d = {0};
  tsl_registry_new(ctx, &reg, &d);
  int rc = tsl_registry_load_default(reg, 0, NULL, &d);
  is_int(rc, 0, "load_default from the build tree succeeds");
  if (rc)
    tap_diag("%s", d.text);
  int under = 1, n_plugin = 0;
  for (uint32_t k = 0; k < tsl_registry_count(reg); k++) {
    const char *p = tsl_registry_path(reg, k);
    if (!strcmp(p, "built-in"))
      continue;
    n_plugin++;
    char rp[PATH_MAX];
    if (!realpath(p, rp) || strncmp(rp, real_root, strlen(real_root)) ||
        strstr(rp, "/tests/"))
      under = 0, tap_diag("unexpected plugin %s", p);
  }
  ok(under, "every plugin found comes from the build's plugin folders (%d components)",
     n_plugin);
  ok(!tsl_registry_find(reg, TSL_COMPONENT_STRATEGY, "tp.ok-strategy"),
     "tests/ is not searched");
  char llvm[PATH_MAX + 32];
  snprintf(llvm, sizeof llvm, "%s/targets/llvm", root);
  struct stat st;
  int have_so = 0;
  char cmd[PATH_MAX + 64];
  snprintf(cmd, sizeof cmd, "ls '%s'/*.so >/dev/null 2>&1", llvm);
  if (stat(llvm, &st) == 0)
    have_so = system(cmd) == 0;
  if (have_so)
    ok(n_plugin > 0, "the build's targets/llvm plugin is found");
  else
    tap_skip("no plugin built in targets/llvm", "the build's targets/llvm plugin is found");
  tsl_registry_free(reg);
}

int main(void) {
  const char *pd = getenv("TESSEL_TEST_PLUGIN_DIR");
  if (!pd || !realpath(pd, dir)) {
    printf("Bail out! TESSEL_TEST_PLUGIN_DIR is not set (run through meson test)\n");
    return 1;
  }
  snprintf(tmp, sizeof tmp, "/tmp/tessel-plugin-test-XXXXXX");
  if (!mkdtemp(tmp)) {
    printf("Bail out! mkdtemp failed\n");
    return 1;
  }
  unsetenv("TESSEL_PLUGIN_PATH");
  tsl_ctx *ctx = tsl_ctx_new();
  test_ok(ctx);
  test_errors(ctx);
  test_search(ctx);
  test_build_tree(ctx);
  tsl_ctx_free(ctx);
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  if (system(cmd) != 0)
    tap_diag("could not remove %s", tmp);
  return tap_done();
}
