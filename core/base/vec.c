/* vec.c: growable arrays (contract: kp_vec.h). */
#include "kp_vec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool kp_vec_grow(void **arr, size_t *cap, size_t need, size_t sz)
{
	if (need <= *cap)
		return true;
	size_t ncap = *cap ? *cap : 8;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return false;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / sz)
		return false;
	void *p = realloc(*arr, ncap * sz);
	if (!p)
		return false;
	*arr = p;
	*cap = ncap;
	return true;
}

void *kp_vec_push(void **arr, size_t *n, size_t *cap, size_t sz)
{
	if (!kp_vec_reserve(arr, cap, *n + 1, sz))
		return NULL;
	void *e = (char *)*arr + *n * sz;
	memset(e, 0, sz);
	(*n)++;
	return e;
}

void kp_vec_shrink(void **arr, size_t *cap, size_t n, size_t sz)
{
	if (n && n < *cap) {
		void *p = realloc(*arr, n * sz);
		if (p) {
			*arr = p;
			*cap = n;
		}
	}
}
