#!/bin/sh
# test_tui_stackshot.sh: a watchdog in the browser (issue 14 item 4): the
# summary says the kind, blamed process and thread, reason, notes and wait
# chains (as show does: one summary model);
# s orders the processes by state counts; a waiting thread's owner row
# follows on Enter; f keeps one kind on the panic list.
# Env: KPBROWSE (binary), KP_TESTS_DIR, KP_FIXTURES.
set -u

: "${KP_TESTS_DIR:=$(cd "$(dirname "$0")" && pwd)}"
. "$KP_TESTS_DIR/tap.sh"
. "$KP_TESTS_DIR/tui_tmux.sh"
tt_shell 140 40
ss="$KP_FIXTURES/stackshots"
tt_run_line "'$KPBROWSE' --db '$tt_work/index.db' '$ss/WatchdogCrash-2026-11-22-100000.ips'"
tt_check "the watchdog is listed by its reason" "monitoring timed out for service" 20
tt_keys Enter
tt_check "summary: the reason" "Reason:          monitoring timed out for service"
tt_check "summary: the kind" "Kind:            watchdog"
tt_check "summary: the blamed process" "Blamed:          pid 400 fakedaemon"
tt_check "summary: the blamed thread" "Blamed thread:   fakedaemon[400] 5001, TH_WAIT, priority 31"
tt_check "summary: the notes" "Notes:           PC register does not match crashing frame (0 vs 4)"
tt_check "summary: the wait chains" "Wait chains (3)"
tt_check "summary: what a chain's first thread waits on" "      waits on: kernel mutex 0xfffffe1000aa0000 owned by thread 5001"
tt_check "summary: the longest chain" "fakeclient[321] 4242 -> fakedaemon[400] 5001 -> fakedaemon[400] 5002"
tt_check "summary: the deadlock" "back to deadlockd[500] 6001: a deadlock"
# the process list: state and priority, what each thread waits on
tt_keys / f a k e c l i e n t Enter
tt_check "summary filter finds the process" "fakeclient  4 threads"
tt_check "process row: state counts and frontmost" "4 threads  0 run 4 wait 2 blocked   frontmost"
tt_keys j j Enter
# the priority right-aligned at the state column's end, in line on every row
if tt_wait_re 'TH_WAIT TH_UNINT +47 ' 10; then _ok "thread list: state and priority"; else tt_notok "thread list: state and priority"; fi
tt_check "thread list: what a thread waits on" "-> 5001 kernel mutex 0xfffffe1000aa0000"
tt_check "thread list: an owner process" "-> pid 400 semaphore port"
tt_keys o
tt_check "o opens the owner thread across processes" "Report 1 > fakeclient > thread 5001"
tt_keys o
tt_check "o again follows the chain" "Report 1 > fakeclient > thread 5001 > thread 5002"
tt_keys Escape Escape
tt_check "Esc comes back to the thread list" "-> pid 400 semaphore port"
# s: the threads by state, priority and name, and back as listed
first_thread() { tt_screen | awk 'f { print; exit } /^  thread  / { f = 1 }'; }
tt_keys s
tt_check "s: threads by state" "threads by state"
tt_keys s
tt_check "s again: threads by priority" "threads by priority"
prios=$(tt_screen | sed -nE '/^[* ] [0-9]/s/.* ([0-9]+)(\^[0-9]+)? +[0-9]+  .*/\1/p' | tr '\n' ' ')
check_sorted=$(echo "$prios" | tr ' ' '\n' | grep . | sort -rn | tr '\n' ' ')
if [ -n "$prios" ] && [ "$prios" = "$check_sorted" ]; then _ok "  highest priority first ($prios)"
else tt_notok "  highest priority first ($prios)"; fi
tt_keys s
tt_check "s again: threads by name" "threads by name"
tt_keys s
tt_check "s again: as the report lists them" "threads as listed"
tt_keys / T H _ F U T U R E Enter
tt_check "thread filter by state" "1/1  /TH_FUTURE (filtered)"
# a waiting thread's frames start with whom and what it waits for; Enter follows
tt_keys Escape g Enter
tt_check "the thread's owner row" "waits for thread 5001 (fakedaemon): kernel mutex 0xfffffe1000aa0000"
tt_check "  and the detail line says Enter follows it" "Enter or o: open the thread it waits for"
tt_keys d
tt_check "d on the owner row: not a frame, no disassembly" "not a frame: Enter opens the thread it waits for"
tt_keys Enter
tt_check "Enter on the owner row opens the owner thread" "Report 1 > fakeclient > thread 4242 > thread 5001"
tt_keys Escape Escape Escape
tt_check "back on the summary" "/fakeclient (filtered)"
tt_keys Escape
# s: the processes by state counts
first_process() {   # the process row under the Processes header
	tt_screen | awk 'f { print; exit } /^Processes \(/ { f = 1 }' | sed 's/^ *[*]* *//'
}
tt_keys s
tt_check "s: most running threads first" "most running threads first (s: next order)"
tt_keys s
tt_check "s again: most waiting" "most waiting threads first"
check_first() {   # check_first DESCRIPTION TEXT
	i=0
	while [ "$i" -lt 50 ] && ! first_process | grep -qF -- "$2"; do sleep 0.1; i=$((i + 1)); done
	if first_process | grep -qF -- "$2"; then _ok "$1"; else tt_notok "$1 (first: '$(first_process)')"; fi
}
check_first "  fakeclient (4 waiting) first" "321  fakeclient"
tt_keys s
tt_check "s: most blocked" "most blocked threads first"
check_first "  fakeclient (2 blocked, listed before deadlockd's 2) first" "321  fakeclient"
tt_keys s
if tt_wait_re '^Processes \(4\)$'; then _ok "s back to the report's order"; else tt_notok "s back to the report's order"; fi
check_first "  fakedaemon first again, as listed" "400  fakedaemon"
# a waiting thread without frames: its owner row, and the deadlock followed round
tt_keys / a Space d e a d l o c k Enter Enter
tt_check "a frameless waiting thread: the owner row" "waits for thread 6002 (deadlockd): unfair lock 0x20644d340"
tt_check "  and no frames said below it" "This thread has no frames in the report."
tt_keys Enter
tt_check "Enter follows the cycle" "thread 6001 > thread 6002"
tt_keys Enter
tt_check "  and round to where it began" "thread 6001 > thread 6002 > thread 6001"
tt_keys Escape Escape Escape Escape
tt_keys q q
# f: one kind at a time on the panic list
tt_run_line "'$KPBROWSE' --db '$tt_work/all.db' '$ss'"
tt_check "every kind listed" "button reset: power button held" 20
tt_keys f
tt_check "f: the title names the kind" "Panics [panic]"
tt_check "  no panic among the stackshots: said so" "No panic reports here (f: the next kind)."
tt_keys f
tt_check "f: watchdogs" "Panics [watchdog]"
tt_check "  the watchdog is listed" "monitoring timed out for service"
if tt_screen | grep -q "button reset"; then tt_notok "  and the reset is not"; else _ok "  and the reset is not"; fi
tt_keys f f
tt_check "f: resets" "Panics [reset]"
tt_keys f
tt_check "f: hangs" "Panics [hang]"
tt_keys f
tt_check "f: shutdown stalls" "Panics [shutdown-stall]"
tt_keys f
tt_check "f: sleep/wake failures" "Panics [sleep-wake]"
tt_keys f
tt_check "f cycles back to all kinds" "button reset: power button held"
if tt_screen | grep -q "Panics \["; then tt_notok "  the title without a kind"; else _ok "  the title without a kind"; fi
tt_keys q
# a thread parked on a continuation (no frames): where it resumes,
# symbolicated, and the event it waits for (issue 20)
tt_run_line "'$KPBROWSE' --db '$tt_work/parked.db' --dsym '$KP_FIXTURES/bin' '$ss/Stackshot-2026-11-21-090000.ips'"
tt_check "the stackshot is listed" "fakeclient hang" 20
tt_keys Enter
tt_check "its summary" "Frontmost thread:"
tt_keys / k e r n e l _ t a s k Enter
tt_check "summary filter finds kernel_task" "kernel_task  2 threads"
tt_keys Enter
tt_check "kernel_task's threads" "only-continuation"
tt_keys Enter
if tt_wait_re '^ -> kernel +\+0x324 +kernel_bootstrap_thread +fakekernel\.c:194' 10; then
	_ok "the parked thread's continuation, symbolicated"
else tt_notok "the parked thread's continuation, symbolicated"; fi
tt_check "  its wait event (an absolute value)" "    wait event: 0x7029938eefffdd1b"
tt_check "  the detail line says it resumes there" "continuation (resumes in) kernel_bootstrap_thread"
if tt_screen | grep -q "no frames"; then tt_notok "  never \"no frames\""; else _ok "  never \"no frames\""; fi
tt_keys d
tt_check "d on the continuation: nothing to disassemble around" "the continuation is where the thread resumes"
tt_keys j Enter
tt_check "Enter on the wait event: not a frame" "not a frame: the event the thread waits for"
tt_keys q q
done_testing
