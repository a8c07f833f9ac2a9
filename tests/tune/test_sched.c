/*
 * The task scheduler of a model's run (core/tune/tune_sched.c) on made-up
 * task histories: TVM's gradient-based choice (every task once, then the
 * largest alpha * (drop over the window) / window + (1 - alpha) * best /
 * batches, times the weight), tasks without a result last, exhausted tasks
 * skipped, ties drawn among the alive ones; and round-robin.
 */
#include "tap.h"
#include "tessel/tessel.h"
#include "tuner_internal.h"

#include <stdlib.h>
#include <string.h>

static void history(tune_task *t, int n, const double *h, double weight) {
  free(t->history);
  t->history = malloc((size_t)(n ? n : 1) * sizeof *h);
  memcpy(t->history, h, (size_t)n * sizeof *h);
  t->n_history = (uint32_t)n;
  t->weight = weight;
}

int main(void) {
  tsl_run_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  cfg.task_scheduler = "gradient";
  cfg.sched_alpha = 0.2;
  cfg.sched_window = 3;
  tune_task tasks[3];
  memset(tasks, 0, sizeof tasks);
  tuner tu;
  memset(&tu, 0, sizeof tu);
  tu.run.cfg = &cfg;
  tu.tasks = tasks;
  tu.n_tasks = 3;

  tune_sched s;
  tune_sched_init(&s, &tu, 1);
  int first[3] = {tune_sched_next(&s), tune_sched_next(&s), tune_sched_next(&s)};
  ok(first[0] == 0 && first[1] == 1 && first[2] == 2, "gradient: the first round gives each "
     "task a batch in order (%d %d %d)", first[0], first[1], first[2]);

  double a[] = {1e-3}, b[] = {2e-3}, c[] = {1e-3};
  history(&tasks[0], 1, a, 1);
  history(&tasks[1], 1, b, 1);
  history(&tasks[2], 1, c, 5);
  is_int(tune_sched_next(&s), 2, "one batch each: the largest weighted best / batches wins "
         "(1 ms x 5 over 2 ms x 1)");
  history(&tasks[2], 1, c, 1);
  is_int(tune_sched_next(&s), 1, "equal weights: the slower task (2 ms)");

  double falling[] = {10, 8, 6, 4}, flat[] = {5, 5, 5, 5};
  history(&tasks[0], 4, falling, 1);
  history(&tasks[1], 4, flat, 1);
  history(&tasks[2], 4, flat, 0.5);
  /* task 0: 0.2 * (10 - 4) / 3 + 0.8 * 4 / 4 = 1.2; task 1: 0.8 * 5 / 4 = 1.0 */
  is_int(tune_sched_next(&s), 0, "the window's drop counts: a falling latency (1.2) before a "
         "flat slower one (1.0)");
  cfg.sched_alpha = 0;
  tune_sched_init(&s, &tu, 1);
  s.rounds = 3;
  is_int(tune_sched_next(&s), 1, "alpha 0: best / batches alone (5/4 over 4/4)");
  cfg.sched_alpha = 0.2;
  tune_sched_init(&s, &tu, 1);
  s.rounds = 3;

  double none[] = {1e30};
  history(&tasks[0], 1, none, 1);
  is_int(tune_sched_next(&s), 1, "a task without a result yet comes after those with one");
  tasks[1].exhausted = 1;
  is_int(tune_sched_next(&s), 2, "an exhausted task is skipped");

  double same[] = {1e-3};
  tasks[1].exhausted = 0;
  for (int i = 0; i < 3; i++)
    history(&tasks[i], 1, same, 1);
  int drawn[3] = {0, 0, 0};
  for (int i = 0; i < 60; i++) {
    int k = tune_sched_next(&s);
    if (k >= 0 && k < 3)
      drawn[k]++;
  }
  ok(drawn[0] && drawn[1] && drawn[2] && drawn[0] + drawn[1] + drawn[2] == 60,
     "ties: drawn at random among the alive tasks (%d %d %d of 60)", drawn[0], drawn[1],
     drawn[2]);
  tasks[0].exhausted = tasks[1].exhausted = tasks[2].exhausted = 1;
  is_int(tune_sched_next(&s), -1, "every task exhausted: none");

  cfg.task_scheduler = "round-robin";
  tasks[0].exhausted = tasks[2].exhausted = 0;
  tune_sched_init(&s, &tu, 1);
  int rr[4] = {tune_sched_next(&s), tune_sched_next(&s), tune_sched_next(&s),
               tune_sched_next(&s)};
  ok(rr[0] == 0 && rr[1] == 2 && rr[2] == 0 && rr[3] == 2,
     "round-robin: in turn, exhausted ones skipped (%d %d %d %d)", rr[0], rr[1], rr[2], rr[3]);
  for (int i = 0; i < 3; i++)
    free(tasks[i].history);
  return tap_done();
}
