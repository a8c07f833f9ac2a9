/*
 * The prim_funcs LegalizeOps writes for the network operators of relax.h
 * 1.6, in the shape TVM v0.19's TOPI gives them (any order of NCHW /
 * OIHW, 1.7: loops in the data layout's order):
 *   nn.conv2d              conv2d: pad_temp (when padded), then
 *                          conv2d_nchw (conv2d_nhwc, ...; group_conv2d_
 *                          with groups), the reductions last, C, H, W in
 *                          the data layout's order
 *   nn.max_pool2d          max_pool2d: pad_temp (the dtype's lowest value
 *                          outside), pool_max
 *   nn.avg_pool2d          avg_pool2d: pad_temp (0 outside), pool_sum,
 *                          pool_avg dividing by the window's count
 *   nn.adaptive_avg_pool2d adaptive_avg_pool2d: adaptive_pool_sum over
 *                          the largest window (cells past a smaller one
 *                          read as 0), adaptive_pool_avg
 *   nn.batch_norm          batch_norm: T_batch_norm (inference, the moving
 *                          statistics), T_mean and T_var passing them on
 *   nn.layer_norm          layer_norm: A_red_sum and A_red_sqsum, then
 *                          T_layer_norm (variance E[x^2] - E[x]^2, TOPI's)
 *   split                  split: one block per part, T_split_sections,
 *                          T_split_sections_1, ... (T_split for indices)
 * Differences from TVM are in core/passes/README.md.
 */
#include "passes_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A constant int64 dimension for lg_grid. */
static const tsl_expr *kdim(tsl_expr *slot, int64_t v) {
  memset(slot, 0, sizeof *slot);
  slot->kind = TSL_EXPR_INT_IMM;
  slot->dtype = TSL_INT64;
  slot->u.int_value = v;
  return slot;
}

static int64_t cdim(const tsl_rx_sinfo *s, int32_t d) {
  int64_t v = -1;
  tsl_expr_is_const_int(s->shape[d], &v);
  return v;
}

static const char *dt(tsl_dtype t, char *buf) { return tsl_dtype_str(t, buf); }

/* "v * s + r * d" as TOPI prints a window index (factors of 1 left out). */
static const char *window(char *buf, size_t cap, const char *v, int64_t s, const char *r,
                          int64_t d) {
  char a[64], b[64];
  snprintf(a, sizeof a, s == 1 ? "%s" : "%s * T.int64(%lld)", v, (long long)s);
  snprintf(b, sizeof b, d == 1 ? "%s" : "%s * T.int64(%lld)", r, (long long)d);
  snprintf(buf, cap, "%s + %s", a, b);
  return buf;
}

/* `name = T.alloc_buffer(out's shape, dtype t)` */
static void alloc_like(tsl_strbuf *sb, const char *name, const lg_buf *out, const char *t) {
  tsl_strbuf_printf(sb, "    %s = T.alloc_buffer((", name);
  for (int32_t d = 0; d < out->s->ndim; d++) {
    if (d)
      tsl_strbuf_append(sb, ", ");
    lg_dim(sb, out->s->shape[d]);
  }
  tsl_strbuf_printf(sb, "%s), \"%s\")\n", out->s->ndim == 1 ? "," : "", t);
}

/* A 4-d operand's layout: ax[d] is where logical dimension d (N, C, H, W
 * or O, I, H, W) sits; v[d] the output loop variable that walks it. */
typedef struct lay4 {
  int32_t ax[4];
  char v[4][8];
} lay4;

static lay4 layout_of(tsl_attrs attrs, const char *key, const char *canon) {
  lay4 l = {{0, 1, 2, 3}, {""}};
  tsl_rx_layout_axes(tsl_rx_attr_str(attrs, key, canon), canon, l.ax);
  for (int d = 0; d < 4; d++)
    snprintf(l.v[d], sizeof l.v[d], "v_i%d", (int)l.ax[d]);
  return l;
}

