/*
 * TVMScript syntax stage: tokens -> a Python syntax tree (anode / astmt).
 *
 * Recursive descent for statements, precedence climbing for expressions
 * (Python's operator precedence). Recursion is bounded: expressions and
 * statements nested too deeply are errors, and so are syntax trees taller
 * than PS_AST_HEIGHT (long left-deep chains), so later stages may recurse.
 * Python constructs TVMScript never uses (while, lambda, comprehensions,
 * ...) are rejected here with a message naming what is supported.
 */
#include "parser_internal.h"

#include <stdio.h>
#include <string.h>

static const char *const keywords[] = {
    "False", "None",   "True",   "and",      "as",     "assert", "async",
    "await", "break",  "class",  "continue", "def",    "del",    "elif",
    "else",  "except", "finally", "for",     "from",   "global", "if",
    "import", "in",    "is",     "lambda",   "nonlocal", "not",  "or",
    "pass",  "raise",  "return", "try",      "while",  "with",   "yield",
    NULL};

static const ptok *cur(pstate *ps) {
  const ptok *t = &ps->toks[ps->pos];
  if (t->kind == TK_ERROR) {
    ps_note(ps, "%s", ps->lex_note);
    ps_error_at(ps, TSL_EPARSE, t->off, "%s", ps->lex_msg);
  }
  return t;
}

static void advance(pstate *ps) {
  if (ps->toks[ps->pos].kind != TK_EOF && ps->toks[ps->pos].kind != TK_ERROR)
    ps->pos++;
}

static int tok_is_name(pstate *ps, const ptok *t, const char *s) {
  size_t n = strlen(s);
  return t->kind == TK_NAME && t->len == n && memcmp(ps->src + t->off, s, n) == 0;
}

static int at_kw(pstate *ps, const char *kw) { return tok_is_name(ps, cur(ps), kw); }

static int at_op(pstate *ps, int op) {
  const ptok *t = cur(ps);
  return t->kind == TK_OP && t->op == op;
}

static int accept_op(pstate *ps, int op) {
  if (at_op(ps, op)) {
    advance(ps);
    return 1;
  }
  return 0;
}

static int is_keyword(pstate *ps, const ptok *t) {
  if (t->kind != TK_NAME)
    return 0;
  for (int i = 0; keywords[i]; i++)
    if (tok_is_name(ps, t, keywords[i]))
      return 1;
  return 0;
}

/* Human description of a token for messages. */
static void describe(pstate *ps, const ptok *t, char *buf, size_t cap) {
  switch (t->kind) {
  case TK_EOF: snprintf(buf, cap, "end of file"); break;
  case TK_NEWLINE: snprintf(buf, cap, "end of line"); break;
  case TK_INDENT: snprintf(buf, cap, "an indent"); break;
  case TK_DEDENT: snprintf(buf, cap, "end of the indented block"); break;
  case TK_STRING: snprintf(buf, cap, "a string"); break;
  default:
    snprintf(buf, cap, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), ps->src + t->off);
  }
}

/* Where to point for "expected X": after the previous token when the
 * current one is an end of line. */
static uint32_t expect_off(pstate *ps) {
  const ptok *t = &ps->toks[ps->pos];
  if ((t->kind == TK_NEWLINE || t->kind == TK_EOF || t->kind == TK_DEDENT ||
       t->kind == TK_INDENT) && ps->pos > 0)
    return ps_tok_end(ps, ps->pos - 1);
  return t->off;
}

static _Noreturn void expected(pstate *ps, const char *what, const char *note) {
  char d[64];
  describe(ps, cur(ps), d, sizeof d);
  ps_note(ps, "%s", note);
  ps_error_at(ps, TSL_EPARSE, expect_off(ps), "expected %s, found %s", what, d);
}

static void expect_op(pstate *ps, int op, const char *note) {
  if (accept_op(ps, op))
    return;
  char what[16];
  snprintf(what, sizeof what, "'%s'", ps_op_text(op));
  expected(ps, what, note);
}

static anode *mk(pstate *ps, int kind, uint32_t tok) {
  anode *n = ps_alloc(ps, sizeof *n);
  n->kind = (uint8_t)kind;
  n->tok = tok;
  n->optok = tok;
  n->end_tok = ps->pos > 0 ? ps->pos - 1 : 0;
  n->depth = 1;
  return n;
}

static void set_depth(pstate *ps, anode *n) {
  int d = 0;
  const anode *kids[3] = {n->a, n->b, n->c};
  for (int i = 0; i < 3; i++)
    if (kids[i] && kids[i]->depth > d)
      d = kids[i]->depth;
  for (uint32_t i = 0; i < n->n; i++)
    if (n->items[i] && n->items[i]->depth > d)
      d = n->items[i]->depth;
  for (uint32_t i = 0; i < n->nkw; i++)
    if (n->kwval[i]->depth > d)
      d = n->kwval[i]->depth;
  if (d + 1 > PS_AST_HEIGHT) {
    ps_note(ps, "split it into smaller expressions (at most %d levels)",
            PS_AST_HEIGHT);
    ps_error_at(ps, TSL_EPARSE, ps_node_off(ps, n), "expression is nested too deeply");
  }
  n->depth = (uint16_t)(d + 1);
  n->end_tok = ps->pos > 0 ? ps->pos - 1 : 0;
}

