/*
 * The timing loop of a measurement (runs inside the worker): warm-up calls,
 * then `repeat` repeats of `number` calls, `number` growing while a repeat
 * is shorter than min_repeat_ms (the rule of TVM's time_evaluator: at least
 * the golden ratio more, at least enough for the time measured so far;
 * here the first repeat already starts from what the checked call's time
 * asks for, where TVM first runs a short one to learn it), and
 * optionally a cache flush before every timed call, each then timed alone.
 * Also the size of that flush buffer.
 */
#include "measure_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A repeat never makes more calls than this (a function of ~0 ns with a
 * large min_repeat_ms would otherwise grow `number` without bound). */
#define NUMBER_CAP (1 << 28)

double measure_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double measure_median(const double *v, int32_t n) {
  if (n <= 0)
    return 0;
  double tmp[TSL_RUN_MAX_REPEAT];
  if (n > TSL_RUN_MAX_REPEAT)
    n = TSL_RUN_MAX_REPEAT;
  memcpy(tmp, v, sizeof(double) * (size_t)n);
  qsort(tmp, (size_t)n, sizeof(double), cmp_double);
  return n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
}

/* Size of the last-level cache in bytes from sysfs (the highest cache
 * level of cpu0), or 0. */
static size_t sysfs_llc(void) {
  size_t best = 0;
  int best_level = 0;
  for (int idx = 0; idx < 8; idx++) {
    char path[128], buf[64];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", idx);
    FILE *f = fopen(path, "r");
    if (!f)
      break;
    int level = 0;
    if (fscanf(f, "%d", &level) != 1)
      level = 0;
    fclose(f);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
    if (!(f = fopen(path, "r")))
      continue;
    size_t size = 0;
    if (fgets(buf, sizeof buf, f)) {
      char *end;
      unsigned long long v = strtoull(buf, &end, 10);
      size = (size_t)v;
      if (*end == 'K')
        size <<= 10;
      else if (*end == 'M')
        size <<= 20;
      else if (*end == 'G')
        size <<= 30;
    }
    fclose(f);
    if (level >= best_level && size > 0) {
      best_level = level;
      best = size;
    }
  }
  return best;
}

size_t measure_flush_size(void) {
  size_t llc = sysfs_llc();
#ifdef _SC_LEVEL3_CACHE_SIZE
  if (!llc) {
    long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (v > 0)
      llc = (size_t)v;
  }
#endif
  size_t size = llc ? llc + llc / 2 : (size_t)48 << 20;
  if (size < ((size_t)8 << 20))
    size = (size_t)8 << 20;
  if (size > ((size_t)256 << 20))
    size = (size_t)256 << 20;
  return size;
}

static void flush_caches(measure_flush *fl) {
  /* Writing (not reading) every line evicts the previous contents and
   * leaves the function's data cold. The counter keeps the stores live. */
  volatile unsigned char *b = fl->buf;
  unsigned char v = (unsigned char)(b[0] + 1);
  for (size_t i = 0; i < fl->size; i += 64)
    b[i] = v;
}

/* The device has finished the calls made (else *rc = INT32_MIN, the
 * message in res->error). */
static void device_sync(measure_device *dev, int32_t *rc, tsl_run_result *res) {
  if (dev && !*rc && measure_device_sync(dev, res->error, sizeof res->error))
    *rc = INT32_MIN;
}

/* Seconds of `number` calls by the device's own timer (the target's
 * time_calls: CUDA events), or -1 when the target has none. */
static double device_timed(tsl_packed_fn fn, void *const *slots, int32_t number,
                           measure_device *dev, int32_t *rc, tsl_run_result *res) {
  if (!dev || !dev->hooks || !dev->vt->time_calls)
    return -1;
  tsl_diag d = {0};
  double mean = 0;
  if (dev->vt->time_calls(dev->t, NULL, fn, slots, number, &mean, &d)) {
    snprintf(res->error, sizeof res->error, "device: timing the calls: %.440s",
             d.text[0] ? d.text : "failed");
    dev->failed = 1;
    *rc = INT32_MIN;
    return 0;
  }
  return mean * number;
}

/* Total seconds of `number` calls; *rc gets the first nonzero return. */
static double time_repeat(tsl_packed_fn fn, void *const *slots, int32_t number,
                          measure_flush *fl, measure_device *dev, int32_t *rc,
                          tsl_run_result *res) {
  double total = 0;
  if (!fl && (total = device_timed(fn, slots, number, dev, rc, res)) >= 0)
    return total;
  total = 0;
  if (!fl) {
    double t0 = measure_now();
    for (int32_t i = 0; i < number; i++) {
      int32_t r = fn(slots);
      if (r && !*rc)
        *rc = r;
    }
    device_sync(dev, rc, res);
    return measure_now() - t0;
  }
  for (int32_t i = 0; i < number; i++) {
    flush_caches(fl);
    double t0 = measure_now();
    int32_t r = fn(slots);
    if (r && !*rc)
      *rc = r;
    device_sync(dev, rc, res);
    total += measure_now() - t0;
  }
  return total;
}

int32_t measure_time_calls(tsl_packed_fn fn, void *const *slots, const tsl_run_opts *o,
                        measure_flush *fl, measure_device *dev, tsl_run_result *res) {
  int32_t rc = 0;
  for (int32_t i = 0; i < o->warmup && !rc; i++)
    rc = fn(slots);
  device_sync(dev, &rc, res);
  int32_t number = o->number < 1 ? 1 : o->number;
  int32_t repeat = o->repeat < 1 ? 1 : o->repeat;
  if (repeat > TSL_RUN_MAX_REPEAT)
    repeat = TSL_RUN_MAX_REPEAT;
  double min_s = o->min_repeat_ms > 0 ? o->min_repeat_ms * 1e-3 : 0;
  if (res->check_s > 0 && number * res->check_s < min_s) /* TVM's growth rule */
    number = min_s / res->check_s + 1 >= NUMBER_CAP ? NUMBER_CAP
                                                   : (int32_t)ceil(min_s / res->check_s + 1);
  res->n_times = 0;
  for (int32_t r = 0; r < repeat && !rc; r++) {
    double t = time_repeat(fn, slots, number, fl, dev, &rc, res);
    /* A repeat shorter than min_s is extended, not restarted: more calls
     * are timed and added to it until it lasts min_s (TVM measures the
     * grown repeat afresh; the calls made would be thrown away). */
    int32_t made = number;
    while (!rc && t < min_s && made < NUMBER_CAP) {
      double per = t / made;
      double want = per > 0 ? min_s / per + 1 : (double)made * 2;
      int32_t total = want >= NUMBER_CAP ? NUMBER_CAP : (int32_t)ceil(want);
      if (total <= made)
        total = made + 1;
      t += time_repeat(fn, slots, total - made, fl, dev, &rc, res);
      made = total;
    }
    number = made;
    res->times_s[res->n_times++] = t / number;
  }
  res->number = number;
  res->median_s = measure_median(res->times_s, res->n_times);
  return rc;
}
