/*
 * Iterator-map detection (tsl_iter_map_detect): TVM's accept/refuse verdicts
 * on binding patterns (splits, fusions, predicates, overlaps, padding), and
 * for every accepted map with constant extents a brute-force check of what
 * it promises, at each level:
 *  - every level: at each point of the iterator domain (predicate holding),
 *    index k equals its detected form evaluated split by split (and
 *    tsl_iter_sum_to_expr's expression), base + scale * t with t in
 *    [0, extent), and the padding predicate is false;
 *  - surjective, without a predicate: the indices reach every combination of
 *    their t values, except combinations only padding reaches: letting each
 *    padded iterator range over its whole padded extent, every combination
 *    is reached, and every one reached with the padded iterators at values
 *    they really take is reached by a point of the domain;
 *  - bijective: no padding, and each combination is reached once.
 * (With a predicate TVM's notion is weaker: a bound on a sum only binds
 * indices that use the sum's innermost part, so a bound on `a * 4 + b` does
 * not stop the indices `a` and `b` from counting as a map.)
 * TESSEL_ITERMAP_SEED and TESSEL_ITERMAP_N choose the random index lists.
 */
#include "tap.h"
#include "tutil.h"

static tsl_ctx *ctx;
static tsl_arena *arena;

/* An index as base + scale * t, t in [0, extent) (scale 0: a constant). */
typedef struct tsl_iter_index {
  const tsl_expr *base;
  int64_t scale;
  const tsl_expr *extent;
} tsl_iter_index;

/* tsl_iter_map_detect with each detected index written as a line (an index
 * of several splits is reported as not representable). */
static int detect(tsl_analyzer *an_, tsl_arena *a, uint32_t nx,
                  const tsl_expr *const *idx, uint32_t ni, const tsl_var *const *vars,
                  const tsl_range *doms, const tsl_expr *pred, int level,
                  tsl_iter_map *map, tsl_iter_index *out, tsl_diag *d) {
  int rc = tsl_iter_map_detect(an_, a, nx, idx, ni, vars, doms, pred,
                               (tsl_iter_map_level)level, 0, map, d);
  if (rc || !out)
    return rc;
  for (uint32_t k = 0; k < nx; k++) {
    if (!tsl_iter_sum_as_line(map->indices[k], &out[k].base, &out[k].scale,
                              &out[k].extent))
      return tsl_diag_set(d, TSL_EUNSUPPORTED, "index %u is not one split", k);
    if (!out[k].extent)
      out[k].extent = tsl_expr_int(a, out[k].base->dtype, 1);
  }
  return TSL_OK;
}
static tsl_analyzer *an;
static tu_env env;

/* "i:8 j:4" -> iterators with [0, extent) domains ("i:2:8" = [2, 10)) */
static uint32_t parse_iters(const char *spec, const tsl_var **vars,
                            tsl_range *doms, int64_t *lo, int64_t *ext) {
  uint32_t n = 0;
  char name[32];
  const char *p = spec;
  while (*p) {
    while (*p == ' ')
      p++;
    if (!*p)
      break;
    int k = 0;
    while (*p && *p != ':' && k < 31)
      name[k++] = *p++;
    name[k] = 0;
    long long a = 0, b = 0;
    int used = 0;
    if (sscanf(p, ":%lld:%lld%n", &a, &b, &used) == 2) {
      lo[n] = a;
      ext[n] = b;
    } else {
      sscanf(p, ":%lld%n", &b, &used);
      lo[n] = 0;
      ext[n] = b;
    }
    p += used;
    vars[n] = tu_var(&env, name);
    doms[n].min = tsl_expr_int(arena, env.dt, lo[n]);
    doms[n].extent = tsl_expr_int(arena, env.dt, ext[n]);
    n++;
  }
  return n;
}

/* ---- evaluating a detected map split by split ---- */

#define MAX_FREE 8

/* Marks given a value directly (the extended domain); every other mark is
 * evaluated from the input iterators in `as`. */
typedef struct ev_env {
  const tu_assign *as;
  uint32_t nfree;
  const tsl_iter_mark *free[MAX_FREE];
  int64_t fval[MAX_FREE];
} ev_env;

