/*
 * prim_tensorize.c: tensorize(block_or_loop, tensor_intrin,
 * preserve_unit_iters).
 *
 * tensorize blockizes a loop first (blockize's rules), matches the block
 * against the intrinsic's description (tensorize_match.c) and replaces the
 * block's body with a fresh copy of the implementation's body, whose
 * buffers become match_buffers of the regions the block works on, as TVM
 * does. The registry: intrin_registry.c.
 */
#include "bz_internal.h"
#include "tz_internal.h"

#include "tessel/script.h"
#include "tessel/visit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- copying the implementation ---------------------------------------------
 * Each use gets fresh variables and buffers, so that two tensorized blocks
 * never share a definition; a bare variable in a buffer's strides or
 * offset is defined by that buffer. As TVM's IndexDataTypeNormalizer, the
 * copy indexes in the dtype of the block's regions: integer constants in
 * buffer fields, accesses, loop bounds and blocks take it, integer
 * variables are redefined in it, and the expressions using them are
 * legalized (`C.elem_offset // T.int64(256)`). */

typedef struct cp_ctx {
  tsl_mutator m; /* first: the hooks get the context */
  sch_call *c;
  tsl_map vars, bufs;
  tsl_dtype index;
  int in_index; /* the expression being copied is an index */
} cp_ctx;

static int index_like(tsl_dtype t) {
  return tsl_dtype_is_int(t) && t.bits >= 32 && t.lanes == 1;
}

static const tsl_var *cp_def(tsl_mutator *m, const tsl_var *v) {
  cp_ctx *k = (cp_ctx *)m;
  const tsl_expr *have = tsl_map_get(&k->vars, v);
  if (have)
    return have->u.var;
  const tsl_var *nv = sch_new_var(k->c, v->name, index_like(v->dtype) ? k->index : v->dtype);
  tsl_map_put(&k->vars, v, (void *)nv->ref);
  return nv;
}

static const tsl_expr *cp_expr(tsl_mutator *m, const tsl_expr *e) {
  cp_ctx *k = (cp_ctx *)m;
  if (e->kind == TSL_EXPR_INT_IMM)
    return k->in_index && index_like(e->dtype) && !tsl_dtype_eq(e->dtype, k->index)
               ? tsl_expr_int(m->arena, k->index, e->u.int_value)
               : e;
  int saved = k->in_index;
  if (e->kind == TSL_EXPR_LOAD)
    k->in_index = 1;
  const tsl_expr *r = tsl_mutate_expr_legalize(m, e);
  k->in_index = saved;
  return r;
}

static const tsl_expr *cp_field(cp_ctx *k, const tsl_expr *e) {
  if (e && e->kind == TSL_EXPR_VAR && !tsl_map_get(&k->vars, e->u.var))
    return cp_def(&k->m, e->u.var)->ref;
  return e ? tsl_mutate_expr(&k->m, e) : NULL;
}

static const tsl_buffer *cp_buffer(tsl_mutator *m, const tsl_buffer *b) {
  cp_ctx *k = (cp_ctx *)m;
  const tsl_buffer *nb = tsl_map_get(&k->bufs, b);
  if (nb)
    return nb;
  tsl_arena *a = m->arena;
  int saved = k->in_index;
  k->in_index = 1;
  const tsl_expr **shape = TSL_NEW_ARRAY(a, const tsl_expr *, b->ndim + 1);
  const tsl_expr **strides = b->strides ? TSL_NEW_ARRAY(a, const tsl_expr *, b->ndim + 1) : NULL;
  for (uint32_t d = 0; d < b->ndim; d++) {
    shape[d] = cp_field(k, b->shape[d]);
    if (strides)
      strides[d] = cp_field(k, b->strides[d]);
  }
  nb = tsl_buffer_new(a, b->name, b->dtype, b->ndim, shape, strides, cp_field(k, b->elem_offset),
                      b->scope, b->align, b->offset_factor);
  k->in_index = saved;
  if (b->n_axis_separators)
    nb = tsl_buffer_with_axis_separators(a, nb, b->n_axis_separators, b->axis_separators);
  tsl_map_put(&k->bufs, b, (void *)nb);
  return nb;
}

