/*
 * targets/llvm/export.c — deployable libraries: "<path>.o" is an object file
 * emitted by LLVM (position-independent); "<path>.so" is that object linked
 * into a shared library (link.c). The C header comes from
 * tsl_export_header (core/tune).
 */
#include "llvm_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tessel/runner.h"

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
  if (!rc && tll_amx_used(mod) && !tll_amx_emulator())
    tll_amx_add_permit(mod); /* amx.c */
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
      if (!rc)
        rc = tll_link_shared_with(obj, path, uses_gomp(mod),
                                  tll_amx_used(mod) ? tll_amx_emulator() : NULL, NULL, diag);
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
