/*
 * MultiLevelTilingTensorCore, as TVM's rule for WMMA intrinsic groups: a
 * block that computes what a group's compute intrinsic describes (the
 * auto-tensorize mapping of tensorize_mapping.c) is rewritten so that its
 * innermost 16x16x16 tile is one call of it, then tiled as
 * MultiLevelTiling tiles, with the caches tensor cores need:
 *
 *  1. TransformForTensorization: the output and both inputs reindexed,
 *     their layouts and the block's iteration space transformed by the
 *     mapping (iterators that fuse into one of the intrinsic's are fused;
 *     the others stay outside, e.g. a batch), the mapped loops split by the
 *     intrinsic's extents and the inner ones blockized; the outer block is
 *     annotated meta_schedule.auto_tensorize (the compute intrinsic),
 *     meta_schedule.auto_tensorize_init (the fill) and warp_execution.
 *  2. TileLoopNest with the two innermost spatial loops tiled (outer ones,
 *     a batch, join the first level), bound to tile_binds (blockIdx.y,
 *     blockIdx.x, threadIdx.y: warps); then TransformIntermediateOutputLayout:
 *     the output's layout (..., m / 16 / wm, n / 16 / wn, m / 16 % wm,
 *     n / 16 % wn, m % 16, n % 16), wm and wn a warp's fragments, products of
 *     sampled tile factors the index map refers to (tsl_schedule_rv_var).
 *  3. AddWriteReuse (the write cache in reuse_write_scope at its level),
 *     then the accumulator: cache_write to wmma.accumulator computed at the
 *     write cache's warp-fragment loop, its warp loops fused and bound to
 *     threadIdx.y, its 16x16 tiles blockized and annotated with the store
 *     intrinsic; the output's reindex block inlined into the write cache,
 *     whose five inner loops are fused for a cooperative fetch.
 *  4. AddReadReuse (the inputs in reuse_read_scope at their level), then
 *     cache_read to wmma.matrix_a / wmma.matrix_b under the last loop of
 *     the second reduction level, tiled, blockized and annotated with the
 *     load intrinsics; the inputs' reindex blocks inlined into the shared
 *     caches, which get storage_align (32, 8) for float16 (32, 16 for
 *     int8).
 * RewriteReductionBlock and RewriteTensorize then tensorize what is
 * annotated. 5. AddSoftwarePipeline (option use_software_pipeline, off by
 * default as in TVM's WMMA list): the annotations only, the pipelining
 * transform is not in the lowering. The mma.sync groups are not there.
 */
#include "rule_mlt.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_GROUPS = 8, NAME_MAX_LEN = 96 };

typedef struct tc_group {
  char init[NAME_MAX_LEN], load_a[NAME_MAX_LEN], load_b[NAME_MAX_LEN];
  char compute[NAME_MAX_LEN], store[NAME_MAX_LEN];
  int int8;
} tc_group;

struct tsl_sch_rule {
  mlt_rule r; /* first: the options' offsets are MultiLevelTiling's */
  char intrin_groups[RULE_STR_MAX];
  int32_t use_software_pipeline;
  uint32_t n_groups;
  tc_group groups[MAX_GROUPS];
};

/* The group of a compute intrinsic, named as TVM's get_wmma_intrin_group
 * names it: wmma_sync_16x16x16_<in><in><out>[_trans] with in f16 or s8,
 * the loads from the read reuse scope, the store to the write reuse
 * scope. */
static int make_group(const char *compute, const mlt_rule *r, tc_group *g, tsl_diag *diag) {
  static const char prefix[] = "wmma_sync_16x16x16_";
  const char *p = compute + strlen(prefix);
  const char *in = !strncmp(p, "f16f16", 6) ? "f16" : !strncmp(p, "s8s8", 4) ? "s8" : NULL;
  const char *out = in ? p + 2 * strlen(in) : NULL;
  size_t out_len = out ? strcspn(out, "_") : 0;
  const char *rest = out ? out + out_len : NULL;
  if (strncmp(compute, prefix, strlen(prefix)) || !in || !out_len || out_len > 3 ||
      (*rest && strcmp(rest, "_trans")))
    return tsl_diag_set(diag, TSL_EINVALID, "MultiLevelTilingTensorCore: intrin_groups has "
                        "'%s'; valid: WMMA compute intrinsics named wmma_sync_16x16x16_<in>"
                        "<in><out>[_trans], e.g. wmma_sync_16x16x16_f16f16f32", compute);
  char rs[RULE_STR_MAX], ws[RULE_STR_MAX];
  snprintf(rs, sizeof rs, "%s", r->read.scope);
  snprintf(ws, sizeof ws, "%s", r->write.scope);
  for (char *c = rs; *c; c++)
    *c = *c == '.' ? '_' : *c;
  for (char *c = ws; *c; c++)
    *c = *c == '.' ? '_' : *c;
  int trans = *rest != 0;
  snprintf(g->compute, NAME_MAX_LEN, "%s", compute);
  snprintf(g->init, NAME_MAX_LEN, "wmma_fill_16x16x16_%.*s", (int)out_len, out);
  snprintf(g->load_a, NAME_MAX_LEN, "wmma_load_16x16x16_%s_a_%.40s", in, rs);
  snprintf(g->load_b, NAME_MAX_LEN, "wmma_load_16x16x16_%s_b%s_%.40s", in, trans ? "_trans" : "",
           rs);
  snprintf(g->store, NAME_MAX_LEN, "wmma_store_16x16x16_%.*s_%.40s", (int)out_len, out, ws);
  g->int8 = !strcmp(in, "s8");
  return TSL_OK;
}

