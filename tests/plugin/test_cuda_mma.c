/*
 * plugins/cuda-mma through the real loader: every warp-level tensor-core
 * intrinsic (ldmatrix, mma.sync m16n8k16, fill, store) by its name from
 * tsl_registry_intrins (the build tree's plugin), its description and
 * implementation parsed with matching parameters and the implementation's
 * calls what the name says; small matmuls (A as [m, k] and [k, m], B as
 * [k, n] and [n, k]; float16 and bfloat16 inputs, float32 and float16
 * accumulators; shared and shared.dyn tiles; the accumulator stored to
 * global, shared or shared.dyn by T.mma_store or element-wise) scheduled
 * the way TVM's mma_schedule does (16x16 tiles blockized, "warp" caches in
 * the register layout of mma.sync) and tensorized with all 42 of them;
 * and the examples examples/gpu/matmul_mma*.sch on their workloads. Each
 * result is printed, parsed back (equal), and every PTX call of the
 * printed text is checked against the matched buffers (names, strides,
 * offsets of the parsed copy). The schedules before their tensorize calls
 * run in the interpreter and match the unscheduled program (the PTX
 * builtins themselves do not interpret).
 */
#include "tap.h"
#include "tessel/tessel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_MMA 42

static const char *const mma_names[N_MMA] = {
    "mma_ldmatrix_f16_a",
    "mma_ldmatrix_f16_b",
    "mma_ldmatrix_f16_a_trans",
    "mma_ldmatrix_f16_b_trans",
    "mma_ldmatrix_f16_a_dyn",
    "mma_ldmatrix_f16_b_dyn",
    "mma_ldmatrix_f16_a_trans_dyn",
    "mma_ldmatrix_f16_b_trans_dyn",
    "mma_ldmatrix_bf16_a",
    "mma_ldmatrix_bf16_b",
    "mma_ldmatrix_bf16_a_trans",
    "mma_ldmatrix_bf16_b_trans",
    "mma_ldmatrix_bf16_a_dyn",
    "mma_ldmatrix_bf16_b_dyn",
    "mma_ldmatrix_bf16_a_trans_dyn",
    "mma_ldmatrix_bf16_b_trans_dyn",
    "mma_f16f16f32",
    "mma_f16f16f32_trans_a",
    "mma_f16f16f32_trans_b",
    "mma_f16f16f32_trans_a_trans_b",
    "mma_f16f16f16",
    "mma_f16f16f16_trans_a",
    "mma_f16f16f16_trans_b",
    "mma_f16f16f16_trans_a_trans_b",
    "mma_bf16bf16f32",
    "mma_bf16bf16f32_trans_a",
    "mma_bf16bf16f32_trans_b",
    "mma_bf16bf16f32_trans_a_trans_b",
    "mma_fill_16x16_f32",
    "mma_fill_16x16_f16",
    "mma_store_16x16_f32_global_",
    "mma_store_16x16_f32_shared_",
    "mma_store_16x16_f32_shared_dyn_",
    "mma_store_16x16_f16_global_",
    "mma_store_16x16_f16_shared_",
    "mma_store_16x16_f16_shared_dyn_",
    "mma_store_16x16_f32_global_simple_",
    "mma_store_16x16_f32_shared_simple_",
    "mma_store_16x16_f32_shared_dyn_simple_",
    "mma_store_16x16_f16_global_simple_",
    "mma_store_16x16_f16_shared_simple_",
    "mma_store_16x16_f16_shared_dyn_simple_",
};

static int has(const char *s, const char *part) { return strstr(s, part) != NULL; }

static const char *in_dtype_of(const char *name) {
  return has(name, "bf16") ? "bfloat16" : "float16";
}

static int is_scope(const tsl_buffer *b, const char *scope) {
  return b && b->scope && !strcmp(b->scope, scope);
}

static int is_const(const tsl_expr *e, int64_t want) {
  int64_t v;
  return e && tsl_expr_is_const_int(e, &v) && v == want;
}

static int str_is(const tsl_expr *e, const char *want) {
  return e && e->kind == TSL_EXPR_STR_IMM && !strcmp(e->u.str_value, want);
}

static int is_bool(const tsl_expr *e, int want) {
  return e && e->kind == TSL_EXPR_INT_IMM && tsl_dtype_is_bool(e->dtype) &&
         (e->u.int_value != 0) == want;
}

static int dtype_is(tsl_dtype t, const char *want) {
  char dt[32];
  return !strcmp(tsl_dtype_str(t, dt), want);
}

static const char *abbrev(const char *dtype) {
  return !strcmp(dtype, "float32") ? "fp32" : !strcmp(dtype, "bfloat16") ? "bf16" : "fp16";
}

/* ---- the intrinsics one by one --------------------------------------------- */

/* The implementation's calls under its threadIdx.x loop of 32 lanes; the
 * loop's body into *body. */
static int lane_calls(const tsl_func *impl, const tsl_expr **calls, int cap,
                      const tsl_stmt **body) {
  const tsl_stmt *s = impl->body->u.realize.block->body;
  if (s->kind != TSL_STMT_FOR || !s->u.loop.thread_tag ||
      strcmp(s->u.loop.thread_tag, "threadIdx.x") || !is_const(s->u.loop.extent, 32))
    return -1;
  s = s->u.loop.body;
  *body = s;
  uint32_t n = s->kind == TSL_STMT_SEQ ? s->u.seq.n : 1;
  int k = 0;
  for (uint32_t i = 0; i < n && k < cap; i++) {
    const tsl_stmt *e = s->kind == TSL_STMT_SEQ ? s->u.seq.stmts[i] : s;
    if (e->kind == TSL_STMT_EVALUATE && e->u.evaluate.value->kind == TSL_EXPR_BUILTIN)
      calls[k++] = e->u.evaluate.value;
  }
  return k;
}

