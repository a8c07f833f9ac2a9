/*
 * targets/llvm/llvm_internal.h — shared declarations of the LLVM CPU target
 * (folder-internal; prefix tll_).
 *
 * Flow: options (cpu.c) -> codegen of a tsl_lowered_module into an LLVM
 * module (codegen*.c) -> verification and the O3 pipeline (passes.c) ->
 * LLJIT (jit.c) or an object / shared library (export.c). plugin.c wires
 * the vtable. Nothing here keeps global mutable state except LLVM's own
 * process-wide target registry, initialised once (tll_llvm_init).
 */
#ifndef TESSEL_TARGETS_LLVM_INTERNAL_H
#define TESSEL_TARGETS_LLVM_INTERNAL_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "tessel/container.h"
#include "tessel/interp.h"
#include "tessel/lower.h"
#include "tessel/target.h"

/* ---- options (cpu.c) ------------------------------------------------------ */

typedef struct tll_opts {
  char *cpu;            /* resolved CPU name (malloc) */
  char *features;       /* resolved feature string, may be "" (malloc) */
  int32_t threads;      /* >= 1 */
  int32_t opt_level;    /* 0..3 */
  int32_t vector_width; /* 0: LLVM's choice, else 128 / 256 / 512 */
  int32_t fast_math;    /* 1: every fast-math flag on float operations */
  int32_t llvm_unroll;  /* 1: LLVM may unroll loops the schedule left serial */
  int32_t cpu_is_host;  /* cpu and features are the host's */
} tll_opts;

/* Parse target options (unknown keys and bad values are errors naming what
 * is valid). On success `out` owns its strings (tll_opts_free). */
int tll_opts_parse(uint32_t n, const tsl_kv *kv, tll_opts *out,
                   tsl_diag *diag);
void tll_opts_free(tll_opts *o);
/* "llvm -mcpu=... -mattr=... -threads=N -opt-level=3 -vector-width=512"
 * (malloc). */
char *tll_opts_describe(const tll_opts *o);
/* 1 when the feature string enables `name` ("avx512f"). */
int tll_has_feature(const char *features, const char *name);

/* Register LLVM's native target once per process. */
void tll_llvm_init(void);
/* A target machine for the options (`pic`: position-independent code). */
int tll_target_machine(const tll_opts *o, int pic, LLVMTargetMachineRef *out,
                       tsl_diag *diag);

/* Tables (cpu_tables.c). */
extern const char *const tll_cpu_names[];
extern const char *const tll_feature_names[];

/* ---- the plugin's objects ------------------------------------------------- */

struct tsl_target {
  tll_opts opts;
  char *describe;
  void *gomp; /* dlopen("libgomp.so.1") when threads > 1 */
};

/* ---- code generation (codegen*.c) ----------------------------------------- */

/* A name in scope: a variable's value or a buffer's base pointer. */
typedef struct tll_bind {
  const void *key; /* tsl_var * or tsl_buffer * */
  LLVMValueRef value;
  int32_t is_buffer;
  int32_t is_wide; /* an int32 loop variable counted in an i64 */
} tll_bind;

typedef struct tll_cg {
  const tll_opts *opts;
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMBuilderRef b;
  LLVMValueRef fn;            /* the function being emitted */
  LLVMBasicBlockRef entry;    /* its entry block (allocas go there) */
  LLVMBasicBlockRef fail_bb;  /* its failure exit (lazily made), or NULL */
  LLVMValueRef err_flag;      /* worker functions: i32 flag to set on failure */
  int32_t in_parallel;        /* inside a parallel worker: no nested teams */
  LLVMValueRef mask;          /* vector lanes that may be read, or NULL */
  tsl_vec binds;              /* tll_bind, innermost last (heap) */
  uint32_t n_workers;         /* parallel workers outlined so far */
  const char *sym;            /* symbol of the function being emitted */
  int status;
  tsl_diag *diag;
  /* types */
  LLVMTypeRef t_void, t_i1, t_i8, t_i16, t_i32, t_i64, t_f16, t_f32, t_f64,
      t_ptr;
  unsigned md_loop; /* metadata kind "llvm.loop" */
} tll_cg;

