#!/bin/sh
# memcheck.sh [BUILD_DIR]: valgrind memcheck over the parsers, the index's
# scan and the symboliser (real corpus, fixture reports with their dSYMs, hostile inputs):
# fails on any error or definite leak.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
kp=$build/cli/kpbrowse
if ! command -v valgrind >/dev/null 2>&1; then
	echo "memcheck: valgrind not installed; skipped"
	exit 0
fi
vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KPBROWSE_CACHE_DIR="$tmp/cache"
files=$(ls tests/fixtures/reports/*.ips tests/fixtures/reports/*.panic)
files="$files $(ls tests/real/* | grep -v MANIFEST)"
status=0
run() {
	# a hostile input's exit 2 is expected: only valgrind's verdict counts
	rc=0
	"$@" >/dev/null 2>"$tmp/vg" || rc=$?
	if [ $rc -eq 99 ] || grep -q "definitely lost\|Invalid\|uninitialised" "$tmp/vg"; then
		echo "memcheck: FAILED: $*"
		cat "$tmp/vg"
		status=1
	fi
}
# shellcheck disable=SC2086
run $vg "$kp" show --json --no-symbols $files
# shellcheck disable=SC2086
run $vg "$kp" show --dsym tests/fixtures/bin $files
# shellcheck disable=SC2086
run $vg "$kp" show --json --disasm 12 --dsym tests/fixtures/bin $files
run $vg "$kp" lookup --dsym tests/fixtures/bin/fakekext.arm64.dSYM 0xc1ec 0xc2cc 0x1
for f in tests/hostile/*; do
	[ -e "$f" ] && run $vg "$kp" show --no-symbols "$f"
done
# the index's scan: its skimming parse (KP_PARSE_SKIM_FRAMES), packing and
# store over every fixture, real and hostile report, threads and all
run $vg "$kp" index --db "$tmp/index.sqlite3" --no-symbols tests/fixtures tests/real tests/hostile
# mutated dSYMs: a malformed DIE must leak nothing (libdwarf 20210528's
# dwarf_child lost one on DW_DLE_LEB_IMPROPER: fuzz-dwarf-5)
for f in tests/hostile/fuzz-dwarf-*; do
	run $vg "$kp" lookup --dsym "$f" --arch arm64 0xc1ec 0xc2cc 0x4000
done
# LZFSE (core/macho/lzfse.c): the reference encoder's fixtures decoded, and
# the kernelcache's in an IM4P naming a report's frames
for f in tests/fixtures/lzfse/*.lzfse; do
	run $vg "$build/tests/test_lzfse" --decode "$f" "$tmp/lzfse.out"
done
python3 tests/fixtures/make_kernelcache.py --wrap tests/fixtures/lzfse/kernelcache.lzfse "$tmp/kc.im4p"
run $vg "$kp" show --dsym "$tmp/kc.im4p" tests/fixtures/reports/panic-full-2026-11-20-101500.0001.ips
[ $status -eq 0 ] && echo "memcheck: $(echo $files | wc -w) reports, no errors, no definite leaks"
exit $status
