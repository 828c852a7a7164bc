/* symbols.c: report frames -> dSYM lookups (panic-formats.md sections 3-4):
 * the kp_symbols handle, the records of opened files and their symbol
 * caches (found through symbols_sources.c), a frame or a file address to
 * the record that names it (symbols_look.c), kexts placed by --load. */
#include "symbols_model.h"
#include "kp_macho.h"
#include "kp_fs.h"
#include "kp_vec.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Keeps the first warning of an opened file (kp_macho_warning). */
static void note_warning(kp_symbols *s, const char *path, const kp_macho *m)
{
	const char *w = kp_macho_warning(m);
	if (w && !s->warning[0]) {
		snprintf(s->warning, sizeof s->warning, "%s", w);
		snprintf(s->warning_file, sizeof s->warning_file, "%s", path);
	}
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
		kp_symbols_cache_dir(NULL, cache, sizeof cache);
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

void kp_symbols_free(kp_symbols **sp)
{
	if (!sp || !*sp)
		return;
	kp_symbols *s = *sp;
	kp__dsym_save(s->dx);
	for (size_t i = 0; i < s->nopen; i++) {
		kp__symbols_side_join(&s->open[i]);
		if (!s->open[i].map_borrowed)
			kp__symmap_free(&s->open[i].map);
		kp__symmap_free(&s->open[i].sig);
		kp_dwarf_close(&s->open[i].d);
		kp__symcache_close(&s->open[i].sc);
		free(s->open[i].path);
	}
	/* after every record that may borrow one is done with it */
	for (size_t i = 0; i < s->nopen; i++)
		if (!s->open[i].borrowed)
			kp_macho_close(&s->open[i].m);
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
	free(s->named);
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

/* Gives o (its slice chosen) what answers lookups: a valid symbol cache if
 * there is one, else the DWARF.  A cache is never built here (the first
 * answer must not wait for it): o is marked as wanting one when its DWARF
 * file is large (or KPBROWSE_SYMCACHE=always), and kp_symbols_cache_step
 * builds it off the critical path. */
static void attach(kp_symbols *s, kp__opened *o)
{
	bool never = s->symcache_mode < 0, always = s->symcache_mode > 0;
	struct stat st;
	if (never || !s->symcache_dir[0] || !o->slice->has_uuid || stat(o->path, &st) != 0 ||
	    !kp__symcache_path(o->cache_path, sizeof o->cache_path, s->symcache_dir, o->slice->uuid)) {
		kp__symbols_open_dwarf(s, o);
		return;
	}
	o->dwarf_size = (uint64_t)st.st_size;
	o->dwarf_mtime_ns = kp_fs_mtime_ns(&st);
	kp_symcache_key key = {o->slice->uuid, o->slice->arch, o->dwarf_size, o->dwarf_mtime_ns};
	if (kp__symcache_open(o->cache_path, &key, &o->sc) == KP_OK) {
		s->symcaches_used++;
		return;
	}
	kp__symbols_open_dwarf(s, o);
	o->cache_wanted = o->d && (always || o->dwarf_size >= KP_SYMCACHE_MIN_SIZE);
}

/* Opens (once) the file holding uuid and picks the slice with that UUID. */
static kp__opened *open_uuid(kp_symbols *s, const char *uuid)
{
	for (size_t i = 0; i < s->nopen; i++)
		if (strcmp(s->open[i].uuid, uuid) == 0)
			return &s->open[i];
	if (!kp_symbols_find(s, uuid))
		return NULL;
	if (!kp_vec_push((void **)&s->open, &s->nopen, &s->ocap, sizeof *s->open))
		return NULL;
	kp__opened *o = &s->open[s->nopen - 1];
	memcpy(o->uuid, uuid, 37);
	const char *path;
	for (size_t skip = 0; (path = kp__symbols_candidate(s, uuid, skip)) != NULL; skip++) {
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
			kp__symbols_open_dwarf(s, o);
		if (s->progress)
			s->progress(s->progress_ctx, path, 1, 1);
		return o;
	}
	o->failed = true;
	return o;
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
	kp__opened *o = open_uuid(s, im->uuid);
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
	return kp__symbols_look(s, o, out->lookup_address, out);
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
static kp_status file_record(kp_symbols *s, const char *path, const char *arch, kp__opened **out,
                             kp_error *err)
{
	char dwarf[4096];
	path = resolve_bundle(path, dwarf, sizeof dwarf);
	/* reuse an opened file of the same path and arch */
	for (size_t i = 0; i < s->nopen; i++)
		if (s->open[i].path && !s->open[i].borrowed && strcmp(s->open[i].path, path) == 0 &&
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
	kp__opened *o = &s->open[s->nopen - 1];
	o->m = m;
	o->slice = sl;
	o->path = strdup(path);
	/* keyed by path only: a lookup by UUID must not find this record */
	snprintf(o->uuid, sizeof o->uuid, "file");
	if (o->path)
		attach(s, o);
	else
		kp__symbols_open_dwarf(s, o);
	*out = o;
	return KP_OK;
}

static bool same_opt(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

/* The record of entry, a kernelcache entry of the file record s->open[c]
 * (kp_macho_entry_at), made on first use: it borrows that record's
 * kp_macho and answers as a frame of that entry does in `show` (symbol
 * table, ipsw map, signatures, function starts).  NULL when out of memory. */
static kp__opened *entry_record(kp_symbols *s, size_t c, const kp_macho_slice *entry)
{
	for (size_t i = 0; i < s->nopen; i++)
		if (s->open[i].borrowed && s->open[i].slice == entry)
			return &s->open[i];
	char *path = s->open[c].path ? strdup(s->open[c].path) : NULL;
	if (!path || !kp_vec_push((void **)&s->open, &s->nopen, &s->ocap, sizeof *s->open)) {
		free(path);
		return NULL;
	}
	kp__opened *o = &s->open[s->nopen - 1];
	o->m = s->open[c].m;
	o->slice = entry;
	o->path = path;
	o->borrowed = true;
	/* keyed by path only: a lookup by UUID must not find this record */
	snprintf(o->uuid, sizeof o->uuid, "file");
	attach(s, o);
	return o;
}

kp_status kp_symbols_lookup_file(kp_symbols *s, const char *path, const char *arch,
                                 uint64_t addr, kp_symresult *out, kp_error *err)
{
	memset(out, 0, sizeof *out);
	kp__opened *o = NULL;
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
	/* a whole kernelcache: the entry whose segments hold addr answers */
	const kp_macho_slice *entry = kp_macho_entry_at(o->m, addr);
	if (entry && entry != o->slice) {
		kp__opened *eo = entry_record(s, (size_t)(o - s->open), entry);
		if (eo)
			o = eo;
	}
	out->has_lookup = true;
	out->lookup_address = out->symbol_address = addr;
	kp__symbols_look(s, o, addr, out);
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
	/* the thread's images asked at once, within one deadline, before its
	 * first frame waits on one of them (`index`) */
	if (i == 0 || t != s->sig_thread) {
		s->sig_thread = t;
		kp_symbols_check_named(s, r, false);   /* `index`: an unreadable --dsym said */
		kp_symbols_prefetch_thread(s, r, t);
	}
	/* a guessed name would change the group key once a better source
	 * (a dSYM) names the frame, and a kernelcache's names are on some Macs
	 * only (the running one's, a kept copy): such a frame keys by its
	 * offset instead, the same on every Mac of a lab */
	if (kp_symbols_frame(s, r, t, i, &res) != KP_SYM_OK || res.nframes == 0 ||
	    kp__symresult_guessed(&res) || res.kernelcache)
		return NULL;
	return res.frames[res.nframes - 1].function;
}

/* ---- the symbol cache, built off the critical path ------------------------ */

static kp__opened *pending(const kp_symbols *s)
{
	for (size_t i = 0; i < s->nopen; i++)
		if (s->open[i].cache_wanted && s->open[i].d && !s->open[i].sc)
			return &s->open[i];
	return NULL;
}

const char *kp_symbols_cache_pending(const kp_symbols *s)
{
	const kp__opened *o = pending(s);
	return o ? o->path : NULL;
}

kp_status kp_symbols_cache_step(kp_symbols *s, const kp_symbols_cache_cb *cb, kp_error *err)
{
	kp__opened *o = pending(s);
	if (!o)
		return KP_OK;
	kp_symcache_key key = {o->slice->uuid, o->slice->arch, o->dwarf_size, o->dwarf_mtime_ns};
	kp_symcache_cb scb = {cb ? cb->progress : NULL, cb ? cb->cancel : NULL, cb ? cb->ctx : NULL, 0};
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
