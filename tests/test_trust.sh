#!/bin/sh
# test_trust.sh: what a hostile report, index or path cannot do (issue 19),
# through the real commands: look-alike bundle ids shown for what they are,
# export never following a link, overwriting or blocking, a handed-over
# index's planted trigger refused, index's exit status and streams.
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
rep=$KP_FIXTURES/reports/panic-full-2026-11-20-101500.0001.ips
txt=$KP_FIXTURES/reports/Kernel_2020-08-03-094512_kpbrowse-demo.panic

# ---- item 7: invisible look-alikes (a WORD JOINER inside the bundle id)
python3 - "$txt" "$tmp/fake.panic" <<'EOF'
import sys
t = open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read()
t = t.replace("com.kpbrowse.FakeDriver", "com.kpbrowse.Fake\u2060Driver")
open(sys.argv[2], "w", encoding="utf-8", errors="surrogateescape").write(t)
EOF
"$kp" show --no-symbols "$tmp/fake.panic" >"$tmp/fake.txt" 2>&1
check_grep "Fake<U+2060>Driver" "$tmp/fake.txt" "show: a WORD JOINER in a bundle id is shown as <U+2060>"
check "$(grep -c "$(printf 'Fake\342\201\240Driver')" "$tmp/fake.txt")" = 0 "show: the raw U+2060 never reaches the terminal"
"$kp" show --json --no-symbols "$tmp/fake.panic" >"$tmp/fake.json" 2>/dev/null
check_grep 'Fake\\u2060Driver' "$tmp/fake.json" "show --json: the U+2060 stays escaped"

# ---- issue 19 item 7 and issue 32 item 3: every default-ignorable code
# point and the hieroglyph format controls are shown escaped; a name holding
# one is flagged
for cp in 200b 200c 200d 2062 206a 180e 00ad 3164 ffa0 fe0f fe00 180b 180f 17b4 2065 fff0 1bca0 13430 \
	1343f e0100 e0fff; do
	python3 - "$txt" "$tmp/one.panic" "$cp" <<'EOF'
import sys
t = open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read()
t = t.replace("com.kpbrowse.FakeDriver", "com.kpbrowse.Fake%sDriver" % chr(int(sys.argv[3], 16)))
open(sys.argv[2], "w", encoding="utf-8", errors="surrogateescape").write(t)
EOF
	"$kp" show --no-symbols "$tmp/one.panic" >"$tmp/one.out" 2>&1
	up=$(echo "$cp" | tr a-f A-F)
	check_grep "^Last started: *com.kpbrowse.Fake<U+$up>Driver .*(holds an invisible character)\$" "$tmp/one.out" \
		"U+$up is shown visibly and the name is flagged"
done
mkdir -p "$tmp/vs"
cp "$rep" "$tmp/vs/real.ips"
python3 - "$rep" "$tmp/vs/fake.ips" <<'EOF'
import sys
t = open(sys.argv[1], encoding="utf-8").read()
t = t.replace("com.kpbrowse.FakeDriver", "com.kpbrowse.Fake\ufe0fDriver").replace("fakeclient", "fakeclient\u200b")
open(sys.argv[2], "w", encoding="utf-8").write(t)
EOF
"$kp" show --no-symbols "$tmp/vs/fake.ips" >"$tmp/vs.txt" 2>&1
check_grep "^  com.kpbrowse.Fake<U+FE0F>Driver .*(holds an invisible character)\$" "$tmp/vs.txt" \
	"show: a kext in the backtrace holding U+FE0F is shown escaped and flagged"
check_grep "^Panicked task: *pid 321 fakeclient<U+200B> (holds an invisible character)\$" "$tmp/vs.txt" \
	"show: a process name holding U+200B is flagged"
check "$(grep -c "$(printf '\357\270\217')" "$tmp/vs.txt")" = 0 "show: the raw U+FE0F never reaches the terminal"
"$kp" show --no-symbols "$rep" >"$tmp/real.txt" 2>&1
check_not_grep "invisible" "$tmp/real.txt" "show: the genuine report flags nothing"
"$kp" show --json --no-symbols "$tmp/vs/fake.ips" >"$tmp/vs.json" 2>/dev/null
python3 - "$tmp/vs.json" >"$tmp/vs.flags" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print("panicked", d["panicked"].get("invisible"))
print("image", [i.get("invisible") for i in d["images"] if (i.get("name") or "").startswith("com.kpbrowse.Fake")])
print("other", [i.get("invisible") for i in d["images"] if not (i.get("name") or "").startswith("com.kpbrowse.Fake")].count(True))
EOF
check "$(tr '\n' ' ' <"$tmp/vs.flags")" = "panicked True image [True] other 0 " \
	"show --json: \"invisible\": true on the look-alike kext and process, nowhere else"
