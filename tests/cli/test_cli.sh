#!/usr/bin/env bash
# TAP test of the `tessel` executable: verbs, exit codes, --json, --help.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
exe="${TESSEL_EXE:?}"
data="${TESSEL_SOURCE_ROOT:?}/tests/cli/data"

check "fmt exits 0" test "$(status "$exe" fmt "$data/mm.py")" = 0
cp "$tmp/out" "$tmp/mm_fmt.py"
check "fmt output starts with the TVMScript header" grep -q "^# from tvm.script import tir as T" "$tmp/mm_fmt.py"
check "fmt output parses and is idempotent" bash -c "'$exe' fmt '$tmp/mm_fmt.py' | cmp -s - '$tmp/mm_fmt.py'"
check "fmt of the old spelling parses" test "$(status "$exe" fmt "$data/mm_old.py")" = 0
check "fmt reads stdin" bash -c "'$exe' fmt - < '$data/mm.py' | cmp -s - '$tmp/mm_fmt.py'"
check "fmt --json is one JSON object with the text" bash -c "'$exe' fmt '$data/mm.py' --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"text\"].startswith(\"# from tvm\")'"
check "eq on two spellings of one program exits 0" test "$(status "$exe" eq "$data/mm.py" "$data/mm_old.py")" = 0
check "eq on different programs exits 1" test "$(status "$exe" eq "$data/mm.py" "$data/mm_k16.py")" = 1
check "eq names the first difference with its path" grep -q "extent" "$tmp/out"
check "eq --json reports equal=false and the difference" bash -c "'$exe' eq '$data/mm.py' '$data/mm_k16.py' --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"equal\"] is False and d[\"difference\"]'"
sed 's/^def main(/def renamed(/' "$data/mm.py" > "$tmp/renamed.py"
check "eq compares lone functions whatever their names" test "$(status "$exe" eq "$data/mm.py" "$tmp/renamed.py")" = 0
check "eq with one file is a usage error (2)" test "$(status "$exe" eq "$data/mm.py")" = 2
check "eval exits 0" test "$(status "$exe" eval "$data/mm.py" --seed 7)" = 0
cp "$tmp/out" "$tmp/eval1"
check "eval prints a checksum for the output C only" bash -c "grep -q '  C: float32\[32, 32\] sum=' '$tmp/eval1' && ! grep -q '  A:' '$tmp/eval1'"
"$exe" eval "$data/mm_old.py" --seed 7 | sed 1d > "$tmp/eval_old"
check "eval is deterministic and agrees across spellings" bash -c "sed 1d '$tmp/eval1' | sed 's/^  [A-Z]:/  X:/' > '$tmp/a'; sed 's/^  [A-Z]:/  X:/' '$tmp/eval_old' > '$tmp/b'; cmp -s '$tmp/a' '$tmp/b'"
check "eval with another seed changes the checksum" bash -c "! '$exe' eval '$data/mm.py' --seed 8 | cmp -s - '$tmp/eval1'"
check "eval --json has outputs with sum and hash" bash -c "'$exe' eval '$data/mm.py' --json | python3 -c 'import json,sys; d=json.load(sys.stdin); o=d[\"outputs\"]; assert len(o)==1 and o[0][\"name\"]==\"C\" and o[0][\"shape\"]==[32,32] and len(o[0][\"hash\"])==16'"
check "eval of a symbolic shape without --set is a usage error" test "$(status "$exe" eval "$data/sym.py")" = 2
check "  ... and the message says how to bind it" grep -q -- "--set m=" "$tmp/err"
check "eval with --set m=8 runs" test "$(status "$exe" eval "$data/sym.py" --set m=8)" = 0
check "eval --func with an unknown name lists the functions" bash -c "'$exe' eval '$data/mm.py' --func nope 2>&1 >/dev/null | grep -q 'functions: main'"
check "eval --seed rejects non-numbers" test "$(status "$exe" eval "$data/mm.py" --seed x)" = 2
check "a syntax error exits 2" test "$(status "$exe" fmt "$data/bad.py")" = 2
check "  ... with file:line:col: error:" grep -q "bad.py:3:[0-9]*: error:" "$tmp/err"
check "a missing file exits 2 with the OS reason" bash -c "'$exe' fmt /nonexistent.py 2>&1 >/dev/null | grep -q 'No such file'"
printf 'b = sch.get_block("C")\ni, j, k = sch.get_loops(b)\nv = sch.sample_perfect_tile(j, n=2, max_innermost_factor=8)\nj0, j1 = sch.split(j, v)\nsch.reorder(i, j0, k, j1)\n' > "$tmp/s.sch"
check "schedule exits 0" test "$(status "$exe" schedule "$data/mm.py" "$tmp/s.sch")" = 0
check "  ... and prints the scheduled program" bash -c "grep -q 'for i, j_0, k, j_1 in T.grid' '$tmp/out' && '$exe' fmt '$tmp/out' >/dev/null 2>&1 || '$exe' fmt - < '$tmp/out' >/dev/null"
check "schedule --check reports ok on stderr" bash -c "'$exe' schedule '$data/mm.py' '$tmp/s.sch' --check 2>&1 >/dev/null | grep -q '^check: ok (3072 values compared'"
printf 'b = sch.get_block("B")\n' > "$tmp/noop.sch"
check "schedule --check catches a parallel loop that races (exit 1)" test "$(status "$exe" schedule "$data/racy.py" "$tmp/noop.sch" --check)" = 1
check "  ... shown by the shuffled order" grep -q "check: mismatch: buffer B differs .*shuffled, seed 0: a loop whose iterations are not independent" "$tmp/err"
"$exe" schedule "$data/mm.py" "$tmp/s.sch" --print trace --seed 5 > "$tmp/trace.sch"
check "schedule --print trace prints a script with decisions" grep -q "sample_perfect_tile(loop=l2, n=2, max_innermost_factor=8, decision=\[" "$tmp/trace.sch"
check "  ... which replays to the same program whatever the seed" bash -c "cmp -s <('$exe' schedule '$data/mm.py' '$tmp/s.sch' --seed 5) <('$exe' schedule '$data/mm.py' '$tmp/trace.sch' --seed 99)"
check "schedule --print json is one JSON object with insts and decisions" bash -c "'$exe' schedule '$data/mm.py' '$tmp/s.sch' --print json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d[\"insts\"])==5 and d[\"decisions\"][0][0]==2'"
printf 'b = sch.get_block("C")\n\ni, j, k = sch.get_loops(b)\nsch.split(j, [None, None])\n' > "$tmp/bad.sch"
check "a failing primitive exits 2" test "$(status "$exe" schedule "$data/mm.py" "$tmp/bad.sch")" = 2
check "  ... with SCRIPT:LINE: error: <primitive>: <reason>" grep -q "bad.sch:4: error: split: " "$tmp/err"
intr="$data/intrin"
check "schedule registers the intrinsics of the script's folder (intrin__NAME__desc/impl.py)" test "$(status "$exe" schedule "$intr/dot.py" "$intr/dot.sch")" = 0
check "  ... tensorize uses it, the impl's .data / .elem_offset read its match_buffers" grep -q 'T.call_extern("int32", "dot4", C_1.data, C_1.elem_offset, A_1.data, A_1.elem_offset, B_1.data, B_1.elem_offset)' "$tmp/out"
check "  ... whose offsets are variables (offset_factor=1, no elem_offset)" grep -q 'C_1 = T.match_buffer(C\[vi_o\], (), offset_factor=1)' "$tmp/out"
check "  ... and the result reads back unchanged" bash -c "'$exe' fmt - < '$tmp/out' | cmp -s - '$tmp/out'"
mkdir -p "$tmp/intr_bad"
cp "$intr"/* "$tmp/intr_bad/"
sed -i 's/T.evaluate(T.call_extern(/T.evaluate(T.call_extern((/' "$tmp/intr_bad/intrin__dot4__impl.py"
check "a malformed intrinsic file exits 2" test "$(status "$exe" schedule "$intr/dot.py" "$tmp/intr_bad/dot.sch")" = 2
check "  ... with its file:line:col: error:" grep -q "intr_bad/intrin__dot4__impl.py:11:[0-9]*: error:" "$tmp/err"
rm "$tmp/intr_bad/intrin__dot4__impl.py"
check "an intrinsic without its implementation file exits 2" test "$(status "$exe" schedule "$intr/dot.py" "$tmp/intr_bad/dot.sch")" = 2
check "  ... naming the file" grep -q "intr_bad/intrin__dot4__impl.py" "$tmp/err"
check "schedule without SCRIPT is a usage error" test "$(status "$exe" schedule "$data/mm.py")" = 2
check "schedule --print rejects other values" test "$(status "$exe" schedule "$data/mm.py" "$tmp/s.sch" --print nope)" = 2
for verb in fmt eq eval schedule; do
  check "$verb --help exits 0 and shows usage" bash -c "'$exe' $verb --help | grep -q '^usage: tessel $verb'"
  check "$verb rejects an unknown option with exit 2" test "$(status "$exe" $verb --bogus)" = 2
done
wl="${TESSEL_SOURCE_ROOT:?}/workloads"
check "space prints the sketches of the default rules" test "$(status "$exe" space "$wl/softmax.py" --num-cores 2)" = 0
check "  ... as traces with decisions, the root annotated for 2 cores (9 sketches, as TVM's)" bash -c "grep -q '^# sketch 1 of 9' '$tmp/out' && grep -q 'meta_schedule.parallel\", ann_val=32' '$tmp/out' && grep -q 'sample_categorical(.*decision=' '$tmp/out'"
awk '/^# sketch 2 of/{exit} !/^#/' "$tmp/out" | sed '${/^$/d}' > "$tmp/sk.sch"
check "  ... which run as a schedule script" bash -c "'$exe' schedule '$wl/softmax.py' '$tmp/sk.sch' --check > /dev/null 2>&1"
check "space --json gives {sketches: [{trace}]} with the same text" bash -c "'$exe' space '$wl/softmax.py' --num-cores 2 --json | python3 -c 'import json,sys; d=json.load(sys.stdin); s=d[\"sketches\"]; assert len(s)==9 and s[0][\"trace\"]==open(\"$tmp/sk.sch\").read(), s[0]'"
check "space is deterministic per seed and differs across seeds" bash -c "a=\$('$exe' space '$wl/layer_norm.py' --seed 1); b=\$('$exe' space '$wl/layer_norm.py' --seed 1); [ \"\$a\" = \"\$b\" ] && for s in 2 3 4 5 6 7 8; do [ \"\$('$exe' space '$wl/layer_norm.py' --seed \$s)\" != \"\$a\" ] && exit 0; done; exit 1"
check "space --postproc runs the default postprocessors on each sketch" bash -c "'$exe' space '$wl/matmul_128.py' --num-cores 2 --postproc > '$tmp/pp' && [ \$(grep -c '^sch.enter_postproc()' '$tmp/pp') = 3 ] && grep -q '^sch.parallel(' '$tmp/pp' && grep -q 'sch.decompose_reduction(' '$tmp/pp'"
awk '/^# sketch 2 of/{exit} !/^#/' "$tmp/pp" | sed '${/^$/d}' > "$tmp/pp1.sch"
check "  ... and the postprocessed trace runs as a script and computes the matmul" bash -c "'$exe' schedule '$wl/matmul_128.py' '$tmp/pp1.sch' --check > /dev/null 2>&1"
check "space --rule applies the rules given instead of the defaults (MultiLevelTiling alone, without write reuse: 1 sketch, its options)" bash -c "'$exe' space '$wl/matmul_128.py' --num-cores 2 --rule 'MultiLevelTiling;structure=SSRSRS;max_innermost_factor=8;reuse_write_req=no' > '$tmp/r' && grep -q '^# sketch 1 of 1' '$tmp/r' && grep -q 'n=4, max_innermost_factor=8' '$tmp/r' && ! grep -q 'meta_schedule.parallel' '$tmp/r'"
check "  ... an unknown rule exits 2, naming the registered ones" bash -c "[ \"\$('$exe' space '$wl/matmul_128.py' --rule Bogus 2>&1 >/dev/null | grep -c 'valid schedule_rule names: .*MultiLevelTiling')\" = 1 ]"
check "  ... an option that is not KEY=VALUE exits 2, saying so" bash -c "'$exe' space '$wl/matmul_128.py' --rule 'AutoInline;x' 2>&1 >/dev/null | grep -q \"option 'x' is not KEY=VALUE\""
check "space with an unknown target exits 2" test "$(status "$exe" space "$wl/softmax.py" --target nosuch)" = 2
check "  ... naming the registered targets" grep -q "llvm" "$tmp/err"
check "space --num-cores 0 is a usage error naming the range" bash -c "[ \"\$('$exe' space '$wl/softmax.py' --num-cores 0 2>&1 >/dev/null)\" != '' ] && ! '$exe' space '$wl/softmax.py' --num-cores 0 2>/dev/null"
check "an unknown verb exits 2" test "$(status "$exe" frob)" = 2
check "  ... and lists the verbs" grep -q "valid verbs are: fmt eq eval schedule" "$tmp/err"
check "--version prints the version" bash -c "'$exe' --version | grep -q '^tessel [0-9]'"
echo "1..$n"
exit $((failed > 0))
