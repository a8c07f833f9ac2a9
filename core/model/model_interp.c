/*
 * The reference interpreter of models (tessel/model.h): a Relax function's
 * bindings evaluated in order on host tensors. prim_funcs run in the
 * TensorIR interpreter; operators and library functions in
 * model_kernels.c. Every tensor the run makes is freed at its end, except
 * what is copied into the outputs.
 */
#include "model_internal.h"

#include "tessel/library.h"
#include "tessel/relax_build.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct run {
  const tsl_model *m;
  tsl_arena *arena;
  tsl_diag *diag;
  tsl_vec tensors; /* tsl_tensor: everything allocated, freed at the end */
  tsl_vec sizes;   /* const tsl_var *: bound symbolic sizes */
  tsl_vec values;  /* int64_t, one per size */
  tsl_map vars;    /* const tsl_rx_var * -> const mval * */
  const tsl_weights *inputs;
  const tsl_registry *reg; /* library functions (NULL: the built-in ones) */
} run;

static int fail(run *r, int code, const char *fmt, const char *a, const char *b) {
  return tsl_diag_set(r->diag, code, fmt, a, b);
}

/* The input name of weight i: "relax.expr.Constant.<i>". */
static const char *constant_name(char *buf, size_t cap, uint32_t i) {
  snprintf(buf, cap, "relax.expr.Constant.%u", i);
  return buf;
}

/* ---- sizes ----------------------------------------------------------------- */

/* The value of a dimension; 0 when it uses an unbound size. */
static int eval_dim(run *r, const tsl_expr *e, int64_t *out) {
  return mdl_eval_dim(e, r->sizes.len, r->sizes.data, r->values.data, out);
}

int mdl_eval_dim(const tsl_expr *e, uint32_t n, const tsl_var *const *vars,
                 const int64_t *values, int64_t *out) {
  int64_t a, b;
  switch (e->kind) {
  case TSL_EXPR_INT_IMM: *out = e->u.int_value; return 1;
  case TSL_EXPR_VAR:
    for (uint32_t i = 0; i < n; i++)
      if (vars[i] == e->u.var) {
        *out = values[i];
        return 1;
      }
    return 0;
  case TSL_EXPR_CAST: return mdl_eval_dim(e->args[0], n, vars, values, out);
  case TSL_EXPR_ADD: case TSL_EXPR_SUB: case TSL_EXPR_MUL: case TSL_EXPR_FLOORDIV:
    if (!mdl_eval_dim(e->args[0], n, vars, values, &a) ||
        !mdl_eval_dim(e->args[1], n, vars, values, &b))
      return 0;
    *out = e->kind == TSL_EXPR_ADD ? a + b : e->kind == TSL_EXPR_SUB ? a - b
           : e->kind == TSL_EXPR_MUL ? a * b : b ? (a - ((a % b + b) % b)) / b : 0;
    return 1;
  default: return 0;
  }
}

/* Does tensor t fit struct info s? Binds s's bare symbolic sizes it meets
 * first. `what` names the tensor in the message. */
static int fit(run *r, const tsl_rx_sinfo *s, const tsl_tensor *t, const char *what) {
  char want[256], got[256];
  if (s->kind == TSL_RX_SINFO_OBJECT)
    return TSL_OK;
  char *ws = tsl_rx_sinfo_print(s);
  snprintf(want, sizeof want, "%s", ws ? ws : "?");
  free(ws);
  int len = snprintf(got, sizeof got, "a %s tensor of shape (", tsl_dtype_str(t->dtype,
                                                                              (char[32]){0}));
  for (int32_t i = 0; i < t->ndim && len < (int)sizeof got; i++)
    len += snprintf(got + len, sizeof got - (size_t)len, "%s%lld", i ? ", " : "",
                    (long long)t->shape[i]);
  snprintf(got + len, len < (int)sizeof got ? sizeof got - (size_t)len : 0, ")");
  int bad = s->kind != TSL_RX_SINFO_TENSOR ||
            (!tsl_dtype_is_void(s->dtype) && !tsl_dtype_eq(s->dtype, t->dtype)) ||
            (s->ndim >= 0 && s->ndim != t->ndim);
  for (int32_t d = 0; !bad && s->shape && d < s->ndim; d++) {
    int64_t v;
    if (eval_dim(r, s->shape[d], &v)) {
      bad = v != t->shape[d];
    } else if (s->shape[d]->kind == TSL_EXPR_VAR) {
      TSL_VEC_PUSH(&r->sizes, const tsl_var *, s->shape[d]->u.var);
      TSL_VEC_PUSH(&r->values, int64_t, t->shape[d]);
    }
  }
  if (!bad)
    return TSL_OK;
  return tsl_diag_set(r->diag, TSL_EINVALID, "%s is %s; it must be %s", what, got, want);
}

