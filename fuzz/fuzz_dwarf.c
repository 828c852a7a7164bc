/* fuzz_dwarf.c: DWARF lookups in a mutated dSYM: every slice is opened with
 * kp_dwarf_open and asked for a fixed set of addresses plus every 4th
 * address of its __TEXT_EXEC/__TEXT text section (capped). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
			kp_dwarf_close(&d);
		}
	}
	kp_macho_close(&m);
	free(buf);
	return 0;
}
