#!/usr/bin/env bash
# TAP test of `tessel plugins`: the table, --json, --path with files and
# folders, each loader error as exit 2 with its message, and that the test
# plugins export nothing but their entry.
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
exe="${TESSEL_EXE:?}"
pd="${TESSEL_TEST_PLUGIN_DIR:?}"
unset TESSEL_PLUGIN_PATH
# json_has PYTHON-EXPR: evaluates EXPR with d = the JSON array in $tmp/out
json_has() { python3 -c "import json,sys; d=json.load(open('$tmp/out')); sys.exit(0 if ($1) else 1)"; }

check "plugins exits 0" test "$(status "$exe" plugins)" = 0
check "  ... and prints a table header" grep -q '^KIND  *NAME  *VERSION  *ABI  *PATH$' "$tmp/out"
check "  ... listing the built-in intrinsics" grep -q "^intrin  *mma_4x4x4_f32  *[0-9.]*  *$tsl_abi  *built-in$" "$tmp/out"
check "plugins --json is an array with kind, name, version, abi, path" bash -c "
  '$exe' plugins --json > '$tmp/out' && python3 -c \"
import json; d = json.load(open('$tmp/out'))
assert isinstance(d, list) and d
for c in d: assert set(c) >= {'kind', 'name', 'version', 'abi', 'path'}, c
assert {'kind': 'intrin', 'name': 'vec_fma_4_f32'}.items() <= [c for c in d if c['name'] == 'vec_fma_4_f32'][0].items()
\""
check "the build tree's test plugins are not on the default path" bash -c "! grep -q tp_ok '$tmp/out'"
if ls "${TESSEL_BUILD_ROOT:?}"/targets/llvm/*.so >/dev/null 2>&1; then
  check "the build tree's llvm target is on the default path" json_has "any(c['kind']=='target' and c['name']=='llvm' and c['path'].startswith('$TESSEL_BUILD_ROOT/targets/llvm/') for c in d)"
else
  n=$((n + 1)); echo "ok $n - the build tree's llvm target is listed # SKIP not built"
fi
if [ -e "$TESSEL_BUILD_ROOT/plugins/cuda-wmma/tessel-cuda-wmma.so" ]; then
  check "the build tree's cuda-wmma plugin lists its 34 WMMA intrinsics" json_has "sorted(c['name'] for c in d if c['path']=='$TESSEL_BUILD_ROOT/plugins/cuda-wmma/tessel-cuda-wmma.so' and c['kind']=='intrin' and c['name'].startswith('wmma_') and c['summary'].startswith('WMMA 16x16x16')) == sorted(['wmma_load_16x16x16_' + t + '_' + m + s for t in ('f16', 's8') for m in ('a', 'b', 'a_trans', 'b_trans') for s in ('_shared', '_shared_dyn')] + ['wmma_fill_16x16x16_' + t for t in ('f32', 'f16', 's32')] + ['wmma_store_16x16x16_' + t + s for t in ('f32', 'f16', 's32') for s in ('_global', '_shared', '_shared_dyn')] + ['wmma_sync_16x16x16_f16f16' + t + s for t in ('f32', 'f16') for s in ('', '_trans')] + ['wmma_sync_16x16x16_s8s8s32' + s for s in ('', '_trans')])"
else
  n=$((n + 1)); echo "ok $n - the build tree's cuda-wmma plugin is listed # SKIP not built"
fi
if [ -e "$TESSEL_BUILD_ROOT/plugins/cuda-mma/tessel-cuda-mma.so" ]; then
  check "the build tree's cuda-mma plugin lists its 42 mma.sync / ldmatrix intrinsics" json_has "sorted(c['name'] for c in d if c['path']=='$TESSEL_BUILD_ROOT/plugins/cuda-mma/tessel-cuda-mma.so' and c['kind']=='intrin' and c['summary'].startswith('MMA ')) == sorted(['mma_ldmatrix_' + t + '_' + m + s for t in ('f16', 'bf16') for m in ('a', 'b', 'a_trans', 'b_trans') for s in ('', '_dyn')] + ['mma_' + p + tr for p in ('f16f16f32', 'f16f16f16', 'bf16bf16f32') for tr in ('', '_trans_a', '_trans_b', '_trans_a_trans_b')] + ['mma_fill_16x16_' + t for t in ('f32', 'f16')] + ['mma_store_16x16_' + t + '_' + s + '_' + x for t in ('f32', 'f16') for s in ('global', 'shared', 'shared_dyn') for x in ('', 'simple_')])"
else
  n=$((n + 1)); echo "ok $n - the build tree's cuda-mma plugin is listed # SKIP not built"
fi
check "--path FILE loads it" test "$(status "$exe" plugins --json --path "$pd/tp_ok.so")" = 0
check "  ... listing its strategy with version, ABI and path" json_has "any(c['kind']=='strategy' and c['name']=='tp.ok-strategy' and c['version']=='1.2.3' and c['abi']=='$tsl_abi' and c['path']=='$pd/tp_ok.so' for c in d)"
check "  ... and its intrin" json_has "any(c['kind']=='intrin' and c['name']=='tp_ok_add4' for c in d)"
check "--path given twice with one file lists it once" bash -c "'$exe' plugins --path '$pd/tp_ok.so' --path '$pd/tp_ok.so' | grep -c tp.ok-strategy | grep -qx 1"
check "the table shows the plugin's path" bash -c "'$exe' plugins --path '$pd/tp_ok.so' | grep -q '^strategy  *tp.ok-strategy  *1.2.3  *$tsl_abi  *$pd/tp_ok.so\$'"
check "a newer-minor plugin is listed with ABI 1.99" bash -c "'$exe' plugins --json --path '$pd/tp_minor.so' > '$tmp/out'"
check "  ... (json)" json_has "any(c['name']=='tp_minor_cost' and c['abi']=='1.99' and c['kind']=='cost_model' for c in d)"
mkdir "$tmp/folder"; ln -s "$pd/tp_ok.so" "$tmp/folder/b.so"; ln -s "$pd/tp_minor.so" "$tmp/folder/a.so"; touch "$tmp/folder/readme.txt"
check "--path FOLDER loads its *.so files" test "$(status "$exe" plugins --json --path "$tmp/folder")" = 0
check "  ... in name order" json_has "[c['name'] for c in d if c['path'].startswith('$tmp/folder/')] == ['tp_minor_cost', 'tp.ok-strategy', 'tp_ok_add4']"
check "TESSEL_PLUGIN_PATH is searched" bash -c "TESSEL_PLUGIN_PATH='$tmp/nowhere:$tmp/folder' '$exe' plugins | grep -q tp_minor_cost"

check "ABI major 2 exits 2" test "$(status "$exe" plugins --json --path "$pd/tp_abi2.so")" = 2
check "  ... naming the path and both versions" bash -c "grep -q '^tessel plugins: error: $pd/tp_abi2.so: plugin ABI 2.0 .*host.s ABI $tsl_abi' '$tmp/err'"
check "  ... printing nothing on stdout" test ! -s "$tmp/out"
check "no entry symbol exits 2" test "$(status "$exe" plugins --path "$pd/tp_noentry.so")" = 2
check "  ... naming the symbol" grep -q "tp_noentry.so: not a tessel plugin: it exports no 'tessel_plugin_init' symbol" "$tmp/err"
check "init failure exits 2" test "$(status "$exe" plugins --path "$pd/tp_initfail.so")" = 2
check "  ... with the plugin's message" grep -q "tp_initfail.so: plugin initialisation failed: tp_initfail: no device /dev/tp0" "$tmp/err"
check "duplicate name exits 2" test "$(status "$exe" plugins --path "$pd/tp_ok.so" --path "$pd/tp_dup.so")" = 2
check "  ... naming both plugins" grep -q "tp_dup.so: register_component: duplicate strategy 'tp.ok-strategy': already registered by $pd/tp_ok.so" "$tmp/err"
check "missing file exits 2" test "$(status "$exe" plugins --path "$tmp/none.so")" = 2
check "  ... with the OS reason" grep -q "$tmp/none.so: .*No such file or directory" "$tmp/err"
head -c 4096 /dev/urandom > "$tmp/x.so"
check "a file that is not a shared object exits 2" test "$(status "$exe" plugins --path "$tmp/x.so")" = 2
check "  ... saying so" grep -q "$tmp/x.so: cannot load plugin: not a loadable shared object" "$tmp/err"

check "--help exits 0 and shows usage" bash -c "'$exe' plugins --help | grep -q '^usage: tessel plugins'"
check "an unknown option exits 2" test "$(status "$exe" plugins --bogus)" = 2
check "  ... listing the valid options" grep -q "valid options: --json, --path" "$tmp/err"
check "--path without a value exits 2" test "$(status "$exe" plugins --path)" = 2
check "a stray argument exits 2" test "$(status "$exe" plugins foo)" = 2

if command -v nm >/dev/null; then
  check "a test plugin built with hidden visibility exports only its entry" bash -c "
    [ \"\$(nm -D --defined-only '$pd/tp_ok.so' | awk '\$2 ~ /^[TDBR]\$/ {print \$3}')\" = tessel_plugin_init ]"
else
  n=$((n + 1)); echo "ok $n - exported symbols # SKIP nm not installed"
fi
echo "1..$n"
[ "$failed" = 0 ]
