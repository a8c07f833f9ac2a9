/*
 * tessel/schedule.h — schedules: TensorIR transformations, sampling, traces
 * and schedule scripts.
 *
 * A tsl_schedule owns a module being transformed. Semantics, argument names
 * and defaults follow TVM's tir.Schedule (release v0.19), so a schedule
 * script a TVM user wrote runs unchanged.
 *
 * Random variables (RVs)
 *   Primitives hand out handles: block RVs, loop RVs and expression RVs
 *   (the integer values that sample_* instructions return). A handle is a
 *   small integer, numbered in creation order from 0 within one schedule.
 *   A block RV names a block (block names are unique within a function); a
 *   loop RV names a loop by its loop variable. A handle whose block or loop
 *   a later primitive removed is stale: using it is an error.
 *
 * Calling primitives
 *   Every primitive is an instruction kind with a fixed parameter list
 *   (tsl_sch_inst_kind_find lists them). tsl_sch_call binds positional and
 *   keyword arguments against that list exactly as Python would, fills the
 *   defaults, applies the primitive and records it in the trace. A string
 *   where a block is expected is looked up with get_block (recorded as its
 *   own instruction), as TVM's Python API does.
 *   On failure a primitive returns a negative status, writes
 *   "<primitive>: <reason>" into the diag (naming the block or loop and what
 *   would be valid) and leaves the schedule exactly as it was.
 *
 * Traces
 *   A schedule records each successful call: instruction kind, arguments
 *   (RVs by number), outputs and, for sample_* instructions, the decision.
 *   A trace prints as a schedule script (the form TVM prints), serializes
 *   to JSON, and replays on the original module with the recorded
 *   decisions, some decisions replaced, or fresh random decisions.
 *
 * Memory and threads
 *   A schedule allocates new IR nodes in its own arena; the module it was
 *   created from must outlive it (unchanged subtrees are shared). Modules
 *   returned by tsl_schedule_module live as long as the schedule. A
 *   schedule, like its tsl_ctx, is used by one thread at a time.
 */
#ifndef TESSEL_SCHEDULE_H
#define TESSEL_SCHEDULE_H

#include "tessel/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsl_schedule tsl_schedule;
typedef struct tsl_trace tsl_trace;
typedef struct tsl_intrin_registry tsl_intrin_registry;

/* A random-variable handle. */
typedef uint32_t tsl_sch_rv;

/* Kinds of random variables; the letter is the prefix printed traces use
 * (b0, l1, v2). */
enum {
  TSL_RV_BLOCK = 1, /* "b" */
  TSL_RV_LOOP = 2,  /* "l" */
  TSL_RV_EXPR = 3   /* "v": an integer value */
};

/* ---- values ------------------------------------------------------------
 * Arguments, attributes and decisions of instructions. */
enum {
  TSL_SV_NONE = 0,
  TSL_SV_INT = 1,   /* u.i */
  TSL_SV_FLOAT = 2, /* u.f */
  TSL_SV_STR = 3,   /* u.s, interned in the schedule's context */
  TSL_SV_BOOL = 4,  /* u.i: 0 or 1 */
  TSL_SV_RV = 5,    /* u.rv */
  TSL_SV_LIST = 6,  /* u.items, n entries */
  TSL_SV_TUPLE = 7, /* u.items, n entries: a Python tuple, ("read", 0) */
  TSL_SV_DICT = 8,  /* u.items, n = 2 x entries: key (STR), value, ... */
  TSL_SV_EXPR = 9,  /* u.expr: a TIR expression, T.float32(0) */
  TSL_SV_LAMBDA = 10 /* u.lambda: `lambda i, j: (j, i)` */
};

typedef struct tsl_sch_value tsl_sch_value;
typedef struct tsl_sch_lambda tsl_sch_lambda;
struct tsl_sch_value {
  uint32_t kind; /* TSL_SV_* */
  uint32_t n;    /* LIST, TUPLE, DICT: number of items */
  union {
    int64_t i;
    double f;
    tsl_str s;
    tsl_sch_rv rv;
    const tsl_sch_value *items;
    const tsl_expr *expr;
    const tsl_sch_lambda *lambda;
  } u;
};

