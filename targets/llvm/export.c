/*
 * targets/llvm/export.c — deployable libraries: "<path>.o" is an object file
 * emitted by LLVM (position-independent); "<path>.so" is that object linked
 * into a shared library (link.c). A kernel with parallel loops carries the
 * thread pool's object in either (thread_pool.h). The C header comes from
 * tsl_export_header (core/tune).
 */
#include "llvm_internal.h"

#include <llvm-c/Object.h>

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

static int uses_pool(LLVMModuleRef mod) {
  return LLVMGetNamedFunction(mod, TLL_PARALLEL_LAUNCH) != NULL;
}

/* `n` bytes written to the file `path`, an error naming it. */
static int write_file(const char *path, const void *data, size_t n, tsl_diag *diag) {
  FILE *f = fopen(path, "wb");
  int rc = TSL_OK;
  if (!f || fwrite(data, 1, n, f) != n)
    rc = tsl_diag_set(diag, TSL_EIO, "llvm target: cannot write '%s': %s", path, strerror(errno));
  if (f && fclose(f) && !rc)
    rc = tsl_diag_set(diag, TSL_EIO, "llvm target: cannot write '%s': %s", path, strerror(errno));
  return rc;
}

/* Whether the object refers to a symbol that it does not define and
 * that is not the thread pool's: a libm function, memset, a libgcc
 * routine. In doubt (the object cannot be read), yes. */
static int refers_beyond_pool(LLVMMemoryBufferRef buf, LLVMModuleRef mod) {
  char *err = NULL;
  LLVMBinaryRef bin = LLVMCreateBinary(buf, NULL, &err);
  LLVMDisposeMessage(err);
  if (!bin)
    return 1;
  size_t len = 0;
  const char *file = LLVMGetSourceFileName(mod, &len); /* its STT_FILE symbol */
  int beyond = 0;
  LLVMSymbolIteratorRef sym = LLVMObjectFileCopySymbolIterator(bin);
  for (; !beyond && !LLVMObjectFileIsSymbolIteratorAtEnd(bin, sym); LLVMMoveToNextSymbol(sym)) {
    const char *name = LLVMGetSymbolName(sym);
    if (!name || !*name || !strcmp(name, TLL_PARALLEL_LAUNCH) ||
        !strcmp(name, TLL_PARALLEL_PREPARE) ||
        (strlen(name) == len && !memcmp(name, file, len)))
      continue;
    int defined = 0;
    LLVMSectionIteratorRef sec = LLVMObjectFileCopySectionIterator(bin);
    for (; !defined && !LLVMObjectFileIsSectionIteratorAtEnd(bin, sec); LLVMMoveToNextSection(sec))
      defined = LLVMGetSectionContainsSymbol(sec, sym);
    LLVMDisposeSectionIterator(sec);
    beyond = !defined;
  }
  LLVMDisposeSymbolIterator(sym);
  LLVMDisposeBinary(bin);
  return beyond;
}

/* The object file at `path`; *libs (may be NULL) gets the libraries a
 * shared library of it links (TLL_LINK_*). */
static int emit_object(LLVMTargetMachineRef tm, LLVMModuleRef mod, const char *path, int *libs,
                       tsl_diag *diag) {
  char *err = NULL;
  LLVMMemoryBufferRef buf = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMObjectFile, &err, &buf)) {
    int st = tsl_diag_set(diag, TSL_EIO, "llvm target: cannot emit the object file '%s': %s",
                          path, err ? err : "?");
    LLVMDisposeMessage(err);
    return st;
  }
  if (libs)
    *libs = (uses_pool(mod) ? TLL_LINK_POOL : 0) |
            (refers_beyond_pool(buf, mod) ? TLL_LINK_C : 0) |
            (tll_uses_libmvec(mod) ? TLL_LINK_MVEC : 0);
  int rc = write_file(path, LLVMGetBufferStart(buf), LLVMGetBufferSize(buf), diag);
  LLVMDisposeMemoryBuffer(buf);
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
  int rc = write_file(path, h, strlen(h), diag);
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
  if (!rc && uses_pool(mod))
    tll_add_pool_prepare(mod, t->opts.threads);
  int as_object = ends_with(path, ".o");
  if (!rc && as_object && !uses_pool(mod)) {
    rc = emit_object(tm, mod, path, NULL, diag);
  } else if (!rc) {
    /* the object, then the thread pool joined to it or a library linked */
    char obj[] = "/tmp/tessel-export-XXXXXX.o";
    int fd = mkstemps(obj, 2);
    if (fd < 0) {
      rc = tsl_diag_set(diag, TSL_EIO,
                        "llvm target: cannot create a temporary file: %s",
                        strerror(errno));
    } else {
      close(fd);
      int libs = 0;
      rc = emit_object(tm, mod, obj, &libs, diag);
      if (!rc && as_object)
        rc = tll_link_with_pool(obj, path, diag);
      else if (!rc)
        rc = tll_link_shared_with(obj, path, libs,
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