/* ---- values -------------------------------------------------------------------- */

static mval *new_val(run *r, int kind) {
  mval *v = TSL_NEW(r->arena, mval);
  v->kind = kind;
  return v;
}

static int alloc_shaped(run *r, tsl_dtype t, int32_t ndim, const int64_t *shape, mval **out) {
  mval *v = new_val(r, MV_TENSOR);
  int rc = tsl_tensor_alloc(&v->t, t, ndim, shape, r->diag);
  if (rc)
    return rc;
  TSL_VEC_PUSH(&r->tensors, tsl_tensor, v->t);
  *out = v;
  return TSL_OK;
}

/* A fresh tensor of struct info s (its sizes evaluated). */
static int alloc_tensor(run *r, const tsl_rx_sinfo *s, const char *what, mval **out) {
  if (s->kind != TSL_RX_SINFO_TENSOR || !s->shape || tsl_dtype_is_void(s->dtype) ||
      s->ndim > TSL_MAX_NDIM)
    return fail(r, TSL_EUNSUPPORTED, "%s: an output needs a known dtype and shape%s", what, "");
  int64_t shape[TSL_MAX_NDIM];
  for (int32_t d = 0; d < s->ndim; d++)
    if (!eval_dim(r, s->shape[d], &shape[d]) || shape[d] < 0)
      return fail(r, TSL_EINVALID, "%s: an output dimension uses a symbolic size no input "
                  "bound%s", what, "");
  return alloc_shaped(r, s->dtype, s->ndim, shape, out);
}

static int eval(run *r, const tsl_rx_expr *e, const char *where, const mval **out);

static const tsl_tensor *tensor_arg(const mval *v) { return v->kind == MV_TENSOR ? &v->t : NULL; }

/* R.call_tir / R.call_dps_packed: outputs allocated by out_sinfo, then the
 * prim_func (TensorIR interpreter) or the library function. */
