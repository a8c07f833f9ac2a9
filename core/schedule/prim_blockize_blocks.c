#include "bz_internal.h"
