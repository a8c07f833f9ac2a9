/*
 * Structural equality: alpha-equivalence of modules, functions, statements
 * and expressions. Variables and buffers are paired at their definitions
 * (params, symbolic shape vars at first binding, loop / block iter / let
 * vars, alloc and match buffers) and must correspond one to one everywhere;
 * each pair gets a binding rank used to order canonical forms, so
 * alpha-equivalent expressions canonicalize to the same shape. Expressions
 * compare structurally first and, failing that, after canonical
 * simplification under the constant bounds of the loops and block iter
 * vars around them. The first difference is described with its path.
 * hash.c mirrors the traversal order (and the bounds) exactly.
 */
#include "analysis_internal.h"
#include "tessel/script.h"

#include <stdlib.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { EQ_MAX_EXPR_DEPTH = 4096, EQ_MAX_STMT_DEPTH = 2000 };

typedef struct eq_side {
  tsl_map map;  /* var/buffer -> counterpart */
  tsl_map rank; /* var/buffer -> binding rank */
  tsl_analyzer *an;
} eq_side;

typedef struct eq_ctx {
  eq_side a, b;
  int64_t next_rank;
  tsl_ctx *ctx; /* private, for the canonicalization scratch */
  tsl_arena *scratch;
  tsl_strbuf path;
  char *why;
  size_t why_cap;
  int reported;
  int sdepth;
} eq_ctx;

static int64_t side_var_rank(const tsl_var *v, void *ud) {
  return tsl_map_get_int(&((eq_side *)ud)->rank, v, -1);
}

static int64_t side_buf_rank(const tsl_buffer *b, void *ud) {
  return tsl_map_get_int(&((eq_side *)ud)->rank, b, -1);
}

static void eq_init(eq_ctx *eq, char *why, size_t why_cap) {
  memset(eq, 0, sizeof *eq);
  tsl_strbuf_init(&eq->path);
  eq->why = why;
  eq->why_cap = why_cap;
  if (why && why_cap)
    why[0] = '\0';
}

static void eq_reset_maps(eq_ctx *eq) {
  tsl_map_clear(&eq->a.map);
  tsl_map_clear(&eq->a.rank);
  tsl_map_clear(&eq->b.map);
  tsl_map_clear(&eq->b.rank);
  eq->next_rank = 0;
}

static void eq_free(eq_ctx *eq) {
  tsl_map_free(&eq->a.map);
  tsl_map_free(&eq->a.rank);
  tsl_map_free(&eq->b.map);
  tsl_map_free(&eq->b.rank);
  tsl_strbuf_free(&eq->path);
  tsl_analyzer_free(eq->a.an);
  tsl_analyzer_free(eq->b.an);
  tsl_arena_free(eq->scratch);
  tsl_ctx_free(eq->ctx);
}

static int eq_ensure_canon(eq_ctx *eq) {
  if (eq->scratch)
    return 1;
  eq->ctx = tsl_ctx_new();
  if (!eq->ctx)
    return 0;
  eq->scratch = tsl_arena_new(eq->ctx);
  eq->a.an = tsl_analyzer_new(eq->ctx);
  eq->b.an = tsl_analyzer_new(eq->ctx);
  if (!eq->a.an || !eq->b.an)
    return 0;
  tsla_order oa = {side_var_rank, side_buf_rank, &eq->a};
  tsla_order ob = {side_var_rank, side_buf_rank, &eq->b};
  tsla_analyzer_set_order(eq->a.an, &oa);
  tsla_analyzer_set_order(eq->b.an, &ob);
  return 1;
}

/* Index expressions compare under the ranges of the loops and block iter
 * vars around them (constant bounds only, an extent-1 range is not a
 * value): `(a * 2 + b) // 256` equals `a // 128` for b in [0, 2). */
static void eq_bind(eq_ctx *eq, const tsl_var *va, const tsl_range *ra,
                    const tsl_var *vb, const tsl_range *rb) {
  if (!va || !vb || !eq_ensure_canon(eq))
    return;
  tsl_analyzer_bind_bounds(eq->a.an, va, ra->min, ra->extent);
  tsl_analyzer_bind_bounds(eq->b.an, vb, rb->min, rb->extent);
}

static void eq_unbind(eq_ctx *eq, const tsl_var *va, const tsl_var *vb) {
  if (eq->scratch) {
    tsl_analyzer_unbind(eq->a.an, va);
    tsl_analyzer_unbind(eq->b.an, vb);
  }
}

/* ---- paths and reports ---- */

static size_t push(eq_ctx *eq, const char *fmt, ...) TSL_PRINTF(2, 3);
static size_t push(eq_ctx *eq, const char *fmt, ...) {
  size_t mark = eq->path.len;
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  tsl_strbuf_append(&eq->path, buf);
  return mark;
}

static void pop(eq_ctx *eq, size_t mark) {
  eq->path.len = mark;
  if (eq->path.data)
    eq->path.data[mark] = '\0';
}

static int report(eq_ctx *eq, const char *fmt, ...) TSL_PRINTF(2, 3);
static int report(eq_ctx *eq, const char *fmt, ...) {
  if (eq->reported)
    return 0;
  eq->reported = 1;
  if (!eq->why || !eq->why_cap)
    return 0;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *p = eq->path.data ? eq->path.data : "";
  snprintf(eq->why, eq->why_cap, "%s%s%s", p, *p ? ": " : "", msg);
  return 0;
}

