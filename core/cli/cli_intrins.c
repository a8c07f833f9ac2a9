/*
 * Tensor intrinsics a schedule script brings along: files named
 * `intrin__<name>__desc.py` and `intrin__<name>__impl.py` in the script's
 * folder (each one prim_func) are registered as intrinsic <name> next to
 * the built-in ones, as a TVM user registers them with
 * TensorIntrin.register before scheduling.
 */
#include "cli.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PREFIX "intrin__"
#define DESC_SUFFIX "__desc.py"

static int parse_one(tsl_arena *arena, const char *path, const tsl_func **out,
                     tsl_diag *d) {
  const tsl_module *m;
  int rc = tsl_parse_file(arena, path, &m, d);
  if (rc)
    return rc;
  if (m->n_funcs != 1)
    return tsl_diag_set(d, TSL_EINVALID,
                        "%s: error: a tensor intrinsic file holds one prim_func, not %u",
                        path, m->n_funcs);
  *out = m->funcs[0];
  return TSL_OK;
}

int cli_script_intrins(tsl_ctx *ctx, tsl_arena *arena, const char *script,
                       tsl_intrin_registry **out, tsl_diag *d) {
  *out = NULL;
  char dir[4096];
  const char *slash = strrchr(script, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - script) : 1,
           slash ? script : ".");
  DIR *dp = opendir(dir);
  if (!dp)
    return TSL_OK;
  /* names sorted, so that registration order (and messages) do not
   * depend on the directory order */
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(dp))) {
    size_t len = strlen(e->d_name), pl = strlen(PREFIX), sl = strlen(DESC_SUFFIX);
    if (len <= pl + sl || strncmp(e->d_name, PREFIX, pl) ||
        strcmp(e->d_name + len - sl, DESC_SUFFIX))
      continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 8;
      names = realloc(names, sizeof *names * cap);
      if (!names)
        abort();
    }
    names[n++] = strndup(e->d_name + pl, len - pl - sl);
  }
  closedir(dp);
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      char *t = names[j];
      names[j] = names[j - 1];
      names[j - 1] = t;
    }
  int rc = TSL_OK;
  if (n)
    rc = tsl_intrin_registry_new(ctx, out, d);
  for (size_t i = 0; i < n && rc == TSL_OK; i++) {
    char desc_path[4200], impl_path[4200];
    snprintf(desc_path, sizeof desc_path, "%s/" PREFIX "%s" DESC_SUFFIX, dir, names[i]);
    snprintf(impl_path, sizeof impl_path, "%s/" PREFIX "%s__impl.py", dir, names[i]);
    const tsl_func *desc = NULL, *impl = NULL;
    rc = parse_one(arena, desc_path, &desc, d);
    if (rc == TSL_OK)
      rc = parse_one(arena, impl_path, &impl, d);
    if (rc == TSL_OK) {
      rc = tsl_intrin_registry_add(*out, names[i], desc, impl, d);
      if (rc)
        tsl_diag_append(d, " (intrinsic files %s and %s)", desc_path, impl_path);
    }
  }
  for (size_t i = 0; i < n; i++)
    free(names[i]);
  free(names);
  if (rc) {
    tsl_intrin_registry_free(*out);
    *out = NULL;
  }
  return rc;
}
