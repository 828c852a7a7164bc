#!/bin/sh
# test_symbol_server.sh: the symbol-server source (core/symsrc/symhttp.c)
# against a throwaway HTTP server on 127.0.0.1 (tests/symserver.py, a free
# port, stopped on exit) serving the fixture dSYMs' DWARF files in each
# layout (native, unified, symstore), a bearer-token folder, a 404, a
# wrong-UUID file, a truncated body and a slow answer: `symbols where`
# trails, the negative cache, refusals that name the URL and the byte, the
# token never shown, and `show` naming frames from files it downloaded,
# both at once.  Skipped (counted) without python3 or libcurl.
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
bin=$KP_FIXTURES/bin
report=$KP_FIXTURES/reports/panic-full-2026-11-20-101500.0001.ips
unset KPBROWSE_DSYMFORUUID LLDB_APPLE_DSYMFORUUID_EXECUTABLE KPBROWSE_LIBCURL
unset KPBROWSE_SYMBOL_SERVER_TIMEOUT KPBROWSE_SYMBOL_SERVER_MAX_MB KPBROWSE_SYMBOL_SERVER_NEGATIVE_TTL
unset KPBROWSE_SYMBOL_SERVER_PARALLEL KP_TEST_SYMTOKEN
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
kext_arm=4C4C44A3-5555-3144-A151-249D146ED38D
kernel_arm=4C4C44BD-5555-3144-A14B-0078EC5E31E1
kernel_x86=4C4C44EF-5555-3144-A1CD-413F9846D32A
kext_x86=4C4C4449-5555-3144-A1F6-9DFF5C39A349
wrong=01234567-89AB-CDEF-0123-456789ABCDEF
trunc=11111111-2222-3333-4444-555555555555
slow=22222222-3333-4444-5555-666666666666
gone=33333333-4444-5555-6666-777777777777
token=kpTestToken7f3a9c
if ! command -v python3 >/dev/null 2>&1; then
	skip "python3 absent: no test server"
	done_testing
fi

# the tree: DWARF files under the layouts' paths
dwarf() { for f in "$bin/$1.dSYM/Contents/Resources/DWARF/"*; do echo "$f"; done; }
srv=$tmp/srv
put() {
	mkdir -p "$srv/$(dirname "$1")"
	cp "$2" "$srv/$1"
}
put native/4C4C/44A3/5555/3144/A151/249D146ED38D "$(dwarf fakekext.arm64)"
put unified/4c/4c44ef55553144a1cd413f9846d32a/debuginfo "$(dwarf fakekernel.x86_64)"
put symstore/_.dwarf/mach-uuid-sym-4c4c44bd55553144a14b0078ec5e31e1/_.dwarf "$(dwarf fakekernel.arm64)"
put private/4c/4c444955553144a1f69dff5c39a349/debuginfo "$(dwarf fakekext.x86_64)"
put native/0123/4567/89AB/CDEF/0123/456789ABCDEF "$(dwarf fakekernel.arm64)"
put native/1111/1111/2222/3333/4444/555555555555 "$(dwarf fakekernel.x86_64)"
put native/2222/2222/3333/4444/5555/666666666666 "$(dwarf fakekernel.x86_64)"
mkdir -p "$srv/native/4C4C/4449/5555/3144/A1F6"
{ cat "$(dwarf fakekext.x86_64)"; head -c 2097152 /dev/zero; } >"$srv/native/4C4C/4449/5555/3144/A1F6/9DFF5C39A349"
put trickle/4c/4c44bd55553144a14b0078ec5e31e1/debuginfo "$(dwarf fakekernel.arm64)"
put par/4c/4c44a355553144a151249d146ed38d/debuginfo "$(dwarf fakekext.arm64)"
put par/4c/4c44bd55553144a14b0078ec5e31e1/debuginfo "$(dwarf fakekernel.arm64)"
cat >"$srv/.behaviour" <<EOF
/native/1111/1111/2222/3333/4444/555555555555 truncate 3000
/native/2222/2222/3333/4444/5555/666666666666 slow 4
/trickle/4c/4c44bd55553144a14b0078ec5e31e1/debuginfo trickle 200
/par/4c/4c44a355553144a151249d146ed38d/debuginfo slow 1
/par/4c/4c44bd55553144a14b0078ec5e31e1/debuginfo slow 1
EOF
log=$tmp/server.log
python3 "$KP_TESTS_DIR/symserver.py" --root "$srv" --port-file "$tmp/port" --log "$log" \
	--token "$token" --lifetime 240 &
