#!/bin/sh
# test_demo_index.sh: the index over the demo reports, with symbols: groups
# named image!function from the fixture dSYMs, culprits, UUID search, and
# --resign when the dSYMs arrive after the scan.
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
db="$tmp/db"
reports="$KP_FIXTURES/reports"

"$kp" index --db "$db" --no-symbols "$reports" >"$tmp/out"
check "$?" = 0 "index without symbols: exit 0"
check_grep "4 new, 0 unchanged, 0 duplicates, 1 skipped, 0 errors" "$tmp/out" "summary ($(cat "$tmp/out"))"
"$kp" list --groups --json --db "$db" >"$tmp/g0.json"
"$kp" index --db "$db" --resign --dsym "$KP_FIXTURES/bin" >"$tmp/out"
check "$?" = 0 "--resign with the dSYMs: exit 0"
"$kp" list --groups --json --db "$db" >"$tmp/g1.json"
python3 - "$tmp/g0.json" "$tmp/g1.json" >"$tmp/py" 2>&1 <<'PY'
import json, sys
g0, g1 = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert len(g1) == 3, len(g1)
by = {}
for g in g1:
    by.setdefault(g["culprit"], []).append(g)
fd = max(by["com.kpbrowse.FakeDriver"], key=lambda g: g["count"])
assert fd["count"] == 2 and len(fd["report_ids"]) == 2, fd
assert len(by["com.kpbrowse.FakeDriver"]) == 2   # the x86 one is another bug
assert fd["first_seen"] < fd["last_seen"], fd
assert "kernel!vm_page_lookup" in by, list(by)
assert not any("kernel!" in (g["culprit"] or "") for g in g0), [g["culprit"] for g in g0]
for g in g1:
    for k in ("group_id", "title", "culprit", "count", "first_seen", "last_seen", "report_ids"):
        assert k in g, k
print("ok")
PY
check "$(cat "$tmp/py")" = ok "groups after --resign: FakeDriver x2, vm panic named kernel!vm_page_lookup ($(tail -1 "$tmp/py"))"

"$kp" search --db "$db" --json --uuid 4c4c44a3 >"$tmp/s.json"
check "$?" = 0 "search by an 8-digit prefix: exit 0"
python3 -c '
import json,sys; rows=json.load(open(sys.argv[1]))
assert len(rows)==2 and all(r["match"]["uuid"]=="4C4C44A3-5555-3144-A151-249D146ED38D" for r in rows), rows
assert all(r["match"]["name"]=="com.kpbrowse.FakeDriver" for r in rows)
print("ok")' "$tmp/s.json" >"$tmp/py" 2>&1
check "$(cat "$tmp/py")" = ok "kext UUID prefix finds both arm64 panics ($(tail -1 "$tmp/py"))"
"$kp" search --db "$db" --uuid 4C4C44EF555531 44A1CD413F9846D32A >/dev/null 2>&1
"$kp" search --db "$db" --json --uuid 4C4C44EF5555-3144-A1CD-413F9846D32A >"$tmp/s.json"
check "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$tmp/s.json")" = 2 "x86 kernel UUID (odd dashes) finds 2 panics"
"$kp" search --db "$db" --uuid 0123abcd >/dev/null 2>&1
check "$?" = 1 "an unknown UUID: exit 1"
"$kp" search --db "$db" --uuid 12ab >/dev/null 2>&1
check "$?" = 2 "a prefix shorter than 8 digits: exit 2"
"$kp" search --db "$db" --kext com.kpbrowse.FakeDriver --json >"$tmp/s.json"
check "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$tmp/s.json")" = 4 "search --kext: 3 FakeDriver panics + 1 that had it loaded"
"$kp" search --db "$db" vm_page_check_sanity --json >"$tmp/s.json"
check "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$tmp/s.json")" = 1 "full-text search"
# an index written by schema v1 (archives inside the report rows) migrates
cp "$KP_TESTS_DIR/data/index-v1.sqlite3" "$tmp/v1.db"
sum_v1=$(cksum <"$KP_TESTS_DIR/data/index-v1.sqlite3")
"$kp" list --db "$tmp/v1.db" --json >"$tmp/v1.json"
check "$?" = 0 "a v1 index opens (migrated)"
check "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$tmp/v1.json")" = 4 "v1 index: its 4 reports listed"
check "$(python3 -c 'import json,sys; print(sorted(set(r["kind"] for r in json.load(open(sys.argv[1])))))' "$tmp/v1.json")" = "['panic']" "v1 index: its reports' kind filled in from the archives"
"$kp" list --db "$db" --json >"$tmp/fresh.json"
check "$(python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); c=lambda r: sorted(x["class"] for x in r); print(c(a) == c(b) and None not in c(b))' "$tmp/fresh.json" "$tmp/v1.json")" = True \
	"v1 index: its reports' cause classes filled in from the archives (schema 11), as a fresh index has them"
