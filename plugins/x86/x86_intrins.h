/*
 * plugins/x86/x86_intrins.h — the x86 tensor intrinsics: per intrinsic its
 * name, summary, TVMScript module (description and implementation) and
 * the CPU features its implementation needs.
 */
#ifndef TESSEL_PLUGINS_X86_INTRINS_H
#define TESSEL_PLUGINS_X86_INTRINS_H

#include <stdint.h>

typedef struct x86_intrin {
  const char *name;     /* TVM's where TVM has one: "dot_16x4_vnni" */
  const char *summary;  /* one line for `tessel plugins` */
  const char *script;   /* @I.ir_module with <name>_desc and <name>_impl */
  const char *requires; /* LLVM feature names, comma-separated */
} x86_intrin;

/* The table and its length. */
const x86_intrin *x86_intrins(uint32_t *n);

#endif
