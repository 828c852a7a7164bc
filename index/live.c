/* live.c: which recorded paths of a report still exist (contract: live.h). */
#include "live.h"
#include "kp_hash.h"
#include "kp_vec.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LIVE_LIST_AFTER 16
#define LIVE_MAX_DIRS 256

/* Whether name v - 1 of d's listing is key. */
static bool name_eq(const void *ctx, uint32_t v, const void *key)
{
	const kpi__live_dir *d = ctx;
	return strcmp(d->blob + d->offs[v - 1], key) == 0;
}

/* Index of name in d's listing, or -1. */
static long live_find(const kpi__live_dir *d, const char *name)
{
	uint32_t v = d->names.slot[kp_htab_probe(&d->names, kp_hash_str(name), name_eq, d, name)];
	return v ? (long)v - 1 : -1;
}

/* Lists d->dir; leaves d->state -1 when the listing cannot stand in for stat(). */
static void live_list(kpi__live_dir *d)
{
	d->state = -1;
	DIR *dp = opendir(d->dlen ? d->dir : ".");
	if (!dp)
		return;
	size_t blen = 0, bcap = 0, n = 0, cap = 0;
	char *blob = NULL;
	size_t *offs = NULL;
	unsigned char *types = NULL;
	bool ok = true;
	struct dirent *e;
	while (ok && (e = readdir(dp)) != NULL) {
		size_t l = strlen(e->d_name) + 1;
		if (blen + l > bcap) {
			size_t nc = bcap ? 2 * bcap : 4096;
			while (nc < blen + l)
				nc *= 2;
			char *nb = realloc(blob, nc);
			ok = nb != NULL;
			if (!ok)
				break;
			blob = nb;
			bcap = nc;
		}
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 64;
			size_t *no = realloc(offs, nc * sizeof *no);
			if (no)
				offs = no;
			unsigned char *nt = no ? realloc(types, nc) : NULL;
			if (nt)
				types = nt;
			ok = no && nt && nc < UINT32_MAX / 4;
			if (!ok)
				break;
			cap = nc;
		}
		memcpy(blob + blen, e->d_name, l);
		offs[n] = blen;
#ifdef DT_UNKNOWN
		types[n] = e->d_type;
#else
		types[n] = 0;
#endif
		blen += l;
		n++;
	}
	/* Listed is not searchable (a folder readable but not searchable):
	 * one real lookup of a listed name proves stat() can reach them. */
	struct stat st;
	if (ok && n && fstatat(dirfd(dp), blob + offs[0], &st, AT_SYMLINK_NOFOLLOW) != 0)
		ok = false;
	closedir(dp);
	size_t size = 64;
	while (size < 2 * n)
		size *= 2;
	if (!ok || !kp_htab_size(&d->names, size)) {
		free(blob);
		free(offs);
		free(types);
		return;
	}
	d->blob = blob;
	d->offs = offs;
	d->types = types;
	for (size_t k = 0; k < n; k++)   /* a folder's names are distinct */
		kp_htab_put(&d->names, kp_htab_empty(&d->names, kp_hash_str(blob + offs[k])), (uint32_t)k + 1);
	d->state = 1;
}

static kpi__live_dir *live_folder(kpi__live_cache *c, const char *dir, size_t dlen)
{
	if (c->last < c->n && c->dirs[c->last].dlen == dlen &&
	    memcmp(c->dirs[c->last].dir, dir, dlen) == 0)
		return &c->dirs[c->last];
	for (size_t i = 0; i < c->n; i++)
		if (c->dirs[i].dlen == dlen && memcmp(c->dirs[i].dir, dir, dlen) == 0)
			return &c->dirs[c->last = i];
	if (c->n == LIVE_MAX_DIRS)
		return NULL;
	kpi__live_dir *d = kp_vec_push((void **)&c->dirs, &c->n, &c->cap, sizeof *d);
	if (!d)
		return NULL;
	memset(d, 0, sizeof *d);
	if (!(d->dir = malloc(dlen + 1))) {
		c->n--;
		return NULL;
	}
	memcpy(d->dir, dir, dlen);
	d->dir[dlen] = '\0';
	d->dlen = dlen;
	c->last = c->n - 1;
	return d;
}

static bool live_exists(kpi__live_cache *c, const char *path)
{
	struct stat st;
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	size_t dlen = slash ? (slash == path ? 1 : (size_t)(slash - path)) : 0;
	if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return stat(path, &st) == 0;
	kpi__live_dir *d = live_folder(c, path, dlen);
	if (!d || d->state < 0 || (d->state == 0 && ++d->hits <= LIVE_LIST_AFTER))
		return stat(path, &st) == 0;
	if (d->state == 0)
		live_list(d);
	if (d->state < 0)
		return stat(path, &st) == 0;
	long k = live_find(d, name);
	if (k < 0)
		return false;
	unsigned char t = d->types[k];
#ifdef DT_UNKNOWN
	if (t != DT_UNKNOWN && t != DT_LNK)
		return true;
#else
	(void)t;
#endif
	return stat(path, &st) == 0;
}

void kpi__live_free(kpi__live_cache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->dirs[i].dir);
		free(c->dirs[i].blob);
		free(c->dirs[i].offs);
		free(c->dirs[i].types);
		kp_htab_free(&c->dirs[i].names);
	}
	free(c->dirs);
}

static int find_live(void *ctx, const char *path)
{
	kpi__live_rows *l = ctx;
	if (!live_exists(&l->cache, path))
		return 0;
	l->live = strdup(path);
	return 1;
}

int kpi__live_row(void *ctx, const kpi_report_row *row)
{
	kpi__live_rows *l = ctx;
	if (!row->path || live_exists(&l->cache, row->path))
		return l->fn ? l->fn(l->ctx, row) : 0;
	l->live = NULL;
	l->db->ops->report_paths(l->db, row->id, find_live, l, NULL);
	kpi_report_row r = *row;
	if (l->live)
		r.path = l->live;
	int stop = l->fn ? l->fn(l->ctx, &r) : 0;
	free(l->live);
	l->live = NULL;
	return stop;
}
