#!/usr/bin/env bash
# TAP: libtessel against the recorded baseline of its ABI major
# (core/abi/libtessel-MAJOR.abi, written by abidw from the release that
# opened the major; core/abi/README.md). abidiff (Debian's abigail-tools)
# compares every exported function and the types it reaches: a removed
# function or an incompatible change of a type (a field moved or resized,
# a parameter changed) fails, unless TSL_ABI_MAJOR moved and a new baseline
# was recorded; compatible changes (added functions, appended fields) are
# listed and pass.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
src="${TESSEL_SOURCE_ROOT:?}"
lib="${TESSEL_BUILD_ROOT:?}/core/libtessel.so"
major="$(sed -n 's/^#define TSL_ABI_MAJOR \([0-9]*\)$/\1/p' "$src/core/include/tessel/plugin.h")"
base="$src/core/abi/libtessel-$major.abi"
headers="$src/core/include/tessel"

check "TSL_ABI_MAJOR ($major) has its baseline core/abi/libtessel-$major.abi" test -s "$base"
check "abidiff is installed (abigail-tools)" command -v abidiff
rc="$(status abidiff --headers-dir1 "$headers" --headers-dir2 "$headers" "$base" "$lib")"
# abidiff's status: bit 1 error, 2 usage error, 4 an ABI change, 8 an
# incompatible one
check "abidiff ran (status $rc)" test $((rc & 3)) = 0
check "no incompatible change against ABI $major (abidiff: removed functions, changed types)" \
  test $((rc & 8)) = 0
if ((rc & 4)); then
  echo "# compatible changes against the baseline (record them with the next release):"
  sed 's/^/#   /' "$tmp/out" | head -40
fi
echo "1..$n"
