#!/usr/bin/env bash
# TAP test of `tessel run` and `tessel build` with the llvm target, and of the
# example program in examples/ linked against an exported library.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
exe="${TESSEL_EXE:?}"
src="${TESSEL_SOURCE_ROOT:?}"
mm="$src/workloads/matmul_128.py"
sch="$src/examples/matmul_128.sch"
# json EXPR: evaluates a Python expression over d = the JSON object in $tmp/out
json() { python3 -c "import json,sys; d=json.load(open('$tmp/out')); sys.exit(0 if ($1) else 1)"; }

# ---- run --------------------------------------------------------------------
check "run exits 0" test "$(status "$exe" run "$mm")" = 0
check "  ... prints latency, GFLOPS and the check against the interpreter" \
  bash -c "grep -q '^  latency: ' '$tmp/out' && grep -q '^  GFLOPS: [0-9.]* (4194304 arithmetic' '$tmp/out' && grep -q '^  check: ok (interp reference' '$tmp/out'"

check "run --json exits 0" test "$(status "$exe" run "$mm" --json --repeat 5 --number 2)" = 0
check "  ... latency_s, gflops, check, max_abs_err" \
  json "d['latency_s'] > 0 and d['gflops'] > 0 and d['check'] == 'ok' and 0 <= d['max_abs_err'] < 1e-4"
check "  ... status, flops from the IR, times_s, number, repeat, target, compile_s" \
  json "d['status'] == 'ok' and d['flops'] == 2 * 128**3 and len(d['times_s']) == 5 and d['number'] == 2 and d['repeat'] == 5 and d['target'].startswith('llvm') and d['compile_s'] > 0"
check "  ... the latency is the median of times_s" \
  json "sorted(d['times_s'])[2] == d['latency_s'] and abs(d['gflops'] - d['flops'] / d['latency_s'] * 1e-9) < 1e-6 * d['gflops']"

check "run --schedule --threads 2 is checked ok" \
  bash -c "[ \"\$('$exe' run '$mm' --schedule '$sch' --threads 2 --json > '$tmp/out' 2>'$tmp/err'; echo \$?)\" = 0 ]"
check "  ... and describes the target with 2 threads" json "d['check'] == 'ok' and 'threads=2' in d['target']"

check "run --check compiled uses the compiled reference (the unscheduled program, reordered)" \
  bash -c "'$exe' run '$mm' --schedule '$sch' --check compiled --json > '$tmp/out' 2>'$tmp/err'"
check "  ... ok" json "d['check'] == 'ok' and d['reference'] == 'compiled'"
check "run --check none skips the check" \
  bash -c "'$exe' run '$mm' --check none --json > '$tmp/out' 2>'$tmp/err'"
check "  ... check skipped" json "d['check'] == 'skipped' and d['status'] == 'ok'"
sed 's/128/256/g' "$mm" > "$tmp/mm256.py"
check "auto picks the compiled reference for a large program" \
  bash -c "'$exe' run '$tmp/mm256.py' --json --repeat 1 --number 1 > '$tmp/out' 2>'$tmp/err'"
check "  ... and it agrees" json "d['reference'] == 'compiled' and d['check'] == 'ok'"

check "run --min-repeat-ms 20 grows number" \
  bash -c "'$exe' run '$mm' --schedule '$sch' --threads 1 --min-repeat-ms 20 --repeat 2 --check none --json > '$tmp/out' 2>'$tmp/err'"
check "  ... so that a repeat lasts 20 ms" json "d['number'] > 3 and d['number'] * d['times_s'][-1] >= 0.019"
cp "$tmp/out" "$tmp/sched.json"
"$exe" run "$mm" --json --threads 1 --repeat 1 --check none > "$tmp/naive.json" 2>/dev/null
check "the schedule is faster than the naive program (1 thread each)" \
  python3 -c "import json; a=json.load(open('$tmp/naive.json')); b=json.load(open('$tmp/sched.json')); assert b['latency_s'] < a['latency_s'], (a['latency_s'], b['latency_s'])"
check "run --flush-cache --warmup 0 --seed 9 works" \
  bash -c "'$exe' run '$mm' --schedule '$sch' --check compiled --flush-cache --warmup 0 --seed 9 --json > '$tmp/out' 2>'$tmp/err'"
check "  ... ok, and reports its options" json "d['check'] == 'ok' and d['flush_cache'] is True and d['seed'] == 9 and d['warmup'] == 0"

sym="$src/tests/cli/data/sym.py"
check "a symbolic program runs with --bind" test "$(status "$exe" run "$sym" --bind m=24 --json)" = 0
check "  ... checked ok, GFLOPS unknown (null)" json "d['check'] == 'ok' and d['gflops'] is None"
check "  ... without --bind: exit 2" test "$(status "$exe" run "$sym")" = 2
check "  ... naming the variable" grep -q "'m'" "$tmp/err"

