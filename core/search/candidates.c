/*
 * The candidate service (candidates.h): candidates by interned key in one
 * map, in least-recently-used order for forgetting, the schedules alive in
 * a list for sweeping, and the set of known keys.
 */
#include "candidates_internal.h"

#include "tessel/container.h"

#include "tessel/analysis.h"

#include <stddef.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define DEFAULT_MAX_CANDS 16384

struct tsl_cand {
  tsl_cand_service *svc;
  const char *key;     /* interned */
  tsl_trace *trace;    /* before postprocessing, owned */
  tsl_schedule *sch;   /* postprocessed; NULL once dropped */
  char *error;         /* a trace that made no candidate: why (heap) */
  int32_t refs, keeps, proposed, live;
  int32_t taken;       /* handed to the tuner for measurement */
  int has_features;
  uint32_t n_rows, row_len;
  tsl_vec values;      /* double, n_rows x row_len (heap) */
  tsl_candidate view;
  tsl_cand *older, *newer; /* least recently used first */
};

struct tsl_cand_service {
  tsl_cand_service_opts o;
  tsl_space_postproc *postprocs; /* copy of the array */
  tsl_map by_key;                /* interned key -> tsl_cand * */
  tsl_map known;                 /* interned key (or program) -> 1 */
  /* dedup_program: interned key -> its program (an interned hash), and
   * program -> the key of the first candidate that made it */
  tsl_map program_of, first_of;
  int64_t same_program;          /* traces answered by another key's candidate */
  tsl_vec live;                  /* tsl_cand *: schedule alive (maybe dropped since) */
  tsl_cand *oldest, *newest;
  tsl_cand_service_stats st;
};

/* ---- the list and the map ------------------------------------------------------ */

static void unlink_cand(tsl_cand_service *s, tsl_cand *c) {
  if (c->older)
    c->older->newer = c->newer;
  else
    s->oldest = c->newer;
  if (c->newer)
    c->newer->older = c->older;
  else
    s->newest = c->older;
  c->older = c->newer = NULL;
}

static void push_newest(tsl_cand_service *s, tsl_cand *c) {
  c->older = s->newest;
  c->newer = NULL;
  if (s->newest)
    s->newest->newer = c;
  else
    s->oldest = c;
  s->newest = c;
}

static void drop_schedule(tsl_cand *c) {
  tsl_schedule_free(c->sch);
  c->sch = NULL;
  c->view.trace = c->trace;
  c->view.scheduled = NULL;
}

static void cand_free(tsl_cand *c) {
  tsl_schedule_free(c->sch);
  tsl_trace_free(c->trace);
  free(c->error);
  tsl_vec_free(&c->values);
  free(c);
}

/* Forget the oldest candidates nobody holds while there are too many. */
static void forget_old(tsl_cand_service *s) {
  for (tsl_cand *c = s->oldest, *next; c && s->by_key.n > s->o.max_cands; c = next) {
    next = c->newer;
    if (c->refs || c->keeps || c->live)
      continue;
    unlink_cand(s, c);
    tsl_map_del(&s->by_key, c->key);
    cand_free(c);
  }
}

/* ---- replay -------------------------------------------------------------------- */

static int cand_features(const tsl_candidate *self, tsl_features *out, tsl_diag *diag);

/* Replay `trace` (fresh decisions from `seed` when `fresh`) and apply the
 * postprocessors: with postprocessors, the trace's part before them
 * (enter_postproc) is replayed and they make the rest again; without, the
 * whole trace is the design (a script's own postprocessing included).
 * *pre: the replayed trace before the postprocessors, *sch: postprocessed.
 * 0; 1 the replay or a postprocessor failed (diag); < 0 out of memory. */
static int replay(tsl_cand_service *s, const tsl_trace *trace, int fresh, uint64_t seed,
                  tsl_trace **pre, tsl_schedule **sch, tsl_diag *diag) {
  *pre = NULL;
  *sch = NULL;
  tsl_trace *sketch = s->o.n_postprocs ? tsl_trace_before_postproc(trace) : NULL;
  if (s->o.n_postprocs && !sketch)
    return TSL_ENOMEM;
  tsl_replay_opts ro = {sizeof ro, (uint32_t)(fresh != 0), seed, s->o.func_name,
                        s->o.intrins};
  double t0 = now_s();
  s->st.replays++;
  int rc = tsl_trace_replay(s->o.ctx, sketch ? sketch : trace, s->o.mod, &ro, sch, diag);
  s->st.replay_s += now_s() - t0;
  tsl_trace_free(sketch);
  if (rc)
    return rc == TSL_ENOMEM ? rc : 1;
  const tsl_trace *done = tsl_schedule_trace(*sch);
  if (!(*pre = s->o.n_postprocs ? tsl_trace_before_postproc(done) : tsl_trace_copy(done))) {
    tsl_schedule_free(*sch);
    *sch = NULL;
    return TSL_ENOMEM;
  }
  if (s->o.n_postprocs) {
    t0 = now_s();
    tsl_diag pd = {0};
    rc = tsl_space_apply_postprocs(*sch, s->o.n_postprocs, s->postprocs, &pd);
    s->st.postproc_s += now_s() - t0;
    if (rc) {
      tsl_diag_set(diag, rc, "postprocessing: %.570s", pd.text);
      tsl_schedule_free(*sch);
      *sch = NULL;
      return rc == TSL_ENOMEM ? rc : 1;
    }
  }
  return TSL_OK;
}

