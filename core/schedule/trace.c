/*
 * Traces: recording instructions, copying, replacing decisions, dropping
 * dead instructions, and printing as a schedule script.
 */
#include "sch_internal.h"
#include "arena_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sch_trace_init(tsl_trace *t, tsl_ctx *ctx, tsl_arena *arena) {
  memset(t, 0, sizeof *t);
  t->ctx = ctx;
  t->arena = arena;
  tsl_vec_init(&t->insts, sizeof(tsl_trace_inst), NULL);
  tsl_vec_init(&t->rv_kinds, sizeof(uint8_t), NULL);
}

/* The trace changed: its key is computed again when asked. */
static void forget_key(tsl_trace *t) {
  free(t->key);
  t->key = NULL;
}

void sch_trace_release(tsl_trace *t) {
  forget_key(t);
  tsl_vec_free(&t->insts);
  tsl_vec_free(&t->rv_kinds);
  if (t->owns_arena)
    tsl_arena_free(t->arena);
}

void sch_trace_append(tsl_trace *t, const tsl_sch_inst_kind *kind,
                      const tsl_sch_value *args, const tsl_sch_rv *outs,
                      uint32_t n_outs, const uint32_t *out_kinds,
                      const tsl_sch_value *decision) {
  forget_key(t);
  tsl_trace_inst *in = tsl_vec_push(&t->insts);
  in->kind = kind;
  in->n_args = kind->n_params;
  tsl_sch_value *a = TSL_NEW_ARRAY(t->arena, tsl_sch_value, kind->n_params + 1);
  for (uint32_t i = 0; i < kind->n_params; i++)
    a[i] = sch_value_copy(t->arena, &args[i]);
  in->args = a;
  in->n_outs = n_outs;
  in->outs = n_outs ? tsl_arena_dup(t->arena, outs, sizeof *outs * n_outs) : NULL;
  in->decision = decision ? sch_value_copy(t->arena, decision) : tsl_sv_none();
  for (uint32_t i = 0; i < n_outs; i++) {
    while (t->rv_kinds.len <= outs[i])
      tsl_vec_push(&t->rv_kinds);
    TSL_VEC_AT(&t->rv_kinds, uint8_t, outs[i]) = (uint8_t)out_kinds[i];
  }
}

uint32_t tsl_trace_len(const tsl_trace *t) { return t->insts.len; }
const tsl_trace_inst *tsl_trace_get(const tsl_trace *t, uint32_t i) {
  return i < t->insts.len ? sch_trace_inst(t, i) : NULL;
}
int tsl_trace_rv_kind(const tsl_trace *t, tsl_sch_rv rv) {
  return rv < t->rv_kinds.len ? TSL_VEC_AT(&t->rv_kinds, uint8_t, rv) : 0;
}

static tsl_trace *trace_new_owned(tsl_ctx *ctx) {
  tsl_trace *t = malloc(sizeof *t);
  if (!t)
    return NULL;
  sch_trace_init(t, ctx, tsl_arena_new_small(ctx)); /* kept by the thousand */
  t->owns_arena = 1;
  return t;
}

static tsl_trace *copy_filtered(const tsl_trace *t, const uint8_t *keep) {
  tsl_trace *r = trace_new_owned(t->ctx);
  if (!r)
    return NULL;
  for (uint32_t i = 0; i < t->insts.len; i++) {
    const tsl_trace_inst *in = sch_trace_inst(t, i);
    if (keep && !keep[i])
      continue;
    uint32_t kinds[256], *k = in->n_outs <= 256 ? kinds
                                                : TSL_NEW_ARRAY(r->arena, uint32_t, in->n_outs);
    for (uint32_t j = 0; j < in->n_outs; j++)
      k[j] = TSL_VEC_AT(&t->rv_kinds, uint8_t, in->outs[j]);
    sch_trace_append(r, in->kind, in->args, in->outs, in->n_outs, k,
                     in->kind->is_sample ? &in->decision : NULL);
  }
  return r;
}

