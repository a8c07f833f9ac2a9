/*
 * The device of a measurement: buffers allocated, filled and read back
 * through the target's device hooks (target.h), or host memory (the `work`
 * buffers themselves) when the target has none.
 */
#include "measure_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

void measure_device_init(measure_device *d, const tsl_target_vtable *vt, tsl_target *t) {
  memset(d, 0, sizeof *d);
  d->vt = vt;
  d->t = t;
  const size_t need = offsetof(tsl_target_vtable, synchronize) + sizeof vt->synchronize;
  d->hooks = vt && vt->struct_size >= need && vt->dev_alloc &&
             vt->dev_free && vt->copy_to_device && vt->copy_from_device && vt->synchronize;
}

static int fail(measure_device *dev, char *err, size_t cap, const char *what,
                const tsl_diag *d) {
  snprintf(err, cap, "device: %s: %s", what, d->text[0] ? d->text : "failed");
  dev->failed = 1;
  return -1;
}

int measure_device_open(measure_device *d, measure_args *a, char *err, size_t cap) {
  if (d->open && d->failed) {
    /* After a failed hook the buffers are not trusted (a GPU rebuilds the
     * context a kernel poisoned, and its memory goes with it): the next
     * measurement allocates its own. The old ones are not freed: their
     * device may be gone. */
    free(d->buf);
    free(d->slots);
    d->buf = d->slots = NULL;
    d->open = d->failed = 0;
  }
  if (d->open)
    return 0;
  if (!d->hooks) { /* host memory: the work buffers, the work slots */
    d->buf = a->work;
    d->slots = a->slots;
    d->open = 1;
    return 0;
  }
  uint32_t n = a->n_params + a->n_size_vars;
  d->buf = calloc(a->n_params + 1, sizeof(void *));
  d->slots = calloc(n + 1, sizeof(void *));
  if (!d->buf || !d->slots) {
    snprintf(err, cap, "device: out of memory for the argument list");
    return -1;
  }
  memcpy(d->slots, a->slots, n * sizeof(void *)); /* scalars and sizes as on the host */
  for (uint32_t p = 0; p < a->n_params; p++) {
    if (!a->work[p])
      continue;
    tsl_diag dd = {0};
    if (d->vt->dev_alloc(d->t, a->bytes[p] ? a->bytes[p] : 1, &d->buf[p], &dd) || !d->buf[p])
      return fail(d, err, cap, "allocating a buffer", &dd);
    d->slots[p] = d->buf[p];
  }
  d->open = 1;
  return 0;
}

int measure_device_upload(measure_device *d, measure_args *a, char *err, size_t cap) {
  if (!d->hooks) {
    measure_args_reset_work(a);
    return 0;
  }
  for (uint32_t p = 0; p < a->n_params; p++) {
    tsl_diag dd = {0};
    if (d->buf[p] && a->bytes[p] &&
        d->vt->copy_to_device(d->t, d->buf[p], a->pristine[p], a->bytes[p], &dd))
      return fail(d, err, cap, "copying the inputs in", &dd);
  }
  return 0;
}

int measure_device_download_into(measure_device *d, measure_args *a, void **dst, char *err,
                                 size_t cap) {
  if (!d->hooks)
    return 0;
  for (uint32_t p = 0; p < a->n_params; p++) {
    tsl_diag dd = {0};
    if (d->buf[p] && a->is_output[p] && a->bytes[p] &&
        d->vt->copy_from_device(d->t, dst[p], d->buf[p], a->bytes[p], &dd))
      return fail(d, err, cap, "copying the outputs back", &dd);
  }
  return 0;
}

int measure_device_download(measure_device *d, measure_args *a, char *err, size_t cap) {
  return measure_device_download_into(d, a, a->work, err, cap);
}

int measure_device_sync(measure_device *d, char *err, size_t cap) {
  tsl_diag dd = {0};
  if (d && d->hooks && d->vt->synchronize(d->t, &dd))
    return fail(d, err, cap, "synchronizing", &dd);
  return 0;
}

typedef struct probe_out {
  int failed;
  char text[sizeof(((tsl_diag *)0)->text)];
} probe_out;

static void probe_body(void *user_data, void *out) {
  measure_device *d = user_data;
  probe_out *o = out;
  tsl_diag dd = {0};
  void *p = NULL;
  o->failed = d->vt->dev_alloc(d->t, 1, &p, &dd) != 0 || !p;
  snprintf(o->text, sizeof o->text, "%s", dd.text[0] ? dd.text : "no buffer");
  if (!o->failed)
    d->vt->dev_free(d->t, p);
}

int measure_device_probe(measure_device *d, char *err, size_t cap) {
  if (!d->hooks)
    return 0;
  probe_out o = {0};
  measure_outcome oc;
  measure_worker_run(120, probe_body, d, &o, sizeof o, &oc);
  if (oc.kind != MEASURE_WORKER_DONE) {
    char why[300];
    measure_outcome_text(&oc, why, sizeof why);
    snprintf(err, cap, "device: reaching the device: %s", why);
    return -1;
  }
  if (o.failed) {
    snprintf(err, cap, "device: %s", o.text);
    return -1;
  }
  return 0;
}
