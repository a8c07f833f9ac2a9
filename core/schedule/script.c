/*
 * Schedule scripts: straight-line Python-like statements calling methods on
 * `sch`, parsed and executed one statement at a time.
 *
 *   stmt    := targets '=' expr | expr
 *   targets := NAME (',' NAME)* [','] | '(' ... ')' | '[' ... ']'
 *   expr    := postfix ;  postfix := atom ('[' index ']')*
 *   atom    := 'sch' '.' NAME '(' args ')' | NAME | INT | FLOAT | STRING |
 *              True | False | None | '-' atom | '[' exprs ']' | '(' exprs ')' |
 *              '{' [expr ':' expr (',' expr ':' expr)*] '}' |
 *              'lambda' NAMES ':' tir_expr | tir_expr
 *   index   := INT | [INT] ':' [INT]
 * A tir_expr is TVMScript (`T.float32(0)`, `(i // 4, i % 4)`): text up to
 * the next ',' or closing bracket, read by the TVMScript parser; an
 * argument that mentions `T.` is read that way as a whole.
 */
#include "sch_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_EOF, T_NEWLINE, T_NAME, T_INT, T_FLOAT, T_STR, T_OP };

typedef struct tok {
  int kind;
  const char *start;
  size_t len;
  uint32_t line, col;
  int64_t i;
  double f;
  char op; /* T_OP: ( ) [ ] , = . : - */
} tok;

typedef struct sp {
  tsl_schedule *sch;
  const char *file, *src, *end, *p;
  uint32_t line, col;
  int depth; /* bracket nesting: newlines inside are ignored */
  tok cur;
  tsl_diag *diag;
  tsl_map vars; /* script name -> tsl_sch_value * (heap map, arena values) */
  tsl_strbuf sbuf;
  uint32_t stmt_line;
} sp;

/* ---- errors --------------------------------------------------------------- */

static int syntax_error(sp *s, const tok *t, const char *fmt, ...)
    TSL_PRINTF(3, 4);
static int syntax_error(sp *s, const tok *t, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *ls = t->start;
  while (ls > s->src && ls[-1] != '\n')
    ls--;
  const char *le = ls;
  while (le < s->end && *le != '\n')
    le++;
  int n = (int)(le - ls);
  if (n > 200)
    n = 200;
  tsl_diag_set(s->diag, TSL_EPARSE, "%s:%u:%u: error: %s\n  %.*s\n  %*s^",
               s->file, t->line, t->col, msg, n, ls, (int)t->col - 1, "");
  return TSL_EPARSE;
}

/* ---- lexer ------------------------------------------------------------------ */

