/*
 * Index maps for the layout primitives, as TVM's IndexMap: built from a
 * script lambda with the block's index dtype, applied with dtype
 * legalization, mapped over a shape (MapShape) and inverted over a domain
 * (Inverse / NonSurjectiveInverse) through the iterator maps of
 * tessel/analysis.h. Also where a buffer is defined.
 */
#include "layout_internal.h"

#include "tessel/script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tsl_dtype lay_block_default_dtype(const tsl_block *b) {
  if (b->n_iter_vars)
    return b->iter_vars[0].var->dtype;
  for (uint32_t i = 0; i < b->n_reads + b->n_writes; i++) {
    const tsl_buffer_region *r = i < b->n_reads ? &b->reads[i] : &b->writes[i - b->n_reads];
    if (r->ndim)
      return r->ranges[0].min->dtype;
  }
  return TSL_INT64;
}

static const tsl_expr *map_var(const tsl_var *v, void *ud) {
  return tsl_map_get(ud, v);
}

/* The final index `e` with the parameters of `from` replaced by `to`
 * (expressions), dtype-legalized; a constant takes dtype `dt` as TVM's
 * LegalizeIndexMapDType makes it. */
static const tsl_expr *subst_params(sch_call *c, const tsl_expr *e, uint32_t n,
                                    const tsl_var *const *from,
                                    const tsl_expr *const *to) {
  tsl_map vars;
  tsl_map_init(&vars, c->arena);
  for (uint32_t i = 0; i < n; i++)
    tsl_map_put(&vars, from[i], (void *)to[i]);
  return tsl_expr_substitute_legalize(c->arena, e, map_var, &vars);
}

static lay_map map_with_params(sch_call *c, const lay_map *m,
                               const tsl_var *const *params, tsl_dtype dt) {
  lay_map r = *m;
  r.in = TSL_NEW_ARRAY(c->arena, const tsl_var *, m->n_in + 1);
  r.out = TSL_NEW_ARRAY(c->arena, const tsl_expr *, m->n_out + 1);
  const tsl_expr **refs = TSL_NEW_ARRAY(c->arena, const tsl_expr *, m->n_in + 1);
  for (uint32_t i = 0; i < m->n_in; i++) {
    r.in[i] = params ? params[i] : tsl_var_new(c->arena, m->in[i]->name, dt);
    refs[i] = r.in[i]->ref;
  }
  for (uint32_t k = 0; k < m->n_out; k++) {
    const tsl_expr *e = m->out[k];
    if (e->kind == TSL_EXPR_INT_IMM && tsl_dtype_is_int(e->dtype) &&
        tsl_dtype_is_int(dt))
      r.out[k] = tsl_expr_int(c->arena, dt, e->u.int_value);
    else
      r.out[k] = subst_params(c, e, m->n_in, m->in, refs);
  }
  return r;
}

lay_map lay_map_retype(sch_call *c, const lay_map *m, tsl_dtype dt) {
  int same = 1;
  for (uint32_t i = 0; i < m->n_in; i++)
    same &= tsl_dtype_eq(m->in[i]->dtype, dt);
  return same ? *m : map_with_params(c, m, NULL, dt);
}

int lay_map_from_lambda(sch_call *c, uint32_t arg, tsl_dtype dt, uint32_t n_in,
                        const char *what, lay_map *out) {
  const tsl_sch_lambda *l = c->args[arg].u.lambda;
  const char *pname = c->kind->params[arg].name;
  if (n_in != LAY_ANY_ARITY && l->n_params != n_in)
    return sch_fail(c, TSL_EINVALID, "%s: the lambda takes %u parameter%s but must take %u "
                    "(%s)", pname, l->n_params, l->n_params == 1 ? "" : "s", n_in, what);
  const tsl_sch_value *body = &l->body;
  uint32_t n = body->kind == TSL_SV_EXPR ? 1 : body->n;
  const tsl_sch_value *items = body->kind == TSL_SV_EXPR ? body : body->u.items;
  lay_map m = {l->n_params, n, (const tsl_var **)l->params,
               TSL_NEW_ARRAY(c->arena, const tsl_expr *, n + 1)};
  for (uint32_t k = 0; k < n; k++) {
    if (items[k].kind != TSL_SV_EXPR)
      return sch_fail(c, TSL_EINVALID, "%s: item %u of the lambda's result is a nested %s; "
                      "the result must be one expression or a tuple of expressions",
                      pname, k, items[k].kind == TSL_SV_TUPLE ? "tuple" : "list");
    m.out[k] = items[k].u.expr;
  }
  *out = map_with_params(c, &m, NULL, dt);
  return TSL_OK;
}

const tsl_expr **lay_map_apply(sch_call *c, const lay_map *m,
                               const tsl_expr *const *idx) {
  const tsl_expr **r = TSL_NEW_ARRAY(c->arena, const tsl_expr *, m->n_out + 1);
  for (uint32_t k = 0; k < m->n_out; k++)
    r[k] = sch_simplify(c, subst_params(c, m->out[k], m->n_in, m->in, idx));
  return r;
}

