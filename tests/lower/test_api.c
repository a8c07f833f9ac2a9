/*
 * Lowering API and the IR support of TSL_STMT_ALLOCATE: FLOP counts (float,
 * and integer arithmetic of integer values),
 * module lowering, size variables, argument errors; ALLOCATE through the
 * printer, equality, hashing, visitors, substitution, region inference and
 * the interpreter (NaN / poison fill).
 */
#include "lower_util.h"

static const tsl_module *parse(tsl_arena *a, const char *src) {
  tsl_diag d = {0};
  const tsl_module *m = NULL;
  if (tsl_parse(a, "test", src, strlen(src), &m, &d))
    tap_diag("parse: %s", d.text);
  return m;
}

static const char *MM =
    "@T.prim_func\n"
    "def main(A: T.Buffer((16, 8), \"float32\"), B: T.Buffer((8, 4), \"float32\"),\n"
    "         C: T.Buffer((16, 4), \"float32\")):\n"
    "    for i, j, k in T.grid(16, 4, 8):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                C[vi, vj] = T.float32(0)\n"
    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";

static const char *ELEM =
    "@T.prim_func\n"
    "def main(A: T.Buffer((10,), \"float32\"), B: T.Buffer((10,), \"int32\")):\n"
    "    for i in range(10):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(10, i)\n"
    "            B[vi] = T.Cast(\"int32\", T.exp(A[vi]) + T.float32(1))\n";

static const char *DYN =
    "@T.prim_func\n"
    "def main(a: T.handle, b: T.handle):\n"
    "    n = T.int32()\n"
    "    A = T.match_buffer(a, (n, 3))\n"
    "    B = T.match_buffer(b, (n, 3))\n"
    "    for i, j in T.grid(n, 3):\n"
    "        with T.block(\"B\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            B[vi, vj] = A[vi, vj] * T.float32(2)\n";

/* int8 inputs, int32 accumulation; a load index with arithmetic */
static const char *INT8MM =
    "@T.prim_func\n"
    "def main(A: T.Buffer((16, 8), \"int8\"), B: T.Buffer((8, 4), \"int8\"),\n"
    "         C: T.Buffer((16, 4), \"int32\")):\n"
    "    for i, j, k in T.grid(16, 4, 8):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                C[vi, vj] = 0\n"
    "            C[vi, vj] = C[vi, vj] + T.Cast(\"int32\", A[vi, (vk + 1) % 8]) * "
    "T.Cast(\"int32\", B[vk, vj])\n";

/* a float value behind an integer stride test (conv2d_transpose's) */
static const char *STRIDED =
    "@T.prim_func\n"
    "def main(A: T.Buffer((10,), \"float32\"), B: T.Buffer((10,), \"float32\")):\n"
    "    for i in range(10):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(10, i)\n"
    "            B[vi] = T.if_then_else((vi + 1) % 2 == 0, A[vi] * T.float32(2), T.float32(0))\n";

static void test_flops(tsl_arena *a) {
  const tsl_module *m = parse(a, MM);
  if (!m)
    return;
  /* one multiply and one add per (i, j, k): 2 * 16 * 4 * 8 */
  ok(tsl_func_flops(m->funcs[0]) == 2.0 * 16 * 4 * 8, "matmul flops = 2*M*N*K (%g)",
     tsl_func_flops(m->funcs[0]));
  const tsl_lowered_func *lf = NULL;
  tsl_diag d = {0};
  ok(tsl_lower_func(a, m->funcs[0], NULL, &lf, &d) == TSL_OK && lf->flops == 1024.0,
     "lowered func carries the flops");
  m = parse(a, ELEM);
  /* exp and + are float ops, the cast is not: 2 per element */
  ok(m && tsl_func_flops(m->funcs[0]) == 20.0, "exp + add per element, cast free (%g)",
     m ? tsl_func_flops(m->funcs[0]) : -2);
  m = parse(a, INT8MM);
  /* integer multiply and add of an integer value: 2 * M * N * K, as TVM
   * counts; the casts and the load's index arithmetic are free */
  ok(m && tsl_func_flops(m->funcs[0]) == 2.0 * 16 * 4 * 8, "int8 matmul = 2*M*N*K (%g)",
     m ? tsl_func_flops(m->funcs[0]) : -2);
  m = parse(a, STRIDED);
  /* the multiply (a select is no arithmetic); the stride test's + and %
   * are addressing: TVM would count 3 per element */
  ok(m && tsl_func_flops(m->funcs[0]) == 10.0,
     "a float value's integer condition is free (%g)", m ? tsl_func_flops(m->funcs[0]) : -2);
  m = parse(a, DYN);
  ok(m && tsl_func_flops(m->funcs[0]) == -1.0, "symbolic extent: flops unknown");
  ok(tsl_func_flops(NULL) == -1.0, "NULL func: -1");
}