/* Same parameters (dtype, scope, shape) in description and
 * implementation, named <name>_desc / <name>_impl. */
static int same_params(const char *name, const tsl_func *desc, const tsl_func *impl) {
  char dn[128], in[128];
  snprintf(dn, sizeof dn, "%s_desc", name);
  snprintf(in, sizeof in, "%s_impl", name);
  if (strcmp(desc->name, dn) || strcmp(impl->name, in) || desc->n_params != impl->n_params)
    return 0;
  for (uint32_t i = 0; i < desc->n_params; i++) {
    const tsl_buffer *d = desc->params[i].buffer, *m = impl->params[i].buffer;
    if (!d || !m || !tsl_dtype_eq(d->dtype, m->dtype) || strcmp(d->scope, m->scope) ||
        d->ndim != 2 || m->ndim != 2)
      return 0;
    for (uint32_t k = 0; k < 2; k++) {
      int64_t a, b;
      if (!tsl_expr_is_const_int(d->shape[k], &a) || !tsl_expr_is_const_int(m->shape[k], &b) ||
          a != b)
        return 0;
    }
  }
  return 1;
}

/* What the name says the implementation does. */
static int impl_says(const char *name, const tsl_func *impl) {
  const tsl_expr *c[4];
  const tsl_stmt *body = NULL;
  int n = lane_calls(impl, c, 4, &body);
  const char *in = in_dtype_of(name);
  if (has(name, "_ldmatrix_")) {
    int is_b = has(name, "16_b"), trans = has(name, "_trans");
    const tsl_buffer *sh = impl->params[1].buffer;
    return n == 1 && c[0]->intrin == TSL_BUILTIN_PTX_LDMATRIX && dtype_is(c[0]->dtype, in) &&
           is_bool(c[0]->args[0], is_b ? !trans : trans) && is_const(c[0]->args[1], 4) &&
           str_is(c[0]->args[2], ".b16") &&
           is_scope(sh, has(name, "_dyn") ? "shared.dyn" : "shared") && sh->strides &&
           is_scope(impl->params[0].buffer, "warp");
  }
  if (has(name, "_fill_")) {
    const char *out = has(name, "f32") ? "float32" : "float16";
    return n == 1 && c[0]->intrin == TSL_BUILTIN_MMA_FILL && dtype_is(c[0]->dtype, out) &&
           is_const(c[0]->args[0], 8) && dtype_is(impl->params[0].buffer->dtype, out);
  }
  if (has(name, "_store_")) {
    const char *out = has(name, "f32") ? "float32" : "float16";
    const char *scope = has(name, "shared_dyn") ? "shared.dyn"
                        : has(name, "_shared_") ? "shared"
                                                : "global";
    if (!is_scope(impl->params[1].buffer, scope) || !dtype_is(impl->params[0].buffer->dtype, out))
      return 0;
    if (has(name, "simple"))
      return n == 0 && body->kind == TSL_STMT_FOR && is_const(body->u.loop.extent, 8) &&
             body->u.loop.body->kind == TSL_STMT_STORE &&
             body->u.loop.body->u.store.buffer == impl->params[1].buffer;
    return n == 1 && c[0]->intrin == TSL_BUILTIN_MMA_STORE && dtype_is(c[0]->dtype, out) &&
           is_const(c[0]->args[0], 16) && is_const(c[0]->args[1], 16);
  }
  /* mma_<in><in><out>[_trans_a][_trans_b] */
  const char *out = has(name + 4, "f32") ? "float32" : "float16";
  int ok2 = n == 2;
  for (int k = 0; ok2 && k < 2; k++)
    ok2 = c[k]->intrin == TSL_BUILTIN_PTX_MMA && dtype_is(c[k]->dtype, out) &&
          str_is(c[k]->args[0], "m16n8k16") && str_is(c[k]->args[1], "row") &&
          str_is(c[k]->args[2], "col") && str_is(c[k]->args[3], abbrev(in)) &&
          str_is(c[k]->args[4], abbrev(in)) && str_is(c[k]->args[5], abbrev(out)) &&
          is_bool(c[k]->args[12], 0);
  return ok2 && dtype_is(impl->params[0].buffer->dtype, in) &&
         dtype_is(impl->params[2].buffer->dtype, out);
}

/* ---- the calls of a scheduled program ------------------------------------ */

typedef struct calls {
  const char *text;     /* the printed module the calls must appear in */
  const char *in, *acc; /* the inputs' and the accumulator's dtypes */
  int ta, tb;           /* A is [k, m], B is [n, k] */
  const char *src_scope, *dst_scope;
  int simple; /* element-wise store */
  int fill, ld_a, ld_b, mma, store;
  const char *tx;         /* the enclosing threadIdx.x loop's variable */
  int tx_depth, ty_depth; /* threadIdx.x / .y loops around the visit */
  int under_ty, bad_lanes;
  int bad;
} calls;

static void expect_text(calls *c, const tsl_block *blk, const char *want) {
  if (strstr(c->text, want))
    return;
  tap_diag("block '%s': the printed program lacks\n  %s", blk->name, want);
  c->bad = 1;
}

