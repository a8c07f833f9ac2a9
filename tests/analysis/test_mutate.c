/*
 * The IR mutator (tessel/visit.h): sharing of unchanged subtrees, variable
 * and buffer maps, hooks before and after the children, definitions with
 * fresh variables, removal propagating through loops and sequences,
 * substitution through a map, failure reporting, statement-only rewrites,
 * dtype legalization as a hook, and the visitor's TSL_VISIT_SKIP. Programs
 * are parsed from TVMScript and results are
 * compared as printed text or with structural equality.
 */
#include "parsed_fixture.h"
#include "base_internal.h"
#include "tessel/analysis.h"
#include "tessel/script.h"
#include "tessel/visit.h"

#include <stdlib.h>
#include <string.h>

static const char *src =
    "@T.prim_func\n"
    "def main(A: T.Buffer((16, 8), \"float32\"), C: T.Buffer((16, 8), \"float32\")):\n"
    "    B = T.alloc_buffer((16, 8))\n"
    "    for i, j in T.grid(16, 8):\n"
    "        with T.block(\"B\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            B[vi, vj] = A[vi, vj] * T.float32(2)\n"
    "    for i in range(16):\n"
    "        for j in range(8):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                T.where(i < 16)\n"
    "                C[vi, vj] = B[vi, vj] + T.float32(1)\n";

static void setup(fixture *fx) { fixture_parse(fx, "mut.py", src); }
static void teardown(fixture *fx) { fixture_free(fx); }

/* The realize of the block called `name` (pre-order search). */
typedef struct find_ctx {
  const char *name;
  const tsl_stmt *found;
} find_ctx;
static int find_block(const tsl_block *b, const tsl_stmt *realize, void *ud) {
  find_ctx *fc = ud;
  if (!strcmp(b->name, fc->name)) {
    fc->found = realize;
    return 1;
  }
  return 0;
}
static const tsl_stmt *block_realize(const tsl_func *f, const char *name) {
  find_ctx fc = {name, NULL};
  tsl_stmt_visitor v = {.block = find_block, .user_data = &fc};
  tsl_stmt_visit(f->body, &v);
  return fc.found;
}

static void identity_shares(void) {
  fixture fx;
  setup(&fx);
  tsl_mutator m = tsl_mutator_make(fx.arena);
  size_t before = tsl_arena_bytes(fx.arena);
  const tsl_func *g = tsl_mutate_func(&m, fx.f);
  ok(g == fx.f && tsl_arena_bytes(fx.arena) == before,
     "a mutator without hooks returns the same function and allocates nothing");
  teardown(&fx);
}

/* Replace the loop variable i of the first nest by 15 - i: only the first
 * nest is rebuilt; the second is shared. */
static void var_map(void) {
  fixture fx;
  setup(&fx);
  const tsl_stmt *nest1 = block_realize(fx.f, "B");
  const tsl_var *vi = NULL;
  const tsl_stmt *seq = fx.f->body->u.realize.block->body;
  const tsl_stmt *loop_i = seq->u.seq.stmts[0];
  vi = loop_i->u.loop.loop_var;
  tsl_map vars;
  tsl_map_init(&vars, fx.arena);
  tsl_map_put(&vars, vi,
              (void *)tsl_expr_binary(fx.arena, TSL_EXPR_SUB,
                                      tsl_expr_i32(fx.arena, 15), vi->ref));
  tsl_mutator m = tsl_mutator_make(fx.arena);
  m.vars = &vars;
  const tsl_stmt *out = tsl_mutate_stmt(&m, seq);
  ok(out != seq && out->u.seq.stmts[1] == seq->u.seq.stmts[1],
     "a var map rebuilds the nest that uses the variable and shares the other");
  char *txt = tsl_print_stmt(out->u.seq.stmts[0], 0);
  ok(txt && strstr(txt, "T.axis.spatial(16, 15 - i)"),
     "the binding reads 15 - i");
  free(txt);
  (void)nest1;
  teardown(&fx);
}

/* Substitution through a map: the same result as a mutator with `vars`,
 * the map left as it was, an empty map or NULL returning the input. */
