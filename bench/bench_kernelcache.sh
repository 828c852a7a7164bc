#!/bin/sh
# bench_kernelcache.sh [BUILD_DIR]: Apple's frames named without a KDK
# (issue 22).  The fixture kernel and kext assembled into kernelcaches
# (tests/fixtures/make_kernelcache.py): with their symbol tables, stripped,
# and stripped with an ipsw-style symbols.json naming half the functions; a
# 3,000-thread stackshot whose every frame lands in those binaries; the
# dSYMs (a KDK's truth) name every frame exactly.  Prints, per source, the
# share of frames named and the share named right (the same function as the
# dSYM says, inlined frames' outermost function), the time to name every
# frame (show --json, whole process) and the cold first answer of one
# frame; then issue 35 item 2's figure, every frame named in process
# (bench_kcnames), beside llvm-symbolizer-19 on the same addresses.
# KP_BENCH_KERNEL=FILE: an arm64 kernel of a real kernel's size in the
# fixture kernel's place (bench_signatures.sh's, kept with KP_BENCH_WORK:
# 40,000 functions, 33 MB), for the in-process figure only (it has no
# dSYM to score names against).  ipsw, the one peer, is a Go program this machine cannot build
# (no Go toolchain or module proxy here): its column says so.  Asserts
# nothing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-$root/build}
kp=$build/cli/kpbrowse
t=$build/bench/timeit
[ -x "$t" ] || { echo "build it first: cmake --build $build --target bench" >&2; exit 2; }
fix=$root/tests/fixtures
work=$(mktemp -d "${TMPDIR:-/tmp}/kpbrowse-bench-kc.XXXXXX")
trap 'rm -rf "$work"' EXIT
export KPBROWSE_CACHE_DIR="$work/cache"
unset KPBROWSE_DSYM_PATH
bin=$fix/bin
if [ -n "${KP_BENCH_KERNEL:-}" ]; then
	bin=$work/bin
	mkdir "$bin"
	cp "$KP_BENCH_KERNEL" "$bin/fakekernel.arm64"
	cp "$fix/bin/fakekext.arm64" "$bin/"
fi
python3 "$fix/make_kernelcache.py" "$work/kc" "$bin" arm64
cp "$work/kc/kernelcache.stripped" "$work/kc/kernelcache.mapped"
nm=$(command -v llvm-nm-19 || command -v llvm-nm || echo /usr/lib/llvm-19/bin/llvm-nm)
od=$(command -v llvm-objdump-19 || command -v llvm-objdump || echo /usr/lib/llvm-19/bin/llvm-objdump)
# a map naming every other kernel function, as a partial signature run would
"$nm" -n --defined-only "$bin/fakekernel.arm64" | python3 -c '
import json, sys
names = [l.split() for l in sys.stdin if int(l.split()[0], 16) >= 0xc000]
json.dump({str(int(a, 16)): n.lstrip("_") for i, (a, _, n) in enumerate(names) if i % 2 == 0},
          open(sys.argv[1], "w"))' "$work/kc/kernelcache.mapped.symbols.json"
# signature files made from the unstripped binaries, as symbolicator makes
# them from a KDK (bench/gen_signatures.py), for the Darwin 25 of the report
python3 "$here/gen_signatures.py" "$nm" "$bin/fakekernel.arm64" com.apple.kernel \
	"$work/sigs/kernel/25/xnu.json"
python3 "$here/gen_signatures.py" "$nm" "$fix/bin/fakekext.arm64" com.kpbrowse.FakeDriver \
	"$work/sigs/kernel/25/kexts/FakeDriver.json"
# 3,000 threads of 20 frames at instruction addresses of the two binaries;
# the same frames as "BINARY ADDRESS" lines for llvm-symbolizer (each
# return address stepped back 4 bytes, as kpbrowse looks it up)
mkdir "$work/peer"
"$od" --macho --function-starts "$bin/fakekernel.arm64" | tail -n +2 >"$work/kstarts"
"$od" --macho --function-starts "$bin/fakekext.arm64" | tail -n +2 >"$work/xstarts"
cp "$bin/fakekernel.arm64" "$bin/fakekext.arm64" "$work/peer/"
python3 - "$fix/reports/panic-full-2026-11-20-101500.0001.ips" "$work/stack.ips" \
	"$work/kstarts" "$work/xstarts" "$work/addrs.txt" "$work/peer" \
	"$("$od" --macho --private-headers "$bin/fakekernel.arm64" | awk '/segname __TEXT_EXEC/ { getline; print $2; exit }')" \
	"$("$od" --macho --private-headers "$bin/fakekernel.arm64" | awk '$1 == "uuid" { print $2; exit }')" <<'EOF'
