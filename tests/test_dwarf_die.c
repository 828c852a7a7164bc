/* test_dwarf_die.c: dwarf_die.c, kp_dwarf's own .debug_info reader, gives
 * what libdwarf gives: on every slice of every fixture dSYM (clang 14, and
 * clang/dsymutil 19 as DWARF 4 and DWARF 5, skipped where absent) the symbol
 * cache built through it is byte-identical to the one built with libdwarf
 * alone and to the ones two threads build (each decoding its share of the
 * units on a handle of its own, through dwarf_die.c or libdwarf alone) and
 * three and eight build, and it decodes every unit and function there
 * itself; a unit it
 * leaves to libdwarf answers the same; a build on threads cancelled at any
 * of its asks ends "cancelled" with no image, and the handle builds whole
 * afterwards; the build's window-by-window sweep answers every boundary
 * (and the address before it) as kp_dwarf_lookup does alone; a function
 * the sweep's eager decode cannot read is left to its lazy decode, and
 * fails as lookups alone fail.  Damaged DWARF it leaves alone is
 * the hostile corpus's (test_hostile, test_hostile_replay). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_model.h"
#include "kp_bytes.h"
#include "kp_fs.h"
#include "kt.h"
#include "symcache.h"

/* The cache image of m's slice i (path: its recorded source), and the
 * fast/slow decode counts. */
static void *image_m(kp_macho *m, const char *path, size_t i, bool libdwarf_only, unsigned threads,
                     size_t *len, size_t *nfast, size_t *nslow)
{
	kp_dwarf *d = NULL;
	kp_error err;
	void *img = NULL;
	*len = *nfast = *nslow = 0;
	const kp_macho_slice *s = kp_macho_slice_at(m, i);
	if (s && kp_dwarf_open(s, &d, &err) == KP_OK) {
		kp__dwarf_libdwarf_only(d, libdwarf_only);
		kp_dwarf_use_symbols(d, m);
		kp_symcache_key key = {s->uuid, s->arch, 1, 1};
		kp_symcache_cb cb = {NULL, NULL, NULL, threads};
		if (kp__symcache_build(d, m, s, &key, path, &cb, &img, len, &err) != KP_OK)
			img = NULL;
		*nfast = kp__dwarf_cache(d)->nfast;
		*nslow = kp__dwarf_cache(d)->nslow;
		kp_dwarf_close(&d);
	}
	return img;
}

static void *image_of(const char *path, size_t i, bool libdwarf_only, unsigned threads,
                      size_t *len, size_t *nfast, size_t *nslow)
{
	kp_macho *m = NULL;
	kp_error err;
	*len = *nfast = *nslow = 0;
	if (kp_macho_open(path, &m, &err) != KP_OK)
		return NULL;
	void *img = image_m(m, path, i, libdwarf_only, threads, len, nfast, nslow);
	kp_macho_close(&m);
	return img;
}

