/*
 * Printer: expressions, constants and annotation dictionaries.
 *
 * Operators print infix with the fewest parentheses that keep the tree
 * (Python precedences from the TSL_EXPR_KINDS table; binary operators are
 * left-associative, comparisons never chain). Constants print as TVM does:
 * bare int32, T.int64(5), T.bool(True), T.float32(0.5), T.float32("inf").
 */
#include "printer_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { PREC_ATOM = 100, PREC_UNARY = 13, PREC_NOT = 5, PREC_CMP = 6 };

static int is_bare_int32(const tsl_expr *e) {
  return tsl_dtype_eq(e->dtype, TSL_INT32) && e->u.int_value >= INT32_MIN &&
         e->u.int_value <= INT32_MAX;
}

static int is_infix(const tsl_expr *e) {
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_ADD: case TSL_EXPR_SUB: case TSL_EXPR_MUL:
  case TSL_EXPR_FLOORDIV: case TSL_EXPR_FLOORMOD:
  case TSL_EXPR_EQ: case TSL_EXPR_NE: case TSL_EXPR_LT: case TSL_EXPR_LE:
  case TSL_EXPR_GT: case TSL_EXPR_GE: case TSL_EXPR_AND: case TSL_EXPR_OR:
    return 1;
  case TSL_EXPR_DIV:
    return tsl_dtype_is_float(e->dtype);
  default:
    return 0;
  }
}

static int expr_prec(const tsl_expr *e) {
  if (e->kind >= TSL_EXPR_KIND_COUNT)
    return PREC_ATOM;
  if (e->kind == TSL_EXPR_INT_IMM)
    return is_bare_int32(e) && e->u.int_value < 0 ? PREC_UNARY : PREC_ATOM;
  if (e->kind == TSL_EXPR_FLOAT_IMM)
    return isnan(e->u.float_value) && signbit(e->u.float_value) ? PREC_UNARY
                                                                : PREC_ATOM;
  if (e->kind == TSL_EXPR_NEG)
    return PREC_UNARY;
  if (e->kind == TSL_EXPR_NOT)
    return PREC_NOT;
  if (is_infix(e))
    return tsl_expr_kind_info_of((tsl_expr_kind)e->kind)->prec;
  return PREC_ATOM;
}

static void pr_paren(pr_t *p, const tsl_expr *e, int parens) {
  if (parens)
    pr_puts(p, "(");
  pr_expr(p, e);
  if (parens)
    pr_puts(p, ")");
}

/* lhs <op> rhs with precedence `prec` (left-associative). */
static void pr_infix(pr_t *p, const tsl_expr *l, const char *op, int prec,
                     const tsl_expr *r) {
  int lp = expr_prec(l), rp = expr_prec(r);
  pr_paren(p, l, lp < prec || (prec == PREC_CMP && lp == PREC_CMP));
  pr_printf(p, " %s ", op);
  pr_paren(p, r, rp <= prec);
}

void pr_range_stop(pr_t *p, const tsl_expr *min, const tsl_expr *extent) {
  int64_t a, b;
  if (tsl_expr_is_const_int(min, &a) && tsl_expr_is_const_int(extent, &b) &&
      tsl_dtype_eq(min->dtype, extent->dtype) &&
      !((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))) {
    tsl_expr tmp = *min;
    tmp.u.int_value = a + b;
    if (tsl_dtype_eq(tmp.dtype, TSL_INT32) &&
        (tmp.u.int_value > INT32_MAX || tmp.u.int_value < INT32_MIN))
      tmp.dtype = TSL_INT64;
    pr_expr(p, &tmp);
    return;
  }
  if (tsl_expr_is_const_int(min, &a) && a == 0) {
    pr_expr(p, extent);
    return;
  }
  pr_infix(p, min, "+", tsl_expr_kind_info_of(TSL_EXPR_ADD)->prec, extent);
}

void pr_expr_tuple(pr_t *p, uint32_t n, const tsl_expr *const *items) {
  pr_puts(p, "(");
  for (uint32_t i = 0; i < n; i++) {
    if (i)
      pr_puts(p, ", ");
    pr_expr(p, items[i]);
  }
  pr_puts(p, n == 1 ? ",)" : ")");
}

int pr_is_const_true(const tsl_expr *e) {
  return e && e->kind == TSL_EXPR_INT_IMM && tsl_dtype_is_bool(e->dtype) &&
         e->dtype.lanes == 1 && e->u.int_value != 0;
}

static void pr_int_imm(pr_t *p, const tsl_expr *e) {
  char dt[32];
  if (tsl_dtype_is_bool(e->dtype)) {
    pr_printf(p, "T.%s(%s)", pr_dtype(e->dtype, dt),
              e->u.int_value ? "True" : "False");
  } else if (is_bare_int32(e)) {
    pr_printf(p, "%lld", (long long)e->u.int_value);
  } else if (e->dtype.code == TSL_DT_UINT) {
    uint64_t u = (uint64_t)e->u.int_value;
    if (e->dtype.bits < 64)
      u &= (UINT64_C(1) << e->dtype.bits) - 1;
    pr_printf(p, "T.%s(%llu)", pr_dtype(e->dtype, dt), (unsigned long long)u);
  } else {
    pr_printf(p, "T.%s(%lld)", pr_dtype(e->dtype, dt),
              (long long)e->u.int_value);
  }
}

