/*
 * core/model/model_aot.c — a Relax function compiled ahead of time
 * (tessel/model.h, tsl_model_aot_build): the bindings walked once into
 * values (inputs, weights, intermediates, outputs), the weights packed into
 * one blob, the intermediates planned (model_plan.c), and the entry
 * prim_func written as TVMScript and parsed beside the kernels.
 */
#include "model_internal.h"

#include "tessel/lower.h"
#include "tessel/relax_build.h"
#include "tessel/script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENTRY "model_main"

typedef struct aot {
  tsl_arena *a;
  tsl_diag *diag;
  const tsl_model *m;
  const tsl_rx_func *f;
  const tsl_weights *weights;
  tsl_map vars;      /* rx var -> mdl_value * */
  tsl_map constants; /* index + 1 -> mdl_value * */
  tsl_vec values;    /* mdl_value * in order of creation */
  tsl_vec calls;     /* mdl_call */
  tsl_vec wts;       /* mdl_value *: the weights in blob order */
  tsl_vec outs;      /* mdl_value *: the outputs in order */
  tsl_strbuf names;  /* ",name," list of names taken in the entry */
} aot;

static int fail(aot *c, int code, const char *fmt, const char *x, const char *y) {
  return tsl_diag_set(c->diag, code, fmt, x, y);
}

/* ---- values ---------------------------------------------------------------- */

static mdl_value *new_value(aot *c, int kind, const tsl_rx_sinfo *si, const char *name) {
  mdl_value *v = TSL_NEW(c->a, mdl_value);
  memset(v, 0, sizeof *v);
  v->kind = kind;
  v->si = si;
  v->name = name;
  v->def = v->last = -1;
  TSL_VEC_PUSH(&c->values, mdl_value *, v);
  return v;
}

static int tensor_sinfo(const tsl_rx_sinfo *s) {
  return s && s->kind == TSL_RX_SINFO_TENSOR && s->shape && s->ndim >= 0 &&
         !tsl_dtype_is_void(s->dtype);
}

/* A name for the entry that no other parameter, size or buffer has. */
static const char *entry_name(aot *c, const char *want) {
  char buf[300];
  snprintf(buf, sizeof buf, "%s", want);
  for (int k = 1;; k++) {
    char key[310];
    snprintf(key, sizeof key, ",%s,", buf);
    if (!strstr(c->names.data ? c->names.data : "", key))
      break;
    snprintf(buf, sizeof buf, "%s_%d", want, k);
  }
  tsl_strbuf_printf(&c->names, "%s,", buf);
  return tsl_arena_strdup(c->a, buf);
}

static mdl_value *weight_value(aot *c, const tsl_weight *w, const char *name) {
  mdl_value *v = new_value(c, MDL_WEIGHT, NULL, name);
  v->weight = w;
  TSL_VEC_PUSH(&c->wts, mdl_value *, v);
  return v;
}

static int constant(aot *c, uint32_t index, mdl_value **out) {
  mdl_value *v = tsl_map_get(&c->constants, TSL_MAP_KEY(index + 1));
  if (v) {
    *out = v;
    return TSL_OK;
  }
  char name[64];
  snprintf(name, sizeof name, "relax.expr.Constant.%u", index);
  const tsl_weights *bound = c->m->struct_size > offsetof(tsl_model, constants)
                                 ? c->m->constants : NULL;
  const tsl_weight *w = bound ? tsl_weights_find(bound, name) : NULL;
  if (!w && c->weights)
    w = tsl_weights_find(c->weights, name);
  if (!w)
    return fail(c, TSL_EINVALID, "weight %s (metadata[\"relax.expr.Constant\"][%s]) is not "
                "given: pass the weights file, or bind them with the pass bind_params",
                name, strrchr(name, '.') + 1);
  *out = weight_value(c, w, tsl_arena_strdup(c->a, name));
  tsl_map_put(&c->constants, TSL_MAP_KEY(index + 1), *out);
  return TSL_OK;
}

