/*
 * targets/llvm/link.c — an object file linked into a shared library.
 *
 * The C compiler's driver (`cc -shared -o PATH OBJ [POOL.o] -lm`) takes
 * about 25 ms a library: the driver, collect2, the LTO plugin, and ld's
 * search for -lc, -lgcc_s, -lm through nine directories and three linker
 * scripts. ld given the same crt files and libraries by absolute path does
 * it in about 12 ms, which a tuning run pays once per candidate. So the
 * compiler is asked once per process (per $CC) where its ld, crt files and
 * libraries are (`-print-search-dirs`), and libraries are linked by ld
 * directly; when something is not found, or ld fails, the driver links as
 * before (and its errors are the ones reported); a library the driver links
 * where ld failed turns direct linking off for that process and $CC.
 *
 * A kernel with parallel loops carries the thread pool: its object,
 * embedded in the plugin, is written to a temporary file and linked in.
 */
#include "llvm_internal.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The files ld is given, in the driver's order around the object. */
/* libc_nonshared.a: what the driver's libc.so script links after
 * libc.so.6 (pthread_atfork and atexit bound to the library's handle, so
 * that dlclose unregisters them). */
enum {
  F_CRTI, F_CRTBEGIN, F_MVEC, F_LIBM, F_LIBGCC, F_LIBC, F_LIBC_NONSHARED, F_CRTEND, F_CRTN,
  N_FILES
};
static const char *const file_names[N_FILES] = {
    "crti.o", "crtbeginS.o", "libmvec.so.1", "libm.so.6", "libgcc.a",
    "libc.so.6", "libc_nonshared.a", "crtendS.o", "crtn.o"};

typedef struct toolchain {
  char cc[512];   /* the compiler these were asked of */
  int direct;     /* everything found: ld can be run directly */
  int has_mvec;   /* libmvec found too (where it is not, the driver links it) */
  char ld[1024];  /* a path, or "ld" (searched on PATH) */
  char files[N_FILES][1024];
} toolchain;

static pthread_mutex_t tc_lock = PTHREAD_MUTEX_INITIALIZER;
static toolchain tc;
static int tc_known;

static const char *compiler(void) {
  const char *cc = getenv("CC");
  return cc && *cc ? cc : "cc";
}

/* Runs `argv` (searched on PATH) with its stdout and stderr in `out`
 * (NUL-terminated, cut at cap); *status: its exit status, or -1 when it
 * did not exit. Returns 0 when it ran, posix_spawn's error when it could
 * not start, or minus errno when the file for its output could not be
 * made. */
static int run_captured(char *const *argv, char *out, size_t cap, int *status) {
  char log[] = "/tmp/tessel-link-XXXXXX";
  int fd = mkstemp(log);
  out[0] = '\0';
  if (fd < 0)
    return -errno;
  unlink(log);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fd, 1);
  posix_spawn_file_actions_adddup2(&fa, fd, 2);
  pid_t pid;
  int e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (!e) {
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
      ;
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    ssize_t n = pread(fd, out, cap - 1, 0);
    out[n > 0 ? n : 0] = '\0';
  }
  close(fd);
  return e;
}

/* `name` in the colon-separated directories of the line of `dirs` that
 * starts with `key` ("libraries: =" or "programs: ="), into `path`; 0 when
 * found. */
static int find_in(const char *dirs, const char *key, const char *name, int exec,
                   char *path, size_t cap) {
  const char *p = strstr(dirs, key);
  if (!p)
    return -1;
  p += strlen(key);
  while (*p && *p != '\n') {
    size_t n = strcspn(p, ":\n");
    struct stat st;
    if (n && snprintf(path, cap, "%.*s/%s", (int)n, p, name) < (int)cap &&
        stat(path, &st) == 0 && S_ISREG(st.st_mode) && (!exec || access(path, X_OK) == 0))
      return 0;
    p += n;
    if (*p == ':')
      p++;
  }
  return -1;
}

