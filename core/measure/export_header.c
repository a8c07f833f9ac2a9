/*
 * The C header of an exported library (tsl_export_header): include guard,
 * <stdint.h>, extern "C", and per lowered function the natural declaration
 * "<prefix>_<name>" (one pointer per buffer parameter, const when the
 * function only reads it; scalars by value in their dtype's C type; size
 * variables as int64_t; int32_t status) and the packed entry
 * "<prefix>_<name>_packed", with every parameter's shape (symbolic names as
 * written) and dtype in the comments.
 */
#include "measure_internal.h"

#include "tessel/script.h"
#include "tessel/tessel.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_ident(const char *s) {
  if (!s || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
    return 0;
  for (const char *p = s; *p; p++)
    if (!isalnum((unsigned char)*p) && *p != '_')
      return 0;
  return 1;
}

/* C and C++ keywords a TVMScript name could collide with. */
static int is_keyword(const char *s) {
  static const char *const kw[] = {
      "auto",     "bool",   "break",    "case",     "char",   "class",  "const",
      "continue", "default", "delete",  "do",       "double", "else",   "enum",
      "extern",   "false",  "float",    "for",      "goto",   "if",     "inline",
      "int",      "long",   "new",      "operator", "private", "public", "register",
      "restrict", "return", "short",    "signed",   "sizeof", "static", "struct",
      "switch",   "template", "this",   "true",     "typedef", "union", "unsigned",
      "void",     "volatile", "while",  NULL};
  for (int i = 0; kw[i]; i++)
    if (strcmp(s, kw[i]) == 0)
      return 1;
  return 0;
}

static void append_name(tsl_strbuf *sb, const char *name) {
  tsl_strbuf_append(sb, name);
  if (is_keyword(name))
    tsl_strbuf_append(sb, "_");
}

/* The C element type of a dtype; *note gets a remark for 16-bit floats. */
static const char *c_type(tsl_dtype t, const char **note) {
  *note = NULL;
  switch (t.code) {
  case TSL_DT_FLOAT:
    if (t.bits == 32)
      return "float";
    if (t.bits == 64)
      return "double";
    if (t.bits == 16) {
      *note = "float16 bits";
      return "uint16_t";
    }
    break;
  case TSL_DT_BFLOAT:
    *note = "bfloat16 bits";
    return "uint16_t";
  case TSL_DT_INT:
    switch (t.bits) {
    case 8:
      return "int8_t";
    case 16:
      return "int16_t";
    case 32:
      return "int32_t";
    case 64:
      return "int64_t";
    }
    break;
  case TSL_DT_UINT:
    switch (t.bits) {
    case 1:
      *note = "bool: one byte, 0 or 1";
      return "uint8_t";
    case 8:
      return "uint8_t";
    case 16:
      return "uint16_t";
    case 32:
      return "uint32_t";
    case 64:
      return "uint64_t";
    }
    break;
  }
  return "void";
}

/* A dimension as the user wrote it: "m", "m * 2", "min(m, 8)" (no dtype
 * wrappers around literals, parentheses by precedence). */
static void dim_text(tsl_strbuf *sb, const tsl_expr *e, int outer_prec) {
  const tsl_expr_kind_info *k = tsl_expr_kind_info_of((tsl_expr_kind)e->kind);
  switch ((tsl_expr_kind)e->kind) {
  case TSL_EXPR_INT_IMM:
    tsl_strbuf_printf(sb, "%lld", (long long)e->u.int_value);
    return;
  case TSL_EXPR_VAR:
    tsl_strbuf_append(sb, e->u.var->name);
    return;
  case TSL_EXPR_CAST:
    dim_text(sb, e->args[0], outer_prec);
    return;
  case TSL_EXPR_ADD:
  case TSL_EXPR_SUB:
  case TSL_EXPR_MUL:
  case TSL_EXPR_DIV:
  case TSL_EXPR_FLOORDIV:
  case TSL_EXPR_FLOORMOD:
    if (k->prec < outer_prec)
      tsl_strbuf_append(sb, "(");
    dim_text(sb, e->args[0], k->prec);
    tsl_strbuf_printf(sb, " %s ", k->token);
    dim_text(sb, e->args[1], k->prec + 1);
    if (k->prec < outer_prec)
      tsl_strbuf_append(sb, ")");
    return;
  case TSL_EXPR_MIN:
  case TSL_EXPR_MAX:
  case TSL_EXPR_MOD:
    tsl_strbuf_printf(sb, "%s(", k->name);
    dim_text(sb, e->args[0], 0);
    tsl_strbuf_append(sb, ", ");
    dim_text(sb, e->args[1], 0);
    tsl_strbuf_append(sb, ")");
    return;
  default: {
    char *s = tsl_print_expr(e);
    tsl_strbuf_append(sb, s ? s : "?");
    free(s);
  }
  }
}

static void shape_text(tsl_strbuf *sb, const tsl_buffer *b) {
  char dt[32];
  tsl_strbuf_printf(sb, "%s[", tsl_dtype_str(b->dtype, dt));
  for (uint32_t d = 0; d < b->ndim; d++) {
    if (d)
      tsl_strbuf_append(sb, ", ");
    dim_text(sb, b->shape[d], 0);
  }
  tsl_strbuf_append(sb, "]");
}

static const char *func_name(const tsl_lowered_func *lf) {
  return lf->name ? lf->name : lf->source->name;
}

/* 1 when `m` has a function called `base` + `suffix` */
static int has_func(const tsl_lowered_module *m, const char *base, size_t n_base,
                    const char *suffix) {
  for (uint32_t i = 0; i < m->n_funcs; i++) {
    const char *g = func_name(m->funcs[i]);
    if (strlen(g) == n_base + strlen(suffix) && !strncmp(g, base, n_base) &&
        !strcmp(g + n_base, suffix))
      return 1;
  }
  return 0;
}

