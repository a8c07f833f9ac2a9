/*
 * Deterministic mutation stress test of the parser: valid programs are
 * truncated at every byte, have bytes replaced, tokens deleted, lines
 * duplicated, swapped and re-indented; every mutant must either parse or
 * fail with a located diagnostic (never crash, hang or return another
 * status). Run it under -fsanitize=address,undefined for full effect.
 * Seeds: the programs below plus every .py under tests/errors/cases and
 * workloads/ when TESSEL_SOURCE_ROOT is set.
 */
#include "tap.h"
#include "tessel/script.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const builtin_seeds[] = {
    "from tvm.script import tir as T\n"
    "@T.prim_func\n"
    "def matmul(a: T.handle, b: T.handle, c: T.handle) -> None:\n"
    "    A = T.match_buffer(a, [128, 128])\n"
    "    B = T.match_buffer(b, [128, 128])\n"
    "    C = T.match_buffer(c, [128, 128])\n"
    "    for i, j, k in T.grid(128, 128, 128):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                C[vi, vj] = 0.0\n"
    "            C[vi, vj] += A[vi, vk] * B[vj, vk]\n",

    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def main(x: T.handle, W: T.Buffer((16, 16), \"float16\"), n: T.int32):\n"
    "        T.func_attr({\"global_symbol\": \"main\", \"tir.noalias\": T.bool(True)})\n"
    "        m = T.int64()\n"
    "        X = T.match_buffer(x, (1, m), \"float32\")\n"
    "        S = T.alloc_buffer((16, 16), \"float16\", scope=\"shared\")\n"
    "        for bx in T.thread_binding(16, thread=\"blockIdx.x\"):\n"
    "            for j in T.serial(2, 18, annotations={\"pragma_unroll\": 1}):\n"
    "                with T.block(\"S\"):\n"
    "                    vi = T.axis.spatial(16, bx)\n"
    "                    vj = T.axis.S((2, 18), j)\n"
    "                    T.where(bx < 8 and j > 3)\n"
    "                    T.reads(W[vi, vj - 2:vj + 1])\n"
    "                    T.writes(S[vi, vj - 2])\n"
    "                    T.block_attr({\"k\": [1, 2.5, \"s\"]})\n"
    "                    S[vi, vj - 2] = W[vi, vj - 2] * T.float16(2) + 1\n"
    "        for k in range(m):\n"
    "            with T.block(\"X\"):\n"
    "                vk = T.axis.spatial(m, k)\n"
    "                t: T.float32 = T.exp(X[0, vk]) / 3.0\n"
    "                if vk % 2 == 0:\n"
    "                    X[0, vk] = T.max(t, T.Cast(\"float32\", S[0, 0]))\n"
    "                elif vk < 5:\n"
    "                    X[0, vk] = T.if_then_else(t > 0.0, t, -t)\n"
    "                else:\n"
    "                    X[0, vk] = T.call_extern(\"float32\", \"f\", t, n)\n",

    "@T.prim_func\n"
    "def f(A: T.Buffer((64, 64), \"float32\"), C: T.Buffer((64,), \"float32\")):\n"
    "    with T.block(\"root\"):\n"
    "        T.reads()\n"
    "        T.writes()\n"
    "        for i in range(4):\n"
    "            with T.block(\"tile\"):\n"
    "                vi = T.axis.spatial(4, i)\n"
    "                At = T.match_buffer(A[vi * 16:vi * 16 + 16, 0:16], (16, 16))\n"
    "                with T.init():\n"
    "                    C[vi] = T.float32(0)\n"
    "                for a, b in T.grid(16, 16):\n"
    "                    C[vi] = C[vi] + At[a, b] * T.float32(\"inf\")\n",
};

static uint64_t rng_state;
static uint32_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(rng_state >> 33);
}

typedef struct stats {
  long runs, bad;
  char first_bad[256];
} stats;

static void check(tsl_ctx *ctx, stats *st, const char *src, size_t len) {
  tsl_arena *arena = tsl_arena_new(ctx);
  tsl_diag diag;
  memset(&diag, 0, sizeof diag);
  const tsl_module *m = NULL;
  int rc = tsl_parse(arena, "m.py", src, len, &m, &diag);
  int good = (rc == TSL_OK && m) ||
             ((rc == TSL_EPARSE || rc == TSL_EINVALID) && m == NULL &&
              strncmp(diag.text, "m.py:", 5) == 0 && strstr(diag.text, ": error: ") &&
              strchr(diag.text, '^') && strstr(diag.text, "\nnote: "));
  st->runs++;
  if (!good) {
    if (!st->bad)
      snprintf(st->first_bad, sizeof st->first_bad, "rc=%d diag=%.200s", rc, diag.text);
    st->bad++;
  }
  tsl_arena_free(arena);
}

static const char fill[] = "()[]{}:,.\"'\n \t#\\=+-*/%<>@!0123456789aTx_\r\x00\xff\xc3";

