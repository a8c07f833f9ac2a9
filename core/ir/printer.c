/*
 * TVMScript printer: modules and functions (the public entry points).
 *
 * A function prints its signature (constant-shaped buffer parameters as
 * `A: T.Buffer((128,), "float32")`, others as `var_A: T.handle` matched in
 * the body), T.func_attr, definitions of the symbolic variables it uses
 * (`n = T.int32()`), the T.match_buffer lines, and the root block, which is
 * implicit (`# with T.block("root"):`) when it carries nothing but buffers.
 * See printer_stmt.c and printer_expr.c for the rest.
 */
#include "printer_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- free (symbolic) variables of a function ---- */

typedef struct ptrset {
  const void **keys;
  size_t cap, n;
} ptrset;

static size_t ptr_hash(const void *k, size_t cap) {
  uint64_t x = (uint64_t)(uintptr_t)k;
  x ^= x >> 33;
  x *= UINT64_C(0xff51afd7ed558ccd);
  x ^= x >> 33;
  return (size_t)x & (cap - 1);
}

static int ptrset_has(const ptrset *s, const void *k) {
  if (!s->cap)
    return 0;
  for (size_t i = ptr_hash(k, s->cap);; i = (i + 1) & (s->cap - 1)) {
    if (s->keys[i] == k)
      return 1;
    if (!s->keys[i])
      return 0;
  }
}

/* 1 when newly added. */
static int ptrset_add(ptrset *s, const void *k) {
  if (ptrset_has(s, k))
    return 0;
  if ((s->n + 1) * 2 > s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 64;
    const void **keys = calloc(cap, sizeof *keys);
    if (!keys)
      abort();
    for (size_t i = 0; i < s->cap; i++)
      if (s->keys[i]) {
        size_t j = ptr_hash(s->keys[i], cap);
        while (keys[j])
          j = (j + 1) & (cap - 1);
        keys[j] = s->keys[i];
      }
    free(s->keys);
    s->keys = keys;
    s->cap = cap;
  }
  size_t j = ptr_hash(k, s->cap);
  while (s->keys[j])
    j = (j + 1) & (s->cap - 1);
  s->keys[j] = k;
  s->n++;
  return 1;
}

typedef struct fv_walk {
  int collect_uses; /* pass 1: definitions; pass 2: uses */
  ptrset defined, seen;
  tsl_vec order; /* const tsl_var * */
} fv_walk;

static void fv_expr(fv_walk *w, const tsl_expr *e) {
  if (!e)
    return;
  if (e->kind == TSL_EXPR_VAR) {
    const tsl_var *v = e->u.var;
    if (w->collect_uses && !ptrset_has(&w->defined, v) &&
        ptrset_add(&w->seen, v))
      TSL_VEC_PUSH(&w->order, const tsl_var *, v);
    return;
  }
  for (uint32_t i = 0; i < e->n_args; i++)
    fv_expr(w, e->args[i]);
}

static void fv_def(fv_walk *w, const tsl_var *v) {
  if (!w->collect_uses && v)
    ptrset_add(&w->defined, v);
}

static void fv_attr_value(fv_walk *w, const tsl_attr_value *v);

static void fv_attrs(fv_walk *w, tsl_attrs a) {
  for (uint32_t i = 0; i < a.n; i++)
    fv_attr_value(w, &a.items[i].value);
}

static void fv_attr_value(fv_walk *w, const tsl_attr_value *v) {
  if (v->kind == TSL_ATTR_EXPR)
    fv_expr(w, v->u.expr);
  else if (v->kind == TSL_ATTR_LIST)
    for (uint32_t i = 0; i < v->n; i++)
      fv_attr_value(w, &v->u.items[i]);
  else if (v->kind == TSL_ATTR_DICT)
    fv_attrs(w, v->u.dict);
}

/* The elem_offset variable a view's declaration defines (`view`: a match
 * buffer or a parameter, pr_implicit_offset) is defined there in both
 * passes. */
