/*
 * RewriteParallelVectorizeUnroll, as TVM's postprocessor: the root block's
 * meta_schedule.parallel / .vectorize / .unroll_explicit (or
 * .unroll_implicit) annotations become, for each block under the root,
 * a fused parallel loop over its leading spatial loops (up to the parallel
 * extent), a fused vectorized loop over its trailing spatial loops (up to
 * the vector extent, and only as far as every buffer access stays
 * contiguous), or both at once through one fuse and split when every loop
 * qualifies, and pragma_auto_unroll_max_step / pragma_unroll_explicit on
 * the outermost loop of a non-spatial block.
 */
#include "rules_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct tsl_postproc {
  int32_t unused;
} pvu_pp;

typedef struct parsed {
  int64_t max_parallel, max_vectorize, unroll_explicit, unroll_implicit;
  int64_t n_parallel, n_vectorize;
} parsed;

enum { MAX_LOOPS = 64 };

static int pp_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                     tsl_postproc **out, tsl_diag *diag) {
  (void)ud;
  (void)t;
  return rule_create_plain("RewriteParallelVectorizeUnroll", n, opts, sizeof **out,
                           (void **)out, diag);
}

static void pp_destroy(tsl_postproc *p) { free(p); }

static const char *const keys[4] = {"meta_schedule.parallel", "meta_schedule.vectorize",
                                    "meta_schedule.unroll_explicit",
                                    "meta_schedule.unroll_implicit"};

/* TVM's ParseAnnotation: 1 when the block has any of the four. */
static int parse_annotation(const tsl_block *b, parsed *p) {
  int64_t *dst[4] = {&p->max_parallel, &p->max_vectorize, &p->unroll_explicit,
                     &p->unroll_implicit};
  int found = 0;
  *p = (parsed){-1, -1, -1, -1, -1, -1};
  for (int k = 0; k < 4; k++) {
    const tsl_attr_value *v = tsl_attrs_get(b->annotations, keys[k]);
    if (!v)
      continue;
    found = 1;
    if (v->kind == TSL_ATTR_INT)
      *dst[k] = v->u.i;
    else if (v->kind == TSL_ATTR_EXPR && v->u.expr->kind == TSL_EXPR_INT_IMM)
      *dst[k] = v->u.expr->u.int_value;
  }
  return found;
}

static tsl_sch_value key(tsl_schedule *sch, const char *s) {
  return tsl_sv_str(tsl_intern(tsl_schedule_ctx(sch), s));
}

static int has_ann_or_binding(const tsl_stmt *loop) {
  return loop->u.loop.for_kind == TSL_FOR_THREAD_BINDING || loop->u.loop.annotations.n;
}

static int is_single_stmt(const tsl_stmt *s) {
  return s->kind != TSL_STMT_SEQ || s->u.seq.n == 1;
}

/* TVM's StrideExtractor: the stride of `v` in `e` (0 when absent). */
static int64_t stride_of(const tsl_expr *e, const tsl_var *v, int *found) {
  *found = 0;
  if (e->kind == TSL_EXPR_VAR) {
    *found = e->u.var == v;
    return *found ? 1 : 0;
  }
  int64_t c;
  if (e->kind == TSL_EXPR_MUL) {
    int fa, fb;
    int64_t sa = stride_of(e->args[0], v, &fa), sb = stride_of(e->args[1], v, &fb);
    if (tsl_expr_is_const_int(e->args[0], &c) && fb) {
      *found = 1;
      return sb * c;
    }
    if (tsl_expr_is_const_int(e->args[1], &c) && fa) {
      *found = 1;
      return sa * c;
    }
    return 0;
  }
  if (e->kind == TSL_EXPR_ADD) {
    int fa, fb;
    int64_t sa = stride_of(e->args[0], v, &fa), sb = stride_of(e->args[1], v, &fb);
    if (!fa && !fb)
      return 0;
    *found = 1;
    if (!fa)
      return sb;
    if (!fb)
      return sa;
    return sa < sb ? sa : sb;
  }
  for (uint32_t i = 0; i < e->n_args; i++) {
    int f;
    stride_of(e->args[i], v, &f); /* visited, but no stride recorded above */
  }
  return 0;
}

