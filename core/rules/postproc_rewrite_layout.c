/*
 * RewriteLayout, as TVM's postprocessor: every layout-free buffer of a
 * function (the parameters its attribute "layout_free_buffers" lists, a
 * weight known ahead of the calls) is repacked into the layout its anchor
 * read walks (tsl_suggest_index_map): a cache_read block annotated
 * meta_schedule.layout_rewrite_preproc copies it into a new buffer, and
 * transform_layout gives that buffer the suggested layout. When the weight
 * already goes through a chain of cache-read blocks, the last buffer of the
 * chain gets the layout, the chain's blocks are transformed alike and the
 * packing block goes in front of the first. A buffer without a suggestion
 * is left alone; one read outside any block that declares the read is an
 * error (the candidate is rejected). Measurement and export run the
 * packing blocks ahead of the calls (tsl_func_split_prepack, lower.h).
 */
#include "rules_internal.h"

#include <stdlib.h>
#include <string.h>

#define PREPROC_KEY TSL_LAYOUT_REWRITE_PREPROC

typedef struct tsl_postproc {
  int32_t unused;
} rl_pp;

static int rl_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                     tsl_postproc **out, tsl_diag *diag) {
  (void)ud;
  (void)t;
  return rule_create_plain("RewriteLayout", n, opts, sizeof **out, (void **)out, diag);
}

static void rl_destroy(tsl_postproc *p) { free(p); }

/* ---- where the buffer is read (TVM's BufferReadPosCollector) ---------------- */

typedef struct read_pos {
  tsl_stmt_visitor v;
  const tsl_buffer *buf;
  tsl_vec loops;    /* const tsl_stmt *: the loops in scope */
  tsl_vec realizes; /* const tsl_stmt *: the block realizes in scope */
  /* the last read found: */
  const tsl_expr *load;
  const tsl_stmt *realize;
  tsl_vec at_loops; /* the loops around it */
} read_pos;

static int rp_pre(const tsl_stmt *s, void *ud) {
  read_pos *r = ud;
  if (s->kind == TSL_STMT_FOR)
    TSL_VEC_PUSH(&r->loops, const tsl_stmt *, s);
  else if (s->kind == TSL_STMT_BLOCK_REALIZE)
    TSL_VEC_PUSH(&r->realizes, const tsl_stmt *, s);
  return 0;
}

static int rp_post(const tsl_stmt *s, void *ud) {
  read_pos *r = ud;
  if (s->kind == TSL_STMT_FOR)
    r->loops.len--;
  else if (s->kind == TSL_STMT_BLOCK_REALIZE)
    r->realizes.len--;
  return 0;
}

static int rp_load(const tsl_expr *e, void *ud) {
  read_pos *r = ud;
  if (e->kind != TSL_EXPR_LOAD || e->u.buffer != r->buf)
    return 0;
  r->load = e;
  r->realize = r->realizes.len ? TSL_VEC_AT(&r->realizes, const tsl_stmt *, r->realizes.len - 1)
                               : NULL;
  r->at_loops.len = 0;
  tsl_vec_append(&r->at_loops, TSL_VEC_DATA(&r->loops, const tsl_stmt *), r->loops.len);
  return 0;
}

static int rp_expr(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  (void)owner;
  return tsl_expr_visit(e, rp_load, ud);
}

typedef struct iter_subst {
  const tsl_stmt *realize;
} iter_subst;

static const tsl_expr *subst_iter(const tsl_var *v, void *ud) {
  const tsl_stmt *r = ((iter_subst *)ud)->realize;
  const tsl_block *b = r->u.realize.block;
  for (uint32_t i = 0; i < b->n_iter_vars; i++)
    if (b->iter_vars[i].var == v)
      return r->u.realize.iter_values[i];
  return NULL;
}

/* The anchor read of `buf` in `f`: the block's name and read index and the
 * suggested map as a lambda (in `a`). 1 found, 0 no suggestion, -1 error. */
