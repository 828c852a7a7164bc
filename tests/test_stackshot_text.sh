#!/bin/sh
# test_stackshot_text.sh: a stackshot saved as text by `stackshot -i` (what
# symstacks.rb reads; issue 14 item 9): read by content into the thread
# model (kind stackshot), every thread shown, --load BUNDLE_ID=0xADDR places
# kexts and finds their dSYMs by bundle id (Info.plist, NAME.kext.dSYM
# folder), so a kext frame symbolicates as llvm-symbolizer-19 says; frames
# the text names keep their names without a dSYM; indexed as a stackshot.
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
ss="$KP_FIXTURES/textforms/stackshot-i.txt"
kext_uuid=4C4C4449-5555-3144-A1F6-9DFF5C39A349   # fakekext.x86_64
load="--load com.kpbrowse.FakeDriver=0xffffff7f80e40000 --load com.kpbrowse.OtherDriver=0xffffff7f80f00000"

# a dSYM found only by its Info.plist (a folder name that says nothing)
mkdir -p "$tmp/byplist" "$tmp/byname" "$tmp/none"
cp -R "$KP_FIXTURES/bin/fakekext.x86_64.dSYM" "$tmp/byplist/build-42.dSYM"
sed 's/com\.apple\.xcode\.dsym\.fakekext\.x86_64/com.apple.xcode.dsym.com.kpbrowse.FakeDriver/' \
	"$KP_FIXTURES/bin/fakekext.x86_64.dSYM/Contents/Info.plist" >"$tmp/byplist/build-42.dSYM/Contents/Info.plist"
# ... and one found only by its folder name (its plist names the file)
cp -R "$KP_FIXTURES/bin/fakekext.x86_64.dSYM" "$tmp/byname/FakeDriver.kext.dSYM"
# ... and a folder holding the same dSYM under an unrelated name: no match
cp -R "$KP_FIXTURES/bin/fakekext.x86_64.dSYM" "$tmp/none/Other.dSYM"

# --- without --load: the thread model, names kept --------------------------
"$kp" show --no-symbols "$ss" >"$tmp/plain" 2>"$tmp/err"
check "$?" = 0 "show: exit 0 ($(head -c 200 "$tmp/err"))"
check "$(wc -c <"$tmp/err" | tr -d ' ')" = 0 "show: no warning"
check_grep "^Format: *text$" "$tmp/plain" "format text"
check_grep "^Kind: *stackshot$" "$tmp/plain" "kind stackshot"
check_grep "^Architecture: *x86_64$" "$tmp/plain" "arch from the kernel addresses"
check_grep "^Headline: *stackshot (text): 2 processes, 3 threads$" "$tmp/plain" "headline counts processes and threads"
check_grep "^Threads (3):$" "$tmp/plain" "every thread is shown"
check_grep "^Thread frames (7): fakeclient\[321\] 1250, TH_WAIT TH_UNINT, priority 47$" "$tmp/plain" \
	"thread: process, pid, id (hex 0x4e2), state names, priority"
check_grep "^Thread frames (0): fakeclient\[321\] 1251, TH_SUSP$" "$tmp/plain" "a thread with an empty stack"
check_grep "0xffffff800b0005e2  kernel  \[panic + 0x82\]$" "$tmp/plain" \
	"a '(in mach_kernel) + 130' frame is the kernel's and keeps its name and offset"
check_grep "0xffffff7f80e40750  com.kpbrowse.FakeDriver  \[fakekext_interrupt + 0x20\]$" "$tmp/plain" \
	"a '(in BUNDLE)' frame keeps its module and name without a load address"
check_grep "0xffffff7f80e406a9  ?$" "$tmp/plain" "a bare address belongs to no image"
check_grep "0x00007fff8c2a1e2a  ?  (user)$" "$tmp/plain" "user stack frames"

