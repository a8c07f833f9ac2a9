/*
 * Renderings of expressions and shapes for the interpreter's error messages
 * ("m * 2", "(m, 128)"); expressions come from the TVMScript printer.
 */
#include "interp_internal.h"

#include "tessel/script.h"

#include <stdio.h>
#include <stdlib.h>

void tsli_fmt_expr(tsl_strbuf *sb, const tsl_expr *e) {
  if (!e) {
    tsl_strbuf_append(sb, "?");
    return;
  }
  char *text = tsl_print_expr(e);
  tsl_strbuf_append(sb, text);
  free(text);
}

void tsli_fmt_shape_decl(tsl_strbuf *sb, const tsl_buffer *b) {
  tsl_strbuf_append(sb, "(");
  for (uint32_t d = 0; d < b->ndim; d++) {
    if (d)
      tsl_strbuf_append(sb, ", ");
    tsli_fmt_expr(sb, b->shape[d]);
  }
  tsl_strbuf_append(sb, b->ndim == 1 ? ",)" : ")");
}

void tsli_fmt_shape_vals(tsl_strbuf *sb, uint32_t ndim, const int64_t *v) {
  tsl_strbuf_append(sb, "(");
  for (uint32_t d = 0; d < ndim; d++)
    tsl_strbuf_printf(sb, "%s%lld", d ? ", " : "", (long long)v[d]);
  tsl_strbuf_append(sb, ndim == 1 ? ",)" : ")");
}
