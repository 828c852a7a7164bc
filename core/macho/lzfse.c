/* lzfse.c: LZFSE and LZVN decoding (lzfse.h), from the format.
 *
 * A stream is blocks, each opening with a 4-byte little-endian magic:
 *   "bvx-"  u32 n_raw, then n_raw stored bytes;
 *   "bvxn"  u32 n_raw, u32 n_payload, then LZVN opcodes;
 *   "bvx1"  a 772-byte header of plain fields (the frequency tables as u16),
 *           then the literal and the L/M/D bit streams;
 *   "bvx2"  the same fields packed in 32 bytes, the frequency tables in a
 *           variable-length code up to header_size, then the two streams;
 *   "bvx$"  the end.
 * Matches reach back into everything decoded so far (earlier blocks too).
 *
 * FSE: a symbol's frequency f of N states gives it f consecutive states;
 * reading one takes k bits (k = clz(f) - clz(N), or k-1 for the upper part)
 * that, added to the state's delta, make the next state.  The two bit
 * streams are read backwards from their end (the writer's last bits
 * first), through a 64-bit accumulator refilled a whole byte at a time:
 * one refill covers four literals (4 x 10 bits) or one L/M/D triple
 * (14 + 17 + 23 bits), so no pull ever finds the accumulator short.
 *
 * Bounds: a block's n_raw must fit what is left of dst, its literal count
 * n_raw + 3 and its triple count n_raw + 16 (a decoder bug or a lie cannot
 * loop long on zero-bit states), every L/M must fit the block, every
 * distance what is decoded, every stream read stays inside its bytes. */
#include "lzfse.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC_END 0x24787662u   /* bvx$ */
#define MAGIC_RAW 0x2d787662u   /* bvx- */
#define MAGIC_V1 0x31787662u    /* bvx1 */
#define MAGIC_V2 0x32787662u    /* bvx2 */
#define MAGIC_LZVN 0x6e787662u  /* bvxn */

#define V1_HEADER 772u          /* the v1 header's fields, padded to 4 */
#define V2_HEADER 32u           /* the v2 header before its frequency code */

#define LIT_STATES 1024u
#define L_STATES 64u
#define M_STATES 64u
#define D_STATES 256u
#define LIT_SYMS 256u
#define L_SYMS 20u
#define M_SYMS 20u
#define D_SYMS 64u
#define MAX_FIELD (1u << 20)    /* v2's 20-bit counts; v1's are held to it */

static const uint8_t l_extra[L_SYMS] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 5, 8};
static const uint16_t l_base[L_SYMS] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                        16, 20, 28, 60};
static const uint8_t m_extra[M_SYMS] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 5, 8, 11};
static const uint16_t m_base[M_SYMS] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                        16, 24, 56, 312};
/* D: four symbols per extra-bit count 0..15, each base 2^extra above the last */
static const uint8_t d_extra[D_SYMS] = {
	0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8,
	8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 10, 11, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 13, 14, 14, 14,
	14, 15, 15, 15, 15
};
static const uint32_t d_base[D_SYMS] = {
	0, 1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 28, 36, 44, 52, 60, 76, 92, 108, 124, 156, 188, 220, 252,
	316, 380, 444, 508, 636, 764, 892, 1020, 1276, 1532, 1788, 2044, 2556, 3068, 3580, 4092, 5116,
	6140, 7164, 8188, 10236, 12284, 14332, 16380, 20476, 24572, 28668, 32764, 40956, 49148, 57340,
	65532, 81916, 98300, 114684, 131068, 163836, 196604, 229372
};

typedef struct fse_ent {     /* a literal state */
	uint8_t k;
	uint8_t sym;
	uint16_t delta;
} fse_ent;

typedef struct fse_vent {    /* an L, M or D state: k state bits above the value's extra bits */
	uint8_t total;           /* k + extra */
	uint8_t extra;
	uint16_t delta;
	uint32_t base;
} fse_vent;

