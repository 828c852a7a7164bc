/* kp_bytes.h: the one home of fixed-width integers read from (and written
 * to) bytes in a stated order, whatever the host's: little-endian (Mach-O,
 * kcdata, NVRAM panic headers, LZFSE, symbol caches) and big-endian (fat
 * headers, IMG4 DER, binary plists, sqlite's file header).
 *
 * Nothing is checked here: p must hold the bytes (the callers bound their
 * reads; kp_rd.h is the bounds-checked reader over these).  Unaligned p is
 * fine: the 32- and 64-bit reads are one memcpy, which compilers make one
 * load (LZFSE's decoder reads a word per symbol). */
#ifndef KP_BYTES_H
#define KP_BYTES_H

#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define KP_BYTES_HOST_BE 1
#else
#define KP_BYTES_HOST_BE 0
#endif

static inline uint32_t kp_le32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return KP_BYTES_HOST_BE ? __builtin_bswap32(v) : v;
}

static inline uint64_t kp_le64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return KP_BYTES_HOST_BE ? __builtin_bswap64(v) : v;
}

static inline uint32_t kp_be32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return KP_BYTES_HOST_BE ? v : __builtin_bswap32(v);
}

static inline uint64_t kp_be64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return KP_BYTES_HOST_BE ? v : __builtin_bswap64(v);
}

/* The n-byte (n <= 8) unsigned integer at p. */
static inline uint64_t kp_le_uint(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static inline uint64_t kp_be_uint(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* v's low n bytes (n <= 8) at p, little-endian. */
static inline void kp_put_le(unsigned char *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

#endif
