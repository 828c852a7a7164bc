#!/bin/sh
# test_tui.sh: the browser end to end in a real terminal (tmux): the demo,
# drilling to the panicked thread, symbols filling in, source, UUID search,
# resize, help, quit with the terminal restored, and an escape sequence in
# a report staying inert.  TAP output; exit 77 when tmux is missing.
# Env: KPBROWSE (binary), KP_TESTS_DIR.
set -u

: "${KP_TESTS_DIR:=$(cd "$(dirname "$0")" && pwd)}"
. "$KP_TESTS_DIR/tap.sh"
. "$KP_TESTS_DIR/tui_tmux.sh"
tt_shell 100 30
tt_run_line "'$KPBROWSE' --demo"

tt_check "demo opens on the panic list" "FakeDriver: report length" 20
tt_check "list shows the status bar" "q quit"
alt=$($TT display-message -p -t tt '#{alternate_on}')
[ "$alt" = 1 ] && _ok "runs on the alternate screen" || tt_notok "runs on the alternate screen (alternate_on=$alt)"

# Newest first: the arm64 .ips report; Enter, Enter (panicked process), Enter (panicked thread)
tt_keys Enter
tt_check "report view shows the processes" "Processes ("
tt_check "report view shows the kernel UUID" "Kernel UUID:"
tt_keys Enter
tt_check "process view marks the panicked thread" "panicked"
tt_keys Enter
tt_check "thread frames get a symbolicated function" "FakeDriver::handleRepor" 20
tt_check "thread frames get file:line" "fakekext.cpp:128" 20
tt_check "inlined calls show as indented rows" "inlined into"

# frame 2 (validateReport) is the third row
tt_keys j j Enter
tt_check "source view opens on the line" ">    74" 10
tt_check "source view shows the line's text" 'panic("FakeDriver: report length %u > buffer %u"'
tt_keys Escape
tt_check "Esc goes back to the frames" "inlined into FakeDriver::handleRepor"

# UUID search from anywhere, lower case with dashes, a prefix
tt_keys u
tt_check "u prompts for a UUID" "UUID (8+ hex digits)"
tt_keys "4c4c44a3-5555-3144" Enter
tt_check "UUID prefix search finds the arm64 panics" "2 panics with UUID 4c4c44a3-5555-3144"
tt_keys Escape u "4C4C44495555" Enter
tt_check "UUID prefix without dashes, another kext" "1 panic with UUID 4C4C44495555" 5
tt_keys Enter
tt_check "Enter on a result opens its report" "Processes (" 5
# back to the bottom of the stack (Esc there does nothing)
tt_keys Escape Escape Escape Escape Escape Escape Escape
tt_check "Esc walks back to the panic list" "Tab groups" 5

# resize down to 80x24 and up again
$TT resize-window -t tt -x 80 -y 24
sleep 0.3
tt_check "redraws at 80x24" "q quit"
rows=$(tt_screen | wc -l | tr -d ' ')
[ "$rows" -eq 24 ] && _ok "screen is 24 rows after resize" || tt_notok "screen is 24 rows after resize ($rows)"
if tt_screen | sed -n '24p' | grep -qF "q quit"; then _ok "status bar on the last row at 80x24"
else tt_notok "status bar on the last row at 80x24"; fi
$TT resize-window -t tt -x 140 -y 40
sleep 0.3
if tt_wait "q quit" 5 && tt_screen | sed -n '40p' | grep -qF "q quit"; then _ok "redraws at 140x40"
else tt_notok "redraws at 140x40"; fi

tt_keys "?"
tt_check "help screen from the key table" "every panic with a kext/kernel UUID or a kext bundle id"
tt_check "help lists the vi keys" "Ctrl-d"
tt_keys Escape
tt_check "Esc leaves help" "Tab groups"

tt_keys Tab
tt_check "Tab shows the groups" "group (normalised headline)"
tt_keys Tab

tt_keys q
tt_check "q quits back to the shell" 'kpt-prompt$' 10
alt=$($TT display-message -p -t tt '#{alternate_on}')
[ "$alt" = 0 ] && _ok "alternate screen left on quit" || tt_notok "alternate screen left on quit (alternate_on=$alt)"
if tt_screen | grep -qF "Tab groups"; then tt_notok "no TUI left on the shell screen"; else _ok "no TUI left on the shell screen"; fi

# "New since last launch" is kept in the index, not in a file beside it.
mkdir -p "$tt_work/seen"
cp "$KP_TESTS_DIR/fixtures/reports/Kernel_2020-08-03-094512_kpbrowse-demo.panic" "$tt_work/seen/"
tt_run_line "'$KPBROWSE' --db '$tt_work/seen.db' '$tt_work/seen'"
tt_wait "q quit" 20
if tt_wait_re '^\* .*bad magic' 10; then _ok "first launch marks the report new"
else tt_notok "first launch marks the report new"; fi
tt_keys q
tt_wait 'kpt-prompt$' 10
tt_run_line "'$KPBROWSE' --db '$tt_work/seen.db' '$tt_work/seen'"
tt_wait "q quit" 20
if tt_wait_re '^  .*bad magic' 10; then _ok "second launch: no longer new"
else tt_notok "second launch: no longer new"; fi
tt_keys q
tt_wait 'kpt-prompt$' 10
if [ -e "$tt_work/seen.db.tui-state" ]; then tt_notok "no state file beside the index"
else _ok "no state file beside the index"; fi

