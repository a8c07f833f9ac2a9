/*
 * tessel/visit.h — generic traversal and variable substitution over the IR.
 *
 * Visitors are read-only and pre-order. Callbacks receive `user_data`.
 * A statement visit reaches, in source order: every statement, every block
 * (through its realize), and every top-level expression of each statement
 * and block (loop bounds, store values and indices, realize iter values and
 * predicate, block iter domains, region bounds, conditions, ...), each
 * together with the statement it belongs to. Returning nonzero from a
 * callback stops the walk; the visit then returns that value.
 */
#ifndef TESSEL_VISIT_H
#define TESSEL_VISIT_H

#include "tessel/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*tsl_expr_fn)(const tsl_expr *e, void *user_data);

/* Pre-order walk of `e` and all its subexpressions. */
TSL_API int tsl_expr_visit(const tsl_expr *e, tsl_expr_fn fn, void *user_data);

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

/* Substitution: `fn` returns the replacement for a variable, or NULL to
 * keep it. Unchanged subtrees are shared, not copied. */
typedef const tsl_expr *(*tsl_subst_fn)(const tsl_var *v, void *user_data);

TSL_API const tsl_expr *tsl_expr_substitute(tsl_arena *a, const tsl_expr *e,
                                            tsl_subst_fn fn, void *user_data);
/* Substitutes in every expression of the statement tree, including block
 * iter values, predicates, regions, iter domains and buffer shapes of
 * nothing (buffers are not rebuilt). */
TSL_API const tsl_stmt *tsl_stmt_substitute(tsl_arena *a, const tsl_stmt *s,
                                            tsl_subst_fn fn, void *user_data);

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