static const char *nm(const char *s) { return s ? s : "?"; }

static int str_eq(const char *a, const char *b) {
  if (a == b)
    return 1;
  if (!a || !b)
    return 0;
  return strcmp(a, b) == 0;
}

void tsla_fmt_expr(tsl_strbuf *sb, const tsl_expr *e) {
  if (!e) {
    tsl_strbuf_append(sb, "None");
    return;
  }
  char *text = tsl_print_expr(e);
  tsl_strbuf_append(sb, text);
  free(text);
}

static void fmt_e(tsl_strbuf *sb, const tsl_expr *e) { tsla_fmt_expr(sb, e); }

/* report "<what>: <a> vs <b>" for two expressions */
static int report_exprs(eq_ctx *eq, const tsl_expr *a, const tsl_expr *b) {
  tsl_strbuf sa, sb;
  tsl_strbuf_init(&sa);
  tsl_strbuf_init(&sb);
  fmt_e(&sa, a);
  fmt_e(&sb, b);
  const char *ta = sa.data ? sa.data : "", *tb = sb.data ? sb.data : "";
  /* same text: names coincide but stand for different definitions */
  report(eq, "%s vs %s%s", ta, tb,
         strcmp(ta, tb) == 0 ? " (same names, bound to different loops, iterators or buffers)" : "");
  tsl_strbuf_free(&sa);
  tsl_strbuf_free(&sb);
  return 0;
}

/* ---- variables and buffers ---- */

/* 1 when `a` of side a / b is paired: its counterpart in *other. */
static int paired(const eq_side *side, const void *a, void **other) {
  return tsl_map_find(&side->map, a, other);
}

static int var_use_eq(eq_ctx *eq, const tsl_var *va, const tsl_var *vb) {
  void *o;
  if (paired(&eq->a, va, &o))
    return o == vb;
  if (paired(&eq->b, vb, NULL))
    return 0;
  return va == vb;
}

static void pair(eq_ctx *eq, const void *a, const void *b, int ranked) {
  void *o;
  if (paired(&eq->a, a, &o) && o != b)
    tsl_map_del(&eq->b.map, o);
  if (paired(&eq->b, b, &o) && o != a)
    tsl_map_del(&eq->a.map, o);
  tsl_map_put(&eq->a.map, a, (void *)b);
  tsl_map_put(&eq->b.map, b, (void *)a);
  if (ranked) {
    int64_t r = eq->next_rank++;
    tsl_map_put(&eq->a.rank, a, TSL_MAP_INT(r));
    tsl_map_put(&eq->b.rank, b, TSL_MAP_INT(r));
  }
}

static int def_var(eq_ctx *eq, const tsl_var *va, const tsl_var *vb) {
  if (!va || !vb) {
    if (va == vb)
      return 1;
    return report(eq, "%s vs %s", va ? nm(va->name) : "None",
                  vb ? nm(vb->name) : "None");
  }
  if (!tsl_dtype_eq(va->dtype, vb->dtype)) {
    char x[32], y[32];
    return report(eq, "var %s: dtype %s vs %s", nm(va->name),
                  tsl_dtype_str(va->dtype, x), tsl_dtype_str(vb->dtype, y));
  }
  pair(eq, va, vb, 1);
  return 1;
}

typedef struct var_list {
  uint32_t n;
  const tsl_var *v[64];
  const tsl_map *mapped;
} var_list;

static int collect_unmapped(const tsl_expr *e, void *ud) {
  var_list *l = ud;
  if (e->kind != TSL_EXPR_VAR || tsl_map_find(l->mapped, e->u.var, NULL))
    return 0;
  for (uint32_t i = 0; i < l->n; i++)
    if (l->v[i] == e->u.var)
      return 0;
  if (l->n == 64)
    return 1;
  l->v[l->n++] = e->u.var;
  return 0;
}

/* Symbolic variables first seen in a buffer definition (shape, strides,
 * elem_offset) are bound there, pairwise in source order. */
static void bind_first_uses(eq_ctx *eq, const tsl_expr *a, const tsl_expr *b) {
  if (!a || !b)
    return;
  var_list la = {0, {0}, &eq->a.map}, lb = {0, {0}, &eq->b.map};
  tsl_expr_visit(a, collect_unmapped, &la);
  tsl_expr_visit(b, collect_unmapped, &lb);
  if (la.n != lb.n)
    return;
  for (uint32_t i = 0; i < la.n; i++)
    if (tsl_dtype_eq(la.v[i]->dtype, lb.v[i]->dtype))
      pair(eq, la.v[i], lb.v[i], 1);
}

static int expr_raw_eq(eq_ctx *eq, const tsl_expr *a, const tsl_expr *b,
                       int depth);
static int buffer_fields_eq(eq_ctx *eq, const tsl_buffer *a,
                            const tsl_buffer *b, int bind);

