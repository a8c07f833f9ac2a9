/*
 * tessel/rules.h — design spaces derived from the program: the vtables of
 * schedule rules (component kind TSL_COMPONENT_SCHEDULE_RULE),
 * postprocessors (TSL_COMPONENT_POSTPROC) and trace mutators
 * (TSL_COMPONENT_MUTATOR), the block analyses rules use, and the space
 * generator, TVM MetaSchedule's PostOrderApply.
 *
 * The space generator starts from one traced schedule of the function,
 * takes a handle to every block (get_block, in post-order: children before
 * their parent, the root block last) and then, rule by rule, applies the
 * rule to every block, the last collected first (so the root block comes
 * first and a consumer before its producers). A rule turns one schedule
 * into zero or more (it may branch by forking), and every schedule it
 * returns goes on to the remaining blocks and rules, depth first, as TVM's
 * stack does. The traces of the schedules left at the end are the
 * sketches, their sample_* decisions drawn from the seed. A block whose
 * annotation "schedule_rule" names a rule is left to that rule alone; a
 * block removed by an earlier rule (compute_inline) is skipped.
 *
 * Built-in rules register like plugins (names as TVM's classes:
 * "AutoInline", "ParallelizeVectorizeUnroll", ...); `tessel plugins` lists
 * them. Options come from YAML as strings, as for strategies.
 *
 * Ownership: rule, postprocessor and mutator instances belong to their
 * component and are freed through the vtable. Threading: one instance is
 * used by one thread at a time.
 */
#ifndef TESSEL_RULES_H
#define TESSEL_RULES_H

#include <stdint.h>

