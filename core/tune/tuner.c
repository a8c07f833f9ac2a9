/*
 * The tuner (tune.h): setup (workload, design space, target, strategy, cost
 * model, database, reference outputs), then batches: propose, replay and
 * lower, build in parallel, measure one at a time, record, learn, notify.
 */
#include "tuner_internal.h"
#include "base_internal.h"
#include "candidates_internal.h"
#include "tessel/analysis.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Above this many operations or elements the reference is the unscheduled
 * program compiled by the target, not the interpreter. */
#define TUNE_INTERP_MAX_OPS 8388608.0


int tune_located(tuner *tu, const char *key, int rc, const char *what) {
  const char *w = tsl_run_config_where(tu->run.cfg, key);
  return tsl_diag_set(tu->run.diag, rc, "%s: error: %s: %s", w ? w : tu->run.cfg->path,
                      key, what);
}


/* 1 when the key of `trace` was measured (database, this run) or proposed
 * in this run: one hash lookup in the candidate service. */
static int32_t is_measured(void *core_data, const tsl_trace *trace) {
  const tuner *tu = core_data;
  const char *key = tsl_trace_key(trace);
  return !key || tsl_cand_service_known(tu->task->cands, key);
}

typedef struct top_list {
  tsl_ctx *ctx;
  tsl_trace **out;
  uint32_t n, k;
} top_list;

static int take_top(void *user_data, const tsl_db_record *rec) {
  top_list *l = user_data;
  tsl_diag d;
  tsl_trace *t = NULL;
  if (l->n < l->k && !tsl_trace_from_json(l->ctx, rec->trace_json, &t, &d))
    l->out[l->n++] = t; /* a record that does not read back is skipped */
  return 0;
}

static int32_t top_measured(void *core_data, uint32_t k, tsl_trace **out, uint32_t *n_out,
                            tsl_diag *diag) {
  tuner *tu = core_data;
  top_list l = {tu->run.ctx, out, 0, k};
  int rc = k ? tsl_db_top(tu->run.db, tu->task->wid, tu->run.desc, k, take_top, &l, diag) : 0;
  *n_out = l.n;
  return rc;
}

/* ---- setup ------------------------------------------------------------------- */

static int located_option(tuner *tu, const char *section, const tsl_config_plugin *p,
                          int rc, const char *what);

int tune_load_program(tuner *tu) {
  const tsl_run_config *c = tu->run.cfg;
  tsl_diag d = {0};
  tu->tasks = calloc(1, sizeof *tu->tasks);
  if (!tu->tasks)
    return tsl_diag_set(tu->run.diag, TSL_ENOMEM, "out of memory");
  tu->n_tasks = 1;
  tu->task = &tu->tasks[0];
  tu->task->weight = 1;
  tu->task->best_s = -1;
  int rc = tsl_parse_file(tu->run.arena, c->workload_file, &tu->task->mod, &d);
  if (rc)
    return tsl_diag_set(tu->run.diag, rc, "%s", d.text);
  const tsl_module *m = tu->task->mod;
  const tsl_func *f = NULL;
  for (uint32_t i = 0; i < m->n_funcs; i++) {
    const char *name = m->funcs[i]->name;
    if (c->workload_func ? !strcmp(name, c->workload_func)
                         : (m->n_funcs == 1 || !strcmp(name, "main")))
      f = m->funcs[i];
  }
  if (!f) {
    char names[512] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < m->n_funcs && used + 4 < sizeof names; i++)
      used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                               m->funcs[i]->name);
    char what[800];
    if (c->workload_func)
      snprintf(what, sizeof what, "no such function in the workload file, got '%.100s%s'; "
               "valid: %s", c->workload_func, strlen(c->workload_func) > 100 ? "..." : "",
               names);
    else
      snprintf(what, sizeof what, "the workload has several functions and none is "
               "main; name one with workload.func; valid: %s", names);
    return tune_located(tu, c->workload_func ? "workload.func" : "workload", TSL_ENOTFOUND,
                   what);
  }
  if (c->n_workload_binds) {
    const char **names = calloc(c->n_workload_binds, sizeof *names);
    const char **values = calloc(c->n_workload_binds, sizeof *values);
    if (!names || !values)
      rc = tsl_diag_set(&d, TSL_ENOMEM, "out of memory");
    for (uint32_t i = 0; !rc && i < c->n_workload_binds; i++) {
      names[i] = c->workload_binds[i].key;
      values[i] = c->workload_binds[i].value;
    }
    if (!rc)
      rc = tsl_func_specialize(tu->run.arena, f, c->n_workload_binds, names, values, &f, &d);
    free(names);
    free(values);
    if (rc) {
      tsl_config_plugin binds = {NULL, c->n_workload_binds, c->workload_binds};
      return located_option(tu, "workload.binds", &binds, rc, d.text);
    }
    /* the space, the schedules and the candidates start from the module */
    tu->task->mod = tsl_module_with_func(tu->run.arena, m, f);
  }
  /* the rules, the reference and the measurements need every shape and
   * scalar: TVM tunes a specialized function too */
  char unbound[400];
  uint32_t n_unbound = tsl_func_free_names(f, unbound, sizeof unbound);
  if (n_unbound) {
    char what[900];
    int first = (int)strcspn(unbound, ",");
    snprintf(what, sizeof what, "function '%s' has %u symbolic size%s or scalar parameter%s "
             "without a value (%s); tuning needs them constant; valid: a value for each "
             "in workload.binds, e.g. binds: {%.*s: 64}",
             f->name, n_unbound, n_unbound > 1 ? "s" : "", n_unbound > 1 ? "s" : "", unbound,
             first, unbound);
    return tune_located(tu, c->n_workload_binds ? "workload.binds" : "workload", TSL_EINVALID, what);
  }
  tu->task->func = f;
  tu->task->func_name = f->name;
  tu->task->flops = tsl_func_flops(f);
  return TSL_OK;
}

/* What the rules know of the target: its kind, the cores from its
 * `threads` (or `num_cores`) option, else this machine's, the CPU
 * features the target reports (tsl_target_vtable.cpu_features), else this
 * machine's, and the vector width they give. */
static tsl_rule_target rule_target(const tuner *tu) {
  const tsl_run_config *c = tu->run.cfg;
  const tsl_target_vtable *vt = tu->run.tvt;
  const char *features = NULL;
  if (vt && tu->run.target &&
      vt->struct_size >= offsetof(tsl_target_vtable, cpu_features) + sizeof vt->cpu_features &&
      vt->cpu_features)
    features = vt->cpu_features(tu->run.target);
  if (!features)
    features = tsl_host_cpu_features();
  tsl_rule_target t = {sizeof t, c->target.kind, 0,
                       tsl_cpu_features_have(features, "avx512f") ? 64 : 32, features};
  for (uint32_t i = 0; i < c->target.n_opts; i++)
    if (!strcmp(c->target.opts[i].key, "threads") ||
        !strcmp(c->target.opts[i].key, "num_cores"))
      t.num_cores = atoi(c->target.opts[i].value);
  if (t.num_cores <= 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    t.num_cores = n > 0 ? (int32_t)n : 1;
  }
  return t;
}

/* The space of the target's default schedule rules (TVM's tune_tir): the
 * sketches, and the postprocessors every candidate goes through. */
