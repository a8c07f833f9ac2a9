/*
 * transform_layout (TVM's layout_transformation.cc TransformLayout): a
 * buffer gets the shape an index map gives it, and every access to it in
 * the function is rewritten through the map (loads, stores, the regions of
 * the blocks that access it, its allocation or parameter). When the map
 * pads the buffer (its inverse covers indices no element reaches), the
 * padding needs a pad_value unless assume_injective_transform skips the
 * check; where the buffer is written, the padding plan (layout_pad.c)
 * writes the pad value into it.
 */
#include "layout_internal.h"

#include "tessel/script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tl_rw {
  tsl_mutator m; /* first member */
  sch_call *c;
  const tsl_buffer *old_buf, *new_buf;
  const lay_map *map;
  const lay_plan *plan;
} tl_rw;

/* Indices into the old buffer, mapped and simplified in the context of the
 * enclosing loops and iterators (bound in the schedule's analyzer). */
static const tsl_expr *const *map_indices(tl_rw *w, const tsl_expr *const *idx) {
  return lay_map_apply(w->c, w->map, idx);
}

static const tsl_expr *rw_expr(tsl_mutator *m, const tsl_expr *e) {
  tl_rw *w = (tl_rw *)m;
  const tsl_expr *r = tsl_mutate_expr_children(m, e);
  if (e->kind == TSL_EXPR_LOAD && e->u.buffer == w->old_buf)
    return tsl_expr_load(m->arena, w->new_buf, w->map->n_out, map_indices(w, r->args));
  return r;
}

/* The regions of `b` on the new buffer, re-inferred from its body as TVM's
 * GetBlockReadWriteRegion; NULL on failure (recorded in the mutator). */
static const tsl_block *with_regions(tl_rw *w, const tsl_block *b) {
  int any = 0;
  for (uint32_t i = 0; i < b->n_reads; i++)
    any |= b->reads[i].buffer == w->new_buf;
  for (uint32_t i = 0; i < b->n_writes; i++)
    any |= b->writes[i].buffer == w->new_buf;
  if (!any)
    return b;
  tsl_arena *a = w->m.arena;
  tsl_buffer_region *ir, *iw;
  uint32_t nir, niw;
  tsl_diag d = {0};
  if (tsl_block_infer_regions(a, b, &ir, &nir, &iw, &niw, &d)) {
    tsl_mutator_fail(&w->m, TSL_EUNSUPPORTED, "the regions of block '%s' cannot be "
                     "inferred: %s", b->name, d.text);
    return b;
  }
  tsl_block *nb = tsl_block_clone(a, b);
  for (int wr = 0; wr < 2; wr++) {
    uint32_t n = wr ? b->n_writes : b->n_reads;
    const tsl_buffer_region *old = wr ? b->writes : b->reads;
    if (!n)
      continue;
    tsl_buffer_region *rs = tsl_arena_dup(a, old, sizeof *rs * n);
    for (uint32_t i = 0; i < n; i++) {
      if (rs[i].buffer != w->new_buf)
        continue;
      const tsl_buffer_region *found = NULL;
      for (uint32_t pass = 0; pass < 2 && !found; pass++) {
        int in_writes = pass ? !wr : wr;
        uint32_t ni = in_writes ? niw : nir;
        const tsl_buffer_region *inf = in_writes ? iw : ir;
        for (uint32_t k = 0; k < ni && !found; k++)
          if (inf[k].buffer == w->new_buf)
            found = &inf[k];
      }
      if (!found) {
        tsl_mutator_fail(&w->m, TSL_EUNSUPPORTED, "block '%s' declares an access to "
                         "buffer '%s' that its body does not make", b->name,
                         w->old_buf->name);
        return b;
      }
      rs[i] = *found;
    }
    if (wr)
      nb->writes = rs;
    else
      nb->reads = rs;
  }
  return nb;
}

static void bind(tl_rw *w, const tsl_var *v, tsl_range r) {
  tsl_analyzer_bind_bounds(w->c->sch->an, v, r.min, r.extent);
}

