/*
 * MultiLevelTiling, as TVM's rule (the CPU and GPU parts it has without
 * tensor cores or async pipelines): a block that NeedsMultiLevelTiling is
 * annotated meta_schedule.tiling_structure, each of its loops split by
 * sample_perfect_tile into as many tiles as its kind has letters in the
 * structure ("SSRSRS": spatial loops in 4, reduction loops in 2), the tiles
 * reordered level by level, the first levels fused and bound to
 * tile_binds, then the states branch on write reuse (a cache_write, or an
 * elementwise consumer already there, moved under the last loop of level
 * 1, 2, ...; "may" also keeps the state without it) and read reuse
 * (cache_read of every input at each level, its loops fused, a sampled
 * cooperative-fetch vector length).
 */
#include "rule_mlt.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

const rule_opt mlt_opts[] = {
    {"structure", RULE_OPT_STR, offsetof(mlt_rule, structure)},
    {"tile_binds", RULE_OPT_STR, offsetof(mlt_rule, tile_binds)},
    {"max_innermost_factor", RULE_OPT_INT, offsetof(mlt_rule, max_innermost_factor)},
    {"vector_load_lens", RULE_OPT_INTS, offsetof(mlt_rule, vector_load_lens)},
    {"thread_warp_size", RULE_OPT_INT, offsetof(mlt_rule, thread_warp_size)},
    {"max_threads_per_block", RULE_OPT_INT, offsetof(mlt_rule, max_threads_per_block)},
    {"reuse_read_req", RULE_OPT_STR, offsetof(mlt_rule, read.req)},
    {"reuse_read_levels", RULE_OPT_INTS, offsetof(mlt_rule, read.levels)},
    {"reuse_read_scope", RULE_OPT_STR, offsetof(mlt_rule, read.scope)},
    {"reuse_write_req", RULE_OPT_STR, offsetof(mlt_rule, write.req)},
    {"reuse_write_levels", RULE_OPT_INTS, offsetof(mlt_rule, write.levels)},
    {"reuse_write_scope", RULE_OPT_STR, offsetof(mlt_rule, write.scope)},
};
const uint32_t mlt_n_opts = sizeof mlt_opts / sizeof mlt_opts[0];

struct tsl_sch_rule {
  mlt_rule r;
};

static int reuse_kind(const char *s) {
  return !strcmp(s, "no") ? REUSE_NO : !strcmp(s, "may") ? REUSE_MAY
                                     : !strcmp(s, "must") ? REUSE_MUST : -1;
}

static int check_reuse(const char *what, const reuse *r, int *kind, uint32_t n_levels,
                       tsl_diag *diag) {
  *kind = reuse_kind(r->req);
  if (*kind < 0)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "MultiLevelTiling: %s_req is '%s'; it must be no, may or must", what,
                        r->req);
  for (uint32_t i = 0; *kind != REUSE_NO && i < r->levels.n; i++)
    if (r->levels.v[i] < 1 || r->levels.v[i] > (int64_t)n_levels)
      return tsl_diag_set(diag, TSL_EINVALID,
                          "MultiLevelTiling: %s_levels has %lld; levels run from 1 to %u "
                          "(the structure's length)",
                          what, (long long)r->levels.v[i], n_levels);
  return TSL_OK;
}

void mlt_defaults(mlt_rule *r) {
  memset(r, 0, sizeof *r);
  strcpy(r->structure, "SSRSRS");
  r->max_innermost_factor = 64;
  r->thread_warp_size = -1;
  r->max_threads_per_block = 1024;
  strcpy(r->read.req, "no");
  strcpy(r->read.scope, "global");
  strcpy(r->write.req, "may");
  r->write.levels = (rule_ints){2, {1, 2}};
  strcpy(r->write.scope, "global");
}

