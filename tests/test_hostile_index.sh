#!/bin/sh
# test_hostile_index.sh: index safety (issue 6 item 5).  Reports whose
# headline, process name, kext bundle id and path carry quotes, semicolons,
# NUL bytes and SQL round-trip unchanged through `kpbrowse index`,
# `list --json`, `search --json` (text, --kext, --uuid) and `show @ID --json`;
# the database survives (no statement is ever built from report text).
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
unset KPBROWSE_DB
if ! command -v python3 >/dev/null 2>&1; then
	skip "python3 absent"
	done_testing
fi
db="$tmp/db dir/it's; \"index\".sqlite3"
src="$tmp/reports with spaces/it's \"quoted\"; DROP TABLE reports; --"
mkdir -p "$src" "$(dirname "$db")"

python3 - "$KP_FIXTURES/reports" "$src" >"$tmp/gen" 2>&1 <<'PY'
import json, os, sys
fix, out = sys.argv[1], sys.argv[2]
hdr, body = open(os.path.join(fix, "panic-full-2026-11-20-101500.0001.ips")).read().split("\n", 1)
EVIL = [
    "'); DROP TABLE reports; --",
    "\"; DELETE FROM groups WHERE 1=1; --",
    "Robert'); DROP TABLE reports;-- \"quoted\" ; semi;colons ' \" ` \\ %_*",
    "nul\u0000byte",
    "x' OR '1'='1",
]
KEXT = ["com.evil'q\"uote;DROP", "com.x');DROP.TABLE", "com.nul\"semi;", "com.a'b", "com.or'1'='1"]
for i, (evil, kext) in enumerate(zip(EVIL, KEXT)):
    b = json.loads(body)
    ps = b["panicString"]
    ps = ps.replace("FakeDriver: report length 4096 exceeds buffer @FakeDriver.cpp:77",
                    "Evil%d %s" % (i, evil), 1)
    ps = ps.replace("pid 321: fakeclient", "pid 321: proc%d %s" % (i, evil), 1)
    ps = ps.replace("com.kpbrowse.FakeDriver", kext)
    b["panicString"] = ps
    b["incident"] = "6D3C1B7A-2E4F-4A51-9C3B-0F1E2D3C4B%02X" % i
    for p in b["processByPid"].values():
        if p["pid"] == 321:
            p["procname"] = "proc%d %s" % (i, evil)
    h = json.loads(hdr)
    h["incident_id"] = b["incident"]
    h["timestamp"] = "2026-11-2%d 10:15:00.00 +0100" % i
    name = "r%d it's \"q\"; DROP TABLE reports; --.ips" % i
    with open(os.path.join(out, name), "w") as f:
        f.write(json.dumps(h) + "\n" + json.dumps(b, indent=2) + "\n")
print("ok")
PY
check "$(tail -1 "$tmp/gen")" = ok "hostile index reports generated"

"$kp" index --db "$db" "$src" >"$tmp/out" 2>"$tmp/err"
check "$?" = 0 "index: exit 0 ($(head -c 200 "$tmp/err"))"
check_grep "5 new" "$tmp/out" "index: 5 new reports ($(cat "$tmp/out"))"

