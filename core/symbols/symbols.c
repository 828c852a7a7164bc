/* symbols.c: report frames -> dSYM lookups (panic-formats.md sections 3-4). */
#include "kp_symbols.h"
#include "dsym.h"
#include "symsrc.h"
#include "kp_macho.h"
#include "kp_fs.h"
#include "kp_vec.h"
#include "symcache.h"
#include "symmap.h"
#include "sigfile.h"
#include "sigmatch.h"
#include "kp_disasm.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct opened {
	char uuid[37];
	char *path;
	kp_macho *m;
	const kp_macho_slice *slice;
	kp_dwarf *d;
	kp_symcache *sc;      /* when set, answers instead of d (then d is NULL) */
	bool cache_wanted;    /* kp_symbols_cache_step should build sc */
	char cache_path[4200];
	uint64_t dwarf_size;  /* the key of that cache */
	int64_t dwarf_mtime_ns;
	bool failed;          /* could not be opened or verified: do not retry */
	char why[120];
	size_t dwarf_answers; /* lookups the DWARF answered (batch mode) */
	kp_symmap *map;       /* a kernelcache's <path>.symbols.json (ipsw), once tried */
	bool map_tried;
	kp_symmap *sig;       /* names from signature files (sigmatch.h), once tried */
	bool sig_tried;
	struct side_build *side;
} opened;

/* A symbol cache built on a thread of its own while lookups go on from the
 * DWARF (batch mode): the thread opens the file afresh (a kp_dwarf is not
 * shared between threads) and writes <cache dir>/symcache/<UUID>.kpsym
 * atomically; the lookup thread starts using it once done is set.  Owned
 * by its opened record; joined before that record goes. */
struct side_build {
	pthread_t thread;
	char *path, *dir;
	atomic_bool done;
	bool built;          /* set by the thread before done */
};

struct kp_symbols {
	kp_dsym_index *dx;
	kp__symsrc *src;      /* where files are looked for, in order (symsrc.h) */
	kp__symsrc_trail trail;   /* the last kp_symbols_where's */
	kp_symwhere_step *wsteps;
	const char **wremap;
	opened *open;
	size_t nopen, ocap;
	char **owned;         /* demangled symtab names */
	size_t nowned, owcap;
	char build[32];
	size_t dsyms_opened, symcaches_used, symcaches_built, dwarf_opened;
	char symcache_dir[4096]; /* "" : no symbol cache */
	int symcache_mode;       /* KPBROWSE_SYMCACHE: -1 never, 1 always, 0 by size */
	bool batch;              /* build wanted caches on a side thread (opts.batch) */
	/* the last kp_symbols_lookup_file: its path and arch as given and the
	 * record they resolved to, so a batch on one file stats it once */
	char *last_path, *last_arch;
	size_t last_open;
	char warning[300];       /* the first part of an opened file left out */
	char warning_file[4096]; /* and that file */
	kp_symbols_progress_fn progress;
	void *progress_ctx;
	/* signature files (sigfile.h): every *.json under the folders, read
	 * when an entry first wants names from them */
	struct sigent {
		char *path;
		int major;
		kp__sigfile *f;    /* NULL: not read yet, or left out */
		bool tried;
	} *sigs;
	size_t nsigs, sigcap;
	bool sigs_walked, sig_missing_said;
	unsigned darwin[3];      /* the report's Darwin version; [0] 0: unknown */
	kp__sigstats sigstats;   /* summed over the entries matched */
	struct warn {
		char *file, *msg;
	} *warns;                /* after warning[]: one per signature file and problem */
	size_t nwarns, wcap;
};

/* Keeps the first warning of an opened file (kp_macho_warning). */
static void note_warning(kp_symbols *s, const char *path, const kp_macho *m)
{
	const char *w = kp_macho_warning(m);
	if (w && !s->warning[0]) {
		snprintf(s->warning, sizeof s->warning, "%s", w);
		snprintf(s->warning_file, sizeof s->warning_file, "%s", path);
	}
}

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

