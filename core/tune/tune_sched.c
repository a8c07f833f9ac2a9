/*
 * The task scheduler of a multi-task run (tuner_internal.h): TVM's
 * gradient-based scheduler (meta_schedule.task_scheduler.GradientBased:
 * alpha 0.2, window 3 by default) or round-robin, choosing which task's
 * strategy proposes the next batch.
 */
#include "tuner_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void tune_sched_init(tune_sched *s, tuner *tu, uint64_t seed) {
  const tsl_run_config *c = tu->run.cfg;
  int has = c->struct_size > offsetof(tsl_run_config, sched_window);
  memset(s, 0, sizeof *s);
  s->tu = tu;
  s->gradient = !has || !c->task_scheduler || strcmp(c->task_scheduler, "round-robin");
  s->alpha = has && c->sched_alpha >= 0 ? c->sched_alpha : 0.2;
  s->window = has && c->sched_window > 0 ? c->sched_window : 3;
  s->rng = seed ? seed : 1;
}

void tune_sched_free(tune_sched *s) { (void)s; }

void tune_sched_note(tune_sched *s, int task) {
  tune_task *t = &s->tu->tasks[task];
  double *h = realloc(t->history, (t->n_history + 1) * sizeof *h);
  if (!h)
    return;
  t->history = h;
  h[t->n_history++] = t->best_s > 0 ? t->best_s : 1e30; /* none yet: "infinitely slow" */
}

int tune_sched_next(tune_sched *s) {
  tuner *tu = s->tu;
  uint32_t n = tu->n_tasks, alive = 0;
  for (uint32_t i = 0; i < n; i++)
    alive += !tu->tasks[i].exhausted;
  if (!alive)
    return -1;
  if (!s->gradient || s->rounds < n) {
    /* round-robin, and the gradient scheduler's first round: every task
     * once, in order */
    for (uint32_t k = 0; k < n; k++) {
      uint32_t i = (s->rounds + k) % n;
      if (!tu->tasks[i].exhausted) {
        s->rounds = s->rounds + k + 1;
        return (int)i;
      }
    }
  }
  s->rounds++;
  int best = -1, all_equal = 1;
  double best_g = 0, first_g = 0;
  for (uint32_t i = 0; i < n; i++) {
    const tune_task *t = &tu->tasks[i];
    if (t->exhausted)
      continue;
    uint32_t h = t->n_history;
    double g = -1e9;
    if (h > 0 && t->history[h - 1] < 1e9) {
      double last = t->history[h - 1], w = s->window;
      double g1 = h >= 1 + (uint32_t)s->window ? (t->history[h - 1 - s->window] - last) / w : 0;
      double g2 = last / h;
      g = (s->alpha * g1 + (1 - s->alpha) * g2) * t->weight;
    }
    if (best < 0) {
      first_g = g;
    } else if (g != first_g) {
      all_equal = 0;
    }
    if (best < 0 || g > best_g) {
      best = (int)i;
      best_g = g;
    }
  }
  if (all_equal) { /* TVM draws one of the alive tasks */
    uint64_t k = tsl_rand_below(&s->rng, alive);
    for (uint32_t i = 0; i < n; i++)
      if (!tu->tasks[i].exhausted && k-- == 0)
        return (int)i;
  }
  return best;
}
