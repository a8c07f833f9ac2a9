/*
 * The ONNX importer (tessel/onnx.h): the file unpacked by protobuf-c and
 * checked (operator set, graph), graph inputs and initializers as values,
 * each node converted in order (onnx_ops.c), then `main` built from the
 * parameters the conversion used and the bindings it made.
 */
#include "onnx_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessel/pass.h"

enum { OX_OPSET_MIN = 11, OX_OPSET_MAX = 20 };

int ox_fail(ox_ctx *c, int status, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  c->status = status;
  if (c->node)
    return tsl_diag_set(c->diag, status, "%s: node %u '%s' (%s): %s", c->file, c->node_index,
                        c->node->name && *c->node->name ? c->node->name : "",
                        c->node->op_type ? c->node->op_type : "?", msg);
  return tsl_diag_set(c->diag, status, "%s: %s", c->file, msg);
}

/* ---- names -------------------------------------------------------------- */

static tsl_str unique(ox_ctx *c, const char *base) {
  char name[256];
  snprintf(name, sizeof name, "%s", base);
  for (uint32_t k = 1; tsl_map_get(&c->names, tsl_intern(tsl_arena_ctx(c->a), name)); k++)
    snprintf(name, sizeof name, "%s_%u", base, k);
  tsl_str s = tsl_intern(tsl_arena_ctx(c->a), name);
  tsl_map_put(&c->names, s, TSL_MAP_INT(1));
  return s;
}

/* An ONNX name as a Python identifier the printer and parser accept. */
static tsl_str identifier(ox_ctx *c, const char *onnx) {
  static const char *const reserved[] = {"R", "T", "I", "cls", "metadata", "main", "lv", NULL};
  char buf[200];
  size_t n = 0;
  int prefix = !onnx[0] || (onnx[0] >= '0' && onnx[0] <= '9');
  for (int i = 0; reserved[i]; i++)
    prefix |= !strcmp(onnx, reserved[i]) || !strncmp(onnx, "lv", 2);
  if (prefix)
    n = (size_t)snprintf(buf, sizeof buf, "v_");
  for (const char *p = onnx; *p && n + 1 < sizeof buf; p++) {
    char ch = *p;
    int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
    buf[n++] = ok ? ch : '_';
  }
  buf[n] = '\0';
  return unique(c, buf);
}

static tsl_str fresh(ox_ctx *c) {
  char name[32];
  tsl_str s;
  do {
    if (c->next_lv)
      snprintf(name, sizeof name, "lv%u", c->next_lv);
    else
      snprintf(name, sizeof name, "lv");
    c->next_lv++;
    s = tsl_intern(tsl_arena_ctx(c->a), name);
  } while (tsl_map_get(&c->names, s));
  tsl_map_put(&c->names, s, TSL_MAP_INT(1));
  return s;
}

/* ---- values ------------------------------------------------------------- */

static ox_value *value_of(ox_ctx *c, const char *name) {
  return tsl_map_get(&c->values, tsl_intern(tsl_arena_ctx(c->a), name));
}

static ox_value *new_value(ox_ctx *c, const char *name) {
  ox_value *v = TSL_NEW(c->a, ox_value);
  v->onnx_name = tsl_intern(tsl_arena_ctx(c->a), name);
  tsl_map_put(&c->values, v->onnx_name, v);
  return v;
}

static const tsl_rx_sinfo *sinfo_of(ox_ctx *c, tsl_dtype dt, uint32_t ndim,
                                    const int64_t *shape) {
  const tsl_expr *dims[TSL_WEIGHTS_MAX_NDIM + 1];
  for (uint32_t d = 0; d < ndim; d++)
    dims[d] = tsl_expr_int(c->a, TSL_INT64, shape[d]);
  return tsl_rx_tensor_sinfo(c->a, dt, (int32_t)ndim, dims);
}