/* One block's header, whatever its kind. */
typedef struct block {
	uint32_t magic;
	size_t at;               /* its offset in src */
	size_t head;             /* header bytes */
	size_t body;             /* bytes after the header */
	uint32_t n_raw;
	/* bvx1 / bvx2 */
	uint32_t n_lit, n_match, lit_bytes, lmd_bytes;
	int lit_bits, lmd_bits;  /* -7..0: unused bits at the top of each stream's last byte */
	uint16_t lit_state[4], l_state, m_state, d_state;
} block;

typedef struct tables {
	uint16_t freq[L_SYMS + M_SYMS + D_SYMS + LIT_SYMS];
	fse_ent lit[LIT_STATES];
	fse_vent l[L_STATES], m[M_STATES], d[D_STATES];
} tables;

/* Backward bit reader: acc holds n bits, the next to pull on top. */
typedef struct bits {
	uint64_t acc;
	unsigned n;
	unsigned phantom;        /* zero bits at the bottom of acc from before start */
	const unsigned char *p, *start;
} bits;

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static kp_status bad(kp_error *err, size_t at, const char *what, const block *b)
{
	char m[5] = "?";
	if (b) {
		for (int i = 0; i < 4; i++)
			m[i] = (char)(b->magic >> (8 * i));
		m[3] = m[3] >= 0x20 && m[3] < 0x7f ? m[3] : '?';
		m[4] = 0;
	}
	return kp_error_set(err, KP_ERR_FORMAT, 0, (long)at, "%s%s%s", b ? m : "", b ? " block: " : "",
	                    what);
}

/* The header of the block at src[at..n). */
static kp_status block_head(const unsigned char *src, size_t n, size_t at, block *b, kp_error *err)
{
	memset(b, 0, sizeof *b);
	b->at = at;
	size_t left = n - at;
	if (left < 4)
		return bad(err, at, "the stream ends without its end-of-stream block (bvx$)", NULL);
	const unsigned char *p = src + at;
	b->magic = le32(p);
	switch (b->magic) {
	case MAGIC_END:
		b->head = 4;
		return KP_OK;
	case MAGIC_RAW:
		if (left < 8)
			return bad(err, at, "header cut short", b);
		b->head = 8;
		b->n_raw = le32(p + 4);
		b->body = b->n_raw;
		break;
	case MAGIC_LZVN:
		if (left < 12)
			return bad(err, at, "header cut short", b);
		b->head = 12;
		b->n_raw = le32(p + 4);
		b->body = le32(p + 8);
		break;
	case MAGIC_V1: {
		if (left < V1_HEADER)
			return bad(err, at, "header cut short", b);
		b->head = V1_HEADER;
		b->n_raw = le32(p + 4);
		b->n_lit = le32(p + 12);
		b->n_match = le32(p + 16);
		b->lit_bytes = le32(p + 20);
		b->lmd_bytes = le32(p + 24);
		int32_t lb = (int32_t)le32(p + 28), mb = (int32_t)le32(p + 40);
		if (lb < -7 || lb > 0 || mb < -7 || mb > 0)
			return bad(err, at + 28, "stream bit counts out of range", b);
		b->lit_bits = lb;
		b->lmd_bits = mb;
		for (int i = 0; i < 4; i++)
			b->lit_state[i] = (uint16_t)(p[32 + 2 * i] | p[33 + 2 * i] << 8);
		b->l_state = (uint16_t)(p[44] | p[45] << 8);
		b->m_state = (uint16_t)(p[46] | p[47] << 8);
		b->d_state = (uint16_t)(p[48] | p[49] << 8);
		if (b->n_lit > MAX_FIELD || b->n_match > MAX_FIELD || b->lit_bytes > MAX_FIELD ||
		    b->lmd_bytes > MAX_FIELD)
			return bad(err, at + 12, "counts out of range", b);
		b->body = (size_t)b->lit_bytes + b->lmd_bytes;
		break;
	}
	case MAGIC_V2: {
		if (left < V2_HEADER)
			return bad(err, at, "header cut short", b);
		b->n_raw = le32(p + 4);
		uint64_t f0 = le64(p + 8), f1 = le64(p + 16), f2 = le64(p + 24);
		b->n_lit = (uint32_t)(f0 & 0xfffff);
		b->lit_bytes = (uint32_t)(f0 >> 20 & 0xfffff);
		b->n_match = (uint32_t)(f0 >> 40 & 0xfffff);
		b->lit_bits = (int)(f0 >> 60 & 7) - 7;
		for (int i = 0; i < 4; i++)
			b->lit_state[i] = (uint16_t)(f1 >> (10 * i) & 0x3ff);
		b->lmd_bytes = (uint32_t)(f1 >> 40 & 0xfffff);
		b->lmd_bits = (int)(f1 >> 60 & 7) - 7;
		b->head = (uint32_t)f2;
		b->l_state = (uint16_t)(f2 >> 32 & 0x3ff);
		b->m_state = (uint16_t)(f2 >> 42 & 0x3ff);
		b->d_state = (uint16_t)(f2 >> 52 & 0x3ff);
		if (b->head < V2_HEADER || b->head > left)
			return bad(err, at + 24, "header size out of range", b);
		b->body = (size_t)b->lit_bytes + b->lmd_bytes;
		break;
	}
	default:
		return bad(err, at, "not an LZFSE block (no bvx magic)", NULL);
	}
	if (b->body > left - b->head)
		return bad(err, at, "payload cut short", b);
	return KP_OK;
}

