/*
 * The successful golden schedule cases (tests/schedule/cases/<primitive>/
 * NAME.{py,sch}): each script applied to its program with the schedule
 * API, the result lowered with vectorize 1, JIT-built with the LLVM target
 * (2 threads) and run on seeded random inputs, must agree with the
 * interpreter running the unscheduled program. Cases whose script fails
 * (expected-failure goldens) are not compiled. TESSEL_CASES=split,fuse
 * restricts the run to some primitives.
 */
#include "llvm_util.h"

#include <dirent.h>
#include <sys/stat.h>

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int list_dir(const char *dir, const char *suffix, int want_dirs,
                    char **names, int cap) {
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < cap) {
    if (e->d_name[0] == '.')
      continue;
    char p[4600];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    if (stat(p, &st))
      continue;
    size_t l = strlen(e->d_name), ls = strlen(suffix);
    if (want_dirs ? S_ISDIR(st.st_mode)
                  : (l > ls && strcmp(e->d_name + l - ls, suffix) == 0))
      names[n++] = want_dirs ? strdup(e->d_name) : strndup(e->d_name, l - ls);
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, cmp_names);
  return n;
}

static int selected(const char *prim) {
  const char *sel = getenv("TESSEL_CASES");
  if (!sel || !*sel)
    return 1;
  size_t l = strlen(prim);
  for (const char *p = sel; *p;) {
    const char *c = strchr(p, ',');
    size_t n = c ? (size_t)(c - p) : strlen(p);
    if (n == l && !strncmp(p, prim, l))
      return 1;
    p += n + (c ? 1 : 0);
  }
  return 0;
}

int main(void) {
  char cases[4096];
  snprintf(cases, sizeof cases, "%s/tests/schedule/cases", lt_root());
  char *prims[128];
  int np = list_dir(cases, "", 1, prims, 128);
  tsl_diag d = {0};
  tsl_target *t = lt_target("threads=2", &d);
  ok(t != NULL, "target created: %s", t ? tll_vtable.describe(t) : d.text);
  if (!t)
    return tap_done();
  tsl_ctx *ctx = tsl_ctx_new();
  static const tsl_binding binds[] = {{"m", 37}, {"n", 29}};
  int total = 0, compiled = 0, passed = 0;
  for (int p = 0; p < np; p++) {
    char dir[4300];
    snprintf(dir, sizeof dir, "%s/%s", cases, prims[p]);
    char *names[512];
    int n = selected(prims[p]) ? list_dir(dir, ".sch", 0, names, 512) : 0;
    for (int i = 0; i < n; i++) {
      char path[8800], id[600];
      snprintf(id, sizeof id, "%s/%s", prims[p], names[i]);
      snprintf(path, sizeof path, "%s/%s.py", dir, names[i]);
      char *prog = lt_slurp(path);
      snprintf(path, sizeof path, "%s/%s.sch", dir, names[i]);
      char *script = lt_slurp(path);
      tsl_arena *a = tsl_arena_new(ctx);
      const tsl_module *m = NULL;
      tsl_schedule *sch = NULL;
      total++;
      if (prog && script && !tsl_parse(a, names[i], prog, strlen(prog), &m, &d) &&
          !tsl_schedule_new(ctx, m, NULL, &sch, &d) &&
          !tsl_script_run(sch, path, script, strlen(script), &d)) {
        const tsl_func *after = tsl_schedule_func(sch);
        const tsl_func *before = tsl_module_find(m, after->name);
        compiled++;
        passed += lt_check(t, ctx, before, after, binds, 2, 1, id);
      }
      tsl_schedule_free(sch);
      tsl_arena_free(a);
      free(prog);
      free(script);
      free(names[i]);
    }
    free(prims[p]);
  }
  ok(compiled > 50, "%d of %d golden cases schedule successfully and were "
                    "compiled",
     compiled, total);
  tap_diag("%d of %d scheduled programs agree with the interpreter", passed,
           compiled);
  tsl_ctx_free(ctx);
  tll_vtable.destroy(t);
  return tap_done();
}