static const tsl_expr *subst_binding(const tsl_var *v, void *ud) {
  const tsl_stmt *rz = ud;
  const tsl_block *b = rz->u.realize.block;
  for (uint32_t i = 0; i < b->n_iter_vars; i++)
    if (b->iter_vars[i].var == v)
      return rz->u.realize.iter_values[i];
  return NULL;
}

/* How many trailing loops every access of the block reaches contiguously
 * (TVM's max_fusible in AdjustParallelVectorize). */
static int max_fusible(tsl_ctx *ctx, const tsl_stmt *rz, const tsl_stmt *const *loops, int n) {
  const tsl_block *b = rz->u.realize.block;
  int best = INT32_MAX;
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_analyzer *an = tsl_analyzer_new(ctx);
  uint32_t n_acc = b->n_reads + b->n_writes;
  for (uint32_t r = 0; r < n_acc; r++) {
    const tsl_buffer_region *acc = r < b->n_reads ? &b->reads[r] : &b->writes[r - b->n_reads];
    int64_t strides[MAX_LOOPS];
    /* each dimension's index in the loop variables, simplified once (and
     * only as far as some loop needs it) */
    const tsl_expr **idxs = tsl_arena_alloc(a, (acc->ndim + 1) * sizeof *idxs); /* zeroed */
    for (int l = 0; l < n; l++) {
      int64_t stride = 0, buffer_stride = 1;
      for (int d = (int)acc->ndim - 1; d >= 0; d--) {
        if (!idxs[d])
          idxs[d] = tsl_simplify(
              an, a, tsl_expr_substitute(a, acc->ranges[d].min, subst_binding, (void *)rz));
        const tsl_expr *idx = idxs[d];
        int f;
        int64_t coef = stride_of(idx, loops[l]->u.loop.loop_var, &f);
        if (coef != 0) {
          stride = coef * buffer_stride;
          break;
        }
        int64_t ext = 0;
        tsl_expr_is_const_int(acc->buffer->shape[d], &ext);
        buffer_stride *= ext;
      }
      strides[l] = stride;
    }
    int fusible = 0, prev = -1;
    for (int i = n - 1; i >= 0; i--) {
      if (strides[i] == 0) {
        fusible++;
      } else if (prev == -1) {
        if (strides[i] != 1 && fusible != 0)
          break;
        fusible++;
        prev = i;
      } else {
        int64_t pext = 0;
        tsl_expr_is_const_int(loops[prev]->u.loop.extent, &pext);
        if (strides[i] != strides[prev] * pext)
          break;
        fusible++;
        prev = i;
      }
    }
    best = fusible < best ? fusible : best;
  }
  tsl_analyzer_free(an);
  tsl_arena_free(a);
  return best;
}

