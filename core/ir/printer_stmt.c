/*
 * Printer: statements, loops (T.grid chains, range, T.parallel, ...),
 * blocks (axes with T.axis.remap when possible, T.where, T.reads/T.writes,
 * T.block_attr, buffers, T.init) and buffer declarations.
 */
#include "printer_internal.h"

#include "tessel/visit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void pr_body(pr_t *p, const tsl_stmt *s);

/* ---- buffers and regions ---- */

void pr_buffer_tail(pr_t *p, const tsl_buffer *b, int always_dtype, int view) {
  char dt[32];
  if (always_dtype || !tsl_dtype_eq(b->dtype, TSL_FLOAT32))
    pr_printf(p, ", \"%s\"", pr_dtype(b->dtype, dt));
  if (b->strides) {
    pr_puts(p, ", strides=");
    pr_expr_tuple(p, b->ndim, b->strides);
  }
  if (view && pr_implicit_offset(b) && p->rename && pr_has_name(p, b) &&
      !pr_has_name(p, b->elem_offset->u.var)) {
    char text[300];
    snprintf(text, sizeof text, "%s.elem_offset", pr_buffer_name(p, b));
    pr_define_as(p, b->elem_offset->u.var, text);
  } else if (b->elem_offset) {
    pr_puts(p, ", elem_offset=");
    pr_expr(p, b->elem_offset);
  }
  if (b->scope && strcmp(b->scope, "global") != 0) {
    pr_puts(p, ", scope=");
    pr_str_literal(p, b->scope);
  }
  if (b->align)
    pr_printf(p, ", align=%d", (int)b->align);
  if (b->offset_factor)
    pr_printf(p, ", offset_factor=%d", (int)b->offset_factor);
  if (b->n_axis_separators) {
    pr_puts(p, ", axis_separators=[");
    for (uint32_t i = 0; i < b->n_axis_separators; i++)
      pr_printf(p, "%s%d", i ? ", " : "", (int)b->axis_separators[i]);
    pr_puts(p, "]");
  }
}

void pr_alloc_buffers(pr_t *p, uint32_t n, const tsl_buffer *const *bufs) {
  for (uint32_t i = 0; i < n; i++) {
    const tsl_buffer *b = bufs[i];
    pr_line(p);
    pr_printf(p, "%s = T.alloc_buffer(", pr_buffer_name(p, b));
    pr_expr_tuple(p, b->ndim, b->shape);
    pr_buffer_tail(p, b, 0, 0);
    pr_puts(p, ")");
    pr_newline(p);
  }
}

static int is_const(const tsl_expr *e, int64_t v) {
  int64_t x;
  return tsl_expr_is_const_int(e, &x) && x == v;
}

static void pr_region(pr_t *p, const tsl_buffer_region *r) {
  pr_puts(p, pr_buffer_name(p, r->buffer));
  pr_puts(p, "[");
  if (r->ndim == 0)
    pr_puts(p, "()");
  for (uint32_t i = 0; i < r->ndim; i++) {
    const tsl_range *rg = &r->ranges[i];
    if (i)
      pr_puts(p, ", ");
    pr_expr(p, rg->min);
    if (!is_const(rg->extent, 1)) {
      pr_puts(p, ":");
      pr_range_stop(p, rg->min, rg->extent);
    }
  }
  pr_puts(p, "]");
}

static void pr_regions(pr_t *p, const char *fn, uint32_t n,
                       const tsl_buffer_region *rs) {
  pr_line(p);
  pr_printf(p, "T.%s(", fn);
  for (uint32_t i = 0; i < n; i++) {
    if (i)
      pr_puts(p, ", ");
    pr_region(p, &rs[i]);
  }
  pr_puts(p, ")");
  pr_newline(p);
}

/* ---- loops ---- */

static int grid_eligible(const tsl_stmt *s) {
  return s->kind == TSL_STMT_FOR && s->u.loop.for_kind == TSL_FOR_SERIAL &&
         s->u.loop.annotations.n == 0 && is_const(s->u.loop.min, 0) &&
         s->u.loop.body != NULL;
}

