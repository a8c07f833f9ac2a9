/*
 * Instruction values: constructors, equality, deep copies, the Python
 * spelling traces print, reading T. expressions and lambdas from text
 * (schedule scripts and trace JSON share it), and the variables of sampled
 * values inside lambdas (see "Sampled values in lambdas" in README.md).
 */
#include "sch_internal.h"

#include "tessel/script.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tsl_sch_value tsl_sv_none(void) { return (tsl_sch_value){TSL_SV_NONE, 0, {0}}; }
tsl_sch_value tsl_sv_int(int64_t v) {
  return (tsl_sch_value){TSL_SV_INT, 0, {.i = v}};
}
tsl_sch_value tsl_sv_float(double v) {
  return (tsl_sch_value){TSL_SV_FLOAT, 0, {.f = v}};
}
tsl_sch_value tsl_sv_bool(int v) {
  return (tsl_sch_value){TSL_SV_BOOL, 0, {.i = v != 0}};
}
tsl_sch_value tsl_sv_str(tsl_str s) {
  return (tsl_sch_value){TSL_SV_STR, 0, {.s = s}};
}
tsl_sch_value tsl_sv_rv(tsl_sch_rv rv) {
  return (tsl_sch_value){TSL_SV_RV, 0, {.rv = rv}};
}
tsl_sch_value tsl_sv_list(uint32_t n, const tsl_sch_value *items) {
  return (tsl_sch_value){TSL_SV_LIST, n, {.items = items}};
}
tsl_sch_value tsl_sv_tuple(uint32_t n, const tsl_sch_value *items) {
  return (tsl_sch_value){TSL_SV_TUPLE, n, {.items = items}};
}
tsl_sch_value tsl_sv_dict(uint32_t n_entries, const tsl_sch_value *items) {
  return (tsl_sch_value){TSL_SV_DICT, 2 * n_entries, {.items = items}};
}
tsl_sch_value tsl_sv_expr(const tsl_expr *e) {
  return (tsl_sch_value){TSL_SV_EXPR, 0, {.expr = e}};
}
tsl_sch_value tsl_sv_lambda(const tsl_sch_lambda *l) {
  return (tsl_sch_value){TSL_SV_LAMBDA, 0, {.lambda = l}};
}

int sch_value_has_items(const tsl_sch_value *v) {
  return v->kind == TSL_SV_LIST || v->kind == TSL_SV_TUPLE ||
         v->kind == TSL_SV_DICT;
}

/* ---- equality: expressions with a correspondence of lambda parameters ---- */

typedef struct param_pairs {
  uint32_t n;
  const tsl_var *const *a;
  const tsl_var *const *b;
} param_pairs;

static int expr_eq(const tsl_expr *x, const tsl_expr *y, const param_pairs *pp) {
  if (x->kind != y->kind || x->n_args != y->n_args ||
      memcmp(&x->dtype, &y->dtype, sizeof x->dtype) != 0 || x->intrin != y->intrin)
    return 0;
  switch ((tsl_expr_kind)x->kind) {
  case TSL_EXPR_VAR: {
    for (uint32_t k = 0; pp && k < pp->n; k++)
      if (x->u.var == pp->a[k] || y->u.var == pp->b[k])
        return x->u.var == pp->a[k] && y->u.var == pp->b[k];
    /* in a lambda, a sampled value's variable: the same RV by name */
    tsl_sch_rv rx, ry;
    if (pp && sch_rv_var_number(x->u.var, &rx) && sch_rv_var_number(y->u.var, &ry))
      return rx == ry;
    return x->u.var == y->u.var;
  }
  case TSL_EXPR_INT_IMM:
    if (x->u.int_value != y->u.int_value)
      return 0;
    break;
  case TSL_EXPR_FLOAT_IMM:
    if (memcmp(&x->u.float_value, &y->u.float_value, sizeof(double)) != 0)
      return 0;
    break;
  case TSL_EXPR_STR_IMM:
  case TSL_EXPR_CALL_EXTERN:
    if (strcmp(x->u.str_value, y->u.str_value) != 0)
      return 0;
    break;
  case TSL_EXPR_LOAD:
    if (x->u.buffer != y->u.buffer)
      return 0;
    break;
  default:
    break;
  }
  for (uint32_t i = 0; i < x->n_args; i++)
    if (!expr_eq(x->args[i], y->args[i], pp))
      return 0;
  return 1;
}

