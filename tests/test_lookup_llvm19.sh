#!/bin/sh
# test_lookup_llvm19.sh: `kpbrowse lookup` prints exactly what
# `llvm-symbolizer-19 --inlining` prints for every __text instruction of the
# fixtures built by clang, ld64.lld and dsymutil 19 (fixtures/llvm19-dwarf5
# and llvm19-dwarf4, see fixtures/build.sh): every thin file, both slices of
# the universal file with --arch, and every object file (DWARF 5 objects keep
# the strx1/addrx/rnglistx/loclistx forms dsymutil rewrites); straight from
# DWARF, then through the symbol cache `kpbrowse cache build` writes (each
# dSYM's own: the universal file shares its slices' UUIDs with the thin ones).
#
# The addresses and llvm's answers are committed in oracle/ (build.sh writes
# them); where llvm-symbolizer-19 is installed its live answers are compared
# too, and where it is not those checks are skipped and counted.
#
# Then the same on DWARF that Apple's compilers, ld and dsymutil wrote
# (fixtures/apple; MANIFEST.tsv says where each file comes from, and names
# the variants derived from them and the hand-written one): every line-table
# row and every function symbol of each file, and every slice of universal
# files by --arch, straight from DWARF and through the symbol cache.
set -u
. "$KP_TESTS_DIR/tap.sh"
kp=$KPBROWSE
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sym=$(command -v llvm-symbolizer-19 || true)
[ -n "$sym" ] || [ ! -x /usr/lib/llvm-19/bin/llvm-symbolizer ] || sym=/usr/lib/llvm-19/bin/llvm-symbolizer

compare() { # label oracle-name dwarf [arch]
	addrs=$dir/oracle/$2.addrs want=$dir/oracle/$2.want
	n=$(wc -l <"$addrs" | tr -d ' ')
	"$kp" lookup --dsym "$3" ${4:+--arch $4} <"$addrs" >"$tmp/got" 2>"$tmp/err"
	if cmp -s "$want" "$tmp/got"; then
		_ok "$1: $n addresses, byte for byte as llvm-symbolizer-19"
	else
		_notok "$1: differs from llvm-symbolizer-19 over $n addresses"
		diff "$want" "$tmp/got" | head -20 | sed 's/^/# /'
		sed 's/^/# stderr: /' "$tmp/err" | head -5
	fi
}

all_fixtures() { # label-prefix
	for f in fakekernel.arm64 fakekernel.x86_64 fakekext.arm64 fakekext.x86_64; do
		compare "$1$f" $f "$bin/$f.dSYM/Contents/Resources/DWARF/$f"
	done
	for a in arm64 x86_64; do
		compare "${1}universal --arch $a" fakekext.universal.$a \
			"$bin/fakekext.universal.dSYM/Contents/Resources/DWARF/fakekext.universal" $a
	done
	for o in "$bin"/obj/*.o; do
		compare "$1obj/${o##*/}" "${o##*/}" "$o"
	done
}