static const tsl_buffer *mb(const tsl_block *blk, uint32_t i, const char *scope) {
  return i < blk->n_match_buffers && is_scope(blk->match_buffers[i].buffer, scope)
             ? blk->match_buffers[i].buffer
             : NULL;
}

static const char *stride_name(const tsl_buffer *b) {
  return b && b->strides && b->strides[0]->kind == TSL_EXPR_VAR ? b->strides[0]->u.var->name
                                                                : NULL;
}

/* params (warp, shared) */
static void check_ldmatrix(calls *c, const tsl_block *blk) {
  const tsl_buffer *w = mb(blk, 0, "warp"), *s = mb(blk, 1, c->src_scope);
  const char *s0 = stride_name(s);
  if (!w || !s || !s0) {
    tap_diag("block '%s': ldmatrix without a warp view and a strided %s view", blk->name,
             c->src_scope);
    c->bad = 1;
    return;
  }
  int is_b = blk->match_buffers[1].source.buffer->name[0] == 'B';
  int trans = is_b ? c->tb : c->ta, in_ldmatrix = is_b ? !trans : trans;
  const char *tx = c->tx;
  char off[256], want[1024];
  if (trans)
    snprintf(off, sizeof off, "%s * 8 * (%s // 16) + %s * (%s %% 8) + 8 * (%s %% 16 // 8)", s0,
             tx, s0, tx, tx);
  else
    snprintf(off, sizeof off, "%s * (%s %% 16) + 8 * (%s // 16)", s0, tx, tx);
  snprintf(want, sizeof want,
           "T.ptx_ldmatrix(\"%s\", T.bool(%s), 4, \".b16\", %s.data, %s.elem_offset + 8 * %s, "
           "T.tvm_access_ptr(T.type_annotation(\"%s\"), %s.data, %s.elem_offset, %s * 16, 1), "
           "%s)",
           c->in, in_ldmatrix ? "True" : "False", w->name, w->name, tx, c->in, s->name, s->name,
           s0, off);
  expect_text(c, blk, want);
  if (is_b)
    c->ld_b++;
  else
    c->ld_a++;
}

/* params (A, B, C) */
static void check_mma(calls *c, const tsl_block *blk) {
  const tsl_buffer *a = mb(blk, 0, "warp"), *b = mb(blk, 1, "warp"), *d = mb(blk, 2, "warp");
  if (!a || !b || !d) {
    tap_diag("block '%s': ptx_mma without three warp views", blk->name);
    c->bad = 1;
    return;
  }
  for (int half = 0; half < 2; half++) {
    char want[1024];
    const char *plus = half ? " + 4" : "";
    snprintf(want, sizeof want,
             "T.ptx_mma(\"%s\", \"m16n8k16\", \"row\", \"col\", \"%s\", \"%s\", \"%s\", "
             "%s.data, %s.elem_offset + %s * 8, %s.data, %s.elem_offset + %s * 8%s, %s.data, "
             "%s.elem_offset + %s * 8%s, T.bool(False))",
             c->acc, abbrev(c->in), abbrev(c->in), abbrev(c->acc), a->name, a->name, c->tx,
             b->name, b->name, c->tx, plus, d->name, d->name, c->tx, plus);
    expect_text(c, blk, want);
  }
  c->mma++;
}

static void check_fill(calls *c, const tsl_block *blk) {
  const tsl_buffer *w = mb(blk, 0, "warp");
  char want[512];
  snprintf(want, sizeof want, "T.mma_fill(\"%s\", 8, %s.data, %s.elem_offset)", c->acc,
           w ? w->name : "?", w ? w->name : "?");
  expect_text(c, blk, want);
  c->fill++;
}

/* params (C_warp, C) */
static void check_store(calls *c, const tsl_block *blk, const tsl_stmt *lanes) {
  const tsl_buffer *w = mb(blk, 0, "warp"), *d = mb(blk, 1, c->dst_scope);
  const char *s0 = stride_name(d);
  if (!w || !d || !s0 || !dtype_is(d->dtype, c->acc)) {
    tap_diag("block '%s': a store without a warp view and a strided %s %s view", blk->name,
             c->acc, c->dst_scope);
    c->bad = 1;
    return;
  }
  char want[1024];
  const tsl_stmt *in = lanes->u.loop.body;
  if (c->simple) {
    const char *l = in->kind == TSL_STMT_FOR ? in->u.loop.loop_var->name : "?";
    snprintf(want, sizeof want,
             "%s[8 * (%s %% 4 // 2) + %s // 4, 8 * (%s // 4) + %s %% 4 * 2 + %s %% 2] = "
             "%s[%s, %s]",
             d->name, l, c->tx, l, c->tx, l, w->name, c->tx, l);
  } else {
    snprintf(want, sizeof want,
             "T.mma_store(\"%s\", 16, 16, T.tvm_access_ptr(T.type_annotation(\"%s\"), %s.data, "
             "%s.elem_offset, %s * 16, 2), %s.data, %s.elem_offset, %s)",
             c->acc, c->acc, d->name, d->name, s0, w->name, w->name, s0);
  }
  if (c->simple != (in->kind == TSL_STMT_FOR)) {
    tap_diag("block '%s': the store is %s, expected %s", blk->name,
             in->kind == TSL_STMT_FOR ? "element-wise" : "a call",
             c->simple ? "element-wise" : "T.mma_store");
    c->bad = 1;
  }
  expect_text(c, blk, want);
  c->store++;
}

