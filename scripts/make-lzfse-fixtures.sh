#!/bin/sh
# make-lzfse-fixtures.sh: writes tests/fixtures/lzfse/ once, with Apple's
# reference encoder (../shared/vendor/lzfse-1.0, built by build-lzfse.sh) as
# the oracle: NAME.lzfse for each payload below and SHA1SUMS ("sha1 size
# name" of each original), which test_lzfse decodes and compares.  The
# payloads are made here, deterministically (python3's seeded random):
#   text.txt      256 KiB of words (bvx2, several blocks)
#   small.txt     1,000 bytes of words, smallbin 3,800 bytes of the fixture
#                 kext (under 4 KiB: the reference writes LZVN, bvxn)
#   fakekernel    tests/fixtures/bin/fakekernel.arm64 (bvx2)
#   kernelcache   make_kernelcache.py's MH_FILESET kernelcache (bvx2; also
#                 test_kernelcache.sh's LZFSE payload)
#   random        24 KiB of random bytes, zeros 4 MiB of zeros
#   text.txt.v1, fakekernel.v1: those two with each bvx2 header rewritten
#                 as bvx1 (plain tables; older encoders wrote them, the
#                 reference only reads them), the streams as they were
# Committed: run again only to change the set.  Needs ../shared/vendor.
set -eu
cd "$(dirname "$0")/.."
out=$(sh scripts/build-lzfse.sh | tail -n 1)
case "$out" in /*) ;; *) echo "make-lzfse-fixtures: $out" >&2; exit 1 ;; esac
lz=$out/bin/lzfse
export LD_LIBRARY_PATH=$out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fix=tests/fixtures
dst=$fix/lzfse
work=$(mktemp -d "${TMPDIR:-/tmp}/kp-lzfse-fix.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 "$fix/make_kernelcache.py" "$work/kc" "$fix/bin" arm64 >/dev/null
cp "$work/kc/kernelcache" "$work/kernelcache"
cp "$fix/bin/fakekernel.arm64" "$work/fakekernel"
python3 - "$work" "$fix/bin/fakekext.arm64" <<'PY'
import random, sys
w, kext = sys.argv[1:3]
r = random.Random(30)
words = ("kernel panic thread task vm_map fault address page lock mutex zone kext driver "
         "IOService start stop probe interrupt queue buffer memory descriptor cpu core "
         "stack frame backtrace the of and a to in is for with on").split()
def text(n):
    out = []
    size = 0
    while size < n:
        s = " ".join(r.choice(words) for _ in range(r.randrange(3, 14))) + ".\n"
        out.append(s)
        size += len(s)
    return "".join(out).encode()[:n]
open(w + "/text.txt", "wb").write(text(256 * 1024))
open(w + "/small.txt", "wb").write(text(1000))
open(w + "/smallbin", "wb").write(open(kext, "rb").read()[:3800])
open(w + "/random", "wb").write(bytes(r.randrange(256) for _ in range(24 * 1024)))
open(w + "/zeros", "wb").write(bytes(4 << 20))
PY
: >"$dst/SHA1SUMS"
for f in text.txt small.txt smallbin fakekernel kernelcache random zeros; do
	"$lz" -encode -i "$work/$f" -o "$dst/$f.lzfse"
	printf '%s %s %s\n' "$(sha1sum <"$work/$f" | cut -d' ' -f1)" "$(wc -c <"$work/$f" | tr -d ' ')" "$f" \
		>>"$dst/SHA1SUMS"
	echo "make-lzfse-fixtures: $f: $(wc -c <"$work/$f" | tr -d ' ') -> $(wc -c <"$dst/$f.lzfse" | tr -d ' ') bytes," \
		"blocks $(python3 -c '
import re, sys
d = open(sys.argv[1], "rb").read()
print(" ".join(sorted(set(m.decode() for m in re.findall(rb"bvx[-12n$]", d)))))' "$dst/$f.lzfse")"
done
# bvx1: the same blocks with the v2 header unpacked into v1's 772 bytes
python3 - "$dst" <<'PY'
import struct, sys
dst = sys.argv[1]
def freqs(b, count):
    acc = n = i = 0
    out = []
    for _ in range(count):
        while n <= 24 and i < len(b):
            acc |= b[i] << n
            n += 8
            i += 1
        lo = acc & 31
        if lo & 3 == 0: nb, v = 2, 0
        elif lo & 3 == 2: nb, v = 2, 1
        elif lo & 7 == 1: nb, v = 3, 2
        elif lo & 7 == 5: nb, v = 3, 3
        elif lo & 7 == 3: nb, v = 5, 4 + (lo >> 3)
        elif lo & 15 == 7: nb, v = 8, 8 + (acc >> 4 & 15)
        else: nb, v = 14, 24 + (acc >> 4 & 1023)
        out.append(v)
        acc >>= nb
        n -= nb
    return out
for name in ("text.txt", "fakekernel"):
    d = open("%s/%s.lzfse" % (dst, name), "rb").read()
    o = bytearray()
    at = 0
    while True:
        magic = d[at:at + 4]
        if magic == b"bvx$":
            o += magic
            break
        assert magic == b"bvx2", magic
        raw, f0, f1, f2 = struct.unpack_from("<IQQQ", d, at + 4)
        get = lambda v, o, n: v >> o & ((1 << n) - 1)
        head = get(f2, 0, 32)
        nlit, litb, nmatch = get(f0, 0, 20), get(f0, 20, 20), get(f0, 40, 20)
        lmdb = get(f1, 40, 20)
        f = freqs(d[at + 32:at + head], 360)
        o += b"bvx1" + struct.pack("<6I", raw, litb + lmdb, nlit, nmatch, litb, lmdb)
        o += struct.pack("<i4H", get(f0, 60, 3) - 7, *[get(f1, 10 * k, 10) for k in range(4)])
        o += struct.pack("<i3H", get(f1, 60, 3) - 7, get(f2, 32, 10), get(f2, 42, 10), get(f2, 52, 10))
        o += struct.pack("<360H", *f) + bytes(2)
        o += d[at + head:at + head + litb + lmdb]
        at += head + litb + lmdb
    open("%s/%s.v1.lzfse" % (dst, name), "wb").write(o)
PY
grep -E ' (text.txt|fakekernel)$' "$dst/SHA1SUMS" | sed 's/$/.v1/' >>"$dst/SHA1SUMS"
