#include "kp_arena.h"

#include <stdint.h>
#include <stdlib.h>

/* Under ASan every allocation is followed by a poisoned red zone and the
 * unused rest of a block stays poisoned, so a write past one arena object
 * is caught like one past a malloc'd block (issue 32 item 0: a count kept
 * across a repeated report member overran an arena array in silence). */
#if defined(__SANITIZE_ADDRESS__)
#define KP_ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KP_ARENA_ASAN 1
#endif
#endif
#ifdef KP_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define REDZONE 16
#else
#define REDZONE 0
#define ASAN_POISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#endif

/* Blocks grow geometrically up to 1 MiB; a request larger than that gets a
 * block of its own so a huge string does not waste a chunk. */
struct block {
	struct block *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

struct kp_arena {
	struct block *head;
	size_t next_size;
};

struct kp_arena *kp_arena_new(void)
{
	struct kp_arena *a = calloc(1, sizeof *a);
	if (a)
		a->next_size = 4096;
	return a;
}

void *kp_arena_alloc(struct kp_arena *a, size_t n)
{
	size_t want = n;
	if (n > SIZE_MAX - 32 - REDZONE)
		return NULL;
	n = ((n + 15) & ~(size_t)15) + REDZONE;
	if (n == 0)
		n = 16;
	struct block *b = a->head;
	if (!b || b->size - b->used < n) {
		size_t size = a->next_size;
		if (size < 1u << 20)
			a->next_size = size * 2;
		if (n > size)
			size = n;
		if (size > SIZE_MAX - sizeof *b)
			return NULL;
		b = malloc(sizeof *b + size);
		if (!b)
			return NULL;
		b->used = 0;
		b->size = size;
		ASAN_POISON_MEMORY_REGION(b->data, size);
		if (a->head && n > a->next_size) {
			/* keep the current block as head: it still has room */
			b->next = a->head->next;
			a->head->next = b;
			b->used = n;
			ASAN_UNPOISON_MEMORY_REGION(b->data, want);
			return b->data;
		}
		b->next = a->head;
		a->head = b;
	}
	void *p = b->data + b->used;
	b->used += n;
	ASAN_UNPOISON_MEMORY_REGION(p, want);
	return p;
}

void kp_arena_free(struct kp_arena *a)
{
	if (!a)
		return;
	struct block *b = a->head;
	while (b) {
		struct block *next = b->next;
		ASAN_UNPOISON_MEMORY_REGION(b->data, b->size);
		free(b);
		b = next;
	}
	free(a);
}