"$kp" show --json --no-symbols "$rep" >"$tmp/real.json" 2>/dev/null
check_not_grep '"invisible"' "$tmp/real.json" "show --json: the genuine report has no \"invisible\" key"
"$kp" index --db "$tmp/vs.db" "$tmp/vs" >/dev/null 2>&1
"$kp" search --db "$tmp/vs.db" --kext com.kpbrowse.FakeDriver >"$tmp/vs.search" 2>&1
check "$(grep -c '/vs/real.ips' "$tmp/vs.search")$(grep -c '/vs/fake.ips' "$tmp/vs.search")" = 10 \
	"search --kext com.kpbrowse.FakeDriver lists the real kext's report, not the look-alike's"
"$kp" search --db "$tmp/vs.db" --kext FakeDriver >"$tmp/vs.search" 2>&1
check "$(grep -c '/vs/real.ips' "$tmp/vs.search")$(grep -c '/vs/fake.ips' "$tmp/vs.search")" = 10 \
	"search --kext FakeDriver (the last part) lists the real kext's report, not the look-alike's"
"$kp" search --db "$tmp/vs.db" --kext "$(printf 'com.kpbrowse.Fake\357\270\217Driver')" >"$tmp/vs.search" 2>&1
check "$(grep -c '/vs/real.ips' "$tmp/vs.search")$(grep -c '/vs/fake.ips' "$tmp/vs.search")" = 01 \
	"search --kext with the look-alike lists only its report"
check_grep "match: .*com.kpbrowse.Fake<U+FE0F>Driver .*(holds an invisible character)\$" "$tmp/vs.search" \
	"search: the look-alike is shown escaped and flagged"
"$kp" search --json --db "$tmp/vs.db" --kext "$(printf 'com.kpbrowse.Fake\357\270\217Driver')" >"$tmp/vs.sj" 2>&1
check "$(python3 -c 'import json,sys; print([r["match"].get("invisible") for r in json.load(open(sys.argv[1]))])' "$tmp/vs.sj" 2>&1)" = "[True]" \
	"search --json: the look-alike's match has \"invisible\": true"

# ---- item 6: export writes a new file only, never blocking
"$kp" index --db "$tmp/i.db" "$KP_FIXTURES/reports" >/dev/null 2>&1
echo keep >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/link"
"$kp" export --db "$tmp/i.db" @1 "$tmp/link" 2>"$tmp/err"
check "$?" = 2 "export onto a symbolic link: refused, exit 2"
check "$(cat "$tmp/victim")" = keep "export onto a symbolic link: its target untouched"
echo old >"$tmp/exists"
"$kp" export --db "$tmp/i.db" @1 "$tmp/exists" 2>"$tmp/err"
check "$?" = 2 "export onto an existing file: refused, exit 2"
check_grep "exists; not overwriting" "$tmp/err" "export onto an existing file: says so"
check "$(cat "$tmp/exists")" = old "export onto an existing file: it is untouched"
mkfifo "$tmp/fifo"
( sleep 20; kill $$ 2>/dev/null ) >/dev/null 2>&1 &
guard=$!
"$kp" export --db "$tmp/i.db" @1 "$tmp/fifo" 2>"$tmp/err"
rc=$?
kill $guard 2>/dev/null
check "$rc" = 2 "export onto a FIFO: refused at once, exit 2"
"$kp" export --db "$tmp/i.db" @1 "$tmp/new.ips" 2>/dev/null
check "$?" = 0 "export to a new file: exit 0"
cmp -s "$tmp/new.ips" "$KP_FIXTURES/reports/$(ls "$KP_FIXTURES/reports" | grep -v expected | head -1)" ||
	cmp -s "$tmp/new.ips" "$txt" || ls "$KP_FIXTURES/reports" | grep -v expected | while read -r f; do
		cmp -s "$tmp/new.ips" "$KP_FIXTURES/reports/$f" && echo same; done | grep -q same
check "$?" = 0 "export to a new file: the report's bytes"

# ---- item 8: a handed-over index cannot run what its schema says
"$kp" index --db "$tmp/h.db" "$rep" >/dev/null 2>&1
python3 - "$tmp/h.db" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TRIGGER evil AFTER INSERT ON reports BEGIN "
          "SELECT load_extension('/nonexistent/evil'); END")
