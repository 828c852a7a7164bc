#!/bin/sh
# test_cli_edges.sh: the subcommands at their edges (issue 11 items 9, 11,
# 12, 13, 14): failed writes to stdout, a read-only index, messages that
# name what failed, report ids at the limit, command-line edges.
set -u
. "$KP_TESTS_DIR/tap.sh"
kp=$KPBROWSE
tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
export KPBROWSE_CACHE_DIR="$tmp/cache"
unset KPBROWSE_DSYM_PATH KPBROWSE_DB
reports=$KP_FIXTURES/reports
bin=$KP_FIXTURES/bin
db=$tmp/idx/index.sqlite3
"$kp" index --db "$db" --no-symbols "$reports" >"$tmp/out" 2>"$tmp/err"
check "$?" = 0 "index of the fixtures ($(head -c 200 "$tmp/err"))"

# ---- item 9: a failed write to stdout is exit 2 with one line; EPIPE is quiet
if [ -w /dev/full ]; then
	for cmd in "list" "list --json" "list --groups" "search Widget" "search --json Widget" \
		"show --no-symbols @1" "show --no-symbols --json @1" \
		"show --no-symbols $reports/panic-full-2026-11-20-101500.0001.ips" \
		"lookup --dsym $bin/fakekernel.arm64.dSYM 0xc094" "index --no-symbols $reports" \
		"index --json --no-symbols $reports"; do
		# shellcheck disable=SC2086
		"$kp" $cmd --db "$db" >/dev/full 2>"$tmp/err"
		rc=$?
		[ "${cmd%% *}" = lookup ] && { "$kp" $cmd >/dev/full 2>"$tmp/err"; rc=$?; }
		check "$rc" = 2 "$cmd >/dev/full: exit 2"
		check "$(wc -l <"$tmp/err" | tr -d ' ')" = 1 "$cmd >/dev/full: one line on stderr ($(head -c 200 "$tmp/err"))"
		check_grep "standard output" "$tmp/err" "$cmd >/dev/full: names standard output"
	done
else
	skip "/dev/full absent"
fi
# a reader that goes away: no message, whatever SIGPIPE's disposition
for cmd in "list" "list --json" "show --no-symbols @1"; do
	# shellcheck disable=SC2086
	( "$kp" $cmd --db "$db" 2>"$tmp/err"; echo $? >"$tmp/rc" ) | head -c 1 >/dev/null
	check "$(wc -c <"$tmp/err" | tr -d ' ')" = 0 "$cmd | head -c 1: quiet ($(head -c 200 "$tmp/err"))"
	if command -v python3 >/dev/null 2>&1; then
		# python starts children with SIGPIPE ignored: EPIPE instead of the signal
		python3 -c '
import signal, subprocess, sys
signal.signal(signal.SIGPIPE, signal.SIG_IGN)
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, restore_signals=False)
p.stdout.read(1); p.stdout.close()
err = p.stderr.read(); p.wait()
sys.stdout.write("%d %d\n" % (p.returncode, len(err)))' "$kp" $cmd --db "$db" >"$tmp/py"
		read -r prc plen <"$tmp/py"
		check "$plen" = 0 "$cmd with SIGPIPE ignored: quiet on EPIPE (exit $prc)"
	fi
done

# ---- item 11: a read-only index can be read
ro=$tmp/ro
"$kp" index --db "$ro/i.sqlite3" --no-symbols "$reports" >/dev/null 2>&1
chmod 755 "$tmp"
chmod 555 "$ro"
chmod 444 "$ro/i.sqlite3"
# as another user when root (root writes anything)
as_user() {
	if [ "$(id -u)" = 0 ]; then
		command -v setpriv >/dev/null 2>&1 || return 77
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		"$@"
	fi
}
as_user "$kp" list --db "$ro/i.sqlite3" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 77 ]; then
	skip "root without setpriv: read-only index"
