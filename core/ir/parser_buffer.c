/*
 * TVMScript buffer declarations: T.Buffer parameter annotations (call and
 * subscript spellings), and the argument lists of T.alloc_buffer and
 * T.match_buffer (shape, dtype, strides, elem_offset, scope, align,
 * offset_factor, axis_separators, by position or keyword).
 */
#include "parser_internal.h"

#include <stdio.h>
#include <string.h>

static const char *const buffer_kws[] = {
    "shape", "dtype", "data", "strides", "elem_offset", "scope", "align",
    "offset_factor", "buffer_type", "axis_separators", NULL};

static void shape_list(pstate *ps, const anode *n, const char *what,
                       const tsl_expr ***out, uint32_t *nd) {
  const anode *const *items = &n;
  uint32_t k = 1;
  if (n->kind == AX_TUPLE || n->kind == AX_LIST) {
    items = (const anode *const *)n->items;
    k = n->n;
  }
  const tsl_expr **v = TSL_NEW_ARRAY(ps->scratch, const tsl_expr *, k ? k : 1);
  for (uint32_t i = 0; i < k; i++) {
    v[i] = ps_int_expr(ps, items[i], what);
    int64_t c;
    if (tsl_expr_is_const_int(v[i], &c) && c < 0) {
      ps_note(ps, "buffer dimensions are non-negative");
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, items[i]),
                  "negative buffer dimension %lld", (long long)c);
    }
  }
  *out = v;
  *nd = k;
}

static int is_none(const anode *n) { return !n || n->kind == AX_NONE; }

/* axis_separators=[1, ...]: ascending positions in [0, ndim]. */
static const tsl_buffer *with_separators(pstate *ps, const tsl_buffer *b,
                                         const anode *n) {
  if (n->kind != AX_LIST && n->kind != AX_TUPLE) {
    ps_note(ps, "write axis_separators=[1]");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n), "axis_separators must be a list");
  }
  int32_t *seps = ps_alloc(ps, sizeof *seps * (n->n ? n->n : 1));
  for (uint32_t i = 0; i < n->n; i++) {
    int64_t v = ps_int_literal(ps, n->items[i], "an axis separator");
    if (v < (i ? seps[i - 1] : 0) || v > (int64_t)b->ndim) {
      ps_note(ps, "axis separators are ascending positions in [0, %u]", b->ndim);
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n->items[i]),
                  "axis separator %lld is out of order or past the %u dimensions",
                  (long long)v, b->ndim);
    }
    seps[i] = (int32_t)v;
  }
  return n->n ? tsl_buffer_with_axis_separators(ps->arena, b, n->n, seps) : b;
}