/* `extent` or `min, min + extent` */
static void pr_loop_bounds(pr_t *p, const tsl_stmt *s) {
  if (!is_const(s->u.loop.min, 0)) {
    pr_expr(p, s->u.loop.min);
    pr_puts(p, ", ");
    pr_range_stop(p, s->u.loop.min, s->u.loop.extent);
  } else {
    pr_expr(p, s->u.loop.extent);
  }
}

static void pr_for(pr_t *p, const tsl_stmt *s) {
  enum { MAX_GRID = 64 };
  const tsl_stmt *chain[MAX_GRID];
  size_t n = 0;
  if (grid_eligible(s)) {
    chain[n++] = s;
    while (n < MAX_GRID && grid_eligible(chain[n - 1]->u.loop.body)) {
      const tsl_stmt *next = chain[n - 1]->u.loop.body;
      int uses = 0;
      for (size_t k = 0; k < n && !uses; k++)
        uses = tsl_expr_uses_var(next->u.loop.extent, chain[k]->u.loop.loop_var);
      if (uses)
        break;
      chain[n++] = next;
    }
  }
  size_t mark = pr_scope_mark(p);
  pr_line(p);
  if (n >= 2) {
    /* names first (extents cannot mention chain vars, checked above) */
    char *names[MAX_GRID];
    for (size_t k = 0; k < n; k++) {
      const tsl_var *v = chain[k]->u.loop.loop_var;
      names[k] = (char *)pr_define(p, v, NULL, v->name, "i");
    }
    pr_puts(p, "for ");
    for (size_t k = 0; k < n; k++)
      pr_printf(p, "%s%s", k ? ", " : "", names[k]);
    pr_puts(p, " in T.grid(");
    for (size_t k = 0; k < n; k++) {
      if (k)
        pr_puts(p, ", ");
      pr_expr(p, chain[k]->u.loop.extent);
    }
    pr_puts(p, "):");
    pr_newline(p);
  } else {
    n = 1;
    chain[0] = s;
    const tsl_var *v = s->u.loop.loop_var;
    const char *name = pr_define(p, v, NULL, v->name, "i");
    pr_printf(p, "for %s in ", name);
    uint32_t kind = s->u.loop.for_kind;
    if (kind == TSL_FOR_SERIAL && s->u.loop.annotations.n == 0) {
      pr_puts(p, "range(");
      pr_loop_bounds(p, s);
    } else {
      pr_printf(p, "T.%s(", kind < TSL_FOR_KIND_COUNT
                                ? tsl_for_kind_name((tsl_for_kind)kind)
                                : "serial");
      pr_loop_bounds(p, s);
      if (kind == TSL_FOR_THREAD_BINDING) {
        pr_puts(p, ", thread=");
        pr_str_literal(p, s->u.loop.thread_tag ? s->u.loop.thread_tag : "");
      }
      if (s->u.loop.annotations.n) {
        pr_puts(p, ", annotations=");
        pr_attrs(p, s->u.loop.annotations);
      }
    }
    pr_puts(p, "):");
    pr_newline(p);
  }
  for (size_t k = 0; k < n; k++)
    pr_loop_push(p, chain[k]);
  p->indent += 4;
  pr_body(p, chain[n - 1]->u.loop.body);
  p->indent -= 4;
  for (size_t k = 0; k < n; k++)
    pr_loop_pop(p);
  pr_scope_pop(p, mark);
}

/* ---- blocks ---- */

static const tsl_stmt *enclosing_loop(const pr_t *p, const tsl_var *v) {
  const tsl_stmt *const *loops = TSL_VEC_DATA(&p->loops, const tsl_stmt *const);
  for (size_t i = p->loops.len; i-- > 0;)
    if (loops[i]->u.loop.loop_var == v)
      return loops[i];
  return NULL;
}

/* Can iter var i be part of a T.axis.remap? As in TVM: a spatial or reduce
 * var bound to an enclosing loop's variable whose range equals its domain
 * (the parser's remap takes the loop's [min, min + extent)). */