/* The target's mutators (none for a target without defaults). */
static int load_mutators(tuner *tu) {
  tsl_rule_target t = rule_target(tu);
  tsl_diag d = {0};
  int rc = tsl_space_default_mutators(tu->run.reg, &t, &tu->task->mutators,
                                      &tu->task->n_mutators, &d);
  if (rc)
    return rc == TSL_EUNSUPPORTED ? TSL_OK : tune_located(tu, "target", rc, d.text);
  uint32_t n = tu->task->n_mutators;
  tu->task->timed_mutators = calloc(n + 1, sizeof *tu->task->timed_mutators);
  tu->task->timers = calloc(n + 1, sizeof *tu->task->timers);
  if (!tu->task->timed_mutators || !tu->task->timers)
    return tsl_diag_set(tu->run.diag, TSL_ENOMEM, "out of memory");
  for (uint32_t i = 0; i < n; i++) {
    const tsl_space_mutator *m = &tu->task->mutators[i];
    tu->task->timers[i] = (tune_timed_mutator){m->vtable, m->m, &tu->run.mutate_s};
    tu->task->timed_mutators[i] = *m;
    tu->task->timed_mutators[i].vtable = &tune_timed_mutator_vt;
    tu->task->timed_mutators[i].m = (tsl_trace_mutator *)&tu->task->timers[i];
  }
  return TSL_OK;
}

static int load_rule_space(tuner *tu) {
  tsl_rule_target t = rule_target(tu);
  tsl_space_rule *rules = NULL;
  uint32_t n_rules = 0;
  tsl_diag d = {0};
  int rc = tsl_space_default_rules(tu->run.reg, &t, &rules, &n_rules, &d);
  if (!rc)
    rc = tsl_space_default_postprocs(tu->run.reg, &t, &tu->task->pps, &tu->task->n_pps, &d);
  if (!rc)
    rc = tsl_space_generate(tu->run.ctx, tu->task->mod, tu->task->func_name, n_rules, rules,
                            tu->run.cfg->seed, tu->run.intrins, &tu->task->spaces,
                            &tu->task->n_spaces,
                            &d);
  tsl_space_rules_free(rules, n_rules);
  if (!rc && !tu->task->n_spaces)
    rc = tsl_diag_set(&d, TSL_EINVALID, "the rules derived no sketch");
  return rc ? tune_located(tu, "space", rc, d.text) : TSL_OK;
}

static int load_space(tuner *tu) {
  if (tu->run.cfg->space_rules)
    return load_rule_space(tu);
  char *src = NULL;
  size_t len = 0;
  tsl_diag d = {0};
  int rc = tsl_read_file(tu->run.cfg->space_schedule, &src, &len, &d);
  if (rc)
    return tsl_diag_set(tu->run.diag, rc, "%s", d.text);
  tsl_schedule_opts so = {sizeof so, tu->task->func_name, tu->run.cfg->seed, tu->run.intrins};
  tsl_schedule *sch = NULL;
  rc = tsl_schedule_new(tu->run.ctx, tu->task->mod, &so, &sch, &d);
  if (!rc)
    rc = tsl_script_run(sch, tu->run.cfg->space_schedule, src, len, &d);
  free(src);
  if (rc) {
    tsl_schedule_free(sch);
    return tsl_diag_set(tu->run.diag, rc, "design space: %s", d.text);
  }
  tu->task->spaces = calloc(1, sizeof *tu->task->spaces);
  if (tu->task->spaces && (tu->task->spaces[0] = tsl_trace_copy(tsl_schedule_trace(sch))))
    tu->task->n_spaces = 1;
  tsl_schedule_free(sch);
  return tu->task->n_spaces ? TSL_OK : tsl_diag_set(tu->run.diag, TSL_ENOMEM, "out of memory");
}

/* A plugin's create error, located at the option it names (one quoted,
 * 'key', first, as in "unknown option 'key'; valid: ..."; else a whole word
 * of the message) when there is one, else at the section. */
static int located_option(tuner *tu, const char *section, const tsl_config_plugin *p,
                          int rc, const char *what) {
  for (uint32_t i = 0; i < p->n_opts; i++) {
    char quoted[260];
    snprintf(quoted, sizeof quoted, "'%.256s'", p->opts[i].key);
    if (strstr(what, quoted)) {
      char key[256];
      snprintf(key, sizeof key, "%s.%s", section, p->opts[i].key);
      return tune_located(tu, key, rc, what);
    }
  }
  for (uint32_t i = 0; i < p->n_opts; i++) {
    const char *k = p->opts[i].key;
    size_t n = strlen(k);
    for (const char *at = strstr(what, k); at; at = strstr(at + 1, k)) {
      int starts = at == what || !(isalnum((unsigned char)at[-1]) || at[-1] == '_');
      int ends = !(isalnum((unsigned char)at[n]) || at[n] == '_' || at[n] == '-');
      if (starts && ends) {
        char key[256];
        snprintf(key, sizeof key, "%s.%s", section, k);
        return tune_located(tu, key, rc, what);
      }
    }
  }
  return tune_located(tu, section, rc, what);
}

static int open_component(tuner *tu, uint32_t kind, const char *key,
                          const tsl_config_plugin *p, const tsl_component **out) {
  tsl_diag d = {0};
  int rc = tsl_registry_require(tu->run.reg, kind, p->kind, out, &d);
  return rc ? tune_located(tu, key, rc, d.text) : TSL_OK;
}

/* cost_model.load (load 1) or cost_model.save; NULL when absent or the
 * caller's config predates them. */
static const char *model_file(const tsl_run_config *c, int load) {
  if (c->struct_size <= offsetof(tsl_run_config, cost_model_save))
    return NULL;
  return load ? c->cost_model_load : c->cost_model_save;
}

/* The run's target and cost model (one for all tasks, as TVM's task
 * scheduler keeps one). */
static int open_plugins(tuner *tu) {
  const tsl_run_config *c = tu->run.cfg;
  const tsl_component *comp;
  tsl_diag d = {0};
  int rc = open_component(tu, TSL_COMPONENT_TARGET, "target.kind", &c->target, &comp);
  if (rc)
    return rc;
  tu->run.tvt = comp->vtable;
  if ((rc = tu->run.tvt->create(comp->user_data, c->target.n_opts, c->target.opts,
                            &tu->run.target, &d)))
    return located_option(tu, "target", &c->target, rc, d.text);
  tu->run.desc = tu->run.tvt->describe(tu->run.target);
  if (c->cost_model.kind) {
    if ((rc = open_component(tu, TSL_COMPONENT_COST_MODEL, "cost_model.kind",
                             &c->cost_model, &comp)))
      return rc;
    tu->run.cvt = comp->vtable;
    if ((rc = tu->run.cvt->create(comp->user_data, c->cost_model.n_opts,
                              c->cost_model.opts, c->seed, &tu->run.cost, &d)))
      return located_option(tu, "cost_model", &c->cost_model, rc, d.text);
    tu->run.timed_cost = (tune_timed_model){tu->run.cvt, tu->run.cost, 0, 0};
    const char *load = model_file(c, 1);
    for (int k = 0; k < 2; k++) /* both checked before the file is read */
      if (model_file(c, k) && !(k ? tu->run.cvt->load : tu->run.cvt->save)) {
        char what[400];
        snprintf(what, sizeof what,
                 "cost model '%.200s' cannot %s; valid: a cost model with load and save, "
                 "e.g. xgb",
                 c->cost_model.kind, k ? "load a file" : "save itself");
        return tune_located(tu, k ? "cost_model.load" : "cost_model.save", TSL_EINVALID, what);
      }
    if (load && (rc = tu->run.cvt->load(tu->run.cost, load, &d)))
      return tune_located(tu, "cost_model.load", rc, d.text);
    if (load)
      fprintf(stderr, "tessel tune: the cost model loaded %s first\n", load);
  }
  return TSL_OK;
}

