/*
 * Equality and hashing on parsed TVMScript: two spellings of one program
 * compare equal (and hash alike), real differences are found with a path,
 * and every shipped program equals an independent parse of itself while
 * differing from the others. Also simplifies every integer expression of
 * every shipped program under its loop bounds and checks the values.
 */
#include "tap.h"
#include "tutil.h"

#include "tessel/script.h"
#include "tessel/visit.h"

#include <dirent.h>

static tsl_ctx *ctx;
static tsl_arena *A;

static const tsl_module *parse(const char *name, const char *src) {
  const tsl_module *m = NULL;
  static tsl_diag diag;
  memset(&diag, 0, sizeof diag);
  int rc = tsl_parse(A, name, src, strlen(src), &m, &diag);
  if (rc != TSL_OK) {
    tap_diag("parse of %s failed:\n%s", name, diag.text);
    return NULL;
  }
  return m;
}

static void same(const char *what, const char *x, const char *y) {
  const tsl_module *a = parse("a.py", x), *b = parse("b.py", y);
  if (!a || !b) {
    ok(0, "equal: %s (parse failed)", what);
    return;
  }
  char why[1024];
  if (!ok(tsl_module_equal(a, b, why, sizeof why), "equal: %s", what))
    tap_diag("  why: %s", why);
  ok(tsl_module_hash(a) == tsl_module_hash(b), "hash agrees: %s", what);
}

static void differ(const char *what, const char *x, const char *y,
                   const char *want_in_why) {
  const tsl_module *a = parse("a.py", x), *b = parse("b.py", y);
  if (!a || !b) {
    ok(0, "not equal: %s (parse failed)", what);
    return;
  }
  char why[1024];
  ok(!tsl_module_equal(a, b, why, sizeof why), "not equal: %s", what);
  if (!ok(strstr(why, want_in_why) != NULL, "why names %s", want_in_why))
    tap_diag("  why: %s", why);
  ok(tsl_module_hash(a) != tsl_module_hash(b), "hash differs: %s", what);
}

static const char *MM_NEW =
    "# from tvm.script import tir as T\n"
    "@T.prim_func\n"
    "def main(A: T.Buffer((32, 32), \"float32\"), B: T.Buffer((32, 32), \"float32\"),"
    " C: T.Buffer((32, 32), \"float32\")):\n"
    "    T.func_attr({\"global_symbol\": \"main\", \"tir.noalias\": T.bool(True)})\n"
    "    for i, j, k in T.grid(32, 32, 32):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            T.reads(A[vi, vk], B[vk, vj])\n"
    "            T.writes(C[vi, vj])\n"
    "            with T.init():\n"
    "                C[vi, vj] = T.float32(0)\n"
    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";

static const char *MM_OLD =
    "import tvm\n"
    "from tvm.script import tir as T\n"
    "@tvm.script.ir_module\n"
    "class MyModule:\n"
    "    @T.prim_func\n"
    "    def main(X: T.Buffer[(32, 32), \"float32\"], Y: T.Buffer[(32, 32), \"float32\"],"
    " Z: T.Buffer[(32, 32), \"float32\"]) -> None:\n"
    "        T.func_attr({\"global_symbol\": \"mm\", \"tir.noalias\": True})\n"
    "        with T.block(\"root\"):\n"
    "            for a in T.serial(32):\n"
    "                for b in T.serial(32):\n"
    "                    for c in T.serial(32):\n"
    "                        with T.block(\"C\"):\n"
    "                            p, q, r = T.axis.remap(\"SSR\", [a, b, c])\n"
    "                            with T.init():\n"
    "                                Z[p, q] = 0.0\n"
    "                            Z[p, q] += X[p, r] * Y[r, q]\n";

/* a template with holes: %s for index text, extent, block name, scope */
static char *fill(const char *fmt, ...) TSL_PRINTF(1, 2);
static char *fill(const char *fmt, ...) {
  char *buf = tsl_arena_alloc(A, 8192);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, 8192, fmt, ap);
  va_end(ap);
  return buf;
}

