/*
 * parallel, vectorize, unroll, bind: change a loop's kind (and thread
 * tag). parallel/vectorize/bind first check every block under the loop:
 * affine bindings, and the loop may only feed spatial block iters (bind to
 * threadIdx.* may also feed reduce iters: cross-thread reduction).
 */
#include "loops_internal.h"

typedef struct kind_check {
  const tsl_var *loop_var;
  int allow_reduce;
  const char *block; /* offending block */
  const char *iter;  /* offending iter var, NULL: binding not affine */
} kind_check;

static int check_block(const tsl_block *b, const tsl_stmt *realize, void *ud) {
  kind_check *k = ud;
  for (uint32_t i = 0; i < b->n_iter_vars; i++) {
    const tsl_expr *v = realize->u.realize.iter_values[i];
    if (!loops_is_affine(v)) {
      k->block = b->name;
      k->iter = NULL;
      return 1;
    }
    if (!tsl_expr_uses_var(v, k->loop_var))
      continue;
    uint32_t t = b->iter_vars[i].iter_type;
    if (t == TSL_ITER_SPATIAL || (t == TSL_ITER_REDUCE && k->allow_reduce))
      continue;
    k->block = b->name;
    k->iter = b->iter_vars[i].var->name;
    return 1;
  }
  return 0;
}

/* Blocks of init statements are not checked (as TVM). */
static int walk_blocks(const tsl_stmt *s, kind_check *k, uint32_t depth) {
  if (depth > 512)
    return 0;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: return walk_blocks(s->u.loop.body, k, depth + 1);
  case TSL_STMT_LET: return walk_blocks(s->u.let.body, k, depth + 1);
  case TSL_STMT_IF:
    return walk_blocks(s->u.branch.then_case, k, depth + 1) ||
           (s->u.branch.else_case &&
            walk_blocks(s->u.branch.else_case, k, depth + 1));
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      if (walk_blocks(s->u.seq.stmts[i], k, depth + 1))
        return 1;
    return 0;
  case TSL_STMT_BLOCK_REALIZE:
    return check_block(s->u.realize.block, s, k) ||
           walk_blocks(s->u.realize.block->body, k, depth + 1);
  default: return 0;
  }
}

static int set_kind(sch_call *c, tsl_for_kind kind, tsl_str tag) {
  sch_path p;
  int rc = sch_loop_path(c, c->args[0].u.rv, &p);
  if (rc)
    return rc;
  const tsl_stmt *loop = sch_path_target(&p);
  const char *name = loop->u.loop.loop_var->name;
  const char *what = kind == TSL_FOR_PARALLEL     ? "parallelized"
                     : kind == TSL_FOR_VECTORIZED ? "vectorized"
                                                  : "bound to a thread";
  if (kind != TSL_FOR_UNROLLED) {
    kind_check k = {loop->u.loop.loop_var,
                    kind == TSL_FOR_THREAD_BINDING && loops_thread_rank(tag) == 1,
                    NULL, NULL};
    if (walk_blocks(loop->u.loop.body, &k, 0)) {
      if (!k.iter)
        return sch_fail(c, TSL_EINVALID,
                        "block '%s' under loop '%s' has a binding that is not "
                        "affine; loop '%s' cannot be %s",
                        k.block, name, name, what);
      return sch_fail(
          c, TSL_EINVALID,
          "loop '%s' cannot be %s: it feeds block iter '%s' of block '%s', "
          "which is not spatial%s",
          name, what, k.iter, k.block,
          kind == TSL_FOR_THREAD_BINDING
              ? " (a reduce iter may only be bound to threadIdx.x/y/z)"
              : " (only data-parallel iters can run in parallel)");
    }
  }
  if (kind == TSL_FOR_VECTORIZED) {
    int64_t ext;
    if (!tsl_expr_is_const_int(sch_simplify(c, loop->u.loop.extent), &ext))
      return sch_fail(c, TSL_EINVALID,
                      "loop '%s' has a non-constant extent; only loops with a "
                      "constant extent can be vectorized",
                      name);
  }
  const tsl_stmt *nl = tsl_stmt_for(
      c->arena, loop->u.loop.loop_var, loop->u.loop.min, loop->u.loop.extent,
      kind, tag, loop->u.loop.annotations, loop->u.loop.body);
  sch_commit(c, p.func, sch_path_rebuild(c->arena, &p, p.depth - 1, nl));
  return TSL_OK;
}

int sch_apply_parallel(sch_call *c) {
  return set_kind(c, TSL_FOR_PARALLEL, NULL);
}

int sch_apply_vectorize(sch_call *c) {
  return set_kind(c, TSL_FOR_VECTORIZED, NULL);
}

int sch_apply_unroll(sch_call *c) { return set_kind(c, TSL_FOR_UNROLLED, NULL); }

int sch_apply_bind(sch_call *c) {
  tsl_str tag = c->args[1].u.s;
  if (loops_thread_rank(tag) < 0)
    return sch_fail(c, TSL_EINVALID,
                    "unknown thread axis '%s'; valid: blockIdx.x/y/z, "
                    "threadIdx.x/y/z, vthread, vthread.x/y/z",
                    tag);
  return set_kind(c, TSL_FOR_THREAD_BINDING, tag);
}