static void lex(sp *s) {
  tok *t = &s->cur;
  for (;;) {
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\r' ||
                             (*s->p == '\n' && s->depth > 0) ||
                             (*s->p == '\\' && s->p + 1 < s->end && s->p[1] == '\n'))) {
      if (*s->p == '\\')
        s->p++;
      if (*s->p == '\n') {
        s->line++;
        s->col = 1;
      } else {
        s->col++;
      }
      s->p++;
    }
    if (s->p < s->end && *s->p == '#') {
      while (s->p < s->end && *s->p != '\n')
        s->p++;
      continue;
    }
    break;
  }
  memset(t, 0, sizeof *t);
  t->start = s->p;
  t->line = s->line;
  t->col = s->col;
  if (s->p >= s->end) {
    t->kind = T_EOF;
    return;
  }
  char c = *s->p;
  const char *q = s->p;
  if (c == '\n') {
    t->kind = T_NEWLINE;
    q++;
    s->line++;
    s->col = 1;
  } else if (isalpha((unsigned char)c) || c == '_') {
    while (q < s->end && (isalnum((unsigned char)*q) || *q == '_'))
      q++;
    t->kind = T_NAME;
  } else if (isdigit((unsigned char)c) ||
             (c == '.' && q + 1 < s->end && isdigit((unsigned char)q[1]))) {
    char buf[64];
    size_t n = 0;
    while (q < s->end && n < 63 &&
           (isalnum((unsigned char)*q) || *q == '.' || *q == '_' ||
            ((*q == '+' || *q == '-') && (q[-1] == 'e' || q[-1] == 'E'))))
      if (*q++ != '_')
        buf[n++] = q[-1];
    buf[n] = 0;
    char *e;
    errno = 0;
    int is_float = strpbrk(buf, ".eE") && !(buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'));
    if (is_float) {
      t->f = strtod(buf, &e);
      t->kind = T_FLOAT;
    } else {
      t->i = strtoll(buf, &e, 0);
      t->kind = T_INT;
    }
    if (*e || errno) {
      t->kind = T_OP;
      t->op = '?';
    }
  } else if (c == '"' || c == '\'') {
    q++;
    tsl_strbuf_free(&s->sbuf);
    tsl_strbuf_init(&s->sbuf);
    tsl_strbuf_append(&s->sbuf, "");
    t->kind = T_STR;
    while (q < s->end && *q != c && *q != '\n') {
      char ch = *q++;
      if (ch == '\\' && q < s->end) {
        char e = *q++;
        ch = e == 'n' ? '\n' : e == 't' ? '\t' : e == '0' ? 0 : e;
        if (e == 'x' && q + 1 < s->end && isxdigit((unsigned char)q[0]) &&
            isxdigit((unsigned char)q[1])) {
          char hex[3] = {q[0], q[1], 0};
          ch = (char)strtol(hex, NULL, 16);
          q += 2;
        }
      }
      if (ch == 0) {
        t->kind = T_OP;
        t->op = '0';
      }
      tsl_strbuf_append_n(&s->sbuf, &ch, 1);
    }
    if (q >= s->end || *q != c) {
      t->kind = T_OP;
      t->op = '\'';
    } else {
      q++;
    }
  } else {
    t->kind = T_OP;
    t->op = strchr("()[]{},=.:-", c) ? c : '?';
    q++;
    if (c == '(' || c == '[' || c == '{')
      s->depth++;
    if ((c == ')' || c == ']' || c == '}') && s->depth > 0)
      s->depth--;
  }
  t->len = (size_t)(q - s->p);
  if (t->kind != T_NEWLINE)
    s->col += (uint32_t)(q - s->p);
  s->p = q;
}

static int is_op(const sp *s, char op) {
  return s->cur.kind == T_OP && s->cur.op == op;
}
static int is_name(const sp *s, const char *n) {
  return s->cur.kind == T_NAME && s->cur.len == strlen(n) &&
         memcmp(s->cur.start, n, s->cur.len) == 0;
}

static int bad_token(sp *s) {
  tok *t = &s->cur;
  if (t->kind == T_OP && t->op == '\'')
    return syntax_error(s, t, "unterminated string");
  if (t->kind == T_OP && t->op == '0')
    return syntax_error(s, t, "NUL character in a string");
  if (t->kind == T_OP && t->op == '?')
    return syntax_error(s, t, "unexpected '%.*s'", (int)(t->len ? t->len : 1),
                        t->start);
  if (t->kind == T_EOF)
    return syntax_error(s, t, "unexpected end of script");
  if (t->kind == T_NEWLINE)
    return syntax_error(s, t, "unexpected end of line");
  return syntax_error(s, t, "unexpected '%.*s'", (int)t->len, t->start);
}

static int expect(sp *s, char op) {
  if (!is_op(s, op))
    return s->cur.kind == T_OP && strchr("?'0", s->cur.op)
               ? bad_token(s)
               : syntax_error(s, &s->cur, "expected '%c'", op);
  lex(s);
  return TSL_OK;
}

/* ---- variables ---------------------------------------------------------------- */

static tsl_sch_value *lookup(sp *s, tsl_str name) {
  return tsl_map_get(&s->vars, name);
}

static void assign(sp *s, tsl_str name, tsl_sch_value v) {
  tsl_sch_value *x = lookup(s, name);
  if (!x) {
    x = TSL_NEW(s->sch->arena, tsl_sch_value);
    tsl_map_put(&s->vars, name, x);
  }
  *x = v;
}

