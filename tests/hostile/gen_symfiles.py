#!/usr/bin/env python3
"""gen_symfiles.py FIXTURES OUT [MB]: big symbol files for test_hostile.sh's
big half (issue 32 item 5), shaped for what a parse tree costs most, each
about MB (default 24) megabytes:

  sigs/kernel/23/xnu.json         signatures of eight small anchors and a
                                  short backtrace each (com.apple.kernel)
  sigs/kernel/23/kexts/bt.json    one signature with millions of "" in its
                                  backtrace (also com.apple.kernel)
  sigs/kernel/23/kexts/deep.json  a million nested arrays (2 MB)
  kc.mapped.symbols.json          ipsw's map, {"ADDRESS": "a"}, addresses
                                  descending (the test puts the stripped
                                  fixture cache beside it as kc.mapped)
  pl.big                          the prelinked fixture kernelcache whose
                                  __PRELINK_INFO holds many codeless kexts
                                  before the fixture's, every element with
                                  an ID and the versions IDREFs, as
                                  OSSerialize writes them
"""
import json
import os
import sys

FIX, OUT = sys.argv[1], sys.argv[2]
SIZE = int(sys.argv[3] if len(sys.argv) > 3 else 24) << 20
sys.path.insert(0, FIX)
import make_kernelcache as m  # noqa: E402


def put(rel, data):
    path = os.path.join(OUT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


sigs, n = [], 0
while n < SIZE // 2:
    i = len(sigs)
    s = {"args": 0, "symbol": "_f%d" % i, "prototype": "",
         "anchors": [{"string": "s%d.%d" % (i, k), "segment": "__TEXT", "section": "__cstring",
                      "caller": None} for k in range(8)],
         "backtrace": ["_b%d" % k for k in range(4)]}
    sigs.append(s)
    n += len(json.dumps(s, separators=(",", ":")))
put("sigs/kernel/23/xnu.json", json.dumps({"target": "com.apple.kernel", "total": len(sigs),
                                           "signatures": sigs}, separators=(",", ":")).encode())
put("sigs/kernel/23/kexts/bt.json",
    ('{"target":"com.apple.kernel","signatures":[{"anchors":[],"symbol":"_x","backtrace":[' +
     ",".join(['""'] * (SIZE // 2 // 3)) + "]}]}").encode())

put("sigs/kernel/23/kexts/deep.json",
    ('{"target":"com.apple.kernel","signatures":[' + "[" * 1000000 + "]" * 1000000 + "]}").encode())

count = SIZE // 14
put("kc.mapped.symbols.json",
    ("{" + ",".join('"%d":"a"' % (count - i) for i in range(count)) + "}").encode())

kernel = open(os.path.join(FIX, "bin", "fakekernel.arm64"), "rb").read()
kext = open(os.path.join(FIX, "bin", "fakekext.arm64"), "rb").read()
one = ("<dict ID=\"{0}\"><key>CFBundleIdentifier</key><string ID=\"{1}\">com.example.K{0}</string>"
       "<key>CFBundleVersion</key><string IDREF=\"100\"/>"
       "<key>IOKitPersonalities</key><dict ID=\"{2}\"><key>P</key><dict ID=\"{3}\">"
       "<key>IOClass</key><string ID=\"{4}\">K{0}</string><key>IOProbeScore</key>"
       "<integer size=\"32\" ID=\"{5}\">0x3e8</integer><key>IOMatchCategory</key><string IDREF=\"{4}\"/>"
       "</dict></dict><key>OSBundleRequired</key><string ID=\"{6}\">Root</string></dict>")
parts, n, i = ["<string ID=\"100\">1.0</string>"], 0, 101
while n < SIZE:
    parts.append(one.format(*range(i, i + 7)))
    n += len(parts[-1])
    i += 7
many = "".join(parts).encode()
# the fixture's own IDs (0..13) after these: renumbered past them
base = i


def renumber(xml):
    for k in range(13, -1, -1):
        for a in (b"ID", b"IDREF"):
            xml = xml.replace(a + b"=\"%d\"" % k, a + b"=\"%d\"" % (base + k))
    return xml


put("pl.big", m.prelinked(kernel, kext, "com.kpbrowse.FakeDriver", False,
                          info=lambda i, s, n: renumber(m.prelink_info(i, s, n)).replace(
                              b"<array>", b"<array>" + many, 1)))
