/* dsym.c: finding Mach-O files by UUID under search roots, with a cache.
 *
 * Cache file format (text, one record a line, fields tab-separated, the path
 * always last so it may hold spaces):
 *   kpbrowse-dsym-cache 1
 *   R <root>
 *   D <mtime_s> <mtime_ns> <dir>             every directory the walk entered
 *   F <size> <mtime_s> <mtime_ns> <uuid> <filetype> <path>
 * A root is trusted when all its D lines still match; otherwise it is walked
 * again, and files whose size and mtime match their F lines are not reopened.
 * Paths holding a tab or newline are never cached. */
#include "dsym.h"
#include "kp_macho.h"
#include "kp_fs.h"
#include "kp_vec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DEPTH 40
#define MAX_ENTRIES 1000000   /* names one root's walk looks at, at most (KPBROWSE_DSYM_WALK_MAX) */


struct seen {
	dev_t dev;
	ino_t ino;
	bool used;
};

typedef struct entry {
	char uuid[37];
	unsigned filetype;
	char *path;
	long long size, ms, mns;
	size_t root;
} entry;

typedef struct dirrec {
	char *path;
	long long ms, mns;
} dirrec;

typedef struct root {
	char *path;
	unsigned tag;       /* the symbol source that added it (symsrc.c) */
	bool walked, from_cache;
	bool cut;           /* its walk stopped at max_entries or MAX_DEPTH */
	dirrec *dirs;
	size_t ndirs, dcap;
} root;

/* What the cache file said, before any root of this run claimed it. */
typedef struct cached_root {
	char *path;
	dirrec *dirs;
	size_t ndirs, dcap;
	entry *files;
	size_t nfiles, fcap;
	bool claimed;
} cached_root;

struct kp_dsym_index {
	char *cache_file;
	root *roots;
	size_t nroots, rcap;
	entry *ents;
	size_t nents, ecap;
	cached_root *cached;
	size_t ncached, ccap;
	const cached_root *reuse;   /* cached files of the root being walked */
	bool dirty;
	size_t walked, from_cache, probed;
	struct seen *seen;   /* directories entered by one walk: open addressing */
	size_t seen_cap, seen_n;
	char *base;          /* the real path of the root being walked */
	size_t entries;      /* names it looked at so far */
	size_t max_entries;
};

static bool cacheable(const char *p)
{
	return !strpbrk(p, "\t\n\r");
}

/* ---- cache file ---- */