static int buf_use_eq(eq_ctx *eq, const tsl_buffer *ba, const tsl_buffer *bb) {
  void *o;
  if (paired(&eq->a, ba, &o))
    return o == bb;
  if (paired(&eq->b, bb, NULL))
    return 0;
  if (ba == bb)
    return 1;
  /* free buffers (statement-level comparisons): equal by their fields */
  int saved = eq->reported;
  eq->reported = 1; /* no report from inside an expression */
  int ok = buffer_fields_eq(eq, ba, bb, 0);
  eq->reported = saved;
  if (ok)
    pair(eq, ba, bb, 0);
  return ok;
}

/* ---- expressions ---- */

static int expr_raw_eq(eq_ctx *eq, const tsl_expr *a, const tsl_expr *b,
                       int depth) {
  for (;;) {
    if (depth > EQ_MAX_EXPR_DEPTH)
      return 0;
    if (a->kind != b->kind || !tsl_dtype_eq(a->dtype, b->dtype) ||
        a->n_args != b->n_args || a->intrin != b->intrin)
      return 0;
    switch ((tsl_expr_kind)a->kind) {
    case TSL_EXPR_INT_IMM:
      return a->u.int_value == b->u.int_value;
    case TSL_EXPR_FLOAT_IMM:
      return memcmp(&a->u.float_value, &b->u.float_value, 8) == 0;
    case TSL_EXPR_STR_IMM:
      return str_eq(a->u.str_value, b->u.str_value);
    case TSL_EXPR_VAR:
      return var_use_eq(eq, a->u.var, b->u.var);
    case TSL_EXPR_LOAD:
      if (!buf_use_eq(eq, a->u.buffer, b->u.buffer))
        return 0;
      break;
    case TSL_EXPR_BUFFER_DATA:
      return buf_use_eq(eq, a->u.buffer, b->u.buffer);
    case TSL_EXPR_CALL_EXTERN:
      if (!str_eq(a->u.str_value, b->u.str_value))
        return 0;
      break;
    default:
      break;
    }
    if (a->n_args == 0)
      return 1;
    for (uint32_t i = 0; i + 1 < a->n_args; i++)
      if (!expr_raw_eq(eq, a->args[i], b->args[i], depth + 1))
        return 0;
    a = a->args[a->n_args - 1];
    b = b->args[b->n_args - 1];
    depth++;
  }
}

/* Compare two top-level expressions (canonically); reports at the current
 * path. NULL equals NULL only. */
static int expr_eq(eq_ctx *eq, const tsl_expr *a, const tsl_expr *b) {
  if (!a || !b) {
    if (a == b)
      return 1;
    return report_exprs(eq, a, b);
  }
  if (expr_raw_eq(eq, a, b, 0))
    return 1;
  if (eq_ensure_canon(eq)) {
    const tsl_expr *ca = tsl_simplify(eq->a.an, eq->scratch, a);
    const tsl_expr *cb = tsl_simplify(eq->b.an, eq->scratch, b);
    if ((ca != a || cb != b) && expr_raw_eq(eq, ca, cb, 0))
      return 1;
  }
  return report_exprs(eq, a, b);
}

static int expr_field_eq(eq_ctx *eq, const char *field, const tsl_expr *a,
                         const tsl_expr *b) {
  size_t m = push(eq, "%s", field);
  int ok = expr_eq(eq, a, b);
  pop(eq, m);
  return ok;
}

/* ---- buffers ---- */

static void fmt_shape(tsl_strbuf *sb, const tsl_buffer *b) {
  tsl_strbuf_append(sb, "(");
  for (uint32_t i = 0; i < b->ndim; i++) {
    if (i)
      tsl_strbuf_append(sb, ", ");
    fmt_e(sb, b->shape[i]);
  }
  tsl_strbuf_append(sb, b->ndim == 1 ? ",)" : ")");
}

static int report_shapes(eq_ctx *eq, const tsl_buffer *a, const tsl_buffer *b) {
  tsl_strbuf sa, sb;
  tsl_strbuf_init(&sa);
  tsl_strbuf_init(&sb);
  fmt_shape(&sa, a);
  fmt_shape(&sb, b);
  report(eq, "shape %s vs %s", sa.data, sb.data);
  tsl_strbuf_free(&sa);
  tsl_strbuf_free(&sb);
  return 0;
}

static int is_zero(const tsl_expr *e) {
  int64_t v;
  return !e || (tsl_expr_is_const_int(e, &v) && v == 0);
}

/* Fields of a buffer (not its name). `bind`: pair symbolic vars first seen
 * here. */
