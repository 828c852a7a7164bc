#!/bin/sh
# fuzz-ci.sh [SECONDS]: builds every libFuzzer target (build-fuzz/, clang),
# seeds their corpora from the fixtures and tests/real (fuzz/seed.sh, into a
# temp dir), and runs each target for SECONDS (default $KP_FUZZ_SECS or 120),
# two at a time.  Fails when any target finds a crash, leak, timeout or
# out-of-memory input, and prints where it is: such an input goes into
# tests/hostile/fuzz-TARGET-N, where test_hostile_replay replays it forever.
# CI runs it as its fuzz leg; `sh scripts/fuzz-ci.sh 1800` is a long run.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-${KP_FUZZ_SECS:-120}}
if ! command -v clang >/dev/null 2>&1; then
	echo "fuzz-ci: skipped: no clang (libFuzzer is clang's)"
	exit 0
fi
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DKP_FUZZ=ON -DKP_TUI=OFF >/dev/null
# kpbrowse itself too: seed.sh builds the symcache seeds with it (a CI
# machine has no build/ here, and an empty corpus is no fuzzing)
cmake --build build-fuzz --target fuzz kpbrowse -j2 >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
KPBROWSE=$PWD/build-fuzz/cli/kpbrowse sh fuzz/seed.sh "$work/corpus" >/dev/null
for d in "$work"/corpus/*; do
	if [ -z "$(ls -A "$d")" ]; then
		echo "fuzz-ci: no seeds for $(basename "$d")" >&2
		exit 1
	fi
done
targets=$(cd fuzz && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')
# run.sh keeps its corpus in fuzz/corpus/TARGET and findings in
# fuzz/findings/TARGET: point both at the temp dir through a copy of fuzz/
cp -R fuzz "$work/fuzz"
rm -rf "$work/fuzz/corpus" "$work/fuzz/findings"
mv "$work/corpus" "$work/fuzz/corpus"
status=0
run_one() {   # run_one TARGET: its output in $work/TARGET.log
	KP_FUZZ_ARGS="-print_final_stats=0" sh "$work/fuzz/run.sh" "$1" "$secs" "$PWD/build-fuzz" \
		>"$work/$1.log" 2>&1 || true
	found=$(ls "$work/fuzz/findings/$1" 2>/dev/null | head -5 | tr '\n' ' ')
	execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*\|#[0-9]*.*DONE' "$work/$1.log" | tail -1)
	if [ -n "$found" ]; then
		echo "fuzz-ci: $1: FOUND $found"
		grep -m1 -A25 'ERROR: \|runtime error\|==ERROR' "$work/$1.log" | head -40
		mkdir -p fuzz/findings/"$1"
		cp "$work/fuzz/findings/$1"/* fuzz/findings/"$1"/ 2>/dev/null || true
		return 1
	fi
	echo "fuzz-ci: $1: ${secs} s, nothing found ($(tail -1 "$work/$1.log" | cut -c1-100))"
}
set -- $targets
while [ $# -gt 0 ]; do
	a=$1; shift
	b=${1:-}; [ $# -gt 0 ] && shift
	run_one "$a" & pa=$!
	pb=
	if [ -n "$b" ]; then run_one "$b" & pb=$!; fi
	wait "$pa" || status=1
	if [ -n "$pb" ]; then wait "$pb" || status=1; fi
done
[ $status -eq 0 ] && echo "fuzz-ci: $(echo $targets | wc -w) targets, ${secs} s each, nothing found"
exit $status
