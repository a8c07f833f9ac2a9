/*
 * Printer utilities: output buffer, name scopes (sanitizing and TVM-style
 * `_1`, `_2` suffixes for names that would clash), string literals and
 * shortest round-trip float formatting.
 */
#include "printer_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *ptr, size_t size) {
  void *q = realloc(ptr, size);
  if (!q) {
    fprintf(stderr, "tessel: out of memory (%zu bytes)\n", size);
    abort();
  }
  return q;
}

void pr_init(pr_t *p, int rename) {
  memset(p, 0, sizeof *p);
  tsl_strbuf_init(&p->out);
  tsl_vec_init(&p->names, sizeof(pr_name), NULL);
  tsl_vec_init(&p->loops, sizeof(const tsl_stmt *), NULL);
  p->rename = rename;
}

void pr_free(pr_t *p) {
  pr_scope_pop(p, 0);
  tsl_vec_free(&p->names);
  tsl_vec_free(&p->loops);
  tsl_strbuf_free(&p->out);
}

void pr_puts(pr_t *p, const char *s) { tsl_strbuf_append(&p->out, s); }

void pr_printf(pr_t *p, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n >= 0 && (size_t)n < sizeof buf) {
    tsl_strbuf_append_n(&p->out, buf, (size_t)n);
    return;
  }
  char *big = xrealloc(NULL, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  tsl_strbuf_append_n(&p->out, big, (size_t)n);
  free(big);
}

void pr_line(pr_t *p) {
  static const char spaces[] = "                                ";
  int n = p->indent;
  while (n > 0) {
    int k = n < 32 ? n : 32;
    tsl_strbuf_append_n(&p->out, spaces, (size_t)k);
    n -= k;
  }
}

void pr_newline(pr_t *p) { tsl_strbuf_append_n(&p->out, "\n", 1); }

void pr_str_literal(pr_t *p, const char *s) {
  tsl_strbuf_append_n(&p->out, "\"", 1);
  for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
    switch (*c) {
    case '"': pr_puts(p, "\\\""); break;
    case '\\': pr_puts(p, "\\\\"); break;
    case '\n': pr_puts(p, "\\n"); break;
    case '\t': pr_puts(p, "\\t"); break;
    case '\r': pr_puts(p, "\\r"); break;
    default:
      if (*c < 0x20 || *c == 0x7f)
        pr_printf(p, "\\x%02x", *c);
      else
        tsl_strbuf_append_n(&p->out, (const char *)c, 1);
    }
  }
  tsl_strbuf_append_n(&p->out, "\"", 1);
}

const char *pr_dtype(tsl_dtype t, char buf[32]) { return tsl_dtype_str(t, buf); }

/* ---- names ---- */

static const char *const reserved[] = {
    "False", "None",   "True",    "and",      "as",     "assert", "async",
    "await", "break",  "class",   "continue", "def",    "del",    "elif",
    "else",  "except", "finally", "for",      "from",   "global", "if",
    "import", "in",    "is",      "lambda",   "nonlocal", "not",  "or",
    "pass",  "raise",  "return",  "try",      "while",  "with",   "yield",
    "T",     "range",
};

static int is_reserved(const char *s) {
  for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
    if (strcmp(s, reserved[i]) == 0)
      return 1;
  return 0;
}

static int ident_char(unsigned char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}

/* A valid, non-reserved Python identifier derived from prefix + stored. */
static char *sanitize(const char *prefix, const char *stored,
                      const char *fallback) {
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  if (prefix)
    tsl_strbuf_append(&sb, prefix);
  if (stored)
    tsl_strbuf_append(&sb, stored);
  if (sb.len == 0)
    tsl_strbuf_append(&sb, fallback);
  for (size_t i = 0; i < sb.len; i++)
    if (!ident_char((unsigned char)sb.data[i]))
      sb.data[i] = '_';
  if (sb.data[0] >= '0' && sb.data[0] <= '9') {
    char *s = tsl_strbuf_take(&sb);
    tsl_strbuf_append(&sb, "_");
    tsl_strbuf_append(&sb, s);
    free(s);
  }
  if (is_reserved(sb.data))
    tsl_strbuf_append(&sb, "_");
  return tsl_strbuf_take(&sb);
}

static int name_in_scope(const pr_t *p, const char *name) {
  const pr_name *names = TSL_VEC_DATA(&p->names, const pr_name);
  for (size_t i = p->names.len; i-- > 0;)
    if (strcmp(names[i].name, name) == 0)
      return 1;
  return 0;
}

size_t pr_scope_mark(const pr_t *p) { return p->names.len; }

void pr_scope_pop(pr_t *p, size_t mark) {
  while (p->names.len > mark)
    free(TSL_VEC_AT(&p->names, pr_name, --p->names.len).name);
}

const char *pr_define(pr_t *p, const void *obj, const char *prefix,
                      const char *stored, const char *fallback) {
  if (!p->rename)
    return stored && *stored ? stored : fallback;
  char *base = sanitize(prefix, stored, fallback);
  char *name = base;
  if (name_in_scope(p, name)) {
    size_t cap = strlen(base) + 24;
    name = xrealloc(NULL, cap);
    for (unsigned long k = 1;; k++) {
      snprintf(name, cap, "%s_%lu", base, k);
      if (!name_in_scope(p, name))
        break;
    }
    free(base);
  }
  pr_name *slot = tsl_vec_push(&p->names);
  slot->obj = obj;
  slot->name = name;
  return name;
}

