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
			python3 - "$tmp/sym.json" "$dir/reports/expected.tsv" "$name" >"$tmp/py" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
want = {}
for line in open(sys.argv[2]):
    if not line.startswith("#"):
        rep, i, addr, chain = line.rstrip("\n").split("\t")
        if rep == sys.argv[3]:
            want[int(i)] = (addr, chain)
t = [t for p in r["processes"] for t in p["threads"] if t["panicked"]][0]
bad = []
for i, (addr, chain) in sorted(want.items()):
    f = t["frames"][i]
    got = " | ".join("%s %s:%s:%s" % (s["function"], s["file"], s["line"] or 0, s["column"] or 0)
                     for s in f["symbols"])
    if f["lookup_address"] != addr or got != chain or f["symbol_source"] != "dwarf":
        bad.append("frame %d: got %s %s, want %s %s" % (i, f["lookup_address"], got, addr, chain))
print("ok %d frames" % len(want) if not bad and want else "; ".join(bad) or "no expectations")
PY
			check_grep "^ok [1-9]" "$tmp/py" "dwarf$v $mode $name: every frame as llvm-symbolizer-19 at the call site ($(cat "$tmp/py"))"
		done
	done
	"$kp" show --dsym "$dir/bin" "$dir/reports/panic-full-2026-12-01-090000.0003.ips" >"$tmp/out"
	check_grep "inlined into fakekext_queue_report" "$tmp/out" "dwarf$v: text output shows the inline chain"
	unset KPBROWSE_SYMCACHE KPBROWSE_CACHE_DIR
done
done_testing
