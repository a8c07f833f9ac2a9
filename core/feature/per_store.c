/*
 * The per-store features (tessel/feature.h; TVM's PerStoreFeatureCollector):
 * the walk over the structured program, groups 1 (computation), 3
 * (arithmetic intensity curve), 4 (allocation) and 5 (outer scope), and
 * the rows. Group 2 is buffer_access.c.
 */
#include "feature_internal.h"

#include "tessel/lower.h"

#include <stdio.h>
#include <string.h>

typedef struct row {
  const tsl_buffer *buf;
  int stored;           /* a non-constant store was seen */
  double *values;       /* row_len; groups 1-3 and 5 of the last store */
  int64_t outer_prod;   /* group 5's product, group 4's last value needs it */
  int has_alloc;        /* group 4 */
  int64_t alloc_size, alloc_prod, alloc_outer_prod;
} row;

/* The options with their defaults filled in, and where each group starts. */
typedef struct layout {
  int32_t per_store, samples, line, is_gpu;
} layout;

static layout layout_of(const tsl_feature_opts *o) {
  layout l = {TSL_FEATURE_BUFFERS_PER_STORE, TSL_FEATURE_CURVE_SAMPLES,
              TSL_FEATURE_CACHE_LINE_BYTES, 0};
  if (o && o->buffers_per_store > 0)
    l.per_store = o->buffers_per_store;
  if (o && o->arith_intensity_samples > 0)
    l.samples = o->arith_intensity_samples;
  if (o && o->cache_line_bytes > 0)
    l.line = o->cache_line_bytes;
  l.is_gpu = o && o->is_gpu;
  return l;
}

static uint32_t g2_at(void) { return FS_GROUP1_LEN; }
static uint32_t g3_at(const layout *l) { return FS_GROUP1_LEN + (uint32_t)l->per_store * FS_ACCESS_LEN; }
static uint32_t g4_at(const layout *l) { return g3_at(l) + (uint32_t)l->samples; }
static uint32_t g5_at(const layout *l) { return g4_at(l) + FS_GROUP4_LEN; }
static uint32_t row_len(const layout *l) { return g5_at(l) + FS_GROUP5_LEN; }

typedef struct walk {
  tsl_arena *a;
  tsl_analyzer *an;
  layout lay;
  uint32_t row_len;
  fs_nest nest;
  fs_touched touched;
  tsl_map rows; /* buffer -> row */
  tsl_vec order; /* row *, by first store */
} walk;


/* ---- group 1 ------------------------------------------------------------------ */

enum {
  F_MAD, F_ADD_SUB, F_MUL, F_DIV_MOD, F_CMP, F_MATH, F_OTHER, /* float, then int at +7 */
  N_ARITH = 16, BOOL_OP = 14, SELECT_OP = 15
};

static int has_load(const tsl_expr *e, void *ud) {
  (void)ud;
  return e->kind == TSL_EXPR_LOAD;
}

/* TVM's SimplifyForFeatureExtraction turns a select without loads into a
 * constant: it counts nothing. */
static int constant_select(const tsl_expr *e) {
  return e->kind == TSL_EXPR_SELECT && !tsl_expr_visit(e, has_load, NULL);
}

