/*
 * The cuda target's design space against its toolchain, without a GPU: for
 * each workload below and a few seeds, every sketch of the cuda default
 * rules (TVM's DefaultCUDA) is replayed with its decisions and put through
 * the default postprocessors, as a tuning run does. A candidate they keep
 * is lowered and made ready for the GPU; its CUDA C must compile with NVRTC
 * for sm_80 and sm_90, and ptxas must report for it the shared memory its
 * program declares, within VerifyGPUCode's 48 KiB, and at most 255
 * registers a thread. A candidate VerifyGPUCode rejects for its shared
 * memory must be one NVRTC refuses too (static shared memory past 48 KiB).
 * Per workload at least one candidate must be kept, and each kept one of
 * the workloads small enough computes the original's values in the
 * interpreter with the iterations of its thread-bound loops in natural,
 * shuffled and reversed order (the race oracle); a tensor-core candidate
 * is interpreted before RewriteTensorize (the WMMA calls do not
 * interpret: cuda-emu runs them). The float16 and int8 workloads'
 * candidates must all use tensor cores (MultiLevelTilingTensorCore, TVM's
 * DefaultCUDATensorCore list); shared.dyn is the launch's, not ptxas's.
 * The light (sanitizer) pass compiles for sm_90 alone, compiles and
 * interprets the first LIGHT_CHECKED kept candidates of each sketch of a
 * workload alone (it samples and postprocesses them all), and runs the
 * race oracle in the shuffled order alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_internal.h"
#include "cuda_test_util.h"
#include "equiv_orders.h"
#include "tap.h"
#include "tessel/tessel.h"

static const char *const workloads[] = {"matmul_64", "batch_matmul_1x128", "softmax_256",
                                        "gelu", "conv2d_nhwc", "layer_norm", "matmul_fp16_gpu",
                                        "batch_matmul_fp16_gpu", "conv2d_nhwc_fp16_gpu",
                                        "matmul_int8_gpu"};
enum { SEEDS = 6, LIGHT_CHECKED = 2, MAX_SKETCHES = 16 };

typedef struct tally {
  int kept, checked, compiled, smem_ok, refused_smem, refused_other, nvrtc_agrees, interp, interp_ok;
  int tensor_core; /* kept candidates calling T.tvm_mma_sync */
} tally;

/* The postprocessors, and where VerifyGPUCode and RewriteTensorize stand. */
typedef struct pp_list {
  const tsl_space_postproc *pps;
  uint32_t n, verify, tensorize;
} pp_list;

/* All postprocessors but the one at `skip` (n: none). */
static int apply_but(tsl_schedule *s, const pp_list *l, uint32_t skip, tsl_diag *d) {
  int rc = tsl_space_apply_postprocs(s, skip < l->n ? skip : l->n, l->pps, d);
  for (uint32_t i = skip + 1; i < l->n && !rc; i++) /* after enter_postproc, in order */
    rc = l->pps[i].vtable->apply(l->pps[i].pp, s, d);
  return rc;
}

static int calls_mma(const tsl_expr *e, void *ud) {
  (void)ud;
  return e->kind == TSL_EXPR_BUILTIN && e->intrin == TSL_BUILTIN_TVM_MMA_SYNC;
}
static int uses_mma(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  (void)owner;
  return tsl_expr_visit(e, calls_mma, ud);
}

static const tsl_rule_target cuda = {sizeof cuda, "cuda", 2, 16, NULL};

/* A candidate's program made ready for the GPU and its CUDA C, in an arena
 * of its own (free with gpu_free). */
typedef struct gpu_source {
  tsl_ctx *ctx;
  tsl_arena *arena;
  tcu_program p;
  tsl_strbuf dev;
  tsl_diag d;
  int rc;
} gpu_source;

static void gpu_make(gpu_source *g, const tsl_func *f) {
  memset(g, 0, sizeof *g);
  g->ctx = tsl_ctx_new();
  g->arena = tsl_arena_new(g->ctx);
  tsl_strbuf_init(&g->dev);
  const tsl_lowered_func *lf = NULL;
  g->rc = tsl_lower_func(g->arena, f, NULL, &lf, &g->d);
  const tsl_lowered_func *one[1] = {lf};
  tsl_lowered_module m = {sizeof m, 1, one, 0, NULL};
  g->rc = g->rc ? g->rc : tcu_program_make(g->arena, &m, "k", &g->p, &g->d);
  g->rc = g->rc ? g->rc : tcu_emit_device(&g->p, &g->dev, &g->d);
}

