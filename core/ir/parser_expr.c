/*
 * TVMScript expressions: syntax tree -> typed TensorIR expressions.
 *
 * Typing follows TVM's script parser. Python literals stay "weak" (pval)
 * until context gives them a dtype: literal-only arithmetic folds as Python
 * does. In arithmetic a literal is what TVM's FFI makes of it (int32, int64
 * when it does not fit, float32) and the operands are then matched as TVM's
 * BinaryOpMatchTypes does (float wins over int, wider over narrower, a cast
 * of a constant is a constant), so `v * 2 + 0.5` is float32. In comparisons
 * a literal takes the other operand's dtype (TVM's _auto_broadcast). A value
 * stored into a buffer is cast to the buffer's dtype. Also here: names and
 * T.* calls; TVM builtins and buffer attributes are in parser_builtin.c,
 * buffer accesses, regions and annotations in parser_access.c.
 */
#include "parser_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ---- */

int ps_is_name(const anode *n, const char *s) {
  size_t k = strlen(s);
  return n && n->kind == AX_NAME && n->slen == k && memcmp(n->s, s, k) == 0;
}

static tsl_str node_str(pstate *ps, const anode *n) {
  return ps_intern(ps, n->s, n->slen);
}

static const char *dtname(tsl_dtype t, char *buf) { return tsl_dtype_str(t, buf); }


int ps_dotted(pstate *ps, const anode *n, char *buf, size_t cap) {
  const anode *parts[16];
  int np = 0;
  while (n && n->kind == AX_ATTR && np < 16) {
    parts[np++] = n;
    n = n->a;
  }
  if (!n || n->kind != AX_NAME || np >= 16)
    return 0;
  tsl_str root = node_str(ps, n);
  if (ps_lookup(ps, root))
    return 0;
  const char *prefix = NULL;
  int skip = 0;
  for (uint32_t i = 0; i < ps->n_tir_alias; i++)
    if (ps->tir_alias[i] == root)
      prefix = "T";
  for (uint32_t i = 0; !prefix && i < ps->n_ir_alias; i++)
    if (ps->ir_alias[i] == root)
      prefix = "I";
  if (!prefix && strcmp(root, "tvm") == 0) {
    if (np >= 1 && parts[np - 1]->slen == 6 && memcmp(parts[np - 1]->s, "script", 6) == 0) {
      const anode *p2 = np >= 2 ? parts[np - 2] : NULL;
      if (p2 && p2->slen == 3 && memcmp(p2->s, "tir", 3) == 0) {
        prefix = "T";
        skip = 2;
      } else if (p2 && p2->slen == 2 && memcmp(p2->s, "ir", 2) == 0) {
        prefix = "I";
        skip = 2;
      } else {
        prefix = "tvm.script";
        skip = 1;
      }
    } else if (np >= 1 && parts[np - 1]->slen == 3 &&
               memcmp(parts[np - 1]->s, "tir", 3) == 0) {
      prefix = "T";
      skip = 1;
    } else {
      prefix = "tvm";
    }
  }
  if (!prefix)
    return 0;
  size_t len = (size_t)snprintf(buf, cap, "%s", prefix);
  for (int k = np - 1 - skip; k >= 0 && len < cap; k--)
    len += (size_t)snprintf(buf + len, cap - len, ".%.*s", (int)parts[k]->slen,
                            parts[k]->s);
  return len < cap;
}

int ps_is_tcall(pstate *ps, const anode *n, const char *path) {
  char buf[256];
  return n && n->kind == AX_CALL && ps_dotted(ps, n->a, buf, sizeof buf) &&
         strcmp(buf, path) == 0;
}

/* ---- arguments ---- */

const anode *ps_arg(pstate *ps, const anode *call, uint32_t i, const char *kw) {
  const anode *kv = NULL;
  uint32_t kt = 0;
  if (kw) {
    size_t kl = strlen(kw);
    for (uint32_t k = 0; k < call->nkw; k++)
      if (call->kwlen[k] == kl && memcmp(call->kwname[k], kw, kl) == 0) {
        kv = call->kwval[k];
        kt = call->kwtok[k];
      }
  }
  if (i < call->n) {
    if (kv) {
      ps_note(ps, "pass '%s' either by position or by keyword, not both", kw);
      ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, kt), "argument '%s' given twice", kw);
    }
    return call->items[i];
  }
  return kv;
}

void ps_check_arity(pstate *ps, const anode *call, const char *fname, int lo,
                    int hi, const char *usage) {
  int n = (int)call->n;
  if (n >= lo && (hi < 0 || n <= hi))
    return;
  char want[64];
  if (hi == lo)
    snprintf(want, sizeof want, "%d", lo);
  else if (hi < 0)
    snprintf(want, sizeof want, "at least %d", lo);
  else
    snprintf(want, sizeof want, "%d to %d", lo, hi);
  ps_note(ps, "usage: %s", usage);
  ps_error_at(ps, TSL_EINVALID,
              n > hi && hi >= 0 && call->items ? ps_node_off(ps, call->items[hi])
                                               : ps_node_off(ps, call),
              "%s takes %s positional argument%s, got %d", fname, want,
              (lo == 1 && hi == 1) ? "" : "s", n);
}

void ps_check_kwargs(pstate *ps, const anode *call, const char *fname,
                     const char *const *allowed) {
  for (uint32_t k = 0; k < call->nkw; k++) {
    int ok = 0;
    for (int j = 0; allowed && allowed[j]; j++)
      if (strlen(allowed[j]) == call->kwlen[k] &&
          memcmp(allowed[j], call->kwname[k], call->kwlen[k]) == 0)
        ok = 1;
    if (ok)
      continue;
    char list[512] = "";
    for (int j = 0; allowed && allowed[j]; j++)
      ps_list_add(list, sizeof list, allowed[j]);
    if (list[0])
      ps_note(ps, "valid keywords for %s: %s", fname, list);
    else
      ps_note(ps, "%s takes no keyword arguments", fname);
    ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, call->kwtok[k]),
                "unknown keyword argument '%.*s' for %s", (int)call->kwlen[k],
                call->kwname[k], fname);
  }
}

/* ---- literals and dtypes ---- */

/* `e` converted to dtype t as TVM's cast() does: a constant becomes a
 * constant of t, a scalar meeting a vector dtype is cast and broadcast, a
 * broadcast is cast inside; anything else gets a Cast node. */
const tsl_expr *ps_cast_fold(pstate *ps, const tsl_expr *e, tsl_dtype t) {
  if (tsl_dtype_eq(e->dtype, t))
    return e;
  tsl_dtype s = tsl_dtype_scalar(t);
  if (t.lanes > 1 && e->dtype.lanes == 1)
    return tsl_expr_broadcast(ps->arena, ps_cast_fold(ps, e, s), t.lanes);
  if (t.lanes > 1 && e->kind == TSL_EXPR_BROADCAST && e->dtype.lanes == t.lanes)
    return tsl_expr_broadcast(ps->arena, ps_cast_fold(ps, e->args[0], s), t.lanes);
  if (t.lanes == 1 && e->dtype.lanes == 1 && !tsl_dtype_is_bool(t)) {
    /* only values the target holds fold (TVM refuses the others) */
    if (e->kind == TSL_EXPR_INT_IMM && !tsl_dtype_is_bool(e->dtype) &&
        (e->dtype.code != TSL_DT_UINT || e->u.int_value >= 0)) {
      if (tsl_dtype_is_int(t) && ps_int_fits(t, e->u.int_value))
        return tsl_expr_int(ps->arena, t, e->u.int_value);
      if (tsl_dtype_is_float(t))
        return tsl_expr_float(ps->arena, t, (double)e->u.int_value);
    }
    double v = e->kind == TSL_EXPR_FLOAT_IMM ? e->u.float_value : 0;
    double lim = t.bits == 64 ? DBL_MAX : t.code == TSL_DT_BFLOAT ? 3.38953138925153547590e+38
                 : t.bits == 32 ? (double)FLT_MAX : 65504.0;
    if (e->kind == TSL_EXPR_FLOAT_IMM && tsl_dtype_is_float(t) &&
        (isnan(v) || isinf(v) || fabs(v) <= lim))
      return tsl_expr_float(ps->arena, t, v);
  }
  return tsl_expr_cast(ps->arena, t, e);
}

static const tsl_expr *widen(pstate *ps, const tsl_expr *e, tsl_dtype t) {
  return ps_cast_fold(ps, e, t);
}

static pval weak_int(const anode *n, int64_t v) {
  pval p = {0};
  p.weak = PV_INT;
  p.i = v;
  p.node = n;
  return p;
}
static pval weak_float(const anode *n, double v) {
  pval p = {0};
  p.weak = PV_FLOAT;
  p.f = v;
  p.node = n;
  return p;
}
static pval weak_bool(const anode *n, int v) {
  pval p = {0};
  p.weak = PV_BOOL;
  p.i = v ? 1 : 0;
  p.node = n;
  return p;
}
static pval typed(const anode *n, const tsl_expr *e) {
  pval p = {0};
  p.e = e;
  p.node = n;
  return p;
}

