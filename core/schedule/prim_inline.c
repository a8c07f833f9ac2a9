/* prim_inline.c: placeholder until the primitive lands. */
#include "sch_internal.h"

int sch_apply_compute_inline(sch_call *c) {
  return sch_fail(c, TSL_EUNSUPPORTED, "not implemented yet");
}

int sch_apply_reverse_compute_inline(sch_call *c) {
  return sch_fail(c, TSL_EUNSUPPORTED, "not implemented yet");
}

