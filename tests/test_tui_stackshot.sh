#!/bin/sh
# test_tui_stackshot.sh: a watchdog in the browser (issue 14 item 4): the
# summary says the kind, blamed process and thread, reason and wait chains.
# Env: KPBROWSE (binary), KP_TESTS_DIR, KP_FIXTURES.
set -u

: "${KP_TESTS_DIR:=$(cd "$(dirname "$0")" && pwd)}"
. "$KP_TESTS_DIR/tui_shell.sh"
ts_init tui-ss
ts_shell 140 40
ss="$KP_FIXTURES/stackshots"
keys "clear; '$KPBROWSE' --db '$work/index.db' '$ss/WatchdogCrash-2026-11-22-100000.ips'" Enter
check "the watchdog is listed by its reason" "monitoring timed out for service" 20
keys Enter
check "summary: the reason" "Reason:          monitoring timed out for service"
check "summary: the kind" "Kind:            watchdog"
check "summary: the blamed process" "Blamed:          pid 400 fakedaemon"
check "summary: the blamed thread" "Blamed thread:   fakedaemon[400] 5001, TH_WAIT, priority 31"
check "summary: the wait chains" "Wait chains (3)"
check "summary: the longest chain" "fakeclient[321] 4242 -> fakedaemon[400] 5001 -> fakedaemon[400] 5002"
check "summary: the deadlock" "back to deadlockd[500] 6001: a deadlock"
# the process list: state and priority, what each thread waits on
keys / f a k e c l i e n t Enter
check "summary filter finds the process" "fakeclient  4 threads"
check "process row: state counts and frontmost" "4 threads  0 run 4 wait 2 blocked   frontmost"
keys j j Enter
check "thread list: state and priority" "TH_WAIT TH_UNINT 47"
check "thread list: what a thread waits on" "-> 5001 kernel mutex 0xfffffe1000aa0000"
check "thread list: an owner process" "-> pid 400 semaphore port"
keys o
check "o opens the owner thread across processes" "Report 1 > fakeclient > thread 5001"
keys o
check "o again follows the chain" "Report 1 > fakeclient > thread 5001 > thread 5002"
keys Escape Escape
check "Esc comes back to the thread list" "-> pid 400 semaphore port"
keys / T H _ F U T U R E Enter
check "thread filter by state" "1/1  /TH_FUTURE (filtered)"
keys q
ts_done
