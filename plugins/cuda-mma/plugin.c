/*
 * plugins/cuda-mma/plugin.c — the plugin entry: registers the MMA tensor
 * intrinsics of mma_intrins.c as TSL_COMPONENT_INTRIN components. Their
 * scripts are generated once per process (the plugin stays loaded while a
 * registry holds it, and the texts live as long as the plugin).
 */
#include "mma_intrins.h"

#include "tessel/plugin.h"

#include <pthread.h>
#include <stdio.h>

enum { MAX_INTRINS = 64, SCRIPT_CAP = 4096, NAME_CAP = 96 };

typedef struct made_intrin {
  char script[SCRIPT_CAP];
  char desc[NAME_CAP], impl[NAME_CAP];
  tsl_intrin_vtable vt;
} made_intrin;

static made_intrin made[MAX_INTRINS];
static uint32_t n_made;
static char made_error[160];
static pthread_once_t made_once = PTHREAD_ONCE_INIT;

static void make_all(void) {
  uint32_t n;
  const mma_intrin *w = mma_intrins(&n);
  if (n > MAX_INTRINS) {
    snprintf(made_error, sizeof made_error, "%u intrinsics, room for %d", n, MAX_INTRINS);
    return;
  }
  for (uint32_t i = 0; i < n; i++) {
    made_intrin *m = &made[i];
    if (w[i].gen(&w[i], m->script, sizeof m->script) ||
        snprintf(m->desc, sizeof m->desc, "%s_desc", w[i].name) >= NAME_CAP ||
        snprintf(m->impl, sizeof m->impl, "%s_impl", w[i].name) >= NAME_CAP) {
      snprintf(made_error, sizeof made_error, "intrinsic '%s': its text does not fit",
               w[i].name);
      return;
    }
    m->vt = (tsl_intrin_vtable){.struct_size = sizeof m->vt,
                                .script = m->script,
                                .desc_func = m->desc,
                                .impl_func = m->impl};
  }
  n_made = n;
}

TSL_PLUGIN_ENTRY(host, session, diag) {
  pthread_once(&made_once, make_all);
  if (made_error[0])
    return tsl_diag_set(diag, TSL_EINVALID, "cuda-mma: %s", made_error);
  uint32_t n;
  const mma_intrin *w = mma_intrins(&n);
  for (uint32_t i = 0; i < n_made; i++) {
    tsl_component c = {
        .struct_size = sizeof(tsl_component),
        .kind = TSL_COMPONENT_INTRIN,
        .name = w[i].name,
        .version = "0.1.0",
        .summary = w[i].summary,
        .vtable = &made[i].vt,
        .user_data = NULL,
    };
    int rc = host->register_component(session, &c, diag);
    if (rc)
      return rc;
  }
  return 0;
}
