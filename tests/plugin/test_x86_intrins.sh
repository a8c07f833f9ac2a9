#!/usr/bin/env bash
# TAP test: the x86 plugin's tensor intrinsics (dot_16x4_vnni,
# dot_16x4_avx512, dot_16x4_avx2, dot_16x2_bf16_avx512, and the AMX ones
# dot_16x16x64_amx, dot_32x32x256_amx and their bfloat16 twins, run on this
# CPU's AMX where it has it and on the emulator everywhere:
# TESSEL_AMX_EMULATE),
# MultiLevelTilingWithIntrin and the llvm target's DefaultX86 space. Each
# intrinsic tensorizes a packed dense layer and the program runs, checked
# against the interpreter, where this CPU has its features; where it does
# not, the llvm target refuses the intrinsic by name (TESSEL_LLVM_MCPU=
# x86-64-v3, or x86-64-v2 for the AVX2 one, pretends so everywhere).
# The default space uses the intrinsic the CPU features allow, or none.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
exe="${TESSEL_EXE:?}"
src="${TESSEL_SOURCE_ROOT:?}"
d="$src/tests/plugin/x86"
unset TESSEL_PLUGIN_PATH TESSEL_LLVM_MCPU
i8="$src/workloads/dense_int8_packed.py"
bf="$src/workloads/dense_bf16_packed.py"
flags=$(grep -m1 '^flags' /proc/cpuinfo)
has() { for f in "$@"; do [[ " $flags " == *" $f "* ]] || return 1; done; }

check "tessel plugins lists the eight intrinsics of tessel-x86.so" bash -c "
  '$exe' plugins | grep -E '^intrin +(dot_16x4_vnni|dot_16x4_avx512|dot_16x4_avx2|dot_16x2_bf16_avx512|dot_16x16x64_amx|dot_16x16x32_bf16_amx|dot_32x32x256_amx|dot_32x32x128_bf16_amx) .*tessel-x86.so$' | wc -l | grep -qx 8"

