/*
 * The CUDA target without a GPU: tests/cuda/cases/NAME.py (and the GPU
 * workloads named below) lowered and made ready for the GPU. Per case:
 *   - the program with its barriers, printed, equals NAME.expected
 *     (TESSEL_UPDATE_GOLDEN=1 rewrites them; review by eye);
 *   - that program still computes the original's values in the
 *     interpreter (a barrier is a no-op there), thread loops in order
 *     (without the cross-thread reductions' allreduce calls, device code
 *     the interpreter cannot run: cuda-emu runs those);
 *   - its CUDA C compiles with NVRTC for sm_80 and sm_90 (PTX and cubin);
 *   - ptxas assembles the sm_90 PTX and reports as much shared memory as
 *     the program's static shared buffers take (shared.dyn is the
 *     launch's), and registers per thread;
 *   - the host C compiles with the system C compiler.
 * Then programs the target must refuse, with their messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_internal.h"
#include "cuda_test_util.h"
#include "lower/lower_util.h"
#include "tap.h"
#include "test_files.h"
#include "tessel/tessel.h"
#include "tessel/visit.h"

static const char *const workloads[] = {"matmul_gpu_shared"};

static void run_case(tsl_ctx *ctx, const char *file, const char *expected_path,
                     const char *name, int update, const char *tmp) {
  tsl_arena *arena = tsl_arena_new(ctx);
  tsl_diag d = {0};
  const tsl_module *m = NULL;
  const tsl_lowered_module *lm = NULL;
  tcu_program p = {0};
  if (!ok(!tsl_parse_file(arena, file, &m, &d) && !tsl_lower_module(arena, m, NULL, &lm, &d),
          "%s: parses and lowers", name) ||
      !ok(!tcu_program_make(arena, lm, "k", &p, &d), "%s: barriers and kernels", name)) {
    tap_diag("%s", d.text);
    tsl_arena_free(arena);
    return;
  }
  tsl_strbuf got;
  tsl_strbuf_init(&got);
  int64_t want_smem = 0;
  for (uint32_t i = 0; i < p.n_funcs; i++) {
    char *t = tsl_lowered_print(p.funcs[i]);
    tsl_strbuf_append(&got, t ? t : "(null)\n");
    free(t);
    want_smem += shared_bytes(p.funcs[i]->body);
    char why[600];
    double err;
    tsl_binding binds[1] = {{"n", 3}};
    /* the barriers alone (the allreduce calls are device code; cuda-emu runs
     * them). Tensor-core programs (wmma_*, mma_*) call builtins the interpreter
     * cannot run: cuda-emu checks them against their unscheduled program. */
    if (!strncmp(name, "wmma_", 5) || !strncmp(name, "mma_", 4))
      continue;
    /* vector code is the CUDA C's business: the interpreter runs the loops */
    const tsl_lower_opts scalar = {sizeof scalar, 0, 0};
    const tsl_lowered_func *synced = NULL, *loops = NULL;
    int bad = tsl_lower_func(arena, tsl_module_find(m, p.funcs[i]->name), &scalar, &loops, &d) ||
              tcu_insert_syncs(arena, loops, &synced, &d) ||
              lu_run_compare(tsl_module_find(m, p.funcs[i]->name), synced, binds, 1, 7, why,
                             sizeof why, &err);
    if (!ok(!bad, "%s: %s with barriers computes the original's values", name,
            p.funcs[i]->name))
      tap_diag("%s", why);
  }
  char *want = lu_slurp(expected_path);
  if (update) {
    FILE *f = fopen(expected_path, "w");
    if (f) {
      fputs(got.data, f);
      fclose(f);
    }
    ok(f != NULL, "%s: golden rewritten", name);
  } else if (!ok(want && !strcmp(want, got.data), "%s: barriers as %s", name, expected_path)) {
    tap_diag("got:\n%s", got.data);
  }
  free(want);
  tsl_strbuf_free(&got);
  tsl_strbuf dev, host;
  tsl_strbuf_init(&dev);
  tsl_strbuf_init(&host);
  if (!ok(!tcu_emit_device(&p, &dev, &d), "%s: CUDA C written", name))
    tap_diag("%s", d.text);
  if (!strcmp(name, "shared_dyn")) { /* 80 floats and 64 halves, 16-byte aligned places */
    const tcu_kernel *k = p.kernels[0].data;
    if (!ok(p.kernels[0].len == 1 && k->dyn_smem == 448 && dev.data &&
            strstr(dev.data, "TSL_DYN_SMEM(tsl_dyn_smem, 448);") &&
            strstr(dev.data, "*)(tsl_dyn_smem + 320);"),
            "%s: one block of 448 bytes of dynamic shared memory, the second buffer at 320", name))
      tap_diag("%s", dev.data ? dev.data : "");
  }
  if (!strcmp(name, "vector_fetch") && /* float4 and 8 halves, a half2, lane by lane */
      !ok(dev.data && strstr(dev.data, "*(uint4 *)(A_s_") && strstr(dev.data, "*(uint4 *)(G_") &&
          strstr(dev.data, "*(unsigned int *)(H_s_") && strstr(dev.data, "l_ < 2; l_++) U_"),
          "%s: aligned copies are one vector access each, the unaligned one goes by lanes", name))
    tap_diag("%s", dev.data);
  if (!strcmp(name, "mma_tile") && /* the lanes' registers, the PTX helpers */
      !ok(dev.data && strstr(dev.data, "half A_warp_") && strstr(dev.data, "[8];") &&
          strstr(dev.data, "tsl_ldmatrix<4, false>(A_warp_") &&
          strstr(dev.data, "tsl_ldmatrix<4, true>(B_warp_") &&
          strstr(dev.data, "tsl_mma_m16n8k16(C_warp_") && strstr(dev.data, " + 4, A_warp_") &&
          strstr(dev.data, "tsl_mma_store_16x16("),
          "%s: warp buffers are 8 registers per lane, the builtins PTX helpers", name))
    tap_diag("%s", dev.data);
  for (int32_t arch = 80; arch <= 90; arch += 10) {
    tcu_image img = {0};
    int rc = tcu_nvrtc_compile(dev.data, name, arch, &img, &d);
    if (!ok(!rc && img.ptx_len > 0 && img.cubin_len > 0, "%s: NVRTC compiles it for sm_%d",
            name, (int)arch)) {
      tap_diag("%s", d.text);
      tap_diag("%s", dev.data);
    }
    if (!rc && !strcmp(name, "mma_tile") &&
        !ok(strstr(img.ptx, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16") &&
            strstr(img.ptx, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32") &&
            !strstr(img.ptx, ".local"), "%s: the sm_%d PTX has ldmatrix and mma.sync, and no "
            "local memory (the registers stay registers)", name, (int)arch))
      tap_diag("%s", img.ptx);
    if (!rc && arch == 90) {
      long smem = 0, regs = 0;
      char log[8192];
      rc = ptxas(&img, tmp, &smem, &regs, log, sizeof log);
      if (!ok(rc == 0 && smem == want_smem && regs > 0,
              "%s: ptxas assembles it: %ld registers, %ld bytes of shared memory (the program's "
              "shared buffers: %lld)", name, regs, smem, (long long)want_smem))
        tap_diag("%s", log);
    }
    tcu_image_free(&img);
  }
  if (ok(!tcu_emit_host(&p, NULL, 90, &host, &d), "%s: host C written", name)) {
    if (!strcmp(name, "shared_dyn") &&
        !ok(strstr(host.data, ", 448LL, a_);") != NULL, "%s: the launch gives it", name))
      tap_diag("%s", host.data);
    char path[600], cmd[1400];
    snprintf(path, sizeof path, "%s/host.c", tmp);
    FILE *f = fopen(path, "w");
    if (f) {
      fputs(host.data, f);
      fclose(f);
    }
    snprintf(cmd, sizeof cmd, "cc -std=gnu11 -Wall -Werror -fsyntax-only '%s' 2>&1", path);
    if (!ok(f && system(cmd) == 0, "%s: the host C compiles", name))
      tap_diag("%s", host.data);
  } else {
    tap_diag("%s", d.text);
  }
  tsl_strbuf_free(&dev);
  tsl_strbuf_free(&host);
  tcu_program_free(&p);
  tsl_arena_free(arena);
}

static void refused(tsl_ctx *ctx, const char *root, const char *file, const char *want) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", root, file);
  tsl_arena *arena = tsl_arena_new(ctx);
  tsl_diag d = {0};
  const tsl_module *m = NULL;
  const tsl_lowered_module *lm = NULL;
  tcu_program p;
  int rc = tsl_parse_file(arena, path, &m, &d) || tsl_lower_module(arena, m, NULL, &lm, &d);
  rc = rc ? rc : tcu_program_make(arena, lm, "k", &p, &d);
  tsl_strbuf dev;
  tsl_strbuf_init(&dev);
  if (!rc) {
    rc = tcu_emit_device(&p, &dev, &d);
    tcu_program_free(&p);
  }
  if (!ok(rc != 0 && strstr(d.text, want), "%s is refused: %s", file, want))
    tap_diag("%s", d.text);
  tsl_strbuf_free(&dev);
  tsl_arena_free(arena);
}