tsl_trace *tsl_trace_copy(const tsl_trace *t) {
  tsl_trace *r = copy_filtered(t, NULL);
  if (r && t->key)
    r->key = strdup(t->key); /* equal traces, equal keys (NULL: asked again) */
  return r;
}

tsl_trace *tsl_trace_prefix(const tsl_trace *t, uint32_t n) {
  uint8_t *keep = calloc(t->insts.len + 1, 1);
  if (!keep)
    return NULL;
  for (uint32_t i = 0; i < n && i < t->insts.len; i++)
    keep[i] = 1;
  tsl_trace *r = copy_filtered(t, keep);
  free(keep);
  return r;
}

tsl_trace *tsl_trace_before_postproc(const tsl_trace *t) {
  uint8_t *keep = calloc(t->insts.len + 1, 1);
  if (!keep)
    return NULL;
  for (uint32_t i = 0; i < t->insts.len; i++) {
    if (!strcmp(sch_trace_inst(t, i)->kind->name, "enter_postproc"))
      break;
    keep[i] = 1;
  }
  tsl_trace *r = copy_filtered(t, keep);
  free(keep);
  return r;
}

void tsl_trace_free(tsl_trace *t) {
  if (!t)
    return;
  sch_trace_release(t);
  free(t);
}

typedef struct used_rvs {
  uint8_t *used;
  uint32_t n_rvs;
} used_rvs;

static int mark_var(const tsl_var *v, void *ud) {
  used_rvs *u = ud;
  tsl_sch_rv rv;
  if (sch_rv_var_number(v, &rv) && rv < u->n_rvs)
    u->used[rv] = 1;
  return 0;
}

static void mark_used(const tsl_sch_value *v, uint8_t *used, uint32_t n_rvs) {
  if (v->kind == TSL_SV_RV && v->u.rv < n_rvs) {
    used[v->u.rv] = 1;
  } else if (v->kind == TSL_SV_LAMBDA) {
    used_rvs u = {used, n_rvs};
    sch_value_rv_vars(v, mark_var, &u);
  } else if (sch_value_has_items(v)) {
    for (uint32_t i = 0; i < v->n; i++)
      mark_used(&v->u.items[i], used, n_rvs);
  }
}

tsl_trace *tsl_trace_simplified(const tsl_trace *t) {
  uint8_t *used = calloc(t->rv_kinds.len + 1, 1), *keep = calloc(t->insts.len + 1, 1);
  if (!used || !keep) {
    free(used);
    free(keep);
    return NULL;
  }
  for (uint32_t i = t->insts.len; i-- > 0;) {
    const tsl_trace_inst *in = sch_trace_inst(t, i);
    int live = !in->kind->is_pure;
    for (uint32_t j = 0; j < in->n_outs && !live; j++)
      live = used[in->outs[j]];
    if (!live)
      continue;
    keep[i] = 1;
    for (uint32_t a = 0; a < in->n_args; a++)
      mark_used(&in->args[a], used, t->rv_kinds.len);
  }
  tsl_trace *r = copy_filtered(t, keep);
  free(used);
  free(keep);
  return r;
}

int tsl_trace_set_decision(tsl_trace *t, uint32_t i,
                           const tsl_sch_value *decision, tsl_diag *diag) {
  if (i >= t->insts.len)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "instruction %u does not exist (the trace has %u)", i,
                        t->insts.len);
  tsl_trace_inst *in = sch_trace_inst(t, i);
  if (!in->kind->is_sample)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "instruction %u (%s) has no decision", i,
                        in->kind->name);
  int want_list = (int)in->kind->returns_list; /* the tile samplers */
  int ok = want_list ? decision->kind == TSL_SV_LIST
                     : decision->kind == TSL_SV_INT;
  for (uint32_t k = 0; ok && want_list && k < decision->n; k++)
    ok = decision->u.items[k].kind == TSL_SV_INT;
  if (!ok)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "instruction %u (%s): the decision must be %s", i,
                        in->kind->name, want_list ? "a list of ints" : "an int");
  in->decision = sch_value_copy(t->arena, decision);
  forget_key(t);
  return TSL_OK;
}