/* "e0, e1, e2, e3": the logical indices n, c, h, w placed by `l`. */
static const char *placed(char *buf, size_t cap, const lay4 *l, const char *n, const char *c,
                          const char *h, const char *w) {
  const char *e[4];
  e[l->ax[0]] = n;
  e[l->ax[1]] = c;
  e[l->ax[2]] = h;
  e[l->ax[3]] = w;
  snprintf(buf, cap, "%s, %s, %s, %s", e[0], e[1], e[2], e[3]);
  return buf;
}

static int64_t ldim(const tsl_rx_sinfo *s, const lay4 *l, int d) { return cdim(s, l->ax[d]); }

/* pad_temp over `src` (layout l): `ph` x `pw` cells, `top`, `left` before
 * the data, `fill` outside it. */
static void pad_block(tsl_strbuf *sb, const lg_buf *src, const lay4 *l, int64_t ph, int64_t pw,
                      int64_t top, int64_t left, const char *fill) {
  char t[32], ix[400], iy[64], ixx[64];
  int64_t h = ldim(src->s, l, 2), w = ldim(src->s, l, 3);
  tsl_expr k[3];
  const tsl_expr *dims[4];
  dims[l->ax[0]] = src->s->shape[l->ax[0]];
  dims[l->ax[1]] = kdim(&k[0], ldim(src->s, l, 1));
  dims[l->ax[2]] = kdim(&k[1], ph);
  dims[l->ax[3]] = kdim(&k[2], pw);
  tsl_strbuf_append(sb, "    pad_temp = T.alloc_buffer((");
  for (int d = 0; d < 4; d++) {
    if (d)
      tsl_strbuf_append(sb, ", ");
    lg_dim(sb, dims[d]);
  }
  tsl_strbuf_printf(sb, "), \"%s\")\n", dt(src->s->dtype, t));
  int ind = lg_grid(sb, 4, "pad_temp", 4, dims, "SSSS");
  snprintf(iy, sizeof iy, "%s - T.int64(%lld)", l->v[2], (long long)top);
  snprintf(ixx, sizeof ixx, "%s - T.int64(%lld)", l->v[3], (long long)left);
  tsl_strbuf_printf(sb, "%*spad_temp[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(T.int64(%lld) <= "
                    "%s and %s < T.int64(%lld) and T.int64(%lld) <= %s and %s < "
                    "T.int64(%lld), %s[%s], %s)\n", ind, "", (long long)top, l->v[2], l->v[2],
                    (long long)(top + h), (long long)left, l->v[3], l->v[3],
                    (long long)(left + w), src->name,
                    placed(ix, sizeof ix, l, l->v[0], l->v[1], iy, ixx), fill);
}

/* TOPI's generic convolution: the output loops in the data layout's
 * order, then the reductions over C, H and W in the order the data
 * layout has them (rc, ry, rx for NCHW; ry, rx, rc for NHWC). */