static const tsl_stmt *rw_stmt(tsl_mutator *m, const tsl_stmt *s) {
  tl_rw *w = (tl_rw *)m;
  tsl_analyzer *an = w->c->sch->an;
  const tsl_stmt *out;
  const tsl_stmt *repl = w->plan->kind == LAY_PLAN_REPLACE
                             ? tsl_map_get(&w->plan->replace, s) : NULL;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    if (repl) {
      out = tsl_mutate_stmt(m, repl);
      break;
    }
    bind(w, s->u.loop.loop_var, (tsl_range){s->u.loop.min, s->u.loop.extent});
    out = tsl_mutate_stmt_children(m, s);
    tsl_analyzer_unbind(an, s->u.loop.loop_var);
    break;
  case TSL_STMT_BLOCK_REALIZE: {
    const tsl_block *b = s->u.realize.block;
    for (uint32_t i = 0; i < b->n_iter_vars; i++)
      bind(w, b->iter_vars[i].var, b->iter_vars[i].dom);
    out = tsl_mutate_stmt_children(m, s);
    for (uint32_t i = 0; i < b->n_iter_vars; i++)
      tsl_analyzer_unbind(an, b->iter_vars[i].var);
    if (out) {
      const tsl_block *nb = with_regions(w, out->u.realize.block);
      if (nb != out->u.realize.block)
        out = sch_with_block(m->arena, out, nb);
    }
    break;
  }
  case TSL_STMT_STORE:
    out = tsl_mutate_stmt_children(m, s);
    if (s->u.store.buffer == w->old_buf)
      out = tsl_stmt_store(m->arena, w->new_buf, out->u.store.value, w->map->n_out,
                           map_indices(w, out->u.store.indices));
    break;
  default:
    out = tsl_mutate_stmt_children(m, s);
    break;
  }
  if (w->plan->kind == LAY_PLAN_EPILOGUE && s == w->plan->after && out) {
    const tsl_stmt *two[2] = {out, w->plan->epilogue};
    out = tsl_stmt_seq(m->arena, 2, two);
  }
  return out;
}

/* The scope realize with the plan's prologue (if any) first in its body. */
static const tsl_stmt *with_prologue(tsl_arena *a, const tsl_stmt *realize,
                                     const lay_plan *plan) {
  if (plan->kind != LAY_PLAN_PROLOGUE)
    return realize;
  tsl_block *nb = tsl_block_clone(a, realize->u.realize.block);
  const tsl_stmt *two[2] = {plan->prologue, nb->body};
  nb->body = tsl_stmt_seq(a, 2, two);
  return sch_with_block(a, realize, nb);
}

/* The pad value as an index map over the new indices (TVM converts a
 * number to the buffer's dtype when the kinds agree, else to int32 /
 * float32). */
static int pad_value_map(sch_call *c, const tsl_buffer *buf, tsl_dtype idt,
                         uint32_t n_idx, lay_map *out) {
  const tsl_sch_value *v = &c->args[3];
  tsl_arena *a = c->arena;
  const tsl_expr *e = NULL;
  if (v->kind == TSL_SV_LAMBDA)
    return lay_map_from_lambda(c, 3, idt, n_idx,
                               "one per dimension of the transformed buffer", out);
  if (v->kind == TSL_SV_INT)
    e = tsl_expr_int(a, tsl_dtype_is_int(buf->dtype) ? buf->dtype : TSL_INT32, v->u.i);
  else if (v->kind == TSL_SV_FLOAT)
    e = tsl_expr_float(a, tsl_dtype_is_float(buf->dtype) ? buf->dtype : TSL_FLOAT32, v->u.f);
  else
    e = v->u.expr;
  out->n_in = n_idx;
  out->n_out = 1;
  out->in = TSL_NEW_ARRAY(a, const tsl_var *, n_idx + 1);
  for (uint32_t k = 0; k < n_idx; k++) {
    char name[16];
    snprintf(name, sizeof name, "i%u", k);
    out->in[k] = tsl_var_new(a, name, idt);
  }
  out->out = TSL_NEW_ARRAY(a, const tsl_expr *, 1);
  out->out[0] = e;
  return TSL_OK;
}

static char *shape_text(sch_call *c, uint32_t n, const tsl_expr *const *shape) {
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  tsl_strbuf_append(&sb, "(");
  for (uint32_t k = 0; k < n; k++) {
    char *t = tsl_print_expr(shape[k]);
    tsl_strbuf_printf(&sb, "%s%s", k ? ", " : "", t ? t : "?");
    free(t);
  }
  tsl_strbuf_append(&sb, n == 1 ? ",)" : ")");
  char *r = tsl_arena_strdup(c->arena, sb.data ? sb.data : "");
  tsl_strbuf_free(&sb);
  return r;
}

static int is_false(const tsl_expr *e) {
  return e->kind == TSL_EXPR_INT_IMM && e->u.int_value == 0;
}

