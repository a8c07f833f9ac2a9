/*
 * Iterator maps (tsl_iter_map_detect / _inverse / _sum_to_expr): fused and
 * split indices are recognized at each check level, maps that are not
 * affine or whose splits overlap are refused with a reason, and every
 * inverse found is checked by brute force: for each point of the iterators'
 * domains, the inverse applied to the index values gives the point back.
 * Printed inverses are compared with the forms TVM builds.
 */
#include "tap.h"
#include "tutil.h"

static tsl_ctx *ctx;
static tsl_arena *A;
static tu_env env;

typedef struct spec {
  const char *name;
  int64_t min, ext;
} spec;

typedef struct mapped {
  int rc;
  tsl_iter_map map;
  uint32_t n_iters;
  const tsl_var *iters[8];
  int64_t mins[8], exts[8];
  uint32_t n_idx;
  const tsl_expr *idx[8];
  char why[512];
} mapped;

/* indices: ';'-separated; iters: name/min/extent triples. */
static mapped detect(const char *indices, const spec *iters, uint32_t n,
                     const char *pred, tsl_iter_map_level level) {
  mapped m;
  memset(&m, 0, sizeof m);
  tsl_range doms[8];
  for (uint32_t k = 0; k < n; k++) {
    m.iters[k] = tu_var(&env, iters[k].name);
    m.mins[k] = iters[k].min;
    m.exts[k] = iters[k].ext;
    doms[k].min = tsl_expr_int(A, TSL_INT32, iters[k].min);
    doms[k].extent = tsl_expr_int(A, TSL_INT32, iters[k].ext);
  }
  m.n_iters = n;
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", indices);
  for (char *s = strtok(buf, ";"); s; s = strtok(NULL, ";"))
    m.idx[m.n_idx++] = tu_parse(&env, s);
  tsl_analyzer *an = tsl_analyzer_new(ctx);
  static tsl_diag d;
  memset(&d, 0, sizeof d);
  m.rc = tsl_iter_map_detect(an, A, m.n_idx, m.idx, n, m.iters, doms,
                             pred ? tu_parse(&env, pred) : NULL, level, 0,
                             &m.map, &d);
  memcpy(m.why, d.text, sizeof m.why - 1);
  tsl_analyzer_free(an);
  return m;
}

/* Inverse over outputs p0, p1, ...; brute force over the domain (and the
 * predicate, when given). Returns the inverse of iterator `show` printed. */
static const char *check_inverse(const char *what, const mapped *m,
                                 const char *pred, int show) {
  const tsl_expr *outs[8];
  tu_assign as;
  memset(&as, 0, sizeof as);
  for (uint32_t i = 0; i < m->n_idx; i++) {
    char name[8];
    snprintf(name, sizeof name, "p%u", i);
    outs[i] = tsl_expr_var(tu_var(&env, name));
  }
  uint32_t nv = 0;
  const tsl_var **vars = NULL;
  const tsl_expr **vals = NULL;
  static tsl_diag d;
  int rc = tsl_iter_map_inverse(A, m->map.n, m->map.indices, outs, &nv, &vars,
                                &vals, &d);
  if (!ok(rc == TSL_OK, "%s: inverse exists", what)) {
    tap_diag("  %s", d.text);
    return "";
  }
  const tsl_expr *pe = pred ? tu_parse(&env, pred) : NULL;
  int64_t cur[8];
  for (uint32_t k = 0; k < m->n_iters; k++)
    cur[k] = m->mins[k];
  int bad = 0;
  long points = 0;
  for (;;) {
    tu_assign pt;
    memset(&pt, 0, sizeof pt);
    for (uint32_t k = 0; k < m->n_iters; k++) {
      pt.vars[pt.n] = m->iters[k];
      pt.vals[pt.n++] = cur[k];
    }
    int64_t keep = 1;
    if (pe)
      tu_eval(pe, &pt, &keep);
    if (keep) {
      tu_assign out;
      memset(&out, 0, sizeof out);
      for (uint32_t i = 0; i < m->n_idx; i++) {
        out.vars[out.n] = outs[i]->u.var;
        tu_eval(m->idx[i], &pt, &out.vals[out.n++]);
      }
      for (uint32_t v = 0; v < nv; v++) {
        int64_t got = 0, want = 0;
        tu_eval(vals[v], &out, &got);
        for (uint32_t k = 0; k < m->n_iters; k++)
          if (m->iters[k] == vars[v])
            want = cur[k];
        if (got != want && !bad++)
          tap_diag("  %s = %s gives %lld, want %lld", vars[v]->name,
                   tu_fmt(vals[v]), (long long)got, (long long)want);
      }
      points++;
    }
    uint32_t k = 0;
    for (; k < m->n_iters; k++) {
      if (++cur[k] < m->mins[k] + m->exts[k])
        break;
      cur[k] = m->mins[k];
    }
    if (k == m->n_iters)
      break;
  }
  ok(!bad && points > 0, "%s: inverse recovers all %ld points", what, points);
  for (uint32_t v = 0; v < nv; v++)
    if (vars[v] == m->iters[show])
      return tu_fmt(vals[v]);
  return "(not inverted)";
}

