/*
 * strategies/sketch/sketch_gen.c — Ansor's sketch generation over TensorIR:
 * states visit the stages (top-level blocks) from the last to the first;
 * at each stage every rule whose condition holds is applied to a fork of
 * the state, and a rule that applies "and skips the rest" ends the stage's
 * rules. A state past the first stage is a sketch.
 */
#include <stdlib.h>
#include <string.h>

#include "sketch.h"

int sk_push(sk_list *l, sk_state *st, tsl_diag *diag) {
  if (l->n == l->cap) {
    uint32_t cap = l->cap ? 2 * l->cap : 8;
    sk_state **items = realloc(l->items, cap * sizeof *items);
    if (!items) {
      sk_state_free(st);
      return tsl_diag_set(diag, TSL_ENOMEM, "strategy 'sketch': out of memory");
    }
    l->items = items;
    l->cap = cap;
  }
  l->items[l->n++] = st;
  return TSL_OK;
}

void sk_list_free(sk_list *l) {
  for (uint32_t i = 0; i < l->n; i++)
    sk_state_free(l->items[i]);
  free(l->items);
  *l = (sk_list){0};
}

void sk_state_free(sk_state *st) {
  if (!st)
    return;
  tsl_schedule_free(st->sch);
  free(st->stages);
  free(st->cache_written);
  free(st);
}

static sk_state *state_new(uint32_t n_stages, tsl_diag *diag) {
  sk_state *st = calloc(1, sizeof *st);
  if (st) {
    st->n_stages = n_stages;
    st->stages = calloc(n_stages + 1, sizeof *st->stages);
    st->cache_written = calloc(n_stages + 1, 1);
  }
  if (!st || !st->stages || !st->cache_written) {
    sk_state_free(st);
    tsl_diag_set(diag, TSL_ENOMEM, "strategy 'sketch': out of memory");
    return NULL;
  }
  return st;
}

int sk_state_fork(sk_state *st, sk_state **out, tsl_diag *diag) {
  sk_state *f = state_new(st->n_stages, diag);
  *out = NULL;
  if (!f)
    return TSL_ENOMEM;
  int rc = tsl_schedule_fork(st->sch, &f->sch, diag);
  if (rc) {
    sk_state_free(f);
    return rc;
  }
  memcpy(f->stages, st->stages, st->n_stages * sizeof *st->stages);
  memcpy(f->cache_written, st->cache_written, st->n_stages);
  f->root = st->root;
  f->stage = st->stage;
  *out = f;
  return TSL_OK;
}

int sk_insert_stage(sk_state *st, uint32_t at, tsl_sch_rv block, tsl_diag *diag) {
  uint32_t n = st->n_stages + 1;
  tsl_sch_rv *stages = realloc(st->stages, (n + 1) * sizeof *stages);
  if (stages)
    st->stages = stages;
  uint8_t *cw = realloc(st->cache_written, n + 1);
  if (cw)
    st->cache_written = cw;
  if (!stages || !cw)
    return tsl_diag_set(diag, TSL_ENOMEM, "strategy 'sketch': out of memory");
  memmove(st->stages + at + 1, st->stages + at, (n - 1 - at) * sizeof *stages);
  memmove(st->cache_written + at + 1, st->cache_written + at, n - 1 - at);
  st->stages[at] = block;
  st->cache_written[at] = 0;
  st->n_stages = n;
  return TSL_OK;
}

const tsl_block *sk_stage_block(sk_state *st, int32_t s) {
  if (s < 0 || (uint32_t)s >= st->n_stages)
    return NULL;
  const tsl_stmt *r = tsl_schedule_get_stmt(st->sch, st->stages[s]);
  return r && r->kind == TSL_STMT_BLOCK_REALIZE ? r->u.realize.block : NULL;
}

