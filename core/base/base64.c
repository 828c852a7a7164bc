/* base64.c: base64 decoding (contract: kp_base64.h). */
#include "kp_base64.h"

static int b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

bool kp_base64_decode(const char *s, size_t len, bool strict, unsigned char *out, size_t *n)
{
	unsigned acc = 0;
	int bits = 0, group = 0, pad = 0;
	size_t o = 0;
	if (strict && len % 4 != 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!strict && (c == ' ' || c == '\t' || c == '\r' || c == '\n'))
			continue;
		if (c == '=') {
			pad++;
			group++;
			if (group == 4)
				group = 0;
			continue;
		}
		int v = b64_value(c);
		if (v < 0 || pad)   /* nothing may follow padding */
			return false;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		group = (group + 1) % 4;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	/* a group of 1 character carries no whole byte; padding only ends a
	 * group of 2 or 3 */
	if (group == 1 || pad > 2)
		return false;
	*n = o;
	return true;
}