int ps_int_fits(tsl_dtype t, int64_t v) {
  if (t.code == TSL_DT_UINT) {
    if (v < 0)
      return 0;
    return t.bits >= 64 || (uint64_t)v < ((uint64_t)1 << t.bits);
  }
  if (t.bits >= 64)
    return 1;
  int64_t lim = (int64_t)1 << (t.bits - 1);
  return v >= -lim && v < lim;
}

static void weak_text(pval v, char *buf, size_t cap) {
  if (v.weak == PV_FLOAT)
    snprintf(buf, cap, "%g", v.f);
  else if (v.weak == PV_BOOL)
    snprintf(buf, cap, "%s", v.i ? "True" : "False");
  else
    snprintf(buf, cap, "%lld", (long long)v.i);
}

/* A weak literal as a constant of dtype t. */
static const tsl_expr *lit_to(pstate *ps, pval v, tsl_dtype t, const char *what) {
  tsl_dtype s = tsl_dtype_scalar(t);
  char dn[32], lit[64];
  dtname(t, dn);
  weak_text(v, lit, sizeof lit);
  const tsl_expr *e = NULL;
  if (tsl_dtype_is_bool(s)) {
    if (v.weak != PV_BOOL)
      ps_fail(ps, v.node, "write True or False, or compare the value, e.g. x != 0",
           "%s must be a bool, found the number %s", what, lit);
    e = tsl_expr_bool(ps->arena, (int)v.i);
  } else if (tsl_dtype_is_int(s)) {
    if (v.weak == PV_FLOAT) {
      ps_note(ps, "write an integer, or convert explicitly with T.Cast(\"float32\", ...)");
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, v.node),
                  "dtype mismatch: float literal %s used as %s (%s)", lit, what, dn);
    }
    if (!ps_int_fits(s, v.i)) {
      ps_note(ps, "the value must fit in %s", dtname(s, dn));
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, v.node),
                  "integer literal %s does not fit in %s", lit, dn);
    }
    e = tsl_expr_int(ps->arena, s, v.i);
  } else if (tsl_dtype_is_float(s)) {
    if (v.weak == PV_BOOL)
      ps_fail(ps, v.node, "write a number, or convert with T.Cast",
           "%s must be %s, found a bool", what, dn);
    e = tsl_expr_float(ps->arena, s, v.weak == PV_FLOAT ? v.f : (double)v.i);
  } else {
    ps_fail(ps, v.node, "pass a variable of that type instead",
         "a literal cannot be used as %s (%s)", what, dn);
  }
  if (t.lanes > 1)
    e = tsl_expr_broadcast(ps->arena, e, t.lanes);
  return e;
}

const tsl_expr *ps_typed(pstate *ps, pval v) {
  switch (v.weak) {
  case PV_INT:
    return tsl_expr_int(ps->arena, ps_int_fits(TSL_INT32, v.i) ? TSL_INT32 : TSL_INT64, v.i);
  case PV_FLOAT:
    return tsl_expr_float(ps->arena, TSL_FLOAT32, v.f);
  case PV_BOOL:
    return tsl_expr_bool(ps->arena, (int)v.i);
  default:
    return v.e;
  }
}

/* The dtype TVM's FFI gives a bare Python literal. */
static tsl_dtype weak_dtype(pval v) {
  if (v.weak == PV_FLOAT)
    return TSL_FLOAT32;
  if (v.weak == PV_BOOL)
    return TSL_BOOL;
  return ps_int_fits(TSL_INT32, v.i) ? TSL_INT32 : TSL_INT64;
}

/* TVM's BinaryOpMatchTypes: the dtype both operands of an arithmetic
 * operator are cast to. A scalar meets a vector by broadcasting; then
 * float beats bfloat16 beats integers, and among integers the wider wins
 * (the unsigned one at equal width). 0 when no rule applies. */
int ps_match_dtypes(tsl_dtype a, tsl_dtype b, tsl_dtype *out) {
  if (a.lanes != b.lanes && a.lanes != 1 && b.lanes != 1)
    return 0;
  uint16_t lanes = a.lanes > b.lanes ? a.lanes : b.lanes;
  tsl_dtype x = tsl_dtype_scalar(a), y = tsl_dtype_scalar(b), r;
  int fx = x.code == TSL_DT_FLOAT, fy = y.code == TSL_DT_FLOAT;
  int bx = x.code == TSL_DT_BFLOAT, by = y.code == TSL_DT_BFLOAT;
  int ix = x.code == TSL_DT_INT || x.code == TSL_DT_UINT;
  int iy = y.code == TSL_DT_INT || y.code == TSL_DT_UINT;
  if (tsl_dtype_eq(x, y))
    r = x;
  else if (fx && fy)
    r = x.bits < y.bits ? y : x;
  else if (fx != fy)
    r = fx ? x : y;
  else if (bx != by)
    r = bx ? x : y;
  else if (ix && iy && x.code == y.code)
    r = x.bits < y.bits ? y : x;
  else if (ix && iy)
    r = x.bits != y.bits ? (x.bits < y.bits ? y : x) : (x.code == TSL_DT_UINT ? x : y);
  else
    return 0;
  if (r.code == TSL_DT_HANDLE)
    return 0;
  r.lanes = lanes;
  *out = r;
  return 1;
}

const tsl_expr *ps_coerce(pstate *ps, pval v, tsl_dtype t, const char *what) {
  if (v.weak)
    return lit_to(ps, v, t, what);
  const tsl_expr *e = v.e;
  tsl_dtype s = e->dtype;
  if (tsl_dtype_eq(s, t))
    return e;
  if (tsl_dtype_is_int(s) && tsl_dtype_is_int(t) && s.lanes == t.lanes &&
      s.bits < t.bits)
    return widen(ps, e, t);
  if (s.lanes == 1 && t.lanes > 1 && tsl_dtype_eq(s, tsl_dtype_scalar(t)))
    return tsl_expr_broadcast(ps->arena, e, t.lanes);
  char a[32], b[32];
  dtname(s, a);
  dtname(t, b);
  ps_note(ps, "convert it explicitly with T.Cast(\"%s\", ...)", b);
  ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, v.node),
              "dtype mismatch: %s is %s, expected %s", what, a, b);
}

const tsl_expr *ps_store_value(pstate *ps, pval v, tsl_dtype t, const char *what) {
  char a[32], b[32];
  if (v.weak) {
    /* TVM: the FFI's constant, then cast to the buffer's dtype; a float
     * literal with a fractional part is refused rather than truncated */
    if (v.weak == PV_BOOL && !tsl_dtype_is_bool(t))
      v = weak_int(v.node, v.i);
    if (v.weak == PV_FLOAT && tsl_dtype_is_int(tsl_dtype_scalar(t)) && v.f == floor(v.f) &&
        fabs(v.f) < 9.2e18)
      v = weak_int(v.node, (int64_t)v.f);
    return lit_to(ps, v, t, what);
  }
  const tsl_expr *e = v.e;
  tsl_dtype s = e->dtype;
  if (tsl_dtype_eq(s, t))
    return e;
  if ((s.lanes == t.lanes || s.lanes == 1) && s.code != TSL_DT_HANDLE &&
      t.code != TSL_DT_HANDLE && !tsl_dtype_is_void(s))
    return ps_cast_fold(ps, e, t);
  dtname(s, a);
  dtname(t, b);
  ps_note(ps, "the value must have %u lane%s", (unsigned)t.lanes, t.lanes == 1 ? "" : "s");
  ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, v.node),
              "dtype mismatch: %s is %s, expected %s", what, a, b);
}

const tsl_expr *ps_int_expr(pstate *ps, const anode *n, const char *what) {
  pval v = ps_expr(ps, n);
  if (v.weak == PV_INT)
    return ps_typed(ps, v);
  if (v.weak) {
    char lit[64];
    weak_text(v, lit, sizeof lit);
    ps_fail(ps, n, "write an integer expression", "%s must be an integer, found %s", what,
         lit);
  }
  if (!tsl_dtype_is_int(v.e->dtype) || v.e->dtype.lanes != 1) {
    char a[32];
    dtname(v.e->dtype, a);
    ps_fail(ps, n, "use an integer expression, or convert with T.Cast(\"int32\", ...)",
         "%s must be an integer expression, found %s", what, a);
  }
  return v.e;
}

const tsl_expr *ps_bool_expr(pstate *ps, const anode *n, const char *what) {
  pval v = ps_expr(ps, n);
  if (v.weak == PV_BOOL)
    return ps_typed(ps, v);
  if (!v.weak && tsl_dtype_is_bool(v.e->dtype))
    return v.e;
  char a[64];
  if (v.weak)
    weak_text(v, a, sizeof a);
  else
    dtname(v.e->dtype, a);
  ps_fail(ps, n, "compare the value to get a bool, e.g. x != 0",
       "%s must be a bool expression, found %s", what, a);
}