static int64_t cint(const tsl_expr *e) {
  int64_t v = 0;
  tsl_expr_is_const_int(e, &v);
  return v;
}
static int64_t fdiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}
static int64_t fmod_(int64_t a, int64_t b) { return a - fdiv(a, b) * b; }

static int64_t mark_val(const ev_env *ev, const tsl_iter_mark *m);
/* (source // lower_factor) % extent, without the scale */
static int64_t split_t(const ev_env *ev, const tsl_iter_split *s) {
  return fmod_(fdiv(mark_val(ev, s->source), cint(s->lower_factor)), cint(s->extent));
}
static int64_t sum_val(const ev_env *ev, const tsl_iter_sum *s) {
  int64_t v = cint(s->base);
  for (uint32_t i = 0; i < s->n; i++)
    v += split_t(ev, s->args[i]) * cint(s->args[i]->scale);
  return v;
}
static int64_t mark_val(const ev_env *ev, const tsl_iter_mark *m) {
  for (uint32_t i = 0; i < ev->nfree; i++)
    if (ev->free[i] == m)
      return ev->fval[i];
  if (m->var) {
    int64_t v = 0;
    tu_eval(m->var->ref, ev->as, &v);
    return v - (m->var_min ? cint(m->var_min) : 0);
  }
  if (m->sum)
    return sum_val(ev, m->sum);
  return split_t(ev, m->split) * cint(m->split->scale);
}

/* The marks under the indices: 0 when a part is not constant. Outermost
 * padded marks and the input marks not under them go to `free`. */
typedef struct mark_walk {
  const tsl_iter_mark *free[MAX_FREE];
  uint32_t nfree, npadded; /* padded ones first */
  const tsl_iter_mark *seen[64];
  char seen_under_pad[64];
  uint32_t nseen;
} mark_walk;

static int walk_mark(mark_walk *w, const tsl_iter_mark *m, int under_pad);
static int walk_split(mark_walk *w, const tsl_iter_split *s, int under_pad) {
  int64_t v;
  return tsl_expr_is_const_int(s->lower_factor, &v) && v > 0 &&
         tsl_expr_is_const_int(s->extent, &v) && v > 0 &&
         tsl_expr_is_const_int(s->scale, &v) && walk_mark(w, s->source, under_pad);
}
static int walk_sum(mark_walk *w, const tsl_iter_sum *s, int under_pad) {
  int64_t v;
  if (!tsl_expr_is_const_int(s->base, &v))
    return 0;
  for (uint32_t i = 0; i < s->n; i++)
    if (!walk_split(w, s->args[i], under_pad))
      return 0;
  return 1;
}
static int walk_mark(mark_walk *w, const tsl_iter_mark *m, int under_pad) {
  int64_t v;
  if (!tsl_expr_is_const_int(m->extent, &v))
    return 0;
  for (uint32_t i = 0; i < w->nseen; i++)
    if (w->seen[i] == m && (w->seen_under_pad[i] <= under_pad))
      return 1;
  if (w->nseen == 64 || w->nfree == MAX_FREE)
    return 0;
  w->seen_under_pad[w->nseen] = (char)under_pad;
  w->seen[w->nseen++] = m;
  if (!under_pad && (m->unpadded || m->var)) {
    if (m->unpadded) { /* keep the padded ones first */
      memmove(w->free + w->npadded + 1, w->free + w->npadded,
              (w->nfree - w->npadded) * sizeof *w->free);
      w->free[w->npadded++] = m;
    } else {
      w->free[w->nfree] = m;
    }
    w->nfree++;
  }
  under_pad |= m->unpadded != NULL;
  if (m->var)
    return !m->var_min || tsl_expr_is_const_int(m->var_min, &v);
  return m->sum ? walk_sum(w, m->sum, under_pad) : walk_split(w, m->split, under_pad);
}

/* The t of index k (its split's value before the scale; 0 without one). */
static int64_t index_t(const ev_env *ev, const tsl_iter_sum *s) {
  return s->n ? split_t(ev, s->args[0]) : 0;
}

