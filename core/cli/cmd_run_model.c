/*
 * `tessel run MODEL.py`: a model (an @I.ir_module with @R.function
 * functions) run in the reference interpreter (tessel/model.h) on its
 * weights and given or seeded inputs; prints each output (dtype, shape,
 * sum, first values) and the time, or writes them to a file.
 */
#include "cli_target.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cli_run_model_usage[] =
    "usage: tessel run MODEL [--func NAME] [--weights FILE] [--input NAME=FILE]...\n"
    "                  [--bind NAME=VALUE]... [--seed N] [--output FILE] [--json]\n"
    "                  [--passes LIST] [--target TARGET [--threads N] [--check interp|none]]\n"
    "\n"
    "Run a Relax function of MODEL (a TVMScript @I.ir_module with @R.function\n"
    "functions) in the reference interpreter and print its outputs. Each\n"
    "parameter's tensor comes from --input NAME=FILE (a .npy, or a .npz /\n"
    ".safetensors holding NAME), else from the weights file (by the parameter's\n"
    "name: BindParams' rule), else seeded random values of the parameter's\n"
    "dtype and shape (symbolic sizes from the tensors given, or --bind).\n"
    "Weights written metadata[\"relax.expr.Constant\"][i] are the tensors\n"
    "named relax.expr.Constant.<i> of the weights file. A tensor of the\n"
    "weights file that is neither is an error.\n"
    "\n"
    "  --func NAME        the Relax function (default main)\n"
    "  --weights FILE     .safetensors, .npz or .npy (tessel weights FILE lists it)\n"
    "  --input NAME=FILE  the tensor of parameter NAME\n"
    "  --bind NAME=VALUE  a symbolic size of the random inputs\n"
    "  --seed N           seed of the random inputs (default 1)\n"
    "  --output FILE      write the outputs (\"output\", or \"output.<k>\" of a\n"
    "                     tuple) to FILE (.npy: one output; .npz; .safetensors)\n"
    "  --json             one JSON object: outputs [{name, dtype, shape, sum}],\n"
    "                     time_s\n"
    "  --passes LIST      run the model the graph passes of LIST make (tessel pass\n"
    "                     --help; bind_params binds the weights file), and check its\n"
    "                     outputs against the model's before the passes\n"
    "\n"
    "  --target TARGET    compile the model ahead of time for TARGET (llvm, or\n"
    "                     \"llvm -key=value ...\" with the target's options):\n"
    "                     the passes (default legalize,fuse,dce), every kernel\n"
    "                     through the target, main as generated code with its\n"
    "                     intermediate tensors planned into one workspace; prints\n"
    "                     the outputs, the median time per run, the plan, and a\n"
    "                     check against the reference interpreter\n"
    "  --threads N        threads of the compiled kernels (default: all cores)\n"
    "  --check interp|none  with --target: check against the reference interpreter\n"
    "                     (default), or not (a large model's interpreter run is slow)\n"
    "\n"
    "Without --target the model runs in the reference interpreter.\n"
    "exit status: 0 ok, 1 the run failed, 2 on a usage error, a model that does\n"
    "not parse, or inputs that do not fit\n";

enum { MAX_ITEMS = 64 };

typedef struct margs {
  const char *path, *func, *weights, *output, *passes, *target;
  int threads;
  const char *inputs[MAX_ITEMS];
  const char *binds[MAX_ITEMS];
  int n_inputs, n_binds, json, no_check;
  uint64_t seed;
} margs;

/* A whole decimal integer >= lo into *out. */
static int number(const char *s, long long lo, long long *out) {
  char *end = NULL;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (!*s || *end || errno || v < lo)
    return 0;
  *out = v;
  return 1;
}

