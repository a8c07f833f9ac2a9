/*
 * tessel/weights.h: every dtype and a few shapes (0-d, 1-d, 3-d, an empty
 * dim) written and read back byte for byte in .npy, .npz and .safetensors;
 * the bytes tessel writes (the .npy header, the safetensors JSON); the
 * collection's API errors; and every kind of bad input, built here byte by
 * byte (.npy headers, safetensors headers, zip archives with a small stored
 * writer), each refused with a message naming the file and saying what is
 * wrong.
 */
#include "tap.h"
#include "tessel/tessel.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_dir[64];

static const char *path_of(const char *name) {
  static char buf[4][512];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", g_dir, name);
  return buf[k];
}

static int write_bytes(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return -1;
  size_t w = n ? fwrite(p, 1, n, f) : 0;
  return fclose(f) == 0 && w == n ? 0 : -1;
}

static uint8_t *read_bytes(const char *path, size_t *n) {
  char *buf;
  tsl_diag d = {0};
  if (tsl_read_file(path, &buf, n, &d))
    return NULL;
  return (uint8_t *)buf;
}

/* rc is `want` and the message names `path` and holds every fragment. */
static int expect(int rc, const tsl_diag *d, int want, const char *path, const char *what,
                  const char *const *frags) {
  int good = rc == want && strstr(d->text, path) == d->text;
  for (int i = 0; frags[i]; i++)
    good = good && strstr(d->text, frags[i]) != NULL;
  ok(good, "%s: refused (%s)", what, d->text);
  if (!good)
    tap_diag("  got status %d (%s), want %d (%s)", rc, tsl_status_name(rc), want,
             tsl_status_name(want));
  return good;
}

#define FRAGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Load `name` (bytes written into the scratch folder first) and expect an
 * error. */
static void bad_file(const char *name, const void *bytes, size_t n, int want, const char *what,
                     const char *const *frags) {
  const char *p = path_of(name);
  if (write_bytes(p, bytes, n)) {
    ok(0, "%s: cannot write %s", what, p);
    return;
  }
  tsl_weights *w = (tsl_weights *)1;
  tsl_diag d = {0};
  int rc = tsl_weights_load(p, &w, &d);
  expect(rc, &d, want, p, what, frags);
  if (w) {
    ok(0, "%s: a failed load handed back a collection", what);
    tsl_weights_free(w);
  }
}

/* ---- the dtypes and shapes ---------------------------------------------------- */

static const struct {
  const char *name;
  tsl_dtype dt;
} dtypes[] = {
    {"float16", TSL_DTYPE(TSL_DT_FLOAT, 16, 1)},  {"bfloat16", TSL_DTYPE(TSL_DT_BFLOAT, 16, 1)},
    {"float32", TSL_DTYPE(TSL_DT_FLOAT, 32, 1)},  {"float64", TSL_DTYPE(TSL_DT_FLOAT, 64, 1)},
    {"int8", TSL_DTYPE(TSL_DT_INT, 8, 1)},        {"int16", TSL_DTYPE(TSL_DT_INT, 16, 1)},
    {"int32", TSL_DTYPE(TSL_DT_INT, 32, 1)},      {"int64", TSL_DTYPE(TSL_DT_INT, 64, 1)},
    {"uint8", TSL_DTYPE(TSL_DT_UINT, 8, 1)},      {"uint16", TSL_DTYPE(TSL_DT_UINT, 16, 1)},
    {"uint32", TSL_DTYPE(TSL_DT_UINT, 32, 1)},    {"uint64", TSL_DTYPE(TSL_DT_UINT, 64, 1)},
    {"bool", TSL_DTYPE(TSL_DT_UINT, 1, 1)},
};
#define N_DTYPES (int)(sizeof dtypes / sizeof dtypes[0])

static const struct {
  const char *name;
  uint32_t ndim;
  int64_t shape[3];
} shapes[] = {
    {"0d", 0, {0}}, {"1d", 1, {5}}, {"3d", 3, {2, 3, 4}}, {"empty", 3, {3, 0, 2}},
};
#define N_SHAPES (int)(sizeof shapes / sizeof shapes[0])

static void fill(uint8_t *p, size_t n, tsl_dtype dt, unsigned salt) {
  for (size_t i = 0; i < n; i++)
    p[i] = tsl_dtype_is_bool(dt) ? (uint8_t)((i + salt) % 2) : (uint8_t)(i * 7 + 3 + salt);
}

/* A collection of the given (dtype, shape) pairs, named "<dtype>_<shape>". */
static tsl_weights *make(int d0, int d1, int s0, int s1) {
  tsl_weights *w = tsl_weights_new();
  for (int d = d0; d < d1; d++)
    for (int s = s0; s < s1; s++) {
      char name[64];
      snprintf(name, sizeof name, "%s_%s", dtypes[d].name, shapes[s].name);
      uint8_t buf[256];
      fill(buf, sizeof buf, dtypes[d].dt, (unsigned)(d * 5 + s));
      tsl_diag dg = {0};
      if (tsl_weights_add(w, name, dtypes[d].dt, shapes[s].ndim, shapes[s].shape, buf, NULL,
                          &dg))
        tap_diag("add %s: %s", name, dg.text);
    }
  return w;
}

/* Same tensors (name, dtype, shape, bytes) in the same order. */
static int same_named(const tsl_weights *a, const tsl_weights *b, const char *stem, char *why,
                      size_t cap);
static int same(const tsl_weights *a, const tsl_weights *b, char *why, size_t cap) {
  return same_named(a, b, NULL, why, cap);
}

/* As same(); with `stem`, b's one tensor has that name (a .npy file's). */
static int same_named(const tsl_weights *a, const tsl_weights *b, const char *stem, char *why,
                      size_t cap) {
  if (tsl_weights_count(a) != tsl_weights_count(b)) {
    snprintf(why, cap, "%u tensors, want %u", tsl_weights_count(b), tsl_weights_count(a));
    return 0;
  }
  for (uint32_t i = 0; i < tsl_weights_count(a); i++) {
    const tsl_weight *x = tsl_weights_at(a, i), *y = tsl_weights_at(b, i);
    if (strcmp(stem ? stem : x->name, y->name) || !tsl_dtype_eq(x->dtype, y->dtype) || x->ndim != y->ndim ||
        (x->ndim && memcmp(x->shape, y->shape, x->ndim * sizeof(int64_t))) ||
        x->nbytes != y->nbytes || x->numel != y->numel ||
        memcmp(x->data, y->data, (size_t)x->nbytes) || y->struct_size != sizeof(tsl_weight) ||
        ((uintptr_t)y->data & 63) || tsl_weights_find(b, y->name) != y) {
      snprintf(why, cap, "tensor %u ('%s' / '%s') differs", i, x->name, y->name);
      return 0;
    }
  }
  return 1;
}

