/*
 * Struct info of Relax expressions: operators (elementwise with NumPy
 * broadcasting, matmul), destination-passing calls checked against the
 * prim_func they call, and annotations checked against values.
 */
#include "rx_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tsl_rx_sinfo *rx_sinfo_new(tsl_arena *a, uint32_t kind) {
  tsl_rx_sinfo *s = TSL_NEW(a, tsl_rx_sinfo);
  s->kind = kind;
  s->ndim = -1;
  s->dtype = TSL_VOID;
  return s;
}

const tsl_rx_sinfo *rx_tuple_sinfo(tsl_arena *a, uint32_t n, const tsl_rx_expr *const *fields) {
  tsl_rx_sinfo *s = rx_sinfo_new(a, TSL_RX_SINFO_TUPLE);
  const tsl_rx_sinfo **f = TSL_NEW_ARRAY(a, const tsl_rx_sinfo *, n ? n : 1);
  for (uint32_t i = 0; i < n; i++)
    f[i] = fields[i]->sinfo;
  s->n_fields = n;
  s->fields = f;
  return s;
}

int rx_dim_equal(const tsl_expr *a, const tsl_expr *b) {
  int64_t x, y;
  if (tsl_expr_is_const_int(a, &x) && tsl_expr_is_const_int(b, &y))
    return x == y;
  return tsl_expr_equal(a, b);
}

/* A printed text (malloc'd, freed here) moved into the parse's scratch. */
static const char *scratch(pstate *ps, char *t) {
  size_t n = t ? strlen(t) : 0;
  char *r = ps_alloc(ps, n + 1);
  memcpy(r, t ? t : "", n + 1);
  free(t);
  return r;
}

/* The text of a struct info, in the parse's scratch arena. */
static const char *text(pstate *ps, const tsl_rx_sinfo *s) {
  return scratch(ps, tsl_rx_sinfo_print(s));
}

static const char *dim_text(pstate *ps, const tsl_expr *d) {
  int64_t v;
  if (tsl_expr_is_const_int(d, &v)) {
    char *r = ps_alloc(ps, 24);
    snprintf(r, 24, "%lld", (long long)v);
    return r;
  }
  if (d->kind == TSL_EXPR_VAR)
    return d->u.var->name;
  return scratch(ps, tsl_print_expr(d));
}

static int is_void(tsl_dtype t) { return tsl_dtype_is_void(t); }

