/*
 * The prim_funcs LegalizeOps writes for each operator, as TVMScript text:
 * what TVM v0.19's legalization (through TOPI) produces for the same
 * operator, so that TVM's schedule rules see the same blocks.
 *   add, subtract, multiply, divide   block T_<op>, NumPy broadcasting (an
 *                                     operand's dimension of 1 read at 0)
 *   exp, sqrt, tanh, sigmoid          function tir_<op>, block T_<op>
 *   nn.relu                           function relu, block compute,
 *                                     max(x, 0)
 *   matmul                            function matmul, block matmul: the
 *                                     spatial loops, then k; vectors as
 *                                     NumPy reads them
 *   power, maximum, minimum           T.pow, T.max, T.min, broadcasting
 *   where, broadcast_to, take         blocks T_where (T.Select),
 *                                     T_broadcast_to, T_take (the index
 *                                     wrapped once and clamped)
 * Shapes with symbolic sizes make T.handle parameters, T.int64() sizes
 * and T.match_buffer, as TVM prints them.
 */
#include "passes_internal.h"

#include "tessel/script.h"
#include "tessel/visit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *legalize_op_hint(tsl_rx_op op) {
  switch (op) {
  case TSL_RX_OP_EXP: return "tir_exp";
  case TSL_RX_OP_SQRT: return "tir_sqrt";
  case TSL_RX_OP_TANH: return "tir_tanh";
  case TSL_RX_OP_SIGMOID: return "tir_sigmoid";
  case TSL_RX_OP_RELU: return "relu";
  case TSL_RX_OP_ASTYPE: return "cast";
  case TSL_RX_OP_GELU: return "gelu";
  case TSL_RX_OP_SILU: return "silu";
  case TSL_RX_OP_PERMUTE_DIMS: return "transpose";
  case TSL_RX_OP_RESHAPE: case TSL_RX_OP_FLATTEN: return "reshape";
  case TSL_RX_OP_SOFTMAX: return "softmax";
  case TSL_RX_OP_CONCAT: return "concatenate";
  case TSL_RX_OP_CONV2D: return "conv2d";
  case TSL_RX_OP_MAX_POOL2D: return "max_pool2d";
  case TSL_RX_OP_AVG_POOL2D: return "avg_pool2d";
  case TSL_RX_OP_ADAPTIVE_AVG_POOL2D: return "adaptive_avg_pool2d";
  case TSL_RX_OP_BATCH_NORM: return "batch_norm";
  case TSL_RX_OP_LAYER_NORM: return "layer_norm";
  default: return tsl_rx_op_name(op);
  }
}

int lg_operand(const tsl_rx_sinfo *s, tsl_rx_op op, uint32_t i, int is_result, tsl_diag *diag) {
  if (s->kind == TSL_RX_SINFO_TENSOR && s->ndim >= 0 && s->shape && !tsl_dtype_is_void(s->dtype))
    return TSL_OK;
  char *t = tsl_rx_sinfo_print(s);
  tsl_diag_set(diag, TSL_EUNSUPPORTED, "R.%s: %s %u is %s; legalize needs the dtype and shape "
               "of every operand (bind the weights first: bind_params)", tsl_rx_op_name(op),
               is_result ? "result" : "operand", i, t ? t : "?");
  free(t);
  return TSL_EUNSUPPORTED;
}

void lg_dim(tsl_strbuf *sb, const tsl_expr *d) {
  int64_t v;
  if (tsl_expr_is_const_int(d, &v)) {
    tsl_strbuf_printf(sb, "T.int64(%lld)", (long long)v);
    return;
  }
  char *t = tsl_print_expr(d);
  tsl_strbuf_append(sb, t ? t : "?");
  free(t);
}

static void put_shape(tsl_strbuf *sb, const tsl_rx_sinfo *s) {
  tsl_strbuf_append(sb, "(");
  for (int32_t d = 0; d < s->ndim; d++) {
    if (d)
      tsl_strbuf_append(sb, ", ");
    lg_dim(sb, s->shape[d]);
  }
  tsl_strbuf_append(sb, s->ndim == 1 ? ",)" : ")");
}

static const char *dtype_name(tsl_dtype t, char *buf) { return tsl_dtype_str(t, buf); }

static int symbolic(const tsl_rx_sinfo *s) {
  for (int32_t d = 0; d < s->ndim; d++)
    if (!tsl_expr_is_const_int(s->shape[d], NULL))
      return 1;
  return 0;
}