static int dps(run *r, const tsl_rx_expr *e, const char *where, const mval **out) {
  const tsl_rx_expr *args = e->args[1];
  uint32_t n_in = args->n_args, n_out = e->n_sinfo_args;
  tsl_arg *a = TSL_NEW_ARRAY(r->arena, tsl_arg, n_in + n_out + 1);
  mval **outs = TSL_NEW_ARRAY(r->arena, mval *, n_out + 1);
  for (uint32_t i = 0; i < n_in; i++) {
    const mval *v;
    int rc = eval(r, args->args[i], where, &v);
    if (rc)
      return rc;
    if (!tensor_arg(v))
      return fail(r, TSL_EINVALID, "%s: an input of the call is not a tensor%s", where, "");
    a[i].tensor = v->t;
  }
  for (uint32_t i = 0; i < n_out; i++) {
    int rc = alloc_tensor(r, e->sinfo_args[i], where, &outs[i]);
    if (rc)
      return rc;
    a[n_in + i].tensor = outs[i]->t;
  }
  const char *name = e->args[0]->name;
  const tsl_func *f = tsl_module_find(r->m->tir, name);
  int rc;
  if (f) {
    rc = tsl_interp_run(f, a, n_in + n_out, r->diag);
    if (rc) {
      char msg[sizeof ((tsl_diag *)0)->text];
      snprintf(msg, sizeof msg, "%s", r->diag ? r->diag->text : "it failed");
      return tsl_diag_set(r->diag, rc, "%s: prim_func '%s': %s", where, name, msg);
    }
  } else {
    tsl_tensor *in = TSL_NEW_ARRAY(r->arena, tsl_tensor, n_in + 1),
               *ot = TSL_NEW_ARRAY(r->arena, tsl_tensor, n_out + 1);
    for (uint32_t i = 0; i < n_in; i++)
      in[i] = a[i].tensor;
    for (uint32_t i = 0; i < n_out; i++)
      ot[i] = outs[i]->t;
    const tsl_component *lib = r->reg ? tsl_registry_find(r->reg, TSL_COMPONENT_LIBRARY, name)
                                      : NULL;
    if (lib)
      rc = ((const tsl_library_vtable *)lib->vtable)->call(lib->user_data, in, n_in, ot, n_out,
                                                             r->diag);
    else
      rc = r->reg ? TSL_ENOTFOUND : mdl_library_call(name, in, n_in, ot, n_out, r->diag);
    if (rc == TSL_ENOTFOUND) {
      char known[512] = "";
      for (uint32_t k = 0; !r->reg && tsl_model_library_name(k); k++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", k ? ", " : "",
                 tsl_model_library_name(k));
      for (uint32_t k = 0; r->reg && k < tsl_registry_count(r->reg); k++) {
        const tsl_component *c = tsl_registry_get(r->reg, k);
        if (c->kind == TSL_COMPONENT_LIBRARY)
          snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                   known[0] ? ", " : "", c->name);
      }
      return tsl_diag_set(r->diag, TSL_EINVALID, "%s: no function '%s': neither a prim_func of "
                          "the model nor a library function (%s)", where, name, known);
    }
    if (rc) {
      char msg[sizeof ((tsl_diag *)0)->text];
      snprintf(msg, sizeof msg, "%s", r->diag ? r->diag->text : "it failed");
      return tsl_diag_set(r->diag, rc, "%s: %s", where, msg);
    }
  }
  if (n_out == 1) {
    *out = outs[0];
    return TSL_OK;
  }
  mval *t = new_val(r, MV_TUPLE);
  t->n = n_out;
  t->fields = (const mval **)outs;
  *out = t;
  return TSL_OK;
}

/* An operator with attributes (1.5): its output from the call's struct
 * info, its inputs (concat: the tuple's fields) to model_ops.c. */
static int attr_op_call(run *r, const tsl_rx_expr *e, const char *where, const mval **out) {
  const mval *x;
  int rc = eval(r, e->args[0], where, &x);
  if (rc)
    return rc;
  const char *op = tsl_rx_op_name((tsl_rx_op)e->op);
  const mval *const *fields = e->op == TSL_RX_OP_CONCAT && x->kind == MV_TUPLE ? x->fields : &x;
  uint32_t n = e->op == TSL_RX_OP_CONCAT && x->kind == MV_TUPLE ? x->n : 1;
  const tsl_tensor **in = TSL_NEW_ARRAY(r->arena, const tsl_tensor *, n ? n : 1);
  for (uint32_t i = 0; i < n; i++) {
    if (!tensor_arg(fields[i]))
      return fail(r, TSL_EINVALID, "%s: R.%s takes tensors", where, op);
    in[i] = &fields[i]->t;
  }
  mval *v;
  char what[200];
  snprintf(what, sizeof what, "%s: R.%s", where, op);
  if ((rc = alloc_tensor(r, e->sinfo, what, &v)))
    return rc;
  if (e->op != TSL_RX_OP_CONCAT && e->op != TSL_RX_OP_PERMUTE_DIMS && e->op < TSL_RX_OP_SUM &&
      tsl_tensor_numel(&v->t) != tsl_tensor_numel(in[0]))
    return fail(r, TSL_EINVALID, "%s: R.%s: the result's size differs from the operand's",
                where, op);
  mdl_attr_op((tsl_rx_op)e->op, e->attrs, in, n, &v->t);
  *out = v;
  return TSL_OK;
}