static void gpu_free(gpu_source *g) {
  tsl_strbuf_free(&g->dev);
  if (g->p.kernels)
    tcu_program_free(&g->p);
  tsl_arena_free(g->arena);
  tsl_ctx_free(g->ctx);
}

/* A kept candidate: NVRTC for both architectures (the light pass: sm_90),
 * ptxas against the program's shared memory. */
static void compile_kept(const tsl_func *f, const char *tmp, tally *t, const char *id) {
  gpu_source g;
  gpu_make(&g, f);
  int both = !g.rc;
  long smem = -1, regs = -1;
  for (int32_t arch = tap_light() ? 90 : 80; !g.rc && arch <= 90; arch += 10) {
    tcu_image img = {0};
    if (tcu_nvrtc_compile(g.dev.data, id, arch, &img, &g.d)) {
      both = 0;
    } else if (arch == 90) {
      char log[4096];
      if (ptxas(&img, tmp, &smem, &regs, log, sizeof log))
        both = 0;
    }
    tcu_image_free(&img);
  }
  t->compiled += both;
  int64_t want = both ? shared_bytes(g.p.funcs[0]->body) : -2;
  if (both && smem == want && smem <= 49152 && regs > 0 && regs <= 255)
    t->smem_ok++;
  else
    tap_diag("%s: %s (ptxas: %ld bytes of shared memory, the program's %lld; %ld registers)",
             id, both ? "unexpected resources" : g.d.text, smem, (long long)want, regs);
  gpu_free(&g);
}

/* A candidate VerifyGPUCode refused for its shared memory: NVRTC refuses it
 * as well (its program without VerifyGPUCode, lowered and compiled), or it
 * asks its launch for more than 48 KiB of dynamic shared memory. */
static int nvrtc_refuses(const tsl_func *f) {
  gpu_source g;
  gpu_make(&g, f);
  tcu_image img = {0};
  int refused = !g.rc && tcu_nvrtc_compile(g.dev.data, "refused", 90, &img, &g.d) != TSL_OK;
  for (uint32_t k = 0; !g.rc && k < g.p.kernels[0].len; k++)
    refused |= TSL_VEC_DATA(&g.p.kernels[0], tcu_kernel)[k].dyn_smem > 49152;
  tcu_image_free(&img);
  gpu_free(&g);
  return refused;
}

/* The tensor-core sketches (TVM's trace: docs/space_conformance.py
 * --kind tensorcore matches TVM's, which needs TVM's sources) against
 * tests/cuda/sketches/NAME.sketch (TESSEL_UPDATE_GOLDEN=1 rewrites it). */
static void golden(tsl_trace **sk, uint32_t n, const char *root, const char *name) {
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  for (uint32_t i = 0; i < n; i++) {
    char *t = tsl_trace_to_script(sk[i], 1);
    tsl_strbuf_printf(&sb, "%s# sketch %u of %u\n%s", i ? "\n" : "", i + 1, n, t ? t : "");
    free(t);
  }
  char path[4200];
  snprintf(path, sizeof path, "%s/tests/cuda/sketches/%s.sketch", root, name);
  const char *up = getenv("TESSEL_UPDATE_GOLDEN");
  FILE *f = up && !strcmp(up, "1") ? fopen(path, "w") : NULL;
  if (f) {
    fputs(sb.data ? sb.data : "", f);
    fclose(f);
  }
  f = fopen(path, "r");
  char *want = NULL;
  size_t len = 0;
  if (f) {
    fseek(f, 0, SEEK_END);
    len = (size_t)ftell(f);
    rewind(f);
    want = calloc(1, len + 1);
    if (want && fread(want, 1, len, f) != len)
      want[0] = '\0';
    fclose(f);
  }
  if (!ok(want && sb.data && !strcmp(want, sb.data), "%s: the tensor-core sketches of seed 0 as "
          "in tests/cuda/sketches/%s.sketch", name, name))
    tap_diag("got:\n%s", sb.data ? sb.data : "");
  free(want);
  tsl_strbuf_free(&sb);
}

