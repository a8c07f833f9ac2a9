/*
 * plugins/intrin_table/intrin_table.h — what the plugins of generated
 * tensor intrinsics (cuda-wmma, cuda-mma) share, compiled into each of
 * them: a bounded text writer for the TVMScript the generators print, and
 * the plugin entry's work, registering one TSL_COMPONENT_INTRIN per table
 * row with its text made once per process (pthread_once; static storage
 * that lives as long as the plugin).
 */
#ifndef TESSEL_PLUGINS_INTRIN_TABLE_H
#define TESSEL_PLUGINS_INTRIN_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "tessel/plugin.h"

/* Text into a fixed buffer: `over` is set (and nothing more is written)
 * once it does not fit. */
typedef struct it_text {
  char *p;
  size_t cap, len;
  int over;
} it_text;

__attribute__((format(printf, 2, 3))) void it_put(it_text *t, const char *fmt, ...);

/* A plugin's intrinsics: rows 0, 1, ... each with a name (NULL past the
 * last row; the description and implementation are `<name>_desc` /
 * `<name>_impl`), a one-line summary, and a writer of its @I.ir_module into
 * out[cap] (0, or -1 when it does not fit). */
typedef struct it_table {
  const char *plugin; /* "cuda-mma", for messages */
  const char *(*name)(uint32_t i);
  const char *(*summary)(uint32_t i);
  int (*write)(uint32_t i, char *out, size_t cap);
} it_table;

/* Make the texts (the first call only) and register every row; one table
 * per plugin. */
int it_register(const it_table *t, const tsl_host_api *host, tsl_plugin_session *session,
                tsl_diag *diag);

#endif