static int collect_var(const tsl_expr *e, void *user_data) {
  tsl_vec *names = user_data;
  if (e->kind != TSL_EXPR_VAR)
    return 0;
  for (uint32_t i = 0; i < names->len; i++)
    if (TSL_VEC_AT(names, const char *, i) == e->u.var->name)
      return 0;
  TSL_VEC_PUSH(names, const char *, e->u.var->name);
  return 0;
}

/* def name(params): the attribute line, sizes and match_buffers. */
void lg_signature(tsl_strbuf *sb, const char *name, const lg_buf *bufs, uint32_t n) {
  int any = 0;
  for (uint32_t i = 0; i < n; i++)
    any |= symbolic(bufs[i].s);
  char dt[32];
  tsl_strbuf_printf(sb, "@T.prim_func(private=True)\ndef %s(", name);
  for (uint32_t i = 0; i < n; i++) {
    if (i)
      tsl_strbuf_append(sb, ", ");
    if (any) {
      tsl_strbuf_printf(sb, "var_%s: T.handle", bufs[i].name);
      continue;
    }
    tsl_strbuf_printf(sb, "%s: T.Buffer(", bufs[i].name);
    put_shape(sb, bufs[i].s);
    tsl_strbuf_printf(sb, ", \"%s\")", dtype_name(bufs[i].s->dtype, dt));
  }
  tsl_strbuf_append(sb, "):\n    T.func_attr({\"tir.noalias\": T.bool(True)})\n");
  if (!any)
    return;
  tsl_vec names;
  tsl_vec_init(&names, sizeof(const char *), NULL);
  for (uint32_t i = 0; i < n; i++)
    for (int32_t d = 0; d < bufs[i].s->ndim; d++)
      tsl_expr_visit(bufs[i].s->shape[d], collect_var, &names);
  for (uint32_t i = 0; i < names.len; i++)
    tsl_strbuf_printf(sb, "    %s = T.int64()\n", TSL_VEC_AT(&names, const char *, i));
  tsl_vec_free(&names);
  for (uint32_t i = 0; i < n; i++) {
    tsl_strbuf_printf(sb, "    %s = T.match_buffer(var_%s, ", bufs[i].name, bufs[i].name);
    put_shape(sb, bufs[i].s);
    tsl_strbuf_printf(sb, ", \"%s\")\n", dtype_name(bufs[i].s->dtype, dt));
  }
}

/* for i0, i1 in T.grid(dims): with T.block(block): v_i0, ... =
 * T.axis.remap(kinds, ...), at indentation `at`; the block's body goes at
 * the indentation returned. kinds: 'S' / 'R' per dimension. */
int lg_grid(tsl_strbuf *sb, int at, const char *block, int32_t n, const tsl_expr *const *dims,
            const char *kinds) {
  if (n == 0) {
    tsl_strbuf_printf(sb, "%*swith T.block(\"%s\"):\n", at, "", block);
    return at + 4;
  }
  tsl_strbuf_printf(sb, "%*sfor ", at, "");
  for (int32_t i = 0; i < n; i++)
    tsl_strbuf_printf(sb, "%si%d", i ? ", " : "", (int)i);
  tsl_strbuf_append(sb, " in T.grid(");
  for (int32_t i = 0; i < n; i++) {
    if (i)
      tsl_strbuf_append(sb, ", ");
    lg_dim(sb, dims[i]);
  }
  tsl_strbuf_printf(sb, "):\n%*swith T.block(\"%s\"):\n%*s", at + 4, "", block, at + 8, "");
  for (int32_t i = 0; i < n; i++)
    tsl_strbuf_printf(sb, "%sv_i%d", i ? ", " : "", (int)i);
  tsl_strbuf_printf(sb, " = T.axis.remap(\"%.*s\", [", (int)n, kinds);
  for (int32_t i = 0; i < n; i++)
    tsl_strbuf_printf(sb, "%si%d", i ? ", " : "", (int)i);
  tsl_strbuf_append(sb, "])\n");
  return at + 8;
}

static void nest(tsl_strbuf *sb, const char *block, const tsl_rx_sinfo *out,
                 const tsl_expr *reduce_extent, int *indent) {
  const tsl_expr *dims[65];
  char kinds[66];
  int32_t n = 0;
  for (; n < out->ndim && n < 64; n++) {
    dims[n] = out->shape[n];
    kinds[n] = 'S';
  }
  if (reduce_extent) {
    dims[n] = reduce_extent;
    kinds[n++] = 'R';
  }
  *indent = lg_grid(sb, 4, block, n, dims, kinds);
}

