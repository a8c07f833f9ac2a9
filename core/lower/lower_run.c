/*
 * Printing a lowered function and running it in the reference interpreter.
 * Both wrap the lowered body in a transient tsl_func whose parameters are
 * the flat buffers (plus one int scalar per size variable, for the
 * interpreter), so the ordinary printer and interpreter do the work.
 */
#include "lower_internal.h"

#include "tessel/interp.h"
#include "tessel/script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *tsl_lowered_print(const tsl_lowered_func *lf) {
  if (!lf)
    return NULL;
  tsl_func fn;
  memset(&fn, 0, sizeof fn);
  fn.name = lf->name;
  fn.n_params = lf->n_params;
  fn.params = lf->params;
  fn.attrs = lf->source ? lf->source->attrs : (tsl_attrs){0, NULL};
  fn.body = lf->body;
  char *text = tsl_print_func(&fn);
  if (!text)
    return NULL;
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  tsl_strbuf_append(&sb, "# lowered");
  if (lf->n_size_vars) {
    tsl_strbuf_append(&sb, "; size vars:");
    for (uint32_t i = 0; i < lf->n_size_vars; i++)
      tsl_strbuf_printf(&sb, " %s", lf->size_vars[i]->name);
  }
  if (lf->flops >= 0)
    tsl_strbuf_printf(&sb, "; flops: %.0f\n", lf->flops);
  else
    tsl_strbuf_append(&sb, "; flops: unknown\n");
  tsl_strbuf_append(&sb, text);
  free(text);
  return tsl_strbuf_take(&sb);
}

static const tsl_var *bare_var(const tsl_expr *e) {
  while (e && e->kind == TSL_EXPR_CAST)
    e = e->args[0];
  return e && e->kind == TSL_EXPR_VAR ? e->u.var : NULL;
}

int tsl_interp_run_lowered(const tsl_lowered_func *lf, struct tsl_arg *args, uint32_t n_args,
                           tsl_diag *diag) {
  if (!lf || !lf->source || (n_args && !args))
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_interp_run_lowered: NULL argument");
  const tsl_func *src = lf->source;
  if (n_args != lf->n_params || n_args != src->n_params)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "lowered function '%s' takes %u arguments, %u given", lf->name,
                        lf->n_params, n_args);
  uint32_t n = lf->n_params + lf->n_size_vars;
  tsl_param *params = calloc(n + 1, sizeof *params);
  tsl_arg *fargs = calloc(n + 1, sizeof *fargs);
  if (!params || !fargs) {
    free(params);
    free(fargs);
    return tsl_diag_set(diag, TSL_ENOMEM, "out of memory");
  }
  int rc = TSL_OK;
  for (uint32_t i = 0; i < lf->n_params; i++) {
    params[i] = lf->params[i];
    fargs[i] = args[i];
    if (lf->params[i].buffer) {
      if (args[i].is_scalar) {
        rc = tsl_diag_set(diag, TSL_EINVALID,
                          "argument %u of '%s' must be a tensor (parameter '%s')", i,
                          lf->name, lf->params[i].buffer->name);
        goto out;
      }
      int64_t numel = tsl_tensor_numel(&args[i].tensor);
      fargs[i].tensor.ndim = 1;
      memset(fargs[i].tensor.shape, 0, sizeof fargs[i].tensor.shape);
      fargs[i].tensor.shape[0] = numel;
    }
  }
  for (uint32_t k = 0; k < lf->n_size_vars; k++) {
    const tsl_var *v = lf->size_vars[k];
    int found = 0;
    for (uint32_t i = 0; i < src->n_params && !found; i++) {
      const tsl_buffer *b = src->params[i].buffer;
      for (uint32_t d = 0; b && d < b->ndim && !found; d++)
        if (bare_var(b->shape[d]) == v && (int32_t)d < args[i].tensor.ndim) {
          fargs[lf->n_params + k].is_scalar = 1;
          fargs[lf->n_params + k].int_value = args[i].tensor.shape[d];
          found = 1;
        }
    }
    if (!found) {
      rc = tsl_diag_set(diag, TSL_EINVALID,
                        "size variable '%s' of '%s' is not a dimension of any parameter, "
                        "so no argument gives its value",
                        v->name, lf->name);
      goto out;
    }
    params[lf->n_params + k].var = v;
    params[lf->n_params + k].buffer = NULL;
  }
  tsl_func fn;
  memset(&fn, 0, sizeof fn);
  fn.name = lf->name;
  fn.n_params = n;
  fn.params = params;
  fn.attrs = src->attrs;
  fn.body = lf->body;
  rc = tsl_interp_run(&fn, fargs, n, diag);
out:
  free(params);
  free(fargs);
  return rc;
}