static void load_cache(kp_dsym_index *x)
{
	/* O_NONBLOCK|O_NOFOLLOW and a regular file only: a FIFO or a symlink
	 * planted under the cache's name is ignored, never waited on */
	int fd = open(x->cache_file, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return;
	FILE *fp = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "r") : NULL;
	if (!fp) {
		close(fd);
		return;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	cached_root *cr = NULL;
	bool header = false;
	while ((n = getline(&line, &cap, fp)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (!header) {
			if (strcmp(line, "kpbrowse-dsym-cache 1") != 0)
				break;   /* unknown version: ignore the whole file */
			header = true;
			continue;
		}
		if (line[0] == 'R' && line[1] == '\t') {
			if (!kp_vec_push((void **)&x->cached, &x->ncached, &x->ccap, sizeof *x->cached))
				break;
			cr = &x->cached[x->ncached - 1];
			cr->path = strdup(line + 2);
		} else if (line[0] == 'D' && line[1] == '\t' && cr) {
			long long ms, mns;
			int off = 0;
			if (sscanf(line + 2, "%lld\t%lld\t%n", &ms, &mns, &off) != 2 || off == 0)
				continue;
			if (!kp_vec_push((void **)&cr->dirs, &cr->ndirs, &cr->dcap, sizeof *cr->dirs))
				break;
			dirrec *d = &cr->dirs[cr->ndirs - 1];
			d->ms = ms, d->mns = mns, d->path = strdup(line + 2 + off);
		} else if (line[0] == 'F' && line[1] == '\t' && cr) {
			long long size, ms, mns;
			char uuid[37];
			unsigned ft;
			int off = 0;
			if (sscanf(line + 2, "%lld\t%lld\t%lld\t%36[0-9A-F-]\t%u\t%n", &size, &ms, &mns, uuid,
			           &ft, &off) != 5 || off == 0 || strlen(uuid) != 36)
				continue;
			if (!kp_vec_push((void **)&cr->files, &cr->nfiles, &cr->fcap, sizeof *cr->files))
				break;
			entry *e = &cr->files[cr->nfiles - 1];
			memcpy(e->uuid, uuid, 37);
			e->filetype = ft, e->size = size, e->ms = ms, e->mns = mns;
			e->path = strdup(line + 2 + off);
		}
	}
	free(line);
	fclose(fp);
}

static bool write_root(FILE *fp, const char *path, const dirrec *dirs, size_t ndirs,
                       const entry *files, size_t nfiles, size_t root_idx, bool filter)
{
	if (!cacheable(path))
		return true;
	fprintf(fp, "R\t%s\n", path);
	for (size_t i = 0; i < ndirs; i++)
		if (dirs[i].path && cacheable(dirs[i].path))
			fprintf(fp, "D\t%lld\t%lld\t%s\n", dirs[i].ms, dirs[i].mns, dirs[i].path);
	for (size_t i = 0; i < nfiles; i++) {
		const entry *e = &files[i];
		if ((filter && e->root != root_idx) || !e->path || !cacheable(e->path))
			continue;
		fprintf(fp, "F\t%lld\t%lld\t%lld\t%s\t%u\t%s\n", e->size, e->ms, e->mns, e->uuid,
		        e->filetype, e->path);
	}
	return !ferror(fp);
}

void kp__dsym_save(kp_dsym_index *x)
{
	if (!x->cache_file || !x->dirty)
		return;
	kp_fs_atomic a;
	if (kp_fs_mkdirs_for(x->cache_file, 0755, NULL) != KP_OK ||
	    kp_fs_atomic_open(&a, x->cache_file, NULL) != KP_OK)
		return;
	FILE *fp = a.fp;
	bool ok = fprintf(fp, "kpbrowse-dsym-cache 1\n") > 0;
	for (size_t i = 0; i < x->nroots && ok; i++)
		if (x->roots[i].walked && !x->roots[i].cut)   /* a cut walk is walked (and said) again */
			ok = write_root(fp, x->roots[i].path, x->roots[i].dirs, x->roots[i].ndirs, x->ents,
			                x->nents, i, true);
	/* roots cached earlier but not used this run are carried over */
	for (size_t i = 0; i < x->ncached && ok; i++) {
		const cached_root *c = &x->cached[i];
		bool used = false;
		for (size_t j = 0; j < x->nroots; j++)
			used |= x->roots[j].walked && strcmp(x->roots[j].path, c->path) == 0;
		if (!used && c->path)
			ok = write_root(fp, c->path, c->dirs, c->ndirs, c->files, c->nfiles, 0, false);
	}
	if (!ok)
		kp_fs_atomic_abort(&a);
	else if (kp_fs_atomic_commit(&a, NULL) == KP_OK)
		x->dirty = false;
}

/* ---- index ---- */

kp_dsym_index *kp__dsym_new(const char *cache_dir)
{
	kp_dsym_index *x = calloc(1, sizeof *x);
	if (!x)
		return NULL;
	const char *env = getenv("KPBROWSE_DSYM_WALK_MAX");
	char *end;
	long max = env ? strtol(env, &end, 10) : 0;
	x->max_entries = env && end != env && !*end && max > 0 && max < MAX_ENTRIES ? (size_t)max : MAX_ENTRIES;
	if (cache_dir && cache_dir[0]) {
		size_t n = strlen(cache_dir) + sizeof "/dsym-cache-v1";
		x->cache_file = malloc(n);
		if (x->cache_file) {
			snprintf(x->cache_file, n, "%s/dsym-cache-v1", cache_dir);
			load_cache(x);
		}
	}
	return x;
}

static void free_dirs(dirrec *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(d[i].path);
	free(d);
}

static void free_entries(entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(e[i].path);
	free(e);
}

void kp__dsym_free(kp_dsym_index *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->nroots; i++) {
		free(x->roots[i].path);
		free_dirs(x->roots[i].dirs, x->roots[i].ndirs);
	}
	free(x->roots);
	free_entries(x->ents, x->nents);
	for (size_t i = 0; i < x->ncached; i++) {
		free(x->cached[i].path);
		free_dirs(x->cached[i].dirs, x->cached[i].ndirs);
		free_entries(x->cached[i].files, x->cached[i].nfiles);
	}
	free(x->cached);
	free(x->seen);
	free(x->cache_file);
	free(x);
}

bool kp__dsym_add_root(kp_dsym_index *x, const char *path, unsigned tag)
{
	for (size_t i = 0; i < x->nroots; i++)
		if (strcmp(x->roots[i].path, path) == 0)
			return true;
	if (!kp_vec_push((void **)&x->roots, &x->nroots, &x->rcap, sizeof *x->roots))
		return false;
	x->roots[x->nroots - 1].tag = tag;
	x->roots[x->nroots - 1].path = strdup(path);
	if (!x->roots[x->nroots - 1].path) {
		x->nroots--;
		return false;
	}
	return true;
}

static bool add_entry(kp_dsym_index *x, size_t root, const char *uuid, unsigned ft,
                      const char *path, const struct stat *st)
{
	if (!kp_vec_push((void **)&x->ents, &x->nents, &x->ecap, sizeof *x->ents))
		return false;
	entry *e = &x->ents[x->nents - 1];
	memcpy(e->uuid, uuid, 37);
	e->filetype = ft;
	e->path = strdup(path);
	e->size = (long long)st->st_size;
	e->ms = (long long)st->st_mtime;
	e->mns = kp_fs_mtime_nsec(st);
	e->root = root;
	if (!e->path) {
		x->nents--;
		return false;
	}
	return true;
}

static void probe(kp_dsym_index *x, size_t root, const char *path, const struct stat *st)
{
	if (x->reuse) {
		bool hit = false;
		for (size_t i = 0; i < x->reuse->nfiles; i++) {
			const entry *c = &x->reuse->files[i];
			if (c->size == (long long)st->st_size && c->ms == (long long)st->st_mtime &&
			    c->mns == kp_fs_mtime_nsec(st) && strcmp(c->path, path) == 0) {
				add_entry(x, root, c->uuid, c->filetype, path, st);
				hit = true;
			}
		}
		if (hit)
			return;
	}
	if (st->st_size < 28)
		return;
	int fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return;
	unsigned char m[16];
	ssize_t n = read(fd, m, sizeof m);
	close(fd);
	if (n < 4 || !kp_macho_sniff(m, (size_t)n))
		return;
	x->probed++;
	kp_macho *mo = NULL;
	if (kp_macho_open(path, &mo, NULL) != KP_OK)
		return;
	for (size_t i = 0; i < kp_macho_nslices(mo); i++) {
		const kp_macho_slice *s = kp_macho_slice_at(mo, i);
		if (s->has_uuid)
			add_entry(x, root, s->uuid, s->filetype, path, st);
	}
	kp_macho_close(&mo);
}

static bool seen_insert(kp_dsym_index *x, dev_t dev, ino_t ino)
{
	if (x->seen_n * 2 >= x->seen_cap) {
		size_t nc = x->seen_cap ? x->seen_cap * 2 : 256;
		struct seen *old = x->seen;
		size_t oc = x->seen_cap;
		x->seen = calloc(nc, sizeof *x->seen);
		if (!x->seen) {
			x->seen = old;
			return false;
		}
		x->seen_cap = nc;
		x->seen_n = 0;
		for (size_t i = 0; i < oc; i++)
			if (old[i].used)
				seen_insert(x, old[i].dev, old[i].ino);
		free(old);
	}
	size_t h = ((size_t)ino * 0x9E3779B97F4A7C15ull ^ (size_t)dev) & (x->seen_cap - 1);
	while (x->seen[h].used) {
		if (x->seen[h].dev == dev && x->seen[h].ino == ino)
			return false;
		h = (h + 1) & (x->seen_cap - 1);
	}
	x->seen[h].used = true;
	x->seen[h].dev = dev;
	x->seen[h].ino = ino;
	x->seen_n++;
	return true;
}

/* Whether the real path of the link p stays inside the walked root: a
 * link out of it (to /, a parent, another tree) is not followed. */
static bool link_inside(const kp_dsym_index *x, const char *p)
{
	char *real = x->base ? realpath(p, NULL) : NULL;
	size_t bl = x->base ? strlen(x->base) : 0;
	bool in = real && strncmp(real, x->base, bl) == 0 &&
	          (real[bl] == '\0' || real[bl] == '/' || (bl == 1 && x->base[0] == '/'));
	free(real);
	return in;
}

/* Where a walk is in a .dSYM bundle: only X.dSYM/Contents/Resources/DWARF's
 * files are looked at, never the rest of a bundle (a link to / inside it,
 * a copy of the binary). */
enum { OUTSIDE, BUNDLE, CONTENTS, RESOURCES, DWARF };

static bool is_dsym_name(const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	return n > 5 && memcmp(dir + n - 5, ".dSYM", 5) == 0 && dir[n - 6] != '/';
}

/* A walk follows links (stat) but stays in the root's real path, at most
 * MAX_DEPTH folders deep and MAX_ENTRIES names in all; each directory is
 * entered once (seen_insert), so link loops end. */
static void walk_dir(kp_dsym_index *x, size_t ri, const char *dir, int depth, int in)
{
	struct stat st;
	if (depth > MAX_DEPTH) {
		x->roots[ri].cut = true;
		return;
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || !seen_insert(x, st.st_dev, st.st_ino))
		return;
	if (in == OUTSIDE && is_dsym_name(dir))
		in = BUNDLE;
	root *r = &x->roots[ri];
	if (kp_vec_push((void **)&r->dirs, &r->ndirs, &r->dcap, sizeof *r->dirs)) {
		dirrec *d = &r->dirs[r->ndirs - 1];
		d->path = strdup(dir);
		d->ms = (long long)st.st_mtime;
		d->mns = kp_fs_mtime_nsec(&st);
	}
	DIR *dp = opendir(dir);
	if (!dp)
		return;
	static const char *const next[] = {[BUNDLE] = "Contents", [CONTENTS] = "Resources",
	                                   [RESOURCES] = "DWARF"};
	struct dirent *de;
	size_t dl = strlen(dir);
	while ((de = readdir(dp)) != NULL) {
		const char *name = de->d_name;
		if (name[0] == '.')
			continue;   /* ., .., and hidden folders such as .git */
		if (++x->entries > x->max_entries) {
			r->cut = true;
			break;
		}
		if (in != OUTSIDE && in != DWARF && strcmp(name, next[in]) != 0)
			continue;
		size_t nl = strlen(name);
		char *p = malloc(dl + nl + 2);
		if (!p)
			break;
		memcpy(p, dir, dl);
		p[dl] = '/';
		memcpy(p + dl + 1, name, nl + 1);
		struct stat cs, ls;
		if (lstat(p, &ls) == 0 && (!S_ISLNK(ls.st_mode) || link_inside(x, p)) && stat(p, &cs) == 0) {
			if (S_ISDIR(cs.st_mode) && in != DWARF)
				walk_dir(x, ri, p, depth + 1, in == OUTSIDE ? OUTSIDE : in + 1);
			else if (S_ISREG(cs.st_mode) && (in == OUTSIDE || in == DWARF))
				probe(x, ri, p, &cs);
		}
		free(p);
	}
	closedir(dp);
}

/* A cached root holds while no directory gained or lost an entry (its
 * mtime) and no file was rewritten in place (its size and mtime). */
static bool cached_valid(const cached_root *c)
{
	struct stat st;
	for (size_t i = 0; i < c->ndirs; i++)
		if (!c->dirs[i].path || stat(c->dirs[i].path, &st) != 0 ||
		    (long long)st.st_mtime != c->dirs[i].ms || kp_fs_mtime_nsec(&st) != c->dirs[i].mns)
			return false;
	for (size_t i = 0; i < c->nfiles; i++)
		if (!c->files[i].path || stat(c->files[i].path, &st) != 0 ||
		    (long long)st.st_size != c->files[i].size || (long long)st.st_mtime != c->files[i].ms ||
		    kp_fs_mtime_nsec(&st) != c->files[i].mns)
			return false;
	return c->ndirs > 0 || c->nfiles > 0;
}

static void walk_root(kp_dsym_index *x, size_t ri)
{
	root *r = &x->roots[ri];
	r->walked = true;
	cached_root *c = NULL;
	for (size_t i = 0; i < x->ncached; i++)
		if (x->cached[i].path && strcmp(x->cached[i].path, r->path) == 0)
			c = &x->cached[i];
	if (c && cached_valid(c)) {
		for (size_t i = 0; i < c->nfiles; i++) {
			const entry *e = &c->files[i];
			struct stat st = {0};
			st.st_size = (off_t)e->size;
			st.st_mtime = (time_t)e->ms;
			if (add_entry(x, ri, e->uuid, e->filetype, e->path, &st))
				x->ents[x->nents - 1].mns = e->mns;
		}
		for (size_t i = 0; i < c->ndirs; i++)
			if (kp_vec_push((void **)&r->dirs, &r->ndirs, &r->dcap, sizeof *r->dirs)) {
				r->dirs[r->ndirs - 1] = c->dirs[i];
				r->dirs[r->ndirs - 1].path = strdup(c->dirs[i].path);
			}
		r->from_cache = true;
		x->from_cache++;
		return;
	}
	x->walked++;
	x->dirty = true;
	x->reuse = c;
	x->seen_n = 0;
	if (x->seen)
		memset(x->seen, 0, x->seen_cap * sizeof *x->seen);
	struct stat st;
	if (stat(r->path, &st) == 0) {
		x->base = realpath(r->path, NULL);
		x->entries = 0;
		if (S_ISDIR(st.st_mode))
			walk_dir(x, ri, r->path, 0, OUTSIDE);
		else if (S_ISREG(st.st_mode))
			probe(x, ri, r->path, &st);
		free(x->base);
		x->base = NULL;
	}
	x->reuse = NULL;
}

static const char *lookup(const kp_dsym_index *x, const char *uuid, unsigned tag, size_t *skip)
{
	/* dSYMs first, then any other Mach-O with that UUID (symtab fallback) */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < x->nents; i++) {
			const entry *e = &x->ents[i];
			if ((e->filetype == KP_MH_DSYM) == (pass == 0) && x->roots[e->root].tag == tag &&
			    strcmp(e->uuid, uuid) == 0) {
				if (*skip == 0)
					return e->path;
				(*skip)--;
			}
		}
	return NULL;
}