/* buf[...] read at the output's indices, broadcast NumPy's way: the
 * operand's dims align with the output's last ones; a dim of 1 (where the
 * output's is not) is read at 0. */
static void access(tsl_strbuf *sb, const lg_buf *b, const tsl_rx_sinfo *out) {
  tsl_strbuf_printf(sb, "%s[", b->name);
  if (b->s->ndim == 0)
    tsl_strbuf_append(sb, "()");
  int32_t off = out->ndim - b->s->ndim;
  for (int32_t d = 0; d < b->s->ndim; d++) {
    int64_t v, w;
    if (d)
      tsl_strbuf_append(sb, ", ");
    if (tsl_expr_is_const_int(b->s->shape[d], &v) && v == 1 &&
        !(tsl_expr_is_const_int(out->shape[d + off], &w) && w == 1))
      tsl_strbuf_append(sb, "T.int64(0)");
    else
      tsl_strbuf_printf(sb, "v_i%d", (int)(d + off));
  }
  tsl_strbuf_append(sb, "]");
}

static void out_access(tsl_strbuf *sb, const char *name, int32_t ndim) {
  tsl_strbuf_printf(sb, "%s[", name);
  if (!ndim)
    tsl_strbuf_append(sb, "()");
  for (int32_t d = 0; d < ndim; d++)
    tsl_strbuf_printf(sb, "%sv_i%d", d ? ", " : "", (int)d);
  tsl_strbuf_append(sb, "]");
}

static void elementwise(tsl_strbuf *sb, tsl_rx_op op, const lg_buf *in, uint32_t n_in,
                        const lg_buf *out) {
  char block[32], dt[32];
  snprintf(block, sizeof block, op == TSL_RX_OP_RELU ? "compute" : "T_%s", tsl_rx_op_name(op));
  int indent;
  nest(sb, block, out->s, NULL, &indent);
  tsl_strbuf_printf(sb, "%*s", indent, "");
  out_access(sb, out->name, out->s->ndim);
  tsl_strbuf_append(sb, " = ");
  static const char *const binop[] = {[TSL_RX_OP_ADD] = " + ", [TSL_RX_OP_SUBTRACT] = " - ",
                                      [TSL_RX_OP_MULTIPLY] = " * ", [TSL_RX_OP_DIVIDE] = " / "};
  if (op == TSL_RX_OP_POWER || op == TSL_RX_OP_MAXIMUM || op == TSL_RX_OP_MINIMUM) {
    /* TOPI's power, maximum, minimum: T.pow, T.max, T.min */
    tsl_strbuf_append(sb, op == TSL_RX_OP_POWER ? "T.pow(" : op == TSL_RX_OP_MAXIMUM ? "T.max("
                                                                                    : "T.min(");
    access(sb, &in[0], out->s);
    tsl_strbuf_append(sb, ", ");
    access(sb, &in[1], out->s);
    tsl_strbuf_append(sb, ")");
  } else if (n_in == 2) {
    access(sb, &in[0], out->s);
    tsl_strbuf_append(sb, binop[op]);
    access(sb, &in[1], out->s);
  } else if (op == TSL_RX_OP_RELU) {
    tsl_strbuf_append(sb, "T.max(");
    access(sb, &in[0], out->s);
    tsl_strbuf_printf(sb, ", T.%s(0))", dtype_name(out->s->dtype, dt));
  } else {
    tsl_strbuf_printf(sb, "T.%s(", tsl_rx_op_name(op));
    access(sb, &in[0], out->s);
    tsl_strbuf_append(sb, ")");
  }
  tsl_strbuf_append(sb, "\n");
}

