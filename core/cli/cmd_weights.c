/*
 * `tessel weights FILE [--convert OUT] [--json]`: the named tensors of a
 * .npy, .npz or .safetensors file (weights.h), and the same tensors
 * written in another of those formats.
 */
#include "cli.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cli_weights_usage[] =
    "usage: tessel weights FILE [--convert OUT] [--json]\n"
    "\n"
    "List the named tensors of a weights file in file order: name, dtype, shape\n"
    "and bytes of each, then the count, the total and the safetensors metadata.\n"
    "The format follows the extension:\n"
    "  .npy           NumPy's np.save: one array, named after the file\n"
    "                 (dir/w.npy: w); format versions 1.0, 2.0 and 3.0\n"
    "  .npz           NumPy's np.savez / np.savez_compressed: a zip of NAME.npy\n"
    "                 members, listed as NAME\n"
    "  .safetensors   an 8-byte header length, a JSON header, the data\n"
    "dtypes: float16, bfloat16, float32, float64, int8/16/32/64, uint8/16/32/64,\n"
    "bool. Refused with a message: big-endian or Fortran-order arrays, object,\n"
    "string and structured dtypes, and any file whose sizes or offsets do not\n"
    "add up.\n"
    "\n"
    "  --convert OUT  also write the same tensors to OUT, in the format of its\n"
    "                 extension (replacing OUT). A .npy holds exactly one\n"
    "                 tensor; bfloat16 has no NumPy dtype (.safetensors only);\n"
    "                 metadata is kept by .safetensors only (a note says when\n"
    "                 it is dropped). .npz members are written stored\n"
    "  --json         one JSON object: path, format, tensors [{name, dtype,\n"
    "                 shape, bytes}], total_bytes, metadata {key: value},\n"
    "                 and converted (OUT) with --convert\n"
    "\n"
    "exit status: 0 ok, 2 on a usage error or a file that does not read or write\n";

/* "[2, 3]", "[]" for a scalar; cut with "..." past cap. */
static void shape_str(const tsl_weight *t, char *buf, size_t cap) {
  size_t k = (size_t)snprintf(buf, cap, "[");
  for (uint32_t i = 0; i < t->ndim && k < cap; i++)
    k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? ", " : "", (long long)t->shape[i]);
  if (k < cap)
    snprintf(buf + k, cap - k, "]");
  else
    memcpy(buf + cap - 4, "...", 4);
}

static void print_text(const char *path, const tsl_weights *w) {
  uint32_t n = tsl_weights_count(w);
  size_t wn = 4, wd = 5, ws = 5;
  char sh[4096], dt[32];
  uint64_t total = 0;
  for (uint32_t i = 0; i < n; i++) {
    const tsl_weight *t = tsl_weights_at(w, i);
    size_t l = strlen(t->name);
    wn = l > wn ? l : wn;
    l = strlen(tsl_dtype_str(t->dtype, dt));
    wd = l > wd ? l : wd;
    shape_str(t, sh, sizeof sh);
    l = strlen(sh);
    ws = l > ws ? l : ws;
  }
  if (wn > 60)
    wn = 60;
  printf("%-*s  %-*s  %-*s  %s\n", (int)wn, "NAME", (int)wd, "DTYPE", (int)ws, "SHAPE",
         "BYTES");
  for (uint32_t i = 0; i < n; i++) {
    const tsl_weight *t = tsl_weights_at(w, i);
    shape_str(t, sh, sizeof sh);
    printf("%-*s  %-*s  %-*s  %llu\n", (int)wn, t->name, (int)wd, tsl_dtype_str(t->dtype, dt),
           (int)ws, sh, (unsigned long long)t->nbytes);
    total += t->nbytes;
  }
  printf("%u tensor%s, %llu bytes (%s, %s)\n", n, n == 1 ? "" : "s",
         (unsigned long long)total, path, tsl_weights_format_name(tsl_weights_format_of(path)));
  for (uint32_t i = 0; i < tsl_weights_meta_count(w); i++) {
    const char *k, *v;
    tsl_weights_meta_at(w, i, &k, &v);
    printf("metadata %s = %s\n", k, v);
  }
}

static void print_json(const char *path, const tsl_weights *w, const char *out) {
  json_t *list = json_array(), *meta = json_object();
  uint64_t total = 0;
  char dt[32];
  for (uint32_t i = 0; i < tsl_weights_count(w); i++) {
    const tsl_weight *t = tsl_weights_at(w, i);
    json_t *shape = json_array();
    for (uint32_t d = 0; d < t->ndim; d++)
      json_array_append_new(shape, json_integer((json_int_t)t->shape[d]));
    json_array_append_new(list, json_pack("{s:s, s:s, s:o, s:I}", "name", t->name, "dtype",
                                          tsl_dtype_str(t->dtype, dt), "shape", shape,
                                          "bytes", (json_int_t)t->nbytes));
    total += t->nbytes;
  }
  for (uint32_t i = 0; i < tsl_weights_meta_count(w); i++) {
    const char *k, *v;
    tsl_weights_meta_at(w, i, &k, &v);
    json_object_set_new(meta, k, json_string(v));
  }
  /* a path that is not UTF-8 goes into JSON as it is (json_pack would fail) */
  json_t *o = json_pack("{s:o, s:s, s:o, s:I, s:o}", "path",
                        json_stringn_nocheck(path, strlen(path)), "format",
                        tsl_weights_format_name(tsl_weights_format_of(path)), "tensors", list,
                        "total_bytes", (json_int_t)total, "metadata", meta);
  if (!o)
    return;
  if (out)
    json_object_set_new(o, "converted", json_stringn_nocheck(out, strlen(out)));
  char *s = json_dumps(o, JSON_INDENT(2));
  printf("%s\n", s);
  free(s);
  json_decref(o);
}

int cli_weights(int argc, char **argv) {
  const char *path = NULL, *out = NULL;
  int json = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json"))
      json = 1;
    else if (!strcmp(argv[i], "--convert")) {
      if (++i >= argc)
        return cli_error("weights", "--convert needs a file name (OUT.npy, OUT.npz or "
                                    "OUT.safetensors)");
      out = argv[i];
    } else if (argv[i][0] == '-' && argv[i][1])
      return cli_error("weights", "unknown option '%s'; valid: --convert OUT, --json",
                       argv[i]);
    else if (path)
      return cli_error("weights", "one FILE only (got '%s' and '%s')", path, argv[i]);
    else
      path = argv[i];
  }
  if (!path)
    return cli_error("weights", "no FILE given\n%s", cli_weights_usage);
  if (out && !tsl_weights_format_of(out))
    return cli_error("weights", "--convert %s: unknown extension; valid: .npy, .npz, "
                                ".safetensors",
                     out);
  tsl_diag d = {0};
  tsl_weights *w;
  if (tsl_weights_load(path, &w, &d))
    return cli_error("weights", "%s", d.text);
  int rc = CLI_OK;
  if (out) {
    if (tsl_weights_save(w, out, &d))
      rc = cli_error("weights", "%s", d.text);
    else if (tsl_weights_meta_count(w) &&
             tsl_weights_format_of(out) != TSL_WEIGHTS_SAFETENSORS)
      fprintf(stderr, "tessel weights: note: %s: %u metadata entries dropped (only "
                      ".safetensors holds them)\n",
              out, tsl_weights_meta_count(w));
  }
  if (rc == CLI_OK) {
    if (json)
      print_json(path, w, out);
    else
      print_text(path, w);
  }
  tsl_weights_free(w);
  return rc;
}
