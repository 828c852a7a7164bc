#!/bin/sh
# bench_symbols.sh [BUILD_DIR] [BIG_DIR]: kpbrowse's symbolication against
# llvm-symbolizer --inlining, same machine, same run, same inputs:
#  (a) one address in a fresh process, (b) a 20-frame thread over 20 CUs,
#  (c) 100k random addresses from stdin, (d) peak RSS of (c).
# Builds the big synthetic dSYM with gen_big_dsym.sh first if needed.
# Prints figures and ratios; asserts nothing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
big=${2:-${TMPDIR:-/tmp}/kpbrowse-bigdsym}
kp=$build/tui/kpbrowse
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
set -- $("$t" -n 7 "$kp" lookup --dsym "$dw" "$one"); a_kp=$1
set -- $("$t" -n 7 "$ll" --inlining --obj="$dw" "$one"); a_ll=$1
set -- $("$t" -n 7 "$kp" lookup --dsym "$dw" $(cat "$big/.twenty")); b_kp=$1
set -- $("$t" -n 7 "$ll" --inlining --obj="$dw" $(cat "$big/.twenty")); b_ll=$1
set -- $("$t" -n 3 -i "$big/.random" "$kp" lookup --dsym "$dw"); c_kp=$1 d_kp=$2
set -- $("$t" -n 3 -i "$big/.random" "$ll" --inlining --obj="$dw"); c_ll=$1 d_ll=$2
sym="$ll --inlining --obj=$dw"
"$kp" lookup --dsym "$dw" <"$big/.random" | md5sum >"$big/.kp.md5"
$sym <"$big/.random" | md5sum >"$big/.ll.md5"
same=$(cmp -s "$big/.kp.md5" "$big/.ll.md5" && echo identical || echo DIFFERENT)

ratio() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print('%.2fx' % (a/b if b else 0))" "$1" "$2"; }
printf '\n%-36s %12s %16s %10s\n' "" kpbrowse llvm-symbolizer "kp/llvm"
printf '%-36s %10s ms %13s ms %10s\n' "(a) 1 address, fresh process" "$a_kp" "$a_ll" "$(ratio "$a_kp" "$a_ll")"
printf '%-36s %10s ms %13s ms %10s\n' "(b) 20 frames over 20 CUs" "$b_kp" "$b_ll" "$(ratio "$b_kp" "$b_ll")"
printf '%-36s %10s ms %13s ms %10s\n' "(c) 100k random addresses" "$c_kp" "$c_ll" "$(ratio "$c_kp" "$c_ll")"
printf '%-36s %9s KiB %12s KiB %10s\n' "(d) peak RSS during (c)" "$d_kp" "$d_ll" "$(ratio "$d_kp" "$d_ll")"
printf '(c) output of the two tools: %s\n' "$same"
echo "targets: (a), (b) <= 0.5x; (c) <= 0.5x time (2x throughput); (d) <= 0.5x"