static void enter(pstate *ps, int *depth, const char *what) {
  int limit = depth == &ps->depth ? PS_SYNTAX_DEPTH : PS_MAX_INDENT;
  if (++*depth > limit) {
    ps_note(ps, "at most %d nested levels are allowed", limit);
    ps_error_at(ps, TSL_EPARSE, cur(ps)->off, "%s nested too deeply", what);
  }
}

/* ---- expressions ---- */

static anode *parse_test(pstate *ps);
static anode *parse_prec(pstate *ps, int min_prec);

typedef struct nvec {
  anode **v;
  uint32_t n, cap;
} nvec;

static void nvec_push(pstate *ps, nvec *v, anode *x) {
  v->v = ps_grow(ps, v->v, &v->cap, v->n + 1, sizeof *v->v);
  v->v[v->n++] = x;
}

static void unsupported_expr(pstate *ps, const char *what, const char *note) {
  ps_note(ps, "%s", note);
  ps_error_at(ps, TSL_EPARSE, cur(ps)->off, "%s not supported in TVMScript", what);
}

/* Arguments of a call; ps->pos is after '('. */
static void parse_call_args(pstate *ps, anode *call) {
  nvec pos = {0}, kw = {0};
  const char **kwn = NULL;
  uint32_t *kwl = NULL, *kwt = NULL, capn = 0, capl = 0, capt = 0;
  while (!at_op(ps, OP_RPAREN)) {
    if (at_op(ps, OP_STAR) || at_op(ps, OP_POW))
      unsupported_expr(ps, "'*' and '**' arguments are",
                       "pass each argument explicitly");
    const ptok *t = cur(ps);
    if (t->kind == TK_NAME && ps->toks[ps->pos + 1].kind == TK_OP &&
        ps->toks[ps->pos + 1].op == OP_ASSIGN) {
      uint32_t kt = ps->pos;
      if (is_keyword(ps, t))
        expected(ps, "an argument", "a keyword argument name cannot be a Python keyword");
      advance(ps);
      advance(ps);
      for (uint32_t i = 0; i < kw.n; i++) {
        if (kwl[i] == t->len && memcmp(kwn[i], ps->src + t->off, t->len) == 0) {
          ps_note(ps, "give each keyword argument once");
          ps_error_at(ps, TSL_EPARSE, t->off, "keyword argument '%.*s' repeated",
                      (int)t->len, ps->src + t->off);
        }
      }
      kwn = ps_grow(ps, kwn, &capn, kw.n + 1, sizeof *kwn);
      kwl = ps_grow(ps, kwl, &capl, kw.n + 1, sizeof *kwl);
      kwt = ps_grow(ps, kwt, &capt, kw.n + 1, sizeof *kwt);
      kwn[kw.n] = ps->src + t->off;
      kwl[kw.n] = t->len;
      kwt[kw.n] = kt;
      nvec_push(ps, &kw, parse_test(ps));
    } else {
      if (kw.n > 0) {
        ps_note(ps, "put positional arguments before keyword arguments");
        ps_error_at(ps, TSL_EPARSE, t->off,
                    "positional argument follows keyword argument");
      }
      anode *a = parse_test(ps);
      if (at_kw(ps, "for"))
        unsupported_expr(ps, "generator expressions are",
                         "write the elements out explicitly");
      nvec_push(ps, &pos, a);
    }
    if (!accept_op(ps, OP_COMMA))
      break;
  }
  expect_op(ps, OP_RPAREN, "separate arguments with ',' and close the call with ')'");
  call->items = pos.v;
  call->n = pos.n;
  call->kwname = kwn;
  call->kwlen = kwl;
  call->kwtok = kwt;
  call->kwval = kw.v;
  call->nkw = kw.n;
}

static anode *parse_subscript_item(pstate *ps) {
  anode *lo = NULL, *hi = NULL, *step = NULL;
  uint32_t t0 = ps->pos;
  if (!at_op(ps, OP_COLON))
    lo = parse_test(ps);
  if (!at_op(ps, OP_COLON))
    return lo;
  uint32_t ct = ps->pos;
  advance(ps);
  if (!at_op(ps, OP_COLON) && !at_op(ps, OP_COMMA) && !at_op(ps, OP_RBRACK))
    hi = parse_test(ps);
  if (accept_op(ps, OP_COLON)) {
    if (!at_op(ps, OP_COMMA) && !at_op(ps, OP_RBRACK))
      step = parse_test(ps);
  }
  anode *s = mk(ps, AX_SLICE, t0);
  s->optok = ct;
  s->a = lo;
  s->b = hi;
  s->c = step;
  set_depth(ps, s);
  return s;
}

