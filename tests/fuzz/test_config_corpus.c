/*
 * Replays the run-config fuzz corpus (corpus_config/) and the config
 * seeds (configs/, tests/config/cases/) through the fuzz target's own check
 * (fuzz_config.c) in the normal build: each input runs in a forked child,
 * which aborts on a crash or on a diagnostic that is not one located line.
 * One TAP case per folder, failing inputs listed.
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
  for (struct dirent *e; (e = readdir(d));) {
    size_t len = strlen(e->d_name), sl = strlen(suffix);
    if (e->d_name[0] == '.' || len < sl || strcmp(e->d_name + len - sl, suffix))
      continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    total++;
    if (run_one(path)) {
      bad++;
      tap_diag("failed: %s", path);
    }
  }
  closedir(d);
  ok(bad == 0 && total > 0, "%s: %d inputs load or fail with one located line", dir, total);
}

int main(void) {
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  if (!root)
    root = ".";
  /* the scratch tree is made here, once, and inherited by every child */
  LLVMFuzzerTestOneInput((const uint8_t *)"", 0);
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus_config", root);
  replay_dir(dir, "");
  snprintf(dir, sizeof dir, "%s/configs", root);
  replay_dir(dir, ".yaml");
  snprintf(dir, sizeof dir, "%s/tests/config/cases", root);
  replay_dir(dir, ".yaml");
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf /tmp/tessel-fuzz-config-%ld", (long)getpid());
  if (system(cmd) != 0)
    tap_diag("could not remove the scratch tree");
  return tap_done();
}