kp_status kp_symbols_new(const kp_symbols_opts *opts, kp_symbols **out, kp_error *err)
{
	kp_symbols_opts none = {0};
	if (!opts)
		opts = &none;
	*out = NULL;
	kp_symbols *s = calloc(1, sizeof *s);
	if (!s)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	char cache[4096];
	if (opts->cache_dir)
		snprintf(cache, sizeof cache, "%s", opts->cache_dir);
	else
		default_cache_dir(cache, sizeof cache);
	snprintf(s->symcache_dir, sizeof s->symcache_dir, "%s", cache);   /* "" disables it */
	const char *mode = getenv("KPBROWSE_SYMCACHE");
	s->symcache_mode = !mode ? 0 : strcmp(mode, "never") == 0 ? -1 : strcmp(mode, "always") == 0;
	s->batch = opts->batch;
	s->dx = kp__dsym_new(cache);
	if (!s->dx) {
		free(s);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	for (size_t i = 0; i < opts->npaths; i++) {
		struct stat st;
		if (stat(opts->paths[i], &st) != 0) {
			kp_symbols_free(&s);
			return kp_error_set(err, KP_ERR_IO, 0, -1, "--dsym %s: no such file or folder",
			                    opts->paths[i]);
		}
	}
	for (size_t i = 0; i < opts->nkernelcaches; i++) {
		struct stat st;
		if (stat(opts->kernelcaches[i], &st) != 0) {
			kp_symbols_free(&s);
			return kp_error_set(err, KP_ERR_IO, 0, -1, "--kernelcache %s: no such file or folder",
			                    opts->kernelcaches[i]);
		}
	}
	for (size_t i = 0; i < opts->nsignatures; i++) {
		struct stat st;
		if (stat(opts->signatures[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
			kp_symbols_free(&s);
			return kp_error_set(err, KP_ERR_IO, 0, -1, "--signatures %s: no such folder",
			                    opts->signatures[i]);
		}
	}
	kp__symsrc_cfg sc = {.dsym_paths = opts->paths, .ndsym = opts->npaths,
	                     .kernelcache_paths = opts->kernelcaches, .nkernelcache = opts->nkernelcaches,
	                     .no_env = opts->no_env,
	                     .no_system = opts->no_system, .no_shell = opts->no_shell,
	                     .cache_dir = cache, .sig_paths = opts->signatures,
	                     .nsig = opts->nsignatures};
	if (kp__symsrc_new(&sc, s->dx, &s->src, err) != KP_OK) {
		kp_symbols_free(&s);
		return err ? err->code : KP_ERR_NOMEM;
	}
	*out = s;
	return KP_OK;
}

static void side_report(void *ctx, const kp_symcache_entry *e)
{
	struct side_build *b = ctx;
	if (e->status == KP_OK)
		b->built = true;
}

static void *side_run(void *arg)
{
	struct side_build *b = arg;
	kp_symcache_build_path(b->dir, b->path, side_report, b, NULL);
	atomic_store(&b->done, true);
	return NULL;
}

/* Starts building o's cache on a side thread; nothing happens when the
 * thread cannot start (the DWARF goes on answering). */
static void side_start(kp_symbols *s, opened *o)
{
	struct side_build *b = calloc(1, sizeof *b);
	if (!b)
		return;
	b->path = strdup(o->path);
	b->dir = strdup(s->symcache_dir);
	atomic_init(&b->done, false);
	if (!b->path || !b->dir || pthread_create(&b->thread, NULL, side_run, b) != 0) {
		free(b->path);
		free(b->dir);
		free(b);
		return;
	}
	o->side = b;
	o->cache_wanted = false;
}

/* Waits for o's side build, if any, and frees it; true when it wrote the
 * cache. */
static bool side_join(opened *o)
{
	struct side_build *b = o->side;
	if (!b)
		return false;
	pthread_join(b->thread, NULL);
	bool built = b->built;
	free(b->path);
	free(b->dir);
	free(b);
	o->side = NULL;
	return built;
}

/* Once o's side build is done: answers from the cache it wrote from now on
 * (the DWARF's decoded tables are freed). */
static void side_adopt(kp_symbols *s, opened *o)
{
	if (!o->side || !atomic_load(&o->side->done) || !side_join(o))
		return;
	kp_symcache_key key = {o->slice->uuid, o->slice->arch, o->dwarf_size, o->dwarf_mtime_ns};
	if (kp__symcache_open(o->cache_path, &key, &o->sc) == KP_OK) {
		s->symcaches_built++;
		kp_dwarf_close(&o->d);
	}
}

void kp_symbols_free(kp_symbols **sp)
{
	if (!sp || !*sp)
		return;
	kp_symbols *s = *sp;
	kp__dsym_save(s->dx);
	for (size_t i = 0; i < s->nopen; i++) {
		side_join(&s->open[i]);
		kp__symmap_free(&s->open[i].map);
		kp__symmap_free(&s->open[i].sig);
		kp_dwarf_close(&s->open[i].d);
		kp__symcache_close(&s->open[i].sc);
		kp_macho_close(&s->open[i].m);
		free(s->open[i].path);
	}
	free(s->open);
	for (size_t i = 0; i < s->nsigs; i++) {
		free(s->sigs[i].path);
		kp__sigfile_free(&s->sigs[i].f);
	}
	free(s->sigs);
	for (size_t i = 0; i < s->nwarns; i++) {
		free(s->warns[i].file);
		free(s->warns[i].msg);
	}
	free(s->warns);
	free(s->last_path);
	free(s->last_arch);
	for (size_t i = 0; i < s->nowned; i++)
		free(s->owned[i]);
	free(s->owned);
	kp__symsrc_free(&s->src);
	kp__symsrc_trail_free(&s->trail);
	free(s->wsteps);
	free(s->wremap);
	kp__dsym_free(s->dx);
	free(s);
	*sp = NULL;
}

/* The Darwin version of r: its kernel version string ("Darwin Kernel
 * Version 23.4.0: ..."), else its OS version (macOS 11+ and 10.x, iOS,
 * iPadOS, tvOS 13+, watchOS), else its build's leading digits (25B78:
 * 25); v[0] 0 when none says. */
static void darwin_of(const kp_report *r, unsigned v[3])
{
	static const struct { const char *name; int add; } os[] = {
		{"macOS ", 9}, {"Mac OS X ", 0}, {"OS X ", 0}, {"iPhone OS ", 6}, {"iOS ", 6},
		{"iPadOS ", 6}, {"tvOS ", 6}, {"watchOS ", 13},
	};
	v[0] = v[1] = v[2] = 0;
	const char *k = r->kernel_version ? strstr(r->kernel_version, "Darwin Kernel Version ") : NULL;
	if (k) {
		char num[32];
		k += strlen("Darwin Kernel Version ");
		size_t n = strspn(k, "0123456789.");
		if (n < sizeof num) {
			memcpy(num, k, n);
			num[n] = '\0';
			if (kp__darwin_parse(num, v))
				return;
		}
	}
	for (size_t i = 0; r->os_version && i < sizeof os / sizeof os[0]; i++) {
		const char *p = strstr(r->os_version, os[i].name);
		unsigned maj, min = 0;
		if (!p || sscanf(p + strlen(os[i].name), "%u.%u", &maj, &min) < 1)
			continue;
		if (os[i].add == 0 && maj == 10 && min >= 4)
			v[0] = min + 4;   /* Mac OS X 10.15: Darwin 19 */
		else if (os[i].add && maj >= (os[i].add == 9 ? 11u : os[i].add == 6 ? 13u : 6u))
			v[0] = maj + (unsigned)os[i].add;
		if (v[0])
			return;
	}
	const char *b = r->os_version ? strrchr(r->os_version, '(') : NULL;
	b = b ? b + 1 : r->build;
	if (b && b[0] >= '1' && b[0] <= '9' && b[1] >= '0' && b[1] <= '9' && b[2] >= 'A' && b[2] <= 'Z')
		v[0] = (unsigned)(b[0] - '0') * 10 + (unsigned)(b[1] - '0');
}

void kp_symbols_set_report(kp_symbols *s, const kp_report *r)
{
	/* the build is the parenthesised tail of os_version, e.g. "(25G83)" */
	const char *ov = r->os_version ? strrchr(r->os_version, '(') : NULL;
	if (ov) {
		size_t n = strcspn(ov + 1, ")");
		if (n < sizeof s->build) {
			memcpy(s->build, ov + 1, n);
			s->build[n] = '\0';
		}
	} else if (r->build && strlen(r->build) < sizeof s->build) {
		snprintf(s->build, sizeof s->build, "%s", r->build);
	}
	kp__symsrc_set_build(s->src, s->build);
	darwin_of(r, s->darwin);
}

void kp_symbols_set_progress(kp_symbols *s, kp_symbols_progress_fn fn, void *ctx)
{
	s->progress = fn;
	s->progress_ctx = ctx;
	kp__symsrc_set_progress(s->src, fn, ctx);
}

/* from as a prefix of file ending at a path component's end */
static bool map_prefix(const char *from, const char *to, const char *file, char *out, size_t size)
{
	if (!from || !to || !from[0])
		return false;
	size_t n = strlen(from);
	while (n > 1 && from[n - 1] == '/')
		n--;
	if (strncmp(file, from, n) != 0 || (file[n] != '/' && file[n] != '\0'))
		return false;
	size_t t = strlen(to);
	while (t > 1 && to[t - 1] == '/')
		t--;
	return snprintf(out, size, "%.*s%s", (int)t, to, file + n) < (int)size;
}

bool kp_symwhere_map_source(const kp_symwhere *w, const char *file, char *out, size_t size)
{
	if (!w || !file)
		return false;
	for (size_t i = 0; i < w->nremap; i++)
		if (map_prefix(w->remap[2 * i], w->remap[2 * i + 1], file, out, size))
			return true;
	return map_prefix(w->build_source_path, w->source_path, file, out, size);
}

const char *kp_symresult_source_label(const kp_symresult *r)
{
	static const struct { const char *source, *label; } labels[] = {
		{"symtab", "symbol table"}, {"map", "ipsw map"}, {"signature", "signature"},
		{"function-starts", "function starts"},
	};
	for (size_t i = 0; r->source && i < sizeof labels / sizeof labels[0]; i++)
		if (strcmp(r->source, labels[i].source) == 0)
			return labels[i].label;
	return NULL;
}

void kp_symbols_cancel(kp_symbols *s)
{
	kp__symsrc_cancel(s->src);
}

size_t kp_symbols_prefetch(kp_symbols *s, const char *const *uuids, size_t n)
{
	return kp__symsrc_prefetch(s->src, uuids, n);
}

/* Appends the image UUIDs of t's frames to v. */
static void frame_uuids(const kp_report *r, const kp_thread *t, const char ***v, size_t *n,
                        size_t *cap)
{
	for (size_t i = 0; i < t->nframes; i++) {
		const kp_frame *f = &t->frames[i];
		if (f->image < 0 || (size_t)f->image >= r->nimages || !r->images[f->image].uuid)
			continue;
		const char **slot = kp_vec_push((void **)v, n, cap, sizeof **v);
		if (slot)
			*slot = r->images[f->image].uuid;
	}
}

size_t kp_symbols_prefetch_thread(kp_symbols *s, const kp_report *r, const kp_thread *t)
{
	const char **v = NULL;
	size_t n = 0, cap = 0;
	frame_uuids(r, t, &v, &n, &cap);
	size_t got = n ? kp__symsrc_prefetch(s->src, v, n) : 0;
	free(v);
	return got;
}

size_t kp_symbols_prefetch_report(kp_symbols *s, const kp_report *r)
{
	const char **v = NULL;
	size_t n = 0, cap = 0;
	for (size_t p = 0; p < r->nprocesses; p++)
		for (size_t t = 0; t < r->processes[p].nthreads; t++)
			frame_uuids(r, &r->processes[p].threads[t], &v, &n, &cap);
	size_t got = n ? kp__symsrc_prefetch(s->src, v, n) : 0;
	free(v);
	return got;
}

/* The skip-th candidate for uuid (canonical) over every source in order. */
static const char *candidate(kp_symbols *s, const char *uuid, size_t skip)
{
	kp__symsrc_iter it;
	kp__symsrc_hit hit;
	kp__symsrc_iter_init(&it, uuid);
	for (size_t k = 0; kp__symsrc_next(s->src, &it, NULL, &hit); k++)
		if (k == skip)
			return hit.path;
	return NULL;
}

const char *kp_symbols_find(kp_symbols *s, const char *any_uuid)
{
	char uuid[37];
	if (!kp_uuid_canon(any_uuid, strlen(any_uuid), uuid))
		return NULL;
	return candidate(s, uuid, 0);
}

const char *kp_symbols_find_nth(kp_symbols *s, const char *any_uuid, size_t skip)
{
	char uuid[37];
	if (!kp_uuid_canon(any_uuid, strlen(any_uuid), uuid))
		return NULL;
	return candidate(s, uuid, skip);
}

/* Whether the file at path has a slice with uuid: its filetype and arch;
 * else why not, in why. */
static bool holds(const char *path, const char *uuid, uint32_t *filetype, const char **arch,
                  char *why, size_t wsize)
{
	kp_macho *m = NULL;
	kp_error err;
	if (kp_macho_open(path, &m, &err) != KP_OK) {
		snprintf(why, wsize, "not read: %.150s", err.msg);
		return false;
	}
	const kp_macho_slice *sl = kp_macho_find_uuid(m, uuid);
	if (sl) {
		*filetype = sl->filetype;
		*arch = sl->arch;   /* a static string */
	} else {
		snprintf(why, wsize, "refused: the file does not hold this UUID");
	}
	kp_macho_close(&m);
	return sl != NULL;
}

kp_status kp_symbols_where(kp_symbols *s, const char *any_uuid, kp_symwhere *out, kp_error *err)
{
	memset(out, 0, sizeof *out);
	char uuid[37];
	if (!kp_uuid_canon(any_uuid, strlen(any_uuid), uuid))
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "'%s' is not a UUID", any_uuid);
	kp__symsrc_trail_free(&s->trail);
	kp__symsrc_iter it;
	kp__symsrc_hit hit;
	kp__symsrc_iter_init(&it, uuid);
	while (kp__symsrc_next(s->src, &it, &s->trail, &hit)) {
		char why[200];
		uint32_t ft = 0;
		if (!holds(hit.path, uuid, &ft, &out->arch, why, sizeof why)) {
			if (s->trail.n)
				s->trail.v[s->trail.n - 1].found = false;
			kp__symsrc_trail_add(&s->trail, hit.name, hit.path, why, false);
			continue;
		}
		if (s->trail.v[s->trail.n - 1].source != hit.name || s->trail.v[s->trail.n - 1].found == false)
			kp__symsrc_trail_add(&s->trail, hit.name, hit.path, "found", true);
		out->path = hit.path;
		out->source = hit.name;
		out->is_dsym = ft == KP_MH_DSYM;
		out->exec = hit.exec;
		if (hit.answer) {
			const kp__dsym_answer *a = hit.answer;
			out->source_path = a->source_path;
			out->build_source_path = a->build_source_path;
			free(s->wremap);
			s->wremap = calloc(2 * a->nremaps + 1, sizeof *s->wremap);
			for (size_t i = 0; s->wremap && i < a->nremaps; i++) {
				s->wremap[2 * i] = a->remaps[i].from;
				s->wremap[2 * i + 1] = a->remaps[i].to;
			}
			out->remap = s->wremap;
			out->nremap = s->wremap ? a->nremaps : 0;
		}
		/* a dSYM: a binary with the same UUID from the same source, if any */
		for (int n = 0; out->is_dsym && !out->exec && n < 8 &&
		                kp__symsrc_next_here(s->src, &it, &hit); n++) {
			const char *a;
			if (holds(hit.path, uuid, &ft, &a, why, sizeof why) && ft != KP_MH_DSYM)
				out->exec = hit.path;
		}
		break;
	}
	free(s->wsteps);
	s->wsteps = calloc(s->trail.n ? s->trail.n : 1, sizeof *s->wsteps);
	if (!s->wsteps)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	for (size_t i = 0; i < s->trail.n; i++) {
		const kp__symsrc_step *st = &s->trail.v[i];
		s->wsteps[i] = (kp_symwhere_step){st->source, st->tried, st->said, st->found};
	}
	out->steps = s->wsteps;
	out->nsteps = s->trail.n;
	if (!out->path)
		return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "no file with UUID %s", uuid);
	return KP_OK;
}

static void open_dwarf(kp_symbols *s, opened *o)
{
	kp_error err;
	if (kp_dwarf_open(o->slice, &o->d, &err) != KP_OK) {
		o->d = NULL;   /* no DWARF (a plain binary): the symtab still serves */
		return;
	}
	kp_dwarf_use_symbols(o->d, o->m);
	s->dwarf_opened++;
}

/* Gives o (its slice chosen) what answers lookups: a valid symbol cache if
 * there is one, else the DWARF.  A cache is never built here (the first
 * answer must not wait for it): o is marked as wanting one when its DWARF
 * file is large (or KPBROWSE_SYMCACHE=always), and kp_symbols_cache_step
 * builds it off the critical path. */
static void attach(kp_symbols *s, opened *o)
{
	bool never = s->symcache_mode < 0, always = s->symcache_mode > 0;
	struct stat st;
	if (never || !s->symcache_dir[0] || !o->slice->has_uuid || stat(o->path, &st) != 0 ||
	    !kp__symcache_path(o->cache_path, sizeof o->cache_path, s->symcache_dir, o->slice->uuid)) {
		open_dwarf(s, o);
		return;
	}
	o->dwarf_size = (uint64_t)st.st_size;
	o->dwarf_mtime_ns = kp_fs_mtime_ns(&st);
	kp_symcache_key key = {o->slice->uuid, o->slice->arch, o->dwarf_size, o->dwarf_mtime_ns};
	if (kp__symcache_open(o->cache_path, &key, &o->sc) == KP_OK) {
		s->symcaches_used++;
		return;
	}
	open_dwarf(s, o);
	o->cache_wanted = o->d && (always || o->dwarf_size >= KP_SYMCACHE_MIN_SIZE);
}

/* Opens (once) the file holding uuid and picks the slice with that UUID. */
static opened *open_uuid(kp_symbols *s, const char *uuid)
{
	for (size_t i = 0; i < s->nopen; i++)
		if (strcmp(s->open[i].uuid, uuid) == 0)
			return &s->open[i];
	if (!kp_symbols_find(s, uuid))
		return NULL;
	if (!kp_vec_push((void **)&s->open, &s->nopen, &s->ocap, sizeof *s->open))
		return NULL;
	opened *o = &s->open[s->nopen - 1];
	memcpy(o->uuid, uuid, 37);
	const char *path;
	for (size_t skip = 0; (path = candidate(s, uuid, skip)) != NULL; skip++) {
		kp_error err;
		if (s->progress)
			s->progress(s->progress_ctx, path, 0, 1);
		if (kp_macho_open(path, &o->m, &err) != KP_OK) {
			snprintf(o->why, sizeof o->why, "%.110s", err.msg);
			continue;
		}
		note_warning(s, path, o->m);
		/* never trust the cache: confirm LC_UUID in the file itself */
		o->slice = kp_macho_find_uuid(o->m, uuid);
		if (!o->slice) {
			kp_macho_close(&o->m);
			continue;
		}
		o->path = strdup(path);
		s->dsyms_opened++;
		if (o->path)
			attach(s, o);
		else
			open_dwarf(s, o);
		if (s->progress)
			s->progress(s->progress_ctx, path, 1, 1);
		return o;
	}
	o->failed = true;
	return o;
}

/* A name found by matching rather than read from the binary: ipsw's map,
 * signatures, func_<start>. */
static bool guessed(const kp_symresult *r)
{
	return r->source && (strcmp(r->source, "map") == 0 || strcmp(r->source, "signature") == 0 ||
	                     strcmp(r->source, "function-starts") == 0);
}

bool kp_symresult_approximate(const kp_symresult *r)
{
	return r->source && (strcmp(r->source, "symtab") == 0 || guessed(r));
}

const char *kp_symbols_warning(const kp_symbols *s, const char **file)
{
	return kp_symbols_warning_at(s, 0, file);
}

const char *kp_symbols_warning_at(const kp_symbols *s, size_t i, const char **file)
{
	if (!s)
		return NULL;
	if (s->warning[0] && i-- == 0) {
		if (file)
			*file = s->warning_file;
		return s->warning;
	}
	if (i >= s->nwarns)
		return NULL;
	if (file)
		*file = s->warns[i].file;
	return s->warns[i].msg;
}

static bool arm64_like(const char *arch)
{
	return arch && strncmp(arch, "arm64", 5) == 0;
}

/* name as shown (demangled; a C symbol's one leading '_' dropped), owned
 * by s; NULL when out of memory. */
static char *owned_name(kp_symbols *s, const char *name)
{
	char *dm = kp_demangle(name);
	if (!dm)
		dm = strdup(name[0] == '_' ? name + 1 : name);
	if (dm && kp_vec_push((void **)&s->owned, &s->nowned, &s->owcap, sizeof *s->owned)) {
		s->owned[s->nowned - 1] = dm;
		return dm;
	}
	free(dm);
	return NULL;
}

/* o's symbol map, loaded on first use: <path>.symbols.json beside a
 * kernelcache (an entry of a fileset), as ipsw writes it.  A broken one is
 * a warning; the cache still serves. */
static kp_symmap *map_of(kp_symbols *s, opened *o)
{
	if (o->map_tried || !o->slice->fileset_id || !o->path)
		return o->map;
	o->map_tried = true;
	char p[4200];
	snprintf(p, sizeof p, "%s.symbols.json", o->path);
	kp_error err;
	kp_status st = kp__symmap_load(p, &o->map, &err);
	if (st != KP_OK && st != KP_ERR_NOTFOUND && !(st == KP_ERR_IO && access(p, F_OK) != 0) &&
	    !s->warning[0]) {
		char m[300];
		snprintf(s->warning, sizeof s->warning, "symbol map left out: %s",
		         kp_error_format(&err, m, sizeof m));
		snprintf(s->warning_file, sizeof s->warning_file, "%.4000s", p);
	}
	return o->map;
}

/* A kernelcache's ipsw map, or the names its signatures gave, name what
 * its symbol table does not: used when the name starts closer to addr than
 * the symbol's (sym_start, when named) and not before addr's own function
 * (fstart; 0 unknown), in a section of this entry. */
static bool from_map(kp_symbols *s, opened *o, const kp_symmap *map, const char *source,
                     uint64_t addr, uint64_t sym_start, bool named, uint64_t fstart,
                     kp_symresult *out)
{
	const char *mname, *sg, *sc;
	const unsigned char *sd;
	uint64_t mstart, ssz, sst;
	if (!map || !kp__symmap_lookup(map, addr, &mname, &mstart) || (named && mstart <= sym_start) ||
	    mstart < fstart || !kp_macho_section_at(o->slice, mstart, &sg, &sc, &sd, &ssz, &sst))
		return false;
	char *dm = owned_name(s, mname);
	if (!dm)
		return false;
	out->frames[0] = (kp_symframe){.function = dm};
	out->nframes = 1;
	out->source = source;
	snprintf(out->msg, sizeof out->msg, "+0x%llx", (unsigned long long)(addr - mstart));
	return true;
}

static void add_warning(kp_symbols *s, const char *file, const char *msg)
{
	struct warn *w = kp_vec_push((void **)&s->warns, &s->nwarns, &s->wcap, sizeof *w);
	if (!w)
		return;
	w->file = strdup(file);
	w->msg = strdup(msg);
	if (!w->file || !w->msg) {
		free(w->file);
		free(w->msg);
		s->nwarns--;
	}
}

static void sig_warn(void *ctx, const char *file, const char *msg)
{
	add_warning(ctx, file, msg);
}

static void sig_found(void *ctx, const char *path, int major)
{
	kp_symbols *s = ctx;
	struct sigent *e = kp_vec_push((void **)&s->sigs, &s->nsigs, &s->sigcap, sizeof *e);
	if (e && !(*e = (struct sigent){.path = strdup(path), .major = major}).path)
		s->nsigs--;
}

/* The signature files for target, read on first use: those whose folder
 * is the report's Darwin major (or names none) when it is known, all
 * otherwise; then those for target whose version range holds the Darwin
 * version.  Of several, those of the folder of the report's major are
 * kept (unknown: of the newest folder).  *n of them into v. */
static size_t sig_files(kp_symbols *s, const char *target, const kp__sigfile **v, size_t max)
{
	size_t ndirs = 0;
	const char *const *dirs = kp__symsrc_sigdirs(s->src, &ndirs);
	if (!s->sigs_walked) {
		s->sigs_walked = true;
		for (size_t i = 0; i < ndirs; i++) {
			kp_error err;
			if (kp__sigdir_walk(dirs[i], sig_found, s, &err) != KP_OK)
				add_warning(s, dirs[i], "signature folder left out: not a folder that can be read");
		}
	}
	unsigned maj = s->darwin[0];
	bool near = false;
	int newest = -1;
	size_t n = 0;
	for (size_t i = 0; i < s->nsigs && n < max; i++) {
		struct sigent *e = &s->sigs[i];
		if (maj && e->major >= 0 && (unsigned)e->major != maj)
			continue;
		if (!e->tried) {
			kp_error err;
			e->tried = true;
			if (kp__sigfile_load(e->path, e->major, &e->f, &err) != KP_OK) {
				char m[300], msg[400];
				snprintf(msg, sizeof msg, "signature file left out: %s", kp_error_format(&err, m, sizeof m));
				add_warning(s, e->path, msg);
			}
		}
		if (!e->f || strcmp(e->f->target, target) != 0 || (maj && !kp__sigfile_covers(e->f, s->darwin)))
			continue;
		near |= maj && e->major >= 0;
		newest = e->major > newest ? e->major : newest;
		v[n++] = e->f;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i]->dir_major < 0 || (near ? (unsigned)v[i]->dir_major == maj : v[i]->dir_major == newest))
			v[k++] = v[i];
	return k;
}