static anode *parse_atom(pstate *ps) {
  const ptok *t = cur(ps);
  uint32_t t0 = ps->pos;
  switch (t->kind) {
  case TK_INT: {
    anode *n = mk(ps, AX_INT, t0);
    n->ival = t->ival;
    n->bad_int = t->bad_int;
    advance(ps);
    n->end_tok = t0;
    return n;
  }
  case TK_FLOAT: {
    anode *n = mk(ps, AX_FLOAT, t0);
    n->fval = t->fval;
    advance(ps);
    n->end_tok = t0;
    return n;
  }
  case TK_STRING: {
    anode *n = mk(ps, AX_STR, t0);
    n->s = t->sval;
    n->slen = t->slen;
    advance(ps);
    while (cur(ps)->kind == TK_STRING) { /* implicit concatenation */
      const ptok *u = cur(ps);
      char *s = ps_alloc(ps, (size_t)n->slen + u->slen + 1);
      memcpy(s, n->s, n->slen);
      memcpy(s + n->slen, u->sval, u->slen);
      s[n->slen + u->slen] = '\0';
      n->s = s;
      n->slen += u->slen;
      advance(ps);
    }
    n->end_tok = ps->pos - 1;
    return n;
  }
  case TK_NAME: {
    if (tok_is_name(ps, t, "True") || tok_is_name(ps, t, "False") ||
        tok_is_name(ps, t, "None")) {
      anode *n = mk(ps, tok_is_name(ps, t, "True")    ? AX_TRUE
                        : tok_is_name(ps, t, "False") ? AX_FALSE
                                                      : AX_NONE,
                    t0);
      advance(ps);
      n->end_tok = t0;
      return n;
    }
    if (tok_is_name(ps, t, "lambda"))
      unsupported_expr(ps, "lambda expressions are", "write the expression inline");
    if (tok_is_name(ps, t, "yield") || tok_is_name(ps, t, "await"))
      unsupported_expr(ps, "'yield' and 'await' are", "TVMScript functions are not generators");
    if (is_keyword(ps, t)) {
      char d[64];
      describe(ps, t, d, sizeof d);
      ps_note(ps, "write a name, a number, a string or a bracketed expression here");
      ps_error_at(ps, TSL_EPARSE, t->off, "expected an expression, found keyword %s", d);
    }
    anode *n = mk(ps, AX_NAME, t0);
    n->s = ps->src + t->off;
    n->slen = t->len;
    advance(ps);
    n->end_tok = t0;
    return n;
  }
  case TK_OP:
    if (t->op == OP_LPAREN) {
      advance(ps);
      if (accept_op(ps, OP_RPAREN)) {
        anode *n = mk(ps, AX_TUPLE, t0);
        n->paren = 1;
        return n;
      }
      anode *first = parse_test(ps);
      if (at_kw(ps, "for"))
        unsupported_expr(ps, "generator expressions are", "write the elements out explicitly");
      if (!at_op(ps, OP_COMMA)) {
        expect_op(ps, OP_RPAREN, "close the parenthesis with ')'");
        first->paren = 1; /* parenthesised expression */
        return first;
      }
      nvec v = {0};
      nvec_push(ps, &v, first);
      while (accept_op(ps, OP_COMMA)) {
        if (at_op(ps, OP_RPAREN))
          break;
        nvec_push(ps, &v, parse_test(ps));
      }
      expect_op(ps, OP_RPAREN, "separate tuple elements with ',' and close it with ')'");
      anode *n = mk(ps, AX_TUPLE, t0);
      n->paren = 1;
      n->items = v.v;
      n->n = v.n;
      set_depth(ps, n);
      return n;
    }
    if (t->op == OP_LBRACK) {
      advance(ps);
      nvec v = {0};
      while (!at_op(ps, OP_RBRACK)) {
        nvec_push(ps, &v, parse_test(ps));
        if (at_kw(ps, "for"))
          unsupported_expr(ps, "list comprehensions are", "write the elements out explicitly");
        if (!accept_op(ps, OP_COMMA))
          break;
      }
      expect_op(ps, OP_RBRACK, "separate list elements with ',' and close it with ']'");
      anode *n = mk(ps, AX_LIST, t0);
      n->items = v.v;
      n->n = v.n;
      set_depth(ps, n);
      return n;
    }
    if (t->op == OP_LBRACE) {
      advance(ps);
      nvec v = {0};
      while (!at_op(ps, OP_RBRACE)) {
        nvec_push(ps, &v, parse_test(ps));
        if (!at_op(ps, OP_COLON)) {
          if (at_kw(ps, "for"))
            unsupported_expr(ps, "dict comprehensions are", "write the entries out explicitly");
          expected(ps, "':'", "dictionary entries are written {\"key\": value, ...}; sets are not supported");
        }
        advance(ps);
        nvec_push(ps, &v, parse_test(ps));
        if (!accept_op(ps, OP_COMMA))
          break;
      }
      expect_op(ps, OP_RBRACE, "separate entries with ',' and close the dictionary with '}'");
      anode *n = mk(ps, AX_DICT, t0);
      n->items = v.v;
      n->n = v.n;
      set_depth(ps, n);
      return n;
    }
    break;
  default:
    break;
  }
  if (t->kind == TK_OP && t->op == OP_DOT && ps->toks[ps->pos + 1].kind == TK_OP &&
      ps->toks[ps->pos + 1].op == OP_DOT)
    unsupported_expr(ps, "'...' is", "write a value here");
  expected(ps, "an expression",
           "write a name, a number, a string or a bracketed expression here");
}

