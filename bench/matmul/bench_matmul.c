/*
 * bench_matmul: float32 C = A @ B (N x N x N) compiled by the llvm target,
 * against OpenBLAS sgemm, for N = 128, 512, 1024, 2048 at 1 and 2 threads.
 *
 * Variants: the naive program, the seeds' schedule_mm (schedule_mm.sch) and
 * a hand-written expert schedule (expert.sch). Every cell is timed by the
 * runner (forked worker, warm-up, number grown to min_repeat_ms) once per
 * round; rounds interleave all cells so that the machine's drift hits every
 * cell alike, and the table reports the median over rounds (cells slower
 * than 1 s a call: 3 rounds, no warm-up call). The first round
 * also checks every tessel kernel's output against OpenBLAS's.
 *
 * A first table gives the compile time per kernel (codegen + O3 + JIT),
 * median over 20 builds, interleaved across kernels, with the thread's CPU
 * time and the ratio to the naive kernel's compile at the same size.
 *
 * usage: bench_matmul ROOT [--sizes 128,512] [--rounds N] [--compiles N]
 * On AVX-512 CPUs OpenBLAS needs OPENBLAS_CORETYPE=SkylakeX (it falls back
 * to slow kernels otherwise); the program sets it and re-executes itself
 * (bench_openblas_env). Other CPUs keep OpenBLAS's own detection or the
 * user's value (SkylakeX kernels would not run there).
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tessel/tessel.h"
#include "../bench_util.h"

void openblas_set_num_threads(int n);

enum { MAX_SIZES = 8, N_VARIANTS = 4, V_NAIVE = 0, V_MM, V_EXPERT, V_BLAS };
static const char *const variant_names[N_VARIANTS] = {"naive", "schedule_mm",
                                                      "expert", "OpenBLAS"};
static const char *const variant_scripts[N_VARIANTS] = {
    NULL, "bench/matmul/schedule_mm.sch", "bench/matmul/expert.sch", NULL};

/* OpenBLAS through the packed calling convention; the size and the thread
 * count are baked into one function per cell. */
#define BLAS_FN(n, t)                                                          \
  static int32_t blas_##n##_##t(void *const *args) {                          \
    openblas_set_num_threads(t);                                               \
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,      \
                args[0], n, args[1], n, 0.0f, args[2], n);                     \
    return 0;                                                                  \
  }
BLAS_FN(128, 1) BLAS_FN(128, 2) BLAS_FN(256, 1) BLAS_FN(256, 2)
BLAS_FN(512, 1) BLAS_FN(512, 2) BLAS_FN(1024, 1) BLAS_FN(1024, 2)
BLAS_FN(2048, 1) BLAS_FN(2048, 2)

static tsl_packed_fn blas_fn(int n, int threads) {
  static const struct { int n, t; tsl_packed_fn fn; } table[] = {
      {128, 1, blas_128_1},   {128, 2, blas_128_2},   {256, 1, blas_256_1},
      {256, 2, blas_256_2},   {512, 1, blas_512_1},   {512, 2, blas_512_2},
      {1024, 1, blas_1024_1}, {1024, 2, blas_1024_2}, {2048, 1, blas_2048_1},
      {2048, 2, blas_2048_2}};
  for (size_t k = 0; k < sizeof table / sizeof table[0]; k++)
    if (table[k].n == n && table[k].t == threads)
      return table[k].fn;
  return NULL;
}

static char *matmul_source(int n) {
  char *s = malloc(1024);
  snprintf(s, 1024,
           "@T.prim_func\n"
           "def main(A: T.Buffer((%d, %d), \"float32\"), B: T.Buffer((%d, %d), "
           "\"float32\"), C: T.Buffer((%d, %d), \"float32\")):\n"
           "    for i, j, k in T.grid(%d, %d, %d):\n"
           "        with T.block(\"C\"):\n"
           "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
           "            with T.init():\n"
           "                C[vi, vj] = T.float32(0)\n"
           "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n",
           n, n, n, n, n, n, n, n, n);
  return s;
}


static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


static void die(const char *what, const tsl_diag *d) {
  fprintf(stderr, "bench_matmul: %s: %s\n", what, d->text);
  exit(2);
}

/* One kernel: a variant at a size and thread count. */
typedef struct cell {
  int n, threads, variant;
  const tsl_lowered_func *lf;
  tsl_packed_fn fn;
  double times[64];
  int n_times;
  int32_t check;
  double max_err;
  char failure[128];
} cell;

