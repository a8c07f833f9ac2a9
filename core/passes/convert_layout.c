/*
 * convert_layout (TVM's ConvertLayout with the desired layouts
 * {"relax.nn.conv2d": ["NHWC", "HWIO"]} and the pools in NHWC): in each
 * dataflow block, a convolution or pooling of NCHW data computes in NHWC,
 * with the weight permuted to HWIO, and the element-wise operators that
 * follow stay in NHWC, so that the layout changes only where the network
 * leaves those operators. On a CPU the output channels then sit innermost
 * and vectorize, whatever the stride (docs in core/passes/README.md).
 *
 * Each converted binding `v = op(...)` becomes `lv = op'(...)` in NHWC
 * and `v = R.permute_dims(lv, axes=[0, 3, 1, 2])`, which keeps every
 * later use of v valid; a later operator in NHWC reads lv directly, and
 * the permutes that nothing reads are dropped at the end. Operands that are not yet in
 * NHWC get `R.permute_dims(x, axes=[0, 2, 3, 1])` once per variable; on
 * a constant (a bound weight, a bias) fold_constant computes it at
 * compile time.
 */
#include "passes_internal.h"

#include <string.h>

typedef struct convert {
  tsl_arena *a;
  const tsl_module *tir;
  tsl_map nhwc;  /* const tsl_rx_var * -> const tsl_rx_var *: its NHWC copy */
  tsl_map restores; /* const tsl_rx_var * -> 1: bound to a permute back to NCHW */
  tsl_map names; /* the function's variable names */
  tsl_vec out;   /* tsl_rx_binding: the block being rebuilt */
  uint32_t next;
  int changed;
  int status;
  tsl_diag *diag;
} convert;

static const int64_t to_nhwc[4] = {0, 2, 3, 1}, to_nchw[4] = {0, 3, 1, 2};

/* `attrs` with the string attributes keys[i] set to vals[i]. */
static tsl_attrs with_strs(tsl_arena *a, tsl_attrs attrs, uint32_t n, const char *const *keys,
                           const char *const *vals) {
  tsl_attr *items = TSL_NEW_ARRAY(a, tsl_attr, attrs.n + n);
  uint32_t m = 0;
  for (uint32_t i = 0; i < attrs.n; i++) {
    int replaced = 0;
    for (uint32_t k = 0; k < n; k++)
      replaced |= !strcmp(attrs.items[i].key, keys[k]);
    if (!replaced)
      items[m++] = attrs.items[i];
  }
  for (uint32_t k = 0; k < n; k++) {
    items[m].key = tsl_intern(tsl_arena_ctx(a), keys[k]);
    memset(&items[m].value, 0, sizeof items[m].value);
    items[m].value.kind = TSL_ATTR_STR;
    items[m++].value.u.s = tsl_intern(tsl_arena_ctx(a), vals[k]);
  }
  return tsl_attrs_make(a, m, items);
}

static tsl_attrs axes_attr(tsl_arena *a, const int64_t *axes) {
  tsl_attr_value *xs = TSL_NEW_ARRAY(a, tsl_attr_value, 4);
  for (int i = 0; i < 4; i++) {
    xs[i].kind = TSL_ATTR_INT;
    xs[i].u.i = axes[i];
  }
  tsl_attr *item = TSL_NEW_ARRAY(a, tsl_attr, 1);
  item->key = tsl_intern(tsl_arena_ctx(a), "axes");
  item->value.kind = TSL_ATTR_LIST;
  item->value.n = 4;
  item->value.u.items = xs;
  return tsl_attrs_make(a, 1, item);
}

/* Bind `value` to `v` (a fresh dataflow variable when v is NULL). */
static const tsl_rx_var *emit(convert *c, const tsl_rx_var *v, const tsl_rx_expr *value) {
  if (!value)
    return NULL;
  if (!v)
    v = tsl_rx_var_new(c->a, pass_fresh_name(c->a, &c->names, &c->next), value->sinfo, 1);
  TSL_VEC_PUSH(&c->out, tsl_rx_binding, ((tsl_rx_binding){v, value}));
  return v;
}

static const tsl_rx_expr *call(convert *c, tsl_rx_op op, uint32_t n, const tsl_rx_expr *const *args,
                               tsl_attrs attrs) {
  tsl_diag d = {0};
  const tsl_rx_expr *e = tsl_rx_op_call(c->a, op, n, args, attrs, &d);
  if (!e && !c->status)
    c->status = tsl_diag_set(c->diag, TSL_EINVALID, "convert_layout: %s", d.text);
  return e;
}

static const tsl_rx_expr *permuted(convert *c, const tsl_rx_expr *x, const int64_t *axes) {
  return call(c, TSL_RX_OP_PERMUTE_DIMS, 1, &x, axes_attr(c->a, axes));
}

static int is_4d(const tsl_rx_expr *e) {
  return e->sinfo->kind == TSL_RX_SINFO_TENSOR && e->sinfo->ndim == 4;
}

