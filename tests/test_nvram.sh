#!/bin/sh
# test_nvram.sh: `kpbrowse nvram` (issue 24 item 5): a panic never saved as
# a report, from `nvram -x` (plist, base64), `nvram -p` (%xx escapes) and
# stdin, with the Intel bytes 7-bit packed as xnu's packA packs them, and
# from FUNK and DEED panic-region dumps (tests/fixtures/make_nvram.py builds
# them from the project's own panic fixtures): the decoded text is the
# original byte for byte, shown as `show` shows the original (symbolicated
# through the same dSYMs), --json wraps it; --index saves it under unsaved/
# and indexes it; broken input is a named error with exit 2.
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
nv="$KP_FIXTURES/nvram"
intel="$KP_FIXTURES/reports/Kernel_2020-08-03-094512_kpbrowse-demo.panic"
bins="$KP_FIXTURES/bin"

# --- the Intel forms: the same report as show's, symbols and all -----------
# the same but for the File: line, which names the file read
"$kp" show --dsym "$bins" "$intel" | grep -v '^File: ' >"$tmp/want"
for f in nvram-x-intel.plist nvram-p-intel.txt; do
	"$kp" nvram --dsym "$bins" "$nv/$f" >"$tmp/got" 2>"$tmp/err"
	check "$?" = 0 "$f: exit 0 ($(head -c 200 "$tmp/err"))"
	check "$(head -1 "$tmp/got")" = "Unsaved panic:   $(case $f in *-x-*) echo 'nvram -x';; *) echo 'nvram -p';; esac) (7-bit packed, unpacked)" \
		"$f: the first line names the form and the unpacking"
	sed 1d "$tmp/got" | grep -v '^File: ' >"$tmp/got2"
	if cmp -s "$tmp/want" "$tmp/got2"; then _ok "$f: shown as show shows the original, symbolicated"
	else _notok "$f: shown as show shows the original"; diff "$tmp/want" "$tmp/got2" | head -10 | sed 's/^/# /'; fi
done
check_grep "panic_trap_to_debugger (/kpbrowse/fixtures/src/fakekernel.c:62)" "$tmp/want" "  (the original's frames are symbolicated: the comparison means something)"
"$kp" nvram --no-symbols - <"$nv/nvram-p-intel.txt" >"$tmp/stdin" 2>&1
check "$?" = 0 "stdin: exit 0"
check_grep "^File: *stdin (nvram -p)$" "$tmp/stdin" "stdin: named so"

# --- FUNK and DEED region dumps -------------------------------------------------
for f in region-funk.bin region-deed.bin; do
	"$kp" nvram --no-symbols "$nv/$f" >"$tmp/r" 2>"$tmp/err"
	check "$?" = 0 "$f: exit 0 ($(head -c 200 "$tmp/err"))"
	check_grep "^Headline: *FakeDriver: report length 4096 exceeds buffer @FakeDriver.cpp:77$" "$tmp/r" "$f: the arm64 panic log parsed"
	check_grep "^Kernel version: *Darwin Kernel Version 25.1.0" "$tmp/r" "$f: kernel version"
done
"$kp" nvram --no-symbols "$nv/region-funk.bin" | grep "^Region header:" >"$tmp/h"
check "$(cat "$tmp/h")" = "Region header:   version 6, flags 0x802, panic log 1673 bytes, stackshot 64 bytes at 1725, other log 28 bytes at 1789" \
	"FUNK: version, flags, stackshot and other-log offsets"
"$kp" nvram --json "$nv/region-deed.bin" >"$tmp/j.json"
check "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["unsaved"]["form"], d["unsaved"]["version"], d["unsaved"]["flags"], d["report"]["kind"], d["report"]["arch"])' "$tmp/j.json")" = \
	"DEED panic region 2 0x1 panic arm64" "json: unsaved and report"

# --- --index: saved under unsaved/, indexed, byte for byte the original ----
db="$tmp/idx/index.sqlite3"
mkdir -p "$tmp/idx"
"$kp" nvram --no-symbols --index --db "$db" "$nv/nvram-x-intel.plist" >/dev/null 2>"$tmp/err"
check "$?" = 0 "index: exit 0 ($(head -c 200 "$tmp/err"))"
saved=$(ls "$tmp/idx/unsaved/"aapl,panic-info-*.panic 2>/dev/null | head -1)
check "$(echo "$saved" | grep -c 'unsaved/aapl,panic-info-[0-9a-f]*\.panic$')" = 1 "index: saved as unsaved/aapl,panic-info-HASH.panic beside the index"
if cmp -s "$intel" "$saved"; then _ok "index: the saved text is the original byte for byte"; else _notok "index: the saved text is the original"; fi
check_grep "indexed as .*unsaved/aapl,panic-info-" "$tmp/err" "index: says where"
"$kp" nvram --no-symbols --index --db "$db" "$nv/nvram-p-intel.txt" >/dev/null 2>"$tmp/err"
check "$(ls "$tmp/idx/unsaved" | wc -l | tr -d ' ')" = 1 "index: the same panic twice is one file"
"$kp" list --db "$db" --json >"$tmp/l.json"
check "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r), "/unsaved/" in r[0]["path"], r[0]["kind"])' "$tmp/l.json")" = "1 True panic" \
	"index: one report, its path under unsaved/"
"$kp" nvram --index --unsaved-dir "$tmp/u2" --db "$db" --no-symbols "$nv/region-funk.bin" >/dev/null 2>&1
check "$(ls "$tmp/u2" | wc -l | tr -d ' ')" = 1 "index: --unsaved-dir"

