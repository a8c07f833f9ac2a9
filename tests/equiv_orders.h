/*
 * tests/equiv_orders.h — the loop orders an equivalence check runs the
 * transformed program in: all three (TSL_INTERP_ORDER_ALL) in the plain
 * pass; in the light one (tap_light(): the sanitizer pass) the shuffled
 * order alone, which runs the permutations' code, at half the cost.
 */
#ifndef TESSEL_TESTS_EQUIV_ORDERS_H
#define TESSEL_TESTS_EQUIV_ORDERS_H

#include "tap.h"
#include "tessel/interp.h"

static inline uint32_t equiv_orders(void) {
  return tap_light() ? TSL_INTERP_ORDER_SHUFFLED : TSL_INTERP_ORDER_ALL;
}

#endif