static int tc_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                     tsl_sch_rule **out, tsl_diag *diag) {
  (void)ud;
  (void)t;
  static const char who[] = "MultiLevelTilingTensorCore";
  rule_opt table[32];
  memcpy(table, mlt_opts, mlt_n_opts * sizeof *table);
  table[mlt_n_opts] = (rule_opt){"intrin_groups", RULE_OPT_STR,
                                 offsetof(struct tsl_sch_rule, intrin_groups)};
  table[mlt_n_opts + 1] = (rule_opt){"use_software_pipeline", RULE_OPT_BOOL,
                                     offsetof(struct tsl_sch_rule, use_software_pipeline)};
  struct tsl_sch_rule *rule = calloc(1, sizeof *rule);
  if (!rule)
    return tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", who);
  /* TVM's DefaultCUDATensorCore parameters */
  mlt_defaults(&rule->r);
  strcpy(rule->r.structure, "SSSRRSRS");
  strcpy(rule->r.tile_binds, "blockIdx.y,blockIdx.x,threadIdx.y");
  rule->r.max_innermost_factor = 4;
  rule->r.vector_load_lens = (rule_ints){6, {1, 2, 3, 4, 8, 16}};
  strcpy(rule->r.read.req, "must");
  rule->r.read.levels = (rule_ints){1, {4}};
  strcpy(rule->r.read.scope, "shared.dyn");
  strcpy(rule->r.write.req, "must");
  rule->r.write.levels = (rule_ints){1, {2}};
  strcpy(rule->r.write.scope, "shared.dyn");
  strcpy(rule->intrin_groups, "wmma_sync_16x16x16_f16f16f32,wmma_sync_16x16x16_f16f16f32_trans,"
                              "wmma_sync_16x16x16_f16f16f16,wmma_sync_16x16x16_f16f16f16_trans");
  int rc = rule_parse_opts(who, table, mlt_n_opts + 2, n, opts, rule, diag);
  if (!rc)
    rc = mlt_finish(who, &rule->r, diag);
  if (!rc && strstr(rule->r.tile_binds, "threadIdx.x"))
    rc = tsl_diag_set(diag, TSL_EINVALID, "%s: tile_binds '%s' binds threadIdx.x; tensor-core "
                      "calls are warp-wide, bind warps to threadIdx.y", who, rule->r.tile_binds);
  if (!rc && (rule->r.write_req != REUSE_MUST || strncmp(rule->r.write.scope, "shared", 6)))
    rc = tsl_diag_set(diag, TSL_EINVALID, "%s: WMMA needs a write cache in shared memory: "
                      "reuse_write_req must and reuse_write_scope shared or shared.dyn", who);
  if (!rc && (rule->r.read_req != REUSE_MUST || strncmp(rule->r.read.scope, "shared", 6)))
    rc = tsl_diag_set(diag, TSL_EINVALID, "%s: WMMA loads from shared memory: reuse_read_req "
                      "must and reuse_read_scope shared or shared.dyn", who);
  if (!rc && rule->r.n_s < 3)
    rc = tsl_diag_set(diag, TSL_EINVALID, "%s: structure '%s' needs at least three S levels "
                      "(blocks, warps, fragments)", who, rule->r.structure);
  if (!rc && rule->r.n_r < 2)
    rc = tsl_diag_set(diag, TSL_EINVALID, "%s: structure '%s' needs at least two R levels "
                      "(shared tiles, fragments)", who, rule->r.structure);
  char list[RULE_STR_MAX];
  snprintf(list, sizeof list, "%s", rule->intrin_groups);
  for (char *tok = strtok(list, ", "); !rc && tok; tok = strtok(NULL, ", ")) {
    if (rule->n_groups == MAX_GROUPS)
      rc = tsl_diag_set(diag, TSL_EINVALID, "%s: more than %d intrin_groups", who, MAX_GROUPS);
    else
      rc = make_group(tok, &rule->r, &rule->groups[rule->n_groups++], diag);
  }
  if (!rc && !rule->n_groups)
    rc = tsl_diag_set(diag, TSL_EINVALID, "%s: intrin_groups is empty; e.g. "
                      "wmma_sync_16x16x16_f16f16f32", who);
  if (rc) {
    free(rule);
    return rc;
  }
  *out = rule;
  return TSL_OK;
}

static void tc_destroy(tsl_sch_rule *r) { free(r); }

/* ---- helpers ----------------------------------------------------------------- */

/* A buffer argument ("read", 0) in `items` (two values of the caller's). */
static tsl_sch_value access(tsl_schedule *sch, const char *kind, int64_t index,
                            tsl_sch_value *items) {
  items[0] = mlt_str(sch, kind);
  items[1] = tsl_sv_int(index);
  return tsl_sv_tuple(2, items);
}

static const tsl_block *block_of(tsl_schedule *sch, tsl_sch_rv b) {
  const tsl_stmt *s = tsl_schedule_get_stmt(sch, b);
  return s ? s->u.realize.block : NULL;
}

