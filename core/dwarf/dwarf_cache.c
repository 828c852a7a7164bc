/* dwarf_cache.c: kp_dwarf's compact caches, none of them libdwarf's: the
 * sections it may see, string interning, the per-CU line rows, subprogram
 * index and inlined-subroutine map (LLVM's AddrDieMap), the die-offset ->
 * name table and the address -> CU table.  dwarf.c fills them from libdwarf;
 * dwarf_lookup.c reads them. */
#include "dwarf_model.h"
#include "kp_hash.h"
#include "kp_vec.h"
#include "kp_demangle.h"

#include <stdlib.h>
#include <string.h>

/* ---- sections ---------------------------------------------------------- */

static const struct {
	const char *macho, *elf;
} sect_names[] = {
	{"__debug_info", ".debug_info"},         {"__debug_abbrev", ".debug_abbrev"},
	{"__debug_str", ".debug_str"},           {"__debug_line", ".debug_line"},
	{"__debug_ranges", ".debug_ranges"},     {"__debug_aranges", ".debug_aranges"},
	{"__debug_str_offs", ".debug_str_offsets"}, {"__debug_line_str", ".debug_line_str"},
	{"__debug_addr", ".debug_addr"},         {"__debug_loc", ".debug_loc"},
};
_Static_assert(sizeof sect_names / sizeof sect_names[0] == KP__DWARF_NSECT,
               "KP__DWARF_NSECT counts sect_names");

unsigned kp__dwarf_sections(const kp_macho_slice *slice, struct sect *out, bool *have_info)
{
	unsigned nsects = 1;
	*have_info = false;
	for (size_t i = 0; i < KP__DWARF_NSECT; i++) {
		const unsigned char *data = NULL;
		uint64_t size = 0, addr = 0;
		if (!kp_macho_section(slice, "__DWARF", sect_names[i].macho, &data, &size, &addr) ||
		    !data || !size)
			continue;
		struct sect *s = &out[nsects++];
		s->name = sect_names[i].elf;
		s->data = data;
		s->size = size;
		s->addr = addr;
		s->offset = (uint64_t)(data - slice->data);
		*have_info |= i == 0;
	}
	return nsects;
}

/* ---- small utilities ------------------------------------------------------ */

/* A string's bytes (a stridx key), without its NUL. */
struct str_key {
	const char *s;
	size_t len;
};

static bool str_eq(const void *ctx, uint32_t v, const void *key)
{
	const char *t = ((const struct kp__dwarf_cache *)ctx)->strs[v - 1];
	const struct str_key *k = key;
	return strncmp(t, k->s, k->len) == 0 && t[k->len] == '\0';
}

static uint64_t str_hash(const void *ctx, uint32_t v)
{
	const char *t = ((const struct kp__dwarf_cache *)ctx)->strs[v - 1];
	return kp_hash_bytes(t, strlen(t));
}

const char *kp__dwarf_intern_n(struct kp__dwarf_cache *d, const char *s, size_t len)
{
	if (d->nstr >= UINT32_MAX - 1 || !kp_htab_room(&d->stridx, 1024, str_hash, d))
		return NULL;
	struct str_key k = {s, len};
	size_t j = kp_htab_probe(&d->stridx, kp_hash_bytes(s, len), str_eq, d, &k);
	if (d->stridx.slot[j])
		return d->strs[d->stridx.slot[j] - 1];
	if (!kp_vec_reserve((void **)&d->strs, &d->capstr, d->nstr + 1, sizeof *d->strs))
		return NULL;
	struct strblock *b = d->blocks;
	if (!b || b->cap - b->used < len + 1) {
		size_t cap = len + 1 > 65536 ? len + 1 : 65536;
		b = malloc(sizeof *b + cap);
		if (!b)
			return NULL;
		b->cap = cap;
		b->used = 0;
		b->next = d->blocks;
		d->blocks = b;
	}
	char *t = b->data + b->used;
	memcpy(t, s, len);
	t[len] = '\0';
	b->used += len + 1;
	d->strs[d->nstr++] = t;
	kp_htab_put(&d->stridx, j, (uint32_t)d->nstr);
	return t;
}

const char *kp__dwarf_intern(struct kp__dwarf_cache *d, const char *s)
{
	return kp__dwarf_intern_n(d, s, strlen(s));
}

/* llvm-symbolizer's DemangleName: only Itanium names ("_Z...", a block's
 * "___Z..._block_invoke") are demangled (a failure keeps the name); applies
 * to DWARF and nlist names.  A name kept is raw itself (a string of the
 * slice's sections or symbol table, NUL-terminated within them, which
 * outlive the handle): only a demangled name is made, and interned. */
