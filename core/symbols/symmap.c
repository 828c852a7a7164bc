/* symmap.c: ipsw's symbol maps (symmap.h). */
#include "symmap.h"
#include "kp_fs.h"
#include "kp_lex.h"
#include "kp_vec.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
	uint64_t addr;
	char *name;
} entry;

struct kp_symmap {
	entry *v;
	size_t n, cap;
};

static int by_addr(const void *a, const void *b)
{
	const entry *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* "18446741874686545420" or "0xfffffe0007004000", or a JSON number */
static bool parse_addr(const cJSON *j, uint64_t *out)
{
	if (cJSON_IsString(j) && j->valuestring) {
		const char *s = j->valuestring;
		size_t n = strlen(s);
		if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
			return kp_parse_u64(s, n, out);
		uint64_t v = 0;
		if (n == 0 || n > 20)
			return false;
		for (size_t i = 0; i < n; i++) {
			if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
				return false;
			v = v * 10 + (uint64_t)(s[i] - '0');
		}
		*out = v;
		return true;
	}
	if (cJSON_IsNumber(j) && j->valuedouble >= 0 && j->valuedouble < 18446744073709551616.0) {
		*out = (uint64_t)j->valuedouble;   /* exact only below 2^53: strings are preferred */
		return true;
	}
	return false;
}

bool kp__symmap_add(kp_symmap *m, uint64_t addr, const char *name)
{
	if (!name || !*name)
		return true;   /* nothing to name it with */
	entry *e = kp_vec_push((void **)&m->v, &m->n, &m->cap, sizeof *e);
	if (!e)
		return false;
	e->addr = addr;
	if (!(e->name = strdup(name))) {
		m->n--;
		return false;
	}
	return true;
}

kp_status kp__symmap_load(const char *path, kp_symmap **out, kp_error *err)
{
	*out = NULL;
	char *data = NULL;
	size_t len = 0;
	kp_status st = kp_fs_read_file(path, KP_SYMMAP_MAX_SIZE, &data, &len, NULL, err);
	if (st != KP_OK)
		return st;
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(data, len, &end, 0);
	if (!root) {
		long at = end ? (long)(end - data) : -1;
		free(data);
		return kp_error_set(err, KP_ERR_FORMAT, 0, at, "not JSON (a symbol map is ipsw's --json output)");
	}
	free(data);
	kp_symmap *m = kp__symmap_new();
	if (!m) {
		cJSON_Delete(root);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	bool ok = true, shaped = cJSON_IsObject(root) || cJSON_IsArray(root);
	for (const cJSON *it = shaped ? root->child : NULL; it && ok && shaped; it = it->next) {
		uint64_t a;
		if (cJSON_IsArray(root)) {   /* [{"addr": ..., "sym": ...}] */
			const cJSON *ad = cJSON_GetObjectItemCaseSensitive(it, "addr");
			const cJSON *sy = cJSON_GetObjectItemCaseSensitive(it, "sym");
			if (!ad || !cJSON_IsString(sy) || !parse_addr(ad, &a))
				shaped = false;
			else
				ok = kp__symmap_add(m, a, sy->valuestring);
		} else {                      /* {"ADDR": "name"} */
			cJSON key = {.type = cJSON_String, .valuestring = it->string};
			if (!it->string || !cJSON_IsString(it) || !parse_addr(&key, &a))
				shaped = false;
			else
				ok = kp__symmap_add(m, a, it->valuestring);
		}
	}
	cJSON_Delete(root);
	if (!ok || !shaped) {
		kp__symmap_free(&m);
		return !ok ? kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory")
		           : kp_error_set(err, KP_ERR_FORMAT, 0, -1,
		                          "not a symbol map: want {\"ADDRESS\": \"name\"} or [{\"addr\", \"sym\"}]");
	}
	kp__symmap_sort(m);
	*out = m;
	return KP_OK;
}

kp_symmap *kp__symmap_new(void)
{
	return calloc(1, sizeof(kp_symmap));
}

void kp__symmap_sort(kp_symmap *m)
{
	if (m && m->n > 1)
		qsort(m->v, m->n, sizeof *m->v, by_addr);
}

bool kp__symmap_lookup(const kp_symmap *m, uint64_t addr, const char **name, uint64_t *start)
{
	if (!m || !m->n)
		return false;
	size_t lo = kp_vec_upper_u64(m->v, m->n, sizeof *m->v, offsetof(entry, addr), addr);
	if (lo == 0)
		return false;
	*name = m->v[lo - 1].name;
	*start = m->v[lo - 1].addr;
	return true;
}

size_t kp__symmap_count(const kp_symmap *m)
{
	return m ? m->n : 0;
}

void kp__symmap_free(kp_symmap **mp)
{
	if (!mp || !*mp)
		return;
	kp_symmap *m = *mp;
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].name);
	free(m->v);
	free(m);
	*mp = NULL;
}