static void count_ops(const tsl_expr *e, double k, double *c) {
  if (constant_select(e))
    return;
  int base = e->dtype.code == TSL_DT_FLOAT ? 0 : 7; /* TVM's is_float(): not bfloat16 */
  switch (e->kind) {
  case TSL_EXPR_AND: case TSL_EXPR_OR: case TSL_EXPR_NOT:
    c[BOOL_OP] += k;
    break;
  case TSL_EXPR_SELECT:
    c[SELECT_OP] += k;
    break;
  case TSL_EXPR_ADD: case TSL_EXPR_SUB: case TSL_EXPR_NEG:
    c[base + F_ADD_SUB] += k;
    break;
  case TSL_EXPR_MUL:
    c[base + F_MUL] += k;
    break;
  case TSL_EXPR_DIV: case TSL_EXPR_MOD: case TSL_EXPR_FLOORDIV: case TSL_EXPR_FLOORMOD:
    c[base + F_DIV_MOD] += k;
    break;
  case TSL_EXPR_MIN: case TSL_EXPR_MAX: case TSL_EXPR_EQ: case TSL_EXPR_NE:
  case TSL_EXPR_LT: case TSL_EXPR_LE: case TSL_EXPR_GT: case TSL_EXPR_GE:
    /* by the node's own type, as TVM: a comparison (bool) counts as int */
    c[base + F_CMP] += k;
    break;
  case TSL_EXPR_CALL: case TSL_EXPR_IF_THEN_ELSE: /* pure calls */
    c[base + F_MATH] += k;
    break;
  case TSL_EXPR_CALL_EXTERN: case TSL_EXPR_BUILTIN:
    c[base + F_OTHER] += k;
    break;
  default:
    break;
  }
  for (uint32_t i = 0; i < e->n_args; i++)
    count_ops(e->args[i], k, c);
}

/* Number, product and innermost extent of the loops of one kind
 * (TVM's ForKindFeature), with the position one-hot. */
static void for_kind(const fs_nest *nest, tsl_for_kind kind, double *o) {
  const tsl_stmt *const *loops = TSL_VEC_DATA(&nest->loops, const tsl_stmt *);
  int64_t num = 0, prod = 1, len = 0, e;
  for (uint32_t i = 0; i < nest->loops.len; i++)
    if (loops[i]->u.loop.for_kind == (uint32_t)kind) {
      num++;
      if (fs_extent(loops[i], &e))
        prod *= e;
      len = fs_extent(loops[i], &e) ? e : 1;
    }
  if (!num)
    prod = 0;
  o[0] = fs_slog((double)num);
  o[1] = fs_slog((double)prod);
  o[2] = fs_slog((double)len);
  for (int p = 0; p < 8; p++) /* none, or TVM's "mixed" (7) */
    o[3 + p] = num ? p == 7 : p == 0;
}

/* The extent of the outermost loop bound to `tag` (prefix for vthread). */
static int64_t thread_extent(const fs_nest *nest, const char *tag, int prefix) {
  const tsl_stmt *const *loops = TSL_VEC_DATA(&nest->loops, const tsl_stmt *);
  for (uint32_t i = 0; i < nest->loops.len; i++) {
    const char *t = loops[i]->u.loop.thread_tag;
    if (loops[i]->u.loop.for_kind != TSL_FOR_THREAD_BINDING || !t)
      continue;
    if (prefix ? !strncmp(t, tag, strlen(tag)) : !strcmp(t, tag)) {
      int64_t e;
      return fs_extent(loops[i], &e) ? e : 1;
    }
  }
  return 1;
}

static void group1(const walk *w, const tsl_stmt *store, double *o, double *arith) {
  memset(arith, 0, N_ARITH * sizeof *arith);
  count_ops(store->u.store.value, (double)w->nest.prod, arith);
  for (int i = 0; i < N_ARITH; i++)
    o[i] = fs_slog(arith[i]);
  for_kind(&w->nest, TSL_FOR_VECTORIZED, o + 16);
  for_kind(&w->nest, TSL_FOR_UNROLLED, o + 27);
  for_kind(&w->nest, TSL_FOR_PARALLEL, o + 38);
  static const char *const tags[7] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z", "threadIdx.x",
                                      "threadIdx.y", "threadIdx.z", "vthread"};
  o[49] = w->lay.is_gpu;
  for (int t = 0; t < 7; t++)
    o[50 + t] = fs_slog(w->lay.is_gpu ? (double)thread_extent(&w->nest, tags[t], t == 6) : 1);
}

/* ---- group 3 ------------------------------------------------------------------ */