/* Indices are loop bounds, block parts and store indices (a store's value
 * is not, though the loads in it index). */
static const tsl_stmt *cp_stmt(tsl_mutator *m, const tsl_stmt *s) {
  cp_ctx *k = (cp_ctx *)m;
  int saved = k->in_index;
  const tsl_stmt *r;
  if (s->kind == TSL_STMT_STORE) {
    uint32_t n = s->u.store.n_indices;
    const tsl_expr **idx = TSL_NEW_ARRAY(m->arena, const tsl_expr *, n + 1);
    k->in_index = 1;
    for (uint32_t i = 0; i < n; i++)
      idx[i] = tsl_mutate_expr(m, s->u.store.indices[i]);
    k->in_index = 0;
    r = tsl_stmt_store(m->arena, tsl_mutate_buffer(m, s->u.store.buffer),
                       tsl_mutate_expr(m, s->u.store.value), n, idx);
  } else {
    k->in_index = s->kind == TSL_STMT_FOR || s->kind == TSL_STMT_BLOCK_REALIZE;
    r = tsl_mutate_stmt_children(m, s);
  }
  k->in_index = saved;
  return r;
}

/* The widest index dtype of the block's regions (TVM's choice of the index
 * dtype for the implementation). */
static tsl_dtype region_index_dtype(const tsl_block *b) {
  tsl_dtype t = TSL_INT32;
  for (int w = 0; w < 2; w++) {
    uint32_t n = w ? b->n_writes : b->n_reads;
    const tsl_buffer_region *rs = w ? b->writes : b->reads;
    for (uint32_t i = 0; i < n; i++)
      for (uint32_t d = 0; d < rs[i].ndim; d++)
        if (index_like(rs[i].ranges[d].min->dtype) && rs[i].ranges[d].min->dtype.bits > t.bits)
          t = rs[i].ranges[d].min->dtype;
  }
  return t;
}

/* ---- tensorize ---------------------------------------------------------------- */

const tsl_intrin_registry *tsl_schedule_intrins(tsl_schedule *sch) {
  if (sch->intrins)
    return sch->intrins;
  if (!sch->own_intrins) {
    tsl_diag d = {0};
    if (tsl_intrin_registry_new(sch->ctx, &sch->own_intrins, &d))
      return NULL;
  }
  return sch->own_intrins;
}

static const tsl_intrin_registry *registry(sch_call *c) { return tsl_schedule_intrins(c->sch); }

static int unknown_intrin(sch_call *c, const tsl_intrin_registry *reg,
                          const char *name) {
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  uint32_t n = tsl_intrin_registry_count(reg);
  for (uint32_t i = 0; i < n; i++)
    tsl_strbuf_printf(&sb, "%s%s", i ? ", " : "",
                      tsl_intrin_registry_name(reg, i));
  sch_fail(c, TSL_ENOTFOUND, "no tensor intrinsic named '%s'; registered: %s",
           name, n ? sb.data : "none");
  tsl_strbuf_free(&sb);
  return TSL_ENOTFOUND;
}

