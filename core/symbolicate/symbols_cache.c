/* symbols_cache.c: `kpbrowse cache build|list|clear` over the symbol cache
 * folder (kp_symbols.h), without a kp_symbols: walking a path for Mach-O
 * files with DWARF, building each slice's cache, listing and removing
 * cache files. */
#include "symbols_model.h"
#include "kp_fs.h"
#include "kp_macho.h"
#include "kp_lex.h"
#include "kp_vec.h"
#include "symcache.h"
#include "symhttp.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void default_cache_dir(char *buf, size_t size)
{
	const char *env = getenv("KPBROWSE_CACHE_DIR");
	const char *home = getenv("HOME");
	buf[0] = '\0';
	if (env) {
		snprintf(buf, size, "%s", env);
		return;
	}
#ifdef __APPLE__
	if (home)
		snprintf(buf, size, "%s/Library/Caches/kpbrowse", home);
#else
	const char *xdg = getenv("XDG_CACHE_HOME");
	if (xdg && xdg[0] == '/')
		snprintf(buf, size, "%s/kpbrowse", xdg);
	else if (home)
		snprintf(buf, size, "%s/.cache/kpbrowse", home);
#endif
}

void kp_symbols_cache_dir(const kp_symbols *s, char *buf, size_t size)
{
	if (s)
		snprintf(buf, size, "%s", s->symcache_dir);
	else
		default_cache_dir(buf, size);
}

static void resolve_dir(const char *cache_dir, char *buf, size_t size)
{
	if (cache_dir && cache_dir[0])
		snprintf(buf, size, "%s", cache_dir);
	else
		kp_symbols_cache_dir(NULL, buf, size);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct walk {
	const char *dir;
	kp_symcache_entry_fn fn;
	void *ctx;
	size_t nfound;
};

/* Builds the cache of every slice of the Mach-O file path with DWARF; a
 * file that is not Mach-O (or has no DWARF) is passed over quietly. */
static void build_file(struct walk *w, const char *path, const struct stat *st)
{
	kp_macho *m = NULL;
	if (kp_macho_open(path, &m, NULL) != KP_OK)
		return;
	for (size_t i = 0; i < kp_macho_nslices(m); i++) {
		const kp_macho_slice *sl = kp_macho_slice_at(m, i);
		kp_dwarf *d = NULL;
		if (!sl->has_uuid || kp_dwarf_open(sl, &d, NULL) != KP_OK)
			continue;
		kp_dwarf_use_symbols(d, m);
		w->nfound++;
		double t0 = now_s();
		kp_symcache_key key = {sl->uuid, sl->arch, (uint64_t)st->st_size, kp_fs_mtime_ns(st)};
		char abs[4096];
		const char *src = realpath(path, abs) ? abs : path;
		kp_symcache_entry e = {sl->uuid, sl->arch, src, 0, 0, 0, false, KP_OK, NULL};
		char cpath[4200];
		void *img = NULL;
		size_t len = 0;
		kp_error err;
		if (!kp__symcache_path(cpath, sizeof cpath, w->dir, sl->uuid))
			e.status = kp_error_set(&err, KP_ERR_LIMIT, 0, -1, "cache path too long");
		else
			e.status = kp__symcache_build(d, m, sl, &key, src, NULL, &img, &len, &err);
		if (e.status == KP_OK)
			e.status = kp__symcache_write(cpath, img, len, &err);
		free(img);
		kp_dwarf_close(&d);
		struct stat cs;
		if (e.status == KP_OK && stat(cpath, &cs) == 0) {
			e.size = (uint64_t)cs.st_size;
			e.built_ns = kp_fs_mtime_ns(&cs);
		}
		e.seconds = now_s() - t0;
		e.msg = e.status == KP_OK ? NULL : err.msg;
		w->fn(w->ctx, &e);
	}
	kp_macho_close(&m);
}

/* Depth-first, names sorted within a folder; symlinks below the top are
 * not followed (no loops, nothing outside what was named). */
static void walk(struct walk *w, const char *path, int depth)
{
	struct stat st;
	if ((depth ? lstat(path, &st) : stat(path, &st)) != 0)
		return;
	if (S_ISREG(st.st_mode)) {
		build_file(w, path, &st);
		return;
	}
	if (!S_ISDIR(st.st_mode) || depth > 64)
		return;
	char **names;
	size_t n;
	kp_error e;
	if (kp_fs_dir_names(path, &names, &n, &e) != KP_OK)
		return;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(path) + strlen(names[i]) + 2;
		char *p = malloc(len);
		if (p) {
			snprintf(p, len, "%s/%s", path, names[i]);
			walk(w, p, depth + 1);
			free(p);
		}
	}
	kp_fs_names_free(names, n);
}

