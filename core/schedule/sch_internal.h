/*
 * Internal interface of core/schedule: the schedule state, the RV table,
 * locating blocks and loops, rebuilding the tree after a change, and the
 * signature every primitive implements.
 *
 * How a primitive works
 *   tsl_sch_call binds the user's arguments against the instruction's
 *   parameter list (tsl_sch_param), turns block names into block RVs, and
 *   calls the primitive's apply function with an sch_call. The apply
 *   function:
 *     1. locates its operands (sch_block_path / sch_loop_path),
 *     2. checks every precondition, failing with sch_fail(c, ...) — the
 *        reason only; the caller prefixes "<primitive>: ",
 *     3. builds the new statements in c->arena (IR is immutable: build new
 *        nodes, share unchanged subtrees),
 *     4. installs the result with sch_commit(c, path->func, new_body)
 *        (usually through sch_path_rebuild),
 *     5. hands out new handles with sch_out_block / sch_out_loop /
 *        sch_out_int.
 *   If the apply function fails, the caller restores the module and the
 *   RV table, so a failing primitive may commit or create RVs before it
 *   fails. A primitive may call another primitive's apply function on the
 *   same sch_call (e.g. trial runs), saving/restoring with sch_snapshot.
 */
#ifndef TESSEL_SCH_INTERNAL_H
#define TESSEL_SCH_INTERNAL_H

#include "tessel/analysis.h"
#include "tessel/schedule.h"
#include "tessel/visit.h"

#define SCH_MAX_DEPTH 256

typedef struct sch_rv {
  uint32_t kind; /* TSL_RV_* */
  tsl_str func;  /* BLOCK, LOOP: the function it lives in */
  union {
    tsl_str block;       /* BLOCK: block name */
    const tsl_var *loop; /* LOOP: loop variable */
    int64_t value;       /* EXPR */
  } u;
  const tsl_var *var; /* EXPR: its variable in lambdas (tsl_schedule_rv_var) */
} sch_rv;

struct tsl_trace {
  tsl_ctx *ctx;
  tsl_arena *arena; /* owns args/outs arrays of the instructions */
  tsl_vec insts;    /* tsl_trace_inst (heap) */
  tsl_vec rv_kinds; /* uint8_t TSL_RV_* by RV number (heap); len: RVs named */
  int owns_arena;
  char *key; /* tsl_trace_key's text (heap), NULL until asked; dropped on change */
};

static inline tsl_trace_inst *sch_trace_inst(const tsl_trace *t, uint32_t i) {
  return (tsl_trace_inst *)t->insts.data + i;
}

/* A schedule's arena, shared with its forks: a fork's nodes point into its
 * parent's arena, so an arena lives while a schedule forked from it does. */
typedef struct sch_arena_ref {
  tsl_arena *arena;
  uint32_t refs;
  struct sch_arena_ref *parent; /* the arena this one's nodes point into */
} sch_arena_ref;

struct tsl_schedule {
  tsl_ctx *ctx;
  tsl_arena *arena; /* == aref->arena */
  sch_arena_ref *aref;
  const tsl_module *orig;
  const tsl_module *mod;
  tsl_str func_name; /* default function */
  tsl_analyzer *an;
  uint64_t rng[4];
  const tsl_intrin_registry *intrins;
  tsl_intrin_registry *own_intrins; /* created lazily when intrins NULL */
  /* the RV table: a tsl_vec of sch_rv (heap) whose data and length read as
   * rvs / n_rvs too (state.c asserts the layout) */
  union {
    tsl_vec rv_table;
    struct {
      sch_rv *rvs;
      uint32_t n_rvs;
    };
  };
  tsl_trace trace;
  int in_postproc;
  /* parameters whose layout transform_layout changed, in order (elements
   * sch_param_layout, layout_internal.h; arena-backed once used) */
  tsl_vec param_layouts;
  /* sch_binding_affine's answers (sch_check.c), newest first, in the arena:
   * blocks keep their bindings across most primitives, and TVM keeps the
   * same answer per block in its ScheduleState */
  struct sch_affine_memo *affine_memo;
};

