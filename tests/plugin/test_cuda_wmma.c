/*
 * plugins/cuda-wmma through the real loader: every WMMA intrinsic by its
 * TVM name from tsl_registry_intrins (the build tree's plugin), each family
 * tensorized into small float16 matmuls (B as [k, n] and as [n, k], float32
 * and float16 accumulators, shared and shared.dyn tiles, the accumulator
 * stored to global, shared or shared.dyn), and the example schedule
 * examples/gpu/matmul_wmma.sch on workloads/matmul_fp16_gpu.py. Each result
 * is printed, parsed back (equal), and every WMMA call of the printed text
 * is checked against what its match_buffers say it must be: the fragment
 * index X.elem_offset // d // 16 * (d // 16) + X.elem_offset % d // 16 with
 * d the fragment buffer's own row-stride variable, the pointer and stride
 * of the shared or global side, the layout. The schedules before their
 * tensorize calls run in the interpreter and match the unscheduled program
 * (the WMMA builtins themselves do not interpret).
 */
#include "tap.h"
#include "tessel/tessel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_WMMA 34

static const char *const wmma_names[N_WMMA] = {
    "wmma_load_16x16x16_f16_a_shared",       "wmma_load_16x16x16_f16_a_shared_dyn",
    "wmma_load_16x16x16_f16_b_shared",       "wmma_load_16x16x16_f16_b_shared_dyn",
    "wmma_load_16x16x16_f16_a_trans_shared", "wmma_load_16x16x16_f16_a_trans_shared_dyn",
    "wmma_load_16x16x16_f16_b_trans_shared", "wmma_load_16x16x16_f16_b_trans_shared_dyn",
    "wmma_fill_16x16x16_f32",                "wmma_fill_16x16x16_f16",
    "wmma_store_16x16x16_f32_global",        "wmma_store_16x16x16_f32_shared",
    "wmma_store_16x16x16_f32_shared_dyn",    "wmma_store_16x16x16_f16_global",
    "wmma_store_16x16x16_f16_shared",        "wmma_store_16x16x16_f16_shared_dyn",
    "wmma_sync_16x16x16_f16f16f32",          "wmma_sync_16x16x16_f16f16f32_trans",
    "wmma_sync_16x16x16_f16f16f16",          "wmma_sync_16x16x16_f16f16f16_trans",
    "wmma_load_16x16x16_s8_a_shared",        "wmma_load_16x16x16_s8_a_shared_dyn",
    "wmma_load_16x16x16_s8_b_shared",        "wmma_load_16x16x16_s8_b_shared_dyn",
    "wmma_load_16x16x16_s8_a_trans_shared",  "wmma_load_16x16x16_s8_a_trans_shared_dyn",
    "wmma_load_16x16x16_s8_b_trans_shared",  "wmma_load_16x16x16_s8_b_trans_shared_dyn",
    "wmma_fill_16x16x16_s32",                "wmma_store_16x16x16_s32_global",
    "wmma_store_16x16x16_s32_shared",        "wmma_store_16x16x16_s32_shared_dyn",
    "wmma_sync_16x16x16_s8s8s32",            "wmma_sync_16x16x16_s8s8s32_trans",
};

/* ---- the calls of a scheduled program ------------------------------------ */

typedef struct calls {
  const char *text;      /* the printed module the calls must appear in */
  const char *src_scope; /* scope of the loads' source */
  const char *dst_scope; /* scope of the store's destination */
  const char *layout[2]; /* of the A and the B load */
  int fill, load_a, load_b, mma, store;
  int tx_depth, ty_depth;  /* threadIdx.x / .y loops around the visit */
  int under_tx, under_ty;  /* WMMA calls inside such loops */
  int bad;
} calls;

static int is_scope(const tsl_buffer *b, const char *scope) {
  return b && b->scope && !strcmp(b->scope, scope);
}

static const tsl_buffer *data_of(const tsl_expr *e) {
  return e && e->kind == TSL_EXPR_BUFFER_DATA ? e->u.buffer : NULL;
}

static int is_16(const tsl_expr *e) {
  int64_t v;
  return tsl_expr_is_const_int(e, &v) && v == 16;
}

