# tests/plugin/installed.sh — sourced after tap.sh by the tests that build
# against an installed tessel: `installed_tessel` runs `meson install` of the
# build into $tmp/dest (three checks), then points pkg-config at the
# installed tessel.pc alone. It sets $dest, $pc (the .pc file), $lib
# (libtessel.so) and $flags (`pkg-config --cflags --libs tessel`), and
# returns 1 when there is nothing to build against.
installed_tessel() {
  dest="$tmp/dest"
  check "meson install --destdir succeeds" \
    bash -c "meson install -C '${TESSEL_BUILD_ROOT:?}' --destdir '$dest' --no-rebuild --quiet > '$tmp/install.log' 2>&1 || { cat '$tmp/install.log'; exit 1; }"
  pc="$(find "$dest" -name tessel.pc | head -n 1)"
  check "tessel.pc is installed" test -n "$pc"
  lib="$(find "$dest" -name 'libtessel.so' | head -n 1)"
  check "libtessel.so is installed" test -n "$lib"
  [ -n "$pc" ] && [ -n "$lib" ] || return 1
  # Only the installed tessel.pc: PKG_CONFIG_LIBDIR replaces the default
  # search path, the sysroot maps its /usr/local/... paths into the DESTDIR.
  export PKG_CONFIG_LIBDIR="$(dirname "$pc")" PKG_CONFIG_PATH="" PKG_CONFIG_SYSROOT_DIR="$dest"
  flags="$(pkg-config --cflags --libs tessel)"
}
