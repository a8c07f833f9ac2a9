/*
 * TVMScript parser entry points, error reporting and scratch utilities.
 *
 * tsl_parse lexes the source (lexer.c), builds a Python syntax tree
 * (parser_syntax.c) and turns it into TensorIR (parser_func.c,
 * parser_stmt.c, parser_expr.c, parser_buffer.c). Every error formats the
 * diagnostic (file:line:col, the source line, a caret, a note) and longjmps
 * back here; all temporaries live in a scratch arena freed on both paths.
 */
#include "parser_internal.h"
#include "rx_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- scratch helpers ---- */

void *ps_alloc(pstate *ps, size_t n) { return tsl_arena_alloc(ps->scratch, n); }

void *ps_grow(pstate *ps, void *arr, uint32_t *cap, uint32_t need,
              size_t elem) {
  if (need <= *cap)
    return arr;
  uint32_t nc = *cap ? *cap : 8;
  while (nc < need)
    nc = nc > UINT32_MAX / 2 ? need : nc * 2;
  void *p = tsl_arena_alloc(ps->scratch, (size_t)nc * elem);
  if (arr && *cap)
    memcpy(p, arr, (size_t)*cap * elem);
  *cap = nc;
  return p;
}

tsl_str ps_intern(pstate *ps, const char *s, size_t n) {
  return tsl_intern_n(ps->ctx, s, n);
}

void ps_list_add(char *buf, size_t cap, const char *name) {
  size_t len = strlen(buf);
  if (len >= 4 && strcmp(buf + len - 3, "...") == 0)
    return;
  size_t need = strlen(name) + (len ? 2 : 0);
  if (len + need + 6 >= cap) {
    if (len + 6 < cap)
      strcpy(buf + len, len ? ", ..." : "...");
    return;
  }
  if (len) {
    buf[len++] = ',';
    buf[len++] = ' ';
  }
  strcpy(buf + len, name);
}

int ps_edit_distance(const char *a, size_t an, const char *b, size_t bn) {
  if (an > 63 || bn > 63)
    return 99;
  int row[64];
  for (size_t j = 0; j <= bn; j++)
    row[j] = (int)j;
  for (size_t i = 1; i <= an; i++) {
    int prev = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= bn; j++) {
      int cur = row[j];
      int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      int best = prev + cost;
      if (row[j] + 1 < best)
        best = row[j] + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      row[j] = best;
      prev = cur;
    }
  }
  return row[bn];
}

/* ---- positions ---- */

uint32_t ps_tok_off(const pstate *ps, uint32_t t) {
  return t < ps->ntoks ? ps->toks[t].off : (uint32_t)ps->len;
}

uint32_t ps_tok_end(const pstate *ps, uint32_t t) {
  return t < ps->ntoks ? ps->toks[t].off + ps->toks[t].len : (uint32_t)ps->len;
}

uint32_t ps_node_off(const pstate *ps, const anode *n) {
  return n ? ps_tok_off(ps, n->tok) : 0;
}

uint32_t ps_node_opoff(const pstate *ps, const anode *n) {
  return n ? ps_tok_off(ps, n->optok) : 0;
}

/* ---- diagnostics ---- */

_Noreturn void ps_fail(pstate *ps, const anode *n, const char *note,
                       const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  ps_note(ps, "%s", note ? note : "");
  ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n), "%s", msg);
}

void ps_note(pstate *ps, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ps->note, sizeof ps->note, fmt, ap);
  va_end(ap);
}

static int is_nl(char c) { return c == '\n' || c == '\r'; }

/* Length of the valid UTF-8 sequence at s (1 for ASCII), 0 if invalid. */
static size_t u8len(const unsigned char *s, size_t left) {
  if (s[0] < 0x80)
    return 1;
  size_t n = s[0] >= 0xc2 && s[0] <= 0xdf   ? 2
             : s[0] >= 0xe0 && s[0] <= 0xef ? 3
             : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4
                                            : 0;
  if (n == 0 || n > left)
    return 0;
  for (size_t k = 1; k < n; k++)
    if ((s[k] & 0xc0) != 0x80)
      return 0;
  return n;
}

void ps_error_at(pstate *ps, int status, uint32_t off, const char *fmt, ...) {
  const char *src = ps->src;
  size_t len = ps->len;
  if (off > len)
    off = (uint32_t)len;
  /* line number and line bounds */
  uint32_t line = 1;
  size_t ls = 0;
  for (size_t k = 0; k < off; k++) {
    if (src[k] == '\n' || (src[k] == '\r' && (k + 1 >= len || src[k + 1] != '\n'))) {
      line++;
      ls = k + 1;
    }
  }
  /* an offset at a line break belongs to the line it ends */
  size_t le = off;
  while (le < len && !is_nl(src[le]))
    le++;
  uint32_t col = 1;
  for (size_t k = ls; k < off; col++) {
    size_t n = u8len((const unsigned char *)src + k, len - k);
    k += n ? n : 1;
  }

  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);

  /* window on very long lines */
  size_t ws = ls, we = le;
  int pre = 0, post = 0;
  if (le - ls > 200) {
    if (off > ls + 100) {
      ws = off - 80;
      while (ws < off && ((unsigned char)src[ws] & 0xc0) == 0x80)
        ws++; /* start on a character boundary */
      pre = 1;
    }
    if (we > ws + 200) {
      we = ws + 200;
      if (we < off)
        we = off;
      while (we < le && ((unsigned char)src[we] & 0xc0) == 0x80)
        we++;
      post = 1;
    }
  }
  char text[1024], caret[1024];
  size_t tn = 0, cn = 0;
  if (pre) {
    memcpy(text, "...", 3);
    memcpy(caret, "   ", 3);
    tn = cn = 3;
  }
  for (size_t k = ws; k < we && tn + 8 < sizeof text;) {
    unsigned char c = (unsigned char)src[k];
    size_t n = u8len((const unsigned char *)src + k, len - k);
    if (n > 1) {
      memcpy(text + tn, src + k, n);
      tn += n;
    } else {
      text[tn++] = (c == '\t' || (c >= 0x20 && c < 0x7f)) ? (char)c : '?';
      n = 1;
    }
    if (k < off && cn + 2 < sizeof caret)
      caret[cn++] = c == '\t' ? '\t' : ' ';
    k += n;
  }
  if (post && tn + 4 < sizeof text) {
    memcpy(text + tn, "...", 3);
    tn += 3;
  }
  text[tn] = '\0';
  caret[cn++] = '^';
  caret[cn] = '\0';

  tsl_diag_set(ps->diag, status, "%s:%u:%u: error: %s\n%s\n%s",
               ps->file ? ps->file : "<input>", line, col, msg, text, caret);
  tsl_diag_append(ps->diag, "\nnote: %s",
                  ps->note[0] ? ps->note : "this construct is not valid TVMScript here");
  ps->status = status;
  longjmp(ps->jb, 1);
}

