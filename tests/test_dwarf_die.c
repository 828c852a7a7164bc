/* test_dwarf_die.c: dwarf_die.c, kp_dwarf's own .debug_info reader, gives
 * what libdwarf gives: on every slice of every fixture dSYM (clang 14, and
 * clang/dsymutil 19 as DWARF 4 and DWARF 5, skipped where absent) the symbol
 * cache built through it is byte-identical to the one built with libdwarf
 * alone and to the ones two threads build (each decoding half of the units
 * on a handle of its own, through dwarf_die.c or libdwarf alone), and it
 * decodes every unit and function there itself; a unit it
 * leaves to libdwarf answers the same; a two-thread build cancelled at any
 * of its asks ends "cancelled" with no image, and the handle builds whole
 * afterwards.  Damaged DWARF it leaves alone is
 * the hostile corpus's (test_hostile, test_hostile_replay). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_model.h"
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

/* A unit dwarf_die.c leaves to libdwarf: the fixture with its CU's
 * DW_AT_stmt_list as DW_FORM_data4 instead of DW_FORM_sec_offset (the same
 * four bytes; libdwarf reads the same offset, dwarf_die.c does not take
 * that form).  Every unit then goes to libdwarf, the functions in it still
 * to dwarf_die.c, and the cache is byte for byte the unpatched one. */
static void unit_left_to_libdwarf(const char *set, const char *name)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s/%s.dSYM/Contents/Resources/DWARF/%s", KP_FIXTURES, set,
	         name, name);
	char *buf = NULL;
	size_t n = 0;
	kp_error err;
	kp_macho *m = NULL;
	if (kp_fs_read_file(path, 64 << 20, &buf, &n, NULL, &err) != KP_OK) {
		KT_SKIP(path);
		return;
	}
	const unsigned char *ab = NULL;
	uint64_t absz = 0;
	unsigned char *form = NULL;
	if (kp_macho_open_mem(buf, n, &m, &err) == KP_OK &&
	    kp_macho_section(kp_macho_slice_at(m, 0), "__DWARF", "__debug_abbrev", &ab, &absz, NULL) &&
	    ab >= (unsigned char *)buf && ab + absz <= (unsigned char *)buf + n)
		form = stmt_list_form((unsigned char *)buf + (ab - (unsigned char *)buf), absz);
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
			free(a);
			free(b);
			free(c);
			free(e);
		}
	}
}

/* Cancelling a two-thread build at each point where it asks (in phase 1,
 * after the symbol table's boundaries, in phase 2 while the other thread
 * answers its run) ends it with "cancelled" and no image; the next build
 * on the same handle is whole. */
static size_t cancel_calls, cancel_on;
static bool cancel_nth(void *ctx)
{
	(void)ctx;
	return ++cancel_calls == cancel_on;
}

static void cancelled_two_threads(const char *set, const char *name)
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
		kp_symcache_cb cb = {NULL, cancel_nth, NULL, 2};
		void *img = NULL;
		size_t len = 0;
		cancel_calls = 0;
		cancel_on = 0;   /* never: count the asks */
		kp_status st = kp__symcache_build(d, m, s, &key, path, &cb, &img, &len, &err);
		size_t asks = cancel_calls;
		KT_CHECK(st == KP_OK && asks >= 3 && whole && len == lw && !memcmp(img, whole, len),
		         "%s/%s: two threads, not cancelled: the one-thread image (%zu asks)", set, name,
		         asks);
		free(img);
		for (size_t k = 1; k <= asks; k++) {
			cancel_calls = 0;
			cancel_on = k;
			img = NULL;
			st = kp__symcache_build(d, m, s, &key, path, &cb, &img, &len, &err);
			KT_CHECK(st == KP_ERR_LIMIT && !img && strstr(err.msg, "cancelled"),
			         "%s/%s: two threads cancelled at ask %zu of %zu: \"%s\", no image", set,
			         name, k, asks, st == KP_OK ? "built" : err.msg);
			free(img);
		}
		cancel_on = 0;
		img = NULL;
		KT_CHECK(kp__symcache_build(d, m, s, &key, path, &cb, &img, &len, &err) == KP_OK && whole &&
		         len == lw && !memcmp(img, whole, len),
		         "%s/%s: the next two-thread build on the handle is the one-thread image", set,
		         name);
		free(img);
		kp_dwarf_close(&d);
	}
	free(whole);
	kp_macho_close(&m);
}

int main(void)
{
	same_as_libdwarf("bin");
	same_as_libdwarf("llvm19-dwarf4/bin");
	same_as_libdwarf("llvm19-dwarf5/bin");
	unit_left_to_libdwarf("bin", "fakekernel.arm64");
	unit_left_to_libdwarf("llvm19-dwarf5/bin", "fakekext.arm64");
	cancelled_two_threads("bin", "fakekernel.arm64");
	cancelled_two_threads("llvm19-dwarf5/bin", "fakekext.arm64");
	return kt_done();
}
