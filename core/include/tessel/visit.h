/*
 * tessel/visit.h — generic traversal of the IR: the read-only visitor, the
 * one statement/expression mutator every rewrite is written on, and
 * variable substitution (a mutator shortcut).
 *
 * Visitors are read-only and pre-order. Callbacks receive `user_data`.
 * A statement visit reaches, in source order: every statement, every block
 * (through its realize), and every top-level expression of each statement
 * and block (loop bounds, store values and indices, realize iter values and
 * predicate, block iter domains, region bounds, conditions, ...), each
 * together with the statement it belongs to. Returning nonzero from a
 * callback stops the walk; the visit then returns that value, except
 * TSL_VISIT_SKIP from `stmt`: the statement's expressions, block and
 * children are not visited (nor is `stmt_post` called for it) and the walk
 * goes on with the next statement. A `stmt` callback that skips may walk
 * the parts it wants itself (tsl_stmt_visit on a child, with the same or
 * another visitor), e.g. to keep different state for a block's init.
 */
#ifndef TESSEL_VISIT_H
#define TESSEL_VISIT_H

#include "tessel/container.h"
#include "tessel/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*tsl_expr_fn)(const tsl_expr *e, void *user_data);

/* Pre-order walk of `e` and all its subexpressions. */
TSL_API int tsl_expr_visit(const tsl_expr *e, tsl_expr_fn fn, void *user_data);

#define TSL_VISIT_SKIP (-0x7fffffff - 1)

typedef struct tsl_stmt_visitor {
  /* Each may be NULL. */
  int (*stmt)(const tsl_stmt *s, void *user_data);
  int (*block)(const tsl_block *b, const tsl_stmt *realize, void *user_data);
  /* Called for each top-level expression (not for its subexpressions). */
  int (*expr)(const tsl_expr *e, const tsl_stmt *owner, void *user_data);
  /* Called after a statement's children were visited. */
  int (*stmt_post)(const tsl_stmt *s, void *user_data);
  void *user_data;
} tsl_stmt_visitor;

TSL_API int tsl_stmt_visit(const tsl_stmt *s, const tsl_stmt_visitor *v);


/* ==== the mutator ========================================================
 * Rebuilds a tree bottom-up, sharing every unchanged subtree: a node is
 * rebuilt only when one of its children changed, so mutating a tree that
 * needs no change returns the same pointer at no allocation cost. New nodes
 * go to `arena`.
 *
 * Hooks (each may be NULL) replace the default for one node. A hook that
 * wants the default for the node's children calls tsl_mutate_*_children
 * (post-order work after it, pre-order work before it); a hook that returns
 * without calling it does not descend. Hooks reach their state through
 * `user_data` (or by embedding tsl_mutator as the first member of a larger
 * struct).
 *
 * What the defaults reach
 *   Statements: every child statement, loop min/extent, store indices and
 *   value, if conditions, let values, realize iter values and predicate,
 *   and the realized block: iter var domains, read/write regions,
 *   match_buffer source regions, init and body. Block annotations and
 *   function attributes are left alone.
 *   Expressions: every operand. A VAR is looked up in `var` (hook first,
 *   then the `vars` map): a non-NULL result replaces it.
 *   Buffers: wherever one is named — loads, `A.data`, stores, regions,
 *   match_buffer views and sources, alloc_buffers, ALLOCATE — the `buffer` hook, then
 *   the `buffers` map, may give a replacement (the mutator does not rebuild
 *   buffers; a replacement must index the same way).
 *   Definitions: each variable a statement defines (loop var, let var,
 *   block iter var) goes through `def` before its scope is mutated; a
 *   different result becomes the definition, and when `vars` is set the
 *   mutator records old -> new there so that uses follow.
 *
 * Removal
 *   A statement hook may return NULL to remove its statement. A SEQ drops
 *   removed items (an emptied SEQ is removed); a loop, let, ALLOCATE or
 *   realize whose body is removed is removed itself, as is an IF whose
 *   branches are both removed (a removed then-branch with an else left
 *   becomes `if not cond: else`); a removed init is dropped from its block.
 *   tsl_mutate_func never removes a function's root block: an emptied root
 *   body becomes T.evaluate(0).
 *
 * Failure
 *   A hook that cannot go on calls tsl_mutator_fail (the first failure is
 *   kept in `status` / `diag`) and returns its input; the walk finishes
 *   and the caller checks `status`.
 */
typedef struct tsl_mutator tsl_mutator;
struct tsl_mutator {
  tsl_arena *arena; /* required: where new nodes go */
  const tsl_stmt *(*stmt)(tsl_mutator *m, const tsl_stmt *s);
  const tsl_expr *(*expr)(tsl_mutator *m, const tsl_expr *e);
  /* Replacement for a use of `v`, or NULL to keep it (then `vars`). */
  const tsl_expr *(*var)(tsl_mutator *m, const tsl_var *v);
  /* Replacement for a buffer, or NULL to keep it (then `buffers`). */
  const tsl_buffer *(*buffer)(tsl_mutator *m, const tsl_buffer *b);
  /* The variable a definition should bind instead of `v` (return `v` to
   * keep it). */
  const tsl_var *(*def)(tsl_mutator *m, const tsl_var *v);
  tsl_map *vars;    /* optional: const tsl_var * -> const tsl_expr * */
  tsl_map *buffers; /* optional: const tsl_buffer * -> const tsl_buffer * */
  void *user_data;
  int status;       /* TSL_OK until tsl_mutator_fail */
  tsl_diag *diag;   /* optional: receives the first failure's message */
};