/* A tensorized block: match_buffers and, as its body, the lanes' loop. */
static void check_block(calls *c, const tsl_block *blk) {
  const tsl_stmt *s = blk->body;
  if (!blk->n_match_buffers)
    return;
  if (s->kind != TSL_STMT_FOR || !s->u.loop.thread_tag ||
      strcmp(s->u.loop.thread_tag, "threadIdx.x") || !is_const(s->u.loop.extent, 32) ||
      c->tx_depth) {
    tap_diag("block '%s': the body is not the only threadIdx.x loop of 32 lanes", blk->name);
    c->bad_lanes++;
    return;
  }
  c->tx = s->u.loop.loop_var->name;
  c->under_ty += c->ty_depth > 0;
  const tsl_stmt *in = s->u.loop.body;
  const tsl_stmt *first = in->kind == TSL_STMT_SEQ ? in->u.seq.stmts[0] : in;
  if (first->kind == TSL_STMT_FOR) {
    check_store(c, blk, s);
    return;
  }
  const tsl_expr *e = first->kind == TSL_STMT_EVALUATE ? first->u.evaluate.value : NULL;
  int id = e && e->kind == TSL_EXPR_BUILTIN ? (int)e->intrin : -1;
  if (id == TSL_BUILTIN_PTX_LDMATRIX)
    check_ldmatrix(c, blk);
  else if (id == TSL_BUILTIN_PTX_MMA)
    check_mma(c, blk);
  else if (id == TSL_BUILTIN_MMA_FILL)
    check_fill(c, blk);
  else if (id == TSL_BUILTIN_MMA_STORE)
    check_store(c, blk, s);
  else {
    tap_diag("block '%s': an unexpected tensorized body", blk->name);
    c->bad = 1;
  }
}

static int visit_stmt(const tsl_stmt *s, void *ud) {
  calls *c = ud;
  if (s->kind == TSL_STMT_BLOCK_REALIZE)
    check_block(c, s->u.realize.block);
  if (s->kind == TSL_STMT_FOR && s->u.loop.thread_tag) {
    c->tx_depth += !strcmp(s->u.loop.thread_tag, "threadIdx.x");
    c->ty_depth += !strcmp(s->u.loop.thread_tag, "threadIdx.y");
  }
  return 0;
}

static int visit_post(const tsl_stmt *s, void *ud) {
  calls *c = ud;
  if (s->kind == TSL_STMT_FOR && s->u.loop.thread_tag) {
    c->tx_depth -= !strcmp(s->u.loop.thread_tag, "threadIdx.x");
    c->ty_depth -= !strcmp(s->u.loop.thread_tag, "threadIdx.y");
  }
  return 0;
}

/* Print the scheduled module, parse it back (equal) and check its calls,
 * found in the parsed copy, whose names are the printed ones. */
static int check_printed(tsl_arena *a, const tsl_module *m, calls *c, const char *what) {
  char *text = tsl_print_module(m);
  const tsl_module *back = NULL;
  tsl_diag d = {0};
  char why[512] = "";
  int rc = tsl_parse(a, "printed", text, strlen(text), &back, &d);
  int same = ok(rc == TSL_OK && tsl_module_equal(back, m, why, sizeof why),
                "%s: the printed program parses back equal%s%s", what, rc ? ": " : "",
                rc ? d.text : why);
  if (rc == TSL_OK) {
    c->text = text;
    tsl_stmt_visitor v = {.stmt = visit_stmt, .stmt_post = visit_post, .user_data = c};
    tsl_stmt_visit(back->funcs[0]->body, &v);
  } else {
    c->bad = 1;
  }
  free(text);
  c->text = NULL;
  return same;
}

static int five_calls(const calls *c) {
  return !c->bad && !c->bad_lanes && c->fill == 1 && c->ld_a == 1 && c->ld_b == 1 &&
         c->mma == 1 && c->store == 1;
}

/* ---- hand-made matmuls ------------------------------------------------------ */

typedef struct mcase {
  const char *what;
  const char *in, *acc; /* dtypes */
  int ta, tb;           /* A as [k, m], B as [n, k] */
  const char *scope;    /* of the A and B tiles */
  const char *st_scope; /* where the store intrinsic writes (C staged there unless global) */
  const char *load_a, *load_b, *mma, *fill, *store;
} mcase;

#define F16 "float16"
#define BF16 "bfloat16"
#define F32 "float32"
#define SH "shared"
#define DYN "shared.dyn"