int sch_apply_transform_layout(sch_call *c) {
  tsl_arena *a = c->arena;
  sch_path p;
  int rc = sch_block_path(c, c->args[0].u.rv, &p);
  if (rc)
    return rc;
  const tsl_block *blk = sch_path_block(&p);
  sch_buffer_ref ref;
  if ((rc = sch_buffer_arg(c, blk, 1, -1, &ref)))
    return rc;
  const tsl_buffer *old = ref.buffer;
  tsl_dtype idt = lay_block_default_dtype(blk);
  char what[300];
  snprintf(what, sizeof what, "one per dimension of buffer '%s'", old->name);
  lay_map map;
  if ((rc = lay_map_from_lambda(c, 2, idt, old->ndim, what, &map)))
    return rc;
  for (uint32_t k = 0; k < map.n_out; k++)
    if (!tsl_dtype_is_int(map.out[k]->dtype))
      return sch_fail(c, TSL_EINVALID, "index_map: index %u of %s is not an integer",
                      k, lay_map_text(c, &map));
  lay_map pad = {0};
  int has_pad = c->args[3].kind != TSL_SV_NONE;
  if (has_pad) {
    if ((rc = pad_value_map(c, old, idt, map.n_out, &pad)))
      return rc;
    if (pad.n_out != 1)
      return sch_fail(c, TSL_EINVALID, "pad_value: the lambda gives %u values; it must "
                      "give one (the value of an element of the padding)", pad.n_out);
    if (!tsl_dtype_eq(pad.out[0]->dtype, old->dtype)) {
      char x[32], y[32];
      return sch_fail(c, TSL_EINVALID, "pad_value: type mismatch: buffer '%s' holds %s "
                      "but the pad value is %s", old->name,
                      tsl_dtype_str(old->dtype, x),
                      tsl_dtype_str(pad.out[0]->dtype, y));
    }
  }
  for (uint32_t k = 1; k < old->ndim; k++)
    if (!tsl_dtype_eq(old->shape[k]->dtype, old->shape[0]->dtype))
      return sch_fail(c, TSL_EUNSUPPORTED, "buffer '%s' mixes index dtypes in its shape",
                      old->name);
  if (old->ndim)
    map = lay_map_retype(c, &map, old->shape[0]->dtype);
  int site;
  if ((rc = lay_buffer_site(c, &p, old, &site)))
    return rc;
  tsl_str view, vblock;
  if (lay_buffer_viewed(p.func, old, &view, &vblock))
    return sch_fail(c, TSL_EUNSUPPORTED, "buffer '%s' is viewed by T.match_buffer '%s' "
                    "of block '%s'; the view would keep the old layout", old->name, view,
                    vblock);
  if (old->strides || old->elem_offset)
    return sch_fail(c, TSL_EUNSUPPORTED, "buffer '%s' declares strides or an "
                    "elem_offset; only compact buffers can change layout", old->name);
  lay_map inv = {0};
  const tsl_expr *padding = tsl_expr_bool(a, 0);
  if (!c->args[4].u.i && (rc = lay_map_inverse(c, &map, old->shape, 0, &inv, &padding)))
    return rc;
  const tsl_expr **shape;
  if ((rc = lay_map_shape(c, &map, old->shape, "index_map", &shape)))
    return rc;
  int has_padding = !is_false(padding);
  if (has_padding && !has_pad) {
    char *pt = tsl_print_expr(padding);
    sch_fail(c, TSL_EINVALID, "the map %s pads buffer '%s' of shape %s to %s: the "
             "padding, where %s, needs a pad_value (or assume_injective_transform=True)",
             lay_map_text(c, &map), old->name, shape_text(c, old->ndim, old->shape),
             shape_text(c, map.n_out, shape), pt ? pt : "?");
    free(pt);
    return TSL_EINVALID;
  }
  for (uint32_t i = 0; i < old->n_axis_separators; i++)
    if (old->axis_separators[i] > (int32_t)map.n_out)
      return sch_fail(c, TSL_EINVALID, "buffer '%s' has an axis separator at %d, past the "
                      "%u dimensions of its new shape", old->name, old->axis_separators[i],
                      map.n_out);
  const tsl_buffer *nb = tsl_buffer_new(a, old->name, old->dtype, map.n_out, shape, NULL,
                                        NULL, old->scope, old->align, old->offset_factor);
  if (old->n_axis_separators)
    nb = tsl_buffer_with_axis_separators(a, nb, old->n_axis_separators, old->axis_separators);
  const tsl_stmt *scope = site >= 0 ? p.stmts[site] : p.func->body;
  lay_plan plan = {0};
  if (has_pad && has_padding) {
    lay_pad in = {p.func, old, nb, inv, padding, pad};
    const tsl_block *sb = scope->u.realize.block;
    if ((rc = lay_pad_plan(c, sb->init, sb->body, &in, &plan)))
      return rc;
  }
  tsl_map buffers;
  tsl_map_init(&buffers, a);
  tsl_map_put(&buffers, old, (void *)nb);
  tl_rw w;
  memset(&w, 0, sizeof w);
  w.m = tsl_mutator_make(a);
  w.m.stmt = rw_stmt;
  w.m.expr = rw_expr;
  w.m.buffers = &buffers;
  w.m.diag = c->diag;
  w.c = c;
  w.old_buf = old;
  w.new_buf = nb;
  w.map = &map;
  w.plan = &plan;
  if (site >= 0) {
    const tsl_stmt *ns = tsl_mutate_stmt(&w.m, scope);
    if (w.m.status)
      return w.m.status;
    sch_commit(c, p.func, sch_path_rebuild(a, &p, (uint32_t)site, with_prologue(a, ns, &plan)));
  } else {
    const tsl_func *nf = tsl_mutate_func(&w.m, p.func);
    if (w.m.status)
      return w.m.status;
    sch_commit(c, nf, with_prologue(a, nf->body, &plan));
    lay_record_param(c, p.func, old, nb, &map, has_pad ? &pad : NULL);
  }
  return TSL_OK;
}
