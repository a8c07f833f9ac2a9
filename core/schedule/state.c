/*
 * Schedule state: creation, the RV table, the random generator, and the
 * call path every primitive goes through (binding, block names, rollback on
 * failure, recording in the trace).
 */
#include "sch_internal.h"

#include <assert.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- random generator (xoshiro256**, seeded by splitmix64) ------------- */

void sch_rng_seed(tsl_schedule *sch, uint64_t seed) {
  uint64_t x = seed;
  for (int i = 0; i < 4; i++)
    sch->rng[i] = tsl_rand_next(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t sch_rand_u64(tsl_schedule *sch) {
  uint64_t *s = sch->rng;
  uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return r;
}

uint64_t sch_rand_below(tsl_schedule *sch, uint64_t n) {
  if (n <= 1)
    return 0;
  uint64_t limit = UINT64_MAX - UINT64_MAX % n, r;
  do
    r = sch_rand_u64(sch);
  while (r >= limit);
  return r % n;
}

uint64_t tsl_schedule_fork_seed(tsl_schedule *sch) { return sch_rand_u64(sch); }

/* ---- lifecycle --------------------------------------------------------- */

static tsl_str default_func(const tsl_module *mod, tsl_ctx *ctx,
                            const char *want) {
  if (want)
    return tsl_module_find(mod, want) ? tsl_intern(ctx, want) : NULL;
  if (mod->n_funcs == 1)
    return mod->funcs[0]->name;
  return tsl_module_find(mod, "main") ? tsl_intern(ctx, "main") : NULL;
}

int tsl_schedule_new(tsl_ctx *ctx, const tsl_module *mod,
                     const tsl_schedule_opts *opts, tsl_schedule **out,
                     tsl_diag *diag) {
  *out = NULL;
  tsl_str fn = default_func(mod, ctx, opts ? opts->func_name : NULL);
  if (!fn && opts && opts->func_name) {
    tsl_diag_set(diag, TSL_ENOTFOUND, "schedule: the module has no function '%s'; functions:",
                 opts->func_name);
    for (uint32_t i = 0; i < mod->n_funcs; i++)
      tsl_diag_append(diag, " %s", mod->funcs[i]->name);
    return TSL_ENOTFOUND;
  }
  tsl_schedule *sch = calloc(1, sizeof *sch);
  if (!sch)
    return tsl_diag_set(diag, TSL_ENOMEM, "schedule: out of memory");
  sch->ctx = ctx;
  tsl_vec_init(&sch->rv_table, sizeof(sch_rv), NULL);
  sch->aref = calloc(1, sizeof *sch->aref);
  if (!sch->aref) {
    free(sch);
    return tsl_diag_set(diag, TSL_ENOMEM, "schedule: out of memory");
  }
  sch->aref->arena = sch->arena = tsl_arena_new(ctx);
  sch->aref->refs = 1;
  sch->an = tsl_analyzer_new(ctx);
  sch->orig = sch->mod = mod;
  sch->func_name = fn;
  sch->intrins = opts ? opts->intrins : NULL;
  sch_rng_seed(sch, opts ? opts->seed : 0);
  sch_trace_init(&sch->trace, ctx, sch->arena);
  *out = sch;
  return TSL_OK;
}

static void arena_release(sch_arena_ref *r) {
  while (r && --r->refs == 0) {
    sch_arena_ref *parent = r->parent;
    tsl_arena_free(r->arena);
    free(r);
    r = parent;
  }
}

void tsl_schedule_free(tsl_schedule *sch) {
  if (!sch)
    return;
  sch_trace_release(&sch->trace);
  tsl_intrin_registry_free(sch->own_intrins);
  tsl_analyzer_free(sch->an);
  arena_release(sch->aref);
  tsl_vec_free(&sch->rv_table);
  free(sch);
}

int tsl_schedule_fork(tsl_schedule *sch, tsl_schedule **out, tsl_diag *diag) {
  *out = NULL;
  tsl_schedule *f = calloc(1, sizeof *f);
  sch_arena_ref *r = calloc(1, sizeof *r);
  if (!f || !r) {
    free(f);
    free(r);
    return tsl_diag_set(diag, TSL_ENOMEM, "fork: out of memory");
  }
  f->ctx = sch->ctx;
  r->arena = f->arena = tsl_arena_new(sch->ctx);
  r->refs = 1;
  r->parent = sch->aref;
  sch->aref->refs++;
  f->aref = r;
  f->an = tsl_analyzer_new(sch->ctx);
  f->orig = sch->orig;
  f->mod = sch->mod;
  f->func_name = sch->func_name;
  f->intrins = sch->intrins; /* the parent's own set, if any, is its own */
  f->in_postproc = sch->in_postproc;
  tsl_vec_init(&f->rv_table, sizeof(sch_rv), NULL);
  tsl_vec_append(&f->rv_table, sch->rv_table.data, sch->rv_table.len);
  if (sch->param_layouts.len) {
    tsl_vec_init(&f->param_layouts, sch->param_layouts.elem_size, f->arena);
    tsl_vec_append(&f->param_layouts, sch->param_layouts.data, sch->param_layouts.len);
  }
  /* the trace's instructions point into the parent's arena, kept alive */
  sch_trace_init(&f->trace, sch->ctx, f->arena);
  tsl_vec_append(&f->trace.insts, sch->trace.insts.data, sch->trace.insts.len);
  tsl_vec_append(&f->trace.rv_kinds, sch->trace.rv_kinds.data, sch->trace.rv_kinds.len);
  /* as TVM's Schedule.copy: the fork draws its seed from the parent */
  sch_rng_seed(f, sch_rand_u64(sch));
  *out = f;
  return TSL_OK;
}

const tsl_module *tsl_schedule_module(const tsl_schedule *sch) {
  return sch->mod;
}
const tsl_module *tsl_schedule_original(const tsl_schedule *sch) {
  return sch->orig;
}
const tsl_func *tsl_schedule_func(const tsl_schedule *sch) {
  return sch->func_name ? tsl_module_find(sch->mod, sch->func_name) : NULL;
}
const tsl_trace *tsl_schedule_trace(const tsl_schedule *sch) {
  return &sch->trace;
}
tsl_ctx *tsl_schedule_ctx(const tsl_schedule *sch) { return sch->ctx; }

const tsl_func *sch_func(const tsl_schedule *sch, tsl_str name) {
  return tsl_module_find(sch->mod, name);
}

/* ---- RVs -------------------------------------------------------------- */

int tsl_schedule_rv_kind(const tsl_schedule *sch, tsl_sch_rv rv) {
  return rv < sch->n_rvs ? (int)sch->rvs[rv].kind : 0;
}
int64_t tsl_schedule_rv_value(const tsl_schedule *sch, tsl_sch_rv rv) {
  return rv < sch->n_rvs && sch->rvs[rv].kind == TSL_RV_EXPR
             ? sch->rvs[rv].u.value
             : 0;
}
const tsl_var *tsl_schedule_rv_var(tsl_schedule *sch, tsl_sch_rv rv) {
  if (rv >= sch->n_rvs || sch->rvs[rv].kind != TSL_RV_EXPR ||
      tsl_trace_rv_kind(&sch->trace, rv) != TSL_RV_EXPR)
    return NULL; /* not a sampled value, removed, or untraced (fork_seed) */
  return sch->rvs[rv].var;
}

const char *tsl_schedule_rv_name(const tsl_schedule *sch, tsl_sch_rv rv) {
  if (rv >= sch->n_rvs)
    return NULL;
  if (sch->rvs[rv].kind == TSL_RV_BLOCK)
    return sch->rvs[rv].u.block;
  if (sch->rvs[rv].kind == TSL_RV_LOOP)
    return sch->rvs[rv].u.loop->name;
  return NULL;
}

char sch_rv_prefix(uint32_t kind) {
  return kind == TSL_RV_BLOCK ? 'b' : kind == TSL_RV_LOOP ? 'l' : 'v';
}

const char *sch_rv_describe(const tsl_schedule *sch, tsl_sch_rv rv) {
  char buf[256];
  if (rv >= sch->n_rvs)
    snprintf(buf, sizeof buf, "handle %u (unknown)", rv);
  else if (sch->rvs[rv].kind == 0)
    snprintf(buf, sizeof buf, "handle %u (removed by remove_rv)", rv);
  else if (sch->rvs[rv].kind == TSL_RV_BLOCK)
    snprintf(buf, sizeof buf, "block '%s'", sch->rvs[rv].u.block);
  else if (sch->rvs[rv].kind == TSL_RV_LOOP)
    snprintf(buf, sizeof buf, "loop '%s'", sch->rvs[rv].u.loop->name);
  else
    snprintf(buf, sizeof buf, "v%u = %lld", rv,
             (long long)sch->rvs[rv].u.value);
  return tsl_arena_strdup(sch->arena, buf);
}

_Static_assert(offsetof(tsl_schedule, rvs) == offsetof(tsl_schedule, rv_table.data) &&
                   offsetof(tsl_schedule, n_rvs) == offsetof(tsl_schedule, rv_table.len),
               "rvs / n_rvs alias the data / len of rv_table");

static tsl_sch_rv rv_push(sch_call *c, sch_rv r) {
  tsl_sch_rv rv = c->sch->rv_table.len;
  TSL_VEC_PUSH(&c->sch->rv_table, sch_rv, r);
  TSL_VEC_PUSH(&c->outs, tsl_sch_rv, rv);
  return rv;
}

tsl_sch_rv sch_out_block(sch_call *c, tsl_str func, tsl_str name) {
  return rv_push(c, (sch_rv){TSL_RV_BLOCK, func, {.block = name}, NULL});
}
tsl_sch_rv sch_out_loop(sch_call *c, tsl_str func, const tsl_var *v) {
  return rv_push(c, (sch_rv){TSL_RV_LOOP, func, {.loop = v}, NULL});
}
tsl_sch_rv sch_out_int(sch_call *c, int64_t value) {
  /* the variable is made with the handle, so that forks share it */
  char name[16];
  sch_name_join(name, sizeof name, "v", NULL, c->sch->rv_table.len);
  sch_rv r = {TSL_RV_EXPR, NULL, {.value = value}, tsl_var_new(c->arena, name, TSL_INT32)};
  return rv_push(c, r);
}

void sch_rename_block(sch_call *c, tsl_str func, tsl_str from, tsl_str to) {
  if (c->n_renames < sizeof c->renames / sizeof c->renames[0]) {
    c->renames[c->n_renames].func = func;
    c->renames[c->n_renames].from = from;
    c->renames[c->n_renames].to = to;
    c->n_renames++;
  }
}

static void apply_renames(const sch_call *c) {
  tsl_schedule *sch = c->sch;
  for (uint32_t r = 0; r < c->n_renames; r++)
    for (uint32_t i = 0; i < sch->n_rvs; i++)
      if (sch->rvs[i].kind == TSL_RV_BLOCK && sch->rvs[i].func == c->renames[r].func &&
          sch->rvs[i].u.block == c->renames[r].from)
        sch->rvs[i].u.block = c->renames[r].to;
}

sch_snapshot sch_snapshot_take(const sch_call *c) {
  return (sch_snapshot){c->sch->mod, c->sch->n_rvs, c->outs.len, c->n_renames};
}
void sch_snapshot_restore(sch_call *c, sch_snapshot s) {
  c->sch->mod = s.mod;
  c->sch->n_rvs = s.n_rvs;
  c->outs.len = s.n_outs;
  c->n_renames = s.n_renames;
}

int sch_fail(sch_call *c, int status, const char *fmt, ...) {
  if (c->diag) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->diag->text, sizeof c->diag->text, fmt, ap);
    va_end(ap);
    c->diag->len = (uint32_t)strlen(c->diag->text);
  }
  return status;
}

