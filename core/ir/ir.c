/*
 * IR node builders and the static kind tables.
 */
#include "tessel/ir.h"
#include "arena_internal.h"
#include "base_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static const tsl_expr_kind_info expr_kind_info[] = {
#define TSL_X_(k, name, tok, prec, n) {#k, name, tok, prec, n},
    TSL_EXPR_KINDS(TSL_X_)
#undef TSL_X_
};

const tsl_expr_kind_info *tsl_expr_kind_info_of(tsl_expr_kind kind) {
  assert((unsigned)kind < TSL_EXPR_KIND_COUNT);
  return &expr_kind_info[kind];
}

static const struct {
  const char *name;
  int32_t arity;
} intrinsics[] = {
#define TSL_X_(id, name, n) {name, n},
    TSL_INTRINSICS(TSL_X_)
#undef TSL_X_
};

const char *tsl_intrin_name(tsl_intrin id) {
  assert((unsigned)id < TSL_INTRIN_COUNT);
  return intrinsics[id].name;
}

int32_t tsl_intrin_arity(tsl_intrin id) {
  assert((unsigned)id < TSL_INTRIN_COUNT);
  return intrinsics[id].arity;
}

int tsl_intrin_lookup(const char *name, size_t n) {
  for (int i = 0; i < TSL_INTRIN_COUNT; i++)
    if (strlen(intrinsics[i].name) == n && memcmp(intrinsics[i].name, name, n) == 0)
      return i;
  return -1;
}

