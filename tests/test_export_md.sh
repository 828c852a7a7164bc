#!/bin/sh
# test_export_md.sh: `kpbrowse export --markdown` (issue 34 item 3): the bug
# report of a real report and of a symbolicated fixture pinned whole
# (tests/golden/markdown; KP_GOLDEN_UPDATE=1 rewrites them, the diff is
# reviewed), a group by gGROUP, planted ESC / newline / backticks never
# reaching the output raw, and where it will not write.
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
golden="$KP_TESTS_DIR/golden/markdown"
db="$tmp/index.sqlite3"
mkdir "$tmp/r"
cp "$KP_REAL_DIR/text-m1-macos12-usbhost-dataabort-1.txt" "$KP_FIXTURES/reports/panic-full-2026-11-20-101500.0001.ips" \
	"$KP_FIXTURES/reports/panic-full-2026-11-27-183005.0002.ips" "$tmp/r/"
# a planted field: ESC sequences, a newline, backticks and Markdown of its own
python3 - "$KP_FIXTURES/reports/panic-full-2026-11-27-183005.0002.ips" "$tmp/r/planted.ips" <<'PY'
import json, sys
head, body = open(sys.argv[1]).read().split("\n", 1)
b = json.loads(body)
b["product"] = "Mac\x1b[31m\n## injected ``` [x](http://e)"
b["panicString"] = b["panicString"].replace("FakeDriver: ", "FakeDriver: \x1b]52;c;AAAA\x07`` <img src=x> ", 1)
h = json.loads(head)
h["incident_id"] = "00000000-0000-4000-8000-000000000001"
b["incident"] = h["incident_id"]
open(sys.argv[2], "w").write(json.dumps(h) + "\n" + json.dumps(b, indent=2))
PY
"$kp" index --db "$db" --no-symbols "$tmp/r" >/dev/null 2>&1
check "$?" = 0 "index the four reports"
id_of() { # NAME: the @ID of the report whose path ends in NAME
	"$kp" list --db "$db" --json | python3 -c 'import json,sys; print([r["id"] for r in json.load(sys.stdin) if r["path"].endswith("/"+sys.argv[1])][0])' "$1"
}
m1=$(id_of text-m1-macos12-usbhost-dataabort-1.txt)
fx=$(id_of panic-full-2026-11-20-101500.0001.ips)
pl=$(id_of planted.ips)