int mlt_finish(const char *who, mlt_rule *r, tsl_diag *diag) {
  uint32_t len = (uint32_t)strlen(r->structure);
  r->n_s = r->n_r = 0;
  if (!len || len > MAX_LEVELS)
    return tsl_diag_set(diag, TSL_EINVALID, "%s: structure '%s' must have 1 to %d letters S "
                        "and R", who, r->structure, MAX_LEVELS);
  for (uint32_t i = 0; i < len; i++) {
    if (r->structure[i] == 'S')
      r->s_idx[r->n_s++] = i;
    else if (r->structure[i] == 'R')
      r->r_idx[r->n_r++] = i;
    else
      return tsl_diag_set(diag, TSL_EINVALID,
                          "%s: structure '%s' has '%c'; only S (spatial) and R (reduction) "
                          "are valid, e.g. SSRSRS", who, r->structure, r->structure[i]);
  }
  if (!r->n_s)
    return tsl_diag_set(diag, TSL_EINVALID, "%s: structure '%s' has no S", who, r->structure);
  int rc;
  if ((rc = check_reuse("reuse_read", &r->read, &r->read_req, len, diag)) ||
      (rc = check_reuse("reuse_write", &r->write, &r->write_req, len, diag)))
    return rc;
  if (r->read_req == REUSE_MAY)
    return tsl_diag_set(diag, TSL_EINVALID, "%s: reuse_read_req may is not supported (as in "
                        "TVM); use no or must", who);
  return TSL_OK;
}

static int mlt_create(void *ud, const tsl_rule_target *t, uint32_t n, const tsl_kv *opts,
                      tsl_sch_rule **out, tsl_diag *diag) {
  (void)ud;
  (void)t;
  mlt_rule r;
  mlt_defaults(&r);
  int rc = rule_parse_opts("MultiLevelTiling", mlt_opts, mlt_n_opts, n, opts, &r, diag);
  if (rc || (rc = mlt_finish("MultiLevelTiling", &r, diag)))
    return rc;
  *out = malloc(sizeof **out);
  if (!*out)
    return tsl_diag_set(diag, TSL_ENOMEM, "MultiLevelTiling: out of memory");
  (*out)->r = r;
  return TSL_OK;
}

static void mlt_destroy(tsl_sch_rule *r) { free(r); }

/* ---- states ---------------------------------------------------------------- */

void mlt_states_free(states *ss) {
  for (uint32_t i = 0; i < ss->n; i++) {
    tsl_schedule_free(ss->s[i]->sch);
    free(ss->s[i]);
  }
  ss->n = 0;
}

int mlt_states_push(states *ss, state *s, tsl_diag *diag) {
  if (ss->n == MAX_STATES) {
    tsl_schedule_free(s->sch);
    free(s);
    return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                        "MultiLevelTiling: more than %d states", MAX_STATES);
  }
  ss->s[ss->n++] = s;
  return TSL_OK;
}

state *mlt_state_copy(const state *s, tsl_diag *diag) {
  state *c = malloc(sizeof *c);
  if (!c)
    return NULL;
  *c = *s;
  if (tsl_schedule_fork(s->sch, &c->sch, diag)) {
    free(c);
    return NULL;
  }
  return c;
}

/* Push `s` when rc is TSL_OK, else drop it; rc or the push's status. */
int mlt_keep_or_drop(states *out, state *s, int rc, tsl_diag *diag) {
  if (!rc)
    return mlt_states_push(out, s, diag);
  tsl_schedule_free(s->sch);
  free(s);
  return rc;
}



/* Call returning a list of handles into out[0 .. *n). */
int mlt_call_list(tsl_schedule *sch, const char *inst, uint32_t n_args,
                     const tsl_sch_arg *args, tsl_sch_rv *out, uint32_t max, uint32_t *n,
                     tsl_diag *diag) {
  const tsl_sch_rv *outs;
  uint32_t k;
  int rc = tsl_sch_call(sch, inst, n_args, args, &outs, &k, diag);
  if (rc)
    return rc;
  if (k > max)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED, "MultiLevelTiling: %s gave %u handles, "
                        "more than the %u it handles", inst, k, max);
  memcpy(out, outs, sizeof *out * k);
  *n = k;
  return TSL_OK;
}

