#!/usr/bin/env bash
# TAP test: the command line tensorizes with the intrinsics of the plugin
# registry. `tessel schedule` and `run/build --schedule` find the
# cuda-wmma plugin's intrinsics with no intrin__ file next to the script
# (and still read those files), an unknown name is a located error listing
# the registered ones, a plugin that fails to load is a warning there, and
# `tessel tune` with a schedule-script space (and `tessel best` after it)
# tensorizes with a plugin's intrinsic.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
exe="${TESSEL_EXE:?}"
src="${TESSEL_SOURCE_ROOT:?}"
pd="${TESSEL_TEST_PLUGIN_DIR:?}"
unset TESSEL_PLUGIN_PATH
wl="$src/workloads/matmul_fp16_gpu.py"
mkdir "$tmp/s"
cp "$src/examples/gpu/matmul_wmma.sch" "$tmp/s/wmma.sch"

check "the script's folder holds no intrin__ file" bash -c "! ls '$tmp/s' | grep -q intrin__"
check "schedule with the WMMA intrinsics exits 0" test "$(status "$exe" schedule "$wl" "$tmp/s/wmma.sch")" = 0
check "  ... wmma_sync_16x16x16_f16f16f32 became tvm_mma_sync on the fragments' indices" grep -qF 'T.evaluate(T.tvm_mma_sync(C_1.data, C_1.elem_offset // c1 // 16 * (c1 // 16) + C_1.elem_offset % c1 // 16, A_1.data, A_1.elem_offset // a1 // 16 * (a1 // 16) + A_1.elem_offset % a1 // 16, B_1.data, B_1.elem_offset // b1 // 16 * (b1 // 16) + B_1.elem_offset % b1 // 16, C_1.data, C_1.elem_offset // c1 // 16 * (c1 // 16) + C_1.elem_offset % c1 // 16))' "$tmp/out"
check "  ... the fill, the two loads and the store too" bash -c "
  grep -qF 'T.evaluate(T.tvm_fill_fragment(C_1.data, 16, 16, 16, C_1.elem_offset // d1 // 16 * (d1 // 16) + C_1.elem_offset % d1 // 16, T.float32(0)))' '$tmp/out' &&
  test \$(grep -c 'T.evaluate(T.tvm_load_matrix_sync(C_1.data, 16, 16, 16, .*\"row_major\"))' '$tmp/out') = 2 &&
  grep -qF 'T.evaluate(T.tvm_store_matrix_sync(A_1.data, 16, 16, 16, A_1.elem_offset // d1_3 // 16 * (d1_3 // 16) + A_1.elem_offset % d1_3 // 16, T.tvm_access_ptr(T.type_annotation(\"float32\"), C_1.data, C_1.elem_offset, s1_2 * 16, 2), s1_2, \"row_major\"))' '$tmp/out'"
check "  ... and the result reads back unchanged" bash -c "'$exe' fmt - < '$tmp/out' | cmp -s - '$tmp/out'"
grep -v '^sch.tensorize(' "$tmp/s/wmma.sch" > "$tmp/s/pre.sch"
check "the script without its tensorize calls passes --check" bash -c "
  '$exe' schedule '$wl' '$tmp/s/pre.sch' --check 2>&1 >/dev/null | grep -q '^check: ok (49152 values compared'"
check "the tensorized program does not interpret (--check exits 1)" test "$(status "$exe" schedule "$wl" "$tmp/s/wmma.sch" --check)" = 1
check "  ... saying the WMMA builtins cannot be interpreted" grep -q "T.tvm_fill_fragment cannot be interpreted: it is a CUDA tensor-core (WMMA) fragment operation" "$tmp/err"

sed 's/"wmma_sync_16x16x16_f16f16f32"/"wmma_sync_16x16x16_f16f16f64"/' "$tmp/s/wmma.sch" > "$tmp/s/unknown.sch"
line=$(grep -n 'f16f16f64' "$tmp/s/unknown.sch" | cut -d: -f1)
check "an unknown intrinsic exits 2" test "$(status "$exe" schedule "$wl" "$tmp/s/unknown.sch")" = 2
check "  ... with SCRIPT:LINE: error: tensorize: and the name" grep -q "^$tmp/s/unknown.sch:$line: error: tensorize: no tensor intrinsic named 'wmma_sync_16x16x16_f16f16f64'; registered: " "$tmp/err"
check "  ... listing the built-in and the plugins' intrinsics (cuda-mma's, then cuda-wmma's)" bash -c "grep 'registered: ' '$tmp/err' | grep -q 'mma_4x4x4_f32, vec_fma_4_f32, mma_ldmatrix_f16_a, .*mma_f16f16f32, .*mma_store_16x16_f16_shared_dyn_simple_, wmma_load_16x16x16_f16_a_shared, .*wmma_sync_16x16x16_f16f16f32, '"