/* o's names from signature files, found on first use (sigmatch.h): a
 * kernelcache entry's by its id, a plain kernel (MH_EXECUTE) as
 * com.apple.kernel.  Without Capstone that says so once. */
static kp_symmap *sig_of(kp_symbols *s, opened *o)
{
	size_t ndirs = 0;
	const char *const *dirs = kp__symsrc_sigdirs(s->src, &ndirs);
	if (o->sig_tried || !ndirs)
		return o->sig;
	o->sig_tried = true;
	const char *target = o->slice->fileset_id ? o->slice->fileset_id
	                     : o->slice->filetype == 2 ? "com.apple.kernel" : NULL;
	if (!target)
		return NULL;
	if (!kp_disasm_available()) {
		if (!s->sig_missing_said)
			add_warning(s, dirs[0], "signatures left out: this kpbrowse was built without Capstone, "
			                        "which matching them needs");
		s->sig_missing_said = true;
		return NULL;
	}
	const kp__sigfile *files[256];
	size_t n = sig_files(s, target, files, sizeof files / sizeof files[0]);
	kp_error err;
	kp__sigstats st;
	if (n && kp__sig_match(o->m, o->slice, files, n, sig_warn, s, &o->sig, &st, &err) != KP_OK) {
		char m[300], msg[400];
		snprintf(msg, sizeof msg, "signatures for %.80s left out: %s", target,
		         kp_error_format(&err, m, sizeof m));
		add_warning(s, o->path, msg);
	} else if (n) {
		s->sigstats.anchors_found += st.anchors_found;
		s->sigstats.candidates += st.candidates;
		s->sigstats.confirmed += st.confirmed;
		s->sigstats.named += st.named;
	}
	return o->sig;
}

