/*
 * Internal interface of core/plugin: the registry's layout, the per-load
 * session that stages registrations, and the helpers the loader, the search
 * path and the host API table share.
 *
 * A load runs in a session: every register_component call of the plugin's
 * entry is validated and staged in the session; the loader commits the
 * staged components to the registry only when the whole load succeeded, so
 * a failing plugin leaves the registry exactly as it was.
 */
#ifndef TESSEL_PLUGIN_INTERNAL_H
#define TESSEL_PLUGIN_INTERNAL_H

#include "tessel/container.h"
#include "tessel/plugin.h"
#include "tessel/schedule.h"

#include <stdio.h>

/* The smallest tsl_component a plugin may hand over: every field up to and
 * including `vtable` (user_data may be missing and reads as NULL). */
#define PLG_COMPONENT_MIN_SIZE                                                 \
  (offsetof(tsl_component, vtable) + sizeof(const void *))
/* Longest component name accepted. */
#define PLG_NAME_MAX 128

typedef struct plg_entry {
  tsl_component c;  /* host-layout copy, struct_size = sizeof(tsl_component) */
  const char *path; /* "built-in" or the owning plugin's path (not owned) */
  uint32_t abi;     /* ABI version the component's plugin declared */
} plg_entry;

struct tsl_plugin_session {
  tsl_registry *reg;
  const char *path; /* the plugin's path as given ("built-in" for add) */
  tsl_vec staged;   /* plg_entry */
  int open;         /* registration allowed (only inside the entry) */
  int failed;       /* a registration was refused: the load fails */
  tsl_diag error;   /* that refusal's message */
};

/* One loaded plugin. Its session stays alive (closed) so that the plugin may
 * keep calling host->get_option and host->log after its entry returned. */
typedef struct plg_plugin {
  void *handle;
  char *path; /* as given (absolute when found through a folder) */
  char *real; /* realpath(), the identity of the file */
  uint32_t abi;
  tsl_plugin_session *session;
} plg_plugin;

typedef struct plg_option {
  char *key, *value;
} plg_option;

struct tsl_registry {
  tsl_ctx *ctx;
  tsl_vec entries; /* plg_entry: committed components, registration order */
  tsl_vec plugins; /* plg_plugin */
  tsl_vec options; /* plg_option */
};

/* ---- the version rule (pure; unit-tested with made-up host versions) ----
 * Same major: served, whatever the minors (an older plugin only knows a
 * prefix of each struct; a newer one tests host pointers for NULL). Another
 * major: refused. On refusal writes "plugin ABI X.Y, host ABI A.B ..." to
 * `why` and returns TSL_EUNSUPPORTED; else returns TSL_OK. */
static inline int tsl_abi_check(uint32_t host, uint32_t plugin, char *why,
                                size_t cap) {
  if (TSL_ABI_MAJOR_OF(host) == TSL_ABI_MAJOR_OF(plugin))
    return TSL_OK;
  if (why && cap)
    snprintf(why, cap,
             "plugin ABI %u.%u is incompatible with the host's ABI %u.%u "
             "(the major versions differ); rebuild the plugin against "
             "tessel headers of ABI %u.x",
             TSL_ABI_MAJOR_OF(plugin), TSL_ABI_MINOR_OF(plugin),
             TSL_ABI_MAJOR_OF(host), TSL_ABI_MINOR_OF(host),
             TSL_ABI_MAJOR_OF(host));
  return TSL_EUNSUPPORTED;
}

/* registry.c */
/* Validate `c` (kind, name, vtable, struct_size) and check that (kind, name)
 * is neither registered nor already staged in `s`; on success append the
 * host-layout copy to s->staged. Messages name the component. */
int plg_stage(tsl_plugin_session *s, const tsl_component *c, uint32_t abi,
              tsl_diag *diag);
/* Move every staged entry of `s` into the registry. */
void plg_commit(tsl_plugin_session *s);
/* The option value for `key`, or NULL. */
const char *plg_option_get(const tsl_registry *reg, const char *key);
/* malloc'ed copy of `s`, or NULL when out of memory. */
char *plg_strdup(const char *s);
/* Replace the text of `diag` by "<prefix>: <old text>". */
void plg_diag_prefix(tsl_diag *diag, const char *prefix);

/* host_api.c */
/* The host API table handed to every plugin entry (static, read-only). */
const tsl_host_api *plg_host_api(void);

/* An empty registry. libtessel's tsl_registry_new (core/builtins) adds the
 * built-in components to it. */
int plg_registry_alloc(tsl_ctx *ctx, tsl_registry **out, tsl_diag *diag);

#endif