static int sv_eq(const tsl_sch_value *a, const tsl_sch_value *b,
                 const param_pairs *pp) {
  if (a->kind != b->kind)
    return 0;
  switch (a->kind) {
  case TSL_SV_NONE:
    return 1;
  case TSL_SV_INT:
  case TSL_SV_BOOL:
    return a->u.i == b->u.i;
  case TSL_SV_FLOAT:
    return a->u.f == b->u.f;
  case TSL_SV_STR:
    return strcmp(a->u.s, b->u.s) == 0;
  case TSL_SV_RV:
    return a->u.rv == b->u.rv;
  case TSL_SV_LIST:
  case TSL_SV_TUPLE:
  case TSL_SV_DICT:
    if (a->n != b->n)
      return 0;
    for (uint32_t i = 0; i < a->n; i++)
      if (!sv_eq(&a->u.items[i], &b->u.items[i], pp))
        return 0;
    return 1;
  case TSL_SV_EXPR:
    return expr_eq(a->u.expr, b->u.expr, pp);
  case TSL_SV_LAMBDA: {
    const tsl_sch_lambda *x = a->u.lambda, *y = b->u.lambda;
    if (x->n_params != y->n_params)
      return 0;
    param_pairs inner = {x->n_params, x->params, y->params};
    return sv_eq(&x->body, &y->body, &inner);
  }
  }
  return 0;
}

int tsl_sv_equal(const tsl_sch_value *a, const tsl_sch_value *b) {
  return sv_eq(a, b, NULL);
}

/* ---- deep copies ---- */

/* Every node rebuilt in `a`; variables through `vars` (new ones made for
 * variables not in it). */
static const tsl_expr *expr_copy(tsl_arena *a, const tsl_expr *e, tsl_map *vars) {
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_VAR: {
    const tsl_var *nv = tsl_map_get(vars, e->u.var);
    if (!nv) {
      nv = tsl_var_new(a, e->u.var->name, e->u.var->dtype);
      tsl_map_put(vars, e->u.var, (void *)nv);
    }
    return nv->ref;
  }
  case TSL_EXPR_INT_IMM:
    return tsl_expr_int(a, e->dtype, e->u.int_value);
  case TSL_EXPR_FLOAT_IMM:
    return tsl_expr_float(a, e->dtype, e->u.float_value);
  case TSL_EXPR_STR_IMM:
    return tsl_expr_str(a, tsl_intern(tsl_arena_ctx(a), e->u.str_value));
  default:
    break;
  }
  const tsl_expr **args = TSL_NEW_ARRAY(a, const tsl_expr *, e->n_args + 1);
  for (uint32_t i = 0; i < e->n_args; i++)
    args[i] = expr_copy(a, e->args[i], vars);
  tsl_expr proto = *e;
  if (e->kind == TSL_EXPR_CALL_EXTERN)
    proto.u.str_value = tsl_intern(tsl_arena_ctx(a), e->u.str_value);
  return tsl_expr_with_args(a, &proto, e->n_args, args);
}

