/* json.c: the JSON skimmer (kp_json.h), moved here from core/report so the
 * symbol files (signature files, ipsw maps) skim too. */
#include "kp_json.h"
#include "kp_lex.h"
#include "kp_utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *kp_json_ws(const char *p, const char *end)
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

/* The code unit of a \\uXXXX escape at p (6 bytes readable), or 0x10000
 * when p is not one. */
unsigned kp_json_esc_u(const char *p)
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

/* p at the opening quote; returns past the closing one. */
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

/* The bytes kp_json_skip stops at inside a container; it steps over
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

/* The recorded container opening at off, or NULL.  Lookups come in the
 * order of the walk: the next container, or one a few entries on, or (a
 * reader going back to a member it kept) an earlier one. */
static const struct kp_jmemo_ent *memo_find(kp_jmemo *m, size_t off)
{
	size_t i = m->next;
	for (int k = 0; k < 4 && i < m->n && m->v[i].open < off; k++)
		i++;
	if ((i < m->n && m->v[i].open < off) || (i > 0 && m->v[i - 1].open >= off)) {
		size_t lo = 0, hi = m->n;   /* the first entry opening at or after off */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (m->v[mid].open < off)
				lo = mid + 1;
			else
				hi = mid;
		}
		i = lo;
	}
	m->next = i;
	if (i == m->n || m->v[i].open != off || m->v[i].close == 0)
		return NULL;
	m->next = i + 1;   /* a reader walking into it looks up its members next */
	return &m->v[i];
}

/* Appends an entry for the container opening at off; false when out of
 * memory (then nothing more is recorded). */
static bool memo_push(kp_jmemo *m, size_t off)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		struct kp_jmemo_ent *v = realloc(m->v, cap * sizeof *v);
		if (!v)
			return false;
		m->v = v;
		m->cap = cap;
	}
	m->v[m->n++] = (struct kp_jmemo_ent){(uint32_t)off, 0};
	return true;
}

/* Every value is scanned once per level of nesting above it (each level's
 * iterator skips its members whole) unless a memo remembers it, so this is
 * the parser's hot loop: it only matches brackets and steps over strings. */
const char *kp_json_skip_memo(const char *p, const char *end, kp_jmemo *memo, kp_jerr *e)
{
	p = kp_json_ws(p, end);
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
	const char *start = p;
	if (memo && (size_t)(p - memo->base) <= UINT32_MAX) {
		const struct kp_jmemo_ent *hit = memo_find(memo, (size_t)(p - memo->base));
		if (hit && (size_t)(end - memo->base) > hit->close)
			return memo->base + hit->close + 1;
		/* records only past every entry, so the entries stay in order */
		if (memo->n && memo->v[memo->n - 1].open >= (size_t)(p - memo->base))
			memo = NULL;
		if (memo && (size_t)(end - memo->base) > UINT32_MAX)
			memo = NULL;
	} else {
		memo = NULL;
	}
	/* A stack of the open brackets as bits: 1 for '{', 0 for '['; with a
	 * memo, the entry of each too. */
	unsigned char stack[KP_JSON_MAX_DEPTH / 8] = {0};
	uint32_t slot[KP_JSON_MAX_DEPTH];
	int depth = 0;
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
			if (memo) {
				slot[depth] = (uint32_t)memo->n;
				if (!memo_push(memo, (size_t)(p - memo->base)))
					memo = NULL;   /* the open entries keep close 0 */
			}
			depth++;
			p++;
			continue;
		}
		bool obj = stack[(depth - 1) / 8] & (1u << ((depth - 1) % 8));
		if (obj != (c == '}'))
			return fail(e, p, "mismatched bracket", false);
		--depth;
		if (memo) {
			/* a small container is the last entry: any inside it were smaller */
			struct kp_jmemo_ent *ent = &memo->v[slot[depth]];
			size_t close = (size_t)(p - memo->base);
			if (close - ent->open + 1 < KP_JSON_MEMO_MIN && slot[depth] == memo->n - 1)
				memo->n--;
			else
				ent->close = (uint32_t)close;
		}
		p++;
		if (depth == 0)
			return p;
	}
}

