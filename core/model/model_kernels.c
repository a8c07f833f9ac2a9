/*
 * Reference computations of the interpreter of models: the operators of
 * relax.h (elementwise with NumPy broadcasting, batched matmul) and the
 * library functions (env.*): floating point in double, rounded to the
 * dtype on store (tsl_tensor_set); integers exactly in 64 bits, wrapping to
 * the dtype's width.
 */
#include "model_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int mdl_broadcast(const tsl_tensor *a, const tsl_tensor *b, int32_t *ndim, int64_t *shape) {
  int32_t n = a->ndim > b->ndim ? a->ndim : b->ndim;
  for (int32_t i = 0; i < n; i++) {
    int32_t ia = i - (n - a->ndim), ib = i - (n - b->ndim);
    int64_t x = ia >= 0 ? a->shape[ia] : 1, y = ib >= 0 ? b->shape[ib] : 1;
    if (x != y && x != 1 && y != 1)
      return 0;
    shape[i] = x == 1 ? y : x;
  }
  *ndim = n;
  return 1;
}

/* The flat index into `t` of output element `k` of shape (n, shape),
 * broadcasting t's dimensions of size 1. */
static int64_t source_index(const tsl_tensor *t, int32_t n, const int64_t *shape, int64_t k) {
  int64_t idx = 0, stride = 1;
  for (int32_t i = n - 1; i >= 0; i--) {
    int64_t coord = k % shape[i];
    k /= shape[i];
    int32_t it = i - (n - t->ndim);
    if (it < 0)
      continue;
    if (t->shape[it] != 1)
      idx += coord * stride;
    stride *= t->shape[it];
  }
  return idx;
}

static double unary(tsl_rx_op op, double x) {
  switch (op) {
  case TSL_RX_OP_EXP: return exp(x);
  case TSL_RX_OP_SQRT: return sqrt(x);
  case TSL_RX_OP_TANH: return tanh(x);
  case TSL_RX_OP_SIGMOID: return 1.0 / (1.0 + exp(-x));
  case TSL_RX_OP_ERF: return erf(x);
  default: return x > 0 ? x : 0; /* RELU */
  }
}

/* Integer elements exactly (a double would round int64 values above 2^53
 * and saturate where NumPy and TensorIR wrap). */
static int64_t get_int(const tsl_tensor *t, int64_t k) {
  const int u = t->dtype.code == TSL_DT_UINT;
  switch (t->dtype.bits) {
  case 1: case 8:
    return u ? (int64_t)((const uint8_t *)t->data)[k] : (int64_t)((const int8_t *)t->data)[k];
  case 16:
    return u ? (int64_t)((const uint16_t *)t->data)[k] : (int64_t)((const int16_t *)t->data)[k];
  case 32:
    return u ? (int64_t)((const uint32_t *)t->data)[k] : (int64_t)((const int32_t *)t->data)[k];
  default: return ((const int64_t *)t->data)[k];
  }
}

static void set_int(tsl_tensor *t, int64_t k, uint64_t v) { /* wraps to the width */
  switch (t->dtype.bits) {
  case 1: ((uint8_t *)t->data)[k] = v != 0; break;
  case 8: ((uint8_t *)t->data)[k] = (uint8_t)v; break;
  case 16: ((uint16_t *)t->data)[k] = (uint16_t)v; break;
  case 32: ((uint32_t *)t->data)[k] = (uint32_t)v; break;
  default: ((uint64_t *)t->data)[k] = v;
  }
}

static int is_integer(tsl_dtype t) { return t.code == TSL_DT_INT || t.code == TSL_DT_UINT; }

static void elementwise_int(tsl_rx_op op, const tsl_tensor *a, const tsl_tensor *b,
                            tsl_tensor *out) {
  int64_t n = tsl_tensor_numel(out);
  for (int64_t k = 0; k < n; k++) {
    int64_t x = get_int(a, b ? source_index(a, out->ndim, out->shape, k) : k);
    if (!b) {
      if (op == TSL_RX_OP_RELU)
        set_int(out, k, (uint64_t)(x > 0 ? x : 0));
      else
        tsl_tensor_set(out, k, unary(op, (double)x));
      continue;
    }
    int64_t y = get_int(b, source_index(b, out->ndim, out->shape, k));
    uint64_t ux = (uint64_t)x, uy = (uint64_t)y, r;
    switch (op) {
    case TSL_RX_OP_ADD: r = ux + uy; break;
    case TSL_RX_OP_SUBTRACT: r = ux - uy; break;
    case TSL_RX_OP_MULTIPLY: r = ux * uy; break;
    case TSL_RX_OP_POWER: r = (uint64_t)(int64_t)pow((double)x, (double)y); break;
    case TSL_RX_OP_MAXIMUM: r = x > y ? ux : uy; break;
    case TSL_RX_OP_MINIMUM: r = x < y ? ux : uy; break;
    default: /* DIVIDE truncates, as TensorIR's / (x / 0 gives 0) */
      r = y == 0 || (x == INT64_MIN && y == -1) ? (y == 0 ? 0 : ux) : (uint64_t)(x / y);
    }
    set_int(out, k, r);
  }
}

