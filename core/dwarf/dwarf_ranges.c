/* dwarf_ranges.c: the address ranges of a DIE that kp_dwarf reads itself:
 * DWARF 5 range lists (.debug_rnglists), DWARF 4 ones (.debug_ranges) and
 * the .debug_addr entries that range lists and the addrx forms name.  Every
 * read is bounds-checked (rd.h). */
#include "dwarf_model.h"
#include "kp_rd.h"

/* ---- DWARF 5 range lists ------------------------------------------------- */

bool kp__dwarf_addrx(const unsigned char *addr, uint64_t size, uint64_t base, unsigned asz,
                     bool little, uint64_t idx, uint64_t *out)
{
	if (!addr || base == UINT64_MAX || base > size || idx > (size - base) / asz)
		return false;
	struct kp__rd r = {addr, base + idx * asz, size, little, true};
	*out = kp__rd_fixed(&r, asz);
	return r.ok;
}

static bool addrx(const struct kp__dwarf_lists *l, uint64_t idx, uint64_t *out)
{
	return kp__dwarf_addrx(l->addr, l->addr_size, l->addr_base, l->asz, l->little, idx, out);
}

/* libdwarf 20210528 frees its table array twice when a .debug_rnglists (or
 * .debug_loclists) table claims more bytes than the section holds (found by
 * fuzz/fuzz_dwarf; tests/hostile/fuzz-dwarf-1), and reads far outside the
 * section when a table's offset array lies.  So libdwarf never sees either
 * section: kpbrowse needs no locations, and reads DWARF 5 range lists itself
 * here, through rd.h, checking every offset. */
int kp__dwarf_rnglist(const struct kp__dwarf_lists *l, uint64_t val, bool indexed, uint64_t base,
                      struct rngbuf *out)
{
	if (!l->rng || (l->asz != 4 && l->asz != 8))
		return -1;
	struct kp__rd r = {l->rng, val, l->rng_size, l->little, true};
	if (indexed) {
		/* rnglistx: DWARF32 offsets array right after the table header
		 * (12 bytes: length, version, sizes, offset_entry_count) */
		uint64_t b = l->rnglists_base;
		if (b == UINT64_MAX || b < 12 || b > r.end)
			return -1;
		r.pos = b - 4;
		uint64_t count = kp__rd_fixed(&r, 4);
		if (!r.ok || val >= count || val > (r.end - b) / 4)
			return -1;
		r.pos = b + val * 4;
		uint64_t off = kp__rd_fixed(&r, 4);
		if (!r.ok || off > r.end - b)
			return -1;
		r.pos = off + b;
	}
	for (;;) {
		if (r.pos >= r.end)
			return -1;
		uint64_t lo = 0, hi = 0;
		bool ok = true, emit = true;
		switch (r.p[r.pos++]) {
		case 0: /* DW_RLE_end_of_list */
			return 0;
		case 1: /* DW_RLE_base_addressx */
			ok = addrx(l, kp__rd_uleb(&r), &base) && r.ok;
			emit = false;
			break;
		case 2: /* DW_RLE_startx_endx */
			ok = addrx(l, kp__rd_uleb(&r), &lo) && r.ok && addrx(l, kp__rd_uleb(&r), &hi) && r.ok;
			break;
		case 3: /* DW_RLE_startx_length */
			ok = addrx(l, kp__rd_uleb(&r), &lo) && r.ok;
			hi = lo + kp__rd_uleb(&r);
			break;
		case 4: /* DW_RLE_offset_pair */
			lo = base + kp__rd_uleb(&r);
			hi = base + kp__rd_uleb(&r);
			break;
		case 5: /* DW_RLE_base_address */
			base = kp__rd_fixed(&r, l->asz);
			emit = false;
			break;
		case 6: /* DW_RLE_start_end */
			lo = kp__rd_fixed(&r, l->asz);
			hi = kp__rd_fixed(&r, l->asz);
			break;
		case 7: /* DW_RLE_start_length */
			lo = kp__rd_fixed(&r, l->asz);
			hi = lo + kp__rd_uleb(&r);
			break;
		default:
			return -1;
		}
		if (!ok || !r.ok)
			return -1;
		if (emit && !kp__dwarf_rng_push(out, lo, hi))
			return -2;
	}
}

int kp__dwarf_ranges_v4(const unsigned char *sec, uint64_t size, bool little, unsigned asz,
                        uint64_t off, uint64_t base, struct rngbuf *out)
{
	if (!sec || off >= size)
		return 0;
	struct kp__rd r = {sec, off, size, little, true};
	uint64_t max = asz == 8 ? UINT64_MAX : 0xffffffffu;
	for (;;) {
		uint64_t a = kp__rd_fixed(&r, asz), b = kp__rd_fixed(&r, asz);
		if (!r.ok)
			return 0;
		if (a == 0 && b == 0)
			return 1;
		if (a == max) {
			base = b;
			continue;
		}
		if (!kp__dwarf_rng_push(out, a + base, b + base))
			return -2;
	}
}