static void conv2d(tsl_strbuf *sb, tsl_attrs attrs, const lg_buf *a, const lg_buf *b,
                   const lg_buf *out) {
  int64_t st[2], pad[4], dil[2], g = tsl_rx_attr_int(attrs, "groups", 1);
  tsl_rx_attr_ints_n(attrs, "strides", 1, 2, st);
  tsl_rx_attr_ints_n(attrs, "padding", 0, 4, pad);
  tsl_rx_attr_ints_n(attrs, "dilation", 1, 2, dil);
  lay4 x = layout_of(attrs, "data_layout", "NCHW"), w = layout_of(attrs, "kernel_layout", "OIHW");
  int64_t h = ldim(a->s, &x, 2), wd = ldim(a->s, &x, 3);
  int64_t o = ldim(b->s, &w, 0), kext[4] = {0, ldim(b->s, &w, 1), ldim(b->s, &w, 2),
                                            ldim(b->s, &w, 3)};
  int64_t cg = kext[1];
  int padded = pad[0] || pad[1] || pad[2] || pad[3];
  const char *src = a->name;
  if (padded) {
    pad_block(sb, a, &x, h + pad[0] + pad[2], wd + pad[1] + pad[3], pad[0], pad[1],
              "T.float32(0)");
    src = "pad_temp";
  }
  char t[32];
  dt(out->s->dtype, t);
  /* the reductions rc (1), ry (2), rx (3) in the data layout's order */
  int red[3] = {1, 2, 3};
  for (int i = 0; i < 3; i++)
    for (int j = i + 1; j < 3; j++)
      if (x.ax[red[j]] < x.ax[red[i]]) {
        int tmp = red[i];
        red[i] = red[j];
        red[j] = tmp;
      }
  char rv[4][8];
  tsl_expr k[3];
  const tsl_expr *dims[7] = {out->s->shape[0], out->s->shape[1], out->s->shape[2],
                             out->s->shape[3]};
  for (int i = 0; i < 3; i++) {
    dims[4 + i] = kdim(&k[i], kext[red[i]]);
    snprintf(rv[red[i]], sizeof rv[0], "v_i%d", 4 + i);
  }
  int ind = lg_grid(sb, 4, out->name, 7, dims, "SSSSRRR");
  char ch[96];
  if (g > 1)
    snprintf(ch, sizeof ch, "%s // T.int64(%lld) * T.int64(%lld) + %s", x.v[1],
             (long long)(o / g), (long long)cg, rv[1]);
  else
    snprintf(ch, sizeof ch, "%s", rv[1]);
  tsl_strbuf_printf(sb, "%*swith T.init():\n%*s%s[v_i0, v_i1, v_i2, v_i3] = T.%s(0)\n", ind, "",
                    ind + 4, "", out->name, t);
  char wy[160], wx[160], ia[400], ib[200];
  tsl_strbuf_printf(sb, "%*s%s[v_i0, v_i1, v_i2, v_i3] = %s[v_i0, v_i1, v_i2, v_i3] + %s[%s] * "
                    "%s[%s]\n", ind, "", out->name, out->name, src,
                    placed(ia, sizeof ia, &x, x.v[0], ch,
                           window(wy, sizeof wy, x.v[2], st[0], rv[2], dil[0]),
                           window(wx, sizeof wx, x.v[3], st[1], rv[3], dil[1])),
                    b->name, placed(ib, sizeof ib, &w, x.v[1], rv[1], rv[2], rv[3]));
}

