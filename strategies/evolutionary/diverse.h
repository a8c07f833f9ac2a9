/*
 * strategies/evolutionary/diverse.h — the order in which a batch takes the
 * cost model's favourites when `diversity_filter_ratio` > 1 (AutoTVM's
 * diversity filter: of the ratio x batch best-scored candidates, pick the
 * batch that covers the most decisions). Folder-internal.
 */
#ifndef TESSEL_EVO_DIVERSE_H
#define TESSEL_EVO_DIVERSE_H

#include <stdint.h>

/* Writes into order[0..n) a permutation of 0..n: its first n_pick indices
 * are chosen greedily, each the candidate whose key (tsl_trace_key:
 * "[[inst,decision],...]@digest") brings the most (instruction, decision)
 * pairs that those chosen before it do not hold, ties going to the lower
 * index (keys[] is best-scored first); the rest follow in index order. A
 * pair is an element of the key's decisions list together with the key's
 * digest, so two sketches' decisions never count as the same. A NULL key
 * brings nothing. Returns 0, or -1 when out of memory (order is then the
 * identity). */
int evo_diverse_order(const char *const *keys, uint32_t n, uint32_t n_pick, uint32_t *order);

#endif
