/*
 * The tasks of a run (TVM's extract_tasks for tune_relax): a program's one
 * function, or a model's prim_funcs after its graph passes, equal ones by
 * structure counted together (the task's weight); and the end of a
 * model's run: every tuned prim_func put back in the model (TVM's
 * MetaScheduleApplyDatabase) and its kernels exported.
 */
#include "tuner_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessel/analysis.h"
#include "tessel/onnx.h"

/* The model's graph passes with the run's registry; constants (the
 * weights file's, and those the model has bound: an imported .onnx's) end
 * in tu->constants. */
static int run_passes(tuner *tu, const tsl_model *m, const char *passes, const tsl_model **out) {
  const tsl_run_config *c = tu->run.cfg;
  tsl_diag d = {0};
  tsl_weights *w = NULL, *params = tsl_weights_new();
  tu->constants = tsl_weights_new();
  int rc = params && tu->constants ? TSL_OK : tsl_diag_set(&d, TSL_ENOMEM, "out of memory");
  if (!rc && c->workload_weights && (rc = tsl_weights_load(c->workload_weights, &w, &d)))
    return tune_located(tu, "workload.weights", rc, d.text);
  for (uint32_t i = 0; !rc && w && i < tsl_weights_count(w); i++) {
    const tsl_weight *t = tsl_weights_at(w, i);
    int constant = !strncmp(t->name, "relax.expr.Constant.", 20);
    rc = tsl_weights_add(constant ? tu->constants : params, t->name, t->dtype, t->ndim, t->shape,
                         t->data, NULL, &d);
  }
  tsl_weights_free(w);
  if (!rc) {
    /* the model's own constants (an imported .onnx's) are gathered by
     * the pipeline */
    tsl_model *start = tsl_model_new(tu->run.arena, m->tir, m->n_rx_funcs, m->rx_funcs,
                                     m->n_constants, m->constants ? m->constants : tu->constants);
    tsl_pass_ctx ctx = {sizeof ctx, tu->run.arena, params, tu->constants, tu->run.reg};
    rc = tsl_model_run_passes(tu->run.reg, passes, &ctx, start, out, &d);
  }
  tsl_weights_free(params);
  return rc ? tune_located(tu, "workload.passes", rc, d.text) : TSL_OK;
}

/* The prim_func a call runs, when it is one of the module's. */
static const tsl_func *called(const tsl_model *m, const tsl_rx_expr *e) {
  if (e->kind != TSL_RX_EXPR_CALL ||
      (e->op != TSL_RX_OP_CALL_TIR && e->op != TSL_RX_OP_CALL_DPS_PACKED))
    return NULL;
  const tsl_rx_expr *f = e->args[0];
  return f->kind == TSL_RX_EXPR_GLOBAL || f->kind == TSL_RX_EXPR_EXTERN
             ? tsl_module_find(m->tir, f->name)
             : NULL;
}

/* One call of a prim_func in the model: the task it is, and whether the
 * task is a specialization of its callee (a generic prim_func called at
 * fixed shapes: the tuned copy gets a name of its own). */
typedef struct call_site {
  const tsl_rx_expr *call;
  uint32_t task;
  int specialized;
} call_site;

typedef struct extract {
  tuner *tu;
  const tsl_model *m;
  tsl_vec funcs;   /* const tsl_func *: one per task (specialized when needed) */
  tsl_vec origs;   /* const tsl_func *: the module's function each came from */
  tsl_vec weights; /* double */
  int rc;
} extract;

/* The value of Relax dimension `d` (a constant, or a size bound by
 * workload.binds) as text into buf; 0 when it has none. */
static int dim_value(tuner *tu, const tsl_expr *d, char *buf, size_t cap) {
  int64_t v;
  if (tsl_expr_is_const_int(d, &v)) {
    snprintf(buf, cap, "%lld", (long long)v);
    return 1;
  }
  const tsl_run_config *c = tu->run.cfg;
  for (uint32_t i = 0; d->kind == TSL_EXPR_VAR && i < c->n_workload_binds; i++)
    if (!strcmp(c->workload_binds[i].key, d->u.var->name)) {
      snprintf(buf, cap, "%s", c->workload_binds[i].value);
      return 1;
    }
  return 0;
}