static const char *exts[] = {"npy", "npz", "safetensors"};

static void round_trips(void) {
  for (int f = 0; f < 3; f++) {
    for (int d = 0; d < N_DTYPES; d++) {
      int no_numpy = f < 2 && tsl_dtype_eq(dtypes[d].dt, TSL_BFLOAT16);
      int good = 1;
      char why[256] = "";
      for (int s = 0; s < N_SHAPES && good; s++) {
        tsl_weights *w = make(d, d + 1, s, s + 1), *r = NULL;
        char name[128];
        snprintf(name, sizeof name, "rt_%s_%s.%s", dtypes[d].name, shapes[s].name, exts[f]);
        const char *p = path_of(name);
        tsl_diag dg = {0};
        int rc = tsl_weights_save(w, p, &dg);
        if (no_numpy) {
          good = rc == TSL_EUNSUPPORTED && strstr(dg.text, "no NumPy dtype") &&
                 strstr(dg.text, "bfloat16") && access(p, F_OK) != 0;
          snprintf(why, sizeof why, "%.200s", dg.text);
        } else if (rc || (rc = tsl_weights_load(p, &r, &dg))) {
          good = 0;
          snprintf(why, sizeof why, "%.200s", dg.text);
        } else {
          char stem[128];
          snprintf(stem, sizeof stem, "rt_%s_%s", dtypes[d].name, shapes[s].name);
          good = same_named(w, r, f == 0 ? stem : NULL, why, sizeof why);
          /* the same from memory */
          size_t n;
          uint8_t *bytes = read_bytes(p, &n);
          tsl_weights *m = NULL;
          if (good && (!bytes || tsl_weights_read(bytes, n, (uint32_t)f + 1, p, &m, &dg) ||
                       !same_named(w, m, f == 0 ? stem : NULL, why, sizeof why)))
            good = 0, snprintf(why + strlen(why), sizeof why - strlen(why), " (memory) %.100s",
                               dg.text);
          tsl_weights_free(m);
          free(bytes);
        }
        tsl_weights_free(w);
        tsl_weights_free(r);
      }
      ok(good, "%s %s: %s", exts[f], dtypes[d].name,
         no_numpy ? "refused with a message (NumPy has no bfloat16)"
                  : "0-d, 1-d, 3-d and empty-dim tensors read back byte for byte");
      if (!good)
        tap_diag("  %s", why);
    }
  }
  /* every dtype and shape in one file, in order */
  for (int f = 1; f < 3; f++) {
    tsl_weights *w = f == 1 ? make(0, 1, 0, N_SHAPES) : make(0, N_DTYPES, 0, N_SHAPES), *r = NULL;
    if (f == 1) { /* every dtype but bfloat16 */
      tsl_weights_free(w);
      w = tsl_weights_new();
      tsl_weights *a = make(0, 1, 0, N_SHAPES), *b = make(2, N_DTYPES, 0, N_SHAPES);
      for (int k = 0; k < 2; k++)
        for (uint32_t i = 0; i < tsl_weights_count(k ? b : a); i++) {
          const tsl_weight *t = tsl_weights_at(k ? b : a, i);
          tsl_weights_add(w, t->name, t->dtype, t->ndim, t->shape, t->data, NULL, NULL);
        }
      tsl_weights_free(a);
      tsl_weights_free(b);
    }
    char name[64], why[256] = "";
    snprintf(name, sizeof name, "all.%s", exts[f]);
    tsl_diag dg = {0};
    int good = !tsl_weights_save(w, path_of(name), &dg) &&
               !tsl_weights_load(path_of(name), &r, &dg) && same(w, r, why, sizeof why);
    ok(good, "%s: %u tensors of every dtype and shape in one file, in order", exts[f],
       tsl_weights_count(w));
    if (!good)
      tap_diag("  %s %s", dg.text, why);
    tsl_weights_free(w);
    tsl_weights_free(r);
  }
  /* empty collections */
  for (int f = 1; f < 3; f++) {
    tsl_weights *w = tsl_weights_new(), *r = NULL;
    char name[64];
    snprintf(name, sizeof name, "none.%s", exts[f]);
    tsl_diag dg = {0};
    ok(!tsl_weights_save(w, path_of(name), &dg) && !tsl_weights_load(path_of(name), &r, &dg) &&
           tsl_weights_count(r) == 0,
       "%s: an empty collection is written and read back (%s)", exts[f], dg.text);
    tsl_weights_free(w);
    tsl_weights_free(r);
  }
}

/* ---- the bytes tessel writes --------------------------------------------------- */

