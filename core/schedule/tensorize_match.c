/*
 * tensorize_match.c: structural matching of a block against a tensor
 * intrinsic's description, as TVM's TensorizeComparator does.
 *
 * The block (lhs) and the description's root block (rhs) are walked
 * together. Variables defined on both sides (loop and iter variables) are
 * paired; buffers are paired at first use (same dtype and scope; shapes
 * are not compared). The outermost block's regions fix, per buffer, the
 * base indices where the intrinsic's region starts; every later access
 * must equal the description's access once the base is subtracted, and
 * leading dimensions the description lacks must be single elements.
 */
#include "tz_internal.h"

#include "tessel/container.h"
#include "tessel/script.h"
#include "tessel/visit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One buffer of the description paired with the program's buffer. */
typedef struct tz_pair {
  const tsl_buffer *rhs, *lhs;
  uint32_t n_base;
  const tsl_expr **base; /* where the description's region starts */
} tz_pair;

typedef struct tz_ctx {
  tsl_arena *a;
  tsl_analyzer *an;
  tsl_map vars;  /* lhs var -> rhs var */
  tsl_vec pairs; /* tz_pair */
  tsl_map by_lhs, by_rhs; /* buffer -> index in pairs + 1 */
  int scope;     /* at the outermost block */
  char *why;
  size_t cap;
} tz_ctx;

static int fail(tz_ctx *m, const char *fmt, ...) TSL_PRINTF(2, 3);
static int fail(tz_ctx *m, const char *fmt, ...) {
  if (m->why[0])
    return 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->why, m->cap, fmt, ap);
  va_end(ap);
  return 0;
}

static const char *str(tz_ctx *m, const tsl_expr *e) {
  char *s = tsl_print_expr(e);
  const char *r = tsl_arena_strdup(m->a, s ? s : "?");
  free(s);
  return r;
}

/* Pair lhs var `l` with rhs var `r` (a definition on both sides). */
static int def_equal(tz_ctx *m, const tsl_var *l, const tsl_var *r) {
  void *have;
  if (tsl_map_find(&m->vars, l, &have))
    return have == r;
  tsl_map_put(&m->vars, l, (void *)r);
  return 1;
}

static tz_pair *pair_of_lhs(tz_ctx *m, const tsl_buffer *lhs) {
  intptr_t k = tsl_map_get_int(&m->by_lhs, lhs, 0);
  return k ? &TSL_VEC_AT(&m->pairs, tz_pair, k - 1) : NULL;
}

static int cmp_buffer(tz_ctx *m, const tsl_buffer *l, const tsl_buffer *r) {
  intptr_t k = tsl_map_get_int(&m->by_rhs, r, 0);
  if (k) {
    const tz_pair *p = &TSL_VEC_AT(&m->pairs, tz_pair, k - 1);
    if (p->lhs == l)
      return 1;
    return fail(m, "buffer '%s' of the description is matched to both '%s' "
                   "and '%s'",
                r->name, p->lhs->name, l->name);
  }
  if (!tsl_dtype_eq(l->dtype, r->dtype) || l->scope != r->scope) {
    char d1[32], d2[32];
    return fail(m, "buffer '%s' (%s, scope %s) does not match '%s' of the "
                   "description (%s, scope %s)",
                l->name, tsl_dtype_str(l->dtype, d1), l->scope, r->name,
                tsl_dtype_str(r->dtype, d2), r->scope);
  }
  if (pair_of_lhs(m, l))
    return fail(m, "buffer '%s' is matched to two buffers of the description",
                l->name);
  TSL_VEC_PUSH(&m->pairs, tz_pair, ((tz_pair){r, l, 0, NULL}));
  tsl_map_put(&m->by_rhs, r, TSL_MAP_INT(m->pairs.len));
  tsl_map_put(&m->by_lhs, l, TSL_MAP_INT(m->pairs.len));
  return 1;
}

