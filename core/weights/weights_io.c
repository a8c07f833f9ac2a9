/*
 * Files of named tensors: the format by extension, loading (the file
 * mapped read-only, or read whole when it cannot be mapped, then parsed
 * from memory by the format's reader, which copies the tensors out),
 * saving through a temporary file renamed into place.
 */
#include "weights_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n > k && !strcasecmp(s + n - k, suffix) && s[n - k - 1] != '/';
}

uint32_t tsl_weights_format_of(const char *path) {
  if (!path)
    return TSL_WEIGHTS_UNKNOWN;
  if (ends_with(path, ".npy"))
    return TSL_WEIGHTS_NPY;
  if (ends_with(path, ".npz"))
    return TSL_WEIGHTS_NPZ;
  if (ends_with(path, ".safetensors"))
    return TSL_WEIGHTS_SAFETENSORS;
  return TSL_WEIGHTS_UNKNOWN;
}

const char *tsl_weights_format_name(uint32_t format) {
  switch (format) {
  case TSL_WEIGHTS_NPY: return "npy";
  case TSL_WEIGHTS_NPZ: return "npz";
  case TSL_WEIGHTS_SAFETENSORS: return "safetensors";
  default: return "unknown";
  }
}

/* The format the first bytes look like (for a note when the extension
 * and the contents disagree). */
static uint32_t sniff(const uint8_t *p, size_t n) {
  if (n >= 6 && !memcmp(p, WT_NPY_MAGIC, 6))
    return TSL_WEIGHTS_NPY;
  if (n >= 4 && p[0] == 'P' && p[1] == 'K' && (p[2] == 3 || p[2] == 5) && p[3] == p[2] + 1)
    return TSL_WEIGHTS_NPZ;
  if (n >= 9 && p[8] == '{' && !p[7] && !p[6] && !p[5])
    return TSL_WEIGHTS_SAFETENSORS;
  return TSL_WEIGHTS_UNKNOWN;
}

int tsl_weights_read(const void *bytes, size_t len, uint32_t format, const char *path,
                     tsl_weights **out, tsl_diag *diag) {
  *out = NULL;
  if (!path)
    path = "<memory>";
  const uint8_t *p = bytes ? bytes : (const uint8_t *)"";
  if (!bytes)
    len = 0;
  if (format < TSL_WEIGHTS_NPY || format > TSL_WEIGHTS_SAFETENSORS)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "%s: error: unknown format %u; valid: TSL_WEIGHTS_NPY, "
                        "TSL_WEIGHTS_NPZ, TSL_WEIGHTS_SAFETENSORS",
                        path, format);
  tsl_weights *w = tsl_weights_new();
  if (!w)
    return tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", path);
  int rc = format == TSL_WEIGHTS_NPY   ? wt_npy_read(w, p, len, path, diag)
           : format == TSL_WEIGHTS_NPZ ? wt_npz_read(w, p, len, path, diag)
                                       : wt_st_read(w, p, len, path, diag);
  if (rc) {
    tsl_weights_free(w);
    uint32_t looks = sniff(p, len);
    if (rc == TSL_EPARSE && looks && looks != format)
      tsl_diag_append(diag, "\nnote: its first bytes are those of a .%s file",
                      tsl_weights_format_name(looks));
    return rc;
  }
  *out = w;
  return TSL_OK;
}

int tsl_weights_load(const char *path, tsl_weights **out, tsl_diag *diag) {
  *out = NULL;
  uint32_t format = tsl_weights_format_of(path);
  if (!format)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "%s: error: unknown extension; valid: .npy, .npz, .safetensors",
                        path ? path : "(null)");
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0)
    return tsl_diag_set(diag, TSL_EIO, "%s: error: cannot open file: %s", path,
                        strerror(errno));
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    return tsl_diag_set(diag, TSL_EIO, "%s: error: is a folder; valid: a file", path);
  }
  void *map = MAP_FAILED;
  if (S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX)
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  int rc;
  if (map != MAP_FAILED) {
    close(fd);
    rc = tsl_weights_read(map, (size_t)st.st_size, format, path, out, diag);
    munmap(map, (size_t)st.st_size);
    return rc;
  }
  close(fd);
  char *buf;
  size_t len;
  if ((rc = tsl_read_file(path, &buf, &len, diag)))
    return rc;
  rc = tsl_weights_read(buf, len, format, path, out, diag);
  free(buf);
  return rc;
}

int tsl_weights_save(const tsl_weights *w, const char *path, tsl_diag *diag) {
  uint32_t format = tsl_weights_format_of(path);
  if (!w)
    return tsl_diag_set(diag, TSL_EINVALID, "tsl_weights_save: error: no collection");
  switch (format) {
  case TSL_WEIGHTS_NPY: return wt_npy_save(w, path, diag);
  case TSL_WEIGHTS_NPZ: return wt_npz_save(w, path, diag);
  case TSL_WEIGHTS_SAFETENSORS: return wt_st_save(w, path, diag);
  default:
    return tsl_diag_set(diag, TSL_EINVALID,
                        "%s: error: unknown extension; valid: .npy, .npz, .safetensors",
                        path ? path : "(null)");
  }
}

/* ---- temporary files ------------------------------------------------------------- */

int wt_tmp_open(const char *path, char *tmp, size_t cap, FILE **f, tsl_diag *diag) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^ (uintptr_t)tmp;
  for (int attempt = 0; attempt < 16; attempt++) {
    if ((size_t)snprintf(tmp, cap, "%s.tmp-%08llx", path,
                         (unsigned long long)(tsl_rand_next(&seed) & 0xffffffffu)) >= cap)
      return tsl_diag_set(diag, TSL_EIO, "%s: error: the path is too long", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST)
      continue;
    if (fd < 0)
      return tsl_diag_set(diag, TSL_EIO, "%s: error: cannot write: %s", path,
                          strerror(errno));
    if (!(*f = fdopen(fd, "wb"))) {
      close(fd);
      unlink(tmp);
      return tsl_diag_set(diag, TSL_EIO, "%s: error: cannot write: %s", path,
                          strerror(errno));
    }
    return TSL_OK;
  }
  return tsl_diag_set(diag, TSL_EIO, "%s: error: cannot make a temporary file beside it",
                      path);
}

int wt_write(FILE *f, const void *p, size_t n, const char *path, tsl_diag *diag) {
  if (n && fwrite(p, 1, n, f) != n)
    return tsl_diag_set(diag, TSL_EIO, "%s: error: cannot write: %s", path, strerror(errno));
  return TSL_OK;
}

int wt_tmp_finish(FILE *f, const char *tmp, const char *path, int ok, tsl_diag *diag) {
  int closed = fclose(f) == 0;
  if (ok && !closed) {
    int e = errno;
    unlink(tmp);
    return tsl_diag_set(diag, TSL_EIO, "%s: error: cannot write: %s", path, strerror(e));
  }
  if (!ok) {
    unlink(tmp);
    return TSL_OK;
  }
  if (rename(tmp, path) != 0) {
    int e = errno;
    unlink(tmp);
    return tsl_diag_set(diag, TSL_EIO, "%s: error: cannot write: %s", path, strerror(e));
  }
  return TSL_OK;
}