c.commit()
EOF
"$kp" index --db "$tmp/h.db" "$txt" >"$tmp/out" 2>"$tmp/err"
check "$?" = 2 "a planted trigger: the index refuses to run it (exit 2)"
check_grep "h.db: the index holds a trigger 'evil' that kpbrowse did not create" "$tmp/err" \
	"a planted trigger: refused by name before anything runs ($(head -c 200 "$tmp/err"))"

# ---- issue 32 item 7: objects kpbrowse did not create, and a time limit on
# every query.  A recursive view in place of a table hung list, search and
# hosts for ever; each is refused at once, naming the object.
"$kp" index --db "$tmp/v.db" "$KP_FIXTURES/reports" >/dev/null 2>&1
python3 - "$tmp/v.db" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("ALTER TABLE groups RENAME TO g2")
c.execute("CREATE VIEW groups AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
          "SELECT g.* FROM g2 g, (SELECT max(x) FROM c)")
c.commit()
EOF
for cmd in list "search FakeDriver" hosts "index $txt"; do
	# shellcheck disable=SC2086
	timeout 30 "$kp" $cmd --db "$tmp/v.db" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "$rc" = 2 "a recursive view: ${cmd%% *} refuses the index at once (exit $rc; 124: hung)"
	check_grep "v.db: the index holds a view 'groups' that kpbrowse did not create" "$tmp/err" \
		"a recursive view: ${cmd%% *} names it ($(head -c 200 "$tmp/err"))"
done
cp "$tmp/i.db" "$tmp/x.db"
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("CREATE TABLE extra(x)"); c.commit()' "$tmp/x.db"
"$kp" list --db "$tmp/x.db" >/dev/null 2>"$tmp/err"
check "$?" = 2 "a table kpbrowse did not create: refused"
check_grep "holds a table 'extra'" "$tmp/err" "a table kpbrowse did not create: named"
"$kp" list --db "$tmp/h.db" >/dev/null 2>&1
check "$?" = 2 "the planted trigger's index: list refuses it too"
# the time limit: an index of 50,000 rows (nothing foreign, only large)
# with a limit of a millisecond; time spent writing rows to a slow reader
# is not the query's
"$kp" index --db "$tmp/big.db" "$KP_FIXTURES/reports" >/dev/null 2>&1
python3 - "$tmp/big.db" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("""WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < 50000)
INSERT INTO reports(content_hash, size, ts, exact_key, group_id, indexed_at, host, headline, kind)
SELECT printf('%040d', v), 1, v, 'k', 1, 0, 'h' || (v % 500), 'bulk ' || v, 'panic' FROM n""")
c.execute("INSERT INTO panic_fts(rowid, body) SELECT id, 'bulk' FROM reports WHERE headline LIKE 'bulk %'")
c.commit()
EOF
for cmd in list "search bulk" hosts; do
	# shellcheck disable=SC2086
	KPBROWSE_QUERY_TIMEOUT=0.001 "$kp" $cmd --db "$tmp/big.db" >"$tmp/out" 2>"$tmp/err"
	check "$?" = 2 "a 1 ms query time limit: ${cmd%% *} stops, exit 2"
	check_grep "big.db: .*stopped after 0.001 s, the query time limit" "$tmp/err" \
		"a 1 ms query time limit: ${cmd%% *} says so, naming the index ($(head -c 200 "$tmp/err"))"
	check "$(grep -c "big.db: .*big.db" "$tmp/err")" = 0 "a 1 ms query time limit: ${cmd%% *} names the index once"
	# shellcheck disable=SC2086
	"$kp" $cmd --db "$tmp/big.db" >"$tmp/out" 2>"$tmp/err"
	check "$?" = 0 "the default query time limit: ${cmd%% *} of 50,000 reports runs ($(head -c 200 "$tmp/err"))"
done
KPBROWSE_QUERY_TIMEOUT=2 "$kp" list --db "$tmp/big.db" 2>"$tmp/err" | (sleep 4; wc -l >"$tmp/n")
check "$(cat "$tmp/n")" -gt 100000 "a 2 s limit: a reader slower than that still gets every row ($(head -c 200 "$tmp/err"))"

# ---- item 5: the same incident id over other content is another report
mkdir -p "$tmp/inc"
cp "$rep" "$tmp/inc/a.ips"
sed 's/exceeds buffer/overflows its ring/' "$rep" >"$tmp/inc/b.ips"
check "$(grep -c '"incident"' "$tmp/inc/b.ips")" -ge 1 "the copy keeps the incident id"
"$kp" index --db "$tmp/inc.db" "$tmp/inc" >"$tmp/out" 2>"$tmp/err"
check "$?" = 0 "an incident id collision: exit 0"
check_grep "2 new, 0 unchanged, 0 duplicates" "$tmp/out" "an incident id collision: both stored ($(head -1 "$tmp/out"))"
check_grep "b.ips: warning: incident id .* already names @1, whose content differs" "$tmp/err" \
	"an incident id collision: warned about, naming both"