/* A paired lhs variable reads as its rhs partner, cast to the lhs dtype
 * when they differ (TVM's comparator binds lhs to cast(lhs dtype, rhs), so
 * that a program indexing in int64 matches a description in int32). */
static const tsl_expr *rhs_of(const tsl_var *v, void *ud) {
  tz_ctx *m = ud;
  const tsl_var *r = tsl_map_get(&m->vars, v);
  if (!r)
    return NULL;
  return tsl_dtype_eq(r->dtype, v->dtype) ? r->ref : tsl_expr_cast(m->a, v->dtype, r->ref);
}

/* lhs expression with its paired variables renamed to the rhs ones. */
static const tsl_expr *to_rhs(tz_ctx *m, const tsl_expr *e) {
  return tsl_expr_substitute(m->a, e, rhs_of, m);
}

/* l (lhs) == r (rhs); integers of different widths compare in the wider
 * one. */
static int prove_eq(tz_ctx *m, const tsl_expr *l, const tsl_expr *r) {
  l = to_rhs(m, l);
  if (!tsl_dtype_eq(l->dtype, r->dtype) && tsl_dtype_is_int(l->dtype) &&
      tsl_dtype_is_int(r->dtype)) {
    if (l->dtype.bits < r->dtype.bits)
      l = tsl_expr_cast(m->a, r->dtype, l);
    else
      r = tsl_expr_cast(m->a, l->dtype, r);
  }
  return tsl_analyzer_equal(m->an, l, r);
}

static const tsl_expr *minus(tz_ctx *m, const tsl_expr *x, const tsl_expr *y) {
  return tsl_expr_binary(m->a, TSL_EXPR_SUB, x, y);
}

static int cmp_region(tz_ctx *m, const tsl_buffer_region *l,
                      const tsl_buffer_region *r) {
  if (!cmp_buffer(m, l->buffer, r->buffer))
    return 0;
  if (l->ndim < r->ndim)
    return fail(m, "region of '%s' has %u dimensions, fewer than the %u of "
                   "'%s' in the description",
                l->buffer->name, l->ndim, r->ndim, r->buffer->name);
  uint32_t off = l->ndim - r->ndim;
  tz_pair *p = pair_of_lhs(m, l->buffer);
  if (!p->base) {
    if (!m->scope)
      return fail(m, "buffer '%s' is accessed inside but not in the regions "
                     "of the outer block",
                  l->buffer->name);
    const tsl_expr **base = TSL_NEW_ARRAY(m->a, const tsl_expr *, l->ndim + 1);
    for (uint32_t d = 0; d < l->ndim; d++)
      base[d] = l->ranges[d].min;
    for (uint32_t d = 0; d < r->ndim; d++)
      if (!prove_eq(m, l->ranges[d + off].extent, r->ranges[d].extent))
        return fail(m, "the region of '%s' has extent %s in dimension %u, but "
                       "the description's region of '%s' has extent %s",
                    l->buffer->name, str(m, l->ranges[d + off].extent),
                    d + off, r->buffer->name, str(m, r->ranges[d].extent));
    p->base = base;
    p->n_base = l->ndim;
    return 1;
  }
  const tsl_expr **base = p->base;
  for (uint32_t d = 0; d < off; d++)
    if (!tsl_analyzer_equal(m->an, l->ranges[d].extent,
                            tsl_expr_int(m->a, l->ranges[d].extent->dtype, 1)))
      return fail(m, "the region of '%s' covers more than one element in "
                     "dimension %u, which the description does not have",
                  l->buffer->name, d);
  for (uint32_t d = 0; d < r->ndim; d++) {
    const tsl_range *lr = &l->ranges[d + off], *rr = &r->ranges[d];
    if (!prove_eq(m, lr->extent, rr->extent) ||
        !prove_eq(m, minus(m, lr->min, base[d + off]), rr->min))
      return fail(m, "region %s[...%s:+%s...] does not match %s[...%s:+%s...] "
                     "of the description",
                  l->buffer->name, str(m, lr->min), str(m, lr->extent),
                  r->buffer->name, str(m, rr->min), str(m, rr->extent));
  }
  return 1;
}

