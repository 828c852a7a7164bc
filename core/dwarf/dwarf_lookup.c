/* dwarf_lookup.c: kp_dwarf_lookup and kp_dwarf_for_each_boundary over the
 * cached arrays of dwarf_model.h: the address -> CU table, line-table row
 * search, the inlined-subroutine map, and the nlist-name override.  Decoding
 * (libdwarf) is dwarf.c's, reached through kp__dwarf_cu_decode and
 * kp__dwarf_func_decode. */
#include "dwarf_model.h"

#include <stddef.h>
#include <stdlib.h>

#include "kp_vec.h"

static const char *file_of(const struct cu *cu, uint64_t idx)
{
	if (idx == UINT32_MAX || (int64_t)idx < cu->file_base ||
	    (uint64_t)((int64_t)idx - cu->file_base) >= cu->nfiles)
		return NULL;
	return cu->files[(int64_t)idx - cu->file_base];
}

/* llvm's LineTable::lookupAddress: the first sequence ending after addr
 * must start at or before it; then the last row at or before addr. */
static const struct row *line_for(struct cu *cu, uint64_t addr)
{
	size_t lo = kp_vec_upper_u64_near(cu->seqs, cu->nseqs, sizeof *cu->seqs,
	                                  offsetof(struct seq, hi), addr, &cu->seq_hint);
	if (lo == cu->nseqs || cu->seqs[lo].lo > addr)
		return NULL;
	const struct seq *s = &cu->seqs[lo];
	size_t a = s->first + 1, b = s->first + s->count - 1; /* upper_bound in [a,b) */
	/* Addresses asked in ascending order (a cache build) mostly land on the
	 * row of the last answer or a few rows after it. */
	size_t h = cu->row_hint;
	if (h >= a - 1 && h < b && cu->rows[h].addr <= addr) {
		for (int step = 0; step < 8; step++, h++)
			if (h + 1 == b || cu->rows[h + 1].addr > addr) {
				cu->row_hint = h;
				return &cu->rows[h];
			}
	}
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (cu->rows[mid].addr <= addr)
			a = mid + 1;
		else
			b = mid;
	}
	cu->row_hint = a - 1;
	return &cu->rows[a - 1];
}

/* The frames DWARF gives for addr (see kp_dwarf_lookup), without the
 * symbol-table override. */
static kp_status frames_of(kp_dwarf *d, uint64_t addr, kp_symframe *frames, size_t max,
                              size_t *n, bool *whole, kp_error *err)
{
	struct kp__dwarf_cache *c = kp__dwarf_cache(d);
	*n = 0;
	*whole = true; /* the last frame written is the outermost one */
	size_t lo = kp_vec_upper_u64_near(c->ar, c->nar, sizeof *c->ar, offsetof(struct arange, hi),
	                                  addr, &c->ar_hint);
	if (lo == c->nar || c->ar[lo].lo > addr)
		return KP_OK;
	struct cu *cu = &c->cus[c->ar[lo].cu];
	if (cu->state == 0) {
		kp_status st = kp__dwarf_cu_decode(d, cu, err);
		if (st != KP_OK)
			return st;
	}
	if (cu->state < 0)
		return kp_error_set(err, KP_ERR_FORMAT, 0, (long)cu->hdr_off,
		                    "malformed DWARF in the unit at 0x%llx",
		                    (unsigned long long)cu->hdr_off);

	const struct row *row = line_for(cu, addr);
	const char *rowfile = row ? file_of(cu, row->file) : NULL;
	int32_t leaf = -1;
	struct func *fn = NULL;
	int32_t fi = kp__dwarf_amap_find(&cu->map, addr);
	if (fi >= 0) {
		fn = &cu->funcs[fi];
		if (fn->state == 0) {
			kp_status st = kp__dwarf_func_decode(d, cu, fn, err);
			if (st != KP_OK)
				return st;
		}
		if (fn->state < 0)
			return kp_error_set(err, KP_ERR_FORMAT, 0, (long)fn->die_off,
			                    "malformed DWARF in the subprogram at 0x%llx",
			                    (unsigned long long)fn->die_off);
		leaf = kp__dwarf_amap_find(&fn->map, addr);
	}
	if (leaf < 0) {
		/* no subroutine DIE: llvm still reports the line table's row */
		if (rowfile && max) {
			frames[0] = (kp_symframe){NULL, rowfile, row->line, row->column};
			*n = 1;
		}
		return KP_OK;
	}
	kp_status st = KP_OK;
	size_t k = 0;
	const struct sub *prev = NULL;
	for (int32_t s = leaf; s >= 0 && k < max;) {
		struct sub *sr = fn->subs + s;
		kp_symframe *f = &frames[k];
		f->function = kp__dwarf_sub_name(d, cu, sr, &st);
		if (st != KP_OK)
			return kp_error_set(err, st, 0, -1, "malformed DWARF names");
		if (!prev) {
			f->file = rowfile;
			f->line = rowfile ? row->line : 0;
			f->column = rowfile ? row->column : 0;
		} else {
			/* the caller's position, from the callee's DW_AT_call_* */
			f->file = file_of(cu, prev->call_file);
			f->line = prev->call_line;
			f->column = prev->call_column;
		}
		k++;
		if (sr->is_subprogram)
			break;
		prev = sr;
		s = sr->parent;
		if (s >= 0 && k == max)
			*whole = false;
	}
	*n = k;
	return KP_OK;
}

