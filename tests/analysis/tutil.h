/*
 * tests/analysis/tutil.h — helpers for the analysis tests: a tiny parser of
 * Python-like integer expressions into tessel IR (so cases read as text), a
 * reference evaluator with TensorIR integer semantics, and formatting.
 *
 *   names        variables (created on first use with the env's dtype);
 *                a capitalised name followed by [..] is a load of a 1-d
 *                int buffer of that name
 *   + - * // % / and or not < <= > >= == !=   (/ is truncating division)
 *   min(a,b) max(a,b) tmod(a,b) select(c,a,b) abs(a) i64(x) i32(x) (casts)
 *   True False, integer literals (typed with the env's dtype)
 */
#ifndef TESSEL_TESTS_ANALYSIS_TUTIL_H
#define TESSEL_TESTS_ANALYSIS_TUTIL_H

#include "analysis_internal.h"
#include "tessel/analysis.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tu_env {
  tsl_arena *a;
  tsl_dtype dt;
  int n_vars;
  const tsl_var *vars[512];
  int n_bufs;
  const tsl_buffer *bufs[8];
  const char *p; /* parse cursor */
  int err;
} tu_env;

static inline const tsl_var *tu_var(tu_env *env, const char *name) {
  for (int i = 0; i < env->n_vars; i++)
    if (strcmp(env->vars[i]->name, name) == 0)
      return env->vars[i];
  if (env->n_vars == 512)
    abort();
  const tsl_var *v = tsl_var_new(env->a, name, env->dt);
  env->vars[env->n_vars++] = v;
  return v;
}

static const tsl_buffer *tu_buf(tu_env *env, const char *name) {
  for (int i = 0; i < env->n_bufs; i++)
    if (strcmp(env->bufs[i]->name, name) == 0)
      return env->bufs[i];
  const tsl_expr *shape[1] = {tsl_expr_int(env->a, env->dt, 64)};
  const tsl_buffer *b =
      tsl_buffer_new(env->a, name, env->dt, 1, shape, NULL, NULL, NULL, 0, 0);
  env->bufs[env->n_bufs++] = b;
  return b;
}

static void tu_ws(tu_env *env) {
  while (*env->p == ' ')
    env->p++;
}

static int tu_eat(tu_env *env, const char *tok) {
  tu_ws(env);
  size_t n = strlen(tok);
  if (strncmp(env->p, tok, n) != 0)
    return 0;
  if (isalpha((unsigned char)tok[0]) && isalnum((unsigned char)env->p[n]))
    return 0;
  env->p += n;
  return 1;
}

static const tsl_expr *tu_or(tu_env *env);

static const tsl_expr *tu_atom(tu_env *env) {
  tu_ws(env);
  if (tu_eat(env, "(")) {
    const tsl_expr *e = tu_or(env);
    if (!tu_eat(env, ")"))
      env->err = 1;
    return e;
  }
  if (isdigit((unsigned char)*env->p)) {
    long long v = strtoll(env->p, (char **)&env->p, 10);
    return tsl_expr_int(env->a, env->dt, v);
  }
  if (isalpha((unsigned char)*env->p) || *env->p == '_') {
    char name[64];
    int n = 0;
    while ((isalnum((unsigned char)*env->p) || *env->p == '_') && n < 63)
      name[n++] = *env->p++;
    name[n] = 0;
    if (!strcmp(name, "True") || !strcmp(name, "False"))
      return tsl_expr_bool(env->a, name[0] == 'T');
    if (tu_eat(env, "[")) {
      const tsl_expr *idx = tu_or(env);
      if (!tu_eat(env, "]"))
        env->err = 1;
      return tsl_expr_load(env->a, tu_buf(env, name), 1, &idx);
    }
    if (tu_eat(env, "(")) {
      const tsl_expr *args[3] = {0};
      int k = 0;
      do {
        if (k == 3) {
          env->err = 1;
          break;
        }
        args[k++] = tu_or(env);
      } while (tu_eat(env, ","));
      if (!tu_eat(env, ")"))
        env->err = 1;
      if (env->err)
        return tsl_expr_int(env->a, env->dt, 0);
      if (!strcmp(name, "min") && k == 2)
        return tsl_expr_binary(env->a, TSL_EXPR_MIN, args[0], args[1]);
      if (!strcmp(name, "max") && k == 2)
        return tsl_expr_binary(env->a, TSL_EXPR_MAX, args[0], args[1]);
      if (!strcmp(name, "tmod") && k == 2)
        return tsl_expr_binary(env->a, TSL_EXPR_MOD, args[0], args[1]);
      if (!strcmp(name, "select") && k == 3)
        return tsl_expr_select(env->a, args[0], args[1], args[2]);
      if (!strcmp(name, "abs") && k == 1)
        return tsl_expr_call(env->a, TSL_INTRIN_ABS, args[0]->dtype, 1, args);
      if (!strcmp(name, "i64") && k == 1)
        return tsl_expr_cast(env->a, TSL_INT64, args[0]);
      if (!strcmp(name, "i32") && k == 1)
        return tsl_expr_cast(env->a, TSL_INT32, args[0]);
      env->err = 1;
      return args[0];
    }
    return tsl_expr_var(tu_var(env, name));
  }
  env->err = 1;
  return tsl_expr_int(env->a, env->dt, 0);
}