static uint64_t uleb(const unsigned char *p, size_t n, size_t *pos)
{
	uint64_t v = 0;
	for (unsigned shift = 0; *pos < n; shift += 7) {
		unsigned char b = p[(*pos)++];
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/* The form byte of DW_AT_stmt_list in the first abbreviation (the CU's),
 * or NULL. */
static unsigned char *stmt_list_form(unsigned char *ab, size_t n)
{
	size_t pos = 0;
	uleb(ab, n, &pos); /* code */
	uleb(ab, n, &pos); /* tag */
	pos++;             /* children */
	while (pos < n) {
		uint64_t at = uleb(ab, n, &pos);
		size_t fpos = pos;
		uint64_t form = uleb(ab, n, &pos);
		if (at == 0 && form == 0)
			return NULL;
		if (at == 0x10 && form == 0x17 && pos == fpos + 1)
			return ab + fpos;
	}
	return NULL;
}

/* A fixture dSYM's DWARF file read into *buf (the caller frees it) and
 * opened from there (*m: the caller closes it), path its name: its
 * .debug_abbrev, writable in *buf (*absz bytes), or NULL (skipped when the
 * file is absent, *buf then NULL). */
static unsigned char *fixture_abbrev(const char *set, const char *name, char *path,
                                     size_t pathsz, char **buf, kp_macho **m, uint64_t *absz)
{
	snprintf(path, pathsz, "%s/%s/%s.dSYM/Contents/Resources/DWARF/%s", KP_FIXTURES, set, name,
	         name);
	size_t n = 0;
	kp_error err;
	const unsigned char *ab = NULL;
	*buf = NULL;
	*m = NULL;
	*absz = 0;
	if (kp_fs_read_file(path, 64 << 20, buf, &n, NULL, &err) != KP_OK) {
		KT_SKIP(path);
		return NULL;
	}
	if (kp_macho_open_mem(*buf, n, m, &err) == KP_OK &&
	    kp_macho_section(kp_macho_slice_at(*m, 0), "__DWARF", "__debug_abbrev", &ab, absz, NULL) &&
	    ab >= (unsigned char *)*buf && ab + *absz <= (unsigned char *)*buf + n)
		return (unsigned char *)*buf + (ab - (unsigned char *)*buf);
	return NULL;
}

/* A unit dwarf_die.c leaves to libdwarf: the fixture with its CU's
 * DW_AT_stmt_list as DW_FORM_data4 instead of DW_FORM_sec_offset (the same
 * four bytes; libdwarf reads the same offset, dwarf_die.c does not take
 * that form).  Every unit then goes to libdwarf, the functions in it still
 * to dwarf_die.c, and the cache is byte for byte the unpatched one. */
static void unit_left_to_libdwarf(const char *set, const char *name)
{
	char path[1024], *buf;
	kp_macho *m;
	uint64_t absz;
	unsigned char *ab = fixture_abbrev(set, name, path, sizeof path, &buf, &m, &absz);
	if (!buf)
		return;
	unsigned char *form = ab ? stmt_list_form(ab, absz) : NULL;
	KT_CHECK(form != NULL, "%s/%s: the CU's DW_AT_stmt_list form found", set, name);
	if (form) {
		size_t la = 0, lb = 0, fa = 0, sa = 0, fb = 0, sb = 0;
		void *b = image_m(m, path, 0, false, 1, &lb, &fb, &sb);
		*form = 0x06; /* DW_FORM_data4 */
		void *a = image_m(m, path, 0, false, 1, &la, &fa, &sa);
		KT_CHECK(a && b && la == lb && !memcmp(a, b, la),
		         "%s/%s: a unit left to libdwarf answers the same (%zu, %zu bytes)", set, name,
		         la, lb);
		KT_CHECK(sa > 0 && fa > 0 && sb == 0,
		         "%s/%s: its units went to libdwarf, its functions not (%zu libdwarf, %zu fast)",
		         set, name, sa, fa);
		free(a);
		free(b);
	}
	kp_macho_close(&m);
	free(buf);
}

static size_t nslices(const char *path)
{
	kp_macho *m = NULL;
	kp_error err;
	if (kp_macho_open(path, &m, &err) != KP_OK)
		return 0;
	size_t n = kp_macho_nslices(m);
	kp_macho_close(&m);
	return n;
}

static void same_as_libdwarf(const char *set)
{
	static const char *names[] = {"fakekernel.arm64", "fakekernel.x86_64", "fakekext.arm64",
	                              "fakekext.x86_64", "fakekext.universal"};
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
		char path[1024];
		snprintf(path, sizeof path, "%s/%s/%s.dSYM/Contents/Resources/DWARF/%s", KP_FIXTURES,
		         set, names[k], names[k]);
		size_t ns = nslices(path);
		if (!ns) {
			KT_SKIP(path);
			continue;
		}
		for (size_t i = 0; i < ns; i++) {
			size_t la = 0, lb = 0, fa = 0, sa = 0, fb = 0, sb = 0;
			void *a = image_of(path, i, false, 1, &la, &fa, &sa);
			void *b = image_of(path, i, true, 1, &lb, &fb, &sb);
			KT_CHECK(a && b && la == lb && la > 1000 && !memcmp(a, b, la),
			         "%s/%s slice %zu: cache bytes as with libdwarf alone (%zu, %zu bytes)",
			         set, names[k], i, la, lb);
			KT_CHECK(fa > 10 && sa == 0 && fb == 0 && sb > 10,
			         "%s/%s slice %zu: every unit and function read without libdwarf (%zu fast, "
			         "%zu libdwarf; libdwarf alone: %zu)",
			         set, names[k], i, fa, sa, sb);
			/* two threads, each decoding half of the units on its own
			 * handle, one of them with libdwarf alone: the same bytes */
			size_t lc = 0, ld = 0, x;
			void *c = image_of(path, i, false, 2, &lc, &x, &x);
			void *e = image_of(path, i, true, 2, &ld, &x, &x);
			KT_CHECK(a && c && e && lc == la && ld == la && !memcmp(a, c, la) && !memcmp(a, e, la),
			         "%s/%s slice %zu: cache bytes the same built on two threads (%zu, %zu bytes)",
			         set, names[k], i, lc, ld);
			/* more threads than functions to start at: runs that would
			 * start where another does are dropped */
			for (unsigned th = 3; th <= 8; th += 5) {
				size_t lt = 0;
				void *f = image_of(path, i, false, th, &lt, &x, &x);
				KT_CHECK(a && f && lt == la && !memcmp(a, f, la),
				         "%s/%s slice %zu: cache bytes the same built on %u threads (%zu bytes)",
				         set, names[k], i, th, lt);
				free(f);
			}
			free(a);
			free(b);
			free(c);
			free(e);
		}
	}
}

/* Cancelling a build on threads at each point where it asks (in phase 1,
 * after the symbol table's boundaries, in phase 2 while the other thread
 * answers its run) ends it with "cancelled" and no image; the next build
 * on the same handle is whole. */
static size_t cancel_calls, cancel_on;
static bool cancel_nth(void *ctx)
{
	(void)ctx;
	return ++cancel_calls == cancel_on;
}

static void cancelled_threads(const char *set, const char *name, unsigned threads)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s/%s.dSYM/Contents/Resources/DWARF/%s", KP_FIXTURES, set,
	         name, name);
	kp_macho *m = NULL;
	kp_dwarf *d = NULL;
	kp_error err;
	if (kp_macho_open(path, &m, &err) != KP_OK) {
		KT_SKIP(path);
		return;
	}
	const kp_macho_slice *s = kp_macho_slice_at(m, 0);
	size_t lw = 0, x;
	void *whole = image_m(m, path, 0, false, 1, &lw, &x, &x);
	if (s && kp_dwarf_open(s, &d, &err) == KP_OK) {
		kp_dwarf_use_symbols(d, m);
		kp_symcache_key key = {s->uuid, s->arch, 1, 1};
		kp_symcache_cb cb = {NULL, cancel_nth, NULL, threads};
		void *img = NULL;
		size_t len = 0;
		cancel_calls = 0;
		cancel_on = 0;   /* never: count the asks */
		kp_status st = kp__symcache_build(d, m, s, &key, path, &cb, &img, &len, &err);
		size_t asks = cancel_calls;
		KT_CHECK(st == KP_OK && asks >= 3 && whole && len == lw && !memcmp(img, whole, len),
		         "%s/%s: %u threads, not cancelled: the one-thread image (%zu asks)", set, name,
		         threads, asks);
		free(img);
		for (size_t k = 1; k <= asks; k++) {
			cancel_calls = 0;
			cancel_on = k;
			img = NULL;
			st = kp__symcache_build(d, m, s, &key, path, &cb, &img, &len, &err);
			KT_CHECK(st == KP_ERR_LIMIT && !img && strstr(err.msg, "cancelled"),
			         "%s/%s: %u threads cancelled at ask %zu of %zu: \"%s\", no image",
			         set, name, threads, k, asks, st == KP_OK ? "built" : err.msg);
			free(img);
		}
		cancel_on = 0;
		img = NULL;
		KT_CHECK(kp__symcache_build(d, m, s, &key, path, &cb, &img, &len, &err) == KP_OK && whole &&
		         len == lw && !memcmp(img, whole, len),
		         "%s/%s: the next %u-thread build on the handle is the one-thread image", set,
		         name, threads);
		free(img);
		kp_dwarf_close(&d);
	}
	free(whole);
	kp_macho_close(&m);
}

