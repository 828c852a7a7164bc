#!/bin/sh
# test_tui_groups.sh: groups and comparisons of issue 15 in a real terminal
# (tmux): u taking a bundle id's last part, a group's undated members,
# the compare view's marker column without colour, and the status line's
# "indexing N of M", and the groups' trends (issue 34 item 2: marks,
# sparkline, s by growth, the group's weeks and builds).  The deterministic screens (compare, K, group detail)
# are whole-screen expectations in test_screens.sh.  TAP; 77 without tmux.
set -u
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/tui_tmux.sh"

# run FOLDER [ENV]: kpbrowse on FOLDER with the demo's dSYMs, a fresh index
run() {
	rm -f "$tt_work/g.db"*
	tt_start 100 30 "${2:-} HOME='$tt_work/home' XDG_CACHE_HOME='$tt_work/cache' KPBROWSE_DSYM_PATH= '$KPBROWSE' --db '$tt_work/g.db' --dsym '$tt_fix/bin' '$1'"
}

# ---- u takes a bundle id's last part (K's search)
run "$tt_fix/reports"
tt_wait "vm_page_check_sanity" 20
tt_keys u FakeDriver Enter
tt_check "u FakeDriver: the panics naming com.kpbrowse.FakeDriver" "4 panics with kext FakeDriver" 10
tt_keys Escape K fakedriver Enter
tt_check "K, any case" "4 panics with kext fakedriver" 10
tt_keys Escape K Driver Enter
tt_check "K: a last part is a whole part" "0 panics with kext Driver" 10

# ---- compare without colour: the marker column says it all
run "$tt_fix/reports" "NO_COLOR=1"
tt_wait "vm_page_check_sanity" 20
tt_keys m G m c
tt_wait "panic_trap_to_debugger (" 20
tt_check "NO_COLOR compare: differing frames marked !" "! 2   validateReport" 10
tt_check "NO_COLOR compare: common frames marked =" "= 0   panic_trap_to_debugger" 10
tt_keys j j j Enter
tt_check "compare: Enter on a row opens its thread (A's when both have a frame)" "compare 4 : 2 > thread 9001" 10
tt_keys Escape Escape c
tt_check "c with two marks from the list again" "compare 4 : 2" 10
tt_keys Escape g m c
tt_check "c with one mark (2) compares it with the selected row (3)" "compare 2 : 3" 10

# ---- a group's undated members: "-", and first/last seen from the dated
mkdir -p "$tt_work/undated"
cp "$tt_fix/reports/Kernel-2020-09-14-201744.panic" "$tt_work/undated/dated.panic"
sed 's/"timestamp":"[^"]*",//; s/"incident_id":"55AA55AA/"incident_id":"66AA55AA/' \
	"$tt_fix/reports/Kernel-2020-09-14-201744.panic" >"$tt_work/undated/undated.panic"
run "$tt_work/undated"
tt_wait "FakeDriver" 20
tt_keys Tab; tt_wait "count" 5
tt_keys Enter
tt_check "group detail: first/last seen from the dated member, the undated counted" \
	"First seen:  2020-09-14 18:17 UTC   Last seen: 2020-09-14 18:17 UTC   (1 undated)" 10
if tt_screen | grep -qE '^[* ]  -  +macOS 10\.15\.7'; then _ok "group detail: the undated member's date is -"
else _notok "group detail: the undated member's date is -"; tt_screen | sed 's/^/#   /'; fi
# issue 31 item 9: the group's OS versions labelled as every view labels them
tt_check "group detail: OS versions as kp_os_label names them (Mac OS X 10.15.7 is macOS)" \
	"OS versions: macOS 10.15.7 (19H2)" 5
rm "$tt_work/undated/dated.panic"
sed 's/"timestamp":"[^"]*",//; s/"incident_id":"55AA55AA/"incident_id":"77AA55AA/; s/length 512/length 513/' \
	"$tt_fix/reports/Kernel-2020-09-14-201744.panic" >"$tt_work/undated/undated2.panic"
run "$tt_work/undated"
tt_wait "FakeDriver" 20
tt_keys Tab; tt_wait "count" 5
tt_keys Enter
tt_check "group detail: no dated member: first and last seen -" \
	"First seen:  -   Last seen: -   (2 undated)" 10

# ---- trends (issue 34 item 2): the marks, the sparkline (blocks, or
# ASCII where the locale is not UTF-8), s by growth, the group's lines.
# A: 4 reports, 3 in August and one on Nov 10, after 98 quiet days
# (regressed); C: the demo's 25B78 group, a build newer than every earlier
# report's (new), 1 report the week before and 2 in the last 7 days (the
# most growth, though A has more).  "Now" is the newest report's day.
mkdir -p "$tt_work/trend"
n=0
for d in 2026-08-01 2026-08-02 2026-08-03 2026-11-10; do
	n=$((n + 1))
	sed "s/\"timestamp\":\"[^\"]*\"/\"timestamp\":\"$d 10:00:00.00 +0000\"/; s/55AA55AA/5A5A000$n/; s/length 512/length 51$n/" \
		"$tt_fix/reports/Kernel-2020-09-14-201744.panic" >"$tt_work/trend/a$n.panic"
