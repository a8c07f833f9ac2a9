/* prim_fuse.c: placeholder until the primitive lands. */
#include "sch_internal.h"

int sch_apply_fuse(sch_call *c) {
  return sch_fail(c, TSL_EUNSUPPORTED, "not implemented yet");
}