/* A path from a function's root realize down to one statement:
 * stmts[0] is func->body, stmts[k] is child number index[k] of stmts[k-1]
 * (index[0] unused). Child numbers: FOR body 0; BLOCK_REALIZE block body 0,
 * block init 1; SEQ item i; IF then 0, else 1; LET body 0. */
typedef struct sch_path {
  const tsl_func *func;
  uint32_t depth; /* number of statements; the target is stmts[depth-1] */
  const tsl_stmt *stmts[SCH_MAX_DEPTH];
  uint32_t index[SCH_MAX_DEPTH];
} sch_path;

/* The arguments of one primitive call. */
typedef struct sch_call {
  tsl_schedule *sch;
  tsl_arena *arena;          /* == sch->arena */
  const tsl_sch_inst_kind *kind;
  tsl_sch_value *args; /* kind->n_params entries, defaults filled, block
                          names already turned into RVs; an apply function
                          may normalize them (what the trace records) */
  /* sample_*: on entry the requested decision (NONE: draw one); the apply
   * function stores the decision it used. */
  tsl_sch_value decision;
  tsl_vec outs; /* tsl_sch_rv, the new handles (arena) */
  tsl_diag *diag;
  /* Blocks the primitive renamed (see sch_rename_block). */
  uint32_t n_renames;
  struct {
    tsl_str func, from, to;
  } renames[4];
} sch_call;

typedef int (*sch_apply_fn)(sch_call *c);

/* An instruction kind with its implementation. `pub` comes first so a
 * tsl_sch_inst_kind pointer converts back. */
typedef struct sch_inst {
  tsl_sch_inst_kind pub;
  sch_apply_fn apply;
  /* 1: not recorded in the trace (TVM's untraced Schedule methods:
   * work_on, seed, can_decompose_padding...); the script layer hands
   * their expression outputs out as plain ints */
  uint32_t untraced;
} sch_inst;

/* ---- failing --------------------------------------------------------- */

/* Writes the reason into c->diag and returns `status`. */
int sch_fail(sch_call *c, int status, const char *fmt, ...) TSL_PRINTF(3, 4);

/* Put "<prefix>" (printf-style) in front of the diag's text, keeping it
 * (e.g. "split: " before a primitive's reason). NULL diag is ignored. */
void sch_diag_prefix(tsl_diag *diag, const char *fmt, ...) TSL_PRINTF(2, 3);

/* ---- handles ---------------------------------------------------------- */

/* Locate the block / loop an RV argument refers to. Fails (with a message
 * naming the handle) for a wrong kind or a stale handle. */
int sch_block_path(sch_call *c, tsl_sch_rv rv, sch_path *out);
int sch_loop_path(sch_call *c, tsl_sch_rv rv, sch_path *out);
/* The block / the FOR a path ends at. */
const tsl_block *sch_path_block(const sch_path *p);
const tsl_stmt *sch_path_target(const sch_path *p);
/* Level (index into stmts) of the nearest BLOCK_REALIZE strictly above
 * `level`: the scope block. */
uint32_t sch_path_scope_level(const sch_path *p, uint32_t level);

/* Find the block called `name` in `f`. Returns the number of blocks with
 * that name (path filled for the first) — 0 when missing. */
uint32_t sch_find_block(const tsl_func *f, tsl_str name, sch_path *out);
/* Find the FOR whose loop variable is `v` in `f`; 1 found, 0 not. */
int sch_find_loop(const tsl_func *f, const tsl_var *v, sch_path *out);
/* The function an RV lives in (current version), or NULL. */
const tsl_func *sch_func(const tsl_schedule *sch, tsl_str name);

/* Append new handles to the call's outputs. */
tsl_sch_rv sch_out_block(sch_call *c, tsl_str func, tsl_str name);
tsl_sch_rv sch_out_loop(sch_call *c, tsl_str func, const tsl_var *v);
tsl_sch_rv sch_out_int(sch_call *c, int64_t value);

/* Record that block `from` of `func` is now called `to` (e.g. C ->
 * C_update): when the call succeeds, every handle to `from` follows, as a
 * TVM block RV follows its block. */
void sch_rename_block(sch_call *c, tsl_str func, tsl_str from, tsl_str to);

/* Name for messages: "block 'C'" / "loop 'i'" / "v4 = 16". Arena string. */
const char *sch_rv_describe(const tsl_schedule *sch, tsl_sch_rv rv);