static void written_bytes(void) {
  tsl_weights *w = tsl_weights_new();
  int64_t sh[2] = {2, 3};
  float v[6] = {1, 2, 3, 4, 5, 6};
  tsl_weights_add(w, "w", TSL_FLOAT32, 2, sh, v, NULL, NULL);
  tsl_diag d = {0};
  size_t n;
  const char *p = path_of("bytes.npy");
  tsl_weights_save(w, p, &d);
  uint8_t *b = read_bytes(p, &n);
  const char *want = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  ok(b && n == 128 + 24 && !memcmp(b, "\x93NUMPY\x01\x00", 8) && b[8] + 256 * b[9] == 118 &&
         !memcmp(b + 10, want, strlen(want)) && b[127] == '\n' && b[126] == ' ' &&
         !memcmp(b + 128, v, 24),
     ".npy: version 1.0, the header np.save writes (NumPy 1.24's bytes), padded to a "
     "multiple of 64, then the data");
  free(b);

  int64_t one = 7;
  tsl_weights *w1 = tsl_weights_new();
  tsl_weights_add(w1, "x", TSL_INT8, 1, &one, NULL, NULL, NULL);
  p = path_of("one.npy");
  tsl_weights_save(w1, p, &d);
  b = read_bytes(p, &n);
  want = "{'descr': '|i1', 'fortran_order': False, 'shape': (7,), }";
  ok(b && n == 128 + 7 && !memcmp(b + 10, want, strlen(want)),
     ".npy: a 1-d shape is written (7,), one-byte dtypes with '|'");
  free(b);
  tsl_weights_free(w1);

  tsl_diag dm = {0};
  ok(!tsl_weights_meta_set(w, "format", "pt", &dm) && !tsl_weights_meta_set(w, "k", "v", &dm) &&
         !tsl_weights_meta_set(w, "format", "np", &dm) && tsl_weights_meta_count(w) == 2,
     "metadata: set, and set again keeps the place (%s)", dm.text);
  p = path_of("bytes.safetensors");
  tsl_weights_save(w, p, &d);
  b = read_bytes(p, &n);
  want = "{\"__metadata__\":{\"format\":\"np\",\"k\":\"v\"},\"w\":{\"dtype\":\"F32\",\"shape\":[2,3],"
         "\"data_offsets\":[0,24]}}";
  uint64_t hl = 0;
  for (int i = 7; b && n >= 8 && i >= 0; i--)
    hl = hl << 8 | b[i];
  ok(b && hl % 8 == 0 && hl >= strlen(want) && n == 8 + hl + 24 &&
         !memcmp(b + 8, want, strlen(want)) && !memcmp(b + 8 + hl, v, 24),
     ".safetensors: 8-byte length, compact JSON (metadata first) padded to 8, the data");
  if (b && !memcmp(b + 8, want, strlen(want)) == 0)
    tap_diag("  header: %.*s", (int)(hl < 300 ? hl : 300), (const char *)b + 8);
  free(b);
  tsl_weights *r = NULL;
  const char *k, *val;
  ok(!tsl_weights_load(p, &r, &d) && tsl_weights_meta_count(r) == 2 &&
         !tsl_weights_meta_at(r, 0, &k, &val) && !strcmp(k, "format") && !strcmp(val, "np") &&
         tsl_weights_meta_at(r, 2, &k, &val) == TSL_ENOTFOUND,
     ".safetensors: metadata read back in order");
  tsl_weights_free(r);
  tsl_weights_free(w);
}

/* ---- the collection's API -------------------------------------------------------- */

static void api(void) {
  tsl_weights *w = tsl_weights_new();
  tsl_diag d = {0};
  int64_t sh[2] = {2, 2};
  const tsl_weight *t = NULL;
  ok(!tsl_weights_add(w, "a", TSL_FLOAT32, 2, sh, NULL, &t, &d) && t &&
         t->nbytes == 16 && t->numel == 4 && !memcmp(t->data, "\0\0\0\0\0\0\0\0", 8) &&
         tsl_weights_find(w, "a") == t && tsl_weights_at(w, 0) == t &&
         !tsl_weights_at(w, 1) && !tsl_weights_find(w, "b") && tsl_weights_count(w) == 1,
     "add (NULL data: zeros), find, at, count");
  int rc = tsl_weights_add(w, "a", TSL_INT8, 0, NULL, "x", NULL, &d);
  expect(rc, &d, TSL_EINVALID, "tsl_weights_add", "add: a duplicate name",
         FRAGS("tensor 'a'", "appears twice"));
  rc = tsl_weights_add(w, "", TSL_INT8, 0, NULL, "x", NULL, &d);
  expect(rc, &d, TSL_EINVALID, "tsl_weights_add", "add: an empty name", FRAGS("empty name"));
  rc = tsl_weights_add(w, "bad\xff", TSL_INT8, 0, NULL, "x", NULL, &d);
  expect(rc, &d, TSL_EINVALID, "tsl_weights_add", "add: a name that is not UTF-8",
         FRAGS("not valid UTF-8"));
  int64_t neg[2] = {2, -1};
  rc = tsl_weights_add(w, "n", TSL_INT8, 2, neg, NULL, NULL, &d);
  expect(rc, &d, TSL_EINVALID, "tsl_weights_add", "add: a negative dim",
         FRAGS("[2, -1]", "negative dim"));
  int64_t big[3] = {INT64_C(1) << 40, 0, INT64_C(1) << 30};
  rc = tsl_weights_add(w, "o", TSL_FLOAT32, 3, big, NULL, NULL, &d);
  expect(rc, &d, TSL_EINVALID, "tsl_weights_add", "add: a size that overflows",
         FRAGS("overflows", "below 2^63"));
  rc = tsl_weights_add(w, "v", TSL_DTYPE(TSL_DT_FLOAT, 32, 4), 0, NULL, NULL, NULL, &d);
  expect(rc, &d, TSL_EUNSUPPORTED, "tsl_weights_add", "add: a vector dtype",
         FRAGS("float32x4", "valid: float16"));
  rc = tsl_weights_add(w, "h", TSL_HANDLE, 0, NULL, NULL, NULL, &d);
  expect(rc, &d, TSL_EUNSUPPORTED, "tsl_weights_add", "add: a handle", FRAGS("handle"));
  int64_t many[65] = {0};
  rc = tsl_weights_add(w, "m", TSL_INT8, 65, many, NULL, NULL, &d);
  expect(rc, &d, TSL_EINVALID, "tsl_weights_add", "add: 65 dims", FRAGS("65 dims", "at most 64"));
  ok(tsl_weights_count(w) == 1, "failed adds added nothing");
  int64_t empty_big[2] = {0, INT64_MAX};
  ok(!tsl_weights_add(w, "e", TSL_INT8, 2, empty_big, NULL, &t, &d) && t->nbytes == 0 &&
         t->numel == 0 && t->data,
     "add: an empty dim next to a huge one is 0 bytes (data not NULL)");
  rc = tsl_weights_meta_set(w, "", "x", &d);
  ok(rc == TSL_EINVALID && strstr(d.text, "empty"), "meta_set: an empty key (%s)", d.text);
  rc = tsl_weights_meta_set(w, "k", NULL, &d);
  ok(rc == TSL_EINVALID && strstr(d.text, "NULL"), "meta_set: a NULL value (%s)", d.text);

  /* saving */
  const char *p = path_of("two.npy");
  rc = tsl_weights_save(w, p, &d);
  expect(rc, &d, TSL_EINVALID, p, "save: two tensors into a .npy",
         FRAGS("exactly one tensor", "there are 2", "'a', 'e'", ".npz or .safetensors"));
  ok(access(p, F_OK) != 0, "save: a refused file is not created");
  p = path_of("x.bin");
  rc = tsl_weights_save(w, p, &d);
  expect(rc, &d, TSL_EINVALID, p, "save: an unknown extension",
         FRAGS("unknown extension", ".npy, .npz, .safetensors"));
  tsl_weights *r = (tsl_weights *)1;
  rc = tsl_weights_load(p, &r, &d);
  expect(rc, &d, TSL_EINVALID, p, "load: an unknown extension", FRAGS("unknown extension"));
  p = path_of("missing.npz");
  rc = tsl_weights_load(p, &r, &d);
  expect(rc, &d, TSL_EIO, p, "load: a missing file", FRAGS("cannot open"));
  p = path_of("dir.npz");
  mkdir(p, 0755);
  rc = tsl_weights_load(p, &r, &d);
  expect(rc, &d, TSL_EIO, p, "load: a folder", FRAGS("folder"));
  p = path_of("nodir/x.safetensors");
  rc = tsl_weights_save(w, p, &d);
  expect(rc, &d, TSL_EIO, p, "save: into a missing folder", FRAGS("cannot write"));
  tsl_weights_free(w);

  w = tsl_weights_new();
  tsl_weights_add(w, "__metadata__", TSL_INT8, 0, NULL, NULL, NULL, &d);
  p = path_of("meta.safetensors");
  rc = tsl_weights_save(w, p, &d);
  expect(rc, &d, TSL_EINVALID, p, "save: a tensor named __metadata__ into .safetensors",
         FRAGS("tensor '__metadata__'", "metadata key"));
  ok(!tsl_weights_save(w, path_of("meta.npz"), &d), ".npz holds a tensor named __metadata__");
  tsl_weights_free(w);

  /* an old file stays when a save fails */
  w = tsl_weights_new();
  tsl_weights_add(w, "a", TSL_INT8, 0, NULL, NULL, NULL, &d);
  p = path_of("keep.npz");
  tsl_weights_save(w, p, &d);
  tsl_weights_add(w, "b", TSL_BFLOAT16, 0, NULL, NULL, NULL, &d);
  rc = tsl_weights_save(w, p, &d);
  r = NULL;
  ok(rc == TSL_EUNSUPPORTED && !tsl_weights_load(p, &r, &d) && tsl_weights_count(r) == 1,
     "save: a refused save leaves the earlier file as it was");
  tsl_weights_free(r);
  tsl_weights_free(w);
  ok(tsl_weights_format_of("a/B.NPZ") == TSL_WEIGHTS_NPZ &&
         tsl_weights_format_of("m.safetensors") == TSL_WEIGHTS_SAFETENSORS &&
         tsl_weights_format_of(".npy") == TSL_WEIGHTS_UNKNOWN &&
         tsl_weights_format_of("x.npy.gz") == TSL_WEIGHTS_UNKNOWN &&
         !strcmp(tsl_weights_format_name(TSL_WEIGHTS_NPY), "npy"),
     "formats by extension (case-insensitive)");
  tsl_weights_free(NULL);
}

