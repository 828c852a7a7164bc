#!/bin/sh
# test_index_pg.sh: the PostgreSQL store on a real, throwaway server
# (pg_server.sh: initdb in a temp folder, a Unix socket only, stopped at the
# end even on failure).  The index suites (test_index_store, test_index) run
# their one body on it; then the commands end to end: the same output as
# the sqlite store, db init and schema versions, hosts, 8 concurrent
# pushers, kill -9 of a pusher, connection refused, wrong password, a
# server restart mid-push, the reader role, password masking, hostile text.
# Skipped, counted, when the PostgreSQL binaries are absent.
set -u
. "$KP_TESTS_DIR/tap.sh"
K=${KPBROWSE:?}
B="$KP_BUILD_DIR/tests"
T=$(mktemp -d "${TMPDIR:-/tmp}/kpi-pg-XXXXXX") || exit 2
. "$KP_TESTS_DIR/pg_server.sh"
trap 'pg_stop; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP

if ! "$K" list --db "host=/nonexistent dbname=x" 2>&1 | grep -q "cannot connect"; then
	skip "kpbrowse built without libpq"
	done_testing
fi
if ! pg_start; then
	skip "$pg_why"
	done_testing
fi
S=$PGHOST
pgq() { psql -X -A -t -q -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }
export KPBROWSE_HOST=lab-mac-00
# days_off DB: schema 13's counts the trends read (group_days, kept by
# triggers) against the reports' own GROUP BY: rows either side that the
# other lacks (0 when they agree)
days_off() {
	pgq "$1" "SELECT count(*) FROM ((SELECT group_id, CASE WHEN ts >= 0 THEN ts / 86400 WHEN ts = -4611686018427387904
		THEN ts ELSE (ts - 86399) / 86400 END AS day, os_version, count(*) AS n FROM kpbrowse.reports GROUP BY 1, 2, 3)
		EXCEPT ALL (SELECT group_id, day, CASE WHEN NOT no_os THEN os_version END, n FROM kpbrowse.group_days WHERE n > 0)
		UNION ALL ((SELECT group_id, day, CASE WHEN NOT no_os THEN os_version END, n FROM kpbrowse.group_days WHERE n > 0)
		EXCEPT ALL (SELECT group_id, CASE WHEN ts >= 0 THEN ts / 86400 WHEN ts = -4611686018427387904 THEN ts
		ELSE (ts - 86399) / 86400 END, os_version, count(*) FROM kpbrowse.reports GROUP BY 1, 2, 3))) d"
}

# ---- the index suites, one body, this backend ----
pg_createdb store
KPT_PG="host=$S dbname=store" "$B/test_index_store" >"$T/store.tap" 2>&1
check "$?" = 0 "test_index_store on PostgreSQL"
check "$(grep -c '^ok .* postgresql: ' "$T/store.tap")" -ge 20 "  its postgresql behaviours ran"
grep '^not ok' "$T/store.tap" | sed 's/^/# /'
pg_createdb suite
KPT_DB="host=$S dbname=suite" "$B/test_index" >"$T/suite.tap" 2>&1
check "$?" = 0 "test_index on PostgreSQL"
grep '^not ok' "$T/suite.tap" | sed 's/^/# /'

# ---- the same output as sqlite ----
C="$T/DiagnosticReports"
mkdir "$C" && "$B/test_index" --gen "$C" || { echo "Bail out! cannot generate corpus"; exit 2; }
pg_createdb cli
P="postgresql:///cli?host=$S"
"$K" list --db "$P" >/dev/null 2>"$T/err"
check "$?" = 2 "before db init: exit 2"
check_grep "kpbrowse db init" "$T/err" "  and the error says to run db init"
"$K" db init --db "$P" >"$T/init.out"
check "$?" = 0 "db init"
"$K" db init --db "$P" >/dev/null
check "$?" = 0 "db init again: nothing to do"
check "$(pgq cli "SELECT value FROM kpbrowse.meta WHERE key = 'schema_version'")" = 13 "schema version 13"
SQ="$T/index.sqlite3"
"$K" index --db "$SQ" "$C" >/dev/null
"$K" index --db "$P" --json "$C" >"$T/push.json"
check "$?" = 0 "index --db postgresql:// pushes"
check_grep '"new":[[:space:]]*5,' "$T/push.json" "  5 new"
"$K" index --db "$P" "$C" >"$T/again.txt"
check_grep "0 new, 7 unchanged, 0 duplicates, 2 skipped, 0 errors" "$T/again.txt" "pushing again: all unchanged"
same() { # same WHAT ARGS...: the command's output on both stores
	what=$1
	shift
	"$K" "$@" --db "$SQ" >"$T/a.out" 2>&1
	ra=$?
	"$K" "$@" --db "$P" >"$T/b.out" 2>&1
	rb=$?
	if [ "$ra" = "$rb" ] && cmp -s "$T/a.out" "$T/b.out"; then _ok "same output: $what"
	else _notok "same output: $what (exit $ra/$rb)"; diff "$T/a.out" "$T/b.out" | head -5 | sed 's/^/# /'; fi
}
same "list" list
same "list --json" list --json
same "list --groups" list --groups
same "list --groups --json" list --groups --json
same "list --host" list --host lab-mac-00
same "hosts --json" hosts --json
same "search --uuid" search --uuid 5e7a1c2b-9d44
same "search --kext" search --kext org.sample.kext.Gadget
same "search --kext, last part" search --kext GADGET
same "search TEXT" search ring overflow --json
same "search, nothing found" search --uuid DEADBEEF
same "search --limit" search --uuid 5e7a1c2b-9d44 --limit 2 --json
same "search TEXT --limit" search ring overflow --limit 1
same "show @2" show --no-symbols @2
"$K" export --db "$P" @2 "$T/pg-export" && "$K" export --db "$SQ" @2 "$T/sq-export"
check "$?" = 0 "export from both"
check_grep "." "$T/pg-export" "  not empty"
cmp -s "$T/pg-export" "$T/sq-export"
check "$?" = 0 "  byte-identical"
"$K" hosts --db "$P" --json >"$T/hosts.json"
for k in host host_key model builds reports last_seen; do
	check_grep "\"$k\":" "$T/hosts.json" "hosts --json has $k"
done

