/*
 * strategies/sketch/sketch.h — Ansor's sketches of a TensorIR function
 * (the sketch strategy's own design space; README.md says which rules and
 * how they map onto TensorIR).
 */
#ifndef TESSEL_STRATEGY_SKETCH_H
#define TESSEL_STRATEGY_SKETCH_H

#include <stdint.h>

#include "tessel/rules.h"
#include "tessel/schedule.h"

/* Where a rule sends a state (Ansor's SketchGenerationRule::ConditionKind). */
enum { SK_PASS = 0, SK_APPLY = 1, SK_APPLY_AND_SKIP_REST = 2 };

/* A partial sketch: a schedule and its stages (the top-level blocks, in
 * program order, as handles) with the stage the generator visits next,
 * going from the last stage to the first. */
typedef struct sk_state {
  tsl_schedule *sch;
  tsl_sch_rv root;        /* the root block */
  uint32_t n_stages;
  tsl_sch_rv *stages;
  uint8_t *cache_written; /* per stage: it writes a cache-write stage (AddCacheWrite) */
  int32_t stage;          /* next stage; < 0: the sketch is complete */
} sk_state;

/* The target and the options the rules and the annotation read. */
typedef struct sk_ctx {
  int32_t num_cores;
  int32_t max_vectorize_size;              /* Ansor's max_vectorize_size: 16 */
  int32_t disable_change_compute_location; /* Ansor's option of that name: 0 */
} sk_ctx;

/* States in a growing array. */
typedef struct sk_list {
  sk_state **items;
  uint32_t n, cap;
} sk_list;

/* One sketch rule: its condition on `st`'s current stage (SK_*), and its
 * application to `st` (a fork the caller made, which the rule takes): it
 * pushes the states it yields to `out` and returns how many, frees what it
 * drops (a primitive that fails drops the branch), or returns a negative
 * status on an error (out of memory). */
typedef struct sk_rule {
  const char *name;
  int (*condition)(const sk_ctx *c, sk_state *st);
  int (*apply)(const sk_ctx *c, sk_state *st, sk_list *out, tsl_diag *diag);
} sk_rule;

/* Ansor's CPU rules in its order: AlwaysInline, AddRfactor, AddCacheWrite,
 * MultiLevelTilingWithFusion, MultiLevelTiling, SkipStage. */
extern const sk_rule sk_cpu_rules[];
extern const uint32_t sk_n_cpu_rules;

/* Append `st` to `l`; frees it and returns TSL_ENOMEM on failure. */
int sk_push(sk_list *l, sk_state *st, tsl_diag *diag);
/* Frees every state of `l` and its array. */
void sk_list_free(sk_list *l);
/* A copy of `st` on a fork of its schedule in *out. */
int sk_state_fork(sk_state *st, sk_state **out, tsl_diag *diag);
void sk_state_free(sk_state *st);
/* Insert `block` as stage `at` (0 .. n_stages), not cache-written. */
int sk_insert_stage(sk_state *st, uint32_t at, tsl_sch_rv block, tsl_diag *diag);
/* The block of stage `s`, NULL when it is gone (inlined). */
const tsl_block *sk_stage_block(sk_state *st, int32_t s);

/* Ansor's random annotation of a finished sketch (its init population
 * rules), appended to its trace: compute locations sampled for the stages
 * left untiled, parallel and vectorize extents and a sampled auto-unroll
 * step on the root block (README.md: how they map onto TensorIR). A
 * primitive that fails is an error, which ends sk_generate: its
 * conditions are meant to admit only what the primitives accept. */
int sk_annotate(const sk_ctx *c, sk_state *st, tsl_diag *diag);

/* The sketches of function `func_name` (NULL: the module's default) of
 * `mod` for the target and options of `c`, each annotated (sk_annotate),
 * as traces with decisions drawn from `seed` (the caller frees each with
 * tsl_trace_free and the array with free()). `intrins` may be NULL. The
 * first `max_sketches` are kept. */
int sk_generate(tsl_ctx *ctx, const tsl_module *mod, const char *func_name, const sk_ctx *c,
                const tsl_intrin_registry *intrins, uint64_t seed, uint32_t max_sketches,
                tsl_trace ***out, uint32_t *n_out, tsl_diag *diag);

#endif
