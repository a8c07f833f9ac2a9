/*
 * bind_params (TVM's BindParams): the parameters of `main` that
 * ctx->params names become constants; the calls using them get their
 * struct info again through the mutator.
 */
#include "passes_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Does tensor w fit the parameter's struct info? A message when not. */
static int fits(const tsl_rx_var *p, const tsl_weight *w, tsl_diag *diag) {
  const tsl_rx_sinfo *s = p->sinfo;
  char *want = tsl_rx_sinfo_print(s);
  char got[512];
  int len = snprintf(got, sizeof got, "%s of shape (", tsl_dtype_str(w->dtype, (char[32]){0}));
  for (uint32_t i = 0; i < w->ndim && len < (int)sizeof got; i++)
    len += snprintf(got + len, sizeof got - (size_t)len, "%s%lld", i ? ", " : "",
                    (long long)w->shape[i]);
  if (len < (int)sizeof got)
    snprintf(got + len, sizeof got - (size_t)len, ")");
  int bad = 0;
  const char *why = "";
  if (s->kind != TSL_RX_SINFO_TENSOR) {
    bad = 1, why = "the parameter is not a tensor";
  } else if (!tsl_dtype_is_void(s->dtype) && !tsl_dtype_eq(s->dtype, w->dtype)) {
    bad = 1, why = "dtype";
  } else if (s->ndim >= 0 && (uint32_t)s->ndim != w->ndim) {
    bad = 1, why = "rank";
  } else {
    for (int32_t d = 0; s->shape && d < s->ndim && !bad; d++) {
      int64_t v;
      if (!tsl_expr_is_const_int(s->shape[d], &v))
        bad = 1, why = "a symbolic dimension: bind_params binds parameters of constant shape";
      else if (v != w->shape[d])
        bad = 1, why = "shape";
    }
  }
  int rc = TSL_OK;
  if (bad)
    rc = tsl_diag_set(diag, TSL_EINVALID, "weight '%s': the parameter is %s, the tensor %s "
                      "(%s)", p->name, want ? want : "?", got, why);
  free(want);
  return rc;
}

static int run(void *user_data, const tsl_pass_ctx *ctx, const tsl_model *in,
               const tsl_model **out, tsl_diag *diag) {
  (void)user_data;
  *out = in;
  const tsl_rx_func *f = tsl_model_find(in, "main");
  if (!ctx->params || !tsl_weights_count(ctx->params))
    return TSL_OK;
  if (!f)
    return tsl_diag_set(diag, TSL_EINVALID, "bind_params binds the parameters of 'main'; the "
                        "model has no function 'main'");
  for (uint32_t i = 0; i < tsl_weights_count(ctx->params); i++) {
    const char *name = tsl_weights_at(ctx->params, i)->name;
    uint32_t k = 0;
    while (k < f->n_params && strcmp(f->params[k]->name, name))
      k++;
    if (k == f->n_params) {
      char list[512] = "";
      for (uint32_t j = 0; j < f->n_params; j++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", j ? ", " : "",
                 f->params[j]->name);
      return tsl_diag_set(diag, TSL_EINVALID, "weight '%s' names no parameter of 'main' (its "
                          "parameters: %s)", name, list[0] ? list : "none");
    }
  }
  tsl_rx_mutator m = tsl_rx_mutator_make(ctx->arena, in->tir);
  m.diag = diag;
  uint32_t n_constants = in->n_constants;
  for (uint32_t k = 0; k < f->n_params; k++) {
    const tsl_weight *w = tsl_weights_find(ctx->params, f->params[k]->name);
    if (!w)
      continue;
    int rc = fits(f->params[k], w, diag);
    const tsl_rx_expr *c = NULL;
    if (!rc)
      rc = tsl_pass_constant(ctx, &n_constants, w->dtype, w->ndim, w->shape, w->data, &c, diag);
    if (rc)
      return rc;
    tsl_rx_mutator_replace(&m, f->params[k], c);
  }
  const tsl_rx_func *nf = tsl_rx_mutate_func(&m, f);
  if (m.status)
    return m.status;
  const tsl_rx_func **fs = TSL_NEW_ARRAY(ctx->arena, const tsl_rx_func *, in->n_rx_funcs);
  for (uint32_t i = 0; i < in->n_rx_funcs; i++)
    fs[i] = in->rx_funcs[i] == f ? nf : in->rx_funcs[i];
  *out = tsl_model_new(ctx->arena, in->tir, in->n_rx_funcs, fs, n_constants, ctx->constants);
  return TSL_OK;
}

const tsl_pass_vtable pass_bind_params_vt = {sizeof(tsl_pass_vtable), run};
