#!/bin/sh
# test_show_disasm.sh: `kpbrowse show --disasm N`: every instruction around
# every symbolicated frame of the fixture reports (clang 14 and clang 19
# builds, arm64 and x86_64) checked against llvm-objdump-19 --disassemble
# on the same binary and range (disasm_oracle.py); the text layout; the
# usage errors; a binary that cannot be found; a build without Capstone.
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
demo="$KP_FIXTURES/reports/Kernel_2020-08-03-094512_kpbrowse-demo.panic"

"$kp" show --disasm 4 --dsym "$KP_FIXTURES/bin" "$demo" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 2 ] && grep -q "without Capstone" "$tmp/err"; then
	check_grep "apt install libcapstone-dev" "$tmp/err" "no Capstone: --disasm says how to get it"
	check_grep "^kpbrowse: show: --disasm: this kpbrowse was built without Capstone" "$tmp/err" \
		"no Capstone: a usage error naming --disasm"
	check "$(wc -c <"$tmp/out" | tr -d ' ')" = 0 "no Capstone: nothing printed"
	done_testing
fi
check "$rc" = 0 "--disasm 4: exit 0 ($(head -1 "$tmp/err"))"

# --- the oracle: llvm-objdump-19 on the same bytes ---------------------------
if command -v llvm-objdump-19 >/dev/null 2>&1; then
	for set in . llvm19-dwarf4 llvm19-dwarf5; do
		dir=$KP_FIXTURES/$set
		"$kp" show --json --disasm 12 --dsym "$dir/bin" "$dir"/reports/*.ips "$dir"/reports/*.panic \
			>"$tmp/d.json" 2>"$tmp/err"
		check "$?" = 0 "$set: show --json --disasm 12 exit 0"
		python3 "$KP_TESTS_DIR/disasm_oracle.py" "$tmp/d.json" "$dir/uuids.txt" "$dir/bin" >"$tmp/py" 2>&1
		check_grep "^ok [1-9][0-9]* instructions ([1-9][0-9]* frames, [1-9]" "$tmp/py" \
			"$set: every instruction as llvm-objdump-19 prints it ($(cat "$tmp/py"))"
	done
else
	skip "llvm-objdump-19 absent: no oracle"
fi

# --- text: under each frame, indented, the frame's address marked -------------
check_grep "^       -> 0x544:  48 89 fe  *mov rsi, rdi$" "$tmp/out" "frame 0: its faulting address marked"
check_grep "^          0x5dd:  e8 5e ff ff ff  *call 0x540 <panic_trap_to_debugger>$" "$tmp/out" \
	"frame 1: the call before the return address, its target named"
check_grep "^       -> 0x5e2: " "$tmp/out" "frame 1: the return address marked"
check "$(grep -c '^       -> ' "$tmp/out")" = 5 "one mark under each of the 5 frames"
"$kp" show --disasm 6 --dsym "$KP_FIXTURES/bin" "$KP_FIXTURES/reports/panic-full-2026-11-20-101500.0001.ips" >"$tmp/arm" 2>&1
check_grep "^          0xc094:  ec ff ff 97  *bl 0xc044 <panic_trap_to_debugger>$" "$tmp/arm" \
	"arm64: bl with its target named, no '#'"
check_grep "tbz w0, #0x1f, 0xc2ec <fakekext_interrupt+0x4c>" "$tmp/arm" "arm64: a branch inside a function: symbol+offset"
check_grep "^          0xc1ec:  e2 d0 ff 97  *bl 0x574 <stub for panic>$" "$tmp/arm" \
	"arm64: a call through a symbol stub names the symbol"

# --- JSON: additive keys on each frame ----------------------------------------
"$kp" show --json --disasm 3 --dsym "$KP_FIXTURES/bin" "$demo" >"$tmp/j.json"
python3 - "$tmp/j.json" >"$tmp/py" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = [t for p in r["processes"] for t in p["threads"] if t["panicked"]][0]
for f in t["frames"]:
    assert f["disasm_error"] is None, f["disasm_error"]
    assert len(f["disasm"]) == 3, f["disasm"]
    for i in f["disasm"]:
        assert set(i) == {"address", "bytes", "mnemonic", "operands", "target", "marked"}, i
        assert i["address"].startswith("0x") and len(i["bytes"]) % 2 == 0
    assert [i["marked"] for i in f["disasm"]] == [False, True, False]
call = t["frames"][1]["disasm"][0]
assert call["mnemonic"] == "call" and call["target"] == {"address": "0x540", "symbol": "panic_trap_to_debugger"}, call
print("ok")
PY
check "$(cat "$tmp/py")" = ok "JSON: disasm arrays of {address, bytes, mnemonic, operands, target, marked}"
"$kp" show --json --dsym "$KP_FIXTURES/bin" "$demo" >"$tmp/plain.json"
check_not_grep '"disasm' "$tmp/plain.json" "JSON without --disasm: no disasm keys"

# --- the binary missing: said once per frame, where it was looked for ---------
mkdir "$tmp/lone"
cp -R "$KP_FIXTURES/bin/fakekernel.x86_64.dSYM" "$tmp/lone/"
"$kp" show --disasm 4 --dsym "$tmp/lone" "$demo" >"$tmp/out" 2>"$tmp/err"
check "$?" = 0 "dSYM without its binary: exit 0"
check "$(grep -c 'no code bytes: the binary with UUID 4C4C44EF-5555-3144-A1CD-413F9846D32A was not found (looked in ' "$tmp/out")" = 5 \
	"dSYM without its binary: why, under each frame"
check_grep "panic_trap_to_debugger" "$tmp/out" "dSYM without its binary: frames still symbolicated"
# paths too long for the message: cut with an ellipsis, never mid-path
long=$tmp/$(printf '%0200d' 0)
mkdir -p "$long"
cp -R "$KP_FIXTURES/bin/fakekernel.x86_64.dSYM" "$long/"
"$kp" show --disasm 4 --dsym "$long" "$demo" >"$tmp/out" 2>"$tmp/err"
check_grep "was not found (looked in …, the dSYM search folders)" "$tmp/out" \
	"a path longer than the message has room for: an ellipsis"
# a truncated binary next to it: the same, no crash
head -c 1400 "$KP_FIXTURES/bin/fakekernel.x86_64" >"$tmp/lone/fakekernel.x86_64"
"$kp" show --disasm 4 --dsym "$tmp/lone" "$demo" >"$tmp/out" 2>"$tmp/err"
check "$?" = 0 "truncated binary next to the dSYM: exit 0"
check "$(grep -c 'no code bytes' "$tmp/out")" = 5 "truncated binary: no code bytes, under each frame"

# --- usage ---------------------------------------------------------------------
for bad in 0 x -3 1001; do
	"$kp" show --disasm "$bad" "$demo" >/dev/null 2>"$tmp/err"
	check "$?" = 2 "--disasm $bad: exit 2"
	check_grep "wants a count of instructions" "$tmp/err" "--disasm $bad: says what it wants"
done
"$kp" show --disasm 4 --no-symbols "$demo" >/dev/null 2>"$tmp/err"
check "$?" = 2 "--disasm with --no-symbols: exit 2"
check_grep "needs symbols" "$tmp/err" "--disasm with --no-symbols: says why"
done_testing
