/*
 * Option tables and schedule calls shared by the built-in rules.
 */
#include "rules_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *type_text(int type) {
  return type == RULE_OPT_BOOL  ? "true or false"
         : type == RULE_OPT_INT ? "an integer"
         : type == RULE_OPT_STR ? "a string of at most 511 characters"
                                : "a list of integers such as [0, 16, 64]";
}

static int parse_int(const char *s, const char **end, int64_t *v) {
  while (*s == ' ')
    s++;
  errno = 0;
  char *e;
  long long x = strtoll(s, &e, 10);
  if (e == s || errno)
    return 0;
  *v = x;
  *end = e;
  return 1;
}

static int parse_value(int type, const char *s, void *dst) {
  if (type == RULE_OPT_BOOL) {
    int b = !strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "1");
    if (!b && strcmp(s, "false") && strcmp(s, "False") && strcmp(s, "0"))
      return 0;
    *(int32_t *)dst = b;
    return 1;
  }
  const char *end;
  if (type == RULE_OPT_STR) {
    size_t n = strlen(s);
    if (n >= RULE_STR_MAX)
      return 0;
    memcpy(dst, s, n + 1);
    return 1;
  }
  if (type == RULE_OPT_INT) {
    int64_t v;
    if (!parse_int(s, &end, &v) || *end)
      return 0;
    *(int64_t *)dst = v;
    return 1;
  }
  rule_ints *l = dst;
  l->n = 0;
  while (*s == ' ')
    s++;
  int bracket = *s == '[';
  if (bracket)
    s++;
  while (*s == ' ')
    s++;
  if (bracket && *s == ']')
    return s[1] == '\0';
  for (;;) {
    int64_t v;
    if (l->n == RULE_MAX_INTS || !parse_int(s, &end, &v))
      return 0;
    l->v[l->n++] = v;
    s = end;
    while (*s == ' ')
      s++;
    if (*s == ',') {
      s++;
      continue;
    }
    if (bracket && *s == ']')
      s++;
    else if (bracket)
      return 0;
    return *s == '\0';
  }
}

int rule_parse_opts(const char *rule, const rule_opt *table, uint32_t n_table,
                    uint32_t n, const tsl_kv *opts, void *out, tsl_diag *diag) {
  for (uint32_t i = 0; i < n; i++) {
    const rule_opt *o = NULL;
    for (uint32_t k = 0; k < n_table && !o; k++)
      if (!strcmp(table[k].key, opts[i].key))
        o = &table[k];
    if (!o) {
      tsl_diag_set(diag, TSL_EINVALID, "%s: unknown option '%s'; valid:", rule, opts[i].key);
      for (uint32_t k = 0; k < n_table; k++)
        tsl_diag_append(diag, "%s %s", k ? "," : "", table[k].key);
      if (!n_table)
        tsl_diag_append(diag, " none");
      return TSL_EINVALID;
    }
    if (!parse_value(o->type, opts[i].value, (char *)out + o->offset))
      return tsl_diag_set(diag, TSL_EINVALID, "%s: option '%s' is '%s'; it must be %s",
                          rule, o->key, opts[i].value, type_text(o->type));
  }
  return TSL_OK;
}

int rule_call(tsl_schedule *sch, const char *inst, uint32_t n, const tsl_sch_value *args,
              tsl_sch_rv *out, tsl_diag *diag) {
  tsl_sch_arg a[8];
  for (uint32_t i = 0; i < n && i < 8; i++)
    a[i] = (tsl_sch_arg){NULL, args[i]};
  tsl_diag local;
  return rule_call_args(sch, inst, n < 8 ? n : 8, a, out, diag ? diag : &local);
}

int rule_call_args(tsl_schedule *sch, const char *inst, uint32_t n, const tsl_sch_arg *args,
                   tsl_sch_rv *out, tsl_diag *diag) {
  const tsl_sch_rv *outs = NULL;
  uint32_t n_outs = 0;
  int rc = tsl_sch_call(sch, inst, n, args, &outs, &n_outs, diag);
  if (!rc && out)
    *out = n_outs ? outs[0] : 0;
  return rc;
}

