/*
 * The pass pipeline (tessel/pass.h): passes looked up by name, run in
 * order on one constants collection, each result checked by printing it
 * and parsing it back; and the built-in passes' registration.
 */
#include "passes_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessel/tessel.h"

const tsl_weights *pass_model_constants(const tsl_model *m) {
  return m->struct_size > offsetof(tsl_model, constants) ? m->constants : NULL;
}

int tsl_pass_constant(const tsl_pass_ctx *ctx, uint32_t *n_constants, tsl_dtype dtype,
                      uint32_t ndim, const int64_t *shape, const void *data,
                      const tsl_rx_expr **out, tsl_diag *diag) {
  char name[64];
  snprintf(name, sizeof name, "relax.expr.Constant.%u", *n_constants);
  if (!ctx->constants)
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_pass_constant: the pass context has no "
                        "constants collection");
  int rc = tsl_weights_add(ctx->constants, name, dtype, ndim, shape, data, NULL, diag);
  if (rc)
    return rc;
  const tsl_expr **dims = TSL_NEW_ARRAY(ctx->arena, const tsl_expr *, ndim + 1);
  for (uint32_t d = 0; d < ndim; d++)
    dims[d] = tsl_expr_int(ctx->arena, TSL_INT64, shape[d]);
  *out = tsl_rx_constant(ctx->arena, *n_constants,
                         tsl_rx_tensor_sinfo(ctx->arena, dtype, (int32_t)ndim, dims));
  ++*n_constants;
  return TSL_OK;
}

static int mark_constant(const tsl_rx_expr *e, void *user_data) {
  if (e->kind == TSL_RX_EXPR_CONSTANT)
    tsl_map_put(user_data, TSL_MAP_KEY(e->index + 1), TSL_MAP_INT(1));
  return 0;
}

int tsl_model_constants_used(const tsl_model *m, const tsl_weights *from, tsl_weights **out,
                             tsl_diag *diag) {
  *out = tsl_weights_new();
  if (!*out)
    return tsl_diag_set(diag, TSL_ENOMEM, "out of memory");
  tsl_map used;
  tsl_map_init(&used, NULL);
  for (uint32_t i = 0; i < m->n_rx_funcs; i++)
    tsl_rx_visit_func(m->rx_funcs[i], mark_constant, &used);
  int rc = TSL_OK;
  for (uint32_t i = 0; !rc && from && i < m->n_constants; i++) {
    char name[64];
    snprintf(name, sizeof name, "relax.expr.Constant.%u", i);
    const tsl_weight *t = tsl_weights_find(from, name);
    if (t && tsl_map_get(&used, TSL_MAP_KEY(i + 1)))
      rc = tsl_weights_add(*out, name, t->dtype, t->ndim, t->shape, t->data, NULL, diag);
  }
  tsl_map_free(&used);
  if (rc) {
    tsl_weights_free(*out);
    *out = NULL;
  }
  return rc;
}

int tsl_model_check(const tsl_model *m, tsl_diag *diag) {
  char *text = tsl_model_print(m);
  if (!text)
    return tsl_diag_set(diag, TSL_ENOMEM, "out of memory");
  tsl_arena *scratch = tsl_arena_new(tsl_arena_ctx(m->arena));
  /* the constants' struct info, which the text leaves out */
  const tsl_weights *c = pass_model_constants(m);
  const tsl_rx_sinfo **cs = TSL_NEW_ARRAY(scratch, const tsl_rx_sinfo *, m->n_constants + 1);
  for (uint32_t i = 0; c && i < m->n_constants; i++) {
    char name[64];
    snprintf(name, sizeof name, "relax.expr.Constant.%u", i);
    const tsl_weight *w = tsl_weights_find(c, name);
    if (!w || w->ndim > 64)
      continue;
    const tsl_expr *dims[64];
    for (uint32_t d = 0; d < w->ndim; d++)
      dims[d] = tsl_expr_int(scratch, TSL_INT64, w->shape[d]);
    cs[i] = tsl_rx_tensor_sinfo(scratch, w->dtype, (int32_t)w->ndim, dims);
  }
  const tsl_model *back = NULL;
  tsl_diag d = {0};
  int rc = tsl_parse_model_constants(scratch, "<the model>", text, strlen(text), m->n_constants,
                                     cs, &back, &d);
  if (rc)
    tsl_diag_set(diag, TSL_EINVALID, "the model does not parse back as printed: %s", d.text);
  tsl_arena_free(scratch);
  free(text);
  return rc ? TSL_EINVALID : TSL_OK;
}