static int pool2d(tsl_strbuf *sb, tsl_rx_op op, tsl_attrs attrs, const lg_buf *a,
                  const lg_buf *out, tsl_diag *diag) {
  int64_t k[2], st[2], pad[4], dil[2];
  tsl_rx_attr_ints_n(attrs, "pool_size", 1, 2, k);
  tsl_rx_attr_ints_n(attrs, "strides", 1, 2, st);
  tsl_rx_attr_ints_n(attrs, "padding", 0, 4, pad);
  tsl_rx_attr_ints_n(attrs, "dilation", 1, 2, dil);
  int avg = op == TSL_RX_OP_AVG_POOL2D;
  if (avg && (dil[0] != 1 || dil[1] != 1))
    return tsl_diag_set(diag, TSL_EUNSUPPORTED, "R.nn.avg_pool2d with dilation has no "
                        "legalization yet");
  lay4 x = layout_of(attrs, "layout", "NCHW");
  int64_t h = ldim(a->s, &x, 2), w = ldim(a->s, &x, 3), oh = ldim(out->s, &x, 2),
          ow = ldim(out->s, &x, 3);
  /* every cell a window reads (ceil_mode reaches past the padding) */
  int64_t ph = (oh - 1) * st[0] + dil[0] * (k[0] - 1) + 1, pw = (ow - 1) * st[1] + dil[1] * (k[1] - 1) + 1;
  if (ph < h + pad[0])
    ph = h + pad[0];
  if (pw < w + pad[1])
    pw = w + pad[1];
  char t[32], fill[64];
  dt(out->s->dtype, t);
  snprintf(fill, sizeof fill, avg ? "T.%s(0)" : "T.min_value(\"%s\")", t);
  pad_block(sb, a, &x, ph, pw, pad[0], pad[1], fill);
  const char *red = avg ? "pool_sum" : out->name;
  if (avg)
    alloc_like(sb, "pool_sum", out, t);
  tsl_expr kk[2];
  const tsl_expr *dims[6] = {out->s->shape[0], out->s->shape[1], out->s->shape[2],
                             out->s->shape[3], kdim(&kk[0], k[0]), kdim(&kk[1], k[1])};
  int ind = lg_grid(sb, 4, avg ? "pool_sum" : "pool_max", 6, dims, "SSSSRR");
  char in[416], wy[160], wx[160], ix[400];
  snprintf(in, sizeof in, "pad_temp[%s]",
           placed(ix, sizeof ix, &x, x.v[0], x.v[1],
                  window(wy, sizeof wy, x.v[2], st[0], "v_i4", dil[0]),
                  window(wx, sizeof wx, x.v[3], st[1], "v_i5", dil[1])));
  tsl_strbuf_printf(sb, "%*swith T.init():\n%*s%s[v_i0, v_i1, v_i2, v_i3] = %s\n", ind, "",
                    ind + 4, "", red, fill);
  if (avg)
    tsl_strbuf_printf(sb, "%*s%s[v_i0, v_i1, v_i2, v_i3] = %s[v_i0, v_i1, v_i2, v_i3] + %s\n",
                      ind, "", red, red, in);
  else
    tsl_strbuf_printf(sb, "%*s%s[v_i0, v_i1, v_i2, v_i3] = T.max(%s[v_i0, v_i1, v_i2, v_i3], "
                      "%s)\n", ind, "", red, red, in);
  if (!avg)
    return TSL_OK;
  /* the divisor: the window's cells inside the data (or the padded frame) */
  int incl = (int)tsl_rx_attr_int(attrs, "count_include_pad", 0);
  int64_t lim_h = incl ? h + pad[2] : h, lim_w = incl ? w + pad[3] : w;
  ind = lg_grid(sb, 4, "pool_avg", 4, dims, "SSSS");
  char cnt[2][300];
  for (int d = 0; d < 2; d++) {
    const char *v = x.v[2 + d];
    int64_t s = st[d], p = pad[d], kk2 = k[d], lim = d ? lim_w : lim_h;
    if (incl)
      snprintf(cnt[d], sizeof cnt[d], "(T.min(%s * T.int64(%lld) - T.int64(%lld) + T.int64(%lld), "
               "T.int64(%lld)) - (%s * T.int64(%lld) - T.int64(%lld)))", v, (long long)s,
               (long long)p, (long long)kk2, (long long)lim, v, (long long)s, (long long)p);
    else
      snprintf(cnt[d], sizeof cnt[d], "(T.min(%s * T.int64(%lld) - T.int64(%lld) + T.int64(%lld), "
               "T.int64(%lld)) - T.max(%s * T.int64(%lld) - T.int64(%lld), T.int64(0)))", v,
               (long long)s, (long long)p, (long long)kk2, (long long)lim, v, (long long)s,
               (long long)p);
  }
  tsl_strbuf_printf(sb, "%*s%s[v_i0, v_i1, v_i2, v_i3] = pool_sum[v_i0, v_i1, v_i2, v_i3] / "
                    "T.Cast(\"%s\", %s * %s)\n", ind, "", out->name, t, cnt[0], cnt[1]);
  return TSL_OK;
}

