#!/usr/bin/env python3
"""gen_signatures.py NM BINARY TARGET OUT.json [EVERY]: a signature file in the shape
of the blacktop/symbolicator project's, made from an unstripped arm64 binary
as symbolicator makes them from a KDK: every function that references
__cstring strings (adr, adrp+add) gets a signature with those strings as
anchors, and the chain of its single callers (bl) as its backtrace.  For
bench_kernelcache.sh; stdlib only."""
import json, struct, subprocess, sys, os
nm, binary, target, out = sys.argv[1:5]
every = int(sys.argv[5]) if len(sys.argv) > 5 else 1   # keep one function in EVERY
b = open(binary, "rb").read()
ncmds = struct.unpack_from("<I", b, 16)[0]
at, sects = 32, {}
for _ in range(ncmds):
    cmd, size = struct.unpack_from("<2I", b, at)
    if cmd == 0x19:
        nsect = struct.unpack_from("<I", b, at + 64)[0]
        for k in range(nsect):
            s = at + 72 + 80 * k
            sect = b[s:s + 16].rstrip(b"\0").decode()
            seg = b[s + 16:s + 32].rstrip(b"\0").decode()
            addr, sz, off = struct.unpack_from("<QQI", b, s + 32)
            sects[(seg, sect)] = (addr, b[off:off + sz])
    at += size
caddr, cdata = sects[("__TEXT", "__cstring")]
strings, i = {}, 0
while i < len(cdata):
    e = cdata.index(b"\0", i)
    try:
        strings[caddr + i] = cdata[i:e].decode()
    except UnicodeDecodeError:
        pass
    i = e + 1
taddr, text = sects.get(("__TEXT_EXEC", "__text")) or sects[("__TEXT", "__text")]
syms = sorted((int(l.split()[0], 16), l.split()[2]) for l in subprocess.run(
    [nm, "-n", "--defined-only", binary], capture_output=True, text=True).stdout.splitlines()
    if len(l.split()) == 3 and l.split()[1] in "tTsS" and taddr <= int(l.split()[0], 16) < taddr + len(text))
import bisect
starts = [a for a, _ in syms]
def func(a):
    k = bisect.bisect_right(starts, a) - 1
    return syms[k] if k >= 0 else None
def sext(v, bits):
    return v - (1 << bits) if v & (1 << (bits - 1)) else v
refs, calls = {}, {}
for i in range(0, len(text) - 3, 4):
    w = struct.unpack_from("<I", text, i)[0]
    pc = taddr + i
    if (w & 0x1F000000) == 0x10000000:
        imm = sext(((w >> 29) & 3) | ((w >> 5) & 0x7FFFF) << 2, 21)
        t = None
        if not w & 0x80000000:
            t = pc + imm
        else:
            page = (pc & ~0xfff) + imm * 4096
            for j in range(i + 4, min(i + 36, len(text) - 3), 4):
                x = struct.unpack_from("<I", text, j)[0]
                if (x & 0xFFC00000) == 0x91000000 and ((x >> 5) & 31) == (w & 31):
                    t = page + ((x >> 10) & 0xFFF)
                    break
        if t in strings and func(pc):
            refs.setdefault(func(pc)[1], set()).add(strings[t])
    elif (w & 0xFC000000) == 0x94000000:
        t = pc + sext(w & 0x3FFFFFF, 26) * 4
        if func(pc) and t in starts:
            calls.setdefault(t, set()).add(func(pc)[1])
addr_of = {n: a for a, n in syms}
sigs = []
for k, (f, ss) in enumerate(sorted(refs.items())):
    if k % every:
        continue
    bt, cur = [], addr_of[f]
    while len(calls.get(cur, ())) == 1 and len(bt) < 4:
        c = next(iter(calls[cur]))
        bt.append(c)
        cur = addr_of[c]
    sigs.append({"args": 0, "anchors": [{"string": s, "segment": "__TEXT", "section": "__cstring", "caller": None} for s in sorted(ss)],
                 "symbol": f, "prototype": "", "backtrace": bt})
os.makedirs(os.path.dirname(out), exist_ok=True)
json.dump({"target": target, "total": len(sigs), "version": {"min": "25.0.0", "max": "25.9.0"}, "signatures": sigs}, open(out, "w"), indent=1)
print(len(sigs), "signatures,", sum(len(s["backtrace"]) for s in sigs), "backtrace names", file=sys.stderr)
