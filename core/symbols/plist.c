/* plist.c: property lists through libplist (XML and binary), the only file
 * that includes it, after a bounds check of its own; and a prelinked
 * kernelcache's info read by a streaming reader of its own (no libplist).  libplist 2.2 (Debian 12) and 2.3+ (Homebrew) both
 * serve: only calls whose signatures did not change are used, and return
 * values that became status codes in 2.3 are not relied on. */
#include "plist.h"
#include "kp_lex.h"
#include "kp_utf8.h"
#include "kp_strbuf.h"
#include "kp_vec.h"

#include <plist/plist.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- bounds checked before libplist sees the bytes ----------------------
 *
 * libplist 2.2 parses both forms recursively (a few hundred thousand nested
 * <array>s overflow the stack) and copies a binary plist's shared objects
 * once per reference (a small file can stand for an exponential tree).  So
 * the nesting and the number of nodes the tree would have are counted
 * first, without recursion, and a plist past either is KP_ERR_LIMIT naming
 * the byte where it went past. */

static uint64_t be_uint(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static kp_status too_deep(kp_error *err, size_t at, const char *what)
{
	return kp_error_set(err, KP_ERR_LIMIT, 0, (long)at, "%s nested deeper than %u levels", what,
	                    KP_PLIST_DEPTH_MAX);
}

static kp_status too_many(kp_error *err, size_t at, const char *what, size_t max)
{
	return kp_error_set(err, KP_ERR_LIMIT, 0, (long)at, "%s has more than %zu elements", what, max);
}

/* XML: every start tag not ending in "/>" opens a level, every end tag
 * closes one; comments and <?...?> are skipped, any other <!...> up to its
 * '>' (so the text of a CDATA section counts as tags: a stricter count,
 * never a looser one than libplist's). */
static kp_status xml_bounded(const char *t, size_t n, size_t max_nodes, const char *what,
                             kp_error *err)
{
	size_t depth = 0, nodes = 0;
	for (size_t i = 0; i < n;) {
		const char *lt = memchr(t + i, '<', n - i);
		if (!lt)
			break;
		size_t at = (size_t)(lt - t);
		const char *endtok = ">";
		if (n - at >= 4 && memcmp(t + at, "<!--", 4) == 0)
			endtok = "-->";
		else if (n - at >= 2 && t[at + 1] == '?')
			endtok = "?>";
		size_t el = strlen(endtok), k = at + 1;
		for (const char *q; k + el <= n; k = (size_t)(q - t) + 1) {
			if (!(q = memchr(t + k, endtok[0], n - k)))
				k = n;
			else if ((size_t)(t + n - q) >= el && memcmp(q, endtok, el) == 0)
				k = (size_t)(q - t);
			else
				continue;
			break;
		}
		if (k + el > n)
			break;   /* unterminated: libplist refuses it */
		i = k + el;
		char c = t[at + 1];
		if (c == '!' || c == '?')
			continue;
		if (c == '/') {
			depth -= depth > 0;
			continue;
		}
		if (++nodes > max_nodes)
			return too_many(err, at, what, max_nodes);
		if (t[k - 1] != '/' && ++depth > KP_PLIST_DEPTH_MAX)
			return too_deep(err, at, what);
	}
	return KP_OK;
}

struct bvisit {
	uint64_t obj;
	unsigned depth;
};

/* Binary: the tree libplist would build from the top object, walked with a
 * stack of our own; a shared object counts once per reference (as libplist
 * copies it) and a cycle is a nesting without end.  A malformed trailer,
 * offset or count stops the walk there: libplist refuses those itself. */
static kp_status bin_bounded(const unsigned char *b, size_t n, size_t max_nodes, const char *what,
                             kp_error *err)
{
	if (n < 8 + 32)
		return KP_OK;
	const unsigned char *tr = b + n - 32;
	unsigned osz = tr[6], rsz = tr[7];
	uint64_t nobj = be_uint(tr + 8, 8), top = be_uint(tr + 16, 8), otab = be_uint(tr + 24, 8);
	if (osz < 1 || osz > 8 || rsz < 1 || rsz > 8 || top >= nobj || otab >= n ||
	    nobj > (n - otab) / osz)
		return KP_OK;
	struct bvisit *st = NULL;
	size_t ns = 0, cap = 0, nodes = 1;
	kp_status rc = KP_OK;
	struct bvisit *v = kp_vec_push((void **)&st, &ns, &cap, sizeof *v);
	if (!v)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	*v = (struct bvisit){top, 1};
	while (ns && rc == KP_OK) {
		struct bvisit cur = st[--ns];
		uint64_t off = be_uint(b + otab + cur.obj * osz, osz);
		if (off >= n - 32)
			continue;
		unsigned type = b[off] >> 4;
		uint64_t count = b[off] & 0xf, p = off + 1;
		if (type != 0xA && type != 0xC && type != 0xD)
			continue;   /* a leaf */
		if (count == 0xf) {   /* the count follows as an integer object */
			if (p >= n - 32 || b[p] >> 4 != 0x1 || (b[p] & 0xf) > 3)
				continue;
			unsigned isz = 1u << (b[p] & 0xf);
			if (p + 1 + isz > n - 32)
				continue;
			count = be_uint(b + p + 1, isz);
			p += 1 + isz;
		}
		uint64_t refs = type == 0xD ? 2 * count : count;
		if (count > n || refs > (n - 32 - p) / rsz)
			continue;
		if (refs && cur.depth + 1 > KP_PLIST_DEPTH_MAX) {
			rc = too_deep(err, (size_t)off, what);
			break;
		}
		for (uint64_t r = 0; r < refs; r++) {
			uint64_t obj = be_uint(b + p + r * rsz, rsz);
			if (obj >= nobj)
				continue;
			if (++nodes > max_nodes) {
				rc = too_many(err, (size_t)off, what, max_nodes);
				break;
			}
			if (!(v = kp_vec_push((void **)&st, &ns, &cap, sizeof *v))) {
				rc = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
				break;
			}
			*v = (struct bvisit){obj, cur.depth + 1};
		}
	}
	free(st);
	return rc;
}

static kp_status plist_bounded(const void *buf, size_t len, size_t max_nodes, const char *what,
                               kp_error *err)
{
	if (len >= 8 && memcmp(buf, "bplist00", 8) == 0)
		return bin_bounded(buf, len, max_nodes, what, err);
	return xml_bounded(buf, len, max_nodes, what, err);
}

static kp_status load(const void *buf, size_t len, plist_t *root, kp_error *err)
{
	*root = NULL;
	if (len > KP_PLIST_MAX)
		return kp_error_set(err, KP_ERR_LIMIT, 0, -1, "plist larger than %u bytes",
		                    KP_PLIST_MAX);
	if (len == 0)
		return kp_error_set(err, KP_ERR_FORMAT, 0, -1, "empty output, not a plist");
	kp_status st = plist_bounded(buf, len, KP_PLIST_NODES_MAX, "the plist", err);
	if (st != KP_OK)
		return st;
	plist_from_memory(buf, (uint32_t)len, root);
	if (!*root)
		return kp_error_set(err, KP_ERR_FORMAT, 0, -1, "not a property list");
	if (plist_get_node_type(*root) != PLIST_DICT) {
		plist_free(*root);
		*root = NULL;
		return kp_error_set(err, KP_ERR_FORMAT, 0, -1, "the plist's top level is not a dictionary");
	}
	return KP_OK;
}

/* A copy of a string node's value; NULL for another type, an embedded NUL,
 * an empty or an overlong string. */
static char *str_of(plist_t node)
{
	if (!node || plist_get_node_type(node) != PLIST_STRING)
		return NULL;
	uint64_t n = 0;
	const char *p = plist_get_string_ptr(node, &n);
	if (!p || n == 0 || n > KP_PLIST_STR_MAX || memchr(p, '\0', (size_t)n))
		return NULL;
	char *s = malloc((size_t)n + 1);
	if (s) {
		memcpy(s, p, (size_t)n);
		s[n] = '\0';
	}
	return s;
}

static char *item(plist_t dict, const char *key)
{
	return str_of(plist_dict_get_item(dict, key));
}

/* DBGVersion: lldb reads a string ("3"); an integer is taken too. */
static long version_of(plist_t node)
{
	if (!node)
		return 0;
	if (plist_get_node_type(node) == PLIST_UINT) {
		uint64_t v = 0;
		plist_get_uint_val(node, &v);
		return v > 1000 ? 1000 : (long)v;
	}
	char *s = str_of(node);
	long v = s ? strtol(s, NULL, 10) : 0;
	free(s);
	return v < 0 ? 0 : v > 1000 ? 1000 : v;
}

/* Calls fn with each key (malloc'd, fn's to keep or free) and value of
 * dict until it returns false. */
static void dict_each(plist_t dict, bool (*fn)(void *ctx, char *key, plist_t val), void *ctx)
{
	plist_dict_iter it = NULL;
	plist_dict_new_iter(dict, &it);
	if (!it)
		return;
	for (;;) {
		char *key = NULL;
		plist_t val = NULL;
		plist_dict_next_item(dict, it, &key, &val);
		if (!val) {
			free(key);
			break;
		}
		if (!fn(ctx, key, val))
			break;
	}
	free(it);
}

static bool add_remap(void *ctx, char *key, plist_t val)
{
	kp__dsym_answer *a = ctx;
	char *to = str_of(val);
	size_t kn = key ? strlen(key) : 0;
	if (to && kn && kn <= KP_PLIST_STR_MAX && a->nremaps < KP_PLIST_REMAP_MAX) {
		kp__remap *r = realloc(a->remaps, (a->nremaps + 1) * sizeof *r);
		if (r) {
			a->remaps = r;
			r[a->nremaps].from = key;
			r[a->nremaps].to = to;
			a->nremaps++;
			return true;
		}
	}
	free(to);
	free(key);
	return true;
}

struct find_uuid {
	const char *uuid;
	plist_t hit;
};

static bool match_uuid(void *ctx, char *key, plist_t val)
{
	struct find_uuid *f = ctx;
	char canon[37];
	bool same = key && kp_uuid_canon(key, strlen(key), canon) && strcmp(canon, f->uuid) == 0;
	free(key);
	if (same)
		f->hit = val;
	return !same;
}

/* The entry of root whose key is uuid in any spelling kp_uuid_canon takes. */
static plist_t entry_for(plist_t root, const char *uuid)
{
	struct find_uuid f = {uuid, plist_dict_get_item(root, uuid)};
	if (!f.hit)
		dict_each(root, match_uuid, &f);
	return f.hit;
}

/* Whether buf may reach libplist 2.2's dictionary iteration: it asserts
 * (aborts) on a key holding a NUL, which a binary plist can carry in any
 * string and an XML one through a NUL byte or a reference such as &#0;.
 * So an answer must be XML without either (lldb's dsymForUUID scripts
 * print XML); why not in *why. */
static bool xml_without_nul(const char *buf, size_t len, const char **why)
{
	if (len >= 6 && memcmp(buf, "bplist", 6) == 0) {
		*why = "a binary plist (dsymForUUID answers are read as XML only)";
		return false;
	}
	if (memchr(buf, '\0', len)) {
		*why = "a NUL byte in the plist";
		return false;
	}
	for (const char *p = buf, *end = buf + len; (p = memchr(p, '&', (size_t)(end - p))) != NULL; p++) {
		const char *q = p + 1;
		if (q >= end || *q != '#')
			continue;
		bool hex = ++q < end && (*q == 'x' || *q == 'X');
		q += hex;
		unsigned long v = 0;
		size_t nd = 0;
		for (; q < end && (hex ? isxdigit((unsigned char)*q) : isdigit((unsigned char)*q)); q++, nd++) {
			unsigned d = isdigit((unsigned char)*q) ? (unsigned)(*q - '0') : (unsigned)((*q | 0x20) - 'a' + 10);
			v = v > 0x10ffff ? v : v * (hex ? 16 : 10) + d;
		}
		/* 0, or past Unicode (a parser may wrap it to 0) */
		if (nd && (v == 0 || v > 0x10ffff)) {
			*why = "a character reference to U+0000 or past U+10FFFF in the plist";
			return false;
		}
	}
	return true;
}

kp_status kp__dsym_answer_parse(const void *buf, size_t len, const char *uuid,
                                kp__dsym_answer *out, kp_error *err)
{
	memset(out, 0, sizeof *out);
	const char *why = NULL;
	if (len <= KP_PLIST_MAX && !xml_without_nul(buf, len, &why))
		return kp_error_set(err, KP_ERR_FORMAT, 0, -1, "refused: %s", why);
	plist_t root;
	kp_status st = load(buf, len, &root, err);
	if (st != KP_OK)
		return st;
	plist_t e = entry_for(root, uuid);
	if (!e || plist_get_node_type(e) != PLIST_DICT) {
		plist_free(root);
		return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "the plist has no entry for %s", uuid);
	}
	out->dsym_path = item(e, "DBGDSYMPath");
	out->exec = item(e, "DBGSymbolRichExecutable");
	out->arch = item(e, "DBGArchitecture");
	out->error = item(e, "DBGError");
	out->source_path = item(e, "DBGSourcePath");
	out->build_source_path = item(e, "DBGBuildSourcePath");
	out->version = version_of(plist_dict_get_item(e, "DBGVersion"));
	plist_t remap = plist_dict_get_item(e, "DBGSourcePathRemapping");
	if (out->version >= 3 && remap && plist_get_node_type(remap) == PLIST_DICT)
		dict_each(remap, add_remap, out);
	plist_free(root);
	return KP_OK;
}