const char *kp__dwarf_name_from_raw(struct kp__dwarf_cache *d, const char *raw)
{
	if (!raw)
		return NULL;
	if (kp_demangle_itanium(raw)) {
		char *dm = kp_demangle(raw);
		if (dm) {
			const char *s = kp__dwarf_intern(d, dm);
			free(dm);
			return s;
		}
	}
	return raw;
}

static struct nameent *name_slot(struct kp__dwarf_cache *d, uint64_t off)
{
	size_t j = (size_t)((off * 0x9e3779b97f4a7c15ull) >> 20) & (d->capnames - 1);
	while (d->names[j].off != UINT64_MAX && d->names[j].off != off)
		j = (j + 1) & (d->capnames - 1);
	return &d->names[j];
}

/* The die-offset -> name table: open addressing, grown at half full. */
struct nameent *kp__dwarf_name_slot(struct kp__dwarf_cache *d, uint64_t off)
{
	if (d->nnames * 2 >= d->capnames) {
		size_t ncap = d->capnames ? d->capnames * 2 : 256;
		struct nameent *nt = malloc(ncap * sizeof *nt);
		if (!nt)
			return NULL;
		for (size_t i = 0; i < ncap; i++)
			nt[i].off = UINT64_MAX;
		struct nameent *old = d->names;
		size_t ocap = d->capnames;
		d->names = nt;
		d->capnames = ncap;
		for (size_t i = 0; i < ocap; i++)
			if (old[i].off != UINT64_MAX)
				*name_slot(d, old[i].off) = old[i];
		free(old);
	}
	return name_slot(d, off);
}

void kp__dwarf_names_forget(struct kp__dwarf_cache *d)
{
	for (size_t i = 0; i < d->capnames; i++)
		d->names[i].off = UINT64_MAX;
	d->nnames = 0;
	if (d->syms_names)
		memset(d->syms_names, 0, d->capsymn * sizeof *d->syms_names);
	d->nsymn = 0;
}

/* ---- address ranges of a DIE ---------------------------------------------- */

bool kp__dwarf_rng_push(struct rngbuf *b, uint64_t lo, uint64_t hi)
{
	if (!kp_vec_reserve((void **)&b->v, &b->cap, b->n + 1, sizeof *b->v))
		return false;
	b->v[b->n].lo = lo;
	b->v[b->n].hi = hi;
	b->n++;
	return true;
}

/* ---- the per-CU address -> subroutine map (LLVM's AddrDieMap) ------------- */

static size_t amap_upper(const struct amapv *m, uint64_t key)
{
	/* DIEs in preorder mostly add at the end: no search then */
	if (m->n && key >= m->v[m->n - 1].lo)
		return m->n;
	return kp_vec_upper_u64(m->v, m->n, sizeof *m->v, offsetof(struct amap, lo), key);
}

int32_t kp__dwarf_amap_find(struct amapv *m, uint64_t addr)
{
	size_t b = kp_vec_upper_u64_near(m->v, m->n, sizeof *m->v, offsetof(struct amap, lo), addr,
	                                 &m->hint);
	return b > 0 && addr < m->v[b - 1].hi ? (int32_t)m->v[b - 1].sub : -1;
}

static bool amap_insert(struct amapv *m, size_t i, struct amap e)
{
	if (!kp_vec_reserve((void **)&m->v, &m->cap, m->n + 1, sizeof *m->v))
		return false;
	memmove(m->v + i + 1, m->v + i, (m->n - i) * sizeof *m->v);
	m->v[i] = e;
	m->n++;
	return true;
}

/* std::map's m[key] = {hi, sub}. */
static bool amap_set(struct amapv *m, uint64_t key, uint64_t hi, uint32_t sub)
{
	size_t i = amap_upper(m, key);
	if (i > 0 && m->v[i - 1].lo == key) {
		m->v[i - 1].hi = hi;
		m->v[i - 1].sub = sub;
		return true;
	}
	return amap_insert(m, i, (struct amap){key, hi, sub});
}

/* Called in DIE preorder, so a child's range lies inside its parent's and
 * splits it into at most three pieces: entry i = [plo, phi) becomes
 * [plo, lo) [lo, hi) [hi, phi), as amap_set three times makes it (which
 * the steps below do without searching again where the entries after i
 * start past hi, as they do unless ranges overlap). */