const char *kp_json_skip(const char *p, const char *end, kp_jerr *e)
{
	return kp_json_skip_memo(p, end, NULL, e);
}

void kp_json_memo_free(kp_jmemo *memo)
{
	free(memo->v);
	memo->v = NULL;
	memo->n = memo->cap = memo->next = 0;
}

bool kp_json_obj_begin(kp_jiter *it, const char *p, const char *end, kp_jerr *e)
{
	p = kp_json_ws(p, end);
	e->msg = NULL;
	if (p >= end || *p != '{') {
		fail(e, p, "object expected", p >= end);
		return false;
	}
	it->p = p + 1;
	it->end = end;
	it->state = 0;
	it->memo = NULL;
	return true;
}

bool kp_json_obj_next(kp_jiter *it, kp_jmember *m, kp_jerr *e)
{
	const char *p = kp_json_ws(it->p, it->end), *end = it->end;
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
		p = kp_json_ws(p + 1, end);
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
	p = kp_json_ws(kend, end);
	if (p >= end || *p != ':') {
		fail(e, p, p >= end ? "unexpected end after a member name" : "':' expected", p >= end);
		return false;
	}
	m->val = kp_json_ws(p + 1, end);
	m->val_end = kp_json_skip_memo(m->val, end, it->memo, e);
	if (!m->val_end)
		return false;
	it->p = m->val_end;
	it->state = 1;
	return true;
}

bool kp_json_arr_begin(kp_jiter *it, const char *p, const char *end, kp_jerr *e)
{
	p = kp_json_ws(p, end);
	e->msg = NULL;
	if (p >= end || *p != '[') {
		fail(e, p, "array expected", p >= end);
		return false;
	}
	it->p = p + 1;
	it->end = end;
	it->state = 0;
	it->memo = NULL;
	return true;
}

bool kp_json_arr_next(kp_jiter *it, const char **val, const char **val_end, kp_jerr *e)
{
	const char *p = kp_json_ws(it->p, it->end), *end = it->end;
	e->msg = NULL;
	if (it->state && p < end && *p == ',')
		p = kp_json_ws(p + 1, end);
	if (p >= end) {
		fail(e, p, "unexpected end inside an array", true);
		return false;
	}
	if (*p == ']') {
		it->p = p + 1;
		return false;
	}
	const char *ve = kp_json_skip_memo(p, end, it->memo, e);
	if (!ve)
		return false;
	*val = p;
	*val_end = ve;
	it->p = ve;
	it->state = 1;
	return true;
}


size_t kp_json_str(const char *s, const char *end, char *out)
{
	if (end - s < 2 || s[0] != '"' || end[-1] != '"')
		return (size_t)-1;
	const char *p = s + 1, *q = end - 1;
	size_t o = 0;
	while (p < q) {
		const char *bs = memchr(p, '\\', (size_t)(q - p));
		size_t run = bs ? (size_t)(bs - p) : (size_t)(q - p);
		memmove(out + o, p, run);   /* in place: out + o <= p */
		o += run;
		p += run;
		if (p >= q)
			break;
		if (q - p < 2)
			return (size_t)-1;
		char c = p[1], simple = c == '"' || c == '\\' || c == '/' ? c : c == 'b' ? '\b'
		                        : c == 'f' ? '\f' : c == 'n' ? '\n' : c == 'r' ? '\r'
		                        : c == 't' ? '\t' : 0;
		if (simple) {
			out[o++] = simple;
			p += 2;
			continue;
		}
		unsigned u = q - p >= 6 ? kp_json_esc_u(p) : 0x10000, lo;
		if (u > 0xffff)
			return (size_t)-1;
		p += 6;
		uint32_t cp = u;
		if (u >= 0xD800 && u <= 0xDBFF && q - p >= 6 && (lo = kp_json_esc_u(p)) >= 0xDC00 &&
		    lo <= 0xDFFF) {
			cp = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
			p += 6;
		} else if (u >= 0xD800 && u <= 0xDFFF) {
			cp = 0xFFFD;
		}
		if (cp == 0)
			out[o++] = '\0';
		else
			o += kp_utf8_encode(cp, out + o);
	}
	out[o] = '\0';
	return o;
}
