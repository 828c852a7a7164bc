/* kp_arena.h: a bump allocator; everything is freed at once.
 * Ownership: the arena owns every block it hands out. */
#ifndef KP_ARENA_H
#define KP_ARENA_H

#include <stddef.h>

struct kp_arena;

struct kp_arena *kp_arena_new(void);
void *kp_arena_alloc(struct kp_arena *a, size_t n);   /* 16-aligned, NULL on OOM */
void kp_arena_free(struct kp_arena *a);

#endif
