/*
 * `tessel tune CONFIG [--set KEY=VALUE ...] [--json]`: one tuning run as
 * the YAML config says (tune.h). Progress: a table per batch in the form
 * TVM's task scheduler prints, a progress bar with elapsed time and ETA on
 * a terminal, and the same lines in WORK_DIR/tune.log. At the end: the best
 * trace (a schedule script with its decisions) and the scheduled program;
 * --json ends stdout with one JSON object.
 */
#include "cli.h"

#include <jansson.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char cli_tune_usage[] =
    "usage: tessel tune CONFIG [--set KEY=VALUE ...] [--json]\n"
    "\n"
    "Search the schedule space a YAML config describes (configs/README.md):\n"
    "candidates are proposed by the strategy, built in parallel, measured\n"
    "one at a time in an isolated worker and recorded in the database.\n"
    "Re-running a config resumes: `trials` counts the records already in\n"
    "the database for the workload and target.\n"
    "\n"
    "  --set KEY=VALUE   override a config key, e.g. strategy.trials=8\n"
    "  --json            end stdout with one JSON object: trials, total,\n"
    "                    best_seconds, best_gflops, best_trace, errors, ...\n";

/* What the table shows of one task, from the progress reports. */
typedef struct task_row {
  char name[64];
  double flops, weight, best_s;
  int64_t done, budget;
} task_row;

typedef struct tune_ui {
  const char *log_path;
  const char *config; /* named in the log's header line of each run */
  FILE *log; /* opened at the first candidate: the work folder exists then */
  int log_tried;
  FILE *table; /* stdout, or stderr under --json */
  int tty;
  int bar_shown;
  task_row *rows; /* one per task, filled as reports come */
  uint32_t n_rows;
} tune_ui;

/* The table TVM's task scheduler prints: one row per task, then the total
 * of the weighted latencies (the model's estimated latency). */
static void print_table(FILE *out, const tune_ui *ui, const tsl_tune_progress *p) {
  fprintf(out, "%3s | %-24s | %12s | %6s | %14s | %12s | %21s | %6s | %4s\n", "ID",
          "Name", "FLOP", "Weight", "Speed (GFLOPS)", "Latency (us)",
          "Weighted Latency (us)", "Trials", "Done");
  fprintf(out, "-------------------------------------------------------------"
               "-----------------------------------------------------------------------\n");
  double total = 0;
  int64_t trials = 0;
  int all = 1;
  for (uint32_t i = 0; i < ui->n_rows; i++) {
    const task_row *r = &ui->rows[i];
    char speed[32] = "N/A", lat[32] = "N/A", wlat[32] = "N/A";
    if (r->best_s > 0) {
      snprintf(speed, sizeof speed, "%.4f", r->flops > 0 ? r->flops / r->best_s * 1e-9 : 0);
      snprintf(lat, sizeof lat, "%.4f", r->best_s * 1e6);
      snprintf(wlat, sizeof wlat, "%.4f", r->best_s * r->weight * 1e6);
      total += r->best_s * r->weight;
    } else {
      all = 0;
    }
    trials += r->done;
    fprintf(out, "%3u | %-24.24s | %12.0f | %6.0f | %14s | %12s | %21s | %6lld | %4s\n", i,
            r->name[0] ? r->name : "(not started)", r->flops, r->weight, speed, lat, wlat,
            (long long)r->done, r->budget && r->done >= r->budget ? "Y" : "");
  }
  fprintf(out, "-------------------------------------------------------------"
               "-----------------------------------------------------------------------\n");
  if (ui->n_rows > 1) {
    if (all)
      fprintf(out, "total trials: %lld, total weighted latency: %.4f us\n", (long long)trials,
              total * 1e6);
    else
      fprintf(out, "total trials: %lld, total weighted latency: N/A (a task has no result "
              "yet)\n", (long long)trials);
  }
  fprintf(out, "measured by this run: %lld (%lld failed), elapsed %.1f s\n\n",
          (long long)p->measured, (long long)p->errors, p->elapsed_s);
  fflush(out);
}

