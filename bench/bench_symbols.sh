#!/bin/sh
# bench_symbols.sh [BUILD_DIR] [BIG_DIR]: kpbrowse's symbolication against
# llvm-symbolizer-19 --inlining and llvm-gsymutil-19, same machine, same run,
# same inputs, on the big synthetic dSYM (gen_big_dsym.sh, built first if
# needed):
#  cold (each kpbrowse run with its own empty cache folder: the answer comes
#  straight from the DWARF, no cache is built on the way):
#   (a) one address in a fresh process, (b) a 20-frame thread over 20 CUs;
#  cache build: `kpbrowse cache build` (a thread per core on a file this large;
#   7 rounds alternating with gsymutil)
#   vs `llvm-gsymutil-19 --convert` (every core): time, output size, peak
#   RSS;
#  warm (answered from the cache): (a), (b), (c) 100k random addresses from
#   stdin, (d) peak RSS of (c);
#  batch (nothing set, empty cache folder): (e) the 100k addresses, which
#   builds the cache on a side thread, (f) the same again, and its peak RSS.
# Prints figures (median, and min-max where several runs matter), the
# ratios against issue 35's targets and the load average before and after
# (the machine may be shared: each ratio is of two tools in the same run);
# asserts nothing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
big=${2:-${TMPDIR:-/tmp}/kpbrowse-bigdsym}
kp=$build/cli/kpbrowse
PATH=$PATH:/usr/lib/llvm-19/bin:/usr/lib/llvm-14/bin
[ -f "$big/big.dSYM/Contents/Resources/DWARF/big" ] || sh "$here/gen_big_dsym.sh" "$big"
dw=$big/big.dSYM/Contents/Resources/DWARF/big
printf 'DWARF file: %s (%s MB)\n' "$dw" $(( $(wc -c <"$dw") / 1000000 ))
load0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime | sed 's/.*average[s]*: //')

t=$build/bench/timeit
[ -x "$t" ] || { echo "build it first: cmake --build $build --target bench" >&2; exit 2; }
ll=$(command -v llvm-symbolizer-19 || command -v llvm-symbolizer)
gs=$(command -v llvm-gsymutil-19 || command -v llvm-gsymutil)
nm=$(command -v llvm-nm-19 || command -v llvm-nm)
od=$(command -v llvm-objdump-19 || command -v llvm-objdump)