/* ---- .npy files -------------------------------------------------------------------- */

/* A .npy of `major`.0 with the header text as given and `data_len` bytes. */
static size_t npy(uint8_t *out, int major, const char *header, size_t data_len) {
  size_t hl = strlen(header), pre = major == 1 ? 10 : 12;
  memcpy(out, "\x93NUMPY", 6);
  out[6] = (uint8_t)major;
  out[7] = 0;
  for (size_t i = 0; i < pre - 8; i++)
    out[8 + i] = (uint8_t)(hl >> (8 * i));
  memcpy(out + pre, header, hl);
  for (size_t i = 0; i < data_len; i++)
    out[pre + hl + i] = (uint8_t)i;
  return pre + hl + data_len;
}

static void npy_good(const char *name, int major, const char *header, size_t data_len,
                     tsl_dtype dt, uint32_t ndim, const int64_t *shape, const char *what) {
  static uint8_t buf[4096];
  size_t n = npy(buf, major, header, data_len);
  const char *p = path_of(name);
  write_bytes(p, buf, n);
  tsl_weights *w = NULL;
  tsl_diag d = {0};
  int rc = tsl_weights_load(p, &w, &d);
  const tsl_weight *t = tsl_weights_at(w, 0);
  char stem[64];
  snprintf(stem, sizeof stem, "%.*s", (int)(strlen(name) - 4), name);
  ok(!rc && tsl_weights_count(w) == 1 && !strcmp(t->name, stem) && tsl_dtype_eq(t->dtype, dt) &&
         t->ndim == ndim && (!ndim || !memcmp(t->shape, shape, ndim * 8)) &&
         t->nbytes == data_len && !memcmp(t->data, buf + n - data_len, data_len),
     "npy: %s reads (%s)", what, d.text);
  tsl_weights_free(w);
}

static void npy_bad(const char *name, const char *header, size_t data_len, int want,
                    const char *what, const char *const *frags) {
  static uint8_t buf[4096];
  size_t n = npy(buf, 1, header, data_len);
  bad_file(name, buf, n, want, what, frags);
}

#define H(descr, fo, shape) "{'descr': " descr ", 'fortran_order': " fo ", 'shape': " shape ", }"

