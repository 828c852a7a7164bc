#!/usr/bin/env python3
"""fleet.py FIXTURES OUT: reports of a fleet that moves, for take.sh's trend
shots (issue 34): the demo's FakeDriver panic (FIXTURES/Kernel-2020-09-14-
201744.panic) rising from late August to late November 2026, on 25A354 and
then 25B78; and its .ips sibling seen twice in August and back in November
(regressed).  Seeded: the same files every run."""
import datetime
import random
import sys

fix, out = sys.argv[1], sys.argv[2]
random.seed(7)
src = open(fix + "/Kernel-2020-09-14-201744.panic").read()
ips = open(fix + "/panic-full-2026-11-27-183005.0002.ips").read()
n = 0
start = datetime.date(2026, 8, 25)
for d in range(95):
    day = start + datetime.timedelta(days=d)
    k = 1 if random.random() < 0.1 + d / 120 else 0
    if d > 80:
        k += random.randint(0, 2)
    for j in range(k):
        n += 1
        osv = "macOS 26.0 (25A354)" if d < 50 else "macOS 26.1 (25B78)"
        t = (src.replace('"timestamp":"2020-09-14 20:17:44.00 +0200"', '"timestamp":"%s 1%d:00:00.00 +0000"' % (day, j))
             .replace("Mac OS X 10.15.7 (19H2)", osv).replace("55AA55AA", "%08X" % (0x5A000000 + n))
             .replace("length 512", "length %d" % (500 + n)))
        open("%s/a%03d.panic" % (out, n), "w").write(t)
for day in ["2026-08-26", "2026-08-28", "2026-11-18", "2026-11-24"]:
    n += 1
    t = (ips.replace('"timestamp":"2026-11-27 18:30:05.00 +0100"', '"timestamp":"%s 08:00:00.00 +0000"' % day)
         .replace("A1B2C3D4", "%08X" % (0x6B000000 + n)))
    open("%s/b%03d.ips" % (out, n), "w").write(t)
