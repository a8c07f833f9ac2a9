/*
 * The IR's layout is part of ABI major 1 (core/include/tessel/ir.h, "ABI"):
 * plugins read nodes through their fields; so are tsl_weight (weights.h,
 * 1.4) and the nodes of models (relax.h, 1.4), which callers read the same
 * way. This test prints the offset and
 * size of every field of the node structs that cross the boundary, and the
 * value of every kind of the X-macro tables, and compares them with
 * layout_abi1.txt. A field or kind whose line changed or went away is an
 * incompatible change (TSL_ABI_MAJOR must move); one that is new at the
 * end of its struct or table is compatible (TSL_ABI_MINOR). Either way the
 * file is updated on purpose: TESSEL_UPDATE_GOLDEN=1 rewrites it.
 */
#include "tap.h"
#include "tessel/relax.h"
#include "tessel/tessel.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* X(struct type, field): the fields plugins read, in declaration order */
#define LAYOUT_FIELDS(X)                                                       \
  X(tsl_dtype, code) X(tsl_dtype, bits) X(tsl_dtype, lanes)                    \
  X(tsl_var, name) X(tsl_var, dtype) X(tsl_var, id) X(tsl_var, ref)            \
  X(tsl_range, min) X(tsl_range, extent)                                       \
  X(tsl_buffer, name) X(tsl_buffer, dtype) X(tsl_buffer, ndim)                 \
  X(tsl_buffer, shape) X(tsl_buffer, strides) X(tsl_buffer, elem_offset)       \
  X(tsl_buffer, scope) X(tsl_buffer, align) X(tsl_buffer, offset_factor)       \
  X(tsl_buffer, id) X(tsl_buffer, n_axis_separators)                           \
  X(tsl_buffer, axis_separators)                                               \
  X(tsl_buffer_region, buffer) X(tsl_buffer_region, ndim)                      \
  X(tsl_buffer_region, ranges)                                                 \
  X(tsl_attrs, n) X(tsl_attrs, items)                                          \
  X(tsl_attr_value, kind) X(tsl_attr_value, n) X(tsl_attr_value, dtype)        \
  X(tsl_attr_value, u.i) X(tsl_attr_value, u.f) X(tsl_attr_value, u.s)         \
  X(tsl_attr_value, u.items) X(tsl_attr_value, u.dict)                         \
  X(tsl_attr_value, u.expr)                                                    \
  X(tsl_attr, key) X(tsl_attr, value)                                          \
  X(tsl_expr, kind) X(tsl_expr, reserved) X(tsl_expr, intrin)                  \
  X(tsl_expr, dtype) X(tsl_expr, n_args) X(tsl_expr, u.int_value)              \
  X(tsl_expr, u.float_value) X(tsl_expr, u.str_value) X(tsl_expr, u.var)       \
  X(tsl_expr, u.buffer)                                                        \
  X(tsl_iter_var, var) X(tsl_iter_var, dom) X(tsl_iter_var, iter_type)         \
  X(tsl_match_buffer, buffer) X(tsl_match_buffer, source)                      \
  X(tsl_block, name) X(tsl_block, n_iter_vars) X(tsl_block, iter_vars)         \
  X(tsl_block, n_reads) X(tsl_block, reads) X(tsl_block, n_writes)             \
  X(tsl_block, writes) X(tsl_block, init) X(tsl_block, body)                   \
  X(tsl_block, n_alloc_buffers) X(tsl_block, alloc_buffers)                    \
  X(tsl_block, n_match_buffers) X(tsl_block, match_buffers)                    \
  X(tsl_block, annotations)                                                    \
  X(tsl_stmt, kind) X(tsl_stmt, u.loop.loop_var) X(tsl_stmt, u.loop.min)       \
  X(tsl_stmt, u.loop.extent) X(tsl_stmt, u.loop.for_kind)                      \
  X(tsl_stmt, u.loop.thread_tag) X(tsl_stmt, u.loop.annotations)               \
  X(tsl_stmt, u.loop.body) X(tsl_stmt, u.realize.n_iter_values)                \
  X(tsl_stmt, u.realize.iter_values) X(tsl_stmt, u.realize.predicate)          \
  X(tsl_stmt, u.realize.block) X(tsl_stmt, u.store.buffer)                     \
  X(tsl_stmt, u.store.value) X(tsl_stmt, u.store.n_indices)                    \
  X(tsl_stmt, u.store.indices) X(tsl_stmt, u.branch.cond)                      \
  X(tsl_stmt, u.branch.then_case) X(tsl_stmt, u.branch.else_case)              \
  X(tsl_stmt, u.let.var) X(tsl_stmt, u.let.value) X(tsl_stmt, u.let.body)      \
  X(tsl_stmt, u.evaluate.value) X(tsl_stmt, u.seq.n) X(tsl_stmt, u.seq.stmts)  \
  X(tsl_stmt, u.alloc.buffer) X(tsl_stmt, u.alloc.body)                        \
  X(tsl_param, var) X(tsl_param, buffer)                                       \
  X(tsl_func, name) X(tsl_func, n_params) X(tsl_func, params)                  \
  X(tsl_func, attrs) X(tsl_func, body)                                         \
  X(tsl_module, arena) X(tsl_module, name) X(tsl_module, is_bare_func)         \
  X(tsl_module, n_funcs) X(tsl_module, funcs)                                  \
  X(tsl_lowered_func, struct_size) X(tsl_lowered_func, name)                   \
  X(tsl_lowered_func, source) X(tsl_lowered_func, n_params)                    \
  X(tsl_lowered_func, params) X(tsl_lowered_func, n_size_vars)                 \
  X(tsl_lowered_func, size_vars) X(tsl_lowered_func, body)                     \
  X(tsl_lowered_func, flops)                                                   \
  X(tsl_lowered_module, struct_size) X(tsl_lowered_module, n_funcs)            \
  X(tsl_lowered_module, funcs)                                                 \
  X(tsl_weight, struct_size) X(tsl_weight, ndim) X(tsl_weight, name)           \
  X(tsl_weight, shape) X(tsl_weight, data) X(tsl_weight, numel)                \
  X(tsl_weight, nbytes) X(tsl_weight, dtype) X(tsl_weight, reserved)          \
  X(tsl_rx_sinfo, kind) X(tsl_rx_sinfo, ndim) X(tsl_rx_sinfo, dtype)           \
  X(tsl_rx_sinfo, shape) X(tsl_rx_sinfo, n_fields) X(tsl_rx_sinfo, fields)     \
  X(tsl_rx_var, name) X(tsl_rx_var, id) X(tsl_rx_var, is_dataflow)             \
  X(tsl_rx_var, sinfo) X(tsl_rx_expr, kind) X(tsl_rx_expr, op)                 \
  X(tsl_rx_expr, sinfo) X(tsl_rx_expr, n_args) X(tsl_rx_expr, args)            \
  X(tsl_rx_expr, n_sinfo_args) X(tsl_rx_expr, sinfo_args)                      \
  X(tsl_rx_expr, index) X(tsl_rx_expr, name) X(tsl_rx_expr, var)               \
  X(tsl_rx_expr, n_dims) X(tsl_rx_expr, dims)                                  \
  X(tsl_rx_expr, attrs) /* 1.5 */                                               \
  X(tsl_rx_binding, var) X(tsl_rx_binding, value)                              \
  X(tsl_rx_block, is_dataflow) X(tsl_rx_block, n_bindings)                     \
  X(tsl_rx_block, bindings) X(tsl_rx_func, name) X(tsl_rx_func, n_params)      \
  X(tsl_rx_func, params) X(tsl_rx_func, n_size_vars)                           \
  X(tsl_rx_func, size_vars) X(tsl_rx_func, n_blocks) X(tsl_rx_func, blocks)    \
  X(tsl_rx_func, ret) X(tsl_rx_func, ret_sinfo) X(tsl_model, struct_size)      \
  X(tsl_model, arena) X(tsl_model, tir) X(tsl_model, n_rx_funcs)               \
  X(tsl_model, rx_funcs) X(tsl_model, n_constants)                             \
  X(tsl_model, constants) /* 1.5 */                                            \
  X(tsl_lowered_module, n_data) X(tsl_lowered_module, data) /* 1.6 */          \
  X(tsl_lowered_data, struct_size) X(tsl_lowered_data, name)                   \
  X(tsl_lowered_data, bytes) X(tsl_lowered_data, nbytes)                       \
  X(tsl_model_tensor, struct_size) X(tsl_model_tensor, name)                   \
  X(tsl_model_tensor, dtype) X(tsl_model_tensor, ndim)                         \
  X(tsl_model_tensor, shape) X(tsl_model_tensor, offset)                       \
  X(tsl_model_tensor, nbytes) X(tsl_model_aot, struct_size)                    \
  X(tsl_model_aot, module) X(tsl_model_aot, entry) X(tsl_model_aot, n_inputs)  \
  X(tsl_model_aot, inputs) X(tsl_model_aot, n_outputs)                         \
  X(tsl_model_aot, outputs) X(tsl_model_aot, n_weights)                        \
  X(tsl_model_aot, weights) X(tsl_model_aot, weights_data)                     \
  X(tsl_model_aot, weights_bytes) X(tsl_model_aot, n_size_vars)                \
  X(tsl_model_aot, size_vars) X(tsl_model_aot, n_calls)                        \
  X(tsl_model_aot, n_intermediates) X(tsl_model_aot, n_slots)                  \
  X(tsl_model_aot, planned_bytes) X(tsl_model_aot, unplanned_bytes)

