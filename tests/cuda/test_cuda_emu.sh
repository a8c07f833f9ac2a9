#!/usr/bin/env bash
# TAP test of the CUDA target on the emulator (tests/cuda/emu): the fake
# libcuda.so.1 first on the library path, and kernels built for host
# threads (TESSEL_CUDA_EMULATE). Each case's kernels, host code, launches
# and device memory run, and their outputs are checked against the
# interpreter, with the threads of a block in both orders. Without the
# barriers the target inserts, the programs that need them compute wrong
# values (and the one that needs none still computes right ones). A
# tuning run measures candidates of a GPU schedule space, and goes on past a
# kernel that poisons the context. The light (sanitizer) pass runs the
# threads in the reverse order alone.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
exe="${TESSEL_EXE:?}"
src="${TESSEL_SOURCE_ROOT:?}"
export LD_LIBRARY_PATH="${TESSEL_FAKE_LIBCUDA_DIR:?}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TESSEL_CUDA_EMULATE="$src/tests/cuda/emu"
cases="$src/tests/cuda/cases"
orders="reverse forward"; [ "$tap_light" = 1 ] && orders=reverse
programs="$cases/shared_reverse.py $cases/shared_own.py $cases/shared_war.py $cases/two_kernels.py
          $cases/guarded.py $cases/cross_thread.py $cases/reduce_two_outputs.py
          $cases/reduce_into_shared.py $cases/vector_fetch.py $cases/shared_dyn.py $cases/shared_dyn_64k.py $cases/warp_shuffle.py
          $src/workloads/matmul_gpu_shared.py"

run() { # ORDER NO_BARRIERS PROGRAM: the check line of tessel run
  TESSEL_CUDA_EMU_ORDER="$1" TESSEL_CUDA_NO_BARRIERS="$2" "$exe" run "$3" --target cuda \
    --repeat 1 --number 1 > "$tmp/out" 2> "$tmp/err"
  grep '^  check: ' "$tmp/out"
}

for order in $orders; do
  for p in $programs; do
    check "$(basename "$p" .py), threads $order: outputs match the interpreter's" bash -c "
      $(declare -f run); exe='$exe' tmp='$tmp'; run $order 0 '$p' | grep -q '^  check: ok'"
  done
done
# The course's GPU programs, scheduled by hand (examples/gpu), and a float16 matmul on
# tensor cores (WMMA, the intrinsics of plugins/cuda-wmma).
for c in "gpu_vector_add vector_add" "gpu_window_sum window_sum_shared" \
         "matmul_128 matmul_local" "matmul_128 matmul_shared" "matmul_fp16_gpu matmul_wmma"; do
  set -- $c
  for order in $orders; do
    check "course: $2 on $1, threads $order: outputs match the interpreter's" bash -c "
      TESSEL_CUDA_EMU_ORDER=$order '$exe' run '$src/workloads/$1.py' --schedule \
        '$src/examples/gpu/$2.sch' --target cuda --repeat 1 --number 1 > '$tmp/out' 2> '$tmp/err' &&
      grep -q '^  check: ok' '$tmp/out'"
  done
done
# Warp-level tensor cores (ldmatrix, mma.sync m16n8k16: the intrinsics of
# plugins/cuda-mma), the emulator computing each lane's registers in the
# hardware's layouts: float16 into float32, B transposed, bfloat16.
for c in "matmul_fp16_gpu matmul_mma" "matmul_fp16_nt_gpu matmul_mma_trans_b" \
         "matmul_bf16_gpu matmul_mma_bf16"; do
  set -- $c
  for order in $orders; do
    check "tensor cores: $2 on $1, threads $order: outputs match the interpreter's" bash -c "
      TESSEL_CUDA_EMU_ORDER=$order '$exe' run '$src/workloads/$1.py' --schedule \
        '$src/examples/gpu/$2.sch' --target cuda --repeat 1 --number 1 > '$tmp/out' 2> '$tmp/err' &&
      grep -q '^  check: ok' '$tmp/out'"
  done
done
# The compiled reference of `tessel run` is the tuner's: on a GPU the
# program bound to threads as RewriteUnboundBlock binds it.
check "course: matmul_local on matmul_128 against a compiled reference" bash -c "
  '$exe' run '$src/workloads/matmul_128.py' --schedule '$src/examples/gpu/matmul_local.sch' \
    --target cuda --repeat 1 --number 1 --check compiled > '$tmp/out' 2> '$tmp/err' &&
  grep -q '^  check: ok (compiled reference' '$tmp/out'"