/* ---- the sweep against kp_dwarf_lookup ------------------------------------ */

struct u64s {
	uint64_t *v;
	size_t n, cap;
};

static bool push_a(void *ctx, uint64_t a)
{
	struct u64s *x = ctx;
	if (x->n == x->cap) {
		size_t nc = x->cap ? x->cap * 2 : 1024;
		uint64_t *nv = realloc(x->v, nc * sizeof *nv);
		if (!nv)
			return false;
		x->v = nv;
		x->cap = nc;
	}
	x->v[x->n++] = a;
	return true;
}

static int cmp_a(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void sort_uniq(struct u64s *x)
{
	if (!x->n)
		return;
	qsort(x->v, x->n, sizeof *x->v, cmp_a);
	size_t n = 1;
	for (size_t i = 1; i < x->n; i++)
		if (x->v[i] != x->v[n - 1])
			x->v[n++] = x->v[i];
	x->n = n;
}

struct ans {
	size_t n;
	kp_symframe f[KP_SYMCACHE_MAX_FRAMES];
};

static bool same_s(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool same_ans(const struct ans *a, const struct ans *b)
{
	if (a->n != b->n)
		return false;
	for (size_t k = 0; k < a->n; k++)
		if (!same_s(a->f[k].function, b->f[k].function) || !same_s(a->f[k].file, b->f[k].file) ||
		    a->f[k].line != b->f[k].line || a->f[k].column != b->f[k].column)
			return false;
	return true;
}

/* What a cache build's sweep answers at every boundary kp_dwarf_for_each_boundary
 * and the symbol table give (and at the address before each), window by
 * window as kp__symcache_build sweeps (kp_dwarf_window's points and the
 * symbol table's, ascending, on a handle whose lookups remember their last
 * answer and their symbol's span, each unit given back past its window),
 * is what kp_dwarf_lookup says on its own (a handle whose memo and symbol
 * span are forgotten before each lookup). */
static void sweep_vs_lookup_m(const char *set, const char *name, kp_macho *m)
{
	kp_error err;
	for (size_t si = 0; si < kp_macho_nslices(m); si++) {
		const kp_macho_slice *s = kp_macho_slice_at(m, si);
		kp_dwarf *a = NULL, *b = NULL;
		if (kp_dwarf_open(s, &a, &err) != KP_OK || kp_dwarf_open(s, &b, &err) != KP_OK) {
			kp_dwarf_close(&a);
			continue;
		}
		kp_dwarf_use_symbols(a, m);
		kp_dwarf_use_symbols(b, m);
		struct u64s all = {0}, sym = {0}, pts = {0};
		bool ok = kp_dwarf_for_each_boundary(b, push_a, NULL, &all, &err) == KP_OK &&
		          kp_macho_symbol_boundaries(m, s, push_a, &sym);
		for (size_t i = 0; ok && i < sym.n; i++)
			ok = push_a(&all, sym.v[i]);
		for (size_t i = 0, n = all.n; ok && i < n; i++)
			ok = !all.v[i] || push_a(&all, all.v[i] - 1);
		sort_uniq(&all);
		sort_uniq(&sym);
		size_t checked = 0, bad = 0, j = 0, js = 0, nw = kp_dwarf_windows(a);
		size_t same_calls = 0, calls_wrong = 0, same_fast = 0, fast_wrong = 0;
		bool have = false;
		struct ans cur = {0}, want;
		for (size_t w = 0; ok && w < nw; w++) {
			uint64_t lo, hi;
			pts.n = 0;
			ok = kp_dwarf_window(a, w, &lo, &hi, push_a, &pts, &err) == KP_OK;
			for (; ok && js < sym.n && (sym.v[js] < hi || w + 1 == nw); js++)
				ok = push_a(&pts, sym.v[js]);
			sort_uniq(&pts);
			size_t p = 0;
			for (; ok && j < all.n && (all.v[j] < hi || w + 1 == nw); j++) {
				for (; ok && p < pts.n && pts.v[p] <= all.v[j]; p++) {
					struct ans last = cur;
					size_t sn = 0;
					const char *sf = NULL;
					uint32_t sl = 0, sc = 0;
					bool fast = kp_dwarf_lookup_same(a, pts.v[p], KP_SYMCACHE_MAX_FRAMES, &sn,
					                                 &sf, &sl, &sc);
					ok = pts.v[p] >= lo &&
					     kp_dwarf_lookup(a, pts.v[p], cur.f, KP_SYMCACHE_MAX_FRAMES, &cur.n,
					                     &err) == KP_OK;
					if (ok && fast) {
						/* the shortcut's position is the lookup's, which took its memo */
						same_fast++;
						fast_wrong += !kp_dwarf_same_calls(a) || sn != cur.n || !cur.n ||
						              sf != cur.f[0].file || sl != cur.f[0].line ||
						              sc != cur.f[0].column;
					}
					if (ok && have && kp_dwarf_same_calls(a)) {
						/* only the first frame's position moved */
						struct ans x = cur;
						x.f[0].file = last.n ? last.f[0].file : NULL;
						x.f[0].line = last.n ? last.f[0].line : 0;
						x.f[0].column = last.n ? last.f[0].column : 0;
						same_calls++;
						calls_wrong += !same_ans(&x, &last);
					}
					have = true;
				}
				if (!ok || !have)
					continue;   /* before the first boundary: nothing answered */
				kp__dwarf_cache(b)->memo.valid = false;
				kp__dwarf_cache(b)->sym_hi = 0;   /* and the symbol's span */
				ok = kp_dwarf_lookup(b, all.v[j], want.f, KP_SYMCACHE_MAX_FRAMES, &want.n,
				                     &err) == KP_OK;
				checked++;
				if (ok && !same_ans(&cur, &want) && bad++ < 3)
					printf("# %s slice %zu: 0x%llx: the sweep says %s:%u, lookup %s:%u\n", name,
					       si, (unsigned long long)all.v[j],
					       cur.n ? cur.f[0].function : "-", cur.n ? cur.f[0].line : 0,
					       want.n ? want.f[0].function : "-", want.n ? want.f[0].line : 0);
			}
			for (; ok && p < pts.n; p++)
				ok = kp_dwarf_lookup(a, pts.v[p], cur.f, KP_SYMCACHE_MAX_FRAMES, &cur.n,
				                     &err) == KP_OK;
			kp_dwarf_window_done(a, w);
		}
		KT_CHECK(ok && bad == 0 && checked > 100,
		         "%s/%s slice %zu: the sweep answers every boundary as kp_dwarf_lookup does "
		         "(%zu checked, %zu differ)",
		         set, name, si, checked, bad);
		KT_CHECK(same_calls > 10 && calls_wrong == 0,
		         "%s/%s slice %zu: where kp_dwarf_same_calls says so, only the first frame's "
		         "position moved (%zu of %zu)",
		         set, name, si, same_calls - calls_wrong, same_calls);
		KT_CHECK(same_fast > 10 && fast_wrong == 0,
		         "%s/%s slice %zu: where kp_dwarf_lookup_same answers, the lookup took its memo "
		         "and gave that position (%zu of %zu)",
		         set, name, si, same_fast - fast_wrong, same_fast);
		free(all.v);
		free(sym.v);
		free(pts.v);
		kp_dwarf_close(&a);
		kp_dwarf_close(&b);
	}
}

static void sweep_vs_lookup(const char *set, const char *name)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s/%s.dSYM/Contents/Resources/DWARF/%s", KP_FIXTURES, set,
	         name, name);
	kp_macho *m = NULL;
	kp_error err;
	if (kp_macho_open(path, &m, &err) != KP_OK) {
		KT_SKIP(path);
		return;
	}
	sweep_vs_lookup_m(set, name, m);
	kp_macho_close(&m);
}