int main(void) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  if (!root) {
    ok(0, "TESSEL_SOURCE_ROOT is set");
    return tap_done();
  }
  int update = getenv("TESSEL_UPDATE_GOLDEN") && !strcmp(getenv("TESSEL_UPDATE_GOLDEN"), "1");
  char tmp[] = "/tmp/tessel-cuda-test-XXXXXX";
  if (!mkdtemp(tmp)) {
    ok(0, "a temporary folder");
    return tap_done();
  }
  char dir[4200], file[4400], exp[4400];
  snprintf(dir, sizeof dir, "%s/tests/cuda/cases", root);
  char *names[64];
  int n = tf_list(dir, ".py", 0, names, 64);
  tsl_ctx *ctx = tsl_ctx_new();
  ok(n >= 6, "%d cases in tests/cuda/cases", n);
  for (int i = 0; i < n; i++) {
    snprintf(file, sizeof file, "%s/%s.py", dir, names[i]);
    snprintf(exp, sizeof exp, "%s/%s.expected", dir, names[i]);
    run_case(ctx, file, exp, names[i], update, tmp);
    free(names[i]);
  }
  for (size_t i = 0; i < sizeof workloads / sizeof *workloads; i++) {
    snprintf(file, sizeof file, "%s/workloads/%s.py", root, workloads[i]);
    snprintf(exp, sizeof exp, "%s/%s.expected", dir, workloads[i]);
    run_case(ctx, file, exp, workloads[i], update, tmp);
  }
  refused(ctx, root, "workloads/matmul_128.py", "is not inside a GPU kernel: bind its loops to "
          "blockIdx/threadIdx (did you forget to bind?)");
  refused(ctx, root, "tests/cuda/refused/argmax.py", "buffer 'V' accumulates over the threads of "
          "loop 'k' in a form the cross-thread reduction cannot lower");
  refused(ctx, root, "tests/cuda/refused/fragment_elements.py", "element access to a "
          "tensor-core fragment (tensorize it), buffer 'C_acc'");
  refused(ctx, root, "tests/cuda/refused/warp_other_lane.py", "a store to warp buffer 'W' "
          "writes another lane's element (each lane writes only its own)");
  refused(ctx, root, "tests/cuda/refused/warp_half_lanes.py", "warp buffer 'W' needs the "
          "threadIdx.x loops of its kernel to run the 32 lanes of a warp (extent 32 from 0), "
          "not loop 'tx'");
  refused(ctx, root, "tests/cuda/refused/warp_shuffle_slot.py", "a read of warp buffer 'W' "
          "takes another lane's element at a place that depends on the reading lane");
  char cmd[4300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  if (system(cmd) != 0)
    tap_diag("could not remove %s", tmp);
  tsl_ctx_free(ctx);
  return tap_done();
}