static tsl_sch_value value_copy(tsl_arena *a, const tsl_sch_value *v,
                                tsl_map *vars) {
  tsl_sch_value r = *v;
  if (sch_value_has_items(v) && v->n) {
    tsl_sch_value *items = TSL_NEW_ARRAY(a, tsl_sch_value, v->n);
    for (uint32_t i = 0; i < v->n; i++)
      items[i] = value_copy(a, &v->u.items[i], vars);
    r.u.items = items;
  } else if (v->kind == TSL_SV_STR) {
    r.u.s = tsl_intern(tsl_arena_ctx(a), v->u.s);
  } else if (v->kind == TSL_SV_EXPR) {
    r.u.expr = expr_copy(a, v->u.expr, vars);
  } else if (v->kind == TSL_SV_LAMBDA) {
    const tsl_sch_lambda *l = v->u.lambda;
    tsl_sch_lambda *nl = TSL_NEW(a, tsl_sch_lambda);
    const tsl_var **ps = TSL_NEW_ARRAY(a, const tsl_var *, l->n_params + 1);
    for (uint32_t k = 0; k < l->n_params; k++) {
      ps[k] = tsl_var_new(a, l->params[k]->name, l->params[k]->dtype);
      tsl_map_put(vars, l->params[k], (void *)ps[k]);
    }
    nl->n_params = l->n_params;
    nl->params = ps;
    nl->body = value_copy(a, &l->body, vars);
    r.u.lambda = nl;
  }
  return r;
}

tsl_sch_value sch_value_copy(tsl_arena *a, const tsl_sch_value *v) {
  if (v->kind <= TSL_SV_RV)
    return v->kind == TSL_SV_STR ? value_copy(a, v, NULL) : *v;
  tsl_map vars;
  tsl_map_init(&vars, NULL);
  tsl_sch_value r = value_copy(a, v, &vars);
  tsl_map_free(&vars);
  return r;
}

int sch_value_has_exprs(const tsl_sch_value *v) {
  if (v->kind == TSL_SV_EXPR || v->kind == TSL_SV_LAMBDA)
    return 1;
  if (sch_value_has_items(v))
    for (uint32_t i = 0; i < v->n; i++)
      if (sch_value_has_exprs(&v->u.items[i]))
        return 1;
  return 0;
}

/* ---- sampled values' variables in lambdas ---- */

int sch_rv_var_number(const tsl_var *v, tsl_sch_rv *rv) {
  const char *n = v->name;
  if (n[0] != 'v' || !isdigit((unsigned char)n[1]) || (n[1] == '0' && n[2]))
    return 0;
  uint64_t x = 0;
  for (const char *p = n + 1; *p; p++) {
    if (!isdigit((unsigned char)*p) || x > UINT32_MAX / 10)
      return 0;
    x = x * 10 + (uint64_t)(*p - '0');
  }
  if (x >= UINT32_MAX)
    return 0;
  *rv = (tsl_sch_rv)x;
  return 1;
}

typedef struct rv_walk {
  const tsl_sch_lambda *l;
  int (*fn)(const tsl_var *, void *);
  void *ud;
  int rc;
  tsl_subst_fn subst;
  const tsl_var *bad;
} rv_walk;

static int is_param(const tsl_sch_lambda *l, const tsl_var *v) {
  for (uint32_t k = 0; k < l->n_params; k++)
    if (l->params[k] == v)
      return 1;
  return 0;
}

static int visit_var(const tsl_expr *e, void *ud) {
  rv_walk *w = ud;
  if (e->kind == TSL_EXPR_VAR && !w->rc && !is_param(w->l, e->u.var))
    w->rc = w->fn(e->u.var, w->ud);
  return w->rc;
}

static int body_rv_vars(const tsl_sch_value *v, rv_walk *w) {
  if (v->kind == TSL_SV_EXPR)
    tsl_expr_visit(v->u.expr, visit_var, w);
  else if (sch_value_has_items(v))
    for (uint32_t i = 0; i < v->n && !w->rc; i++)
      body_rv_vars(&v->u.items[i], w);
  return w->rc;
}

int sch_value_rv_vars(const tsl_sch_value *v, int (*fn)(const tsl_var *, void *),
                      void *ud) {
  if (v->kind == TSL_SV_LAMBDA) {
    rv_walk w = {.l = v->u.lambda, .fn = fn, .ud = ud};
    return body_rv_vars(&v->u.lambda->body, &w);
  }
  int rc = 0;
  if (sch_value_has_items(v))
    for (uint32_t i = 0; i < v->n && !rc; i++)
      rc = sch_value_rv_vars(&v->u.items[i], fn, ud);
  return rc;
}