static const char *FLAT =
    "@T.prim_func\n"
    "def main(A: T.Buffer((16, 4), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
    "    X = T.alloc_buffer((64,), scope=\"%s\")\n"
    "    for i, j in T.grid(%s, 4):\n"
    "        with T.block(\"%s\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            T.where(%s)\n"
    "            X[%s] = A[vi, vj]\n"
    "    for f in range(64):\n"
    "        with T.block(\"out\"):\n"
    "            vf = T.axis.spatial(64, f)\n"
    "            B[vf] = X[vf // 4 * 4 + vf %% 4]\n";

static const char *SYM =
    "@T.prim_func\n"
    "def main(a: T.handle, b: T.handle):\n"
    "    %s = T.int64()\n"
    "    A = T.match_buffer(a, (%s, T.int64(8)))\n"
    "    B = T.match_buffer(b, (%s,))\n"
    "    for i, j in T.grid(%s, T.int64(8)):\n"
    "        with T.block(\"s\"):\n"
    "            vi, vj = T.axis.remap(\"SR\", [i, j])\n"
    "            with T.init():\n"
    "                B[vi] = T.float32(0)\n"
    "            B[vi] = B[vi] + A[vi, vj]\n";

static void test_spellings(void) {
  same("new vs old spelling, renamed, inferred regions", MM_NEW, MM_OLD);
  const char *base = fill(FLAT, "global", "16", "x", "i * 4 + j < 64", "vi * 4 + vj");
  same("commuted store index", base,
       fill(FLAT, "global", "16", "x", "i * 4 + j < 64", "vj + 4 * vi"));
  same("(vi + 1) * 4 - 4 + vj", base,
       fill(FLAT, "global", "16", "x", "i * 4 + j < 64", "(vi + 1) * 4 - 4 + vj"));
  same("predicate spelled the other way round", base,
       fill(FLAT, "global", "16", "x", "64 > j + i * 4", "vi * 4 + vj"));
  differ("loop extent", base,
         fill(FLAT, "global", "8", "x", "i * 4 + j < 64", "vi * 4 + vj"),
         ".for[i].extent: 16 vs 8");
  differ("block name", base,
         fill(FLAT, "global", "16", "y", "i * 4 + j < 64", "vi * 4 + vj"),
         ".block[x].name: \"x\" vs \"y\"");
  differ("alloc scope", base,
         fill(FLAT, "shared", "16", "x", "i * 4 + j < 64", "vi * 4 + vj"),
         "alloc_buffers[0]: scope \"global\" vs \"shared\"");
  differ("store index", base,
         fill(FLAT, "global", "16", "x", "i * 4 + j < 64", "vj * 4 + vi"),
         ".block[x].writes[0].region[0].min: vi * 4 + vj vs vj * 4 + vi");
  differ("predicate", base,
         fill(FLAT, "global", "16", "x", "i * 4 + j < 63", "vi * 4 + vj"),
         ".predicate:");
  /* the same spelling on both sides but bound to different loops: the
   * report says so instead of the puzzling "j vs j" */
  const char *ij =
      "@T.prim_func\n"
      "def main(A: T.Buffer((8, 8), \"float32\")):\n"
      "    for %s in T.grid(8, 8):\n"
      "        with T.block(\"x\"):\n"
      "            vi, vj = T.axis.remap(\"SS\", [j, i])\n"
      "            A[vi, vj] = T.float32(0)\n";
  differ("same loop names bound in the other order", fill(ij, "i, j"), fill(ij, "j, i"),
         "iter_values[0]: j vs j (same names, bound to different loops");
  same("symbolic shape var renamed", fill(SYM, "n", "n", "n", "n"),
       fill(SYM, "rows", "rows", "rows", "rows"));
  /* the func attribute global_symbol is ignored; others are not */
  const char *noattr = fill(FLAT, "global", "16", "x", "i * 4 + j < 64", "vi * 4 + vj");
  char *with_gs = fill("%s", noattr);
  char *p = strstr(with_gs, "):\n");
  char *gs = fill("%.*s):\n    T.func_attr({\"global_symbol\": \"other\"})\n%s",
                  (int)(p - with_gs), with_gs, p + 3);
  same("global_symbol ignored", noattr, gs);
  char *attr = fill("%.*s):\n    T.func_attr({\"tir.noalias\": T.bool(True)})\n%s",
                    (int)(p - with_gs), with_gs, p + 3);
  differ("function attribute", noattr, attr, "attrs: key \"tir.noalias\" only in the second");
  /* index expressions compare under the ranges around them: TVM's fused
   * form (a * 2 + b) // 256 of a split binding equals a // 128 for b in
   * [0, 2), in bindings and, under the block's iter domains, in bodies */
  const char *fused =
      "@T.prim_func\n"
      "def main(A: T.Buffer((256, 256), \"float32\"), C: T.Buffer((256, 256), \"float32\")):\n"
      "    for a, b in T.grid(32768, 2):\n"
      "        with T.block(\"C\"):\n"
      "            vi = T.axis.spatial(256, %s)\n"
      "            vj = T.axis.spatial(256, %s)\n"
      "            vf0 = T.axis.spatial(32768, a)\n"
      "            vf1 = T.axis.spatial(2, b)\n"
      "            C[vi, vj] = A[%s, vj] * T.float32(2)\n";
  const char *tvm_form = fill(fused, "(a * 2 + b) // 256", "(a * 2 + b) % 256",
                              "(vf0 * 2 + vf1) // 256");
  same("split bindings in TVM's fused form", tvm_form,
       fill(fused, "a // 128", "a % 128 * 2 + b", "vf0 // 128"));
  differ("a binding that differs inside the ranges", tvm_form,
         fill(fused, "a // 128", "a % 128 * 2", "vf0 // 128"), ".iter_values[1]");
  /* an extent-1 loop is not its value: v = ax0 and v = 0 stay different */
  const char *unit =
      "@T.prim_func\n"
      "def main(A: T.Buffer((1, 8), \"float32\")):\n"
      "    for ax0, ax1 in T.grid(1, 8):\n"
      "        with T.block(\"x\"):\n"
      "            v0 = T.axis.spatial(1, %s)\n"
      "            v1 = T.axis.spatial(8, ax1)\n"
      "            A[v0, v1] = T.float32(0)\n";
  differ("unit loop var vs its value", fill(unit, "ax0"), fill(unit, "0"),
         ".iter_values[0]: ax0 vs 0");
}