/* ---- expressions ------------------------------------------------------------ */

static int parse_expr(sp *s, tsl_sch_value *out);

static int parse_seq(sp *s, char close, tsl_sch_value *out, int *had_comma) {
  tsl_vec items;
  tsl_vec_init(&items, sizeof(tsl_sch_value), s->sch->arena);
  tsl_vec_reserve(&items, 8); /* never a NULL list */
  *had_comma = 0;
  while (!is_op(s, close)) {
    tsl_sch_value v;
    int rc = parse_expr(s, &v);
    if (rc)
      return rc;
    TSL_VEC_PUSH(&items, tsl_sch_value, v);
    if (!is_op(s, ','))
      break;
    *had_comma = 1;
    lex(s);
  }
  int rc = expect(s, close);
  if (rc)
    return rc;
  *out = tsl_sv_list(items.len, items.data);
  return TSL_OK;
}

static int call_method(sp *s, tsl_sch_value *out) {
  tok name = s->cur;
  if (name.kind != T_NAME)
    return syntax_error(s, &name, "expected a method name after 'sch.'");
  char mname[128];
  snprintf(mname, sizeof mname, "%.*s", (int)name.len, name.start);
  lex(s);
  int rc = expect(s, '(');
  if (rc)
    return rc;
  tsl_vec args;
  tsl_vec_init(&args, sizeof(tsl_sch_arg), s->sch->arena);
  tsl_vec_reserve(&args, 8);
  int seen_kw = 0;
  while (!is_op(s, ')')) {
    tsl_sch_arg *a = tsl_vec_push(&args); /* zeroed: positional */
    tok at = s->cur;
    if (s->cur.kind == T_NAME) {
      /* NAME '=' is a keyword argument */
      const char *save_p = s->p;
      uint32_t save_line = s->line, save_col = s->col;
      int save_depth = s->depth;
      lex(s);
      if (is_op(s, '=')) {
        a->name = tsl_intern_n(s->sch->ctx, at.start, at.len);
        seen_kw = 1;
        lex(s);
      } else {
        s->p = save_p;
        s->line = save_line;
        s->col = save_col;
        s->depth = save_depth;
        s->cur = at;
      }
    }
    if (!a->name && seen_kw)
      return syntax_error(s, &at, "positional argument follows keyword argument");
    if ((rc = parse_expr(s, &a->value)))
      return rc;
    if (!is_op(s, ','))
      break;
    lex(s);
  }
  if ((rc = expect(s, ')')))
    return rc;
  const tsl_sch_rv *outs;
  uint32_t n_outs;
  rc = tsl_sch_call(s->sch, mname, args.len, args.data, &outs, &n_outs, s->diag);
  if (rc) {
    sch_diag_prefix(s->diag, "%s:%u: error: ", s->file, name.line);
    return rc;
  }
  const sch_inst *inst = sch_inst_find(mname);
  const tsl_sch_inst_kind *k = &inst->pub;
  if (inst->untraced) {
    /* an untraced value (fork_seed, get...) is a plain int to the script,
     * so the trace never refers to a handle it did not record */
    *out = n_outs ? tsl_sv_int(tsl_schedule_rv_value(s->sch, outs[0])) : tsl_sv_none();
  } else if (k->returns_list) {
    tsl_sch_value *items = TSL_NEW_ARRAY(s->sch->arena, tsl_sch_value, n_outs + 1);
    for (uint32_t i = 0; i < n_outs; i++)
      items[i] = tsl_sv_rv(outs[i]);
    *out = tsl_sv_list(n_outs, items);
  } else {
    *out = n_outs ? tsl_sv_rv(outs[0]) : tsl_sv_none();
  }
  return TSL_OK;
}

