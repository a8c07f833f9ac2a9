/*
 * tessel/lower.h — lowering scheduled TensorIR to the low-level loop program
 * that every target compiles.
 *
 * A lowered function uses the ordinary IR nodes of ir.h with these rules
 * (targets may rely on them):
 *  - no BLOCK_REALIZE: block iteration variables are replaced by their
 *    bindings, predicates (T.where) became IF statements, a block's init
 *    became a statement guarded by "first iteration of every reduce loop"
 *    (or stayed where decompose_reduction placed it), match_buffer views
 *    were replaced by accesses to the buffer they alias;
 *  - every buffer is flat: each LOAD and STORE has exactly one index, and
 *    the buffer it names has ndim 1 (shape = number of elements; strides and
 *    elem_offset folded into the index). Parameter buffers are flat views of
 *    the caller's tensors (the same memory, row-major);
 *  - buffers allocated inside the function (T.alloc_buffer of any block,
 *    cache_read/cache_write stages) appear as TSL_STMT_ALLOCATE statements
 *    placed at the innermost loop level that encloses every use (but outside
 *    the loops a reduction writing the buffer iterates over, and for
 *    "shared*" scopes outside threadIdx loops, "warp" outside threadIdx.x
 *    loops), sized by the
 *    region actually used there (compacted); `buffer->scope` keeps the
 *    storage scope ("global", "local", "shared", ...). An allocation inside a
 *    parallel loop is private to each iteration;
 *  - loops of extent 1 without annotations, other than thread-bound ones,
 *    are gone (their variable replaced by their min);
 *  - unrolling follows TVM's UnrollLoop pass (exact rule in
 *    core/lower/README.md): T.unroll loops, and SERIAL loops that
 *    pragma_auto_unroll_max_step allows, are replaced by one copy of their
 *    body per iteration; under pragma_unroll_explicit = 0 they stay loops
 *    of kind UNROLLED instead, for the target's unroller. A copied body
 *    repeats its inner statements (an ALLOCATE, a LET, a thread-bound loop
 *    may then appear several times with the same buffer or variable, in
 *    sibling scopes). The two pragma annotations are removed;
 *  - other loops keep their kind: PARALLEL loops for the target's thread
 *    pool, UNROLLED loops with a symbolic extent,
 *    THREAD_BINDING loops with their thread tag for GPU targets,
 *    VECTORIZED loops either kept as loops (opts.vectorize == 0) or turned
 *    into vector expressions (RAMP / BROADCAST, dtype lanes > 1; a LOAD or
 *    STORE with a vector index reads/writes lanes elements) when the body
 *    allows it, else kept as a VECTORIZED loop that the target may treat as
 *    a hint;
 *  - other loop annotations are kept; block annotations are dropped.
 */
#ifndef TESSEL_LOWER_H
#define TESSEL_LOWER_H

#include "tessel/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One lowered prim_func. Allocated in the arena given to tsl_lower. */
typedef struct tsl_lowered_func {
  uint32_t struct_size;
  tsl_str name;            /* the prim_func's name */
  const tsl_func *source;  /* the scheduled prim_func it came from (shapes,
                              dtypes and names of the parameters) */
  /* Parameters in source order: buffer params carry their flat buffer
   * (ndim 1), scalar params their var (buffer NULL). */
  uint32_t n_params;
  const tsl_param *params;
  /* Symbolic shape variables that are not parameters, in order of first
   * appearance in the parameters' shapes. Callers pass them as int64 after
   * the parameters. */
  uint32_t n_size_vars;
  const tsl_var *const *size_vars;
  const tsl_stmt *body;
  /* Arithmetic operations of one call, counted from the source: float
   * ones, and integer ones of integer values stored (an int8 matmul's
   * multiply-add = 2, as a float one's); indices are free; -1 when a
   * symbolic extent makes it unknown (core/lower/flops.c). */
  double flops;
} tsl_lowered_func;

/* Appended in 1.6: read-only bytes a module's library carries, e.g. the
 * weights of a compiled model (model.h). A target exports each as the
 * global constant array "<prefix>_<name>" (64-byte aligned; C:
 * `extern const unsigned char <prefix>_<name>[]`). */
typedef struct tsl_lowered_data {
  uint32_t struct_size;
  const char *name; /* a C identifier */
  const uint8_t *bytes;
  uint64_t nbytes;
} tsl_lowered_data;

typedef struct tsl_lowered_module {
  uint32_t struct_size;
  uint32_t n_funcs;
  const tsl_lowered_func *const *funcs;
  /* appended in 1.6 (tsl_lower_module sets none) */
  uint32_t n_data;
  const tsl_lowered_data *data;
} tsl_lowered_module;

typedef struct tsl_lower_opts {
  uint32_t struct_size;
  int32_t vectorize; /* 1: VECTORIZED loops become vector expressions where
                        possible; 0: keep them as loops (the interpreter
                        runs such programs) */
  /* appended in 1.11 (a 1.10 caller's smaller struct reads as 0): 0 holds
   * the vector elements a loop accesses at indices it does not change (an
   * accumulator over its reduction loop) in a "local" buffer `<name>.reg`,
   * loaded before the loop and stored after it, where that is exact and
   * fits eight 32-byte registers (core/lower/README.md, "Promotion rule");
   * 1 leaves every access in memory */
  int32_t no_promote;
} tsl_lower_opts;

