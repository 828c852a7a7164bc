/* kp_htab.h: the one open-addressing table of the in-memory hash tables
 * (the symbol cache builder's strings, the signature matcher's string
 * anchors, the index's folder listings): the probe and the growth, over
 * the caller's own values.
 *
 * A table holds uint32_t values, never 0 (0 is an empty slot): an offset
 * or an index + 1 into the caller's own storage, which says what a value
 * means.  The caller hashes its keys with kp_hash.h (keyed: see there why)
 * and gives the equality and, to grow, the hash of a stored value; slots
 * are probed linearly from the hash's low bits, the load kept at 1/2 at
 * most by kp_htab_room.  Nothing is ever removed.
 *
 * Ownership: the kp_htab (zero-initialised: empty, no slots) owns its
 * slots, released by kp_htab_free; the values' storage is the caller's.
 * Not synchronised. */
#ifndef KP_HTAB_H
#define KP_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct kp_htab {
	uint32_t *slot;   /* cap slots: 0 empty, else a value */
	size_t cap;       /* a power of two, or 0 before the first kp_htab_size/room */
	size_t n;         /* values held */
} kp_htab;

/* Whether stored value v is key (the caller's key type). */
typedef bool kp_htab_eq(const void *ctx, uint32_t v, const void *key);
/* The hash of stored value v, as its key was hashed (to grow). */
typedef uint64_t kp_htab_hash(const void *ctx, uint32_t v);

/* The slot of the value eq accepts for key (hashed h), or the empty slot
 * where it would go.  t has slots (kp_htab_size or kp_htab_room first). */
static inline size_t kp_htab_probe(const kp_htab *t, uint64_t h, kp_htab_eq *eq, const void *ctx,
                                   const void *key)
{
	size_t m = t->cap - 1, i = (size_t)h & m;
	while (t->slot[i] && !eq(ctx, t->slot[i], key))
		i = (i + 1) & m;
	return i;
}

/* The first empty slot from hash h on (for values known to be new). */
static inline size_t kp_htab_empty(const kp_htab *t, uint64_t h)
{
	size_t m = t->cap - 1, i = (size_t)h & m;
	while (t->slot[i])
		i = (i + 1) & m;
	return i;
}

/* Stores v (not 0) in slot i, found empty by kp_htab_probe or _empty. */
static inline void kp_htab_put(kp_htab *t, size_t i, uint32_t v)
{
	t->slot[i] = v;
	t->n++;
}

/* An empty table of cap slots (a power of two), for a caller that sizes
 * it once for all its values; false when out of memory. */
static inline bool kp_htab_size(kp_htab *t, size_t cap)
{
	t->slot = calloc(cap, sizeof *t->slot);
	t->cap = t->slot ? cap : 0;
	t->n = 0;
	return t->slot != NULL;
}

/* Room for extra more values at a load of 1/2 at most, in one growth: the
 * first growth makes first_cap slots (a power of two) or more, each doubles,
 * every value placed again by hash(ctx, v).  False when out of memory (t
 * unchanged). */
static inline bool kp_htab_reserve(kp_htab *t, size_t extra, size_t first_cap, kp_htab_hash *hash,
                                   const void *ctx)
{
	if ((t->n + extra) * 2 <= t->cap)
		return true;
	size_t cap = t->cap ? t->cap * 2 : first_cap;
	while ((t->n + extra) * 2 > cap)
		cap *= 2;
	kp_htab g;
	if (!kp_htab_size(&g, cap))
		return false;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slot[i])
			kp_htab_put(&g, kp_htab_empty(&g, hash(ctx, t->slot[i])), t->slot[i]);
	free(t->slot);
	*t = g;
	return true;
}

/* Room for one more value (kp_htab_reserve's, for a caller that adds one at
 * a time). */
static inline bool kp_htab_room(kp_htab *t, size_t first_cap, kp_htab_hash *hash, const void *ctx)
{
	return kp_htab_reserve(t, 1, first_cap, hash, ctx);
}

static inline void kp_htab_free(kp_htab *t)
{
	free(t->slot);
	t->slot = NULL;
	t->cap = t->n = 0;
}

#endif
