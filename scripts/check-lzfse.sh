#!/bin/sh
# check-lzfse.sh [BUILD_DIR]: kpbrowse's LZFSE decoder (core/macho/lzfse.c,
# through BUILD_DIR/tests/test_lzfse --decode) against Apple's reference
# (../shared/vendor/lzfse-1.0, built by build-lzfse.sh) as the oracle, on
# payloads too big to commit: each is encoded by the reference's `lzfse`
# command and must decode to the same bytes.  A 24 MB kernel-like payload
# (bench/gen_kernel_payload.py), 9 MB of zeros, 5 MB of words, 3 MB of random
# bytes, the fixture binaries, and 60 small inputs (1 to 4,095 bytes, where
# the reference writes LZVN) of text, code and random bytes; then the
# committed bvx1 fixtures (tests/fixtures/lzfse/*.v1.lzfse, rewritten from
# the reference's bvx2 by make-lzfse-fixtures.sh) decoded by the reference,
# so our reading of bvx1 is the reference's.  Says "skipped: ..." and exits
# 0 where ../shared/vendor is absent.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
dec=$build/tests/test_lzfse
[ -x "$dec" ] || { echo "check-lzfse: $dec not built" >&2; exit 2; }
out=$(sh scripts/build-lzfse.sh | tail -n 1)
case "$out" in
/*) ;;
*) echo "check-lzfse: $out"; exit 0 ;;
esac
lz=$out/bin/lzfse
export LD_LIBRARY_PATH=$out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
work=$(mktemp -d "${TMPDIR:-/tmp}/kp-check-lzfse.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in"
python3 tests/fixtures/make_kernelcache.py "$work/kc" tests/fixtures/bin arm64 >/dev/null
python3 bench/gen_kernel_payload.py "$work/kc/kernelcache" 24 "$work/in/kernel24m" 2
cp tests/fixtures/bin/fakekernel.arm64 tests/fixtures/bin/fakekext.universal "$work/kc/prelinked" "$work/in/"
python3 - "$work/in" tests/fixtures/bin/fakekernel.arm64 <<'PY'
import random, sys
w, kern = sys.argv[1:3]
r = random.Random(302)
words = "panic thread zone kext IOService lock page fault map task cpu the of a".split()
def text(n):
    s, size = [], 0
    while size < n:
        s.append(" ".join(r.choice(words) for _ in range(r.randrange(2, 12))) + ".\n")
        size += len(s[-1])
    return "".join(s).encode()[:n]
open(w + "/zeros9m", "wb").write(bytes(9 << 20))
open(w + "/words5m", "wb").write(text(5 << 20))
open(w + "/random3m", "wb").write(r.randbytes(3 << 20))
code = open(kern, "rb").read()
for i in range(60):
    n = [1, 2, 7, 8, 64, 255, 256, 4095, 4094, 4000][i] if i < 10 else r.randrange(1, 4096)
    kind = i % 3
    if kind == 0:
        b = text(n)
    elif kind == 1:
        at = r.randrange(0, len(code) - n)
        b = code[at:at + n]
    else:
        b = r.randbytes(n // 2) + bytes(n - n // 2) if i % 2 else r.randbytes(n)
    open("%s/small%02d" % (w, i), "wb").write(b)
PY
n=0
fail=0
for f in "$work"/in/*; do
	n=$((n + 1))
	"$lz" -encode -i "$f" -o "$work/z"
	if ! "$dec" --decode "$work/z" "$work/got" || ! cmp -s "$f" "$work/got"; then
		echo "check-lzfse: FAILED: $(basename "$f") ($(wc -c <"$f" | tr -d ' ') bytes) does not round-trip" >&2
		fail=$((fail + 1))
	fi
done
echo "check-lzfse: $n payloads encoded by the reference, $((n - fail)) decoded to the same bytes"
for v1 in tests/fixtures/lzfse/*.v1.lzfse; do
	name=$(basename "$v1" .lzfse)
	want=$(awk -v n="$name" '$3 == n {print $1}' tests/fixtures/lzfse/SHA1SUMS)
	"$lz" -decode -i "$v1" -o "$work/ref"
	if [ "$(sha1sum <"$work/ref" | cut -d' ' -f1)" != "$want" ]; then
		echo "check-lzfse: FAILED: the reference does not decode $v1 to its original" >&2
		fail=$((fail + 1))
	fi
done
echo "check-lzfse: the bvx1 fixtures decode with the reference as with ours"
[ "$fail" = 0 ]