void sch_diag_prefix(tsl_diag *diag, const char *fmt, ...) {
  if (!diag)
    return;
  char prefix[512], reason[sizeof diag->text];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  memcpy(reason, diag->text, sizeof reason);
  reason[sizeof reason - 1] = 0;
  size_t np = strlen(prefix), nr = strlen(reason), cap = sizeof diag->text - 1;
  if (np > cap)
    np = cap;
  if (nr > cap - np)
    nr = cap - np; /* truncated, as tsl_diag_set truncates */
  memcpy(diag->text, prefix, np);
  memcpy(diag->text + np, reason, nr);
  diag->text[np + nr] = 0;
  diag->len = (uint32_t)(np + nr);
}

const tsl_expr *sch_simplify(sch_call *c, const tsl_expr *e) {
  return tsl_simplify(c->sch->an, c->arena, e);
}

/* ---- binding arguments -------------------------------------------------- */

static const char *type_text(uint32_t type) {
  switch (type) {
  case TSL_SP_BLOCK: return "a block (handle or name)";
  case TSL_SP_LOOP: return "a loop handle";
  case TSL_SP_BLOCK_OR_LOOP: return "a block or loop handle";
  case TSL_SP_INT: return "an int";
  case TSL_SP_FLOAT: return "a float";
  case TSL_SP_STR: return "a string";
  case TSL_SP_BOOL: return "True or False";
  case TSL_SP_INT_OR_NONE: return "an int or None";
  case TSL_SP_FACTORS: return "a list of ints, sampled values or None";
  case TSL_SP_INTS: return "a list of ints";
  case TSL_SP_FLOATS: return "a list of floats";
  case TSL_SP_BLOCKS: return "a list of blocks";
  case TSL_SP_LOOPS: return "loop handles";
  case TSL_SP_ANY: return "an int, float, string, bool, sampled value, T. expression, or a list or dict of those";
  case TSL_SP_DECISION: return "an int, a list of ints or None";
  case TSL_SP_BLOCK_OR_LOOPS: return "a loop handle or a list of blocks";
  case TSL_SP_BUFFER: return "a buffer name or a tuple (\"read\" or \"write\", index)";
  case TSL_SP_LAMBDA: return "a lambda, e.g. lambda i, j: (j, i)";
  case TSL_SP_EXPR_OR_LAMBDA: return "a number, a T. expression or a lambda";
  case TSL_SP_HANDLE: return "a handle (block, loop or sampled value)";
  }
  return "?";
}

