/*
 * tests/tune/test_candidates.c — the candidate service (candidates.h): a
 * trace becomes a candidate once (a second prepare with the same key is a
 * cache hit without a replay, failures included), fresh replays landing on
 * a known key give the earlier candidate, sweeps drop the schedules nobody
 * keeps and a dropped schedule is replayed to the same program, features
 * are extracted once and outlive the schedule, known keys, forgetting the
 * oldest unreferenced candidates, postprocessors (and their rejections),
 * a script's own postprocessing kept when the service has none, and
 * duplicates judged on the program (dedup_program).
 */
#include "tap.h"
#include "test_programs.h"
#include "tessel/tessel.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>


/* 5 x 5 points: two tilings of 16 (inner factor 1..16) */
static const char *design_script =
    "b = sch.get_block(\"C\")\n"
    "i, j, k = sch.get_loops(b)\n"
    "vi = sch.sample_perfect_tile(i, n=2, max_innermost_factor=16)\n"
    "i0, i1 = sch.split(i, vi)\n"
    "vj = sch.sample_perfect_tile(j, n=2, max_innermost_factor=16)\n"
    "j0, j1 = sch.split(j, vj)\n"
    "sch.enter_postproc()\n"
    "sch.parallel(i0)\n";

typedef struct fixture {
  tsl_ctx *ctx;
  tsl_arena *arena;
  const tsl_module *mod;
  tsl_trace *design;
} fixture;

/* 5 programs (the split of i), 20 traces: `u` is sampled and unused */
static const char *dup_script =
    "b = sch.get_block(\"C\")\n"
    "i, j, k = sch.get_loops(b)\n"
    "vi = sch.sample_perfect_tile(i, n=2, max_innermost_factor=16)\n"
    "i0, i1 = sch.split(i, vi)\n"
    "u = sch.sample_categorical(candidates=[1, 2, 3, 4], probs=[0.25, 0.25, 0.25, 0.25])\n";

static int setup(fixture *f) {
  tsl_diag d = {0};
  f->ctx = tsl_ctx_new();
  f->arena = tsl_arena_new(f->ctx);
  tsl_schedule *sch = NULL;
  if (tsl_parse(f->arena, "mm.py", test_matmul16, strlen(test_matmul16), &f->mod, &d) ||
      tsl_schedule_new(f->ctx, f->mod, NULL, &sch, &d) ||
      tsl_script_run(sch, "design.sch", design_script, strlen(design_script), &d)) {
    tap_diag("setup: %s", d.text);
    return -1;
  }
  f->design = tsl_trace_copy(tsl_schedule_trace(sch));
  tsl_schedule_free(sch);
  return 0;
}

static tsl_cand_service *service_by(fixture *f, uint32_t n_pp, const tsl_space_postproc *pp,
                                    uint32_t max_cands, int32_t by_program) {
  tsl_cand_service_opts o = {sizeof o, f->ctx,    f->mod,    NULL,
                             NULL,     n_pp,      pp,        max_cands, by_program};
  tsl_cand_service *s = NULL;
  tsl_diag d = {0};
  if (tsl_cand_service_new(&o, &s, &d))
    tap_diag("service: %s", d.text);
  return s;
}

static tsl_cand_service *service(fixture *f, uint32_t n_pp, const tsl_space_postproc *pp,
                                 uint32_t max_cands) {
  return service_by(f, n_pp, pp, max_cands, 0);
}

static tsl_cand_service_stats stats(const tsl_cand_service *s) {
  tsl_cand_service_stats st;
  tsl_cand_service_get_stats(s, &st);
  return st;
}

static char *program(tsl_cand *c) {
  tsl_schedule *sch = NULL;
  tsl_diag d = {0};
  if (tsl_cand_schedule(c, &sch, &d))
    return NULL;
  return tsl_print_module(tsl_schedule_module(sch));
}

/* ---- prepare, the cache, sweeps ------------------------------------------------- */

