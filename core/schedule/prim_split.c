/* prim_split.c: placeholder until the primitive lands. */
#include "sch_internal.h"

int sch_apply_split(sch_call *c) {
  return sch_fail(c, TSL_EUNSUPPORTED, "not implemented yet");
}

