#!/usr/bin/env bash
# TAP test of the config key `export: PATH`: `tessel tune` writes the best
# program as a shared library plus its C header (libmm.so -> libmm.h with
# mm_matmul / mm_matmul_packed). A C program compiled against the header
# and linked with the library checks the function against a naive matmul
# on random inputs; a resumed run (nothing to measure) exports again; a
# missing folder is made; a folder that cannot be made is a located error
# before measuring; an unsupported extension and a
# name that gives no C prefix are config errors before anything runs.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
exe="${TESSEL_EXE:?}"
src="${TESSEL_SOURCE_ROOT:?}"
cc="${CC:-cc}"
# json EXPR: a Python expression over d = the last line of $tmp/out as JSON
json() { python3 -c "
import json,os,sys
d=json.loads(open('$tmp/out').read().strip().splitlines()[-1])
sys.exit(0 if ($1) else 1)"; }
# records [FOLDER]: the number of records in $tmp/FOLDER/t.db (db)
records() { "$exe" db stats "$tmp/${1:-db}/t.db" --json 2>/dev/null |
  python3 -c "import json,sys; print(json.load(sys.stdin)['records'])" 2>/dev/null; }

mkdir -p "$tmp/out.d"
cat > "$tmp/run.yaml" <<YAML
workload: {file: $src/workloads/matmul_128.py}
target: {kind: llvm, threads: 1}
space: {schedule: $src/workloads/matmul_stochastic.sch}
strategy: {kind: random, trials: 4, batch: 4}
cost_model: {kind: random}
runner: {number: 2, repeat: 1, min_repeat_ms: 5, timeout_s: 10}
database: db/t.db
export: out.d/libmm.so
seed: 5
YAML
lib="$tmp/out.d/libmm.so"; hdr="$tmp/out.d/libmm.h"

# The checker: mm_matmul on random 128x128 inputs (aligned, then misaligned
# by one float) and mm_matmul_packed against a naive triple loop in double;
# an element passes when |got - ref| <= 1e-3 * sum_k |A[i,k] * B[k,j]|
# (relative to the size of the terms, so sums near 0 are fair).
# `check_mm selftest` corrupts one element and must report it.
cat > "$tmp/check_mm.c" <<'C'
#include "libmm.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
enum { N = 128 };
static int compare(const float *A, const float *B, const float *C, const char *what) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double ref = 0, scale = 0;
      for (int k = 0; k < N; k++) {
        ref += (double)A[i * N + k] * B[k * N + j];
        scale += fabs((double)A[i * N + k] * B[k * N + j]);
      }
      if (!(fabs(C[i * N + j] - ref) <= 1e-3 * scale + 1e-30)) {
        fprintf(stderr, "%s: C[%d,%d] = %g, expected %g\n", what, i, j, C[i * N + j], ref);
        return 1;
      }
    }
  return 0;
}
int main(int argc, char **argv) {
  int selftest = argc > 1 && !strcmp(argv[1], "selftest");
  /* one float of slack for the misaligned call */
  float *a = aligned_alloc(64, (N * N + 64) * sizeof(float));
  float *b = aligned_alloc(64, (N * N + 64) * sizeof(float));
  float *c = aligned_alloc(64, (N * N + 64) * sizeof(float));
  if (!a || !b || !c)
    return 3;
  srand(12345);
  for (int i = 0; i < N * N + 64; i++) {
    a[i] = (float)rand() / RAND_MAX * 2 - 1;
    b[i] = (float)rand() / RAND_MAX * 2 - 1;
    c[i] = 1e30f; /* the function must overwrite, not accumulate */
  }
  if (mm_matmul(a, b, c) != 0)
    return 4;
  if (selftest)
    c[77 * N + 5] += 0.5f;
  if (compare(a, b, c, "mm_matmul"))
    return 1;
  for (int i = 0; i < N * N; i++)
    c[i + 1] = -7.0f;
  if (mm_matmul(a + 1, b + 1, c + 1) != 0 || compare(a + 1, b + 1, c + 1, "misaligned"))
    return 1;
  memset(c, 0, N * N * sizeof(float));
  void *args[3] = {a, b, c};
  if (mm_matmul_packed(args) != 0)
    return 4;
  if (compare(a, b, c, "mm_matmul_packed"))
    return 1;
  free(a); free(b); free(c);
  return 0;
}
C

