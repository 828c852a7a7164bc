/* fuzz_sanitize.c: the sanitiser's property (issue 11): whatever the input,
 * what kp_sanitize / kp_sanitize_write produce is valid UTF-8 and holds
 * no byte or character a terminal acts on: no C0 control (ESC, BEL, ...;
 * only \n and \t with KP_SAN_KEEP_NEWLINES), no DEL, no C1 (as U+0080..9F
 * or a raw 0x80..0x9F byte), no bidi control and no other invisible
 * character (variation selectors, zero widths, fillers, tags, ...).
 * Checked with a UTF-8 decoder of its own, for both flags and for an
 * output buffer cut short (the first input byte picks its size), and
 * kp_sanitize_next must walk the input in steps of at least one byte.
 * kp_utf8_repair (what both index stores bind as text, issue 19 item 2):
 * NULL exactly when the input is valid UTF-8, else valid UTF-8 that
 * kp_utf8_valid accepts, a bad byte becoming U+FFFD. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_sanitize.h"
#include "kp_utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Written out apart from kp_text_cp_unsafe's table, so a slip in one is
 * a finding: the separators, the interlinear annotations and every
 * invisible character (Unicode 16's Default_Ignorable_Code_Point, bidi
 * controls among them, and the hieroglyph format controls; issue 32). */
static int invisible(uint32_t cp)
{
	return cp == 0x00AD || cp == 0x034F || cp == 0x061C || cp == 0x115F || cp == 0x1160 ||
	       cp == 0x17B4 || cp == 0x17B5 || (cp >= 0x180B && cp <= 0x180F) ||
	       (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) ||
	       (cp >= 0x2060 && cp <= 0x206F) || cp == 0x2028 || cp == 0x2029 || cp == 0x3164 ||
	       (cp >= 0xFE00 && cp <= 0xFE0F) || cp == 0xFEFF || cp == 0xFFA0 ||
	       (cp >= 0xFFF0 && cp <= 0xFFFB) || (cp >= 0x13430 && cp <= 0x1343F) ||
	       (cp >= 0x1BCA0 && cp <= 0x1BCA3) || (cp >= 0x1D173 && cp <= 0x1D17A) ||
	       (cp >= 0xE0000 && cp <= 0xE0FFF);
}

/* Aborts (a finding) when s[0..n) breaks the property. */
static void check(const unsigned char *s, size_t n, int keep_newlines)
{
	size_t i = 0;
	while (i < n) {
		unsigned char c = s[i];
		if (c < 0x80) {
			if ((c < 0x20 && !(keep_newlines && (c == '\n' || c == '\t'))) || c == 0x7F)
				abort();
			i++;
			continue;
		}
		size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
		if (len == 0 || i + len > n)
			abort();   /* a stray continuation byte, C0/C1 lead, overlong lead, or a cut sequence */
		uint32_t cp = c & (0x7F >> len);
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xC0) != 0x80)
				abort();
			cp = cp << 6 | (s[i + k] & 0x3F);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
		    (cp >= 0xD800 && cp <= 0xDFFF))
			abort();   /* overlong, out of range, surrogate */
		if ((cp >= 0x80 && cp <= 0x9F) || invisible(cp))
			abort();
		i += len;
	}
}

/* Aborts when kp_utf8_repair breaks its contract on the C string s. */
static void check_repair(const char *s)
{
	bool oom = false;
	char *fixed = kp_utf8_repair(s, &oom);
	if (oom)
		return;
	bool valid = kp_utf8_valid(s, strlen(s));
	if (valid != (fixed == NULL))
		abort();
	if (fixed && (!kp_utf8_valid(fixed, strlen(fixed)) || strlen(fixed) < strlen(s)))
		abort();
	free(fixed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	size_t cap = size * 10 + 16;   /* "<U+XXXXX>" is 9 bytes for a 4-byte input */
	char *out = malloc(cap);
	if (!out)
		return 0;
	for (unsigned flags = 0; flags <= KP_SAN_KEEP_NEWLINES; flags++) {
		size_t n = kp_sanitize(out, cap, in, size, flags);
		if (n != strlen(out) || n >= cap)
			abort();
		check((const unsigned char *)out, n, flags != 0);
		/* a short buffer truncates, never in the middle of a sequence */
		size_t small = size ? (size_t)data[0] % 64 + 1 : 1;
		n = kp_sanitize(out, small, in, size, flags);
		if (n >= small || n != strlen(out))
			abort();
		check((const unsigned char *)out, n, flags != 0);
		/* the stream form writes the same bytes as the whole buffer */
		char *mem = NULL;
		size_t memlen = 0;
		FILE *fp = open_memstream(&mem, &memlen);
		if (fp) {
			kp_sanitize_write(fp, in, size, flags);
			fclose(fp);
			size_t full = kp_sanitize(out, cap, in, size, flags);
			if (memlen != full || memcmp(mem, out, full) != 0)
				abort();
			free(mem);
		}
	}
	for (size_t off = 0; off < size;) {
		size_t k = 0;
		int w = kp_sanitize_next(in + off, size - off, &k);
		if (k == 0 || k > size - off || w < 0 || w > 10)
			abort();
		off += k;
	}
	char *z = malloc(size + 1);   /* the stores take C strings */
	if (z) {
		memcpy(z, data, size);
		z[size] = '\0';
		check_repair(z);
		free(z);
	}
	free(out);
	return 0;
}
