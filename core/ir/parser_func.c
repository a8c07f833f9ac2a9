/*
 * TVMScript module level: imports (namespace aliases), the @I.ir_module
 * class or the lone @T.prim_func, parameters (T.Buffer, T.handle, scalar
 * dtypes), and the function body with its root block: an explicit
 * `with T.block("root"):` when that is the only statement besides function
 * headers (T.func_attr, size variables, T.match_buffer of handles), else an
 * implicit root block around the whole body.
 */
#include "parser_internal.h"
#include "rx_internal.h"
#include "tessel/visit.h"

#include <stdio.h>
#include <string.h>

static int node_is(const anode *n, const char *s) {
  size_t k = strlen(s);
  return n && n->slen == k && memcmp(n->s, s, k) == 0;
}

/* Last component of a decorator's dotted name ("prim_func"), prefix
 * checked: "" or a T / I / tvm.script namespace. */
static int decorator_is(pstate *ps, const anode *d, const char *what) {
  if (d->kind == AX_CALL)
    d = d->a;
  if (d->kind == AX_NAME)
    return node_is(d, what) && !ps_lookup(ps, ps_intern(ps, d->s, d->slen));
  char path[256];
  if (!ps_dotted(ps, d, path, sizeof path))
    return 0;
  size_t pl = strlen(path), wl = strlen(what);
  if (pl <= wl + 1 || strcmp(path + pl - wl, what) != 0 || path[pl - wl - 1] != '.')
    return 0;
  path[pl - wl - 1] = '\0';
  if (!strcmp(what, "prim_func"))
    return !strcmp(path, "T");
  return !strcmp(path, "I") || !strcmp(path, "tvm.script") || !strcmp(path, "tvm");
}

static void add_alias(pstate *ps, const char **arr, uint32_t *n, const char *s, size_t len) {
  if (*n >= 8)
    return;
  arr[(*n)++] = ps_intern(ps, s, len);
}

static void record_import(pstate *ps, const astmt *s) {
  for (uint32_t i = 0; i < s->nimports; i++) {
    const aimport *im = &s->imports[i];
    const char *last = im->name;
    uint32_t ll = im->name_len;
    for (uint32_t k = 0; k < im->name_len; k++)
      if (im->name[k] == '.') {
        last = im->name + k + 1;
        ll = im->name_len - k - 1;
      }
    const char *as = im->asname ? im->asname : im->name;
    uint32_t al = im->asname ? im->asname_len : im->name_len;
    if (!im->asname && last != im->name)
      continue; /* import tvm.script.tir binds "tvm" */
    if (ll == 3 && memcmp(last, "tir", 3) == 0)
      add_alias(ps, ps->tir_alias, &ps->n_tir_alias, as, al);
    else if (ll == 2 && memcmp(last, "ir", 2) == 0)
      add_alias(ps, ps->ir_alias, &ps->n_ir_alias, as, al);
    else if (ll == 5 && memcmp(last, "relax", 5) == 0)
      add_alias(ps, ps->relax_alias, &ps->n_relax_alias, as, al);
  }
}

/* ---- parameters ---- */

enum { P_BUFFER, P_HANDLE, P_SCALAR };

static int param_kind(pstate *ps, const anode *ann, tsl_dtype *t) {
  char path[256];
  const anode *callee = (ann->kind == AX_CALL || ann->kind == AX_SUBSCRIPT) ? ann->a : ann;
  if (!ps_dotted(ps, callee, path, sizeof path) || strncmp(path, "T.", 2) != 0)
    return -1;
  if (strcmp(path, "T.Buffer") == 0 && ann->kind != AX_ATTR)
    return P_BUFFER;
  if (strcmp(path, "T.handle") == 0 && ann->kind != AX_SUBSCRIPT)
    return P_HANDLE;
  if ((ann->kind == AX_ATTR || (ann->kind == AX_CALL && ann->n == 0)) &&
      tsl_dtype_parse(path + 2, strlen(path + 2), t) && !tsl_dtype_is_void(*t))
    return P_SCALAR;
  return -1;
}

