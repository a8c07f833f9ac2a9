/*
 * core/weights/weights_internal.h — what the files of core/weights share:
 * the dtype table, sizes, messages that name the input, the .npy header
 * (read and written by npy.c, used by npz.c), the readers and writers of
 * each format, and the temporary-file writer.
 */
#ifndef TSL_WEIGHTS_INTERNAL_H
#define TSL_WEIGHTS_INTERNAL_H

#include <stdio.h>

#include "tessel/base.h"
#include "tessel/weights.h"

/* One row per supported dtype: tessel's dtype, NumPy's kind character and
 * item size ('\0': none, bfloat16), safetensors' name. */
typedef struct wt_dtype_row {
  tsl_dtype dtype;
  char npy_kind; /* 'f', 'i', 'u', 'b' */
  uint8_t size;  /* bytes per element */
  const char *st_name;
} wt_dtype_row;

/* The row of `dt`, or NULL when it is not supported. */
const wt_dtype_row *wt_dtype_row_of(tsl_dtype dt);
/* The row of safetensors' name (exactly `n` bytes), or NULL. */
const wt_dtype_row *wt_dtype_by_st_name(const char *s, size_t n);
/* The row of NumPy's kind and size, or NULL. */
const wt_dtype_row *wt_dtype_by_npy(char kind, unsigned size);
/* "F16, BF16, ..." / "<f2, <f4, ..." for messages. */
const char *wt_st_names(void);
const char *wt_npy_descrs(void);

/* numel and bytes of a shape: 0 when they fit (the product of the
 * non-zero dims times `elem` fits int64), -1 when a dim is negative, -2
 * when the size overflows. */
int wt_sizes(uint32_t ndim, const int64_t *shape, size_t elem, uint64_t *numel,
             uint64_t *nbytes);
/* "[2, 3]" into buf (truncated with "..." past cap). */
const char *wt_shape_str(uint32_t ndim, const int64_t *shape, char *buf, size_t cap);
/* 1 when the `n` bytes are valid UTF-8. */
int wt_utf8_ok(const char *s, size_t n);

/* Where a message points: the file, and the member of an archive and the
 * tensor when known (NULL: not named). */
typedef struct wt_where {
  const char *path;
  const char *member;
  const char *tensor;
} wt_where;

/* tsl_diag_set with "PATH: error: [member 'M': ][tensor 'T': ]" before
 * the message; returns status. */
int wt_fail(tsl_diag *diag, int status, const wt_where *at, const char *fmt, ...)
    TSL_PRINTF(4, 5);

/* Append a tensor with uninitialised data (for readers that fill it);
 * messages as tsl_weights_add's, placed by `at`. */
int wt_add_alloc(tsl_weights *w, const char *name, tsl_dtype dtype, uint32_t ndim,
                 const int64_t *shape, const wt_where *at, tsl_weight **out,
                 tsl_diag *diag);

/* ---- .npy (npy.c) --------------------------------------------------------- */

#define WT_NPY_MAGIC "\x93NUMPY"
#define WT_NPY_MAGIC_LEN 6
/* Longest header text accepted (NumPy's np.load allows 10,000 bytes by
 * default; ours must only hold 64 dims). */
#define WT_NPY_MAX_HEADER (1u << 20)

typedef struct wt_npy_header {
  tsl_dtype dtype;
  uint32_t ndim;
  int64_t shape[TSL_WEIGHTS_MAX_NDIM];
  uint64_t numel, nbytes;
} wt_npy_header;

/* The fixed prefix: `p` holds the first n bytes (n >= 8 reads the magic
 * and version). *prefix_len gets 10 (version 1.0) or 12 (2.0, 3.0); when
 * n >= *prefix_len, *header_len gets the header text's length. Errors
 * for bad magic, unknown versions, a header length above
 * WT_NPY_MAX_HEADER. */
int wt_npy_prefix(const uint8_t *p, size_t n, size_t *prefix_len, size_t *header_len,
                  const wt_where *at, tsl_diag *diag);
/* Parse the header text (the Python dict literal). */
int wt_npy_parse_header(const char *text, size_t n, wt_npy_header *h, const wt_where *at,
                        tsl_diag *diag);
/* The complete header (magic .. newline) of a tensor into sb. */
int wt_npy_header_write(const tsl_weight *t, tsl_strbuf *sb, const wt_where *at,
                        tsl_diag *diag);

/* ---- the formats' readers and writers ---------------------------------------- */

int wt_npy_read(tsl_weights *w, const uint8_t *p, size_t n, const char *path,
                tsl_diag *diag);
int wt_npz_read(tsl_weights *w, const uint8_t *p, size_t n, const char *path,
                tsl_diag *diag);
int wt_st_read(tsl_weights *w, const uint8_t *p, size_t n, const char *path,
               tsl_diag *diag);

int wt_npy_save(const tsl_weights *w, const char *path, tsl_diag *diag);
int wt_npz_save(const tsl_weights *w, const char *path, tsl_diag *diag);
int wt_st_save(const tsl_weights *w, const char *path, tsl_diag *diag);

/* ---- writing files (weights_io.c) --------------------------------------------- */

/* A new file beside `path` ("PATH.tmp-..."), opened for writing; its name
 * into tmp (cap bytes). */
int wt_tmp_open(const char *path, char *tmp, size_t cap, FILE **f, tsl_diag *diag);
/* Close f and rename tmp to path (ok != 0), or close and remove tmp. */
int wt_tmp_finish(FILE *f, const char *tmp, const char *path, int ok, tsl_diag *diag);
/* fwrite of n bytes with an error naming path. */
int wt_write(FILE *f, const void *p, size_t n, const char *path, tsl_diag *diag);

#endif
