/*
 * libFuzzer target for run configs (core/config): every input is a YAML
 * config; its lines starting with "#--set " (YAML comments) are also passed
 * as --set overrides. tsl_run_config_load must either succeed with values
 * in their documented ranges, or fail with one line that says where:
 * "FILE:LINE:COL: error: ", "FILE: error: " or "--set KEY=VALUE: error: ".
 * Anything else, a crash or a sanitizer report aborts.
 *
 * The config is written into a scratch tree whose links make the relative
 * paths of the seeds (configs/ and tests/config/cases/) resolve:
 * D/a/b/c/in.yaml, with D/workloads and D/a/b/workloads linking to the
 * source tree's workloads/ (TESSEL_SOURCE_ROOT, default the compile-time
 * root).
 */
#include "tessel/tessel.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TESSEL_ROOT
#define TESSEL_ROOT "."
#endif

static char g_cfg[256];

static void make_tree(void) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  char wl[PATH_MAX], d[64], p[128];
  snprintf(wl, sizeof wl, "%s/workloads", root ? root : TESSEL_ROOT);
  snprintf(d, sizeof d, "/tmp/tessel-fuzz-config-%ld", (long)getpid());
  snprintf(p, sizeof p, "%s/a/b/c", d);
  char cmd[3 * PATH_MAX];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s' && ln -sfn '%s' '%s/workloads' && "
           "ln -sfn '%s' '%s/a/b/workloads'", p, wl, d, wl, d);
  if (system(cmd) != 0)
    abort();
  snprintf(g_cfg, sizeof g_cfg, "%s/in.yaml", p);
}

void fuzz_target_cleanup(void);
void fuzz_target_cleanup(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf /tmp/tessel-fuzz-config-%ld", (long)getpid());
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove the scratch tree\n");
}

static int one_line_located(const char *msg, const char *path) {
  if (!msg[0] || strchr(msg, '\n'))
    return 0;
  if (!strncmp(msg, "--set ", 6))
    return strstr(msg, ": error: ") != NULL;
  size_t n = strlen(path);
  if (strncmp(msg, path, n) || msg[n] != ':')
    return 0;
  const char *q = msg + n + 1;
  if (!strncmp(q, " error: ", 8))
    return 1;
  char *end;
  long line = strtol(q, &end, 10);
  if (end == q || line < 1 || *end != ':')
    return 0;
  q = end + 1;
  long col = strtol(q, &end, 10);
  return end != q && col >= 1 && !strncmp(end, ": error: ", 9);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!g_cfg[0])
    make_tree();
  FILE *f = fopen(g_cfg, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
    abort();
  /* overrides: "#--set K=V" lines */
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = '\0';
  const char *sets[16];
  uint32_t n_sets = 0;
  for (char *line = text; line && n_sets < 16;) {
    char *nl = strchr(line, '\n');
    if (nl)
      *nl = '\0';
    if (!strncmp(line, "#--set ", 7))
      sets[n_sets++] = line + 7;
    line = nl ? nl + 1 : NULL;
  }
  tsl_run_config *c = NULL;
  tsl_diag d = {0};
  int rc = tsl_run_config_load(g_cfg, n_sets, sets, &c, &d);
  if (rc) {
    if (c || !one_line_located(d.text, g_cfg)) {
      fprintf(stderr, "bad diagnostic: '%s'\n", d.text);
      abort();
    }
  } else {
    if (!c || !c->target.kind || !c->strategy.kind || !c->workload_file ||
        (!c->space_schedule && !c->space_rules) || !c->database || c->trials < 1 || c->batch < 1 ||
        c->batch > 4096 || c->build_workers < 1 || !(c->build_timeout_s > 0) ||
        !(c->runner.timeout_s > 0) || c->runner.repeat < 1 ||
        (c->export_path && (!c->export_prefix || !c->export_header))) {
      fprintf(stderr, "loaded a config out of its documented ranges\n");
      abort();
    }
    (void)tsl_run_config_where(c, "strategy.trials");
    tsl_run_config_free(c);
  }
  free(text);
  return 0;
}
