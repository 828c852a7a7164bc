#!/bin/sh
# test_tui.sh: the browser end to end in a real terminal (tmux): the demo,
# drilling to the panicked thread, symbols filling in, source, UUID search,
# resize, help, quit with the terminal restored, and an escape sequence in
# a report staying inert.  TAP output; exit 77 when tmux is missing.
# Env: KPBROWSE (binary), KP_TESTS_DIR.
set -u

: "${KP_TESTS_DIR:=$(cd "$(dirname "$0")" && pwd)}"
. "$KP_TESTS_DIR/tui_shell.sh"
ts_init tui
ts_shell 100 30
run_line "'$KPBROWSE' --demo"

check "demo opens on the panic list" "FakeDriver: report length" 20
check "list shows the status bar" "q quit"
alt=$($T display-message -p -t kpt '#{alternate_on}')
[ "$alt" = 1 ] && ok "runs on the alternate screen" || not_ok "runs on the alternate screen (alternate_on=$alt)"

# Newest first: the arm64 .ips report; Enter, Enter (panicked process), Enter (panicked thread)
keys Enter
check "report view shows the processes" "Processes ("
check "report view shows the kernel UUID" "Kernel UUID:"
keys Enter
check "process view marks the panicked thread" "panicked"
keys Enter
check "thread frames get a symbolicated function" "FakeDriver::handleRepor" 20
check "thread frames get file:line" "fakekext.cpp:128" 20
check "inlined calls show as indented rows" "inlined into"

# frame 2 (validateReport) is the third row
keys j j Enter
check "source view opens on the line" ">    74" 10
check "source view shows the line's text" 'panic("FakeDriver: report length %u > buffer %u"'
keys Escape
check "Esc goes back to the frames" "inlined into FakeDriver::handleRepor"

# UUID search from anywhere, lower case with dashes, a prefix
keys u
check "u prompts for a UUID" "UUID (8+ hex digits)"
keys "4c4c44a3-5555-3144" Enter
check "UUID prefix search finds the arm64 panics" "2 panics with UUID 4c4c44a3-5555-3144"
keys Escape u "4C4C44495555" Enter
check "UUID prefix without dashes, another kext" "1 panic with UUID 4C4C44495555" 5
keys Enter
check "Enter on a result opens its report" "Processes (" 5
# back to the bottom of the stack (Esc there does nothing)
keys Escape Escape Escape Escape Escape Escape Escape
check "Esc walks back to the panic list" "Tab groups" 5

# resize down to 80x24 and up again
$T resize-window -t kpt -x 80 -y 24
sleep 0.3
check "redraws at 80x24" "q quit"
rows=$(screen | wc -l | tr -d ' ')
[ "$rows" -eq 24 ] && ok "screen is 24 rows after resize" || not_ok "screen is 24 rows after resize ($rows)"
if screen | sed -n '24p' | grep -qF "q quit"; then ok "status bar on the last row at 80x24"
else not_ok "status bar on the last row at 80x24"; fi
$T resize-window -t kpt -x 140 -y 40
sleep 0.3
if wait_for "q quit" 5 && screen | sed -n '40p' | grep -qF "q quit"; then ok "redraws at 140x40"
else not_ok "redraws at 140x40"; fi

keys "?"
check "help screen from the key table" "every panic with a kext/kernel UUID or a kext bundle id"
check "help lists the vi keys" "Ctrl-d"
keys Escape
check "Esc leaves help" "Tab groups"

keys Tab
check "Tab shows the groups" "group (normalised headline)"
keys Tab

keys q
check "q quits back to the shell" 'kpt-prompt$' 10
alt=$($T display-message -p -t kpt '#{alternate_on}')
[ "$alt" = 0 ] && ok "alternate screen left on quit" || not_ok "alternate screen left on quit (alternate_on=$alt)"
if screen | grep -qF "Tab groups"; then not_ok "no TUI left on the shell screen"; else ok "no TUI left on the shell screen"; fi

# "New since last launch" is kept in the index, not in a file beside it.
mkdir -p "$work/seen"
cp "$KP_TESTS_DIR/fixtures/reports/Kernel_2020-08-03-094512_kpbrowse-demo.panic" "$work/seen/"
run_line "'$KPBROWSE' --db '$work/seen.db' '$work/seen'"
wait_for "q quit" 20
if wait_for_re '^\* .*bad magic' 10; then ok "first launch marks the report new"
else not_ok "first launch marks the report new"; fi
keys q
wait_for 'kpt-prompt$' 10
run_line "'$KPBROWSE' --db '$work/seen.db' '$work/seen'"
wait_for "q quit" 20
if wait_for_re '^  .*bad magic' 10; then ok "second launch: no longer new"
else not_ok "second launch: no longer new"; fi
keys q
wait_for 'kpt-prompt$' 10
if [ -e "$work/seen.db.tui-state" ]; then not_ok "no state file beside the index"
else ok "no state file beside the index"; fi

