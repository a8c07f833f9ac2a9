/*
 * Property test: random schedule scripts on the programs of workloads/.
 * Each script is 1-6 random primitive calls with random (often invalid)
 * arguments. Every call must either succeed or fail cleanly: a message
 * that names the primitive, and the module and trace left exactly as they
 * were. Whenever a script changed the program, the interpreter must give
 * the same buffers before and after (after: also with the iterations of
 * parallel, vectorized and thread-bound loops shuffled and reversed, the
 * race oracle), the trace must replay to an equal module, and the printed
 * result must parse back equal.
 *
 * TESSEL_RANDOM_SCRIPTS=N sets the number of scripts (default 2500);
 * TESSEL_RANDOM_SEED=S the first seed. One TAP case per property, plus one
 * per failing script (with the script to reproduce it).
 */
#include "tap.h"
#include "tessel/tessel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_files.h"

typedef struct workload {
  char name[256];
  tsl_arena *arena;
  const tsl_module *mod;
  const tsl_func *func;
} workload;

static uint64_t rng_state;
static uint64_t rnd(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static uint32_t below(uint32_t n) { return n ? (uint32_t)(rnd() % n) : 0; }

static tsl_ctx *ctx;

/* ---- handles on the current schedule ---- */

static void collect_blocks(const tsl_stmt *s, tsl_str *out, uint32_t *n, uint32_t cap) {
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_BLOCK_REALIZE:
    if (*n < cap && strcmp(s->u.realize.block->name, "root"))
      out[(*n)++] = s->u.realize.block->name;
    collect_blocks(s->u.realize.block->body, out, n, cap);
    break;
  case TSL_STMT_FOR: collect_blocks(s->u.loop.body, out, n, cap); break;
  case TSL_STMT_LET: collect_blocks(s->u.let.body, out, n, cap); break;
  case TSL_STMT_IF:
    collect_blocks(s->u.branch.then_case, out, n, cap);
    if (s->u.branch.else_case)
      collect_blocks(s->u.branch.else_case, out, n, cap);
    break;
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      collect_blocks(s->u.seq.stmts[i], out, n, cap);
    break;
  default: break;
  }
}

typedef struct gen {
  tsl_schedule *sch;
  tsl_diag diag;
  tsl_sch_rv block;
  const tsl_sch_rv *loops;
  uint32_t n_loops;
} gen;

static int pick_block(gen *g, tsl_sch_rv *out) {
  tsl_str names[64];
  uint32_t n = 0;
  collect_blocks(tsl_schedule_func(g->sch)->body, names, &n, 64);
  if (!n)
    return 0;
  return tsl_sch_get_block(g->sch, names[below(n)], out, &g->diag) == TSL_OK;
}

static int pick_loops(gen *g) {
  if (!pick_block(g, &g->block))
    return 0;
  return tsl_sch_get_loops(g->sch, g->block, &g->loops, &g->n_loops, &g->diag) == TSL_OK &&
         g->n_loops > 0;
}

static tsl_sch_value rv_(tsl_sch_rv r) { return tsl_sv_rv(r); }

/* Generators of later primitive groups: each random_<group>.h defines one
 * `static const char *random_<group>(gen *, tsl_sch_arg *, uint32_t *)`
 * (same contract as random_call) and adds itself to random_groups. */
typedef const char *(*random_group_fn)(gen *g, tsl_sch_arg *a, uint32_t *n);
#include "random_groups.h"

static const char *scopes[] = {"global", "shared", "local"};
static const char *threads[] = {"threadIdx.x", "blockIdx.x", "vthread.x", "threadIdx.y"};

