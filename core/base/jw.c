/* jw.c: the one JSON writer (contract: kp_jw.h).
 *
 * Speed: everything goes through one buffer; a string's runs of bytes that
 * need no escape (printable ASCII, valid and safe UTF-8) are copied at once;
 * numbers are formatted by hand; a short plain key and its indent are
 * written in one step.  Nesting is three bit stacks, so a value costs no
 * allocation. */
#include "kp_jw.h"
#include "kp_utf8.h"

#include <stdlib.h>
#include <string.h>

void kp_jw_init(kp_jw *w, FILE *fp)
{
	memset(w, 0, offsetof(kp_jw, spare));
	w->fp = fp;
	w->heap = malloc(KP_JW_BUFSIZE);
	if (w->heap) {
		w->buf = w->heap;
		w->cap = KP_JW_BUFSIZE;
	} else {
		w->failed = true;
		w->buf = w->spare;
		w->cap = sizeof w->spare;
	}
}

void kp_jw_free(kp_jw *w)
{
	free(w->heap);
	w->heap = NULL;
	w->buf = w->spare;
	w->cap = sizeof w->spare;
	w->n = 0;
}

/* From now on output goes to the spare buffer and is dropped. */
static void fail(kp_jw *w)
{
	w->failed = true;
	kp_jw_free(w);
}

/* Writes the buffer out to the FILE. */
static void drain(kp_jw *w)
{
	if (w->n && !w->failed && fwrite(w->buf, 1, w->n, w->fp) != w->n)
		fail(w);
	w->n = 0;
}

bool kp_jw_flush(kp_jw *w)
{
	if (w->fp)
		drain(w);
	return !w->failed;
}

/* Room for need more bytes: drained to the FILE, grown in memory, or (once
 * failed) the spare buffer emptied.  need is at most sizeof spare unless
 * the writer grows in memory. */
static void make_room(kp_jw *w, size_t need)
{
	if (w->failed || w->fp) {
		if (w->fp)
			drain(w);
		w->n = 0;
		return;
	}
	size_t cap = w->cap;
	while (cap - w->n < need) {
		if (cap > SIZE_MAX / 2) {
			fail(w);
			return;
		}
		cap *= 2;
	}
	char *b = realloc(w->heap, cap);
	if (!b) {
		fail(w);
		return;
	}
	w->heap = w->buf = b;
	w->cap = cap;
}

static inline char *room(kp_jw *w, size_t need)
{
	if (w->cap - w->n < need)
		make_room(w, need);
	return w->buf + w->n;
}

void kp_jw_raw(kp_jw *w, const char *s, size_t n)
{
	if (n <= w->cap - w->n) {
		memcpy(w->buf + w->n, s, n);
		w->n += n;
		return;
	}
	if (w->failed)
		return;
	if (w->fp) {
		drain(w);
		if (n >= w->cap) {   /* a long run: straight to the FILE */
			if (!w->failed && fwrite(s, 1, n, w->fp) != n)
				fail(w);
			return;
		}
	} else {
		make_room(w, n);
		if (w->failed)
			return;
	}
	memcpy(w->buf + w->n, s, n);
	w->n += n;
}

static inline void put_byte(kp_jw *w, char c)
{
	*room(w, 1) = c;
	w->n++;
}

