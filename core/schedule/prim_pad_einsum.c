#include "sch_internal.h"
int sch_apply_pad_einsum(sch_call *c) { return sch_fail(c, TSL_EUNSUPPORTED, "todo"); }