static void test_cache(fixture *f) {
  tsl_diag d = {0};
  tsl_cand_service_opts bad = {sizeof bad, NULL, f->mod, NULL, NULL, 0, NULL, 0, 0};
  tsl_cand_service *none = NULL;
  ok(tsl_cand_service_new(&bad, &none, &d) == TSL_EINVALID && !none &&
         strstr(d.text, "missing"),
     "a service without a context is refused: %s", d.text);

  tsl_cand_service *s = service(f, 0, NULL, 0);
  tsl_cand *a = NULL;
  is_int(tsl_cand_service_prepare(s, f->design, 1, 11, &a, &d), 0, "a fresh sample is a candidate");
  tsl_cand_service_stats st = stats(s);
  ok(st.prepared == 1 && st.replays == 1 && st.hits == 0, "  ... one replay");
  const char *key = tsl_cand_key(a);
  ok(key && strchr(key, '@'), "  ... known by its key %s", key);
  is_str(key, tsl_trace_key(tsl_cand_trace(a)), "  ... the key of its trace");
  char *pa = program(a);
  ok(pa && strstr(pa, "T.parallel("), "  ... the script's own postprocessing kept (no service postprocessors)");
  const tsl_candidate *v = tsl_cand_view(a);
  ok(v->struct_size == sizeof *v && v->scheduled && v->workload == f->mod && v->features,
     "  ... its view: the scheduled module, the workload, the features");

  tsl_cand *a2 = NULL;
  is_int(tsl_cand_service_prepare(s, tsl_cand_trace(a), 0, 0, &a2, &d), 0,
         "its trace prepared again");
  st = stats(s);
  ok(a2 == a && st.replays == 1 && st.hits == 1, "  ... is the same candidate, without a replay");
  tsl_cand_unref(a2);

  tsl_cand *f2 = tsl_cand_service_find(s, key);
  ok(f2 == a, "find by key gives it too");
  tsl_cand_unref(f2);
  ok(!tsl_cand_service_find(s, "[[2,[4,4]]]@0000000000000000"), "  ... and nothing for an unknown key");

  /* fresh replays until one lands on a's key again: the earlier candidate */
  int same = 0;
  for (uint64_t seed = 12; seed < 200 && !same; seed++) {
    tsl_cand *b = NULL;
    if (tsl_cand_service_prepare(s, f->design, 1, seed, &b, &d) == 0) {
      same = b == a;
      tsl_cand_unref(b);
    }
  }
  ok(same, "a fresh replay with a's decisions gives a, not a copy");
  st = stats(s);
  ok(st.hits >= 2 && st.replays == st.prepared - 1, "  ... (a fresh sample still replays: %lld replays, %lld prepared)",
     (long long)st.replays, (long long)st.prepared);

  /* sweeps */
  tsl_cand_service_sweep(s);
  ok(!tsl_cand_view(a)->scheduled, "a sweep drops the schedule nobody keeps");
  ok(tsl_cand_view(a)->trace == tsl_cand_trace(a), "  ... the view then shows the trace");
  int64_t r0 = stats(s).replays;
  char *pb = program(a);
  ok(pb && pa && !strcmp(pa, pb) && stats(s).replays == r0 + 1,
     "  ... asked again, it is replayed once more to the same program");
  tsl_cand_keep(a);
  tsl_cand_service_sweep(s);
  ok(tsl_cand_view(a)->scheduled != NULL, "a kept schedule survives a sweep");
  tsl_cand_let_go(a);
  tsl_cand_service_sweep(s);
  ok(!tsl_cand_view(a)->scheduled, "  ... and goes once let go");

  /* features */
  tsl_features fs;
  int64_t r1 = stats(s).replays;
  v = tsl_cand_view(a);
  is_int(v->features(v, &fs, &d), 0, "features of a candidate whose schedule was dropped");
  ok(fs.n_rows >= 1 && fs.row_len == tsl_feature_row_len(NULL) && fs.values,
     "  ... %u rows of %u", fs.n_rows, fs.row_len);
  ok(stats(s).replays == r1 + 1 && stats(s).featurized == 1, "  ... extracted once (one replay)");
  tsl_cand_service_sweep(s);
  tsl_features fs2;
  v = tsl_cand_view(a);
  is_int(v->features(v, &fs2, &d), 0, "asked again after a sweep");
  ok(fs2.values == fs.values && stats(s).featurized == 1 && stats(s).replays == r1 + 1,
     "  ... the kept rows, no replay, no extraction");

  /* known keys */
  ok(!tsl_cand_service_known(s, key), "a prepared key is not known (measured or proposed)");
  is_int(tsl_cand_propose(a), 0, "proposing it");
  ok(tsl_cand_service_known(s, key), "  ... makes it known");
  char *pc = program(a);
  tsl_cand_service_sweep(s);
  ok(pc && tsl_cand_view(a)->scheduled != NULL,
     "  ... and keeps its schedule across sweeps, for the tuner");
  free(pc);
  tsl_cand_service_mark(s, "[[9,9]]@0123456789abcdef");
  ok(tsl_cand_service_known(s, "[[9,9]]@0123456789abcdef"), "a marked key is known");
  tsl_cand_unref(a);
  free(pa);
  free(pb);
  tsl_cand_service_free(s);
}

