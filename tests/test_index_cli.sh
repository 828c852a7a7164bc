#!/bin/sh
# test_index_cli.sh: the index commands end to end: JSON rows, exit codes,
# export, foreign db files, read-only folders, two concurrent indexers, and
# kill -9 in the middle of a scan.  Uses only temp dirs and --db.
set -u
K=${KPBROWSE:?}
GEN="$KP_BUILD_DIR/tests/test_index"
T=$(mktemp -d "${TMPDIR:-/tmp}/kpi-sh-XXXXXX") || exit 2
trap 'chmod -R u+w "$T" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT INT TERM
. "$KP_TESTS_DIR/tap.sh"
count() { grep -c "$1" "$2" 2>/dev/null || true; }

C="$T/DiagnosticReports"
mkdir "$C" && "$GEN" --gen "$C" || { echo "Bail out! cannot generate corpus"; exit 2; }
sums() { find "$C" -type f | sort | while read -r f; do cksum "$f"; done; }
sums >"$T/before"
chmod -R a-w "$C"

DB="$T/db/index.sqlite3"
"$K" index --db "$DB" --json "$C" >"$T/out.json" 2>"$T/err"
check '[ $? -eq 0 ]' "index exits 0"
check 'grep -Eq "\"new\":[[:space:]]*5," "$T/out.json" && grep -Eq "\"duplicates\":[[:space:]]*2," "$T/out.json" && grep -Eq "\"skipped\":[[:space:]]*2," "$T/out.json"' \
	"JSON summary: 5 new, 2 duplicates, 2 skipped (read-only folder)"
check '[ ! -s "$T/err" ]' "no progress line when stderr is not a TTY"
"$K" index --db "$DB" "$C" >"$T/out.txt"
check 'grep -q "0 new, 7 unchanged, 0 duplicates, 2 skipped, 0 errors" "$T/out.txt"' "rescan: all unchanged"
sums >"$T/after"
check 'cmp -s "$T/before" "$T/after"' "report files unchanged (checksums)"

"$K" list --db "$DB" --json >"$T/list.json"
for key in id path timestamp os_version headline group_id group_count archived; do
	check '[ "$(count "\"$key\":" "$T/list.json")" -eq 5 ]' "list --json rows have $key"
done
"$K" list --db "$DB" --groups --json >"$T/groups.json"
check '[ "$(count "\"group_id\":" "$T/groups.json")" -eq 3 ] && grep -Eq "\"count\":[[:space:]]*3," "$T/groups.json"' "3 groups, one of 3"
for key in title culprit count first_seen last_seen report_ids; do
	check '[ "$(count "\"$key\":" "$T/groups.json")" -eq 3 ]' "group rows have $key"
done
for key in trend days first_build last_build builds new regressed; do
	check '[ "$(count "\"$key\":" "$T/groups.json")" -eq 3 ]' "group rows have a trend with $key"
done

"$K" search --db "$DB" --json --uuid 5e7a1c2b-9d44 >"$T/s.json"
check '[ $? -eq 0 ] && [ "$(count "\"role\":[[:space:]]*\"backtrace\"" "$T/s.json")" -eq 4 ]' "search --uuid: 4 reports as backtrace"
check '[ "$(count "\"uuid\":[[:space:]]*\"5E7A1C2B-9D44-4F1E-8B3A-77C0DE11A001\"" "$T/s.json")" -eq 4 ]' "match carries the canonical UUID"
"$K" search --db "$DB" --json --limit 3 --uuid 5e7a1c2b-9d44 >"$T/s3.json" 2>"$T/s3.err"
check '[ $? -eq 0 ] && [ "$(count "\"id\":" "$T/s3.json")" -eq 3 ]' "search --limit 3: 3 of the 4 reports"
check 'grep -q "the newest 3 of 4 reports" "$T/s3.err"' "  stderr says 3 of 4"
"$K" search --db "$DB" --json --limit 1 --uuid 5e7a1c2b-9d44 >"$T/s1.json" 2>/dev/null
first_id() { sed -n 's/.*"id":[[:space:]]*\([0-9]*\).*/\1/p' "$1" | head -1; }
check '[ -n "$(first_id "$T/s1.json")" ] && [ "$(first_id "$T/s1.json")" = "$(first_id "$T/s.json")" ]' "  --limit 1: the newest of them"
"$K" search --db "$DB" --limit 4 --uuid 5e7a1c2b-9d44 >/dev/null 2>"$T/s4.err"
check '[ ! -s "$T/s4.err" ]' "  --limit 4 of 4: no note"
"$K" search --db "$DB" --limit 0 --uuid 5e7a1c2b-9d44 >/dev/null 2>&1
check '[ $? -eq 2 ]' "  --limit 0 refused"
"$K" search --db "$DB" --uuid DEADBEEF >/dev/null
check '[ $? -eq 1 ]' "search with no match exits 1"
"$K" search --db "$DB" --uuid 12 >/dev/null 2>&1
check '[ $? -eq 2 ]' "short UUID prefix is a usage error"
"$K" search --db "$DB" --kext org.sample.kext.Gadget >"$T/k.txt"
check '[ $? -eq 0 ] && grep -q "gadget-1.panic" "$T/k.txt"' "search --kext"
"$K" search --db "$DB" ring overflow --json >"$T/t.json"
check '[ "$(count "\"id\":" "$T/t.json")" -eq 3 ]' "full-text search"