/* ---- every shipped program ------------------------------------------- */

typedef struct prog {
  char path[1100];
  char *src;
} prog;

static int list_programs(const char *root, prog *out, int cap) {
  const char *dirs[] = {"workloads", "tests/programs"};
  int n = 0;
  for (int d = 0; d < 2; d++) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/%s", root, dirs[d]);
    DIR *dh = opendir(dir);
    if (!dh)
      continue;
    struct dirent *ent;
    while ((ent = readdir(dh)) && n < cap) {
      size_t len = strlen(ent->d_name);
      if (len < 4 || strcmp(ent->d_name + len - 3, ".py") != 0)
        continue;
      snprintf(out[n].path, sizeof out[n].path, "%s/%s", dir, ent->d_name);
      size_t sz;
      tsl_diag diag;
      memset(&diag, 0, sizeof diag);
      if (tsl_read_file(out[n].path, &out[n].src, &sz, &diag) == TSL_OK)
        n++;
    }
    closedir(dh);
  }
  /* sort by path so the run is deterministic */
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && strcmp(out[j - 1].path, out[j].path) > 0; j--) {
      prog t = out[j];
      out[j] = out[j - 1];
      out[j - 1] = t;
    }
  return n;
}

/* Simplify every integer / boolean top-level expression of a program with
 * the loop and block-iteration bounds in scope, and check by evaluation at
 * random points of those bounds that the value did not change. */
