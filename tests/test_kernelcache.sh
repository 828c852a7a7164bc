#!/bin/sh
# test_kernelcache.sh: kernelcaches as symbol sources (issue 22).  The fixture
# kernel and kext assembled into an MH_FILESET kernelcache (make_kernelcache.py),
# plain, stripped, and in IM4P containers (LZSS, LZFSE, stored), and into the older
# prelinked form (the same, and hostile variants), given as --dsym with
# no dSYM anywhere: every frame of the demo report is named as
# llvm-symbolizer-19 names it from the binaries' own symbol tables; stripped,
# each frame is func_<start> of the function LC_FUNCTION_STARTS bounds
# (llvm-objdump-19 --function-starts); broken containers and entries are named
# errors and lose nothing else.
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
bin=$KP_FIXTURES/bin
rep=$KP_FIXTURES/reports/panic-full-2026-11-20-101500.0001.ips
kc=$tmp/kc
python3 "$KP_FIXTURES/make_kernelcache.py" "$kc" "$bin" arm64
check "$?" = 0 "make_kernelcache.py builds the fixtures"
# the binaries alone, with no dSYM beside them (llvm-symbolizer's symtab answers)
mkdir -p "$tmp/bare"
cp "$bin/fakekernel.arm64" "$bin/fakekext.arm64" "$tmp/bare/"
sym=$(command -v llvm-symbolizer-19 || true)
[ -n "$sym" ] || [ ! -x /usr/lib/llvm-19/bin/llvm-symbolizer ] || sym=/usr/lib/llvm-19/bin/llvm-symbolizer
od=$(command -v llvm-objdump-19 || true)
[ -n "$od" ] || [ ! -x /usr/lib/llvm-19/bin/llvm-objdump ] || od=/usr/lib/llvm-19/bin/llvm-objdump

# frames FILE.json: "uuid lookup_address source function" per symbolicated frame
frames() { python3 "$KP_TESTS_DIR/json_frames.py" "$1"; }

kernel_uuid=$(awk '$1 == "com.apple.kernel" {print $2}' "$kc/uuids.txt")
kext_uuid=$(awk '$1 == "com.kpbrowse.FakeDriver" {print $2}' "$kc/uuids.txt")
# the oracle: llvm-symbolizer-19 on the bare binaries at each lookup address
"$kp" show --json --dsym "$tmp/bare" "$rep" >"$tmp/bare.json" 2>/dev/null
frames "$tmp/bare.json" >"$tmp/bare.frames"
n=$(grep -c . "$tmp/bare.frames")
check "$n" -ge 6 "the demo report has symbolicated frames ($n)"
if [ -n "$sym" ]; then
	: >"$tmp/oracle"
	while read -r uuid addr src fn; do
		case $uuid in
		"$kernel_uuid") obj=$tmp/bare/fakekernel.arm64 ;;
		*) obj=$tmp/bare/fakekext.arm64 ;;
		esac
		"$sym" --obj="$obj" "$addr" | head -1 >>"$tmp/oracle"
	done <"$tmp/bare.frames"
	cut -d' ' -f4- "$tmp/bare.frames" >"$tmp/bare.names"
	cmp -s "$tmp/oracle" "$tmp/bare.names"
	check "$?" = 0 "the bare binaries' names are llvm-symbolizer-19's"
else
	skip "llvm-symbolizer-19 absent: the bare binaries' names not checked against it"
fi

for f in kernelcache kernelcache.im4p kernelcache.raw.im4p; do
	"$kp" show --json --dsym "$kc/$f" "$rep" >"$tmp/$f.json" 2>"$tmp/$f.err"
	check "$?" = 0 "$f: show exits 0"
	frames "$tmp/$f.json" >"$tmp/$f.frames"
	cmp -s "$tmp/bare.frames" "$tmp/$f.frames"
	check "$?" = 0 "$f: every frame named as from the binaries' symbol tables"
	check_grep "^$kext_uuid .* symtab FakeDriver::" "$tmp/$f.frames" "$f: the kext's frames from its fileset entry"
done