static void emit_func(tsl_strbuf *sb, const tsl_lowered_module *m, const tsl_lowered_func *lf,
                      const char *prefix) {
  const tsl_func *f = lf->source;
  const char *name = func_name(lf);
  tsl_strbuf_printf(sb, "/* %s_%s: prim_func \"%s\"", prefix, name, name);
  if (lf->flops > 0)
    tsl_strbuf_printf(sb, ", %.0f arithmetic operations per call", lf->flops);
  tsl_strbuf_append(sb, ".\n");
  /* weights packed ahead of the calls (lower.h, tsl_func_split_prepack) */
  size_t n = strlen(name), ns = strlen("_prepack");
  if (has_func(m, name, n, "_prepack"))
    tsl_strbuf_printf(sb,
                      " * Takes its layout-free weights packed: call %s_%s_prepack once when\n"
                      " * they are loaded and pass its outputs here.\n",
                      prefix, name);
  else if (n > ns && !strcmp(name + n - ns, "_prepack") && has_func(m, name, n - ns, ""))
    tsl_strbuf_printf(sb,
                      " * Packs the layout-free weights of %s_%.*s into the layout it\n"
                      " * reads; run once when the weights are loaded, not per call.\n",
                      prefix, (int)(n - ns), name);
  for (uint32_t p = 0; p < f->n_params; p++) {
    const tsl_param *pa = &f->params[p];
    const char *note;
    tsl_strbuf_append(sb, " *   ");
    if (pa->buffer) {
      append_name(sb, pa->buffer->name);
      tsl_strbuf_append(sb, ": ");
      shape_text(sb, pa->buffer);
      tsl_strbuf_append(sb, tsl_func_param_is_output(f, p) ? ", written" : ", read");
      c_type(pa->buffer->dtype, &note);
    } else {
      char dt[32];
      append_name(sb, pa->var->name);
      tsl_strbuf_printf(sb, ": %s scalar, by value", tsl_dtype_str(pa->var->dtype, dt));
      c_type(pa->var->dtype, &note);
    }
    if (note)
      tsl_strbuf_printf(sb, " (%s)", note);
    tsl_strbuf_append(sb, "\n");
  }
  for (uint32_t v = 0; v < lf->n_size_vars; v++) {
    tsl_strbuf_append(sb, " *   ");
    append_name(sb, lf->size_vars[v]->name);
    tsl_strbuf_append(sb, ": symbolic size, int64_t\n");
  }
  tsl_strbuf_append(sb, " * Returns 0, or nonzero when the call failed. */\n");

  tsl_strbuf_printf(sb, "int32_t %s_%s(", prefix, name);
  int any = 0;
  for (uint32_t p = 0; p < f->n_params; p++) {
    const tsl_param *pa = &f->params[p];
    const char *note;
    if (any++)
      tsl_strbuf_append(sb, ", ");
    if (pa->buffer) {
      if (!tsl_func_param_is_output(f, p))
        tsl_strbuf_append(sb, "const ");
      tsl_strbuf_printf(sb, "%s *", c_type(pa->buffer->dtype, &note));
      append_name(sb, pa->buffer->name);
    } else {
      tsl_dtype t = pa->var->dtype;
      const char *ct = tsl_dtype_is_bool(t) ? "uint8_t" : c_type(t, &note);
      tsl_strbuf_printf(sb, "%s ", ct);
      append_name(sb, pa->var->name);
    }
  }
  for (uint32_t v = 0; v < lf->n_size_vars; v++) {
    if (any++)
      tsl_strbuf_append(sb, ", ");
    tsl_strbuf_append(sb, "int64_t ");
    append_name(sb, lf->size_vars[v]->name);
  }
  if (!any)
    tsl_strbuf_append(sb, "void");
  tsl_strbuf_append(sb, ");\n");

  tsl_strbuf_append(sb, "/* Packed entry: args[k] points to argument k of the above (a\n"
                        " * buffer's data; a scalar as int64_t or double; a size as int64_t). */\n");
  tsl_strbuf_printf(sb, "int32_t %s_%s_packed(void *const *args);\n\n", prefix, name);
}

char *tsl_export_header(const tsl_lowered_module *m, const char *prefix) {
  if (!m || !is_ident(prefix))
    return NULL;
  for (uint32_t i = 0; i < m->n_funcs; i++)
    if (!m->funcs[i] || !m->funcs[i]->source)
      return NULL;
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  char guard[160];
  size_t n = (size_t)snprintf(guard, sizeof guard, "TESSEL_EXPORT_");
  for (const char *p = prefix; *p && n + 3 < sizeof guard; p++)
    guard[n++] = (char)toupper((unsigned char)*p);
  snprintf(guard + n, sizeof guard - n, "_H");
  tsl_strbuf_printf(&sb,
                    "/*\n"
                    " * C interface of the functions exported with prefix \"%s\".\n"
                    " * Generated by tessel %s; do not edit.\n"
                    " *\n"
                    " * Buffers are dense row-major arrays of the shape and dtype listed\n"
                    " * with each function (64-byte aligned data runs fastest); the\n"
                    " * function writes its outputs in place and keeps no pointer.\n"
                    " */\n"
                    "#ifndef %s\n#define %s\n\n#include <stdint.h>\n\n"
                    "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
                    prefix, TSL_VERSION_STRING, guard, guard);
  for (uint32_t i = 0; i < m->n_funcs; i++)
    emit_func(&sb, m, m->funcs[i], prefix);
  tsl_strbuf_printf(&sb, "#ifdef __cplusplus\n}\n#endif\n#endif /* %s */\n", guard);
  return tsl_strbuf_take(&sb);
}