# --- --load: kexts placed, the dSYM found by bundle id ----------------------
for how in byplist byname; do
	# shellcheck disable=SC2086
	"$kp" show --dsym "$tmp/$how" $load "$ss" >"$tmp/$how.txt" 2>"$tmp/err"
	check "$?" = 0 "$how: exit 0"
	check_grep "0xffffff7f80e406a9  com.kpbrowse.FakeDriver + 0x6a9  validateReport(ReportHeader const&, unsigned int, unsigned int) (/kpbrowse/fixtures/src/fakekext.cpp:74)" \
		"$tmp/$how.txt" "$how: the bare kext frame is placed by --load and symbolicated"
	check_grep "com.kpbrowse.FakeDriver + 0x750  \[fakekext_interrupt + 0x20\]  fakekext_interrupt (/kpbrowse/fixtures/src/fakekext.cpp:159)" \
		"$tmp/$how.txt" "$how: the named kext frame keeps its name and gains file:line"
	check_grep "0xffffff7f80f01234  com.kpbrowse.OtherDriver + 0x1234$" "$tmp/$how.txt" \
		"$how: a second kext placed in the same run (no dSYM: offset only)"
	check_grep "warning: --load com.kpbrowse.OtherDriver=0xffffff7f80f00000: no dSYM found for that bundle id" \
		"$tmp/err" "$how: the kext without a dSYM is named in a warning"
	check_not_grep "FakeDriver=.*no dSYM" "$tmp/err" "$how: no warning for the kext found"
done

# shellcheck disable=SC2086
"$kp" show --dsym "$tmp/none" $load "$ss" >"$tmp/none.txt" 2>"$tmp/err"
check_grep "com.kpbrowse.FakeDriver + 0x750  \[fakekext_interrupt + 0x20\]$" "$tmp/none.txt" \
	"no dSYM for the bundle id: placed, the text's own name kept"
check_grep "FakeDriver=0xffffff7f80e40000: no dSYM found" "$tmp/err" "no dSYM for the bundle id: a warning"

# --- show --json, checked against llvm-symbolizer-19 ------------------------
# shellcheck disable=SC2086
"$kp" show --json --dsym "$tmp/byplist" $load "$ss" >"$tmp/ss.json" 2>/dev/null
check "$?" = 0 "json: exit 0"
dwarf="$tmp/byplist/build-42.dSYM/Contents/Resources/DWARF/fakekext.x86_64"
if command -v llvm-symbolizer-19 >/dev/null 2>&1; then
	for a in 0x6a8 0x74f; do
		llvm-symbolizer-19 --obj="$dwarf" "$a" >"$tmp/sym-$a"
	done
	have_llvm=1
else
	have_llvm=0
fi
python3 - "$tmp/ss.json" "$tmp" "$have_llvm" "$kext_uuid" >"$tmp/py" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
tmp, have_llvm, uuid = sys.argv[2], sys.argv[3] == "1", sys.argv[4]
assert r["kind"] == "stackshot" and r["format"] == "text", (r["kind"], r["format"])
imgs = {i["name"]: i for i in r["images"]}
fd = imgs["com.kpbrowse.FakeDriver"]
assert fd["uuid"] == uuid and fd["start"] == "0xffffff7f80e40000" and fd["kind"] == "X", fd
assert imgs["com.kpbrowse.OtherDriver"]["uuid"] is None, imgs["com.kpbrowse.OtherDriver"]
procs = {p["pid"]: p for p in r["processes"]}
assert procs[0]["name"] == "kernel_task" and procs[321]["name"] == "fakeclient"
t = procs[321]["threads"][0]
assert t["id"] == 0x4e2 and t["state"] == "TH_WAIT TH_UNINT" and t["sched_priority"] == 47, t
k = procs[0]["threads"][0]
assert k["wait_event"]["address"] == "0xffffff8033a1c0b8", k["wait_event"]
assert k["continuation"]["address"] == "0xffffff80002a64c0", k["continuation"]
fr = t["frames"]
assert [f["user"] for f in fr] == [False] * 5 + [True] * 2
assert fr[1]["report_symbol"] == "panic" and fr[1]["image_name"] == "kernel", fr[1]
for i, a in ((2, "0x6a8"), (3, "0x74f")):
    f = fr[i]
    assert f["image_name"] == "com.kpbrowse.FakeDriver" and f["image_uuid"] == uuid, f
    assert f["lookup_address"] == a, (i, f["lookup_address"])
    assert f["symbol_source"] == "dwarf", f
    if have_llvm:
        lines = [l for l in open("%s/sym-%s" % (tmp, a)).read().splitlines() if l]
        want = [(lines[j], lines[j + 1].rsplit(":", 2)[0], int(lines[j + 1].rsplit(":", 2)[1]))
                for j in range(0, len(lines), 2)]
        got = [(s["function"], s["file"], s["line"]) for s in f["symbols"]]
        assert got == want, (i, got, want)