# the older prelinked form: the kernel an MH_EXECUTE, the kext whole in
# __PRELINK_TEXT (its file offsets from the cache's start, or from its own
# header: .rel), found through __PRELINK_INFO's XML; plain and in IM4P
for f in prelinked prelinked.rel prelinked.im4p; do
	"$kp" show --json --dsym "$kc/$f" "$rep" >"$tmp/$f.json" 2>"$tmp/$f.err"
	check "$?" = 0 "$f: show exits 0"
	frames "$tmp/$f.json" >"$tmp/$f.frames"
	cmp -s "$tmp/bare.frames" "$tmp/$f.frames"
	check "$?" = 0 "$f: every frame named as through the fileset cache"
	check_not_grep "warning" "$tmp/$f.err" "$f: no warning"
done
check_grep "^$kext_uuid .* symtab FakeDriver::" "$tmp/prelinked.frames" "prelinked: the kext's frames from its embedded Mach-O"
KPBROWSE_KERNELCACHE_PATH="$kc/prelinked" "$kp" symbols where "$kext_uuid" >"$tmp/pl.out" 2>&1
check "$?" = 0 "prelinked in KPBROWSE_KERNELCACHE_PATH: symbols where finds the kext"
# lookup on a whole kernelcache: the entry whose segments hold the address
# answers, from its own symbol table (the .slid caches move the kext's
# vmaddrs clear of the kernel's, as a real cache's entries are)
slide=0x104000
python3 -c 'import sys
for l in open(sys.argv[1]):
    u, a = l.split()[:2]
    print(a if u == sys.argv[2] else hex(int(a, 16) + int(sys.argv[3], 16)))' "$tmp/bare.frames" "$kernel_uuid" $slide >"$tmp/slid.addrs"
for v in "--kernelcache kernelcache.slid" "--dsym kernelcache.slid" "--kernelcache prelinked.slid"; do
	# shellcheck disable=SC2086
	set -- $v
	"$kp" lookup "$1" "$kc/$2" <"$tmp/slid.addrs" >"$tmp/slid.out" 2>"$tmp/slid.err"
	check "$?" = 0 "lookup $v: exit 0"
	awk 'NR % 3 == 1' "$tmp/slid.out" >"$tmp/slid.names"
	if [ -n "$sym" ]; then
		cmp -s "$tmp/oracle" "$tmp/slid.names"
		check "$?" = 0 "lookup $v: each address named by its entry, as llvm-symbolizer-19 names it"
	else
		cmp -s "$tmp/bare.names" "$tmp/slid.names"
		check "$?" = 0 "lookup $v: each address named by its entry, as show names its frame"
	fi
	check_grep "^FakeDriver::" "$tmp/slid.names" "lookup $v: the kext's addresses from the kext's entry"
done
# the x86_64 fixture (no x86 report: lookup names the kext's function by address)
python3 "$KP_FIXTURES/make_kernelcache.py" "$tmp/kc86" "$bin" x86_64
x86_kext=$(awk '$1 == "com.kpbrowse.FakeDriver" {print $2}' "$tmp/kc86/uuids.txt")
"$kp" symbols where --dsym "$tmp/kc86/prelinked" "$x86_kext" >"$tmp/pl86.out" 2>&1
check "$?" = 0 "x86_64 prelinked: symbols where finds the kext by its UUID"
# a prelinked cache that lies, made by the same script: the kext's source
# address far past the file, the XML cut short, the kext's UUID not the
# report's; each a named warning (or nothing named), the kernel still named
python3 - "$KP_FIXTURES" "$bin" "$tmp" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import make_kernelcache as m
kernel = open(sys.argv[2] + "/fakekernel.arm64", "rb").read()
kext = open(sys.argv[2] + "/fakekext.arm64", "rb").read()
kid = "com.kpbrowse.FakeDriver"
out = sys.argv[3]
def write(name, b):
    open(out + "/" + name, "wb").write(b)
write("pl.far", m.prelinked(kernel, kext, kid, False,
                            info=lambda i, s, n: m.prelink_info(i, s + 0x10000000, n)))
write("pl.cut", m.prelinked(kernel, kext, kid, False,
                            info=lambda i, s, n: m.prelink_info(i, s, n)[:-30]))
other = bytearray(kext)
for at, cmd, size in m.commands(other):
    if cmd == m.LC_UUID:
        other[at + 8] ^= 0xFF
