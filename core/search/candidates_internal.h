/*
 * core/search: the candidate service's part for the tuner (candidates.c).
 * Only core/tune includes this header from outside core/search.
 */
#ifndef TESSEL_CANDIDATES_INTERNAL_H
#define TESSEL_CANDIDATES_INTERNAL_H

#include "tessel/candidates.h"

/* The tuner measured (or gave up) a candidate: a strategy's proposal no
 * longer keeps its schedule. */
void cands_measured(tsl_cand *c);
/* The tuner takes a candidate for measurement: 0, or 1 when it took it
 * before (a strategy that returned it twice); untake when its claim found
 * the budget spent, so that a later batch may take it. */
int cands_take(tsl_cand *c);
void cands_untake(tsl_cand *c);
/* `key` no longer known (a trace taken and then left free). */
void cands_forget(tsl_cand_service *s, const char *key);
/* dedup_program: traces answered by the candidate of an earlier trace with
 * the same program (a strategy's duplicates the service caught). */
int64_t cands_same_program(const tsl_cand_service *s);

#endif