/* A lambda: parameters (variables of the lambda's own) and a body whose
 * leaves are EXPR values over them, nested in TUPLE / LIST values, e.g. an
 * index map `lambda i, j: (j, i)` or annotate_buffer_access's
 * `lambda vi, vj: ((vi - 1, vi + 1), vj)`.
 * The body may also use sampled values (expression RVs) through their
 * variables (tsl_schedule_rv_var), as TVM's index maps use ExprRVs:
 * `lambda i, j: (i // (v3 * v4), j)`. The primitive sees each replaced by
 * the value it holds; the trace keeps the variable (printed as the RV's
 * name), so a replay with other decisions uses the new values. Any other
 * variable that is not a parameter is refused. In a script, a name bound
 * to a sampled value becomes its variable, a name bound to an int its
 * value. */
struct tsl_sch_lambda {
  uint32_t n_params;
  const tsl_var *const *params;
  tsl_sch_value body;
};

/* One argument of a call: `name` NULL for a positional argument. */
typedef struct tsl_sch_arg {
  const char *name;
  tsl_sch_value value;
} tsl_sch_arg;

/* Value constructors (no allocation). */
TSL_API tsl_sch_value tsl_sv_none(void);
TSL_API tsl_sch_value tsl_sv_int(int64_t v);
TSL_API tsl_sch_value tsl_sv_float(double v);
TSL_API tsl_sch_value tsl_sv_bool(int v);
TSL_API tsl_sch_value tsl_sv_str(tsl_str s);
TSL_API tsl_sch_value tsl_sv_rv(tsl_sch_rv rv);
TSL_API tsl_sch_value tsl_sv_list(uint32_t n, const tsl_sch_value *items);
TSL_API tsl_sch_value tsl_sv_tuple(uint32_t n, const tsl_sch_value *items);
/* `items` holds n_entries key/value pairs, keys STR. */
TSL_API tsl_sch_value tsl_sv_dict(uint32_t n_entries, const tsl_sch_value *items);
TSL_API tsl_sch_value tsl_sv_expr(const tsl_expr *e);
TSL_API tsl_sch_value tsl_sv_lambda(const tsl_sch_lambda *l);
/* Structural equality of two values (expressions structurally, lambdas up
 * to the names of their parameters). */
TSL_API int tsl_sv_equal(const tsl_sch_value *a, const tsl_sch_value *b);

/* ---- schedule ------------------------------------------------------------ */

typedef struct tsl_schedule_opts {
  uint32_t struct_size; /* sizeof(tsl_schedule_opts) */
  /* Function get_block uses when func_name is not given: NULL means the
   * module's only function, or "main". */
  const char *func_name;
  /* Seed of the random generator behind sample_* (any value; the same seed
   * gives the same decisions). */
  uint64_t seed;
  /* Tensor intrinsics tensorize may use; NULL = the built-in set. Not
   * owned; must outlive the schedule. */
  const tsl_intrin_registry *intrins;
} tsl_schedule_opts;

/* New schedule over `mod` (which must outlive the schedule). `opts` may be
 * NULL (defaults). Fails with TSL_ENOTFOUND when opts->func_name names no
 * function. A module of several functions none of which is "main" gets no
 * default function (as TVM's Schedule): get_block then needs func_name, or
 * a work_on call first. */
TSL_API int tsl_schedule_new(tsl_ctx *ctx, const tsl_module *mod,
                             const tsl_schedule_opts *opts,
                             tsl_schedule **out, tsl_diag *diag);
TSL_API void tsl_schedule_free(tsl_schedule *sch);

/* The current module / the function get_block uses by default (NULL when
 * there is none, see tsl_schedule_new). */