else
	check "$rc" = 0 "read-only index: list works ($(head -c 200 "$tmp/err"))"
	check_grep "@1" "$tmp/out" "read-only index: list shows the reports"
	as_user "$kp" show --no-symbols --db "$ro/i.sqlite3" @1 >"$tmp/out" 2>"$tmp/err"
	check "$?" = 0 "read-only index: show @1 works ($(head -c 200 "$tmp/err"))"
	as_user "$kp" search --db "$ro/i.sqlite3" FakeDriver >"$tmp/out" 2>"$tmp/err"
	check "$?" = 0 "read-only index: search works ($(head -c 200 "$tmp/err"))"
	# reports the other user can reach (the clone may sit in a 0700 folder)
	cp -R "$reports" "$tmp/reports-ro" && chmod -R a+rX "$tmp/reports-ro"
	as_user "$kp" index --no-symbols --db "$ro/i.sqlite3" "$tmp/reports-ro" >"$tmp/out" 2>"$tmp/err"
	check "$?" = 2 "read-only index: index fails"
	check_grep "read-only" "$tmp/err" "read-only index: index says it is read-only ($(cat "$tmp/err"))"
	check_not_grep "corrupt" "$tmp/err" "read-only index: not called corrupt"
	check "$(grep -c "i.sqlite3: .*i.sqlite3" "$tmp/err")" = 0 "read-only index: the path named once"
	chmod 000 "$ro/i.sqlite3"
	as_user "$kp" list --db "$ro/i.sqlite3" >"$tmp/out" 2>"$tmp/err"
	check "$?" = 2 "unreadable index: exit 2"
	check_grep "Permission denied" "$tmp/err" "unreadable index: says so ($(cat "$tmp/err"))"
fi
chmod -R u+rwx "$ro"

# ---- item 12: messages name what failed
# a full disk during index (a file size limit stands for it): the error
# once, naming the database once, and the counts are what was stored
mkdir -p "$tmp/many"
"$KP_BUILD_DIR/tests/test_index" --gen-large "$tmp/many" 600
sh -c 'trap "" XFSZ; ulimit -f 400; exec "$@"' sh "$kp" index --no-symbols --db "$tmp/full.sqlite3" \
	"$tmp/many" >"$tmp/out" 2>"$tmp/err"
check "$?" = 2 "disk full during index: exit 2"
check "$(wc -l <"$tmp/err" | tr -d ' ')" = 1 "disk full: one line on stderr ($(cat "$tmp/err"))"
check "$(grep -c "full.sqlite3: .*full.sqlite3" "$tmp/err")" = 0 "disk full: the database named once"
stored=$("$kp" list --db "$tmp/full.sqlite3" 2>/dev/null | grep -c '^@')
check_grep ": $stored new" "$tmp/out" "disk full: the summary counts the $stored stored ($(cat "$tmp/out"))"
# a missing archive row and a bad size column
cp "$db" "$tmp/dmg.sqlite3"
if command -v sqlite3 >/dev/null 2>&1; then
	sqlite3 "$tmp/dmg.sqlite3" "DELETE FROM archives WHERE report_id = 2; UPDATE reports SET size = -5 WHERE id = 3;"
	"$kp" show --no-symbols --db "$tmp/dmg.sqlite3" @2 >/dev/null 2>"$tmp/err"
	check "$?" = 2 "missing archive row: exit 2"
	check_grep "has no archive" "$tmp/err" "missing archive row named as such ($(cat "$tmp/err"))"
	"$kp" export --db "$tmp/dmg.sqlite3" @3 "$tmp/x3" >/dev/null 2>"$tmp/err"
	check "$?" = 2 "bad size column: exit 2"
	check_grep "damaged" "$tmp/err" "bad size column: damage, not memory ($(cat "$tmp/err"))"
	check_not_grep "out of memory" "$tmp/err" "bad size column: not out of memory"
	"$kp" index --resign --no-symbols --db "$tmp/dmg.sqlite3" >"$tmp/out" 2>"$tmp/err"
	check "$?" = 2 "resign over damaged archives: exit 2"
	check_grep "Re-signed 2 of 4 reports" "$tmp/out" "resign counts what it did ($(cat "$tmp/out"))"
	check_grep "^kpbrowse: @2: not re-signed: " "$tmp/err" "resign names the skipped report on stderr (issue 19 item 9)"
	check_grep "^kpbrowse: @3: not re-signed: " "$tmp/err" "resign names each skipped report"
	check_not_grep "@2" "$tmp/out" "resign: no error on stdout"
	check_not_grep "every report" "$tmp/out" "resign does not claim every report"
else
	skip "sqlite3 shell absent"