static void set_schedule(tsl_cand_service *s, tsl_cand *c, tsl_schedule *sch) {
  c->sch = sch;
  c->view.trace = tsl_schedule_trace(sch);
  c->view.scheduled = tsl_schedule_module(sch);
  if (!c->live) {
    c->live = 1;
    TSL_VEC_PUSH(&s->live, tsl_cand *, c);
  }
}

/* A new candidate under `key` (interned): `pre` taken over, `sch` NULL for
 * a trace that made no candidate (`error` then says why). */
static tsl_cand *add(tsl_cand_service *s, const char *key, tsl_trace *pre,
                     tsl_schedule *sch, const char *error) {
  forget_old(s);
  tsl_cand *c = calloc(1, sizeof *c);
  if (!c)
    return NULL;
  c->svc = s;
  c->key = key;
  c->trace = pre;
  c->error = error ? strdup(error) : NULL;
  c->view = (tsl_candidate){sizeof c->view, pre, NULL, NULL, s->o.mod, cand_features, c};
  if (sch)
    set_schedule(s, c, sch);
  tsl_map_put(&s->by_key, key, c);
  push_newest(s, c);
  return c;
}

/* ---- the service ------------------------------------------------------------------ */

int tsl_cand_service_new(const tsl_cand_service_opts *opts, tsl_cand_service **out,
                         tsl_diag *diag) {
  *out = NULL;
  /* a 1.9 caller's struct ends before dedup_program */
  if (!opts || opts->struct_size < offsetof(tsl_cand_service_opts, dedup_program) ||
      !opts->ctx || !opts->mod)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "candidate service: missing options, context or workload");
  tsl_cand_service *s = calloc(1, sizeof *s);
  if (!s)
    return tsl_diag_set(diag, TSL_ENOMEM, "candidate service: out of memory");
  memcpy(&s->o, opts, opts->struct_size < sizeof s->o ? opts->struct_size : sizeof s->o);
  s->o.struct_size = sizeof s->o;
  if (!s->o.max_cands)
    s->o.max_cands = DEFAULT_MAX_CANDS;
  if (opts->n_postprocs) {
    s->postprocs = malloc(sizeof *s->postprocs * opts->n_postprocs);
    if (!s->postprocs) {
      free(s);
      return tsl_diag_set(diag, TSL_ENOMEM, "candidate service: out of memory");
    }
    memcpy(s->postprocs, opts->postprocs, sizeof *s->postprocs * opts->n_postprocs);
  }
  s->o.postprocs = s->postprocs;
  tsl_map_init(&s->by_key, NULL);
  tsl_map_init(&s->known, NULL);
  tsl_map_init(&s->program_of, NULL);
  tsl_map_init(&s->first_of, NULL);
  tsl_vec_init(&s->live, sizeof(tsl_cand *), NULL);
  s->st.struct_size = sizeof s->st;
  *out = s;
  return TSL_OK;
}

void tsl_cand_service_free(tsl_cand_service *s) {
  if (!s)
    return;
  for (tsl_cand *c = s->oldest, *next; c; c = next) {
    next = c->newer;
    cand_free(c);
  }
  tsl_map_free(&s->by_key);
  tsl_map_free(&s->known);
  tsl_map_free(&s->program_of);
  tsl_map_free(&s->first_of);
  tsl_vec_free(&s->live);
  free(s->postprocs);
  free(s);
}

static tsl_cand *hit(tsl_cand_service *s, tsl_cand *c) {
  unlink_cand(s, c);
  push_newest(s, c);
  s->st.hits++;
  return c;
}

/* A cached answer: 0 and a reference, or 1 (the failure again). */
static int answer(tsl_cand *c, tsl_cand **out, tsl_diag *diag) {
  if (c->error) {
    tsl_diag_set(diag, TSL_EINVALID, "%s", c->error);
    return 1;
  }
  c->refs++;
  *out = c;
  return TSL_OK;
}

/* dedup_program: the candidate prepared before under another key whose
 * program `key` (interned) has, or NULL. */
