/* sigmatch.c: signature files applied to one slice (sigmatch.h). */
#include "sigmatch.h"
#include "kp_hash.h"
#include "kp_vec.h"
#include "probe.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ADRP_REACH 8      /* instructions after an adrp where its add may be */
#define CALL_REACH 64     /* instructions after a reference where its call may be */
#define X86_LEA_LEN 7u    /* REX.W 8D modrm disp32 */

typedef struct code {
	const unsigned char *data;
	uint64_t addr, size;
} code;

/* A string of a data section: where it is, hashed by its bytes. */
typedef struct strtab {
	const char *seg, *sect;
	const unsigned char *data;
	uint64_t addr, size;
	uint32_t *slot;       /* offset + 1 of a string start, 0 empty */
	size_t nslot;         /* a power of two */
} strtab;

typedef struct ref {
	uint64_t target;      /* the string's address */
	uint64_t at;          /* the instruction forming it */
	uint64_t func;        /* the function holding it */
} ref;

typedef struct call {
	uint64_t target, at;
} call;

typedef struct named {
	uint64_t addr;
	const char *name;
	int rank;             /* 2 anchors, 1 backtrace, 0 caller */
	size_t votes;
	bool drop;
} named;

typedef struct ctx {
	kp_macho *m;
	const kp_macho_slice *sl;
	bool arm;
	kp__probe *p;
	code code[2];
	size_t ncode;
	strtab *tabs;
	size_t ntabs, tcap;
	uint64_t *wanted;     /* sorted string addresses */
	size_t nwanted, wcap;
	ref *refs;
	size_t nrefs, rcap;
	call *calls;          /* every bl / call to a function start, by target */
	size_t ncalls, ccap;
	bool calls_done;
	named *names;
	size_t nnames, ncap;
	kp__sigstats st;
	bool nomem;
} ctx;

static bool tab_build(strtab *t)
{
	size_t n = 0;
	for (uint64_t i = 0; i < t->size; i++)
		n += t->data[i] == 0;
	t->nslot = 16;
	while (t->nslot < 2 * n + 16)
		t->nslot *= 2;
	if (t->size >= UINT32_MAX || !(t->slot = calloc(t->nslot, sizeof *t->slot)))
		return false;
	for (uint64_t i = 0; i < t->size;) {
		const unsigned char *e = memchr(t->data + i, 0, (size_t)(t->size - i));
		if (!e)
			break;   /* not NUL-terminated: not a string */
		size_t len = (size_t)(e - (t->data + i));
		for (size_t h = kp_hash_bytes(t->data + i, len) & (t->nslot - 1);; h = (h + 1) & (t->nslot - 1)) {
			if (!t->slot[h]) {
				t->slot[h] = (uint32_t)i + 1;
				break;
			}
			const unsigned char *o = t->data + t->slot[h] - 1;
			if (strlen((const char *)o) == len && memcmp(o, t->data + i, len) == 0)
				break;   /* the first one is kept */
		}
		i += len + 1;
	}
	return true;
}

/* The strtab of a section: NULL when the slice has no such section (or no
 * bytes for it), or out of memory (c->nomem). */
static strtab *tab_of(ctx *c, const char *seg, const char *sect)
{
	for (size_t i = 0; i < c->ntabs; i++)
		if (strcmp(c->tabs[i].seg, seg) == 0 && strcmp(c->tabs[i].sect, sect) == 0)
			return c->tabs[i].slot ? &c->tabs[i] : NULL;
	strtab *t = kp_vec_push((void **)&c->tabs, &c->ntabs, &c->tcap, sizeof *t);
	if (!t) {
		c->nomem = true;
		return NULL;
	}
	memset(t, 0, sizeof *t);
	t->seg = seg;
	t->sect = sect;
	if (!kp_macho_section(c->sl, seg, sect, &t->data, &t->size, &t->addr) || !t->data)
		return NULL;
	if (!tab_build(t))
		c->nomem = true;
	return t->slot ? t : NULL;
}

/* The address of string s[0..n) whole in t, or 0. */
static uint64_t tab_find(const strtab *t, const char *s, size_t n)
{
	for (size_t h = kp_hash_bytes((const unsigned char *)s, n) & (t->nslot - 1); t->slot[h];
	     h = (h + 1) & (t->nslot - 1)) {
		const unsigned char *o = t->data + t->slot[h] - 1;
		/* in bounds before reading: a string at the section's end is
		 * shorter than n, and memcmp may read all n bytes */
		if ((size_t)(t->data + t->size - o) > n && memcmp(o, s, n) == 0 && o[n] == 0)
			return t->addr + t->slot[h] - 1;
	}
	return 0;
}

