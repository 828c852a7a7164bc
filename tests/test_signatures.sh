#!/bin/sh
# test_signatures.sh: symbolicator's signature files name a stripped
# kernelcache's functions (issue 22 item 3b).  A kernel and a kext
# (tests/data/signatures/*.c) are built here with clang-19 and ld64.lld-19
# for arm64 (the kernel's string references relaxed to adr, the kext's kept
# as adrp+add) and x86_64 (lea [rip]), assembled into a fileset kernelcache
# (make_kernelcache.py) whose entries are stripped, and a report with a
# frame in each function is shown with --signatures: every name from a
# signature is the one llvm-symbolizer-19 gives from the unstripped binary;
# ties, functions with two callers, files for another version or target
# name nothing; broken files are one named warning each and lose nothing
# else.  Skipped (counted) without the LLVM 19 tools; checks the message in
# a build without Capstone.
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
src=$KP_TESTS_DIR/data/signatures
rep0=$KP_FIXTURES/reports/panic-full-2026-11-20-101500.0001.ips

tool() { command -v "$1-19" 2>/dev/null || { [ -x "/usr/lib/llvm-19/bin/$1" ] && echo "/usr/lib/llvm-19/bin/$1"; }; }
CC=$(tool clang) LD=$(tool ld64.lld) SYM=$(tool llvm-symbolizer) OD=$(tool llvm-objdump)
if [ -z "$CC" ] || [ -z "$LD" ] || [ -z "$SYM" ] || [ -z "$OD" ]; then
	skip "LLVM 19 tools absent (clang-19, ld64.lld-19, llvm-symbolizer-19, llvm-objdump-19)"
	done_testing
fi

# build ARCH: $tmp/bin.ARCH/fakekernel.ARCH and fakekext.ARCH, and the
# kernelcache from them in $tmp/kc.ARCH
build() {
	a=$1 b=$tmp/bin.$1
	mkdir -p "$b"
	for m in kernel kext; do
		"$CC" -target "$a-apple-macos13" -O2 -ffreestanding -fno-builtin -fno-stack-protector \
			-c "$src/sig$m.c" -o "$b/$m.o" || return 1
		ex=""
		[ "$a" = arm64 ] && ex="-rename_section __TEXT __text __TEXT_EXEC __text"
		[ "$a" = arm64 ] && [ $m = kext ] && ex="$ex -ignore_optimization_hints"
		# shellcheck disable=SC2086
		"$LD" -arch "$a" -platform_version macos 13.0 13.0 -dylib -undefined dynamic_lookup \
			-install_name "/sig/$m" $ex -o "$b/fake$m.$a" "$b/$m.o" || return 1
	done
	python3 "$KP_FIXTURES/make_kernelcache.py" "$tmp/kc.$a" "$b" "$a" >/dev/null
}

# sigfile PATH TARGET MIN MAX SIGNATURES-JSON
sigfile() {
	mkdir -p "$(dirname "$1")"
	printf '{"target": "%s", "total": 1, "version": {"min": "%s", "max": "%s"}, "signatures": %s}\n' \
		"$2" "$3" "$4" "$5" >"$1"
}
a() { printf '{"string": "%s", "segment": "__TEXT", "section": "__cstring", "caller": %s}' "$1" "${2:-null}"; }
s() { printf '{"args": 0, "anchors": [%s], "symbol": "%s", "prototype": "", "backtrace": [%s]}' "$1" "$2" "${3:-}"; }

sigs=$tmp/sigs/kernel/23
sigfile "$sigs/xnu.json" com.apple.kernel 23.0.0 23.6.0 "[
 $(s "$(a 'vm_fault: bad address in map' '"_kp_log"')" _vm_fault_check '"_vm_fault_enter", "_trap_entry", "_kernel_bootstrap"'),
 $(s "$(a 'ipc_port_release: refcount underflow'), $(a 'ipc: port is dead')" _ipc_port_release),
 $(s "$(a 'sched_tick: runq overflow' '"_kp_log"')" _sched_tick),
 $(s "$(a 'shared warning')" _decoy_tie),
 $(s "$(a 'lck: spin timeout')" _lock_grab '"_two_callers"'),
 $(s "$(a 'not in this kernel')" _absent)]"
