/* macho_symtab.c: symbol lookup in a slice's LC_SYMTAB (the nlist sort
 * built on the first kp_macho_symbol), function starts (LC_FUNCTION_STARTS,
 * decoded on the first kp_macho_function_start) and the MH_FILESET entry
 * accessors.
 *
 * The tables read here were validated by kp_macho_open* in macho.c (every
 * nlist string index names a terminated string, every fileset name is
 * terminated inside its command), so nothing is checked again. */
#include "macho_model.h"
#include "kp_vec.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define N_STAB 0xe0u
#define N_TYPE 0x0eu
#define N_SECT 0x0eu

/* An nlist entry e of s: a mark where extents end (any entry with a
 * section, not a stab), a symbol that names addresses (a mark of type
 * N_SECT), its value. */
static bool is_mark(const struct mslice *s, const unsigned char *e)
{
	return !(e[4] & N_STAB) && e[5] != 0 && e[5] <= s->nsects;
}

static bool is_sym(const struct mslice *s, const unsigned char *e)
{
	return is_mark(s, e) && (e[4] & N_TYPE) == N_SECT;
}

static uint64_t nl_value(const struct mslice *s, const unsigned char *e)
{
	return s->pub.is64 ? kp_le64(e + 8) : kp_le32(e + 8);
}

/* Whether v is in cmp's order already (as linkers write symbol tables:
 * then a pass costs less than any sort). */
static bool in_order(const void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	const char *p = v;
	for (size_t i = 1; i < n; i++)
		if (cmp(p + (i - 1) * size, p + i * size) > 0)
			return false;
	return true;
}

/* A record's sort key and where it is. */
struct kv {
	uint64_t k;
	size_t i;
};

/* Sorts v[0..n) stably by k: LSD radix over the keys' span, 11 bits a
 * pass (qsort with a comparator was most of a cold first answer from a
 * dSYM whose symbol table is in name order, as ld64 writes externals).
 * false when out of memory. */
static bool radix_kv(struct kv *v, size_t n)
{
	if (n < 2)
		return true;
	uint64_t lo = v[0].k, hi = lo;
	for (size_t i = 1; i < n; i++) {
		lo = v[i].k < lo ? v[i].k : lo;
		hi = v[i].k > hi ? v[i].k : hi;
	}
	unsigned bits = 0;
	for (uint64_t span = hi - lo; span; span >>= 1)
		bits++;
	if (!bits)
		return true;
	struct kv *tmp = malloc(n * sizeof *tmp), *src = v, *dst = tmp;
	size_t *count = malloc(2048 * sizeof *count);
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return false;
	}
	for (unsigned shift = 0; shift < bits; shift += 11) {
		memset(count, 0, 2048 * sizeof *count);
		for (size_t i = 0; i < n; i++)
			count[((src[i].k - lo) >> shift) & 2047]++;
		for (size_t d = 0, sum = 0; d < 2048; d++) {
			size_t x = count[d];
			count[d] = sum;
			sum += x;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[((src[i].k - lo) >> shift) & 2047]++] = src[i];
		struct kv *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof *v);
	free(tmp);
	free(count);
	return true;
}

/* Lower addresses first; at one address the symbol llvm-symbolizer keeps
 * (SymbolizableObjectFile: a stable sort on address and extent, the last
 * of each address kept): the largest extent, then the last in the symbol
 * table (externals follow locals: IOService::start before its ltmp0). */
static int sym_cmp(const void *a, const void *b)
{
	const struct msym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	uint64_t xs = x->end ? x->end - x->addr : 0, ys = y->end ? y->end - y->addr : 0;
	if (xs != ys)
		return xs > ys ? -1 : 1;
	return x->idx > y->idx ? -1 : x->idx < y->idx;
}

/* A point of llvm's object::computeSymbolSizes: every nlist entry with a
 * section and every section's end, ordered by section then address.  (llvm
 * counts stabs too; dSYMs and shipped binaries have none among their code,
 * and a stab inside a function is not let cut the function's name short.) */
struct mark {
	uint64_t addr;
	uint32_t sect;
};