static anode *parse_primary(pstate *ps) {
  uint32_t t0 = ps->pos;
  anode *n = parse_atom(ps);
  for (;;) {
    if (at_op(ps, OP_DOT)) {
      advance(ps);
      const ptok *t = cur(ps);
      if (t->kind != TK_NAME)
        expected(ps, "an attribute name after '.'", "write a name, as in T.float32");
      anode *a = mk(ps, AX_ATTR, t0);
      a->optok = ps->pos;
      a->a = n;
      a->s = ps->src + t->off;
      a->slen = t->len;
      advance(ps);
      set_depth(ps, a);
      n = a;
    } else if (at_op(ps, OP_LPAREN)) {
      anode *c = mk(ps, AX_CALL, t0);
      c->optok = ps->pos;
      advance(ps);
      c->a = n;
      parse_call_args(ps, c);
      set_depth(ps, c);
      n = c;
    } else if (at_op(ps, OP_LBRACK)) {
      anode *s = mk(ps, AX_SUBSCRIPT, t0);
      s->optok = ps->pos;
      advance(ps);
      s->a = n;
      nvec v = {0};
      while (!at_op(ps, OP_RBRACK)) {
        anode *it = parse_subscript_item(ps);
        /* A[(i, j)] is A[i, j] */
        if (it->kind == AX_TUPLE && it->paren && v.n == 0 && at_op(ps, OP_RBRACK)) {
          for (uint32_t k = 0; k < it->n; k++)
            nvec_push(ps, &v, it->items[k]);
          s->paren = 1;
          break;
        }
        nvec_push(ps, &v, it);
        if (!accept_op(ps, OP_COMMA))
          break;
      }
      if (v.n == 0 && !s->paren)
        expected(ps, "an index", "index a buffer as A[i, j]");
      expect_op(ps, OP_RBRACK, "separate indices with ',' and close them with ']'");
      s->items = v.v;
      s->n = v.n;
      set_depth(ps, s);
      n = s;
    } else {
      return n;
    }
  }
}

/* Binary operator at the current token: precedence, or 0. */
static int binop_prec(pstate *ps, int *op, int *is_cmp) {
  const ptok *t = cur(ps);
  *is_cmp = 0;
  if (t->kind == TK_NAME) {
    if (tok_is_name(ps, t, "or")) {
      *op = 1;
      return 1;
    }
    if (tok_is_name(ps, t, "and")) {
      *op = 0;
      return 2;
    }
    if (tok_is_name(ps, t, "in") || tok_is_name(ps, t, "is") ||
        (tok_is_name(ps, t, "not") && tok_is_name(ps, &ps->toks[ps->pos + 1], "in"))) {
      *op = -1;
      *is_cmp = 1;
      return 4;
    }
    if (tok_is_name(ps, t, "if")) {
      *op = -2;
      return 0;
    }
    return 0;
  }
  if (t->kind != TK_OP)
    return 0;
  *op = t->op;
  switch (t->op) {
  case OP_LT: case OP_GT: case OP_LE: case OP_GE: case OP_EQ: case OP_NE:
    *is_cmp = 1;
    return 4;
  case OP_PIPE: return 5;
  case OP_CARET: return 6;
  case OP_AMP: return 7;
  case OP_LSHIFT: case OP_RSHIFT: return 8;
  case OP_PLUS: case OP_MINUS: return 9;
  case OP_STAR: case OP_SLASH: case OP_DSLASH: case OP_PERCENT: case OP_AT:
    return 10;
  case OP_POW: return 12;
  default: return 0;
  }
}

static anode *parse_prefix(pstate *ps) {
  uint32_t t0 = ps->pos;
  if (at_kw(ps, "not")) {
    advance(ps);
    anode *n = mk(ps, AX_NOT, t0);
    n->a = parse_prec(ps, 4);
    set_depth(ps, n);
    return n;
  }
  if (at_op(ps, OP_MINUS) || at_op(ps, OP_PLUS) || at_op(ps, OP_TILDE)) {
    int op = cur(ps)->op;
    advance(ps);
    anode *n = mk(ps, AX_UNARY, t0);
    n->op = (uint8_t)op;
    n->a = parse_prec(ps, 11);
    set_depth(ps, n);
    return n;
  }
  if (at_op(ps, OP_STAR)) {
    advance(ps);
    anode *n = mk(ps, AX_STARRED, t0);
    n->a = parse_prec(ps, 9);
    set_depth(ps, n);
    return n;
  }
  return parse_primary(ps);
}

static anode *parse_prec(pstate *ps, int min_prec) {
  enter(ps, &ps->depth, "expression");
  anode *left = parse_prefix(ps);
  for (;;) {
    int op = 0, is_cmp = 0;
    int p = binop_prec(ps, &op, &is_cmp);
    if (op == -2 && min_prec <= 1)
      unsupported_expr(ps, "conditional expressions are",
                       "use T.if_then_else(cond, a, b) or T.Select(cond, a, b)");
    if (p == 0 || p < min_prec)
      break;
    uint32_t optok = ps->pos;
    if (op == -1)
      unsupported_expr(ps, "'in', 'not in' and 'is' are",
                       "compare values with ==, !=, <, <=, > or >=");
    if (op == OP_AT)
      unsupported_expr(ps, "the '@' operator is", "write the computation with loops");
    advance(ps);
    anode *right = parse_prec(ps, p == 12 ? 11 : p + 1);
    anode *n;
    if (p == 1 || p == 2) {
      n = mk(ps, AX_BOOLOP, left->tok);
      n->op = (uint8_t)op;
    } else if (is_cmp) {
      n = mk(ps, AX_COMPARE, left->tok);
      n->op = (uint8_t)op;
      n->chained = left->kind == AX_COMPARE && !left->paren;
    } else {
      n = mk(ps, AX_BINOP, left->tok);
      n->op = (uint8_t)op;
    }
    n->optok = optok;
    n->a = left;
    n->b = right;
    set_depth(ps, n);
    left = n;
  }
  ps->depth--;
  return left;
}

