/*
 * The reference interpreter's entry points: tsl_interp_run and
 * tsl_interp_run_opts (compile, bind the arguments to the parameters,
 * execute) and tsl_func_param_is_output.
 * Compilation lives in interp_compile.c, evaluation in interp_eval.c.
 *
 * Arguments: a buffer parameter takes a dense row-major tensor of the same
 * dtype and rank. Constant dims must match; a dim that is a bare symbolic
 * variable is bound from the tensor (the first occurrence binds, later ones
 * are checked); dims that are expressions are checked once every variable
 * is bound. Declared strides / elem_offset of a parameter must describe the
 * dense layout (stride variables are bound to it, elem_offset to 0).
 */
#include "interp_internal.h"

#include "tessel/visit.h"

#include <stdio.h>
#include <stdlib.h>

static const char *param_label(const tsl_param *p, char *buf, size_t n) {
  if (p->buffer && p->var && p->var->name != p->buffer->name)
    snprintf(buf, n, "'%s' (buffer '%s')", p->var->name, p->buffer->name);
  else
    snprintf(buf, n, "'%s'", p->buffer ? p->buffer->name : p->var->name);
  return buf;
}

static int shape_error(tsli_state *st, const tsl_func *f, uint32_t i,
                       const tsl_tensor *t) {
  const tsli_param *cp = &st->prog->params[i];
  const tsl_buffer *b = f->params[i].buffer;
  char lbl[160];
  tsl_strbuf decl, vals, given;
  tsl_strbuf_init(&decl);
  tsl_strbuf_init(&vals);
  tsl_strbuf_init(&given);
  tsli_fmt_shape_decl(&decl, b);
  int64_t v[TSL_MAX_NDIM];
  int symbolic = 0;
  for (uint32_t d = 0; d < b->ndim; d++) {
    if (cp->shape[d].mode == TSLI_B_CHECK) {
      v[d] = tsli_eval_i(st, cp->shape[d].expr);
      symbolic |= cp->shape[d].expr->op != TSLI_X_ICONST;
    } else {
      v[d] = t->shape[d];
      symbolic = 1;
    }
  }
  tsli_fmt_shape_vals(&vals, b->ndim, v);
  tsli_fmt_shape_vals(&given, (uint32_t)t->ndim, t->shape);
  int r = tsl_diag_set(st->diag, TSL_EINVALID,
                       "argument %u %s of function '%s': the buffer has shape "
                       "%s%s%s but the tensor given has shape %s",
                       i, param_label(&f->params[i], lbl, sizeof lbl), f->name,
                       decl.data, symbolic ? " = " : "",
                       symbolic ? vals.data : "", given.data);
  tsl_strbuf_free(&decl);
  tsl_strbuf_free(&vals);
  tsl_strbuf_free(&given);
  return r;
}