/* The first state: every top-level block a stage, the last one next. */
static int first_state(tsl_ctx *ctx, const tsl_module *mod, const char *func_name,
                       const tsl_intrin_registry *intrins, uint64_t seed, sk_state **out,
                       tsl_diag *diag) {
  tsl_schedule_opts so = {sizeof so, func_name, seed, intrins};
  tsl_schedule *sch = NULL;
  int rc = tsl_schedule_new(ctx, mod, &so, &sch, diag);
  tsl_sch_rv root = 0;
  const tsl_sch_rv *blocks = NULL;
  uint32_t n = 0;
  if (!rc)
    rc = tsl_sch_get_block(sch, "root", &root, diag);
  if (!rc) {
    tsl_sch_arg a = {NULL, tsl_sv_rv(root)};
    rc = tsl_sch_call(sch, "get_child_blocks", 1, &a, &blocks, &n, diag);
  }
  sk_state *st = rc ? NULL : state_new(n, diag);
  if (!st) {
    tsl_schedule_free(sch);
    return rc ? rc : TSL_ENOMEM;
  }
  st->sch = sch;
  st->root = root;
  memcpy(st->stages, blocks, n * sizeof *blocks);
  st->stage = (int32_t)n - 1;
  *out = st;
  return TSL_OK;
}

/* Every rule that applies to `st`'s stage, on a fork each; the states they
 * yield go to `next`. */
static int visit_stage(const sk_ctx *c, sk_state *st, sk_list *next, tsl_diag *diag) {
  if (!sk_stage_block(st, st->stage)) { /* inlined into its consumer */
    sk_state *f;
    int rc = sk_state_fork(st, &f, diag);
    if (rc)
      return rc;
    f->stage--;
    return sk_push(next, f, diag);
  }
  for (uint32_t r = 0; r < sk_n_cpu_rules; r++) {
    int cond = sk_cpu_rules[r].condition(c, st);
    if (cond == SK_PASS)
      continue;
    sk_state *f;
    int made = sk_state_fork(st, &f, diag);
    if (made)
      return made;
    made = sk_cpu_rules[r].apply(c, f, next, diag);
    if (made < 0)
      return made;
    /* a rule whose primitives failed made nothing: the others still try */
    if (cond == SK_APPLY_AND_SKIP_REST && made > 0)
      break;
  }
  return TSL_OK;
}

int sk_generate(tsl_ctx *ctx, const tsl_module *mod, const char *func_name, const sk_ctx *c,
                const tsl_intrin_registry *intrins, uint64_t seed, uint32_t max_sketches,
                tsl_trace ***out, uint32_t *n_out, tsl_diag *diag) {
  *out = NULL;
  *n_out = 0;
  sk_list now = {0}, next = {0}, done = {0};
  sk_state *st0 = NULL;
  int rc = first_state(ctx, mod, func_name, intrins, seed, &st0, diag);
  if (!rc)
    rc = sk_push(&now, st0, diag);
  while (!rc && now.n) {
    for (uint32_t i = 0; i < now.n && !rc; i++) {
      sk_state *st = now.items[i];
      if (st->stage >= 0) {
        rc = visit_stage(c, st, &next, diag);
        continue;
      }
      now.items[i] = NULL;
      if (done.n >= max_sketches)
        sk_state_free(st);
      else if (!(rc = sk_annotate(c, st, diag)))
        rc = sk_push(&done, st, diag);
      else
        sk_state_free(st);
    }
    sk_list_free(&now);
    now = next;
    next = (sk_list){0};
  }
  if (!rc && done.n && !(*out = calloc(done.n, sizeof **out)))
    rc = tsl_diag_set(diag, TSL_ENOMEM, "strategy 'sketch': out of memory");
  for (uint32_t i = 0; !rc && i < done.n; i++) {
    if (!((*out)[i] = tsl_trace_copy(tsl_schedule_trace(done.items[i]->sch))))
      rc = tsl_diag_set(diag, TSL_ENOMEM, "strategy 'sketch': out of memory");
    else
      (*n_out)++;
  }
  if (rc) {
    for (uint32_t i = 0; i < *n_out; i++)
      tsl_trace_free((*out)[i]);
    free(*out);
    *out = NULL;
    *n_out = 0;
  }
  sk_list_free(&now);
  sk_list_free(&next);
  sk_list_free(&done);
  return rc;
}
