/* fuzz_macho.c: the Mach-O reader over arbitrary bytes: every slice, its
 * UUID, the sections kpbrowse reads, symbols and function starts near a
 * few addresses, and MH_FILESET entries (each also a slice); IM4P-wrapped
 * kernelcaches are unwrapped first.  A slice's first symbol lookups read
 * its table unsorted: each answer, span included, must be a sorted
 * handle's (traps otherwise). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kp_macho.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool any_addr(void *ctx, uint64_t addr)
{
	(void)ctx, (void)addr;
	return true;
}

static const char *const sects[][2] = {
	{"__TEXT", "__text"}, {"__TEXT_EXEC", "__text"}, {"__DWARF", "__debug_info"},
	{"__DWARF", "__debug_line"}, {NULL, "__debug_aranges"}, {"__DATA", "__bss"},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A heap copy of the exact size so ASan sees any read past the end. */
	unsigned char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	kp_macho *m = NULL, *sorted = NULL;
	kp_error err;
	if (kp_macho_open_mem(buf, size, &m, &err) == KP_OK &&
	    kp_macho_open_mem(buf, size, &sorted, &err) == KP_OK) {
		(void)kp_macho_find_arch(m, NULL);
		(void)kp_macho_find_arch(m, "arm64");
		for (size_t i = 0; i < kp_macho_nslices(m); i++) {
			const kp_macho_slice *s = kp_macho_slice_at(m, i);
			if (s->has_uuid)
				(void)kp_macho_find_uuid(m, s->uuid);
			const unsigned char *d;
			uint64_t sz, addr, text = 0;
			for (size_t k = 0; k < sizeof sects / sizeof sects[0]; k++)
				if (kp_macho_section(s, sects[k][0], sects[k][1], &d, &sz, &addr) && d && sz)
					text = addr;
			uint64_t seg = kp_macho_seg(s);
			const uint64_t probe[] = {text + 4, seg + 0x10, 0, 1, seg, text, UINT64_MAX};
			const kp_macho_slice *ss = kp_macho_slice_at(sorted, i);
			bool have_sorted = kp_macho_symbol_boundaries(sorted, ss, any_addr, NULL);
			size_t h1 = 0, h2 = 0;
			for (size_t k = 0; k < sizeof probe / sizeof probe[0]; k++) {
				const char *name, *n2;
				uint64_t off, o2, lo, hi, lo2, hi2;
				bool a1 = kp__macho_symbol_span(m, s, probe[k], &h1, &name, &off, &lo, &hi);
				if (a1)
					(void)strlen(name);
				bool a2 = have_sorted &&
				          kp__macho_symbol_span(sorted, ss, probe[k], &h2, &n2, &o2, &lo2, &hi2);
				if (have_sorted && (a1 != a2 || (a1 && (strcmp(name, n2) || off != o2 ||
				                                        lo != lo2 || hi != hi2))))
					abort();   /* the unsorted read answered otherwise */
				if (kp_macho_symbol(m, s, probe[k], &name, &off))
					(void)strlen(name);
				uint64_t start;
				if (kp_macho_function_start(m, s, probe[k], &start) && start > probe[k])
					abort();   /* a start is never above the address */
			}
			if (s->fileset_id)
				(void)strlen(s->fileset_id);
			for (size_t k = 0; k < kp_macho_nfileset(s); k++) {
				const char *name;
				uint64_t vm, fo;
				if (kp_macho_fileset_entry(s, k, &name, &vm, &fo))
					(void)strlen(name);
			}
		}
		(void)kp_macho_find_uuid(m, "00000000000000000000000000000000");
		const char *w = kp_macho_warning(m);
		if (w)
			(void)strlen(w);
	}
	kp_macho_close(&m);
	kp_macho_close(&sorted);
	free(buf);
	return 0;
}