static int call1(tsl_schedule *sch, const char *inst, uint32_t n, const tsl_sch_arg *args,
                 tsl_sch_rv *out, tsl_diag *diag) {
  uint32_t k;
  return mlt_call_list(sch, inst, n, args, out, 1, &k, diag);
}

/* compute_at of `block` under `loop`, unit loops kept. */
static int compute_at(tsl_schedule *sch, tsl_sch_rv block, tsl_sch_rv loop, tsl_diag *diag) {
  tsl_sch_arg a[3] = {{"block", mlt_rv(block)},
                      {"loop", mlt_rv(loop)},
                      {"preserve_unit_loops", tsl_sv_bool(1)}};
  return tsl_sch_call(sch, "compute_at", 3, a, NULL, NULL, diag);
}

static int annotate(tsl_schedule *sch, tsl_sch_rv b, const char *key, tsl_sch_value v,
                    tsl_diag *diag) {
  tsl_sch_arg a[3] = {{NULL, mlt_rv(b)}, {NULL, mlt_str(sch, key)}, {NULL, v}};
  return tsl_sch_call(sch, "annotate", 3, a, NULL, NULL, diag);
}

/* TVM's TileAndAnnotateTensorize for a cache block: tile with `intrin`,
 * blockize, annotate. */
static int tile_and_annotate(tsl_schedule *sch, tsl_sch_rv block, const char *intrin,
                             tsl_diag *diag) {
  const tsl_func *desc = NULL;
  if (!tsl_intrin_registry_get(tsl_schedule_intrins(sch), intrin, &desc, NULL))
    return tsl_diag_set(diag, TSL_EINVALID, "MultiLevelTilingTensorCore: no tensor intrinsic "
                        "named '%s' (the cuda-wmma plugin registers TVM's WMMA intrinsics)",
                        intrin);
  tsl_sch_rv inner, outer;
  int ok;
  int rc = rule_tile_with_intrin(sch, block, desc, 0, &inner, &ok, diag);
  if (!rc && !ok)
    return tsl_diag_set(diag, TSL_EINVALID, "MultiLevelTilingTensorCore: block '%s' is not "
                        "made of whole %s tiles", block_of(sch, block)->name, intrin);
  tsl_sch_arg ba = {"target", mlt_rv(inner)};
  if (!rc)
    rc = call1(sch, "blockize", 1, &ba, &outer, diag);
  return rc ? rc : annotate(sch, outer, "meta_schedule.auto_tensorize",
                            mlt_str(sch, intrin), diag);
}

/* ---- 1. TransformForTensorization ------------------------------------------------ */

/* The index of `v` among the block's iterators, or -1. */
static int iter_index(const tsl_block *b, const tsl_var *v) {
  for (uint32_t i = 0; i < b->n_iter_vars; i++)
    if (b->iter_vars[i].var == v)
      return (int)i;
  return -1;
}

typedef struct mapping_vars {
  tsl_arena *arena;
  const rule_tz_map *m;
  const tsl_var *src[RULE_TZ_MAX_ITERS];   /* one per block iterator */
  const tsl_expr *fused[RULE_TZ_MAX_ITERS]; /* per description iterator */
} mapping_vars;

static tsl_sch_lambda *lambda_of(tsl_arena *a, uint32_t n_params, const tsl_var *const *params,
                                 uint32_t n_out, const tsl_expr *const *out) {
  tsl_sch_lambda *l = TSL_NEW(a, tsl_sch_lambda);
  const tsl_var **ps = TSL_NEW_ARRAY(a, const tsl_var *, n_params + 1);
  tsl_sch_value *items = TSL_NEW_ARRAY(a, tsl_sch_value, n_out + 1);
  memcpy(ps, params, n_params * sizeof *ps);
  for (uint32_t i = 0; i < n_out; i++)
    items[i] = tsl_sv_expr(out[i]);
  l->n_params = n_params;
  l->params = ps;
  l->body = tsl_sv_tuple(n_out, items);
  return l;
}

/* The sub-map of one access of the reindexed block: its region's
 * iterators to [the unmapped ones, the fused iterators the description's
 * buffer is indexed by]. 0 when the region is not one iterator per dim. */
static const tsl_sch_lambda *sub_map(const mapping_vars *mv, const tsl_block *b,
                                     const tsl_buffer_region *reg, const tsl_buffer *orig) {
  const rule_tz_map *m = mv->m;
  uint32_t k = 0;
  while (k < m->n_bufs && m->lhs[k] != orig)
    k++;
  if (k == m->n_bufs || reg->ndim > RULE_TZ_MAX_ITERS)
    return NULL;
  const tsl_var *src[RULE_TZ_MAX_ITERS];
  const tsl_expr *tgt[2 * RULE_TZ_MAX_ITERS];
  uint32_t nt = 0;
  for (uint32_t d = 0; d < reg->ndim; d++) {
    int64_t one;
    const tsl_expr *mn = reg->ranges[d].min;
    int i = mn->kind == TSL_EXPR_VAR ? iter_index(b, mn->u.var) : -1;
    if (i < 0 || !tsl_expr_is_const_int(reg->ranges[d].extent, &one) || one != 1)
      return NULL;
    src[d] = mv->src[i];
    if (m->rhs_of[i] < 0)
      tgt[nt++] = tsl_expr_var(mv->src[i]);
  }
  for (uint32_t d = 0; d < m->n_rhs_idx[k]; d++) {
    const tsl_expr *e = m->rhs_idx[k][d];
    int j = iter_index(m->desc, e->u.var);
    if (j < 0)
      return NULL;
    tgt[nt++] = mv->fused[j];
  }
  return lambda_of(mv->arena, reg->ndim, src, nt, tgt);
}