static int parse_int_opt(sp *s, int64_t *v, int *present) {
  int neg = 0;
  *present = 0;
  if (is_op(s, '-')) {
    neg = 1;
    lex(s);
  }
  if (s->cur.kind == T_INT) {
    *v = neg ? -s->cur.i : s->cur.i;
    *present = 1;
    lex(s);
    return TSL_OK;
  }
  if (neg)
    return syntax_error(s, &s->cur, "expected an integer index");
  return TSL_OK;
}

static int parse_index(sp *s, tsl_sch_value *val, const tok *at) {
  tok open = s->cur;
  lex(s);
  int64_t a = 0, b = 0;
  int has_a, has_b = 0, slice = 0, rc;
  if ((rc = parse_int_opt(s, &a, &has_a)))
    return rc;
  if (is_op(s, ':')) {
    slice = 1;
    lex(s);
    if ((rc = parse_int_opt(s, &b, &has_b)))
      return rc;
  } else if (!has_a) {
    return syntax_error(s, &s->cur, "expected an integer index");
  }
  if ((rc = expect(s, ']')))
    return rc;
  if (val->kind != TSL_SV_LIST && val->kind != TSL_SV_TUPLE)
    return syntax_error(s, &open, "only lists and tuples can be indexed (the "
                                  "value at column %u is neither)", at->col);
  int64_t n = val->n;
  if (!slice) {
    int64_t k = a < 0 ? a + n : a;
    if (k < 0 || k >= n)
      return syntax_error(s, &open, "index %lld out of range for a list of %lld",
                          (long long)a, (long long)n);
    *val = val->u.items[k];
    return TSL_OK;
  }
  uint32_t kind = val->kind;
  int64_t lo = has_a ? (a < 0 ? a + n : a) : 0, hi = has_b ? (b < 0 ? b + n : b) : n;
  lo = lo < 0 ? 0 : lo > n ? n : lo;
  hi = hi < lo ? lo : hi > n ? n : hi;
  *val = tsl_sv_list((uint32_t)(hi - lo), val->u.items + lo);
  val->kind = kind;
  return TSL_OK;
}

/* ---- TVMScript expressions and lambdas ----------------------------------- */

/* Script names holding an int or a sampled value, for T. expressions
 * (their values) and lambda bodies (a sampled value's variable, so that
 * the trace names it). */
static int lookup_int(void *ud, const char *name, size_t len, int64_t *value,
                      const tsl_var **var) {
  sp *s = ud;
  const tsl_sch_value *v = lookup(s, tsl_intern_n(s->sch->ctx, name, len));
  if (!v)
    return 0;
  if (v->kind == TSL_SV_INT) {
    *value = v->u.i;
    *var = NULL;
    return 1;
  }
  if (v->kind == TSL_SV_RV && tsl_schedule_rv_kind(s->sch, v->u.rv) == TSL_RV_EXPR) {
    *value = tsl_schedule_rv_value(s->sch, v->u.rv);
    *var = tsl_schedule_rv_var(s->sch, v->u.rv);
    return 1;
  }
  return 0;
}

/* Read the text from the current token to the end of its expression with
 * the TVMScript parser (as a lambda or as one expression), then continue
 * lexing after it. */
static int parse_tir(sp *s, int is_lambda, tsl_sch_value *out) {
  const char *start = s->cur.start;
  size_t n = sch_value_span(start, s->end);
  if (is_lambda) { /* `lambda i, j: body`: the commas of the parameters */
    const char *q = start;
    while (q < s->end && *q != ':' && *q != '\n' && *q != ')' && *q != ']')
      q++;
    if (q < s->end && *q == ':')
      n = (size_t)(q + 1 - start) + sch_value_span(q + 1, s->end);
  }
  sch_name_lookup lk = {lookup_int, s};
  int rc = is_lambda ? sch_parse_lambda_text(s->sch->arena, s->file, s->cur.line,
                                             s->cur.col, start, n, &lk, out, s->diag)
                     : sch_parse_expr_text(s->sch->arena, s->file, s->cur.line,
                                           s->cur.col, start, n, &lk, out, s->diag);
  if (rc)
    return rc;
  uint32_t line = s->cur.line, col = s->cur.col;
  for (const char *q = start; q < start + n; q++) {
    if (*q == '\n') {
      line++;
      col = 1;
    } else {
      col++;
    }
  }
  s->p = start + n;
  s->line = line;
  s->col = col;
  lex(s);
  return TSL_OK;
}

