/* The exported best kernel of any program, described from its text. */
#include "best_kernel.h"

#include "tessel/lower.h"
#include "tessel/script.h"
#include "tessel/tessel.h"

#include <stdio.h>
#include <string.h>

/* The bytes of a parameter's buffer; 0 when it has none or a symbolic shape. */
static size_t param_bytes(const tsl_param *p) {
  if (!p->buffer)
    return 0;
  size_t n = tsl_dtype_bytes(p->buffer->dtype);
  for (uint32_t i = 0; i < p->buffer->ndim; i++) {
    const tsl_expr *e = p->buffer->shape[i];
    if (e->kind != TSL_EXPR_INT_IMM || e->u.int_value < 0)
      return 0;
    n *= (size_t)e->u.int_value;
  }
  return n;
}

static bench_fill param_fill(const tsl_param *p) {
  tsl_dtype t = p->buffer->dtype;
  return t.code == TSL_DT_FLOAT && t.bits == 32   ? FILL_F32
         : t.code == TSL_DT_BFLOAT && t.bits == 16 ? FILL_BF16
                                                   : FILL_ZERO;
}

/* Buffer `i` of the kernel from parameter p: 0, or -1. */
static int add_buffer(bench_kernel *k, int i, const tsl_param *p) {
  size_t bytes = param_bytes(p);
  if (!bytes || i >= BENCH_MAX_BUFS)
    return -1;
  k->bytes[i] = bytes;
  k->fill[i] = param_fill(p);
  return 0;
}

/* main's parameters are buffers 0..n-1 and its call; the weights of the
 * packed ones follow, and prepack takes the weights, then the packed. */
static int describe(const tsl_prepack_split *sp, bench_kernel *k) {
  const tsl_func *m = sp->main;
  if (2 * sp->n_packed > BENCH_MAX_BUFS)
    return -1;
  int rc = 0;
  for (uint32_t i = 0; i < m->n_params && !rc; i++) {
    rc = add_buffer(k, (int)i, &m->params[i]);
    k->call[i] = (int)i;
  }
  k->n_call = (int)m->n_params;
  k->n_bufs = (int)m->n_params;
  for (uint32_t j = 0; j < sp->n_packed && !rc; j++) {
    int w = k->n_bufs++;
    rc = add_buffer(k, w, &sp->prepack->params[j]);
    k->pre[j] = w;
    k->pre[sp->n_packed + j] = (int)sp->positions[j];
  }
  k->n_pre = rc ? 0 : 2 * (int)sp->n_packed;
  k->prepack = sp->n_packed > 0;
  return rc || k->n_pre > BENCH_MAX_BUFS ? -1 : 0;
}

int best_kernel_of(const char *dir, const char *program, best_kernel *out) {
  memset(out, 0, sizeof *out);
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *a = ctx ? tsl_arena_new(ctx) : NULL;
  const tsl_module *m = NULL;
  tsl_diag d = {0};
  tsl_prepack_split sp;
  int rc = -1;
  if (a && program && tsl_parse(a, "best.py", program, strlen(program), &m, &d) == TSL_OK &&
      m->n_funcs == 1 && tsl_func_split_prepack(a, m->funcs[0], &sp, &d) == TSL_OK) {
    snprintf(out->func, sizeof out->func, "%s", m->funcs[0]->name);
    out->k.dir = dir;
    out->k.func = out->func;
    rc = describe(&sp, &out->k);
    if (rc)
      snprintf(d.text, sizeof d.text, "a parameter without a buffer of constant shape, or more "
                                      "than %d buffers", BENCH_MAX_BUFS);
  }
  if (rc)
    fprintf(stderr, "bench_auto: cannot describe the best kernel in %s: %s\n", dir,
            d.text[0] ? d.text : "not one function");
  tsl_arena_free(a);
  tsl_ctx_free(ctx);
  return rc;
}