static int parse(int argc, char **argv, margs *a) {
  memset(a, 0, sizeof *a);
  a->seed = 1;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    long long iv;
    int has = i + 1 < argc;
    if (!strcmp(o, "--json")) {
      a->json = 1;
    } else if (!strcmp(o, "--check") && has) {
      const char *v = argv[++i];
      if (strcmp(v, "interp") && strcmp(v, "none"))
        return cli_error("run", "--check takes interp or none, not '%s'", v);
      a->no_check = !strcmp(v, "none");
    } else if ((!strcmp(o, "--func") || !strcmp(o, "--weights") || !strcmp(o, "--output") ||
                !strcmp(o, "--input") || !strcmp(o, "--bind") || !strcmp(o, "--seed") ||
                !strcmp(o, "--passes") || !strcmp(o, "--target") || !strcmp(o, "--threads")) &&
               has) {
      const char *v = argv[++i];
      if (!strcmp(o, "--func"))
        a->func = v;
      else if (!strcmp(o, "--weights"))
        a->weights = v;
      else if (!strcmp(o, "--output"))
        a->output = v;
      else if (!strcmp(o, "--passes"))
        a->passes = v;
      else if (!strcmp(o, "--target"))
        a->target = v;
      else if (!strcmp(o, "--threads") && !number(v, 1, &iv))
        return cli_error("run", "--threads takes a positive integer, not '%s'", v);
      else if (!strcmp(o, "--threads"))
        a->threads = (int)(iv > 1024 ? 1024 : iv);
      else if (!strcmp(o, "--seed") && !number(v, 0, &iv))
        return cli_error("run", "--seed takes a non-negative integer, not '%s'", v);
      else if (!strcmp(o, "--seed"))
        a->seed = (uint64_t)iv;
      else if (!strchr(v, '=') || v[0] == '=')
        return cli_error("run", "%s takes NAME=%s, not '%s'", o,
                         !strcmp(o, "--input") ? "FILE" : "VALUE", v);
      else if (!strcmp(o, "--bind") && !number(strchr(v, '=') + 1, 1, &iv))
        return cli_error("run", "--bind %s: a symbolic size is a positive integer", v);
      else if ((!strcmp(o, "--input") ? a->n_inputs : a->n_binds) >= MAX_ITEMS)
        return cli_error("run", "more than %d %s options", MAX_ITEMS, o);
      else if (!strcmp(o, "--input"))
        a->inputs[a->n_inputs++] = v;
      else
        a->binds[a->n_binds++] = v;
    } else if (o[0] == '-' && o[1]) {
      return cli_error("run", "'%s' is not an option for a model, or lacks its value\nnote: "
                       "valid options: --func, --weights, --input, --bind, --seed, --output, "
                       "--json, --passes, --target, --threads, --check (see tessel run --help)",
                       o);
    } else if (a->path) {
      return cli_error("run", "more than one MODEL given ('%s' and '%s')", a->path, o);
    } else {
      a->path = o;
    }
  }
  return CLI_OK;
}

static int load_weights(const char *path, tsl_weights **out) {
  tsl_diag d = {0};
  if (tsl_weights_load(path, out, &d)) {
    fprintf(stderr, "tessel run: error: %s\n", d.text);
    return CLI_USAGE;
  }
  return CLI_OK;
}

/* The value of dimension `e` of a random input: a constant, a size bound
 * by the tensors given or --bind; -1 when unknown. */
static int64_t dim_value(const tsl_expr *e, const margs *a, const tsl_rx_func *f,
                         const tsl_weights *in) {
  if (e->kind == TSL_EXPR_INT_IMM)
    return e->u.int_value;
  if (e->kind != TSL_EXPR_VAR)
    return -1;
  const char *name = e->u.var->name;
  for (int i = 0; i < a->n_binds; i++) {
    size_t l = strlen(name);
    if (!strncmp(a->binds[i], name, l) && a->binds[i][l] == '=')
      return strtoll(a->binds[i] + l + 1, NULL, 10);
  }
  for (uint32_t p = 0; p < f->n_params; p++) { /* a tensor given for another parameter */
    const tsl_rx_sinfo *s = f->params[p]->sinfo;
    const tsl_weight *w = tsl_weights_find(in, f->params[p]->name);
    for (int32_t d = 0; w && s->shape && d < s->ndim && (uint32_t)d < w->ndim; d++)
      if (s->shape[d]->kind == TSL_EXPR_VAR && s->shape[d]->u.var == e->u.var)
        return w->shape[d];
  }
  return -1;
}