/* The NHWC form of 4-d operand `x` (NCHW): its copy when it has one, else
 * a permute bound now (and remembered when x is a variable). */
static const tsl_rx_expr *nhwc_of(convert *c, const tsl_rx_expr *x) {
  const tsl_rx_var *key = x->kind == TSL_RX_EXPR_VAR ? x->var : NULL;
  const tsl_rx_var *t = key ? tsl_map_get(&c->nhwc, TSL_MAP_KEY(key)) : NULL;
  if (!t && (t = emit(c, NULL, permuted(c, x, to_nhwc))) && key)
    tsl_map_put(&c->nhwc, TSL_MAP_KEY(key), (void *)t);
  return t ? tsl_rx_var_ref(c->a, t) : NULL;
}

static int has_nhwc(convert *c, const tsl_rx_expr *x) {
  return x->kind == TSL_RX_EXPR_VAR && tsl_map_get(&c->nhwc, TSL_MAP_KEY(x->var));
}

/* Element-wise operators: they compute the same in any layout when every
 * operand of rank 4 is permuted alike (rank-0 operands broadcast as they
 * are). */
static int elementwise(tsl_rx_op op) {
  switch (op) {
  case TSL_RX_OP_ADD: case TSL_RX_OP_SUBTRACT: case TSL_RX_OP_MULTIPLY: case TSL_RX_OP_DIVIDE:
  case TSL_RX_OP_EXP: case TSL_RX_OP_SQRT: case TSL_RX_OP_TANH: case TSL_RX_OP_SIGMOID:
  case TSL_RX_OP_RELU: case TSL_RX_OP_GELU: case TSL_RX_OP_SILU: case TSL_RX_OP_ASTYPE:
  case TSL_RX_OP_ERF: case TSL_RX_OP_POWER: case TSL_RX_OP_MAXIMUM: case TSL_RX_OP_MINIMUM:
    return 1;
  default:
    return 0;
  }
}

/* Binding `b` converted into c->out; 0 when it stays as it is. */
static int convert_binding(convert *c, const tsl_rx_binding *b) {
  const tsl_rx_expr *e = b->value;
  if (e->kind != TSL_RX_EXPR_CALL || !is_4d(e) || !e->sinfo->shape)
    return 0;
  tsl_rx_op op = (tsl_rx_op)e->op;
  const tsl_rx_expr *args[8];
  tsl_attrs attrs = e->attrs;
  int32_t ax[4];
  if (op == TSL_RX_OP_CONV2D) {
    if (strcmp(tsl_rx_attr_str(e->attrs, "data_layout", "NCHW"), "NCHW") ||
        !tsl_rx_layout_axes(tsl_rx_attr_str(e->attrs, "kernel_layout", "OIHW"), "OIHW", ax))
      return 0;
    /* HWIO: the weight's H, W, I and O axes in that order */
    int64_t to_hwio[4] = {ax[2], ax[3], ax[1], ax[0]};
    args[0] = nhwc_of(c, e->args[0]);
    args[1] = tsl_rx_var_ref(c->a, emit(c, NULL, permuted(c, e->args[1], to_hwio)));
    static const char *const keys[3] = {"data_layout", "kernel_layout", "out_layout"};
    static const char *const vals[3] = {"NHWC", "HWIO", "NHWC"};
    attrs = with_strs(c->a, e->attrs, 3, keys, vals);
  } else if (op == TSL_RX_OP_MAX_POOL2D || op == TSL_RX_OP_AVG_POOL2D ||
             op == TSL_RX_OP_ADAPTIVE_AVG_POOL2D) {
    if (strcmp(tsl_rx_attr_str(e->attrs, "layout", "NCHW"), "NCHW"))
      return 0;
    args[0] = nhwc_of(c, e->args[0]);
    static const char *const keys[2] = {"layout", "out_layout"};
    static const char *const vals[2] = {"NHWC", "NHWC"};
    attrs = with_strs(c->a, e->attrs, 2, keys, vals);
  } else if (elementwise(op) && e->n_args <= 8) {
    int any = 0;
    for (uint32_t i = 0; i < e->n_args; i++) {
      const tsl_rx_sinfo *s = e->args[i]->sinfo;
      if (s->kind != TSL_RX_SINFO_TENSOR || (s->ndim != 4 && s->ndim != 0))
        return 0;
      any |= has_nhwc(c, e->args[i]);
    }
    if (!any)
      return 0;
    for (uint32_t i = 0; i < e->n_args; i++)
      args[i] = e->args[i]->sinfo->ndim == 4 ? nhwc_of(c, e->args[i]) : e->args[i];
  } else {
    return 0;
  }
  for (uint32_t i = 0; i < e->n_args; i++)
    if (!args[i])
      return 0;
  const tsl_rx_var *t = emit(c, NULL, call(c, op, e->n_args, args, attrs));
  if (!t || !emit(c, b->var, permuted(c, tsl_rx_var_ref(c->a, t), to_nchw)))
    return 0;
  tsl_map_put(&c->nhwc, TSL_MAP_KEY(b->var), (void *)t);
  tsl_map_put(&c->restores, TSL_MAP_KEY(b->var), TSL_MAP_INT(1));
  return 1;
}