sigfile "$sigs/kexts/SigDriver.json" com.kpbrowse.FakeDriver 23.0.0 23.9.9 "[
 $(s "$(a 'SigDriver: io timeout on channel %d' '"_drv_log"')" _drv_io '"_drv_start"'),
 $(s "$(a 'SigDriver: stopping %d'), $(a 'SigDriver: stopped')" _drv_stop)]"
# the version and target filters: either, if used, would clash with a name above
sigfile "$sigs/xnu_old.json" com.apple.kernel 22.0.0 22.6.0 "[$(s "$(a 'sched_tick: runq overflow')" _wrong_version)]"
sigfile "$sigs/kexts/Other.json" com.apple.driver.Other 23.0.0 23.6.0 "[$(s "$(a 'ipc: port is dead')" _wrong_target)]"
# bad input
printf '{"target": "com.apple.kernel", "signatures": [{"anchors": [' >"$sigs/kexts/broken.json"
sigfile "$sigs/kexts/types.json" com.apple.kernel 23.0.0 23.6.0 '[{"anchors": [{"string": 5}], "symbol": "_x"}]'
sigfile "$sigs/kexts/huge.json" com.apple.kernel 23.0.0 23.6.0 \
	"[$(s "$(a "$(head -c 5000 /dev/zero | tr '\0' x)")" _huge)]"
sigfile "$sigs/kexts/badver.json" com.apple.kernel 23.x 24 "[$(s "$(a 'sched_tick: runq overflow')" _bad_version)]"
sigfile "$sigs/kexts/nosect.json" com.apple.kernel 23.0.0 23.6.0 \
	'[{"anchors": [{"string": "sched_tick: runq overflow", "segment": "__TEXT", "section": "__nope"}], "symbol": "_nosect"}]'

