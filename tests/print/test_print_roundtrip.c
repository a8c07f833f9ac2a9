/*
 * Printer round trips: every module of cases.h is printed, parsed back,
 * compared with the original (tsl_module_equal) and printed again; the
 * second text must equal the first (idempotence).
 */
#include "cases.h"
#include "tap.h"
#include "tessel/analysis.h"
#include "tessel/script.h"

#include <stdlib.h>

static void roundtrip(tsl_arena *a, const char *name, const tsl_module *m) {
  char *text = tsl_print_module(m);
  const tsl_module *back = NULL;
  tsl_diag diag = {0};
  int rc = tsl_parse(a, name, text, strlen(text), &back, &diag);
  if (!ok(rc == TSL_OK && back, "%s: printed text parses", name)) {
    tap_diag("%s\n%s", diag.text, text);
    tap_skip("did not parse", "equal");
    tap_skip("did not parse", "idempotent");
    free(text);
    return;
  }
  char why[1024] = "";
  if (!ok(tsl_module_equal(m, back, why, sizeof why) == 1,
          "%s: parse(print(m)) is structurally equal to m", name))
    tap_diag("%s", why);
  char *again = tsl_print_module(back);
  is_str(again, text, "%s: print(parse(print(m))) == print(m)", name);
  free(again);
  free(text);
}

/* Text laid out the way TVM v0.19 prints it: parse + print gives it back
 * unchanged (tessel fmt is a fixed point on TVM output). */
static const struct {
  const char *name, *text;
} tvm_texts[] = {
    {"remap runs around a split binding; remap over loops with a min; %.17g floats",
     "# from tvm.script import tir as T\n"
     "\n"
     "@T.prim_func\n"
     "def main(A: T.Buffer((64, 64), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
     "    T.func_attr({\"global_symbol\": \"main\", \"tir.noalias\": T.bool(True)})\n"
     "    # with T.block(\"root\"):\n"
     "    for i_0, k, i_1 in T.grid(4, 64, 16):\n"
     "        with T.block(\"B\"):\n"
     "            vk = T.axis.reduce(64, k)\n"
     "            vi = T.axis.spatial(64, i_0 * 16 + i_1)\n"
     "            T.reads(A[vi, vk])\n"
     "            T.writes(B[vi])\n"
     "            with T.init():\n"
     "                B[vi] = T.float32(0)\n"
     "            B[vi] = B[vi] + A[vi, vk] * T.float32(0.70710678118654757)\n"
     "    for i_0, i_1, k in T.grid(4, 16, 64):\n"
     "        with T.block(\"B2\"):\n"
     "            vi = T.axis.spatial(64, i_0 * 16 + i_1)\n"
     "            vk = T.axis.reduce(64, k)\n"
     "            T.reads(A[vi, vk])\n"
     "            T.writes(B[vi])\n"
     "            B[vi] = B[vi] + A[vi, vk] * T.float32(1.0000000000000001e-05)\n"
     "    for i, j_0, k in T.grid(64, 4, 64):\n"
     "        for j_1 in range(1, 17):\n"
     "            with T.block(\"B3\"):\n"
     "                vi, vj_0 = T.axis.remap(\"SS\", [i, j_0])\n"
     "                vj_1 = T.axis.spatial(17, j_1)\n"
     "                vk = T.axis.reduce(64, k)\n"
     "                T.reads(A[vi, vk])\n"
     "                T.writes(B[vj_0 * 16 + vj_1 - 1])\n"
     "                B[vj_0 * 16 + vj_1 - 1] = A[vi, vk] + T.float32(0.10000000000000001)\n"},
    {"remap over loops with a non-zero min",
     "# from tvm.script import tir as T\n"
     "\n"
     "@T.prim_func\n"
     "def main(A: T.Buffer((16, 16), \"int32\"), B: T.Buffer((16,), \"int32\")):\n"
     "    # with T.block(\"root\"):\n"
     "    for i in range(16):\n"
     "        for k0 in range(2, 6):\n"
     "            for k1 in range(1, 4):\n"
     "                with T.block(\"B\"):\n"
     "                    vi, vk0, vk1 = T.axis.remap(\"SRR\", [i, k0, k1])\n"
     "                    T.reads(A[vi, vk0 * 2 + vk1])\n"
     "                    T.writes(B[vi])\n"
     "                    with T.init():\n"
     "                        B[vi] = 1000\n"
     "                    B[vi] = B[vi] + A[vi, vk0 * 2 + vk1]\n"},
};

static void fixed_point(tsl_arena *a, const char *name, const char *text) {
  const tsl_module *m = NULL;
  tsl_diag diag = {0};
  int rc = tsl_parse(a, name, text, strlen(text), &m, &diag);
  if (!ok(rc == TSL_OK && m, "%s: parses", name)) {
    tap_diag("%s", diag.text);
    tap_skip("did not parse", "prints back unchanged");
    return;
  }
  char *got = tsl_print_module(m);
  is_str(got, text, "%s: prints back unchanged", name);
  free(got);
}

int main(void) {
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *a = tsl_arena_new(ctx);
  for (size_t i = 0; i < sizeof print_cases / sizeof print_cases[0]; i++)
    roundtrip(a, print_cases[i].name, print_cases[i].build(a));
  for (size_t i = 0; i < sizeof tvm_texts / sizeof tvm_texts[0]; i++)
    fixed_point(a, tvm_texts[i].name, tvm_texts[i].text);
  tsl_arena_free(a);
  tsl_ctx_free(ctx);
  return tap_done();
}