# intrinsic, workload, schedule, the LLVM intrinsic it calls, /proc/cpuinfo flags, LLVM feature,
# a CPU without that feature, the vector lanes of one call
for row in "dot_16x4_vnni $i8 16x4 llvm.x86.avx512.vpdpbusd.512 avx512_vnni,avx512bw avx512vnni x86-64-v3 16" \
           "dot_16x4_avx512 $i8 16x4 llvm.x86.avx512.pmaddw.d.512 avx512bw avx512f x86-64-v3 16" \
           "dot_16x4_avx2 $i8 16x4 llvm.x86.avx2.pmadd.wd avx2 avx2 x86-64-v2 8" \
           "dot_16x2_bf16_avx512 $bf 16x2 llvm.x86.avx512bf16.dpbf16ps.512 avx512_bf16,avx512bw avx512bf16 x86-64-v3 16"; do
  set -- $row
  sed "s/INTRIN/$1/" "$d/tensorize_$3.sch" > "$tmp/$1.sch"
  check "$1: tensorize exits 0" test "$(status "$exe" schedule "$2" "$tmp/$1.sch")" = 0
  check "  ... the tile is T.call_llvm_pure_intrin on $8-lane slices of the matched buffers, all 16 lanes" \
    bash -c "for l in \$(seq 0 $8 15); do grep -qE \"^ +C_1\\[T.Ramp\\(\$l, 1, $8\\)\\] = .*T.call_llvm_pure_intrin\\(\" '$tmp/out' || exit 1; done"
  check "  ... naming $4" grep -qF "\"$4\"" "$tmp/out"
  check "  ... and the program reads back unchanged" bash -c "'$exe' fmt - < '$tmp/out' | cmp -s - '$tmp/out'"
  if has ${5//,/ }; then
    check "$1: runs on this CPU and agrees with the interpreter" \
      bash -c "'$exe' run '$2' --schedule '$tmp/$1.sch' 2>&1 | grep -q '^  check: ok (interp reference'"
  else
    check "$1: this CPU lacks ${5//,/ and }: the llvm target refuses the call by name (exit 2)" \
      test "$(status "$exe" run "$2" --schedule "$tmp/$1.sch")" = 2
    check "  ... saying which feature is missing" grep -q "needs .*, which the target's CPU" "$tmp/err"
  fi
  check "$1: an $7 target refuses it: $4 needs $6" \
    test "$(TESSEL_LLVM_MCPU=$7 status "$exe" run "$2" --schedule "$tmp/$1.sch")" = 2
  check "  ... with the message naming the feature and the CPU" \
    grep -q "error: build: llvm codegen: T.call_llvm_pure_intrin: $4 needs $6, which the target's CPU ($7) does not have" "$tmp/err"
done

# A bfloat16 operand loaded from memory reaches vdpbf16ps as loaded: no
# round trip through float lanes (widen, then narrow back with
# vcvtneps2bf16), which halved the bf16 dense layer's speed.
if has avx512_bf16 avx512bw && command -v objdump > /dev/null; then
  sed "s/INTRIN/dot_16x2_bf16_avx512/" "$d/tensorize_16x2.sch" > "$tmp/bf.sch"
  check "the tensorized bfloat16 dense layer exports (tessel build)" \
    test "$(status "$exe" build "$bf" --schedule "$tmp/bf.sch" -o "$tmp/libbf.so")" = 0
  objdump -d --no-show-raw-insn "$tmp/libbf.so" > "$tmp/bf.s" 2>/dev/null
  check "  ... its code calls vdpbf16ps" grep -q 'vdpbf16ps' "$tmp/bf.s"
  check "  ... on its operands as loaded (no vcvtneps2bf16 narrowing them back)" \
    bash -c "! grep -q 'vcvtneps2bf16' '$tmp/bf.s'"
else
  for what in "the tensorized bfloat16 dense layer exports" "  ... its code calls vdpbf16ps" \
              "  ... on its operands as loaded"; do
    skip "$what" "this CPU lacks AVX-512 BF16 (or objdump is missing)"
  done
fi

# AMX tiles: each intrinsic tensorizes a packed dense layer by hand, and the
# program runs (serially, and with its row loop parallel on 2 threads, each
# thread configuring its own tiles) and agrees with the interpreter: on this
# CPU's AMX where it has it, on the emulator (tests/plugin/x86/amx_emu.c)
# everywhere.
emu="${TESSEL_AMX_EMU_LIB:?}"
# intrinsic, workload, KT, instruction, /proc/cpuinfo flag, A's bytes, MT, C's first tile
for row in "dot_16x16x64_amx $i8 64 tdpbusd amx_int8 1 16 0" \
           "dot_16x16x32_bf16_amx $bf 32 tdpbf16ps amx_bf16 2 16 0" \
           "dot_32x32x256_amx $d/dense_int8_k512.py 256 tdpbusd amx_int8 1 32 4" \
           "dot_32x32x128_bf16_amx $d/dense_bf16_k256.py 128 tdpbf16ps amx_bf16 2 32 4"; do
  set -- $row
  sed "s/INTRIN/$1/;s/KT/$3/;s/MT/$7/g" "$d/tensorize_amx.sch" > "$tmp/$1.sch"
  sed 's/^b10 = sch.blockize/sch.parallel(loop=l4)\nb10 = sch.blockize/' "$tmp/$1.sch" > "$tmp/$1_par.sch"
  check "$1: tensorize exits 0" test "$(status "$exe" schedule "$2" "$tmp/$1.sch")" = 0
  a=$(( $8 ? 4 : 1 )); b=$(( $8 ? 6 : 2 ))
  check "  ... C loaded, $4, C stored, each at its buffer's row stride" bash -c "
    grep -qF '\"llvm.x86.tileloadd64\", T.uint32(0), T.int8(0), T.address_of(C_1[0, 0]), T.Cast(\"int64\", sc) * T.int64(4)' '$tmp/out' &&
    grep -qF '\"llvm.x86.tileloadd64\", T.uint32(0), T.int8($a), T.address_of(A_1[0, ' '$tmp/out' &&
    grep -qF 'T.Cast(\"int64\", sa) * T.int64($6)' '$tmp/out' &&
    grep -qF '\"llvm.x86.$4\", T.uint32(0), T.int8(0), T.int8($a), T.int8($b)' '$tmp/out' &&
    grep -qF '\"llvm.x86.tilestored64\", T.uint32(0), T.int8(0), T.address_of(C_1[0, 0])' '$tmp/out'"
  if [ "$8" = 4 ]; then
    check "  ... four tiles of C, loaded once and stored once around a loop of 4 steps" bash -c "
      test \$(grep -c 'llvm.x86.tilestored64' '$tmp/out') = 4 && test \$(grep -c 'llvm.x86.$4' '$tmp/out') = 4 &&
      grep -q '^ *for ko in range(4):' '$tmp/out'"
  fi
  if has amx_tile $5; then
    check "$1: runs on this CPU's AMX and agrees with the interpreter" \
      bash -c "'$exe' run '$2' --schedule '$tmp/$1.sch' 2>&1 | grep -q '^  check: ok (interp reference'"
    check "  ... parallel on 2 threads too" \
      bash -c "'$exe' run '$2' --schedule '$tmp/$1_par.sch' --threads 2 2>&1 | grep -q '^  check: ok (interp reference'"
  else
    check "$1: this CPU lacks AMX: the llvm target refuses the tiles by name (exit 2)" \
      test "$(status "$exe" run "$2" --schedule "$tmp/$1.sch")" = 2
    check "  ... saying amx-tile is missing" grep -q "llvm.x86.tileloadd64 needs amx-tile, which the target's CPU" "$tmp/err"
  fi
  check "$1: on the emulator, agrees with the interpreter" \
    bash -c "TESSEL_AMX_EMULATE='$emu' '$exe' run '$2' --schedule '$tmp/$1.sch' 2>&1 | grep -q '^  check: ok (interp reference'"
  check "  ... parallel on 2 threads too" \
    bash -c "TESSEL_AMX_EMULATE='$emu' '$exe' run '$2' --schedule '$tmp/$1_par.sch' --threads 2 2>&1 | grep -q '^  check: ok (interp reference'"
done

check "a function using tiles after a parallel loop of tile calls runs on the emulator, 2 threads (it configures them again after the loop)" \
  test "$(TESSEL_AMX_EMULATE="$emu" status "$exe" run "$src/tests/llvm/amx_tiles.py" --threads 2 --check none)" = 0

# MultiLevelTilingWithIntrin in the llvm target's default space
space() { "$exe" space "$1" --num-cores 2 --cpu-features "$2" > "$tmp/sp" 2>"$tmp/err" && grep -o 'ann_val="dot_[a-z0-9_]*"' "$tmp/sp" | sort -u | tr '\n' ' '; }
out=$(space "$i8" avx2,fma,avx512f,avx512bw,avx512vl,avx512vnni)
check "a CPU with VNNI: the int8 dense layer's sketches use dot_16x4_vnni" test "$out" = 'ann_val="dot_16x4_vnni" '
check "  ... in 3 sketches (write cache none, at level 1, at level 2)" test "$(grep -c '^# sketch' "$tmp/sp")" = 3
out=$(space "$i8" avx2,fma,avx512f,avx512bw,avx512vl)
check "AVX-512 without VNNI: dot_16x4_avx512 (TVM's DefaultX86(\"avx512\"))" test "$out" = 'ann_val="dot_16x4_avx512" '
out=$(space "$i8" avx2,fma)
check "AVX2 only: dot_16x4_avx2 (the X86 list, where TVM has DefaultLLVM)" test "$out" = 'ann_val="dot_16x4_avx2" '
out=$(space "$i8" sse4.2)
check "SSE4.2 only: no intrinsic, DefaultLLVM's space" test -z "$out"
check "  ... whose sketches tile the plain block (MultiLevelTiling)" grep -q 'ann_val="SSRSRS"' "$tmp/sp"
out=$(space "$bf" avx2,fma,avx512f,avx512bw,avx512vl,avx512bf16)
check "AVX-512 BF16: the bfloat16 dense layer uses dot_16x2_bf16_avx512" test "$out" = 'ann_val="dot_16x2_bf16_avx512" '
out=$(space "$bf" avx2,fma,avx512f,avx512bw,avx512vl,avx512vnni)
check "  ... without AVX-512 BF16 it does not" test -z "$out"
out=$(space "$i8" avx2,fma,avx512f,avx512bw,avx512vl,avx512vnni,amx-tile,amx-int8)
check "AMX-INT8: the int8 dense layer's sketches use dot_16x16x64_amx, before VNNI (K = 128: too short for 2 x 2 tiles of 256 steps)" test "$out" = 'ann_val="dot_16x16x64_amx" '
out=$(space "$d/dense_int8_k512.py" avx2,fma,avx512f,avx512bw,avx512vl,avx512vnni,amx-tile,amx-int8)
check "  ... with K = 512, dot_32x32x256_amx first" test "$out" = 'ann_val="dot_32x32x256_amx" '
out=$(space "$d/dense_bf16_k256.py" avx2,fma,avx512f,avx512bw,avx512vl,avx512bf16,amx-tile,amx-bf16)
check "  ... and the bfloat16 one with K = 256, dot_32x32x128_bf16_amx" test "$out" = 'ann_val="dot_32x32x128_bf16_amx" '
out=$(space "$i8" avx2,fma,avx512f,avx512bw,avx512vl,avx512vnni,amx-tile,amx-bf16)
check "  ... not without amx-int8" test "$out" = 'ann_val="dot_16x4_vnni" '
out=$(space "$bf" avx2,fma,avx512f,avx512bw,avx512vl,avx512bf16,amx-tile,amx-bf16)
check "AMX-BF16: the bfloat16 dense layer's use dot_16x16x32_bf16_amx" test "$out" = 'ann_val="dot_16x16x32_bf16_amx" '
check "  ... and the postprocessors tensorize every sketch" bash -c "
  '$exe' space '$bf' --num-cores 2 --cpu-features avx2,avx512f,avx512bw,avx512bf16,amx-tile,amx-bf16 --postproc > '$tmp/pp' &&
  ! grep -q rejected '$tmp/pp' && test \$(grep -c 'sch.tensorize(block_or_loop=.*tensor_intrin=\"dot_16x16x32_bf16_amx\"' '$tmp/pp') = 3"
out=$(space "$src/workloads/matmul_128.py" avx2,fma,avx512f,avx512bw,avx512vl,avx512vnni,avx512bf16)
check "a float32 matmul: no intrinsic applies" test -z "$out"
check "the postprocessors keep every VNNI sketch (RewriteTensorize tensorizes them)" bash -c "
  '$exe' space '$i8' --num-cores 2 --cpu-features avx512f,avx512bw,avx512vl,avx512vnni --postproc > '$tmp/pp' &&
  ! grep -q rejected '$tmp/pp' && test \$(grep -c 'sch.tensorize(block_or_loop=.*tensor_intrin=\"dot_16x4_vnni\"' '$tmp/pp') = 3"
check "  ... and vectorize the init loop (vectorize_init_loop)" grep -q 'sch.vectorize(' "$tmp/pp"

g="$src/tests/plugin/x86/conv2d_nchwc_vnni.sketch"
"$exe" space "$src/bench/space/conv2d_nchwc_int8.py" --num-cores 4 --cpu-features all \
  --rule 'MultiLevelTilingWithIntrin;intrin_name=dot_16x4_vnni' > "$tmp/conv.sketch" 2>"$tmp/err"
[ -n "${TESSEL_UPDATE_GOLDEN:-}" ] && cp "$tmp/conv.sketch" "$g"
check "the NCHWc int8 conv's MultiLevelTilingWithIntrin sketches as in tests/plugin/x86/conv2d_nchwc_vnni.sketch" cmp -s "$tmp/conv.sketch" "$g"

check "MultiLevelTilingWithIntrin without intrin_name: exit 2" test "$(status "$exe" space "$i8" --rule 'MultiLevelTilingWithIntrin')" = 2
check "  ... saying it is required, with an example" grep -q "MultiLevelTilingWithIntrin: intrin_name is required: a tensor intrinsic, e.g. dot_16x4_vnni" "$tmp/err"
check "an unknown intrinsic: exit 2" test "$(status "$exe" space "$i8" --rule 'MultiLevelTilingWithIntrin;intrin_name=dot_16x4_nope')" = 2
check "  ... naming it and what the x86 plugin registers" grep -q "no tensor intrinsic named 'dot_16x4_nope' is registered (the x86 plugin registers dot_16x4_vnni, dot_16x4_avx512, dot_16x4_avx2" "$tmp/err"
check "in a list, an unknown name is skipped for the next" bash -c "
  '$exe' space '$i8' --num-cores 2 --cpu-features all --rule 'MultiLevelTilingWithIntrin;intrin_name=dot_16x4_nope,dot_16x4_avx512' | grep -q 'ann_val=\"dot_16x4_avx512\"'"

# the builtins: located parse errors and the llvm target's refusals
check "T.reinterpret between sizes: exit 2" test "$(status "$exe" fmt "$d/bad_reinterpret.py")" = 2
check "  ... located, with both sizes" grep -q "bad_reinterpret.py:4:16: error: T.reinterpret from uint8x4 (32 bits) to int64 (64 bits)" "$tmp/err"
check "an intrinsic name without llvm.: exit 2" test "$(status "$exe" fmt "$d/bad_name.py")" = 2
check "  ... located at the name" grep -q 'bad_name.py:4:55: error: the LLVM intrinsic must be a name starting with "llvm."' "$tmp/err"
check "num_signature beyond the arguments: exit 2" test "$(status "$exe" fmt "$d/bad_signature.py")" = 2
check "  ... located at it" grep -q 'bad_signature.py:4:87: error: num_signature must be a constant from 0 to 3' "$tmp/err"
call() { sed "s|CALL|$1|" "$d/call.py" > "$tmp/call.py"; status "$exe" run "$tmp/call.py"; }
check "an unknown LLVM intrinsic: exit 2" test "$(call 'T.call_llvm_pure_intrin("int32x16", "llvm.x86.nope", T.uint32(0), A[0:16])')" = 2
check "  ... LLVM 19 has no intrinsic named it" grep -q "LLVM 19 has no intrinsic named llvm.x86.nope" "$tmp/err"
check "an overloaded intrinsic: refused, saying so" bash -c "
  sed 's|CALL|T.call_llvm_pure_intrin(\"int32x16\", \"llvm.smax.v16i32\", T.uint32(2), A[0:16], A[0:16])|' '$d/call.py' > '$tmp/c2.py' &&
  '$exe' run '$tmp/c2.py' 2>&1 | grep -q 'llvm.smax.v16i32 is overloaded'"
check "arguments of the wrong type: refused with both types (an SSE2 intrinsic, on every x86-64)" bash -c "
  sed 's|CALL|T.call_llvm_pure_intrin(\"int32x16\", \"llvm.x86.sse2.pmadd.wd\", T.uint32(2), A[0:16], A[0:16])|' '$d/call.py' > '$tmp/c3.py' &&
  '$exe' run '$tmp/c3.py' 2>&1 | grep -q 'llvm.x86.sse2.pmadd.wd takes argument 1 of type <8 x i16>, given <16 x i32>'"
check "another architecture's intrinsic: refused" bash -c "
  sed 's|CALL|T.call_llvm_pure_intrin(\"int32x16\", \"llvm.aarch64.neon.sdot\", T.uint32(0), A[0:16])|' '$d/call.py' > '$tmp/c4.py' &&
  '$exe' run '$tmp/c4.py' 2>&1 | grep -q 'llvm.aarch64.neon.sdot is another architecture'"
check "the interpreter refuses the vector program (exit 2)" test "$(status "$exe" eval "$tmp/call.py")" = 2
check "  ... saying it runs scalar programs only" grep -q "the interpreter does not support vector dtype int32x16" "$tmp/err"

# a tuning run from the bare program uses the intrinsic this CPU has
cat > "$tmp/t.yaml" <<YAML
workload:
  file: $i8
target:
  kind: llvm
  threads: 1
strategy:
  kind: evolutionary
  trials: 8
  batch: 8
cost_model:
  kind: random
runner:
  number: 1
  repeat: 1
  min_repeat_ms: 1
  remeasure: 2
database: $tmp/t.db
seed: 1
YAML
if has avx512_vnni avx512bw; then want=dot_16x4_vnni; elif has avx512bw avx512f; then want=dot_16x4_avx512
elif has avx2; then want=dot_16x4_avx2; else want=; fi
check "tune the int8 dense layer for 8 trials: exit 0" test "$(status "$exe" tune "$tmp/t.yaml")" = 0
check "  ... its candidates ran and agreed with the reference" bash -c "! grep -q 'no candidate ran successfully' '$tmp/out' && grep -q '(0 failed)' '$tmp/out'"
if [ -n "$want" ]; then
  check "  ... tensorized with $want, what this CPU has" grep -q "ann_val=\"$want\"" "$tmp/out"
else
  check "  ... with no intrinsic on this CPU (DefaultLLVM)" bash -c "! grep -q 'auto_tensorize' '$tmp/out'"
fi

# The space follows the target's CPU, not the host's: the tuner takes the
# features the target reports (tsl_target_vtable.cpu_features).
sed -e "s|  kind: llvm|  kind: llvm\n  mcpu: x86-64-v2|" -e "s|$tmp/t.db|$tmp/t2.db|" "$tmp/t.yaml" > "$tmp/t2.yaml"
check "tune for an SSE4.2 target (mcpu x86-64-v2) on any host: exit 0" test "$(status "$exe" tune "$tmp/t2.yaml")" = 0
check "  ... no intrinsic in its space, none failed" bash -c "! grep -q 'auto_tensorize' '$tmp/out' && grep -q '(0 failed)' '$tmp/out'"
# On the emulator the host has AMX: tuning from the bare program tensorizes
# with the tiles, and every candidate agrees with the reference.
for w in "$i8 dot_16x16x64_amx" "$d/dense_int8_k512.py dot_32x32x256_amx"; do
  set -- $w
  sed -e "s|$tmp/t.db|$tmp/t3_$2.db|" -e "s|threads: 1|threads: 2|" -e "s|file: $i8|file: $1|" "$tmp/t.yaml" > "$tmp/t3.yaml"
  check "tune $(basename "$1") on the AMX emulator for 8 trials: exit 0" \
    test "$(TESSEL_AMX_EMULATE="$emu" status "$exe" tune "$tmp/t3.yaml")" = 0
  check "  ... tensorized with $2" grep -q "ann_val=\"$2\"" "$tmp/out"
  check "  ... its candidates ran and agreed with the reference" bash -c "! grep -q 'no candidate ran successfully' '$tmp/out' && grep -q '(0 failed)' '$tmp/out'"
done

echo "1..$n"
exit $((failed > 0))