const tsl_rx_expr *ox_const(ox_ctx *c, tsl_dtype dt, double f, int64_t i) {
  tsl_rx_expr *e = TSL_NEW(c->a, tsl_rx_expr);
  const tsl_expr **d = TSL_NEW_ARRAY(c->a, const tsl_expr *, 1);
  d[0] = tsl_dtype_is_float(dt) ? tsl_expr_float(c->a, dt, f) : tsl_expr_int(c->a, dt, i);
  e->kind = TSL_RX_EXPR_CONST;
  e->dims = d;
  e->n_dims = 1;
  e->sinfo = tsl_rx_tensor_sinfo(c->a, dt, 0, d);
  return e;
}

/* R.const(v, dtype) of a 0-d tensor's value (NULL for other dtypes) */
static const tsl_rx_expr *scalar_const(ox_ctx *c, const tsl_weight *w) {
  double f = 0;
  int64_t i = 0;
  const unsigned char *p = w->data;
  if (tsl_dtype_eq(w->dtype, TSL_FLOAT32)) {
    float x;
    memcpy(&x, p, 4);
    f = x;
  } else if (tsl_dtype_eq(w->dtype, TSL_FLOAT64)) {
    memcpy(&f, p, 8);
  } else if (tsl_dtype_eq(w->dtype, TSL_INT64)) {
    memcpy(&i, p, 8);
  } else if (tsl_dtype_eq(w->dtype, TSL_INT32)) {
    int32_t x;
    memcpy(&x, p, 4);
    i = x;
  } else {
    return NULL;
  }
  return ox_const(c, w->dtype, f, i);
}

int ox_has_input(ox_ctx *c, uint32_t i) {
  return i < c->node->n_input && c->node->input[i] && c->node->input[i][0];
}

const tsl_weight *ox_input_data(ox_ctx *c, uint32_t i) {
  ox_value *v = ox_has_input(c, i) ? value_of(c, c->node->input[i]) : NULL;
  return v ? v->data : NULL;
}

int32_t ox_input_dims(ox_ctx *c, uint32_t i, const tsl_expr **out, uint32_t cap, int *rank) {
  ox_value *v = ox_has_input(c, i) ? value_of(c, c->node->input[i]) : NULL;
  if (v && v->dims) {
    if (v->n_dims > cap)
      return -1;
    memcpy(out, v->dims, v->n_dims * sizeof *out);
    if (rank)
      *rank = v->dims_rank;
    return (int32_t)v->n_dims;
  }
  const tsl_weight *w = v ? v->data : NULL;
  if (!w || w->ndim > 1 || w->numel > cap ||
      (!tsl_dtype_eq(w->dtype, TSL_INT64) && !tsl_dtype_eq(w->dtype, TSL_INT32)))
    return -1;
  for (uint64_t k = 0; k < w->numel; k++) {
    int64_t x;
    if (w->dtype.bits == 64) {
      memcpy(&x, (const char *)w->data + 8 * k, 8);
    } else {
      int32_t y;
      memcpy(&y, (const char *)w->data + 4 * k, 4);
      x = y;
    }
    out[k] = tsl_expr_int(c->a, TSL_INT64, x);
  }
  if (rank)
    *rank = (int)w->ndim;
  return (int32_t)w->numel;
}

int ox_set_output_dims(ox_ctx *c, uint32_t i, int rank, uint32_t n, const tsl_expr *const *dims) {
  int64_t known[64];
  int all = n <= 64;
  for (uint32_t k = 0; all && k < n; k++)
    all = tsl_expr_is_const_int(dims[k], &known[k]);
  int64_t len = n;
  if (all)
    return ox_set_output_data(c, i, TSL_INT64, (uint32_t)rank, &len, known);
  if (i >= c->node->n_output || !c->node->output[i][0])
    return TSL_OK;
  const char *name = c->node->output[i];
  if (value_of(c, name))
    return ox_fail(c, TSL_EINVALID, "output '%s' is produced twice", name);
  ox_value *v = new_value(c, name);
  v->dims = tsl_arena_dup(c->a, dims, (n ? n : 1) * sizeof *dims);
  v->n_dims = n;
  v->dims_rank = rank;
  return TSL_OK;
}

