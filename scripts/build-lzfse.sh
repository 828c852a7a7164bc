#!/bin/sh
# build-lzfse.sh [PREFIX]: builds Apple's reference LZFSE (../shared/vendor/
# lzfse-1.0, BSD-3-Clause; Debian has no package, Homebrew's is `lzfse`) as a
# shared library and the `lzfse` command into PREFIX (default
# build-lzfse/prefix): the oracle kpbrowse's own decoder (core/macho/
# lzfse.c) is checked against (check-lzfse.sh, make-lzfse-fixtures.sh,
# bench/bench_lzfse.sh, test_kernelcache's fresh encode); never linked.
# Cached: nothing is rebuilt when PREFIX holds it.  Where ../shared/vendor is
# absent it says "skipped: ..." and exits 0.  Prints the prefix last.
set -eu
cd "$(dirname "$0")/.."
src=../shared/vendor/lzfse-1.0
prefix=${1:-build-lzfse/prefix}
if [ ! -f "$src/CMakeLists.txt" ]; then
	echo "build-lzfse: skipped: $src is absent (no ../shared/vendor)"
	exit 0
fi
case "$prefix" in /*) ;; *) prefix=$(pwd)/$prefix ;; esac
if [ -f "$prefix/include/lzfse.h" ] && [ -x "$prefix/bin/lzfse" ]; then
	echo "build-lzfse: lzfse already in $prefix (cached)"
	echo "$prefix"
	exit 0
fi
work=$(dirname "$prefix")/build
rm -rf "$work"
mkdir -p "$work"
cmake -S "$src" -B "$work" -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib \
	-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON >/dev/null
cmake --build "$work" -j2 >/dev/null
cmake --install "$work" >/dev/null
echo "build-lzfse: built into $prefix"
echo "$prefix"