# pinned: the folder the reports were copied to is the one thing that varies
pin() { # NAME FILE: FILE (its temporary folder spelt TMP) equals golden NAME
	sed "s|$tmp|TMP|g" "$2" >"$tmp/pinned"
	if [ "${KP_GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$tmp/pinned" "$golden/$1"
	fi
	if cmp -s "$tmp/pinned" "$golden/$1"; then
		_ok "$1 as pinned"
	else
		_notok "$1 differs from tests/golden/markdown/$1 (KP_GOLDEN_UPDATE=1 rewrites it)"
		diff "$golden/$1" "$tmp/pinned" | head -20 | sed 's/^/#   /'
	fi
}
"$kp" export --markdown --db "$db" --no-symbols "@$m1" >"$tmp/m1.md"
check "$?" = 0 "export --markdown @ID of a real report: exit 0"
pin real-m1-dataabort.md "$tmp/m1.md"
check_grep '^- \*\*Class:\*\* `null-deref`, from the panic_string: `pc: .*far: 0x000000000000000b`$' "$tmp/m1.md" \
	"  its class and the line that decided"
"$kp" export --markdown --db "$db" --dsym "$KP_FIXTURES/bin" "@$fx" >"$tmp/fx.md"
pin fixture-symbolicated.md "$tmp/fx.md"
check_grep 'validateReport(ReportHeader const&, unsigned int, unsigned int) (/kpbrowse/fixtures/src/fakekext.cpp:74)' "$tmp/fx.md" \
	"  the panicked thread symbolicated, with file:line"
check_grep '^- `com.kpbrowse.FakeDriver` version `1.0`, UUID `' "$tmp/fx.md" "  the kext in the backtrace with its version and UUID"
# a group: its newest report, with the group's count and builds
g=$("$kp" list --db "$db" --json | python3 -c 'import json,sys; print([r["group_id"] for r in json.load(sys.stdin) if r["id"]==int(sys.argv[1])][0])' "$fx")
"$kp" export --markdown --db "$db" --no-symbols "g$g" >"$tmp/g.md"
check "$?" = 0 "export --markdown gGROUP: exit 0"
check_grep "^- \*\*Occurrences:\*\* 2 reports in group $g, first seen" "$tmp/g.md" "  the group's count (the two fixtures)"
check_grep '^- \*\*Builds:\*\* `macOS 26.1 (25B78)`' "$tmp/g.md" "  and its builds"

# sanitised: nothing raw from the planted fields
"$kp" export --markdown --db "$db" --no-symbols "@$pl" >"$tmp/pl.md"
check "$(tr -d '\n\t' <"$tmp/pl.md" | LC_ALL=C tr -d '\040-\176' | LC_ALL=C tr -d '\200-\377' | wc -c | tr -d ' ')" = 0 \
	"planted ESC, BEL: no control byte in the output"
check_grep '^- \*\*Product:\*\* ````Mac\\e\[31m\\x0a## injected ``` \[x\](http://e)````$' "$tmp/pl.md" \
	"  the newline in a field stays on its line, escaped; its backticks and Markdown inside a longer code span"
check_not_grep '^## injected' "$tmp/pl.md" "  no heading of its own"
check_grep '^# Kernel panic: ```FakeDriver: \\e\]52;c;AAAA\\x07`` <img src=x> ' "$tmp/pl.md" "  the headline's OSC 52 and HTML set as code"

# where it writes: a new file, never an existing one, never a report folder
"$kp" export --markdown --db "$db" --no-symbols "@$m1" "$tmp/bug.md"
check "$?:$(cmp -s "$tmp/bug.md" "$tmp/m1.md" && echo same)" = "0:same" "export --markdown @ID FILE: the same Markdown in a new file"
echo keep >"$tmp/exists.md"
"$kp" export --markdown --db "$db" --no-symbols "@$m1" "$tmp/exists.md" 2>"$tmp/err"
check "$?:$(cat "$tmp/exists.md")" = "2:keep" "  an existing FILE: exit 2, left as it was"
"$kp" export --markdown --db "$db" --no-symbols "@$m1" "$tmp/r/bug.md" 2>"$tmp/err"
check "$?:$(ls "$tmp/r" | grep -c bug.md)" = "2:0" "  into the report's own folder: refused, nothing written"
check_grep "report folder" "$tmp/err" "  and said so"
ln -s "$tmp/m1.md" "$tmp/link.md"
"$kp" export --markdown --db "$db" --no-symbols "@$m1" "$tmp/link.md" 2>/dev/null
check "$?" = 2 "  a symlink at FILE is not followed"
"$kp" export --markdown --db "$db" "@99999" >/dev/null 2>"$tmp/err"
check "$?" = 2 "export --markdown of an unknown @ID: exit 2"
"$kp" export --markdown --db "$db" "nonsense" >/dev/null 2>"$tmp/err"
check "$?" = 2 "export --markdown of neither @ID nor gGROUP: exit 2"
"$kp" export --db "$db" --no-symbols "@$m1" "$tmp/raw" 2>/dev/null
check "$?" = 2 "export --no-symbols without --markdown: exit 2 (the original bytes)"
"$kp" export --db "$db" "@$m1" "$tmp/raw"
check "$?:$(cmp -s "$tmp/raw" "$KP_REAL_DIR/text-m1-macos12-usbhost-dataabort-1.txt" && echo same)" = "0:same" \
	"export @ID FILE without --markdown: the original bytes, as before"

done_testing