/* R.const(v, dtype): a scalar weight of its own in the blob. */
static int scalar_const(aot *c, const tsl_rx_expr *e, mdl_value **out) {
  tsl_weight *w = TSL_NEW(c->a, tsl_weight);
  memset(w, 0, sizeof *w);
  tsl_tensor t;
  int64_t none[1] = {1};
  tsl_diag d = {0};
  if (tsl_tensor_alloc(&t, e->sinfo->dtype, 0, none, &d))
    return tsl_diag_set(c->diag, TSL_ENOMEM, "%s", d.text);
  tsl_tensor_set(&t, 0, mdl_const_value(e));
  size_t bytes = tsl_dtype_bytes(t.dtype);
  void *data = tsl_arena_dup(c->a, t.data, bytes);
  tsl_tensor_free(&t);
  char name[64];
  snprintf(name, sizeof name, "const.%u", c->wts.len);
  w->struct_size = sizeof *w;
  w->name = tsl_arena_strdup(c->a, name);
  w->dtype = e->sinfo->dtype;
  static const int64_t no_dims[1] = {0};
  w->shape = no_dims;
  w->data = data;
  w->numel = 1;
  w->nbytes = bytes;
  *out = weight_value(c, w, w->name);
  (*out)->si = e->sinfo;
  return TSL_OK;
}

/* The value of an operand: a variable's, a constant's, a tuple's or an
 * item of one. */
static int operand(aot *c, const tsl_rx_expr *e, const char *where, mdl_value **out) {
  switch (e->kind) {
  case TSL_RX_EXPR_VAR:
    *out = tsl_map_get(&c->vars, e->var);
    return *out ? TSL_OK : fail(c, TSL_EINVALID, "%s: '%s' has no value", where, e->var->name);
  case TSL_RX_EXPR_CONSTANT:
    return constant(c, e->index, out);
  case TSL_RX_EXPR_CONST:
    return scalar_const(c, e, out);
  case TSL_RX_EXPR_TUPLE: {
    mdl_value *t = new_value(c, MDL_TUPLE, e->sinfo, NULL);
    t->n_fields = e->n_args;
    t->fields = TSL_NEW_ARRAY(c->a, mdl_value *, e->n_args + 1);
    for (uint32_t i = 0; i < e->n_args; i++) {
      int rc = operand(c, e->args[i], where, &t->fields[i]);
      if (rc)
        return rc;
    }
    *out = t;
    return TSL_OK;
  }
  case TSL_RX_EXPR_TUPLE_GET: {
    mdl_value *t;
    int rc = operand(c, e->args[0], where, &t);
    if (rc)
      return rc;
    if (t->kind != MDL_TUPLE || e->index >= t->n_fields)
      return fail(c, TSL_EINVALID, "%s: a tuple item out of range%s", where, "");
    *out = t->fields[e->index];
    return TSL_OK;
  }
  case TSL_RX_EXPR_CALL:
    if (e->op == TSL_RX_OP_CALL_DPS_PACKED)
      return fail(c, TSL_EUNSUPPORTED, "%s: R.call_dps_packed(\"%s\") cannot be compiled: "
                  "library functions run in the reference interpreter only, unless they bring "
                  "a prim_func the pass legalize turns their calls into (tessel/library.h)",
                  where, e->args[0]->name);
    return fail(c, TSL_EUNSUPPORTED, "%s: R.%s is not compiled: the compiled path runs "
                "R.call_tir only; legalize the model first (--passes legalize,fuse)",
                where, tsl_rx_op_name((tsl_rx_op)e->op));
  default:
    return fail(c, TSL_EUNSUPPORTED, "%s: a shape or function value cannot be compiled%s",
                where, "");
  }
}

static void use(mdl_value *v, int32_t at) {
  if (v->kind == MDL_TUPLE) {
    for (uint32_t i = 0; i < v->n_fields; i++)
      use(v->fields[i], at);
    return;
  }
  if (at > v->last)
    v->last = at;
}

