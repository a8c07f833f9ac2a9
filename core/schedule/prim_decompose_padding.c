#include "sch_internal.h"
int sch_apply_decompose_padding(sch_call *c) { return sch_fail(c, TSL_EUNSUPPORTED, "todo"); }
int sch_apply_can_decompose_padding(sch_call *c) { return sch_fail(c, TSL_EUNSUPPORTED, "todo"); }