/* Every parameter's and weight's tensor in one collection. */
static int gather(const margs *a, const tsl_model *m, const tsl_rx_func *f, tsl_weights *in) {
  tsl_diag d = {0};
  tsl_weights *w = NULL;
  int rc = a->weights ? load_weights(a->weights, &w) : CLI_OK;
  for (int i = 0; !rc && i < a->n_inputs; i++) {
    char name[256];
    const char *eq = strchr(a->inputs[i], '=');
    snprintf(name, sizeof name, "%.*s", (int)(eq - a->inputs[i]), a->inputs[i]);
    tsl_weights *one = NULL;
    rc = load_weights(eq + 1, &one);
    const tsl_weight *t = NULL;
    if (!rc) {
      t = tsl_weights_count(one) == 1 ? tsl_weights_at(one, 0) : tsl_weights_find(one, name);
      if (!t)
        rc = cli_error("run", "--input %s: %s holds no tensor '%s'", a->inputs[i], eq + 1, name);
    }
    if (!rc && tsl_weights_add(in, name, t->dtype, t->ndim, t->shape, t->data, NULL, &d))
      rc = cli_error("run", "--input %s: %s", a->inputs[i], d.text);
    tsl_weights_free(one);
  }
  for (uint32_t i = 0; !rc && w && i < tsl_weights_count(w); i++) {
    const tsl_weight *t = tsl_weights_at(w, i);
    if (tsl_weights_find(in, t->name))
      continue; /* --input wins */
    if (tsl_weights_add(in, t->name, t->dtype, t->ndim, t->shape, t->data, NULL, &d))
      rc = cli_error("run", "%s: %s", a->weights, d.text);
  }
  for (uint32_t p = 0; !rc && p < f->n_params; p++) {
    const tsl_rx_var *v = f->params[p];
    if (tsl_weights_find(in, v->name))
      continue;
    const tsl_rx_sinfo *s = v->sinfo;
    if (s->kind != TSL_RX_SINFO_TENSOR || !s->shape || tsl_dtype_is_void(s->dtype) ||
        s->ndim > TSL_MAX_NDIM) {
      rc = cli_error("run", "parameter '%s' needs a tensor (--input %s=FILE): its struct info "
                     "gives no dtype and shape to make a random one", v->name, v->name);
      break;
    }
    tsl_tensor t;
    int64_t shape[TSL_MAX_NDIM];
    for (int32_t k = 0; !rc && k < s->ndim; k++)
      if ((shape[k] = dim_value(s->shape[k], a, f, in)) < 0 && s->shape[k]->kind == TSL_EXPR_VAR)
        rc = cli_error("run", "parameter '%s': give its symbolic size with --bind %s=VALUE "
                       "(or its tensor with --input)", v->name, s->shape[k]->u.var->name);
      else if (shape[k] < 0)
        rc = cli_error("run", "parameter '%s': a dimension computed from symbolic sizes; give "
                       "its tensor with --input %s=FILE", v->name, v->name);
    if (rc || tsl_tensor_alloc(&t, s->dtype, s->ndim, shape, &d)) {
      rc = rc ? rc : cli_error("run", "parameter '%s': %s", v->name, d.text);
      break;
    }
    tsl_tensor_fill_random(&t, a->seed, p);
    if (tsl_weights_add(in, v->name, t.dtype, (uint32_t)t.ndim, t.shape, t.data, NULL, &d))
      rc = cli_error("run", "parameter '%s': %s", v->name, d.text);
    tsl_tensor_free(&t);
  }
  (void)m;
  tsl_weights_free(w);
  return rc;
}

