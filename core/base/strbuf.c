/* strbuf.c: a growable string (contract: kp_strbuf.h). */
#include "kp_strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool kp_sb_add(kp_sb *b, const char *s, size_t n)
{
	if (b->oom)
		return false;
	if (n > SIZE_MAX - 1 - b->n) {
		b->oom = true;
		return false;
	}
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 128;
		while (cap < b->n + n + 1) {
			if (cap > SIZE_MAX / 2) {
				b->oom = true;
				return false;
			}
			cap *= 2;
		}
		char *p = realloc(b->s, cap);
		if (!p) {
			b->oom = true;
			return false;
		}
		b->s = p;
		b->cap = cap;
	}
	if (n)
		memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
	return true;
}

bool kp_sb_str(kp_sb *b, const char *s)
{
	return kp_sb_add(b, s, strlen(s));
}

void kp_sb_reset(kp_sb *b)
{
	b->n = 0;
	if (b->s)
		b->s[0] = '\0';
}

char *kp_sb_take(kp_sb *b)
{
	char *s = b->s;
	bool oom = b->oom;
	*b = (kp_sb){0};
	if (oom) {
		free(s);
		return NULL;
	}
	return s ? s : calloc(1, 1);
}

void kp_sb_free(kp_sb *b)
{
	free(b->s);
	*b = (kp_sb){0};
}