static void pr_float_imm(pr_t *p, const tsl_expr *e) {
  char dt[32], num[48];
  double v = e->u.float_value;
  /* a NaN with its sign bit set: the parser folds the negation back */
  pr_printf(p, "%sT.%s(", isnan(v) && signbit(v) ? "-" : "",
            pr_dtype(e->dtype, dt));
  if (isnan(v))
    pr_puts(p, "\"nan\"");
  else if (isinf(v))
    pr_puts(p, v < 0 ? "\"-inf\"" : "\"inf\"");
  else if (v == 0) {
    pr_format_double(v, 0, num); /* "0", or "-0.0" to keep the sign */
    pr_puts(p, num);
  } else {
    /* 17 significant digits, as TVM prints (T.float32(0.10000000000000001)) */
    snprintf(num, sizeof num, "%.17g", v);
    pr_puts(p, num);
  }
  pr_puts(p, ")");
}

/* T.name(args...) */
static void pr_call(pr_t *p, const char *name, const tsl_expr *e,
                    uint32_t first) {
  pr_printf(p, "T.%s(", name);
  for (uint32_t i = first; i < e->n_args; i++) {
    if (i > first)
      pr_puts(p, ", ");
    pr_expr(p, e->args[i]);
  }
  pr_puts(p, ")");
}

static void pr_load(pr_t *p, const tsl_expr *e) {
  pr_puts(p, pr_buffer_name(p, e->u.buffer));
  pr_puts(p, "[");
  if (e->n_args == 0)
    pr_puts(p, "()");
  for (uint32_t i = 0; i < e->n_args; i++) {
    if (i)
      pr_puts(p, ", ");
    pr_expr(p, e->args[i]);
  }
  pr_puts(p, "]");
}

static void pr_expr_inner(pr_t *p, const tsl_expr *e);

void pr_expr(pr_t *p, const tsl_expr *e) {
  if (p->expr_depth >= PR_MAX_EXPR_DEPTH) {
    pr_puts(p, "...");
    return;
  }
  p->expr_depth++;
  pr_expr_inner(p, e);
  p->expr_depth--;
}

static void pr_expr_inner(pr_t *p, const tsl_expr *e) {
  char dt[32];
  if (!e) {
    pr_puts(p, "None");
    return;
  }
  if (e->kind >= TSL_EXPR_KIND_COUNT) {
    pr_printf(p, "T.invalid_expr_kind_%u()", e->kind);
    return;
  }
  const tsl_expr_kind_info *info = tsl_expr_kind_info_of((tsl_expr_kind)e->kind);
  if (info->n_args >= 0 && e->n_args != (uint32_t)info->n_args) {
    /* malformed node: show it as a call so nothing is dereferenced blindly */
    pr_call(p, info->kind_name, e, 0);
    return;
  }
  if (is_infix(e)) {
    pr_infix(p, e->args[0], info->token, info->prec, e->args[1]);
    return;
  }
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_INT_IMM:
    pr_int_imm(p, e);
    return;
  case TSL_EXPR_FLOAT_IMM:
    pr_float_imm(p, e);
    return;
  case TSL_EXPR_STR_IMM:
    pr_str_literal(p, e->u.str_value);
    return;
  case TSL_EXPR_VAR:
    pr_puts(p, pr_var_name(p, e->u.var));
    return;
  case TSL_EXPR_LOAD:
    pr_load(p, e);
    return;
  case TSL_EXPR_DIV: /* integer division (float division is infix) */
    pr_call(p, "truncdiv", e, 0);
    return;
  case TSL_EXPR_NOT:
    pr_puts(p, "not ");
    pr_paren(p, e->args[0], expr_prec(e->args[0]) < PREC_NOT);
    return;
  case TSL_EXPR_NEG:
    /* `--x` rather than `-(-x)`: no nesting beyond what the parser read */
    pr_puts(p, "-");
    pr_paren(p, e->args[0], expr_prec(e->args[0]) < PREC_UNARY);
    return;
  case TSL_EXPR_CAST:
    pr_printf(p, "T.Cast(\"%s\", ", pr_dtype(e->dtype, dt));
    pr_expr(p, e->args[0]);
    pr_puts(p, ")");
    return;
  case TSL_EXPR_CALL:
    if (e->intrin >= TSL_INTRIN_COUNT) {
      pr_printf(p, "T.invalid_intrin_%u(", e->intrin);
      pr_puts(p, ")");
      return;
    }
    pr_call(p, tsl_intrin_name((tsl_intrin)e->intrin), e, 0);
    return;
  case TSL_EXPR_CALL_EXTERN:
    pr_printf(p, "T.call_extern(\"%s\", ", pr_dtype(e->dtype, dt));
    pr_str_literal(p, e->u.str_value);
    for (uint32_t i = 0; i < e->n_args; i++) {
      pr_puts(p, ", ");
      pr_expr(p, e->args[i]);
    }
    pr_puts(p, ")");
    return;
  case TSL_EXPR_BUILTIN: {
    if (e->intrin >= TSL_BUILTIN_COUNT) {
      pr_printf(p, "T.invalid_builtin_%u()", e->intrin);
      return;
    }
    const tsl_builtin_info *bi = tsl_builtin_info_of((tsl_builtin)e->intrin);
    if (bi->result == TSL_BUILTIN_RES_DTYPE) {
      pr_printf(p, "T.%s(\"%s\")", bi->name, pr_dtype(e->dtype, dt));
      return;
    }
    if (bi->result == TSL_BUILTIN_RES_DTYPE_FIRST) { /* TVM's kFirst print location */
      pr_printf(p, "T.%s(\"%s\"", bi->name, pr_dtype(e->dtype, dt));
      for (uint32_t i = 0; i < e->n_args; i++) {
        pr_puts(p, ", ");
        pr_expr(p, e->args[i]);
      }
      pr_puts(p, ")");
      return;
    }
    pr_call(p, bi->name, e, 0);
    return;
  }
  case TSL_EXPR_BUFFER_DATA:
    pr_puts(p, pr_buffer_name(p, e->u.buffer));
    pr_puts(p, ".data");
    return;
  case TSL_EXPR_RAMP:
    pr_puts(p, "T.Ramp(");
    pr_expr(p, e->args[0]);
    pr_puts(p, ", ");
    pr_expr(p, e->args[1]);
    pr_printf(p, ", %u)", (unsigned)e->dtype.lanes);
    return;
  case TSL_EXPR_BROADCAST:
    pr_puts(p, "T.Broadcast(");
    pr_expr(p, e->args[0]);
    pr_printf(p, ", %u)", (unsigned)e->dtype.lanes);
    return;
  default: /* MOD, MIN, MAX, SELECT, IF_THEN_ELSE: T.<name>(args) */
    pr_call(p, info->name, e, 0);
    return;
  }
}

