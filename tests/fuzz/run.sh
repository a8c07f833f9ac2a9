#!/usr/bin/env bash
# Build the libFuzzer parser target with clang and run it.
#   tests/fuzz/run.sh [SECONDS] [extra libFuzzer flags...]
# The corpus lives in tests/fuzz/corpus (seeded from every .py program in the
# repository); new interesting inputs are merged back into it, minimized.
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
# seed the corpus with every program the repository ships
for f in "$root"/workloads/*.py "$root"/tests/programs/*.py "$root"/tests/errors/cases/*.py; do
  [[ -f "$f" ]] && cp -n "$f" "$root/tests/fuzz/corpus/seed_$(basename "$f")" 2>/dev/null || true
done
"$out/fuzz_parse" -max_total_time="$secs" -max_len=8192 -timeout=10 \
  -dict="$root/tests/fuzz/tvmscript.dict" -print_final_stats=1 \
  -artifact_prefix="$out/" "$@" "$out/new" "$root/tests/fuzz/corpus"
# fold what was found into the committed corpus, minimized
"$out/fuzz_parse" -merge=1 "$root/tests/fuzz/corpus" "$out/new" >/dev/null 2>&1 || true
rm -rf "$out/new"
