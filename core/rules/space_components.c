/*
 * The components of a design space: schedule rules, postprocessors and
 * mutators created by registry name, the target's default lists
 * (tsl_target_vtable.space_defaults) and their release. The three kinds
 * share one path, told apart by the table `kinds`.
 */
#include "rules_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* What tells the three kinds apart. */
typedef struct space_kind {
  uint32_t kind;          /* TSL_COMPONENT_* */
  const char *plural;     /* in messages */
  size_t elem_size;       /* tsl_space_rule / _postproc / _mutator */
  size_t list_offset;     /* of its entries in tsl_space_defaults */
  size_t count_offset;    /* of their count */
} space_kind;

enum { K_RULE, K_POSTPROC, K_MUTATOR };

static const space_kind kinds[] = {
    [K_RULE] = {TSL_COMPONENT_SCHEDULE_RULE, "schedule rules",
                sizeof(tsl_space_rule), offsetof(tsl_space_defaults, rules),
                offsetof(tsl_space_defaults, n_rules)},
    [K_POSTPROC] = {TSL_COMPONENT_POSTPROC, "postprocessors",
                    sizeof(tsl_space_postproc), offsetof(tsl_space_defaults, postprocs),
                    offsetof(tsl_space_defaults, n_postprocs)},
    [K_MUTATOR] = {TSL_COMPONENT_MUTATOR, "mutators", sizeof(tsl_space_mutator),
                   offsetof(tsl_space_defaults, mutators),
                   offsetof(tsl_space_defaults, n_mutators)},
};

/* The component `name` of kind k, or NULL with the error in diag. The
 * registry has checked its vtable's size and its create and apply. */
static const tsl_component *find(const tsl_registry *reg, int k, const char *name,
                                 tsl_diag *diag) {
  const tsl_component *c;
  return tsl_registry_require(reg, kinds[k].kind, name, &c, diag) ? NULL : c;
}

int tsl_space_rule_create(const tsl_registry *reg, const char *name,
                          const tsl_rule_target *target, uint32_t n_opts,
                          const tsl_kv *opts, tsl_space_rule *out, tsl_diag *diag) {
  memset(out, 0, sizeof *out);
  const tsl_component *c = find(reg, K_RULE, name, diag);
  if (!c)
    return TSL_EINVALID;
  *out = (tsl_space_rule){sizeof *out, c->name, c->vtable, NULL};
  return out->vtable->create(c->user_data, target, n_opts, opts, &out->rule, diag);
}

int tsl_space_postproc_create(const tsl_registry *reg, const char *name,
                              const tsl_rule_target *target, uint32_t n_opts,
                              const tsl_kv *opts, tsl_space_postproc *out, tsl_diag *diag) {
  memset(out, 0, sizeof *out);
  const tsl_component *c = find(reg, K_POSTPROC, name, diag);
  if (!c)
    return TSL_EINVALID;
  *out = (tsl_space_postproc){sizeof *out, c->name, c->vtable, NULL};
  return out->vtable->create(c->user_data, target, n_opts, opts, &out->pp, diag);
}

int tsl_space_mutator_create(const tsl_registry *reg, const char *name,
                             const tsl_rule_target *target, double prob, uint32_t n_opts,
                             const tsl_kv *opts, tsl_space_mutator *out, tsl_diag *diag) {
  memset(out, 0, sizeof *out);
  const tsl_component *c = find(reg, K_MUTATOR, name, diag);
  if (!c)
    return TSL_EINVALID;
  *out = (tsl_space_mutator){sizeof *out, c->name, c->vtable, NULL, prob};
  return out->vtable->create(c->user_data, target, n_opts, opts, &out->m, diag);
}

void tsl_space_rules_free(tsl_space_rule *rules, uint32_t n) {
  for (uint32_t i = 0; rules && i < n; i++)
    if (rules[i].vtable && rules[i].vtable->destroy && rules[i].rule)
      rules[i].vtable->destroy(rules[i].rule);
  free(rules);
}

void tsl_space_postprocs_free(tsl_space_postproc *pps, uint32_t n) {
  for (uint32_t i = 0; pps && i < n; i++)
    if (pps[i].vtable && pps[i].vtable->destroy && pps[i].pp)
      pps[i].vtable->destroy(pps[i].pp);
  free(pps);
}

void tsl_space_mutators_free(tsl_space_mutator *ms, uint32_t n) {
  for (uint32_t i = 0; ms && i < n; i++)
    if (ms[i].vtable && ms[i].vtable->destroy && ms[i].m)
      ms[i].vtable->destroy(ms[i].m);
  free(ms);
}