static anode *parse_test(pstate *ps) {
  anode *n = parse_prec(ps, 1);
  if (at_op(ps, OP_WALRUS))
    unsupported_expr(ps, "':=' is", "assign on its own line");
  return n;
}

/* A comma-separated list (a tuple without parentheses when commas occur). */
static anode *parse_testlist(pstate *ps, int allow_star) {
  uint32_t t0 = ps->pos;
  anode *first = allow_star ? parse_prec(ps, 1) : parse_test(ps);
  if (!at_op(ps, OP_COMMA))
    return first;
  nvec v = {0};
  nvec_push(ps, &v, first);
  while (accept_op(ps, OP_COMMA)) {
    const ptok *t = cur(ps);
    if (t->kind == TK_NEWLINE || (t->kind == TK_OP && (t->op == OP_ASSIGN || t->op == OP_COLON ||
                                                       t->op == OP_RPAREN || t->op == OP_SEMI)) ||
        tok_is_name(ps, t, "in"))
      break;
    nvec_push(ps, &v, allow_star ? parse_prec(ps, 1) : parse_test(ps));
  }
  anode *n = mk(ps, AX_TUPLE, t0);
  n->items = v.v;
  n->n = v.n;
  set_depth(ps, n);
  return n;
}

/* For-loop targets: names separated by commas, stopping at 'in'. */
static anode *parse_targets(pstate *ps) {
  uint32_t t0 = ps->pos;
  nvec v = {0};
  for (;;) {
    anode *x = parse_prec(ps, 5); /* above comparisons: stops at 'in' */
    nvec_push(ps, &v, x);
    if (!accept_op(ps, OP_COMMA) || at_kw(ps, "in"))
      break;
  }
  if (v.n == 1 && !(ps->pos > 0 && ps->toks[ps->pos - 1].kind == TK_OP &&
                    ps->toks[ps->pos - 1].op == OP_COMMA))
    return v.v[0];
  anode *n = mk(ps, AX_TUPLE, t0);
  n->items = v.v;
  n->n = v.n;
  set_depth(ps, n);
  return n;
}

/* ---- statements ---- */

typedef struct svec {
  astmt **v;
  uint32_t n, cap;
} svec;

static void svec_push(pstate *ps, svec *v, astmt *s) {
  v->v = ps_grow(ps, v->v, &v->cap, v->n + 1, sizeof *v->v);
  v->v[v->n++] = s;
}

static astmt *mks(pstate *ps, int kind, uint32_t tok) {
  astmt *s = ps_alloc(ps, sizeof *s);
  s->kind = (uint8_t)kind;
  s->tok = tok;
  return s;
}

static void parse_stmt(pstate *ps, svec *out);

static void check_target(pstate *ps, const anode *t, int allow_tuple) {
  switch (t->kind) {
  case AX_NAME:
    return;
  case AX_SUBSCRIPT:
  case AX_ATTR:
    return;
  case AX_TUPLE:
  case AX_LIST:
    if (allow_tuple) {
      for (uint32_t i = 0; i < t->n; i++)
        check_target(ps, t->items[i], 0);
      return;
    }
    break;
  default:
    break;
  }
  ps_note(ps, "assign to a name (x = ...), a buffer element (A[i] = ...) or "
              "several names (a, b = ...)");
  ps_error_at(ps, TSL_EPARSE, ps_node_off(ps, t), "cannot assign to this expression");
}

/* The body after a compound statement header ("for", line of the header). */
static void parse_suite(pstate *ps, const char *what, uint32_t head_tok,
                        astmt ***body, uint32_t *nbody) {
  char note[128];
  snprintf(note, sizeof note, "the '%s' header line ends with ':'", what);
  expect_op(ps, OP_COLON, note);
  svec v = {0};
  if (cur(ps)->kind != TK_NEWLINE) {
    /* simple statements on the same line */
    if (at_kw(ps, "for") || at_kw(ps, "with") || at_kw(ps, "if") || at_kw(ps, "def") ||
        at_kw(ps, "class") || at_kw(ps, "while")) {
      ps_note(ps, "start a new, indented line after the ':'");
      ps_error_at(ps, TSL_EPARSE, cur(ps)->off,
                  "a compound statement cannot follow ':' on the same line");
    }
    parse_stmt(ps, &v);
    *body = v.v;
    *nbody = v.n;
    return;
  }
  advance(ps);
  if (cur(ps)->kind != TK_INDENT) {
    uint32_t line = 1;
    for (uint32_t k = 0; k < ps_tok_off(ps, head_tok) && k < ps->len; k++)
      if (ps->src[k] == '\n')
        line++;
    ps_note(ps, "indent the body of the '%s' statement more than its header", what);
    ps_error_at(ps, TSL_EPARSE, cur(ps)->off,
                "expected an indented block after the '%s' statement on line %u",
                what, line);
  }
  advance(ps);
  enter(ps, &ps->sdepth, "statement");
  while (cur(ps)->kind != TK_DEDENT && cur(ps)->kind != TK_EOF)
    parse_stmt(ps, &v);
  ps->sdepth--;
  if (cur(ps)->kind == TK_DEDENT)
    advance(ps);
  *body = v.v;
  *nbody = v.n;
}