/* One random call; returns the primitive's name and fills the arguments. */
static const char *random_call(gen *g, tsl_sch_arg *a, uint32_t *n) {
  tsl_arena *ar = NULL;
  (void)ar;
  static tsl_sch_value lists[4][8];
  tsl_sch_rv b2;
  *n = 0;
  uint32_t pick = below(19 + N_RANDOM_GROUPS);
  if (pick >= 19)
    return random_groups[pick - 19](g, a, n);
  switch (pick) {
  case 0: { /* split */
    if (!pick_loops(g))
      return NULL;
    uint32_t k = 2 + below(2);
    for (uint32_t i = 0; i < k; i++)
      lists[0][i] = tsl_sv_int(1 + below(8));
    lists[0][below(k)] = tsl_sv_none();
    a[0] = (tsl_sch_arg){NULL, rv_(g->loops[below(g->n_loops)])};
    a[1] = (tsl_sch_arg){"factors", tsl_sv_list(k, lists[0])};
    a[2] = (tsl_sch_arg){"preserve_unit_iters", tsl_sv_bool((int)below(2))};
    *n = 3;
    return "split";
  }
  case 1: { /* split by a sampled perfect tile */
    if (!pick_loops(g))
      return NULL;
    tsl_sch_rv loop = g->loops[below(g->n_loops)];
    tsl_sch_arg s[3] = {{NULL, rv_(loop)}, {"n", tsl_sv_int(2 + below(2))},
                        {"max_innermost_factor", tsl_sv_int(4 << below(3))}};
    const tsl_sch_rv *v;
    uint32_t nv;
    if (tsl_sch_call(g->sch, "sample_perfect_tile", 3, s, &v, &nv, &g->diag))
      return NULL;
    for (uint32_t i = 0; i < nv; i++)
      lists[1][i] = rv_(v[i]);
    a[0] = (tsl_sch_arg){NULL, rv_(loop)};
    a[1] = (tsl_sch_arg){NULL, tsl_sv_list(nv, lists[1])};
    *n = 2;
    return "split";
  }
  case 2: { /* fuse consecutive loops */
    if (!pick_loops(g) || g->n_loops < 2)
      return NULL;
    uint32_t first = below(g->n_loops - 1), k = 2 + below(g->n_loops - first - 1);
    for (uint32_t i = 0; i < k; i++)
      a[i] = (tsl_sch_arg){NULL, rv_(g->loops[first + i])};
    *n = k;
    return "fuse";
  }
  case 3: { /* reorder a random permutation of some loops */
    if (!pick_loops(g) || g->n_loops < 2)
      return NULL;
    uint32_t idx[16], m = g->n_loops < 16 ? g->n_loops : 16;
    for (uint32_t i = 0; i < m; i++)
      idx[i] = i;
    for (uint32_t i = m; i-- > 1;) {
      uint32_t j = below(i + 1), t = idx[i];
      idx[i] = idx[j];
      idx[j] = t;
    }
    uint32_t k = 2 + below(m - 1);
    for (uint32_t i = 0; i < k; i++)
      a[i] = (tsl_sch_arg){NULL, rv_(g->loops[idx[i]])};
    *n = k;
    return "reorder";
  }
  case 4: case 5: {
    static const char *kinds[] = {"parallel", "vectorize", "unroll", "bind"};
    if (!pick_loops(g))
      return NULL;
    uint32_t k = below(4);
    a[0] = (tsl_sch_arg){NULL, rv_(g->loops[below(g->n_loops)])};
    *n = 1;
    if (k == 3)
      a[(*n)++] = (tsl_sch_arg){NULL, tsl_sv_str(tsl_intern(ctx, threads[below(4)]))};
    return kinds[k];
  }
  case 6: {
    if (!pick_loops(g))
      return NULL;
    a[0] = (tsl_sch_arg){NULL, below(2) ? rv_(g->block) : rv_(g->loops[below(g->n_loops)])};
    a[1] = (tsl_sch_arg){"ann_key", tsl_sv_str(tsl_intern(ctx, below(2) ? "pragma_auto_unroll_max_step" : "meta_schedule.x"))};
    a[2] = (tsl_sch_arg){"ann_val", below(2) ? tsl_sv_int(below(64)) : tsl_sv_str(tsl_intern(ctx, "v"))};
    *n = 3;
    return below(4) ? "annotate" : "unannotate";
  }
  case 7: case 8: { /* compute_at / reverse_compute_at at another block's loop */
    if (!pick_loops(g) || !pick_block(g, &b2))
      return NULL;
    a[0] = (tsl_sch_arg){NULL, rv_(b2)};
    a[1] = (tsl_sch_arg){NULL, rv_(g->loops[below(g->n_loops)])};
    a[2] = (tsl_sch_arg){"preserve_unit_loops", tsl_sv_bool((int)below(2))};
    *n = 3;
    return below(2) ? "compute_at" : "reverse_compute_at";
  }
  case 9: {
    if (!pick_block(g, &b2))
      return NULL;
    a[0] = (tsl_sch_arg){NULL, rv_(b2)};
    *n = 1;
    return below(2) ? "compute_inline" : "reverse_compute_inline";
  }
  case 10: case 11: {
    if (!pick_block(g, &b2))
      return NULL;
    a[0] = (tsl_sch_arg){NULL, rv_(b2)};
    a[1] = (tsl_sch_arg){NULL, tsl_sv_int(below(3))};
    a[2] = (tsl_sch_arg){NULL, tsl_sv_str(tsl_intern(ctx, scopes[below(3)]))};
    *n = 3;
    return below(2) ? "cache_read" : "cache_write";
  }
  case 12: {
    if (!pick_block(g, &b2))
      return NULL;
    a[0] = (tsl_sch_arg){NULL, rv_(b2)};
    a[1] = (tsl_sch_arg){NULL, tsl_sv_int(below(2))};
    if (below(2)) {
      a[2] = (tsl_sch_arg){NULL, tsl_sv_str(tsl_intern(ctx, scopes[below(3)]))};
      *n = 3;
      return "set_scope";
    }
    a[2] = (tsl_sch_arg){"axis", tsl_sv_int(below(3))};
    a[3] = (tsl_sch_arg){"factor", tsl_sv_int(1 + below(32))};
    a[4] = (tsl_sch_arg){"offset", tsl_sv_int(below(4))};
    *n = 5;
    return "storage_align";
  }
  case 13: {
    if (!pick_loops(g))
      return NULL;
    a[0] = (tsl_sch_arg){NULL, rv_(g->block)};
    a[1] = (tsl_sch_arg){NULL, rv_(g->loops[below(g->n_loops)])};
    *n = 2;
    return "decompose_reduction";
  }
  case 14: {
    if (!pick_loops(g))
      return NULL;
    a[0] = (tsl_sch_arg){NULL, rv_(g->loops[below(g->n_loops)])};
    a[1] = (tsl_sch_arg){NULL, tsl_sv_int((int64_t)below(3) - 1)};
    *n = 2;
    return "rfactor";
  }
  case 15: {
    if (!pick_loops(g))
      return NULL;
    a[0] = (tsl_sch_arg){NULL, rv_(g->loops[below(g->n_loops)])};
    *n = 1;
    return "blockize";
  }
  case 16: {
    if (!pick_block(g, &b2))
      return NULL;
    tsl_sch_arg s[1] = {{NULL, rv_(b2)}};
    const tsl_sch_rv *v;
    uint32_t nv;
    if (tsl_sch_call(g->sch, "sample_compute_location", 1, s, &v, &nv, &g->diag) || !nv)
      return NULL;
    a[0] = (tsl_sch_arg){NULL, rv_(b2)};
    a[1] = (tsl_sch_arg){NULL, rv_(v[0])};
    *n = 2;
    return "compute_at";
  }
  case 17: {
    if (!pick_loops(g))
      return NULL;
    a[0] = (tsl_sch_arg){NULL, rv_(g->loops[below(g->n_loops)])};
    a[1] = (tsl_sch_arg){NULL, tsl_sv_str(tsl_intern(ctx, "no_such_intrin"))};
    *n = 2;
    return "tensorize";
  }
  default: { /* a split by an exact divisor keeps later steps meaningful */
    if (!pick_loops(g))
      return NULL;
    lists[2][0] = tsl_sv_none();
    lists[2][1] = tsl_sv_int(2 << below(3));
    a[0] = (tsl_sch_arg){NULL, rv_(g->loops[below(g->n_loops)])};
    a[1] = (tsl_sch_arg){NULL, tsl_sv_list(2, lists[2])};
    *n = 2;
    return "split";
  }
  }
}