/* The task's own strategy. */
static int open_strategy(tuner *tu) {
  const tsl_run_config *c = tu->run.cfg;
  const tsl_component *comp;
  tsl_diag d = {0};
  int rc = open_component(tu, TSL_COMPONENT_STRATEGY, "strategy.kind", &c->strategy, &comp);
  if (rc)
    return rc;
  tu->task->svt = comp->vtable;
  if ((rc = tu->task->svt->create(comp->user_data, c->strategy.n_opts, c->strategy.opts,
                                  &tu->task->strategy, &d)))
    return located_option(tu, "strategy", &c->strategy, rc, d.text);
  return TSL_OK;
}

static double buffer_elems(const tsl_func *f) {
  double total = 0;
  for (uint32_t i = 0; i < f->n_params; i++) {
    const tsl_buffer *b = f->params[i].buffer;
    if (!b)
      continue;
    double n = 1;
    for (uint32_t k = 0; k < b->ndim; k++) {
      int64_t v;
      if (!tsl_expr_is_const_int(b->shape[k], &v))
        return -1;
      n *= (double)v;
    }
    total += n;
  }
  return total;
}

/* Lower the unscheduled function (its parameters describe the arguments)
 * and make the reference outputs once. */
static int open_session(tuner *tu) {
  tsl_diag d = {0};
  int rc = tsl_lower_func(tu->run.arena, tu->task->func, NULL, &tu->task->ref_lf, &d);
  if (rc)
    return tsl_diag_set(tu->run.diag, rc, "lowering the workload: %s", d.text);
  tsl_reference ref = {sizeof ref, NULL, NULL};
  if (tu->run.cfg->check) {
    double elems = buffer_elems(tu->task->func);
    int small = tu->task->flops >= 0 && elems >= 0 &&
                (tu->task->flops > elems ? tu->task->flops : elems) <= TUNE_INTERP_MAX_OPS;
    if (small) {
      ref.interp_func = tu->task->func;
    } else {
      /* the same outputs, bound to threads on a GPU, elsewhere loops
       * ordered for speed; as written when that fails or cannot be
       * lowered */
      const tsl_lowered_func *one[1] = {tu->task->ref_lf};
      tsl_rule_target t = rule_target(tu);
      if (!tsl_tune_reference_schedule(tu->run.ctx, tu->task->mod, tu->task->func_name,
                                       tu->task->func, tu->run.reg, &t, &tu->task->ref_sch, &d) &&
          tsl_lower_func(tu->run.arena, tsl_schedule_func(tu->task->ref_sch), NULL, &one[0], &d))
        one[0] = tu->task->ref_lf;
      tsl_lowered_module lm = {sizeof lm, 1, one, 0, NULL};
      if ((rc = tu->run.tvt->build(tu->run.target, &lm, &tu->task->ref_kernel, NULL, &d)))
        return tsl_diag_set(tu->run.diag, rc, "building the reference: %s", d.text);
      ref.compiled_fn = tu->run.tvt->lookup(tu->task->ref_kernel, tu->task->func_name);
      if (!ref.compiled_fn)
        return tsl_diag_set(tu->run.diag, TSL_ENOTFOUND,
                            "building the reference: no function '%s'", tu->task->func_name);
    }
  }
  tu->task->ref = ref;
  if ((rc = tsl_measure_session_new_on(tu->task->ref_lf, &ref, &tu->run.cfg->runner, tu->run.tvt,
                                       tu->run.target, &tu->task->session, &d)))
    return tsl_diag_set(tu->run.diag, rc, "reference outputs: %s", d.text);
  return TSL_OK;
}

static int mark_known(void *user_data, const tsl_db_record *rec) {
  return tsl_cand_service_mark(user_data, rec->decisions);
}

/* The run's candidate service, knowing the database's records. */
static int open_candidates(tuner *tu) {
  const tsl_run_config *cfg = tu->run.cfg;
  int32_t by_program = cfg->struct_size > offsetof(tsl_run_config, dedup_program) &&
                       cfg->dedup_program;
  tsl_cand_service_opts o = {sizeof o, tu->run.ctx, tu->task->mod, tu->task->func_name,
                             tu->run.intrins, tu->task->n_pps, tu->task->pps, 0, by_program};
  tsl_diag d = {0};
  int rc = tsl_cand_service_new(&o, &tu->task->cands, &d);
  if (rc)
    return tsl_diag_set(tu->run.diag, rc, "%s", d.text);
  rc = tsl_db_each(tu->run.db, tu->task->wid, tu->run.desc, mark_known, tu->task->cands, &d);
  return rc ? tune_located(tu, "database", rc, d.text) : TSL_OK;
}

/* The tensor intrinsics of the registry (built-ins and plugins), which a
 * schedule script's tensorize and every replay of its trace use. */
static int load_intrins(tuner *tu) {
  tsl_diag d = {0};
  int rc = tsl_registry_intrins(tu->run.reg, tu->run.arena, &tu->run.intrins, &d);
  return rc ? tsl_diag_set(tu->run.diag, rc, "plugins: %s", d.text) : TSL_OK;
}

/* What one task needs: its design space, strategy and mutators, its
 * database workload, its candidates and its reference outputs. */
static int open_task(tuner *tu) {
  int rc;
  if ((rc = load_space(tu)) || (rc = open_strategy(tu)) || (rc = load_mutators(tu)))
    return rc;
  tsl_diag d = {0};
  if ((rc = tsl_db_workload(tu->run.db, tu->task->func, tu->task->flops, &tu->task->wid, &d)))
    return tsl_diag_set(tu->run.diag, rc, "%s", d.text);
  if ((rc = open_candidates(tu)))
    return rc;
  return open_session(tu);
}

static int setup(tuner *tu) {
  int rc;
  if ((rc = tune_load_tasks(tu)) || (rc = load_intrins(tu)) || (rc = open_plugins(tu)))
    return rc;
  tsl_diag d = {0};
  if ((rc = tsl_db_open(tu->run.cfg->database, TSL_DB_CREATE, &tu->run.db, &d)))
    return tune_located(tu, "database", rc, d.text);
  /* builds of this run in a folder of its own: runs sharing a work folder
   * never see each other's libraries */
  snprintf(tu->run.builds_dir, sizeof tu->run.builds_dir, "%s/builds", tu->run.cfg->work_dir);
  tune_purge_builds(tu->run.builds_dir);
  snprintf(tu->run.builds_dir, sizeof tu->run.builds_dir, "%s/builds/run-%ld",
           tu->run.cfg->work_dir, (long)getpid());
  if ((rc = tsl_mkdir_p(tu->run.builds_dir, &d)))
    return tune_located(tu, "work_dir", rc, d.text);
  if (tu->run.cfg->export_path && (rc = tune_check_export(tu->run.cfg->export_path, &d)))
    return tune_located(tu, "export", rc, d.text);
  for (uint32_t i = 0; i < tu->n_tasks && !rc; i++) {
    tu->task = &tu->tasks[i];
    rc = open_task(tu);
  }
  return rc;
}

static void close_task(tuner *tu) {
  tune_task *t = tu->task;
  if (t->session)
    tsl_measure_session_free(t->session);
  if (t->ref_kernel)
    tu->run.tvt->kernel_free(t->ref_kernel);
  tsl_schedule_free(t->ref_sch);
  if (t->strategy)
    t->svt->destroy(t->strategy);
  for (uint32_t i = 0; i < t->n_spaces; i++)
    tsl_trace_free(t->spaces[i]);
  free(t->spaces);
  tsl_space_postprocs_free(t->pps, t->n_pps);
  tsl_space_mutators_free(t->mutators, t->n_mutators);
  free(t->timed_mutators);
  free(t->timers);
  tsl_cand_service_free(t->cands);
  free(t->history);
}

