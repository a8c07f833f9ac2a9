#!/usr/bin/env bash
# TAP test of tuning a function with symbolic sizes or scalar parameters:
# `workload.binds` specializes it (TVM's PrimFunc.specialize) before the
# default rules derive its space; without a value for each, `tessel tune`
# and `tessel space` stop with a located message naming what to bind.
# Workloads: workloads/matmul_dynamic.py (C[m, 64] = A[m, 64] @ B) and
# tests/programs/symbolic_scalar_loop.py (a scalar n that is also a shape).
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
exe="${TESSEL_EXE:?}"
src="${TESSEL_SOURCE_ROOT:?}"
json() { python3 -c "
import json,sys
d=json.loads(open('$tmp/out').read().strip().splitlines()[-1])
sys.exit(0 if ($1) else 1)"; }

cat > "$tmp/dyn.yaml" <<YAML
workload:
  file: $src/workloads/matmul_dynamic.py
  binds: {m: 64}
target: {kind: llvm, threads: 1}
strategy: {kind: evolutionary, trials: 4, batch: 4}
cost_model: {kind: random}
runner: {number: 2, repeat: 1, min_repeat_ms: 5, timeout_s: 10}
database: db/t.db
export: lib/libdyn.so
seed: 3
YAML
sed '/binds:/d' "$tmp/dyn.yaml" > "$tmp/nobinds.yaml"

check "without binds: tune stops" test "$(status "$exe" tune "$tmp/nobinds.yaml")" = 2
check "  ... at the workload, naming the size and how to bind it" grep -qF \
  "nobinds.yaml:2:3: error: workload: function 'main' has 1 symbolic size or scalar parameter without a value (m); tuning needs them constant; valid: a value for each in workload.binds, e.g. binds: {m: 64}" \
  "$tmp/err"
check "  ... and measures nothing" test ! -e "$tmp/db/t.db"

check "an unknown name in binds stops" \
  test "$(status "$exe" tune "$tmp/dyn.yaml" --set workload.binds.q=8)" = 2
check "  ... at that key, with the valid names" grep -qF -e \
  "--set workload.binds.q=8: error: workload.binds.q: 'q' is not a symbolic size or scalar parameter of 'main'; valid: m" \
  "$tmp/err"
sed 's/{m: 64}/{m: 0}/' "$tmp/dyn.yaml" > "$tmp/zero.yaml"
check "a size of 0 stops at its key" test "$(status "$exe" tune "$tmp/zero.yaml")" = 2
check "  ... saying what is valid" grep -qF \
  "zero.yaml:3:14: error: workload.binds.m: 'm' (int64 size) got '0'; valid: a positive integer (a size)" \
  "$tmp/err"

check "binds: {m: 64}: tune from the default rules exits 0" \
  test "$(status "$exe" tune "$tmp/dyn.yaml" --json)" = 0
check "  ... 4 measured, none failed" json "d['trials'] == 4 and d['errors'] == 0 and d['best_seconds'] > 0"
check "  ... FLOPs of the specialized function (2 * 64 * 64 * 64)" \
  json "abs(d['best_gflops'] - 2 * 64**3 / d['best_seconds'] * 1e-9) < 1e-6 * d['best_gflops']"
check "  ... the best program has constant shapes" \
  json "'T.Buffer((T.int64(64), T.int64(64))' in d['best_program'] and 'T.int64()' not in d['best_program']"
check "  ... the exported function takes the three buffers and no size" \
  grep -qF "int32_t dyn_main(const float *A, const float *B, float *C);" "$tmp/lib/libdyn.h"
check "another value is another workload: nothing is resumed" \
  test "$(status "$exe" tune "$tmp/dyn.yaml" --set workload.binds.m=32 --json)" = 0
check "  ... 4 measured, 4 in the database for m = 32" json "d['trials'] == 4 and d['total'] == 4"
check "the same value again resumes" test "$(status "$exe" tune "$tmp/dyn.yaml" --json)" = 0
check "  ... 0 measured, 4 in the database for m = 64" json "d['trials'] == 0 and d['total'] == 4"

cat > "$tmp/scalar.yaml" <<YAML
workload:
  file: $src/tests/programs/symbolic_scalar_loop.py
  binds: {n: 256}
target: {kind: llvm, threads: 1}
strategy: {kind: evolutionary, trials: 2, batch: 2}
cost_model: {kind: random}
runner: {number: 2, repeat: 1, min_repeat_ms: 5, timeout_s: 10}
database: db/s.db
export: lib/libsc.so
YAML
check "a scalar parameter that is a shape: tune exits 0" \
  test "$(status "$exe" tune "$tmp/scalar.yaml" --json)" = 0
check "  ... the bound parameter left the signature" \
  grep -qF "int32_t sc_main(const float *A, float *B);" "$tmp/lib/libsc.h"

sed -e '/m = T.int64()/d' -e 's/(m, /(T.int64(64), /g' "$src/workloads/matmul_dynamic.py" > "$tmp/m64.py"
check "tessel space without --bind stops" \
  test "$(status "$exe" space "$src/workloads/matmul_dynamic.py")" = 2
check "  ... naming the size and the option" bash -c \
  "grep -qF \"function 'main' has symbolic sizes or scalar parameters without a value (m)\" '$tmp/err' &&
   grep -qF 'note: give each a value, e.g. --bind m=64' '$tmp/err'"
check "tessel space --bind m=64 prints the sketches" \
  test "$(status "$exe" space "$src/workloads/matmul_dynamic.py" --bind m=64 --json)" = 0
check "  ... the same three sketches as the function written with 64" bash -c "
  '$exe' space '$tmp/m64.py' --json > '$tmp/want.json' 2>/dev/null || exit 1
  cmp -s '$tmp/out' '$tmp/want.json'"
check "tessel space --bind q=1 names the valid names" \
  test "$(status "$exe" space "$src/workloads/matmul_dynamic.py" --bind q=1)" = 2
check "  ... in its message" grep -qF "valid: m" "$tmp/err"

echo "1..$n"
[ "$failed" = 0 ]
