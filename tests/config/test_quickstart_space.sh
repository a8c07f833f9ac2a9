#!/usr/bin/env bash
# TAP test of workloads/matmul_stochastic.sch, the design space of
# configs/quickstart.yaml: with several seeds `tessel schedule` draws
# different decisions, each scheduled program matches the original in the
# interpreter, and a drawn trace (decisions fixed) compiles and runs with
# the llvm target.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
exe="${TESSEL_EXE:?}"
src="${TESSEL_SOURCE_ROOT:?}"
mm="$src/workloads/matmul_128.py"
sch="$src/workloads/matmul_stochastic.sch"

for seed in 1 2 3 4 5 6; do
  check "seed $seed: schedule --check passes" test "$(status "$exe" schedule "$mm" "$sch" --seed "$seed" --check)" = 0
  check "seed $seed: the interpreter agrees" grep -q '^check: ok' "$tmp/err"
  "$exe" schedule "$mm" "$sch" --seed "$seed" --print trace >"$tmp/trace_$seed.sch" 2>/dev/null
  check "seed $seed: two sampled decisions in the trace" \
    test "$(grep -c 'sample_perfect_tile(.*decision=\[' "$tmp/trace_$seed.sch")" = 2
done
# the decisions differ between seeds (the space is stochastic)
distinct=$(for s in 1 2 3 4 5 6; do grep 'decision=' "$tmp/trace_$s.sch" | sed 's/.*decision=//' | tr -d '\n'; echo; done | sort -u | wc -l)
check "different seeds draw different decisions ($distinct distinct of 6)" test "$distinct" -ge 2

check "a drawn trace compiles and runs with llvm" \
  test "$(status "$exe" run "$mm" --schedule "$tmp/trace_1.sch" --threads 1 --repeat 1 --number 1)" = 0
check "  ... and its output matches the interpreter" grep -q '^  check: ok' "$tmp/out"

echo "1..$n"
[ "$failed" = 0 ]
