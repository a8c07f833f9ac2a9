#include "cache_internal.h"
int sch_apply_rolling_buffer(sch_call *c) { return sch_fail(c, TSL_EUNSUPPORTED, "not yet"); }
