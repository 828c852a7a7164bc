/* plist.c: property lists through libplist (XML and binary), the only file
 * that includes it.  libplist 2.2 (Debian 12) and 2.3+ (Homebrew) both
 * serve: only calls whose signatures did not change are used, and return
 * values that became status codes in 2.3 are not relied on. */
#include "plist.h"

#include <plist/plist.h>
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