# ---- run errors ---------------------------------------------------------------
check "missing file: exit 2 with the OS reason" test "$(status "$exe" run /nonexistent/x.py)" = 2
check "  ... No such file" grep -q "No such file" "$tmp/err"
check "--threads 0: exit 2" test "$(status "$exe" run "$mm" --threads 0)" = 2
check "  ... saying what is valid" grep -q -- "--threads expects an integer from 1" "$tmp/err"
check "--threads abc: exit 2" test "$(status "$exe" run "$mm" --threads abc)" = 2
check "unknown target: exit 2" test "$(status "$exe" run "$mm" --target nope)" = 2
check "  ... naming the stage and the valid targets" \
  bash -c "grep -q \"error: target: no target named 'nope'\" '$tmp/err' && grep -q 'valid target names: .*llvm' '$tmp/err'"
printf 'b = sch.get_block("nope")\n' > "$tmp/bad.sch"
check "a failing schedule script: exit 2" test "$(status "$exe" run "$mm" --schedule "$tmp/bad.sch")" = 2
check "  ... at the schedule stage with SCRIPT:LINE" grep -q "error: schedule: .*bad.sch:1:" "$tmp/err"
check "--repeat 65: exit 2" test "$(status "$exe" run "$mm" --repeat 65)" = 2
check "--check bogus: exit 2" test "$(status "$exe" run "$mm" --check bogus)" = 2
check "unknown option: exit 2" test "$(status "$exe" run "$mm" --bogus)" = 2
check "run --help shows the usage" bash -c "'$exe' run --help | grep -q '^usage: tessel run PROGRAM'"

# ---- build and the example program --------------------------------------------
mkdir -p "$tmp/lib" "$tmp/slib" "$tmp/obj"
check "build -o libmm.so exits 0" test "$(status "$exe" build "$mm" -o "$tmp/lib/libmm.so")" = 0
check "  ... writes libmm.so and libmm.h" test -s "$tmp/lib/libmm.so" -a -s "$tmp/lib/libmm.h"
check "  ... the header declares mm_matmul with const inputs" \
  grep -q "int32_t mm_matmul(const float \*A, const float \*B, float \*C);" "$tmp/lib/libmm.h"
check "  ... and the shapes in comments" grep -q "C: float32\[128, 128\], written" "$tmp/lib/libmm.h"
check "  ... the library exports mm_matmul and mm_matmul_packed" \
  bash -c "nm -D --defined-only '$tmp/lib/libmm.so' | grep -q ' T mm_matmul$' && nm -D --defined-only '$tmp/lib/libmm.so' | grep -q ' T mm_matmul_packed$'"
check "the example compiles against it" \
  cc -O2 -std=c17 -Wall -Werror "$src/examples/matmul.c" -I"$tmp/lib" -L"$tmp/lib" -lmm \
     -Wl,-rpath,"$tmp/lib" -lm -o "$tmp/lib/matmul"
check "  ... runs and agrees with its naive loop" \
  bash -c "'$tmp/lib/matmul' > '$tmp/out' && grep -q '^mm_matmul: ok, max abs error' '$tmp/out'"
check "build --schedule --threads 2 exits 0" \
  test "$(status "$exe" build "$mm" --schedule "$sch" --threads 2 -o "$tmp/slib/libmm.so")" = 0
check "  ... the example linked against it agrees too" \
  bash -c "cc -O2 '$src/examples/matmul.c' -I'$tmp/slib' -L'$tmp/slib' -lmm -Wl,-rpath,'$tmp/slib' -lm -o '$tmp/slib/matmul' && '$tmp/slib/matmul' | grep -q '^mm_matmul: ok'"
check "build --schedule -o mm.o writes an object and mm.h" \
  bash -c "'$exe' build '$mm' --schedule '$sch' -o '$tmp/obj/mm.o' >'$tmp/out' 2>'$tmp/err' && test -s '$tmp/obj/mm.o' && grep -q mm_matmul '$tmp/obj/mm.h'"
check "  ... which links into the example (the thread pool inside, no -lgomp)" \
  bash -c "cp '$tmp/obj/mm.h' '$tmp/obj/libmm.h' && cc -O2 '$src/examples/matmul.c' '$tmp/obj/mm.o' -I'$tmp/obj' -lm -o '$tmp/obj/matmul' && '$tmp/obj/matmul' | grep -q '^mm_matmul: ok'"