static tsl_cand *earlier_of(const tsl_cand_service *s, const char *key) {
  const char *p = s->o.dedup_program ? tsl_map_get(&s->program_of, key) : NULL;
  const char *first = p ? tsl_map_get(&s->first_of, p) : NULL;
  return first && first != key ? tsl_map_get(&s->by_key, first) : NULL;
}

/* earlier_of, counted as a trace answered by it */
static tsl_cand *same_program(tsl_cand_service *s, const char *key) {
  tsl_cand *c = earlier_of(s, key);
  if (c)
    s->same_program++;
  return c;
}

/* dedup_program: `key` makes the program of `sch`. The candidate of the
 * first key that made it, when that candidate is still held; else NULL,
 * and `key` is the program's first from now on. */
static tsl_cand *note_program(tsl_cand_service *s, const char *key, const tsl_schedule *sch) {
  double t0 = now_s();
  char text[40];
  snprintf(text, sizeof text, "program %016llx",
           (unsigned long long)tsl_module_hash(tsl_schedule_module(sch)));
  s->st.postproc_s += now_s() - t0;
  const char *p = tsl_intern(s->o.ctx, text);
  tsl_map_put(&s->program_of, key, (void *)p);
  tsl_cand *earlier = same_program(s, key);
  if (!earlier)
    tsl_map_put(&s->first_of, p, (void *)key);
  return earlier;
}

int tsl_cand_service_prepare(tsl_cand_service *s, const tsl_trace *trace, int32_t fresh,
                             uint64_t seed, tsl_cand **out, tsl_diag *diag) {
  *out = NULL;
  s->st.prepared++;
  tsl_trace *pre = NULL;
  tsl_schedule *sch = NULL;
  const char *key;
  tsl_diag rd = {0};
  int rc;
  if (!fresh) {
    const char *k = tsl_trace_key(trace);
    if (!k)
      return tsl_diag_set(diag, TSL_ENOMEM, "candidate service: out of memory");
    key = tsl_intern(s->o.ctx, k);
    tsl_cand *c = tsl_map_get(&s->by_key, key);
    if (c || (c = same_program(s, key)))
      return answer(hit(s, c), out, diag);
    rc = replay(s, trace, 0, seed, &pre, &sch, &rd);
    if (rc == 1 && !pre) { /* the replay failed: the trace is the one to remember */
      pre = tsl_trace_copy(trace);
      if (!pre)
        rc = TSL_ENOMEM;
    }
  } else {
    rc = replay(s, trace, 1, seed, &pre, &sch, &rd);
    if (rc == 1 && !pre) { /* no decisions to know it by: nothing to remember */
      s->st.failed++;
      tsl_diag_set(diag, TSL_EINVALID, "%s", rd.text);
      return 1;
    }
    const char *k = rc < 0 ? NULL : tsl_trace_key(pre);
    key = k ? tsl_intern(s->o.ctx, k) : NULL;
    tsl_cand *c = key ? tsl_map_get(&s->by_key, key) : NULL;
    if (c) {
      tsl_schedule_free(sch);
      tsl_trace_free(pre);
      return answer(hit(s, c), out, diag);
    }
    if (!key && rc >= 0)
      rc = TSL_ENOMEM;
  }
  tsl_cand *c = !rc && s->o.dedup_program ? note_program(s, key, sch) : NULL;
  if (rc < 0 || c) {
    tsl_schedule_free(sch);
    tsl_trace_free(pre);
    if (c)
      return answer(hit(s, c), out, diag);
    return tsl_diag_set(diag, rc, "candidate service: %s",
                        rc == TSL_ENOMEM ? "out of memory" : rd.text);
  }
  c = add(s, key, pre, rc ? NULL : sch, rc ? rd.text : NULL);
  if (!c) {
    tsl_schedule_free(sch);
    tsl_trace_free(pre);
    return tsl_diag_set(diag, TSL_ENOMEM, "candidate service: out of memory");
  }
  if (rc)
    s->st.failed++;
  return answer(c, out, diag);
}

tsl_cand *tsl_cand_service_find(tsl_cand_service *s, const char *key) {
  key = key ? tsl_intern(s->o.ctx, key) : NULL;
  tsl_cand *c = key ? tsl_map_get(&s->by_key, key) : NULL;
  if (!c && key)
    c = earlier_of(s, key);
  if (!c || c->error)
    return NULL;
  c->refs++;
  return c;
}

int tsl_cand_service_known(const tsl_cand_service *s, const char *key) {
  if (!key)
    return 0;
  key = tsl_intern(s->o.ctx, key);
  const char *p = tsl_map_get(&s->program_of, key);
  return tsl_map_get(&s->known, key) || (p && tsl_map_get(&s->known, p));
}