fi

# ---- item 13: report ids up to the largest sqlite holds
"$kp" show --no-symbols --db "$db" @9223372036854775807 >/dev/null 2>"$tmp/err"
check "$?" = 2 "@INT64_MAX: exit 2 (no such report)"
check_grep "no report @9223372036854775807" "$tmp/err" "@INT64_MAX is a report id ($(cat "$tmp/err"))"
"$kp" show --no-symbols --db "$db" @9223372036854775808 >/dev/null 2>"$tmp/err"
check "$?" = 2 "@INT64_MAX+1: exit 2"
check_grep "too large" "$tmp/err" "@INT64_MAX+1 refused by name ($(cat "$tmp/err"))"
"$kp" export --db "$db" @99999999999999999999 "$tmp/x" >/dev/null 2>"$tmp/err"
check_grep "too large" "$tmp/err" "export: a too large id refused by name ($(cat "$tmp/err"))"

# ---- item 14: command-line edges
"$kp" export --db "$db" @1 - >"$tmp/exp" 2>"$tmp/err"
check "$?" = 0 "export @1 -: exit 0 ($(cat "$tmp/err"))"
check "$(cmp -s "$tmp/exp" "$reports/Kernel-2020-09-14-201744.panic" && echo same)" = same "export @1 - writes the report to stdout"
check "$(ls -- - 2>/dev/null)" = "" "export @1 -: no file named -"
ln -s "$tmp/victim" "$tmp/planted"
"$kp" export --db "$db" @1 "$tmp/planted" >/dev/null 2>"$tmp/err"
check "$?" = 2 "export over a planted symlink: refused"
check "$(ls "$tmp/victim" 2>/dev/null)" = "" "export over a planted symlink: its target is not created"
"$kp" lookup --dsym "$bin/fakekernel.arm64.dSYM" zzz >"$tmp/out" 2>"$tmp/err"
check "$?" = 2 "lookup zzz: exit 2"
check_grep "'zzz' is not an address" "$tmp/err" "lookup zzz: named ($(head -1 "$tmp/err"))"
check "$(wc -c <"$tmp/out" | tr -d ' ')" = 0 "lookup zzz: nothing on stdout"
"$kp" search --db "$db" --uuid 4C4C44 >"$tmp/out" 2>"$tmp/err"
check "$?" = 2 "search --uuid 4C4C44: exit 2"
check "$(wc -c <"$tmp/out" | tr -d ' ')" = 0 "search --uuid 4C4C44: no header before the error"
check_grep "8 hex digits" "$tmp/err" "search --uuid 4C4C44: says why"
"$kp" /nonexistent/x >"$tmp/out" 2>"$tmp/err"
check "$?" = 2 "kpbrowse /nonexistent/x: exit 2"
check_grep "/nonexistent/x: no such file or folder" "$tmp/err" "kpbrowse /nonexistent/x: the path does not exist ($(cat "$tmp/err"))"
check_not_grep "unknown command" "$tmp/err" "kpbrowse /nonexistent/x: not an unknown command"

# ---- item 13: one file is one path, however the folder is spelled
mkdir -p "$tmp/w/r"
cp "$reports/Kernel-2020-09-14-201744.panic" "$tmp/w/r/"
for spelling in "$tmp/w//r" "$tmp/w/../w/r" "$tmp/w/./r/" "$tmp/w/r/."; do
	"$kp" index --no-symbols --db "$tmp/paths.sqlite3" "$spelling" >"$tmp/out" 2>&1
done
check_grep "1 unchanged, 0 duplicates" "$tmp/out" "respelled folders: the file is unchanged, not a duplicate ($(cat "$tmp/out"))"
check "$(sqlite3 "$tmp/paths.sqlite3" 'SELECT count(*) FROM paths' 2>/dev/null || echo 1)" = 1 "respelled folders: one path row"