/* The input model's bound constants gathered into ctx->constants. */
static int gather_constants(const tsl_pass_ctx *ctx, const tsl_model *in, tsl_diag *diag) {
  const tsl_weights *c = pass_model_constants(in);
  for (uint32_t i = 0; c && c != ctx->constants && i < tsl_weights_count(c); i++) {
    const tsl_weight *w = tsl_weights_at(c, i);
    if (tsl_weights_find(ctx->constants, w->name))
      continue;
    int rc = tsl_weights_add(ctx->constants, w->name, w->dtype, w->ndim, w->shape, w->data, NULL,
                             diag);
    if (rc)
      return rc;
  }
  return TSL_OK;
}

int tsl_model_run_passes(const tsl_registry *reg, const char *names, const tsl_pass_ctx *ctx,
                         const tsl_model *in, const tsl_model **out, tsl_diag *diag) {
  *out = NULL;
  if (!ctx || !ctx->arena || !ctx->constants || !in || !names)
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_model_run_passes: the names, the model and a "
                        "context with an arena and a constants collection are required");
  /* every name resolved before anything runs */
  enum { MAX_PASSES = 64 };
  const tsl_component *comps[MAX_PASSES];
  char list[1024];
  snprintf(list, sizeof list, "%s", names);
  uint32_t n = 0;
  for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
       tok = strtok_r(NULL, ",", &save)) {
    while (*tok == ' ')
      tok++;
    for (char *e = tok + strlen(tok); e > tok && e[-1] == ' ';)
      *--e = 0;
    if (!*tok)
      continue;
    if (n == MAX_PASSES)
      return tsl_diag_set(diag, TSL_EINVALID, "more than %d passes", MAX_PASSES);
    int rc = tsl_registry_require(reg, TSL_COMPONENT_PASS, tok, &comps[n], diag);
    if (rc)
      return rc;
    n++;
  }
  if (!n)
    return tsl_diag_set(diag, TSL_EINVALID, "no pass named in '%s'", names);
  int rc = gather_constants(ctx, in, diag);
  if (rc)
    return rc;
  const tsl_model *cur = tsl_model_new(ctx->arena, in->tir, in->n_rx_funcs, in->rx_funcs,
                                       in->n_constants, ctx->constants);
  for (uint32_t i = 0; i < n; i++) {
    const tsl_pass_vtable *vt = comps[i]->vtable;
    const tsl_model *next = NULL;
    tsl_diag d = {0};
    rc = vt->run(comps[i]->user_data, ctx, cur, &next, &d);
    if (!rc && (!next || next->struct_size < offsetof(tsl_model, n_constants) + 4))
      rc = tsl_diag_set(&d, TSL_EINVALID, "the pass returned no model");
    if (!rc)
      rc = tsl_model_check(next, &d);
    if (rc)
      return tsl_diag_set(diag, rc, "pass '%s': %s", comps[i]->name, d.text);
    cur = next;
  }
  *out = cur;
  return TSL_OK;
}

static const struct {
  const char *name, *summary;
  const tsl_pass_vtable *vt;
} builtins[] = {
    {"bind_params", "parameters of main given as weights become constants (TVM's BindParams)",
     &pass_bind_params_vt},
    {"legalize", "operators become R.call_tir of prim_funcs as TVM's LegalizeOps writes them",
     &pass_legalize_vt},
    {"normalize", "calls nested in operands get bindings of their own (TVM's normal form)",
     &pass_normalize_vt},
    {"fuse", "bindings TVM's operator patterns group become one prim_func each (TVM's FuseOps "
     "and FuseTIR)", &pass_fuse_vt},
    {"fold_constant", "calls on constants only are computed and become constants (TVM's "
     "FoldConstant)", &pass_fold_constant_vt},
    {"dce", "unused dataflow bindings and uncalled prim_funcs removed (TVM's "
     "DeadCodeElimination)", &pass_dce_vt},
    {"convert_layout", "convolutions and pooling of NCHW data compute in NHWC (HWIO weights), "
     "element-wise operators after them too (TVM's ConvertLayout)", &pass_convert_layout_vt},
};

int passes_register_builtins(tsl_registry *reg, tsl_diag *diag) {
  for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
    tsl_component c = {.struct_size = sizeof c,
                       .kind = TSL_COMPONENT_PASS,
                       .name = builtins[i].name,
                       .version = TSL_VERSION_STRING,
                       .summary = builtins[i].summary,
                       .vtable = builtins[i].vt};
    int rc = tsl_registry_add(reg, &c, diag);
    if (rc)
      return rc;
  }
  return TSL_OK;
}