spid=$!
trap 'kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
for _ in $(seq 300); do
	[ -s "$tmp/port" ] && break
	kill -0 "$spid" 2>/dev/null || break
	sleep 0.1
done
if [ ! -s "$tmp/port" ]; then
	_notok "the test server started"
	done_testing
fi
port=$(cat "$tmp/port")
base=http://127.0.0.1:$port
: >"$log"

cat >"$tmp/config" <<EOF
# three servers, one a layout
SymbolServer = $base/native
SymbolServer = $base/unified/
SymbolServerLayout = unified
SymbolServer = $base/symstore
SymbolServerLayout = symstore
EOF
export KPBROWSE_CONFIG="$tmp/config"
dl=$tmp/cache/downloads
# hits PATH: requests the server saw for it
hits() { grep -c "^start [0-9.]* $1 " "$log"; }

"$kp" symbols where $kext_arm >"$tmp/w1" 2>&1
rc=$?
if grep -q "cannot load libcurl\|built without libcurl" "$tmp/w1"; then
	skip "libcurl absent: $(grep -o 'cannot load libcurl[^;]*\|built without libcurl' "$tmp/w1" | head -1)"
	done_testing
fi
check "$rc" = 0 "native layout: found"
check_grep "^  from: symbol servers\$" "$tmp/w1" "native layout: from the symbol servers"
check_grep "^  tried: $base/native/4C4C/44A3/5555/3144/A151/249D146ED38D\$" "$tmp/w1" "native layout: the URL asked"
check_grep "^  said: server 1: downloaded (" "$tmp/w1" "native layout: server 1 said downloaded"
check_grep "^found: $dl/$kext_arm\$" "$tmp/w1" "native layout: the file in the cache folder's downloads"
cmp -s "$dl/$kext_arm" "$(dwarf fakekext.arm64)"
check "$?" = 0 "native layout: the download is the DWARF file, byte for byte"
check "$(ls -A "$dl" | grep -c '^\.')" = 0 "no temporary file left"

"$kp" symbols where $kext_arm >"$tmp/w1b" 2>&1
check_grep "^  said: found (downloaded before)\$" "$tmp/w1b" "again: answered from the download"
check "$(hits /native/4C4C/44A3/5555/3144/A151/249D146ED38D)" = 1 "again: the server not asked"

"$kp" symbols where $kernel_x86 >"$tmp/w2" 2>&1
check "$?" = 0 "unified layout: found"
check_grep "server 1: not on the server (HTTP 404).*; server 2: downloaded" "$tmp/w2" "unified layout: server 1 a 404, server 2 has it"
check_grep "$base/unified/4c/4c44ef55553144a1cd413f9846d32a/debuginfo" "$tmp/w2" "unified layout: its URL"
check_grep "^  kind: dSYM, x86_64\$" "$tmp/w2" "unified layout: the x86_64 dSYM"

"$kp" symbols where $kernel_arm >"$tmp/w3" 2>&1
check "$?" = 0 "symstore layout: found"
check_grep "$base/symstore/_.dwarf/mach-uuid-sym-4c4c44bd55553144a14b0078ec5e31e1/_.dwarf" "$tmp/w3" "symstore layout: its URL"
check_grep "server 3: downloaded" "$tmp/w3" "symstore layout: server 3 has it"

# a 404: remembered, not asked again until it expires
"$kp" symbols where $gone >"$tmp/w4" 2>&1
check "$?" = 1 "404: not found, exit 1"
check_grep "server 1: not on the server (HTTP 404); not asked again for 60 min" "$tmp/w4" "404: said, with the negative cache's time"
"$kp" symbols where $gone >"$tmp/w4b" 2>&1
check_grep "server 1: not on the server (negative cache; asked again in" "$tmp/w4b" "404 again: the negative cache answers"
check "$(hits /native/3333/3333/4444/5555/6666/777777777777)" = 1 "404 again: the server not asked"
sleep 2
KPBROWSE_SYMBOL_SERVER_NEGATIVE_TTL=1 "$kp" symbols where $gone >"$tmp/w4c" 2>&1
check "$(hits /native/3333/3333/4444/5555/6666/777777777777)" = 2 "404: asked again once the entry expired"

# a file of another UUID: refused, never put in place, remembered
"$kp" symbols where $wrong >"$tmp/w5" 2>&1
check "$?" = 1 "wrong UUID: not found"
check_grep "^  said: server 1: refused: the file holds UUID $kernel_arm, not this one" "$tmp/w5" "wrong UUID: refused, naming the UUID it holds"
check_grep "^  tried: $base/native/0123/4567/89AB/CDEF/0123/456789ABCDEF," "$tmp/w5" "wrong UUID: the URL named"
check "$(ls "$dl" | grep -c "$wrong")" = 0 "wrong UUID: no file put in place"
"$kp" symbols where $wrong >"$tmp/w5b" 2>&1
check_grep "^  said: server 1: refused: the file holds UUID $kernel_arm, not this one (negative cache; asked again in" "$tmp/w5b" \
	"wrong UUID again: the negative cache says it was refused, not \"not on the server\""

