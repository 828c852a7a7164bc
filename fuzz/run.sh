#!/bin/sh
# run.sh TARGET|all SECONDS [BUILD_DIR]: runs libFuzzer target(s) for SECONDS
# each (all: one after another) over fuzz/corpus/TARGET (seeded by seed.sh
# when empty), with the target's dictionary.  Extra libFuzzer flags: $KP_FUZZ_ARGS
# (e.g. "-fork=1 -ignore_crashes=1" to keep going after a crash).  Findings land in
# fuzz/findings/TARGET/ (crash-*, leak-*, timeout-*, oom-*, slow-unit-*).
# Build first: CC=clang CXX=clang++ cmake -S . -B build-fuzz -DKP_FUZZ=ON &&
# cmake --build build-fuzz --target fuzz   (every target; scripts/fuzz-ci.sh does both)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
# every fuzz/fuzz_TARGET.c is a target
targets=$(cd "$here" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//' | tr '\n' ' ')
if [ $# -lt 2 ]; then
	echo "usage: run.sh TARGET|all SECONDS [BUILD_DIR]; targets: $targets" >&2
	exit 2
fi
target=$1
secs=$2
build=${3:-${KP_FUZZ_BUILD:-$root/../build-fuzz}}
if [ "$target" = all ]; then
	for t in $targets; do
		sh "$0" "$t" "$secs" "$build"
	done
	exit 0
fi
case $target in
ips) maxlen=131072 ;;        # real .ips bodies are 5 KiB .. 1 MiB; seeds are cut at 64 KiB
text) maxlen=32768 ;;        # the largest real .panic is 17 KiB
nvram) maxlen=65536 ;;       # nvram -x/-p output: a panic log of a few KiB, hex or base64 encoded
macho) maxlen=131072 ;;      # fixture binaries up to 100 KiB (universal)
dwarf) maxlen=65536 ;;       # fixture DWARF files up to 46 KiB
signature) maxlen=32768 ;;
sanitize) maxlen=8192 ;;     # display strings: a panic string's lines, names, paths
symcache) maxlen=65536 ;;    # fixture caches are under 2 KiB; room for bigger lies
dsymplist) maxlen=16384 ;;   # a dsymForUUID answer is a few hundred bytes a UUID
sigfile) maxlen=65536 ;;     # symbolicator signature files: a few KiB to MBs; lies fit in less
lzfse) maxlen=131072 ;;      # LZFSE streams: the fixtures are 0.5 to 67 KiB
kcdata) maxlen=65536 ;;      # Intel kcdata stackshots (decoded): the fixtures are 2 KiB; real ones < 1 MiB
*) echo "run.sh: unknown target '$target' ($targets all)" >&2; exit 2 ;;
esac
bin=$build/fuzz/fuzz_$target
[ -x "$bin" ] || { echo "run.sh: $bin not built (see the comment at the top)" >&2; exit 2; }
corpus=$here/corpus/$target
[ -n "$(ls -A "$corpus" 2>/dev/null)" ] || sh "$here/seed.sh" "$here/corpus" >/dev/null
mkdir -p "$here/findings/$target"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
dict=
[ -f "$here/$target.dict" ] && dict=-dict="$here/$target.dict"
exec "$bin" -max_total_time="$secs" -max_len="$maxlen" -rss_limit_mb=2048 -timeout=10 \
	$dict -artifact_prefix="$here/findings/$target/" \
	-print_final_stats=1 ${KP_FUZZ_ARGS:-} "$corpus"
