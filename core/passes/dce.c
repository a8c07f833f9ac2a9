/*
 * dce (TVM's DeadCodeElimination): in every Relax function, the bindings
 * of dataflow blocks whose variables nothing uses (the operators are pure;
 * bindings outside dataflow blocks stay, as in TVM); then the prim_funcs
 * no remaining call names. A model's entry points are its Relax functions:
 * tessel does not keep uncalled prim_funcs for export (TVM keeps public
 * ones).
 */
#include "passes_internal.h"

#include <string.h>

static int mark_uses(const tsl_rx_expr *e, void *user_data) {
  tsl_map *used = user_data;
  if (e->kind == TSL_RX_EXPR_VAR)
    tsl_map_put(used, e->var, TSL_MAP_INT(1));
  if (e->kind == TSL_RX_EXPR_GLOBAL || e->kind == TSL_RX_EXPR_EXTERN)
    tsl_map_put(used, e->name, TSL_MAP_INT(1));
  return 0;
}

/* `f` without its unused dataflow bindings (walked backwards, so a chain
 * of unused bindings goes at once); names of called functions into
 * `called`. */
static const tsl_rx_func *sweep(tsl_arena *a, const tsl_rx_func *f, tsl_map *called) {
  tsl_map used;
  tsl_map_init(&used, NULL);
  tsl_rx_visit_expr(f->ret, mark_uses, &used);
  uint32_t total = 0;
  for (uint32_t b = 0; b < f->n_blocks; b++)
    total += f->blocks[b].n_bindings;
  char *keep = tsl_arena_alloc(a, total + 1);
  uint32_t k = total, removed = 0;
  for (uint32_t b = f->n_blocks; b-- > 0;)
    for (uint32_t i = f->blocks[b].n_bindings; i-- > 0;) {
      const tsl_rx_binding *bd = &f->blocks[b].bindings[i];
      keep[--k] = !f->blocks[b].is_dataflow || tsl_map_get(&used, bd->var);
      if (keep[k])
        tsl_rx_visit_expr(bd->value, mark_uses, &used);
      else
        removed++;
    }
  for (uint32_t pos = 0;;) {
    const void *key;
    void *val;
    if (!tsl_map_next(&used, &pos, &key, &val))
      break;
    tsl_map_put(called, key, val); /* variables too: harmless, names are what is asked */
  }
  tsl_map_free(&used);
  if (!removed)
    return f;
  tsl_rx_block *blocks = TSL_NEW_ARRAY(a, tsl_rx_block, f->n_blocks);
  uint32_t nb = 0;
  k = 0;
  for (uint32_t b = 0; b < f->n_blocks; b++) {
    tsl_rx_binding *bs = TSL_NEW_ARRAY(a, tsl_rx_binding, f->blocks[b].n_bindings + 1);
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->blocks[b].n_bindings; i++)
      if (keep[k++])
        bs[n++] = f->blocks[b].bindings[i];
    if (!n)
      continue;
    blocks[nb] = f->blocks[b];
    blocks[nb].n_bindings = n;
    blocks[nb++].bindings = bs;
  }
  return tsl_rx_func_new(a, f->name, f->n_params, f->params, f->n_size_vars, f->size_vars, nb,
                         blocks, f->ret, f->ret_sinfo);
}

static int run(void *user_data, const tsl_pass_ctx *ctx, const tsl_model *in,
               const tsl_model **out, tsl_diag *diag) {
  (void)user_data;
  (void)diag;
  *out = in;
  if (!in->n_rx_funcs)
    return TSL_OK;
  tsl_map called;
  tsl_map_init(&called, NULL);
  const tsl_rx_func **fs = TSL_NEW_ARRAY(ctx->arena, const tsl_rx_func *, in->n_rx_funcs);
  int changed = 0;
  for (uint32_t i = 0; i < in->n_rx_funcs; i++) {
    fs[i] = sweep(ctx->arena, in->rx_funcs[i], &called);
    changed |= fs[i] != in->rx_funcs[i];
  }
  const tsl_module *tir = in->tir;
  uint32_t n_called = 0;
  for (uint32_t i = 0; i < tir->n_funcs; i++)
    n_called += tsl_map_get(&called, tir->funcs[i]->name) != NULL;
  if (n_called < tir->n_funcs) {
    tsl_module *t = TSL_NEW(ctx->arena, tsl_module);
    *t = *tir;
    const tsl_func **keep = TSL_NEW_ARRAY(ctx->arena, const tsl_func *, n_called + 1);
    uint32_t n = 0;
    for (uint32_t i = 0; i < tir->n_funcs; i++)
      if (tsl_map_get(&called, tir->funcs[i]->name))
        keep[n++] = tir->funcs[i];
    t->n_funcs = n;
    t->funcs = keep;
    tir = t;
    changed = 1;
  }
  tsl_map_free(&called);
  if (changed)
    *out = tsl_model_new(ctx->arena, tir, in->n_rx_funcs, fs, in->n_constants,
                         pass_model_constants(in));
  return TSL_OK;
}

const tsl_pass_vtable pass_dce_vt = {sizeof(tsl_pass_vtable), run};
