#!/usr/bin/env bash
# TAP test of compiled models (tessel/model.h, 1.6): `tessel run MODEL
# --target llvm` against the reference interpreter on every test model,
# the static memory plan, the compile errors, `tessel build MODEL` with the
# weights embedded and its header, a symbolic batch bound at call time, and
# examples/mlp_model.c.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
exe="${TESSEL_EXE:?}"
src="${TESSEL_SOURCE_ROOT:?}"
cases="$src/tests/relax/cases"
passes="$src/tests/relax/passes"
mlp="$src/workloads/models/mlp.py"
plugins="${TESSEL_TEST_PLUGINS:?}"  # the folder of tp_passes.so

# compiled MODEL ARGS...: compiled with the default passes and checked ok
compiled() {
  [ "$(status "$exe" run "$@" --target llvm --threads 2)" = 0 ] &&
    grep -q '^check against the reference interpreter: ok' "$tmp/out"
}

# ---- every model that has only kernels after legalize, fuse, dce ------------
for m in "$cases/int_ops.py" "$cases/matvec.py" "$cases/operators.py" "$cases/shape_ops.py" \
         "$passes/concat.py" "$passes/dead.py" "$passes/fma.py" "$passes/fold.py" \
         "$passes/linear.py" "$passes/nested.py" "$passes/cnn.py" "$passes/const.py" "$cases/nn_ops.py" "$cases/nn_layouts.py" "$cases/slices.py" "$cases/erf_power.py" "$cases/gather_ops.py" "$mlp"; do
  check "$(basename "$m") compiled agrees with the interpreter" compiled "$m"
done
check "shapes.py compiled agrees with the interpreter (n=3)" compiled "$passes/shapes.py" --bind n=3
check "mlp.py (symbolic batch) at n=1" compiled "$cases/mlp.py" --bind n=1
check "  ... at n=64" compiled "$cases/mlp.py" --bind n=64
check "  ... with --passes legalize only (no fusion)" compiled "$cases/mlp.py" --bind n=5 \
  --passes legalize
check "kernels called by name (R.call_dps_packed(\"dense\", ...)), m, n, k bound" \
  compiled "$src/tests/relax/compiled/by_name.py" --bind m=40 --bind n=24 --bind k=6
check "weights embedded from --weights" bash -c "python3 '$src/tests/relax/make_weights.py' \
  '$tmp/w.npz' w0=784x128 b0=128 w1=128x10 b1=10"
check "  ... the compiled MLP with them agrees" compiled "$mlp" --weights "$tmp/w.npz"
check "  ... and reports them in the plan" \
  grep -q '^plan: 2 kernel calls; 1 intermediate tensors in 1 workspace slots, 512 bytes (512 unplanned); weights 407104 bytes' "$tmp/out"

check "metadata constants from --weights (the course's bound module)" bash -c "python3 \
  '$src/tests/relax/make_weights.py' '$tmp/c.npz' relax.expr.Constant.0=16 \
  relax.expr.Constant.1=4x16 relax.expr.Constant.2=4"
check "  ... compiled, with env.relu and env.linear legalized, agrees" \
  compiled "$cases/bound_weights.py" --weights "$tmp/c.npz"
check "  ... the constants embedded" grep -q '^plan: 3 kernel calls; .* weights 384 bytes' "$tmp/out"

# ---- the plan --------------------------------------------------------------------
check "nested.py: 6 calls, 5 intermediates share 2 slots" bash -c "'$exe' run \
  '$passes/nested.py' --target llvm | grep -q '^plan: 6 kernel calls; 5 intermediate tensors in 2 workspace slots, 256 bytes (640 unplanned)'"
check "symbolic sizes: the workspace is a formula of n" bash -c "'$exe' run '$cases/mlp.py' \
  --target llvm --bind n=3 | grep -q 'slots, 128\*n bytes (128\*n unplanned)'"

# ---- what is not compiled: located errors, exit 2 ----------------------------------
check "a library function without a prim_func (env.add) is refused by name" \
  test "$(status "$exe" run "$src/tests/relax/compiled/env_add.py" --target llvm)" = 2
check "  ... saying where and why" grep -q 'error: compile: main: y: R.call_dps_packed("env.add") cannot be compiled' "$tmp/err"
check "the course's env.linear / env.relu legalize to prim_funcs and compile" \
  compiled "$src/tests/relax/compiled/course_env.py"
check "the course's older spelling (R.call_tir(\"env.relu\", ...), shape and dtype) compiles" \
  compiled "$src/tests/relax/compiled/old_spelling.py"
check "  ... linear0 and env.relu fused into one kernel" grep -q '^plan: 1 kernel calls' "$tmp/out"
check "  ... and a plugin's library function too (env.scale2, fused with them)" \
  bash -c "TESSEL_PLUGIN_PATH='$plugins' '$exe' run '$src/tests/relax/compiled/library.py' --target llvm > '$tmp/out' 2>&1 && grep -q '^plan: 2 kernel calls' '$tmp/out' && grep -q '^check against the reference interpreter: ok' '$tmp/out'"
check "  ... which the interpreter names when the plugin is absent" bash -c "'$exe' run \
  '$src/tests/relax/compiled/library.py' 2>&1 | grep -q \"no function 'env.scale2': neither a prim_func of the model nor a library function (env.relu, env.linear, env.matmul, env.add)\""
check "an operator left by the passes is refused" \
  test "$(status "$exe" run "$passes/nested.py" --target llvm --passes dce)" = 2