/* Is the expression starting here TVMScript: does it mention `T.` or use
 * an arithmetic or comparison operator outside brackets? */
static int is_tir_expr(const sp *s) {
  const char *p = s->cur.start;
  size_t n = sch_value_span(p, s->end);
  int depth = 0;
  for (size_t i = 0; i < n; i++) {
    char ch = p[i];
    if (ch == '"' || ch == '\'') {
      i++;
      while (i < n && p[i] != ch)
        i += p[i] == '\\' ? 2 : 1;
      continue;
    }
    if (ch == '(' || ch == '[' || ch == '{')
      depth++;
    else if (ch == ')' || ch == ']' || ch == '}')
      depth--;
    else if (depth == 0 && i > 0 && strchr("+-*/%<>", ch))
      return 1;
    if (ch == 'T' && i + 1 < n && p[i + 1] == '.' &&
        (i == 0 || !(isalnum((unsigned char)p[i - 1]) || p[i - 1] == '_' || p[i - 1] == '.')))
      return 1;
  }
  return 0;
}

static int parse_dict(sp *s, tsl_sch_value *out) {
  uint32_t n = 0;
  tsl_vec items;
  tsl_vec_init(&items, sizeof(tsl_sch_value), s->sch->arena);
  lex(s);
  while (!is_op(s, '}')) {
    tok at = s->cur;
    tsl_sch_value *kv = tsl_vec_push(&items);
    int rc = parse_expr(s, kv);
    if (rc)
      return rc;
    if (kv->kind != TSL_SV_STR)
      return syntax_error(s, &at, "dictionary keys must be strings");
    if ((rc = expect(s, ':')))
      return rc;
    tsl_sch_value val;
    if ((rc = parse_expr(s, &val)))
      return rc;
    TSL_VEC_PUSH(&items, tsl_sch_value, val);
    n++;
    if (!is_op(s, ','))
      break;
    lex(s);
  }
  int rc = expect(s, '}');
  if (rc)
    return rc;
  *out = tsl_sv_dict(n, TSL_VEC_DATA(&items, tsl_sch_value));
  return TSL_OK;
}

static int parse_atom(sp *s, tsl_sch_value *out) {
  tok t = s->cur;
  int rc, comma;
  switch (t.kind) {
  case T_INT:
    *out = tsl_sv_int(t.i);
    lex(s);
    return TSL_OK;
  case T_FLOAT:
    *out = tsl_sv_float(t.f);
    lex(s);
    return TSL_OK;
  case T_STR:
    *out = tsl_sv_str(tsl_intern_n(s->sch->ctx, s->sbuf.data, s->sbuf.len));
    lex(s);
    return TSL_OK;
  case T_NAME:
    if (is_name(s, "True") || is_name(s, "False")) {
      *out = tsl_sv_bool(is_name(s, "True"));
      lex(s);
      return TSL_OK;
    }
    if (is_name(s, "None")) {
      *out = tsl_sv_none();
      lex(s);
      return TSL_OK;
    }
    if (is_name(s, "lambda"))
      return parse_tir(s, 1, out);
    if (is_name(s, "sch")) {
      lex(s);
      if ((rc = expect(s, '.')))
        return rc;
      return call_method(s, out);
    }
    {
      const tsl_sch_value *v = lookup(s, tsl_intern_n(s->sch->ctx, t.start, t.len));
      if (!v)
        return syntax_error(s, &t, "name '%.*s' is not defined", (int)t.len,
                            t.start);
      *out = *v;
      lex(s);
      return TSL_OK;
    }
  case T_OP:
    if (t.op == '-') {
      lex(s);
      if ((rc = parse_atom(s, out)))
        return rc;
      if (out->kind == TSL_SV_INT)
        out->u.i = -out->u.i;
      else if (out->kind == TSL_SV_FLOAT)
        out->u.f = -out->u.f;
      else
        return syntax_error(s, &t, "unary '-' needs a number");
      return TSL_OK;
    }
    if (t.op == '[' || t.op == '(') {
      lex(s);
      if ((rc = parse_seq(s, t.op == '[' ? ']' : ')', out, &comma)))
        return rc;
      if (t.op == '(' && out->n == 1 && !comma)
        *out = out->u.items[0]; /* parenthesised expression */
      else if (t.op == '(')
        out->kind = TSL_SV_TUPLE;
      return TSL_OK;
    }
    if (t.op == '{')
      return parse_dict(s, out);
    return bad_token(s);
  default:
    return bad_token(s);
  }
}