static int remappable(const pr_t *p, const tsl_stmt *realize, uint32_t i) {
  const tsl_block *b = realize->u.realize.block;
  if (i >= realize->u.realize.n_iter_values)
    return 0;
  const tsl_iter_var *iv = &b->iter_vars[i];
  const tsl_expr *val = realize->u.realize.iter_values[i];
  if (iv->iter_type != TSL_ITER_SPATIAL && iv->iter_type != TSL_ITER_REDUCE)
    return 0;
  if (!val || val->kind != TSL_EXPR_VAR)
    return 0;
  const tsl_stmt *loop = enclosing_loop(p, val->u.var);
  return loop && pr_expr_same(loop->u.loop.min, iv->dom.min) &&
         pr_expr_same(loop->u.loop.extent, iv->dom.extent) &&
         tsl_dtype_eq(iv->var->dtype, val->u.var->dtype);
}

static void pr_axis_single(pr_t *p, const tsl_stmt *realize, const char **names,
                           uint32_t i) {
  const tsl_iter_var *iv = &realize->u.realize.block->iter_vars[i];
  pr_line(p);
  pr_printf(p, "%s = T.axis.%s(", names[i],
            tsl_iter_type_name((tsl_iter_type)iv->iter_type));
  if (is_const(iv->dom.min, 0)) {
    pr_expr(p, iv->dom.extent);
  } else {
    pr_puts(p, "(");
    pr_expr(p, iv->dom.min);
    pr_puts(p, ", ");
    pr_range_stop(p, iv->dom.min, iv->dom.extent);
    pr_puts(p, ")");
  }
  pr_puts(p, ", ");
  if (i < realize->u.realize.n_iter_values)
    pr_expr(p, realize->u.realize.iter_values[i]);
  else
    pr_puts(p, "None");
  pr_puts(p, ")");
  pr_newline(p);
}

/* iter vars [lo, hi), all remappable: one T.axis.remap when there are two
 * or more, else the single form (TVM's layout). */
static void pr_axis_run(pr_t *p, const tsl_stmt *realize, const char **names,
                        uint32_t lo, uint32_t hi) {
  const tsl_block *b = realize->u.realize.block;
  if (hi - lo == 1) {
    pr_axis_single(p, realize, names, lo);
    return;
  }
  pr_line(p);
  for (uint32_t i = lo; i < hi; i++)
    pr_printf(p, "%s%s", i > lo ? ", " : "", names[i]);
  pr_puts(p, " = T.axis.remap(\"");
  for (uint32_t i = lo; i < hi; i++)
    pr_puts(p, b->iter_vars[i].iter_type == TSL_ITER_SPATIAL ? "S" : "R");
  pr_puts(p, "\", [");
  for (uint32_t i = lo; i < hi; i++) {
    if (i > lo)
      pr_puts(p, ", ");
    pr_expr(p, realize->u.realize.iter_values[i]);
  }
  pr_puts(p, "])");
  pr_newline(p);
}

static void pr_axes(pr_t *p, const tsl_stmt *realize, const char **names) {
  uint32_t n = realize->u.realize.block->n_iter_vars;
  uint32_t run = 0; /* start of the current run of remappable vars */
  for (uint32_t i = 0; i < n; i++) {
    if (remappable(p, realize, i))
      continue;
    if (run < i)
      pr_axis_run(p, realize, names, run, i);
    pr_axis_single(p, realize, names, i);
    run = i + 1;
  }
  if (run < n)
    pr_axis_run(p, realize, names, run, n);
}