/* transform_layout of a block's access (`kind` "read" / "write", `index`),
 * assumed injective as TVM's rule assumes it. */
static int transform_layout(tsl_schedule *sch, tsl_sch_rv block, const char *kind,
                            int64_t index, const tsl_sch_lambda *map, tsl_diag *diag) {
  tsl_sch_value items[2];
  tsl_sch_arg a[4] = {{"block", mlt_rv(block)},
                      {"buffer", access(sch, kind, index, items)},
                      {"index_map", tsl_sv_lambda(map)},
                      {"assume_injective_transform", tsl_sv_bool(1)}};
  return tsl_sch_call(sch, "transform_layout", 4, a, NULL, NULL, diag);
}

static int transform_block_layout(tsl_schedule *sch, tsl_sch_rv block,
                                  const tsl_sch_lambda *map, tsl_diag *diag) {
  tsl_sch_arg a[2] = {{"block", mlt_rv(block)}, {"index_map", tsl_sv_lambda(map)}};
  return tsl_sch_call(sch, "transform_block_layout", 2, a, NULL, NULL, diag);
}

/* *applicable 0 (and TSL_OK) when the block cannot be tensorized this way. */
static int transform_for_tensorization(const tc_group *g, const rule_tz_map *m, state *st,
                                       tsl_sch_rv *block, int *applicable, tsl_diag *diag) {
  tsl_schedule *sch = st->sch;
  tsl_arena *arena = tsl_arena_new(tsl_schedule_ctx(sch));
  const tsl_block *b0 = block_of(sch, *block);
  *applicable = 0;
  int rc = TSL_OK;
  if (b0->n_reads != 2 || b0->n_writes != 1)
    goto done;
  const tsl_buffer *orig_w = b0->writes[0].buffer, *orig_r[2] = {b0->reads[0].buffer,
                                                                 b0->reads[1].buffer};
  tsl_sch_value items[2];
  tsl_sch_arg ra[2] = {{"block", mlt_rv(*block)}, {"buffer", access(sch, "write", 0, items)}};
  rc = call1(sch, "reindex", 2, ra, &st->tc_reindex_store, diag);
  ra[1].value = access(sch, "read", 0, items);
  if (!rc)
    rc = call1(sch, "reindex", 2, ra, &st->tc_reindex_a, diag);
  ra[1].value = access(sch, "read", 1, items);
  if (!rc)
    rc = call1(sch, "reindex", 2, ra, &st->tc_reindex_b, diag);
  if (rc)
    goto done;
  /* the index map: a parameter per block iterator; per description
   * iterator, its block iterators fused in their order */
  mapping_vars mv = {.arena = arena, .m = m};
  const tsl_expr *tgt[2 * RULE_TZ_MAX_ITERS];
  uint32_t nt = 0;
  for (uint32_t i = 0; i < m->n_lhs; i++) {
    const tsl_iter_var *iv = &b0->iter_vars[i];
    mv.src[i] = tsl_var_new(arena, iv->var->name, iv->var->dtype);
  }
  for (uint32_t j = 0; j < m->n_rhs; j++) {
    const tsl_expr *f = NULL;
    for (uint32_t i = 0; i < m->n_lhs; i++) {
      if (m->rhs_of[i] != (int32_t)j)
        continue;
      const tsl_expr *v = tsl_expr_var(mv.src[i]);
      f = f ? tsl_expr_binary(arena, TSL_EXPR_ADD,
                              tsl_expr_binary(arena, TSL_EXPR_MUL, f,
                                              b0->iter_vars[i].dom.extent), v)
            : v;
    }
    mv.fused[j] = f;
  }
  for (uint32_t i = 0; i < m->n_lhs; i++)
    if (m->rhs_of[i] < 0)
      tgt[nt++] = tsl_expr_var(mv.src[i]);
  for (uint32_t j = 0; j < m->n_rhs; j++)
    tgt[nt++] = mv.fused[j];
  const tsl_sch_lambda *whole = lambda_of(arena, m->n_lhs, mv.src, nt, tgt);
  /* each buffer's layout: reads, then the write (TVM's order) */
  const tsl_sch_lambda *maps[3] = {NULL, NULL, NULL};
  for (int k = 0; k < 3 && !rc; k++) {
    const tsl_block *b = block_of(sch, *block);
    const char *kind = k < 2 ? "read" : "write";
    const tsl_buffer *orig = k < 2 ? orig_r[k] : orig_w;
    if (k == 1 && orig_r[1] == orig_r[0]) {
      maps[1] = maps[0];
      continue;
    }
    maps[k] = sub_map(&mv, b, k < 2 ? &b->reads[k] : &b->writes[0], orig);
    if (!maps[k])
      goto done;
    rc = transform_layout(sch, *block, kind, k < 2 ? k : 0, maps[k], diag);
  }
  if (!rc)
    rc = transform_block_layout(sch, st->tc_reindex_store, maps[2], diag);
  if (!rc)
    rc = transform_block_layout(sch, st->tc_reindex_a, maps[0], diag);
  if (!rc)
    rc = transform_block_layout(sch, st->tc_reindex_b, maps[1], diag);
  if (!rc)
    rc = transform_block_layout(sch, *block, whole, diag);
  const tsl_func *desc = NULL;
  tsl_intrin_registry_get(tsl_schedule_intrins(sch), g->compute, &desc, NULL);
  tsl_sch_rv inner;
  if (!rc)
    rc = rule_tile_with_intrin(sch, *block, desc, 1, &inner, applicable, diag);
  if (rc || !*applicable)
    goto done;
  tsl_sch_arg ba = {"target", mlt_rv(inner)};
  rc = call1(sch, "blockize", 1, &ba, block, diag);
  if (!rc)
    rc = annotate(sch, *block, "meta_schedule.auto_tensorize", mlt_str(sch, g->compute), diag);
  if (!rc)
    rc = annotate(sch, *block, "meta_schedule.auto_tensorize_init", mlt_str(sch, g->init), diag);
  if (!rc)
    rc = annotate(sch, *block, "warp_execution", tsl_sv_int(1), diag);
done:
  tsl_arena_free(arena);
  return rc;
}

