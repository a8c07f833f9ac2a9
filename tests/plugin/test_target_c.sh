#!/usr/bin/env bash
# TAP test of examples/target_c, the small target a vendor starts from: built
# out of tree against an installed tessel (`meson install --destdir`, then
# only the installed tessel.pc and headers), it runs workloads with their
# outputs checked against the interpreter, refuses what it cannot compile
# with a message, exports a library a C program links, and tunes.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
. "$(dirname "${BASH_SOURCE[0]}")/installed.sh"
srcroot="${TESSEL_SOURCE_ROOT:?}"
exe="${TESSEL_EXE:?}"
cc="${CC:-cc}"
finish() { echo "1..$n"; [ "$failed" = 0 ]; exit $?; }

installed_tessel || finish
so="$tmp/tessel-target-c.so"
check "examples/target_c compiles as C99 with the installed tessel.pc's flags only" \
  bash -c "$cc -std=c99 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden -o '$so' '$srcroot/examples/target_c/target_c.c' $flags"
[ -f "$so" ] || finish
lines="$(wc -l < "$srcroot/examples/target_c/target_c.c")"
echo "# examples/target_c/target_c.c: $lines lines"
export TESSEL_PLUGIN_PATH="$so"
check "tessel plugins lists target c from it" \
  bash -c "'$exe' plugins | grep -q '^target  *c  *0.1.0 .*$so\$'"

w="$srcroot/workloads"
for case in gelu sigmoid softmax conv2d_nchw depthwise_conv2d matmul_int8 reshape_slice \
            window_sum layer_norm "matmul_dynamic --bind m=48" \
            "matmul_128 --schedule $srcroot/examples/matmul_128.sch"; do
  set -- $case
  name="$1"; shift
  check "tessel run $name --target c ${*:+(${*##*/}) }matches the reference" bash -c "
    '$exe' run '$w/$name.py' $* --target c --repeat 1 > '$tmp/out' 2> '$tmp/err' &&
    grep -q '^  check: ok' '$tmp/out'"
done
check "a float16 program is refused, naming the dtype and what is supported" bash -c "
  ! '$exe' run '$w/matmul_fp16.py' --target c > '$tmp/out' 2> '$tmp/err' &&
  grep -q \"c target: dtype 'float16' is not supported (int, uint, bool and float32/64\" '$tmp/err'"
check "a GPU program is refused, naming the thread-bound loop" bash -c "
  ! '$exe' run '$w/matmul_gpu_shared.py' --target c > '$tmp/out' 2> '$tmp/err' &&
  grep -q \"thread-bound loop 'blockIdx\" '$tmp/err'"

mkdir -p "$tmp/mm"
check "tessel build --target c exports a library and its header" bash -c "
  '$exe' build '$w/matmul_128.py' --schedule '$srcroot/examples/matmul_128.sch' --target c \
    -o '$tmp/mm/libmm.so' > '$tmp/out' && grep -q '^wrote .*/libmm.so and .*/libmm.h: mm_matmul' '$tmp/out'"
check "  ... that examples/matmul.c links and calls (mm_matmul correct)" bash -c "
  $cc -O2 '$srcroot/examples/matmul.c' -I'$tmp/mm' -L'$tmp/mm' -lmm -Wl,-rpath,'$tmp/mm' -lm \
    -o '$tmp/mm/matmul' && '$tmp/mm/matmul' > '$tmp/out' && grep -q '^mm_matmul: ok' '$tmp/out'"

cat > "$tmp/tune.yaml" <<YAML
workload: {file: $w/matmul_64.py}
target: {kind: c, cflags: -O2}
strategy: {kind: evolutionary, trials: 8, batch: 4}
cost_model: {kind: xgb}
runner: {number: 2, repeat: 1, min_repeat_ms: 5, timeout_s: 20}
database: $tmp/c.db
seed: 3
YAML
check "tessel tune with target c and its default space measures its budget" bash -c "
  '$exe' tune '$tmp/tune.yaml' > '$tmp/out' 2> '$tmp/err' &&
  grep -q '^tuned: 8 candidates measured by this run (0 failed)' '$tmp/out'"
# sql DB QUERY: the first column of the first row, the database opened read-only
sql() { python3 -c "import sqlite3,sys; print(sqlite3.connect('file:'+sys.argv[1]+'?mode=ro', uri=True).execute(sys.argv[2]).fetchone()[0])" "$@"; }
check "  ... each record of target c measured, with a latency" test "$(sql "$tmp/c.db" \
  "select count(*) from records where target = 'c -cc=cc -cflags=-O2' and status = 0 and latency_s > 0")" = 8
check "an unknown option is refused, naming the valid ones" bash -c "
  ! '$exe' tune '$tmp/tune.yaml' --set target.opt=3 > '$tmp/out' 2> '$tmp/err' &&
  grep -q \"c target: unknown option 'opt'; valid: cc (the C compiler, default cc), cflags\" '$tmp/err'"
"$exe" tune "$tmp/tune.yaml" --set target.cflags=-fno-such-flag --set database="$tmp/c2.db" \
  > "$tmp/out" 2> "$tmp/err"
check "a compiler error is recorded with the compiler's own message" test "$(sql "$tmp/c2.db" \
  "select count(*) from records where error like '%c target: %failed:%no-such-flag%'")" -ge 1
finish
