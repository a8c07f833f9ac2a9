/*
 * TVMScript lexer: Python tokenisation of the whole source into ps->toks.
 *
 * Follows Python's rules for what TVMScript needs: INDENT / DEDENT / NEWLINE
 * tokens from leading whitespace (tabs to multiples of 8), implicit line
 * joining inside brackets and after a backslash, comments, blank lines, int
 * / float / string literals (single, double, triple quoted; r/u prefixes).
 * A lexical error ends the stream with a TK_ERROR token whose message the
 * syntax stage reports when it gets there, so errors come out in source
 * order.
 */
#include "parser_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_texts[] = {
#define PS_X_(id, s) s,
    PS_OPS(PS_X_)
#undef PS_X_
};

const char *ps_op_text(int op) {
  return (op >= 0 && op < OP_COUNT) ? op_texts[op] : "?";
}

typedef struct lexer {
  pstate *ps;
  size_t i;
  uint32_t brackets[PS_MAX_BRACKETS]; /* offsets of open brackets */
  char bracket_ch[PS_MAX_BRACKETS];
  int nbrackets;
  uint32_t indents[PS_MAX_INDENT + 2];
  int nindents;
  int line_has_tokens;
  int failed;
} lexer;

static ptok *push_tok(lexer *lx, int kind, size_t off, size_t len) {
  pstate *ps = lx->ps;
  ps->toks = ps_grow(ps, ps->toks, &ps->captoks, ps->ntoks + 1, sizeof(ptok));
  ptok *t = &ps->toks[ps->ntoks++];
  memset(t, 0, sizeof *t);
  t->kind = (uint8_t)kind;
  t->off = (uint32_t)off;
  t->len = (uint32_t)len;
  return t;
}

static void lex_fail(lexer *lx, size_t off, const char *note, const char *fmt,
                     ...) TSL_PRINTF(4, 5);
static void lex_fail(lexer *lx, size_t off, const char *note, const char *fmt,
                     ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(lx->ps->lex_msg, sizeof lx->ps->lex_msg, fmt, ap);
  va_end(ap);
  snprintf(lx->ps->lex_note, sizeof lx->ps->lex_note, "%s", note ? note : "");
  push_tok(lx, TK_ERROR, off, 0);
  lx->failed = 1;
}

static int peekc(const lexer *lx, size_t k) {
  size_t j = lx->i + k;
  return j < lx->ps->len ? (unsigned char)lx->ps->src[j] : -1;
}