#define LAYOUT_TYPES(X)                                                        \
  X(tsl_dtype) X(tsl_var) X(tsl_range) X(tsl_buffer) X(tsl_buffer_region)      \
  X(tsl_attrs) X(tsl_attr_value) X(tsl_attr) X(tsl_expr) X(tsl_iter_var)       \
  X(tsl_match_buffer) X(tsl_block) X(tsl_stmt) X(tsl_param) X(tsl_func)        \
  X(tsl_module) X(tsl_lowered_func) X(tsl_lowered_module) X(tsl_weight)         \
  X(tsl_rx_sinfo) X(tsl_rx_var) X(tsl_rx_expr) X(tsl_rx_binding) X(tsl_rx_block) \
  X(tsl_rx_func) X(tsl_model) X(tsl_lowered_data) X(tsl_model_tensor)          \
  X(tsl_model_aot)

/* One line per fact: "KEY VALUE", KEY unique ("tsl_expr.u.var",
 * "sizeof tsl_expr", "expr_kind ADD"); in order. */
typedef struct line {
  char key[96];
  char value[48];
} line;

static int current(line *out, int cap) {
  int n = 0;
#define FIELD_(T, f)                                                           \
  if (n < cap) {                                                               \
    T x_;                                                                      \
    snprintf(out[n].key, sizeof out[n].key, "%s.%s", #T, #f);                  \
    snprintf(out[n].value, sizeof out[n].value, "offset %zu size %zu",         \
             offsetof(T, f), sizeof x_.f);                                     \
    n++;                                                                       \
  }
  LAYOUT_FIELDS(FIELD_)
#undef FIELD_
  /* the operands: a flexible array member after the payload */
  if (n < cap) {
    snprintf(out[n].key, sizeof out[n].key, "tsl_expr.args");
    snprintf(out[n].value, sizeof out[n].value, "offset %zu element %zu",
             offsetof(tsl_expr, args), sizeof(const tsl_expr *));
    n++;
  }
#define SIZE_(T)                                                               \
  if (n < cap) {                                                               \
    snprintf(out[n].key, sizeof out[n].key, "sizeof %s", #T);                  \
    snprintf(out[n].value, sizeof out[n].value, "%zu", sizeof(T));             \
    n++;                                                                       \
  }
  LAYOUT_TYPES(SIZE_)
#undef SIZE_
#define KIND_(tab_, nm_, v_)                                                   \
  if (n < cap) {                                                               \
    snprintf(out[n].key, sizeof out[n].key, "%s %s", tab_, nm_);               \
    snprintf(out[n].value, sizeof out[n].value, "%d", (int)(v_));              \
    n++;                                                                       \
  }
#define EXPR_(k, ...) KIND_("expr_kind", #k, TSL_EXPR_##k)
  TSL_EXPR_KINDS(EXPR_)
#define STMT_(k, ...) KIND_("stmt_kind", #k, TSL_STMT_##k)
  TSL_STMT_KINDS(STMT_)
#define FOR_(k, ...) KIND_("for_kind", #k, TSL_FOR_##k)
  TSL_FOR_KINDS(FOR_)
#define ITER_(k, ...) KIND_("iter_type", #k, TSL_ITER_##k)
  TSL_ITER_TYPES(ITER_)
#define INTRIN_(k, ...) KIND_("intrin", #k, TSL_INTRIN_##k)
  TSL_INTRINSICS(INTRIN_)
#define BUILTIN_(k, ...) KIND_("builtin", #k, TSL_BUILTIN_##k)
  TSL_BUILTINS(BUILTIN_)
#define RXEXPR_(k, ...) KIND_("rx_expr_kind", #k, TSL_RX_EXPR_##k)
  TSL_RX_EXPR_KINDS(RXEXPR_)
#define RXOP_(k, ...) KIND_("rx_op", #k, TSL_RX_OP_##k)
  TSL_RX_OPS(RXOP_)
  KIND_("rx_sinfo", "OBJECT", TSL_RX_SINFO_OBJECT)
  KIND_("rx_sinfo", "TENSOR", TSL_RX_SINFO_TENSOR)
  KIND_("rx_sinfo", "SHAPE", TSL_RX_SINFO_SHAPE)
  KIND_("rx_sinfo", "TUPLE", TSL_RX_SINFO_TUPLE)
  KIND_("dtype_code", "INT", TSL_DT_INT)
  KIND_("dtype_code", "UINT", TSL_DT_UINT)
  KIND_("dtype_code", "FLOAT", TSL_DT_FLOAT)
  KIND_("dtype_code", "HANDLE", TSL_DT_HANDLE)
  KIND_("dtype_code", "BFLOAT", TSL_DT_BFLOAT)
  KIND_("attr_kind", "INT", TSL_ATTR_INT)
  KIND_("attr_kind", "FLOAT", TSL_ATTR_FLOAT)
  KIND_("attr_kind", "BOOL", TSL_ATTR_BOOL)
  KIND_("attr_kind", "STR", TSL_ATTR_STR)
  KIND_("attr_kind", "LIST", TSL_ATTR_LIST)
  KIND_("attr_kind", "DICT", TSL_ATTR_DICT)
  KIND_("attr_kind", "EXPR", TSL_ATTR_EXPR)
  return n;
}

/* The length of a key's prefix naming its struct or table ("tsl_expr",
 * "intrin"). */
static size_t group_len(const char *key) {
  return !strncmp(key, "sizeof ", 7) ? strlen(key) : strcspn(key, ". ");
}

static const line *find(const line *lines, int n, const char *key) {
  for (int i = 0; i < n; i++)
    if (!strcmp(lines[i].key, key))
      return &lines[i];
  return NULL;
}

/* A key that is new: appended (after every known key of its group) or
 * inserted. Sizes that grow are covered by the appended fields. */
static int appended(const line *cur, int n_cur, int i, const line *gold, int n_gold) {
  size_t g = group_len(cur[i].key);
  for (int j = i + 1; j < n_cur; j++)
    if (group_len(cur[j].key) == g && !strncmp(cur[j].key, cur[i].key, g) &&
        find(gold, n_gold, cur[j].key))
      return 0;
  return 1;
}

/* A struct whose size changed only because fields were appended to it. */
static int grew_by_appending(const line *cur, int n_cur, const line *gold, int n_gold,
                             const char *type) {
  size_t t = strlen(type);
  for (int i = 0; i < n_cur; i++)
    if (!strncmp(cur[i].key, type, t) && cur[i].key[t] == '.' &&
        !find(gold, n_gold, cur[i].key) && appended(cur, n_cur, i, gold, n_gold))
      return 1;
  return 0;
}

/* The recorded lines "KEY = VALUE" of `path`: how many, or -1. */
static int read_golden(const char *path, line *gold, int cap) {
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  char buf[256];
  int n = 0;
  while (n < cap && fgets(buf, sizeof buf, f)) {
    char *eq = strstr(buf, " = ");
    if (!eq)
      continue;
    *eq = '\0';
    eq[3 + strcspn(eq + 3, "\n")] = '\0';
    snprintf(gold[n].key, sizeof gold[n].key, "%.95s", buf);
    snprintf(gold[n].value, sizeof gold[n].value, "%.47s", eq + 3);
    n++;
  }
  fclose(f);
  return n;
}

int main(void) {
  static line cur[1024], gold[1024];
  int n_cur = current(cur, 1024);
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/headers/layout_abi%d.txt", root ? root : ".",
           TSL_ABI_MAJOR);
  const char *update = getenv("TESSEL_UPDATE_GOLDEN");
  if (update && *update && strcmp(update, "0")) {
    FILE *f = fopen(path, "w");
    for (int i = 0; f && i < n_cur; i++)
      fprintf(f, "%s = %s\n", cur[i].key, cur[i].value);
    ok(f && !fclose(f), "wrote %s (%d lines)", path, n_cur);
    return tap_done();
  }
  int n_gold = read_golden(path, gold, 1024);
  if (!ok(n_gold > 0, "the ABI %d layout is recorded in %s", TSL_ABI_MAJOR, path))
    return tap_done();
  int changed = 0, added = 0, inserted = 0;
  for (int i = 0; i < n_gold; i++) {
    const line *c = find(cur, n_cur, gold[i].key);
    if (!strncmp(gold[i].key, "sizeof ", 7) && c && strcmp(c->value, gold[i].value) &&
        grew_by_appending(cur, n_cur, gold, n_gold, gold[i].key + 7)) {
      tap_diag("grown (compatible): %s = %s, now %s", gold[i].key, gold[i].value, c->value);
    } else if (!c || strcmp(c->value, gold[i].value)) {
      changed++;
      tap_diag("changed: %s = %s, now %s", gold[i].key, gold[i].value, c ? c->value : "gone");
    }
  }
  for (int i = 0; i < n_cur; i++) {
    if (find(gold, n_gold, cur[i].key) || !strncmp(cur[i].key, "sizeof ", 7))
      continue;
    if (appended(cur, n_cur, i, gold, n_gold)) {
      added++;
      tap_diag("appended (compatible): %s = %s", cur[i].key, cur[i].value);
    } else {
      inserted++;
      tap_diag("inserted before existing entries: %s = %s", cur[i].key, cur[i].value);
    }
  }
  ok(changed == 0 && inserted == 0,
     "every recorded field offset and size, struct size and kind value is unchanged "
     "(%d lines; %d changed, %d inserted: a change there needs TSL_ABI_MAJOR moved and this "
     "file regenerated with TESSEL_UPDATE_GOLDEN=1)",
     n_gold, changed, inserted);
  ok(added == 0,
     "nothing was appended without being recorded (%d appended: compatible, a minor "
     "version; record it with TESSEL_UPDATE_GOLDEN=1)",
     added);
  return tap_done();
}
