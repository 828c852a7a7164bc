#!/bin/sh
# test_index_stackshot.sh: watchdogs and stackshots in the index (issue 14
# item 6): indexed, also under DiagnosticReports/ProxiedDevice-Bridge (where
# a T2 Mac keeps bridgeOS reports), grouped by what they blame, and found by
# the UUID of a user-space image; schema 4: each row's kind and list --kind,
# search --zone, undated reports (no date = unknown: listed last, no first
# or last seen), and a schema 3 index migrated with its rows filled in.
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
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
titles = sorted((x["title"], x["culprit"]) for x in g)
assert ("monitoring timed out for service", "fakedaemon") in titles, titles
assert ("fakeclient hang: main thread unresponsive for NUM seconds", "fakeclient") in titles, titles
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

# ---- kinds, zones, undated reports (schema 4) ----
# a zone exhaustion panic pasted bare: no date at all; and the newer form, dated
printf '%s\n' 'panic(cpu 0 caller 0xffffff801d4ccb2b): "zalloc: \"kalloc.1024\" (100535 elements) retry fail 3"@/x/zalloc.c:2090' \
	'Kernel version:' 'Darwin Kernel Version 19.6.0: x; root:xnu-6153.141.1~1/RELEASE_X86_64' >"$dr/zone-undated.panic"
printf '%s\n' '' 'Mon Aug  3 09:45:12 2020' '' \
	'panic(cpu 2 caller 0xffffff801d4ccb2b): "zone map exhausted while allocating from zone [data.kalloc.64], likely due to memory leak in zone [data.kalloc.64] (6G total bytes, 96468923 elements allocated)"@/x/zalloc.c:1301' \
	'Kernel version:' 'Darwin Kernel Version 19.6.0: x; root:xnu-6153.141.1~1/RELEASE_X86_64' >"$dr/zone-map.panic"
touch -t 203001010000 "$dr/zone-undated.panic"   # a file time newer than every report: never its date
"$kp" index --db "$db" --no-symbols "$dr" >/dev/null 2>&1
"$kp" list --db "$db" --json >"$tmp/list.json"
python3 - "$tmp/list.json" >"$tmp/py" 2>&1 <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
kinds = {}
for r in rows:
    kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
assert kinds == {"panic": 3, "watchdog": 1, "stackshot": 3, "reset": 1}, kinds
assert rows[-1]["path"].endswith("zone-undated.panic") and rows[-1]["timestamp"] is None, rows[-1]
assert all(r["timestamp"] for r in rows[:-1]), [r["timestamp"] for r in rows]
print("ok")
PY
check "$(cat "$tmp/py")" = ok "list --json: every row's kind; the undated report last despite its new file time ($(tail -1 "$tmp/py"))"
"$kp" list --db "$db" >"$tmp/list.txt"
check_grep "^ID  *DATE (UTC)  *OS  *GROUP  *KIND  *CLASS  *HEADLINE$" "$tmp/list.txt" "list: a KIND column"
check_grep " watchdog  *wdog  *monitoring timed out for service$" "$tmp/list.txt" "  the watchdog's row says so"
# every kind's name fits its column: the headlines start in one column
check "$(awk 'NR == 1 { k = index($0, "KIND"); h = index($0, "HEADLINE"); next }
	/^@/ && substr($0, k, h - k) !~ /^[a-z-]+ +[a-z-]+ +$/ { bad++ } END { print bad + 0 }' "$tmp/list.txt")" = 0 \
	"  every row's headline starts in the same column (shutdown-stall is the longest kind, then the class)"
for k in panic:3 watchdog:1 stackshot:3 reset:1 all:8; do
	"$kp" list --db "$db" --kind "${k%:*}" --json >"$tmp/k.json"
	check "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r), all(x["kind"]==sys.argv[2] or sys.argv[2]=="all" for x in r))' "$tmp/k.json" "${k%:*}")" = "${k#*:} True" "list --kind ${k%:*}: ${k#*:} rows"