/* R.call_tir(cls.k, (args), out_sinfo): a call of the entry. */
static int call_tir(aot *c, const tsl_rx_expr *e, const char *where, int32_t at,
                    mdl_value **out) {
  mdl_call call = {.at = at, .where = tsl_arena_strdup(c->a, where)};
  const tsl_rx_expr *callee = e->args[0], *args = e->args[1];
  /* cls.f, or a prim_func named by R.call_dps_packed("f", ...) */
  call.kernel = callee->name && c->m->tir ? tsl_module_find(c->m->tir, callee->name) : NULL;
  if (!call.kernel)
    return fail(c, TSL_EUNSUPPORTED, "%s: R.call_tir of '%s', which is not a prim_func of the "
                "model (a library function compiles only when it brings a prim_func the pass "
                "legalize turns its calls into: tessel/library.h)", where,
                callee->name ? callee->name : "?");
  mdl_value *in;
  int rc = operand(c, args, where, &in);
  if (rc)
    return rc;
  uint32_t n_in = in->kind == MDL_TUPLE ? in->n_fields : 1;
  call.n_args = n_in + e->n_sinfo_args;
  call.args = TSL_NEW_ARRAY(c->a, mdl_value *, call.n_args + 1);
  for (uint32_t i = 0; i < n_in; i++) {
    mdl_value *v = in->kind == MDL_TUPLE ? in->fields[i] : in;
    if (v->kind == MDL_TUPLE)
      return fail(c, TSL_EUNSUPPORTED, "%s: an operand of the call is a tuple%s", where, "");
    call.args[i] = v;
    use(v, at);
  }
  for (uint32_t i = 0; i < e->n_sinfo_args; i++) {
    if (!tensor_sinfo(e->sinfo_args[i]))
      return fail(c, TSL_EUNSUPPORTED, "%s: an output of the call has no dtype and shape%s",
                  where, "");
    mdl_value *o = new_value(c, MDL_INTER, e->sinfo_args[i], NULL);
    o->def = o->last = at;
    call.args[n_in + i] = o;
  }
  call.n_in = n_in;
  TSL_VEC_PUSH(&c->calls, mdl_call, call);
  if (e->n_sinfo_args == 1) {
    *out = call.args[n_in];
    return TSL_OK;
  }
  mdl_value *t = new_value(c, MDL_TUPLE, e->sinfo, NULL);
  t->n_fields = e->n_sinfo_args;
  t->fields = call.args + n_in;
  *out = t;
  return TSL_OK;
}

/* R.call_tir, or R.call_dps_packed of a prim_func of the model by name. */
static int is_kernel_call(const aot *c, const tsl_rx_expr *e) {
  if (e->kind != TSL_RX_EXPR_CALL)
    return 0;
  return e->op == TSL_RX_OP_CALL_TIR ||
         (e->op == TSL_RX_OP_CALL_DPS_PACKED && c->m->tir && e->args[0]->name &&
          tsl_module_find(c->m->tir, e->args[0]->name));
}

