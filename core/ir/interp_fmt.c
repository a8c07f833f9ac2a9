/*
 * Short renderings of expressions and shapes for the interpreter's error
 * messages ("m * 2", "(m, 128)"). Not the TVMScript printer: it only needs
 * to be readable, and it never fails (depth-capped, unknown nodes by kind).
 */
#include "interp_internal.h"

#include <stdio.h>

static void fmt(tsl_strbuf *sb, const tsl_expr *e, int depth) {
  if (!e) {
    tsl_strbuf_append(sb, "?");
    return;
  }
  if (depth > 12) {
    tsl_strbuf_append(sb, "...");
    return;
  }
  const tsl_expr_kind_info *ki = tsl_expr_kind_info_of((tsl_expr_kind)e->kind);
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_INT_IMM:
    if (tsl_dtype_is_bool(e->dtype))
      tsl_strbuf_append(sb, e->u.int_value ? "True" : "False");
    else
      tsl_strbuf_printf(sb, "%lld", (long long)e->u.int_value);
    return;
  case TSL_EXPR_FLOAT_IMM:
    tsl_strbuf_printf(sb, "%.9g", e->u.float_value);
    return;
  case TSL_EXPR_STR_IMM:
    tsl_strbuf_printf(sb, "\"%s\"", e->u.str_value ? e->u.str_value : "");
    return;
  case TSL_EXPR_VAR:
    tsl_strbuf_append(sb, e->u.var->name);
    return;
  case TSL_EXPR_LOAD:
    tsl_strbuf_printf(sb, "%s[", e->u.buffer->name);
    for (uint32_t i = 0; i < e->n_args; i++) {
      if (i)
        tsl_strbuf_append(sb, ", ");
      fmt(sb, e->args[i], depth + 1);
    }
    tsl_strbuf_append(sb, "]");
    return;
  case TSL_EXPR_CALL:
    if (e->intrin < TSL_INTRIN_COUNT)
      tsl_strbuf_printf(sb, "T.%s(", tsl_intrin_name((tsl_intrin)e->intrin));
    else
      tsl_strbuf_append(sb, "T.call(");
    break;
  case TSL_EXPR_CALL_EXTERN:
    tsl_strbuf_printf(sb, "T.call_extern(\"%s\"%s",
                      e->u.str_value ? e->u.str_value : "",
                      e->n_args ? ", " : "");
    break;
  case TSL_EXPR_CAST: {
    char dn[32];
    tsl_strbuf_printf(sb, "T.Cast(\"%s\", ", tsl_dtype_str(e->dtype, dn));
    break;
  }
  default:
    if (ki->token[0] && e->n_args == 2) {
      tsl_strbuf_append(sb, "(");
      fmt(sb, e->args[0], depth + 1);
      tsl_strbuf_printf(sb, " %s ", ki->token);
      fmt(sb, e->args[1], depth + 1);
      tsl_strbuf_append(sb, ")");
      return;
    }
    if (ki->token[0] && e->n_args == 1) {
      tsl_strbuf_printf(sb, "%s%s", ki->token,
                        e->kind == TSL_EXPR_NOT ? " " : "");
      fmt(sb, e->args[0], depth + 1);
      return;
    }
    tsl_strbuf_printf(sb, "T.%s(", ki->name[0] ? ki->name : ki->kind_name);
    break;
  }
  for (uint32_t i = 0; i < e->n_args; i++) {
    if (i)
      tsl_strbuf_append(sb, ", ");
    fmt(sb, e->args[i], depth + 1);
  }
  tsl_strbuf_append(sb, ")");
}

void tsli_fmt_expr(tsl_strbuf *sb, const tsl_expr *e) {
  /* drop the outermost parentheses of a binary operator */
  size_t start = sb->len;
  fmt(sb, e, 0);
  if (sb->len - start >= 2 && sb->data[start] == '(' &&
      sb->data[sb->len - 1] == ')' && e && e->kind != TSL_EXPR_CALL &&
      tsl_expr_kind_info_of((tsl_expr_kind)e->kind)->token[0] &&
      e->n_args == 2) {
    memmove(sb->data + start, sb->data + start + 1, sb->len - start - 2);
    sb->len -= 2;
    sb->data[sb->len] = '\0';
  }
}

void tsli_fmt_shape_decl(tsl_strbuf *sb, const tsl_buffer *b) {
  tsl_strbuf_append(sb, "(");
  for (uint32_t d = 0; d < b->ndim; d++) {
    if (d)
      tsl_strbuf_append(sb, ", ");
    tsli_fmt_expr(sb, b->shape[d]);
  }
  tsl_strbuf_append(sb, b->ndim == 1 ? ",)" : ")");
}

void tsli_fmt_shape_vals(tsl_strbuf *sb, uint32_t ndim, const int64_t *v) {
  tsl_strbuf_append(sb, "(");
  for (uint32_t d = 0; d < ndim; d++)
    tsl_strbuf_printf(sb, "%s%lld", d ? ", " : "", (long long)v[d]);
  tsl_strbuf_append(sb, ndim == 1 ? ",)" : ")");
}
