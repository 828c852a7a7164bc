/* plist_prelink.c: a prelinked kernelcache's __PRELINK_INFO read as it
 * streams (contract: kp__prelink_info_each in plist_prelink.h).  No libplist here:
 * the rest of plist.c is what reaches it. */
#include "plist_prelink.h"
#include "kp_lex.h"
#include "kp_utf8.h"
#include "kp_vec.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a prelinked kernelcache's __PRELINK_INFO (plist_prelink.h) ------------------
 *
 * Read as it streams, never made a tree (libplist's cost about 8x to 17x
 * the text): the tags are walked once, each element with an ID noted (its
 * number and where it lies), and only what is wanted is read: the
 * _PrelinkInfoDictionary array, its dictionaries, and in each the
 * CFBundleIdentifier string and the three integers.  An IDREF among those
 * is read where its ID's element lies (an earlier, complete one); what the
 * IDREFs make read again is bounded (KP_PRELINK_INFO_MAX), and everything
 * else is skipped unread, IDREFs included. */

struct xid {
	uint32_t id;
	uint32_t start, end;   /* the element carrying it; end 0 while open */
};

enum { T_OPEN = 1, T_CLOSE, T_EMPTY };

struct ptok {
	size_t start, end;     /* '<' .. past '>' */
	int kind;
	const char *name;
	size_t nlen;
	bool has_ref;
	unsigned long ref;
};

struct pcur {
	size_t pos, lim;
	bool first;            /* the walk over the whole text, which notes IDs */
};

struct pxml {
	const char *t;
	struct xid *ids;
	size_t nids, idcap;
	size_t open[KP_PRELINK_DEPTH_MAX + 1];   /* per open level: its ID's index + 1, or 0 */
	size_t depth;
	size_t reread, budget;  /* bytes read again through IDREFs, and at most */
	kp_error *err;
	kp_status st;
};

