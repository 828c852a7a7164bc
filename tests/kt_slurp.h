/* kt_slurp.h: reading a whole file, for tests and benchmarks.
 * Ownership: the caller frees the returned buffer (NUL-terminated, not
 * counted in *len); NULL when the file cannot be read. */
#ifndef KT_SLURP_H
#define KT_SLURP_H

#include <stdio.h>
#include <stdlib.h>

static void *kt_slurp(const char *path, size_t *len) __attribute__((unused));
static void *kt_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0, got;
	char *b = malloc(cap + 1);
	while (b && (got = fread(b + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *nb = realloc(b, cap * 2 + 1);
			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (b) {
		b[n] = '\0';
		*len = n;
	}
	return b;
}

#endif
