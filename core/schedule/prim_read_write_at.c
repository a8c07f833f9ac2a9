#include "cache_internal.h"
int sch_apply_read_at(sch_call *c) { return sch_fail(c, TSL_EUNSUPPORTED, "not yet"); }
int sch_apply_write_at(sch_call *c) { return sch_fail(c, TSL_EUNSUPPORTED, "not yet"); }