/* `f` specialized to the shapes call `e` passes (its symbolic sizes bound
 * from the tensors' dimensions, or workload.binds for the model's own
 * sizes); `f` itself when it has none. */
static int specialize_call(tuner *tu, const tsl_rx_expr *e, const tsl_func *f,
                           const tsl_func **out) {
  char free_names[400];
  *out = f;
  if (!tsl_func_free_names(f, free_names, sizeof free_names))
    return TSL_OK;
  const char *names[64], *vals[64];
  char values[64][32];
  uint32_t n = 0;
  const tsl_rx_expr *args = e->args[1];
  for (uint32_t i = 0; i < f->n_params; i++) {
    const tsl_buffer *b = f->params[i].buffer;
    const tsl_rx_sinfo *s = i < args->n_args ? args->args[i]->sinfo
                            : i - args->n_args < e->n_sinfo_args
                                ? e->sinfo_args[i - args->n_args]
                                : NULL;
    for (uint32_t d = 0; b && s && s->shape && d < b->ndim && (int32_t)d < s->ndim; d++) {
      if (b->shape[d]->kind != TSL_EXPR_VAR || n == 64)
        continue;
      int seen = 0;
      for (uint32_t k = 0; k < n; k++)
        seen |= !strcmp(names[k], b->shape[d]->u.var->name);
      if (!seen && dim_value(tu, s->shape[d], values[n], sizeof values[n])) {
        names[n] = b->shape[d]->u.var->name;
        vals[n] = values[n];
        n++;
      }
    }
  }
  tsl_diag d = {0};
  int rc = n ? tsl_func_specialize(tu->run.arena, f, n, names, vals, out, &d) : TSL_OK;
  if (rc)
    return tune_located(tu, "workload", rc, d.text);
  if (tsl_func_free_names(*out, free_names, sizeof free_names)) {
    char what[700];
    snprintf(what, sizeof what, "prim_func '%s' of the model has symbolic sizes its calls do "
             "not fix (%s); tuning needs them constant; valid: a value for each in "
             "workload.binds, e.g. binds: {%.*s: 1}", f->name, free_names,
             (int)strcspn(free_names, ","), free_names);
    return tune_located(tu, "workload", TSL_EINVALID, what);
  }
  return TSL_OK;
}

static int count_call(const tsl_rx_expr *e, void *user_data) {
  extract *x = user_data;
  const tsl_func *orig = called(x->m, e), *f = NULL;
  if (!orig)
    return 0;
  if ((x->rc = specialize_call(x->tu, e, orig, &f)))
    return 1;
  uint32_t k = 0;
  while (k < x->funcs.len && !tsl_func_equal(TSL_VEC_AT(&x->funcs, const tsl_func *, k), f,
                                             NULL, 0))
    k++;
  if (k == x->funcs.len && f != orig) {
    /* a specialization is a function of its own: named after its callee,
     * as the tuned model will call it */
    char name[160];
    int taken = 1;
    for (int n = 1; taken; n++) {
      snprintf(name, sizeof name, "%s_%d", orig->name, n);
      taken = tsl_module_find(x->m->tir, name) || tsl_model_find(x->m, name);
      for (uint32_t i = 0; i < x->funcs.len && !taken; i++)
        taken = !strcmp(TSL_VEC_AT(&x->funcs, const tsl_func *, i)->name, name);
    }
    tsl_func *named = TSL_NEW(x->tu->run.arena, tsl_func);
    *named = *f;
    named->name = tsl_intern(x->tu->run.ctx, name);
    f = named;
  }
  if (k == x->funcs.len) {
    TSL_VEC_PUSH(&x->funcs, const tsl_func *, f);
    TSL_VEC_PUSH(&x->origs, const tsl_func *, orig);
    TSL_VEC_PUSH(&x->weights, double, 0.0);
  }
  TSL_VEC_AT(&x->weights, double, k) += 1;
  tsl_map_put(&x->tu->call_tasks, e, TSL_MAP_INT(k + 1));
  return 0;
}