static const tsl_builtin_info builtins[] = {
#define TSL_X_(id, name, n, res, ev, params, what)                             \
  {name, n, TSL_BUILTIN_RES_##res, TSL_BUILTIN_EVAL_##ev, params, what},
    TSL_BUILTINS(TSL_X_)
#undef TSL_X_
};

const tsl_builtin_info *tsl_builtin_info_of(tsl_builtin id) {
  assert((unsigned)id < TSL_BUILTIN_COUNT);
  return &builtins[id];
}

int tsl_builtin_lookup(const char *name, size_t n) {
  for (int i = 0; i < TSL_BUILTIN_COUNT; i++)
    if (strlen(builtins[i].name) == n && memcmp(builtins[i].name, name, n) == 0)
      return i;
  return -1;
}

static const char *stmt_kind_names[] = {
#define TSL_X_(k, name) name,
    TSL_STMT_KINDS(TSL_X_)
#undef TSL_X_
};

const char *tsl_stmt_kind_name(tsl_stmt_kind kind) {
  assert((unsigned)kind < TSL_STMT_KIND_COUNT);
  return stmt_kind_names[kind];
}

static const char *for_kind_names[] = {
#define TSL_X_(k, name) name,
    TSL_FOR_KINDS(TSL_X_)
#undef TSL_X_
};

const char *tsl_for_kind_name(tsl_for_kind kind) {
  assert((unsigned)kind < TSL_FOR_KIND_COUNT);
  return for_kind_names[kind];
}

const char *tsl_iter_type_name(tsl_iter_type t) {
  switch (t) {
#define TSL_X_(k, v, letter, name)                                             \
  case TSL_ITER_##k:                                                           \
    return name;
    TSL_ITER_TYPES(TSL_X_)
#undef TSL_X_
  }
  return "unknown";
}

/* ---- annotations ---- */

static int attr_cmp(const void *a, const void *b) {
  return strcmp(((const tsl_attr *)a)->key, ((const tsl_attr *)b)->key);
}

tsl_attrs tsl_attrs_make(tsl_arena *arena, uint32_t n, tsl_attr *items) {
  tsl_attrs r = {0, NULL};
  if (n == 0)
    return r;
  tsl_attr *copy = tsl_arena_dup(arena, items, sizeof *items * n);
  qsort(copy, n, sizeof *copy, attr_cmp);
  r.n = n;
  r.items = copy;
  return r;
}

const tsl_attr_value *tsl_attrs_get(tsl_attrs attrs, const char *key) {
  for (uint32_t i = 0; i < attrs.n; i++)
    if (strcmp(attrs.items[i].key, key) == 0)
      return &attrs.items[i].value;
  return NULL;
}

/* ---- expressions ---- */

static tsl_expr *new_expr(tsl_arena *a, tsl_expr_kind kind, tsl_dtype t,
                          uint32_t n) {
  tsl_expr *e = tsl_arena_alloc(a, sizeof *e + sizeof(e->args[0]) * n);
  e->kind = (uint8_t)kind;
  e->dtype = t;
  e->n_args = n;
  return e;
}

/* The slot of a shared constant (arena_internal.h), or -1. */
static int const_slot(tsl_dtype t, int64_t v) {
  if (v < TSL_ARENA_CONST_MIN || v > TSL_ARENA_CONST_MAX || t.lanes != 1)
    return -1;
  int type = t.code == TSL_DT_INT && t.bits == 32   ? 0
             : t.code == TSL_DT_INT && t.bits == 64 ? 1
             : tsl_dtype_is_bool(t)                 ? 2
                                                    : -1;
  if (type < 0)
    return -1;
  return type * (TSL_ARENA_CONST_MAX - TSL_ARENA_CONST_MIN + 1) +
         (int)(v - TSL_ARENA_CONST_MIN);
}

const tsl_expr *tsl_expr_int(tsl_arena *a, tsl_dtype t, int64_t v) {
  int slot = const_slot(t, v);
  const void **slots = slot >= 0 ? tsl_arena_const_slots(a) : NULL;
  if (slots && slots[slot])
    return slots[slot];
  tsl_expr *e = new_expr(a, TSL_EXPR_INT_IMM, t, 0);
  e->u.int_value = v;
  if (slots)
    slots[slot] = e;
  return e;
}

const tsl_expr *tsl_expr_i32(tsl_arena *a, int64_t v) {
  return tsl_expr_int(a, TSL_INT32, v);
}

const tsl_expr *tsl_expr_bool(tsl_arena *a, int v) {
  return tsl_expr_int(a, TSL_BOOL, v ? 1 : 0);
}

const tsl_expr *tsl_expr_float(tsl_arena *a, tsl_dtype t, double v) {
  tsl_expr *e = new_expr(a, TSL_EXPR_FLOAT_IMM, t, 0);
  e->u.float_value = v;
  return e;
}

const tsl_expr *tsl_expr_str(tsl_arena *a, tsl_str s) {
  tsl_expr *e = new_expr(a, TSL_EXPR_STR_IMM, TSL_HANDLE, 0);
  e->u.str_value = s;
  return e;
}

const tsl_expr *tsl_expr_var(const tsl_var *v) { return v->ref; }

const tsl_expr *tsl_expr_load(tsl_arena *a, const tsl_buffer *buf, uint32_t n,
                              const tsl_expr *const *idx) {
  tsl_dtype t = buf->dtype; /* a vector index reads its lanes (TVM's BufferLoad) */
  for (uint32_t i = 0; i < n; i++)
    if (idx[i] && idx[i]->dtype.lanes > 1)
      t.lanes = (uint16_t)(buf->dtype.lanes * idx[i]->dtype.lanes);
  tsl_expr *e = new_expr(a, TSL_EXPR_LOAD, t, n);
  e->u.buffer = buf;
  for (uint32_t i = 0; i < n; i++)
    e->args[i] = idx[i];
  return e;
}

const tsl_expr *tsl_expr_binary(tsl_arena *a, tsl_expr_kind kind,
                                const tsl_expr *x, const tsl_expr *y) {
  assert(expr_kind_info[kind].n_args == 2);
  tsl_dtype t = x->dtype;
  if (kind >= TSL_EXPR_EQ && kind <= TSL_EXPR_OR) {
    t = TSL_BOOL;
    t.lanes = x->dtype.lanes;
  }
  tsl_expr *e = new_expr(a, kind, t, 2);
  e->args[0] = x;
  e->args[1] = y;
  return e;
}

const tsl_expr *tsl_expr_unary(tsl_arena *a, tsl_expr_kind kind,
                               const tsl_expr *x) {
  assert(kind == TSL_EXPR_NOT || kind == TSL_EXPR_NEG);
  tsl_expr *e = new_expr(a, kind, kind == TSL_EXPR_NOT ? TSL_BOOL : x->dtype, 1);
  e->args[0] = x;
  return e;
}

static const tsl_expr *ternary(tsl_arena *a, tsl_expr_kind kind,
                               const tsl_expr *c, const tsl_expr *t,
                               const tsl_expr *f) {
  tsl_expr *e = new_expr(a, kind, t->dtype, 3);
  e->args[0] = c;
  e->args[1] = t;
  e->args[2] = f;
  return e;
}

const tsl_expr *tsl_expr_select(tsl_arena *a, const tsl_expr *c,
                                const tsl_expr *t, const tsl_expr *f) {
  return ternary(a, TSL_EXPR_SELECT, c, t, f);
}

const tsl_expr *tsl_expr_if_then_else(tsl_arena *a, const tsl_expr *c,
                                      const tsl_expr *t, const tsl_expr *f) {
  return ternary(a, TSL_EXPR_IF_THEN_ELSE, c, t, f);
}

const tsl_expr *tsl_expr_cast(tsl_arena *a, tsl_dtype t, const tsl_expr *x) {
  tsl_expr *e = new_expr(a, TSL_EXPR_CAST, t, 1);
  e->args[0] = x;
  return e;
}

const tsl_expr *tsl_expr_call(tsl_arena *a, tsl_intrin op, tsl_dtype t,
                              uint32_t n, const tsl_expr *const *args) {
  tsl_expr *e = new_expr(a, TSL_EXPR_CALL, t, n);
  e->intrin = (uint16_t)op;
  for (uint32_t i = 0; i < n; i++)
    e->args[i] = args[i];
  return e;
}

const tsl_expr *tsl_expr_call_extern(tsl_arena *a, tsl_dtype t, tsl_str fname,
                                     uint32_t n, const tsl_expr *const *args) {
  tsl_expr *e = new_expr(a, TSL_EXPR_CALL_EXTERN, t, n);
  e->u.str_value = fname;
  for (uint32_t i = 0; i < n; i++)
    e->args[i] = args[i];
  return e;
}

const tsl_expr *tsl_expr_builtin(tsl_arena *a, tsl_builtin op, tsl_dtype t,
                                 uint32_t n, const tsl_expr *const *args) {
  assert((unsigned)op < TSL_BUILTIN_COUNT);
  tsl_expr *e = new_expr(a, TSL_EXPR_BUILTIN, t, n);
  e->intrin = (uint16_t)op;
  for (uint32_t i = 0; i < n; i++)
    e->args[i] = args[i];
  return e;
}

const tsl_expr *tsl_expr_buffer_data(tsl_arena *a, const tsl_buffer *buf) {
  tsl_expr *e = new_expr(a, TSL_EXPR_BUFFER_DATA, TSL_HANDLE, 0);
  e->u.buffer = buf;
  return e;
}

const tsl_expr *tsl_expr_ramp(tsl_arena *a, const tsl_expr *base,
                              const tsl_expr *stride, uint16_t lanes) {
  tsl_dtype t = base->dtype;
  t.lanes = lanes;
  tsl_expr *e = new_expr(a, TSL_EXPR_RAMP, t, 2);
  e->args[0] = base;
  e->args[1] = stride;
  return e;
}

const tsl_expr *tsl_expr_broadcast(tsl_arena *a, const tsl_expr *v,
                                   uint16_t lanes) {
  tsl_dtype t = v->dtype;
  t.lanes = lanes;
  tsl_expr *e = new_expr(a, TSL_EXPR_BROADCAST, t, 1);
  e->args[0] = v;
  return e;
}

const tsl_expr *tsl_expr_with_args(tsl_arena *a, const tsl_expr *proto,
                                   uint32_t n, const tsl_expr *const *args) {
  tsl_expr *e = new_expr(a, (tsl_expr_kind)proto->kind, proto->dtype, n);
  e->intrin = proto->intrin;
  e->u = proto->u;
  for (uint32_t i = 0; i < n; i++)
    e->args[i] = args[i];
  return e;
}

int tsl_expr_is_const_int(const tsl_expr *e, int64_t *value) {
  if (!e || e->kind != TSL_EXPR_INT_IMM || tsl_dtype_is_bool(e->dtype))
    return 0;
  if (value)
    *value = e->u.int_value;
  return 1;
}

/* ---- variables and buffers ---- */

const tsl_var *tsl_var_new(tsl_arena *a, const char *name, tsl_dtype dtype) {
  tsl_var *v = TSL_NEW(a, tsl_var);
  v->name = tsl_intern(tsl_arena_ctx(a), name);
  v->dtype = dtype;
  v->id = tsl_ctx_next_id(tsl_arena_ctx(a));
  tsl_expr *ref = new_expr(a, TSL_EXPR_VAR, dtype, 0);
  ref->u.var = v;
  v->ref = ref;
  return v;
}

const tsl_buffer *tsl_buffer_new(tsl_arena *a, const char *name,
                                 tsl_dtype dtype, uint32_t ndim,
                                 const tsl_expr *const *shape,
                                 const tsl_expr *const *strides,
                                 const tsl_expr *elem_offset,
                                 const char *scope, int32_t align,
                                 int32_t offset_factor) {
  tsl_ctx *ctx = tsl_arena_ctx(a);
  tsl_buffer *b = TSL_NEW(a, tsl_buffer);
  b->name = tsl_intern(ctx, name);
  b->dtype = dtype;
  b->ndim = ndim;
  b->shape = tsl_arena_dup(a, shape, sizeof *shape * ndim);
  b->strides = strides ? tsl_arena_dup(a, strides, sizeof *strides * ndim) : NULL;
  b->elem_offset = elem_offset;
  b->scope = tsl_intern(ctx, scope ? scope : "global");
  b->align = align;
  b->offset_factor = offset_factor;
  b->id = tsl_ctx_next_id(ctx);
  return b;
}

const tsl_buffer *tsl_buffer_with_axis_separators(tsl_arena *a,
                                                  const tsl_buffer *b,
                                                  uint32_t n,
                                                  const int32_t *seps) {
  tsl_buffer *r = tsl_arena_dup(a, b, sizeof *b);
  r->id = tsl_ctx_next_id(tsl_arena_ctx(a));
  r->n_axis_separators = n;
  r->axis_separators = n ? tsl_arena_dup(a, seps, sizeof *seps * n) : NULL;
  return r;
}

int64_t tsl_buffer_const_size(const tsl_buffer *b) {
  int64_t size = 1;
  for (uint32_t i = 0; i < b->ndim; i++) {
    int64_t d;
    if (!tsl_expr_is_const_int(b->shape[i], &d) || d < 0)
      return -1;
    if (d != 0 && size > INT64_MAX / d)
      return -1;
    size *= d;
  }
  return size;
}

/* ---- statements ---- */

static tsl_stmt *new_stmt(tsl_arena *a, tsl_stmt_kind kind) {
  tsl_stmt *s = TSL_NEW(a, tsl_stmt);
  s->kind = (uint8_t)kind;
  return s;
}

const tsl_stmt *tsl_stmt_for(tsl_arena *a, const tsl_var *v,
                             const tsl_expr *min, const tsl_expr *extent,
                             tsl_for_kind kind, tsl_str thread_tag,
                             tsl_attrs annotations, const tsl_stmt *body) {
  tsl_stmt *s = new_stmt(a, TSL_STMT_FOR);
  s->u.loop.loop_var = v;
  s->u.loop.min = min;
  s->u.loop.extent = extent;
  s->u.loop.for_kind = kind;
  s->u.loop.thread_tag = thread_tag;
  s->u.loop.annotations = annotations;
  s->u.loop.body = body;
  return s;
}

const tsl_stmt *tsl_stmt_block_realize(tsl_arena *a, uint32_t n,
                                       const tsl_expr *const *values,
                                       const tsl_expr *predicate,
                                       const tsl_block *block) {
  tsl_stmt *s = new_stmt(a, TSL_STMT_BLOCK_REALIZE);
  s->u.realize.n_iter_values = n;
  s->u.realize.iter_values = tsl_arena_dup(a, values, sizeof *values * n);
  s->u.realize.predicate = predicate ? predicate : tsl_expr_bool(a, 1);
  s->u.realize.block = block;
  return s;
}

const tsl_stmt *tsl_stmt_store(tsl_arena *a, const tsl_buffer *buf,
                               const tsl_expr *value, uint32_t n,
                               const tsl_expr *const *indices) {
  tsl_stmt *s = new_stmt(a, TSL_STMT_STORE);
  s->u.store.buffer = buf;
  s->u.store.value = value;
  s->u.store.n_indices = n;
  s->u.store.indices = tsl_arena_dup(a, indices, sizeof *indices * n);
  return s;
}

const tsl_stmt *tsl_stmt_if(tsl_arena *a, const tsl_expr *cond,
                            const tsl_stmt *then_case,
                            const tsl_stmt *else_case) {
  tsl_stmt *s = new_stmt(a, TSL_STMT_IF);
  s->u.branch.cond = cond;
  s->u.branch.then_case = then_case;
  s->u.branch.else_case = else_case;
  return s;
}

const tsl_stmt *tsl_stmt_let(tsl_arena *a, const tsl_var *v,
                             const tsl_expr *value, const tsl_stmt *body) {
  tsl_stmt *s = new_stmt(a, TSL_STMT_LET);
  s->u.let.var = v;
  s->u.let.value = value;
  s->u.let.body = body;
  return s;
}

const tsl_stmt *tsl_stmt_evaluate(tsl_arena *a, const tsl_expr *v) {
  tsl_stmt *s = new_stmt(a, TSL_STMT_EVALUATE);
  s->u.evaluate.value = v;
  return s;
}

const tsl_stmt *tsl_stmt_allocate(tsl_arena *a, const tsl_buffer *buf,
                                  const tsl_stmt *body) {
  tsl_stmt *s = new_stmt(a, TSL_STMT_ALLOCATE);
  s->u.alloc.buffer = buf;
  s->u.alloc.body = body;
  return s;
}

const tsl_stmt *tsl_stmt_seq(tsl_arena *a, uint32_t n,
                             const tsl_stmt *const *stmts) {
  if (n == 1)
    return stmts[0];
  uint32_t total = 0;
  for (uint32_t i = 0; i < n; i++)
    total += stmts[i]->kind == TSL_STMT_SEQ ? stmts[i]->u.seq.n : 1;
  const tsl_stmt **flat = TSL_NEW_ARRAY(a, const tsl_stmt *, total);
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (stmts[i]->kind == TSL_STMT_SEQ)
      for (uint32_t j = 0; j < stmts[i]->u.seq.n; j++)
        flat[k++] = stmts[i]->u.seq.stmts[j];
    else
      flat[k++] = stmts[i];
  }
  tsl_stmt *s = new_stmt(a, TSL_STMT_SEQ);
  s->u.seq.n = total;
  s->u.seq.stmts = flat;
  return s;
}

tsl_block *tsl_block_clone(tsl_arena *a, const tsl_block *block) {
  return tsl_arena_dup(a, block, sizeof *block);
}

const tsl_func *tsl_module_find(const tsl_module *m, const char *name) {
  for (uint32_t i = 0; i < m->n_funcs; i++)
    if (strcmp(m->funcs[i]->name, name) == 0)
      return m->funcs[i];
  return NULL;
}