/* tc filled in for `cc` (the lock held). */
static void resolve(const char *cc) {
  memset(&tc, 0, sizeof tc);
  snprintf(tc.cc, sizeof tc.cc, "%s", cc);
  tc_known = 1;
  static char dirs[16384];
  char *argv[] = {(char *)cc, "-print-search-dirs", NULL};
  int status = -1;
  if (run_captured(argv, dirs, sizeof dirs, &status) || status != 0)
    return;
  if (find_in(dirs, "programs: =", "ld", 1, tc.ld, sizeof tc.ld))
    snprintf(tc.ld, sizeof tc.ld, "ld");
  for (int i = 0; i < N_FILES; i++)
    if (i != F_MVEC &&
        find_in(dirs, "libraries: =", file_names[i], 0, tc.files[i], sizeof tc.files[i]))
      return;
  tc.has_mvec = !find_in(dirs, "libraries: =", file_names[F_MVEC], 0, tc.files[F_MVEC],
                         sizeof tc.files[F_MVEC]);
  tc.direct = 1;
}

/* The linker's lines joined into one: diagnostics are one line. */
static void join_lines(char *out) {
  size_t len = strlen(out);
  while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == ' '))
    out[--len] = '\0';
  for (char *p = out; *p; p++)
    if (*p == '\n')
      *p = '|';
}

/* The driver's line, its errors reported. */
static int link_by_driver(const char *cc, const char *obj, const char *pool, const char *so,
                          int libs, const char *lib, const char *rpath, tsl_diag *diag) {
  char *argv[12];
  int n = 0;
  argv[n++] = (char *)cc;
  argv[n++] = "-shared";
  argv[n++] = "-o";
  argv[n++] = (char *)so;
  argv[n++] = (char *)obj;
  if (pool)
    argv[n++] = (char *)pool;
  if (lib) {
    argv[n++] = (char *)lib;
    argv[n++] = (char *)rpath;
  }
  if (libs & TLL_LINK_MVEC)
    argv[n++] = "-lmvec";
  argv[n++] = "-lm";
  argv[n] = NULL;
  char out[2048];
  int status = -1;
  int e = run_captured(argv, out, sizeof out, &status);
  if (e < 0)
    return tsl_diag_set(diag, TSL_EIO, "llvm target: cannot create a temporary file: %s",
                        strerror(-e));
  if (e)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                        "llvm target: cannot run the C compiler '%s' to link "
                        "the shared library (%s); install one (e.g. gcc) and "
                        "put it on PATH, set CC, or export an object file "
                        "(.o) instead",
                        cc, strerror(e));
  if (status == 0)
    return TSL_OK;
  join_lines(out);
  return tsl_diag_set(diag, TSL_EIO,
                      "llvm target: linking the shared library failed "
                      "(%s exited with status %d): %s",
                      cc, status, out);
}

/* The pool's object in a new temporary file, its path in `path`. */
static int write_pool_object(char path[32], tsl_diag *diag) {
  snprintf(path, 32, "/tmp/tessel-pool-XXXXXX.o");
  int fd = mkstemps(path, 2);
  if (fd < 0)
    return tsl_diag_set(diag, TSL_EIO, "llvm target: cannot create a temporary file: %s",
                        strerror(errno));
  size_t done = 0;
  int e = EIO;
  while (done < tll_pool_object_size) {
    ssize_t w = write(fd, tll_pool_object + done, tll_pool_object_size - done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      e = w < 0 ? errno : EIO;
      break;
    }
    done += (size_t)w;
  }
  close(fd);
  if (done == tll_pool_object_size)
    return TSL_OK;
  unlink(path);
  return tsl_diag_set(diag, TSL_EIO, "llvm target: cannot write '%s': %s", path, strerror(e));
}

int tll_link_with_pool(const char *obj, const char *out, tsl_diag *diag) {
  char pool[32];
  int rc = write_pool_object(pool, diag);
  if (rc)
    return rc;
  pthread_mutex_lock(&tc_lock);
  if (!tc_known || strcmp(tc.cc, compiler()) != 0)
    resolve(compiler());
  char ld[1024];
  snprintf(ld, sizeof ld, "%s", tc.ld[0] ? tc.ld : "ld");
  pthread_mutex_unlock(&tc_lock);
  char *argv[] = {ld, "-r", "-o", (char *)out, (char *)obj, pool, NULL};
  char msg[2048];
  int status = -1;
  int e = run_captured(argv, msg, sizeof msg, &status);
  unlink(pool);
  if (e > 0)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                        "llvm target: cannot run the linker '%s' to add the thread pool to the "
                        "object file (%s); install binutils (ld), or build with threads=1 (no "
                        "parallel loops)",
                        ld, strerror(e));
  if (e < 0)
    return tsl_diag_set(diag, TSL_EIO, "llvm target: cannot create a temporary file: %s",
                        strerror(-e));
  join_lines(msg);
  if (status != 0)
    return tsl_diag_set(diag, TSL_EIO,
                        "llvm target: adding the thread pool to the object file failed (%s -r "
                        "exited with status %d): %s",
                        ld, status, msg);
  return TSL_OK;
}