static int walk(aot *c) {
  const tsl_rx_func *f = c->f;
  for (uint32_t i = 0; i < f->n_params; i++) {
    const tsl_rx_var *p = f->params[i];
    const tsl_weight *w = c->weights ? tsl_weights_find(c->weights, p->name) : NULL;
    if (!tensor_sinfo(p->sinfo))
      return fail(c, TSL_EUNSUPPORTED, "parameter '%s' is not a tensor of known dtype and "
                  "rank; the compiled path takes tensors%s", p->name, "");
    mdl_value *v = w ? weight_value(c, w, p->name) : new_value(c, MDL_INPUT, p->sinfo, p->name);
    if (w) {
      char msg[200];
      tsl_dtype_str(p->sinfo->dtype, msg);
      int ok = tsl_dtype_eq(w->dtype, p->sinfo->dtype) && (int32_t)w->ndim == p->sinfo->ndim;
      for (int32_t d = 0; ok && d < p->sinfo->ndim; d++)
        ok = p->sinfo->shape[d]->kind != TSL_EXPR_INT_IMM ||
             p->sinfo->shape[d]->u.int_value == w->shape[d];
      if (!ok)
        return fail(c, TSL_EINVALID, "weight '%s' does not fit the parameter's struct info "
                    "(dtype %s, rank and constant sizes)", p->name, msg);
      v->si = p->sinfo;
    }
    tsl_map_put(&c->vars, p, v);
  }
  int32_t at = 0;
  for (uint32_t b = 0; b < f->n_blocks; b++)
    for (uint32_t i = 0; i < f->blocks[b].n_bindings; i++, at++) {
      const tsl_rx_binding *bd = &f->blocks[b].bindings[i];
      char where[200];
      snprintf(where, sizeof where, "%s: %s", f->name, bd->var->name);
      const tsl_rx_expr *e = bd->value;
      mdl_value *v;
      int rc = is_kernel_call(c, e) ? call_tir(c, e, where, at, &v) : operand(c, e, where, &v);
      if (rc)
        return rc;
      tsl_map_put(&c->vars, bd->var, v);
    }
  char where[200];
  snprintf(where, sizeof where, "%s: the returned value", f->name);
  mdl_value *r;
  const tsl_rx_expr *ret = f->ret;
  int rc = is_kernel_call(c, ret) ? call_tir(c, ret, where, at, &r) /* `return R.call_tir(...)` */
                                  : operand(c, ret, where, &r);
  if (rc)
    return rc;
  /* the returned tensors, nested tuples flattened in order */
  mdl_value *stack[64];
  uint32_t sp = 0;
  stack[sp++] = r;
  tsl_vec order;
  tsl_vec_init(&order, sizeof(mdl_value *), c->a);
  while (sp) {
    mdl_value *v = stack[--sp];
    if (v->kind == MDL_TUPLE) {
      for (uint32_t k = v->n_fields; k-- > 0;)
        if (sp < 64)
          stack[sp++] = v->fields[k];
      continue;
    }
    TSL_VEC_PUSH(&order, mdl_value *, v);
  }
  for (uint32_t k = 0; k < order.len; k++) {
    mdl_value *v = TSL_VEC_AT(&order, mdl_value *, k);
    if (v->kind != MDL_INTER)
      return fail(c, TSL_EUNSUPPORTED, "%s: the compiled path returns tensors its calls make; "
                  "this one is %s", where,
                  v->kind == MDL_OUTPUT ? "returned twice" : v->kind == MDL_INPUT ? "an input"
                                                                                  : "a weight");
    v->kind = MDL_OUTPUT;
    v->index = (int32_t)k;
    TSL_VEC_PUSH(&c->outs, mdl_value *, v);
  }
  return TSL_OK;
}

/* ---- the weights blob ----------------------------------------------------------- */

static void pack_weights(aot *c, tsl_model_aot *out) {
  uint64_t off = 0;
  tsl_model_tensor *t = TSL_NEW_ARRAY(c->a, tsl_model_tensor, c->wts.len + 1);
  for (uint32_t i = 0; i < c->wts.len; i++) {
    mdl_value *v = TSL_VEC_AT(&c->wts, mdl_value *, i);
    v->offset = off;
    const tsl_weight *w = v->weight;
    const tsl_expr **shape = TSL_NEW_ARRAY(c->a, const tsl_expr *, w->ndim + 1);
    for (uint32_t d = 0; d < w->ndim; d++)
      shape[d] = tsl_expr_int(c->a, TSL_INT64, w->shape[d]);
    t[i] = (tsl_model_tensor){sizeof *t, v->name, w->dtype, (int32_t)w->ndim, shape, off,
                              w->nbytes};
    off += (w->nbytes + 63) / 64 * 64;
  }
  uint8_t *raw = off ? tsl_arena_alloc(c->a, off + 64) : NULL;
  uint8_t *blob = raw ? (uint8_t *)(((uintptr_t)raw + 63) & ~(uintptr_t)63) : NULL;
  if (blob)
    memset(blob, 0, off);
  for (uint32_t i = 0; blob && i < c->wts.len; i++)
    memcpy(blob + t[i].offset, t[i].nbytes ? TSL_VEC_AT(&c->wts, mdl_value *, i)->weight->data
                                            : blob, t[i].nbytes);
  out->n_weights = c->wts.len;
  out->weights = t;
  out->weights_data = blob;
  out->weights_bytes = off;
}