import json, random, sys
src, out, kstarts, xstarts, addrs, peer, ktext, kuuid = sys.argv[1:9]
lines = []
t = open(src).read()
head, _, body = t.partition("\n")
d = json.loads(body)
random.seed(22)
ks = [int(x, 16) for x in open(kstarts).read().split()]
xs = [int(x, 16) for x in open(xstarts).read().split()]
k_base, x_base = int(ktext, 16), 0xc000   # __TEXT_EXEC vmaddr of each binary
d["binaryImages"][0][0] = kuuid.lower()  # the kernel's (KP_BENCH_KERNEL's own)
threads = {}
for i in range(3000):
    frames = []
    for j in range(20):
        img, starts, base = (1, xs, x_base) if (i + j) % 3 == 0 else (0, ks, k_base)
        f = random.choice(starts[:-1])
        off = f - base + 4 * random.randrange(1, 6)
        frames.append([img, off])
        lines.append("%s/%s 0x%x\n" % (peer, "fakekext.arm64" if img else "fakekernel.arm64",
                                       base + off - (4 if j else 0)))
    threads[str(1000 + i)] = {"id": 1000 + i, "state": ["TH_WAIT"], "kernelFrames": frames}
d["processByPid"] = {"0": {"pid": 0, "procname": "kernel_task", "threadById": threads}}
open(out, "w").write(head + "\n" + json.dumps(d))
open(addrs, "w").write("".join(lines))
EOF
names() { # FILE.json -> "function" per frame (first symbol's), "-" when unnamed
	python3 - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
def walk(x):
    if isinstance(x, dict):
        if "symbol_source" in x:
            syms = x.get("symbols") or []
            print("%s\t%s" % ((syms[-1].get("function") if syms else None) or "-", x["symbol_source"] or "-"))
            return
        for v in x.values():
            walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
walk(d)
EOF
}
if [ -z "${KP_BENCH_KERNEL:-}" ]; then
"$kp" show --json --dsym "$fix/bin" "$work/stack.ips" >"$work/truth.json" 2>/dev/null
names "$work/truth.json" >"$work/truth.txt"
total=$(wc -l <"$work/truth.txt" | tr -d ' ')
printf 'frames: %s (3,000 threads x 20)\n\n' "$total"
printf '%-34s %8s %8s %12s %14s   %s\n' source named right "all frames" "first answer" "ipsw"
extra=""   # more show options for a row (--signatures)
row() { # label dsym-path
	rm -rf "$KPBROWSE_CACHE_DIR"
	# shellcheck disable=SC2086
	set -- "$1" "$2" $("$t" -n 3 "$kp" show --json --dsym "$2" $extra "$work/stack.ips")
	all=$3
	rm -rf "$KPBROWSE_CACHE_DIR"
	# shellcheck disable=SC2086
	first=$("$t" -n 5 "$kp" show --json --dsym "$2" $extra "$fix/reports/panic-full-2026-11-20-101500.0001.ips" | cut -d' ' -f1)
	# shellcheck disable=SC2086
	"$kp" show --json --dsym "$2" $extra "$work/stack.ips" >"$work/got.json" 2>/dev/null
	names "$work/got.json" >"$work/got.txt"
	paste "$work/truth.txt" "$work/got.txt" | python3 -c '
import sys
n = named = right = 0
srcs = {}
for l in sys.stdin:
    want, _, got, src = l.rstrip("\n").split("\t")
    src = src.strip()
    n += 1
    if got != "-" and not got.startswith("func_"):
        named += 1
        right += got == want
    srcs[src] = srcs.get(src, 0) + 1
print("%6.1f%% %7.1f%% %s" % (100.0 * named / n, 100.0 * right / n, ",".join("%s:%d" % kv for kv in sorted(srcs.items()))))' >"$work/score"
	set -- "$1" "$all" "$first" $(cat "$work/score")
	printf '%-34s %8s %8s %9s ms %11s ms   %s   (sources %s)\n' "$1" "$4" "$5" "$2" "$3" "n/a" "$6"
}
row "dSYMs (a KDK: the truth)" "$fix/bin"
row "kernelcache, symbol tables" "$work/kc/kernelcache"
whole_symtab=$all
row "kernelcache in IM4P (LZSS)" "$work/kc/kernelcache.im4p"
row "stripped + symbols.json (half)" "$work/kc/kernelcache.mapped"
row "stripped (function starts only)" "$work/kc/kernelcache.stripped"
whole_starts=$all
extra="--signatures $work/sigs"
row "stripped + signatures" "$work/kc/kernelcache.stripped"
extra=""
else
	printf 'kernel: %s (%s functions); its stackshot only, no dSYM to score names against\n' \
		"$KP_BENCH_KERNEL" "$(wc -l <"$work/kstarts" | tr -d ' ')"
	whole_symtab=$(rm -rf "$KPBROWSE_CACHE_DIR"; "$t" -n 3 "$kp" show --json --dsym "$work/kc/kernelcache" "$work/stack.ips" | cut -d' ' -f1)
	whole_starts=$(rm -rf "$KPBROWSE_CACHE_DIR"; "$t" -n 3 "$kp" show --json --dsym "$work/kc/kernelcache.stripped" "$work/stack.ips" | cut -d' ' -f1)