/* ---- rebuilding -------------------------------------------------------- */

/* `parent` with child number `index` replaced by `child`. A NULL child
 * removes a SEQ item (a SEQ left with one item collapses to it) or an
 * init; elsewhere NULL is not allowed. */
const tsl_stmt *sch_with_child(tsl_arena *a, const tsl_stmt *parent,
                               uint32_t index, const tsl_stmt *child);
/* A realize whose block is `block`, values/predicate from `realize`. */
const tsl_stmt *sch_with_block(tsl_arena *a, const tsl_stmt *realize,
                               const tsl_block *block);
/* The function body with p->stmts[level] replaced by `stmt` (NULL: removed
 * as above) and every ancestor rebuilt. */
const tsl_stmt *sch_path_rebuild(tsl_arena *a, const sch_path *p,
                                 uint32_t level, const tsl_stmt *stmt);
/* Install `body` as the new body of `func` (found by name in the current
 * module). */
void sch_commit(sch_call *c, const tsl_func *func, const tsl_stmt *body);

/* Saving and restoring the state around trial applications. */
typedef struct sch_snapshot {
  const tsl_module *mod;
  uint32_t n_rvs;
  uint32_t n_outs;
  uint32_t n_renames;
} sch_snapshot;
sch_snapshot sch_snapshot_take(const sch_call *c);
void sch_snapshot_restore(sch_call *c, sch_snapshot s);

/* ---- names, variables, blocks ------------------------------------------ */

/* buf = a followed by b (NULL: nothing) and, when num >= 0, its decimal
 * digits, truncated to cap - 1 bytes: the names primitives make ("i_0",
 * "ax1", "C_global"), without snprintf's cost in a replay. Returns buf. */
char *sch_name_join(char *buf, size_t cap, const char *a, const char *b, int64_t num);
/* `base` if no block of `f` has that name, else base_1, base_2, ... */
tsl_str sch_fresh_block_name(sch_call *c, const tsl_func *f, const char *base);
/* A new variable (loop or iter var). */
const tsl_var *sch_new_var(sch_call *c, const char *name, tsl_dtype dtype);
/* Paths are large (SCH_MAX_DEPTH steps) and mostly unused: arrays of them
 * come from arena memory that is not cleared (sch_paths_new), written with
 * their used steps only (sch_path_set: func, depth, the steps below depth,
 * and the next step empty as in a cleared path). */
sch_path *sch_paths_new(sch_call *c, uint32_t n);
void sch_path_set(sch_path *dst, const sch_path *src);
/* Blocks directly under `s` (not inside other blocks), in program order,
 * as paths extending `base` (base->stmts[base->depth-1] must be `s`).
 * Returns the count; *out is arena-allocated. */
uint32_t sch_child_blocks(sch_call *c, const sch_path *base, sch_path **out);
/* Name of the first block under `s` in program order (nested loops
 * followed first, as TVM's loop_partition names its blocks), or NULL. */
const char *sch_first_block_name(const tsl_stmt *s);
/* 1 when the region list has an entry for buffer `b`. */
/* The deepest level the n paths share (ps[i].stmts[0 .. level] equal for
 * all of them): their lowest common statement. */
uint32_t sch_paths_common_level(const sch_path *ps, uint32_t n);

/* The blocks of the scope of the block at `p` that write what it reads
 * (producers = 1) or read what it writes (producers = 0), in program order:
 * the count; out[0 .. min(count, max)) gets their paths (out may be NULL). */
uint32_t sch_block_deps(sch_call *c, const sch_path *p, int producers, sch_path *out,
                        uint32_t max);
int sch_regions_have(const tsl_buffer_region *r, uint32_t n,
                     const tsl_buffer *b);

/* A buffer argument (TSL_SP_BUFFER) resolved against block `b`: a name is
 * looked up in the reads, then the writes (a buffer both read and written
 * is the written one), as TVM does; the argument is rewritten to the tuple
 * form the trace records. `required`: -1 any, 0 a read, 1 a write. */
typedef struct sch_buffer_ref {
  int is_write;
  uint32_t index;                   /* in b->reads / b->writes */
  const tsl_buffer_region *region;
  const tsl_buffer *buffer;
} sch_buffer_ref;
int sch_buffer_arg(sch_call *c, const tsl_block *b, uint32_t arg, int required,
                   sch_buffer_ref *out);