# report ARCH: a panic of the Mac that ran Darwin 23.4.0 with one thread per
# function of the two binaries, a frame 4 bytes into it
report() {
	python3 - "$rep0" "$tmp/kc.$1/uuids.txt" "$tmp/bin.$1" "$1" "$OD" >"$tmp/rep.$1.ips" <<'EOF'
import json, struct, subprocess, sys
rep, uuids, bindir, arch, od = sys.argv[1:]
u = dict(l.split() for l in open(uuids))
def seg(path):
    b = open(path, "rb").read()
    ncmds = struct.unpack_from("<I", b, 16)[0]
    at, segs = 32, {}
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<2I", b, at)
        if cmd == 0x19:
            segs[b[at + 8:at + 24].rstrip(b"\0").decode()] = struct.unpack_from("<Q", b, at + 24)[0]
        at += size
    return segs.get("__TEXT_EXEC", segs.get("__TEXT", 0))
head, body = open(rep).read().split("\n", 1)
d = json.loads(body)
head = head.replace("macOS 26.1 (25B78)", "macOS 14.4 (23E214)")
d["build"] = "macOS 14.4 (23E214)"
d["kernel"] = d["kernel"].replace("25.1.0", "23.4.0")
d["panicString"] = d["panicString"].replace("25.1.0", "23.4.0")
for old, new in (("4C4C44BD-5555-3144-A14B-0078EC5E31E1", u["com.apple.kernel"]),
                 ("4C4C44A3-5555-3144-A151-249D146ED38D", u["com.kpbrowse.FakeDriver"])):
    d["panicString"] = d["panicString"].replace(old, new)
d["binaryImages"] = [[u["com.apple.kernel"].lower(), 18446741874803818496, "T"],
                     [u["com.kpbrowse.FakeDriver"].lower(), 18446741874806506448, "T"]]
threads = {}
for img, name in ((0, "fakekernel"), (1, "fakekext")):
    path = "%s/%s.%s" % (bindir, name, arch)
    out = subprocess.run([od, "--macho", "--function-starts", path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        try:
            start = int(line.split()[0], 16)
        except (ValueError, IndexError):
            continue
        tid = 1000 + len(threads)
        threads[str(tid)] = {"id": tid, "state": ["TH_RUN"], "schedPriority": 80, "basePriority": 80,
                             "kernelFrames": [[img, start + 4 - seg(path)]]}
d["processByPid"] = {"0": {"pid": 0, "procname": "kernel_task", "threadById": threads}}
print(head)
print(json.dumps(d, indent=1))
EOF
}

# frames FILE.json: "uuid lookup_address source function" per symbolicated frame
frames() { python3 "$KP_TESTS_DIR/json_frames.py" "$1"; }

if "$kp" show --disasm 1 /dev/null 2>&1 | grep -q "without Capstone"; then
	build arm64 && report arm64
	check "$?" = 0 "no Capstone: the fixtures build"
	"$kp" show --json --dsym "$tmp/kc.arm64/kernelcache.stripped" --signatures "$tmp/sigs" \
		"$tmp/rep.arm64.ips" >"$tmp/nocs.json" 2>"$tmp/nocs.err"
	check "$?" = 0 "no Capstone: show exits 0"
	check "$(grep -c "without Capstone" "$tmp/nocs.err")" = 1 "no Capstone: says once that signatures need it"
	frames "$tmp/nocs.json" >"$tmp/nocs.frames"
	check_not_grep " signature " "$tmp/nocs.frames" "no Capstone: no name from signatures"
	check_grep " function-starts func_" "$tmp/nocs.frames" "no Capstone: the function starts still answer"
	"$kp" symbols where --kernelcache "$tmp/kc.arm64/kernelcache.stripped" --signatures "$tmp/sigs" \
		"$(awk '$1 == "com.apple.kernel" {print $2}' "$tmp/kc.arm64/uuids.txt")" >"$tmp/nocs.where" 2>&1
	check_grep "^  said: left out (matching them needs Capstone): this kpbrowse was built without Capstone" "$tmp/nocs.where" \
		"no Capstone: symbols where says the signatures are left out"
	done_testing
fi

for arch in arm64 x86_64; do
	build "$arch" && report "$arch"
	check "$?" = 0 "$arch: kernel, kext, kernelcache and report built"
	kc=$tmp/kc.$arch
	kuuid=$(awk '$1 == "com.apple.kernel" {print $2}' "$kc/uuids.txt")
	"$kp" show --json --dsym "$kc/kernelcache.stripped" --signatures "$tmp/sigs" "$tmp/rep.$arch.ips" \
		>"$tmp/$arch.json" 2>"$tmp/$arch.err"
	check "$?" = 0 "$arch: show --signatures exits 0"
	frames "$tmp/$arch.json" >"$tmp/$arch.frames"
	# the truth: llvm-symbolizer-19 on the unstripped binaries
	bad=0 named=0
	while read -r uuid addr source fn; do
		[ "$source" = signature ] || continue
		named=$((named + 1))
		obj=$tmp/bin.$arch/fakekext.$arch
		[ "$uuid" = "$kuuid" ] && obj=$tmp/bin.$arch/fakekernel.$arch
		want=$("$SYM" --obj="$obj" "$addr" | head -1)
		[ "$want" = "$fn" ] || { bad=$((bad + 1)); echo "# $arch $addr: '$fn', llvm-symbolizer-19 says '$want'"; }
	done <"$tmp/$arch.frames"
	check "$bad" = 0 "$arch: every name from a signature is llvm-symbolizer-19's"
	check "$named" = 12 "$arch: 12 functions named from signatures (anchors, backtraces, callers)"
	for f in vm_fault_check vm_fault_enter trap_entry kernel_bootstrap ipc_port_release sched_tick kp_log lock_grab; do
		check_grep "^$kuuid .* signature $f\$" "$tmp/$arch.frames" "$arch: kernel's $f named by signature"
	done
	for f in drv_io drv_start drv_stop drv_log; do
		check_grep " signature $f\$" "$tmp/$arch.frames" "$arch: kext's $f named by signature"
	done
	check "$(grep -c ' function-starts func_' "$tmp/$arch.frames")" = 3 \
		"$arch: the tie (decoy_one, decoy_two) and ipc_port_copy stay func_<start>"
	check_not_grep "two_callers\|wrong_version\|wrong_target\|bad_version\|absent\|nosect\|huge" \
		"$tmp/$arch.frames" "$arch: no name past two callers, from another version or target, or a bad file"
	for w in "broken.json.*byte" "types.json.*anchor 0.*string" "huge.json.*longer than 4096" \
		"badver.json.*not a Darwin version" "nosect.json.*no section __TEXT,__nope"; do
		check "$(grep -c "$w" "$tmp/$arch.err")" = 1 "$arch: one warning: $w"
	done
	check "$(wc -l <"$tmp/$arch.err" | tr -d ' ')" = 5 "$arch: nothing else said"
	# text: the mark (the thread of vm_fault_check made the panicked one)
	python3 - "$tmp/rep.$arch.ips" >"$tmp/p.$arch.ips" <<'EOF2'
import json, sys
head, body = open(sys.argv[1]).read().split("\n", 1)
d = json.loads(body)
t = d["processByPid"]["0"]["threadById"].pop("1001")
t["id"] = 4242
d["processByPid"]["321"] = {"pid": 321, "procname": "fakeclient", "threadById": {"4242": t}}
print(head)
print(json.dumps(d))
EOF2
	"$kp" show --dsym "$kc/kernelcache.stripped" --signatures "$tmp/sigs" "$tmp/p.$arch.ips" \
		>"$tmp/$arch.txt" 2>/dev/null
	check_grep "vm_fault_check +0x4 (signature)" "$tmp/$arch.txt" "$arch: show's text marks the source"
	# a symbol table beats a signature; without signatures, function starts
	"$kp" show --json --dsym "$kc/kernelcache" --signatures "$tmp/sigs" "$tmp/rep.$arch.ips" \
		>"$tmp/$arch.sym.json" 2>/dev/null
	frames "$tmp/$arch.sym.json" >"$tmp/$arch.sym.frames"
	check_not_grep " signature " "$tmp/$arch.sym.frames" "$arch: with symbol tables, no signature is used"
	"$kp" show --json --dsym "$kc/kernelcache.stripped" "$tmp/rep.$arch.ips" >"$tmp/$arch.none.json" 2>/dev/null
	frames "$tmp/$arch.none.json" >"$tmp/$arch.none.frames"
	check "$(grep -c ' function-starts ' "$tmp/$arch.none.frames")" = 15 "$arch: without signatures, 15 func_<start>"
done

# symbols where: the folders, and the files whose target and version apply
kc=$tmp/kc.arm64
kuuid=$(awk '$1 == "com.apple.kernel" {print $2}' "$kc/uuids.txt")
xuuid=$(awk '$1 == "com.kpbrowse.FakeDriver" {print $2}' "$kc/uuids.txt")
"$kp" symbols where --kernelcache "$kc/kernelcache.stripped" --signatures "$tmp/sigs" "$kuuid" >"$tmp/where" 2>&1
check "$?" = 0 "symbols where --signatures: exit 0"
check "$(sed -n 's/^[0-9]*\. //p' "$tmp/where" | tail -1)" = signatures "symbols where: signatures, the last step"
check "$(grep -c "^  tried: $tmp/sigs\$" "$tmp/where")" = 1 "symbols where: the folder tried"
said=$(grep "^  said: com.apple.kernel, any Darwin version (no report): " "$tmp/where")
for f in kernel/23/xnu.json kernel/23/xnu_old.json kernel/23/kexts/nosect.json; do
	case $said in *"$tmp/sigs/$f"*) _ok "symbols where: the kernel's $f applies";;
	*) _notok "symbols where: the kernel's $f applies";; esac
