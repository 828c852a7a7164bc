/* kp_hash.h: the one string hash of the in-memory hash tables (the symbol
 * cache's and the DWARF reader's interned strings, signature anchors, the
 * index's folder listings and a write transaction's memory).
 *
 * Their keys come from untrusted files (a dSYM's names, a kernelcache's
 * strings, a folder's file names), and a table probes linearly from the
 * low bits of the hash: with a fixed hash, names made to share those bits
 * turn every insert into a walk of all the others (a file built so takes
 * quadratic time).  So the hash is keyed: FNV-1a from a basis mixed with a
 * per-process random seed, then a 64-bit finalizer, so that every bit of
 * the result depends on every bit of the state.  Values differ from run to
 * run: nothing may store them or depend on their order. */
#ifndef KP_HASH_H
#define KP_HASH_H

#include <stddef.h>
#include <stdint.h>

/* The process's seed: random, made once (thread-safe), never 0. */
uint64_t kp_hash_seed(void);

/* The finalizer (MurmurHash3's fmix64). */
static inline uint64_t kp_hash_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

static inline uint64_t kp_hash_bytes(const void *s, size_t n)
{
	const unsigned char *p = s;
	uint64_t h = 1469598103934665603ull ^ kp_hash_seed();
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return kp_hash_mix(h);
}

/* The same over a NUL-terminated string (its bytes, not the NUL). */
static inline uint64_t kp_hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull ^ kp_hash_seed();
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return kp_hash_mix(h);
}

#endif