/* ---- TileLoopNest ------------------------------------------------------------ */

/* On a GPU (thread_warp_size set), the bounds VerifyGPUCode holds the
 * block's threads to: at least a warp when the spatial loops have more
 * than two warps of work, at most max_threads_per_block. */
static int annotate_thread_extent(const mlt_rule *r, tsl_schedule *sch, tsl_sch_rv block,
                                  int64_t product, tsl_diag *diag) {
  int64_t low = product > 2 * r->thread_warp_size ? r->thread_warp_size : 1;
  tsl_sch_arg lo[3] = {{NULL, mlt_rv(block)},
                       {NULL, mlt_str(sch, "meta_schedule.thread_extent_low_inclusive")},
                       {NULL, tsl_sv_int(low)}};
  tsl_sch_arg hi[3] = {{NULL, mlt_rv(block)},
                       {NULL, mlt_str(sch, "meta_schedule.thread_extent_high_inclusive")},
                       {NULL, tsl_sv_int(r->max_threads_per_block)}};
  int rc = tsl_sch_call(sch, "annotate", 3, lo, NULL, NULL, diag);
  return rc ? rc : tsl_sch_call(sch, "annotate", 3, hi, NULL, NULL, diag);
}

int mlt_tile_loop_nest(const mlt_rule *r, state *st, tsl_sch_rv block, int inner_spatial,
                       tsl_diag *diag) {
  tsl_schedule *sch = st->sch;
  tsl_sch_rv loops[MAX_PER_LEVEL];
  uint32_t nl;
  tsl_sch_arg a1 = {NULL, mlt_rv(block)};
  int rc = mlt_call_list(sch, "get_loops", 1, &a1, loops, MAX_PER_LEVEL, &nl, diag);
  if (rc)
    return rc;
  const tsl_block *b = tsl_schedule_get_stmt(sch, block)->u.realize.block;
  if (nl != b->n_iter_vars)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "MultiLevelTiling: block '%s' has %u loops for %u iterators",
                        b->name, nl, b->n_iter_vars);
  st->n_levels = r->n_s + r->n_r;
  int n_spatial = 0;
  for (uint32_t i = 0; i < nl; i++)
    n_spatial += b->iter_vars[i].iter_type == TSL_ITER_SPATIAL;
  int skip = inner_spatial < 0 || inner_spatial > n_spatial ? 0 : n_spatial - inner_spatial;
  tsl_sch_rv skipped[MAX_PER_LEVEL];
  uint32_t n_skipped = 0;
  int64_t product = 1, e;
  for (uint32_t i = 0; i < nl && !rc; i++) {
    const uint32_t *idx;
    uint32_t n_tiles;
    if (b->iter_vars[i].iter_type == TSL_ITER_SPATIAL && skip > 0) {
      skip--;
      skipped[n_skipped++] = loops[i];
      continue;
    }
    if (b->iter_vars[i].iter_type == TSL_ITER_SPATIAL) {
      const tsl_stmt *ls = tsl_schedule_get_stmt(sch, loops[i]);
      product = product >= 0 && ls && tsl_expr_is_const_int(ls->u.loop.extent, &e)
                    ? product * e : -1;
      idx = r->s_idx;
      n_tiles = r->n_s;
    } else if (b->iter_vars[i].iter_type == TSL_ITER_REDUCE) {
      idx = r->r_idx;
      n_tiles = r->n_r;
    } else {
      continue;
    }
    if (!n_tiles)
      continue;
    tsl_sch_rv parts[MAX_LEVELS], factors[MAX_LEVELS];
    if (n_tiles == 1) {
      parts[0] = loops[i];
    } else {
      tsl_sch_arg sa[3] = {{"loop", mlt_rv(loops[i])},
                           {"n", tsl_sv_int(n_tiles)},
                           {"max_innermost_factor", tsl_sv_int(r->max_innermost_factor)}};
      uint32_t nf;
      rc = mlt_call_list(sch, "sample_perfect_tile", 3, sa, factors, MAX_LEVELS, &nf, diag);
      if (rc)
        break;
      tsl_sch_value fv[MAX_LEVELS];
      for (uint32_t k = 0; k < nf; k++)
        fv[k] = mlt_rv(factors[k]);
      tsl_sch_arg sp[2] = {{"loop", mlt_rv(loops[i])}, {"factors", tsl_sv_list(nf, fv)}};
      uint32_t np;
      rc = mlt_call_list(sch, "split", 2, sp, parts, MAX_LEVELS, &np, diag);
      if (rc)
        break;
    }
    for (uint32_t k = 0; k < n_tiles; k++) {
      uint32_t lv = idx[k];
      if (st->n[lv] == MAX_PER_LEVEL)
        return tsl_diag_set(diag, TSL_EUNSUPPORTED, "MultiLevelTiling: too many loops");
      st->tiles[lv][st->n[lv]++] = parts[k];
      if (n_tiles > 1) /* TVM's tile_factors */
        st->factors[lv][st->n_factors[lv]++] = factors[k];
    }
  }
  if (rc)
    return rc;
  /* reorder all tiles, level by level */
  tsl_sch_arg order[MAX_LEVELS * MAX_PER_LEVEL];
  uint32_t no = 0;
  for (uint32_t lv = 0; lv < st->n_levels; lv++)
    for (uint32_t k = 0; k < st->n[lv]; k++)
      order[no++] = (tsl_sch_arg){NULL, mlt_rv(st->tiles[lv][k])};
  if (no > 1 && (rc = tsl_sch_call(sch, "reorder", no, order, NULL, NULL, diag)))
    return rc;
  /* the untiled outer spatial loops join the first level's fuse */
  if (n_skipped && r->tile_binds[0]) {
    if (st->n[0] + n_skipped > MAX_PER_LEVEL)
      return tsl_diag_set(diag, TSL_EUNSUPPORTED, "MultiLevelTiling: too many loops");
    memmove(&st->tiles[0][n_skipped], &st->tiles[0][0], st->n[0] * sizeof(tsl_sch_rv));
    memcpy(&st->tiles[0][0], skipped, n_skipped * sizeof(tsl_sch_rv));
    st->n[0] += n_skipped;
  }
  /* bind the first levels to threads */
  char binds[RULE_STR_MAX];
  strcpy(binds, r->tile_binds);
  uint32_t lv = 0;
  for (char *tok = strtok(binds, ", "); tok && lv < st->n_levels; tok = strtok(NULL, ", "), lv++) {
    tsl_sch_arg fa[MAX_PER_LEVEL];
    for (uint32_t k = 0; k < st->n[lv]; k++)
      fa[k] = (tsl_sch_arg){NULL, mlt_rv(st->tiles[lv][k])};
    tsl_sch_rv fused;
    uint32_t nfz;
    if ((rc = mlt_call_list(sch, "fuse", st->n[lv], fa, &fused, 1, &nfz, diag)))
      return rc;
    tsl_sch_arg ba[2] = {{"loop", mlt_rv(fused)}, {"thread_axis", mlt_str(sch, tok)}};
    if ((rc = tsl_sch_call(sch, "bind", 2, ba, NULL, NULL, diag)))
      return rc;
    st->tiles[lv][0] = fused;
    st->n[lv] = 1;
  }
  return r->thread_warp_size == -1 ? TSL_OK
                                    : annotate_thread_extent(r, sch, block, product, diag);
}