done
case $said in *SigDriver*|*Other.json*|*broken*) _notok "symbols where: no file of another target";;
*) _ok "symbols where: no file of another target";; esac
check_grep "^found: $kc/kernelcache.stripped\$" "$tmp/where" "symbols where: still found in the kernelcache"
KPBROWSE_SIGNATURES="/nonexistent:$tmp/sigs" "$kp" symbols where --kernelcache "$kc/kernelcache.stripped" "$xuuid" \
	>"$tmp/where" 2>&1
check_grep "^  tried: /nonexistent (missing), $tmp/sigs\$" "$tmp/where" "symbols where: KPBROWSE_SIGNATURES, a missing folder marked"
check_grep "^  said: com.kpbrowse.FakeDriver, any Darwin version (no report): $tmp/sigs/kernel/23/kexts/SigDriver.json\$" \
	"$tmp/where" "symbols where: the kext's one file"
printf 'Signatures = %s\n' "$tmp/sigs" >"$KPBROWSE_CONFIG"
"$kp" symbols where --kernelcache "$kc/kernelcache.stripped" "$kuuid" >"$tmp/where" 2>&1
check_grep "^  said: com.apple.kernel, any Darwin version" "$tmp/where" "symbols where: the config's Signatures"
"$kp" symbols where --dsym "$tmp/bin.arm64" "$kuuid" >"$tmp/where" 2>&1
check_grep "^  said: not consulted: the file is neither a kernelcache entry nor a kernel\$" "$tmp/where" \
	"symbols where: a dylib found, no file consulted"