static void npy_files(void) {
  int64_t s23[2] = {2, 3}, s4[1] = {4};
  npy_good("v1.npy", 1, H("'<f4'", "False", "(2, 3)") "   \n", 24, TSL_FLOAT32, 2, s23,
           "format 1.0");
  npy_good("v2.npy", 2, H("'<i8'", "False", "(4,)") "\n", 32, TSL_INT64, 1, s4, "format 2.0");
  npy_good("v3.npy", 3, H("'<f2'", "False", "()") "\n", 2, TSL_FLOAT16, 0, NULL,
           "format 3.0, a 0-d float16");
  npy_good("b1.npy", 1, H("'|b1'", "False", "(4,)"), 4, TSL_BOOL, 1, s4, "'|b1' (bool)");
  npy_good("u1.npy", 1, H("'|u1'", "False", "(4,)"), 4, TSL_UINT8, 1, s4, "'|u1'");
  npy_good("i1.npy", 1, H("'|i1'", "False", "(4,)"), 4, TSL_INT8, 1, s4, "'|i1'");
  npy_good("py2.npy", 1, "{\"descr\":\"<u2\",\"shape\":(2L,3L),\"fortran_order\":False}", 12,
           TSL_DTYPE(TSL_DT_UINT, 16, 1), 2, s23,
           "keys in another order, double quotes, Python 2's 2L dims");

  static uint8_t buf[4096];
  bad_file("empty.npy", "", 0, TSL_EPARSE, "npy: an empty file", FRAGS("empty (0 bytes)"));
  bad_file("magic.npy", "PK\3\4 not numpy at all", 20, TSL_EPARSE, "npy: no magic",
           FRAGS("not a .npy array", "\\x93NUMPY", "note: its first bytes are those of a .npz"));
  bad_file("short.npy", "\x93NUMP", 5, TSL_EPARSE, "npy: shorter than the magic",
           FRAGS("truncated"));
  bad_file("nolen.npy", "\x93NUMPY\x01\x00\x10", 9, TSL_EPARSE, "npy: half a header length",
           FRAGS("truncated", "header length"));
  bad_file("nolen8.npy", "\x93NUMPY\x01\x00", 8, TSL_EPARSE, "npy: no header length",
           FRAGS("truncated"));
  size_t n = npy(buf, 1, H("'<f4'", "False", "(1,)"), 4);
  buf[6] = 4;
  bad_file("v4.npy", buf, n, TSL_EUNSUPPORTED, "npy: format version 4.0",
           FRAGS("version 4.0", "valid: 1.0, 2.0, 3.0"));
  n = npy(buf, 1, H("'<f4'", "False", "(1,)"), 4);
  buf[8] = 0xff, buf[9] = 0x7f;
  bad_file("hlen.npy", buf, n, TSL_EPARSE, "npy: a header length beyond the file",
           FRAGS("truncated", "header claims 32767 bytes"));
  n = npy(buf, 2, H("'<f4'", "False", "(1,)"), 4);
  buf[11] = 0x7f;
  bad_file("hlen2.npy", buf, n, TSL_EUNSUPPORTED, "npy: a 2 GiB header length",
           FRAGS("header claims", "at most 1048576"));
  npy_bad("be.npy", H("'>f4'", "False", "(2, 3)"), 24, TSL_EUNSUPPORTED, "npy: big-endian",
          FRAGS("'>f4'", "big-endian", "'<f4'"));
  npy_bad("fortran.npy", H("'<f4'", "True", "(2, 3)"), 24, TSL_EUNSUPPORTED, "npy: Fortran order",
          FRAGS("fortran_order is True", "C order"));
  npy_bad("object.npy", H("'|O'", "False", "(2,)"), 16, TSL_EUNSUPPORTED, "npy: object dtype",
          FRAGS("'|O'", "Python objects", "valid: '<f2'"));
  npy_bad("unicode.npy", H("'<U5'", "False", "(2,)"), 40, TSL_EUNSUPPORTED, "npy: unicode dtype",
          FRAGS("'<U5'", "unicode strings"));
  npy_bad("complex.npy", H("'<c8'", "False", "(2,)"), 16, TSL_EUNSUPPORTED,
          "npy: complex dtype", FRAGS("'<c8'", "complex"));
  npy_bad("f16.npy", H("'<f16'", "False", "(2,)"), 32, TSL_EUNSUPPORTED, "npy: float128",
          FRAGS("'<f16'", "not supported"));
  npy_bad("native.npy", H("'=f4'", "False", "(2,)"), 8, TSL_EUNSUPPORTED,
          "npy: native byte order '='", FRAGS("'=f4'", "little-endian"));
  npy_bad("struct.npy", H("[('a', '<f4'), ('b', '<i4')]", "False", "(2,)"), 16,
          TSL_EUNSUPPORTED, "npy: a structured dtype", FRAGS("structured dtype"));
  npy_bad("nodict.npy", "('<f4', False, (2,))", 8, TSL_EPARSE, "npy: a header that is no dict",
          FRAGS("not a dict", "note: the header: ('<f4'"));
  npy_bad("nohdr.npy", "", 8, TSL_EPARSE, "npy: an empty header (a fuzzer's find)",
          FRAGS("not a dict", "note: the header: (empty)"));
  npy_bad("noshape.npy", "{'descr': '<f4', 'fortran_order': False}", 8, TSL_EPARSE,
          "npy: no 'shape'", FRAGS("no 'shape'"));
  npy_bad("extra.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", 8,
          TSL_EPARSE, "npy: an unknown key", FRAGS("unknown key 'x'", "valid: 'descr'"));
  npy_bad("dupkey.npy", "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}",
          4, TSL_EPARSE, "npy: a key twice", FRAGS("appears twice"));
  npy_bad("negdim.npy", H("'<f4'", "False", "(2, -3)"), 8, TSL_EINVALID, "npy: a negative dim",
          FRAGS("negative dim"));
  npy_bad("overflow.npy", H("'<f4'", "False", "(4611686018427387904, 4)"), 8, TSL_EINVALID,
          "npy: a shape whose size overflows", FRAGS("overflows", "[4611686018427387904, 4]"));
  npy_bad("hugedim.npy", H("'<f4'", "False", "(99999999999999999999,)"), 8, TSL_EINVALID,
          "npy: a dim above 2^63", FRAGS("above 2^63"));
  npy_bad("fo.npy", H("'<f4'", "0", "(2,)"), 8, TSL_EPARSE, "npy: fortran_order 0",
          FRAGS("neither True nor False"));
  npy_bad("open.npy", "{'descr': '<f4", 8, TSL_EPARSE, "npy: a string not closed",
          FRAGS("not closed"));
  npy_bad("trunc.npy", H("'<f4'", "False", "(2, 3)"), 20, TSL_EINVALID, "npy: truncated data",
          FRAGS("truncated", "20 bytes", "[2, 3] of float32 needs exactly 24"));
  npy_bad("trail.npy", H("'<f4'", "False", "(2, 3)"), 25, TSL_EINVALID,
          "npy: bytes after the data", FRAGS("bytes after the data", "25 bytes"));
  bad_file("huge.npy", buf, npy(buf, 1, H("'<f8'", "False", "(1000000000000,)"), 0),
           TSL_EINVALID, "npy: a shape of 8 TB in a small file",
           FRAGS("truncated", "needs exactly 8000000000000"));
}

