/* im4p.c: kernelcaches as Preboot keeps them (im4p.h).
 *
 * An IM4P is DER: SEQUENCE { IA5String "IM4P", IA5String type ("krnl"),
 * IA5String description, OCTET STRING payload, ... }.  The payload is the
 * Mach-O itself, or LZSS behind xnu's 384-byte "complzss" header (big-endian
 * adler32, uncompressed and compressed sizes), or LZFSE ("bvx" blocks,
 * lzfse.c).  Everything is bounds-checked: a lie is KP_ERR_FORMAT at the byte
 * it was found. */
#include "im4p.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lzfse.h"

#define LZSS_N 4096
#define LZSS_F 18
#define LZSS_THRESHOLD 2
#define COMPLZSS_HEADER 0x180u
/* LZSS writes at most 18 bytes per 17 bits read: more than this many bytes
 * per compressed byte is a lie about the size. */
#define LZSS_MAX_RATIO 9u

typedef struct der {
	const unsigned char *p;   /* the value */
	size_t len;
	size_t at;                /* its offset in the file */
} der;

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The DER element at d[*at..n) with tag; *at moves past it. */
static bool der_next(const unsigned char *d, size_t n, size_t *at, unsigned char tag, der *out)
{
	size_t i = *at;
	if (n - i < 2 || d[i] != tag)
		return false;
	size_t len = d[i + 1];
	i += 2;
	if (len & 0x80) {
		size_t k = len & 0x7f;
		if (k == 0 || k > 4 || n - i < k)
			return false;
		len = 0;
		for (size_t j = 0; j < k; j++)
			len = len << 8 | d[i + j];
		i += k;
	}
	if (len > n - i)
		return false;
	out->p = d + i;
	out->len = len;
	out->at = i;
	*at = i + len;
	return true;
}

bool kp__im4p_sniff(const unsigned char *d, size_t n)
{
	/* a probe reads only the head: the sequence's length may run past n */
	if (n < 2 || d[0] != 0x30)
		return false;
	size_t at = 2 + (d[1] & 0x80 ? (size_t)(d[1] & 0x7f) : 0);
	der name;
	return at < n && der_next(d, n, &at, 0x16, &name) && name.len == 4 &&
	       memcmp(name.p, "IM4P", 4) == 0;
}

static uint32_t adler32(const unsigned char *p, size_t n)
{
	uint32_t a = 1, b = 0;
	while (n) {
		size_t chunk = n < 5552 ? n : 5552;   /* no overflow before the modulo */
		n -= chunk;
		while (chunk--) {
			a += *p++;
			b += a;
		}
		a %= 65521;
		b %= 65521;
	}
	return b << 16 | a;
}

/* Okumura's LZSS (N 4096, F 18, threshold 2, window of spaces) into
 * dst[0..dstlen); returns the bytes written. */
static size_t lzss_decode(unsigned char *dst, size_t dstlen, const unsigned char *src, size_t srclen)
{
	unsigned char text[LZSS_N];
	memset(text, ' ', sizeof text);
	size_t r = LZSS_N - LZSS_F, si = 0, di = 0;
	unsigned flags = 0;
	for (;;) {
		if (((flags >>= 1) & 0x100) == 0) {
			if (si >= srclen)
				break;
			flags = src[si++] | 0xff00u;
		}
		if (flags & 1) {
			if (si >= srclen || di >= dstlen)
				break;
			unsigned char c = src[si++];
			dst[di++] = c;
			text[r++] = c;
			r &= LZSS_N - 1;
		} else {
			if (srclen - si < 2)
				break;
			size_t i = src[si], j = src[si + 1];
			si += 2;
			i |= (j & 0xf0) << 4;
			j = (j & 0x0f) + LZSS_THRESHOLD;
			for (size_t k = 0; k <= j; k++) {
				if (di >= dstlen)
					return di;
				unsigned char c = text[(i + k) & (LZSS_N - 1)];
				dst[di++] = c;
				text[r++] = c;
				r &= LZSS_N - 1;
			}
		}
	}
	return di;
}

