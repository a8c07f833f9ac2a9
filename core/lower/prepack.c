/*
 * Weights packed ahead of the calls (lower.h, tsl_func_split_prepack): the
 * packing blocks RewriteLayout adds (annotated
 * meta_schedule.layout_rewrite_preproc) move out of the function into one
 * of their own, and the function takes the packed buffers instead of the
 * weights, as TVM's RemoveWeightLayoutRewriteBlock.
 */
#include "tessel/lower.h"

#include <stdio.h>
#include <string.h>

#include "tessel/visit.h"

#define PACK_MAX 16

typedef struct packing {
  const tsl_stmt *realize;
  uint32_t param;          /* the weight's position */
  const tsl_buffer *packed; /* the buffer the block writes */
} packing;

typedef struct pack_scan {
  tsl_stmt_visitor v;
  const tsl_func *f;
  packing p[PACK_MAX];
  uint32_t n;
  int status;
  tsl_diag *diag;
} pack_scan;

static int is_packing(const tsl_block *b) {
  const tsl_attr_value *v = tsl_attrs_get(b->annotations, TSL_LAYOUT_REWRITE_PREPROC);
  if (!v)
    return 0;
  if (v->kind == TSL_ATTR_BOOL || v->kind == TSL_ATTR_INT)
    return v->u.i != 0;
  return v->kind == TSL_ATTR_EXPR && v->u.expr->kind == TSL_EXPR_INT_IMM &&
         v->u.expr->u.int_value != 0;
}

static int scan_block(const tsl_block *b, const tsl_stmt *realize, void *ud) {
  pack_scan *s = ud;
  if (!is_packing(b) || s->status)
    return 0;
  const tsl_stmt *body = b->body;
  const tsl_expr *load = body->kind == TSL_STMT_STORE ? body->u.store.value : NULL;
  uint32_t p = s->f->n_params;
  if (load && load->kind == TSL_EXPR_LOAD)
    for (p = 0; p < s->f->n_params; p++)
      if (s->f->params[p].buffer == load->u.buffer)
        break;
  if (p == s->f->n_params || b->init || b->n_alloc_buffers || b->n_match_buffers) {
    s->status = tsl_diag_set(s->diag, TSL_EUNSUPPORTED,
                             "%s: block '%s' (%s) is not a copy of a parameter into a "
                             "buffer",
                             s->f->name, b->name, TSL_LAYOUT_REWRITE_PREPROC);
    return 1;
  }
  for (uint32_t i = 0; i < s->n; i++)
    if (s->p[i].param == p) {
      s->status = tsl_diag_set(s->diag, TSL_EUNSUPPORTED,
                               "%s: parameter '%s' is packed by two blocks ('%s', '%s')",
                               s->f->name, load->u.buffer->name, s->p[i].realize->u.realize.block->name,
                               b->name);
      return 1;
    }
  if (s->n == PACK_MAX) {
    s->status = tsl_diag_set(s->diag, TSL_EUNSUPPORTED, "%s: more than %d packed parameters",
                             s->f->name, PACK_MAX);
    return 1;
  }
  s->p[s->n++] = (packing){realize, p, body->u.store.buffer};
  return 0;
}

/* The mutation: packing blocks removed (main) or kept alone (prepack);
 * the packed buffers' allocations dropped. */
typedef struct pack_cut {
  tsl_mutator m;
  const pack_scan *scan;
  int keep_packing; /* 1: prepack (every other block goes) */
  const tsl_stmt *root;
  uint32_t kept;
} pack_cut;

static int packed_buffer(const pack_scan *s, const tsl_buffer *b) {
  for (uint32_t i = 0; i < s->n; i++)
    if (s->p[i].packed == b)
      return 1;
  return 0;
}

static const tsl_stmt *cut_stmt(tsl_mutator *m, const tsl_stmt *st) {
  pack_cut *c = (pack_cut *)m;
  if (st->kind != TSL_STMT_BLOCK_REALIZE)
    return tsl_mutate_stmt_children(m, st);
  const tsl_block *b = st->u.realize.block;
  if (st != c->root) {
    int packing = is_packing(b);
    if (packing != c->keep_packing)
      return NULL;
    if (packing) {
      c->kept++;
      return st;
    }
  }
  const tsl_stmt *r = tsl_mutate_stmt_children(m, st);
  if (!r)
    return NULL;
  const tsl_block *nb = r->u.realize.block;
  uint32_t n = 0;
  const tsl_buffer **allocs = tsl_arena_alloc(m->arena, sizeof *allocs * (nb->n_alloc_buffers + 1));
  for (uint32_t i = 0; i < nb->n_alloc_buffers; i++)
    if (!c->keep_packing && !packed_buffer(c->scan, nb->alloc_buffers[i]))
      allocs[n++] = nb->alloc_buffers[i];
  if (n == nb->n_alloc_buffers)
    return r;
  tsl_block *copy = tsl_arena_dup(m->arena, nb, sizeof *nb);
  copy->n_alloc_buffers = n;
  copy->alloc_buffers = allocs;
  return tsl_stmt_block_realize(m->arena, r->u.realize.n_iter_values, r->u.realize.iter_values,
                                r->u.realize.predicate, copy);
}