/* The report's task into the table's rows. */
static void note_task(tune_ui *ui, const tsl_tune_progress *p) {
  uint32_t n = p->struct_size > offsetof(tsl_tune_progress, weight) && p->n_tasks ? p->n_tasks
                                                                                  : 1;
  uint32_t k = n > 1 ? p->task : 0;
  if (n > ui->n_rows) {
    task_row *r = realloc(ui->rows, n * sizeof *r);
    if (!r)
      return;
    memset(r + ui->n_rows, 0, (n - ui->n_rows) * sizeof *r);
    ui->rows = r;
    ui->n_rows = n;
  }
  task_row *r = &ui->rows[k];
  snprintf(r->name, sizeof r->name, "%s", p->func_name);
  r->flops = p->flops;
  r->weight = n > 1 ? p->weight : 1;
  r->best_s = p->best_s;
  r->done = p->done;
  r->budget = p->budget;
}

/* A plugin from plugin_paths that does not load: the error says where the
 * path was written ("FILE:L:C: error: plugin_paths[i]: ..."). */
static void locate_plugin_error(const tsl_run_config *cfg, tsl_diag *d) {
  for (uint32_t i = 0; i < cfg->n_plugin_paths; i++) {
    const char *p = cfg->plugin_paths[i];
    size_t n = strlen(p);
    if (strncmp(d->text, p, n) || (d->text[n] != ':' && d->text[n] != '/'))
      continue;
    char key[64];
    snprintf(key, sizeof key, "plugin_paths[%u]", i);
    const char *w = tsl_run_config_where(cfg, key);
    if (!w) {
      snprintf(key, sizeof key, "plugin_paths");
      w = tsl_run_config_where(cfg, key);
    }
    if (w) {
      char text[sizeof d->text];
      snprintf(text, sizeof text, "%.400s: error: %s: %.7000s", w, key, d->text);
      snprintf(d->text, sizeof d->text, "%s", text);
    }
    return;
  }
}

/* Ctrl-C: say what is kept, then end as the signal would. */
static void on_interrupt(int sig) {
  static const char msg[] = "\ntessel tune: interrupted; the records measured so far "
                            "are kept: run the same command again to resume\n";
  ssize_t w = write(2, msg, sizeof msg - 1);
  (void)w;
  signal(sig, SIG_DFL);
  raise(sig);
}

static void open_log(tune_ui *ui) {
  if (ui->log_tried)
    return;
  ui->log_tried = 1;
  ui->log = fopen(ui->log_path, "a");
  if (ui->log) {
    time_t now = time(NULL);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime(&now));
    fprintf(ui->log, "=== tessel tune %s: started %s (pid %ld)\n", ui->config, when,
            (long)getpid());
  }
}

static void progress(void *user_data, const tsl_tune_progress *p) {
  tune_ui *ui = user_data;
  open_log(ui);
  note_task(ui, p);
  if (ui->tty) {
    int width = 30;
    double frac = p->budget > 0 ? (double)p->done / (double)p->budget : 1;
    if (frac > 1)
      frac = 1;
    int filled = (int)(frac * width + 0.5);
    double eta = p->measured > 0 && p->done < p->budget
                     ? p->elapsed_s / (double)p->measured * (double)(p->budget - p->done)
                     : 0;
    fprintf(stderr, "\r[%.*s%*s] %lld/%lld  elapsed %.1f s  ETA %.1f s ", filled,
            "##############################", width - filled, "", (long long)p->done,
            (long long)p->budget, p->elapsed_s, eta);
    fflush(stderr);
    ui->bar_shown = 1;
  }
  if (ui->log)
    fprintf(ui->log, "candidate %lld/%lld: %lld failed so far, best %.9g s, %.2f s\n",
            (long long)p->done, (long long)p->budget, (long long)p->errors, p->best_s,
            p->elapsed_s);
  if (p->batch_end) {
    if (ui->bar_shown) {
      fputc('\n', stderr);
      ui->bar_shown = 0;
    }
    print_table(ui->table, ui, p);
    if (ui->log)
      print_table(ui->log, ui, p);
  }
}

