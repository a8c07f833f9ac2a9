/*
 * The race oracle (tsl_interp_opts.loop_order): programs whose parallel,
 * vectorized or thread-bound loops are not safe to run in parallel agree
 * with their serial original in the natural order, and the shuffled or
 * reversed order shows the mismatch. Among them the programs tessel's old
 * primitives produced (parallel of a loop whose block is not compact data
 * flow, vectorize of an opaque block). Legitimate parallel programs,
 * cross-thread reductions included, agree in every order.
 */
#include "tap.h"
#include "tessel/interp.h"
#include "tessel/script.h"

#include <string.h>

static tsl_ctx *ctx;
static tsl_arena *arena;

static const tsl_func *parse(const char *src, const char *what) {
  const tsl_module *m = NULL;
  tsl_diag d = {0};
  if (tsl_parse(arena, what, src, strlen(src), &m, &d) || !m || m->n_funcs < 1) {
    ok(0, "%s: parses", what);
    tap_diag("%s", d.text);
    return NULL;
  }
  return m->funcs[0];
}

/* Serial original vs. its "parallel" version: same in the natural order;
 * `racy`: some other order differs, else every order agrees. */
static void race(const char *what, const char *serial, const char *parallel, int racy) {
  const tsl_func *f = parse(serial, what), *g = parse(parallel, what);
  if (!f || !g)
    return;
  tsl_diag d = {0};
  tsl_equiv_report rep;
  tsl_interp_opts nat = {sizeof nat, TSL_INTERP_ORDER_NATURAL, 0};
  int rc = tsl_interp_check_equivalent_opts(f, g, NULL, 0, 3, &nat, &rep, &d);
  ok(rc == TSL_OK, "%s: the natural order agrees with the serial program", what);
  if (rc)
    tap_diag("%s", d.text);
  int caught = 0;
  for (uint64_t seed = 1; seed <= 3; seed++) {
    tsl_interp_opts all = {sizeof all, TSL_INTERP_ORDER_ALL, seed};
    memset(&d, 0, sizeof d);
    rc = tsl_interp_check_equivalent_opts(f, g, NULL, 0, 3, &all, &rep, &d);
    caught += rc != TSL_OK;
    if (seed == 1 && racy)
      ok(rc == TSL_EINVALID && strstr(d.text, "not independent"),
         "%s: shuffled/reversed order shows the race: %s", what, d.text);
  }
  if (racy)
    ok(caught == 3, "%s: caught with every seed (%d of 3)", what, caught);
  else
    ok(caught == 0, "%s: every order agrees (%d seeds differ)", what, caught);
  /* each order on its own, deterministic for a seed */
  if (racy) {
    int differs = 0;
    for (uint32_t o = TSL_INTERP_ORDER_SHUFFLED; o <= TSL_INTERP_ORDER_REVERSED; o++) {
      tsl_interp_opts one = {sizeof one, o, 5};
      memset(&d, 0, sizeof d);
      int r1 = tsl_interp_check_equivalent_opts(f, g, NULL, 0, 3, &one, &rep, &d);
      int r2 = tsl_interp_check_equivalent_opts(f, g, NULL, 0, 3, &one, &rep, &d);
      ok(r1 == r2, "%s: order %u is deterministic", what, o);
      differs += r1 != TSL_OK;
    }
    ok(differs >= 1, "%s: %d of the two orders alone catch it", what, differs);
  }
}

#define HDR "@T.prim_func\n"

/* Row sums; the reduction loop k made parallel: each k's update is a
 * read-modify-write of B[vi], and the init runs at k == 0. */
static const char *rowsum =
    HDR "def main(A: T.Buffer((8, 16), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
    "    for i, k in T.grid(8, 16):\n"
    "        with T.block(\"B\"):\n"
    "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
    "            with T.init():\n"
    "                B[vi] = T.float32(0)\n"
    "            B[vi] = B[vi] + A[vi, vk]\n";
static const char *rowsum_par_k =
    HDR "def main(A: T.Buffer((8, 16), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
    "    for i in range(8):\n"
    "        for k in T.parallel(16):\n"
    "            with T.block(\"B\"):\n"
    "                vi, vk = T.axis.remap(\"SR\", [i, k])\n"
    "                with T.init():\n"
    "                    B[vi] = T.float32(0)\n"
    "                B[vi] = B[vi] + A[vi, vk]\n";