/* Brute force: the promise of an accepted map with constant extents. */
static int verify(uint32_t ni, const tsl_var **vars, const int64_t *lo,
                  const int64_t *ext, const tsl_expr *pred, uint32_t nx,
                  const tsl_expr **idx, const tsl_iter_map *map,
                  const tsl_iter_index *out, int level, char *why, size_t cap) {
  int64_t exts[8], total = 1;
  mark_walk w;
  memset(&w, 0, sizeof w);
  for (uint32_t k = 0; k < nx; k++) {
    int64_t s = out[k].scale, b, e = 1;
    if (!tsl_expr_is_const_int(out[k].base, &b) ||
        (s && !tsl_expr_is_const_int(out[k].extent, &e)) ||
        !walk_sum(&w, map->indices[k], 0))
      return 1; /* symbolic: nothing to enumerate */
    exts[k] = s ? e : 1;
    total *= exts[k];
  }
  if (total > 1 << 16)
    return 1;
  const tsl_expr *as_expr[8];
  tsl_analyzer *tan = tsl_analyzer_new(ctx);
  for (uint32_t k = 0; k < nx; k++)
    as_expr[k] = tsl_iter_sum_to_expr(tan, arena, map->indices[k]);
  tsl_analyzer_free(tan);
  int64_t pext[MAX_FREE], ptotal = 1;
  for (uint32_t f = 0; f < w.nfree; f++) {
    pext[f] = cint(w.free[f]->extent);
    ptotal *= pext[f];
  }
  if (ptotal > 1 << 20)
    return 1;
  if (level == TSL_ITER_MAP_BIJECTIVE && w.npadded) {
    snprintf(why, cap, "a bijective map pads an iterator");
    return 0;
  }
  uint8_t *seen = calloc((size_t)total, 1);
  uint8_t *taken[MAX_FREE] = {0}; /* values the padded marks really take */
  for (uint32_t f = 0; f < w.npadded; f++)
    taken[f] = calloc((size_t)pext[f], 1);
  tu_assign as = {0};
  as.n = (int)ni;
  ev_env real = {&as, 0, {0}, {0}};
  int64_t pos[8] = {0};
  int ok = 1;
  for (;;) {
    for (uint32_t k = 0; k < ni; k++) {
      as.vars[k] = vars[k];
      as.vals[k] = lo[k] + pos[k];
    }
    int64_t p = 1, pad = 0;
    if (pred && !tu_eval(pred, &as, &p))
      p = 0;
    if (p) {
      int64_t cell = 0;
      for (uint32_t k = 0; k < nx && ok; k++) {
        int64_t v, v2 = 0, b = cint(out[k].base), s = out[k].scale;
        int64_t t = index_t(&real, map->indices[k]);
        int64_t sv = sum_val(&real, map->indices[k]);
        tu_eval(idx[k], &as, &v);
        tu_eval(as_expr[k], &as, &v2);
        if (v != sv || v != v2) {
          snprintf(why, cap, "index %u = %lld, but its map gives %lld and its expression %s %lld",
                   k, (long long)v, (long long)sv, tu_fmt(as_expr[k]), (long long)v2);
          ok = 0;
        } else if (s ? (v != b + s * t || t < 0 || t >= exts[k]) : v != b) {
          snprintf(why, cap, "index %u = %lld is outside base %lld + %lld * [0, %lld)",
                   k, (long long)v, (long long)b, (long long)s, (long long)exts[k]);
          ok = 0;
        }
        cell = cell * exts[k] + (s ? t : 0);
      }
      if (ok && tu_eval(map->padding_predicate, &as, &pad) && pad) {
        snprintf(why, cap, "the padding predicate %s holds at a point of the domain",
                 tu_fmt(map->padding_predicate));
        ok = 0;
      }
      for (uint32_t f = 0; f < w.npadded && ok; f++) {
        int64_t v = mark_val(&real, w.free[f]);
        if (v < 0 || v >= pext[f]) {
          snprintf(why, cap, "a padded iterator takes %lld, outside [0, %lld)", (long long)v,
                   (long long)pext[f]);
          ok = 0;
        } else {
          taken[f][v] = 1;
        }
      }
      if (ok) {
        if (seen[cell] && level == TSL_ITER_MAP_BIJECTIVE) {
          snprintf(why, cap, "two points map to the same indices");
          ok = 0;
        }
        seen[cell] = 1;
      }
    }
    uint32_t k = ni;
    while (k-- > 0 && ++pos[k] == ext[k])
      pos[k] = 0;
    if (k == (uint32_t)-1 || !ok)
      break;
  }
  if (ok && !pred && level != TSL_ITER_MAP_NO_CHECK) {
    /* the padded iterators over their whole extents */
    uint8_t *reach = calloc((size_t)total, 1);
    ev_env ext_env = {NULL, w.nfree, {0}, {0}};
    memcpy(ext_env.free, w.free, sizeof w.free);
    int64_t fp[MAX_FREE] = {0};
    for (;;) {
      int in_domain = 1;
      for (uint32_t f = 0; f < w.nfree; f++) {
        ext_env.fval[f] = fp[f];
        if (f < w.npadded && !taken[f][fp[f]])
          in_domain = 0;
      }
      int64_t cell = 0;
      for (uint32_t k = 0; k < nx; k++)
        cell = cell * exts[k] + (out[k].scale ? index_t(&ext_env, map->indices[k]) : 0);
      if (cell < 0 || cell >= total) {
        snprintf(why, cap, "the padded map leaves the index extents");
        ok = 0;
        break;
      }
      reach[cell] = 1;
      if (in_domain && !seen[cell]) {
        snprintf(why, cap, "the indices never reach combination %lld of %lld, which "
                 "the padded map reaches with values the iterators take", (long long)cell,
                 (long long)total);
        ok = 0;
        break;
      }
      uint32_t f = w.nfree;
      while (f-- > 0 && ++fp[f] == pext[f])
        fp[f] = 0;
      if (f == (uint32_t)-1)
        break;
    }
    for (int64_t c = 0; c < total && ok; c++)
      if (!reach[c]) {
        snprintf(why, cap, "the indices never reach combination %lld of %lld, not even "
                 "through padding", (long long)c, (long long)total);
        ok = 0;
      }
    free(reach);
  }
  free(seen);
  for (uint32_t f = 0; f < w.npadded; f++)
    free(taken[f]);
  return ok;
}

