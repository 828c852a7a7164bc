/* symmap.c: ipsw's symbol maps (symmap.h). */
#include "symmap.h"
#include "kp_arena.h"
#include "kp_fs.h"
#include "kp_json.h"
#include "kp_lex.h"
#include "kp_vec.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
	uint64_t addr;
	const char *name;   /* in text (a loaded map) or names (added) */
} entry;

/* A loaded map keeps the file's text, its names decoded in place (never a
 * JSON tree): it costs its size plus 16 bytes per name (KP_SYMMAP_MAX_SIZE). */
struct kp_symmap {
	entry *v;
	size_t n, cap;
	char *text;
	struct kp_arena *names;
};

/* "18446741874686545420" or "0xfffffe0007004000": s[0..n) */
static bool parse_addr_str(const char *s, size_t n, uint64_t *out)
{
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

/* The "addr" value [v, ve): a string as above (decoded in place) or a JSON
 * number: an integer literal exactly, another number through a double (as
 * cJSON read them before: exact only below 2^53). */
static bool parse_addr(const char *v, const char *ve, uint64_t *out)
{
	if (*v == '"') {
		size_t n = kp_json_str(v, ve, (char *)v);
		return n != (size_t)-1 && n == strlen(v) && parse_addr_str(v, n, out);
	}
	size_t n = (size_t)(ve - v), nd = 0;
	while (nd < n && v[nd] >= '0' && v[nd] <= '9')
		nd++;
	if (nd && nd == n)
		return parse_addr_str(v, n, out);
	char num[64];
	if (!nd || n >= sizeof num)
		return false;   /* no negative number, nothing but a number */
	memcpy(num, v, n);
	num[n] = '\0';
	char *e;
	double d = strtod(num, &e);
	if (*e || !(d >= 0) || d >= 18446744073709551616.0)
		return false;
	*out = (uint64_t)d;
	return true;
}

bool kp__symmap_add(kp_symmap *m, uint64_t addr, const char *name)
{
	if (!name || !*name)
		return true;   /* nothing to name it with */
	size_t len = strlen(name);
	if (!m->names && !(m->names = kp_arena_new()))
		return false;
	char *copy = kp_arena_alloc(m->names, len + 1);
	entry *e = copy ? kp_vec_push((void **)&m->v, &m->n, &m->cap, sizeof *e) : NULL;
	if (!e)
		return false;
	memcpy(copy, name, len + 1);
	*e = (entry){addr, copy};
	return true;
}

static kp_status not_json(const char *text, const kp_jerr *je, kp_error *err)
{
	return kp_error_set(err, KP_ERR_FORMAT, 0, je->pos ? (long)(je->pos - text) : -1,
	                    "not JSON (a symbol map is ipsw's --json output): %s", je->msg);
}

/* Reads the members (an object) or elements (an array) at root into m,
 * which has room for them all.  *shaped false when one is not a map's. */
static bool fill(kp_symmap *m, const char *root, const char *end, bool *shaped, kp_jerr *je)
{
	kp_jiter it;
	*shaped = true;
	if (*root == '{') {   /* {"ADDR": "name"} */
		kp_jmember mb;
		kp_json_obj_begin(&it, root, end, je);
		while (*shaped && kp_json_obj_next(&it, &mb, je)) {
			uint64_t a;
			/* the key raw: an address holds no escape */
			if (!parse_addr_str(mb.key, mb.keylen, &a) || *mb.val != '"' ||
			    kp_json_str(mb.val, mb.val_end, (char *)mb.val) == (size_t)-1)
				*shaped = false;
			else if (*mb.val)
				m->v[m->n++] = (entry){a, mb.val};
		}
	} else {              /* [{"addr": ..., "sym": ...}] */
		const char *v, *ve;
		kp_json_arr_begin(&it, root, end, je);
		while (*shaped && kp_json_arr_next(&it, &v, &ve, je)) {
			kp_jiter oi;
			kp_jmember mb;
			kp_jerr oe;
			const char *ad = NULL, *ade = NULL, *sy = NULL, *sye = NULL;
			if (!kp_json_obj_begin(&oi, v, ve, &oe)) {
				*shaped = false;
				break;
			}
			/* both found before either is decoded (decoding spoils the text) */
			while (kp_json_obj_next(&oi, &mb, &oe)) {
				if (!ad && mb.keylen == 4 && memcmp(mb.key, "addr", 4) == 0)
					ad = mb.val, ade = mb.val_end;
				else if (!sy && mb.keylen == 3 && memcmp(mb.key, "sym", 3) == 0)
					sy = mb.val, sye = mb.val_end;
			}
			uint64_t a;
			if (oe.msg || !ad || !sy || *sy != '"' || !parse_addr(ad, ade, &a) ||
			    kp_json_str(sy, sye, (char *)sy) == (size_t)-1)
				*shaped = false;
			else if (*sy)
				m->v[m->n++] = (entry){a, sy};
		}
	}
	return *shaped ? je->msg == NULL : true;
}

kp_status kp__symmap_load(const char *path, kp_symmap **out, kp_error *err)
{
	*out = NULL;
	char *text = NULL;
	size_t len = 0;
	kp_status st = kp_fs_read_file(path, KP_SYMMAP_MAX_SIZE, &text, &len, NULL, err);
	if (st != KP_OK)
		return st;
	const char *end = text + len, *root = kp_json_ws(text, end);
	kp_jerr je;
	if (!kp_json_skip(root, end, &je)) {
		st = not_json(text, &je, err);
		free(text);
		return st;
	}
	/* the entries counted first, so the array is allocated once */
	size_t count = 0;
	kp_jiter it;
	if (*root == '{') {
		kp_jmember mb;
		kp_json_obj_begin(&it, root, end, &je);
		while (kp_json_obj_next(&it, &mb, &je))
			count++;
	} else if (*root == '[') {
		const char *v, *ve;
		kp_json_arr_begin(&it, root, end, &je);
		while (kp_json_arr_next(&it, &v, &ve, &je))
			count++;
	}
	kp_symmap *m = kp__symmap_new();
	if (!m || !(m->v = malloc((count ? count : 1) * sizeof *m->v))) {
		free(m);
		free(text);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	m->cap = count ? count : 1;
	m->text = text;
	bool shaped = *root == '{' || *root == '[';
	if (shaped && !fill(m, root, end, &shaped, &je)) {
		st = not_json(text, &je, err);
		kp__symmap_free(&m);
		return st;
	}
	if (!shaped) {
		kp__symmap_free(&m);
		return kp_error_set(err, KP_ERR_FORMAT, 0, -1,
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

static void sift(entry *v, size_t root, size_t n)
{
	for (size_t c; (c = 2 * root + 1) < n; root = c) {
		if (c + 1 < n && v[c + 1].addr > v[c].addr)
			c++;
		if (v[root].addr >= v[c].addr)
			return;
		entry t = v[root];
		v[root] = v[c];
		v[c] = t;
	}
}

/* A heap sort, in place: glibc's qsort takes a copy of the array as
 * scratch (for a map of 8-byte entries, twice the file again). */
void kp__symmap_sort(kp_symmap *m)
{
	if (!m || m->n < 2)
		return;
	size_t i = 1;
	while (i < m->n && m->v[i - 1].addr <= m->v[i].addr)
		i++;
	if (i == m->n)
		return;   /* sorted already, as ipsw writes them */
	for (i = m->n / 2; i-- > 0;)
		sift(m->v, i, m->n);
	for (i = m->n; --i > 0;) {
		entry t = m->v[0];
		m->v[0] = m->v[i];
		m->v[i] = t;
		sift(m->v, 0, i);
	}
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
	free(m->v);
	free(m->text);
	if (m->names)
		kp_arena_free(m->names);
	free(m);
	*mp = NULL;
}