TSL_API const tsl_module *tsl_schedule_module(const tsl_schedule *sch);
TSL_API const tsl_func *tsl_schedule_func(const tsl_schedule *sch);
/* Function `name` (NULL: the default function) as the schedule made it,
 * callable with the original's arguments: where transform_layout changed
 * the layout of parameters, a wrapper taking the original buffers that
 * copies each into its new layout (after filling the padding with the pad
 * value, when one was given), runs the scheduled body and copies the
 * results back; otherwise the function itself. For checks that compare the
 * scheduled function with the original (tsl_interp_check_equivalent).
 * Built in the schedule's arena; NULL when there is no such function. */
TSL_API const tsl_func *tsl_schedule_func_in_original_layout(tsl_schedule *sch,
                                                             const char *name);
/* The module the schedule started from. */
TSL_API const tsl_module *tsl_schedule_original(const tsl_schedule *sch);
/* The trace recorded so far; owned by the schedule. */
TSL_API const tsl_trace *tsl_schedule_trace(const tsl_schedule *sch);
TSL_API tsl_ctx *tsl_schedule_ctx(const tsl_schedule *sch);
/* A new seed drawn from the schedule's generator, for forking a generator
 * (e.g. a replay with fresh decisions per candidate). */
TSL_API uint64_t tsl_schedule_fork_seed(tsl_schedule *sch);

/* A copy of `sch` (TVM's Schedule.copy) to transform on its own: the same
 * module, handles and trace so far; its random generator is seeded from
 * `sch`'s (which advances, so two forks differ). Either may be freed first.
 * Schedule rules fork to branch a design space. */
TSL_API int tsl_schedule_fork(tsl_schedule *sch, tsl_schedule **out,
                              tsl_diag *diag);

/* The statement a handle refers to in the current module: the
 * TSL_STMT_BLOCK_REALIZE of a block handle, the TSL_STMT_FOR of a loop
 * handle; NULL for other handles or when the block or loop no longer
 * exists (inlined, replaced). Valid while the schedule lives. Rules read a
 * block's iterators (kinds, extents, bindings), reads, writes and
 * annotations from it. */
TSL_API const tsl_stmt *tsl_schedule_get_stmt(tsl_schedule *sch,
                                              tsl_sch_rv rv);

/* Kind (TSL_RV_*) of a handle, 0 when `rv` was never handed out or was
 * removed (remove_rv). */
TSL_API int tsl_schedule_rv_kind(const tsl_schedule *sch, tsl_sch_rv rv);
/* The tensor intrinsics tensorize uses on this schedule (the options'
 * registry, else the built-in set); NULL only when that set cannot be
 * made. Rules read intrinsic descriptions from it (ABI 1.2). */
TSL_API const tsl_intrin_registry *tsl_schedule_intrins(tsl_schedule *sch);
/* Value of an expression RV (0 for other kinds). */
TSL_API int64_t tsl_schedule_rv_value(const tsl_schedule *sch, tsl_sch_rv rv);
/* The variable that stands for expression RV `rv` (a sample_perfect_tile,
 * sample_partitioned_tile or sample_categorical output) inside lambda
 * bodies: an int32 variable (the dtype of tessel's
 * and TVM's expression RVs and of lambda parameters) named as traces print
 * the RV, "v12". The same variable for the same handle for the schedule's
 * life, shared by its forks for handles made before the fork; owned by
 * the schedule. NULL for block and loop handles, unknown or removed
 * (remove_rv) handles, and values of untraced methods (fork_seed, get),
 * which a trace could not name. (ABI 1.2) */
TSL_API const tsl_var *tsl_schedule_rv_var(tsl_schedule *sch, tsl_sch_rv rv);
/* Name of the block / loop variable a handle refers to (NULL otherwise). */
TSL_API const char *tsl_schedule_rv_name(const tsl_schedule *sch,
                                         tsl_sch_rv rv);

/* Call the primitive `inst` ("split", "compute_at", ...) with `args`.
 * On success *outs (may be NULL) points at *n_outs new handles, valid while
 * the schedule lives. Errors: TSL_ENOTFOUND (unknown primitive, block or
 * loop), TSL_EINVALID (bad arguments or a failed precondition),
 * TSL_EUNSUPPORTED. The diag reads "<inst>: <reason>". */
