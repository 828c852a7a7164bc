#!/bin/sh
# bench_signatures.sh [BUILD_DIR] [NFUNC]: signature matching at a real
# kernel's size (issue 22).  A generated arm64 kernel of NFUNC functions
# (default 40,000; about 25 MB of __text, a macOS 26 kernel's size) in 40
# units, each function logging a string of its own and most calling the one
# before it, linked MH_EXECUTE by ld64.lld-19 and stripped; signature files
# made from the unstripped binary as symbolicator makes them from a KDK
# (bench/gen_signatures.py: one signature a function, its strings as
# anchors, its single-caller chain as backtrace).  Prints, for 1,000
# function addresses: the cold first answer (one address, fresh process,
# empty cache: the whole kernel scanned and matched) and all 1,000, against
# llvm-symbolizer-19 on the unstripped binary (the truth, from its symbol
# table) in the same run, as ratios; and the share named right.  Asserts
# nothing.  Builds its kernel in a temporary folder (about a minute).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-$root/build}
nfn=${2:-40000}
kp=$build/cli/kpbrowse
t=$build/bench/timeit
[ -x "$t" ] || { echo "build it first: cmake --build $build --target bench" >&2; exit 2; }
tool() { command -v "$1-19" || echo "/usr/lib/llvm-19/bin/$1"; }
CC=$(tool clang) LD=$(tool ld64.lld) NM=$(tool llvm-nm) SYM=$(tool llvm-symbolizer) STRIP=$(tool llvm-strip)
for x in "$CC" "$LD" "$NM" "$SYM" "$STRIP"; do
	[ -x "$x" ] || { echo "bench_signatures: $x is missing (LLVM 19)" >&2; exit 2; }
done
# KP_BENCH_WORK=DIR keeps the kernel there and builds it only once
work=${KP_BENCH_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/kpbrowse-bench-sig.XXXXXX")}
[ -n "${KP_BENCH_WORK:-}" ] || trap 'rm -rf "$work"' EXIT
export KPBROWSE_CACHE_DIR="$work/cache"
unset KPBROWSE_DSYM_PATH KPBROWSE_SIGNATURES
if [ ! -f "$work/kernel.stripped" ]; then
mkdir -p "$work/src" "$work/obj"
ncu=40
per=$(( (nfn + ncu - 1) / ncu ))
i=0
while [ $i -lt $ncu ]; do
	awk -v cu=$i -v n=$per 'BEGIN {
		print "typedef unsigned long u64;"
		print "extern void kp_log(const char *, u64);"
		print "extern volatile u64 kp_state[64];"
		for (j = 0; j < n; j++) {
			if (j > 0 && j % 5 != 0)
				print "u64 f" cu "_" j "(u64 x);"
			print "__attribute__((noinline)) u64 f" cu "_" j "(u64 x) {"
			print "  if (x == " j ") kp_log(\"unit " cu " function " j ": state out of range\", x);"
			# a body of a real function size (kernel functions average ~600 bytes)
			for (k = 0; k < 24; k++)
				print "  kp_state[(x + " k ") & 63] += x * " (k * 2654435761 % 1000003 + j) "u;"
			if (j > 0 && j % 5 != 0)
				print "  x += f" cu "_" (j - 1) "(x ^ kp_state[" (j % 64) "]);"
			print "  return x;"
			print "}"
		}
	}' >"$work/src/u$i.c"
	i=$((i + 1))
