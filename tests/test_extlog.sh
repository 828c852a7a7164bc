#!/bin/sh
# test_extlog.sh: an .ips body's ExtensiblePanicLog (issue 24 item 4): each
# entry under its owner (the image or loaded kext with that UUID, by name),
# as text where it is text (sanitised) and as a hex dump otherwise, in show
# and in JSON (text and hex); malformed, huge and hostile entries end in a
# report with warnings, never a crash.
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
f="$KP_FIXTURES/extlog/panic-full-extlog.ips"

"$kp" show --no-symbols "$f" >"$tmp/out" 2>"$tmp/err"
check "$?" = 0 "show: exit 0 ($(head -c 200 "$tmp/err"))"
check_grep "^Extensible panic log (3):$" "$tmp/out" "three entries"
check_grep "^  com.kpbrowse.FakeDriver 4C4C44A3-5555-3144-A151-249D146ED38D DataID 7: 59 bytes, text$" "$tmp/out" \
	"owner named by its UUID (written in lower case), DataID, size, text"
check_grep "^      FakeDriver state: ring 3 stalled$" "$tmp/out" "base64 text decoded, line by line"
check_grep "^      last command 0x41 (RESET)$" "$tmp/out" "  second line"
check_grep "^      0000  de ad be ef 00 01 02 03 41 42 43 7f 80 ff 10 20  |........ABC.... |$" "$tmp/out" \
	"binary data as a hex dump with an ASCII column"
check_grep "^      0010  30  *|0|$" "$tmp/out" "  the last short line"
check_grep "^  (unknown image) 0F1E2D3C-4B5A-3697-8877-665544332211 DataID 9: 4 bytes$" "$tmp/out" \
	"an owner the report does not name; DataID given as a string; data as byte values"
"$kp" show --json --no-symbols "$f" >"$tmp/j.json"
python3 - "$tmp/j.json" >"$tmp/py" 2>&1 <<'PY'
import json, sys
x = json.load(open(sys.argv[1]))["extensible_paniclog"]
assert [e["data_id"] for e in x] == ["7", "8", "9"], x
assert x[0]["owner"] == "com.kpbrowse.FakeDriver" and x[0]["text"].startswith("FakeDriver state"), x[0]
assert x[1]["text"] is None and x[1]["hex"] == "deadbeef000102034142437f80ff102030" and x[1]["size"] == 17, x[1]
assert x[2]["owner"] is None and x[2]["hex"] == "68690a00", x[2]
print("ok")
PY
check "$(cat "$tmp/py")" = ok "json: owner, data_id, size, text, hex ($(tail -1 "$tmp/py"))"

# hostile: control bytes in text, wrong types, many and big entries
python3 - "$f" "$tmp" <<'PY'
import base64, sys
src, d = sys.argv[1], sys.argv[2]
data = open(src).read()
def put(name, member):
    i = data.index('  "ExtensiblePanicLog"')
    j = data.index('\n', i) + 1
    open(d + "/" + name, "w").write(data[:i] + '  "ExtensiblePanicLog": ' + member + ',\n' + data[j:])
