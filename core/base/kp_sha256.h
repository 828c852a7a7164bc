/* kp_sha256.h: SHA-256 (FIPS 180-4) of bytes, at once or in pieces: the
 * index's content hash, the key that must not be made to collide (SHA-1,
 * kp_sha1.h, stays for keys no one can aim at: symbol-cache names, group
 * keys of our own making).
 *
 * Ownership: plain values; the caller owns the state and the output buffers.
 * Call order for pieces: kp_sha256_init, kp_sha256_update any number of
 * times, kp_sha256_final once. */
#ifndef KP_SHA256_H
#define KP_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Hex digits of a digest, and the size of a buffer that holds them. */
#define KP_SHA256_HEX 65

typedef struct kp_sha256 {
	uint32_t h[8];
	uint64_t nbytes;
	uint8_t buf[64];
	size_t nbuf;
} kp_sha256;

void kp_sha256_init(kp_sha256 *s);
void kp_sha256_update(kp_sha256 *s, const void *data, size_t len);
void kp_sha256_final(kp_sha256 *s, uint8_t digest[32]);

/* The digest of data[0..len); hex is 64 lower-case digits + NUL. */
void kp_sha256_digest(const void *data, size_t len, uint8_t digest[32]);
void kp_sha256_hex(const void *data, size_t len, char hex[KP_SHA256_HEX]);
void kp_sha256_to_hex(const uint8_t digest[32], char hex[KP_SHA256_HEX]);

/* As kp_sha1_use_cpu: whether blocks go through the CPU's SHA instructions
 * where it has them (the default); false makes every later digest use the
 * portable code (tests compare the two).  Returns whether they are used. */
bool kp_sha256_use_cpu(bool on);

#endif
