#!/usr/bin/env bash
# Build the libFuzzer `db import` target with clang and run it.
#   tests/fuzz/run_import.sh [SECONDS] [extra libFuzzer flags...]
# core/db is compiled instrumented; the rest comes from
# build/core/libtessel.so (run ./tessel build first). Seeds: the committed
# corpus_import/ (JSON lines exported from real tuning databases). New
# inputs that add coverage are merged into corpus_import/.
# Needs clang-14, libclang-rt-14-dev, libsqlite3-dev and libjansson-dev.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
secs="${1:-60}"; shift || true
out="$root/tests/fuzz/out"
lib="$root/build/core"
mkdir -p "$out/new_import" "$root/tests/fuzz/corpus_import"
clang-14 -std=c17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -D_GNU_SOURCE -I"$root/core/include" -I"$root/core/db" \
  "$root"/core/db/*.c "$root/tests/fuzz/fuzz_import.c" \
  -L"$lib" -Wl,-rpath,"$lib" -ltessel -lsqlite3 -ljansson -lm -o "$out/fuzz_import"
"$out/fuzz_import" -max_total_time="$secs" -max_len=16384 -timeout=10 -print_final_stats=1 \
  -artifact_prefix="$out/" "$@" "$out/new_import" "$root/tests/fuzz/corpus_import"
"$out/fuzz_import" -merge=1 "$root/tests/fuzz/corpus_import" "$out/new_import" >/dev/null 2>&1 || true
rm -rf "$out/new_import" /tmp/tessel-fuzz-import-*