/* ---- the entry ------------------------------------------------------------------- */

static void print_expr(tsl_strbuf *sb, const tsl_expr *e) {
  char *s = tsl_print_expr(e);
  tsl_strbuf_append(sb, s ? s : "?");
  free(s);
}

static void print_shape(tsl_strbuf *sb, const tsl_rx_sinfo *s) {
  tsl_strbuf_append(sb, "(");
  for (int32_t d = 0; d < s->ndim; d++) {
    if (d)
      tsl_strbuf_append(sb, ", ");
    print_expr(sb, s->shape[d]);
  }
  tsl_strbuf_append(sb, s->ndim == 1 ? ",)" : ")");
}

/* The pointer the entry passes for value v. */
static void pointer(tsl_strbuf *sb, const mdl_value *v) {
  if (v->kind == MDL_INPUT || v->kind == MDL_OUTPUT)
    tsl_strbuf_printf(sb, "%s.data", v->name);
  else if (v->kind == MDL_WEIGHT)
    tsl_strbuf_printf(sb, "T.address_of(weights[T.int64(%llu)])", (unsigned long long)v->offset);
  else
    tsl_strbuf_printf(sb, "T.address_of(workspace[%s])", v->slot_offset);
}

/* One kernel call: pointers, then the kernel's sizes from the shapes it
 * is called with. */
static int emit_call(aot *c, tsl_strbuf *sb, const mdl_call *k) {
  const tsl_func *kf = k->kernel;
  uint32_t n_buf = 0;
  for (uint32_t i = 0; i < kf->n_params; i++) {
    if (!kf->params[i].buffer)
      return fail(c, TSL_EUNSUPPORTED, "%s: prim_func '%s' has a scalar parameter; the "
                  "compiled path passes tensors only", k->where, kf->name);
    n_buf++;
  }
  if (n_buf != k->n_args)
    return fail(c, TSL_EINVALID, "%s: prim_func '%s' takes a different number of tensors",
                k->where, kf->name);
  tsl_strbuf_printf(sb, "        T.evaluate(T.call_extern(\"int32\", \"%s\"", kf->name);
  for (uint32_t i = 0; i < k->n_args; i++) {
    tsl_strbuf_append(sb, ", ");
    pointer(sb, k->args[i]);
  }
  const tsl_var *const *sizes;
  uint32_t n_sizes = tsl_func_size_vars(c->a, kf, &sizes);
  for (uint32_t s = 0; s < n_sizes; s++) {
    const tsl_var *v = sizes[s];
    const tsl_expr *val = NULL;
    for (uint32_t i = 0; !val && i < kf->n_params; i++) {
      const tsl_buffer *b = kf->params[i].buffer;
      const tsl_rx_sinfo *si = k->args[i]->si;
      for (uint32_t d = 0; !val && si && d < b->ndim && (int32_t)d < si->ndim; d++)
        if (b->shape[d]->kind == TSL_EXPR_VAR && b->shape[d]->u.var == v)
          val = si->shape[d];
    }
    if (!val)
      return fail(c, TSL_EUNSUPPORTED, "%s: the size '%s' of the prim_func is no dimension of "
                  "a buffer, so the call cannot bind it", k->where, v->name);
    tsl_strbuf_append(sb, ", ");
    print_expr(sb, val);
  }
  tsl_strbuf_append(sb, "))\n");
  return TSL_OK;
}

