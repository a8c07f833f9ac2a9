/*
 * report.h — `tessel report`: the data of an HTML tuning report, its
 * renderer (a pure function over plain arrays) and its loader from a
 * tuning database (db.h). Internal to core/cli; the tests in tests/report
 * compile report_render.c directly.
 */
#ifndef TESSEL_CLI_REPORT_H
#define TESSEL_CLI_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "tessel/tessel.h"

/* One measured candidate, in record (trial) order. */
typedef struct report_point {
  int64_t record_id;
  int32_t status;    /* TSL_RUN_* of runner.h */
  double latency_s;  /* < 0 or non-finite: not measured */
  const char *error; /* NULL or "" when none */
} report_point;

/* The records of one workload on one target. */
typedef struct report_series {
  int64_t workload_id;
  const char *workload; /* the prim_func's name (user data) */
  const char *target;   /* the target description (user data) */
  double flops;         /* <= 0: unknown; the charts then show calls/s */
  const report_point *points;
  size_t n_points;
  /* the lowest re-measured median (tessel tune's runner.remeasure,
   * tsl_db_best_remeasured): rounds 0 when none */
  int64_t remeasured_record;
  double remeasured_s, remeasured_min_s, remeasured_max_s;
  uint32_t remeasured_rounds;
} report_series;

typedef struct report_data {
  const char *title;   /* NULL: a default title */
  const char *db_path; /* shown in the header */
  int64_t records, workloads, errors, targets; /* database-wide counts */
  const char *filter;  /* NULL, or a note such as "workload 3 only" */
  const report_series *series;
  size_t n_series;
} report_data;

/* Writes one self-contained HTML page (XHTML-compatible markup, inline CSS
 * and SVG). Returns 0, or -1 when writing to `out` failed. */
int report_render(FILE *out, const report_data *d);

/* A report_data loaded from a database, owning its memory. */
typedef struct report_loaded {
  report_data data;
  tsl_ctx *ctx;
  tsl_arena *arena;
} report_loaded;

/* Opens `db_path` read-only and loads every workload (or only
 * `workload_id` when >= 0) grouped by target. Errors name the database and
 * (for a missing workload) the valid workload ids. */
int report_load(const char *db_path, int64_t workload_id, report_loaded *out,
                tsl_diag *diag);
void report_loaded_free(report_loaded *r);

#endif
