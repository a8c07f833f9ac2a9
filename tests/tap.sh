# tests/tap.sh — what every bash TAP test sources first:
#   . "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
# It gives a scratch folder $tmp (removed at exit), the case counter n and
# the failure count `failed`, and:
#   check NAME COMMAND...  one case: "ok N - NAME" when COMMAND succeeds,
#                          else "not ok" and tap_show_failure
#   status COMMAND...      runs COMMAND with stdout in $tmp/out and stderr in
#                          $tmp/err, and prints its exit status
#   skip NAME WHY          one skipped case
#   tap_show_failure       prints the tails of $tmp/out and $tmp/err as TAP
#                          comments; a test may redefine it
#   $tap_light             1 in the light (sanitizer) pass
#                          (TESSEL_TEST_LIGHT=1, tests/meson.build), where
#                          a test repeats its checks less; else 0
#   $tsl_abi               the plugin ABI of the source tree ("1.1"), as
#                          `tessel plugins` prints it
# The plan ("1..N") is printed by the test at its end.
set -u
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
n=0; failed=0
tap_light=0; [ "${TESSEL_TEST_LIGHT:-}" = 1 ] && tap_light=1
tap_show_failure() {
  local f
  for f in out err; do sed "s/^/# $f: /" "$tmp/$f" 2>/dev/null | tail -20; done
}
check() {
  local name="$1"; shift
  n=$((n + 1))
  if "$@"; then echo "ok $n - $name"
  else echo "not ok $n - $name"; failed=$((failed + 1)); tap_show_failure; fi
}
status() { "$@" >"$tmp/out" 2>"$tmp/err"; echo $?; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP ${2:-}"; }
h="${TESSEL_SOURCE_ROOT:-$(dirname "${BASH_SOURCE[0]}")/..}/core/include/tessel/plugin.h"
tsl_abi="$(sed -n 's/^#define TSL_ABI_MAJOR \([0-9]*\)$/\1/p' "$h").$(sed -n 's/^#define TSL_ABI_MINOR \([0-9]*\)$/\1/p' "$h")"
unset h
