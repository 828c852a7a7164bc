/* lex.c: UUIDs and unsigned numbers (contract: kp_lex.h). */
#include "kp_lex.h"

int kp_hex_digit(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool kp_parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	int base = 10;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == n)
		return false;
	for (; i < n; i++) {
		int d = kp_hex_digit((unsigned char)s[i]);
		if (d < 0 || d >= base)
			return false;
		/* no division a digit: every frame offset of a report comes here */
		if (__builtin_mul_overflow(v, (uint64_t)base, &v) || __builtin_add_overflow(v, (uint64_t)d, &v))
			return false;
	}
	*out = v;
	return true;
}

bool kp_uuid_canon(const char *src, size_t len, char out[37])
{
	static const char hex[] = "0123456789ABCDEF";
	int nd = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)src[i];
		if (c == '-')
			continue;
		int v = kp_hex_digit(c);
		if (v < 0 || nd == 32)
			return false;
		int pos = nd + (nd >= 8) + (nd >= 12) + (nd >= 16) + (nd >= 20);
		out[pos] = hex[v];
		nd++;
	}
	if (nd != 32)
		return false;
	out[8] = out[13] = out[18] = out[23] = '-';
	out[36] = '\0';
	return true;
}
