/* sigfile.c: symbolicator's signature files (sigfile.h). */
#include "sigfile.h"
#include "kp_fs.h"
#include "kp_json.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct priv {
	char *text;
	kp__sig *sigs;
	kp__sig_anchor *anchors;
	const char **bt;
	char *path;
} priv;

void kp__sigfile_free(kp__sigfile **fp)
{
	if (!fp || !*fp)
		return;
	priv *p = (*fp)->priv;
	if (p) {
		free(p->text);
		free(p->sigs);
		free(p->anchors);
		free(p->bt);
		free(p->path);
		free(p);
	}
	free(*fp);
	*fp = NULL;
}

bool kp__darwin_parse(const char *s, unsigned v[3])
{
	v[0] = v[1] = v[2] = 0;
	if (!s)
		return false;
	for (int k = 0; k < 3; k++) {
		if (*s < '0' || *s > '9')
			return false;
		unsigned long n = 0;
		while (*s >= '0' && *s <= '9' && n < 100000)
			n = n * 10 + (unsigned long)(*s++ - '0');
		if (n >= 100000)
			return false;
		v[k] = (unsigned)n;
		if (*s == '\0')
			return true;
		if (*s != '.' || k == 2)
			return false;
		s++;
	}
	return false;
}

static int vcmp(const unsigned a[3], const unsigned b[3])
{
	for (int k = 0; k < 3; k++)
		if (a[k] != b[k])
			return a[k] < b[k] ? -1 : 1;
	return 0;
}

bool kp__sigfile_covers(const kp__sigfile *f, const unsigned v[3])
{
	return !f->has_version || (vcmp(f->vmin, v) <= 0 && vcmp(v, f->vmax) <= 0);
}

/* The file is skimmed (kp_json.h), never made a tree: its text is kept
 * and every string used is decoded in place inside it, so a file costs its
 * size plus the arrays below (a signature 40 bytes, an anchor 48, a
 * backtrace entry 8; see KP_SIGFILE_MAX_SIZE).  A string decoded in place
 * leaves its span no longer JSON, so each object's members are found in
 * one pass before any of them is decoded, and no span is skimmed twice
 * once something in it is decoded. */

typedef struct skim {
	char *text;        /* the file's text, strings decoded in place */
	const char *end;
	kp_error *err;
} skim;

typedef struct span {
	const char *v, *ve;   /* v NULL: absent */
} span;

static bool bad_json(skim *k, const kp_jerr *je)
{
	kp_error_set(k->err, KP_ERR_FORMAT, 0, je->pos ? (long)(je->pos - k->text) : -1,
	             "not JSON (a signature file is symbolicator's JSON): %s", je->msg);
	return false;
}

/* The spans of the first members named keys[0..n) of the object at obj
 * (after white space).  False with err set when it is no object or the
 * JSON breaks. */
static bool members(skim *k, const char *obj, const char *const *keys, size_t n, span *out)
{
	kp_jiter it;
	kp_jmember m;
	kp_jerr je;
	memset(out, 0, n * sizeof *out);
	if (!kp_json_obj_begin(&it, obj, k->end, &je))
		return bad_json(k, &je);
	while (kp_json_obj_next(&it, &m, &je))
		for (size_t i = 0; i < n; i++)
			if (!out[i].v && m.keylen == strlen(keys[i]) && memcmp(m.key, keys[i], m.keylen) == 0)
				out[i] = (span){m.val, m.val_end};
	return je.msg ? bad_json(k, &je) : true;
}

static bool is_null(span s)
{
	return s.v && s.ve - s.v == 4 && memcmp(s.v, "null", 4) == 0;
}

static long at(const skim *k, const char *p)
{
	return p ? (long)(p - k->text) : -1;
}

/* The string member key (its span s), decoded in place (NULL when nullable
 * and absent or null): false, with err set, when it is of another type or
 * too long. */
static bool str_of(skim *k, span s, const char *key, bool nullable, const char **out,
                   const char *where)
{
	*out = NULL;
	if ((!s.v || is_null(s)) && nullable)
		return true;
	size_t n = s.v && *s.v == '"' ? kp_json_str(s.v, s.ve, (char *)s.v) : (size_t)-1;
	if (n == (size_t)-1)
		return kp_error_set(k->err, KP_ERR_FORMAT, 0, at(k, s.v), "%s\"%s\" is %s, not a string",
		                    where, key, s.v ? "of another type" : "missing"), false;
	if (strlen(s.v) > KP_SIGFILE_MAX_STRING)
		return kp_error_set(k->err, KP_ERR_FORMAT, 0, at(k, s.v), "%s\"%s\" is longer than %u bytes",
		                    where, key, KP_SIGFILE_MAX_STRING), false;
	*out = s.v;
	return true;
}

