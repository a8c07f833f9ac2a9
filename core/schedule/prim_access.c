/*
 * Primitives that edit a block's declared access regions only (what the
 * block computes stays the same): annotate_buffer_access replaces one
 * region with ranges a lambda of the block's iter vars gives and records
 * its index in the "explicit_read_region" / "explicit_write_region"
 * annotation; unsafe_hide_buffer_access drops regions (TVM's
 * AnnotateBufferAccess and UnsafeHideBufferAccess).
 */
#include "sch_internal.h"

#include <stdio.h>
#include <string.h>

/* "read" -> 0, "write" -> 1, else -1 */
static int buf_type_of(const char *s) {
  return !strcmp(s, "read") ? 0 : !strcmp(s, "write") ? 1 : -1;
}

static int bad_buf_type(sch_call *c, const char *s) {
  return sch_fail(c, TSL_EINVALID,
                  "buf_type \"%s\" is invalid; valid: \"read\", \"write\"", s);
}

int sch_apply_unsafe_hide_buffer_access(sch_call *c) {
  sch_path p;
  int rc = sch_block_path(c, c->args[0].u.rv, &p);
  if (rc)
    return rc;
  const tsl_block *b = sch_path_block(&p);
  int w = buf_type_of(c->args[1].u.s);
  if (w < 0)
    return bad_buf_type(c, c->args[1].u.s);
  uint32_t n = w ? b->n_writes : b->n_reads;
  const tsl_buffer_region *regs = w ? b->writes : b->reads;
  const tsl_sch_value *idx = &c->args[2];
  uint8_t *hide = TSL_NEW_ARRAY(c->arena, uint8_t, n + 1);
  for (uint32_t i = 0; i < idx->n; i++) {
    int64_t k = idx->u.items[i].u.i;
    if (k < 0 || k >= (int64_t)n)
      return sch_fail(c, TSL_EINVALID,
                      "buffer index %lld is out of range: block '%s' has %u "
                      "%s region%s (valid: 0..%d)",
                      (long long)k, b->name, n, w ? "write" : "read",
                      n == 1 ? "" : "s", (int)n - 1);
    hide[k] = 1;
  }
  tsl_buffer_region *kept = TSL_NEW_ARRAY(c->arena, tsl_buffer_region, n + 1);
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++)
    if (!hide[i])
      kept[m++] = regs[i];
  tsl_block *nb = tsl_block_clone(c->arena, b);
  if (w) {
    nb->writes = kept;
    nb->n_writes = m;
  } else {
    nb->reads = kept;
    nb->n_reads = m;
  }
  const tsl_stmt *nr = sch_with_block(c->arena, sch_path_target(&p), nb);
  sch_commit(c, p.func, sch_path_rebuild(c->arena, &p, p.depth - 1, nr));
  return TSL_OK;
}

/* ---- annotate_buffer_access ------------------------------------------------ */

static const tsl_expr *as_int_of(tsl_arena *a, const tsl_expr *e,
                                 tsl_dtype dt) {
  return tsl_dtype_eq(e->dtype, dt) ? e : tsl_expr_cast(a, dt, e);
}

/* The annotation list with `index` added (kept when present). */
static tsl_attrs with_index(sch_call *c, tsl_attrs anns, const char *key,
                            int64_t index) {
  tsl_arena *a = c->arena;
  const tsl_attr_value *old = tsl_attrs_get(anns, key);
  uint32_t n_old = old && old->kind == TSL_ATTR_LIST ? old->n : 0;
  for (uint32_t i = 0; i < n_old; i++)
    if (old->u.items[i].kind == TSL_ATTR_INT && old->u.items[i].u.i == index)
      return anns;
  tsl_attr_value *items = TSL_NEW_ARRAY(a, tsl_attr_value, n_old + 1);
  if (n_old)
    memcpy(items, old->u.items, sizeof *items * n_old);
  memset(&items[n_old], 0, sizeof items[n_old]);
  items[n_old].kind = TSL_ATTR_INT;
  items[n_old].dtype = TSL_INT32;
  items[n_old].u.i = index;
  tsl_attr *kv = TSL_NEW_ARRAY(a, tsl_attr, anns.n + 1);
  uint32_t m = 0;
  for (uint32_t i = 0; i < anns.n; i++)
    if (strcmp(anns.items[i].key, key))
      kv[m++] = anns.items[i];
  kv[m].key = tsl_intern(c->sch->ctx, key);
  memset(&kv[m].value, 0, sizeof kv[m].value);
  kv[m].value.kind = TSL_ATTR_LIST;
  kv[m].value.n = n_old + 1;
  kv[m].value.u.items = items;
  return tsl_attrs_make(a, m + 1, kv);
}

typedef struct free_check {
  const tsl_sch_lambda *lam;
  const tsl_var *bad;
} free_check;

static int free_var(const tsl_expr *e, void *ud) {
  free_check *fc = ud;
  if (e->kind != TSL_EXPR_VAR || fc->bad)
    return 0;
  for (uint32_t i = 0; i < fc->lam->n_params; i++)
    if (fc->lam->params[i] == e->u.var)
      return 0;
  fc->bad = e->u.var;
  return 1;
}

