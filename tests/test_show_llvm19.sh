#!/bin/sh
# test_show_llvm19.sh: `kpbrowse show` on the reports generated around the
# clang/dsymutil 19 fixtures (fixtures/llvm19-dwarf{5,4}/reports, written by
# make_reports.py --llvm19 N): every frame of the panicked thread, callers at
# their call site, is llvm-symbolizer-19's chain recorded in expected.tsv,
# straight from DWARF and through the symbol cache.
set -u
. "$KP_TESTS_DIR/tap.sh"
kp=$KPBROWSE
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset KPBROWSE_DSYM_PATH

for v in 5 4; do
	dir=$KP_FIXTURES/llvm19-dwarf$v
	for mode in never always; do
		export KPBROWSE_SYMCACHE=$mode KPBROWSE_CACHE_DIR="$tmp/cache$v"
		for rep in "$dir"/reports/*.ips "$dir"/reports/*.panic; do
			name=$(basename "$rep")
			"$kp" show --json --dsym "$dir/bin" "$rep" >"$tmp/sym.json" 2>"$tmp/err"
			check "$?" = 0 "dwarf$v $mode $name: exit 0"
			python3 "$KP_TESTS_DIR/expected_chains.py" "$tmp/sym.json" "$dir/reports/expected.tsv" "$name" >"$tmp/py" 2>&1
			check_grep "^ok [1-9]" "$tmp/py" "dwarf$v $mode $name: every frame as llvm-symbolizer-19 at the call site ($(cat "$tmp/py"))"
		done
	done
	"$kp" show --dsym "$dir/bin" "$dir/reports/panic-full-2026-12-01-090000.0003.ips" >"$tmp/out"
	check_grep "inlined into fakekext_queue_report" "$tmp/out" "dwarf$v: text output shows the inline chain"
	unset KPBROWSE_SYMCACHE KPBROWSE_CACHE_DIR
done
done_testing