static int bind_params(tsli_state *st, const tsl_func *f, tsl_arg *args) {
  char lbl[160], d1[32], d2[32];
  const tsli_prog *p = st->prog;
  /* pass 1: types, ranks, storage and bindings */
  for (uint32_t i = 0; i < f->n_params; i++) {
    const tsli_param *cp = &p->params[i];
    const tsl_param *pa = &f->params[i];
    tsl_arg *a = &args[i];
    if (!cp->is_buffer) {
      if (!a->is_scalar)
        return tsl_diag_set(st->diag, TSL_EINVALID,
                            "argument %u %s of function '%s' must be a scalar "
                            "(%s), but a tensor was given",
                            i, param_label(pa, lbl, sizeof lbl), f->name,
                            tsl_dtype_str(pa->var->dtype, d1));
      if (cp->scalar_check)
        continue;
      if (tsli_is_float(cp->kind))
        st->vars[cp->slot].f = tsli_round(a->float_value, cp->kind);
      else
        st->vars[cp->slot].i = tsli_wrap(a->int_value, cp->kind);
      continue;
    }
    const tsl_buffer *b = pa->buffer;
    const tsl_tensor *t = &a->tensor;
    if (a->is_scalar)
      return tsl_diag_set(st->diag, TSL_EINVALID,
                          "argument %u %s of function '%s' must be a tensor, "
                          "but a scalar was given",
                          i, param_label(pa, lbl, sizeof lbl), f->name);
    if (!tsl_dtype_eq(t->dtype, b->dtype))
      return tsl_diag_set(st->diag, TSL_EINVALID,
                          "argument %u %s of function '%s': the buffer has "
                          "dtype %s but the tensor given has dtype %s",
                          i, param_label(pa, lbl, sizeof lbl), f->name,
                          tsl_dtype_str(b->dtype, d1),
                          tsl_dtype_str(t->dtype, d2));
    if (t->ndim < 0 || t->ndim > TSL_MAX_NDIM || (uint32_t)t->ndim != b->ndim) {
      tsl_strbuf decl, given;
      tsl_strbuf_init(&decl);
      tsl_strbuf_init(&given);
      tsli_fmt_shape_decl(&decl, b);
      if (t->ndim >= 0 && t->ndim <= TSL_MAX_NDIM)
        tsli_fmt_shape_vals(&given, (uint32_t)t->ndim, t->shape);
      else
        tsl_strbuf_append(&given, "(invalid)");
      int r = tsl_diag_set(st->diag, TSL_EINVALID,
                           "argument %u %s of function '%s': the buffer has "
                           "%u dimension%s, shape %s, but the tensor given has "
                           "%d, shape %s",
                           i, param_label(pa, lbl, sizeof lbl), f->name,
                           b->ndim, b->ndim == 1 ? "" : "s", decl.data,
                           (int)t->ndim, given.data);
      tsl_strbuf_free(&decl);
      tsl_strbuf_free(&given);
      return r;
    }
    int64_t numel = 1;
    for (uint32_t d = 0; d < b->ndim; d++) {
      if (t->shape[d] < 0 || (t->shape[d] && numel > INT64_MAX / t->shape[d]))
        return tsl_diag_set(st->diag, TSL_EINVALID,
                            "argument %u %s of function '%s': the tensor has "
                            "an invalid dimension %lld",
                            i, param_label(pa, lbl, sizeof lbl), f->name,
                            (long long)t->shape[d]);
      numel *= t->shape[d];
    }
    if (!t->data && numel > 0)
      return tsl_diag_set(st->diag, TSL_EINVALID,
                          "argument %u %s of function '%s': the tensor has no "
                          "data",
                          i, param_label(pa, lbl, sizeof lbl), f->name);
    tsli_rbuf *rb = &st->bufs[cp->slot];
    rb->data = t->data;
    rb->cap = numel;
    rb->off = 0;
    rb->ndim = b->ndim;
    rb->kind = cp->kind;
    int64_t stride = 1;
    for (uint32_t d = b->ndim; d-- > 0;) {
      rb->shape[d] = t->shape[d];
      rb->stride[d] = stride;
      stride *= t->shape[d] ? t->shape[d] : 1;
      if (cp->shape[d].mode == TSLI_B_BIND)
        st->vars[cp->shape[d].slot].i = t->shape[d];
      if (cp->strides && cp->strides[d].mode == TSLI_B_BIND)
        st->vars[cp->strides[d].slot].i = rb->stride[d];
    }
    if (cp->offset.mode == TSLI_B_BIND)
      st->vars[cp->offset.slot].i = 0;
  }
  /* pass 2: everything declared that was not bound must agree */
  for (uint32_t i = 0; i < f->n_params; i++) {
    const tsli_param *cp = &p->params[i];
    const tsl_param *pa = &f->params[i];
    if (!cp->is_buffer) {
      if (!cp->scalar_check)
        continue;
      tsl_arg *a = &args[i];
      int fl = tsli_is_float(cp->kind);
      double want = fl ? tsli_eval_f(st, cp->scalar_check)
                       : (double)tsli_eval_i(st, cp->scalar_check);
      double got = fl ? tsli_round(a->float_value, cp->kind)
                      : (double)tsli_wrap(a->int_value, cp->kind);
      if (st->status)
        return st->status;
      if (want != got)
        return tsl_diag_set(st->diag, TSL_EINVALID,
                            "argument %u %s of function '%s' is %g, but the "
                            "shapes of the tensors given bind it to %g",
                            i, param_label(pa, lbl, sizeof lbl), f->name, got,
                            want);
      continue;
    }
    const tsl_tensor *t = &args[i].tensor;
    const tsli_rbuf *rb = &st->bufs[cp->slot];
    for (uint32_t d = 0; d < pa->buffer->ndim; d++) {
      if (cp->shape[d].mode == TSLI_B_CHECK &&
          tsli_eval_i(st, cp->shape[d].expr) != t->shape[d])
        return st->status ? st->status : shape_error(st, f, i, t);
      if (cp->strides && cp->strides[d].mode == TSLI_B_CHECK) {
        int64_t s = tsli_eval_i(st, cp->strides[d].expr);
        if (st->status)
          return st->status;
        if (s != rb->stride[d])
          return tsl_diag_set(st->diag, TSL_EINVALID,
                              "argument %u %s of function '%s': the buffer "
                              "declares stride %lld for dimension %u, but "
                              "tensors are dense row-major (stride %lld)",
                              i, param_label(pa, lbl, sizeof lbl), f->name,
                              (long long)s, d, (long long)rb->stride[d]);
      }
    }
    if (cp->offset.mode == TSLI_B_CHECK) {
      int64_t o = tsli_eval_i(st, cp->offset.expr);
      if (st->status)
        return st->status;
      if (o != 0)
        return tsl_diag_set(st->diag, TSL_EINVALID,
                            "argument %u %s of function '%s': the buffer "
                            "declares elem_offset %lld, but a tensor argument "
                            "starts at element 0",
                            i, param_label(pa, lbl, sizeof lbl), f->name,
                            (long long)o);
    }
    if (st->status)
      return st->status;
  }
  return TSL_OK;
}

