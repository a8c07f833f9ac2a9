/*
 * TVMScript buffer accesses (A[i, j] loads and store targets, with i:i+4
 * vector slices as Ramp), buffer regions for T.reads / T.writes /
 * T.match_buffer (A[vi:vi + 3, 0:16], A), and annotation dictionaries
 * (T.func_attr, T.block_attr, loop annotations).
 */
#include "parser_internal.h"

#include <stdio.h>
#include <string.h>


/* ---- buffer access ---- */

static void check_ndim(pstate *ps, const anode *sub, const tsl_buffer *b, uint32_t n) {
  if (n == b->ndim)
    return;
  char usage[256];
  size_t k = (size_t)snprintf(usage, sizeof usage, "%s[", b->name);
  for (uint32_t d = 0; d < b->ndim && k < 200; d++)
    k += (size_t)snprintf(usage + k, sizeof usage - k, "%si%u", d ? ", " : "", d);
  snprintf(usage + k, sizeof usage - k, "]");
  ps_note(ps, "index it with %u value%s: %s", b->ndim, b->ndim == 1 ? "" : "s", usage);
  ps_error_at(ps, TSL_EINVALID, ps_node_opoff(ps, sub),
              "buffer '%s' has %u dimension%s but %u ind%s given", b->name, b->ndim,
              b->ndim == 1 ? "" : "s", n, n == 1 ? "ex was" : "ices were");
}

const tsl_buffer *ps_access(pstate *ps, const anode *sub, const tsl_expr ***idx,
                            uint16_t *lanes) {
  const tsl_buffer *b = ps_buffer_ref(ps, sub->a);
  check_ndim(ps, sub, b, sub->n);
  const tsl_expr **out = TSL_NEW_ARRAY(ps->arena, const tsl_expr *, sub->n ? sub->n : 1);
  *lanes = 1;
  for (uint32_t d = 0; d < sub->n; d++) {
    const anode *it = sub->items[d];
    if (it->kind == AX_SLICE) {
      if (!it->a || !it->b)
        ps_fail(ps, it, "write both bounds, as in A[i:i + 4]",
             "a vector index needs both bounds");
      const tsl_expr *lo = ps_int_expr(ps, it->a, "slice start");
      const tsl_expr *hi = ps_int_expr(ps, it->b, "slice stop");
      const tsl_expr *stride =
          it->c ? ps_int_expr(ps, it->c, "slice step") : tsl_expr_int(ps->arena, lo->dtype, 1);
      int64_t ext, st;
      const tsl_expr *e = ps_extent(ps, lo, hi);
      if (!tsl_expr_is_const_int(e, &ext) || ext <= 0 ||
          !tsl_expr_is_const_int(stride, &st) || st <= 0)
        ps_fail(ps, it, "use a constant positive length such as A[i:i + 4]",
             "a vector index needs a constant length");
      int64_t n = ext / st + (ext % st != 0);
      if (n > 65535)
        ps_fail(ps, it, "vectors have at most 65535 lanes", "vector index too long");
      if (*lanes > 1 && n > 1)
        ps_fail(ps, it, "use one vector index per access", "more than one vector index");
      if (n == 1) {
        out[d] = lo;
      } else {
        if (!tsl_dtype_eq(stride->dtype, lo->dtype))
          stride = tsl_expr_int(ps->arena, lo->dtype, st);
        out[d] = tsl_expr_ramp(ps->arena, lo, stride, (uint16_t)n);
        *lanes = (uint16_t)n;
      }
    } else {
      pval v = ps_expr(ps, it);
      if (!v.weak && tsl_dtype_is_int(v.e->dtype) && v.e->dtype.lanes > 1) {
        if (*lanes > 1)
          ps_fail(ps, it, "use one vector index per access", "more than one vector index");
        *lanes = v.e->dtype.lanes;
        out[d] = v.e;
        continue;
      }
      out[d] = ps_int_expr(ps, it, "buffer index");
    }
  }
  *idx = out;
  return b;
}

PS_NOINLINE pval ps_load_expr(pstate *ps, const anode *n) {
  char buf[256];
  if (n->a->kind != AX_NAME) {
    if (ps_dotted(ps, n->a, buf, sizeof buf))
      ps_fail(ps, n, "only buffers can be indexed", "'%s' cannot be indexed", buf);
    ps_fail(ps, n, "index a buffer by name, as in A[i, j]", "only buffers can be indexed");
  }
  const tsl_expr **idx;
  uint16_t lanes;
  const tsl_buffer *b = ps_access(ps, n, &idx, &lanes);
  const tsl_expr *e = tsl_expr_load(ps->arena, b, n->n, idx);
  if (lanes > 1) {
    struct {
      tsl_expr e;
    } proto;
    memset(&proto, 0, sizeof proto);
    proto.e.kind = TSL_EXPR_LOAD;
    proto.e.dtype = b->dtype;
    proto.e.dtype.lanes = (uint16_t)(b->dtype.lanes * lanes);
    proto.e.u.buffer = b;
    e = tsl_expr_with_args(ps->arena, &proto.e, n->n, idx);
  }
  pval v;
  memset(&v, 0, sizeof v);
  v.e = e;
  v.node = n;
  return v;
}

/* ---- regions ---- */

