/* test_rnglists.c: kp__dwarf_rnglist, kpbrowse's own reader of DWARF 5
 * range lists (libdwarf never sees .debug_rnglists): every entry kind, both
 * ways to name a list (DW_FORM_sec_offset, DW_FORM_rnglistx), addresses
 * through .debug_addr, and lists that lie (indexes, offsets and bases out of
 * range, truncation, unknown kinds) answered -1 without reading outside.
 * Valid lists as clang and dsymutil 19 write them are checked end to end by
 * test_lookup_llvm19 against llvm-symbolizer. */
#include <stdlib.h>

#include "dwarf_model.h"
#include "kt.h"

/* .debug_addr: 8-byte header, then 0x5000, 0x5100, 0x5200 */
static const unsigned char addr_sect[] = {
	0x1c, 0, 0, 0, 5, 0, 8, 0,
	0x00, 0x50, 0, 0, 0, 0, 0, 0,
	0x00, 0x51, 0, 0, 0, 0, 0, 0,
	0x00, 0x52, 0, 0, 0, 0, 0, 0,
};

/* .debug_rnglists: one table, header (12 bytes) with 2 offsets (base 12),
 * list 0 at base+8 (offset 20), list 1 at base+39 (offset 51). */
static const unsigned char rng_sect[] = {
	/* 0: unit_length, version 5, address_size 8, seg 0, offset_entry_count 2 */
	0x4c, 0, 0, 0, 5, 0, 8, 0, 2, 0, 0, 0,
	/* 12: offsets, relative to 12 */
	8, 0, 0, 0, 39, 0, 0, 0,
	/* 20: list 0: offset_pair [0x10,0x20); base_address 0x2000; offset_pair
	 * [0,4); start_length 0x3000+0x10; end */
	4, 0x10, 0x20,
	5, 0x00, 0x20, 0, 0, 0, 0, 0, 0,
	4, 0x00, 0x04,
	7, 0x00, 0x30, 0, 0, 0, 0, 0, 0, 0x10,
	0,
	/* 46: junk, then list 1 at 51: base_addressx 1; offset_pair [8,0x10);
	 * startx_length 0 +4; startx_endx 1..2; start_end; end */
	0xee, 0xee, 0xee, 0xee, 0xee,
	1, 1,
	4, 8, 0x10,
	3, 0, 4,
	2, 1, 2,
	6, 0x00, 0x60, 0, 0, 0, 0, 0, 0, 0x08, 0x60, 0, 0, 0, 0, 0, 0,
	0,
};

static struct kp__dwarf_lists lists(void)
{
	struct kp__dwarf_lists l = {rng_sect, addr_sect, sizeof rng_sect, sizeof addr_sect, 12, 8,
	                            8, true};
	_Static_assert(sizeof rng_sect == 80, "offsets in the comments");
	return l;
}

/* runs one list; returns the status and writes the ranges as text */
static int run(const struct kp__dwarf_lists *l, uint64_t val, bool indexed, char *out, size_t cap)
{
	struct rngbuf rb = {0};
	int r = kp__dwarf_rnglist(l, val, indexed, 0x1000, &rb);
	size_t k = 0;
	out[0] = 0;
	for (size_t i = 0; i < rb.n && k < cap; i++)
		k += (size_t)snprintf(out + k, cap - k, "%s%" PRIx64 "-%" PRIx64, i ? " " : "",
		                      rb.v[i].lo, rb.v[i].hi);
	free(rb.v);
	return r;
}

int main(void)
{
	char got[256];
	struct kp__dwarf_lists l = lists();
	const char *list0 = "1010-1020 2000-2004 3000-3010";
	const char *list1 = "5108-5110 5000-5004 5100-5200 6000-6008";

	KT_CHECK(run(&l, 20, false, got, sizeof got) == 0, "sec_offset list 0 reads to its end");
	KT_STREQ(got, list0, "offset_pair, base_address, start_length");
	KT_CHECK(run(&l, 0, true, got, sizeof got) == 0, "rnglistx 0 reads to its end");
	KT_STREQ(got, list0, "rnglistx 0 is the list at base + offsets[0]");
	KT_CHECK(run(&l, 1, true, got, sizeof got) == 0, "rnglistx 1 reads to its end");
	KT_STREQ(got, list1, "base_addressx, startx_length, startx_endx, start_end via .debug_addr");

	/* lies */
	KT_CHECK(run(&l, 2, true, got, sizeof got) == -1, "index past offset_entry_count");
	KT_CHECK(run(&l, UINT64_MAX / 2, true, got, sizeof got) == -1, "huge index");
	KT_CHECK(run(&l, sizeof rng_sect, false, got, sizeof got) == -1, "offset at the end");
	KT_CHECK(run(&l, UINT64_MAX, false, got, sizeof got) == -1, "offset far past the end");
	KT_CHECK(run(&l, 46, false, got, sizeof got) == -1, "unknown entry kind");

	struct kp__dwarf_lists t = l;
	t.rng_size = 30; /* list 0 cut inside base_address */
	KT_CHECK(run(&t, 20, false, got, sizeof got) == -1, "truncated entry");
	KT_STREQ(got, "1010-1020", "what came before the damage stays");
	t = l;
	t.rng_size = 45; /* list 0 without its end_of_list */
	KT_CHECK(run(&t, 20, false, got, sizeof got) == -1, "no end_of_list");

	t = l;
	t.rnglists_base = UINT64_MAX;
	KT_CHECK(run(&t, 0, true, got, sizeof got) == -1, "rnglistx without DW_AT_rnglists_base");
	t.rnglists_base = 8;
	KT_CHECK(run(&t, 0, true, got, sizeof got) == -1, "rnglists_base inside the header");
	t.rnglists_base = sizeof rng_sect + 4;
	KT_CHECK(run(&t, 0, true, got, sizeof got) == -1, "rnglists_base past the section");

	unsigned char lying[sizeof rng_sect];
	memcpy(lying, rng_sect, sizeof lying);
	lying[16] = 0xff, lying[17] = 0xff, lying[18] = 0xff, lying[19] = 0x7f; /* offsets[1] */
	t = l;
	t.rng = lying;
	KT_CHECK(run(&t, 1, true, got, sizeof got) == -1, "offsets entry pointing past the section");

	t = l;
	t.addr_base = UINT64_MAX;
	KT_CHECK(run(&t, 51, false, got, sizeof got) == -1, "addrx without DW_AT_addr_base");
	t.addr_base = sizeof addr_sect + 8;
	KT_CHECK(run(&t, 51, false, got, sizeof got) == -1, "addr_base past .debug_addr");
	t = l;
	t.addr_size = 16; /* index 1 now past the end */
	KT_CHECK(run(&t, 51, false, got, sizeof got) == -1, "addrx index past .debug_addr");
	t = l;
	t.addr = NULL;
	KT_CHECK(run(&t, 51, false, got, sizeof got) == -1, "no .debug_addr");
	t = l;
	t.rng = NULL;
	KT_CHECK(run(&t, 20, false, got, sizeof got) == -1, "no .debug_rnglists");
	t = l;
	t.asz = 3;
	KT_CHECK(run(&t, 20, false, got, sizeof got) == -1, "address size neither 4 nor 8");
	return kt_done();
}
