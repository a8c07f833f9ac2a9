/*
 * Replays fuzz corpora through a fuzz target's own checks in the normal
 * build (no libFuzzer): linked with one target (fuzz_config.c or
 * fuzz_import.c), run as `test_X_replay DIR[:SUFFIX] ...` with folders
 * relative to TESSEL_SOURCE_ROOT. Each input runs in a forked child, which
 * aborts on a crash or a broken invariant. One TAP case per folder, failing
 * inputs listed.
 */
#include "tap.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
void fuzz_target_cleanup(void); /* removes the target's scratch files */

static int run_one(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return -1;
  static uint8_t buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    LLVMFuzzerTestOneInput(buf, n);
    _exit(0);
  }
  int st = 0;
  if (pid < 0 || waitpid(pid, &st, 0) < 0)
    return -1;
  return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static void replay_dir(const char *dir, const char *suffix) {
  DIR *d = opendir(dir);
  if (!ok(d != NULL, "folder %s exists", dir))
    return;
  int total = 0, bad = 0;
  size_t sl = strlen(suffix);
  for (struct dirent *e; (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (e->d_name[0] == '.' || len < sl || strcmp(e->d_name + len - sl, suffix))
      continue;
    char path[4400];
    snprintf(path, sizeof path, "%.4000s/%s", dir, e->d_name);
    total++;
    if (run_one(path)) {
      bad++;
      tap_diag("failed: %s", path);
    }
  }
  closedir(d);
  ok(bad == 0 && total > 0, "%s: %d inputs hold the target's invariants", dir, total);
}

int main(int argc, char **argv) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  if (!root)
    root = ".";
  /* the target's scratch files are made here, once, and inherited */
  LLVMFuzzerTestOneInput((const uint8_t *)"", 0);
  for (int i = 1; i < argc; i++) {
    char spec[1024], dir[4096];
    snprintf(spec, sizeof spec, "%s", argv[i]);
    char *colon = strchr(spec, ':');
    if (colon)
      *colon = '\0';
    snprintf(dir, sizeof dir, "%s/%s", root, spec);
    replay_dir(dir, colon ? colon + 1 : "");
  }
  fuzz_target_cleanup();
  return tap_done();
}