static int cmp_regions(tz_ctx *m, const char *what, uint32_t nl,
                       const tsl_buffer_region *l, uint32_t nr,
                       const tsl_buffer_region *r) {
  if (nl != nr)
    return fail(m, "the block %s %u buffer regions, the description's block "
                   "%u",
                what, nl, nr);
  for (uint32_t i = 0; i < nl; i++)
    if (!cmp_region(m, &l[i], &r[i]))
      return 0;
  return 1;
}

static int cmp_access(tz_ctx *m, const tsl_buffer *lb, uint32_t nl,
                      const tsl_expr *const *li, const tsl_buffer *rb,
                      uint32_t nr, const tsl_expr *const *ri) {
  if (!cmp_buffer(m, lb, rb))
    return 0;
  const tz_pair *p = pair_of_lhs(m, lb);
  if (nl < nr || !p->base || p->n_base != nl)
    return fail(m, "access to '%s' does not match the description's access "
                   "to '%s'",
                lb->name, rb->name);
  uint32_t off = nl - nr;
  for (uint32_t d = 0; d < nr; d++)
    if (!prove_eq(m, minus(m, li[d + off], p->base[d + off]), ri[d]))
      return fail(m, "index %s of '%s' does not match index %s of '%s' in "
                     "the description",
                  str(m, li[d + off]), lb->name, str(m, ri[d]), rb->name);
  return 1;
}

static int cmp_expr(tz_ctx *m, const tsl_expr *l, const tsl_expr *r) {
  if (l == r)
    return 1;
  if (l->kind != r->kind || l->dtype.code != r->dtype.code)
    return fail(m, "expression %s does not match %s of the description",
                str(m, l), str(m, r));
  switch ((tsl_expr_kind)l->kind) {
  case TSL_EXPR_INT_IMM:
    if (l->u.int_value != r->u.int_value)
      return fail(m, "constant %s does not match %s of the description",
                  str(m, l), str(m, r));
    return 1;
  case TSL_EXPR_FLOAT_IMM:
    if (l->u.float_value != r->u.float_value)
      return fail(m, "constant %s does not match %s of the description",
                  str(m, l), str(m, r));
    return 1;
  case TSL_EXPR_STR_IMM:
    return l->u.str_value == r->u.str_value ||
           fail(m, "string constants differ");
  case TSL_EXPR_VAR: {
    if (tsl_map_get(&m->vars, l->u.var) == r->u.var)
      return 1;
    return fail(m, "variable '%s' does not match '%s' of the description",
                l->u.var->name, r->u.var->name);
  }
  case TSL_EXPR_LOAD:
    return cmp_access(m, l->u.buffer, l->n_args, l->args, r->u.buffer,
                      r->n_args, r->args);
  case TSL_EXPR_BUFFER_DATA:
    return cmp_buffer(m, l->u.buffer, r->u.buffer);
  case TSL_EXPR_CALL:
  case TSL_EXPR_BUILTIN:
    if (l->intrin != r->intrin)
      return fail(m, "call %s does not match %s of the description",
                  str(m, l), str(m, r));
    break;
  case TSL_EXPR_CALL_EXTERN:
    if (l->u.str_value != r->u.str_value)
      return fail(m, "call %s does not match %s of the description",
                  str(m, l), str(m, r));
    break;
  default:
    break;
  }
  if (l->n_args != r->n_args)
    return fail(m, "expression %s does not match %s of the description",
                str(m, l), str(m, r));
  for (uint32_t i = 0; i < l->n_args; i++)
    if (!cmp_expr(m, l->args[i], r->args[i]))
      return 0;
  return 1;
}