/* End of a simple statement: 1 when another one follows on the line. */
static int end_simple(pstate *ps) {
  if (accept_op(ps, OP_SEMI) && cur(ps)->kind != TK_NEWLINE &&
      cur(ps)->kind != TK_EOF)
    return 1;
  if (cur(ps)->kind == TK_NEWLINE) {
    advance(ps);
    return 0;
  }
  if (cur(ps)->kind == TK_EOF)
    return 0;
  char d[64];
  describe(ps, cur(ps), d, sizeof d);
  ps_note(ps, "write one statement per line (a compound statement header ends with ':')");
  ps_error_at(ps, TSL_EPARSE, cur(ps)->off, "unexpected %s after the statement", d);
}

/* dotted.name */
static void parse_dotted(pstate *ps, const char **s, uint32_t *len) {
  const ptok *t = cur(ps);
  if (t->kind != TK_NAME)
    expected(ps, "a module name", "write the import as 'from tvm.script import tir as T'");
  uint32_t start = t->off, end = t->off + t->len;
  advance(ps);
  while (at_op(ps, OP_DOT)) {
    advance(ps);
    t = cur(ps);
    if (t->kind != TK_NAME)
      expected(ps, "a name after '.'", "write the import as 'from tvm.script import tir as T'");
    end = t->off + t->len;
    advance(ps);
  }
  *s = ps->src + start;
  *len = end - start;
}

static void parse_import(pstate *ps, svec *out) {
  astmt *s = mks(ps, AS_IMPORT, ps->pos);
  const char *mod = NULL;
  uint32_t modlen = 0;
  int is_from = at_kw(ps, "from");
  advance(ps);
  if (is_from) {
    while (at_op(ps, OP_DOT))
      advance(ps);
    if (!at_kw(ps, "import"))
      parse_dotted(ps, &mod, &modlen);
    if (!at_kw(ps, "import"))
      expected(ps, "'import'", "write the import as 'from tvm.script import tir as T'");
    advance(ps);
  }
  int paren = is_from && accept_op(ps, OP_LPAREN);
  aimport *im = NULL;
  uint32_t cap = 0;
  for (;;) {
    if (is_from && at_op(ps, OP_STAR)) {
      advance(ps);
      break;
    }
    aimport a = {0};
    a.module = mod;
    a.module_len = modlen;
    if (is_from) {
      const ptok *t = cur(ps);
      if (t->kind != TK_NAME)
        expected(ps, "a name to import", "write the import as 'from tvm.script import tir as T'");
      a.name = ps->src + t->off;
      a.name_len = t->len;
      advance(ps);
    } else {
      parse_dotted(ps, &a.name, &a.name_len);
    }
    if (at_kw(ps, "as")) {
      advance(ps);
      const ptok *t = cur(ps);
      if (t->kind != TK_NAME || is_keyword(ps, t))
        expected(ps, "a name after 'as'", "write the import as 'from tvm.script import tir as T'");
      a.asname = ps->src + t->off;
      a.asname_len = t->len;
      advance(ps);
    }
    im = ps_grow(ps, im, &cap, s->nimports + 1, sizeof *im);
    im[s->nimports++] = a;
    if (!accept_op(ps, OP_COMMA))
      break;
    if (paren && at_op(ps, OP_RPAREN))
      break;
  }
  if (paren)
    expect_op(ps, OP_RPAREN, "close the import list with ')'");
  s->imports = im;
  svec_push(ps, out, s);
}

