/*
 * The tuner's files: each run builds into WORK_DIR/builds/run-PID, removed
 * at the end; folders of runs whose process is gone (killed) are removed by
 * the next run. And the early check of the export path.
 */
#include "tuner_internal.h"
#include "base_internal.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void tune_remove_builds(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return;
  char path[2048];
  for (struct dirent *e; (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    unlink(path);
  }
  closedir(d);
  rmdir(dir);
}

void tune_purge_builds(const char *builds) {
  DIR *d = opendir(builds);
  if (!d)
    return;
  char path[2048];
  for (struct dirent *e; (e = readdir(d));) {
    char *end = NULL;
    if (strncmp(e->d_name, "run-", 4))
      continue;
    long pid = strtol(e->d_name + 4, &end, 10);
    if (!end || *end || pid <= 0 || pid == (long)getpid())
      continue;
    if (kill((pid_t)pid, 0) == 0 || errno == EPERM)
      continue; /* a live run */
    snprintf(path, sizeof path, "%s/%s", builds, e->d_name);
    tune_remove_builds(path);
  }
  closedir(d);
}

int tune_check_export(const char *path, tsl_diag *diag) {
  char dir[2048];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == dir)
    dir[1] = '\0';
  else
    *slash = '\0';
  int rc = tsl_mkdir_p(dir, diag);
  if (rc)
    return rc;
  char probe[2100];
  snprintf(probe, sizeof probe, "%s/.tessel-export-XXXXXX", dir);
  int fd = mkstemp(probe);
  if (fd < 0)
    return tsl_diag_set(diag, TSL_EIO, "cannot write into the folder %s: %s", dir,
                        strerror(errno));
  close(fd);
  unlink(probe);
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
    return tsl_diag_set(diag, TSL_EINVALID, "%s is a folder; valid: a library file path",
                        path);
  return TSL_OK;
}