/* Every name of mma_names appears in at least one case. */
static const mcase cases[] = {
    {"f16 f32 NN", F16, F32, 0, 0, SH, "global", "mma_ldmatrix_f16_a", "mma_ldmatrix_f16_b",
     "mma_f16f16f32", "mma_fill_16x16_f32", "mma_store_16x16_f32_global_"},
    {"f16 f32 NT", F16, F32, 0, 1, DYN, "global", "mma_ldmatrix_f16_a_dyn",
     "mma_ldmatrix_f16_b_trans_dyn", "mma_f16f16f32_trans_b", "mma_fill_16x16_f32",
     "mma_store_16x16_f32_global_simple_"},
    {"f16 f32 TN", F16, F32, 1, 0, DYN, SH, "mma_ldmatrix_f16_a_trans_dyn",
     "mma_ldmatrix_f16_b_dyn", "mma_f16f16f32_trans_a", "mma_fill_16x16_f32",
     "mma_store_16x16_f32_shared_"},
    {"f16 f32 TT", F16, F32, 1, 1, SH, DYN, "mma_ldmatrix_f16_a_trans", "mma_ldmatrix_f16_b_trans",
     "mma_f16f16f32_trans_a_trans_b", "mma_fill_16x16_f32",
     "mma_store_16x16_f32_shared_dyn_simple_"},
    {"f16 f16 NN", F16, F16, 0, 0, SH, "global", "mma_ldmatrix_f16_a", "mma_ldmatrix_f16_b",
     "mma_f16f16f16", "mma_fill_16x16_f16", "mma_store_16x16_f16_global_"},
    {"f16 f16 NT", F16, F16, 0, 1, DYN, "global", "mma_ldmatrix_f16_a_dyn",
     "mma_ldmatrix_f16_b_trans_dyn", "mma_f16f16f16_trans_b", "mma_fill_16x16_f16",
     "mma_store_16x16_f16_global_simple_"},
    {"f16 f16 TN", F16, F16, 1, 0, DYN, SH, "mma_ldmatrix_f16_a_trans_dyn",
     "mma_ldmatrix_f16_b_dyn", "mma_f16f16f16_trans_a", "mma_fill_16x16_f16",
     "mma_store_16x16_f16_shared_"},
    {"f16 f16 TT", F16, F16, 1, 1, SH, DYN, "mma_ldmatrix_f16_a_trans", "mma_ldmatrix_f16_b_trans",
     "mma_f16f16f16_trans_a_trans_b", "mma_fill_16x16_f16",
     "mma_store_16x16_f16_shared_dyn_simple_"},
    {"f16 f16 NN, C staged in shared.dyn", F16, F16, 0, 0, SH, DYN, "mma_ldmatrix_f16_a",
     "mma_ldmatrix_f16_b", "mma_f16f16f16", "mma_fill_16x16_f16",
     "mma_store_16x16_f16_shared_dyn_"},
    {"f16 f16 NN, shared.dyn tiles, C staged in shared", F16, F16, 0, 0, DYN, SH,
     "mma_ldmatrix_f16_a_dyn", "mma_ldmatrix_f16_b_dyn", "mma_f16f16f16", "mma_fill_16x16_f16",
     "mma_store_16x16_f16_shared_simple_"},
    {"bf16 f32 NN", BF16, F32, 0, 0, SH, DYN, "mma_ldmatrix_bf16_a", "mma_ldmatrix_bf16_b",
     "mma_bf16bf16f32", "mma_fill_16x16_f32", "mma_store_16x16_f32_shared_dyn_"},
    {"bf16 f32 NT", BF16, F32, 0, 1, DYN, SH, "mma_ldmatrix_bf16_a_dyn",
     "mma_ldmatrix_bf16_b_trans_dyn", "mma_bf16bf16f32_trans_b", "mma_fill_16x16_f32",
     "mma_store_16x16_f32_shared_simple_"},
    {"bf16 f32 TN", BF16, F32, 1, 0, DYN, "global", "mma_ldmatrix_bf16_a_trans_dyn",
     "mma_ldmatrix_bf16_b_dyn", "mma_bf16bf16f32_trans_a", "mma_fill_16x16_f32",
     "mma_store_16x16_f32_global_"},
    {"bf16 f32 TT", BF16, F32, 1, 1, SH, "global", "mma_ldmatrix_bf16_a_trans",
     "mma_ldmatrix_bf16_b_trans", "mma_bf16bf16f32_trans_a_trans_b", "mma_fill_16x16_f32",
     "mma_store_16x16_f32_global_simple_"},
};
#define N_CASES (sizeof cases / sizeof cases[0])

/* C[i, j] += A[i, k] * B[k, j] over 32x32x32, A as [k, m] when ta, B as
 * [n, k] when tb, the products in the accumulator's type. */
static void program_text(const mcase *w, char *out, size_t cap) {
  const char *ai = w->ta ? "A[vk, vi]" : "A[vi, vk]", *bi = w->tb ? "B[vj, vk]" : "B[vk, vj]";
  char pa[64], pb[64];
  if (strcmp(w->acc, w->in) != 0) {
    snprintf(pa, sizeof pa, "T.Cast(\"%s\", %s)", w->acc, ai);
    snprintf(pb, sizeof pb, "T.Cast(\"%s\", %s)", w->acc, bi);
  } else {
    snprintf(pa, sizeof pa, "%s", ai);
    snprintf(pb, sizeof pb, "%s", bi);
  }
  snprintf(out, cap,
           "@T.prim_func\n"
           "def main(A: T.Buffer((32, 32), \"%s\"), B: T.Buffer((32, 32), \"%s\"), "
           "C: T.Buffer((32, 32), \"%s\")):\n"
           "    for i, j, k in T.grid(32, 32, 32):\n"
           "        with T.block(\"C\"):\n"
           "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
           "            with T.init():\n"
           "                C[vi, vj] = T.%s(0)\n"
           "            C[vi, vj] = C[vi, vj] + %s * %s\n",
           w->in, w->in, w->acc, w->acc, pa, pb);
}

#define LAYOUT                                                                                 \
  "lambda i, j: (i // 16, j // 16, 4 * (i % 8) + j % 8 // 2, 4 * (j % 16 // 8) + i % 16 // 8 " \
  "* 2 + j % 2)"

