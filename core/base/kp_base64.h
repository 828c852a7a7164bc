/* kp_base64.h: the one base64 decoder (RFC 4648, standard alphabet), for
 * report members that carry bytes (ExtensiblePanicLog data, nvram -x
 * <data>).
 *
 * Ownership: the caller owns out, which must hold kp_base64_max(len)
 * bytes; nothing is allocated. */
#ifndef KP_BASE64_H
#define KP_BASE64_H

#include <stdbool.h>
#include <stddef.h>

/* The most bytes len characters decode to. */
#define kp_base64_max(len) ((len) / 4 * 3 + 3)

/* Decodes s[0..len) into out and sets *n.  strict: the text is only
 * alphabet characters and '=' padding to a multiple of 4 (no blanks);
 * otherwise ASCII whitespace anywhere is skipped (a plist's <data> wraps
 * its lines) and the padding may be missing.  False on any other
 * character, misplaced '=' or a dangling 1-character group. */
bool kp_base64_decode(const char *s, size_t len, bool strict, unsigned char *out, size_t *n);

#endif
