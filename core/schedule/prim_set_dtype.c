/*
 * unsafe_set_dtype: give a buffer allocated in a block another element
 * type (TVM's UnsafeSetDType). Every store into it (or into a match_buffer
 * viewing it) casts the stored value to the new type, every load casts
 * back to the old one; "unsafe" because values may lose precision.
 */
#include "storage_util.h"

#include <string.h>

typedef struct dt_rw {
  tsl_mutator m; /* first: hooks get the mutator */
  tsl_map bufs;  /* old buffer or view -> retyped one */
  tsl_dtype from, to;
} dt_rw;

static const tsl_buffer *retyped(tsl_arena *a, const tsl_buffer *b,
                                 tsl_dtype dt) {
  return tsl_buffer_new(a, b->name, dt, b->ndim, b->shape, b->strides,
                        b->elem_offset, b->scope, b->align, b->offset_factor);
}

static const tsl_expr *dt_expr(tsl_mutator *m, const tsl_expr *e) {
  dt_rw *w = (dt_rw *)m;
  const tsl_buffer *nb;
  if (e->kind != TSL_EXPR_LOAD || !(nb = tsl_map_get(&w->bufs, e->u.buffer)))
    return tsl_mutate_expr_children(m, e);
  const tsl_expr **idx = TSL_NEW_ARRAY(m->arena, const tsl_expr *, e->n_args + 1);
  for (uint32_t i = 0; i < e->n_args; i++)
    idx[i] = tsl_mutate_expr(m, e->args[i]);
  return tsl_expr_cast(m->arena, w->from, tsl_expr_load(m->arena, nb, e->n_args, idx));
}

static const tsl_stmt *dt_stmt(tsl_mutator *m, const tsl_stmt *s) {
  dt_rw *w = (dt_rw *)m;
  if (s->kind == TSL_STMT_BLOCK_REALIZE) {
    /* views of the buffer take the new type too */
    const tsl_block *b = s->u.realize.block;
    for (uint32_t i = 0; i < b->n_match_buffers; i++) {
      const tsl_match_buffer *mb = &b->match_buffers[i];
      if (tsl_map_get(&w->bufs, mb->source.buffer))
        tsl_map_put(&w->bufs, mb->buffer, (void *)retyped(m->arena, mb->buffer, w->to));
    }
  }
  const tsl_stmt *r = tsl_mutate_stmt_children(m, s);
  if (s->kind == TSL_STMT_STORE && tsl_map_get(&w->bufs, s->u.store.buffer))
    r = tsl_stmt_store(m->arena, r->u.store.buffer,
                       tsl_expr_cast(m->arena, w->to, r->u.store.value),
                       r->u.store.n_indices, r->u.store.indices);
  return r;
}

int sch_apply_unsafe_set_dtype(sch_call *c) {
  sch_path p;
  int rc = sch_block_path(c, c->args[0].u.rv, &p);
  if (rc)
    return rc;
  const tsl_block *b = sch_path_block(&p);
  if ((rc = sto_check_index(c, b, c->args[1].u.i, 1, "buffer_index")))
    return rc;
  const tsl_buffer *buf = b->writes[c->args[1].u.i].buffer;
  const char *name = c->args[2].u.s;
  tsl_dtype dt;
  if (!tsl_dtype_parse(name, strlen(name), &dt) || tsl_dtype_is_void(dt))
    return sch_fail(c, TSL_EINVALID, "dtype \"%s\" is invalid; valid: %s", name,
                    tsl_dtype_valid_names());
  if (tsl_dtype_eq(dt, buf->dtype))
    return TSL_OK; /* nothing to change, as in TVM */
  int site = sto_alloc_site(&p, buf);
  if (site < 0)
    return sch_fail(c, TSL_EINVALID,
                    "buffer '%s' written by block '%s' is %s; only buffers "
                    "allocated in a block (T.alloc_buffer) can change dtype",
                    buf->name, b->name,
                    sto_is_param(p.func, buf) ? "a parameter of the function"
                                              : "a match_buffer view");
  dt_rw w;
  memset(&w, 0, sizeof w);
  w.m = tsl_mutator_make(c->arena);
  w.m.stmt = dt_stmt;
  w.m.expr = dt_expr;
  tsl_map_init(&w.bufs, c->arena);
  w.m.buffers = &w.bufs;
  w.from = buf->dtype;
  w.to = dt;
  tsl_map_put(&w.bufs, buf, (void *)retyped(c->arena, buf, dt));
  const tsl_stmt *ns = tsl_mutate_stmt(&w.m, p.stmts[site]);
  sch_commit(c, p.func, sch_path_rebuild(c->arena, &p, (uint32_t)site, ns));
  return TSL_OK;
}
