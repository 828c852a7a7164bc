/* sha1.c: SHA-1 (FIPS 180-4), for content hashes and dedup keys. */
#include "kp_sha1.h"

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
	const uint8_t *p = data;
	s->nbytes += len;
	if (s->nbuf) {
		size_t take = 64 - s->nbuf < len ? 64 - s->nbuf : len;
		memcpy(s->buf + s->nbuf, p, take);
		s->nbuf += take;
		p += take;
		len -= take;
		if (s->nbuf < 64)
			return;
		sha1_block(s->h, s->buf);
		s->nbuf = 0;
	}
	for (; len >= 64; p += 64, len -= 64)
		sha1_block(s->h, p);
	memcpy(s->buf, p, len);
	s->nbuf = len;
}

void kp_sha1_final(kp_sha1 *s, uint8_t digest[20])
{
	uint64_t bits = s->nbytes * 8;
	uint8_t pad[72] = {0x80};
	size_t padlen = (s->nbuf < 56 ? 56 : 120) - s->nbuf;
	for (int i = 0; i < 8; i++)
		pad[padlen + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
	kp_sha1_update(s, pad, padlen + 8);
	for (int i = 0; i < 5; i++) {
		digest[4 * i] = (uint8_t)(s->h[i] >> 24);
		digest[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		digest[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		digest[4 * i + 3] = (uint8_t)s->h[i];
	}
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
	static const char x[] = "0123456789abcdef";
	for (int i = 0; i < 20; i++) {
		hex[2 * i] = x[d[i] >> 4];
		hex[2 * i + 1] = x[d[i] & 15];
	}
	hex[40] = '\0';
}

void kp_sha1_hex(const void *data, size_t len, char hex[41])
{
	uint8_t d[20];
	kp_sha1_digest(data, len, d);
	kp_sha1_to_hex(d, hex);
}
