#!/usr/bin/env bash
# TAP test: `meson install` into a temporary DESTDIR, then build a plugin (and
# a host program) out of tree with only the flags of the installed tessel.pc,
# and load the plugin with `tessel plugins` and through the installed library.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
. "$(dirname "${BASH_SOURCE[0]}")/installed.sh"
src="${TESSEL_SOURCE_ROOT:?}/tests/plugin/out_of_tree"
exe="${TESSEL_EXE:?}"
cc="${CC:-cc}"
finish() { echo "1..$n"; [ "$failed" = 0 ]; exit $?; }

installed_tessel || finish
check "the public headers are installed" test -n "$(find "$dest" -path '*/include/tessel/plugin.h')"
check "pkg-config gives -I and -L into the install and -ltessel ($flags)" \
  bash -c "[[ ' $flags ' == *' -I$dest/'* && ' $flags ' == *' -L$dest/'* && ' $flags ' == *' -ltessel '* ]]"
check "tessel.pc names the plugin folder" bash -c "pkg-config --variable=plugindir tessel | grep -q '/tessel/plugins\$'"

cp "$src/plugin.c" "$src/host.c" "$tmp/"
check "the plugin compiles with pkg-config flags only" \
  bash -c "cd '$tmp' && $cc -std=c17 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden -o oot.so plugin.c $flags"
[ -f "$tmp/oot.so" ] || finish
if command -v nm >/dev/null; then
  check "  ... exporting only tessel_plugin_init" \
    bash -c "[ \"\$(nm -D --defined-only '$tmp/oot.so' | awk '\$2 ~ /^[TDBR]\$/ {print \$3}')\" = tessel_plugin_init ]"
fi
check "tessel plugins --path lists it" \
  bash -c "TESSEL_PLUGIN_PATH= '$exe' plugins --json --path '$tmp/oot.so' > '$tmp/out'"
check "  ... its intrin and schedule rule with version, ABI and path" python3 -c "
import json; d = json.load(open('$tmp/out'))
mine = [(c['kind'], c['name'], c['version'], c['abi'], c['path']) for c in d if c['path'] == '$tmp/oot.so']
assert mine == [('intrin', 'oot_scale4', '0.3.0', '$tsl_abi', '$tmp/oot.so'), ('schedule_rule', 'oot.rule', '0.3.0', '$tsl_abi', '$tmp/oot.so')], mine"

check "a host program compiles against the installed library" \
  bash -c "cd '$tmp' && $cc -std=c17 -Wall -Werror -o host host.c $flags"
preload=""
if ldd "$lib" 2>/dev/null | grep -q libasan; then
  # a sanitized build: the ASan runtime has to come first in the host
  preload="$($cc -print-file-name=libasan.so)"
fi
check "  ... which loads the plugin through the installed libtessel, parses its intrinsic and derives a space with its rule" \
  env LD_LIBRARY_PATH="$(dirname "$lib")" LD_PRELOAD="$preload" \
  TESSEL_PLUGIN_PATH= "$tmp/host" "$tmp/oot.so"
check "  ... the installed library, not the build's" \
  bash -c "LD_LIBRARY_PATH='$(dirname "$lib")' ldd '$tmp/host' | grep -q ' => $dest/'"
finish