check "a prim_func main in libmm2.so is mm2_main" \
  bash -c "'$exe' build '$src/tests/cli/data/mm.py' -o '$tmp/lib/libmm2.so' >'$tmp/out' 2>'$tmp/err' && grep -q 'int32_t mm2_main(' '$tmp/lib/libmm2.h'"
check "a symbolic size becomes a trailing int64_t" \
  bash -c "'$exe' build '$sym' -o '$tmp/lib/libsym.so' >'$tmp/out' 2>'$tmp/err' && grep -q 'int32_t sym_main(const float \*X, float \*S, int64_t m);' '$tmp/lib/libsym.h'"

check "build -o mm.txt: exit 2" test "$(status "$exe" build "$mm" -o "$tmp/mm.txt")" = 2
check "  ... saying what is valid" grep -q "libNAME.so or NAME.o" "$tmp/err"
check "build -o lib9x.so (not a C identifier): exit 2" test "$(status "$exe" build "$mm" -o "$tmp/lib9x.so")" = 2
check "build -o mm.so (no lib prefix): exit 2" test "$(status "$exe" build "$mm" -o "$tmp/mm.so")" = 2
check "build without -o: exit 2" test "$(status "$exe" build "$mm")" = 2
check "build with an unknown target: exit 2" test "$(status "$exe" build "$mm" --target nope -o "$tmp/libx.so")" = 2
check "build into a missing folder: exit 2" test "$(status "$exe" build "$mm" -o /nonexistent/dir/libmm.so)" = 2
check "  ... with the OS reason" grep -q "cannot write into the folder of '/nonexistent/dir/libmm.so': No such file" "$tmp/err"
check "build --help shows the usage" bash -c "'$exe' build --help | grep -q '^usage: tessel build PROGRAM'"

# LLVM's remarks and warnings stay out of tessel's output: a vectorized loop
# with a data-dependent inner loop, which LLVM cannot vectorize (its default
# handler printed "warning: ... loop not vectorized")
cat > "$tmp/novec.py" <<'PY'
@T.prim_func
def main(A: T.Buffer((16, 37), "float32"), idx: T.Buffer((16,), "int32"), B: T.Buffer((16,), "float32")):
    for i in T.vectorized(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = T.float32(0)
            for k in range(idx[vi] % 37):
                B[vi] = B[vi] + A[vi, k]
PY
check "build of a loop LLVM cannot vectorize: exits 0, no LLVM warning on stderr" bash -c "
  '$exe' build '$tmp/novec.py' -o '$tmp/libnovec.so' > '$tmp/out' 2>'$tmp/err' &&
  ! grep -q 'not vectorized' '$tmp/err' && ! grep -q 'warning' '$tmp/err'"
check "  ... tessel run of it: exits 0, no warning" bash -c "
  '$exe' run '$tmp/novec.py' --json > '$tmp/out' 2>'$tmp/err' && ! grep -q 'warning' '$tmp/err'"
check "  ... and its outputs match the interpreter's" json "d['check'] == 'ok'"

# --target "NAME -key=value ...": the target's options, as targets are printed
check "run --target 'llvm -vector-math=0 -opt-level=2': exits 0" \
  test "$(status "$exe" run "$mm" --target "llvm -vector-math=0 -opt-level=2" --threads 1 --json)" = 0
check "  ... and the target has those options" \
  json "'-vector-math=0' in d['target'] and '-opt-level=2' in d['target'] and '-threads=1' in d['target']"
check "run --target with an option not written -key=value: exit 2" \
  test "$(status "$exe" run "$mm" --target "llvm mcpu=znver4")" = 2
check "  ... naming the token and the form" grep -q "'mcpu=znver4' is not an option; write the target's options as -key=value" "$tmp/err"
check "run --target setting threads beside --threads: exit 2" \
  test "$(status "$exe" run "$mm" --target "llvm -threads=1" --threads 2)" = 2
check "run --target with a bad option value: exit 2, the target's message" \
  bash -c "[ \"\$('$exe' run '$mm' --target 'llvm -fast-math=2' 2>&1 >/dev/null | grep -c 'option fast-math')\" = 1 ]"
check "run --target with a printed -mattr=host#HASH: exit 2, saying to leave it out" \
  bash -c "[ \"\$('$exe' run '$mm' --target 'llvm -mattr=host#5fd378ca9c1ec303' 2>&1 >/dev/null | grep -c 'leave -mattr out')\" = 1 ]"
check "build --target 'llvm -mcpu=x86-64-v2' writes an object for that CPU" bash -c "
  '$exe' build '$mm' --target 'llvm -mcpu=x86-64-v2' -o '$tmp/v2.o' > /dev/null 2>'$tmp/err' &&
  ! objdump -d '$tmp/v2.o' | grep -q 'ymm\|zmm'"

echo "1..$n"
[ "$failed" = 0 ]
