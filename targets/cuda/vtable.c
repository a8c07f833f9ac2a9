/*
 * targets/cuda/vtable.c — the tsl_target_vtable of the CUDA target:
 * options, the describe line, and the calls that forward to build.c and
 * driver.c.
 *
 * The default architecture is the device's, asked by a child process: the
 * CUDA driver may not be initialised in a process that later forks the
 * measurement workers. Without a device it is sm_90.
 */
#include "cuda_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { DEFAULT_ARCH = 90 };

/* The compute capability of device `ordinal` (a child process asks), or
 * 0 when there is none. */
static int32_t probe_arch(int32_t ordinal) {
  int fds[2];
  if (pipe(fds))
    return 0;
  pid_t pid = fork();
  if (pid == 0) {
    const tcu_device_info *info = NULL;
    int32_t arch = tcu_driver_open(ordinal, &info, NULL) ? 0 : info->arch;
    ssize_t w = write(fds[1], &arch, sizeof arch);
    _exit(w == (ssize_t)sizeof arch ? 0 : 1);
  }
  close(fds[1]);
  int32_t arch = 0;
  if (pid < 0 || read(fds[0], &arch, sizeof arch) != (ssize_t)sizeof arch)
    arch = 0;
  close(fds[0]);
  if (pid > 0)
    waitpid(pid, NULL, 0);
  return arch;
}

static int parse_arch(const char *v, int32_t *arch) {
  char *end;
  if (!strncmp(v, "sm_", 3))
    v += 3;
  long a = strtol(v, &end, 10);
  if (end == v || *end || a < 10 || a > 999)
    return -1;
  *arch = (int32_t)a;
  return 0;
}

static int t_create(void *ud, uint32_t n, const tsl_kv *kv, tsl_target **out, tsl_diag *diag) {
  (void)ud;
  *out = NULL;
  tsl_target *t = calloc(1, sizeof *t);
  if (!t)
    return tsl_diag_set(diag, TSL_ENOMEM, "cuda target: out of memory");
  strcpy(t->cc, "cc");
  const char *arch = "native";
  int rc = TSL_OK;
  for (uint32_t i = 0; i < n && !rc; i++) {
    const char *k = kv[i].key, *v = kv[i].value;
    char *end;
    if (!strcmp(k, "arch"))
      arch = v;
    else if (!strcmp(k, "device")) {
      long d = strtol(v, &end, 10);
      if (end == v || *end || d < 0 || d > 63)
        rc = tsl_diag_set(diag, TSL_EINVALID, "cuda target: device=%s: valid: a device "
                          "ordinal 0..63", v);
      t->device = (int32_t)d;
    } else if (!strcmp(k, "cc") && strlen(v) < sizeof t->cc)
      strcpy(t->cc, v);
    else
      rc = tsl_diag_set(diag, TSL_EINVALID, "cuda target: unknown option '%s'; valid: arch "
                        "(sm_75 ... sm_121, or native: the device's, sm_%d without one), device "
                        "(the ordinal, default 0), cc (the host C compiler, default cc)", k,
                        DEFAULT_ARCH);
  }
  if (!rc && !strcmp(arch, "native")) {
    t->arch = probe_arch(t->device);
    t->arch = t->arch ? t->arch : DEFAULT_ARCH;
  } else if (!rc && parse_arch(arch, &t->arch))
    rc = tsl_diag_set(diag, TSL_EINVALID, "cuda target: arch=%s: valid: sm_XY as NVRTC names "
                      "it (sm_80, sm_90, ...) or native", arch);
  if (rc) {
    free(t);
    return rc;
  }
  snprintf(t->describe, sizeof t->describe, "cuda -arch=sm_%d -device=%d", (int)t->arch,
           (int)t->device);
  *out = t;
  return TSL_OK;
}

static void t_destroy(tsl_target *t) { free(t); }
static const char *t_describe(tsl_target *t) { return t ? t->describe : ""; }

const tsl_target_vtable tcu_vtable = {
    .struct_size = sizeof(tsl_target_vtable),
    .create = t_create,
    .destroy = t_destroy,
    .describe = t_describe,
    .build = tcu_build,
    .lookup = tcu_lookup,
    .kernel_free = tcu_kernel_free,
    .export_library = tcu_export,
    .time_calls = tcu_time_calls,
    .dev_alloc = tcu_dev_alloc,
    .dev_free = tcu_dev_free,
    .copy_to_device = tcu_copy_to_device,
    .copy_from_device = tcu_copy_from_device,
    .synchronize = tcu_synchronize,
    .space_defaults = &tcu_space_defaults,
};