static void parse_simple_one(pstate *ps, svec *out) {
  uint32_t t0 = ps->pos;
  const ptok *t = cur(ps);
  if (tok_is_name(ps, t, "pass")) {
    advance(ps);
    svec_push(ps, out, mks(ps, AS_PASS, t0));
    return;
  }
  if (tok_is_name(ps, t, "return")) {
    advance(ps);
    astmt *s = mks(ps, AS_RETURN, t0);
    if (cur(ps)->kind != TK_NEWLINE && !at_op(ps, OP_SEMI) && cur(ps)->kind != TK_EOF)
      s->value = parse_testlist(ps, 0);
    svec_push(ps, out, s);
    return;
  }
  if (tok_is_name(ps, t, "import") || tok_is_name(ps, t, "from")) {
    parse_import(ps, out);
    return;
  }
  static const char *const unsupported[] = {
      "assert", "break", "continue", "del", "global", "nonlocal", "raise",
      "while", "try", "except", "finally", "async", "lambda", "yield", NULL};
  for (int i = 0; unsupported[i]; i++)
    if (tok_is_name(ps, t, unsupported[i])) {
      ps_note(ps, "TVMScript statements are: for, with, if/elif/else, "
                  "assignments, T.* calls, pass");
      ps_error_at(ps, TSL_EPARSE, t->off, "'%s' statements are not supported in TVMScript",
                  unsupported[i]);
    }
  if (tok_is_name(ps, t, "else") || tok_is_name(ps, t, "elif")) {
    ps_note(ps, "'%.*s' must line up with an 'if' at the same indentation",
            (int)t->len, ps->src + t->off);
    ps_error_at(ps, TSL_EPARSE, t->off, "'%.*s' without a matching 'if'", (int)t->len,
                ps->src + t->off);
  }
  anode *lhs = parse_testlist(ps, 1);
  if (at_op(ps, OP_ASSIGN)) {
    check_target(ps, lhs, 1);
    advance(ps);
    astmt *s = mks(ps, AS_ASSIGN, t0);
    s->target = lhs;
    s->value = parse_testlist(ps, 0);
    if (at_op(ps, OP_ASSIGN)) {
      ps_note(ps, "assign one target per statement");
      ps_error_at(ps, TSL_EPARSE, cur(ps)->off, "chained assignment is not supported");
    }
    svec_push(ps, out, s);
  } else if (at_op(ps, OP_COLON)) {
    if (lhs->kind != AX_NAME) {
      ps_note(ps, "annotate a plain name, as in x: T.int32 = 0");
      ps_error_at(ps, TSL_EPARSE, ps_node_off(ps, lhs), "only a name can be annotated");
    }
    advance(ps);
    astmt *s = mks(ps, AS_ANNASSIGN, t0);
    s->target = lhs;
    s->ann = parse_test(ps);
    if (accept_op(ps, OP_ASSIGN))
      s->value = parse_testlist(ps, 0);
    svec_push(ps, out, s);
  } else if (t = cur(ps), t->kind == TK_OP &&
                              (t->op == OP_PLUS_EQ || t->op == OP_MINUS_EQ ||
                               t->op == OP_STAR_EQ || t->op == OP_SLASH_EQ ||
                               t->op == OP_DSLASH_EQ || t->op == OP_PERCENT_EQ ||
                               t->op == OP_OTHER_EQ)) {
    if (t->op == OP_OTHER_EQ) {
      ps_note(ps, "supported: +=, -=, *=, /=, //=, %%=");
      ps_error_at(ps, TSL_EPARSE, t->off, "operator '%.*s' is not supported", (int)t->len,
                  ps->src + t->off);
    }
    check_target(ps, lhs, 0);
    astmt *s = mks(ps, AS_AUGASSIGN, t0);
    s->op = t->op == OP_PLUS_EQ    ? OP_PLUS
            : t->op == OP_MINUS_EQ ? OP_MINUS
            : t->op == OP_STAR_EQ  ? OP_STAR
            : t->op == OP_SLASH_EQ ? OP_SLASH
            : t->op == OP_DSLASH_EQ ? OP_DSLASH
                                   : OP_PERCENT;
    advance(ps);
    s->target = lhs;
    s->value = parse_testlist(ps, 0);
    svec_push(ps, out, s);
  } else {
    astmt *s = mks(ps, AS_EXPR, t0);
    s->value = lhs;
    svec_push(ps, out, s);
  }
}

static void parse_simple(pstate *ps, svec *out) {
  do
    parse_simple_one(ps, out);
  while (end_simple(ps));
}

static void parse_funcdef(pstate *ps, svec *out, anode **decos, uint32_t ndecos) {
  uint32_t t0 = ps->pos;
  advance(ps); /* def */
  const ptok *t = cur(ps);
  if (t->kind != TK_NAME || is_keyword(ps, t))
    expected(ps, "a function name", "write def name(params):");
  astmt *s = mks(ps, AS_FUNCDEF, t0);
  s->name = ps->src + t->off;
  s->namelen = t->len;
  s->nametok = ps->pos;
  s->decorators = decos;
  s->ndecorators = ndecos;
  advance(ps);
  expect_op(ps, OP_LPAREN, "write def name(params):");
  aparam *params = NULL;
  uint32_t cap = 0;
  while (!at_op(ps, OP_RPAREN)) {
    if (at_op(ps, OP_STAR) || at_op(ps, OP_POW) || at_op(ps, OP_SLASH)) {
      ps_note(ps, "declare each parameter as name: annotation");
      ps_error_at(ps, TSL_EPARSE, cur(ps)->off,
                  "'*', '**' and '/' parameters are not supported");
    }
    t = cur(ps);
    if (t->kind != TK_NAME || is_keyword(ps, t))
      expected(ps, "a parameter name", "declare parameters as A: T.Buffer((128,), \"float32\") or n: T.int32");
    aparam p = {0};
    p.name = ps->src + t->off;
    p.len = t->len;
    p.tok = ps->pos;
    advance(ps);
    if (accept_op(ps, OP_COLON))
      p.ann = parse_test(ps);
    if (accept_op(ps, OP_ASSIGN))
      p.def = parse_test(ps);
    params = ps_grow(ps, params, &cap, s->nparams + 1, sizeof *params);
    params[s->nparams++] = p;
    if (!accept_op(ps, OP_COMMA))
      break;
  }
  expect_op(ps, OP_RPAREN, "separate parameters with ',' and close the list with ')'");
  s->params = params;
  if (accept_op(ps, OP_ARROW))
    s->ann = parse_test(ps);
  parse_suite(ps, "def", t0, &s->body, &s->nbody);
  svec_push(ps, out, s);
}

