/*
 * The prim_funcs LegalizeOps writes for the operators with attributes, in
 * the shape TVM v0.19's TOPI gives them:
 *   astype        cast, block compute
 *   nn.gelu       gelu, block T_multiply: x * (1/2 + erf(x / sqrt 2) / 2)
 *   nn.silu       silu, block T_multiply: x * sigmoid(x)
 *   permute_dims  transpose, block T_transpose
 *   reshape,      reshape, block T_reshape: the output's flat index read
 *   flatten       back in the input's shape (constant shapes)
 *   sum, max      sum / max, block A_red: the kept loops, then the reduced
 *   mean          mean: A_red, then T_divide by the count
 *   nn.softmax    softmax: T_softmax_maxelem, T_softmax_exp,
 *                 T_softmax_expsum, T_softmax_norm
 *   concat        concatenate, block T_concat: nested T.if_then_else
 * Differences from TVM are in core/passes/README.md.
 */
#include "passes_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int32_t axis_of(int64_t a, int32_t ndim) { return (int32_t)(a < 0 ? a + ndim : a); }

static const char *dt(tsl_dtype t, char *buf) { return tsl_dtype_str(t, buf); }

/* name[v_i<first>, v_i<first+1>, ...] over n dims; "name[()]" for none. */
static void at(tsl_strbuf *sb, const char *name, int32_t first, int32_t n) {
  tsl_strbuf_printf(sb, "%s[", name);
  if (!n)
    tsl_strbuf_append(sb, "()");
  for (int32_t i = 0; i < n; i++)
    tsl_strbuf_printf(sb, "%sv_i%d", i ? ", " : "", (int)(first + i));
  tsl_strbuf_append(sb, "]");
}

/* A grid over a shape's dimensions, all spatial. */
static int spatial(tsl_strbuf *sb, int ind, const char *block, const tsl_rx_sinfo *s) {
  char kinds[65];
  memset(kinds, 'S', sizeof kinds);
  return lg_grid(sb, ind, block, s->ndim, s->shape, kinds);
}

/* out = f(A) element by element (astype, gelu, silu). */
static void unary(tsl_strbuf *sb, tsl_rx_op op, const lg_buf *a, const lg_buf *out) {
  char t[32];
  int ind = spatial(sb, 4, out->name, out->s);
  tsl_strbuf_printf(sb, "%*s", ind, "");
  at(sb, out->name, 0, out->s->ndim);
  tsl_strbuf_append(sb, " = ");
  if (op == TSL_RX_OP_ASTYPE) {
    tsl_strbuf_printf(sb, "T.Cast(\"%s\", ", dt(out->s->dtype, t));
    at(sb, a->name, 0, a->s->ndim);
    tsl_strbuf_append(sb, ")\n");
    return;
  }
  dt(a->s->dtype, t);
  at(sb, a->name, 0, a->s->ndim);
  if (op == TSL_RX_OP_SILU) {
    tsl_strbuf_append(sb, " * T.sigmoid(");
    at(sb, a->name, 0, a->s->ndim);
    tsl_strbuf_append(sb, ")\n");
    return;
  }
  tsl_strbuf_printf(sb, " * (T.%s(0.5) + T.erf(", t);
  at(sb, a->name, 0, a->s->ndim);
  tsl_strbuf_printf(sb, " * T.%s(0.70710678118654757)) * T.%s(0.5))\n", t, t);
}

static void transpose(tsl_strbuf *sb, tsl_attrs attrs, const lg_buf *a, const lg_buf *out) {
  int64_t axes[64];
  int32_t n = tsl_rx_attr_ints(attrs, "axes", axes, 64);
  for (int32_t i = 0; n < 0 && i < a->s->ndim; i++)
    axes[i] = a->s->ndim - 1 - i;
  int32_t src[64]; /* the output dimension that indexes input dimension d */
  for (int32_t j = 0; j < a->s->ndim; j++)
    src[axis_of(axes[j], a->s->ndim)] = j;
  int ind = spatial(sb, 4, "T_transpose", out->s);
  tsl_strbuf_printf(sb, "%*s", ind, "");
  at(sb, out->name, 0, out->s->ndim);
  tsl_strbuf_printf(sb, " = %s[", a->name);
  if (!a->s->ndim)
    tsl_strbuf_append(sb, "()");
  for (int32_t d = 0; d < a->s->ndim; d++)
    tsl_strbuf_printf(sb, "%sv_i%d", d ? ", " : "", (int)src[d]);
  tsl_strbuf_append(sb, "]\n");
}