static int any_var(const tsl_var *v, void *ud) {
  (void)v;
  (void)ud;
  return 1;
}

int sch_value_has_rv_vars(const tsl_sch_value *v) {
  return sch_value_rv_vars(v, any_var, NULL);
}

static const tsl_expr *subst_var(const tsl_var *v, void *ud) {
  rv_walk *w = ud;
  if (is_param(w->l, v) || w->bad)
    return NULL;
  const tsl_expr *r = w->subst(v, w->ud);
  if (!r)
    w->bad = v;
  return r;
}

static tsl_sch_value subst_body(tsl_arena *a, const tsl_sch_value *v, rv_walk *w) {
  tsl_sch_value r = *v;
  if (v->kind == TSL_SV_EXPR) {
    r.u.expr = tsl_expr_substitute_legalize(a, v->u.expr, subst_var, w);
  } else if (sch_value_has_items(v)) {
    tsl_sch_value *items = TSL_NEW_ARRAY(a, tsl_sch_value, v->n + 1);
    for (uint32_t i = 0; i < v->n; i++)
      items[i] = subst_body(a, &v->u.items[i], w);
    r.u.items = items;
  }
  return r;
}

int sch_value_subst_rv_vars(tsl_arena *a, const tsl_sch_value *v, tsl_subst_fn fn,
                            void *ud, tsl_sch_value *out, const tsl_var **bad) {
  *out = *v;
  if (!sch_value_has_rv_vars(v))
    return TSL_OK;
  if (sch_value_has_items(v)) {
    tsl_sch_value *items = TSL_NEW_ARRAY(a, tsl_sch_value, v->n + 1);
    for (uint32_t i = 0; i < v->n; i++)
      if (sch_value_subst_rv_vars(a, &v->u.items[i], fn, ud, &items[i], bad))
        return TSL_EINVALID;
    out->u.items = items;
    return TSL_OK;
  }
  rv_walk w = {.l = v->u.lambda, .subst = fn, .ud = ud};
  tsl_sch_lambda *nl = TSL_NEW(a, tsl_sch_lambda);
  *nl = *v->u.lambda;
  nl->body = subst_body(a, &v->u.lambda->body, &w);
  if (w.bad) {
    *bad = w.bad;
    return TSL_EINVALID;
  }
  out->u.lambda = nl;
  return TSL_OK;
}

/* ---- printing ---- */

static void print_str(tsl_strbuf *sb, const char *s) {
  tsl_strbuf_append(sb, "\"");
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      tsl_strbuf_printf(sb, "\\%c", *p);
    else if (*p == '\n')
      tsl_strbuf_append(sb, "\\n");
    else if (*p == '\t')
      tsl_strbuf_append(sb, "\\t");
    else if (*p < 0x20 || *p == 0x7f)
      tsl_strbuf_printf(sb, "\\x%02x", *p);
    else
      tsl_strbuf_append_n(sb, (const char *)p, 1);
  }
  tsl_strbuf_append(sb, "\"");
}

static void print_float(tsl_strbuf *sb, double f) {
  if (isnan(f)) {
    tsl_strbuf_append(sb, "float(\"nan\")");
    return;
  }
  if (isinf(f)) {
    tsl_strbuf_append(sb, f > 0 ? "float(\"inf\")" : "float(\"-inf\")");
    return;
  }
  char buf[64];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, f);
    if (strtod(buf, NULL) == f)
      break;
  }
  if (!strpbrk(buf, ".eEn"))
    strcat(buf, ".0");
  tsl_strbuf_append(sb, buf);
}