kp_status kp_symcache_build_path(const char *cache_dir, const char *path, kp_symcache_entry_fn fn,
                                 void *ctx, kp_error *err)
{
	char dir[4096];
	resolve_dir(cache_dir, dir, sizeof dir);
	if (!dir[0])
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "no cache folder (set KPBROWSE_CACHE_DIR)");
	struct stat st;
	if (stat(path, &st) != 0)
		return kp_error_set(err, KP_ERR_IO, 0, -1, "%s: %s", path, strerror(errno));
	struct walk w = {dir, fn, ctx, 0};
	walk(&w, path, 0);
	if (!w.nfound)
		return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "%s: no Mach-O file with DWARF", path);
	return KP_OK;
}

/* Calls each(ctx, file path, uuid part) for every <UUID>.kpsym in dir. */
static kp_status each_file(const char *dir, void (*each)(void *ctx, const char *path, const char *name),
                           void *ctx, kp_error *err)
{
	char sdir[4200];
	snprintf(sdir, sizeof sdir, "%s/symcache", dir);
	DIR *d = opendir(sdir);
	if (!d)
		return errno == ENOENT ? KP_OK
		                       : kp_error_set(err, KP_ERR_IO, 0, -1, "%s: %s", sdir, strerror(errno));
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);
		if (n < 7 || strcmp(de->d_name + n - 6, ".kpsym") != 0)
			continue;
		char p[4500];
		snprintf(p, sizeof p, "%s/%s", sdir, de->d_name);
		each(ctx, p, de->d_name);
	}
	closedir(d);
	return KP_OK;
}

struct listing {
	kp_symcache_entry_fn fn;
	void *ctx;
};

static void list_one(void *ctx, const char *path, const char *name)
{
	struct listing *l = ctx;
	kp_symcache_info in;
	struct stat cs, ds;
	kp_symcache_entry e = {0};
	e.status = kp__symcache_info(path, &in);
	char uuid[40];
	snprintf(uuid, sizeof uuid, "%.*s", (int)(strlen(name) - 6), name);
	e.uuid = e.status == KP_OK ? in.uuid : uuid;
	e.arch = e.status == KP_OK ? in.arch : "";
	e.source = e.status == KP_OK ? in.source : "";
	if (lstat(path, &cs) == 0) {
		e.size = (uint64_t)cs.st_size;
		e.built_ns = kp_fs_mtime_ns(&cs);
	}
	e.stale = e.status != KP_OK || !in.source[0] || stat(in.source, &ds) != 0 ||
	          (uint64_t)ds.st_size != in.dwarf_size || kp_fs_mtime_ns(&ds) != in.dwarf_mtime_ns;
	e.msg = e.status == KP_OK ? NULL : "not a valid symbol cache";
	l->fn(l->ctx, &e);
}

kp_status kp_symcache_list(const char *cache_dir, kp_symcache_entry_fn fn, void *ctx,
                           kp_error *err)
{
	char dir[4096];
	resolve_dir(cache_dir, dir, sizeof dir);
	if (!dir[0])
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "no cache folder (set KPBROWSE_CACHE_DIR)");
	struct listing l = {fn, ctx};
	return each_file(dir, list_one, &l, err);
}

struct clearing {
	char (*want)[37];
	size_t n, removed;
};

static void clear_one(void *ctx, const char *path, const char *name)
{
	struct clearing *c = ctx;
	char uuid[37];
	bool match = c->n == 0;
	if (!match && kp_uuid_canon(name, strlen(name) - 6, uuid))
		for (size_t i = 0; i < c->n && !match; i++)
			match = strcmp(c->want[i], uuid) == 0;
	if (match && unlink(path) == 0)
		c->removed++;
}