void ps_unify_ints(pstate *ps, const tsl_expr **a, const tsl_expr **b,
                   const anode *where) {
  tsl_dtype ta = (*a)->dtype, tb = (*b)->dtype;
  if (tsl_dtype_eq(ta, tb))
    return;
  if (tsl_dtype_is_int(ta) && tsl_dtype_is_int(tb) && ta.lanes == tb.lanes &&
      ta.bits != tb.bits) {
    if (ta.bits < tb.bits)
      *a = widen(ps, *a, tb);
    else
      *b = widen(ps, *b, ta);
    return;
  }
  char x[32], y[32];
  ps_note(ps, "convert one side with T.Cast(\"%s\", ...)", dtname(tb, y));
  ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, where), "dtype mismatch: %s vs %s",
              dtname(ta, x), y);
}

tsl_dtype ps_dtype_arg(pstate *ps, const anode *n) {
  if (!n || n->kind != AX_STR) {
    /* T.float32 written without quotes is accepted too */
    char buf[128];
    if (n && ps_dotted(ps, n, buf, sizeof buf) && strncmp(buf, "T.", 2) == 0) {
      tsl_dtype t;
      if (tsl_dtype_parse(buf + 2, strlen(buf + 2), &t))
        return t;
    }
    ps_fail(ps, n, "write the dtype as a string, e.g. \"float32\"",
         "expected a dtype string");
  }
  tsl_dtype t;
  if (!tsl_dtype_parse(n->s, n->slen, &t) || tsl_dtype_is_void(t)) {
    ps_note(ps, "valid dtypes: %s", tsl_dtype_valid_names());
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n), "unknown dtype '%.*s'",
                (int)(n->slen > 64 ? 64 : n->slen), n->s);
  }
  return t;
}

tsl_dtype ps_dtype_or_void(pstate *ps, const anode *n) {
  tsl_dtype t;
  if (n && n->kind == AX_STR && tsl_dtype_parse(n->s, n->slen, &t))
    return t;
  return ps_dtype_arg(ps, n);
}

tsl_str ps_str_arg(pstate *ps, const anode *n, const char *what) {
  if (!n || n->kind != AX_STR)
    ps_fail(ps, n, "write it as a string in quotes", "%s must be a string", what);
  return ps_intern(ps, n->s, n->slen);
}

int64_t ps_int_literal(pstate *ps, const anode *n, const char *what) {
  pval v = ps_expr(ps, n);
  int64_t x;
  if (v.weak == PV_INT)
    return v.i;
  if (!v.weak && tsl_expr_is_const_int(v.e, &x))
    return x;
  ps_fail(ps, n, "write a plain integer such as 4", "%s must be an integer constant", what);
}

/* ---- structural helpers ---- */

int ps_expr_same(const tsl_expr *a, const tsl_expr *b) {
  if (a == b)
    return 1;
  if (!a || !b || a->kind != b->kind || !tsl_dtype_eq(a->dtype, b->dtype) ||
      a->n_args != b->n_args)
    return 0;
  switch (a->kind) {
  case TSL_EXPR_INT_IMM:
    return a->u.int_value == b->u.int_value;
  case TSL_EXPR_FLOAT_IMM:
    return a->u.float_value == b->u.float_value;
  case TSL_EXPR_STR_IMM:
  case TSL_EXPR_CALL_EXTERN:
    if (a->u.str_value != b->u.str_value)
      return 0;
    break;
  case TSL_EXPR_VAR:
    return a->u.var == b->u.var;
  case TSL_EXPR_LOAD:
    if (a->u.buffer != b->u.buffer)
      return 0;
    break;
  case TSL_EXPR_BUFFER_DATA:
    return a->u.buffer == b->u.buffer;
  case TSL_EXPR_CALL:
  case TSL_EXPR_BUILTIN:
    if (a->intrin != b->intrin)
      return 0;
    break;
  default:
    break;
  }
  for (uint32_t i = 0; i < a->n_args; i++)
    if (!ps_expr_same(a->args[i], b->args[i]))
      return 0;
  return 1;
}

const tsl_expr *ps_extent(pstate *ps, const tsl_expr *lo, const tsl_expr *hi) {
  int64_t a, b;
  int64_t d;
  if (tsl_expr_is_const_int(lo, &a) && tsl_expr_is_const_int(hi, &b) &&
      !__builtin_sub_overflow(b, a, &d)) {
    tsl_dtype t = lo->dtype.bits >= hi->dtype.bits ? lo->dtype : hi->dtype;
    return tsl_expr_int(ps->arena, t, d);
  }
  if (!tsl_dtype_eq(lo->dtype, hi->dtype))
    ps_unify_ints(ps, &lo, &hi, NULL);
  if (ps_expr_same(lo, hi))
    return tsl_expr_int(ps->arena, lo->dtype, 0);
  if (hi->kind == TSL_EXPR_ADD) {
    if (ps_expr_same(hi->args[0], lo) && tsl_expr_is_const_int(hi->args[1], &b))
      return tsl_expr_int(ps->arena, hi->dtype, b);
    if (ps_expr_same(hi->args[1], lo) && tsl_expr_is_const_int(hi->args[0], &b))
      return tsl_expr_int(ps->arena, hi->dtype, b);
  }
  if (!ps->an)
    ps->an = tsl_analyzer_new(ps->ctx);
  const tsl_expr *diff = tsl_expr_binary(ps->arena, TSL_EXPR_SUB, hi, lo);
  return ps->an ? tsl_simplify(ps->an, ps->arena, diff) : diff;
}

/* ---- binary operators ---- */

typedef enum {
  S_ADD, S_SUB, S_MUL, S_TRUEDIV, S_FLOORDIV, S_FLOORMOD, S_TRUNCDIV,
  S_TRUNCMOD, S_MIN, S_MAX, S_POW, S_EQ, S_NE, S_LT, S_LE, S_GT, S_GE,
  S_AND, S_OR
} sop;

static const char *const sop_text[] = {
    "+",          "-",          "*",         "/",      "//",    "%",
    "T.truncdiv", "T.truncmod", "T.min",     "T.max",  "**",    "==",
    "!=",         "<",          "<=",        ">",      ">=",    "and",
    "or"};

static const tsl_expr_kind sop_kind[] = {
    TSL_EXPR_ADD,      TSL_EXPR_SUB, TSL_EXPR_MUL, TSL_EXPR_DIV, TSL_EXPR_FLOORDIV,
    TSL_EXPR_FLOORMOD, TSL_EXPR_DIV, TSL_EXPR_MOD, TSL_EXPR_MIN, TSL_EXPR_MAX,
    TSL_EXPR_ADD /* pow: call */, TSL_EXPR_EQ, TSL_EXPR_NE, TSL_EXPR_LT,
    TSL_EXPR_LE, TSL_EXPR_GT, TSL_EXPR_GE, TSL_EXPR_AND, TSL_EXPR_OR};

static int is_cmp(sop op) { return op >= S_EQ && op <= S_GE; }

static int64_t ipow(pstate *ps, const anode *where, int64_t b, int64_t e) {
  int64_t r = 1;
  while (e > 0) {
    if (__builtin_mul_overflow(r, b, &r))
      ps_fail(ps, where, "use smaller constants", "integer overflow in constant expression");
    e--;
  }
  return r;
}

static pval fold(pstate *ps, sop op, pval a, pval b, const anode *where) {
  if (op == S_AND || op == S_OR) {
    int x = a.weak == PV_FLOAT ? a.f != 0 : a.i != 0;
    int y = b.weak == PV_FLOAT ? b.f != 0 : b.i != 0;
    return weak_bool(where, op == S_AND ? (x && y) : (x || y));
  }
  if (a.weak == PV_FLOAT || b.weak == PV_FLOAT ||
      ((op == S_TRUEDIV || (op == S_POW && b.i < 0)) && a.weak != PV_FLOAT)) {
    double x = a.weak == PV_FLOAT ? a.f : (double)a.i;
    double y = b.weak == PV_FLOAT ? b.f : (double)b.i;
    double r = 0;
    if ((op == S_TRUEDIV || op == S_FLOORDIV || op == S_FLOORMOD || op == S_TRUNCDIV ||
         op == S_TRUNCMOD) && y == 0)
      ps_fail(ps, where, "divide by a nonzero value", "division by zero in constant expression");
    switch (op) {
    case S_ADD: r = x + y; break;
    case S_SUB: r = x - y; break;
    case S_MUL: r = x * y; break;
    case S_TRUEDIV: r = x / y; break;
    case S_FLOORDIV: r = floor(x / y); break;
    case S_FLOORMOD: r = x - floor(x / y) * y; break;
    case S_TRUNCDIV: r = trunc(x / y); break;
    case S_TRUNCMOD: r = fmod(x, y); break;
    case S_MIN: r = x < y ? x : y; break;
    case S_MAX: r = x > y ? x : y; break;
    case S_POW: r = pow(x, y); break;
    case S_EQ: return weak_bool(where, x == y);
    case S_NE: return weak_bool(where, x != y);
    case S_LT: return weak_bool(where, x < y);
    case S_LE: return weak_bool(where, x <= y);
    case S_GT: return weak_bool(where, x > y);
    case S_GE: return weak_bool(where, x >= y);
    default: break;
    }
    return weak_float(where, r);
  }
  int64_t x = a.i, y = b.i, r = 0;
  int ovf = 0;
  if ((op == S_FLOORDIV || op == S_FLOORMOD || op == S_TRUNCDIV || op == S_TRUNCMOD) &&
      y == 0)
    ps_fail(ps, where, "divide by a nonzero value", "division by zero in constant expression");
  if ((op == S_FLOORDIV || op == S_TRUNCDIV) && x == INT64_MIN && y == -1)
    ovf = 1;
  switch (op) {
  case S_ADD: ovf = __builtin_add_overflow(x, y, &r); break;
  case S_SUB: ovf = __builtin_sub_overflow(x, y, &r); break;
  case S_MUL: ovf = __builtin_mul_overflow(x, y, &r); break;
  case S_FLOORDIV:
    if (!ovf) {
      r = x / y;
      if ((x % y != 0) && ((x < 0) != (y < 0)))
        r--;
    }
    break;
  case S_FLOORMOD:
    if (y == -1)
      r = 0;
    else {
      r = x % y;
      if (r != 0 && ((r < 0) != (y < 0)))
        r += y;
    }
    break;
  case S_TRUNCDIV:
    if (!ovf)
      r = x / y;
    break;
  case S_TRUNCMOD: r = y == -1 ? 0 : x % y; break;
  case S_MIN: r = x < y ? x : y; break;
  case S_MAX: r = x > y ? x : y; break;
  case S_POW: r = ipow(ps, where, x, y); break;
  case S_EQ: return weak_bool(where, x == y);
  case S_NE: return weak_bool(where, x != y);
  case S_LT: return weak_bool(where, x < y);
  case S_LE: return weak_bool(where, x <= y);
  case S_GT: return weak_bool(where, x > y);
  case S_GE: return weak_bool(where, x >= y);
  default: break;
  }
  if (ovf)
    ps_fail(ps, where, "use smaller constants", "integer overflow in constant expression");
  return weak_int(where, r);
}