/* The printed form of an nlist name, memoized by kp_macho's pointer (every
 * lookup in a function hits the same symbol). */
static const char *sym_name(struct kp__dwarf_cache *c, const char *sym)
{
	if (c->nsymn * 2 >= c->capsymn) {
		size_t ncap = c->capsymn ? c->capsymn * 2 : 256;
		struct symname *nt = calloc(ncap, sizeof *nt);
		if (!nt)
			return NULL;
		for (size_t i = 0; i < c->capsymn; i++) {
			if (!c->syms_names[i].sym)
				continue;
			size_t j = (size_t)(((uintptr_t)c->syms_names[i].sym * 0x9e3779b97f4a7c15ull) >> 24) &
			           (ncap - 1);
			while (nt[j].sym)
				j = (j + 1) & (ncap - 1);
			nt[j] = c->syms_names[i];
		}
		free(c->syms_names);
		c->syms_names = nt;
		c->capsymn = ncap;
	}
	size_t j = (size_t)(((uintptr_t)sym * 0x9e3779b97f4a7c15ull) >> 24) & (c->capsymn - 1);
	while (c->syms_names[j].sym && c->syms_names[j].sym != sym)
		j = (j + 1) & (c->capsymn - 1);
	if (c->syms_names[j].sym)
		return c->syms_names[j].name;
	/* llvm drops the one '_' every Mach-O symbol carries */
	const char *name = kp__dwarf_name_from_raw(c, sym[0] == '_' ? sym + 1 : sym);
	if (name) {
		c->syms_names[j] = (struct symname){sym, name};
		c->nsymn++;
	}
	return name;
}

kp_status kp_dwarf_lookup(kp_dwarf *d, uint64_t addr, kp_symframe *frames, size_t max,
                          size_t *n, kp_error *err)
{
	*n = 0;
	if (!d || (max && !frames))
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "no DWARF handle");
	struct kp__dwarf_cache *c = kp__dwarf_cache(d);
	bool whole = true;
	kp_status st = frames_of(d, addr, frames, max, n, &whole, err);
	if (st != KP_OK || !c->syms || !max)
		return st;
	const char *sym = NULL;
	uint64_t off = 0;
	if (!kp_macho_symbol_near(c->syms, c->slice, addr, &c->sym_hint, &sym, &off) || !sym)
		return KP_OK;
	const char *name = sym_name(c, sym);
	if (!name)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	if (*n == 0) {
		frames[0] = (kp_symframe){name, NULL, 0, 0};
		*n = 1;
	} else if (whole) {
		frames[*n - 1].function = name;
	}
	return KP_OK;
}

/* The first unit of part (of nparts): parts are contiguous runs of units. */
static size_t part_start(size_t ncus, size_t part, size_t nparts)
{
	return (size_t)((uint64_t)ncus * part / nparts);
}

