/* prim_blockize.c: placeholder until the primitive lands. */
#include "sch_internal.h"

int sch_apply_blockize(sch_call *c) {
  return sch_fail(c, TSL_EUNSUPPORTED, "not implemented yet");
}