void pr_block_contents(pr_t *p, const tsl_stmt *realize) {
  const tsl_block *b = realize->u.realize.block;
  enum { SMALL = 16 };
  const char *small[SMALL];
  const char **names = b->n_iter_vars <= SMALL
                           ? small
                           : malloc(sizeof *names * b->n_iter_vars);
  if (!names)
    abort();
  for (uint32_t i = 0; i < b->n_iter_vars; i++)
    names[i] = pr_define(p, b->iter_vars[i].var, NULL,
                         b->iter_vars[i].var->name, "v");
  for (uint32_t i = 0; i < b->n_alloc_buffers; i++)
    pr_define(p, b->alloc_buffers[i], NULL, b->alloc_buffers[i]->name, "buf");

  pr_axes(p, realize, names);
  if (names != small)
    free(names);
  if (!pr_is_const_true(realize->u.realize.predicate)) {
    pr_line(p);
    pr_puts(p, "T.where(");
    pr_expr(p, realize->u.realize.predicate);
    pr_puts(p, ")");
    pr_newline(p);
  }
  pr_regions(p, "reads", b->n_reads, b->reads);
  pr_regions(p, "writes", b->n_writes, b->writes);
  if (b->annotations.n) {
    pr_line(p);
    pr_puts(p, "T.block_attr(");
    pr_attrs(p, b->annotations);
    pr_puts(p, ")");
    pr_newline(p);
  }
  pr_alloc_buffers(p, b->n_alloc_buffers, b->alloc_buffers);
  for (uint32_t i = 0; i < b->n_match_buffers; i++) {
    const tsl_match_buffer *mb = &b->match_buffers[i];
    const tsl_buffer *nb = mb->buffer;
    /* the source region refers to outer buffers: print it before the new
     * name enters the scope */
    tsl_strbuf saved = p->out;
    tsl_strbuf_init(&p->out);
    pr_region(p, &mb->source);
    char *src = tsl_strbuf_take(&p->out);
    p->out = saved;
    const char *name = pr_define(p, nb, NULL, nb->name, "buf");
    pr_line(p);
    pr_printf(p, "%s = T.match_buffer(%s, ", name, src);
    free(src);
    pr_expr_tuple(p, nb->ndim, nb->shape);
    pr_buffer_tail(p, nb, 0, 1);
    pr_puts(p, ")");
    pr_newline(p);
  }
  if (b->init) {
    pr_line(p);
    pr_puts(p, "with T.init():");
    pr_newline(p);
    p->indent += 4;
    pr_body(p, b->init);
    p->indent -= 4;
  }
  pr_body(p, b->body);
}

static void pr_realize(pr_t *p, const tsl_stmt *s) {
  const tsl_block *b = s->u.realize.block;
  pr_line(p);
  pr_puts(p, "with T.block(");
  pr_str_literal(p, b->name);
  pr_puts(p, "):");
  pr_newline(p);
  size_t mark = pr_scope_mark(p);
  p->indent += 4;
  pr_block_contents(p, s);
  p->indent -= 4;
  pr_scope_pop(p, mark);
}

/* ---- other statements ---- */

static void pr_store(pr_t *p, const tsl_stmt *s) {
  pr_line(p);
  pr_puts(p, pr_buffer_name(p, s->u.store.buffer));
  pr_puts(p, "[");
  if (s->u.store.n_indices == 0)
    pr_puts(p, "()");
  for (uint32_t i = 0; i < s->u.store.n_indices; i++) {
    if (i)
      pr_puts(p, ", ");
    pr_expr(p, s->u.store.indices[i]);
  }
  pr_puts(p, "] = ");
  pr_expr(p, s->u.store.value);
  pr_newline(p);
}

static void pr_if(pr_t *p, const tsl_stmt *s) {
  pr_line(p);
  pr_puts(p, "if ");
  pr_expr(p, s->u.branch.cond);
  pr_puts(p, ":");
  pr_newline(p);
  p->indent += 4;
  pr_body(p, s->u.branch.then_case);
  p->indent -= 4;
  if (s->u.branch.else_case) {
    pr_line(p);
    pr_puts(p, "else:");
    pr_newline(p);
    p->indent += 4;
    pr_body(p, s->u.branch.else_case);
    p->indent -= 4;
  }
}

/* `x: T.int32 = value` with the body at the same indentation when the let
 * ends its statement list; otherwise `with T.LetStmt(value) as x:` so that
 * the statements after it stay outside its scope. */