static void workload(tsl_ctx *ctx, const tsl_intrin_registry *intrins,
                     const tsl_space_rule *rules, uint32_t n_rules, const pp_list *pl,
                     const char *root, const char *name, const char *tmp) {
  char path[4200];
  snprintf(path, sizeof path, "%s/workloads/%s.py", root, name);
  tsl_arena *arena = tsl_arena_new(ctx);
  tsl_diag d = {0};
  const tsl_module *m = NULL;
  tally t = {0};
  int n_sketches = 0, checked_of_sketch[MAX_SKETCHES] = {0};
  if (tsl_parse_file(arena, path, &m, &d)) {
    ok(0, "%s parses: %s", name, d.text);
    tsl_arena_free(arena);
    return;
  }
  for (uint64_t seed = 0; seed < SEEDS; seed++) {
    tsl_trace **sk = NULL;
    uint32_t n = 0;
    if (tsl_space_generate(ctx, m, NULL, n_rules, rules, seed, intrins, &sk, &n, &d)) {
      ok(0, "%s: the cuda rules derive its space: %s", name, d.text);
      break;
    }
    n_sketches = (int)n;
    if (seed == 0 && (strstr(name, "_fp16_gpu") || strstr(name, "_int8_gpu")))
      golden(sk, n, root, name);
    for (uint32_t i = 0; i < n; i++) {
      char id[160];
      snprintf(id, sizeof id, "%s seed %llu sketch %u", name, (unsigned long long)seed, i);
      tsl_replay_opts ro = {sizeof ro, 0, seed, NULL, intrins};
      tsl_schedule *s = NULL, *bare = NULL;
      tsl_diag pd = {0};
      int rc = tsl_trace_replay(ctx, sk[i], m, &ro, &s, &pd);
      if (!rc)
        rc = tsl_space_apply_postprocs(s, pl->n, pl->pps, &pd);
      int tc = 0;
      if (!rc) {
        tsl_stmt_visitor mv = {.expr = uses_mma};
        tc = tsl_stmt_visit(tsl_schedule_func(s)->body, &mv) != 0;
        t.tensor_core += tc;
        t.kept++;
      }
      if (!rc && tap_light() && i < MAX_SKETCHES && checked_of_sketch[i] >= LIGHT_CHECKED) {
        /* sampled and postprocessed; the light pass checks no more */
      } else if (!rc) {
        t.checked++;
        checked_of_sketch[i < MAX_SKETCHES ? i : 0]++;
        compile_kept(tsl_schedule_func(s), tmp, &t, id);
        double flops = tsl_func_flops(m->funcs[0]);
        /* a tensor-core candidate: its program before RewriteTensorize */
        tsl_schedule *plain = NULL;
        if (tc && (tsl_trace_replay(ctx, sk[i], m, &ro, &plain, &pd) ||
                   apply_but(plain, pl, pl->tensorize, &pd)))
          tap_diag("%s: before RewriteTensorize: %s", id, pd.text);
        if (flops >= 0 && flops < (tc ? 1 << 23 : 1 << 21) && (!tc || plain)) {
          tsl_interp_opts io = {sizeof io, equiv_orders(), seed + 1};
          tsl_equiv_report rep;
          t.interp++;
          if (!tsl_interp_check_equivalent_opts(m->funcs[0], tsl_schedule_func(tc ? plain : s),
                                                NULL, 0, seed + 1, &io, &rep, &pd))
            t.interp_ok++;
          else
            tap_diag("%s: %s", id, pd.text);
        }
        tsl_schedule_free(plain);
      } else if (strstr(pd.text, "VerifyGPUCode") && strstr(pd.text, "bytes of shared memory")) {
        t.refused_smem++;
        /* the same candidate without VerifyGPUCode */
        if (!tsl_trace_replay(ctx, sk[i], m, &ro, &bare, &pd) &&
            !apply_but(bare, pl, pl->verify, &pd))
          t.nvrtc_agrees += nvrtc_refuses(tsl_schedule_func(bare));
      } else {
        t.refused_other++;
      }
      tsl_schedule_free(s);
      tsl_schedule_free(bare);
      tsl_trace_free(sk[i]);
    }
    free(sk);
  }
  ok(t.kept > 0, "%s: %d sketches x %d seeds: %d kept, %d refused by VerifyGPUCode for shared "
     "memory, %d otherwise", name, n_sketches, SEEDS, t.kept, t.refused_smem, t.refused_other);
  ok(t.compiled == t.checked, "%s: every kept candidate checked compiles with NVRTC for %s "
     "(%d of %d)", name, tap_light() ? "sm_90" : "sm_80 and sm_90", t.compiled, t.checked);
  ok(t.smem_ok == t.checked, "%s: ptxas reports the program's shared memory, within 48 KiB, and "
     "at most 255 registers (%d of %d)", name, t.smem_ok, t.checked);
  ok(t.interp_ok == t.interp, "%s: the kept candidates compute the original's values with "
     "thread loops in %s (%d of %d checked)", name,
     tap_light() ? "a shuffled order" : "every order", t.interp_ok, t.interp);
  ok(t.nvrtc_agrees == t.refused_smem, "%s: NVRTC refuses every candidate VerifyGPUCode refused "
     "for its shared memory, or its launch asks for more than 48 KiB (%d of %d)", name,
     t.nvrtc_agrees, t.refused_smem);
  if (strstr(name, "_fp16_gpu") || strstr(name, "_int8_gpu"))
    ok(t.tensor_core == t.kept, "%s: every kept candidate computes on tensor cores (%d of %d)",
       name, t.tensor_core, t.kept);
  else /* float32: no WMMA group matches, MultiLevelTiling's space */
    ok(t.tensor_core == 0, "%s: no candidate uses tensor cores (%d)", name, t.tensor_core);
  tsl_arena_free(arena);
}

