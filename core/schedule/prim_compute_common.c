/*
 * Helpers shared by the compute-location primitives: a block's scope and
 * its producer/consumer relations, TVM's block kind checks (complete,
 * reduction, stage pipeline, output block), removing a leaf block with its
 * now-empty loops, loop iteration types, and the root/inline marks.
 */
#include "compute_internal.h"
#include "tessel/script.h"

#include <stdlib.h>
#include <string.h>

void cmp_scope_of(sch_call *c, const sch_path *p, cmp_scope *s) {
  uint32_t lvl = sch_path_scope_level(p, p->depth - 1);
  s->path = *p;
  s->path.depth = lvl + 1;
  s->level = lvl;
  s->block = s->path.stmts[lvl]->u.realize.block;
  s->n = sch_child_blocks(c, &s->path, &s->kids);
  s->self = s->n;
  const tsl_stmt *me = sch_path_target(p);
  for (uint32_t i = 0; i < s->n; i++)
    if (sch_path_target(&s->kids[i]) == me)
      s->self = i;
}

const tsl_block *cmp_kid(const cmp_scope *s, uint32_t i) {
  return sch_path_block(&s->kids[i]);
}

int cmp_feeds(const tsl_block *a, const tsl_block *b) {
  for (uint32_t w = 0; w < a->n_writes; w++)
    if (sch_regions_have(b->reads, b->n_reads, a->writes[w].buffer) ||
        sch_regions_have(b->writes, b->n_writes, a->writes[w].buffer))
      return 1;
  return 0;
}

static uint32_t *idx_array(sch_call *c, uint32_t n) {
  return TSL_NEW_ARRAY(c->arena, uint32_t, n ? n : 1);
}

uint32_t cmp_producers(sch_call *c, const cmp_scope *s, uint32_t i,
                       uint32_t **out) {
  uint32_t n = 0;
  *out = idx_array(c, s->n);
  for (uint32_t k = 0; k < i; k++)
    if (cmp_feeds(cmp_kid(s, k), cmp_kid(s, i)))
      (*out)[n++] = k;
  return n;
}

uint32_t cmp_consumers(sch_call *c, const cmp_scope *s, uint32_t i,
                       uint32_t **out) {
  uint32_t n = 0;
  *out = idx_array(c, s->n);
  for (uint32_t k = i + 1; k < s->n; k++)
    if (cmp_feeds(cmp_kid(s, i), cmp_kid(s, k)))
      (*out)[n++] = k;
  return n;
}

uint32_t cmp_writers(const cmp_scope *s, const tsl_buffer *b) {
  uint32_t n = 0;
  for (uint32_t k = 0; k < s->n; k++)
    if (sch_regions_have(cmp_kid(s, k)->writes, cmp_kid(s, k)->n_writes, b))
      n++;
  return n;
}

/* The block kind and scope checks are the shared ones of sch_check.c. */
int cmp_check_stage_pipeline(sch_call *c, const cmp_scope *s) {
  return sch_check_stage_pipeline(c, &s->path);
}

int cmp_check_complete(sch_call *c, const cmp_scope *s, uint32_t i) {
  return sch_check_complete(c, &s->kids[i]);
}

int cmp_check_complete_or_reduction(sch_call *c, const cmp_scope *s,
                                    uint32_t i) {
  return sch_check_complete_or_reduction(c, &s->kids[i]);
}

int cmp_buffer_allocated(const tsl_block *scope, const tsl_buffer *b) {
  for (uint32_t k = 0; k < scope->n_alloc_buffers; k++)
    if (scope->alloc_buffers[k] == b)
      return 1;
  return 0;
}

int cmp_is_output(const cmp_scope *s, const tsl_block *b) {
  for (uint32_t w = 0; w < b->n_writes; w++)
    if (!cmp_buffer_allocated(s->block, b->writes[w].buffer))
      return 1;
  return 0;
}

int cmp_remove_leaf(sch_call *c, const sch_path *p, uint32_t scope_level,
                    const tsl_stmt **body) {
  uint32_t k = p->depth - 1;
  while (k - 1 > scope_level && p->stmts[k - 1]->kind == TSL_STMT_FOR)
    k--;
  const tsl_stmt *parent = p->stmts[k - 1];
  const char *name = sch_path_block(p)->name;
  if (parent->kind == TSL_STMT_SEQ) {
    *body = sch_path_rebuild(c->arena, p, k, NULL);
    return TSL_OK;
  }
  if (k - 1 == scope_level)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' is the only statement of its scope (block "
                    "'%s'); removing it would leave the scope empty",
                    name, parent->u.realize.block->name);
  return sch_fail(c, TSL_EUNSUPPORTED,
                  "block '%s' sits under an if/let statement; only blocks "
                  "under plain loops can be moved or removed",
                  name);
}

typedef struct loop_uses {
  const tsl_var *v;
  int n[3]; /* bindings using v of spatial, reduce, other iterators */
} loop_uses;

/* The blocks directly under the loop (not the blocks inside them). */
static int count_loop_uses(const tsl_stmt *s, void *ud) {
  loop_uses *u = ud;
  if (s->kind != TSL_STMT_BLOCK_REALIZE)
    return 0;
  const tsl_block *b = s->u.realize.block;
  for (uint32_t i = 0; i < s->u.realize.n_iter_values; i++) {
    if (!tsl_expr_uses_var(s->u.realize.iter_values[i], u->v))
      continue;
    uint32_t t = b->iter_vars[i].iter_type;
    u->n[t == TSL_ITER_SPATIAL ? 0 : t == TSL_ITER_REDUCE ? 1 : 2]++;
  }
  return TSL_VISIT_SKIP;
}

uint32_t cmp_loop_iter_type(const tsl_stmt *loop) {
  loop_uses u = {loop->u.loop.loop_var, {0, 0, 0}};
  tsl_stmt_visitor v = {0};
  v.stmt = count_loop_uses;
  v.user_data = &u;
  tsl_stmt_visit(loop->u.loop.body, &v);
  if (u.n[2] || (u.n[0] && u.n[1]))
    return TSL_ITER_OPAQUE;
  return u.n[1] ? TSL_ITER_REDUCE : TSL_ITER_SPATIAL;
}

int cmp_loop_mark(sch_call *c, tsl_sch_rv rv) {
  tsl_schedule *sch = c->sch;
  if (rv >= sch->n_rvs || sch->rvs[rv].kind != TSL_RV_LOOP)
    return 0;
  const tsl_var *v = sch->rvs[rv].u.loop;
  int mark = strcmp(v->name, CMP_ROOT_MARK) == 0     ? -1
             : strcmp(v->name, CMP_INLINE_MARK) == 0 ? -2
                                                      : 0;
  if (!mark)
    return 0;
  const tsl_func *f = sch_func(sch, sch->rvs[rv].func);
  sch_path p;
  return f && sch_find_loop(f, v, &p) ? 0 : mark;
}

const char *cmp_expr_str(sch_call *c, const tsl_expr *e) {
  char *s = tsl_print_expr(e);
  const char *r = tsl_arena_strdup(c->arena, s ? s : "?");
  free(s);
  return r;
}
