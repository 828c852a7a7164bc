/* utf8.c: UTF-8 decoding and the text-safety rule (contract: kp_utf8.h). */
#include "kp_utf8.h"

#include <string.h>

#include <stdlib.h>

size_t kp_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t v, min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF)
		n = 2, v = c & 0x1F, min = 0x80;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3, v = c & 0x0F, min = 0x800;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4, v = c & 0x07, min = 0x10000;
	else
		goto bad;
	if (len < n)
		goto bad;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			goto bad;
		v = v << 6 | (s[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		goto bad;
	*cp = v;
	return n;
bad:
	*cp = 0xFFFD;
	return 1;
}

size_t kp_utf8_encode(uint32_t cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

bool kp_text_cp_unsafe(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) ||   /* C0, DEL, C1 (CSI 0x9b, OSC 0x9d) */
	       cp == 0x061C || cp == 0x200E || cp == 0x200F ||   /* directional marks */
	       (cp >= 0x202A && cp <= 0x202E) ||                 /* embeddings, overrides */
	       (cp >= 0x2066 && cp <= 0x2069) ||                 /* isolates */
	       cp == 0x2028 || cp == 0x2029 ||                   /* line/paragraph separator */
	       cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB) || /* BOM/ZWNBSP, annotations */
	       (cp >= 0xE0000 && cp <= 0xE007F) ||               /* tags */
	       /* invisible or blank look-alikes, which make com.x.Fake\u2060Driver
	        * read as com.x.FakeDriver: zero-width space/joiners, word joiner
	        * and invisible operators, deprecated format controls, Mongolian
	        * vowel separator, soft hyphen, Hangul fillers, musical symbol
	        * format controls */
	       (cp >= 0x200B && cp <= 0x200D) || (cp >= 0x2060 && cp <= 0x2064) ||
	       (cp >= 0x206A && cp <= 0x206F) || cp == 0x180E || cp == 0x00AD || cp == 0x034F ||
	       cp == 0x115F || cp == 0x1160 || cp == 0x3164 || cp == 0xFFA0 ||
	       (cp >= 0x1D173 && cp <= 0x1D17A);
}

bool kp_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		uint32_t cp;
		size_t n = kp_utf8_decode(p + i, len - i, &cp);
		if (cp == 0xFFFD && n == 1)
			return false;
		i += n;
	}
	return true;
}

char *kp_utf8_repair(const char *s, bool *oom)
{
	size_t len = strlen(s);
	if (kp_utf8_valid(s, len))
		return NULL;
	char *out = malloc(len * 3 + 1);   /* each bad byte becomes 3 */
	if (!out) {
		*oom = true;
		return NULL;
	}
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = p[i] < 0x80 ? 1 : kp_utf8_decode(p + i, len - i, &cp);
		if (p[i] >= 0x80 && cp == 0xFFFD && n == 1) {
			memcpy(out + o, "\xEF\xBF\xBD", 3);
			o += 3;
		} else {
			memcpy(out + o, p + i, n);
			o += n;
		}
		i += n;
	}
	out[o] = '\0';
	return out;
}