static int buffer_fields_eq(eq_ctx *eq, const tsl_buffer *a,
                            const tsl_buffer *b, int bind) {
  char x[32], y[32];
  if (!tsl_dtype_eq(a->dtype, b->dtype))
    return report(eq, "dtype %s vs %s", tsl_dtype_str(a->dtype, x),
                  tsl_dtype_str(b->dtype, y));
  if (a->ndim != b->ndim)
    return report_shapes(eq, a, b);
  for (uint32_t d = 0; d < a->ndim; d++) {
    if (bind)
      bind_first_uses(eq, a->shape[d], b->shape[d]);
    int saved = eq->reported;
    eq->reported = 1;
    int ok = expr_eq(eq, a->shape[d], b->shape[d]);
    eq->reported = saved;
    if (!ok)
      return report_shapes(eq, a, b);
  }
  if ((a->strides == NULL) != (b->strides == NULL))
    return report(eq, "strides %s vs %s", a->strides ? "given" : "default",
                  b->strides ? "given" : "default");
  if (a->strides)
    for (uint32_t d = 0; d < a->ndim; d++) {
      if (bind)
        bind_first_uses(eq, a->strides[d], b->strides[d]);
      size_t m = push(eq, ".strides[%u]", d);
      int ok = expr_eq(eq, a->strides[d], b->strides[d]);
      pop(eq, m);
      if (!ok)
        return 0;
    }
  if (!(is_zero(a->elem_offset) && is_zero(b->elem_offset))) {
    if (bind)
      bind_first_uses(eq, a->elem_offset, b->elem_offset);
    const tsl_expr *ea = a->elem_offset, *eb = b->elem_offset;
    if (!ea || !eb) {
      size_t m = push(eq, ".elem_offset");
      report(eq, "%s vs %s", ea ? "given" : "0", eb ? "given" : "0");
      pop(eq, m);
      return 0;
    }
    if (!expr_field_eq(eq, ".elem_offset", ea, eb))
      return 0;
  }
  if (!str_eq(a->scope ? a->scope : "global", b->scope ? b->scope : "global"))
    return report(eq, "scope \"%s\" vs \"%s\"", nm(a->scope), nm(b->scope));
  /* and an alignment of 0 (none given) its default, 64 */
  if ((a->align ? a->align : 64) != (b->align ? b->align : 64))
    return report(eq, "align %d vs %d", a->align, b->align);
  /* TVM's Buffer constructor makes a factor of 0 (none given) 1 */
  if ((a->offset_factor ? a->offset_factor : 1) != (b->offset_factor ? b->offset_factor : 1))
    return report(eq, "offset_factor %d vs %d", a->offset_factor,
                  b->offset_factor);
  if (a->n_axis_separators != b->n_axis_separators)
    return report(eq, "%u axis separators vs %u", a->n_axis_separators,
                  b->n_axis_separators);
  for (uint32_t i = 0; i < a->n_axis_separators; i++)
    if (a->axis_separators[i] != b->axis_separators[i])
      return report(eq, "axis_separators[%u] %d vs %d", i, a->axis_separators[i],
                    b->axis_separators[i]);
  return 1;
}

static int def_buffer(eq_ctx *eq, const tsl_buffer *a, const tsl_buffer *b) {
  if (!a || !b) {
    if (a == b)
      return 1;
    return report(eq, "%s vs %s", a ? nm(a->name) : "None", b ? nm(b->name) : "None");
  }
  if (!buffer_fields_eq(eq, a, b, 1))
    return 0;
  pair(eq, a, b, 1);
  return 1;
}

static int use_buffer(eq_ctx *eq, const tsl_buffer *a, const tsl_buffer *b) {
  if (buf_use_eq(eq, a, b))
    return 1;
  if (!paired(&eq->a, a, NULL) && !paired(&eq->b, b, NULL)) /* free: explain the field */
    return buffer_fields_eq(eq, a, b, 0);
  return report(eq, "%s vs %s", nm(a->name), nm(b->name));
}

static int region_eq(eq_ctx *eq, const tsl_buffer_region *a,
                     const tsl_buffer_region *b) {
  size_t m = push(eq, ".buffer");
  int ok = use_buffer(eq, a->buffer, b->buffer);
  pop(eq, m);
  if (!ok)
    return 0;
  if (a->ndim != b->ndim)
    return report(eq, "region of %u dims vs %u", a->ndim, b->ndim);
  for (uint32_t d = 0; d < a->ndim; d++) {
    m = push(eq, ".region[%u]", d);
    ok = expr_field_eq(eq, ".min", a->ranges[d].min, b->ranges[d].min) &&
         expr_field_eq(eq, ".extent", a->ranges[d].extent, b->ranges[d].extent);
    pop(eq, m);
    if (!ok)
      return 0;
  }
  return 1;
}

/* ---- annotations ---- */

static int attr_value_eq(eq_ctx *eq, const tsl_attr_value *a,
                         const tsl_attr_value *b, int depth);

static int attrs_eq(eq_ctx *eq, tsl_attrs a, tsl_attrs b, int skip_gs,
                    int depth) {
  uint32_t i = 0, j = 0;
  for (;;) {
    while (i < a.n && skip_gs && str_eq(a.items[i].key, "global_symbol"))
      i++;
    while (j < b.n && skip_gs && str_eq(b.items[j].key, "global_symbol"))
      j++;
    if (i == a.n || j == b.n)
      break;
    if (!str_eq(a.items[i].key, b.items[j].key)) {
      int c = strcmp(nm(a.items[i].key), nm(b.items[j].key));
      return report(eq, "key \"%s\" only in %s",
                    c < 0 ? nm(a.items[i].key) : nm(b.items[j].key),
                    c < 0 ? "the first" : "the second");
    }
    size_t m = push(eq, "[\"%s\"]", nm(a.items[i].key));
    int ok = attr_value_eq(eq, &a.items[i].value, &b.items[j].value, depth + 1);
    pop(eq, m);
    if (!ok)
      return 0;
    i++, j++;
  }
  if (i < a.n)
    return report(eq, "key \"%s\" only in the first", nm(a.items[i].key));
  if (j < b.n)
    return report(eq, "key \"%s\" only in the second", nm(b.items[j].key));
  return 1;
}

