/* STUB: replaced by the printer component. */
#include "tessel/script.h"
#include <string.h>
#include <stdlib.h>
char *tsl_print_module(const tsl_module *m) { (void)m; return strdup("# printer not implemented\n"); }
char *tsl_print_func(const tsl_func *f) { (void)f; return strdup("# printer not implemented\n"); }
char *tsl_print_expr(const tsl_expr *e) { (void)e; return strdup("<expr>"); }
char *tsl_print_stmt(const tsl_stmt *s, int indent) { (void)s; (void)indent; return strdup("<stmt>\n"); }
