#!/usr/bin/env bash
# TAP test of the tuner with a strategy of ABI 1.0 (plugins/tp_traces.c):
# it returns traces, not candidates, so the tuner keys them and prepares
# them in the candidate service itself; a trace returned twice in a batch
# is measured once, and a resumed run measures nothing twice.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
exe="${TESSEL_EXE:?}"
src="${TESSEL_SOURCE_ROOT:?}"
plugins="${TESSEL_TEST_PLUGIN_DIR:?}/tp_traces.so"
cd "$tmp" || exit 1
keys() { python3 -c "
import sqlite3,sys
rows=sqlite3.connect('file:$tmp/'+sys.argv[1]+'?mode=ro', uri=True).execute('select decisions, status from records').fetchall()
print(len(rows), len(set(k for k,_ in rows)), sum(1 for _,s in rows if s != 0))" "$1"; }

for twice in 0 1; do
  cat > "$tmp/t$twice.yaml" <<YAML
workload: {file: $src/workloads/matmul_128.py}
target: {kind: llvm, threads: 1}
space: {schedule: $src/workloads/matmul_tiled_space.sch}
strategy: {kind: traces, trials: 12, batch: 4, twice: $twice}
runner: {number: 2, repeat: 1, min_repeat_ms: 2, timeout_s: 10}
plugin_paths: $plugins
database: t$twice.db
seed: 5
YAML
  what=$([ $twice = 1 ] && echo "each trace returned twice" || echo "traces")
  check "a 1.0 strategy ($what): tune exits 0" bash -c "
    '$exe' tune '$tmp/t$twice.yaml' > '$tmp/out' 2> '$tmp/err'"
  check "  ... 12 records, 12 distinct keys, none failed" test "$(keys t$twice.db)" = "12 12 0"
done
sed -i 's/trials: 12/trials: 20/' "$tmp/t1.yaml"
check "a resumed run to 20 trials exits 0" bash -c "'$exe' tune '$tmp/t1.yaml' > '$tmp/out' 2> '$tmp/err'"
check "  ... 20 records, 20 distinct keys: nothing measured twice" test "$(keys t1.db)" = "20 20 0"
echo "1..$n"