tsl_buffer_region ps_region(pstate *ps, const anode *n) {
  tsl_buffer_region r;
  memset(&r, 0, sizeof r);
  if (n && n->kind == AX_NAME) {
    const tsl_buffer *b = ps_buffer_ref(ps, n);
    tsl_range *rs = TSL_NEW_ARRAY(ps->arena, tsl_range, b->ndim ? b->ndim : 1);
    for (uint32_t d = 0; d < b->ndim; d++) {
      rs[d].min = tsl_expr_int(ps->arena, b->shape[d]->dtype, 0);
      rs[d].extent = b->shape[d];
    }
    r.buffer = b;
    r.ndim = b->ndim;
    r.ranges = rs;
    return r;
  }
  if (!n || n->kind != AX_SUBSCRIPT)
    ps_fail(ps, n, "write a buffer region such as A[vi, 0:16]", "expected a buffer region");
  const tsl_buffer *b = ps_buffer_ref(ps, n->a);
  check_ndim(ps, n, b, n->n);
  tsl_range *rs = TSL_NEW_ARRAY(ps->arena, tsl_range, n->n ? n->n : 1);
  for (uint32_t d = 0; d < n->n; d++) {
    const anode *it = n->items[d];
    if (it->kind == AX_SLICE) {
      if (it->c)
        ps_fail(ps, it->c, "regions are contiguous: write A[lo:hi]",
             "a region cannot have a step");
      const tsl_expr *hi = it->b ? ps_int_expr(ps, it->b, "region stop") : b->shape[d];
      const tsl_expr *lo =
          it->a ? ps_int_expr(ps, it->a, "region start") : tsl_expr_int(ps->arena, hi->dtype, 0);
      if (!tsl_dtype_eq(lo->dtype, hi->dtype))
        ps_unify_ints(ps, &lo, &hi, it);
      rs[d].min = lo;
      rs[d].extent = ps_extent(ps, lo, hi);
      ps_check_height(ps, rs[d].extent, it);
    } else {
      const tsl_expr *e = ps_int_expr(ps, it, "region index");
      rs[d].min = e;
      rs[d].extent = tsl_expr_int(ps->arena, e->dtype, 1);
    }
  }
  r.buffer = b;
  r.ndim = n->n;
  r.ranges = rs;
  return r;
}

/* ---- annotations ---- */

static tsl_attr_value attr_value(pstate *ps, const anode *n);

tsl_attrs ps_attrs(pstate *ps, const anode *dict) {
  if (!dict || dict->kind != AX_DICT)
    ps_fail(ps, dict, "write a dictionary such as {\"key\": value}", "expected a dictionary");
  uint32_t m = dict->n / 2;
  tsl_attr *items = TSL_NEW_ARRAY(ps->scratch, tsl_attr, m ? m : 1);
  for (uint32_t i = 0; i < m; i++) {
    const anode *k = dict->items[2 * i];
    tsl_str key = ps_str_arg(ps, k, "an annotation key");
    for (uint32_t j = 0; j < i; j++)
      if (items[j].key == key)
        ps_fail(ps, k, "give each key once", "duplicate key \"%s\"", key);
    items[i].key = key;
    items[i].value = attr_value(ps, dict->items[2 * i + 1]);
  }
  return tsl_attrs_make(ps->arena, m, items);
}

static tsl_attr_value attr_value(pstate *ps, const anode *n) {
  tsl_attr_value v;
  memset(&v, 0, sizeof v);
  switch (n->kind) {
  case AX_STR:
    v.kind = TSL_ATTR_STR;
    v.u.s = ps_intern(ps, n->s, n->slen);
    return v;
  case AX_LIST:
  case AX_TUPLE: {
    tsl_attr_value *items = TSL_NEW_ARRAY(ps->arena, tsl_attr_value, n->n ? n->n : 1);
    for (uint32_t i = 0; i < n->n; i++)
      items[i] = attr_value(ps, n->items[i]);
    v.kind = TSL_ATTR_LIST;
    v.n = n->n;
    v.u.items = items;
    return v;
  }
  case AX_DICT:
    v.kind = TSL_ATTR_DICT;
    v.u.dict = ps_attrs(ps, n);
    return v;
  case AX_NONE:
    ps_fail(ps, n, "annotation values are numbers, strings, bools, lists or dictionaries",
         "None is not a valid annotation value");
  default:
    break;
  }
  pval p = ps_expr(ps, n);
  switch (p.weak) {
  case PV_INT:
    v.kind = TSL_ATTR_INT;
    v.u.i = p.i;
    v.dtype = ps_int_fits(TSL_INT32, p.i) ? TSL_INT32 : TSL_INT64;
    return v;
  case PV_FLOAT:
    v.kind = TSL_ATTR_FLOAT;
    v.u.f = p.f;
    v.dtype = TSL_FLOAT32;
    return v;
  case PV_BOOL:
    v.kind = TSL_ATTR_BOOL;
    v.u.i = p.i;
    v.dtype = TSL_BOOL;
    return v;
  default:
    break;
  }
  const tsl_expr *e = p.e;
  if (e->kind == TSL_EXPR_INT_IMM && tsl_dtype_is_bool(e->dtype)) {
    v.kind = TSL_ATTR_BOOL;
    v.u.i = e->u.int_value;
    v.dtype = TSL_BOOL;
  } else if (e->kind == TSL_EXPR_INT_IMM && e->dtype.lanes == 1) {
    v.kind = TSL_ATTR_INT;
    v.u.i = e->u.int_value;
    v.dtype = e->dtype;
  } else if (e->kind == TSL_EXPR_FLOAT_IMM && e->dtype.lanes == 1) {
    v.kind = TSL_ATTR_FLOAT;
    v.u.f = e->u.float_value;
    v.dtype = e->dtype;
  } else {
    v.kind = TSL_ATTR_EXPR;
    v.u.expr = e;
    v.dtype = e->dtype;
  }
  return v;
}
