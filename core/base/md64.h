/* md64.h: what SHA-1 and SHA-256 share, private to sha1.c and sha256.c:
 * bytes gathered into 64-byte blocks for a compression function, the
 * closing pad (0x80, zeros, the bit count big-endian), the state words
 * written big-endian, and a digest in lower-case hex.
 *
 * Ownership: the caller's state (h, buf, nbuf, nbytes) and buffers. */
#ifndef KP_MD64_H
#define KP_MD64_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* x86 with the compiler's cpuid and SHA intrinsics: the files may carry a
 * block function on the CPU's SHA instructions, used where the CPU has them */
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define KP_MD64_X86 1
#include <cpuid.h>
#include <immintrin.h>

/* SHA (CPUID 7.0:EBX bit 29), SSSE3 and SSE4.1 (1:ECX bits 9, 19). */
static inline int md64_cpu_has_sha(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 9)) || !(c & (1u << 19)))
		return 0;
	if (__get_cpuid_max(0, NULL) < 7)
		return 0;
	__cpuid_count(7, 0, a, b, c, d);
	return (b >> 29) & 1;
}
#endif

/* Whether blocks go through the CPU's SHA instructions: *use_cpu is -1
 * until asked, then the answer (threads that race to ask store the same
 * one).  md64_use_cpu sets it (on: where the CPU has them) and returns it. */
static inline int md64_cpu_wanted(_Atomic int *use_cpu)
{
#ifdef KP_MD64_X86
	int u = *use_cpu;
	if (u < 0)
		*use_cpu = u = md64_cpu_has_sha();
	return u;
#else
	(void)use_cpu;
	return 0;
#endif
}

static inline bool md64_use_cpu(_Atomic int *use_cpu, bool on)
{
#ifdef KP_MD64_X86
	*use_cpu = on ? md64_cpu_has_sha() : 0;
	return *use_cpu;
#else
	(void)on;
	*use_cpu = 0;
	return false;
#endif
}

/* n whole blocks at p folded into the state h */
typedef void md64_blocks_fn(uint32_t *h, const uint8_t *p, size_t n);

static inline void md64_update(uint32_t *h, uint8_t buf[64], size_t *nbuf, uint64_t *nbytes,
                               md64_blocks_fn *blocks, const void *data, size_t len)
{
	const uint8_t *p = data;
	*nbytes += len;
	if (*nbuf) {
		size_t take = 64 - *nbuf < len ? 64 - *nbuf : len;
		memcpy(buf + *nbuf, p, take);
		*nbuf += take;
		p += take;
		len -= take;
		if (*nbuf < 64)
			return;
		blocks(h, buf, 1);
		*nbuf = 0;
	}
	size_t whole = len / 64;
	if (whole)
		blocks(h, p, whole);
	p += 64 * whole;
	len -= 64 * whole;
	memcpy(buf, p, len);
	*nbuf = len;
}

/* The pad, then the nwords state words as the digest (4 * nwords bytes). */
static inline void md64_final(uint32_t *h, uint8_t buf[64], size_t *nbuf, uint64_t *nbytes,
                              md64_blocks_fn *blocks, uint8_t *digest, int nwords)
{
	uint64_t bits = *nbytes * 8;
	uint8_t pad[72] = {0x80};
	size_t padlen = (*nbuf < 56 ? 56 : 120) - *nbuf;
	for (int i = 0; i < 8; i++)
		pad[padlen + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
	md64_update(h, buf, nbuf, nbytes, blocks, pad, padlen + 8);
	for (int i = 0; i < nwords; i++) {
		digest[4 * i] = (uint8_t)(h[i] >> 24);
		digest[4 * i + 1] = (uint8_t)(h[i] >> 16);
		digest[4 * i + 2] = (uint8_t)(h[i] >> 8);
		digest[4 * i + 3] = (uint8_t)h[i];
	}
}

/* n digest bytes as 2n lower-case hex digits + NUL */
static inline void md64_hex(const uint8_t *d, size_t n, char *hex)
{
	static const char x[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		hex[2 * i] = x[d[i] >> 4];
		hex[2 * i + 1] = x[d[i] & 15];
	}
	hex[2 * n] = '\0';
}

#endif
