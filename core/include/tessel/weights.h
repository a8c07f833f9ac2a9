/*
 * tessel/weights.h — named tensors read from and written to the files
 * PyTorch and NumPy users have: NumPy's .npy (one array) and .npz (a zip
 * of .npy members, np.savez and np.savez_compressed) and .safetensors.
 * Added in ABI 1.4.
 *
 * A collection (tsl_weights, opaque) holds tensors in order: the order of
 * the file they came from (.npz: the zip's entries; .safetensors: the keys
 * of its JSON header), then the order of tsl_weights_add. Each tensor has
 * a name unique in its collection (non-empty UTF-8), a scalar dtype, a
 * shape of 0..TSL_WEIGHTS_MAX_NDIM int64 dims (0-d and empty dims
 * allowed) and its elements dense in row-major (C) order, little-endian.
 *
 * Dtypes: float16, bfloat16, float32, float64, int8/16/32/64,
 * uint8/16/32/64 and bool (tessel's (UINT, 1, 1): one byte per element,
 * 0 or 1 as written by NumPy and PyTorch; other bytes are kept as read).
 * .npy/.npz have no bfloat16 (NumPy has none): saving one there fails.
 *
 * Ownership: the collection owns every tensor's name, shape and data (data
 * is always copied in: by add, and out of the file by load/read; nothing
 * keeps a file mapped). Pointers handed out (tsl_weight, names, metadata)
 * stay valid until tsl_weights_free: adding never moves a tensor.
 *
 * Errors: fallible calls return TSL_OK or a negative TSL_E* code with a
 * message in the caller's tsl_diag (NULL allowed): "PATH: error: ..."
 * naming the file, the member or tensor where one applies ("member
 * 'w.npy': ", "tensor 'w': "), what is wrong and what would be valid.
 * Bad input (truncated files, sizes beyond the file, overlapping or
 * mis-sized data, shapes whose size overflows, duplicate names, unknown
 * dtypes, corrupt zips) is an error, never a crash or a read outside the
 * input; a failed load or read hands back no collection.
 * TSL_EPARSE: the file is not of its format (bad magic, bad header text,
 * corrupt zip); TSL_EINVALID: well-formed but inconsistent (sizes,
 * offsets, duplicates); TSL_EUNSUPPORTED: valid but not handled here
 * (big-endian or Fortran-order .npy, object / unicode / structured
 * dtypes, safetensors dtypes such as F8_E4M3, bfloat16 into .npy);
 * TSL_EIO: the file could not be opened, read or written; TSL_ENOMEM.
 *
 * Threading: a collection is used by one thread at a time; a collection
 * nobody modifies may be read (at, find, save) from several threads.
 * Separate collections are independent.
 */
#ifndef TESSEL_WEIGHTS_H
#define TESSEL_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>

#include "tessel/base.h"
#include "tessel/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most dims a tensor has (NumPy 2's limit; NumPy 1 allows 32). */
#define TSL_WEIGHTS_MAX_NDIM 64

/* File formats, chosen by the extension (case-insensitive). */
enum {
  TSL_WEIGHTS_UNKNOWN = 0,
  TSL_WEIGHTS_NPY = 1,        /* ".npy": exactly one tensor */
  TSL_WEIGHTS_NPZ = 2,        /* ".npz" */
  TSL_WEIGHTS_SAFETENSORS = 3 /* ".safetensors" */
};

typedef struct tsl_weights tsl_weights;

/* One tensor of a collection, owned by it (read-only for callers except
 * the bytes of `data`, which may be changed in place). Fields may be
 * appended in later minor versions: check struct_size before reading one
 * marked "appended in 1.N". */
typedef struct tsl_weight {
  uint32_t struct_size; /* sizeof(tsl_weight) of the library */
  uint32_t ndim;        /* 0 (a scalar) .. TSL_WEIGHTS_MAX_NDIM */
  const char *name;     /* NUL-terminated UTF-8, unique in the collection */
  const int64_t *shape; /* ndim dims, each >= 0 (never NULL) */
  void *data;           /* nbytes bytes, row-major, little-endian, 64-byte
                           aligned; never NULL, even when nbytes is 0 */
  uint64_t numel;       /* product of the dims (1 for a scalar) */
  uint64_t nbytes;      /* numel * tsl_dtype_bytes(dtype) (bool: 1 byte) */
  tsl_dtype dtype;      /* scalar (lanes 1), one of the dtypes above */
  uint32_t reserved;    /* 0 */
} tsl_weight;

