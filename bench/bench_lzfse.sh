#!/bin/sh
# bench_lzfse.sh [BUILD_DIR] [MB]: LZFSE decode speed, kpbrowse's decoder
# (core/macho/lzfse.c) vs Apple's reference (../shared/vendor/lzfse-1.0,
# built by scripts/build-lzfse.sh, -O3 Release), on a kernel-sized payload
# (bench/gen_kernel_payload.py, MB megabytes, default 32) the reference
# encodes; bench_lzfse times both in one process, best of 7.  Where
# ../shared/vendor is absent there is no encoder: it says so and times ours
# alone on the committed 256 KiB text fixture.  Asserts nothing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-$root/build}
mb=${2:-32}
b=$build/bench/bench_lzfse
[ -x "$b" ] || { echo "build it first: cmake --build $build --target bench" >&2; exit 2; }
out=$(sh "$root/scripts/build-lzfse.sh" | tail -n 1)
case "$out" in
/*) ;;
*)
	echo "bench_lzfse: $out: no reference encoder, ours alone on a fixture"
	exec "$b" "$root/tests/fixtures/lzfse/text.txt.lzfse"
	;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/kpbrowse-bench-lzfse.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 "$root/tests/fixtures/make_kernelcache.py" "$work/kc" "$root/tests/fixtures/bin" arm64 >/dev/null
python3 "$here/gen_kernel_payload.py" "$work/kc/kernelcache" "$mb" "$work/kernel"
LD_LIBRARY_PATH=$out/lib "$out/bin/lzfse" -encode -i "$work/kernel" -o "$work/kernel.lzfse"
lib=$(ls "$out"/lib/liblzfse.so "$out"/lib/liblzfse.dylib 2>/dev/null | head -n 1)
"$b" "$work/kernel.lzfse" "$lib" 7
