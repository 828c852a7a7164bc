#!/bin/sh
# test_index_stackshot.sh: watchdogs and stackshots in the index (issue 14
# item 6): indexed, also under DiagnosticReports/ProxiedDevice-Bridge (where
# a T2 Mac keeps bridgeOS reports), grouped by what they blame, and found by
# the UUID of a user-space image.
set -u
. "$KP_TESTS_DIR/tap.sh"
kp=$KPBROWSE
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KPBROWSE_CACHE_DIR="$tmp/cache"
unset KPBROWSE_DSYM_PATH
db="$tmp/index.db"
dr="$tmp/DiagnosticReports"
mkdir -p "$dr/ProxiedDevice-Bridge"
cp "$KP_FIXTURES"/stackshots/*.ips "$dr/"
mv "$dr/ForceReset-2026-11-24-120000.ips" "$dr/ProxiedDevice-Bridge/"
cp "$KP_FIXTURES/reports/panic-full-2026-11-20-101500.0001.ips" "$dr/ProxiedDevice-Bridge/"

"$kp" index --db "$db" --no-symbols --json "$dr" >"$tmp/sum.json" 2>"$tmp/err"
check "$?" = 0 "index: exit 0 ($(head -c 200 "$tmp/err"))"
python3 - "$tmp/sum.json" >"$tmp/py" 2>&1 <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["new"] == 6 and s["skipped"] == 0, s
print("ok")
PY
check "$(cat "$tmp/py")" = ok "index: 5 stackshot-family reports and a panic, ProxiedDevice-Bridge included ($(tail -1 "$tmp/py"))"

"$kp" list --db "$db" --json >"$tmp/list.json"
python3 - "$tmp/list.json" >"$tmp/py" 2>&1 <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
heads = sorted(r["headline"] for r in rows)
assert "monitoring timed out for service" in heads, heads
assert "button reset: power button held for 10 seconds" in heads, heads
assert "stackshot (bug_type 999)" in heads, heads
print("ok")
PY
check "$(cat "$tmp/py")" = ok "list: the reports with their reasons ($(tail -1 "$tmp/py"))"

"$kp" list --db "$db" --groups --json >"$tmp/groups.json"
python3 - "$tmp/groups.json" >"$tmp/py" 2>&1 <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
titles = sorted(x["title"] for x in g)
assert "monitoring timed out for service (fakedaemon)" in titles, titles
assert any(t.startswith("fakeclient hang: main thread unresponsive for NUM seconds (fakeclient)") for t in titles), titles
print("ok")
PY
check "$(cat "$tmp/py")" = ok "groups: a watchdog by its blamed process, a stackshot by reason and frontmost process ($(tail -1 "$tmp/py"))"

# fakekext.arm64's UUID is a user image (kind P) in the stackshots and a kext in the panic
"$kp" search --db "$db" --json --uuid 4C4C44A3-5555-3144-A151-249D146ED38D >"$tmp/uuid.json"
python3 - "$tmp/uuid.json" >"$tmp/py" 2>&1 <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 6, len(rows)
print("ok")
PY
check "$(cat "$tmp/py")" = ok "search --uuid: user-space images found like kexts ($(tail -1 "$tmp/py"))"

done_testing