static void teardown(tuner *tu) {
  for (uint32_t i = 0; i < tu->n_tasks; i++) {
    tu->task = &tu->tasks[i];
    close_task(tu);
  }
  if (tu->run.cost)
    tu->run.cvt->destroy(tu->run.cost);
  if (tu->run.target)
    tu->run.tvt->destroy(tu->run.target);
  tsl_db_close(tu->run.db);
  if (tu->run.builds_dir[0])
    tune_remove_builds(tu->run.builds_dir);
  tsl_intrin_registry_free(tu->run.intrins);
  free(tu->tasks);
  tsl_weights_free(tu->constants);
  tsl_weights_free(tu->onnx_weights);
}

/* ---- one batch ------------------------------------------------------------------ */

typedef struct cand {
  tsl_trace *trace; /* owned; the postprocessed one once replayed */
  const char *key;  /* interned */
  tsl_cand *cand;   /* the service's candidate (a reference), or NULL */
  tsl_schedule *sch; /* the candidate's */
  const tsl_lowered_func *lf;      /* its main function */
  tsl_prepack_split split;         /* weights packed ahead of the calls */
  const tsl_lowered_func *one[2];  /* main, and prepack when it packs */
  tsl_lowered_module lm;
  measure_build_job *job;
  tsl_measured res;
  tsl_run_result probe; /* its checked call alone, when the batch was probed */
  tsl_run_result final; /* a probed batch's outcome (status and error
                           included; struct_size 0: none), recorded at the
                           batch's end */
} cand;

/* The database record of a candidate's outcome (`r` NULL: a failure
 * before any run), and c->res from it; written unless `write` is 0 (a
 * probed batch's records are written at its end, in learn_batch). */
static void make_record(tuner *tu, cand *c, const tsl_run_result *r, int32_t status,
                        const char *error, double build_s, int write) {
  tsl_db_record rec;
  memset(&rec, 0, sizeof rec);
  rec.struct_size = sizeof rec;
  rec.workload_id = tu->task->wid;
  rec.target = tu->run.desc;
  rec.decisions = c->key;
  rec.status = status;
  rec.error = error && *error ? error : NULL;
  rec.latency_s = -1;
  if (r && (status == TSL_RUN_OK || status == TSL_RUN_MISMATCH || status == TSL_RUN_STOPPED)) {
    /* a stopped candidate's: a lower bound */
    rec.latency_s = status != TSL_RUN_MISMATCH ? r->median_s : -1;
    rec.n_times = r->n_times > 0 ? (uint32_t)r->n_times : 0;
    if (rec.n_times > TSL_DB_MAX_TIMES)
      rec.n_times = TSL_DB_MAX_TIMES;
    memcpy(rec.times_s, r->times_s, rec.n_times * sizeof(double));
  }
  rec.build_s = build_s;
  rec.version = TSL_VERSION_STRING;
  rec.timestamp = (int64_t)time(NULL);
  char *json = NULL;
  if (write) {
    json = tsl_trace_to_json(c->trace);
    rec.trace_json = json ? json : "{}";
    tsl_diag d = {0};
    int rc = tsl_db_add(tu->run.db, &rec, &d);
    if (rc && !tu->run.db_rc) {
      tu->run.db_rc = rc;
      tune_located(tu, "database", rc, d.text);
    }
  }
  free(json);
  c->res.struct_size = sizeof c->res;
  c->res.trace = c->trace;
  c->res.status = status;
  c->res.latency_s = rec.latency_s;
  c->res.gflops =
      rec.latency_s > 0 && tu->task->flops > 0 ? tu->task->flops / rec.latency_s * 1e-9 : 0;
}

static void record(tuner *tu, cand *c, const tsl_run_result *r, int32_t status,
                   const char *error, double build_s) {
  make_record(tu, c, r, status, error, build_s, 1);
}

typedef struct run_state {
  int64_t measured, errors;
  double t0, build_s, measure_s;
  int64_t timed_once, stopped, screened, probed;
  int defer_records; /* a probed batch: records written at its end */
  tsl_tune_progress_fn progress;
  void *user_data;
} run_state;

/* `ratio` times the best latency `best`; 0 (no bound) without a best or a
 * ratio. */
static double ratio_of_best(double best, double ratio) {
  return best > 0 && ratio > 0 ? best * ratio : 0;
}

/* A built candidate measured by the session, its bounds from `best` (the
 * run's best latency, or the best probe's checked call). */
static int measure_cand(tuner *tu, run_state *st, cand *c, const char *symbol, double best,
                        tsl_run_result *r, tsl_diag *md) {
  /* a candidate far slower than the best is timed by its checked call
   * alone; one nearer the best gets a short screening repeat first */
  tsl_measure_session_set_slow_bound(tu->task->session,
                                     ratio_of_best(best, tu->run.cfg->skip_slower));
  tsl_measure_session_set_screen_bound(tu->task->session,
                                       ratio_of_best(best, tu->run.cfg->screen_slower));
  double m0 = measure_now();
  int mrc;
  if (c->split.n_packed) {
    char prepack[600];
    snprintf(prepack, sizeof prepack, "%s_%s_packed", TUNE_PREFIX, c->split.prepack->name);
    mrc = tsl_measure_session_run_prepacked(tu->task->session, &c->split, c->job->so_path, symbol,
                                            prepack, r, md);
  } else {
    mrc = tsl_measure_session_run(tu->task->session, c->lf, c->job->so_path, symbol, NULL, r, md);
  }
  st->measure_s += measure_now() - m0;
  return mrc;
}

/* The end of a candidate's measurement (`r`: its result, NULL when it was
 * recorded already): the record (kept for the batch's end when deferred),
 * the run's counters and best, progress. */
static void settle(tuner *tu, run_state *st, cand *c, const tsl_run_result *r, int mrc,
                   const char *why, int last) {
  if (r) {
    st->stopped += !mrc && r->status == TSL_RUN_STOPPED;
    st->timed_once += !mrc && r->timing_skipped == 1 && r->status != TSL_RUN_STOPPED;
    st->screened += !mrc && r->timing_skipped == 2;
    int32_t status = mrc ? TSL_RUN_SETUP_ERROR : r->status;
    const char *error = mrc ? why : r->error;
    if (st->defer_records) { /* written at the batch's end, in the order generated */
      c->final = *r;
      c->final.struct_size = sizeof c->final;
      c->final.status = status;
      snprintf(c->final.error, sizeof c->final.error, "%s", error ? error : "");
    }
    make_record(tu, c, r, status, error, c->job->build_s, !st->defer_records);
    unlink(c->job->so_path);
  }
  st->measured++;
  tu->task->done++;
  if (c->res.status != TSL_RUN_OK && c->res.status != TSL_RUN_STOPPED)
    st->errors++;
  else if (c->res.status == TSL_RUN_OK && (tu->task->best_s < 0 || c->res.latency_s < tu->task->best_s))
    tu->task->best_s = c->res.latency_s;
  if (st->progress) {
    tsl_tune_progress p = {sizeof p, tu->task->func_name, tu->task->flops, tu->task->done,
                           tu->run.cfg->trials, st->measured, st->errors, tu->task->best_s,
                           measure_now() - st->t0, last, (uint32_t)(tu->task - tu->tasks),
                           tu->n_tasks, tu->task->weight};
    st->progress(st->user_data, &p);
  }
}

/* Probed candidates, fastest checked call first (ties: generation order). */
static int by_probe(const void *a, const void *b) {
  const cand *x = *(cand *const *)a, *y = *(cand *const *)b;
  if (x->probe.check_s != y->probe.check_s)
    return x->probe.check_s < y->probe.check_s ? -1 : 1;
  return x < y ? -1 : x > y;
}

/* A batch: the strategy's traces, the candidates claimed for it, their builds and their
 * measurement order, and the arena of their lowered functions. */
