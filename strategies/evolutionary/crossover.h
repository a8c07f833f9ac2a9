/*
 * strategies/evolutionary/crossover.h — node-based crossover of two traces
 * of one design (the crossover of Ansor's paper, which its released code
 * leaves out). Folder-internal.
 *
 * A trace's genes are its sampled decisions and the constant values of its
 * annotations. Each gene belongs to a node: the block its instruction acts
 * on, found by following the instruction's first handle back to the block
 * it came from (a loop of get_loops or split belongs to the block whose
 * loops were taken; every block a primitive returns is a node of its own);
 * an instruction without a handle (the unroll step's sample_categorical)
 * makes a node of its own. Two traces cross only when everything but their
 * genes is the same: the same design, the same primitives on the same
 * handles. The child takes each node's genes from one parent, drawn per
 * node, and differs from both. Whether the child is a valid program is
 * for the replay and the postprocessors to say (the caller prepares it as
 * any mutant).
 */
#ifndef TESSEL_EVO_CROSSOVER_H
#define TESSEL_EVO_CROSSOVER_H

#include "tessel/schedule.h"

/* A child of `a` and `b`, each node's genes from `a` with probability
 * `p_a` (else from `b`): 0 and *out (free with tsl_trace_free); 1 when the
 * two do not cross (not the same design, or their genes differ in fewer
 * than two nodes, so a child would repeat a parent); TSL_ENOMEM. */
int evo_crossover(const tsl_trace *a, const tsl_trace *b, double p_a, uint64_t *rng,
                  tsl_trace **out);

#endif