static void param_decl(tsl_strbuf *sig, tsl_strbuf *body, const mdl_value *v, int handles) {
  char dt[32];
  tsl_dtype_str(v->si->dtype, dt);
  if (!handles) {
    tsl_strbuf_printf(sig, "%s: T.Buffer(", v->name);
    print_shape(sig, v->si);
    tsl_strbuf_printf(sig, ", \"%s\"), ", dt);
    return;
  }
  tsl_strbuf_printf(sig, "%s_handle: T.handle, ", v->name);
  tsl_strbuf_printf(body, "        %s = T.match_buffer(%s_handle, ", v->name, v->name);
  print_shape(body, v->si);
  tsl_strbuf_printf(body, ", \"%s\")\n", dt);
}

static int entry(aot *c, tsl_model_aot *out, const char *workspace, char **text) {
  const tsl_rx_func *f = c->f;
  tsl_strbuf sig, body;
  tsl_strbuf_init(&sig);
  tsl_strbuf_init(&body);
  int handles = f->n_size_vars > 0;
  for (uint32_t i = 0; i < f->n_size_vars; i++)
    entry_name(c, f->size_vars[i]->name);
  entry_name(c, "weights");
  entry_name(c, "workspace");
  for (uint32_t i = 0; i < c->values.len; i++) {
    mdl_value *v = TSL_VEC_AT(&c->values, mdl_value *, i);
    if (v->kind == MDL_INPUT)
      v->name = entry_name(c, v->name);
  }
  for (uint32_t k = 0; k < c->outs.len; k++) {
    char want[32];
    snprintf(want, sizeof want, c->outs.len == 1 ? "output" : "output_%u", k);
    TSL_VEC_AT(&c->outs, mdl_value *, k)->name = entry_name(c, want);
  }
  tsl_strbuf_printf(&sig, "    @T.prim_func\n    def %s(", ENTRY);
  for (uint32_t i = 0; i < f->n_size_vars; i++)
    tsl_strbuf_printf(&body, "        %s = T.int64()\n", f->size_vars[i]->name);
  for (uint32_t i = 0; i < c->values.len; i++) {
    mdl_value *v = TSL_VEC_AT(&c->values, mdl_value *, i);
    if (v->kind == MDL_INPUT)
      param_decl(&sig, &body, v, handles);
  }
  for (uint32_t k = 0; k < c->outs.len; k++)
    param_decl(&sig, &body, TSL_VEC_AT(&c->outs, mdl_value *, k), handles);
  if (out->weights_bytes)
    tsl_strbuf_printf(&sig, "weights: T.Buffer((T.int64(%llu),), \"uint8\"), ",
                      (unsigned long long)out->weights_bytes);
  sig.len -= 2; /* the last ", " */
  sig.data[sig.len] = '\0';
  tsl_strbuf_append(&sig, "):\n        T.func_attr({\"tir.noalias\": T.bool(True)})\n");
  if (out->n_slots)
    tsl_strbuf_printf(&body, "        workspace = T.alloc_buffer((%s,), \"uint8\")\n",
                      workspace);
  int rc = TSL_OK;
  for (uint32_t k = 0; !rc && k < c->calls.len; k++)
    rc = emit_call(c, &body, &TSL_VEC_AT(&c->calls, mdl_call, k));
  if (!c->calls.len)
    tsl_strbuf_append(&body, "        T.evaluate(0)\n");
  tsl_strbuf_append(&sig, body.data ? body.data : "");
  tsl_strbuf_free(&body);
  *text = tsl_strbuf_take(&sig);
  return rc;
}

/* ---- the result ------------------------------------------------------------------- */

/* The entry's buffers as the result's inputs and outputs: its parameters
 * are the inputs, the outputs, then the weights. */
static void io_of(aot *c, const tsl_func *e, tsl_model_aot *out) {
  uint32_t n_out = c->outs.len, n_in = 0;
  for (uint32_t i = 0; i < e->n_params; i++)
    n_in += e->params[i].buffer != NULL;
  n_in -= n_out + (out->weights_bytes ? 1 : 0);
  tsl_model_tensor *t = TSL_NEW_ARRAY(c->a, tsl_model_tensor, n_in + n_out + 1);
  uint32_t k = 0;
  for (uint32_t i = 0; i < e->n_params && k < n_in + n_out; i++) {
    const tsl_buffer *b = e->params[i].buffer;
    if (b)
      t[k++] = (tsl_model_tensor){sizeof *t, b->name, b->dtype, (int32_t)b->ndim, b->shape, 0, 0};
  }
  out->n_inputs = n_in;
  out->inputs = t;
  out->n_outputs = n_out;
  out->outputs = t + n_in;
  out->n_size_vars = tsl_func_size_vars(c->a, e, &out->size_vars);
}