"$kp" symbols where 01234567-89AB-CDEF-0123-456789ABCDEF >"$tmp/where" 2>&1
check_grep "^  said: not consulted: no file holds this UUID\$" "$tmp/where" "symbols where: nothing found, no file consulted"
rm -f "$KPBROWSE_CONFIG"
"$kp" symbols where --kernelcache "$kc/kernelcache.stripped" "$kuuid" >"$tmp/where" 2>&1
check_not_grep "signatures" "$tmp/where" "symbols where: no signature folder, no step"

# the same folder from KPBROWSE_SIGNATURES and from the config file
KPBROWSE_SIGNATURES="/nonexistent:$tmp/sigs" "$kp" show --json --dsym "$tmp/kc.arm64/kernelcache.stripped" \
	"$tmp/rep.arm64.ips" >"$tmp/env.json" 2>/dev/null
frames "$tmp/env.json" | grep -c " signature " >"$tmp/env.n"
check "$(cat "$tmp/env.n")" = 12 "KPBROWSE_SIGNATURES: the same 12 names"
printf 'Signatures = %s\n' "$tmp/sigs" >"$KPBROWSE_CONFIG"
"$kp" show --json --dsym "$tmp/kc.arm64/kernelcache.stripped" "$tmp/rep.arm64.ips" >"$tmp/cfg.json" 2>/dev/null
check "$(frames "$tmp/cfg.json" | grep -c " signature ")" = 12 "config Signatures = DIR: the same 12 names"
rm -f "$KPBROWSE_CONFIG"
# a report of another Darwin version: the files of kernel/23 are not used
sed 's/23\.4\.0/24.1.0/g; s/14\.4 (23E214)/15.1 (24B83)/g' "$tmp/rep.arm64.ips" >"$tmp/rep24.ips"
"$kp" show --json --dsym "$tmp/kc.arm64/kernelcache.stripped" --signatures "$tmp/sigs" "$tmp/rep24.ips" \
	>"$tmp/v24.json" 2>/dev/null