# An escape sequence planted in a report's panic string must stay inert.
mkdir -p "$tt_work/evil"
esc=$(printf '\033')
awk -v e="$esc" '{ sub(/has bad magic/, "has " e "[31mRED" e "[0m" e "]0;PWNED" e "\\ bad magic"); print }' \
	"$KP_TESTS_DIR/fixtures/reports/Kernel_2020-08-03-094512_kpbrowse-demo.panic" >"$tt_work/evil/Kernel_evil.panic"
# wide enough that the panic column (beside the class column) holds it
$TT resize-window -t tt -x 160 -y 40
tt_run_line "'$KPBROWSE' --db '$tt_work/evil.db' '$tt_work/evil'"
tt_check "planted ESC shows as text in the list" '\e[31mRED\e[0m' 20
tt_keys Enter
tt_check "planted ESC shows as text in the report" '\e]0;PWNED\e\' 10
# capture-pane -e renders the cells' attributes as escapes: the planted SGR
# must not be among them (it would precede RED if the terminal had run it).
if $TT capture-pane -e -p -t tt | grep -qF "${esc}[31mRED"; then
	tt_notok "planted SGR did not reach the terminal (capture-pane -e)"
else _ok "planted SGR did not reach the terminal (capture-pane -e)"; fi
title=$($TT display-message -p -t tt '#{pane_title}')
case "$title" in *PWNED*) tt_notok "OSC title sequence did not reach the terminal";;
	*) _ok "OSC title sequence did not reach the terminal";; esac

# SIGTERM restores the terminal too
pid=$(pgrep -n -f "$tt_work/evil.db" 2>/dev/null || true)
if [ -n "$pid" ]; then
	kill -TERM "$pid"
	tt_check "SIGTERM restores the shell" 'kpt-prompt$' 10
	alt=$($TT display-message -p -t tt '#{alternate_on}')
	[ "$alt" = 0 ] && _ok "alternate screen left on SIGTERM" || tt_notok "alternate screen left on SIGTERM"
else
	tt_keys q
fi

# The symbol worker answers from the DWARF first, then, idle, builds the
# symbol caches it wants (forced for the small fixtures) off the critical
# path; nothing half-built is left behind.
tt_wait 'kpt-prompt$' 10
mkdir -p "$tt_work/sc"
cp "$KP_TESTS_DIR/fixtures/reports/panic-full-2026-11-20-101500.0001.ips" "$tt_work/sc/"
tt_run_line "KPBROWSE_SYMCACHE=always KPBROWSE_CACHE_DIR='$tt_work/cache' '$KPBROWSE' --db '$tt_work/sc.db' --dsym '$KP_TESTS_DIR/fixtures/bin' '$tt_work/sc'"
tt_check "symbol cache run: the list" "FakeDriver: report length" 20
tt_keys Enter
tt_check "symbol cache run: the report" "Processes (" 10
tt_keys Enter Enter
tt_check "symbol cache run: frames answered (from DWARF: no cache yet)" "panic_trap_to_debugger" 20
i=0
while [ $i -lt 50 ] && [ "$(ls "$tt_work/cache/symcache" 2>/dev/null | grep -c '\.kpsym$')" -lt 1 ]; do
	sleep 0.2
	i=$((i + 1))
done
if [ "$(ls "$tt_work/cache/symcache" 2>/dev/null | grep -c '\.kpsym$')" -ge 1 ]; then
	_ok "the idle worker built the symbol cache"
else tt_notok "the idle worker built the symbol cache"; fi
tt_keys q q q q q
tt_check "symbol cache run: quits" 'kpt-prompt$' 10
if ls "$tt_work/cache/symcache" 2>/dev/null | grep -q 'tmp$'; then tt_notok "no half-built cache file left"
else _ok "no half-built cache file left"; fi

# A PATH that is not there is said so on the empty list (a typo, or a
# folder the live watch will fill once made); one that is there is bare.
mkdir -p "$tt_work/empty"
tt_run_line "'$KPBROWSE' --db '$tt_work/miss.db' '$tt_work/no-such-folder' '$tt_work/empty'"
tt_check "a missing PATH: said so" "$tt_work/no-such-folder  (no such file or folder)" 20
if tt_wait_re "^    $tt_work/empty\$" 10; then _ok "  the PATH that is there: bare"
else tt_notok "  the PATH that is there: bare"; fi
tt_keys q
tt_check "and quits" 'kpt-prompt$' 10

done_testing