/* A network operator (1.6): every operand a tensor, the outputs (one, or
 * a tuple's) from the call's struct info. */
static int nn_op_call(run *r, const tsl_rx_expr *e, const char *where, const mval **out) {
  const char *op = tsl_rx_op_name((tsl_rx_op)e->op);
  const tsl_tensor **in = TSL_NEW_ARRAY(r->arena, const tsl_tensor *, e->n_args + 1);
  for (uint32_t i = 0; i < e->n_args; i++) {
    const mval *x;
    int rc = eval(r, e->args[i], where, &x);
    if (rc)
      return rc;
    if (!tensor_arg(x))
      return fail(r, TSL_EINVALID, "%s: R.%s takes tensors", where, op);
    in[i] = &x->t;
  }
  char what[200];
  snprintf(what, sizeof what, "%s: R.%s", where, op);
  const tsl_rx_sinfo *s = e->sinfo;
  uint32_t n_out = s->kind == TSL_RX_SINFO_TUPLE ? s->n_fields : 1;
  mval **outs = TSL_NEW_ARRAY(r->arena, mval *, n_out + 1);
  tsl_tensor **ot = TSL_NEW_ARRAY(r->arena, tsl_tensor *, n_out + 1);
  for (uint32_t i = 0; i < n_out; i++) {
    int rc = alloc_tensor(r, s->kind == TSL_RX_SINFO_TUPLE ? s->fields[i] : s, what, &outs[i]);
    if (rc)
      return rc;
    ot[i] = &outs[i]->t;
  }
  if (!mdl_gather_fits((tsl_rx_op)e->op, in, e->n_args, ot[0]))
    return fail(r, TSL_EINVALID, "%s: R.%s: the operands' shapes do not broadcast to the "
                "result", where, op);
  mdl_nn_op((tsl_rx_op)e->op, e->attrs, in, ot, n_out);
  if (s->kind != TSL_RX_SINFO_TUPLE) {
    *out = outs[0];
    return TSL_OK;
  }
  mval *t = new_val(r, MV_TUPLE);
  t->n = n_out;
  t->fields = (const mval **)outs;
  *out = t;
  return TSL_OK;
}

static int op_call(run *r, const tsl_rx_expr *e, const char *where, const mval **out) {
  if (e->op >= TSL_RX_OP_CONV2D && !tsl_rx_op_elementwise((tsl_rx_op)e->op))
    return nn_op_call(r, e, where, out);
  if (e->op >= TSL_RX_OP_ASTYPE && !tsl_rx_op_elementwise((tsl_rx_op)e->op))
    return attr_op_call(r, e, where, out);
  const mval *x, *y = NULL;
  int rc = eval(r, e->args[0], where, &x);
  if (!rc && e->n_args > 1)
    rc = eval(r, e->args[1], where, &y);
  if (rc)
    return rc;
  const char *op = tsl_rx_op_name((tsl_rx_op)e->op);
  if (!tensor_arg(x) || (y && !tensor_arg(y)))
    return fail(r, TSL_EINVALID, "%s: R.%s takes tensors", where, op);
  if (y && !tsl_dtype_eq(x->t.dtype, y->t.dtype))
    return fail(r, TSL_EINVALID, "%s: R.%s: operands of different dtypes", where, op);
  int32_t nd = x->t.ndim;
  int64_t shape[TSL_MAX_NDIM];
  memcpy(shape, x->t.shape, sizeof shape);
  /* matmul: a vector is [1, k] first or [k, 1] second (NumPy), the same
   * bytes; its dimension is dropped from the result (the same bytes too) */
  tsl_tensor a = x->t, b = y ? y->t : x->t;
  const int va = e->op == TSL_RX_OP_MATMUL && a.ndim == 1,
            vb = e->op == TSL_RX_OP_MATMUL && b.ndim == 1;
  if (va) {
    a.shape[1] = a.shape[0];
    a.shape[0] = 1;
    a.ndim = 2;
  }
  if (vb) {
    b.shape[1] = 1;
    b.ndim = 2;
  }
  int ok = e->op == TSL_RX_OP_MATMUL ? mdl_matmul_shape(&a, &b, &nd, shape)
           : y                       ? mdl_broadcast(&x->t, &y->t, &nd, shape)
                                     : 1;
  if (!ok)
    return fail(r, TSL_EINVALID, "%s: R.%s: the operands' shapes do not fit", where, op);
  int64_t full[TSL_MAX_NDIM];
  const int32_t full_nd = nd;
  memcpy(full, shape, sizeof full);
  if (va || vb) { /* [.., m, n] without the vector's 1 */
    nd = 0;
    for (int32_t i = 0; i < full_nd; i++)
      if (!((va && i == full_nd - 2) || (vb && i == full_nd - 1)))
        shape[nd++] = full[i];
  }
  mval *v;
  rc = alloc_shaped(r, x->t.dtype, nd, shape, &v);
  if (rc)
    return rc;
  if (e->op == TSL_RX_OP_MATMUL) {
    tsl_tensor o = v->t;
    o.ndim = full_nd;
    memcpy(o.shape, full, sizeof full);
    mdl_matmul(&a, &b, &o);
  } else {
    mdl_elementwise((tsl_rx_op)e->op, &x->t, y ? &y->t : NULL, &v->t);
  }
  *out = v;
  return TSL_OK;
}

