/*
 * A small one-line expression formatter for diagnostics (equality's `why`,
 * test messages): Python operator syntax with minimal parentheses, T.*
 * calls for the rest. Independent of the TVMScript printer.
 */
#include "analysis_internal.h"

#include <inttypes.h>
#include <stdio.h>

static void fmt(tsl_strbuf *sb, const tsl_expr *e, int depth);

static void fmt_int(tsl_strbuf *sb, const tsl_expr *e) {
  char dt[32];
  if (tsl_dtype_is_bool(e->dtype)) {
    tsl_strbuf_append(sb, e->u.int_value ? "True" : "False");
  } else if (tsl_dtype_eq(e->dtype, TSL_INT32)) {
    tsl_strbuf_printf(sb, "%" PRId64, e->u.int_value);
  } else if (e->dtype.code == TSL_DT_UINT) {
    tsl_strbuf_printf(sb, "T.%s(%" PRIu64 ")", tsl_dtype_str(e->dtype, dt),
                      (uint64_t)e->u.int_value);
  } else {
    tsl_strbuf_printf(sb, "T.%s(%" PRId64 ")", tsl_dtype_str(e->dtype, dt),
                      e->u.int_value);
  }
}

static void fmt_args(tsl_strbuf *sb, const tsl_expr *e, uint32_t from,
                     int depth) {
  for (uint32_t i = from; i < e->n_args; i++) {
    if (i > from)
      tsl_strbuf_append(sb, ", ");
    fmt(sb, e->args[i], depth + 1);
  }
}

static void fmt_operand(tsl_strbuf *sb, const tsl_expr *x, int parent_prec,
                        int right, int depth) {
  int p = tsl_expr_kind_info_of((tsl_expr_kind)x->kind)->prec;
  if (x->kind == TSL_EXPR_INT_IMM && x->u.int_value < 0 &&
      tsl_dtype_eq(x->dtype, TSL_INT32))
    p = 13; /* a negative literal reads like unary minus */
  int paren = p && (p < parent_prec || (right && p == parent_prec) ||
                    (p == 6 && parent_prec == 6));
  if (paren)
    tsl_strbuf_append(sb, "(");
  fmt(sb, x, depth + 1);
  if (paren)
    tsl_strbuf_append(sb, ")");
}

static void fmt(tsl_strbuf *sb, const tsl_expr *e, int depth) {
  char dt[32];
  if (depth > 200) {
    tsl_strbuf_append(sb, "...");
    return;
  }
  const tsl_expr_kind_info *info = tsl_expr_kind_info_of((tsl_expr_kind)e->kind);
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_INT_IMM:
    fmt_int(sb, e);
    return;
  case TSL_EXPR_FLOAT_IMM:
    if (tsl_dtype_eq(e->dtype, TSL_FLOAT32))
      tsl_strbuf_printf(sb, "T.float32(%.9g)", e->u.float_value);
    else
      tsl_strbuf_printf(sb, "T.%s(%.17g)", tsl_dtype_str(e->dtype, dt),
                        e->u.float_value);
    return;
  case TSL_EXPR_STR_IMM:
    tsl_strbuf_printf(sb, "\"%s\"", e->u.str_value ? e->u.str_value : "");
    return;
  case TSL_EXPR_VAR:
    tsl_strbuf_append(sb, e->u.var->name ? e->u.var->name : "?");
    return;
  case TSL_EXPR_LOAD:
    tsl_strbuf_append(sb, e->u.buffer->name ? e->u.buffer->name : "?");
    tsl_strbuf_append(sb, "[");
    fmt_args(sb, e, 0, depth);
    tsl_strbuf_append(sb, "]");
    return;
  case TSL_EXPR_NEG:
  case TSL_EXPR_NOT:
    tsl_strbuf_append(sb, e->kind == TSL_EXPR_NOT ? "not " : "-");
    fmt_operand(sb, e->args[0], info->prec, 1, depth);
    return;
  case TSL_EXPR_CAST:
    tsl_strbuf_printf(sb, "T.Cast(\"%s\", ", tsl_dtype_str(e->dtype, dt));
    fmt(sb, e->args[0], depth + 1);
    tsl_strbuf_append(sb, ")");
    return;
  case TSL_EXPR_CALL:
    tsl_strbuf_printf(sb, "T.%s(", tsl_intrin_name((tsl_intrin)e->intrin));
    fmt_args(sb, e, 0, depth);
    tsl_strbuf_append(sb, ")");
    return;
  case TSL_EXPR_CALL_EXTERN:
    tsl_strbuf_printf(sb, "T.call_extern(\"%s\", \"%s\"",
                      tsl_dtype_str(e->dtype, dt),
                      e->u.str_value ? e->u.str_value : "");
    if (e->n_args)
      tsl_strbuf_append(sb, ", ");
    fmt_args(sb, e, 0, depth);
    tsl_strbuf_append(sb, ")");
    return;
  case TSL_EXPR_RAMP:
    tsl_strbuf_append(sb, "T.Ramp(");
    fmt_args(sb, e, 0, depth);
    tsl_strbuf_printf(sb, ", %u)", e->dtype.lanes);
    return;
  case TSL_EXPR_BROADCAST:
    tsl_strbuf_append(sb, "T.Broadcast(");
    fmt_args(sb, e, 0, depth);
    tsl_strbuf_printf(sb, ", %u)", e->dtype.lanes);
    return;
  default:
    break;
  }
  if (info->token[0] && e->n_args == 2) {
    fmt_operand(sb, e->args[0], info->prec, 0, depth);
    tsl_strbuf_printf(sb, " %s ", info->token);
    fmt_operand(sb, e->args[1], info->prec, 1, depth);
    return;
  }
  tsl_strbuf_printf(sb, "T.%s(", info->name);
  fmt_args(sb, e, 0, depth);
  tsl_strbuf_append(sb, ")");
}

void tsla_fmt_expr(tsl_strbuf *sb, const tsl_expr *e) {
  if (!e) {
    tsl_strbuf_append(sb, "None");
    return;
  }
  fmt(sb, e, 0);
}
