/* STUB: replaced by the analysis component. */
#include "tessel/analysis.h"
#include <stdint.h>
#include <stdlib.h>
struct tsl_analyzer { int unused; };
tsl_analyzer *tsl_analyzer_new(tsl_ctx *ctx) { (void)ctx; return calloc(1, sizeof(tsl_analyzer)); }
void tsl_analyzer_free(tsl_analyzer *an) { free(an); }
void tsl_analyzer_bind(tsl_analyzer *an, const tsl_var *v, const tsl_expr *min, const tsl_expr *extent) { (void)an; (void)v; (void)min; (void)extent; }
void tsl_analyzer_bind_value(tsl_analyzer *an, const tsl_var *v, const tsl_expr *value) { (void)an; (void)v; (void)value; }
void tsl_analyzer_unbind(tsl_analyzer *an, const tsl_var *v) { (void)an; (void)v; }
const tsl_expr *tsl_simplify(tsl_analyzer *an, tsl_arena *arena, const tsl_expr *e) { (void)an; (void)arena; return e; }
int tsl_analyzer_const_bound(tsl_analyzer *an, const tsl_expr *e, int64_t *lo, int64_t *hi) { (void)an; (void)e; *lo = INT64_MIN; *hi = INT64_MAX; return 0; }
int tsl_analyzer_can_prove(tsl_analyzer *an, const tsl_expr *cond) { (void)an; (void)cond; return 0; }
int tsl_analyzer_equal(tsl_analyzer *an, const tsl_expr *a, const tsl_expr *b) { (void)an; return a == b; }
int tsl_analyzer_relax(tsl_analyzer *an, tsl_arena *arena, const tsl_expr *e, uint32_t n_vars, const tsl_var *const *vars, const tsl_range *doms, tsl_range *out) { (void)an; (void)arena; (void)e; (void)n_vars; (void)vars; (void)doms; (void)out; return TSL_EUNSUPPORTED; }