/* Lower one prim_func into `arena`. `opts` NULL = {vectorize 1,
 * no_promote 0}. Errors (TSL_EUNSUPPORTED / TSL_EINVALID) name the block or
 * buffer: e.g. an opaque block without iteration variables that cannot be
 * flattened. */
TSL_API int tsl_lower_func(tsl_arena *arena, const tsl_func *f,
                           const tsl_lower_opts *opts,
                           const tsl_lowered_func **out, tsl_diag *diag);
/* The first two stages of tsl_lower_func alone, what analyses of the
 * scheduled loop program read (TVM's feature extraction runs the same
 * passes: LowerInitBlock, ConvertBlocksToOpaque, PlanAndUpdateBuffer-
 * AllocationLocation, CompactBufferAllocation): no BLOCK_REALIZE (block
 * variables replaced by their bindings, T.where and init as IF), unit loops
 * gone, ALLOCATE statements placed and compacted as above, but buffers
 * still multi-dimensional (an ALLOCATE's buffer too), loops as scheduled
 * (kinds, annotations, no unrolling, no vector code). */
TSL_API int tsl_lower_func_structured(tsl_arena *arena, const tsl_func *f,
                                      const tsl_stmt **out, tsl_diag *diag);
/* Appended in 1.6: the symbolic sizes of f's parameter buffers that are
 * not parameters, in first-appearance order: exactly the trailing int64
 * arguments tsl_lower_func gives the lowered function (n_size_vars,
 * size_vars), so a caller can pass them without lowering. The array lives
 * in `arena`; returns the count. */
TSL_API uint32_t tsl_func_size_vars(tsl_arena *arena, const tsl_func *f,
                                    const tsl_var *const **out);
/* Lower every prim_func of a module. */
TSL_API int tsl_lower_module(tsl_arena *arena, const tsl_module *m,
                             const tsl_lower_opts *opts,
                             const tsl_lowered_module **out, tsl_diag *diag);

/* Print a lowered function as TVMScript-like text (T.decl_buffer for
 * allocations, flat indices). For reading and golden tests; the parser does
 * not read it back. */
TSL_API char *tsl_lowered_print(const tsl_lowered_func *lf);

/* Run a lowered function (lowered with vectorize 0) in the reference
 * interpreter on arguments made for its source (tsl_func_make_args on
 * lf->source): the flat parameter buffers view the tensors' memory.
 * Errors as tsl_interp_run. */
struct tsl_arg;
TSL_API int tsl_interp_run_lowered(const tsl_lowered_func *lf,
                                   struct tsl_arg *args, uint32_t n_args,
                                   tsl_diag *diag);

/* ---- weights packed ahead of the calls (prepack.c) ----------------------
 * TVM's RemoveWeightLayoutRewriteBlock, as measurement and export use it.
 * MetaSchedule's RewriteLayout postprocessor packs a layout-free weight
 * (a parameter listed in the function attribute "layout_free_buffers")
 * inside the function, in a block annotated
 * meta_schedule.layout_rewrite_preproc: `Bp[map(i, ..)] = B[i, ..]`, Bp a
 * buffer the function allocates. Called as it is, such a function packs on
 * every call (what the interpreter and `tessel run` do). Split, the
 * packing runs once ahead of the calls:
 *   main     `f` whose packed parameters take the packed buffers instead
 *            (same positions, named after them), without the packing
 *            blocks, the loops only they used and the packed buffers'
 *            allocations
 *   prepack  "<f>_prepack": the packed parameters' weights, then their
 *            packed buffers, both in parameter order; its body the packing
 *            blocks with their loops (no function attributes)
 * positions[k] is the k-th packed parameter's index. When `f` packs
 * nothing: n_packed 0, main = f, prepack NULL. TSL_EUNSUPPORTED naming the
 * block or buffer when a packing block is not a plain copy of a parameter,
 * a weight is packed twice or still read by main, or a packed buffer has a
 * symbolic shape. */
#define TSL_LAYOUT_REWRITE_PREPROC "meta_schedule.layout_rewrite_preproc"
typedef struct tsl_prepack_split {
  const tsl_func *main;
  const tsl_func *prepack;
  uint32_t n_packed;
  const uint32_t *positions;
} tsl_prepack_split;
TSL_API int tsl_func_split_prepack(tsl_arena *arena, const tsl_func *f,
                                   tsl_prepack_split *out, tsl_diag *diag);
/* Every function of `m` split: the main functions in the module's order,
 * then the prepack functions; `m` itself when nothing packs. What an
 * exported library holds (the user calls <prefix>_<f>_prepack once when the
 * weights are loaded, then <prefix>_<f> on the packed buffers). */
TSL_API int tsl_module_split_prepack(tsl_arena *arena, const tsl_module *m,
                                     const tsl_module **out, tsl_diag *diag);

/* FLOPs of one call of `f` (see tsl_lowered_func.flops). */
TSL_API double tsl_func_flops(const tsl_func *f);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_LOWER_H */