typedef struct simp_walk {
  tsl_analyzer *an;
  tu_assign dom_lo, dom_hi; /* bounds per var (vars[] shared by index) */
  int exprs, checked, changed, unsound;
} simp_walk;

static void note_dom(simp_walk *w, const tsl_var *v, const tsl_expr *mn,
                     const tsl_expr *ext) {
  int64_t lo, e;
  if (!tsl_expr_is_const_int(mn, &lo) || !tsl_expr_is_const_int(ext, &e) || e < 1)
    return;
  tsl_analyzer_bind(w->an, v, mn, ext);
  if (w->dom_lo.n == 32)
    return;
  w->dom_lo.vars[w->dom_lo.n] = v;
  w->dom_lo.vals[w->dom_lo.n] = lo;
  w->dom_hi.vals[w->dom_lo.n++] = lo + e - 1;
}

static int on_stmt(const tsl_stmt *s, void *ud) {
  simp_walk *w = ud;
  if (s->kind == TSL_STMT_FOR)
    note_dom(w, s->u.loop.loop_var, s->u.loop.min, s->u.loop.extent);
  return 0;
}

static int on_block(const tsl_block *b, const tsl_stmt *r, void *ud) {
  (void)r;
  simp_walk *w = ud;
  for (uint32_t i = 0; i < b->n_iter_vars; i++)
    note_dom(w, b->iter_vars[i].var, b->iter_vars[i].dom.min, b->iter_vars[i].dom.extent);
  return 0;
}

static int evaluable(const tsl_expr *e, void *ud) {
  (void)ud;
  if (!(tsl_dtype_is_int(e->dtype) || tsl_dtype_is_bool(e->dtype)) || e->dtype.lanes != 1)
    return 1;
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_FLOAT_IMM:
  case TSL_EXPR_STR_IMM:
  case TSL_EXPR_CALL_EXTERN:
  case TSL_EXPR_BUILTIN:
  case TSL_EXPR_BUFFER_DATA:
  case TSL_EXPR_RAMP:
  case TSL_EXPR_BROADCAST:
    return 1;
  case TSL_EXPR_CALL:
    return e->intrin != TSL_INTRIN_ABS;
  case TSL_EXPR_CAST:
    return !tsl_dtype_is_int(e->args[0]->dtype) && !tsl_dtype_is_bool(e->args[0]->dtype);
  default:
    return 0;
  }
}

static uint64_t prng = 88172645463325252ULL;
static int64_t pick(int64_t lo, int64_t hi) {
  prng ^= prng << 13;
  prng ^= prng >> 7;
  prng ^= prng << 17;
  return lo + (int64_t)(prng % (uint64_t)(hi - lo + 1));
}

static int gather(const tsl_expr *e, void *ud) {
  tu_assign *as = ud;
  if (e->kind == TSL_EXPR_VAR && as->n < 32) {
    for (int i = 0; i < as->n; i++)
      if (as->vars[i] == e->u.var)
        return 0;
    as->vars[as->n++] = e->u.var;
  }
  return 0;
}

static int check_expr(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  (void)owner;
  simp_walk *w = ud;
  w->exprs++;
  if (tsl_expr_visit(e, evaluable, NULL))
    return 0;
  const tsl_expr *s = tsl_simplify(w->an, A, e);
  w->checked++;
  w->changed += s != e;
  tu_assign as = {0};
  tsl_expr_visit(e, gather, &as);
  tsl_expr_visit(s, gather, &as);
  for (int trial = 0; trial < 40; trial++) {
    for (int i = 0; i < as.n; i++) {
      int64_t lo = 1, hi = 64; /* symbolic sizes */
      for (int k = 0; k < w->dom_lo.n; k++)
        if (w->dom_lo.vars[k] == as.vars[i]) {
          lo = w->dom_lo.vals[k];
          hi = w->dom_hi.vals[k];
        }
      as.vals[i] = pick(lo, hi);
    }
    int64_t x, y;
    if (!tu_eval(e, &as, &x))
      continue;
    if (!tu_eval(s, &as, &y) || x != y) {
      if (w->unsound++ < 3)
        tap_diag("  simplify changed the value of %s (into %s)", tu_fmt(e), tu_fmt(s));
      break;
    }
  }
  return 0;
}