const tsl_rx_expr *ox_input(ox_ctx *c, uint32_t i) {
  if (!ox_has_input(c, i)) {
    ox_fail(c, TSL_EINVALID, "input %u is missing", i);
    return NULL;
  }
  ox_value *v = value_of(c, c->node->input[i]);
  if (!v) {
    ox_fail(c, TSL_EINVALID, "input '%s' is neither a graph input, an initializer nor an "
            "earlier node's output (nodes must be in topological order)", c->node->input[i]);
    return NULL;
  }
  if (v->expr)
    return v->expr;
  if (v->dims) {
    ox_fail(c, TSL_EUNSUPPORTED, "input '%s' holds sizes computed from symbolic dimensions "
            "(Shape); Reshape, Expand and the shape arithmetic read them, a tensor operand "
            "cannot", c->node->input[i]);
    return NULL;
  }
  const tsl_weight *w = v->data;
  if (w->ndim == 0 && (v->expr = scalar_const(c, w)))
    return v->expr;
  /* a weight: a parameter of main (or a bound constant), its tensor in the
   * weights */
  char cname[64];
  snprintf(cname, sizeof cname, "relax.expr.Constant.%u", c->n_constants);
  tsl_str name = c->bind ? cname : identifier(c, v->onnx_name);
  tsl_diag d = {0};
  if (tsl_weights_add(c->weights, name, w->dtype, w->ndim, w->shape, w->data, NULL, &d)) {
    ox_fail(c, TSL_EINVALID, "weight '%s': %s", v->onnx_name, d.text);
    return NULL;
  }
  const tsl_rx_sinfo *s = sinfo_of(c, w->dtype, w->ndim, w->shape);
  if (c->bind) {
    v->expr = tsl_rx_constant(c->a, c->n_constants++, s);
    return v->expr;
  }
  const tsl_rx_var *p = tsl_rx_var_new(c->a, name, s, 0);
  TSL_VEC_PUSH(&c->params, const tsl_rx_var *, p);
  v->expr = tsl_rx_var_ref(c->a, p);
  return v->expr;
}

static int is_output(ox_ctx *c, const char *onnx) {
  return tsl_map_get(&c->outputs, tsl_intern(tsl_arena_ctx(c->a), onnx)) != NULL;
}

static const tsl_rx_expr *bind_as(ox_ctx *c, const tsl_rx_expr *value, int dataflow) {
  const tsl_rx_var *v = tsl_rx_var_new(c->a, fresh(c), value->sinfo, dataflow);
  TSL_VEC_PUSH(&c->bindings, tsl_rx_binding, ((tsl_rx_binding){v, value}));
  return tsl_rx_var_ref(c->a, v);
}

const tsl_rx_expr *ox_bind(ox_ctx *c, const tsl_rx_expr *value) {
  return value ? bind_as(c, value, 1) : NULL;
}

int ox_set_output(ox_ctx *c, uint32_t i, const tsl_rx_expr *e) {
  if (!e)
    return c->status ? c->status : ox_fail(c, TSL_EINVALID, "no value");
  if (i >= c->node->n_output || !c->node->output[i][0])
    return TSL_OK; /* an optional output nobody names */
  const char *name = c->node->output[i];
  if (value_of(c, name))
    return ox_fail(c, TSL_EINVALID, "output '%s' is produced twice", name);
  int out = is_output(c, name);
  if (e->kind == TSL_RX_EXPR_CALL || e->kind == TSL_RX_EXPR_TUPLE_GET || out)
    e = bind_as(c, e, !out);
  new_value(c, name)->expr = e;
  return TSL_OK;
}

int ox_set_output_data(ox_ctx *c, uint32_t i, tsl_dtype dtype, uint32_t ndim,
                       const int64_t *shape, const void *bytes) {
  if (i >= c->node->n_output || !c->node->output[i][0])
    return TSL_OK;
  const char *name = c->node->output[i];
  if (value_of(c, name))
    return ox_fail(c, TSL_EINVALID, "output '%s' is produced twice", name);
  const tsl_weight *w = NULL;
  tsl_diag d = {0};
  if (tsl_weights_add(c->consts, name, dtype, ndim, shape, bytes, &w, &d))
    return ox_fail(c, TSL_EINVALID, "%s", d.text);
  new_value(c, name)->data = w;
  return TSL_OK;
}