static int suggest(tsl_schedule *sch, tsl_arena *a, const tsl_func *f, const tsl_buffer *buf,
                   tsl_str *block, int64_t *read_index, tsl_sch_lambda *map, tsl_diag *diag) {
  read_pos r = {.v = {.stmt = rp_pre, .stmt_post = rp_post, .expr = rp_expr}, .buf = buf};
  r.v.user_data = &r;
  tsl_vec_init(&r.loops, sizeof(const tsl_stmt *), NULL);
  tsl_vec_init(&r.realizes, sizeof(const tsl_stmt *), NULL);
  tsl_vec_init(&r.at_loops, sizeof(const tsl_stmt *), a);
  tsl_stmt_visit(f->body, &r.v);
  tsl_vec_free(&r.loops);
  tsl_vec_free(&r.realizes);
  if (!r.load)
    return 0;
  const tsl_block *b = r.realize ? r.realize->u.realize.block : NULL;
  *read_index = -1;
  for (uint32_t i = 0; b && i < b->n_reads; i++)
    if (b->reads[i].buffer == buf) {
      *read_index = i;
      break;
    }
  if (*read_index < 0)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "'%s' is read outside a block that declares the read "
                        "(in '%s')",
                        buf->name, b ? b->name : f->name),
           -1;
  iter_subst is = {r.realize};
  const tsl_expr **idx = tsl_arena_alloc(a, sizeof *idx * (r.load->n_args + 1));
  for (uint32_t k = 0; k < r.load->n_args; k++)
    idx[k] = tsl_expr_substitute(a, r.load->args[k], subst_iter, &is);
  tsl_analyzer *an = tsl_analyzer_new(tsl_schedule_ctx(sch));
  tsl_suggested_map m;
  tsl_diag why = {0};
  int rc = tsl_suggest_index_map(an, a, buf, idx, r.at_loops.len,
                                 TSL_VEC_DATA(&r.at_loops, const tsl_stmt *),
                                 r.realize->u.realize.predicate, &m, &why);
  tsl_analyzer_free(an);
  if (rc)
    return 0;
  tsl_sch_value *items = tsl_arena_alloc(a, sizeof *items * m.n_results);
  for (uint32_t k = 0; k < m.n_results; k++)
    items[k] = tsl_sv_expr(m.results[k]);
  map->n_params = m.n_params;
  map->params = m.params;
  map->body = tsl_sv_tuple(m.n_results, items);
  *block = b->name;
  return 1;
}

/* ---- the cache-read chain (TVM's GetCacheReadChain) -------------------------- */

typedef struct chain_scan {
  tsl_stmt_visitor v;
  const tsl_buffer *cur;
  tsl_vec names; /* tsl_str */
} chain_scan;

static int chain_block(const tsl_block *b, const tsl_stmt *realize, void *ud) {
  (void)realize;
  chain_scan *c = ud;
  if (!b->init && b->n_reads == 1 && b->n_writes == 1 && b->reads[0].buffer == c->cur) {
    TSL_VEC_PUSH(&c->names, tsl_str, b->name);
    c->cur = b->writes[0].buffer;
  }
  return 0;
}

/* ---- the rewrite ------------------------------------------------------------------ */

static int get_block(tsl_schedule *sch, tsl_str name, tsl_str func, tsl_sch_rv *out,
                     tsl_diag *diag) {
  tsl_sch_arg a[2] = {{NULL, tsl_sv_str(name)}, {"func_name", tsl_sv_str(func)}};
  return rule_call_args(sch, "get_block", 2, a, out, diag);
}

/* cache_read of the consumer's read, annotated as the packing block */
static int add_rewrite_block(tsl_schedule *sch, tsl_sch_rv consumer, int64_t index,
                             tsl_diag *diag) {
  tsl_ctx *ctx = tsl_schedule_ctx(sch);
  tsl_sch_rv rw;
  tsl_sch_arg ca[3] = {{NULL, tsl_sv_rv(consumer)},
                       {NULL, tsl_sv_int(index)},
                       {NULL, tsl_sv_str(tsl_intern(ctx, "global"))}};
  int rc = rule_call_args(sch, "cache_read", 3, ca, &rw, diag);
  if (rc)
    return rc;
  tsl_sch_arg aa[3] = {{NULL, tsl_sv_rv(rw)},
                       {NULL, tsl_sv_str(tsl_intern(ctx, PREPROC_KEY))},
                       {NULL, tsl_sv_bool(1)}};
  return rule_call_args(sch, "annotate", 3, aa, NULL, diag);
}

static int transform(tsl_schedule *sch, tsl_sch_rv block, int64_t read_index,
                     const tsl_sch_lambda *map, tsl_diag *diag) {
  tsl_sch_value buffer[2] = {tsl_sv_str(tsl_intern(tsl_schedule_ctx(sch), "read")),
                             tsl_sv_int(read_index)};
  tsl_sch_arg ta[3] = {{NULL, tsl_sv_rv(block)},
                       {NULL, tsl_sv_tuple(2, buffer)},
                       {NULL, tsl_sv_lambda(map)}};
  return rule_call_args(sch, "transform_layout", 3, ta, NULL, diag);
}