/* The product of s's dimensions [from, ndim) as TVMScript: the constants
 * multiplied out, symbolic sizes as factors (then in parentheses). */
static void dims_product(tsl_strbuf *sb, const tsl_rx_sinfo *s, int32_t from) {
  int64_t k = 1, v;
  int symbolic = 0;
  for (int32_t d = from; d < s->ndim; d++) {
    if (tsl_expr_is_const_int(s->shape[d], &v))
      k *= v;
    else
      symbolic = 1;
  }
  tsl_strbuf_printf(sb, "%sT.int64(%lld)", symbolic ? "(" : "", (long long)k);
  for (int32_t d = from; d < s->ndim; d++)
    if (!tsl_expr_is_const_int(s->shape[d], &v)) {
      tsl_strbuf_append(sb, " * ");
      lg_dim(sb, s->shape[d]);
    }
  tsl_strbuf_append(sb, symbolic ? ")" : "");
}

/* out[i...] = A[unravel(ravel(i))], sizes constant or symbolic. */
static int reshape(tsl_strbuf *sb, const lg_buf *a, const lg_buf *out) {
  tsl_strbuf flat;
  tsl_strbuf_init(&flat);
  for (int32_t d = out->s->ndim; d-- > 0;) {
    tsl_strbuf_printf(&flat, "%sv_i%d * ", flat.len ? " + " : "", (int)d);
    dims_product(&flat, out->s, d + 1);
  }
  if (!flat.len)
    tsl_strbuf_append(&flat, "T.int64(0)");
  int ind = spatial(sb, 4, "T_reshape", out->s);
  tsl_strbuf_printf(sb, "%*s", ind, "");
  at(sb, out->name, 0, out->s->ndim);
  tsl_strbuf_printf(sb, " = %s[", a->name);
  if (!a->s->ndim)
    tsl_strbuf_append(sb, "()");
  for (int32_t d = 0; d < a->s->ndim; d++) {
    tsl_strbuf_printf(sb, "%s(%s) // ", d ? ", " : "", flat.data);
    dims_product(sb, a->s, d + 1);
    tsl_strbuf_append(sb, " % ");
    lg_dim(sb, a->s->shape[d]);
  }
  tsl_strbuf_append(sb, "]\n");
  tsl_strbuf_free(&flat);
  return TSL_OK;
}

