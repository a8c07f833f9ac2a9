/* oneDNN primitives for bench_auto's int8 and bfloat16 workloads. */
#include "dnnl_ref.h"
#include "side_by_side.h"

#include <oneapi/dnnl/dnnl.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ARGS = 3 };

struct dnnl_ref {
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  dnnl_primitive_desc_t pd;
  dnnl_primitive_t prim;
  dnnl_memory_t mem[MAX_ARGS];
  dnnl_exec_arg_t args[MAX_ARGS];
  const char *impl;
};

void dnnl_ref_set_threads(int threads) { omp_set_num_threads(threads); }

/* The primitive's memory for argument `arg` (the layout it asked for),
 * filled through a plain `tag` copy and a reorder when `t` is an input. */
static int arg_memory(dnnl_ref *r, int slot, int arg, dnnl_query_t what, int ndims,
                      const dnnl_dims_t dims, dnnl_data_type_t t, dnnl_format_tag_t tag,
                      int input) {
  const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(r->pd, what, 0);
  if (!md || dnnl_memory_create(&r->mem[slot], md, r->engine, DNNL_MEMORY_ALLOCATE))
    return -1;
  r->args[slot] = (dnnl_exec_arg_t){arg, r->mem[slot]};
  if (!input)
    return 0;
  dnnl_memory_desc_t plain;
  dnnl_memory_t user = NULL;
  dnnl_primitive_desc_t rpd = NULL;
  dnnl_primitive_t reorder = NULL;
  void *p = NULL;
  size_t n = 1;
  for (int i = 0; i < ndims; i++)
    n *= (size_t)dims[i];
  int rc = dnnl_memory_desc_init_by_tag(&plain, ndims, dims, t, tag) ||
           dnnl_memory_create(&user, &plain, r->engine, DNNL_MEMORY_ALLOCATE) ||
           dnnl_memory_get_data_handle(user, &p);
  if (!rc) {
    bench_fill_buffer(p, t == dnnl_bf16 ? 2 * n : n,
                      t == dnnl_u8 ? FILL_U8 : t == dnnl_s8 ? FILL_S8 : FILL_BF16);
    dnnl_exec_arg_t ra[2] = {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, r->mem[slot]}};
    rc = dnnl_reorder_primitive_desc_create(&rpd, &plain, r->engine, md, r->engine, NULL) ||
         dnnl_primitive_create(&reorder, rpd) ||
         dnnl_primitive_execute(reorder, r->stream, 2, ra) || dnnl_stream_wait(r->stream);
  }
  dnnl_primitive_destroy(reorder);
  dnnl_primitive_desc_destroy(rpd);
  dnnl_memory_destroy(user);
  return rc ? -1 : 0;
}

static dnnl_ref *ref_new(char *err, size_t n_err) {
  dnnl_ref *r = calloc(1, sizeof *r);
  if (!r || dnnl_engine_create(&r->engine, dnnl_cpu, 0) ||
      dnnl_stream_create(&r->stream, r->engine, dnnl_stream_default_flags)) {
    snprintf(err, n_err, "oneDNN: no CPU engine");
    dnnl_ref_free(r);
    return NULL;
  }
  return r;
}

/* The primitive from its descriptor; its implementation's name. */
static int ref_primitive(dnnl_ref *r, const_dnnl_op_desc_t desc, const char *what, char *err,
                         size_t n_err) {
  dnnl_status_t s = dnnl_primitive_desc_create(&r->pd, desc, NULL, r->engine, NULL);
  if (s == dnnl_success)
    s = dnnl_primitive_create(&r->prim, r->pd);
  if (s != dnnl_success) {
    snprintf(err, n_err, "oneDNN: no %s primitive on this CPU (status %d)", what, (int)s);
    return -1;
  }
  if (dnnl_primitive_desc_query(r->pd, dnnl_query_impl_info_str, 0, &r->impl))
    r->impl = "?";
  return 0;
}

static void types_of(dnnl_ref_types types, dnnl_data_type_t *a, dnnl_data_type_t *b,
                     dnnl_data_type_t *c) {
  *a = types == DNNL_REF_INT8 ? dnnl_u8 : dnnl_bf16;
  *b = types == DNNL_REF_INT8 ? dnnl_s8 : dnnl_bf16;
  *c = types == DNNL_REF_INT8 ? dnnl_s32 : dnnl_f32;
}