const tsl_buffer *ps_buffer_from_call(pstate *ps, const char *name,
                                      const anode *call, uint32_t first,
                                      const char *fname, tsl_dtype def_dtype,
                                      const tsl_expr *const *def_shape,
                                      uint32_t def_ndim) {
  ps_check_kwargs(ps, call, fname, buffer_kws);
  if (call->n > first + 10) {
    ps_note(ps, "usage: %s(shape, dtype, ..., scope=\"global\")", fname);
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, call->items[first + 10]),
                "too many arguments to %s", fname);
  }
  const anode *shape = ps_arg(ps, call, first + 0, "shape");
  const anode *dtype = ps_arg(ps, call, first + 1, "dtype");
  const anode *data = ps_arg(ps, call, first + 2, "data");
  const anode *strides = ps_arg(ps, call, first + 3, "strides");
  const anode *elem_offset = ps_arg(ps, call, first + 4, "elem_offset");
  const anode *scope = ps_arg(ps, call, first + 5, "scope");
  const anode *align = ps_arg(ps, call, first + 6, "align");
  const anode *offset_factor = ps_arg(ps, call, first + 7, "offset_factor");
  const anode *buffer_type = ps_arg(ps, call, first + 8, "buffer_type");
  const anode *axis_separators = ps_arg(ps, call, first + 9, "axis_separators");

  const tsl_expr **dims = NULL;
  uint32_t nd = 0;
  if (is_none(shape)) {
    if (!def_shape) {
      char usage[320];
      snprintf(usage, sizeof usage, "%s(%s(128, 128), \"float32\")", fname,
               first ? "x, " : "");
      ps_note(ps, "usage: %s", usage);
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, call), "%s needs a shape", fname);
    }
    dims = (const tsl_expr **)def_shape;
    nd = def_ndim;
  } else {
    shape_list(ps, shape, "a buffer dimension", &dims, &nd);
  }
  tsl_dtype dt = is_none(dtype) ? def_dtype : ps_dtype_arg(ps, dtype);
  if (!is_none(data)) {
    ps_note(ps, "remove the data= argument");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, data),
                "explicit buffer data variables are not supported");
  }
  const tsl_expr **st = NULL;
  if (!is_none(strides)) {
    uint32_t ns = 0;
    shape_list(ps, strides, "a stride", &st, &ns);
    if (ns != nd) {
      ps_note(ps, "give one stride per dimension (%u)", nd);
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, strides),
                  "%u strides for a buffer of %u dimensions", ns, nd);
    }
    if (nd == 0)
      st = NULL;
  }
  const tsl_expr *eo = NULL;
  if (!is_none(elem_offset))
    eo = ps_int_expr(ps, elem_offset, "elem_offset");
  const char *sc = is_none(scope) ? "global" : ps_str_arg(ps, scope, "the storage scope");
  if (!sc[0])
    sc = "global";
  int64_t al = is_none(align) ? 0 : ps_int_literal(ps, align, "align");
  int64_t of = is_none(offset_factor) ? 0 : ps_int_literal(ps, offset_factor, "offset_factor");
  if (al < 0)
    al = 0;
  if (of < 0)
    of = 0;
  if (al > INT32_MAX || of > INT32_MAX) {
    ps_note(ps, "use a value below 2^31");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, al > INT32_MAX ? align : offset_factor),
                "value too large");
  }
  if (!is_none(buffer_type))
    (void)ps_str_arg(ps, buffer_type, "buffer_type");
  /* as TVM's BufferDecl: an offset factor without an element offset makes
   * the offset a fresh variable (of the index dtype), bound where the
   * buffer is matched; an allocation keeps 0 (nothing would bind it) */
  if (!eo && of && strcmp(fname, "T.alloc_buffer") != 0) {
    char vn[300];
    snprintf(vn, sizeof vn, "%s_elem_offset", name);
    eo = tsl_expr_var(tsl_var_new(ps->arena, vn, nd ? dims[0]->dtype : TSL_INT32));
  }
  const tsl_buffer *b = tsl_buffer_new(ps->arena, name, dt, nd, dims, st, eo, sc,
                                       (int32_t)al, (int32_t)of);
  return is_none(axis_separators) ? b : with_separators(ps, b, axis_separators);
}

const tsl_buffer *ps_buffer_from_annotation(pstate *ps, const char *name,
                                            const anode *ann) {
  char path[256];
  if (ann->kind == AX_CALL && ps_dotted(ps, ann->a, path, sizeof path) &&
      strcmp(path, "T.Buffer") == 0)
    return ps_buffer_from_call(ps, name, ann, 0, "T.Buffer", TSL_FLOAT32, NULL, 0);
  if (ann->kind == AX_SUBSCRIPT && ps_dotted(ps, ann->a, path, sizeof path) &&
      strcmp(path, "T.Buffer") == 0) {
    const tsl_expr **dims = NULL;
    uint32_t nd = 0;
    tsl_dtype dt = TSL_FLOAT32;
    if (ann->paren) { /* T.Buffer[(128, 128)] */
      anode tmp;
      memset(&tmp, 0, sizeof tmp);
      tmp.kind = AX_TUPLE;
      tmp.items = ann->items;
      tmp.n = ann->n;
      tmp.tok = ann->tok;
      shape_list(ps, &tmp, "a buffer dimension", &dims, &nd);
    } else {
      if (ann->n > 2) {
        ps_note(ps, "write T.Buffer[(128, 128), \"float32\"] or T.Buffer((128, 128), \"float32\")");
        ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, ann->items[2]),
                    "too many arguments in T.Buffer[...]");
      }
      shape_list(ps, ann->items[0], "a buffer dimension", &dims, &nd);
      if (ann->n > 1)
        dt = ps_dtype_arg(ps, ann->items[1]);
    }
    return tsl_buffer_new(ps->arena, name, dt, nd, dims, NULL, NULL, "global", 0, 0);
  }
  return NULL;
}