/* ---- 2b. the output's layout for the warps ---------------------------------------------- */

/* TVM's TransformIntermediateOutputLayout: the block's output indexed
 * (..., m, n) becomes
 *   (..., m / 16 / wm, n / 16 / wn, m / 16 % wm, n / 16 % wn, m % 16, n % 16)
 * with wm, wn a warp's fragments along m and n: the products of the sampled
 * factors of the tile levels after the warps' (the lambda refers to the
 * sampled values, so a mutated tile size replays the right layout). */
static int transform_output_layout(const struct tsl_sch_rule *rule, state *st,
                                   tsl_sch_rv block, tsl_diag *diag) {
  tsl_schedule *sch = st->sch;
  const tsl_func *init = NULL;
  int64_t frag[RULE_TZ_MAX_ITERS];
  tsl_intrin_registry_get(tsl_schedule_intrins(sch), rule->groups[st->tc_group].init, &init,
                          NULL);
  if (!init || rule_desc_extents(init, frag, RULE_TZ_MAX_ITERS) != 2)
    return tsl_diag_set(diag, TSL_EINVALID, "MultiLevelTilingTensorCore: the init intrinsic "
                        "'%s' is not a 2-D tile", rule->groups[st->tc_group].init);
  /* the level bound to threadIdx.y (TVM checks it is among tile_binds) */
  char binds[RULE_STR_MAX];
  snprintf(binds, sizeof binds, "%s", rule->r.tile_binds);
  int warp = -1, i = 0;
  for (char *tok = strtok(binds, ", "); tok; tok = strtok(NULL, ", "), i++)
    if (!strcmp(tok, "threadIdx.y"))
      warp = i;
  if (warp < 0)
    return tsl_diag_set(diag, TSL_EINVALID, "MultiLevelTilingTensorCore: tile_binds '%s' binds "
                        "no level to threadIdx.y (the warps)", rule->r.tile_binds);
  tsl_arena *a = tsl_arena_new(tsl_schedule_ctx(sch));
  const tsl_expr *wm = NULL, *wn = NULL;
  for (uint32_t k = (uint32_t)warp + 1; k < rule->r.n_s; k++) {
    uint32_t lv = rule->r.s_idx[k], nf = st->n_factors[lv];
    if (nf < 2)
      continue;
    const tsl_expr *fm = tsl_expr_var(tsl_schedule_rv_var(sch, st->factors[lv][nf - 2]));
    const tsl_expr *fn = tsl_expr_var(tsl_schedule_rv_var(sch, st->factors[lv][nf - 1]));
    wm = wm ? tsl_expr_binary(a, TSL_EXPR_MUL, wm, fm) : fm;
    wn = wn ? tsl_expr_binary(a, TSL_EXPR_MUL, wn, fn) : fn;
  }
  const tsl_block *b = block_of(sch, block);
  uint32_t nd = b->writes[0].buffer->ndim;
  int rc = TSL_OK;
  if (!wm || !wn || nd < 2 || nd > RULE_TZ_MAX_ITERS) {
    rc = tsl_diag_set(diag, TSL_EINVALID, "MultiLevelTilingTensorCore: no tile level after "
                      "the warps' to take the fragments per warp from");
    goto done;
  }
  const tsl_var *vs[RULE_TZ_MAX_ITERS];
  const tsl_expr *out[RULE_TZ_MAX_ITERS + 4];
  for (uint32_t d = 0; d < nd; d++)
    vs[d] = tsl_var_new(a, d + 2 < nd ? "i" : d + 2 == nd ? "m" : "n", TSL_INT32);
  uint32_t no = 0;
  for (uint32_t d = 0; d + 2 < nd; d++)
    out[no++] = tsl_expr_var(vs[d]);
  const tsl_expr *m = tsl_expr_var(vs[nd - 2]), *n = tsl_expr_var(vs[nd - 1]);
  const tsl_expr *m16 = tsl_expr_int(a, TSL_INT32, frag[0]), *n16 = tsl_expr_int(a, TSL_INT32, frag[1]);
  const tsl_expr *om = tsl_expr_binary(a, TSL_EXPR_FLOORDIV, m, m16);
  const tsl_expr *on = tsl_expr_binary(a, TSL_EXPR_FLOORDIV, n, n16);
  out[no++] = tsl_expr_binary(a, TSL_EXPR_FLOORDIV, om, wm);
  out[no++] = tsl_expr_binary(a, TSL_EXPR_FLOORDIV, on, wn);
  out[no++] = tsl_expr_binary(a, TSL_EXPR_FLOORMOD, om, wm);
  out[no++] = tsl_expr_binary(a, TSL_EXPR_FLOORMOD, on, wn);
  out[no++] = tsl_expr_binary(a, TSL_EXPR_FLOORMOD, m, m16);
  out[no++] = tsl_expr_binary(a, TSL_EXPR_FLOORMOD, n, n16);
  rc = transform_layout(sch, block, "write", 0, lambda_of(a, nd, vs, no, out), diag);
done:
  tsl_arena_free(a);
  return rc;
}