static void test_programs(void) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  if (!root)
    root = ".";
  static prog progs[256];
  int n = list_programs(root, progs, 256);
  ok(n >= 40, "found %d shipped programs", n);
  const tsl_module *first[256] = {0};
  int parsed = 0, equal = 0, hash_agree = 0, hash_collide = 0, unequal = 0;
  int pairs = 0;
  int exprs = 0, checked = 0, changed = 0, bad_simp = 0;
  for (int i = 0; i < n; i++) {
    /* two parses in two separate contexts */
    tsl_ctx *c2 = tsl_ctx_new();
    tsl_arena *a2 = tsl_arena_new(c2);
    const tsl_module *x = NULL, *y = NULL;
    tsl_diag diag;
    memset(&diag, 0, sizeof diag);
    size_t len = strlen(progs[i].src);
    if (tsl_parse(A, progs[i].path, progs[i].src, len, &x, &diag) != TSL_OK ||
        tsl_parse(a2, progs[i].path, progs[i].src, len, &y, &diag) != TSL_OK) {
      tap_diag("cannot parse %s: %s", progs[i].path, diag.text);
      tsl_arena_free(a2);
      tsl_ctx_free(c2);
      continue;
    }
    parsed++;
    first[i] = x;
    char why[1024];
    if (tsl_module_equal(x, y, why, sizeof why))
      equal++;
    else
      tap_diag("%s differs from its own re-parse: %s", progs[i].path, why);
    if (tsl_module_hash(x) == tsl_module_hash(y))
      hash_agree++;
    else
      tap_diag("%s: hash differs across parses", progs[i].path);
    /* simplifying every expression keeps it equal */
    for (uint32_t f = 0; f < x->n_funcs; f++) {
      simp_walk w;
      memset(&w, 0, sizeof w);
      w.an = tsl_analyzer_new(ctx);
      tsl_stmt_visitor v = {0};
      v.stmt = on_stmt;
      v.block = on_block;
      v.expr = check_expr;
      v.user_data = &w;
      tsl_stmt_visit(x->funcs[f]->body, &v);
      tsl_analyzer_free(w.an);
      exprs += w.exprs;
      checked += w.checked;
      changed += w.changed;
      bad_simp += w.unsound;
    }
    tsl_arena_free(a2);
    tsl_ctx_free(c2);
  }
  is_int(equal, parsed, "every program equals its re-parse (%d of %d parsed)", equal, n);
  is_int(hash_agree, parsed, "every program hashes alike across parses");
  is_int(bad_simp, 0, "bounded simplification of %d integer expressions (of %d) is sound",
         checked, exprs);
  ok(changed > 0, "some program expressions were rewritten (%d)", changed);
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      if (!first[i] || !first[j])
        continue;
      pairs++;
      if (!tsl_module_equal(first[i], first[j], NULL, 0))
        unequal++;
      else
        tap_diag("%s equals %s", progs[i].path, progs[j].path);
      if (tsl_module_hash(first[i]) == tsl_module_hash(first[j]))
        hash_collide++;
    }
  is_int(unequal, pairs, "distinct programs compare unequal (%d pairs)", pairs);
  is_int(hash_collide, 0, "no hash collisions among distinct programs");
  for (int i = 0; i < n; i++)
    free(progs[i].src);
}

int main(void) {
  ctx = tsl_ctx_new();
  A = tsl_arena_new(ctx);
  /* is the parser there yet? */
  const tsl_module *probe = parse("probe.py", MM_NEW);
  if (!probe) {
    tap_skip("parser not available", "parsed-program tests");
    return tap_done();
  }
  test_spellings();
  test_programs();
  tsl_arena_free(A);
  tsl_ctx_free(ctx);
  return tap_done();
}