int sch_apply_annotate_buffer_access(sch_call *c) {
  tsl_arena *a = c->arena;
  sch_path p;
  int rc = sch_block_path(c, c->args[0].u.rv, &p);
  if (rc)
    return rc;
  const tsl_block *b = sch_path_block(&p);
  int64_t index = c->args[1].u.i;
  const char *type = c->args[2].u.s;
  const tsl_sch_lambda *lam = c->args[3].u.lambda;
  uint32_t n = b->n_iter_vars;
  if (lam->n_params != n)
    return sch_fail(c, TSL_EINVALID,
                    "gen_new_ranges takes %u parameter%s but block '%s' has "
                    "%u iter var%s; it is called with the block's iter vars",
                    lam->n_params, lam->n_params == 1 ? "" : "s", b->name, n,
                    n == 1 ? "" : "s");
  const tsl_sch_value *body = &lam->body;
  if (!sch_value_has_items(body) || body->kind == TSL_SV_DICT)
    return sch_fail(c, TSL_EINVALID,
                    "gen_new_ranges must return a tuple with one entry per "
                    "dimension: an expression or a (begin, end) tuple");
  if (body->n != n)
    return sch_fail(c, TSL_EINVALID,
                    "gen_new_ranges gives %u range%s but block '%s' has %u "
                    "iter var%s; TVM wants one range per iter var",
                    body->n, body->n == 1 ? "" : "s", b->name, n,
                    n == 1 ? "" : "s");
  int w = buf_type_of(type);
  if (w < 0)
    return bad_buf_type(c, type);
  uint32_t nreg = w ? b->n_writes : b->n_reads;
  if (index < 0 || index >= (int64_t)nreg)
    return sch_fail(c, TSL_EINVALID,
                    "buffer_index %lld is out of range: block '%s' has %u %s "
                    "region%s (valid: 0..%d)",
                    (long long)index, b->name, nreg, w ? "write" : "read",
                    nreg == 1 ? "" : "s", (int)nreg - 1);
  const tsl_buffer_region *old = &(w ? b->writes : b->reads)[index];
  if (body->n != old->buffer->ndim)
    return sch_fail(c, TSL_EINVALID,
                    "gen_new_ranges gives %u range%s but buffer '%s' has %u "
                    "dimension%s",
                    body->n, body->n == 1 ? "" : "s", old->buffer->name,
                    old->buffer->ndim, old->buffer->ndim == 1 ? "" : "s");
  /* lambda parameters stand for the block's iter vars */
  tsl_map vars;
  tsl_map_init(&vars, a);
  for (uint32_t i = 0; i < n; i++)
    tsl_map_put(&vars, lam->params[i], (void *)tsl_expr_var(b->iter_vars[i].var));
  tsl_range *ranges = TSL_NEW_ARRAY(a, tsl_range, n + 1);
  for (uint32_t d = 0; d < n; d++) {
    const tsl_sch_value *r = &body->u.items[d];
    const tsl_expr *lo, *hi;
    tsl_dtype dt = old->ranges[d].min->dtype;
    if (r->kind == TSL_SV_EXPR) {
      lo = as_int_of(a, tsl_expr_substitute_map(a, r->u.expr, &vars), dt);
      hi = tsl_expr_binary(a, TSL_EXPR_ADD, lo, tsl_expr_int(a, dt, 1));
    } else if (sch_value_has_items(r) && r->n == 2 &&
               r->u.items[0].kind == TSL_SV_EXPR &&
               r->u.items[1].kind == TSL_SV_EXPR) {
      lo = as_int_of(a, tsl_expr_substitute_map(a, r->u.items[0].u.expr, &vars), dt);
      hi = as_int_of(a, tsl_expr_substitute_map(a, r->u.items[1].u.expr, &vars), dt);
    } else {
      return sch_fail(c, TSL_EINVALID,
                      "range %u of gen_new_ranges must be an expression or a "
                      "(begin, end) tuple of two expressions",
                      d);
    }
    if (!tsl_dtype_is_int(lo->dtype) || !tsl_dtype_is_int(hi->dtype))
      return sch_fail(c, TSL_EINVALID,
                      "range %u of gen_new_ranges is not an integer", d);
    ranges[d].min = lo;
    ranges[d].extent = sch_simplify(c, tsl_expr_binary(a, TSL_EXPR_SUB, hi, lo));
  }
  /* only the parameters may appear: a trace could not name anything else */
  free_check fc = {lam, NULL};
  for (uint32_t d = 0; d < n && !fc.bad; d++) {
    const tsl_sch_value *r = &body->u.items[d];
    if (r->kind == TSL_SV_EXPR)
      tsl_expr_visit(r->u.expr, free_var, &fc);
    else
      for (uint32_t k = 0; k < 2; k++)
        tsl_expr_visit(r->u.items[k].u.expr, free_var, &fc);
  }
  if (fc.bad)
    return sch_fail(c, TSL_EINVALID,
                    "gen_new_ranges uses '%s', which is not one of its "
                    "parameters",
                    fc.bad->name);
  tsl_buffer_region *regs = TSL_NEW_ARRAY(a, tsl_buffer_region, nreg + 1);
  memcpy(regs, w ? b->writes : b->reads, sizeof *regs * nreg);
  regs[index].ranges = ranges;
  tsl_block *nb = tsl_block_clone(a, b);
  if (w)
    nb->writes = regs;
  else
    nb->reads = regs;
  nb->annotations = with_index(
      c, b->annotations, w ? "explicit_write_region" : "explicit_read_region", index);
  const tsl_stmt *nr = sch_with_block(a, sch_path_target(&p), nb);
  sch_commit(c, p.func, sch_path_rebuild(a, &p, p.depth - 1, nr));
  return TSL_OK;
}
