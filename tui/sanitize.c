/* sanitize.c: terminal-inert text.  One decoder serves the TUI and the CLI. */
#include "kpt_sanitize.h"
#include "kp_utf8.h"

#include <stdint.h>
#include <string.h>

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
		size_t n = kp_utf8_decode(p + i, len - i, &cp);
		if (cp == 0xFFFD && n == 1) {
			put(k, "\xEF\xBF\xBD", 3);   /* an invalid byte */
			i++;
		} else if (kp_text_cp_unsafe(cp)) {
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
