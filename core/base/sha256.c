/* sha256.c: SHA-256 (FIPS 180-4), the index's content hash.  As sha1.c:
 * on an x86-64 CPU with the SHA extensions, asked at run time, blocks go
 * through them; elsewhere through the portable code.  Both give the same
 * digest (test_base compares them over many lengths). */
#include "kp_sha256.h"
#include "md64.h"

#include <stdatomic.h>
#include <string.h>


static const uint32_t K[64] = {
	0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
	0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
	0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
	0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
	0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
	0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
	0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
	0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u,
};

static uint32_t ror32(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void sha256_block(uint32_t h[8], const uint8_t *p)
{
	uint32_t w[64];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = hh + (ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25)) + (g ^ (e & (f ^ g))) + K[i] + w[i];
		uint32_t t2 = (ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22)) + ((a & b) | (c & (a | b)));
		hh = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
	h[5] += f;
	h[6] += g;
	h[7] += hh;
}

static void sha256_blocks_portable(uint32_t h[8], const uint8_t *p, size_t n)
{
	for (; n; n--, p += 64)
		sha256_block(h, p);
}

#ifdef KP_MD64_X86
/* Four rounds with the SHA extensions (group g of 16): the state kept as
 * ABEF and CDGH; the message schedule in a ring of four (m[g & 3] holds
 * group g's words), group g+1's finished by sha256msg2 and group g-1's
 * begun by sha256msg1 while g's rounds run. */
#define NI_GROUP(g)                                                                                   \
	do {                                                                                          \
		__m128i k_ = _mm_add_epi32(m[(g) & 3], _mm_loadu_si128((const __m128i *)(const void *)&K[4 * (g)])); \
		cdgh = _mm_sha256rnds2_epu32(cdgh, abef, k_);                                          \
		if ((g) >= 3 && (g) <= 14)                                                            \
			m[((g) + 1) & 3] = _mm_sha256msg2_epu32(                                      \
			    _mm_add_epi32(m[((g) + 1) & 3], _mm_alignr_epi8(m[(g) & 3], m[((g) + 3) & 3], 4)), \
			    m[(g) & 3]);                                                              \
		abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(k_, 0x0E));                 \
		if ((g) >= 1 && (g) <= 12)                                                            \
			m[((g) + 3) & 3] = _mm_sha256msg1_epu32(m[((g) + 3) & 3], m[(g) & 3]);       \
	} while (0)

__attribute__((target("sha,sse4.1"))) static void sha256_blocks_ni(uint32_t h[8], const uint8_t *p,
                                                                    size_t n)
{
	const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
	__m128i t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)&h[0]), 0xB1); /* CDAB */
	__m128i cdgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)&h[4]), 0x1B); /* EFGH */
	__m128i abef = _mm_alignr_epi8(t, cdgh, 8);
	cdgh = _mm_blend_epi16(cdgh, t, 0xF0);
	for (; n; n--, p += 64) {
		__m128i abef_save = abef, cdgh_save = cdgh, m[4];
		for (int i = 0; i < 4; i++)
			m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i)), swap);
		NI_GROUP(0);
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
		abef = _mm_add_epi32(abef, abef_save);
		cdgh = _mm_add_epi32(cdgh, cdgh_save);
	}
	t = _mm_shuffle_epi32(abef, 0x1B);     /* FEBA */
	cdgh = _mm_shuffle_epi32(cdgh, 0xB1);  /* DCHG */
	_mm_storeu_si128((__m128i *)(void *)&h[0], _mm_blend_epi16(t, cdgh, 0xF0)); /* DCBA */
	_mm_storeu_si128((__m128i *)(void *)&h[4], _mm_alignr_epi8(cdgh, t, 8));   /* HGFE */
}
#undef NI_GROUP
#endif

/* -1 not asked yet, else whether the CPU's instructions are used */
static _Atomic int use_cpu = -1;

static void sha256_blocks(uint32_t h[8], const uint8_t *p, size_t n)
{
#ifdef KP_MD64_X86
	if (md64_cpu_wanted(&use_cpu)) {
		sha256_blocks_ni(h, p, n);
		return;
	}
#endif
	sha256_blocks_portable(h, p, n);
}

bool kp_sha256_use_cpu(bool on)
{
	return md64_use_cpu(&use_cpu, on);
}

void kp_sha256_init(kp_sha256 *s)
{
	static const uint32_t iv[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
	                               0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
	memcpy(s->h, iv, sizeof iv);
	s->nbytes = 0;
	s->nbuf = 0;
}

void kp_sha256_update(kp_sha256 *s, const void *data, size_t len)
{
	md64_update(s->h, s->buf, &s->nbuf, &s->nbytes, sha256_blocks, data, len);
}

void kp_sha256_final(kp_sha256 *s, uint8_t digest[32])
{
	md64_final(s->h, s->buf, &s->nbuf, &s->nbytes, sha256_blocks, digest, 8);
}

void kp_sha256_digest(const void *data, size_t len, uint8_t digest[32])
{
	kp_sha256 s;
	kp_sha256_init(&s);
	kp_sha256_update(&s, data, len);
	kp_sha256_final(&s, digest);
}

void kp_sha256_to_hex(const uint8_t d[32], char hex[KP_SHA256_HEX])
{
	md64_hex(d, 32, hex);
}

void kp_sha256_hex(const void *data, size_t len, char hex[KP_SHA256_HEX])
{
	uint8_t d[32];
	kp_sha256_digest(data, len, d);
	kp_sha256_to_hex(d, hex);
}
