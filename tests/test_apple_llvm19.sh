#!/bin/sh
# test_apple_llvm19.sh: `kpbrowse lookup` prints exactly what
# `llvm-symbolizer-19 --inlining` prints on DWARF that Apple's clang and
# dsymutil wrote (fixtures/apple, MANIFEST.tsv says where each file comes
# from): every line-table row and every function symbol of each file, straight
# from DWARF and then through the symbol cache.  oracle/NAME.addrs and
# NAME.want are llvm-symbolizer-19's answers, committed; where it is installed
# its live answers are compared too, else those checks are skipped, counted.
set -u
. "$KP_TESTS_DIR/tap.sh"
kp=$KPBROWSE
dir=$KP_FIXTURES/apple
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sym=$(command -v llvm-symbolizer-19 || true)
[ -n "$sym" ] || [ ! -x /usr/lib/llvm-19/bin/llvm-symbolizer ] || sym=/usr/lib/llvm-19/bin/llvm-symbolizer
# dwarf/NAME, whole; bin/NAME.ARCH: that slice of a universal file (--arch)
names="crash overlapping_funcs overlapping_funcs.empty-unit overlapping_funcs.cut-unit nest
libswiftDarwin.arm64 libswiftObjectiveC.armv7 CrashProbeiOS.arm64 CrashProbeiOS.armv7
PLCrashReporter.arm64 SentrySwift.arm64 Electron.x86_64"
slices="plcr-test.ios.armv7 plcr-test.ios.armv7s plcr-test.ios.arm64 plcr-test.macosx.x86_64
plcr-test.macosx.i386"

compare() { # label name [file arch]
	addrs=$dir/oracle/$2.addrs want=$dir/oracle/$2.want
	n=$(wc -l <"$addrs" | tr -d ' ')
	"$kp" lookup --dsym "${3:-$dir/dwarf/$2}" ${4:+--arch $4} <"$addrs" >"$tmp/got" 2>"$tmp/err"
	if cmp -s "$want" "$tmp/got"; then
		_ok "$1: $n addresses, byte for byte as llvm-symbolizer-19"
	else
		_notok "$1: differs from llvm-symbolizer-19 over $n addresses"
		diff "$want" "$tmp/got" | head -20 | sed 's/^/# /'
		sed 's/^/# stderr: /' "$tmp/err" | head -5
	fi
}

for f in $names; do
	check_grep "^dwarf/$f	" "$dir/MANIFEST.tsv" "$f: its source and licence in MANIFEST.tsv"
	check "$(grep -c . "$dir/oracle/$f.addrs")" -gt 2 "$f: addresses to compare"
	if [ -n "$sym" ]; then
		"$sym" --inlining --obj="$dir/dwarf/$f" <"$dir/oracle/$f.addrs" >"$tmp/live"
		check "$(cmp -s "$tmp/live" "$dir/oracle/$f.want" && echo same)" = same \
			"$f: committed oracle = live llvm-symbolizer-19"
	else
		skip "$f: llvm-symbolizer-19 absent: compared with the committed oracle only"
	fi
done

for sa in $slices; do
	f=${sa%.*} a=${sa##*.}
	check_grep "^bin/$f	" "$dir/MANIFEST.tsv" "$f: its source and licence in MANIFEST.tsv"
	if [ -n "$sym" ]; then
		"$sym" --inlining --obj="$dir/bin/$f" --default-arch=$a <"$dir/oracle/$sa.addrs" >"$tmp/live"
		check "$(cmp -s "$tmp/live" "$dir/oracle/$sa.want" && echo same)" = same \
			"$f --arch $a: committed oracle = live llvm-symbolizer-19"
	else
		skip "$f --arch $a: llvm-symbolizer-19 absent: compared with the committed oracle only"
	fi
done

export KPBROWSE_SYMCACHE=never
for f in $names; do compare "$f" $f; done
for sa in $slices; do compare "--arch ${sa##*.}: ${sa%.*}" $sa "$dir/bin/${sa%.*}" ${sa##*.}; done
check_grep 'helperyS2iF' "$dir/oracle/nest.want" "nest: the oracle has the call inlined in a method inside a structure"
# a damaged unit is left out with one warning; the others answer
for f in overlapping_funcs.empty-unit overlapping_funcs.cut-unit; do
	"$kp" lookup --dsym "$dir/dwarf/$f" 0x100003f50 >/dev/null 2>"$tmp/err"
	check "$(grep -c 'warning: 1 DWARF unit left out' "$tmp/err")" = 1 "$f: one warning"
done
export KPBROWSE_SYMCACHE=always KPBROWSE_CACHE_DIR="$tmp/cache"
# each built just before its lookups: overlapping_funcs' variants share a UUID
for f in $names; do
	"$kp" cache build "$dir/dwarf/$f" >/dev/null 2>"$tmp/err"
	check "$?" = 0 "$f: cache build"
	check "$("$kp" cache list | grep -c ' fresh ')" -ge 1 "$f: its cache is fresh"
	compare "symcache $f" $f
done
# one per UUID: overlapping_funcs' two variants share its UUID
check "$(ls "$tmp/cache/symcache" 2>/dev/null | grep -c '\.kpsym$')" = $(($(echo $names | wc -w) - 2)) \
	"symbol caches written"
# Xcode 8's dSYMs hold empty units of their own: left out, said once
KPBROWSE_SYMCACHE=never "$kp" lookup --dsym "$dir/dwarf/SentrySwift.arm64" 0 >/dev/null 2>"$tmp/err"
check_grep 'warning: 30 DWARF units left out' "$tmp/err" "SentrySwift: its 30 empty units left out, in one warning"

# Without libc++abi: one notice, the names left raw, the same through a cache
# written with LLVM's names (not used: stale) as straight from DWARF.
export KPBROWSE_LIBCXXABI=/nonexistent/libc++abi.so.1
"$kp" lookup --dsym "$dir/dwarf/crash" <"$dir/oracle/crash.addrs" >"$tmp/raw" 2>"$tmp/rawerr"
check "$(grep -c '^kpbrowse: notice: C++ names left mangled: cannot load libc++abi' "$tmp/rawerr")" = 1 \
	"no libc++abi: one notice"
check_grep '^_ZN15google_breakpad14ReadTaskMemory' "$tmp/raw" "no libc++abi: raw names"
KPBROWSE_SYMCACHE=never "$kp" lookup --dsym "$dir/dwarf/crash" <"$dir/oracle/crash.addrs" >"$tmp/raw2" 2>/dev/null
check "$(cmp -s "$tmp/raw" "$tmp/raw2" && echo same)" = same "no libc++abi: the same with the cache on and off"
unset KPBROWSE_LIBCXXABI
done_testing