static void adaptive(tsl_strbuf *sb, tsl_attrs attrs, const lg_buf *a, const lg_buf *out) {
  lay4 x = layout_of(attrs, "layout", "NCHW");
  int64_t h = ldim(a->s, &x, 2), w = ldim(a->s, &x, 3), oh = ldim(out->s, &x, 2),
          ow = ldim(out->s, &x, 3);
  int64_t kh = 0, kw = 0;
  for (int64_t i = 0; i < oh; i++) {
    int64_t n = ((i + 1) * h + oh - 1) / oh - i * h / oh;
    kh = n > kh ? n : kh;
  }
  for (int64_t j = 0; j < ow; j++) {
    int64_t n = ((j + 1) * w + ow - 1) / ow - j * w / ow;
    kw = n > kw ? n : kw;
  }
  char t[32];
  dt(out->s->dtype, t);
  alloc_like(sb, "adaptive_pool_sum", out, t);
  tsl_expr kk[2];
  const tsl_expr *dims[6] = {out->s->shape[0], out->s->shape[1], out->s->shape[2],
                             out->s->shape[3], kdim(&kk[0], kh), kdim(&kk[1], kw)};
  int ind = lg_grid(sb, 4, "adaptive_pool_sum", 6, dims, "SSSSRR");
  char start[2][128], end[2][128], sy[160], sx[160];
  for (int d = 0; d < 2; d++) {
    const char *v = x.v[2 + d];
    int64_t n = d ? w : h, o = d ? ow : oh;
    snprintf(start[d], sizeof start[d], "%s * T.int64(%lld) // T.int64(%lld)", v, (long long)n,
             (long long)o);
    snprintf(end[d], sizeof end[d], "((%s + T.int64(1)) * T.int64(%lld) + T.int64(%lld)) // "
             "T.int64(%lld)", v, (long long)n, (long long)(o - 1), (long long)o);
  }
  snprintf(sy, sizeof sy, "%s + v_i4", start[0]);
  snprintf(sx, sizeof sx, "%s + v_i5", start[1]);
  int exact = h % oh == 0 && w % ow == 0;
  tsl_strbuf_printf(sb, "%*swith T.init():\n%*sadaptive_pool_sum[v_i0, v_i1, v_i2, v_i3] = "
                    "T.%s(0)\n", ind, "", ind + 4, "", t);
  char in[600], ix[500];
  snprintf(in, sizeof in, "%s[%s]", a->name, placed(ix, sizeof ix, &x, x.v[0], x.v[1], sy, sx));
  if (exact)
    tsl_strbuf_printf(sb, "%*sadaptive_pool_sum[v_i0, v_i1, v_i2, v_i3] = adaptive_pool_sum[v_i0, "
                      "v_i1, v_i2, v_i3] + %s\n", ind, "", in);
  else
    tsl_strbuf_printf(sb, "%*sadaptive_pool_sum[v_i0, v_i1, v_i2, v_i3] = adaptive_pool_sum[v_i0, "
                      "v_i1, v_i2, v_i3] + T.if_then_else(%s + v_i4 < %s and %s + v_i5 < %s, %s, "
                      "T.%s(0))\n", ind, "", start[0], end[0], start[1], end[1], in, t);
  ind = lg_grid(sb, 4, "adaptive_pool_avg", 4, dims, "SSSS");
  tsl_strbuf_printf(sb, "%*s%s[v_i0, v_i1, v_i2, v_i3] = adaptive_pool_sum[v_i0, v_i1, v_i2, "
                    "v_i3] / T.Cast(\"%s\", (%s - %s) * (%s - %s))\n", ind, "", out->name, t,
                    end[0], start[0], end[1], start[1]);
}

static void batch_norm(tsl_strbuf *sb, tsl_attrs attrs, const lg_buf *in, const lg_buf *out) {
  const lg_buf *a = &in[0];
  int32_t nd = a->s->ndim;
  int64_t axis = tsl_rx_attr_int(attrs, "axis", 1);
  axis = axis < 0 ? axis + nd : axis;
  double eps = tsl_rx_attr_float(attrs, "epsilon", 1e-5);
  int center = (int)tsl_rx_attr_int(attrs, "center", 1), scale = (int)tsl_rx_attr_int(attrs, "scale", 1);
  char t[32], kinds[65], all[512] = "", c[16];
  dt(a->s->dtype, t);
  memset(kinds, 'S', sizeof kinds);
  for (int32_t d = 0; d < nd; d++)
    snprintf(all + strlen(all), sizeof all - strlen(all), "%sv_i%d", d ? ", " : "", (int)d);
  snprintf(c, sizeof c, "v_i%d", (int)axis);
  int ind = lg_grid(sb, 4, "T_batch_norm", nd, a->s->shape, kinds);
  tsl_strbuf_printf(sb, "%*s%s[%s] = (%s[%s] - %s[%s]) / T.sqrt(%s[%s] + T.%s(%.17g))", ind, "",
                    out[0].name, all, a->name, all, in[3].name, c, in[4].name, c, t, eps);
  if (scale)
    tsl_strbuf_printf(sb, " * %s[%s]", in[1].name, c);
  if (center)
    tsl_strbuf_printf(sb, " + %s[%s]", in[2].name, c);
  tsl_strbuf_append(sb, "\n");
  const tsl_expr *cd[1] = {a->s->shape[axis]};
  for (int k = 1; k < 3; k++) {
    ind = lg_grid(sb, 4, k == 1 ? "T_mean" : "T_var", 1, cd, "S");
    tsl_strbuf_printf(sb, "%*s%s[v_i0] = %s[v_i0]\n", ind, "", out[k].name, in[k + 2].name);
  }
}

