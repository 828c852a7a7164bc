/* kp_lex.h: the small lexical helpers every parser shares.
 *
 * Ownership: pure functions on caller buffers; nothing is allocated. */
#ifndef KP_LEX_H
#define KP_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The value of hex digit c (either case), or -1. */
int kp_hex_digit(unsigned char c);

/* Canonical upper-case dashed form of a 32-hex-digit UUID with or without
 * dashes; false when src[0..len) is not one. */
bool kp_uuid_canon(const char *src, size_t len, char out[37]);

/* s[0..n) as decimal or 0x-prefixed hex; false on anything else (empty,
 * bare "0x", stray characters) or overflow past UINT64_MAX. */
bool kp_parse_u64(const char *s, size_t n, uint64_t *out);

#endif