static void fmt_attr(tsl_strbuf *sb, const tsl_attr_value *v) {
  switch (v->kind) {
  case TSL_ATTR_INT:
    tsl_strbuf_printf(sb, "%lld", (long long)v->u.i);
    break;
  case TSL_ATTR_FLOAT:
    tsl_strbuf_printf(sb, "%.17g", v->u.f);
    break;
  case TSL_ATTR_BOOL:
    tsl_strbuf_append(sb, v->u.i ? "True" : "False");
    break;
  case TSL_ATTR_STR:
    tsl_strbuf_printf(sb, "\"%s\"", nm(v->u.s));
    break;
  case TSL_ATTR_LIST:
    tsl_strbuf_printf(sb, "[%u items]", v->n);
    break;
  case TSL_ATTR_DICT:
    tsl_strbuf_printf(sb, "{%u entries}", v->u.dict.n);
    break;
  default:
    fmt_e(sb, v->u.expr);
    break;
  }
}

static int report_attr(eq_ctx *eq, const tsl_attr_value *a,
                       const tsl_attr_value *b) {
  tsl_strbuf sa, sb;
  tsl_strbuf_init(&sa);
  tsl_strbuf_init(&sb);
  fmt_attr(&sa, a);
  fmt_attr(&sb, b);
  report(eq, "%s vs %s", sa.data ? sa.data : "", sb.data ? sb.data : "");
  tsl_strbuf_free(&sa);
  tsl_strbuf_free(&sb);
  return 0;
}

/* An expression-valued entry that folds to a literal compares as that
 * literal (T.max(1, 2) equals 2). hash.c normalizes the same way. */
static tsl_attr_value norm_attr(eq_ctx *eq, eq_side *side,
                                const tsl_attr_value *v) {
  tsl_attr_value r = *v;
  if (v->kind != TSL_ATTR_EXPR || !v->u.expr || !eq_ensure_canon(eq))
    return r;
  const tsl_expr *c = tsl_simplify(side->an, eq->scratch, v->u.expr);
  if (c->kind == TSL_EXPR_INT_IMM && c->dtype.lanes == 1) {
    r.kind = tsl_dtype_is_bool(c->dtype) ? TSL_ATTR_BOOL : TSL_ATTR_INT;
    r.dtype = c->dtype;
    r.u.i = c->u.int_value;
  } else if (c->kind == TSL_EXPR_FLOAT_IMM && c->dtype.lanes == 1) {
    r.kind = TSL_ATTR_FLOAT;
    r.dtype = c->dtype;
    r.u.f = c->u.float_value;
  } else if (c->kind == TSL_EXPR_STR_IMM) {
    r.kind = TSL_ATTR_STR;
    r.u.s = c->u.str_value;
  }
  return r;
}

static int attr_value_eq(eq_ctx *eq, const tsl_attr_value *a0,
                         const tsl_attr_value *b0, int depth) {
  if (depth > 64)
    return report(eq, "annotation nested too deeply");
  tsl_attr_value na = norm_attr(eq, &eq->a, a0), nb = norm_attr(eq, &eq->b, b0);
  const tsl_attr_value *a = &na, *b = &nb;
  if (a->kind != b->kind)
    return report_attr(eq, a, b);
  switch (a->kind) {
  case TSL_ATTR_INT:
  case TSL_ATTR_BOOL:
    if (a->u.i != b->u.i || (a->kind == TSL_ATTR_INT && !tsl_dtype_eq(a->dtype, b->dtype)))
      return report_attr(eq, a, b);
    return 1;
  case TSL_ATTR_FLOAT:
    if (memcmp(&a->u.f, &b->u.f, 8) != 0 || !tsl_dtype_eq(a->dtype, b->dtype))
      return report_attr(eq, a, b);
    return 1;
  case TSL_ATTR_STR:
    return str_eq(a->u.s, b->u.s) ? 1 : report_attr(eq, a, b);
  case TSL_ATTR_LIST:
    if (a->n != b->n)
      return report_attr(eq, a, b);
    for (uint32_t i = 0; i < a->n; i++) {
      size_t m = push(eq, "[%u]", i);
      int ok = attr_value_eq(eq, &a->u.items[i], &b->u.items[i], depth + 1);
      pop(eq, m);
      if (!ok)
        return 0;
    }
    return 1;
  case TSL_ATTR_DICT:
    return attrs_eq(eq, a->u.dict, b->u.dict, 0, depth + 1);
  default:
    return expr_eq(eq, a->u.expr, b->u.expr);
  }
}

static int annotations_eq(eq_ctx *eq, const char *field, tsl_attrs a,
                          tsl_attrs b, int skip_gs) {
  size_t m = push(eq, "%s", field);
  int ok = attrs_eq(eq, a, b, skip_gs, 0);
  pop(eq, m);
  return ok;
}

/* ---- statements ---- */