void mdl_elementwise(tsl_rx_op op, const tsl_tensor *a, const tsl_tensor *b, tsl_tensor *out) {
  if (is_integer(out->dtype))
    return elementwise_int(op, a, b, out);
  int64_t n = tsl_tensor_numel(out);
  for (int64_t k = 0; k < n; k++) {
    double x = tsl_tensor_get(a, b ? source_index(a, out->ndim, out->shape, k) : k), r;
    if (!b) {
      tsl_tensor_set(out, k, unary(op, x));
      continue;
    }
    double y = tsl_tensor_get(b, source_index(b, out->ndim, out->shape, k));
    switch (op) {
    case TSL_RX_OP_ADD: r = x + y; break;
    case TSL_RX_OP_SUBTRACT: r = x - y; break;
    case TSL_RX_OP_MULTIPLY: r = x * y; break;
    case TSL_RX_OP_POWER: r = pow(x, y); break;
    case TSL_RX_OP_MAXIMUM: r = x > y ? x : y; break; /* T.max's select */
    case TSL_RX_OP_MINIMUM: r = x < y ? x : y; break;
    default: /* DIVIDE */
      r = x / y;
    }
    tsl_tensor_set(out, k, r);
  }
}

/* out[k] = t[j], integers exactly */
static void copy_element(tsl_tensor *out, int64_t k, const tsl_tensor *t, int64_t j) {
  if (is_integer(out->dtype))
    set_int(out, k, (uint64_t)get_int(t, j));
  else
    tsl_tensor_set(out, k, tsl_tensor_get(t, j));
}

int mdl_gather_fits(tsl_rx_op op, const tsl_tensor *const *in, uint32_t n, const tsl_tensor *out) {
  if (op != TSL_RX_OP_WHERE && op != TSL_RX_OP_BROADCAST_TO)
    return 1;
  for (uint32_t i = 0; i < n; i++) {
    if (in[i]->ndim > out->ndim)
      return 0;
    for (int32_t d = 0; d < in[i]->ndim; d++) {
      int64_t x = in[i]->shape[d], o = out->shape[out->ndim - in[i]->ndim + d];
      if (x != 1 && x != o)
        return 0;
    }
  }
  return 1;
}

void mdl_gather_op(tsl_rx_op op, tsl_attrs attrs, const tsl_tensor *const *in, tsl_tensor *out) {
  int64_t n = tsl_tensor_numel(out);
  if (op == TSL_RX_OP_WHERE) {
    for (int64_t k = 0; k < n; k++) {
      int c = get_int(in[0], source_index(in[0], out->ndim, out->shape, k)) != 0;
      const tsl_tensor *t = c ? in[1] : in[2];
      copy_element(out, k, t, source_index(t, out->ndim, out->shape, k));
    }
  } else if (op == TSL_RX_OP_BROADCAST_TO) {
    for (int64_t k = 0; k < n; k++)
      copy_element(out, k, in[0], source_index(in[0], out->ndim, out->shape, k));
  } else if (op == TSL_RX_OP_TAKE) {
    /* out[outer, i..., inner] = x[outer, idx[i...], inner] */
    const tsl_tensor *x = in[0], *idx = in[1];
    int64_t axis = tsl_rx_attr_int(attrs, "axis", 0);
    axis = axis < 0 ? axis + x->ndim : axis;
    int64_t size = x->shape[axis], inner = 1, m = tsl_tensor_numel(idx);
    for (int32_t d = (int32_t)axis + 1; d < x->ndim; d++)
      inner *= x->shape[d];
    for (int64_t k = 0; k < n && m && size; k++) {
      int64_t o = k / (inner * m), i = k / inner % m, r = k % inner;
      int64_t j = get_int(idx, i);
      j = j < 0 ? j + size : j;
      j = j < 0 ? 0 : j >= size ? size - 1 : j;
      copy_element(out, k, x, (o * size + j) * inner + r);
    }
  }
}

int mdl_matmul_shape(const tsl_tensor *a, const tsl_tensor *b, int32_t *ndim, int64_t *shape) {
  if (a->ndim < 2 || b->ndim < 2 || a->shape[a->ndim - 1] != b->shape[b->ndim - 2])
    return 0;
  tsl_tensor ba = *a, bb = *b;
  ba.ndim -= 2;
  bb.ndim -= 2;
  int32_t n;
  if (!mdl_broadcast(&ba, &bb, &n, shape) || n + 2 > TSL_MAX_NDIM)
    return 0;
  shape[n] = a->shape[a->ndim - 2];
  shape[n + 1] = b->shape[b->ndim - 1];
  *ndim = n + 2;
  return 1;
}

