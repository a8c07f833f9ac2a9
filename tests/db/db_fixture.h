/*
 * tests/db/db_fixture.h — small programs and real traces for the database
 * tests: a 64-element loop split by a sample_perfect_tile with a chosen
 * decision, as tsl_trace_to_json / tsl_trace_decisions_key text.
 */
#ifndef TESSEL_TESTS_DB_FIXTURE_H
#define TESSEL_TESTS_DB_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessel/tessel.h"

/* The test's scratch folder (the test fills it with mkdtemp) and paths in
 * it; a path stays valid for the next 15 calls. */
static char tmp[64];

static inline char *tmp_path(const char *name) {
  static char buf[16][256];
  static int k;
  char *b = buf[k++ % 16];
  snprintf(b, 256, "%s/%s", tmp, name);
  return b;
}

static const char fx_vadd[] =
    "@T.prim_func\n"
    "def vadd(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
    "    for i in range(64):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(64, i)\n"
    "            B[vi] = A[vi] + T.float32(1)\n";

static const char fx_vmul[] =
    "@T.prim_func\n"
    "def vmul(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
    "    for i in range(64):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(64, i)\n"
    "            B[vi] = A[vi] * T.float32(3)\n";

typedef struct fx_prog {
  tsl_ctx *ctx;
  tsl_arena *arena;
  const tsl_module *mod;
  const tsl_func *func;
} fx_prog;

static inline int fx_parse(const char *src, fx_prog *p) {
  tsl_diag d = {0};
  p->ctx = tsl_ctx_new();
  p->arena = tsl_arena_new(p->ctx);
  if (tsl_parse(p->arena, "fixture.py", src, strlen(src), &p->mod, &d) != TSL_OK) {
    fprintf(stderr, "fixture: %s\n", d.text);
    return -1;
  }
  p->func = p->mod->funcs[0];
  return 0;
}

static inline void fx_free(fx_prog *p) {
  tsl_arena_free(p->arena);
  tsl_ctx_free(p->ctx);
}

/* Trace JSON and decisions key (heap) of splitting the loop by
 * [outer, 64 / outer]. */
static inline int fx_trace(const fx_prog *p, int outer, char **json, char **key) {
  char src[512];
  snprintf(src, sizeof src,
           "b = sch.get_block(\"B\")\n"
           "i, = sch.get_loops(b)\n"
           "v0, v1 = sch.sample_perfect_tile(loop=i, n=2, max_innermost_factor=64, decision=[%d, %d])\n"
           "i0, i1 = sch.split(loop=i, factors=[v0, v1])\n",
           outer, 64 / outer);
  tsl_diag d = {0};
  tsl_schedule *sch;
  if (tsl_schedule_new(p->ctx, p->mod, NULL, &sch, &d) != TSL_OK ||
      tsl_script_run(sch, "fixture.sch", src, strlen(src), &d) != TSL_OK) {
    fprintf(stderr, "fixture: %s\n", d.text);
    return -1;
  }
  *json = tsl_trace_to_json(tsl_schedule_trace(sch));
  *key = tsl_trace_decisions_key(tsl_schedule_trace(sch));
  tsl_schedule_free(sch);
  return *json && *key ? 0 : -1;
}

/* A filled record (strings not owned). */
static inline tsl_db_record fx_record(int64_t wid, const char *target,
                                      const char *json, const char *key,
                                      int status, double latency, int64_t ts) {
  tsl_db_record r;
  memset(&r, 0, sizeof r);
  r.struct_size = sizeof r;
  r.workload_id = wid;
  r.target = target;
  r.trace_json = json;
  r.decisions = key;
  r.status = status;
  r.error = status ? "crashed on signal 11" : NULL;
  r.latency_s = latency;
  r.n_times = 3;
  r.times_s[0] = latency * 0.9;
  r.times_s[1] = latency;
  r.times_s[2] = latency * 1.1;
  r.build_s = 0.25;
  r.version = "0.1.0";
  r.timestamp = ts;
  return r;
}

#endif