/* How many block instances a run executes (loop extents multiplied), a
 * deterministic measure of interpreter time. */
static double block_runs(const tsl_stmt *s, double outer) {
  int64_t e;
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    return block_runs(s->u.loop.body,
                      outer * (tsl_expr_is_const_int(s->u.loop.extent, &e) ? (double)e : 1e9));
  case TSL_STMT_BLOCK_REALIZE:
    return outer + block_runs(s->u.realize.block->body, outer) +
           (s->u.realize.block->init ? block_runs(s->u.realize.block->init, outer) : 0);
  case TSL_STMT_LET: return block_runs(s->u.let.body, outer);
  case TSL_STMT_IF:
    return block_runs(s->u.branch.then_case, outer) +
           (s->u.branch.else_case ? block_runs(s->u.branch.else_case, outer) : 0);
  case TSL_STMT_SEQ: {
    double t = 0;
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      t += block_runs(s->u.seq.stmts[i], outer);
    return t;
  }
  default: return 0;
  }
}

/* One workload into `x`: 1 when it is kept (its arguments build and its run
 * is small; symbolic shapes need bindings, large programs make the
 * interpreter slow). */
static int load_workload(workload *x, const char *path) {
  x->arena = tsl_arena_new(ctx);
  tsl_diag diag = {0};
  tsl_arg args[32];
  if (!tsl_parse_file(x->arena, path, &x->mod, &diag)) {
    x->func = tsl_module_find(x->mod, "main");
    if (!x->func)
      x->func = x->mod->funcs[0];
    if (x->func->n_params <= 32 && !tsl_func_make_args(x->func, NULL, 0, 0, args, &diag)) {
      tsl_args_free(args, x->func->n_params);
      if (block_runs(x->func->body, 1) <= 300000)
        return 1;
    }
  }
  tsl_arena_free(x->arena);
  return 0;
}