static void pr_let(pr_t *p, const tsl_stmt *s, int is_last) {
  char dt[32];
  const tsl_var *v = s->u.let.var;
  size_t mark = pr_scope_mark(p);
  tsl_strbuf saved = p->out;
  tsl_strbuf_init(&p->out);
  pr_expr(p, s->u.let.value);
  char *value = tsl_strbuf_take(&p->out);
  p->out = saved;
  const char *name = pr_define(p, v, NULL, v->name, "v");
  pr_line(p);
  if (is_last) {
    pr_printf(p, "%s: T.%s = %s", name, pr_dtype(v->dtype, dt), value);
    pr_newline(p);
    pr_body(p, s->u.let.body);
  } else {
    pr_printf(p, "with T.LetStmt(%s) as %s:", value, name);
    pr_newline(p);
    p->indent += 4;
    pr_body(p, s->u.let.body);
    p->indent -= 4;
  }
  free(value);
  pr_scope_pop(p, mark);
}

/* Lowered programs: `B = T.decl_buffer((n,), "float32", scope="local")`
 * with the body after it when the allocation ends its statement list, else
 * `with T.decl_buffer(...) as B:`. */
static void pr_allocate(pr_t *p, const tsl_stmt *s, int is_last) {
  const tsl_buffer *b = s->u.alloc.buffer;
  size_t mark = pr_scope_mark(p);
  tsl_strbuf saved = p->out;
  tsl_strbuf_init(&p->out);
  pr_puts(p, "T.decl_buffer(");
  pr_expr_tuple(p, b->ndim, b->shape);
  pr_buffer_tail(p, b, 1, 0);
  pr_puts(p, ")");
  char *decl = tsl_strbuf_take(&p->out);
  p->out = saved;
  const char *name = pr_define(p, b, NULL, b->name, "buf");
  pr_line(p);
  if (is_last) {
    pr_printf(p, "%s = %s", name, decl);
    pr_newline(p);
    pr_body(p, s->u.alloc.body);
  } else {
    pr_printf(p, "with %s as %s:", decl, name);
    pr_newline(p);
    p->indent += 4;
    pr_body(p, s->u.alloc.body);
    p->indent -= 4;
  }
  free(decl);
  pr_scope_pop(p, mark);
}

static void pr_stmt_in(pr_t *p, const tsl_stmt *s, int is_last) {
  if (!s) {
    pr_line(p);
    pr_puts(p, "T.evaluate(0)");
    pr_newline(p);
    return;
  }
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    pr_for(p, s);
    return;
  case TSL_STMT_BLOCK_REALIZE:
    pr_realize(p, s);
    return;
  case TSL_STMT_STORE:
    pr_store(p, s);
    return;
  case TSL_STMT_IF:
    pr_if(p, s);
    return;
  case TSL_STMT_LET:
    pr_let(p, s, is_last);
    return;
  case TSL_STMT_EVALUATE:
    pr_line(p);
    pr_puts(p, "T.evaluate(");
    pr_expr(p, s->u.evaluate.value);
    pr_puts(p, ")");
    pr_newline(p);
    return;
  case TSL_STMT_ALLOCATE:
    pr_allocate(p, s, is_last);
    return;
  case TSL_STMT_SEQ:
    if (s->u.seq.n == 0) {
      pr_stmt_in(p, NULL, is_last);
      return;
    }
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      pr_stmt_in(p, s->u.seq.stmts[i], is_last && i + 1 == s->u.seq.n);
    return;
  default:
    pr_line(p);
    pr_printf(p, "T.invalid_stmt_kind_%u()", s->kind);
    pr_newline(p);
    return;
  }
}

/* A statement list that ends its suite (function, loop, block, branch). */
static void pr_body(pr_t *p, const tsl_stmt *s) { pr_stmt_in(p, s, 1); }

void pr_stmt(pr_t *p, const tsl_stmt *s) { pr_body(p, s); }
