/*
 * libFuzzer target for the weights readers (core/weights): every input is
 * one file, read as .npy when it starts with NumPy's magic, as .npz when it
 * starts like a zip ("PK"), else as .safetensors. tsl_weights_read must
 * either fail with a message whose first line is "fuzz.EXT: error: ..."
 * (a second line only as "note: ...") and hand back nothing, or succeed
 * with consistent tensors (sizes, names found, dims >= 0); a collection
 * read is then saved in every format that can hold it (.npy: one tensor;
 * .npy/.npz: no bfloat16; .safetensors: no tensor named __metadata__),
 * which must succeed, and loaded back equal (tensors, order, bytes, and
 * the metadata through .safetensors). Anything else, a crash or a
 * sanitizer report aborts.
 */
#include "tessel/tessel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_dir[64];

static void setup(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/tessel-fuzz-weights-%ld", (long)getpid());
  char cmd[160];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", g_dir, g_dir);
  if (system(cmd) != 0)
    abort();
}

void fuzz_target_cleanup(void);
void fuzz_target_cleanup(void) {
  char cmd[160];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  if (g_dir[0] && system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", g_dir);
}

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "fuzz_weights: %s: %s\n", what, detail ? detail : "");
  abort();
}

static int located(const char *msg, const char *path) {
  size_t n = strlen(path);
  if (strncmp(msg, path, n) || strncmp(msg + n, ": error: ", 9))
    return 0;
  const char *nl = strchr(msg, '\n');
  return !nl || (!strncmp(nl + 1, "note: ", 6) && !strchr(nl + 1, '\n'));
}

static void check_tensors(const tsl_weights *w) {
  for (uint32_t i = 0; i < tsl_weights_count(w); i++) {
    const tsl_weight *t = tsl_weights_at(w, i);
    uint64_t numel = 1;
    int zero = 0;
    if (!t || t->struct_size != sizeof *t || !t->name[0] || !t->data ||
        t->ndim > TSL_WEIGHTS_MAX_NDIM || tsl_weights_find(w, t->name) != t)
      fail("inconsistent tensor", t ? t->name : "(null)");
    for (uint32_t d = 0; d < t->ndim; d++) {
      if (t->shape[d] < 0)
        fail("negative dim", t->name);
      if (t->shape[d] == 0)
        zero = 1;
      else
        numel *= (uint64_t)t->shape[d];
    }
    if (zero)
      numel = 0;
    if (t->numel != numel || t->nbytes != numel * tsl_dtype_bytes(t->dtype))
      fail("sizes disagree with the shape", t->name);
    if (tsl_dtype_is_bool(t->dtype)) /* touch every byte: ASan checks the size */
      for (uint64_t k = 0; k < t->nbytes; k++)
        (void)((volatile const uint8_t *)t->data)[k];
  }
}

static int same(const tsl_weights *a, const tsl_weights *b, int ignore_names) {
  if (tsl_weights_count(a) != tsl_weights_count(b))
    return 0;
  for (uint32_t i = 0; i < tsl_weights_count(a); i++) {
    const tsl_weight *x = tsl_weights_at(a, i), *y = tsl_weights_at(b, i);
    if ((!ignore_names && strcmp(x->name, y->name)) || !tsl_dtype_eq(x->dtype, y->dtype) ||
        x->ndim != y->ndim || memcmp(x->shape, y->shape, x->ndim * sizeof(int64_t)) ||
        x->nbytes != y->nbytes || memcmp(x->data, y->data, (size_t)x->nbytes))
      return 0;
  }
  return 1;
}

static int same_meta(const tsl_weights *a, const tsl_weights *b) {
  if (tsl_weights_meta_count(a) != tsl_weights_meta_count(b))
    return 0;
  for (uint32_t i = 0; i < tsl_weights_meta_count(a); i++) {
    const char *k1, *v1, *k2, *v2;
    tsl_weights_meta_at(a, i, &k1, &v1);
    tsl_weights_meta_at(b, i, &k2, &v2);
    if (strcmp(k1, k2) || strcmp(v1, v2))
      return 0;
  }
  return 1;
}

static void round_trip(const tsl_weights *w) {
  int has_bf16 = 0, has_meta_name = 0;
  for (uint32_t i = 0; i < tsl_weights_count(w); i++) {
    has_bf16 |= tsl_dtype_eq(tsl_weights_at(w, i)->dtype, TSL_BFLOAT16);
    has_meta_name |= !strcmp(tsl_weights_at(w, i)->name, "__metadata__");
  }
  static const char *exts[] = {"npy", "npz", "safetensors"};
  for (int f = 0; f < 3; f++) {
    int can = f == 0 ? tsl_weights_count(w) == 1 && !has_bf16 : f == 1 ? !has_bf16 : !has_meta_name;
    char path[128];
    snprintf(path, sizeof path, "%s/rt.%s", g_dir, exts[f]);
    tsl_diag d = {0};
    int rc = tsl_weights_save(w, path, &d);
    if (!can) {
      if (!rc || !located(d.text, path))
        fail("a save that cannot hold the tensors did not fail with a located message", d.text);
      continue;
    }
    if (rc)
      fail("save failed", d.text);
    tsl_weights *r = NULL;
    if (tsl_weights_load(path, &r, &d))
      fail("what tessel wrote does not read back", d.text);
    if (!same(w, r, f == 0) || (f == 2 && !same_meta(w, r)))
      fail("what tessel wrote reads back different", exts[f]);
    tsl_weights_free(r);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!g_dir[0])
    setup();
  uint32_t format = size >= 6 && !memcmp(data, "\x93NUMPY", 6) ? TSL_WEIGHTS_NPY
                    : size >= 2 && data[0] == 'P' && data[1] == 'K' ? TSL_WEIGHTS_NPZ
                                                                    : TSL_WEIGHTS_SAFETENSORS;
  char path[32];
  snprintf(path, sizeof path, "fuzz.%s", tsl_weights_format_name(format));
  tsl_weights *w = (tsl_weights *)1;
  tsl_diag d = {0};
  int rc = tsl_weights_read(data, size, format, path, &w, &d);
  if (rc) {
    if (w || !located(d.text, path))
      fail("a failed read handed back a collection or says not where", d.text);
    return 0;
  }
  check_tensors(w);
  round_trip(w);
  tsl_weights_free(w);
  return 0;
}
