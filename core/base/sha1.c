/* sha1.c: SHA-1 (FIPS 180-4), for content hashes and dedup keys.  Every
 * file a scan indexes is hashed whole: on an x86-64 CPU with the SHA
 * extensions (Intel since Goldmont and Ice Lake, AMD since Zen), asked at
 * run time, blocks go through them (about 3x the portable code's speed);
 * elsewhere, and in builds whose compiler cannot target them, through the
 * portable code below.  Both give the same digest. */
#include "kp_sha1.h"
#include "md64.h"

#include <stdatomic.h>
#include <string.h>


static uint32_t rol32(uint32_t x, int n)
{
	return (x << n) | (x >> (32 - n));
}

/* One 64-byte block: the four rounds written out (no branch on the step
 * number) over a 16-word circular message schedule. */
#define SHA1_STEP(f, k, wi)                                                   \
	do {                                                                      \
		uint32_t t_ = rol32(a, 5) + (f) + e + (k) + (wi);                      \
		e = d;                                                                \
		d = c;                                                                \
		c = rol32(b, 30);                                                     \
		b = a;                                                                \
		a = t_;                                                               \
	} while (0)
#define SHA1_W(i)                                                             \
	(w[(i) & 15] = rol32(w[((i) + 13) & 15] ^ w[((i) + 8) & 15] ^            \
	                     w[((i) + 2) & 15] ^ w[(i) & 15], 1))

static void sha1_block(uint32_t h[5], const uint8_t *p)
{
	uint32_t w[16];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
	for (int i = 0; i < 16; i++)
		SHA1_STEP(d ^ (b & (c ^ d)), 0x5A827999u, w[i]);
	for (int i = 16; i < 20; i++)
		SHA1_STEP(d ^ (b & (c ^ d)), 0x5A827999u, SHA1_W(i));
	for (int i = 20; i < 40; i++)
		SHA1_STEP(b ^ c ^ d, 0x6ED9EBA1u, SHA1_W(i));
	for (int i = 40; i < 60; i++)
		SHA1_STEP((b & c) | (d & (b | c)), 0x8F1BBCDCu, SHA1_W(i));
	for (int i = 60; i < 80; i++)
		SHA1_STEP(b ^ c ^ d, 0xCA62C1D6u, SHA1_W(i));
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
}

static void sha1_blocks_portable(uint32_t h[5], const uint8_t *p, size_t n)
{
	for (; n; n--, p += 64)
		sha1_block(h, p);
}

#ifdef KP_MD64_X86
/* Four rounds with the SHA extensions: e is E plus the group's four
 * message words (sha1nexte of the state four rounds back), f the round
 * function (0-3, a constant).  The schedule: group k's words are
 * msg2(msg1(m[k-4], m[k-3]) ^ m[k-2], m[k-1]), kept in a ring of four. */
#define NI_GROUP(k)                                                                               \
	do {                                                                                      \
		__m128i w_;                                                                       \
		if ((k) < 4) {                                                                    \
			w_ = m[(k) & 3];                                                          \
		} else {                                                                          \
			w_ = _mm_sha1msg1_epu32(m[(k) & 3], m[((k) + 1) & 3]);                     \
			w_ = _mm_sha1msg2_epu32(_mm_xor_si128(w_, m[((k) + 2) & 3]), m[((k) + 3) & 3]); \
			m[(k) & 3] = w_;                                                          \
		}                                                                                 \
		__m128i e_ = _mm_sha1nexte_epu32(prev, w_);                                        \
		prev = abcd;                                                                      \
		abcd = _mm_sha1rnds4_epu32(abcd, e_, (k) / 5);                                    \
	} while (0)

__attribute__((target("sha,sse4.1"))) static void sha1_blocks_ni(uint32_t h[5], const uint8_t *p,
                                                                  size_t n)
{
	/* words big-endian, W0 in the top lane; A in the top lane of abcd */
	const __m128i swap = _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
	__m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)h), 0x1B);
	__m128i e0 = _mm_set_epi32((int)h[4], 0, 0, 0);
	for (; n; n--, p += 64) {
		__m128i abcd_save = abcd, e_save = e0, m[4];
		for (int i = 0; i < 4; i++)
			m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i)), swap);
		__m128i prev = abcd;
		abcd = _mm_sha1rnds4_epu32(abcd, _mm_add_epi32(e0, m[0]), 0);
		NI_GROUP(1);
		NI_GROUP(2);
		NI_GROUP(3);
		NI_GROUP(4);
		NI_GROUP(5);
		NI_GROUP(6);
		NI_GROUP(7);
		NI_GROUP(8);
		NI_GROUP(9);
		NI_GROUP(10);
		NI_GROUP(11);
		NI_GROUP(12);
		NI_GROUP(13);
		NI_GROUP(14);
		NI_GROUP(15);
		NI_GROUP(16);
		NI_GROUP(17);
		NI_GROUP(18);
		NI_GROUP(19);
		e0 = _mm_sha1nexte_epu32(prev, e_save); /* E after 80 rounds, plus the saved E */
		abcd = _mm_add_epi32(abcd, abcd_save);
	}
	_mm_storeu_si128((__m128i *)(void *)h, _mm_shuffle_epi32(abcd, 0x1B));
	h[4] = (uint32_t)_mm_extract_epi32(e0, 3);
}
#undef NI_GROUP

#endif

/* -1 not asked yet, else whether the CPU's instructions are used */
static _Atomic int use_cpu = -1;

static void sha1_blocks(uint32_t h[5], const uint8_t *p, size_t n)
{
#ifdef KP_MD64_X86
	if (md64_cpu_wanted(&use_cpu)) {
		sha1_blocks_ni(h, p, n);
		return;
	}
#endif
	sha1_blocks_portable(h, p, n);
}

bool kp_sha1_use_cpu(bool on)
{
	return md64_use_cpu(&use_cpu, on);
}

void kp_sha1_init(kp_sha1 *s)
{
	static const uint32_t iv[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u,
	                               0xC3D2E1F0u};
	memcpy(s->h, iv, sizeof iv);
	s->nbytes = 0;
	s->nbuf = 0;
}

void kp_sha1_update(kp_sha1 *s, const void *data, size_t len)
{
	md64_update(s->h, s->buf, &s->nbuf, &s->nbytes, sha1_blocks, data, len);
}

void kp_sha1_final(kp_sha1 *s, uint8_t digest[20])
{
	md64_final(s->h, s->buf, &s->nbuf, &s->nbytes, sha1_blocks, digest, 5);
}

void kp_sha1_digest(const void *data, size_t len, uint8_t digest[20])
{
	kp_sha1 s;
	kp_sha1_init(&s);
	kp_sha1_update(&s, data, len);
	kp_sha1_final(&s, digest);
}

void kp_sha1_to_hex(const uint8_t d[20], char hex[41])
{
	md64_hex(d, 20, hex);
}

void kp_sha1_hex(const void *data, size_t len, char hex[41])
{
	uint8_t d[20];
	kp_sha1_digest(data, len, d);
	kp_sha1_to_hex(d, hex);
}