/* ---- reuse ------------------------------------------------------------------- */

tsl_sch_rv mlt_last_of_level(const state *s, int64_t level) {
  return s->tiles[level - 1][s->n[level - 1] - 1];
}

int mlt_move_under(state *s, tsl_sch_rv cache, int64_t level, const char *inst,
                      tsl_diag *diag) {
  if (!s->n[level - 1])
    return tsl_diag_set(diag, TSL_EINVALID, "MultiLevelTiling: tile level %lld has no loop",
                        (long long)level);
  tsl_sch_arg a[3] = {{"block", mlt_rv(cache)},
                      {"loop", mlt_rv(mlt_last_of_level(s, level))},
                      {"preserve_unit_loops", tsl_sv_bool(1)}};
  return tsl_sch_call(s->sch, inst, 3, a, NULL, NULL, diag);
}

/* TVM's IsWriteCache: one write, every read injective and ordered against
 * it (an elementwise consumer). */
static int is_write_cache(const tsl_block *b) {
  if (b->n_writes != 1)
    return 0;
  for (uint32_t i = 0; i < b->n_reads; i++) {
    tsl_rw_pattern p;
    if (!tsl_rw_pattern_analyze(&b->reads[i], &b->writes[0], &p) || !p.injective || !p.ordered)
      return 0;
  }
  return 1;
}