static void test_lower_api(tsl_arena *a) {
  tsl_diag d = {0};
  const tsl_lowered_func *lf = NULL;
  ok(tsl_lower_func(a, NULL, NULL, &lf, &d) == TSL_EINVALID && lf == NULL,
     "NULL function refused");
  const tsl_module *m = parse(a, DYN);
  if (!m)
    return;
  int rc = tsl_lower_func(a, m->funcs[0], NULL, &lf, &d);
  ok(rc == TSL_OK, "symbolic program lowers");
  if (rc)
    return;
  ok(lf->n_size_vars == 1 && !strcmp(lf->size_vars[0]->name, "n"), "size var n collected");
  ok(lf->n_params == 2 && lf->params[0].buffer && lf->params[0].buffer->ndim == 1,
     "parameters are flat");
  ok(lf->source == m->funcs[0], "source recorded");
  tsl_binding bind = {"n", 5};
  char why[600];
  double err;
  ok(!lu_run_compare(m->funcs[0], lf, &bind, 1, 1, why, sizeof why, &err),
     "symbolic program runs lowered with n bound from the tensors");
  tsl_arg args[2];
  memset(args, 0, sizeof args);
  ok(tsl_interp_run_lowered(lf, args, 1, &d) == TSL_EINVALID, "wrong argument count refused");
  ok(strstr(d.text, "2 arguments") != NULL, "message names the expected count");

  const tsl_lowered_module *lm = NULL;
  m = parse(a, "@I.ir_module\nclass Mod:\n"
               "    @T.prim_func\n"
               "    def f(A: T.Buffer((4,), \"float32\")):\n"
               "        for i in range(4):\n"
               "            with T.block(\"A\"):\n"
               "                vi = T.axis.spatial(4, i)\n"
               "                A[vi] = T.float32(1)\n"
               "    @T.prim_func\n"
               "    def g(A: T.Buffer((2, 2), \"float32\")):\n"
               "        for i, j in T.grid(2, 2):\n"
               "            with T.block(\"A\"):\n"
               "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
               "                A[vi, vj] = T.float32(2)\n");
  if (m) {
    rc = tsl_lower_module(a, m, NULL, &lm, &d);
    ok(rc == TSL_OK && lm->n_funcs == 2 && lm->funcs[1]->params[0].buffer->ndim == 1,
       "module lowering lowers every function");
  }
}

/* A function whose body allocates `tmp` and reads it before writing. */
static const tsl_func *poison_func(tsl_arena *a, tsl_dtype dt, const char *scope) {
  const tsl_expr *four = tsl_expr_i32(a, 4);
  const tsl_buffer *out = tsl_buffer_new(a, "out", dt, 1, &four, NULL, NULL, NULL, 0, 0);
  const tsl_buffer *tmp = tsl_buffer_new(a, "tmp", dt, 1, &four, NULL, NULL, scope, 0, 0);
  const tsl_var *i = tsl_var_new(a, "i", TSL_INT32);
  const tsl_expr *iv = tsl_expr_var(i);
  const tsl_expr *ld = tsl_expr_load(a, tmp, 1, &iv);
  const tsl_stmt *st = tsl_stmt_store(a, out, ld, 1, &iv);
  const tsl_stmt *loop = tsl_stmt_for(a, i, tsl_expr_i32(a, 0), four, TSL_FOR_SERIAL, NULL,
                                      (tsl_attrs){0, NULL}, st);
  const tsl_stmt *al = tsl_stmt_allocate(a, tmp, loop);
  tsl_param *p = TSL_NEW(a, tsl_param);
  p->var = tsl_var_new(a, "out_h", TSL_HANDLE);
  p->buffer = out;
  tsl_func *f = TSL_NEW(a, tsl_func);
  f->name = tsl_intern(tsl_arena_ctx(a), "poison");
  f->n_params = 1;
  f->params = p;
  f->body = al;
  return f;
}

