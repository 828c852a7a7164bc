/* symhttp_store.c: the symbol servers' download folder (contracts:
 * kp__symhttp_cached and kp__symhttp_downloads in symhttp.h, the rest in
 * symhttp_store.h): what is kept and in use, whose temporaries are stale,
 * and the least-recently-used cap.  No libcurl here. */
#include "symhttp.h"
#include "symhttp_store.h"
#include "kp_fs.h"
#include "kp_lex.h"
#include "kp_vec.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the download folder: downloads, temporaries ---- */

/* Downloads this process answered with or made: never evicted by it (a
 * path handed out must stay there until the caller opens it). */
static pthread_mutex_t in_use_lock = PTHREAD_MUTEX_INITIALIZER;
static char **in_use;
static size_t nin_use, in_use_cap;

/* Whether path is in in_use; in_use_lock held. */
static bool in_use_has(const char *path)
{
	for (size_t i = 0; i < nin_use; i++)
		if (strcmp(in_use[i], path) == 0)
			return true;
	return false;
}

void kp__symhttp_mark_in_use(const char *path)
{
	pthread_mutex_lock(&in_use_lock);
	char **slot = in_use_has(path) ? NULL
	                               : kp_vec_push((void **)&in_use, &nin_use, &in_use_cap, sizeof *in_use);
	if (slot && !(*slot = strdup(path)))
		nin_use--;
	pthread_mutex_unlock(&in_use_lock);
}

static bool is_in_use(const char *path)
{
	pthread_mutex_lock(&in_use_lock);
	bool have = in_use_has(path);
	pthread_mutex_unlock(&in_use_lock);
	return have;
}

bool kp__symhttp_cached(const char *dir, const char *uuid, char *out, size_t size)
{
	struct stat st;
	snprintf(out, size, "%s/%s", dir, uuid);
	if (stat(out, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
		return false;
	kp__symhttp_mark_in_use(out);
	/* a use: the eviction order (explicit, so noatime mounts keep it);
	 * the mtime, which the symbol cache is keyed by, stays */
	const struct timespec ts[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
	utimensat(AT_FDCWD, out, ts, 0);
	return true;
}

/* Whose temporary name is: its writer's pid for ".<UUID>.<pid>-<n>.tmp",
 * 0 for an older kpbrowse's mkstemp name ".<UUID>.XXXXXX", -1 for any
 * other name. */
static long tmp_writer(const char *name)
{
	char u[37];
	if (strlen(name) < 44 || name[0] != '.' || name[37] != '.' || !kp_uuid_canon(name + 1, 36, u) ||
	    memcmp(u, name + 1, 36) != 0)
		return -1;
	const char *p = name + 38;
	if (strlen(p) == 6)
		return 0;
	long pid = 0;
	size_t d = 0;
	for (; p[d] >= '0' && p[d] <= '9' && d < 9; d++)
		pid = pid * 10 + (p[d] - '0');
	if (!d || p[d] != '-' || pid <= 0)
		return -1;
	p += d + 1;
	d = strspn(p, "0123456789");
	return d && strcmp(p + d, ".tmp") == 0 ? pid : -1;
}

static bool writer_alive(long pid)
{
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

kp_status kp__symhttp_downloads(const char *dir, long stale_s, kp__symhttp_dl_fn fn, void *ctx,
                                size_t *removed, kp_error *err)
{
	if (removed)
		*removed = 0;
	char **names = NULL;
	size_t n = 0;
	kp_error e;
	kp_status ks = kp_fs_dir_names(dir, &names, &n, &e);
	if (ks == KP_ERR_IO && errno == ENOENT)
		return KP_OK;
	if (ks != KP_OK)
		return kp_error_set(err, ks, 0, -1, "%s", e.msg);
	time_t now = time(NULL);
	for (size_t i = 0; i < n; i++) {
		char p[4400];
		struct stat st;
		if (snprintf(p, sizeof p, "%s/%s", dir, names[i]) >= (int)sizeof p || lstat(p, &st) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		long w = tmp_writer(names[i]);
		if (w > 0 ? !writer_alive(w) : w == 0 && now - st.st_mtime > stale_s) {
			if (unlink(p) == 0 && removed)
				(*removed)++;
			continue;
		}
		char u[37];
		if (w >= 0 && fn)
			fn(ctx, p, NULL, &st);
		else if (strlen(names[i]) == 36 && kp_uuid_canon(names[i], 36, u) && strcmp(u, names[i]) == 0 && fn)
			fn(ctx, p, names[i], &st);
	}
	kp_fs_names_free(names, n);
	return KP_OK;
}

/* ---- the cap over all downloads, for one run of transfers ---- */

static void budget_add(void *ctx, const char *path, const char *uuid, const struct stat *st)
{
	struct kp__symhttp_budget *b = ctx;
	b->used += (uint64_t)st->st_size;
	if (!uuid || is_in_use(path))
		return;   /* a live writer's temporary, or in use by this process: kept */
	struct kp__symhttp_held *h = kp_vec_push((void **)&b->v, &b->n, &b->vcap, sizeof *b->v);
	if (h && !(h->path = strdup(path)))
		b->n--;
	else if (h) {
		h->atime_ns = kp_fs_atime_ns(st), h->size = (uint64_t)st->st_size;
		b->evictable += h->size;
	}
}

static int by_atime(const void *a, const void *b)
{
	const struct kp__symhttp_held *x = a, *y = b;
	return x->atime_ns < y->atime_ns ? -1 : x->atime_ns > y->atime_ns ? 1 : strcmp(x->path, y->path);
}

bool kp__symhttp_budget_take(struct kp__symhttp_budget *b, uint64_t need, unsigned *evicted)
{
	if (need && b->used + need > b->cap + b->evictable)
		return false;
	while (b->used + need > b->cap && b->next < b->n) {
		const struct kp__symhttp_held *h = &b->v[b->next++];
		struct stat st;
		b->evictable -= h->size;
		if (lstat(h->path, &st) != 0)
			b->used -= h->size < b->used ? h->size : b->used;   /* gone already */
		else if (kp_fs_atime_ns(&st) == h->atime_ns && unlink(h->path) == 0) {
			b->used -= h->size < b->used ? h->size : b->used;
			(*evicted)++;
		}   /* else used since the listing (another kpbrowse): kept */
	}
	if (b->used + need > b->cap)
		return false;
	b->used += need;
	return true;
}

void kp__symhttp_budget_fill(struct kp__symhttp_budget *b, const char *dir, long stale_s)
{
	kp__symhttp_downloads(dir, stale_s, budget_add, b, NULL, NULL);
	if (b->n)
		qsort(b->v, b->n, sizeof *b->v, by_atime);
}

void kp__symhttp_budget_free(struct kp__symhttp_budget *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->v[i].path);
	free(b->v);
}

