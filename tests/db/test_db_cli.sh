#!/usr/bin/env bash
# TAP test of `tessel db stats|export|import` and `tessel best` on a database
# written through the C API (make_db, with real split traces).
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
exe="${TESSEL_EXE:?}"
mk="${1:?make_db}"
json() { python3 -c "import json,sys; d=json.load(open('$tmp/out')); sys.exit(0 if ($1) else 1)"; }

db="$tmp/t.db"
"$mk" "$db" "$tmp/vadd.py" || { echo "Bail out! make_db failed"; exit 1; }

check "db stats exits 0" test "$(status "$exe" db stats "$db")" = 0
check "  ... prints records and errors" grep -q "records: 4 (2 errors)" "$tmp/out"
check "db stats --json" test "$(status "$exe" db stats "$db" --json)" = 0
check "  ... records, workloads, errors, targets" \
  json "d['records'] == 4 and d['workloads'] == 2 and d['errors'] == 2 and d['targets'] == 1"
check "  ... per workload, the best latency" \
  json "d['per_workload'][0]['name'] == 'vadd' and d['per_workload'][0]['best_latency_s'] == 1e-6 and d['per_workload'][1]['best_latency_s'] is None"

check "best --json exits 0" test "$(status "$exe" best "$db" --json)" = 0
check "  ... the fastest OK record (not the faster crash)" \
  json "d['latency_s'] == 1e-6 and d['workload'] == 'vadd' and d['target'] == 'llvm -threads=1' and len(d['results']) == 1"
check "  ... GFLOPS from the workload's flops" json "abs(d['gflops'] - 128 / 1e-6 * 1e-9) < 1e-9"
check "  ... the trace with its decision" json "'decision=[8, 8]' in d['trace'] and 'sch.split' in d['trace']"
check "  ... the scheduled program has the split loops" \
  json "'for i_0, i_1 in T.grid(8, 8)' in d['program']"
python3 -c "import json; d=json.load(open('$tmp/out')); open('$tmp/best.sch','w').write(d['trace'])"
check "the trace runs with tessel schedule" bash -c "'$exe' schedule '$tmp/vadd.py' '$tmp/best.sch' > '$tmp/sched.py' 2>'$tmp/err'"
check "  ... giving the same program" \
  python3 -c "import json; d=json.load(open('$tmp/out')); import sys; s=open('$tmp/sched.py').read(); sys.exit(0 if s.strip() == d['program'].strip() else 1)"
check "best (text)" test "$(status "$exe" best "$db")" = 0
check "  ... latency, GFLOPS, trace and program" \
  bash -c "grep -q 'latency: 1.000 us' '$tmp/out' && grep -q 'GFLOPS: 0.13' '$tmp/out' && grep -q 'decision=\[8, 8\]' '$tmp/out' && grep -q '@T.prim_func' '$tmp/out'"
check "best --file PROGRAM" test "$(status "$exe" best "$db" --file "$tmp/vadd.py" --json)" = 0
check "  ... of that workload" json "d['workload'] == 'vadd' and d['latency_s'] == 1e-6"
check "best --target of another target: exit 2" test "$(status "$exe" best "$db" --target cuda)" = 2
check "  ... with a clear message" grep -q "no successful record.*on target cuda" "$tmp/err"
sed 's/T.float32(1)/T.float32(2)/' "$tmp/vadd.py" > "$tmp/other.py"
check "best --file of an untuned program: exit 2" test "$(status "$exe" best "$db" --file "$tmp/other.py")" = 2
check "  ... saying it was never tuned" grep -q "never tuned" "$tmp/err"
check "best of a missing database: exit 2" test "$(status "$exe" best "$tmp/nope.db")" = 2
check "  ... naming it" grep -q "nope.db" "$tmp/err"
printf 'hello' > "$tmp/junk.db"
check "db stats of a non-database: exit 2" test "$(status "$exe" db stats "$tmp/junk.db")" = 2
check "  ... not a tessel database, file untouched" \
  bash -c "grep -q 'not a tessel database' '$tmp/err' && [ \"\$(cat '$tmp/junk.db')\" = hello ]"

check "db export" test "$(status "$exe" db export "$db" --json "$tmp/out.jsonl")" = 0
check "  ... one line per record" test "$(wc -l < "$tmp/out.jsonl")" = 4
check "db import into a new database --json" test "$(status "$exe" db import "$tmp/new/copy.db" "$tmp/out.jsonl" --json)" = 0
check "  ... 4 added" json "d['added'] == 4 and d['skipped'] == 0"
check "db import again" test "$(status "$exe" db import "$tmp/new/copy.db" "$tmp/out.jsonl")" = 0
check "  ... 4 skipped" grep -q "0 records added, 4 skipped" "$tmp/out"
status "$exe" best "$tmp/new/copy.db" --json > /dev/null
check "  ... the copy has the same best" json "d['latency_s'] == 1e-6 and 'decision=[8, 8]' in d['trace']"
{ head -1 "$tmp/out.jsonl"; echo '{"broken'; } > "$tmp/bad.jsonl"
check "db import of a malformed file: exit 2" test "$(status "$exe" db import "$tmp/x.db" "$tmp/bad.jsonl")" = 2
check "  ... FILE:LINE" grep -q "bad.jsonl:2: error" "$tmp/err"
check "db import of a missing file: exit 2" test "$(status "$exe" db import "$tmp/none.db" "$tmp/missing.jsonl")" = 2
check "  ... naming the file, no database created" \
  bash -c "grep -q 'missing.jsonl: cannot read' '$tmp/err' && [ ! -e '$tmp/none.db' ]"
echo garbage > "$tmp/garbage.jsonl"
check "db import of garbage: exit 2" test "$(status "$exe" db import "$tmp/none.db" "$tmp/garbage.jsonl")" = 2
check "  ... FILE:LINE, no database created" \
  bash -c "grep -q 'garbage.jsonl:1: error' '$tmp/err' && [ ! -e '$tmp/none.db' ]"
check "db import of a malformed file into a missing database: none created" test ! -e "$tmp/x.db"
(cd "$tmp" && "$exe" db export "$db" --json - > "$tmp/stdout.jsonl" 2>"$tmp/err")
check "db export --json - writes to stdout" cmp -s "$tmp/stdout.jsonl" "$tmp/out.jsonl"
check "  ... and no file named -" test ! -e "$tmp/-"
check "db --help documents -" bash -c "'$exe' db --help | grep -q \"OUT '-' is stdout\""
check "db with an unknown sub-command: exit 2" test "$(status "$exe" db frob "$db")" = 2
check "db --help" bash -c "'$exe' db --help | grep -q 'tessel db stats DB'"
check "best --help" bash -c "'$exe' best --help | grep -q 'tessel best DB'"
echo "1..$n"
[ "$failed" = 0 ]