static int eval(run *r, const tsl_rx_expr *e, const char *where, const mval **out) {
  switch (e->kind) {
  case TSL_RX_EXPR_VAR:
    *out = tsl_map_get(&r->vars, e->var);
    return *out ? TSL_OK : fail(r, TSL_EINVALID, "%s: '%s' has no value", where, e->var->name);
  case TSL_RX_EXPR_CONSTANT: {
    char name[64];
    constant_name(name, sizeof name, e->index);
    *out = tsl_map_get(&r->vars, tsl_intern(tsl_arena_ctx(r->arena), name));
    return *out ? TSL_OK : fail(r, TSL_EINVALID, "%s: weight %s is not given", where, name);
  }
  case TSL_RX_EXPR_TUPLE: {
    mval *t = new_val(r, MV_TUPLE);
    const mval **f = TSL_NEW_ARRAY(r->arena, const mval *, e->n_args + 1);
    for (uint32_t i = 0; i < e->n_args; i++) {
      int rc = eval(r, e->args[i], where, &f[i]);
      if (rc)
        return rc;
    }
    t->n = e->n_args;
    t->fields = f;
    *out = t;
    return TSL_OK;
  }
  case TSL_RX_EXPR_TUPLE_GET: {
    const mval *t;
    int rc = eval(r, e->args[0], where, &t);
    if (rc)
      return rc;
    if (t->kind != MV_TUPLE || e->index >= t->n)
      return fail(r, TSL_EINVALID, "%s: a tuple index out of range%s", where, "");
    *out = t->fields[e->index];
    return TSL_OK;
  }
  case TSL_RX_EXPR_CONST: {
    mval *v;
    int64_t none[1] = {1};
    int rc = alloc_shaped(r, e->sinfo->dtype, 0, none, &v);
    if (rc)
      return rc;
    tsl_tensor_set(&v->t, 0, mdl_const_value(e));
    *out = v;
    return TSL_OK;
  }
  case TSL_RX_EXPR_SHAPE: {
    mval *v = new_val(r, MV_SHAPE);
    int64_t *d = TSL_NEW_ARRAY(r->arena, int64_t, e->n_dims + 1);
    for (uint32_t i = 0; i < e->n_dims; i++)
      if (!eval_dim(r, e->dims[i], &d[i]))
        return fail(r, TSL_EINVALID, "%s: R.shape uses a symbolic size no input bound%s", where,
                    "");
    v->n = e->n_dims;
    v->dims = d;
    *out = v;
    return TSL_OK;
  }
  case TSL_RX_EXPR_CALL:
    if (e->op == TSL_RX_OP_CALL_TIR || e->op == TSL_RX_OP_CALL_DPS_PACKED)
      return dps(r, e, where, out);
    return op_call(r, e, where, out);
  default:
    return fail(r, TSL_EUNSUPPORTED, "%s: a function value cannot be computed%s", where, "");
  }
}

