#!/usr/bin/env python3
"""disasm_oracle.py JSON UUIDS_TXT BIN_DIR: checks every "disasm" array of
`kpbrowse show --json --disasm N` output against `llvm-objdump-19
--disassemble` (Intel syntax on x86_64) run on the same binary (found by
image UUID in UUIDS_TXT) and address range: the same addresses, bytes,
mnemonics and operands, once the two printers' spellings are made alike:
numbers compared by value ("#0x10", "16", "0x10"; modulo 2^64), LLVM's "<symbol>" and
"## comment" tails dropped, and Capstone 4's spellings of a few LLVM aliases
(movz -> mov).  Instructions Capstone cannot decode ("(bad)": newer ISA
such as arm64e PAC) are counted and skipped.  A branch target must equal
LLVM's address and name the symbol holding it, or for a symbol stub the
symbol `llvm-objdump-19 --macho --indirect-symbols` gives it.  Prints "ok N instructions
(M frames, K skipped)" or what differs."""
import json, re, subprocess, sys

report = json.load(open(sys.argv[1]))
reports = report if isinstance(report, list) else [report]
binary = {}
for line in open(sys.argv[2]):
    if line.startswith("#"):
        continue
    name, arch, uuid = line.split()
    if ".dSYM/" not in name and name not in ("fakekext.universal",):
        binary[uuid] = (sys.argv[3] + "/" + name, arch)

NUM = re.compile(r"#?(-?)(0x[0-9a-fA-F]+|\b[0-9]+\b)")

def norm(mn, ops):
    ops = re.sub(r"\s*<[^>]*>", "", ops)
    ops = re.sub(r"\s*(##|//|;).*$", "", ops)
    # by value, modulo 2^64: Capstone writes a sign-extended immediate
    # unsigned ("0xffffffffffffc000"), LLVM negative ("-0x4000")
    ops = NUM.sub(lambda m: hex((-1 if m.group(1) else 1) * int(m.group(2), 0) % (1 << 64)), ops)
    ops = re.sub(r"\s+", " ", ops).strip()
    if mn == "movz":
        mn = "mov"
    return mn, ops

LINE = re.compile(r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2} ?)+?)\s*\t(\S+)\t?(.*)$")

def objdump(path, arch, lo, hi):
    cmd = ["llvm-objdump-19", "--disassemble",
           "--start-address=0x%x" % lo, "--stop-address=0x%x" % hi, path]
    if arch == "x86_64":
        cmd[1:1] = ["-M", "intel"]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    got = {}
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            raw = m.group(2).strip()
            if arch != "x86_64":   # an arm64 word as a number: bytes reversed
                raw = " ".join(reversed([raw[i:i + 2] for i in range(0, 8, 2)]))
            got[int(m.group(1), 16)] = (raw.replace(" ", ""), m.group(3), m.group(4), line)
    return got

def stubs(path, arch):
    """address -> symbol of every symbol stub, from --indirect-symbols"""
    cmd = ["llvm-objdump-19", "--macho", "--indirect-symbols", "--arch=" + arch, path]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    got, on = {}, False
    for line in out.splitlines():
        if line.startswith("Indirect symbols for"):
            on = "stub" in line and "helper" not in line
        m = re.match(r"^0x([0-9a-f]+)\s+\d+\s+(\S+)$", line)
        if on and m:
            got[int(m.group(1), 16)] = m.group(2)
    return got

bad, n, frames, skipped, named = [], 0, 0, 0, 0
for r in reports:
    for p in r["processes"]:
        for t in p["threads"]:
            for f in t["frames"]:
                d = f.get("disasm")
                if not d:
                    continue
                if f["image_uuid"] not in binary:
                    bad.append("no binary for %s" % f["image_uuid"])
                    continue
                path, arch = binary[f["image_uuid"]]
                frames += 1
                lo = int(d[0]["address"], 16)
                last = d[-1]
                hi = int(last["address"], 16) + len(last["bytes"]) // 2
                want = objdump(path, arch, lo, hi)
                if sum(1 for i in d if i["marked"]) != 1:
                    bad.append("%s: %d marked" % (f["address"], sum(1 for i in d if i["marked"])))
                for i in d:
                    a = int(i["address"], 16)
                    if a not in want:
                        bad.append("%s %s: llvm-objdump has no instruction there" % (path, i["address"]))
                        continue
                    raw, mn, ops, line = want[a]
                    if i["mnemonic"] == "(bad)":
                        skipped += 1
                        continue
                    n += 1
                    if i["bytes"] != raw or norm(i["mnemonic"], i["operands"]) != norm(mn, ops):
                        bad.append("%s: got %s %s %s, llvm-objdump-19: %s" % (i["address"], i["bytes"], i["mnemonic"], i["operands"], line.strip()))
                    if i["target"]:
                        m = re.search(r"(0x[0-9a-f]+|\b[0-9a-f]+) <([^>]*)>", ops)
                        if m and int(m.group(1), 16) != int(i["target"]["address"], 16):
                            bad.append("%s: target %s, llvm-objdump-19: %s" % (i["address"], i["target"]["address"], line.strip()))
                        sym = i["target"]["symbol"]
                        if sym and sym.startswith("stub for "):
                            named += 1
                            tgt = int(i["target"]["address"], 16)
                            if stubs(path, arch).get(tgt, "")[1:] != sym[9:]:
                                bad.append("%s: target <%s>, llvm-objdump-19 --indirect-symbols: %s" % (i["address"], sym, stubs(path, arch).get(tgt)))
                        elif m and sym:
                            named += 1
                            # LLVM: the raw nlist name; kpbrowse: demangled, '_' dropped
                            lname, _, loff = m.group(2).partition("+")
                            gname, _, goff = sym.partition("+")
                            if loff != goff or (not lname.startswith("__Z") and lname[1:] != gname):
                                bad.append("%s: target <%s>, llvm-objdump-19: %s" % (i["address"], sym, line.strip()))
print("; ".join(bad[:8]) if bad else "ok %d instructions (%d frames, %d targets named, %d skipped)" % (n, frames, named, skipped) if n else "nothing compared")