/* Marks `key`, and with it its program when it has one. */
int tsl_cand_service_mark(tsl_cand_service *s, const char *key) {
  if (!key)
    return TSL_ENOMEM;
  key = tsl_intern(s->o.ctx, key);
  tsl_map_put(&s->known, key, TSL_MAP_INT(1));
  const char *p = tsl_map_get(&s->program_of, key);
  if (p)
    tsl_map_put(&s->known, p, TSL_MAP_INT(1));
  return TSL_OK;
}

void tsl_cand_service_sweep(tsl_cand_service *s) {
  tsl_cand **v = TSL_VEC_DATA(&s->live, tsl_cand *);
  uint32_t kept = 0;
  for (uint32_t i = 0; i < s->live.len; i++) {
    tsl_cand *c = v[i];
    if (c->sch && c->keeps) {
      v[kept++] = c;
      continue;
    }
    if (c->sch)
      drop_schedule(c);
    c->live = 0;
  }
  s->live.len = kept;
  forget_old(s);
}

void tsl_cand_service_get_stats(const tsl_cand_service *s, tsl_cand_service_stats *out) {
  *out = s->st;
}

/* ---- one candidate ------------------------------------------------------------------ */

const char *tsl_cand_key(const tsl_cand *c) { return c->key; }
const tsl_trace *tsl_cand_trace(const tsl_cand *c) { return c->trace; }

int tsl_cand_schedule(tsl_cand *c, tsl_schedule **out, tsl_diag *diag) {
  *out = NULL;
  if (!c->sch) {
    tsl_trace *pre = NULL;
    tsl_schedule *sch = NULL;
    int rc = replay(c->svc, c->trace, 0, 0, &pre, &sch, diag);
    c->svc->st.replayed_again++;
    tsl_trace_free(pre);
    if (rc)
      return rc < 0 ? rc : TSL_EINVALID;
    set_schedule(c->svc, c, sch);
  }
  *out = c->sch;
  return TSL_OK;
}

static int cand_features(const tsl_candidate *self, tsl_features *out, tsl_diag *diag) {
  tsl_cand *c = self->core_data;
  memset(out, 0, sizeof *out);
  out->struct_size = sizeof *out;
  if (!c->has_features) {
    tsl_schedule *sch;
    int rc = tsl_cand_schedule(c, &sch, diag);
    if (rc)
      return rc;
    tsl_cand_service *s = c->svc;
    double t0 = now_s();
    const tsl_module *m = tsl_schedule_module(sch);
    tsl_arena *a = tsl_arena_new(s->o.ctx);
    c->row_len = tsl_feature_row_len(NULL);
    for (uint32_t f = 0; f < m->n_funcs; f++) {
      tsl_features fs;
      tsl_diag fd;
      if (tsl_features_per_store(a, m->funcs[f], NULL, &fs, &fd) || !fs.n_rows ||
          fs.row_len != c->row_len)
        continue; /* a function the features cannot read adds nothing */
      if (!c->values.elem_size)
        tsl_vec_init(&c->values, sizeof(double), NULL);
      tsl_vec_append(&c->values, fs.values, fs.n_rows * c->row_len);
      c->n_rows += fs.n_rows;
    }
    tsl_arena_free(a);
    c->has_features = 1;
    s->st.featurized++;
    s->st.feature_s += now_s() - t0;
  }
  out->n_rows = c->n_rows;
  out->row_len = c->row_len;
  out->values = c->n_rows ? TSL_VEC_DATA(&c->values, double) : NULL;
  return TSL_OK;
}

const tsl_candidate *tsl_cand_view(tsl_cand *c) { return &c->view; }

void tsl_cand_keep(tsl_cand *c) { c->keeps++; }

void tsl_cand_let_go(tsl_cand *c) {
  if (c->keeps > 0)
    c->keeps--;
}

int tsl_cand_propose(tsl_cand *c) {
  if (!c->proposed) {
    c->proposed = 1;
    c->keeps++;
  }
  return tsl_cand_service_mark(c->svc, c->key);
}

tsl_cand *tsl_cand_ref(tsl_cand *c) {
  c->refs++;
  return c;
}

void tsl_cand_unref(tsl_cand *c) {
  if (c && c->refs > 0)
    c->refs--;
}

/* ---- for the tuner ----------------------------------------------------------------- */

int cands_take(tsl_cand *c) {
  if (c->taken)
    return 1;
  c->taken = 1;
  return 0;
}

void cands_untake(tsl_cand *c) { c->taken = 0; }

void cands_forget(tsl_cand_service *s, const char *key) {
  if (!key)
    return;
  key = tsl_intern(s->o.ctx, key);
  const char *p = tsl_map_get(&s->program_of, key);
  tsl_map_del(&s->known, key);
  if (p)
    tsl_map_del(&s->known, p);
}

int64_t cands_same_program(const tsl_cand_service *s) { return s->same_program; }

void cands_measured(tsl_cand *c) {
  if (c->proposed) {
    c->proposed = 0;
    tsl_cand_let_go(c);
  }
}