# An escape sequence planted in a report's panic string must stay inert.
mkdir -p "$work/evil"
esc=$(printf '\033')
awk -v e="$esc" '{ sub(/has bad magic/, "has " e "[31mRED" e "[0m" e "]0;PWNED" e "\\ bad magic"); print }' \
	"$KP_TESTS_DIR/fixtures/reports/Kernel_2020-08-03-094512_kpbrowse-demo.panic" >"$work/evil/Kernel_evil.panic"
# wide enough that the panic column (beside the class column) holds it
$T resize-window -t kpt -x 160 -y 40
run_line "'$KPBROWSE' --db '$work/evil.db' '$work/evil'"
check "planted ESC shows as text in the list" '\e[31mRED\e[0m' 20
keys Enter
check "planted ESC shows as text in the report" '\e]0;PWNED\e\' 10
# capture-pane -e renders the cells' attributes as escapes: the planted SGR
# must not be among them (it would precede RED if the terminal had run it).
if $T capture-pane -e -p -t kpt | grep -qF "${esc}[31mRED"; then
	not_ok "planted SGR did not reach the terminal (capture-pane -e)"
else ok "planted SGR did not reach the terminal (capture-pane -e)"; fi
title=$($T display-message -p -t kpt '#{pane_title}')
case "$title" in *PWNED*) not_ok "OSC title sequence did not reach the terminal";;
	*) ok "OSC title sequence did not reach the terminal";; esac

# SIGTERM restores the terminal too
pid=$(pgrep -n -f "$work/evil.db" 2>/dev/null || true)
if [ -n "$pid" ]; then
	kill -TERM "$pid"
	check "SIGTERM restores the shell" 'kpt-prompt$' 10
	alt=$($T display-message -p -t kpt '#{alternate_on}')
	[ "$alt" = 0 ] && ok "alternate screen left on SIGTERM" || not_ok "alternate screen left on SIGTERM"
else
	keys q
fi

# The symbol worker answers from the DWARF first, then, idle, builds the
# symbol caches it wants (forced for the small fixtures) off the critical
# path; nothing half-built is left behind.
wait_for 'kpt-prompt$' 10
mkdir -p "$work/sc"
cp "$KP_TESTS_DIR/fixtures/reports/panic-full-2026-11-20-101500.0001.ips" "$work/sc/"
run_line "KPBROWSE_SYMCACHE=always KPBROWSE_CACHE_DIR='$work/cache' '$KPBROWSE' --db '$work/sc.db' --dsym '$KP_TESTS_DIR/fixtures/bin' '$work/sc'"
check "symbol cache run: the list" "FakeDriver: report length" 20
keys Enter
check "symbol cache run: the report" "Processes (" 10
keys Enter Enter
check "symbol cache run: frames answered (from DWARF: no cache yet)" "panic_trap_to_debugger" 20
i=0
while [ $i -lt 50 ] && [ "$(ls "$work/cache/symcache" 2>/dev/null | grep -c '\.kpsym$')" -lt 1 ]; do
	sleep 0.2
	i=$((i + 1))
done
if [ "$(ls "$work/cache/symcache" 2>/dev/null | grep -c '\.kpsym$')" -ge 1 ]; then
	ok "the idle worker built the symbol cache"
else not_ok "the idle worker built the symbol cache"; fi
keys q q q q q
check "symbol cache run: quits" 'kpt-prompt$' 10
if ls "$work/cache/symcache" 2>/dev/null | grep -q 'tmp$'; then not_ok "no half-built cache file left"
else ok "no half-built cache file left"; fi

# A PATH that is not there is said so on the empty list (a typo, or a
# folder the live watch will fill once made); one that is there is bare.
mkdir -p "$work/empty"
run_line "'$KPBROWSE' --db '$work/miss.db' '$work/no-such-folder' '$work/empty'"
check "a missing PATH: said so" "$work/no-such-folder  (no such file or folder)" 20
if wait_for_re "^    $work/empty\$" 10; then ok "  the PATH that is there: bare"
else not_ok "  the PATH that is there: bare"; fi
keys q
check "and quits" 'kpt-prompt$' 10

ts_done