/* ---- entry points ---- */

/* The stages over one pstate; `model` set: @R.function functions are read
 * too (tsl_parse_model) and *out is a tsl_model, else a tsl_module. */
static int run(pstate *ps, tsl_model *model, const void **out) {
  if (setjmp(ps->jb))
    return ps->status;
  ps_lex(ps);
  uint32_t n = 0;
  astmt **stmts = ps_parse_file_syntax(ps, &n);
  if (model)
    ps->rx = ps_rx_new(ps, model);
  const tsl_module *tir = ps_build_module(ps, stmts, n);
  *out = model ? (const void *)ps_build_model(ps, tir) : (const void *)tir;
  return TSL_OK;
}

static int parse(tsl_arena *arena, const char *filename, const char *src, size_t len,
                 int model, uint32_t n_constants, const tsl_rx_sinfo *const *constants,
                 const void **out, tsl_diag *diag) {
  const char *fn = model ? "tsl_parse_model" : "tsl_parse";
  if (out)
    *out = NULL;
  if (!arena || !out || (!src && len))
    return tsl_diag_set(diag, TSL_EINVALID, "%s: arena, out and src must not be NULL", fn);
  if (len >= (size_t)UINT32_MAX - 16)
    return tsl_diag_set(diag, TSL_EINVALID, "%s: error: file too large",
                        filename ? filename : "<input>");
  pstate *ps = calloc(1, sizeof *ps);
  if (!ps)
    return tsl_diag_set(diag, TSL_ENOMEM, "out of memory");
  ps->ctx = tsl_arena_ctx(arena);
  ps->arena = arena;
  ps->scratch = tsl_arena_new(ps->ctx);
  ps->file = filename ? filename : "<input>";
  ps->src = src ? src : "";
  ps->len = len;
  ps->diag = diag;
  ps->n_constant_sinfo = constants ? n_constants : 0;
  ps->constant_sinfo = constants;
  tsl_model *m = NULL;
  if (model) {
    m = TSL_NEW(arena, tsl_model);
    m->struct_size = sizeof *m;
    m->arena = arena;
  }
  const void *r = NULL;
  int rc = run(ps, m, &r);
  if (ps->an)
    tsl_analyzer_free(ps->an);
  tsl_arena_free(ps->scratch);
  free(ps);
  if (rc == TSL_OK) {
    *out = r;
    if (diag)
      tsl_diag_set(diag, TSL_OK, "%s", "");
  }
  return rc;
}

int tsl_parse(tsl_arena *arena, const char *filename, const char *src, size_t len,
              const tsl_module **out, tsl_diag *diag) {
  const void *r = NULL;
  int rc = parse(arena, filename, src, len, 0, 0, NULL, out ? &r : NULL, diag);
  if (out)
    *out = r;
  return rc;
}

int tsl_parse_model(tsl_arena *arena, const char *filename, const char *src, size_t len,
                    const tsl_model **out, tsl_diag *diag) {
  const void *r = NULL;
  int rc = parse(arena, filename, src, len, 1, 0, NULL, out ? &r : NULL, diag);
  if (out)
    *out = r;
  return rc;
}

int tsl_parse_model_constants(tsl_arena *arena, const char *filename, const char *src,
                              size_t len, uint32_t n_constants,
                              const tsl_rx_sinfo *const *constants, const tsl_model **out,
                              tsl_diag *diag) {
  const void *r = NULL;
  int rc = parse(arena, filename, src, len, 1, n_constants, constants, out ? &r : NULL, diag);
  if (out)
    *out = r;
  return rc;
}

/* Read `path` and parse it as a program or a model. */
static int parse_file(tsl_arena *arena, const char *path, int model, const void **out,
                      tsl_diag *diag) {
  if (out)
    *out = NULL;
  char *src = NULL;
  size_t n = 0;
  int rc = tsl_read_file(path, &src, &n, diag);
  if (rc)
    return rc;
  rc = parse(arena, path, src, n, model, 0, NULL, out, diag);
  free(src);
  return rc;
}

int tsl_parse_model_file(tsl_arena *arena, const char *path, const tsl_model **out,
                         tsl_diag *diag) {
  const void *r = NULL;
  int rc = parse_file(arena, path, 1, out ? &r : NULL, diag);
  if (out)
    *out = r;
  return rc;
}

int tsl_parse_file(tsl_arena *arena, const char *path, const tsl_module **out,
                   tsl_diag *diag) {
  const void *r = NULL;
  int rc = parse_file(arena, path, 0, out ? &r : NULL, diag);
  if (out)
    *out = r;
  return rc;
}