done
cp "$tt_fix/reports/panic-full-2026-11-20-101500.0001.ips" "$tt_fix/reports/panic-full-2026-11-27-183005.0002.ips" "$tt_work/trend/"
sed 's/"incident_id":"A1B2C3D4/"incident_id":"B1B2C3D4/; s/18:30:05.00/18:40:05.00/' \
	"$tt_fix/reports/panic-full-2026-11-27-183005.0002.ips" >"$tt_work/trend/c3.ips"
run "$tt_work/trend"
tt_wait "FakeDriver" 20
tt_keys Tab; tt_wait "13 weeks" 5
if tt_screen | grep -qE '^ +x4 R +█ +2026-11-10'; then _ok "groups: A marked R, its one report of the 13 weeks a full block"
else _notok "groups: A marked R, its one report of the 13 weeks a full block"; tt_screen | sed 's/^/#   /'; fi
if tt_screen | grep -qE '^ +x3 N +▄█ 2026-11-27'; then _ok "groups: C marked N, its weeks: 1 the week before, 2 this week"
else _notok "groups: C marked N, its weeks: 1 the week before, 2 this week"; tt_screen | sed 's/^/#   /'; fi
tt_keys s
tt_check "s: the groups by growth" "Groups by growth" 5
if tt_screen | sed -n 3p | grep -qE '^ +x3 N'; then _ok "s: C (2 this week, 1 the week before) first"
else _notok "s: C (2 this week, 1 the week before) first"; tt_screen | sed 's/^/#   /'; fi
tt_keys s; sleep 0.5
if tt_screen | sed -n 3p | grep -qE '^ +x4 R'; then _ok "s again: by count, A first"
else _notok "s again: by count, A first"; tt_screen | sed 's/^/#   /'; fi
tt_keys Enter
tt_check "group view: why A regressed" "Trend:       REGRESSED: back after 98 quiet days" 10
tt_check "group view: its builds with their counts" "Builds:      19H2 █ 4" 5
tt_check "group view: its weeks from its first" "Weekly:      " 5
if tt_screen | grep -qE '^Weekly: +█ +▃ +17 weeks, at most 3/week'; then _ok "group view: a histogram by week over its span"
else _notok "group view: a histogram by week over its span"; tt_screen | sed 's/^/#   /'; fi
run "$tt_work/trend" "LC_ALL=C"
tt_wait "FakeDriver" 20
tt_keys Tab; tt_wait "13 weeks" 5
if tt_screen | grep -qE '^ +x4 R +@ +2026-11-10' && ! tt_screen | grep -q '█'; then
	_ok "groups: ASCII where the locale is not UTF-8"
else _notok "groups: ASCII where the locale is not UTF-8"; tt_screen | sed 's/^/#   /'; fi

# ---- the status line while indexing: N of M
mkdir -p "$tt_work/many"
awk -v src="$tt_fix/reports/Kernel-2020-09-14-201744.panic" -v dir="$tt_work/many" 'BEGIN {
	while ((getline l < src) > 0) body = body l "\n"
	for (i = 0; i < 12000; i++) {   # 12000 reports, each new to the index: a scan
		# of 3000 ended between two captures on a loaded machine
		b = body
		sub(/55AA55AA/, sprintf("%08X", i), b)
		sub(/length 512/, "length " i, b)
		f = dir "/r" i ".panic"; printf "%s", b > f; close(f)
	}
}'
run "$tt_work/many"
# one capture must show it: a fast scan can end between two captures
_i=0 seen=no
while [ $_i -lt 300 ] && [ $seen = no ]; do
	tt_screen | grep -qE "indexing [0-9]+ of 12000 \\([0-9]+ new\\)" && seen=yes
	[ $seen = no ] && sleep 0.1
	_i=$((_i + 1))
done
if [ $seen = yes ]; then
	_ok "the status line says indexing N of 12000"
else
	_notok "the status line says indexing N of 12000"
	tt_screen | sed 's/^/#   /'
fi
_i=0
while [ "$_i" -lt 240 ] && tt_screen | grep -q "indexing"; do sleep 0.5; _i=$((_i + 1)); done
if tt_screen | grep -q "indexing"; then _notok "the status line clears when indexing is done"; tt_screen | sed 's/^/#   /'
else _ok "the status line clears when indexing is done"; fi

done_testing
