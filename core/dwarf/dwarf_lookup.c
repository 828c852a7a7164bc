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

/* cu decoded (on first use); its error when it is malformed. */
static kp_status decoded_cu(kp_dwarf *d, struct cu *cu, kp_error *err)
{
	if (cu->state == 0) {
		kp_status st = kp__dwarf_cu_decode(d, cu, err);
		if (st != KP_OK)
			return st;
	}
	if (cu->state < 0)
		return kp_error_set(err, KP_ERR_FORMAT, 0, (long)cu->hdr_off,
		                    "malformed DWARF in the unit at 0x%llx",
		                    (unsigned long long)cu->hdr_off);
	return KP_OK;
}

/* fn (of cu) decoded, likewise. */
static kp_status decoded_func(kp_dwarf *d, struct cu *cu, struct func *fn, kp_error *err)
{
	if (fn->state == 0) {
		kp_status st = kp__dwarf_func_decode(d, cu, fn, err);
		if (st != KP_OK)
			return st;
	}
	if (fn->state < 0)
		return kp_error_set(err, KP_ERR_FORMAT, 0, (long)fn->die_off,
		                    "malformed DWARF in the subprogram at 0x%llx",
		                    (unsigned long long)fn->die_off);
	return KP_OK;
}

/* The entry of m holding addr, NULL when none (kp__dwarf_amap_find's). */
static const struct amap *amap_entry(struct amapv *m, uint64_t addr)
{
	size_t b = kp_vec_upper_u64_near(m->v, m->n, sizeof *m->v, offsetof(struct amap, lo), addr,
	                                 &m->hint);
	return b > 0 && addr < m->v[b - 1].hi ? &m->v[b - 1] : NULL;
}

/* The frames DWARF gives for addr (see kp_dwarf_lookup), without the
 * symbol-table override. */
static kp_status frames_of(kp_dwarf *d, uint64_t addr, kp_symframe *frames, size_t max,
                              size_t *n, bool *whole, struct kp__dwarf_memo *span, kp_error *err)
{
	struct kp__dwarf_cache *c = kp__dwarf_cache(d);
	*n = 0;
	*whole = true; /* the last frame written is the outermost one */
	span->valid = false;
	size_t lo = kp_vec_upper_u64_near(c->ar, c->nar, sizeof *c->ar, offsetof(struct arange, hi),
	                                  addr, &c->ar_hint);
	if (lo == c->nar || c->ar[lo].lo > addr)
		return KP_OK;
	struct cu *cu = &c->cus[c->ar[lo].cu];
	/* where this unit answers (index ranges are disjoint, in order) */
	span->cu = cu;
	span->lo = lo && c->ar[lo - 1].hi > c->ar[lo].lo ? c->ar[lo - 1].hi : c->ar[lo].lo;
	span->hi = c->ar[lo].hi;
	kp_status dst = decoded_cu(d, cu, err);
	if (dst != KP_OK)
		return dst;

	const struct row *row = line_for(cu, addr);
	const char *rowfile = row ? file_of(cu, row->file) : NULL;
	int32_t leaf = -1;
	struct func *fn = NULL;
	const struct amap *fe = amap_entry(&cu->map, addr), *le = NULL;
	if (fe) {
		fn = &cu->funcs[fe->sub];
		if ((dst = decoded_func(d, cu, fn, err)) != KP_OK)
			return dst;
		le = amap_entry(&fn->map, addr);
		leaf = le ? (int32_t)le->sub : -1;
	}
	if (leaf < 0) {
		/* no subroutine DIE: llvm still reports the line table's row */
		if (rowfile && max) {
			frames[0] = (kp_symframe){NULL, rowfile, row->line, row->column};
			*n = 1;
		}
		return KP_OK;
	}
	/* the same function and innermost subroutine all through here */
	span->lo = fe->lo > span->lo ? fe->lo : span->lo;
	span->lo = le->lo > span->lo ? le->lo : span->lo;
	span->hi = fe->hi < span->hi ? fe->hi : span->hi;
	span->hi = le->hi < span->hi ? le->hi : span->hi;
	span->valid = true;
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

/* The first frame's line-table position at addr in the memo's unit (the
 * one part of the memo's answer that moves inside its span). */
static void memo_position(const struct kp__dwarf_memo *mm, uint64_t addr, const char **file,
                          uint32_t *line, uint32_t *column)
{
	const struct row *row = line_for(mm->cu, addr);
	const char *rowfile = row ? file_of(mm->cu, row->file) : NULL;
	*file = rowfile;
	*line = rowfile ? row->line : 0;
	*column = rowfile ? row->column : 0;
}

kp_status kp_dwarf_lookup(kp_dwarf *d, uint64_t addr, kp_symframe *frames, size_t max,
                          size_t *n, kp_error *err)
{
	*n = 0;
	if (!d || (max && !frames))
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "no DWARF handle");
	struct kp__dwarf_cache *c = kp__dwarf_cache(d);
	struct kp__dwarf_memo *mm = &c->memo;
	const char *sym = NULL;
	c->same_calls = false;
	bool symbols = c->syms && max;
	if (symbols && addr >= c->sym_lo && addr < c->sym_hi) {
		sym = c->sym_at;   /* the same symbol as the last answer's */
	} else if (symbols && kp__macho_symbol_span(c->syms, c->slice, addr, &c->sym_hint, &sym, NULL,
	                                            &c->sym_lo, &c->sym_hi)) {
		c->sym_at = sym;
	} else {
		sym = NULL;
		c->sym_lo = c->sym_hi = 0;
	}
	if (mm->valid && addr >= mm->lo && addr < mm->hi && max == mm->max && sym == mm->sym) {
		/* the last answer's unit, function, subroutine and symbol: only
		 * the first frame's line-table position may differ (frames_of) */
		memcpy(frames, mm->f, mm->n * sizeof *frames);
		memo_position(mm, addr, &frames[0].file, &frames[0].line, &frames[0].column);
		*n = mm->n;
		c->same_calls = true;
		return KP_OK;
	}
	/* a lookup that fails leaves no memo: the next one is answered whole */
	mm->valid = false;
	bool whole = true;
	struct kp__dwarf_memo span;
	kp_status st = frames_of(d, addr, frames, max, n, &whole, &span, err);
	if (st != KP_OK)
		return st;
	if (symbols && sym) {
		const char *name = sym_name(c, sym);
		if (!name)
			return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
		if (*n == 0) {
			frames[0] = (kp_symframe){name, NULL, 0, 0};
			*n = 1;
		} else if (whole) {
			frames[*n - 1].function = name;
		}
	}
	mm->valid = span.valid && *n >= 1 && *n <= KP__DWARF_MEMO;
	if (mm->valid) {
		mm->lo = span.lo;
		mm->hi = span.hi;
		mm->cu = span.cu;
		mm->sym = sym;
		mm->max = max;
		mm->n = *n;
		memcpy(mm->f, frames, *n * sizeof *frames);
	}
	return KP_OK;
}