/* A match_buffer of `blk` with symbolic strides and offset, align 64 and
 * offset_factor 16, as the intrinsics declare; the name of its row-stride
 * variable into sv. */
static int is_view(calls *c, const tsl_block *blk, const tsl_buffer *b, const char **sv) {
  int mine = 0;
  for (uint32_t i = 0; i < blk->n_match_buffers; i++)
    mine |= blk->match_buffers[i].buffer == b;
  int fine = mine && b->ndim == 2 && b->strides && b->strides[0]->kind == TSL_EXPR_VAR &&
             b->strides[1]->kind == TSL_EXPR_VAR && b->elem_offset &&
             b->elem_offset->kind == TSL_EXPR_VAR && b->align == 64 &&
             b->offset_factor == 16 && is_16(b->shape[0]) && is_16(b->shape[1]);
  if (!fine) {
    tap_diag("block '%s': buffer '%s' is not a 16x16 match_buffer with symbolic strides "
             "and offset, align=64, offset_factor=16",
             blk->name, b ? b->name : "?");
    c->bad = 1;
    return 0;
  }
  *sv = b->strides[0]->u.var->name;
  return 1;
}

/* TVM's get_wmma_fragment_index of `b`, as printed. */
static void frag_index(char *out, size_t cap, const tsl_buffer *b, const char *sv) {
  snprintf(out, cap, "%s.elem_offset // %s // 16 * (%s // 16) + %s.elem_offset %% %s // 16",
           b->name, sv, sv, b->name, sv);
}

static void expect_text(calls *c, const tsl_block *blk, const char *want) {
  if (strstr(c->text, want))
    return;
  tap_diag("block '%s': the printed program lacks\n  %s", blk->name, want);
  c->bad = 1;
}

/* fragment X, shared/global Y: load or store */
static void check_copy(calls *c, const tsl_block *blk, const tsl_expr *e, int load) {
  const tsl_buffer *x = data_of(e->args[0]);
  const tsl_expr *ptr = e->args[5];
  const tsl_buffer *y = ptr->kind == TSL_EXPR_BUILTIN && ptr->intrin == TSL_BUILTIN_TVM_ACCESS_PTR
                            ? data_of(ptr->args[1])
                            : NULL;
  const char *xs, *ys;
  if (!x || !y || !is_view(c, blk, x, &xs) || !is_view(c, blk, y, &ys)) {
    c->bad |= !x || !y;
    return;
  }
  int which = is_scope(x, "wmma.matrix_b");
  const char *want_x = load ? (which ? "wmma.matrix_b" : "wmma.matrix_a") : "wmma.accumulator";
  const char *want_y = load ? c->src_scope : c->dst_scope;
  if (!is_scope(x, want_x) || !is_scope(y, want_y)) {
    tap_diag("block '%s': %s from scope %s to %s, expected %s to %s", blk->name,
             load ? "load" : "store", load ? y->scope : x->scope, load ? x->scope : y->scope,
             load ? want_y : want_x, load ? want_x : want_y);
    c->bad = 1;
    return;
  }
  char idx[256], dt[32], want[1024];
  frag_index(idx, sizeof idx, x, xs);
  tsl_dtype_str(y->dtype, dt);
  snprintf(want, sizeof want,
           "T.tvm_%s_matrix_sync(%s.data, 16, 16, 16, %s, T.tvm_access_ptr(T.type_annotation("
           "\"%s\"), %s.data, %s.elem_offset, %s * 16, %d), %s, \"%s\")",
           load ? "load" : "store", x->name, idx, dt, y->name, y->name, ys, load ? 1 : 2, ys,
           load ? c->layout[which] : "row_major");
  expect_text(c, blk, want);
  if (load && which)
    c->load_b++;
  else if (load)
    c->load_a++;
  else
    c->store++;
}

