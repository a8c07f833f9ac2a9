/* STUB: replaced by the interp component. */
#include "tessel/interp.h"
#include <stdlib.h>
int tsl_tensor_alloc(tsl_tensor *t, tsl_dtype dtype, int32_t ndim, const int64_t *shape, tsl_diag *diag) { (void)t; (void)dtype; (void)ndim; (void)shape; return tsl_diag_set(diag, TSL_EUNSUPPORTED, "not implemented"); }
void tsl_tensor_free(tsl_tensor *t) { (void)t; }
int64_t tsl_tensor_numel(const tsl_tensor *t) { (void)t; return 0; }
double tsl_tensor_get(const tsl_tensor *t, int64_t k) { (void)t; (void)k; return 0; }
void tsl_tensor_set(tsl_tensor *t, int64_t k, double v) { (void)t; (void)k; (void)v; }
void tsl_tensor_fill_random(tsl_tensor *t, uint64_t seed, uint64_t stream) { (void)t; (void)seed; (void)stream; }
tsl_checksum tsl_tensor_checksum(const tsl_tensor *t) { (void)t; tsl_checksum c = {0, 0}; return c; }
int tsl_func_make_args(const tsl_func *f, const tsl_binding *binds, uint32_t n_binds, uint64_t seed, tsl_arg *args, tsl_diag *diag) { (void)f; (void)binds; (void)n_binds; (void)seed; (void)args; return tsl_diag_set(diag, TSL_EUNSUPPORTED, "not implemented"); }
void tsl_args_free(tsl_arg *args, uint32_t n) { (void)args; (void)n; }