TSL_API int tsl_sch_call(tsl_schedule *sch, const char *inst, uint32_t n_args,
                         const tsl_sch_arg *args, const tsl_sch_rv **outs,
                         uint32_t *n_outs, tsl_diag *diag);

/* Typed shortcuts for the most used primitives (same semantics). */
TSL_API int tsl_sch_get_block(tsl_schedule *sch, const char *name,
                              tsl_sch_rv *out, tsl_diag *diag);
TSL_API int tsl_sch_get_loops(tsl_schedule *sch, tsl_sch_rv block,
                              const tsl_sch_rv **loops, uint32_t *n,
                              tsl_diag *diag);

/* ---- instruction kinds -------------------------------------------------- */

/* Parameter types. */
enum {
  TSL_SP_BLOCK = 1,         /* block RV or block name */
  TSL_SP_LOOP = 2,          /* loop RV */
  TSL_SP_BLOCK_OR_LOOP = 3, /* block RV, block name or loop RV */
  TSL_SP_INT = 4,
  TSL_SP_FLOAT = 5,
  TSL_SP_STR = 6,
  TSL_SP_BOOL = 7,
  TSL_SP_INT_OR_NONE = 8,
  TSL_SP_FACTORS = 9,       /* list of int, expression RV or None */
  TSL_SP_INTS = 10,         /* list of int */
  TSL_SP_FLOATS = 11,       /* list of float (ints accepted) */
  TSL_SP_BLOCKS = 12,       /* list of block RVs or names, or None */
  TSL_SP_LOOPS = 13,        /* list of loop RVs */
  TSL_SP_ANY = 14,          /* int, float, str, bool, expression RV, a
                               T. expression, or a list / tuple / dict
                               (str keys) of those */
  TSL_SP_DECISION = 15,     /* decision of a sample_* (int, list or None) */
  TSL_SP_BLOCK_OR_LOOPS = 16, /* loop RV or list of block RVs (blockize) */
  TSL_SP_BUFFER = 17,       /* a buffer of a block: its name, or a tuple
                               ("read" | "write", index); the primitive
                               records the tuple form */
  TSL_SP_LAMBDA = 18,       /* a lambda (index maps and the like) */
  TSL_SP_EXPR_OR_LAMBDA = 19, /* a number, a T. expression, or a lambda of
                               the indices (transform_layout's pad_value) */
  TSL_SP_HANDLE = 20        /* any handle: block, loop or sampled value
                               (remove_rv, get) */
};

/* Parameter flags. */
enum {
  TSL_SPF_REQUIRED = 1, /* no default */
  TSL_SPF_VARARGS = 2,  /* *args: collects the remaining positionals into a
                           list (loop RVs); printed positionally */
  TSL_SPF_ATTR = 4,     /* an attribute (JSON "attrs"), not an input */
  TSL_SPF_BUFFER_NAME = 8 /* an INT buffer index that also takes the
                             buffer's name (TVM's Union[int, str, Buffer]
                             indices); the primitive records the index */
};

typedef struct tsl_sch_param {
  const char *name;
  uint32_t type;  /* TSL_SP_* */
  uint32_t flags; /* TSL_SPF_* */
  tsl_sch_value default_value; /* when not REQUIRED */
} tsl_sch_param;

typedef struct tsl_sch_inst_kind {
  const char *name; /* "split" */
  uint32_t n_params;
  const tsl_sch_param *params;
  uint32_t is_sample; /* records a decision */
  uint32_t is_pure;   /* does not change the module (queries, sampling) */
  /* Output kind (TSL_RV_*), 0 when the instruction returns nothing. */
  uint32_t output_kind;
  /* 1 when the Python method returns a list (get_loops, split, ...), 0 when
   * it returns one value or nothing. */
  uint32_t returns_list;
} tsl_sch_inst_kind;

/* The instruction kind called `name`, or NULL. */
TSL_API const tsl_sch_inst_kind *tsl_sch_inst_kind_find(const char *name);
/* All kinds, in a fixed order; *n gets the count. */
TSL_API const tsl_sch_inst_kind *const *tsl_sch_inst_kinds(uint32_t *n);

