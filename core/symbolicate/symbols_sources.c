/* symbols_sources.c: a UUID's files through the symbol-source table
 * (symsrc.h): the candidates in order, `kpbrowse symbols where`'s trail and
 * the source remapping a dsymForUUID answer gives, and the symbol-server
 * prefetch of a report's images. */
#include "symbols_model.h"
#include "kp_lex.h"
#include "kp_macho.h"
#include "kp_disasm.h"
#include "kp_strbuf.h"
#include "kp_vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* ---- what is wrong with a source the user named (kp_symbols_check_named) ---- */

struct named_uuids {
	const kp_report *r;
	bool match;
	kp_sb shown;          /* the first few UUIDs, for the warning */
	size_t n;
};

static void named_uuid(void *ctx, const char *uuid)
{
	struct named_uuids *u = ctx;
	for (size_t i = 0; i < u->r->nimages && !u->match; i++) {
		const char *iu = u->r->images[i].uuid;
		char c[37];
		u->match = iu && kp_uuid_canon(iu, strlen(iu), c) && strcmp(c, uuid) == 0;
	}
	if (u->n < 3) {
		kp_sb_str(&u->shown, u->n ? ", " : "");
		kp_sb_str(&u->shown, uuid);
	} else if (u->n == 3) {
		kp_sb_str(&u->shown, ", ...");
	}
	u->n++;
}

void kp_symbols_check_named(kp_symbols *s, const kp_report *r, bool other_build)
{
	bool any = false;
	for (size_t i = 0; r && i < r->nimages && !any; i++)
		any = r->images[i].uuid != NULL;
	if (!any)
		return;
	size_t total = 0;
	const char *path, *what;
	bool outright;
	while (kp__symsrc_named_root(s->src, total, &path, &what, &outright))
		total++;
	if (total > s->nnamed) {
		struct named *v = realloc(s->named, total * sizeof *v);
		if (!v)
			return;
		memset(v + s->nnamed, 0, (total - s->nnamed) * sizeof *v);
		s->named = v;
		s->nnamed = total;
	}
	for (size_t i = 0; kp__symsrc_named_root(s->src, i, &path, &what, &outright); i++) {
		struct named *nm = &s->named[i];
		struct stat st;
		bool file = stat(path, &st) == 0 && S_ISREG(st.st_mode);
		/* another build: a path named for this run, or one configured file;
		 * a configured folder is a library of many builds */
		bool build = other_build && (outright || file);
		if (nm->said || (nm->readable && !build))
			continue;   /* a scan asks per thread: a readable path is not walked over again */
		if (!outright && !file && (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)))
			continue;   /* a configured folder that is not there: the trail says "missing" */
		struct named_uuids u = {.r = r};
		kp__dsym_root_uuids(s->dx, path, named_uuid, &u);
		nm->readable = u.n > 0;
		char msg[600];
		msg[0] = '\0';
		if (u.n == 0 && file) {
			/* the parser says why it holds no UUID it could read */
			kp_macho *m = NULL;
			kp_error err = {0};
			if (kp_macho_open(path, &m, &err) != KP_OK)
				snprintf(msg, sizeof msg, "%s: left out: %s", what, err.msg);
			else
				snprintf(msg, sizeof msg, "%s: left out: no Mach-O slice with a UUID in it", what);
			kp_macho_close(&m);
		} else if (u.n == 0) {
			snprintf(msg, sizeof msg, "%s: left out: no file with a UUID in it that kpbrowse can read%s",
			         what, kp__dsym_cut(s->dx, path) ? " (walk cut short: too deep or "
			                                                   "KPBROWSE_DSYM_WALK_MAX names)" : "");
		} else if (!u.match && build) {
			char *shown = kp_sb_take(&u.shown);
			snprintf(msg, sizeof msg, "%s: another build: its UUIDs (%s) match no image of the report",
			         what, shown ? shown : "");
			free(shown);
		}
		kp_sb_free(&u.shown);
		if (msg[0]) {
			kp__symbols_add_warning(s, path, msg);
			nm->said = true;
		}
	}
}

/* The skip-th candidate for uuid (canonical) over every source in order. */
const char *kp__symbols_candidate(kp_symbols *s, const char *uuid, size_t skip)
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
	return kp__symbols_candidate(s, uuid, 0);
}

const char *kp_symbols_find_nth(kp_symbols *s, const char *any_uuid, size_t skip)
{
	char uuid[37];
	if (!kp_uuid_canon(any_uuid, strlen(any_uuid), uuid))
		return NULL;
	return kp__symbols_candidate(s, uuid, skip);
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

/* With signature folders, the trail's last step: the folders, and the
 * files that apply to what was found (a kernelcache entry's or a plain
 * kernel's, by its target; by the report's Darwin version when one is
 * set, all versions otherwise), as the ladder would use them. */
static void sig_step(kp_symbols *s, const char *uuid, const char *path)
{
	size_t ndirs = 0;
	const char *const *dirs = kp__symsrc_sigdirs(s->src, &ndirs);
	if (!ndirs)
		return;
	kp_sb tried = {0}, said = {0};
	for (size_t i = 0; i < ndirs; i++) {
		struct stat st;
		if (i)
			kp_sb_str(&tried, ", ");
		kp_sb_str(&tried, dirs[i]);
		if (stat(dirs[i], &st) != 0 || !S_ISDIR(st.st_mode))
			kp_sb_str(&tried, " (missing)");
	}
	kp_macho *m = NULL;
	const kp_macho_slice *sl = NULL;
	if (path && kp_macho_open(path, &m, NULL) == KP_OK)
		sl = kp_macho_find_uuid(m, uuid);
	const char *target = sl ? kp__symbols_sig_target(sl) : NULL;
	if (!path) {
		kp_sb_str(&said, "not consulted: no file holds this UUID");
	} else if (!target) {
		kp_sb_str(&said, "not consulted: the file is neither a kernelcache entry nor a kernel");
	} else if (!kp_disasm_available()) {
		kp_sb_str(&said, "left out: this kpbrowse was built without Capstone, which matching them needs");
	} else {
		const kp__sigfile *files[256];
		size_t n = kp__symbols_sig_files(s, target, files, sizeof files / sizeof files[0]);
		char head[200];
		if (s->darwin[0])
			snprintf(head, sizeof head, "%s, Darwin %u.%u.%u: ", target, s->darwin[0], s->darwin[1],
			         s->darwin[2]);
		else
			snprintf(head, sizeof head, "%s, any Darwin version (no report): ", target);
		kp_sb_str(&said, head);
		if (!n)
			kp_sb_str(&said, "no file applies");
		for (size_t i = 0; i < n; i++) {
			if (i)
				kp_sb_str(&said, ", ");
			kp_sb_str(&said, files[i]->path);
		}
	}
	kp_macho_close(&m);
	char *tr = kp_sb_take(&tried), *sd = kp_sb_take(&said);
	kp__symsrc_trail_add(&s->trail, "signatures", tr ? tr : "", sd ? sd : "", false);
	free(tr);
	free(sd);
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
	sig_step(s, uuid, out->path);
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