static const char *value_kind_text(const tsl_sch_value *v) {
  static const char *names[] = {"None",    "an int",  "a float",
                                "a string", "a bool",  "a handle",
                                "a list",  "a tuple", "a dict",
                                "an expression", "a lambda"};
  return v->kind <= TSL_SV_LAMBDA ? names[v->kind] : "?";
}

static int list_all(const tsl_sch_value *v, int (*ok)(const tsl_sch_value *)) {
  if (v->kind != TSL_SV_LIST)
    return 0;
  for (uint32_t i = 0; i < v->n; i++)
    if (!ok(&v->u.items[i]))
      return 0;
  return 1;
}
static int is_int(const tsl_sch_value *v) { return v->kind == TSL_SV_INT; }
static int is_num(const tsl_sch_value *v) {
  return v->kind == TSL_SV_INT || v->kind == TSL_SV_FLOAT;
}
static int is_rv(const tsl_sch_value *v) { return v->kind == TSL_SV_RV; }
static int is_block_like(const tsl_sch_value *v) {
  return v->kind == TSL_SV_RV || v->kind == TSL_SV_STR;
}
static int is_factor(const tsl_sch_value *v) {
  return v->kind == TSL_SV_INT || v->kind == TSL_SV_RV ||
         v->kind == TSL_SV_NONE;
}
static int is_scalar_any(const tsl_sch_value *v) {
  return v->kind == TSL_SV_INT || v->kind == TSL_SV_FLOAT ||
         v->kind == TSL_SV_STR || v->kind == TSL_SV_BOOL ||
         v->kind == TSL_SV_RV || v->kind == TSL_SV_EXPR;
}
/* Annotation values: scalars, lists of values, dicts with string keys. */
static int is_any(const tsl_sch_value *v) {
  if (v->kind == TSL_SV_LIST)
    return list_all(v, is_any);
  if (v->kind == TSL_SV_DICT) {
    for (uint32_t i = 0; i < v->n; i += 2)
      if (v->u.items[i].kind != TSL_SV_STR || !is_any(&v->u.items[i + 1]))
        return 0;
    return 1;
  }
  return is_scalar_any(v);
}
static int is_buffer_ref(const tsl_sch_value *v) {
  if (v->kind == TSL_SV_STR)
    return 1;
  return (v->kind == TSL_SV_TUPLE || v->kind == TSL_SV_LIST) && v->n == 2 &&
         v->u.items[0].kind == TSL_SV_STR && v->u.items[1].kind == TSL_SV_INT;
}

