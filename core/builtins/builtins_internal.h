/*
 * Internal interface of core/builtins: each kind of built-in component's
 * registration, called by tsl_registry_new (builtins.c).
 */
#ifndef TESSEL_BUILTINS_INTERNAL_H
#define TESSEL_BUILTINS_INTERNAL_H

#include "tessel/tessel.h"

/* The built-in tensor intrinsics as INTRIN components (intrin_components.c). */
int builtins_register_intrins(tsl_registry *reg, tsl_diag *diag);

#endif
