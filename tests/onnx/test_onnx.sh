#!/usr/bin/env bash
# TAP test of `tessel import` (tessel/onnx.h, 1.7): models built with
# python3-onnx (make_models.py, the NumPy reference outputs beside them)
# imported, run in the reference interpreter against NumPy and compiled
# against the interpreter; external data; and the refusals (an unsupported
# operator, operator set or rank, a truncated or corrupted file), which
# write nothing.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
exe="${TESSEL_EXE:?}"
src="${TESSEL_SOURCE_ROOT:?}"
py=/usr/bin/python3
d="$tmp/m"
mkdir -p "$d"

check "python3-onnx builds the models and NumPy their outputs" \
  "$py" "$src/tests/onnx/make_models.py" "$d"

# the graph inputs of NAME as --input options (one .npy each)
inputs() {
  "$py" -c "
import numpy as np
d = np.load('$d/$1.in.npz')
for k in d.files:
    np.save('$d/$1.in.' + k + '.npy', d[k])
print(' '.join('--input %s=$d/$1.in.%s.npy' % (k, k) for k in d.files))"
}
weights() { [ -f "$d/$1.w.npz" ] && echo "--weights $d/$1.w.npz"; }
agrees() { # GOT WANT
  "$py" -c "
import sys, numpy as np
g, w = np.load('$1'), np.load('$2')
bad = sorted(g.files) != sorted(w.files) or any(
    g[k].shape != w[k].shape or
    np.abs(g[k].astype('float64') - w[k]).max() > 1e-4 * max(1.0, np.abs(w[k]).max())
    for k in w.files)
sys.exit(1 if bad else 0)"
}

for m in mlp cnn elementwise shapes reductions opset11 slicing split gelu gather_ops gelu20 dynamic; do
  check "$m.onnx imports" bash -c "'$exe' import '$d/$m.onnx' -o '$d/$m.py' --weights '$d/$m.w.npz' \
    > '$tmp/out' 2> '$tmp/err' && grep -q '^imported ' '$tmp/out'"
  args="$(inputs "$m") $(weights "$m")"
  check "  ... agrees with NumPy in the reference interpreter" bash -c "
    '$exe' run '$d/$m.py' $args --output '$d/$m.got.npz' > '$tmp/out' 2> '$tmp/err'" &&
    check "  ... (the outputs compared)" agrees "$d/$m.got.npz" "$d/$m.want.npz"
  check "  ... compiled (legalize, fuse) agrees with the interpreter" bash -c "
    '$exe' run '$d/$m.py' $args --target llvm --threads 2 > '$tmp/out' 2> '$tmp/err' &&
    grep -q '^check against the reference interpreter: ok' '$tmp/out'"
done
check "the shape arithmetic folded at import: no Shape, Gather or Concat is left" bash -c "
  grep -q 'R.reshape(x, R.shape(\\[2, -1\\]))' '$d/slicing.py' &&
  grep -q 'R.strided_slice(x, axes=\\[1, 2\\], begin=\\[1, 0\\], end=\\[6, -2\\], strides=\\[2, 3\\])' '$d/slicing.py' &&
  [ \$(grep -c ' = R\\.' '$d/slicing.py') -eq 4 ]"
check "the MLP's batch is the symbolic size of its dim_param" \
  grep -q 'def main(x: R.Tensor(("batch", 16), dtype="float32"), fc1_weight: R.Tensor((32, 16)' "$d/mlp.py"
check "  ... and runs at another batch" bash -c "
  '$exe' run '$d/mlp.py' --weights '$d/mlp.w.npz' --bind batch=7 > '$tmp/out' 2> '$tmp/err' &&
  grep -q '^output: float32 (7, 10)' '$tmp/out'"
check "dynamic.onnx: the shape arithmetic on a symbolic batch becomes sizes of it (-1 inferred over it)" bash -c "
  grep -q 'R.reshape(x, R.shape(\[batch, -1\]))' '$d/dynamic.py' &&
  grep -q 'R.broadcast_to(b, R.shape(\[batch, 4, 6\]))' '$d/dynamic.py'"
check "  ... compiled, it runs at another batch" bash -c "
  '$exe' run '$d/dynamic.py' --weights '$d/dynamic.w.npz' --bind batch=5 --target llvm \
    > '$tmp/out' 2> '$tmp/err' && grep -q '^output.0: float32 (5, 24)' '$tmp/out' &&
  grep -q '^check against the reference interpreter: ok' '$tmp/out'"
check "Clip, Where, Expand and Gather at indices are the new operators of Relax 1.8" bash -c "
  grep -q 'lv4 = R.maximum(x, R.const(-0.25, \"float32\"))' '$d/gather_ops.py' &&
  grep -q 'R.minimum(lv4, R.const(0.5, \"float32\"))' '$d/gather_ops.py' &&
  grep -q 'R.where(m, x, r)' '$d/gather_ops.py' && grep -q 'R.take(table, ids, axis=0)' '$d/gather_ops.py' &&
  grep -q 'R.broadcast_to(col, R.shape(\[2, 3, 4\]))' '$d/gather_ops.py'"
