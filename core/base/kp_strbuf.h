/* kp_strbuf.h: a growable NUL-terminated string.
 *
 * Ownership: the caller owns the kp_sb (zero-initialised = empty) and its
 * buffer: kp_sb_take hands the buffer over, kp_sb_free releases it.  Out of
 * memory is sticky: once an append fails, later appends do nothing and
 * kp_sb_take returns NULL, so a builder can check once at the end.  While not
 * failed, s is NULL (nothing appended yet) or NUL-terminated at n. */
#ifndef KP_STRBUF_H
#define KP_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct kp_sb {
	char *s;
	size_t n, cap;
	bool oom;
} kp_sb;

/* Appends s[0..n); false when out of memory (now or earlier). */
bool kp_sb_add(kp_sb *b, const char *s, size_t n);
bool kp_sb_str(kp_sb *b, const char *s);

/* Empties the string, keeping the allocation (and a sticky failure). */
void kp_sb_reset(kp_sb *b);

/* The string (malloc'd, "" when nothing was added, caller frees), or NULL
 * after a failure; b is empty afterwards either way. */
char *kp_sb_take(kp_sb *b);

void kp_sb_free(kp_sb *b);

#endif