static int stmt_eq(eq_ctx *eq, const tsl_stmt *a, const tsl_stmt *b);

static int stmt_field_eq(eq_ctx *eq, const char *field, const tsl_stmt *a,
                         const tsl_stmt *b) {
  size_t m = push(eq, "%s", field);
  int ok;
  if (!a || !b)
    ok = a == b ? 1 : report(eq, "%s vs %s", a ? "present" : "None", b ? "present" : "None");
  else
    ok = stmt_eq(eq, a, b);
  pop(eq, m);
  return ok;
}

static int block_inside_eq(eq_ctx *eq, const tsl_block *a, const tsl_block *b);

static int block_eq(eq_ctx *eq, const tsl_stmt *ra, const tsl_stmt *rb) {
  const tsl_block *a = ra->u.realize.block, *b = rb->u.realize.block;
  size_t m;
  if (ra->u.realize.n_iter_values != rb->u.realize.n_iter_values)
    return report(eq, "%u iter values vs %u", ra->u.realize.n_iter_values,
                  rb->u.realize.n_iter_values);
  for (uint32_t i = 0; i < ra->u.realize.n_iter_values; i++) {
    m = push(eq, ".iter_values[%u]", i);
    int ok = expr_eq(eq, ra->u.realize.iter_values[i], rb->u.realize.iter_values[i]);
    pop(eq, m);
    if (!ok)
      return 0;
  }
  if (!expr_field_eq(eq, ".predicate", ra->u.realize.predicate, rb->u.realize.predicate))
    return 0;
  if (!str_eq(a->name, b->name)) {
    m = push(eq, ".name");
    report(eq, "\"%s\" vs \"%s\"", nm(a->name), nm(b->name));
    pop(eq, m);
    return 0;
  }
  if (a->n_iter_vars != b->n_iter_vars)
    return report(eq, "%u iter vars vs %u", a->n_iter_vars, b->n_iter_vars);
  for (uint32_t i = 0; i < a->n_iter_vars; i++) {
    const tsl_iter_var *x = &a->iter_vars[i], *y = &b->iter_vars[i];
    m = push(eq, ".iter_vars[%u]", i);
    int ok = expr_field_eq(eq, ".dom.min", x->dom.min, y->dom.min) &&
             expr_field_eq(eq, ".dom.extent", x->dom.extent, y->dom.extent);
    if (ok && x->iter_type != y->iter_type)
      ok = report(eq, "%s vs %s", tsl_iter_type_name((tsl_iter_type)x->iter_type),
                  tsl_iter_type_name((tsl_iter_type)y->iter_type));
    ok = ok && def_var(eq, x->var, y->var);
    pop(eq, m);
    if (!ok)
      return 0;
  }
  for (uint32_t i = 0; i < a->n_iter_vars; i++)
    eq_bind(eq, a->iter_vars[i].var, &a->iter_vars[i].dom, b->iter_vars[i].var,
            &b->iter_vars[i].dom);
  int ok = block_inside_eq(eq, a, b);
  for (uint32_t i = 0; i < a->n_iter_vars; i++)
    eq_unbind(eq, a->iter_vars[i].var, b->iter_vars[i].var);
  return ok;
}

/* What a block holds under its iter vars: buffers, regions, annotations,
 * init and body. */
static int block_inside_eq(eq_ctx *eq, const tsl_block *a, const tsl_block *b) {
  size_t m;
  if (a->n_alloc_buffers != b->n_alloc_buffers)
    return report(eq, "%u alloc_buffers vs %u", a->n_alloc_buffers, b->n_alloc_buffers);
  for (uint32_t i = 0; i < a->n_alloc_buffers; i++) {
    m = push(eq, ".alloc_buffers[%u]", i);
    int ok = def_buffer(eq, a->alloc_buffers[i], b->alloc_buffers[i]);
    pop(eq, m);
    if (!ok)
      return 0;
  }
  if (a->n_match_buffers != b->n_match_buffers)
    return report(eq, "%u match_buffers vs %u", a->n_match_buffers, b->n_match_buffers);
  for (uint32_t i = 0; i < a->n_match_buffers; i++) {
    m = push(eq, ".match_buffers[%u]", i);
    size_t m2 = push(eq, ".source");
    int ok = region_eq(eq, &a->match_buffers[i].source, &b->match_buffers[i].source);
    pop(eq, m2);
    if (ok) {
      m2 = push(eq, ".buffer");
      ok = def_buffer(eq, a->match_buffers[i].buffer, b->match_buffers[i].buffer);
      pop(eq, m2);
    }
    pop(eq, m);
    if (!ok)
      return 0;
  }
  if (a->n_reads != b->n_reads)
    return report(eq, "%u reads vs %u", a->n_reads, b->n_reads);
  for (uint32_t i = 0; i < a->n_reads; i++) {
    m = push(eq, ".reads[%u]", i);
    int ok = region_eq(eq, &a->reads[i], &b->reads[i]);
    pop(eq, m);
    if (!ok)
      return 0;
  }
  if (a->n_writes != b->n_writes)
    return report(eq, "%u writes vs %u", a->n_writes, b->n_writes);
  for (uint32_t i = 0; i < a->n_writes; i++) {
    m = push(eq, ".writes[%u]", i);
    int ok = region_eq(eq, &a->writes[i], &b->writes[i]);
    pop(eq, m);
    if (!ok)
      return 0;
  }
  if (!annotations_eq(eq, ".annotations", a->annotations, b->annotations, 0))
    return 0;
  if (!stmt_field_eq(eq, ".init", a->init, b->init))
    return 0;
  return stmt_field_eq(eq, ".body", a->body, b->body);
}