static bool wanted(const ctx *c, uint64_t a)
{
	if (!c->nwanted || a < c->wanted[0] || a > c->wanted[c->nwanted - 1])
		return false;
	size_t u = kp_vec_upper_u64(c->wanted, c->nwanted, sizeof *c->wanted, 0, a);
	return u > 0 && c->wanted[u - 1] == a;
}

static const code *code_at(const ctx *c, uint64_t a)
{
	for (size_t i = 0; i < c->ncode; i++)
		if (a >= c->code[i].addr && a - c->code[i].addr < c->code[i].size)
			return &c->code[i];
	return NULL;
}

static bool decode_at(ctx *c, uint64_t a, kp__pinsn *in)
{
	const code *k = code_at(c, a);
	if (!k)
		return false;
	uint64_t off = a - k->addr;
	return kp__probe_decode(c->p, k->data + off, (size_t)(k->size - off), a, in);
}

/* x86_64: whether decoding forward from the start of a's function lands on
 * a (so a is a real instruction boundary); *func gets that start. */
static bool boundary(ctx *c, uint64_t a, uint64_t *func)
{
	if (!kp_macho_function_start(c->m, c->sl, a, func))
		return false;
	if (c->arm)
		return (a & 3) == 0;
	kp__pinsn in;
	uint64_t x = *func;
	while (x < a && decode_at(c, x, &in) && in.size)
		x += in.size;
	return x == a;
}

static int sext(uint64_t v, unsigned bits)
{
	return (int)((int64_t)(v << (64 - bits)) >> (64 - bits));
}