/* The schedule before tensorize, as TVM's mma_schedule with one warp: 16x16
 * tiles blockized, A and B tiles through `scope` into "warp" caches, C
 * through a "warp" cache (and a staging cache of st_scope), the init split
 * out, the warp caches in the register layout. */
static void prep_script(const mcase *w, char *out, size_t cap) {
  int stage = strcmp(w->st_scope, "global") != 0;
  char st[96] = "", st_at[64] = "";
  if (stage) {
    snprintf(st, sizeof st, "c_st = sch.cache_write(b, 0, \"%s\")\n", w->st_scope);
    snprintf(st_at, sizeof st_at, "sch.reverse_compute_at(c_st, j0)\n");
  }
  snprintf(out, cap,
           "b = sch.get_block(\"C\")\n"
           "%s"
           "i, j, k = sch.get_loops(b)\n"
           "i0, i1 = sch.split(i, [None, 16])\n"
           "j0, j1 = sch.split(j, [None, 16])\n"
           "k0, k1 = sch.split(k, [None, 16])\n"
           "sch.reorder(i0, j0, k0, i1, j1, k1)\n"
           "b_o = sch.blockize(i1)\n"
           "a_sh = sch.cache_read(b_o, 0, \"%s\")\n"
           "b_sh = sch.cache_read(b_o, 1, \"%s\")\n"
           "a_w = sch.cache_read(b_o, 0, \"warp\")\n"
           "b_w = sch.cache_read(b_o, 1, \"warp\")\n"
           "sch.compute_at(a_w, k0)\n"
           "sch.compute_at(b_w, k0)\n"
           "sch.compute_at(a_sh, k0)\n"
           "sch.compute_at(b_sh, k0)\n"
           "c_w = sch.cache_write(b_o, 0, \"warp\")\n"
           "sch.reverse_compute_at(c_w, j0)\n"
           "%s"
           "init = sch.decompose_reduction(b_o, k0)\n"
           "sch.transform_layout(a_w, (\"write\", 0), %s)\n"
           "sch.transform_layout(b_w, (\"write\", 0), %s)\n"
           "sch.transform_layout(c_w, (\"read\", 0), %s)\n",
           st, w->scope, w->scope, st_at, LAYOUT, LAYOUT, LAYOUT);
}

static void tensorize_script(const mcase *w, char *out, size_t cap) {
  snprintf(out, cap,
           "sch.tensorize(sch.get_loops(a_w)[-2], \"%s\")\n"
           "sch.tensorize(sch.get_loops(b_w)[-2], \"%s\")\n"
           "sch.tensorize(sch.get_loops(b)[-3], \"%s\")\n"
           "sch.tensorize(sch.get_loops(sch.get_block(\"C_init\"))[-2], \"%s\")\n"
           "sch.tensorize(sch.get_loops(c_w)[-2], \"%s\")\n",
           w->load_a, w->load_b, w->mma, w->fill, w->store);
}

static int run_script(tsl_ctx *ctx, const tsl_module *prog, const tsl_intrin_registry *ir,
                      const char *file, const char *script, tsl_schedule **out, tsl_diag *d) {
  tsl_schedule_opts so = {sizeof so, NULL, 0, ir};
  *out = NULL;
  int rc = tsl_schedule_new(ctx, prog, &so, out, d);
  if (!rc)
    rc = tsl_script_run(*out, file, script, strlen(script), d);
  return rc;
}

static void run_case(tsl_ctx *ctx, tsl_arena *a, const tsl_intrin_registry *ir, const mcase *w) {
  char prog_src[1024], prep[4096], tz[1024], whole[5120];
  program_text(w, prog_src, sizeof prog_src);
  prep_script(w, prep, sizeof prep);
  tensorize_script(w, tz, sizeof tz);
  const tsl_module *prog = NULL;
  tsl_diag d = {0};
  if (!ok(tsl_parse(a, "prog.py", prog_src, strlen(prog_src), &prog, &d) == TSL_OK,
          "%s: the matmul parses: %s", w->what, d.text[0] ? d.text : "ok"))
    return;
  tsl_schedule *sch = NULL;
  int rc = run_script(ctx, prog, ir, "prep.sch", prep, &sch, &d);
  tsl_equiv_report rep = {0};
  if (!rc)
    rc = tsl_interp_check_equivalent(prog->funcs[0], tsl_schedule_func(sch), NULL, 0, 3, &rep,
                                     &d);
  ok(rc == TSL_OK && rep.n_checked == 3 * 32 * 32,
     "%s: the tiles, caches, layouts and init split apply and compute what the program does "
     "(%lld values): %s",
     w->what, (long long)rep.n_checked, rc ? d.text : "ok");
  tsl_schedule_free(sch);
  /* a script's names live for one run: the whole script on a fresh schedule */
  snprintf(whole, sizeof whole, "%s%s", prep, tz);
  rc = run_script(ctx, prog, ir, "mma.sch", whole, &sch, &d);
  if (ok(rc == TSL_OK, "%s: %s, %s, %s, %s and %s tensorize: %s", w->what, w->load_a, w->load_b,
         w->mma, w->fill, w->store, rc ? d.text : "ok")) {
    calls c = {.in = w->in,
               .acc = w->acc,
               .ta = w->ta,
               .tb = w->tb,
               .src_scope = w->scope,
               .dst_scope = w->st_scope,
               .simple = has(w->store, "simple")};
    check_printed(a, tsl_schedule_module(sch), &c, w->what);
    ok(five_calls(&c),
       "%s: one fill, ldmatrix of A and of B (transposed in ldmatrix: %s, %s), two ptx_mma "
       "(%s x %s -> %s), one store to %s (%s), each on its views (fill %d, loads %d + %d, mma "
       "%d, store %d, blocks not on 32 lanes %d)",
       w->what, w->ta ? "yes" : "no", w->tb ? "no" : "yes", abbrev(w->in), abbrev(w->in),
       abbrev(w->acc), w->st_scope, c.simple ? "element-wise" : "mma_store", c.fill, c.ld_a,
       c.ld_b, c.mma, c.store, c.bad_lanes);
  }
  tsl_schedule_free(sch);
}