/* Comparison operands (TVM's _auto_broadcast): a literal takes the other
 * operand's dtype; typed operands must agree, except that integers of
 * different widths are widened and a scalar meets a vector by broadcast. */
static void unify_cmp(pstate *ps, pval *a, pval *b, const anode *where, const char *op) {
  char x[32], y[32], lit[64];
  if (a->weak || b->weak) {
    pval *w = a->weak ? a : b, *t = a->weak ? b : a;
    tsl_dtype td = t->e->dtype;
    if (w->weak == PV_FLOAT && tsl_dtype_is_int(td)) {
      weak_text(*w, lit, sizeof lit);
      ps_note(ps, "convert the integer side with T.Cast(\"float32\", ...)");
      ps_error_at(ps, TSL_EINVALID, ps_node_opoff(ps, where),
                  "dtype mismatch in '%s': float literal %s with an %s operand", op, lit,
                  dtname(td, x));
    }
    char what[64];
    snprintf(what, sizeof what, "operand of '%s'", op);
    w->e = lit_to(ps, *w, td, what);
    w->weak = PV_TYPED;
    return;
  }
  tsl_dtype ta = a->e->dtype, tb = b->e->dtype;
  if (tsl_dtype_eq(ta, tb))
    return;
  tsl_dtype sa = tsl_dtype_scalar(ta), sb = tsl_dtype_scalar(tb);
  if (tsl_dtype_is_int(sa) && tsl_dtype_is_int(sb) && sa.bits != sb.bits &&
      (ta.lanes == tb.lanes)) {
    if (sa.bits < sb.bits)
      a->e = widen(ps, a->e, tb);
    else
      b->e = widen(ps, b->e, ta);
    return;
  }
  if (tsl_dtype_eq(sa, sb) && (ta.lanes == 1 || tb.lanes == 1)) {
    if (ta.lanes == 1)
      a->e = tsl_expr_broadcast(ps->arena, a->e, tb.lanes);
    else
      b->e = tsl_expr_broadcast(ps->arena, b->e, ta.lanes);
    return;
  }
  dtname(ta, x);
  dtname(tb, y);
  ps_note(ps, "convert one operand explicitly, e.g. T.Cast(\"%s\", ...)",
          (tsl_dtype_is_float(sa) && !(tsl_dtype_is_float(sb) && sb.bits > sa.bits)) ? x : y);
  ps_error_at(ps, TSL_EINVALID, ps_node_opoff(ps, where), "dtype mismatch: %s %s %s", x,
              op, y);
}

/* Operands of arithmetic, T.Select / T.if_then_else branches and two-operand
 * math functions: literals get the FFI's dtype, then both operands are cast
 * to the dtype ps_match_dtypes picks (constants stay constants). */
static void unify(pstate *ps, pval *a, pval *b, const anode *where, const char *op) {
  tsl_dtype ta = a->weak ? weak_dtype(*a) : a->e->dtype;
  tsl_dtype tb = b->weak ? weak_dtype(*b) : b->e->dtype;
  tsl_dtype t;
  if (!ps_match_dtypes(ta, tb, &t)) {
    char x[32], y[32];
    dtname(ta, x);
    dtname(tb, y);
    ps_note(ps, "convert one operand explicitly, e.g. T.Cast(\"%s\", ...)", y);
    ps_error_at(ps, TSL_EINVALID, ps_node_opoff(ps, where), "dtype mismatch: %s %s %s", x,
                op, y);
  }
  char what[64];
  snprintf(what, sizeof what, "operand of '%s'", op);
  pval *ops[2] = {a, b};
  for (int k = 0; k < 2; k++) {
    pval *v = ops[k];
    if (v->weak) {
      /* a literal meeting a wider type: the constant of that type (a bool
       * counts as the integer 0 or 1, as TVM's cast of a bool does) */
      pval w = *v;
      if (w.weak == PV_BOOL && !tsl_dtype_is_bool(t))
        w.weak = PV_INT;
      v->e = lit_to(ps, w, t, what);
      v->weak = PV_TYPED;
    } else {
      v->e = ps_cast_fold(ps, v->e, t);
    }
  }
}

/* Arithmetic needs numbers: bool and handle operands are refused before
 * any promotion would turn them into integers. */
static void check_arith_operand(pstate *ps, pval v, const anode *where, const char *op) {
  tsl_dtype s = v.weak ? weak_dtype(v) : tsl_dtype_scalar(v.e->dtype);
  if (!tsl_dtype_is_bool(s) && s.code != TSL_DT_HANDLE)
    return;
  char dn[32];
  dtname(s, dn);
  ps_fail(ps, where,
          "use 'and' / 'or' / 'not' for bools, or convert with T.Cast(\"int32\", ...)",
          "arithmetic '%s' on %s values", op, dn);
}

static pval binop(pstate *ps, sop op, pval a, pval b, const anode *where) {
  if (a.weak && b.weak)
    return fold(ps, op, a, b, where);
  const char *opt = sop_text[op];
  if (op == S_AND || op == S_OR || is_cmp(op)) {
    unify_cmp(ps, &a, &b, where, opt);
  } else {
    check_arith_operand(ps, a, where, opt);
    check_arith_operand(ps, b, where, opt);
    unify(ps, &a, &b, where, opt);
  }
  tsl_dtype t = a.e->dtype, s = tsl_dtype_scalar(t);
  char dn[32];
  dtname(t, dn);
  if (op == S_AND || op == S_OR) {
    if (!tsl_dtype_is_bool(s))
      ps_fail(ps, where, "compare the values first, e.g. x != 0",
           "'%s' needs bool operands, found %s", opt, dn);
  } else if (!is_cmp(op)) {
    if ((op == S_TRUNCDIV || op == S_TRUNCMOD) && !tsl_dtype_is_int(s))
      ps_fail(ps, where, "use '/' or T.fmod for floats", "%s needs integer operands, found %s",
           opt, dn);
    if (op == S_POW) {
      if (!tsl_dtype_is_float(s))
        ps_fail(ps, where, "multiply it out, or convert with T.Cast(\"float32\", ...)",
             "'**' needs float operands, found %s", dn);
      const tsl_expr *args[2] = {a.e, b.e};
      return typed(where, tsl_expr_call(ps->arena, TSL_INTRIN_POW, t, 2, args));
    }
  } else if (s.code == TSL_DT_HANDLE) {
    ps_fail(ps, where, "compare numbers", "cannot compare handle values");
  }
  return typed(where, tsl_expr_binary(ps->arena, sop_kind[op], a.e, b.e));
}

/* ---- integer arithmetic folded as TVM's operators fold it ---- */

/* A 64-bit result reduced to the bits of t (TVM's GetFoldResultInt64Repr). */
static int64_t wrap_to(tsl_dtype t, int64_t v) {
  if (t.bits >= 64)
    return v;
  uint64_t m = (UINT64_C(1) << t.bits) - 1, u = (uint64_t)v & m;
  if (t.code == TSL_DT_INT && (u >> (t.bits - 1)))
    u |= ~m;
  return (int64_t)u;
}