/* matmul [.., m, k] x [.., k, n] (either a vector), batch dims broadcast. */
static void matmul(tsl_strbuf *sb, const lg_buf *in, const lg_buf *out) {
  const tsl_rx_sinfo *a = in[0].s, *b = in[1].s, *o = out->s;
  int32_t ra = a->ndim, rb = b->ndim, no = o->ndim, k = no; /* v_i<k>: the reduction */
  char dt[32];
  int indent;
  nest(sb, "matmul", o, a->shape[ra - 1], &indent);
  /* spatial output dims: batch.., m (unless a is a vector), n (unless b is) */
  int32_t n_batch = no - (ra > 1) - (rb > 1);
  tsl_strbuf_printf(sb, "%*swith T.init():\n%*s", indent, "", indent + 4, "");
  out_access(sb, out->name, no);
  tsl_strbuf_printf(sb, " = T.%s(0)\n%*s", dtype_name(o->dtype, dt), indent, "");
  out_access(sb, out->name, no);
  tsl_strbuf_append(sb, " = ");
  out_access(sb, out->name, no);
  tsl_strbuf_append(sb, " + ");
  for (int side = 0; side < 2; side++) {
    const tsl_rx_sinfo *s = side ? b : a;
    int32_t r = s->ndim, nb = r - 2 < 0 ? 0 : r - 2;
    tsl_strbuf_printf(sb, "%s%s[", side ? " * " : "", in[side].name);
    int first = 1;
    for (int32_t d = 0; d < nb; d++) { /* its batch dims, aligned right with the output's */
      int32_t od = n_batch - nb + d;
      int64_t v, w;
      tsl_strbuf_append(sb, first ? "" : ", ");
      first = 0;
      if (tsl_expr_is_const_int(s->shape[d], &v) && v == 1 &&
          !(tsl_expr_is_const_int(o->shape[od], &w) && w == 1))
        tsl_strbuf_append(sb, "T.int64(0)");
      else
        tsl_strbuf_printf(sb, "v_i%d", (int)od);
    }
    if (!side) {
      if (r > 1) /* m */
        tsl_strbuf_printf(sb, "%sv_i%d", first ? "" : ", ", (int)n_batch), first = 0;
      tsl_strbuf_printf(sb, "%sv_i%d", first ? "" : ", ", (int)k);
    } else {
      tsl_strbuf_printf(sb, "%sv_i%d", first ? "" : ", ", (int)k);
      if (r > 1) /* n */
        tsl_strbuf_printf(sb, ", v_i%d", (int)(no - 1));
    }
    tsl_strbuf_append(sb, "]");
  }
  tsl_strbuf_append(sb, "\n");
}

/* TOPI's where, broadcast_to and take (1.8): one spatial block over the
 * output; take reads the data at the index, a negative one counted from
 * the end and the rest clamped into range. */
static int gather(tsl_strbuf *sb, const char *name, const tsl_rx_expr *call, tsl_diag *diag) {
  tsl_rx_op op = (tsl_rx_op)call->op;
  static const char *const in_names[] = {"A", "B", "C"};
  lg_buf bufs[4];
  uint32_t n = call->n_args;
  for (uint32_t i = 0; i <= n; i++) {
    const tsl_rx_sinfo *s = i < n ? call->args[i]->sinfo : call->sinfo;
    if (lg_operand(s, op, i, i == n, diag))
      return TSL_EUNSUPPORTED;
    bufs[i] = (lg_buf){i < n ? in_names[i] : NULL, s};
  }
  bufs[n].name = op == TSL_RX_OP_WHERE ? "T_where" : op == TSL_RX_OP_TAKE ? "T_take"
                                                                         : "T_broadcast_to";
  const lg_buf *out = &bufs[n];
  lg_signature(sb, name, bufs, n + 1);
  int indent;
  nest(sb, out->name, out->s, NULL, &indent);
  tsl_strbuf_printf(sb, "%*s", indent, "");
  out_access(sb, out->name, out->s->ndim);
  tsl_strbuf_append(sb, " = ");
  if (op == TSL_RX_OP_WHERE) {
    tsl_strbuf_append(sb, "T.Select(");
    for (uint32_t i = 0; i < 3; i++) {
      tsl_strbuf_append(sb, i ? ", " : "");
      access(sb, &bufs[i], out->s);
    }
    tsl_strbuf_append(sb, ")\n");
    return TSL_OK;
  }
  if (op == TSL_RX_OP_BROADCAST_TO) {
    access(sb, &bufs[0], out->s);
    tsl_strbuf_append(sb, "\n");
    return TSL_OK;
  }
  const tsl_rx_sinfo *x = bufs[0].s, *idx = bufs[1].s;
  int64_t axis = tsl_rx_attr_int(call->attrs, "axis", 0);
  axis = axis < 0 ? axis + x->ndim : axis;
  /* the index, as int64: B[v_i<axis> .. v_i<axis + idx rank - 1>] */
  tsl_strbuf t;
  tsl_strbuf_init(&t);
  tsl_strbuf_printf(&t, idx->dtype.bits == 64 && idx->dtype.code == TSL_DT_INT
                            ? "%s[" : "T.Cast(\"int64\", %s[", bufs[1].name);
  if (!idx->ndim)
    tsl_strbuf_append(&t, "()");
  for (int32_t d = 0; d < idx->ndim; d++)
    tsl_strbuf_printf(&t, "%sv_i%d", d ? ", " : "", (int)(axis + d));
  tsl_strbuf_append(&t, idx->dtype.bits == 64 && idx->dtype.code == TSL_DT_INT ? "]" : "])");
  const char *i = t.data;
  tsl_strbuf_printf(sb, "%s[", bufs[0].name);
  for (int32_t d = 0; d < x->ndim; d++) {
    tsl_strbuf_append(sb, d ? ", " : "");
    if (d < axis) {
      tsl_strbuf_printf(sb, "v_i%d", (int)d);
    } else if (d > axis) {
      tsl_strbuf_printf(sb, "v_i%d", (int)(d - 1 + idx->ndim));
    } else {
      tsl_strbuf_printf(sb, "T.min(T.max(T.Select(%s < T.int64(0), %s + ", i, i);
      lg_dim(sb, x->shape[d]);
      tsl_strbuf_printf(sb, ", %s), T.int64(0)), ", i);
      int64_t size;
      if (tsl_expr_is_const_int(x->shape[d], &size)) {
        tsl_strbuf_printf(sb, "T.int64(%lld))", (long long)(size - 1));
      } else {
        lg_dim(sb, x->shape[d]);
        tsl_strbuf_append(sb, " - T.int64(1))");
      }
    }
  }
  tsl_strbuf_append(sb, "]\n");
  tsl_strbuf_free(&t);
  return TSL_OK;
}