kp_status kp__lzfse_size(const unsigned char *src, size_t n, size_t *size, kp_error *err)
{
	size_t total = 0;
	block b;
	for (size_t at = 0;; at += b.head + b.body) {
		kp_status st = block_head(src, n, at, &b, err);
		if (st != KP_OK)
			return st;
		if (b.magic == MAGIC_END)
			break;
		if (b.n_raw > SIZE_MAX - total)
			return bad(err, at, "sizes overflow", &b);
		total += b.n_raw;
	}
	*size = total;
	return KP_OK;
}

/* Fills t[0..nstates) from freq[0..nsym): false when they sum past nstates.
 * States no symbol owns (a sum below nstates) read nothing and go to 0. */
static bool fse_build(unsigned nstates, unsigned nsym, const uint16_t *freq, fse_ent *t)
{
	unsigned used = 0, lg = 0;
	while ((1u << lg) < nstates)
		lg++;
	for (unsigned s = 0; s < nsym; s++) {
		unsigned f = freq[s];
		if (f == 0)
			continue;
		if (f > nstates - used)
			return false;
		unsigned fl = 0;   /* floor(log2 f) */
		while ((2u << fl) <= f)
			fl++;
		unsigned k = lg - fl;            /* nstates <= f << k < 2 nstates */
		unsigned j0 = ((2 * nstates) >> k) - f;
		for (unsigned j = 0; j < f; j++, used++) {
			fse_ent *e = &t[used];
			e->sym = (uint8_t)s;
			if (j < j0) {
				e->k = (uint8_t)k;
				e->delta = (uint16_t)(((f + j) << k) - nstates);
			} else {
				e->k = (uint8_t)(k - 1);
				e->delta = (uint16_t)((j - j0) << (k - 1));
			}
		}
	}
	for (; used < nstates; used++)
		t[used] = (fse_ent){0, 0, 0};
	return true;
}