check "weights as external data beside the model import the same" bash -c "
  '$exe' import '$d/ext/mlp_ext.onnx' -o '$d/ext.py' --weights '$d/ext.w.npz' > '$tmp/out' 2> '$tmp/err' &&
  '$exe' run '$d/ext.py' --weights '$d/ext.w.npz' $(inputs mlp) --output '$d/ext.got.npz' \
    > '$tmp/out' 2> '$tmp/err'" &&
  check "  ... (the outputs compared)" agrees "$d/ext.got.npz" "$d/mlp.want.npz"

# ---- an .onnx file given directly to run, pass, build and tune ----------------------
check "tessel run on the .onnx itself agrees with NumPy (its initializers bound)" bash -c "
  '$exe' run '$d/cnn.onnx' $(inputs cnn) --output '$d/cnn.direct.npz' > '$tmp/out' 2> '$tmp/err'" &&
  check "  ... (the outputs compared)" agrees "$d/cnn.direct.npz" "$d/cnn.want.npz"
check "  ... compiled in NHWC (convert_layout, fold_constant) agrees with the interpreter" bash -c "
  '$exe' run '$d/cnn.onnx' $(inputs cnn) --target llvm --threads 2 \
    --passes convert_layout,fold_constant,legalize,fuse,dce > '$tmp/out' 2> '$tmp/err' &&
  grep -q '^check against the reference interpreter: ok' '$tmp/out' &&
  grep -q 'conv2d_nhwc' <('$exe' pass '$d/cnn.onnx' --passes convert_layout,legalize 2>/dev/null)"
check "tessel build on the .onnx embeds its weights" bash -c "
  '$exe' build '$d/mlp.onnx' -o '$d/libmlpx.so' > '$tmp/out' 2> '$tmp/err' &&
  grep -q 'weights 3520 bytes embedded' '$tmp/out' && [ -f '$d/libmlpx.h' ]"
cat > "$d/tune.yaml" <<YAML
workload: {file: mlp.onnx, binds: {batch: 3}}
tasks: {scheduler: round-robin}
target: {kind: llvm, threads: 1}
strategy: {kind: random, trials: 2, batch: 2}
cost_model: {kind: random}
runner: {number: 1, repeat: 1, min_repeat_ms: 1, timeout_s: 10}
database: work/tune.db
seed: 1
YAML
check "tessel tune on workload: {file: mlp.onnx} tunes its tasks and writes the tuned model" bash -c "
  cd '$d' && '$exe' tune tune.yaml > '$tmp/out' 2> '$tmp/err' &&
  grep -q 'fused_matmul_add_relu' '$tmp/out' && [ -f work/tuned_model.py ] &&
  '$exe' run work/tuned_model.py --weights work/tuned_model.constants.safetensors $(inputs mlp) \
    --output '$d/tuned.npz' > '$tmp/out' 2> '$tmp/err'" &&
  check "  ... whose outputs agree with NumPy" agrees "$d/tuned.npz" "$d/mlp.want.npz"

refused() { # NAME MODEL MESSAGE
  check "$1" bash -c "
    '$exe' import '$d/$2.onnx' -o '$d/$2.py' --weights '$d/$2.w.npz' > '$tmp/out' 2> '$tmp/err'
    [ \$? -eq 2 ] && grep -qF -- \"\$0\" '$tmp/err' && [ ! -e '$d/$2.py' ] && [ ! -e '$d/$2.w.npz' ]" "$3"
}
refused "an unsupported operator names the node, its type and the supported list" bad_op \
  "bad_op.onnx: node 0 'mix' (Einsum): operator Einsum is not supported; supported: Add, AveragePool,"
refused "an unsupported operator set says which are" bad_opset \
  "operator set 9 of ai.onnx is not supported; supported: 11 to 20"
refused "a 3-d convolution is refused at its node" bad_rank \
  "node 0 'conv3d' (Conv): only 2-d convolutions (4-d data and weight) are supported"
refused "an unsupported data type names the input, the type and the supported list" bad_dtype \
  "graph input 'z' has element type 14 (COMPLEX64); supported: float32, float64,"
refused "sizes of a symbolic dimension used as a tensor are refused at the node" bad_sizes \
  "node 1 'to_float' (Cast): input 's' holds sizes computed from symbolic dimensions (Shape)"
refused "a truncated file is a clean error" truncated \
  "not an ONNX model: the protobuf does not decode (truncated or corrupted)"
refused "so are random bytes" garbage "not an ONNX model"
check "a model with weights needs --weights" bash -c "
  '$exe' import '$d/mlp.onnx' -o '$d/nw.py' > '$tmp/out' 2> '$tmp/err'; [ \$? -eq 2 ] &&
  grep -q 'has 4 weights; give --weights FILE' '$tmp/err' && [ ! -e '$d/nw.py' ]"
echo "1..$n"
exit $((failed > 0))
