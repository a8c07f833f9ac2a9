/*
 * Schedule overhead: how long replaying a trace takes, the operation a
 * search repeats for every candidate. Runs bench/schedule/matmul_tiled.sch
 * on workloads/matmul_128.py once, then times (median of batches):
 *   replay with the recorded decisions, replay with fresh decisions,
 *   JSON -> trace -> replay, and running the script text itself.
 * Usage: bench_schedule [SOURCE_ROOT]   (or ./tessel bench schedule)
 */
#include "tessel/tessel.h"
#include "../bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BATCHES = 9, PER_BATCH = 200 };


typedef struct job {
  tsl_ctx *ctx;
  const tsl_module *mod;
  const tsl_trace *trace;
  const char *json, *script;
} job;

static int run_one(const job *j, int what, uint64_t seed) {
  tsl_diag d = {0};
  tsl_schedule *s = NULL;
  tsl_replay_opts ro = {sizeof ro, what == 1, seed, NULL, NULL};
  int rc;
  if (what <= 1) {
    rc = tsl_trace_replay(j->ctx, j->trace, j->mod, &ro, &s, &d);
  } else if (what == 2) {
    tsl_trace *t = NULL;
    rc = tsl_trace_from_json(j->ctx, j->json, &t, &d);
    if (!rc)
      rc = tsl_trace_replay(j->ctx, t, j->mod, &ro, &s, &d);
    tsl_trace_free(t);
  } else {
    rc = tsl_schedule_new(j->ctx, j->mod, NULL, &s, &d);
    if (!rc)
      rc = tsl_script_run(s, "bench", j->script, strlen(j->script), &d);
  }
  if (rc && what != 1) {
    fprintf(stderr, "bench_schedule: %s\n", d.text);
    exit(2);
  }
  tsl_schedule_free(s);
  return rc == 0;
}

int main(int argc, char **argv) {
  const char *root = argc > 1 ? argv[1] : getenv("TESSEL_SOURCE_ROOT");
  if (!root)
    root = ".";
  char ppath[4096], spath[4096];
  snprintf(ppath, sizeof ppath, "%s/workloads/matmul_128.py", root);
  snprintf(spath, sizeof spath, "%s/bench/schedule/matmul_tiled.sch", root);
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  tsl_diag d = {0};
  const tsl_module *mod;
  char *script;
  size_t len;
  tsl_schedule *sch;
  if (tsl_parse_file(arena, ppath, &mod, &d) || tsl_read_file(spath, &script, &len, &d) ||
      tsl_schedule_new(ctx, mod, NULL, &sch, &d) ||
      tsl_script_run(sch, spath, script, len, &d)) {
    fprintf(stderr, "bench_schedule: %s\n", d.text);
    return 2;
  }
  tsl_trace *trace = tsl_trace_copy(tsl_schedule_trace(sch));
  char *json = tsl_trace_to_json(trace);
  job j = {ctx, mod, trace, json, script};
  static const char *names[] = {"replay, recorded decisions", "replay, fresh decisions",
                                "JSON -> trace -> replay", "run the script text"};
  double med[4];
  int valid_fresh = 0, total_fresh = 0;
  double samples[4][BATCHES];
  for (int b = 0; b < BATCHES; b++)
    for (int w = 0; w < 4; w++) { /* interleaved */
      double t0 = bench_now();
      for (int i = 0; i < PER_BATCH; i++) {
        int okk = run_one(&j, w, (uint64_t)(b * PER_BATCH + i));
        if (w == 1) {
          valid_fresh += okk;
          total_fresh++;
        }
      }
      samples[w][b] = (bench_now() - t0) / PER_BATCH;
    }
  printf("schedule overhead: workloads/matmul_128.py + bench/schedule/matmul_tiled.sch\n");
  printf("trace: %u instructions (%u after simplification)\n", tsl_trace_len(trace),
         tsl_trace_len(tsl_trace_simplified(trace)));
  printf("%-30s %12s\n", "operation", "median");
  for (int w = 0; w < 4; w++) {
    qsort(samples[w], BATCHES, sizeof(double), bench_cmp_double);
    med[w] = samples[w][BATCHES / 2];
    printf("%-30s %9.1f us\n", names[w], med[w] * 1e6);
  }
  printf("fresh decisions: %d of %d replays gave a valid program\n", valid_fresh, total_fresh);
  printf("(median of %d interleaved batches of %d runs; one replay includes creating and "
         "freeing the schedule)\n", BATCHES, PER_BATCH);
  free(json);
  tsl_trace_free(trace);
  tsl_schedule_free(sch);
  free(script);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return 0;
}