# --- issue 31 item 12: AAPL,PanicInfo chunks, cut pastes, raw and efivarfs ------
# (fixtures rebuilt from the format around a real 9,224-character Intel
# report: tests/fixtures/make_nvram.py says why)
last="Thunderbolt Bus: MacBook Pro, Apple Inc., 17.1"   # the report's last line
for f in nvram-p-chunks.txt nvram-x-chunks.plist; do
	"$kp" nvram --no-symbols "$nv/$f" >"$tmp/out" 2>"$tmp/err"
	check "$?" = 0 "$f: exit 0 ($(head -c 200 "$tmp/err"))"
	check_grep "11 AAPL,PanicInfo chunks" "$tmp/out" "$f: the 11 chunks are joined"
	check_grep "$last" "$tmp/out" "$f: the log's last line is there (joined in index order, 000K after 0009)"
	check_grep "^Headline: *thread_invoke: preemption_level 1" "$tmp/out" "$f: headline"
	case $f in *-p-*) check_grep "aapl,panic-info (7680 bytes) is a shorter copy" "$tmp/err" \
		"aapl,panic-info beside the chunks: said, not read" ;; esac
done
grep -v 'PanicInfo000' "$nv/nvram-p-chunks.txt" >"$tmp/whole-only"
"$kp" nvram --no-symbols "$tmp/whole-only" >"$tmp/out" 2>/dev/null
check_not_grep "$last" "$tmp/out" "aapl,panic-info alone holds 8,777 characters: the last line is not there (the test can fail)"
grep -v 'PanicInfo0003\|^aapl,panic-info' "$nv/nvram-p-chunks.txt" >"$tmp/hole"
"$kp" nvram --no-symbols "$tmp/hole" >/dev/null 2>"$tmp/err"
check_grep "chunks 3 to 3 are missing" "$tmp/err" "a missing chunk is said"
for f in raw-intel.bin efivarfs-intel.bin; do
	"$kp" nvram --no-symbols "$nv/$f" >"$tmp/out" 2>"$tmp/err"
	check "$?" = 0 "$f: exit 0 ($(head -c 200 "$tmp/err"))"
	check_grep "^Headline: *vm_page_check_sanity" "$tmp/out" "$f: the variable's bytes read as they are"
done
check_grep "efivarfs file" "$tmp/out" "efivarfs: the form is named"
"$kp" nvram --no-symbols "$nv/nvram-p-cut.txt" >"$tmp/out" 2>"$tmp/err"
check "$?" = 0 "a value cut mid-byte: exit 0"
check_grep "cut mid-byte: decoded up to its last whole byte" "$tmp/err" "a value cut mid-byte: warned"
check_grep "^Headline: *vm_page_check_sanity" "$tmp/out" "a value cut mid-byte: read up to the cut"

# --- broken input: a named error, exit 2 ----------------------------------------
bad() {   # bad NAME EXPECTED-MESSAGE
	"$kp" nvram --no-symbols "$tmp/$1" >/dev/null 2>"$tmp/err"
	rc=$?
	check "$rc" = 2 "$1: exit 2"
	check_grep "$2" "$tmp/err" "$1: $2"
}
printf 'hello\n' >"$tmp/plain"
bad plain "not nvram output"
printf '<plist><dict><key>aapl,panic-info</key><data>@@@@</data></dict></plist>\n' >"$tmp/b64"
bad b64 "bad base64 in <data>"
printf '<plist><dict><key>boot-args</key><string>x</string></dict></plist>\n' >"$tmp/nokey"
bad nokey "a property list without aapl,panic-info or AAPL,PanicInfo"
printf 'aapl,panic-info\tab%%zz\n' >"$tmp/pct"
bad pct "'%' without two hex digits"
printf 'aapl,panic-info\tab%%4x\n' >"$tmp/pct2"
bad pct2 "'%' without two hex digits"
python3 - "$tmp" <<'PY'
import struct, sys
d = sys.argv[1]
open(d + "/funk-out", "wb").write(struct.pack("<IIIQIIIIII", 0x46554E4B, 0, 6, 0, 44, 100000, 0, 0, 0, 0) + b"x" * 10)
open(d + "/funk-cut", "wb").write(struct.pack("<III", 0x46554E4B, 0, 6))
open(d + "/deed-empty", "wb").write(struct.pack("<IIIIQII", 0x44454544, 0, 1, 0, 0, 32, 8) + b"\0" * 8)
open(d + "/deed-wrap", "wb").write(struct.pack("<IIIIQII", 0x44454544, 0, 1, 0, 0, 0xffffffff, 0xffffffff) + b"x" * 8)
PY
bad funk-out "panic log at 44, 100000 bytes, outside the 54 bytes given"
bad funk-cut "FUNK header cut off: 12 of 44 bytes"
bad deed-empty "DEED header: the panic log is empty"
bad deed-wrap "outside the 40 bytes given"
: >"$tmp/empty"
bad empty "empty input"
printf '\033]0;pwn\007' | "$kp" nvram --no-symbols - >/dev/null 2>"$tmp/err"
check "$(LC_ALL=C grep -c "$(printf '[\033\007]')" "$tmp/err")" = 0 "hostile stdin: no raw control byte in the error"
"$kp" nvram a b >/dev/null 2>"$tmp/err"
check "$?" = 2 "two files: usage error"
"$kp" nvram --db x "$nv/region-funk.bin" >/dev/null 2>"$tmp/err"
check "$?" = 2 "--db without --index: usage error"

done_testing
