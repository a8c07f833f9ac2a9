/* bench_auto's tuning runs and their curves. */
#define _XOPEN_SOURCE 700
#include "tune_run.h"
#include "../bench_util.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void on_progress(void *ud, const tsl_tune_progress *p) {
  auto_curve *c = ud;
  if (p->measured > c->n && p->measured <= c->cap) {
    double g = p->best_s > 0 && p->flops > 0 ? p->flops / p->best_s * 1e-9 : 0;
    for (int64_t i = c->n + 1; i <= p->measured; i++) {
      c->best_gflops[i] = g;
      c->elapsed_s[i] = p->elapsed_s;
    }
    c->n = p->measured;
    c->flops = p->flops;
  }
}

/* The best after each record, in the database's order: a batch probed by
 * its checked calls is measured fastest probe first but recorded in the
 * order generated, so record i is candidate i, and the best of the first N
 * is what a run of N trials would have (the progress reports follow the
 * measurement order: a probed batch reports its slow candidates first). */
typedef struct prefix {
  auto_curve *c;
  int64_t i;
  double best_s;
} prefix;

static int take_prefix(void *ud, const tsl_db_record *rec) {
  prefix *p = ud;
  if (++p->i > p->c->cap)
    return 1;
  if (rec->status == TSL_RUN_OK && rec->latency_s > 0 && (p->best_s < 0 || rec->latency_s < p->best_s))
    p->best_s = rec->latency_s;
  p->c->best_gflops[p->i] = p->best_s > 0 && p->c->flops > 0 ? p->c->flops / p->best_s * 1e-9 : 0;
  return 0;
}

static void curve_from_records(auto_curve *c, const char *db_path) {
  tsl_db *h = NULL;
  tsl_diag d = {0};
  prefix p = {c, 0, -1};
  if (tsl_db_open(db_path, 0, &h, &d) == TSL_OK)
    tsl_db_each(h, -1, NULL, take_prefix, &p, &d);
  tsl_db_close(h);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *f) {
  (void)st, (void)flag, (void)f;
  return remove(path);
}

