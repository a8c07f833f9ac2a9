/*
 * `tessel eval FILE`: run one prim_func in the reference interpreter on
 * seeded random inputs and print a checksum per output buffer.
 */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char cli_eval_usage[] =
    "usage: tessel eval FILE [--func NAME] [--seed S] [--set NAME=VALUE]... [--json]\n"
    "\n"
    "Run a prim_func of FILE in the reference interpreter. Every buffer\n"
    "parameter gets seeded pseudo-random contents (floats in [-1, 1), signed\n"
    "ints in [-8, 8), unsigned ints in [0, 16)); the same seed gives the same\n"
    "bits on every machine. Prints, for each output buffer (a parameter the\n"
    "function writes), the sum of its elements and a 64-bit hash of its bytes.\n"
    "\n"
    "  --func NAME       function to run (default: \"main\", or the only one)\n"
    "  --seed S          random seed, a non-negative integer (default 0)\n"
    "  --set NAME=VALUE  value of a symbolic shape variable or scalar parameter\n"
    "  --json            print one JSON object instead of text\n"
    "\n"
    "exit status: 0 ok, 2 on error (message on stderr)\n";

enum { MAX_BINDS = 64 };

static int parse_i64(const char *s, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 0);
  if (errno || end == s || *end)
    return 0;
  *out = v;
  return 1;
}

static void shape_text(const tsl_tensor *t, char *buf, size_t cap) {
  size_t n = 0;
  n += (size_t)snprintf(buf + n, cap - n, "[");
  for (int32_t d = 0; d < t->ndim && n < cap; d++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%" PRId64, d ? ", " : "", t->shape[d]);
  if (n < cap)
    snprintf(buf + n, cap - n, "]");
}

int cli_eval(int argc, char **argv) {
  const char *path = NULL, *func_name = NULL;
  int64_t seed = 0;
  int json = 0;
  tsl_binding binds[MAX_BINDS];
  uint32_t n_binds = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--json") == 0) {
      json = 1;
    } else if (strcmp(a, "--func") == 0 || strcmp(a, "--seed") == 0 ||
               strcmp(a, "--set") == 0) {
      if (i + 1 >= argc)
        return cli_error("eval", "option %s needs a value\nnote: see tessel eval --help", a);
      const char *v = argv[++i];
      if (strcmp(a, "--func") == 0) {
        func_name = v;
      } else if (strcmp(a, "--seed") == 0) {
        if (!parse_i64(v, &seed) || seed < 0)
          return cli_error("eval", "--seed expects a non-negative integer, got '%s'", v);
      } else {
        const char *eq = strchr(v, '=');
        int64_t value;
        if (!eq || eq == v || !parse_i64(eq + 1, &value))
          return cli_error("eval", "--set expects NAME=INTEGER, got '%s'\nnote: e.g. --set m=64", v);
        if (n_binds == MAX_BINDS)
          return cli_error("eval", "at most %d --set options", MAX_BINDS);
        char *name = strndup(v, (size_t)(eq - v));
        binds[n_binds].name = name;
        binds[n_binds].value = value;
        n_binds++;
      }
    } else if (a[0] == '-' && a[1] != '\0') {
      return cli_error("eval", "unknown option '%s'\nnote: valid options: --func, --seed, --set, --json, --help", a);
    } else if (path) {
      return cli_error("eval", "more than one FILE given ('%s' and '%s')", path, a);
    } else {
      path = a;
    }
  }
  if (!path)
    return cli_error("eval", "missing FILE\nnote: usage: tessel eval FILE [--func NAME] [--seed S] [--json]");

  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  const tsl_module *m = NULL;
  tsl_arg *args = NULL;
  const tsl_func *f = NULL;
  tsl_diag diag = {0};
  int rc = cli_load(arena, path, &m);
  if (rc == CLI_OK && !(f = cli_pick_func("eval", m, func_name, path)))
    rc = CLI_USAGE;
  if (rc == CLI_OK) {
    args = calloc(f->n_params ? f->n_params : 1, sizeof *args);
    if (tsl_func_make_args(f, binds, n_binds, (uint64_t)seed, args, &diag) != TSL_OK) {
      fprintf(stderr, "tessel eval: error: %s\n", diag.text);
      rc = CLI_USAGE;
    }
  }
  double ms = 0;
  if (rc == CLI_OK) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int st = tsl_interp_run(f, args, f->n_params, &diag);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    if (st != TSL_OK) {
      fprintf(stderr, "tessel eval: error: %s: function '%s': %s\n", path, f->name, diag.text);
      rc = CLI_USAGE;
    }
  }
  if (rc == CLI_OK) {
    json_t *outs = json_array();
    if (!json)
      printf("%s: %s (seed %" PRId64 ")\n", path, f->name, seed);
    for (uint32_t k = 0; k < f->n_params; k++) {
      if (!f->params[k].buffer || !tsl_func_param_is_output(f, k))
        continue;
      const tsl_tensor *t = &args[k].tensor;
      tsl_checksum c = tsl_tensor_checksum(t);
      char dt[32], shape[256], hash[32];
      tsl_dtype_str(t->dtype, dt);
      shape_text(t, shape, sizeof shape);
      snprintf(hash, sizeof hash, "%016" PRIx64, c.hash);
      if (json) {
        json_t *sh = json_array();
        for (int32_t d = 0; d < t->ndim; d++)
          json_array_append_new(sh, json_integer(t->shape[d]));
        json_array_append_new(outs, json_pack("{s:s, s:s, s:o, s:f, s:s}", "name",
                                              f->params[k].buffer->name, "dtype", dt,
                                              "shape", sh, "sum", c.sum, "hash", hash));
      } else {
        printf("  %s: %s%s sum=%.9g hash=%s\n", f->params[k].buffer->name, dt, shape,
               c.sum, hash);
      }
    }
    if (json) {
      json_t *o = json_pack("{s:s, s:s, s:I, s:o, s:f}", "file", path, "func", f->name,
                            "seed", (json_int_t)seed, "outputs", outs, "interp_ms", ms);
      char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
      puts(s);
      free(s);
      json_decref(o);
    } else {
      json_decref(outs);
    }
  }
  if (args) {
    tsl_args_free(args, f->n_params);
    free(args);
  }
  for (uint32_t i = 0; i < n_binds; i++)
    free((char *)binds[i].name);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return rc;
}