id=$(sed -n 's/.*"id":[[:space:]]*\([0-9]*\),.*/\1/p' "$T/t.json" | head -1)
src=$(tr -d '\n' <"$T/t.json" | sed 's/.*"id":[[:space:]]*'"$id"',[[:space:]]*"path":[[:space:]]*"\([^"]*\)".*/\1/')
"$K" export --db "$DB" "@$id" "$T/exported"
check '[ $? -eq 0 ] && cmp -s "$src" "$T/exported"' "export @$id is byte-identical"
echo keep >"$T/exists"
"$K" export --db "$DB" "@$id" "$T/exists" 2>/dev/null
check '[ $? -ne 0 ] && [ "$(cat "$T/exists")" = keep ]' "export refuses an existing file"

printf 'not a database\n' >"$T/foreign.db"
cp "$T/foreign.db" "$T/foreign.orig"
"$K" index --db "$T/foreign.db" "$C" >/dev/null 2>"$T/ferr"
check '[ $? -eq 2 ] && grep -q "foreign.db" "$T/ferr" && cmp -s "$T/foreign.db" "$T/foreign.orig"' \
	"foreign file at the db path: refused by name, untouched"
"$K" list --db "$T/none.sqlite3" >/dev/null 2>&1
check '[ $? -eq 2 ] && [ ! -e "$T/none.sqlite3" ]' "list does not create a db"

# two indexers at once, and readers (list, search, hosts, the TUI when tmux
# is here) all the while: no "database is locked" reaches anyone (issue 32
# item 13)
B="$T/big"
mkdir "$B" && "$GEN" --gen-large "$B" 3000
"$K" index --db "$T/c.sqlite3" --json "$B" >"$T/c1.json" 2>&1 &
p1=$!
"$K" index --db "$T/c.sqlite3" --json "$B" >"$T/c2.json" 2>&1 &
p2=$!
tui=""
if command -v tmux >/dev/null 2>&1; then
	tui="kp-tui-$$"
	w=0
	while [ ! -e "$T/c.sqlite3" ] && [ $w -lt 1000 ]; do sleep 0.01; w=$((w + 1)); done
	tmux new-session -d -s "$tui" -x 120 -y 30 "\"$K\" --db \"$T/c.sqlite3\" 2>\"$T/tui.err\"; sleep 30"
fi
: >"$T/readers.err"
reads=0
while kill -0 $p1 2>/dev/null || kill -0 $p2 2>/dev/null; do
	for cmd in list "search exceeds" hosts; do
		# shellcheck disable=SC2086
		"$K" $cmd --db "$T/c.sqlite3" >/dev/null 2>>"$T/readers.err"
		r=$?
		[ $r -le 1 ] || echo "exit $r: $cmd" >>"$T/readers.err"
		reads=$((reads + 1))
	done
	[ -n "$tui" ] && tmux send-keys -t "$tui" j
done
wait $p1; r1=$?
wait $p2; r2=$?
# the moment that race hits: a reader opening the file another process has
# made but not yet given its schema waits for it
: >"$T/e.sqlite3"
"$K" list --db "$T/e.sqlite3" >"$T/e.out" 2>"$T/e.err" &
pe=$!
sleep 0.3
"$K" index --db "$T/e.sqlite3" "$C" >/dev/null 2>&1
wait $pe
check '[ $? -eq 0 ] && [ ! -s "$T/e.err" ]' \
	"a reader of an index being created waits for its schema, then lists what is stored ($(head -c 200 "$T/e.err"))"
