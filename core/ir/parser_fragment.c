/*
 * Expression fragments: one Python expression of TVMScript read on its own
 * (a schedule script's lambda body or T.* argument), with given variables
 * in scope. The fragment is parsed as a one-statement file whose text is
 * padded so that positions in messages are those of the enclosing file.
 */
#include "parser_internal.h"

#include <stdlib.h>
#include <string.h>

static tsl_expr_tree build(pstate *ps, const anode *n) {
  tsl_expr_tree t;
  memset(&t, 0, sizeof t);
  if (n->kind == AX_TUPLE || n->kind == AX_LIST) {
    t.kind = n->kind == AX_TUPLE ? TSL_TREE_TUPLE : TSL_TREE_LIST;
    t.n = n->n;
    tsl_expr_tree *items = TSL_NEW_ARRAY(ps->arena, tsl_expr_tree, n->n + 1);
    for (uint32_t i = 0; i < n->n; i++)
      items[i] = build(ps, n->items[i]);
    t.items = items;
    return t;
  }
  t.kind = TSL_TREE_EXPR;
  const tsl_expr *e = ps_typed(ps, ps_expr(ps, n));
  ps_check_height(ps, e, n);
  t.expr = e;
  return t;
}

static int run(pstate *ps, uint32_t n_vars, const tsl_var *const *vars,
               tsl_expr_tree *out) {
  if (setjmp(ps->jb))
    return ps->status;
  ps_lex(ps);
  uint32_t n = 0;
  astmt **stmts = ps_parse_file_syntax(ps, &n);
  if (n != 1 || stmts[0]->kind != AS_EXPR) {
    ps_note(ps, "write one expression, e.g. (i // 4, i %% 4)");
    ps_error_at(ps, TSL_EPARSE, n ? ps_tok_off(ps, stmts[0]->tok) : 0,
                "expected a single expression");
  }
  ps->tir_alias[ps->n_tir_alias++] = ps_intern(ps, "T", 1);
  ps_scope_push(ps);
  for (uint32_t i = 0; i < n_vars; i++) {
    psym *s = ps_define(ps, tsl_intern(ps->ctx, vars[i]->name), stmts[0]->tok, SYM_VAR);
    s->var_kind = VAR_PLAIN;
    s->var = vars[i];
  }
  *out = build(ps, stmts[0]->value);
  return TSL_OK;
}

int tsl_parse_fragment(tsl_arena *arena, const char *filename, uint32_t line,
                       uint32_t col, const char *src, size_t len,
                       uint32_t n_vars, const tsl_var *const *vars,
                       tsl_expr_tree *out, tsl_diag *diag) {
  memset(out, 0, sizeof *out);
  if (!arena || !src || len > (1u << 24) || line > (1u << 20) || col > (1u << 16))
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_parse_fragment: bad arguments");
  /* "(" + newlines + spaces + text + ")": the text starts at line:col and
   * the parentheses let it span lines */
  if (line < 1)
    line = 1;
  if (col < 1)
    col = 1;
  uint32_t pad_cols = line == 1 ? (col > 2 ? col - 2 : 0) : col - 1;
  size_t total = 1 + (line - 1) + pad_cols + len + 1;
  char *text = malloc(total + 1);
  if (!text)
    return tsl_diag_set(diag, TSL_ENOMEM, "out of memory");
  size_t k = 0;
  text[k++] = '(';
  for (uint32_t i = 1; i < line; i++)
    text[k++] = '\n';
  for (uint32_t i = 0; i < pad_cols; i++)
    text[k++] = ' ';
  memcpy(text + k, src, len);
  k += len;
  text[k++] = ')';
  text[k] = 0;
  pstate *ps = calloc(1, sizeof *ps);
  if (!ps) {
    free(text);
    return tsl_diag_set(diag, TSL_ENOMEM, "out of memory");
  }
  ps->ctx = tsl_arena_ctx(arena);
  ps->arena = arena;
  ps->scratch = tsl_arena_new(ps->ctx);
  ps->file = filename ? filename : "<input>";
  ps->src = text;
  ps->len = k;
  ps->diag = diag;
  int rc = run(ps, n_vars, vars, out);
  if (ps->an)
    tsl_analyzer_free(ps->an);
  tsl_arena_free(ps->scratch);
  free(ps);
  free(text);
  if (rc)
    memset(out, 0, sizeof *out);
  return rc;
}