static void substitute_map(void) {
  fixture fx;
  setup(&fx);
  const tsl_stmt *seq = fx.f->body->u.realize.block->body;
  const tsl_var *i = seq->u.seq.stmts[0]->u.loop.loop_var;
  tsl_map vars;
  tsl_map_init(&vars, fx.arena);
  ok(tsl_stmt_substitute_map(fx.arena, seq, &vars) == seq &&
         tsl_stmt_substitute_map(fx.arena, seq, NULL) == seq &&
         tsl_expr_substitute_map(fx.arena, i->ref, NULL) == i->ref,
     "substitute_map: an empty or NULL map returns the input");
  const tsl_expr *by = tsl_expr_binary(fx.arena, TSL_EXPR_SUB, tsl_expr_i32(fx.arena, 15), i->ref);
  tsl_map_put(&vars, i, (void *)by);
  const tsl_stmt *out = tsl_stmt_substitute_map(fx.arena, seq, &vars);
  tsl_mutator m = tsl_mutator_make(fx.arena);
  m.vars = &vars;
  ok(out != seq && out->u.seq.stmts[1] == seq->u.seq.stmts[1] &&
         tsl_stmt_equal(out, tsl_mutate_stmt(&m, seq)),
     "substitute_map: as a mutator with the map as `vars`, sharing what it does not use");
  const tsl_expr *e = tsl_expr_binary(fx.arena, TSL_EXPR_MUL, i->ref, i->ref);
  const tsl_expr *r = tsl_expr_substitute_map(fx.arena, e, &vars);
  ok(r->kind == TSL_EXPR_MUL && r->args[0] == by && r->args[1] == by && vars.n == 1,
     "substitute_map: every use of the key replaced; the map is unchanged");
  teardown(&fx);
}

/* Swap buffer B for a fresh buffer B2 everywhere: alloc, store, load,
 * regions. */
static void buffer_map(void) {
  fixture fx;
  setup(&fx);
  const tsl_buffer *b = fx.f->body->u.realize.block->alloc_buffers[0];
  const tsl_buffer *b2 = tsl_buffer_new(fx.arena, "B2", b->dtype, b->ndim, b->shape,
                                        NULL, NULL, "global", 0, 0);
  tsl_map bufs = {0};
  tsl_map_put(&bufs, b, (void *)b2);
  tsl_mutator m = tsl_mutator_make(fx.arena);
  m.buffers = &bufs;
  const tsl_func *g = tsl_mutate_func(&m, fx.f);
  tsl_map_free(&bufs);
  tsl_module mod2 = *fx.mod;
  const tsl_func *fs[1] = {g};
  mod2.funcs = fs;
  char *txt = tsl_print_module(&mod2);
  ok(txt && !strstr(txt, "B[") && strstr(txt, "B2 = T.alloc_buffer") &&
         strstr(txt, "T.reads(B2[vi, vj])") && strstr(txt, "B2[vi, vj] = A[vi, vj]"),
     "a buffer map renames the allocation, stores, loads and regions");
  if (!ok(txt && !strstr(txt, " B[") , "no reference to the old buffer is left"))
    tap_diag("%s", txt ? txt : "(null)");
  free(txt);
  teardown(&fx);
}

/* A post-order expression hook: fold `x * 2` into `x + x` after the
 * children; a pre-order one that stops at loads. */
static const tsl_expr *double_to_add(tsl_mutator *m, const tsl_expr *e) {
  e = tsl_mutate_expr_children(m, e);
  int64_t c;
  if (e->kind == TSL_EXPR_MUL && e->args[1]->kind == TSL_EXPR_FLOAT_IMM &&
      e->args[1]->u.float_value == 2.0)
    return tsl_expr_binary(m->arena, TSL_EXPR_ADD, e->args[0], e->args[0]);
  (void)c;
  return e;
}
static int n_loads_seen;
static const tsl_expr *stop_at_loads(tsl_mutator *m, const tsl_expr *e) {
  if (e->kind == TSL_EXPR_LOAD) {
    n_loads_seen++;
    return e; /* no descent */
  }
  return tsl_mutate_expr_children(m, e);
}
static void expr_hooks(void) {
  fixture fx;
  setup(&fx);
  tsl_mutator m = tsl_mutator_make(fx.arena);
  m.expr = double_to_add;
  const tsl_func *g = tsl_mutate_func(&m, fx.f);
  char *txt = tsl_print_stmt(block_realize(g, "B"), 0);
  ok(txt && strstr(txt, "A[vi, vj] + A[vi, vj]"), "a post-order expression hook rewrites");
  free(txt);
  ok(block_realize(g, "C") == block_realize(fx.f, "C"),
     "the untouched block is shared");
  m = tsl_mutator_make(fx.arena);
  m.expr = stop_at_loads;
  n_loads_seen = 0;
  tsl_mutate_func(&m, fx.f);
  /* loads: A in B's value, B in C's value (regions hold ranges, not loads) */
  is_int(n_loads_seen, 2, "a pre-order hook sees each load once and can stop there");
  teardown(&fx);
}