static const char *level_name(int level) {
  return level == TSL_ITER_MAP_BIJECTIVE    ? "bijective"
         : level == TSL_ITER_MAP_SURJECTIVE ? "surjective"
                                            : "no-check";
}

static void check(const char *iters, const char *pred_src, const char *indices,
                  int level, int want) {
  const tsl_var *vars[8];
  tsl_range doms[8];
  int64_t lo[8], ext[8];
  uint32_t ni = parse_iters(iters, vars, doms, lo, ext);
  const tsl_expr *idx[8];
  uint32_t nx = 0;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", indices);
  for (char *t = strtok(buf, ";"); t; t = strtok(NULL, ";"))
    idx[nx++] = tu_parse(&env, t);
  const tsl_expr *pred = pred_src ? tu_parse(&env, pred_src) : NULL;
  tsl_iter_index out[8];
  tsl_iter_map map;
  tsl_diag d = {0};
  int rc = detect(an, arena, nx, idx, ni, vars, doms, pred, level, &map, out, &d);
  const char *lv = level_name(level);
  ok((rc == TSL_OK) == want, "[%s] %s%s%s: %s", indices, iters,
     pred_src ? " where " : "", pred_src ? pred_src : "",
     want ? lv : "refused");
  if ((rc == TSL_OK) != want)
    tap_diag("got %s: %s", rc ? "refused" : "accepted", d.text);
  if (rc == TSL_OK) {
    char why[256] = "";
    int good = verify(ni, vars, lo, ext, pred, nx, idx, &map, out, level, why, sizeof why);
    ok(good, "[%s] brute force agrees with the map", indices);
    if (!good)
      tap_diag("%s", why);
  } else if (want == 0) {
    ok(d.text[0] != 0, "[%s] refusal says why: %s", indices, d.text);
  }
}