static const tsl_func *cut(tsl_arena *a, const tsl_func *f, const pack_scan *s, int keep) {
  pack_cut c = {.m = tsl_mutator_make(a), .scan = s, .keep_packing = keep, .root = f->body};
  c.m.stmt = cut_stmt;
  c.m.expr = tsl_mutate_expr_keep;
  const tsl_stmt *body = tsl_mutate_stmt(&c.m, f->body);
  if (c.m.status || !body || (keep && c.kept != s->n))
    return NULL;
  tsl_func *g = tsl_arena_dup(a, f, sizeof *f);
  g->body = body;
  return g;
}

/* 1 when `b` is used anywhere in `f`'s body */
typedef struct use_scan {
  tsl_stmt_visitor v;
  const tsl_buffer *b;
  int used;
} use_scan;

static int use_load(const tsl_expr *e, void *ud) {
  use_scan *u = ud;
  if ((e->kind == TSL_EXPR_LOAD || e->kind == TSL_EXPR_BUFFER_DATA) && e->u.buffer == u->b)
    u->used = 1;
  return 0;
}

static int use_expr(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  (void)owner;
  return tsl_expr_visit(e, use_load, ud);
}

static int use_stmt(const tsl_stmt *s, void *ud) {
  use_scan *u = ud;
  if (s->kind == TSL_STMT_STORE && s->u.store.buffer == u->b)
    u->used = 1;
  if (s->kind == TSL_STMT_BLOCK_REALIZE) {
    const tsl_block *b = s->u.realize.block;
    for (uint32_t i = 0; i < b->n_reads; i++)
      u->used |= b->reads[i].buffer == u->b;
    for (uint32_t i = 0; i < b->n_writes; i++)
      u->used |= b->writes[i].buffer == u->b;
  }
  return 0;
}

static int buffer_used(const tsl_stmt *body, const tsl_buffer *b) {
  use_scan u = {.v = {.stmt = use_stmt, .expr = use_expr}, .b = b};
  u.v.user_data = &u;
  tsl_stmt_visit(body, &u.v);
  return u.used;
}

int tsl_func_split_prepack(tsl_arena *a, const tsl_func *f, tsl_prepack_split *out,
                           tsl_diag *diag) {
  memset(out, 0, sizeof *out);
  out->main = f;
  pack_scan s = {.v = {.block = scan_block}, .f = f, .status = TSL_OK, .diag = diag};
  s.v.user_data = &s;
  tsl_stmt_visit(f->body, &s.v);
  if (s.status)
    return s.status;
  if (s.n == 0)
    return TSL_OK;
  for (uint32_t i = 0; i < s.n; i++) {
    int64_t size = tsl_buffer_const_size(s.p[i].packed);
    if (size < 0)
      return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                          "%s: packed buffer '%s' has a symbolic shape", f->name,
                          s.p[i].packed->name);
  }
  const tsl_func *main = cut(a, f, &s, 0);
  const tsl_func *pre = cut(a, f, &s, 1);
  if (!main || !pre)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                        "%s: the packing blocks cannot be taken out of the function", f->name);
  /* the weights' parameters take the packed buffers */
  tsl_param *mp = tsl_arena_dup(a, f->params, sizeof *mp * f->n_params);
  tsl_param *pp = tsl_arena_alloc(a, sizeof *pp * 2 * s.n);
  uint32_t *pos = tsl_arena_alloc(a, sizeof *pos * s.n);
  /* in parameter order */
  uint32_t k = 0;
  for (uint32_t p = 0; p < f->n_params; p++)
    for (uint32_t i = 0; i < s.n; i++) {
      if (s.p[i].param != p)
        continue;
      const tsl_buffer *w = f->params[p].buffer, *packed = s.p[i].packed;
      if (buffer_used(main->body, w))
        return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                            "%s: parameter '%s' is still read after packing into '%s'",
                            f->name, w->name, packed->name);
      mp[p].buffer = packed;
      mp[p].var = tsl_var_new(a, packed->name, TSL_HANDLE);
      pp[k] = f->params[p];
      pp[s.n + k] = mp[p];
      pos[k++] = p;
    }
  tsl_func *m = (tsl_func *)main;
  m->params = mp;
  tsl_func *g = (tsl_func *)pre;
  char name[512];
  snprintf(name, sizeof name, "%s_prepack", f->name);
  g->name = tsl_intern(tsl_arena_ctx(a), name);
  g->attrs = (tsl_attrs){0, NULL};
  g->n_params = 2 * s.n;
  g->params = pp;
  out->main = m;
  out->prepack = g;
  out->n_packed = s.n;
  out->positions = pos;
  return TSL_OK;
}

int tsl_module_split_prepack(tsl_arena *a, const tsl_module *m, const tsl_module **out,
                             tsl_diag *diag) {
  *out = m;
  const tsl_func **fs = tsl_arena_alloc(a, sizeof *fs * (2 * m->n_funcs + 1));
  uint32_t n = 0, packs = 0;
  for (uint32_t i = 0; i < m->n_funcs; i++) {
    tsl_prepack_split sp;
    int rc = tsl_func_split_prepack(a, m->funcs[i], &sp, diag);
    if (rc)
      return rc;
    fs[n++] = sp.main;
    if (sp.prepack) {
      fs[m->n_funcs + packs++] = sp.prepack;
    }
  }
  if (!packs)
    return TSL_OK;
  for (uint32_t k = 0; k < packs; k++)
    fs[n++] = fs[m->n_funcs + k];
  tsl_module *nm = tsl_arena_dup(a, m, sizeof *m);
  nm->n_funcs = n;
  nm->funcs = fs;
  nm->is_bare_func = 0;
  *out = nm;
  return TSL_OK;
}