static void print_json(const tsl_tune_result *r) {
  json_t *o = json_object();
  json_object_set_new(o, "trials", json_integer(r->trials));
  json_object_set_new(o, "total", json_integer(r->total));
  json_object_set_new(o, "errors", json_integer(r->errors));
  json_object_set_new(o, "best_seconds",
                      r->best_seconds > 0 ? json_real(r->best_seconds) : json_null());
  json_object_set_new(o, "best_gflops",
                      r->best_seconds > 0 ? json_real(r->best_gflops) : json_null());
  json_object_set_new(o, "remeasured_seconds",
                      r->remeasured_s > 0 ? json_real(r->remeasured_s) : json_null());
  json_object_set_new(o, "remeasured_min_seconds",
                      r->remeasured_s > 0 ? json_real(r->remeasured_min_s) : json_null());
  json_object_set_new(o, "remeasured_max_seconds",
                      r->remeasured_s > 0 ? json_real(r->remeasured_max_s) : json_null());
  json_object_set_new(o, "remeasured_rounds", json_integer(r->remeasured_rounds));
  json_object_set_new(o, "remeasured_records", json_integer(r->remeasured_n));
  json_object_set_new(o, "best_record", r->best_record >= 0 ? json_integer(r->best_record)
                                                            : json_null());
  json_object_set_new(o, "best_trace",
                      r->best_trace ? json_string(r->best_trace) : json_null());
  json_object_set_new(o, "best_program",
                      r->best_program ? json_string(r->best_program) : json_null());
  json_object_set_new(o, "flops", json_real(r->flops));
  json_object_set_new(o, "target", r->target ? json_string(r->target) : json_null());
  json_object_set_new(o, "export", r->export_path ? json_string(r->export_path)
                                                  : json_null());
  json_object_set_new(o, "search_s", json_real(r->search_s));
  json_object_set_new(o, "fixed_s", json_real(r->fixed_s));
  json_object_set_new(o, "build_s", json_real(r->build_s));
  json_object_set_new(o, "measure_s", json_real(r->measure_s));
  json_object_set_new(o, "timed_once", json_integer(r->timed_once));
  json_object_set_new(o, "stopped", json_integer(r->stopped));
  json_object_set_new(o, "screened", json_integer(r->screened));
  json_object_set_new(o, "probed", json_integer(r->probed));
  json_object_set_new(o, "total_s", json_real(r->total_s));
  json_object_set_new(o, "stop", json_string(r->stop_reason ? "exhausted" : "budget"));
  if (r->n_tasks) {
    json_t *ts = json_array();
    for (uint32_t i = 0; i < r->n_tasks; i++) {
      const tsl_tune_task_result *t = &r->tasks[i];
      json_t *j = json_pack("{s:s, s:f, s:f, s:I}", "name", t->name, "weight", t->weight,
                            "flops", t->flops, "total", (json_int_t)t->total);
      json_object_set_new(j, "best_seconds",
                          t->best_seconds > 0 ? json_real(t->best_seconds) : json_null());
      json_object_set_new(j, "best_record",
                          t->best_record >= 0 ? json_integer(t->best_record) : json_null());
      json_array_append_new(ts, j);
    }
    json_object_set_new(o, "tasks", ts);
    json_object_set_new(o, "tuned_model", r->tuned_model_path ? json_string(r->tuned_model_path)
                                                              : json_null());
    json_object_set_new(o, "tuned_constants", r->tuned_constants_path
                                                  ? json_string(r->tuned_constants_path)
                                                  : json_null());
  }
  json_t *c = json_object();
  json_object_set_new(c, "prepared", json_integer(r->cands.prepared));
  json_object_set_new(c, "hits", json_integer(r->cands.hits));
  json_object_set_new(c, "replays", json_integer(r->cands.replays));
  json_object_set_new(c, "replayed_again", json_integer(r->cands.replayed_again));
  json_object_set_new(c, "failed", json_integer(r->cands.failed));
  json_object_set_new(c, "same_program", json_integer(r->same_program));
  json_object_set_new(c, "featurized", json_integer(r->cands.featurized));
  json_object_set_new(c, "replay_s", json_real(r->cands.replay_s));
  json_object_set_new(c, "postproc_s", json_real(r->cands.postproc_s));
  json_object_set_new(c, "feature_s", json_real(r->cands.feature_s));
  json_object_set_new(c, "predict_s", json_real(r->predict_s));
  json_object_set_new(c, "train_s", json_real(r->train_s));
  json_object_set_new(c, "mutate_s", json_real(r->mutate_s));
  json_object_set_new(c, "lower_s", json_real(r->lower_s));
  json_object_set_new(o, "candidates", c);
  char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(9));
  if (s)
    printf("%s\n", s);
  free(s);
  json_decref(o);
}