static void put_tabs(kp_jw *w, int n)
{
	static const char tabs[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
	while (n > 0) {
		int k = n < 16 ? n : 16;
		kp_jw_raw(w, tabs, (size_t)k);
		n -= k;
	}
}

/* ---- nesting ---------------------------------------------------------------- */

#define TOP(w) (1ull << ((w)->level - 1))

/* Before a value: ", " between array elements. */
static inline void value_sep(kp_jw *w)
{
	if (w->level <= 0 || w->level > KP_JW_MAX_NEST || !(w->arr & TOP(w)))
		return;
	if (w->any & TOP(w))
		kp_jw_raw(w, ", ", 2);
	w->any |= TOP(w);
}

static void push(kp_jw *w, bool arr, bool deep)
{
	w->level++;
	if (w->level > KP_JW_MAX_NEST) {
		fail(w);   /* beyond the contract: the output is reported failed */
		return;
	}
	uint64_t b = TOP(w);
	w->arr = arr ? w->arr | b : w->arr & ~b;
	w->any &= ~b;
	w->deep = deep ? w->deep | b : w->deep & ~b;
	w->tabs += deep;
}

void kp_jw_obj(kp_jw *w)
{
	value_sep(w);
	kp_jw_raw(w, "{\n", 2);
	push(w, false, true);
}

void kp_jw_arr(kp_jw *w)
{
	value_sep(w);
	put_byte(w, '[');
	push(w, true, !w->flat);
}

void kp_jw_end(kp_jw *w)
{
	if (w->level <= 0)
		return;
	if (w->level > KP_JW_MAX_NEST) {
		w->level--;
		return;
	}
	uint64_t b = TOP(w);
	w->level--;
	if (w->deep & b)
		w->tabs--;
	if (w->arr & b) {
		put_byte(w, ']');
		return;
	}
	if (w->any & b)
		put_byte(w, '\n');
	put_tabs(w, w->tabs);
	put_byte(w, '}');
}

/* ---- strings ------------------------------------------------------------------ */

static const char hexdig[] = "0123456789abcdef";

/* \uXXXX for a code point up to U+FFFF. */
static void put_u16(kp_jw *w, unsigned v)
{
	char *p = room(w, 6);
	p[0] = '\\';
	p[1] = 'u';
	p[2] = hexdig[v >> 12 & 15];
	p[3] = hexdig[v >> 8 & 15];
	p[4] = hexdig[v >> 4 & 15];
	p[5] = hexdig[v & 15];
	w->n += 6;
}

/* 1 for the bytes a JSON string carries as they are: printable ASCII but
 * the quote and the backslash.  Bytes from 0x80 are decoded and judged by
 * the one text-safety rule. */
static const unsigned char plain[256] = {
	['\x20'] = 1, 1, 0 /* '"' */, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['\x30'] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['\x40'] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['\x50'] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 /* '\\' */, 1, 1, 1,
	['\x60'] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['\x70'] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 /* DEL */,
};

/* The body of a string (no quotes): cJSON's escapes, then the safety rule. */
static void put_escaped(kp_jw *w, const unsigned char *p, const unsigned char *end)
{
	const unsigned char *run = p;
	while (p < end) {
		unsigned char c = *p;
		if (plain[c]) {
			p++;
			continue;
		}
		size_t len = 1;
		uint32_t cp = c;
		if (c >= 0x80) {
			len = kp_utf8_decode(p, (size_t)(end - p), &cp);
			if (!(cp == 0xFFFD && len == 1) && !kp_text_cp_unsafe(cp)) {
				p += len;   /* valid and safe: stays in the run */
				continue;
			}
		}
		kp_jw_raw(w, (const char *)run, (size_t)(p - run));
		if (c == '"' || c == '\\') {
			char *q = room(w, 2);
			q[0] = '\\';
			q[1] = (char)c;
			w->n += 2;
		} else if (c >= 8 && c <= 13 && c != 11) {
			char *q = room(w, 2);
			q[0] = '\\';
			q[1] = "btn\0fr"[c - 8];
			w->n += 2;
		} else if (cp > 0xFFFF) {   /* tags, format controls: a UTF-16 surrogate pair */
			put_u16(w, 0xD800 + ((cp - 0x10000) >> 10));
			put_u16(w, 0xDC00 + ((cp - 0x10000) & 0x3FF));
		} else {
			put_u16(w, cp);   /* C0, DEL, unsafe code points; U+FFFD for a bad byte */
		}
		p += len;
		run = p;
	}
	kp_jw_raw(w, (const char *)run, (size_t)(p - run));
}

void kp_jw_strn(kp_jw *w, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	value_sep(w);
	put_byte(w, '"');
	put_escaped(w, p, p + n);
	put_byte(w, '"');
}

void kp_jw_str(kp_jw *w, const char *s)
{
	if (s)
		kp_jw_strn(w, s, strlen(s));
	else
		kp_jw_null(w);
}

/* kp_jw_key_plain's way when its inline one cannot: the buffer is nearly
 * full, the writer failed, or the indent or key is long. */
void kp_jw_key_slow(kp_jw *w, const char *key, size_t n)
{
	(void)n;   /* key is NUL-terminated (a literal) */
	kp_jw_key(w, key);
}

void kp_jw_key(kp_jw *w, const char *key)
{
	size_t n = 0, d = w->tabs > 0 ? (size_t)w->tabs : 0;
	bool sep = w->level > 0 && w->level <= KP_JW_MAX_NEST && (w->any & TOP(w));
	if (w->level > 0 && w->level <= KP_JW_MAX_NEST)
		w->any |= TOP(w);
	while (n < 64 && plain[(unsigned char)key[n]])
		n++;
	if (key[n] == '\0' && d <= 64) {   /* a short plain key: at once */
		char *p = room(w, 2 + d + n + 4);
		if (sep) {
			*p++ = ',';
			*p++ = '\n';
		}
		memset(p, '\t', d);
		p += d;
		*p++ = '"';
		memcpy(p, key, n);
		memcpy(p + n, "\":\t", 3);
		w->n = (size_t)(p + n + 3 - w->buf);
		return;
	}
	if (sep)
		kp_jw_raw(w, ",\n", 2);
	put_tabs(w, (int)d);
	const unsigned char *k = (const unsigned char *)key;
	put_byte(w, '"');
	put_escaped(w, k, k + strlen(key));
	kp_jw_raw(w, "\":\t", 3);
}

/* ---- numbers and the rest ----------------------------------------------------- */

void kp_jw_int(kp_jw *w, int64_t v)
{
	char tmp[24], *e = tmp + sizeof tmp, *p = e;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	value_sep(w);
	kp_jw_raw(w, p, (size_t)(e - p));
}

void kp_jw_hex(kp_jw *w, uint64_t v)
{
	char tmp[16];
	size_t n = 0;
	do {
		tmp[n++] = hexdig[v & 15];
		v >>= 4;
	} while (v);
	value_sep(w);
	char *p = room(w, n + 4);
	p[0] = '"';
	p[1] = '0';
	p[2] = 'x';
	for (size_t i = 0; i < n; i++)
		p[3 + i] = tmp[n - 1 - i];
	p[n + 3] = '"';
	w->n += n + 4;
}

void kp_jw_double(kp_jw *w, double d)
{
	if (d != d || d - d != 0) {
		kp_jw_null(w);
	} else if (d > -1e15 && d < 1e15 && d == (double)(long long)d) {
		kp_jw_int(w, (long long)d);
	} else {
		char buf[32];
		int n = snprintf(buf, sizeof buf, "%1.17g", d);
		value_sep(w);
		kp_jw_raw(w, buf, n > 0 ? (size_t)n : 0);
	}
}

void kp_jw_bool(kp_jw *w, bool v)
{
	value_sep(w);
	if (v)
		kp_jw_raw(w, "true", 4);
	else
		kp_jw_raw(w, "false", 5);
}

void kp_jw_null(kp_jw *w)
{
	value_sep(w);
	kp_jw_raw(w, "null", 4);
}

const char *kp_jw_text(kp_jw *w, size_t *len)
{
	if (w->fp || w->failed)
		return NULL;
	char *p = room(w, 1);
	if (w->failed)
		return NULL;
	*p = '\0';
	if (len)
		*len = w->n;
	return w->buf;
}