const char *lay_map_text(sch_call *c, const lay_map *m) {
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  tsl_strbuf_append(&sb, "lambda");
  for (uint32_t i = 0; i < m->n_in; i++)
    tsl_strbuf_printf(&sb, "%s%s", i ? ", " : " ", m->in[i]->name);
  tsl_strbuf_append(&sb, ": (");
  for (uint32_t k = 0; k < m->n_out; k++) {
    char *t = tsl_print_expr(m->out[k]);
    tsl_strbuf_printf(&sb, "%s%s", k ? ", " : "", t ? t : "?");
    free(t);
  }
  tsl_strbuf_append(&sb, m->n_out == 1 ? ",)" : ")");
  const char *r = tsl_arena_strdup(c->arena, sb.data ? sb.data : "");
  tsl_strbuf_free(&sb);
  return r;
}

/* ---- where a buffer is defined ---- */

int lay_buffer_site(sch_call *c, const sch_path *p, const tsl_buffer *b,
                    int *level) {
  for (uint32_t k = p->depth; k-- > 0;) {
    const tsl_stmt *s = p->stmts[k];
    if (s->kind != TSL_STMT_BLOCK_REALIZE)
      continue;
    const tsl_block *blk = s->u.realize.block;
    for (uint32_t i = 0; i < blk->n_alloc_buffers; i++)
      if (blk->alloc_buffers[i] == b) {
        *level = (int)k;
        return TSL_OK;
      }
    for (uint32_t i = 0; i < blk->n_match_buffers; i++)
      if (blk->match_buffers[i].buffer == b)
        return sch_fail(c, TSL_EINVALID,
                        "buffer '%s' is defined by a T.match_buffer of block '%s'; it "
                        "must be a parameter of the function or allocated by a block",
                        b->name, blk->name);
  }
  for (uint32_t i = 0; i < p->func->n_params; i++)
    if (p->func->params[i].buffer == b) {
      *level = -1;
      return TSL_OK;
    }
  return sch_fail(c, TSL_EINVALID, "buffer '%s' is neither a parameter of '%s' nor "
                  "allocated by a block around the block", b->name, p->func->name);
}

typedef struct viewed {
  const tsl_buffer *b;
  tsl_str view, block;
} viewed;

static int viewed_block(const tsl_block *blk, const tsl_stmt *r, void *ud) {
  (void)r;
  viewed *w = ud;
  for (uint32_t i = 0; i < blk->n_match_buffers; i++)
    if (blk->match_buffers[i].source.buffer == w->b) {
      w->view = blk->match_buffers[i].buffer->name;
      w->block = blk->name;
      return 1;
    }
  return 0;
}

int lay_buffer_viewed(const tsl_func *f, const tsl_buffer *b, tsl_str *view,
                      tsl_str *block) {
  viewed w = {b, NULL, NULL};
  tsl_stmt_visitor v = {0};
  v.block = viewed_block;
  v.user_data = &w;
  if (!tsl_stmt_visit(f->body, &v))
    return 0;
  *view = w.view;
  *block = w.block;
  return 1;
}

/* ---- shapes and inverses ---- */

static tsl_range *zero_doms(sch_call *c, uint32_t n, const tsl_expr *const *extents) {
  tsl_range *d = TSL_NEW_ARRAY(c->arena, tsl_range, n + 1);
  for (uint32_t k = 0; k < n; k++)
    d[k] = (tsl_range){tsl_expr_int(c->arena, extents[k]->dtype, 0), extents[k]};
  return d;
}

static const tsl_expr *cast_to(sch_call *c, tsl_dtype t, const tsl_expr *e) {
  if (tsl_dtype_eq(e->dtype, t))
    return e;
  return e->kind == TSL_EXPR_INT_IMM ? tsl_expr_int(c->arena, t, e->u.int_value)
                                     : tsl_expr_cast(c->arena, t, e);
}