static void parse_classdef(pstate *ps, svec *out, anode **decos, uint32_t ndecos) {
  uint32_t t0 = ps->pos;
  advance(ps);
  const ptok *t = cur(ps);
  if (t->kind != TK_NAME || is_keyword(ps, t))
    expected(ps, "a class name", "write class Module:");
  astmt *s = mks(ps, AS_CLASSDEF, t0);
  s->name = ps->src + t->off;
  s->namelen = t->len;
  s->nametok = ps->pos;
  s->decorators = decos;
  s->ndecorators = ndecos;
  advance(ps);
  if (at_op(ps, OP_LPAREN)) {
    anode tmp;
    memset(&tmp, 0, sizeof tmp);
    advance(ps);
    parse_call_args(ps, &tmp);
  }
  parse_suite(ps, "class", t0, &s->body, &s->nbody);
  svec_push(ps, out, s);
}

static astmt *parse_if_rest(pstate *ps, int is_elif) {
  uint32_t t0 = ps->pos;
  advance(ps); /* if / elif */
  astmt *s = mks(ps, AS_IF, t0);
  s->is_elif = (uint8_t)is_elif;
  s->value = parse_test(ps);
  parse_suite(ps, is_elif ? "elif" : "if", t0, &s->body, &s->nbody);
  if (at_kw(ps, "elif")) {
    enter(ps, &ps->sdepth, "statement");
    s->else_tok = ps->pos;
    astmt *e = parse_if_rest(ps, 1);
    ps->sdepth--;
    s->orelse = ps_alloc(ps, sizeof *s->orelse);
    s->orelse[0] = e;
    s->norelse = 1;
  } else if (at_kw(ps, "else")) {
    s->else_tok = ps->pos;
    advance(ps);
    parse_suite(ps, "else", s->else_tok, &s->orelse, &s->norelse);
  }
  return s;
}

static void parse_with(pstate *ps, svec *out) {
  uint32_t t0 = ps->pos;
  advance(ps);
  astmt *first = NULL, *last = NULL;
  int nitems = 0;
  for (;;) {
    astmt *s = mks(ps, AS_WITH, nitems ? ps->pos : t0);
    s->value = parse_test(ps);
    if (at_kw(ps, "as")) {
      advance(ps);
      s->target = parse_prec(ps, 1);
      check_target(ps, s->target, 1);
    }
    if (nitems++)
      enter(ps, &ps->sdepth, "statement");
    if (!first)
      first = s;
    else {
      last->body = ps_alloc(ps, sizeof *last->body);
      last->body[0] = s;
      last->nbody = 1;
    }
    last = s;
    if (!accept_op(ps, OP_COMMA))
      break;
  }
  parse_suite(ps, "with", t0, &last->body, &last->nbody);
  ps->sdepth -= nitems - 1;
  svec_push(ps, out, first);
}

static void parse_stmt(pstate *ps, svec *out) {
  const ptok *t = cur(ps);
  if (t->kind == TK_INDENT) {
    ps_note(ps, "this line should start at the same column as the statement before it");
    ps_error_at(ps, TSL_EPARSE, t->off, "unexpected indent");
  }
  if (t->kind == TK_NEWLINE) {
    advance(ps);
    return;
  }
  if (t->kind == TK_DEDENT || t->kind == TK_EOF)
    return;
  if (at_op(ps, OP_AT)) {
    nvec decos = {0};
    while (accept_op(ps, OP_AT)) {
      nvec_push(ps, &decos, parse_test(ps));
      if (cur(ps)->kind != TK_NEWLINE)
        expected(ps, "end of line after the decorator", "put each decorator on its own line");
      advance(ps);
    }
    if (at_kw(ps, "def"))
      parse_funcdef(ps, out, decos.v, decos.n);
    else if (at_kw(ps, "class"))
      parse_classdef(ps, out, decos.v, decos.n);
    else
      expected(ps, "'def' or 'class' after the decorator",
               "decorate a function (@T.prim_func) or a class (@I.ir_module)");
    return;
  }
  if (at_kw(ps, "def")) {
    parse_funcdef(ps, out, NULL, 0);
    return;
  }
  if (at_kw(ps, "class")) {
    parse_classdef(ps, out, NULL, 0);
    return;
  }
  if (at_kw(ps, "if")) {
    svec_push(ps, out, parse_if_rest(ps, 0));
    return;
  }
  if (at_kw(ps, "for")) {
    uint32_t t0 = ps->pos;
    advance(ps);
    astmt *s = mks(ps, AS_FOR, t0);
    s->target = parse_targets(ps);
    check_target(ps, s->target, 1);
    if (!at_kw(ps, "in"))
      expected(ps, "'in'", "write for i in range(n):");
    advance(ps);
    s->value = parse_testlist(ps, 0);
    parse_suite(ps, "for", t0, &s->body, &s->nbody);
    if (at_kw(ps, "else")) {
      ps_note(ps, "remove the 'else' clause");
      ps_error_at(ps, TSL_EPARSE, cur(ps)->off, "'for ... else' is not supported");
    }
    svec_push(ps, out, s);
    return;
  }
  if (at_kw(ps, "with")) {
    parse_with(ps, out);
    return;
  }
  parse_simple(ps, out);
}

astmt **ps_parse_file_syntax(pstate *ps, uint32_t *n) {
  svec v = {0};
  ps->pos = 0;
  while (cur(ps)->kind != TK_EOF) {
    if (cur(ps)->kind == TK_DEDENT) { /* cannot happen at top level */
      advance(ps);
      continue;
    }
    parse_stmt(ps, &v);
  }
  *n = v.n;
  return v.v;
}
