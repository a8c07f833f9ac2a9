/* STUB: replaced by the analysis component. */
#include "tessel/analysis.h"
int tsl_module_equal(const tsl_module *a, const tsl_module *b, char *why, size_t why_cap) { (void)a; (void)b; (void)why; (void)why_cap; return 0; }
int tsl_func_equal(const tsl_func *a, const tsl_func *b, char *why, size_t why_cap) { (void)a; (void)b; (void)why; (void)why_cap; return 0; }
int tsl_expr_equal(const tsl_expr *a, const tsl_expr *b) { return a == b; }
int tsl_stmt_equal(const tsl_stmt *a, const tsl_stmt *b) { return a == b; }