check '[ ! -s "$T/readers.err" ]' "readers during two indexers: $reads runs, no error ($(head -c 200 "$T/readers.err"))"
check '! grep -qi "locked" "$T/c1.json" "$T/c2.json" "$T/readers.err"' "two indexers and readers: no 'database is locked'"
if [ -n "$tui" ]; then
	sleep 1
	tmux capture-pane -p -t "$tui" >"$T/tui.screen"
	tmux kill-session -t "$tui" 2>/dev/null
	check '! grep -qi "locked\|error" "$T/tui.screen" "$T/tui.err"' "the TUI during two indexers: no error on its screen"
else
	skip "tmux not installed: the TUI during two indexers"
fi
new1=$(sed -n 's/.*"new":[[:space:]]*\([0-9]*\).*/\1/p' "$T/c1.json")
new2=$(sed -n 's/.*"new":[[:space:]]*\([0-9]*\).*/\1/p' "$T/c2.json")
check '[ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ $((new1 + new2)) -eq 3000 ]' "concurrent indexers: $new1 + $new2 new = 3000"
[ -n "$new1" ] && [ -n "$new2" ] || { echo "# exits $r1 $r2"; grep -v '^[[:space:]]*[]{}["]' "$T/c1.json" "$T/c2.json" | head -5 | sed 's/^/# /'; }
cc=$("$GEN" --check "$T/c.sqlite3")
check '[ "$cc" = "ok 3000 3000 3 3000 0" ]' "concurrent: consistent, no double records ($cc)"

# kill -9 mid-scan, then rerun
L="$T/large"
mkdir "$L" && "$GEN" --gen-large "$L" 8000
"$K" index --db "$T/k.sqlite3" "$L" >/dev/null 2>&1 &
pk=$!
i=0
while [ $i -lt 100 ] && [ ! -s "$T/k.sqlite3-wal" ] && [ ! -s "$T/k.sqlite3" ]; do sleep 0.05; i=$((i + 1)); done
sleep 0.4
kill -9 $pk 2>/dev/null
wait $pk 2>/dev/null
"$GEN" --check "$T/k.sqlite3" >"$T/mid" 2>&1
check 'grep -q "^ok " "$T/mid"' "after kill -9: integrity ok ($(cat "$T/mid"))"
"$K" index --db "$T/k.sqlite3" --json "$L" >"$T/k.json"
unch=$(sed -n 's/.*"unchanged":[[:space:]]*\([0-9]*\).*/\1/p' "$T/k.json")
newk=$(sed -n 's/.*"new":[[:space:]]*\([0-9]*\).*/\1/p' "$T/k.json")
check '[ $((unch + newk)) -eq 8000 ]' "rerun completes: $unch unchanged + $newk new"
check '[ "$("$GEN" --check "$T/k.sqlite3")" = "ok 8000 8000 3 8000 0" ]' "after rerun: complete and consistent"

# killed at random points (issue 32 item 11): the short run of
# scripts/fault-index.sh (sh scripts/fault-index.sh build for the long one)
sh "$KP_TESTS_DIR/../scripts/fault-index.sh" "$KP_BUILD_DIR" 3 1500 >"$T/fault.tap" 2>&1
check '[ $? -eq 0 ] && [ "$(grep -c "^ok " "$T/fault.tap")" -ge 6 ]' \
	"index killed at 3 random points: intact after each, every report once after ($(grep -v '^ok' "$T/fault.tap" | head -3 | tr '\n' ' '))"

# --db picks the store: a PostgreSQL target goes to a server (none here:
# a named error, exit 2, no file made; tests/test_index_pg.sh runs one)
for target in "postgresql://kp@%2Fnonexistent/kp" "postgres:///kp?host=/nonexistent" "host=/nonexistent dbname=kp"; do
	"$K" list --db "$target" >"$T/pg.out" 2>"$T/pg.err"
	check '[ $? -eq 2 ] && grep -Eq "cannot connect|PostgreSQL support is not built in" "$T/pg.err" && [ ! -e "$target" ]' \
		"--db '$target' selects the PostgreSQL store: no server, exit 2, no file made"
done
KPBROWSE_DB="postgresql://kp@%2Fnonexistent/kp" "$K" index "$C" >/dev/null 2>"$T/pg.err"
check '[ $? -eq 2 ] && grep -Eq "cannot connect|PostgreSQL support is not built in" "$T/pg.err"' "KPBROWSE_DB likewise"