static const char *rowsum_par_i =
    HDR "def main(A: T.Buffer((8, 16), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
    "    for i in T.parallel(8):\n"
    "        for k in range(16):\n"
    "            with T.block(\"B\"):\n"
    "                vi, vk = T.axis.remap(\"SR\", [i, k])\n"
    "                with T.init():\n"
    "                    B[vi] = T.float32(0)\n"
    "                B[vi] = B[vi] + A[vi, vk]\n";

/* What the old parallel() accepted: B is indexed by the reduce iterator,
 * so every i rewrites B (not compact data flow); TVM refuses. */
static const char *not_compact =
    HDR "def main(A: T.Buffer((8, 16), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"
    "    for i, k in T.grid(8, 16):\n"
    "        with T.block(\"B\"):\n"
    "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
    "            with T.init():\n"
    "                B[vk] = T.float32(0)\n"
    "            B[vk] = B[vk] + A[vi, vk]\n";
static const char *not_compact_par =
    HDR "def main(A: T.Buffer((8, 16), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"
    "    for i in T.parallel(8):\n"
    "        for k in range(16):\n"
    "            with T.block(\"B\"):\n"
    "                vi, vk = T.axis.remap(\"SR\", [i, k])\n"
    "                with T.init():\n"
    "                    B[vk] = T.float32(0)\n"
    "                B[vk] = B[vk] + A[vi, vk]\n";

/* What the old vectorize() accepted: an opaque block carrying a prefix sum
 * from one iteration to the next. */
static const char *opaque =
    HDR "def main(A: T.Buffer((16,), \"float32\")):\n"
    "    for i in range(15):\n"
    "        with T.block(\"opaque\"):\n"
    "            A[i + 1] = A[i + 1] + A[i]\n";
static const char *opaque_vec =
    HDR "def main(A: T.Buffer((16,), \"float32\")):\n"
    "    for i in T.vectorized(15):\n"
    "        with T.block(\"opaque\"):\n"
    "            A[i + 1] = A[i + 1] + A[i]\n";

/* Thread-bound: blockIdx over rows (independent), and a cross-thread
 * reduction over threadIdx.x, which keeps its order. */
static const char *rowsum_gpu =
    HDR "def main(A: T.Buffer((8, 16), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
    "    for i in T.thread_binding(8, thread=\"blockIdx.x\"):\n"
    "        for k in T.thread_binding(16, thread=\"threadIdx.x\"):\n"
    "            with T.block(\"B\"):\n"
    "                vi, vk = T.axis.remap(\"SR\", [i, k])\n"
    "                with T.init():\n"
    "                    B[vi] = T.float32(0)\n"
    "                B[vi] = B[vi] + A[vi, vk]\n";
/* A vectorized loop over an accumulation whose order matters
 * (B = B * 0.5 + a): every iteration reads what the previous one wrote. */
static const char *shared_acc =
    HDR "def main(A: T.Buffer((8, 16), \"float32\"), B: T.Buffer((1,), \"float32\")):\n"
    "    for i, k in T.grid(8, 16):\n"
    "        with T.block(\"B\"):\n"
    "            vi, vk = T.axis.remap(\"RR\", [i, k])\n"
    "            with T.init():\n"
    "                B[0] = T.float32(0)\n"
    "            B[0] = B[0] * T.float32(0.5) + A[vi, vk]\n";
static const char *shared_acc_vec =
    HDR "def main(A: T.Buffer((8, 16), \"float32\"), B: T.Buffer((1,), \"float32\")):\n"
    "    for i in range(8):\n"
    "        for k in T.vectorized(16):\n"
    "            with T.block(\"B\"):\n"
    "                vi, vk = T.axis.remap(\"RR\", [i, k])\n"
    "                with T.init():\n"
    "                    B[0] = T.float32(0)\n"
    "                B[0] = B[0] * T.float32(0.5) + A[vi, vk]\n";

int main(void) {
  ctx = tsl_ctx_new();
  arena = tsl_arena_new(ctx);
  race("parallel reduction loop", rowsum, rowsum_par_k, 1);
  race("parallel loop over a block indexed by its reduce iterator (old parallel)",
       not_compact, not_compact_par, 1);
  race("vectorized opaque block (old vectorize)", opaque, opaque_vec, 1);
  race("vectorized reduction loop", shared_acc, shared_acc_vec, 1);
  race("parallel spatial loop", rowsum, rowsum_par_i, 0);
  race("blockIdx rows + cross-thread reduction over threadIdx.x", rowsum, rowsum_gpu, 0);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return tap_done();
}