int main(void) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  char tmp[] = "/tmp/tessel-cuda-sketches-XXXXXX";
  if (!root || !mkdtemp(tmp)) {
    ok(0, "TESSEL_SOURCE_ROOT and a temporary folder");
    return tap_done();
  }
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_registry *reg = NULL;
  tsl_diag d = {0};
  tsl_space_rule *rules = NULL;
  tsl_space_postproc *pps = NULL;
  uint32_t n_rules = 0, n_pps = 0;
  unsetenv("TESSEL_PLUGIN_PATH");
  if (tsl_registry_new(ctx, &reg, &d) || tsl_registry_load_default(reg, 0, NULL, &d) ||
      tsl_space_default_rules(reg, &cuda, &rules, &n_rules, &d) ||
      tsl_space_default_postprocs(reg, &cuda, &pps, &n_pps, &d)) {
    ok(0, "the cuda target's default space: %s", d.text);
    return tap_done();
  }
  pp_list pl = {pps, n_pps, n_pps, n_pps};
  for (uint32_t i = 0; i < n_pps; i++) {
    if (!strcmp(pps[i].name, "VerifyGPUCode"))
      pl.verify = i;
    if (!strcmp(pps[i].name, "RewriteTensorize"))
      pl.tensorize = i;
  }
  tsl_intrin_registry *intrins = NULL;
  tsl_arena *ia = tsl_arena_new(ctx);
  ok(pl.verify < n_pps && pl.tensorize == n_pps - 1 && !tsl_registry_intrins(reg, ia, &intrins, &d),
     "the cuda target's %u rules and %u postprocessors, VerifyGPUCode among them, "
     "RewriteTensorize last; the registry's tensor intrinsics", n_rules, n_pps);
  for (size_t i = 0; i < sizeof workloads / sizeof *workloads; i++)
    workload(ctx, intrins, rules, n_rules, &pl, root, workloads[i], tmp);
  tsl_intrin_registry_free(intrins);
  tsl_arena_free(ia);
  tsl_space_rules_free(rules, n_rules);
  tsl_space_postprocs_free(pps, n_pps);
  tsl_registry_free(reg);
  tsl_ctx_free(ctx);
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  if (system(cmd) != 0)
    tap_diag("could not remove %s", tmp);
  return tap_done();
}
