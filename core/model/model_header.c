/*
 * core/model/model_header.c — the C header of a compiled model's library
 * (tessel/model.h, tsl_model_aot_header): the entry's declaration, the
 * embedded weights, and <prefix>_model_run(inputs, outputs) over them.
 */
#include "model_internal.h"

#include "tessel/script.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void shape_text(tsl_strbuf *sb, const tsl_model_tensor *t) {
  char dt[32];
  tsl_strbuf_printf(sb, "%s[", tsl_dtype_str(t->dtype, dt));
  for (int32_t d = 0; d < t->ndim; d++) {
    int64_t k;
    if (d)
      tsl_strbuf_append(sb, ", ");
    if (tsl_expr_is_const_int(t->shape[d], &k)) {
      tsl_strbuf_printf(sb, "%lld", (long long)k);
    } else {
      char *s = tsl_print_expr(t->shape[d]);
      tsl_strbuf_append(sb, s ? s : "?");
      free(s);
    }
  }
  tsl_strbuf_append(sb, "]");
}

char *tsl_model_aot_header(const tsl_model_aot *aot, const char *prefix, const char *about) {
  if (!aot || !prefix)
    return NULL;
  char up[256];
  size_t n = 0;
  for (; prefix[n] && n + 1 < sizeof up; n++)
    up[n] = (char)toupper((unsigned char)prefix[n]);
  up[n] = '\0';
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  tsl_strbuf_printf(&sb, "/*\n * lib%s.h — %s, compiled by tessel.\n *\n", prefix,
                    about ? about : "a model");
  tsl_strbuf_printf(&sb, " * %s_model_run(inputs, outputs%s) runs it: inputs[k] points to "
                    "input k's\n * data, outputs[k] to memory the caller allocated for output "
                    "k (dense,\n * row-major, any alignment).\n", prefix,
                    aot->n_size_vars ? ", sizes..." : "");
  for (uint32_t i = 0; i < aot->n_inputs; i++) {
    tsl_strbuf_printf(&sb, " *   input %u: %s, ", i, aot->inputs[i].name);
    shape_text(&sb, &aot->inputs[i]);
    tsl_strbuf_append(&sb, "\n");
  }
  for (uint32_t i = 0; i < aot->n_outputs; i++) {
    tsl_strbuf_printf(&sb, " *   output %u: %s, ", i, aot->outputs[i].name);
    shape_text(&sb, &aot->outputs[i]);
    tsl_strbuf_append(&sb, "\n");
  }
  for (uint32_t i = 0; i < aot->n_size_vars; i++)
    tsl_strbuf_printf(&sb, " *   size %s: int64_t, after the outputs\n", aot->size_vars[i]->name);
  if (aot->weights_bytes)
    tsl_strbuf_printf(&sb, " * The weights (%u tensors, %llu bytes) are embedded as %s_weights.\n",
                      aot->n_weights, (unsigned long long)aot->weights_bytes, prefix);
  tsl_strbuf_printf(&sb, " * Intermediate tensors: %u in %u workspace slots, %s bytes (%s "
                    "unplanned),\n * allocated per call. Returns 0, nonzero when that "
                    "allocation failed.\n */\n", aot->n_intermediates, aot->n_slots,
                    aot->planned_bytes, aot->unplanned_bytes);
  tsl_strbuf_printf(&sb, "#ifndef TESSEL_MODEL_%s_H\n#define TESSEL_MODEL_%s_H\n\n"
                    "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
                    up, up);
  tsl_strbuf_printf(&sb, "#define %s_N_INPUTS %u\n#define %s_N_OUTPUTS %u\n\n", up,
                    aot->n_inputs, up, aot->n_outputs);
  if (aot->weights_bytes)
    tsl_strbuf_printf(&sb, "extern const unsigned char %s_weights[];\n", prefix);
  tsl_strbuf_printf(&sb, "int32_t %s_%s(", prefix, aot->entry);
  tsl_strbuf call;
  tsl_strbuf_init(&call);
  const char *sep = "";
  for (uint32_t i = 0; i < aot->n_inputs; i++, sep = ", ") {
    tsl_strbuf_printf(&sb, "%sconst void *%s", sep, aot->inputs[i].name);
    tsl_strbuf_printf(&call, "%sinputs[%u]", sep, i);
  }
  for (uint32_t i = 0; i < aot->n_outputs; i++, sep = ", ") {
    tsl_strbuf_printf(&sb, "%svoid *%s", sep, aot->outputs[i].name);
    tsl_strbuf_printf(&call, "%soutputs[%u]", sep, i);
  }
  if (aot->weights_bytes) {
    tsl_strbuf_printf(&sb, "%sconst unsigned char *weights", sep);
    tsl_strbuf_printf(&call, "%s%s_weights", sep, prefix);
    sep = ", ";
  }
  tsl_strbuf sizes;
  tsl_strbuf_init(&sizes);
  for (uint32_t i = 0; i < aot->n_size_vars; i++, sep = ", ") {
    tsl_strbuf_printf(&sb, "%sint64_t %s", sep, aot->size_vars[i]->name);
    tsl_strbuf_printf(&sizes, ", int64_t %s", aot->size_vars[i]->name);
    tsl_strbuf_printf(&call, "%s%s", sep, aot->size_vars[i]->name);
  }
  tsl_strbuf_printf(&sb, ");\n\nstatic inline int32_t %s_model_run(const void *const *inputs, "
                    "void *const *outputs%s) {\n  return %s_%s(%s);\n}\n", prefix,
                    sizes.data ? sizes.data : "", prefix, aot->entry,
                    call.data ? call.data : "");
  tsl_strbuf_append(&sb, "\n#ifdef __cplusplus\n}\n#endif\n#endif\n");
  tsl_strbuf_free(&call);
  tsl_strbuf_free(&sizes);
  return tsl_strbuf_take(&sb);
}
