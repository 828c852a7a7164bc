#!/bin/sh
# test_show_stackshot.sh: text `show` of watchdogs and stackshots (issue 14):
# kind, blame, reason, frontmost processes and wait chains come before the
# blamed thread's frames, user frames symbolicate, and nothing a hostile
# stackshot holds reaches the terminal unescaped.
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
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
check_grep "^Frontmost thread frames (3): fakeclient\[321\] 4242" "$tmp/ss" "288: the frontmost process's first thread, called so (it blames nobody)"
check_not_grep "^Blamed thread" "$tmp/ss" "288: no Blamed thread beside Blamed: nobody"
check_not_grep "^Panic string:" "$tmp/ss" "288: no Panic string heading over nothing"
check_not_grep "^  kernel \|^  [KU]:" "$tmp/ss" "288: the kernel is never listed as a kext in backtrace"

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

# --- zone exhaustion: the leak suspect --------------------------------------
printf '%s\n' 'panic(cpu 0 caller 0xffffff801d4ccb2b): "zalloc: \"kalloc.1024\" (100535 elements) retry fail 3"@/x/zalloc.c:2090' \
	'Kernel version:' 'Darwin Kernel Version 19.6.0: x; root:xnu-6153.141.1~1/RELEASE_X86_64' >"$tmp/zone.panic"
"$kp" show --no-symbols "$tmp/zone.panic" >"$tmp/z" 2>/dev/null
check_grep "^Leak suspect: *zone kalloc.1024, 100535 elements$" "$tmp/z" "zone: the summary names the leak suspect"
"$kp" show --json --no-symbols "$tmp/zone.panic" 2>/dev/null | python3 -c '
import json, sys
z = json.load(sys.stdin)["zone"]
assert z == {"name": "kalloc.1024", "elements": 100535, "bytes": None}, z
print("ok")' >"$tmp/py" 2>&1
check "$(cat "$tmp/py")" = ok "zone: JSON {name, elements, bytes} ($(tail -1 "$tmp/py"))"

# --- show --json: the issue 14 keys ---------------------------------------
"$kp" show --json --no-symbols "$ss"/*.ips "$KP_FIXTURES/reports/panic-full-2026-11-20-101500.0001.ips" >"$tmp/all.json"
check "$?" = 0 "json: exit 0"
python3 - "$tmp/all.json" >"$tmp/py" 2>&1 <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
by = {r["bug_type"]: r for r in a}
for r in a:
    for k in ("kind", "reason", "blamed", "frontmost_pids", "notes", "panic_flags", "wait_chains", "zone",
              "arch", "build", "last_unloaded_kext", "warnings"):
        assert k in r, (r["file"], k)
    for p in r["processes"]:
        for k in ("flags", "wait_info", "turnstile_info"):
            assert isinstance(p[k], list), k
        for t in p["threads"]:
            for k in ("state", "qos", "sched_flags", "dispatch_queue", "waits_on", "blocked_by", "continuation"):
                assert k in t, k
            assert all("user" in f for f in t["frames"])
wd, ss, pn = by[409], by[288], by[210]
assert wd["kind"] == "watchdog" and wd["blamed"] == {"pid": 400, "process": "fakedaemon"}, wd["blamed"]
assert ss["kind"] == "stackshot" and ss["blamed"] is None and ss["frontmost_pids"] == [321]
assert by[151]["kind"] == "reset" and by[999]["kind"] == "stackshot"
assert any("unknown bug_type 999" in w for w in by[999]["warnings"])
assert all(isinstance(w, str) for d in a for w in d["warnings"]), "warnings are strings"
assert pn["kind"] == "panic" and pn["blamed"] == {"pid": 321, "process": "fakeclient"}, pn["blamed"]
assert pn["panic_flags"] == ["companion_panic", "stackshot_succeeded", "stackshot_compressed"], pn["panic_flags"]
t = {t["id"]: t for p in ss["processes"] for t in p["threads"]}
assert t[4242]["blocked_by"] == {"thread_id": 5001, "pid": 400, "hops": 2}, t[4242]["blocked_by"]
assert t[4242]["waits_on"] == "kernel mutex 0xfffffe1000aa0000 owned by thread 5001"
assert t[4243]["blocked_by"] == {"thread_id": None, "pid": 400, "hops": None}
assert t[5002]["blocked_by"] is None and t[5002]["sched_flags"] == ["TH_SFLAG_RW_PROMOTED"]
assert t[4242]["qos"]["effective"] == "QOS_CLASS_USER_INTERACTIVE" and t[4242]["dispatch_queue"] == "com.apple.main-thread"
assert t[101]["continuation"]["offset"] == "0x324" and t[101]["frames"] == []
assert [f["user"] for f in t[4242]["frames"]] == [False, True, True]
ch = ss["wait_chains"]
assert ch[0]["thread_ids"] == [4242, 5001, 5002] and not ch[0]["cycle"]
assert any(c["cycle"] and sorted(c["thread_ids"]) == [6001, 6002] for c in ch)
assert any(c["end_pid"] == 400 and c["thread_ids"] == [4243] for c in ch)
fc = [p for p in ss["processes"] if p["pid"] == 321][0]
assert fc["wait_info"][-1] == "garbage without a thread prefix"
print("ok")
PY
check "$(cat "$tmp/py")" = ok "json: kind, blame, chains, per-process and per-thread keys ($(tail -1 "$tmp/py"))"

done_testing