static bool px_fail(struct pxml *x, kp_status code, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static bool px_fail(struct pxml *x, kp_status code, size_t at, const char *fmt, ...)
{
	if (x->st == KP_OK) {
		char msg[200];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
		x->st = kp_error_set(x->err, code, 0, (long)at, "%s", msg);
	}
	return false;
}

/* The value of attribute name in the tag text t[0..n) (between '<' and
 * '>'), as a number: 1 found, 0 absent, -1 present but no decimal number
 * (of at most 9 digits). */
static int attr_num(const char *t, size_t n, const char *name, unsigned long *v)
{
	size_t nl = strlen(name);
	for (size_t i = 1; i + nl + 2 < n; i++) {
		if (!isspace((unsigned char)t[i - 1]) || memcmp(t + i, name, nl) != 0)
			continue;
		size_t j = i + nl;
		while (j < n && isspace((unsigned char)t[j]))
			j++;
		if (j >= n || t[j] != '=')
			continue;
		j++;
		while (j < n && isspace((unsigned char)t[j]))
			j++;
		if (j >= n || (t[j] != '"' && t[j] != '\''))
			return -1;
		char q = t[j++];
		unsigned long x = 0;
		size_t nd = 0;
		for (; j < n && isdigit((unsigned char)t[j]) && nd < 9; j++, nd++)
			x = x * 10 + (unsigned long)(t[j] - '0');
		if (!nd || j >= n || t[j] != q)
			return -1;
		*v = x;
		return 1;
	}
	return 0;
}

/* Where tok (of length tl) starts in t[from..lim), or lim. */
static size_t find_tok(const char *t, size_t from, size_t lim, const char *tok, size_t tl)
{
	for (size_t k = from; k + tl <= lim;) {
		const char *q = memchr(t + k, tok[0], lim - k);
		if (!q)
			break;
		k = (size_t)(q - t);
		if (k + tl <= lim && memcmp(q, tok, tl) == 0)
			return k;
		k++;
	}
	return lim;
}

/* The next start, end or empty tag in c (comments, <?...?> and <!...>
 * skipped with the text between tags); false at c's end or on an error
 * (x->st).  The first walk notes IDs and checks the nesting. */
static bool px_tag(struct pxml *x, struct pcur *c, struct ptok *k)
{
	const char *t = x->t;
	for (;;) {
		const char *lt = c->pos < c->lim ? memchr(t + c->pos, '<', c->lim - c->pos) : NULL;
		if (!lt) {
			c->pos = c->lim;
			return false;
		}
		size_t at = (size_t)(lt - t);
		const char *et = ">";
		if (c->lim - at >= 4 && memcmp(lt, "<!--", 4) == 0)
			et = "-->";
		else if (c->lim - at >= 2 && lt[1] == '?')
			et = "?>";
		size_t etl = strlen(et), e = find_tok(t, at + 1, c->lim, et, etl);
		if (e >= c->lim)
			return px_fail(x, KP_ERR_FORMAT, at, "unterminated tag in the prelink info");
		c->pos = e + etl;
		if (lt[1] == '!' || lt[1] == '?')
			continue;
		*k = (struct ptok){.start = at, .end = c->pos};
		k->kind = lt[1] == '/' ? T_CLOSE : t[e - 1] == '/' ? T_EMPTY : T_OPEN;
		k->name = lt + 1 + (k->kind == T_CLOSE);
		while (k->name + k->nlen < t + e && !isspace((unsigned char)k->name[k->nlen]) &&
		       k->name[k->nlen] != '/')
			k->nlen++;
		unsigned long id = 0;
		int has_id = 0, has_ref = 0;
		if (k->kind != T_CLOSE) {
			has_ref = attr_num(lt, e - at, "IDREF", &k->ref);
			has_id = attr_num(lt, e - at, "ID", &id);
			if (has_ref < 0 || has_id < 0)
				return px_fail(x, KP_ERR_FORMAT, at, "an ID or IDREF that is no number in the prelink info");
			k->has_ref = has_ref;
		}
		if (!c->first)
			return true;
		if (k->kind == T_CLOSE) {
			if (x->depth == 0)
				return px_fail(x, KP_ERR_FORMAT, at, "a closing tag with none open in the prelink info");
			size_t ix = x->open[x->depth--];
			if (ix)
				x->ids[ix - 1].end = (uint32_t)k->end;
			return true;
		}
		if (has_ref && k->kind != T_EMPTY)
			return px_fail(x, KP_ERR_FORMAT, at, "an IDREF element that is not empty in the prelink info");
		size_t ix = 0;
		if (has_id && !has_ref) {
			if (x->nids && x->ids[x->nids - 1].id >= id)
				return px_fail(x, KP_ERR_FORMAT, at, "ID %lu out of order in the prelink info (IDs ascend)", id);
			struct xid *d = kp_vec_push((void **)&x->ids, &x->nids, &x->idcap, sizeof *d);
			if (!d)
				return px_fail(x, KP_ERR_NOMEM, at, "out of memory for prelink info IDs");
			*d = (struct xid){(uint32_t)id, (uint32_t)at, k->kind == T_EMPTY ? (uint32_t)k->end : 0};
			ix = x->nids;
		}
		if (k->kind == T_OPEN) {
			if (x->depth >= KP_PRELINK_DEPTH_MAX) {
				kp_error_set(x->err, KP_ERR_LIMIT, 0, (long)at, "%s nested deeper than %u levels",
				             "the prelink info", KP_PRELINK_DEPTH_MAX);
				x->st = KP_ERR_LIMIT;
				return false;
			}
			x->open[++x->depth] = ix;
		}
		return true;
	}
}

/* Past the element whose start tag k was just read from c. */
static bool px_skip(struct pxml *x, struct pcur *c, const struct ptok *k)
{
	struct ptok t;
	for (size_t d = k->kind == T_OPEN; d;) {
		if (!px_tag(x, c, &t))
			return px_fail(x, KP_ERR_FORMAT, k->start, "the prelink info ends inside an element");
		d += t.kind == T_OPEN;
		d -= t.kind == T_CLOSE;
	}
	return true;
}

/* When k is an IDREF: *rc becomes a cursor over its ID's element and *k
 * that element's start tag; false on an error. */
static bool px_deref(struct pxml *x, struct ptok *k, struct pcur *rc)
{
	if (!k->has_ref)
		return true;
	size_t lo = 0, hi = x->nids;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->ids[mid].id < k->ref)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct xid *d = lo < x->nids && x->ids[lo].id == k->ref ? &x->ids[lo] : NULL;
	if (!d || !d->end)
		return px_fail(x, KP_ERR_FORMAT, k->start, "IDREF %lu refers to no earlier ID in the prelink info", k->ref);
	x->reread += d->end - d->start;
	if (x->reread > x->budget)
		return px_fail(x, KP_ERR_LIMIT, k->start, "the prelink info grows past %zu bytes through its IDREFs",
		               x->budget);
	*rc = (struct pcur){d->start, d->end, false};
	return px_tag(x, rc, k) || px_fail(x, KP_ERR_FORMAT, d->start, "no element at ID %lu", k->ref);
}

static bool named(const struct ptok *k, const char *name)
{
	return k->nlen == strlen(name) && memcmp(k->name, name, k->nlen) == 0;
}

/* The text of the element k (read from c; up to its end tag), its
 * entities decoded, into out[0..KP_PRELINK_STR_MAX]: false (and *ok false)
 * when it holds a tag, a NUL, an entity that is none or is too long. */