/* A copy of `s` in which every variable and buffer it defines (loop, let
 * and iter vars; alloc and match buffers) is new, with the same names, so
 * that the copy can live next to the original. `vars` (may be NULL) maps
 * free variables to replacements and receives old -> new for the
 * definitions (copy_fresh.c). */
const tsl_stmt *sch_stmt_copy_fresh(sch_call *c, const tsl_stmt *s,
                                    tsl_map *vars);
/* A buffer index argument (TSL_SPF_BUFFER_NAME): an int is kept; a buffer
 * name is resolved against block `b` as sch_buffer_arg does, must name a
 * read (is_write 0) or write (1) buffer, and is rewritten to its index. */
int sch_buffer_index_arg(sch_call *c, const tsl_block *b, uint32_t arg,
                         int is_write);

/* Simplify with the schedule's analyzer. */
const tsl_expr *sch_simplify(sch_call *c, const tsl_expr *e);

/* ---- shared preconditions (sch_check.c) -------------------------------------
 * TVM's analysis.cc checks, written once. Paths end at a block realize
 * (bp), a loop (lp) or either (p). Checks fail through sch_fail, naming the
 * block or loop and what would be valid; README.md lists where each runs. */

/* 1 when the block's bindings are affine (TVM's IsAffineBinding): its iter
 * values are a surjective iterator map (tsl_iter_map_detect) of the loops
 * at levels >= `from` (0: every loop up to its scope block) under its
 * predicate, each with step 1 or constant. Else 0 and *why (may be NULL)
 * gets the reason. */
int sch_binding_affine(sch_call *c, const sch_path *bp, uint32_t from,
                       const char **why);
/* Records the answer of sch_binding_affine for a block whose bindings a
 * primitive has just detected as an iterator map: `map` (SURJECTIVE, unit
 * loops kept) of `bindings` under `predicate` over the `n` loops from its
 * scope down (`from` the level below the scope), so that the checks of the
 * next primitives (reorder, parallel) do not detect it again. Recorded
 * only where the schedule's analyzer could not answer otherwise: constant
 * loop ranges, no predicate, bindings over those loops alone. */
void sch_binding_affine_seed(sch_call *c, const tsl_block *b, const tsl_expr *const *bindings,
                             const tsl_expr *predicate, uint32_t from, uint32_t n,
                             const tsl_var *const *vars, const tsl_range *doms,
                             const tsl_iter_map *map);
/* Complete block: only spatial iterators, the only writer of its outputs
 * among its scope's child blocks, does not read them. Reduction block: a
 * T.init(), affine bindings, spatial/reduce iterators only, the only writer,
 * reduce iterators do not index its stores. */
int sch_is_complete(sch_call *c, const sch_path *bp);
int sch_is_reduction(sch_call *c, const sch_path *bp);
int sch_check_complete(sch_call *c, const sch_path *bp);
int sch_check_reduction(sch_call *c, const sch_path *bp);
int sch_check_complete_or_reduction(sch_call *c, const sch_path *bp);
/* Every block directly under the loop or block at `p` is complete or a
 * reduction block, judged among those blocks (TVM's
 * CheckSubtreeCompactDataflow). */
int sch_check_compact_dataflow(sch_call *c, const sch_path *p);
/* The block at `scope` is a stage pipeline: no child block writes a buffer
 * an earlier one read, and every child block's reads are covered by what
 * its producers surely write (region cover). sch_scope_path gives the
 * scope of a block. */
int sch_check_stage_pipeline(sch_call *c, const sch_path *scope);
/* The path of the nearest block above the last statement of `p`. */
sch_path sch_scope_path(const sch_path *p);
/* Region cover of every child block of the block at `scope` that reads
 * `buf` (cache_read's check). */
int sch_check_region_cover(sch_call *c, const sch_path *scope,
                           const tsl_buffer *buf);
/* The only block directly under the loop or block at `p` (TVM's
 * CheckGetSingleChildBlockRealizeOnSRefTree); `out` may be NULL. */
