#!/bin/sh
# test_lookup_batch.sh: a long `kpbrowse lookup` batch builds the symbol
# cache on a side thread while the DWARF answers, switches to it mid-run and
# leaves it for the next run (issue 25); a short batch builds none; every
# answer stays byte for byte llvm-symbolizer-19's (the committed oracle).
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
dir=$KP_FIXTURES/llvm19-dwarf5
f=fakekernel.arm64
dw=$dir/bin/$f.dSYM/Contents/Resources/DWARF/$f
n1=$(grep -c . "$dir/oracle/$f.addrs")
# the oracle repeated: more lookups than KP_SYMCACHE_BATCH (1000)
reps=6
i=0
: >"$tmp/addrs"
: >"$tmp/want"
while [ $i -lt $reps ]; do
	cat "$dir/oracle/$f.addrs" >>"$tmp/addrs"
	cat "$dir/oracle/$f.want" >>"$tmp/want"
	i=$((i + 1))
done
n=$((n1 * reps))
kpsyms() { ls "$KPBROWSE_CACHE_DIR/symcache" 2>/dev/null | grep -c '\.kpsym$'; }

export KPBROWSE_SYMCACHE=always   # the fixture is small: want a cache anyway
"$kp" lookup --dsym "$dw" <"$dir/oracle/$f.addrs" >"$tmp/got"
check "$?" = 0 "a short batch ($n1 addresses): exit 0"
cmp -s "$dir/oracle/$f.want" "$tmp/got"
check "$?" = 0 "a short batch: as llvm-symbolizer-19"
check "$(kpsyms)" = 0 "a short batch builds no cache"

"$kp" lookup --dsym "$dw" <"$tmp/addrs" >"$tmp/got"
check "$?" = 0 "a long batch ($n addresses): exit 0"
cmp -s "$tmp/want" "$tmp/got"
check "$?" = 0 "a long batch: as llvm-symbolizer-19 before, during and after the switch to the cache"
check "$(kpsyms)" = 1 "a long batch leaves the symbol cache for the next run"
"$kp" cache list >"$tmp/list"
uuid=$(awk -v f=$f '$1 == f {print $3}' "$dir/uuids.txt")
check_grep "$uuid" "$tmp/list" "cache list names it ($uuid)"
ls -l --time-style=+%s "$KPBROWSE_CACHE_DIR"/symcache/*.kpsym >"$tmp/before"

"$kp" lookup --dsym "$dw" <"$tmp/addrs" >"$tmp/got"
cmp -s "$tmp/want" "$tmp/got"
check "$?" = 0 "the next run, answered from that cache: as llvm-symbolizer-19"
ls -l --time-style=+%s "$KPBROWSE_CACHE_DIR"/symcache/*.kpsym >"$tmp/after"
cmp -s "$tmp/before" "$tmp/after"
check "$?" = 0 "the next run rebuilds nothing"

rm -rf "$KPBROWSE_CACHE_DIR"
KPBROWSE_SYMCACHE=never "$kp" lookup --dsym "$dw" <"$tmp/addrs" >"$tmp/got"
cmp -s "$tmp/want" "$tmp/got"
check "$?" = 0 "KPBROWSE_SYMCACHE=never: the same answers"
check "$(kpsyms)" = 0 "KPBROWSE_SYMCACHE=never: no cache built"
done_testing