# ---- bytes that are not UTF-8 never stop a push (issue 19 item 2) ----
# a 0xff in a panic string, in a file name and in KPBROWSE_HOST: stored on
# both stores as U+FFFD, the same rows, the raw bytes kept in the archive
BB="$T/badbytes"
mkdir -p "$BB"
python3 - "$KP_FIXTURES/reports/Kernel_2020-08-03-094512_kpbrowse-demo.panic" "$BB" <<'EOF'
import os, sys
t = open(sys.argv[1], "rb").read()
t = t.replace(b"has bad magic", b"has bad \xff\xfe magic", 1)
open(os.path.join(sys.argv[2].encode(), b"Kernel-\xff-1.panic"), "wb").write(t)
open(os.path.join(sys.argv[2].encode(), b"Kernel-2.panic"), "wb").write(t.replace(b"magic", b"magic2", 1))
EOF
pg_createdb bad
PB="postgresql:///bad?host=$S"
"$K" db init --db "$PB" >/dev/null
KPBROWSE_HOST=$(printf 'lab\377mac') "$K" index --db "$PB" "$BB" >"$T/bad.out" 2>"$T/bad.err"
check "$?" = 0 "bad bytes: the push succeeds"
check_grep "2 new, 0 unchanged, 0 duplicates, 0 skipped, 0 errors" "$T/bad.out" "  both files stored ($(cat "$T/bad.out" "$T/bad.err" | head -c 300))"
KPBROWSE_HOST=$(printf 'lab\377mac') "$K" index --db "$T/bad.sqlite3" "$BB" >/dev/null 2>&1
for args in "list --json" "hosts --json" "search bad --json"; do
	# shellcheck disable=SC2086
	"$K" $args --db "$T/bad.sqlite3" >"$T/a.out" 2>&1
	# shellcheck disable=SC2086
	"$K" $args --db "$PB" >"$T/b.out" 2>&1
	sed -i 's/"db":.*//' "$T/a.out" "$T/b.out"
	cmp -s "$T/a.out" "$T/b.out"
	check "$?" = 0 "bad bytes: $args the same on both stores"
done
check_grep 'lab\\ufffdmac\|lab.mac' "$T/b.out" "bad bytes: the host stored with U+FFFD"
"$K" export --db "$PB" @1 "$T/bad-export" 2>/dev/null
check "$(grep -c "$(printf '\377\376')" "$T/bad-export")" = 1 "bad bytes: the archive keeps the raw bytes"

# ---- a panic text past the search text bound (issue 32 item 10): stored the
# same on both stores, searchable up to the bound (512 KiB), not after ----
BT="$T/bigtext"
mkdir -p "$BT"
python3 - "$KP_FIXTURES/reports/Kernel_2020-08-03-094512_kpbrowse-demo.panic" "$BT/big.panic" <<'EOF2'
import sys
t = open(sys.argv[1]).read()
# 150,000 distinct words (1.8 MB): their tsvector passes PostgreSQL's 1 MiB
words = " ".join("zq%06dword" % i for i in range(150000))
open(sys.argv[2], "w").write(t.replace('bad magic 0x0"', 'bad magic 0x0 earlyword ' + words + ' lateword"', 1))
EOF2
pg_createdb bigtext
BP="host=$S dbname=bigtext"
"$K" db init --db "$BP" >/dev/null
"$K" index --no-symbols --db "$BP" "$BT" >"$T/bt.out" 2>"$T/bt.err"
check "$?" = 0 "a 1.8 MB panic text: PostgreSQL stores it ($(head -c 200 "$T/bt.err"))"
"$K" index --no-symbols --db "$T/bigtext.sqlite3" "$BT" >/dev/null 2>&1
for w in earlyword zq010000word zq040000word lateword zq100000word; do
	# shellcheck disable=SC2086
	"$K" search $w --json --db "$T/bigtext.sqlite3" >"$T/a.out" 2>&1
	"$K" search $w --json --db "$BP" >"$T/b.out" 2>&1
	sed -i 's/"db":.*//' "$T/a.out" "$T/b.out"
	cmp -s "$T/a.out" "$T/b.out"
	check "$?" = 0 "  search $w: the same on both stores"
	case $w in lateword|zq100000word) want=0 ;; *) want=1 ;; esac
	check "$(grep -c '"id"' "$T/b.out")" = $want "  search $w: $want found (the bound is 512 KiB of text)"
done

# ---- the same incident id over other content: another report (issue 19 item 5)
mkdir -p "$T/inc"
cp "$KP_FIXTURES/reports/panic-full-2026-11-20-101500.0001.ips" "$T/inc/a.ips"
sed 's/exceeds buffer/overflows its ring/' "$T/inc/a.ips" >"$T/inc/b.ips"
"$K" index --db "$PB" "$T/inc" >"$T/inc.out" 2>"$T/inc.err"
check_grep "2 new, 0 unchanged, 0 duplicates" "$T/inc.out" "incident id collision on PostgreSQL: both stored"
check_grep "warning: incident id .* already names @" "$T/inc.err" "  and warned about"

