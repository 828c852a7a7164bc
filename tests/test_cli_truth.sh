#!/bin/sh
# test_cli_truth.sh: what list, search and show print for the real corpus
# (tests/real) and the fixtures is right and readable (issue 20):
# one date form, OS names, a KIND column every kind fits, headlines titled
# as a person would (first line, call site without its build root), group
# titles without the culprit, report symbols demangled, and the OS taken
# from the body when the header disagrees.
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
real=$KP_REAL_DIR
db=$tmp/t.db
"$kp" index --db "$db" "$real" "$KP_FIXTURES/reports" >/dev/null 2>&1
"$kp" list --db "$db" >"$tmp/list.txt"
"$kp" list --db "$db" --groups >"$tmp/groups.txt"

# ---- dates: one form, UTC with the year, whatever the report wrote
check_grep "^ID  *DATE (UTC)  *OS  *GROUP  *KIND  *CLASS  *HEADLINE$" "$tmp/list.txt" "list: the header names the date's zone"
check "$(grep '^@' "$tmp/list.txt" | cut -c9-26 | grep -cvE '^([0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}~?|-) +$')" = 0 \
	"list: every date is YYYY-MM-DD HH:MM (UTC, or the Mac's clock marked ~) or -"
check_grep "^@[0-9]* *2018-10-29 13:57~ " "$tmp/list.txt" \
	"list: a ctime date (Mon Oct 29 13:57:35 2018, no zone) in the one form, marked the Mac's clock (issue 31 item 9)"
check_grep "^@[0-9]* *2026-11-27 17:30  " "$tmp/list.txt" "list: a +0100 date converted to UTC"
check_grep "^@[0-9]* *2022-03-22 06:25  21D49 " "$tmp/list.txt" \
	"list: a panic string with no Date line dated by its Calendar clock (0x62396bd8)"
check "$("$kp" show "$real/text-m1-macos12-usbhost-dataabort-1.txt" | grep '^Date:')" = \
	"Date:            2022-03-22 06:25:28 +0000" "show: the Calendar clock's date, UTC"
check_grep "^[0-9]* *[0-9]* *[0-9]*  2026-11-20 09:15  2026-11-27 17:30  FakeDriver" "$tmp/groups.txt" \
	"list --groups: first and last seen in the one form"

# ---- OS: named as their maker names them, never overflowing the column
check_grep "  iOS 26.1 (23B85)  " "$tmp/list.txt" "list: iPhone OS shown as iOS"
check_grep "  bridgeOS 6.2 (19P744) " "$tmp/list.txt" "list: Bridge OS shown as bridgeOS, whole as every view shows it (issue 31 item 9)"
check_grep "  macOS 10.15.7 (19H2) " "$tmp/list.txt" "list: Mac OS X shown as macOS"
check "$(awk 'NR == 1 { o = index($0, "OS"); g = index($0, "GROUP"); next }
	/^@/ && substr($0, g - 1, 1) != " " { bad++ } END { print bad + 0 }' "$tmp/list.txt")" = 0 \
	"list: no OS pushes the GROUP column out of line"

# ---- headlines: the first line, the call site without its build root
check_grep " IOGMD: not wired for the IODMACommand @IOMemoryDescriptor.cpp:2337$" "$tmp/list.txt" \
	"list: a build-root path reduced to the call site"
check_grep " nvme: Fatal error occurred. .* @IONVMeController.cpp:5499$" "$tmp/list.txt" \
	"list: a quoted first line keeps the call site xnu appended to its last"
check_not_grep "BuildRoot\|/Library/Caches/com.apple.xbs" "$tmp/list.txt" "list: no build root in any headline"

# ---- group titles: the headline alone; the culprit on a line of its own
check_not_grep "\.\.\. (" "$tmp/groups.txt" "list --groups: no title ends in '... (culprit)'"
check_grep "^ *culprit: com.apple.driver.AppleSEPKeyStore+0xe490$" "$tmp/groups.txt" "list --groups: the culprit on its own line"
check_grep "^ *culprit: kernel!IOGeneralMemoryDescriptor::dmaCommandOperation(unsigned int, void\*, unsigned int) const$" \
	"$tmp/groups.txt" "list --groups: a culprit the report wrote mangled is demangled"

# ---- show: the titled headline, demangled report symbols
"$kp" show --no-symbols "$real/text-intel-hackintosh-bigsur-nvme-1.txt" >"$tmp/nvme.txt" 2>/dev/null
check_grep "^Headline: *nvme: Fatal error occurred.* @IONVMeController.cpp:5499$" "$tmp/nvme.txt" "show: the titled headline"
check_grep "\[IONVMeController::CommandTimeout(AppleNVMeRequest\*) (.cold.1)\]$" "$tmp/nvme.txt" \
	"show: a report's mangled symbol demangled as DWARF names are (LLVM's spelling)"