const char *kp__dsym_find(kp_dsym_index *x, const char *uuid, unsigned tag, size_t skip)
{
	for (size_t ri = 0;; ri++) {
		size_t s = skip;
		const char *p = lookup(x, uuid, tag, &s);
		if (p)
			return p;
		while (ri < x->nroots && (x->roots[ri].walked || x->roots[ri].tag != tag))
			ri++;
		if (ri >= x->nroots)
			return NULL;
		walk_root(x, ri);
	}
}

size_t kp__dsym_root_uuids(kp_dsym_index *x, const char *path, void (*fn)(void *ctx, const char *uuid),
                           void *ctx)
{
	size_t ri = 0, n = 0;
	while (ri < x->nroots && strcmp(x->roots[ri].path, path) != 0)
		ri++;
	if (ri >= x->nroots)
		return 0;
	if (!x->roots[ri].walked)
		walk_root(x, ri);
	for (size_t i = 0; i < x->nents; i++)
		if (x->ents[i].root == ri) {
			fn(ctx, x->ents[i].uuid);
			n++;
		}
	return n;
}

bool kp__dsym_cut(const kp_dsym_index *x, const char *path)
{
	for (size_t i = 0; i < x->nroots; i++)
		if (strcmp(x->roots[i].path, path) == 0)
			return x->roots[i].cut;
	return false;
}