# a truncated body: refused at its byte, not remembered
"$kp" symbols where $trunc >"$tmp/w6" 2>&1
check "$?" = 1 "truncated: not found"
size=$(wc -c <"$(dwarf fakekernel.x86_64)" | tr -d ' ')
check_grep "server 1: refused: truncated: the body ended at byte 3000 of $size" "$tmp/w6" "truncated: refused, naming the byte"
check_grep "^  tried: $base/native/1111/1111/2222/3333/4444/555555555555," "$tmp/w6" "truncated: the URL named"
check "$(ls "$dl" | grep -c "$trunc")" = 0 "truncated: no file put in place"
check "$(ls -A "$dl" | grep -c '^\.')" = 0 "truncated: no temporary file left"
"$kp" symbols where $trunc >/dev/null 2>&1
check "$(hits /native/1111/1111/2222/3333/4444/555555555555)" = 2 "truncated: asked again next time"

# a slow answer: the timeout
start=$(date +%s)
KPBROWSE_SYMBOL_SERVER_TIMEOUT=1 "$kp" symbols where $slow >"$tmp/w7" 2>&1
took=$(($(date +%s) - start))
check_grep "server 1: timed out after 1 s (KPBROWSE_SYMBOL_SERVER_TIMEOUT)" "$tmp/w7" "slow: timed out"
check "$took" -lt 4 "slow: given up before the answer came (${took} s)"
check "$(ls "$dl" | grep -c "$slow")" = 0 "slow: no file"

# the size limit: a 2 MiB file (the DWARF, then zeros) past a 1 MiB limit
KPBROWSE_SYMBOL_SERVER_MAX_MB=1 "$kp" symbols where $kext_x86 >"$tmp/w8" 2>&1
check "$?" = 1 "size limit: not found"
check_grep "server 1: refused: larger than the limit of 1 MiB (KPBROWSE_SYMBOL_SERVER_MAX_MB)" "$tmp/w8" "size limit: refused"
check "$(ls -A "$dl" | grep -c "$kext_x86")" = 0 "size limit: no file, no temporary"
"$kp" symbols where $kext_x86 >"$tmp/w8b" 2>&1
check "$?" = 0 "size limit: the same file within the default limit: found"

# a bearer token from the environment: sent, never shown
rm -rf "$tmp/cache"
cat >"$tmp/config.tok" <<EOF
SymbolServer = $base/private
SymbolServerLayout = unified
SymbolServerTokenEnv = KP_TEST_SYMTOKEN
EOF
KPBROWSE_CONFIG="$tmp/config.tok" "$kp" symbols where $kext_x86 >"$tmp/t1" 2>&1
check "$?" = 1 "token: its variable unset: not found"
check_grep "HTTP 401 (SymbolServerTokenEnv: KP_TEST_SYMTOKEN is not set: asked without a token)" "$tmp/t1" "token: unset variable said, the 401 too"
KP_TEST_SYMTOKEN=$token KPBROWSE_CONFIG="$tmp/config.tok" "$kp" symbols where $kext_x86 >"$tmp/t2" 2>&1
check "$?" = 0 "token: found with the token"
check "$(grep -c "^start [0-9.]* /private/.* auth=yes" "$log")" = 1 "token: sent as Authorization: Bearer"
# a token in the config and a password in the URL: both masked in the trail
rm -rf "$tmp/cache"
cat >"$tmp/config.tok2" <<EOF
SymbolServer = http://kp:$token@127.0.0.1:$port/private
SymbolServerLayout = unified
SymbolServerToken = $token
EOF
KPBROWSE_CONFIG="$tmp/config.tok2" "$kp" symbols where $kernel_arm >"$tmp/t3" 2>&1
check_grep "^  tried: http://kp:\*\*\*@127.0.0.1:$port/private/4c/4c44bd55553144a14b0078ec5e31e1/debuginfo\$" "$tmp/t3" "token: the URL's password masked"
KPBROWSE_CONFIG="$tmp/config.tok2" "$kp" show --json "$report" >"$tmp/t4" 2>&1
if grep -rq "$token" "$tmp/t1" "$tmp/t2" "$tmp/t3" "$tmp/t4" "$tmp/cache"; then
	_notok "token: never in a trail, show --json, or the cache folder"