/* A_red over the reduced axes (sum, max), then mean's T_divide. */
static void reduce(tsl_strbuf *sb, tsl_rx_op op, tsl_attrs attrs, const lg_buf *a,
                   const lg_buf *out) {
  int64_t axes[64];
  int32_t n = tsl_rx_attr_ints(attrs, "axis", axes, 64);
  int keep = (int)tsl_rx_attr_int(attrs, "keepdims", 0), red[64] = {0};
  int32_t nd = a->s->ndim;
  for (int32_t i = 0; i < nd; i++)
    red[i] = n < 0;
  for (int32_t i = 0; i < n; i++)
    red[axis_of(axes[i], nd)] = 1;
  /* loops: the kept dimensions, then the reduced ones */
  const tsl_expr *dims[64];
  char kinds[65];
  int32_t loop_of[64], k = 0;
  for (int32_t pass = 0; pass < 2; pass++)
    for (int32_t i = 0; i < nd; i++)
      if (red[i] == pass) {
        loop_of[i] = k;
        dims[k] = a->s->shape[i];
        kinds[k++] = pass ? 'R' : 'S';
      }
  char t[32];
  dt(out->s->dtype, t);
  const char *red_name = op == TSL_RX_OP_MEAN ? "A_red" : out->name;
  if (op == TSL_RX_OP_MEAN) { /* the sums first */
    tsl_strbuf_printf(sb, "    A_red = T.alloc_buffer((");
    for (int32_t i = 0; i < out->s->ndim; i++) {
      tsl_strbuf_append(sb, i ? ", " : "");
      lg_dim(sb, out->s->shape[i]);
    }
    tsl_strbuf_printf(sb, "%s), \"%s\")\n", out->s->ndim == 1 ? "," : "", t);
  }
  int ind = lg_grid(sb, 4, "A_red", k, dims, kinds);
  /* the output's index: the kept loops (a reduced axis kept as 0) */
  char oi[512] = "";
  for (int32_t i = 0; i < nd; i++) {
    char one[40];
    if (red[i] && !keep)
      continue;
    if (red[i])
      snprintf(one, sizeof one, "%sT.int64(0)", oi[0] ? ", " : "");
    else
      snprintf(one, sizeof one, "%sv_i%d", oi[0] ? ", " : "", (int)loop_of[i]);
    strncat(oi, one, sizeof oi - strlen(oi) - 1);
  }
  if (!oi[0])
    snprintf(oi, sizeof oi, "()");
  char ai[512] = "";
  for (int32_t i = 0; i < nd; i++) {
    char one[32];
    snprintf(one, sizeof one, "%sv_i%d", i ? ", " : "", (int)loop_of[i]);
    strncat(ai, one, sizeof ai - strlen(ai) - 1);
  }
  if (!nd)
    snprintf(ai, sizeof ai, "()");
  const char *init = op == TSL_RX_OP_MAX ? "T.min_value(\"%s\")" : "T.%s(0)";
  char init_text[64];
  snprintf(init_text, sizeof init_text, init, t);
  tsl_strbuf_printf(sb, "%*swith T.init():\n%*s%s[%s] = %s\n", ind, "", ind + 4, "", red_name,
                    oi, init_text);
  if (op == TSL_RX_OP_MAX)
    tsl_strbuf_printf(sb, "%*s%s[%s] = T.max(%s[%s], %s[%s])\n", ind, "", red_name, oi,
                      red_name, oi, a->name, ai);
  else
    tsl_strbuf_printf(sb, "%*s%s[%s] = %s[%s] + %s[%s]\n", ind, "", red_name, oi, red_name, oi,
                      a->name, ai);
  if (op != TSL_RX_OP_MEAN)
    return;
  int64_t count = 1, v;
  for (int32_t i = 0; i < nd; i++)
    count *= red[i] && tsl_expr_is_const_int(a->s->shape[i], &v) ? v : 1;
  ind = spatial(sb, 4, "T_divide", out->s);
  tsl_strbuf_printf(sb, "%*s", ind, "");
  at(sb, out->name, 0, out->s->ndim);
  tsl_strbuf_append(sb, " = ");
  at(sb, "A_red", 0, out->s->ndim);
  tsl_strbuf_printf(sb, " / T.%s(%lld)\n", t, (long long)count);
}

/* TVM's four blocks: the max along the axis, exp(x - max), their sum, the
 * quotient. */
