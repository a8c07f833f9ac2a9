/*
 * Weights packed ahead of the calls, in the measuring worker: the packed
 * buffers allocated where the candidate runs, the candidate's prepack
 * function run once on the weights, the argument list of its main function
 * pointed at the packed buffers (see tsl_measure_session_run_prepacked).
 */
#include "measure_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t round64(size_t n) { return (n + 63) & ~(size_t)63; }

int measure_pack_run(const measure_pack *p, tsl_packed_fn prepack, measure_device *dev,
                     const measure_args *a, void **bufs, void **slots, char *err, size_t cap) {
  memset(bufs, 0, sizeof *bufs * MEASURE_MAX_PACKED);
  memcpy(slots, dev->slots, sizeof *slots * (a->n_params + a->n_size_vars));
  void *pre[2 * MEASURE_MAX_PACKED];
  for (uint32_t k = 0; k < p->n; k++) {
    uint32_t q = p->pos[k];
    if (q >= a->n_params || !a->work[q] || a->is_output[q]) {
      snprintf(err, cap, "packed parameter %u is not an input buffer of the function", q);
      return -1;
    }
    size_t bytes = round64(p->bytes[k] ? p->bytes[k] : 1);
    if (dev->hooks) {
      tsl_diag d = {0};
      if (dev->vt->dev_alloc(dev->t, bytes, &bufs[k], &d) || !bufs[k]) {
        snprintf(err, cap, "device: allocating a packed buffer: %s", d.text);
        return -1;
      }
    } else if (!(bufs[k] = aligned_alloc(64, bytes))) {
      snprintf(err, cap, "out of memory for a packed buffer of %zu bytes", bytes);
      return -1;
    }
    pre[k] = dev->slots[q];
    pre[p->n + k] = bufs[k];
    slots[q] = bufs[k];
  }
  int32_t rc = prepack(pre);
  if (rc) {
    snprintf(err, cap, "the prepack function returned %d", (int)rc);
    return -1;
  }
  return measure_device_sync(dev, err, cap);
}

void measure_pack_release(const measure_pack *p, measure_device *dev, void **bufs) {
  for (uint32_t k = 0; k < p->n; k++) {
    if (!bufs[k])
      continue;
    if (dev->hooks)
      dev->vt->dev_free(dev->t, bufs[k]);
    else
      free(bufs[k]);
    bufs[k] = NULL;
  }
}