#include "tessel/base.h"
#include "tessel/plugin.h"
#include "tessel/schedule.h"
#include "tessel/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What rules, postprocessors and mutators know of the target they build a
 * space for (TVM's TuneContext target). */
typedef struct tsl_rule_target {
  uint32_t struct_size;
  const char *kind;     /* the target component's name: "llvm", "cuda" */
  int32_t num_cores;    /* cores the program may use (> 0) */
  int32_t vector_bytes; /* widest vector register in bytes (32: AVX2) */
  /* Appended in 1.9: the CPU features the target's code may use, LLVM's
   * names comma-separated ("avx2,fma,avx512f,avx512vnni"), or NULL when
   * unknown (rules then assume every feature). Read it only when
   * struct_size covers it (tsl_rule_target_features). */
  const char *cpu_features;
} tsl_rule_target;

/* The target's cpu_features, or NULL when unknown or `t` is older. */
TSL_API const char *tsl_rule_target_features(const tsl_rule_target *t);
/* 1 when every feature of the comma-separated list `needs` (NULL or "":
 * none) is in the comma-separated `features`; NULL `features` (unknown)
 * has them all. */
TSL_API int tsl_cpu_features_have(const char *features, const char *needs);
/* The features of this machine's CPU that tensor intrinsics and the
 * rules ask about (x86: avx2, fma, avx512f, avx512bw, avx512vl,
 * avx512vnni, avx512bf16, avxvnni, amx-tile, amx-int8, amx-bf16), as
 * cpu_features lists them; static storage. */
TSL_API const char *tsl_host_cpu_features(void);

/* ---- schedule rules -------------------------------------------------------- */

typedef struct tsl_sch_rule tsl_sch_rule;           /* a plugin's instance */
typedef struct tsl_schedule_list tsl_schedule_list; /* owned by the core */

/* Hand a schedule to the list a rule fills; the list owns it from then on
 * (also on failure, when it is freed). */
TSL_API int tsl_schedule_list_push(tsl_schedule_list *list, tsl_schedule *sch);

typedef struct tsl_schedule_rule_vtable {
  uint32_t struct_size;
  /* An instance for `target` from the options (every key is the rule's:
   * unknown keys are an error naming the valid ones). */
  int (*create)(void *user_data, const tsl_rule_target *target, uint32_t n_opts,
                const tsl_kv *opts, tsl_sch_rule **out, tsl_diag *diag);
  void (*destroy)(tsl_sch_rule *rule);
  /* Apply the rule to `block` of `sch`. The rule takes `sch`: it pushes it
   * to `out` (transformed or untouched; a rule that does not apply pushes
   * it unchanged), forks it (tsl_schedule_fork) to push several branches,
   * or frees it to drop it. Schedules are pushed in the order TVM's rule
   * returns them. A primitive that fails leaves the schedule unchanged, so
   * a rule may try one and go on. A nonzero status ends the generation
   * with the message. */
  int (*apply)(tsl_sch_rule *rule, tsl_schedule *sch, tsl_sch_rv block,
               tsl_schedule_list *out, tsl_diag *diag);
} tsl_schedule_rule_vtable;

/* ---- postprocessors and mutators -------------------------------------------- */

typedef struct tsl_postproc tsl_postproc;           /* a plugin's instance */
typedef struct tsl_trace_mutator tsl_trace_mutator; /* a plugin's instance */

typedef struct tsl_postproc_vtable {
  uint32_t struct_size;
  int (*create)(void *user_data, const tsl_rule_target *target, uint32_t n_opts,
                const tsl_kv *opts, tsl_postproc **out, tsl_diag *diag);
  void (*destroy)(tsl_postproc *pp);
  /* Apply to a schedule whose decisions are filled in. TSL_OK: keep the
   * candidate; TSL_EINVALID: reject it (the reason in diag); another
   * status is an error. */
  int (*apply)(tsl_postproc *pp, tsl_schedule *sch, tsl_diag *diag);
} tsl_postproc_vtable;

typedef struct tsl_trace_mutator_vtable {
  uint32_t struct_size;
  int (*create)(void *user_data, const tsl_rule_target *target, uint32_t n_opts,
                const tsl_kv *opts, tsl_trace_mutator **out, tsl_diag *diag);
  void (*destroy)(tsl_trace_mutator *m);
  /* A changed copy of `trace`, a candidate of `mod` (decisions edited,
   * instructions dropped) in *out (the caller frees it), drawing random
   * numbers from *rand_state; *out NULL when the mutator has nothing to
   * change in this trace. */
  int (*apply)(tsl_trace_mutator *m, const tsl_module *mod, const tsl_trace *trace,
               uint64_t *rand_state, tsl_trace **out, tsl_diag *diag);
} tsl_trace_mutator_vtable;

/* ---- block analyses ---------------------------------------------------------
 * For rules: facts about a block handle of a schedule, as TVM's analyses
 * state them. A handle that is not a live block gives 0. */

/* The function's root block (the outermost, implicit or written). */
TSL_API int tsl_sch_is_root_block(tsl_schedule *sch, tsl_sch_rv block);
/* Every iterator of the block spatial (TVM's IsSpatial). */
TSL_API int tsl_sch_is_spatial_block(tsl_schedule *sch, tsl_sch_rv block);
/* TVM's IsSpatialPrimFunc for the block's function: every block's
 * iterators are spatial. */
TSL_API int tsl_sch_is_spatial_func(tsl_schedule *sch, tsl_sch_rv block);
/* The block writes a buffer its scope does not allocate (a function
 * output, or one allocated further out): TVM's IsOutputBlock. */
TSL_API int tsl_sch_is_output_block(tsl_schedule *sch, tsl_sch_rv block);
/* Each binding is the loop variable at its position, one loop per
 * iterator (TVM's IsTrivialBinding). */
TSL_API int tsl_sch_is_trivial_binding(tsl_schedule *sch, tsl_sch_rv block);
/* TVM's NeedsMultiLevelTiling: not tiled yet (no
 * meta_schedule.tiling_structure annotation), one write, some reads, not
 * every iterator spatial, trivial bindings, no buffer read twice, constant
 * read extents, and at least one spatial iterator (of extent other than 1)
 * that some read other than the written buffer does not use: data reuse a
 * tiling can exploit (matmul, conv; not an elementwise block). */
TSL_API int tsl_sch_needs_multi_level_tiling(tsl_schedule *sch, tsl_sch_rv block);
/* TVM's IsReductionBlock / IsCompleteBlock within the block's scope. */
TSL_API int tsl_sch_is_reduction_block(tsl_schedule *sch, tsl_sch_rv block);
TSL_API int tsl_sch_is_complete_block(tsl_schedule *sch, tsl_sch_rv block);
/* TVM's GetLoopIterType for a loop handle: TSL_ITER_SPATIAL when the
 * outermost blocks under the loop bind it only to spatial iterators (or not
 * at all), TSL_ITER_REDUCE when only to reduction iterators,
 * TSL_ITER_OPAQUE when to both or to others; -1 for a dead handle. */
TSL_API int tsl_sch_loop_iter_type(tsl_schedule *sch, tsl_sch_rv loop);
/* The block or a statement in it branches: a T.where predicate other than
 * true, an if, a Select or T.if_then_else (TVM's HasIfThenElse). */
TSL_API int tsl_sch_has_if_then_else(tsl_schedule *sch, tsl_sch_rv block);

/* The block realize of the block's scope (the nearest block around it;
 * NULL for the root block or a dead handle) and the loops between the two,
 * outermost first: the count in *n_loops (may be NULL), the first `max` in
 * loops (may be NULL). */
TSL_API const tsl_stmt *tsl_sch_block_scope(tsl_schedule *sch, tsl_sch_rv block,
                                            const tsl_stmt **loops, uint32_t max,
                                            uint32_t *n_loops);

/* The blocks of the block's scope that write what it reads (producers = 1)
 * or read what it writes (producers = 0), in program order, as
 * get_producers / get_consumers find them but without recording anything
 * in the trace: the count, the first `max` stored in out (may be NULL). */
TSL_API uint32_t tsl_sch_block_deps(tsl_schedule *sch, tsl_sch_rv block,
                                    int producers, const tsl_block **out,
                                    uint32_t max);

/* The locations sample_compute_location may pick for the block, in
 * increasing order (-2 inline, -1 root, k >= 0 the k-th loop of its first
 * consumer), each checked by a trial that leaves the schedule as it was:
 * the count, the first `max` in out. 0 for a dead handle. */
TSL_API uint32_t tsl_sch_compute_locations(tsl_schedule *sch, tsl_sch_rv block,
                                           int64_t *out, uint32_t max);

/* TVM's AnalyzeReadWritePattern of read region `r` against write region
 * `w` of a block: each read index a constant or `v + c` of a write index
 * variable `v`. Returns 0 when the pattern does not exist (an index of
 * another form, a non-constant extent), else 1 with the flags set. */
typedef struct tsl_rw_pattern {
  int32_t surjective;    /* every write index is read */
  int32_t injective;     /* no write index is read twice */
  int32_t ordered;       /* write indices are read in their order */
  int32_t no_const_read; /* no read index is a constant */
  int32_t no_shift_read; /* no read index is shifted (v + c, c != 0) */
} tsl_rw_pattern;
TSL_API int tsl_rw_pattern_analyze(const tsl_buffer_region *r,
                                   const tsl_buffer_region *w,
                                   tsl_rw_pattern *out);

/* ---- the space generator ------------------------------------------------------ */

/* One rule of a space: the instance and its vtable, named for messages. */
typedef struct tsl_space_rule {
  uint32_t struct_size;
  const char *name;
  const tsl_schedule_rule_vtable *vtable;
  tsl_sch_rule *rule;
} tsl_space_rule;

/* The sketches of function `func_name` of `mod` (NULL: its default
 * function) under `rules`, applied as described at the top, as traces with
 * their decisions drawn from `seed` (owned by the caller: free each with
 * tsl_trace_free and the array with free()). `intrins` may be NULL. */
TSL_API int tsl_space_generate(tsl_ctx *ctx, const tsl_module *mod,
                               const char *func_name, uint32_t n_rules,
                               const tsl_space_rule *rules, uint64_t seed,
                               const tsl_intrin_registry *intrins,
                               tsl_trace ***out, uint32_t *n_out,
                               tsl_diag *diag);

/* The default rules of the target component named `target->kind`, as its
 * vtable's space_defaults lists them (target.h; the llvm target's are
 * TVM's CPU list), created from `reg`'s components in order with their
 * options. TSL_EUNSUPPORTED when the target is not registered or names no
 * default space. Free with tsl_space_rules_free. */
TSL_API int tsl_space_default_rules(const tsl_registry *reg,
                                    const tsl_rule_target *target,
                                    tsl_space_rule **out, uint32_t *n_out,
                                    tsl_diag *diag);
/* One rule by component name, with options. */
TSL_API int tsl_space_rule_create(const tsl_registry *reg, const char *name,
                                  const tsl_rule_target *target, uint32_t n_opts,
                                  const tsl_kv *opts, tsl_space_rule *out,
                                  tsl_diag *diag);
TSL_API void tsl_space_rules_free(tsl_space_rule *rules, uint32_t n);

/* ---- postprocessors of a space --------------------------------------------------- */

typedef struct tsl_space_postproc {
  uint32_t struct_size;
  const char *name;
  const tsl_postproc_vtable *vtable;
  tsl_postproc *pp;
} tsl_space_postproc;

/* The target's default postprocessors, as tsl_space_default_rules finds
 * its rules, in order. Free with tsl_space_postprocs_free. */
TSL_API int tsl_space_default_postprocs(const tsl_registry *reg,
                                        const tsl_rule_target *target,
                                        tsl_space_postproc **out, uint32_t *n_out,
                                        tsl_diag *diag);
TSL_API int tsl_space_postproc_create(const tsl_registry *reg, const char *name,
                                      const tsl_rule_target *target, uint32_t n_opts,
                                      const tsl_kv *opts, tsl_space_postproc *out,
                                      tsl_diag *diag);
TSL_API void tsl_space_postprocs_free(tsl_space_postproc *pps, uint32_t n);

/* Postprocess a schedule whose decisions are filled in: enter_postproc, then
 * each postprocessor in order (TVM's Postproc.apply in a tuning run). TSL_OK,
 * or TSL_EINVALID when one rejects the candidate or a primitive it calls
 * fails (the message in diag, prefixed with the postprocessor's name); the
 * schedule is then in an unspecified state and is to be dropped. */
TSL_API int tsl_space_apply_postprocs(tsl_schedule *sch, uint32_t n,
                                      const tsl_space_postproc *pps, tsl_diag *diag);

/* ---- mutators of a space ------------------------------------------------------------ */

typedef struct tsl_space_mutator {
  uint32_t struct_size;
  const char *name;
  const tsl_trace_mutator_vtable *vtable;
  tsl_trace_mutator *m;
  double prob; /* the weight an evolutionary search draws it with */
} tsl_space_mutator;

/* The target's default mutators with the weights it gives them, as
 * tsl_space_default_rules finds its rules. Free with
 * tsl_space_mutators_free. */
TSL_API int tsl_space_default_mutators(const tsl_registry *reg,
                                       const tsl_rule_target *target,
                                       tsl_space_mutator **out, uint32_t *n_out,
                                       tsl_diag *diag);
TSL_API int tsl_space_mutator_create(const tsl_registry *reg, const char *name,
                                     const tsl_rule_target *target, double prob,
                                     uint32_t n_opts, const tsl_kv *opts,
                                     tsl_space_mutator *out, tsl_diag *diag);
TSL_API void tsl_space_mutators_free(tsl_space_mutator *ms, uint32_t n);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_RULES_H */