static int stmt_inner(eq_ctx *eq, const tsl_stmt *a, const tsl_stmt *b) {
  size_t m;
  switch ((tsl_stmt_kind)a->kind) {
  case TSL_STMT_FOR: {
    const tsl_var *va = a->u.loop.loop_var, *vb = b->u.loop.loop_var;
    m = push(eq, ".for[%s]", va ? nm(va->name) : "?");
    int ok = expr_field_eq(eq, ".min", a->u.loop.min, b->u.loop.min) &&
             expr_field_eq(eq, ".extent", a->u.loop.extent, b->u.loop.extent);
    if (ok && a->u.loop.for_kind != b->u.loop.for_kind) {
      size_t k = push(eq, ".kind");
      ok = report(eq, "%s vs %s", tsl_for_kind_name((tsl_for_kind)a->u.loop.for_kind),
                  tsl_for_kind_name((tsl_for_kind)b->u.loop.for_kind));
      pop(eq, k);
    }
    if (ok && !str_eq(a->u.loop.thread_tag, b->u.loop.thread_tag)) {
      size_t k = push(eq, ".thread");
      ok = report(eq, "\"%s\" vs \"%s\"", a->u.loop.thread_tag ? a->u.loop.thread_tag : "",
                  b->u.loop.thread_tag ? b->u.loop.thread_tag : "");
      pop(eq, k);
    }
    ok = ok && annotations_eq(eq, ".annotations", a->u.loop.annotations,
                              b->u.loop.annotations, 0);
    ok = ok && def_var(eq, va, vb);
    if (ok) {
      tsl_range da = {a->u.loop.min, a->u.loop.extent};
      tsl_range db = {b->u.loop.min, b->u.loop.extent};
      eq_bind(eq, va, &da, vb, &db);
      ok = stmt_field_eq(eq, ".body", a->u.loop.body, b->u.loop.body);
      eq_unbind(eq, va, vb);
    }
    pop(eq, m);
    return ok;
  }
  case TSL_STMT_BLOCK_REALIZE: {
    m = push(eq, ".block[%s]", nm(a->u.realize.block->name));
    int ok = block_eq(eq, a, b);
    pop(eq, m);
    return ok;
  }
  case TSL_STMT_STORE: {
    m = push(eq, ".store[%s]", nm(a->u.store.buffer->name));
    size_t k = push(eq, ".buffer");
    int ok = use_buffer(eq, a->u.store.buffer, b->u.store.buffer);
    pop(eq, k);
    if (ok && a->u.store.n_indices != b->u.store.n_indices)
      ok = report(eq, "%u indices vs %u", a->u.store.n_indices, b->u.store.n_indices);
    for (uint32_t i = 0; ok && i < a->u.store.n_indices; i++) {
      k = push(eq, ".indices[%u]", i);
      ok = expr_eq(eq, a->u.store.indices[i], b->u.store.indices[i]);
      pop(eq, k);
    }
    ok = ok && expr_field_eq(eq, ".value", a->u.store.value, b->u.store.value);
    pop(eq, m);
    return ok;
  }
  case TSL_STMT_IF: {
    m = push(eq, ".if");
    int ok = expr_field_eq(eq, ".cond", a->u.branch.cond, b->u.branch.cond) &&
             stmt_field_eq(eq, ".then", a->u.branch.then_case, b->u.branch.then_case) &&
             stmt_field_eq(eq, ".else", a->u.branch.else_case, b->u.branch.else_case);
    pop(eq, m);
    return ok;
  }
  case TSL_STMT_LET: {
    m = push(eq, ".let[%s]", a->u.let.var ? nm(a->u.let.var->name) : "?");
    int ok = expr_field_eq(eq, ".value", a->u.let.value, b->u.let.value) &&
             def_var(eq, a->u.let.var, b->u.let.var) &&
             stmt_field_eq(eq, ".body", a->u.let.body, b->u.let.body);
    pop(eq, m);
    return ok;
  }
  case TSL_STMT_EVALUATE: {
    m = push(eq, ".evaluate");
    int ok = expr_field_eq(eq, ".value", a->u.evaluate.value, b->u.evaluate.value);
    pop(eq, m);
    return ok;
  }
  case TSL_STMT_SEQ: {
    if (a->u.seq.n != b->u.seq.n)
      return report(eq, "%u statements vs %u", a->u.seq.n, b->u.seq.n);
    for (uint32_t i = 0; i < a->u.seq.n; i++) {
      m = push(eq, "[%u]", i);
      int ok = stmt_eq(eq, a->u.seq.stmts[i], b->u.seq.stmts[i]);
      pop(eq, m);
      if (!ok)
        return 0;
    }
    return 1;
  }
  case TSL_STMT_ALLOCATE: {
    m = push(eq, ".allocate[%s]", nm(a->u.alloc.buffer->name));
    size_t k = push(eq, ".buffer");
    int ok = def_buffer(eq, a->u.alloc.buffer, b->u.alloc.buffer);
    pop(eq, k);
    ok = ok && stmt_field_eq(eq, ".body", a->u.alloc.body, b->u.alloc.body);
    pop(eq, m);
    return ok;
  }
  case TSL_STMT_KIND_COUNT:
    break;
  }
  return report(eq, "unknown statement kind %d", a->kind);
}