/* A confirmed reference to target at `at`, in the function starting at func. */
static void add_ref(ctx *c, uint64_t target, uint64_t at, uint64_t func)
{
	ref *r = kp_vec_push((void **)&c->refs, &c->nrefs, &c->rcap, sizeof *r);
	if (!r) {
		c->nomem = true;
		return;
	}
	*r = (ref){target, at, func};
	c->st.confirmed++;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* arm64: adr Xd, target; adrp Xd, page then add Xn, Xd, #off. */
static void sweep_arm(ctx *c, const code *k)
{
	uint64_t lo = c->wanted[0] & ~0xfffull, hi = c->wanted[c->nwanted - 1];
	for (uint64_t i = 0; i + 4 <= k->size; i += 4) {
		uint32_t w = le32(k->data + i);
		if ((w & 0x1F000000) != 0x10000000)
			continue;   /* neither adr nor adrp */
		uint64_t pc = k->addr + i;
		int64_t imm = sext(((w >> 29) & 3) | ((uint64_t)(w >> 5) & 0x7FFFF) << 2, 21);
		kp__pinsn a, b;
		uint64_t func;
		if (!(w & 0x80000000)) {   /* adr */
			uint64_t t = pc + (uint64_t)imm;
			if (wanted(c, t) && ++c->st.candidates && decode_at(c, pc, &a) && a.kind == KP_PI_ADDR &&
			    a.value == t && boundary(c, pc, &func))
				add_ref(c, t, pc, func);
			continue;
		}
		uint64_t page = (pc & ~0xfffull) + (uint64_t)(imm * 4096);
		if (page < lo || page > hi)
			continue;
		unsigned rd = w & 31;
		for (uint64_t j = i + 4; j + 4 <= k->size && j <= i + 4 * ADRP_REACH; j += 4) {
			uint32_t x = le32(k->data + j);
			if ((x & 0xFFC00000) != 0x91000000 || ((x >> 5) & 31) != rd)
				continue;   /* not add Xn, Xd, #imm12 */
			uint64_t t = page + ((x >> 10) & 0xFFF);
			if (wanted(c, t) && ++c->st.candidates && decode_at(c, pc, &a) &&
			    a.kind == KP_PI_ADDR && a.value == page && decode_at(c, k->addr + j, &b) &&
			    b.kind == KP_PI_ADDI && b.reg2 == a.reg && page + b.value == t &&
			    boundary(c, pc, &func))
				add_ref(c, t, pc, func);
			break;
		}
	}
}

/* x86_64: lea reg, [rip + disp32]. */
static void sweep_x86(ctx *c, const code *k)
{
	for (uint64_t i = 0; i + X86_LEA_LEN <= k->size; i++) {
		const unsigned char *p = k->data + i;
		if (p[1] != 0x8D || (p[0] & 0xF8) != 0x48 || (p[2] & 0xC7) != 0x05)
			continue;
		int32_t disp = (int32_t)le32(p + 3);
		uint64_t pc = k->addr + i, t = pc + X86_LEA_LEN + (uint64_t)(int64_t)disp;
		kp__pinsn a;
		if (!wanted(c, t))
			continue;
		c->st.candidates++;
		uint64_t func;
		if (boundary(c, pc, &func) && decode_at(c, pc, &a) && a.kind == KP_PI_ADDR && a.value == t)
			add_ref(c, t, pc, func);
	}
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void push_name(ctx *c, uint64_t addr, const char *name, int rank, size_t votes)
{
	named *n = kp_vec_push((void **)&c->names, &c->nnames, &c->ncap, sizeof *n);
	if (!n)
		c->nomem = true;
	else
		*n = (named){addr, name, rank, votes, false};
}

/* Every bl / call whose target is a function start, sorted by target. */
static void build_calls(ctx *c)
{
	c->calls_done = true;
	for (size_t s = 0; s < c->ncode; s++) {
		const code *k = &c->code[s];
		uint64_t step = c->arm ? 4 : 1, len = c->arm ? 4 : 5;
		for (uint64_t i = 0; i + len <= k->size; i += step) {
			uint64_t pc = k->addr + i, t, fs;
			if (c->arm) {
				uint32_t w = le32(k->data + i);
				if ((w & 0xFC000000) != 0x94000000)
					continue;
				t = pc + (uint64_t)((int64_t)sext(w & 0x3FFFFFF, 26) * 4);
			} else {
				if (k->data[i] != 0xE8)
					continue;
				t = pc + 5 + (uint64_t)(int64_t)(int32_t)le32(k->data + i + 1);
			}
			if (!code_at(c, t) || !kp_macho_function_start(c->m, c->sl, t, &fs) || fs != t)
				continue;
			call *cl = kp_vec_push((void **)&c->calls, &c->ncalls, &c->ccap, sizeof *cl);
			if (!cl) {
				c->nomem = true;
				return;
			}
			*cl = (call){t, pc};
		}
	}
	if (c->ncalls > 1)
		qsort(c->calls, c->ncalls, sizeof *c->calls, by_u64);
}

/* The one function calling f (confirmed calls only): false when none or
 * several do. */
static bool only_caller(ctx *c, uint64_t f, uint64_t *caller)
{
	if (!c->calls_done)
		build_calls(c);
	size_t i = f ? kp_vec_upper_u64(c->calls, c->ncalls, sizeof *c->calls, 0, f - 1) : 0;
	bool found = false;
	for (; i < c->ncalls && c->calls[i].target == f; i++) {
		uint64_t func;
		kp__pinsn in;
		if (!boundary(c, c->calls[i].at, &func) || !decode_at(c, c->calls[i].at, &in) ||
		    in.kind != KP_PI_CALL || in.value != f)
			continue;
		if (found && func != *caller)
			return false;
		*caller = func;
		found = true;
	}
	return found;
}

/* The target of the first call after the reference at `at` inside its
 * function func: false when none is found within CALL_REACH instructions. */
static bool call_after(ctx *c, uint64_t at, uint64_t func, uint64_t *target)
{
	kp__pinsn in;
	uint64_t x = at, fs;
	for (int n = 0; n < CALL_REACH && decode_at(c, x, &in) && in.size; n++) {
		if (in.kind == KP_PI_CALL) {
			*target = in.value;
			return true;
		}
		x += in.size;
		if (!kp_macho_function_start(c->m, c->sl, x, &fs) || fs != func)
			return false;   /* the next function */
	}
	return false;
}

/* The refs to string address t: [*lo, *hi). */
static void refs_of(const ctx *c, uint64_t t, size_t *lo, size_t *hi)
{
	*lo = t ? kp_vec_upper_u64(c->refs, c->nrefs, sizeof *c->refs, 0, t - 1) : 0;
	*hi = kp_vec_upper_u64(c->refs, c->nrefs, sizeof *c->refs, 0, t);
}

typedef struct vote {
	uint64_t func;
	size_t n;
} vote;

/* One signature: its function (the one most anchors point into), then its
 * backtrace; each anchor's `caller` noted. */
static void apply(ctx *c, const kp__sig *g, const uint64_t *addrs)
{
	vote v[64];
	size_t nv = 0;
	for (size_t a = 0; a < g->nanchors; a++) {
		size_t lo, hi;
		if (!addrs[a])
			continue;
		refs_of(c, addrs[a], &lo, &hi);
		for (size_t r = lo; r < hi; r++) {
			bool seen = false;   /* one vote per anchor and function */
			for (size_t q = lo; q < r && !seen; q++)
				seen = c->refs[q].func == c->refs[r].func;
			size_t k = 0;
			while (k < nv && v[k].func != c->refs[r].func)
				k++;
			if (seen)
				continue;
			if (k == nv && nv < sizeof v / sizeof v[0])
				v[nv++] = (vote){c->refs[r].func, 0};
			if (k < nv)
				v[k].n++;
		}
	}
	size_t best = 0, nbest = 0;
	for (size_t k = 0; k < nv; k++)
		if (v[k].n > v[best].n)
			best = k, nbest = 1;
		else if (v[k].n == v[best].n)
			nbest++;
	if (nv == 0 || nbest != 1)
		return;   /* nothing, or a tie: refused */
	uint64_t f = v[best].func;
	push_name(c, f, g->symbol, 2, v[best].n);
	for (size_t a = 0; a < g->nanchors; a++) {
		size_t lo, hi;
		uint64_t t;
		if (!addrs[a] || !g->anchors[a].caller)
			continue;
		refs_of(c, addrs[a], &lo, &hi);
		for (size_t r = lo; r < hi; r++)
			if (c->refs[r].func == f && call_after(c, c->refs[r].at, f, &t))
				push_name(c, t, g->anchors[a].caller, 0, 0);
	}
	for (size_t b = 0; b < g->nbacktrace && only_caller(c, f, &f); b++)
		push_name(c, f, g->backtrace[b], 1, 0);
}

static int by_addr_rank(const void *a, const void *b)
{
	const named *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return y->rank - x->rank;
	return x->votes < y->votes ? 1 : x->votes > y->votes ? -1 : strcmp(x->name, y->name);
}

static int by_name(const void *a, const void *b)
{
	const named *x = *(named *const *)a, *y = *(named *const *)b;
	int d = strcmp(x->name, y->name);
	return d ? d : x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Resolves conflicts (sigmatch.h) and fills the map. */
static bool settle(ctx *c, kp_symmap *map)
{
	if (c->nnames)   /* qsort(NULL, 0, ...) is undefined */
		qsort(c->names, c->nnames, sizeof *c->names, by_addr_rank);
	for (size_t i = 0, j; i < c->nnames; i = j) {
		/* [i, j): one address, best first; the best must be alone in its
		 * rank and votes, or agree with those that tie it */
		for (j = i + 1; j < c->nnames && c->names[j].addr == c->names[i].addr; j++) {
			bool tie = c->names[j].rank == c->names[i].rank && c->names[j].votes == c->names[i].votes;
			if (tie && strcmp(c->names[j].name, c->names[i].name) != 0)
				c->names[i].drop = true;
			c->names[j].drop = true;
		}
	}
	named **byn = calloc(c->nnames ? c->nnames : 1, sizeof *byn);
	if (!byn)
		return false;
	size_t nb = 0;
	for (size_t i = 0; i < c->nnames; i++)
		if (!c->names[i].drop)
			byn[nb++] = &c->names[i];
	qsort(byn, nb, sizeof *byn, by_name);
	bool ok = true;
	for (size_t i = 0, j; i < nb; i = j) {
		bool one = true;   /* the name at one address only */
		for (j = i + 1; j < nb && strcmp(byn[j]->name, byn[i]->name) == 0; j++)
			one &= byn[j]->addr == byn[i]->addr;
		if (one && ok) {
			ok = kp__symmap_add(map, byn[i]->addr, byn[i]->name);
			c->st.named++;
		}
	}
	free(byn);
	kp__symmap_sort(map);
	return ok;
}

/* The string address of each anchor of every signature (0: not found),
 * in one array in file and signature order; sections missing told once
 * per file. */
static uint64_t *resolve(ctx *c, const kp__sigfile *const *files, size_t n, kp__sigwarn_fn warn,
                         void *wctx)
{
	size_t total = 0;
	for (size_t f = 0; f < n; f++)
		for (size_t s = 0; s < files[f]->nsigs; s++)
			total += files[f]->sigs[s].nanchors;
	uint64_t *addrs = calloc(total ? total : 1, sizeof *addrs);
	if (!addrs)
		return NULL;
	size_t k = 0;
	for (size_t f = 0; f < n; f++) {
		bool told = false;
		for (size_t s = 0; s < files[f]->nsigs; s++)
			for (size_t a = 0; a < files[f]->sigs[s].nanchors; a++, k++) {
				const kp__sig_anchor *an = &files[f]->sigs[s].anchors[a];
				strtab *t = tab_of(c, an->segment, an->section);
				if (!t && !told && !c->nomem && warn) {
					char msg[400];
					snprintf(msg, sizeof msg, "signature %zu (%.80s): no section %.40s,%.40s in %.80s: "
					         "its anchors there left out", s, files[f]->sigs[s].symbol, an->segment,
					         an->section, c->sl->fileset_id ? c->sl->fileset_id : "this binary");
					warn(wctx, files[f]->path, msg);
					told = true;
				}
				if (t && (addrs[k] = tab_find(t, an->string, an->len)) != 0) {
					c->st.anchors_found++;
					uint64_t *w = kp_vec_push((void **)&c->wanted, &c->nwanted, &c->wcap, sizeof *w);
					if (!w)
						c->nomem = true;
					else
						*w = addrs[k];
				}
			}
	}
	if (c->nwanted > 1) {
		qsort(c->wanted, c->nwanted, sizeof *c->wanted, by_u64);
		size_t u = 1;
		for (size_t i = 1; i < c->nwanted; i++)
			if (c->wanted[i] != c->wanted[u - 1])
				c->wanted[u++] = c->wanted[i];
		c->nwanted = u;
	}
	return addrs;
}

static void ctx_free(ctx *c)
{
	for (size_t i = 0; i < c->ntabs; i++)
		free(c->tabs[i].slot);
	free(c->tabs);
	free(c->wanted);
	free(c->refs);
	free(c->calls);
	free(c->names);
	kp__probe_close(&c->p);
}

kp_status kp__sig_match(kp_macho *m, const kp_macho_slice *sl, const kp__sigfile *const *files,
                        size_t n, kp__sigwarn_fn warn, void *wctx, kp_symmap **out,
                        kp__sigstats *stats, kp_error *err)
{
	*out = NULL;
	ctx c = {.m = m, .sl = sl, .arm = strncmp(sl->arch, "arm64", 5) == 0};
	if (!c.arm && strcmp(sl->arch, "x86_64") != 0)
		return kp_error_set(err, KP_ERR_FORMAT, 0, -1, "signatures: arm64 and x86_64 only, not %s",
		                    sl->arch);
	kp_status st = kp__probe_open(c.arm, &c.p, err);
	if (st != KP_OK)
		return st;
	static const char *const text[][2] = {{"__TEXT_EXEC", "__text"}, {"__TEXT", "__text"}};
	for (size_t i = 0; i < 2; i++) {
		code *k = &c.code[c.ncode];
		if (kp_macho_section(sl, text[i][0], text[i][1], &k->data, &k->size, &k->addr) && k->data)
			c.ncode++;
	}
	kp_symmap *map = kp__symmap_new();
	uint64_t *addrs = map ? resolve(&c, files, n, warn, wctx) : NULL;
	if (addrs && c.nwanted && !c.nomem) {
		for (size_t i = 0; i < c.ncode; i++)
			(c.arm ? sweep_arm : sweep_x86)(&c, &c.code[i]);
		if (c.nrefs > 1)
			qsort(c.refs, c.nrefs, sizeof *c.refs, by_u64);   /* by target: the first field */
		size_t k = 0;
		for (size_t f = 0; f < n && !c.nomem; f++)
			for (size_t s = 0; s < files[f]->nsigs; s++) {
				apply(&c, &files[f]->sigs[s], addrs + k);
				k += files[f]->sigs[s].nanchors;
			}
	}
	bool ok = addrs && !c.nomem && settle(&c, map);
	free(addrs);
	if (stats)
		*stats = c.st;
	ctx_free(&c);
	if (!ok) {
		kp__symmap_free(&map);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	*out = map;
	return KP_OK;
}
