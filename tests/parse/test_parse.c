/*
 * Parser unit tests: representative TVMScript programs of every construct
 * (old and new spellings), with assertions on the IR they produce.
 */
#include "parse_util.h"

#include <float.h>
#include <math.h>

static const char *MATMUL_NEW =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tir as T\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def main(A: T.Buffer((128, 128), \"float32\"), B: T.Buffer((128, 128), \"float32\"), "
    "C: T.Buffer((128, 128), \"float32\")):\n"
    "        T.func_attr({\"global_symbol\": \"main\", \"tir.noalias\": T.bool(True)})\n"
    "        # with T.block(\"root\"):\n"
    "        for i, j, k in T.grid(128, 128, 128):\n"
    "            with T.block(\"C\"):\n"
    "                v_i, v_j, v_k = T.axis.remap(\"SSR\", [i, j, k])\n"
    "                T.reads(A[v_i, v_k], B[v_j, v_k])\n"
    "                T.writes(C[v_i, v_j])\n"
    "                with T.init():\n"
    "                    C[v_i, v_j] = T.float32(0)\n"
    "                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_j, v_k]\n";

static const char *MATMUL_OLD =
    "from tvm.script import tir as T\n"
    "\n"
    "@T.prim_func\n"
    "def matmul(a: T.handle, b: T.handle, c: T.handle) -> None:\n"
    "    A = T.match_buffer(a, [128, 128])\n"
    "    B = T.match_buffer(b, [128, 128])\n"
    "    C = T.match_buffer(c, [128, 128])\n"
    "    for i, j, k in T.grid(128, 128, 128):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                C[vi, vj] = 0.0\n"
    "            C[vi, vj] += A[vi, vk] * B[vj, vk]\n";

static void test_matmul_new(void) {
  const tsl_module *m = parse("mm.py", MATMUL_NEW);
  ok(m != NULL, "matmul (new spelling) parses");
  if (!m)
    return;
  is_str(m->name, "Module", "module name is the class name");
  is_int(m->is_bare_func, 0, "module is not a bare function");
  is_int(m->n_funcs, 1, "one function");
  const tsl_func *f = tsl_module_find(m, "main");
  ok(f != NULL, "function main found");
  is_int(f->n_params, 3, "three parameters");
  ok(f->params[0].buffer && f->params[0].buffer->ndim == 2 &&
         is_const_int(f->params[0].buffer->shape[0], 128) &&
         dt_is(f->params[0].buffer->dtype, "float32"),
     "A is a 128x128 float32 buffer");
  ok(dt_is(f->params[0].var->dtype, "handle"), "buffer parameter var is a handle");
  ok(strcmp(f->params[2].buffer->name, "C") == 0, "third buffer is C");
  is_int(f->attrs.n, 2, "two function attributes");
  const tsl_attr_value *gs = tsl_attrs_get(f->attrs, "global_symbol");
  ok(gs && gs->kind == TSL_ATTR_STR && strcmp(gs->u.s, "main") == 0, "global_symbol is \"main\"");
  const tsl_attr_value *na = tsl_attrs_get(f->attrs, "tir.noalias");
  ok(na && na->kind == TSL_ATTR_BOOL && na->u.i == 1, "T.bool(True) attribute is a bool");
  const tsl_block *root = root_of(f);
  ok(root && strcmp(root->name, "root") == 0, "body is the root block realize");
  is_int(root->n_iter_vars, 0, "root has no iteration variables");
  is_int(root->n_reads + root->n_writes, 0, "implicit root has no regions");
  const tsl_stmt *li = root->body;
  ok(li->kind == TSL_STMT_FOR && li->u.loop.for_kind == TSL_FOR_SERIAL &&
         is_const_int(li->u.loop.extent, 128) && is_const_int(li->u.loop.min, 0),
     "T.grid gives serial loop i over [0, 128)");
  const tsl_stmt *lk = li->u.loop.body->u.loop.body;
  ok(lk->kind == TSL_STMT_FOR && strcmp(lk->u.loop.loop_var->name, "k") == 0,
     "T.grid nests three loops");
  ok(dt_is(lk->u.loop.loop_var->dtype, "int32"), "loop var dtype int32");
  const tsl_stmt *r = lk->u.loop.body;
  ok(r->kind == TSL_STMT_BLOCK_REALIZE, "block realize inside the loops");
  const tsl_block *b = r->u.realize.block;
  is_str(b->name, "C", "block name C");
  is_int(b->n_iter_vars, 3, "three block vars");
  ok(b->iter_vars[0].iter_type == TSL_ITER_SPATIAL && b->iter_vars[1].iter_type == TSL_ITER_SPATIAL &&
         b->iter_vars[2].iter_type == TSL_ITER_REDUCE,
     "remap \"SSR\" gives spatial, spatial, reduce");
  ok(is_const_int(b->iter_vars[2].dom.extent, 128) && is_const_int(b->iter_vars[2].dom.min, 0),
     "remap domain is the loop range");
  ok(is_var(r->u.realize.iter_values[2], "k"), "remap binds v_k to k");
  ok(r->u.realize.predicate->kind == TSL_EXPR_INT_IMM && r->u.realize.predicate->u.int_value == 1,
     "predicate defaults to true");
  is_int(b->n_reads, 2, "two read regions");
  is_str(b->reads[0].buffer->name, "A", "first read is A");
  ok(is_var(b->reads[0].ranges[1].min, "v_k") && is_const_int(b->reads[0].ranges[1].extent, 1),
     "point region A[.., v_k] has extent 1");
  is_int(b->n_writes, 1, "one write region");
  ok(b->init && b->init->kind == TSL_STMT_STORE &&
         b->init->u.store.value->kind == TSL_EXPR_FLOAT_IMM &&
         dt_is(b->init->u.store.value->dtype, "float32"),
     "init stores a float32 constant");
  const tsl_stmt *st = b->body;
  ok(st->kind == TSL_STMT_STORE && st->u.store.value->kind == TSL_EXPR_ADD &&
         st->u.store.value->args[1]->kind == TSL_EXPR_MUL,
     "update is C + A * B");
}

static void test_matmul_old(void) {
  const tsl_module *m = parse("mm_old.py", MATMUL_OLD);
  ok(m != NULL, "matmul (old spelling) parses");
  if (!m)
    return;
  is_int(m->is_bare_func, 1, "a lone prim_func is a bare module");
  ok(m->name == NULL, "bare module has no name");
  const tsl_func *f = m->funcs[0];
  is_str(f->name, "matmul", "function name");
  ok(f->params[0].buffer && strcmp(f->params[0].var->name, "a") == 0 &&
         strcmp(f->params[0].buffer->name, "A") == 0,
     "handle a is matched to buffer A");
  ok(dt_is(f->params[0].buffer->dtype, "float32"), "match_buffer dtype defaults to float32");
  const tsl_block *b = find_block(f, "C");
  ok(b != NULL, "block C found");
  if (!b)
    return;
  is_int(b->n_reads, 2, "inferred reads: two buffers (C excluded: the block has an init)");
  ok(b->n_reads == 2 && strcmp(b->reads[0].buffer->name, "A") == 0 &&
         strcmp(b->reads[1].buffer->name, "B") == 0,
     "inferred reads are A, B in access order");
  ok(b->n_reads == 2 && is_var(b->reads[0].ranges[0].min, "vi") &&
         is_const_int(b->reads[0].ranges[0].extent, 1) &&
         dt_is(b->reads[0].ranges[0].extent->dtype, "int32"),
     "inferred point region A[vi, vk] has int32 extent 1");
  is_int(b->n_writes, 1, "inferred writes: C");
  ok(b->n_writes == 1 && strcmp(b->writes[0].buffer->name, "C") == 0 &&
         is_var(b->writes[0].ranges[1].min, "vj"),
     "write region C[vi, vj]");
  ok(b->init && b->init->u.store.value->kind == TSL_EXPR_FLOAT_IMM, "0.0 literal in init");
  const tsl_stmt *st = b->body;
  ok(st->kind == TSL_STMT_STORE && st->u.store.value->kind == TSL_EXPR_ADD &&
         st->u.store.value->args[0]->kind == TSL_EXPR_LOAD &&
         strcmp(st->u.store.value->args[0]->u.buffer->name, "C") == 0,
     "C[vi, vj] += x becomes C[vi, vj] = C[vi, vj] + x");
}

static void test_params(void) {
  const char *src =
      "@T.prim_func(private=True)\n"
      "def f(A: T.Buffer[(16, 16), \"float16\"], B: T.Buffer[128, \"int8\"],\n"
      "      C: T.Buffer((1024,), \"float32\"), D: T.Buffer((4, 4)), n: T.int32,\n"
      "      E: T.Buffer((8, 8), dtype=\"float64\", scope=\"global\", strides=(16, 1),\n"
      "                  elem_offset=4, align=64, offset_factor=2),\n"
      "      F: T.Buffer(shape=(2,), dtype=\"bfloat16\"), G: T.Buffer[(3, 3)], x: T.handle):\n"
      "    T.evaluate(0)\n";
  const tsl_module *m = parse("params.py", src);
  ok(m != NULL, "parameter spellings parse");
  if (!m)
    return;
  const tsl_func *f = m->funcs[0];
  is_int(f->n_params, 9, "nine parameters");
  ok(f->params[0].buffer->ndim == 2 && dt_is(f->params[0].buffer->dtype, "float16"),
     "T.Buffer[(16, 16), \"float16\"]");
  ok(f->params[1].buffer->ndim == 1 && is_const_int(f->params[1].buffer->shape[0], 128) &&
         dt_is(f->params[1].buffer->dtype, "int8"),
     "T.Buffer[128, \"int8\"]");
  ok(f->params[2].buffer->ndim == 1 && is_const_int(f->params[2].buffer->shape[0], 1024),
     "T.Buffer((1024,), \"float32\")");
  ok(dt_is(f->params[3].buffer->dtype, "float32"), "T.Buffer((4, 4)) defaults to float32");
  ok(f->params[4].buffer == NULL && dt_is(f->params[4].var->dtype, "int32") &&
         strcmp(f->params[4].var->name, "n") == 0,
     "scalar parameter n: T.int32");
  const tsl_buffer *e = f->params[5].buffer;
  ok(e && dt_is(e->dtype, "float64") && e->strides && is_const_int(e->strides[0], 16) &&
         is_const_int(e->elem_offset, 4) && e->align == 64 && e->offset_factor == 2 &&
         strcmp(e->scope, "global") == 0,
     "buffer keyword arguments");
  ok(dt_is(f->params[6].buffer->dtype, "bfloat16"), "shape= / dtype= keywords");
  ok(f->params[7].buffer->ndim == 2 && dt_is(f->params[7].buffer->dtype, "float32"),
     "T.Buffer[(3, 3)] defaults to float32");
  ok(f->params[8].buffer == NULL && dt_is(f->params[8].var->dtype, "handle"),
     "unmatched handle parameter");
  const tsl_block *root = root_of(f);
  ok(root && root->body->kind == TSL_STMT_EVALUATE, "body T.evaluate(0) in implicit root");
}

static void test_symbolic(void) {
  const char *src =
      "@T.prim_func\n"
      "def f(x: T.handle, y: T.handle):\n"
      "    m = T.int64()\n"
      "    n, k = T.int64(), T.int32()\n"
      "    X = T.match_buffer(x, (1, m), \"float32\")\n"
      "    Y = T.match_buffer(y, shape=(n, k), dtype=\"float32\")\n"
      "    for i in range(m):\n"
      "        with T.block(\"X\"):\n"
      "            vi = T.axis.spatial(m, i)\n"
      "            X[0, vi] = X[0, vi] + T.float32(1)\n"
      "    for a, b in T.grid(n, k):\n"
      "        Y[a, b] = T.float32(0)\n";
  const tsl_module *m = parse("sym.py", src);
  ok(m != NULL, "symbolic shapes parse");
  if (!m)
    return;
  const tsl_func *f = m->funcs[0];
  const tsl_buffer *X = f->params[0].buffer, *Y = f->params[1].buffer;
  ok(X && X->ndim == 2 && X->shape[1]->kind == TSL_EXPR_VAR &&
         strcmp(X->shape[1]->u.var->name, "m") == 0 && dt_is(X->shape[1]->dtype, "int64"),
     "X shape (1, m) with m: int64");
  ok(Y && is_var(Y->shape[0], "n") && dt_is(Y->shape[0]->dtype, "int64") &&
         dt_is(Y->shape[1]->dtype, "int32"),
     "m, n = T.int64(), T.int32() declares two variables");
  const tsl_stmt *li = find_loop(f, "i");
  ok(li && dt_is(li->u.loop.loop_var->dtype, "int64") && is_var(li->u.loop.extent, "m") &&
         dt_is(li->u.loop.min->dtype, "int64"),
     "range(m) with int64 m gives an int64 loop var and min");
  const tsl_block *b = find_block(f, "X");
  ok(b && dt_is(b->iter_vars[0].var->dtype, "int64"), "iter var dtype follows its binding");
  ok(b && X->shape[1]->u.var == b->iter_vars[0].dom.extent->u.var,
     "the same size var object is used everywhere");
  const tsl_stmt *la = find_loop(f, "a");
  ok(la && dt_is(la->u.loop.loop_var->dtype, "int64") &&
         dt_is(la->u.loop.body->u.loop.loop_var->dtype, "int32"),
     "T.grid(n, k) loop dtypes follow each extent");
}

static void test_roots(void) {
  const char *implicit =
      "@T.prim_func\n"
      "def f(A: T.Buffer((64,), \"float32\")):\n"
      "    A_shared = T.alloc_buffer((64,), \"float32\", scope=\"shared\")\n"
      "    B_local = T.alloc_buffer([64], dtype=\"float16\", scope=\"local\")\n"
      "    for i in range(64):\n"
      "        with T.block(\"S\"):\n"
      "            vi = T.axis.spatial(64, i)\n"
      "            A_shared[vi] = A[vi]\n";
  const tsl_module *m = parse("implicit.py", implicit);
  ok(m != NULL, "function-level alloc_buffer parses");
  if (m) {
    const tsl_block *root = root_of(m->funcs[0]);
    is_int(root->n_alloc_buffers, 2, "function-level allocations go to the implicit root");
    ok(root->n_alloc_buffers == 2 && strcmp(root->alloc_buffers[0]->scope, "shared") == 0 &&
           dt_is(root->alloc_buffers[1]->dtype, "float16") &&
           strcmp(root->alloc_buffers[1]->scope, "local") == 0,
       "alloc scopes and dtypes");
    ok(root->body->kind == TSL_STMT_FOR, "root body is the loop");
    const tsl_block *s = find_block(m->funcs[0], "S");
    ok(s && s->n_reads == 1 && s->n_writes == 1 &&
           strcmp(s->writes[0].buffer->name, "A_shared") == 0,
       "root allocations are visible to inner blocks (inferred regions)");
  }
  const char *explicit_root =
      "@T.prim_func\n"
      "def f(A: T.Buffer((64,), \"float32\")):\n"
      "    T.func_attr({\"global_symbol\": \"f\"})\n"
      "    with T.block(\"root\"):\n"
      "        T.reads()\n"
      "        T.writes()\n"
      "        T.block_attr({\"meta_schedule.parallel\": 64})\n"
      "        A_local = T.alloc_buffer((64,), scope=\"local\")\n"
      "        for i in range(64):\n"
      "            A_local[i] = A[i]\n";
  m = parse("explicit.py", explicit_root);
  ok(m != NULL, "explicit root block parses");
  if (m) {
    const tsl_block *root = root_of(m->funcs[0]);
    ok(root && strcmp(root->name, "root") == 0 && root->n_alloc_buffers == 1,
       "explicit root keeps its allocation");
    ok(root && root->body->kind == TSL_STMT_FOR, "explicit root is not wrapped again");
    ok(root && root->annotations.n == 1 &&
           tsl_attrs_get(root->annotations, "meta_schedule.parallel")->u.i == 64,
       "root T.block_attr");
    is_int(m->funcs[0]->attrs.n, 1, "T.func_attr before an explicit root");
  }
  const char *no_block =
      "@T.prim_func\n"
      "def f(A: T.Buffer((4,), \"float32\")):\n"
      "    for i in range(4):\n"
      "        A[i] = T.float32(1)\n";
  m = parse("noblock.py", no_block);
  ok(m && root_of(m->funcs[0]) && strcmp(root_of(m->funcs[0])->name, "root") == 0,
     "a body without blocks still gets a root block");
}

static void test_loops(void) {
  const char *src =
      "@T.prim_func\n"
      "def f(A: T.Buffer((64, 64), \"float32\")):\n"
      "    for a in range(4, 20):\n"
      "        for b in T.serial(8):\n"
      "            for c in T.serial(2, 10, annotations={\"pragma_auto_unroll_max_step\": 16, "
      "\"pragma_unroll_explicit\": 1}):\n"
      "                A[a, b + c] = T.float32(0)\n"
      "    for p in T.parallel(64):\n"
      "        for v in T.vectorized(0, 64):\n"
      "            A[p, v] = T.float32(1)\n"
      "    for u in T.unroll(4):\n"
      "        A[u, 0] = T.float32(2)\n"
      "    for bx in T.thread_binding(8, thread=\"blockIdx.x\"):\n"
      "        for tx in T.thread_binding(0, 8, thread=\"threadIdx.x\"):\n"
      "            for ty in T.thread_binding(8, \"threadIdx.y\"):\n"
      "                A[bx * 8 + tx, ty] = T.float32(3)\n"
      "    for w in T.serial(T.int64(16)):\n"
      "        A[w, 0] = T.float32(4)\n";
  const tsl_module *m = parse("loops.py", src);
  ok(m != NULL, "loop kinds parse");
  if (!m)
    return;
  const tsl_func *f = m->funcs[0];
  const tsl_stmt *l = find_loop(f, "a");
  ok(l && is_const_int(l->u.loop.min, 4) && is_const_int(l->u.loop.extent, 16),
     "range(4, 20): min 4, extent 16");
  l = find_loop(f, "c");
  ok(l && is_const_int(l->u.loop.min, 2) && is_const_int(l->u.loop.extent, 8) &&
         l->u.loop.annotations.n == 2 &&
         tsl_attrs_get(l->u.loop.annotations, "pragma_auto_unroll_max_step")->u.i == 16,
     "T.serial(2, 10, annotations=...)");
  l = find_loop(f, "p");
  ok(l && l->u.loop.for_kind == TSL_FOR_PARALLEL, "T.parallel");
  l = find_loop(f, "v");
  ok(l && l->u.loop.for_kind == TSL_FOR_VECTORIZED && is_const_int(l->u.loop.extent, 64),
     "T.vectorized(0, 64)");
  l = find_loop(f, "u");
  ok(l && l->u.loop.for_kind == TSL_FOR_UNROLLED, "T.unroll");
  l = find_loop(f, "bx");
  ok(l && l->u.loop.for_kind == TSL_FOR_THREAD_BINDING &&
         strcmp(l->u.loop.thread_tag, "blockIdx.x") == 0,
     "T.thread_binding(n, thread=...)");
  l = find_loop(f, "tx");
  ok(l && strcmp(l->u.loop.thread_tag, "threadIdx.x") == 0 && is_const_int(l->u.loop.extent, 8),
     "T.thread_binding(0, 8, thread=...)");
  l = find_loop(f, "ty");
  ok(l && strcmp(l->u.loop.thread_tag, "threadIdx.y") == 0, "T.thread_binding(n, \"tag\")");
  l = find_loop(f, "w");
  ok(l && dt_is(l->u.loop.loop_var->dtype, "int64") && dt_is(l->u.loop.min->dtype, "int64"),
     "T.serial(T.int64(16)) loop var is int64");
  l = find_loop(f, "b");
  ok(l && l->u.loop.thread_tag == NULL && l->u.loop.annotations.n == 0,
     "plain serial loop has no tag and no annotations");
}

static void test_axes(void) {
  const char *src =
      "@T.prim_func\n"
      "def f(A: T.Buffer((64, 64), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
      "    for i0, i1, k in T.grid(4, 16, 64):\n"
      "        with T.block(\"B\"):\n"
      "            vi = T.axis.spatial(64, i0 * 16 + i1)\n"
      "            vk = T.axis.reduce(64, k)\n"
      "            vs = T.axis.S((2, 6), i0 + 2)\n"
      "            vr = T.axis.R(4, i0)\n"
      "            vc = T.axis.scan(4, i0)\n"
      "            vo = T.axis.opaque(4, i0)\n"
      "            vl = T.axis.spatial(T.int64(64), T.int64(0))\n"
      "            T.where(i0 * 16 + i1 < 60)\n"
      "            T.block_attr({\"schedule_rule\": \"None\", \"k\": [1, 2], \"d\": {\"x\": 1.5}})\n"
      "            with T.init():\n"
      "                B[vi] = T.float32(0)\n"
      "            B[vi] = B[vi] + A[vi, vk]\n";
  const tsl_module *m = parse("axes.py", src);
  ok(m != NULL, "T.axis forms parse");
  if (!m)
    return;
  const tsl_stmt *r = find_realize(m->funcs[0], "B");
  const tsl_block *b = r->u.realize.block;
  is_int(b->n_iter_vars, 7, "seven block variables");
  ok(b->iter_vars[0].iter_type == TSL_ITER_SPATIAL && b->iter_vars[1].iter_type == TSL_ITER_REDUCE &&
         b->iter_vars[2].iter_type == TSL_ITER_SPATIAL &&
         b->iter_vars[3].iter_type == TSL_ITER_REDUCE && b->iter_vars[4].iter_type == TSL_ITER_SCAN &&
         b->iter_vars[5].iter_type == TSL_ITER_OPAQUE,
     "spatial, reduce, S, R, scan, opaque");
  ok(r->u.realize.iter_values[0]->kind == TSL_EXPR_ADD, "binding i0 * 16 + i1");
  ok(is_const_int(b->iter_vars[2].dom.min, 2) && is_const_int(b->iter_vars[2].dom.extent, 4),
     "domain (2, 6) is [2, 6)");
  ok(dt_is(b->iter_vars[6].var->dtype, "int64") && dt_is(b->iter_vars[6].dom.extent->dtype, "int64"),
     "int64 binding gives an int64 block var");
  ok(r->u.realize.predicate->kind == TSL_EXPR_LT, "T.where predicate");
  ok(b->annotations.n == 3 && tsl_attrs_get(b->annotations, "k")->kind == TSL_ATTR_LIST &&
         tsl_attrs_get(b->annotations, "d")->kind == TSL_ATTR_DICT &&
         tsl_attrs_get(b->annotations, "schedule_rule")->kind == TSL_ATTR_STR,
     "T.block_attr with list, dict and string values");
  ok(strcmp(b->annotations.items[0].key, "d") == 0, "annotation keys are sorted");
  ok(b->n_reads == 1 && strcmp(b->reads[0].buffer->name, "A") == 0,
     "inferred reads without the init-written B");
}

static void test_regions(void) {
  const char *src =
      "@T.prim_func\n"
      "def f(A: T.Buffer((64, 64), \"float32\"), B: T.Buffer((64, 64), \"float32\")):\n"
      "    for i in range(16):\n"
      "        with T.block(\"R\"):\n"
      "            vi = T.axis.spatial(16, i)\n"
      "            T.reads([A[vi:vi + 3, 0:16], B[vi * 4:vi * 4 + 4, :]])\n"
      "            T.writes(B)\n"
      "            T.evaluate(0)\n"
      "        with T.block(\"E\"):\n"
      "            vi = T.axis.spatial(16, i)\n"
      "            T.reads()\n"
      "            T.writes([])\n"
      "            T.evaluate(0)\n";
  const tsl_module *m = parse("regions.py", src);
  ok(m != NULL, "region forms parse");
  if (!m)
    return;
  const tsl_block *b = find_block(m->funcs[0], "R");
  ok(b && b->n_reads == 2, "list form T.reads([...])");
  if (b && b->n_reads == 2) {
    ok(is_var(b->reads[0].ranges[0].min, "vi") && is_const_int(b->reads[0].ranges[0].extent, 3),
       "A[vi:vi + 3] has extent 3");
    ok(is_const_int(b->reads[0].ranges[1].min, 0) && is_const_int(b->reads[0].ranges[1].extent, 16),
       "A[.., 0:16] has extent 16");
    ok(is_const_int(b->reads[1].ranges[0].extent, 4), "B[vi * 4:vi * 4 + 4] has extent 4");
    ok(is_const_int(b->reads[1].ranges[1].min, 0) && is_const_int(b->reads[1].ranges[1].extent, 64),
       "B[.., :] covers the dimension");
  }
  ok(b && b->n_writes == 1 && is_const_int(b->writes[0].ranges[0].extent, 64) &&
         is_const_int(b->writes[0].ranges[1].extent, 64),
     "T.writes(B) is the whole buffer");
  const tsl_block *e = find_block(m->funcs[0], "E");
  ok(e && e->n_reads == 0 && e->n_writes == 0, "empty T.reads() and T.writes([])");
}

static void test_inference(void) {
  const char *src =
      "@T.prim_func\n"
      "def f(A: T.Buffer((128, 128), \"float32\"), B: T.Buffer((128,), \"float32\"),\n"
      "      C: T.Buffer((128,), \"float32\")):\n"
      "    with T.block(\"outer\"):\n"
      "        T.reads(A[0:128, 0:128])\n"
      "        tmp = T.alloc_buffer((128,), \"float32\")\n"
      "        for i, j in T.grid(128, 128):\n"
      "            with T.block(\"inner\"):\n"
      "                vi, vj = T.axis.remap(\"SR\", [i, j])\n"
      "                with T.init():\n"
      "                    tmp[vi] = T.float32(0)\n"
      "                tmp[vi] = tmp[vi] + A[vi, vj]\n"
      "        for i in range(128):\n"
      "            with T.block(\"copy\"):\n"
      "                vi = T.axis.spatial(128, i)\n"
      "                B[vi] = tmp[vi] + C[vi] * C[vi]\n"
      "    for i in range(64):\n"
      "        with T.block(\"two\"):\n"
      "            vi = T.axis.spatial(64, i)\n"
      "            T.writes(B[vi * 2:vi * 2 + 2])\n"
      "            B[vi * 2] = C[vi * 2] + C[vi * 2 + 1]\n"
      "            B[vi * 2 + 1] = T.float32(0)\n";
  const tsl_module *m = parse("infer.py", src);
  ok(m != NULL, "inference program parses");
  if (!m)
    return;
  const tsl_block *outer = find_block(m->funcs[0], "outer");
  ok(outer && outer->n_reads == 1 && is_const_int(outer->reads[0].ranges[0].extent, 128),
     "declared reads are kept");
  ok(outer && outer->n_writes == 1 && strcmp(outer->writes[0].buffer->name, "B") == 0,
     "only the omitted T.writes is inferred; the block's own allocation is skipped");
  if (outer && outer->n_writes == 1)
    ok(is_const_int(outer->writes[0].ranges[0].min, 0) &&
           is_const_int(outer->writes[0].ranges[0].extent, 128),
       "child region relaxed over the loop inside the block covers [0, 128)");
  const tsl_block *copy = find_block(m->funcs[0], "copy");
  ok(copy && copy->n_reads == 2 && strcmp(copy->reads[0].buffer->name, "tmp") == 0 &&
         strcmp(copy->reads[1].buffer->name, "C") == 0,
     "reads in first-access order, one region per buffer");
  const tsl_block *two = find_block(m->funcs[0], "two");
  ok(two && two->n_reads == 1 && strcmp(two->reads[0].buffer->name, "C") == 0 &&
         is_const_int(two->reads[0].ranges[0].extent, 2) &&
         two->reads[0].ranges[0].min->kind == TSL_EXPR_MUL,
     "C[vi * 2] and C[vi * 2 + 1] merge into C[vi * 2:vi * 2 + 2]");
  ok(two && two->n_writes == 1 && is_const_int(two->writes[0].ranges[0].extent, 2),
     "declared writes kept when only reads are inferred");

  /* tsl_block_infer_regions on a hand-built block */
  tsl_arena *a = T_.arena;
  const tsl_expr *shape[1] = {tsl_expr_i32(a, 16)};
  const tsl_buffer *X = tsl_buffer_new(a, "X", TSL_FLOAT32, 1, shape, NULL, NULL, NULL, 0, 0);
  const tsl_buffer *Y = tsl_buffer_new(a, "Y", TSL_FLOAT32, 1, shape, NULL, NULL, NULL, 0, 0);
  const tsl_var *v = tsl_var_new(a, "v", TSL_INT32);
  const tsl_expr *idx[1] = {v->ref};
  const tsl_stmt *st = tsl_stmt_store(a, Y, tsl_expr_load(a, X, 1, idx), 1, idx);
  tsl_iter_var iv = {v, {tsl_expr_i32(a, 0), tsl_expr_i32(a, 16)}, TSL_ITER_SPATIAL};
  tsl_block blk;
  memset(&blk, 0, sizeof blk);
  blk.name = tsl_intern(T_.ctx, "b");
  blk.n_iter_vars = 1;
  blk.iter_vars = &iv;
  blk.body = st;
  tsl_buffer_region *rd, *wr;
  uint32_t nr, nw;
  tsl_diag d = {0};
  int rc = tsl_block_infer_regions(a, &blk, &rd, &nr, &wr, &nw, &d);
  ok(rc == TSL_OK && nr == 1 && nw == 1 && rd[0].buffer == X && wr[0].buffer == Y &&
         rd[0].ranges[0].min == v->ref && is_const_int(rd[0].ranges[0].extent, 1),
     "tsl_block_infer_regions on a built block: X[v] read, Y[v] written");
  blk.n_alloc_buffers = 1;
  blk.alloc_buffers = &X;
  rc = tsl_block_infer_regions(a, &blk, &rd, &nr, &wr, &nw, &d);
  ok(rc == TSL_OK && nr == 0 && nw == 1, "the block's own allocation is not a region");
}

static void test_match_buffer_block(void) {
  const char *src =
      "@T.prim_func\n"
      "def f(A: T.Buffer((64, 64), \"float32\"), C: T.Buffer((64,), \"float32\")):\n"
      "    for i in range(4):\n"
      "        with T.block(\"tile\"):\n"
      "            vi = T.axis.spatial(4, i)\n"
      "            T.reads(A[vi * 16:vi * 16 + 16, 0:16])\n"
      "            T.writes(C[vi])\n"
      "            At = T.match_buffer(A[vi * 16:vi * 16 + 16, 0:16], (16, 16))\n"
      "            Row = T.match_buffer(A[vi, 0:16], (16,), offset_factor=1)\n"
      "            C[vi] = At[0, 0] + Row[3]\n"
      "    for i in range(4):\n"
      "        with T.block(\"view\"):\n"
      "            vi = T.axis.spatial(4, i)\n"
      "            V = T.match_buffer(A[vi * 16:vi * 16 + 16, 0:8], (16, 8))\n"
      "            C[vi] = V[1, 2]\n";
  const tsl_module *m = parse("match.py", src);
  ok(m != NULL, "block match_buffer parses");
  if (!m)
    return;
  const tsl_block *b = find_block(m->funcs[0], "tile");
  ok(b && b->n_match_buffers == 2, "two match buffers");
  if (b && b->n_match_buffers == 2) {
    const tsl_match_buffer *mb = &b->match_buffers[0];
    ok(mb->buffer->ndim == 2 && is_const_int(mb->buffer->shape[0], 16) &&
           strcmp(mb->source.buffer->name, "A") == 0 &&
           is_const_int(mb->source.ranges[0].extent, 16) &&
           mb->source.ranges[0].min->kind == TSL_EXPR_MUL,
       "At views A[vi * 16:vi * 16 + 16, 0:16]");
    ok(b->match_buffers[1].buffer->ndim == 1 && b->match_buffers[1].buffer->offset_factor == 1 &&
           b->match_buffers[1].source.ndim == 2,
       "a 1-D view of a region with a unit leading dimension");
    ok(dt_is(mb->buffer->dtype, "float32"), "view dtype from the source");
  }
  const tsl_block *v = find_block(m->funcs[0], "view");
  ok(v && v->n_reads == 1 && v->reads[0].buffer->ndim == 2 &&
         strcmp(v->reads[0].buffer->name, "A") == 0,
     "accesses through a view are inferred on the source buffer");
}

/* An offset factor without an element offset makes the offset a variable
 * the declaration defines (TVM's BufferDecl); it prints back the same way,
 * with its uses spelled B.elem_offset. */
static void test_offset_factor(void) {
  const char *src =
      "@T.prim_func\n"
      "def f(A: T.Buffer((64, 64), \"float32\"), C: T.Buffer((64,), \"int64\"),\n"
      "      D: T.Buffer((T.int64(8),), \"float32\", offset_factor=4)):\n"
      "    Tmp = T.alloc_buffer((4,), offset_factor=1)\n"
      "    for i in range(4):\n"
      "        with T.block(\"tile\"):\n"
      "            vi = T.axis.spatial(4, i)\n"
      "            T.reads(A[vi, 0:16])\n"
      "            T.writes(C[vi])\n"
      "            Row = T.match_buffer(A[vi, 0:16], (16,), offset_factor=1)\n"
      "            Same = T.match_buffer(A[vi, 0:16], (16,), elem_offset=Row.elem_offset, offset_factor=1)\n"
      "            Zero = T.match_buffer(A[vi, 0:16], (16,), elem_offset=0, offset_factor=1)\n"
      "            Plain = T.match_buffer(A[vi, 0:16], (16,))\n"
      "            C[vi] = T.Cast(\"int64\", Row.elem_offset + Plain.elem_offset) + D.elem_offset\n";
  const tsl_module *m = parse("offset.py", src);
  ok(m != NULL, "offset_factor without elem_offset parses");
  if (!m)
    return;
  const tsl_func *f = m->funcs[0];
  const tsl_block *b = find_block(f, "tile");
  const tsl_buffer *row = b->match_buffers[0].buffer, *same = b->match_buffers[1].buffer;
  const tsl_buffer *zero = b->match_buffers[2].buffer, *plain = b->match_buffers[3].buffer;
  const tsl_buffer *d = f->params[2].buffer;
  ok(row->elem_offset && row->elem_offset->kind == TSL_EXPR_VAR &&
         dt_is(row->elem_offset->dtype, "int32") && row->offset_factor == 1,
     "offset_factor=1 alone: the offset is a fresh int32 variable");
  ok(same->elem_offset == row->elem_offset, "elem_offset=Row.elem_offset shares it");
  ok(is_const_int(zero->elem_offset, 0), "an explicit elem_offset=0 stays 0");
  ok(!plain->elem_offset && plain->offset_factor == 0, "no offset_factor: offset 0, as before");
  ok(!root_of(f)->alloc_buffers[0]->elem_offset,
     "an allocation keeps offset 0 (nothing would bind a variable)");
  ok(d->elem_offset && d->elem_offset->kind == TSL_EXPR_VAR &&
         dt_is(d->elem_offset->dtype, "int64"),
     "the variable takes the index dtype of the shape (int64)");
  const tsl_expr *v = b->body->u.store.value;
  const tsl_expr *sum = v->args[0]->args[0];
  ok(sum->args[0] == row->elem_offset && is_const_int(sum->args[1], 0) &&
         v->args[1] == d->elem_offset,
     "Row.elem_offset reads the variable, Plain.elem_offset reads 0");
  char *text = tsl_print_module(m);
  ok(text && strstr(text, "D: T.Buffer((T.int64(8),), \"float32\", offset_factor=4)") &&
         strstr(text, "Row = T.match_buffer(A[vi, 0:16], (16,), offset_factor=1)") &&
         strstr(text, "Same = T.match_buffer(A[vi, 0:16], (16,), elem_offset=Row.elem_offset, "
                      "offset_factor=1)") &&
         strstr(text, "T.Cast(\"int64\", Row.elem_offset + 0) + D.elem_offset") &&
         strstr(text, "Tmp = T.alloc_buffer((4,), offset_factor=1)") &&
         !strstr(text, "T.int32()"),
     "printed as declared, uses as B.elem_offset, no free variable:\n%s", text ? text : "?");
  const tsl_module *back = text ? parse("offset_printed.py", text) : NULL;
  char why[512] = "";
  ok(back && tsl_module_equal(m, back, why, sizeof why), "and reads back equal %s", why);
  free(text);
}

static void test_typing(void) {
  const char *src =
      "@T.prim_func\n"
      "def f(H: T.Buffer((8,), \"float16\"), F: T.Buffer((8,), \"float32\"),\n"
      "      I: T.Buffer((8,), \"int32\"), L: T.Buffer((8,), \"int64\"), Bo: T.Buffer((8,), \"bool\"),\n"
      "      n: T.int64):\n"
      "    H[0] = 0.0\n"
      "    F[1] = F[0] * 2\n"
      "    F[2] = T.float32(\"inf\")\n"
      "    F[3] = T.min_value(\"float32\")\n"
      "    F[4] = 1e-5\n"
      "    I[0] = 1 + 2 * 3\n"
      "    I[1] = 7 // 2\n"
      "    I[2] = -7 // 2\n"
      "    I[3] = -7 % 3\n"
      "    L[0] = n + I[0]\n"
      "    Bo[0] = True\n"
      "    Bo[1] = T.bool(False)\n"
      "    I[4] = T.max_value(\"int32\")\n"
      "    F[5] = T.float32(\"-inf\")\n"
      "    L[1] = I[0]\n"
      "    H[1] = T.float16(1) / 3\n"
      "    F[6] = T.Cast(\"float32\", H[0]) + T.float32(I[0])\n"
      "    L[2] = 2147483648\n";
  const tsl_module *m = parse("typing.py", src);
  ok(m != NULL, "typing program parses");
  if (!m)
    return;
  const tsl_stmt *body = root_of(m->funcs[0])->body;
  const tsl_expr *v;
#define VAL(k) (nth(body, k) ? nth(body, k)->u.store.value : NULL)
  v = VAL(0);
  ok(v && v->kind == TSL_EXPR_FLOAT_IMM && dt_is(v->dtype, "float16"),
     "0.0 stored into float16 is a float16 constant");
  v = VAL(1);
  ok(v && v->kind == TSL_EXPR_MUL && v->args[1]->kind == TSL_EXPR_FLOAT_IMM &&
         dt_is(v->args[1]->dtype, "float32") && v->args[1]->u.float_value == 2.0,
     "int literal next to a float32 operand becomes float32 2.0");
  v = VAL(2);
  ok(v && v->kind == TSL_EXPR_FLOAT_IMM && isinf(v->u.float_value) && v->u.float_value > 0,
     "T.float32(\"inf\")");
  v = VAL(3);
  ok(v && v->kind == TSL_EXPR_FLOAT_IMM && v->u.float_value == -(double)FLT_MAX,
     "T.min_value(\"float32\")");
  v = VAL(4);
  ok(v && v->kind == TSL_EXPR_FLOAT_IMM && fabs(v->u.float_value - 1e-5) < 1e-12,
     "1e-5 literal");
  ok(is_const_int(VAL(5), 7), "literal arithmetic folds: 1 + 2 * 3 = 7");
  ok(is_const_int(VAL(6), 3), "7 // 2 = 3");
  ok(is_const_int(VAL(7), -4), "-7 // 2 = -4 (floor division)");
  ok(is_const_int(VAL(8), 2), "-7 %% 3 = 2 (floor modulo)");
  v = VAL(9);
  ok(v && v->kind == TSL_EXPR_ADD && dt_is(v->dtype, "int64") &&
         v->args[1]->kind == TSL_EXPR_CAST && dt_is(v->args[1]->dtype, "int64"),
     "int32 operand of an int64 add is widened with a Cast");
  v = VAL(10);
  ok(v && v->kind == TSL_EXPR_INT_IMM && tsl_dtype_is_bool(v->dtype) && v->u.int_value == 1,
     "True literal is a bool constant");
  v = VAL(11);
  ok(v && tsl_dtype_is_bool(v->dtype) && v->u.int_value == 0, "T.bool(False)");
  ok(is_const_int(VAL(12), 2147483647), "T.max_value(\"int32\")");
  v = VAL(13);
  ok(v && isinf(v->u.float_value) && v->u.float_value < 0, "T.float32(\"-inf\")");
  v = VAL(14);
  ok(v && v->kind == TSL_EXPR_CAST && dt_is(v->dtype, "int64"),
     "int32 value stored into an int64 buffer is widened");
  v = VAL(15);
  ok(v && v->kind == TSL_EXPR_DIV && dt_is(v->dtype, "float16") &&
         dt_is(v->args[1]->dtype, "float16"),
     "'/' is DIV; the literal takes float16");
  v = VAL(16);
  ok(v && v->kind == TSL_EXPR_ADD && v->args[0]->kind == TSL_EXPR_CAST &&
         v->args[1]->kind == TSL_EXPR_CAST,
     "T.Cast and T.float32(expr) convert");
  v = VAL(17);
  ok(v && v->kind == TSL_EXPR_INT_IMM && dt_is(v->dtype, "int64") && v->u.int_value == 2147483648LL,
     "large literal into int64");
#undef VAL
}

/* No context typing: as in TVM, a value is typed bottom-up (literals as the
 * FFI types them) and the store casts it to the buffer's dtype. */
static void test_store_context(void) {
  const char *src =
      "@T.prim_func\n"
      "def f(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"int8\"),\n"
      "      H: T.Buffer((8,), \"float16\")):\n"
      "    for i in range(8):\n"
      "        B[i] = T.if_then_else(A[i] > 0.0, 1, 0)\n"
      "        H[i] = T.Select(i < 4, 1.0, 2.0) + T.exp(1.0)\n"
      "        B[i] = T.if_then_else(A[T.if_then_else(i < 2, 1, 0)] > 0.0, -1, 1)\n"
      "        B[i] = A[i] > 0.0 and True\n";
  const tsl_module *m = parse("ctx.py", src);
  ok(m != NULL, "stores cast their values to the buffer's dtype");
  if (!m)
    return;
  const tsl_stmt *body = find_loop(m->funcs[0], "i")->u.loop.body;
  const tsl_expr *v = nth(body, 0)->u.store.value;
  ok(v->kind == TSL_EXPR_CAST && dt_is(v->dtype, "int8") &&
         v->args[0]->kind == TSL_EXPR_IF_THEN_ELSE && dt_is(v->args[0]->dtype, "int32"),
     "T.if_then_else(c, 1, 0) is int32, cast to int8 by the store");
  v = nth(body, 1)->u.store.value;
  ok(v->kind == TSL_EXPR_CAST && dt_is(v->dtype, "float16") &&
         dt_is(v->args[0]->args[0]->dtype, "float32") &&
         dt_is(v->args[0]->args[1]->dtype, "float32"),
     "T.Select(c, 1.0, 2.0) and T.exp(1.0) are float32, cast to float16");
  v = nth(body, 2)->u.store.value;
  const tsl_expr *idx = v->args[0]->args[0]->args[0]->args[0];
  ok(v->kind == TSL_EXPR_CAST && idx->kind == TSL_EXPR_IF_THEN_ELSE && dt_is(idx->dtype, "int32"),
     "indices inside the stored value keep int32");
  v = nth(body, 3)->u.store.value;
  ok(v->kind == TSL_EXPR_CAST && dt_is(v->dtype, "int8") && dt_is(v->args[0]->dtype, "bool"),
     "a bool value stored into an int8 buffer is cast");
}

static void test_exprs(void) {
  const char *src =
      "@T.prim_func\n"
      "def f(A: T.Buffer((16,), \"float32\"), I: T.Buffer((16,), \"int32\"),\n"
      "      V: T.Buffer((16,), \"float32x4\")):\n"
      "    for i in range(16):\n"
      "        A[i] = A[i] / A[0]\n"
      "        I[i] = i // 4 + i % 4 - T.truncdiv(i, 3) * T.truncmod(i, 5)\n"
      "        A[i] = T.max(A[i], T.min(A[0], 1.0))\n"
      "        A[i] = T.if_then_else(i < 8, A[i], T.float32(0))\n"
      "        A[i] = T.Select(i >= 2 and i != 5 or not i == 7, A[i], -A[i])\n"
      "        A[i] = T.exp(A[i]) + T.sqrt(A[i]) + T.pow(A[i], 2.0) + T.sigmoid(A[i])\n"
      "        A[i] = T.call_extern(\"float32\", \"my_fn\", A[i], i)\n"
      "        I[i] = T.floordiv(i, 2) + T.floormod(i, 2) + T.min(i, 3) - (-i)\n"
      "        A[i] = T.fabs(A[i]) + T.tanh(A[i]) + T.log(A[i]) + T.erf(A[i])\n"
      "        I[i] = T.if_then_else(T.isnan(A[i]), 1, 0)\n"
      "        V[i] = T.Broadcast(A[i], 4) + A[T.Ramp(0, 1, 4)]\n"
      "        A[i] = T.floor(A[i]) + T.ceil(A[i]) + T.round(A[i]) + T.trunc(A[i])\n";
  const tsl_module *m = parse("exprs.py", src);
  ok(m != NULL, "expression program parses");
  if (!m)
    return;
  const tsl_stmt *body = find_loop(m->funcs[0], "i")->u.loop.body;
#define VAL(k) (nth(body, k) ? nth(body, k)->u.store.value : NULL)
  const tsl_expr *v = VAL(0);
  ok(v && v->kind == TSL_EXPR_DIV, "'/' gives DIV");
  v = VAL(1);
  ok(v && v->kind == TSL_EXPR_SUB && v->args[0]->kind == TSL_EXPR_ADD &&
         v->args[0]->args[0]->kind == TSL_EXPR_FLOORDIV &&
         v->args[0]->args[1]->kind == TSL_EXPR_FLOORMOD && v->args[1]->kind == TSL_EXPR_MUL &&
         v->args[1]->args[0]->kind == TSL_EXPR_DIV && v->args[1]->args[1]->kind == TSL_EXPR_MOD,
     "// %% truncdiv truncmod map to FLOORDIV FLOORMOD DIV MOD");
  v = VAL(2);
  ok(v && v->kind == TSL_EXPR_MAX && v->args[1]->kind == TSL_EXPR_MIN &&
         v->args[1]->args[1]->kind == TSL_EXPR_FLOAT_IMM,
     "T.max / T.min");
  v = VAL(3);
  ok(v && v->kind == TSL_EXPR_IF_THEN_ELSE && tsl_dtype_is_bool(v->args[0]->dtype),
     "T.if_then_else");
  v = VAL(4);
  ok(v && v->kind == TSL_EXPR_SELECT && v->args[0]->kind == TSL_EXPR_OR &&
         v->args[0]->args[0]->kind == TSL_EXPR_AND &&
         v->args[0]->args[1]->kind == TSL_EXPR_NOT && v->args[2]->kind == TSL_EXPR_NEG,
     "T.Select with and / or / not and unary minus");
  v = VAL(5);
  ok(v && v->kind == TSL_EXPR_ADD && v->args[1]->kind == TSL_EXPR_CALL &&
         v->args[1]->intrin == TSL_INTRIN_SIGMOID &&
         v->args[0]->args[1]->kind == TSL_EXPR_CALL &&
         v->args[0]->args[1]->intrin == TSL_INTRIN_POW,
     "math intrinsics");
  v = VAL(6);
  ok(v && v->kind == TSL_EXPR_CALL_EXTERN && strcmp(v->u.str_value, "my_fn") == 0 &&
         v->n_args == 2 && dt_is(v->dtype, "float32"),
     "T.call_extern");
  v = VAL(7);
  ok(v && v->kind == TSL_EXPR_SUB && v->args[1]->kind == TSL_EXPR_NEG,
     "T.floordiv / T.floormod / T.min on ints, -(-i)");
  v = VAL(9);
  ok(v && v->kind == TSL_EXPR_IF_THEN_ELSE && v->args[0]->kind == TSL_EXPR_CALL &&
         v->args[0]->intrin == TSL_INTRIN_ISNAN && tsl_dtype_is_bool(v->args[0]->dtype) &&
         dt_is(v->dtype, "int32"),
     "T.isnan returns bool; int literals in branches are int32");
  v = VAL(10);
  ok(v && dt_is(v->dtype, "float32x4") && v->args[0]->kind == TSL_EXPR_BROADCAST &&
         v->args[1]->kind == TSL_EXPR_LOAD && v->args[1]->args[0]->kind == TSL_EXPR_RAMP &&
         dt_is(v->args[1]->dtype, "float32x4"),
     "T.Broadcast and a Ramp-indexed vector load");
#undef VAL
}

static void test_stmts(void) {
  const char *src =
      "\"\"\"module docstring\"\"\"\n"
      "import tvm\n"
      "from tvm.script import tir as T\n"
      "@T.prim_func(check_well_formed=False)\n"
      "def f(A: T.Buffer((16,), \"float32\"), n: T.int32) -> None:\n"
      "    \"\"\"docstring\"\"\"\n"
      "    for i in range(16):\n"
      "        if i < 4:\n"
      "            A[i] = T.float32(0)\n"
      "        elif i < 8:\n"
      "            A[i] = T.float32(1)\n"
      "        else:\n"
      "            A[i] -= T.float32(2)\n"
      "        x: T.int32 = i * 2\n"
      "        y = x + n\n"
      "        A[y % 16] *= T.float32(3)\n"
      "        A[x % 16] = A[x % 16] / T.float32(4)\n"
      "    with T.LetStmt(n + 1) as z:\n"
      "        A[z] = T.float32(5)\n"
      "    T.evaluate(T.call_extern(\"int32\", \"barrier\"))\n"
      "    if n > 0: A[0] = T.float32(6)\n"
      "    pass\n";
  const tsl_module *m = parse("stmts.py", src);
  ok(m != NULL, "statement forms parse");
  if (!m)
    return;
  const tsl_stmt *top = root_of(m->funcs[0])->body;
  is_int(count_stmts(top), 4, "four top-level statements");
  const tsl_stmt *body = nth(top, 0)->u.loop.body;
  const tsl_stmt *iff = nth(body, 0);
  ok(iff && iff->kind == TSL_STMT_IF && iff->u.branch.else_case &&
         iff->u.branch.else_case->kind == TSL_STMT_IF &&
         iff->u.branch.else_case->u.branch.else_case != NULL,
     "if / elif / else nests");
  const tsl_stmt *els = iff->u.branch.else_case->u.branch.else_case;
  ok(els->kind == TSL_STMT_STORE && els->u.store.value->kind == TSL_EXPR_SUB,
     "A[i] -= x");
  const tsl_stmt *let = nth(body, 1);
  ok(let && let->kind == TSL_STMT_LET && strcmp(let->u.let.var->name, "x") == 0 &&
         dt_is(let->u.let.var->dtype, "int32"),
     "x: T.int32 = ... is a let");
  const tsl_stmt *let2 = let->u.let.body;
  ok(let2 && let2->kind == TSL_STMT_LET && strcmp(let2->u.let.var->name, "y") == 0 &&
         count_stmts(let2->u.let.body) == 2,
     "y = expr is a let whose body is the rest of the block");
  const tsl_stmt *mul = nth(let2->u.let.body, 0);
  ok(mul->kind == TSL_STMT_STORE && mul->u.store.value->kind == TSL_EXPR_MUL &&
         mul->u.store.indices[0]->kind == TSL_EXPR_FLOORMOD,
     "A[y %% 16] *= 3");
  const tsl_stmt *ls = nth(top, 1);
  ok(ls && ls->kind == TSL_STMT_LET && strcmp(ls->u.let.var->name, "z") == 0 &&
         ls->u.let.body->kind == TSL_STMT_STORE,
     "with T.LetStmt(v) as z");
  const tsl_stmt *ev = nth(top, 2);
  ok(ev && ev->kind == TSL_STMT_EVALUATE && ev->u.evaluate.value->kind == TSL_EXPR_CALL_EXTERN,
     "T.evaluate(T.call_extern(...))");
  const tsl_stmt *one = nth(top, 3);
  ok(one && one->kind == TSL_STMT_IF && one->u.branch.then_case->kind == TSL_STMT_STORE &&
         one->u.branch.else_case == NULL,
     "single-line if body");
}

static void test_module_forms(void) {
  const char *src =
      "import tvm\n"
      "from tvm.script import tir as T, ir as I\n"
      "\n"
      "@tvm.script.ir_module\n"
      "class MyMod:\n"
      "    @T.prim_func\n"
      "    def a(A: T.Buffer((4,), \"float32\")):\n"
      "        A[0] = T.float32(1)\n"
      "\n"
      "    @T.prim_func(private=True)\n"
      "    def b(A: T.Buffer((4,), \"float32\")):\n"
      "        A[1] = T.float32(2)\n";
  const tsl_module *m = parse("mod.py", src);
  ok(m && m->n_funcs == 2 && strcmp(m->name, "MyMod") == 0 && tsl_module_find(m, "b"),
     "@tvm.script.ir_module with two functions");
  const char *alias =
      "from tvm.script import tir as tx\n"
      "import tvm.script.ir as ii\n"
      "@ii.ir_module\n"
      "class M:\n"
      "    @tx.prim_func\n"
      "    def main(A: tx.Buffer((4,), \"float32\")):\n"
      "        A[0] = tx.exp(A[1])\n";
  m = parse("alias.py", alias);
  ok(m && m->n_funcs == 1 && root_of(m->funcs[0])->body->u.store.value->kind == TSL_EXPR_CALL,
     "import aliases (tir as tx, tvm.script.ir as ii)");
  const char *bare_names =
      "from tvm.script import ir_module\n"
      "@ir_module\n"
      "class M:\n"
      "    @T.prim_func\n"
      "    def main(A: T.Buffer((4,), \"float32\")):\n"
      "        A[0] = T.float32(0)\n";
  m = parse("bare.py", bare_names);
  ok(m && m->n_funcs == 1, "@ir_module without a namespace");
  const char *crlf = "@T.prim_func\r\ndef f(A: T.Buffer((4,), \"float32\")):\r\n"
                     "    for i in range(4):  # comment\r\n\r\n"
                     "        A[i] = \\\r\n            T.float32(0)\r\n";
  m = parse("crlf.py", crlf);
  ok(m != NULL, "CRLF line ends, comments and backslash continuation");
  const char *tabs = "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n"
                     "\tfor i in range(4):\n\t\tA[i] = T.float32(0)\n";
  ok(parse("tabs.py", tabs) != NULL, "tab indentation");
  const char *multiline = "@T.prim_func\ndef f(\n    A: T.Buffer(\n        (4, 4),\n"
                          "        \"float32\",\n    ),\n):\n    A[0,\n      1] = T.float32(0)\n";
  ok(parse("ml.py", multiline) != NULL, "implicit line joining inside brackets");
}

static void test_block_misc(void) {
  const char *src =
      "@T.prim_func\n"
      "def f(A: T.Buffer((16, 16), \"float32\"), B: T.Buffer((16, 16), \"float32\")):\n"
      "    for i, j in T.grid(16, 16):\n"
      "        with T.block(\"B\"):\n"
      "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
      "            T.reads(A[vi, vj])\n"
      "            T.writes(B[vi, vj])\n"
      "            C_local = T.alloc_buffer((1,), scope=\"local\")\n"
      "            C_local[0] = A[vi, vj]\n"
      "            B[vi, vj] = C_local[0]\n"
      "    for i in range(16):\n"
      "        with T.block():\n"
      "            T.evaluate(0)\n";
  const tsl_module *m = parse("bm.py", src);
  ok(m != NULL, "block alloc_buffer parses");
  if (!m)
    return;
  const tsl_block *b = find_block(m->funcs[0], "B");
  ok(b && b->n_alloc_buffers == 1 && strcmp(b->alloc_buffers[0]->scope, "local") == 0 &&
         count_stmts(b->body) == 2,
     "alloc_buffer inside a block belongs to the block");
  const tsl_block *anon = find_block(m->funcs[0], "");
  ok(anon && anon->n_reads == 0 && anon->n_writes == 0, "T.block() without a name");
}

/* Semantic and syntax rejections beyond the golden error files: each
 * program must fail with a message containing the given text. */
static void test_rejects(void) {
  static const struct {
    const char *body, *want;
  } cases[] = {
      {"    for i in range(4):\n        with T.block(\"b\"):\n            vi = T.axis.spatial(4, i)\n"
       "            T.where(vi < 2)\n            A[vi] = 1.0\n",
       "T.where uses block variable 'vi'"},
      {"    for i in range(4):\n        with T.block(\"b\"):\n            vi = T.axis.remap(\"S\", [i + 1])\n"
       "            A[vi] = 1.0\n",
       "T.axis.remap values must be loop variables"},
      {"    for i in range(4):\n        with T.block(\"b\"):\n            vi = T.axis.spatial(4, i)\n"
       "            T.reads(A[vi])\n            T.reads(A[vi])\n            A[vi] = 1.0\n",
       "T.reads given twice"},
      {"    for i in range(4):\n        with T.block(\"b\"):\n            vi = T.axis.spatial(4, i)\n"
       "            with T.init():\n                A[vi] = 0.0\n            with T.init():\n"
       "                A[vi] = 0.0\n",
       "T.init given twice"},
      {"    for i in range(4):\n        T.func_attr({\"a\": 1})\n", "T.func_attr inside a block or loop"},
      {"    for i in range(4):\n        A[i] = 1.0\n    return 1\n", "return with a value"},
      {"    def g():\n        pass\n", "nested functions are not supported"},
      {"    for i in range(4):\n        i += 1\n", "augmented assignment to a variable"},
      {"    with T.block(\"b\") as [vi]:\n        A[0] = 1.0\n", "'with T.block(...) as ...' is not supported"},
      {"    with T.block([4], \"b\"):\n        A[0] = 1.0\n", "T.block takes one argument"},
      {"    m, n = T.int64(), T.int64(), T.int64()\n", "2 names but 3 values"},
      {"    for i in range(0, 8, 2):\n        A[i] = 1.0\n", "range with a step is not supported"},
      {"    for i in T.serial(4, annotation={}):\n        A[i] = 1.0\n", "unknown keyword argument 'annotation'"},
      {"    B = T.alloc_buffer((4,), \"int8\")\n    B[0] = 300\n", "integer literal 300 does not fit in int8"},
      {"    A[0] = T.float32(1 // 0)\n", "division by zero"},
      {"    for i in range(4):\n        A[i] = T.Cast(\"float32\", (i < 2) + (i < 3))\n", "arithmetic '+' on bool values"},
      {"    A[0] = A[1] = 1.0\n", "chained assignment is not supported"},
      {"    A[0] = 1.0 if True else 2.0\n", "conditional expressions are not supported"},
      {"    while True:\n        pass\n", "'while' statements are not supported"},
      {"    A[0] = (lambda x: x)(1.0)\n", "lambda expressions are not supported"},
      {"    for i in range(4):\n        A[i] = T.Select(A[i] < i, 1.0, 0.0)\n", "dtype mismatch"},
      {"    A[0] = A\n", "buffer 'A' cannot be used as a value"},
      {"    A[0] = T.float32\n", "T.float32 is a type, not a value"},
      {"    A[0] = T.reads(A[0])\n", "T.reads cannot be used as a value"},
      {"    A[0] = T.Cast(\"float33\", A[1])\n", "unknown dtype 'float33'"},
      {"    A[0] = T.exp(A[1], A[2])\n", "T.exp takes 1 positional argument, got 2"},
      {"    A[0] = T.call_extern(\"float32\")\n", "T.call_extern takes at least 2 positional arguments"},
      {"    x = T.match_buffer(A[0:2], (2,))\n", "T.match_buffer of a region outside a block"},
      {"    A[0] = 1.0\n  A[1] = 2.0\n", "unindent does not match"},
      {"    A[0] = 'abc\n", "unterminated string literal"},
      {"    A[0] = 1.0 $ 2.0\n", "invalid character '$'"},
      {"    A[0] = 99999999999999999999\n", "integer literal too large"},
      {"    A[0] = A[0:2]\n", "dtype mismatch"},
      {"    A[i] = 1.0\n", "unknown name 'i'"},
      {"    C[0] = 1.0\n", "unknown buffer 'C'"},
      {"    for i in range(4):\n        if i:\n            A[i] = 1.0\n", "must be a bool expression"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char src[2048];
    snprintf(src, sizeof src, "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n%s",
             cases[k].body);
    const char *d = parse_err(src);
    int good = T_.rc != TSL_OK && strstr(d, cases[k].want) && strstr(d, "\nnote: ");
    ok(good, "rejected with \"%s\"", cases[k].want);
    if (!good)
      tap_diag("  got (%d):\n%s", T_.rc, d);
  }
}

/* TVM builtins, buffer attributes, T.ceildiv and opaque-access regions. */
static void test_tvm_builtins(void) {
  const char *src =
      "@T.prim_func\n"
      "def f(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\"),\n"
      "      C: T.Buffer((64,), \"float32\"), D: T.Buffer((64,), \"int32\"), n: T.int32):\n"
      "    with T.block(\"opaque\"):\n"
      "        T.evaluate(T.call_extern(\"int32\", \"copy\", B.access_ptr(\"w\"),\n"
      "                                 A.access_ptr(\"r\", offset=8), C.data))\n"
      "        D[0] = T.q_multiply_shift(D[1], 1073741824, 31, 0)\n"
      "        D[2] = T.ceildiv(n, 16)\n"
      "        D[3] = T.ceildiv(10, 4)\n"
      "        T.evaluate(T.address_of(A[3]))\n";
  const tsl_module *m = parse("builtins.py", src);
  ok(m != NULL, "builtins, buffer attributes and T.ceildiv parse");
  if (!m)
    return;
  const tsl_stmt *rz = find_realize(m->funcs[0], "opaque");
  const tsl_block *b = rz->u.realize.block;
  const tsl_expr *ext = nth(b->body, 0)->u.evaluate.value;
  const tsl_expr *wp = ext->args[0], *rp = ext->args[1];
  ok(wp->kind == TSL_EXPR_BUILTIN && wp->intrin == TSL_BUILTIN_TVM_ACCESS_PTR &&
         dt_is(wp->dtype, "handle") && wp->n_args == 5 &&
         wp->args[0]->kind == TSL_EXPR_BUILTIN &&
         wp->args[0]->intrin == TSL_BUILTIN_TYPE_ANNOTATION && dt_is(wp->args[0]->dtype, "float32") &&
         wp->args[1]->kind == TSL_EXPR_BUFFER_DATA && strcmp(wp->args[1]->u.buffer->name, "B") == 0 &&
         is_const_int(wp->args[2], 0) && is_const_int(wp->args[3], 64) &&
         is_const_int(wp->args[4], 2),
     "B.access_ptr(\"w\") is tvm_access_ptr(type_annotation(float32), B.data, 0, 64, 2)");
  ok(is_const_int(rp->args[2], 8) && is_const_int(rp->args[3], 56) && is_const_int(rp->args[4], 1),
     "A.access_ptr(\"r\", offset=8): offset 8, extent 64 - 8, mask 1");
  const tsl_expr *q = nth(b->body, 1)->u.store.value;
  ok(q->kind == TSL_EXPR_BUILTIN && q->intrin == TSL_BUILTIN_Q_MULTIPLY_SHIFT &&
         dt_is(q->dtype, "int32") && q->n_args == 4,
     "T.q_multiply_shift is an int32 builtin call");
  const tsl_expr *cd = nth(b->body, 2)->u.store.value;
  ok(cd->kind == TSL_EXPR_FLOORDIV && is_const_int(cd->args[1], 16) &&
         cd->args[0]->kind == TSL_EXPR_SUB && is_const_int(cd->args[0]->args[1], 1) &&
         cd->args[0]->args[0]->kind == TSL_EXPR_ADD && is_var(cd->args[0]->args[0]->args[0], "n"),
     "T.ceildiv(n, 16) is (n + 16 - 1) // 16, as TVM builds it");
  ok(is_const_int(nth(b->body, 3)->u.store.value, 3), "T.ceildiv(10, 4) folds to 3");
  const tsl_expr *ad = nth(b->body, 4)->u.evaluate.value;
  ok(ad->kind == TSL_EXPR_BUILTIN && ad->intrin == TSL_BUILTIN_ADDRESS_OF &&
         ad->args[0]->kind == TSL_EXPR_LOAD,
     "T.address_of(A[3]) takes a buffer load");
  /* inferred regions: access_ptr by its mask, a bare C.data both ways */
  ok(region_of(b->reads, b->n_reads, "A") && region_of(b->writes, b->n_writes, "B") &&
         !region_of(b->reads, b->n_reads, "B") && !region_of(b->writes, b->n_writes, "A"),
     "access_ptr regions follow the mask (A read, B written)");
  const tsl_buffer_region *cr = region_of(b->reads, b->n_reads, "C");
  const tsl_buffer_region *cw = region_of(b->writes, b->n_writes, "C");
  ok(cr && cw && is_const_int(cr->ranges[0].min, 0) && is_const_int(cr->ranges[0].extent, 64) &&
         cw == &b->writes[b->n_writes - 1],
     "a bare C.data is an opaque access: the whole of C, read and written, listed last");
  ok(region_of(b->reads, b->n_reads, "D") && region_of(b->writes, b->n_writes, "D"),
     "ordinary loads and stores next to them");
  const char *sep =
      "@T.prim_func\n"
      "def g(A: T.Buffer((4, 4, 4), \"float32\", axis_separators=[1, 2])):\n"
      "    A[0, 0, 0] = T.float32(0)\n";
  const tsl_module *ms = parse("sep.py", sep);
  const tsl_buffer *sb = ms ? ms->funcs[0]->params[0].buffer : NULL;
  ok(sb && sb->n_axis_separators == 2 && sb->axis_separators[0] == 1 &&
         sb->axis_separators[1] == 2,
     "axis_separators=[1, 2] are kept on the buffer");
  ok(tsl_stmt_uses_buffer_data(b->body, b->reads[0].buffer) ||
         tsl_stmt_uses_buffer_data(b->body, b->reads[1].buffer),
     "tsl_stmt_uses_buffer_data finds an opaque use");

  static const struct {
    const char *body, *want;
  } bad[] = {
      {"    T.evaluate(T.assume(1))\n", "must be a bool expression"},
      {"    T.evaluate(T.type_annotation())\n", "T.type_annotation takes 1 positional argument"},
      {"    T.evaluate(T.tvm_access_ptr(T.type_annotation(\"float32\"), A.data, 0, 4, 1, mask=1))\n",
       "unknown keyword argument 'mask'"},
      {"    T.evaluate(A.access_ptr(\"r\", \"float32\"))\n", "unsupported pointer type"},
      {"    T.evaluate(A.shape)\n", "A.shape is a list, not a value"},
      {"    T.evaluate(A.shape[1])\n", "dimension out of range"},
      {"    T.evaluate(A.vload(0))\n", "unsupported buffer attribute 'vload'"},
      {"    T.evaluate(A.data())\n", "A.data is not callable"},
      {"    A[0] = T.exp(A[1], dtype=\"float33\")\n", "unknown dtype 'float33'"},
      {"    A[0] = T.ceildiv(A[1], 2)\n", "the dividend of T.ceildiv must be an integer"},
      {"    A[0] = T.call_extern(\"f\", A[1], dtype=\"float32\", name=\"g\")\n",
       "unknown keyword argument 'name'"},
      {"    B = T.alloc_buffer((4, 4), axis_separators=[2, 1])\n", "axis separator 1 is out of order"},
      {"    B = T.alloc_buffer((4, 4), axis_separators=1)\n", "axis_separators must be a list"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char s2[1024];
    snprintf(s2, sizeof s2, "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n%s",
             bad[k].body);
    const char *d = parse_err(s2);
    int good = T_.rc != TSL_OK && strstr(d, bad[k].want) && strstr(d, "\nnote: ");
    ok(good, "rejected with \"%s\"", bad[k].want);
    if (!good)
      tap_diag("  got (%d):\n%s", T_.rc, d);
  }
}

int main(void) {
  t_init();
  test_matmul_new();
  test_matmul_old();
  test_params();
  test_symbolic();
  test_roots();
  test_loops();
  test_axes();
  test_regions();
  test_inference();
  test_match_buffer_block();
  test_offset_factor();
  test_typing();
  test_store_context();
  test_exprs();
  test_stmts();
  test_module_forms();
  test_block_misc();
  test_rejects();
  test_tvm_builtins();
  t_fini();
  return tap_done();
}
