/*
 * MutateThreadBinding, as TVM's mutator: the thread count a sketch samples
 * for a threadIdx.x loop (TVM's AutoBind and CrossThreadReduction write
 *   v = sch.sample_categorical(candidates=[...], probs=[...])
 *   l1, l2 = sch.split(loop=l0, factors=[None, v])
 *   sch.bind(loop=l2, thread_axis="threadIdx.x")
 * ) takes another of its candidates. Among the binds of this pattern in the
 * sketch part of the trace, one is drawn uniformly; its sample's decision
 * is redrawn from the other candidates by their probabilities. The result
 * is the sketch part with that decision changed.
 */
#include "rules_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct tsl_trace_mutator {
  int32_t unused;
} mtb_mutator;

static int mtb_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                      tsl_trace_mutator **out, tsl_diag *diag) {
  (void)ud;
  (void)t;
  return rule_create_plain("MutateThreadBinding", n, opts, sizeof **out, (void **)out, diag);
}

static void mtb_destroy(tsl_trace_mutator *m) { free(m); }

/* ---- the pattern ------------------------------------------------------------------ */

static int is_inst(const tsl_trace_inst *in, const char *name) {
  return !strcmp(in->kind->name, name);
}

/* The instruction before `end` whose output is `rv` and whose kind is
 * `kind`, or -1. */
static int64_t maker_of(const tsl_trace *t, uint32_t end, tsl_sch_rv rv, const char *kind) {
  for (uint32_t i = 0; i < end; i++) {
    const tsl_trace_inst *in = tsl_trace_get(t, i);
    for (uint32_t k = 0; k < in->n_outs; k++)
      if (in->outs[k] == rv)
        return is_inst(in, kind) ? (int64_t)i : -1;
  }
  return -1;
}

/* A split into [None, v] with v a sample_categorical's value: that
 * sample's instruction number, or -1. */
static int64_t sampled_split(const tsl_trace *t, uint32_t split) {
  const tsl_trace_inst *in = tsl_trace_get(t, split);
  const tsl_sch_value *f = &in->args[1];
  if (in->n_outs != 2 || f->kind != TSL_SV_LIST || f->n != 2 ||
      f->u.items[0].kind != TSL_SV_NONE || f->u.items[1].kind != TSL_SV_RV)
    return -1;
  return maker_of(t, split, f->u.items[1].u.rv, "sample_categorical");
}

/* The sample_categorical behind bind instruction i, when it binds the
 * inner loop of a sampled split to threadIdx.x; else -1. */
static int64_t sample_behind(const tsl_trace *t, uint32_t i) {
  const tsl_trace_inst *in = tsl_trace_get(t, i);
  if (!is_inst(in, "bind") || in->args[0].kind != TSL_SV_RV ||
      in->args[1].kind != TSL_SV_STR || strcmp(in->args[1].u.s, "threadIdx.x"))
    return -1;
  int64_t split = maker_of(t, i, in->args[0].u.rv, "split");
  if (split < 0 || tsl_trace_get(t, (uint32_t)split)->outs[1] != in->args[0].u.rv)
    return -1;
  int64_t s = sampled_split(t, (uint32_t)split);
  if (s < 0)
    return -1;
  const tsl_trace_inst *sample = tsl_trace_get(t, (uint32_t)s);
  /* one candidate alone leaves nothing to propose */
  return sample->decision.kind == TSL_SV_INT && sample->args[1].n >= 2 ? s : -1;
}

/* ---- the mutation ------------------------------------------------------------------ */


static int mtb_apply(tsl_trace_mutator *m, const tsl_module *mod, const tsl_trace *trace,
                     uint64_t *rng, tsl_trace **out, tsl_diag *diag) {
  (void)m;
  (void)mod;
  *out = NULL;
  tsl_trace *t = tsl_trace_before_postproc(trace);
  if (!t)
    return tsl_diag_set(diag, TSL_ENOMEM, "MutateThreadBinding: out of memory");
  uint32_t len = tsl_trace_len(t), nc = 0;
  uint32_t *cands = malloc(sizeof *cands * (len ? len : 1));
  if (!cands) {
    tsl_trace_free(t);
    return tsl_diag_set(diag, TSL_ENOMEM, "MutateThreadBinding: out of memory");
  }
  for (uint32_t i = 0; i < len; i++) {
    int64_t s = sample_behind(t, i);
    if (s >= 0)
      cands[nc++] = (uint32_t)s;
  }
  int rc = TSL_OK;
  if (nc) {
    uint32_t s = cands[tsl_rand_below(rng, nc)];
    const tsl_trace_inst *in = tsl_trace_get(t, s);
    tsl_sch_value d = tsl_sv_int(rule_redraw_categorical(in, in->decision.u.i, rng));
    rc = tsl_trace_set_decision(t, s, &d, diag);
    if (!rc) {
      *out = t;
      t = NULL;
    }
  }
  free(cands);
  tsl_trace_free(t);
  return rc;
}

const tsl_trace_mutator_vtable mutator_thread_binding_vt = {
    sizeof(tsl_trace_mutator_vtable), mtb_create, mtb_destroy, mtb_apply};