/* A symbol inside a function's lines (a local label, an alias): the
 * fixture (thin, 64-bit) with one symbol of __text moved to 4 bytes into
 * the longest function.  There the outermost frame is named anew, so the
 * sweep's shortcut past a lookup (kp_dwarf_lookup_same) must not answer
 * from the last answer's symbol. */
static void symbol_inside_function(const char *set, const char *name)
{
	char path[1024], *buf = NULL;
	size_t n = 0;
	kp_error err;
	snprintf(path, sizeof path, "%s/%s/%s.dSYM/Contents/Resources/DWARF/%s", KP_FIXTURES, set,
	         name, name);
	if (kp_fs_read_file(path, 64 << 20, &buf, &n, NULL, &err) != KP_OK) {
		KT_SKIP(path);
		return;
	}
	unsigned char *b = (unsigned char *)buf, *f = NULL, *g = NULL;
	uint32_t ncmds = n >= 32 && kp_le32(b) == 0xfeedfacf ? kp_le32(b + 16) : 0;
	unsigned text = 0, ord = 0;   /* __text's section ordinal (n_sect) */
	size_t at = 32;
	for (uint32_t i = 0; i < ncmds && at + 72 <= n; i++, at += kp_le32(b + at + 4))
		for (uint32_t k = 0; kp_le32(b + at) == 0x19 /* LC_SEGMENT_64 */ && k < kp_le32(b + at + 64) &&
		                     at + 72 + (k + 1) * 80ull <= n; k++)
			if (++ord && !strncmp((char *)b + at + 72 + k * 80, "__text", 16))
				text = ord;
	at = 32;
	for (uint32_t i = 0; text && i < ncmds && at + 8 <= n; i++, at += kp_le32(b + at + 4)) {
		if (kp_le32(b + at) != 0x2 /* LC_SYMTAB */ || at + 16 > n)
			continue;
		uint32_t symoff = kp_le32(b + at + 8), nsyms = kp_le32(b + at + 12);
		uint64_t best = 0;
		for (uint32_t k = 0; k < nsyms && symoff + (k + 1) * 16ull <= n; k++) {
			unsigned char *e = b + symoff + k * 16;
			if ((e[4] & 0xee) != 0x0e || e[5] != text)   /* N_SECT, not a stab; __text */
				continue;
			uint64_t v = kp_le64(e + 8), next = UINT64_MAX;
			for (uint32_t j = 0; j < nsyms && symoff + (j + 1) * 16ull <= n; j++) {
				unsigned char *x = b + symoff + j * 16;
				uint64_t w = kp_le64(x + 8);
				if ((x[4] & 0xee) == 0x0e && x[5] == text && w > v && w < next)
					next = w;
			}
			if (next != UINT64_MAX && next - v > best)
				best = next - v, f = e;
		}
		for (uint32_t k = 0; f && k < nsyms && !g; k++) {
			unsigned char *e = b + symoff + k * 16;
			if ((e[4] & 0xee) == 0x0e && e[5] == text && memcmp(e + 8, f + 8, 8))
				g = e;
		}
	}
	KT_CHECK(f && g, "%s/%s: two symbols of __text found", set, name);
	if (f && g) {
		uint64_t v = kp_le64(f + 8) + 4;
		for (int i = 0; i < 8; i++)
			g[8 + i] = (unsigned char)(v >> (8 * i));
		kp_macho *m = NULL;
		if (kp_macho_open_mem(buf, n, &m, &err) == KP_OK) {
			char label[1100];
			snprintf(label, sizeof label, "%s (a symbol 4 bytes into a function)", name);
			sweep_vs_lookup_m(set, label, m);
		} else {
			KT_CHECK(false, "%s/%s patched opens: %s", set, name, err.msg);
		}
		kp_macho_close(&m);
	}
	free(buf);
}

