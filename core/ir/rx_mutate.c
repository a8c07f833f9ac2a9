/*
 * The Relax mutator (tessel/relax_build.h): functions rebuilt bottom-up,
 * unchanged parts shared, struct info inferred again where operands
 * changed, variables renewed when what they are bound to changed.
 */
#include "rx_internal.h"
#include "tessel/relax_build.h"

#include <stdarg.h>
#include <stdio.h>

tsl_rx_mutator tsl_rx_mutator_make(tsl_arena *a, const tsl_module *tir) {
  tsl_rx_mutator m = {.arena = a, .tir = tir};
  tsl_map_init(&m.vars, a);
  return m;
}

void tsl_rx_mutator_replace(tsl_rx_mutator *m, const tsl_rx_var *v, const tsl_rx_expr *e) {
  tsl_map_put(&m->vars, v, (void *)e);
}

void tsl_rx_mutator_fail(tsl_rx_mutator *m, int status, const char *fmt, ...) {
  if (m->status)
    return;
  m->status = status ? status : TSL_EINVALID;
  if (!m->diag)
    return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  tsl_diag_set(m->diag, m->status, "%s", msg);
}

const tsl_rx_expr *tsl_rx_mutate_expr(tsl_rx_mutator *m, const tsl_rx_expr *e) {
  return m->expr ? m->expr(m, e) : tsl_rx_mutate_expr_children(m, e);
}

const tsl_rx_expr *tsl_rx_mutate_expr_children(tsl_rx_mutator *m, const tsl_rx_expr *e) {
  if (e->kind == TSL_RX_EXPR_VAR) {
    const tsl_rx_expr *r = tsl_map_get(&m->vars, e->var);
    return r ? r : e;
  }
  if (!e->n_args)
    return e;
  const tsl_rx_expr *small[4];
  const tsl_rx_expr **args =
      e->n_args <= 4 ? small : TSL_NEW_ARRAY(m->arena, const tsl_rx_expr *, e->n_args);
  for (uint32_t i = 0; i < e->n_args; i++)
    args[i] = tsl_rx_mutate_expr(m, e->args[i]);
  tsl_diag d = {0};
  const tsl_rx_expr *r = tsl_rx_with_args(m->arena, m->tir, e, args, &d);
  if (!r) {
    tsl_rx_mutator_fail(m, TSL_EINVALID, "%s", d.text);
    return e;
  }
  return r;
}

/* One block's bindings; the same pointer when nothing changed. */
static int mutate_block(tsl_rx_mutator *m, const tsl_rx_block *b, tsl_rx_block *out) {
  tsl_rx_binding *nb = TSL_NEW_ARRAY(m->arena, tsl_rx_binding, b->n_bindings + 1);
  uint32_t n = 0;
  int changed = 0;
  for (uint32_t i = 0; i < b->n_bindings; i++) {
    const tsl_rx_binding *bd = &b->bindings[i];
    const tsl_rx_expr *v = tsl_rx_mutate_expr(m, bd->value);
    if (m->binding)
      v = m->binding(m, bd, v);
    if (!v) {
      changed = 1;
      continue;
    }
    const tsl_rx_var *var = bd->var;
    if (!tsl_rx_sinfo_equal(var->sinfo, v->sinfo) && v->sinfo->kind != TSL_RX_SINFO_OBJECT &&
        !tsl_map_get(&m->vars, var)) { /* (a hook's replacement stands) */
      tsl_rx_var *nv = tsl_rx_var_new(m->arena, var->name, v->sinfo, (int)var->is_dataflow);
      nv->id = var->id;
      tsl_rx_mutator_replace(m, var, tsl_rx_var_ref(m->arena, nv));
      var = nv;
    }
    changed |= var != bd->var || v != bd->value;
    nb[n].var = var;
    nb[n++].value = v;
  }
  *out = *b;
  if (changed) {
    out->n_bindings = n;
    out->bindings = nb;
  }
  return changed;
}

const tsl_rx_func *tsl_rx_mutate_func(tsl_rx_mutator *m, const tsl_rx_func *f) {
  const tsl_rx_var **params = TSL_NEW_ARRAY(m->arena, const tsl_rx_var *, f->n_params + 1);
  uint32_t np = 0;
  int changed = 0;
  for (uint32_t i = 0; i < f->n_params; i++) {
    const tsl_rx_expr *r = tsl_map_get(&m->vars, f->params[i]);
    if (r && r->kind != TSL_RX_EXPR_VAR) {
      changed = 1; /* bound: no longer a parameter */
      continue;
    }
    params[np] = r ? r->var : f->params[i];
    changed |= params[np++] != f->params[i];
  }
  tsl_rx_block *blocks = TSL_NEW_ARRAY(m->arena, tsl_rx_block, f->n_blocks + 1);
  uint32_t nb = 0;
  for (uint32_t b = 0; b < f->n_blocks; b++) {
    changed |= mutate_block(m, &f->blocks[b], &blocks[nb]);
    if (blocks[nb].n_bindings)
      nb++;
    else
      changed = 1;
  }
  const tsl_rx_expr *ret = tsl_rx_mutate_expr(m, f->ret);
  if (!changed && ret == f->ret)
    return f;
  return tsl_rx_func_new(m->arena, f->name, np, params, f->n_size_vars, f->size_vars, nb, blocks,
                         ret, f->ret_sinfo);
}

const tsl_model *tsl_rx_mutate_model(tsl_rx_mutator *m, const tsl_model *in) {
  const tsl_rx_func **fs = TSL_NEW_ARRAY(m->arena, const tsl_rx_func *, in->n_rx_funcs + 1);
  int changed = 0;
  for (uint32_t i = 0; i < in->n_rx_funcs; i++) {
    fs[i] = tsl_rx_mutate_func(m, in->rx_funcs[i]);
    changed |= fs[i] != in->rx_funcs[i];
  }
  changed |= m->tir != in->tir; /* hooks may add prim_funcs */
  if (!changed)
    return in;
  const tsl_weights *c = in->struct_size > offsetof(tsl_model, constants) ? in->constants : NULL;
  return tsl_model_new(m->arena, m->tir, in->n_rx_funcs, fs, in->n_constants, c);
}