bool kp__dwarf_amap_add(struct amapv *m, uint64_t lo, uint64_t hi, uint32_t sub)
{
	if (lo >= hi)
		return true;
	size_t b = amap_upper(m, lo);
	if (b == 0 || lo >= m->v[b - 1].hi)
		return amap_insert(m, b, (struct amap){lo, hi, sub});
	size_t i = b - 1;
	struct amap prev = m->v[i];
	if (hi < prev.hi) {
		bool ok = i + 1 < m->n && m->v[i + 1].lo <= hi
		          ? amap_set(m, hi, prev.hi, prev.sub)
		          : amap_insert(m, i + 1, (struct amap){hi, prev.hi, prev.sub});
		if (!ok)
			return false;
	}
	if (lo == prev.lo) {
		m->v[i].hi = hi;
		m->v[i].sub = sub;
		return true;
	}
	m->v[i].hi = lo;
	return amap_insert(m, i + 1, (struct amap){lo, hi, sub});
}

/* ---- paths ----------------------------------------------------------------- */

/* Path join with llvm::sys::path::append's rules: empty parts are skipped,
 * one '/' between parts, none added after a trailing separator. */
static bool pb_append(kp_sb *p, const char *part)
{
	if (!part || !*part)
		return true;
	if (p->n && p->s[p->n - 1] == '/') {
		while (*part == '/')
			part++;
	} else if (p->n && part[0] != '/' && !kp_sb_add(p, "/", 1)) {
		return false;
	}
	return kp_sb_add(p, part, strlen(part));
}