int mlt_add_write_reuse(const mlt_rule *r, state *st, tsl_sch_rv block, states *out,
                           tsl_diag *diag) {
  int req = r->write_req;
  rule_ints levels = r->write.levels;
  const tsl_attr_value *ann = rule_block_ann(st->sch, block, "meta_schedule.write_cache_level");
  if (ann && ann->kind == TSL_ATTR_LIST) {
    req = REUSE_MUST;
    levels.n = 0;
    for (uint32_t i = 0; i < ann->n && levels.n < RULE_MAX_INTS; i++)
      if (ann->u.items[i].kind == TSL_ATTR_INT)
        levels.v[levels.n++] = ann->u.items[i].u.i;
  }
  if (req == REUSE_NO)
    return mlt_states_push(out, st, diag);
  int rc = TSL_OK;
  if (req == REUSE_MAY) {
    tsl_sch_arg a = {NULL, mlt_rv(block)};
    tsl_sch_rv cons[2];
    uint32_t nc = 0;
    const tsl_sch_rv *outs;
    /* recorded, as TVM's sch->GetConsumers */
    if ((rc = tsl_sch_call(st->sch, "get_consumers", 1, &a, &outs, &nc, diag)))
      return rc;
    if (nc == 1)
      cons[0] = outs[0];
    if (nc == 1 && is_write_cache(tsl_schedule_get_stmt(st->sch, cons[0])->u.realize.block)) {
      st->has_write_cache = 1;
      st->write_cache = cons[0];
      for (uint32_t i = 0; i < levels.n && !rc; i++) {
        state *c = mlt_state_copy(st, diag);
        if (!c)
          return tsl_diag_set(diag, TSL_ENOMEM, "MultiLevelTiling: out of memory");
        rc = mlt_keep_or_drop(out, c,
                          mlt_move_under(c, cons[0], levels.v[i], "reverse_compute_at", diag), diag);
      }
      return rc ? rc : mlt_states_push(out, st, diag);
    }
    state *c = mlt_state_copy(st, diag);
    if (!c || (rc = mlt_states_push(out, c, diag)))
      return c ? rc : tsl_diag_set(diag, TSL_ENOMEM, "MultiLevelTiling: out of memory");
  }
  tsl_sch_arg ca[3] = {{"block", mlt_rv(block)},
                       {"write_buffer_index", tsl_sv_int(0)},
                       {"storage_scope", mlt_str(st->sch, r->write.scope)}};
  tsl_sch_rv cache;
  uint32_t n1;
  if ((rc = mlt_call_list(st->sch, "cache_write", 3, ca, &cache, 1, &n1, diag)))
    return rc;
  st->has_write_cache = 1;
  st->write_cache = cache;
  for (uint32_t i = 0; i < levels.n && !rc; i++) {
    state *c = mlt_state_copy(st, diag);
    if (!c)
      return tsl_diag_set(diag, TSL_ENOMEM, "MultiLevelTiling: out of memory");
    rc = mlt_keep_or_drop(out, c, mlt_move_under(c, cache, levels.v[i], "reverse_compute_at", diag),
                      diag);
  }
  tsl_schedule_free(st->sch);
  free(st);
  return rc;
}