check "tune with export: exits 0" test "$(status "$exe" tune "$tmp/run.yaml" --json)" = 0
check "  ... 4 measured, a best" json "d['trials'] == 4 and d['best_seconds'] > 0"
cp "$tmp/out" "$tmp/tune.json"
check "  ... the best 4 re-measured at the end (runner.remeasure 5), 3 rounds, a median with its spread" \
  json "d['remeasured_records'] == 4 and d['remeasured_rounds'] == 3 and
        0 < d['remeasured_min_seconds'] <= d['remeasured_seconds'] <= d['remeasured_max_seconds']"
check "  ... tessel best reports that record and figure, and the program exported is its program" bash -c "
  '$exe' best '$tmp/db/t.db' --json > '$tmp/best.json' 2> '$tmp/err' && python3 -c \"
import json, sys
t = json.loads(open('$tmp/tune.json').read().strip().splitlines()[-1])
b = json.load(open('$tmp/best.json'))
sys.exit(not (b['record_id'] == t['best_record'] and b['program'] == t['best_program'] and
              abs(b['remeasured']['median_s'] / t['remeasured_seconds'] - 1) < 1e-6 and
              b['remeasured']['rounds'] == 3))\""
check "  ... and says so in its text" bash -c "
  '$exe' best '$tmp/db/t.db' | grep -q '^  latency: .* us re-measured (median of 3 rounds in a fresh worker, .* to .* us); .* us in the run'"
check "runner.remeasure: 0 re-measures nothing" bash -c "
  cd '$tmp' && '$exe' tune run.yaml --set database=db0/t.db --set export=out0.d/libmm0.so \
    --set runner.remeasure=0 --json > '$tmp/out' 2> '$tmp/err'" &&
  check "  ... (no figure)" json "d['remeasured_records'] == 0 and d['remeasured_seconds'] is None"
cp "$tmp/tune.json" "$tmp/out"
check "  ... the .so and the .h next to it exist" test -s "$lib" -a -s "$hdr"
check "  ... --json 'export' names the library" \
  json "d['export'] and os.path.samefile(d['export'], '$lib')"
check "  ... the header declares mm_matmul and mm_matmul_packed" bash -c "
  grep -q 'int32_t mm_matmul(const float \*A, const float \*B, float \*C);' '$hdr' &&
  grep -q 'int32_t mm_matmul_packed(void \*const \*args);' '$hdr'"
check "  ... the header compiles alone as C and as C++" bash -c "
  echo '#include \"libmm.h\"' > '$tmp/h.c' &&
  '$cc' -std=c99 -Wall -Wextra -Werror -pedantic -I'$tmp/out.d' -c '$tmp/h.c' -o '$tmp/h.o' 2>'$tmp/err' &&
  { ! command -v c++ >/dev/null || c++ -Wall -Werror -x c++ -I'$tmp/out.d' -c '$tmp/h.c' -o '$tmp/h.o' 2>'$tmp/err'; }"
check "  ... nm -D lists the natural and the packed entry" bash -c "
  nm -D --defined-only '$lib' > '$tmp/out' &&
  grep -Eq ' T mm_matmul$' '$tmp/out' && grep -Eq ' T mm_matmul_packed$' '$tmp/out'"
check "a C program compiles against the header" \
  bash -c "'$cc' -std=c11 -Wall -Wextra -Werror -I'$tmp/out.d' -c '$tmp/check_mm.c' -o '$tmp/check_mm.o' 2>'$tmp/err'"
check "  ... links with the library" \
  bash -c "'$cc' '$tmp/check_mm.o' -L'$tmp/out.d' -lmm -Wl,-rpath,'$tmp/out.d' -lm -o '$tmp/check_mm' 2>'$tmp/err'"
check "  ... mm_matmul (aligned, misaligned) and mm_matmul_packed match a naive matmul" \
  bash -c "'$tmp/check_mm' 2>'$tmp/err'"
check "  ... the checker itself catches one wrong element" \
  bash -c "'$tmp/check_mm' selftest 2>'$tmp/err'; test \$? = 1 && grep -q 'C\[77,5\]' '$tmp/err'"