static const char *stmt_desc(const tsl_stmt *s) {
  if (s->kind == TSL_STMT_SEQ)
    return "a sequence";
  if (s->kind < TSL_STMT_KIND_COUNT)
    return tsl_stmt_kind_name((tsl_stmt_kind)s->kind);
  return "?";
}

static int stmt_eq(eq_ctx *eq, const tsl_stmt *a, const tsl_stmt *b) {
  if (a->kind != b->kind) {
    if (a->kind == TSL_STMT_SEQ || b->kind == TSL_STMT_SEQ)
      return report(eq, "%s vs %s", stmt_desc(a), stmt_desc(b));
    return report(eq, "%s vs %s", stmt_desc(a), stmt_desc(b));
  }
  if (++eq->sdepth > EQ_MAX_STMT_DEPTH) {
    eq->sdepth--;
    return report(eq, "statements nested too deeply to compare");
  }
  int ok = stmt_inner(eq, a, b);
  eq->sdepth--;
  return ok;
}

/* ---- functions and modules ---- */

static int func_eq(eq_ctx *eq, const tsl_func *a, const tsl_func *b) {
  eq_reset_maps(eq);
  size_t m = push(eq, "funcs[%s]", nm(a->name));
  int ok = 1;
  if (a->n_params != b->n_params)
    ok = report(eq, "%u params vs %u", a->n_params, b->n_params);
  for (uint32_t i = 0; ok && i < a->n_params; i++) {
    const tsl_param *pa = &a->params[i], *pb = &b->params[i];
    size_t k = push(eq, ".params[%u]", i);
    ok = def_var(eq, pa->var, pb->var);
    if (ok) {
      size_t k2 = push(eq, ".buffer");
      ok = def_buffer(eq, pa->buffer, pb->buffer);
      pop(eq, k2);
    }
    pop(eq, k);
  }
  ok = ok && stmt_field_eq(eq, ".body", a->body, b->body);
  ok = ok && annotations_eq(eq, ".attrs", a->attrs, b->attrs, 1);
  pop(eq, m);
  return ok;
}

int tsl_func_equal(const tsl_func *a, const tsl_func *b, char *why,
                   size_t why_cap) {
  eq_ctx eq;
  eq_init(&eq, why, why_cap);
  int ok;
  if (!a || !b)
    ok = a == b ? 1 : report(&eq, "function vs None");
  else
    ok = func_eq(&eq, a, b);
  eq_free(&eq);
  return ok;
}

int tsl_module_equal(const tsl_module *a, const tsl_module *b, char *why,
                     size_t why_cap) {
  eq_ctx eq;
  eq_init(&eq, why, why_cap);
  int ok = 1;
  if (!a || !b) {
    ok = a == b ? 1 : report(&eq, "module vs None");
  } else if (a->n_funcs != b->n_funcs) {
    ok = report(&eq, "funcs: %u functions vs %u", a->n_funcs, b->n_funcs);
  } else if (a->n_funcs == 1) {
    /* one function each: compared as functions, whatever their names */
    ok = func_eq(&eq, a->funcs[0], b->funcs[0]);
  } else {
    for (uint32_t i = 0; ok && i < a->n_funcs; i++) {
      const tsl_func *fa = a->funcs[i], *fb = NULL;
      for (uint32_t j = 0; j < b->n_funcs && !fb; j++)
        if (str_eq(b->funcs[j]->name, fa->name))
          fb = b->funcs[j];
      if (!fb)
        ok = report(&eq, "funcs[%s]: missing in the second module", nm(fa->name));
      else
        ok = func_eq(&eq, fa, fb);
    }
    for (uint32_t j = 0; ok && j < b->n_funcs; j++) {
      int found = 0;
      for (uint32_t i = 0; i < a->n_funcs && !found; i++)
        found = str_eq(a->funcs[i]->name, b->funcs[j]->name);
      if (!found)
        ok = report(&eq, "funcs[%s]: missing in the first module", nm(b->funcs[j]->name));
    }
  }
  eq_free(&eq);
  return ok;
}

int tsl_expr_equal(const tsl_expr *a, const tsl_expr *b) {
  if (a == b)
    return 1;
  if (!a || !b)
    return 0;
  eq_ctx eq;
  eq_init(&eq, NULL, 0);
  int ok = expr_eq(&eq, a, b);
  eq_free(&eq);
  return ok;
}

int tsl_stmt_equal(const tsl_stmt *a, const tsl_stmt *b) {
  if (!a || !b)
    return a == b;
  eq_ctx eq;
  eq_init(&eq, NULL, 0);
  int ok = stmt_eq(&eq, a, b);
  eq_free(&eq);
  return ok;
}