static void check_fill(calls *c, const tsl_block *blk, const tsl_expr *e) {
  const tsl_buffer *x = data_of(e->args[0]);
  const char *xs;
  if (!x || !is_view(c, blk, x, &xs) || !is_scope(x, "wmma.accumulator")) {
    tap_diag("block '%s': the fill's fragment is not a wmma.accumulator view", blk->name);
    c->bad = 1;
    return;
  }
  char idx[256], dt[32], want[768];
  frag_index(idx, sizeof idx, x, xs);
  tsl_dtype_str(x->dtype, dt);
  char zero[40]; /* an int32 literal prints bare */
  snprintf(zero, sizeof zero, strcmp(dt, "int32") ? "T.%s(0)" : "0", dt);
  snprintf(want, sizeof want, "T.tvm_fill_fragment(%s.data, 16, 16, 16, %s, %s)", x->name, idx,
           zero);
  expect_text(c, blk, want);
  c->fill++;
}

static void check_mma(calls *c, const tsl_block *blk, const tsl_expr *e) {
  static const char *const scopes[3] = {"wmma.accumulator", "wmma.matrix_a", "wmma.matrix_b"};
  const tsl_buffer *b[3];
  const char *sv[3];
  char idx[3][256];
  for (int k = 0; k < 3; k++) {
    b[k] = data_of(e->args[2 * k]);
    if (!b[k] || !is_view(c, blk, b[k], &sv[k]) || !is_scope(b[k], scopes[k])) {
      tap_diag("block '%s': operand %d of tvm_mma_sync is not a %s view", blk->name, 2 * k,
               scopes[k]);
      c->bad = 1;
      return;
    }
    frag_index(idx[k], sizeof idx[k], b[k], sv[k]);
  }
  char want[1536];
  snprintf(want, sizeof want,
           "T.tvm_mma_sync(%s.data, %s, %s.data, %s, %s.data, %s, %s.data, %s)", b[0]->name,
           idx[0], b[1]->name, idx[1], b[2]->name, idx[2], b[0]->name, idx[0]);
  expect_text(c, blk, want);
  c->mma++;
}