check_grep "IONVMeFamily-557.100.13/Common/IONVMeController.cpp:5499" "$tmp/nvme.txt" "show: the panic string itself kept whole"

# ---- issue 31 item 1: a call site without a path (after a written newline,
# one escaped twice) kept, without a quote or a backslash, in show, list and
# the group titles
"$kp" show --no-symbols "$real/text-intel-monterey1261-mbp114-nvme-cmdtimeout-atsite-1.txt" >"$tmp/n6090.txt" 2>/dev/null
check_grep "^Headline: *nvme: 3rd party NVMe controller\. .* CRITICAL_WARNING=0x0\. @IONVMeController\.cpp:6090$" "$tmp/n6090.txt" \
	"show: @IONVMeController.cpp:6090 after a written newline kept"
"$kp" show --no-symbols "$real/text-m2-macos155-pcie-linkdown-escapednl-atsite-1.txt" >"$tmp/t811x.txt" 2>/dev/null
check_grep "^Headline: *apcie\[2:lan-1gb\]::_linkDownInterrupt: .* (ltssm 0x0=DETECT_QUIET) @AppleT811xPCIePort\.cpp:1644$" \
	"$tmp/t811x.txt" "show: @AppleT811xPCIePort.cpp:1644 after a twice-escaped newline kept, no stray backslash"
check_grep " (ltssm 0x0=DETECT_QUIET) @AppleT811xPCIePort\.cpp:1644$" "$tmp/list.txt" "list: the same headline"
check_grep " CRITICAL_WARNING=0x0\. @IONVMeController\.cpp:6090$" "$tmp/list.txt" "list: the 6090 headline"
check_grep "(ltssm ADDR=DETECT_QUIET) @AppleT811xPCIePort\.cpp$" "$tmp/groups.txt" "list --groups: the title keeps the file"
check_grep "FW Revision=3L1QFXV7 @IONVMeController\.cpp$" "$tmp/groups.txt" "list --groups: a build-root call site's file too"
check_not_grep '\\$\|\\ @' "$tmp/list.txt" "list: no headline keeps a stray backslash"

# ---- issue 31 item 2: the machine-check state before panic( is kept: show
# (text and JSON) and search
mc=legacy-intel-1012-mbp121-machinecheck-mcapreamble-1.panic
"$kp" show --no-symbols "$real/$mc" >"$tmp/mc.txt" 2>/dev/null
check "$(sed -n '/^Before the panic line:$/,/^Panic string:$/p' "$tmp/mc.txt" | sed -n '2p;7p;8p')" = \
	"$(printf '  Machine-check capabilities: 0x0000000001000c07\n  Processor 0: IA32_MCG_STATUS: 0x0000000000000005\n   IA32_MC1_STATUS(0x405): 0xbf80000000000114')" \
	"show: the machine-check lines before the panic string, as written"
"$kp" show --json "$real/$mc" 2>/dev/null | python3 -c 'import json,sys; p=json.load(sys.stdin)["preamble"]; sys.exit(0 if p.startswith("Machine-check capabilities:") and p.endswith("0x0000000000000086") and p.count("IA32_MCG_STATUS") == 2 else 1)'
check "$?" = 0 "show --json: \"preamble\" holds them"
"$kp" search --db "$db" --json IA32_MC1_STATUS >"$tmp/mcs.json" 2>/dev/null
check_grep "$mc" "$tmp/mcs.json" "search: a word only in the machine-check lines finds the report"
"$kp" search --db "$db" --json forcibly halt >"$tmp/halt.json" 2>/dev/null
check_grep "amcc-platformerror" "$tmp/halt.json" "search: the halt chatter before an Apple silicon panic line too"

# ---- issue 31 item 7: a macOS 26 "Post-boot loaded kexts:" list is read
"$kp" search --db "$db" --json --kext com.apple.driver.usb.AppleUSBHostiOSDevice >"$tmp/pb.json" 2>/dev/null
check_grep "text-m4-macos26-amcc-postbootkexts-1.txt" "$tmp/pb.json" \
	"search --kext: a kext only a Post-boot loaded kexts list names finds its report"