/* ---- inputs and outputs ----------------------------------------------------------- */

/* The tensors the model's passes bound, or NULL. */
static const tsl_weights *bound_constants(const tsl_model *m) {
  return m->struct_size > offsetof(tsl_model, constants) ? m->constants : NULL;
}

static int take_input(run *r, const char *name, const tsl_rx_sinfo *s, const void *key) {
  const tsl_weight *w = bound_constants(r->m) ? tsl_weights_find(bound_constants(r->m), name)
                                              : NULL;
  if (!w)
    w = tsl_weights_find(r->inputs, name);
  char what[160];
  snprintf(what, sizeof what, "input '%s'", name);
  if (!w)
    return fail(r, TSL_EINVALID, "%s is not given: pass one tensor per parameter (and weight "
                "relax.expr.Constant.<i>)%s", what, "");
  if (w->ndim > TSL_MAX_NDIM)
    return fail(r, TSL_EUNSUPPORTED, "%s has more dimensions than the interpreter takes%s",
                what, "");
  mval *v;
  int rc = alloc_shaped(r, w->dtype, (int32_t)w->ndim, w->shape, &v);
  if (rc)
    return rc;
  memcpy(v->t.data, w->data, w->nbytes);
  rc = fit(r, s, &v->t, what);
  if (!rc)
    tsl_map_put(&r->vars, key, v);
  return rc;
}

static int add_output(run *r, tsl_weights *w, const char *name, const mval *v) {
  char sub[160];
  if (v->kind == MV_TENSOR)
    return tsl_weights_add(w, name, v->t.dtype, (uint32_t)v->t.ndim, v->t.shape, v->t.data, NULL,
                           r->diag);
  if (v->kind == MV_SHAPE) {
    int64_t n = v->n;
    return tsl_weights_add(w, name, TSL_INT64, 1, &n, v->dims, NULL, r->diag);
  }
  for (uint32_t i = 0; i < v->n; i++) {
    snprintf(sub, sizeof sub, "%s.%u", name, i);
    int rc = add_output(r, w, sub, v->fields[i]);
    if (rc)
      return rc;
  }
  return TSL_OK;
}

static int mark_constant(const tsl_rx_expr *e, void *user_data) {
  if (e->kind == TSL_RX_EXPR_CONSTANT)
    tsl_map_put(user_data, TSL_MAP_KEY(e->index + 1), TSL_MAP_INT(1));
  return 0;
}