int sch_type_ok(uint32_t type, const tsl_sch_value *v) {
  switch (type) {
  case TSL_SP_BLOCK:
  case TSL_SP_BLOCK_OR_LOOP: return is_block_like(v);
  case TSL_SP_LOOP: return is_rv(v);
  case TSL_SP_INT: return is_int(v);
  case TSL_SP_FLOAT: return is_num(v);
  case TSL_SP_STR: return v->kind == TSL_SV_STR;
  case TSL_SP_BOOL: return v->kind == TSL_SV_BOOL;
  case TSL_SP_INT_OR_NONE: return is_int(v) || v->kind == TSL_SV_NONE;
  case TSL_SP_FACTORS: return list_all(v, is_factor) && v->n > 0;
  case TSL_SP_INTS: return list_all(v, is_int);
  case TSL_SP_FLOATS: return list_all(v, is_num);
  case TSL_SP_BLOCKS: return list_all(v, is_block_like);
  case TSL_SP_LOOPS: return list_all(v, is_rv);
  case TSL_SP_ANY: return is_any(v);
  case TSL_SP_DECISION: return is_int(v) || list_all(v, is_int);
  case TSL_SP_BLOCK_OR_LOOPS: return is_rv(v) || list_all(v, is_block_like);
  case TSL_SP_BUFFER: return is_buffer_ref(v);
  case TSL_SP_LAMBDA: return v->kind == TSL_SV_LAMBDA;
  case TSL_SP_EXPR_OR_LAMBDA:
    return is_num(v) || v->kind == TSL_SV_EXPR || v->kind == TSL_SV_LAMBDA;
  case TSL_SP_HANDLE: return is_rv(v);
  }
  return 0;
}

