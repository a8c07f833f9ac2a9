/* STUB: replaced by the interp component. */
#include "tessel/interp.h"
int tsl_interp_run(const tsl_func *f, tsl_arg *args, uint32_t n_args, tsl_diag *diag) { (void)f; (void)args; (void)n_args; return tsl_diag_set(diag, TSL_EUNSUPPORTED, "interpreter not implemented"); }
int tsl_func_param_is_output(const tsl_func *f, uint32_t k) { (void)f; (void)k; return 0; }
