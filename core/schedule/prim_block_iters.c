/*
 * reorder_block_iter_var: permute a block's iter vars together with their
 * bindings (TVM's ReorderBlockIterVar). Nothing else changes.
 */
#include "sch_internal.h"

#include <stdio.h>

int sch_apply_reorder_block_iter_var(sch_call *c) {
  sch_path p;
  int rc = sch_block_path(c, c->args[0].u.rv, &p);
  if (rc)
    return rc;
  const tsl_sch_value *order = &c->args[1];
  const tsl_stmt *real = sch_path_target(&p);
  const tsl_block *b = real->u.realize.block;
  uint32_t n = b->n_iter_vars;
  char txt[256];
  size_t len = (size_t)snprintf(txt, sizeof txt, "[");
  for (uint32_t i = 0; i < order->n && len < sizeof txt; i++)
    len += (size_t)snprintf(txt + len, sizeof txt - len, "%s%lld", i ? ", " : "",
                            (long long)order->u.items[i].u.i);
  if (len < sizeof txt)
    snprintf(txt + len, sizeof txt - len, "]");
  uint8_t seen[256] = {0};
  int valid = order->n == n && n <= 256;
  for (uint32_t i = 0; valid && i < n; i++) {
    int64_t k = order->u.items[i].u.i;
    valid = k >= 0 && k < (int64_t)n && !seen[k];
    if (valid)
      seen[k] = 1;
  }
  if (!valid)
    return sch_fail(c, TSL_EINVALID,
                    "new_order %s is not a permutation of [0, %u) for block "
                    "'%s', which has %u iter var%s",
                    txt, n, b->name, n, n == 1 ? "" : "s");
  if (p.depth == 1)
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' is the root block; it has no iter vars to "
                    "reorder",
                    b->name);
  tsl_iter_var *ivs = TSL_NEW_ARRAY(c->arena, tsl_iter_var, n + 1);
  const tsl_expr **vals = TSL_NEW_ARRAY(c->arena, const tsl_expr *, n + 1);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t k = (uint32_t)order->u.items[i].u.i;
    ivs[i] = b->iter_vars[k];
    vals[i] = real->u.realize.iter_values[k];
  }
  tsl_block *nb = tsl_block_clone(c->arena, b);
  nb->iter_vars = ivs;
  const tsl_stmt *nr =
      tsl_stmt_block_realize(c->arena, n, vals, real->u.realize.predicate, nb);
  sch_commit(c, p.func, sch_path_rebuild(c->arena, &p, p.depth - 1, nr));
  return TSL_OK;
}