/* ---- 3. the accumulator ------------------------------------------------------------ */

/* The loops -6 .. -3 of a block (TVM's f_get_loops in
 * AddWriteReuseTensorCore): the four outer dimensions of the output's
 * warp layout. */
static int loops_6_to_3(tsl_schedule *sch, tsl_sch_rv block, tsl_sch_rv *out4,
                        tsl_diag *diag) {
  tsl_sch_rv loops[MAX_PER_LEVEL * 2];
  uint32_t nl = 0;
  int rc = mlt_loops_of(sch, block, loops, &nl, diag);
  if (!rc && nl <= 6)
    rc = tsl_diag_set(diag, TSL_EINVALID, "MultiLevelTilingTensorCore: block '%s' has %u "
                      "loops, not the six of the output's warp layout", block_of(sch, block)->name,
                      nl);
  if (!rc)
    memcpy(out4, &loops[nl - 6], 4 * sizeof *out4);
  return rc;
}

static int add_write_reuse_tensor_core(const struct tsl_sch_rule *rule, state *st,
                                       tsl_sch_rv block, states *out, tsl_diag *diag) {
  tsl_schedule *sch = st->sch;
  const tc_group *g = &rule->groups[st->tc_group];
  tsl_sch_arg ca[3] = {{"block", mlt_rv(block)},
                       {"write_buffer_index", tsl_sv_int(0)},
                       {"storage_scope", mlt_str(sch, "wmma.accumulator")}};
  tsl_sch_rv acc, l[4];
  int rc = call1(sch, "cache_write", 3, ca, &acc, diag);
  /* the write cache's loops (i0, j0, i1, j1) as (i1, i0, j0, j1); the
   * accumulator's copy computed at i1 */
  if (!rc)
    rc = loops_6_to_3(sch, st->write_cache, l, diag);
  tsl_sch_arg ra[4] = {{NULL, mlt_rv(l[2])}, {NULL, mlt_rv(l[0])}, {NULL, mlt_rv(l[1])},
                       {NULL, mlt_rv(l[3])}};
  if (!rc)
    rc = tsl_sch_call(sch, "reorder", 4, ra, NULL, NULL, diag);
  if (!rc)
    rc = compute_at(sch, acc, l[2], diag);
  /* its warps: the first two of its four outer loops, fused, threadIdx.y */
  if (!rc)
    rc = loops_6_to_3(sch, acc, l, diag);
  tsl_sch_arg fa[2] = {{NULL, mlt_rv(l[0])}, {NULL, mlt_rv(l[1])}};
  tsl_sch_rv fused;
  if (!rc)
    rc = call1(sch, "fuse", 2, fa, &fused, diag);
  tsl_sch_arg ba[2] = {{"loop", mlt_rv(fused)}, {"thread_axis", mlt_str(sch, "threadIdx.y")}};
  if (!rc)
    rc = tsl_sch_call(sch, "bind", 2, ba, NULL, NULL, diag);
  tsl_sch_arg ia = {NULL, mlt_rv(st->tc_reindex_store)};
  if (!rc)
    rc = tsl_sch_call(sch, "reverse_compute_inline", 1, &ia, NULL, NULL, diag);
  /* the 16x16 tiles of the accumulator's copy: the store intrinsic */
  tsl_sch_rv loops[MAX_PER_LEVEL * 2], stored;
  uint32_t nl = 0;
  if (!rc)
    rc = mlt_loops_of(sch, acc, loops, &nl, diag);
  tsl_sch_arg bz = {"target", mlt_rv(loops[nl >= 2 ? nl - 2 : 0])};
  if (!rc)
    rc = call1(sch, "blockize", 1, &bz, &stored, diag);
  if (!rc)
    rc = annotate(sch, stored, "meta_schedule.auto_tensorize", mlt_str(sch, g->store), diag);
  /* the write cache's five inner loops fused for a cooperative fetch */
  if (!rc)
    rc = mlt_loops_of(sch, st->write_cache, loops, &nl, diag);
  if (!rc && nl < 5)
    rc = tsl_diag_set(diag, TSL_EINVALID, "MultiLevelTilingTensorCore: the write cache has "
                      "%u loops, fewer than five", nl);
  tsl_sch_arg f5[5];
  for (uint32_t k = 0; !rc && k < 5; k++)
    f5[k] = (tsl_sch_arg){NULL, mlt_rv(loops[nl - 5 + k])};
  if (!rc)
    rc = tsl_sch_call(sch, "fuse", 5, f5, NULL, NULL, diag);
  if (!rc)
    rc = mlt_annotate_cooperative_fetch(&rule->r, sch, st->write_cache, diag);
  return mlt_keep_or_drop(out, st, rc, diag);
}

