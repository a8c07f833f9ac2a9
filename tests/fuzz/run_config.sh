#!/usr/bin/env bash
# Build the libFuzzer run-config target with clang and run it.
#   tests/fuzz/run_config.sh [SECONDS] [extra libFuzzer flags...]
# The config sources (core/config) are compiled instrumented; the rest comes
# from build/core/libtessel.so (run ./tessel build first). Seeds: the
# committed corpus_config/, configs/ and tests/config/cases/. New inputs
# that add coverage are merged into corpus_config/.
# Needs clang-14, libclang-rt-14-dev and libyaml-dev.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
secs="${1:-60}"; shift || true
out="$root/tests/fuzz/out"
lib="$root/build/core"
mkdir -p "$out/new_config" "$root/tests/fuzz/corpus_config"
clang-14 -std=c17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -D_GNU_SOURCE -DTESSEL_ROOT="\"$root\"" -I"$root/core/include" -I"$root/core/config" \
  "$root"/core/config/{config_load,config_set,config_validate,yaml_tree}.c \
  "$root/tests/fuzz/fuzz_config.c" -L"$lib" -Wl,-rpath,"$lib" -ltessel -lyaml -lm \
  -o "$out/fuzz_config"
TESSEL_SOURCE_ROOT="$root" "$out/fuzz_config" -max_total_time="$secs" -max_len=4096 \
  -timeout=10 -print_final_stats=1 -artifact_prefix="$out/" "$@" \
  "$out/new_config" "$root/tests/fuzz/corpus_config" "$root/configs" "$root/tests/config/cases"
"$out/fuzz_config" -merge=1 "$root/tests/fuzz/corpus_config" "$out/new_config" >/dev/null 2>&1 || true
rm -rf "$out/new_config" /tmp/tessel-fuzz-config-*
