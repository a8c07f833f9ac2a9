/*
 * tessel/target.h — the target vtable (component kind TSL_COMPONENT_TARGET):
 * code generation for lowered programs, in-process builds for measurement,
 * and library export for deployment.
 *
 * A target plugin registers a tsl_component whose vtable is a
 * tsl_target_vtable. The core creates target instances from options
 * (config or command line), hands them lowered modules (lower.h), and calls
 * the built functions through the packed calling convention below. The
 * runner (runner.h) does the timing and checking; a target only compiles
 * and, optionally, times on its device.
 *
 * Packed calling convention (every built function):
 *     int32_t fn(void *const *args);
 * args[k] for the k-th parameter of the lowered function: a buffer
 * parameter passes its data pointer (row-major, the buffer's dtype); a
 * scalar parameter passes a pointer to an int64_t (integer and bool scalars)
 * or a double (float scalars). After the parameters come the lowered
 * function's size_vars, each a pointer to an int64_t. Returns 0, or nonzero
 * when the call failed (e.g. a shape check).
 *
 * Ownership: instances and kernels belong to the plugin and are freed
 * through the vtable. Threading: one instance is used by one thread at a
 * time; kernels of one instance may be called concurrently.
 */
#ifndef TESSEL_TARGET_H
#define TESSEL_TARGET_H

#include <stdint.h>

#include "tessel/base.h"
#include "tessel/lower.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsl_target tsl_target; /* a plugin-defined instance */
typedef struct tsl_kernel tsl_kernel; /* plugin-defined compiled code */

typedef int32_t (*tsl_packed_fn)(void *const *args);

/* One target option: "threads" = "2", "mcpu" = "skylake-avx512", ... */
typedef struct tsl_kv {
  const char *key;
  const char *value;
} tsl_kv;

/* Timings a target may report about a build (seconds; -1 when unknown). */
typedef struct tsl_build_stats {
  uint32_t struct_size;
  double codegen_s;  /* IR construction */
  double optimize_s; /* optimization pipeline */
  double jit_s;      /* machine code + linking */
} tsl_build_stats;

/* One component of a target's default design space: a registered schedule
 * rule, postprocessor or mutator by name, its options as a config would
 * give them, and for a mutator the weight an evolutionary search draws it
 * with (0 for rules and postprocessors). */
typedef struct tsl_space_entry {
  const char *name;
  double prob;
  uint32_t n_opts;
  const tsl_kv *opts;
} tsl_space_entry;

/* The design space a target tunes in by default: a config's
 * `space: {rules: default}` (or no `space`), as TVM's tune_tir takes its
 * target's lists. The schedule rules and postprocessors in the order they
 * apply, and the mutators. The names are any registered components of the
 * kind: libtessel's built-ins (`tessel plugins` lists them) or the target
 * plugin's own, registered beside it. Static data of the plugin. */
typedef struct tsl_space_defaults {
  uint32_t struct_size;
  uint32_t n_rules;
  const tsl_space_entry *rules;
  uint32_t n_postprocs;
  const tsl_space_entry *postprocs;
  uint32_t n_mutators;
  const tsl_space_entry *mutators;
} tsl_space_defaults;

struct tsl_rule_target; /* rules.h */