/* Looks addr up in o: DWARF first, then the nearest preceding symbol. */
static kp_sym_status look(kp_symbols *s, opened *o, uint64_t addr, kp_symresult *out)
{
	out->path = o->path;
	if (kp_macho_damaged(o->m)) {
		snprintf(out->msg, sizeof out->msg, "%.100s changed while in use (truncated): reopen it",
		         o->path);
		return out->status = KP_SYM_ERROR;
	}
	if (o->side)
		side_adopt(s, o);
	if (o->sc) {
		size_t n = 0;
		if (kp__symcache_lookup(o->sc, addr, out->frames, KP_SYM_MAX_FRAMES, &n)) {
			if (n > 0 && out->frames[n - 1].function) {
				out->nframes = n;
				out->source = out->frames[0].file ? "dwarf" : "symtab";
				return out->status = KP_SYM_OK;
			}
		} else {
			/* a corrupt entry, or the file truncated under us: never
			 * trusted again, the DWARF answers */
			kp__symcache_close(&o->sc);
			open_dwarf(s, o);
			o->cache_wanted = o->d != NULL;   /* built anew when idle */
			memset(out->frames, 0, sizeof out->frames);
			return look(s, o, addr, out);
		}
	} else if (o->d) {
		kp_error err;
		size_t n = 0;
		kp_status st = kp_dwarf_lookup(o->d, addr, out->frames, KP_SYM_MAX_FRAMES, &n, &err);
		if (kp_macho_damaged(o->m))
			return look(s, o, addr, out);   /* says so, above */
		if (st != KP_OK) {
			snprintf(out->msg, sizeof out->msg, "%.150s", err.msg);
			return out->status = KP_SYM_ERROR;
		}
		if (s->batch && o->cache_wanted && ++o->dwarf_answers >= KP_SYMCACHE_BATCH)
			side_start(s, o);
		if (n > 0 && out->frames[n - 1].function) {
			out->nframes = n;
			/* a name without a line comes from the symbol table (padding) */
			out->source = out->frames[0].file ? "dwarf" : "symtab";
			return out->status = KP_SYM_OK;
		}
	}
	const char *name;
	uint64_t off, fstart;
	bool named = kp_macho_symbol(o->m, o->slice, addr, &name, &off);
	bool has_start = kp_macho_function_start(o->m, o->slice, addr, &fstart);
	/* A kernelcache's ipsw map names what its symbol table does not: used
	 * when its name starts closer to addr than the symbol's (and not
	 * before addr's own function). */
	if (from_map(s, o, map_of(s, o), "map", addr, named ? addr - off : 0, named, has_start ? fstart : 0, out) ||
	    from_map(s, o, sig_of(s, o), "signature", addr, named ? addr - off : 0, named, has_start ? fstart : 0, out))
		return out->status = KP_SYM_OK;
	/* A stripped binary (a release kernelcache) names few functions: the
	 * nearest symbol may belong to a function before addr's own, whose
	 * start LC_FUNCTION_STARTS knows.  That function is func_<start>. */
	if (has_start && (!named || addr - off < fstart)) {
		char *fn = malloc(32);
		if (fn && kp_vec_push((void **)&s->owned, &s->nowned, &s->owcap, sizeof *s->owned)) {
			snprintf(fn, 32, "func_%llx", (unsigned long long)fstart);
			s->owned[s->nowned - 1] = fn;
			out->frames[0] = (kp_symframe){.function = fn};
			out->nframes = 1;
			out->source = "function-starts";
			snprintf(out->msg, sizeof out->msg, "+0x%llx", (unsigned long long)(addr - fstart));
			return out->status = KP_SYM_OK;
		}
		free(fn);
	}
	if (named) {
		char *dm = owned_name(s, name);
		out->frames[0] = (kp_symframe){.function = dm ? dm : name};
		out->nframes = 1;
		out->source = "symtab";
		snprintf(out->msg, sizeof out->msg, "+0x%llx", (unsigned long long)off);
		return out->status = KP_SYM_OK;
	}
	snprintf(out->msg, sizeof out->msg, "no symbol at 0x%llx in %s", (unsigned long long)addr,
	         o->path);
	return out->status = KP_SYM_NOT_FOUND;
}