const tsl_rx_expr *ox_call(ox_ctx *c, tsl_rx_op op, uint32_t n, const tsl_rx_expr *const *args,
                           tsl_attrs attrs) {
  for (uint32_t i = 0; i < n; i++)
    if (!args[i])
      return NULL;
  tsl_diag d = {0};
  const tsl_rx_expr *e = tsl_rx_op_call(c->a, op, n, args, attrs, &d);
  if (!e)
    ox_fail(c, TSL_EINVALID, "%s", d.text);
  return e;
}

/* ---- attributes ------------------------------------------------------------ */

const Onnx__AttributeProto *ox_attr(ox_ctx *c, const char *name) {
  for (size_t i = 0; i < c->node->n_attribute; i++)
    if (c->node->attribute[i]->name && !strcmp(c->node->attribute[i]->name, name))
      return c->node->attribute[i];
  return NULL;
}

int64_t ox_attr_int(ox_ctx *c, const char *name, int64_t dflt) {
  const Onnx__AttributeProto *a = ox_attr(c, name);
  return a && a->has_i ? a->i : dflt;
}

float ox_attr_float(ox_ctx *c, const char *name, float dflt) {
  const Onnx__AttributeProto *a = ox_attr(c, name);
  return a && a->has_f ? a->f : dflt;
}

int32_t ox_attr_ints(ox_ctx *c, const char *name, int64_t *out, uint32_t cap) {
  const Onnx__AttributeProto *a = ox_attr(c, name);
  if (!a)
    return -1;
  for (size_t i = 0; i < a->n_ints && i < cap; i++)
    out[i] = a->ints[i];
  return a->n_ints > cap ? (int32_t)cap : (int32_t)a->n_ints;
}

const char *ox_attr_str(ox_ctx *c, const char *name, const char *dflt) {
  const Onnx__AttributeProto *a = ox_attr(c, name);
  if (!a || !a->has_s)
    return dflt;
  return tsl_intern_n(tsl_arena_ctx(c->a), (const char *)a->s.data, a->s.len);
}

static tsl_attr *at_next(ox_ctx *c, ox_attrs *at, const char *key) {
  tsl_attr *it = &at->items[at->n++];
  memset(it, 0, sizeof *it);
  it->key = tsl_intern(tsl_arena_ctx(c->a), key);
  return it;
}

/* A LIST attribute of n items, each of `kind`, to fill in. */
static tsl_attr_value *at_list(ox_ctx *c, ox_attrs *at, const char *key, uint32_t n,
                               uint32_t kind) {
  tsl_attr *it = at_next(c, at, key);
  tsl_attr_value *xs = TSL_NEW_ARRAY(c->a, tsl_attr_value, n ? n : 1);
  for (uint32_t i = 0; i < n; i++)
    xs[i].kind = kind;
  it->value.kind = TSL_ATTR_LIST;
  it->value.n = n;
  it->value.u.items = xs;
  return xs;
}

void ox_at_ints(ox_ctx *c, ox_attrs *at, const char *key, uint32_t n, const int64_t *v) {
  tsl_attr_value *xs = at_list(c, at, key, n, TSL_ATTR_INT);
  for (uint32_t i = 0; i < n; i++)
    xs[i].u.i = v[i];
}

void ox_at_int(ox_ctx *c, ox_attrs *at, const char *key, int64_t v) {
  tsl_attr *it = at_next(c, at, key);
  it->value.kind = TSL_ATTR_INT;
  it->value.u.i = v;
}

void ox_at_bool(ox_ctx *c, ox_attrs *at, const char *key, int v) {
  tsl_attr *it = at_next(c, at, key);
  it->value.kind = TSL_ATTR_BOOL;
  it->value.u.i = v != 0;
}

void ox_at_float(ox_ctx *c, ox_attrs *at, const char *key, double v) {
  tsl_attr *it = at_next(c, at, key);
  it->value.kind = TSL_ATTR_FLOAT;
  it->value.u.f = v;
}