/* ---- a function the unit's eager decode cannot read ----------------------- */

/* The fixture with every DW_AT_call_column of an inlined subroutine as
 * DW_FORM_flag instead of DW_FORM_data1 (the same byte): dwarf_die.c does
 * not take that form there, so the sweep's eager decode of each function
 * with inlined calls fails midway and must go back, skip that subtree and
 * leave the function to its lazy decode (libdwarf: 20210528 rejects the
 * form, 2.x reads it).  The sweep then fails where lookups alone fail,
 * naming the subprogram, not the unit; the unit keeps the function index a
 * lookup's decode makes and every function answers as lookups alone do. */
static void eager_falls_back(const char *set, const char *name)
{
	char path[1024], *buf;
	kp_macho *m;
	uint64_t absz;
	size_t patched = 0;
	kp_error err;
	unsigned char *p = fixture_abbrev(set, name, path, sizeof path, &buf, &m, &absz);
	if (!buf)
		return;
	/* DW_AT_call_line data1, DW_AT_call_column data1 */
	for (size_t i = 0; p && i + 4 <= absz; i++)
		if (p[i] == 0x59 && p[i + 1] == 0x0b && p[i + 2] == 0x57 && p[i + 3] == 0x0b) {
			p[i + 3] = 0x0c;
			patched++;
		}
	KT_CHECK(patched > 0, "%s/%s: the inlined subroutines' call_column forms found", set, name);
	const kp_macho_slice *s = kp_macho_slice_at(m, 0);
	kp_dwarf *a = NULL, *b = NULL;
	if (!patched || kp_dwarf_open(s, &a, &err) != KP_OK || kp_dwarf_open(s, &b, &err) != KP_OK) {
		kp_dwarf_close(&a);
		kp_macho_close(&m);
		free(buf);
		return;
	}
	kp_dwarf_use_symbols(a, m);
	kp_dwarf_use_symbols(b, m);
	struct u64s pts = {0}, sym = {0};
	kp_error ea = {0}, eb = {0};
	kp_status sa = KP_OK, sb = KP_OK;
	for (size_t w = 0, nw = kp_dwarf_windows(a); w < nw && sa == KP_OK; w++) {
		uint64_t lo, hi;
		sa = kp_dwarf_window(a, w, &lo, &hi, push_a, &pts, &ea);
	}
	(void)kp_macho_symbol_boundaries(m, s, push_a, &sym);
	sort_uniq(&sym);
	size_t agree = 0, answered = 0;
	for (size_t i = 0; i < sym.n; i++) {
		struct ans x = {0}, y = {0};
		kp_error e1, e2;
		kp_status s2 = kp_dwarf_lookup(b, sym.v[i], y.f, KP_SYMCACHE_MAX_FRAMES, &y.n, &e2);
		if (s2 != KP_OK) {
			if (sb == KP_OK) {
				sb = s2;
				eb = e2;
			}
			continue;
		}
		answered += y.n > 0;
		agree += kp_dwarf_lookup(a, sym.v[i], x.f, KP_SYMCACHE_MAX_FRAMES, &x.n, &e1) == KP_OK &&
		         same_ans(&x, &y) && y.n > 0;
	}
	/* libdwarf 20210528 rejects the form too (the function is malformed:
	 * the sweep stops there, naming it, as a lookup does), 2.x reads it
	 * (both answer) */
	KT_CHECK(sb == sa && (sa == KP_OK || (!strcmp(ea.msg, eb.msg) && strstr(ea.msg, "subprogram"))),
	         "%s/%s: the sweep fails where lookups alone fail, alike (\"%s\" / \"%s\")", set,
	         name, sa == KP_OK ? "answered" : ea.msg, sb == KP_OK ? "answered" : eb.msg);
	/* the unit's function index as the lazy decode made it */
	size_t units = 0, same_index = 0;
	struct kp__dwarf_cache *ca = kp__dwarf_cache(a), *cb = kp__dwarf_cache(b);
	for (size_t i = 0; i < ca->ncus && i < cb->ncus; i++) {
		const struct cu *x = &ca->cus[i], *y = &cb->cus[i];
		if (x->state != 1 || y->state != 1)
			continue;
		units++;
		bool eq = x->nfuncs == y->nfuncs && x->map.n == y->map.n;
		for (size_t k = 0; eq && k < x->nfuncs; k++)
			eq = x->funcs[k].die_off == y->funcs[k].die_off;
		for (size_t k = 0; eq && k < x->map.n; k++)
			eq = x->map.v[k].lo == y->map.v[k].lo && x->map.v[k].hi == y->map.v[k].hi &&
			     x->map.v[k].sub == y->map.v[k].sub;
		same_index += eq;
	}
	KT_CHECK(units > 0 && same_index == units,
	         "%s/%s: the swept unit indexes its functions as a lookup's does (%zu of %zu)", set,
	         name, same_index, units);
	/* the functions the eager decode gave up on went to libdwarf, lazily */
	KT_CHECK(answered > 0 && agree == answered && kp__dwarf_cache(a)->nslow >= 1,
	         "%s/%s: functions left to libdwarf (%zu); every function lookups alone answer, the "
	         "sweep's handle answers alike (%zu of %zu)",
	         set, name, kp__dwarf_cache(a)->nslow, agree, answered);
	free(pts.v);
	free(sym.v);
	kp_dwarf_close(&a);
	kp_dwarf_close(&b);
	kp_macho_close(&m);
	free(buf);
}

