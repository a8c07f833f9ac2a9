/*
 * targets/llvm/export.c — deployable libraries: "<path>.o" is an object file
 * emitted by LLVM (position-independent); "<path>.so" is that object linked
 * by the system C compiler: `cc -shared -o PATH OBJ [-lgomp] -lm`, with cc
 * found on PATH (or $CC when set). The C header comes from
 * tsl_export_header (core/tune).
 */
#include "llvm_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tessel/runner.h"

extern char **environ;

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n > k && strcmp(s + n - k, suffix) == 0;
}

static int uses_gomp(LLVMModuleRef mod) {
  return LLVMGetNamedFunction(mod, "GOMP_parallel") != NULL;
}

static int emit_object(LLVMTargetMachineRef tm, LLVMModuleRef mod,
                       const char *path, tsl_diag *diag) {
  char *err = NULL;
  if (LLVMTargetMachineEmitToFile(tm, mod, (char *)path, LLVMObjectFile,
                                  &err)) {
    int st = tsl_diag_set(diag, TSL_EIO,
                          "llvm target: cannot write the object file '%s': "
                          "%s",
                          path, err ? err : "?");
    LLVMDisposeMessage(err);
    return st;
  }
  return TSL_OK;
}

/* Run `argv` (searched on PATH), its output captured for errors. */
static int run_linker(char *const *argv, tsl_diag *diag) {
  char log[] = "/tmp/tessel-link-XXXXXX";
  int fd = mkstemp(log);
  if (fd < 0)
    return tsl_diag_set(diag, TSL_EIO,
                        "llvm target: cannot create a temporary file: %s",
                        strerror(errno));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fd, 1);
  posix_spawn_file_actions_adddup2(&fa, fd, 2);
  pid_t pid;
  int e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  int rc = TSL_OK;
  if (e) {
    rc = tsl_diag_set(diag, TSL_EUNSUPPORTED,
                      "llvm target: cannot run the C compiler '%s' to link "
                      "the shared library (%s); install one (e.g. gcc) and "
                      "put it on PATH, set CC, or export an object file "
                      "(.o) instead",
                      argv[0], strerror(e));
  } else {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
      ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      char out[2048] = "";
      ssize_t n = pread(fd, out, sizeof out - 1, 0);
      out[n > 0 ? n : 0] = '\0';
      /* the linker's lines joined into one: diagnostics are one line */
      size_t len = strlen(out);
      while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == ' '))
        out[--len] = '\0';
      for (char *p = out; *p; p++)
        if (*p == '\n')
          *p = '|';
      rc = tsl_diag_set(diag, TSL_EIO,
                        "llvm target: linking the shared library failed "
                        "(%s exited with status %d): %s",
                        argv[0], WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                        out);
    }
  }
  close(fd);
  unlink(log);
  return rc;
}

static int write_header(const tsl_lowered_module *m, const char *prefix,
                        const char *path, tsl_diag *diag) {
  char *h = tsl_export_header(m, prefix);
  if (!h)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                        "llvm target: cannot write the header '%s': "
                        "tsl_export_header returned nothing (not "
                        "implemented in this build?)",
                        path);
  FILE *f = fopen(path, "wb");
  int rc = TSL_OK;
  if (!f || fputs(h, f) < 0)
    rc = tsl_diag_set(diag, TSL_EIO, "llvm target: cannot write '%s': %s",
                      path, strerror(errno));
  if (f && fclose(f) && !rc)
    rc = tsl_diag_set(diag, TSL_EIO, "llvm target: cannot write '%s': %s",
                      path, strerror(errno));
  free(h);
  return rc;
}

int tll_export(tsl_target *t, const tsl_lowered_module *m, const char *prefix,
               const char *path, const char *header_path, tsl_diag *diag) {
  if (!path || !(ends_with(path, ".o") || ends_with(path, ".so")))
    return tsl_diag_set(diag, TSL_EINVALID,
                        "llvm target: cannot export to '%s': the path must "
                        "end in .o (object file) or .so (shared library)",
                        path ? path : "(null)");
  LLVMTargetMachineRef tm = NULL;
  int rc = tll_target_machine(&t->opts, 1, &tm, diag);
  if (rc)
    return rc;
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef mod = NULL;
  rc = tll_compile(ctx, &t->opts, tm, m, prefix, &mod, NULL, diag);
  if (!rc && ends_with(path, ".o")) {
    rc = emit_object(tm, mod, path, diag);
  } else if (!rc) {
    char obj[] = "/tmp/tessel-export-XXXXXX.o";
    int fd = mkstemps(obj, 2);
    if (fd < 0) {
      rc = tsl_diag_set(diag, TSL_EIO,
                        "llvm target: cannot create a temporary file: %s",
                        strerror(errno));
    } else {
      close(fd);
      rc = emit_object(tm, mod, obj, diag);
      if (!rc) {
        const char *cc = getenv("CC");
        char *argv[10];
        int n = 0;
        argv[n++] = (char *)(cc && *cc ? cc : "cc");
        argv[n++] = "-shared";
        argv[n++] = "-o";
        argv[n++] = (char *)path;
        argv[n++] = obj;
        if (uses_gomp(mod))
          argv[n++] = "-lgomp";
        argv[n++] = "-lm";
        argv[n] = NULL;
        rc = run_linker(argv, diag);
      }
      unlink(obj);
    }
  }
  if (mod)
    LLVMDisposeModule(mod);
  LLVMContextDispose(ctx);
  LLVMDisposeTargetMachine(tm);
  if (!rc && header_path)
    rc = write_header(m, prefix, header_path, diag);
  return rc;
}
