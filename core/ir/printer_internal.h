/*
 * printer_internal.h — shared state of the TVMScript printer (printer*.c).
 *
 * A pr_t accumulates text and tracks the names of the objects (vars and
 * buffers) currently in scope, so that two different objects visible at the
 * same time never print under the same name, and the loops enclosing the
 * statement being printed (for T.axis.remap).
 */
#ifndef TESSEL_IR_PRINTER_INTERNAL_H
#define TESSEL_IR_PRINTER_INTERNAL_H

#include "tessel/container.h"
#include "tessel/ir.h"
#include "tessel/script.h"

#include <stddef.h>

typedef struct pr_name {
  const void *obj; /* tsl_var* or tsl_buffer* */
  char *name;      /* heap-owned */
} pr_name;

typedef struct pr_t {
  tsl_strbuf out;
  int indent;  /* in spaces */
  int rename;  /* 1: uniquify and sanitize names; 0: print as stored */
  tsl_vec names; /* pr_name: scope stack, innermost last */
  tsl_vec loops; /* const tsl_stmt *: enclosing FOR statements, innermost last */
  int expr_depth; /* nesting of pr_expr; deeper than PR_MAX_EXPR_DEPTH prints "..." */
} pr_t;

/* Parsed IR nests at most 256 levels; IR built in code may nest deeper, and
 * printing it (e.g. in a message) must not overflow the stack. */
#define PR_MAX_EXPR_DEPTH 1000

/* ---- printer_util.c ---- */
void pr_init(pr_t *p, int rename);
void pr_free(pr_t *p);
void pr_puts(pr_t *p, const char *s);
void pr_printf(pr_t *p, const char *fmt, ...) TSL_PRINTF(2, 3);
/* Start a line: `indent` spaces. */
void pr_line(pr_t *p);
void pr_newline(pr_t *p);
/* Double-quoted Python string literal with escapes. */
void pr_str_literal(pr_t *p, const char *s);
/* Dtype name ("float32"), or "dtype(c,b)" for an unknown one. */
const char *pr_dtype(tsl_dtype t, char buf[32]);

/* Names. pr_define gives `obj` a name visible until the matching
 * pr_scope_pop; pr_name_of finds the innermost name of `obj` (falls back to
 * the stored name). `prefix` (may be NULL) is prepended to the stored name. */
size_t pr_scope_mark(const pr_t *p);
void pr_scope_pop(pr_t *p, size_t mark);
const char *pr_define(pr_t *p, const void *obj, const char *prefix,
                      const char *stored, const char *fallback);
const char *pr_name_of(pr_t *p, const void *obj, const char *stored,
                       const char *fallback);
const char *pr_var_name(pr_t *p, const tsl_var *v);
/* 1 when `obj` has a name in scope. */
int pr_has_name(const pr_t *p, const void *obj);
/* Give `obj` exactly `text` (no sanitizing or uniquifying): for what prints
 * as an expression, e.g. a buffer's `B.elem_offset`. */
void pr_define_as(pr_t *p, const void *obj, const char *text);
/* A buffer whose declaration can define its elem_offset variable, as
 * TVMScript's does: an offset factor and a bare variable as offset
 * (printed `offset_factor=k` with no elem_offset; uses read
 * `B.elem_offset`). Only views (match buffers, parameters) do: the parser
 * gives an alloc_buffer no offset variable (nothing would bind it). */
int pr_implicit_offset(const tsl_buffer *b);
const char *pr_buffer_name(pr_t *p, const tsl_buffer *b);

void pr_loop_push(pr_t *p, const tsl_stmt *loop);
void pr_loop_pop(pr_t *p);

/* Shortest decimal that reads back as `v` (finite), Python repr layout.
 * python_float: keep a trailing ".0" on integral values so the text is a
 * Python float literal. `buf` holds at least 40 bytes. */
void pr_format_double(double v, int python_float, char *buf);

/* Structural identity of two expressions (same vars by address). */
int pr_expr_same(const tsl_expr *a, const tsl_expr *b);

/* ---- printer.c ---- */
/* One @T.prim_func at the current indentation. */
void pr_prim_func(pr_t *p, const tsl_func *f);

/* ---- printer_expr.c ---- */
void pr_expr(pr_t *p, const tsl_expr *e);
/* `min + extent` of a range, constant-folded when both are constants. */
void pr_range_stop(pr_t *p, const tsl_expr *min, const tsl_expr *extent);
void pr_attrs(pr_t *p, tsl_attrs attrs);
/* "(128, 128)" / "(1024,)" / "()". */
void pr_expr_tuple(pr_t *p, uint32_t n, const tsl_expr *const *items);
int pr_is_const_true(const tsl_expr *e);

/* ---- printer_stmt.c ---- */
void pr_stmt(pr_t *p, const tsl_stmt *s);
/* The arguments of T.Buffer / T.match_buffer / T.alloc_buffer after the
 * shape: ", \"dtype\"" (omitted for float32 unless always_dtype) and the
 * non-default keyword arguments. `view`: a match buffer or a parameter,
 * whose declaration may define its offset variable (pr_implicit_offset;
 * the buffer is named already). */
void pr_buffer_tail(pr_t *p, const tsl_buffer *b, int always_dtype, int view);
/* `D = T.alloc_buffer(...)` lines for buffers already defined. */
void pr_alloc_buffers(pr_t *p, uint32_t n, const tsl_buffer *const *bufs);
/* A block's contents (axes, where, reads, writes, attrs, buffers, init,
 * body) at the current indentation. */
void pr_block_contents(pr_t *p, const tsl_stmt *realize);

#endif /* TESSEL_IR_PRINTER_INTERNAL_H */