/* Removing block B (and its now empty loops) through a statement hook. */
static const tsl_stmt *drop_b(tsl_mutator *m, const tsl_stmt *s) {
  if (s->kind == TSL_STMT_BLOCK_REALIZE && !strcmp(s->u.realize.block->name, "B"))
    return NULL;
  return tsl_mutate_stmt_children(m, s);
}
static const tsl_stmt *drop_all_leaves(tsl_mutator *m, const tsl_stmt *s) {
  if (s->kind == TSL_STMT_BLOCK_REALIZE && strcmp(s->u.realize.block->name, "root"))
    return NULL;
  return tsl_mutate_stmt_children(m, s);
}
static void removal(void) {
  fixture fx;
  setup(&fx);
  tsl_mutator m = tsl_mutator_make(fx.arena);
  m.stmt = drop_b;
  const tsl_func *g = tsl_mutate_func(&m, fx.f);
  const tsl_stmt *body = g->body->u.realize.block->body;
  ok(body->kind == TSL_STMT_FOR && !block_realize(g, "B") && block_realize(g, "C"),
     "removing a block removes its loops; the sequence collapses to the other nest");
  m.stmt = drop_all_leaves;
  g = tsl_mutate_func(&m, fx.f);
  body = g->body->u.realize.block->body;
  ok(body->kind == TSL_STMT_EVALUATE, "an emptied root body becomes T.evaluate(0)");
  teardown(&fx);
}

/* Definitions: copy a nest with fresh loop and iter variables; the copy is
 * structurally equal and shares no variable with the original. */
static const tsl_var *fresh(tsl_mutator *m, const tsl_var *v) {
  char name[64];
  snprintf(name, sizeof name, "%s_c", v->name);
  return tsl_var_new(m->arena, name, v->dtype);
}
typedef struct uses_ctx {
  const tsl_map *old;
  int hits;
} uses_ctx;
static int uses_old(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  (void)owner;
  uses_ctx *u = ud;
  if (e->kind == TSL_EXPR_VAR && tsl_map_find(u->old, e->u.var, NULL))
    u->hits++;
  return 0;
}
static void definitions(void) {
  fixture fx;
  setup(&fx);
  const tsl_stmt *nest = fx.f->body->u.realize.block->body->u.seq.stmts[1];
  tsl_map vars;
  tsl_map_init(&vars, NULL);
  tsl_mutator m = tsl_mutator_make(fx.arena);
  m.def = fresh;
  m.vars = &vars;
  const tsl_stmt *copy = tsl_mutate_stmt(&m, nest);
  is_int(vars.n, 4, "four definitions (i, j, vi, vj) were renewed");
  ok(tsl_stmt_equal(copy, nest), "the copy is structurally equal");
  uses_ctx u = {&vars, 0};
  tsl_stmt_visitor v = {.expr = uses_old, .user_data = &u};
  tsl_stmt_visit(copy, &v);
  is_int(u.hits, 0, "no top-level expression of the copy uses an old variable");
  char *txt = tsl_print_stmt(copy, 0);
  ok(txt && strstr(txt, "T.where(i_c < 16)"), "the predicate follows the fresh loop var");
  free(txt);
  tsl_map_free(&vars);
  teardown(&fx);
}

static const tsl_stmt *fail_on_store(tsl_mutator *m, const tsl_stmt *s) {
  if (s->kind == TSL_STMT_STORE) {
    tsl_mutator_fail(m, TSL_EUNSUPPORTED, "store into %s", s->u.store.buffer->name);
    tsl_mutator_fail(m, TSL_EINVALID, "second failure");
    return s;
  }
  return tsl_mutate_stmt_children(m, s);
}
static void failure(void) {
  fixture fx;
  setup(&fx);
  tsl_diag d = {0};
  tsl_mutator m = tsl_mutator_make(fx.arena);
  m.stmt = fail_on_store;
  m.diag = &d;
  tsl_mutate_func(&m, fx.f);
  ok(m.status == TSL_EUNSUPPORTED && !strcmp(d.text, "store into B"),
     "the first failure is kept with its message");
  teardown(&fx);
}

