#!/bin/sh
# test_notkernel.sh: text reports that are not kernel reports (issue 24 item
# 6: .crash text files and resource .diag files, with or without a JSON
# header line) are recognised by content: show names them ("not a kernel
# report (...)", exit 2), index skips them with a count and lists none,
# never an error; a spindump-like resource report is never read as a hang.
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
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

db="$tmp/i.db"
mkdir -p "$tmp/r"
cp "$nk"/* "$KP_FIXTURES/spindump/finder.hang" "$tmp/r/"
"$kp" index --db "$db" --no-symbols --json "$tmp/r" >"$tmp/sum.json" 2>"$tmp/err"
check "$?" = 0 "index: exit 0 ($(head -c 200 "$tmp/err"))"
check "$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["new"], s["skipped"], len(s["errors"]))' "$tmp/sum.json" 2>&1)" = "1 3 0" \
	"index: the hang indexed, the three skipped and counted, no error"
"$kp" list --db "$db" --json >"$tmp/l.json"
check "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r), r[0]["kind"])' "$tmp/l.json")" = "1 hang" "list: only the hang"
"$kp" index --db "$tmp/j.db" --no-symbols -v "$tmp/r" >"$tmp/v" 2>&1
check_grep "skipped: .*Finder-2019-11-02.crash: not a kernel report (an application crash report)" "$tmp/v" "index -v names why"

done_testing
