#!/usr/bin/env bash
# TAP test of tuning a model (TVM's tune_relax): workloads/models/mlp.py
# legalized and fused by workload.passes, its two fused prim_funcs the
# tasks; the task scheduler's budgets (per task, global), resume per task,
# one task by workload.func, the tuned model written and run against the
# original, bound weights carried into the tuned model's constants; and
# the located errors of the new keys.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
exe="${TESSEL_EXE:?}"
src="${TESSEL_SOURCE_ROOT:?}"
py=/usr/bin/python3
json() { python3 -c "
import json,sys
d=json.loads(open('$tmp/out').read().strip().splitlines()[-1])
sys.exit(0 if ($1) else 1)"; }

cat > "$tmp/mlp.yaml" <<YAML
workload:
  file: $src/workloads/models/mlp.py
  passes: legalize,fuse,dce
tasks: {scheduler: round-robin, max_trials_global: 12}
target: {kind: llvm, threads: 1}
strategy: {kind: evolutionary, trials: 8, batch: 3}
cost_model: {kind: random}
runner: {number: 2, repeat: 1, min_repeat_ms: 2, timeout_s: 10}
database: db/t.db
work_dir: work
seed: 3
YAML

check "a model tunes: exit 0" test "$(status "$exe" tune "$tmp/mlp.yaml" --json)" = 0
check "  ... two tasks, the fused prim_funcs, each called once" json \
  "[t['name'] for t in d['tasks']] == ['fused_matmul_add_relu', 'fused_matmul1_add1'] and all(t['weight'] == 1 for t in d['tasks'])"
check "  ... the global budget: 12 measured, none failed" json "d['trials'] == 12 and d['errors'] == 0"
check "  ... round-robin batches of 3 share it: 6 and 6" json \
  "[t['total'] for t in d['tasks']] == [6, 6]"
check "  ... the model's latency: the tasks' best times their weights" json \
  "abs(d['best_seconds'] - sum(t['weight'] * t['best_seconds'] for t in d['tasks'])) < 1e-12"
check "  ... the model's FLOPs: the tasks' times their weights" json \
  "abs(d['flops'] - sum(t['weight'] * t['flops'] for t in d['tasks'])) < 1e-6"
check "  ... the table lists both tasks and the total weighted latency" bash -c "
  grep -q '^  0 | fused_matmul_add_relu' '$tmp/err' && grep -q '^  1 | fused_matmul1_add1' '$tmp/err' &&
  grep -q '^total trials: 12, total weighted latency: ' '$tmp/err'"
check "  ... the tuned model is written where the result says" json \
  "d['tuned_model'].endswith('work/tuned_model.py') and d['tuned_constants'] is None"
check "the tuned model holds the scheduled prim_funcs (parallel loops, vectorized)" bash -c "
  grep -q 'def fused_matmul_add_relu' '$tmp/work/tuned_model.py' &&
  grep -q 'T.vectorized\|T.parallel' '$tmp/work/tuned_model.py'"
# float32 sums in another order (tiles, rfactor): within 1e-5 of the largest value
same() { "$py" -c "
import numpy as np, sys
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
sys.exit(0 if a.files == b.files and all(np.allclose(a[k], b[k], rtol=1e-5, atol=1e-5 * max(1, np.abs(a[k]).max())) for k in a.files) else 1)" "$@"; }
check "the tuned model runs and computes what the original does" bash -c "
  '$exe' run '$src/workloads/models/mlp.py' --output '$tmp/a.npz' > /dev/null &&
  '$exe' run '$tmp/work/tuned_model.py' --output '$tmp/b.npz' > /dev/null" && check "  ... the same outputs" same "$tmp/a.npz" "$tmp/b.npz"

check "the same config again resumes every task: nothing measured" \
  test "$(status "$exe" tune "$tmp/mlp.yaml" --json)" = 0
check "  ... 0 measured, the tasks' records as before" json \
  "d['trials'] == 0 and [t['total'] for t in d['tasks']] == [6, 6]"
check "a larger global budget goes on, per task up to strategy.trials" \
  test "$(status "$exe" tune "$tmp/mlp.yaml" --set tasks.max_trials_global=100 --json)" = 0
check "  ... each task at its budget of 8" json "[t['total'] for t in d['tasks']] == [8, 8]"

check "the gradient scheduler (TVM's default) tunes the model too" \
  test "$(status "$exe" tune "$tmp/mlp.yaml" --set tasks.scheduler=gradient \
          --set database=$tmp/db/g.db --set tasks.max_trials_global=9 --json)" = 0
check "  ... its first round gives each task a batch, then the budget runs out" json \
  "d['trials'] == 9 and all(t['total'] >= 3 for t in d['tasks'])"

check "workload.func tunes one task of the model" \
  test "$(status "$exe" tune "$tmp/mlp.yaml" --set workload.func=fused_matmul1_add1 \
          --set database=$tmp/db/one.db --json)" = 0
check "  ... only it" json "[t['name'] for t in d['tasks']] == ['fused_matmul1_add1'] and d['total'] == 8"

"$py" -c "
import numpy as np
r = np.random.default_rng(5)
np.savez('$tmp/w.npz', w0=r.standard_normal((784, 128), np.float32),
         b0=r.standard_normal(128).astype(np.float32),
         w1=r.standard_normal((128, 10), np.float32), b1=r.standard_normal(10).astype(np.float32))
np.save('$tmp/x.npy', r.standard_normal((1, 784), np.float32))"
check "weights bound by bind_params: the tuned model carries them as constants" \
  test "$(status "$exe" tune "$tmp/mlp.yaml" --set workload.weights="$tmp/w.npz" \
          --set workload.passes=bind_params,legalize,fuse,dce --set database=$tmp/db/w.db --json)" = 0
check "  ... written beside it" json "d['tuned_constants'].endswith('work/tuned_model.constants.safetensors')"
check "  ... and it computes what the original does on those weights" bash -c "
  '$exe' run '$src/workloads/models/mlp.py' --weights '$tmp/w.npz' --input x='$tmp/x.npy' \
    --output '$tmp/c.npz' > /dev/null &&
  '$exe' run '$tmp/work/tuned_model.py' --weights '$tmp/work/tuned_model.constants.safetensors' \
    --input x='$tmp/x.npy' --output '$tmp/d.npz' > /dev/null" && check "  ... the same outputs" same "$tmp/c.npz" "$tmp/d.npz"

check "an unknown scheduler stops at its key" \
  test "$(status "$exe" tune "$tmp/mlp.yaml" --set tasks.scheduler=fastest)" = 2
check "  ... naming the valid ones" grep -qF -e \
  "--set tasks.scheduler=fastest: error: tasks.scheduler: unknown scheduler 'fastest'; valid: gradient, round-robin" \
  "$tmp/err"
check "workload.func that is no task stops, listing the tasks" \
  test "$(status "$exe" tune "$tmp/mlp.yaml" --set workload.func=matmul)" = 2
check "  ... by name" grep -qF -e \
  "--set workload.func=matmul: error: workload.func: the model calls no prim_func 'matmul'; valid: fused_matmul_add_relu, fused_matmul1_add1" \
  "$tmp/err"
check "a model without its passes has no prim_func to tune, and says which passes make them" \
  test "$(status "$exe" tune "$tmp/mlp.yaml" --set workload.passes=dce)" = 2
check "  ... so" grep -qF "the model calls no prim_func of its own" "$tmp/err"
check "an unknown pass stops at workload.passes" \
  test "$(status "$exe" tune "$tmp/mlp.yaml" --set workload.passes=legalize,fuse_all)" = 2
check "  ... naming it" grep -qF "workload.passes: no pass named 'fuse_all'" "$tmp/err"
sed "s|models/mlp.py|matmul_128.py|" "$tmp/mlp.yaml" > "$tmp/prog.yaml"
check "passes on a program (no @R.function) stop" test "$(status "$exe" tune "$tmp/prog.yaml")" = 2
check "  ... saying they are for models" grep -qF \
  "passes and weights are for models (a file with @R.function functions); this workload is a program" \
  "$tmp/err"
sed -e "s|$src/workloads/models/mlp.py|$src/tests/relax/cases/mlp.py|" -e "s|legalize,fuse,dce|dce|" \
  "$tmp/mlp.yaml" > "$tmp/sym.yaml"
check "a generic prim_func called with the model's symbolic batch and no binds stops" \
  test "$(status "$exe" tune "$tmp/sym.yaml")" = 2
check "  ... naming it and how to bind the size" grep -qF \
  "prim_func 'dense' of the model has symbolic sizes its calls do not fix (n); tuning needs them constant; valid: a value for each in workload.binds, e.g. binds: {n: 1}" \
  "$tmp/err"
check "with workload.binds each call of a generic prim_func is its own task, at its shapes" \
  test "$(status "$exe" tune "$tmp/sym.yaml" --set workload.binds.n=2 --set database=$tmp/db/s.db --json)" = 0
check "  ... dense at 64 -> 32 and 32 -> 10, relu at 32: three tasks named after their callee" json \
  "[t['name'] for t in d['tasks']] == ['dense_1', 'relu_1', 'dense_2'] and [t['flops'] for t in d['tasks']] == [8192, 64, 1280]"
check "  ... the tuned model calls the tuned specializations" bash -c "
  grep -q 'h = R.call_tir(cls.dense_1, (x, w0, b0)' '$tmp/work/tuned_model.py' &&
  grep -q 'y = R.call_tir(cls.dense_2, (a, w1, b1)' '$tmp/work/tuned_model.py'"
check "  ... and computes what the original does at n = 2" bash -c "
  '$exe' run '$src/tests/relax/cases/mlp.py' --bind n=2 --output '$tmp/e.npz' > /dev/null &&
  '$exe' run '$tmp/work/tuned_model.py' --bind n=2 --output '$tmp/f.npz' > /dev/null" &&
  check "  ... the same outputs" same "$tmp/e.npz" "$tmp/f.npz"
echo "1..$n"
exit $((failed > 0))
