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