static int load_model(tuner *tu, const tsl_model *parsed) {
  const tsl_run_config *c = tu->run.cfg;
  const tsl_model *m = parsed;
  /* an imported .onnx has operators only: legalized and fused by default */
  const char *passes = c->workload_passes ? c->workload_passes
                       : tu->onnx_weights ? "legalize,fuse,dce" : NULL;
  int rc = passes ? run_passes(tu, parsed, passes, &m) : TSL_OK;
  if (rc)
    return rc;
  tu->model = m;
  tsl_map_init(&tu->call_tasks, tu->run.arena);
  extract x = {.tu = tu, .m = m};
  tsl_vec_init(&x.funcs, sizeof(const tsl_func *), NULL);
  tsl_vec_init(&x.origs, sizeof(const tsl_func *), NULL);
  tsl_vec_init(&x.weights, sizeof(double), NULL);
  for (uint32_t i = 0; i < m->n_rx_funcs && !x.rc; i++)
    tsl_rx_visit_func(m->rx_funcs[i], count_call, &x);
  rc = x.rc;
  if (!rc && c->workload_func) { /* tune one of them: the course's "tune linear0" */
    char names[512] = "";
    uint32_t keep = 0, *renum = calloc(x.funcs.len + 1, sizeof *renum);
    for (uint32_t i = 0; i < x.funcs.len; i++) {
      const char *name = TSL_VEC_AT(&x.origs, const tsl_func *, i)->name;
      if (!strstr(names, name))
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                 names[0] ? ", " : "", name);
      if (strcmp(name, c->workload_func))
        continue;
      if (renum)
        renum[i] = keep + 1;
      TSL_VEC_AT(&x.funcs, const tsl_func *, keep) = TSL_VEC_AT(&x.funcs, const tsl_func *, i);
      TSL_VEC_AT(&x.origs, const tsl_func *, keep) = TSL_VEC_AT(&x.origs, const tsl_func *, i);
      TSL_VEC_AT(&x.weights, double, keep++) = TSL_VEC_AT(&x.weights, double, i);
    }
    if (!keep) {
      char what[800];
      snprintf(what, sizeof what, "the model calls no prim_func '%.100s'; valid: %s",
               c->workload_func, names[0] ? names : "none");
      rc = tune_located(tu, "workload.func", TSL_ENOTFOUND, what);
    }
    x.funcs.len = x.origs.len = x.weights.len = keep;
    /* the calls of the tasks left keep theirs, renumbered */
    for (uint32_t pos = 0; renum;) {
      const void *key;
      void *val;
      if (!tsl_map_next(&tu->call_tasks, &pos, &key, &val))
        break;
      tsl_map_put(&tu->call_tasks, key, TSL_MAP_INT(renum[(intptr_t)val - 1]));
    }
    free(renum);
  }
  if (!rc && !x.funcs.len)
    rc = tune_located(tu, "workload", TSL_EINVALID, "the model calls no prim_func of its own "
                      "(operators are legalized by the passes: workload.passes: "
                      "\"legalize,fuse,dce\")");
  if (!rc && !(tu->tasks = calloc(x.funcs.len, sizeof *tu->tasks)))
    rc = tsl_diag_set(tu->run.diag, TSL_ENOMEM, "out of memory");
  tsl_module empty = {tu->run.arena, m->tir->name, 0, 0, NULL};
  for (uint32_t i = 0; !rc && i < x.funcs.len; i++) {
    tune_task *t = &tu->tasks[tu->n_tasks++];
    t->func = TSL_VEC_AT(&x.funcs, const tsl_func *, i);
    t->orig = TSL_VEC_AT(&x.origs, const tsl_func *, i);
    t->func_name = t->func->name;
    t->mod = tsl_module_with(tu->run.arena, &empty, t->func);
    t->flops = tsl_func_flops(t->func);
    t->weight = TSL_VEC_AT(&x.weights, double, i);
    t->best_s = -1;
  }
  tsl_vec_free(&x.funcs);
  tsl_vec_free(&x.origs);
  tsl_vec_free(&x.weights);
  return rc;
}

