/* kp_hash.h: the one string hash of the in-memory hash tables (the symbol
 * cache's and the DWARF reader's interned strings, signature anchors, the
 * index's folder listings and a write transaction's memory): 64-bit
 * FNV-1a.  Fast and spread well for names and hex keys; not keyed, so a
 * table fed names from an untrusted file must bound its probing itself. */
#ifndef KP_HASH_H
#define KP_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t kp_hash_bytes(const void *s, size_t n)
{
	const unsigned char *p = s;
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

/* The same over a NUL-terminated string (its bytes, not the NUL). */
static inline uint64_t kp_hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

#endif