/* A wrong intrinsic is refused by its description. */
static void run_mismatch(tsl_ctx *ctx, tsl_arena *a, const tsl_intrin_registry *ir,
                         const mcase *w, const char *mma, const char *why) {
  char prog_src[1024], prep[4096], whole[5120];
  program_text(w, prog_src, sizeof prog_src);
  prep_script(w, prep, sizeof prep);
  snprintf(whole, sizeof whole, "%ssch.tensorize(sch.get_loops(b)[-3], \"%s\")\n", prep, mma);
  const tsl_module *prog = NULL;
  tsl_diag d = {0};
  tsl_schedule *sch = NULL;
  int rc = tsl_parse(a, "prog.py", prog_src, strlen(prog_src), &prog, &d);
  if (!rc)
    rc = run_script(ctx, prog, ir, "bad.sch", whole, &sch, &d);
  ok(rc != TSL_OK && has(d.text, "does not match the description") && has(d.text, why),
     "%s with %s is refused (%s): %s", w->what, mma, why, d.text);
  tsl_schedule_free(sch);
}

/* ---- the examples ------------------------------------------------------------ */

static char *read_src(const char *root, const char *rel) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  char *src = NULL;
  size_t len = 0;
  tsl_diag d = {0};
  if (tsl_read_file(path, &src, &len, &d) != TSL_OK) {
    tap_diag("%s", d.text);
    return NULL;
  }
  return src;
}

/* The script without its lines from `sch.tensorize` on. */
static char *before_tensorize(const char *src) {
  char *out = strdup(src);
  char *at = strstr(out, "\nsch.tensorize(");
  if (at)
    at[1] = '\0';
  return out;
}

typedef struct example {
  const char *workload, *script;
  const char *in;
  int tb;
} example;

static void run_example(tsl_ctx *ctx, tsl_arena *a, const tsl_intrin_registry *ir,
                        const example *x, int all_orders) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  char *prog_src = read_src(root ? root : ".", x->workload);
  char *script = read_src(root ? root : ".", x->script);
  const tsl_module *prog = NULL;
  tsl_diag d = {0};
  if (!ok(prog_src && script &&
              tsl_parse(a, x->workload, prog_src, strlen(prog_src), &prog, &d) == TSL_OK,
          "%s and %s read: %s", x->workload, x->script, d.text)) {
    free(prog_src);
    free(script);
    return;
  }
  char *prep = before_tensorize(script);
  tsl_schedule *sch = NULL;
  int rc = run_script(ctx, prog, ir, x->script, prep, &sch, &d);
  tsl_equiv_report rep = {0};
  tsl_interp_opts io = {sizeof io, all_orders ? TSL_INTERP_ORDER_ALL : TSL_INTERP_ORDER_NATURAL,
                        5};
  if (!rc)
    rc = tsl_interp_check_equivalent_opts(prog->funcs[0], tsl_schedule_func(sch), NULL, 0, 5,
                                          &io, &rep, &d);
  ok(rc == TSL_OK && rep.n_checked == 3 * 128 * 128,
     "%s before its tensorize calls computes the workload's values%s (%lld values): %s",
     x->script, all_orders ? ", its thread-bound loops in all three orders" : "",
     (long long)rep.n_checked, rc ? d.text : "ok");
  tsl_schedule_free(sch);
  rc = run_script(ctx, prog, ir, x->script, script, &sch, &d);
  if (ok(rc == TSL_OK, "%s applies, its five tensorize calls included: %s", x->script,
         rc ? d.text : "ok")) {
    calls c = {.in = x->in,
               .acc = "float32",
               .tb = x->tb,
               .src_scope = "shared",
               .dst_scope = "global"};
    check_printed(a, tsl_schedule_module(sch), &c, x->script);
    ok(five_calls(&c),
       "  ... one fill, two ldmatrix from shared (B %stransposed in ldmatrix), one pair of "
       "%s ptx_mma, one mma_store to global, each on its views",
       x->tb ? "not " : "", abbrev(x->in));
    ok(c.under_ty == 5 && c.bad_lanes == 0,
       "  ... every tensorized block in a warp (threadIdx.y: %d of 5) on its 32 lanes, "
       "the implementation's threadIdx.x loop the only one (%d not)",
       c.under_ty, c.bad_lanes);
    rc = tsl_interp_check_equivalent(prog->funcs[0], tsl_schedule_func(sch), NULL, 0, 5, &rep,
                                     &d);
    ok(rc != TSL_OK && has(d.text, "cannot be interpreted") && has(d.text, "warp"),
       "  ... and the tensorized program does not interpret (the builtins are the "
       "target's): %s",
       d.text);
  }
  tsl_schedule_free(sch);
  free(prep);
  free(prog_src);
  free(script);
}

/* ---- main -------------------------------------------------------------------- */