int tsl_model_aot_build(tsl_arena *a, const tsl_model *m, const char *func,
                        const tsl_weights *weights, const tsl_model_aot **out,
                        tsl_diag *diag) {
  if (out)
    *out = NULL;
  if (!a || !m || !out)
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_model_aot_build: arena, model and out must not "
                        "be NULL");
  const tsl_rx_func *f = tsl_model_find(m, func ? func : "main");
  if (!f)
    return tsl_diag_set(diag, TSL_ENOTFOUND, "the model has no Relax function '%s'",
                        func ? func : "main");
  if (m->tir && tsl_module_find(m->tir, ENTRY))
    return tsl_diag_set(diag, TSL_EINVALID, "the model has a prim_func named '%s', the name of "
                        "the compiled entry; rename it", ENTRY);
  aot c = {.a = a, .diag = diag, .m = m, .f = f, .weights = weights};
  tsl_map_init(&c.vars, a);
  tsl_map_init(&c.constants, a);
  tsl_vec_init(&c.values, sizeof(mdl_value *), a);
  tsl_vec_init(&c.calls, sizeof(mdl_call), a);
  tsl_vec_init(&c.wts, sizeof(mdl_value *), a);
  tsl_vec_init(&c.outs, sizeof(mdl_value *), a);
  tsl_strbuf_init(&c.names);
  tsl_strbuf_append(&c.names, ",");
  tsl_model_aot *r = TSL_NEW(a, tsl_model_aot);
  memset(r, 0, sizeof *r);
  r->struct_size = sizeof *r;
  r->entry = ENTRY;
  char *text = NULL;
  int rc = walk(&c);
  if (!rc) {
    pack_weights(&c, r);
    mdl_plan plan;
    mdl_plan_run(a, (mdl_value *const *)c.values.data, c.values.len, &plan);
    r->n_calls = c.calls.len;
    r->n_intermediates = plan.n_intermediates;
    r->n_slots = plan.n_slots;
    r->planned_bytes = plan.planned_bytes;
    r->unplanned_bytes = plan.unplanned_bytes;
    rc = entry(&c, r, plan.workspace_expr, &text);
  }
  const tsl_module *em = NULL;
  if (!rc) {
    char *src = NULL;
    size_t n = strlen(text) + 64;
    src = malloc(n);
    snprintf(src, n, "@I.ir_module\nclass Entry:\n%s", text);
    tsl_diag d = {0};
    if (tsl_parse(a, "<compiled entry>", src, strlen(src), &em, &d))
      rc = tsl_diag_set(diag, TSL_EINVALID, "the compiled entry does not parse (a bug): %s\n%s",
                        d.text, src);
    free(src);
  }
  free(text);
  tsl_strbuf_free(&c.names);
  if (rc)
    return rc;
  const tsl_func *ef = em->funcs[0];
  const tsl_module *all = m->tir;
  r->module = all ? tsl_module_with(a, all, ef) : em;
  io_of(&c, ef, r);
  *out = r;
  return TSL_OK;
}

int tsl_model_aot_shape(const tsl_model_aot *aot, const tsl_model_tensor *t,
                        const int64_t *sizes, int64_t *out) {
  if (!aot || !t || !out || (aot->n_size_vars && !sizes))
    return TSL_EINVALID;
  for (int32_t d = 0; d < t->ndim; d++)
    if (!mdl_eval_dim(t->shape[d], aot->n_size_vars, aot->size_vars, sizes, &out[d]) ||
        out[d] < 0)
      return TSL_EINVALID;
  return TSL_OK;
}
