/*
 * tessel/plugin.h — the stable plugin ABI (version 1) and the component
 * registry.
 *
 * Everything pluggable (targets, search strategies, cost models, schedule
 * rules, postprocessors, mutators, tensor intrinsics, graph passes) is a *component*: a
 * kind, a name and a kind-specific vtable, held in one registry. Built-in
 * components register through the same call plugins use.
 *
 * A plugin is a shared object exporting one symbol, `tessel_plugin_init`
 * (declare it with TSL_PLUGIN_ENTRY). The loader opens the file with
 * RTLD_NOW | RTLD_LOCAL and calls the entry with the host API table. The
 * entry writes back the ABI version it was built for and registers its
 * components through host->register_component. The loader then checks:
 *  - major version differs from the host's: refused, naming both versions,
 *    and nothing the plugin registered is kept;
 *  - minor version older than the host's: served (the host never reads
 *    struct fields beyond a struct's struct_size);
 *  - minor version newer: served; the plugin must test host function
 *    pointers it knows are newer for NULL (and host->struct_size) first.
 * A failing entry (nonzero return) loads nothing; its diagnostic is reported
 * prefixed with the plugin's path. A duplicate (kind, name) is refused.
 *
 * ABI rules for every struct in this header and in the vtable headers
 * (target.h, ...): the first field is `uint32_t struct_size`; fields are only
 * appended; fixed-width integer fields, no bool or enum members. What the
 * headers declare is ABI 1.0 unless marked `appended in 1.N` (the 1.1
 * additions: tsl_target_vtable.space_defaults,
 * tsl_strategy_vtable.generate_cands, tsl_db_claim_batch; core/abi/README.md
 * lists them); whoever reads a struct the
 * other side made checks struct_size before reading such a field. The
 * registry refuses a component whose vtable is smaller than its kind's
 * ABI 1.0 vtable, so a consumer checks struct_size only for later fields. Fallible calls return an int
 * status (0 or a negative TSL_E* code of base.h) and take a caller-owned
 * tsl_diag. Plugins never exit or abort. A plugin stays loaded until the
 * registry is freed, so objects it created may live that long.
 *
 * The ABI as a whole (core/abi/README.md): libtessel exports exactly the
 * functions declared TSL_API in these headers, each at symbol version
 * TESSEL_1 (core/libtessel.map), so a plugin linked against them refuses
 * to load with a library of another major; the IR's node layout is part of
 * the major (ir.h); tests compare the exports with the headers, the layout
 * with layout_abi1.txt and the library with the recorded abidiff baseline,
 * so an incompatible change fails CI unless TSL_ABI_MAJOR moves.
 *
 * Threading: a registry is not thread-safe while loading; lookups of a fully
 * loaded registry may run concurrently.
 */
#ifndef TESSEL_PLUGIN_H
#define TESSEL_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "tessel/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- versions ------------------------------------------------------------ */

#define TSL_ABI_MAJOR 1
#define TSL_ABI_MINOR 15
/* A version number: major in the high 16 bits, minor in the low 16. */
#define TSL_ABI_MAKE(major, minor) (((uint32_t)(major) << 16) | (uint32_t)(minor))
#define TSL_ABI_VERSION TSL_ABI_MAKE(TSL_ABI_MAJOR, TSL_ABI_MINOR)
#define TSL_ABI_MAJOR_OF(v) ((uint32_t)(v) >> 16)
#define TSL_ABI_MINOR_OF(v) ((uint32_t)(v) & 0xffffu)

/* ---- component kinds -------------------------------------------------------
 * X(ID, value, name): the name is the spelling used by `tessel plugins` and
 * by configs ("target", "strategy", ...). Values are part of the ABI. */
#define TSL_COMPONENT_KINDS(X)                                                 \
  X(TARGET, 1, "target")                                                       \
  X(STRATEGY, 2, "strategy")                                                   \
  X(COST_MODEL, 3, "cost_model")                                               \
  X(SCHEDULE_RULE, 4, "schedule_rule")                                         \
  X(POSTPROC, 5, "postproc")                                                   \
  X(MUTATOR, 6, "mutator")                                                     \
  X(INTRIN, 7, "intrin")                                                       \
  X(PASS, 8, "pass") /* appended in 1.5: tsl_pass_vtable (pass.h) */          \
  X(LIBRARY, 9, "library") /* appended in 1.6: tsl_library_vtable (library.h) */