/* ---- .safetensors files ------------------------------------------------------------ */

/* A .safetensors file: the header as given (length as given when hl_over
 * is not ~0), then data_len bytes. */
static size_t st(uint8_t *out, const char *json, size_t data_len, uint64_t hl_over) {
  size_t hl = strlen(json);
  uint64_t v = hl_over != ~(uint64_t)0 ? hl_over : hl;
  for (int i = 0; i < 8; i++)
    out[i] = (uint8_t)(v >> (8 * i));
  memcpy(out + 8, json, hl);
  for (size_t i = 0; i < data_len; i++)
    out[8 + hl + i] = (uint8_t)(i * 3);
  return 8 + hl + data_len;
}

static void st_bad(const char *name, const char *json, size_t data_len, int want, const char *what,
                   const char *const *frags) {
  static uint8_t buf[8192];
  bad_file(name, buf, st(buf, json, data_len, ~(uint64_t)0), want, what, frags);
}

static void safetensors_files(void) {
  static uint8_t buf[8192];
  /* by hand: every dtype name, the header's order, gaps none */
  const char *good =
      "{\"b\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[8,12]},"
      "\"__metadata__\":{\"format\":\"pt\"},"
      "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
      "\"s\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[12,20]},"
      "\"z\":{\"dtype\":\"BOOL\",\"shape\":[0,5],\"data_offsets\":[20,20]},"
      "\"u\":{\"dtype\":\"U16\",\"shape\":[1],\"data_offsets\":[20,22],\"extra\":1}}";
  size_t n = st(buf, good, 22, ~(uint64_t)0);
  const char *p = path_of("hand.safetensors");
  write_bytes(p, buf, n);
  tsl_weights *w = NULL;
  tsl_diag d = {0};
  int rc = tsl_weights_load(p, &w, &d);
  const uint8_t *data = buf + n - 22;
  const tsl_weight *b = tsl_weights_at(w, 0), *a = tsl_weights_at(w, 1), *s = tsl_weights_at(w, 2),
                   *z = tsl_weights_at(w, 3), *u = tsl_weights_at(w, 4);
  ok(!rc && tsl_weights_count(w) == 5 && !strcmp(b->name, "b") && !strcmp(a->name, "a") &&
         tsl_dtype_eq(b->dtype, TSL_BFLOAT16) && !memcmp(b->data, data + 8, 4) &&
         !memcmp(a->data, data, 8) && s->ndim == 0 && !memcmp(s->data, data + 12, 8) &&
         z->nbytes == 0 && z->ndim == 2 && u->nbytes == 2 && tsl_weights_meta_count(w) == 1,
     "safetensors by hand: header order, offsets out of order, a scalar, an empty tensor, "
     "metadata, unknown fields ignored (%s)",
     d.text);
  tsl_weights_free(w);
  static const char *names[] = {"F16", "BF16", "F32", "F64", "I8", "I16", "I32",
                                "I64", "U8",   "U16", "U32", "U64", "BOOL"};
  int all = 1;
  for (int i = 0; i < 13; i++) {
    char json[256];
    unsigned size = (unsigned)tsl_dtype_bytes(dtypes[i].dt);
    snprintf(json, sizeof json, "{\"t\":{\"dtype\":\"%s\",\"shape\":[3],\"data_offsets\":[0,%u]}}",
             names[i], 3 * size);
    n = st(buf, json, 3 * size, ~(uint64_t)0);
    w = NULL;
    all = all && !tsl_weights_read(buf, n, TSL_WEIGHTS_SAFETENSORS, "mem", &w, &d) &&
          tsl_dtype_eq(tsl_weights_at(w, 0)->dtype, dtypes[i].dt);
    tsl_weights_free(w);
  }
  ok(all, "safetensors by hand: every dtype name maps to its dtype");

  bad_file("tiny.safetensors", "\x10\0\0", 3, TSL_EPARSE, "safetensors: 3 bytes",
           FRAGS("truncated", "8-byte header length"));
  n = st(buf, "{}", 0, 1000);
  bad_file("hlen.safetensors", buf, n, TSL_EPARSE, "safetensors: a header length beyond the file",
           FRAGS("header length 1000 goes beyond the file (10 bytes: at most 2)"));
  n = st(buf, "{}", 0, UINT64_MAX - 1);
  bad_file("hlenmax.safetensors", buf, n, TSL_EPARSE, "safetensors: a header length of 2^64-1",
           FRAGS("goes beyond the file"));
  st_bad("nobrace.safetensors", "[1, 2]", 0, TSL_EPARSE, "safetensors: a header that is no object",
         FRAGS("does not start with '{'"));
  st_bad("json.safetensors", "{\"a\": {\"dtype\": \"F32\",}", 0, TSL_EPARSE,
         "safetensors: JSON that does not parse", FRAGS("does not parse", "header line 1"));
  st_bad("dup.safetensors",
         "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
         "\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}",
         2, TSL_EINVALID, "safetensors: a tensor name twice",
         FRAGS("names a key twice", "\"a\"", "each tensor name once"));
  st_bad("dtype.safetensors", "{\"w\":{\"dtype\":\"F33\",\"shape\":[1],\"data_offsets\":[0,4]}}",
         4, TSL_EPARSE, "safetensors: an unknown dtype",
         FRAGS("tensor 'w'", "unknown dtype \"F33\"", "valid: F16, BF16"));
  st_bad("f8.safetensors", "{\"w\":{\"dtype\":\"F8_E4M3\",\"shape\":[1],\"data_offsets\":[0,1]}}",
         1, TSL_EUNSUPPORTED, "safetensors: F8_E4M3", FRAGS("tensor 'w'", "\"F8_E4M3\"", "not supported"));
  st_bad("nodtype.safetensors", "{\"w\":{\"shape\":[1],\"data_offsets\":[0,1]}}", 1, TSL_EPARSE,
         "safetensors: no dtype", FRAGS("tensor 'w'", "\"dtype\" is missing"));
  st_bad("shape.safetensors", "{\"w\":{\"dtype\":\"U8\",\"shape\":4,\"data_offsets\":[0,4]}}", 4,
         TSL_EPARSE, "safetensors: a shape that is no array",
         FRAGS("tensor 'w'", "\"shape\" is not an array"));
  st_bad("negdim.safetensors", "{\"w\":{\"dtype\":\"U8\",\"shape\":[2,-2],\"data_offsets\":[0,4]}}",
         4, TSL_EPARSE, "safetensors: a negative dim", FRAGS("\"shape\"[1]", "integer >= 0"));
  st_bad("realdim.safetensors", "{\"w\":{\"dtype\":\"U8\",\"shape\":[2.0],\"data_offsets\":[0,2]}}",
         2, TSL_EPARSE, "safetensors: a dim that is a real", FRAGS("\"shape\"[0]"));
  st_bad("overflow.safetensors",
         "{\"w\":{\"dtype\":\"F64\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,8]}}", 8,
         TSL_EINVALID, "safetensors: a shape whose size overflows",
         FRAGS("tensor 'w'", "overflows"));
  st_bad("offs.safetensors", "{\"w\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[2,1]}}", 2,
         TSL_EPARSE, "safetensors: begin after end", FRAGS("\"data_offsets\"", "begin <= end"));
  st_bad("offs3.safetensors", "{\"w\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,1,2]}}",
         2, TSL_EPARSE, "safetensors: three offsets", FRAGS("\"data_offsets\"", "[begin, end]"));
  st_bad("beyond.safetensors", "{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}",
         12, TSL_EINVALID, "safetensors: offsets beyond the data",
         FRAGS("tensor 'w'", "go beyond the data (12 bytes", "end <= 12"));
  st_bad("farbeyond.safetensors",
         "{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[9223372036854775806,"
         "9223372036854775807]}}",
         1, TSL_EINVALID, "safetensors: offsets near 2^63", FRAGS("go beyond the data"));
  st_bad("size.safetensors", "{\"w\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,12]}}",
         12, TSL_EINVALID, "safetensors: a range of the wrong size",
         FRAGS("tensor 'w'", "hold 12 bytes", "[2, 2] of float32 needs exactly 16"));
  st_bad("overlap.safetensors",
         "{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
         "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[2,6]}}",
         6, TSL_EINVALID, "safetensors: overlapping ranges",
         FRAGS("tensor 'b'", "overlap those of tensor 'a' [0, 4]"));
  st_bad("same.safetensors",
         "{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
         "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}",
         4, TSL_EINVALID, "safetensors: two tensors on the same bytes", FRAGS("overlap"));
  st_bad("gap.safetensors",
         "{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
         "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[6,10]}}",
         10, TSL_EINVALID, "safetensors: a gap between ranges",
         FRAGS("tensor 'b'", "bytes [4, 6) of the data to no tensor"));
  st_bad("trail.safetensors", "{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}",
         7, TSL_EINVALID, "safetensors: bytes after the last tensor",
         FRAGS("7 bytes after the header, the tensors use 4"));
  st_bad("meta.safetensors", "{\"__metadata__\":{\"k\":1}}", 0, TSL_EPARSE,
         "safetensors: a metadata value that is no string", FRAGS("\"k\" is not a string"));
  st_bad("meta2.safetensors", "{\"__metadata__\":[]}", 0, TSL_EPARSE,
         "safetensors: metadata that is no object", FRAGS("\"__metadata__\" is not an object"));
  st_bad("entry.safetensors", "{\"w\":[1,2]}", 0, TSL_EPARSE,
         "safetensors: an entry that is no object", FRAGS("tensor 'w'", "expected an object"));
  st_bad("nul.safetensors", "{\"a\\u0000b\":{}}", 0, TSL_EPARSE,
         "safetensors: a NUL in a name", FRAGS("does not parse"));
  n = st(buf, "{\"w\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}", 2, ~(uint64_t)0);
  bad_file("cut.safetensors", buf, n - 1, TSL_EINVALID, "safetensors: the data cut short",
           FRAGS("go beyond the data (1 bytes"));
  bad_file("cuthdr.safetensors", buf, 30, TSL_EPARSE, "safetensors: the header cut short",
           FRAGS("goes beyond the file"));
}