static void group3(const walk *w, const int64_t *for_touched_bytes, const double *arith,
                   double *o) {
  uint32_t n = w->nest.loops.len, ns = (uint32_t)w->lay.samples;
  const tsl_stmt *const *loops = TSL_VEC_DATA(&w->nest.loops, const tsl_stmt *);
  memset(o, 0, ns * sizeof *o);
  double total = 0;
  for (int i = 0; i < 7; i++) /* float ops */
    total += arith[i];
  total /= (double)w->nest.prod;
  double *ops = TSL_NEW_ARRAY(w->a, double, n + 1);
  double *mem = TSL_NEW_ARRAY(w->a, double, n + 1);
  for (uint32_t i = 0; i < n; i++) /* innermost first */
    mem[n - 1 - i] = (double)for_touched_bytes[i];
  for (uint32_t i = n, p = 0; i-- > 0; p++) {
    int64_t e;
    if (fs_extent(loops[i], &e))
      total *= (double)e;
    ops[p] = total;
  }
  if (total <= 0 || !n)
    return;
  total = ops[n - 1];
  uint32_t p = 0;
  for (uint32_t i = 0; i < ns; i++) {
    double cur = (double)(i + 1) / ns * total;
    while (p < n && ops[p] < cur - 1e-4)
      p++;
    if (p >= n)
      p = n - 1;
    if (p == 0) {
      o[i] = fs_slog(ops[0] / mem[0]);
    } else {
      double base = ops[p - 1] / mem[p - 1];
      double slope = (ops[p] / mem[p] - base) / (ops[p] - ops[p - 1]);
      o[i] = fs_slog(base + slope * (cur - ops[p - 1]));
    }
  }
}

/* ---- the walk ------------------------------------------------------------------- */

static row *row_of(walk *w, const tsl_buffer *b) {
  row *r = tsl_map_get(&w->rows, b);
  if (!r) {
    r = TSL_NEW(w->a, row);
    r->buf = b;
    r->values = TSL_NEW_ARRAY(w->a, double, w->row_len);
    tsl_map_put(&w->rows, b, r);
  }
  return r;
}

/* The store with its indices and value simplified under the loop ranges
 * (TVM simplifies the program before it collects features). */
static const tsl_stmt *simplified_store(walk *w, const tsl_stmt *s) {
  const tsl_stmt *const *loops = TSL_VEC_DATA(&w->nest.loops, const tsl_stmt *);
  for (uint32_t i = 0; i < w->nest.loops.len; i++)
    tsl_analyzer_bind(w->an, loops[i]->u.loop.loop_var, loops[i]->u.loop.min,
                      loops[i]->u.loop.extent);
  uint32_t n = s->u.store.n_indices;
  const tsl_expr **idx = TSL_NEW_ARRAY(w->a, const tsl_expr *, n + 1);
  for (uint32_t i = 0; i < n; i++)
    idx[i] = tsl_simplify(w->an, w->a, s->u.store.indices[i]);
  const tsl_expr *v = tsl_simplify(w->an, w->a, s->u.store.value);
  for (uint32_t i = 0; i < w->nest.loops.len; i++)
    tsl_analyzer_unbind(w->an, loops[i]->u.loop.loop_var);
  return tsl_stmt_store(w->a, s->u.store.buffer, v, n, idx);
}

static void on_store(walk *w, const tsl_stmt *s) {
  const tsl_expr *v = s->u.store.value;
  if (v->kind == TSL_EXPR_INT_IMM || v->kind == TSL_EXPR_FLOAT_IMM || constant_select(v))
    return;
  s = simplified_store(w, s);
  row *r = row_of(w, s->u.store.buffer);
  if (!r->stored) {
    r->stored = 1;
    TSL_VEC_PUSH(&w->order, row *, r);
  }
  double arith[N_ARITH];
  uint32_t n = w->nest.loops.len;
  int64_t *touched = TSL_NEW_ARRAY(w->a, int64_t, n + 1);
  group1(w, s, r->values, arith);
  fs_buffer_access(w->a, w->an, s, &w->nest, w->lay.line, w->lay.per_store, &w->touched, touched,
                   r->values + g2_at());
  group3(w, touched, arith, r->values + g3_at(&w->lay));
  const int64_t *au = TSL_VEC_DATA(&w->nest.auto_unroll, int64_t);
  double *g5 = r->values + g5_at(&w->lay);
  g5[0] = fs_slog((double)w->nest.prod);
  g5[1] = fs_slog((double)n);
  g5[2] = fs_slog(w->nest.auto_unroll.len ? (double)au[w->nest.auto_unroll.len - 1] : 0);
  r->outer_prod = w->nest.prod;
}