"$kp" show --json "$real/text-m4-macos26-amcc-postbootkexts-1.txt" 2>/dev/null | python3 -c 'import json,sys; k=json.load(sys.stdin)["loaded_kexts"]; sys.exit(0 if len(k) == 5 and k[0] == {"name": "com.apple.filesystems.smbfs", "version": None, "uuid": None, "address": None, "loaded_at": "0x6ab7d161"} else 1)'
check "$?" = 0 "show --json: its five entries, each with its load time and no version"

# ---- the OS from the body when the header disagrees, the header's claim in a warning
printf '%s\n%s\n' '{"bug_type":"210","os_version":"macOS 14.2 (23C64)","timestamp":"2024-01-02 03:04:05.00 +0000"}' \
	'{"build":"macOS 14.1 (23B74)","product":"Mac14,2","panicString":"panic(cpu 0 caller 0x1): x"}' >"$tmp/upd.ips"
"$kp" show --no-symbols "$tmp/upd.ips" >"$tmp/upd.txt" 2>"$tmp/upd.err"
check_grep "^OS version: *macOS 14.1 (23B74)$" "$tmp/upd.txt" "show: the OS is the body's build"
check_grep "header's OS version (23C64) is not the body's build (23B74)" "$tmp/upd.err" "show: the header's claim in a warning"
printf '%s\n%s\n' '{"bug_type":"210","os_version":"iPhone OS 17.1 (21B80)"}' \
	'{"build":"iPhone OS 17.1 (21B80)","product":"iPad13,4","panicString":"panic(cpu 0 caller 0x1): x"}' >"$tmp/ipad.ips"
"$kp" show --no-symbols "$tmp/ipad.ips" >"$tmp/ipad.txt" 2>/dev/null
check_grep "^OS version: *iPadOS 17.1 (21B80)$" "$tmp/ipad.txt" "show: an iPad's report names iPadOS"
# ---- exit statuses: one table; usage errors say kpbrowse and how to get help
"$kp" show --db "$db" @99999 >/dev/null 2>"$tmp/e1"; s1=$?
"$kp" export --db "$db" @99999 "$tmp/x.out" >/dev/null 2>"$tmp/e2"; s2=$?
check "$s1:$s2" = "2:2" "a missing @ID: the same status for show and export (2)"
check_grep "^kpbrowse: @99999: no report @99999 in the index$" "$tmp/e2" "  and the same message"
"$kp" --bogus >/dev/null 2>"$tmp/e3"; s3=$?
check "$s3:$(head -1 "$tmp/e3")" = "2:kpbrowse: unrecognized option '--bogus'" "an unknown option of the browser: kpbrowse: ..., exit 2"
check "$(sed -n 2p "$tmp/e3")" = "Try 'kpbrowse --help'." "  then a Try line"
"$kp" list --bogus >"$tmp/o4" 2>"$tmp/e4"; s4=$?
check "$s4:$(head -1 "$tmp/e4")" = "2:kpbrowse: list: unrecognized option '--bogus'" "an unknown option of a command: kpbrowse: list: ..., exit 2"
check_grep "^Try 'kpbrowse --help'.$" "$tmp/e4" "  then a Try line"
check "$(wc -c <"$tmp/o4" | tr -d ' ')" = 0 "  nothing on stdout"
"$kp" search --db "$db" --kext '' >"$tmp/o5" 2>"$tmp/e5"; s5=$?
check "$s5:$(wc -c <"$tmp/o5" | tr -d ' ')" = "2:0" "search --kext '': exit 2, nothing on stdout"
check_not_grep "$db" "$tmp/e5" "  the database is not blamed"
check_grep "needs a bundle id" "$tmp/e5" "  it says what is missing"
# ---- the kernel is no kext: never listed under "Kexts in backtrace"
"$kp" show --no-symbols "$KP_FIXTURES/reports/Kernel-2020-09-14-201744.panic" >"$tmp/k.txt" 2>/dev/null
check_grep "^  com.kpbrowse.FakeDriver (1.0) " "$tmp/k.txt" "Kexts in backtrace: the kext in it"
check "$(sed -n '/^Kexts in backtrace/,/^[A-Z]/p' "$tmp/k.txt" | grep -c '^  kernel ')" = 0 "  and not the kernel"
# ---- issue 31 item 9: one date, one OS, one headline
# JSON: ISO 8601 with the report's own offset, none when it states none
# (never Z on a Mac's wall clock); what the report wrote beside it
json_keys() {   # FILE KEY...: the keys' values of show --json, joined by |
	f=$1; shift
	"$kp" show --json --no-symbols "$f" 2>/dev/null |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print("|".join(str(d.get(k)) for k in sys.argv[1:]))' "$@"
}
check "$(json_keys "$real/ips-full-ios26-iphone-sepkeystore-1.ips" timestamp timestamp_raw os)" = \
	"2026-01-13T12:23:35-05:00|2026-01-13 12:23:35.00 -0500|iOS 26.1 (23B85)" "show --json: an .ips date in ISO 8601 with its offset, the raw beside"
