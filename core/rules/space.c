/*
 * The space generator (TVM's PostOrderApply, see tessel/rules.h): one
 * traced schedule, a handle per block in post-order, then rule by rule a
 * depth-first walk over (schedule, blocks left) pairs.
 */
#include "rules_internal.h"

#include <stdlib.h>
#include <string.h>

struct tsl_schedule_list {
  tsl_vec items; /* tsl_schedule * (heap) */
};

int tsl_schedule_list_push(tsl_schedule_list *list, tsl_schedule *sch) {
  if (!sch)
    return TSL_EINVALID;
  if (!list) {
    tsl_schedule_free(sch); /* as documented: the list takes it, even so */
    return TSL_EINVALID;
  }
  TSL_VEC_PUSH(&list->items, tsl_schedule *, sch);
  return TSL_OK;
}

static void list_free_all(tsl_vec *v) {
  for (uint32_t i = 0; i < v->len; i++)
    tsl_schedule_free(TSL_VEC_AT(v, tsl_schedule *, i));
  tsl_vec_free(v);
}

/* ---- the blocks, post-order --------------------------------------------- */

typedef struct collect {
  tsl_stmt_visitor v;
  tsl_vec names; /* tsl_str */
} collect;

static int block_post(const tsl_stmt *s, void *ud) {
  if (s->kind == TSL_STMT_BLOCK_REALIZE)
    TSL_VEC_PUSH(&((collect *)ud)->names, tsl_str, s->u.realize.block->name);
  return 0;
}

/* get_block for every block of the function, children before parents. */
static int block_handles(tsl_schedule *sch, tsl_vec *rvs, tsl_diag *diag) {
  const tsl_func *f = tsl_schedule_func(sch);
  collect c = {{.stmt_post = block_post}, {0}};
  c.v.user_data = &c;
  tsl_vec_init(&c.names, sizeof(tsl_str), NULL);
  tsl_stmt_visit(f->body, &c.v);
  int rc = TSL_OK;
  for (uint32_t i = 0; i < c.names.len && !rc; i++) {
    tsl_sch_arg args[2] = {{"name", tsl_sv_str(TSL_VEC_AT(&c.names, tsl_str, i))},
                           {"func_name", tsl_sv_str(f->name)}};
    const tsl_sch_rv *outs;
    uint32_t n;
    rc = tsl_sch_call(sch, "get_block", 2, args, &outs, &n, diag);
    if (!rc)
      TSL_VEC_PUSH(rvs, tsl_sch_rv, outs[0]);
  }
  tsl_vec_free(&c.names);
  return rc;
}

/* ---- the walk ---------------------------------------------------------- */

typedef struct entry {
  tsl_schedule *sch;
  uint32_t left; /* blocks rvs[0 .. left) still to visit, the last first */
} entry;

/* Whether `rule` may apply to the block: a block annotated schedule_rule
 * is left to the rule of that name. */
static int rule_applies(tsl_schedule *sch, tsl_sch_rv block, const char *rule) {
  const tsl_stmt *rz = tsl_schedule_get_stmt(sch, block);
  const tsl_attr_value *v =
      tsl_attrs_get(rz->u.realize.block->annotations, "schedule_rule");
  return !v || (v->kind == TSL_ATTR_STR && strcmp(v->u.s, rule) == 0);
}

static int apply_rule(const tsl_space_rule *r, const tsl_sch_rv *rvs, uint32_t n_blocks,
                      tsl_vec *result, tsl_diag *diag) {
  tsl_vec stack;
  tsl_vec_init(&stack, sizeof(entry), NULL);
  for (uint32_t i = 0; i < result->len; i++)
    TSL_VEC_PUSH(&stack, entry, ((entry){TSL_VEC_AT(result, tsl_schedule *, i), n_blocks}));
  result->len = 0;
  int rc = TSL_OK;
  while (stack.len && !rc) {
    entry e = TSL_VEC_LAST(&stack, entry);
    stack.len--;
    if (!e.left) {
      TSL_VEC_PUSH(result, tsl_schedule *, e.sch);
      continue;
    }
    tsl_sch_rv block = rvs[--e.left];
    if (!tsl_schedule_get_stmt(e.sch, block) || !rule_applies(e.sch, block, r->name)) {
      TSL_VEC_PUSH(&stack, entry, e);
      continue;
    }
    tsl_schedule_list out;
    tsl_vec_init(&out.items, sizeof(tsl_schedule *), NULL);
    rc = r->vtable->apply(r->rule, e.sch, block, &out, diag);
    for (uint32_t i = 0; i < out.items.len; i++) {
      tsl_schedule *x = TSL_VEC_AT(&out.items, tsl_schedule *, i);
      if (rc)
        tsl_schedule_free(x);
      else
        TSL_VEC_PUSH(&stack, entry, ((entry){x, e.left}));
    }
    tsl_vec_free(&out.items);
  }
  for (uint32_t i = 0; i < stack.len; i++)
    tsl_schedule_free(TSL_VEC_AT(&stack, entry, i).sch);
  tsl_vec_free(&stack);
  return rc;
}

int tsl_space_generate(tsl_ctx *ctx, const tsl_module *mod, const char *func_name,
                       uint32_t n_rules, const tsl_space_rule *rules, uint64_t seed,
                       const tsl_intrin_registry *intrins, tsl_trace ***out,
                       uint32_t *n_out, tsl_diag *diag) {
  *out = NULL;
  *n_out = 0;
  tsl_schedule_opts so = {sizeof so, func_name, seed, intrins};
  tsl_schedule *sch;
  int rc = tsl_schedule_new(ctx, mod, &so, &sch, diag);
  if (rc)
    return rc;
  if (!tsl_schedule_func(sch)) {
    tsl_schedule_free(sch);
    return tsl_diag_set(diag, TSL_EINVALID,
                        "space: the module has several functions and none is "
                        "'main'; name the function to tune");
  }
  tsl_vec rvs; /* the block handles, post-order */
  tsl_vec_init(&rvs, sizeof(tsl_sch_rv), NULL);
  rc = block_handles(sch, &rvs, diag);
  tsl_vec result;
  tsl_vec_init(&result, sizeof(tsl_schedule *), NULL);
  TSL_VEC_PUSH(&result, tsl_schedule *, sch);
  for (uint32_t i = 0; i < n_rules && !rc; i++) {
    rc = apply_rule(&rules[i], TSL_VEC_DATA(&rvs, tsl_sch_rv), rvs.len, &result, diag);
    if (rc) {
      char msg[sizeof diag->text];
      memcpy(msg, diag->text, sizeof msg);
      tsl_diag_set(diag, rc, "space: rule %s: %s", rules[i].name, msg);
    }
  }
  tsl_vec_free(&rvs);
  if (!rc) {
    tsl_trace **traces = calloc(result.len ? result.len : 1, sizeof *traces);
    for (uint32_t i = 0; traces && i < result.len; i++)
      traces[i] = tsl_trace_copy(tsl_schedule_trace(TSL_VEC_AT(&result, tsl_schedule *, i)));
    *out = traces;
    *n_out = traces ? result.len : 0;
    if (!traces)
      rc = tsl_diag_set(diag, TSL_ENOMEM, "space: out of memory");
  }
  list_free_all(&result);
  return rc;
}
