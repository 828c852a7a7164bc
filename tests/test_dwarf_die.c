/* test_dwarf_die.c: dwarf_die.c, kp_dwarf's own .debug_info reader, gives
 * what libdwarf gives: on every slice of every fixture dSYM (clang 14, and
 * clang/dsymutil 19 as DWARF 4 and DWARF 5, skipped where absent) the symbol
 * cache built through it is byte-identical to the one built with libdwarf
 * alone, and it decodes every unit and function there itself.  What it
 * leaves to libdwarf is exercised by the hostile corpus (test_hostile). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_priv.h"
#include "kt.h"
#include "symcache.h"

/* The cache image of slice i of path, and the fast/slow decode counts. */
static void *image_of(const char *path, size_t i, bool libdwarf_only, size_t *len,
                      size_t *nfast, size_t *nslow)
{
	kp_macho *m = NULL;
	kp_dwarf *d = NULL;
	kp_error err;
	void *img = NULL;
	*len = *nfast = *nslow = 0;
	if (kp_macho_open(path, &m, &err) != KP_OK)
		return NULL;
	const kp_macho_slice *s = kp_macho_slice_at(m, i);
	if (s && kp_dwarf_open(s, &d, &err) == KP_OK) {
		kp__dwarf_libdwarf_only(d, libdwarf_only);
		kp_dwarf_use_symbols(d, m);
		kp_symcache_key key = {s->uuid, s->arch, 1, 1};
		if (kp__symcache_build(d, m, s, &key, path, NULL, &img, len, &err) != KP_OK)
			img = NULL;
		*nfast = kp__dwarf_cache(d)->nfast;
		*nslow = kp__dwarf_cache(d)->nslow;
		kp_dwarf_close(&d);
	}
	kp_macho_close(&m);
	return img;
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
			void *a = image_of(path, i, false, &la, &fa, &sa);
			void *b = image_of(path, i, true, &lb, &fb, &sb);
			KT_CHECK(a && b && la == lb && la > 1000 && !memcmp(a, b, la),
			         "%s/%s slice %zu: cache bytes as with libdwarf alone (%zu, %zu bytes)",
			         set, names[k], i, la, lb);
			KT_CHECK(fa > 10 && sa == 0 && fb == 0 && sb > 10,
			         "%s/%s slice %zu: every unit and function read without libdwarf (%zu fast, "
			         "%zu libdwarf; libdwarf alone: %zu)",
			         set, names[k], i, fa, sa, sb);
			free(a);
			free(b);
		}
	}
}

int main(void)
{
	same_as_libdwarf("bin");
	same_as_libdwarf("llvm19-dwarf4/bin");
	same_as_libdwarf("llvm19-dwarf5/bin");
	return kt_done();
}
