#!/usr/bin/env python3
"""gen.py FIXTURES OUT [REAL_CORPUS]: writes the generated part of the hostile
corpus into OUT (a temp dir; nothing here is committed).  Each folder is one
family; test_hostile.sh decides what a file must do from its folder:

  cut/     reports truncated at every line boundary and inside every line
           (so inside each JSON member) of a fixture .ips / .panic and of a
           small real .ips / .panic
  types/   the fixture .ips with one known field given a wrong JSON type or
           an out-of-range number (2^64-1, 2^64, negative, fractional ...)
  enc/     NUL bytes, invalid UTF-8, CRLF line ends
  big/     a million frames (.ips and .panic), JSON nested 100,000 deep, a
           100 MB report, Intel kcdata stackshots past the frame and
           process caps and a million open containers
  macho/   Mach-O / fat files with lying sizes and offsets
  dwarf/   copies of a fixture dSYM with bytes flipped or zeroed inside
           __debug_info/__debug_abbrev/__debug_line/__debug_aranges
  tty/     reports whose panic string, process and thread names carry
           terminal escape sequences
"""
import base64
import json
import os
import random
import struct
import sys

FIX, OUT = sys.argv[1], sys.argv[2]
REAL = sys.argv[3] if len(sys.argv) > 3 else ""
IPS = os.path.join(FIX, "reports", "panic-full-2026-11-20-101500.0001.ips")
PANIC = os.path.join(FIX, "reports", "Kernel_2020-08-03-094512_kpbrowse-demo.panic")
BIN = os.path.join(FIX, "bin")
rnd = random.Random(6)   # deterministic: the same files every run