evil = base64.b64encode("ok\x1b]0;pwn\x07\x1b[2J\u202eevil\n".encode()).decode()
bidi = base64.b64encode("abc\u202eevil\u2066x\n".encode()).decode()
put("evil.ips", '{"4C4C44A3-5555-3144-A151-249D146ED38D": [{"DataID": 1, "data": "%s"}, {"DataID": 2, "data": "plain \\u001b[31mred"}, {"DataID": 3, "data": "%s"}]}' % (evil, bidi))
put("types.ips", '{"x\\u001b[31m": 5, "4C4C44A3-5555-3144-A151-249D146ED38D": [7, {"DataID": [1], "data": {"a": 1}}, {"data": [1, 300, -1, "x", 2.5]}], "A": {"DataID": 1}}')
put("types2.ips", '[1, 2]')
put("many.ips", '{"4C4C44A3-5555-3144-A151-249D146ED38D": [' + ",".join('{"DataID": %d, "data": "QUJD"}' % i for i in range(3000)) + ']}')
put("big.ips", '{"4C4C44A3-5555-3144-A151-249D146ED38D": [{"DataID": 1, "data": "%s"}]}' % base64.b64encode(bytes(range(256)) * 2400).decode())
PY
"$kp" show --no-symbols "$tmp/evil.ips" >"$tmp/evil" 2>&1
check "$?" = 0 "evil: exit 0"
check "$(LC_ALL=C grep -c "$(printf '[\033\007\233]')" "$tmp/evil")" = 0 "evil: no raw ESC/BEL in show"
check_grep "^      abc<U+202E>evil<U+2066>x$" "$tmp/evil" "evil: bidi controls in a text shown inert"
"$kp" show --json --no-symbols "$tmp/evil.ips" >"$tmp/evil.json" 2>&1
check "$(LC_ALL=C grep -c "$(printf '[\033\007\233]')" "$tmp/evil.json")" = 0 "evil: no raw ESC/BEL in JSON"
check "$(python3 -c 'import json,sys; x=json.load(open(sys.argv[1]))["extensible_paniclog"]; print(x[0]["text"], x[1]["hex"], x[2]["text"] == "abc\u202eevil\u2066x\n")' "$tmp/evil.json")" = \
	"None 706c61696e201b5b33316d726564 True" "evil: bytes with controls are no text (hex only); a bidi text kept, escaped"
check_grep "^      0000  6f 6b 1b 5d 30 3b 70 77 6e 07 1b 5b 32 4a e2 80  |ok.\]0;pwn..\[2J..|$" "$tmp/evil" \
	"evil: control bytes make a hex dump, dots in the ASCII column"
"$kp" show --no-symbols "$tmp/types.ips" >"$tmp/types" 2>"$tmp/err"
check "$?" = 0 "wrong types: exit 0"
check_grep "an entry of 4C4C44A3-5555-3144-A151-249D146ED38D is no object: skipped" "$tmp/err" "wrong types: a non-object entry is named"
check_grep "4 values of 4C4C44A3-5555-3144-A151-249D146ED38D are no bytes: left out" "$tmp/err" "wrong types: non-byte values are named"
check_grep "data of 4C4C44A3-5555-3144-A151-249D146ED38D is neither a string nor bytes" "$tmp/err" "wrong types: object data is named"
# the spelling DumpPanic writes (IOExtensiblePaniclog's) is read too (issue 31 item 12)
sed 's/"ExtensiblePanicLog"/"ExtensiblePaniclog"/' "$f" >"$tmp/lower.ips"
"$kp" show --json --no-symbols "$tmp/lower.ips" >"$tmp/lower.json" 2>/dev/null
check "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["extensible_paniclog"]))' "$tmp/lower.json")" = 3 \
	"\"ExtensiblePaniclog\": its 3 entries are read"
"$kp" show --no-symbols "$tmp/types2.ips" >/dev/null 2>"$tmp/err"
check "$?" = 0 "an array instead of an object: exit 0"
check_grep "ExtensiblePanicLog is no object: skipped" "$tmp/err" "  and a warning"
"$kp" show --json --no-symbols "$tmp/many.ips" >"$tmp/many.json" 2>"$tmp/err"
check "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["extensible_paniclog"]))' "$tmp/many.json")" = 1024 "3000 entries: 1024 kept"
check_grep "more than 1024 entries: the rest are not kept" "$tmp/err" "  and a warning"
"$kp" show --no-symbols "$tmp/big.ips" >"$tmp/big" 2>"$tmp/err"
check_grep "614400 bytes of 4C4C44A3-5555-3144-A151-249D146ED38D: only the first 262144 kept" "$tmp/err" "600 KB entry: cut to 256 KiB with a warning"
check_grep "^      ... 258048 more bytes (show --json has them all)$" "$tmp/big" "show prints the first 4 KiB"

