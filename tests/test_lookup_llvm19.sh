#!/bin/sh
# test_lookup_llvm19.sh: `kpbrowse lookup` prints exactly what
# `llvm-symbolizer-19 --inlining` prints for every __text instruction of the
# fixtures built by clang, ld64.lld and dsymutil 19 (fixtures/llvm19-dwarf5
# and llvm19-dwarf4, see fixtures/build.sh): every thin file, both slices of
# the universal file with --arch, and every object file (DWARF 5 objects keep
# the strx1/addrx/rnglistx/loclistx forms dsymutil rewrites); straight from
# DWARF, then through the symbol cache as it is built and as it is read back.
#
# The addresses and llvm's answers are committed in oracle/ (build.sh writes
# them); where llvm-symbolizer-19 is installed its live answers are compared
# too, and where it is not those checks are skipped and counted.
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
	all_fixtures "dwarf$v symcache build: "
	all_fixtures "dwarf$v symcache warm: "
	n=$(ls "$tmp/cache$v/symcache" 2>/dev/null | grep -c '\.kpsym$')
	check "$n" -ge 4 "dwarf$v: symbol caches written ($n)"
	unset KPBROWSE_SYMCACHE KPBROWSE_CACHE_DIR
done
done_testing
