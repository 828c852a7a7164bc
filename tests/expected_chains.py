#!/usr/bin/env python3
"""expected_chains.py JSON EXPECTED_TSV REPORT: checks the panicked thread of
`kpbrowse show --json` output against the llvm-symbolizer chains that
fixtures/make_reports.py recorded for REPORT in EXPECTED_TSV (frame index,
lookup address, chain innermost first joined with ' | ').  Prints
"ok N frames", or what differs, or "no expectations"."""
import json, sys

r = json.load(open(sys.argv[1]))
want = {}
for line in open(sys.argv[2]):
    if line.startswith("#"):
        continue
    rep, i, addr, chain = line.rstrip("\n").split("\t")
    if rep == sys.argv[3]:
        want[int(i)] = (addr, chain)
t = [t for p in r["processes"] for t in p["threads"] if t["panicked"]][0]
bad = []
for i, (addr, chain) in sorted(want.items()):
    f = t["frames"][i]
    got = " | ".join("%s %s:%s:%s" % (s["function"], s["file"], s["line"] or 0, s["column"] or 0) for s in f["symbols"])
    if f["lookup_address"] != addr or got != chain or f["symbol_source"] != "dwarf":
        bad.append("frame %d: got %s %s, want %s %s" % (i, f["lookup_address"], got, addr, chain))
print("ok %d frames" % len(want) if not bad and want else "; ".join(bad) or "no expectations")