/* TVM's group4::Feature: the buffer's elements under the current loops. */
static void on_alloc(walk *w, const tsl_buffer *b) {
  row *r = row_of(w, b);
  int64_t numel = 1;
  for (uint32_t d = 0; d < b->ndim; d++)
    numel *= fs_dim(w->an, b->shape[d]);
  r->has_alloc = 1;
  r->alloc_size = numel * fs_elem_bytes(b);
  r->alloc_prod = numel * w->nest.prod;
  r->alloc_outer_prod = w->nest.prod;
}

static int64_t auto_unroll_of(const tsl_stmt *loop) {
  const tsl_attr_value *v =
      tsl_attrs_get(loop->u.loop.annotations, "pragma_auto_unroll_max_step");
  return v && v->kind == TSL_ATTR_INT ? v->u.i : -1;
}

static int pre(const tsl_stmt *s, void *ud) {
  walk *w = ud;
  if (s->kind == TSL_STMT_FOR) {
    int64_t e;
    TSL_VEC_PUSH(&w->nest.loops, const tsl_stmt *, s);
    if (fs_extent(s, &e))
      w->nest.prod *= e;
    int64_t au = auto_unroll_of(s);
    if (au > 0)
      TSL_VEC_PUSH(&w->nest.auto_unroll, int64_t, au);
  } else if (s->kind == TSL_STMT_STORE) {
    on_store(w, s);
  }
  return 0;
}

static int post(const tsl_stmt *s, void *ud) {
  walk *w = ud;
  if (s->kind == TSL_STMT_FOR) {
    int64_t e;
    if (fs_extent(s, &e) && e)
      w->nest.prod /= e;
    if (auto_unroll_of(s) > 0)
      w->nest.auto_unroll.len--;
    w->nest.loops.len--;
  } else if (s->kind == TSL_STMT_ALLOCATE) {
    on_alloc(w, s->u.alloc.buffer);
  }
  return 0;
}

uint32_t tsl_feature_row_len(const tsl_feature_opts *o) {
  layout l = layout_of(o);
  return row_len(&l);
}

int tsl_features_per_store(tsl_arena *arena, const tsl_func *f, const tsl_feature_opts *opts,
                           tsl_features *out, tsl_diag *diag) {
  memset(out, 0, sizeof *out);
  out->struct_size = sizeof *out;
  /* as TVM's extractor, without the weights' packing (it runs ahead of
   * the calls) */
  tsl_prepack_split sp;
  int rc = tsl_func_split_prepack(arena, f, &sp, diag);
  if (rc)
    return rc;
  const tsl_stmt *body = NULL;
  rc = tsl_lower_func_structured(arena, sp.main, &body, diag);
  if (rc)
    return rc;
  walk w;
  memset(&w, 0, sizeof w);
  w.a = arena;
  w.an = tsl_analyzer_new(tsl_arena_ctx(arena));
  w.lay = layout_of(opts);
  w.row_len = row_len(&w.lay);
  w.nest.prod = 1;
  tsl_vec_init(&w.nest.loops, sizeof(const tsl_stmt *), arena);
  tsl_vec_init(&w.nest.auto_unroll, sizeof(int64_t), arena);
  w.touched.arena = arena;
  tsl_map_init(&w.touched.loops, arena);
  tsl_map_init(&w.rows, arena);
  tsl_vec_init(&w.order, sizeof(row *), arena);
  tsl_stmt_visitor v = {.stmt = pre, .stmt_post = post, .user_data = &w};
  tsl_stmt_visit(body, &v);
  for (uint32_t i = 0; i < f->n_params; i++) /* parameters: allocated outside every loop */
    if (f->params[i].buffer && tsl_map_get(&w.rows, f->params[i].buffer))
      on_alloc(&w, f->params[i].buffer);
  uint32_t n = w.order.len;
  double *values = TSL_NEW_ARRAY(arena, double, (size_t)(n ? n : 1) * w.row_len);
  row *const *rows = TSL_VEC_DATA(&w.order, row *);
  for (uint32_t i = 0; i < n; i++) {
    const row *r = rows[i];
    double *o = values + (size_t)i * w.row_len;
    memcpy(o, r->values, w.row_len * sizeof *o);
    double *g4 = o + g4_at(&w.lay);
    int64_t outer = r->has_alloc ? r->alloc_outer_prod : 1;
    g4[0] = fs_slog(r->has_alloc ? (double)r->alloc_size : 0);
    g4[1] = fs_slog(r->has_alloc ? (double)r->alloc_prod : 0);
    g4[2] = fs_slog((double)outer);
    g4[3] = fs_slog((double)r->outer_prod / (double)outer);
  }
  tsl_analyzer_free(w.an);
  out->n_rows = n;
  out->row_len = w.row_len;
  out->values = values;
  return TSL_OK;
}