enum {
#define TSL_X_(id, v, name) TSL_COMPONENT_##id = v,
  TSL_COMPONENT_KINDS(TSL_X_)
#undef TSL_X_
  TSL_COMPONENT_KIND_MAX = 9
};

/* "target", ... for a kind value; NULL when unknown. */
TSL_API const char *tsl_component_kind_name(uint32_t kind);
/* Kind value for a name, or 0 when unknown. */
TSL_API uint32_t tsl_component_kind_lookup(const char *name);

/* ---- components --------------------------------------------------------- */

/* What a plugin (or the core) registers. Strings and the vtable must stay
 * valid while the registry lives (static storage in the plugin is typical).
 * The vtable's layout depends on the kind: tsl_target_vtable (target.h),
 * tsl_intrin_vtable (below), ... Every vtable starts with struct_size. */
typedef struct tsl_component {
  uint32_t struct_size; /* sizeof(tsl_component) as the plugin knew it */
  uint32_t kind;        /* TSL_COMPONENT_* */
  const char *name;     /* unique per kind: [A-Za-z0-9_.-]+ */
  const char *version;  /* the component's own version, e.g. "0.1.0" */
  const char *summary;  /* one line for `tessel plugins`; may be NULL */
  const void *vtable;   /* kind-specific, starts with uint32_t struct_size */
  void *user_data;      /* passed back to the vtable's factory calls */
} tsl_component;

/* A tensor intrinsic as a component: the TVMScript text of a module holding
 * two prim_funcs, the description and the implementation (see schedule.h,
 * tensorize). */
typedef struct tsl_intrin_vtable {
  uint32_t struct_size;
  const char *script;    /* TVMScript source of the module */
  const char *desc_func; /* name of the description prim_func in it */
  const char *impl_func; /* name of the implementation prim_func in it */
  /* Appended in 1.9: the CPU features its implementation needs, as LLVM
   * names them, comma-separated ("avx512vnni,avx512bw"); NULL or "" for
   * none. Rules that pick intrinsics skip one the target's CPU lacks. */
  const char *requires;
} tsl_intrin_vtable;

/* ---- the host API table -------------------------------------------------- */

typedef struct tsl_plugin_session tsl_plugin_session; /* opaque, per load */

typedef struct tsl_host_api {
  uint32_t struct_size; /* sizeof(tsl_host_api) of the host */
  uint32_t abi_version; /* TSL_ABI_VERSION of the host */
  const char *host_version; /* tessel's version string, "0.1.0" */
  /* Allocation: memory that crosses the boundary and is freed by the other
   * side goes through these. */
  void *(*alloc)(size_t size);
  void (*free)(void *ptr);
  /* Register one component. The component struct is copied; the strings and
   * vtable it points to are not. Returns TSL_EINVALID for a bad
   * component (unknown kind, empty or malformed name, NULL vtable) or a
   * duplicate (kind, name), with a message in `diag`. */
  int (*register_component)(tsl_plugin_session *session,
                            const tsl_component *component, tsl_diag *diag);
  /* Read a plugin option given in a config (plugin_options: {key: value}),
   * or NULL. */
  const char *(*get_option)(tsl_plugin_session *session, const char *key);
  /* Print a line to the host's log (stderr for the CLI). level: 0 info,
   * 1 warning. */
  void (*log)(tsl_plugin_session *session, int32_t level, const char *text);
} tsl_host_api;

/* The entry every plugin exports. Write TSL_ABI_VERSION to *plugin_abi
 * first, then register; return 0, or a negative status with a message in
 * `diag` to refuse loading. */
typedef int (*tsl_plugin_init_fn)(const tsl_host_api *host,
                                  tsl_plugin_session *session,
                                  uint32_t *plugin_abi, tsl_diag *diag);

#define TSL_PLUGIN_ENTRY_SYMBOL "tessel_plugin_init"

/* Use in the plugin as:
 *   TSL_PLUGIN_ENTRY(host, session, diag) { ...register...; return 0; }
 * It exports the symbol with default visibility (the rest of a plugin is
 * built with -fvisibility=hidden) and writes the ABI version. */