/* The workloads in name order (a directory's order differs between file
 * systems, and a seed must pick the same pairs on every machine). */
static int load_workloads(workload *w, int cap) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/workloads", root ? root : ".");
  char *names[256];
  int n_names = tf_list(dir, ".py", 0, names, 256), n = 0;
  for (int k = 0; k < n_names; k++) {
    char path[8200];
    snprintf(path, sizeof path, "%s/%s.py", dir, names[k]);
    if (n < cap && load_workload(&w[n], path)) {
      snprintf(w[n].name, sizeof w[n].name, "%s.py", names[k]);
      n++;
    }
    free(names[k]);
  }
  return n;
}

int main(void) {
  ctx = tsl_ctx_new();
  workload w[64];
  int nw = load_workloads(w, 64);
  ok(nw >= 20, "loaded %d workloads with constant shapes", nw);
  int n_scripts = getenv("TESSEL_RANDOM_SCRIPTS") ? atoi(getenv("TESSEL_RANDOM_SCRIPTS")) : 2500;
  uint64_t seed0 = getenv("TESSEL_RANDOM_SEED") ? strtoull(getenv("TESSEL_RANDOM_SEED"), NULL, 0) : 1;
  long calls = 0, succeeded = 0, clean_failures = 0, changed = 0, bad = 0;
  long per_prim_ok[128] = {0};
  uint32_t nk;
  const tsl_sch_inst_kind *const *kinds = tsl_sch_inst_kinds(&nk);
  clock_t t0 = clock();
  for (int s = 0; s < n_scripts && bad < 5; s++) {
    rng_state = seed0 * 1000003u + (uint64_t)s;
    workload *x = &w[below((uint32_t)nw)];
    gen g = {0};
    tsl_schedule_opts so = {sizeof so, x->func->name, rnd(), NULL};
    if (tsl_schedule_new(ctx, x->mod, &so, &g.sch, &g.diag)) {
      ok(0, "schedule on %s", x->name);
      bad++;
      continue;
    }
    uint32_t steps = 1 + below(6);
    int problem = 0;
    for (uint32_t k = 0; k < steps && !problem; k++) {
      tsl_sch_arg a[16];
      uint32_t n;
      const char *prim = random_call(&g, a, &n);
      if (!prim)
        continue;
      const tsl_module *m0 = tsl_schedule_module(g.sch);
      uint32_t len0 = tsl_trace_len(tsl_schedule_trace(g.sch));
      memset(&g.diag, 0, sizeof g.diag);
      calls++;
      int rc = tsl_sch_call(g.sch, prim, n, a, NULL, NULL, &g.diag);
      if (rc == TSL_OK) {
        succeeded++;
        for (uint32_t i = 0; i < nk && i < 128; i++)
          if (!strcmp(kinds[i]->name, prim))
            per_prim_ok[i]++;
        continue;
      }
      size_t pl = strlen(prim);
      int clean = tsl_schedule_module(g.sch) == m0 &&
                  tsl_trace_len(tsl_schedule_trace(g.sch)) == len0 &&
                  !strncmp(g.diag.text, prim, pl) && g.diag.text[pl] == ':' &&
                  strlen(g.diag.text) > pl + 4;
      if (clean) {
        clean_failures++;
      } else {
        problem = 1;
        ok(0, "script %d on %s: %s failed uncleanly: %s", s, x->name, prim, g.diag.text);
      }
    }
    const tsl_func *after = tsl_schedule_func(g.sch);
    if (!problem && after != x->func && !tsl_func_equal(after, x->func, NULL, 0)) {
      changed++;
      tsl_equiv_report rep;
      tsl_diag d = {0};
      tsl_interp_opts io = {sizeof io, TSL_INTERP_ORDER_ALL, (uint64_t)s};
      if (tsl_interp_check_equivalent_opts(x->func,
                                           tsl_schedule_func_in_original_layout(g.sch, NULL),
                                           NULL, 0, (uint64_t)s, &io, &rep, &d)) {
        problem = 1;
        ok(0, "script %d on %s changes the meaning: %s", s, x->name, d.text);
      }
      tsl_schedule *r = NULL;
      tsl_replay_opts ro = {sizeof ro, 0, 0, x->func->name, NULL};
      if (!problem && (tsl_trace_replay(ctx, tsl_schedule_trace(g.sch), x->mod, &ro, &r, &d) ||
                       !tsl_module_equal(tsl_schedule_module(r), tsl_schedule_module(g.sch), NULL, 0))) {
        problem = 1;
        ok(0, "script %d on %s does not replay equal: %s", s, x->name, d.text);
      }
      tsl_schedule_free(r);
      char *text = tsl_print_module(tsl_schedule_module(g.sch));
      tsl_arena *ar = tsl_arena_new(ctx);
      const tsl_module *re;
      if (!problem && (tsl_parse(ar, "printed", text, strlen(text), &re, &d) ||
                       !tsl_module_equal(re, tsl_schedule_module(g.sch), NULL, 0))) {
        problem = 1;
        ok(0, "script %d on %s: printed result does not reparse equal: %s", s, x->name, d.text);
      }
      tsl_arena_free(ar);
      free(text);
    }
    if (problem) {
      char *t = tsl_trace_to_script(tsl_schedule_trace(g.sch), 1);
      tap_diag("program %s, trace so far:\n%s", x->name, t);
      free(t);
      bad++;
    }
    tsl_schedule_free(g.sch);
  }
  double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
  ok(bad == 0, "%d random scripts, %ld calls: %ld succeeded, %ld failed cleanly, %ld "
               "changed programs checked in the interpreter (%.1f s)",
     n_scripts, calls, succeeded, clean_failures, changed, secs);
  tap_diag("successful calls per primitive:");
  for (uint32_t i = 0; i < nk && i < 128; i++)
    if (per_prim_ok[i])
      tap_diag("  %-24s %ld", kinds[i]->name, per_prim_ok[i]);
  for (int i = 0; i < nw; i++)
    tsl_arena_free(w[i].arena);
  tsl_ctx_free(ctx);
  return tap_done();
}