kp_sym_status kp_symbols_frame(kp_symbols *s, const kp_report *r, const kp_thread *t,
                               size_t i, kp_symresult *out)
{
	memset(out, 0, sizeof *out);
	const kp_frame *f = i < t->nframes ? &t->frames[i] : NULL;
	if (!f || f->image < 0 || (size_t)f->image >= r->nimages || !f->has_offset) {
		snprintf(out->msg, sizeof out->msg, "no image");
		return out->status = KP_SYM_NO_IMAGE;
	}
	const kp_image *im = &r->images[f->image];
	out->uuid = im->uuid;
	if (!im->uuid) {
		snprintf(out->msg, sizeof out->msg, "image has no UUID");
		return out->status = KP_SYM_NO_UUID;
	}
	opened *o = open_uuid(s, im->uuid);
	if (!o || o->failed) {
		snprintf(out->msg, sizeof out->msg, "no dSYM for %s", im->uuid);
		return out->status = KP_SYM_NO_DSYM;
	}
	/* a user image's (P, S, C) offset counts from its Mach header, __TEXT */
	bool user_image = im->kind == 'P' || im->kind == 'S' || im->kind == 'C';
	uint64_t seg = user_image && o->slice && o->slice->has_text ? o->slice->text_vmaddr
	                                                            : kp_macho_seg(o->slice);
	uint64_t addr = seg + f->offset;
	out->symbol_address = addr;
	/* a caller frame's return address points after the call: step back into it */
	uint64_t back = 0;
	if (i > 0)
		back = arm64_like(o->slice->arch) || (r->arch == KP_ARCH_ARM64 && !o->slice->arch) ? 4 : 1;
	out->has_lookup = true;
	out->lookup_address = addr >= back ? addr - back : addr;
	return look(s, o, out->lookup_address, out);
}