static int parse_expr(sp *s, tsl_sch_value *out) {
  tok at = s->cur;
  if (!(s->cur.kind == T_OP && strchr("([{", s->cur.op)) && !is_name(s, "lambda") &&
      !is_name(s, "sch") && is_tir_expr(s))
    return parse_tir(s, 0, out);
  int rc = parse_atom(s, out);
  while (rc == TSL_OK && is_op(s, '['))
    rc = parse_index(s, out, &at);
  return rc;
}

/* ---- statements --------------------------------------------------------------- */

static int end_of_stmt(sp *s) {
  if (s->cur.kind == T_NEWLINE) {
    lex(s);
    return TSL_OK;
  }
  if (s->cur.kind == T_EOF)
    return TSL_OK;
  if (s->cur.kind == T_OP && strchr("?'0", s->cur.op))
    return bad_token(s);
  return syntax_error(s, &s->cur, "expected the end of the statement, got '%.*s'",
                      (int)(s->cur.len ? s->cur.len : 1), s->cur.start);
}

/* Targets: NAME[, NAME]*[,] possibly in ( ) or [ ]; the scanner decides
 * whether the statement is an assignment by looking for '=' at depth 0. */
static int is_assignment(const sp *s) {
  int depth = 0;
  for (const char *q = s->cur.start; q < s->end; q++) {
    if (*q == '#' || (*q == '\n' && depth == 0))
      return 0;
    if (*q == '"' || *q == '\'') {
      char c = *q++;
      while (q < s->end && *q != c && *q != '\n')
        q += (*q == '\\') ? 2 : 1;
      continue;
    }
    if (*q == '(' || *q == '[')
      depth++;
    else if (*q == ')' || *q == ']')
      depth--;
    else if (*q == '=' && depth == 0)
      return 1;
  }
  return 0;
}

static int parse_stmt(sp *s) {
  tok names[256];
  uint32_t n = 0;
  int tuple = 0, rc;
  s->stmt_line = s->cur.line;
  if (is_assignment(s)) {
    char close = 0;
    if (is_op(s, '(') || is_op(s, '[')) {
      close = s->cur.op == '(' ? ')' : ']';
      tuple = 1;
      lex(s);
    }
    for (;;) {
      if (s->cur.kind != T_NAME || is_name(s, "sch") || is_name(s, "None") ||
          is_name(s, "True") || is_name(s, "False"))
        return syntax_error(s, &s->cur, "expected a variable name to assign to");
      if (n == 256)
        return syntax_error(s, &s->cur, "too many names (at most 256)");
      names[n++] = s->cur;
      lex(s);
      if (!is_op(s, ','))
        break;
      tuple = 1;
      lex(s);
      if (close ? is_op(s, close) : is_op(s, '='))
        break;
    }
    if (close && (rc = expect(s, close)))
      return rc;
    if ((rc = expect(s, '=')))
      return rc;
  }
  tok at = s->cur;
  tsl_sch_value v;
  if ((rc = parse_expr(s, &v)))
    return rc;
  if ((rc = end_of_stmt(s)))
    return rc;
  if (!n)
    return TSL_OK;
  if (!tuple) {
    assign(s, tsl_intern_n(s->sch->ctx, names[0].start, names[0].len), v);
    return TSL_OK;
  }
  if (v.kind != TSL_SV_LIST && v.kind != TSL_SV_TUPLE)
    return syntax_error(s, &at, "cannot unpack %s into %u names",
                        v.kind == TSL_SV_NONE ? "None" : "a single value", n);
  if (v.n != n)
    return syntax_error(s, &at, "the right side has %u values but %u names "
                                "are unpacked",
                        v.n, n);
  for (uint32_t i = 0; i < n; i++)
    assign(s, tsl_intern_n(s->sch->ctx, names[i].start, names[i].len),
           v.u.items[i]);
  return TSL_OK;
}