static bool fse_vbuild(unsigned nstates, unsigned nsym, const uint16_t *freq, const uint8_t *extra,
                       const uint32_t *base32, const uint16_t *base16, fse_vent *t)
{
	fse_ent tmp[D_STATES];
	if (!fse_build(nstates, nsym, freq, tmp))
		return false;
	for (unsigned i = 0; i < nstates; i++) {
		unsigned s = tmp[i].sym;
		t[i].total = (uint8_t)(tmp[i].k + extra[s]);
		t[i].extra = extra[s];
		t[i].delta = tmp[i].delta;
		t[i].base = base32 ? base32[s] : base16[s];
	}
	return true;
}

/* v2's frequency code: 2 to 14 bits a value, least significant first. */
static bool v2_freqs(const unsigned char *p, const unsigned char *end, uint16_t *freq, unsigned count)
{
	uint32_t acc = 0;
	unsigned n = 0;
	for (unsigned i = 0; i < count; i++) {
		while (n <= 24 && p < end) {
			acc |= (uint32_t)*p++ << n;
			n += 8;
		}
		unsigned nb, v;
		switch (acc & 7) {
		case 0: case 4: nb = 2; v = 0; break;
		case 2: case 6: nb = 2; v = 1; break;
		case 1: nb = 3; v = 2; break;
		case 5: nb = 3; v = 3; break;
		case 3: nb = 5; v = 4 + (acc >> 3 & 3); break;
		default: /* 7 */
			if ((acc & 8) == 0) {
				nb = 8;
				v = 8 + (acc >> 4 & 0xf);
			} else {
				nb = 14;
				v = 24 + (acc >> 4 & 0x3ff);
			}
			break;
		}
		if (nb > n)
			return false;
		freq[i] = (uint16_t)v;
		acc >>= nb;
		n -= nb;
	}
	return true;
}

static bool bits_init(bits *r, int extra, const unsigned char *start, const unsigned char *end)
{
	/* the last byte's top -extra bits are padding; 7 bytes when none is.
	 * A shorter stream (none at all when every state reads 0 bits) is
	 * what it has over phantom zeros. */
	size_t take = extra ? 8 : 7, have = (size_t)(end - start);
	if (have > take)
		have = take;
	r->start = start;
	r->p = end - have;
	r->acc = 0;
	for (size_t i = have; i-- > 0;)
		r->acc = r->acc << 8 | r->p[i];
	if (have)
		r->acc <<= 8 * (take - have);   /* below 64: have >= 1 */
	r->phantom = 8 * (unsigned)(take - have);
	r->n = (unsigned)((int)take * 8 + extra);
	return (r->acc >> r->n) == 0 && r->n >= r->phantom;   /* n is 56..63 */
}

/* Tops the accumulator up to 56..63 bits.  Past the stream's start it
 * shifts in zeros it counts as phantom (the writer leaves no padding
 * there): false once a pull has reached into them. */
static inline bool bits_fill(bits *r)
{
	unsigned nb = (63 - r->n) >> 3;
	if (nb == 0)
		return true;
	size_t avail = (size_t)(r->p - r->start);
	if (avail >= nb) {
		r->p -= nb;
		/* r->p + 8 <= the old p + 7: inside the stream, which ends >= 7
		 * past it (or p is start, and this branch loads nothing) */
		uint64_t in = le64(r->p) & (((uint64_t)1 << (8 * nb)) - 1);
		r->acc = r->acc << (8 * nb) | in;
		r->n += 8 * nb;
		return true;
	}
	if (r->n < r->phantom)
		return false;
	uint64_t in = 0;
	for (size_t i = 1; i <= avail; i++)
		in = in << 8 | r->p[-(ptrdiff_t)i];
	r->p = r->start;
	r->acc = r->acc << (8 * nb) | in << (8 * (nb - avail));
	r->n += 8 * nb;
	r->phantom += 8 * (unsigned)(nb - avail);
	return true;
}

/* True when every bit pulled was the stream's own. */
static bool bits_real(const bits *r)
{
	return r->n >= r->phantom;
}

static inline uint64_t bits_pull(bits *r, unsigned k)
{
	r->n -= k;
	uint64_t v = r->acc >> r->n;
	r->acc &= ((uint64_t)1 << r->n) - 1;
	return v;
}