void kp__dsym_answer_free(kp__dsym_answer *a)
{
	free(a->dsym_path);
	free(a->exec);
	free(a->arch);
	free(a->error);
	free(a->source_path);
	free(a->build_source_path);
	for (size_t i = 0; i < a->nremaps; i++) {
		free(a->remaps[i].from);
		free(a->remaps[i].to);
	}
	free(a->remaps);
	memset(a, 0, sizeof *a);
}

kp_status kp__plist_strings(const void *buf, size_t len, const char *key,
                            void (*fn)(void *ctx, const char *s), void *ctx, kp_error *err)
{
	plist_t root;
	kp_status st = load(buf, len, &root, err);
	if (st != KP_OK)
		return st;
	plist_t v = plist_dict_get_item(root, key);
	if (v && plist_get_node_type(v) == PLIST_ARRAY) {
		uint32_t n = plist_array_get_size(v);
		for (uint32_t i = 0; i < n; i++) {
			char *s = str_of(plist_array_get_item(v, i));
			if (s)
				fn(ctx, s);
			free(s);
		}
	} else {
		char *s = str_of(v);
		if (s)
			fn(ctx, s);
		free(s);
	}
	plist_free(root);
	return KP_OK;
}

/* ---- a prelinked kernelcache's __PRELINK_INFO (plist.h) ------------------
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
	size_t open[KP_PLIST_DEPTH_MAX + 1];   /* per open level: its ID's index + 1, or 0 */
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
			if (x->depth >= KP_PLIST_DEPTH_MAX) {
				too_deep(x->err, at, "the prelink info");
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
 * entities decoded, into out[0..KP_PLIST_STR_MAX]: false (and *ok false)
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
		if (cp == 0 || o + ul > KP_PLIST_STR_MAX)
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
	char id[KP_PLIST_STR_MAX + 1], key[KP_PLIST_STR_MAX + 1], val[KP_PLIST_STR_MAX + 1];
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
	char key[KP_PLIST_STR_MAX + 1];
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
