#!/bin/sh
# test_show.sh: `kpbrowse show` end to end: the real corpus, bad input, the
# JSON contract, and symbolication of the generated reports checked against
# llvm-symbolizer's answers recorded in fixtures/reports/expected.tsv.
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
reports="$KP_FIXTURES/reports"

# --- the real corpus: every file parses, with no error line ---------------
corpus="$KP_REAL_DIR"
if [ -d "$corpus" ]; then
	for f in "$corpus"/*; do
		case "$f" in *MANIFEST.tsv) continue ;; esac
		sum_before=$(cksum <"$f")
		"$kp" show --no-symbols "$f" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		check "$rc" = 0 "corpus $(basename "$f"): exit 0"
		check_not_grep "error\|cannot" "$tmp/err" "corpus $(basename "$f"): no error line"
		check_grep "^Headline: *[^ -]" "$tmp/out" "corpus $(basename "$f"): a headline"
		check "$(cksum <"$f")" = "$sum_before" "corpus $(basename "$f"): file unchanged"
	done
	"$kp" show "$corpus/MANIFEST.tsv" >/dev/null 2>"$tmp/err"
	check "$?" = 2 "prose that quotes panic lines (MANIFEST.tsv) is not a panic"
	check_grep "no kernel panic here" "$tmp/err" "MANIFEST.tsv: says why"
	"$kp" show --json --no-symbols "$corpus"/*.ips "$corpus"/*.panic "$corpus"/*.txt >"$tmp/all.json" 2>/dev/null
	check "$?" = 0 "corpus as one JSON array: exit 0"
	python3 - "$tmp/all.json" >"$tmp/py" 2>&1 <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
assert isinstance(a, list) and len(a) == 23, len(a)
keys = "file format bug_type timestamp os_version incident_id kernel_version kernel_uuid headline preamble panic_string panicked images processes".split()
for r in a:
    for k in keys:
        assert k in r, (r["file"], k)
    assert r["format"] in ("ips", "intel-json", "text"), r["format"]
    for k in ("pid", "process", "thread_id"):
        assert k in r["panicked"]
    for im in r["images"]:
        for k in ("index", "uuid", "name", "kind", "base", "start", "end", "in_backtrace"):
            assert k in im, k
        for k in ("base", "start", "end"):
            assert im[k] is None or (isinstance(im[k], str) and im[k].startswith("0x")), im[k]
        assert im["uuid"] is None or (im["uuid"] == im["uuid"].upper() and len(im["uuid"]) == 36)
    for p in r["processes"]:
        for t in p["threads"]:
            for f in t["frames"]:
                for k in ("image", "image_uuid", "image_name", "offset", "address"):
                    assert k in f, k
print("ok")
PY
	check "$(cat "$tmp/py")" = ok "corpus JSON has every contract key ($(tail -1 "$tmp/py"))"
else
	skip "real corpus absent ($corpus)"
fi

# --- bad input: one line each, exit 2, the good file still prints -----------
good="$reports/Kernel_2020-08-03-094512_kpbrowse-demo.panic"
: >"$tmp/empty.panic"
printf '\177ELF\002\001\001\000\000\000binary\000\000junk' >"$tmp/binary.ips"
printf '# A README\n\nNothing to see here.\n' >"$tmp/readme.txt"
printf '{"bug_type":"309","timestamp":"2024-01-01"}\n{"procName":"Safari","threads":[]}\n' >"$tmp/app.ips"
printf '{"bug_type":"210"}\n{"panicString": "panic(cpu 0 caller 0x1): x", "binaryImages": [1, 2,\n' >"$tmp/cut.ips"
printf '{"bug_type":"210"}\n{"panicString" "x"}\n' >"$tmp/broken.ips"
mkdir "$tmp/adir"
for bad in empty.panic binary.ips readme.txt app.ips broken.ips adir missing.panic; do
	"$kp" show --no-symbols "$tmp/$bad" "$good" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "$rc" = 2 "bad $bad: exit 2"
	check "$(wc -l <"$tmp/err" | tr -d ' ')" = 1 "bad $bad: exactly one stderr line"
	check_grep "^kpbrowse: $tmp/$bad: " "$tmp/err" "bad $bad: the line names the file ($(cat "$tmp/err"))"
	check_grep "vm_page_check_sanity" "$tmp/out" "bad $bad: the good file still prints"
done
"$kp" show --no-symbols "$tmp/broken.ips" 2>"$tmp/err" >/dev/null
check_grep "line 2, byte 34" "$tmp/err" "broken JSON: position named ($(cat "$tmp/err"))"
"$kp" show --no-symbols "$tmp/cut.ips" >"$tmp/out" 2>"$tmp/err"
check "$?" = 0 "truncated JSON with a panic string: parses"
check_grep "truncated" "$tmp/err" "truncated JSON: warning says truncated"
"$kp" show --bogus 2>/dev/null; check "$?" = 2 "unknown option: exit 2"
"$kp" show 2>/dev/null; check "$?" = 2 "no file: exit 2"
"$kp" --version | grep -q "^kpbrowse [0-9]"; check "$?" = 0 "--version"
"$kp" --help | grep -q "kpbrowse show"; check "$?" = 0 "--help lists show"

# --- escape sequences from a report never reach the terminal ---------------
printf 'panic(cpu 0 caller 0x1): evil \033]52;c;ZXZpbA==\007 \033[2J \342\200\256gnp.exe\nKernel version:\nDarwin Kernel Version 1\n' >"$tmp/evil.panic"
"$kp" show --no-symbols "$tmp/evil.panic" >"$tmp/out" 2>&1
check "$(tr -d -c '\033\007' <"$tmp/out" | wc -c | tr -d ' ')" = 0 "no ESC or BEL byte in show output"
check_grep '<U+202E>' "$tmp/out" "bidi override shown inert"
# one text-safety rule (kp_text_cp_unsafe) for the terminal and for JSON:
# line separator U+2028, U+FEFF and a tag character U+E0001
printf 'panic(cpu 0 caller 0x1): a\342\200\250b\357\273\277c\363\240\200\201d\nKernel version:\nDarwin Kernel Version 1\n' >"$tmp/seps.panic"
"$kp" show --no-symbols "$tmp/seps.panic" >"$tmp/out" 2>&1
check_grep 'a<U+2028>b<U+FEFF>c<U+E0001>d' "$tmp/out" "show: U+2028, U+FEFF and tags shown escaped"
"$kp" show --no-symbols --json "$tmp/seps.panic" >"$tmp/out" 2>&1
check_grep 'a\\u2028b\\ufeffc\\udb40\\udc01d' "$tmp/out" "show --json: U+2028, U+FEFF and tags escaped"

# --- symbolication against llvm-symbolizer's recorded answers ---------------
for rep in "$reports"/*.ips "$reports"/*.panic; do
	name=$(basename "$rep")
	"$kp" show --json --dsym "$KP_FIXTURES/bin" "$rep" >"$tmp/sym.json" 2>"$tmp/err"
	check "$?" = 0 "symbolicate $name: exit 0"
	python3 "$KP_TESTS_DIR/expected_chains.py" "$tmp/sym.json" "$reports/expected.tsv" "$name" >"$tmp/py" 2>&1
	check_grep "^ok [1-9]" "$tmp/py" "symbolicate $name: every frame as llvm-symbolizer at the call site ($(cat "$tmp/py"))"
done
"$kp" show --dsym "$KP_FIXTURES/bin" "$reports/panic-full-2026-11-20-101500.0001.ips" >"$tmp/out"
check_grep "inlined into FakeDriver::handleReport" "$tmp/out" "text output shows the inline chain"
check_grep "validateReport(ReportHeader const&, unsigned int, unsigned int) (/kpbrowse/fixtures/src/fakekext.cpp:74)" "$tmp/out" "text output: function (file:line)"

# --- missing dSYM ------------------------------------------------------------
"$kp" show --json "$reports/panic-full-2026-11-20-101500.0001.ips" >"$tmp/nosym.json"
python3 -c '
import json,sys
r=json.load(open(sys.argv[1])); t=[t for p in r["processes"] for t in p["threads"] if t["panicked"]][0]
assert all(f["symbols"]==[] and f["symbol_source"] is None for f in t["frames"])
print("ok")' "$tmp/nosym.json" >"$tmp/py" 2>&1
check "$(cat "$tmp/py")" = ok "no dSYM: symbols [] and symbol_source null"
"$kp" show "$reports/panic-full-2026-11-20-101500.0001.ips" >"$tmp/out"
check_grep "no dSYM for 4C4C44A3-5555-3144-A151-249D146ED38D" "$tmp/out" "no dSYM: the frame names the UUID"
"$kp" show --no-symbols --dsym "$KP_FIXTURES/bin" "$reports/panic-full-2026-11-20-101500.0001.ips" >"$tmp/out"
check_not_grep "panic_trap_to_debugger" "$tmp/out" "--no-symbols: nothing symbolicated"

# --- the dSYM cache: a second run does not walk again -----------------------
rm -rf "$KPBROWSE_CACHE_DIR"
KPBROWSE_DSYM_PATH="$KP_FIXTURES/bin" "$kp" show "$good" >/dev/null
check "$(grep -c '^F' "$KPBROWSE_CACHE_DIR/dsym-cache-v1" 2>/dev/null)" -ge 8 "cache file lists the fixture slices"
KPBROWSE_DSYM_PATH="$KP_FIXTURES/bin" "$kp" show "$good" >"$tmp/out2"
check_grep "vm_page_check_sanity (" "$tmp/out2" "symbols through the cache"

# --- text forms users paste (issue 14 item 8; fixtures/make_textforms.py) ---
tf="$KP_FIXTURES/textforms"
"$kp" show --dsym "$KP_FIXTURES/bin" "$tf/symbolicated.panic" >"$tmp/out" 2>"$tmp/err"
check "$?" = 0 "symbolicated frames: exit 0"
check_grep "^ *0  0xffffff800b000544  kernel  \[_panic_trap_to_debugger + 0x4\]$" "$tmp/out" \
	"mach_kernel frame without a slide: the kernel's, with the report's own + 0x4"
check_grep "^ *4  0xffffff800b000821  kernel  \[_kernel_bootstrap_thread + 0x21\]$" "$tmp/out" "  and the last one"
check_grep "^ *3  0xffffff7f81a00750  com.kpbrowse.FakeDriver + 0x750  \[_fakekext_interrupt + 0x20\]  fakekext_interrupt (" \
	"$tmp/out" "  a kext frame: its range, its own + 0x20, and symbolicated from the dSYM"
"$kp" show --json --no-symbols "$tf"/*.panic >"$tmp/tf.json" 2>/dev/null
python3 - "$tmp/tf.json" >"$tmp/py" 2>&1 <<'PY'
import json, os, sys
by = {os.path.basename(r["file"]): r for r in json.load(open(sys.argv[1]))}
def frames(r):
    return [f for p in r["processes"] for t in p["threads"] if t["panicked"] for f in t["frames"]]
s = by["symbolicated.panic"]
f = frames(s)
assert [x["image_name"] for x in f] == ["kernel", "kernel", "com.kpbrowse.FakeDriver", "com.kpbrowse.FakeDriver", "kernel"], f
assert f[0]["image_uuid"] == s["kernel_uuid"] and f[0]["offset"] is None, f[0]
assert by["noversion.panic"]["arch"] == "x86_64", by["noversion.panic"]["arch"]
assert by["ppc.panic"]["arch"] == "ppc" and len(frames(by["ppc.panic"])) == 8
assert frames(by["ppc.panic"])[0]["address"] == "0x9b2f8", frames(by["ppc.panic"])[0]
assert by["ppc-oneline.panic"]["arch"] == "ppc" and len(frames(by["ppc-oneline.panic"])) == 4
w = by["noversion.panic"]["warnings"]
assert w and all(isinstance(x, str) for x in w) and any(x.endswith(")") and "(line " in x for x in w), w
print("ok")
PY
check "$(cat "$tmp/py")" = ok "text forms: kernel frames by name, ppc frames and arch, arch from addresses, warnings as strings ($(tail -1 "$tmp/py"))"

# issue 31 item 10: a header-only .ips is refused as cut short, never a panic
"$kp" show --no-symbols "$KP_TESTS_DIR/hostile/ips-header-only.ips" >"$tmp/out" 2>"$tmp/err"
check "$?" = 2 "header-only .ips: exit 2"
check_grep "ips-header-only.ips: cut short: a bug_type 210 header and no body after it (line 1" "$tmp/err" \
	"header-only .ips: one line says it is cut short"
check "$(wc -c <"$tmp/out" | tr -d ' ')" = 0 "header-only .ips: no report printed"

# --- a symbol source the user named that cannot serve the report (issue 30
# item 3): one warning line per source, naming the file and why; exit 0
bin=$KP_FIXTURES/bin
intel=$reports/Kernel-2020-09-14-201744.panic
head -c 3000 "$bin/fakekernel.x86_64" >"$tmp/cut.macho"
"$kp" show --dsym "$bin/fakekext.arm64.dSYM" --dsym "$tmp/cut.macho" --dsym "$bin/fakekext.x86_64.dSYM" \
	--kernelcache "$tmp/cut.macho" "$intel" >"$tmp/n.out" 2>"$tmp/n.err"
check "$?" = 0 "named sources that cannot serve: the report still shown, exit 0"
check_grep "^kpbrowse: $bin/fakekext.arm64.dSYM: warning: --dsym: another build: its UUIDs (4C4C44A3-5555-3144-A151-249D146ED38D) match no image of the report\$" \
	"$tmp/n.err" "  a dSYM of another build: said, with its UUID"
check_grep "^kpbrowse: $tmp/cut.macho: warning: --dsym: left out: segment file range outside the file\$" "$tmp/n.err" \
	"  a --dsym file cut short: said, with the parser's reason"
check_grep "^kpbrowse: $tmp/cut.macho: warning: --kernelcache: left out: " "$tmp/n.err" "  a --kernelcache cut short: said"
check_not_grep "fakekext.x86_64.dSYM" "$tmp/n.err" "  the one that serves the report: nothing said"
check "$(wc -l <"$tmp/n.err" | tr -d ' ')" = 3 "  one line per source"
check_grep "validateReport" "$tmp/n.out" "  the frames the good one names are named"
mkdir -p "$tmp/none" "$tmp/one"
: >"$tmp/none/empty"
cp "$intel" "$tmp/one/"
"$kp" show --dsym "$tmp/none" "$intel" >/dev/null 2>"$tmp/n2.err"
check_grep "^kpbrowse: $tmp/none: warning: --dsym: left out: no file with a UUID in it that kpbrowse can read\$" "$tmp/n2.err" \
	"  a folder with no Mach-O: said"
# configured sources: a file cut short or of another build is said; a
# configured folder of other builds is a library, not warned of
KPBROWSE_KERNELCACHE_PATH="$tmp/cut.macho" KPBROWSE_DSYM_PATH="$bin/fakekext.arm64.dSYM:$bin/fakekernel.arm64" \
	"$kp" show "$intel" >/dev/null 2>"$tmp/n4.err"
check "$?" = 0 "configured sources that cannot serve: exit 0"
check_grep "^kpbrowse: $tmp/cut.macho: warning: kernelcache (KPBROWSE_KERNELCACHE_PATH, Kernelcache): left out: segment file range outside the file\$" \
	"$tmp/n4.err" "  a configured kernelcache cut short: said"
check_grep "^kpbrowse: $bin/fakekernel.arm64: warning: local folder (KPBROWSE_DSYM_PATH, DBGSearchPaths): another build: " \
	"$tmp/n4.err" "  a configured file of another build: said"
check_not_grep "fakekext.arm64.dSYM" "$tmp/n4.err" "  a configured folder of other builds: not warned of"
"$kp" index --db "$tmp/n.sqlite3" --dsym "$tmp/cut.macho" "$tmp/one" >/dev/null 2>"$tmp/n3.err"
check "$?" = 0 "index with a --dsym cut short: exit 0"
check_grep "^kpbrowse: $tmp/cut.macho: warning: --dsym: left out: segment file range outside the file\$" "$tmp/n3.err" \
	"  and says so"

done_testing