void ox_at_str(ox_ctx *c, ox_attrs *at, const char *key, const char *v) {
  tsl_attr *it = at_next(c, at, key);
  it->value.kind = TSL_ATTR_STR;
  it->value.u.s = tsl_intern(tsl_arena_ctx(c->a), v);
}

void ox_at_shape(ox_ctx *c, ox_attrs *at, const char *key, uint32_t n,
                 const tsl_expr *const *dims) {
  tsl_attr_value *xs = at_list(c, at, key, n, TSL_ATTR_EXPR);
  for (uint32_t i = 0; i < n; i++)
    xs[i].u.expr = dims[i];
}

tsl_attrs ox_attrs_done(ox_ctx *c, ox_attrs *at) {
  tsl_attr *items = TSL_NEW_ARRAY(c->a, tsl_attr, at->n ? at->n : 1);
  memcpy(items, at->items, at->n * sizeof *items);
  return tsl_attrs_make(c->a, at->n, items);
}

/* ---- the graph ------------------------------------------------------------ */

/* A graph input's struct info: its tensor type, dim_params as sizes */
static const tsl_rx_sinfo *input_sinfo(ox_ctx *c, const Onnx__ValueInfoProto *vi) {
  const Onnx__TypeProto *t = vi->type;
  if (!t || t->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !t->tensor_type) {
    ox_fail(c, TSL_EUNSUPPORTED, "graph input '%s' is not a tensor (sequences, maps and "
            "optional values are not supported)", vi->name);
    return NULL;
  }
  tsl_dtype dt;
  if (!ox_dtype(t->tensor_type->elem_type, &dt)) {
    ox_fail(c, TSL_EUNSUPPORTED, "graph input '%s' has element type %d (%s); supported: %s",
            vi->name, (int)t->tensor_type->elem_type, ox_dtype_name(t->tensor_type->elem_type),
            ox_dtypes_supported);
    return NULL;
  }
  const Onnx__TensorShapeProto *sh = t->tensor_type->shape;
  if (!sh) {
    ox_fail(c, TSL_EUNSUPPORTED, "graph input '%s' has no shape; its rank is needed", vi->name);
    return NULL;
  }
  if (sh->n_dim > 16) {
    ox_fail(c, TSL_EUNSUPPORTED, "graph input '%s' has %zu dimensions (at most 16)", vi->name,
            sh->n_dim);
    return NULL;
  }
  const tsl_expr *dims[16];
  for (size_t d = 0; d < sh->n_dim; d++) {
    const Onnx__TensorShapeProto__Dimension *dim = sh->dim[d];
    if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
        dim->dim_value >= 0) {
      dims[d] = tsl_expr_int(c->a, TSL_INT64, dim->dim_value);
      continue;
    }
    /* a symbolic size: the dim_param's name, or one made up */
    char made[64];
    const char *pname = dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM
                            ? dim->dim_param : NULL;
    if (!pname || !*pname) {
      snprintf(made, sizeof made, "%s_dim%zu", vi->name, d);
      pname = made;
    }
    tsl_str key = tsl_intern(tsl_arena_ctx(c->a), pname);
    const tsl_var *sv = tsl_map_get(&c->sizes, key);
    if (!sv) {
      sv = tsl_var_new(c->a, identifier(c, pname), TSL_INT64);
      tsl_map_put(&c->sizes, key, (void *)sv);
      TSL_VEC_PUSH(&c->size_vars, const tsl_var *, sv);
    }
    dims[d] = tsl_expr_var(sv);
  }
  return tsl_rx_tensor_sinfo(c->a, dt, (int32_t)sh->n_dim, dims);
}

static int opset_of(ox_ctx *c, const Onnx__ModelProto *mp) {
  c->opset = -1;
  for (size_t i = 0; i < mp->n_opset_import; i++) {
    const Onnx__OperatorSetIdProto *o = mp->opset_import[i];
    if (!o->domain || !*o->domain || !strcmp(o->domain, "ai.onnx"))
      c->opset = o->has_version ? o->version : -1;
  }
  if (c->opset < 0)
    return ox_fail(c, TSL_EINVALID, "the model imports no operator set of the default domain "
                   "(ai.onnx)");
  if (c->opset < OX_OPSET_MIN || c->opset > OX_OPSET_MAX)
    return ox_fail(c, TSL_EUNSUPPORTED, "operator set %lld of ai.onnx is not supported; "
                   "supported: %d to %d (onnx.version_converter converts a model)",
                   (long long)c->opset, OX_OPSET_MIN, OX_OPSET_MAX);
  return TSL_OK;
}