int main(void)
{
	same_as_libdwarf("bin");
	same_as_libdwarf("llvm19-dwarf4/bin");
	same_as_libdwarf("llvm19-dwarf5/bin");
	unit_left_to_libdwarf("bin", "fakekernel.arm64");
	unit_left_to_libdwarf("llvm19-dwarf5/bin", "fakekext.arm64");
	cancelled_threads("bin", "fakekernel.arm64", 2);
	cancelled_threads("llvm19-dwarf5/bin", "fakekext.arm64", 2);
	cancelled_threads("llvm19-dwarf5/bin", "fakekext.arm64", 4);
	eager_falls_back("bin", "fakekernel.arm64");
	eager_falls_back("llvm19-dwarf5/bin", "fakekernel.arm64");
	const char *sets[] = {"bin", "llvm19-dwarf4/bin", "llvm19-dwarf5/bin"};
	const char *names[] = {"fakekernel.arm64", "fakekernel.x86_64", "fakekext.arm64",
	                       "fakekext.x86_64", "fakekext.universal"};
	for (size_t i = 0; i < 3; i++)
		for (size_t k = 0; k < 5; k++)
			sweep_vs_lookup(sets[i], names[k]);
	symbol_inside_function("llvm19-dwarf5/bin", "fakekext.arm64");
	symbol_inside_function("bin", "fakekernel.x86_64");
	return kt_done();
}