static int rewrite_buffer(tsl_schedule *sch, tsl_arena *a, const tsl_func *f,
                          const tsl_buffer *buf, tsl_diag *diag) {
  chain_scan cs = {.v = {.block = chain_block}, .cur = buf};
  cs.v.user_data = &cs;
  tsl_vec_init(&cs.names, sizeof(tsl_str), a);
  tsl_stmt_visit(f->body, &cs.v);
  tsl_str fname = f->name;
  tsl_str anchor;
  int64_t index;
  tsl_sch_lambda map;
  tsl_sch_rv rv;
  int rc;
  if (cs.names.len == 0) { /* the weight read by the anchor itself */
    int found = suggest(sch, a, f, buf, &anchor, &index, &map, diag);
    if (found <= 0)
      return found < 0 ? TSL_EINVALID : TSL_OK;
    if ((rc = get_block(sch, anchor, fname, &rv, diag)) ||
        (rc = add_rewrite_block(sch, rv, index, diag)))
      return rc;
    return transform(sch, rv, index, &map, diag);
  }
  /* the buffer the last cache read writes is what the anchor reads */
  tsl_str last = TSL_VEC_AT(&cs.names, tsl_str, cs.names.len - 1);
  if ((rc = get_block(sch, last, fname, &rv, diag)))
    return rc;
  const tsl_stmt *lr = tsl_schedule_get_stmt(sch, rv);
  const tsl_buffer *cached = lr->u.realize.block->writes[0].buffer;
  int found = suggest(sch, a, f, cached, &anchor, &index, &map, diag);
  if (found <= 0)
    return found < 0 ? TSL_EINVALID : TSL_OK;
  if ((rc = get_block(sch, anchor, fname, &rv, diag)) ||
      (rc = transform(sch, rv, index, &map, diag)))
    return rc;
  for (int i = (int)cs.names.len - 1; i >= 0; i--) {
    if ((rc = get_block(sch, TSL_VEC_AT(&cs.names, tsl_str, i), fname, &rv, diag)))
      return rc;
    if (i == 0 && (rc = add_rewrite_block(sch, rv, 0, diag)))
      return rc;
    if ((rc = transform(sch, rv, 0, &map, diag)))
      return rc;
  }
  return TSL_OK;
}

/* The parameters "layout_free_buffers" lists; -1 (diag) when it is not a
 * list of parameter indices. */
static int layout_free(const tsl_func *f, const tsl_buffer **out, uint32_t cap, tsl_diag *diag) {
  const tsl_attr_value *v = tsl_attrs_get(f->attrs, "layout_free_buffers");
  if (!v)
    return 0;
  if (v->kind != TSL_ATTR_LIST)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "'%s': layout_free_buffers must be a list of "
                        "parameter indices",
                        f->name),
           -1;
  uint32_t n = 0;
  for (uint32_t i = 0; i < v->n; i++) {
    const tsl_attr_value *it = &v->u.items[i];
    int64_t k = it->kind == TSL_ATTR_INT ? it->u.i : -1;
    if (it->kind == TSL_ATTR_EXPR)
      tsl_expr_is_const_int(it->u.expr, &k);
    if (k < 0 || k >= f->n_params || !f->params[k].buffer)
      return tsl_diag_set(diag, TSL_EINVALID,
                          "'%s': layout_free_buffers entry %u (%lld) is not the "
                          "index of a buffer parameter (0 to %u)",
                          f->name, i, (long long)k, f->n_params ? f->n_params - 1 : 0),
             -1;
    if (n < cap)
      out[n++] = f->params[k].buffer;
  }
  return (int)n;
}

static int rl_apply(tsl_postproc *pp, tsl_schedule *sch, tsl_diag *diag) {
  (void)pp;
  const tsl_module *m = tsl_schedule_module(sch);
  tsl_arena *a = tsl_arena_new(tsl_schedule_ctx(sch));
  int rc = TSL_OK;
  uint32_t n_funcs = m->n_funcs;
  for (uint32_t i = 0; i < n_funcs && !rc; i++) {
    const tsl_func *f = tsl_schedule_module(sch)->funcs[i];
    const tsl_buffer *bufs[64];
    int n = layout_free(f, bufs, 64, diag);
    if (n < 0)
      rc = TSL_EINVALID;
    for (int k = 0; k < n && !rc; k++) {
      /* the function as the rewrites before left it */
      f = tsl_schedule_module(sch)->funcs[i];
      rc = rewrite_buffer(sch, a, f, bufs[k], diag);
    }
  }
  tsl_arena_free(a);
  return rc;
}

const tsl_postproc_vtable postproc_rewrite_layout_vt = {sizeof(tsl_postproc_vtable), rl_create,
                                                        rl_destroy, rl_apply};