/* ---- 4. the fragments of the inputs ---------------------------------------------------- */

static int add_read_reuse_tensor_core(const struct tsl_sch_rule *rule, state *st,
                                      tsl_sch_rv block, states *out, tsl_diag *diag) {
  tsl_schedule *sch = st->sch;
  const tc_group *g = &rule->groups[st->tc_group];
  tsl_sch_rv at = mlt_last_of_level(st, rule->r.r_idx[1] + 1);
  int rc = TSL_OK;
  for (int i = 0; i < 2 && !rc; i++) {
    tsl_sch_arg ca[3] = {{"block", mlt_rv(block)},
                         {"read_buffer_index", tsl_sv_int(i)},
                         {"storage_scope", mlt_str(sch, i ? "wmma.matrix_b" : "wmma.matrix_a")}};
    tsl_sch_rv frag;
    rc = call1(sch, "cache_read", 3, ca, &frag, diag);
    if (!rc)
      rc = compute_at(sch, frag, at, diag);
    if (!rc)
      rc = tile_and_annotate(sch, frag, i ? g->load_b : g->load_a, diag);
  }
  for (uint32_t k = 0; k < st->n_read_cache && !rc; k++) {
    tsl_sch_rv cache = st->read_cache[k];
    uint32_t n = 0;
    tsl_sch_rv *prod = rule_query(sch, "get_producers", cache, &n);
    tsl_sch_arg ia = {NULL, mlt_rv(prod ? prod[0] : cache)};
    rc = n ? tsl_sch_call(sch, "compute_inline", 1, &ia, NULL, NULL, diag) : TSL_OK;
    free(prod);
    tsl_dtype dt = block_of(sch, cache)->writes[0].buffer->dtype;
    int f16 = dt.code == TSL_DT_FLOAT && dt.bits == 16, i8 = dt.code == TSL_DT_INT && dt.bits == 8;
    tsl_sch_arg sa[5] = {{"block", mlt_rv(cache)},
                         {"buffer_index", tsl_sv_int(0)},
                         {"axis", tsl_sv_int(-2)},
                         {"factor", tsl_sv_int(32)},
                         {"offset", tsl_sv_int(i8 ? 16 : 8)}};
    if (!rc && (f16 || i8))
      rc = tsl_sch_call(sch, "storage_align", 5, sa, NULL, NULL, diag);
  }
  return mlt_keep_or_drop(out, st, rc, diag);
}

/* ---- 5. the software pipeline ------------------------------------------------------------ */

static tsl_sch_value ints(tsl_sch_value *items, uint32_t n, const int64_t *v) {
  for (uint32_t i = 0; i < n; i++)
    items[i] = tsl_sv_int(v[i]);
  return tsl_sv_list(n, items);
}

/* TVM's AddSoftwarePipeline (WMMA): with use_software_pipeline and more
 * than one reduction step, the shared caches get a local stage and a
 * double buffer, the loops of the two reduction levels their stages and
 * orders. These are annotations: TVM's InjectSoftwarePipeline, which
 * acts on them, is not in tessel's lowering (the program runs unpipelined). */
static int add_software_pipeline(const struct tsl_sch_rule *rule, state *st, tsl_sch_rv block,
                                 states *out, tsl_diag *diag) {
  (void)block;
  tsl_schedule *sch = st->sch;
  if (!rule->use_software_pipeline || rule->r.n_r < 2)
    return mlt_states_push(out, st, diag);
  int64_t length = 1, e;
  for (uint32_t k = 0; k < rule->r.n_r; k++) {
    uint32_t lv = rule->r.r_idx[k];
    for (uint32_t i = 0; i < st->n[lv]; i++) {
      const tsl_stmt *l = tsl_schedule_get_stmt(sch, st->tiles[lv][i]);
      length *= l && tsl_expr_is_const_int(l->u.loop.extent, &e) ? e : 1;
    }
  }
  if (length <= 1)
    return mlt_states_push(out, st, diag);
  int rc = TSL_OK;
  for (uint32_t k = 0; k < st->n_read_cache && k < 2 && !rc; k++) {
    rc = annotate(sch, st->read_cache[k], "tir.manifest_shared_memory_local_stage",
                  tsl_sv_int(1), diag);
    if (!rc)
      rc = annotate(sch, st->read_cache[k], "double_buffer_scope", tsl_sv_int(0), diag);
  }
  static const int64_t inner_stage[] = {0, 0, 1}, inner_order[] = {0, 1, 2};
  static const int64_t outer_stage[] = {0, 0, 0, 0, 0, 1, 1}, outer_order[] = {0, 3, 1, 4, 5, 2, 6};
  tsl_sch_value items[7];
  tsl_sch_rv inner = mlt_last_of_level(st, rule->r.r_idx[1] + 1);
  tsl_sch_rv outer = mlt_last_of_level(st, rule->r.r_idx[0] + 1);
  if (!rc)
    rc = annotate(sch, inner, "software_pipeline_stage", ints(items, 3, inner_stage), diag);
  if (!rc)
    rc = annotate(sch, inner, "software_pipeline_order", ints(items, 3, inner_order), diag);
  if (!rc)
    rc = annotate(sch, outer, "software_pipeline_stage", ints(items, 7, outer_stage), diag);
  if (!rc)
    rc = annotate(sch, outer, "software_pipeline_order", ints(items, 7, outer_order), diag);
  return mlt_keep_or_drop(out, st, rc, diag);
}