typedef struct batch {
  uint32_t max, n;        /* traces asked for, and generated */
  tsl_trace **traces;     /* a strategy of ABI 1.0's traces (owned), or */
  tsl_cand **cands;       /* the candidates of one with generate_cands (references) */
  const char **keys;      /* each one's key to claim (interned), or NULL */
  int *claimed;           /* tsl_db_claim_batch's answer for each */
  cand *cs;               /* the claimed candidates, in the order generated */
  uint32_t kept, taken;   /* claimed; measured or held by another run */
  measure_build_job *jobs;
  uint32_t n_jobs;
  cand **order;           /* the measurement order */
  uint32_t n_order, left; /* its length; candidates not yet settled */
  tsl_arena *arena;
} batch;

static int batch_init(tuner *tu, batch *b, uint32_t max) {
  memset(b, 0, sizeof *b);
  b->max = max;
  b->traces = calloc(max, sizeof *b->traces);
  b->cs = calloc(max, sizeof *b->cs);
  b->jobs = calloc(max, sizeof *b->jobs);
  b->order = calloc(max, sizeof *b->order);
  b->cands = calloc(max, sizeof *b->cands);
  b->keys = calloc(max, sizeof *b->keys);
  b->claimed = calloc(max, sizeof *b->claimed);
  if (!b->traces || !b->cs || !b->jobs || !b->order || !b->cands || !b->keys ||
      !b->claimed)
    return tsl_diag_set(tu->run.diag, TSL_ENOMEM, "out of memory");
  b->arena = tsl_arena_new(tu->run.ctx);
  return TSL_OK;
}

static void batch_free(batch *b) {
  tsl_arena_free(b->arena);
  free(b->traces);
  free(b->cs);
  free(b->jobs);
  free(b->order);
  free(b->cands);
  free(b->keys);
  free(b->claimed);
}

/* Up to `max` traces from the strategy. */
static int generate_batch(tuner *tu, batch *b) {
  tsl_diag d = {0};
  const tsl_strategy_vtable *vt = tu->task->svt;
  int cands = vt->struct_size >= offsetof(tsl_strategy_vtable, generate_cands) +
                                     sizeof vt->generate_cands && vt->generate_cands;
  int rc = cands ? vt->generate_cands(tu->task->strategy, b->max, b->cands, &b->n, &d)
                 : vt->generate(tu->task->strategy, b->max, b->traces, &b->n, &d);
  if (rc)
    return tsl_diag_set(tu->run.diag, rc, "strategy: %s", d.text);
  if (b->n > b->max) /* a misbehaving strategy: keep the budget */
    b->n = b->max;
  return TSL_OK;
}

/* The traces' keys claimed, the claimed ones kept as the batch's candidates. */
/* The key of the batch's i-th candidate, taken by this run, or NULL when
 * it has none or was taken before. A 1.0 strategy's trace gets its
 * candidate here: found (prepared before) or made; a key measured before
 * the run goes to the claim without a replay (the claim finds its record).
 * The service's known keys are the run's one "seen" set. */
static const char *take_key(tuner *tu, batch *b, uint32_t i) {
  tsl_cand_service *svc = tu->task->cands;
  const char *k = !b->cands[i] && b->traces[i] ? tsl_trace_key(b->traces[i]) : NULL;
  if (k) {
    tsl_diag rd = {0};
    b->cands[i] = tsl_cand_service_find(svc, k);
    if (!b->cands[i] && tsl_cand_service_known(svc, k))
      return tsl_intern(tu->run.ctx, k);
    if (!b->cands[i] && tsl_cand_service_prepare(svc, b->traces[i], 0, tu->run.cfg->seed,
                                                 &b->cands[i], &rd))
      b->cands[i] = NULL; /* it does not replay: recorded as a build error */
  }
  if (b->cands[i]) {
    if (cands_take(b->cands[i]))
      return NULL;
    tsl_cand_service_mark(svc, tsl_cand_key(b->cands[i]));
    return tsl_cand_key(b->cands[i]);
  }
  if (!k || tsl_cand_service_known(svc, k))
    return NULL;
  tsl_cand_service_mark(svc, k);
  return tsl_intern(tu->run.ctx, k);
}

static void claim_batch(tuner *tu, batch *b, int *exhausted, int *budget_full) {
  const char **keys = b->keys;
  int *claimed = b->claimed;
  /* never measure twice: taken in this run (here), measured or held by
   * another run (the claim below checks the database) */
  for (uint32_t i = 0; i < b->n; i++) {
    keys[i] = take_key(tu, b, i);
    for (uint32_t j = 0; keys[i] && j < i; j++) /* interned: one pointer per key */
      keys[i] = keys[j] == keys[i] ? NULL : keys[i];
  }
  /* the batch's keys claimed in one transaction */
  tsl_diag cd = {0};
  if (!tu->run.db_rc && !*budget_full &&
      tsl_db_claim_batch(tu->run.db, tu->task->wid, tu->run.desc, b->n, keys,
                         tu->run.cfg->trials, claimed, &cd)) {
    tu->run.db_rc = TSL_EIO;
    tune_located(tu, "database", TSL_EIO, cd.text);
  }
  for (uint32_t i = 0; i < b->n; i++) {
    const char *key = keys[i];
    tsl_cand *given = b->cands[i];
    if (key && claimed[i] == 1) {
      cand *c = &b->cs[b->kept++];
      c->trace = b->traces[i];
      c->key = key;
      c->cand = given; /* the reference passes on */
      continue;
    }
    if (key) {
      /* measured or held by another run (0): the key stays taken, never
       * proposed again; the budget spent (2): the rest of the batch is
       * dropped */
      if (claimed[i] == 2) { /* not taken after all: a later batch may take it */
        *budget_full = 1;
        if (given)
          cands_untake(given);
        cands_forget(tu->task->cands, key);
      }
      b->taken += claimed[i] == 0 && !tu->run.db_rc;
      tsl_cand *gone = given ? tsl_cand_ref(given) : tsl_cand_service_find(tu->task->cands, key);
      if (gone) { /* a strategy's proposal that will not be measured */
        cands_measured(gone);
        tsl_cand_unref(gone);
      }
    }
    if (given && !key) /* taken before: a proposal made again keeps nothing */
      cands_measured(given);
    tsl_cand_unref(given);
    tsl_trace_free(b->traces[i]);
  }
  /* nothing new (or only duplicates a strategy should not send): stop;
   * candidates other runs hold are not the end of the space */
  *exhausted = b->kept == 0 && b->taken == 0 && !*budget_full;
}

/* The candidate's schedule, and its trace the postprocessed one; 0 when it
 * failed (recorded). */
static int prepare_cand(tuner *tu, cand *c) {
  /* the strategy's candidate (replayed and postprocessed once), or, for
   * a strategy that does not use the service, prepared now; a rejection
   * by a postprocessor (TVM's) is a failed candidate, and the trace
   * recorded is the postprocessed one, which replays alone */
  tsl_diag rd = {0};
  if (!c->cand)
    c->cand = tsl_cand_service_find(tu->task->cands, c->key);
  int prc = c->cand ? 0
                    : tsl_cand_service_prepare(tu->task->cands, c->trace, 0, tu->run.cfg->seed,
                                               &c->cand, &rd);
  if (!prc)
    prc = tsl_cand_schedule(c->cand, &c->sch, &rd);
  tsl_trace *pt = prc ? NULL : tsl_trace_copy(tsl_schedule_trace(c->sch));
  if ((prc || !pt) && !c->trace && c->cand) /* the trace recorded */
    c->trace = tsl_trace_copy(tsl_cand_trace(c->cand));
  if (prc || !pt) {
    c->sch = NULL;
    record(tu, c, NULL, TSL_RUN_BUILD_ERROR, prc ? rd.text : "out of memory", -1);
    return 0;
  }
  tsl_trace_free(c->trace);
  c->trace = pt;
  return 1;
}