const tsl_expr *ps_int_arith(pstate *ps, tsl_expr_kind kind, const tsl_expr *a,
                             const tsl_expr *b, const anode *where) {
  tsl_dtype t;
  if (!tsl_dtype_eq(a->dtype, b->dtype) && ps_match_dtypes(a->dtype, b->dtype, &t)) {
    a = ps_cast_fold(ps, a, t);
    b = ps_cast_fold(ps, b, t);
  }
  t = a->dtype;
  int64_t x = 0, y = 0;
  int ca = tsl_expr_is_const_int(a, &x), cb = tsl_expr_is_const_int(b, &y);
  if ((kind == TSL_EXPR_DIV || kind == TSL_EXPR_FLOORDIV) && cb && y == 0)
    ps_fail(ps, where, "divide by a nonzero value", "division by zero in constant expression");
  if (ca && cb) {
    uint64_t r = 0;
    switch (kind) {
    case TSL_EXPR_ADD: r = (uint64_t)x + (uint64_t)y; break;
    case TSL_EXPR_SUB: r = (uint64_t)x - (uint64_t)y; break;
    case TSL_EXPR_MUL: r = (uint64_t)x * (uint64_t)y; break;
    case TSL_EXPR_DIV:
      r = (x == INT64_MIN && y == -1) ? (uint64_t)x : (uint64_t)(x / y);
      break;
    default: { /* FLOORDIV */
      int64_t q = (x == INT64_MIN && y == -1) ? x : x / y;
      if (!(x == INT64_MIN && y == -1) && x % y != 0 && ((x < 0) != (y < 0)))
        q--;
      r = (uint64_t)q;
      break;
    }
    }
    return tsl_expr_int(ps->arena, t, wrap_to(t, (int64_t)r));
  }
  switch (kind) {
  case TSL_EXPR_ADD:
    if (ca && x == 0)
      return b;
    if (cb && y == 0)
      return a;
    break;
  case TSL_EXPR_SUB:
    if (cb && y == 0)
      return a;
    break;
  case TSL_EXPR_MUL:
    if (ca)
      return x == 1 ? b : x == 0 ? a : tsl_expr_binary(ps->arena, kind, a, b);
    if (cb)
      return y == 1 ? a : y == 0 ? b : tsl_expr_binary(ps->arena, kind, a, b);
    break;
  default: /* DIV, FLOORDIV */
    if (ca && x == 0)
      return a;
    if (cb && y == 1)
      return a;
    break;
  }
  return tsl_expr_binary(ps->arena, kind, a, b);
}

/* ---- names ---- */

static PS_NOINLINE void suggest_names(pstate *ps, const char *name, int kind, char *note,
                          size_t cap, const char *what) {
  char list[1024];
  ps_scope_names(ps, kind, list, sizeof list);
  const char *best = NULL;
  int bestd = 3;
  size_t nl = strlen(name);
  for (uint32_t i = 0; i < ps->nsyms; i++) {
    const psym *s = &ps->syms[i];
    if (s->kind == SYM_MARK || (kind >= 0 ? s->kind != kind : s->kind == SYM_BUFFER))
      continue;
    int d = ps_edit_distance(name, nl, s->name, strlen(s->name));
    if (d < bestd && d < (int)nl) {
      bestd = d;
      best = s->name;
    }
  }
  if (best && list[0])
    snprintf(note, cap, "did you mean '%s'? %s in scope here: %s", best, what, list);
  else if (list[0])
    snprintf(note, cap, "%s in scope here: %s", what, list);
  else
    snprintf(note, cap, "no %s are in scope here", what);
}

static PS_NOINLINE pval name_expr(pstate *ps, const anode *n) {
  tsl_str name = node_str(ps, n);
  psym *s = ps_lookup(ps, name);
  if (s) {
    if (s->kind == SYM_BUFFER) {
      ps_note(ps, "index the buffer to read an element, as in %s[%s]", name,
              s->buf->ndim == 0 ? "()" : s->buf->ndim == 1 ? "i" : "i, j");
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n),
                  "buffer '%s' cannot be used as a value", name);
    }
    if (s->var_kind == VAR_SIZE && !ps->in_bufmap && ps->func &&
        !ps->func->sizes[s->size_index].used) {
      ps->func->sizes[s->size_index].used = 1;
      ps->func->sizes[s->size_index].use_tok = n->tok;
    }
    return typed(n, s->var->ref);
  }
  const pdead *d = ps_lookup_dead(ps, name);
  if (d) {
    ps_note(ps, "block variables exist only inside their block; outside it, use the "
                "loop variables or bind a new block variable");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n),
                "block variable '%s' is used outside its block '%s'", name, d->block);
  }
  char *note = ps_alloc(ps, 1200);
  suggest_names(ps, name, -1, note, 1200, "names");
  ps_note(ps, "%s", note);
  ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n), "unknown name '%s'", name);
}

PS_NOINLINE const tsl_buffer *ps_buffer_ref(pstate *ps, const anode *n) {
  if (!n || n->kind != AX_NAME)
    ps_fail(ps, n, "name a buffer, as in A[i, j]", "expected a buffer");
  tsl_str name = node_str(ps, n);
  psym *s = ps_lookup(ps, name);
  if (s && s->kind == SYM_BUFFER)
    return s->buf;
  char *note = ps_alloc(ps, 1200);
  suggest_names(ps, name, SYM_BUFFER, note, 1200, "buffers");
  ps_note(ps, "%s", note);
  if (s)
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n), "'%s' is not a buffer", name);
  ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n), "unknown buffer '%s'", name);
}

/* ---- T.* calls ---- */

static const char *const known_t[] = {
    "Buffer", "Broadcast", "Cast", "LetStmt", "Ramp", "Select", "alloc_buffer",
    "axis.R", "axis.S", "axis.opaque", "axis.reduce", "axis.remap", "axis.scan",
    "axis.spatial", "block", "block_attr", "bool", "call_extern", "evaluate",
    "float16", "float32", "float64", "bfloat16", "floordiv", "floormod",
    "func_attr", "grid", "handle", "if_then_else", "infinity", "init", "int16",
    "int32", "int64", "int8", "match_buffer", "max", "max_value", "min",
    "min_value", "parallel", "prim_func", "reads", "serial", "thread_binding",
    "truncdiv", "truncmod", "uint16", "uint32", "uint64", "uint8", "unroll",
    "vectorized", "where", "writes", "And", "Or", "Not", "Add", "Sub", "Mul",
    "Div", "EQ", "NE", "LT", "LE", "GT", "GE", "cast", "ceildiv", NULL};

static PS_NOINLINE void suggest_t(const char *fname, char *note, size_t cap) {
  char close[512] = "";
  size_t fl = strlen(fname);
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; known_t[i]; i++) {
      const char *k = known_t[i];
      int d = ps_edit_distance(fname, fl, k, strlen(k));
      if ((pass == 0 && d <= 2 && d < (int)fl)) {
        char b[64];
        snprintf(b, sizeof b, "T.%s", k);
        ps_list_add(close, sizeof close, b);
      }
    }
    if (pass == 0)
      for (int i = 0; i < TSL_INTRIN_COUNT + TSL_BUILTIN_COUNT; i++) {
        const char *k = i < TSL_INTRIN_COUNT
                            ? tsl_intrin_name((tsl_intrin)i)
                            : tsl_builtin_info_of((tsl_builtin)(i - TSL_INTRIN_COUNT))->name;
        if (ps_edit_distance(fname, fl, k, strlen(k)) <= 2) {
          char b[64];
          snprintf(b, sizeof b, "T.%s", k);
          ps_list_add(close, sizeof close, b);
        }
      }
  }
  if (close[0]) {
    snprintf(note, cap, "did you mean %s?", close);
    return;
  }
  char all[1024] = "";
  for (int i = 0; i < TSL_INTRIN_COUNT; i++) {
    char b[64];
    snprintf(b, sizeof b, "T.%s", tsl_intrin_name((tsl_intrin)i));
    ps_list_add(all, sizeof all, b);
  }
  snprintf(note, cap,
           "expression functions are T.max, T.min, T.floordiv, T.floormod, T.truncdiv, "
           "T.truncmod, T.ceildiv, T.Cast, T.Select, T.if_then_else, T.call_extern, T.Ramp, "
           "T.Broadcast, T.min_value, T.max_value, dtype constructors such as T.float32(x), "
           "the math functions %s, and TVM builtins such as T.tvm_access_ptr",
           all);
}

static pval arg(pstate *ps, const anode *call, uint32_t i) {
  return ps_expr(ps, call->items[i]);
}

static const char *const no_kw[] = {NULL};