int tll_link_shared(const char *obj, const char *so, int libs, int *direct, tsl_diag *diag) {
  return tll_link_shared_with(obj, so, libs, NULL, direct, diag);
}

static int link_objects(const char *obj, const char *pool, const char *so, int libs,
                        const char *lib, int *direct, tsl_diag *diag);

int tll_link_shared_with(const char *obj, const char *so, int libs, const char *lib, int *direct,
                         tsl_diag *diag) {
  if (!(libs & TLL_LINK_POOL))
    return link_objects(obj, NULL, so, libs, lib, direct, diag);
  char pool[32];
  int rc = write_pool_object(pool, diag);
  if (!rc)
    rc = link_objects(obj, pool, so, libs | TLL_LINK_C, lib, direct, diag);
  unlink(pool);
  return rc;
}

static int link_objects(const char *obj, const char *pool, const char *so, int libs,
                        const char *lib, int *direct, tsl_diag *diag) {
  const char *cc = compiler();
  char *argv[28];
  /* `lib` by its absolute path, found again through a run path to its
   * folder */
  char abs[PATH_MAX], dir[PATH_MAX], ld_rpath[PATH_MAX + 16], cc_rpath[PATH_MAX + 16];
  if (lib) {
    if (!realpath(lib, abs))
      return tsl_diag_set(diag, TSL_EIO, "llvm target: cannot link %s: %s", lib,
                          strerror(errno));
    lib = abs;
    snprintf(dir, sizeof dir, "%s", abs);
    *strrchr(dir, '/') = 0;
    snprintf(ld_rpath, sizeof ld_rpath, "-rpath=%s", dir);
    snprintf(cc_rpath, sizeof cc_rpath, "-Wl,-rpath,%s", dir);
  }
  char ld[1024], files[N_FILES][1024];
  int n = 0;
  pthread_mutex_lock(&tc_lock);
  if (!tc_known || strcmp(tc.cc, cc) != 0)
    resolve(cc);
  int can = tc.direct && (tc.has_mvec || !(libs & TLL_LINK_MVEC));
  if (can) {
    memcpy(ld, tc.ld, sizeof ld);
    memcpy(files, tc.files, sizeof files);
  }
  pthread_mutex_unlock(&tc_lock);
  if (direct)
    *direct = 0;
  if (can) {
    argv[n++] = ld;
    argv[n++] = "--build-id";
    argv[n++] = "--eh-frame-hdr";
    argv[n++] = "--hash-style=gnu";
    argv[n++] = "--as-needed";
    argv[n++] = "-shared";
    argv[n++] = "-o";
    argv[n++] = (char *)so;
    for (int i = 0; i < N_FILES; i++) {
      if ((i == F_MVEC && !(libs & TLL_LINK_MVEC)) ||
          ((i == F_LIBM || i == F_LIBGCC || i == F_LIBC || i == F_LIBC_NONSHARED) &&
           !(libs & TLL_LINK_C)))
        continue;
      argv[n++] = files[i];
      if (i == F_CRTBEGIN)
        argv[n++] = (char *)obj;
      if (i == F_CRTBEGIN && pool)
        argv[n++] = (char *)pool;
      if (i == F_CRTBEGIN && lib) {
        argv[n++] = (char *)lib;
        argv[n++] = ld_rpath;
      }
    }
    argv[n] = NULL;
    char out[2048];
    int status = -1;
    if (!run_captured(argv, out, sizeof out, &status) && status == 0) {
      if (direct)
        *direct = 1;
      return TSL_OK;
    }
  }
  int rc = link_by_driver(cc, obj, pool, so, libs, lib, lib ? cc_rpath : NULL, diag);
  if (can && rc == TSL_OK) {
    /* the driver links what ld alone did not: the driver from now on */
    pthread_mutex_lock(&tc_lock);
    if (strcmp(tc.cc, cc) == 0)
      tc.direct = 0;
    pthread_mutex_unlock(&tc_lock);
  }
  return rc;
}