/* TVM's AdjustParallelVectorize. */
static void adjust(tsl_schedule *sch, tsl_sch_rv block, const tsl_sch_rv *lrv, int n,
                   parsed *p) {
  if (p->max_parallel == -1 && p->max_vectorize == -1)
    return;
  if (!n) {
    p->max_parallel = p->max_vectorize = -1;
    return;
  }
  const tsl_stmt *loops[MAX_LOOPS];
  int types[MAX_LOOPS];
  for (int i = 0; i < n; i++) {
    loops[i] = tsl_schedule_get_stmt(sch, lrv[i]);
    types[i] = tsl_sch_loop_iter_type(sch, lrv[i]);
  }
  int fusible = max_fusible(tsl_schedule_ctx(sch), tsl_schedule_get_stmt(sch, block), loops, n);
  int rw = 0;
  for (int i = 0; i < n; i++) {
    int64_t ext;
    if (!has_ann_or_binding(loops[i]) && types[i] == TSL_ITER_SPATIAL &&
        is_single_stmt(loops[i]->u.loop.body) && tsl_expr_is_const_int(loops[i]->u.loop.extent, &ext))
      rw++;
  }
  if (p->max_parallel != -1) {
    int64_t prod = 1, num = 0;
    for (int i = 0; i < n && types[i] == TSL_ITER_SPATIAL; i++) {
      int64_t ext;
      if (has_ann_or_binding(loops[i]) || !tsl_expr_is_const_int(loops[i]->u.loop.extent, &ext))
        break;
      num++;
      prod *= ext;
      if (prod > p->max_parallel || !is_single_stmt(loops[i]->u.loop.body))
        break;
    }
    p->n_parallel = prod == 1 ? -1 : num;
  }
  if (p->max_vectorize != -1) {
    int64_t prod = 1, num = 0;
    for (int i = n - 1; i >= 0 && types[i] == TSL_ITER_SPATIAL && num < fusible; i--) {
      int64_t ext;
      if (has_ann_or_binding(loops[i]) || !is_single_stmt(loops[i]->u.loop.body) ||
          !tsl_expr_is_const_int(loops[i]->u.loop.extent, &ext))
        break;
      prod *= ext;
      if (prod > p->max_vectorize)
        break;
      num++;
    }
    p->n_vectorize = prod == 1 ? -1 : num;
  }
  if (p->n_parallel != -1 && p->n_vectorize != -1) {
    if (rw == n && fusible == n) {
      p->n_parallel = p->n_vectorize = n;
    } else if (p->n_parallel > n - p->n_vectorize) {
      p->n_parallel = n - p->n_vectorize;
    }
  }
}

static int fuse(tsl_schedule *sch, const tsl_sch_rv *loops, int n, tsl_sch_rv *out,
                tsl_diag *diag) {
  tsl_sch_arg a[MAX_LOOPS];
  for (int i = 0; i < n; i++)
    a[i] = (tsl_sch_arg){NULL, tsl_sv_rv(loops[i])};
  return rule_call_args(sch, "fuse", (uint32_t)n, a, out, diag);
}

static int loop_kind(tsl_schedule *sch, const char *inst, tsl_sch_rv loop, tsl_diag *diag) {
  tsl_sch_arg a = {NULL, tsl_sv_rv(loop)};
  return rule_call_args(sch, inst, 1, &a, NULL, diag);
}

