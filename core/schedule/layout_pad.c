/* padding plans of transform_layout (in progress) */
#include "layout_internal.h"
