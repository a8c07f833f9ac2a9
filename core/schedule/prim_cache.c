/* prim_cache.c: placeholder until the primitive lands. */
#include "sch_internal.h"

int sch_apply_cache_read(sch_call *c) {
  return sch_fail(c, TSL_EUNSUPPORTED, "not implemented yet");
}

int sch_apply_cache_write(sch_call *c) {
  return sch_fail(c, TSL_EUNSUPPORTED, "not implemented yet");
}

