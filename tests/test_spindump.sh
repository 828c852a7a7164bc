#!/bin/sh
# test_spindump.sh: spin, hang, shutdown-stall and Sleep Wake Failure
# reports (issue 24 items 1 to 3), the fixtures in tests/fixtures/spindump/: read by content (a
# .shutdownStall and a .hang with their JSON header line, a bare spindump
# -timeline text) into the thread model; each thread's heaviest stack with
# its samples; kernel and kext frames placed by the image the line names,
# so the fixture kext symbolicates through its dSYM as a panic's does;
# whom it blames; show text and JSON; a binary body named, never an empty
# report; indexed with kinds hang and shutdown-stall (list --kind); cut,
# deep, wide and hostile texts end in a report or a named error.
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
fx="$KP_FIXTURES/spindump"
stall="$fx/stall-fakedriver.shutdownStall"
hang="$fx/finder.hang"
tl="$fx/spindump-timeline-arm64.txt"
bin="$fx/stall-bplist.shutdownStall"
dsym="$KP_FIXTURES/bin/fakekext.x86_64.dSYM"

# --- a shutdown stall blamed on a third-party kext -------------------------
"$kp" show --dsym "$dsym" "$stall" >"$tmp/stall" 2>"$tmp/err"
check "$?" = 0 "stall: exit 0 ($(head -c 200 "$tmp/err"))"
check "$(wc -c <"$tmp/err" | tr -d ' ')" = 0 "stall: no warning"
check_grep "^Format: *text (bug_type 17)$" "$tmp/stall" "stall: the header's bug_type"
check_grep "^Kind: *shutdown-stall$" "$tmp/stall" "stall: kind shutdown-stall"
check_grep "^Headline: *shutdown stall: configd in com.kpbrowse.FakeDriver$" "$tmp/stall" \
	"stall: headline names the process and the kext"
check_grep "^Blamed: *pid 61 configd$" "$tmp/stall" "stall: the process stuck in the kext is blamed"
check_grep "^Duration: *10.32s$" "$tmp/stall" "stall: Duration"
check_grep "^Steps: *34 (300ms sampling interval)$" "$tmp/stall" "stall: Steps"
check_grep "^Kernel UUID: *C86236B2-4976-3542-80CA-74A6B8B4BA03$" "$tmp/stall" "stall: kernel UUID from Binary Images"
check_grep "^  com.kpbrowse.FakeDriver (1.0 (1)) 4C4C4449-5555-3144-A1F6-9DFF5C39A349 0xffffff7f80e40000->0xffffff7f80e4ffff$" \
	"$tmp/stall" "stall: the kext in its heaviest stack, with UUID and range"
check_grep "^Blamed thread frames (8): configd\[61\] 747, state unknown, priority 31, 34 samples (heaviest of 2 stacks)$" \
	"$tmp/stall" "stall: the heaviest thread first, its samples and stacks"
check_grep "^    1  0xffffff7f80e40750  com.kpbrowse.FakeDriver + 0x750  30 samples  fakekext_interrupt (/kpbrowse/fixtures/src/fakekext.cpp:159)$" \
	"$tmp/stall" "stall: the kext frame (decimal 1872) symbolicated through its dSYM"
check_grep "^    6  0x000000010a1a2602  configd + 0x5602  \[main + 0x4d2\]  (user)  34 samples" \
	"$tmp/stall" "stall: user frame with its own symbol and samples"
check_grep "^    0  0xffffff800038f0e0  kernel + 0x16e360  30 samples" "$tmp/stall" "stall: innermost kernel frame"

# --- a stall whose Custom Output holds a heap report: its "Process:" heading
# is no second configd; each process once, the blamed one named (issue 31
# item 6; reconstructed: the fixture with a heap report as heap(1) heads it
# appended, no public stall with one was found to keep)
{ cat "$stall"; printf '\nCustom Output:\nProcess:         configd [61]\nPath:            /usr/libexec/configd\n'
  printf 'Identifier:      configd\nParent Process:  launchd [1]\n\nAnalysis Tool:   /usr/bin/heap\n----\n\n'
  printf 'Process 61: 3 zones\n\nAll zones: 10000 nodes malloced - Sizes: 2MB[1] 1MB[2]\n'; } >"$tmp/heap.shutdownStall"