static const tsl_expr *tu_unary(tu_env *env) {
  if (tu_eat(env, "-")) {
    const tsl_expr *x = tu_unary(env);
    int64_t v;
    if (tsl_expr_is_const_int(x, &v))
      return tsl_expr_int(env->a, x->dtype, -v);
    return tsl_expr_unary(env->a, TSL_EXPR_NEG, x);
  }
  return tu_atom(env);
}

static const tsl_expr *tu_term(tu_env *env) {
  const tsl_expr *e = tu_unary(env);
  for (;;) {
    tsl_expr_kind k;
    if (tu_eat(env, "//"))
      k = TSL_EXPR_FLOORDIV;
    else if (tu_eat(env, "*"))
      k = TSL_EXPR_MUL;
    else if (tu_eat(env, "%"))
      k = TSL_EXPR_FLOORMOD;
    else if (tu_eat(env, "/"))
      k = TSL_EXPR_DIV;
    else
      return e;
    e = tsl_expr_binary(env->a, k, e, tu_unary(env));
  }
}

static const tsl_expr *tu_arith(tu_env *env) {
  const tsl_expr *e = tu_term(env);
  for (;;) {
    if (tu_eat(env, "+"))
      e = tsl_expr_binary(env->a, TSL_EXPR_ADD, e, tu_term(env));
    else if (tu_eat(env, "-"))
      e = tsl_expr_binary(env->a, TSL_EXPR_SUB, e, tu_term(env));
    else
      return e;
  }
}

static const tsl_expr *tu_cmp(tu_env *env) {
  const tsl_expr *e = tu_arith(env);
  static const struct {
    const char *tok;
    tsl_expr_kind k;
  } ops[] = {{"<=", TSL_EXPR_LE}, {">=", TSL_EXPR_GE}, {"==", TSL_EXPR_EQ},
             {"!=", TSL_EXPR_NE}, {"<", TSL_EXPR_LT},  {">", TSL_EXPR_GT}};
  for (int i = 0; i < 6; i++)
    if (tu_eat(env, ops[i].tok))
      return tsl_expr_binary(env->a, ops[i].k, e, tu_arith(env));
  return e;
}

static const tsl_expr *tu_not(tu_env *env) {
  if (tu_eat(env, "not"))
    return tsl_expr_unary(env->a, TSL_EXPR_NOT, tu_not(env));
  return tu_cmp(env);
}

static const tsl_expr *tu_and(tu_env *env) {
  const tsl_expr *e = tu_not(env);
  while (tu_eat(env, "and"))
    e = tsl_expr_binary(env->a, TSL_EXPR_AND, e, tu_not(env));
  return e;
}

static const tsl_expr *tu_or(tu_env *env) {
  const tsl_expr *e = tu_and(env);
  while (tu_eat(env, "or"))
    e = tsl_expr_binary(env->a, TSL_EXPR_OR, e, tu_and(env));
  return e;
}

static inline const tsl_expr *tu_parse(tu_env *env, const char *src) {
  env->p = src;
  env->err = 0;
  const tsl_expr *e = tu_or(env);
  tu_ws(env);
  if (*env->p || env->err) {
    fprintf(stderr, "tutil: cannot parse '%s' at '%s'\n", src, env->p);
    abort();
  }
  return e;
}

/* formatted expression in a static ring of buffers */
static inline const char *tu_fmt(const tsl_expr *e) {
  static char ring[8][1024];
  static int k;
  char *out = ring[k++ & 7];
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  tsla_fmt_expr(&sb, e);
  snprintf(out, 1024, "%s", sb.data ? sb.data : "");
  tsl_strbuf_free(&sb);
  return out;
}