/* A failed replay is remembered under its key. */
static void test_failures(fixture *f) {
  tsl_cand_service *s = service(f, 0, NULL, 0);
  tsl_diag d = {0};
  tsl_trace *t = tsl_trace_copy(f->design);
  tsl_sch_value items[2] = {tsl_sv_int(3), tsl_sv_int(5)}; /* 15, not 16 */
  tsl_sch_value dec = tsl_sv_list(2, items);
  tsl_trace_set_decision(t, 2, &dec, &d);
  tsl_cand *c = NULL;
  d.text[0] = '\0';
  is_int(tsl_cand_service_prepare(s, t, 0, 0, &c, &d), 1, "a trace that does not replay makes no candidate");
  ok(!c && d.text[0], "  ... and says why: %s", d.text);
  int64_t r = stats(s).replays;
  d.text[0] = '\0';
  is_int(tsl_cand_service_prepare(s, t, 0, 0, &c, &d), 1, "prepared again, it fails again");
  ok(stats(s).replays == r && stats(s).failed == 1 && d.text[0],
     "  ... at once, without a replay, with the same reason");
  ok(!tsl_cand_service_find(s, tsl_trace_key(t)), "  ... and find gives no failed candidate");
  tsl_trace_free(t);
  tsl_cand_service_free(s);
}

/* ---- postprocessors --------------------------------------------------------------- */

typedef struct tsl_postproc {
  int reject_outer_2; /* reject i split [2, 8] */
  int calls;
} test_pp;

static int pp_apply(tsl_postproc *pp, tsl_schedule *sch, tsl_diag *diag) {
  pp->calls++;
  char *text = tsl_trace_to_script(tsl_schedule_trace(sch), 1);
  int reject = text && strstr(text, "decision=[2, 8]") != NULL;
  free(text);
  if (reject)
    return tsl_diag_set(diag, TSL_EINVALID, "an outer factor of 2 is refused here");
  tsl_sch_rv b;
  return tsl_sch_get_block(sch, "C", &b, diag);
}

static const tsl_postproc_vtable pp_vt = {sizeof pp_vt, NULL, NULL, pp_apply};

static void test_postprocs(fixture *f) {
  test_pp pp = {1, 0};
  tsl_space_postproc one = {sizeof one, "test", &pp_vt, &pp};
  tsl_cand_service *s = service(f, 1, &one, 0);
  tsl_diag d = {0};
  int ok_n = 0, rejected = 0;
  char *why = NULL;
  for (uint64_t seed = 1; seed < 60; seed++) {
    tsl_cand *c = NULL;
    d.text[0] = '\0';
    int rc = tsl_cand_service_prepare(s, f->design, 1, seed, &c, &d);
    if (rc == 0) {
      ok_n++;
      if (ok_n == 1) {
        char *p = program(c);
        ok(p && !strstr(p, "T.parallel("),
           "with postprocessors, the trace's own postprocessing is made again by them");
        ok(!strcmp(tsl_trace_get(tsl_cand_trace(c), tsl_trace_len(tsl_cand_trace(c)) - 1)->kind->name,
                   "split"),
           "  ... and the candidate's trace stops before enter_postproc");
        free(p);
      }
      tsl_cand_unref(c);
    } else if (rc == 1 && strstr(d.text, "postprocessing: ") && strstr(d.text, "an outer factor of 2")) {
      rejected++;
      if (!why)
        why = strdup(d.text);
    }
  }
  ok(ok_n > 0 && rejected > 0, "postprocessors ran on every sample: %d kept, %d rejected (%s)", ok_n,
     rejected, why ? why : "");
  free(why);
  tsl_cand_service_free(s);
}

/* ---- forgetting ------------------------------------------------------------------- */