const char *pr_name_of(pr_t *p, const void *obj, const char *stored,
                       const char *fallback) {
  const pr_name *names = TSL_VEC_DATA(&p->names, const pr_name);
  for (size_t i = p->names.len; i-- > 0;)
    if (names[i].obj == obj)
      return names[i].name;
  return stored && *stored ? stored : fallback;
}

int pr_has_name(const pr_t *p, const void *obj) {
  const pr_name *names = TSL_VEC_DATA(&p->names, const pr_name);
  for (size_t i = p->names.len; i-- > 0;)
    if (names[i].obj == obj)
      return 1;
  return 0;
}

void pr_define_as(pr_t *p, const void *obj, const char *text) {
  size_t n = strlen(text);
  char *name = xrealloc(NULL, n + 1);
  memcpy(name, text, n + 1);
  pr_name *slot = tsl_vec_push(&p->names);
  slot->obj = obj;
  slot->name = name;
}

int pr_implicit_offset(const tsl_buffer *b) {
  return b->offset_factor && b->elem_offset && b->elem_offset->kind == TSL_EXPR_VAR;
}

const char *pr_var_name(pr_t *p, const tsl_var *v) {
  return pr_name_of(p, v, v->name, "v");
}

const char *pr_buffer_name(pr_t *p, const tsl_buffer *b) {
  return pr_name_of(p, b, b->name, "buf");
}

void pr_loop_push(pr_t *p, const tsl_stmt *loop) {
  TSL_VEC_PUSH(&p->loops, const tsl_stmt *, loop);
}

void pr_loop_pop(pr_t *p) {
  if (p->loops.len)
    p->loops.len--;
}

/* ---- floats ---- */

void pr_format_double(double v, int python_float, char *buf) {
  if (v == 0) {
    /* "-0.0" keeps the sign through a parser that negates a float literal */
    strcpy(buf, signbit(v) ? "-0.0" : python_float ? "0.0" : "0");
    return;
  }
  char sci[48];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(sci, sizeof sci, "%.*e", prec - 1, v);
    if (strtod(sci, NULL) == v)
      break;
  }
  /* sci: [-]d[.ddd]e(+|-)XX */
  const char *s = sci;
  int neg = 0;
  if (*s == '-') {
    neg = 1;
    s++;
  }
  char digits[24];
  int nd = 0;
  for (; *s && *s != 'e'; s++)
    if (*s >= '0' && *s <= '9' && nd < 23)
      digits[nd++] = *s;
  int exp10 = *s == 'e' ? atoi(s + 1) : 0;
  while (nd > 1 && digits[nd - 1] == '0')
    nd--;
  digits[nd] = '\0';

  char *o = buf;
  if (neg)
    *o++ = '-';
  if (exp10 >= -4 && exp10 < 16) {
    if (exp10 >= 0) {
      for (int i = 0; i <= exp10; i++)
        *o++ = i < nd ? digits[i] : '0';
      if (nd > exp10 + 1) {
        *o++ = '.';
        for (int i = exp10 + 1; i < nd; i++)
          *o++ = digits[i];
      } else if (python_float) {
        *o++ = '.';
        *o++ = '0';
      }
    } else {
      *o++ = '0';
      *o++ = '.';
      for (int i = 0; i < -exp10 - 1; i++)
        *o++ = '0';
      for (int i = 0; i < nd; i++)
        *o++ = digits[i];
    }
    *o = '\0';
  } else {
    *o++ = digits[0];
    if (nd > 1) {
      *o++ = '.';
      for (int i = 1; i < nd; i++)
        *o++ = digits[i];
    }
    sprintf(o, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
  }
}

/* ---- structural identity ---- */

int pr_expr_same(const tsl_expr *a, const tsl_expr *b) {
  if (a == b)
    return 1;
  if (!a || !b || a->kind != b->kind || !tsl_dtype_eq(a->dtype, b->dtype) ||
      a->n_args != b->n_args || a->intrin != b->intrin)
    return 0;
  switch ((tsl_expr_kind)a->kind) {
  case TSL_EXPR_INT_IMM:
    if (a->u.int_value != b->u.int_value)
      return 0;
    break;
  case TSL_EXPR_FLOAT_IMM:
    if (memcmp(&a->u.float_value, &b->u.float_value, sizeof(double)) != 0)
      return 0;
    break;
  case TSL_EXPR_STR_IMM:
  case TSL_EXPR_CALL_EXTERN:
    if (a->u.str_value != b->u.str_value)
      return 0;
    break;
  case TSL_EXPR_VAR:
    if (a->u.var != b->u.var)
      return 0;
    break;
  case TSL_EXPR_LOAD:
  case TSL_EXPR_BUFFER_DATA:
    if (a->u.buffer != b->u.buffer)
      return 0;
    break;
  default:
    break;
  }
  for (uint32_t i = 0; i < a->n_args; i++)
    if (!pr_expr_same(a->args[i], b->args[i]))
      return 0;
  return 1;
}