static bool path_is_abs(const char *s)
{
	if (!s || !*s)
		return false;
	if (s[0] == '/')
		return true;
	/* llvm checks Windows absoluteness too: "C:\x", "C:/x", "\\net\x" */
	if (((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')) && s[1] == ':' &&
	    (s[2] == '\\' || s[2] == '/'))
		return true;
	return s[0] == '\\' && s[1] == '\\';
}

bool kp__dwarf_file_name(struct kp__dwarf_cache *d, kp_sb *pb, const char *comp_dir, bool v5,
                         const char *name, const char *dir, uint64_t diridx, const char **out)
{
	*out = NULL;
	pb->n = 0;
	if (path_is_abs(name)) {
		if (!pb_append(pb, name))
			return false;
	} else {
		if ((!v5 || diridx != 0) && comp_dir && *comp_dir && !path_is_abs(dir) &&
		    !pb_append(pb, comp_dir))
			return false;
		if (!pb_append(pb, dir) || !pb_append(pb, name))
			return false;
	}
	return pb->n == 0 || (*out = kp__dwarf_intern_n(d, pb->s, pb->n)) != NULL;
}

/* ---- the decoded CU ---------------------------------------------------------- */

static int seq_cmp(const void *a, const void *b)
{
	const struct seq *x = a, *y = b;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static void func_free(struct func *fn)
{
	free(fn->subs);
	free(fn->map.v);
	fn->subs = NULL;
	fn->map.v = NULL;
	fn->nsubs = fn->capsubs = fn->map.n = fn->map.cap = 0;
}

static void cu_free(struct cu *cu)
{
	for (size_t i = 0; i < cu->nfuncs; i++)
		func_free(&cu->funcs[i]);
	free(cu->funcs);
	free(cu->rows);
	free(cu->seqs);
	free(cu->files);
	free(cu->map.v);
	cu->funcs = NULL;
	cu->rows = NULL;
	cu->seqs = NULL;
	cu->files = NULL;
	cu->map.v = NULL;
	cu->nrows = cu->nseqs = cu->nfiles = cu->nfuncs = cu->capfuncs = 0;
	cu->map.n = cu->map.cap = 0;
}

void kp__dwarf_cu_reset(struct cu *cu)
{
	cu_free(cu);
}

void kp__dwarf_func_reset(struct func *fn)
{
	func_free(fn);
}

void kp__dwarf_sort_seqs(struct cu *cu)
{
	qsort(cu->seqs, cu->nseqs, sizeof *cu->seqs, seq_cmp);
}

bool kp__dwarf_cu_add_func(struct cu *cu, uint64_t die_off, const struct rngbuf *rb)
{
	if (!rb->n)
		return true;
	if (cu->nfuncs >= INT32_MAX ||
	    !kp_vec_reserve((void **)&cu->funcs, &cu->capfuncs, cu->nfuncs + 1, sizeof *cu->funcs))
		return false;
	uint32_t fi = (uint32_t)cu->nfuncs++;
	memset(&cu->funcs[fi], 0, sizeof cu->funcs[fi]);
	cu->funcs[fi].die_off = die_off;
	for (size_t i = 0; i < rb->n; i++)
		if (!kp__dwarf_amap_add(&cu->map, rb->v[i].lo, rb->v[i].hi, fi))
			return false;
	return true;
}

bool kp__dwarf_func_add_sub(struct func *fn, const struct dieattrs *a, uint64_t die_off,
                            int32_t parent, bool is_subprogram, const struct rngbuf *rb,
                            uint32_t *idx)
{
	if (fn->nsubs >= INT32_MAX ||
	    !kp_vec_reserve((void **)&fn->subs, &fn->capsubs, fn->nsubs + 1, sizeof *fn->subs))
		return false;
	*idx = (uint32_t)fn->nsubs++;
	struct sub *sr = &fn->subs[*idx];
	memset(sr, 0, sizeof *sr);
	sr->call_file = a->has_call_file ? (uint32_t)a->call_file : UINT32_MAX;
	sr->call_line = (uint32_t)a->call_line;
	sr->call_column = (uint32_t)a->call_column;
	sr->parent = parent;
	sr->is_subprogram = is_subprogram;
	sr->raw_linkage = a->linkage;
	sr->raw_name = a->name;
	sr->origin = a->origin;
	sr->spec = a->spec;
	sr->has_origin = a->has_origin;
	sr->has_spec = a->has_spec;
	sr->die_off = die_off;
	for (size_t i = 0; i < rb->n; i++)
		if (!kp__dwarf_amap_add(&fn->map, rb->v[i].lo, rb->v[i].hi, *idx))
			return false;
	return true;
}

bool kp__dwarf_cu_end_seq(struct cu *cu, struct seqbuild *sb, size_t ri)
{
	sb->open = false;
	/* llvm keeps only sequences with LowPC < HighPC */
	if (cu->rows[sb->first].addr < cu->rows[ri].addr) {
		if (!kp_vec_reserve((void **)&cu->seqs, &sb->cap, cu->nseqs + 1, sizeof *cu->seqs))
			return false;
		cu->seqs[cu->nseqs++] = (struct seq){cu->rows[sb->first].addr, cu->rows[ri].addr,
		                                     (uint32_t)sb->first,
		                                     (uint32_t)(ri - sb->first + 1)};
	}
	return true;
}

void kp__dwarf_cu_rows_done(struct cu *cu, struct seqbuild *sb)
{
	kp_vec_shrink((void **)&cu->seqs, &sb->cap, cu->nseqs, sizeof *cu->seqs);
}

kp_status kp__dwarf_func_done(struct func *fn, kp_status st, kp_error *err)
{
	if (st != KP_OK) {
		func_free(fn);
		fn->state = -1;
		return kp_error_set(err, st, 0, (long)fn->die_off,
		                    st == KP_ERR_NOMEM ? "out of memory decoding DWARF"
		                                       : "malformed DWARF in the subprogram at 0x%llx",
		                    (unsigned long long)fn->die_off);
	}
	kp_vec_shrink((void **)&fn->subs, &fn->capsubs, fn->nsubs, sizeof *fn->subs);
	kp_vec_shrink((void **)&fn->map.v, &fn->map.cap, fn->map.n, sizeof *fn->map.v);
	fn->state = 1;
	return KP_OK;
}

kp_status kp__dwarf_cu_done(struct cu *cu, kp_status st, kp_error *err)
{
	if (st != KP_OK) {
		cu_free(cu);
		cu->state = -1;
		return kp_error_set(err, st, 0, (long)cu->hdr_off,
		                    st == KP_ERR_NOMEM ? "out of memory decoding DWARF"
		                                       : "malformed DWARF in the unit at 0x%llx",
		                    (unsigned long long)cu->hdr_off);
	}
	kp_vec_shrink((void **)&cu->funcs, &cu->capfuncs, cu->nfuncs, sizeof *cu->funcs);
	kp_vec_shrink((void **)&cu->map.v, &cu->map.cap, cu->map.n, sizeof *cu->map.v);
	cu->state = 1;
	return KP_OK;
}

/* ---- CU index -------------------------------------------------------------------- */

struct endpoint {
	uint64_t addr;
	uint32_t cu;
	bool start;
};

static int ep_cmp(const void *a, const void *b)
{
	const struct endpoint *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (int)x->start - (int)y->start;
}

/* LLVM's DWARFDebugAranges::construct: disjoint ranges, an overlap going to
 * the lowest CU offset (CU indexes are in offset order). */
static kp_status index_from(struct kp__dwarf_cache *d, struct arange *in, size_t n)
{
	struct endpoint *ep = malloc(2 * (n ? n : 1) * sizeof *ep);
	uint32_t *active = malloc((n ? n : 1) * sizeof *active);
	size_t nactive = 0, cap = 0;
	if (!ep || !active)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		ep[2 * i] = (struct endpoint){in[i].lo, in[i].cu, true};
		ep[2 * i + 1] = (struct endpoint){in[i].hi, in[i].cu, false};
	}
	qsort(ep, 2 * n, sizeof *ep, ep_cmp);
	uint64_t prev = UINT64_MAX;
	for (size_t i = 0; i < 2 * n; i++) {
		if (prev < ep[i].addr && nactive) {
			uint32_t best = active[0];
			bool last_active = false;
			for (size_t k = 0; k < nactive; k++) {
				if (active[k] < best)
					best = active[k];
				if (d->nar && active[k] == d->ar[d->nar - 1].cu)
					last_active = true;
			}
			if (d->nar && d->ar[d->nar - 1].hi == prev && last_active) {
				d->ar[d->nar - 1].hi = ep[i].addr;
			} else {
				if (!kp_vec_reserve((void **)&d->ar, &cap, d->nar + 1, sizeof *d->ar))
					goto nomem;
				d->ar[d->nar++] = (struct arange){prev, ep[i].addr, best};
			}
		}
		if (ep[i].start) {
			active[nactive++] = ep[i].cu;
		} else {
			for (size_t k = 0; k < nactive; k++)
				if (active[k] == ep[i].cu) {
					active[k] = active[--nactive];
					break;
				}
		}
		prev = ep[i].addr;
	}
	free(ep);
	free(active);
	return KP_OK;
nomem:
	free(ep);
	free(active);
	return KP_ERR_NOMEM;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int off_cmp(const void *key, const void *elem)
{
	uint64_t k = *(const uint64_t *)key, v = ((const struct cu *)elem)->die_off;
	return k < v ? -1 : k > v;
}

void kp__dwarf_sort_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof *v, u64_cmp);
}

bool kp__dwarf_has_u64(const uint64_t *sorted, size_t n, uint64_t key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (sorted[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && sorted[lo] == key;
}

kp_status kp__dwarf_build_index(struct kp__dwarf_cache *d, const struct aarange *aa,
                                size_t naa, struct arange **raw, size_t *nraw,
                                size_t *capraw)
{
	for (size_t i = 0; i < naa; i++) {
		if (aa[i].lo >= aa[i].hi)
			continue;
		struct cu *cu = d->ncus ? bsearch(&aa[i].cu_die, d->cus, d->ncus, sizeof *d->cus,
		                                  off_cmp)
		                        : NULL;
		if (!cu)
			continue;
		if (!kp_vec_reserve((void **)raw, capraw, *nraw + 1, sizeof **raw))
			return KP_ERR_NOMEM;
		(*raw)[(*nraw)++] = (struct arange){aa[i].lo, aa[i].hi, (uint32_t)(cu - d->cus)};
	}
	return index_from(d, *raw, *nraw);
}

bool kp__dwarf_copy_index(struct kp__dwarf_cache *to, const struct kp__dwarf_cache *d)
{
	to->cus = calloc(d->ncus ? d->ncus : 1, sizeof *to->cus);
	to->ar = malloc(d->nar ? d->nar * sizeof *to->ar : 1);
	if (!to->cus || !to->ar) {
		free(to->cus);
		free(to->ar);
		to->cus = NULL;
		to->ar = NULL;
		return false;
	}
	for (size_t i = 0; i < d->ncus; i++) {
		const struct cu *a = &d->cus[i];
		struct cu *b = &to->cus[i];
		b->hdr_off = a->hdr_off;
		b->die_off = a->die_off;
		b->version = a->version;
		b->rnglists_base = a->rnglists_base;
		b->addr_base = a->addr_base;
	}
	to->ncus = d->ncus;
	if (d->nar)
		memcpy(to->ar, d->ar, d->nar * sizeof *to->ar);
	to->nar = d->nar;
	return true;
}

void kp__dwarf_cache_free(struct kp__dwarf_cache *d)
{
	for (size_t i = 0; i < d->ncus; i++)
		cu_free(&d->cus[i]);
	free(d->cus);
	free(d->ar);
	free(d->ar_last);
	while (d->blocks) {
		struct strblock *b = d->blocks->next;
		free(d->blocks);
		d->blocks = b;
	}
	free(d->strs);
	kp_htab_free(&d->stridx);
	free(d->names);
	free(d->syms_names);
}