int tune_load_tasks(tuner *tu) {
  const tsl_run_config *c = tu->run.cfg;
  const tsl_model *m = NULL;
  tsl_diag d = {0};
  size_t n = strlen(c->workload_file);
  if (n >= 5 && !strcmp(c->workload_file + n - 5, ".onnx")) {
    /* an ONNX model: imported, its initializers bound as constants */
    int rc = tsl_onnx_import(tu->run.arena, c->workload_file, TSL_ONNX_BIND_WEIGHTS, &m,
                             &tu->onnx_weights, &d);
    return rc ? tune_located(tu, "workload.file", rc, d.text) : load_model(tu, m);
  }
  /* a file that is no model (no @R.function) is a program, as before */
  if (tsl_parse_model_file(tu->run.arena, c->workload_file, &m, &d) || !m->n_rx_funcs) {
    if (c->struct_size > offsetof(tsl_run_config, workload_passes) &&
        (c->workload_passes || c->workload_weights) && m && !m->n_rx_funcs)
      return tune_located(tu, c->workload_passes ? "workload.passes" : "workload.weights",
                          TSL_EINVALID, "passes and weights are for models (a file with "
                          "@R.function functions); this workload is a program");
    return tune_load_program(tu);
  }
  return load_model(tu, m);
}

/* ---- the end of a model's run ------------------------------------------------------ */


/* The task's best prim_func (its schedule's function), or NULL when it has
 * no successful record. */
static int task_best(tuner *tu, tune_task *t, tsl_tune_task_result *r, const tsl_func **out) {
  *out = NULL;
  tune_best_rec br = {NULL, -1, -1};
  tsl_diag d = {0};
  int rc = tsl_db_best(tu->run.db, t->wid, tu->run.desc, tune_take_best, &br, &d);
  if (rc == TSL_ENOTFOUND)
    return TSL_OK;
  if (rc)
    return tsl_diag_set(tu->run.diag, rc, "%s", d.text);
  r->best_seconds = br.latency_s;
  r->best_record = br.id;
  tsl_trace *tr = NULL;
  tsl_schedule *sch = NULL;
  rc = tsl_trace_from_json(tu->run.ctx, br.trace_json, &tr, &d);
  free(br.trace_json);
  tsl_replay_opts ro = {sizeof ro, 0, 0, t->func_name, tu->run.intrins};
  if (!rc)
    rc = tsl_trace_replay(tu->run.ctx, tr, t->mod, &ro, &sch, &d);
  tsl_trace_free(tr);
  if (rc)
    return tsl_diag_set(tu->run.diag, rc, "%s: record %lld (the best of %s): %s",
                        tsl_db_path(tu->run.db), (long long)br.id, t->func_name, d.text);
  /* the schedule's function lives in the run's context; copy it into the
   * run's arena through its text so that it outlives the schedule */
  char *text = tsl_print_func(tsl_schedule_func(sch));
  const tsl_module *copy = NULL;
  rc = text ? tsl_parse(tu->run.arena, "<tuned>", text, strlen(text), &copy, &d) : TSL_ENOMEM;
  free(text);
  tsl_schedule_free(sch);
  if (rc)
    return tsl_diag_set(tu->run.diag, rc, "the tuned %s does not parse back: %s", t->func_name,
                        d.text);
  *out = copy->funcs[0];
  return TSL_OK;
}

/* WORK_DIR/tuned_model.py, and the constants it uses beside it. */
static int write_tuned(tuner *tu, const tsl_model *m, tsl_tune_result *out) {
  char path[1100], cpath[1100];
  snprintf(path, sizeof path, "%s/tuned_model.py", tu->run.cfg->work_dir);
  snprintf(cpath, sizeof cpath, "%s/tuned_model.constants.safetensors", tu->run.cfg->work_dir);
  FILE *f = fopen(path, "w");
  int bad = !f || fputs(out->best_program, f) < 0;
  if (f && fclose(f))
    bad = 1;
  if (bad)
    return tsl_diag_set(tu->run.diag, TSL_EIO, "%s: cannot write the tuned model", path);
  out->tuned_model_path = strdup(path);
  tsl_weights *w = NULL;
  tsl_diag d = {0};
  int rc = tsl_model_constants_used(m, tu->constants, &w, &d);
  if (!rc && tsl_weights_count(w)) {
    rc = tsl_weights_save(w, cpath, &d);
    if (!rc)
      out->tuned_constants_path = strdup(cpath);
  }
  tsl_weights_free(w);
  return rc ? tsl_diag_set(tu->run.diag, rc, "the tuned model's constants: %s", d.text) : TSL_OK;
}

typedef struct putback {
  tuner *tu;
  const char **names; /* per task: the tuned function's name, or NULL */
} putback;