# ... and tuned automatically in the cuda target's default space.
for w in gpu_vector_add gpu_window_sum; do
  printf 'workload: {file: %s}\ntarget: {kind: cuda}\nstrategy: {kind: evolutionary, trials: 8, batch: 4}\ncost_model: {kind: xgb}\nrunner: {number: 1, repeat: 1, timeout_s: 60}\ndatabase: %s\nseed: 1\n' \
    "$src/workloads/$w.py" "$tmp/$w.db" > "$tmp/$w.yaml"
  check "course: $w tuned from the bare program in the default space, every candidate measured" bash -c "
    '$exe' tune '$tmp/$w.yaml' > '$tmp/out' 2> '$tmp/err' &&
    grep -q '^tuned: [1-9][0-9]* candidates measured by this run (0 failed)' '$tmp/out'"
done

# A float16 matmul tuned from the bare program in the default space: every
# candidate is a tensor-core one (MultiLevelTilingTensorCore), measured and
# checked against the interpreter; the best calls T.tvm_mma_sync.
printf 'workload: {file: %s}\ntarget: {kind: cuda}\nstrategy: {kind: evolutionary, trials: 4, batch: 4}\ncost_model: {kind: xgb}\nrunner: {number: 1, repeat: 1, timeout_s: 120}\ndatabase: %s\nseed: 1\n' \
  "$src/workloads/matmul_fp16_gpu.py" "$tmp/tc.db" > "$tmp/tc.yaml"
check "matmul_fp16_gpu tuned from the bare program on tensor cores, every candidate checked" bash -c "
  '$exe' tune '$tmp/tc.yaml' > '$tmp/out' 2> '$tmp/err' &&
  grep -q '^tuned: 4 candidates measured by this run (0 failed)' '$tmp/out' &&
  grep -q 'T.tvm_mma_sync' '$tmp/out'"

for p in shared_reverse shared_war shared_dyn matmul_gpu_shared; do
  f="$cases/$p.py"; [ -f "$f" ] || f="$src/workloads/$p.py"
  for order in $orders; do
    check "$p without its barriers, threads $order: a mismatch" bash -c "
      $(declare -f run); exe='$exe' tmp='$tmp'; run $order 1 '$f' | grep -q '^  check: mismatch'"
  done
done
# Tensor cores: the fragments' loads read what the whole block fetched.
for order in $orders; do
  check "matmul_wmma without its barriers, threads $order: a mismatch" bash -c "
    TESSEL_CUDA_EMU_ORDER=$order TESSEL_CUDA_NO_BARRIERS=1 '$exe' run '$src/workloads/matmul_fp16_gpu.py' \
      --schedule '$src/examples/gpu/matmul_wmma.sch' --target cuda --repeat 1 --number 1 \
      > '$tmp/out' 2> '$tmp/err'; grep -q '^  check: mismatch' '$tmp/out'"
done
# ldmatrix synchronizes a warp, not the block: the other warps' fetches need
# the barrier before it.
for order in $orders; do
  check "matmul_mma without its barriers, threads $order: a mismatch" bash -c "
    TESSEL_CUDA_EMU_ORDER=$order TESSEL_CUDA_NO_BARRIERS=1 '$exe' run '$src/workloads/matmul_fp16_gpu.py' \
      --schedule '$src/examples/gpu/matmul_mma.sch' --target cuda --repeat 1 --number 1 \
      > '$tmp/out' 2> '$tmp/err'; grep -q '^  check: mismatch' '$tmp/out'"
done
check "shared_own needs no barrier: right without any" bash -c "
  $(declare -f run); exe='$exe' tmp='$tmp'; run reverse 1 '$cases/shared_own.py' | grep -q '^  check: ok'"