static int mark_used(const tsl_rx_expr *e, void *user_data) {
  if (e->kind == TSL_RX_EXPR_VAR)
    tsl_map_put(user_data, TSL_MAP_KEY(e->var), TSL_MAP_INT(1));
  return 0;
}

/* The permutes back to NCHW that nothing reads dropped (a dataflow
 * variable's; an output's is read after the block). */
static void drop_unused_restores(convert *c, tsl_rx_block *blocks, uint32_t n_blocks,
                                 const tsl_rx_expr *ret) {
  tsl_map used;
  tsl_map_init(&used, NULL);
  tsl_rx_visit_expr(ret, mark_used, &used);
  for (uint32_t k = 0; k < n_blocks; k++)
    for (uint32_t i = 0; i < blocks[k].n_bindings; i++)
      tsl_rx_visit_expr(blocks[k].bindings[i].value, mark_used, &used);
  for (uint32_t k = 0; k < n_blocks; k++) {
    tsl_rx_binding *kept = TSL_NEW_ARRAY(c->a, tsl_rx_binding, blocks[k].n_bindings + 1);
    uint32_t n = 0;
    for (uint32_t i = 0; i < blocks[k].n_bindings; i++) {
      const tsl_rx_var *v = blocks[k].bindings[i].var;
      if (!v->is_dataflow || !tsl_map_get(&c->restores, TSL_MAP_KEY(v)) ||
          tsl_map_get(&used, TSL_MAP_KEY(v)))
        kept[n++] = blocks[k].bindings[i];
    }
    blocks[k].n_bindings = n;
    blocks[k].bindings = kept;
  }
  tsl_map_free(&used);
}

static const tsl_rx_func *convert_func(convert *c, const tsl_rx_func *f) {
  pass_func_names(f, &c->names);
  c->next = 0;
  int changed = 0;
  tsl_rx_block *blocks = TSL_NEW_ARRAY(c->a, tsl_rx_block, f->n_blocks ? f->n_blocks : 1);
  for (uint32_t k = 0; k < f->n_blocks && !c->status; k++) {
    blocks[k] = f->blocks[k];
    if (!f->blocks[k].is_dataflow)
      continue;
    tsl_map_clear(&c->nhwc); /* NHWC copies are dataflow variables of their block */
    tsl_vec_init(&c->out, sizeof(tsl_rx_binding), NULL);
    for (uint32_t i = 0; i < f->blocks[k].n_bindings && !c->status; i++) {
      const tsl_rx_binding *b = &f->blocks[k].bindings[i];
      size_t mark = c->out.len;
      if (convert_binding(c, b)) {
        changed = 1;
        continue;
      }
      c->out.len = mark; /* a conversion given up leaves nothing behind */
      TSL_VEC_PUSH(&c->out, tsl_rx_binding, *b);
    }
    blocks[k].n_bindings = c->out.len;
    blocks[k].bindings = tsl_vec_dup(&c->out, c->a);
    tsl_vec_free(&c->out);
  }
  if (!changed || c->status)
    return f;
  drop_unused_restores(c, blocks, f->n_blocks, f->ret);
  c->changed = 1;
  return tsl_rx_func_new(c->a, f->name, f->n_params, f->params, f->n_size_vars, f->size_vars,
                         f->n_blocks, blocks, f->ret, f->ret_sinfo);
}

static int run(void *user_data, const tsl_pass_ctx *ctx, const tsl_model *in,
               const tsl_model **out, tsl_diag *diag) {
  (void)user_data;
  /* nested calls bound first, so that each operator is a binding */
  int rc = pass_normalize_model(ctx, in, &in, diag);
  if (rc)
    return rc;
  convert c = {.a = ctx->arena, .tir = in->tir, .diag = diag};
  tsl_map_init(&c.nhwc, NULL);
  tsl_map_init(&c.names, NULL);
  tsl_map_init(&c.restores, NULL);
  const tsl_rx_func **fs = TSL_NEW_ARRAY(ctx->arena, const tsl_rx_func *, in->n_rx_funcs + 1);
  for (uint32_t i = 0; i < in->n_rx_funcs && !c.status; i++)
    fs[i] = convert_func(&c, in->rx_funcs[i]);
  tsl_map_free(&c.nhwc);
  tsl_map_free(&c.names);
  tsl_map_free(&c.restores);
  *out = in;
  if (!c.status && c.changed)
    *out = tsl_model_new(ctx->arena, in->tir, in->n_rx_funcs, fs, in->n_constants,
                         pass_model_constants(in));
  return c.status;
}

const tsl_pass_vtable pass_convert_layout_vt = {sizeof(tsl_pass_vtable), run};