void cli_model_print_outputs(const tsl_weights *out, double secs, int json, const char *engine) {
  json_t *arr = json ? json_array() : NULL;
  for (uint32_t i = 0; i < tsl_weights_count(out); i++) {
    const tsl_weight *w = tsl_weights_at(out, i);
    tsl_tensor t = {.data = w->data, .dtype = w->dtype, .ndim = (int32_t)w->ndim};
    for (uint32_t k = 0; k < w->ndim && k < TSL_MAX_NDIM; k++)
      t.shape[k] = w->shape[k];
    char dt[32], shape[256] = "(";
    for (uint32_t k = 0; k < w->ndim; k++)
      snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%lld", k ? ", " : "",
               (long long)w->shape[k]);
    snprintf(shape + strlen(shape), sizeof shape - strlen(shape), w->ndim == 1 ? ",)" : ")");
    double sum = tsl_tensor_checksum(&t).sum;
    if (json) {
      json_t *o = json_pack("{s:s, s:s, s:s, s:f}", "name", w->name, "dtype",
                            tsl_dtype_str(w->dtype, dt), "shape", shape, "sum", sum);
      json_array_append_new(arr, o);
      continue;
    }
    printf("%s: %s %s, sum %.6g:", w->name, tsl_dtype_str(w->dtype, dt), shape, sum);
    for (uint64_t k = 0; k < w->numel && k < 6; k++)
      printf(" %.6g", tsl_tensor_get(&t, (int64_t)k));
    printf("%s\n", w->numel > 6 ? " ..." : "");
  }
  if (json) {
    json_t *o = json_pack("{s:o, s:f, s:s}", "outputs", arr, "time_s", secs, "engine", engine);
    char *s = json_dumps(o, JSON_COMPACT);
    puts(s);
    free(s);
    json_decref(o);
  } else {
    if (secs < 1e-3)
      printf("%s: %.2f us\n", engine, secs * 1e6);
    else
      printf("%s: %.3f ms\n", engine, secs * 1e3);
  }
}

/* The inputs of `f` after passes: the tensors of `in` naming its
 * parameters, and the metadata constants the passes did not bind. */
static tsl_weights *inputs_after(const tsl_model *m, const tsl_rx_func *f, const tsl_weights *in) {
  tsl_weights *r = tsl_weights_new();
  for (uint32_t i = 0; r && i < tsl_weights_count(in); i++) {
    const tsl_weight *w = tsl_weights_at(in, i);
    int keep = !strncmp(w->name, "relax.expr.Constant.", 20) &&
               !(m->constants && tsl_weights_find(m->constants, w->name));
    for (uint32_t p = 0; p < f->n_params; p++)
      keep |= !strcmp(f->params[p]->name, w->name);
    if (keep && tsl_weights_add(r, w->name, w->dtype, w->ndim, w->shape, w->data, NULL, NULL)) {
      tsl_weights_free(r);
      return NULL;
    }
  }
  return r;
}

int cli_model_check(const tsl_weights *ref, const tsl_weights *got, const char *against,
                    int json) {
  double diff = 0, big = 0;
  int paired = cli_model_compare(ref, got, &diff, &big);
  /* float32 arithmetic in another order: a few units in the last place
   * of the largest value, per reduction step */
  int ok = paired && diff <= 1e-4 * (big > 1 ? big : 1);
  fprintf(json ? stderr : stdout, "check against %s: %s (max |diff| %.3g, max |value| %.3g)\n",
          against, ok ? "ok" : paired ? "MISMATCH" : "outputs differ in names or shapes", diff,
          big);
  return ok;
}

/* The largest difference between the outputs, against the largest
 * reference value; 0 when they do not pair up (names, shapes). */
int cli_model_compare(const tsl_weights *ref, const tsl_weights *got, double *max_diff,
                      double *max_ref) {
  *max_diff = *max_ref = 0;
  if (tsl_weights_count(ref) != tsl_weights_count(got))
    return 0;
  for (uint32_t i = 0; i < tsl_weights_count(ref); i++) {
    const tsl_weight *a = tsl_weights_at(ref, i), *b = tsl_weights_find(got, a->name);
    if (!b || a->numel != b->numel || !tsl_dtype_eq(a->dtype, b->dtype))
      return 0;
    tsl_tensor ta = {.data = a->data, .dtype = a->dtype, .ndim = 1, .shape = {(int64_t)a->numel}};
    tsl_tensor tb = {.data = b->data, .dtype = b->dtype, .ndim = 1, .shape = {(int64_t)b->numel}};
    for (uint64_t k = 0; k < a->numel; k++) {
      double x = tsl_tensor_get(&ta, (int64_t)k), y = tsl_tensor_get(&tb, (int64_t)k);
      double dd = x > y ? x - y : y - x, ax = x < 0 ? -x : x;
      if (dd > *max_diff || dd != dd)
        *max_diff = dd;
      if (ax > *max_ref)
        *max_ref = ax;
    }
  }
  return 1;
}

/* The model the passes make, run and checked against `ref` (the outputs
 * before them). */