"$kp" show --json --no-symbols "$tmp/heap.shutdownStall" >"$tmp/heap.json" 2>/dev/null
check "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sorted(p["name"] for p in r["processes"]), r["headline"], r["blamed"]["process"])' "$tmp/heap.json" 2>&1)" = \
	"['configd', 'kernel_task'] shutdown stall: configd in com.kpbrowse.FakeDriver configd" \
	"stall with a heap report in Custom Output: each process once, the blamed one named"

# --- a hang: its target is blamed --------------------------------------------
"$kp" show --no-symbols "$hang" >"$tmp/hang" 2>"$tmp/err"
check "$?" = 0 "hang: exit 0"
check_grep "^Kind: *hang$" "$tmp/hang" "hang: kind hang"
check_grep "^Headline: *hang: Finder$" "$tmp/hang" "hang: headline names the target (Command)"
check_grep "^Blamed: *pid 245 Finder$" "$tmp/hang" "hang: target blamed by PID"
check_grep "^OS version: *macOS 10.14.6 (18G103)$" "$tmp/hang" "hang: OS from the header line (named as macOS)"
check_grep "^Blamed thread frames (5): Finder\[245\] 964, state unknown, priority 46, 86 samples$" "$tmp/hang" \
	"hang: the main thread (the heaviest stack section before Process is not a thread)"

# --- a bare spindump -timeline text, arm64, hex image offsets -------------
"$kp" show --no-symbols "$tl" >"$tmp/tl" 2>"$tmp/err"
check "$?" = 0 "timeline: exit 0"
check_grep "^Format: *text$" "$tmp/tl" "timeline: no header, text"
check_grep "^Headline: *spindump: usbd in com.apple.iokit.IOUSBHostFamily$" "$tmp/tl" \
	"timeline: 'Command: spindump' is the sampler, not a target; blamed by kext samples"
check_grep "^Kind: *stackshot$" "$tmp/tl" "timeline: run by hand (no header, no Event): a stackshot, not a hang"
check_grep "^Architecture: *arm64$" "$tmp/tl" "timeline: arm64e"
check_grep "(heaviest of 2 stacks)$" "$tmp/tl" "timeline: siblings over time, the heavier (2 samples) chosen"
check_grep "^    1  0xfffffe000a1e5234  com.apple.iokit.IOUSBHostFamily + 0x1234  \[IOUSBHostDevice::deviceRequest(IOService\*, StandardUSB::DeviceRequest&, void\*, IOMemoryDescriptor\*, unsigned int&, unsigned int) + 0x78\]  2 samples$" \
	"$tmp/tl" "timeline: C++ symbol with parentheses, hex image offset, range suffix ignored"
check_grep "^    0  0xfffffe0007219ee4  kernel + 0x5ee4  2 samples$" "$tmp/tl" \
	"timeline: kernel.release.t6000 is the kernel; a trailing '(blocked by ...)' ignored"

# --- a .spin with a Reason line: that is its reason, not the Event ---------
# (reconstructed: the .hang fixture under a bug_type 11 header with a
# Reason line after its Event; no public .spin was found to keep)
{ printf '{"bug_type":"11","timestamp":"2019-11-02 09:12:44.00 +0100","os_version":"Mac OS X 10.14.6 (18G103)"}\n'
  tail -n +2 "$hang" | awk '{ print } /^Event: *hang$/ { print "Reason:          Finder (245) is not responding to events" }'; } >"$tmp/reason.spin"
"$kp" show --no-symbols "$tmp/reason.spin" >"$tmp/reason" 2>"$tmp/err"
check "$?" = 0 "spin with Reason: exit 0"
check_grep "^Reason: *Finder (245) is not responding to events$" "$tmp/reason" "spin with Reason: its Reason is the reason"
check_grep "^Kind: *hang$" "$tmp/reason" "spin with Reason: a hang"

# --- every spin bug_type: the header names it, the kind is hang -------------
for bt in 11 12 28 29; do
	{ printf '{"bug_type":"%s","timestamp":"2024-05-06 21:03:13.00 -0700","os_version":"macOS 14.4.1 (23E224)"}\n' "$bt"; cat "$tl"; } >"$tmp/bt$bt.spin"
	"$kp" show --no-symbols "$tmp/bt$bt.spin" >"$tmp/bt" 2>"$tmp/err"
	check "$?:$(grep -c '^Kind: *hang$' "$tmp/bt"):$(grep -c "^Format: *text (bug_type $bt)$" "$tmp/bt")" = "0:1:1" "bug_type $bt: a hang, its header read"
