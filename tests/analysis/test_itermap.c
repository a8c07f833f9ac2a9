/*
 * Iterator-map detection (tsl_iter_map_detect): TVM's accept/refuse verdicts
 * on binding patterns (splits, fusions, predicates, overlaps, padding), and
 * for every accepted map with constant extents a brute-force check of what
 * it promises: over the iterator domain (predicate holding), index k takes
 * only the values base + scale * t, t in [0, extent), and without a
 * predicate the indices reach every combination of those values
 * (surjective), each once when bijective. (With a predicate TVM's notion is
 * weaker: a bound on a sum only binds indices that use the sum's innermost
 * part, so a bound on `a * 4 + b` does not stop the indices `a` and `b`
 * from counting as a map.)
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
                  tsl_iter_index *out, tsl_diag *d) {
  tsl_iter_map map;
  int rc = tsl_iter_map_detect(an_, a, nx, idx, ni, vars, doms, pred,
                               (tsl_iter_map_level)level, 0, &map, d);
  if (rc || !out)
    return rc;
  for (uint32_t k = 0; k < nx; k++) {
    if (!tsl_iter_sum_as_line(map.indices[k], &out[k].base, &out[k].scale,
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

/* Brute force: the promise of an accepted map with constant extents. */
static int verify(uint32_t ni, const tsl_var **vars, const int64_t *lo,
                  const int64_t *ext, const tsl_expr *pred, uint32_t nx,
                  const tsl_expr **idx, const tsl_iter_index *out, int bij,
                  char *why, size_t cap) {
  int64_t exts[8], total = 1;
  for (uint32_t k = 0; k < nx; k++) {
    int64_t s = out[k].scale, b, e = 1;
    if (!tsl_expr_is_const_int(out[k].base, &b) ||
        (s && !tsl_expr_is_const_int(out[k].extent, &e)))
      return 1; /* symbolic: nothing to enumerate */
    exts[k] = s ? e : 1;
    total *= exts[k];
  }
  if (total > 1 << 16)
    return 1;
  uint8_t *seen = calloc((size_t)total, 1);
  tu_assign as = {0};
  as.n = (int)ni;
  int64_t pos[8] = {0}, points = 0;
  int ok = 1;
  for (;;) {
    for (uint32_t k = 0; k < ni; k++) {
      as.vars[k] = vars[k];
      as.vals[k] = lo[k] + pos[k];
    }
    int64_t p = 1;
    if (pred && !tu_eval(pred, &as, &p))
      p = 0;
    if (p) {
      int64_t cell = 0;
      for (uint32_t k = 0; k < nx && ok; k++) {
        int64_t v, b, t = 0;
        tu_eval(idx[k], &as, &v);
        tsl_expr_is_const_int(out[k].base, &b);
        int64_t s = out[k].scale;
        if (s ? ((v - b) % s != 0 || (t = (v - b) / s) < 0 || t >= exts[k]) : v != b) {
          snprintf(why, cap, "index %u = %lld is outside base %lld + %lld * [0, %lld)",
                   k, (long long)v, (long long)b, (long long)s, (long long)exts[k]);
          ok = 0;
        }
        cell = cell * exts[k] + t;
      }
      if (ok) {
        if (seen[cell] && bij) {
          snprintf(why, cap, "two points map to the same indices");
          ok = 0;
        }
        seen[cell] = 1;
        points++;
      }
    }
    uint32_t k = ni;
    while (k-- > 0 && ++pos[k] == ext[k])
      pos[k] = 0;
    if (k == (uint32_t)-1 || !ok)
      break;
  }
  for (int64_t c = 0; c < total && ok && !pred; c++)
    if (!seen[c]) {
      snprintf(why, cap, "the indices never reach combination %lld of %lld",
               (long long)c, (long long)total);
      ok = 0;
    }
  free(seen);
  (void)points;
  return ok;
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
  tsl_diag d = {0};
  int rc = detect(an, arena, nx, idx, ni, vars, doms, pred,
                               (uint32_t)level, out, &d);
  const char *lv = level == TSL_ITER_MAP_BIJECTIVE ? "bijective" : "surjective";
  ok((rc == TSL_OK) == want, "[%s] %s%s%s: %s", indices, iters,
     pred_src ? " where " : "", pred_src ? pred_src : "",
     want ? lv : "refused");
  if ((rc == TSL_OK) != want)
    tap_diag("got %s: %s", rc ? "refused" : "accepted", d.text);
  if (rc == TSL_OK) {
    char why[256] = "";
    int good = verify(ni, vars, lo, ext, pred, nx, idx, out,
                      level == TSL_ITER_MAP_BIJECTIVE, why, sizeof why);
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
  switch (depth > 2 ? 0 : below(6)) {
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
  default:
    rand_expr(x, sizeof x, depth + 1);
    snprintf(out, cap, "(%.100s) %% %d", x, consts[below(6)]);
    return;
  }
}

static void random_maps(int n) {
  static const int exts[] = {1, 2, 3, 4, 6, 8};
  int accepted = 0, bad = 0;
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
    int level = below(2) ? TSL_ITER_MAP_BIJECTIVE : TSL_ITER_MAP_SURJECTIVE;
    tsl_iter_index out[3];
    if (detect(an, arena, nx, idx, 3, vars, doms, pred, level, out,
                            NULL))
      continue;
    accepted++;
    char why[256] = "";
    if (!verify(3, vars, lo, ext, pred, nx, idx, out, level == TSL_ITER_MAP_BIJECTIVE, why,
                sizeof why)) {
      if (bad++ < 10)
        tap_diag("%s %s [%s; %s; %s] where %s: %s", level ? "bijective" : "surjective", iters,
                 src[0], nx > 1 ? src[1] : "", nx > 2 ? src[2] : "", psrc, why);
    }
  }
  ok(bad == 0, "%d random index lists, %d accepted, every accepted one is a map", n,
     accepted);
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
    ok(detect(an, arena, 1, idx, 2, vars, doms, NULL, B, out, &d) == TSL_OK &&
           out[0].scale == 1,
       "symbolic extent and base: p * 4 + q + m is a map (%s)", d.text);
    ok(detect(an, arena, 2, idx, 2, vars, doms, NULL, S, out, &d) != TSL_OK,
       "q used twice is refused");
    tsl_range bad[2] = {{tsl_expr_int(arena, env.dt, 0), vars[1]->ref}, doms[1]};
    ok(detect(an, arena, 1, idx, 2, vars, bad, NULL, S, out, &d) != TSL_OK,
       "a range that uses another iterator is refused: %s", d.text);
  }
  /* the analyzer's own bindings are restored */
  {
    const tsl_var *v = tu_var(&env, "r");
    tsl_analyzer_bind(an, v, tsl_expr_int(arena, env.dt, 0), tsl_expr_int(arena, env.dt, 100));
    tsl_range dom = {tsl_expr_int(arena, env.dt, 0), tsl_expr_int(arena, env.dt, 4)};
    const tsl_expr *idx = v->ref;
    detect(an, arena, 1, &idx, 1, &v, &dom, NULL, S, NULL, NULL);
    int64_t lo = 0, hi = 0;
    tsl_analyzer_const_bound(an, v->ref, &lo, &hi);
    ok(lo == 0 && hi == 99, "bindings restored (r in [%lld, %lld])", (long long)lo,
       (long long)hi);
  }
  random_maps(20000);
  tsl_analyzer_free(an);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return tap_done();
}