static int convert_graph(ox_ctx *c, const Onnx__GraphProto *g, const tsl_model **out) {
  int rc = TSL_OK;
  for (size_t i = 0; !rc && i < g->n_initializer; i++) {
    const Onnx__TensorProto *t = g->initializer[i];
    char what[300];
    snprintf(what, sizeof what, "%s: initializer '%s'", c->file, t->name ? t->name : "");
    if (!t->name || !*t->name)
      rc = tsl_diag_set(c->diag, TSL_EINVALID, "%s: an initializer without a name", c->file);
    else if (value_of(c, t->name))
      rc = tsl_diag_set(c->diag, TSL_EINVALID, "%s is given twice", what);
    const tsl_weight *w = NULL;
    if (!rc && !(rc = ox_tensor_read(t, t->name, c->dir, what, c->consts, &w, c->diag)))
      new_value(c, t->name)->data = w;
  }
  for (size_t i = 0; !rc && i < g->n_input; i++) {
    const Onnx__ValueInfoProto *vi = g->input[i];
    if (!vi->name || !*vi->name)
      return ox_fail(c, TSL_EINVALID, "graph input %zu has no name", i);
    if (value_of(c, vi->name))
      continue; /* an initializer listed as an input (IR version 3) */
    const tsl_rx_sinfo *s = input_sinfo(c, vi);
    if (!s)
      return c->status;
    const tsl_rx_var *p = tsl_rx_var_new(c->a, identifier(c, vi->name), s, 0);
    TSL_VEC_PUSH(&c->params, const tsl_rx_var *, p);
    new_value(c, vi->name)->expr = tsl_rx_var_ref(c->a, p);
  }
  if (!rc && !g->n_output)
    rc = ox_fail(c, TSL_EINVALID, "the graph has no outputs");
  for (size_t i = 0; !rc && i < g->n_output; i++) {
    if (!g->output[i]->name || !*g->output[i]->name)
      return ox_fail(c, TSL_EINVALID, "graph output %zu has no name", i);
    tsl_map_put(&c->outputs, tsl_intern(tsl_arena_ctx(c->a), g->output[i]->name),
                TSL_MAP_INT(1));
  }
  for (size_t i = 0; !rc && i < g->n_node; i++) {
    c->node = g->node[i];
    c->node_index = (uint32_t)i;
    const char *dom = c->node->domain;
    if (!c->node->op_type || !*c->node->op_type)
      rc = ox_fail(c, TSL_EINVALID, "a node without an op_type");
    else if (dom && *dom && strcmp(dom, "ai.onnx"))
      rc = ox_fail(c, TSL_EUNSUPPORTED, "domain '%s' is not supported; supported: ai.onnx "
                   "(the default domain)", dom);
    else
      rc = ox_convert_node(c);
  }
  c->node = NULL;
  if (rc)
    return rc;
  /* the outputs, in the graph's order */
  const tsl_rx_expr **rets = TSL_NEW_ARRAY(c->a, const tsl_rx_expr *, g->n_output);
  for (size_t i = 0; i < g->n_output; i++) {
    ox_value *v = value_of(c, g->output[i]->name);
    if (!v)
      return ox_fail(c, TSL_EINVALID, "graph output '%s' is produced by no node",
                     g->output[i]->name);
    if (!v->expr || v->expr->kind != TSL_RX_EXPR_VAR || v->expr->var->is_dataflow)
      return ox_fail(c, TSL_EUNSUPPORTED, "graph output '%s' is not computed by the graph (an "
                     "input or a constant returned as it is)", g->output[i]->name);
    rets[i] = v->expr;
  }
  const tsl_rx_expr *ret = g->n_output == 1 ? rets[0] : tsl_rx_tuple(c->a, (uint32_t)g->n_output, rets);
  tsl_rx_block blk = {1, c->bindings.len, tsl_vec_dup(&c->bindings, c->a)};
  const tsl_rx_func *fn = tsl_rx_func_new(c->a, "main", c->params.len,
                                          tsl_vec_dup(&c->params, c->a), c->size_vars.len,
                                          tsl_vec_dup(&c->size_vars, c->a), 1, &blk, ret, NULL);
  tsl_module *tir = TSL_NEW(c->a, tsl_module);
  tir->arena = c->a;
  tir->name = tsl_intern(tsl_arena_ctx(c->a), "Module");
  *out = tsl_model_new(c->a, tir, 1, &fn, c->n_constants, c->bind ? c->weights : NULL);
  tsl_diag d = {0};
  if (tsl_model_check(*out, &d))
    return ox_fail(c, TSL_EINVALID, "the imported model does not check: %s", d.text);
  return TSL_OK;
}