static void read_params(pstate *ps, const astmt *def, pfunc *f) {
  f->n_params = def->nparams;
  f->params = ps_alloc(ps, sizeof *f->params * (def->nparams ? def->nparams : 1));
  static const char *const usage =
      "annotate parameters as A: T.Buffer((128, 128), \"float32\"), x: T.handle or n: T.int32";
  for (int pass = 0; pass < 2; pass++) {
    for (uint32_t i = 0; i < def->nparams; i++) {
      const aparam *p = &def->params[i];
      tsl_str name = ps_intern(ps, p->name, p->len);
      if (pass == 0) {
        for (uint32_t j = 0; j < i; j++)
          if (def->params[j].len == p->len && !memcmp(def->params[j].name, p->name, p->len)) {
            ps_note(ps, "parameter names must be unique");
            ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, p->tok), "duplicate parameter '%s'",
                        name);
          }
        if (!p->ann) {
          ps_note(ps, "%s", usage);
          ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, p->tok),
                      "parameter '%s' has no annotation", name);
        }
        if (p->def) {
          ps_note(ps, "remove the default value");
          ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, p->def),
                      "parameter default values are not supported");
        }
      }
      tsl_dtype t;
      int k = param_kind(ps, p->ann, &t);
      if (k < 0) {
        ps_note(ps, "%s", usage);
        ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, p->ann),
                    "unsupported annotation for parameter '%s'", name);
      }
      if ((k == P_BUFFER) != (pass == 1))
        continue;
      if (k == P_BUFFER) {
        ps->in_bufmap = 1;
        const tsl_buffer *b = ps_buffer_from_annotation(ps, name, p->ann);
        ps->in_bufmap = 0;
        f->params[i].var = tsl_var_new(ps->arena, name, TSL_HANDLE);
        f->params[i].buffer = b;
        psym *s = ps_define(ps, name, p->tok, SYM_BUFFER);
        s->buf = b;
      } else if (k == P_HANDLE) {
        f->params[i].var = tsl_var_new(ps->arena, name, TSL_HANDLE);
        psym *s = ps_define(ps, name, p->tok, SYM_HANDLE);
        s->var = f->params[i].var;
        s->param_index = i;
      } else {
        f->params[i].var = tsl_var_new(ps->arena, name, t);
        psym *s = ps_define(ps, name, p->tok, SYM_VAR);
        s->var_kind = VAR_PARAM;
        s->var = f->params[i].var;
      }
    }
  }
}

/* ---- body ---- */

static int is_size_decl(pstate *ps, const anode *v) {
  char path[256];
  tsl_dtype t;
  return v && v->kind == AX_CALL && v->n == 0 && ps_dotted(ps, v->a, path, sizeof path) &&
         strncmp(path, "T.", 2) == 0 && strcmp(path + 2, "handle") != 0 &&
         tsl_dtype_parse(path + 2, strlen(path + 2), &t);
}

/* Statements that belong to the function, not to its root block. */
static int is_header(pstate *ps, const astmt *s) {
  switch ((astmt_kind)s->kind) {
  case AS_PASS:
  case AS_IMPORT:
    return 1;
  case AS_RETURN:
    return s->value == NULL;
  case AS_EXPR:
    return s->value->kind == AX_STR || ps_is_tcall(ps, s->value, "T.func_attr");
  case AS_ASSIGN: {
    const anode *v = s->value;
    if (is_size_decl(ps, v))
      return 1;
    if (v->kind == AX_TUPLE && v->n > 0) {
      for (uint32_t i = 0; i < v->n; i++)
        if (!is_size_decl(ps, v->items[i]))
          return 0;
      return 1;
    }
    if (ps_is_tcall(ps, v, "T.match_buffer") && v->n > 0 && v->items[0]->kind == AX_NAME) {
      psym *h = ps_lookup(ps, ps_intern(ps, v->items[0]->s, v->items[0]->slen));
      return h && h->kind == SYM_HANDLE;
    }
    return 0;
  }
  default:
    return 0;
  }
}

static int is_root_with(pstate *ps, const astmt *s) {
  if (s->kind != AS_WITH || !ps_is_tcall(ps, s->value, "T.block"))
    return 0;
  const anode *c = s->value;
  const anode *nm = c->n > 0 ? c->items[0] : NULL;
  for (uint32_t k = 0; !nm && k < c->nkw; k++)
    if (c->kwlen[k] == 4 && memcmp(c->kwname[k], "name", 4) == 0)
      nm = c->kwval[k];
  return nm && nm->kind == AX_STR && nm->slen == 4 && memcmp(nm->s, "root", 4) == 0;
}

static const tsl_stmt *func_body(pstate *ps, const astmt *def) {
  uint32_t nonheader = 0;
  const astmt *root = NULL;
  for (uint32_t i = 0; i < def->nbody; i++) {
    if (is_header(ps, def->body[i]))
      continue;
    nonheader++;
    if (is_root_with(ps, def->body[i]))
      root = def->body[i];
  }
  ps->top = 1;
  if (nonheader == 1 && root) {
    const tsl_stmt *body = NULL;
    for (uint32_t i = 0; i < def->nbody; i++) {
      if (def->body[i] == root)
        body = ps_block_stmt(ps, root, 1);
      else
        (void)ps_stmts(ps, &def->body[i], 1, NULL);
    }
    return body;
  }
  pblock b;
  memset(&b, 0, sizeof b);
  b.name = ps_intern(ps, "root", 4);
  b.tok = def->tok;
  b.is_root = 1;
  b.implicit = 1;
  ps->cur_block = &b;
  const tsl_stmt *body = ps_stmts(ps, def->body, def->nbody, &b);
  ps->cur_block = NULL;
  const tsl_block *blk = ps_finish_block(ps, &b, body);
  return tsl_stmt_block_realize(ps->arena, 0, NULL, NULL, blk);
}