check "$(frames "$tmp/v24.json" | grep -c " signature ")" = 0 "Darwin 24: no file of kernel/23 names anything"
"$kp" show --json --signatures "$tmp/nope" "$tmp/rep.arm64.ips" >/dev/null 2>"$tmp/nope.err"
check "$?" = 2 "--signatures of a missing folder: exit 2"
check_grep "signatures .*nope: no such folder" "$tmp/nope.err" "  and says so"
# lookup: a plain kernel (MH_EXECUTE), symbol table stripped, is com.apple.kernel
for arch in arm64 x86_64; do
	"$LD" -arch "$arch" -platform_version macos 13.0 13.0 -e _kernel_bootstrap -o "$tmp/kexe.$arch" \
		"$tmp/bin.$arch/kernel.o" 2>/dev/null
	"$(tool llvm-strip)" -o "$tmp/kexe.$arch.s" "$tmp/kexe.$arch"
	check "$?" = 0 "$arch: a stripped MH_EXECUTE kernel built"
	# 4 bytes into each function (the symbols of the unstripped one)
	"$(tool llvm-nm)" --defined-only "$tmp/kexe.$arch" | awk '$2 == "T" && $3 != "__mh_execute_header"' |
		while read -r v _ _; do printf '0x%x\n' $((0x$v + 4)); done >"$tmp/kexe.addrs"
	"$kp" lookup --dsym "$tmp/kexe.$arch.s" --signatures "$tmp/sigs" \
		<"$tmp/kexe.addrs" 2>/dev/null | awk 'NR % 3 == 1' >"$tmp/kexe.got"
	"$SYM" --obj="$tmp/kexe.$arch" <"$tmp/kexe.addrs" | awk 'NR % 3 == 1' >"$tmp/kexe.want"
	paste -d' ' "$tmp/kexe.got" "$tmp/kexe.want" | awk '$1 !~ /^func_/ && $1 != $2' >"$tmp/kexe.diff"
	# no report, no Darwin version: every file for the kernel is used, and
	# the 22.x one clashes with xnu.json over sched_tick: neither names it
	check "$(grep -vc '^func_' "$tmp/kexe.got")" = 7 "$arch: lookup names 7 of the kernel's functions by signature"
	check "$(paste -d' ' "$tmp/kexe.got" "$tmp/kexe.want" | grep -c '^func_.* sched_tick$')" = 1 \
		"$arch: without a Darwin version, the files clashing over sched_tick name nothing"
	check "$(wc -l <"$tmp/kexe.diff" | tr -d ' ')" = 0 "$arch: each as llvm-symbolizer-19 names it"
done
# lookup on the whole stripped kernelcache: the kernel entry, whose segments
# hold the addresses, answers from the same signature files
for arch in arm64 x86_64; do
	"$OD" --macho --function-starts "$tmp/bin.$arch/fakekernel.$arch" | awk '$1 ~ /^[0-9a-f]+$/' |
		while read -r v _; do printf '0x%x\n' $((0x$v + 4)); done >"$tmp/kc.addrs"
	"$kp" lookup --kernelcache "$tmp/kc.$arch/kernelcache.stripped" --signatures "$tmp/sigs" \
		<"$tmp/kc.addrs" 2>/dev/null | awk 'NR % 3 == 1' >"$tmp/kc.got"
	"$SYM" --obj="$tmp/bin.$arch/fakekernel.$arch" <"$tmp/kc.addrs" | awk 'NR % 3 == 1' >"$tmp/kc.want"
	check "$(grep -vc '^func_' "$tmp/kc.got")" = 7 "$arch: lookup on the kernelcache names 7 of its kernel's functions by signature"
	check "$(paste -d' ' "$tmp/kc.got" "$tmp/kc.want" | awk '$1 !~ /^func_/ && $1 != $2' | wc -l | tr -d ' ')" = 0 \
		"$arch: each as llvm-symbolizer-19 names it"
done
done_testing