cat > "$tmp/space.sch" <<'SCH'
b0 = sch.get_block(name="C", func_name="main")
l1, l2, l3 = sch.get_loops(block=b0)
v4, v5 = sch.sample_perfect_tile(loop=l1, n=2, max_innermost_factor=16)
l6, l7 = sch.split(loop=l1, factors=[v4, v5])
v8, v9 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=16)
l10, l11 = sch.split(loop=l2, factors=[v8, v9])
sch.reorder(l6, l10, l7, l11, l3)
sch.bind(loop=l6, thread_axis="blockIdx.y")
sch.bind(loop=l10, thread_axis="blockIdx.x")
sch.bind(loop=l7, thread_axis="threadIdx.y")
sch.bind(loop=l11, thread_axis="threadIdx.x")
SCH
cat > "$tmp/tune.yaml" <<YAML
workload: {file: $src/workloads/matmul_64.py}
target: {kind: cuda}
space: {schedule: $tmp/space.sch}
strategy: {kind: evolutionary, trials: 8, batch: 4}
cost_model: {kind: xgb}
runner: {number: 1, repeat: 1, timeout_s: 60}
database: $tmp/t.db
seed: 2
YAML
check "tessel tune on the emulated GPU measures its 8 candidates, none failed" bash -c "
  '$exe' tune '$tmp/tune.yaml' > '$tmp/out' 2> '$tmp/err' &&
  grep -q '^tuned: 8 candidates measured by this run (0 failed)' '$tmp/out'"
# Past the interpreter's size (2^23 operations) the tuner's reference is
# compiled; the unscheduled program cannot run on a GPU unbound, so its
# blocks are bound as RewriteUnboundBlock binds them, it runs on device
# buffers, and each candidate checks against it.
sed 's/64/192/g' "$src/workloads/matmul_64.py" > "$tmp/matmul_192.py"
sed -e "s|$src/workloads/matmul_64.py|$tmp/matmul_192.py|; s|/t.db|/big.db|; s|trials: 8, batch: 4|trials: 2, batch: 2|" \
  "$tmp/tune.yaml" > "$tmp/big.yaml"
check "a 192 matmul (2^23.8 operations): a compiled, thread-bound reference checks its 2 candidates" bash -c "
  '$exe' tune '$tmp/big.yaml' > '$tmp/out' 2> '$tmp/err' &&
  grep -q '^tuned: 2 candidates measured by this run (0 failed)' '$tmp/out'"
python3 - "$tmp/t.db" > "$tmp/records" 2>&1 <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
for row in db.execute("select target, status, latency_s, error from records"):
    print(*row, sep=" | ")
PY
# status 0: measured; 7: stopped as slower than the best by runner.skip_slower
check "  ... its 8 records are of target cuda -arch=sm_90 (the emulator's 9.0), measured or stopped as slower" \
  bash -c "cp '$tmp/records' '$tmp/out'; test \"\$(grep -c '^cuda -arch=sm_90 -device=0 | [07] | [0-9][0-9.e-]* | ' '$tmp/records')\" = 8"
# The timed repeats go through the target's CUDA events: the emulator's
# events say 50 ms for any interval, so 2 calls a repeat are 25 ms each.
check "timing is by CUDA events (time_calls): 50 ms over 2 calls is 25 ms a call" bash -c "
  TESSEL_CUDA_EMU_EVENT_MS=50 '$exe' run '$src/workloads/gpu_vector_add.py' --schedule \
    '$src/examples/gpu/vector_add.sch' --target cuda --number 2 --repeat 3 --min-repeat-ms 0 \
    > '$tmp/out' 2> '$tmp/err' && grep -q '^  latency: 25.000 ms (median of 3 repeats x 2 calls' '$tmp/out'"

# A kernel that poisons the context (the 5th launch of a worker, once in
# the run however many workers it forks, as an illegal address would): its record is an error naming it, the context is
# rebuilt, and the run goes on measuring the rest.
check "a poisoned context fails one candidate, is rebuilt, and the run measures the other 7" bash -c "
  TESSEL_CUDA_EMU_POISON='5:$tmp/poisoned' '$exe' tune '$tmp/tune.yaml' --set database='$tmp/p.db' > '$tmp/out' 2> '$tmp/err' &&
  grep -q '^tuned: 8 candidates measured by this run (1 failed)' '$tmp/out'"
check "  ... its record names the illegal address and the rebuilt context" bash -c "
  python3 -c \"import sqlite3; print(sqlite3.connect('$tmp/p.db').execute('select error from records where status != 0 and status != 7').fetchone()[0])\" > '$tmp/out' &&
  grep -q 'CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered); the context was rebuilt' '$tmp/out'"
echo "1..$n"
[ "$failed" = 0 ]