/* TVM's AnnotateCooperativeFetching: vector lengths the cache's dtype
 * allows, one sampled. */
int mlt_annotate_cooperative_fetch(const mlt_rule *r, tsl_schedule *sch, tsl_sch_rv cache,
                                   tsl_diag *diag) {
  const tsl_block *cb = tsl_schedule_get_stmt(sch, cache)->u.realize.block;
  tsl_dtype dt = cb->writes[0].buffer->dtype;
  tsl_sch_value lens[RULE_MAX_INTS], probs[RULE_MAX_INTS];
  uint32_t nv = 0;
  for (uint32_t k = 0; k < r->vector_load_lens.n; k++) {
    int64_t v = r->vector_load_lens.v[k];
    int okv = dt.code == TSL_DT_FLOAT && dt.bits == 32   ? v <= 4
              : dt.code == TSL_DT_FLOAT && dt.bits == 16 ? (v == 1 || v % 2 == 0) && v <= 8
              : dt.code == TSL_DT_INT && dt.bits == 8    ? v <= 16
                                                            : 1;
    if (okv)
      lens[nv++] = tsl_sv_int(v);
  }
  if (!nv)
    return TSL_OK;
  for (uint32_t k = 0; k < nv; k++)
    probs[k] = tsl_sv_float(1.0 / nv);
  tsl_sch_arg sa[2] = {{"candidates", tsl_sv_list(nv, lens)}, {"probs", tsl_sv_list(nv, probs)}};
  tsl_sch_rv v;
  uint32_t n2;
  int rc = mlt_call_list(sch, "sample_categorical", 2, sa, &v, 1, &n2, diag);
  tsl_sch_arg aa[3] = {{NULL, mlt_rv(cache)},
                       {NULL, mlt_str(sch, "meta_schedule.cooperative_fetch")},
                       {NULL, mlt_rv(v)}};
  return rc ? rc : tsl_sch_call(sch, "annotate", 3, aa, NULL, NULL, diag);
}

int mlt_add_read_reuse(const mlt_rule *r, state *st, tsl_sch_rv block, states *out,
                          tsl_diag *diag) {
  if (r->read_req == REUSE_NO)
    return mlt_states_push(out, st, diag);
  int rc = TSL_OK;
  for (uint32_t li = 0; li < r->read.levels.n && !rc; li++) {
    state *c = mlt_state_copy(st, diag);
    if (!c)
      return tsl_diag_set(diag, TSL_ENOMEM, "MultiLevelTiling: out of memory");
    const tsl_block *b = tsl_schedule_get_stmt(c->sch, block)->u.realize.block;
    uint32_t n_reads = b->n_reads;
    int ndims[64];
    for (uint32_t i = 0; i < n_reads && i < 64; i++)
      ndims[i] = b->reads[i].buffer == b->writes[0].buffer ? -1 : (int)b->reads[i].buffer->ndim;
    for (uint32_t i = 0; i < n_reads && i < 64 && !rc; i++) {
      if (ndims[i] < 0)
        continue;
      tsl_sch_value consumers[1] = {mlt_rv(block)};
      tsl_sch_arg ca[4] = {{"block", mlt_rv(block)},
                           {"read_buffer_index", tsl_sv_int(i)},
                           {"storage_scope", mlt_str(c->sch, r->read.scope)},
                           {"consumer_blocks", tsl_sv_list(1, consumers)}};
      tsl_sch_rv cache;
      uint32_t n1;
      rc = mlt_call_list(c->sch, "cache_read", 4, ca, &cache, 1, &n1, diag);
      if (!rc)
        rc = mlt_move_under(c, cache, r->read.levels.v[li], "compute_at", diag);
      tsl_sch_rv loops[MAX_PER_LEVEL * 2];
      uint32_t nl = 0;
      tsl_sch_arg ga = {NULL, mlt_rv(cache)};
      if (!rc)
        rc = mlt_call_list(c->sch, "get_loops", 1, &ga, loops, MAX_PER_LEVEL * 2, &nl, diag);
      if (!rc && ndims[i] > 0 && (uint32_t)ndims[i] <= nl) {
        tsl_sch_arg fa[MAX_PER_LEVEL * 2];
        for (int k = 0; k < ndims[i]; k++)
          fa[k] = (tsl_sch_arg){NULL, mlt_rv(loops[nl - (uint32_t)ndims[i] + (uint32_t)k])};
        rc = tsl_sch_call(c->sch, "fuse", (uint32_t)ndims[i], fa, NULL, NULL, diag);
      }
      if (!rc && c->n_read_cache < MAX_READS) {
        c->read_cache_index[c->n_read_cache] = (int32_t)i;
        c->read_cache[c->n_read_cache++] = cache;
      }
      if (!rc)
        rc = mlt_annotate_cooperative_fetch(r, c->sch, cache, diag);
    }
    rc = mlt_keep_or_drop(out, c, rc, diag);
  }
  tsl_schedule_free(st->sch);
  free(st);
  return rc;
}

