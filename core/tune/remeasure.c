/*
 * The end of a program's run (runner.remeasure): its fastest records
 * measured again in a fresh worker with the full protocol, the rounds
 * interleaved (every candidate once per round, so drift reaches them
 * alike), each record's median and spread stored in the database
 * (tsl_db_set_remeasured). The reported best is then the lowest median
 * (tune_best reads it back with tsl_db_best_remeasured).
 */
#include "tuner_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct rm_cand {
  int64_t id;
  char *trace_json;
  tsl_schedule *sch; /* the lowered functions point into it */
  tsl_prepack_split split;
  const tsl_lowered_func *one[2];
  tsl_lowered_module lm;
  measure_build_job *job; /* its build, NULL when it could not be lowered */
  double times[64]; /* one median per round */
  uint32_t n_times;
  int failed;
} rm_cand;

typedef struct rm_list {
  rm_cand *c;
  uint32_t n, cap;
} rm_list;

static int take(void *user_data, const tsl_db_record *rec) {
  rm_list *l = user_data;
  if (l->n == l->cap)
    return 0;
  rm_cand *c = &l->c[l->n++];
  c->id = rec->id;
  c->trace_json = strdup(rec->trace_json);
  return c->trace_json ? 0 : TSL_ENOMEM;
}

/* The record's program lowered as the run lowered it (replay, the weights'
 * packing split off) into build job `job`; 0 when it fails. */
static int prepare(tuner *tu, rm_cand *c, measure_build_job *job, uint32_t i) {
  tune_task *task = &tu->tasks[0];
  tsl_diag d = {0};
  tsl_trace *t = NULL;
  tsl_schedule *sch = NULL;
  tsl_replay_opts ro = {sizeof ro, 0, 0, task->func_name, tu->run.intrins};
  int rc = tsl_trace_from_json(tu->run.ctx, c->trace_json, &t, &d);
  if (!rc)
    rc = tsl_trace_replay(tu->run.ctx, t, task->mod, &ro, &sch, &d);
  tsl_trace_free(t);
  c->sch = sch;
  if (!rc)
    rc = tsl_func_split_prepack(tu->run.arena, tsl_schedule_func(sch), &c->split, &d);
  if (!rc)
    rc = tsl_lower_func(tu->run.arena, c->split.main, NULL, &c->one[0], &d);
  if (!rc && c->split.prepack)
    rc = tsl_lower_func(tu->run.arena, c->split.prepack, NULL, &c->one[1], &d);
  if (rc)
    return 0;
  c->lm = (tsl_lowered_module){sizeof c->lm, c->split.prepack ? 2 : 1, c->one, 0, NULL};
  c->job = job;
  job->lm = &c->lm;
  snprintf(job->so_path, sizeof job->so_path, "%.900s/remeasure_%u.so", tu->run.builds_dir, i);
  return 1;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One round: every built candidate measured once, in record order. */
static void round_of(tuner *tu, tsl_measure_session *s, rm_list *l) {
  char symbol[512], prepack[600];
  snprintf(symbol, sizeof symbol, "%s_%s_packed", TUNE_PREFIX, tu->tasks[0].func_name);
  for (uint32_t i = 0; i < l->n; i++) {
    rm_cand *c = &l->c[i];
    if (c->failed)
      continue;
    tsl_run_result r;
    tsl_diag d = {0};
    int rc;
    if (c->split.n_packed) {
      snprintf(prepack, sizeof prepack, "%s_%s_packed", TUNE_PREFIX, c->split.prepack->name);
      rc = tsl_measure_session_run_prepacked(s, &c->split, c->job->so_path, symbol, prepack, &r,
                                             &d);
    } else {
      rc = tsl_measure_session_run(s, c->one[0], c->job->so_path, symbol, NULL, &r, &d);
    }
    if (rc || r.status != TSL_RUN_OK || !(r.median_s > 0))
      c->failed = 1; /* it passed in the run; a flaky candidate is not the best */
    else
      c->times[c->n_times++] = r.median_s;
  }
}

int tune_remeasure(tuner *tu, tsl_tune_result *out) {
  const tsl_run_config *cfg = tu->run.cfg;
  tune_task *task = &tu->tasks[0];
  if (cfg->remeasure <= 0 || !tu->run.db || !task->session)
    return TSL_OK;
  rm_list l = {calloc((size_t)cfg->remeasure, sizeof(rm_cand)), 0, (uint32_t)cfg->remeasure};
  if (!l.c)
    return tsl_diag_set(tu->run.diag, TSL_ENOMEM, "re-measuring: out of memory");
  tsl_diag d = {0};
  int rc = tsl_db_top(tu->run.db, task->wid, tu->run.desc, l.cap, take, &l, &d);
  if (rc)
    rc = tsl_diag_set(tu->run.diag, rc, "re-measuring: %s", d.text);
  measure_build_job *jobs = calloc(l.n + 1, sizeof *jobs);
  uint32_t n_jobs = 0;
  for (uint32_t i = 0; !rc && jobs && i < l.n; i++)
    if (prepare(tu, &l.c[i], &jobs[n_jobs], i))
      n_jobs++;
  if (!rc && n_jobs)
    measure_build_batch(tu->run.tvt, tu->run.target, TUNE_PREFIX, jobs, n_jobs,
                        cfg->build_workers, cfg->build_timeout_s);
  for (uint32_t i = 0; i < l.n; i++)
    l.c[i].failed = !l.c[i].job || !l.c[i].job->ok;
  /* a fresh worker: a new session, on the run's reference outputs */
  tsl_measure_session *s = NULL;
  if (!rc && n_jobs &&
      tsl_measure_session_new_on(task->ref_lf, &task->ref, &cfg->runner, tu->run.tvt,
                                 tu->run.target, &s, &d) == TSL_OK) {
    for (int32_t r = 0; r < cfg->remeasure_rounds && r < 64; r++)
      round_of(tu, s, &l);
    tsl_measure_session_free(s);
  }
  uint32_t measured = 0;
  for (uint32_t i = 0; !rc && i < l.n; i++) {
    rm_cand *c = &l.c[i];
    if (!c->failed && c->n_times == (uint32_t)cfg->remeasure_rounds) {
      qsort(c->times, c->n_times, sizeof c->times[0], by_value);
      uint32_t n = c->n_times;
      tsl_db_remeasured m = {sizeof m, c->id,
                             n % 2 ? c->times[n / 2] : (c->times[n / 2 - 1] + c->times[n / 2]) / 2,
                             c->times[0], c->times[n - 1], n, (int64_t)time(NULL)};
      if ((rc = tsl_db_set_remeasured(tu->run.db, &m, &d)))
        rc = tsl_diag_set(tu->run.diag, rc, "re-measuring: %s", d.text);
      else
        measured++;
    }
  }
  for (uint32_t i = 0; i < l.n; i++) {
    free(l.c[i].trace_json);
    tsl_schedule_free(l.c[i].sch);
    if (l.c[i].job)
      unlink(l.c[i].job->so_path);
  }
  out->remeasured_n = measured;
  free(jobs);
  free(l.c);
  return rc;
}