int tsl_space_apply_postprocs(tsl_schedule *sch, uint32_t n, const tsl_space_postproc *pps,
                              tsl_diag *diag) {
  int rc = tsl_sch_call(sch, "enter_postproc", 0, NULL, NULL, NULL, diag);
  for (uint32_t i = 0; i < n && !rc; i++) {
    rc = pps[i].vtable->apply(pps[i].pp, sch, diag);
    if (rc && rc != TSL_ENOMEM) {
      char msg[sizeof diag->text];
      memcpy(msg, diag->text, sizeof msg);
      tsl_diag_set(diag, TSL_EINVALID, "%s: %s", pps[i].name, msg);
      rc = TSL_EINVALID;
    }
  }
  return rc;
}

/* ---- the target's default lists ---------------------------------------------- */

/* The default space of the target component `t->kind`, or TSL_EUNSUPPORTED
 * when it has none. */
static int target_defaults(const tsl_registry *reg, const tsl_rule_target *t, const char *what,
                           const tsl_space_defaults **out, tsl_diag *diag) {
  const char *name = t && t->kind ? t->kind : "(none)";
  const tsl_component *c = tsl_registry_find(reg, TSL_COMPONENT_TARGET, name);
  if (!c)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                        "space: no target '%s' is registered, so there are no default %s; "
                        "load its plugin, or give the space as a schedule script", name, what);
  const tsl_target_vtable *vt = c->vtable;
  const size_t need = offsetof(tsl_target_vtable, space_defaults) + sizeof vt->space_defaults;
  const size_t need_for =
      offsetof(tsl_target_vtable, space_defaults_for) + sizeof vt->space_defaults_for;
  *out = vt->struct_size >= need_for && vt->space_defaults_for ? vt->space_defaults_for(t) : NULL;
  if (!*out)
    *out = vt->struct_size >= need ? vt->space_defaults : NULL;
  if (!*out || (*out)->struct_size < sizeof **out)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                        "space: target '%s' names no default %s (or names them in a "
                        "tsl_space_defaults older than this tessel's); give the space as "
                        "a schedule script (space: {schedule: FILE.sch})", name, what);
  return TSL_OK;
}

static int create_entry(const tsl_registry *reg, int k, const tsl_space_entry *e,
                        const tsl_rule_target *t, void *out, tsl_diag *diag) {
  switch (k) {
  case K_RULE:
    return tsl_space_rule_create(reg, e->name, t, e->n_opts, e->opts, out, diag);
  case K_POSTPROC:
    return tsl_space_postproc_create(reg, e->name, t, e->n_opts, e->opts, out, diag);
  default:
    return tsl_space_mutator_create(reg, e->name, t, e->prob, e->n_opts, e->opts, out, diag);
  }
}

static void free_list(int k, void *list, uint32_t n) {
  if (k == K_RULE)
    tsl_space_rules_free(list, n);
  else if (k == K_POSTPROC)
    tsl_space_postprocs_free(list, n);
  else
    tsl_space_mutators_free(list, n);
}

/* The target's default list of kind k, created in order. */
static int create_defaults(const tsl_registry *reg, int k, const tsl_rule_target *t,
                           void **out, uint32_t *n_out, tsl_diag *diag) {
  *out = NULL;
  *n_out = 0;
  const tsl_space_defaults *d = NULL;
  int rc = target_defaults(reg, t, kinds[k].plural, &d, diag);
  if (rc)
    return rc;
  const char *base = (const char *)d;
  uint32_t n = *(const uint32_t *)(base + kinds[k].count_offset);
  const tsl_space_entry *entries = *(const tsl_space_entry *const *)(base + kinds[k].list_offset);
  if (n && !entries)
    return tsl_diag_set(diag, TSL_EINVALID, "space: target '%s' counts %u default %s but "
                        "lists none", t->kind, n, kinds[k].plural);
  char *list = calloc(n ? n : 1, kinds[k].elem_size);
  if (!list)
    return tsl_diag_set(diag, TSL_ENOMEM, "space: out of memory");
  for (uint32_t i = 0; i < n; i++) {
    rc = create_entry(reg, k, &entries[i], t, list + i * kinds[k].elem_size, diag);
    if (rc) {
      free_list(k, list, i);
      return rc;
    }
  }
  *out = list;
  *n_out = n;
  return TSL_OK;
}

int tsl_space_default_rules(const tsl_registry *reg, const tsl_rule_target *target,
                            tsl_space_rule **out, uint32_t *n_out, tsl_diag *diag) {
  return create_defaults(reg, K_RULE, target, (void **)out, n_out, diag);
}

int tsl_space_default_postprocs(const tsl_registry *reg, const tsl_rule_target *target,
                                tsl_space_postproc **out, uint32_t *n_out, tsl_diag *diag) {
  return create_defaults(reg, K_POSTPROC, target, (void **)out, n_out, diag);
}

int tsl_space_default_mutators(const tsl_registry *reg, const tsl_rule_target *target,
                               tsl_space_mutator **out, uint32_t *n_out, tsl_diag *diag) {
  return create_defaults(reg, K_MUTATOR, target, (void **)out, n_out, diag);
}