def put(rel, data):
    path = os.path.join(OUT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def read(path):
    with open(path, "rb") as f:
        return f.read()


# ---- cut/: every line boundary, and the middle of every line ---------------
def cuts(src, tag):
    data = read(src)
    lines = data.split(b"\n")
    off = 0
    for i, line in enumerate(lines[:-1]):
        mid = off + len(line) // 2
        off += len(line) + 1
        put("cut/%s.L%03d" % (tag, i + 1), data[:off])        # after line i+1
        if len(line) > 1:
            put("cut/%s.M%03d" % (tag, i + 1), data[:mid])    # inside line i+1


cuts(IPS, "fixture.ips")
cuts(PANIC, "fixture.panic")
SSTEXT = os.path.join(FIX, "textforms", "stackshot-i.txt")
cuts(SSTEXT, "fixture.stackshot-i")
STALL = os.path.join(FIX, "spindump", "stall-fakedriver.shutdownStall")
cuts(STALL, "fixture.shutdownStall")
cuts(os.path.join(FIX, "spindump", "spindump-timeline-arm64.txt"), "fixture.spindump")
cuts(os.path.join(FIX, "spindump", "sleepwake-fakedriver.diag"), "fixture.sleepwake")
cuts(os.path.join(FIX, "notkernel", "Finder-2019-11-02.crash"), "fixture.crash")
cuts(os.path.join(FIX, "notkernel", "Chrome_wakeups_resource.diag"), "fixture.wakeups")
for name in ("ips-t2-bridgeos-sleepwake-socwatchdog-1.ips",
             "legacy-intel-1014-iousbfamily-iogmd-userclient-1.panic"):
    if REAL and os.path.exists(os.path.join(REAL, name)):
        cuts(os.path.join(REAL, name), "real-" + name)

# ---- types/: wrong JSON types and bad numbers for each known field ----------
hdr_txt, body_txt = read(IPS).decode().split("\n", 1)
HDR, BODY = json.loads(hdr_txt), json.loads(body_txt)
VARIANTS = {
    "str": '"x"', "num": "7", "obj": '{"a":1}', "arr": '["a",1]', "null": "null",
    "bool": "true", "u64max": "18446744073709551615", "u64over": "18446744073709551616",
    "neg": "-1", "frac": "1.5", "exp": "1e400", "negbig": "-18446744073709551616",
    "hexstr": '"0xffffffffffffffffff"',
}
MARK = "@@HOSTILE@@"


def emit(name, hdr, body):
    for vn, raw in VARIANTS.items():
        text = json.dumps(hdr) + "\n" + json.dumps(body, indent=2) + "\n"
        put("types/%s.%s.ips" % (name, vn), text.replace('"%s"' % MARK, raw))


def with_field(path, where):
    """Deep copies of (header, body) with the value at path set to MARK."""
    hdr, body = json.loads(json.dumps(HDR)), json.loads(json.dumps(BODY))
    node = hdr if where == "header" else body
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = MARK
    return hdr, body


for k in ("bug_type", "timestamp", "os_version", "incident_id"):
    emit("header." + k, *with_field([k], "header"))
for k in ("build", "product", "kernel", "incident", "date", "panicString",
          "processByPid", "binaryImages", "notes"):
    emit("body." + k, *with_field([k], "body"))
pid = next(iter(BODY["processByPid"]))
for k in ("pid", "procname", "threadById"):
    emit("process." + k, *with_field(["processByPid", pid, k], "body"))
# the panicked thread (tid 4242 in the fixture) and its frames
procs = BODY["processByPid"]
ppid = next(p for p in procs if "4242" in procs[p].get("threadById", {}))
tpath = ["processByPid", ppid, "threadById", "4242"]
for k in ("id", "name", "state", "schedPriority", "basePriority", "snapshotFlags",
          "kernelFrames", "userFrames"):
    emit("thread." + k, *with_field(tpath + [k], "body"))
emit("frame.0", *with_field(tpath + ["kernelFrames", 0], "body"))
emit("frame.0.image", *with_field(tpath + ["kernelFrames", 0, 0], "body"))
emit("frame.0.offset", *with_field(tpath + ["kernelFrames", 0, 1], "body"))
emit("image.0", *with_field(["binaryImages", 0], "body"))
for i, k in enumerate(("uuid", "base", "kind")):
    emit("image.0." + k, *with_field(["binaryImages", 0, i], "body"))

# ---- enc/: NUL bytes, invalid UTF-8, CRLF ------------------------------------
panic = read(PANIC)
ips = read(IPS)
put("enc/nul-in-text.panic", panic.replace(b"panic(cpu", b"pa\0nic(cpu", 1).replace(b"\n", b"\n\0", 3))
put("enc/nul-leading.panic", b"\0" * 64 + panic)
put("enc/nul-in-json-string.ips", ips.replace(b"FakeDriver: report", b"Fake\0Driver: report", 1))
put("enc/nul-escaped.ips", ips.replace(b"FakeDriver: report", b"Fake\\u0000Driver: report", 1))
put("enc/nul-after-json.ips", ips + b"\0\0\0")
bad_utf8 = b"\xff\xfe\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80\xe2\x80"
put("enc/utf8-text.panic", panic.replace(b"panic(cpu 0", b"panic(cpu 0" + bad_utf8, 1))
put("enc/utf8-json.ips", ips.replace(b"FakeDriver: report", b"Fake" + bad_utf8 + b"Driver: report", 1))
put("enc/utf8-procname.ips", ips.replace(b'"fakeclient"', b'"fake' + bad_utf8 + b'client"'))
put("enc/lone-surrogate.ips", ips.replace(b"FakeDriver: report", b"Fake\\ud800Driver: report", 1))
put("enc/crlf.panic", panic.replace(b"\n", b"\r\n"))
put("enc/crlf.ips", ips.replace(b"\n", b"\r\n"))
put("enc/cr-only.panic", panic.replace(b"\n", b"\r"))
put("enc/bom.ips", b"\xef\xbb\xbf" + ips)

# ---- repeat/: every member written twice (issue 32 item 0) ------------------
# A body member that the parser models as an array and meets twice must not
# be filled past its end ("ExtensiblePanicLog" twice overflowed the heap).
# Each file doubles every member of one level: the body, every process,
# every thread (each with one more element in the second copy, so a count
# kept from the first copy overruns an array sized for the second).
def dump_twice(o, depth, at):
    """JSON text of o with every member of the objects at depth `at` twice."""
    if isinstance(o, dict):
        parts = []
        for k, v in o.items():
            kv = json.dumps(k) + ":" + dump_twice(v, depth + 1, at)
            parts.append(kv)
            if depth == at:
                w = v + v[:1] if isinstance(v, list) else v
                parts.append(json.dumps(k) + ":" + dump_twice(w, depth + 1, at))
        return "{" + ",".join(parts) + "}"
    if isinstance(o, list):
        return "[" + ",".join(dump_twice(v, depth + 1, at) for v in o) + "]"
    return json.dumps(o)


def repeats(src, tag):
    h, b = read(src).decode("utf-8", "replace").split("\n", 1)
    body = json.loads(b)
    # 0: the body; 2: a process (processByPid -> pid -> members); 4: a
    # thread (threadById -> tid -> members); 1, 3: the ExtensiblePanicLog
    # owners and processByPid's pids
    for at in range(5):
        put("repeat/%s.L%d.ips" % (tag, at), h + "\n" + dump_twice(body, 0, at) + "\n")


repeats(IPS, "fixture")
repeats(os.path.join(FIX, "extlog", "panic-full-extlog.ips"), "extlog")
repeats(os.path.join(FIX, "stackshots", "WatchdogCrash-2026-11-22-100000.ips"), "watchdog")
repeats(os.path.join(FIX, "stackshots", "Stackshot-2026-11-21-090000.ips"), "stackshot")

# ---- big/ ----------------------------------------------------------------------
frames = ",".join("[1,%d]" % (400 + (i % 64) * 4) for i in range(1000000))
put("big/million-frames.ips", hdr_txt + "\n" + body_txt.replace(
    '"kernelFrames": [', '"kernelFrames": [' + frames + ",", 1))
lines = panic.split(b"\n")
bt = next(i for i, l in enumerate(lines) if l.startswith(b"Backtrace"))
put("big/million-frames.panic", b"\n".join(lines[:bt + 1]) + b"\n" +
    b"0xffffff81f5a3bc40 : 0xffffff800b000544 \n" * 1000000 + b"\n".join(lines[bt + 1:]))
D = 100000
put("big/deep-array-member.ips", hdr_txt + "\n" + body_txt.replace(
    '"notes": [', '"deep": ' + "[" * D + "]" * D + ', "notes": [', 1))
put("big/deep-object-body.ips", hdr_txt + "\n" + '{"a":' * D + "1" + "}" * D + "\n")
put("big/deep-unclosed.ips", hdr_txt + "\n" + '{"panicString":"x","d":' + "[" * D + "\n")
put("big/deep-procs.ips", hdr_txt + "\n" + body_txt.replace(
    '"processByPid": {', '"processByPid": {"9": ' + '{"x":' * D + "1" + "}" * D + ",", 1))
put("big/deep-frames.ips", hdr_txt + "\n" + body_txt.replace(
    '"kernelFrames": [', '"kernelFrames": [' + "[" * D + "]" * D + ",", 1))
put("big/deep-header.ips", '{"bug_type":"210","x":' + "[" * D + "]" * D + "}\n" + body_txt)


# Regressions of memory/time findings: a body of 300,000 malformed members
# (was quadratic: a line count from the start for each warning), and
# containers of tiny items (a cJSON tree costs ~30-50x their text).
PS = '"panicString":"panic(cpu 0 caller 0x1): tiny"'
put("big/many-bad-members.ips", hdr_txt + "\n{" + PS + ",\n" + '"a":x,\n' * 300000 + '"z":1}\n')
put("big/tiny-items-member.ips", hdr_txt + "\n{" + PS + ',"notes":[' + "1," * 5000000 + "1]}\n")
put("big/tiny-items-header.ips", '{"bug_type":"210","x":[' + "1," * 5000000 + '1]}\n{' + PS + "}\n")
put("big/tiny-images.ips", hdr_txt + "\n{" + PS + ',"binaryImages":[' + "[]," * 3000000 + "[]]}\n")
put("big/tiny-threads.ips", hdr_txt + "\n{" + PS + ',"processByPid":{"1":{"threadById":{' +
    ",".join('"%d":{}' % i for i in range(1000000)) + "}}}}\n")
put("big/tiny-processes.ips", hdr_txt + "\n{" + PS + ',"processByPid":{' +
    ",".join('"%d":{}' % i for i in range(1000000)) + "}}\n")

# 100 MB: written in chunks so the generator itself stays small.
def big_file(rel, head, unit, tail, size=100 << 20):
    path = os.path.join(OUT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(head)
        chunk = unit * ((1 << 20) // len(unit))
        n = len(head)
        while n < size:
            f.write(chunk)
            n += len(chunk)
        f.write(tail)


notes_at = body_txt.rindex('"notes": [') + len('"notes": [')
big_file("big/100mb-notes.ips", (hdr_txt + "\n" + body_txt[:notes_at]).encode(),
         b'"pad pad pad pad pad pad pad pad pad pad pad pad pad",\n', body_txt[notes_at:].encode())
# a spindump thread whose stack is 32 MiB of sibling frames (issue 24)
stall_txt = read(STALL)
stall_cut = stall_txt.index(b"  Binary Images:")
big_file("big/32mb-spindump.shutdownStall", stall_txt[:stall_cut],
         b"      4   CFRunLoopRun + 12 (CoreFoundation + 460665) [0x7fff2036b779]\n",
         stall_txt[stall_cut:], size=32 << 20)
with open(os.path.join(OUT, "big/100mb-sparse.panic"), "wb") as f:
    f.truncate(100 << 20)   # a hole: all NUL bytes, no disk


# Intel JSON kcdata stackshots (issue 31 item 7): items of a few bytes each,
# past the caps (frames in all, processes), around the Intel fixture's text
def kc_item(t, payload, flags=0):
    pad = -len(payload) & 0xf
    return struct.pack("<IIQ", t, len(payload) + pad, flags) + payload + b"\0" * pad


def kc_task(pid, name, body):
    snap = struct.pack("<7Q7Ii32s", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, pid, name)
    return (kc_item(0x13, struct.pack("<I", 0x903), pid) + kc_item(0x905, snap) + body +
            kc_item(0x14, struct.pack("<I", 0x903), pid))


def kc_thread(tid, body, name=b""):
    snap = struct.pack("<11QIIhh4B3Q", tid, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 31, 31, 0, 0, 0, 0, 0, 0, 0)
    return (kc_item(0x13, struct.pack("<I", 0x904), tid) + kc_item(0x906, snap) +
            (kc_item(0x909, name + b"\0") if name else b"") + body + kc_item(0x14, struct.pack("<I", 0x904), tid))


def kc_report(rel, buf):
    intel = read(os.path.join(FIX, "reports", "Kernel-2020-09-14-201744.panic")).decode()
    head, body = intel.split("\n", 1)
    text = json.loads(body)["macOSPanicString"]
    data = kc_item(0x59a25807, b"") + buf + kc_item(0xf19158ed, b"")
    put(rel, head + "\n" + json.dumps({"macOSProcessedStackshotData": base64.b64encode(data).decode(),
                                       "macOSPanicString": text}, separators=(",", ":")))


n32 = 8 << 20   # 32-bit user return addresses: 4 bytes a frame, twice the frames cap
kc_report("big/kcdata-8m-frames.panic",
          kc_task(7, b"many", kc_thread(70, struct.pack("<IIQ", 0x20, 4 * n32, 0x915 << 32 | n32) +
                                        b"\x00\x10\x00\x00" * n32)))
kc_report("big/kcdata-100k-tasks.panic",
          b"".join(kc_task(i + 1000, b"t%d" % i, kc_thread(i + 1, b"")) for i in range(100000)))
kc_report("big/kcdata-nested-million.panic",   # a million containers opened, never closed
          kc_item(0x13, struct.pack("<I", 0x903), 1) * 1000000)


# ---- macho/: lying load commands and fat headers -------------------------------
kext = bytearray(read(os.path.join(BIN, "fakekext.arm64")))
dsym_path = os.path.join(BIN, "fakekext.arm64.dSYM/Contents/Resources/DWARF/fakekext.arm64")
dsym = bytearray(read(dsym_path))


def load_commands(b):
    ncmds, sizeofcmds = struct.unpack_from("<II", b, 16)
    off, out = 32, []
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", b, off)
        out.append((off, cmd, size))
        off += size
    return out


for base, src in (("kext", kext), ("dsym", dsym)):
    lcs = load_commands(src)
    for i, (off, cmd, size) in enumerate(lcs[:12]):
        for vn, v in (("zero", 0), ("four", 4), ("huge", 0xFFFFFFF0), ("past", size + len(src))):
            b = bytearray(src)
            struct.pack_into("<I", b, off + 4, v)
            put("macho/%s.lc%02d-cmd%x-size-%s" % (base, i, cmd, vn), bytes(b))
        if cmd in (0x19,):   # LC_SEGMENT_64: lie about nsects and the first section's offset
            b = bytearray(src)
            struct.pack_into("<I", b, off + 64, 0xFFFFFFFF)
            put("macho/%s.lc%02d-nsects-huge" % (base, i), bytes(b))
            nsects = struct.unpack_from("<I", src, off + 64)[0]
            if nsects:
                for vn, (fo, sz) in (("offset-past", (len(src) + 16, 64)),
                                     ("size-huge", (None, 0xFFFFFFFFFFFFFF00))):
                    b = bytearray(src)
                    s0 = off + 72
                    if fo is not None:
                        struct.pack_into("<I", b, s0 + 48, fo)
                    struct.pack_into("<Q", b, s0 + 40, sz)
                    put("macho/%s.lc%02d-sect0-%s" % (base, i, vn), bytes(b))
    for vn, (n, s) in (("ncmds-huge", (0xFFFFFFFF, None)), ("sizeofcmds-huge", (None, 0xFFFFFFF0)),
                       ("sizeofcmds-zero", (None, 0))):
        b = bytearray(src)
        if n is not None:
            struct.pack_into("<I", b, 16, n)
        if s is not None:
            struct.pack_into("<I", b, 20, s)
        put("macho/%s.%s" % (base, vn), bytes(b))
put("macho/header-only", bytes(kext[:32]))
put("macho/half-header", bytes(kext[:16]))


def fat(arcs, payload, magic=0xCAFEBABE):
    is64 = magic == 0xCAFEBABF
    h = struct.pack(">II", magic, len(arcs))
    for cpu, sub, off, size in arcs:
        if is64:
            h += struct.pack(">IIQQII", cpu, sub, off, size, 14, 0)
        else:
            h += struct.pack(">IIIII", cpu, sub, off, size, 14)
    return h + payload


pad = b"\0" * (0x4000 - 8 - 20 * 2)
body = pad + bytes(kext)
K = len(kext)
for magic, tag in ((0xCAFEBABE, "fat"), (0xCAFEBABF, "fat64")):
    hsz = 8 + (32 if magic == 0xCAFEBABF else 20) * 2
    pl = b"\0" * (0x4000 - hsz) + bytes(kext)
    put("macho/%s-overlap" % tag, fat([(0x0100000C, 0, 0x4000, K), (0x01000007, 3, 0x4000, K)], pl, magic))
    put("macho/%s-overlap-partial" % tag, fat([(0x0100000C, 0, 0x4000, K), (0x01000007, 3, 0x4000 + 64, K)], pl, magic))
    put("macho/%s-out-of-file" % tag, fat([(0x0100000C, 0, 0x4000, K), (0x01000007, 3, 0x100000, K)], pl, magic))
    put("macho/%s-size-past-end" % tag, fat([(0x0100000C, 0, 0x4000, K + 4096), (0x01000007, 3, 0x4000, 0)], pl, magic))
    put("macho/%s-wrap" % tag, fat([(0x0100000C, 0, 0xFFFFFFF0, 0x20), (0x01000007, 3, 0x4000, 0xFFFFFFFF)], pl, magic))
    put("macho/%s-header-in-slice" % tag, fat([(0x0100000C, 0, 0, K), (0x01000007, 3, 0x4000, K)], pl, magic))
put("macho/fat-nfat-huge", struct.pack(">II", 0xCAFEBABE, 0xFFFFFFFF) + bytes(kext))
put("macho/fat-nfat-zero", struct.pack(">II", 0xCAFEBABE, 0) + bytes(kext))
put("macho/fat-nested", fat([(0x0100000C, 0, 0x4000, 0x4000 + K)],
                            b"\0" * (0x4000 - 28) + fat([(0x0100000C, 0, 0x4000, K)],
                                                        b"\0" * (0x4000 - 28) + bytes(kext))))


# ---- dwarf/: bad offsets inside the debug sections of a fixture dSYM -------------
def sections(b):
    out = {}
    for off, cmd, size in load_commands(b):
        if cmd != 0x19:
            continue
        nsects = struct.unpack_from("<I", b, off + 64)[0]
        for k in range(nsects):
            s = off + 72 + 80 * k
            name = b[s:s + 16].rstrip(b"\0").decode()
            sz, fo = struct.unpack_from("<QI", b, s + 40)
            out[name] = (fo, sz)
    return out


secs = sections(dsym)
for name in ("__debug_info", "__debug_abbrev", "__debug_line", "__debug_aranges"):
    if name not in secs:
        continue
    fo, sz = secs[name]
    tag = name[len("__debug_"):]
    b = bytearray(dsym)
    b[fo:fo + sz] = b"\0" * sz
    put("dwarf/%s-zeroed/fakekext.arm64" % tag, bytes(b))
    b = bytearray(dsym)
    b[fo:fo + 4] = b"\xff\xff\xff\xff"
    put("dwarf/%s-length-ff/fakekext.arm64" % tag, bytes(b))
    b = bytearray(dsym)
    b[fo:fo + 4] = struct.pack("<I", sz * 16)
    put("dwarf/%s-length-past/fakekext.arm64" % tag, bytes(b))
    if sz > 12:
        b = bytearray(dsym)
        b[fo + 6:fo + 10] = b"\xff\xff\xff\x7f"   # CU / set: the abbrev / info offset
        put("dwarf/%s-offset-huge/fakekext.arm64" % tag, bytes(b))
    for n in range(6):
        b = bytearray(dsym)
        for _ in range(8 + 8 * n):
            b[fo + rnd.randrange(sz)] ^= 1 << rnd.randrange(8)
        put("dwarf/%s-flip%d/fakekext.arm64" % (tag, n), bytes(b))
    for n in range(3):
        b = bytearray(dsym)
        at = fo + rnd.randrange(sz)
        b[at:at + 16] = b"\0" * len(b[at:at + 16])
        put("dwarf/%s-zero16-%d/fakekext.arm64" % (tag, n), bytes(b))

# ---- tty/: terminal injection ----------------------------------------------------
EVIL = ("\x1b]52;c;cHduZWQ=\x07 \x1b]0;pwned\x07 \x1b[2J\x1b[H \u009b31m "
        "\u202egnp.exe \u2066isolate\u2069 \x1bP+q\x1b\\ \x07bell \x9b")
evil_raw = EVIL.encode("utf-8", "surrogateescape")
b = json.loads(body_txt)
b["panicString"] = b["panicString"].replace("FakeDriver: report", "FakeDriver " + EVIL + " report", 1)
for p in b["processByPid"].values():
    p["procname"] = "proc" + EVIL
    for t in p.get("threadById", {}).values():
        t["name"] = "thread" + EVIL
b["binaryImages"].append(["4c4c44a3-5555-3144-a151-249d146ed38d", 1, "T", "com.evil" + EVIL])
h = json.loads(hdr_txt)
h["os_version"] = "macOS" + EVIL
put("tty/evil.ips", json.dumps(h, ensure_ascii=False) + "\n" + json.dumps(b, indent=2, ensure_ascii=False) + "\n")
text = panic.replace(b"panic(cpu 0 caller", b"panic(cpu 0 caller", 1)
text = text.replace(b"vm_page_check_sanity: page", b"vm_page_check_sanity " + evil_raw + b": page", 1)
text = text.replace(b"BSD process name corresponding to current thread: ",
                    b"BSD process name corresponding to current thread: " + evil_raw)
put("tty/evil.panic", text)
# raw 8-bit C1 CSI byte (not UTF-8) in a text report
put("tty/evil-c1.panic", text.replace(b"\xc2\x9b31m", b"\x9b31m"))
# the stackshot -i text: process, thread, symbol and module names, state
ss = read(SSTEXT).replace(b"Process: fakeclient", b"Process: fakeclient" + evil_raw)
ss = ss.replace(b"(in com.kpbrowse.FakeDriver)", b"(in com.evil" + evil_raw + b")")
ss = ss.replace(b"panic (in mach_kernel)", b"panic" + evil_raw + b" (in mach_kernel)")
ss = ss.replace(b"Thread priority: 47", b"Thread name: thread" + evil_raw + b"\nThread state: 0x1 == TH_WAIT |" + evil_raw)
put("tty/evil-stackshot-i.txt", ss)
# a shutdown stall: process, thread, queue, symbol, image and Event text
sd = read(STALL).replace(b"configd [61]", b"configd" + evil_raw + b" [61]")
sd = sd.replace(b"Thread name \"com.apple.configd.shutdown\"", b"Thread name \"x" + evil_raw + b"\"")
sd = sd.replace(b"IOServiceClose + 40", b"IOService" + evil_raw + b"Close + 40")
sd = sd.replace(b"com.kpbrowse.FakeDriver 1.0", b"com.evil" + evil_raw + b" 1.0")
sd = sd.replace(b"Event:            Shutdown stall", b"Event:            Shutdown" + evil_raw)
put("tty/evil-spindump.shutdownStall", sd)
# a Sleep Wake Failure: reason, suspected bundle and failure code
sw = read(os.path.join(FIX, "spindump", "sleepwake-fakedriver.diag"))
sw = sw.replace(b"Suspected bundle: com.kpbrowse.FakeDriver.", b"Suspected bundle: com.evil" + evil_raw + b".")
sw = sw.replace(b"Failure code:: 0x00000040 00000027", b"Failure code:: 0x00000040 " + evil_raw)
put("tty/evil-sleepwake.diag", sw)
# an Intel kcdata stackshot: task and thread names
kc_report("tty/evil-kcdata.panic", kc_task(66, ("x" + EVIL).encode("utf-8", "surrogateescape")[:31],
                                           kc_thread(6601, b"", ("t" + EVIL).encode("utf-8", "surrogateescape")[:63])))
# ExtensiblePanicLog: an owner key, a DataID and text data with the evil text
xl = read(os.path.join(FIX, "extlog", "panic-full-extlog.ips")).decode()
xi = xl.index('  "ExtensiblePanicLog"')
xj = xl.index("\n", xi) + 1
ev = json.dumps(EVIL)
xl = xl[:xi] + ('  "ExtensiblePanicLog": {%s: [{"DataID": %s, "data": %s}], "4C4C44A3-5555-3144-A151-249D146ED38D": '
                '[{"DataID": 1, "data": %s}]},\n' % (ev, ev, ev, json.dumps(base64.b64encode(EVIL.encode("utf-8", "surrogateescape")).decode()))) + xl[xj:]
put("tty/evil-extlog.ips", xl.encode("utf-8", "surrogateescape"))