/* The name two parameters of `l` share, or NULL. */
static const char *lambda_duplicate_param(const tsl_sch_lambda *l) {
  for (uint32_t i = 0; i < l->n_params; i++)
    for (uint32_t j = 0; j < i; j++)
      if (strcmp(l->params[i]->name, l->params[j]->name) == 0)
        return l->params[i]->name;
  return NULL;
}

/* Tuples are lists everywhere but in buffer references (which the
 * primitive records as tuples) and lambdas (whose bodies keep them). */
static tsl_sch_value tuples_as_lists(tsl_arena *a, uint32_t type,
                                     tsl_sch_value v) {
  if (type == TSL_SP_BUFFER) {
    if (v.kind == TSL_SV_LIST)
      v.kind = TSL_SV_TUPLE;
    return v;
  }
  if (!sch_value_has_items(&v))
    return v;
  tsl_sch_value *items = TSL_NEW_ARRAY(a, tsl_sch_value, v.n + 1);
  for (uint32_t i = 0; i < v.n; i++)
    items[i] = tuples_as_lists(a, type, v.u.items[i]);
  v.u.items = items;
  if (v.kind == TSL_SV_TUPLE)
    v.kind = TSL_SV_LIST;
  return v;
}

int sch_bind_args(const tsl_sch_inst_kind *k, uint32_t n_args,
                  const tsl_sch_arg *args, tsl_arena *a, tsl_sch_value *bound,
                  tsl_diag *diag) {
  uint8_t set[32] = {0};
  uint32_t np = k->n_params, pos = 0;
  int varargs = -1;
  for (uint32_t p = 0; p < np; p++)
    if (k->params[p].flags & TSL_SPF_VARARGS)
      varargs = (int)p;
  /* varargs collect positionals */
  uint32_t n_var = 0;
  tsl_sch_value *var_items = NULL;
  if (varargs >= 0)
    var_items = TSL_NEW_ARRAY(a, tsl_sch_value, n_args + 1);
  for (uint32_t i = 0; i < n_args; i++) {
    const tsl_sch_arg *arg = &args[i];
    int p = -1;
    if (!arg->name) {
      if (varargs >= 0 && pos >= (uint32_t)varargs) {
        var_items[n_var++] = tuples_as_lists(a, k->params[varargs].type, arg->value);
        set[varargs] = 1;
        continue;
      }
      if (pos >= np)
        return tsl_diag_set(diag, TSL_EINVALID,
                            "takes %u positional argument%s but more were given",
                            np, np == 1 ? "" : "s");
      p = (int)pos++;
    } else {
      for (uint32_t q = 0; q < np; q++)
        if (strcmp(k->params[q].name, arg->name) == 0 &&
            !(k->params[q].flags & TSL_SPF_VARARGS))
          p = (int)q;
      if (p < 0) {
        tsl_diag_set(diag, TSL_EINVALID,
                     "unexpected keyword argument '%s'; valid:", arg->name);
        int any = 0;
        for (uint32_t q = 0; q < np; q++)
          if (!(k->params[q].flags & TSL_SPF_VARARGS)) {
            tsl_diag_append(diag, "%s %s", any ? "," : "", k->params[q].name);
            any = 1;
          }
        if (!any)
          tsl_diag_append(diag, " none");
        return TSL_EINVALID;
      }
      if (set[p])
        return tsl_diag_set(diag, TSL_EINVALID,
                            "got multiple values for argument '%s'",
                            arg->name);
    }
    const tsl_sch_param *par = &k->params[p];
    tsl_sch_value v = tuples_as_lists(a, par->type, arg->value);
    int none_ok = !(par->flags & TSL_SPF_REQUIRED) &&
                  par->default_value.kind == TSL_SV_NONE &&
                  v.kind == TSL_SV_NONE;
    int name_ok = (par->flags & TSL_SPF_BUFFER_NAME) && v.kind == TSL_SV_STR;
    if (!none_ok && !name_ok && !sch_type_ok(par->type, &v))
      return tsl_diag_set(diag, TSL_EINVALID,
                          "argument '%s' must be %s, not %s", par->name,
                          type_text(par->type), value_kind_text(&v));
    const char *dup = v.kind == TSL_SV_LAMBDA ? lambda_duplicate_param(v.u.lambda) : NULL;
    if (dup)
      return tsl_diag_set(diag, TSL_EINVALID,
                          "argument '%s': the lambda names two parameters '%s'; "
                          "give each parameter its own name (a trace prints them "
                          "by name)", par->name, dup);
    if (par->type == TSL_SP_FLOAT && v.kind == TSL_SV_INT)
      v = tsl_sv_float((double)v.u.i);
    if (par->type == TSL_SP_FLOATS) {
      tsl_sch_value *items = TSL_NEW_ARRAY(a, tsl_sch_value, v.n + 1);
      for (uint32_t j = 0; j < v.n; j++)
        items[j] = v.u.items[j].kind == TSL_SV_INT
                       ? tsl_sv_float((double)v.u.items[j].u.i)
                       : v.u.items[j];
      v = tsl_sv_list(v.n, items);
    }
    bound[p] = v;
    set[p] = 1;
  }
  for (uint32_t p = 0; p < np; p++) {
    if ((int)p == varargs) {
      for (uint32_t j = 0; j < n_var; j++)
        if (!sch_type_ok(TSL_SP_LOOPS == k->params[p].type ? TSL_SP_LOOP
                                                        : k->params[p].type,
                     &var_items[j]))
          return tsl_diag_set(diag, TSL_EINVALID,
                              "argument %u of '*%s' must be %s, not %s", j + 1,
                              k->params[p].name, "a loop handle",
                              value_kind_text(&var_items[j]));
      bound[p] = tsl_sv_list(n_var, var_items);
      if (!n_var && (k->params[p].flags & TSL_SPF_REQUIRED))
        return tsl_diag_set(diag, TSL_EINVALID, "needs at least one loop");
      continue;
    }
    if (set[p])
      continue;
    if (k->params[p].flags & TSL_SPF_REQUIRED)
      return tsl_diag_set(diag, TSL_EINVALID,
                          "missing required argument '%s' (%s)",
                          k->params[p].name, type_text(k->params[p].type));
    bound[p] = k->params[p].default_value;
  }
  return TSL_OK;
}