int tsl_interp_run(const tsl_func *f, tsl_arg *args, uint32_t n_args,
                   tsl_diag *diag) {
  return tsl_interp_run_opts(f, args, n_args, NULL, diag);
}

int tsl_interp_run_opts(const tsl_func *f, tsl_arg *args, uint32_t n_args,
                        const tsl_interp_opts *opts, tsl_diag *diag) {
  tsl_interp_opts o = {sizeof o, TSL_INTERP_ORDER_NATURAL, 0};
  if (opts)
    memcpy(&o, opts, opts->struct_size < sizeof o ? opts->struct_size : sizeof o);
  if (o.loop_order > TSL_INTERP_ORDER_REVERSED)
    o.loop_order = TSL_INTERP_ORDER_NATURAL;
  if (!f)
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_interp_run: NULL function");
  if (n_args != f->n_params || (n_args && !args))
    return tsl_diag_set(diag, TSL_EINVALID,
                        "function '%s' takes %u parameter%s, but %u argument%s "
                        "%s given",
                        f->name, f->n_params, f->n_params == 1 ? "" : "s",
                        args ? n_args : 0, n_args == 1 ? "" : "s",
                        n_args == 1 ? "was" : "were");
  tsli_prog prog;
  int r = tsli_compile(f, &prog, diag);
  if (r) {
    tsli_prog_free(&prog);
    return r;
  }
  tsli_state st;
  memset(&st, 0, sizeof st);
  st.prog = &prog;
  st.diag = diag;
  st.order = o.loop_order;
  st.rng = o.order_seed;
  st.vars = calloc((size_t)prog.n_vars + 1, sizeof *st.vars);
  st.bufs = calloc((size_t)prog.n_bufs + 1, sizeof *st.bufs);
  if (!st.vars || !st.bufs) {
    r = tsl_diag_set(diag, TSL_ENOMEM,
                     "out of memory starting the interpreter");
  } else {
    r = bind_params(&st, f, args);
    if (!r) {
      tsli_exec(&st, prog.body);
      r = st.status;
    }
  }
  if (st.bufs)
    for (int32_t i = 0; i < prog.n_bufs; i++)
      free(st.bufs[i].owned);
  free(st.bufs);
  free(st.vars);
  tsli_prog_free(&prog);
  return r;
}

/* ---- tsl_func_param_is_output ---------------------------------------------
 */

/* The scan's set (user data): the parameter's buffer and views of it. */
static int scan_block(const tsl_block *b, const tsl_stmt *realize, void *ud) {
  (void)realize;
  tsl_map *set = ud;
  for (uint32_t i = 0; i < b->n_match_buffers; i++)
    if (tsl_map_find(set, b->match_buffers[i].source.buffer, NULL))
      tsl_map_put(set, b->match_buffers[i].buffer, NULL);
  return 0;
}

static int scan_stmt(const tsl_stmt *s, void *ud) {
  return s->kind == TSL_STMT_STORE && tsl_map_find(ud, s->u.store.buffer, NULL) ? 2 : 0;
}

/* An intrinsic may write through a pointer: T.tvm_access_ptr with the
 * write bit of its rw_mask (or a mask that is not a constant), or the
 * buffer's data handed over bare. */
static int writes_through_pointer(const tsl_expr *e, tsl_map *set) {
  if (e->kind == TSL_EXPR_BUFFER_DATA)
    return tsl_map_find(set, e->u.buffer, NULL);
  int64_t mask = 3;
  const int ptr = e->kind == TSL_EXPR_BUILTIN && e->intrin == TSL_BUILTIN_TVM_ACCESS_PTR &&
                  e->n_args == 5 && e->args[1]->kind == TSL_EXPR_BUFFER_DATA;
  if (ptr && tsl_map_find(set, e->args[1]->u.buffer, NULL) &&
      (!tsl_expr_is_const_int(e->args[4], &mask) || (mask & 2)))
    return 1;
  for (uint32_t i = 0; i < e->n_args; i++)
    if (!(ptr && i == 1) && writes_through_pointer(e->args[i], set))
      return 1;
  return 0;
}

static int scan_expr(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  (void)owner;
  return writes_through_pointer(e, ud) ? 2 : 0;
}

int tsl_func_param_is_output(const tsl_func *f, uint32_t k) {
  if (!f || k >= f->n_params || !f->params[k].buffer || !f->body)
    return 0;
  tsl_map set;
  tsl_map_init(&set, NULL);
  tsl_map_put(&set, f->params[k].buffer, NULL);
  tsl_stmt_visitor v = {0};
  v.stmt = scan_stmt;
  v.expr = scan_expr;
  v.block = scan_block;
  v.user_data = &set;
  int r = tsl_stmt_visit(f->body, &v);
  tsl_map_free(&set);
  return r == 2;
}