#define TSL_PLUGIN_ENTRY(host, session, diag)                                  \
  static int tsl_plugin_body_(const tsl_host_api *host,                        \
                              tsl_plugin_session *session, tsl_diag *diag);    \
  __attribute__((visibility("default"))) int tessel_plugin_init(               \
      const tsl_host_api *host, tsl_plugin_session *session,                   \
      uint32_t *plugin_abi, tsl_diag *diag) {                                  \
    *plugin_abi = TSL_ABI_VERSION;                                             \
    if (TSL_ABI_MAJOR_OF(host->abi_version) != TSL_ABI_MAJOR)                  \
      return -3;                                                               \
    return tsl_plugin_body_(host, session, diag);                              \
  }                                                                            \
  static int tsl_plugin_body_(const tsl_host_api *host,                        \
                              tsl_plugin_session *session, tsl_diag *diag)

/* ---- the registry --------------------------------------------------------- */

typedef struct tsl_registry tsl_registry;
typedef struct tsl_intrin_registry tsl_intrin_registry; /* schedule.h */

/* A new registry holding the built-in components (the CPU intrinsics, ...).
 * Plugins are not searched yet: call tsl_registry_load_default. */
TSL_API int tsl_registry_new(tsl_ctx *ctx, tsl_registry **out, tsl_diag *diag);
/* Frees the registry and unloads its plugins (dlclose) last. */
TSL_API void tsl_registry_free(tsl_registry *reg);

/* Load one plugin file. Errors (status, message naming the path): missing
 * or unreadable file / not a shared object (TSL_EIO), no entry symbol
 * (TSL_ENOTFOUND), ABI major mismatch (TSL_EUNSUPPORTED, naming the
 * plugin's and the host's versions), init failure (its status, its message),
 * duplicate component (TSL_EINVALID). On error nothing of the plugin stays
 * registered. Loading the same file (same real path) twice is a no-op. */
TSL_API int tsl_registry_load(tsl_registry *reg, const char *path,
                              tsl_diag *diag);

/* Load every plugin found on the search path, in this order:
 *  1. the build tree's plugin folders (when running from a build),
 *  2. the installed plugin folder (<libdir>/tessel/plugins),
 *  3. the folders of TESSEL_PLUGIN_PATH (':'-separated),
 *  4. `extra` (n_extra folders or files, e.g. from a config).
 * A folder contributes every "*.so" file in it (sorted by name). A file is
 * loaded once even if found twice. The first failing plugin stops the
 * search with its error. */
TSL_API int tsl_registry_load_default(tsl_registry *reg, uint32_t n_extra,
                                      const char *const *extra,
                                      tsl_diag *diag);

/* Options handed to plugins through host->get_option (copied). */
TSL_API int tsl_registry_set_option(tsl_registry *reg, const char *key,
                                    const char *value, tsl_diag *diag);

/* Register a built-in (or test) component from inside the process; same
 * checks as a plugin's registration. `path` NULL means "built-in". */
TSL_API int tsl_registry_add(tsl_registry *reg, const tsl_component *c,
                             tsl_diag *diag);

/* The component of `kind` called `name`, or NULL. */
TSL_API const tsl_component *tsl_registry_find(const tsl_registry *reg,
                                               uint32_t kind,
                                               const char *name);
/* Lookup for use: fails with a message listing the valid names of that
 * kind, or naming the functions its vtable must have and lacks (a target's
 * create, destroy, describe, build, lookup, kernel_free, export_library; a
 * strategy's create, destroy, pre_tuning, generate or generate_cands,
 * notify, post_tuning; a
 * cost model's create, destroy, update, predict; a rule's, postprocessor's
 * or mutator's create and apply; a pass's run). */
TSL_API int tsl_registry_require(const tsl_registry *reg, uint32_t kind,
                                 const char *name,
                                 const tsl_component **out, tsl_diag *diag);

/* Listing, in registration order. */
TSL_API uint32_t tsl_registry_count(const tsl_registry *reg);
TSL_API const tsl_component *tsl_registry_get(const tsl_registry *reg,
                                              uint32_t k);
/* The file a component came from ("built-in" for built-ins). */
TSL_API const char *tsl_registry_path(const tsl_registry *reg, uint32_t k);
/* The ABI version the component's plugin declared (the host's for
 * built-ins). */
TSL_API uint32_t tsl_registry_abi(const tsl_registry *reg, uint32_t k);

/* A tensor-intrinsic registry (schedule.h) holding every component of kind
 * TSL_COMPONENT_INTRIN, parsed into `arena`. */
TSL_API int tsl_registry_intrins(const tsl_registry *reg, tsl_arena *arena,
                                 tsl_intrin_registry **out, tsl_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_PLUGIN_H */