kp_status kp_symcache_clear(const char *cache_dir, const char *const *uuids, size_t n,
                            size_t *removed, kp_error *err)
{
	*removed = 0;
	char dir[4096];
	resolve_dir(cache_dir, dir, sizeof dir);
	if (!dir[0])
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "no cache folder (set KPBROWSE_CACHE_DIR)");
	struct clearing c = {n ? calloc(n, sizeof *c.want) : NULL, n, 0};
	if (n && !c.want)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (!kp_uuid_canon(uuids[i], strlen(uuids[i]), c.want[i])) {
			free(c.want);
			return kp_error_set(err, KP_ERR_USAGE, 0, -1, "not a UUID: %s", uuids[i]);
		}
	kp_status st = each_file(dir, clear_one, &c, err);
	free(c.want);
	*removed = c.removed;
	return st;
}

/* ---- this Mac's kernelcache, kept for its panics ---------------------- */

/* The kernel's UUID in a kernelcache: its com.apple.kernel entry's, else
 * the file's first slice's. */
static bool kernel_uuid_of(const char *path, char out[37], kp_error *err)
{
	kp_macho *m = NULL;
	if (kp_macho_open(path, &m, err) != KP_OK)
		return false;
	const char *found = NULL;
	for (size_t i = 0; i < kp_macho_nslices(m); i++) {
		const kp_macho_slice *sl = kp_macho_slice_at(m, i);
		if (sl->has_uuid && (!found || (sl->fileset_id && strcmp(sl->fileset_id, "com.apple.kernel") == 0)))
			found = sl->uuid;
		if (sl->fileset_id && strcmp(sl->fileset_id, "com.apple.kernel") == 0)
			break;
	}
	if (found)
		memcpy(out, found, 37);
	kp_macho_close(&m);
	if (!found)
		kp_error_set(err, KP_ERR_FORMAT, 0, -1, "%s: no UUID in it", path);
	return found != NULL;
}

kp_status kp_kernelcache_running(char *path, size_t size, char kernel_uuid[37], kp_error *err)
{
	const char *env = getenv("KPBROWSE_RUNNING_KERNELCACHE");
	path[0] = '\0';
	if (env && *env) {
		snprintf(path, size, "%s", env);
	} else {
#ifdef __APPLE__
		static const char *const intel[] = {
			"/System/Library/KernelCollections/BootKernelExtensions.kc",
		};
		char **groups;
		size_t ng;
		kp_error e;
		if (kp_fs_dir_names("/System/Volumes/Preboot", &groups, &ng, &e) == KP_OK) {
			for (size_t i = 0; i < ng && !path[0]; i++) {
				char boot[1024];
				snprintf(boot, sizeof boot, "/System/Volumes/Preboot/%s/boot", groups[i]);
				char **hashes;
				size_t nh;
				if (kp_fs_dir_names(boot, &hashes, &nh, &e) != KP_OK)
					continue;
				for (size_t k = 0; k < nh && !path[0]; k++) {
					char kc[2048];
					struct stat st;
					snprintf(kc, sizeof kc, "%s/%s/System/Library/Caches/com.apple.kernelcaches/kernelcache",
					         boot, hashes[k]);
					if (stat(kc, &st) == 0 && S_ISREG(st.st_mode))
						snprintf(path, size, "%s", kc);
				}
				kp_fs_names_free(hashes, nh);
			}
			kp_fs_names_free(groups, ng);
		}
		struct stat st;
		if (!path[0] && stat(intel[0], &st) == 0)
			snprintf(path, size, "%s", intel[0]);
#endif
	}
	if (!path[0])
		return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "no running kernelcache on this system");
	return kernel_uuid_of(path, kernel_uuid, err) ? KP_OK : err ? err->code : KP_ERR_FORMAT;
}

