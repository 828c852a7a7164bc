/* fuzz_dwarf.c: DWARF lookups in a mutated dSYM: every slice is opened with
 * kp_dwarf_open and asked for a fixed set of addresses plus every 4th
 * address of its __TEXT_EXEC/__TEXT text section (capped).  Then a second
 * handle sweeps the slice's windows as a cache build does (kp_dwarf_window,
 * whose units decode their functions eagerly) and answers each window's
 * points; each answer must be what the first handle, decoding lazily,
 * gives for that point (status and frames), and where the sweep's shortcut
 * (kp_dwarf_lookup_same) answers, its position the lookup's, or the input
 * traps. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_same.h"
#include "kp_dwarf.h"
#include "kp_macho.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_STEPS 2048

static void look(kp_dwarf *d, uint64_t addr)
{
	kp_symframe fr[8];
	size_t n = 0;
	kp_error err;
	if (kp_dwarf_lookup(d, addr, fr, 8, &n, &err) == KP_OK)
		for (size_t i = 0; i < n && i < 8; i++)
			if (fr[i].function)
				(void)strlen(fr[i].function);
}

struct pts {
	uint64_t v[MAX_STEPS];
	size_t n;
};

static bool push_pt(void *ctx, uint64_t a)
{
	struct pts *p = ctx;
	if (p->n < MAX_STEPS)
		p->v[p->n++] = a;
	return true;
}

/* The sweep on a fresh handle against lazy's answers, point by point. */
static void sweep(const kp_macho_slice *s, kp_macho *m, kp_dwarf *lazy)
{
	static struct pts p;
	kp_dwarf *d = NULL;
	kp_error err;
	if (kp_dwarf_open(s, &d, &err) != KP_OK)
		return;
	kp_dwarf_use_symbols(d, m);
	size_t asked = 0;
	for (size_t w = 0, nw = kp_dwarf_windows(d); w < nw && asked < MAX_STEPS; w++) {
		uint64_t lo, hi;
		p.n = 0;
		if (kp_dwarf_window(d, w, &lo, &hi, push_pt, &p, &err) != KP_OK)
			break;
		for (size_t i = 0; i < p.n && asked < MAX_STEPS; i++, asked++) {
			kp_symframe a[8], b[8];
			size_t na = 0, nb = 0;
			kp_error ea, eb;
			size_t nf = 0;
			const char *ff = NULL;
			uint32_t fl = 0, fc = 0;
			bool fast = kp_dwarf_lookup_same(d, p.v[i], 8, &nf, &ff, &fl, &fc);
			kp_status sa = kp_dwarf_lookup(d, p.v[i], a, 8, &na, &ea);
			if (fast && (sa != KP_OK || !kp_dwarf_same_calls(d) || nf != na || !na ||
			             ff != a[0].file || fl != a[0].line || fc != a[0].column)) {
				fprintf(stderr, "fuzz_dwarf: the shortcut and the lookup differ at 0x%llx\n",
				        (unsigned long long)p.v[i]);
				abort();
			}
			kp_status sb = kp_dwarf_lookup(lazy, p.v[i], b, 8, &nb, &eb);
			bool same = sa == sb && na == nb;
			for (size_t k = 0; same && sa == KP_OK && k < na; k++)
				same = kf_same_str(a[k].function, b[k].function) && kf_same_str(a[k].file, b[k].file) &&
				       a[k].line == b[k].line && a[k].column == b[k].column;
			if (!same) {
				fprintf(stderr, "fuzz_dwarf: the sweep and a lazy lookup differ at 0x%llx\n",
				        (unsigned long long)p.v[i]);
				abort();
			}
		}
		kp_dwarf_window_done(d, w);
	}
	kp_dwarf_close(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	kp_macho *m = NULL;
	kp_error err;
	if (kp_macho_open_mem(buf, size, &m, &err) == KP_OK) {
		for (size_t i = 0; i < kp_macho_nslices(m); i++) {
			const kp_macho_slice *s = kp_macho_slice_at(m, i);
			kp_dwarf *d = NULL;
			if (kp_dwarf_open(s, &d, &err) != KP_OK)
				continue;
			kp_dwarf_use_symbols(d, m);
			const unsigned char *sd;
			uint64_t sz = 0, addr = 0;
			if (!kp_macho_section(s, "__TEXT_EXEC", "__text", &sd, &sz, &addr))
				(void)kp_macho_section(s, "__TEXT", "__text", &sd, &sz, &addr);
			uint64_t steps = sz / 4 < MAX_STEPS ? sz / 4 : MAX_STEPS;
			for (uint64_t k = 0; k < steps; k++)
				look(d, addr + 4 * k);
			const uint64_t probe[] = {0, 1, kp_macho_seg(s), addr + sz, UINT64_MAX};
			for (size_t k = 0; k < sizeof probe / sizeof probe[0]; k++)
				look(d, probe[k]);
			sweep(s, m, d);
			kp_dwarf_close(&d);
		}
	}
	kp_macho_close(&m);
	free(buf);
	return 0;
}