static int run_func(run *r, const tsl_rx_func *f, tsl_weights **outputs) {
  int rc = TSL_OK;
  for (uint32_t i = 0; !rc && i < f->n_params; i++)
    rc = take_input(r, f->params[i]->name, f->params[i]->sinfo, f->params[i]);
  for (uint32_t i = 0; !rc && i < f->n_params; i++) { /* sizes bound by later tensors */
    char what[160];
    snprintf(what, sizeof what, "input '%s'", f->params[i]->name);
    const mval *v = tsl_map_get(&r->vars, f->params[i]);
    rc = fit(r, f->params[i]->sinfo, &v->t, what);
  }
  tsl_map referenced; /* the constants f uses: others may be absent */
  tsl_map_init(&referenced, NULL);
  tsl_rx_visit_func(f, mark_constant, &referenced);
  for (uint32_t i = 0; !rc && i < r->m->n_constants; i++) {
    if (!tsl_map_get(&referenced, TSL_MAP_KEY(i + 1)))
      continue;
    char name[64];
    constant_name(name, sizeof name, i);
    static const tsl_rx_sinfo object = {TSL_RX_SINFO_OBJECT, -1, TSL_VOID, NULL, 0, NULL};
    rc = take_input(r, name, &object, tsl_intern(tsl_arena_ctx(r->arena), name));
  }
  tsl_map_free(&referenced);
  for (uint32_t i = 0; !rc && i < tsl_weights_count(r->inputs); i++) {
    const char *name = tsl_weights_at(r->inputs, i)->name;
    int used = 0;
    for (uint32_t k = 0; k < f->n_params; k++)
      used |= !strcmp(f->params[k]->name, name);
    for (uint32_t k = 0; k < r->m->n_constants; k++) {
      char c[64];
      used |= !strcmp(constant_name(c, sizeof c, k), name) &&
              !(bound_constants(r->m) && tsl_weights_find(bound_constants(r->m), name));
    }
    if (!used)
      rc = fail(r, TSL_EINVALID, "input '%s' is neither a parameter of '%s' nor a weight of "
                "the model", name, f->name);
  }
  for (uint32_t b = 0; !rc && b < f->n_blocks; b++)
    for (uint32_t i = 0; !rc && i < f->blocks[b].n_bindings; i++) {
      const tsl_rx_binding *bd = &f->blocks[b].bindings[i];
      char where[160];
      snprintf(where, sizeof where, "%s: %s", f->name, bd->var->name);
      const mval *v;
      rc = eval(r, bd->value, where, &v);
      if (!rc)
        tsl_map_put(&r->vars, bd->var, (void *)v);
    }
  const mval *ret = NULL;
  if (!rc) {
    char where[160];
    snprintf(where, sizeof where, "%s: the returned value", f->name);
    rc = eval(r, f->ret, where, &ret);
  }
  tsl_weights *w = rc ? NULL : tsl_weights_new();
  if (!rc && !w)
    rc = tsl_diag_set(r->diag, TSL_ENOMEM, "out of memory");
  if (!rc)
    rc = add_output(r, w, "output", ret);
  if (rc) {
    tsl_weights_free(w);
    w = NULL;
  }
  *outputs = w;
  return rc;
}

int tsl_model_interp(const tsl_model *m, const char *func, const tsl_weights *inputs,
                     tsl_weights **outputs, tsl_diag *diag) {
  return tsl_model_interp_with(NULL, m, func, inputs, outputs, diag);
}

int tsl_model_interp_with(const tsl_registry *reg, const tsl_model *m, const char *func,
                          const tsl_weights *inputs, tsl_weights **outputs, tsl_diag *diag) {
  if (outputs)
    *outputs = NULL;
  if (!m || !inputs || !outputs)
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_model_interp: model, inputs and outputs must "
                        "not be NULL");
  const tsl_rx_func *f = tsl_model_find(m, func ? func : "main");
  if (!f) {
    char list[256] = "";
    for (uint32_t i = 0; i < m->n_rx_funcs; i++)
      snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
               m->rx_funcs[i]->name);
    return tsl_diag_set(diag, TSL_ENOTFOUND, "the model has no Relax function '%s' (it has: %s)",
                        func ? func : "main", list[0] ? list : "none");
  }
  tsl_ctx *ctx = tsl_arena_ctx(m->arena);
  run r = {.m = m, .arena = tsl_arena_new(ctx), .diag = diag, .inputs = inputs, .reg = reg};
  tsl_vec_init(&r.tensors, sizeof(tsl_tensor), NULL);
  tsl_vec_init(&r.sizes, sizeof(const tsl_var *), NULL);
  tsl_vec_init(&r.values, sizeof(int64_t), NULL);
  tsl_map_init(&r.vars, NULL);
  int rc = run_func(&r, f, outputs);
  for (uint32_t i = 0; i < r.tensors.len; i++)
    tsl_tensor_free(&TSL_VEC_DATA(&r.tensors, tsl_tensor)[i]);
  tsl_vec_free(&r.tensors);
  tsl_vec_free(&r.sizes);
  tsl_vec_free(&r.values);
  tsl_map_free(&r.vars);
  tsl_arena_free(r.arena);
  return rc;
}
