/*
 * tests/schedule/random_groups.h — the random-script generators of primitive
 * groups added after the first wave (included by test_random.c after `gen`,
 * `below`, `pick_block`, `pick_loops` and `rv_`). A group adds its own
 * `random_<group>.h` include and one line in the table; each entry is drawn
 * as often as one of test_random.c's own cases.
 */
#ifndef TESSEL_TESTS_RANDOM_GROUPS_H
#define TESSEL_TESTS_RANDOM_GROUPS_H

static const char *random_none(gen *g, tsl_sch_arg *a, uint32_t *n) {
  (void)g;
  (void)a;
  *n = 0;
  return NULL;
}

#include "random_layout.h"
#include "random_loopprims.h"
#include "random_reindex.h"

static const random_group_fn random_groups[] = {
    random_none, /* placeholder: keeps the table non-empty */
    random_layout,
    random_loopprims,
    random_reindex,
};
#define N_RANDOM_GROUPS ((uint32_t)(sizeof random_groups / sizeof random_groups[0]))

#endif