static void layer_norm(tsl_strbuf *sb, tsl_attrs attrs, const lg_buf *in, const lg_buf *out) {
  const lg_buf *a = &in[0];
  int32_t nd = a->s->ndim;
  int64_t axes[8];
  int32_t na = tsl_rx_attr_ints(attrs, "axes", axes, 8), keep = nd - na;
  double eps = tsl_rx_attr_float(attrs, "epsilon", 1e-5);
  int center = (int)tsl_rx_attr_int(attrs, "center", 1), scale = (int)tsl_rx_attr_int(attrs, "scale", 1);
  char t[32], kinds[65], part[512] = "", all[512] = "", tail[512] = "";
  dt(a->s->dtype, t);
  int64_t count = 1;
  for (int32_t d = keep; d < nd; d++)
    count *= cdim(a->s, d);
  for (int32_t d = 0; d < nd; d++) {
    kinds[d] = d < keep ? 'S' : 'R';
    snprintf(all + strlen(all), sizeof all - strlen(all), "%sv_i%d", d ? ", " : "", (int)d);
    if (d < keep)
      snprintf(part + strlen(part), sizeof part - strlen(part), "%sv_i%d", d ? ", " : "", (int)d);
    else
      snprintf(tail + strlen(tail), sizeof tail - strlen(tail), "%sv_i%d", d > keep ? ", " : "",
               (int)d);
  }
  if (!keep)
    snprintf(part, sizeof part, "()");
  for (int k = 0; k < 2; k++) {
    tsl_strbuf_printf(sb, "    %s = T.alloc_buffer((", k ? "A_red_sqsum" : "A_red_sum");
    for (int32_t d = 0; d < keep; d++) {
      if (d)
        tsl_strbuf_append(sb, ", ");
      lg_dim(sb, a->s->shape[d]);
    }
    tsl_strbuf_printf(sb, "%s), \"%s\")\n", keep == 1 ? "," : "", t);
  }
  for (int k = 0; k < 2; k++) {
    const char *buf = k ? "A_red_sqsum" : "A_red_sum";
    int ind = lg_grid(sb, 4, buf, nd, a->s->shape, kinds);
    tsl_strbuf_printf(sb, "%*swith T.init():\n%*s%s[%s] = T.%s(0)\n", ind, "", ind + 4, "", buf,
                      part, t);
    if (k)
      tsl_strbuf_printf(sb, "%*s%s[%s] = %s[%s] + %s[%s] * %s[%s]\n", ind, "", buf, part, buf,
                        part, a->name, all, a->name, all);
    else
      tsl_strbuf_printf(sb, "%*s%s[%s] = %s[%s] + %s[%s]\n", ind, "", buf, part, buf, part,
                        a->name, all);
  }
  memset(kinds, 'S', sizeof kinds);
  int ind = lg_grid(sb, 4, "T_layer_norm", nd, a->s->shape, kinds);
  tsl_strbuf_printf(sb, "%*s%s[%s] = (%s[%s] - A_red_sum[%s] * T.%s(%.17g)) * T.rsqrt(A_red_sqsum[%s] "
                    "* T.%s(%.17g) - A_red_sum[%s] * T.%s(%.17g) * (A_red_sum[%s] * T.%s(%.17g)) + "
                    "T.%s(%.17g))", ind, "", out->name, all, a->name, all, part, t,
                    1.0 / (double)count, part, t, 1.0 / (double)count, part, t,
                    1.0 / (double)count, part, t, 1.0 / (double)count, t, eps);
  if (scale)
    tsl_strbuf_printf(sb, " * %s[%s]", in[1].name, tail);
  if (center)
    tsl_strbuf_printf(sb, " + %s[%s]", in[2].name, tail);
  tsl_strbuf_append(sb, "\n");
}