static void print_text(const tsl_tune_result *r) {
  printf("tuned: %lld candidates measured by this run (%lld failed); %lld in the "
         "database for this workload and target%s\n",
         (long long)r->trials, (long long)r->errors, (long long)r->total,
         r->stop_reason ? " (the strategy found no new candidate)" : "");
  printf("time: %.2f s (search %.2f s of which setup and the best program %.2f s, "
         "builds %.2f s, measurements %.2f s; slower than runner.skip_slower times the "
         "best: %lld stopped there, %lld timed by their checked call alone; slower than "
         "runner.screen_slower times the best: %lld timed by a screening repeat; %lld probed "
         "by their checked call first, no best known yet)\n",
         r->total_s, r->search_s, r->fixed_s, r->build_s, r->measure_s,
         (long long)r->stopped, (long long)r->timed_once, (long long)r->screened,
         (long long)r->probed);
  const tsl_cand_service_stats *c = &r->cands;
  printf("candidates: %lld prepared, %lld from the cache, %lld replays (%.2f s), "
         "postprocessing %.2f s, %lld feature extractions (%.2f s); mutation %.2f s, "
         "prediction %.2f s, training %.2f s, lowering %.2f s\n",
         (long long)c->prepared, (long long)c->hits, (long long)c->replays, c->replay_s,
         c->postproc_s, (long long)c->featurized, c->feature_s, r->mutate_s, r->predict_s,
         r->train_s, r->lower_s);
  if (r->same_program)
    printf("duplicates: %lld traces made the program of an earlier candidate "
           "(strategy.dedup: program), none measured twice\n",
           (long long)r->same_program);
  if (r->n_tasks) { /* a model */
    printf("tasks:\n");
    for (uint32_t i = 0; i < r->n_tasks; i++) {
      const tsl_tune_task_result *t = &r->tasks[i];
      if (t->best_seconds > 0)
        printf("  %-28s weight %3.0f: %lld records, best %.3f us, %.3f GFLOPS (record %lld)\n",
               t->name, t->weight, (long long)t->total, t->best_seconds * 1e6,
               t->flops / t->best_seconds * 1e-9, (long long)t->best_record);
      else
        printf("  %-28s weight %3.0f: %lld records, no candidate ran successfully\n", t->name,
               t->weight, (long long)t->total);
    }
    if (r->best_seconds > 0)
      printf("model: the tasks' best latencies times their weights add up to %.3f us\n",
             r->best_seconds * 1e6);
    if (r->tuned_model_path)
      printf("tuned model (every tuned prim_func in place): %s%s%s\n", r->tuned_model_path,
             r->tuned_constants_path ? ", its constants: " : "",
             r->tuned_constants_path ? r->tuned_constants_path : "");
    if (r->export_path)
      printf("exported the model's kernels: %s\n", r->export_path);
    return;
  }
  if (r->best_seconds <= 0) {
    printf("no candidate ran successfully\n");
    return;
  }
  if (r->remeasured_s > 0) {
    double f = r->best_seconds > 0 ? r->best_gflops * r->best_seconds : 0; /* GFLOP per call */
    printf("best: %.3f us, %.3f GFLOPS re-measured (median of %u rounds in a fresh worker, "
           "%.3f to %.3f us; %u records measured again); %.3f us in the run (record %lld)\n\n",
           r->remeasured_s * 1e6, f / r->remeasured_s, r->remeasured_rounds,
           r->remeasured_min_s * 1e6, r->remeasured_max_s * 1e6, r->remeasured_n,
           r->best_seconds * 1e6, (long long)r->best_record);
  } else {
    printf("best: %.3f us, %.3f GFLOPS (record %lld)\n\n", r->best_seconds * 1e6,
           r->best_gflops, (long long)r->best_record);
  }
  printf("# best trace (run it with `tessel schedule PROGRAM SCRIPT`)\n%s\n",
         r->best_trace ? r->best_trace : "");
  printf("# optimized program\n%s", r->best_program ? r->best_program : "");
  if (r->export_path)
    printf("\nexported: %s\n", r->export_path);
}