done

# --- JSON ----------------------------------------------------------------------
"$kp" show --json --no-symbols "$stall" "$tl" >"$tmp/j.json" 2>/dev/null
check "$?" = 0 "json: exit 0"
python3 - "$tmp/j.json" >"$tmp/py" 2>&1 <<'PY'
import json, sys
a, b = json.load(open(sys.argv[1]))
assert a["kind"] == "shutdown-stall" and a["bug_type"] == 17, (a["kind"], a["bug_type"])
assert a["duration"] == "10.32s" and a["steps"].startswith("34 "), (a["duration"], a["steps"])
assert a["blamed"] == {"pid": 61, "process": "configd"}, a["blamed"]
p = a["processes"][0]
assert p["name"] == "configd" and [t["samples"] for t in p["threads"]] == [34, 8], p["threads"]
fr = p["threads"][0]["frames"]
assert [f["samples"] for f in fr] == [30, 30, 30, 30, 30, 30, 34, 34], [f["samples"] for f in fr]
assert fr[1]["image_name"] == "com.kpbrowse.FakeDriver" and fr[1]["offset"] == "0x750" and not fr[1]["user"], fr[1]
assert fr[1]["image_uuid"] == "4C4C4449-5555-3144-A1F6-9DFF5C39A349", fr[1]
assert fr[6]["report_symbol"] == "main" and fr[6]["user"], fr[6]
assert a["fields"]["Event"] == "Shutdown stall" and a["fields"]["header.bug_type"] == "17", a["fields"]
assert b["kind"] == "stackshot" and b["bug_type"] is None and b["blamed"]["process"] == "usbd", b["blamed"]
print("ok")
PY
check "$(cat "$tmp/py")" = ok "json: kind, duration, steps, samples on threads and frames, images ($(tail -1 "$tmp/py"))"

# --- a binary body: named, header kept, never silent ------------------------
"$kp" show --no-symbols "$bin" >"$tmp/bin" 2>"$tmp/err"
check "$?" = 0 "bplist body: exit 0"
check_grep "warning: the body after the header is a binary property list (bplist00): kpbrowse reads its header only" \
	"$tmp/err" "bplist body: a warning names it"
check_grep "^Headline: *shutdown stall: body not readable (a binary property list (bplist00))$" "$tmp/bin" \
	"bplist body: the headline says so"
check_grep "^OS version: *macOS 13.2.1 (22D68)$" "$tmp/bin" "bplist body: what the header says is kept"
"$kp" show --json --no-symbols "$bin" >"$tmp/bin.json" 2>/dev/null
check "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["truncated"], r["kind"])' "$tmp/bin.json")" = \
	"True shutdown-stall" "bplist body: JSON truncated true"
{ head -1 "$stall"; printf 'SPDB\0\0\0\1\0\0\0\0\377\376binary spindump'; } >"$tmp/binsp.shutdownStall"
"$kp" show --no-symbols "$tmp/binsp.shutdownStall" >"$tmp/binsp" 2>"$tmp/err"
check "$?" = 0 "binary spindump body: exit 0"
check_grep "binary data (a binary spindump?)" "$tmp/err" "binary spindump body: named"
# the same bodies without a header line: refused, and named as what they
# are, never "no kernel panic here" (issue 31 item 6; reconstructed: no
# public binary spindump was found to keep)
tail -n +2 "$tmp/binsp.shutdownStall" >"$tmp/binsp.spin"
"$kp" show --no-symbols "$tmp/binsp.spin" >/dev/null 2>"$tmp/err"
check "$?" = 2 "binary spindump, no header: refused (exit 2)"
check_grep "binsp.spin: binary data (a binary spindump?), not a text or JSON report" "$tmp/err" \
	"binary spindump, no header: named as such"
check "$(grep -c "no kernel panic here" "$tmp/err")" = 0 "binary spindump, no header: not 'no kernel panic here'"
tail -n +2 "$bin" >"$tmp/bplist.spin"
"$kp" show --no-symbols "$tmp/bplist.spin" >/dev/null 2>"$tmp/err"
check_grep "bplist.spin: a binary property list (bplist00), not a text or JSON report" "$tmp/err" \
	"bplist, no header: named as such"