fi

# Issue 35 item 2: the time from the kernelcache being opened to every
# frame named, in process (bench_kcnames), beside the whole process and
# llvm-symbolizer-19 on the same addresses of the unstripped binaries (its
# whole process: it opens the two binaries and names every address; the
# kernelcache's symbol tables are those binaries' own).
kcn=$build/bench/bench_kcnames
sym=$(command -v llvm-symbolizer-19 || command -v llvm-symbolizer || true)
echo
printf 'every frame named in process (issue 35 item 2, target < 500 ms): min / median / max of 7;
'
printf 'load average %s
' "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime | sed 's/.*average[s]*: //')"
printf '%-34s %22s %22s %22s %12s
' source "first frame named" "open to all named" "CPU, same span" "whole process"
inproc() { # label path whole-process-median
	rm -rf "$KPBROWSE_CACHE_DIR"
	# shellcheck disable=SC2046
	set -- "$1" "$2" "$3" $("$kcn" "$2" "$work/stack.ips" 7)
	printf '%-34s %6s/%6s/%6s ms %6s/%6s/%6s ms %6s/%6s/%6s ms %9s ms   (%s of %s frames named)\n' "$1" \
		"$6" "$7" "$8" "$9" "${10}" "${11}" "${12}" "${13}" "${14}" "$3" "$5" "$4"
	inproc_med=$(printf '%s' "${10}")
}
inproc "kernelcache, symbol tables" "$work/kc/kernelcache" "$whole_symtab"
kc_med=$inproc_med
inproc "stripped (function starts only)" "$work/kc/kernelcache.stripped" "$whole_starts"
if [ -n "$sym" ]; then
	# shellcheck disable=SC2046
	set -- $("$t" -n 7 -i "$work/addrs.txt" "$sym")
	n=$("$sym" <"$work/addrs.txt" | awk 'NR % 3 == 1 && $0 != "??" { n++ } END { print n + 0 }')
	printf '%-34s %22s %22s %22s %9s ms   (%s of %s addresses named; min %s, max %s ms)\n' \
		"llvm-symbolizer-19, unstripped" "" "" "" "$1" "$n" "$(wc -l <"$work/addrs.txt" | tr -d ' ')" "$3" "$4"
	awk -v a="$kc_med" -v b="$1" 'BEGIN { printf "symbol tables, open to all named / llvm-symbolizer-19: %.2fx\n", a / b }'
else
	echo "llvm-symbolizer-19: not installed (the peer row is left out)"
fi
echo
echo "named: frames given a function name (func_<start> does not count); right: the"
echo "dSYM's function; first answer: show --json of a one-panic report, fresh process."
echo "ipsw: not run here (a Go program; this machine has no Go toolchain or module proxy)."
echo "The fixture's kernel and kext are linked at the same addresses (a real kernelcache's"
echo "entries never overlap), so the kernel's map names also land on kext frames: the gap"
echo "between named and right in the map row is that, not a wrong kernel name."