dnnl_ref *dnnl_ref_matmul(int m, int n, int k, dnnl_ref_types types, char *err, size_t n_err) {
  dnnl_ref *r = ref_new(err, n_err);
  if (!r)
    return NULL;
  dnnl_data_type_t ta, tb, tc;
  types_of(types, &ta, &tb, &tc);
  dnnl_dims_t ad = {m, k}, bd = {k, n}, cd = {m, n};
  dnnl_memory_desc_t amd, bmd, cmd;
  dnnl_matmul_desc_t desc;
  if (dnnl_memory_desc_init_by_tag(&amd, 2, ad, ta, dnnl_format_tag_any) ||
      dnnl_memory_desc_init_by_tag(&bmd, 2, bd, tb, dnnl_format_tag_any) ||
      dnnl_memory_desc_init_by_tag(&cmd, 2, cd, tc, dnnl_format_tag_any) ||
      dnnl_matmul_desc_init(&desc, &amd, &bmd, NULL, &cmd) ||
      ref_primitive(r, &desc, "matmul", err, n_err) ||
      arg_memory(r, 0, DNNL_ARG_SRC, dnnl_query_src_md, 2, ad, ta, dnnl_ab, 1) ||
      arg_memory(r, 1, DNNL_ARG_WEIGHTS, dnnl_query_weights_md, 2, bd, tb, dnnl_ab, 1) ||
      arg_memory(r, 2, DNNL_ARG_DST, dnnl_query_dst_md, 2, cd, tc, dnnl_ab, 0)) {
    if (!*err)
      snprintf(err, n_err, "oneDNN: cannot set up the matmul");
    dnnl_ref_free(r);
    return NULL;
  }
  return r;
}

dnnl_ref *dnnl_ref_conv(int c, int h, int w, int oc, int kh, int kw, int pad,
                        dnnl_ref_types types, char *err, size_t n_err) {
  dnnl_ref *r = ref_new(err, n_err);
  if (!r)
    return NULL;
  dnnl_data_type_t ta, tb, tc;
  types_of(types, &ta, &tb, &tc);
  int oh = h + 2 * pad - kh + 1, ow = w + 2 * pad - kw + 1;
  dnnl_dims_t sd = {1, c, h, w}, wd = {oc, c, kh, kw}, dd = {1, oc, oh, ow};
  dnnl_dims_t strides = {1, 1}, pads = {pad, pad};
  dnnl_memory_desc_t smd, wmd, dmd;
  dnnl_convolution_desc_t desc;
  if (dnnl_memory_desc_init_by_tag(&smd, 4, sd, ta, dnnl_format_tag_any) ||
      dnnl_memory_desc_init_by_tag(&wmd, 4, wd, tb, dnnl_format_tag_any) ||
      dnnl_memory_desc_init_by_tag(&dmd, 4, dd, tc, dnnl_format_tag_any) ||
      dnnl_convolution_forward_desc_init(&desc, dnnl_forward_inference,
                                         dnnl_convolution_direct, &smd, &wmd, NULL, &dmd,
                                         strides, pads, pads) ||
      ref_primitive(r, &desc, "convolution", err, n_err) ||
      arg_memory(r, 0, DNNL_ARG_SRC, dnnl_query_src_md, 4, sd, ta, dnnl_abcd, 1) ||
      arg_memory(r, 1, DNNL_ARG_WEIGHTS, dnnl_query_weights_md, 4, wd, tb, dnnl_abcd, 1) ||
      arg_memory(r, 2, DNNL_ARG_DST, dnnl_query_dst_md, 4, dd, tc, dnnl_abcd, 0)) {
    if (!*err)
      snprintf(err, n_err, "oneDNN: cannot set up the convolution");
    dnnl_ref_free(r);
    return NULL;
  }
  return r;
}

int dnnl_ref_call(dnnl_ref *r) {
  return dnnl_primitive_execute(r->prim, r->stream, MAX_ARGS, r->args) ||
                 dnnl_stream_wait(r->stream)
             ? -1
             : 0;
}

const char *dnnl_ref_impl(const dnnl_ref *r) { return r->impl; }

void dnnl_ref_free(dnnl_ref *r) {
  if (!r)
    return;
  for (int i = 0; i < MAX_ARGS; i++)
    dnnl_memory_destroy(r->mem[i]);
  dnnl_primitive_destroy(r->prim);
  dnnl_primitive_desc_destroy(r->pd);
  dnnl_stream_destroy(r->stream);
  dnnl_engine_destroy(r->engine);
  free(r);
}