done
"$kp" list --db "$db" --kind bogus >/dev/null 2>"$tmp/err"
check "$?" = 2 "list --kind bogus: exit 2"
check_grep "panic, watchdog, stackshot, reset, hang, shutdown-stall, sleep-wake or all" "$tmp/err" "  naming the kinds"
"$kp" list --db "$db" --groups --json >"$tmp/groups.json"
python3 - "$tmp/groups.json" >"$tmp/py" 2>&1 <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
z = [x for x in g if x["title"] == "zone exhaustion: leak suspect zone kalloc.1024"]
assert len(z) == 1 and z[0]["first_seen"] is None and z[0]["last_seen"] is None, z
assert all(x["first_seen"] and x["last_seen"] for x in g if x is not z[0]), g
print("ok")
PY
check "$(cat "$tmp/py")" = ok "groups: an undated group's first/last seen are null, not the file time ($(tail -1 "$tmp/py"))"
"$kp" list --db "$db" --groups | grep 'zone kalloc' >"$tmp/g.txt"
check_grep "^[0-9]*  *1  *1  -  *-  *zone exhaustion: leak suspect zone kalloc.1024$" "$tmp/g.txt" "  and '-' in text"
"$kp" list --db "$db" --groups | grep -c 'zone exhaustion: leak suspect zone data.kalloc.64$' >"$tmp/g.txt"
check "$(cat "$tmp/g.txt")" = 1 "groups: a zone exhaustion group is titled by its zone as written, never kalloc.NUM"
"$kp" search --db "$db" --zone KALLOC.1024 --json >"$tmp/z.json"
check "$?" = 0 "search --zone (any case): exit 0"
check "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r), r[0]["path"].endswith("zone-undated.panic"))' "$tmp/z.json")" = "1 True" "  finds the zalloc panic"
"$kp" search --db "$db" --zone data.kalloc.64 --json >"$tmp/z.json"
check "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r), r[0]["kind"])' "$tmp/z.json")" = "1 panic" "search --zone: the zone map form (bracketed name)"
"$kp" search --db "$db" --zone kalloc.64 >/dev/null
check "$?" = 1 "search --zone: another zone finds nothing (exit 1)"
"$kp" search --db "$db" --zone "" >"$tmp/out" 2>"$tmp/err"
check "$?:$(wc -c <"$tmp/out")" = "2:0" "search --zone '': exit 2 before anything prints"
check_grep "needs a zone name" "$tmp/err" "  saying so"

# ---- a schema 3 index migrates: kinds, zones and dates from the archives ----
if command -v sqlite3 >/dev/null; then
	cp "$db" "$tmp/v3.db"
	sqlite3 "$tmp/v3.db" ".read $KP_TESTS_DIR/data/index-undo-v12.sql" ".read $KP_TESTS_DIR/data/index-undo-v10.sql" "DROP INDEX reports_zone; DROP TABLE group_hosts; DROP INDEX reports_kext_set; ALTER TABLE reports DROP COLUMN kext_set; DROP TABLE kext_set_members; DROP TABLE kext_sets; DROP TABLE kexts; ALTER TABLE reports DROP COLUMN kind;
		ALTER TABLE reports DROP COLUMN zone; UPDATE reports SET ts = 1900000000 WHERE ts < 0;
		UPDATE groups SET first_seen = 1900000000, last_seen = 1900000000 WHERE first_seen IS NULL;
		PRAGMA user_version = 3;"
	"$kp" list --db "$tmp/v3.db" --json >"$tmp/v3.json"
	check "$?" = 0 "a schema 3 index opens (migrated)"
	check "$(sqlite3 "$tmp/v3.db" 'PRAGMA user_version')" = 13 "  now at schema 13"
	python3 - "$tmp/list.json" "$tmp/v3.json" >"$tmp/py" 2>&1 <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a == b, (a, b)
print("ok")
PY
	check "$(cat "$tmp/py")" = ok "  its rows: the same kinds and order as a fresh index ($(tail -1 "$tmp/py"))"
	"$kp" list --db "$tmp/v3.db" --groups --json >"$tmp/v3g.json"
	check "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])) == json.load(open(sys.argv[2])))' "$tmp/groups.json" "$tmp/v3g.json")" = True "  its groups: an undated one's first/last seen null again"
	check "$("$kp" search --db "$tmp/v3.db" --zone kalloc.1024 | grep -c '^@')" = 1 "  search --zone finds the zone of a migrated row"
else
	skip "sqlite3 CLI absent: schema 3 migration"
fi

done_testing
