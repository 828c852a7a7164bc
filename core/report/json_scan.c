#include "json_scan.h"
#include "report_build.h"

#include <stdlib.h>
#include <string.h>

const char *kp__json_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static const char *fail(kp_jerr *e, const char *pos, const char *msg, bool truncated)
{
	e->pos = pos;
	e->msg = msg;
	e->truncated = truncated;
	return NULL;
}

/* p at the opening quote; returns past the closing one. */
/* The code unit of a \\uXXXX escape at p (6 bytes readable), or 0x10000
 * when p is not one. */
static unsigned esc_u(const char *p)
{
	if (p[0] != '\\' || p[1] != 'u')
		return 0x10000;
	unsigned v = 0;
	for (int i = 2; i < 6; i++) {
		int d = kp_hex_digit((unsigned char)p[i]);
		if (d < 0)
			return 0x10000;
		v = v << 4 | (unsigned)d;
	}
	return v;
}

static const char *skip_string(const char *p, const char *end, kp_jerr *e)
{
	const char *start = p++;
	while (p < end) {
		const char *q = memchr(p, '"', (size_t)(end - p));
		if (!q)
			break;
		/* count the backslashes right before the quote */
		const char *b = q;
		while (b > p && b[-1] == '\\')
			b--;
		if (((q - b) & 1) == 0)
			return q + 1;
		p = q + 1;
	}
	return fail(e, start, "unterminated string", true);
}

/* The bytes kp__json_skip stops at inside a container; it steps over
 * every other byte (scalars, separators, white space) without looking. */
static const unsigned char skip_stop[256] = {
	['"'] = 1, ['{'] = 1, ['['] = 1, ['}'] = 1, [']'] = 1,
};

static bool scalar_end(char c)
{
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' ||
	       c == '\t' || c == ':';
}

/* Where a value cut off at end went wrong: the start of the scalar it ends
 * in, or end itself (after white space or a separator). */
static const char *cut_at(const char *start, const char *end)
{
	const char *s = end;
	while (s > start && !scalar_end(s[-1]) && !skip_stop[(unsigned char)s[-1]])
		s--;
	return s;
}

/* Every value is scanned once per level of nesting above it (each level's
 * iterator skips its members whole), so this is the parser's hot loop: it
 * only matches brackets and steps over strings. */
const char *kp__json_skip(const char *p, const char *end, kp_jerr *e)
{
	p = kp__json_ws(p, end);
	if (p >= end)
		return fail(e, p, "value expected", true);
	char c = *p;
	if (c == '"')
		return skip_string(p, end, e);
	if (c == '}' || c == ']')
		return fail(e, p, "unbalanced bracket", false);
	if (c == ',' || c == ':')
		return p + 1;
	if (c != '{' && c != '[') {
		while (p < end && !scalar_end(*p))
			p++;
		return p;
	}
	/* A stack of the open brackets as bits: 1 for '{', 0 for '['. */
	unsigned char stack[KP_JSON_MAX_DEPTH / 8] = {0};
	int depth = 0;
	const char *start = p;
	for (;;) {
		while (p < end && !skip_stop[(unsigned char)*p])
			p++;
		if (p >= end)
			return fail(e, cut_at(start, end), "unexpected end inside a value", true);
		c = *p;
		if (c == '"') {
			if (!(p = skip_string(p, end, e)))
				return NULL;
			continue;
		}
		if (c == '{' || c == '[') {
			if (depth >= KP_JSON_MAX_DEPTH)
				return fail(e, p, "JSON nested too deeply", false);
			if (c == '{')
				stack[depth / 8] |= (unsigned char)(1u << (depth % 8));
			else
				stack[depth / 8] &= (unsigned char)~(1u << (depth % 8));
			depth++;
			p++;
			continue;
		}
		bool obj = stack[(depth - 1) / 8] & (1u << ((depth - 1) % 8));
		if (obj != (c == '}'))
			return fail(e, p, "mismatched bracket", false);
		p++;
		if (--depth == 0)
			return p;
	}
}

bool kp__json_obj_begin(kp_jiter *it, const char *p, const char *end, kp_jerr *e)
{
	p = kp__json_ws(p, end);
	e->msg = NULL;
	if (p >= end || *p != '{') {
		fail(e, p, "object expected", p >= end);
		return false;
	}
	it->p = p + 1;
	it->end = end;
	it->state = 0;
	return true;
}

bool kp__json_obj_next(kp_jiter *it, kp_jmember *m, kp_jerr *e)
{
	const char *p = kp__json_ws(it->p, it->end), *end = it->end;
	e->msg = NULL;
	if (p >= end) {
		fail(e, p, "unexpected end inside an object", true);
		return false;
	}
	if (*p == '}') {
		it->p = p + 1;
		return false;
	}
	if (it->state) {
		if (*p != ',') {
			fail(e, p, "',' or '}' expected", false);
			return false;
		}
		p = kp__json_ws(p + 1, end);
	}
	if (p >= end || *p != '"') {
		fail(e, p, p >= end ? "unexpected end inside an object" : "member name expected",
		     p >= end);
		return false;
	}
	const char *kend = skip_string(p, end, e);
	if (!kend)
		return false;
	m->key = p + 1;
	m->keylen = (size_t)(kend - p - 2);
	p = kp__json_ws(kend, end);
	if (p >= end || *p != ':') {
		fail(e, p, p >= end ? "unexpected end after a member name" : "':' expected", p >= end);
		return false;
	}
	m->val = kp__json_ws(p + 1, end);
	m->val_end = kp__json_skip(m->val, end, e);
	if (!m->val_end)
		return false;
	it->p = m->val_end;
	it->state = 1;
	return true;
}