static void print_items(tsl_strbuf *sb, const tsl_sch_value *v,
                        const uint8_t *rv_kinds, uint32_t n_rvs) {
  for (uint32_t i = 0; i < v->n; i++) {
    if (i)
      tsl_strbuf_append(sb, v->kind == TSL_SV_DICT && (i & 1) ? ": " : ", ");
    sch_value_print(sb, &v->u.items[i], rv_kinds, n_rvs);
  }
}

void sch_value_print(tsl_strbuf *sb, const tsl_sch_value *v,
                     const uint8_t *rv_kinds, uint32_t n_rvs) {
  switch (v->kind) {
  case TSL_SV_NONE: tsl_strbuf_append(sb, "None"); break;
  case TSL_SV_INT: tsl_strbuf_printf(sb, "%lld", (long long)v->u.i); break;
  case TSL_SV_FLOAT: print_float(sb, v->u.f); break;
  case TSL_SV_STR: print_str(sb, v->u.s); break;
  case TSL_SV_BOOL: tsl_strbuf_append(sb, v->u.i ? "True" : "False"); break;
  case TSL_SV_RV:
    tsl_strbuf_printf(sb, "%c%u",
                      sch_rv_prefix(v->u.rv < n_rvs ? rv_kinds[v->u.rv] : 0),
                      v->u.rv);
    break;
  case TSL_SV_LIST:
    tsl_strbuf_append(sb, "[");
    print_items(sb, v, rv_kinds, n_rvs);
    tsl_strbuf_append(sb, "]");
    break;
  case TSL_SV_TUPLE:
    tsl_strbuf_append(sb, "(");
    print_items(sb, v, rv_kinds, n_rvs);
    tsl_strbuf_append(sb, v->n == 1 ? ",)" : ")");
    break;
  case TSL_SV_DICT:
    tsl_strbuf_append(sb, "{");
    print_items(sb, v, rv_kinds, n_rvs);
    tsl_strbuf_append(sb, "}");
    break;
  case TSL_SV_EXPR: {
    char *t = tsl_print_expr(v->u.expr);
    tsl_strbuf_append(sb, t ? t : "?");
    free(t);
    break;
  }
  case TSL_SV_LAMBDA: {
    const tsl_sch_lambda *l = v->u.lambda;
    tsl_strbuf_append(sb, "lambda");
    for (uint32_t k = 0; k < l->n_params; k++)
      tsl_strbuf_printf(sb, "%s%s", k ? ", " : " ", l->params[k]->name);
    tsl_strbuf_append(sb, ": ");
    sch_value_print(sb, &l->body, rv_kinds, n_rvs);
    break;
  }
  }
}

/* ---- reading T. expressions and lambdas --------------------------------- */

static int is_ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static int is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

size_t sch_value_span(const char *p, const char *end) {
  const char *q = p;
  int depth = 0;
  /* a lambda's parameter list (`lambda i, j:`) belongs to it */
  if (end - p > 6 && !memcmp(p, "lambda", 6) && !is_ident(p[6])) {
    const char *c = p + 6;
    while (c < end && (is_ident(*c) || *c == ',' || *c == ' ' || *c == '\t'))
      c++;
    if (c < end && *c == ':')
      q = c + 1;
  }
  while (q < end) {
    char c = *q;
    if (c == '"' || c == '\'') {
      q++;
      while (q < end && *q != c && *q != '\n')
        q += *q == '\\' ? 2 : 1;
      if (q < end)
        q++;
      continue;
    }
    if (c == '(' || c == '[' || c == '{')
      depth++;
    else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0)
        break;
      depth--;
    } else if ((c == ',' || c == '#') && depth == 0)
      break;
    else if (c == '\n' && depth == 0)
      break;
    q++;
  }
  if (q > end)
    q = end;
  while (q > p && isspace((unsigned char)q[-1]))
    q--;
  return (size_t)(q - p);
}