/* ---- invoking ------------------------------------------------------------ */

static int decision_index(const tsl_sch_inst_kind *k) {
  for (uint32_t p = 0; p < k->n_params; p++)
    if (k->params[p].type == TSL_SP_DECISION)
      return (int)p;
  return -1;
}

/* RV arguments must be live handles of the right kind. */
static int check_rv(tsl_schedule *sch, const tsl_sch_param *par,
                    const tsl_sch_value *v, tsl_diag *diag) {
  if (sch_value_has_items(v)) {
    for (uint32_t i = 0; i < v->n; i++)
      if (check_rv(sch, par, &v->u.items[i], diag))
        return TSL_EINVALID;
    return TSL_OK;
  }
  if (v->kind != TSL_SV_RV)
    return TSL_OK;
  if (v->u.rv >= sch->n_rvs)
    return tsl_diag_set(diag, TSL_EINVALID, "argument '%s': unknown handle %u",
                        par->name, v->u.rv);
  uint32_t kind = sch->rvs[v->u.rv].kind;
  int ok;
  switch (par->type) {
  case TSL_SP_BLOCK:
  case TSL_SP_BLOCKS: ok = kind == TSL_RV_BLOCK; break;
  case TSL_SP_LOOP:
  case TSL_SP_LOOPS: ok = kind == TSL_RV_LOOP; break;
  case TSL_SP_BLOCK_OR_LOOP:
  case TSL_SP_BLOCK_OR_LOOPS: ok = kind != TSL_RV_EXPR; break;
  case TSL_SP_FACTORS:
  case TSL_SP_ANY: ok = kind == TSL_RV_EXPR; break;
  case TSL_SP_HANDLE: ok = kind != 0; break;
  default: ok = 0;
  }
  if (!ok)
    return tsl_diag_set(diag, TSL_EINVALID, "argument '%s' must be %s, not %s",
                        par->name, type_text(par->type),
                        sch_rv_describe(sch, v->u.rv));
  return TSL_OK;
}