static int cmp_stmt(tz_ctx *m, const tsl_stmt *l, const tsl_stmt *r);

static int cmp_realize(tz_ctx *m, const tsl_stmt *l, const tsl_stmt *r) {
  const tsl_block *lb = l->u.realize.block, *rb = r->u.realize.block;
  if (!m->scope) {
    if (l->u.realize.n_iter_values != r->u.realize.n_iter_values)
      return fail(m, "block '%s' has %u iterators, block '%s' of the "
                     "description %u",
                  lb->name, l->u.realize.n_iter_values, rb->name,
                  r->u.realize.n_iter_values);
    for (uint32_t i = 0; i < l->u.realize.n_iter_values; i++)
      if (!cmp_expr(m, l->u.realize.iter_values[i], r->u.realize.iter_values[i]))
        return 0;
  }
  if (!cmp_expr(m, l->u.realize.predicate, r->u.realize.predicate))
    return 0;
  if (!m->scope) {
    for (uint32_t i = 0; i < lb->n_iter_vars; i++) {
      if (lb->iter_vars[i].iter_type != rb->iter_vars[i].iter_type)
        return fail(m, "iterator '%s' of block '%s' is %s, but '%s' of the "
                       "description is %s",
                    lb->iter_vars[i].var->name, lb->name,
                    tsl_iter_type_name(lb->iter_vars[i].iter_type),
                    rb->iter_vars[i].var->name,
                    tsl_iter_type_name(rb->iter_vars[i].iter_type));
      if (!def_equal(m, lb->iter_vars[i].var, rb->iter_vars[i].var))
        return fail(m, "iterators of block '%s' do not match", lb->name);
    }
    if (lb->n_alloc_buffers != rb->n_alloc_buffers)
      return fail(m, "block '%s' allocates %u buffers, the description's "
                     "block %u",
                  lb->name, lb->n_alloc_buffers, rb->n_alloc_buffers);
    for (uint32_t i = 0; i < lb->n_alloc_buffers; i++)
      if (!cmp_buffer(m, lb->alloc_buffers[i], rb->alloc_buffers[i]))
        return 0;
  }
  if (!cmp_regions(m, "writes", lb->n_writes, lb->writes, rb->n_writes,
                   rb->writes) ||
      !cmp_regions(m, "reads", lb->n_reads, lb->reads, rb->n_reads, rb->reads))
    return 0;
  m->scope = 0;
  return cmp_stmt(m, lb->body, rb->body);
}

static const char *stmt_what(const tsl_stmt *s) {
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: return "a loop";
  case TSL_STMT_BLOCK_REALIZE: return "a block";
  case TSL_STMT_STORE: return "a store";
  case TSL_STMT_IF: return "an if";
  case TSL_STMT_LET: return "a let";
  case TSL_STMT_EVALUATE: return "an evaluate";
  case TSL_STMT_SEQ: return "a sequence";
  default: return "a statement";
  }
}