static void test_forgetting(fixture *f) {
  tsl_cand_service *s = service(f, 0, NULL, 4);
  tsl_diag d = {0};
  tsl_cand *first = NULL, *held = NULL;
  const char *first_key = NULL;
  uint32_t made = 0;
  for (uint64_t seed = 1; seed < 200 && made < 8; seed++) {
    int64_t before = stats(s).hits;
    tsl_cand *c = NULL;
    if (tsl_cand_service_prepare(s, f->design, 1, seed, &c, &d))
      continue;
    if (stats(s).hits != before) {
      tsl_cand_unref(c);
      continue;
    }
    made++;
    if (made == 1) {
      first = c;
      first_key = tsl_cand_key(c);
      tsl_cand_unref(c);
    } else if (made == 2) {
      held = c; /* keeps its reference */
    } else {
      tsl_cand_unref(c);
    }
    tsl_cand_service_sweep(s);
  }
  ok(made == 8, "8 distinct candidates in a service that keeps 4");
  (void)first;
  tsl_cand *again = tsl_cand_service_find(s, first_key);
  ok(!again, "the oldest unreferenced one is forgotten");
  tsl_cand_unref(again);
  tsl_cand *h = tsl_cand_service_find(s, tsl_cand_key(held));
  ok(h == held, "a referenced one is not, however old");
  tsl_cand_unref(h);
  tsl_cand_unref(held);
  tsl_cand_service_free(s);
}

/* ---- duplicates by program ---------------------------------------------------------- */

enum { DUP_SEEDS = 80 };

/* The distinct keys and programs the service's fresh samples of `design`
 * made; `firsts` gets one candidate per program (references kept). */
static void sample_all(tsl_cand_service *s, const tsl_trace *design, uint32_t *n_keys,
                       uint32_t *n_programs, tsl_cand **firsts, char **programs) {
  const char *keys[DUP_SEEDS];
  *n_keys = *n_programs = 0;
  for (uint64_t seed = 1; seed <= DUP_SEEDS; seed++) {
    tsl_cand *c = NULL;
    tsl_diag d = {0};
    if (tsl_cand_service_prepare(s, design, 1, seed, &c, &d))
      continue;
    uint32_t k = 0;
    while (k < *n_keys && keys[k] != tsl_cand_key(c))
      k++;
    if (k == *n_keys)
      keys[(*n_keys)++] = tsl_cand_key(c);
    char *p = program(c);
    uint32_t q = 0;
    while (p && q < *n_programs && strcmp(programs[q], p))
      q++;
    if (p && q == *n_programs) {
      programs[*n_programs] = p;
      firsts[(*n_programs)++] = c;
      continue;
    }
    free(p);
    tsl_cand_unref(c);
  }
}