/* ---- traces ------------------------------------------------------------ */

/* One recorded instruction. Arguments are in parameter order with defaults
 * filled (n_args == kind->n_params); RVs are numbered as in the trace. */
typedef struct tsl_trace_inst {
  const tsl_sch_inst_kind *kind;
  uint32_t n_args;
  const tsl_sch_value *args;
  uint32_t n_outs;
  const tsl_sch_rv *outs;
  tsl_sch_value decision; /* sample_*: the decision; else NONE */
} tsl_trace_inst;

TSL_API uint32_t tsl_trace_len(const tsl_trace *t);
TSL_API const tsl_trace_inst *tsl_trace_get(const tsl_trace *t, uint32_t i);
/* Kind of RV `rv` in the trace (TSL_RV_*), 0 if unknown. */
TSL_API int tsl_trace_rv_kind(const tsl_trace *t, tsl_sch_rv rv);

/* Deep copy (its own memory); free with tsl_trace_free. */
TSL_API tsl_trace *tsl_trace_copy(const tsl_trace *t);
TSL_API void tsl_trace_free(tsl_trace *t);
/* A copy of the instructions before the first enter_postproc (all of them
 * when there is none): the sketch part of a postprocessed candidate, which
 * mutators edit (TVM's remove_postproc). */
TSL_API tsl_trace *tsl_trace_before_postproc(const tsl_trace *t);
/* A copy of the first `n` instructions. */
TSL_API tsl_trace *tsl_trace_prefix(const tsl_trace *t, uint32_t n);
/* Replace the decision of instruction `i` (a sample_* instruction) in a
 * trace obtained from tsl_trace_copy or tsl_trace_from_json. The value is
 * checked for shape only (int for sample_categorical and
 * sample_compute_location, a list of ints for sample_perfect_tile); replay
 * checks it against the program. */
TSL_API int tsl_trace_set_decision(tsl_trace *t, uint32_t i,
                                   const tsl_sch_value *decision,
                                   tsl_diag *diag);
/* Replace argument `arg` of instruction `i` (a constant: neither the old
 * nor the new value may hold random variables), e.g. the value of an
 * annotate, in a trace obtained from tsl_trace_copy or
 * tsl_trace_from_json. Replay checks it against the program. */
TSL_API int tsl_trace_set_arg(tsl_trace *t, uint32_t i, uint32_t arg,
                              const tsl_sch_value *value, tsl_diag *diag);
/* The trace without instructions after the last one that is not pure
 * (dead queries and samples), as TVM's simplified trace; a copy. */
TSL_API tsl_trace *tsl_trace_simplified(const tsl_trace *t);

/* The trace as a schedule script, one instruction per line, in TVM's form:
 *   l6, l7 = sch.split(loop=l2, factors=[v4, v5], preserve_unit_iters=True)
 * With `with_decisions`, sample_* lines carry decision=. Heap string. */
TSL_API char *tsl_trace_to_script(const tsl_trace *t, int with_decisions);
/* The trace as JSON:
 *   {"insts": [{"kind": "split", "inputs": [...], "attrs": [...],
 *               "outputs": ["l6", "l7"]}, ...],
 *    "decisions": [[inst_index, decision], ...]}
 * Inputs and attributes are listed in parameter order (TSL_SPF_ATTR
 * parameters in "attrs"); RVs are strings "b0"/"l1"/"v2", None is null,
 * strings are {"str": "..."} so they cannot be mistaken for RVs, tuples
 * {"tuple": [...]}, dicts {"dict": [[key, value], ...]}, expressions
 * {"expr": "T.float32(0)"} and lambdas {"lambda": "lambda i: (i // 4,
 * i % 4)"} (TVMScript text, as in a printed trace: a sampled value's
 * variable is the RV's name, "lambda i: (i // v3, i % v3)"). Heap. */
TSL_API char *tsl_trace_to_json(const tsl_trace *t);
/* Parse JSON written by tsl_trace_to_json into a new trace. Errors name
 * the instruction index and field. */
TSL_API int tsl_trace_from_json(tsl_ctx *ctx, const char *json,
                                tsl_trace **out, tsl_diag *diag);