# the real corpus
R="$KP_REAL_DIR"
if [ -d "$R" ]; then
	"$K" index --db "$T/real.sqlite3" --json "$R" >"$T/r.json"
	check '[ $? -eq 0 ] && grep -Eq "\"errors\":[[:space:]]*\[\]" "$T/r.json"' "real corpus: zero errors"
	# trends (issue 34 item 2) of other Macs' reports: now is the newest
	# report's day (2026-09-29), each group has one report
	trend_of() { # FILE.json CULPRIT-PART: the trend of the group whose culprit holds it, as "k=v ..."
		python3 -c 'import json,sys
g=[x for x in json.load(open(sys.argv[1])) if sys.argv[2] in (x["culprit"] or "")][0]["trend"]
print("from=%s days=%s first=%s last=%s builds=%s new=%s regressed=%s newbuild=%s" % (g["days_from"], ",".join(map(str, g["days"])) if len(g["days"]) < 5 else "%d:%d" % (len(g["days"]), sum(g["days"])), g["first_build"], g["last_build"], ",".join("%s:%d" % kv for kv in g["builds"].items()), g["new"], g["regressed"], g["new_build"]))' "$1" "$2"
	}
	env -u KPBROWSE_NOW "$K" list --db "$T/real.sqlite3" --groups --json >"$T/rg.json"
	check '[ "$(trend_of "$T/rg.json" AppleT8132)" = "from=2026-09-29 days=1 first=26A428 last=26A428 builds=26A428:1 new=True regressed=False newbuild=True" ]' \
		"real: the newest report's group: new, one report today, its build"
	check '[ "$(trend_of "$T/rg.json" AppleARMWatchdogTimer)" = "from=2026-09-14 days=16:1 first=25G83 last=25G83 builds=25G83:1 new=True regressed=False newbuild=True" ]' \
		"real: 15 days ago on 25G83, newer than every Mac build before it: new"
	check '[ "$(trend_of "$T/rg.json" AppleSEPKeyStore)" = "from=2026-07-02 days=90:0 first=23B85 last=23B85 builds=23B85:1 new=False regressed=False newbuild=False" ]' \
		"real: an iPhone's report of January: 90 days without, its build (another platform's) not new"
	check '[ "$(python3 -c "import json,sys; print(sum(1 for x in json.load(open(sys.argv[1])) if x[\"trend\"][\"regressed\"]))" "$T/rg.json")" = 0 ]' \
		"real: one report a group: none regressed"
	KPBROWSE_NOW=2027-06-01 "$K" list --db "$T/real.sqlite3" --groups --json >"$T/rg2.json"
	check '[ "$(trend_of "$T/rg2.json" AppleT8132)" = "from=2027-03-04 days=90:0 first=26A428 last=26A428 builds=26A428:1 new=False regressed=False newbuild=False" ]' \
		"real: KPBROWSE_NOW=2027-06-01: the same group is 8 months old"
	KPBROWSE_NOW=someday "$K" list --db "$T/real.sqlite3" --groups --json >/dev/null 2>"$T/rg3.err"
	check '[ $? -ne 0 ] && grep -q "KPBROWSE_NOW" "$T/rg3.err"' "real: a KPBROWSE_NOW that is no date is refused"
	# every loaded kext is searchable, Apple's too (issue 20, schema 8): an
	# M1's list names IONVMeFamily with no UUID (an image match); the
	# hackintosh's backtrace names it with its UUID
	m1=text-m1-macos12-usbhost-dataabort-1.txt hk=text-intel-hackintosh-bigsur-nvme-1.txt
	role_of() { # FILE.json REPORT: the match role of REPORT's row, "-" when absent
		python3 -c 'import json,sys; r=[x["match"]["role"] for x in json.load(open(sys.argv[1])) if x["path"].endswith("/"+sys.argv[2])]; print(r[0] if r else "-")' "$1" "$2"
	}
	# issue 31 item 4: copies of other Macs' reports read here are never
	# this machine's: keyless ones are (unknown); --host says whose they are
	me=$(hostname 2>/dev/null || uname -n)
	"$K" hosts --db "$T/real.sqlite3" --json >"$T/h.json"
	check '[ "$(python3 -c "import json,sys; print(sum(1 for h in json.load(open(sys.argv[1])) if h[\"host\"] == sys.argv[2]))" "$T/h.json" "$me")" = 0 ]' \
		"hosts: no report is attributed to the machine that indexed them ($me)"
	"$K" hosts --db "$T/real.sqlite3" >"$T/h.txt"
	check 'grep -q "^(unknown) " "$T/h.txt"' "hosts: reports without a key are (unknown)"
	env -u KPBROWSE_HOST "$K" index --db "$T/named.sqlite3" --host lab-mac-07 --no-symbols "$R" >/dev/null 2>&1
	"$K" hosts --db "$T/named.sqlite3" --json >"$T/hn.json"
	hn=$(python3 -c 'import json,sys; print(",".join(sorted({str(h["host"]) for h in json.load(open(sys.argv[1]))})))' "$T/hn.json")
	check '[ "$hn" = lab-mac-07 ]' \
		"index --host lab-mac-07: every report is that Mac's"
	"$K" search --db "$T/real.sqlite3" --json --kext com.apple.iokit.IONVMeFamily >"$T/nv.json"
	check '[ $? -eq 0 ] && [ "$(role_of "$T/nv.json" $m1):$(role_of "$T/nv.json" $hk)" = image:backtrace ]' \
		"search --kext com.apple.iokit.IONVMeFamily: a report that only loaded it (image), one that ran it (backtrace)"
	nv=$(grep -l "com.apple.iokit.IONVMeFamily" "$R"/* | grep -vc MANIFEST)
	check '[ "$(count "\"id\":" "$T/nv.json")" -ge "$nv" ]' "  every report naming it is found ($(count "\"id\":" "$T/nv.json") for $nv files naming it in full)"
	"$K" search --db "$T/real.sqlite3" --json --kext ionvmefamily >"$T/nvl.json"
	check 'cmp -s "$T/nv.json" "$T/nvl.json"' "  its last part alone, any case: the same rows"
	"$K" search --db "$T/real.sqlite3" --json --kext com.apple.filesystems.autofs >"$T/mp.json"
	check '[ $? -eq 0 ] && [ "$(role_of "$T/mp.json" $m1)" = image ]' "  an Apple kext only in the loaded list (autofs) is found too"
	"$K" search --db "$T/real.sqlite3" --json --uuid 2a44dc48-b629-386c-985e-3be03cca48f2 >"$T/nu.json"
	check '[ $? -eq 0 ] && [ "$(count "\"id\":" "$T/nu.json")" -eq 1 ] && [ "$(role_of "$T/nu.json" $hk)" = backtrace ]' \
		"search --uuid of an Apple kext's UUID: the report that has it"
	# an index written by schema 7 (no kext sets) gets them when opened
	if command -v sqlite3 >/dev/null; then
		cp "$T/real.sqlite3" "$T/v7.sqlite3"
		sqlite3 "$T/v7.sqlite3" ".read $KP_TESTS_DIR/data/index-undo-v12.sql" ".read $KP_TESTS_DIR/data/index-undo-v10.sql" "DROP INDEX reports_kext_set; ALTER TABLE reports DROP COLUMN kext_set;
			DROP TABLE kext_set_members; DROP TABLE kext_sets; DROP TABLE kexts; PRAGMA user_version = 7;"
		"$K" search --db "$T/v7.sqlite3" --json --kext com.apple.iokit.IONVMeFamily >"$T/nv7.json"
		check '[ $? -eq 0 ] && cmp -s "$T/nv.json" "$T/nv7.json"' "a schema 7 index: the same rows once opened (migrated, filled from the archives)"
		check '[ "$(sqlite3 "$T/v7.sqlite3" "PRAGMA user_version")" = 13 ]' "  now at schema 13"
	else
		skip "sqlite3 CLI absent"
		skip "sqlite3 CLI absent"
	fi
	# cause classes (issue 34, schema 11): list --class gives as many
	# reports of each class as the hand labels name
	labels="$KP_TESTS_DIR/data/real-classes.tsv"
	for c in $(sed 1d "$labels" | cut -f2 | sort -u); do
		want=$(sed 1d "$labels" | cut -f2 | grep -cx "$c")
		"$K" list --db "$T/real.sqlite3" --class "$c" --json >"$T/cl.json"
		got=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r) if all(x["class"]==sys.argv[2] for x in r) else -1)' "$T/cl.json" "$c")
		check '[ "$got" = "$want" ]' "list --class $c: $want rows, each of that class ($got)"
	done
	"$K" list --db "$T/real.sqlite3" --class bogus >/dev/null 2>"$T/cl.err"
	check '[ $? -eq 2 ] && grep -q "not .bogus." "$T/cl.err"' "list --class bogus: exit 2, said"
	# an index written by schema 11 (no class) gets every report's class
	# from its archive when opened
	if command -v sqlite3 >/dev/null; then
		cp "$T/real.sqlite3" "$T/v10.sqlite3"
		sqlite3 "$T/v10.sqlite3" ".read $KP_TESTS_DIR/data/index-undo-v12.sql"
		"$K" list --db "$T/real.sqlite3" --json >"$T/c11.json"
		"$K" list --db "$T/v10.sqlite3" --json >"$T/c10.json"
		check 'cmp -s "$T/c11.json" "$T/c10.json" && [ "$(grep -c "\"class\":[[:space:]]*\"[a-z-]*\"" "$T/c10.json")" -ge 23 ] &&
			[ "$(sqlite3 "$T/v10.sqlite3" "PRAGMA user_version")" = 13 ]' \
			"a schema 11 index: once opened (migrated, filled from the archives) every row has the class a fresh index has"
	else
		n=$((n + 1)); echo "ok $n - # SKIP sqlite3 CLI absent"
	fi
	# schema 9: the text search leaves the loaded kext list out (searched
	# by kext: autofs above); the words around it stay
	has_file() { # FILE.json REPORT: 1 when REPORT's row is in FILE, else 0
		python3 -c 'import json,sys; print(int(any(x["path"].endswith("/"+sys.argv[2]) for x in json.load(open(sys.argv[1])))))' "$1" "$2"
	}
	"$K" search --db "$T/real.sqlite3" --json autofs >"$T/af.json"
	"$K" search --db "$T/real.sqlite3" --json Stackshot Succeeded >"$T/ss.json"
	check '[ "$(has_file "$T/af.json" $m1):$(has_file "$T/ss.json" $m1)" = 0:1 ]' \
		"search TEXT: a kext only in the loaded list is not text (autofs), the lines after the list are"
	# an index written by schema 8 (its text made with the list) has its
	# text search remade from the archives when opened: a word the old
	# rule indexed is gone, and every search is a fresh index's
	if command -v sqlite3 >/dev/null; then
		cp "$T/real.sqlite3" "$T/v8.sqlite3"
		id=$(sqlite3 "$T/v8.sqlite3" "SELECT report_id FROM paths WHERE path LIKE '%/$m1'")
		sqlite3 "$T/v8.sqlite3" ".read $KP_TESTS_DIR/data/index-undo-v12.sql" ".read $KP_TESTS_DIR/data/index-undo-v10.sql" "INSERT INTO panic_fts(rowid, body) VALUES ($id, 'com.apple.filesystems.autofs 3.0');
			PRAGMA user_version = 8;"
		check '[ "$(sqlite3 "$T/v8.sqlite3" "SELECT count(*) FROM panic_fts WHERE panic_fts MATCH '\''autofs'\''")" -ge 1 ]' \
			"a schema 8 index whose text holds a loaded kext"
		"$K" search --db "$T/v8.sqlite3" --json autofs >"$T/af8.json"
		"$K" search --db "$T/v8.sqlite3" --json Stackshot Succeeded >"$T/ss8.json"
		check '[ "$(has_file "$T/af8.json" $m1)" = 0 ] && cmp -s "$T/ss.json" "$T/ss8.json"' \
			"  once opened (migrated): the kext is not text, the text search is a fresh index's"
		check '[ "$(sqlite3 "$T/v8.sqlite3" "PRAGMA user_version")" = 13 ] &&
			sqlite3 "$T/v8.sqlite3" ".read $KP_TESTS_DIR/data/index-undo-v12.sql" ".read $KP_TESTS_DIR/data/index-undo-v10.sql" "INSERT INTO panic_fts(panic_fts, rank) VALUES ('\''integrity-check'\'', 0)"' \
			"  now at schema 13, its text search whole (FTS5 integrity-check)"
		"$K" search --db "$T/v8.sqlite3" --json panic >"$T/p8.json"
		"$K" search --db "$T/real.sqlite3" --json panic >"$T/p9.json"
		check 'cmp -s "$T/p8.json" "$T/p9.json" && [ "$(count "\"id\":" "$T/p9.json")" -ge 10 ]' \
			"  search panic: the same $(count "\"id\":" "$T/p9.json") rows as the fresh index"
	else
		for i in 1 2 3 4; do skip "sqlite3 CLI absent"; done
	fi
else
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13; do skip "real corpus absent"; done
fi

done_testing