static void softmax(tsl_strbuf *sb, tsl_attrs attrs, const lg_buf *a, const lg_buf *out) {
  int32_t nd = a->s->ndim, axis = axis_of(tsl_rx_attr_int(attrs, "axis", -1), nd);
  char t[32];
  dt(a->s->dtype, t);
  /* the shape without the axis (maxelem, expsum) */
  const tsl_expr *rdims[64];
  int32_t nr = 0;
  for (int32_t i = 0; i < nd; i++)
    if (i != axis)
      rdims[nr++] = a->s->shape[i];
  tsl_strbuf_append(sb, "    T_softmax_maxelem = T.alloc_buffer((");
  for (int32_t i = 0; i < nr; i++) {
    tsl_strbuf_append(sb, i ? ", " : "");
    lg_dim(sb, rdims[i]);
  }
  tsl_strbuf_printf(sb, "%s), \"%s\")\n    T_softmax_exp = T.alloc_buffer((", nr == 1 ? "," : "",
                    t);
  for (int32_t i = 0; i < nd; i++) {
    tsl_strbuf_append(sb, i ? ", " : "");
    lg_dim(sb, a->s->shape[i]);
  }
  tsl_strbuf_printf(sb, "%s), \"%s\")\n    T_softmax_expsum = T.alloc_buffer((", nd == 1 ? "," : "",
                    t);
  for (int32_t i = 0; i < nr; i++) {
    tsl_strbuf_append(sb, i ? ", " : "");
    lg_dim(sb, rdims[i]);
  }
  tsl_strbuf_printf(sb, "%s), \"%s\")\n", nr == 1 ? "," : "", t);
  /* reductions: loops over the other dims, then the axis (v_i<nr>) */
  const tsl_expr *dims[65];
  char kinds[66];
  memset(kinds, 'S', sizeof kinds);
  for (int32_t i = 0; i < nr; i++)
    dims[i] = rdims[i];
  dims[nr] = a->s->shape[axis];
  kinds[nr] = 'R';
  char full[512] = "", part[512] = "";
  for (int32_t i = 0, k = 0; i < nd; i++) { /* the input's index in the reduction's vars */
    char one[24];
    snprintf(one, sizeof one, "%sv_i%d", i ? ", " : "", (int)(i == axis ? nr : k++));
    strncat(full, one, sizeof full - strlen(full) - 1);
  }
  for (int32_t i = 0; i < nr; i++) {
    char one[24];
    snprintf(one, sizeof one, "%sv_i%d", i ? ", " : "", (int)i);
    strncat(part, one, sizeof part - strlen(part) - 1);
  }
  if (!nr)
    snprintf(part, sizeof part, "()");
  int ind = lg_grid(sb, 4, "T_softmax_maxelem", nr + 1, dims, kinds);
  tsl_strbuf_printf(sb, "%*swith T.init():\n%*sT_softmax_maxelem[%s] = T.min_value(\"%s\")\n"
                    "%*sT_softmax_maxelem[%s] = T.max(T_softmax_maxelem[%s], %s[%s])\n",
                    ind, "", ind + 4, "", part, t, ind, "", part, part, a->name, full);
  /* element-wise blocks index the maxelem / expsum without the axis */
  char el[512] = "";
  for (int32_t i = 0; i < nd; i++) {
    char one[24];
    if (i == axis)
      continue;
    snprintf(one, sizeof one, "%sv_i%d", el[0] ? ", " : "", (int)i);
    strncat(el, one, sizeof el - strlen(el) - 1);
  }
  if (!el[0])
    snprintf(el, sizeof el, "()");
  ind = spatial(sb, 4, "T_softmax_exp", a->s);
  tsl_strbuf_printf(sb, "%*s", ind, "");
  at(sb, "T_softmax_exp", 0, nd);
  tsl_strbuf_append(sb, " = T.exp(");
  at(sb, a->name, 0, nd);
  tsl_strbuf_printf(sb, " - T_softmax_maxelem[%s])\n", el);
  ind = lg_grid(sb, 4, "T_softmax_expsum", nr + 1, dims, kinds);
  tsl_strbuf_printf(sb, "%*swith T.init():\n%*sT_softmax_expsum[%s] = T.%s(0)\n"
                    "%*sT_softmax_expsum[%s] = T_softmax_expsum[%s] + T_softmax_exp[%s]\n",
                    ind, "", ind + 4, "", part, t, ind, "", part, part, full);
  ind = spatial(sb, 4, "T_softmax_norm", a->s);
  tsl_strbuf_printf(sb, "%*s", ind, "");
  at(sb, out->name, 0, nd);
  tsl_strbuf_append(sb, " = ");
  at(sb, "T_softmax_exp", 0, nd);
  tsl_strbuf_printf(sb, " / T_softmax_expsum[%s]\n", el);
}

/* out[.., i, ..] = the input whose range along the axis holds i. */
static int concat(tsl_strbuf *sb, tsl_attrs attrs, const lg_buf *in, uint32_t n,
                  const lg_buf *out, tsl_diag *diag) {
  int32_t nd = out->s->ndim, axis = axis_of(tsl_rx_attr_int(attrs, "axis", 0), nd);
  int64_t len[26];
  for (uint32_t k = 0; k < n; k++)
    if (!tsl_expr_is_const_int(in[k].s->shape[axis], &len[k]))
      return tsl_diag_set(diag, TSL_EUNSUPPORTED, "R.concat along a symbolic dimension has "
                          "no legalization yet");
  int ind = spatial(sb, 4, "T_concat", out->s);
  tsl_strbuf_printf(sb, "%*s", ind, "");
  at(sb, out->name, 0, nd);
  tsl_strbuf_append(sb, " = ");
  int64_t start = 0;
  for (uint32_t k = 0; k < n; k++) {
    int last = k + 1 == n;
    if (!last)
      tsl_strbuf_printf(sb, "T.if_then_else(v_i%d < T.int64(%lld), ", (int)axis,
                        (long long)(start + len[k]));
    tsl_strbuf_printf(sb, "%s[", in[k].name);
    for (int32_t d = 0; d < nd; d++) {
      if (d != axis || !start)
        tsl_strbuf_printf(sb, "%sv_i%d", d ? ", " : "", (int)d);
      else
        tsl_strbuf_printf(sb, "%sv_i%d - T.int64(%lld)", d ? ", " : "", (int)d,
                          (long long)start);
    }
    tsl_strbuf_append(sb, last ? "]" : "], ");
    start += len[k];
  }
  for (uint32_t k = 1; k < n; k++)
    tsl_strbuf_append(sb, ")");
  tsl_strbuf_append(sb, "\n");
  return TSL_OK;
}