kp_status kp_dwarf_for_each_boundary(kp_dwarf *d, bool (*fn)(void *ctx, uint64_t addr),
                                     void (*progress)(void *ctx, size_t done, size_t total),
                                     void *ctx, kp_error *err)
{
	if (!d || !fn)
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
		ok = fn(ctx, c->ar[i].lo) && fn(ctx, c->ar[i].hi);
	}
	for (size_t ci = 0; ci < c->ncus && ok && st == KP_OK; ci++) {
		struct cu *cu = &c->cus[ci];
		if (!reached[ci])
			continue;
		if ((st = decoded_cu(d, cu, err)) != KP_OK)
			break;
		for (size_t i = 0; i < cu->nseqs && ok; i++)
			ok = fn(ctx, cu->seqs[i].lo) && fn(ctx, cu->seqs[i].hi);
		for (size_t i = 0; i < cu->nrows && ok; i++)
			ok = fn(ctx, cu->rows[i].addr);
		for (size_t i = 0; i < cu->map.n && ok; i++) {
			const struct amap *m = &cu->map.v[i];
			struct func *f = &cu->funcs[m->sub];
			ok = fn(ctx, m->lo) && fn(ctx, m->hi);
			if ((st = decoded_func(d, cu, f, err)) != KP_OK)
				break;
			for (size_t k = 0; k < f->map.n && ok; k++)
				ok = fn(ctx, f->map.v[k].lo) && fn(ctx, f->map.v[k].hi);
		}
		if (progress && st == KP_OK)
			progress(ctx, ci + 1, c->ncus);
	}
	free(reached);
	if (st != KP_OK)
		return st;
	return ok ? KP_OK : kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
}

size_t kp_dwarf_windows(kp_dwarf *d)
{
	return d ? kp__dwarf_cache(d)->nar + 1 : 0;
}

uint64_t kp_dwarf_window_start(kp_dwarf *d, size_t i)
{
	struct kp__dwarf_cache *c = kp__dwarf_cache(d);
	return i == 0 || i > c->nar ? 0 : c->ar[i - 1].hi;
}

bool kp_dwarf_same_calls(const kp_dwarf *d)
{
	return d && kp__dwarf_cache((kp_dwarf *)d)->same_calls;
}

/* kp_dwarf_lookup's memo test, without its symbol-span search: the symbol
 * of the last answer must hold addr too. */
bool kp_dwarf_lookup_same(kp_dwarf *d, uint64_t addr, size_t max, size_t *n, const char **file,
                          uint32_t *line, uint32_t *column)
{
	struct kp__dwarf_cache *c = kp__dwarf_cache(d);
	struct kp__dwarf_memo *mm = &c->memo;
	if (!mm->valid || addr < mm->lo || addr >= mm->hi || max != mm->max)
		return false;
	if (c->syms && max ? addr < c->sym_lo || addr >= c->sym_hi || c->sym_at != mm->sym
	                   : mm->sym != NULL)
		return false;
	memo_position(mm, addr, file, line, column);
	*n = mm->n;
	c->same_calls = true;
	return true;
}