int legalize_op_script(const tsl_rx_expr *call, const char *name, tsl_strbuf *sb,
                       tsl_diag *diag) {
  tsl_rx_op op = (tsl_rx_op)call->op;
  if (op == TSL_RX_OP_WHERE || op == TSL_RX_OP_TAKE || op == TSL_RX_OP_BROADCAST_TO)
    return gather(sb, name, call, diag);
  if (op >= TSL_RX_OP_CONV2D && !tsl_rx_op_elementwise(op))
    return legalize_nn_script(call, name, sb, diag);
  if (op >= TSL_RX_OP_ASTYPE && !tsl_rx_op_elementwise(op))
    return legalize_layout_script(call, name, sb, diag);
  const tsl_rx_sinfo *o = call->sinfo;
  for (uint32_t i = 0; i <= call->n_args; i++) {
    const tsl_rx_sinfo *s = i < call->n_args ? call->args[i]->sinfo : o;
    if (s->kind != TSL_RX_SINFO_TENSOR || s->ndim < 0 || !s->shape ||
        tsl_dtype_is_void(s->dtype)) {
      char *t = tsl_rx_sinfo_print(s);
      tsl_diag_set(diag, TSL_EUNSUPPORTED, "R.%s: %s %u is %s; legalize needs the dtype and "
                   "shape of every operand (bind the weights first: bind_params)",
                   tsl_rx_op_name(op), i < call->n_args ? "operand" : "result", i,
                   t ? t : "?");
      free(t);
      return TSL_EUNSUPPORTED;
    }
  }
  lg_buf bufs[3];
  static const char *const in_names[] = {"A", "B"};
  for (uint32_t i = 0; i < call->n_args; i++)
    bufs[i] = (lg_buf){in_names[i], call->args[i]->sinfo};
  char out_name[32];
  snprintf(out_name, sizeof out_name,
           op == TSL_RX_OP_MATMUL ? "matmul" : op == TSL_RX_OP_RELU ? "compute" : "T_%s",
           tsl_rx_op_name(op));
  bufs[call->n_args] = (lg_buf){out_name, o};
  switch (op) {
  case TSL_RX_OP_ADD: case TSL_RX_OP_SUBTRACT: case TSL_RX_OP_MULTIPLY: case TSL_RX_OP_DIVIDE:
  case TSL_RX_OP_EXP: case TSL_RX_OP_SQRT: case TSL_RX_OP_TANH: case TSL_RX_OP_SIGMOID:
  case TSL_RX_OP_RELU: case TSL_RX_OP_ERF: case TSL_RX_OP_POWER: case TSL_RX_OP_MAXIMUM:
  case TSL_RX_OP_MINIMUM:
    lg_signature(sb, name, bufs, call->n_args + 1);
    elementwise(sb, op, bufs, call->n_args, &bufs[call->n_args]);
    return TSL_OK;
  case TSL_RX_OP_MATMUL:
    lg_signature(sb, name, bufs, 3);
    matmul(sb, bufs, &bufs[2]);
    return TSL_OK;
  default:
    return tsl_diag_set(diag, TSL_EUNSUPPORTED, "R.%s has no legalization",
                        tsl_rx_op_name(op));
  }
}