/* T.float32(x), T.int64(5), T.bool(True), T.float32("inf") */
static pval dtype_ctor(pstate *ps, const anode *call, const char *fname, tsl_dtype t) {
  static const char *const kws[] = {"is_size_var", NULL};
  ps_check_kwargs(ps, call, fname, kws);
  if (call->n == 0) {
    ps_note(ps, "declare a size variable on its own line: n = %s()", fname);
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, call),
                "%s() declares a variable and must be assigned to a name", fname);
  }
  char usage[320];
  snprintf(usage, sizeof usage, "%s(value)", fname);
  ps_check_arity(ps, call, fname, 1, 1, usage);
  const anode *a = call->items[0];
  if (a->kind == AX_STR) {
    double v;
    if (a->slen == 3 && memcmp(a->s, "inf", 3) == 0)
      v = INFINITY;
    else if (a->slen == 4 && memcmp(a->s, "-inf", 4) == 0)
      v = -INFINITY;
    else if (a->slen == 3 && memcmp(a->s, "nan", 3) == 0)
      v = NAN;
    else
      ps_fail(ps, a, "the strings accepted are \"inf\", \"-inf\" and \"nan\"",
           "invalid float constant \"%.*s\"", (int)(a->slen > 32 ? 32 : a->slen), a->s);
    if (!tsl_dtype_is_float(t))
      ps_fail(ps, a, "use a float dtype such as T.float32(\"inf\")",
           "%s cannot hold \"%.*s\"", fname, (int)a->slen, a->s);
    const tsl_expr *e = tsl_expr_float(ps->arena, tsl_dtype_scalar(t), v);
    if (t.lanes > 1)
      e = tsl_expr_broadcast(ps->arena, e, t.lanes);
    return typed(call, e);
  }
  if (a->kind == AX_INT && a->bad_int == 1 && t.code == TSL_DT_UINT && t.bits == 64) {
    const tsl_expr *e = tsl_expr_int(ps->arena, tsl_dtype_scalar(t), a->ival);
    return typed(call, t.lanes > 1 ? tsl_expr_broadcast(ps->arena, e, t.lanes) : e);
  }
  pval v = ps_expr(ps, a);
  if (v.weak) {
    if (tsl_dtype_is_int(t) && v.weak == PV_FLOAT) {
      if (v.f != floor(v.f) || !(fabs(v.f) < 9.2e18))
        ps_fail(ps, a, "write an integer value", "%s needs an integer value", fname);
      v = weak_int(a, (int64_t)v.f);
    }
    if (tsl_dtype_is_bool(t) && v.weak == PV_INT && (v.i == 0 || v.i == 1))
      v = weak_bool(a, (int)v.i);
    if (tsl_dtype_is_float(t) && v.weak == PV_BOOL)
      v = weak_int(a, v.i);
    char what[320];
    snprintf(what, sizeof what, "the argument of %s", fname);
    return typed(call, lit_to(ps, v, t, what));
  }
  const tsl_expr *e = v.e;
  if (tsl_dtype_eq(e->dtype, t))
    return typed(call, e);
  if (e->dtype.lanes == 1 && t.lanes == 1) {
    if (e->kind == TSL_EXPR_INT_IMM) {
      if (tsl_dtype_is_float(t))
        return typed(call, tsl_expr_float(ps->arena, t, (double)e->u.int_value));
      if (tsl_dtype_is_bool(t))
        return typed(call, tsl_expr_bool(ps->arena, e->u.int_value != 0));
      if (tsl_dtype_is_int(t) && ps_int_fits(t, e->u.int_value))
        return typed(call, tsl_expr_int(ps->arena, t, e->u.int_value));
    }
    if (e->kind == TSL_EXPR_FLOAT_IMM && tsl_dtype_is_float(t))
      return typed(call, tsl_expr_float(ps->arena, t, e->u.float_value));
  }
  return typed(call, tsl_expr_cast(ps->arena, t, e));
}

static pval min_max_value(pstate *ps, const anode *call, const char *fname, int which) {
  ps_check_kwargs(ps, call, fname, no_kw);
  char usage[320];
  snprintf(usage, sizeof usage, "%s(\"float32\")", fname);
  ps_check_arity(ps, call, fname, 1, 1, usage);
  tsl_dtype t = ps_dtype_arg(ps, call->items[0]);
  tsl_dtype s = tsl_dtype_scalar(t);
  const tsl_expr *e = NULL;
  if (which == 2) { /* infinity */
    if (!tsl_dtype_is_float(s))
      ps_fail(ps, call->items[0], "use a float dtype", "T.infinity needs a float dtype");
    e = tsl_expr_float(ps->arena, s, INFINITY);
  } else if (tsl_dtype_is_float(s)) {
    double m = s.bits == 16 && s.code == TSL_DT_FLOAT ? 65504.0
               : s.code == TSL_DT_BFLOAT              ? 3.38953138925153547590e+38
               : s.bits == 32                         ? (double)FLT_MAX
                                                      : DBL_MAX;
    e = tsl_expr_float(ps->arena, s, which ? m : -m);
  } else if (tsl_dtype_is_bool(s)) {
    e = tsl_expr_bool(ps->arena, which);
  } else if (tsl_dtype_is_int(s)) {
    int64_t v;
    if (s.code == TSL_DT_UINT)
      v = which ? (s.bits >= 64 ? INT64_MAX : (int64_t)(((uint64_t)1 << s.bits) - 1)) : 0;
    else
      v = which ? (s.bits >= 64 ? INT64_MAX : ((int64_t)1 << (s.bits - 1)) - 1)
                : (s.bits >= 64 ? INT64_MIN : -((int64_t)1 << (s.bits - 1)));
    e = tsl_expr_int(ps->arena, s, v);
  } else {
    ps_fail(ps, call->items[0], "use a numeric dtype", "%s needs a numeric dtype", fname);
  }
  if (t.lanes > 1)
    e = tsl_expr_broadcast(ps->arena, e, t.lanes);
  return typed(call, e);
}

static pval intrinsic(pstate *ps, const anode *call, const char *fname, tsl_intrin op) {
  ps_ignored_dtype(ps, call, fname);
  int ar = tsl_intrin_arity(op);
  char usage[320];
  snprintf(usage, sizeof usage, "%s(%s)", fname, ar == 1 ? "x" : "x, y");
  ps_check_arity(ps, call, fname, ar, ar, usage);
  pval a = arg(ps, call, 0);
  pval b = ar > 1 ? arg(ps, call, 1) : a;
  if (a.weak && (ar == 1 || b.weak)) {
    /* literal arguments: float32 (ints too, except for abs) */
    tsl_dtype ft = TSL_FLOAT32;
    if (op == TSL_INTRIN_ABS && a.weak == PV_INT)
      a = typed(a.node, ps_typed(ps, a));
    else
      a = typed(a.node, lit_to(ps, a.weak == PV_BOOL ? weak_int(a.node, a.i) : a, ft,
                               "argument"));
  }
  if (ar > 1)
    unify(ps, &a, &b, call, fname);
  tsl_dtype t = a.e->dtype, s = tsl_dtype_scalar(t);
  char dn[32];
  if (!(tsl_dtype_is_float(s) || (op == TSL_INTRIN_ABS && tsl_dtype_is_int(s))))
    ps_fail(ps, call->items[0], "convert the argument with T.Cast(\"float32\", ...)",
         "%s needs a float argument, found %s", fname, dtname(t, dn));
  const tsl_expr *args[2] = {a.e, b.e};
  tsl_dtype rt = t;
  if (op == TSL_INTRIN_ISNAN) {
    rt = TSL_BOOL;
    rt.lanes = t.lanes;
  }
  return typed(call, tsl_expr_call(ps->arena, op, rt, (uint32_t)ar, args));
}

static pval select_expr(pstate *ps, const anode *call, const char *fname, int ite) {
  if (ite)
    ps_ignored_dtype(ps, call, fname);
  else
    ps_check_kwargs(ps, call, fname, no_kw);
  char usage[320];
  snprintf(usage, sizeof usage, "%s(cond, a, b)", fname);
  ps_check_arity(ps, call, fname, 3, 3, usage);
  const tsl_expr *c = ps_bool_expr(ps, call->items[0], "the condition");
  pval a = arg(ps, call, 1), b = arg(ps, call, 2);
  unify(ps, &a, &b, call, fname);
  if (c->dtype.lanes == 1 && a.e->dtype.lanes > 1)
    c = tsl_expr_broadcast(ps->arena, c, a.e->dtype.lanes);
  return typed(call, ite ? tsl_expr_if_then_else(ps->arena, c, a.e, b.e)
                         : tsl_expr_select(ps->arena, c, a.e, b.e));
}

/* T.ceildiv(a, b): TVM builds floordiv(a + b - 1, b), folding constants. */
static pval ceildiv(pstate *ps, const anode *call, const char *fname) {
  ps_check_kwargs(ps, call, fname, no_kw);
  ps_check_arity(ps, call, fname, 2, 2, "T.ceildiv(a, b)");
  const tsl_expr *a = ps_int_expr(ps, call->items[0], "the dividend of T.ceildiv");
  const tsl_expr *b = ps_int_expr(ps, call->items[1], "the divisor of T.ceildiv");
  const tsl_expr *s = ps_int_arith(ps, TSL_EXPR_ADD, a, b, call);
  s = ps_int_arith(ps, TSL_EXPR_SUB, s, tsl_expr_int(ps->arena, s->dtype, 1), call);
  return typed(call, ps_int_arith(ps, TSL_EXPR_FLOORDIV, s, b, call->items[1]));
}

/* T.call_extern(dtype, "name", args...): a `dtype=` keyword takes the
 * place of the first positional argument, as TVM's dtype forwarding does;
 * "" and "void" are the dtype of a call that returns nothing. */