/* Codegen of a lowered module into a new module of `ctx`. Symbols:
 * "<prefix>_<name>" (natural signature) and "<prefix>_<name>_packed". */
int tll_codegen_module(LLVMContextRef ctx, const tll_opts *o,
                       const tsl_lowered_module *m, const char *prefix,
                       LLVMModuleRef *out, tsl_diag *diag);

/* codegen_func.c: the target attributes every function gets */
void tll_fn_attrs(tll_cg *cg, LLVMValueRef fn);

/* codegen.c: errors, bindings, types, constants, conversions */
int tll_fail(tll_cg *cg, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Bind `key` (innermost wins); returns the binding (valid until the next
 * push). Scopes end by cutting cg->binds.len back to its earlier value. */
tll_bind *tll_bind_push(tll_cg *cg, const void *key, LLVMValueRef v, int is_buf);
/* The innermost binding of `key`, or NULL. */
const tll_bind *tll_bind_get(tll_cg *cg, const void *key);
LLVMValueRef tll_bind_find(tll_cg *cg, const void *key);
/* Floor division (mod 0) or modulo (mod 1) of signed ints a, b of dtype t;
 * `divisor` is b's expression (a positive constant, a power of two above
 * all, gets cheaper code). codegen_expr.c. */
LLVMValueRef tll_floor_divmod(tll_cg *cg, const tsl_expr *divisor,
                              LLVMValueRef a, LLVMValueRef b, int mod,
                              tsl_dtype t);
LLVMTypeRef tll_scalar_type(tll_cg *cg, tsl_dtype t);  /* compute type */
LLVMTypeRef tll_type(tll_cg *cg, tsl_dtype t);         /* with lanes */
LLVMTypeRef tll_storage_type(tll_cg *cg, tsl_dtype t); /* in memory */
/* Memory representation <-> computed value (bool as i8, bfloat16 as its
 * 16 bits); codegen_vector.c. */
LLVMValueRef tll_from_storage(tll_cg *cg, LLVMValueRef v, tsl_dtype t);
LLVMValueRef tll_to_storage(tll_cg *cg, LLVMValueRef v, tsl_dtype t);
LLVMValueRef tll_const_int(tll_cg *cg, tsl_dtype t, int64_t v);
LLVMValueRef tll_const_float(tll_cg *cg, tsl_dtype t, double v);
LLVMValueRef tll_convert(tll_cg *cg, LLVMValueRef v, tsl_dtype from,
                         tsl_dtype to);
LLVMValueRef tll_bf16_round(tll_cg *cg, LLVMValueRef v);
LLVMValueRef tll_call_intrinsic(tll_cg *cg, const char *name,
                                LLVMTypeRef *overload, unsigned n_overload,
                                LLVMValueRef *args, unsigned n_args);
LLVMValueRef tll_call_extern(tll_cg *cg, const char *name, LLVMTypeRef ret,
                             LLVMValueRef *args, unsigned n_args);
void tll_fp_flags(tll_cg *cg, LLVMValueRef inst, tsl_dtype t);
LLVMValueRef tll_entry_alloca(tll_cg *cg, LLVMTypeRef t, unsigned align,
                              const char *name);
/* The current function's failure exit: return 1 (or set the worker's error
 * flag and return). */
LLVMBasicBlockRef tll_fail_block(tll_cg *cg);

/* codegen_expr.c */
LLVMValueRef tll_expr(tll_cg *cg, const tsl_expr *e);
LLVMValueRef tll_expr_as(tll_cg *cg, const tsl_expr *e, tsl_dtype t);
/* bool value of `e` with `lanes` lanes (1: scalar i1) */
LLVMValueRef tll_cond(tll_cg *cg, const tsl_expr *e, uint16_t lanes);

/* codegen_math.c */
LLVMValueRef tll_unary_intrin(tll_cg *cg, const char *name, LLVMValueRef x);
LLVMValueRef tll_math_call(tll_cg *cg, const tsl_expr *e, int id);
LLVMValueRef tll_extern_call(tll_cg *cg, const tsl_expr *e);

/* codegen_vector.c */
LLVMValueRef tll_splat(tll_cg *cg, LLVMValueRef scalar, unsigned lanes);
LLVMValueRef tll_ramp(tll_cg *cg, const tsl_expr *e);
LLVMValueRef tll_load(tll_cg *cg, const tsl_expr *e);
int tll_store(tll_cg *cg, const tsl_stmt *s);
/* Apply f lane by lane: a libm call on vectors. */
LLVMValueRef tll_scalarize_call(tll_cg *cg, const char *name, LLVMTypeRef ret,
                                LLVMValueRef *args, unsigned n_args);

/* codegen_stmt.c */
int tll_stmt(tll_cg *cg, const tsl_stmt *s);
/* A counted loop [lo, hi) over `var`; `body` emits the body with the loop
 * variable bound. `md`: loop metadata for the latch, or NULL. */
typedef int (*tll_body_fn)(tll_cg *cg, const void *ctx);
int tll_emit_loop(tll_cg *cg, const tsl_var *var, LLVMValueRef lo,
                  LLVMValueRef hi, LLVMMetadataRef md, tll_body_fn body,
                  const void *ctx);

/* codegen_parallel.c */
int tll_parallel_for(tll_cg *cg, const tsl_stmt *s);

/* ---- passes.c ----------------------------------------------------------- */

/* Verify (codegen bugs become TSL_EINVALID errors, not crashes) and run the
 * default<O{level}> pipeline with the machine's cost model. */
int tll_verify(LLVMModuleRef mod, tsl_diag *diag);
int tll_optimize(LLVMModuleRef mod, LLVMTargetMachineRef tm, int32_t level,
                 tsl_diag *diag);

/* Codegen + verify + optimize in one call, for the JIT, the exporter and
 * tests. Times go to `stats` (may be NULL). */
int tll_compile(LLVMContextRef ctx, const tll_opts *o, LLVMTargetMachineRef tm,
                const tsl_lowered_module *m, const char *prefix,
                LLVMModuleRef *out, tsl_build_stats *stats, tsl_diag *diag);

/* The optimized (optimized = 1) or freshly generated LLVM IR of `m` as text
 * (malloc), for tests and debugging. */
int tll_module_ir(const tll_opts *o, const tsl_lowered_module *m,
                  int optimized, char **out, tsl_diag *diag);

double tll_now(void); /* monotonic seconds */

/* ---- jit.c / export.c / link.c ------------------------------------------- */

int tll_jit_build(tsl_target *t, const tsl_lowered_module *m,
                  tsl_kernel **out, tsl_build_stats *stats, tsl_diag *diag);
tsl_packed_fn tll_jit_lookup(tsl_kernel *k, const char *name);
void tll_jit_free(tsl_kernel *k);

int tll_export(tsl_target *t, const tsl_lowered_module *m, const char *prefix,
               const char *path, const char *header_path, tsl_diag *diag);

/* link.c: the object `obj` linked into the shared library `so` (with
 * libgomp when `gomp`, libm and libc): by ld directly with the C
 * compiler's crt files and libraries, asked of it once per process and
 * $CC, or else by the compiler's driver, whose errors are reported.
 * *direct (may be NULL): 1 when ld linked it directly. */
int tll_link_shared(const char *obj, const char *so, int gomp, int *direct, tsl_diag *diag);

/* The vtable (plugin.c), for tests that link the static library. */
extern const tsl_target_vtable tll_vtable;

/* Symbol prefix of in-process builds. */
#define TLL_JIT_PREFIX "tsl"

#endif /* TESSEL_TARGETS_LLVM_INTERNAL_H */