# its Apple kexts, never indexed before schema 8, found as in a fresh index
"$kp" search --db "$db" --json --kext com.apple.iokit.IOPCIFamily >"$tmp/pci.json"
"$kp" search --db "$tmp/v1.db" --json --kext com.apple.iokit.IOPCIFamily >"$tmp/pci1.json"
check "$(python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); print(len(a), sorted(x["id"] for x in a)==sorted(x["id"] for x in b), set(x["match"]["role"] for x in b))' "$tmp/pci.json" "$tmp/pci1.json")" = "4 True {'image'}" \
	"v1 index: search --kext com.apple.iokit.IOPCIFamily finds its 4 reports, as a fresh index does"
"$kp" show --db "$tmp/v1.db" --no-symbols @2 >"$tmp/out"
check_grep "vm_page_check_sanity" "$tmp/out" "v1 index: show @2 from the moved archive"
if command -v sqlite3 >/dev/null; then
	check "$(sqlite3 "$tmp/v1.db" 'PRAGMA user_version')" = 13 "v1 index: now at schema 13 (hosts, kinds, last parts, group hosts, loaded kexts, text without them, image sets, SHA-256 content hashes, cause classes; 13 is the PostgreSQL store's)"
	check "$(sqlite3 "$tmp/v1.db" "SELECT count(*) FROM group_hosts"):$(sqlite3 "$tmp/v1.db" "SELECT count(*) FROM groups g
		WHERE hosts <> (SELECT count(DISTINCT coalesce(host_key, host, '')) FROM reports WHERE group_id = g.id)")" = "3:0" \
		"v1 index: each group's hosts kept as rows (schema 7), as many as a recount"
	check "$(sqlite3 "$tmp/v1.db" "SELECT count(*) FROM sqlite_master WHERE name = 'image_members_last'")" = 1 \
		"v1 index: kexts' last parts indexed"
	check "$(sqlite3 "$tmp/v1.db" "SELECT count(*) FROM sqlite_master WHERE name = 'reports_exact'"):$(sqlite3 "$db" "SELECT count(*) FROM sqlite_master WHERE name = 'reports_exact'")" = 0:0 \
		"v1 index and a fresh one: no index on exact keys (schema 9: nothing reads it)"
	check "$(sqlite3 "$tmp/v1.db" "EXPLAIN QUERY PLAN SELECT count(DISTINCT i.set_id) FROM image_members i WHERE
		i.name <> '' AND i.last = 'x' COLLATE NOCASE" |
		grep -c image_members_last)" = 1 "  and a last-part match reads that index, not every image"
	last_wrong="SELECT count(*) FROM image_members WHERE name <> '' AND last <> substr(name, length(rtrim(name, replace(name, '.', ''))) + 1)"
	check "$(sqlite3 "$tmp/v1.db" "$last_wrong"):$(sqlite3 "$db" "$last_wrong"):$(sqlite3 "$db" "SELECT count(*) > 0 AND count(*) = (SELECT count(*) FROM image_members WHERE name LIKE '%.FakeDriver') FROM image_members WHERE last = 'FakeDriver'")" = 0:0:1 \
		"  each image's last part kept (schema 9), filled in a v1 index, written by a fresh one as the SQL makes it"
else
	skip "sqlite3 CLI absent"
	skip "sqlite3 CLI absent"
	skip "sqlite3 CLI absent"
	skip "sqlite3 CLI absent"
	skip "sqlite3 CLI absent"
	skip "sqlite3 CLI absent"