/* The candidate lowered, its main function and prepack, as a build job
 * (recorded when it fails). */
static void lower_cand(tuner *tu, batch *b, cand *c, uint32_t batch_no) {
  /* the weights' packing (RewriteLayout) runs ahead of the timed calls,
   * as in TVM's builder (RemoveWeightLayoutRewriteBlock) */
  tsl_diag rd = {0};
  double l0 = measure_now();
  int lrc = tsl_func_split_prepack(b->arena, tsl_schedule_func(c->sch), &c->split, &rd);
  if (!lrc)
    lrc = tsl_lower_func(b->arena, c->split.main, NULL, &c->lf, &rd);
  if (!lrc && c->split.prepack)
    lrc = tsl_lower_func(b->arena, c->split.prepack, NULL, &c->one[1], &rd);
  tu->run.lower_s += measure_now() - l0;
  if (lrc) {
    char text[600];
    snprintf(text, sizeof text, "lowering: %.580s", rd.text);
    record(tu, c, NULL, TSL_RUN_BUILD_ERROR, text, -1);
    return;
  }
  c->one[0] = c->lf;
  c->lm = (tsl_lowered_module){sizeof c->lm, c->split.prepack ? 2 : 1, c->one, 0, NULL};
  c->job = &b->jobs[b->n_jobs++];
  c->job->lm = &c->lm;
  snprintf(c->job->so_path, sizeof c->job->so_path, "%.900s/cand_%u_%u.so",
           tu->run.builds_dir, batch_no, (unsigned)(c - b->cs));
}

static void prepare_batch(tuner *tu, batch *b, uint32_t batch_no) {
  for (uint32_t i = 0; i < b->kept; i++)
    if (prepare_cand(tu, &b->cs[i]))
      lower_cand(tu, b, &b->cs[i], batch_no);
}

static void build_batch(tuner *tu, run_state *st, batch *b) {
  double t0 = measure_now();
  if (b->n_jobs)
    measure_build_batch(tu->run.tvt, tu->run.target, TUNE_PREFIX, b->jobs, b->n_jobs,
                        tu->run.cfg->build_workers, tu->run.cfg->build_timeout_s);
  st->build_s += measure_now() - t0;
}

/* A batch that starts without a best (the run's first) is probed first:
 * every candidate's checked call alone, stopped past skip_slower times
 * the fastest probe so far; then the rest are timed, fastest probe first,
 * so the first candidates timed are not the slow ones that happened to
 * come first (docs/decisions.md, "Probing the first batch"). */
static void probe_batch(tuner *tu, run_state *st, batch *b, const char *symbol) {
  int probe = tu->run.cfg->screen_slower > 0 && tu->task->best_s < 0 && b->kept > 1;
  double best_probe = -1;
  tsl_measure_session_set_check_only(tu->task->session, probe);
  st->defer_records = probe;
  for (uint32_t i = 0; i < b->kept; i++) {
    cand *c = &b->cs[i];
    if (!probe || tu->run.db_rc || !c->job || !c->job->ok) {
      b->order[b->n_order++] = c; /* settled in time_batch */
      continue;
    }
    st->probed++;
    tsl_diag md = {0};
    int mrc = measure_cand(tu, st, c, symbol, best_probe, &c->probe, &md);
    if (!mrc && c->probe.status == TSL_RUN_OK && c->probe.timing_skipped == 3) {
      b->order[b->n_order++] = c;
      if (best_probe < 0 || c->probe.check_s < best_probe)
        best_probe = c->probe.check_s;
    } else { /* stopped, failed, or its checked call is its time */
      settle(tu, st, c, &c->probe, mrc, md.text, --b->left == 0);
    }
  }
  tsl_measure_session_set_check_only(tu->task->session, 0);
  if (probe)
    qsort(b->order, b->n_order, sizeof *b->order, by_probe);
}

/* The candidates in the batch's order timed (or settled as they stand). */
static void time_batch(tuner *tu, run_state *st, batch *b, const char *symbol) {
  /* the runner's rule for a checked call past the slow bound */
  double trusted_s = measure_trusted_call_s(&tu->run.cfg->runner);
  for (uint32_t k = 0; k < b->n_order; k++) {
    cand *c = b->order[k];
    int last = --b->left == 0;
    if (tu->run.db_rc) { /* the database failed: measure nothing more */
      tsl_diag ud = {0};
      tsl_db_unclaim(tu->run.db, tu->task->wid, tu->run.desc, c->key, &ud);
      if (c->job)
        unlink(c->job->so_path);
      c->res = (tsl_measured){sizeof c->res, c->trace, TSL_RUN_SETUP_ERROR, -1, 0};
      settle(tu, st, c, NULL, 0, NULL, last);
      continue;
    }
    if (!c->job || !c->job->ok) { /* recorded before the builds, or now */
      if (c->job)
        record(tu, c, NULL, TSL_RUN_BUILD_ERROR, c->job->error, c->job->build_s);
      settle(tu, st, c, NULL, 0, NULL, last);
      continue;
    }
    double slow_s = ratio_of_best(tu->task->best_s, tu->run.cfg->skip_slower);
    if (c->probe.timing_skipped == 3 && slow_s > 0 && c->probe.check_s > slow_s &&
        c->probe.check_s >= trusted_s) { /* its probe is its time */
      c->probe.timing_skipped = 1;
      settle(tu, st, c, &c->probe, 0, NULL, last);
      continue;
    }
    tsl_run_result r;
    tsl_diag md = {0};
    int mrc = measure_cand(tu, st, c, symbol, tu->task->best_s, &r, &md);
    settle(tu, st, c, &r, mrc, md.text, last);
  }
}

static void measure_batch(tuner *tu, run_state *st, batch *b) {
  char symbol[512];
  snprintf(symbol, sizeof symbol, "%s_%s_packed", TUNE_PREFIX, tu->task->func_name);
  b->left = b->kept;
  probe_batch(tu, st, b, symbol);
  time_batch(tu, st, b, symbol);
  st->defer_records = 0;
}

/* The batch's outcomes learned: a probed batch's records, the cost
 * model's update, the strategy's notify; then its candidates released. */
static int learn_batch(tuner *tu, batch *b) {
  int rc = TSL_OK;
  uint32_t kept = b->kept;
  cand *cs = b->cs;
  /* a probed batch's records, in the order its candidates were generated:
   * the first N records of a run are its first N candidates, as in a run
   * of N trials */
  for (uint32_t i = 0; i < kept; i++)
    if (cs[i].final.struct_size && !tu->run.db_rc)
      make_record(tu, &cs[i], &cs[i].final, cs[i].final.status, cs[i].final.error,
                  cs[i].job->build_s, 1);
  tsl_measured *res = calloc(kept ? kept : 1, sizeof *res);
  tsl_candidate *views = calloc(kept ? kept : 1, sizeof *views);
  if (res && views) {
    for (uint32_t i = 0; i < kept; i++) {
      res[i] = cs[i].res;
      if (cs[i].sch) { /* the service's view: features extracted once */
        views[i] = *tsl_cand_view(cs[i].cand);
        views[i].lowered = cs[i].lf ? &cs[i].lm : NULL;
      } else {
        views[i] = (tsl_candidate){sizeof views[i], cs[i].trace, NULL, NULL, tu->task->mod,
                                   NULL, NULL};
      }
    }
    tsl_diag ud = {0};
    /* the model learns for the next batch: none after the run's last,
     * unless it is saved (cost_model.save: every measurement kept) */
    int more = model_file(tu->run.cfg, 0) != NULL; /* or any task with budget left */
    for (uint32_t t = 0; t < tu->n_tasks; t++)
      more |= !tu->tasks[t].exhausted && tu->tasks[t].done < tu->run.cfg->trials;
    if (kept && more && tu->run.cost &&
        tune_timed_model_vt.update((tsl_cost_model *)&tu->run.timed_cost, kept, views, res,
                                   &ud))
      fprintf(stderr, "tessel tune: warning: cost model update: %s\n", ud.text);
    tsl_diag nd = {0};
    int nrc = kept ? tu->task->svt->notify(tu->task->strategy, kept, res, &nd) : 0;
    if (nrc)
      rc = tsl_diag_set(tu->run.diag, nrc, "strategy: %s", nd.text);
  }
  free(res);
  free(views);
  for (uint32_t i = 0; i < kept; i++) {
    if (cs[i].cand) {
      cands_measured(cs[i].cand);
      tsl_cand_unref(cs[i].cand);
    }
    tsl_trace_free(cs[i].trace);
  }
  tsl_cand_service_sweep(tu->task->cands);
  return rc;
}

