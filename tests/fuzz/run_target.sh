#!/usr/bin/env bash
# Build one of the libFuzzer targets that link libtessel with clang and run it.
#   tests/fuzz/run_target.sh config|import|weights|passes|onnx [SECONDS] [extra flags...]
#   config  run configs: core/config instrumented; seeds corpus_config/,
#           configs/ and tests/config/cases/
#   import  `tessel db import`: core/db instrumented; seeds corpus_import/
#           (JSON lines exported from real tuning databases)
#   weights .npy/.npz/.safetensors readers: core/weights instrumented; seeds
#           corpus_weights/ (files NumPy and tessel wrote, hand-made ones)
#   passes  graph passes (convert_layout, legalize, fuse, fold_constant,
#           dce) and the compiled path's tsl_model_aot_build: core/passes and core/model
#           instrumented; seeds corpus_passes/, the models of tests/relax
#   onnx    `tessel import`: core/onnx instrumented (its onnx.proto compiled
#           by protoc-c); seeds corpus_onnx/ (models python3-onnx built,
#           tests/onnx/make_models.py)
# The rest comes from build/core/libtessel.so (run ./tessel build first).
# New inputs that add coverage are merged into the target's corpus.
# Needs clang-14, libclang-rt-14-dev, libyaml-dev, libsqlite3-dev, libjansson-dev,
# libzip-dev (onnx: libprotobuf-c-dev, protobuf-c-compiler).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
name="${1:?usage: run_target.sh config|import|weights|passes|onnx [SECONDS]}"; shift
secs="${1:-60}"; shift || true
case "$name" in
  config) srcs=("$root"/core/config/{config_load,config_set,config_validate,yaml_tree}.c)
          area=config; libs=(-lyaml); max_len=4096
          seeds=("$root/configs" "$root/tests/config/cases") ;;
  import) srcs=("$root"/core/db/*.c); area=db; libs=(-lsqlite3 -ljansson); max_len=16384
          seeds=() ;;
  weights) srcs=("$root"/core/weights/*.c); area=weights; libs=(-lzip -ljansson)
          max_len=16384; seeds=() ;;
  passes) srcs=("$root"/core/passes/*.c "$root"/core/model/*.c); area=passes; libs=(-ljansson)
          max_len=8192
          seeds=("$root/tests/relax/cases" "$root/tests/relax/passes" "$root/tests/relax/compiled"
                 "$root/workloads/models") ;;
  onnx) gen="$(mktemp -d /tmp/tessel-fuzz-onnx-XXXXXX)"
          protoc-c --proto_path="$root/core/onnx" --c_out="$gen" "$root/core/onnx/onnx.proto"
          srcs=("$root"/core/onnx/*.c "$gen/onnx.pb-c.c"); area=onnx; libs=(-lprotobuf-c -I"$gen")
          max_len=65536; seeds=() ;;
  *) echo "run_target.sh: unknown target '$name'; valid: config, import, weights, passes, onnx" >&2
     exit 2 ;;
esac
out="$root/tests/fuzz/out"
corpus="$root/tests/fuzz/corpus_$name"
lib="$root/build/core"
mkdir -p "$out/new_$name" "$corpus"
clang-14 -std=c17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -D_GNU_SOURCE -DTESSEL_ROOT="\"$root\"" -I"$root/core/include" -I"$root/core/$area" -I"$root/core/model" \
  "${srcs[@]}" "$root/tests/fuzz/fuzz_$name.c" -L"$lib" -Wl,-rpath,"$lib" -ltessel \
  "${libs[@]}" -lm -o "$out/fuzz_$name"
TESSEL_SOURCE_ROOT="$root" "$out/fuzz_$name" -max_total_time="$secs" -max_len="$max_len" \
  -timeout=10 -print_final_stats=1 -artifact_prefix="$out/" "$@" \
  "$out/new_$name" "$corpus" "${seeds[@]}"
"$out/fuzz_$name" -merge=1 "$corpus" "$out/new_$name" >/dev/null 2>&1 || true
rm -rf "$out/new_$name" /tmp/tessel-fuzz-"$name"-*