static int cmp_stmt(tz_ctx *m, const tsl_stmt *l, const tsl_stmt *r) {
  if (l->kind != r->kind)
    return fail(m, "found %s where the description has %s", stmt_what(l),
                stmt_what(r));
  switch ((tsl_stmt_kind)l->kind) {
  case TSL_STMT_FOR:
    if (!def_equal(m, l->u.loop.loop_var, r->u.loop.loop_var))
      return fail(m, "loop '%s' does not match", l->u.loop.loop_var->name);
    if (!prove_eq(m, l->u.loop.min, r->u.loop.min) ||
        !prove_eq(m, l->u.loop.extent, r->u.loop.extent))
      return fail(m, "loop '%s' runs over [%s, +%s), but loop '%s' of the "
                     "description over [%s, +%s)",
                  l->u.loop.loop_var->name, str(m, l->u.loop.min),
                  str(m, l->u.loop.extent), r->u.loop.loop_var->name,
                  str(m, r->u.loop.min), str(m, r->u.loop.extent));
    if (l->u.loop.for_kind != r->u.loop.for_kind ||
        l->u.loop.thread_tag != r->u.loop.thread_tag)
      return fail(m, "loop '%s' is %s, but loop '%s' of the description is %s",
                  l->u.loop.loop_var->name,
                  tsl_for_kind_name((tsl_for_kind)l->u.loop.for_kind),
                  r->u.loop.loop_var->name,
                  tsl_for_kind_name((tsl_for_kind)r->u.loop.for_kind));
    return cmp_stmt(m, l->u.loop.body, r->u.loop.body);
  case TSL_STMT_BLOCK_REALIZE:
    return cmp_realize(m, l, r);
  case TSL_STMT_STORE:
    return cmp_access(m, l->u.store.buffer, l->u.store.n_indices,
                      l->u.store.indices, r->u.store.buffer,
                      r->u.store.n_indices, r->u.store.indices) &&
           cmp_expr(m, l->u.store.value, r->u.store.value);
  case TSL_STMT_IF:
    if (!cmp_expr(m, l->u.branch.cond, r->u.branch.cond) ||
        !cmp_stmt(m, l->u.branch.then_case, r->u.branch.then_case))
      return 0;
    if (!l->u.branch.else_case != !r->u.branch.else_case)
      return fail(m, "if statements differ in their else branch");
    return !l->u.branch.else_case ||
           cmp_stmt(m, l->u.branch.else_case, r->u.branch.else_case);
  case TSL_STMT_LET:
    return cmp_expr(m, l->u.let.value, r->u.let.value) &&
           def_equal(m, l->u.let.var, r->u.let.var) &&
           cmp_stmt(m, l->u.let.body, r->u.let.body);
  case TSL_STMT_EVALUATE:
    return cmp_expr(m, l->u.evaluate.value, r->u.evaluate.value);
  case TSL_STMT_SEQ:
    if (l->u.seq.n != r->u.seq.n)
      return fail(m, "a sequence of %u statements where the description has "
                     "%u",
                  l->u.seq.n, r->u.seq.n);
    for (uint32_t i = 0; i < l->u.seq.n; i++)
      if (!cmp_stmt(m, l->u.seq.stmts[i], r->u.seq.stmts[i]))
        return 0;
    return 1;
  case TSL_STMT_ALLOCATE: /* lowered programs: see core/lower */
  case TSL_STMT_KIND_COUNT:
    break;
  }
  return 0;
}

int tz_match(tsl_ctx *ctx, tsl_arena *a, const tsl_stmt *realize,
             const tsl_func *desc, tz_binding *res, char *why, size_t cap) {
  tz_ctx *m = TSL_NEW(a, tz_ctx);
  m->a = a;
  m->an = tsl_analyzer_new(ctx);
  m->scope = 1;
  m->why = why;
  m->cap = cap;
  why[0] = 0;
  tsl_map_init(&m->vars, a);
  tsl_map_init(&m->by_lhs, a);
  tsl_map_init(&m->by_rhs, a);
  tsl_vec_init(&m->pairs, sizeof(tz_pair), a);
  int ok = cmp_stmt(m, realize, desc->body);
  tsl_analyzer_free(m->an);
  if (!ok) {
    if (!why[0])
      snprintf(why, cap, "the block differs from the description");
    return TSL_EINVALID;
  }
  for (uint32_t k = 0; k < desc->n_params; k++) {
    res[k] = (tz_binding){0};
    const tsl_buffer *db = desc->params[k].buffer;
    intptr_t i = db ? tsl_map_get_int(&m->by_rhs, db, 0) : 0;
    if (i) {
      const tz_pair *p = &TSL_VEC_AT(&m->pairs, tz_pair, i - 1);
      res[k] = (tz_binding){p->lhs, p->n_base, p->base};
    }
  }
  return TSL_OK;
}
