#!/bin/sh
# test-libdwarf2.sh: the whole suite a second time, against upstream libdwarf
# 2.3.1 (the line Homebrew ships) built by build-libdwarf.sh into a private
# prefix, in its own build folder (build-ldw2).  Fails unless kpbrowse was
# configured with that libdwarf and ldd resolves it to the prefix.  Skipped
# (exit 0, with a line saying so) where ../shared/vendor is absent.
set -eu
cd "$(dirname "$0")/.."
out=$(sh scripts/build-libdwarf.sh)
echo "$out"
case "$out" in *skipped:*) exit 0 ;; esac
prefix=$(echo "$out" | tail -n 1)
build=${KP_BUILD_DIR:-build-ldw2}
PKG_CONFIG_PATH=$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PKG_CONFIG_PATH LD_LIBRARY_PATH
# the same leg encodes a kernelcache afresh with Apple's `lzfse` command
# (../shared/vendor) for test_kernelcache; kpbrowse decodes it itself
lz=$(sh scripts/build-lzfse.sh | tail -n 1)
case "$lz" in
/*)
	LD_LIBRARY_PATH=$lz/lib:$LD_LIBRARY_PATH
	PATH=$lz/bin:$PATH
	export PATH
	;;
esac
# a cached configuration of another libdwarf would survive a plain re-run
if [ -f "$build/CMakeCache.txt" ] && ! grep -q "^LIBDWARF_PREFIX:INTERNAL=$prefix\$" "$build/CMakeCache.txt"; then
	rm -rf "$build"
fi
KP_BUILD_DIR=$build sh scripts/test.sh
grep -q "^LIBDWARF_VERSION:INTERNAL=2\.3\.1\$" "$build/CMakeCache.txt" || {
	echo "test-libdwarf2: FAILED: $build was not configured with libdwarf 2.3.1" >&2
	exit 1
}
bin=$(find "$build" -type f -name kpbrowse -perm -u+x | head -n 1)
[ -n "$bin" ] || { echo "test-libdwarf2: FAILED: no kpbrowse binary under $build" >&2; exit 1; }
got=$(ldd "$bin" | awk '$1 ~ /^libdwarf\./ { print $3 }')
case "$got" in
"$prefix"/lib/libdwarf.so*) echo "test-libdwarf2: $bin uses $got" ;;
*)
	echo "test-libdwarf2: FAILED: $bin is linked to '${got:-no libdwarf}', not $prefix/lib" >&2
	ldd "$bin" >&2
	exit 1
	;;
esac
