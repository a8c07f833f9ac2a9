/* prim_storage.c: placeholder until the primitive lands. */
#include "sch_internal.h"

int sch_apply_set_scope(sch_call *c) {
  return sch_fail(c, TSL_EUNSUPPORTED, "not implemented yet");
}

int sch_apply_storage_align(sch_call *c) {
  return sch_fail(c, TSL_EUNSUPPORTED, "not implemented yet");
}