/* A call of a tuned task's function renamed to the tuned copy's. */
static const tsl_rx_expr *rename_call(tsl_rx_mutator *m, const tsl_rx_expr *e) {
  putback *pb = m->user_data;
  intptr_t k = (intptr_t)tsl_map_get(&pb->tu->call_tasks, e);
  const tsl_rx_expr *r = tsl_rx_mutate_expr_children(m, e);
  if (k <= 0 || !pb->names[k - 1] || !strcmp(r->args[0]->name, pb->names[k - 1]))
    return r;
  const tsl_rx_expr *callee = r->args[0]->kind == TSL_RX_EXPR_GLOBAL
                                  ? tsl_rx_global(m->arena, pb->names[k - 1])
                                  : tsl_rx_extern(m->arena, pb->names[k - 1]);
  tsl_diag d = {0};
  const tsl_rx_expr *call = tsl_rx_dps_call(m->arena, m->tir, (tsl_rx_op)r->op, callee, r->args[1],
                                            r->n_sinfo_args, r->sinfo_args, &d);
  if (!call)
    tsl_rx_mutator_fail(m, TSL_EINVALID, "putting back %s: %s", pb->names[k - 1], d.text);
  return call ? call : r;
}

int tune_model_best(tuner *tu, tsl_tune_result *out) {
  const tsl_model *m = tu->model;
  out->tasks = calloc(tu->n_tasks, sizeof *out->tasks);
  const char **names = calloc(tu->n_tasks + 1, sizeof *names);
  if (!out->tasks || !names) {
    free(names);
    return tsl_diag_set(tu->run.diag, TSL_ENOMEM, "out of memory");
  }
  out->n_tasks = tu->n_tasks;
  const tsl_module *tir = m->tir;
  double e2e = 0;
  int all = 1, rc = TSL_OK;
  for (uint32_t i = 0; i < tu->n_tasks && !rc; i++) {
    tune_task *t = &tu->tasks[i];
    tsl_tune_task_result *r = &out->tasks[i];
    *r = (tsl_tune_task_result){sizeof *r, strdup(t->func_name), t->weight, t->flops, t->done,
                                -1, -1};
    const tsl_func *best = NULL;
    rc = task_best(tu, t, r, &best);
    if (rc || !best) {
      all = 0;
      continue;
    }
    e2e += t->weight * r->best_seconds;
    /* the tuned function in place of its original; a specialization (a
     * generic prim_func tuned at its calls' shapes) beside it, under a name
     * of its own that those calls then use */
    tsl_func *named = TSL_NEW(tu->run.arena, tsl_func);
    *named = *best;
    named->name = t->func == t->orig ? t->orig->name : t->func->name;
    names[i] = named->name;
    tir = tsl_module_with(tu->run.arena, tir, named);
  }
  const tsl_model *tuned = NULL;
  if (!rc) {
    putback pb = {tu, names};
    tsl_rx_mutator mu = tsl_rx_mutator_make(tu->run.arena, tir);
    mu.expr = rename_call;
    mu.user_data = &pb;
    mu.diag = tu->run.diag;
    tuned = tsl_rx_mutate_model(&mu, m);
    rc = mu.status;
  }
  free(names);
  if (rc)
    return rc;
  out->best_program = tsl_model_print(tuned);
  out->best_seconds = all ? e2e : -1;
  out->best_gflops = all && e2e > 0 ? out->flops / e2e * 1e-9 : 0;
  if ((rc = write_tuned(tu, tuned, out)))
    return rc;
  if (!tu->run.cfg->export_path)
    return TSL_OK;
  /* the model's kernels, tuned, as one library */
  tsl_diag d = {0};
  const tsl_lowered_module *lm = NULL;
  const tsl_module *split = NULL;
  rc = tsl_module_split_prepack(tu->run.arena, tir, &split, &d);
  if (!rc)
    rc = tsl_lower_module(tu->run.arena, split, NULL, &lm, &d);
  if (!rc)
    rc = tu->run.tvt->export_library(tu->run.target, lm, tu->run.cfg->export_prefix,
                                     tu->run.cfg->export_path, tu->run.cfg->export_header, &d);
  if (rc) {
    const char *w = tsl_run_config_where(tu->run.cfg, "export");
    return tsl_diag_set(tu->run.diag, rc, "%s: error: export: %s", w ? w : tu->run.cfg->path,
                        d.text);
  }
  out->export_path = strdup(tu->run.cfg->export_path);
  return TSL_OK;
}