/* A vector load keeps its lanes when its index is rewritten. */
static void vector_load(void) {
  fixture fx;
  setup(&fx);
  tsl_arena *a = fx.arena;
  const tsl_buffer *buf = fx.f->params[0].buffer;
  const tsl_var *x = tsl_var_new(a, "x", TSL_INT32);
  const tsl_expr *idx[2] = {x->ref, tsl_expr_ramp(a, tsl_expr_i32(a, 0), tsl_expr_i32(a, 1), 4)};
  tsl_expr proto;
  memset(&proto, 0, sizeof proto);
  proto.kind = TSL_EXPR_LOAD;
  proto.dtype = buf->dtype;
  proto.dtype.lanes = 4;
  proto.u.buffer = buf;
  const tsl_expr *ld = tsl_expr_with_args(a, &proto, 2, idx);
  tsl_map vars = {0};
  tsl_map_put(&vars, x, (void *)tsl_expr_i32(a, 3));
  tsl_mutator m = tsl_mutator_make(a);
  m.vars = &vars;
  const tsl_expr *r = tsl_mutate_expr(&m, ld);
  ok(r != ld && r->kind == TSL_EXPR_LOAD && r->dtype.lanes == 4 && r->u.buffer == buf,
     "a rewritten vector load keeps its lanes and buffer");
  tsl_map_free(&vars);
  teardown(&fx);
}

/* A statement-only rewrite (tsl_mutate_expr_keep) never walks into an
 * expression: the `var` hook is not called, so the loads keep old indices. */
static int n_var_calls;
static const tsl_expr *count_var(tsl_mutator *m, const tsl_var *v) {
  (void)m;
  (void)v;
  n_var_calls++;
  return NULL;
}
static const tsl_stmt *serial_to_unrolled(tsl_mutator *m, const tsl_stmt *s) {
  const tsl_stmt *r = tsl_mutate_stmt_children(m, s);
  if (s->kind != TSL_STMT_FOR || s->u.loop.loop_var->name[0] != 'j')
    return r;
  return tsl_stmt_for(m->arena, r->u.loop.loop_var, r->u.loop.min, r->u.loop.extent,
                      TSL_FOR_UNROLLED, NULL, r->u.loop.annotations, r->u.loop.body);
}
static void statements_only(void) {
  fixture fx;
  setup(&fx);
  tsl_mutator m = tsl_mutator_make(fx.arena);
  m.stmt = serial_to_unrolled;
  m.expr = tsl_mutate_expr_keep;
  m.var = count_var;
  n_var_calls = 0;
  const tsl_func *g = tsl_mutate_func(&m, fx.f);
  char *txt = tsl_print_func(g);
  ok(g != fx.f && txt && strstr(txt, "for j in T.unroll(8)"), "the loops j are rewritten");
  is_int(n_var_calls, 0, "no expression was walked");
  free(txt);
  teardown(&fx);
}

/* The visitor's TSL_VISIT_SKIP: a skipped statement's expressions and
 * children are not visited and the walk goes on after it. */
typedef struct skip_ctx {
  int stores, exprs_in_c, blocks;
} skip_ctx;
static int skip_block_c(const tsl_stmt *s, void *ud) {
  skip_ctx *k = ud;
  if (s->kind == TSL_STMT_STORE)
    k->stores++;
  if (s->kind == TSL_STMT_BLOCK_REALIZE && !strcmp(s->u.realize.block->name, "C"))
    return TSL_VISIT_SKIP;
  return 0;
}
static int count_blocks(const tsl_block *b, const tsl_stmt *realize, void *ud) {
  (void)b;
  (void)realize;
  ((skip_ctx *)ud)->blocks++;
  return 0;
}
static int expr_in_c(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  (void)e;
  if (owner->kind == TSL_STMT_BLOCK_REALIZE && !strcmp(owner->u.realize.block->name, "C"))
    ((skip_ctx *)ud)->exprs_in_c++;
  return 0;
}
static void visit_skip(void) {
  fixture fx;
  setup(&fx);
  skip_ctx k = {0, 0, 0};
  tsl_stmt_visitor v = {.stmt = skip_block_c, .block = count_blocks, .expr = expr_in_c,
                        .user_data = &k};
  int r = tsl_stmt_visit(fx.f->body, &v);
  ok(r == 0 && k.stores == 1 && k.exprs_in_c == 0 && k.blocks == 2,
     "a skipped block is not entered, the walk returns 0 (stores %d, exprs %d, blocks %d)",
     k.stores, k.exprs_in_c, k.blocks);
  teardown(&fx);
}