void auto_remove_tree(const char *dir) { nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

/* A tuning run of configs/auto.yaml with overrides, in a fresh folder
 * (kept until run_free: the records are read afterwards). */
static int tune_in(const char *root, const char *const *sets, int n_sets, int64_t trials,
                   auto_run *out) {
  char config[4200], db[128], wd[128], tr[64], ex[128];
  snprintf(config, sizeof config, "%s/configs/auto.yaml", root);
  snprintf(db, sizeof db, "database=%s/tuning.db", out->dir);
  snprintf(wd, sizeof wd, "work_dir=%s", out->dir);
  snprintf(ex, sizeof ex, "export=%s/libbest.so", out->dir);
  snprintf(tr, sizeof tr, "strategy.trials=%lld", (long long)trials);
  const char *all[16];
  int n = 0;
  for (int i = 0; i < n_sets && n < 12; i++)
    all[n++] = sets[i];
  all[n++] = db;
  all[n++] = wd;
  all[n++] = tr;
  all[n++] = ex;
  out->c.cap = trials;
  out->c.best_gflops = calloc((size_t)trials + 1, sizeof(double));
  out->c.elapsed_s = calloc((size_t)trials + 1, sizeof(double));
  tsl_diag *d = calloc(1, sizeof *d);
  double t0 = bench_now();
  int rc = d ? bench_tune_run(config, (uint32_t)n, all, on_progress, &out->c, &out->r, d) : -1;
  out->wall = bench_now() - t0;
  if (rc)
    fprintf(stderr, "bench_auto: %s\n", d ? d->text : "out of memory");
  else
    curve_from_records(&out->c, db + strlen("database="));
  free(d);
  return rc;
}

int auto_first_lines(const char *from, const char *to, int64_t n) {
  FILE *in = fopen(from, "r"), *out = in ? fopen(to, "w") : NULL;
  char *line = NULL;
  size_t cap = 0;
  int64_t k = 0;
  ssize_t len = 0;
  while (out && (n < 0 || k < n) && (len = getline(&line, &cap, in)) > 0 &&
         fputs(line, out) >= 0)
    k++;
  free(line);
  int rc = out && (n < 0 ? len < 0 && !ferror(in) : k == n) ? 0 : -1;
  if (out && fclose(out))
    rc = -1;
  if (in)
    fclose(in);
  return rc;
}

int auto_export_prefix(const char *const *sets, int n_sets, const auto_run *r,
                       int64_t n, const char *dir, char **program) {
  char src[128], all[128], first[128], db[160], wd[160], tr[64], ex[160], config[160];
  snprintf(src, sizeof src, "%s/tuning.db", r->dir);
  snprintf(all, sizeof all, "%s/all.jsonl", dir);
  snprintf(first, sizeof first, "%s/first.jsonl", dir);
  snprintf(db, sizeof db, "database=%s/tuning.db", dir);
  *program = NULL;
  tsl_diag d = {0};
  tsl_db *h = NULL;
  int rc = tsl_db_open(src, TSL_DB_READONLY, &h, &d) || tsl_db_export(h, all, &d);
  tsl_db_close(h);
  h = NULL;
  if (!rc && auto_first_lines(all, first, n))
    rc = tsl_diag_set(&d, TSL_EIO, "%s holds fewer than %lld records", all, (long long)n);
  int64_t added = 0, skipped = 0;
  rc = rc || tsl_db_open(db + strlen("database="), TSL_DB_CREATE, &h, &d) ||
       tsl_db_import(h, first, &added, &skipped, &d);
  tsl_db_close(h);
  if (rc) {
    fprintf(stderr, "bench_auto: the first %lld records of %s: %s\n", (long long)n, src, d.text);
    return -1;
  }
  /* configs/auto.yaml's target and strategy without its cost model, which
   * would learn the records first and say so */
  snprintf(config, sizeof config, "%s/export.yaml", dir);
  FILE *f = fopen(config, "w");
  int bad = !f || fputs("target:\n  kind: llvm\nstrategy:\n  kind: evolutionary\nrunner:\n"
                        "  remeasure: 0\n", f) < 0;
  if ((f && fclose(f)) || bad) {
    fprintf(stderr, "bench_auto: cannot write %s\n", config);
    return -1;
  }
  snprintf(wd, sizeof wd, "work_dir=%s", dir);
  snprintf(ex, sizeof ex, "export=%s/libbest.so", dir);
  snprintf(tr, sizeof tr, "strategy.trials=%lld", (long long)n);
  const char *use[16];
  int k = 0;
  for (int i = 0; i < n_sets && k < 10; i++)
    use[k++] = sets[i];
  use[k++] = db;
  use[k++] = wd;
  use[k++] = ex;
  use[k++] = tr;
  tsl_tune_result t;
  rc = bench_tune_run(config, (uint32_t)k, use, NULL, NULL, &t, &d);
  if (!rc && t.trials)
    rc = tsl_diag_set(&d, TSL_EINVALID, "it measured %lld candidates", (long long)t.trials);
  if (!rc && !t.best_program)
    rc = tsl_diag_set(&d, TSL_ENOTFOUND, "no successful record among them");
  if (rc)
    fprintf(stderr, "bench_auto: exporting the best of the first %lld records: %s\n",
            (long long)n, d.text);
  else
    *program = strdup(t.best_program);
  tsl_tune_result_free(&t);
  return rc || !*program ? -1 : 0;
}

int auto_tune(const char *root, const char *const *sets, int n_sets, int64_t trials,
              auto_run *out) {
  memset(out, 0, sizeof *out);
  snprintf(out->dir, sizeof out->dir, "/tmp/tessel-bench-auto-XXXXXX");
  if (!mkdtemp(out->dir))
    return -1;
  return tune_in(root, sets, n_sets, trials, out);
}

int auto_tune_more(const char *root, const char *const *sets, int n_sets, int64_t trials,
                   auto_run *r) {
  char dir[sizeof r->dir];
  memcpy(dir, r->dir, sizeof dir);
  tsl_tune_result_free(&r->r);
  free(r->c.best_gflops);
  free(r->c.elapsed_s);
  memset(r, 0, sizeof *r);
  memcpy(r->dir, dir, sizeof dir);
  return tune_in(root, sets, n_sets, trials, r);
}

double auto_tune_remeasured(const char *root, const char *file, int threads, int seed,
                            const char *const *extra, int n_extra, int64_t trials,
                            double *wall, int64_t *same_program) {
  char wl[4300], th[32], sd[32];
  snprintf(wl, sizeof wl, "workload.file=%s/%s", root, file);
  snprintf(th, sizeof th, "target.threads=%d", threads);
  snprintf(sd, sizeof sd, "seed=%d", seed);
  const char *sets[8] = {wl, th, sd};
  int n = 3;
  for (int i = 0; i < n_extra && n < 8; i++)
    sets[n++] = extra[i];
  auto_run r;
  double g = 0;
  if (!auto_tune(root, sets, n, trials, &r) && r.r.remeasured_s > 0)
    g = r.c.flops / r.r.remeasured_s * 1e-9;
  *wall = r.wall;
  if (same_program)
    *same_program = r.r.same_program;
  auto_run_free(&r);
  return g;
}

void auto_run_free(auto_run *r) {
  tsl_tune_result_free(&r->r);
  free(r->c.best_gflops);
  free(r->c.elapsed_s);
  auto_remove_tree(r->dir);
}

void auto_print_overhead(const auto_run *r) {
  double t = r->r.trials > 0 ? (double)r->r.trials : 1;
  double search = r->r.search_s - r->r.fixed_s;
  printf("    %lld trials (%lld failed) in %.1f s: search %.1f s = %.0f ms per candidate, "
         "%.1f%% of the wall time (builds %.1f s, measurements %.1f s: %lld candidates "
         "stopped at runner.skip_slower times the best, %lld timed by their checked call "
         "alone, %lld by a screening repeat, %lld probed first; setup and best %.1f s)\n",
         (long long)r->r.trials, (long long)r->r.errors, r->wall, search, search / t * 1e3,
         100 * search / (r->wall > 0 ? r->wall : 1), r->r.build_s, r->r.measure_s,
         (long long)r->r.stopped, (long long)r->r.timed_once, (long long)r->r.screened,
         (long long)r->r.probed, r->r.fixed_s);
  const tsl_cand_service_stats *c = &r->r.cands;
  double parts = c->replay_s + c->postproc_s + c->feature_s + r->r.mutate_s + r->r.predict_s +
                 r->r.train_s + r->r.lower_s;
  printf("      per candidate: replay %.1f ms (%lld replays for %lld prepared, %lld from the "
         "cache), postprocessing %.1f ms, features %.1f ms, mutation %.1f ms, prediction "
         "%.1f ms, training %.1f ms, lowering %.1f ms; the rest %.1f ms\n",
         c->replay_s / t * 1e3, (long long)c->replays, (long long)c->prepared,
         (long long)c->hits, c->postproc_s / t * 1e3, c->feature_s / t * 1e3,
         r->r.mutate_s / t * 1e3, r->r.predict_s / t * 1e3, r->r.train_s / t * 1e3,
         r->r.lower_s / t * 1e3, (search - parts) / t * 1e3);
}