int main(void) {
  ctx = tsl_ctx_new();
  A = tsl_arena_new(ctx);
  env.a = A;
  env.dt = TSL_INT32;

  /* a 4-d index flattened and split into two (TVM's affine-load case) */
  spec ijkl[4] = {{"i", 0, 8}, {"j", 0, 32}, {"k", 0, 8}, {"l", 0, 8}};
  mapped m = detect("(((i*32 + j)*8 + k)*8 + l) // 128;(((i*32 + j)*8 + k)*8 + l) % 128",
                    ijkl, 4, NULL, TSL_ITER_MAP_NO_CHECK);
  if (ok(m.rc == TSL_OK, "fused then split: detected"))
    is_str(check_inverse("fused then split", &m, NULL, 0), "(p1 + p0 * 128) // 2048",
           "fused then split: i as TVM writes it");
  m = detect("(((i*32 + j)*8 + k)*8 + l) // 128;(((i*32 + j)*8 + k)*8 + l) % 128",
             ijkl, 4, NULL, TSL_ITER_MAP_BIJECTIVE);
  ok(m.rc == TSL_OK, "fused then split: bijective");
  is_str(check_inverse("fused then split (k)", &m, NULL, 2),
         "(p1 + p0 * 128) // 8 % 8", "fused then split: k");

  /* fused pair, plain var, unit iterator unused */
  spec ijk[3] = {{"i", 0, 8}, {"j", 0, 16}, {"k", 0, 128}};
  m = detect("i * 16 + j;k", ijk, 3, NULL, TSL_ITER_MAP_BIJECTIVE);
  if (ok(m.rc == TSL_OK, "fuse of two: detected")) {
    is_str(check_inverse("fuse of two", &m, NULL, 0), "p0 // 16", "fuse: i");
    is_str(check_inverse("fuse of two (j)", &m, NULL, 1), "p0 % 16", "fuse: j");
  }

  /* transposed plain iterators are bijective */
  spec xy[2] = {{"x", 0, 8}, {"y", 0, 6}};
  m = detect("y;x", xy, 2, NULL, TSL_ITER_MAP_BIJECTIVE);
  ok(m.rc == TSL_OK, "transpose: bijective");
  is_str(check_inverse("transpose", &m, NULL, 0), "p1", "transpose: x = p1");

  /* split and reordered, TVM's own examples */
  m = detect("x // 4;x % 4;y", xy, 2, NULL, TSL_ITER_MAP_BIJECTIVE);
  ok(m.rc == TSL_OK, "[x // 4, x % 4, y]: bijective");
  check_inverse("[x // 4, x % 4, y]", &m, NULL, 0);
  m = detect("x;x + 1;y", xy, 2, NULL, TSL_ITER_MAP_BIJECTIVE);
  ok(m.rc != TSL_OK, "[x, x + 1, y]: not bijective (%s)", m.why);
  m = detect("x // 4;x % 4", xy, 2, NULL, TSL_ITER_MAP_BIJECTIVE);
  ok(m.rc != TSL_OK, "[x // 4, x % 4]: not bijective, y unused");
  m = detect("x // 4;x % 4", xy, 2, NULL, TSL_ITER_MAP_SURJECTIVE);
  ok(m.rc == TSL_OK, "[x // 4, x % 4]: surjective");

  /* overlapping splits are refused even without checks */
  spec v16[1] = {{"v", 0, 16}};
  m = detect("v // 4;v // 2", v16, 1, NULL, TSL_ITER_MAP_NO_CHECK);
  ok(m.rc != TSL_OK, "[v // 4, v // 2]: overlapping splits refused");
  m = detect("v;v", v16, 1, NULL, TSL_ITER_MAP_NO_CHECK);
  ok(m.rc != TSL_OK, "[v, v]: the same split twice refused");

  /* not affine */
  m = detect("min(v, 3)", v16, 1, NULL, TSL_ITER_MAP_NO_CHECK);
  ok(m.rc != TSL_OK && strstr(m.why, "min"), "min(v, 3) refused: %s", m.why);
  m = detect("x * y", xy, 2, NULL, TSL_ITER_MAP_NO_CHECK);
  ok(m.rc != TSL_OK && strstr(m.why, "multiplies two iterators"),
     "x * y refused: %s", m.why);

  /* padding: a 127-range split by 16 */
  spec i127[1] = {{"i", 0, 127}};
  m = detect("i // 16;i % 16", i127, 1, NULL, TSL_ITER_MAP_NO_CHECK);
  if (ok(m.rc == TSL_OK, "padded split: detected")) {
    ok(!(m.map.padding_predicate->kind == TSL_EXPR_INT_IMM &&
         m.map.padding_predicate->u.int_value == 0),
       "padded split: padding predicate %s", tu_fmt(m.map.padding_predicate));
    is_str(check_inverse("padded split", &m, NULL, 0), "p1 + p0 * 16",
           "padded split: i");
  }
  m = detect("i // 16;i % 16", i127, 1, NULL, TSL_ITER_MAP_BIJECTIVE);
  ok(m.rc != TSL_OK, "padded split: not bijective");

  /* an injective 2-d load of a tiled buffer (TVM's over-computed case) */
  spec cc[2] = {{"ci", 0, 127}, {"cj", 0, 127}};
  m = detect("ci // 16;cj // 16;ci % 16;cj % 16", cc, 2, NULL, TSL_ITER_MAP_NO_CHECK);
  if (ok(m.rc == TSL_OK, "tiled load: detected"))
    is_str(check_inverse("tiled load", &m, NULL, 0), "p2 + p0 * 16",
           "tiled load: ci");

  /* a nonzero min */
  spec shifted[2] = {{"a", 2, 10}, {"b", 0, 3}};
  m = detect("a * 3 + b", shifted, 2, NULL, TSL_ITER_MAP_BIJECTIVE);
  if (ok(m.rc == TSL_OK, "shifted domain: detected"))
    check_inverse("shifted domain", &m, NULL, 0);

  /* a predicate bounds a fused iterator (a non-dividing split) */
  spec io[2] = {{"i0", 0, 8}, {"i1", 0, 16}};
  m = detect("i0 * 16 + i1", io, 2, "i0 * 16 + i1 < 127", TSL_ITER_MAP_SURJECTIVE);
  if (ok(m.rc == TSL_OK, "predicated fuse: detected (%s)", m.why)) {
    const tsl_iter_sum *s = m.map.indices[0];
    int64_t ext = -1;
    if (s->n == 1)
      tsl_expr_is_const_int(s->args[0]->source->extent, &ext);
    is_int(ext, 127, "predicated fuse: the fused extent is 127");
    check_inverse("predicated fuse", &m, "i0 * 16 + i1 < 127", 0);
  }
  m = detect("i0", io, 2, "i0 < 5", TSL_ITER_MAP_SURJECTIVE);
  if (ok(m.rc == TSL_OK, "bound on one iterator: detected")) {
    int64_t ext = -1;
    tsl_expr_is_const_int(m.map.indices[0]->args[0]->source->extent, &ext);
    is_int(ext, 5, "bound on one iterator narrows its extent");
  }

  /* back to an expression */
  m = detect("x // 4;x % 4;y", xy, 2, NULL, TSL_ITER_MAP_BIJECTIVE);
  tsl_analyzer *an = tsl_analyzer_new(ctx);
  is_str(tu_fmt(tsl_iter_sum_to_expr(an, A, m.map.indices[0])), "x // 4",
         "to_expr: x // 4");
  is_str(tu_fmt(tsl_iter_sum_to_expr(an, A, m.map.indices[1])), "x % 4",
         "to_expr: x mod 4");
  tsl_analyzer_free(an);

  tsl_arena_free(A);
  tsl_ctx_free(ctx);
  return tap_done();
}