"$kp" search --db "$tmp/inc.db" "overflows its ring" >"$tmp/out" 2>&1
check "$?" = 0 "an incident id collision: the second report is searchable"
cp "$rep" "$tmp/inc/c.ips"
"$kp" index --db "$tmp/inc.db" "$tmp/inc" >"$tmp/out" 2>"$tmp/err"
check_grep "0 new, 2 unchanged, 1 duplicates" "$tmp/out" "the same bytes again: a duplicate, by content"

# ---- item 10: index's exit status and streams
"$kp" index --db "$tmp/x.db" "$tmp/nope" >"$tmp/out" 2>"$tmp/err"
check "$?" = 2 "index of a PATH that does not exist: exit 2"
check_grep "nope: no such file or folder" "$tmp/err" "index of a missing PATH: named"
check "$(wc -c <"$tmp/out" | tr -d ' ')" = 0 "index of a missing PATH: nothing on stdout"
"$kp" index --db "$tmp/x.db" "$tmp/fifo" >/dev/null 2>"$tmp/err"
check "$?" = 2 "index of a FIFO: exit 2, never blocks"
check_grep "a FIFO" "$tmp/err" "index of a FIFO: says so"
"$kp" index --db "$tmp/x.db" /dev/null >/dev/null 2>"$tmp/err"
check "$?" = 2 "index of a device: exit 2"
mkdir -p "$tmp/mixed"
cp "$rep" "$tmp/mixed/"
echo "not a report" >"$tmp/mixed/notes.txt"
chmod 000 "$tmp/mixed/notes.txt"
"$kp" index -v --db "$tmp/m.db" "$tmp/mixed" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$(id -u)" = 0 ]; then
	check "$rc" = 0 "index -v: exit 0"
	check_grep "skipped: .*notes.txt: " "$tmp/out" "index -v names the skipped file and why"
else
	check "$rc" = 2 "an unreadable file: exit 2"
	check_grep "notes.txt" "$tmp/err" "an unreadable file: named on stderr"
	check_not_grep "notes.txt" "$tmp/out" "an unreadable file: not on stdout"
fi
# files moved into Retired/ while the scan runs are not errors
mkdir -p "$tmp/busy/Retired"
i=0
while [ $i -lt 4000 ]; do
	printf 'panic(cpu 0 caller 0x%x): test %d\nKernel version:\nDarwin Kernel Version 21.4.0\n' $i $i \
		>"$tmp/busy/Kernel-$i.panic"
	i=$((i + 1))
done
# moved from the end of the walk's (sorted) order while it runs from the start,
# so the walk meets names it listed whose files are gone.  The mover is ready
# (python is slow to start on a loaded machine) before the scan starts, and
# once the scan has made its index moves a file every half millisecond for
# over a second: whenever the walk lists the folder (an ASan build takes
# long to get there) and however fast it reads (half a second on 2 cores),
# files it listed go before it reaches them.
python3 - "$tmp/busy" "$tmp/b.db" "$tmp/mover-ready" <<'EOF' &
import os, sys, time
d, db, ready = sys.argv[1:4]
names = sorted(n for n in os.listdir(d) if n.endswith(".panic"))
open(ready, "w").close()
while not os.path.exists(db):
    time.sleep(0.001)
for n in reversed(names[len(names) // 3:]):
    os.rename(os.path.join(d, n), os.path.join(d, "Retired", n))
    time.sleep(0.0005)
EOF
mover=$!
while [ ! -e "$tmp/mover-ready" ]; do sleep 0.01; done
"$kp" index -v --db "$tmp/b.db" "$tmp/busy" >"$tmp/out" 2>"$tmp/err"
rc=$?
wait $mover
check "$rc" = 0 "files moved into Retired/ during the scan: exit 0"
check_grep " 0 errors" "$tmp/out" "files moved during the scan: 0 errors ($(head -1 "$tmp/out"))"
check_grep "skipped: .*: gone while indexing (moved or removed)" "$tmp/out" \
	"files moved during the scan: skipped as gone (index -v)"
check "$(wc -c <"$tmp/err" | tr -d ' ')" = 0 "files moved during the scan: nothing on stderr"
done_testing