/* ---- annotation dictionaries ---- */

static void pr_attr_value(pr_t *p, const tsl_attr_value *v) {
  char dt[32], num[48];
  switch (v->kind) {
  case TSL_ATTR_INT:
    if (v->dtype.bits == 0 || tsl_dtype_eq(v->dtype, TSL_INT32))
      pr_printf(p, "%lld", (long long)v->u.i);
    else if (v->dtype.code == TSL_DT_UINT)
      pr_printf(p, "T.%s(%llu)", pr_dtype(v->dtype, dt),
                (unsigned long long)v->u.i);
    else
      pr_printf(p, "T.%s(%lld)", pr_dtype(v->dtype, dt), (long long)v->u.i);
    return;
  case TSL_ATTR_FLOAT: {
    int bare = v->dtype.bits == 0 || tsl_dtype_eq(v->dtype, TSL_FLOAT32);
    const char *dn = v->dtype.bits == 0 ? "float32" : pr_dtype(v->dtype, dt);
    if (isnan(v->u.f) || isinf(v->u.f)) {
      pr_printf(p, "T.%s(\"%s\")", dn,
                isnan(v->u.f) ? "nan" : v->u.f < 0 ? "-inf" : "inf");
    } else if (bare) {
      pr_format_double(v->u.f, 1, num);
      pr_puts(p, num);
    } else {
      pr_format_double(v->u.f, 0, num);
      pr_printf(p, "T.%s(%s)", dn, num);
    }
    return;
  }
  case TSL_ATTR_BOOL:
    pr_puts(p, v->u.i ? "T.bool(True)" : "T.bool(False)");
    return;
  case TSL_ATTR_STR:
    pr_str_literal(p, v->u.s);
    return;
  case TSL_ATTR_LIST:
    pr_puts(p, "[");
    for (uint32_t i = 0; i < v->n; i++) {
      if (i)
        pr_puts(p, ", ");
      pr_attr_value(p, &v->u.items[i]);
    }
    pr_puts(p, "]");
    return;
  case TSL_ATTR_DICT:
    pr_attrs(p, v->u.dict);
    return;
  case TSL_ATTR_EXPR:
    pr_expr(p, v->u.expr);
    return;
  default:
    pr_puts(p, "None");
    return;
  }
}

void pr_attrs(pr_t *p, tsl_attrs attrs) {
  pr_puts(p, "{");
  for (uint32_t i = 0; i < attrs.n; i++) {
    if (i)
      pr_puts(p, ", ");
    pr_str_literal(p, attrs.items[i].key);
    pr_puts(p, ": ");
    pr_attr_value(p, &attrs.items[i].value);
  }
  pr_puts(p, "}");
}
