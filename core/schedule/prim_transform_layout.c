/* transform_layout (in progress) */
#include "layout_internal.h"

int sch_apply_transform_layout(sch_call *c) {
  return sch_fail(c, TSL_EUNSUPPORTED, "not implemented yet");
}