static pval call_extern(pstate *ps, const anode *n, const char *path) {
  static const char *const kws[] = {"dtype", NULL};
  ps_check_kwargs(ps, n, path, kws);
  const anode *dt = NULL;
  for (uint32_t k = 0; k < n->nkw; k++)
    dt = n->kwval[k];
  uint32_t first = dt ? 0 : 1;
  if (!dt && n->n > 0)
    dt = n->items[0];
  if (!dt || n->n < first + 1)
    ps_check_arity(ps, n, path, 2, -1,
                   "T.call_extern(\"float32\", \"fname\", args...) or "
                   "T.call_extern(\"fname\", args..., dtype=\"float32\")");
  tsl_dtype rt = TSL_VOID;
  if (!(dt->kind == AX_STR && dt->slen == 0))
    rt = ps_dtype_or_void(ps, dt);
  tsl_str fn = ps_str_arg(ps, n->items[first], "the function name");
  uint32_t na = n->n - first - 1;
  const tsl_expr **args = TSL_NEW_ARRAY(ps->scratch, const tsl_expr *, na ? na : 1);
  for (uint32_t i = 0; i < na; i++)
    args[i] = ps_call_arg(ps, n->items[first + 1 + i]);
  return typed(n, tsl_expr_call_extern(ps->arena, rt, fn, na, args));
}

static PS_NOINLINE pval call_expr(pstate *ps, const anode *n) {
  char path[256];
  if (ps_is_buffer_attr(ps, n->a))
    return ps_buffer_method(ps, n);
  if (!ps_dotted(ps, n->a, path, sizeof path)) {
    if (n->a->kind == AX_NAME) {
      tsl_str name = node_str(ps, n->a);
      if (ps_lookup(ps, name))
        ps_fail(ps, n, "only T.* functions can be called", "'%s' is not callable", name);
      const char *hint = strcmp(name, "max") == 0   ? "use T.max(a, b)"
                         : strcmp(name, "min") == 0 ? "use T.min(a, b)"
                         : strcmp(name, "abs") == 0 ? "use T.abs(x)"
                         : strcmp(name, "float") == 0 ? "use T.float32(x) or T.Cast(\"float32\", x)"
                         : strcmp(name, "int") == 0 ? "use T.int32(x) or T.Cast(\"int32\", x)"
                         : strcmp(name, "range") == 0 ? "range(...) is only valid as the iterator of a for loop"
                                                      : "call T.* functions, e.g. T.exp(x)";
      ps_note(ps, "%s", hint);
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n), "unknown function '%s'", name);
    }
    ps_fail(ps, n, "call T.* functions, e.g. T.exp(x)", "this call is not supported");
  }
  if (strncmp(path, "T.", 2) != 0) {
    ps_note(ps, "expression functions live in the T namespace (from tvm.script import tir as T)");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n), "unknown function '%s'", path);
  }
  const char *f = path + 2;
  tsl_dtype t;
  if (strcmp(f, "handle") != 0 && tsl_dtype_parse(f, strlen(f), &t) && !tsl_dtype_is_void(t))
    return dtype_ctor(ps, n, path, t);
  int ii = tsl_intrin_lookup(f, strlen(f));
  if (ii >= 0)
    return intrinsic(ps, n, path, (tsl_intrin)ii);
  int bi = tsl_builtin_lookup(f, strlen(f));
  if (bi >= 0)
    return ps_builtin_call(ps, n, path, (tsl_builtin)bi);
  if (strcmp(f, "ceildiv") == 0)
    return ceildiv(ps, n, path);
  static const struct {
    const char *name;
    sop op;
  } bins[] = {{"max", S_MAX},      {"min", S_MIN},       {"floordiv", S_FLOORDIV},
              {"floormod", S_FLOORMOD}, {"truncdiv", S_TRUNCDIV}, {"truncmod", S_TRUNCMOD},
              {"Add", S_ADD},      {"Sub", S_SUB},       {"Mul", S_MUL},
              {"Div", S_TRUEDIV},  {"EQ", S_EQ},         {"NE", S_NE},
              {"LT", S_LT},        {"LE", S_LE},         {"GT", S_GT},
              {"GE", S_GE},        {"And", S_AND},       {"Or", S_OR},
              {"FloorDiv", S_FLOORDIV}, {"FloorMod", S_FLOORMOD}, {"Max", S_MAX},
              {"Min", S_MIN}};
  for (size_t k = 0; k < sizeof bins / sizeof bins[0]; k++) {
    if (strcmp(f, bins[k].name) != 0)
      continue;
    ps_check_kwargs(ps, n, path, no_kw);
    char usage[320];
    snprintf(usage, sizeof usage, "%s(a, b)", path);
    ps_check_arity(ps, n, path, 2, 2, usage);
    pval a = arg(ps, n, 0), b = arg(ps, n, 1);
    sop op = bins[k].op;
    if (op == S_AND || op == S_OR) {
      a = typed(a.node, ps_bool_expr(ps, n->items[0], "operand"));
      b = typed(b.node, ps_bool_expr(ps, n->items[1], "operand"));
    }
    if (op == S_TRUEDIV && a.weak && b.weak)
      a = typed(a.node, ps_typed(ps, a));
    return binop(ps, op, a, b, n);
  }
  if (strcmp(f, "Not") == 0) {
    ps_check_kwargs(ps, n, path, no_kw);
    ps_check_arity(ps, n, path, 1, 1, "T.Not(cond)");
    const tsl_expr *c = ps_bool_expr(ps, n->items[0], "operand of T.Not");
    return typed(n, tsl_expr_unary(ps->arena, TSL_EXPR_NOT, c));
  }
  if (strcmp(f, "Cast") == 0 || strcmp(f, "cast") == 0) {
    int old = f[0] == 'c';
    static const char *const kws[] = {"dtype", NULL};
    ps_check_kwargs(ps, n, path, kws);
    const anode *dt = ps_arg(ps, n, old ? 1 : 0, "dtype");
    uint32_t vi = old ? 0 : 1;
    if (!dt || n->n < vi + 1 || n->n > 2)
      ps_check_arity(ps, n, path, 2, 2, old ? "T.cast(value, \"float32\")"
                                            : "T.Cast(\"float32\", value)");
    tsl_dtype to = ps_dtype_arg(ps, dt);
    pval v = arg(ps, n, vi);
    const tsl_expr *e = ps_typed(ps, v);
    if (old && tsl_dtype_eq(e->dtype, to))
      return typed(n, e);
    return typed(n, tsl_expr_cast(ps->arena, to, e));
  }
  if (strcmp(f, "Select") == 0)
    return select_expr(ps, n, path, 0);
  if (strcmp(f, "if_then_else") == 0)
    return select_expr(ps, n, path, 1);
  if (strcmp(f, "min_value") == 0)
    return min_max_value(ps, n, path, 0);
  if (strcmp(f, "max_value") == 0)
    return min_max_value(ps, n, path, 1);
  if (strcmp(f, "infinity") == 0)
    return min_max_value(ps, n, path, 2);
  if (strcmp(f, "call_extern") == 0)
    return call_extern(ps, n, path);
  if (strcmp(f, "Ramp") == 0) {
    ps_check_kwargs(ps, n, path, no_kw);
    ps_check_arity(ps, n, path, 3, 3, "T.Ramp(base, stride, lanes)");
    const tsl_expr *base = ps_int_expr(ps, n->items[0], "the Ramp base");
    pval sv = arg(ps, n, 1);
    const tsl_expr *stride = ps_coerce(ps, sv, base->dtype, "the Ramp stride");
    int64_t lanes = ps_int_literal(ps, n->items[2], "the lane count");
    if (lanes < 1 || lanes > 65535)
      ps_fail(ps, n->items[2], "use 1 to 65535 lanes", "invalid lane count %lld",
           (long long)lanes);
    return typed(n, tsl_expr_ramp(ps->arena, base, stride, (uint16_t)lanes));
  }
  if (strcmp(f, "Broadcast") == 0) {
    ps_check_kwargs(ps, n, path, no_kw);
    ps_check_arity(ps, n, path, 2, 2, "T.Broadcast(value, lanes)");
    const tsl_expr *v = ps_typed(ps, arg(ps, n, 0));
    int64_t lanes = ps_int_literal(ps, n->items[1], "the lane count");
    if (lanes < 1 || lanes > 65535 || v->dtype.lanes != 1)
      ps_fail(ps, n->items[1], "broadcast a scalar to 1 to 65535 lanes",
           "invalid broadcast");
    return typed(n, tsl_expr_broadcast(ps->arena, v, (uint16_t)lanes));
  }
  static const char *const stmts[] = {"evaluate", "func_attr", "reads", "writes", "where",
                                      "block_attr", "init", "block", "LetStmt", NULL};
  for (int k = 0; stmts[k]; k++)
    if (strcmp(f, stmts[k]) == 0) {
      ps_note(ps, "write %s(...) as a statement on its own line", path);
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n), "%s cannot be used as a value", path);
    }
  static const char *const loops[] = {"serial", "parallel", "vectorized", "unroll",
                                      "thread_binding", "grid", NULL};
  for (int k = 0; loops[k]; k++)
    if (strcmp(f, loops[k]) == 0) {
      ps_note(ps, "write for i in %s(...):", path);
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n),
                  "%s can only be the iterator of a for loop", path);
    }
  if (strncmp(f, "axis.", 5) == 0 || strcmp(f, "alloc_buffer") == 0 ||
      strcmp(f, "match_buffer") == 0) {
    ps_note(ps, "assign it to a name, as in %s", strncmp(f, "axis.", 5) == 0
                                                   ? "vi = T.axis.spatial(128, i)"
                                                   : "X = T.alloc_buffer((128,), \"float32\")");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n), "%s must be assigned to a name", path);
  }
  char *note = ps_alloc(ps, 1500);
  suggest_t(f, note, 1500);
  ps_note(ps, "%s", note);
  ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n), "unknown function '%s'", path);
}