static int is_ident_start(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_ident(int c) { return is_ident_start(c) || is_digit(c); }

/* Describe the (possibly multi-byte) character at offset `off`. */
static void describe_char(const pstate *ps, size_t off, char *buf, size_t cap) {
  const unsigned char *s = (const unsigned char *)ps->src + off;
  size_t left = ps->len - off;
  unsigned c = s[0];
  if (c >= 0xc2 && c <= 0xf4) {
    size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    if (n <= left) {
      uint32_t cp = c & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
      size_t k;
      for (k = 1; k < n; k++) {
        if ((s[k] & 0xc0) != 0x80)
          break;
        cp = (cp << 6) | (s[k] & 0x3f);
      }
      if (k == n) {
        snprintf(buf, cap, "'%.*s' (U+%04X)", (int)n, (const char *)s, cp);
        return;
      }
    }
  }
  if (c >= 0x20 && c < 0x7f)
    snprintf(buf, cap, "'%c'", c);
  else
    snprintf(buf, cap, "byte 0x%02x", c);
}

/* ---- literals ---- */

static void lex_number(lexer *lx) {
  pstate *ps = lx->ps;
  size_t start = lx->i;
  int is_float = 0, bad = 0;
  uint64_t v = 0;
  int c = peekc(lx, 0);
  int base = 10;
  if (c == '0' && (peekc(lx, 1) == 'x' || peekc(lx, 1) == 'X' ||
                   peekc(lx, 1) == 'o' || peekc(lx, 1) == 'O' ||
                   peekc(lx, 1) == 'b' || peekc(lx, 1) == 'B')) {
    int p = peekc(lx, 1) | 0x20;
    base = p == 'x' ? 16 : p == 'o' ? 8 : 2;
    lx->i += 2;
    int ndig = 0;
    for (;;) {
      int d = peekc(lx, 0);
      int dv;
      if (d == '_') {
        lx->i++;
        continue;
      }
      if (is_digit(d))
        dv = d - '0';
      else if (base == 16 && ((d | 0x20) >= 'a' && (d | 0x20) <= 'f'))
        dv = (d | 0x20) - 'a' + 10;
      else
        break;
      if (dv >= base)
        break;
      if (v > (UINT64_MAX - (uint64_t)dv) / (uint64_t)base)
        bad = 1;
      else
        v = v * (uint64_t)base + (uint64_t)dv;
      ndig++;
      lx->i++;
    }
    if (ndig == 0) {
      lex_fail(lx, start, "write digits after the base prefix, e.g. 0x1f",
               "invalid number literal");
      return;
    }
  } else {
    while (is_digit(peekc(lx, 0)) || peekc(lx, 0) == '_') {
      int d = peekc(lx, 0);
      lx->i++;
      if (d == '_')
        continue;
      if (v > (UINT64_MAX - (uint64_t)(d - '0')) / 10)
        bad = 1;
      else
        v = v * 10 + (uint64_t)(d - '0');
    }
    if (peekc(lx, 0) == '.' && !(peekc(lx, 1) == '.')) {
      is_float = 1;
      lx->i++;
      while (is_digit(peekc(lx, 0)) || peekc(lx, 0) == '_')
        lx->i++;
    }
    if ((peekc(lx, 0) | 0x20) == 'e' &&
        (is_digit(peekc(lx, 1)) ||
         ((peekc(lx, 1) == '+' || peekc(lx, 1) == '-') && is_digit(peekc(lx, 2))))) {
      is_float = 1;
      lx->i += 2;
      while (is_digit(peekc(lx, 0)))
        lx->i++;
    }
  }
  c = peekc(lx, 0);
  if (c >= 0 && (is_ident(c) || c == '.')) {
    lex_fail(lx, start,
             "numbers are written as 128, 0x80, 1.5 or 1e-5; an identifier "
             "cannot start with a digit",
             "invalid number literal '%.*s'", (int)(lx->i - start + 1),
             ps->src + start);
    return;
  }
  ptok *t = push_tok(lx, is_float ? TK_FLOAT : TK_INT, start, lx->i - start);
  if (is_float) {
    char buf[128];
    size_t n = 0;
    for (size_t k = start; k < lx->i && n + 1 < sizeof buf; k++)
      if (ps->src[k] != '_')
        buf[n++] = ps->src[k];
    buf[n] = '\0';
    t->fval = strtod(buf, NULL);
  } else {
    /* 1: fits uint64 only (stored bit for bit), 2: too large */
    t->ival = bad ? 0 : (int64_t)v;
    t->bad_int = (uint8_t)(bad ? 2 : v > (uint64_t)INT64_MAX ? 1 : 0);
  }
}

static void put_utf8(char *out, size_t *n, uint32_t cp) {
  if (cp < 0x80) {
    out[(*n)++] = (char)cp;
  } else if (cp < 0x800) {
    out[(*n)++] = (char)(0xc0 | (cp >> 6));
    out[(*n)++] = (char)(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out[(*n)++] = (char)(0xe0 | (cp >> 12));
    out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[(*n)++] = (char)(0x80 | (cp & 0x3f));
  } else {
    out[(*n)++] = (char)(0xf0 | (cp >> 18));
    out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[(*n)++] = (char)(0x80 | (cp & 0x3f));
  }
}

static int hexval(int c) {
  if (is_digit(c))
    return c - '0';
  c |= 0x20;
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

/* lx->i is at the opening quote; `start` includes any prefix. */
static void lex_string(lexer *lx, size_t start, int raw) {
  pstate *ps = lx->ps;
  int q = peekc(lx, 0);
  int triple = peekc(lx, 1) == q && peekc(lx, 2) == q;
  lx->i += triple ? 3 : 1;
  size_t body = lx->i;
  /* find the end first */
  size_t end = (size_t)-1;
  while (lx->i < ps->len) {
    int c = (unsigned char)ps->src[lx->i];
    if (c == '\\' && lx->i + 1 < ps->len) {
      lx->i += 2;
      continue;
    }
    if (!triple && (c == '\n' || c == '\r'))
      break;
    if (c == q) {
      if (!triple) {
        end = lx->i;
        lx->i++;
        break;
      }
      if (peekc(lx, 1) == q && peekc(lx, 2) == q) {
        end = lx->i;
        lx->i += 3;
        break;
      }
    }
    lx->i++;
  }
  if (end == (size_t)-1) {
    char note[96];
    snprintf(note, sizeof note, "close the string with %s%s",
             triple ? (q == '"' ? "\"\"\"" : "'''") : (q == '"' ? "\"" : "'"),
             triple ? " before the end of the file"
                    : " before the end of the line");
    lex_fail(lx, start, note, "unterminated string literal");
    return;
  }
  char *out = ps_alloc(ps, end - body + 1);
  size_t n = 0;
  for (size_t k = body; k < end; k++) {
    char c = ps->src[k];
    if (c != '\\' || raw || k + 1 >= end) {
      out[n++] = c;
      continue;
    }
    char e = ps->src[++k];
    switch (e) {
    case 'n': out[n++] = '\n'; break;
    case 't': out[n++] = '\t'; break;
    case 'r': out[n++] = '\r'; break;
    case '0': out[n++] = '\0'; break;
    case '\\': out[n++] = '\\'; break;
    case '\'': out[n++] = '\''; break;
    case '"': out[n++] = '"'; break;
    case '\n': break;
    case 'x':
      if (k + 2 < end && hexval(ps->src[k + 1]) >= 0 && hexval(ps->src[k + 2]) >= 0) {
        out[n++] = (char)(hexval(ps->src[k + 1]) * 16 + hexval(ps->src[k + 2]));
        k += 2;
      } else {
        out[n++] = '\\';
        out[n++] = e;
      }
      break;
    case 'u':
      if (k + 4 < end) {
        uint32_t cp = 0;
        int okk = 1;
        for (int j = 1; j <= 4; j++) {
          int h = hexval(ps->src[k + (size_t)j]);
          if (h < 0)
            okk = 0;
          cp = cp * 16 + (uint32_t)(h < 0 ? 0 : h);
        }
        if (okk && (cp < 0xd800 || cp > 0xdfff) && n + 4 <= end - body) {
          put_utf8(out, &n, cp);
          k += 4;
          break;
        }
      }
      out[n++] = '\\';
      out[n++] = e;
      break;
    default:
      out[n++] = '\\';
      out[n++] = e;
      break;
    }
  }
  out[n] = '\0';
  if (memchr(out, '\0', n)) {
    /* names, keys and scopes are C strings: a NUL would silently cut them */
    lex_fail(lx, start, "remove the NUL character (a raw 0 byte or \\0, \\x00, \\u0000)",
             "string literal contains a NUL character");
    return;
  }
  ptok *t = push_tok(lx, TK_STRING, start, lx->i - start);
  t->sval = out;
  t->slen = (uint32_t)n;
}

/* ---- operators ---- */

static const struct {
  const char *s;
  int op;
} op_table[] = {
    {"//=", OP_DSLASH_EQ}, {"**=", OP_OTHER_EQ}, {"<<=", OP_OTHER_EQ},
    {">>=", OP_OTHER_EQ},  {"->", OP_ARROW},     {"**", OP_POW},
    {"//", OP_DSLASH},     {"<=", OP_LE},        {">=", OP_GE},
    {"==", OP_EQ},         {"!=", OP_NE},        {"<<", OP_LSHIFT},
    {">>", OP_RSHIFT},     {"+=", OP_PLUS_EQ},   {"-=", OP_MINUS_EQ},
    {"*=", OP_STAR_EQ},    {"/=", OP_SLASH_EQ},  {"%=", OP_PERCENT_EQ},
    {"&=", OP_OTHER_EQ},   {"|=", OP_OTHER_EQ},  {"^=", OP_OTHER_EQ},
    {":=", OP_WALRUS},     {"(", OP_LPAREN},     {")", OP_RPAREN},
    {"[", OP_LBRACK},      {"]", OP_RBRACK},     {"{", OP_LBRACE},
    {"}", OP_RBRACE},      {",", OP_COMMA},      {":", OP_COLON},
    {".", OP_DOT},         {";", OP_SEMI},       {"@", OP_AT},
    {"=", OP_ASSIGN},      {"+", OP_PLUS},       {"-", OP_MINUS},
    {"*", OP_STAR},        {"/", OP_SLASH},      {"%", OP_PERCENT},
    {"<", OP_LT},          {">", OP_GT},         {"&", OP_AMP},
    {"|", OP_PIPE},        {"^", OP_CARET},      {"~", OP_TILDE},
};

static int lex_op(lexer *lx) {
  pstate *ps = lx->ps;
  for (size_t k = 0; k < sizeof op_table / sizeof op_table[0]; k++) {
    size_t n = strlen(op_table[k].s);
    if (lx->i + n <= ps->len && memcmp(ps->src + lx->i, op_table[k].s, n) == 0) {
      int op = op_table[k].op;
      size_t off = lx->i;
      if (op == OP_LPAREN || op == OP_LBRACK || op == OP_LBRACE) {
        if (lx->nbrackets >= PS_MAX_BRACKETS) {
          char note[64];
          snprintf(note, sizeof note, "at most %d brackets may be open at once",
                   PS_MAX_BRACKETS);
          lex_fail(lx, off, note, "too many nested brackets");
          return 1;
        }
        lx->brackets[lx->nbrackets] = (uint32_t)off;
        lx->bracket_ch[lx->nbrackets++] = op_table[k].s[0];
      } else if (op == OP_RPAREN || op == OP_RBRACK || op == OP_RBRACE) {
        char want = op == OP_RPAREN ? '(' : op == OP_RBRACK ? '[' : '{';
        if (lx->nbrackets == 0) {
          lex_fail(lx, off, "remove it, or add the opening bracket it closes",
                   "unmatched '%s'", op_table[k].s);
          return 1;
        }
        if (lx->bracket_ch[lx->nbrackets - 1] != want) {
          char open = lx->bracket_ch[lx->nbrackets - 1];
          char note[96];
          snprintf(note, sizeof note, "the '%c' opened before needs '%c' first",
                   open, open == '(' ? ')' : open == '[' ? ']' : '}');
          lex_fail(lx, off, note, "closing '%s' does not match the open '%c'",
                   op_table[k].s, open);
          return 1;
        }
        lx->nbrackets--;
      }
      ptok *t = push_tok(lx, TK_OP, off, n);
      t->op = (uint8_t)op;
      lx->i += n;
      return 1;
    }
  }
  return 0;
}

/* ---- indentation ---- */

/* At the start of a line outside brackets: measure indentation, skip blank
 * and comment-only lines, emit INDENT/DEDENT. Returns 0 at end of input. */
static int lex_line_start(lexer *lx) {
  pstate *ps = lx->ps;
  for (;;) {
    uint32_t col = 0;
    while (lx->i < ps->len) {
      char c = ps->src[lx->i];
      if (c == ' ')
        col++;
      else if (c == '\t')
        col = (col / 8 + 1) * 8;
      else if (c == '\f')
        col = 0;
      else
        break;
      lx->i++;
      if (col > 100000)
        col = 100000;
    }
    if (lx->i >= ps->len)
      return 0;
    char c = ps->src[lx->i];
    if (c == '#') {
      while (lx->i < ps->len && ps->src[lx->i] != '\n' && ps->src[lx->i] != '\r')
        lx->i++;
      c = lx->i < ps->len ? ps->src[lx->i] : '\n';
    }
    if (c == '\r' || c == '\n') {
      if (c == '\r' && peekc(lx, 1) == '\n')
        lx->i++;
      lx->i++;
      continue;
    }
    if (c == '\\' && (peekc(lx, 1) == '\n' || peekc(lx, 1) == '\r')) {
      /* a continuation on an otherwise empty line: treat as blank */
      lx->i += 2;
      continue;
    }
    uint32_t top = lx->indents[lx->nindents - 1];
    if (col > top) {
      if (lx->nindents >= PS_MAX_INDENT) {
        char note[64];
        snprintf(note, sizeof note, "at most %d indentation levels are allowed",
                 PS_MAX_INDENT);
        lex_fail(lx, lx->i, note, "too many indentation levels");
        return 0;
      }
      lx->indents[lx->nindents++] = col;
      push_tok(lx, TK_INDENT, lx->i, 0);
    } else if (col < top) {
      while (lx->nindents > 1 && lx->indents[lx->nindents - 1] > col) {
        lx->nindents--;
        push_tok(lx, TK_DEDENT, lx->i, 0);
      }
      if (lx->indents[lx->nindents - 1] != col) {
        char note[256];
        int m = snprintf(note, sizeof note,
                         "indent this line by ");
        for (int k = lx->nindents - 1, first = 1; k >= 0 && m < 200; k--) {
          int last = k == 0 || (lx->nindents - k) >= 6;
          m += snprintf(note + m, sizeof note - (size_t)m, "%s%u",
                        first ? "" : last ? " or " : ", ", lx->indents[k]);
          first = 0;
          if (last)
            break;
        }
        snprintf(note + m, sizeof note - (size_t)m,
                 " columns to match an enclosing block");
        lex_fail(lx, lx->i, note,
                 "unindent does not match any outer indentation level");
        return 0;
      }
    }
    return 1;
  }
}

void ps_lex(pstate *ps) {
  lexer lx;
  memset(&lx, 0, sizeof lx);
  lx.ps = ps;
  lx.indents[0] = 0;
  lx.nindents = 1;
  int at_bol = 1;
  while (!lx.failed) {
    if (at_bol && lx.nbrackets == 0) {
      at_bol = 0;
      if (!lex_line_start(&lx))
        break;
    }
    if (lx.failed)
      break;
    if (lx.i >= ps->len)
      break;
    int c = (unsigned char)ps->src[lx.i];
    if (c == ' ' || c == '\t' || c == '\f') {
      lx.i++;
      continue;
    }
    if (c == '#') {
      while (lx.i < ps->len && ps->src[lx.i] != '\n' && ps->src[lx.i] != '\r')
        lx.i++;
      continue;
    }
    if (c == '\n' || c == '\r') {
      size_t off = lx.i;
      if (c == '\r' && peekc(&lx, 1) == '\n')
        lx.i++;
      lx.i++;
      if (lx.nbrackets == 0) {
        if (lx.line_has_tokens)
          push_tok(&lx, TK_NEWLINE, off, 0);
        lx.line_has_tokens = 0;
        at_bol = 1;
      }
      continue;
    }
    if (c == '\\') {
      int d = peekc(&lx, 1);
      if (d == '\n' || d == '\r') {
        lx.i += (d == '\r' && peekc(&lx, 2) == '\n') ? 3 : 2;
        continue;
      }
      lex_fail(&lx, lx.i, "a backslash may only end a line (line continuation)",
               "unexpected character after line continuation");
      break;
    }
    lx.line_has_tokens = 1;
    if (is_ident_start(c)) {
      size_t start = lx.i;
      while (lx.i < ps->len && is_ident((unsigned char)ps->src[lx.i]))
        lx.i++;
      size_t n = lx.i - start;
      int q = peekc(&lx, 0);
      if ((q == '"' || q == '\'') && n <= 2) {
        int raw = 0, ok = 1;
        for (size_t k = 0; k < n; k++) {
          int p = ps->src[start + k] | 0x20;
          if (p == 'r')
            raw = 1;
          else if (p != 'u')
            ok = 0;
        }
        if (ok) {
          lex_string(&lx, start, raw);
          continue;
        }
        lex_fail(&lx, start, "use a plain string literal \"...\"",
                 "byte strings and f-strings are not supported in TVMScript");
        break;
      }
      push_tok(&lx, TK_NAME, start, n);
      continue;
    }
    if (is_digit(c) || (c == '.' && is_digit(peekc(&lx, 1)))) {
      lex_number(&lx);
      continue;
    }
    if (c == '"' || c == '\'') {
      lex_string(&lx, lx.i, 0);
      continue;
    }
    if (lex_op(&lx))
      continue;
    char what[48];
    describe_char(ps, lx.i, what, sizeof what);
    lex_fail(&lx, lx.i,
             "TVMScript is Python source: names, numbers, strings, operators "
             "and brackets",
             "invalid character %s", what);
    break;
  }
  if (lx.failed)
    return;
  if (lx.nbrackets > 0) {
    char open = lx.bracket_ch[lx.nbrackets - 1];
    char note[96];
    snprintf(note, sizeof note, "add the closing '%c' before the end of the file",
             open == '(' ? ')' : open == '[' ? ']' : '}');
    lex_fail(&lx, lx.brackets[lx.nbrackets - 1], note, "'%c' was never closed",
             open);
    return;
  }
  if (lx.line_has_tokens)
    push_tok(&lx, TK_NEWLINE, ps->len, 0);
  while (lx.nindents > 1) {
    lx.nindents--;
    push_tok(&lx, TK_DEDENT, ps->len, 0);
  }
  push_tok(&lx, TK_EOF, ps->len, 0);
}
