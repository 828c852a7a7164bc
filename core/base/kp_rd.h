/* kp_rd.h: the one bounds-checked byte and LEB128 reader of the symbol files' own
 * decoders (dwarf_line.c: .debug_line; dwarf_die.c: .debug_info and
 * .debug_abbrev; dwarf_cache.c: range lists; symcache_read.c: cache blocks).
 * A read past end clears ok and yields 0 or NULL; every later read then
 * fails too, so a caller checks ok once after a run of reads. */
#ifndef KP_RD_H
#define KP_RD_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct kp__rd {
	const unsigned char *p;
	uint64_t pos, end;
	bool little, ok;
};

static inline uint64_t kp__rd_fixed(struct kp__rd *r, unsigned n)
{
	if (!r->ok || r->end - r->pos < n) {
		r->ok = false;
		return 0;
	}
	uint64_t v = 0;
	const unsigned char *p = r->p + r->pos;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[r->little ? i : n - 1 - i] << (8 * (r->little ? i : n - 1 - i));
	r->pos += n;
	return v;
}

/* A LEB128's bits, the count of bits it spans in *bits and whether its
 * last byte has the sign bit in *neg; 0 when it runs past end. */
static inline uint64_t kp__rd_leb(struct kp__rd *r, unsigned *bits, bool *neg)
{
	uint64_t v = 0;
	unsigned shift = 0;
	while (r->ok && r->pos < r->end) {
		unsigned char b = r->p[r->pos++];
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			*bits = shift;
			*neg = (b & 0x40) != 0;
			return v;
		}
	}
	r->ok = false;
	return 0;
}

static inline uint64_t kp__rd_uleb(struct kp__rd *r)
{
	unsigned bits;
	bool neg;
	return kp__rd_leb(r, &bits, &neg);
}

static inline int64_t kp__rd_sleb(struct kp__rd *r)
{
	unsigned bits = 64;
	bool neg = false;
	uint64_t v = kp__rd_leb(r, &bits, &neg);
	if (bits < 64 && neg)
		v |= ~(uint64_t)0 << bits;
	return (int64_t)v;
}

static inline void kp__rd_skip(struct kp__rd *r, uint64_t n)
{
	if (!r->ok || r->end - r->pos < n)
		r->ok = false;
	else
		r->pos += n;
}

/* A NUL-terminated string in [pos, end) of r, or NULL (r->ok cleared). */
static inline const char *kp__rd_cstr(struct kp__rd *r)
{
	if (!r->ok || r->pos >= r->end) {
		r->ok = false;
		return NULL;
	}
	const unsigned char *s = r->p + r->pos;
	const unsigned char *z = memchr(s, 0, (size_t)(r->end - r->pos));
	if (!z) {
		r->ok = false;
		return NULL;
	}
	r->pos += (uint64_t)(z - s) + 1;
	return (const char *)s;
}

/* The NUL-terminated string at off of a section (sec may be NULL), or NULL. */
static inline const char *kp__rd_str_at(const unsigned char *sec, uint64_t size, uint64_t off)
{
	if (!sec || off >= size || !memchr(sec + off, 0, (size_t)(size - off)))
		return NULL;
	return (const char *)sec + off;
}

#endif
