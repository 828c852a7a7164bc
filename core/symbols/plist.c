/* plist.c: property lists through libplist (XML and binary), the only file
 * that includes it.  libplist 2.2 (Debian 12) and 2.3+ (Homebrew) both
 * serve: only calls whose signatures did not change are used, and return
 * values that became status codes in 2.3 are not relied on. */
#include "plist.h"
#include "kp_lex.h"

#include <plist/plist.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static kp_status load(const void *buf, size_t len, plist_t *root, kp_error *err)
{
	*root = NULL;
	if (len > KP_PLIST_MAX)
		return kp_error_set(err, KP_ERR_LIMIT, 0, -1, "plist larger than %u bytes",
		                    KP_PLIST_MAX);
	if (len == 0)
		return kp_error_set(err, KP_ERR_FORMAT, 0, -1, "empty output, not a plist");
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