static void split(tsl_strbuf *sb, tsl_attrs attrs, const lg_buf *a, const lg_buf *out,
                  uint32_t n_out) {
  int32_t nd = a->s->ndim;
  int64_t axis = tsl_rx_attr_int(attrs, "axis", 0);
  axis = axis < 0 ? axis + nd : axis;
  char kinds[65];
  memset(kinds, 'S', sizeof kinds);
  int64_t start = 0;
  for (uint32_t p = 0; p < n_out; p++) {
    int ind = lg_grid(sb, 4, out[p].name, nd, out[p].s->shape, kinds);
    tsl_strbuf_printf(sb, "%*s%s[", ind, "", out[p].name);
    for (int32_t d = 0; d < nd; d++)
      tsl_strbuf_printf(sb, "%sv_i%d", d ? ", " : "", (int)d);
    tsl_strbuf_printf(sb, "] = %s[", a->name);
    for (int32_t d = 0; d < nd; d++)
      if (d == axis && start)
        tsl_strbuf_printf(sb, "%sv_i%d + T.int64(%lld)", d ? ", " : "", (int)d, (long long)start);
      else
        tsl_strbuf_printf(sb, "%sv_i%d", d ? ", " : "", (int)d);
    tsl_strbuf_append(sb, "]\n");
    start += cdim(out[p].s, (int32_t)axis);
  }
}

/* TOPI's strided_slice with axes: each output index read at begin + i *
 * stride along the sliced axes */
static void strided_slice(tsl_strbuf *sb, tsl_attrs attrs, const lg_buf *a, const lg_buf *out) {
  int32_t nd = a->s->ndim;
  int64_t dims[64], begin[64], stride[64], len[64];
  for (int32_t d = 0; d < nd; d++)
    dims[d] = cdim(a->s, d);
  tsl_rx_slice_ranges(attrs, nd, dims, begin, stride, len);
  char kinds[65];
  memset(kinds, 'S', sizeof kinds);
  int ind = lg_grid(sb, 4, out->name, nd, out->s->shape, kinds);
  tsl_strbuf_printf(sb, "%*s%s[", ind, "", out->name);
  for (int32_t d = 0; d < nd; d++)
    tsl_strbuf_printf(sb, "%sv_i%d", d ? ", " : "", (int)d);
  tsl_strbuf_printf(sb, "] = %s[", a->name);
  for (int32_t d = 0; d < nd; d++) {
    tsl_strbuf_printf(sb, d ? ", " : "");
    if (stride[d] != 1)
      tsl_strbuf_printf(sb, "v_i%d * T.int64(%lld)", (int)d, (long long)stride[d]);
    else
      tsl_strbuf_printf(sb, "v_i%d", (int)d);
    if (begin[d])
      tsl_strbuf_printf(sb, " + T.int64(%lld)", (long long)begin[d]);
  }
  tsl_strbuf_append(sb, "]\n");
}