for v in 5 4; do
	dir=$KP_FIXTURES/llvm19-dwarf$v bin=$dir/bin
	# the committed oracle is llvm-symbolizer-19's own answer
	if [ -n "$sym" ]; then
		stale=""
		for w in "$dir"/oracle/*.want; do
			name=${w##*/}
			name=${name%.want}
			case $name in
			fakekext.universal.*) a=${name##*.} obj=$bin/fakekext.universal.dSYM/Contents/Resources/DWARF/fakekext.universal ;;
			*.o) a="" obj=$bin/obj/$name ;;
			*) a="" obj=$bin/$name.dSYM/Contents/Resources/DWARF/$name ;;
			esac
			"$sym" --inlining --obj="$obj" ${a:+--default-arch=$a} <"${w%.want}.addrs" >"$tmp/live"
			cmp -s "$tmp/live" "$w" || stale="$stale $name"
		done
		check "${stale:-none}" = none "dwarf$v: committed oracle = live llvm-symbolizer-19"
	else
		skip "dwarf$v: llvm-symbolizer-19 absent: compared with the committed oracle only"
	fi
	# enough of what the fixtures are for is really there
	check "$(grep -c . "$dir/oracle/fakekext.arm64.addrs")" -gt 150 "dwarf$v: enough addresses"
	check_grep "fakeutil.h" "$dir/oracle/fakekext.arm64.want" "dwarf$v: header inlines in the oracle"
	check_grep "\.c:0:[1-9]" "$dir/oracle/fakekernel.arm64.want" "dwarf$v: line 0 in the oracle"

	export KPBROWSE_SYMCACHE=never
	all_fixtures "dwarf$v: "
	export KPBROWSE_SYMCACHE=always KPBROWSE_CACHE_DIR="$tmp/cache$v"
	all_fixtures "dwarf$v no cache yet: "
	check "$(ls "$tmp/cache$v/symcache" 2>/dev/null | grep -c '\.kpsym$')" = 0 "dwarf$v: lookups build no cache"
	"$kp" cache build "$bin" >"$tmp/built"
	check "$?" = 0 "dwarf$v: cache build"
	n=$(ls "$tmp/cache$v/symcache" 2>/dev/null | grep -c '\.kpsym$')
	check "$n" -ge 4 "dwarf$v: symbol caches written ($n)"
	for f in fakekernel.arm64 fakekernel.x86_64 fakekext.arm64 fakekext.x86_64; do
		"$kp" cache build "$bin/$f.dSYM" >/dev/null
		compare "dwarf$v symcache $f" $f "$bin/$f.dSYM/Contents/Resources/DWARF/$f"
	done
	"$kp" cache build "$bin/fakekext.universal.dSYM" >/dev/null
	for a in arm64 x86_64; do
		compare "dwarf$v symcache universal --arch $a" fakekext.universal.$a \
			"$bin/fakekext.universal.dSYM/Contents/Resources/DWARF/fakekext.universal" $a
	done
	"$kp" cache list >"$tmp/list"
	check "$(grep -c ' fresh ' "$tmp/list")" = 4 "dwarf$v: cache list: four fresh caches"
	unset KPBROWSE_SYMCACHE KPBROWSE_CACHE_DIR
done

# ---- Apple-built DWARF (fixtures/apple)
dir=$KP_FIXTURES/apple
# dwarf/NAME, whole; bin/NAME.ARCH: that slice of a universal file (--arch)
names="crash overlapping_funcs overlapping_funcs.empty-unit overlapping_funcs.cut-unit nest
libswiftDarwin.arm64 libswiftObjectiveC.armv7 CrashProbeiOS.arm64 CrashProbeiOS.armv7
PLCrashReporter.arm64 SentrySwift.arm64 Electron.x86_64"
slices="plcr-test.ios.armv7 plcr-test.ios.armv7s plcr-test.ios.arm64 plcr-test.macosx.x86_64
plcr-test.macosx.i386"

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
for f in $names; do compare "$f" $f "$dir/dwarf/$f"; done
for sa in $slices; do compare "--arch ${sa##*.}: ${sa%.*}" $sa "$dir/bin/${sa%.*}" ${sa##*.}; done
check_grep 'helperyS2iF' "$dir/oracle/nest.want" "nest: the oracle has the call inlined in a method inside a structure"
# a damaged unit is left out with one warning; the others answer
for f in overlapping_funcs.empty-unit overlapping_funcs.cut-unit; do
	"$kp" lookup --dsym "$dir/dwarf/$f" 0x100003f50 >/dev/null 2>"$tmp/err"
	check "$(grep -c 'warning: 1 DWARF unit left out' "$tmp/err")" = 1 "$f: one warning"
done
export KPBROWSE_SYMCACHE=always KPBROWSE_CACHE_DIR="$tmp/cache-apple"
# each built just before its lookups: overlapping_funcs' variants share a UUID
for f in $names; do
	"$kp" cache build "$dir/dwarf/$f" >/dev/null 2>"$tmp/err"
	check "$?" = 0 "$f: cache build"
	check "$("$kp" cache list | grep -c ' fresh ')" -ge 1 "$f: its cache is fresh"
	compare "symcache $f" $f "$dir/dwarf/$f"
done
# one per UUID: overlapping_funcs' two variants share its UUID
check "$(ls "$tmp/cache-apple/symcache" 2>/dev/null | grep -c '\.kpsym$')" = $(($(echo $names | wc -w) - 2)) \
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
KPBROWSE_SYMCACHE=never "$kp" lookup --dsym "$dir/dwarf/overlapping_funcs" 0x100003f50 >/dev/null 2>"$tmp/rawerr"
check "$(grep -c 'notice' "$tmp/rawerr")" = 0 "no libc++abi: no notice where no name is mangled (C)"
unset KPBROWSE_LIBCXXABI
done_testing