else
	_ok "token: never in a trail, show --json, or the cache folder"
fi

# show: every frame's image fetched at once (both requests under way
# together), then named from the downloads
rm -rf "$tmp/cache"
cat >"$tmp/config.par" <<EOF
SymbolServer = $base/par
SymbolServerLayout = unified
EOF
: >"$log"
KPBROWSE_CONFIG="$tmp/config.par" "$kp" show "$report" >"$tmp/s1" 2>"$tmp/s1.err"
check "$?" = 0 "show: exit 0"
check "$(wc -c <"$tmp/s1.err" | tr -d ' ')" = 0 "show: nothing on stderr"
check_grep "kernel + 0x4c  panic_trap_to_debugger (/kpbrowse/fixtures/src/fakekernel.c:62)" "$tmp/s1" "show: a kernel frame named from the server's dSYM"
check_grep "com.kpbrowse.FakeDriver + 0x1f0  validateReport(" "$tmp/s1" "show: a kext frame named from the server's dSYM"
# overlap: the second request started before the first ended
python3 - "$log" <<'EOF'
import sys
ev = [l.split() for l in open(sys.argv[1])]
starts = sorted(float(e[1]) for e in ev if e[0] == "start")
ends = sorted(float(e[1]) for e in ev if e[0] == "end")
sys.exit(0 if len(starts) == 2 and starts[1] < ends[0] else 1)
EOF
check "$?" = 0 "show: the two downloads ran at the same time"

# a server that trickles a byte a second (issue 30 item 4): show ends at
# the report's deadline, a transfer under the minimum speed ends by itself
printf 'SymbolServer = %s/trickle\nSymbolServerLayout = unified\n' "$base" >"$tmp/config.trickle"
rm -rf "$tmp/cache"
bounded 60 env KPBROWSE_CONFIG="$tmp/config.trickle" KPBROWSE_SYMBOL_DEADLINE=3 KPBROWSE_SYMBOL_SERVER_MIN_SPEED=0 \
	"$kp" show "$report" >"$tmp/tr1" 2>"$tmp/tr1.err"
check "$?:$to" = 0:0 "trickle: show exits 0"
check "$took" -le 10 "  within the report's deadline of 3 s ($took s; the transfer takes 200 s)"
check_grep "kernel + 0x4c" "$tmp/tr1" "  the report shown"
mkdir -p "$tmp/one"
cp "$report" "$tmp/one/"
bounded 60 env KPBROWSE_CONFIG="$tmp/config.trickle" KPBROWSE_SYMBOL_DEADLINE=3 KPBROWSE_SYMBOL_SERVER_MIN_SPEED=0 \
	"$kp" index --db "$tmp/one.sqlite3" "$tmp/one" >"$tmp/tr3" 2>&1
check "$?:$to" = 0:0 "trickle: index of the report exits 0"
check "$took" -le 10 "  within the report's deadline of 3 s ($took s)"
bounded 60 env KPBROWSE_CONFIG="$tmp/config.trickle" KPBROWSE_SYMBOL_SERVER_MIN_SPEED=100/2 \
	"$kp" symbols where $kernel_arm >"$tmp/tr2" 2>&1
check "$?:$to" = 1:0 "trickle: symbols where: not found"
check "$took" -le 10 "  under the minimum speed (100 bytes/s for 2 s): given up ($took s)"
check_grep "^  said: too slow: under 100 bytes/s for 2 s (KPBROWSE_SYMBOL_SERVER_MIN_SPEED), stopped at byte" "$tmp/tr2" "  and says so"

