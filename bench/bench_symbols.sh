#!/bin/sh
# bench_symbols.sh [BUILD_DIR] [BIG_DIR]: kpbrowse's symbolication against
# llvm-symbolizer --inlining, same machine, same run, same inputs:
#  (a) one address in a fresh process, (b) a 20-frame thread over 20 CUs,
#  (c) 100k random addresses from stdin, (d) peak RSS of (c); for kpbrowse
#  cold (symbol cache dir emptied: includes the one-time cache build) and
#  warm (answered from the cache), plus the cache's size and build time.
# Builds the big synthetic dSYM with gen_big_dsym.sh first if needed.
# Prints figures and ratios; asserts nothing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
big=${2:-${TMPDIR:-/tmp}/kpbrowse-bigdsym}
kp=$build/cli/kpbrowse
PATH=$PATH:/usr/lib/llvm-14/bin
[ -f "$big/big.dSYM/Contents/Resources/DWARF/big" ] || sh "$here/gen_big_dsym.sh" "$big"
dw=$big/big.dSYM/Contents/Resources/DWARF/big
printf 'DWARF file: %s (%s MB)\n' "$dw" $(( $(wc -c <"$dw") / 1000000 ))

t=$build/bench/timeit
[ -x "$t" ] || { echo "build it first: cmake --build $build --target bench" >&2; exit 2; }

llvm-nm "$big/big" | awk '$2 == "T" && $3 ~ /^_fn_[0-9]+_50$/ {print "0x" $1}' | head -20 >"$big/.twenty"
one=$(head -1 "$big/.twenty")
text=$(llvm-objdump --section-headers "$big/big" | awk '$2 == "__text" {print $3, $4}')
awk -v r="$text" 'BEGIN { split(r, a, " "); size = strtonum("0x" a[1]); base = strtonum("0x" a[2]); srand(7);
	for (i = 0; i < 100000; i++) printf "0x%x\n", base + int(rand() * size / 4) * 4 }' >"$big/.random" 2>/dev/null ||
	python3 -c "
import random,sys; s,b=sys.argv[1].split(); s=int(s,16); b=int(b,16); random.seed(7)
print('\n'.join('0x%x' % (b + random.randrange(s // 4) * 4) for _ in range(100000)))" "$text" >"$big/.random"

ll=$(command -v llvm-symbolizer)
# kpbrowse's symbol cache lives in a throwaway cache dir: "cold" empties it
# before every run (each run then includes the one-time cache build), "warm"
# runs answer from the cache the first cold run left.
cache=$(mktemp -d "${TMPDIR:-/tmp}/kpbrowse-bench-cache.XXXXXX")
trap 'rm -rf "$cache"' EXIT
export KPBROWSE_CACHE_DIR=$cache
unset KPBROWSE_SYMCACHE
cold() { # timeit args...: one run with an empty cache dir
	rm -rf "$cache/symcache"
	"$t" -n 1 "$@"
}
set -- $(cold "$kp" lookup --dsym "$dw" "$one"); a_cold=$1 build_kib=$2
build_ms=$a_cold
kpsym=$(ls "$cache"/symcache/*.kpsym 2>/dev/null | head -1)
cache_bytes=$( [ -n "$kpsym" ] && wc -c <"$kpsym" || echo 0)
set -- $(cold "$kp" lookup --dsym "$dw" $(cat "$big/.twenty")); b_cold=$1
set -- $(cold -i "$big/.random" "$kp" lookup --dsym "$dw"); c_cold=$1 d_cold=$2
# warm: the cache file is there (left by the last cold run)
set -- $("$t" -n 7 "$kp" lookup --dsym "$dw" "$one"); a_kp=$1
set -- $("$t" -n 7 "$ll" --inlining --obj="$dw" "$one"); a_ll=$1
set -- $("$t" -n 7 "$kp" lookup --dsym "$dw" $(cat "$big/.twenty")); b_kp=$1
set -- $("$t" -n 7 "$ll" --inlining --obj="$dw" $(cat "$big/.twenty")); b_ll=$1
set -- $("$t" -n 3 -i "$big/.random" "$kp" lookup --dsym "$dw"); c_kp=$1 d_kp=$2
set -- $("$t" -n 3 -i "$big/.random" "$ll" --inlining --obj="$dw"); c_ll=$1 d_ll=$2
# the DWARF path alone, for reference
set -- $(KPBROWSE_SYMCACHE=never "$t" -n 3 -i "$big/.random" "$kp" lookup --dsym "$dw"); c_dw=$1 d_dw=$2
sym="$ll --inlining --obj=$dw"
"$kp" lookup --dsym "$dw" <"$big/.random" | md5sum >"$big/.kp.md5"
KPBROWSE_SYMCACHE=never "$kp" lookup --dsym "$dw" <"$big/.random" | md5sum >"$big/.kpdw.md5"
$sym <"$big/.random" | md5sum >"$big/.ll.md5"
same=$(cmp -s "$big/.kp.md5" "$big/.ll.md5" && cmp -s "$big/.kpdw.md5" "$big/.ll.md5" && echo identical || echo DIFFERENT)

ratio() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print('%.2fx' % (a/b if b else 0))" "$1" "$2"; }
printf 'symbol cache: %s bytes (%s MB), built in %s ms (peak RSS %s KiB) by the first cold run\n' \
	"$cache_bytes" $((cache_bytes / 1000000)) "$build_ms" "$build_kib"
printf '\n%-32s %14s %14s %16s %9s %9s\n' "" "kpbrowse cold" "kpbrowse warm" llvm-symbolizer "warm/llvm" "cold/llvm"
printf '%-32s %11s ms %11s ms %13s ms %9s %9s\n' "(a) 1 address, fresh process" "$a_cold" "$a_kp" "$a_ll" "$(ratio "$a_kp" "$a_ll")" "$(ratio "$a_cold" "$a_ll")"
printf '%-32s %11s ms %11s ms %13s ms %9s %9s\n' "(b) 20 frames over 20 CUs" "$b_cold" "$b_kp" "$b_ll" "$(ratio "$b_kp" "$b_ll")" "$(ratio "$b_cold" "$b_ll")"
printf '%-32s %11s ms %11s ms %13s ms %9s %9s\n' "(c) 100k random addresses" "$c_cold" "$c_kp" "$c_ll" "$(ratio "$c_kp" "$c_ll")" "$(ratio "$c_cold" "$c_ll")"
printf '%-32s %10s KiB %10s KiB %12s KiB %9s %9s\n' "(d) peak RSS during (c)" "$d_cold" "$d_kp" "$d_ll" "$(ratio "$d_kp" "$d_ll")" "$(ratio "$d_cold" "$d_ll")"
printf '(c) without the cache (KPBROWSE_SYMCACHE=never): %s ms, %s KiB\n' "$c_dw" "$d_dw"
printf '(c) output of kpbrowse (cache and DWARF) and llvm-symbolizer: %s\n' "$same"
echo "targets (warm): (a), (b) <= 0.5x; (c) <= 0.5x time (2x throughput); (d) <= 0.5x"