typedef struct tsl_target_vtable {
  uint32_t struct_size;
  /* Create an instance. Options the target does not know are an error that
   * names the option and lists the valid keys; a bad value names what would
   * be valid. */
  int (*create)(void *user_data, uint32_t n_opts, const tsl_kv *opts,
                tsl_target **out, tsl_diag *diag);
  void (*destroy)(tsl_target *t);
  /* One line describing the instance with every option resolved (CPU name,
   * features, threads), e.g. "llvm -mcpu=skylake-avx512 -threads=2". Used as
   * the target key of database records. Owned by the instance. */
  const char *(*describe)(tsl_target *t);
  /* Compile a lowered module for in-process calls. `stats` may be NULL.
   * Since 1.6, here and in export_library: a T.call_extern naming a
   * function of the module calls that function (its natural signature,
   * int32 status; a compiled model's entry calling its kernels), and
   * T.address_of(B[i]) / B.data are raw pointers into buffers. */
  int (*build)(tsl_target *t, const tsl_lowered_module *m, tsl_kernel **out,
               tsl_build_stats *stats, tsl_diag *diag);
  /* The packed entry of the built function `name`, or NULL. */
  tsl_packed_fn (*lookup)(tsl_kernel *k, const char *name);
  void (*kernel_free)(tsl_kernel *k);
  /* Write a deployable library: `path` ending in ".o" gets an object file,
   * ".so" a shared library; `header_path` (may be NULL) a C header. Symbols
   * are "<prefix>_<function name>" with the natural signature: one pointer
   * per buffer parameter, scalars by value, size_vars as int64_t, int
   * status returned; packed entries are "<prefix>_<name>_packed". */
  int (*export_library)(tsl_target *t, const tsl_lowered_module *m,
                        const char *prefix, const char *path,
                        const char *header_path, tsl_diag *diag);
  /* Optional (NULL: the core times calls with the host clock). For devices
   * with their own timers: run `fn` `number` times and store the mean
   * seconds per call. Since 1.2 the core calls it for each timed repeat of
   * a measurement on the device hooks below (not with a cache flush, where
   * each call is timed alone), with `k` NULL when the function comes from a
   * library built in another process. A call of `fn` that returns nonzero
   * is an error (its status in the message). */
  int (*time_calls)(tsl_target *t, tsl_kernel *k, tsl_packed_fn fn,
                    void *const *args, int32_t number, double *mean_s,
                    tsl_diag *diag);
  /* The device hooks: how a measurement reaches the memory the target's
   * code runs on. A measurement session on the target (runner.h,
   * tsl_measure_session_new_on) allocates one buffer per buffer parameter
   * with dev_alloc, copies the seeded inputs in with copy_to_device before
   * the checked call and again before the timed ones, reads the outputs
   * back with copy_from_device to compare them, and calls synchronize after
   * the calls it checks or times, before it reads the clock (a device that
   * runs calls asynchronously has finished them then). The packed
   * arguments of target.h's convention point at the device buffers.
   * The hooks run in the measurement worker process, never in the tuner's:
   * a target creates its device context lazily, in the process that calls.
   * A worker allocates its buffers once and keeps them for the candidates
   * it measures; they go with the worker process (dev_free is for buffers
   * given up before). The llvm target implements them on the host. NULL
   * hooks (or an older vtable): host memory, as the llvm target's. Errors
   * are an error status with the message in diag. */
  int (*dev_alloc)(tsl_target *t, size_t bytes, void **out, tsl_diag *diag);
  void (*dev_free)(tsl_target *t, void *ptr);
  int (*copy_to_device)(tsl_target *t, void *dst, const void *src, size_t bytes,
                        tsl_diag *diag);
  int (*copy_from_device)(tsl_target *t, void *dst, const void *src, size_t bytes,
                          tsl_diag *diag);
  int (*synchronize)(tsl_target *t, tsl_diag *diag);
  /* Appended in 1.1. The target's default design space, or NULL: a config
   * then gives its space as a schedule script (`space: {schedule: ...}`).
   * The core reads it when struct_size covers it. */
  const tsl_space_defaults *space_defaults;
  /* Appended in 1.9, may be NULL. The default design space for the CPU
   * (or device) the rules see, `t` (its cpu_features), as TVM picks its
   * lists by the target's features; NULL to take space_defaults. */
  const tsl_space_defaults *(*space_defaults_for)(const struct tsl_rule_target *t);
  /* Appended in 1.15, may be NULL. The CPU features the code `t` builds
   * may use, named as the schedule rules name them
   * (tsl_rule_target.cpu_features: LLVM's names, comma-separated), so that
   * a tuning run's space follows the target's CPU rather than the host's
   * (the llvm target: its mcpu and mattr). NULL, or a NULL result: the
   * host's (tsl_host_cpu_features). Valid while `t` lives. */
  const char *(*cpu_features)(tsl_target *t);
} tsl_target_vtable;

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_TARGET_H */
