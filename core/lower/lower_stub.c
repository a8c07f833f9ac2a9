/* Placeholder until core/lower lands. */
#include "tessel/lower.h"
#include "tessel/interp.h"

int tsl_lower_func(tsl_arena *arena, const tsl_func *f, const tsl_lower_opts *opts,
                   const tsl_lowered_func **out, tsl_diag *diag) {
  (void)arena; (void)f; (void)opts; (void)out;
  return tsl_diag_set(diag, TSL_EUNSUPPORTED, "lowering: not implemented yet");
}
int tsl_lower_module(tsl_arena *arena, const tsl_module *m, const tsl_lower_opts *opts,
                     const tsl_lowered_module **out, tsl_diag *diag) {
  (void)arena; (void)m; (void)opts; (void)out;
  return tsl_diag_set(diag, TSL_EUNSUPPORTED, "lowering: not implemented yet");
}
char *tsl_lowered_print(const tsl_lowered_func *lf) { (void)lf; return NULL; }
int tsl_interp_run_lowered(const tsl_lowered_func *lf, struct tsl_arg *args,
                           uint32_t n_args, tsl_diag *diag) {
  (void)lf; (void)args; (void)n_args;
  return tsl_diag_set(diag, TSL_EUNSUPPORTED, "lowering: not implemented yet");
}
double tsl_func_flops(const tsl_func *f) { (void)f; return -1; }