/* Random index lists over small iterators: whatever is accepted must keep
 * the promise (brute force). */
static uint64_t rng = 12345;
static uint32_t below(uint32_t n) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)((rng >> 33) % n);
}

static void rand_expr(char *out, size_t cap, int depth) {
  static const char *vars[] = {"a", "b", "c"};
  static const int consts[] = {1, 2, 3, 4, 6, 8};
  char x[256], y[256];
  switch (depth > 2 ? 0 : below(7)) {
  case 0: snprintf(out, cap, "%s", vars[below(3)]); return;
  case 1:
    rand_expr(x, sizeof x, depth + 1);
    snprintf(out, cap, "(%.100s) * %d", x, consts[below(6)]);
    return;
  case 2:
  case 3:
    rand_expr(x, sizeof x, depth + 1);
    rand_expr(y, sizeof y, depth + 1);
    snprintf(out, cap, "%.100s + %.100s", x, y);
    return;
  case 4:
    rand_expr(x, sizeof x, depth + 1);
    snprintf(out, cap, "(%.100s) // %d", x, consts[below(6)]);
    return;
  case 5:
    rand_expr(x, sizeof x, depth + 1);
    snprintf(out, cap, "(%.100s) %% %d", x, consts[below(6)]);
    return;
  default:
    rand_expr(x, sizeof x, depth + 1);
    snprintf(out, cap, "%.100s + %d", x, consts[below(6)]);
    return;
  }
}

static void random_maps(int n, uint64_t seed) {
  rng = seed;
  static const int exts[] = {1, 2, 3, 4, 6, 8};
  int accepted[3] = {0}, bad = 0;
  for (int t = 0; t < n; t++) {
    char iters[64];
    snprintf(iters, sizeof iters, "a:%d b:%d c:%d", exts[below(6)], exts[below(6)],
             exts[below(6)]);
    const tsl_var *vars[3];
    tsl_range doms[3];
    int64_t lo[3], ext[3];
    parse_iters(iters, vars, doms, lo, ext);
    uint32_t nx = 1 + below(3);
    const tsl_expr *idx[3];
    char src[3][256];
    for (uint32_t k = 0; k < nx; k++) {
      rand_expr(src[k], sizeof src[k], 0);
      idx[k] = tu_parse(&env, src[k]);
    }
    const tsl_expr *pred = NULL;
    char psrc[300] = "";
    if (below(4) == 0) {
      rand_expr(psrc, 256, 1);
      snprintf(psrc + strlen(psrc), sizeof psrc - strlen(psrc), " < %d", 1 + (int)below(20));
      pred = tu_parse(&env, psrc);
    }
    static const int levels[3] = {TSL_ITER_MAP_NO_CHECK, TSL_ITER_MAP_SURJECTIVE,
                                  TSL_ITER_MAP_BIJECTIVE};
    uint32_t li = below(3);
    int level = levels[li];
    tsl_iter_index out[3];
    tsl_iter_map map;
    if (detect(an, arena, nx, idx, 3, vars, doms, pred, level, &map, out, NULL))
      continue;
    accepted[li]++;
    char why[512] = "";
    if (!verify(3, vars, lo, ext, pred, nx, idx, &map, out, level, why, sizeof why)) {
      if (bad++ < 10)
        tap_diag("%s %s [%s; %s; %s] where %s: %s", level_name(level), iters, src[0],
                 nx > 1 ? src[1] : "", nx > 2 ? src[2] : "", psrc, why);
    }
  }
  ok(bad == 0,
     "%d random index lists (seed %llu), accepted %d no-check, %d surjective, %d "
     "bijective, every accepted one keeps its promise",
     n, (unsigned long long)seed, accepted[0], accepted[1], accepted[2]);
}

#define S TSL_ITER_MAP_SURJECTIVE
#define B TSL_ITER_MAP_BIJECTIVE