/* A .dSYM bundle (any folder with Contents/Resources/DWARF/) stands for the
 * one DWARF file inside it. */
static const char *resolve_bundle(const char *path, char *buf, size_t size)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return path;
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/Contents/Resources/DWARF", path);
	DIR *d = opendir(dir);
	if (!d)
		return path;
	struct dirent *de;
	const char *found = path;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.') {
			if (strlen(dir) + strlen(de->d_name) + 2 <= size) {
				memcpy(buf, dir, strlen(dir));
				buf[strlen(dir)] = '/';
				strcpy(buf + strlen(dir) + 1, de->d_name);
				found = buf;
			}
			break;
		}
	closedir(d);
	return found;
}

/* The record of the file at path (a DWARF or Mach-O file, or a .dSYM
 * bundle) with arch's slice, opened on first use. */
static kp_status file_record(kp_symbols *s, const char *path, const char *arch, opened **out,
                             kp_error *err)
{
	char dwarf[4096];
	path = resolve_bundle(path, dwarf, sizeof dwarf);
	/* reuse an opened file of the same path and arch */
	for (size_t i = 0; i < s->nopen; i++)
		if (s->open[i].path && strcmp(s->open[i].path, path) == 0 &&
		    (!arch || strcmp(s->open[i].slice->arch, arch) == 0)) {
			*out = &s->open[i];
			return KP_OK;
		}
	kp_macho *m = NULL;
	kp_status st = kp_macho_open(path, &m, err);
	if (st != KP_OK)
		return st;
	note_warning(s, path, m);
	const kp_macho_slice *sl = kp_macho_find_arch(m, arch);
	if (!sl) {
		kp_macho_close(&m);
		if (arch)
			return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "no %s slice", arch);
		return kp_error_set(err, KP_ERR_USAGE, 0, -1,
		                    "a universal file: choose a slice with --arch");
	}
	if (!kp_vec_push((void **)&s->open, &s->nopen, &s->ocap, sizeof *s->open)) {
		kp_macho_close(&m);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	opened *o = &s->open[s->nopen - 1];
	o->m = m;
	o->slice = sl;
	o->path = strdup(path);
	/* keyed by path only: a lookup by UUID must not find this record */
	snprintf(o->uuid, sizeof o->uuid, "file");
	if (o->path)
		attach(s, o);
	else
		open_dwarf(s, o);
	*out = o;
	return KP_OK;
}