int cli_tune(int argc, char **argv) {
  int h = cli_help_requested(argc, argv, cli_tune_usage);
  if (h >= 0)
    return h;
  const char *path = NULL;
  int json = 0;
  const char **sets = calloc((size_t)argc, sizeof *sets);
  uint32_t n_sets = 0;
  if (!sets)
    return cli_error("tune", "out of memory");
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) {
      json = 1;
    } else if (!strcmp(argv[i], "--set")) {
      if (i + 1 >= argc) {
        free(sets);
        return cli_error("tune", "--set needs KEY=VALUE");
      }
      sets[n_sets++] = argv[++i];
    } else if (!strncmp(argv[i], "--set=", 6)) {
      sets[n_sets++] = argv[i] + 6;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      free(sets);
      return cli_error("tune", "unknown option '%s'; see tessel tune --help", argv[i]);
    } else if (!path) {
      path = argv[i];
    } else {
      free(sets);
      return cli_error("tune", "one CONFIG expected, got '%s' too", argv[i]);
    }
  }
  if (!path) {
    free(sets);
    return cli_error("tune", "missing CONFIG; see tessel tune --help");
  }
  tsl_diag d = {0};
  tsl_run_config *cfg = NULL;
  int rc = tsl_run_config_load(path, n_sets, sets, &cfg, &d);
  free(sets);
  if (rc) {
    fprintf(stderr, "%s\n", d.text);
    return CLI_USAGE;
  }
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_registry *reg = NULL;
  rc = tsl_registry_new(ctx, &reg, &d);
  if (!rc)
    rc = tsl_registry_load_default(reg, cfg->n_plugin_paths, cfg->plugin_paths, &d);
  if (rc && cfg)
    locate_plugin_error(cfg, &d);
  if (!rc)
    rc = tsl_run_config_check_plugins(cfg, reg, &d);
  int status = CLI_OK;
  if (rc) {
    fprintf(stderr, "%s\n", d.text);
    status = CLI_USAGE;
  } else {
    char log_path[1200];
    snprintf(log_path, sizeof log_path, "%s/tune.log", cfg->work_dir);
    tune_ui ui = {.log_path = log_path, .config = cfg->path, .table = json ? stderr : stdout,
                  .tty = isatty(2)};
    tsl_tune_result r;
    memset(&r, 0, sizeof r);
    void (*old_int)(int) = signal(SIGINT, on_interrupt);
    void (*old_term)(int) = signal(SIGTERM, on_interrupt);
    rc = tsl_tune(cfg, reg, progress, &ui, &r, &d);
    signal(SIGINT, old_int);
    signal(SIGTERM, old_term);
    if (ui.bar_shown)
      fputc('\n', stderr);
    open_log(&ui);
    if (rc) { /* a located message says "error" itself (file:line:col: error: ...) */
      fprintf(stderr, "%s%s\n", strstr(d.text, ": error: ") ? "" : "tessel tune: error: ",
              d.text);
      if (ui.log)
        fprintf(ui.log, "error: %s\n", d.text);
      status = CLI_USAGE;
    } else {
      if (json)
        print_json(&r);
      else
        print_text(&r);
      if (ui.log)
        fprintf(ui.log, "done: %lld measured, %lld failed, best %.9g s\n",
                (long long)r.trials, (long long)r.errors, r.best_seconds);
    }
    if (ui.log)
      fclose(ui.log);
    free(ui.rows);
    tsl_tune_result_free(&r);
  }
  tsl_registry_free(reg);
  tsl_ctx_free(ctx);
  tsl_run_config_free(cfg);
  return status;
}