static int mark_cmp(const void *a, const void *b)
{
	const struct mark *x = a, *y = b;
	if (x->sect != y->sect)
		return x->sect < y->sect ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* m[0..n) by section, then address (mark_cmp's order); false when out of
 * memory. */
static bool sort_marks(struct mark *m, size_t n)
{
	if (in_order(m, n, sizeof *m, mark_cmp))
		return true;
	uint64_t lo = n ? m[0].addr : 0, hi = lo;
	for (size_t i = 1; i < n; i++) {
		lo = m[i].addr < lo ? m[i].addr : lo;
		hi = m[i].addr > hi ? m[i].addr : hi;
	}
	if (hi - lo >= (uint64_t)1 << 55) {   /* no room for the section above it */
		qsort(m, n, sizeof *m, mark_cmp);
		return true;
	}
	struct kv *kv = malloc(n * sizeof *kv);
	struct mark *out = malloc(n * sizeof *out);
	bool ok = kv && out;
	for (size_t i = 0; ok && i < n; i++)
		kv[i] = (struct kv){(uint64_t)m[i].sect << 55 | (m[i].addr - lo), i};
	ok = ok && radix_kv(kv, n);
	for (size_t i = 0; ok && i < n; i++)
		out[i] = m[kv[i].i];
	if (ok)
		memcpy(m, out, n * sizeof *m);
	free(kv);
	free(out);
	return ok;
}

/* *v (n symbols in symbol-table order) by address, stably from the last
 * entry to the first (so that at one address the later entry comes
 * first); a new array, the old one freed; false when out of memory (v
 * unchanged). */
static bool sort_syms_by_addr(struct msym **v, size_t n)
{
	struct msym *in = *v, *out = malloc(n ? n * sizeof *out : 1);
	struct kv *kv = malloc(n ? n * sizeof *kv : 1);
	bool ok = kv && out;
	for (size_t i = 0; ok && i < n; i++)
		kv[i] = (struct kv){in[n - 1 - i].addr, n - 1 - i};
	ok = ok && radix_kv(kv, n);
	for (size_t i = 0; ok && i < n; i++)
		out[i] = in[kv[i].i];
	free(kv);
	if (!ok) {
		free(out);
		return false;
	}
	free(in);
	*v = out;
	return true;
}

/* v (by address, the later entry first at one address) in sym_cmp's
 * order: each run at one address by extent, stably. */
static void order_ties(struct msym *v, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t e = i + 1;
		while (e < n && v[e].addr == v[i].addr)
			e++;
		for (size_t k = i + 1; k < e; k++) {   /* insertion: a handful at most */
			struct msym x = v[k];
			size_t j = k;
			for (; j > i && sym_cmp(&v[j - 1], &x) > 0; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
		i = e;
	}
}

/* Each symbol's extent as llvm-symbolizer sizes it: up to the next symbol
 * (of any kind) or section end in its own section, even when the symbol
 * lies before its section's start (_mh_execute_header at the __TEXT
 * segment's start, in __text).  end stays 0 where nothing follows. */
static bool size_syms(struct mslice *s, struct msym *v, size_t n)
{
	size_t ent = s->pub.is64 ? NLIST_SIZE_64 : NLIST_SIZE;
	size_t nm = 0, cap = (size_t)s->nsyms + s->nsects;
	struct mark *m = cap ? malloc(cap * sizeof *m) : NULL;
	if (cap && !m)
		return false;
	for (uint32_t i = 0; i < s->nsyms; i++) {
		const unsigned char *e = s->syms + (size_t)i * ent;
		if (is_mark(s, e))
			m[nm++] = (struct mark){nl_value(s, e), e[5]};
	}
	if (!sort_marks(m, nm)) {
		free(m);
		return false;
	}
	/* the sections' ends (in section order already) merged in from the
	 * back, the symbols' marks moving up to make room */
	size_t i = nm, j = s->nsects;
	nm += s->nsects;
	for (size_t k = nm; j > 0; k--) {
		struct mark end = {s->sects[j - 1].addr + s->sects[j - 1].size, (uint32_t)j};
		if (i > 0 && mark_cmp(&m[i - 1], &end) > 0)
			m[k - 1] = m[--i];
		else
			m[k - 1] = end, j--;
	}
	size_t lo = 0;
	for (size_t i = 0; i < n; i++) {
		/* the first mark of v[i]'s section above its address: a few steps
		 * on from the last one's when the symbols come in order (the next
		 * mark is mostly the next symbol), else a binary search */
		struct mark key = {v[i].addr, v[i].sect};
		if (i == 0 || mark_cmp(&(struct mark){v[i - 1].addr, v[i - 1].sect}, &key) > 0)
			lo = 0;
		size_t hi = nm;
		for (int step = 0; step < 4 && lo < hi && mark_cmp(&m[lo], &key) <= 0; step++)
			lo++;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (mark_cmp(&m[mid], &key) <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		v[i].end = lo < nm && m[lo].sect == v[i].sect ? m[lo].addr : 0;
	}
	free(m);
	return true;
}

static bool build_sorted(struct mslice *s)
{
	size_t ent = s->pub.is64 ? NLIST_SIZE_64 : NLIST_SIZE;
	struct msym *v = s->nsyms ? malloc((size_t)s->nsyms * sizeof *v) : NULL;
	if (s->nsyms && !v)
		return false;
	size_t n = 0;
	for (uint32_t i = 0; i < s->nsyms; i++) {
		const unsigned char *e = s->syms + (size_t)i * ent;
		if (!is_sym(s, e))
			continue;
		v[n].addr = nl_value(s, e);
		v[n].strx = kp_le32(e);
		v[n].sect = e[5];
		v[n].idx = i;
		n++;
	}
	/* by address first: sizing then steps from one symbol's mark to the
	 * next instead of searching */
	bool sorted = true;
	for (size_t i = 1; i < n && sorted; i++)
		sorted = v[i - 1].addr <= v[i].addr;
	if ((!sorted && !sort_syms_by_addr(&v, n)) || !size_syms(s, v, n)) {
		free(v);
		return false;
	}
	if (!in_order(v, n, sizeof *v, sym_cmp)) {
		if (sorted && !sort_syms_by_addr(&v, n)) {   /* ties not yet later-first */
			free(v);
			return false;
		}
		order_ties(v, n);
	}
	s->sorted_syms = v;
	s->nsorted = n;
	s->sorted = true;
	return true;
}

/* A slice's first SCANS lookups read its symbol table where it lies rather
 * than sort it (two passes over the nlist cost a fraction of the sort's
 * allocations and page faults: most of a one-address answer's own time);
 * the next one sorts. */
#define SCANS 2

/* kp__macho_symbol_span's answer from the unsorted table, exactly the
 * sorted table's (build_sorted): the greatest symbol address a at or below
 * addr, of the symbols there the one with the longest extent (each
 * section's first mark above a, size_syms) then the last in the table, and
 * the least symbol address above addr for the span's end. */
static bool scan_span(const struct mslice *s, uint64_t addr, const char **name,
                      uint64_t *offset, uint64_t *lo, uint64_t *hi)
{
	size_t ent = s->pub.is64 ? NLIST_SIZE_64 : NLIST_SIZE;
	const unsigned char *p = s->syms, *end = p + (size_t)s->nsyms * ent;
	const unsigned char *first = NULL, *last = NULL; /* the symbols at a */
	uint64_t a = 0, b = 0;
	bool above = false;
	for (const unsigned char *e = p; e < end; e += ent) {
		if (!is_sym(s, e))
			continue;
		uint64_t v = nl_value(s, e);
		if (v > addr) {
			if (!above || v < b)
				b = v, above = true;
		} else if (!first || v > a) {
			a = v, first = last = e;
		} else if (v == a) {
			last = e;
		}
	}
	if (!first)
		return false;
	/* each section's first mark above a: its end, or a mark before it */
	uint64_t next[256];
	bool has[256];
	for (size_t j = 1; j < 256; j++) {
		has[j] = j <= s->nsects && s->sects[j - 1].addr + s->sects[j - 1].size > a;
		next[j] = has[j] ? s->sects[j - 1].addr + s->sects[j - 1].size : 0;
	}
	for (const unsigned char *e = p; e < end; e += ent) {
		if (!is_mark(s, e))
			continue;
		uint64_t v = nl_value(s, e);
		if (v > a && (!has[e[5]] || v < next[e[5]]))
			next[e[5]] = v, has[e[5]] = true;
	}
	const unsigned char *y = NULL;
	uint64_t yend = 0, ysize = 0;
	for (const unsigned char *e = first; e <= last; e += ent) {
		if (!is_sym(s, e) || nl_value(s, e) != a)
			continue;
		uint64_t x = has[e[5]] ? next[e[5]] : 0, size = x ? x - a : 0;
		if (!y || size >= ysize)   /* at one extent, the later entry */
			y = e, yend = x, ysize = size;
	}
	const struct msect *sec = &s->sects[y[5] - 1];
	if (yend ? addr >= yend : (addr < sec->addr || addr - sec->addr >= sec->size))
		return false;
	if (name)
		*name = s->strtab + kp_le32(y);
	if (offset)
		*offset = addr - a;
	uint64_t reach = yend ? yend
	                 : sec->size > UINT64_MAX - sec->addr ? UINT64_MAX : sec->addr + sec->size;
	*lo = yend || a > sec->addr ? a : sec->addr;
	*hi = above && b < reach ? b : reach;
	return true;
}

/* The private record of s, one of m's slices. */
static struct mslice *ms_of(kp_macho *m, const kp_macho_slice *s)
{
	for (size_t i = 0; m && s && i < m->nslices; i++)
		if (&m->slices[i].pub == s)
			return &m->slices[i];
	return NULL;
}

/* LC_FUNCTION_STARTS: ULEB128 deltas, the first from the __TEXT segment's
 * vmaddr, ended by a zero delta or the table's end.  A delta that runs off
 * the table, or overflows, ends it.  Ascending by construction. */
static bool decode_funcs(struct mslice *s)
{
	s->funcs_done = true;
	if (!s->fstarts || !s->pub.has_text)
		return true;
	uint64_t *v = malloc((size_t)s->fstarts_size * sizeof *v);   /* >= 1 byte per start */
	if (!v)
		return false;
	size_t n = 0;
	uint64_t addr = s->pub.text_vmaddr;
	const unsigned char *p = s->fstarts, *end = p + s->fstarts_size;
	while (p < end) {
		uint64_t d = 0;
		unsigned shift = 0;
		bool done = false;
		while (p < end && shift < 64) {
			unsigned char b = *p++;
			d |= (uint64_t)(b & 0x7f) << shift;
			shift += 7;
			if (!(b & 0x80)) {
				done = true;
				break;
			}
		}
		if (!done || d == 0 || addr + d < addr)
			break;
		addr += d;
		v[n++] = addr;
	}
	s->funcs = v;
	s->nfuncs = n;
	return true;
}

bool kp_macho_function_start(kp_macho *m, const kp_macho_slice *s, uint64_t addr,
                             uint64_t *start)
{
	struct mslice *ms = ms_of(m, s);
	if (!ms || (!ms->funcs_done && !decode_funcs(ms)) || ms->nfuncs == 0)
		return false;
	size_t lo = kp_vec_upper_u64(ms->funcs, ms->nfuncs, sizeof *ms->funcs, 0, addr);
	if (lo == 0)
		return false;
	uint64_t f = ms->funcs[lo - 1];
	/* the same section: a start in __text never names an address in __const */
	for (size_t i = 0; i < ms->nsects; i++) {
		const struct msect *sec = &ms->sects[i];
		if (f >= sec->addr && f - sec->addr < sec->size) {
			if (addr - sec->addr >= sec->size)
				return false;
			*start = f;
			return true;
		}
	}
	return false;
}

/* The first calls on a slice read its symbols unsorted (and count), later
 * ones sort them once: calls on one kp_macho must not run concurrently;
 * different handles are independent. */
bool kp_macho_symbol(kp_macho *m, const kp_macho_slice *s, uint64_t addr, const char **name,
                     uint64_t *offset)
{
	struct mslice *ms = ms_of(m, s);
	return ms && kp_macho_symbol_near(m, s, addr, &ms->hint, name, offset);
}

bool kp__macho_symbol_span(kp_macho *m, const kp_macho_slice *s, uint64_t addr, size_t *hint,
                           const char **name, uint64_t *offset, uint64_t *lo, uint64_t *hi)
{
	struct mslice *ms = ms_of(m, s);
	if (!ms || !ms->has_symtab)
		return false;
	if (!ms->sorted && ms->scans < SCANS) {
		ms->scans++;
		return scan_span(ms, addr, name, offset, lo, hi);
	}
	if (!ms->sorted && !build_sorted(ms))
		return false;
	/* Last entry with entry.addr <= addr, then back to the first of its run
	 * of equal addresses (the preferred name). */
	size_t up = kp_vec_upper_u64_near(ms->sorted_syms, ms->nsorted, sizeof *ms->sorted_syms,
	                                  offsetof(struct msym, addr), addr, hint);
	if (up == 0)
		return false;
	size_t k = up - 1;
	while (k > 0 && ms->sorted_syms[k - 1].addr == ms->sorted_syms[k].addr)
		k--;
	const struct msym *y = &ms->sorted_syms[k];
	const struct msect *sec = &ms->sects[y->sect - 1];
	/* inside its extent (llvm-symbolizer's size), else inside its section */
	if (y->end ? addr >= y->end : (addr < sec->addr || addr - sec->addr >= sec->size))
		return false;
	if (name)
		*name = ms->strtab + y->strx;
	if (offset)
		*offset = addr - y->addr;
	/* the same entry answers from its address (in its section, without an
	 * extent) to the next entry's; the same way up to its reach */
	uint64_t end = y->end ? y->end
	               : sec->size > UINT64_MAX - sec->addr ? UINT64_MAX : sec->addr + sec->size;
	*lo = y->end || y->addr > sec->addr ? y->addr : sec->addr;
	*hi = up < ms->nsorted && ms->sorted_syms[up].addr < end ? ms->sorted_syms[up].addr : end;
	return true;
}

bool kp_macho_symbol_near(kp_macho *m, const kp_macho_slice *s, uint64_t addr, size_t *hint,
                          const char **name, uint64_t *offset)
{
	uint64_t lo, hi;
	return kp__macho_symbol_span(m, s, addr, hint, name, offset, &lo, &hi);
}

bool kp_macho_symbol_boundaries(kp_macho *m, const kp_macho_slice *s,
                                bool (*fn)(void *ctx, uint64_t addr), void *ctx)
{
	struct mslice *ms = ms_of(m, s);
	if (!ms)
		return true;
	for (size_t i = 0; i < ms->nsects; i++)
		if (!fn(ctx, ms->sects[i].addr) || !fn(ctx, ms->sects[i].addr + ms->sects[i].size))
			return false;
	if (!ms->has_symtab)
		return true;
	if (!ms->sorted && !build_sorted(ms))
		return false;
	for (size_t i = 0; i < ms->nsorted; i++)
		if (!fn(ctx, ms->sorted_syms[i].addr))
			return false;
	return true;
}

size_t kp_macho_nfileset(const kp_macho_slice *s)
{
	return s ? ((const struct mslice *)s)->nfileset : 0;
}

bool kp_macho_fileset_entry(const kp_macho_slice *s, size_t i, const char **name,
                            uint64_t *vmaddr, uint64_t *fileoff)
{
	if (!s)
		return false;
	const struct mslice *ms = (const struct mslice *)s;
	if (i >= ms->nfileset)
		return false;
	if (name)
		*name = ms->fileset[i].name;
	if (vmaddr)
		*vmaddr = ms->fileset[i].vmaddr;
	if (fileoff)
		*fileoff = ms->fileset[i].fileoff;
	return true;
}

#define S_SYMBOL_STUBS 0x8u
#define INDIRECT_SYMBOL_LOCAL 0x80000000u
#define INDIRECT_SYMBOL_ABS 0x40000000u

bool kp_macho_stub_symbol(const kp_macho_slice *s, uint64_t addr, const char **name)
{
	const struct mslice *ms = (const struct mslice *)s;
	if (!ms || !ms->has_symtab || !ms->indirect)
		return false;
	for (size_t i = 0; i < ms->nsects; i++) {
		const struct msect *x = &ms->sects[i];
		if (x->type != S_SYMBOL_STUBS || x->reserved2 == 0 || addr < x->addr ||
		    addr - x->addr >= x->size)
			continue;
		uint64_t k = (uint64_t)x->reserved1 + (addr - x->addr) / x->reserved2;
		if (k >= ms->nindirect)
			return false;
		uint32_t sym = kp_le32(ms->indirect + 4 * k);
		if (sym & (INDIRECT_SYMBOL_LOCAL | INDIRECT_SYMBOL_ABS) || sym >= ms->nsyms)
			return false;
		/* every symtab entry's name index was checked when the file was opened */
		uint32_t ent = ms->pub.is64 ? NLIST_SIZE_64 : NLIST_SIZE;
		*name = ms->strtab + kp_le32(ms->syms + (uint64_t)sym * ent);
		return true;
	}
	return false;
}
