/* sigfile.c: symbolicator's signature files (sigfile.h). */
#include "sigfile.h"
#include "kp_fs.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct priv {
	cJSON *root;
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
		cJSON_Delete(p->root);
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

/* A string member (NULL allowed when nullable): false, with err set, when
 * it is of another type or too long. */
static bool str_of(const cJSON *obj, const char *key, bool nullable, const char **out,
                   const char *where, kp_error *err)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
	*out = NULL;
	if ((!j || cJSON_IsNull(j)) && nullable)
		return true;
	if (!cJSON_IsString(j) || !j->valuestring) {
		kp_error_set(err, KP_ERR_FORMAT, 0, -1, "%s\"%s\" is %s, not a string", where, key,
		             j ? "of another type" : "missing");
		return false;
	}
	if (strlen(j->valuestring) > KP_SIGFILE_MAX_STRING) {
		kp_error_set(err, KP_ERR_FORMAT, 0, -1, "%s\"%s\" is longer than %u bytes", where, key,
		             KP_SIGFILE_MAX_STRING);
		return false;
	}
	*out = j->valuestring;
	return true;
}

static bool version_of(const cJSON *root, kp__sigfile *f, kp_error *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "version");
	if (!v || cJSON_IsNull(v))
		return true;
	const char *mn, *mx;
	if (!cJSON_IsObject(v)) {
		kp_error_set(err, KP_ERR_FORMAT, 0, -1, "\"version\" is not an object");
		return false;
	}
	if (!str_of(v, "min", false, &mn, "version: ", err) ||
	    !str_of(v, "max", false, &mx, "version: ", err))
		return false;
	if (!kp__darwin_parse(mn, f->vmin) || !kp__darwin_parse(mx, f->vmax)) {
		kp_error_set(err, KP_ERR_FORMAT, 0, -1, "version \"%.40s\"..\"%.40s\" is not a Darwin version "
		             "(MAJOR.MINOR.PATCH)", mn, mx);
		return false;
	}
	f->has_version = true;
	return true;
}

/* Counts the anchors and backtrace entries of every signature, checking
 * the shapes: false (err set) at the first that is wrong. */
static bool count(const cJSON *sigs, size_t *nanch, size_t *nbt, kp_error *err)
{
	size_t i = 0;
	for (const cJSON *s = sigs->child; s; s = s->next, i++) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(s, "anchors");
		const cJSON *b = cJSON_GetObjectItemCaseSensitive(s, "backtrace");
		if (!cJSON_IsObject(s) || !cJSON_IsArray(a) || (b && !cJSON_IsNull(b) && !cJSON_IsArray(b))) {
			kp_error_set(err, KP_ERR_FORMAT, 0, -1,
			             "signature %zu is not {\"anchors\": [...], \"symbol\", \"backtrace\": [...]}", i);
			return false;
		}
		*nanch += (size_t)cJSON_GetArraySize(a);
		*nbt += cJSON_IsArray(b) ? (size_t)cJSON_GetArraySize(b) : 0;
	}
	return true;
}

static bool fill(const cJSON *sigs, priv *p, kp__sigfile *f, kp_error *err)
{
	size_t i = 0, na = 0, nb = 0;
	char where[64];
	for (const cJSON *s = sigs->child; s; s = s->next, i++) {
		kp__sig *g = &p->sigs[i];
		snprintf(where, sizeof where, "signature %zu: ", i);
		if (!str_of(s, "symbol", false, &g->symbol, where, err))
			return false;
		g->anchors = &p->anchors[na];
		size_t k = 0;
		for (const cJSON *a = cJSON_GetObjectItemCaseSensitive(s, "anchors")->child; a; a = a->next, k++) {
			kp__sig_anchor *an = &p->anchors[na++];
			snprintf(where, sizeof where, "signature %zu anchor %zu: ", i, k);
			if (!cJSON_IsObject(a)) {
				kp_error_set(err, KP_ERR_FORMAT, 0, -1, "%sis not an object", where);
				return false;
			}
			if (!str_of(a, "string", false, &an->string, where, err) ||
			    !str_of(a, "segment", false, &an->segment, where, err) ||
			    !str_of(a, "section", false, &an->section, where, err) ||
			    !str_of(a, "caller", true, &an->caller, where, err))
				return false;
			an->len = strlen(an->string);
			if (an->caller && !an->caller[0])
				an->caller = NULL;
		}
		g->nanchors = k;
		g->backtrace = &p->bt[nb];
		const cJSON *b = cJSON_GetObjectItemCaseSensitive(s, "backtrace");
		k = 0;
		for (const cJSON *e = cJSON_IsArray(b) ? b->child : NULL; e; e = e->next, k++) {
			if (!cJSON_IsString(e) || !e->valuestring || strlen(e->valuestring) > KP_SIGFILE_MAX_STRING) {
				kp_error_set(err, KP_ERR_FORMAT, 0, -1,
				             "signature %zu backtrace %zu is not a string (of at most %u bytes)", i, k,
				             KP_SIGFILE_MAX_STRING);
				return false;
			}
			p->bt[nb++] = e->valuestring;
		}
		g->nbacktrace = k;
	}
	f->sigs = p->sigs;
	f->nsigs = i;
	return true;
}

kp_status kp__sigfile_parse(const char *data, size_t len, kp__sigfile **out, kp_error *err)
{
	*out = NULL;
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(data, len, &end, 0);
	if (!root)
		return kp_error_set(err, KP_ERR_FORMAT, 0, end ? (long)(end - data) : -1,
		                    "not JSON (a signature file is symbolicator's JSON)");
	kp__sigfile *f = calloc(1, sizeof *f);
	priv *p = f ? calloc(1, sizeof *p) : NULL;
	if (!p) {
		free(f);
		cJSON_Delete(root);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	f->priv = p;
	p->root = root;
	f->path = "";
	f->dir_major = -1;
	const cJSON *sigs = cJSON_GetObjectItemCaseSensitive(root, "signatures");
	size_t na = 0, nb = 0;
	if (!cJSON_IsObject(root) || !cJSON_IsArray(sigs)) {
		kp__sigfile_free(&f);
		return kp_error_set(err, KP_ERR_FORMAT, 0, -1,
		                    "not a signature file: want {\"target\", \"version\", \"signatures\": [...]}");
	}
	if (!str_of(root, "target", false, &f->target, "", err) || !version_of(root, f, err) ||
	    !count(sigs, &na, &nb, err)) {
		kp__sigfile_free(&f);
		return err ? err->code : KP_ERR_FORMAT;
	}
	size_t ns = (size_t)cJSON_GetArraySize(sigs);
	p->sigs = calloc(ns ? ns : 1, sizeof *p->sigs);
	p->anchors = calloc(na ? na : 1, sizeof *p->anchors);
	p->bt = calloc(nb ? nb : 1, sizeof *p->bt);
	if (!p->sigs || !p->anchors || !p->bt) {
		kp__sigfile_free(&f);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	if (!fill(sigs, p, f, err)) {
		kp__sigfile_free(&f);
		return err ? err->code : KP_ERR_FORMAT;
	}
	*out = f;
	return KP_OK;
}

kp_status kp__sigfile_load(const char *path, int dir_major, kp__sigfile **out, kp_error *err)
{
	*out = NULL;
	char *data = NULL;
	size_t len = 0;
	kp_status st = kp_fs_read_file(path, KP_SIGFILE_MAX_SIZE, &data, &len, NULL, err);
	if (st != KP_OK)
		return st;
	st = kp__sigfile_parse(data, len, out, err);
	free(data);
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
