#!/bin/sh
# test_show_stackshot.sh: text `show` of watchdogs and stackshots (issue 14):
# kind, blame, reason, frontmost processes and wait chains come before the
# blamed thread's frames, user frames symbolicate, and nothing a hostile
# stackshot holds reaches the terminal unescaped.
set -u
. "$KP_TESTS_DIR/tap.sh"
kp=$KPBROWSE
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KPBROWSE_CACHE_DIR="$tmp/cache"
unset KPBROWSE_DSYM_PATH
ss="$KP_FIXTURES/stackshots"

"$kp" show --dsym "$KP_FIXTURES/bin" "$ss/WatchdogCrash-2026-11-22-100000.ips" >"$tmp/wd" 2>"$tmp/err"
check "$?" = 0 "409: exit 0"
check_grep "^Kind: *watchdog$" "$tmp/wd" "409: kind"
check_grep "^Blamed: *pid 400 fakedaemon$" "$tmp/wd" "409: blamed process"
check_grep "^Reason: *monitoring timed out for service$" "$tmp/wd" "409: reason"
check_grep "^Wait chains (3):$" "$tmp/wd" "409: three chains"
check_grep "^  fakeclient\[321\] 4242 -> fakedaemon\[400\] 5001 -> fakedaemon\[400\] 5002 (TH_RUN, priority 47 (promoted from 31))$" \
	"$tmp/wd" "409: the longest chain across processes ends at a promoted running thread"
check_grep "back to deadlockd\[500\] 6001: a deadlock" "$tmp/wd" "409: the cycle is a deadlock"
check_grep "fakeclient\[321\] 4243 -> pid 400 (fakedaemon)" "$tmp/wd" "409: a chain ending at a pid"
chains=$(grep -n "^Wait chains" "$tmp/wd" | cut -d: -f1)
frames=$(grep -n "^Blamed thread frames" "$tmp/wd" | cut -d: -f1)
check "${chains:-0}" -lt "${frames:-0}" "409: chains before the blamed thread's frames"
check_grep "^Blamed thread frames (2): fakedaemon\[400\] 5001" "$tmp/wd" "409: the blamed process's first thread"
check_grep "(user)  validateReport(ReportHeader const&, unsigned int, unsigned int) (/kpbrowse/fixtures/src/fakekext.cpp:74)" \
	"$tmp/wd" "409: a user frame symbolicated by its image's UUID"
check_grep "kernel_bootstrap_thread (/kpbrowse/fixtures/src/fakekernel.c:195)" "$tmp/wd" "409: a kernel frame symbolicated"

"$kp" show --no-symbols "$ss/Stackshot-2026-11-21-090000.ips" >"$tmp/ss"
check_grep "^Kind: *stackshot$" "$tmp/ss" "288: kind"
check_grep "^Blamed: *nobody$" "$tmp/ss" "288: blames nobody"
check_grep "^Frontmost: *321 (fakeclient)$" "$tmp/ss" "288: frontmost process"
check_grep "^Blamed thread frames (3): fakeclient\[321\] 4242" "$tmp/ss" "288: the frontmost process's first thread"

"$kp" show --no-symbols "$ss/Future-2026-11-25-130000.ips" >/dev/null 2>"$tmp/err"
check "$?" = 0 "unknown bug_type: exit 0"
check_grep "warning: unknown bug_type 999: read as a stackshot" "$tmp/err" "unknown bug_type: a warning"
"$kp" show --no-symbols "$ss/ForceReset-2026-11-24-120000.ips" >"$tmp/rs"
check_grep "^Kind: *reset$" "$tmp/rs" "151: kind"

# hostile: escapes in names, states, reasons and wait texts never reach the terminal raw
h="$KP_TESTS_DIR/hostile/stackshot-409-escapes-selfloop.ips"
"$kp" show --no-symbols "$h" >"$tmp/h" 2>"$tmp/herr"
check "$?" = 0 "hostile 409: exit 0"
check "$(LC_ALL=C tr -d -c '\033\007\233' <"$tmp/h" | wc -c | tr -d ' ')" = 0 "hostile 409: no ESC, BEL or CSI byte in the output"
check_grep "a deadlock" "$tmp/h" "hostile 409: the self-loop is a cycle"

done_testing
