/*
 * A copy of a statement whose every definition is new: loop, let and
 * block iter variables, and the buffers its blocks allocate or match. A
 * primitive that duplicates a subtree (loop_partition, decompose_padding)
 * needs it, since handles and the printer tell loops and buffers apart by
 * identity.
 */
#include "sch_internal.h"

#include <string.h>

typedef struct fresh_rw {
  tsl_mutator m; /* first: hooks get the mutator */
  tsl_map bufs;
} fresh_rw;

static const tsl_var *fresh_def(tsl_mutator *m, const tsl_var *v) {
  return tsl_var_new(m->arena, v->name, v->dtype);
}

static const tsl_buffer *fresh_buffer(tsl_mutator *m, const tsl_buffer *b) {
  const tsl_expr **shape = TSL_NEW_ARRAY(m->arena, const tsl_expr *, b->ndim + 1);
  for (uint32_t d = 0; d < b->ndim; d++)
    shape[d] = tsl_mutate_expr(m, b->shape[d]);
  return tsl_buffer_new(m->arena, b->name, b->dtype, b->ndim, shape, b->strides,
                        b->elem_offset, b->scope, b->align, b->offset_factor);
}

static const tsl_stmt *fresh_stmt(tsl_mutator *m, const tsl_stmt *s) {
  fresh_rw *w = (fresh_rw *)m;
  if (s->kind == TSL_STMT_BLOCK_REALIZE) {
    const tsl_block *b = s->u.realize.block;
    for (uint32_t i = 0; i < b->n_alloc_buffers; i++)
      tsl_map_put(&w->bufs, b->alloc_buffers[i],
                  (void *)fresh_buffer(m, b->alloc_buffers[i]));
    for (uint32_t i = 0; i < b->n_match_buffers; i++)
      tsl_map_put(&w->bufs, b->match_buffers[i].buffer,
                  (void *)fresh_buffer(m, b->match_buffers[i].buffer));
  }
  return tsl_mutate_stmt_children(m, s);
}

const tsl_stmt *sch_stmt_copy_fresh(sch_call *c, const tsl_stmt *s,
                                    tsl_map *vars) {
  fresh_rw w;
  memset(&w, 0, sizeof w);
  w.m = tsl_mutator_make(c->arena);
  w.m.stmt = fresh_stmt;
  w.m.def = fresh_def;
  tsl_map own;
  if (!vars) {
    tsl_map_init(&own, c->arena);
    vars = &own;
  }
  w.m.vars = vars;
  tsl_map_init(&w.bufs, c->arena);
  w.m.buffers = &w.bufs;
  return tsl_mutate_stmt(&w.m, s);
}
