/*
 * TVMScript symbol table: one stack per function, scopes separated by
 * marks. Names are interned, so lookups compare pointers. Block iteration
 * variables that go out of scope are remembered to explain later misuse.
 */
#include "parser_internal.h"

#include <stdio.h>
#include <string.h>

static psym *push_sym(pstate *ps) {
  ps->syms = ps_grow(ps, ps->syms, &ps->capsyms, ps->nsyms + 1, sizeof *ps->syms);
  psym *s = &ps->syms[ps->nsyms++];
  memset(s, 0, sizeof *s);
  return s;
}

void ps_scope_push(pstate *ps) { push_sym(ps)->kind = SYM_MARK; }

void ps_scope_pop(pstate *ps, const char *block_name) {
  while (ps->nsyms > 0) {
    psym *s = &ps->syms[--ps->nsyms];
    if (s->kind == SYM_MARK)
      return;
    if (block_name && s->kind == SYM_VAR && s->var_kind == VAR_ITER) {
      ps->dead = ps_grow(ps, ps->dead, &ps->capdead, ps->ndead + 1, sizeof *ps->dead);
      ps->dead[ps->ndead].name = s->name;
      ps->dead[ps->ndead].block = block_name;
      ps->ndead++;
    }
  }
}

psym *ps_lookup(pstate *ps, const char *name) {
  for (uint32_t i = ps->nsyms; i-- > 0;)
    if (ps->syms[i].kind != SYM_MARK && ps->syms[i].name == name)
      return &ps->syms[i];
  return NULL;
}

const pdead *ps_lookup_dead(pstate *ps, const char *name) {
  for (uint32_t i = ps->ndead; i-- > 0;)
    if (ps->dead[i].name == name)
      return &ps->dead[i];
  return NULL;
}

static uint32_t line_of(const pstate *ps, uint32_t tok) {
  uint32_t off = ps_tok_off(ps, tok), line = 1;
  for (uint32_t k = 0; k < off && k < ps->len; k++)
    if (ps->src[k] == '\n')
      line++;
  return line;
}

/* A name defined in the innermost scope (since the last mark), or NULL. */
static psym *lookup_innermost(pstate *ps, const char *name) {
  for (uint32_t i = ps->nsyms; i-- > 0 && ps->syms[i].kind != SYM_MARK;)
    if (ps->syms[i].name == name)
      return &ps->syms[i];
  return NULL;
}

/* A definition shadows a name of an enclosing scope until its own scope
 * ends, as TVMScript's variable frames do (the course writes `n, k =
 * T.int64(), T.int64()` and then `for i, j, k in T.grid(1, n, m)`); two
 * definitions of one name in one scope are an error. */
psym *ps_define(pstate *ps, const char *name, uint32_t tok, int kind) {
  psym *old = lookup_innermost(ps, name);
  if (old) {
    ps_note(ps, "'%s' is already defined on line %u; choose another name", name,
            line_of(ps, old->tok));
    ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, tok), "redefinition of '%s'", name);
  }
  psym *s = push_sym(ps);
  s->kind = (uint8_t)kind;
  s->name = name;
  s->tok = tok;
  return s;
}

void ps_scope_names(pstate *ps, int kind, char *buf, size_t cap) {
  buf[0] = '\0';
  for (uint32_t i = 0; i < ps->nsyms; i++) {
    const psym *s = &ps->syms[i];
    if (s->kind == SYM_MARK)
      continue;
    if (kind >= 0 ? s->kind == kind : (s->kind == SYM_VAR || s->kind == SYM_HANDLE))
      ps_list_add(buf, cap, s->name);
  }
}