static bool px_text(struct pxml *x, struct pcur *c, const struct ptok *k, char *out, bool *ok)
{
	*ok = true;
	out[0] = '\0';
	if (k->kind == T_EMPTY)
		return true;
	size_t from = c->pos;
	struct ptok t;
	if (!px_tag(x, c, &t))
		return px_skip(x, c, k);   /* names the error */
	if (t.kind != T_CLOSE) {
		*ok = false;
		struct ptok inner = *k;
		inner.kind = T_OPEN;
		return px_skip(x, c, &t) && px_skip(x, c, &inner);
	}
	const char *s = x->t + from, *end = x->t + t.start;
	size_t o = 0;
	while (s < end && *ok) {
		char ch = *s++;
		uint32_t cp = (unsigned char)ch;
		if (ch == '&') {
			static const struct { const char *name; char c; } ent[] = {
				{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
			const char *semi = memchr(s, ';', (size_t)(end - s) < 12 ? (size_t)(end - s) : 12);
			size_t n = semi ? (size_t)(semi - s) : 0;
			cp = 0;
			for (size_t i = 0; i < sizeof ent / sizeof *ent; i++)
				if (n == strlen(ent[i].name) && memcmp(s, ent[i].name, n) == 0)
					cp = (unsigned char)ent[i].c;
			if (n >= 2 && s[0] == '#') {   /* &#N; &#xN; */
				bool hex = s[1] == 'x' || s[1] == 'X';
				uint32_t v = 0;
				size_t i = 1 + hex;
				for (; i < n && v <= 0x10ffff; i++) {
					int d = hex ? kp_hex_digit((unsigned char)s[i])
					            : isdigit((unsigned char)s[i]) ? s[i] - '0' : -1;
					if (d < 0)
						break;
					v = v * (hex ? 16 : 10) + (uint32_t)d;
				}
				if (i == n && i > 1u + hex && v > 0 && v <= 0x10ffff && (v < 0xd800 || v > 0xdfff))
					cp = v;
			}
			s = semi ? semi + 1 : s;
		}
		char u[4];
		size_t ul = cp < 0x80 || ch != '&' ? 1 : kp_utf8_encode(cp, u);
		if (ul == 1)
			u[0] = ch == '&' ? (char)cp : ch;
		if (cp == 0 || o + ul > KP_PRELINK_STR_MAX)
			*ok = false;   /* a NUL, an entity that is none, too long */
		else
			for (size_t i = 0; i < ul; i++)
				out[o++] = u[i];
	}
	out[*ok ? o : 0] = '\0';
	return true;
}

/* An <integer>'s text: decimal, 0x hex or negative (two's complement, as
 * libplist keeps it). */
static bool int_text(const char *s, uint64_t *v)
{
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	while (n && isspace((unsigned char)*s))
		s++, n--;
	bool neg = n && *s == '-';
	if (!kp_parse_u64(s + neg, n - neg, v))
		return false;
	if (neg)
		*v = 0 - *v;
	return true;
}

/* The next key of the dictionary k (read from c) into key (*key_ok false
 * when its text was refused) and the start tag of its value into *v: 1 a
 * pair, 0 the dictionary's end, -1 an error (x->st).  Elements that are no
 * <key> are skipped; a key without a value ends the dictionary. */
static int px_pair(struct pxml *x, struct pcur *c, const struct ptok *k, char *key, bool *key_ok,
                   struct ptok *v)
{
	struct ptok t;
	while (k->kind == T_OPEN) {
		if (!px_tag(x, c, &t)) {
			px_skip(x, c, k);   /* names the error */
			return -1;
		}
		if (t.kind == T_CLOSE)
			return 0;
		if (!named(&t, "key")) {
			if (!px_skip(x, c, &t))
				return -1;
			continue;
		}
		if (!px_text(x, c, &t, key, key_ok))
			return -1;
		if (!px_tag(x, c, v)) {
			px_skip(x, c, k);
			return -1;
		}
		return v->kind != T_CLOSE;
	}
	return 0;
}

/* One dictionary of the array (its start tag k, read from c): fn called
 * with what it says. */
static bool px_kext(struct pxml *x, struct pcur *c, const struct ptok *k,
                    void (*fn)(void *ctx, const kp__prelink_kext *k), void *ctx)
{
	static const char *const keys[] = {"CFBundleIdentifier", "_PrelinkExecutableLoadAddr",
	                                   "_PrelinkExecutableSourceAddr", "_PrelinkExecutableSize"};
	kp__prelink_kext kx = {0};
	char id[KP_PRELINK_STR_MAX + 1], key[KP_PRELINK_STR_MAX + 1], val[KP_PRELINK_STR_MAX + 1];
	bool have_id = false, ok;
	struct ptok v;
	int more;
	while ((more = px_pair(x, c, k, key, &ok, &v)) > 0) {
		size_t w = 0;
		while (w < 4 && (!ok || strcmp(key, keys[w]) != 0))
			w++;
		struct pcur rc, *vc = c;
		if (w < 4 && v.has_ref) {
			if (!px_deref(x, &v, &rc))
				return false;
			vc = &rc;
		}
		if (w == 4 || !named(&v, w == 0 ? "string" : "integer")) {
			if (!px_skip(x, vc, &v))
				return false;
			continue;
		}
		if (!px_text(x, vc, &v, val, &ok))
			return false;
		uint64_t num = 0;
		if (w == 0 && (have_id = ok && val[0]))
			memcpy(id, val, strlen(val) + 1);
		ok = w > 0 && ok && int_text(val, &num);
		if (w == 1)
			kx.has_load = ok, kx.load = num;
		else if (w == 2)
			kx.has_source = ok, kx.source = num;
		else if (w == 3)
			kx.has_size = ok, kx.size = num;
	}
	if (more < 0)
		return false;
	kx.id = have_id ? id : NULL;
	fn(ctx, &kx);
	return true;
}

/* The _PrelinkInfoDictionary array: its start tag into *a and the cursor
 * to read it from into *ac (c itself, or one over an IDREF's element). */
static bool px_array(struct pxml *x, struct pcur *c, struct ptok *a, struct pcur *ac)
{
	struct ptok k, v;
	char key[KP_PRELINK_STR_MAX + 1];
	bool ok = px_tag(x, c, &k);
	if (ok && named(&k, "plist") && k.kind == T_OPEN)
		ok = px_tag(x, c, &k);   /* not the kernel's own form, but taken */
	*ac = *c;
	if (!ok || k.kind == T_CLOSE || !(named(&k, "array") || named(&k, "dict")))
		return px_fail(x, KP_ERR_FORMAT, 0, "the prelink info is not a property list");
	if (named(&k, "array")) {   /* the array itself, as kclist takes it */
		*a = k;
		return true;
	}
	int more;
	while ((more = px_pair(x, c, &k, key, &ok, &v)) > 0) {
		if (ok && strcmp(key, "_PrelinkInfoDictionary") == 0) {
			if (!px_deref(x, &v, ac))
				return false;
			if (!v.has_ref)
				*ac = *c;
			if (!named(&v, "array"))
				break;
			*a = v;
			return true;
		}
		if (!px_skip(x, c, &v))
			return false;
	}
	return more >= 0 && px_fail(x, KP_ERR_FORMAT, k.start,
	                            "the prelink info has no _PrelinkInfoDictionary array");
}

kp_status kp__prelink_info_each(const void *buf, size_t len,
                                void (*fn)(void *ctx, const kp__prelink_kext *k), void *ctx,
                                kp_error *err)
{
	const char *t = buf;
	const char *nul = memchr(t, '\0', len);   /* NUL padding to the section's end */
	size_t n = nul ? (size_t)(nul - t) : len;
	if (n > KP_PRELINK_INFO_MAX)
		return kp_error_set(err, KP_ERR_LIMIT, 0, -1, "prelink info larger than %u bytes",
		                    KP_PRELINK_INFO_MAX);
	if (n == 0)
		return kp_error_set(err, KP_ERR_FORMAT, 0, -1, "empty prelink info");
	kp_error local;
	struct pxml x = {.t = t, .err = err ? err : &local};
	/* Apple's IDREFs stand for short strings and numbers: reading more
	 * again through them than four times the text (and 64 KiB) is refused */
	x.budget = n < (KP_PRELINK_INFO_MAX - 65536) / 4 ? 4 * n + 65536 : KP_PRELINK_INFO_MAX;
	struct pcur c = {0, n, true}, ac, rc;
	struct ptok a = {0}, e = {0};   /* gcc -O2 cannot see px_array fill a */
	if (px_array(&x, &c, &a, &ac)) {
		while (a.kind == T_OPEN) {
			if (!px_tag(&x, &ac, &e)) {
				px_skip(&x, &ac, &a);
				break;
			}
			if (e.kind == T_CLOSE)
				break;
			struct pcur *ec = &ac;
			if (e.has_ref) {
				if (!px_deref(&x, &e, &rc))
					break;
				ec = &rc;
			}
			if (!(named(&e, "dict") ? px_kext(&x, ec, &e, fn, ctx) : px_skip(&x, ec, &e)))
				break;
		}
	}
	free(x.ids);
	return x.st;
}
