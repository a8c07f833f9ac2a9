/*
 * plugins/intrin_table/intrin_table.c — see intrin_table.h.
 */
#include "intrin_table.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

void it_put(it_text *t, const char *fmt, ...) {
  if (t->over)
    return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= t->cap - t->len)
    t->over = 1;
  else
    t->len += (size_t)n;
}

enum { MAX_INTRINS = 64, SCRIPT_CAP = 6144, NAME_CAP = 96 };

typedef struct made_intrin {
  char script[SCRIPT_CAP];
  char desc[NAME_CAP], impl[NAME_CAP];
  tsl_intrin_vtable vt;
} made_intrin;

static made_intrin made[MAX_INTRINS];
static uint32_t n_made;
static char made_error[160];
static const it_table *table; /* the plugin's one table */
static pthread_once_t made_once = PTHREAD_ONCE_INIT;

static void make_all(void) {
  const it_table *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
  while (t->name(n_made))
    n_made++;
  if (n_made > MAX_INTRINS) {
    snprintf(made_error, sizeof made_error, "%u intrinsics, room for %d", n_made, MAX_INTRINS);
    return;
  }
  for (uint32_t i = 0; i < n_made; i++) {
    made_intrin *m = &made[i];
    const char *name = t->name(i);
    if (t->write(i, m->script, sizeof m->script) ||
        snprintf(m->desc, sizeof m->desc, "%s_desc", name) >= NAME_CAP ||
        snprintf(m->impl, sizeof m->impl, "%s_impl", name) >= NAME_CAP) {
      snprintf(made_error, sizeof made_error, "intrinsic '%s': its text does not fit", name);
      return;
    }
    m->vt = (tsl_intrin_vtable){.struct_size = sizeof m->vt,
                                .script = m->script,
                                .desc_func = m->desc,
                                .impl_func = m->impl};
  }
}

int it_register(const it_table *t, const tsl_host_api *host, tsl_plugin_session *session,
                tsl_diag *diag) {
  /* the plugin's one table: the same pointer on every call */
  __atomic_store_n(&table, t, __ATOMIC_RELEASE);
  pthread_once(&made_once, make_all);
  if (made_error[0])
    return tsl_diag_set(diag, TSL_EINVALID, "%s: %s", t->plugin, made_error);
  for (uint32_t i = 0; i < n_made; i++) {
    tsl_component c = {
        .struct_size = sizeof(tsl_component),
        .kind = TSL_COMPONENT_INTRIN,
        .name = t->name(i),
        .version = "0.1.0",
        .summary = t->summary(i),
        .vtable = &made[i].vt,
        .user_data = NULL,
    };
    int rc = host->register_component(session, &c, diag);
    if (rc)
      return rc;
  }
  return 0;
}
