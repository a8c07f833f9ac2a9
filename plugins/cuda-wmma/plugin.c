/*
 * plugins/cuda-wmma/plugin.c — the plugin entry: registers the WMMA tensor
 * intrinsics of wmma_intrins.c as TSL_COMPONENT_INTRIN components through
 * plugins/intrin_table (their scripts made once per process).
 */
#include "wmma_intrins.h"

#include "intrin_table.h"

/* Row i of the table, or NULL past its end. */
static const wmma_intrin *row(uint32_t i) {
  uint32_t n;
  const wmma_intrin *w = wmma_intrins(&n);
  return i < n ? &w[i] : NULL;
}

static const char *name(uint32_t i) { return row(i) ? row(i)->name : NULL; }
static const char *summary(uint32_t i) { return row(i)->summary; }
static int text_of(uint32_t i, char *out, size_t cap) { return row(i)->gen(row(i), out, cap); }

static const it_table table = {"cuda-wmma", name, summary, text_of};

TSL_PLUGIN_ENTRY(host, session, diag) { return it_register(&table, host, session, diag); }