static int buffer_binds(const tsl_buffer *b, const tsl_var *v) {
  for (uint32_t d = 0; d < b->ndim; d++)
    if (tsl_expr_uses_var(b->shape[d], v) || (b->strides && tsl_expr_uses_var(b->strides[d], v)))
      return 1;
  return b->elem_offset && tsl_expr_uses_var(b->elem_offset, v);
}

typedef struct match_bind {
  const tsl_var *var;
  int bound;
} match_bind;

static int block_match_binds(const tsl_block *b, const tsl_stmt *realize, void *ud) {
  (void)realize;
  match_bind *m = ud;
  for (uint32_t i = 0; i < b->n_match_buffers && !m->bound; i++)
    m->bound = buffer_binds(b->match_buffers[i].buffer, m->var);
  return m->bound;
}

/* A size variable used in the body must be bound by a parameter buffer's
 * shape (TVM's buffer_map) or by a block's T.match_buffer (strides and
 * elem_offset of a region view, as tensor intrinsics use), else nothing
 * defines its value. */
static void check_size_vars(pstate *ps, const pfunc *f, const tsl_stmt *body) {
  for (uint32_t i = 0; i < f->n_size; i++) {
    const psize *z = &f->sizes[i];
    if (!z->used)
      continue;
    int bound = 0;
    for (uint32_t p = 0; p < f->n_params && !bound; p++)
      bound = f->params[p].buffer && buffer_binds(f->params[p].buffer, z->var);
    if (!bound && body) {
      match_bind m = {z->var, 0};
      tsl_stmt_visitor v = {.block = block_match_binds, .user_data = &m};
      tsl_stmt_visit(body, &v);
      bound = m.bound;
    }
    if (!bound) {
      ps_note(ps, "use '%s' in the shape of a parameter buffer, as in "
                  "A = T.match_buffer(a, (%s,)), or make it a scalar parameter (%s: T.%s)",
              z->var->name, z->var->name, z->var->name,
              z->var->dtype.bits == 64 ? "int64" : "int32");
      ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, z->use_tok),
                  "size variable '%s' is not bound by any parameter buffer's shape",
                  z->var->name);
    }
  }
}

static const tsl_func *build_func(pstate *ps, const astmt *def) {
  ps->nsyms = 0;
  ps->ndead = 0;
  ps->stmt_depth = 0;
  ps->cur_block = NULL;
  pfunc f;
  memset(&f, 0, sizeof f);
  ps->func = &f;
  ps_scope_push(ps);
  read_params(ps, def, &f);
  if (def->ann && def->ann->kind != AX_NONE) {
    ps_note(ps, "a prim_func returns None: write '-> None' or nothing");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, def->ann),
                "unsupported return annotation");
  }
  const tsl_stmt *body = func_body(ps, def);
  ps_scope_pop(ps, NULL);
  check_size_vars(ps, &f, body);
  tsl_func *fn = TSL_NEW(ps->arena, tsl_func);
  fn->name = ps_intern(ps, def->name, def->namelen);
  fn->n_params = f.n_params;
  fn->params =
      f.n_params ? tsl_arena_dup(ps->arena, f.params, sizeof *f.params * f.n_params) : NULL;
  fn->attrs = f.attrs;
  fn->body = body;
  ps->func = NULL;
  return fn;
}

static void check_prim_func(pstate *ps, const astmt *def, int in_class) {
  const anode *deco = NULL;
  for (uint32_t i = 0; i < def->ndecorators; i++) {
    if (decorator_is(ps, def->decorators[i], "prim_func")) {
      deco = def->decorators[i];
      continue;
    }
    char path[256] = "?";
    const anode *d = def->decorators[i]->kind == AX_CALL ? def->decorators[i]->a
                                                          : def->decorators[i];
    if (ps_is_rx_function(ps, def))
      snprintf(path, sizeof path, "R.function");
    else if (!ps_dotted(ps, d, path, sizeof path) && d->kind == AX_NAME)
      snprintf(path, sizeof path, "%.*s", (int)d->slen, d->s);
    ps_note(ps, "decorate TensorIR functions with @T.prim_func%s",
            strstr(path, "R.") == path ? " (a model with @R.function functions is read by "
                                         "commands that take models, e.g. tessel fmt)" : "");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, def->decorators[i]),
                "unsupported decorator '@%s'", path);
  }
  if (!deco) {
    ps_note(ps, "add @T.prim_func on the line before 'def'");
    ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, def->tok),
                "function '%.*s' is not a @T.prim_func%s", (int)def->namelen, def->name,
                in_class ? "" : "");
  }
  if (deco->kind == AX_CALL) {
    static const char *const kws[] = {"private", "check_well_formed", NULL};
    ps_check_kwargs(ps, deco, "T.prim_func", kws);
    if (deco->n > 0) {
      ps_note(ps, "write @T.prim_func or @T.prim_func(private=True)");
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, deco->items[0]),
                  "T.prim_func takes only keyword arguments");
    }
  }
}