/* Tree -> value: tuples and lists nest, leaves become EXPR values. */
static tsl_sch_value tree_value(tsl_arena *a, const tsl_expr_tree *t,
                                tsl_map *consts) {
  if (t->kind == TSL_TREE_EXPR) {
    const tsl_expr *e = t->expr;
    if (consts->n) {
      tsl_mutator m = tsl_mutator_make(a);
      m.vars = consts;
      e = tsl_mutate_expr(&m, e);
    }
    return tsl_sv_expr(e);
  }
  tsl_sch_value *items = TSL_NEW_ARRAY(a, tsl_sch_value, t->n + 1);
  for (uint32_t i = 0; i < t->n; i++)
    items[i] = tree_value(a, &t->items[i], consts);
  return t->kind == TSL_TREE_TUPLE ? tsl_sv_tuple(t->n, items)
                                   : tsl_sv_list(t->n, items);
}

/* Names in `text` that `lookup` knows become int32 variables (vars[n..])
 * later replaced (consts) by their values, or with `keep_vars` by the
 * variables of sampled values. */
static uint32_t free_names(tsl_arena *a, const char *text, size_t len,
                           const sch_name_lookup *lk, int keep_vars,
                           const tsl_var **vars, uint32_t n, uint32_t cap,
                           tsl_map *consts) {
  for (size_t i = 0; i < len && lk && lk->fn;) {
    if (text[i] == '"' || text[i] == '\'') {
      char c = text[i++];
      while (i < len && text[i] != c)
        i += text[i] == '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (!is_ident_start(text[i]) || (i > 0 && (is_ident(text[i - 1]) || text[i - 1] == '.'))) {
      i++;
      continue;
    }
    size_t j = i;
    while (j < len && is_ident(text[j]))
      j++;
    int64_t value;
    const tsl_var *rv_var = NULL;
    int known = 0;
    for (uint32_t k = 0; k < n; k++)
      known |= strlen(vars[k]->name) == j - i && !memcmp(vars[k]->name, text + i, j - i);
    if (!known && n < cap && lk->fn(lk->user_data, text + i, j - i, &value, &rv_var)) {
      char name[128];
      snprintf(name, sizeof name, "%.*s", (int)(j - i), text + i);
      const tsl_var *v = tsl_var_new(a, name, TSL_INT32);
      vars[n++] = v;
      tsl_map_put(consts, v,
                  keep_vars && rv_var
                      ? (void *)rv_var->ref
                      : (void *)tsl_expr_int(a, value >= INT32_MIN && value <= INT32_MAX
                                                    ? TSL_INT32 : TSL_INT64,
                                             value));
    }
    i = j;
  }
  return n;
}

int sch_parse_expr_text(tsl_arena *a, const char *file, uint32_t line,
                        uint32_t col, const char *text, size_t len,
                        const sch_name_lookup *lk, tsl_sch_value *out,
                        tsl_diag *diag) {
  const tsl_var *vars[64];
  tsl_map consts;
  tsl_map_init(&consts, a);
  uint32_t n = free_names(a, text, len, lk, 0, vars, 0, 64, &consts);
  tsl_expr_tree t;
  int rc = tsl_parse_fragment(a, file, line, col, text, len, n, vars, &t, diag);
  if (rc)
    return rc;
  *out = tree_value(a, &t, &consts);
  if (out->kind != TSL_SV_EXPR)
    return tsl_diag_set(diag, TSL_EPARSE,
                        "%s:%u:%u: error: expected one expression, not a %s", file,
                        line, col, out->kind == TSL_SV_TUPLE ? "tuple" : "list");
  /* A constant folds as TVM's Python operators fold it; an int32, float32
   * or bool constant is the plain number (what Python passes for it), so
   * that a printed trace reads back to the same value. */
  tsl_analyzer *an = tsl_analyzer_new(tsl_arena_ctx(a));
  const tsl_expr *e = tsl_simplify(an, a, out->u.expr);
  tsl_analyzer_free(an);
  *out = tsl_sv_expr(e);
  if (e->kind == TSL_EXPR_INT_IMM && e->dtype.code == TSL_INT32.code &&
      e->dtype.bits == 32 && e->dtype.lanes == 1)
    *out = tsl_sv_int(e->u.int_value);
  else if (e->kind == TSL_EXPR_INT_IMM && e->dtype.code == TSL_BOOL.code &&
           e->dtype.bits == TSL_BOOL.bits)
    *out = tsl_sv_bool(e->u.int_value != 0);
  else if (e->kind == TSL_EXPR_FLOAT_IMM && e->dtype.code == TSL_FLOAT32.code &&
           e->dtype.bits == 32 && e->dtype.lanes == 1)
    *out = tsl_sv_float(e->u.float_value);
  return TSL_OK;
}