static inline unsigned lit_next(uint16_t *state, const fse_ent *t, bits *r)
{
	fse_ent e = t[*state];
	*state = (uint16_t)(e.delta + bits_pull(r, e.k));
	return e.sym;
}

static inline uint32_t val_next(uint16_t *state, const fse_vent *t, bits *r)
{
	fse_vent e = t[*state];
	uint64_t v = bits_pull(r, e.total);
	*state = (uint16_t)(e.delta + (v >> e.extra));
	return e.base + (uint32_t)(v & (((uint64_t)1 << e.extra) - 1));
}

/* Copies m >= 1 bytes from o - d to o (d >= 1, d <= what is written), the
 * periodic way for d < m; o + m + 8 <= lim takes eight bytes at a time. */
static inline void copy_match(unsigned char *o, size_t d, size_t m, const unsigned char *lim)
{
	size_t i = 0;
	if ((size_t)(lim - o) >= m + 8) {
		size_t dd = d;
		if (d < 8) {
			/* past the first dd - d bytes, o[x] = o[x - dd] for dd, the
			 * least multiple of d from 8: eight bytes at a time */
			dd = (8 + d - 1) / d * d;
			for (; i < dd - d && i < m; i++)
				o[i] = *(o + i - d);
		}
		for (; i < m; i += 8)
			memcpy(o + i, o + i - dd, 8);
		return;
	}
	for (; i < m; i++)
		o[i] = *(o + i - d);
}

/* The bvx1/bvx2 block b (its tables in t) into dst[pos..pos + n_raw). */
static kp_status fse_block(const unsigned char *src, const block *b, tables *t, unsigned char *lits,
                           unsigned char *dst, size_t pos, kp_error *err)
{
	const unsigned char *pay = src + b->at + b->head;
	bits r;
	if (!bits_init(&r, b->lit_bits, pay, pay + b->lit_bytes))
		return bad(err, b->at, "literal stream does not start right", b);
	uint16_t s0 = b->lit_state[0], s1 = b->lit_state[1], s2 = b->lit_state[2], s3 = b->lit_state[3];
	for (uint32_t i = 0; i < b->n_lit; i += 4) {
		if (!bits_fill(&r))
			return bad(err, b->at, "literal stream cut short", b);
		lits[i] = (unsigned char)lit_next(&s0, t->lit, &r);
		lits[i + 1] = (unsigned char)lit_next(&s1, t->lit, &r);
		lits[i + 2] = (unsigned char)lit_next(&s2, t->lit, &r);
		lits[i + 3] = (unsigned char)lit_next(&s3, t->lit, &r);
	}
	if (!bits_real(&r))
		return bad(err, b->at, "literal stream cut short", b);
	memset(lits + b->n_lit, 0, 16);   /* what 16-byte copies read past the last */
	if (!bits_init(&r, b->lmd_bits, pay + b->lit_bytes, pay + b->lit_bytes + b->lmd_bytes))
		return bad(err, b->at, "L/M/D stream does not start right", b);
	uint16_t ls = b->l_state, ms = b->m_state, ds = b->d_state;
	unsigned char *o = dst + pos, *end = o + b->n_raw;
	const unsigned char *lit = lits, *lit_end = lits + b->n_lit;
	size_t d = 0;
	for (uint32_t i = 0; i < b->n_match; i++) {
		if (!bits_fill(&r))
			return bad(err, b->at, "L/M/D stream cut short", b);
		size_t l = val_next(&ls, t->l, &r);
		size_t m = val_next(&ms, t->m, &r);
		size_t nd = val_next(&ds, t->d, &r);
		d = nd ? nd : d;
		if (l > (size_t)(lit_end - lit) || l + m > (size_t)(end - o))
			return bad(err, b->at, "a match runs past the block", b);
		if (m && (d == 0 || d > (size_t)(o - dst) + l))
			return bad(err, b->at, "a match reaches before the start", b);
		if ((size_t)(end - o) >= l + 16) {
			for (size_t k = 0; k < l; k += 16)   /* lits has 64 spare bytes */
				memcpy(o + k, lit + k, 16);
		} else {
			memcpy(o, lit, l);
		}
		o += l;
		lit += l;
		if (m) {   /* a literal run alone may come with distance 0 */
			copy_match(o, d, m, end);
			o += m;
		}
	}
	if (!bits_real(&r))
		return bad(err, b->at, "L/M/D stream cut short", b);
	if (o != end)
		return bad(err, b->at, "fewer bytes than its header says", b);
	return KP_OK;
}