const tsl_module *ps_build_module(pstate *ps, astmt **stmts, uint32_t n) {
  ps->n_tir_alias = ps->n_ir_alias = ps->n_relax_alias = 0;
  add_alias(ps, ps->tir_alias, &ps->n_tir_alias, "T", 1);
  add_alias(ps, ps->ir_alias, &ps->n_ir_alias, "I", 1);
  add_alias(ps, ps->relax_alias, &ps->n_relax_alias, "R", 1);
  const astmt *found = NULL;
  static const char *const top_note =
      "a TVMScript file holds imports and one @I.ir_module class of @T.prim_func functions, "
      "or a single @T.prim_func";
  for (uint32_t i = 0; i < n; i++) {
    const astmt *s = stmts[i];
    switch ((astmt_kind)s->kind) {
    case AS_IMPORT:
      record_import(ps, s);
      continue;
    case AS_PASS:
      continue;
    case AS_EXPR:
      if (s->value->kind == AX_STR)
        continue;
      break;
    case AS_CLASSDEF:
    case AS_FUNCDEF:
      if (found) {
        ps_note(ps, "put several functions into one @I.ir_module class");
        ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, s->tok),
                    "a second top-level %s; a file holds one module or one prim_func",
                    s->kind == AS_CLASSDEF ? "class" : "function");
      }
      found = s;
      continue;
    default:
      break;
    }
    ps_note(ps, "%s", top_note);
    ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, s->tok), "unexpected statement at module level");
  }
  if (!found) {
    ps_note(ps, "%s", top_note);
    ps_error_at(ps, TSL_EINVALID, 0, "no @T.prim_func function or @I.ir_module class found");
  }
  tsl_module *m = TSL_NEW(ps->arena, tsl_module);
  m->arena = ps->arena;
  if (found->kind == AS_FUNCDEF) {
    check_prim_func(ps, found, 0);
    const tsl_func **fs = TSL_NEW_ARRAY(ps->arena, const tsl_func *, 1);
    fs[0] = build_func(ps, found);
    m->is_bare_func = 1;
    m->n_funcs = 1;
    m->funcs = fs;
    return m;
  }
  /* @I.ir_module class */
  int is_mod = 0;
  for (uint32_t i = 0; i < found->ndecorators; i++) {
    if (decorator_is(ps, found->decorators[i], "ir_module")) {
      is_mod = 1;
      continue;
    }
    ps_note(ps, "decorate the module class with @I.ir_module");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, found->decorators[i]),
                "unsupported class decorator");
  }
  if (!is_mod) {
    ps_note(ps, "add @I.ir_module on the line before 'class'");
    ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, found->tok),
                "class '%.*s' is not an @I.ir_module", (int)found->namelen, found->name);
  }
  m->name = ps_intern(ps, found->name, found->namelen);
  const tsl_func **fs =
      TSL_NEW_ARRAY(ps->arena, const tsl_func *, found->nbody ? found->nbody : 1);
  uint32_t nf = 0, n_rx = 0;
  for (uint32_t i = 0; i < found->nbody; i++) {
    const astmt *s = found->body[i];
    if (s->kind == AS_PASS || (s->kind == AS_EXPR && s->value->kind == AX_STR))
      continue;
    if (s->kind != AS_FUNCDEF) {
      ps_note(ps, "an @I.ir_module class holds @T.prim_func functions only");
      ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, s->tok),
                  "unexpected statement in module class '%s'", m->name);
    }
    if (ps->rx && ps_is_rx_function(ps, s)) {
      ps_add_rx_def(ps, s);
      n_rx++;
      continue;
    }
    check_prim_func(ps, s, 1);
    tsl_str fname = ps_intern(ps, s->name, s->namelen);
    for (uint32_t j = 0; j < nf; j++)
      if (fs[j]->name == fname) {
        ps_note(ps, "function names in a module must be unique");
        ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, s->nametok), "duplicate function '%s'",
                    fname);
      }
    fs[nf++] = build_func(ps, s);
  }
  if (nf == 0 && n_rx == 0) {
    ps_note(ps, "add at least one @T.prim_func method to the class");
    ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, found->nametok),
                "module '%s' has no @T.prim_func functions", m->name);
  }
  m->n_funcs = nf;
  m->funcs = fs;
  return m;
}