/* ---- column names ----------------------------------------------------------------- */

static const char *const g1_names[FS_GROUP1_LEN] = {
    "float_mad", "float_add_sub", "float_mul", "float_div_mod", "float_cmp", "float_math_func",
    "float_other_func", "int_mad", "int_add_sub", "int_mul", "int_div_mod", "int_cmp",
    "int_math_func", "int_other_func", "bool_op", "select_op",
#define KIND_NAMES(k)                                                                       \
  k "_num", k "_prod", k "_len", k "_pos_none", k "_pos_inner_spatial",                     \
      k "_pos_middle_spatial", k "_pos_outer_spatial", k "_pos_inner_reduce",              \
      k "_pos_middle_reduce", k "_pos_outer_reduce", k "_pos_mixed"
    KIND_NAMES("vec"), KIND_NAMES("unroll"), KIND_NAMES("parallel"),
#undef KIND_NAMES
    "is_gpu", "blockIdx_x_len", "blockIdx_y_len", "blockIdx_z_len", "threadIdx_x_len",
    "threadIdx_y_len", "threadIdx_z_len", "vthread_len"};

static const char *const g2_names[FS_ACCESS_LEN] = {
    "acc_type.read", "acc_type.write", "acc_type.read_write", "bytes", "unique_bytes", "lines",
    "unique_lines", "reuse_type.loop_multiple_read", "reuse_type.serial_multiple_read_write",
    "reuse_type.no_reuse", "reuse_dis_iter", "reuse_dis_bytes", "reuse_ct", "bytes_d_reuse_ct",
    "unique_bytes_d_reuse_ct", "lines_d_reuse_ct", "unique_lines_d_reuse_ct", "stride"};

static const char *const g45_names[FS_GROUP4_LEN + FS_GROUP5_LEN] = {
    "alloc_size", "alloc_prod", "alloc_outer_prod", "alloc_inner_prod",
    "outer_prod", "num_loops", "auto_unroll_max_step"};

const char *tsl_feature_name(const tsl_feature_opts *opts, uint32_t c, char *buf, size_t cap) {
  layout l = layout_of(opts);
  if (c < FS_GROUP1_LEN)
    return g1_names[c];
  if (c < g3_at(&l)) {
    uint32_t k = c - FS_GROUP1_LEN;
    snprintf(buf, cap, "B%u.%s", k / FS_ACCESS_LEN, g2_names[k % FS_ACCESS_LEN]);
    return buf;
  }
  if (c < g4_at(&l)) {
    snprintf(buf, cap, "arith_intensity_%u", c - g3_at(&l));
    return buf;
  }
  if (c < row_len(&l))
    return g45_names[c - g4_at(&l)];
  return NULL;
}
