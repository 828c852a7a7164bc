/* kp_sha1.h: SHA-1 (FIPS 180-4) of bytes, at once or in pieces.
 *
 * Ownership: plain values; the caller owns the state and the output buffers.
 * Call order for pieces: kp_sha1_init, kp_sha1_update any number of times,
 * kp_sha1_final once. */
#ifndef KP_SHA1_H
#define KP_SHA1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct kp_sha1 {
	uint32_t h[5];
	uint64_t nbytes;
	uint8_t buf[64];
	size_t nbuf;
} kp_sha1;

void kp_sha1_init(kp_sha1 *s);
void kp_sha1_update(kp_sha1 *s, const void *data, size_t len);
void kp_sha1_final(kp_sha1 *s, uint8_t digest[20]);

/* The digest of data[0..len); hex is 40 lower-case digits + NUL. */
void kp_sha1_digest(const void *data, size_t len, uint8_t digest[20]);
void kp_sha1_hex(const void *data, size_t len, char hex[41]);
/* A digest as 40 lower-case hex digits + NUL. */
void kp_sha1_to_hex(const uint8_t digest[20], char hex[41]);

/* Whether digests use the CPU's SHA instructions, where it has them (the
 * default); false makes every later digest use the portable code (tests
 * compare the two).  Returns whether the CPU's are in use now. */
bool kp_sha1_use_cpu(bool on);

#endif
