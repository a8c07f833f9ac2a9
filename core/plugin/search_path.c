/*
 * search_path.c: tsl_registry_load_default — the plugin search path.
 *
 *  1. the build tree's plugin folders (every subfolder X of
 *     <build>/targets, <build>/strategies and <build>/plugins) when this
 *     libtessel is the one built in TSL_BUILD_ROOT (found with dladdr on an
 *     object of the library);
 *  2. otherwise the installed folder TSL_PLUGIN_INSTALL_DIR;
 *  3. the entries of TESSEL_PLUGIN_PATH (folders or files; missing entries
 *     are skipped, as with other PATH-like variables);
 *  4. the caller's extra folders or files (missing ones are errors).
 * A folder contributes its "*.so" files, sorted by name; folders are not
 * searched recursively. tsl_registry_load skips files already loaded.
 */
#include "plugin_internal.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef TSL_BUILD_ROOT
#define TSL_BUILD_ROOT ""
#endif
#ifndef TSL_PLUGIN_INSTALL_DIR
#define TSL_PLUGIN_INSTALL_DIR "/usr/local/lib/tessel/plugins"
#endif

/* An object of libtessel, to ask dladdr which file this code runs from. */
static const char anchor = 0;

static int is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n > m && strcmp(s + n - m, suffix) == 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted names in `dir` of subfolders (want_dirs; "*.p" object folders
 * excluded) or of "*.so" files, into `names` (char *; empty when there are
 * none). */
static void list_dir(const char *dir, int want_dirs, tsl_vec *names) {
  tsl_vec_init(names, sizeof(char *), NULL);
  DIR *d = opendir(dir);
  if (!d)
    return;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    const char *nm = de->d_name;
    if (nm[0] == '.')
      continue;
    if (want_dirs ? ends_with(nm, ".p") : !ends_with(nm, ".so"))
      continue;
    tsl_strbuf sb;
    tsl_strbuf_init(&sb);
    tsl_strbuf_printf(&sb, "%s/%s", dir, nm);
    struct stat st;
    int fits = stat(sb.data, &st) == 0 &&
               (want_dirs ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
    tsl_strbuf_free(&sb);
    if (!fits)
      continue;
    char *copy = plg_strdup(nm);
    if (copy)
      TSL_VEC_PUSH(names, char *, copy);
  }
  closedir(d);
  if (names->len)
    qsort(names->data, names->len, sizeof(char *), cmp_str);
}

static void free_names(tsl_vec *names) {
  for (uint32_t i = 0; i < names->len; i++)
    free(TSL_VEC_AT(names, char *, i));
  tsl_vec_free(names);
}

static int load_folder(tsl_registry *reg, const char *dir, tsl_diag *diag) {
  tsl_vec names;
  list_dir(dir, 0, &names);
  int rc = TSL_OK;
  for (uint32_t i = 0; i < names.len && rc == TSL_OK; i++) {
    tsl_strbuf sb;
    tsl_strbuf_init(&sb);
    tsl_strbuf_printf(&sb, "%s/%s", dir, TSL_VEC_AT(&names, char *, i));
    rc = tsl_registry_load(reg, sb.data, diag);
    tsl_strbuf_free(&sb);
  }
  free_names(&names);
  return rc;
}

/* A folder or a file; a missing one is skipped unless `required`. */
static int load_entry(tsl_registry *reg, const char *p, int required,
                      tsl_diag *diag) {
  struct stat st;
  if (stat(p, &st) != 0) {
    if (!required)
      return TSL_OK;
    return tsl_diag_set(diag, TSL_EIO, "%s: plugin path: %s", p,
                        strerror(errno));
  }
  if (S_ISDIR(st.st_mode))
    return load_folder(reg, p, diag);
  return tsl_registry_load(reg, p, diag);
}

/* TSL_BUILD_ROOT when this libtessel lies inside it, else NULL. */
static char *build_root(void) {
  Dl_info info;
  if (!TSL_BUILD_ROOT[0] || !dladdr(&anchor, &info) || !info.dli_fname)
    return NULL;
  char *lib = realpath(info.dli_fname, NULL);
  char *root = realpath(TSL_BUILD_ROOT, NULL);
  int inside = 0;
  if (lib && root) {
    size_t n = strlen(root);
    inside = strncmp(lib, root, n) == 0 && lib[n] == '/';
  }
  free(lib);
  if (!inside) {
    free(root);
    return NULL;
  }
  return root;
}

static int load_build_tree(tsl_registry *reg, const char *root,
                           tsl_diag *diag) {
  static const char *const tops[] = {"targets", "strategies", "plugins"};
  int rc = TSL_OK;
  for (size_t t = 0; t < sizeof tops / sizeof tops[0] && rc == TSL_OK; t++) {
    tsl_strbuf top;
    tsl_strbuf_init(&top);
    tsl_strbuf_printf(&top, "%s/%s", root, tops[t]);
    tsl_vec subs;
    list_dir(top.data, 1, &subs);
    for (uint32_t i = 0; i < subs.len && rc == TSL_OK; i++) {
      tsl_strbuf sb;
      tsl_strbuf_init(&sb);
      tsl_strbuf_printf(&sb, "%s/%s", top.data, TSL_VEC_AT(&subs, char *, i));
      rc = load_folder(reg, sb.data, diag);
      tsl_strbuf_free(&sb);
    }
    free_names(&subs);
    tsl_strbuf_free(&top);
  }
  return rc;
}

int tsl_registry_load_default(tsl_registry *reg, uint32_t n_extra,
                              const char *const *extra, tsl_diag *diag) {
  if (!reg)
    return tsl_diag_set(diag, TSL_EINVALID, "plugin search: NULL registry");
  int rc = TSL_OK;
  char *root = build_root();
  if (root)
    rc = load_build_tree(reg, root, diag);
  else if (is_dir(TSL_PLUGIN_INSTALL_DIR))
    rc = load_folder(reg, TSL_PLUGIN_INSTALL_DIR, diag);
  free(root);

  const char *env = getenv("TESSEL_PLUGIN_PATH");
  while (rc == TSL_OK && env && *env) {
    const char *colon = strchr(env, ':');
    size_t len = colon ? (size_t)(colon - env) : strlen(env);
    if (len) {
      char *entry = malloc(len + 1);
      if (!entry)
        return tsl_diag_set(diag, TSL_ENOMEM, "plugin search: out of memory");
      memcpy(entry, env, len);
      entry[len] = '\0';
      rc = load_entry(reg, entry, 0, diag);
      free(entry);
    }
    env = colon ? colon + 1 : NULL;
  }
  for (uint32_t i = 0; rc == TSL_OK && i < n_extra; i++) {
    if (!extra[i] || !*extra[i])
      return tsl_diag_set(diag, TSL_EINVALID,
                          "plugin search: extra path %u is empty", i + 1);
    rc = load_entry(reg, extra[i], 1, diag);
  }
  return rc;
}
