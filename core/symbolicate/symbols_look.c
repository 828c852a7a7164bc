/* symbols_look.c: names an address inside one opened file (symbols_model.h),
 * the ladder in its order: the symbol cache or the DWARF (exact), then the
 * symbol table, a kernelcache's ipsw map (<path>.symbols.json) and the
 * names its signature files give (sigmatch.h) where they start closer, then
 * a stripped binary's function starts (func_<start>), then the nearest
 * symbol.  Also the labels of where a name came from. */
#include "symbols_model.h"
#include "kp_disasm.h"
#include "kp_vec.h"
#include "kp_demangle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* A name found by matching rather than read from the binary: ipsw's map,
 * signatures, func_<start>. */
bool kp__symresult_guessed(const kp_symresult *r)
{
	return r->source && (strcmp(r->source, "map") == 0 || strcmp(r->source, "signature") == 0 ||
	                     strcmp(r->source, "function-starts") == 0);
}

bool kp_symresult_approximate(const kp_symresult *r)
{
	return r->source && (strcmp(r->source, "symtab") == 0 || kp__symresult_guessed(r));
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
 * kernelcache (an entry of a fileset), as ipsw writes it, once per cache
 * (its entries share it: the addresses are the cache's).  A broken one is
 * a warning; the cache still serves. */
static kp_symmap *map_of(kp_symbols *s, kp__opened *o)
{
	if (o->map_tried || !o->slice->fileset_id || !o->path)
		return o->map;
	o->map_tried = true;
	for (size_t i = 0; i < s->nopen; i++) {
		const kp__opened *e = &s->open[i];
		if (e != o && e->map_tried && e->path && e->slice && e->slice->fileset_id &&
		    strcmp(e->path, o->path) == 0) {
			o->map_borrowed = e->map != NULL;
			return o->map = e->map;
		}
	}
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
static bool from_map(kp_symbols *s, kp__opened *o, const kp_symmap *map, const char *source,
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

void kp__symbols_add_warning(kp_symbols *s, const char *file, const char *msg)
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
	kp__symbols_add_warning(ctx, file, msg);
}

static void sig_found(void *ctx, const char *path, int major)
{
	kp_symbols *s = ctx;
	struct sigent *e = kp_vec_push((void **)&s->sigs, &s->nsigs, &s->sigcap, sizeof *e);
	if (e && !(*e = (struct sigent){.path = strdup(path), .major = major}).path)
		s->nsigs--;
}

const char *kp__symbols_sig_target(const kp_macho_slice *sl)
{
	return sl->fileset_id ? sl->fileset_id : sl->filetype == 2 ? "com.apple.kernel" : NULL;
}

/* The signature files for target, read on first use: those whose folder
 * is the report's Darwin major (or names none) when it is known, all
 * otherwise; then those for target whose version range holds the Darwin
 * version.  Of several, those of the folder of the report's major are
 * kept (unknown: of the newest folder).  *n of them into v. */
size_t kp__symbols_sig_files(kp_symbols *s, const char *target, const kp__sigfile **v, size_t max)
{
	size_t ndirs = 0;
	const char *const *dirs = kp__symsrc_sigdirs(s->src, &ndirs);
	if (!s->sigs_walked) {
		s->sigs_walked = true;
		for (size_t i = 0; i < ndirs; i++) {
			kp_error err;
			if (kp__sigdir_walk(dirs[i], sig_found, s, &err) != KP_OK)
				kp__symbols_add_warning(s, dirs[i], "signature folder left out: not a folder that can be read");
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
				kp__symbols_add_warning(s, e->path, msg);
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
static kp_symmap *sig_of(kp_symbols *s, kp__opened *o)
{
	size_t ndirs = 0;
	const char *const *dirs = kp__symsrc_sigdirs(s->src, &ndirs);
	if (o->sig_tried || !ndirs)
		return o->sig;
	o->sig_tried = true;
	const char *target = kp__symbols_sig_target(o->slice);
	if (!target)
		return NULL;
	if (!kp_disasm_available()) {
		if (!s->sig_missing_said)
			kp__symbols_add_warning(s, dirs[0], "signatures left out: this kpbrowse was built without Capstone, "
			                        "which matching them needs");
		s->sig_missing_said = true;
		return NULL;
	}
	const kp__sigfile *files[256];
	size_t n = kp__symbols_sig_files(s, target, files, sizeof files / sizeof files[0]);
	kp_error err;
	kp__sigstats st;
	if (n && kp__sig_match(o->m, o->slice, files, n, sig_warn, s, &o->sig, &st, &err) != KP_OK) {
		char m[300], msg[400];
		snprintf(msg, sizeof msg, "signatures for %.80s left out: %s", target,
		         kp_error_format(&err, m, sizeof m));
		kp__symbols_add_warning(s, o->path, msg);
	} else if (n) {
		s->sigstats.anchors_found += st.anchors_found;
		s->sigstats.candidates += st.candidates;
		s->sigstats.confirmed += st.confirmed;
		s->sigstats.named += st.named;
	}
	return o->sig;
}

/* Looks addr up in o: DWARF first, then the nearest preceding symbol. */
kp_sym_status kp__symbols_look(kp_symbols *s, kp__opened *o, uint64_t addr, kp_symresult *out)
{
	out->path = o->path;
	if (kp_macho_damaged(o->m)) {
		snprintf(out->msg, sizeof out->msg, "%.100s changed while in use (truncated): reopen it",
		         o->path);
		return out->status = KP_SYM_ERROR;
	}
	if (o->side)
		kp__symbols_side_adopt(s, o);
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
			kp__symbols_open_dwarf(s, o);
			o->cache_wanted = o->d != NULL;   /* built anew when idle */
			memset(out->frames, 0, sizeof out->frames);
			return kp__symbols_look(s, o, addr, out);
		}
	} else if (o->d) {
		kp_error err;
		size_t n = 0;
		kp_status st = kp_dwarf_lookup(o->d, addr, out->frames, KP_SYM_MAX_FRAMES, &n, &err);
		if (kp_macho_damaged(o->m))
			return kp__symbols_look(s, o, addr, out);   /* says so, above */
		if (st != KP_OK) {
			snprintf(out->msg, sizeof out->msg, "%.150s", err.msg);
			return out->status = KP_SYM_ERROR;
		}
		if (s->batch && o->cache_wanted && ++o->dwarf_answers >= KP_SYMCACHE_BATCH)
			kp__symbols_side_start(s, o);
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
		out->kernelcache = o->slice->fileset_id != NULL;
		snprintf(out->msg, sizeof out->msg, "+0x%llx", (unsigned long long)off);
		return out->status = KP_SYM_OK;
	}
	snprintf(out->msg, sizeof out->msg, "no symbol at 0x%llx in %s", (unsigned long long)addr,
	         o->path);
	return out->status = KP_SYM_NOT_FOUND;
}