# Resume: nothing to measure, the export is written again.
rm -f "$lib" "$hdr"
check "a second run (resume) exits 0" test "$(status "$exe" tune "$tmp/run.yaml")" = 0
check "  ... measures nothing and reports the export" bash -c "
  grep -q '^tuned: 0 candidates measured' '$tmp/out' && grep -qx 'exported: .*/out.d/libmm.so' '$tmp/out'"
check "  ... writes the .so and the .h again" test -s "$lib" -a -s "$hdr"
check "  ... the checker (same binary, new library) still passes" bash -c "'$tmp/check_mm' 2>'$tmp/err'"

# An object file: `.o` is the other extension the llvm target writes.
check "export to a .o exits 0" \
  test "$(status "$exe" tune "$tmp/run.yaml" --set "export=$tmp/out.d/libobj.o")" = 0
check "  ... an object defining obj_matmul and obj_matmul_packed, header libobj.h" bash -c "
  nm --defined-only '$tmp/out.d/libobj.o' > '$tmp/out' &&
  grep -Eq ' T obj_matmul$' '$tmp/out' && grep -Eq ' T obj_matmul_packed$' '$tmp/out' &&
  grep -q 'obj_matmul(const float' '$tmp/out.d/libobj.h'"

# A missing folder is made, like the database's.
sed -e "s|^export: .*|export: nodir/sub/libmm.so|" -e "s|db/t.db|db2/t.db|" \
  "$tmp/run.yaml" > "$tmp/nodir.yaml"
check "export into a folder that does not exist makes it" \
  test "$(status "$exe" tune "$tmp/nodir.yaml")" = 0
check "  ... and writes the .so and the .h there" \
  test -s "$tmp/nodir/sub/libmm.so" -a -s "$tmp/nodir/sub/libmm.h"

