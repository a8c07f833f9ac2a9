/*
 * normalize (TVM's Normalize, the form its block builder keeps): a call
 * nested in another expression (R.subtract(R.add(c, a), b)) gets a binding
 * of its own just before its user, named lv, lv1, ... as TVM names them,
 * so that every operand of a call is a variable, a constant or a tuple of
 * those. legalize ends with it, so fuse sees each call as a binding.
 */
#include "passes_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct norm {
  tsl_arena *a;
  const tsl_module *tir;
  tsl_map names;   /* tsl_str -> 1: the function's variable names */
  tsl_vec out;     /* tsl_rx_binding: the block being rebuilt */
  int dataflow;    /* its kind */
  uint32_t next;   /* the next lv number to try */
  int changed;
  int status;
  tsl_diag *diag;
} norm;

tsl_str pass_fresh_name(tsl_arena *a, tsl_map *names, uint32_t *next) {
  char name[32];
  tsl_str n;
  do {
    if (*next)
      snprintf(name, sizeof name, "lv%u", *next);
    else
      snprintf(name, sizeof name, "lv");
    ++*next;
    n = tsl_intern(tsl_arena_ctx(a), name);
  } while (tsl_map_get(names, n));
  tsl_map_put(names, n, TSL_MAP_INT(1));
  return n;
}

void pass_func_names(const tsl_rx_func *f, tsl_map *names) {
  tsl_map_clear(names);
  for (uint32_t i = 0; i < f->n_params; i++)
    tsl_map_put(names, f->params[i]->name, TSL_MAP_INT(1));
  for (uint32_t b = 0; b < f->n_blocks; b++)
    for (uint32_t i = 0; i < f->blocks[b].n_bindings; i++)
      tsl_map_put(names, f->blocks[b].bindings[i].var->name, TSL_MAP_INT(1));
}

static const tsl_rx_var *fresh(norm *nz, const tsl_rx_sinfo *s) {
  return tsl_rx_var_new(nz->a, pass_fresh_name(nz->a, &nz->names, &nz->next), s, nz->dataflow);
}

/* `e` with every call below the top bound first; `top`: e itself may stay
 * a call (a binding's value). */
static const tsl_rx_expr *lift(norm *nz, const tsl_rx_expr *e, int top) {
  if (nz->status || !e->n_args || e->kind == TSL_RX_EXPR_SHAPE)
    return e;
  const tsl_rx_expr *small[8];
  const tsl_rx_expr **args =
      e->n_args <= 8 ? small : TSL_NEW_ARRAY(nz->a, const tsl_rx_expr *, e->n_args);
  int dps = e->kind == TSL_RX_EXPR_CALL &&
            (e->op == TSL_RX_OP_CALL_TIR || e->op == TSL_RX_OP_CALL_DPS_PACKED);
  for (uint32_t i = 0; i < e->n_args; i++)
    /* a destination-passing call's callee and input tuple stay in place */
    args[i] = dps && i == 0 ? e->args[i] : lift(nz, e->args[i], 0);
  tsl_diag d = {0};
  const tsl_rx_expr *r = tsl_rx_with_args(nz->a, nz->tir, e, args, &d);
  if (!r) {
    nz->status = tsl_diag_set(nz->diag, TSL_EINVALID, "normalize: %s", d.text);
    return e;
  }
  if (top || r->kind != TSL_RX_EXPR_CALL)
    return r;
  const tsl_rx_var *v = fresh(nz, r->sinfo);
  TSL_VEC_PUSH(&nz->out, tsl_rx_binding, ((tsl_rx_binding){v, r}));
  nz->changed = 1;
  return tsl_rx_var_ref(nz->a, v);
}

static const tsl_rx_func *normalize_func(norm *nz, const tsl_rx_func *f) {
  pass_func_names(f, &nz->names);
  nz->next = 0;
  nz->changed = 0;
  tsl_rx_block *blocks = TSL_NEW_ARRAY(nz->a, tsl_rx_block, f->n_blocks + 1);
  uint32_t nb = 0;
  for (uint32_t b = 0; b < f->n_blocks && !nz->status; b++) {
    nz->dataflow = (int)f->blocks[b].is_dataflow;
    tsl_vec_init(&nz->out, sizeof(tsl_rx_binding), NULL);
    for (uint32_t i = 0; i < f->blocks[b].n_bindings; i++) {
      const tsl_rx_binding *bd = &f->blocks[b].bindings[i];
      const tsl_rx_expr *v = lift(nz, bd->value, 1);
      TSL_VEC_PUSH(&nz->out, tsl_rx_binding, ((tsl_rx_binding){bd->var, v}));
    }
    blocks[nb] = f->blocks[b];
    blocks[nb].n_bindings = nz->out.len;
    blocks[nb++].bindings = tsl_vec_dup(&nz->out, nz->a);
    tsl_vec_free(&nz->out);
  }
  /* calls nested in the returned value: bound in a block of their own */
  nz->dataflow = 0;
  tsl_vec_init(&nz->out, sizeof(tsl_rx_binding), NULL);
  const tsl_rx_expr *ret = lift(nz, f->ret, 1);
  if (nz->out.len) {
    blocks[nb].is_dataflow = 0;
    blocks[nb].n_bindings = nz->out.len;
    blocks[nb++].bindings = tsl_vec_dup(&nz->out, nz->a);
  }
  tsl_vec_free(&nz->out);
  if (!nz->changed || nz->status)
    return f;
  return tsl_rx_func_new(nz->a, f->name, f->n_params, f->params, f->n_size_vars, f->size_vars,
                         nb, blocks, ret, f->ret_sinfo);
}

int pass_normalize_model(const tsl_pass_ctx *ctx, const tsl_model *in, const tsl_model **out,
                         tsl_diag *diag) {
  norm nz = {.a = ctx->arena, .tir = in->tir, .diag = diag};
  tsl_map_init(&nz.names, NULL);
  const tsl_rx_func **fs = TSL_NEW_ARRAY(ctx->arena, const tsl_rx_func *, in->n_rx_funcs + 1);
  int changed = 0;
  for (uint32_t i = 0; i < in->n_rx_funcs && !nz.status; i++) {
    fs[i] = normalize_func(&nz, in->rx_funcs[i]);
    changed |= fs[i] != in->rx_funcs[i];
  }
  tsl_map_free(&nz.names);
  *out = in;
  if (!nz.status && changed)
    *out = tsl_model_new(ctx->arena, in->tir, in->n_rx_funcs, fs, in->n_constants,
                         pass_model_constants(in));
  return nz.status;
}

static int run(void *user_data, const tsl_pass_ctx *ctx, const tsl_model *in,
               const tsl_model **out, tsl_diag *diag) {
  (void)user_data;
  return pass_normalize_model(ctx, in, out, diag);
}

const tsl_pass_vtable pass_normalize_vt = {sizeof(tsl_pass_vtable), run};