void kp__dsym_stats(const kp_dsym_index *x, size_t *walked, size_t *from_cache, size_t *probed)
{
	*walked = x->walked;
	*from_cache = x->from_cache;
	*probed = x->probed;
}

/* ---- by bundle id ---- */

/* Whether the Info.plist at dir/Contents/Info.plist (XML) says
 * CFBundleIdentifier want1 or want2. */
static bool plist_says(const char *dir, size_t dirlen, const char *want1, const char *want2)
{
	char path[4200];
	if (dirlen + sizeof "/Contents/Info.plist" > sizeof path)
		return false;
	snprintf(path, sizeof path, "%.*s/Contents/Info.plist", (int)dirlen, dir);
	char *buf;
	size_t len;
	if (kp_fs_read_file(path, (size_t)1 << 20, &buf, &len, NULL, NULL) != KP_OK)
		return false;
	static const char key[] = "<key>CFBundleIdentifier</key>";
	bool ok = false;
	const char *p = buf, *end = buf + len;
	const char *k = NULL;
	for (; p + sizeof key - 1 <= end; p++)
		if (memcmp(p, key, sizeof key - 1) == 0) {
			k = p + sizeof key - 1;
			break;
		}
	while (k && k < end && (*k == ' ' || *k == '\t' || *k == '\r' || *k == '\n'))
		k++;
	if (k && end - k > 8 && memcmp(k, "<string>", 8) == 0) {
		const char *v = k + 8, *ve = v;
		while (ve < end && *ve != '<')
			ve++;
		size_t n = (size_t)(ve - v);
		ok = (strlen(want1) == n && memcmp(v, want1, n) == 0) ||
		     (want2 && strlen(want2) == n && memcmp(v, want2, n) == 0);
	}
	free(buf);
	return ok;
}