static void test_allocate_ir(tsl_arena *a) {
  const tsl_func *f = poison_func(a, TSL_FLOAT32, "local");
  const tsl_func *g = poison_func(a, TSL_FLOAT32, "local");
  const tsl_func *h = poison_func(a, TSL_INT32, "local");
  char *text = tsl_print_stmt(f->body, 0);
  ok(text && strstr(text, "tmp = T.decl_buffer((4,), \"float32\", scope=\"local\")"),
     "printer writes T.decl_buffer with dtype and scope");
  ok(text && strstr(text, "out[i] = tmp[i]"), "printer writes the allocation's body");
  free(text);
  text = tsl_print_func(f);
  ok(text && strstr(text, "T.decl_buffer"), "function printer handles ALLOCATE");
  free(text);
  char why[256] = "";
  ok(tsl_func_equal(f, g, why, sizeof why), "equal allocations compare equal");
  ok(tsl_func_hash(f) == tsl_func_hash(g), "equal allocations hash equal");
  const tsl_func *k = poison_func(a, TSL_FLOAT32, "global");
  ok(!tsl_func_equal(f, k, why, sizeof why), "allocations in different scopes differ");
  ok(strstr(why, "allocate[tmp]") != NULL, "difference path names the allocation (%s)", why);
  ok(tsl_func_hash(f) != tsl_func_hash(k), "allocations in different scopes hash apart");

  /* the interpreter fills an ALLOCATE with NaN (floats) / 0xA5 bytes (ints) */
  tsl_arg arg;
  tsl_diag d = {0};
  memset(&arg, 0, sizeof arg);
  if (tsl_func_make_args(f, NULL, 0, 1, &arg, &d) == TSL_OK) {
    ok(tsl_interp_run(f, &arg, 1, &d) == TSL_OK, "interpreter runs an ALLOCATE");
    ok(isnan(tsl_tensor_get(&arg.tensor, 2)), "float allocation reads as NaN before a write");
    tsl_args_free(&arg, 1);
  } else {
    ok(0, "args for the float poison function: %s", d.text);
  }
  memset(&arg, 0, sizeof arg);
  if (tsl_func_make_args(h, NULL, 0, 1, &arg, &d) == TSL_OK) {
    ok(tsl_interp_run(h, &arg, 1, &d) == TSL_OK, "interpreter runs an int ALLOCATE");
    ok(tsl_tensor_get(&arg.tensor, 1) == (double)(int32_t)0xA5A5A5A5u,
       "int allocation reads as the poison pattern before a write");
    tsl_args_free(&arg, 1);
  }
}

static int count_stores(const tsl_stmt *s, void *ud) {
  if (s->kind == TSL_STMT_STORE)
    ++*(int *)ud;
  return 0;
}

static const tsl_expr *to_zero(const tsl_var *v, void *ud) {
  (void)v;
  return ud;
}

static void test_allocate_visit(tsl_arena *a) {
  const tsl_func *f = poison_func(a, TSL_FLOAT32, "local");
  int n = 0;
  tsl_stmt_visitor v = {count_stores, NULL, NULL, NULL, &n};
  tsl_stmt_visit(f->body, &v);
  ok(n == 1, "visitor walks into an ALLOCATE's body");
  const tsl_stmt *store = f->body->u.alloc.body->u.loop.body;
  const tsl_stmt *wrapped = tsl_stmt_allocate(a, f->body->u.alloc.buffer, store);
  const tsl_stmt *s = tsl_stmt_substitute(a, wrapped, to_zero, (void *)tsl_expr_i32(a, 0));
  ok(s != wrapped && s->kind == TSL_STMT_ALLOCATE &&
         s->u.alloc.body->u.store.indices[0]->kind == TSL_EXPR_INT_IMM,
     "substitution rebuilds the ALLOCATE's body");

  /* region inference leaves the allocated buffer out */
  tsl_block blk;
  memset(&blk, 0, sizeof blk);
  blk.name = tsl_intern(tsl_arena_ctx(a), "b");
  blk.body = wrapped;
  tsl_buffer_region *r = NULL, *w = NULL;
  uint32_t nr = 0, nw = 0;
  tsl_diag d = {0};
  int rc = tsl_block_infer_regions(a, &blk, &r, &nr, &w, &nw, &d);
  ok(rc == TSL_OK && nr == 0 && nw == 1 && w[0].buffer == store->u.store.buffer,
     "region inference skips a buffer allocated inside (reads %u, writes %u)", nr, nw);
}

int main(void) {
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *a = tsl_arena_new(ctx);
  test_flops(a);
  test_lower_api(a);
  test_allocate_ir(a);
  test_allocate_visit(a);
  tsl_arena_free(a);
  tsl_ctx_free(ctx);
  return tap_done();
}