check "a plugin that fails to load: schedule still exits 0" test "$(TESSEL_PLUGIN_PATH="$pd/tp_abi2.so" status "$exe" schedule "$wl" "$tmp/s/wmma.sch")" = 0
check "  ... with the WMMA intrinsics loaded before it" grep -q "T.tvm_mma_sync(" "$tmp/out"
check "  ... and a warning naming the plugin and its error" grep -q "^tessel schedule: warning: plugins: $pd/tp_abi2.so: plugin ABI 2.0" "$tmp/err"

intr="$src/tests/cli/data/intrin"
check "the script folder's intrin__ files still register" test "$(status "$exe" schedule "$intr/dot.py" "$intr/dot.sch")" = 0
check "  ... and tensorize with them" grep -q 'T.call_extern("int32", "dot4", ' "$tmp/out"

check "run --schedule tensorizes with the plugin's intrinsics (exit 2 at the llvm build, not before)" test "$(status "$exe" run "$wl" --schedule "$tmp/s/wmma.sch" --target llvm)" = 2
check "  ... the llvm target refusing the WMMA builtin" grep -q "^tessel run: error: build: llvm codegen: T.tvm_fill_fragment cannot be compiled by the llvm target" "$tmp/err"
check "build --schedule reads the script folder's intrin__ files" test "$(status "$exe" build "$intr/dot.py" --schedule "$intr/dot.sch" -o "$tmp/libdot.so")" = 0
check "  ... and the library calls the intrinsic's extern function dot4 with raw pointers (supplied at link time)" bash -c "nm -D '$tmp/libdot.so' | grep -q ' U dot4$'"

# tune: a schedule-script space that tensorizes with a plugin's intrinsic
cat > "$tmp/add.py" <<'PY'
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            C[vi] = A[vi] + B[vi]
PY
cat > "$tmp/add.sch" <<'SCH'
b = sch.get_block("C")
i, = sch.get_loops(b)
i0, i1 = sch.split(i, [None, 4])
v = sch.sample_perfect_tile(i0, n=2, max_innermost_factor=16)
i00, i01 = sch.split(i0, v)
sch.tensorize(i1, "tp_ok_add4")
SCH
cat > "$tmp/t.yaml" <<YAML
workload: {file: $tmp/add.py}
target: {kind: llvm, threads: 1}
space: {schedule: $tmp/add.sch}
strategy: {kind: random, trials: 3, batch: 3}
runner: {number: 1, repeat: 1, min_repeat_ms: 0, timeout_s: 10}
plugin_paths: $pd/tp_ok.so
database: $tmp/t.db
work_dir: $tmp/work
seed: 1
YAML
check "tune with a space script that tensorizes with a plugin's intrinsic exits 0" test "$(status "$exe" tune "$tmp/t.yaml")" = 0
check "  ... 3 candidates measured, none failed" grep -q "^tuned: 3 candidates measured by this run (0 failed)" "$tmp/out"
check "  ... the best trace tensorizes with tp_ok_add4, the program views its tiles" bash -c "
  grep -q 'sch.tensorize(block_or_loop=l[0-9]*, tensor_intrin=\"tp_ok_add4\"' '$tmp/out' &&
  grep -q 'C_1 = T.match_buffer(C\[vi_o \* 4:vi_o \* 4 + 4\], (4,), offset_factor=1)' '$tmp/out'"
check "tessel best replays it with the registry's intrinsics" test "$(TESSEL_PLUGIN_PATH="$pd/tp_ok.so" status "$exe" best "$tmp/t.db")" = 0
check "  ... printing the tensorized program" grep -q 'C_1\[i\] = A_1\[i\] + B_1\[i\]' "$tmp/out"
echo "1..$n"
exit $((failed > 0))
