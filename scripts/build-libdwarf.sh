#!/bin/sh
# build-libdwarf.sh [PREFIX]: builds the vendored upstream libdwarf 2.3.1
# (../shared/vendor/libdwarf-2.3.1) as a shared library into PREFIX (default
# build-libdwarf/prefix), so the suite can run a second time against the 2.x
# line that Homebrew ships.  Cached: nothing is rebuilt when PREFIX already
# holds this version's libdwarf.pc.  Where ../shared/vendor is absent it says
# "skipped: ..." and exits 0.  Prints the prefix on its last line.
set -eu
cd "$(dirname "$0")/.."
version=2.3.1
src=../shared/vendor/libdwarf-$version
prefix=${1:-build-libdwarf/prefix}
if [ ! -f "$src/CMakeLists.txt" ]; then
	echo "build-libdwarf: skipped: $src is absent (no ../shared/vendor)"
	exit 0
fi
case "$prefix" in /*) ;; *) prefix=$(pwd)/$prefix ;; esac
pc=""
for d in lib lib64; do
	[ -f "$prefix/$d/pkgconfig/libdwarf.pc" ] && pc=$prefix/$d/pkgconfig/libdwarf.pc
done
if [ -n "$pc" ] && grep -q "^Version: *$version\$" "$pc"; then
	echo "build-libdwarf: libdwarf $version already in $prefix (cached)"
	echo "$prefix"
	exit 0
fi
work=$(dirname "$prefix")/build
mkdir -p "$(dirname "$prefix")"
echo "build-libdwarf: building libdwarf $version into $prefix (about a minute)"
rm -rf "$work"
cmake -S "$src" -B "$work" -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_BUILD_TYPE=Release \
	-DCMAKE_INSTALL_LIBDIR=lib -DBUILD_DWARFDUMP=OFF -DBUILD_DWARFEXAMPLE=OFF \
	-DBUILD_SHARED=ON -DBUILD_NON_SHARED=OFF >"$work.log" 2>&1 ||
	{ cat "$work.log" >&2; exit 1; }
cmake --build "$work" -j2 >>"$work.log" 2>&1 || { tail -40 "$work.log" >&2; exit 1; }
cmake --install "$work" >>"$work.log" 2>&1 || { tail -40 "$work.log" >&2; exit 1; }
grep -q "^Version: *$version\$" "$prefix/lib/pkgconfig/libdwarf.pc" || {
	echo "build-libdwarf: $prefix/lib/pkgconfig/libdwarf.pc is not version $version" >&2
	exit 1
}
echo "build-libdwarf: done"
echo "$prefix"