static void fv_buffer(fv_walk *w, const tsl_buffer *b, int view) {
  for (uint32_t i = 0; i < b->ndim; i++) {
    fv_expr(w, b->shape[i]);
    if (b->strides)
      fv_expr(w, b->strides[i]);
  }
  if (view && pr_implicit_offset(b)) {
    if (!ptrset_has(&w->seen, b->elem_offset->u.var))
      ptrset_add(&w->defined, b->elem_offset->u.var);
    return;
  }
  fv_expr(w, b->elem_offset);
}

static void fv_region(fv_walk *w, const tsl_buffer_region *r) {
  for (uint32_t i = 0; i < r->ndim; i++) {
    fv_expr(w, r->ranges[i].min);
    fv_expr(w, r->ranges[i].extent);
  }
}

static void fv_stmt(fv_walk *w, const tsl_stmt *s) {
  if (!s)
    return;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    fv_def(w, s->u.loop.loop_var);
    fv_expr(w, s->u.loop.min);
    fv_expr(w, s->u.loop.extent);
    fv_attrs(w, s->u.loop.annotations);
    fv_stmt(w, s->u.loop.body);
    return;
  case TSL_STMT_BLOCK_REALIZE: {
    const tsl_block *b = s->u.realize.block;
    for (uint32_t i = 0; i < s->u.realize.n_iter_values; i++)
      fv_expr(w, s->u.realize.iter_values[i]);
    fv_expr(w, s->u.realize.predicate);
    for (uint32_t i = 0; i < b->n_iter_vars; i++) {
      fv_def(w, b->iter_vars[i].var);
      fv_expr(w, b->iter_vars[i].dom.min);
      fv_expr(w, b->iter_vars[i].dom.extent);
    }
    for (uint32_t i = 0; i < b->n_reads; i++)
      fv_region(w, &b->reads[i]);
    for (uint32_t i = 0; i < b->n_writes; i++)
      fv_region(w, &b->writes[i]);
    fv_attrs(w, b->annotations);
    for (uint32_t i = 0; i < b->n_alloc_buffers; i++)
      fv_buffer(w, b->alloc_buffers[i], 0);
    for (uint32_t i = 0; i < b->n_match_buffers; i++) {
      fv_region(w, &b->match_buffers[i].source);
      fv_buffer(w, b->match_buffers[i].buffer, 1);
    }
    fv_stmt(w, b->init);
    fv_stmt(w, b->body);
    return;
  }
  case TSL_STMT_STORE:
    for (uint32_t i = 0; i < s->u.store.n_indices; i++)
      fv_expr(w, s->u.store.indices[i]);
    fv_expr(w, s->u.store.value);
    return;
  case TSL_STMT_IF:
    fv_expr(w, s->u.branch.cond);
    fv_stmt(w, s->u.branch.then_case);
    fv_stmt(w, s->u.branch.else_case);
    return;
  case TSL_STMT_LET:
    fv_def(w, s->u.let.var);
    fv_expr(w, s->u.let.value);
    fv_stmt(w, s->u.let.body);
    return;
  case TSL_STMT_EVALUATE:
    fv_expr(w, s->u.evaluate.value);
    return;
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      fv_stmt(w, s->u.seq.stmts[i]);
    return;
  case TSL_STMT_ALLOCATE:
    fv_buffer(w, s->u.alloc.buffer, 0);
    fv_stmt(w, s->u.alloc.body);
    return;
  default:
    return;
  }
}

/* ---- functions ---- */

enum { PARAM_SCALAR, PARAM_BUFFER, PARAM_HANDLE };

static int is_const_expr(const tsl_expr *e) {
  return !e || tsl_expr_is_const_int(e, NULL);
}

/* A buffer parameter prints in the signature when nothing in its
 * declaration needs a variable. */
static int param_kind(const tsl_param *prm) {
  const tsl_buffer *b = prm->buffer;
  if (!b)
    return PARAM_SCALAR;
  for (uint32_t i = 0; i < b->ndim; i++)
    if (!is_const_expr(b->shape[i]) || (b->strides && !is_const_expr(b->strides[i])))
      return PARAM_HANDLE;
  return is_const_expr(b->elem_offset) || pr_implicit_offset(b) ? PARAM_BUFFER : PARAM_HANDLE;
}