assert fr[3]["report_symbol"] == "fakekext_interrupt", fr[3]
o = procs[0]["threads"][0]["frames"][0]
assert o["image_name"] == "com.kpbrowse.OtherDriver" and o["offset"] == "0x1234" and o["symbols"] == [], o
print("ok" if have_llvm else "ok (no llvm-symbolizer-19: lookups unchecked)")
PY
check "$(tail -1 "$tmp/py" | cut -c1-2)" = ok "json: images, threads, kext frames as llvm-symbolizer-19 says ($(tail -1 "$tmp/py"))"

# --- bad --load specs are usage errors ----------------------------------------
for bad in "com.kpbrowse.FakeDriver" "=0x1000" "com.kpbrowse.FakeDriver=4096" "com.x=0x" "com.x=0x1g" \
	"a b=0x10" "com.x=0x10000000000000000"; do
	"$kp" show --no-symbols --load "$bad" "$ss" >/dev/null 2>"$tmp/err"
	check "$?" = 2 "--load '$bad': exit 2"
	check_grep "not BUNDLE_ID=0xADDR" "$tmp/err" "--load '$bad': says what it wants"
done

# --- truncated: a cut frame line is said -------------------------------------
head -c "$(grep -b -o "fakekext_interrupt (in" "$ss" | cut -d: -f1)" "$ss" >"$tmp/cut.txt"
printf '  fakekext_interr' >>"$tmp/cut.txt"
"$kp" show --json --no-symbols "$tmp/cut.txt" >"$tmp/cut.json" 2>"$tmp/err"
check "$?" = 0 "cut: exit 0"
check_grep "warning: report is truncated: the last frame line is cut off" "$tmp/err" "cut: a warning"
printf 'PID: 1\nProcess: launchd\nKernel stack:\n' >"$tmp/nothread.txt"
"$kp" show --no-symbols "$tmp/nothread.txt" >/dev/null 2>"$tmp/err"
check "$?" = 2 "PID and Kernel stack lines without 'Thread ID': exit 2"
printf 'PID: 1\nThread ID: 0x1\nKernel stack:\n' >"$tmp/nf.txt"
"$kp" show --no-symbols "$tmp/nf.txt" >"$tmp/nf" 2>"$tmp/err"
check "$?" = 0 "a thread without frames: exit 0"

# --- index: kind stackshot ------------------------------------------------------
db="$tmp/index.db"
"$kp" index --db "$db" --no-symbols "$ss" >/dev/null 2>"$tmp/err"
check "$?" = 0 "index: exit 0 ($(head -c 200 "$tmp/err"))"
"$kp" list --db "$db" --kind stackshot --json >"$tmp/list.json"
python3 - "$tmp/list.json" >"$tmp/py" 2>&1 <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 1 and rows[0]["kind"] == "stackshot", rows
assert rows[0]["headline"] == "stackshot (text): 2 processes, 3 threads", rows[0]["headline"]
print("ok")
PY
check "$(cat "$tmp/py")" = ok "index: listed with --kind stackshot ($(tail -1 "$tmp/py"))"

done_testing