static void mutate_seed(tsl_ctx *ctx, const char *name, const char *seed, size_t n) {
  stats st = {0};
  char *buf = malloc(n * 2 + 64);
  /* every truncation */
  for (size_t k = 0; k <= n; k++)
    check(ctx, &st, seed, k);
  ok(st.bad == 0, "%s: %ld truncations parse or fail cleanly", name, st.runs);
  if (st.bad)
    tap_diag("  %ld bad, first: %s", st.bad, st.first_bad);
  /* byte replacements, insertions, deletions */
  memset(&st, 0, sizeof st);
  rng_state = 0x9e3779b97f4a7c15ULL ^ n;
  for (int it = 0; it < 1500; it++) {
    memcpy(buf, seed, n);
    size_t len = n;
    int edits = 1 + (int)(rnd() % 3);
    for (int e = 0; e < edits && len > 0; e++) {
      size_t at = rnd() % len;
      int op = (int)(rnd() % 3);
      char c = fill[rnd() % (sizeof fill - 1)];
      if (op == 0) {
        buf[at] = c;
      } else if (op == 1 && len + 1 < n * 2 + 64) {
        memmove(buf + at + 1, buf + at, len - at);
        buf[at] = c;
        len++;
      } else {
        memmove(buf + at, buf + at + 1, len - at - 1);
        len--;
      }
    }
    check(ctx, &st, buf, len);
  }
  ok(st.bad == 0, "%s: %ld byte mutations parse or fail cleanly", name, st.runs);
  if (st.bad)
    tap_diag("  %ld bad, first: %s", st.bad, st.first_bad);
  /* token deletion: drop a run of word characters or one punctuation */
  memset(&st, 0, sizeof st);
  for (int it = 0; it < 600; it++) {
    size_t at = rnd() % (n ? n : 1), end = at;
    while (end < n && (seed[end] == '_' || (seed[end] >= 'a' && seed[end] <= 'z') ||
                       (seed[end] >= 'A' && seed[end] <= 'Z') ||
                       (seed[end] >= '0' && seed[end] <= '9')))
      end++;
    if (end == at && end < n)
      end++;
    memcpy(buf, seed, at);
    memcpy(buf + at, seed + end, n - end);
    check(ctx, &st, buf, n - (end - at));
  }
  ok(st.bad == 0, "%s: %ld token deletions parse or fail cleanly", name, st.runs);
  if (st.bad)
    tap_diag("  %ld bad, first: %s", st.bad, st.first_bad);
  /* line edits: duplicate, drop, swap, re-indent */
  memset(&st, 0, sizeof st);
  size_t starts[512];
  size_t nl = 0;
  starts[nl++] = 0;
  for (size_t k = 0; k < n && nl < 511; k++)
    if (seed[k] == '\n')
      starts[nl++] = k + 1;
  starts[nl] = n;
  for (int it = 0; it < 400 && nl > 1; it++) {
    size_t a = rnd() % nl, b = rnd() % nl;
    size_t len = 0;
    int op = (int)(rnd() % 4);
    for (size_t l = 0; l < nl; l++) {
      size_t ls = starts[l], le = starts[l + 1];
      if (op == 1 && l == a)
        continue;
      if (op == 2 && (l == a || l == b)) {
        size_t o = l == a ? b : a;
        ls = starts[o];
        le = starts[o + 1];
      }
      if (op == 3 && l == a) {
        int shift = (int)(rnd() % 9) - 4;
        for (int s = 0; s < shift; s++)
          buf[len++] = ' ';
        if (shift < 0)
          for (int s = 0; s < -shift && ls < le && seed[ls] == ' '; s++)
            ls++;
      }
      memcpy(buf + len, seed + ls, le - ls);
      len += le - ls;
      if (op == 0 && l == a && len + (le - ls) < n * 2 + 32) {
        memcpy(buf + len, seed + ls, le - ls);
        len += le - ls;
      }
    }
    check(ctx, &st, buf, len);
  }
  ok(st.bad == 0, "%s: %ld line edits parse or fail cleanly", name, st.runs);
  if (st.bad)
    tap_diag("  %ld bad, first: %s", st.bad, st.first_bad);
  free(buf);
}

static void seeds_from_dir(tsl_ctx *ctx, const char *dir, int limit) {
  DIR *d = opendir(dir);
  if (!d)
    return;
  char *names[256];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < 256) {
    size_t l = strlen(e->d_name);
    if (l > 3 && strcmp(e->d_name + l - 3, ".py") == 0)
      names[n++] = strdup(e->d_name);
  }
  closedir(d);
  /* a deterministic selection: sort, then take every step-th file */
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (strcmp(names[i], names[j]) > 0) {
        char *t = names[i];
        names[i] = names[j];
        names[j] = t;
      }
  int step = n > limit ? n / limit : 1;
  for (int i = 0; i < n; i++) {
    if (i % step == 0) {
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", dir, names[i]);
      FILE *f = fopen(path, "rb");
      if (f) {
        char *buf = malloc(1 << 16);
        size_t len = fread(buf, 1, (1 << 16) - 1, f);
        fclose(f);
        if (len < 4000)
          mutate_seed(ctx, names[i], buf, len);
        free(buf);
      }
    }
    free(names[i]);
  }
}

int main(void) {
  tsl_ctx *ctx = tsl_ctx_new();
  for (size_t i = 0; i < sizeof builtin_seeds / sizeof builtin_seeds[0]; i++) {
    char name[32];
    snprintf(name, sizeof name, "seed %zu", i);
    mutate_seed(ctx, name, builtin_seeds[i], strlen(builtin_seeds[i]));
  }
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  if (root) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/errors/cases", root);
    seeds_from_dir(ctx, dir, 6);
    snprintf(dir, sizeof dir, "%s/workloads", root);
    seeds_from_dir(ctx, dir, 6);
  }
  tsl_ctx_free(ctx);
  return tap_done();
}
