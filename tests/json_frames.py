#!/usr/bin/env python3
"""json_frames.py FILE.json: one line per symbolicated frame of `kpbrowse show
--json` output, "image_uuid lookup_address symbol_source function" (the
first symbol's function), for the kernelcache and signature tests."""
import json
import sys


def walk(x):
    if isinstance(x, dict):
        if "symbol_source" in x:
            f = (x.get("symbols") or [{}])[0].get("function")
            print(x["image_uuid"], x.get("lookup_address"), x["symbol_source"], f)
            return
        for v in x.values():
            walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)


walk(json.load(open(sys.argv[1])))