static const tsl_expr *to_wide(const tsl_var *v, void *ud) {
  const tsl_var *const *pair = ud;
  return v == pair[0] ? pair[1]->ref : NULL;
}

/* TVM's dtype legalization: an int32 index map given an int64 index. */
static void legalize(void) {
  fixture fx;
  setup(&fx);
  tsl_arena *a = fx.arena;
  const tsl_var *i = tsl_var_new(a, "i", TSL_INT32), *x = tsl_var_new(a, "x", TSL_INT32);
  const tsl_var *pair[2] = {i, tsl_var_new(a, "j", TSL_INT64)};
  const tsl_expr *e = tsl_expr_binary(
      a, TSL_EXPR_ADD,
      tsl_expr_binary(a, TSL_EXPR_FLOORDIV, i->ref, tsl_expr_i32(a, 4)), x->ref);
  const tsl_expr *r = tsl_expr_substitute_legalize(a, e, to_wide, pair);
  char *t = tsl_print_expr(r);
  ok(r->dtype.bits == 64 && t && !strcmp(t, "j // T.int64(4) + T.Cast(\"int64\", x)"),
     "constants and other operands are widened to int64: %s", t ? t : "?");
  free(t);
  const tsl_expr *s = tsl_expr_select(a, tsl_expr_binary(a, TSL_EXPR_LT, i->ref, x->ref),
                                      i->ref, tsl_expr_i32(a, 0));
  r = tsl_expr_substitute_legalize(a, s, to_wide, pair);
  ok(r->dtype.bits == 64 && r->args[2]->dtype.bits == 64 && r->args[0]->args[1]->dtype.bits == 64,
     "a select and its condition's operands are widened");
  ok(tsl_expr_substitute_legalize(a, e, to_wide, (const tsl_var *[]){x, x}) == e,
     "nothing changes when the replacement keeps the dtype");
  teardown(&fx);
}

/* The legalizing hook in a mutator whose definitions change width: a loop
 * variable redefined in int64 widens the operators that use it. */
static const tsl_var *to_int64(tsl_mutator *m, const tsl_var *v) {
  return tsl_var_new(m->arena, v->name, TSL_INT64);
}

static void legalize_hook(void) {
  static const char prog[] =
      "@T.prim_func\n"
      "def main(C: T.Buffer((8,), \"float32\")):\n"
      "    for i in range(8):\n"
      "        C[i // 2] = T.Cast(\"float32\", i * 3 + 1)\n";
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *a = tsl_arena_new(ctx);
  const tsl_module *mod = NULL;
  tsl_diag d = {0};
  if (tsl_parse(a, "w.py", prog, strlen(prog), &mod, &d)) {
    tap_diag("%s", d.text);
    abort();
  }
  const tsl_stmt *loop = mod->funcs[0]->body->u.realize.block->body;
  tsl_map vars;
  tsl_map_init(&vars, a);
  tsl_mutator m = tsl_mutator_make(a);
  m.def = to_int64;
  m.vars = &vars;
  m.expr = tsl_mutate_expr_legalize;
  const tsl_stmt *r = tsl_mutate_stmt(&m, loop);
  const tsl_stmt *st = r->u.loop.body;
  char *t = tsl_print_stmt(r, 0);
  ok(r->u.loop.loop_var->dtype.bits == 64 && st->u.store.indices[0]->dtype.bits == 64 &&
         st->u.store.value->args[0]->dtype.bits == 64 && t &&
         strstr(t, "C[i // T.int64(2)] = T.Cast(\"float32\", i * T.int64(3) + T.int64(1))"),
     "uses of a widened definition are legalized in place: %s", t ? t : "?");
  free(t);
  ok(vars.n == 1 && tsl_map_get(&vars, loop->u.loop.loop_var) == r->u.loop.loop_var->ref,
     "the map recorded the redefinition");
  m.def = NULL;
  tsl_map_clear(&vars);
  ok(tsl_mutate_stmt(&m, loop) == loop, "with nothing widened, nothing is rebuilt");
  tsl_arena_free(a);
  tsl_ctx_free(ctx);
}

int main(void) {
  legalize_hook();
  statements_only();
  visit_skip();
  vector_load();
  legalize();
  identity_shares();
  var_map();
  substitute_map();
  buffer_map();
  expr_hooks();
  removal();
  definitions();
  failure();
  return tap_done();
}