write("pl.uuid", m.prelinked(kernel, bytes(other), kid, False))
# a million nested <array>s in a kext's entry (libplist recursed into them
# and every command died of a stack overflow)
deep = b"<key>Deep</key>" + b"<array>" * 1000000 + b"</array>" * 1000000
write("pl.deep", m.prelinked(kernel, kext, kid, False,
                             info=lambda i, s, n: m.prelink_info(i, s, n).replace(
                                 b"<dict ID=\"8\">", b"<dict ID=\"8\">" + deep)))
# after the kext, 20,000 IDREFs to one 100 kB dictionary: read again, 2 GB
refs = (b"<dict ID=\"100\"><key>Pad</key><string>" + b"x" * 100000 + b"</string></dict>" +
        b"<dict IDREF=\"100\"/>" * 20000 + b"</array></dict>")
write("pl.refs", m.prelinked(kernel, kext, kid, False,
                             info=lambda i, s, n: m.prelink_info(i, s, n).replace(b"</array></dict>", refs)))
PYEOF
kernel_frames=$(grep -c "^$kernel_uuid " "$tmp/bare.frames")
for v in far:"warning: prelinked kext com.kpbrowse.FakeDriver left out: its header is outside the file" \
	cut:"warning: prelinked kexts left out: " uuid: \
	deep:"warning: prelinked kexts left out: the prelink info nested deeper than 128 levels"; do
	f=pl.${v%%:*} want=${v#*:}
	"$kp" show --json --dsym "$tmp/$f" "$rep" >"$tmp/$f.json" 2>"$tmp/$f.err"
	check "$?" = 0 "$f: show still exits 0"
	if [ -n "$want" ]; then
		check_grep "$want" "$tmp/$f.err" "$f: the warning says what was left out and why"
	else
		check_not_grep "warning" "$tmp/$f.err" "$f: another kext's UUID is no error"
	fi
	frames "$tmp/$f.json" >"$tmp/$f.frames"
	check "$(grep -c "^$kernel_uuid .* symtab " "$tmp/$f.frames")" = "$kernel_frames" "$f: the kernel's frames still named"
	check "$(grep -c "^$kext_uuid .* symtab " "$tmp/$f.frames")" = 0 "$f: the kext's frames unnamed"
done
# the same cache merely lying in a dSYM folder (it crashed every command)
mkdir -p "$tmp/deepdir"
cp "$tmp/pl.deep" "$tmp/deepdir/"
KPBROWSE_DSYM_PATH="$tmp/deepdir" "$kp" show --json "$rep" >/dev/null 2>"$tmp/deepdir.err"
check "$?" = 0 "pl.deep in a KPBROWSE_DSYM_PATH folder: show exits 0"
KPBROWSE_DSYM_PATH="$tmp/deepdir" "$kp" symbols where "$kext_uuid" >"$tmp/deepdir.out" 2>&1
check "$?" -lt 128 "pl.deep in a KPBROWSE_DSYM_PATH folder: symbols where does not crash"
# IDREFs read again past four times the text: refused once it is, the
# kexts before it kept
"$kp" show --json --dsym "$tmp/pl.refs" "$rep" >"$tmp/pl.refs.json" 2>"$tmp/pl.refs.err"
check "$?" = 0 "pl.refs: show still exits 0"
check_grep "warning: prelinked kexts left out: the prelink info grows past" "$tmp/pl.refs.err" \
	"pl.refs: the warning says the IDREFs read too much"
frames "$tmp/pl.refs.json" >"$tmp/pl.refs.frames"
check "$(grep -c "^$kext_uuid .* symtab " "$tmp/pl.refs.frames")" -gt 0 "pl.refs: the kext before them still named"

# a kernelcache named by the config file (Kernelcache = FILE) or by
# KPBROWSE_KERNELCACHE_PATH (files or folders), with no --dsym: the same names
printf 'Kernelcache = %s\n' "$kc/kernelcache.im4p" >"$tmp/kc.config"
KPBROWSE_CONFIG="$tmp/kc.config" "$kp" show --json "$rep" >"$tmp/cfg.json" 2>/dev/null
frames "$tmp/cfg.json" >"$tmp/cfg.frames"
cmp -s "$tmp/bare.frames" "$tmp/cfg.frames"
check "$?" = 0 "the config's Kernelcache: every frame named as from the binaries' symbol tables"
KPBROWSE_KERNELCACHE_PATH="$kc" "$kp" symbols where "$kext_uuid" >"$tmp/kcp.out" 2>&1
check "$?" = 0 "KPBROWSE_KERNELCACHE_PATH (a folder): symbols where finds the kext"
check_grep "^  from: kernelcaches\$" "$tmp/kcp.out" "  from the kernelcaches source"

# --kernelcache FILE|FOLDER (repeatable, any command that takes --dsym):
# the first of the kernelcaches, before KPBROWSE_KERNELCACHE_PATH's
"$kp" show --json --kernelcache "$kc/kernelcache" "$rep" >"$tmp/kco.json" 2>/dev/null
check "$?" = 0 "show --kernelcache: exit 0"
frames "$tmp/kco.json" >"$tmp/kco.frames"
cmp -s "$tmp/bare.frames" "$tmp/kco.frames"
check "$?" = 0 "show --kernelcache: every frame named from the cache's symbol tables (source symtab)"
"$kp" show --json --kernelcache "$tmp/nowhere.kc" --kernelcache "$kc/prelinked" "$rep" >/dev/null 2>/dev/null
check "$?" = 2 "show with one --kernelcache missing: exit 2"
KPBROWSE_KERNELCACHE_PATH="$kc/prelinked" "$kp" symbols where --kernelcache "$kc/kernelcache.im4p" \
	--kernelcache "$kc" "$kext_uuid" >"$tmp/kco.out" 2>&1
check "$?" = 0 "symbols where --kernelcache: exit 0"
check_grep "^  tried: $kc/kernelcache.im4p, $kc, $kc/prelinked\$" "$tmp/kco.out" \
	"  the --kernelcache paths tried first, in order, then the environment's"
check_grep "^found: $kc/kernelcache.im4p\$" "$tmp/kco.out" "  found in the first --kernelcache"
mkdir -p "$tmp/kco-empty"
for cmd in "show $rep" "symbols where $kext_uuid" "lookup 0x10" "index --db $tmp/kco.db $tmp/kco-empty" \
	"dsym-for-uuid $kext_uuid"; do
	# shellcheck disable=SC2086
	set -- $cmd
	c=$1
	[ "$c" = symbols ] && { c="symbols where"; shift; }
	shift
	# shellcheck disable=SC2086
	"$kp" $c --kernelcache "$tmp/nowhere.kc" "$@" >/dev/null 2>"$tmp/kco.err"
	rc=$?
	check "$rc" = 2 "$c --kernelcache MISSING: exit 2, as with a missing --dsym"
	check "$(grep -c . "$tmp/kco.err"):$(grep -c "nowhere.kc" "$tmp/kco.err")" = "$(grep -c . "$tmp/kco.err"):1" \
		"  one line names the missing file ($(head -1 "$tmp/kco.err"))"
done
"$kp" lookup --kernelcache "$kc/kernelcache" --dsym "$kc/kernelcache" 0x10 >/dev/null 2>"$tmp/kco.err"
check "$?" = 2 "lookup with --dsym and --kernelcache: a usage error"

# LZFSE inside the IM4P (core/macho/lzfse.c, in every build): the
# reference encoder's output for this very kernelcache, committed
# (tests/fixtures/lzfse, scripts/make-lzfse-fixtures.sh)
lzk=$KP_FIXTURES/lzfse/kernelcache.lzfse
want=$(awk '$3 == "kernelcache" {print $1}' "$KP_FIXTURES/lzfse/SHA1SUMS")
have=$(sha1sum <"$kc/kernelcache" | cut -d' ' -f1)
check "$have" = "$want" "the committed LZFSE kernelcache is of today's fixtures (else: sh scripts/make-lzfse-fixtures.sh)"
python3 "$KP_FIXTURES/make_kernelcache.py" --wrap "$lzk" "$kc/kernelcache.lzfse.im4p"
"$kp" show --json --dsym "$kc/kernelcache.lzfse.im4p" "$rep" >"$tmp/lz.json" 2>"$tmp/lz.err"
frames "$tmp/lz.json" >"$tmp/lz.frames"
cmp -s "$tmp/bare.frames" "$tmp/lz.frames"
check "$?" = 0 "kernelcache in IM4P, LZFSE: every frame named as from the binaries"
# and, with Apple's `lzfse` command (scripts/build-lzfse.sh), a fresh encode
if command -v lzfse >/dev/null 2>&1; then
	lzfse -encode -i "$kc/kernelcache.stripped" -o "$tmp/kcs.lzfse" &&
		python3 "$KP_FIXTURES/make_kernelcache.py" --wrap "$tmp/kcs.lzfse" "$kc/kernelcache.stripped.lzfse.im4p"
	"$kp" show --json --dsym "$kc/kernelcache.stripped.lzfse.im4p" "$rep" >"$tmp/lzs.json" 2>/dev/null
	"$kp" show --json --dsym "$kc/kernelcache.stripped" "$rep" >"$tmp/plain-s.json" 2>/dev/null
	frames "$tmp/lzs.json" >"$tmp/lzs.frames"
	frames "$tmp/plain-s.json" >"$tmp/plain-s.frames"
	cmp -s "$tmp/plain-s.frames" "$tmp/lzs.frames" && [ -s "$tmp/lzs.frames" ]
	check "$?" = 0 "stripped kernelcache, freshly LZFSE-encoded: the frames of the plain one"
else
	skip "no lzfse command (scripts/build-lzfse.sh builds one): no fresh LZFSE encode checked"
fi

# an LZFSE payload that does not decode: named either way
printf 'bvx2\001\002\003\004garbage' >"$tmp/junk.lzfse"
python3 "$KP_FIXTURES/make_kernelcache.py" --wrap "$tmp/junk.lzfse" "$tmp/junk.im4p"
"$kp" lookup --dsym "$tmp/junk.im4p" 0x10 >/dev/null 2>"$tmp/junk.err"
check "$?" = 2 "a broken LZFSE payload: exit 2"
check_grep "LZFSE payload does not decode" "$tmp/junk.err" "a broken LZFSE payload: says it does not decode"
check "$(grep -c . "$tmp/junk.err")" = 1 "  in one line ($(head -1 "$tmp/junk.err"))"
# an LZVN block claiming 2 GiB: past the 1 GiB bound, before any allocation
printf 'bvxn\000\000\000\200\010\000\000\000\006\000\000\000\000\000\000\000bvx$' >"$tmp/huge.lzfse"
python3 "$KP_FIXTURES/make_kernelcache.py" --wrap "$tmp/huge.lzfse" "$tmp/huge.im4p"
"$kp" lookup --dsym "$tmp/huge.im4p" 0x10 >/dev/null 2>"$tmp/huge.err"
check "$?" = 2 "an LZFSE payload claiming 2 GiB: exit 2"
check_grep "decodes to more than 1024 MiB" "$tmp/huge.err" "  says it is past the bound ($(head -1 "$tmp/huge.err"))"
# the committed kernelcache cut inside its bvx2 payload: named, exit 2
head -c 3000 "$lzk" >"$tmp/cut.lzfse"
python3 "$KP_FIXTURES/make_kernelcache.py" --wrap "$tmp/cut.lzfse" "$tmp/cut.im4p"
"$kp" lookup --dsym "$tmp/cut.im4p" 0x10 >/dev/null 2>"$tmp/cut.err"
check "$?" = 2 "an LZFSE payload cut short: exit 2"
check_grep "LZFSE payload does not decode" "$tmp/cut.err" "  says it does not decode ($(head -1 "$tmp/cut.err"))"

# stripped: func_<start> from LC_FUNCTION_STARTS
"$kp" show --json --dsym "$kc/kernelcache.stripped" "$rep" >"$tmp/s.json" 2>/dev/null
frames "$tmp/s.json" >"$tmp/s.frames"
check "$(grep -c ' function-starts func_' "$tmp/s.frames")" = "$n" "stripped: every frame is func_<start> (source function-starts)"
if [ -n "$od" ]; then
	bad=0
	while read -r uuid addr src fn; do
		case $uuid in
		"$kernel_uuid") obj=$bin/fakekernel.arm64 ;;
		*) obj=$bin/fakekext.arm64 ;;
		esac
		want=$("$od" --macho --function-starts "$obj" | python3 -c '
import sys
a = int(sys.argv[1], 16)
starts = [int(l.split()[0], 16) for l in sys.stdin.readlines()[1:] if l.strip()]
print("func_%x" % max(s for s in starts if s <= a))' "$addr")
		[ "$fn" = "$want" ] || { bad=$((bad + 1)); echo "# $addr: $fn, want $want"; }
	done <"$tmp/s.frames"
	check "$bad" = 0 "stripped: each start is llvm-objdump-19's function start at or below the address"
else
	skip "llvm-objdump-19 absent: function starts not checked against it"
fi
# lookup on the stripped cache: the kernel entry's function starts, as show's
grep "^$kernel_uuid " "$tmp/s.frames" >"$tmp/s.kernel"
cut -d' ' -f2 "$tmp/s.kernel" | "$kp" lookup --kernelcache "$kc/kernelcache.stripped" 2>/dev/null |
	awk 'NR % 3 == 1' >"$tmp/s.lookup"
cut -d' ' -f4 "$tmp/s.kernel" | cmp -s - "$tmp/s.lookup"
check "$?" = 0 "lookup on a stripped kernelcache: the kernel entry's func_<start>, as show's"
"$kp" show --json --dsym "$kc/prelinked.stripped" "$rep" >"$tmp/ps.json" 2>/dev/null
frames "$tmp/ps.json" >"$tmp/ps.frames"
cmp -s "$tmp/s.frames" "$tmp/ps.frames"
check "$?" = 0 "prelinked, stripped: every frame the same func_<start> as the stripped fileset's"
"$kp" show --dsym "$kc/kernelcache.stripped" "$rep" >"$tmp/s.txt" 2>/dev/null
check_grep "func_[0-9a-f]* +0x[0-9a-f]" "$tmp/s.txt" "stripped: show text gives the offset into func_<start>"

# ipsw's symbol map beside a stripped cache names its functions (source
# map): here the kernel's own names at their addresses, as a signature run
# would find them (the fixture's kernel and kext share addresses, so only
# the kernel's frames are checked)
cp "$kc/kernelcache.stripped" "$kc/kc.mapped"
nm=$(command -v llvm-nm-19 || command -v llvm-nm || true)
[ -n "$nm" ] || [ ! -x /usr/lib/llvm-19/bin/llvm-nm ] || nm=/usr/lib/llvm-19/bin/llvm-nm
if [ -n "$nm" ]; then
	"$nm" -n --defined-only "$bin/fakekernel.arm64" | python3 -c '
import json, sys
m = {}
for l in sys.stdin:
    a, t, n = l.split()[:3]
    if int(a, 16) >= 0xc000:
        m[str(int(a, 16))] = n[1:] if n.startswith("_") else n
json.dump(m, open(sys.argv[1], "w"))' "$kc/kc.mapped.symbols.json"
	"$kp" show --json --dsym "$kc/kc.mapped" "$rep" >"$tmp/map.json" 2>"$tmp/map.err"
	frames "$tmp/map.json" | grep "^$kernel_uuid " >"$tmp/map.frames"
	grep "^$kernel_uuid " "$tmp/bare.frames" | sed 's/ symtab / map /' >"$tmp/map.want"
	cmp -s "$tmp/map.want" "$tmp/map.frames"
	check "$?" = 0 "a stripped cache with ipsw's symbols.json: the kernel's frames named from the map"
	"$kp" show --dsym "$kc/kc.mapped" "$rep" >"$tmp/map.txt" 2>/dev/null
	check_grep "panic_trap_to_debugger +0x8" "$tmp/map.txt" "  show gives the offset into the mapped function"
	python3 -c 'import json,sys; print(json.dumps([{"addr": k, "sym": v} for k, v in reversed(json.load(open(sys.argv[1])).items())]))' \
		"$kc/kc.mapped.symbols.json" >"$tmp/arr.json" && mv "$tmp/arr.json" "$kc/kc.mapped.symbols.json"
	"$kp" show --json --dsym "$kc/kc.mapped" "$rep" >"$tmp/map2.json" 2>/dev/null
	frames "$tmp/map2.json" | grep "^$kernel_uuid " >"$tmp/map2.frames"
	cmp -s "$tmp/map.want" "$tmp/map2.frames"
	check "$?" = 0 "  the array form ([{addr, sym}]), addresses descending, reads the same"
	printf '{"123": "x", ' >"$kc/kc.mapped.symbols.json"
	"$kp" show --json --dsym "$kc/kc.mapped" "$rep" >"$tmp/map3.json" 2>"$tmp/map3.err"
	check "$?" = 0 "a broken symbols.json: show still exits 0"
	check_grep "symbols.json: warning: symbol map left out: not JSON.*byte" "$tmp/map3.err" "  a warning names the file and the byte"
	frames "$tmp/map3.json" >"$tmp/map3.frames"
	check "$(grep -c ' function-starts func_' "$tmp/map3.frames")" = "$n" "  the cache still names every frame by its function starts"
else
	skip "llvm-nm-19 absent: symbol maps not checked"
fi

# this Mac's kernelcache kept for its panics: indexing a report whose kernel
# UUID is the running kernelcache's keeps a copy (content-addressed), once;
# cache list shows it; with the running one gone, the copy still names frames
cp "$kc/kernelcache.im4p" "$tmp/running.im4p"
export KPBROWSE_RUNNING_KERNELCACHE="$tmp/running.im4p"
main_cache=$KPBROWSE_CACHE_DIR
export KPBROWSE_CACHE_DIR="$tmp/cache-keep"   # its own: the kept copy serves every later lookup
mkdir -p "$tmp/mine"
cp "$rep" "$tmp/mine/"
"$kp" index --db "$tmp/k.db" "$tmp/mine" >"$tmp/keep.out" 2>&1
check "$?" = 0 "index with a matching running kernelcache: exit 0"
check_grep "Kept this Mac's kernelcache for its panics: .*kernelcaches/$kernel_uuid.kc" "$tmp/keep.out" \
	"  says it kept a copy, named by the kernel's UUID"
cmp -s "$tmp/running.im4p" "$KPBROWSE_CACHE_DIR/kernelcaches/$kernel_uuid.kc"
check "$?" = 0 "  the copy is the file as it was (IM4P)"
"$kp" cache list >"$tmp/list" 2>&1
check_grep "^$kernel_uuid *kc *$(wc -c <"$tmp/running.im4p" | tr -d ' ') .* kept " "$tmp/list" "  cache list shows it with its size"
cp "$rep" "$tmp/mine/again.ips.copy"
sed 's/exceeds buffer/exceeds its buffer/' "$rep" >"$tmp/mine/other.ips"
"$kp" index --db "$tmp/k.db" "$tmp/mine" >"$tmp/keep2.out" 2>&1
check_not_grep "Kept this Mac" "$tmp/keep2.out" "  kept once: a later index copies nothing"
rm -f "$tmp/running.im4p"
unset KPBROWSE_RUNNING_KERNELCACHE
"$kp" show --json "$rep" >"$tmp/kept.json" 2>/dev/null
frames "$tmp/kept.json" | grep "^$kernel_uuid " >"$tmp/kept.frames"
grep "^$kernel_uuid " "$tmp/bare.frames" >"$tmp/kept.want"
cmp -s "$tmp/kept.want" "$tmp/kept.frames"
check "$?" = 0 "  after the update (the running cache gone): the kept copy names the kernel's frames"
printf 'not a kernelcache' >"$tmp/fake.kc"
KPBROWSE_RUNNING_KERNELCACHE="$tmp/fake.kc" "$kp" index --db "$tmp/k2.db" "$tmp/mine" >"$tmp/keep3.out" 2>&1
check "$?" = 0 "a running kernelcache that is not one: index still exits 0"
check "$(ls "$KPBROWSE_CACHE_DIR/kernelcaches" | wc -l | tr -d ' ')" = 1 "  and nothing more is kept"
export KPBROWSE_CACHE_DIR="$main_cache"

# bad input: each a named error, nothing else lost
head -c 3000 "$kc/kernelcache.im4p" >"$tmp/cut.im4p"
"$kp" lookup --dsym "$tmp/cut.im4p" 0xc04c >/dev/null 2>"$tmp/cut.err"
check "$?" = 2 "a cut IM4P: exit 2"
check_grep "cut.im4p.*byte" "$tmp/cut.err" "a cut IM4P: named, with the byte"
python3 - "$kc/kernelcache.im4p" "$tmp/flip.im4p" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[-40] ^= 0x5A        # inside the LZSS data
open(sys.argv[2], "wb").write(b)
EOF
"$kp" lookup --dsym "$tmp/flip.im4p" 0xc04c >/dev/null 2>"$tmp/flip.err"
check "$?" = 2 "corrupt LZSS data: exit 2"
check_grep "complzss" "$tmp/flip.err" "corrupt LZSS data: says so"
python3 - "$kc/kernelcache" "$tmp/far.kc" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
ncmds = struct.unpack_from("<I", b, 16)[0]
at, seen = 32, 0
for _ in range(ncmds):
    cmd, size = struct.unpack_from("<2I", b, at)
    if cmd == 0x80000035:
        seen += 1
        if seen == 2:      # the kext's entry: its header far past the end
            struct.pack_into("<Q", b, at + 16, len(b) + 0x100000)
    at += size
open(sys.argv[2], "wb").write(b)
EOF
"$kp" show --json --dsym "$tmp/far.kc" "$rep" >"$tmp/far.json" 2>"$tmp/far.err"
check "$?" = 0 "a fileset entry outside the file: show still exits 0"
check_grep "warning: fileset entry com.kpbrowse.FakeDriver left out" "$tmp/far.err" \
	"a fileset entry outside the file: show warns, naming the entry"
frames "$tmp/far.json" >"$tmp/far.frames"
check "$(grep -c "^$kernel_uuid .* symtab " "$tmp/far.frames")" = "$(grep -c "^$kernel_uuid " "$tmp/bare.frames")" \
	"a fileset entry outside the file: the kernel's frames still named"
check "$(grep -c "^$kext_uuid .* symtab " "$tmp/far.frames")" = 0 "a fileset entry outside the file: the kext's frames unnamed"
"$kp" lookup --dsym "$tmp/far.kc" 0x10 >/dev/null 2>"$tmp/far2.err"
check_grep "com.kpbrowse.FakeDriver left out.*outside the file" "$tmp/far2.err" \
	"a fileset entry outside the file: lookup names the entry and why"
# a kernelcache of another build: nothing named, nothing wrong
sed "s/$kernel_uuid/4C4C44BD-5555-3144-A14B-0078EC5E3100/" "$rep" >"$tmp/other.ips"
"$kp" show --json --dsym "$kc/kernelcache" "$tmp/other.ips" >"$tmp/other.json" 2>/dev/null
frames "$tmp/other.json" >"$tmp/other.frames"
check "$(grep -c "^4C4C44BD-5555-3144-A14B-0078EC5E3100 " "$tmp/other.frames")" = 0 \
	"another build's kernel UUID: its frames stay unnamed"
"$kp" cache build "$kc/kernelcache" >/dev/null 2>"$tmp/cb.err"
check "$?" = 2 "cache build over a kernelcache: exit 2 (nothing to build)"
check_grep "no Mach-O file with DWARF" "$tmp/cb.err" "cache build over a kernelcache: says it has no DWARF"
# a kernelcache's names are on some Macs only (the running one's, a kept
# copy): the report groups the same with it as without it
mkdir -p "$tmp/grp"
cp "$rep" "$tmp/grp/"
gkey() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("select * from groups").fetchone()[1])' "$1"; }
"$kp" index --db "$tmp/g0.db" "$tmp/grp" >/dev/null 2>&1
"$kp" index --db "$tmp/g1.db" --kernelcache "$kc/kernelcache" "$tmp/grp" >/dev/null 2>&1
"$kp" index --db "$tmp/g2.db" --kernelcache "$kc/kernelcache.stripped" "$tmp/grp" >/dev/null 2>&1
k0=$(gkey "$tmp/g0.db") k1=$(gkey "$tmp/g1.db") k2=$(gkey "$tmp/g2.db")
check "${#k0}" = 40 "indexed without a kernelcache: a group key"
check "$k1" = "$k0" "indexed with the kernelcache: the same group key"
check "$k2" = "$k0" "indexed with the stripped kernelcache: the same group key"
done_testing
