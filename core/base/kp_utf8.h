/* kp_utf8.h: the one UTF-8 decoder and the one rule of which code points
 * are never shown raw (terminal sanitiser and JSON writer alike).
 *
 * Ownership: pure functions on caller buffers. */
#ifndef KP_UTF8_H
#define KP_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes the sequence at s[0..len) (len > 0) into *cp and returns its
 * length (1..4).  A byte that does not start a valid sequence (bad lead,
 * cut off, overlong, surrogate, past U+10FFFF) gives U+FFFD and length 1,
 * so a literal U+FFFD is told apart by its length 3. */
size_t kp_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp);

/* Writes cp (at most U+10FFFF, not a surrogate) as UTF-8 into out and
 * returns the number of bytes (1..4). */
size_t kp_utf8_encode(uint32_t cp, char out[4]);

/* True when s[0..len) is valid UTF-8 (what a PostgreSQL UTF8 database
 * takes): no byte kp_utf8_decode would turn into U+FFFD by itself. */
bool kp_utf8_valid(const char *s, size_t len);

/* NULL when s is valid UTF-8; else a malloc'd copy with each invalid byte
 * replaced by U+FFFD, for text stores that must take it (the report's raw
 * bytes are kept in its archive).  Sets *oom on allocation failure. */
char *kp_utf8_repair(const char *s, bool *oom);

/* True for a code point that report text must never put on a screen or in
 * a JSON string raw: C0 controls, DEL, C1 controls, the line and paragraph
 * separators U+2028/2029, the interlinear annotation controls U+FFF9..FFFB,
 * and every invisible character: Unicode's whole Default_Ignorable_Code_Point
 * set (bidi controls, zero widths and joiners, variation selectors, fillers,
 * soft hyphen, tags, ...) and the Egyptian hieroglyph format controls
 * U+13430..1343F, so a bundle id cannot pass for another.  Callers decide the
 * escaped form; a caller may let chosen C0 controls (newline, tab) through
 * first. */
bool kp_text_cp_unsafe(uint32_t cp);

/* True when s[0..len) holds a code point kp_text_cp_unsafe names: a name
 * that does is not what it looks like and is flagged where it is shown
 * (an invalid byte, shown as U+FFFD, is not counted). */
bool kp_text_has_unsafe(const char *s, size_t len);

#endif