/* ---- the rule ------------------------------------------------------------------------ */

typedef int (*tc_sub)(const struct tsl_sch_rule *rule, state *st, tsl_sch_rv block,
                      states *out, tsl_diag *diag);

/* Each state through `fn` with its own (blockized) block. */
static int apply_tc(const struct tsl_sch_rule *rule, states *ss, const tsl_sch_rv *blocks,
                    tc_sub fn, tsl_sch_rv *next_blocks, tsl_diag *diag) {
  states next = {0};
  int rc = TSL_OK;
  for (uint32_t i = 0; i < ss->n; i++) {
    uint32_t before = next.n;
    if (rc) {
      tsl_schedule_free(ss->s[i]->sch);
      free(ss->s[i]);
    } else {
      rc = fn(rule, ss->s[i], blocks[i], &next, diag);
    }
    for (uint32_t k = before; k < next.n; k++)
      next_blocks[k] = blocks[i];
  }
  ss->n = 0;
  *ss = next;
  return rc;
}

static int write_reuse(const struct tsl_sch_rule *rule, state *st, tsl_sch_rv block,
                       states *out, tsl_diag *diag) {
  return mlt_add_write_reuse(&rule->r, st, block, out, diag);
}

static int read_reuse(const struct tsl_sch_rule *rule, state *st, tsl_sch_rv block, states *out,
                      tsl_diag *diag) {
  return mlt_add_read_reuse(&rule->r, st, block, out, diag);
}

static int tc_apply(tsl_sch_rule *rule, tsl_schedule *sch, tsl_sch_rv block,
                    tsl_schedule_list *out, tsl_diag *diag) {
  if (!tsl_sch_needs_multi_level_tiling(sch, block))
    return tsl_schedule_list_push(out, sch);
  const tsl_intrin_registry *reg = tsl_schedule_intrins(sch);
  const tsl_block *b = block_of(sch, block);
  states ss = {0};
  tsl_sch_rv blocks[MAX_STATES], next_blocks[MAX_STATES];
  int rc = TSL_OK;
  for (uint32_t k = 0; k < rule->n_groups && !rc; k++) {
    const tsl_func *desc = NULL;
    rule_tz_map m;
    if (!tsl_intrin_registry_get(reg, rule->groups[k].compute, &desc, NULL) ||
        !rule_tz_mapping(b, desc, &m))
      continue;
    state *st = calloc(1, sizeof *st);
    if (!st) {
      rc = tsl_diag_set(diag, TSL_ENOMEM, "MultiLevelTilingTensorCore: out of memory");
      break;
    }
    st->tc_group = (int32_t)k;
    if ((rc = tsl_schedule_fork(sch, &st->sch, diag))) {
      free(st);
      break;
    }
    tsl_sch_rv bk = block;
    int applicable = 0;
    rc = annotate(st->sch, bk, "meta_schedule.tiling_structure",
                  mlt_str(st->sch, rule->r.structure), diag);
    if (!rc)
      rc = transform_for_tensorization(&rule->groups[k], &m, st, &bk, &applicable, diag);
    if (!rc && applicable)
      rc = mlt_tile_loop_nest(&rule->r, st, bk, 2, diag);
    if (!rc && applicable)
      rc = transform_output_layout(rule, st, bk, diag);
    if (rc || !applicable) {
      tsl_schedule_free(st->sch);
      free(st);
      continue;
    }
    blocks[ss.n] = bk;
    rc = mlt_states_push(&ss, st, diag);
  }
  if (rc) {
    mlt_states_free(&ss);
    tsl_schedule_free(sch);
    return rc;
  }
  if (!ss.n)
    return tsl_schedule_list_push(out, sch);
  tc_sub subs[5] = {write_reuse, add_write_reuse_tensor_core, read_reuse,
                    add_read_reuse_tensor_core, add_software_pipeline};
  for (int i = 0; i < 5 && !rc; i++) {
    rc = apply_tc(rule, &ss, blocks, subs[i], next_blocks, diag);
    memcpy(blocks, next_blocks, sizeof blocks);
  }
  if (rc || !ss.n) {
    mlt_states_free(&ss);
    if (rc)
      tsl_schedule_free(sch);
    return rc ? rc : tsl_schedule_list_push(out, sch);
  }
  tsl_schedule_free(sch);
  for (uint32_t i = 0; i < ss.n; i++) {
    tsl_schedule_list_push(out, ss.s[i]->sch);
    free(ss.s[i]);
  }
  return TSL_OK;
}

const tsl_schedule_rule_vtable rule_multi_level_tiling_tensor_core_vt = {
    sizeof(tsl_schedule_rule_vtable), tc_create, tc_destroy, tc_apply};