static int run_passed(const margs *a, tsl_arena *arena, const tsl_registry *reg,
                      const tsl_model *m, const char *func, const tsl_weights *in,
                      const tsl_weights *ref) {
  tsl_weights *w = NULL, *constants = NULL, *in2 = NULL, *out = NULL;
  const tsl_model *pm = NULL;
  tsl_diag d = {0};
  int rc = a->weights ? load_weights(a->weights, &w) : CLI_OK;
  if (!rc)
    rc = cli_model_passes("run", reg, arena, m, a->passes, w, &pm, &constants);
  const tsl_rx_func *f = rc ? NULL : tsl_model_find(pm, func);
  if (!rc && !f)
    rc = cli_error("run", "the passes removed the function '%s'", func);
  if (!rc && !(in2 = inputs_after(pm, f, in)))
    rc = cli_error("run", "out of memory");
  double t0 = cli_now_s();
  if (!rc && tsl_model_interp_with(reg, pm, func, in2, &out, &d)) {
    fprintf(stderr, "tessel run: error: after the passes %s: %s\n", a->passes, d.text);
    rc = CLI_NO;
  }
  double secs = cli_now_s() - t0;
  if (!rc) {
    cli_model_print_outputs(out, secs, a->json, "reference interpreter");
    char what[512];
    snprintf(what, sizeof what, "the model before the passes %s", a->passes);
    if (!cli_model_check(ref, out, what, a->json))
      rc = CLI_NO;
    if (!rc && a->output && tsl_weights_save(out, a->output, &d))
      rc = cli_error("run", "--output %s: %s", a->output, d.text);
  }
  tsl_weights_free(out);
  tsl_weights_free(in2);
  tsl_weights_free(constants);
  tsl_weights_free(w);
  return rc;
}

int cli_run_model(int argc, char **argv, const tsl_model *m) {
  margs a;
  int rc = parse(argc, argv, &a);
  if (rc)
    return rc;
  const tsl_rx_func *f = tsl_model_find(m, a.func ? a.func : "main");
  if (!f)
    return cli_error("run", "%s has no Relax function '%s'", a.path, a.func ? a.func : "main");
  tsl_weights *in = tsl_weights_new(), *out = NULL;
  if (!in)
    return cli_error("run", "out of memory");
  rc = gather(&a, m, f, in);
  tsl_diag d = {0};
  /* passes and library functions: the built-in ones and the plugins' */
  tsl_registry *reg = NULL;
  if (!rc)
    rc = cli_registry_open("run", tsl_arena_ctx(m->arena), &reg);
  if (!rc && a.no_check && !a.target)
    rc = cli_error("run", "--check none applies to a compiled run (--target)");
  if (!rc) {
    double t0 = cli_now_s();
    int r = a.no_check ? TSL_OK : tsl_model_interp_with(reg, m, f->name, in, &out, &d);
    double secs = cli_now_s() - t0;
    if (r) {
      fprintf(stderr, "tessel run: error: %s\n", d.text);
      rc = r == TSL_EINVALID ? CLI_USAGE : CLI_NO;
    } else if (a.target) {
      tsl_arena *arena = tsl_arena_new(tsl_arena_ctx(m->arena));
      tsl_weights *w = NULL;
      rc = a.weights ? load_weights(a.weights, &w) : CLI_OK;
      cli_model_run r = {arena, reg, m, f->name, a.passes, a.target, a.output, a.threads,
                         a.json, w, in, out};
      if (!rc)
        rc = cli_model_run_compiled(&r);
      tsl_weights_free(w);
      tsl_arena_free(arena);
    } else if (a.passes) {
      tsl_arena *arena = tsl_arena_new(tsl_arena_ctx(m->arena));
      rc = run_passed(&a, arena, reg, m, f->name, in, out);
      tsl_arena_free(arena);
    } else {
      cli_model_print_outputs(out, secs, a.json, "reference interpreter");
      if (a.output && tsl_weights_save(out, a.output, &d))
        rc = cli_error("run", "--output %s: %s", a.output, d.text);
    }
  }
  tsl_weights_free(out);
  tsl_weights_free(in);
  tsl_registry_free(reg);
  return rc;
}