# ---- issue 32 item 12: a damaged or half-readable index says so, by name,
# and `db rebuild` makes it anew from the folders and its archive
mkdir -p "$tmp/rb/rep"
"$KP_BUILD_DIR/tests/test_index" --gen-large "$tmp/rb/rep" 300
"$kp" index --no-symbols --db "$tmp/rb/i.sqlite3" "$tmp/rb/rep" >/dev/null 2>&1
python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$tmp/rb/i.sqlite3"
cp "$tmp/rb/i.sqlite3" "$tmp/rb/good.sqlite3"
size=$(wc -c <"$tmp/rb/i.sqlite3" | tr -d ' ')
head -c $((size / 2)) "$tmp/rb/i.sqlite3" >"$tmp/rb/half.sqlite3"
"$kp" list --db "$tmp/rb/half.sqlite3" >"$tmp/out" 2>"$tmp/err"
check "$?" = 2 "a truncated index: exit 2"
check_grep "half.sqlite3: the index is damaged (database disk image is malformed); 'kpbrowse db rebuild'" "$tmp/err" \
	"a truncated index: named as damaged, with the way out ($(head -c 200 "$tmp/err"))"
check_not_grep "not an error" "$tmp/err" "a truncated index: never 'not an error'"
# random bytes over the meta page (page 2: the text search's kind)
cp "$tmp/rb/good.sqlite3" "$tmp/rb/meta.sqlite3"
python3 - "$tmp/rb/meta.sqlite3" <<'EOF'
import random, sys
random.seed(32)
f = open(sys.argv[1], "r+b")
f.seek(4096 + 8)
f.write(bytes(random.randrange(256) for _ in range(3000)))
EOF
"$kp" search --db "$tmp/rb/meta.sqlite3" FakeDriver >"$tmp/out" 2>"$tmp/err"
check "$?" = 2 "a damaged meta page: search exit 2"
check_grep "meta.sqlite3: .*the index is damaged" "$tmp/err" "a damaged meta page: named as damage ($(head -c 200 "$tmp/err"))"
check_not_grep "no such table" "$tmp/err" "a damaged meta page: never 'no such table: panic_text'"
# a read-only index whose last commits are still in its -wal, no -shm
mkdir -p "$tmp/rw/w"
python3 - "$tmp/rw/w/i.sqlite3" "$tmp/rb/good.sqlite3" "$tmp/rw" <<'EOF'
import shutil, sqlite3, sys, os
db, good, out = sys.argv[1:4]
shutil.copy(good, db)
c = sqlite3.connect(db)
c.execute("PRAGMA wal_autocheckpoint = 0")
c.execute("UPDATE reports SET headline = 'in the wal only' WHERE id = 1")
c.commit()
os.makedirs(out + "/ro", exist_ok=True)
shutil.copy(db, out + "/ro/i.sqlite3")
shutil.copy(db + "-wal", out + "/ro/i.sqlite3-wal")
c.close()
EOF
chmod 755 "$tmp/rw"
chmod 555 "$tmp/rw/ro"
chmod 444 "$tmp/rw/ro/i.sqlite3" "$tmp/rw/ro/i.sqlite3-wal"
as_user "$kp" list --db "$tmp/rw/ro/i.sqlite3" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 77 ] || [ ! -s "$tmp/rw/ro/i.sqlite3-wal" ]; then
	skip "root without setpriv, or no -wal left: a read-only index with commits in its -wal"
else
	check "$rc" = 2 "a read-only index with commits only in its -wal, no -shm: exit 2, never listed short"
	check_grep "i.sqlite3: cannot read the index read-only: its last commits are still in its -wal" "$tmp/err" \
		"a read-only index with commits in its -wal: says why ($(head -c 200 "$tmp/err"))"
fi
chmod -R u+w "$tmp/rw"
# db rebuild: a third of the files gone, pages of the file overwritten
find "$tmp/rb/rep" -type f | sort | awk 'NR % 3 == 0' >"$tmp/rb/gone"
xargs rm -f <"$tmp/rb/gone"
left=$(find "$tmp/rb/rep" -type f | wc -l | tr -d ' ')
gone=$(head -1 "$tmp/rb/gone")
cp "$tmp/rb/good.sqlite3" "$tmp/rb/i.sqlite3"
rm -f "$tmp/rb/i.sqlite3-wal" "$tmp/rb/i.sqlite3-shm"
"$kp" db rebuild --db "$tmp/rb/i.sqlite3" "$tmp/rb/rep" >"$tmp/out" 2>"$tmp/err"
check "$?" = 0 "db rebuild of a sound index: exit 0 ($(head -c 200 "$tmp/err"))"
check_grep "Rebuilt .*i.sqlite3: $left reports from $left files, $((300 - left)) more from the old archive" "$tmp/out" \
	"db rebuild: the files' reports and the archive's others ($(cat "$tmp/out"))"