/* The header TVM prints a trace under (str(sch.trace)): `def
 * apply_trace(sch: tir.Schedule) -> None:`; any name, the parameter `sch`,
 * its annotation and the return annotation optional. */
static int parse_def(sp *s) {
  int rc;
  lex(s);
  if (s->cur.kind != T_NAME)
    return syntax_error(s, &s->cur, "expected the function's name after 'def'");
  lex(s);
  if ((rc = expect(s, '(')))
    return rc;
  if (!is_name(s, "sch"))
    return syntax_error(s, &s->cur, "the function's parameter must be 'sch', as TVM prints a "
                                    "trace: def apply_trace(sch: tir.Schedule) -> None:");
  lex(s);
  if (is_op(s, ':')) { /* the annotation: a dotted name */
    do {
      lex(s);
      if (s->cur.kind != T_NAME)
        return syntax_error(s, &s->cur, "expected a type such as tir.Schedule");
      lex(s);
    } while (is_op(s, '.'));
  }
  if ((rc = expect(s, ')')))
    return rc;
  if (is_op(s, '-')) {
    lex(s);
    if (!(s->cur.kind == T_OP && s->cur.len == 1 && s->cur.start[0] == '>'))
      return syntax_error(s, &s->cur, "expected '->'");
    lex(s);
    if (!is_name(s, "None"))
      return syntax_error(s, &s->cur, "a schedule function returns None");
    lex(s);
  }
  if ((rc = expect(s, ':')))
    return rc;
  if (s->cur.kind != T_NEWLINE && s->cur.kind != T_EOF)
    return syntax_error(s, &s->cur, "expected the end of the line after ':' (the body goes "
                                    "on the lines below, indented)");
  return TSL_OK;
}

int tsl_script_run(tsl_schedule *sch, const char *filename, const char *src,
                   size_t len, tsl_diag *diag) {
  sp s = {.sch = sch, .file = filename ? filename : "<script>", .src = src,
          .end = src + len, .p = src, .line = 1, .col = 1, .diag = diag};
  tsl_strbuf_init(&s.sbuf);
  int rc = TSL_OK;
  uint32_t n_stmts = 0, def_col = 0; /* def_col: the def's column, 0 without one */
  lex(&s);
  while (rc == TSL_OK && s.cur.kind != T_EOF) {
    if (s.cur.kind == T_NEWLINE) {
      lex(&s);
      continue;
    }
    if (is_name(&s, "def")) {
      uint32_t col = s.cur.col;
      if (def_col || n_stmts)
        rc = syntax_error(&s, &s.cur, "one function per script, before any statement (TVM's "
                                      "printed trace: def apply_trace(sch) and its body)");
      else if (!(rc = parse_def(&s)))
        def_col = col;
      continue;
    }
    if (def_col && s.cur.col <= def_col) {
      rc = syntax_error(&s, &s.cur, "expected an indented statement (the body of the function "
                                    "above); a statement after it is not part of the schedule");
    } else if (is_name(&s, "pass")) { /* TVM prints an empty trace's body so */
      lex(&s);
      rc = end_of_stmt(&s);
    } else {
      rc = parse_stmt(&s);
    }
    n_stmts++;
  }
  tsl_map_free(&s.vars);
  tsl_strbuf_free(&s.sbuf);
  return rc;
}