/* ---- .npz files: a small stored-zip writer ------------------------------------------- */

static uint32_t crc32_of(const uint8_t *p, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; i++) {
    c ^= p[i];
    for (int k = 0; k < 8; k++)
      c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return ~c;
}

typedef struct member {
  const char *name;
  const uint8_t *data;
  size_t len;
  uint16_t method;    /* written as is (the data stays stored) */
  int bad_crc;        /* store a wrong CRC */
  int64_t size_delta; /* added to the uncompressed size written */
} member;

static void le16(uint8_t **p, unsigned v) {
  (*p)[0] = (uint8_t)v, (*p)[1] = (uint8_t)(v >> 8);
  *p += 2;
}
static void le32(uint8_t **p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    (*p)[i] = (uint8_t)(v >> (8 * i));
  *p += 4;
}

static size_t zip_build(uint8_t *out, const member *m, int n) {
  uint8_t *p = out;
  uint32_t offs[16];
  for (int i = 0; i < n; i++) {
    offs[i] = (uint32_t)(p - out);
    uint32_t crc = crc32_of(m[i].data, m[i].len) ^ (m[i].bad_crc ? 1u : 0u);
    le32(&p, 0x04034b50), le16(&p, 20), le16(&p, 0), le16(&p, m[i].method);
    le16(&p, 0), le16(&p, 0x21), le32(&p, crc), le32(&p, (uint32_t)m[i].len);
    le32(&p, (uint32_t)(m[i].len + (size_t)m[i].size_delta));
    le16(&p, (unsigned)strlen(m[i].name)), le16(&p, 0);
    memcpy(p, m[i].name, strlen(m[i].name)), p += strlen(m[i].name);
    memcpy(p, m[i].data, m[i].len), p += m[i].len;
  }
  uint8_t *cd = p;
  for (int i = 0; i < n; i++) {
    uint32_t crc = crc32_of(m[i].data, m[i].len) ^ (m[i].bad_crc ? 1u : 0u);
    le32(&p, 0x02014b50), le16(&p, 20), le16(&p, 20), le16(&p, 0), le16(&p, m[i].method);
    le16(&p, 0), le16(&p, 0x21), le32(&p, crc), le32(&p, (uint32_t)m[i].len);
    le32(&p, (uint32_t)(m[i].len + (size_t)m[i].size_delta));
    le16(&p, (unsigned)strlen(m[i].name)), le16(&p, 0), le16(&p, 0), le16(&p, 0), le16(&p, 0);
    le32(&p, 0), le32(&p, offs[i]);
    memcpy(p, m[i].name, strlen(m[i].name)), p += strlen(m[i].name);
  }
  uint32_t cd_len = (uint32_t)(p - cd), cd_off = (uint32_t)(cd - out);
  le32(&p, 0x06054b50), le16(&p, 0), le16(&p, 0), le16(&p, (unsigned)n), le16(&p, (unsigned)n);
  le32(&p, cd_len), le32(&p, cd_off), le16(&p, 0);
  return (size_t)(p - out);
}

