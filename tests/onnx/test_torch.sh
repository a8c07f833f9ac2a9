#!/usr/bin/env bash
# TAP test of PyTorch's own models through ONNX (issue 31): Debian's python3-torch
# exports the course's MLP (a symbolic batch), a network of ResNet-18's shape and one
# TransformerEncoderLayer (a symbolic sequence length) with random weights
# (torch_models.py); each is imported, run in the reference interpreter and compiled,
# and both outputs agree with PyTorch's on the same input.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
exe="${TESSEL_EXE:?}"
src="${TESSEL_SOURCE_ROOT:?}"
py=/usr/bin/python3
d="$tmp/m"
mkdir -p "$d"

check "python3-torch exports the three models and computes their outputs" \
  "$py" "$src/tests/onnx/torch_models.py" "$d"

agrees() { # GOT WANT: within 1e-4 of the largest value
  "$py" -c "
import sys, numpy as np
g, w = np.load('$1'), np.load('$2')
sys.exit(not (g['output'].shape == w['output'].shape and
              np.abs(g['output'] - w['output']).max() <= 1e-4 * max(1.0, np.abs(w['output']).max())))"
}

for m in mlp resnet18 transformer; do
  "$py" -c "import numpy as np; np.save('$d/$m.x.npy', np.load('$d/$m.in.npz')['x'])"
  check "$m.onnx (torch.onnx.export) imports" bash -c "
    '$exe' import '$d/$m.onnx' -o '$d/$m.py' --weights '$d/$m.w.npz' > '$tmp/out' 2> '$tmp/err'"
  check "  ... the reference interpreter agrees with PyTorch" bash -c "
    '$exe' run '$d/$m.py' --weights '$d/$m.w.npz' --input x='$d/$m.x.npy' \
      --output '$d/$m.interp.npz' > '$tmp/out' 2> '$tmp/err'" &&
    check "  ... (the outputs compared)" agrees "$d/$m.interp.npz" "$d/$m.want.npz"
  check "  ... compiled, it agrees with PyTorch and with the interpreter" bash -c "
    '$exe' run '$d/$m.py' --weights '$d/$m.w.npz' --input x='$d/$m.x.npy' --target llvm \
      --threads 2 --output '$d/$m.compiled.npz' > '$tmp/out' 2> '$tmp/err' &&
    grep -q '^check against the reference interpreter: ok' '$tmp/out'" &&
    check "  ... (the outputs compared)" agrees "$d/$m.compiled.npz" "$d/$m.want.npz"
done
check "the MLP's batch and the transformer's sequence are symbolic sizes" bash -c "
  grep -q 'def main(x: R.Tensor((\"batch\", 1, 28, 28)' '$d/mlp.py' &&
  grep -q 'def main(x: R.Tensor((1, \"seq\", 64)' '$d/transformer.py' &&
  grep -q 'R.reshape(lv3, R.shape(\[seq, 4, 16\]))' '$d/transformer.py'"
check "  ... the transformer compiled runs 23 tokens" bash -c "
  '$exe' run '$d/transformer.py' --weights '$d/transformer.w.npz' --bind seq=23 --target llvm \
    > '$tmp/out' 2> '$tmp/err' && grep -q '^output: float32 (1, 23, 64)' '$tmp/out' &&
  grep -q '^check against the reference interpreter: ok' '$tmp/out'"
check "ResNet-18: 20 convolutions (the exporter folds batch norm into them) and both pools" bash -c "
  [ \$(grep -c 'R.nn.conv2d' '$d/resnet18.py') -eq 20 ] && grep -q 'R.nn.max_pool2d' '$d/resnet18.py' &&
  grep -q 'R.nn.adaptive_avg_pool2d' '$d/resnet18.py'"
echo "1..$n"
exit $((failed > 0))
