/*
 * tsl_export_header: golden text for a module of three hand-made lowered
 * functions (constant shapes, a symbolic size, scalar parameters), the
 * header compiles as C17 and C++, bad prefixes are refused.
 * TESSEL_UPDATE_GOLDEN=1 rewrites the golden file.
 */
#include "tap.h"

#include "tessel/tessel.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const srcs[] = {
    "@T.prim_func\n"
    "def matmul(A: T.Buffer((128, 128), \"float32\"), B: T.Buffer((128, 128), \"float32\"),\n"
    "           C: T.Buffer((128, 128), \"float32\")):\n"
    "    for i, j, k in T.grid(128, 128, 128):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                C[vi, vj] = T.float32(0)\n"
    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n",
    "@T.prim_func\n"
    "def rowsum(x: T.handle, S: T.Buffer((4,), \"float64\")):\n"
    "    m = T.int64()\n"
    "    X = T.match_buffer(x, (4, m * 2), \"float64\")\n"
    "    for i, j in T.grid(4, m * 2):\n"
    "        with T.block(\"S\"):\n"
    "            vi, vj = T.axis.remap(\"SR\", [i, j])\n"
    "            with T.init():\n"
    "                S[vi] = T.float64(0)\n"
    "            S[vi] = S[vi] + X[vi, vj]\n",
    "@T.prim_func\n"
    "def axpb(A: T.Buffer((64,), \"int8\"), B: T.Buffer((64,), \"float16\"), alpha: T.float32,\n"
    "         n: T.int32, int: T.Buffer((64,), \"int32\")):\n"
    "    for i in range(64):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(64, i)\n"
    "            int[vi] = T.Cast(\"int32\", A[vi]) + n\n",
};
enum { NF = 3 };

static char *read_all(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  size_t got = fread(s, 1, (size_t)n, f);
  s[got] = '\0';
  fclose(f);
  return s;
}

int main(void) {
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  tsl_lowered_func lf[NF];
  const tsl_lowered_func *fs[NF];
  const tsl_var *size_vars[1];
  for (int i = 0; i < NF; i++) {
    const tsl_module *m = NULL;
    tsl_diag d = {0};
    if (tsl_parse(arena, "t.py", srcs[i], strlen(srcs[i]), &m, &d) != TSL_OK) {
      tap_diag("%s", d.text);
      return 1;
    }
    const tsl_func *f = m->funcs[0];
    memset(&lf[i], 0, sizeof lf[i]);
    lf[i].struct_size = sizeof lf[i];
    lf[i].name = f->name;
    lf[i].source = f;
    lf[i].n_params = f->n_params;
    lf[i].params = f->params;
    lf[i].flops = i == 0 ? 2.0 * 128 * 128 * 128 : -1;
    fs[i] = &lf[i];
  }
  /* rowsum's size variable m, found in X's shape (m * 2) */
  size_vars[0] = lf[1].source->params[0].buffer->shape[1]->args[0]->u.var;
  lf[1].n_size_vars = 1;
  lf[1].size_vars = size_vars;
  tsl_lowered_module lm = {sizeof lm, NF, fs, 0, NULL};

  char *h = tsl_export_header(&lm, "mm");
  ok(h != NULL, "header generated");
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  char golden[4096];
  snprintf(golden, sizeof golden, "%s/tests/run/golden/libmm.h", root ? root : ".");
  if (getenv("TESSEL_UPDATE_GOLDEN")) {
    FILE *f = fopen(golden, "w");
    fputs(h, f);
    fclose(f);
  }
  char *want = read_all(golden);
  is_str(h, want, "header matches %s", golden);
  ok(h && strstr(h, "int32_t mm_matmul(const float *A, const float *B, float *C);"),
     "matmul: const inputs, written output, int32_t status");
  ok(h && strstr(h, "int32_t mm_rowsum(const double *X, double *S, int64_t m);"),
     "symbolic size as a trailing int64_t");
  ok(h && strstr(h, "X: float64[4, m * 2]"), "shape comment keeps the symbolic expression");
  ok(h && strstr(h, "float alpha, int32_t n, int32_t *int_"),
     "scalars by value in their dtype; a keyword name gets an underscore");
  ok(h && strstr(h, "int32_t mm_axpb_packed(void *const *args);"), "packed entry declared");

  /* The header compiles as C17 (with -Wall -Werror) and as C++. */
  char dir[] = "/tmp/tessel_hdrXXXXXX";
  ok(mkdtemp(dir) != NULL, "temp dir");
  char path[256], cmd[1024];
  snprintf(path, sizeof path, "%s/libmm.h", dir);
  FILE *f = fopen(path, "w");
  fputs(h ? h : "", f);
  fclose(f);
  snprintf(path, sizeof path, "%s/use.c", dir);
  f = fopen(path, "w");
  fputs("#include \"libmm.h\"\n#include \"libmm.h\"\n"
        "int32_t (*p)(const float *, const float *, float *) = mm_matmul;\n",
        f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "cc -std=c17 -Wall -Wextra -Werror -fsyntax-only %s/use.c", dir);
  is_int(system(cmd), 0, "compiles as C17, included twice");
  snprintf(cmd, sizeof cmd,
           "command -v c++ >/dev/null || exit 0; c++ -x c++ -Wall -Werror -fsyntax-only %s/use.c",
           dir);
  is_int(system(cmd), 0, "compiles as C++ (extern \"C\")");
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0)
    tap_diag("could not remove %s", dir);

  ok(tsl_export_header(&lm, "9mm") == NULL, "a prefix that is not a C identifier is refused");
  ok(tsl_export_header(&lm, "m-m") == NULL, "  ... nor one with a dash");
  ok(tsl_export_header(NULL, "mm") == NULL, "NULL module: NULL");
  free(h);
  free(want);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return tap_done();
}