check "$("$KP_BUILD_DIR/tests/test_index" --check "$tmp/rb/i.sqlite3")" = "ok 300 300 3 300 0" \
	"db rebuild: every report once, the index consistent"
check "$(ls "$tmp/rb" | grep -c 'rebuild\|damaged')" = 0 "db rebuild of a sound index: no file left beside it"
"$kp" list --db "$tmp/rb/i.sqlite3" >"$tmp/out" 2>&1
check_grep "$gone" "$tmp/out" "db rebuild: a report whose file is gone keeps its last path"
cp "$tmp/rb/good.sqlite3" "$tmp/rb/d.sqlite3"
python3 - "$tmp/rb/d.sqlite3" <<'EOF'
import random, sys
random.seed(12)
f = open(sys.argv[1], "r+b")
pages = f.seek(0, 2) // 4096
for pg in (pages // 3, pages // 2, 2 * pages // 3):
    f.seek(pg * 4096 + 100)
    f.write(bytes(random.randrange(256) for _ in range(2000)))
EOF
"$kp" list --db "$tmp/rb/d.sqlite3" >/dev/null 2>"$tmp/err"
check "$?" = 2 "bytes overwritten inside the index: list exit 2 ($(head -c 200 "$tmp/err"))"
cp "$tmp/rb/good.sqlite3" "$tmp/rb/t.sqlite3"
python3 - "$tmp/rb/t.sqlite3" <<'EOF'
import random, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
root = c.execute("SELECT rootpage FROM sqlite_schema WHERE name IN ('panic_fts_data', 'panic_text') "
                 "ORDER BY name LIMIT 1").fetchone()[0]
c.close()
random.seed(5)
f = open(sys.argv[1], "r+b")
f.seek((root - 1) * 4096 + 8)
f.write(bytes(random.randrange(256) for _ in range(3000)))
EOF
"$kp" search --db "$tmp/rb/t.sqlite3" panic >"$tmp/out" 2>"$tmp/err"
check "$?" = 2 "bytes overwritten inside the text search: search exit 2"
check_grep "t.sqlite3: .*the index is damaged" "$tmp/err" "bytes overwritten: search names the damage ($(head -c 200 "$tmp/err"))"
check "$(wc -c <"$tmp/out" | tr -d ' ')" = 0 "bytes overwritten: search prints no header before its error"
timeout 120 "$kp" db rebuild --db "$tmp/rb/d.sqlite3" "$tmp/rb/rep" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "$rc" = 2 "db rebuild of a damaged index: exit 2 (damage found; 124: hung)"
check_grep "d.sqlite3: [0-9]* reports of the old index could not be read" "$tmp/err" \
	"db rebuild of a damaged index: says how many ($(head -c 200 "$tmp/err"))"
check_grep "kept as .*d.sqlite3.damaged" "$tmp/out" "db rebuild of a damaged index: the old file kept"
check "$(sqlite3 "$tmp/rb/d.sqlite3" 'PRAGMA integrity_check' 2>&1)" = ok "db rebuild: the new index passes its integrity check"
n=$("$kp" list --db "$tmp/rb/d.sqlite3" 2>/dev/null | grep -c '^@')
check "$n" -ge "$left" "db rebuild of a damaged index: at least every report with a file ($n of 300)"
"$kp" db rebuild --db "$tmp/rb/none.sqlite3" "$tmp/rb/rep" >/dev/null 2>"$tmp/err"
check "$?" = 2 "db rebuild of no index: exit 2"
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA application_id = 7"); c.execute("CREATE TABLE t(x)"); c.commit()' "$tmp/rb/other.sqlite3"
cp "$tmp/rb/other.sqlite3" "$tmp/rb/other.orig"
"$kp" db rebuild --db "$tmp/rb/other.sqlite3" "$tmp/rb/rep" >/dev/null 2>"$tmp/err"
check "$?" = 2 "db rebuild of another program's database: refused"
check "$(cmp -s "$tmp/rb/other.sqlite3" "$tmp/rb/other.orig" && echo same)" = same "another program's database: untouched"

done_testing