static int holds_rv(const tsl_sch_value *v) {
  if (v->kind == TSL_SV_RV || sch_value_has_rv_vars(v))
    return 1;
  if (v->kind == TSL_SV_LIST || v->kind == TSL_SV_TUPLE || v->kind == TSL_SV_DICT)
    for (uint32_t k = 0; k < v->n; k++)
      if (holds_rv(&v->u.items[k]))
        return 1;
  return 0;
}

int tsl_trace_set_arg(tsl_trace *t, uint32_t i, uint32_t arg, const tsl_sch_value *value,
                      tsl_diag *diag) {
  if (i >= t->insts.len)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "instruction %u does not exist (the trace has %u)", i, t->insts.len);
  tsl_trace_inst *in = sch_trace_inst(t, i);
  if (arg >= in->n_args)
    return tsl_diag_set(diag, TSL_EINVALID, "instruction %u (%s) has %u arguments, not %u", i,
                        in->kind->name, in->n_args, arg + 1);
  if (holds_rv(&in->args[arg]) || holds_rv(value))
    return tsl_diag_set(diag, TSL_EINVALID,
                        "instruction %u (%s): argument %u refers to random variables; only "
                        "constant arguments are replaced",
                        i, in->kind->name, arg);
  tsl_sch_value *args = TSL_NEW_ARRAY(t->arena, tsl_sch_value, in->n_args);
  memcpy(args, in->args, sizeof *args * in->n_args);
  args[arg] = sch_value_copy(t->arena, value);
  in->args = args;
  forget_key(t);
  return TSL_OK;
}

/* ---- printing ------------------------------------------------------------- */

static void print_inst(tsl_strbuf *sb, const tsl_trace *t,
                       const tsl_trace_inst *in, int with_decisions) {
  const tsl_sch_inst_kind *k = in->kind;
  if (in->n_outs) {
    for (uint32_t j = 0; j < in->n_outs; j++)
      tsl_strbuf_printf(sb, "%s%c%u", j ? ", " : "",
                        sch_rv_prefix(TSL_VEC_AT(&t->rv_kinds, uint8_t, in->outs[j])), in->outs[j]);
    tsl_strbuf_append(sb, k->returns_list && in->n_outs == 1 ? ", = " : " = ");
  }
  tsl_strbuf_printf(sb, "sch.%s(", k->name);
  int first = 1;
  for (uint32_t p = 0; p < k->n_params; p++) {
    const tsl_sch_param *par = &k->params[p];
    const tsl_sch_value *v = &in->args[p];
    if (par->flags & TSL_SPF_VARARGS) {
      for (uint32_t j = 0; j < v->n; j++) {
        tsl_strbuf_append(sb, first ? "" : ", ");
        sch_value_print(sb, &v->u.items[j], t->rv_kinds.data, t->rv_kinds.len);
        first = 0;
      }
      continue;
    }
    if (par->type == TSL_SP_DECISION) {
      if (!with_decisions || in->decision.kind == TSL_SV_NONE)
        continue;
      v = &in->decision;
    } else if (v->kind == TSL_SV_NONE && !(par->flags & TSL_SPF_REQUIRED)) {
      continue;
    }
    tsl_strbuf_printf(sb, "%s%s=", first ? "" : ", ", par->name);
    sch_value_print(sb, v, t->rv_kinds.data, t->rv_kinds.len);
    first = 0;
  }
  tsl_strbuf_append(sb, ")\n");
}

char *tsl_trace_to_script(const tsl_trace *t, int with_decisions) {
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  tsl_strbuf_append(&sb, "");
  for (uint32_t i = 0; i < t->insts.len; i++)
    print_inst(&sb, t, sch_trace_inst(t, i), with_decisions);
  return tsl_strbuf_take(&sb);
}
