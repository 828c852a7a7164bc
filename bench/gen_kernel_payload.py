#!/usr/bin/env python3
"""gen_kernel_payload.py KERNELCACHE SIZE_MB OUT [SEED]: a kernel-sized payload
for LZFSE runs (bench/bench_lzfse.sh, scripts/check-lzfse.sh) from the
fixture kernelcache (make_kernelcache.py): copies of its 16 KiB pages with
a third of their 32-bit words changed (other addresses, other
instructions), zero-padded pages and runs of symbol-like names between,
as a real kernelcache's code, data, strings and padding mix.  Compresses
about 2.7x with the reference encoder, as real kernelcaches do (about 3x).  Seeded:
the same arguments give the same bytes.  Stdlib only."""
import random
import sys

src, mb, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
r = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 30)
base = open(src, "rb").read()
pages = [base[i:i + 16384] for i in range(0, len(base) - 16383, 16384)]
words = ("_vm_map _kalloc _zalloc _IOService _OSObject _thread _task _lck_mtx _ipc_port "
         "_mach_msg _pmap _sysctl _vnode _proc _kext _panic _start _stop _probe _init "
         "_retain _release _copy _enter _exit _lookup _free _alloc").split()
total = int(mb * (1 << 20))
parts = []
size = 0
while size < total:
    kind = r.random()
    if kind < 0.75:
        p = bytearray(r.choice(pages))
        for _ in range(len(p) // 12):
            at = r.randrange(0, len(p) - 4) & ~3
            p[at:at + 4] = r.getrandbits(32).to_bytes(4, "little")
    elif kind < 0.8:
        p = bytes(16384)
    else:
        p = "".join(r.choice(words) + r.choice(words)[1:] + "%d\0" % r.randrange(1000)
                    for _ in range(900)).encode()
    parts.append(bytes(p))
    size += len(p)
open(out, "wb").write(b"".join(parts)[:total])