/* ---- sampled values in lambdas ------------------------------------------ */

typedef struct rv_bind {
  tsl_schedule *sch;
  const tsl_sch_lambda *l;
  const char *clash; /* a parameter named as a sampled value the body uses */
} rv_bind;

/* The RV `v` is the variable of, when it is this schedule's variable of a
 * live, traced sampled value; else UINT32_MAX. */
static tsl_sch_rv rv_of_var(const tsl_schedule *sch, const tsl_var *v) {
  tsl_sch_rv rv;
  if (!sch_rv_var_number(v, &rv) || rv >= sch->n_rvs || sch->rvs[rv].kind != TSL_RV_EXPR ||
      sch->rvs[rv].var != v || tsl_trace_rv_kind(&sch->trace, rv) != TSL_RV_EXPR)
    return UINT32_MAX;
  return rv;
}

static const tsl_expr *rv_value(const tsl_var *v, void *ud) {
  rv_bind *b = ud;
  tsl_sch_rv rv = rv_of_var(b->sch, v);
  if (rv == UINT32_MAX)
    return NULL;
  for (uint32_t k = 0; k < b->l->n_params; k++)
    if (!strcmp(b->l->params[k]->name, v->name))
      b->clash = v->name;
  int64_t x = b->sch->rvs[rv].u.value;
  return tsl_expr_int(b->sch->arena, x >= INT32_MIN && x <= INT32_MAX ? TSL_INT32 : TSL_INT64,
                      x);
}

/* A lambda argument as the primitive sees it: each sampled value's
 * variable replaced by the value it holds now. */
static int bind_rv_vars(tsl_schedule *sch, const tsl_sch_param *par, tsl_sch_value *v,
                        tsl_diag *diag) {
  rv_bind b = {sch, v->u.lambda, NULL};
  const tsl_var *bad = NULL;
  tsl_sch_value r;
  if (sch_value_subst_rv_vars(sch->arena, v, rv_value, &b, &r, &bad))
    return tsl_diag_set(diag, TSL_EINVALID,
                        "argument '%s': the lambda uses '%s', which is neither one of its "
                        "parameters nor a sampled value of this schedule "
                        "(tsl_schedule_rv_var of a sample_* output)",
                        par->name, bad->name);
  if (b.clash)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "argument '%s': a parameter of the lambda is named '%s', as the "
                        "sampled value its body uses (a trace prints the value by that "
                        "name); rename the parameter",
                        par->name, b.clash);
  *v = r;
  return TSL_OK;
}

int sch_invoke(tsl_schedule *sch, const sch_inst *inst,
               const tsl_sch_value *bound, const tsl_sch_value *decision,
               const tsl_sch_rv **outs, uint32_t *n_outs, tsl_diag *diag) {
  const tsl_sch_inst_kind *k = &inst->pub;
  tsl_sch_value *args = TSL_NEW_ARRAY(sch->arena, tsl_sch_value, k->n_params + 1);
  memcpy(args, bound, sizeof *args * k->n_params);
  sch_call c = {.sch = sch, .arena = sch->arena, .kind = k, .args = args,
                .decision = tsl_sv_none(), .diag = diag};
  tsl_vec_init(&c.outs, sizeof(tsl_sch_rv), sch->arena);
  int di = decision_index(k);
  if (di >= 0) {
    c.decision = args[di];
    args[di] = tsl_sv_none();
  }
  if (decision && decision->kind != TSL_SV_NONE)
    c.decision = *decision;
  int rc = TSL_OK;
  /* lambdas over sampled values: the primitive sees the values, the trace
   * records the variables (as it records an RV argument) */
  uint64_t has_rvs = 0; /* by parameter */
  assert(k->n_params <= 64);
  for (uint32_t p = 0; p < k->n_params && rc == TSL_OK; p++) {
    rc = check_rv(sch, &k->params[p], &args[p], diag);
    if (rc == TSL_OK && args[p].kind == TSL_SV_LAMBDA && sch_value_has_rv_vars(&args[p])) {
      has_rvs |= 1ull << p;
      rc = bind_rv_vars(sch, &k->params[p], &args[p], diag);
    }
    /* expressions of a replayed trace must not be shared into the module */
    if (sch_value_has_exprs(&args[p]))
      args[p] = sch_value_copy(sch->arena, &args[p]);
  }
  sch_snapshot snap = sch_snapshot_take(&c);
  if (rc == TSL_OK)
    rc = inst->apply(&c);
  if (rc != TSL_OK) {
    sch_snapshot_restore(&c, snap);
    sch_diag_prefix(diag, "%s: ", k->name);
    return rc;
  }
  apply_renames(&c);
  for (uint32_t p = 0; p < k->n_params; p++)
    if (has_rvs & (1ull << p))
      args[p] = bound[p];
  uint32_t n = c.outs.len, kinds_buf[64];
  const tsl_sch_rv *out_rvs = c.outs.data;
  uint32_t *kinds = n <= 64 ? kinds_buf : TSL_NEW_ARRAY(sch->arena, uint32_t, n);
  for (uint32_t i = 0; i < n; i++)
    kinds[i] = sch->rvs[out_rvs[i]].kind;
  if (!inst->untraced)
    sch_trace_append(&sch->trace, k, args, out_rvs, n, kinds,
                     k->is_sample ? &c.decision : NULL);
  if (outs)
    *outs = out_rvs;
  if (n_outs)
    *n_outs = n;
  return TSL_OK;
}

