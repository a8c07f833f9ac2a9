/*
 * loader.c: loading one plugin file. Checks the file, dlopen()s it with
 * RTLD_NOW | RTLD_LOCAL, finds `tessel_plugin_init`, runs it in a fresh
 * session that stages every registration, checks the declared ABI version
 * and the entry's status, and commits the staged components only when all
 * of it succeeded. Any failure dlclose()s the file and leaves the registry
 * unchanged.
 */
#include "plugin_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* `path` made absolute against the working directory (symlinks kept, so a
 * listing shows the name the plugin was found under). */
static char *absolute(const char *path) {
  if (path[0] == '/')
    return plg_strdup(path);
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd))
    return plg_strdup(path);
  const char *p = path;
  while (p[0] == '.' && p[1] == '/')
    p += 2;
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  tsl_strbuf_printf(&sb, "%s/%s", cwd, p);
  return tsl_strbuf_take(&sb);
}

static int already_loaded(const tsl_registry *reg, const char *real) {
  for (uint32_t i = 0; i < reg->plugins.len; i++)
    if (strcmp(TSL_VEC_AT(&reg->plugins, plg_plugin, i).real, real) == 0)
      return 1;
  return 0;
}

/* The file exists, is a regular file and is readable. */
static int check_file(const char *path, tsl_diag *diag) {
  struct stat st;
  if (stat(path, &st) != 0)
    return tsl_diag_set(diag, TSL_EIO, "%s: cannot load plugin: %s", path,
                        strerror(errno));
  if (S_ISDIR(st.st_mode))
    return tsl_diag_set(diag, TSL_EIO,
                        "%s: cannot load plugin: it is a directory\nnote: a "
                        "folder is searched for *.so files when given on the "
                        "search path (TESSEL_PLUGIN_PATH, --path)",
                        path);
  if (!S_ISREG(st.st_mode))
    return tsl_diag_set(diag, TSL_EIO,
                        "%s: cannot load plugin: not a regular file", path);
  if (access(path, R_OK) != 0)
    return tsl_diag_set(diag, TSL_EIO, "%s: cannot load plugin: %s", path,
                        strerror(errno));
  return TSL_OK;
}

static int open_file(const char *path, void **out, tsl_diag *diag) {
  /* A name without '/' would make dlopen search the library path. */
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  tsl_strbuf_printf(&sb, "%s%s", strchr(path, '/') ? "" : "./", path);
  dlerror();
  *out = dlopen(sb.data, RTLD_NOW | RTLD_LOCAL);
  int rc = TSL_OK;
  if (!*out) {
    const char *why = dlerror();
    if (!why)
      why = "unknown error";
    size_t n = strlen(sb.data);
    if (strncmp(why, sb.data, n) == 0 && why[n] == ':' && why[n + 1] == ' ')
      why += n + 2; /* dlerror() repeats the path */
    rc = tsl_diag_set(diag, TSL_EIO,
                      "%s: cannot load plugin: not a loadable shared object "
                      "(%s)",
                      path, why);
  }
  tsl_strbuf_free(&sb);
  return rc;
}

/* Runs the entry and decides; returns the load's status. */
static int run_entry(tsl_plugin_session *s, tsl_plugin_init_fn entry,
                     const char *path, uint32_t *abi, tsl_diag *diag) {
  tsl_diag pd = {.struct_size = sizeof pd};
  *abi = 0;
  s->open = 1;
  int rc = entry(plg_host_api(), s, abi, &pd);
  s->open = 0;
  pd.text[sizeof pd.text - 1] = '\0';
  pd.len = (uint32_t)strlen(pd.text);

  char why[512];
  if (tsl_abi_check(TSL_ABI_VERSION, *abi, why, sizeof why) != TSL_OK)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED, "%s: %s%s", path, why,
                        *abi == 0 ? "\nnote: the entry wrote no ABI version; "
                                    "declare it with TSL_PLUGIN_ENTRY"
                                  : "");
  /* A refused registration explains a failing entry best. */
  if (s->failed)
    return tsl_diag_set(diag, TSL_EINVALID, "%s: %s", path, s->error.text);
  if (rc != 0) {
    int status = rc < 0 ? rc : TSL_ERUNTIME;
    if (pd.len)
      return tsl_diag_set(diag, status, "%s: plugin initialisation failed: %s",
                          path, pd.text);
    return tsl_diag_set(diag, status,
                        "%s: plugin initialisation failed with status %d "
                        "(%s) and no message",
                        path, rc, tsl_status_name(status));
  }
  return TSL_OK;
}

int tsl_registry_load(tsl_registry *reg, const char *path, tsl_diag *diag) {
  if (!reg || !path || !*path)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "plugin load: a registry and a file path are required");
  int rc = check_file(path, diag);
  if (rc)
    return rc;
  char *real = realpath(path, NULL);
  if (!real)
    return tsl_diag_set(diag, TSL_EIO, "%s: cannot load plugin: %s", path,
                        strerror(errno));
  if (already_loaded(reg, real)) {
    free(real);
    return TSL_OK;
  }
  plg_plugin p = {.real = real, .path = absolute(path)};
  p.session = calloc(1, sizeof *p.session);
  if (!p.path || !p.session) {
    rc = tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", path);
    goto fail;
  }
  tsl_vec_init(&p.session->staged, sizeof(plg_entry), NULL);
  p.session->reg = reg;
  p.session->path = p.path;
  if ((rc = open_file(path, &p.handle, diag)) != TSL_OK)
    goto fail;

  dlerror();
  void *sym = dlsym(p.handle, TSL_PLUGIN_ENTRY_SYMBOL);
  if (!sym) {
    rc = tsl_diag_set(diag, TSL_ENOTFOUND,
                      "%s: not a tessel plugin: it exports no '%s' symbol\n"
                      "note: define the entry with TSL_PLUGIN_ENTRY from "
                      "tessel/plugin.h (it is exported even under "
                      "-fvisibility=hidden)",
                      path, TSL_PLUGIN_ENTRY_SYMBOL);
    goto fail;
  }
  tsl_plugin_init_fn entry;
  memcpy(&entry, &sym, sizeof entry);
  if ((rc = run_entry(p.session, entry, path, &p.abi, diag)) != TSL_OK)
    goto fail;

  for (uint32_t i = 0; i < p.session->staged.len; i++)
    TSL_VEC_AT(&p.session->staged, plg_entry, i).abi = p.abi;
  TSL_VEC_PUSH(&reg->plugins, plg_plugin, p);
  plg_commit(p.session);
  return TSL_OK;

fail:
  if (p.session)
    tsl_vec_free(&p.session->staged);
  free(p.session);
  if (p.handle)
    dlclose(p.handle);
  free(p.path);
  free(p.real);
  return rc;
}