static kp_status complzss(const der *pl, unsigned char **out, size_t *outlen, kp_error *err)
{
	if (pl->len < COMPLZSS_HEADER)
		return kp_error_set(err, KP_ERR_FORMAT, 0, (long)pl->at, "complzss header cut short");
	const unsigned char *h = pl->p;
	uint32_t sum = be32(h + 8), size = be32(h + 12), csize = be32(h + 16);
	size_t avail = pl->len - COMPLZSS_HEADER;
	if (csize > avail)
		return kp_error_set(err, KP_ERR_FORMAT, 0, (long)pl->at + 16,
		                    "complzss: %u compressed bytes claimed, %zu present", csize, avail);
	if (size == 0 || size > KP_IM4P_MAX_SIZE || size / LZSS_MAX_RATIO > csize)
		return kp_error_set(err, KP_ERR_FORMAT, 0, (long)pl->at + 12,
		                    "complzss: %u bytes cannot come from %u", size, csize);
	unsigned char *buf = malloc(size);
	if (!buf)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory for a %u-byte kernelcache", size);
	size_t got = lzss_decode(buf, size, h + COMPLZSS_HEADER, csize);
	if (got != size || adler32(buf, size) != sum) {
		free(buf);
		return kp_error_set(err, KP_ERR_FORMAT, 0, (long)pl->at + COMPLZSS_HEADER,
		                    got != size ? "complzss: the data ends after %zu of %u bytes"
		                                : "complzss: checksum mismatch (%zu of %u bytes)",
		                    got, size);
	}
	*out = buf;
	*outlen = size;
	return KP_OK;
}

static kp_status lzfse(const der *pl, unsigned char **out, size_t *outlen, kp_error *err)
{
	/* the block headers give the size: one buffer of exactly that */
	size_t size = 0, got = 0;
	kp_error e;
	kp_status st = kp__lzfse_size(pl->p, pl->len, &size, &e);
	if (st == KP_OK && size > KP_IM4P_MAX_SIZE)
		return kp_error_set(err, KP_ERR_LIMIT, 0, (long)pl->at,
		                    "LZFSE payload decodes to more than %u MiB",
		                    (unsigned)(KP_IM4P_MAX_SIZE >> 20));
	unsigned char *buf = NULL;
	if (st == KP_OK) {
		buf = malloc(size ? size : 1);
		if (!buf)
			return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory decoding LZFSE");
		st = kp__lzfse_decode(buf, size, &got, pl->p, pl->len, &e);
	}
	if (st != KP_OK) {
		free(buf);
		if (st == KP_ERR_NOMEM)
			return kp_error_set(err, st, 0, -1, "%s", e.msg);
		return kp_error_set(err, KP_ERR_FORMAT, 0, (long)pl->at + e.byte,
		                    "LZFSE payload does not decode (%s)", e.msg);
	}
	*out = buf;
	*outlen = got;
	return KP_OK;
}

kp_status kp__im4p_unwrap(const unsigned char *d, size_t n, unsigned char **out, size_t *outlen,
                          kp_error *err)
{
	size_t at = 0;
	der seq, name, type, desc, pl;
	if (!der_next(d, n, &at, 0x30, &seq))
		return kp_error_set(err, KP_ERR_FORMAT, 0, 0, "IM4P: the DER sequence is cut short");
	size_t in = 0, end = seq.len;
	const unsigned char *s = seq.p;
	if (!der_next(s, end, &in, 0x16, &name) || name.len != 4 || memcmp(name.p, "IM4P", 4) != 0)
		return kp_error_set(err, KP_ERR_FORMAT, 0, (long)seq.at, "not an IM4P");
	if (!der_next(s, end, &in, 0x16, &type) || !der_next(s, end, &in, 0x16, &desc))
		return kp_error_set(err, KP_ERR_FORMAT, 0, (long)(seq.at + in), "IM4P: type or description cut short");
	if (!der_next(s, end, &in, 0x04, &pl))
		return kp_error_set(err, KP_ERR_FORMAT, 0, (long)(seq.at + in), "IM4P: payload cut short");
	pl.at += seq.at;
	if (pl.len >= 8 && memcmp(pl.p, "complzss", 8) == 0)
		return complzss(&pl, out, outlen, err);
	if (pl.len >= 4 && memcmp(pl.p, "bvx", 3) == 0)
		return lzfse(&pl, out, outlen, err);
	if (pl.len > KP_IM4P_MAX_SIZE)
		return kp_error_set(err, KP_ERR_LIMIT, 0, (long)pl.at, "IM4P payload too large");
	unsigned char *buf = malloc(pl.len ? pl.len : 1);
	if (!buf)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	memcpy(buf, pl.p, pl.len);   /* stored: the Mach-O as it is */
	*out = buf;
	*outlen = pl.len;
	return KP_OK;
}