static int is_root_realize(const tsl_stmt *s) {
  return s && s->kind == TSL_STMT_BLOCK_REALIZE && s->u.realize.block &&
         s->u.realize.block->name &&
         strcmp(s->u.realize.block->name, "root") == 0 &&
         s->u.realize.block->n_iter_vars == 0;
}

static void pr_func_body(pr_t *p, const tsl_stmt *body) {
  if (!is_root_realize(body)) {
    pr_stmt(p, body);
    return;
  }
  const tsl_block *b = body->u.realize.block;
  int implicit = b->annotations.n == 0 && b->n_match_buffers == 0 &&
                 b->n_reads == 0 && b->n_writes == 0 && !b->init &&
                 pr_is_const_true(body->u.realize.predicate);
  if (!implicit) {
    pr_stmt(p, body);
    return;
  }
  size_t mark = pr_scope_mark(p);
  pr_line(p);
  pr_puts(p, "# with T.block(\"root\"):");
  pr_newline(p);
  for (uint32_t i = 0; i < b->n_alloc_buffers; i++)
    pr_define(p, b->alloc_buffers[i], NULL, b->alloc_buffers[i]->name, "buf");
  pr_alloc_buffers(p, b->n_alloc_buffers, b->alloc_buffers);
  pr_stmt(p, b->body);
  pr_scope_pop(p, mark);
}

static const char *handle_prefix(const tsl_param *prm) {
  if (!prm->var || !prm->var->name || !*prm->var->name ||
      strcmp(prm->var->name, prm->buffer->name ? prm->buffer->name : "") == 0)
    return "var_";
  return NULL;
}

void pr_prim_func(pr_t *p, const tsl_func *f) {
  char dt[32];
  size_t mark = pr_scope_mark(p);
  pr_line(p);
  pr_puts(p, "@T.prim_func");
  pr_newline(p);

  /* the function name is a class attribute / module name, not a local */
  pr_define(p, f, NULL, f->name, "main");
  const char *fname = TSL_VEC_LAST(&p->names, pr_name).name;
  pr_line(p);
  pr_printf(p, "def %s(", fname);
  pr_scope_pop(p, mark);

  int *kinds = calloc(f->n_params ? f->n_params : 1, sizeof *kinds);
  if (!kinds)
    abort();
  for (uint32_t i = 0; i < f->n_params; i++) {
    const tsl_param *prm = &f->params[i];
    kinds[i] = param_kind(prm);
    if (i)
      pr_puts(p, ", ");
    if (kinds[i] == PARAM_SCALAR) {
      const tsl_var *v = prm->var;
      pr_printf(p, "%s: T.%s", pr_define(p, v, NULL, v ? v->name : NULL, "n"),
                v ? pr_dtype(v->dtype, dt) : "int32");
    } else if (kinds[i] == PARAM_BUFFER) {
      const tsl_buffer *b = prm->buffer;
      pr_printf(p, "%s: T.Buffer(", pr_define(p, b, NULL, b->name, "buf"));
      pr_expr_tuple(p, b->ndim, b->shape);
      pr_buffer_tail(p, b, 1, 1);
      pr_puts(p, ")");
    } else {
      const void *key = prm->var ? (const void *)prm->var : (const void *)prm;
      const char *stored = prm->var ? prm->var->name : NULL;
      const char *prefix = handle_prefix(prm);
      if (prefix && (!stored || !*stored || !prm->var))
        stored = prm->buffer->name;
      pr_printf(p, "%s: T.handle", pr_define(p, key, prefix, stored, "h"));
    }
  }
  pr_puts(p, "):");
  pr_newline(p);
  p->indent += 4;

  if (f->attrs.n) {
    pr_line(p);
    pr_puts(p, "T.func_attr(");
    pr_attrs(p, f->attrs);
    pr_puts(p, ")");
    pr_newline(p);
  }

  /* symbolic variables: used in handle-matched buffers or the body but
   * defined nowhere */
  fv_walk w;
  memset(&w, 0, sizeof w);
  tsl_vec_init(&w.order, sizeof(const tsl_var *), NULL);
  /* parameter shapes first: a shape variable must be declared before the
   * T.match_buffer lines even if the body (wrongly) binds it too */
  for (uint32_t i = 0; i < f->n_params; i++) {
    fv_def(&w, f->params[i].var);
    if (kinds[i] == PARAM_BUFFER && pr_implicit_offset(f->params[i].buffer))
      fv_buffer(&w, f->params[i].buffer, 1);
  }
  w.collect_uses = 1;
  for (uint32_t i = 0; i < f->n_params; i++)
    if (kinds[i] == PARAM_HANDLE)
      fv_buffer(&w, f->params[i].buffer, 1);
  w.collect_uses = 0;
  fv_stmt(&w, f->body);
  w.collect_uses = 1;
  fv_stmt(&w, f->body);
  for (uint32_t i = 0; i < w.order.len; i++) {
    const tsl_var *v = TSL_VEC_AT(&w.order, const tsl_var *, i);
    pr_line(p);
    pr_printf(p, "%s = T.%s()", pr_define(p, v, NULL, v->name, "n"),
              pr_dtype(v->dtype, dt));
    pr_newline(p);
  }
  tsl_vec_free(&w.order);
  free(w.defined.keys);
  free(w.seen.keys);

  for (uint32_t i = 0; i < f->n_params; i++) {
    if (kinds[i] != PARAM_HANDLE)
      continue;
    const tsl_param *prm = &f->params[i];
    const tsl_buffer *b = prm->buffer;
    const char *hname = pr_name_of(
        p, prm->var ? (const void *)prm->var : (const void *)prm, NULL, "h");
    char *h = strdup(hname);
    if (!h)
      abort();
    pr_line(p);
    pr_printf(p, "%s = T.match_buffer(%s, ", pr_define(p, b, NULL, b->name, "buf"), h);
    free(h);
    pr_expr_tuple(p, b->ndim, b->shape);
    pr_buffer_tail(p, b, 0, 1);
    pr_puts(p, ")");
    pr_newline(p);
  }
  free(kinds);

  pr_func_body(p, f->body);
  p->indent -= 4;
  pr_scope_pop(p, mark);
}