# ---- kinds, zones and undated reports (schema 4): the same on both stores ----
KD="$T/kinds"
mkdir -p "$KD"
cp "$KP_FIXTURES"/stackshots/*.ips "$KP_FIXTURES/reports/panic-full-2026-11-20-101500.0001.ips" "$KD/"
printf '%s\n' 'panic(cpu 0 caller 0xffffff801d4ccb2b): "zalloc: \"kalloc.1024\" (100535 elements) retry fail 3"@/x/zalloc.c:2090' \
	'Kernel version:' 'Darwin Kernel Version 19.6.0: x; root:xnu-6153.141.1~1/RELEASE_X86_64' >"$KD/zone-undated.panic"
touch -t 203001010000 "$KD/zone-undated.panic"
pg_createdb kinds
KP="host=$S dbname=kinds"
KS="$T/kinds.sqlite3"
"$K" db init --db "$KP" >/dev/null
"$K" index --no-symbols --db "$KP" "$KD" >/dev/null 2>&1
"$K" index --no-symbols --db "$KS" "$KD" >/dev/null 2>&1
same_kinds() { # same_kinds WHAT ARGS...: same, on the kinds sqlite file and server
	sq0=$SQ p0=$P
	SQ=$KS P=$KP
	same "$@"
	SQ=$sq0 P=$p0
}
same_kinds "list --json with kinds, the undated report last" list --json
same_kinds "list --kind stackshot" list --kind stackshot
same_kinds "list --groups --json (an undated group: null first/last seen)" list --groups --json
same_kinds "search --zone" search --zone KALLOC.1024 --json
same_kinds "search --zone, nothing found" search --zone kalloc.64
"$K" list --db "$KP" --json >"$T/kinds4.json"
check "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r[-1]["timestamp"], sorted(set(x["kind"] for x in r)))' "$T/kinds4.json")" = "None ['panic', 'reset', 'stackshot', 'watchdog']" "PostgreSQL: every kind; the undated report last"
# what schema 8 added (loaded kext sets) and schema 11 (cause classes), dropped to make an older schema of a new one
drop_v8="ALTER TABLE kpbrowse.reports DROP COLUMN class; DROP INDEX kpbrowse.reports_kext_set; ALTER TABLE kpbrowse.reports DROP COLUMN kext_set;
	DROP TABLE kpbrowse.kext_set_members, kpbrowse.kext_sets, kpbrowse.kexts;"
# a schema 3 server: db init migrates it, filling kind, zone and dates from the archives
pgq kinds "$drop_v8 DROP INDEX kpbrowse.reports_zone; ALTER TABLE kpbrowse.reports DROP COLUMN kind, DROP COLUMN zone;
	UPDATE kpbrowse.reports SET ts = 1900000000 WHERE ts < 0;
	UPDATE kpbrowse.groups SET first_seen = 1900000000, last_seen = 1900000000 WHERE first_seen IS NULL;
	UPDATE kpbrowse.meta SET value = '3' WHERE key = 'schema_version'"
"$K" list --db "$KP" >/dev/null 2>"$T/err"
check "$?" = 2 "a schema 3 server: list asks for db init (exit 2)"
"$K" db init --db "$KP" >/dev/null
check "$?" = 0 "  db init migrates it"
check "$(pgq kinds "SELECT value FROM kpbrowse.meta WHERE key = 'schema_version'")" = 13 "  to schema 13"
check "$(days_off kinds):$(pgq kinds "SELECT (SELECT sum(n) FROM kpbrowse.group_days) = (SELECT count(*) FROM kpbrowse.reports)")" \
	= "0:t" "  the groups' day counts (schema 13) made from its reports"
"$K" list --db "$KP" --json >"$T/kinds3.json"
check "$(cmp -s "$T/kinds4.json" "$T/kinds3.json" && echo same)" = same "  its rows: kinds, zones and order as before"
same_kinds "migrated: list --groups --json" list --groups --json
same_kinds "migrated: search --zone" search --zone kalloc.1024
# ---- a schema 4 index: refused until db init migrates it to 8 ----
pg_createdb older
"$K" db init --db "host=$S dbname=older" >/dev/null
pgq older "$drop_v8 CREATE INDEX images_uuid ON kpbrowse.images(uuid_hex) WHERE uuid_hex <> ''; DROP INDEX kpbrowse.images_uuid_report; DROP INDEX kpbrowse.images_last; UPDATE kpbrowse.meta SET value = '4' WHERE key = 'schema_version'"
"$K" list --db "host=$S dbname=older" >/dev/null 2>"$T/err"
check "$?" = 2 "a schema 4 index: exit 2"
check_grep "older than this kpbrowse" "$T/err" "  it needs db init"
"$K" db init --db "host=$S dbname=older" >/dev/null
check "$?" = 0 "  db init migrates it"
check "$(pgq older "SELECT value FROM kpbrowse.meta WHERE key = 'schema_version'"):$(pgq older "SELECT count(*) FROM pg_indexes WHERE indexname IN ('images_uuid_report', 'images_last')")" = "13:2" \
	"  to schema 13, with the covering UUID index and kexts' last parts indexed"
check "$(pgq older "SET enable_seqscan = off; EXPLAIN SELECT i.report_id FROM kpbrowse.images i WHERE i.name <> ''
	AND lower(substr(i.name, length(rtrim(i.name, replace(i.name, '.', ''))) + 1)) = lower('x') AND i.live" |
	grep -c images_last)" = 1 "  a last-part match can read that index"

# ---- schema 11: SHA-1 content hashes become SHA-256 (issue 33 item 7) ----
# a schema 10 server made by hand: every hash the SHA-1 of the file's
# bytes; b's archive gone (its file stays), c's archive and file gone
pg_createdb sha
H="host=$S dbname=sha"
Z="$T/sha-reports"
mkdir "$Z" && "$B/test_index" --gen "$Z" || { echo "Bail out! cannot generate corpus"; exit 2; }
"$K" db init --db "$H" >/dev/null && "$K" index --db "$H" "$Z" >/dev/null
n_sha=$(pgq sha "SELECT count(*) FROM kpbrowse.reports")
python3 - "$Z" >"$T/sha1.sql" <<'PY'
import hashlib, os, sys
for d, _, names in os.walk(sys.argv[1]):
  for n in names:
    b = open(os.path.join(d, n), "rb").read()
    print("UPDATE kpbrowse.reports SET content_hash = '%s' WHERE content_hash = '%s';"
          % (hashlib.sha1(b).hexdigest(), hashlib.sha256(b).hexdigest()))
PY
b_id=$(pgq sha "SELECT min(id) FROM kpbrowse.reports")
c_id=$(pgq sha "SELECT max(id) FROM kpbrowse.reports")
c_path=$(pgq sha "SELECT path FROM kpbrowse.paths WHERE report_id = $c_id LIMIT 1")
cp "$c_path" "$T/c-bytes"
psql -X -q -v ON_ERROR_STOP=1 -d sha -f "$T/sha1.sql" >/dev/null &&
	pgq sha "DELETE FROM kpbrowse.archives WHERE report_id IN ($b_id, $c_id);
	UPDATE kpbrowse.meta SET value = '10' WHERE key = 'schema_version'"
rm -f "$c_path"
check "$(pgq sha "SELECT count(*) FROM kpbrowse.reports WHERE length(content_hash) = 40")" = "$n_sha" \
	"a schema 10 server with $n_sha SHA-1 content hashes, two archives gone"
"$K" db init --db "$H" >/dev/null
check "$?" = 0 "  db init migrates it"
check "$(pgq sha "SELECT value FROM kpbrowse.meta WHERE key = 'schema_version'"):$(pgq sha "SELECT count(*) FROM kpbrowse.reports"):$(pgq sha "SELECT count(*) FROM kpbrowse.reports WHERE length(content_hash) = 64"):$(pgq sha "SELECT length(content_hash) FROM kpbrowse.reports WHERE id = $c_id"):$(pgq sha "SELECT value FROM kpbrowse.meta WHERE key = 'sha1_hashes_left'")" \
	= "13:$n_sha:$((n_sha - 1)):40:1" \
	"  to schema 13 (11: SHA-256): every report kept, SHA-256 from archives and from b's file; c, whose bytes are gone, keeps its SHA-1, counted"
check "$(python3 - "$Z" <<'PY' | pgq sha "$(cat)"
import hashlib, os, sys
hs = ["'%s'" % hashlib.sha256(open(os.path.join(d, n), "rb").read()).hexdigest()
      for d, _, names in os.walk(sys.argv[1]) for n in names]
print("SELECT count(*) FROM kpbrowse.reports WHERE content_hash IN (%s)" % ", ".join(hs))
PY
)" = "$((n_sha - 1))" "  each hash the SHA-256 of its file's bytes"
"$K" index --db "$H" --json "$Z" >"$T/sha-again.json"
check_grep '"new":[[:space:]]*0,' "$T/sha-again.json" "  pushed again: nothing new"
cp "$T/c-bytes" "$Z/c-again.panic"
"$K" index --db "$H" --json "$Z" >"$T/sha-c.json"
check "$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["new"], j["duplicates"])' "$T/sha-c.json"):$(pgq sha "SELECT count(*) FROM kpbrowse.reports")" = "0 1:$n_sha" \
	"  c's bytes pushed again are c, found by its SHA-1: no second report"

# ---- an older binary refuses a newer schema, by name ----
pg_createdb newer
"$K" db init --db "host=$S dbname=newer" >/dev/null
pgq newer "UPDATE kpbrowse.meta SET value = '99' WHERE key = 'schema_version'"
"$K" list --db "host=$S dbname=newer password=Sekr3tXyz" >/dev/null 2>"$T/err"
check "$?" = 2 "a newer schema: exit 2"
check_grep "schema version 99 is newer" "$T/err" "  named"
check_not_grep "Sekr3tXyz" "$T/err" "  password masked"
"$K" db init --db "host=$S dbname=newer" >/dev/null 2>&1
check "$?" = 2 "db init refuses to downgrade it"

# ---- 8 pushers at once, overlapping sets, 8 Macs ----
G="$T/pool"
mkdir "$G" && "$B/test_index" --gen-large "$G" 240 || { echo "Bail out! cannot generate"; exit 2; }
ls "$G"/d000/*.panic | sort >"$T/pool.list"
for i in 1 2 3 4 5 6 7 8; do
	mkdir "$T/mac$i"
	# mac i: 80 reports from (i-1)*30: neighbours overlap, together all 240
	awk -v s=$(((i - 1) * 30)) 'NR > s && NR <= s + 80 || (s + 80 > 240 && NR <= s + 80 - 240)' \
		"$T/pool.list" | while read -r f; do cp "$f" "$T/mac$i/"; done
done
# push_macs DB [LOGIN1 LOGIN2]: mac1..mac8 pushed at once into DB (mac1..4
# as LOGIN1, mac5..8 as LOGIN2 when given), output in $T/DB$i.out; sets
# bad to how many exited non-zero
push_macs() {
	pids=""
	for i in 1 2 3 4 5 6 7 8; do
		who=""
		[ -n "${2:-}" ] && who=" user=$2"
		[ -n "${3:-}" ] && [ "$i" -gt 4 ] && who=" user=$3"
		KPBROWSE_HOST=mac$i "$K" index --no-symbols --db "host=$S dbname=$1$who" "$T/mac$i" \
			>"$T/$1$i.out" 2>&1 &
		pids="$pids $!"
	done
	bad=0
	for p in $pids; do wait "$p" || bad=$((bad + 1)); done
	cat "$T/$1"*.out | grep -v "^Index" | sed 's/^/# /' | head -5
}
pg_createdb conc
"$K" db init --db "host=$S dbname=conc" >/dev/null
push_macs conc
check "$bad" = 0 "8 concurrent pushers all exit 0"
check "$(pgq conc "SELECT count(*) FROM kpbrowse.reports")" = 240 "exactly 240 reports"
check "$(pgq conc "SELECT count(*) FROM kpbrowse.archives")" = 240 "exactly 240 archives"
check "$(pgq conc "SELECT count(*) FROM kpbrowse.paths")" = 640 "exactly 640 paths (8 Macs x 80)"
check "$(pgq conc "SELECT sum(count) FROM kpbrowse.groups")" = 240 "group counts add up to 240"
check "$(pgq conc "SELECT count(*) FROM kpbrowse.groups g WHERE count <> (SELECT count(*) FROM kpbrowse.reports WHERE group_id = g.id) OR hosts <> (SELECT count(DISTINCT coalesce(host_key, host, '')) FROM kpbrowse.reports WHERE group_id = g.id)")" = 0 \
	"every group's report and host counts are exact"
check "$(pgq conc "SELECT count(*) FROM (SELECT report_id FROM kpbrowse.images GROUP BY report_id, rank, uuid_hex, name HAVING count(*) > 1) d")" = 0 "no image twice"
check "$(pgq conc "SELECT count(DISTINCT report_id) FROM kpbrowse.paths")" = 240 "every report has its paths"
check "$(days_off conc):$(pgq conc "SELECT sum(n) FROM kpbrowse.group_days")" = "0:240" \
	"the groups' day counts (schema 13) after 8 concurrent pushers: the reports' own, 240 in all"
# moved (another group, day and OS version; no OS version), deleted: as the owner may
pgq conc "UPDATE kpbrowse.reports SET group_id = (SELECT max(group_id) FROM kpbrowse.reports), ts = ts - 86400 * 400,
	os_version = NULL WHERE id IN (SELECT id FROM kpbrowse.reports ORDER BY id LIMIT 7);
	UPDATE kpbrowse.reports SET ts = -4611686018427387904 WHERE id = (SELECT max(id) FROM kpbrowse.reports);
	UPDATE kpbrowse.reports SET headline = 'x' WHERE id = (SELECT max(id) - 1 FROM kpbrowse.reports);
	CREATE TEMP TABLE gone AS SELECT id FROM kpbrowse.reports ORDER BY id DESC OFFSET 2 LIMIT 3;
	DELETE FROM kpbrowse.panic_text WHERE report_id IN (SELECT id FROM gone);
	DELETE FROM kpbrowse.archives WHERE report_id IN (SELECT id FROM gone);
	DELETE FROM kpbrowse.paths WHERE report_id IN (SELECT id FROM gone);
	DELETE FROM kpbrowse.images WHERE report_id IN (SELECT id FROM gone);
	DELETE FROM kpbrowse.reports WHERE id IN (SELECT id FROM gone)" >/dev/null
check "$(days_off conc):$(pgq conc "SELECT sum(n) FROM kpbrowse.group_days"):$(pgq conc "SELECT sum(n) FROM kpbrowse.group_days WHERE no_os")" \
	= "0:237:7" "  and after 7 reports moved (group, day, no OS version), one made undated, 3 deleted"

# ---- kill -9 of a pusher mid-transaction, then a rerun completes ----
consistent() { # every report whole: archive, text, a path; counts exact
	pgq "$1" "SELECT (SELECT count(*) FROM kpbrowse.reports r WHERE NOT EXISTS (SELECT 1 FROM kpbrowse.archives a WHERE a.report_id = r.id) OR NOT EXISTS (SELECT 1 FROM kpbrowse.panic_text t WHERE t.report_id = r.id) OR NOT EXISTS (SELECT 1 FROM kpbrowse.paths p WHERE p.report_id = r.id)) + (SELECT count(*) FROM kpbrowse.groups g WHERE count <> (SELECT count(*) FROM kpbrowse.reports WHERE group_id = g.id))"
}
# A push is stopped mid-transaction, whatever the machine's load, by a
# session that holds an uncommitted report with the content of one of the
# files (block_push DB FILE): the pusher that reaches it waits on its key
# until the session ends (killed with unblock).  Waiting for a count and
# acting then let a fast pusher finish first on a loaded machine.
block_push() {
	h=$( (sha256sum "$2" 2>/dev/null || shasum -a 256 "$2") | cut -c1-64)
	psql -X -q -d "$1" -c "BEGIN" -c "INSERT INTO kpbrowse.groups(key, title) VALUES ('blocker', 'blocker')" \
		-c "INSERT INTO kpbrowse.reports(content_hash, size, ts, exact_key, group_id, indexed_at) SELECT '$h', 0, 0, 'blocker', id, 0 FROM kpbrowse.groups WHERE key = 'blocker'" \
		-c "SELECT pg_sleep(600)" >/dev/null 2>&1 &
	blocker=$!
	until_sql "$1" "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(600)'" 1
}
# until_sql DB QUERY N: waits (up to 120 s) until QUERY returns at least N
until_sql() {
	i=0
	while [ "$(pgq "$1" "$2" 2>/dev/null || echo 0)" -lt "$3" ] && [ $i -lt 1200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
# a pusher waiting on the blocker's key
until_blocked() { until_sql "$1" "SELECT count(*) FROM pg_stat_activity WHERE datname = '$1' AND wait_event_type = 'Lock'" 1; }
unblock() {
	pgq "$1" "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(600)'" >/dev/null 2>&1
	kill "$blocker" 2>/dev/null
	wait "$blocker" 2>/dev/null
}
L="$T/large"
mkdir "$L" && "$B/test_index" --gen-large "$L" 600 || { echo "Bail out! cannot generate"; exit 2; }
last=$(find "$L" -name '*.panic' | sort | tail -n 1)
pg_createdb killed
"$K" db init --db "host=$S dbname=killed" >/dev/null
block_push killed "$last"
"$K" index --no-symbols --db "host=$S dbname=killed" "$L" >/dev/null 2>&1 &
kp=$!
until_blocked killed
kill -9 "$kp" 2>/dev/null
wait "$kp" 2>/dev/null
unblock killed
sleep 0.5 # the server notices the dropped connection and rolls back
got=$(pgq killed "SELECT count(*) FROM kpbrowse.reports")
check "$got" -lt 600 "kill -9 mid-push: stopped part way ($got)"
check "$(consistent killed)" = 0 "  nothing partial: every report whole, counts exact"
"$K" index --no-symbols --db "host=$S dbname=killed" "$L" >"$T/rerun.out" 2>&1
check "$?" = 0 "  a rerun completes"
check "$(pgq killed "SELECT count(*) FROM kpbrowse.reports")" = 600 "  all 600 reports"
check "$(consistent killed)" = 0 "  consistent"

# ---- connection refused, wrong password ----
"$K" index --db "host=$T/nowhere dbname=x" "$C" >/dev/null 2>"$T/err"
check "$?" = 2 "connection refused: exit 2"
check_grep "cannot connect" "$T/err" "  named"
pg_pw_user kppw RightPw1
pgq cli "GRANT USAGE ON SCHEMA kpbrowse TO kppw; GRANT SELECT ON ALL TABLES IN SCHEMA kpbrowse TO kppw"
"$K" list --db "postgresql://kppw:Sekr3tXyz@/cli?host=$S" >/dev/null 2>"$T/err"
check "$?" = 2 "wrong password: exit 2"
check_grep "password authentication failed" "$T/err" "  named"
check_not_grep "Sekr3tXyz" "$T/err" "  the password is not shown"
check_grep "kppw:\*\*\*@" "$T/err" "  the URI shows it masked"
# reserved characters in the password, a password inside dbname, libpq's own
# quoting of the target: never shown (issue 19 item 3)
for db in "postgresql://kppw:Sek?r3tXyz@/cli?host=$S" "postgresql://kppw:Sek/r3tXyz@/cli?host=$S" \
	"host=$S dbname=postgresql://kppw:Sekr3tXyz@/nosuchdb" "host=$S user=kppw password=Sek\\ r3tXyz dbname=cli"; do
	shown=$(echo "$db" | sed "s|$S|\$SOCK|")
	"$K" list --json --db "$db" >"$T/out" 2>"$T/err"
	check "$?" = 2 "  $shown: refused"
	check_not_grep "r3tXyz" "$T/err" "  $shown: the password is in no message"
	check_not_grep "Sek" "$T/err" "  $shown: nor a piece of it libpq quotes (a port, a query)"
	check_not_grep "r3tXyz" "$T/out" "  $shown: nor on stdout"
done
PGPASSWORD=EnvPw9Secret "$K" list --db "postgresql://kppw@/cli?host=$S" >/dev/null 2>"$T/err"
check_not_grep "EnvPw9Secret" "$T/err" "  PGPASSWORD is never echoed"
printf '%s:*:cli:kppw:RightPw1\n' "$S" >"$T/pgpass"
chmod 600 "$T/pgpass"
PGPASSFILE="$T/pgpass" "$K" list --db "postgresql://kppw@/cli?host=$S" >/dev/null 2>"$T/err"
check "$?" = 0 "the right password from PGPASSFILE (libpq's conventions)"

# ---- password masking in messages and JSON ----
"$K" index --json --db "postgresql://kpbrowse:Sekr3tXyz@/cli?host=$S" "$C" >"$T/m.json" 2>&1
check "$?" = 0 "a URI with a password (trust: unused) pushes"
check_not_grep "Sekr3tXyz" "$T/m.json" "  --json output: password masked"
check_grep 'kpbrowse:\*\*\*@' "$T/m.json" "  --json shows the URI masked"
"$K" index --db "host=$S dbname=cli password='Sek r3tXyz'" "$C" >"$T/m.txt" 2>&1
check_not_grep "Sekr3tXyz\|r3tXyz" "$T/m.txt" "  key=value password masked"

# ---- the roles: the reader cannot push, the writer can ----
psql -X -q -v ON_ERROR_STOP=1 -d cli -f "$KP_TESTS_DIR/../packaging/postgresql/roles.sql" >/dev/null 2>"$T/err"
check "$?" = 0 "roles.sql runs"
printf 'Anonymous UUID:       0C0FFEE0-0000-0000-0000-00000000BEEF\n\n' >"$T/new.panic"
cat "$C/gadget-1.panic" >>"$T/new.panic"
mkdir "$T/newdir" && mv "$T/new.panic" "$T/newdir/"
"$K" index --db "host=$S dbname=cli user=kpbrowse_reader" "$T/newdir" >/dev/null 2>"$T/err"
check "$?" = 2 "the reader role cannot push: exit 2"
check_grep "permission denied" "$T/err" "  a permission error"
check_grep "kpbrowse_writer" "$T/err" "  naming the role a push needs"
"$K" list --db "host=$S dbname=cli user=kpbrowse_reader" >/dev/null
check "$?" = 0 "the reader lists"
"$K" index --db "host=$S dbname=cli user=kpbrowse_writer" "$T/newdir" >"$T/w.out" 2>&1
check "$?" = 0 "the writer pushes"
check_grep "1 new" "$T/w.out" "  one new report"
psql -X -q -d cli -U kpbrowse_writer -c "DELETE FROM kpbrowse.paths" >/dev/null 2>&1
check "$?" != 0 "the writer may not DELETE"
# least privilege (issue 19 item 4): each denial against the real server
wq() { psql -X -q -t -A -d cli -U kpbrowse_writer -c "$1" 2>&1; }
out=$(wq "UPDATE kpbrowse.meta SET value = '99' WHERE key = 'schema_version'")
case $out in *"permission denied"*) _ok "the writer may not UPDATE meta (it would lock every client out)" ;;
*) _notok "the writer may not UPDATE meta (got: $out)" ;; esac
check "$(pgq cli "SELECT value FROM kpbrowse.meta WHERE key = 'schema_version'")" != 99 "  meta unchanged"
before=$(pgq cli "SELECT headline FROM kpbrowse.reports WHERE id = 1")
wq "UPDATE kpbrowse.reports SET headline = 'pwned' WHERE id = 1" >/dev/null
check "$(pgq cli "SELECT headline FROM kpbrowse.reports WHERE id = 1")" = "$before" \
	"the writer cannot rewrite a report another login pushed"
sum1=$(pgq cli "SELECT md5(data) FROM kpbrowse.archives WHERE report_id = 1")
wq "UPDATE kpbrowse.archives SET data = 'x' WHERE report_id = 1" >/dev/null
check "$(pgq cli "SELECT md5(data) FROM kpbrowse.archives WHERE report_id = 1")" = "$sum1" \
	"the writer cannot rewrite another Mac's archive"
out=$(wq "UPDATE kpbrowse.groups SET title = 'pwned'")
case $out in *"permission denied"*) _ok "the writer may not retitle groups" ;;
*) _notok "the writer may not retitle groups (got: $out)" ;; esac
check "$(pgq cli "SELECT count(*) FROM kpbrowse.reports WHERE pushed_by = 'kpbrowse_writer'")" -ge 1 \
	"the writer's own push is recorded as its own"
out=$(wq "UPDATE kpbrowse.reports SET size = size WHERE pushed_by = current_user")
case $out in *"permission denied"*) _ok "the writer writes no table, its own reports' rows neither (only through kpbrowse's functions)" ;;
*) _notok "the writer writes no table, its own reports' rows neither (got: $out)" ;; esac
out=$(wq "INSERT INTO kpbrowse.reports(content_hash, size, ts, exact_key, group_id, indexed_at, pushed_by) VALUES ('x', 1, 0, 'k', 1, 0, 'someone_else')")
case $out in *"row-level security"*|*"permission denied"*) _ok "the writer cannot push in another login's name" ;;
*) _notok "the writer cannot push in another login's name (got: $out)" ;; esac
psql -X -q -d cli -U kpbrowse_writer -c "CREATE TABLE kpbrowse.x(i int)" >/dev/null 2>&1
check "$?" != 0 "the writer may not change the schema"

# ---- two writer logins (issue 19 item 4): concurrent pushes, and rows the
# other login pushed stay its own while the push goes on ----
pg_createdb rls
"$K" db init --db "host=$S dbname=rls" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d rls -f "$KP_TESTS_DIR/../packaging/postgresql/roles.sql" >/dev/null 2>&1
psql -X -q -d rls -c "CREATE ROLE alice LOGIN IN ROLE kpbrowse_writer; CREATE ROLE bob LOGIN IN ROLE kpbrowse_writer" \
	>/dev/null 2>&1
push_macs rls alice bob
check "$bad" = 0 "8 concurrent pushers as two writer logins all exit 0"
check "$(pgq rls "SELECT count(*) FROM kpbrowse.reports")" = 240 "  exactly 240 reports"
check "$(pgq rls "SELECT count(*) FROM kpbrowse.paths")" = 640 "  exactly 640 paths"
check "$(pgq rls "SELECT count(*) FROM kpbrowse.groups g WHERE count <> (SELECT count(*) FROM kpbrowse.reports WHERE group_id = g.id)")" = 0 \
	"  every group's count is exact"
check "$(pgq rls "SELECT string_agg(DISTINCT pushed_by, ',' ORDER BY pushed_by) FROM kpbrowse.reports")" = alice,bob \
	"  each report recorded as its login's"
# bob on alice's Mac: his path rows are his own, alice's stay hers
alice_paths() { pgq rls "SELECT count(*), md5(string_agg(path || report_id || mtime, ',' ORDER BY path)) FROM kpbrowse.paths WHERE pushed_by = 'alice' AND host = 'mac1'"; }
before=$(alice_paths)
touch "$T/mac1/$(ls "$T/mac1" | head -n 1)"
cp "$C/gadget-1.panic" "$T/mac1/zz-new.panic"
KPBROWSE_HOST=mac1 "$K" index --no-symbols --db "host=$S dbname=rls user=bob" "$T/mac1" >"$T/b.out" 2>"$T/b.err"
check "$?" = 0 "another login on alice's Mac: pushes, exit 0"
check_grep "1 new, 0 unchanged, 80 duplicates, 0 skipped, 0 errors" "$T/b.out" "  its own path rows ($(head -c 200 "$T/b.out"))"
check "$(alice_paths)" = "$before" "  alice's path rows untouched"

# ---- a second writer's attacks on shared, derived rows (issue 32 item 8) ----
bq() { psql -X -q -t -A -d rls -U bob -c "$1" 2>&1; }
# a path row planted under alice's Mac and a file she has yet to push
dir=$(pgq rls "SELECT regexp_replace(min(path), '/[^/]*$', '') FROM kpbrowse.paths WHERE pushed_by = 'alice' AND host = 'mac1'")
bq "INSERT INTO kpbrowse.paths(host, path, report_id, size, mtime, seen_at, skip_reason) VALUES ('mac1', '$dir/zz-planted.panic', NULL, 0, 0, 0, 'planted')" >"$T/plant.out"
bq "SELECT kpbrowse.path_put('mac1', '$dir/zz-planted.panic', NULL, 0, 0, 0, 'planted')" >>"$T/plant.out"
check_grep "permission denied for table paths" "$T/plant.out" "bob may not write path rows but through path_put"
cp "$C/bugA-1.panic" "$T/mac1/zz-planted.panic"
for run in 1 2; do
	KPBROWSE_HOST=mac1 "$K" index --no-symbols --db "host=$S dbname=rls user=alice" "$T/mac1" >"$T/a.out" 2>"$T/a.err"
	check "$?" = 0 "  alice pushes the file bob planted a row for (run $run): exit 0 ($(head -c 200 "$T/a.err"))"
	check_grep " 0 errors" "$T/a.out" "  no error"
done
check "$(pgq rls "SELECT count(*) FROM kpbrowse.paths WHERE pushed_by = 'alice' AND path = '$dir/zz-planted.panic' AND report_id IS NOT NULL")" = 1 \
	"  her row for it names its report"
# a kext added to a set other Macs' reports share, or a set named before its reports come
check "$(pgq rls "SELECT count(*) FROM kpbrowse.kext_sets")" -ge 1 "there are shared kext sets"
bq "INSERT INTO kpbrowse.kexts(name, uuid_hex) VALUES ('com.evil.Rootkit', '')" >"$T/kext.out"
bq "INSERT INTO kpbrowse.kext_set_members(kext_id, set_id) SELECT k.id, s.id FROM kpbrowse.kexts k, kpbrowse.kext_sets s WHERE k.name = 'com.evil.Rootkit'" >>"$T/kext.out"
bq "INSERT INTO kpbrowse.kext_sets(hash) VALUES ('0000000000000000000000000000000000000000')" >>"$T/kext.out"
bq "SELECT kpbrowse.kext_set(ARRAY['com.evil.Rootkit'], ARRAY[''])" >>"$T/kext.out"
check "$(grep -c "permission denied" "$T/kext.out")" = 4 "bob may not add kexts, set members or sets, nor call kext_set"
"$K" search --kext com.evil.Rootkit --db "host=$S dbname=rls" >/dev/null 2>&1
check "$?" = 1 "  search --kext com.evil.Rootkit lists no one's report"
# a group's count set to 0, hiding it from every screen
groups_before=$("$K" list --groups --db "host=$S dbname=rls" | wc -l)
bq "UPDATE kpbrowse.groups SET count = 0" >"$T/grp.out"
bq "INSERT INTO kpbrowse.group_hosts(group_id, ident) SELECT id, 'fake' FROM kpbrowse.groups" >>"$T/grp.out"
check "$(grep -c "permission denied" "$T/grp.out")" = 2 "bob may not set group counts nor add group hosts"
bq "SELECT count(kpbrowse.group_recount(id)) FROM kpbrowse.groups" >/dev/null
check "$(pgq rls "SELECT count(*) FROM kpbrowse.groups g WHERE count <> (SELECT count(*) FROM kpbrowse.reports WHERE group_id = g.id) OR (count > 0 AND hosts <> (SELECT count(DISTINCT coalesce(host_key, host, '')) FROM kpbrowse.reports WHERE group_id = g.id))")" = 0 \
	"  a recount he may ask for leaves every count exact"
check "$("$K" list --groups --db "host=$S dbname=rls" | wc -l)" = "$groups_before" "  every group still listed"
# alice's report's archive and images, through the functions
a1=$(pgq rls "SELECT min(id) FROM kpbrowse.reports WHERE pushed_by = 'alice'")
bq "SELECT kpbrowse.archive_add($a1, '\\x00')" >"$T/own.out"
bq "SELECT kpbrowse.report_images($a1, '{0}', '{00000000000000000000000000000000}', '{com.evil.Rootkit}')" >>"$T/own.out"
check "$(grep -c "another login" "$T/own.out")" = 2 "bob's calls on alice's report are refused: another login's"
# bob's whole copy of a report alice pushed cut short
R="$KP_REAL_DIR/ips-full-ios26-iphone-sepkeystore-1.ips"
if [ -f "$R" ]; then
	mkdir "$T/cut" "$T/whole"
	head -c 1500 "$R" >"$T/cut/r.ips"
	cp "$R" "$T/whole/r.ips"
	cp "$C/bugA-1.panic" "$T/whole/s.panic"
	KPBROWSE_HOST=mac1 "$K" index --db "host=$S dbname=rls user=alice" "$T/cut" >/dev/null 2>&1
	id=$(pgq rls "SELECT max(id) FROM kpbrowse.reports")
	sum1=$(pgq rls "SELECT md5(data) FROM kpbrowse.archives WHERE report_id = $id")
	# a longer cut from alice's Mac under bob's login: its completion, not his to make
	mkdir "$T/longer"
	head -c 3000 "$R" >"$T/longer/r.ips"
	cp "$C/bugA-1.panic" "$T/longer/s.panic"
	KPBROWSE_HOST=mac1 "$K" index --db "host=$S dbname=rls user=bob" "$T/longer" >"$T/b.out" 2>"$T/b.err"
	check "$?" != 0 "bob cannot complete alice's cut report: exit non-zero"
	check_grep "1 errors" "$T/b.out" "  one counted error"
	check_grep "r.ips.*@$id.*another login" "$T/b.err" "  naming the file and the report"
	check "$(pgq rls "SELECT md5(data) FROM kpbrowse.archives WHERE report_id = $id")" = "$sum1" "  alice's archive unchanged"
	check_grep "2 files" "$T/b.out" "  and the push goes on"
	# the whole report from another Mac: kept beside alice's cut (issue 32 item 9)
	KPBROWSE_HOST=mac5 "$K" index --db "host=$S dbname=rls user=bob" "$T/whole" >"$T/b.out" 2>"$T/b.err"
	check "$?" = 0 "the whole report pushed from another Mac: exit 0"
	check_grep "r.ips: warning: incident id .* already names @$id, cut short and pushed by another host" "$T/b.err" \
		"  kept beside alice's cut, and said"
	check "$(pgq rls "SELECT md5(data) FROM kpbrowse.archives WHERE report_id = $id")" = "$sum1" "  alice's cut unchanged"
	check "$(pgq rls "SELECT count(*) FROM kpbrowse.reports WHERE host = 'mac5' AND size = $(wc -c <"$R")")" = 1 "  the whole report stored as mac5's"
	# a report that reuses the incident id over other bytes: kept beside the cut
	mkdir "$T/reused"
	sed 's/modified after free/modified after frex/' "$R" >"$T/reused/r.ips"
	KPBROWSE_HOST=mac1 "$K" index --db "host=$S dbname=rls user=alice" "$T/reused" >"$T/a.out" 2>"$T/a.err"
	check "$?" = 0 "alice's other report under the cut's incident id: exit 0"
	check_grep "already names @$id, whose content differs" "$T/a.err" "  kept beside the cut, and said"
	check "$(pgq rls "SELECT md5(data) FROM kpbrowse.archives WHERE report_id = $id")" = "$sum1" "  the cut unchanged"
	# and its own completion, from its own Mac and login, replaces it
	KPBROWSE_HOST=mac1 "$K" index --db "host=$S dbname=rls user=alice" "$T/longer" >"$T/a.out" 2>"$T/a.err"
	check_grep "1 completed" "$T/a.out" "  its completion from its own Mac replaces it ($(cat "$T/a.out" "$T/a.err" | head -c 300))"
	check "$(pgq rls "SELECT size FROM kpbrowse.reports WHERE id = $id")" = 3000 "  the record holds the longer bytes"
else
	skip "real corpus absent: a cut completed by another login"
fi
# the search text of a report another login pushed
a1=$(pgq rls "SELECT min(id) FROM kpbrowse.reports WHERE pushed_by = 'alice'")
pgq rls "DELETE FROM kpbrowse.panic_text WHERE report_id = $a1"
out=$(psql -X -q -t -A -d rls -U bob -c "INSERT INTO kpbrowse.panic_text VALUES ($a1, to_tsvector('simple', 'pwned'))" 2>&1)
case $out in *"permission denied"*) _ok "bob cannot give alice's report a search text" ;;
*) _notok "bob cannot give alice's report a search text (got: $out)" ;; esac

# ---- a server from before the writer's functions (issue 32 item 8): asks
# for db init, which adds them; roles.sql then drops the old policies ----
pg_createdb upgrade
UP="host=$S dbname=upgrade"
"$K" db init --db "$UP" >/dev/null
pgq upgrade "DROP FUNCTION kpbrowse.report_add, kpbrowse.report_images, kpbrowse.archive_add, kpbrowse.report_replace,
	kpbrowse.path_put, kpbrowse.group_add, kpbrowse.group_recount, kpbrowse.report_own, kpbrowse.kext_set;
	ALTER TABLE kpbrowse.paths DROP CONSTRAINT paths_pkey, ADD PRIMARY KEY (host, path);
	ALTER TABLE kpbrowse.reports ALTER pushed_by SET DEFAULT current_user;
	ALTER TABLE kpbrowse.paths ENABLE ROW LEVEL SECURITY;
	CREATE POLICY kp_read ON kpbrowse.paths FOR SELECT USING (true);
	DELETE FROM kpbrowse.meta WHERE key = 'writer_api'"
"$K" list --db "$UP" >/dev/null 2>"$T/err"
check "$?" = 2 "a server without the writer's functions: exit 2"
check_grep "db init" "$T/err" "  asking for db init"
"$K" db init --db "$UP" >/dev/null
check "$?" = 0 "  db init adds them"
psql -X -q -v ON_ERROR_STOP=1 -d upgrade -f "$KP_TESTS_DIR/../packaging/postgresql/roles.sql" >/dev/null 2>&1
check "$?" = 0 "  roles.sql runs again"
check "$(pgq upgrade "SELECT count(*) FROM pg_policies WHERE schemaname = 'kpbrowse'")" = 0 "  the old policies dropped"
KPBROWSE_HOST=mac1 "$K" index --no-symbols --db "$UP user=alice" "$T/mac1" >"$T/u.out" 2>&1
check "$?" = 0 "  a writer pushes ($(head -c 200 "$T/u.out"))"
check "$(pgq upgrade "SELECT count(DISTINCT pushed_by) || ':' || count(*) FROM kpbrowse.paths WHERE pushed_by = 'alice'")" = "1:$(ls "$T/mac1" | wc -l)" \
	"  every path row its own"

# ---- hostile text pushed by one Mac, browsed by another ----
printf 'panic(cpu 0 caller 0xffffff8000c83e2d): "evil \033]0;pwned\007 \033[2J \342\200\256txet"\n' >"$T/newdir/hostile.panic"
sed -n '2,$p' "$C/gadget-1.panic" | grep -v '^panic(' >>"$T/newdir/hostile.panic"
KPBROWSE_HOST="$(printf 'evil\033[31mhost')" "$K" index --db "$P" "$T/newdir" >/dev/null 2>&1
"$K" list --db "$P" >"$T/h.out" 2>&1
"$K" hosts --db "$P" >>"$T/h.out" 2>&1
check_grep 'evil \\e\]0;pwned' "$T/h.out" "the hostile report was pushed and listed"
check "$(LC_ALL=C tr -cd '\033\007' <"$T/h.out" | wc -c)" = 0 "text from the database is shown inert (no ESC, no BEL)"

# ---- the TUI on the shared index: a Mac column once there are two Macs ----
if command -v tmux >/dev/null 2>&1; then
	# a tmux server of its own: a session on the user's server would run
	# with that server's environment (no PGUSER), not this test's
	sess="kppg$$"
	tm="tmux -L kppg$$ -f /dev/null"
	mkdir "$T/empty"
	$tm new-session -d -s "$sess" -x 160 -y 20 "TERM=xterm-256color '$K' --db '$P' '$T/empty'"
	# kpbrowse PATH lists PATH's reports (none here); a: the whole index
	i=0
	while [ $i -lt 100 ] && ! $tm capture-pane -p -t "$sess" 2>/dev/null | grep -q "a whole index"; do
		sleep 0.1
		i=$((i + 1))
	done
	$tm send-keys -t "$sess" a
	i=0
	while [ $i -lt 300 ] && ! $tm capture-pane -p -t "$sess" 2>/dev/null | grep -q "Widget"; do
		sleep 0.1
		i=$((i + 1))
	done
	$tm capture-pane -p -t "$sess" >"$T/tui.txt" 2>/dev/null
	$tm send-keys -t "$sess" q
	sleep 0.3
	$tm kill-server 2>/dev/null
	grep -q "dups class panic .* Mac" "$T/tui.txt" || sed 's/^/# /' "$T/tui.txt"
	check_grep "dups class panic .* Mac" "$T/tui.txt" "TUI: the panics list has a Mac column (after the class column)"
	check_grep "lab-mac-00" "$T/tui.txt" "TUI: rows name their Mac"
else
	skip "tmux absent: the TUI on PostgreSQL"
	skip "tmux absent: the TUI on PostgreSQL"
fi

# cut_push DB CMD...: a push of $L into a fresh DB, stopped mid-transaction
# by CMD (run once the push waits on block_push's key); its exit in $rc,
# its stderr in $T/DB.err
cut_push() {
	db=$1
	shift
	pg_createdb "$db"
	"$K" db init --db "host=$S dbname=$db" >/dev/null
	block_push "$db" "$last"
	"$K" index --no-symbols --db "host=$S dbname=$db" "$L" >"$T/$db.out" 2>"$T/$db.err" &
	kp=$!
	until_blocked "$db"
	"$@"
	wait "$kp"
	rc=$?
}
# ---- the server restarted mid-push: a named error, exit 2, nothing half-written ----
cut_push restart pg_restart
wait "$blocker" 2>/dev/null
check "$rc" = 2 "server restarted mid-push: exit 2"
check_grep "connection to the server was lost\|cannot connect\|terminating connection" "$T/restart.err" "  a named error"
sed 's/^/# /' "$T/restart.err" | head -3
check "$(wc -l <"$T/restart.err")" = 1 "  in one line (issue 32 item 14)"
check_not_grep "before or whil" "$T/restart.err" "  not cut mid-word"
check "$(consistent restart)" = 0 "  nothing half-written"
"$K" index --no-symbols --db "host=$S dbname=restart" "$L" >/dev/null 2>&1
check "$(pgq restart "SELECT count(*) FROM kpbrowse.reports")" = 600 "  the next run completes it"

# ---- the push's connection killed from another session mid-push (issue 32
# item 14): one line, exit 2; the next push completes, each report once ----
kill_waiting() { pgq "$1" "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '$1' AND wait_event_type = 'Lock'" >/dev/null; }
cut_push killconn kill_waiting killconn
unblock killconn
check "$rc" = 2 "connection killed mid-push: exit 2"
check "$(wc -l <"$T/killconn.err")" = 1 "  one line on stderr"
check_grep "^kpbrowse: host=.*dbname=killconn: the connection to the server was lost while [a-z ]*: [a-zA-Z ]*$" "$T/killconn.err" \
	"  naming the target and the lost connection, whole"
sed 's/^/# /' "$T/killconn.err" | head -3
check "$(consistent killconn)" = 0 "  nothing half-written"
"$K" index --no-symbols --db "host=$S dbname=killconn" "$L" >"$T/k2.out" 2>&1
check "$?" = 0 "  the next push completes"
check "$(pgq killconn "SELECT count(*), count(DISTINCT content_hash), (SELECT count(*) FROM kpbrowse.paths), (SELECT sum(count) FROM kpbrowse.groups) FROM kpbrowse.reports")" = "600|600|600|600" \
	"  every report exactly once, each path once, counts exact"
done_testing
