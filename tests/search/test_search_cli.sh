#!/usr/bin/env bash
# TAP test: `tessel plugins` lists the random strategy and cost model from
# the build tree, with kind, name, version, ABI and path.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
exe="${TESSEL_EXE:?}"
root="${TESSEL_BUILD_ROOT:?}"
unset TESSEL_PLUGIN_PATH
json_has() { python3 -c "import json,sys; d=json.load(open('$tmp/out')); sys.exit(0 if ($1) else 1)"; }

"$exe" plugins --json > "$tmp/out" 2> "$tmp/err"; rc=$?
check "plugins --json exits 0" test "$rc" = 0
check "  ... listing strategy random from strategies/random" json_has "any(c['kind']=='strategy' and c['name']=='random' and c['version']=='0.1.0' and c['abi']=='$tsl_abi' and c['path']=='$root/strategies/random/tessel-random-strategy.so' for c in d)"
check "  ... and cost_model random from plugins/random" json_has "any(c['kind']=='cost_model' and c['name']=='random' and c['version']=='0.1.0' and c['abi']=='$tsl_abi' and c['path']=='$root/plugins/random/tessel-random-cost-model.so' for c in d)"
"$exe" plugins > "$tmp/out" 2> "$tmp/err"
check "the table has a strategy line" grep -q "^strategy  *random  *0\.1\.0  *$tsl_abi " "$tmp/out"
check "  ... and a cost_model line" grep -q "^cost_model  *random  *0\.1\.0  *$tsl_abi " "$tmp/out"
for so in "$root/strategies/random/tessel-random-strategy.so" "$root/plugins/random/tessel-random-cost-model.so"; do
  check "$(basename "$so") exports only its entry" bash -c "test \"\$(nm -D --defined-only '$so' | awk '\$2 ~ /^[TDBR]\$/ {print \$3}' | grep -v '^_' | sort | tr '\n' ' ')\" = 'tessel_plugin_init '"
done
echo "1..$n"
exit $((failed > 0))
