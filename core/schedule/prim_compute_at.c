/* prim_compute_at.c: placeholder until the primitive lands. */
#include "sch_internal.h"

int sch_apply_compute_at(sch_call *c) {
  return sch_fail(c, TSL_EUNSUPPORTED, "not implemented yet");
}

int sch_apply_reverse_compute_at(sch_call *c) {
  return sch_fail(c, TSL_EUNSUPPORTED, "not implemented yet");
}

int sch_apply_sample_compute_location(sch_call *c) {
  return sch_fail(c, TSL_EUNSUPPORTED, "not implemented yet");
}