# Errors: each is reported on one line with the config location (or the
# --set) and the path, exits nonzero and writes nothing; the measured
# records stay.
# located_err WHERE TEXT: stderr is one line, starts with WHERE, holds TEXT
located_err() { [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "^$1: error: export: .*$2" "$tmp/err"; }
line=$(grep -n '^export:' "$tmp/run.yaml" | cut -d: -f1)
# a folder that cannot be made (a file is in the way): found before measuring
: > "$tmp/afile"
sed -e "s|^export: .*|export: afile/libmm.so|" -e "s|db/t.db|db3/t.db|" \
  "$tmp/run.yaml" > "$tmp/blocked.yaml"
check "export under a file fails" test "$(status "$exe" tune "$tmp/blocked.yaml")" != 0
check "  ... one line located at the export key, naming the path" \
  located_err "$tmp/blocked.yaml:$line:9" "afile"
check "  ... nothing measured" test "$(records db3)" = 0
check "  ... a re-run with a valid export measures and exports" bash -c "
  '$exe' tune '$tmp/blocked.yaml' --set 'export=$tmp/out.d/libmm2.so' --json >'$tmp/out' 2>'$tmp/err' &&
  python3 -c \"import json,sys; d=json.loads(open('$tmp/out').read().splitlines()[-1]); sys.exit(0 if d['trials']==4 and d['total']==4 else 1)\" &&
  test -s '$tmp/out.d/libmm2.so' -a -s '$tmp/out.d/libmm2.h'"
# a folder that cannot be written: found before anything is measured
check "an export into /proc fails before measuring" \
  test "$(status "$exe" tune "$tmp/blocked.yaml" --set strategy.trials=8 --set export=/proc/libx.so)" = 2
check "  ... one line located at the --set, naming the folder" \
  located_err "--set export=/proc/libx.so" "cannot write into the folder /proc"
check "  ... nothing measured (still 4 records)" test "$(records db3)" = 4
# checked when the config is loaded: nothing is measured
check "an export ending in .txt is a config error (exit 2)" \
  test "$(status "$exe" tune "$tmp/run.yaml" --set strategy.trials=8 --set "export=$tmp/out.d/libbad.txt")" = 2
check "  ... one line located at the --set, saying .o or .so" \
  located_err "--set export=$tmp/out.d/libbad.txt" "unsupported file type.*\\.so (shared library) or \\.o (object file)"
check "  ... writes neither the .txt nor a header" test ! -e "$tmp/out.d/libbad.txt" -a ! -e "$tmp/out.d/libbad.h"
check "an export name that gives no C prefix (2mm.so) is a config error" bash -c "
  '$exe' tune '$tmp/run.yaml' --set strategy.trials=8 --set 'export=$tmp/out.d/2mm.so' >'$tmp/out' 2>'$tmp/err'
  [ \$? = 2 ] && grep -q \"gives no C prefix ('2mm')\" '$tmp/err' && test ! -e '$tmp/out.d/2mm.so'"
check "after the errors the database still holds exactly 4 records" test "$(records)" = 4

# A layout-free weight (layout_free_buffers: MetaSchedule's RewriteLayout):
# the default space packs B; the measured kernels take the packed weight,
# the packing runs once outside the timed calls, and the library exports
# lf_matmul_bias (packed weight) and lf_matmul_bias_prepack, which a C
# program calls once before the kernel.
cat > "$tmp/lf.yaml" <<YAML
workload: {file: $src/workloads/matmul_bias_128.py}
target: {kind: llvm, threads: 1}
strategy: {kind: random, trials: 4, batch: 4}
cost_model: {kind: random}
runner: {number: 2, repeat: 1, min_repeat_ms: 5, timeout_s: 10}
database: db4/t.db
export: out.d/liblf.so
seed: 3
YAML
cat > "$tmp/check_lf.c" <<'C'
#include "liblf.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
enum { N = 128 };
int main(void) {
  float *a = malloc(N * N * sizeof(float)), *b = malloc(N * N * sizeof(float));
  float *bp = malloc(N * N * sizeof(float)), *c = malloc(N * N * sizeof(float));
  float *bias = malloc(N * sizeof(float));
  srand(7);
  for (int i = 0; i < N * N; i++) {
    a[i] = (float)rand() / RAND_MAX * 2 - 1;
    b[i] = (float)rand() / RAND_MAX * 2 - 1;
    c[i] = 1e30f;
  }
  for (int j = 0; j < N; j++)
    bias[j] = (float)j;
  /* the weight packed once, at load */
  if (lf_matmul_bias_prepack(b, bp) != 0)
    return 4;
  for (int rep = 0; rep < 2; rep++) {
    if (lf_matmul_bias(a, bp, bias, c) != 0)
      return 4;
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
        double ref = bias[j], scale = fabs(bias[j]);
        for (int k = 0; k < N; k++) {
          ref += (double)a[i * N + k] * b[k * N + j];
          scale += fabs((double)a[i * N + k] * b[k * N + j]);
        }
        if (!(fabs(c[i * N + j] - ref) <= 1e-3 * scale + 1e-30)) {
          fprintf(stderr, "C[%d,%d] = %g, expected %g\n", i, j, c[i * N + j], ref);
          return 1;
        }
      }
  }
  return 0;
}
C
check "tune with a layout-free weight: exits 0" test "$(status "$exe" tune "$tmp/lf.yaml" --json)" = 0
check "  ... 4 measured, all ok, the weight packed by transform_layout in each" bash -c "
  '$exe' db export '$tmp/db4/t.db' --json '$tmp/lf.jsonl' >/dev/null 2>&1 && python3 -c \"
import json,sys
rs=[json.loads(l) for l in open('$tmp/lf.jsonl')]
ok=len(rs)==4 and all(r['status']==0 and r['latency_s'] > 0 for r in rs)
ok=ok and all('transform_layout' in json.dumps(r['trace']) and 'layout_rewrite_preproc' in json.dumps(r['trace']) for r in rs)
sys.exit(0 if ok else 1)\""
check "  ... the header declares the kernel on the packed weight and the prepack function" bash -c "
  grep -q 'int32_t lf_matmul_bias(const float \*A, const float \*B_global, const float \*bias, float \*C);' '$tmp/out.d/liblf.h' &&
  grep -q 'int32_t lf_matmul_bias_prepack(const float \*B, float \*B_global);' '$tmp/out.d/liblf.h' &&
  grep -q 'call lf_matmul_bias_prepack once' '$tmp/out.d/liblf.h'"
check "  ... a C program packing once, then calling twice, matches a naive matmul + bias" bash -c "
  '$cc' -std=c11 -Wall -Wextra -Werror -I'$tmp/out.d' '$tmp/check_lf.c' -L'$tmp/out.d' -llf \
    -Wl,-rpath,'$tmp/out.d' -lm -o '$tmp/check_lf' 2>'$tmp/err' && '$tmp/check_lf' 2>'$tmp/err'"

echo "1..$n"
exit $((failed > 0))