int sch_parse_lambda_text(tsl_arena *a, const char *file, uint32_t line,
                          uint32_t col, const char *text, size_t len,
                          const sch_name_lookup *lk, tsl_sch_value *out,
                          tsl_diag *diag) {
  const char *p = text, *end = text + len;
  uint32_t c = col;
#define SKIP_WS()                                                              \
  while (p < end && (*p == ' ' || *p == '\t')) {                               \
    p++;                                                                       \
    c++;                                                                       \
  }
  SKIP_WS();
  if ((size_t)(end - p) < 6 || memcmp(p, "lambda", 6) || (p + 6 < end && is_ident(p[6])))
    return tsl_diag_set(diag, TSL_EPARSE, "%s:%u:%u: error: expected 'lambda'", file,
                        line, c);
  p += 6;
  c += 6;
  const tsl_var *vars[64];
  uint32_t n = 0;
  for (;;) {
    SKIP_WS();
    if (p < end && *p == ':' && n == 0)
      break;
    if (p >= end || !is_ident_start(*p))
      return tsl_diag_set(diag, TSL_EPARSE,
                          "%s:%u:%u: error: expected a parameter name or ':' in the "
                          "lambda (write lambda i, j: (j, i))",
                          file, line, c);
    const char *s = p;
    while (p < end && is_ident(*p))
      p++;
    if (n == 64)
      return tsl_diag_set(diag, TSL_EPARSE, "%s:%u:%u: error: too many lambda parameters "
                          "(at most 64)", file, line, c);
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(p - s), s);
    for (uint32_t k = 0; k < n; k++)
      if (!strcmp(vars[k]->name, name))
        return tsl_diag_set(diag, TSL_EPARSE,
                            "%s:%u:%u: error: duplicate lambda parameter '%s'", file,
                            line, c, name);
    vars[n++] = tsl_var_new(a, name, TSL_INT32);
    c += (uint32_t)(p - s);
    SKIP_WS();
    if (p < end && *p == ':')
      break;
    if (p >= end || *p != ',')
      return tsl_diag_set(diag, TSL_EPARSE,
                          "%s:%u:%u: error: expected ',' or ':' after lambda parameter "
                          "'%s' (write lambda i, j: (j, i))",
                          file, line, c, name);
    p++;
    c++;
  }
  p++;
  c++;
  SKIP_WS();
#undef SKIP_WS
  if (p >= end)
    return tsl_diag_set(diag, TSL_EPARSE, "%s:%u:%u: error: the lambda has no body",
                        file, line, c);
  tsl_map consts;
  tsl_map_init(&consts, a);
  uint32_t n_all = free_names(a, p, (size_t)(end - p), lk, 1, vars, n, 64, &consts);
  tsl_expr_tree t;
  int rc = tsl_parse_fragment(a, file, line, c, p, (size_t)(end - p), n_all, vars,
                              &t, diag);
  if (rc)
    return rc;
  tsl_sch_lambda *l = TSL_NEW(a, tsl_sch_lambda);
  l->n_params = n;
  l->params = tsl_arena_dup(a, vars, sizeof *vars * (n ? n : 1));
  l->body = tree_value(a, &t, &consts);
  *out = tsl_sv_lambda(l);
  return TSL_OK;
}