/* A new empty collection, or NULL when out of memory. */
TSL_API tsl_weights *tsl_weights_new(void);
/* Free the collection with every tensor and metadata entry. NULL is
 * ignored. */
TSL_API void tsl_weights_free(tsl_weights *w);

/* Number of tensors. */
TSL_API uint32_t tsl_weights_count(const tsl_weights *w);
/* Tensor i (0-based, in order), or NULL when i >= count. */
TSL_API const tsl_weight *tsl_weights_at(const tsl_weights *w, uint32_t i);
/* The tensor named `name`, or NULL when there is none. */
TSL_API const tsl_weight *tsl_weights_find(const tsl_weights *w,
                                           const char *name);

/* Append a tensor, copying `name`, `shape` and the
 * numel * tsl_dtype_bytes(dtype) bytes at `data` (row-major,
 * little-endian; NULL: zero-filled). `out` (may be NULL) gets the new
 * tensor. TSL_EINVALID for an empty or non-UTF-8 name, a name already in
 * the collection, ndim above TSL_WEIGHTS_MAX_NDIM, a negative dim or a
 * size that overflows (the product of the non-zero dims times the element
 * size must fit int64); TSL_EUNSUPPORTED for a dtype not listed above
 * (vectors, handles); TSL_ENOMEM. On error nothing is added. */
TSL_API int tsl_weights_add(tsl_weights *w, const char *name, tsl_dtype dtype,
                            uint32_t ndim, const int64_t *shape,
                            const void *data, const tsl_weight **out,
                            tsl_diag *diag);

/* ---- metadata: string pairs, .safetensors' "__metadata__" -----------------
 * Read from and written to .safetensors only; .npy/.npz drop them. */
TSL_API uint32_t tsl_weights_meta_count(const tsl_weights *w);
/* Entry i (in order) into *key / *value (either may be NULL); TSL_ENOTFOUND
 * when i >= count. The strings live as long as the collection. */
TSL_API int tsl_weights_meta_at(const tsl_weights *w, uint32_t i,
                                const char **key, const char **value);
/* Set key to value (both copied; a key already present keeps its place
 * and gets the new value). TSL_EINVALID for a NULL, empty or non-UTF-8
 * key or a NULL or non-UTF-8 value. */
TSL_API int tsl_weights_meta_set(tsl_weights *w, const char *key,
                                 const char *value, tsl_diag *diag);

/* ---- files ---------------------------------------------------------------- */

/* The format of `path` by its extension (TSL_WEIGHTS_*), or
 * TSL_WEIGHTS_UNKNOWN. */
TSL_API uint32_t tsl_weights_format_of(const char *path);
/* "npy", "npz", "safetensors", or "unknown". */
TSL_API const char *tsl_weights_format_name(uint32_t format);

/* Read the file `path` in the format of its extension into a new
 * collection (*out; NULL on error). A .npy's one tensor is named after
 * the file ("dir/w.npy": "w"); .npz members are named without their
 * ".npy" suffix. The file is read once; peak memory is the file plus the
 * tensors. */
TSL_API int tsl_weights_load(const char *path, tsl_weights **out,
                             tsl_diag *diag);
/* The same from `len` bytes in memory, in `format` (TSL_WEIGHTS_*).
 * `path` names the input in messages and, for .npy, the tensor as above
 * (NULL: "<memory>"). The bytes are not kept. */
TSL_API int tsl_weights_read(const void *bytes, size_t len, uint32_t format,
                             const char *path, tsl_weights **out,
                             tsl_diag *diag);

/* Write every tensor to `path` in the format of its extension:
 *   .npy          exactly one tensor (else TSL_EINVALID, naming them);
 *                 format version 1.0 (2.0 for a header above 64 KiB),
 *                 the header np.save writes (spaces for the first dim to
 *                 grow, padded to a multiple of 64 bytes): the same bytes;
 *   .npz          one stored (uncompressed) NAME.npy member per tensor, in
 *                 order, as np.savez writes them;
 *   .safetensors  an 8-byte little-endian header length, the JSON header
 *                 ("__metadata__" first when there is metadata, then the
 *                 tensors in order) padded with spaces to a multiple of 8,
 *                 then the data in order without gaps.
 * bfloat16 into .npy/.npz is TSL_EUNSUPPORTED, a tensor named
 * "__metadata__" into .safetensors TSL_EINVALID. The file is written under
 * a temporary name beside `path` and renamed into place, so a failure
 * leaves any earlier file as it was. */
TSL_API int tsl_weights_save(const tsl_weights *w, const char *path,
                             tsl_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_WEIGHTS_H */