check "  ... naming it and the pass that would lower it" \
  grep -q "error: compile: main: a: R.add is not compiled: the compiled path runs R.call_tir only; legalize the model first" "$tmp/err"
check "an unknown target is refused with the valid ones" \
  test "$(status "$exe" run "$mlp" --target nosuch)" = 2

# ---- the course's chapter "back to end-to-end execution" (configs/course_e2e.yaml) -------------
check "tune linear0 of the course's MLP alone" bash -c "'$exe' tune '$src/configs/course_e2e.yaml' \
  --set database='$tmp/course/c.db' --set strategy.trials=16 > '$tmp/out' 2>&1"
check "  ... one task, linear0" grep -q '^  linear0  *weight   1: 16 records' "$tmp/out"
check "  ... the tuned model, with env.relu / env.linear legalized, compiles and agrees" \
  compiled "$tmp/course/tuned_model.py"

# ---- tessel build MODEL ----------------------------------------------------------------
check "build the MLP with its weights" test "$(status "$exe" build "$mlp" --weights "$tmp/w.npz" \
  -o "$tmp/libmlp.so" --tir "$tmp/mlp_tir.py")" = 0
check "  ... says what it wrote" grep -q "libmlp.h: mlp_model_run (2 kernels, 2 calls; weights 407104 bytes embedded" "$tmp/out"
check "  ... the header declares mlp_model_run and the embedded weights" bash -c \
  "grep -q 'static inline int32_t mlp_model_run(const void \*const \*inputs, void \*const \*outputs)' '$tmp/libmlp.h' && grep -q 'extern const unsigned char mlp_weights\[\];' '$tmp/libmlp.h' && grep -q 'input 0: x, float32\[1, 784\]' '$tmp/libmlp.h'"
check "  ... the library exports them" bash -c \
  "nm -D '$tmp/libmlp.so' | grep -q ' R mlp_weights' && nm -D '$tmp/libmlp.so' | grep -q ' T mlp_model_main$'"
check "  ... --tir writes the kernels and model_main, which parse back" bash -c \
  "grep -q 'def model_main(x: T.Buffer' '$tmp/mlp_tir.py' && grep -q 'T.call_extern(\"int32\", \"fused_matmul_add_relu\", x.data, T.address_of(weights\[T.int64(0)\])' '$tmp/mlp_tir.py' && '$exe' fmt '$tmp/mlp_tir.py' > /dev/null"

# examples/mlp_model.c against `tessel run` on the same image
if command -v cc > /dev/null; then
  check "examples/mlp_model.c compiles against the library" cc -O2 -I"$tmp" \
    "$src/examples/mlp_model.c" -L"$tmp" -lmlp -Wl,-rpath,"$tmp" -o "$tmp/mlp_model"
  check "  ... runs" bash -c "'$tmp/mlp_model' '$tmp/x.npy' > '$tmp/example.txt'"
  check "  ... its scores' sum is the interpreter's" bash -c "'$exe' run '$mlp' --weights \
    '$tmp/w.npz' --input x='$tmp/x.npy' --json > '$tmp/ref.json' && python3 -c \"
import json, re
ref = json.load(open('$tmp/ref.json'))['outputs'][0]['sum']
got = float(re.search(r'sum (\S+),', open('$tmp/example.txt').read()).group(1))
raise SystemExit(0 if abs(ref - got) <= 1e-4 * max(1, abs(ref)) else 1)\""

  # a symbolic batch bound at call time: row 0 of a batch of 5 is the batch of 1
  check "build a model with a symbolic batch" test "$(status "$exe" build "$cases/mlp.py" \
    -o "$tmp/libdyn.so")" = 0
  check "  ... its run takes the batch size" grep -q 'void \*const \*outputs, int64_t n)' "$tmp/libdyn.h"
  cat > "$tmp/dyn.c" << 'EOF'
#include <math.h>
#include <stdio.h>
#include "libdyn.h"
int main(void) {
  static float x[5 * 64], w0[32 * 64], b0[32], w1[10 * 32], b1[10], y1[10], y5[5 * 10];
  for (int i = 0; i < 5 * 64; i++) x[i] = (float)((i * 7 % 13) - 6) / 6;
  for (int i = 0; i < 32 * 64; i++) w0[i] = (float)((i * 5 % 11) - 5) / 20;
  for (int i = 0; i < 10 * 32; i++) w1[i] = (float)((i * 3 % 7) - 3) / 10;
  for (int i = 0; i < 32; i++) b0[i] = 0.1f;
  for (int i = 0; i < 10; i++) b1[i] = -0.2f;
  const void *in[5] = {x, w0, b0, w1, b1};
  void *o1[1] = {y1}, *o5[1] = {y5};
  if (dyn_model_run(in, o1, 1) || dyn_model_run(in, o5, 5)) return 1;
  for (int k = 0; k < 10; k++)
    if (fabsf(y1[k] - y5[k]) > 1e-5f * (1 + fabsf(y1[k]))) return 1;
  int differ = 0; /* other rows see other inputs */
  for (int k = 0; k < 10; k++) differ |= y5[10 + k] != y5[k];
  return differ ? 0 : 1;
}
EOF
  check "  ... row 0 of batch 5 equals batch 1" bash -c "cc -I'$tmp' '$tmp/dyn.c' -L'$tmp' \
    -ldyn -Wl,-rpath,'$tmp' -lm -o '$tmp/dyn' && '$tmp/dyn'"
else
  skip "examples/mlp_model.c" "no C compiler"
fi

echo "1..$n"
[ "$failed" = 0 ]
