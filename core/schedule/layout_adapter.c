/*
 * Scheduled functions called with the original's arguments after
 * transform_layout changed the layout of parameters: a wrapper whose
 * parameters are the original buffers and which allocates the new ones,
 * copies each parameter through its index maps into its new layout (after
 * filling the padding with the pad value when one was given), runs the
 * scheduled body and copies every parameter back. The interpreter checks
 * compare it with the original function.
 */
#include "layout_internal.h"

#include <stdio.h>
#include <string.h>

void lay_record_param(sch_call *c, const tsl_func *f, const tsl_buffer *before,
                      const tsl_buffer *after, const lay_map *map, const lay_map *pad) {
  tsl_vec *v = &c->sch->param_layouts;
  if (!v->elem_size)
    tsl_vec_init(v, sizeof(sch_param_layout), c->sch->arena);
  for (uint32_t i = 0; i < f->n_params; i++)
    if (f->params[i].buffer == before) {
      sch_param_layout *r = tsl_vec_push(v);
      r->func = f->name;
      r->param = i;
      r->before = before;
      r->after = after;
      r->map = *map;
      if (pad)
        r->pad = *pad;
      return;
    }
}

typedef struct copy_job {
  tsl_analyzer *an;
  const tsl_buffer *x, *y;
  const lay_map *map; /* copies: X's indices -> Y's; fills: the pad value */
  int kind;           /* 0 copy in, 1 copy out, 2 fill */
} copy_job;

static const tsl_expr *lookup(const tsl_var *v, void *ud) {
  return tsl_map_get(ud, v);
}

/* `e` over the map's parameters with the iterators `v` substituted. */
static const tsl_expr *at(tsl_arena *a, const copy_job *j, const tsl_expr *e,
                          const tsl_expr *const *v) {
  tsl_map sub;
  tsl_map_init(&sub, a);
  for (uint32_t k = 0; k < j->map->n_in; k++)
    tsl_map_put(&sub, j->map->in[k], (void *)v[k]);
  return tsl_simplify(j->an, a, tsl_expr_substitute(a, e, lookup, &sub));
}

static const tsl_stmt *job_store(tsl_arena *a, const copy_job *j, const tsl_expr *const *v) {
  if (j->kind == 2)
    return tsl_stmt_store(a, j->y, at(a, j, j->map->out[0], v), j->y->ndim, v);
  const tsl_expr **yi = TSL_NEW_ARRAY(a, const tsl_expr *, j->map->n_out + 1);
  for (uint32_t k = 0; k < j->map->n_out; k++)
    yi[k] = at(a, j, j->map->out[k], v);
  if (j->kind == 1)
    return tsl_stmt_store(a, j->x, tsl_expr_load(a, j->y, j->map->n_out, yi), j->x->ndim, v);
  return tsl_stmt_store(a, j->y, tsl_expr_load(a, j->x, j->x->ndim, v), j->map->n_out, yi);
}

/* for (u in the shape of X, or of Y for a fill): block `name`: the store. */
static const tsl_stmt *copy_nest(tsl_arena *a, const char *name, const copy_job *j) {
  const tsl_buffer *dom = j->kind == 2 ? j->y : j->x;
  uint32_t n = dom->ndim;
  const tsl_var **lv = TSL_NEW_ARRAY(a, const tsl_var *, n + 1);
  const tsl_expr **lrefs = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  const tsl_expr **vrefs = TSL_NEW_ARRAY(a, const tsl_expr *, n + 1);
  tsl_iter_var *ivs = TSL_NEW_ARRAY(a, tsl_iter_var, n + 1);
  for (uint32_t k = 0; k < n; k++) {
    tsl_dtype t = dom->shape[k]->dtype;
    lv[k] = tsl_var_new(a, "u", t);
    lrefs[k] = lv[k]->ref;
    const tsl_var *v = tsl_var_new(a, "vu", t);
    vrefs[k] = v->ref;
    ivs[k] = (tsl_iter_var){v, {tsl_expr_int(a, t, 0), dom->shape[k]}, TSL_ITER_SPATIAL};
  }
  tsl_block *b = TSL_NEW(a, tsl_block);
  b->name = tsl_intern(tsl_arena_ctx(a), name);
  b->n_iter_vars = n;
  b->iter_vars = ivs;
  b->body = job_store(a, j, vrefs);
  tsl_buffer_region *r, *w;
  uint32_t nr, nw;
  if (!tsl_block_infer_regions(a, b, &r, &nr, &w, &nw, NULL)) {
    b->n_reads = nr;
    b->reads = r;
    b->n_writes = nw;
    b->writes = w;
  }
  const tsl_stmt *s = tsl_stmt_block_realize(a, n, lrefs, tsl_expr_bool(a, 1), b);
  for (uint32_t k = n; k-- > 0;)
    s = tsl_stmt_for(a, lv[k], tsl_expr_int(a, dom->shape[k]->dtype, 0), dom->shape[k],
                     TSL_FOR_SERIAL, NULL, (tsl_attrs){0, NULL}, s);
  return s;
}