static int rewrite_block(tsl_schedule *sch, tsl_sch_rv block, const parsed *root,
                         tsl_diag *diag) {
  tsl_sch_arg ga = {NULL, tsl_sv_rv(block)};
  const tsl_sch_rv *outs;
  uint32_t nl;
  int rc = tsl_sch_call(sch, "get_loops", 1, &ga, &outs, &nl, diag);
  if (rc || !nl)
    return rc;
  if (nl > MAX_LOOPS)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED, "more than %d loops", MAX_LOOPS);
  tsl_sch_rv loops[MAX_LOOPS];
  memcpy(loops, outs, sizeof *loops * nl);
  int n = (int)nl;
  parsed p = *root;
  adjust(sch, block, loops, n, &p);
  if (p.n_parallel == n && p.n_vectorize == n) {
    /* fuse all, split by the vector length: parallel outside, vector inside */
    tsl_sch_rv fused, parts[2];
    if ((rc = fuse(sch, loops, n, &fused, diag)))
      return rc;
    tsl_sch_value f[2] = {tsl_sv_none(), tsl_sv_int(p.max_vectorize)};
    tsl_sch_arg sa[2] = {{"loop", tsl_sv_rv(fused)}, {"factors", tsl_sv_list(2, f)}};
    uint32_t k;
    if ((rc = tsl_sch_call(sch, "split", 2, sa, &outs, &k, diag)))
      return rc;
    parts[0] = outs[0];
    parts[1] = outs[1];
    if ((rc = loop_kind(sch, "parallel", parts[0], diag)) ||
        (rc = loop_kind(sch, "vectorize", parts[1], diag)))
      return rc;
    for (int i = 0; i < n - 1; i++)
      loops[i] = parts[0];
    loops[n - 1] = parts[1];
  } else {
    if (p.n_parallel > 0) {
      tsl_sch_rv fused;
      if ((rc = fuse(sch, loops, (int)p.n_parallel, &fused, diag)) ||
          (rc = loop_kind(sch, "parallel", fused, diag)))
        return rc;
      for (int i = 0; i < p.n_parallel; i++)
        loops[i] = fused;
    }
    if (p.n_vectorize > 0) {
      tsl_sch_rv fused;
      int first = n - (int)p.n_vectorize;
      if ((rc = fuse(sch, loops + first, (int)p.n_vectorize, &fused, diag)) ||
          (rc = loop_kind(sch, "vectorize", fused, diag)))
        return rc;
      for (int i = first; i < n; i++)
        loops[i] = fused;
    }
  }
  if (p.unroll_explicit != -1 || p.unroll_implicit != -1) {
    int64_t max_step = p.unroll_explicit + p.unroll_implicit + 1;
    if (max_step > 0 && !tsl_sch_is_spatial_block(sch, block)) {
      tsl_sch_arg a1[3] = {{NULL, tsl_sv_rv(loops[0])},
                           {NULL, key(sch, "pragma_auto_unroll_max_step")},
                           {NULL, tsl_sv_int(max_step)}};
      tsl_sch_arg a2[3] = {{NULL, tsl_sv_rv(loops[0])},
                           {NULL, key(sch, "pragma_unroll_explicit")},
                           {NULL, tsl_sv_int(p.unroll_explicit != -1)}};
      if ((rc = rule_call_args(sch, "annotate", 3, a1, NULL, diag)) ||
          (rc = rule_call_args(sch, "annotate", 3, a2, NULL, diag)))
        return rc;
    }
  }
  return TSL_OK;
}

static int pp_apply(tsl_postproc *pp, tsl_schedule *sch, tsl_diag *diag) {
  (void)pp;
  for (;;) {
    const tsl_func *f = tsl_schedule_func(sch);
    parsed root;
    if (!f || !parse_annotation(f->body->u.realize.block, &root))
      return TSL_OK;
    tsl_sch_arg ba[2] = {{NULL, tsl_sv_str(f->body->u.realize.block->name)},
                         {"func_name", tsl_sv_str(f->name)}};
    tsl_sch_rv root_rv;
    int rc = rule_call_args(sch, "get_block", 2, ba, &root_rv, diag);
    for (int k = 0; k < 4 && !rc; k++) {
      int64_t v = k == 0 ? root.max_parallel : k == 1 ? root.max_vectorize
                : k == 2 ? root.unroll_explicit : root.unroll_implicit;
      if (v == -1 && !tsl_attrs_get(f->body->u.realize.block->annotations, keys[k]))
        continue;
      tsl_sch_arg ua[2] = {{NULL, tsl_sv_rv(root_rv)}, {NULL, key(sch, keys[k])}};
      rc = rule_call_args(sch, "unannotate", 2, ua, NULL, diag);
    }
    if (rc)
      return rc;
    tsl_sch_arg ca = {NULL, tsl_sv_rv(root_rv)};
    const tsl_sch_rv *outs;
    uint32_t nb;
    if ((rc = tsl_sch_call(sch, "get_child_blocks", 1, &ca, &outs, &nb, diag)))
      return rc;
    tsl_sch_rv *blocks = malloc(sizeof *blocks * (nb ? nb : 1));
    if (!blocks)
      return tsl_diag_set(diag, TSL_ENOMEM, "out of memory");
    memcpy(blocks, outs, sizeof *blocks * nb);
    for (uint32_t i = 0; i < nb && !rc; i++)
      rc = rewrite_block(sch, blocks[i], &root, diag);
    free(blocks);
    if (rc)
      return rc;
  }
}

const tsl_postproc_vtable postproc_parallel_vectorize_unroll_vt = {
    sizeof(tsl_postproc_vtable), pp_create, pp_destroy, pp_apply};
