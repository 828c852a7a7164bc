#!/bin/sh
# test_tui_stackshot.sh: a watchdog in the browser (issue 14 item 4): the
# summary says the kind, blamed process and thread, reason, notes and wait
# chains (as show does: one summary model);
# s orders the processes by state counts; a waiting thread's owner row
# follows on Enter; f keeps one kind on the panic list.
# Env: KPBROWSE (binary), KP_TESTS_DIR, KP_FIXTURES.
set -u

: "${KP_TESTS_DIR:=$(cd "$(dirname "$0")" && pwd)}"
. "$KP_TESTS_DIR/tui_shell.sh"
ts_init tui-ss
ts_shell 140 40
ss="$KP_FIXTURES/stackshots"
run_line "'$KPBROWSE' --db '$work/index.db' '$ss/WatchdogCrash-2026-11-22-100000.ips'"
check "the watchdog is listed by its reason" "monitoring timed out for service" 20
keys Enter
check "summary: the reason" "Reason:          monitoring timed out for service"
check "summary: the kind" "Kind:            watchdog"
check "summary: the blamed process" "Blamed:          pid 400 fakedaemon"
check "summary: the blamed thread" "Blamed thread:   fakedaemon[400] 5001, TH_WAIT, priority 31"
check "summary: the notes" "Notes:           PC register does not match crashing frame (0 vs 4)"
check "summary: the wait chains" "Wait chains (3)"
check "summary: what a chain's first thread waits on" "      waits on: kernel mutex 0xfffffe1000aa0000 owned by thread 5001"
check "summary: the longest chain" "fakeclient[321] 4242 -> fakedaemon[400] 5001 -> fakedaemon[400] 5002"
check "summary: the deadlock" "back to deadlockd[500] 6001: a deadlock"
# the process list: state and priority, what each thread waits on
keys / f a k e c l i e n t Enter
check "summary filter finds the process" "fakeclient  4 threads"
check "process row: state counts and frontmost" "4 threads  0 run 4 wait 2 blocked   frontmost"
keys j j Enter
# the priority right-aligned at the state column's end, in line on every row
if wait_for_re 'TH_WAIT TH_UNINT +47 ' 10; then ok "thread list: state and priority"; else not_ok "thread list: state and priority"; fi
check "thread list: what a thread waits on" "-> 5001 kernel mutex 0xfffffe1000aa0000"
check "thread list: an owner process" "-> pid 400 semaphore port"
keys o
check "o opens the owner thread across processes" "Report 1 > fakeclient > thread 5001"
keys o
check "o again follows the chain" "Report 1 > fakeclient > thread 5001 > thread 5002"
keys Escape Escape
check "Esc comes back to the thread list" "-> pid 400 semaphore port"
# s: the threads by state, priority and name, and back as listed
first_thread() { screen | awk 'f { print; exit } /^  thread  / { f = 1 }'; }
keys s
check "s: threads by state" "threads by state"
keys s
check "s again: threads by priority" "threads by priority"
prios=$(screen | sed -nE '/^[* ] [0-9]/s/.* ([0-9]+)(\^[0-9]+)? +[0-9]+  .*/\1/p' | tr '\n' ' ')
check_sorted=$(echo "$prios" | tr ' ' '\n' | grep . | sort -rn | tr '\n' ' ')
if [ -n "$prios" ] && [ "$prios" = "$check_sorted" ]; then ok "  highest priority first ($prios)"
else not_ok "  highest priority first ($prios)"; fi
keys s
check "s again: threads by name" "threads by name"
keys s
check "s again: as the report lists them" "threads as listed"
keys / T H _ F U T U R E Enter
check "thread filter by state" "1/1  /TH_FUTURE (filtered)"
# a waiting thread's frames start with whom and what it waits for; Enter follows
keys Escape g Enter
check "the thread's owner row" "waits for thread 5001 (fakedaemon): kernel mutex 0xfffffe1000aa0000"
check "  and the detail line says Enter follows it" "Enter or o: open the thread it waits for"
keys d
check "d on the owner row: not a frame, no disassembly" "not a frame: Enter opens the thread it waits for"
keys Enter
check "Enter on the owner row opens the owner thread" "Report 1 > fakeclient > thread 4242 > thread 5001"
keys Escape Escape Escape
check "back on the summary" "/fakeclient (filtered)"
keys Escape
# s: the processes by state counts
first_process() {   # the process row under the Processes header
	screen | awk 'f { print; exit } /^Processes \(/ { f = 1 }' | sed 's/^ *[*]* *//'
}
keys s
check "s: most running threads first" "most running threads first (s: next order)"
keys s
check "s again: most waiting" "most waiting threads first"
check_first() {   # check_first DESCRIPTION TEXT
	i=0
	while [ "$i" -lt 50 ] && ! first_process | grep -qF -- "$2"; do sleep 0.1; i=$((i + 1)); done
	if first_process | grep -qF -- "$2"; then ok "$1"; else not_ok "$1 (first: '$(first_process)')"; fi
}
check_first "  fakeclient (4 waiting) first" "321  fakeclient"
keys s
check "s: most blocked" "most blocked threads first"
check_first "  fakeclient (2 blocked, listed before deadlockd's 2) first" "321  fakeclient"
keys s
if wait_for_re '^Processes \(4\)$'; then ok "s back to the report's order"; else not_ok "s back to the report's order"; fi
check_first "  fakedaemon first again, as listed" "400  fakedaemon"
# a waiting thread without frames: its owner row, and the deadlock followed round
keys / a Space d e a d l o c k Enter Enter
check "a frameless waiting thread: the owner row" "waits for thread 6002 (deadlockd): unfair lock 0x20644d340"
check "  and no frames said below it" "This thread has no frames in the report."
keys Enter
check "Enter follows the cycle" "thread 6001 > thread 6002"
keys Enter
check "  and round to where it began" "thread 6001 > thread 6002 > thread 6001"
keys Escape Escape Escape Escape
keys q q
# f: one kind at a time on the panic list
run_line "'$KPBROWSE' --db '$work/all.db' '$ss'"
check "every kind listed" "button reset: power button held" 20
keys f
check "f: the title names the kind" "Panics [panic]"
check "  no panic among the stackshots: said so" "No panic reports here (f: the next kind)."
keys f
check "f: watchdogs" "Panics [watchdog]"
check "  the watchdog is listed" "monitoring timed out for service"
if screen | grep -q "button reset"; then not_ok "  and the reset is not"; else ok "  and the reset is not"; fi
keys f f
check "f: resets" "Panics [reset]"
keys f
check "f: hangs" "Panics [hang]"
keys f
check "f: shutdown stalls" "Panics [shutdown-stall]"
keys f
check "f: sleep/wake failures" "Panics [sleep-wake]"
keys f
check "f cycles back to all kinds" "button reset: power button held"
if screen | grep -q "Panics \["; then not_ok "  the title without a kind"; else ok "  the title without a kind"; fi
keys q
# a thread parked on a continuation (no frames): where it resumes,
# symbolicated, and the event it waits for (issue 20)
run_line "'$KPBROWSE' --db '$work/parked.db' --dsym '$KP_FIXTURES/bin' '$ss/Stackshot-2026-11-21-090000.ips'"
check "the stackshot is listed" "fakeclient hang" 20
keys Enter
check "its summary" "Frontmost thread:"
keys / k e r n e l _ t a s k Enter
check "summary filter finds kernel_task" "kernel_task  2 threads"
keys Enter
check "kernel_task's threads" "only-continuation"
keys Enter
if wait_for_re '^ -> kernel +\+0x324 +kernel_bootstrap_thread +fakekernel\.c:194' 10; then
	ok "the parked thread's continuation, symbolicated"
else not_ok "the parked thread's continuation, symbolicated"; fi
check "  its wait event (an absolute value)" "    wait event: 0x7029938eefffdd1b"
check "  the detail line says it resumes there" "continuation (resumes in) kernel_bootstrap_thread"
if screen | grep -q "no frames"; then not_ok "  never \"no frames\""; else ok "  never \"no frames\""; fi
keys d
check "d on the continuation: nothing to disassemble around" "the continuation is where the thread resumes"
keys j Enter
check "Enter on the wait event: not a frame" "not a frame: the event the thread waits for"
keys q q
ts_done