int sch_single_child_block(sch_call *c, const sch_path *p, sch_path *out);
/* The loop at `lp` may become `kind` (TSL_FOR_PARALLEL / VECTORIZED /
 * THREAD_BINDING with `tag`): compact data flow, and every block under it
 * (init blocks excepted) binds only spatial iterators to it, or reduce ones
 * when bound to threadIdx.x/y/z. */
int sch_check_parallelizable(sch_call *c, const sch_path *lp, uint32_t kind,
                             const char *tag);
/* `e` with the iter vars of the block realize replaced by their values. */
const tsl_expr *sch_subst_bindings(sch_call *c, const tsl_stmt *realize,
                                   const tsl_expr *e);
/* 1 when a buffer of storage scope `scope` is relaxed over a loop bound to
 * `tag` (TVM: storage rank <= thread rank): shared over threadIdx.* and
 * vthread, warp over threadIdx.x. */
int sch_thread_relaxes(const char *scope, const char *tag);

/* ---- sampling ---------------------------------------------------------- */

uint64_t sch_rand_u64(tsl_schedule *sch);
/* Uniform in [0, n). */
uint64_t sch_rand_below(tsl_schedule *sch, uint64_t n);
void sch_rng_seed(tsl_schedule *sch, uint64_t seed);

/* ---- the instruction table ---------------------------------------------- */

const sch_inst *sch_inst_find(const char *name);

/* Apply functions, one per primitive (files named in meson.build). */
#define SCH_APPLY_FNS(X)                                                      \
  X(get_block) X(get_loops) X(get_child_blocks) X(get_producers)              \
  X(get_consumers)                                                            \
  X(split) X(fuse) X(reorder) X(parallel) X(vectorize) X(unroll) X(bind)      \
  X(annotate) X(unannotate)                                                   \
  X(compute_at) X(reverse_compute_at) X(compute_inline)                       \
  X(reverse_compute_inline) X(sample_compute_location)                        \
  X(cache_read) X(cache_write) X(set_scope) X(storage_align)                  \
  X(reindex) X(reindex_cache_read) X(reindex_cache_write) X(cache_inplace)    \
  X(cache_index) X(read_at) X(write_at) X(rolling_buffer)                     \
  X(decompose_reduction) X(rfactor)                                           \
  X(blockize) X(tensorize)                                                    \
  X(sample_perfect_tile) X(sample_categorical) X(enter_postproc)              \
  X(transform_layout) X(transform_block_layout) X(set_axis_separator)         \
  SCH_APPLY_FNS_LOOPPRIMS(X)

/* add_unit_loop .. copy: sch_loopprims_src in meson.build (and
 * sample_partitioned_tile, get_output_blocks: prim_sample.c, prim_query.c) */
#define SCH_APPLY_FNS_LOOPPRIMS(X)                                            \
  X(add_unit_loop) X(merge) X(loop_partition) X(reorder_block_iter_var)       \
  X(unsafe_set_dtype) X(unsafe_hide_buffer_access) X(annotate_buffer_access)  \
  X(pad_einsum) X(decompose_padding) X(can_decompose_padding)                 \
  X(sample_partitioned_tile) X(get_output_blocks)                             \
  X(work_on) X(seed) X(fork_seed) X(get) X(remove_rv) X(show) X(copy)

#define SCH_DECLARE_APPLY_(name) int sch_apply_##name(sch_call *c);
SCH_APPLY_FNS(SCH_DECLARE_APPLY_)
#undef SCH_DECLARE_APPLY_

/* ---- the trace ---------------------------------------------------------- */

void sch_trace_init(tsl_trace *t, tsl_ctx *ctx, tsl_arena *arena);
void sch_trace_release(tsl_trace *t);
/* Record one instruction (copies args/outs into the trace's arena). */
void sch_trace_append(tsl_trace *t, const tsl_sch_inst_kind *kind,
                      const tsl_sch_value *args, const tsl_sch_rv *outs,
                      uint32_t n_outs, const uint32_t *out_kinds,
                      const tsl_sch_value *decision);
/* ---- values (values.c) ---------------------------------------------------- */

/* A deep copy in `a`: lists, strings, expressions and lambdas (with fresh
 * parameters), so that it outlives the value's own arena. */
