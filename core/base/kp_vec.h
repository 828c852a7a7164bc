/* kp_vec.h: growable arrays of any element type.
 *
 * An array is three caller-owned fields: the pointer, the count used and the
 * capacity allocated (zero-initialised = empty).  Ownership: the caller owns
 * the array and free()s it; on failure the array is left unchanged. */
#ifndef KP_VEC_H
#define KP_VEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Makes room for at least need elements of size sz, doubling the capacity
 * (from 8); false when out of memory or the size would overflow.  Inline
 * where there is room already (most calls: one per element pushed);
 * kp_vec_grow does the rest. */
bool kp_vec_grow(void **arr, size_t *cap, size_t need, size_t sz);
static inline bool kp_vec_reserve(void **arr, size_t *cap, size_t need, size_t sz)
{
	return need <= *cap || kp_vec_grow(arr, cap, need, sz);
}

/* Appends one zeroed element and returns it, or NULL when out of memory. */
void *kp_vec_push(void **arr, size_t *n, size_t *cap, size_t sz);

/* Gives back the slack of a finished array (long-lived caches); keeps the
 * array as it is when the smaller allocation fails. */
void kp_vec_shrink(void **arr, size_t *cap, size_t n, size_t sz);

/* In a sorted array (n elements of size sz, each with a uint64_t key at byte
 * offset off, keys ascending): how many leading elements have a key <= x
 * (C++'s upper_bound).  Branch-free: the hot searches of symbolication miss
 * every other branch otherwise. */
static inline size_t kp_vec_upper_u64(const void *arr, size_t n, size_t sz, size_t off,
                                      uint64_t x)
{
	const unsigned char *p = arr;
	size_t base = 0;
	uint64_t k;
	if (!n)
		return 0;
	while (n > 1) {
		size_t half = n / 2;
		memcpy(&k, p + (base + half) * sz + off, sizeof k);
		base = k <= x ? base + half : base;
		n -= half;
	}
	memcpy(&k, p + base * sz + off, sizeof k);
	return base + (k <= x);
}

/* The same, trying first *hint (the answer of the last search) and the few
 * answers after it, for keys asked in ascending order; *hint gets the answer. */
static inline size_t kp_vec_upper_u64_near(const void *arr, size_t n, size_t sz, size_t off,
                                           uint64_t x, size_t *hint)
{
	const unsigned char *p = arr;
	uint64_t k;
	for (size_t u = *hint, stop = u + 4; u <= n && u < stop; u++) {
		if (u > 0 && (memcpy(&k, p + (u - 1) * sz + off, sizeof k), k > x))
			break;
		if (u == n || (memcpy(&k, p + u * sz + off, sizeof k), k > x))
			return *hint = u;
	}
	return *hint = kp_vec_upper_u64(arr, n, sz, off, x);
}

#endif