static int visit_stmt(const tsl_stmt *s, void *ud) {
  calls *c = ud;
  if (s->kind == TSL_STMT_FOR && s->u.loop.thread_tag) {
    c->tx_depth += !strcmp(s->u.loop.thread_tag, "threadIdx.x");
    c->ty_depth += !strcmp(s->u.loop.thread_tag, "threadIdx.y");
  }
  if (s->kind != TSL_STMT_BLOCK_REALIZE)
    return 0;
  const tsl_block *blk = s->u.realize.block;
  const tsl_stmt *body = blk->body;
  if (!body || body->kind != TSL_STMT_EVALUATE || body->u.evaluate.value->kind != TSL_EXPR_BUILTIN)
    return 0;
  const tsl_expr *e = body->u.evaluate.value;
  int before = c->fill + c->load_a + c->load_b + c->mma + c->store;
  if (e->intrin == TSL_BUILTIN_TVM_FILL_FRAGMENT)
    check_fill(c, blk, e);
  else if (e->intrin == TSL_BUILTIN_TVM_LOAD_MATRIX_SYNC)
    check_copy(c, blk, e, 1);
  else if (e->intrin == TSL_BUILTIN_TVM_STORE_MATRIX_SYNC)
    check_copy(c, blk, e, 0);
  else if (e->intrin == TSL_BUILTIN_TVM_MMA_SYNC)
    check_mma(c, blk, e);
  if (c->fill + c->load_a + c->load_b + c->mma + c->store > before) {
    c->under_tx += c->tx_depth > 0;
    c->under_ty += c->ty_depth > 0;
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

/* ---- hand-made matmuls ------------------------------------------------------ */

typedef struct wcase {
  const char *what;
  int nt;             /* B is [n, k]: C[i, j] += A[i, k] * B[j, k] */
  const char *acc;    /* the accumulator's dtype */
  const char *scope;  /* of the A and B tiles (and the staged C) */
  int stage_c;        /* C goes out through a cache of `scope` */
  const char *fill, *load_a, *load_b, *sync, *store;
  const char *layout_a, *layout_b;
  const char *in; /* the inputs' dtype (float16 when NULL) */
} wcase;

/* Every name of wmma_names appears in at least one case. */
static const wcase cases[] = {
    {"NN f32, shared", 0, "float32", "shared", 0, "wmma_fill_16x16x16_f32",
     "wmma_load_16x16x16_f16_a_shared", "wmma_load_16x16x16_f16_b_shared",
     "wmma_sync_16x16x16_f16f16f32", "wmma_store_16x16x16_f32_global", "row_major",
     "row_major", "float16"},
    {"NN f32, shared.dyn, C staged", 0, "float32", "shared.dyn", 1, "wmma_fill_16x16x16_f32",
     "wmma_load_16x16x16_f16_a_shared_dyn", "wmma_load_16x16x16_f16_b_shared_dyn",
     "wmma_sync_16x16x16_f16f16f32", "wmma_store_16x16x16_f32_shared_dyn", "row_major",
     "row_major", "float16"},
    {"NN f32, col_major loads, C staged", 0, "float32", "shared", 1, "wmma_fill_16x16x16_f32",
     "wmma_load_16x16x16_f16_a_trans_shared", "wmma_load_16x16x16_f16_b_trans_shared",
     "wmma_sync_16x16x16_f16f16f32", "wmma_store_16x16x16_f32_shared", "col_major",
     "col_major", "float16"},
    {"NN f16", 0, "float16", "shared", 1, "wmma_fill_16x16x16_f16",
     "wmma_load_16x16x16_f16_a_shared", "wmma_load_16x16x16_f16_b_shared",
     "wmma_sync_16x16x16_f16f16f16", "wmma_store_16x16x16_f16_shared", "row_major", "row_major", "float16"},
    {"NT f32", 1, "float32", "shared", 0, "wmma_fill_16x16x16_f32",
     "wmma_load_16x16x16_f16_a_shared", "wmma_load_16x16x16_f16_b_trans_shared",
     "wmma_sync_16x16x16_f16f16f32_trans", "wmma_store_16x16x16_f32_global", "row_major",
     "col_major", "float16"},
    {"NT f16", 1, "float16", "shared", 0, "wmma_fill_16x16x16_f16",
     "wmma_load_16x16x16_f16_a_shared", "wmma_load_16x16x16_f16_b_trans_shared",
     "wmma_sync_16x16x16_f16f16f16_trans", "wmma_store_16x16x16_f16_global", "row_major",
     "col_major", "float16"},
    {"NT f16, shared.dyn, C staged", 1, "float16", "shared.dyn", 1, "wmma_fill_16x16x16_f16",
     "wmma_load_16x16x16_f16_a_trans_shared_dyn", "wmma_load_16x16x16_f16_b_trans_shared_dyn",
     "wmma_sync_16x16x16_f16f16f16_trans", "wmma_store_16x16x16_f16_shared_dyn", "col_major",
     "col_major", "float16"},
    {"NN s8 s32", 0, "int32", "shared", 0, "wmma_fill_16x16x16_s32",
     "wmma_load_16x16x16_s8_a_shared", "wmma_load_16x16x16_s8_b_shared",
     "wmma_sync_16x16x16_s8s8s32", "wmma_store_16x16x16_s32_global", "row_major", "row_major",
     "int8"},
    {"NN s8 s32, shared.dyn, C staged", 0, "int32", "shared.dyn", 1, "wmma_fill_16x16x16_s32",
     "wmma_load_16x16x16_s8_a_shared_dyn", "wmma_load_16x16x16_s8_b_shared_dyn",
     "wmma_sync_16x16x16_s8s8s32", "wmma_store_16x16x16_s32_shared_dyn", "row_major",
     "row_major", "int8"},
    {"NN s8 s32, col_major loads, C staged", 0, "int32", "shared", 1, "wmma_fill_16x16x16_s32",
     "wmma_load_16x16x16_s8_a_trans_shared", "wmma_load_16x16x16_s8_b_trans_shared",
     "wmma_sync_16x16x16_s8s8s32", "wmma_store_16x16x16_s32_shared", "col_major", "col_major",
     "int8"},
    {"NT s8 s32, shared.dyn", 1, "int32", "shared.dyn", 0, "wmma_fill_16x16x16_s32",
     "wmma_load_16x16x16_s8_a_trans_shared_dyn", "wmma_load_16x16x16_s8_b_trans_shared_dyn",
     "wmma_sync_16x16x16_s8s8s32_trans", "wmma_store_16x16x16_s32_global", "col_major",
     "col_major", "int8"},
};
#define N_CASES (sizeof cases / sizeof cases[0])

static void program_text(const wcase *w, char *out, size_t cap) {
  const char *b = w->nt ? "B[vj, vk]" : "B[vk, vj]", *in = w->in ? w->in : "float16";
  char pa[64] = "A[vi, vk]", pb[64];
  snprintf(pb, sizeof pb, "%s", b);
  if (strcmp(w->acc, in) != 0) { /* the products in the accumulator's type */
    snprintf(pa, sizeof pa, "T.Cast(\"%s\", A[vi, vk])", w->acc);
    snprintf(pb, sizeof pb, "T.Cast(\"%s\", %s)", w->acc, b);
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
           in, in, w->acc, w->acc, pa, pb);
}

/* The schedule before tensorize: 16x16 tiles of C in a wmma.accumulator
 * cache, 16-wide k steps whose A and B tiles go through `scope` into
 * wmma.matrix_a / wmma.matrix_b, the init split out. */
static void prep_script(const wcase *w, char *out, size_t cap) {
  char stage[96] = "", stage_at[64] = "";
  if (w->stage_c) {
    snprintf(stage, sizeof stage, "c_st = sch.cache_write(b, 0, \"%s\")\n", w->scope);
    snprintf(stage_at, sizeof stage_at, "sch.reverse_compute_at(c_st, j0)\n");
  }
  snprintf(out, cap,
           "b = sch.get_block(\"C\")\n"
           "%s"
           "acc = sch.cache_write(b, 0, \"wmma.accumulator\")\n"
           "i, j, k = sch.get_loops(b)\n"
           "i0, i1 = sch.split(i, [None, 16])\n"
           "j0, j1 = sch.split(j, [None, 16])\n"
           "k0, k1 = sch.split(k, [None, 16])\n"
           "sch.reorder(i0, j0, k0, i1, j1, k1)\n"
           "sch.reverse_compute_at(acc, j0)\n"
           "%s"
           "a_sh = sch.cache_read(b, 0, \"%s\")\n"
           "a_fr = sch.cache_read(b, 0, \"wmma.matrix_a\")\n"
           "b_sh = sch.cache_read(b, 1, \"%s\")\n"
           "b_fr = sch.cache_read(b, 1, \"wmma.matrix_b\")\n"
           "sch.compute_at(a_fr, k0)\n"
           "sch.compute_at(b_fr, k0)\n"
           "sch.compute_at(a_sh, k0)\n"
           "sch.compute_at(b_sh, k0)\n"
           "init = sch.decompose_reduction(b, k0)\n",
           stage, stage_at, w->scope, w->scope);
}

static void tensorize_script(const wcase *w, char *out, size_t cap) {
  snprintf(out, cap,
           "sch.tensorize(sch.get_loops(init)[2], \"%s\")\n"
           "sch.tensorize(sch.get_loops(a_fr)[3], \"%s\")\n"
           "sch.tensorize(sch.get_loops(b_fr)[3], \"%s\")\n"
           "sch.tensorize(sch.get_loops(b)[3], \"%s\")\n"
           "sch.tensorize(sch.get_loops(acc)[2], \"%s\")\n",
           w->fill, w->load_a, w->load_b, w->sync, w->store);
}

static void run_case(tsl_ctx *ctx, tsl_arena *a, const tsl_intrin_registry *ir, const wcase *w) {
  char prog_src[1024], prep[2048], tz[1024];
  program_text(w, prog_src, sizeof prog_src);
  prep_script(w, prep, sizeof prep);
  tensorize_script(w, tz, sizeof tz);
  const tsl_module *prog = NULL;
  tsl_diag d = {0};
  if (!ok(tsl_parse(a, "prog.py", prog_src, strlen(prog_src), &prog, &d) == TSL_OK,
          "%s: the matmul parses: %s", w->what, d.text))
    return;
  tsl_schedule_opts so = {sizeof so, NULL, 0, ir};
  tsl_schedule *sch = NULL;
  int rc = tsl_schedule_new(ctx, prog, &so, &sch, &d);
  if (!rc)
    rc = tsl_script_run(sch, "prep.sch", prep, strlen(prep), &d);
  if (!ok(rc == TSL_OK, "%s: the caches, tiles and init split apply: %s", w->what,
          rc ? d.text : "ok")) {
    tsl_schedule_free(sch);
    return;
  }
  tsl_equiv_report rep = {0};
  rc = tsl_interp_check_equivalent(prog->funcs[0], tsl_schedule_func(sch), NULL, 0, 3, &rep, &d);
  ok(rc == TSL_OK && rep.n_checked > 0,
     "%s: before tensorize, the schedule computes what the program does (%lld values): %s",
     w->what, (long long)rep.n_checked, rc ? d.text : "ok");
  /* a script's names live for one run: the whole script on a fresh schedule */
  tsl_schedule_free(sch);
  sch = NULL;
  char whole[3072];
  snprintf(whole, sizeof whole, "%s%s", prep, tz);
  rc = tsl_schedule_new(ctx, prog, &so, &sch, &d);
  if (!rc)
    rc = tsl_script_run(sch, "wmma.sch", whole, strlen(whole), &d);
  if (ok(rc == TSL_OK, "%s: %s, %s, %s, %s and %s tensorize: %s", w->what, w->fill, w->load_a,
         w->load_b, w->sync, w->store, rc ? d.text : "ok")) {
    calls c = {.src_scope = w->scope,
               .dst_scope = w->stage_c ? w->scope : "global",
               .layout = {w->layout_a, w->layout_b}};
    check_printed(a, tsl_schedule_module(sch), &c, w->what);
    ok(!c.bad && c.fill == 1 && c.load_a == 1 && c.load_b == 1 && c.mma == 1 && c.store == 1,
       "%s: one fill, load of A (%s), load of B (%s), mma_sync and store (to %s), each with "
       "its fragment index (fill %d, loads %d + %d, mma %d, store %d)",
       w->what, w->layout_a, w->layout_b, c.dst_scope, c.fill, c.load_a, c.load_b, c.mma,
       c.store);
  }
  tsl_schedule_free(sch);
}

/* ---- the example schedule ------------------------------------------------- */

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

static void run_example(tsl_ctx *ctx, tsl_arena *a, const tsl_intrin_registry *ir) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  char *prog_src = read_src(root ? root : ".", "workloads/matmul_fp16_gpu.py");
  char *script = read_src(root ? root : ".", "examples/gpu/matmul_wmma.sch");
  const tsl_module *prog = NULL;
  tsl_diag d = {0};
  if (!ok(prog_src && script && tsl_parse(a, "matmul_fp16_gpu.py", prog_src, strlen(prog_src),
                                          &prog, &d) == TSL_OK,
          "the example's workload and script read: %s", d.text)) {
    free(prog_src);
    free(script);
    return;
  }
  tsl_schedule_opts so = {sizeof so, NULL, 0, ir};
  char *prep = before_tensorize(script);
  tsl_schedule *sch = NULL;
  int rc = tsl_schedule_new(ctx, prog, &so, &sch, &d);
  if (!rc)
    rc = tsl_script_run(sch, "matmul_wmma.sch", prep, strlen(prep), &d);
  tsl_equiv_report rep = {0};
  tsl_interp_opts io = {sizeof io, TSL_INTERP_ORDER_ALL, 5};
  if (!rc)
    rc = tsl_interp_check_equivalent_opts(prog->funcs[0], tsl_schedule_func(sch), NULL, 0, 5,
                                          &io, &rep, &d);
  ok(rc == TSL_OK && rep.n_checked == 3 * 128 * 128,
     "matmul_wmma.sch before its tensorize calls computes the workload's values, its "
     "thread-bound loops in all three orders (%lld values): %s",
     (long long)rep.n_checked, rc ? d.text : "ok");
  tsl_schedule_free(sch);
  sch = NULL;
  rc = tsl_schedule_new(ctx, prog, &so, &sch, &d);
  if (!rc)
    rc = tsl_script_run(sch, "matmul_wmma.sch", script, strlen(script), &d);
  if (ok(rc == TSL_OK, "examples/gpu/matmul_wmma.sch applies: %s", rc ? d.text : "ok")) {
    calls c = {.src_scope = "shared", .dst_scope = "global", .layout = {"row_major", "row_major"}};
    check_printed(a, tsl_schedule_module(sch), &c, "matmul_wmma.sch");
    ok(!c.bad && c.fill == 1 && c.load_a == 1 && c.load_b == 1 && c.mma == 1 && c.store == 1,
       "  ... one fill, two loads from shared, one mma_sync, one store to global, each "
       "with its fragment index");
    ok(c.under_ty == 5 && c.under_tx == 0,
       "  ... every WMMA call in a warp (threadIdx.y: %d of 5) and none under threadIdx.x "
       "(%d): the calls are warp-wide",
       c.under_ty, c.under_tx);
    rc = tsl_interp_check_equivalent(prog->funcs[0], tsl_schedule_func(sch), NULL, 0, 5, &rep,
                                     &d);
    ok(rc != TSL_OK && strstr(d.text, "cannot be interpreted") &&
           strstr(d.text, "tensor-core (WMMA)"),
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

  int found = 0, from_plugin = 0;
  for (int i = 0; i < N_WMMA; i++) {
    const tsl_func *desc = NULL, *impl = NULL;
    found += tsl_intrin_registry_get(ir, wmma_names[i], &desc, &impl) && desc && impl;
    for (uint32_t k = 0; k < tsl_registry_count(reg); k++) {
      const tsl_component *c = tsl_registry_get(reg, k);
      if (c->kind == TSL_COMPONENT_INTRIN && !strcmp(c->name, wmma_names[i]) &&
          strstr(tsl_registry_path(reg, k), "/plugins/cuda-wmma/tessel-cuda-wmma.so"))
        from_plugin++;
    }
  }
  is_int(found, N_WMMA, "every WMMA intrinsic is found by its TVM name");
  is_int(from_plugin, N_WMMA, "  ... each registered by the build tree's tessel-cuda-wmma.so");
  int wmma_total = 0;
  for (uint32_t k = 0; k < tsl_intrin_registry_count(ir); k++)
    wmma_total += !strncmp(tsl_intrin_registry_name(ir, k), "wmma_", 5);
  is_int(wmma_total, N_WMMA, "  ... and no other wmma_ intrinsic is registered");

  const tsl_func *desc = NULL, *impl = NULL;
  tsl_intrin_registry_get(ir, "wmma_sync_16x16x16_f16f16f32_trans", &desc, &impl);
  ok(desc && impl && desc->n_params == 3 && impl->n_params == 3 &&
         !strcmp(desc->name, "wmma_sync_16x16x16_f16f16f32_trans_desc") &&
         !strcmp(impl->name, "wmma_sync_16x16x16_f16f16f32_trans_impl") &&
         impl->params[1].buffer && impl->params[1].buffer->strides &&
         is_scope(impl->params[1].buffer, "wmma.matrix_b") &&
         impl->params[1].buffer->offset_factor == 16 && impl->params[1].buffer->align == 64,
     "a sync's description and implementation: three buffers, B a wmma.matrix_b with "
     "symbolic strides in the implementation, align=64, offset_factor=16");

  int used[N_WMMA] = {0};
  for (size_t i = 0; i < N_CASES; i++) {
    const char *n[5] = {cases[i].fill, cases[i].load_a, cases[i].load_b, cases[i].sync,
                        cases[i].store};
    for (int k = 0; k < 5; k++)
      for (int j = 0; j < N_WMMA; j++)
        used[j] |= !strcmp(n[k], wmma_names[j]);
    run_case(ctx, a, ir, &cases[i]);
  }
  int all = 1;
  for (int j = 0; j < N_WMMA; j++)
    all &= used[j];
  ok(all, "the cases tensorize with all %d WMMA intrinsics", N_WMMA);

  run_example(ctx, a, ir);

  tsl_intrin_registry_free(ir);
  tsl_registry_free(reg);
  tsl_arena_free(a);
  tsl_ctx_free(ctx);
  return tap_done();
}