int main(void) {
  ctx = tsl_ctx_new();
  arena = tsl_arena_new(ctx);
  an = tsl_analyzer_new(ctx);
  env.a = arena;
  env.dt = TSL_INT32;

  /* plain iterators, offsets, unit iterators */
  check("i:8 j:4", NULL, "i;j", B, 1);
  check("i:8 j:4", NULL, "j;i", B, 1);
  check("i:8 j:4", NULL, "i + 3;j", B, 1);
  check("i:2:8 j:4", NULL, "i;j", B, 1);
  check("i:8 u:1", NULL, "i", B, 1);
  check("i:8 j:4", NULL, "i", B, 0);  /* j unused */
  check("i:8 j:4", NULL, "i", S, 1);
  check("i:8 j:4", NULL, "i;i", S, 0); /* duplicate */
  check("i:8 j:4", NULL, "i;i + 1", S, 0);
  /* fusion and splitting */
  check("i:8 j:4", NULL, "i * 4 + j", B, 1);
  check("i:8 j:4", NULL, "j + i * 4", B, 1);
  check("i:8 j:4 k:2", NULL, "i * 8 + j * 2 + k", B, 1);
  check("i:8 j:4", NULL, "i * 5 + j", S, 0);  /* gap: not surjective */
  check("i:8 j:4", NULL, "i * 3 + j", S, 1);  /* overlap, surjective */
  check("i:8 j:4", NULL, "i * 3 + j", B, 0);
  check("i:8", NULL, "i * 16", S, 1);         /* a map, scale 16 */
  check("f:32", NULL, "f // 4;f % 4", B, 1);
  check("f:32", NULL, "f % 4;f // 4", B, 1);
  check("f:32", NULL, "f // 4", S, 1);
  check("f:32", NULL, "f // 4", B, 0);
  check("f:32", NULL, "f // 8;f % 4", S, 1);  /* skips the middle part */
  check("f:32", NULL, "f // 4;f % 8", S, 0);  /* overlapping parts */
  check("f:32", NULL, "f // 3", S, 1);        /* padded: the whole iterator */
  check("f:30", NULL, "f // 4", S, 1);        /* and its only use */
  check("f:30", NULL, "f // 4;f % 4", S, 0);
  /* where TVM's rewrite gives a different value, refused or kept exact */
  check("b:8", NULL, "(b % 4) % 8", B, 0);     /* TVM: b % 8 */
  check("b:8", NULL, "(b % 4) % 8", S, 1);     /* b % 4 itself */
  check("b:8", NULL, "(b % 4) % 3", S, 0);     /* TVM: b % 3 */
  check("b:8", NULL, "(b % 4) % 2", S, 1);     /* b % 2 */
  check("c:6", NULL, "(c + 8) % 6", B, 0);     /* TVM: c */
  check("c:6", NULL, "(c + 8) % 6", S, 1);     /* c padded by 2 */
  check("c:6", NULL, "(c + 3) // 6", B, 0);    /* TVM: 0 */
  check("b:8", NULL, "(b + 1) // 4;b % 4", S, 0);  /* TVM: (b + 1) % 4 */
  check("b:14", NULL, "(b + 1) % 4;((b + 1) // 4) % 2", S, 1);
  check("b:14", NULL, "(b + 5) % 4;((b + 1) // 4) % 2", S, 1); /* the same padding */
  check("b:14", NULL, "b % 4;((b + 1) // 4) % 2", S, 0);
  check("i:4 j:8", NULL, "(i * 8 + j) // 4;(i * 8 + j) % 4", B, 1);
  check("i:4 j:8", NULL, "(i * 8 + j) // 4;j % 4", S, 0); /* j used twice */
  check("i:4 j:8", NULL, "i * 2 + j // 4;j % 4", B, 1);
  check("i:8 j:4", NULL, "i * j", S, 0);
  check("i:8 j:4", NULL, "i * i + j", S, 0);
  check("i:8 j:4", NULL, "i - j", S, 0);
  check("i:8", NULL, "7 - i", S, 1);          /* one decreasing iterator */
  check("i:8 j:4", NULL, "i * 4 - j", S, 0);
  /* predicates */
  check("i:8 j:4", "i * 4 + j < 30", "i * 4 + j", B, 1);
  check("i:8 j:4", "i * 4 + j < 30", "i * 4 + j", S, 1);
  check("i:8 j:4", "i * 4 + j < 30", "i;j", S, 0);     /* part of the sum */
  check("i:8 j:4", "i * 4 + j < 30", "(i * 4 + j) // 2;(i * 4 + j) % 2", S, 1);
  check("i:8 j:4", "i < 5", "i;j", B, 1);
  check("i:8 j:4", "2 <= i", "i;j", B, 1);
  check("i:8 j:4", "1 <= i * 4 + j and i * 4 + j < 30", "i * 4 + j", S, 1);
  check("i:8 j:4", "i != 3", "i;j", S, 0);
  check("a:4 b:4 c:4", "a * 10 + b * 4 + c < 35 and b * 4 + c < 10",
        "a * 10 + b * 4 + c", S, 1);          /* nested bounds */
  check("a:4 b:4 c:4", "a * 16 + b * 4 + c < 50 and b * 4 + c < 10",
        "a * 16 + b * 4 + c", S, 0);          /* a gap after the inner bound */
  check("a:4 b:4 c:4", "a * 4 + b < 10 and b * 4 + c < 10",
        "a * 16 + b * 4 + c", S, 0);           /* overlapping bounds */
  /* a bounded iterator's free part is a constant */
  check("i:8", "n * 4 + i < 30", "i", S, 1);
  /* symbolic: extents and bases */
  {
    const tsl_var *vars[2] = {tu_var(&env, "p"), tu_var(&env, "q")};
    const tsl_var *n = tu_var(&env, "n");
    tsl_range doms[2] = {{tsl_expr_int(arena, env.dt, 0), n->ref},
                         {tsl_expr_int(arena, env.dt, 0), tsl_expr_int(arena, env.dt, 4)}};
    const tsl_expr *idx[2] = {tu_parse(&env, "p * 4 + q + m"), tu_parse(&env, "q")};
    tsl_diag d = {0};
    tsl_iter_index out[2];
    tsl_iter_map map;
    ok(detect(an, arena, 1, idx, 2, vars, doms, NULL, B, &map, out, &d) == TSL_OK &&
           out[0].scale == 1,
       "symbolic extent and base: p * 4 + q + m is a map (%s)", d.text);
    ok(detect(an, arena, 2, idx, 2, vars, doms, NULL, S, &map, out, &d) != TSL_OK,
       "q used twice is refused");
    tsl_range bad[2] = {{tsl_expr_int(arena, env.dt, 0), vars[1]->ref}, doms[1]};
    ok(detect(an, arena, 1, idx, 2, vars, bad, NULL, S, &map, out, &d) != TSL_OK,
       "a range that uses another iterator is refused: %s", d.text);
  }
  /* the analyzer's own bindings are restored */
  {
    const tsl_var *v = tu_var(&env, "r");
    tsl_analyzer_bind(an, v, tsl_expr_int(arena, env.dt, 0), tsl_expr_int(arena, env.dt, 100));
    tsl_range dom = {tsl_expr_int(arena, env.dt, 0), tsl_expr_int(arena, env.dt, 4)};
    const tsl_expr *idx = v->ref;
    tsl_iter_map map;
    detect(an, arena, 1, &idx, 1, &v, &dom, NULL, S, &map, NULL, NULL);
    int64_t lo = 0, hi = 0;
    tsl_analyzer_const_bound(an, v->ref, &lo, &hi);
    ok(lo == 0 && hi == 99, "bindings restored (r in [%lld, %lld])", (long long)lo,
       (long long)hi);
  }
  const char *seed_env = getenv("TESSEL_ITERMAP_SEED");
  const char *n_env = getenv("TESSEL_ITERMAP_N");
  random_maps(n_env ? atoi(n_env) : 20000,
              seed_env ? strtoull(seed_env, NULL, 10) : 12345);
  tsl_analyzer_free(an);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return tap_done();
}
