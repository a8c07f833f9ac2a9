/*
 * core/measure/measure.h — what the tuner (core/tune) uses of measurement
 * beyond the public runner.h: parallel builds of a batch and the clock.
 * Internal to libtessel (not installed).
 */
#ifndef TESSEL_MEASURE_H
#define TESSEL_MEASURE_H

#include "tessel/runner.h"
#include "tessel/target.h"

/* At most this many build workers. */
#define MEASURE_MAX_BUILD_WORKERS 256

/* One candidate of a batch to build into `so_path`. */
typedef struct measure_build_job {
  const tsl_lowered_module *lm;
  char so_path[1024];
  int32_t done, ok;
  double build_s;
  char error[512];
} measure_build_job;

/* Build every job with up to `workers` forked processes, exporting each
 * function under `prefix` (target export_library); every job ends with ok
 * or an error text. A build running longer than `timeout_s` is killed; a
 * crash or a timeout costs only the job being built. */
void measure_build_batch(const tsl_target_vtable *vt, tsl_target *t, const char *prefix,
                         measure_build_job *jobs, uint32_t n, int32_t workers,
                         double timeout_s);

/* CLOCK_MONOTONIC seconds. */
double measure_now(void);

/* A checked call past the slow bound is the candidate's time when it lasted
 * at least this long: the screening repeat's length, a tenth of
 * min_repeat_ms (a shorter cold first call of a microseconds kernel is often
 * several times its steady time, so it is screened instead). */
double measure_trusted_call_s(const tsl_run_opts *o);

#endif
