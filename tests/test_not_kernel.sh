#!/bin/sh
# test_not_kernel.sh: reports that are not the kernel's, refused by show
# (exit 2, named) and skipped by index (counted, listed nowhere), never
# read as something else.
# IPS (issue 20): an app crash .ips (bug_type 309, with a termination
# object, the most common file in DiagnosticReports) and the other
# user-space types are never read as a watchdog; an unknown type is read
# only with the kernel's processByPid; a header-only 210 is refused as cut
# short (skipped by index until it grows), never an empty panic grouped
# under '-'.
# Text (issue 24 item 6): .crash text files and resource .diag files, with
# or without a JSON header line, are recognised by content ("not a kernel
# report (...)"); a spindump-like resource report is never read as a hang.
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup

# --- IPS: the user-space bug_types ---------------------------------------------
mkdir -p "$tmp/r"
for bt in 309 109 385 298 145 202 183; do
	printf '{"bug_type":"%s","timestamp":"2026-01-01 10:00:00.00 +0000","os_version":"macOS 15.1 (24B83)","incident_id":"11111111-2222-3333-4444-5555555555%02d"}\n{"procName":"Safari","pid":123,"termination":{"namespace":"SIGNAL","code":11,"indicator":"Segmentation fault: 11"},"threads":[{"frames":[{"imageOffset":1234,"imageIndex":0}]}],"usedImages":[{"uuid":"aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee","name":"Safari","base":4294967296}]}\n' \
		"$bt" "$((bt % 100))" >"$tmp/r/app-$bt.ips"
	"$kp" show "$tmp/r/app-$bt.ips" >"$tmp/out" 2>"$tmp/err"
	check "$?" = 2 "show of a bug_type $bt report: exit 2"
	check_grep "not a kernel panic report (bug_type $bt)" "$tmp/err" "  says it is not a kernel panic report"
	check_not_grep "watchdog" "$tmp/out" "  never read as a watchdog"
done
# an unknown type with a termination only: not the kernel's either
sed 's/"bug_type":"309"/"bug_type":"999"/' "$tmp/r/app-309.ips" >"$tmp/r/app-999.ips"
"$kp" show "$tmp/r/app-999.ips" >/dev/null 2>"$tmp/err"
check "$?" = 2 "an unknown bug_type with only a termination: not read"
# an unknown type with processByPid: read, with a warning
printf '{"bug_type":"998"}\n{"processByPid":{"0":{"pid":0,"procname":"kernel_task","threadById":{"1":{"id":1,"kernelFrames":[]}}}}}\n' >"$tmp/r/kern-998.ips"
"$kp" show "$tmp/r/kern-998.ips" >"$tmp/out" 2>"$tmp/err"
check "$?" = 0 "an unknown bug_type with processByPid: read"
check_grep "unknown bug_type 998" "$tmp/err" "  with a warning"
# a header and nothing else
printf '{"bug_type":"210"}\n' >"$tmp/r/hdr.ips"
"$kp" show "$tmp/r/hdr.ips" >"$tmp/out" 2>"$tmp/err"
check "$?" = 2 "a header-only 210: refused, exit 2 (issue 31 item 10)"
check_grep "hdr.ips: cut short: a bug_type 210 header and no body after it" "$tmp/err" "  said to be cut short"
check "$(wc -c <"$tmp/out" | tr -d ' ')" = 0 "  no report shown"
"$kp" index -v --db "$tmp/i.db" "$tmp/r" >"$tmp/out" 2>"$tmp/err"
check "$?" = 0 "index over them: exit 0"
check_grep "1 new, 0 unchanged, 0 duplicates, 9 skipped, 0 errors" "$tmp/out" "  the user-space reports and the cut one skipped, counted ($(head -1 "$tmp/out"))"
check_grep "skipped: .*hdr.ips: cut short" "$tmp/out" "  -v names the cut one"
check_grep "skipped: .*app-309.ips: not a kernel panic report (bug_type 309)" "$tmp/out" "  -v names them"
"$kp" list --db "$tmp/i.db" >"$tmp/list"
check_not_grep "Safari\|watchdog" "$tmp/list" "list shows none of them"
check_not_grep "^@[0-9]* .* - *panic *-\$" "$tmp/list" "no report listed with a '-' title"
# once the report is written whole, the next scan reads it
printf '{"bug_type":"210"}\n{"panicString":"panic(cpu 0 caller 0xfffffe0012345678): grown\\n"}\n' >"$tmp/r/hdr.ips"
"$kp" index --db "$tmp/i.db" "$tmp/r" >"$tmp/out" 2>"$tmp/err"
check_grep "1 new" "$tmp/out" "  grown whole: indexed by the next scan ($(head -1 "$tmp/out"))"

# --- text: .crash and .diag files ---------------------------------------------
nk="$KP_FIXTURES/notkernel"
for f in "Finder-2019-11-02.crash:an application crash report" \
	"Chrome_wakeups_resource.diag:a resource report (wakeups)" \
	"Xcode_cpu_resource.diag:a resource report (cpu usage)"; do
	name=${f%%:*}
	why=${f#*:}
	"$kp" show --no-symbols "$nk/$name" >"$tmp/out" 2>"$tmp/err"
	check "$?" = 2 "$name: show exits 2"
	check "$(wc -c <"$tmp/out" | tr -d ' ')" = 0 "$name: nothing on stdout"
	check_grep "^kpbrowse: .*$name: not a kernel report ($why)" "$tmp/err" "$name: named: $why"
done
# the same under another name: content, not the extension
cp "$nk/Chrome_wakeups_resource.diag" "$tmp/report.panic"
"$kp" show --no-symbols "$tmp/report.panic" >/dev/null 2>"$tmp/err"
check_grep "not a kernel report (a resource report (wakeups))" "$tmp/err" "sniffed by content, not by extension"
# disk writes, bare
sed 's/^Event: .*/Event:            disk writes/' "$nk/Chrome_wakeups_resource.diag" >"$tmp/dw.diag"
"$kp" show --no-symbols "$tmp/dw.diag" >/dev/null 2>"$tmp/err"
check_grep "not a kernel report (a resource report (disk writes))" "$tmp/err" "disk writes"

db="$tmp/t.db"
mkdir -p "$tmp/t"
cp "$nk"/* "$KP_FIXTURES/spindump/finder.hang" "$tmp/t/"
"$kp" index --db "$db" --no-symbols --json "$tmp/t" >"$tmp/sum.json" 2>"$tmp/err"
check "$?" = 0 "index: exit 0 ($(head -c 200 "$tmp/err"))"
check "$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["new"], s["skipped"], len(s["errors"]))' "$tmp/sum.json" 2>&1)" = "1 3 0" \
	"index: the hang indexed, the three skipped and counted, no error"
"$kp" list --db "$db" --json >"$tmp/l.json"
check "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r), r[0]["kind"])' "$tmp/l.json")" = "1 hang" "list: only the hang"
"$kp" index --db "$tmp/tj.db" --no-symbols -v "$tmp/t" >"$tmp/v" 2>&1
check_grep "skipped: .*Finder-2019-11-02.crash: not a kernel report (an application crash report)" "$tmp/v" "index -v names why"

done_testing