static char *read_text(const char *root, const char *rel) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  char *text = NULL;
  size_t len = 0;
  tsl_diag d = {0};
  if (tsl_read_file(path, &text, &len, &d) != TSL_OK)
    die(path, &d);
  return text;
}

/* Parse, schedule (script may be NULL) and lower the N x N matmul. */
static const tsl_lowered_module *prepare(tsl_ctx *ctx, tsl_arena *arena,
                                         const char *root, int n,
                                         const char *script) {
  tsl_diag d = {0};
  char *src = matmul_source(n);
  const tsl_module *m = NULL;
  if (tsl_parse(arena, "matmul.py", src, strlen(src), &m, &d) != TSL_OK)
    die("parse", &d);
  free(src);
  if (script) {
    tsl_schedule *sch = NULL;
    char *text = read_text(root, script);
    if (tsl_schedule_new(ctx, m, NULL, &sch, &d) != TSL_OK ||
        tsl_script_run(sch, script, text, strlen(text), &d) != TSL_OK)
      die(script, &d);
    m = tsl_schedule_module(sch); /* lives in the schedule's arena */
    free(text);
    const tsl_lowered_module *lm = NULL;
    if (tsl_lower_module(arena, m, NULL, &lm, &d) != TSL_OK)
      die("lower", &d);
    /* The lowered module references the scheduled module's nodes, which
     * the schedule owns; keep the schedule alive for the whole run. */
    return lm;
  }
  const tsl_lowered_module *lm = NULL;
  if (tsl_lower_module(arena, m, NULL, &lm, &d) != TSL_OK)
    die("lower", &d);
  return lm;
}