int legalize_layout_script(const tsl_rx_expr *call, const char *name, tsl_strbuf *sb,
                           tsl_diag *diag) {
  tsl_rx_op op = (tsl_rx_op)call->op;
  const tsl_rx_expr *const *ins = call->args;
  uint32_t n_in = call->n_args;
  if (op == TSL_RX_OP_CONCAT) { /* the tuple's fields */
    ins = call->args[0]->args;
    n_in = call->args[0]->kind == TSL_RX_EXPR_TUPLE ? call->args[0]->n_args : 0;
    if (!n_in || n_in > 26)
      return tsl_diag_set(diag, TSL_EUNSUPPORTED, "R.concat: legalize takes a tuple written "
                          "in place, of 1 to 26 tensors");
  }
  static const char *const names[26] = {"A", "B", "C", "D", "E", "F", "G", "H", "I",
                                        "J", "K", "L", "M", "N", "O", "P", "Q", "R",
                                        "S", "T", "U", "V", "W", "X", "Y", "Z"};
  lg_buf bufs[27];
  for (uint32_t i = 0; i <= n_in; i++) {
    const tsl_rx_sinfo *s = i < n_in ? ins[i]->sinfo : call->sinfo;
    if (lg_operand(s, op, i, i >= n_in, diag))
      return TSL_EUNSUPPORTED;
    bufs[i] = (lg_buf){i < n_in ? names[i] : NULL, s};
  }
  const char *out_name = op == TSL_RX_OP_ASTYPE                          ? "compute"
                         : op == TSL_RX_OP_GELU || op == TSL_RX_OP_SILU  ? "T_multiply"
                         : op == TSL_RX_OP_PERMUTE_DIMS                  ? "T_transpose"
                         : op == TSL_RX_OP_RESHAPE || op == TSL_RX_OP_FLATTEN ? "T_reshape"
                         : op == TSL_RX_OP_SOFTMAX                       ? "T_softmax_norm"
                         : op == TSL_RX_OP_CONCAT                        ? "T_concat"
                         : op == TSL_RX_OP_MEAN                          ? "T_divide"
                                                                         : "A_red";
  bufs[n_in].name = out_name;
  lg_signature(sb, name, bufs, n_in + 1);
  const lg_buf *a = &bufs[0], *out = &bufs[n_in];
  switch (op) {
  case TSL_RX_OP_ASTYPE: case TSL_RX_OP_GELU: case TSL_RX_OP_SILU:
    unary(sb, op, a, out);
    return TSL_OK;
  case TSL_RX_OP_PERMUTE_DIMS:
    transpose(sb, call->attrs, a, out);
    return TSL_OK;
  case TSL_RX_OP_RESHAPE: case TSL_RX_OP_FLATTEN:
    return reshape(sb, a, out);
  case TSL_RX_OP_SUM: case TSL_RX_OP_MEAN: case TSL_RX_OP_MAX:
    reduce(sb, op, call->attrs, a, out);
    return TSL_OK;
  case TSL_RX_OP_SOFTMAX:
    softmax(sb, call->attrs, a, out);
    return TSL_OK;
  case TSL_RX_OP_CONCAT:
    return concat(sb, call->attrs, bufs, n_in, out, diag);
  default:
    return tsl_diag_set(diag, TSL_EUNSUPPORTED, "R.%s has no legalization", tsl_rx_op_name(op));
  }
}