static bool same_opt(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

kp_status kp_symbols_lookup_file(kp_symbols *s, const char *path, const char *arch,
                                 uint64_t addr, kp_symresult *out, kp_error *err)
{
	memset(out, 0, sizeof *out);
	opened *o = NULL;
	if (s->last_path && strcmp(s->last_path, path) == 0 && same_opt(s->last_arch, arch) &&
	    s->last_open < s->nopen) {
		o = &s->open[s->last_open];
	} else {
		kp_status st = file_record(s, path, arch, &o, err);
		if (st != KP_OK)
			return st;
		free(s->last_path);
		free(s->last_arch);
		s->last_path = strdup(path);
		s->last_arch = arch ? strdup(arch) : NULL;
		s->last_open = (size_t)(o - s->open);
		if (arch && !s->last_arch) {
			free(s->last_path);
			s->last_path = NULL;   /* no memo: the next call resolves again */
		}
	}
	out->has_lookup = true;
	out->lookup_address = out->symbol_address = addr;
	look(s, o, addr, out);
	return out->status == KP_SYM_ERROR
	               ? kp_error_set(err, KP_ERR_FORMAT, 0, -1, "%s", out->msg) : KP_OK;
}

kp_symbols_stats kp_symbols_get_stats(const kp_symbols *s)
{
	kp_symbols_stats st = {0};
	kp__dsym_stats(s->dx, &st.roots_walked, &st.roots_from_cache, &st.files_probed);
	st.dsyms_opened = s->dsyms_opened;
	st.symcaches_used = s->symcaches_used;
	st.symcaches_built = s->symcaches_built;
	st.dwarf_opened = s->dwarf_opened;
	return st;
}

const char *kp_symbols_sig_name(void *ctx, const kp_report *r, const kp_thread *t, size_t i)
{
	kp_symbols *s = ctx;
	kp_symresult res;
	kp_symbols_set_report(s, r);
	/* a guessed name would change the group key once a better source
	 * (a dSYM) names the frame: such a frame keys by its offset instead */
	if (kp_symbols_frame(s, r, t, i, &res) != KP_SYM_OK || res.nframes == 0 || guessed(&res))
		return NULL;
	return res.frames[res.nframes - 1].function;
}

/* ---- the symbol cache, built off the critical path ------------------------ */

void kp_symbols_cache_dir(const kp_symbols *s, char *buf, size_t size)
{
	if (s)
		snprintf(buf, size, "%s", s->symcache_dir);
	else
		default_cache_dir(buf, size);
}

static opened *pending(const kp_symbols *s)
{
	for (size_t i = 0; i < s->nopen; i++)
		if (s->open[i].cache_wanted && s->open[i].d && !s->open[i].sc)
			return &s->open[i];
	return NULL;
}

const char *kp_symbols_cache_pending(const kp_symbols *s)
{
	const opened *o = pending(s);
	return o ? o->path : NULL;
}

kp_status kp_symbols_cache_step(kp_symbols *s, const kp_symbols_cache_cb *cb, kp_error *err)
{
	opened *o = pending(s);
	if (!o)
		return KP_OK;
	kp_symcache_key key = {o->slice->uuid, o->slice->arch, o->dwarf_size, o->dwarf_mtime_ns};
	kp_symcache_cb scb = {cb ? cb->progress : NULL, cb ? cb->cancel : NULL, cb ? cb->ctx : NULL};
	void *img = NULL;
	size_t len = 0;
	kp_status st = kp__symcache_build(o->d, o->m, o->slice, &key, o->path, &scb, &img, &len, err);
	if (st != KP_OK) {
		bool cancelled = cb && cb->cancel && cb->cancel(cb->ctx);
		o->cache_wanted = cancelled;   /* a cancelled build is tried again later */
		return st;
	}
	o->cache_wanted = false;
	/* a read-only cache folder still gets the speed-up for this process */
	kp__symcache_write(o->cache_path, img, len, NULL);
	if (kp__symcache_open_mem(img, len, &key, &o->sc) == KP_OK) {
		s->symcaches_built++;
		kp_dwarf_close(&o->d);   /* its decoded tables are no longer needed */
	}
	return KP_OK;
}

/* ---- kexts placed by the user (--load) ---- */

static const char *bundle_in(kp_symbols *s, const char *bundle)
{
	const char *p = kp__dsym_find_bundle(s->dx, bundle);
	if (!p) {
		kp__symsrc_add_all_roots(s->src);
		p = kp__dsym_find_bundle(s->dx, bundle);
	}
	return p;
}

const char *kp_symbols_find_bundle(kp_symbols *s, const char *bundle, const char *arch, char uuid[37])
{
	const char *p = bundle_in(s, bundle);
	kp_macho *m = NULL;
	if (!p || kp_macho_open(p, &m, NULL) != KP_OK)
		return NULL;
	const kp_macho_slice *sl = arch ? kp_macho_find_arch(m, arch) : NULL;
	if (!sl && arch && strcmp(arch, "arm64") == 0)
		sl = kp_macho_find_arch(m, "arm64e");
	if (!sl && kp_macho_nslices(m) == 1)
		sl = kp_macho_slice_at(m, 0);
	bool ok = sl && sl->has_uuid;
	if (ok)
		memcpy(uuid, sl->uuid, 37);
	kp_macho_close(&m);
	return ok ? p : NULL;
}

bool kp_symbols_parse_load(const char *spec, char *bundle, size_t size, uint64_t *addr)
{
	const char *eq = strrchr(spec, '=');
	if (!eq || eq == spec || (size_t)(eq - spec) >= size)
		return false;
	for (const char *p = spec; p < eq; p++)
		if (*p <= ' ' || *p == '/' || (unsigned char)*p >= 0x7f)
			return false;
	const char *v = eq + 1;
	if (v[0] != '0' || (v[1] != 'x' && v[1] != 'X') || !kp_parse_u64(v, strlen(v), addr))
		return false;
	memcpy(bundle, spec, (size_t)(eq - spec));
	bundle[eq - spec] = '\0';
	return true;
}

kp_status kp_symbols_apply_load(kp_symbols *s, kp_report *r, const char *spec, bool *found,
                                kp_error *err)
{
	char bundle[256], uuid[37];
	uint64_t addr;
	*found = false;
	if (!kp_symbols_parse_load(spec, bundle, sizeof bundle, &addr))
		return kp_error_set(err, KP_ERR_USAGE, 0, -1,
		                    "--load %s: not BUNDLE_ID=0xADDR (as kextstat prints them)", spec);
	const char *arch = r->arch == KP_ARCH_UNKNOWN ? NULL : kp_arch_name(r->arch);
	*found = s && kp_symbols_find_bundle(s, bundle, arch, uuid);
	if (!kp_report_set_load(r, bundle, addr, *found ? uuid : NULL))
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	return KP_OK;
}