static void npz_bad(const char *name, const member *m, int n, int want, const char *what,
                    const char *const *frags) {
  static uint8_t buf[16384];
  bad_file(name, buf, zip_build(buf, m, n), want, what, frags);
}

static void npz_files(void) {
  static uint8_t a[256], b[256], zip[16384];
  size_t na = npy(a, 1, H("'<f4'", "False", "(2,)"), 8);
  size_t nb = npy(b, 1, H("'|u1'", "False", "(3,)"), 3);
  member good[2] = {{"a.npy", a, na, 0, 0, 0}, {"dir/b", b, nb, 0, 0, 0}};
  size_t n = zip_build(zip, good, 2);
  const char *p = path_of("hand.npz");
  write_bytes(p, zip, n);
  tsl_weights *w = NULL;
  tsl_diag d = {0};
  int rc = tsl_weights_load(p, &w, &d);
  ok(!rc && tsl_weights_count(w) == 2 && !strcmp(tsl_weights_at(w, 0)->name, "a") &&
         !strcmp(tsl_weights_at(w, 1)->name, "dir/b") &&
         !memcmp(tsl_weights_at(w, 0)->data, a + na - 8, 8),
     "npz by hand: stored members, names without .npy, a member without the suffix (%s)",
     d.text);
  tsl_weights_free(w);

  bad_file("notzip.npz", "this is not a zip archive at all", 32, TSL_EPARSE,
           "npz: not a zip", FRAGS("not a valid .npz (zip) archive", "np.savez"));
  bad_file("empty.npz", "", 0, TSL_EPARSE, "npz: an empty file", FRAGS("empty (0 bytes)"));
  bad_file("cut.npz", zip, n - 10, TSL_EPARSE, "npz: a zip cut short",
           FRAGS("not a valid .npz (zip) archive"));
  bad_file("cutmid.npz", zip, n / 2, TSL_EPARSE, "npz: a zip cut in half",
           FRAGS("not a valid .npz (zip) archive"));
  uint8_t corrupt[16384];
  memcpy(corrupt, zip, n);
  corrupt[n - 22 + 16] ^= 0x40; /* the central directory's offset */
  bad_file("cdoff.npz", corrupt, n, TSL_EPARSE, "npz: a central directory offset out of place",
           FRAGS("not a valid .npz (zip) archive"));
  bad_file("npyinzip.npz", a, na, TSL_EPARSE, "npz: a .npy named .npz",
           FRAGS("not a valid .npz", "note: its first bytes are those of a .npy"));

  member crc[1] = {{"a.npy", a, na, 0, 1, 0}};
  npz_bad("crc.npz", crc, 1, TSL_EPARSE, "npz: a member with a wrong CRC",
          FRAGS("member 'a.npy'", "CRC"));
  member dup[2] = {{"a.npy", a, na, 0, 0, 0}, {"a.npy", b, nb, 0, 0, 0}};
  npz_bad("dup.npz", dup, 2, TSL_EINVALID, "npz: the same member twice",
          FRAGS("two members have the same name", "each name once"));
  member dup2[2] = {{"a.npy", a, na, 0, 0, 0}, {"a", b, nb, 0, 0, 0}};
  npz_bad("dup2.npz", dup2, 2, TSL_EINVALID, "npz: members a.npy and a",
          FRAGS("member 'a'", "appears twice"));
  member text[1] = {{"readme.txt", (const uint8_t *)"hello, this is text", 19, 0, 0, 0}};
  npz_bad("text.npz", text, 1, TSL_EPARSE, "npz: a member that is no .npy",
          FRAGS("member 'readme.txt'", "not a .npy array"));
  member dir[1] = {{"d/", (const uint8_t *)"", 0, 0, 0, 0}};
  npz_bad("folder.npz", dir, 1, TSL_EINVALID, "npz: a folder member", FRAGS("member 'd/'", "folder"));
  member bz[1] = {{"a.npy", a, na, 12, 0, 0}};
  npz_bad("bzip2.npz", bz, 1, TSL_EUNSUPPORTED, "npz: a bzip2 member",
          FRAGS("member 'a.npy'", "compression method 12", "stored (0"));
  member lie[1] = {{"a.npy", a, na, 0, 0, 1000}};
  npz_bad("sizes.npz", lie, 1, TSL_EPARSE, "npz: a stored member whose sizes disagree",
          FRAGS("member 'a.npy'", "corrupt"));
  uint8_t t[256];
  size_t nt = npy(t, 1, H("'<f4'", "False", "(4,)"), 8);
  member trunc[1] = {{"t.npy", t, nt, 0, 0, 0}};
  npz_bad("trunc.npz", trunc, 1, TSL_EINVALID, "npz: a member whose data is short",
          FRAGS("member 't.npy'", "truncated", "needs exactly 16"));
  member be[1] = {{"be.npy", t, npy(t, 1, H("'>i4'", "False", "(2,)"), 8), 0, 0, 0}};
  npz_bad("be.npz", be, 1, TSL_EUNSUPPORTED, "npz: a big-endian member",
          FRAGS("member 'be.npy'", "big-endian"));
  member hdr[1] = {{"h.npy", t, 14, 0, 0, 0}};
  npy(t, 1, H("'<f4'", "False", "(4,)"), 0);
  npz_bad("hdr.npz", hdr, 1, TSL_EINVALID, "npz: a member cut inside its header",
          FRAGS("member 'h.npy'", "truncated"));
}

int main(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/tessel-weights-XXXXXX");
  if (!mkdtemp(g_dir)) {
    ok(0, "scratch folder");
    return tap_done();
  }
  round_trips();
  written_bytes();
  api();
  npy_files();
  safetensors_files();
  npz_files();
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  if (system(cmd) != 0)
    tap_diag("could not remove %s", g_dir);
  return tap_done();
}