typedef struct tsl_replay_opts {
  uint32_t struct_size;  /* sizeof(tsl_replay_opts) */
  /* 0: use each sample_* instruction's recorded decision; 1: draw fresh
   * decisions from `seed` (recorded decisions ignored). */
  uint32_t fresh_decisions;
  uint64_t seed;
  const char *func_name; /* as tsl_schedule_opts */
  const tsl_intrin_registry *intrins;
} tsl_replay_opts;

/* Apply `trace` to `mod` in a new schedule. A failing instruction fails the
 * replay with "instruction K (<inst>): <reason>". */
TSL_API int tsl_trace_replay(tsl_ctx *ctx, const tsl_trace *trace,
                             const tsl_module *mod,
                             const tsl_replay_opts *opts, tsl_schedule **out,
                             tsl_diag *diag);

/* ---- schedule scripts --------------------------------------------------- */

/* Run a schedule script on `sch`: straight-line statements calling methods
 * on `sch` (see docs/schedule.md). `filename` is used in messages, which
 * read "FILE:LINE: error: <inst>: <reason>". Statements before a failing
 * one stay applied. Returns TSL_EPARSE for syntax errors, else the failing
 * primitive's status. */
TSL_API int tsl_script_run(tsl_schedule *sch, const char *filename,
                           const char *src, size_t len, tsl_diag *diag);

/* ---- tensor intrinsics ---------------------------------------------------
 * A tensor intrinsic pairs a description prim_func (the computation it
 * performs, in TensorIR) with an implementation prim_func (how the hardware
 * does it). tensorize matches a block against the description and
 * substitutes the implementation. */

/* New registry holding the built-in intrinsics. */
TSL_API int tsl_intrin_registry_new(tsl_ctx *ctx, tsl_intrin_registry **out,
                                    tsl_diag *diag);
TSL_API void tsl_intrin_registry_free(tsl_intrin_registry *reg);
/* Register `name`; the functions must outlive the registry. Duplicate
 * names are an error. */
TSL_API int tsl_intrin_registry_add(tsl_intrin_registry *reg, const char *name,
                                    const tsl_func *desc, const tsl_func *impl,
                                    tsl_diag *diag);
/* Register the intrinsics a folder holds, as a TVM user registers them
 * with TensorIntrin.register: each file `intrin__<name>__desc.py` with its
 * `intrin__<name>__impl.py` (one prim_func each) becomes intrinsic <name>,
 * in name order. The functions are parsed into `arena`, which must outlive
 * the registry. *n_added (may be NULL) gets the number registered. A
 * folder that cannot be opened adds nothing. Errors (a file that does not
 * parse, with its location; a missing implementation file; a rejected
 * signature, naming both files) stop at the first failing pair; the pairs
 * before it stay registered. */
TSL_API int tsl_intrin_registry_add_dir(tsl_intrin_registry *reg,
                                        tsl_arena *arena, const char *dir,
                                        uint32_t *n_added, tsl_diag *diag);
/* Lookup by name; returns 0 and leaves outputs alone when missing. */
TSL_API int tsl_intrin_registry_get(const tsl_intrin_registry *reg,
                                    const char *name, const tsl_func **desc,
                                    const tsl_func **impl);
/* 1.9: the CPU features intrinsic `name`'s implementation needs
 * (tsl_intrin_vtable.requires: LLVM's names, comma-separated), or NULL for
 * none or an unknown name; setting them copies the string. */
TSL_API const char *tsl_intrin_registry_requires(const tsl_intrin_registry *reg,
                                                 const char *name);
TSL_API int tsl_intrin_registry_set_requires(tsl_intrin_registry *reg, const char *name,
                                             const char *requires, tsl_diag *diag);
/* Number of intrinsics and the name of the k-th (registration order). */
TSL_API uint32_t tsl_intrin_registry_count(const tsl_intrin_registry *reg);
TSL_API const char *tsl_intrin_registry_name(const tsl_intrin_registry *reg,
                                             uint32_t k);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_SCHEDULE_H */
