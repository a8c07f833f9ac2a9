/* STUB: replaced by the parser component. */
#include "tessel/script.h"
#include <stdlib.h>
int tsl_parse(tsl_arena *arena, const char *filename, const char *src, size_t len, const tsl_module **out, tsl_diag *diag) { (void)arena; (void)src; (void)len; *out = NULL; return tsl_diag_set(diag, TSL_EUNSUPPORTED, "%s: parser not implemented", filename); }
int tsl_parse_file(tsl_arena *arena, const char *path, const tsl_module **out, tsl_diag *diag) { char *src; size_t n; int rc = tsl_read_file(path, &src, &n, diag); if (rc) return rc; rc = tsl_parse(arena, path, src, n, out, diag); free(src); return rc; }
