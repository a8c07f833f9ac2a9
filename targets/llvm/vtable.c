/*
 * targets/llvm/vtable.c — the tsl_target_vtable of the LLVM CPU target:
 * instances (options, describe line) and the calls that forward to jit.c
 * and export.c.
 *
 * An instance is for this host: options naming a CPU or features the host
 * lacks are refused when it is created (cpu_isa.c).
 *
 * The device hooks are the host's: 64-byte aligned memory, memcpy, nothing
 * to wait for.
 */
#include "llvm_internal.h"

#include <stdlib.h>
#include <string.h>

static void t_destroy(tsl_target *t) {
  if (!t)
    return;
  tll_opts_free(&t->opts);
  free(t->describe);
  free(t->cpu_features);
  free(t);
}

/* What the rules may use: the instance's instruction sets, without AMX
 * where Linux does not grant this process the tiles' state (some
 * containers and VMs): every build using them would fail (amx.c). */
static uint64_t rule_isa(const tll_opts *o) {
  static const char *const amx[] = {"amx-tile", "amx-int8", "amx-bf16", "amx-fp16", NULL};
  uint64_t isa = tll_isa_required(o->cpu, o->features);
  tsl_diag d = {0};
  if (tll_isa_has(isa, "amx-tile") && !tll_amx_emulator() && tll_amx_permit(&d))
    for (int i = 0; amx[i]; i++) {
      int k = tll_name_index(tll_isa_features, amx[i], strlen(amx[i]));
      if (k >= 0)
        isa &= ~((uint64_t)1 << k);
    }
  return isa;
}

static int t_create(void *user_data, uint32_t n_opts, const tsl_kv *opts,
                    tsl_target **out, tsl_diag *diag) {
  (void)user_data;
  *out = NULL;
  tsl_target *t = calloc(1, sizeof *t);
  if (!t)
    return tsl_diag_set(diag, TSL_ENOMEM, "llvm target: out of memory");
  int rc = tll_opts_parse_runnable(n_opts, opts, &t->opts, diag);
  if (rc) {
    free(t);
    return rc;
  }
  t->describe = tll_opts_describe(&t->opts);
  t->cpu_features = tll_isa_names(rule_isa(&t->opts));
  if (!t->describe || !t->cpu_features) {
    t_destroy(t);
    return tsl_diag_set(diag, TSL_ENOMEM, "llvm target: out of memory");
  }
  tll_llvm_init();
  *out = t;
  return TSL_OK;
}

static const char *t_describe(tsl_target *t) { return t ? t->describe : ""; }

static const char *t_cpu_features(tsl_target *t) { return t ? t->cpu_features : NULL; }

static int t_build(tsl_target *t, const tsl_lowered_module *m,
                   tsl_kernel **out, tsl_build_stats *stats, tsl_diag *diag) {
  if (!t || !m || !out)
    return tsl_diag_set(diag, TSL_EINVALID, "llvm target: build: NULL "
                                            "argument");
  return tll_jit_build(t, m, out, stats, diag);
}

static int t_export(tsl_target *t, const tsl_lowered_module *m,
                    const char *prefix, const char *path,
                    const char *header_path, tsl_diag *diag) {
  if (!t || !m)
    return tsl_diag_set(diag, TSL_EINVALID, "llvm target: export: NULL "
                                            "argument");
  return tll_export(t, m, prefix, path, header_path, diag);
}

/* ---- device hooks: the host ---- */

static int t_dev_alloc(tsl_target *t, size_t bytes, void **out, tsl_diag *diag) {
  (void)t;
  *out = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
  return *out ? TSL_OK
              : tsl_diag_set(diag, TSL_ENOMEM, "llvm target: out of memory for %zu bytes",
                             bytes);
}

static void t_dev_free(tsl_target *t, void *p) {
  (void)t;
  free(p);
}

static int t_copy(tsl_target *t, void *dst, const void *src, size_t bytes, tsl_diag *diag) {
  (void)t;
  (void)diag;
  memcpy(dst, src, bytes);
  return TSL_OK;
}

static int t_sync(tsl_target *t, tsl_diag *diag) {
  (void)t;
  (void)diag;
  return TSL_OK; /* calls return when they are done */
}

const tsl_target_vtable tll_vtable = {
    .struct_size = sizeof(tsl_target_vtable),
    .create = t_create,
    .destroy = t_destroy,
    .describe = t_describe,
    .build = t_build,
    .lookup = tll_jit_lookup,
    .kernel_free = tll_jit_free,
    .export_library = t_export,
    .time_calls = NULL,
    .dev_alloc = t_dev_alloc,
    .dev_free = t_dev_free,
    .copy_to_device = t_copy,
    .copy_from_device = t_copy,
    .synchronize = t_sync,
    .space_defaults = &tll_space_defaults,
    .space_defaults_for = tll_space_defaults_for,
    .cpu_features = t_cpu_features,
};