# --panic-data-decoder: a kext team's own decoder (issue 24 item 5)
cat >"$tmp/dec.sh" <<'SH'
#!/bin/sh
# prints what it was given: its arguments and the bytes' count, then an ESC
printf 'decoded DataID %s: %s bytes\n' "$2" "$(wc -c | tr -d ' ')"
printf 'mode %s \033[31mred\n' "$1"
SH
# it hangs in a child of its own, which must be stopped with it
printf '#!/bin/sh\n(sleep 7; touch "%s/survived") &\nsleep 30\n' "$tmp" >"$tmp/slow.sh"
printf '#!/bin/sh\nexit 3\n' >"$tmp/fail.sh"
chmod +x "$tmp/dec.sh" "$tmp/slow.sh" "$tmp/fail.sh"
U=4C4C44A3-5555-3144-A151-249D146ED38D
"$kp" show --no-symbols --panic-data-decoder "$U=$tmp/dec.sh verbose" "$f" >"$tmp/d.out" 2>"$tmp/d.err"
check "$?" = 0 "a decoder: show exits 0"
check_grep "^      (decoded by its --panic-data-decoder)$" "$tmp/d.out" "  the entry is shown as its decoder prints it"
check_grep "^      decoded DataID 7: 59 bytes$" "$tmp/d.out" "  the bytes on stdin, the DataID as the last argument"
check_grep "^      mode verbose [\\]e\[31mred$" "$tmp/d.out" "  its words split without a shell, its output sanitised"
check_grep "^      0000  68 69 0a 00" "$tmp/d.out" "  other owners' entries are dumped as before"
t0=$(date +%s)
"$kp" show --no-symbols --panic-data-decoder "$U=$tmp/slow.sh" "$f" >"$tmp/s.out" 2>&1
dt=$(( $(date +%s) - t0 ))
check "$dt" -le 15 "a decoder that hangs is stopped (${dt} s)"
check_grep "no answer within 5000 ms" "$tmp/s.out" "  and said so"
check_grep "slow.sh: not run again: it gave no answer before" "$tmp/s.out" "  and not run again for the next entry"
# what it started would leave a mark at 7 s, 2 s after the decoder was stopped
sleep 2.5
check "$(ls "$tmp/survived" 2>/dev/null)" = "" "  what it started is stopped with it"
check_grep "^      FakeDriver state: ring 3 stalled$" "$tmp/s.out" "  the entry then shown as usual"
"$kp" show --no-symbols --panic-data-decoder "$U=$tmp/fail.sh" "$f" >"$tmp/f.out" 2>&1
check_grep "fail.sh exited 3" "$tmp/f.out" "a failing decoder: its exit status said"
"$kp" show --no-symbols --panic-data-decoder "$U=/nonexistent/decoder" "$f" >"$tmp/n.out" 2>&1
check_grep "cannot run it" "$tmp/n.out" "a decoder that cannot run: said"
"$kp" show --no-symbols --panic-data-decoder "not-a-uuid=x" "$f" >/dev/null 2>"$tmp/u.err"
check "$?" = 2 "--panic-data-decoder without UUID=COMMAND: a usage error"

# a DataID is the report's, never an option (issue 32 item 6): sort given
# "-o<path>" would write where the report chose
python3 - "$f" "$tmp" <<'PY'
import sys
src, d = sys.argv[1], sys.argv[2]
data = open(src).read()
i = data.index('  "ExtensiblePanicLog"')
j = data.index('\n', i) + 1
m = '{"4C4C44A3-5555-3144-A151-249D146ED38D": [{"DataID": "-o%s/pwned", "data": "QUJD"}, {"DataID": "12", "data": "QUJD"}, {"DataID": -4, "data": "QUJD"}, {"DataID": "a b", "data": "QUJD"}]}' % d
open(d + "/opt.ips", "w").write(data[:i] + '  "ExtensiblePanicLog": ' + m + ',\n' + data[j:])
PY
"$kp" show --no-symbols --panic-data-decoder "$U=sort" "$tmp/opt.ips" >"$tmp/o.out" 2>&1
check "$?" = 0 "a DataID like an option: show exits 0"
check "$(ls "$tmp/pwned" 2>/dev/null)" = "" "  the decoder never sees it: nothing written where the report chose"
check "$(grep -c "DataID is not a plain number or word: not passed, the decoder not run" "$tmp/o.out")" = 3 \
	"  said for each such DataID (an option, a negative number, a space)"
"$kp" show --no-symbols --panic-data-decoder "$U=$tmp/dec.sh x" "$tmp/opt.ips" >"$tmp/o2.out" 2>&1
check_grep "^      decoded DataID 12: 3 bytes$" "$tmp/o2.out" "  a plain DataID still reaches the decoder"

done_testing
