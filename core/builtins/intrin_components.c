/*
 * The built-in tensor intrinsics (core/schedule/intrin_builtin.c) as INTRIN
 * components: each script an @I.ir_module holding the description and the
 * implementation, made once per process and kept for its lifetime.
 */
#include "builtins_internal.h"
#include "tz_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_LEN 136

typedef struct builtin_intrin {
  char *script;
  char desc_name[NAME_MAX_LEN], impl_name[NAME_MAX_LEN];
  tsl_intrin_vtable vt;
} builtin_intrin;

static builtin_intrin *intrins;
static uint32_t n_intrins;
static int made_rc;
static char made_error[256];
static pthread_once_t made_once = PTHREAD_ONCE_INIT;

/* The name after "def " in a prim_func's source. */
static int func_name(const char *src, char *out, size_t cap) {
  const char *p = strstr(src, "def ");
  if (!p)
    return 0;
  p += 4;
  size_t n = 0;
  while (p[n] && p[n] != '(' && n + 1 < cap)
    n++;
  if (p[n] != '(' || n == 0)
    return 0;
  memcpy(out, p, n);
  out[n] = '\0';
  return 1;
}

static void append_indented(tsl_strbuf *sb, const char *src) {
  while (*src) {
    const char *nl = strchr(src, '\n');
    size_t n = nl ? (size_t)(nl - src) : strlen(src);
    if (n)
      tsl_strbuf_append(sb, "    ");
    tsl_strbuf_append_n(sb, src, n);
    tsl_strbuf_append(sb, "\n");
    src += n + (nl ? 1 : 0);
  }
}

static int make_one(const tz_builtin *b, builtin_intrin *bi) {
  if (!func_name(b->desc_src, bi->desc_name, sizeof bi->desc_name) ||
      !func_name(b->impl_src, bi->impl_name, sizeof bi->impl_name)) {
    snprintf(made_error, sizeof made_error,
             "built-in intrinsic '%s': no function name in its source", b->name);
    return TSL_EINVALID;
  }
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  tsl_strbuf_append(&sb, "@I.ir_module\nclass Module:\n");
  append_indented(&sb, b->desc_src);
  tsl_strbuf_append(&sb, "\n");
  append_indented(&sb, b->impl_src);
  bi->script = tsl_strbuf_take(&sb);
  bi->vt = (tsl_intrin_vtable){.struct_size = sizeof bi->vt,
                               .script = bi->script,
                               .desc_func = bi->desc_name,
                               .impl_func = bi->impl_name};
  return TSL_OK;
}

static void make_all(void) {
  uint32_t n;
  const tz_builtin *b = tz_builtins(&n);
  intrins = calloc(n ? n : 1, sizeof *intrins);
  if (!intrins) {
    made_rc = TSL_ENOMEM;
    snprintf(made_error, sizeof made_error, "built-in intrinsics: out of memory");
    return;
  }
  for (uint32_t i = 0; i < n && !made_rc; i++)
    made_rc = make_one(&b[i], &intrins[n_intrins++]);
}

int builtins_register_intrins(tsl_registry *reg, tsl_diag *diag) {
  pthread_once(&made_once, make_all);
  if (made_rc)
    return tsl_diag_set(diag, made_rc, "%s", made_error);
  const tz_builtin *b = tz_builtins(&(uint32_t){0});
  for (uint32_t i = 0; i < n_intrins; i++) {
    tsl_component c = {.struct_size = sizeof c,
                       .kind = TSL_COMPONENT_INTRIN,
                       .name = b[i].name,
                       .version = TSL_VERSION_STRING,
                       .summary = "built-in tensor intrinsic",
                       .vtable = &intrins[i].vt};
    int rc = tsl_registry_add(reg, &c, diag);
    if (rc)
      return rc;
  }
  return TSL_OK;
}