/* ---- reference evaluator ---- */

typedef struct tu_assign {
  int n;
  const tsl_var *vars[32];
  int64_t vals[32];
} tu_assign;

static inline int64_t tu_wrap(tsl_dtype t, int64_t v) {
  if (tsl_dtype_is_bool(t))
    return v != 0;
  if (t.bits >= 64)
    return v;
  uint64_t m = (1ULL << t.bits) - 1, u = (uint64_t)v & m;
  if (t.code == TSL_DT_INT && (u >> (t.bits - 1)))
    u |= ~m;
  return (int64_t)u;
}

/* Returns 1 and sets *out, or 0 when undefined (division by zero). Loads
 * read buf[i] = 3*i - 7 (any fixed function will do). */
static inline int tu_eval(const tsl_expr *e, const tu_assign *as, int64_t *out) {
  int64_t a = 0, b = 0, c = 0;
  if (e->kind == TSL_EXPR_INT_IMM) {
    *out = e->u.int_value;
    return 1;
  }
  if (e->kind == TSL_EXPR_VAR) {
    for (int i = 0; i < as->n; i++)
      if (as->vars[i] == e->u.var) {
        *out = as->vals[i];
        return 1;
      }
    fprintf(stderr, "tu_eval: unassigned var %s\n", e->u.var->name);
    abort();
  }
  if (e->kind == TSL_EXPR_SELECT || e->kind == TSL_EXPR_IF_THEN_ELSE) {
    if (!tu_eval(e->args[0], as, &c))
      return 0;
    if (e->kind == TSL_EXPR_SELECT && (!tu_eval(e->args[1], as, &a) ||
                                       !tu_eval(e->args[2], as, &b)))
      return 0;
    return tu_eval(e->args[c ? 1 : 2], as, out);
  }
  if (e->kind == TSL_EXPR_AND || e->kind == TSL_EXPR_OR) {
    if (!tu_eval(e->args[0], as, &a) || !tu_eval(e->args[1], as, &b))
      return 0;
    *out = e->kind == TSL_EXPR_AND ? (a && b) : (a || b);
    return 1;
  }
  if (e->n_args >= 1 && !tu_eval(e->args[0], as, &a))
    return 0;
  if (e->n_args >= 2 && !tu_eval(e->args[1], as, &b))
    return 0;
  int64_t r;
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_LOAD: r = 3 * a - 7; break;
  case TSL_EXPR_ADD: r = (int64_t)((uint64_t)a + (uint64_t)b); break;
  case TSL_EXPR_SUB: r = (int64_t)((uint64_t)a - (uint64_t)b); break;
  case TSL_EXPR_MUL: r = (int64_t)((uint64_t)a * (uint64_t)b); break;
  case TSL_EXPR_NEG: r = (int64_t)(0 - (uint64_t)a); break;
  case TSL_EXPR_DIV:
    if (!b) return 0;
    r = a / b;
    break;
  case TSL_EXPR_MOD:
    if (!b) return 0;
    r = a % b;
    break;
  case TSL_EXPR_FLOORDIV:
    if (!b) return 0;
    r = a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
    break;
  case TSL_EXPR_FLOORMOD:
    if (!b) return 0;
    r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
      r += b;
    break;
  case TSL_EXPR_MIN: r = a < b ? a : b; break;
  case TSL_EXPR_MAX: r = a > b ? a : b; break;
  case TSL_EXPR_EQ: r = a == b; break;
  case TSL_EXPR_NE: r = a != b; break;
  case TSL_EXPR_LT: r = a < b; break;
  case TSL_EXPR_LE: r = a <= b; break;
  case TSL_EXPR_GT: r = a > b; break;
  case TSL_EXPR_GE: r = a >= b; break;
  case TSL_EXPR_NOT: r = !a; break;
  case TSL_EXPR_CAST: r = a; break;
  case TSL_EXPR_CALL:
    if (e->intrin == TSL_INTRIN_ABS) {
      r = a < 0 ? -a : a;
      break;
    }
    /* fallthrough */
  default:
    fprintf(stderr, "tu_eval: unsupported kind %d\n", e->kind);
    abort();
  }
  *out = tu_wrap(e->dtype, r);
  return 1;
}

#endif /* TESSEL_TESTS_ANALYSIS_TUTIL_H */