# --- Sleep Wake Failure (item 3) ------------------------------------------------
sw="$fx/sleepwake-fakedriver.diag"
efi="$fx/current-efi.panic"
"$kp" show --dsym "$dsym" "$sw" >"$tmp/sw" 2>"$tmp/err"
check "$?" = 0 "sleep wake: exit 0 ($(head -c 200 "$tmp/err"))"
check_grep "^Format: *text (bug_type 24)$" "$tmp/sw" "sleep wake: the .diag header's bug_type"
check_grep "^Kind: *sleep-wake$" "$tmp/sw" "sleep wake: kind sleep-wake"
check_grep "^Failure code: *0x00000040 00000027$" "$tmp/sw" "sleep wake: failure code as written"
check_grep "^Phase: *0x27 wake: power plane drivers$" "$tmp/sw" "sleep wake: phase from the code's low byte"
check_grep "^Kernel version: *Darwin Kernel Version 18.2.0" "$tmp/sw" "sleep wake: kernel version from kernel_task's block"
check_grep "^Kernel UUID: *C86236B2-4976-3542-80CA-74A6B8B4BA03$" "$tmp/sw" "sleep wake: kernel UUID from kernel_task's block"
check_grep "^  com.kpbrowse.FakeDriver ((1.0)) 4C4C4449-5555-3144-A1F6-9DFF5C39A349" "$tmp/sw" \
	"sleep wake: the suspected bundle is a kext in backtrace"
check_grep "^Blamed thread frames (3): kernel_task\[0\] 8361, state unknown, priority 81, 1 sample$" "$tmp/sw" \
	"sleep wake: the thread the reason names (0x20a9) is blamed, not the heaviest"
check_grep "^    1  0xffffff7f80e40750  com.kpbrowse.FakeDriver + 0x750  1 sample  fakekext_interrupt (/kpbrowse/fixtures/src/fakekext.cpp:159)$" \
	"$tmp/sw" "sleep wake: its kext frame symbolicated"
check_grep "^    0  0xffffff80003032ee  kernel + 0x1032ee  1 sample" "$tmp/sw" \
	"sleep wake: a frame naming its image by <UUID> is the kernel's"
"$kp" show --no-symbols "$efi" >"$tmp/efi" 2>"$tmp/err"
check "$?" = 0 "EFI: exit 0"
check_grep "^Headline: *Sleep Wake failure in EFI$" "$tmp/efi" "EFI: the reason line is the headline"
check_grep "^Phase: *0x1f system sleep (firmware / EFI)$" "$tmp/efi" "EFI: phase 0x1f"
check_grep "^OS version: *-$" "$tmp/efi" "EFI: '??? ??? (Build ???)' is no OS version"
check_grep "^Blamed: *nobody$" "$tmp/efi" "EFI: swd's own stackshot blames nobody"
check_grep "^Notes: *the report says: Please IGNORE the below stackshot$" "$tmp/efi" "EFI: the report's advice is shown"
"$kp" show --json --no-symbols "$sw" "$efi" >"$tmp/sw.json" 2>/dev/null
check "$(python3 -c 'import json,sys; a,b=json.load(open(sys.argv[1])); print(a["kind"], a["failure_code"], a["failure_phase"], a["failure_phase_name"], b["failure_phase"], b["blamed"])' "$tmp/sw.json")" = \
	"sleep-wake 0x00000040 00000027 39 wake: power plane drivers 31 None" "sleep wake: JSON failure_code, failure_phase(_name)"

# --- index: the kinds, grouped ------------------------------------------------
db="$tmp/index.db"
mkdir -p "$tmp/reports"
cp "$stall" "$hang" "$tl" "$bin" "$sw" "$efi" "$tmp/reports/"
cp "$stall" "$tmp/reports/again.shutdownStall.txt"   # another name: the same report (incident id)
sed 's/6B1F0C2A-55D3/7C2F1D3B-66E4/; s/Date\/Time:        2021-02-14/Date\/Time:        2021-03-01/' "$stall" \
	>"$tmp/reports/second.shutdownStall"