# the downloads' cap (issue 32 item 4): 2 MiB files (DWARF, then zeros)
# under a cap of 5 MiB: the least recently used download goes for a third
big() { mkdir -p "$srv/big/$2"; { cat "$(dwarf "$1")"; head -c 2097152 /dev/zero; } >"$srv/big/$2/debuginfo"; }
big fakekext.arm64 4c/4c44a355553144a151249d146ed38d
big fakekernel.arm64 4c/4c44bd55553144a14b0078ec5e31e1
big fakekernel.x86_64 4c/4c44ef55553144a1cd413f9846d32a
printf 'SymbolServer = %s/big\nSymbolServerLayout = unified\n' "$base" >"$tmp/config.big"
rm -rf "$tmp/cache"
export KPBROWSE_CONFIG="$tmp/config.big" KPBROWSE_SYMBOL_SERVER_CACHE_MB=5
"$kp" symbols where $kext_arm >/dev/null 2>&1
"$kp" symbols where $kernel_arm >/dev/null 2>&1
"$kp" symbols where $kext_arm >"$tmp/c1" 2>&1
check_grep "found (downloaded before)" "$tmp/c1" "cap: a download used again (its access time now)"
"$kp" symbols where $kernel_x86 >"$tmp/c2" 2>&1
check "$?" = 0 "cap: a third download that would pass it: found"
check_grep "downloaded ([0-9]* bytes; 1 older download removed for room under the cap)" "$tmp/c2" "  and says what it removed"
check "$(ls "$dl" | tr '\n' ' ')" = "$kext_arm $kernel_x86 " "  the least recently used went, the one used again stayed"
held=$(cat "$dl"/* | wc -c | tr -d ' ')
check "$held" -le 5242880 "  the folder within the cap ($held bytes)"
"$kp" cache list >"$tmp/c3" 2>&1
check_grep "^$kernel_x86 *dl *[0-9]* .* fetched $dl/$kernel_x86\$" "$tmp/c3" "cache list: the downloads"
check_grep "^downloads: 4.0 MiB of the 5 MiB cap (KPBROWSE_SYMBOL_SERVER_CACHE_MB)\$" "$tmp/c3" "cache list: their total and the cap"
# a temporary of a live writer is kept and counted; with it the cap is full
head -c 2621440 /dev/zero >"$dl/.$trunc.$$-0.tmp"
KPBROWSE_SYMBOL_SERVER_CACHE_MB=4 "$kp" symbols where $kernel_arm >"$tmp/c4" 2>&1
check "$?" = 1 "cap full with files in use: not found"
check_grep "refused: no room under the downloads' cap of 4 MiB (KPBROWSE_SYMBOL_SERVER_CACHE_MB): 2.5 MiB are downloads in use or under way" "$tmp/c4" \
	"  refused, saying so"
check "$(ls -A "$dl" | grep -c "^\.$trunc\.$$-0\.tmp\$")" = 1 "  the live writer's temporary kept"
check "$(ls "$dl" | tr '\n' ' ')" = "$kext_arm $kernel_x86 " "  no download removed in vain"
rm -f "$dl/.$trunc.$$-0.tmp"
# a download killed by a signal leaves its temporary; the next run removes
# it, and one of a writer that is gone, and an old one of an older kpbrowse
KPBROWSE_CONFIG="$tmp/config" "$kp" symbols where $slow >/dev/null 2>&1 &
kpid=$!
for _ in $(seq 50); do
	ls -A "$dl" | grep -q "^\.$slow\.$kpid-" && break
	sleep 0.1
done
kill -9 "$kpid"
wait "$kpid" 2>/dev/null
check "$(ls -A "$dl" | grep -c "^\.$slow\.$kpid-[0-9]*\.tmp\$")" = 1 "killed mid-download: its temporary left behind"
dead=$(sh -c 'echo $$')
: >"$dl/.$gone.$dead-0.tmp"
: >"$dl/.$gone.Ab12Cd"
python3 -c 'import os, sys, time; t = time.time() - 7200; os.utime(sys.argv[1], (t, t))' "$dl/.$gone.Ab12Cd"
: >"$dl/.$wrong.x9Yz0Q"
KPBROWSE_CONFIG="$tmp/config" "$kp" symbols where $trunc >/dev/null 2>&1
check "$(ls -A "$dl" | grep -c '^\.')" = 1 "the next download removed the dead writers' temporaries, old and new names"
check "$(ls -A "$dl" | grep -c "^\.$wrong\.x9Yz0Q\$")" = 1 "  but not an older kpbrowse's that may still be written"
unset KPBROWSE_SYMBOL_SERVER_CACHE_MB
export KPBROWSE_CONFIG="$tmp/config"

# libcurl that cannot be loaded: said in the trail, nothing else breaks
rm -rf "$tmp/cache"
KPBROWSE_LIBCURL=/nonexistent/libcurl.so.4 "$kp" symbols where $kext_arm >"$tmp/l1" 2>&1
check "$?" = 1 "no libcurl: not found"
check_grep "^  said: server 1: cannot load libcurl (/nonexistent/libcurl.so.4)" "$tmp/l1" "no libcurl: the trail says why"

# the CLI is not linked with libcurl: it pays nothing for it at start-up (issue 25)
if command -v ldd >/dev/null 2>&1; then
	if ldd "$kp" 2>/dev/null | grep -q curl; then
		_notok "kpbrowse is not linked with libcurl"
	else
		_ok "kpbrowse is not linked with libcurl"
	fi
else
	skip "ldd absent: kpbrowse's libraries not checked"
fi
done_testing