int tsl_onnx_import_bytes(tsl_arena *arena, const char *name, const void *data, size_t len,
                          const char *dir, uint32_t flags, const tsl_model **model,
                          tsl_weights **weights, tsl_diag *diag) {
  if (model)
    *model = NULL;
  if (weights)
    *weights = NULL;
  if (!arena || !model || !weights || (!data && len))
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_onnx_import: arena, data, model and weights "
                        "are required");
  tsl_diag own = {0};
  ox_ctx c = {.a = arena, .file = name ? name : "<onnx>", .dir = dir, .diag = diag ? diag : &own,
              .bind = (flags & TSL_ONNX_BIND_WEIGHTS) != 0};
  Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, data);
  if (!mp)
    return ox_fail(&c, TSL_EINVALID, "not an ONNX model: the protobuf does not decode "
                   "(truncated or corrupted)");
  if (!mp->graph) {
    onnx__model_proto__free_unpacked(mp, NULL);
    return ox_fail(&c, TSL_EINVALID, "the model has no graph");
  }
  int rc = opset_of(&c, mp);
  c.weights = tsl_weights_new();
  c.consts = tsl_weights_new();
  if (!rc && (!c.weights || !c.consts))
    rc = tsl_diag_set(c.diag, TSL_ENOMEM, "out of memory");
  tsl_map_init(&c.values, NULL);
  tsl_map_init(&c.names, NULL);
  tsl_map_init(&c.outputs, NULL);
  tsl_map_init(&c.sizes, NULL);
  tsl_vec_init(&c.params, sizeof(const tsl_rx_var *), NULL);
  tsl_vec_init(&c.bindings, sizeof(tsl_rx_binding), NULL);
  tsl_vec_init(&c.size_vars, sizeof(const tsl_var *), NULL);
  const tsl_model *m = NULL;
  if (!rc)
    rc = convert_graph(&c, mp->graph, &m);
  onnx__model_proto__free_unpacked(mp, NULL);
  tsl_map_free(&c.values);
  tsl_map_free(&c.names);
  tsl_map_free(&c.outputs);
  tsl_map_free(&c.sizes);
  tsl_vec_free(&c.params);
  tsl_vec_free(&c.bindings);
  tsl_vec_free(&c.size_vars);
  tsl_weights_free(c.consts);
  if (rc) {
    tsl_weights_free(c.weights);
    return rc;
  }
  *model = m;
  *weights = c.weights;
  return TSL_OK;
}

int tsl_onnx_import(tsl_arena *arena, const char *path, uint32_t flags,
                    const tsl_model **model, tsl_weights **weights, tsl_diag *diag) {
  if (model)
    *model = NULL;
  if (weights)
    *weights = NULL;
  if (!path)
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_onnx_import: a path is required");
  char *src = NULL;
  size_t n = 0;
  int rc = tsl_read_file(path, &src, &n, diag);
  if (rc)
    return rc;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash)
    *slash = '\0';
  else
    snprintf(dir, sizeof dir, ".");
  rc = tsl_onnx_import_bytes(arena, path, src, n, dir, flags, model, weights, diag);
  free(src);
  return rc;
}
