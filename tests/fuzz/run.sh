#!/usr/bin/env bash
# Build the libFuzzer parser target with clang and run it.
#   tests/fuzz/run.sh [SECONDS] [extra libFuzzer flags...]
# The corpus lives in tests/fuzz/corpus; every .py program in the repository
# is a seed as well. New inputs that add coverage are merged into the corpus.
# Needs clang-14 and libclang-rt-14-dev (apt-get install -y clang-14 libclang-rt-14-dev).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
secs="${1:-60}"; shift || true
out="$root/tests/fuzz/out"
mkdir -p "$out/new"
srcs=()
for f in "$root"/core/ir/*.c; do
  case "$(basename "$f")" in interp*.c|tensor.c) continue ;; esac
  srcs+=("$f")
done
clang-14 -std=c17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -D_GNU_SOURCE -I"$root/core/include" -I"$root/core/ir" \
  "${srcs[@]}" "$root/tests/fuzz/fuzz_parse.c" -lm -o "$out/fuzz_parse"
# Corpus directories: new finds go to $out/new; the committed corpus and every
# program the repository ships are read as seeds (libFuzzer writes only to the
# first directory).
"$out/fuzz_parse" -max_total_time="$secs" -max_len=8192 -timeout=10 \
  -dict="$root/tests/fuzz/tvmscript.dict" -print_final_stats=1 \
  -artifact_prefix="$out/" "$@" "$out/new" "$root/tests/fuzz/corpus" \
  "$root/workloads" "$root/tests/programs" "$root/tests/errors/cases" \
  "$root/tests/relax/cases" "$root/tests/relax/errors"
# fold what was found into the committed corpus: only inputs that add coverage
"$out/fuzz_parse" -merge=1 "$root/tests/fuzz/corpus" "$out/new" >/dev/null 2>&1 || true
rm -rf "$out/new"