/* ---- the rule ------------------------------------------------------------------ */


/* TVM's SubRule: each state through `fn`, the results concatenated. */
int mlt_apply_sub(const mlt_rule *r, states *ss, sub_rule fn, tsl_sch_rv block,
                     tsl_diag *diag) {
  states next = {0};
  int rc = TSL_OK;
  for (uint32_t i = 0; i < ss->n; i++) {
    state *s = ss->s[i];
    ss->s[i] = NULL;
    if (rc) {
      tsl_schedule_free(s->sch);
      free(s);
    } else {
      rc = fn(r, s, block, &next, diag);
    }
  }
  ss->n = 0;
  *ss = next;
  return rc;
}

int mlt_tile_and_push(const mlt_rule *r, tsl_schedule *sch, tsl_sch_rv block,
                      tsl_schedule_list *out, tsl_diag *diag) {
  state *st = calloc(1, sizeof *st);
  if (!st) {
    tsl_schedule_free(sch);
    return tsl_diag_set(diag, TSL_ENOMEM, "MultiLevelTiling: out of memory");
  }
  st->sch = sch;
  states ss = {1, {st}};
  int rc = mlt_tile_loop_nest(r, st, block, -1, diag);
  if (!rc)
    rc = mlt_apply_sub(r, &ss, mlt_add_write_reuse, block, diag);
  if (!rc)
    rc = mlt_apply_sub(r, &ss, mlt_add_read_reuse, block, diag);
  if (rc) {
    mlt_states_free(&ss);
    return rc;
  }
  for (uint32_t i = 0; i < ss.n; i++) {
    int prc = tsl_schedule_list_push(out, ss.s[i]->sch); /* frees it on failure */
    rc = rc ? rc : prc;
    free(ss.s[i]);
  }
  return rc;
}

static int mlt_apply(tsl_sch_rule *rule, tsl_schedule *sch, tsl_sch_rv block,
                     tsl_schedule_list *out, tsl_diag *diag) {
  const mlt_rule *r = &rule->r;
  if (!tsl_sch_needs_multi_level_tiling(sch, block))
    return tsl_schedule_list_push(out, sch);
  tsl_sch_arg a[3] = {{NULL, mlt_rv(block)},
                      {NULL, mlt_str(sch, "meta_schedule.tiling_structure")},
                      {NULL, mlt_str(sch, r->structure)}};
  int rc = tsl_sch_call(sch, "annotate", 3, a, NULL, NULL, diag);
  if (rc) {
    tsl_schedule_free(sch);
    return rc;
  }
  return mlt_tile_and_push(r, sch, block, out, diag);
}

const tsl_schedule_rule_vtable rule_multi_level_tiling_vt = {
    sizeof(tsl_schedule_rule_vtable), mlt_create, mlt_destroy, mlt_apply};
