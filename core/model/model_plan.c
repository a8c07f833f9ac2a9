/*
 * core/model/model_plan.c — the static memory plan of a compiled model
 * (TVM's StaticPlanBlockMemory, on bytes): the intermediate tensors, in
 * the order their calls make them, share slots of one workspace when
 * their lifetimes do not overlap.
 *
 * At each call its outputs take slots first, then the tensors it read for
 * the last time (and outputs nobody reads) give theirs back, so a call
 * never writes where it reads. A constant-size tensor takes the smallest
 * free constant slot that holds it, else the largest free one grown to
 * its size, else a new slot; a symbolic-size tensor takes a free slot of
 * the same size expression, else a new one. Slots are 64-byte aligned and
 * laid out in order of creation.
 */
#include "model_internal.h"

#include "tessel/script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct slot {
  int64_t bytes;     /* constant size, or -1 */
  const char *expr;  /* symbolic size (aligned), or NULL */
  const char *human; /* the same for messages: "128*n" */
  int busy;
  const char *offset;
} slot;

static const char *keep(tsl_arena *a, tsl_strbuf *sb) {
  char *t = tsl_strbuf_take(sb);
  const char *r = tsl_arena_strdup(a, t ? t : "");
  free(t);
  return r;
}

/* The aligned size of a tensor: constant (>= 0), or -1 with its
 * expression and a readable form. */
static int64_t size_of(tsl_arena *a, const tsl_rx_sinfo *si, const char **expr,
                       const char **human) {
  int64_t n = (int64_t)tsl_dtype_bytes(si->dtype);
  int symbolic = 0;
  for (int32_t d = 0; d < si->ndim; d++)
    if (si->shape[d]->kind == TSL_EXPR_INT_IMM)
      n *= si->shape[d]->u.int_value;
    else
      symbolic = 1;
  *expr = *human = NULL;
  if (!symbolic)
    return (n + 63) / 64 * 64;
  tsl_strbuf sb, hb;
  tsl_strbuf_init(&sb);
  tsl_strbuf_init(&hb);
  tsl_strbuf_append(&sb, "(");
  tsl_strbuf_printf(&hb, "%lld", (long long)n);
  for (int32_t d = 0; d < si->ndim; d++)
    if (si->shape[d]->kind != TSL_EXPR_INT_IMM) {
      char *s = tsl_print_expr(si->shape[d]);
      tsl_strbuf_printf(&sb, "(%s) * ", s ? s : "?");
      tsl_strbuf_printf(&hb, si->shape[d]->kind == TSL_EXPR_VAR ? "*%s" : "*(%s)", s ? s : "?");
      free(s);
    }
  tsl_strbuf_printf(&sb, "T.int64(%lld) + T.int64(63)) // T.int64(64) * T.int64(64)",
                    (long long)n);
  *expr = keep(a, &sb);
  *human = keep(a, &hb);
  return -1;
}

static int take(tsl_vec *slots, int64_t bytes, const char *expr, const char *human) {
  slot *s = slots->data;
  int best = -1;
  for (uint32_t i = 0; i < slots->len; i++) {
    if (s[i].busy)
      continue;
    if (expr) {
      if (s[i].expr && !strcmp(s[i].expr, expr)) {
        best = (int)i;
        break;
      }
      continue;
    }
    if (s[i].expr)
      continue;
    int fits = s[i].bytes >= bytes, best_fits = best >= 0 && s[best].bytes >= bytes;
    if (best < 0 || (fits && (!best_fits || s[i].bytes < s[best].bytes)) ||
        (!fits && !best_fits && s[i].bytes > s[best].bytes))
      best = (int)i;
  }
  if (best < 0) {
    slot n = {bytes, expr, human, 0, NULL};
    TSL_VEC_PUSH(slots, slot, n);
    best = (int)slots->len - 1;
    s = slots->data;
  }
  if (!expr && s[best].bytes < bytes)
    s[best].bytes = bytes;
  s[best].busy = 1;
  return best;
}

/* A sum of constant and symbolic terms, as an expression and readably. */
typedef struct sum {
  int64_t k;
  tsl_strbuf terms, human;
} sum;

static void sum_add(sum *s, int64_t bytes, const char *expr, const char *human) {
  if (!expr) {
    s->k += bytes;
    return;
  }
  tsl_strbuf_printf(&s->terms, "%s(%s)", s->terms.len ? " + " : "", expr);
  tsl_strbuf_printf(&s->human, "%s%s", s->human.len ? " + " : "", human);
}

static const char *sum_text(tsl_arena *a, const sum *s, int readable) {
  const tsl_strbuf *t = readable ? &s->human : &s->terms;
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  if (t->len)
    tsl_strbuf_append(&sb, t->data);
  if (s->k || !t->len)
    tsl_strbuf_printf(&sb, readable ? "%s%lld" : "%sT.int64(%lld)", t->len ? " + " : "",
                      (long long)s->k);
  return keep(a, &sb);
}

static void sum_init(sum *s) {
  s->k = 0;
  tsl_strbuf_init(&s->terms);
  tsl_strbuf_init(&s->human);
}

static void sum_free(sum *s) {
  tsl_strbuf_free(&s->terms);
  tsl_strbuf_free(&s->human);
}

void mdl_plan_run(tsl_arena *a, mdl_value *const *values, uint32_t n, mdl_plan *out) {
  memset(out, 0, sizeof *out);
  tsl_vec slots;
  tsl_vec_init(&slots, sizeof(slot), a);
  int32_t last_at = -1;
  sum unplanned, total;
  sum_init(&unplanned);
  sum_init(&total);
  for (uint32_t i = 0; i < n; i++)
    if (values[i]->kind == MDL_INTER && values[i]->def > last_at)
      last_at = values[i]->def;
  for (int32_t at = 0; at <= last_at; at++) {
    for (uint32_t i = 0; i < n; i++) {
      mdl_value *v = values[i];
      if (v->kind != MDL_INTER || v->def != at)
        continue;
      const char *expr, *human;
      int64_t bytes = size_of(a, v->si, &expr, &human);
      v->slot = take(&slots, bytes, expr, human);
      sum_add(&unplanned, bytes, expr, human);
      out->n_intermediates++;
    }
    for (uint32_t i = 0; i < n; i++) {
      mdl_value *v = values[i];
      if (v->kind == MDL_INTER && v->last == at)
        ((slot *)slots.data)[v->slot].busy = 0;
    }
  }
  slot *s = slots.data;
  for (uint32_t i = 0; i < slots.len; i++) {
    s[i].offset = sum_text(a, &total, 0);
    sum_add(&total, s[i].bytes, s[i].expr, s[i].human);
  }
  for (uint32_t i = 0; i < n; i++)
    if (values[i]->kind == MDL_INTER)
      values[i]->slot_offset = s[values[i]->slot].offset;
  out->n_slots = slots.len;
  out->workspace_expr = sum_text(a, &total, 0);
  out->planned_bytes = sum_text(a, &total, 1);
  out->unplanned_bytes = sum_text(a, &unplanned, 1);
  sum_free(&total);
  sum_free(&unplanned);
}