fi
# schema 11: every content hash the SHA-256 of the archived bytes (the v1
# index keeps SHA-1s); three of its reports are the fixtures' bytes today
# (one fixture was edited since), found again as duplicates, not new
check "$(python3 - "$tmp/v1.db" <<'PY'
import hashlib, sqlite3, sys, zlib
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT r.content_hash, a.data FROM reports r JOIN archives a ON a.report_id = r.id").fetchall()
ok = [h == hashlib.sha256(zlib.decompress(d)).hexdigest() for h, d in rows]
left = db.execute("SELECT count(*) FROM meta WHERE key = 'sha1_hashes_left'").fetchone()[0]
print(len(rows), all(ok), left)
PY
)" = "4 True 0" "v1 index: its 4 content hashes made the SHA-256 of their archived bytes (schema 11), none left as SHA-1"
# (a copy: the committed index names the paths of the tree it was made in,
# and in that tree the files would be "unchanged", not found by their bytes)
cp -R "$reports" "$tmp/v1-reports"
"$kp" index --db "$tmp/v1.db" --no-symbols "$tmp/v1-reports" >"$tmp/out"
check_grep "1 new, 0 unchanged, 3 duplicates" "$tmp/out" "v1 index: the fixtures indexed into it are 3 duplicates by SHA-256 and the edited one ($(cat "$tmp/out"))"
check "$(cksum <"$KP_TESTS_DIR/data/index-v1.sqlite3")" = "$sum_v1" "the committed v1 index itself is untouched"
# archives of both kinds in one index: the v1 index's 4 are zlib streams
# (0x78 ...), the report just added a zstd frame (28 B5 2F FD); each read
# back by export, show @ID and db rebuild's salvage, checked against its hash
kinds() {
	python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
k = [bytes(d[:4]) for (d,) in db.execute("SELECT data FROM archives ORDER BY report_id")]
print(sum(x[:1] == b"\x78" for x in k), sum(x == b"\x28\xb5\x2f\xfd" for x in k), len(k))
PY
}
check "$(kinds "$tmp/v1.db")" = "4 1 5" "v1 index now holds 4 zlib archives (written then) and 1 zstd archive (written now)"
# every report exported, its bytes hashed as its row says
exported() {
	for id in $(sqlite3_py "$1" "SELECT id FROM reports ORDER BY id"); do
		rm -f "$tmp/exp-$id"
		"$kp" export --db "$1" "@$id" "$tmp/exp-$id" 2>"$tmp/exp.err" || echo "export @$id: $(cat "$tmp/exp.err")"
	done
	python3 - "$1" "$tmp" <<'PY'
import hashlib, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT id, content_hash FROM reports ORDER BY id").fetchall()
print(len(rows), sum(hashlib.sha256(open("%s/exp-%d" % (sys.argv[2], i), "rb").read()).hexdigest() == h for i, h in rows))
PY
}
sqlite3_py() { python3 -c 'import sqlite3,sys; [print(*r) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])]' "$@"; }
check "$(exported "$tmp/v1.db")" = "5 5" "both kinds: export gives every report's bytes back, as hashed"
new_id=$(sqlite3_py "$tmp/v1.db" "SELECT max(id) FROM reports")
"$kp" show --db "$tmp/v1.db" --no-symbols "@$new_id" >"$tmp/show-new" 2>&1
check "$?" = 0 "both kinds: show @$new_id (zstd) works ($(head -c 200 "$tmp/show-new"))"
"$kp" show --db "$tmp/v1.db" --no-symbols @1 >"$tmp/show-old" 2>&1
check "$?" = 0 "both kinds: show @1 (zlib) works ($(head -c 200 "$tmp/show-old"))"
# db rebuild with no folder left: every report from the old index's archives
mkdir "$tmp/none"
cp "$tmp/v1.db" "$tmp/mixed.db"
"$kp" db rebuild --db "$tmp/mixed.db" "$tmp/none" >"$tmp/out" 2>"$tmp/err"
check "$?" = 0 "both kinds: db rebuild from the archives alone, exit 0 ($(head -c 200 "$tmp/err"))"
check_grep "0 reports from 0 files, 5 more from the old archive" "$tmp/out" "  all 5 salvaged ($(cat "$tmp/out"))"
check "$(exported "$tmp/mixed.db")" = "5 5" "  and each still exports as hashed"
check "$(kinds "$tmp/mixed.db")" = "0 5 5" "  rewritten as zstd archives"
# a zstd archive cut short is damaged, said so
python3 - "$tmp/mixed.db" "$new_id" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE archives SET data = substr(data, 1, length(data) - 3) WHERE report_id = ?", (int(sys.argv[2]),))
db.commit()
PY
"$kp" export --db "$tmp/mixed.db" "@$new_id" "$tmp/cut" >/dev/null 2>"$tmp/err"
check "$?" = 2 "a zstd archive cut short: export fails, exit 2"
check_grep "damaged" "$tmp/err" "  saying it is damaged ($(cat "$tmp/err"))"
done_testing