tsl_sch_rv *rule_query(tsl_schedule *sch, const char *inst, tsl_sch_rv rv, uint32_t *n) {
  tsl_sch_arg a = {NULL, tsl_sv_rv(rv)};
  const tsl_sch_rv *outs = NULL;
  tsl_diag d;
  *n = 0;
  if (tsl_sch_call(sch, inst, 1, &a, &outs, n, &d) || !*n)
    return (*n = 0, NULL);
  tsl_sch_rv *r = malloc(sizeof *r * *n);
  if (!r)
    return (*n = 0, NULL);
  memcpy(r, outs, sizeof *r * *n);
  return r;
}

const tsl_attr_value *rule_block_ann(tsl_schedule *sch, tsl_sch_rv block, const char *key) {
  const tsl_stmt *rz = tsl_schedule_get_stmt(sch, block);
  return rz && rz->kind == TSL_STMT_BLOCK_REALIZE
             ? tsl_attrs_get(rz->u.realize.block->annotations, key)
             : NULL;
}

int rule_create_plain(const char *name, uint32_t n, const tsl_kv *opts, size_t size,
                      void **out, tsl_diag *diag) {
  *out = NULL;
  int rc = rule_parse_opts(name, NULL, 0, n, opts, NULL, diag);
  if (rc)
    return rc;
  *out = calloc(1, size);
  return *out ? TSL_OK : tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", name);
}

static double weight(const tsl_sch_value *v) {
  return v->kind == TSL_SV_FLOAT ? v->u.f : v->kind == TSL_SV_INT ? (double)v->u.i : 0;
}

int64_t rule_redraw_categorical(const tsl_trace_inst *in, int64_t old, uint64_t *rng) {
  const tsl_sch_value *probs = &in->args[1];
  double total = 0;
  for (uint32_t k = 0; k < probs->n; k++)
    if ((int64_t)k != old)
      total += weight(&probs->u.items[k]);
  double x = tsl_rand_unit(rng) * total;
  int64_t last = -1;
  for (uint32_t k = 0; k < probs->n; k++) {
    if ((int64_t)k == old)
      continue;
    last = k;
    x -= weight(&probs->u.items[k]);
    if (x < 0)
      return k;
  }
  return last;
}

int rule_reduction_extents(tsl_schedule *sch, tsl_sch_rv block, int64_t *space,
                           int64_t *reduce) {
  enum { MAX_LOOPS = 64 };
  const tsl_stmt *rz = tsl_schedule_get_stmt(sch, block);
  const tsl_block *b = rz->u.realize.block;
  if (!b->n_writes || !tsl_sch_is_reduction_block(sch, block) ||
      !tsl_sch_is_trivial_binding(sch, block) ||
      tsl_attrs_get(b->annotations, "meta_schedule.tiling_structure"))
    return 0;
  const tsl_stmt *loops[MAX_LOOPS];
  uint32_t nl;
  tsl_sch_block_scope(sch, block, loops, MAX_LOOPS, &nl);
  if (nl > MAX_LOOPS || nl != b->n_iter_vars)
    return 0;
  int has_reduce = 0;
  *space = *reduce = 1;
  for (uint32_t i = 0; i < nl; i++) {
    /* trivial bindings: loop i feeds iterator i alone */
    int t = b->iter_vars[i].iter_type;
    const tsl_stmt *next = i + 1 < nl ? loops[i + 1] : rz;
    int64_t ext;
    if ((t != TSL_ITER_SPATIAL && t != TSL_ITER_REDUCE) || loops[i]->u.loop.body != next ||
        !tsl_expr_is_const_int(loops[i]->u.loop.extent, &ext))
      return 0;
    has_reduce |= t == TSL_ITER_REDUCE;
    *(t == TSL_ITER_REDUCE ? reduce : space) *= ext;
  }
  return has_reduce;
}
