#!/bin/sh
# gen_big_dsym.sh OUTDIR [NCU] [NFUNC]: builds a large synthetic arm64 dylib
# and its dSYM (NCU compilation units of NFUNC functions each, every function
# with a 3-deep chain of inlined helpers) for bench_symbols.sh.  Not
# committed; takes a few minutes on 2 cores.
set -eu
out=${1:?usage: gen_big_dsym.sh OUTDIR [NCU] [NFUNC]}
ncu=${2:-400}
nfn=${3:-100}
PATH=$PATH:/usr/lib/llvm-14/bin
mkdir -p "$out/src" "$out/obj"
i=0
while [ $i -lt "$ncu" ]; do
	f="$out/src/cu$i.c"
	if [ ! -f "$f" ]; then
		awk -v cu=$i -v n="$nfn" 'BEGIN {
			print "typedef unsigned long u64;"
			print "struct st" cu " { u64 a, b, c, d; int e[8]; };"
			for (j = 0; j < n; j++) {
				print "static inline __attribute__((always_inline)) u64 h3_" cu "_" j "(struct st" cu " *s, u64 x) { u64 t = x * 0x9e3779b97f4a7c15ull; s->a ^= t; s->e[x & 7] += (int)t; return t ^ s->b; }"
				print "static inline __attribute__((always_inline)) u64 h2_" cu "_" j "(struct st" cu " *s, u64 x) { u64 r = 0; for (int k = 0; k < 3; k++) r += h3_" cu "_" j "(s, x + k); s->c += r; return r; }"
				print "static inline __attribute__((always_inline)) u64 h1_" cu "_" j "(struct st" cu " *s, u64 x) { u64 v = h2_" cu "_" j "(s, x) + h2_" cu "_" j "(s, x ^ s->d); s->d = v; return v; }"
				print "__attribute__((noinline)) u64 fn_" cu "_" j "(struct st" cu " *s, u64 x, u64 y) {"
				print "  u64 acc = y; for (u64 k = 0; k < (x & 15); k++) { acc += h1_" cu "_" j "(s, x + k); if (acc & 1) acc ^= h2_" cu "_" j "(s, acc); }"
				if (j > 0) print "  acc += fn_" cu "_" (j - 1) "(s, acc, x);"
				print "  return acc;"
				print "}"
			}
		}' >"$f"
	fi
	i=$((i + 1))
done
ls "$out"/src/*.c | xargs -P 2 -I{} sh -c 'o="'"$out"'/obj/$(basename {} .c).o"; [ -f "$o" ] || clang -target arm64-apple-macos11 -g -O2 -c {} -o "$o"'
ld64.lld -arch arm64 -platform_version macos 11.0 11.0 -dylib -undefined dynamic_lookup -o "$out/big" "$out"/obj/*.o
dsymutil "$out/big" -o "$out/big.dSYM"
ls -l "$out/big.dSYM/Contents/Resources/DWARF/big"