int main(int argc, char **argv) {
  if (bench_openblas_env(argv))
    return 2;
  const char *root = argc > 1 ? argv[1] : ".";
  int sizes[MAX_SIZES] = {128, 512, 1024, 2048}, n_sizes = 4;
  int rounds = 5, compiles = 20;
  for (int a = 2; a < argc; a++) {
    if (!strcmp(argv[a], "--sizes") && a + 1 < argc) {
      n_sizes = 0;
      for (char *t = strtok(argv[++a], ","); t && n_sizes < MAX_SIZES;
           t = strtok(NULL, ","))
        sizes[n_sizes++] = atoi(t);
    } else if (!strcmp(argv[a], "--rounds") && a + 1 < argc) {
      rounds = atoi(argv[++a]);
    } else if (!strcmp(argv[a], "--compiles") && a + 1 < argc) {
      compiles = atoi(argv[++a]);
    } else {
      fprintf(stderr, "usage: bench_matmul ROOT [--sizes 128,512,...] "
                      "[--rounds N] [--compiles N]\n");
      return 2;
    }
  }
  if (rounds < 1 || rounds > 64 || compiles < 1) {
    fprintf(stderr, "bench_matmul: --rounds must be 1..64, --compiles >= 1\n");
    return 2;
  }
  for (int s = 0; s < n_sizes; s++)
    if (!blas_fn(sizes[s], 1)) {
      fprintf(stderr, "bench_matmul: size %d not available (128, 256, 512, "
                      "1024, 2048)\n", sizes[s]);
      return 2;
    }

  tsl_diag d = {0};
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  tsl_registry *reg = NULL;
  if (tsl_registry_new(ctx, &reg, &d) != TSL_OK ||
      tsl_registry_load_default(reg, 0, NULL, &d) != TSL_OK)
    die("plugins", &d);
  const tsl_component *comp = NULL;
  if (tsl_registry_require(reg, TSL_COMPONENT_TARGET, "llvm", &comp, &d))
    die("target", &d);
  const tsl_target_vtable *vt = comp->vtable;
  tsl_target *targets[3] = {NULL, NULL, NULL};
  for (int t = 1; t <= 2; t++) {
    char threads[8];
    snprintf(threads, sizeof threads, "%d", t);
    tsl_kv opt = {"threads", threads};
    if (vt->create(comp->user_data, 1, &opt, &targets[t], &d) != TSL_OK)
      die("target create", &d);
  }
  printf("target: %s\n", vt->describe(targets[2]));
  printf("OpenBLAS: OPENBLAS_CORETYPE=%s\n\n",
         getenv("OPENBLAS_CORETYPE") ? getenv("OPENBLAS_CORETYPE")
                                     : "(unset: OpenBLAS detects the core itself)");

  /* Lower every kernel, then time the compiles interleaved: build r of
   * every kernel before build r + 1 of any, so drift hits all alike. */
  enum { MAX_KERNELS = MAX_SIZES * (N_VARIANTS - 1), MAX_REPS = 64 };
  const tsl_lowered_module *lms[MAX_SIZES][N_VARIANTS] = {{NULL}};
  static double cg[MAX_KERNELS][MAX_REPS], op[MAX_KERNELS][MAX_REPS],
      jt[MAX_KERNELS][MAX_REPS], tot[MAX_KERNELS][MAX_REPS],
      cpu[MAX_KERNELS][MAX_REPS];
  int reps = compiles < MAX_REPS ? compiles : MAX_REPS;
  for (int s = 0; s < n_sizes; s++)
    for (int v = 0; v < V_BLAS; v++)
      lms[s][v] = prepare(ctx, arena, root, sizes[s], variant_scripts[v]);
  for (int r = 0; r < reps; r++)
    for (int s = 0; s < n_sizes; s++)
      for (int v = 0; v < V_BLAS; v++) {
        int kx = s * V_BLAS + v;
        tsl_kernel *k = NULL;
        tsl_build_stats st = {sizeof st, -1, -1, -1};
        double t0 = bench_now(), c0 = cpu_s();
        if (vt->build(targets[2], lms[s][v], &k, &st, &d) != TSL_OK)
          die("build", &d);
        tot[kx][r] = (bench_now() - t0) * 1e3;
        cpu[kx][r] = (cpu_s() - c0) * 1e3;
        cg[kx][r] = st.codegen_s * 1e3;
        op[kx][r] = st.optimize_s * 1e3;
        jt[kx][r] = st.jit_s * 1e3;
        vt->kernel_free(k);
      }
  printf("compile time per kernel (codegen + O3 + JIT), median of %d builds "
         "interleaved across kernels, threads=2; CPU ms is the thread's CPU "
         "time (less inflated by a busy host)\n",
         reps);
  printf("%6s  %-12s %10s %10s %10s %10s %10s %9s\n", "N", "variant",
         "codegen ms", "O3 ms", "JIT ms", "total ms", "CPU ms", "/ naive");
  for (int s = 0; s < n_sizes; s++)
    for (int v = 0; v < V_BLAS; v++) {
      int kx = s * V_BLAS + v;
      double total = bench_median(tot[kx], reps);
      double naive = bench_median(tot[s * V_BLAS + V_NAIVE], reps);
      printf("%6d  %-12s %10.2f %10.2f %10.2f %10.2f %10.2f %8.2fx\n",
             sizes[s], variant_names[v], bench_median(cg[kx], reps),
             bench_median(op[kx], reps), bench_median(jt[kx], reps), total,
             bench_median(cpu[kx], reps), total / naive);
    }

  cell cells[MAX_SIZES * 2 * N_VARIANTS];
  int n_cells = 0;
  for (int s = 0; s < n_sizes; s++) {
    int n = sizes[s];
    for (int v = 0; v < N_VARIANTS; v++) {
      const tsl_lowered_module *lm = lms[s][v];
      for (int t = 1; t <= 2; t++) {
        cell *c = &cells[n_cells++];
        memset(c, 0, sizeof *c);
        c->n = n, c->threads = t, c->variant = v;
        if (v == V_BLAS) {
          c->fn = blas_fn(n, t);
          /* the naive kernel's lowered function describes the parameters */
          c->lf = cells[n_cells - 1 - 2 * V_BLAS].lf;
          continue;
        }
        tsl_kernel *k = NULL;
        if (vt->build(targets[t], lm, &k, NULL, &d) != TSL_OK)
          die("build", &d);
        c->lf = lm->funcs[0];
        c->fn = vt->lookup(k, "main");
        if (!c->fn) {
          fprintf(stderr, "bench_matmul: kernel has no function main\n");
          return 2;
        }
      }
    }
  }
  fflush(stdout);

  /* Interleaved rounds. */
  for (int r = 0; r < rounds; r++) {
    fprintf(stderr, "round %d/%d\n", r + 1, rounds);
    for (int k = 0; k < n_cells; k++) {
      cell *c = &cells[k];
      /* Slow cells (the naive kernels at 2048 take tens of seconds a call)
       * get no warm-up call and at most 3 rounds. */
      int slow = c->n_times && c->times[0] > 1.0;
      if (c->failure[0] || (slow && c->n_times >= 3))
        continue;
      tsl_run_opts o;
      tsl_run_opts_default(&o);
      o.warmup = slow ? 0 : 1;
      o.number = 1;
      o.repeat = 1;
      o.min_repeat_ms = 200;
      o.timeout_s = 600;
      tsl_reference ref = {sizeof ref, NULL, blas_fn(c->n, 2)};
      tsl_run_result res;
      memset(&res, 0, sizeof res);
      res.struct_size = sizeof res;
      int check = r == 0 && c->variant != V_BLAS;
      if (tsl_run_packed(c->lf, c->fn, check ? &ref : NULL, &o, &res, &d) !=
          TSL_OK)
        die("run", &d);
      if (res.status != TSL_RUN_OK) {
        snprintf(c->failure, sizeof c->failure, "%s: %.100s",
                 tsl_run_status_name(res.status), res.error);
        continue;
      }
      if (check) {
        c->check = res.check;
        c->max_err = res.max_abs_err;
      }
      c->times[c->n_times++] = res.median_s;
    }
  }

  printf("\nfloat32 matmul, GFLOPS (median of %d interleaved rounds; cells "
         "slower than 1 s a call: %d) and ratio to OpenBLAS at the same size "
         "and threads\n", rounds, rounds < 3 ? rounds : 3);
  printf("%6s %7s", "N", "threads");
  for (int v = 0; v < N_VARIANTS; v++)
    printf(" %20s", variant_names[v]);
  printf("\n");
  double expert_ratio_1024_2 = -1;
  for (int k = 0; k < n_cells; k += 0) {
    /* cells are ordered size, variant, threads: gather one row per
     * (size, threads) */
    int n = cells[k].n;
    for (int t = 1; t <= 2; t++) {
      printf("%6d %7d", n, t);
      double blas = 0;
      const cell *row[N_VARIANTS];
      for (int v = 0; v < N_VARIANTS; v++)
        row[v] = &cells[k + 2 * v + (t - 1)];
      if (row[V_BLAS]->n_times) {
        double tmp[64];
        memcpy(tmp, row[V_BLAS]->times, sizeof(double) * row[V_BLAS]->n_times);
        blas = 2.0 * n * n * n / bench_median(tmp, row[V_BLAS]->n_times) * 1e-9;
      }
      for (int v = 0; v < N_VARIANTS; v++) {
        const cell *c = row[v];
        if (!c->n_times) {
          printf(" %20s", "failed");
          continue;
        }
        double tmp[64];
        memcpy(tmp, c->times, sizeof(double) * c->n_times);
        double gf = 2.0 * n * n * n / bench_median(tmp, c->n_times) * 1e-9;
        char buf[64];
        if (v == V_BLAS)
          snprintf(buf, sizeof buf, "%.1f", gf);
        else
          snprintf(buf, sizeof buf, "%.1f (%.3fx)%s", gf, blas > 0 ? gf / blas : 0,
                   c->check == TSL_CHECK_OK ? "" : " !");
        printf(" %20s", buf);
        if (v == V_EXPERT && n == 1024 && t == 2 && blas > 0)
          expert_ratio_1024_2 = gf / blas;
      }
      printf("\n");
    }
    k += 2 * N_VARIANTS;
  }
  int bad = 0;
  for (int k = 0; k < n_cells; k++) {
    const cell *c = &cells[k];
    if (c->failure[0]) {
      printf("FAILED: N=%d threads=%d %s: %s\n", c->n, c->threads,
             variant_names[c->variant], c->failure);
      bad = 1;
    } else if (c->variant != V_BLAS && c->check != TSL_CHECK_OK) {
      printf("CHECK: N=%d threads=%d %s: %s (max abs err %.3g)\n", c->n,
             c->threads, variant_names[c->variant], tsl_check_name(c->check),
             c->max_err);
      bad = 1;
    }
  }
  if (!bad)
    printf("every tessel kernel matched OpenBLAS's output (first round)\n");
  if (expert_ratio_1024_2 >= 0)
    printf("expert schedule at N=1024, 2 threads: %.3fx OpenBLAS (goal: at "
           "least 0.5x) -> %s\n", expert_ratio_1024_2,
           expert_ratio_1024_2 >= 0.5 ? "reached" : "NOT reached");
  for (int t = 1; t <= 2; t++)
    vt->destroy(targets[t]);
  tsl_registry_free(reg);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return bad;
}
