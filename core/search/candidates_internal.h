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

#endif
