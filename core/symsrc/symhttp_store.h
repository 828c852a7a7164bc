/* symhttp_store.h: the symbol servers' download folder as the transfers
 * see it (private to symhttp.c and symhttp_store.c): the downloads this
 * process handed out (never evicted by it), and the cap over all downloads
 * for one run of transfers.
 *
 * Call order: a run fills a zeroed budget (cap set) with
 * kp__symhttp_budget_fill, takes
 * room with kp__symhttp_budget_take as bodies arrive, and ends with
 * kp__symhttp_budget_free.  Thread-safe: the in-use set is locked. */
#ifndef KP_SYMHTTP_STORE_H
#define KP_SYMHTTP_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* path stays where it is for the rest of this process (a path handed out). */
void kp__symhttp_mark_in_use(const char *path);

struct kp__symhttp_held {
	char *path;
	int64_t atime_ns;
	uint64_t size;
};

struct kp__symhttp_budget {
	uint64_t cap, used;     /* used: every file and live temporary, and reservations */
	uint64_t evictable;     /* what v[next..n) holds */
	struct kp__symhttp_held *v;   /* evictable downloads, least recently used first */
	size_t n, vcap, next;   /* next: the first not yet evicted */
};

/* The folder as it is, into a zeroed b (cap set): dead writers' and stale
 * (stale_s) temporaries removed, every file and live temporary counted,
 * the downloads no one here uses listed as evictable, least recently used
 * first. */
void kp__symhttp_budget_fill(struct kp__symhttp_budget *b, const char *dir, long stale_s);
/* Reserves need more bytes, first removing the least recently used
 * downloads while they would not fit; false when they still would not
 * (then nothing is reserved, and nothing removed in vain when even all of
 * them would not make room).  *evicted counts what it removed. */
bool kp__symhttp_budget_take(struct kp__symhttp_budget *b, uint64_t need, unsigned *evicted);
void kp__symhttp_budget_free(struct kp__symhttp_budget *b);

#endif