static bool version_of(skim *k, span v, kp__sigfile *f)
{
	static const char *const keys[] = {"min", "max"};
	span m[2];
	const char *mn, *mx;
	if (!v.v || is_null(v))
		return true;
	if (*v.v != '{')
		return kp_error_set(k->err, KP_ERR_FORMAT, 0, at(k, v.v), "\"version\" is not an object"), false;
	if (!members(k, v.v, keys, 2, m) || !str_of(k, m[0], "min", false, &mn, "version: ") ||
	    !str_of(k, m[1], "max", false, &mx, "version: "))
		return false;
	if (!kp__darwin_parse(mn, f->vmin) || !kp__darwin_parse(mx, f->vmax))
		return kp_error_set(k->err, KP_ERR_FORMAT, 0, at(k, v.v),
		                    "version \"%.40s\"..\"%.40s\" is not a Darwin version "
		                    "(MAJOR.MINOR.PATCH)", mn, mx), false;
	f->has_version = true;
	return true;
}

/* The number of elements of the array s; false (err set) when the JSON
 * breaks. */
static bool arr_count(skim *k, span s, size_t *n)
{
	kp_jiter it;
	kp_jerr je;
	const char *v, *ve;
	*n = 0;
	if (!kp_json_arr_begin(&it, s.v, s.ve, &je))
		return bad_json(k, &je);
	while (kp_json_arr_next(&it, &v, &ve, &je))
		(*n)++;
	return je.msg ? bad_json(k, &je) : true;
}

static const char *const sig_keys[] = {"anchors", "backtrace", "symbol"};

/* Counts the signatures, anchors and backtrace entries, checking the
 * shapes: false (err set) at the first that is wrong. */
static bool count(skim *k, span sigs, size_t *ns, size_t *nanch, size_t *nbt)
{
	kp_jiter it;
	kp_jerr je;
	const char *s, *se;
	if (!kp_json_arr_begin(&it, sigs.v, sigs.ve, &je))
		return bad_json(k, &je);
	for (*ns = 0; kp_json_arr_next(&it, &s, &se, &je); (*ns)++) {
		span m[3] = {{0}};
		size_t n;
		if (*s == '{' && !members(k, s, sig_keys, 3, m))
			return false;
		if (*s != '{' || !m[0].v || *m[0].v != '[' || (m[1].v && !is_null(m[1]) && *m[1].v != '['))
			return kp_error_set(k->err, KP_ERR_FORMAT, 0, at(k, s),
			                    "signature %zu is not {\"anchors\": [...], \"symbol\", \"backtrace\": [...]}",
			                    *ns), false;
		if (!arr_count(k, m[0], &n))
			return false;
		*nanch += n;
		if (m[1].v && *m[1].v == '[') {
			if (!arr_count(k, m[1], &n))
				return false;
			*nbt += n;
		}
	}
	return je.msg ? bad_json(k, &je) : true;
}

/* Fills the arrays count() sized; the shapes are known good. */
static bool fill(skim *k, span sigs, priv *p, kp__sigfile *f)
{
	static const char *const anchor_keys[] = {"string", "segment", "section", "caller"};
	size_t i = 0, na = 0, nb = 0;
	char where[64];
	kp_jiter it, ai;
	kp_jerr je;
	const char *s, *se, *v, *ve;
	kp_json_arr_begin(&it, sigs.v, sigs.ve, &je);
	for (; kp_json_arr_next(&it, &s, &se, &je); i++) {
		kp__sig *g = &p->sigs[i];
		span m[3], am[4];
		snprintf(where, sizeof where, "signature %zu: ", i);
		if (!members(k, s, sig_keys, 3, m) || !str_of(k, m[2], "symbol", false, &g->symbol, where))
			return false;
		g->anchors = &p->anchors[na];
		size_t n = 0;
		kp_json_arr_begin(&ai, m[0].v, m[0].ve, &je);
		for (; kp_json_arr_next(&ai, &v, &ve, &je); n++) {
			kp__sig_anchor *an = &p->anchors[na++];
			snprintf(where, sizeof where, "signature %zu anchor %zu: ", i, n);
			if (*v != '{')
				return kp_error_set(k->err, KP_ERR_FORMAT, 0, at(k, v), "%sis not an object", where), false;
			if (!members(k, v, anchor_keys, 4, am) ||
			    !str_of(k, am[0], "string", false, &an->string, where) ||
			    !str_of(k, am[1], "segment", false, &an->segment, where) ||
			    !str_of(k, am[2], "section", false, &an->section, where) ||
			    !str_of(k, am[3], "caller", true, &an->caller, where))
				return false;
			an->len = strlen(an->string);
			if (an->caller && !an->caller[0])
				an->caller = NULL;
		}
		g->nanchors = n;
		g->backtrace = &p->bt[nb];
		n = 0;
		if (m[1].v && *m[1].v == '[') {
			kp_json_arr_begin(&ai, m[1].v, m[1].ve, &je);
			for (; kp_json_arr_next(&ai, &v, &ve, &je); n++) {
				if (*v != '"' || kp_json_str(v, ve, (char *)v) == (size_t)-1 ||
				    strlen(v) > KP_SIGFILE_MAX_STRING)
					return kp_error_set(k->err, KP_ERR_FORMAT, 0, at(k, v),
					                    "signature %zu backtrace %zu is not a string (of at most %u bytes)",
					                    i, n, KP_SIGFILE_MAX_STRING), false;
				p->bt[nb++] = v;
			}
		}
		g->nbacktrace = n;
	}
	f->sigs = p->sigs;
	f->nsigs = i;
	return true;
}