int legalize_nn_script(const tsl_rx_expr *call, const char *name, tsl_strbuf *sb,
                       tsl_diag *diag) {
  tsl_rx_op op = (tsl_rx_op)call->op;
  static const char *const in_names[5] = {"A", "B", "C", "D", "E"};
  const tsl_rx_sinfo *rs = call->sinfo;
  uint32_t n_in = call->n_args, n_out = rs->kind == TSL_RX_SINFO_TUPLE ? rs->n_fields : 1;
  if (n_in > 5 || n_out > 64)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED, "R.%s: too many operands or parts to legalize",
                        tsl_rx_op_name(op));
  lg_buf bufs[70];
  char out_names[64][32], conv_name[32];
  for (uint32_t i = 0; i < n_in + n_out; i++) {
    const tsl_rx_sinfo *s = i < n_in ? call->args[i]->sinfo
                            : rs->kind == TSL_RX_SINFO_TUPLE ? rs->fields[i - n_in] : rs;
    if (lg_operand(s, op, i, i >= n_in, diag))
      return TSL_EUNSUPPORTED;
    bufs[i] = (lg_buf){i < n_in ? in_names[i] : NULL, s};
  }
  const lg_buf *a = &bufs[0], *out = &bufs[n_in];
  int64_t g = tsl_rx_attr_int(call->attrs, "groups", 1);
  switch (op) {
  case TSL_RX_OP_CONV2D: /* TOPI's name: conv2d_ + the data layout */
    snprintf(conv_name, sizeof conv_name, "%sconv2d_", g > 1 ? "group_" : "");
    for (const char *c = tsl_rx_attr_str(call->attrs, "data_layout", "NCHW"); *c; c++)
      snprintf(conv_name + strlen(conv_name), sizeof conv_name - strlen(conv_name), "%c",
               *c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    bufs[n_in].name = conv_name;
    break;
  case TSL_RX_OP_MAX_POOL2D: bufs[n_in].name = "pool_max"; break;
  case TSL_RX_OP_AVG_POOL2D: bufs[n_in].name = "pool_avg"; break;
  case TSL_RX_OP_ADAPTIVE_AVG_POOL2D: bufs[n_in].name = "adaptive_pool_avg"; break;
  case TSL_RX_OP_LAYER_NORM: bufs[n_in].name = "T_layer_norm"; break;
  case TSL_RX_OP_STRIDED_SLICE: bufs[n_in].name = "T_strided_slice_with_axes"; break;
  case TSL_RX_OP_BATCH_NORM:
    bufs[n_in].name = "T_batch_norm";
    bufs[n_in + 1].name = "T_mean";
    bufs[n_in + 2].name = "T_var";
    break;
  case TSL_RX_OP_SPLIT: {
    const tsl_attr_value *v = tsl_attrs_get(call->attrs, "indices_or_sections");
    const char *base = v && v->kind == TSL_ATTR_INT ? "T_split_sections" : "T_split";
    for (uint32_t p = 0; p < n_out; p++) {
      if (p)
        snprintf(out_names[p], sizeof out_names[p], "%s_%u", base, p);
      else
        snprintf(out_names[p], sizeof out_names[p], "%s", base);
      bufs[n_in + p].name = out_names[p];
    }
    break;
  }
  default:
    return tsl_diag_set(diag, TSL_EUNSUPPORTED, "R.%s has no legalization", tsl_rx_op_name(op));
  }
  lay4 xl = layout_of(call->attrs, op == TSL_RX_OP_CONV2D ? "data_layout" : "layout", "NCHW");
  for (int32_t d = 2; d < 4 && op != TSL_RX_OP_LAYER_NORM && op != TSL_RX_OP_SPLIT &&
                      op != TSL_RX_OP_BATCH_NORM && op != TSL_RX_OP_STRIDED_SLICE; d++)
    if (ldim(a->s, &xl, d) < 0)
      return tsl_diag_set(diag, TSL_EUNSUPPORTED, "R.%s of a symbolic height or width has no "
                          "legalization", tsl_rx_op_name(op));
  if (op == TSL_RX_OP_LAYER_NORM)
    for (int32_t d = 0; d < a->s->ndim; d++)
      if (d >= a->s->ndim - tsl_rx_attr_ints(call->attrs, "axes", NULL, 0) && cdim(a->s, d) < 0)
        return tsl_diag_set(diag, TSL_EUNSUPPORTED, "R.nn.layer_norm over a symbolic "
                            "dimension has no legalization");
  lg_signature(sb, name, bufs, n_in + n_out);
  switch (op) {
  case TSL_RX_OP_CONV2D:
    conv2d(sb, call->attrs, a, &bufs[1], out);
    return TSL_OK;
  case TSL_RX_OP_MAX_POOL2D: case TSL_RX_OP_AVG_POOL2D:
    return pool2d(sb, op, call->attrs, a, out, diag);
  case TSL_RX_OP_ADAPTIVE_AVG_POOL2D:
    adaptive(sb, call->attrs, a, out);
    return TSL_OK;
  case TSL_RX_OP_BATCH_NORM:
    batch_norm(sb, call->attrs, bufs, out);
    return TSL_OK;
  case TSL_RX_OP_LAYER_NORM:
    layer_norm(sb, call->attrs, bufs, out);
    return TSL_OK;
  case TSL_RX_OP_STRIDED_SLICE:
    strided_slice(sb, call->attrs, a, out);
    return TSL_OK;
  default:
    split(sb, call->attrs, a, out, n_out);
    return TSL_OK;
  }
}
