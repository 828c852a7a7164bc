/* sanitize.c: terminal-inert text.  One decoder serves the TUI and the CLI. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700   /* wcwidth */
#endif
#include "kp_sanitize.h"
#include "kp_utf8.h"

#include <stdint.h>
#include <string.h>
#include <wchar.h>

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

/* The one decoder: the sanitised form of the unit at p (a run of printable
 * ASCII, or one byte, or one UTF-8 sequence) as out/outn (pointing into p
 * or into buf); returns the input bytes it takes (at least 1). */
static size_t unit(const unsigned char *p, size_t len, unsigned flags, char buf[16],
                   const char **out, size_t *outn)
{
	size_t i = 0;
	while (i < len && p[i] >= 0x20 && p[i] < 0x7F)   /* fast path: printable ASCII */
		i++;
	if (i > 0) {
		*out = (const char *)p;
		*outn = i;
		return i;
	}
	unsigned char c = p[0];
	*out = buf;
	if (c < 0x80) {
		if ((c == '\n' || c == '\t') && (flags & KP_SAN_KEEP_NEWLINES))
			*out = (const char *)p, *outn = 1;
		else if (c == '\t')
			*out = " ", *outn = 1;
		else if (c == 0x1B)
			*out = "\\e", *outn = 2;
		else if (c == '\r')
			*outn = 0;   /* CR of CRLF line ends: drop */
		else
			*outn = (size_t)snprintf(buf, 16, "\\x%02x", c);
		return 1;
	}
	uint32_t cp;
	size_t n = kp_utf8_decode(p, len, &cp);
	if (cp == 0xFFFD && n == 1) {
		*out = "\xEF\xBF\xBD", *outn = 3;   /* an invalid byte */
		return 1;
	}
	if (kp_text_cp_unsafe(cp)) {
		*outn = (size_t)snprintf(buf, 16, "<U+%04X>", (unsigned)cp);
		return n;
	}
	*out = (const char *)p;
	*outn = n;
	return n;
}

static void run(sink *k, const char *s, size_t len, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	char buf[16];
	size_t i = 0;
	while (i < len) {
		const char *o;
		size_t on;
		i += unit(p + i, len - i, flags, buf, &o, &on);
		if (on)
			put(k, o, on);
	}
}

int kp_sanitize_next(const char *s, size_t len, size_t *consumed)
{
	const unsigned char *p = (const unsigned char *)s;
	char buf[16];
	const char *o;
	size_t on;
	if ((p[0] >= 0x20 && p[0] < 0x7F) || p[0] == '\t') {   /* the common case, one column */
		*consumed = 1;
		return 1;
	}
	*consumed = unit(p, len, 0, buf, &o, &on);
	if (on == 0 || (unsigned char)o[0] < 0x80)
		return (int)on;   /* ASCII: \e, \xNN, <U+...> */
	if (on == 3 && memcmp(o, "\xEF\xBF\xBD", 3) == 0)
		return 1;
	mbstate_t ps;
	memset(&ps, 0, sizeof ps);
	wchar_t wc;
	size_t k = mbrtowc(&wc, o, on, &ps);
	int w = k == 0 || k > on ? 1 : wcwidth(wc);
	return w < 0 ? 1 : w;
}

void kp_sanitize_write(FILE *fp, const char *s, size_t len, unsigned flags)
{
	sink k = {.fp = fp};
	run(&k, s, len, flags);
}

size_t kp_sanitize(char *out, size_t size, const char *s, size_t len, unsigned flags)
{
	sink k = {.out = out, .size = size};
	if (size)
		out[0] = '\0';
	run(&k, s, len, flags);
	return k.len;
}