/* The header's tables into t: KP_ERR_FORMAT when a frequency table or an
 * initial state lies. */
static kp_status fse_tables(const unsigned char *src, const block *b, tables *t, kp_error *err)
{
	const unsigned char *p = src + b->at;
	unsigned nf = L_SYMS + M_SYMS + D_SYMS + LIT_SYMS;
	if (b->magic == MAGIC_V2) {
		if (!v2_freqs(p + V2_HEADER, p + b->head, t->freq, nf))
			return bad(err, b->at + V2_HEADER, "frequency tables cut short", b);
	} else {
		for (unsigned i = 0; i < nf; i++)
			t->freq[i] = (uint16_t)(p[50 + 2 * i] | p[51 + 2 * i] << 8);
	}
	const uint16_t *f = t->freq;
	if (b->l_state >= L_STATES || b->m_state >= M_STATES || b->d_state >= D_STATES ||
	    b->lit_state[0] >= LIT_STATES || b->lit_state[1] >= LIT_STATES ||
	    b->lit_state[2] >= LIT_STATES || b->lit_state[3] >= LIT_STATES)
		return bad(err, b->at, "an initial state out of range", b);
	if (!fse_vbuild(L_STATES, L_SYMS, f, l_extra, NULL, l_base, t->l) ||
	    !fse_vbuild(M_STATES, M_SYMS, f + L_SYMS, m_extra, NULL, m_base, t->m) ||
	    !fse_vbuild(D_STATES, D_SYMS, f + L_SYMS + M_SYMS, d_extra, d_base, NULL, t->d) ||
	    !fse_build(LIT_STATES, LIT_SYMS, f + L_SYMS + M_SYMS + D_SYMS, t->lit))
		return bad(err, b->at, "frequencies sum past the states", b);
	return KP_OK;
}

