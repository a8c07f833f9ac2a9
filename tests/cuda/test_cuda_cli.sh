#!/usr/bin/env bash
# TAP test of the command line on the cuda target. On a machine without a
# CUDA driver (every development machine of this project): `tessel build`
# writes the host library, the PTX and the header, and everything that
# needs the GPU stops with one "no CUDA device" message, writing no record.
# With a driver and a GPU: the same programs run and are checked instead.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
exe="${TESSEL_EXE:?}"
w="${TESSEL_SOURCE_ROOT:?}/workloads"
cc="${CC:-cc}"
gpu=0
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then gpu=1; fi
echo "# libcuda.so.1 $([ $gpu = 1 ] && echo found || echo not found): $([ $gpu = 1 ] && echo 'GPU checks' || echo 'no-device checks')"

check "tessel plugins lists target cuda" bash -c "'$exe' plugins | grep -q '^target  *cuda  *0.1.0 '"

mkdir -p "$tmp/mm"
echo 'b = sch.get_block("C")' > "$tmp/none.sch"
check "tessel build --target cuda writes the host library, the PTX and the header" bash -c "
  '$exe' build '$w/matmul_gpu_shared.py' --target cuda -o '$tmp/mm/libmm.so' > '$tmp/out' 2> '$tmp/err' &&
  test -s '$tmp/mm/libmm.so' && test -s '$tmp/mm/libmm.h' && grep -q '^\.target sm_[0-9]*$' '$tmp/mm/libmm.ptx'"
check "  ... the library exports the entries, the error text and the image setter" bash -c "
  nm -D '$tmp/mm/libmm.so' | grep -c ' T mm_\(main\|main_packed\|last_error\|set_image\)$' | grep -qx 4"
check "  ... the PTX holds the kernel, with its barriers" bash -c "
  grep -q '^\.visible \.entry mm_main_kernel0(' '$tmp/mm/libmm.ptx' && test \"\$(grep -c 'bar\.sync' '$tmp/mm/libmm.ptx')\" -ge 2"
cat > "$tmp/mm/call.c" <<'C'
#include <stdio.h>
#include "libmm.h"
const char *mm_last_error(void);
int main(void) {
  int rc = mm_main(0, 0, 0);
  printf("rc %d: %s\n", rc, mm_last_error());
  return 0;
}
C
if [ $gpu = 0 ]; then
  check "  ... a C program links it; a call without a driver returns an error and says why" bash -c "
    $cc -O2 '$tmp/mm/call.c' -I'$tmp/mm' -L'$tmp/mm' -lmm -Wl,-rpath,'$tmp/mm' -o '$tmp/mm/call' &&
    '$tmp/mm/call' > '$tmp/out' &&
    grep -q '^rc -1: no CUDA device: libcuda.so.1 not found (' '$tmp/out'"
  check "tessel run --target cuda stops with 'no CUDA device' (exit 2)" bash -c "
    '$exe' run '$w/matmul_gpu_shared.py' --target cuda > '$tmp/out' 2> '$tmp/err';
    test \$? = 2 && grep -q 'status: setup error: device: allocating a buffer: no CUDA device: libcuda.so.1 not found' '$tmp/out'"
  cat > "$tmp/tune.yaml" <<YAML
workload: {file: $w/matmul_gpu_shared.py}
target: {kind: cuda}
space: {schedule: $tmp/none.sch}
strategy: {kind: random, trials: 4, batch: 2}
cost_model: {kind: random}
database: $tmp/t.db
YAML
  check "tessel tune --target cuda stops before its first candidate with 'no CUDA device' (exit 2)" bash -c "
    '$exe' tune '$tmp/tune.yaml' > '$tmp/out' 2> '$tmp/err';
    test \$? = 2 && grep -q '^tessel tune: error: reference outputs: device: no CUDA device: libcuda.so.1 not found' '$tmp/err'"
  check "  ... and writes no record" bash -c "
    ! test -e '$tmp/t.db' || test \"\$(python3 -c \"import sqlite3; print(sqlite3.connect('$tmp/t.db').execute('select count(*) from records').fetchone()[0])\")\" = 0"
  bench="$(dirname "$exe")/../../bench/bench_gpu"
  check "./tessel bench gpu stops with 'no CUDA device' (exit 2), tuning nothing" bash -c "
    '$bench' '$TESSEL_SOURCE_ROOT' --minutes 1 > '$tmp/out' 2> '$tmp/err';
    test \$? = 2 && grep -q '^bench_gpu: no CUDA device: libcuda.so.1 not found' '$tmp/out'"
else
  check "tessel run --target cuda: the shared-memory matmul's outputs match the interpreter's" bash -c "
    '$exe' run '$w/matmul_gpu_shared.py' --target cuda > '$tmp/out' 2> '$tmp/err' &&
    grep -q '^  check: ok' '$tmp/out'"
fi
check "a program without thread bindings is refused: did you forget to bind? (exit 2)" bash -c "
  '$exe' run '$w/matmul_128.py' --target cuda > '$tmp/out' 2> '$tmp/err';
  test \$? = 2 && grep -q \"build: cuda target: the store to buffer 'C' in function 'matmul' is not inside a GPU kernel\" '$tmp/err'"
check "an unknown option is refused, naming the valid ones" bash -c "
  printf 'workload: {file: $w/matmul_gpu_shared.py}\ntarget: {kind: cuda, speed: 3}\nspace: {schedule: $tmp/none.sch}\nstrategy: {kind: random, trials: 2, batch: 2}\ndatabase: $tmp/u.db\n' > '$tmp/u.yaml';
  ! '$exe' tune '$tmp/u.yaml' > '$tmp/out' 2> '$tmp/err' &&
  grep -q \"cuda target: unknown option 'speed'; valid: arch (sm_75 ... sm_121, or native\" '$tmp/err'"
echo "1..$n"
[ "$failed" = 0 ]