done
printf 'void kp_log(const char *s, unsigned long x) { (void)s; (void)x; }\nvolatile unsigned long kp_state[64];\nvoid kernel_start(void) {}\n' >"$work/src/main.c"
ls "$work"/src/*.c | xargs -P 2 -I{} sh -c '"$0" -target arm64-apple-macos13 -O1 -ffreestanding -fno-builtin -fno-stack-protector -c {} -o "$1/obj/$(basename {} .c).o"' "$CC" "$work"
"$LD" -arch arm64 -platform_version macos 13.0 13.0 -e _kernel_start \
	-rename_section __TEXT __text __TEXT_EXEC __text -o "$work/kernel" "$work"/obj/*.o
"$STRIP" -o "$work/kernel.stripped" "$work/kernel"
fi
# every function's signature, and one in eight (about a real xnu.json's
# 5,000 signatures and 1.5 MB for one Darwin version)
[ -f "$work/sigs/kernel/25/xnu.json" ] ||
	python3 "$here/gen_signatures.py" "$NM" "$work/kernel" com.apple.kernel "$work/sigs/kernel/25/xnu.json"
[ -f "$work/sigs8/kernel/25/xnu.json" ] ||
	python3 "$here/gen_signatures.py" "$NM" "$work/kernel" com.apple.kernel "$work/sigs8/kernel/25/xnu.json" 8
# 1,000 function addresses, 4 bytes in, spread over the whole kernel
"$NM" -n --defined-only "$work/kernel" | awk '$3 ~ /^_f[0-9]/ { print $1 }' >"$work/starts"
nstarts=$(wc -l <"$work/starts")
python3 -c 'import sys
s = [int(l, 16) for l in open(sys.argv[1])]
step = max(1, len(s) // 1000)
print("\n".join("0x%x" % (a + 4) for a in s[::step][:1000]))' "$work/starts" >"$work/addrs"
head -1 "$work/addrs" >"$work/addr1"
text=$("$(tool llvm-size)" -m "$work/kernel" 2>/dev/null | awk '/Section __text/ { print $3; exit }')
printf 'kernel: %s functions, __text %s bytes; %s addresses, one in each run of 40 functions\n' \
	"$nstarts" "${text:-?}" "$(wc -l <"$work/addrs")"
"$SYM" --obj="$work/kernel" <"$work/addrs" | awk 'NR % 3 == 1' >"$work/want"
n=$(wc -l <"$work/want")
l1=$("$t" -n 3 -i "$work/addr1" "$SYM" --obj="$work/kernel" | awk '{print $1}')
ln=$("$t" -n 3 -i "$work/addrs" "$SYM" --obj="$work/kernel" | awk '{print $1}')
printf '%-34s %7s %7s %12s %12s\n' "signatures (JSON)" "named" "right" "first answer" "1,000 addrs"
printf '%-34s %7s %7s %9.1f ms %9.1f ms\n' "llvm-symbolizer-19, unstripped" "-" "-" "$l1" "$ln"
k=$("$t" -n 3 -i "$work/addr1" "$kp" lookup --dsym "$work/kernel.stripped" | awk '{print $1}')
printf '%-34s %7s %7s %9.1f ms\n' "none (function starts only)" "0%" "-" "$k"
for d in sigs sigs8; do
	f=$work/$d/kernel/25/xnu.json
	label="$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["signatures"]))' "$f") ($(( $(wc -c <"$f") / 1024 )) KB)"
	# named right: kpbrowse's function name per address against
	# llvm-symbolizer-19's on the unstripped kernel
	"$kp" lookup --dsym "$work/kernel.stripped" --signatures "$work/$d" <"$work/addrs" 2>"$work/kp.err" |
		awk 'NR % 3 == 1' >"$work/got"
	named=$(grep -vc '^func_' "$work/got" || true)
	right=$(paste -d' ' "$work/got" "$work/want" | awk '$1 !~ /^func_/ && $1 == $2' | wc -l)
	k1=$(rm -rf "$KPBROWSE_CACHE_DIR"; "$t" -n 3 -i "$work/addr1" "$kp" lookup --dsym "$work/kernel.stripped" --signatures "$work/$d" | awk '{print $1}')
	kn=$(rm -rf "$KPBROWSE_CACHE_DIR"; "$t" -n 3 -i "$work/addrs" "$kp" lookup --dsym "$work/kernel.stripped" --signatures "$work/$d" | awk '{print $1}')
	printf '%-34s %6d%% %6d%% %9.1f ms %9.1f ms   (%.2fx / %.2fx llvm-symbolizer)\n' "$label" \
		$((named * 100 / n)) $((named ? right * 100 / named : 0)) "$k1" "$kn" \
		"$(echo "$k1 $l1" | awk '{print $1 / $2}')" "$(echo "$kn $ln" | awk '{print $1 / $2}')"
	[ -s "$work/kp.err" ] && sed 's/^/  kpbrowse said: /' "$work/kp.err" | head -3
done