int lay_map_shape(sch_call *c, const lay_map *m, const tsl_expr *const *extents,
                  const char *what, const tsl_expr ***out) {
  tsl_arena *a = c->arena;
  tsl_range *doms = zero_doms(c, m->n_in, extents);
  tsl_range *rs = TSL_NEW_ARRAY(a, tsl_range, m->n_out + 1);
  tsl_iter_map im;
  if (tsl_iter_map_detect(c->sch->an, a, m->n_out, m->out, m->n_in, m->in, doms, NULL,
                          TSL_ITER_MAP_NO_CHECK, 0, &im, NULL) == TSL_OK) {
    /* the terms are orthogonal: an index spans its widest term */
    for (uint32_t k = 0; k < m->n_out; k++) {
      const tsl_iter_sum *sum = im.indices[k];
      const tsl_expr *ext = NULL;
      for (uint32_t t = 0; t < sum->n; t++) {
        const tsl_expr *te = tsl_expr_binary(a, TSL_EXPR_MUL, sum->args[t]->extent,
                                             sum->args[t]->scale);
        ext = ext ? tsl_expr_binary(a, TSL_EXPR_MAX, ext, te) : te;
      }
      rs[k].min = sum->base;
      rs[k].extent = sch_simplify(c, ext ? ext : tsl_expr_int(a, sum->base->dtype, 1));
    }
  } else {
    for (uint32_t k = 0; k < m->n_out; k++)
      if (tsl_analyzer_relax(c->sch->an, a, m->out[k], m->n_in, m->in, doms, &rs[k]))
        return sch_fail(c, TSL_EUNSUPPORTED, "%s: the range of index %u (%s) of the map "
                        "cannot be bounded", what, k, lay_map_text(c, m));
  }
  tsl_dtype t = TSL_INT32;
  for (uint32_t k = 0; k < m->n_in; k++)
    if (extents[k]->dtype.bits > t.bits)
      t = TSL_DTYPE(TSL_DT_INT, extents[k]->dtype.bits, 1);
  const tsl_expr **shape = TSL_NEW_ARRAY(a, const tsl_expr *, m->n_out + 1);
  for (uint32_t k = 0; k < m->n_out; k++) {
    int64_t v;
    if (!tsl_expr_is_const_int(sch_simplify(c, rs[k].min), &v) || v != 0)
      return sch_fail(c, TSL_EINVALID, "%s: index %u of %s starts at %s, not 0, over the "
                      "domain; the map must send the origin to index 0", what, k,
                      lay_map_text(c, m), tsl_expr_is_const_int(rs[k].min, &v) ?
                      "a constant other than 0" : "a symbolic value");
    shape[k] = cast_to(c, t, rs[k].extent);
  }
  *out = shape;
  return TSL_OK;
}

static const tsl_expr *subst_map_fn(const tsl_var *v, void *ud) {
  return tsl_map_get(ud, v);
}

int lay_map_inverse(sch_call *c, const lay_map *m, const tsl_expr *const *extents,
                    int bijective, lay_map *inv, const tsl_expr **padding) {
  tsl_arena *a = c->arena;
  tsl_range *doms = zero_doms(c, m->n_in, extents);
  tsl_iter_map im;
  tsl_diag d = {0};
  if (tsl_iter_map_detect(c->sch->an, a, m->n_out, m->out, m->n_in, m->in, doms, NULL,
                          bijective ? TSL_ITER_MAP_BIJECTIVE : TSL_ITER_MAP_NO_CHECK, 0,
                          &im, &d))
    return sch_fail(c, TSL_EINVALID, "the index map %s is not %s over the domain: %s",
                    lay_map_text(c, m),
                    bijective ? "a bijective affine map" : "a sum of iterator splits",
                    d.text);
  lay_map r = {m->n_out, m->n_in, TSL_NEW_ARRAY(a, const tsl_var *, m->n_out + 1),
               TSL_NEW_ARRAY(a, const tsl_expr *, m->n_in + 1)};
  const tsl_expr **outs = TSL_NEW_ARRAY(a, const tsl_expr *, m->n_out + 1);
  for (uint32_t k = 0; k < m->n_out; k++) {
    char name[32];
    snprintf(name, sizeof name, "axis%u", k);
    r.in[k] = tsl_var_new(a, name, m->out[k]->dtype);
    outs[k] = r.in[k]->ref;
  }
  uint32_t nv = 0;
  const tsl_var **vars = NULL;
  const tsl_expr **vals = NULL;
  if (tsl_iter_map_inverse(a, im.n, im.indices, outs, &nv, &vars, &vals, &d))
    return sch_fail(c, TSL_EINVALID, "the index map %s has no inverse: %s",
                    lay_map_text(c, m), d.text);
  tsl_map inv_of;
  tsl_map_init(&inv_of, a);
  for (uint32_t k = 0; k < nv; k++)
    tsl_map_put(&inv_of, vars[k], (void *)vals[k]);
  for (uint32_t k = 0; k < m->n_in; k++) {
    const tsl_expr *e = tsl_map_get(&inv_of, m->in[k]);
    int64_t one;
    if (!e && tsl_expr_is_const_int(extents[k], &one) && one == 1)
      e = doms[k].min;
    if (!e)
      return sch_fail(c, TSL_EINVALID, "the index map %s does not use parameter '%s'; "
                      "it has no inverse", lay_map_text(c, m), m->in[k]->name);
    r.out[k] = sch_simplify(c, e);
  }
  if (padding) {
    const tsl_expr *pred =
        tsl_expr_substitute(a, im.padding_predicate, subst_map_fn, &inv_of);
    const tsl_expr **shape;
    int rc = lay_map_shape(c, m, extents, "the index map", &shape);
    if (rc)
      return rc;
    for (uint32_t k = 0; k < r.n_in; k++)
      tsl_analyzer_bind_bounds(c->sch->an, r.in[k], tsl_expr_int(a, shape[k]->dtype, 0), shape[k]);
    pred = tsl_simplify_predicate(c->sch->an, a, pred);
    for (uint32_t k = 0; k < r.n_in; k++)
      tsl_analyzer_unbind(c->sch->an, r.in[k]);
    *padding = pred;
  }
  *inv = r;
  return TSL_OK;
}
