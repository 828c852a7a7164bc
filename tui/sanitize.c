/* sanitize.c: terminal-inert text.  One decoder serves the TUI and the CLI. */
#include "kpt_sanitize.h"

#include <stdint.h>
#include <string.h>

/* Decodes one UTF-8 sequence; returns its length, or 0 when invalid
 * (overlong, surrogate, past U+10FFFF, or cut off). */
static size_t utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t v, min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if ((c & 0xE0) == 0xC0) {
		n = 2, v = c & 0x1F, min = 0x80;
	} else if ((c & 0xF0) == 0xE0) {
		n = 3, v = c & 0x0F, min = 0x800;
	} else if ((c & 0xF8) == 0xF0) {
		n = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	*cp = v;
	return n;
}

static bool dangerous_cp(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9F) ||          /* C1 controls (CSI, OSC as 0x9b, 0x9d) */
	       (cp >= 0x202A && cp <= 0x202E) ||      /* bidi embeddings and overrides */
	       (cp >= 0x2066 && cp <= 0x2069) ||      /* bidi isolates */
	       cp == 0x200E || cp == 0x200F || cp == 0x061C || /* directional marks */
	       cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB) ||
	       (cp >= 0xE0000 && cp <= 0xE007F);      /* tags */
}

typedef struct sink {
	FILE *fp;
	char *out;
	size_t size, len;
} sink;

static void put(sink *k, const char *s, size_t n)
{
	if (k->fp) {
		fwrite(s, 1, n, k->fp);
		return;
	}
	if (k->size == 0)
		return;
	size_t room = k->size - 1 - k->len;
	if (n > room) {
		/* chunks are ASCII runs or one whole UTF-8 sequence: never cut the latter */
		if ((unsigned char)s[0] >= 0x80)
			return;
		n = room;
	}
	memcpy(k->out + k->len, s, n);
	k->len += n;
	k->out[k->len] = '\0';
}

static void run(sink *k, const char *s, size_t len, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	char buf[16];
	size_t i = 0;
	while (i < len) {
		size_t start = i;
		/* fast path: a run of printable ASCII */
		while (i < len && p[i] >= 0x20 && p[i] < 0x7F)
			i++;
		if (i > start)
			put(k, s + start, i - start);
		if (i >= len)
			break;
		unsigned char c = p[i];
		if (c < 0x80) {
			if ((c == '\n' || c == '\t') && (flags & KPT_SAN_KEEP_NEWLINES))
				put(k, (const char *)&p[i], 1);
			else if (c == '\t')
				put(k, " ", 1);
			else if (c == 0x1B)
				put(k, "\\e", 2);
			else if (c == '\r')
				;   /* CR of CRLF line ends: drop */
			else {
				int n = snprintf(buf, sizeof buf, "\\x%02x", c);
				put(k, buf, (size_t)n);
			}
			i++;
			continue;
		}
		uint32_t cp;
		size_t n = utf8_decode(p + i, len - i, &cp);
		if (n == 0) {
			put(k, "\xEF\xBF\xBD", 3);   /* U+FFFD */
			i++;
		} else if (dangerous_cp(cp)) {
			int m = snprintf(buf, sizeof buf, "<U+%04X>", (unsigned)cp);
			put(k, buf, (size_t)m);
			i += n;
		} else {
			put(k, s + i, n);
			i += n;
		}
	}
}

void kpt_sanitize_write(FILE *fp, const char *s, size_t len, unsigned flags)
{
	sink k = {.fp = fp};
	run(&k, s, len, flags);
}

size_t kpt_sanitize(char *out, size_t size, const char *s, size_t len, unsigned flags)
{
	sink k = {.out = out, .size = size};
	if (size)
		out[0] = '\0';
	run(&k, s, len, flags);
	return k.len;
}