/* Parses text[0..len) (NUL-terminated, malloc'd), which the result keeps
 * (freed here on failure). */
static kp_status parse_owned(char *text, size_t len, kp__sigfile **out, kp_error *err)
{
	static const char *const root_keys[] = {"signatures", "target", "version"};
	*out = NULL;
	kp__sigfile *f = calloc(1, sizeof *f);
	priv *p = f ? calloc(1, sizeof *p) : NULL;
	if (!p) {
		free(f);
		free(text);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	f->priv = p;
	p->text = text;
	f->path = "";
	f->dir_major = -1;
	kp_error local;
	skim k = {text, text + len, err ? err : &local};
	const char *root = kp_json_ws(text, k.end);
	span m[3] = {{0}};
	kp_jerr je;
	size_t ns = 0, na = 0, nb = 0;
	/* text after the value is not looked at (cJSON, which read these
	 * files before, did not either) */
	bool ok = kp_json_skip(root, k.end, &je) ? true : bad_json(&k, &je);
	if (ok && *root == '{')
		ok = members(&k, root, root_keys, 3, m);
	if (ok && (*root != '{' || !m[0].v || *m[0].v != '['))
		ok = (kp_error_set(k.err, KP_ERR_FORMAT, 0, -1,
		                   "not a signature file: want {\"target\", \"version\", \"signatures\": [...]}"),
		      false);
	ok = ok && str_of(&k, m[1], "target", false, &f->target, "") && version_of(&k, m[2], f) &&
	     count(&k, m[0], &ns, &na, &nb);
	if (ok) {
		p->sigs = calloc(ns ? ns : 1, sizeof *p->sigs);
		p->anchors = calloc(na ? na : 1, sizeof *p->anchors);
		p->bt = calloc(nb ? nb : 1, sizeof *p->bt);
		if (!p->sigs || !p->anchors || !p->bt)
			ok = (kp_error_set(k.err, KP_ERR_NOMEM, 0, -1, "out of memory"), false);
	}
	if (!ok || !fill(&k, m[0], p, f)) {
		kp__sigfile_free(&f);
		return k.err->code;
	}
	*out = f;
	return KP_OK;
}

kp_status kp__sigfile_parse(const char *data, size_t len, kp__sigfile **out, kp_error *err)
{
	*out = NULL;
	char *text = malloc(len + 1);
	if (!text)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	memcpy(text, data, len);
	text[len] = '\0';
	return parse_owned(text, len, out, err);
}

kp_status kp__sigfile_load(const char *path, int dir_major, kp__sigfile **out, kp_error *err)
{
	*out = NULL;
	char *data = NULL;
	size_t len = 0;
	kp_status st = kp_fs_read_file(path, KP_SIGFILE_MAX_SIZE, &data, &len, NULL, err);
	if (st != KP_OK)
		return st;
	st = parse_owned(data, len, out, err);
	if (st != KP_OK)
		return st;
	priv *p = (*out)->priv;
	if (!(p->path = strdup(path))) {
		kp__sigfile_free(out);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	(*out)->path = p->path;
	(*out)->dir_major = dir_major;
	return KP_OK;
}

static bool all_digits(const char *s)
{
	if (!*s || strlen(s) > 4)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static void walk(const char *dir, int major, int depth, kp__sigdir_fn fn, void *ctx)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *nm = names[i]->d_name;
		char path[4096];
		struct stat st;
		if (nm[0] != '.' && snprintf(path, sizeof path, "%s/%s", dir, nm) < (int)sizeof path &&
		    lstat(path, &st) == 0) {
			size_t l = strlen(nm);
			if (S_ISDIR(st.st_mode) && depth < 6)
				walk(path, all_digits(nm) ? atoi(nm) : major, depth + 1, fn, ctx);
			else if (l > 5 && strcmp(nm + l - 5, ".json") == 0 &&
			         (S_ISREG(st.st_mode) || (S_ISLNK(st.st_mode) && stat(path, &st) == 0 &&
			                                  S_ISREG(st.st_mode))))
				fn(ctx, path, major);
		}
		free(names[i]);
	}
	free(names);
}

kp_status kp__sigdir_walk(const char *dir, kp__sigdir_fn fn, void *ctx, kp_error *err)
{
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return kp_error_set(err, KP_ERR_IO, 0, -1, "not a folder");
	const char *base = strrchr(dir, '/');
	base = base ? base + 1 : dir;
	walk(dir, all_digits(base) ? atoi(base) : -1, 0, fn, ctx);
	return KP_OK;
}