tsl_sch_value sch_value_copy(tsl_arena *a, const tsl_sch_value *v);
/* LIST, TUPLE or DICT (u.items, n items). */
int sch_value_has_items(const tsl_sch_value *v);
/* 1 when the value holds an EXPR or LAMBDA somewhere. */
int sch_value_has_exprs(const tsl_sch_value *v);
/* Append the Python spelling of a value to `sb`. */
void sch_value_print(tsl_strbuf *sb, const tsl_sch_value *v,
                     const uint8_t *rv_kinds, uint32_t n_rvs);
char sch_rv_prefix(uint32_t kind);
/* A value as trace JSON (jansson; trace_json.c). */
struct json_t *sch_value_json(const tsl_sch_value *v, const tsl_trace *t);

/* ---- sampled values in lambdas (values.c) ---------------------------------
 * An expression RV's variable (tsl_schedule_rv_var) is an int32 variable
 * named as traces print the RV, `v<N>`. Inside a lambda every variable that
 * is not one of its parameters stands for an RV: in a call it must be the
 * schedule's own variable (sch_invoke checks the pointer); in a recorded
 * trace, whose copies and JSON make new variables, its name gives the RV. */

/* 1 and *rv = N when `v` is named `v<N>`. */
int sch_rv_var_number(const tsl_var *v, tsl_sch_rv *rv);
/* Calls fn(var, ud) for each variable of a lambda body in `v` (nested in
 * lists too) that is not a parameter; stops at and returns the first
 * nonzero answer. */
int sch_value_rv_vars(const tsl_sch_value *v, int (*fn)(const tsl_var *, void *),
                      void *ud);
/* 1 when a lambda in `v` uses such a variable. */
int sch_value_has_rv_vars(const tsl_sch_value *v);
/* `v` with those variables replaced by what fn returns (legalized, as an
 * int64 value in an int32 expression widens it); NULL from fn fails with
 * *bad = the variable. Unchanged when no lambda has such a variable. */
int sch_value_subst_rv_vars(tsl_arena *a, const tsl_sch_value *v, tsl_subst_fn fn,
                            void *ud, tsl_sch_value *out, const tsl_var **bad);

/* Length of the expression starting at `p`: up to the first ',', ')', ']',
 * '}', '#' or newline outside brackets and strings (trailing blanks
 * dropped). */
size_t sch_value_span(const char *p, const char *end);
/* Names of the enclosing script a T. expression or lambda may use: `fn`
 * returns 1 for a known name with its integer value in *value and, for a
 * sampled value, its variable in *var (else NULL). A lambda's body keeps
 * the variable, a T. expression takes the value. */
typedef struct sch_name_lookup {
  int (*fn)(void *user_data, const char *name, size_t len, int64_t *value,
            const tsl_var **var);
  void *user_data;
} sch_name_lookup;
/* Read a T. expression (`T.float32(0)`) / a lambda (`lambda i: (i // 4, i %
 * 4)`) from `len` bytes of text that start at file:line:col. `lk` may be
 * NULL. Built in `a`; errors are located. */
int sch_parse_expr_text(tsl_arena *a, const char *file, uint32_t line,
                        uint32_t col, const char *text, size_t len,
                        const sch_name_lookup *lk, tsl_sch_value *out,
                        tsl_diag *diag);
int sch_parse_lambda_text(tsl_arena *a, const char *file, uint32_t line,
                          uint32_t col, const char *text, size_t len,
                          const sch_name_lookup *lk, tsl_sch_value *out,
                          tsl_diag *diag);

/* Bind arguments against the kind's parameters (Python rules) into
 * `bound` (n_params entries). Diag names the parameter on error. */
int sch_bind_args(const tsl_sch_inst_kind *k, uint32_t n_args,
                  const tsl_sch_arg *args, tsl_arena *a, tsl_sch_value *bound,
                  tsl_diag *diag);
/* 1 when `v` is acceptable for a parameter of type `type` (TSL_SP_*). */
int sch_type_ok(uint32_t type, const tsl_sch_value *v);
/* Apply an instruction with bound arguments (RVs of this schedule) and a
 * requested decision; records it in the trace. */
int sch_invoke(tsl_schedule *sch, const sch_inst *inst,
               const tsl_sch_value *bound, const tsl_sch_value *decision,
               const tsl_sch_rv **outs, uint32_t *n_outs, tsl_diag *diag);

#endif
