#!/usr/bin/env bash
# TAP test of `tessel run MODEL`: the models of tests/relax/cases run in the
# reference interpreter on weights and inputs NumPy made (model_refs.py,
# Debian's /usr/bin/python3 with python3-numpy), their outputs written to
# .npz and compared with NumPy's; then inputs that do not fit, and what
# models cannot do yet, are refused with messages that say so.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
exe="${TESSEL_EXE:?}"
src="${TESSEL_SOURCE_ROOT:?}"
py=/usr/bin/python3
refs="$src/tests/relax/model_refs.py"
cases="$src/tests/relax/cases"

check "NumPy makes the weights, inputs and reference outputs" \
  "$py" "$refs" make "$tmp"
for m in mlp bound_weights operators int_ops matvec shape_ops nn_ops nn_layouts slices erf_power gather_ops; do
  check "$m runs in the reference interpreter and agrees with NumPy" bash -c "
    '$exe' run '$cases/$m.py' --weights '$tmp/$m.npz' --output '$tmp/$m.got.npz' \
      > '$tmp/out' 2> '$tmp/err' && grep -q '^reference interpreter: ' '$tmp/out' &&
    '$py' '$refs' compare '$tmp/$m.got.npz' '$tmp/$m.want.npz'"
done
check "--input overrides the weights file, and --json reports the outputs" bash -c "
  '$py' -c 'import numpy as np; np.save(\"$tmp/x.npy\", np.zeros((5, 64), \"float32\"))' &&
  '$exe' run '$cases/mlp.py' --weights '$tmp/mlp.npz' --input x='$tmp/x.npy' --json \
    > '$tmp/out' 2> '$tmp/err' && grep -q '\"shape\":\"(5, 10)\"' '$tmp/out'"
check "random inputs take their symbolic sizes from --bind" bash -c "
  '$exe' run '$cases/mlp.py' --bind n=2 > '$tmp/out' 2> '$tmp/err' &&
  grep -q '^output: float32 (2, 10), sum' '$tmp/out'"

refused() { # NAME STATUS MESSAGE ARGS...
  local name="$1" want="$2" msg="$3"; shift 3
  check "$name" bash -c '
    "$@" > "'"$tmp"'/out" 2> "'"$tmp"'/err"; [ $? -eq '"$want"' ] &&
    grep -qF -- "'"$msg"'" "'"$tmp"'/err"' _ "$@"
}
refused "a symbolic size with no tensor and no --bind is asked for" 2 \
  "parameter 'x': give its symbolic size with --bind n=VALUE" "$exe" run "$cases/mlp.py"
refused "a missing weight is named" 2 \
  "input 'relax.expr.Constant.0' is not given" "$exe" run "$cases/bound_weights.py"
"$py" -c "import numpy as np; d = dict(np.load('$tmp/mlp.npz')); d['extra'] = d['b0']; np.savez('$tmp/extra.npz', **d)
d = dict(np.load('$tmp/mlp.npz')); d['w1'] = d['w1'][:, :16]; np.savez('$tmp/bad.npz', **d)"
refused "an extra weight is named" 2 \
  "input 'extra' is neither a parameter of 'main' nor a weight of the model" \
  "$exe" run "$cases/mlp.py" --weights "$tmp/extra.npz"
refused "a mis-shaped weight is named with what it must be" 2 \
  "input 'w1' is a float32 tensor of shape (10, 16); it must be R.Tensor((10, 32), dtype=" \
  "$exe" run "$cases/mlp.py" --weights "$tmp/bad.npz"
refused "--seed takes a number" 2 "--seed takes a non-negative integer, not 'abc'" \
  "$exe" run "$cases/mlp.py" --bind n=2 --seed abc
refused "--bind takes a positive size" 2 "--bind n=-3: a symbolic size is a positive integer" \
  "$exe" run "$cases/mlp.py" --bind n=-3
refused "a model's --threads is a positive integer" 2 "--threads takes a positive integer, not '0'" \
  "$exe" run "$cases/mlp.py" --bind n=2 --target llvm --threads 0
sed 's/"env.relu"/"env.gelu"/' "$cases/bound_weights.py" > "$tmp/gelu.py"
refused "an unknown library function is named with the known ones" 2 \
  "no function 'env.gelu': neither a prim_func of the model nor a library function (env.relu, env.linear, env.matmul, env.add)" \
  "$exe" run "$tmp/gelu.py" --weights "$tmp/bound_weights.npz"
# graph passes: the result run and checked against the model before them,
# and a model whose every parameter is bound folds to constants
check "run --passes legalize,fold_constant,dce checks itself against the model before" bash -c "
  '$exe' run '$cases/operators.py' --weights '$tmp/operators.npz' \
    --passes legalize,fold_constant,dce --output '$tmp/op_passed.npz' > '$tmp/out' 2> '$tmp/err' &&
  grep -q '^check against the model before the passes legalize,fold_constant,dce: ok' '$tmp/out' &&
  '$py' '$refs' compare '$tmp/op_passed.npz' '$tmp/operators.want.npz'"
check "every parameter bound: fold_constant computes the whole model, which runs from its constants" bash -c "
  '$exe' pass '$cases/operators.py' --weights '$tmp/operators.npz' \
    --passes bind_params,legalize,fold_constant,dce --output '$tmp/op_folded.py' \
    --constants '$tmp/op_folded.safetensors' 2> '$tmp/err' &&
  ! grep -q 'call_tir\|R.matmul\|R.add' '$tmp/op_folded.py' &&
  grep -q 'def main() ->' '$tmp/op_folded.py' &&
  '$exe' run '$tmp/op_folded.py' --weights '$tmp/op_folded.safetensors' \
    --output '$tmp/op_folded.npz' > '$tmp/out' 2> '$tmp/err' &&
  '$py' '$refs' compare '$tmp/op_folded.npz' '$tmp/operators.want.npz'"
refused "bind_params refuses a parameter of symbolic shape" 2 \
  "weight 'x': the parameter is R.Tensor((n, 64), dtype=" \
  "$exe" pass "$cases/mlp.py" --passes bind_params --weights "$tmp/mlp.npz"
refused "an unknown pass is named with the registered ones" 2 \
  "no pass named 'fuse_all'" "$exe" pass "$cases/mlp.py" --passes legalize,fuse_all
echo "1..$n"
exit $((failed > 0))
