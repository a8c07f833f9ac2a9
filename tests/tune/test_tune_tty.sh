#!/usr/bin/env bash
# TAP test of `tessel tune`'s progress display. On a terminal (a pty from
# util-linux `script`) stderr shows a progress bar redrawn with \r:
# "[####   ] DONE/BUDGET  elapsed X s  ETA Y s", ended by a newline before
# each batch's table; the table, best trace and --json object still print.
# Without a terminal (pipes, files) no \r, escape sequence or bar appears.
# WORK_DIR/tune.log holds one line per candidate and each batch's table.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
tap_show_failure() { # the terminal's bytes too, control characters visible
  local f
  for f in out err tty; do sed "s/^/# $f: /" "$tmp/$f" 2>/dev/null | cat -A | tail -8; done
}
exe="${TESSEL_EXE:?}"
src="${TESSEL_SOURCE_ROOT:?}"
# py CODE: Python over t = $tmp/tty (bytes decoded) with re and json imported
py() { python3 -c "
import json,re,sys
t=open('$tmp/tty','rb').read().decode('utf-8','replace')
$1"; }
# on_pty CMD: runs the shell command CMD with a pty as stdin/stdout/stderr;
# everything it writes to the terminal lands in $tmp/tty
on_pty() { TERM=dumb script -qec "$1" /dev/null < /dev/null > "$tmp/tty" 2>"$tmp/err"; }
bar_re='\r\[(#*) *\] ([0-9]+)/([0-9]+)  elapsed [0-9]+\.[0-9] s  ETA [0-9]+\.[0-9] s '

cat > "$tmp/run.yaml" <<YAML
workload: {file: $src/workloads/matmul_128.py}
target: {kind: llvm, threads: 1}
space: {schedule: $src/workloads/matmul_stochastic.sch}
strategy: {kind: random, trials: 4, batch: 2}
cost_model: {kind: random}
runner: {number: 2, repeat: 1, min_repeat_ms: 5, timeout_s: 10}
database: db/t.db
work_dir: work
seed: 11
YAML
q() { printf '%q' "$1"; }
cmd="$(q "$exe") tune $(q "$tmp/run.yaml")"

if ! command -v script >/dev/null || ! script -qec true /dev/null </dev/null >/dev/null 2>&1; then
  skip "util-linux script cannot make a pty here"
  echo "1..$n"; exit 0
fi

# 1. A terminal: 4 candidates in 2 batches.
on_pty "$cmd"; rc=$?
check "on a pty: exits 0" test "$rc" = 0
check "  ... a bar per candidate: 1/4 .. 4/4, filled in proportion, redrawn with \\r" py "
bars=re.findall(r'$bar_re', t)
done=[int(b[1]) for b in bars]
ok=done==[1,2,3,4] and all(int(b[2])==4 for b in bars) and all(abs(len(b[0])-30*int(b[1])/4)<=0.5 for b in bars)
sys.exit(0 if ok else 1)"
check "  ... ETA 0.0 s when the budget is reached" py "
sys.exit(0 if re.search(r'\] 4/4  elapsed [0-9.]+ s  ETA 0\.0 s ', t) else 1)"
check "  ... elapsed never decreases" py "
e=[float(x) for x in re.findall(r'\] [0-9]+/4  elapsed ([0-9.]+) s', t)]
sys.exit(0 if len(e)==4 and e==sorted(e) else 1)"
check "  ... each batch's table starts on its own line after the bar" py "
tables=re.findall(r'ETA [0-9.]+ s \r?\n\r?\n? ?ID \| Name', t)
sys.exit(0 if len(tables)==2 and t.count('Speed (GFLOPS)')==2 else 1)"
check "  ... the final summary, best trace and program still print" py "
u=t.replace('\r','')
ok=re.search(r'^tuned: 4 candidates measured', u, re.M) and '# best trace' in u and 'decision=' in u and '@T.prim_func' in u
sys.exit(0 if ok else 1)"
check "  ... no escape sequences (the bar is plain text and \\r)" py "sys.exit(0 if '\x1b' not in t else 1)"

# 2. The work folder's log.
log="$tmp/work/tune.log"
check "WORK_DIR/tune.log exists (work_dir, not the database's folder)" \
  test -s "$log" -a ! -e "$tmp/db/tune.log"
check "  ... a line per candidate, 1/4 .. 4/4" bash -c "
  test \"\$(grep -o '^candidate [0-9]*/4:' '$log' | tr '\n' ' ')\" = 'candidate 1/4: candidate 2/4: candidate 3/4: candidate 4/4: '"
check "  ... each batch's table: header and the matmul row with 2 then 4 trials" python3 -c "
import re,sys
t=open('$log').read()
rows=re.findall(r'^  0 \| matmul .*\| +([0-9]+) \| +(Y?)\$', t, re.M)
ok=t.count('Speed (GFLOPS)')==2 and [r[0] for r in rows]==['2','4'] and [r[1] for r in rows]==['','Y']
sys.exit(0 if ok else 1)"
check "  ... ends with the done line, no bar or \\r in it" bash -c "
  tail -1 '$log' | grep -q '^done: 4 measured, 0 failed' && ! grep -q \$'\r' '$log' && ! grep -q 'ETA' '$log'"

# 3. No terminal: pipes and files.
sed -e "s|db/t.db|db2/t.db|" -e "s|work_dir: work|work_dir: work2|" "$tmp/run.yaml" > "$tmp/pipe.yaml"
"$exe" tune "$tmp/pipe.yaml" 2>&1 | cat > "$tmp/out"; rc=${PIPESTATUS[0]}
check "through a pipe: exits 0" test "$rc" = 0
check "  ... no \\r, no escape sequence, no bar" bash -c "
  ! grep -q \$'[\r\x1b]' '$tmp/out' && ! grep -q 'ETA' '$tmp/out' && ! grep -q '\\[#' '$tmp/out'"
check "  ... the tables and the best trace still print" bash -c "
  test \"\$(grep -c 'Speed (GFLOPS)' '$tmp/out')\" = 2 && grep -q 'decision=' '$tmp/out'"

# 4. Only stderr decides: stdout to a file on a pty keeps the bar on the
# terminal and the file clean; stderr to a file means no bar at all.
sed -e "s|db/t.db|db3/t.db|" "$tmp/run.yaml" > "$tmp/split.yaml"
on_pty "$(q "$exe") tune $(q "$tmp/split.yaml") > $(q "$tmp/stdout.txt")"; rc=$?
check "stdout to a file, stderr a pty: exits 0, the bar on the terminal" bash -c "
  test $rc = 0 && grep -q 'ETA 0.0 s' '$tmp/tty'"
check "  ... the file has the tables and trace, no \\r or bar" bash -c "
  grep -q 'Speed (GFLOPS)' '$tmp/stdout.txt' && grep -q 'decision=' '$tmp/stdout.txt' &&
  ! grep -q \$'\r' '$tmp/stdout.txt' && ! grep -q 'ETA' '$tmp/stdout.txt'"
sed -e "s|db/t.db|db4/t.db|" "$tmp/run.yaml" > "$tmp/split2.yaml"
on_pty "$(q "$exe") tune $(q "$tmp/split2.yaml") 2> $(q "$tmp/stderr.txt")"; rc=$?
check "stderr to a file, stdout a pty: exits 0, no bar anywhere" bash -c "
  test $rc = 0 && grep -q 'Speed (GFLOPS)' '$tmp/tty' &&
  ! grep -q 'ETA' '$tmp/tty' '$tmp/stderr.txt' && ! grep -q \$'\r\\[' '$tmp/tty'"

# 5. --json on a pty: the table and bar go to stderr, stdout still ends
# with one parseable JSON object on its own line.
sed -e "s|db/t.db|db5/t.db|" "$tmp/run.yaml" > "$tmp/json.yaml"
on_pty "$(q "$exe") tune $(q "$tmp/json.yaml") --json"; rc=$?
check "--json on a pty: exits 0, bar drawn" bash -c "test $rc = 0 && grep -q 'ETA 0.0 s' '$tmp/tty'"
check "  ... the last line is the JSON object (4 trials)" py "
d=json.loads(t.replace('\r','').strip().splitlines()[-1])
sys.exit(0 if d['trials']==4 and d['best_seconds']>0 else 1)"

# 6. A resumed run on a pty has nothing to measure: no bar.
on_pty "$cmd"; rc=$?
check "a resume on a pty (nothing to measure): exits 0, no bar" bash -c "
  test $rc = 0 && grep -q '^tuned: 0 candidates measured' <(tr -d '\r' < '$tmp/tty') && ! grep -q 'ETA' '$tmp/tty'"

echo "1..$n"
exit $((failed > 0))