uint64_t kp_dwarf_code_start(kp_dwarf *d)
{
	struct kp__dwarf_cache *c = kp__dwarf_cache(d);
	return c->nar ? c->ar[0].lo : 0;
}

/* fn(ctx, a) when a is in [lo, hi); false when fn says stop. */
#define PUT(a) ((a) < lo || (a) >= hi || fn(ctx, (a)))

kp_status kp_dwarf_window(kp_dwarf *d, size_t i, uint64_t *wlo, uint64_t *whi,
                          bool (*fn)(void *ctx, uint64_t addr), void *ctx, kp_error *err)
{
	struct kp__dwarf_cache *c = kp__dwarf_cache(d);
	uint64_t lo = kp_dwarf_window_start(d, i);
	*wlo = lo;
	*whi = i < c->nar ? c->ar[i].hi : UINT64_MAX;
	if (i > 0 && !fn(ctx, lo))   /* 0 is no boundary: the answers start at the first */
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	if (i >= c->nar || lo >= *whi)
		return KP_OK;
	/* lookups in [lo, hi) all go to this unit: its index range is the
	 * first whose end is above them (ranges are disjoint and in order) */
	lo = c->ar[i].lo > lo ? c->ar[i].lo : lo;
	uint64_t hi = *whi;
	struct cu *cu = &c->cus[c->ar[i].cu];
	c->eager = true;   /* every function of the unit is about to be read */
	kp_status st = decoded_cu(d, cu, err);
	if (st != KP_OK)
		return st;
	bool ok = fn(ctx, lo);
	/* line_for changes its answer only at a sequence's ends and at rows
	 * (whatever their order: it compares rows' addresses with addr); a
	 * sequence's ends are its first row and its end_sequence row
	 * (kp__dwarf_cu_add_row), so its rows are all.  The rows go first,
	 * ascending after lo when the unit has one sequence, then the
	 * functions', ascending too where they nest as compilers write them
	 * (the cache build sorts less then) */
	for (size_t k = 0; k < cu->nseqs && ok; k++) {
		const struct seq *s = &cu->seqs[k];
		if (s->hi <= lo || s->lo >= hi)
			continue;
		for (size_t r = s->first; r < (size_t)s->first + s->count && ok; r++)
			ok = PUT(cu->rows[r].addr);
	}
	/* the functions (disjoint, in order) and, inside each, its inlined
	 * subroutines (the function's start, theirs, its end) */
	size_t m0 = kp_vec_upper_u64(cu->map.v, cu->map.n, sizeof *cu->map.v,
	                             offsetof(struct amap, lo), lo);
	for (size_t k = m0 ? m0 - 1 : 0; k < cu->map.n && cu->map.v[k].lo < hi && ok; k++) {
		const struct amap *m = &cu->map.v[k];
		if (m->hi <= lo)
			continue;
		ok = PUT(m->lo);
		struct func *f = &cu->funcs[m->sub];
		if ((st = decoded_func(d, cu, f, err)) != KP_OK)
			return st;
		uint64_t flo = m->lo > lo ? m->lo : lo, fhi = m->hi < hi ? m->hi : hi;
		size_t s0 = kp_vec_upper_u64(f->map.v, f->map.n, sizeof *f->map.v,
		                             offsetof(struct amap, lo), flo);
		for (size_t j = s0 ? s0 - 1 : 0; j < f->map.n && f->map.v[j].lo < fhi && ok; j++)
			ok = PUT(f->map.v[j].lo) && PUT(f->map.v[j].hi);
		ok = ok && PUT(m->hi);
	}
	return ok ? KP_OK : kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
}
#undef PUT

void kp_dwarf_window_done(kp_dwarf *d, size_t i)
{
	struct kp__dwarf_cache *c = kp__dwarf_cache(d);
	if (i >= c->nar)
		return;
	if (!c->ar_last) {
		bool *seen = calloc(c->ncus ? c->ncus : 1, sizeof *seen);
		c->ar_last = calloc(c->nar, sizeof *c->ar_last);
		if (!seen || !c->ar_last) {
			free(seen);
			free(c->ar_last);
			c->ar_last = NULL;
			return;   /* nothing given back */
		}
		for (size_t k = c->nar; k-- > 0;) {
			c->ar_last[k] = !seen[c->ar[k].cu];
			seen[c->ar[k].cu] = true;
		}
		free(seen);
	}
	struct cu *cu = &c->cus[c->ar[i].cu];
	if (!c->ar_last[i] || cu->state != 1)
		return;
	if (c->memo.cu == cu)
		c->memo.valid = false;
	kp__dwarf_cu_reset(cu);
	kp__dwarf_names_forget(c);
	cu->state = 0;
	cu->row_hint = cu->seq_hint = 0;
}

void kp_dwarf_use_symbols(kp_dwarf *d, kp_macho *m)
{
	if (d) {
		kp__dwarf_cache(d)->syms = m;
		kp__dwarf_cache(d)->memo.valid = false;
		kp__dwarf_cache(d)->sym_lo = kp__dwarf_cache(d)->sym_hi = 0;
	}
}