static void check_registry(tsl_registry *reg, const tsl_intrin_registry *ir) {
  int found = 0, from_plugin = 0, params = 0, says = 0;
  for (int i = 0; i < N_MMA; i++) {
    const tsl_func *desc = NULL, *impl = NULL;
    if (!tsl_intrin_registry_get(ir, mma_names[i], &desc, &impl) || !desc || !impl) {
      tap_diag("%s: not found", mma_names[i]);
      continue;
    }
    found++;
    if (same_params(mma_names[i], desc, impl))
      params++;
    else
      tap_diag("%s: description and implementation differ in their parameters", mma_names[i]);
    if (impl_says(mma_names[i], impl))
      says++;
    else
      tap_diag("%s: the implementation is not what the name says", mma_names[i]);
    for (uint32_t k = 0; k < tsl_registry_count(reg); k++) {
      const tsl_component *c = tsl_registry_get(reg, k);
      if (c->kind == TSL_COMPONENT_INTRIN && !strcmp(c->name, mma_names[i]) &&
          strstr(tsl_registry_path(reg, k), "/plugins/cuda-mma/tessel-cuda-mma.so"))
        from_plugin++;
    }
  }
  is_int(found, N_MMA, "every mma.sync / ldmatrix intrinsic is found by its name");
  is_int(from_plugin, N_MMA, "  ... each registered by the build tree's tessel-cuda-mma.so");
  int total = 0;
  for (uint32_t k = 0; k < tsl_registry_count(reg); k++) {
    const tsl_component *c = tsl_registry_get(reg, k);
    total += c->kind == TSL_COMPONENT_INTRIN &&
             strstr(tsl_registry_path(reg, k), "/plugins/cuda-mma/tessel-cuda-mma.so") != NULL;
  }
  is_int(total, N_MMA, "  ... and the plugin registers no other");
  is_int(params, N_MMA,
         "  ... each description and implementation parse, <name>_desc and <name>_impl, with "
         "the same buffers (dtype, scope, shape)");
  is_int(says, N_MMA,
         "  ... each implementation on 32 lanes (threadIdx.x) doing what its name says: "
         "ptx_ldmatrix's transpose flag, dtype and scope, ptx_mma's m16n8k16 row.col and dtypes "
         "twice, mma_fill's and mma_store's dtype and sizes, the element-wise stores");

  const tsl_func *desc = NULL, *impl = NULL;
  tsl_intrin_registry_get(ir, "mma_ldmatrix_f16_b_trans_dyn", &desc, &impl);
  const tsl_buffer *w = impl ? impl->params[0].buffer : NULL;
  const tsl_buffer *s = impl ? impl->params[1].buffer : NULL;
  ok(w && s && w->align == 64 && w->offset_factor == 16 && s->offset_factor == 16 && s->strides &&
         s->strides[0]->kind == TSL_EXPR_VAR && !w->strides && is_const(w->shape[0], 32) &&
         is_const(w->shape[1], 8),
     "an ldmatrix's implementation: a warp buffer (32, 8) and a shared.dyn tile with symbolic "
     "strides, align=64, offset_factor=16");
}

int main(void) {
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_registry *reg = NULL;
  tsl_intrin_registry *ir = NULL;
  tsl_diag d = {0};
  int rc = tsl_registry_new(ctx, &reg, &d);
  if (!rc)
    rc = tsl_registry_load_default(reg, 0, NULL, &d);
  if (!ok(rc == TSL_OK, "the default registry loads: %s", rc ? d.text : "ok"))
    return tap_done();
  rc = tsl_registry_intrins(reg, a, &ir, &d);
  if (!ok(rc == TSL_OK, "tsl_registry_intrins parses every intrin component: %s",
          rc ? d.text : "ok"))
    return tap_done();

  check_registry(reg, ir);

  int used[N_MMA] = {0};
  for (size_t i = 0; i < N_CASES; i++) {
    const char *n[5] = {cases[i].load_a, cases[i].load_b, cases[i].mma, cases[i].fill,
                        cases[i].store};
    for (int k = 0; k < 5; k++)
      for (int j = 0; j < N_MMA; j++)
        used[j] |= !strcmp(n[k], mma_names[j]);
    run_case(ctx, a, ir, &cases[i]);
  }
  int all = 1;
  for (int j = 0; j < N_MMA; j++)
    all &= used[j];
  ok(all, "the cases tensorize with all %d intrinsics", N_MMA);

  run_mismatch(ctx, a, ir, &cases[1], "mma_f16f16f32", "region B_shared");
  run_mismatch(ctx, a, ir, &cases[0], "mma_f16f16f32_trans_a", "region A_shared_warp");
  run_mismatch(ctx, a, ir, &cases[0], "mma_f16f16f16", "float16");
  run_mismatch(ctx, a, ir, &cases[0], "mma_bf16bf16f32", "bfloat16");

  static const example ex[] = {
      {"workloads/matmul_fp16_gpu.py", "examples/gpu/matmul_mma.sch", "float16", 0},
      {"workloads/matmul_bf16_gpu.py", "examples/gpu/matmul_mma_bf16.sch", "bfloat16", 0},
      {"workloads/matmul_fp16_nt_gpu.py", "examples/gpu/matmul_mma_trans_b.sch", "float16", 1},
  };
  for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++)
    run_example(ctx, a, ir, &ex[i], i == 0);

  tsl_intrin_registry_free(ir);
  tsl_registry_free(reg);
  tsl_arena_free(a);
  tsl_ctx_free(ctx);
  return tap_done();
}
