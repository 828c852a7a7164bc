/* kp_sanitize.h: making report text safe for a terminal.
 *
 * Report text is untrusted: it may hold ESC/CSI/OSC sequences, C1 controls,
 * bidi overrides and invalid UTF-8.  Everything that could act on a terminal
 * is rewritten into a visible, inert form (`\e`, `\x9b`, `<U+202E>`, U+FFFD).
 *
 * Ownership: the caller owns out; the functions never write past size and
 * always NUL-terminate (when size > 0). */
#ifndef KP_SANITIZE_H
#define KP_SANITIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum {
	KP_SAN_KEEP_NEWLINES = 1,   /* pass '\n' and '\t' through (multi-line text) */
};

/* Writes the sanitised form of s[0..len) to fp. */
void kp_sanitize_write(FILE *fp, const char *s, size_t len, unsigned flags);

/* Sanitises into out; returns the length written (truncated at size-1). */
size_t kp_sanitize(char *out, size_t size, const char *s, size_t len, unsigned flags);

/* The next unit of s[0..len) (len > 0): sets *consumed to its bytes (at
 * least 1) and returns the columns its sanitised form takes on screen, as
 * kpt_put draws it (0 for a dropped CR).  For laying text out without
 * sanitising it first. */
int kp_sanitize_next(const char *s, size_t len, size_t *consumed);

#endif