kp_status kp_kernelcache_keep(const char *cache_dir, const char *kc_path, const char *kernel_uuid,
                              bool *kept, char *path, size_t size, kp_error *err)
{
	char dir[4096];
	*kept = false;
	resolve_dir(cache_dir, dir, sizeof dir);
	if (!dir[0])
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "no cache folder (set KPBROWSE_CACHE_DIR)");
	char canon[37];
	if (!kp_uuid_canon(kernel_uuid, strlen(kernel_uuid), canon))
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "not a UUID: %.40s", kernel_uuid);
	snprintf(path, size, "%s/kernelcaches/%s.kc", dir, canon);
	struct stat st;
	if (lstat(path, &st) == 0)
		return KP_OK;   /* kept before: content-addressed */
	char *data = NULL;
	size_t len = 0;
	kp_status ks = kp_fs_read_file(kc_path, KP_KERNELCACHE_KEEP_MAX, &data, &len, NULL, err);
	if (ks != KP_OK)
		return ks;
	kp_macho *m = NULL;
	/* keep only what is what it claims: the kernel UUID inside the bytes read */
	if (kp_macho_open_mem(data, len, &m, err) != KP_OK) {
		free(data);
		return err ? err->code : KP_ERR_FORMAT;
	}
	bool match = kp_macho_find_uuid(m, canon) != NULL;
	kp_macho_close(&m);
	if (!match) {
		free(data);
		return kp_error_set(err, KP_ERR_FORMAT, 0, -1, "%s does not hold kernel %s (it changed?)",
		                    kc_path, canon);
	}
	ks = kp_fs_mkdirs_for(path, 0755, err);
	if (ks == KP_OK)
		ks = kp_fs_write_atomic(path, data, len, err);
	free(data);
	*kept = ks == KP_OK;
	return ks;
}

kp_status kp_kernelcache_list(const char *cache_dir, kp_symcache_entry_fn fn, void *ctx, kp_error *err)
{
	char dir[4096], sub[4200];
	resolve_dir(cache_dir, dir, sizeof dir);
	snprintf(sub, sizeof sub, "%s/kernelcaches", dir);
	char **names;
	size_t n;
	kp_error e;
	if (kp_fs_dir_names(sub, &names, &n, &e) != KP_OK)
		return KP_OK;   /* none kept */
	for (size_t i = 0; i < n; i++) {
		size_t nl = strlen(names[i]);
		if (nl != 39 || strcmp(names[i] + 36, ".kc") != 0)
			continue;
		char p[4300], uuid[37];
		snprintf(p, sizeof p, "%s/%s", sub, names[i]);
		snprintf(uuid, sizeof uuid, "%.36s", names[i]);
		struct stat st;
		kp_symcache_entry en = {uuid, "", "", 0, 0, 0, false, KP_OK, NULL};
		if (lstat(p, &st) == 0) {
			en.size = (uint64_t)st.st_size;
			en.built_ns = kp_fs_mtime_ns(&st);
		}
		en.source = p;
		fn(ctx, &en);
	}
	kp_fs_names_free(names, n);
	(void)err;
	return KP_OK;
}

/* ---- symbol-server downloads ----------------------------------------- */

struct dl_listing {
	kp_symcache_entry_fn fn;
	void *ctx;
	uint64_t bytes;
};

static void list_download(void *ctx, const char *path, const char *uuid, const struct stat *st)
{
	struct dl_listing *l = ctx;
	l->bytes += (uint64_t)st->st_size;
	if (!uuid)
		return;   /* a live writer's temporary: counted only */
	kp_symcache_entry en = {uuid, "", path, (uint64_t)st->st_size, kp_fs_mtime_ns(st), 0, false,
	                        KP_OK, NULL};
	l->fn(l->ctx, &en);
}

kp_status kp_download_list(const char *cache_dir, kp_symcache_entry_fn fn, void *ctx,
                           uint64_t *bytes, uint64_t *cap, kp_error *err)
{
	char dir[4096], sub[4200];
	kp__symhttp_opts o = {0};
	kp__symhttp_opts_env(&o);
	*cap = o.cap_bytes;
	*bytes = 0;
	resolve_dir(cache_dir, dir, sizeof dir);
	if (!dir[0])
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "no cache folder (set KPBROWSE_CACHE_DIR)");
	snprintf(sub, sizeof sub, "%s/downloads", dir);
	struct dl_listing l = {fn, ctx, 0};
	kp_status st = kp__symhttp_downloads(sub, o.timeout_s + 60, list_download, &l, NULL, err);
	*bytes = l.bytes;
	return st;
}