static int run_batch(tuner *tu, run_state *st, uint32_t max, int *exhausted,
                     int *budget_full, uint32_t batch_no) {
  batch b;
  int rc = batch_init(tu, &b, max);
  if (!rc)
    rc = generate_batch(tu, &b);
  if (!rc) {
    claim_batch(tu, &b, exhausted, budget_full);
    prepare_batch(tu, &b, batch_no);
    build_batch(tu, st, &b);
    measure_batch(tu, st, &b);
    rc = learn_batch(tu, &b);
  }
  batch_free(&b);
  return rc ? rc : tu->run.db_rc;
}

/* ---- the cost model's warm start ----------------------------------------------- */

enum { WARM_CHUNK = 256 };

typedef struct warm {
  tuner *tu;
  tsl_cand *c[WARM_CHUNK];
  tsl_candidate cand[WARM_CHUNK];
  tsl_measured res[WARM_CHUNK];
  uint32_t n;
  int64_t fed;
  int rc;
} warm;

static void warm_flush(warm *w) {
  tuner *tu = w->tu;
  tsl_diag d = {0};
  tsl_cost_model *model = (tsl_cost_model *)&tu->run.timed_cost;
  if (w->n && !w->rc && tune_timed_model_vt.update(model, w->n, w->cand, w->res, &d))
    fprintf(stderr, "tessel tune: warning: cost model warm start: %s\n", d.text);
  w->fed += w->n;
  for (uint32_t i = 0; i < w->n; i++)
    tsl_cand_unref(w->c[i]);
  w->n = 0;
  tsl_cand_service_sweep(tu->task->cands);
}

static int warm_record(void *user_data, const tsl_db_record *rec) {
  warm *w = user_data;
  tuner *tu = w->tu;
  tsl_diag d;
  tsl_trace *t = NULL;
  tsl_cand *c = NULL;
  int rc = tsl_trace_from_json(tu->run.ctx, rec->trace_json, &t, &d);
  if (!rc)
    rc = tsl_cand_service_prepare(tu->task->cands, t, 0, tu->run.cfg->seed, &c, &d);
  tsl_trace_free(t);
  if (rc < 0 && rc != TSL_EINVALID)
    return rc;
  if (rc) /* a record that no longer replays teaches nothing */
    return 0;
  uint32_t i = w->n++;
  w->c[i] = c;
  w->cand[i] = *tsl_cand_view(c);
  w->res[i] = (tsl_measured){sizeof w->res[i], w->cand[i].trace, rec->status, rec->latency_s,
                             rec->latency_s > 0 && tu->task->flops > 0
                                 ? tu->task->flops / rec->latency_s * 1e-9 : 0};
  if (w->n == WARM_CHUNK)
    warm_flush(w);
  return 0;
}

/* A resumed run's cost model learns the database's records of this
 * workload and target first (the records' traces replayed). */
static int warm_start(tuner *tu, int64_t *fed) {
  *fed = 0;
  if (!tu->run.cost)
    return TSL_OK;
  warm *w = calloc(1, sizeof *w);
  if (!w)
    return tsl_diag_set(tu->run.diag, TSL_ENOMEM, "out of memory");
  w->tu = tu;
  tsl_diag d = {0};
  int rc = tsl_db_each(tu->run.db, tu->task->wid, tu->run.desc, warm_record, w, &d);
  warm_flush(w);
  *fed = w->fed;
  free(w);
  return rc ? tune_located(tu, "database", rc, d.text) : TSL_OK;
}

/* ---- the run ---------------------------------------------------------------------- */

/* Records of workload and target (*done) and, when `used` is given, those
 * plus the candidates other runs on the database hold: the budget spent. */
static int budget_used(tuner *tu, int64_t *done, int64_t *used) {
  tsl_diag d = {0};
  int64_t claims = 0;
  int rc = tsl_db_count(tu->run.db, tu->task->wid, tu->run.desc, done, &d);
  if (!rc && used)
    rc = tsl_db_count_claims(tu->run.db, tu->task->wid, tu->run.desc, &claims, &d);
  if (rc)
    return tune_located(tu, "database", rc, d.text);
  if (used)
    *used = *done + claims;
  return TSL_OK;
}

static int take_latency(void *user_data, const tsl_db_record *rec) {
  *(double *)user_data = rec->latency_s;
  return 0;
}

static void tune_add_stats(tsl_cand_service_stats *to, const tsl_cand_service_stats *s) {
  to->struct_size = sizeof *to;
  to->prepared += s->prepared;
  to->hits += s->hits;
  to->replays += s->replays;
  to->failed += s->failed;
  to->featurized += s->featurized;
  to->replayed_again += s->replayed_again;
  to->replay_s += s->replay_s;
  to->postproc_s += s->postproc_s;
  to->feature_s += s->feature_s;
}

/* The strategy of the current task set up for what its budget leaves. */
static int pre_tune(tuner *tu) {
  tune_task *t = tu->task;
  const tsl_run_config *cfg = tu->run.cfg;
  t->sp = (tsl_search_space){
      .struct_size = sizeof t->sp,
      .ctx = tu->run.ctx,
      .mod = t->mod,
      .func_name = t->func_name,
      .n_space = t->n_spaces,
      .space = (const tsl_trace *const *)t->spaces,
      .intrins = tu->run.intrins,
      .trials = cfg->trials - t->done > 0 ? cfg->trials - t->done : 0,
      .batch = cfg->batch,
      .seed = cfg->seed,
      .target = tu->run.desc,
      .is_measured = is_measured,
      .core_data = tu,
      .cost_vtable = tu->run.cost ? &tune_timed_model_vt : NULL,
      .cost_model = tu->run.cost ? (tsl_cost_model *)&tu->run.timed_cost : NULL,
      .n_postprocs = t->n_pps,
      .postprocs = t->pps,
      .n_mutators = t->n_mutators,
      .mutators = t->timed_mutators,
      .top_measured = top_measured,
      .cands = t->cands,
      .rule_target = &t->rule_target};
  t->rule_target = rule_target(tu);
  t->exhausted = t->sp.trials <= 0;
  if (t->exhausted)
    return TSL_OK;
  tsl_diag d = {0};
  int rc = t->svt->pre_tuning(t->strategy, &t->sp, &d);
  if (rc)
    return tsl_diag_set(tu->run.diag, rc, "strategy%s%s: %s", tu->n_tasks > 1 ? " of task " : "",
                        tu->n_tasks > 1 ? t->func_name : "", d.text);
  t->pre_tuned = 1;
  return TSL_OK;
}