const tsl_func *tsl_schedule_func_in_original_layout(tsl_schedule *sch,
                                                     const char *name) {
  tsl_str fname = name ? tsl_intern(sch->ctx, name) : sch->func_name;
  const tsl_func *f = sch_func(sch, fname);
  const tsl_func *of = tsl_module_find(sch->orig, fname);
  const sch_param_layout *ls = TSL_VEC_DATA(&sch->param_layouts, sch_param_layout);
  uint32_t n = sch->param_layouts.len, mine = 0;
  for (uint32_t i = 0; i < n; i++)
    mine += ls[i].func == fname;
  if (!f || !of || !mine || of->n_params != f->n_params)
    return f;
  tsl_arena *a = sch->arena;
  tsl_vec allocs, pre, post;
  tsl_vec_init(&allocs, sizeof(const tsl_buffer *), a);
  tsl_vec_init(&pre, sizeof(const tsl_stmt *), a);
  tsl_vec_init(&post, sizeof(const tsl_stmt *), a);
  const tsl_buffer **cur = TSL_NEW_ARRAY(a, const tsl_buffer *, f->n_params + 1);
  tsl_param *params = tsl_arena_dup(a, f->params, sizeof *params * (f->n_params + 1));
  for (uint32_t p = 0; p < f->n_params; p++)
    cur[p] = of->params[p].buffer;
  for (uint32_t i = 0; i < n; i++) {
    const sch_param_layout *l = &ls[i];
    if (l->func != fname)
      continue;
    int last = 1;
    for (uint32_t j = i + 1; j < n; j++)
      last &= !(ls[j].func == fname && ls[j].param == l->param);
    const tsl_buffer *x = cur[l->param];
    const tsl_buffer *y = last ? f->params[l->param].buffer : l->after;
    TSL_VEC_PUSH(&allocs, const tsl_buffer *, y);
    char nm[300];
    copy_job j = {sch->an, x, y, &l->pad, 2};
    snprintf(nm, sizeof nm, "layout_pad_%s", x->name);
    if (l->pad.n_out)
      TSL_VEC_PUSH(&pre, const tsl_stmt *, copy_nest(a, nm, &j));
    j.map = &l->map;
    j.kind = 0;
    snprintf(nm, sizeof nm, "layout_in_%s", x->name);
    TSL_VEC_PUSH(&pre, const tsl_stmt *, copy_nest(a, nm, &j));
    j.kind = 1;
    snprintf(nm, sizeof nm, "layout_out_%s", x->name);
    TSL_VEC_PUSH(&post, const tsl_stmt *, copy_nest(a, nm, &j));
    cur[l->param] = y;
    params[l->param].buffer = of->params[l->param].buffer;
  }
  const tsl_stmt *root = f->body;
  const tsl_block *rb = root->u.realize.block;
  const tsl_stmt **seq = TSL_NEW_ARRAY(a, const tsl_stmt *, pre.len + post.len + 2);
  uint32_t k = 0;
  for (uint32_t i = 0; i < pre.len; i++)
    seq[k++] = TSL_VEC_AT(&pre, const tsl_stmt *, i);
  seq[k++] = rb->body;
  for (uint32_t i = post.len; i-- > 0;)
    seq[k++] = TSL_VEC_AT(&post, const tsl_stmt *, i);
  tsl_block *nb = tsl_block_clone(a, rb);
  nb->body = tsl_stmt_seq(a, k, seq);
  nb->n_alloc_buffers = rb->n_alloc_buffers + allocs.len;
  const tsl_buffer **ab = TSL_NEW_ARRAY(a, const tsl_buffer *, nb->n_alloc_buffers + 1);
  memcpy(ab, allocs.data, sizeof *ab * allocs.len);
  if (rb->n_alloc_buffers)
    memcpy(ab + allocs.len, rb->alloc_buffers, sizeof *ab * rb->n_alloc_buffers);
  nb->alloc_buffers = ab;
  tsl_func *nf = tsl_arena_dup(a, f, sizeof *f);
  nf->params = params;
  nf->body = sch_with_block(a, root, nb);
  return nf;
}