static const char *find_last(const char *s, const char *w)
{
	const char *last = NULL;
	for (const char *p = strstr(s, w); p; p = strstr(p + 1, w))
		last = p;
	return last;
}

static bool folder_is(const char *dir, size_t dirlen, const char *name, size_t n)
{
	static const char ext[] = ".kext.dSYM";
	size_t en = sizeof ext - 1;
	if (dirlen < n + en + 1 || dir[dirlen - n - en - 1] != '/')
		return false;
	return memcmp(dir + dirlen - n - en, name, n) == 0 && memcmp(dir + dirlen - en, ext, en) == 0;
}

static bool bundle_matches(const entry *e, const char *bundle, const char *dsym_id)
{
	const char *d = find_last(e->path, "/Contents/Resources/DWARF/");
	if (d) {
		size_t dl = (size_t)(d - e->path);
		const char *dot = strrchr(bundle, '.');
		const char *last = dot ? dot + 1 : bundle;
		return plist_says(e->path, dl, dsym_id, bundle) ||
		       folder_is(e->path, dl, bundle, strlen(bundle)) ||
		       (*last && folder_is(e->path, dl, last, strlen(last)));
	}
	const char *m = find_last(e->path, "/Contents/MacOS/");
	return m && plist_says(e->path, (size_t)(m - e->path), bundle, NULL);
}

const char *kp__dsym_find_bundle(kp_dsym_index *x, const char *bundle)
{
	for (size_t ri = 0; ri < x->nroots; ri++)
		if (!x->roots[ri].walked)
			walk_root(x, ri);
	size_t n = strlen(bundle) + sizeof "com.apple.xcode.dsym.";
	char *dsym_id = malloc(n);
	if (!dsym_id)
		return NULL;
	snprintf(dsym_id, n, "com.apple.xcode.dsym.%s", bundle);
	const char *found = NULL;
	for (int pass = 0; pass < 2 && !found; pass++)
		for (size_t i = 0; i < x->nents && !found; i++) {
			const entry *e = &x->ents[i];
			if ((e->filetype == KP_MH_DSYM) == (pass == 0) && bundle_matches(e, bundle, dsym_id))
				found = e->path;
		}
	free(dsym_id);
	return found;
}