void mdl_matmul(const tsl_tensor *a, const tsl_tensor *b, tsl_tensor *out) {
  int32_t nb = out->ndim - 2;
  int64_t m = out->shape[nb], n = out->shape[nb + 1], kk = a->shape[a->ndim - 1], batches = 1;
  for (int32_t i = 0; i < nb; i++)
    batches *= out->shape[i];
  /* the batch part of each operand, broadcast like an elementwise op */
  tsl_tensor ba = *a, bb = *b;
  ba.ndim -= 2;
  bb.ndim -= 2;
  for (int64_t z = 0; z < batches; z++) {
    int64_t za = source_index(&ba, nb, out->shape, z), zb = source_index(&bb, nb, out->shape, z);
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        const int64_t ia = (za * m + i) * kk, o = (z * m + i) * n + j;
        if (is_integer(out->dtype)) { /* exact, wrapping */
          uint64_t s = 0;
          for (int64_t k = 0; k < kk; k++)
            s += (uint64_t)get_int(a, ia + k) * (uint64_t)get_int(b, (zb * kk + k) * n + j);
          set_int(out, o, s);
          continue;
        }
        double s = 0;
        for (int64_t k = 0; k < kk; k++)
          s += tsl_tensor_get(a, ia + k) * tsl_tensor_get(b, (zb * kk + k) * n + j);
        tsl_tensor_set(out, o, s);
      }
  }
}

/* ---- library functions ----------------------------------------------------- */

static const char *const library[] = {"env.relu", "env.linear", "env.matmul", "env.add"};

const char *tsl_model_library_name(uint32_t k) {
  return k < sizeof library / sizeof *library ? library[k] : NULL;
}

static int same_shape(int32_t n, const int64_t *s, const tsl_tensor *t) {
  if (n != t->ndim)
    return 0;
  for (int32_t i = 0; i < n; i++)
    if (s[i] != t->shape[i])
      return 0;
  return 1;
}

static int misfit(tsl_diag *diag, const char *name, const char *what) {
  return tsl_diag_set(diag, TSL_EINVALID, "library function %s: %s", name, what);
}

int mdl_library_call(const char *name, const tsl_tensor *in, uint32_t n_in, tsl_tensor *out,
                     uint32_t n_out, tsl_diag *diag) {
  int k = -1;
  for (int i = 0; i < (int)(sizeof library / sizeof *library); i++)
    if (!strcmp(name, library[i]))
      k = i;
  if (k < 0)
    return TSL_ENOTFOUND;
  static const uint32_t arity[] = {1, 3, 2, 2};
  if (n_in != arity[k] || n_out != 1) {
    char b[96];
    snprintf(b, sizeof b, "takes %u inputs and 1 output, given %u and %u", arity[k], n_in, n_out);
    return misfit(diag, name, b);
  }
  for (uint32_t i = 0; i < n_in; i++)
    if (!tsl_dtype_is_float(in[i].dtype))
      return misfit(diag, name, "computes on floating-point tensors");
  int32_t nd;
  int64_t shape[TSL_MAX_NDIM];
  switch (k) {
  case 0: /* relu */
    if (!same_shape(in[0].ndim, in[0].shape, out))
      return misfit(diag, name, "the output's shape is not the input's");
    mdl_elementwise(TSL_RX_OP_RELU, &in[0], NULL, out);
    return TSL_OK;
  case 1: { /* linear: x [.., k], w [n, k], b [n] */
    const tsl_tensor *x = &in[0], *w = &in[1], *b = &in[2];
    if (x->ndim < 1 || w->ndim != 2 || b->ndim != 1 || w->shape[1] != x->shape[x->ndim - 1] ||
        b->shape[0] != w->shape[0])
      return misfit(diag, name, "takes x [.., k], w [n, k] and b [n]");
    memcpy(shape, x->shape, sizeof shape);
    shape[x->ndim - 1] = w->shape[0];
    if (!same_shape(x->ndim, shape, out))
      return misfit(diag, name, "the output is not [.., n]");
    int64_t rows = tsl_tensor_numel(x) / (x->shape[x->ndim - 1] ? x->shape[x->ndim - 1] : 1),
            kk = w->shape[1], n = w->shape[0];
    for (int64_t r = 0; r < rows; r++)
      for (int64_t j = 0; j < n; j++) {
        double s = tsl_tensor_get(b, j);
        for (int64_t q = 0; q < kk; q++)
          s += tsl_tensor_get(x, r * kk + q) * tsl_tensor_get(w, j * kk + q);
        tsl_tensor_set(out, r * n + j, s);
      }
    return TSL_OK;
  }
  case 2: /* matmul */
    if (!mdl_matmul_shape(&in[0], &in[1], &nd, shape) || !same_shape(nd, shape, out))
      return misfit(diag, name, "takes [m, k] x [k, n] into [m, n]");
    mdl_matmul(&in[0], &in[1], out);
    return TSL_OK;
  default: /* add */
    if (!mdl_broadcast(&in[0], &in[1], &nd, shape) || !same_shape(nd, shape, out))
      return misfit(diag, name, "the inputs do not broadcast to the output's shape");
    mdl_elementwise(TSL_RX_OP_ADD, &in[0], &in[1], out);
    return TSL_OK;
  }
}