static int dtype_equal(tsl_dtype a, tsl_dtype b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

void rx_check_sinfo(pstate *ps, const anode *at, const tsl_rx_sinfo *want,
                    const tsl_rx_sinfo *have, const char *what) {
  if (want->kind == TSL_RX_SINFO_OBJECT || have->kind == TSL_RX_SINFO_OBJECT)
    return; /* nothing known on one side (an unbound weight) */
  int bad = want->kind != have->kind;
  if (!bad && want->kind == TSL_RX_SINFO_TUPLE) {
    bad = want->n_fields != have->n_fields;
    for (uint32_t i = 0; !bad && i < want->n_fields; i++)
      rx_check_sinfo(ps, at, want->fields[i], have->fields[i], what);
    if (!bad)
      return;
  }
  if (!bad && want->ndim >= 0 && have->ndim >= 0)
    bad = want->ndim != have->ndim;
  if (!bad && !is_void(want->dtype) && !is_void(have->dtype))
    bad = !dtype_equal(want->dtype, have->dtype);
  for (int32_t d = 0; !bad && want->shape && have->shape && d < want->ndim; d++)
    bad = !rx_dim_equal(want->shape[d], have->shape[d]);
  if (bad)
    ps_fail(ps, at, "annotate what the value is, or change the value",
            "%s is %s, not %s as annotated", what, text(ps, have), text(ps, want));
}

static int tensor(const tsl_rx_sinfo *s) { return s->kind == TSL_RX_SINFO_TENSOR; }

/* NumPy broadcasting of two known shapes into out (max rank dims). */
static void broadcast(pstate *ps, const anode *at, const char *op, const tsl_rx_sinfo *a,
                      const tsl_rx_sinfo *b, tsl_rx_sinfo *out) {
  if (a->ndim < 0 || b->ndim < 0)
    return;
  int32_t n = a->ndim > b->ndim ? a->ndim : b->ndim;
  out->ndim = n;
  if (!a->shape || !b->shape)
    return;
  const tsl_expr **d = TSL_NEW_ARRAY(ps->arena, const tsl_expr *, n ? n : 1);
  int known = 1;
  for (int32_t i = 0; i < n; i++) {
    int32_t ia = i - (n - a->ndim), ib = i - (n - b->ndim);
    const tsl_expr *x = ia >= 0 ? a->shape[ia] : NULL, *y = ib >= 0 ? b->shape[ib] : NULL;
    int64_t v, u;
    if (!x || (y && tsl_expr_is_const_int(x, &v) && v == 1))
      d[i] = y;
    else if (!y || (tsl_expr_is_const_int(y, &v) && v == 1) || rx_dim_equal(x, y))
      d[i] = x;
    else if (tsl_expr_is_const_int(x, &v) && tsl_expr_is_const_int(y, &u))
      ps_fail(ps, at, "NumPy broadcasting: aligned from the last dimension, each pair equal "
                      "or one of them 1",
              "R.%s: shapes %s and %s do not broadcast (dimension %d: %s and %s)", op,
              text(ps, a), text(ps, b), (int)i, dim_text(ps, x), dim_text(ps, y));
    else
      known = 0; /* a symbolic size against another size: decided when the model runs */
  }
  out->shape = known ? d : NULL;
}

static void dtypes_agree(pstate *ps, const anode *at, const char *op, const tsl_rx_sinfo *a,
                         const tsl_rx_sinfo *b, tsl_rx_sinfo *out) {
  out->dtype = is_void(a->dtype) ? b->dtype : a->dtype;
  if (!is_void(a->dtype) && !is_void(b->dtype) && !dtype_equal(a->dtype, b->dtype))
    ps_fail(ps, at, "convert one operand with R.astype first", "R.%s: operands of different "
            "dtypes: %s and %s", op, text(ps, a), text(ps, b));
}

void rx_infer_op(pstate *ps, const anode *at, tsl_rx_expr *e) {
  const char *op = tsl_rx_op_name((tsl_rx_op)e->op);
  tsl_rx_sinfo *out = rx_sinfo_new(ps->arena, TSL_RX_SINFO_TENSOR);
  for (uint32_t i = 0; i < e->n_args; i++)
    if (e->args[i]->sinfo->kind != TSL_RX_SINFO_OBJECT && !tensor(e->args[i]->sinfo))
      ps_fail(ps, at->items[i], "operators take tensors", "R.%s: operand %u is %s, not a tensor",
              op, i, text(ps, e->args[i]->sinfo));
  const tsl_rx_sinfo *a = e->args[0]->sinfo, *b = e->n_args > 1 ? e->args[1]->sinfo : NULL;
  if (!tensor(a) || (b && !tensor(b))) { /* an unbound weight: nothing to infer */
    e->sinfo = out;
    return;
  }
  switch (e->op) {
  case TSL_RX_OP_ADD: case TSL_RX_OP_SUBTRACT: case TSL_RX_OP_MULTIPLY: case TSL_RX_OP_DIVIDE:
    dtypes_agree(ps, at, op, a, b, out);
    broadcast(ps, at, op, a, b, out);
    break;
  case TSL_RX_OP_MATMUL: {
    dtypes_agree(ps, at, op, a, b, out);
    if (a->ndim < 0 || b->ndim < 0)
      break;
    if (a->ndim < 1 || b->ndim < 1)
      ps_fail(ps, at, "both operands have at least one dimension: [..., m, k] x [..., k, n], "
              "a vector as [k]", "R.matmul: %s x %s", text(ps, a), text(ps, b));
    /* NumPy: a vector operand is [1, k] (first) or [k, 1] (second), and
     * that dimension is dropped from the result */
    tsl_rx_sinfo pa = *a, pb = *b;
    const tsl_expr *one = tsl_expr_int(ps->arena, TSL_INT64, 1);
    if (a->ndim == 1) {
      const tsl_expr **d = TSL_NEW_ARRAY(ps->arena, const tsl_expr *, 2);
      d[0] = one;
      d[1] = a->shape ? a->shape[0] : one;
      pa.ndim = 2;
      pa.shape = a->shape ? d : NULL;
    }
    if (b->ndim == 1) {
      const tsl_expr **d = TSL_NEW_ARRAY(ps->arena, const tsl_expr *, 2);
      d[0] = b->shape ? b->shape[0] : one;
      d[1] = one;
      pb.ndim = 2;
      pb.shape = b->shape ? d : NULL;
    }
    if (a->ndim == 1 || b->ndim == 1) {
      tsl_rx_expr tmp = *e;
      const tsl_rx_expr *args[2];
      tsl_rx_expr ea = *e->args[0], eb = *e->args[1];
      ea.sinfo = &pa;
      eb.sinfo = &pb;
      args[0] = &ea;
      args[1] = &eb;
      tmp.args = args;
      rx_infer_op(ps, at, &tmp);
      tsl_rx_sinfo *r = rx_sinfo_new(ps->arena, TSL_RX_SINFO_TENSOR);
      *r = *tmp.sinfo;
      int32_t drop = (a->ndim == 1) + (b->ndim == 1);
      r->ndim -= drop;
      if (r->shape) {
        const tsl_expr **d = TSL_NEW_ARRAY(ps->arena, const tsl_expr *, r->ndim + 1);
        int32_t n = 0, full = r->ndim + drop;
        for (int32_t i = 0; i < full; i++)
          if (!((a->ndim == 1 && i == full - 2) || (b->ndim == 1 && i == full - 1)))
            d[n++] = tmp.sinfo->shape[i];
        r->shape = d;
      }
      e->sinfo = r;
      return;
    }
    int64_t ka, kb;
    if (a->shape && b->shape && tsl_expr_is_const_int(a->shape[a->ndim - 1], &ka) &&
        tsl_expr_is_const_int(b->shape[b->ndim - 2], &kb) && ka != kb)
      ps_fail(ps, at, "[..., m, k] x [..., k, n]: the reduced dimensions are equal",
              "R.matmul: %s x %s: k is %s and %s", text(ps, a), text(ps, b),
              dim_text(ps, a->shape[a->ndim - 1]), dim_text(ps, b->shape[b->ndim - 2]));
    /* batch dimensions broadcast; then m and n */
    tsl_rx_sinfo ba = *a, bb = *b, batch = *out;
    ba.ndim -= 2;
    bb.ndim -= 2;
    batch.shape = NULL;
    broadcast(ps, at, op, &ba, &bb, &batch);
    out->ndim = batch.ndim + 2;
    if (a->shape && b->shape && (batch.shape || !batch.ndim)) {
      const tsl_expr **d = TSL_NEW_ARRAY(ps->arena, const tsl_expr *, out->ndim);
      for (int32_t i = 0; i < batch.ndim; i++)
        d[i] = batch.shape[i];
      d[batch.ndim] = a->shape[a->ndim - 2];
      d[batch.ndim + 1] = b->shape[b->ndim - 1];
      out->shape = d;
    }
    break;
  }
  default: /* elementwise unary */
    *out = *a;
    break;
  }
  e->sinfo = out;
}

/* A prim_func's buffers in parameter order (every parameter a buffer). */
static int buffers_of(const tsl_func *f, const tsl_buffer **out) {
  for (uint32_t i = 0; i < f->n_params; i++) {
    if (!f->params[i].buffer)
      return -1;
    out[i] = f->params[i].buffer;
  }
  return (int)f->n_params;
}

typedef struct binder {
  tsl_vec vars; /* const tsl_var * of the prim_func's sizes */
  tsl_vec vals; /* const tsl_expr * bound to them */
} binder;

/* Does tensor `s` fit buffer `b`, binding the buffer's size variables? */
static const char *fits(binder *bd, const tsl_buffer *b, const tsl_rx_sinfo *s, int *dim) {
  *dim = -1;
  if (!is_void(s->dtype) && !dtype_equal(s->dtype, b->dtype))
    return "dtype";
  if (s->ndim >= 0 && (uint32_t)s->ndim != b->ndim)
    return "rank";
  for (uint32_t d = 0; s->shape && d < b->ndim; d++) {
    const tsl_expr *want = b->shape[d], *have = s->shape[d];
    int64_t x;
    *dim = (int)d;
    if (tsl_expr_is_const_int(want, &x)) {
      int64_t y;
      if (tsl_expr_is_const_int(have, &y) && x != y)
        return "shape";
      continue;
    }
    if (want->kind != TSL_EXPR_VAR)
      continue; /* an expression of sizes: not checked */
    uint32_t k = 0;
    while (k < bd->vars.len && TSL_VEC_DATA(&bd->vars, const tsl_var *)[k] != want->u.var)
      k++;
    if (k == bd->vars.len) {
      TSL_VEC_PUSH(&bd->vars, const tsl_var *, want->u.var);
      TSL_VEC_PUSH(&bd->vals, const tsl_expr *, have);
    } else if (!rx_dim_equal(TSL_VEC_DATA(&bd->vals, const tsl_expr *)[k], have)) {
      return "shape";
    }
  }
  return NULL;
}

void rx_check_dps(pstate *ps, const anode *at, tsl_rx_expr *e) {
  const tsl_rx_expr *args = e->args[1];
  for (uint32_t i = 0; i < args->n_args; i++)
    if (args->args[i]->sinfo->kind != TSL_RX_SINFO_OBJECT && !tensor(args->args[i]->sinfo))
      ps_fail(ps, at->items[1], "the inputs of a destination-passing call are tensors",
              "input %u is %s, not a tensor", i, text(ps, args->args[i]->sinfo));
  if (e->n_sinfo_args == 1) {
    e->sinfo = e->sinfo_args[0];
  } else {
    tsl_rx_sinfo *t = rx_sinfo_new(ps->arena, TSL_RX_SINFO_TUPLE);
    t->n_fields = e->n_sinfo_args;
    t->fields = e->sinfo_args;
    e->sinfo = t;
  }
  const tsl_func *f = NULL;
  if (e->args[0]->kind == TSL_RX_EXPR_GLOBAL || e->args[0]->kind == TSL_RX_EXPR_EXTERN)
    f = tsl_module_find(ps_rx_tir(ps), e->args[0]->name);
  if (!f) {
    if (e->args[0]->kind == TSL_RX_EXPR_GLOBAL)
      ps_fail(ps, at->items[0], "destination-passing calls call prim_funcs (or library "
              "functions by name)", "'%s' is a Relax function, not a prim_func",
              e->args[0]->name);
    return; /* a library function: checked when it is registered */
  }
  const tsl_buffer **bufs = ps_alloc(ps, (f->n_params + 1) * sizeof *bufs);
  int nb = buffers_of(f, bufs);
  const char *callname = e->op == TSL_RX_OP_CALL_TIR ? "R.call_tir" : "R.call_dps_packed";
  if (nb < 0)
    ps_fail(ps, at->items[0], "call prim_funcs whose parameters are all buffers",
            "%s: '%s' has scalar parameters", callname, f->name);
  uint32_t n_in = args->n_args, n_out = e->n_sinfo_args;
  if (n_in + n_out != (uint32_t)nb)
    ps_fail(ps, at, "a destination-passing call gives the inputs, then the outputs "
            "(out_sinfo), one tensor per buffer parameter",
            "%s: '%s' takes %d buffers; given %u input%s and %u output%s", callname, f->name,
            nb, n_in, n_in == 1 ? "" : "s", n_out, n_out == 1 ? "" : "s");
  binder bd;
  tsl_vec_init(&bd.vars, sizeof(const tsl_var *), ps->scratch);
  tsl_vec_init(&bd.vals, sizeof(const tsl_expr *), ps->scratch);
  for (uint32_t i = 0; i < n_in + n_out; i++) {
    const tsl_rx_sinfo *s = i < n_in ? args->args[i]->sinfo : e->sinfo_args[i - n_in];
    if (!tensor(s))
      continue;
    int dim;
    const char *why = fits(&bd, bufs[i], s, &dim);
    if (!why)
      continue;
    char *bt = NULL;
    {
      tsl_rx_sinfo want = {TSL_RX_SINFO_TENSOR, (int32_t)bufs[i]->ndim, bufs[i]->dtype,
                           bufs[i]->shape, 0, NULL};
      bt = (char *)text(ps, &want);
    }
    const anode *where = i < n_in && at->items[1]->kind == AX_TUPLE && i < at->items[1]->n
                             ? at->items[1]->items[i]
                             : at;
    ps_fail(ps, where, "each tensor matches its buffer: same dtype, rank and sizes (the "
            "prim_func's symbolic sizes bound once)",
            "%s: %s %u of '%s' is %s, but its buffer '%s' is %s (%s%s%s)", callname,
            i < n_in ? "input" : "output", i < n_in ? i : i - n_in, f->name, text(ps, s),
            bufs[i]->name, bt, why, dim >= 0 && !strcmp(why, "shape") ? ", dimension " : "",
            dim >= 0 && !strcmp(why, "shape") ? dim_text(ps, tsl_expr_i32(ps->arena, dim)) : "");
  }
}