/* ---- the expression walker ---- */

static int height(const tsl_expr *e, int cap) {
  int h = 0;
  for (uint32_t i = 0; i < e->n_args && h < cap; i++) {
    int c = height(e->args[i], cap - 1);
    if (c > h)
      h = c;
  }
  return h + 1;
}

void ps_check_height(pstate *ps, const tsl_expr *e, const anode *where) {
  if (e && height(e, PS_MAX_DEPTH + 1) > PS_MAX_DEPTH) {
    ps_note(ps, "split it into smaller expressions, e.g. with let bindings "
                "(at most %d levels)",
            PS_MAX_DEPTH);
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, where), "expression is nested too deeply");
  }
}

static pval expr_inner(pstate *ps, const anode *n);

pval ps_expr(pstate *ps, const anode *n) {
  ps->edepth++;
  pval v = expr_inner(ps, n);
  if (--ps->edepth == 0 && !v.weak)
    ps_check_height(ps, v.e, n);
  return v;
}

static pval expr_inner(pstate *ps, const anode *n) {
  char path[256];
  switch ((anode_kind)n->kind) {
  case AX_INT:
    if (n->bad_int)
      ps_fail(ps, n, "integer constants must fit in int64 (uint64 constants: T.uint64(value))",
           "integer literal too large");
    return weak_int(n, n->ival);
  case AX_FLOAT:
    return weak_float(n, n->fval);
  case AX_TRUE:
    return weak_bool(n, 1);
  case AX_FALSE:
    return weak_bool(n, 0);
  case AX_NONE:
    ps_fail(ps, n, "write a number, a variable or an expression", "None is not a value here");
  case AX_STR:
    ps_fail(ps, n, "strings are only valid as names, dtypes and annotation values",
         "a string is not a value here");
  case AX_NAME:
    return name_expr(ps, n);
  case AX_ATTR:
    if (ps_is_buffer_attr(ps, n))
      return ps_buffer_attr(ps, n);
    if (ps_dotted(ps, n, path, sizeof path)) {
      tsl_dtype t;
      if (strncmp(path, "T.", 2) == 0 && tsl_dtype_parse(path + 2, strlen(path + 2), &t)) {
        ps_note(ps, "call it: %s(value) is a constant or conversion", path);
        ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n), "%s is a type, not a value", path);
      }
      char *note = ps_alloc(ps, 1500);
      if (strncmp(path, "T.", 2) == 0) {
        suggest_t(path + 2, note, 1500);
        ps_note(ps, "%s", note);
      } else {
        ps_note(ps, "values are variables, buffer elements and T.* expressions");
      }
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n), "'%s' is not a value", path);
    }
    if (n->a->kind == AX_NAME) {
      tsl_str root = node_str(ps, n->a);
      if (!ps_lookup(ps, root))
        name_expr(ps, n->a); /* reports the unknown name */
    }
    ps_fail(ps, n, "attributes of variables and buffers are not supported",
         "unsupported attribute '%.*s'", (int)n->slen, n->s);
  case AX_BINOP: {
    sop op;
    switch (n->op) {
    case OP_PLUS: op = S_ADD; break;
    case OP_MINUS: op = S_SUB; break;
    case OP_STAR: op = S_MUL; break;
    case OP_SLASH: op = S_TRUEDIV; break;
    case OP_DSLASH: op = S_FLOORDIV; break;
    case OP_PERCENT: op = S_FLOORMOD; break;
    case OP_POW: op = S_POW; break;
    case OP_AMP:
    case OP_PIPE: {
      pval a = ps_expr(ps, n->a), b = ps_expr(ps, n->b);
      int ab = a.weak == PV_BOOL || (!a.weak && tsl_dtype_is_bool(a.e->dtype));
      int bb = b.weak == PV_BOOL || (!b.weak && tsl_dtype_is_bool(b.e->dtype));
      if (ab && bb)
        return binop(ps, n->op == OP_AMP ? S_AND : S_OR, a, b, n);
    }
      /* fallthrough */
    default:
      ps_note(ps, "supported operators: + - * / // %% ** < <= > >= == != and or not");
      ps_error_at(ps, TSL_EINVALID, ps_node_opoff(ps, n),
                  "operator '%s' is not supported on these operands", ps_op_text(n->op));
    }
    pval a = ps_expr(ps, n->a);
    pval b = ps_expr(ps, n->b);
    return binop(ps, op, a, b, n);
  }
  case AX_UNARY: {
    if (n->op == OP_MINUS && n->a->kind == AX_INT && n->a->bad_int == 1 &&
        n->a->ival == INT64_MIN)
      return weak_int(n, INT64_MIN); /* -9223372036854775808 */
    pval a = ps_expr(ps, n->a);
    if (n->op == OP_PLUS)
      return a;
    if (n->op == OP_TILDE) {
      if (a.weak == PV_BOOL || (!a.weak && tsl_dtype_is_bool(a.e->dtype)))
        return a.weak ? weak_bool(n, !a.i)
                      : typed(n, tsl_expr_unary(ps->arena, TSL_EXPR_NOT, a.e));
      ps_fail(ps, n, "bitwise operators are not supported; use 'not' for bools",
           "operator '~' is not supported");
    }
    switch (a.weak) {
    case PV_INT:
    case PV_BOOL:
      if (a.i == INT64_MIN)
        ps_fail(ps, n, "use smaller constants", "integer overflow in constant expression");
      return weak_int(n, -a.i);
    case PV_FLOAT:
      return weak_float(n, -a.f);
    default:
      break;
    }
    const tsl_expr *e = a.e;
    if (tsl_dtype_is_bool(e->dtype) || e->dtype.code == TSL_DT_HANDLE)
      ps_fail(ps, n, "negate numbers only", "cannot negate a %s value",
           tsl_dtype_is_bool(e->dtype) ? "bool" : "handle");
    if (e->kind == TSL_EXPR_INT_IMM && e->u.int_value != INT64_MIN &&
        ps_int_fits(e->dtype, -e->u.int_value))
      return typed(n, tsl_expr_int(ps->arena, e->dtype, -e->u.int_value));
    if (e->kind == TSL_EXPR_FLOAT_IMM)
      return typed(n, tsl_expr_float(ps->arena, e->dtype, -e->u.float_value));
    return typed(n, tsl_expr_unary(ps->arena, TSL_EXPR_NEG, e));
  }
  case AX_NOT: {
    pval a = ps_expr(ps, n->a);
    if (a.weak)
      return weak_bool(n, a.weak == PV_FLOAT ? a.f == 0 : a.i == 0);
    if (!tsl_dtype_is_bool(a.e->dtype)) {
      char dn[32];
      ps_fail(ps, n->a, "compare the value first, e.g. not (x != 0)",
           "'not' needs a bool operand, found %s", dtname(a.e->dtype, dn));
    }
    return typed(n, tsl_expr_unary(ps->arena, TSL_EXPR_NOT, a.e));
  }
  case AX_BOOLOP: {
    pval a = ps_expr(ps, n->a), b = ps_expr(ps, n->b);
    return binop(ps, n->op == 0 ? S_AND : S_OR, a, b, n);
  }
  case AX_COMPARE: {
    if (n->chained) {
      ps_note(ps, "split it: (a < b) and (b < c)");
      ps_error_at(ps, TSL_EINVALID, ps_node_opoff(ps, n),
                  "chained comparisons are not supported");
    }
    sop op = n->op == OP_EQ   ? S_EQ
             : n->op == OP_NE ? S_NE
             : n->op == OP_LT ? S_LT
             : n->op == OP_LE ? S_LE
             : n->op == OP_GT ? S_GT
                              : S_GE;
    pval a = ps_expr(ps, n->a), b = ps_expr(ps, n->b);
    return binop(ps, op, a, b, n);
  }
  case AX_CALL:
    return call_expr(ps, n);
  case AX_SUBSCRIPT:
    if (ps_is_buffer_attr(ps, n->a))
      return ps_buffer_attr_index(ps, n);
    return ps_load_expr(ps, n);
  case AX_SLICE:
    ps_fail(ps, n, "slices are only valid inside buffer indices and regions",
         "a slice is not a value here");
  case AX_TUPLE:
  case AX_LIST:
    ps_fail(ps, n, "write a single value here", "a %s is not a value here",
         n->kind == AX_TUPLE ? "tuple" : "list");
  case AX_DICT:
    ps_fail(ps, n, "dictionaries are only valid as annotations", "a dictionary is not a value here");
  case AX_STARRED:
    ps_fail(ps, n, "pass each value explicitly", "'*' unpacking is not supported");
  }
  ps_fail(ps, n, "write a valid expression", "unsupported expression");
}