for f in "$src"/*.ips; do
	"$kp" show --json --no-symbols "$f" >"$tmp/file-$(basename "$f" | cut -c1-2).json" 2>/dev/null
done
"$kp" list --db "$db" --json >"$tmp/list.json" 2>"$tmp/err"
check "$?" = 0 "list --json: exit 0"
"$kp" list --db "$db" --groups --json >"$tmp/groups.json" 2>"$tmp/err"
check "$?" = 0 "list --groups --json: exit 0"
for i in 0 1 2 3 4; do
	id=$(python3 -c '
import json, sys
for r in json.load(open(sys.argv[1])):
    if "/r%s " % sys.argv[2] in r["path"]:
        print(r["id"])' "$tmp/list.json" "$i")
	"$kp" show --db "$db" --json --no-symbols "@$id" >"$tmp/show-$i.json" 2>"$tmp/err"
	check "$?" = 0 "show @$id --json: exit 0"
done

# One python pass checks every field through every command.
python3 - "$tmp" "$db" "$src" "$kp" >"$tmp/py" 2>&1 <<'PY'
import json, os, subprocess, sys
tmp, db, src, kp = sys.argv[1:5]
EVIL = [
    "'); DROP TABLE reports; --",
    "\"; DELETE FROM groups WHERE 1=1; --",
    "Robert'); DROP TABLE reports;-- \"quoted\" ; semi;colons ' \" ` \\ %_*",
    "nul\u0000byte",
    "x' OR '1'='1",
]
KEXT = ["com.evil'q\"uote;DROP", "com.x');DROP.TABLE", "com.nul\"semi;", "com.a'b", "com.or'1'='1"]
lst = json.load(open(os.path.join(tmp, "list.json")))
bad = []
def expect(what, got, want):
    if got != want:
        bad.append("%s: got %r, want %r" % (what, got, want))
def run(*args):
    p = subprocess.run([kp] + list(args) + ["--db", db], capture_output=True)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
expect("list count", len(lst), 5)
for i, evil in enumerate(EVIL):
    path = [os.path.join(src, n) for n in os.listdir(src) if n.startswith("r%d " % i)][0]
    f = json.load(open(os.path.join(tmp, "file-r%d.json" % i)))
    s = json.load(open(os.path.join(tmp, "show-%d.json" % i)))
    row = [r for r in lst if r["path"] == path]
    expect("r%d list path" % i, len(row), 1)
    if not row:
        continue
    row = row[0]
    # What the parser makes of the text (a NUL cuts a C string) is the reference.
    # headline_raw is the message as parsed, headline its title (issue 31 item 9)
    want_head = f["headline_raw"]
    if "\u0000" not in evil:
        expect("r%d parsed headline" % i, want_head, "Evil%d %s" % (i, evil))
    expect("r%d list headline" % i, row["headline_raw"], want_head)
    expect("r%d show @ID headline" % i, s["headline_raw"], want_head)
    expect("r%d list title" % i, row["headline"], f["headline"])
    expect("r%d show @ID title" % i, s["headline"], f["headline"])
    expect("r%d show @ID panic_string" % i, s["panic_string"], f["panic_string"])
    expect("r%d show @ID process" % i, s["panicked"]["process"], f["panicked"]["process"])
    if "\u0000" not in evil:
        expect("r%d parsed process" % i, f["panicked"]["process"], "proc%d %s" % (i, evil))
    expect("r%d show @ID file" % i, s["file"], path)
    names = sorted(p["name"] or "" for p in s["processes"])
    expect("r%d show @ID process names" % i, names, sorted(p["name"] or "" for p in f["processes"]))
    expect("r%d show @ID kexts" % i, [k["name"] for k in s["loaded_kexts"]], [k["name"] for k in f["loaded_kexts"]])
    expect("r%d kext parsed" % i, KEXT[i] in [im["name"] for im in f["images"]], True)
    # search: text (every word of the evil string), kext, uuid
    for q in (evil.replace("\u0000", " "), "Evil%d" % i):
        rc, out, err = run("search", "--json", q)
        try:
            ids = [r["id"] for r in json.loads(out)] if out.strip() else []
        except ValueError:
            ids = "bad JSON: " + out[:80]
        if not (rc == 0 and isinstance(ids, list) and row["id"] in ids):
            bad.append("r%d search --json %r: rc %d, ids %s, err %s" % (i, q, rc, ids, err.strip()[:120]))
    rc, out, err = run("search", "--json", "--kext", KEXT[i])
    ids = [r["id"] for r in json.loads(out)] if rc == 0 and out.strip() else []
    if rc != 0 or row["id"] not in ids:
        bad.append("r%d search --kext %r: rc %d, ids %s, err %s" % (i, KEXT[i], rc, ids, err.strip()[:120]))
    elif ids != [row["id"]]:
        bad.append("r%d search --kext %r matched others too: %s" % (i, KEXT[i], ids))
    rc, out, err = run("search", "--json", "FakeDriver")
rc, out, err = run("search", "--json", "--uuid", "4C4C44A3-5555-3144-A151-249D146ED38D")
expect("search --uuid finds all 5", len(json.loads(out)) if rc == 0 else rc, 5)
# the database is intact after all of it
rc, out, err = run("list", "--json")
expect("list after searches", len(json.loads(out)) if rc == 0 else err, 5)
rc, out, err = run("list", "--groups", "--json")
expect("groups after searches", rc, 0)
print("\n".join(bad) if bad else "ok")
PY
check "$(tail -1 "$tmp/py")" = ok "every field round-trips through index, list, search, show @ID ($(head -5 "$tmp/py" | tr '\n' ';'))"

# A re-index of the same files changes nothing.
"$kp" index --db "$db" "$src" >"$tmp/out" 2>&1
check_grep "0 new" "$tmp/out" "re-index: 0 new ($(cat "$tmp/out"))"
done_testing
