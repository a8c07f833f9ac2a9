#!/usr/bin/env bash
# TAP test of `tessel tune` against faulty candidates: the target "faulty"
# (plugins/tp_faulty.c, llvm with injected faults) makes each candidate of
# the 25-point matmul space either correct, a segfault, a hang, a wrong
# result, a build error, a crashing build or a hanging build, chosen by a
# hash of its lowered program, and logs the choice. The run must finish,
# record every candidate once with the error its fault implies, never take
# a wrong (and fastest) candidate as the best, leave a sound database and
# nothing behind, and resume without building anything again.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
exe="${TESSEL_EXE:?}"
src="${TESSEL_SOURCE_ROOT:?}"
plugins="${TESSEL_TEST_PLUGIN_DIR:?}"
json() { python3 -c "
import json,sys
d=json.loads(open('$tmp/out').read().strip().splitlines()[-1])
r=($1)
if not r: print('# want', dict(want), 'got', dict(got))
sys.exit(0 if r else 1)"; }
# py EXPR: EXPR over rows (the exported records) and log (outcome per build)
py() { python3 -c "
import json,sys,collections
rows=[json.loads(l) for l in open('$tmp/all.jsonl') if l.strip()]
log=[l.split()[1] for l in open('$tmp/faults.log') if l.strip()]
hashes=[l.split()[0] for l in open('$tmp/faults.log') if l.strip()]
def cls(r):
    e=r['error'] or ''
    if r['status']==0: return 'ok'
    if e.startswith('build: faulty: injected build error'): return 'build_error'
    if e.startswith('build: the build worker died: Segmentation fault'): return 'build_crash'
    if e.startswith('build: timed out after 3 s'): return 'build_hang'
    if e.startswith('worker died: Segmentation fault'): return 'segv'
    if e.startswith('timed out after 1 s'): return 'hang'
    if 'differs' in e: return 'wrong'
    return 'other: '+e
want=collections.Counter(log); got=collections.Counter(cls(r) for r in rows)
ok_lat=[r['latency_s'] for r in rows if r['status']==0]
d=json.loads(open('$tmp/tune.json').read().strip().splitlines()[-1])
r=($1)
if not r: print('# want', dict(want), 'got', dict(got))
sys.exit(0 if r else 1)"; }

# Timing plays no part in the outcomes: no candidate is stopped or
# screened for being slow (a correct one stopped on a loaded machine would
# not be "ok"), and two build workers on any machine; the hangs' timeouts
# (1 s, 3 s) are orders of magnitude above a correct candidate's time.
cat > "$tmp/f.yaml" <<YAML
workload: {file: $src/workloads/matmul_128.py}
target:
  kind: faulty
  threads: 1
  faults: "ok,segv,hang,wrong,build_error,build_crash,build_hang"
  log: $tmp/faults.log
space: {schedule: $src/workloads/matmul_stochastic.sch}
strategy: {kind: random, trials: 25, batch: 8}
runner: {number: 2, repeat: 1, min_repeat_ms: 5, timeout_s: 1, skip_slower: 0, screen_slower: 0,
         remeasure: 0}
builder: {workers: 2, timeout_s: 3}
plugin_paths: $plugins
database: db/f.db
seed: 3
YAML

t0=$(date +%s)
check "tune over 25 faulty candidates exits 0" test "$(status "$exe" tune "$tmp/f.yaml" --json)" = 0
t1=$(date +%s)
cp "$tmp/out" "$tmp/tune.json"
echo "# run took $((t1 - t0)) s"
"$exe" db export "$tmp/db/f.db" --json "$tmp/all.jsonl" >/dev/null 2>&1
check "  ... --json: 25 measured, errors = the faulty ones, a best" \
  py "d['trials'] == 25 and d['total'] == 25 and d['errors'] == 25 - want['ok'] and d['best_seconds'] > 0"
check "  ... every candidate built once (25 distinct programs in the log)" \
  py "len(log) == 25 and len(set(hashes)) == 25"
check "  ... the space holds every outcome (the test is not vacuous)" \
  py "all(want[k] >= 1 for k in ['ok','segv','hang','wrong','build_error','build_crash','build_hang'])"
check "  ... 25 records, one per candidate" py "len(rows) == 25 and len(set(r['decisions'] for r in rows)) == 25"
check "  ... each fault recorded as its error, each correct one as a success" py "want == got"
check "  ... a failed record has no latency" \
  py "all(r['latency_s'] is None or r['latency_s'] < 0 for r in rows if r['status'] != 0)"
check "  ... the best is the fastest correct candidate (wrong ones are faster)" \
  py "abs(d['best_seconds'] - min(ok_lat)) <= 1e-6 * min(ok_lat)"
"$exe" db stats "$tmp/db/f.db" --json > "$tmp/stats.json" 2>"$tmp/err"
check "  ... db stats: 25 records, errors = failed records" \
  py "(lambda s: s['records'] == 25 and s['errors'] == 25 - want['ok'])(json.load(open('$tmp/stats.json')))"
check "  ... SQLite integrity_check is ok" test "$(python3 -c "import sqlite3; print(sqlite3.connect('file:$tmp/db/f.db?mode=ro', uri=True).execute('pragma integrity_check').fetchone()[0])")" = ok
check "  ... no build left in the work folder" test -z "$(ls -A "$tmp/db/builds")"
check "  ... no worker left running" test -z "$(pgrep -f "tun[e] $tmp/f.yaml")"
check "  ... the log of the run names the failures" grep -q "failed" "$tmp/db/tune.log"

check "a second run exits 0" test "$(status "$exe" tune "$tmp/f.yaml" --json)" = 0
cp "$tmp/out" "$tmp/tune.json"
check "  ... measures nothing and builds nothing (failures count as measured)" \
  py "d['trials'] == 0 and d['total'] == 25 and len(log) == 25"
# the re-measurement at the end (runner.remeasure) builds the fastest records
# again: only successful ones, each once, and the faults stay out of it
check "a third run re-measuring the 5 fastest records exits 0" test "$(status "$exe" tune \
  "$tmp/f.yaml" --set runner.remeasure=5 --set target.log="$tmp/rm.log" --json)" = 0
check "  ... re-measures the successful records only, each built once, each correct" bash -c "
  python3 -c \"
import json, sys
d = json.loads(open('$tmp/out').read().strip().splitlines()[-1])
rows = [json.loads(l) for l in open('$tmp/all.jsonl') if l.strip()]
ok = sum(r['status'] == 0 for r in rows)
log = [l.split()[1] for l in open('$tmp/rm.log') if l.strip()]
sys.exit(not (d['trials'] == 0 and d['remeasured_records'] == min(5, ok) and
              len(log) == min(5, ok) and set(log) == {'ok'} and d['remeasured_seconds'] > 0))\""

# hangs once a best is known: stopped at runner.skip_slower (3, the default)
# times the best
# (at least 50 ms), long before the timeout; recorded as "stopped" with that
# time as a lower bound, not as failures. The first batch is probed (each
# candidate's checked call first, in the order generated, then the timings)
# and recorded in the order generated: a hang probed before any correct
# candidate times out
check "correct and hanging candidates: the run exits 0" test "$(status "$exe" tune "$tmp/f.yaml" \
  --set target.faults=ok,hang --set database="$tmp/dbs/s.db" --set target.log="$tmp/faults_s.log" \
  --set strategy.trials=12 --set runner.skip_slower=3 --set runner.screen_slower=1.5 --json)" = 0
cp "$tmp/out" "$tmp/tune.json"
"$exe" db export "$tmp/dbs/s.db" --json "$tmp/all.jsonl" >/dev/null 2>&1
cp "$tmp/faults_s.log" "$tmp/faults.log"
check "  ... each hang timed out while no correct candidate had run, stopped after one had" py \
  "(lambda n: all(r['status'] == 4 for r in rows[:n]))(sum(r['status'] == 4 for r in rows))"
check "  ... the first batch (8) probed by its checked calls, no later one" json "d['probed'] == 8"
check "  ... some were stopped (the test is not vacuous), each after 0.05 to 1 s" py \
  "sum(r['status'] == 7 for r in rows) >= 1 and all(0.05 <= r['latency_s'] < 1 and r['error'].startswith('stopped after') for r in rows if r['status'] == 7)"
check "  ... counted as stopped, not as failed" \
  py "d['stopped'] == sum(r['status'] == 7 for r in rows) and d['errors'] == sum(r['status'] == 4 for r in rows)"
check "  ... the best is the fastest correct candidate, never a stopped one" \
  py "abs(d['best_seconds'] - min(ok_lat)) <= 1e-6 * min(ok_lat)"
"$exe" db stats "$tmp/dbs/s.db" --json > "$tmp/stats.json" 2>"$tmp/err"
check "  ... db stats: stopped records are not errors" \
  py "json.load(open('$tmp/stats.json'))['errors'] == sum(r['status'] == 4 for r in rows)"
# a stopped record's latency is a lower bound, never a best: one imported
# with a bound below every measured latency leaves db stats' best as it was
python3 -c "
import json
rows=[json.loads(l) for l in open('$tmp/all.jsonl') if l.strip()]
r=[x for x in rows if x['status'] == 7][0]
r['latency_s'] = 1e-9; r['times_s'] = [1e-9]; r['timestamp'] += 1
open('$tmp/stopped.jsonl', 'w').write(json.dumps(r) + '\n')"
"$exe" db import "$tmp/dbs/s.db" "$tmp/stopped.jsonl" >/dev/null 2>&1
"$exe" db stats "$tmp/dbs/s.db" --json > "$tmp/stats.json" 2>"$tmp/err"
check "  ... nor a best in db stats (a stopped record of 1 ns imported)" \
  py "(lambda w: w['records'] == 13 and abs(w['best_latency_s'] - min(ok_lat)) <= 1e-6 * min(ok_lat))(json.load(open('$tmp/stats.json'))['per_workload'][0])"

# one build worker: a crash or a hang must not cost the jobs queued behind it
check "with builder.workers=1 the run exits 0" test "$(status "$exe" tune "$tmp/f.yaml" \
  --set builder.workers=1 --set database="$tmp/db1/w.db" --set target.log="$tmp/faults1.log" --json)" = 0
"$exe" db export "$tmp/db1/w.db" --json "$tmp/all.jsonl" >/dev/null 2>&1
cp "$tmp/faults1.log" "$tmp/faults.log"
check "  ... each fault recorded as its error, each correct one as a success" py "len(rows) == 25 and want == got"

# kill -9 of the run while a candidate hangs in a worker, and while builds
# hang: the workers die with it (no orphan keeps a core busy). The kill
# waits for that state: for 'hang', the first batch built (8 log lines)
# and a worker beside the tuner; for 'build_hang', both build workers
# hanging (2 lines). Then it polls, with a deadline, for the processes to go.
# procs: how many processes run the config (the tuner and its workers)
procs() { pgrep -c -f "tun[e] $tmp/f.yaml" || true; }
for fault in hang build_hang; do
  lines=$([ $fault = hang ] && echo 8 || echo 2)
  "$exe" tune "$tmp/f.yaml" --set target.faults=$fault --set runner.timeout_s=60 \
    --set builder.timeout_s=60 --set builder.workers=2 --set database="$tmp/k_$fault/k.db" \
    --set target.log="$tmp/k_$fault.log" >/dev/null 2>&1 & pid=$!
  for _ in $(seq 1 200); do
    [ "$(wc -l 2>/dev/null < "$tmp/k_$fault.log" || echo 0)" -ge "$lines" ] && [ "$(procs)" -ge 2 ] && break
    sleep 0.1
  done
  check "'$fault': the run reached the state to kill it in ($lines faulty builds, $(procs) processes)" \
    test "$(wc -l 2>/dev/null < "$tmp/k_$fault.log" || echo 0)" -ge "$lines" -a "$(procs)" -ge 2
  kill -9 "$pid"; wait "$pid" 2>/dev/null
  for _ in $(seq 1 50); do [ "$(procs)" = 0 ] && break; sleep 0.1; done
  check "kill -9 during '$fault': no worker left running" test "$(procs)" = 0
done

# the sketch strategy (Ansor's search over its own sketches) against the
# same faults: the run ends, each candidate is recorded once with the error
# its fault implies, a wrong one is never the best, and a resume builds
# nothing again
cat > "$tmp/sk.yaml" <<YAML
workload: {file: $src/workloads/matmul_128.py}
target:
  kind: faulty
  threads: 1
  faults: "ok,segv,hang,wrong,build_error,build_crash,build_hang"
  log: $tmp/sk_faults.log
strategy: {kind: sketch, trials: 16, batch: 8, evolutionary_search_population: 32,
           sample_init_min_population: 8}
runner: {number: 2, repeat: 1, min_repeat_ms: 5, timeout_s: 1, skip_slower: 0, screen_slower: 0,
         remeasure: 0}
builder: {workers: 2, timeout_s: 3}
plugin_paths: $plugins
database: db/sk.db
seed: 3
YAML
check "sketch: tune over faulty candidates exits 0" test "$(status "$exe" tune "$tmp/sk.yaml" --json)" = 0
cp "$tmp/out" "$tmp/tune.json"
cp "$tmp/sk_faults.log" "$tmp/faults.log"
"$exe" db export "$tmp/db/sk.db" --json "$tmp/all.jsonl" >/dev/null 2>&1
check "  ... 16 records, one per candidate, each built once" \
  py "d['trials'] == 16 and len(rows) == 16 and len(set(r['decisions'] for r in rows)) == 16 and len(log) == 16"
check "  ... each fault recorded as its error, each correct one as a success" py "want == got"
check "  ... some failed, some succeeded (the test is not vacuous)" py "want['ok'] >= 1 and want['ok'] < 16"
check "  ... the best is the fastest correct candidate" \
  py "abs(d['best_seconds'] - min(ok_lat)) <= 1e-6 * min(ok_lat)"
check "  ... no worker left running" test -z "$(pgrep -f "tun[e] $tmp/sk.yaml")"
check "sketch: a second run measures nothing and builds nothing" \
  test "$(status "$exe" tune "$tmp/sk.yaml" --json)" = 0
cp "$tmp/out" "$tmp/tune.json"
check "  ... 0 measured, 16 in the database, no build logged" \
  py "d['trials'] == 0 and d['total'] == 16 and sum(1 for l in open('$tmp/sk_faults.log') if l.strip()) == 16"

echo "1..$n"
exit 0