/* Every task's records, best and warm start from the database. */
static int resume_tasks(tuner *tu) {
  int64_t fed_all = 0;
  int rc = TSL_OK;
  for (uint32_t i = 0; i < tu->n_tasks && !rc; i++) {
    tu->task = &tu->tasks[i];
    rc = budget_used(tu, &tu->task->done, NULL);
    int64_t fed = 0;
    if (!rc && tu->task->done > 0 && !(rc = warm_start(tu, &fed)))
      fed_all += fed;
    /* the progress shows the database's best from the start (none: -1) */
    tsl_diag d = {0};
    tu->task->best_s = -1;
    if (!rc)
      (void)tsl_db_best(tu->run.db, tu->task->wid, tu->run.desc, take_latency,
                        &tu->task->best_s, &d);
  }
  if (!rc && fed_all)
    fprintf(stderr, "tessel tune: the cost model learned the database's %lld records first\n",
            (long long)fed_all);
  return rc;
}

static int64_t global_done(const tuner *tu) {
  int64_t n = 0;
  for (uint32_t i = 0; i < tu->n_tasks; i++)
    n += tu->tasks[i].done;
  return n;
}

/* Batches, one task at a time as the scheduler picks them, until every
 * task's budget (strategy.trials) or the global one is spent, or no
 * strategy has anything left. */
static int tune_loop(tuner *tu, run_state *st, tsl_tune_result *out) {
  const tsl_run_config *cfg = tu->run.cfg;
  int64_t global = tu->n_tasks > 1 && cfg->struct_size > offsetof(tsl_run_config, max_trials_global)
                       ? cfg->max_trials_global : 0;
  if (global <= 0)
    global = cfg->trials * (int64_t)tu->n_tasks;
  tune_sched sched;
  tune_sched_init(&sched, tu, cfg->seed);
  int rc = TSL_OK, held = 0;
  uint32_t batch_no = 0;
  for (;;) {
    int64_t global_left = global - global_done(tu);
    int id = global_left > 0 ? tune_sched_next(&sched) : -1;
    if (id < 0)
      break;
    tu->task = &tu->tasks[id];
    int64_t used = 0;
    if ((rc = budget_used(tu, &tu->task->done, &used)))
      break;
    if (used >= cfg->trials) {
      held |= tu->task->done < cfg->trials;
      tu->task->exhausted = 1;
      continue;
    }
    int64_t left = cfg->trials - used;
    if (left > global_left)
      left = global_left;
    uint32_t max = (uint32_t)(left < cfg->batch ? left : cfg->batch);
    int exhausted = 0, budget_full = 0;
    if ((rc = run_batch(tu, st, max, &exhausted, &budget_full, batch_no++)))
      break;
    tu->task->exhausted |= exhausted;
    if (exhausted && tu->n_tasks == 1)
      out->stop_reason = 1;
    tune_sched_note(&sched, id);
  }
  tune_sched_free(&sched);
  if (!rc && held)
    fprintf(stderr, "tessel tune: note: some of the trials are held by other runs on this "
                    "database (live processes); they count against the budget\n");
  for (uint32_t i = 0; i < tu->n_tasks; i++)
    if (tu->tasks[i].pre_tuned)
      tu->tasks[i].svt->post_tuning(tu->tasks[i].strategy);
  return rc;
}

int tsl_tune(const tsl_run_config *cfg, tsl_registry *reg, tsl_tune_progress_fn progress,
             void *user_data, tsl_tune_result *out, tsl_diag *diag) {
  memset(out, 0, sizeof *out);
  out->struct_size = sizeof *out;
  out->best_seconds = -1;
  out->best_record = -1;
  out->remeasured_s = -1;
  tuner tu;
  memset(&tu, 0, sizeof tu);
  tu.run.cfg = cfg;
  tu.run.reg = reg;
  tu.run.diag = diag;
  tu.run.ctx = tsl_ctx_new();
  tu.run.arena = tsl_arena_new(tu.run.ctx);
  double t0 = measure_now();
  int rc = setup(&tu);
  double fixed_s = measure_now() - t0;
  run_state st = {.t0 = t0, .progress = progress, .user_data = user_data};
  if (!rc) {
    out->target = strdup(tu.run.desc);
    rc = resume_tasks(&tu);
  }
  for (uint32_t i = 0; i < tu.n_tasks && !rc; i++) {
    tu.task = &tu.tasks[i];
    out->flops += tu.task->flops * tu.task->weight;
    rc = pre_tune(&tu);
  }
  if (!rc)
    rc = tune_loop(&tu, &st, out);
  int tuned = !rc; /* the model saved after the best and the export */
  if (!rc) {
    double b0 = measure_now();
    if (tu.model) {
      rc = tune_model_best(&tu, out);
    } else {
      tu.task = &tu.tasks[0];
      rc = tune_remeasure(&tu, out);
      tuner_best_ctx b = {
          cfg,       tu.run.ctx,  tu.run.arena, tu.task->mod, tu.task->func_name,
          tu.run.db, tu.task->wid, tu.run.desc,  tu.run.tvt,  tu.run.target,
          tu.run.intrins, out,    diag};
      if (!rc)
        rc = tune_best(&b);
    }
    fixed_s += measure_now() - b0;
  }
  if (tuned && tu.run.cost && model_file(cfg, 0)) {
    tsl_diag d = {0};
    int src = tu.run.cvt->save(tu.run.cost, model_file(cfg, 0), &d);
    if (src && !rc)
      rc = tune_located(&tu, "cost_model.save", src, d.text);
  }
  out->trials = st.measured;
  out->errors = st.errors;
  for (uint32_t i = 0; i < tu.n_tasks && tu.run.db; i++) {
    /* concurrent runs may have added records since the last batch */
    tu.task = &tu.tasks[i];
    (void)budget_used(&tu, &tu.task->done, NULL);
  }
  out->total = global_done(&tu);
  out->build_s = st.build_s;
  out->measure_s = st.measure_s;
  out->timed_once = st.timed_once;
  out->screened = st.screened;
  out->probed = st.probed;
  out->stopped = st.stopped;
  out->total_s = measure_now() - t0;
  out->search_s = out->total_s - st.build_s - st.measure_s;
  out->fixed_s = fixed_s;
  for (uint32_t i = 0; i < tu.n_tasks; i++)
    if (tu.tasks[i].cands) {
      tsl_cand_service_stats cs;
      tsl_cand_service_get_stats(tu.tasks[i].cands, &cs);
      tune_add_stats(&out->cands, &cs);
      out->same_program += cands_same_program(tu.tasks[i].cands);
    }
  out->predict_s = tu.run.timed_cost.predict_s;
  out->train_s = tu.run.timed_cost.update_s;
  out->mutate_s = tu.run.mutate_s;
  out->lower_s = tu.run.lower_s;
  teardown(&tu);
  tsl_arena_free(tu.run.arena);
  tsl_ctx_free(tu.run.ctx);
  return rc;
}

void tsl_tune_result_free(tsl_tune_result *r) {
  if (!r)
    return;
  free(r->target);
  free(r->best_trace);
  free(r->best_program);
  free(r->export_path);
  r->target = r->best_trace = r->best_program = r->export_path = NULL;
  for (uint32_t i = 0; r->struct_size > offsetof(tsl_tune_result, tasks) && i < r->n_tasks; i++)
    free(r->tasks[i].name);
  if (r->struct_size > offsetof(tsl_tune_result, tuned_constants_path)) {
    free(r->tasks);
    free(r->tuned_model_path);
    free(r->tuned_constants_path);
    r->tuned_model_path = r->tuned_constants_path = NULL;
  }
  r->tasks = NULL;
  r->n_tasks = 0;
}