static void test_program_dedup(fixture *f) {
  tsl_diag d = {0};
  tsl_schedule *sch = NULL;
  if (tsl_schedule_new(f->ctx, f->mod, NULL, &sch, &d) ||
      tsl_script_run(sch, "dup.sch", dup_script, strlen(dup_script), &d)) {
    ok(0, "the duplicates' design: %s", d.text);
    tsl_schedule_free(sch);
    return;
  }
  tsl_trace *design = tsl_trace_copy(tsl_schedule_trace(sch));
  tsl_schedule_free(sch);

  tsl_cand *firsts[DUP_SEEDS], *firsts_p[DUP_SEEDS];
  char *programs[DUP_SEEDS], *programs_p[DUP_SEEDS];
  uint32_t keys_t, progs_t, keys_p, progs_p;
  tsl_cand_service *by_trace = service_by(f, 0, NULL, 0, 0);
  sample_all(by_trace, design, &keys_t, &progs_t, firsts, programs);
  ok(progs_t == 5 && keys_t > progs_t,
     "by trace: %u keys for %u programs (an unused sample tells traces apart)", keys_t, progs_t);

  tsl_cand_service *by_prog = service_by(f, 0, NULL, 0, 1);
  sample_all(by_prog, design, &keys_p, &progs_p, firsts_p, programs_p);
  ok(progs_p == progs_t && keys_p == progs_p,
     "by program: one candidate per program (%u keys, %u programs)", keys_p, progs_p);

  /* two traces of one program, told apart by their keys */
  const tsl_trace *t1 = NULL, *t2 = NULL;
  for (uint64_t seed = 1; seed <= DUP_SEEDS && !t2; seed++) {
    tsl_cand *c = NULL;
    if (tsl_cand_service_prepare(by_trace, design, 1, seed, &c, &d))
      continue;
    char *p = program(c);
    if (p && !strcmp(p, programs[0]) && tsl_cand_key(c) != tsl_cand_key(firsts[0])) {
      t1 = tsl_cand_trace(firsts[0]);
      t2 = tsl_trace_copy(tsl_cand_trace(c));
    }
    free(p);
    tsl_cand_unref(c);
  }
  if (ok(t1 && t2, "two traces with different keys make one program")) {
    tsl_cand_service *s = service_by(f, 0, NULL, 0, 1);
    const char *k2 = tsl_intern(f->ctx, tsl_trace_key(t2));
    tsl_cand *c1 = NULL, *c2 = NULL;
    tsl_cand_service_prepare(s, t1, 0, 1, &c1, &d);
    ok(c1 && !tsl_cand_propose(c1) && !tsl_cand_service_known(s, k2),
       "the first proposed; the second's key, not prepared yet, is not known");
    int64_t replays = stats(s).replays;
    tsl_cand_service_prepare(s, t2, 0, 1, &c2, &d);
    ok(c2 && c2 == c1, "the second trace's candidate is the first's");
    ok(tsl_cand_service_known(s, k2), "  ... and its key is known now, by its program");
    tsl_cand *f2 = tsl_cand_service_find(s, k2);
    ok(f2 == c1, "  ... and finding the second key gives the first candidate");
    tsl_cand_unref(f2);
    tsl_cand_unref(c2);
    c2 = NULL;
    tsl_cand_service_prepare(s, t2, 0, 1, &c2, &d);
    ok(c2 == c1 && stats(s).replays == replays + 1,
       "  ... asked again, without another replay (%lld replays)",
       (long long)(stats(s).replays - replays));
    tsl_cand_unref(c2);
    tsl_cand_unref(c1);
    tsl_cand_service_free(s);

    tsl_cand *b1 = NULL;
    tsl_cand_service_prepare(by_trace, t1, 0, 1, &b1, &d);
    if (b1)
      tsl_cand_propose(b1);
    const char *k1 = tsl_cand_key(firsts[0]);
    ok(tsl_cand_service_known(by_trace, k1) && !tsl_cand_service_known(by_trace, k2),
       "by trace, the second key stays unknown when the first is proposed");
    tsl_cand_unref(b1);

    /* a 1.9 caller's options end before dedup_program */
    tsl_cand_service_opts old = {0};
    old.struct_size = offsetof(tsl_cand_service_opts, dedup_program);
    old.ctx = f->ctx;
    old.mod = f->mod;
    old.dedup_program = 1; /* past the caller's struct: not read */
    tsl_cand_service *s9 = NULL;
    tsl_cand *o1 = NULL, *o2 = NULL;
    ok(!tsl_cand_service_new(&old, &s9, &d) && s9, "options of ABI 1.9 (%u bytes) are accepted",
       old.struct_size);
    if (s9) {
      tsl_cand_service_prepare(s9, t1, 0, 1, &o1, &d);
      tsl_cand_service_prepare(s9, t2, 0, 1, &o2, &d);
    }
    ok(o1 && o2 && o1 != o2, "  ... and judge by trace (the field past them is not read)");
    tsl_cand_unref(o1);
    tsl_cand_unref(o2);
    tsl_cand_service_free(s9);
  }
  tsl_trace_free((tsl_trace *)t2);

  for (uint32_t i = 0; i < progs_t; i++) {
    free(programs[i]);
    tsl_cand_unref(firsts[i]);
  }
  for (uint32_t i = 0; i < progs_p; i++) {
    free(programs_p[i]);
    tsl_cand_unref(firsts_p[i]);
  }
  tsl_cand_service_free(by_trace);
  tsl_cand_service_free(by_prog);
  tsl_trace_free(design);
}

int main(void) {
  fixture f;
  if (setup(&f))
    return 1;
  test_cache(&f);
  test_failures(&f);
  test_postprocs(&f);
  test_forgetting(&f);
  test_program_dedup(&f);
  tsl_trace_free(f.design);
  tsl_arena_free(f.arena);
  tsl_ctx_free(f.ctx);
  return tap_done();
}