/* ---- public API ---- */

char *tsl_print_func(const tsl_func *f) {
  pr_t p;
  pr_init(&p, 1);
  if (f) {
    pr_puts(&p, "# from tvm.script import tir as T\n\n");
    pr_prim_func(&p, f);
  }
  char *s = tsl_strbuf_take(&p.out);
  pr_free(&p);
  return s;
}

char *tsl_print_module(const tsl_module *m) {
  if (m && m->is_bare_func && m->n_funcs == 1)
    return tsl_print_func(m->funcs[0]);
  pr_t p;
  pr_init(&p, 1);
  if (m) {
    pr_puts(&p, "# from tvm.script import ir as I\n"
                "# from tvm.script import tir as T\n\n"
                "@I.ir_module\n");
    pr_define(&p, m, NULL, m->name, "Module");
    pr_printf(&p, "class %s:\n", TSL_VEC_LAST(&p.names, pr_name).name);
    pr_scope_pop(&p, 0);
    p.indent = 4;
    for (uint32_t i = 0; i < m->n_funcs; i++) {
      if (i)
        pr_newline(&p);
      pr_prim_func(&p, m->funcs[i]);
    }
    if (m->n_funcs == 0)
      pr_puts(&p, "    pass\n");
  }
  char *s = tsl_strbuf_take(&p.out);
  pr_free(&p);
  return s;
}

char *tsl_print_expr(const tsl_expr *e) {
  pr_t p;
  pr_init(&p, 0);
  pr_expr(&p, e);
  char *s = tsl_strbuf_take(&p.out);
  pr_free(&p);
  return s;
}

char *tsl_print_stmt(const tsl_stmt *s, int indent) {
  pr_t p;
  pr_init(&p, 0);
  p.indent = indent > 0 ? indent : 0;
  pr_stmt(&p, s);
  char *out = tsl_strbuf_take(&p.out);
  pr_free(&p);
  return out;
}