int sch_apply_tensorize(sch_call *c) {
  tsl_arena *a = c->arena;
  tsl_sch_rv rv = c->args[0].u.rv;
  const char *name = c->args[1].u.s;
  int preserve = (int)c->args[2].u.i;
  const tsl_intrin_registry *reg = registry(c);
  if (!reg)
    return sch_fail(c, TSL_EINVALID, "the built-in intrinsics failed to load");
  const tsl_func *desc, *impl;
  if (!tsl_intrin_registry_get(reg, name, &desc, &impl))
    return unknown_intrin(c, reg, name);

  sch_path p;
  const tsl_stmt *realize;
  int rc;
  if (tsl_schedule_rv_kind(c->sch, rv) == TSL_RV_LOOP) {
    if ((rc = sch_loop_path(c, rv, &p)) ||
        (rc = bz_blockize_loop(c, &p, preserve, &realize)))
      return rc;
  } else {
    if ((rc = sch_block_path(c, rv, &p)))
      return rc;
    realize = sch_path_target(&p);
  }
  const tsl_block *b = realize->u.realize.block;

  tz_binding *bind = TSL_NEW_ARRAY(a, tz_binding, desc->n_params + 1);
  char why[1024];
  if (tz_match(c->sch->ctx, a, realize, desc, bind, why, sizeof why))
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' does not match the description of intrinsic "
                    "'%s': %s",
                    b->name, name, why);

  /* the implementation's buffers view the regions the block works on */
  cp_ctx k = {.c = c, .index = region_index_dtype(b)};
  k.m = tsl_mutator_make(a);
  k.m.expr = cp_expr;
  k.m.stmt = cp_stmt;
  k.m.buffer = cp_buffer;
  k.m.def = cp_def;
  tsl_map_init(&k.vars, a);
  tsl_map_init(&k.bufs, a);
  k.m.vars = &k.vars;
  const tsl_block *iroot = impl->body->u.realize.block;
  uint32_t np = impl->n_params;
  tsl_match_buffer *mbs = TSL_NEW_ARRAY(a, tsl_match_buffer, np + 1);
  for (uint32_t i = 0; i < np; i++) {
    const tsl_buffer *ib = impl->params[i].buffer;
    const tz_binding *bd = &bind[i];
    if (!bd->buffer)
      return sch_fail(c, TSL_EINVALID,
                      "the description of intrinsic '%s' never accesses its "
                      "parameter '%s'",
                      name, desc->params[i].buffer->name);
    const tsl_buffer_region *old = tz_find_region(iroot, ib);
    if (bd->n_base < old->ndim)
      return sch_fail(c, TSL_EINVALID,
                      "buffer '%s' has fewer dimensions than parameter '%s' "
                      "of intrinsic '%s'",
                      bd->buffer->name, ib->name, name);
    uint32_t off = bd->n_base - old->ndim;
    tsl_range *rs = TSL_NEW_ARRAY(a, tsl_range, bd->n_base + 1);
    for (uint32_t d = 0; d < bd->n_base; d++) {
      const tsl_expr *mn = bd->base[d];
      rs[d].min = mn;
      if (d < off) {
        rs[d].extent = tsl_expr_int(a, mn->dtype, 1);
      } else {
        const tsl_expr *ext = old->ranges[d - off].extent;
        int64_t v;
        rs[d].extent = tsl_dtype_eq(ext->dtype, mn->dtype) ? ext
                       : tsl_expr_is_const_int(ext, &v) ? tsl_expr_int(a, mn->dtype, v)
                                                        : tsl_expr_cast(a, mn->dtype, ext);
      }
    }
    mbs[i].buffer = cp_buffer(&k.m, ib);
    mbs[i].source = (tsl_buffer_region){bd->buffer, bd->n_base, rs};
  }
  const tsl_stmt *body = tsl_mutate_stmt(&k.m, iroot->body);

  tsl_block *nb = tsl_block_clone(a, b);
  nb->body = body;
  nb->n_match_buffers = np;
  nb->match_buffers = mbs;
  if (iroot->n_alloc_buffers) {
    uint32_t na = b->n_alloc_buffers + iroot->n_alloc_buffers;
    const tsl_buffer **al = TSL_NEW_ARRAY(a, const tsl_buffer *, na);
    for (uint32_t i = 0; i < b->n_alloc_buffers; i++)
      al[i] = b->alloc_buffers[i];
    for (uint32_t i = 0; i < iroot->n_alloc_buffers; i++)
      al[b->n_alloc_buffers + i] = cp_buffer(&k.m, iroot->alloc_buffers[i]);
    nb->n_alloc_buffers = na;
    nb->alloc_buffers = al;
  }
  if (iroot->annotations.n) {
    uint32_t n = b->annotations.n;
    tsl_attr *items = TSL_NEW_ARRAY(a, tsl_attr, n + iroot->annotations.n);
    if (n)
      memcpy(items, b->annotations.items, sizeof *items * n);
    for (uint32_t i = 0; i < iroot->annotations.n; i++)
      if (!tsl_attrs_get(b->annotations, iroot->annotations.items[i].key))
        items[n++] = iroot->annotations.items[i];
    nb->annotations = tsl_attrs_make(a, n, items);
  }
  const tsl_stmt *out = sch_with_block(a, realize, nb);
  sch_commit(c, p.func, sch_path_rebuild(a, &p, p.depth - 1, out));
  return TSL_OK;
}
