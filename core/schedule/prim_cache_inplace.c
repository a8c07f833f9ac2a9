#include "cache_internal.h"
int sch_apply_cache_inplace(sch_call *c) { return sch_fail(c, TSL_EUNSUPPORTED, "not yet"); }
