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

/* Sorted, disjoint.  The invisible ranges are Unicode's whole
 * Default_Ignorable_Code_Point set (DerivedCoreProperties.txt, the same 4174
 * code points in Unicode 15.0, 15.1 and 16.0, reserved ones included so a
 * later assignment stays hidden), plus the Egyptian hieroglyph format
 * controls U+13430..1343F, which are invisible without being in it. */
static const struct { uint32_t lo, hi; } unsafe_ranges[] = {
	{0x0000, 0x001F},   /* C0 */
	{0x007F, 0x009F},   /* DEL, C1 (CSI 0x9b, OSC 0x9d) */
	{0x00AD, 0x00AD},   /* soft hyphen */
	{0x034F, 0x034F},   /* combining grapheme joiner */
	{0x061C, 0x061C},   /* Arabic letter mark */
	{0x115F, 0x1160},   /* Hangul choseong/jungseong fillers */
	{0x17B4, 0x17B5},   /* Khmer inherent vowels */
	{0x180B, 0x180F},   /* Mongolian free variation selectors, vowel separator */
	{0x200B, 0x200F},   /* zero width space, joiners, directional marks */
	{0x2028, 0x202E},   /* line/paragraph separators, embeddings, overrides */
	{0x2060, 0x206F},   /* word joiner, invisible operators, isolates, deprecated */
	{0x3164, 0x3164},   /* Hangul filler */
	{0xFE00, 0xFE0F},   /* variation selectors 1-16 */
	{0xFEFF, 0xFEFF},   /* BOM / zero width no-break space */
	{0xFFA0, 0xFFA0},   /* halfwidth Hangul filler */
	{0xFFF0, 0xFFFB},   /* reserved ignorables, interlinear annotations */
	{0x13430, 0x1343F}, /* Egyptian hieroglyph format controls */
	{0x1BCA0, 0x1BCA3}, /* shorthand format controls */
	{0x1D173, 0x1D17A}, /* musical symbol format controls */
	{0xE0000, 0xE0FFF}, /* tags, variation selectors 17-256, reserved */
};

bool kp_text_cp_unsafe(uint32_t cp)
{
	size_t lo = 0, hi = sizeof unsafe_ranges / sizeof unsafe_ranges[0];
	if (cp >= 0x20 && cp < 0x7F)
		return false;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (cp < unsafe_ranges[mid].lo)
			hi = mid;
		else if (cp > unsafe_ranges[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

bool kp_text_has_unsafe(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = kp_utf8_decode(p + i, len - i, &cp);
		if (kp_text_cp_unsafe(cp))
			return true;
		i += n;
	}
	return false;
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