"$kp" index --db "$db" --no-symbols "$tmp/reports" >/dev/null 2>"$tmp/err"
check "$?" = 0 "index: exit 0 ($(head -c 200 "$tmp/err"))"
for k in shutdown-stall:3 hang:1 stackshot:1 sleep-wake:2; do   # the timeline, run by hand: no hang
	"$kp" list --db "$db" --kind "${k%:*}" --json >"$tmp/k.json"
	check "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r), all(x["kind"]==sys.argv[2] for x in r))' "$tmp/k.json" "${k%:*}")" = "${k#*:} True" "list --kind ${k%:*}: ${k#*:} rows"
done
"$kp" list --db "$db" --groups --json >"$tmp/g.json"
check "$(python3 -c 'import json,sys; g=json.load(open(sys.argv[1])); print(max(x["count"] for x in g if "FakeDriver" in (x.get("title") or "")))' "$tmp/g.json" 2>&1)" = 2 \
	"index: the two FakeDriver stalls group together"

# --- hostile: cut, deep, wide, control bytes ----------------------------------
size=$(wc -c <"$stall" | tr -d ' ')
bad=0
i=1
while [ "$i" -lt "$size" ]; do
	head -c "$i" "$stall" >"$tmp/cut"
	"$kp" show --no-symbols "$tmp/cut" >/dev/null 2>&1
	rc=$?
	[ "$rc" -le 2 ] || { bad=$i; break; }
	i=$((i + 97))
done
check "$bad" = 0 "every cut of the stall ends in exit 0, 1 or 2 (first bad cut: $bad)"
python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
hdr = "Date/Time: 2024-01-01\nDuration: 1s\nSteps: 1\n\nProcess: deep [1]\n  Thread 0x1  5 samples (1-5)\n"
with open(d + "/deep.txt", "w") as f:
    f.write(hdr + "".join(" " * (i + 1) + "*5  f%d + 1 (kernel + %d) [0x%x]\n" % (i, i, 0xffffff8000200000 + i) for i in range(3000)))
with open(d + "/wide.txt", "w") as f:
    f.write("Duration: 1s\nSteps: 1\n")
    for p in range(3000):
        f.write("Process: p%d [%d]\n  Thread 0x%x  1 sample (1)\n  1  ??? (libfoo.dylib + 1) [0x1000]\n\n" % (p, p, p))
with open(d + "/evil.txt", "wb") as f:
    f.write(b"Duration: 1s\x1b]0;pwn\x07\nEvent: \x1b[2Jstall\nSteps: 1\n\nProcess: ev\x1b[31mil [7]\n"
            b"  Thread 0x1  Thread name \"\xe2\x80\xaeboom\x1b[0m\"  3 samples (1-3)\n"
            b"  3  sym\x1b[1m + 1 (lib\x07x + 0x10) [0x1000]\n   *3  k\x9bA + 2 (Evil\x1bKext + 16) [0xffffff7f80000010]\n\n"
            b"Binary Images:\n *0xffffff7f80000000 - 0xffffff7f80000fff  com.evil.\x1b[5mKext 1 <4C4C4449-5555-3144-A1F6-9DFF5C39A349> /x/Evil\x1bKext\n")
PY
"$kp" show --no-symbols "$tmp/deep.txt" >"$tmp/deep" 2>"$tmp/err"
check "$?" = 0 "3000 frames deep: exit 0"
check_grep "a stack deeper than 512 frames: the rest is dropped" "$tmp/err" "deep: a warning says what was dropped"
"$kp" show --json --no-symbols "$tmp/wide.txt" >"$tmp/wide.json" 2>/dev/null
check "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["processes"]))' "$tmp/wide.json")" = 3000 \
	"3000 processes: every one read"
"$kp" show --no-symbols "$tmp/evil.txt" >"$tmp/evil" 2>"$tmp/err"
check "$?" = 0 "control bytes: exit 0"
check "$(LC_ALL=C tr -d '\n\t' <"$tmp/evil" | LC_ALL=C grep -c "$(printf '[\001-\037\177]')")" = 0 \
	"control bytes: no raw control byte reaches show's text"
"$kp" show --json --no-symbols "$tmp/evil.txt" >"$tmp/evil.json" 2>/dev/null
check "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["processes"][0]["name"])' "$tmp/evil.json")" = \
	"$(printf 'ev\033[31mil')" "control bytes: JSON keeps the name, escaped"
check "$(LC_ALL=C grep -c "$(printf '\033')" "$tmp/evil.json")" = 0 "control bytes: no raw ESC in JSON"

done_testing