/* A mutator with only the arena set (hooks NULL, status TSL_OK). */
TSL_API tsl_mutator tsl_mutator_make(tsl_arena *arena);

/* Mutate a node: the hook when set, else the default. `s` / `e` non-NULL.
 * tsl_mutate_stmt may return NULL (removed, see above). */
TSL_API const tsl_stmt *tsl_mutate_stmt(tsl_mutator *m, const tsl_stmt *s);
TSL_API const tsl_expr *tsl_mutate_expr(tsl_mutator *m, const tsl_expr *e);
/* The defaults: children mutated, the node rebuilt only when one changed. */
TSL_API const tsl_stmt *tsl_mutate_stmt_children(tsl_mutator *m,
                                                 const tsl_stmt *s);
TSL_API const tsl_expr *tsl_mutate_expr_children(tsl_mutator *m,
                                                 const tsl_expr *e);
/* A block's contents (see "What the defaults reach"); NULL when its body
 * was removed. */
TSL_API const tsl_block *tsl_mutate_block_children(tsl_mutator *m,
                                                   const tsl_block *b);
/* One region: its buffer through the buffer hook/map, its bounds through
 * tsl_mutate_expr. */
TSL_API tsl_buffer_region tsl_mutate_region(tsl_mutator *m,
                                            const tsl_buffer_region *r);
/* The buffer replacing `b` (hook, then map), or `b`. */
TSL_API const tsl_buffer *tsl_mutate_buffer(tsl_mutator *m,
                                            const tsl_buffer *b);
/* A function with its body mutated and its parameter buffers mapped; the
 * same pointer when nothing changed. */
TSL_API const tsl_func *tsl_mutate_func(tsl_mutator *m, const tsl_func *f);

/* An `expr` hook that keeps every expression as it is without descending
 * into it: for rewrites of statements only (no expression is walked). */
TSL_API const tsl_expr *tsl_mutate_expr_keep(tsl_mutator *m,
                                             const tsl_expr *e);

/* Record a failure (first one wins) with a printf-style message into
 * m->diag; returns `status`. */
TSL_API int tsl_mutator_fail(tsl_mutator *m, int status, const char *fmt, ...)
    TSL_PRINTF(3, 4);

/* ==== substitution ======================================================
 * A mutator with only a `var` hook: `fn` returns the replacement for a
 * variable, or NULL to keep it. Unchanged subtrees are shared. */
typedef const tsl_expr *(*tsl_subst_fn)(const tsl_var *v, void *user_data);

TSL_API const tsl_expr *tsl_expr_substitute(tsl_arena *a, const tsl_expr *e,
                                            tsl_subst_fn fn, void *user_data);
/* Substitutes in every expression the mutator reaches in the statement
 * tree (block iter values, predicates, regions, iter domains included;
 * buffer shapes are not rebuilt). */
TSL_API const tsl_stmt *tsl_stmt_substitute(tsl_arena *a, const tsl_stmt *s,
                                            tsl_subst_fn fn, void *user_data);

/* Substitution through a map (const tsl_var * -> const tsl_expr *): a
 * mutator with only `vars` set. `vars` is not modified; NULL or empty
 * returns the input. */
TSL_API const tsl_expr *tsl_expr_substitute_map(tsl_arena *a, const tsl_expr *e,
                                                const tsl_map *vars);
TSL_API const tsl_stmt *tsl_stmt_substitute_map(tsl_arena *a, const tsl_stmt *s,
                                                const tsl_map *vars);

/* tsl_expr_substitute with TVM's dtype legalization
 * (SubstituteWithDataTypeLegalization): where the replacements change the
 * width of an integer operand, the narrower operand of every arithmetic
 * operator, min/max, comparison and select is widened (an integer constant
 * becomes a constant of the wider dtype, anything else a cast), as TVM's
 * operators do when a Python expression mixes int32 and int64. E.g. an
 * index map `i // 4` parsed over an int32 `i`, given an int64 `i`, becomes
 * `i // T.int64(4)`. */
TSL_API const tsl_expr *tsl_expr_substitute_legalize(tsl_arena *a,
                                                     const tsl_expr *e,
                                                     tsl_subst_fn fn,
                                                     void *user_data);

/* An `expr` hook for mutators that may change the width of integer
 * variables: the default for the children, then the node legalized by the
 * rule of tsl_expr_substitute_legalize (the narrower integer operand of a
 * rebuilt operator widened). */
TSL_API const tsl_expr *tsl_mutate_expr_legalize(tsl_mutator *m,
                                                 const tsl_expr *e);

/* 1 when `v` occurs in `e`. */
TSL_API int tsl_expr_uses_var(const tsl_expr *e, const tsl_var *v);

/* 1 when `buf.data` (TSL_EXPR_BUFFER_DATA of `buf`) occurs anywhere in the
 * statement tree: the buffer's storage is used directly (an opaque access,
 * e.g. through T.tvm_access_ptr), so its accesses cannot all be seen as
 * loads and stores. */
TSL_API int tsl_stmt_uses_buffer_data(const tsl_stmt *s, const tsl_buffer *buf);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_VISIT_H */