/* The LZVN opcodes of block b into dst[pos..pos + n_raw). */
static kp_status lzvn_block(const unsigned char *src, const block *b, unsigned char *dst, size_t pos,
                            kp_error *err)
{
	const unsigned char *s = src + b->at + b->head, *e = s + b->body;
	unsigned char *o = dst + pos, *end = o + b->n_raw;
	size_t d = 0;
	while (o < end) {
		if (s >= e)
			return bad(err, b->at, "opcodes end before the block's bytes", b);
		size_t at = (size_t)(s - src);
		unsigned op = *s;
		size_t l = 0, m = 0, need;
		if (op >= 0xe0) {
			/* 1111MMMM / 11110000 M-16: a match at the last distance;
			 * 1110LLLL / 11100000 L-16: literals only */
			bool big = (op & 0xf) == 0;
			need = big ? 2 : 1;
			if ((size_t)(e - s) < need)
				return bad(err, at, "an LZVN opcode cut short", b);
			size_t v = big ? (size_t)s[1] + 16 : op & 0xf;
			if (op >= 0xf0)
				m = v;
			else
				l = v;
		} else if ((op >= 0x70 && op < 0x80) || (op >= 0xd0 && op < 0xe0)) {
			return bad(err, at, "an undefined LZVN opcode", b);
		} else if (op >= 0xa0 && op < 0xc0) {
			/* 101LLMMM DDDDDDMM DDDDDDDD: medium distance */
			need = 3;
			if ((size_t)(e - s) < need)
				return bad(err, at, "an LZVN opcode cut short", b);
			unsigned v = s[1] | (unsigned)s[2] << 8;
			l = op >> 3 & 3;
			m = ((op & 7) << 2 | (v & 3)) + 3;
			d = v >> 2;
		} else {
			/* LLMMMDDD: DDD 0-5 small distance (8 more bits), 7 large
			 * (16 bits), 6 the last distance; L 0 with 6 is the end
			 * (MMM 0), a no-op (1, 2) or undefined */
			l = op >> 6;
			m = (op >> 3 & 7) + 3;
			unsigned low = op & 7;
			if (low == 6) {
				need = 1;
				if (l == 0) {
					if ((op >> 3 & 7) == 0)
						break;
					if ((op >> 3 & 7) > 2)
						return bad(err, at, "an undefined LZVN opcode", b);
					s++;
					continue;
				}
			} else if (low == 7) {
				need = 3;
				if ((size_t)(e - s) < need)
					return bad(err, at, "an LZVN opcode cut short", b);
				d = s[1] | (size_t)s[2] << 8;
			} else {
				need = 2;
				if ((size_t)(e - s) < need)
					return bad(err, at, "an LZVN opcode cut short", b);
				d = (size_t)low << 8 | s[1];
			}
		}
		s += need;
		if (l > (size_t)(e - s))
			return bad(err, at, "LZVN literals cut short", b);
		if (l + m > (size_t)(end - o))
			return bad(err, at, "an LZVN match runs past the block", b);
		memcpy(o, s, l);
		s += l;
		o += l;
		if (m) {
			if (d == 0 || d > (size_t)(o - dst))
				return bad(err, at, "an LZVN match reaches before the start", b);
			copy_match(o, d, m, end);
			o += m;
		}
	}
	if (o != end)
		return bad(err, b->at, "fewer bytes than its header says", b);
	return KP_OK;
}

kp_status kp__lzfse_decode(unsigned char *dst, size_t cap, size_t *outlen, const unsigned char *src,
                           size_t n, kp_error *err)
{
	size_t pos = 0, lcap = 0;
	unsigned char *lits = NULL;
	tables *t = NULL;
	kp_status st = KP_OK;
	block b;
	for (size_t at = 0;; at += b.head + b.body) {
		if ((st = block_head(src, n, at, &b, err)) != KP_OK)
			break;
		if (b.magic == MAGIC_END)
			break;
		if (b.n_raw > cap - pos) {
			st = kp_error_set(err, KP_ERR_LIMIT, 0, (long)at,
			                  "decodes to more than %zu bytes", cap);
			break;
		}
		if (b.magic == MAGIC_RAW) {
			memcpy(dst + pos, src + at + b.head, b.n_raw);
		} else if (b.magic == MAGIC_LZVN) {
			st = lzvn_block(src, &b, dst, pos, err);
		} else {
			if (b.n_lit > (size_t)b.n_raw + 3 || b.n_match > (size_t)b.n_raw + 16) {
				st = bad(err, at, "more literals or matches than bytes", &b);
				break;
			}
			size_t need = (size_t)b.n_lit + 64;   /* a quad's overrun and 16-byte copies */
			if (need > lcap) {
				free(lits);
				lcap = need < 65536 ? 65536 : need;
				lits = malloc(lcap);
			}
			if (!t)
				t = malloc(sizeof *t);
			if (!lits || !t) {
				st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory decoding LZFSE");
				break;
			}
			st = fse_tables(src, &b, t, err);
			if (st == KP_OK)
				st = fse_block(src, &b, t, lits, dst, pos, err);
		}
		if (st != KP_OK)
			break;
		pos += b.n_raw;
	}
	free(lits);
	free(t);
	*outlen = pos;
	return st;
}
