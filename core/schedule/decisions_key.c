/*
 * core/schedule/decisions_key.c — tsl_trace_key: the identity of a
 * candidate, its decisions as compact JSON followed by a digest of
 * everything else in the trace (instruction kinds, arguments, outputs).
 * The decisions alone do not tell candidates apart: two sketches of one
 * space can sample at the same instruction indices (MultiLevelTiling's
 * sketches that differ only in where the cache-write block goes), and
 * MutateParallel changes an annotation's value, not a decision. TVM tells
 * them apart by the scheduled module's structural hash; the trace is
 * enough here, since a trace replays to one program.
 */
#include "sch_internal.h"
#include "tessel/search.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a, 64 bits */
static void mix(uint64_t *h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) {
    *h ^= b[i];
    *h *= 0x100000001b3ull;
  }
}

static void mix_u64(uint64_t *h, uint64_t v) { mix(h, &v, sizeof v); }

static void mix_value(uint64_t *h, const tsl_sch_value *v, const tsl_trace *t) {
  mix_u64(h, (uint64_t)v->kind);
  switch (v->kind) {
  case TSL_SV_INT:
  case TSL_SV_BOOL: mix_u64(h, (uint64_t)v->u.i); break;
  case TSL_SV_FLOAT: mix(h, &v->u.f, sizeof v->u.f); break;
  case TSL_SV_STR: mix(h, v->u.s, strlen(v->u.s) + 1); break;
  case TSL_SV_RV: mix_u64(h, v->u.rv); break;
  case TSL_SV_EXPR:
  case TSL_SV_LAMBDA: {
    tsl_strbuf sb;
    tsl_strbuf_init(&sb);
    sch_value_print(&sb, v, t->rv_kinds.data, t->rv_kinds.len);
    mix(h, sb.data ? sb.data : "", sb.data ? sb.len : 0);
    tsl_strbuf_free(&sb);
    break;
  }
  default:
    if (sch_value_has_items(v)) {
      mix_u64(h, v->n);
      for (uint32_t i = 0; i < v->n; i++)
        mix_value(h, &v->u.items[i], t);
    }
    break;
  }
}

/* The instructions before postprocessing (before enter_postproc): a
 * postprocessed trace has the key of the trace it came from. */
static uint32_t sketch_len(const tsl_trace *t) {
  for (uint32_t i = 0; i < t->insts.len; i++)
    if (!strcmp(sch_trace_inst(t, i)->kind->name, "enter_postproc"))
      return i;
  return t->insts.len;
}

/* Everything of the first n instructions but their decisions. */
static uint64_t structure_hash(const tsl_trace *t, uint32_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint32_t i = 0; i < n; i++) {
    const tsl_trace_inst *in = sch_trace_inst(t, i);
    mix(&h, in->kind->name, strlen(in->kind->name) + 1);
    for (uint32_t p = 0; p < in->kind->n_params && p < in->n_args; p++)
      if (in->kind->params[p].type != TSL_SP_DECISION)
        mix_value(&h, &in->args[p], t);
    mix_u64(&h, in->n_outs);
    for (uint32_t j = 0; j < in->n_outs; j++)
      mix_u64(&h, in->outs[j]);
  }
  return h;
}

static char *make_key(const tsl_trace *t) {
  uint32_t n = sketch_len(t);
  json_t *dec = json_array();
  for (uint32_t i = 0; dec && i < n; i++) {
    const tsl_trace_inst *in = sch_trace_inst(t, i);
    if (in->kind->is_sample && in->decision.kind != TSL_SV_NONE)
      json_array_append_new(dec, json_pack("[I,o]", (json_int_t)i,
                                           sch_value_json(&in->decision, t)));
  }
  char *text = dec ? json_dumps(dec, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
  json_decref(dec);
  if (!text)
    return NULL;
  size_t len = strlen(text);
  char *key = malloc(len + 18);
  if (key)
    snprintf(key, len + 18, "%s@%016llx", text, (unsigned long long)structure_hash(t, n));
  free(text);
  return key;
}

const char *tsl_trace_key(const tsl_trace *t) {
  if (!t)
    return NULL;
  if (!t->key)
    ((tsl_trace *)t)->key = make_key(t); /* a cache: the trace is unchanged */
  return t->key;
}

char *tsl_trace_decisions_key(const tsl_trace *t) {
  const char *k = tsl_trace_key(t);
  return k ? strdup(k) : NULL;
}

size_t tsl_key_decisions_len(const char *key) {
  const char *at = key ? strrchr(key, '@') : NULL;
  return at ? (size_t)(at - key) : key ? strlen(key) : 0;
}