check "$(json_keys "$real/legacy-intel-1013-mbp113-nvidiaweb-threadinvoke-1.panic" timestamp timestamp_raw os)" = \
	"2018-08-18T13:08:26|Sat Aug 18 13:08:26 2018|17E199" "show --json: a ctime date without any offset (not UTC), the build alone"
check "$(json_keys "$real/text-m1-macos12-usbhost-dataabort-1.txt" timestamp)" = \
	"2022-03-22T06:25:28+00:00" "show --json: the Calendar clock's date (UTC) with its offset"
check "$(json_keys "$KP_FIXTURES/reports/Kernel-2020-09-14-201744.panic" timestamp os os_version)" = \
	"2020-09-14T20:17:44+02:00|macOS 10.15.7 (19H2)|Mac OS X 10.15.7 (19H2)" "show --json: the OS labelled as every view names it, the raw beside"
"$kp" list --db "$db" --json >"$tmp/list.json"
"$kp" list --db "$db" --groups --json >"$tmp/groups.json"
"$kp" hosts --db "$db" --json >"$tmp/hosts.json"
"$kp" hosts --db "$db" >"$tmp/hosts.txt"
check "$(python3 -c 'import json,sys,re
iso = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d([+-]\d\d:\d\d)?$")
bad = [r["id"] for r in json.load(open(sys.argv[1])) if r["timestamp"] is not None and not iso.match(r["timestamp"])]
bad += [g["group_id"] for g in json.load(open(sys.argv[2])) for k in ("first_seen", "last_seen") if g[k] and not iso.match(g[k])]
bad += [h["host_key"] for h in json.load(open(sys.argv[3])) if h["last_seen"] and not iso.match(h["last_seen"])]
print(len(bad))' "$tmp/list.json" "$tmp/groups.json" "$tmp/hosts.json")" = 0 \
	"list, list --groups, hosts --json: every date in the one ISO 8601 form (no Z)"
check_grep '"timestamp":	"2018-10-29T13:57:35",' "$tmp/list.json" "list --json: a ctime date without an offset"
check_grep '"timestamp_raw":	"Mon Oct 29 13:57:35 2018",' "$tmp/list.json" "  and as the report wrote it"
check_grep '"last_seen":	"2018-08-18T13:08:26",' "$tmp/groups.json" "list --groups --json: a ctime report's group seen without an offset"
check_grep '"last_seen":	"2015-06-13T17:31:08"' "$tmp/hosts.json" "hosts --json: a ctime report's Mac seen without an offset"
check_grep " 2015-06-13 17:31~ *13E28$" "$tmp/hosts.txt" "hosts: its date marked the Mac's clock, not UTC"
check_grep " bridgeOS 6.2 (19P744)$" "$tmp/hosts.txt" "hosts: builds labelled as every view labels them"
check_grep "2017-01-28 04:53~ 2017-01-28 04:53~ Machine Check" "$tmp/groups.txt" "list --groups: a ctime group's dates marked"
"$kp" show --no-symbols "$real/legacy-intel-1014-iousbfamily-iogmd-userclient-1.panic" >"$tmp/ctime.txt" 2>/dev/null
check_grep "^Date: *Mon Oct 29 13:57:35 2018 (the Mac's local time)$" "$tmp/ctime.txt" "show: a date without a zone said to be the Mac's clock"
# the headline: list, list --json and show print one string for every report
check "$(python3 -c 'import json,sys
rows = json.load(open(sys.argv[1]))
text = {}
for line in open(sys.argv[2]):
    if line.startswith("@"):
        text[int(line.split()[0][1:])] = line.rstrip("\n")
bad = [r["id"] for r in rows if r["headline"] and not text[r["id"]].endswith("  " + r["headline"])]
bad += [r["id"] for r in rows if r["headline_raw"] is None and r["headline"] is not None]
print(len(bad), len(rows))' "$tmp/list.json" "$tmp/list.txt")" = "0 27" "list --json: each headline the list's own, the raw beside"
check "$(json_keys "$real/text-m2-macos155-pcie-linkdown-escapednl-atsite-1.txt" headline)" = \
	"$("$kp" show --no-symbols "$real/text-m2-macos155-pcie-linkdown-escapednl-atsite-1.txt" 2>/dev/null | sed -n 's/^Headline: *//p')" \
	"show --json: the headline show prints"
done_testing