"$nm" "$big/big" | awk '$2 == "T" && $3 ~ /^_fn_[0-9]+_50$/ {print "0x" $1}' | head -20 >"$big/.twenty"
one=$(head -1 "$big/.twenty")
text=$("$od" --section-headers "$big/big" | awk '$2 == "__text" {print $3, $4}')
python3 -c "
import random,sys; s,b=sys.argv[1].split(); s=int(s,16); b=int(b,16); random.seed(7)
print('\n'.join('0x%x' % (b + random.randrange(s // 4) * 4) for _ in range(100000)))" "$text" >"$big/.random"

work=$(mktemp -d "${TMPDIR:-/tmp}/kpbrowse-bench-sym.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset KPBROWSE_SYMCACHE
fresh() { # a new empty cache folder for the next kpbrowse run
	rm -rf "$work/cache"
	mkdir -p "$work/cache"
	export KPBROWSE_CACHE_DIR=$work/cache
}

# cold: every run with an empty cache folder
fresh; set -- $("$t" -n 5 "$kp" lookup --dsym "$dw" "$one"); a_cold=$1 a_cold_kib=$2
fresh; set -- $("$t" -n 5 "$kp" lookup --dsym "$dw" $(cat "$big/.twenty")); b_cold=$1
set -- $("$t" -n 5 "$ll" --inlining --obj="$dw" "$one"); a_ll=$1 a_ll_kib=$2
set -- $("$t" -n 5 "$ll" --inlining --obj="$dw" $(cat "$big/.twenty")); b_ll=$1
ls "$work/cache/symcache" >/dev/null 2>&1 && echo "NOTE: a cold lookup wrote a cache" || true

# cache build vs gsymutil --convert: 7 rounds, the two tools alternating
# (this machine's speed drifts between minutes: a round sees both at one
# speed), the median and min-max of each
cbs="" gss=""
for i in 1 2 3 4 5 6 7; do
	fresh; set -- $("$t" -n 1 "$kp" cache build "$dw"); cbs="$cbs $1" cb_kib=$2
	set -- $("$t" -n 1 "$gs" --convert="$dw" --out-file="$work/big.gsym"); gss="$gss $1" gs_kib=$2
done
med() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
span() { printf '%s\n' "$@" | sort -n | awk 'NR == 1 { a = $1 } { b = $1 } END { print a "-" b }'; }
cb_ms=$(med $cbs) gs_ms=$(med $gss) cb_span=$(span $cbs) gs_span=$(span $gss)
kpsym=$(ls "$work/cache"/symcache/*.kpsym | head -1)
cb_bytes=$(wc -c <"$kpsym")
gs_bytes=$(wc -c <"$work/big.gsym")

# warm: the cache the build left
set -- $("$t" -n 7 "$kp" lookup --dsym "$dw" "$one"); a_kp=$1
set -- $("$t" -n 7 "$kp" lookup --dsym "$dw" $(cat "$big/.twenty")); b_kp=$1
set -- $("$t" -n 5 -i "$big/.random" "$kp" lookup --dsym "$dw"); c_kp=$1 d_kp=$2 c_kp_span="$3-$4"
set -- $("$t" -n 5 -i "$big/.random" "$ll" --inlining --obj="$dw"); c_ll=$1 d_ll=$2 c_ll_span="$3-$4"
set -- $("$t" -n 7 "$gs" "$work/big.gsym" --address="$one"); a_gs=$1
# batch, as a CLI user meets it (issue 25): nothing set, an empty cache
# folder, the same 100k addresses twice; the first run builds the cache on a
# side thread while the DWARF answers, the second starts warm
fresh; set -- $("$t" -n 1 -i "$big/.random" "$kp" lookup --dsym "$dw"); e_kp=$1 e_kib=$2
set -- $("$t" -n 3 -i "$big/.random" "$kp" lookup --dsym "$dw"); f_kp=$1 f_kib=$2
# the DWARF path alone, for reference
set -- $(KPBROWSE_SYMCACHE=never "$t" -n 1 -i "$big/.random" "$kp" lookup --dsym "$dw"); c_dw=$1 d_dw=$2
"$kp" lookup --dsym "$dw" <"$big/.random" | md5sum >"$work/kp.md5"
KPBROWSE_SYMCACHE=never "$kp" lookup --dsym "$dw" <"$big/.random" | md5sum >"$work/kpdw.md5"
"$ll" --inlining --obj="$dw" <"$big/.random" | md5sum >"$work/ll.md5"
same=$(cmp -s "$work/kp.md5" "$work/ll.md5" && cmp -s "$work/kpdw.md5" "$work/ll.md5" && echo identical || echo DIFFERENT)

ratio() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print('%.2fx' % (a/b if b else 0))" "$1" "$2"; }
verdict() { python3 -c "import sys; r,op,t=float(sys.argv[1]),sys.argv[2],float(sys.argv[3]); print('met' if (r<=t if op=='<=' else r>=t) else 'MISSED')" "$1" "$2" "$3"; }
r() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print(a/b if b else 0)" "$1" "$2"; }

printf '\n%-40s %12s %16s %9s %7s %s\n' "" kpbrowse "llvm-19 tool" ratio target ""
row() { # label kp other unit target-op target-ratio
	printf '%-40s %9s %-2s %13s %-2s %9s %2s%-4s %s\n' "$1" "$2" "$4" "$3" "$4" "$(ratio "$2" "$3")" "$5" "$6" \
		"$(verdict "$(r "$2" "$3")" "$5" "$6")"
}
row "cold (a) 1 address, fresh process" "$a_cold" "$a_ll" ms "<=" 0.2
row "cold (b) 20 frames over 20 CUs" "$b_cold" "$b_ll" ms "<=" 0.5
row "cache build vs gsymutil --convert: time" "$cb_ms" "$gs_ms" ms "<=" 0.25
row "  output size" "$cb_bytes" "$gs_bytes" B "<=" 1.2
row "  peak RSS" "$cb_kib" "$gs_kib" KiB "<=" 1.0
row "warm (a) 1 address" "$a_kp" "$a_ll" ms "<=" 0.5
row "warm (b) 20 frames" "$b_kp" "$b_ll" ms "<=" 0.5
row "warm (c) 100k addresses (time)" "$c_kp" "$c_ll" ms "<=" 0.05
row "warm (d) peak RSS during (c)" "$d_kp" "$d_ll" KiB "<=" 9.9
row "batch (e) 100k, first run, empty cache" "$e_kp" "$c_ll" ms "<=" 1.0
row "batch (f) 100k, second run (time)" "$f_kp" "$c_ll" ms "<=" 0.1
row "batch (f) peak RSS" "$f_kib" "$d_ll" KiB "<=" 0.5
printf '\ncold (a) peak RSS: kpbrowse %s KiB, llvm-symbolizer %s KiB\n' "$a_cold_kib" "$a_ll_kib"
printf 'llvm-gsymutil-19 lookup of 1 address in its .gsym: %s ms\n' "$a_gs"
printf '(c) without the cache (KPBROWSE_SYMCACHE=never): %s ms, %s KiB\n' "$c_dw" "$d_dw"
printf '(c) output of kpbrowse (cache and DWARF) and llvm-symbolizer: %s\n' "$same"
printf '(c) min-max of 5 runs: kpbrowse %s ms, llvm-symbolizer %s ms (%s times faster at the median)\n' \
	"$c_kp_span" "$c_ll_span" "$(python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) / float(sys.argv[1])))" "$c_kp" "$c_ll")"
printf 'cache build min-max of 7 alternating rounds: kpbrowse %s ms, llvm-gsymutil %s ms\n' "$cb_span" "$gs_span"
printf 'load average before / after: %s / %s (%s cores)\n' "$load0" \
	"$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime | sed 's/.*average[s]*: //')" \
	"$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')"