size_t kp_dwarf_part_of(kp_dwarf *d, uint64_t addr, size_t nparts)
{
	struct kp__dwarf_cache *c = kp__dwarf_cache(d);
	size_t lo = kp_vec_upper_u64_near(c->ar, c->nar, sizeof *c->ar, offsetof(struct arange, hi),
	                                  addr, &c->ar_hint);
	if (nparts < 2 || lo == c->nar || c->ar[lo].lo > addr)
		return 0;
	size_t part = 0;
	while (part + 1 < nparts && c->ar[lo].cu >= part_start(c->ncus, part + 1, nparts))
		part++;
	return part;
}

kp_status kp_dwarf_for_each_boundary(kp_dwarf *d, bool (*fn)(void *ctx, uint64_t addr),
                                     void (*progress)(void *ctx, size_t done, size_t total),
                                     void *ctx, kp_error *err)
{
	return kp_dwarf_for_each_boundary_part(d, 0, 1, fn, progress, ctx, err);
}

kp_status kp_dwarf_for_each_boundary_part(kp_dwarf *d, size_t part, size_t nparts,
                                          bool (*fn)(void *ctx, uint64_t addr),
                                          void (*progress)(void *ctx, size_t done, size_t total),
                                          void *ctx, kp_error *err)
{
	if (!d || !fn || part >= nparts)
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "no DWARF handle");
	struct kp__dwarf_cache *c = kp__dwarf_cache(d);
	bool ok = true;
	kp_status st = KP_OK;
	/* only CUs the index can reach are decoded */
	bool *reached = calloc(c->ncus ? c->ncus : 1, sizeof *reached);
	if (!reached)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	for (size_t i = 0; i < c->nar && ok; i++) {
		reached[c->ar[i].cu] = true;
		if (part == 0)
			ok = fn(ctx, c->ar[i].lo) && fn(ctx, c->ar[i].hi);
	}
	size_t first = part_start(c->ncus, part, nparts), end = part_start(c->ncus, part + 1, nparts);
	for (size_t ci = first; ci < end && ok && st == KP_OK; ci++) {
		struct cu *cu = &c->cus[ci];
		if (!reached[ci])
			continue;
		if (cu->state == 0 && (st = kp__dwarf_cu_decode(d, cu, err)) != KP_OK)
			break;
		if (cu->state < 0) {
			st = kp_error_set(err, KP_ERR_FORMAT, 0, (long)cu->hdr_off,
			                  "malformed DWARF in the unit at 0x%llx",
			                  (unsigned long long)cu->hdr_off);
			break;
		}
		for (size_t i = 0; i < cu->nseqs && ok; i++)
			ok = fn(ctx, cu->seqs[i].lo) && fn(ctx, cu->seqs[i].hi);
		for (size_t i = 0; i < cu->nrows && ok; i++)
			ok = fn(ctx, cu->rows[i].addr);
		for (size_t i = 0; i < cu->map.n && ok; i++) {
			const struct amap *m = &cu->map.v[i];
			struct func *f = &cu->funcs[m->sub];
			ok = fn(ctx, m->lo) && fn(ctx, m->hi);
			if (f->state == 0 && (st = kp__dwarf_func_decode(d, cu, f, err)) != KP_OK)
				break;
			if (f->state < 0) {
				st = kp_error_set(err, KP_ERR_FORMAT, 0, (long)f->die_off,
				                  "malformed DWARF in the subprogram at 0x%llx",
				                  (unsigned long long)f->die_off);
				break;
			}
			for (size_t k = 0; k < f->map.n && ok; k++)
				ok = fn(ctx, f->map.v[k].lo) && fn(ctx, f->map.v[k].hi);
		}
		if (progress && st == KP_OK)
			progress(ctx, ci + 1 - first, end - first);
	}
	free(reached);
	if (st != KP_OK)
		return st;
	return ok ? KP_OK : kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
}

void kp_dwarf_use_symbols(kp_dwarf *d, kp_macho *m)
{
	if (d)
		kp__dwarf_cache(d)->syms = m;
}
