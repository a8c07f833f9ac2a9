/* prim_decompose.c: placeholder until the primitive lands. */
#include "sch_internal.h"

int sch_apply_decompose_reduction(sch_call *c) {
  return sch_fail(c, TSL_EUNSUPPORTED, "not implemented yet");
}