/* Strings given where a block is expected become get_block calls. */
static int resolve_block_names(tsl_schedule *sch, const tsl_sch_param *par,
                               tsl_sch_value *v, tsl_diag *diag) {
  int wants = par->type == TSL_SP_BLOCK || par->type == TSL_SP_BLOCKS ||
              par->type == TSL_SP_BLOCK_OR_LOOP ||
              par->type == TSL_SP_BLOCK_OR_LOOPS;
  if (!wants)
    return TSL_OK;
  if (v->kind == TSL_SV_LIST) {
    tsl_sch_value *items = TSL_NEW_ARRAY(sch->arena, tsl_sch_value, v->n + 1);
    for (uint32_t i = 0; i < v->n; i++) {
      items[i] = v->u.items[i];
      int rc = resolve_block_names(sch, par, &items[i], diag);
      if (rc)
        return rc;
    }
    v->u.items = items;
    return TSL_OK;
  }
  if (v->kind != TSL_SV_STR)
    return TSL_OK;
  tsl_sch_rv rv;
  int rc = tsl_sch_get_block(sch, v->u.s, &rv, diag);
  if (rc)
    return rc;
  *v = tsl_sv_rv(rv);
  return TSL_OK;
}

int tsl_sch_call(tsl_schedule *sch, const char *name, uint32_t n_args,
                 const tsl_sch_arg *args, const tsl_sch_rv **outs,
                 uint32_t *n_outs, tsl_diag *diag) {
  const sch_inst *inst = sch_inst_find(name);
  if (!inst) {
    tsl_diag_set(diag, TSL_ENOTFOUND, "the schedule has no method '%s' (TVM: AttributeError); its methods are:",
                 name);
    uint32_t n;
    const tsl_sch_inst_kind *const *all = tsl_sch_inst_kinds(&n);
    for (uint32_t i = 0; i < n; i++)
      tsl_diag_append(diag, "%s %s", i ? "," : "", all[i]->name);
    return TSL_ENOTFOUND;
  }
  const tsl_sch_inst_kind *k = &inst->pub;
  tsl_sch_value *bound = TSL_NEW_ARRAY(sch->arena, tsl_sch_value, k->n_params + 1);
  int rc = sch_bind_args(k, n_args, args, sch->arena, bound, diag);
  if (rc) {
    sch_diag_prefix(diag, "%s: ", name);
    return rc;
  }
  for (uint32_t p = 0; p < k->n_params; p++)
    if ((rc = resolve_block_names(sch, &k->params[p], &bound[p], diag)))
      return rc;
  return sch_invoke(sch, inst, bound, NULL, outs, n_outs, diag);
}

int tsl_sch_get_block(tsl_schedule *sch, const char *name, tsl_sch_rv *out,
                      tsl_diag *diag) {
  tsl_sch_value bound[2] = {tsl_sv_str(tsl_intern(sch->ctx, name)),
                            tsl_sv_none()};
  const tsl_sch_rv *o;
  uint32_t n;
  int rc = sch_invoke(sch, sch_inst_find("get_block"), bound, NULL, &o, &n, diag);
  if (rc == TSL_OK)
    *out = o[0];
  return rc;
}

int tsl_sch_get_loops(tsl_schedule *sch, tsl_sch_rv block,
                      const tsl_sch_rv **loops, uint32_t *n, tsl_diag *diag) {
  tsl_sch_value bound[1] = {tsl_sv_rv(block)};
  return sch_invoke(sch, sch_inst_find("get_loops"), bound, NULL, loops, n,
                    diag);
}
