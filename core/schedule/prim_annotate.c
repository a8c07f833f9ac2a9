/* prim_annotate.c: placeholder until the primitive lands. */
#include "sch_internal.h"

int sch_apply_annotate(sch_call *c) {
  return sch_fail(c, TSL_EUNSUPPORTED, "not implemented yet");
}

int sch_apply_unannotate(sch_call *c) {
  return sch_fail(c, TSL_EUNSUPPORTED, "not implemented yet");
}