bool kp__json_arr_begin(kp_jiter *it, const char *p, const char *end, kp_jerr *e)
{
	p = kp__json_ws(p, end);
	e->msg = NULL;
	if (p >= end || *p != '[') {
		fail(e, p, "array expected", p >= end);
		return false;
	}
	it->p = p + 1;
	it->end = end;
	it->state = 0;
	return true;
}

bool kp__json_arr_next(kp_jiter *it, const char **val, const char **val_end, kp_jerr *e)
{
	const char *p = kp__json_ws(it->p, it->end), *end = it->end;
	e->msg = NULL;
	if (it->state && p < end && *p == ',')
		p = kp__json_ws(p + 1, end);
	if (p >= end) {
		fail(e, p, "unexpected end inside an array", true);
		return false;
	}
	if (*p == ']') {
		it->p = p + 1;
		return false;
	}
	const char *ve = kp__json_skip(p, end, e);
	if (!ve)
		return false;
	*val = p;
	*val_end = ve;
	it->p = ve;
	it->state = 1;
	return true;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

cJSON *kp__json_parse_span(const char *s, const char *end, kp_jerr *e)
{
	size_t len = (size_t)(end - s);
	/* Count the long integers first so the copy is allocated once. */
	size_t extra = 0;
	for (const char *p = s; p < end;) {
		if (*p == '"') {
			kp_jerr dummy;
			const char *q = skip_string(p, end, &dummy);
			p = q ? q : end;
		} else if (is_digit(*p)) {
			const char *q = p;
			while (q < end && is_digit(*q))
				q++;
			if (q - p >= 16 && (q == end || (*q != '.' && *q != 'e' && *q != 'E')))
				extra += 2;
			p = q;
		} else {
			p++;
		}
	}
	char *buf = malloc(len + extra + 1);
	size_t *ins = extra ? malloc(extra / 2 * sizeof *ins) : NULL;
	if (!buf || (extra && !ins)) {
		free(buf);
		free(ins);
		fail(e, s, "out of memory", false);
		return NULL;
	}
	size_t o = 0, nins = 0;
	for (const char *p = s; p < end;) {
		if (*p == '"') {
			kp_jerr dummy;
			const char *q = skip_string(p, end, &dummy);
			if (!q)
				q = end;
			/* \u0000 would cut cJSON's C string (and everything after it
			 * in a panic string), and cJSON refuses the whole member for
			 * a surrogate without its pair (Python's json takes it): both
			 * become U+FFFD, as in ips_procs.c. */
			while (p < q) {
				unsigned u = q - p >= 6 ? esc_u(p) : 0x10000, lo;
				bool lone = u >= 0xD800 && u <= 0xDFFF &&
				            !(u <= 0xDBFF && q - p >= 12 && (lo = esc_u(p + 6)) >= 0xDC00 &&
				              lo <= 0xDFFF);
				if (u >= 0xD800 && u <= 0xDBFF && !lone) { /* a pair: both kept */
					memcpy(buf + o, p, 12);
					o += 12;
					p += 12;
				} else if (u == 0 || lone) {
					memcpy(buf + o, "\\ufffd", 6);
					o += 6;
					p += 6;
				} else if (*p == '\\' && q - p >= 2) {
					buf[o++] = *p++;
					buf[o++] = *p++;
				} else {
					buf[o++] = *p++;
				}
			}
		} else if (is_digit(*p)) {
			const char *q = p;
			while (q < end && is_digit(*q))
				q++;
			bool quote = q - p >= 16 && (q == end || (*q != '.' && *q != 'e' && *q != 'E')) &&
			             !(p > s && p[-1] && strchr("-.eE+", p[-1]));
			if (quote) {
				ins[nins++] = o;
				buf[o++] = '"';
			}
			memcpy(buf + o, p, (size_t)(q - p));
			o += (size_t)(q - p);
			if (quote)
				buf[o++] = '"';
			p = q;
		} else {
			buf[o++] = *p++;
		}
	}
	buf[o] = '\0';
	const char *errp = NULL;
	cJSON *tree = cJSON_ParseWithLengthOpts(buf, o, &errp, 0);
	if (!tree) {
		size_t eo = errp && errp >= buf && errp <= buf + o ? (size_t)(errp - buf) : 0;
		size_t shift = 0;
		for (size_t i = 0; i < nins; i++)
			if (ins[i] < eo)
				shift += ins[i] + 1 < eo ? 2 : 1;
		fail(e, s + (eo - shift), "malformed JSON", eo >= o);
	}
	free(buf);
	free(ins);
	return tree;
}

bool kp__json_u64(const cJSON *item, uint64_t *out)
{
	if (cJSON_IsNumber(item)) {
		double d = item->valuedouble;
		if (!(d >= 0) || d > 9007199254740992.0 || d != (double)(uint64_t)d)
			return false;
		*out = (uint64_t)d;
		return true;
	}
	if (cJSON_IsString(item) && item->valuestring)
		return kp_parse_u64(item->valuestring, strlen(item->valuestring), out);
	return false;
}
