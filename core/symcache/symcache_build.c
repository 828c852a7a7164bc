
/* symcache_build.c: building a symbol cache image (format: symcache.h,
 * layout constants: symcache_format.h) from DWARF and the symbol table:
 * a sweep over the DWARF's windows in address order (kp_dwarf_window)
 * answers every boundary at which an answer may change through
 * kp_dwarf_lookup, and the answers are cut into per-function blocks of an
 * inline tree and a delta-encoded line table.  On several threads (struct
 * run, split_runs) each sweeps one run of the windows; join_strings and
 * assemble make the runs the image one thread makes.  Writing goes through
 * kp_fs_write_atomic_unsynced. */
#include "symcache_format.h"
#include "kp_fs.h"
#include "kp_hash.h"
#include "kp_htab.h"
#include "kp_vec.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- growable byte and word buffers -------------------------------------- */

struct vec {
	void *v;
	size_t n, cap;
};

static bool push_bytes(struct vec *x, const void *p, size_t n)
{
	if (!n)
		return true;   /* p may be NULL (a block without nodes) */
	if (x->n + n > x->cap && !kp_vec_reserve(&x->v, &x->cap, x->n + n, 1))
		return false;
	memcpy((char *)x->v + x->n, p, n);
	x->n += n;
	return true;
}

static bool push_u64(struct vec *x, uint64_t a)
{
	if (x->n == x->cap && !kp_vec_reserve(&x->v, &x->cap, x->n + 1, 8))
		return false;
	((uint64_t *)x->v)[x->n++] = a;
	return true;
}

static bool push_u32(struct vec *x, uint32_t a)
{
	if (x->n == x->cap && !kp_vec_reserve(&x->v, &x->cap, x->n + 1, 4))
		return false;
	((uint32_t *)x->v)[x->n++] = a;
	return true;
}

/* v as ULEB128 at p (room for 10 bytes); the byte after it. */
static inline unsigned char *put_uleb(unsigned char *p, uint64_t v)
{
	for (; v >= 0x80; v >>= 7)
		*p++ = (unsigned char)(v | 0x80);
	*p++ = (unsigned char)v;
	return p;
}

/* Room for n (> 0) more bytes at the end of x (then *end: where they go);
 * false when out of memory. */
static bool room(struct vec *x, size_t n, unsigned char **end)
{
	if (x->n + n > x->cap && !kp_vec_reserve(&x->v, &x->cap, x->n + n, 1))
		return false;
	*end = (unsigned char *)x->v + x->n;
	return true;
}

static bool uleb(struct vec *x, uint64_t v)
{
	unsigned char *p;
	if (!room(x, 10, &p))
		return false;
	x->n = (size_t)(put_uleb(p, v) - (unsigned char *)x->v);
	return true;
}

/* ---- the string table: one copy of each string ------------------------- */

struct memo {
	const char *p;
	uint32_t id;
};

struct strtab {
	struct vec bytes;   /* starts with one NUL: offset 0 is never a string id */
	kp_htab strs;       /* the offsets of the strings in bytes */
	/* kp_dwarf hands out interned strings: their pointers are memoized so
	 * most strings are found without hashing their bytes */
	struct memo *memo;
	size_t mcap, mn;
	/* in front of memo: the last pointer met at each of 64 places (by a
	 * hash of the pointer), as a function's rows go back and forth between
	 * the few names of its inlined calls */
	struct memo recent[64];
};

static size_t hash_ptr(const char *p, size_t cap)
{
	return (size_t)(((uintptr_t)p * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

/* strs' key: a string; its values: offsets into bytes */
static bool st_eq(const void *ctx, uint32_t v, const void *key)
{
	return strcmp((const char *)((const struct strtab *)ctx)->bytes.v + v, key) == 0;
}

static uint64_t st_hash(const void *ctx, uint32_t v)
{
	return kp_hash_str((const char *)((const struct strtab *)ctx)->bytes.v + v);
}

static bool memo_grow(struct strtab *t)
{
	size_t nc = t->mcap ? t->mcap * 2 : 4096;
	struct memo *nm = calloc(nc, sizeof *nm);
	if (!nm)
		return false;
	for (size_t i = 0; i < t->mcap; i++) {
		if (!t->memo[i].p)
			continue;
		size_t j = hash_ptr(t->memo[i].p, nc);
		while (nm[j].p)
			j = (j + 1) & (nc - 1);
		nm[j] = t->memo[i];
	}
	free(t->memo);
	t->memo = nm;
	t->mcap = nc;
	return true;
}

/* *id: s's offset in the table (s not NULL), added if new; false when out
 * of memory or the table is full. */
static bool intern_bytes(struct strtab *t, const char *s, uint32_t *id)
{
	if (!t->bytes.n && !push_bytes(&t->bytes, "", 1))
		return false;
	if (!kp_htab_room(&t->strs, 4096, st_hash, t))
		return false;
	size_t j = kp_htab_probe(&t->strs, kp_hash_str(s), st_eq, t, s);
	if (!t->strs.slot[j]) {
		size_t len = strlen(s) + 1;
		if (t->bytes.n + len >= NONE)
			return false;
		kp_htab_put(&t->strs, j, (uint32_t)t->bytes.n);
		if (!push_bytes(&t->bytes, s, len))
			return false;
	}
	*id = t->strs.slot[j];
	return true;
}

/* *id: s's offset in the table, 0 for NULL; false when out of memory. */
static bool intern(struct strtab *t, const char *s, uint32_t *id)
{
	*id = 0;
	if (!s)
		return true;
	struct memo *rc = &t->recent[((uintptr_t)s * 0x9e3779b97f4a7c15ull) >> 58];
	if (rc->p == s) {
		*id = rc->id;
		return true;
	}
	if ((t->mn + 1) * 2 > t->mcap && !memo_grow(t))
		return false;
	size_t mj = hash_ptr(s, t->mcap);
	for (; t->memo[mj].p; mj = (mj + 1) & (t->mcap - 1))
		if (t->memo[mj].p == s) {
			*id = t->memo[mj].id;
			*rc = t->memo[mj];
			return true;
		}
	if (!intern_bytes(t, s, id))
		return false;
	t->memo[mj] = *rc = (struct memo){s, *id};
	t->mn++;
	return true;
}

/* Forgets the pointers memoized (not the strings): a sweep past a unit
 * meets few of them again, and the memo stays a unit's size, in cache. */
static void strtab_forget(struct strtab *t)
{
	if (t->mn) {
		memset(t->memo, 0, t->mcap * sizeof *t->memo);
		t->mn = 0;
	}
}

static void strtab_free(struct strtab *t)
{
	free(t->bytes.v);
	kp_htab_free(&t->strs);
	free(t->memo);
}

/* ---- one answer, and the block being written ------------------------------ */

struct frame {
	uint32_t name, file, line, col;
};

/* Field by field, not memcmp: no call, and no wide load of fields just
 * written one at a time. */
static inline bool same_frame(const struct frame *a, const struct frame *b)
{
	return a->name == b->name && a->file == b->file && a->line == b->line && a->col == b->col;
}

struct answer {
	size_t n;
	struct frame f[KP_SYMCACHE_MAX_FRAMES];
};

struct node {
	struct frame f;
	uint32_t parent; /* +1; 0: root */
};

struct brow {
	uint64_t addr;
	struct frame f;     /* the innermost frame (global string ids) */
	uint32_t node;      /* +1; 0: none */
	bool empty;
};

struct block {
	uint64_t start;
	uint32_t func;      /* outermost name of its answers */
	bool open;
	struct node nodes[KP__SYMCACHE_NODES];
	size_t nnodes;
	struct brow rows[KP__SYMCACHE_ROWS];
	size_t nrows;
	uint32_t strs[KP__SYMCACHE_STRS];   /* the block's strings, global ids */
	size_t nstrs;
	/* local's guess: by a hash of the global id, the index (+1) in strs
	 * where it was last found; a stale or overwritten guess fails its
	 * check against strs and falls back to the search */
	uint32_t guess[64];
};

/* The node for frames f[k..n) (k >= 1), added if new; 0 when k == n;
 * false when the block has no room left. */
static bool node_of(struct block *b, const struct answer *a, size_t k, uint32_t *out)
{
	if (k >= a->n) {
		*out = 0;
		return true;
	}
	uint32_t parent;
	if (!node_of(b, a, k + 1, &parent))
		return false;
	for (size_t i = b->nnodes; i-- > 0;)
		if (b->nodes[i].parent == parent && same_frame(&b->nodes[i].f, &a->f[k])) {
			*out = (uint32_t)i + 1;
			return true;
		}
	if (b->nnodes == KP__SYMCACHE_NODES)
		return false;
	b->nodes[b->nnodes] = (struct node){a->f[k], parent};
	*out = (uint32_t)++b->nnodes;
	return true;
}

/* The blocks of one run of boundaries (a thread's), as the image holds
 * them; in a run after the first, each block's string list is kept aside in
 * the run's own string ids until the runs are joined (join_strings, assemble). */
struct out {
	struct vec starts, offs, data;   /* u64; u32: each block's offset in data; bytes */
	bool aside;                      /* the string lists go to strs */
	struct vec strs;                 /* u32: per block, its count of strings, then their ids */
	struct vec nodes;                /* scratch: one block's nodes */
	size_t nrows;
};

/* A block's string list (ids[0..n)), as the file holds it: the count,
 * then zigzag deltas (assemble writes a later run's alike). */
static bool put_strs(struct vec *d, const uint32_t *ids, size_t n)
{
	if (!uleb(d, n))
		return false;
	int64_t last = 0;
	for (size_t i = 0; i < n; i++) {
		if (!uleb(d, zigzag((int64_t)ids[i] - last)))
			return false;
		last = ids[i];
	}
	return true;
}

static void out_free(struct out *o)
{
	free(o->starts.v);
	free(o->offs.v);
	free(o->data.v);
	free(o->strs.v);
	free(o->nodes.v);
}

/* The block-local index (+1) of global string id g, added if new. */
static uint32_t local(struct block *b, uint32_t g)
{
	if (!g)
		return 0;
	uint32_t *guess = &b->guess[(g * 0x9e3779b1u) >> 26];
	if (*guess && *guess <= b->nstrs && b->strs[*guess - 1] == g)
		return *guess;
	for (size_t i = b->nstrs; i-- > 0;)
		if (b->strs[i] == g)
			return *guess = (uint32_t)i + 1;
	b->strs[b->nstrs] = g;   /* room: at most 2 per row and 2 per node */
	return *guess = (uint32_t)++b->nstrs;
}

static bool flush_block(struct out *o, struct block *b)
{
	if (!b->open)
		return true;
	b->open = false;
	b->nstrs = 0;
	for (size_t i = 0; i < b->nnodes; i++) {
		b->nodes[i].f.name = local(b, b->nodes[i].f.name);
		b->nodes[i].f.file = local(b, b->nodes[i].f.file);
	}
	unsigned g = 2;
	/* a function's rows mostly repeat the row before's name and file */
	uint32_t name_g = 0, name_l = 0, file_g = 0, file_l = 0;   /* local(b, 0) == 0 */
	for (size_t i = 0; i < b->nrows; i++) {
		uint32_t name = b->rows[i].f.name, file = b->rows[i].f.file;
		if (name != name_g)
			name_g = name, name_l = local(b, name);
		if (file != file_g)
			file_g = file, file_l = local(b, file);
		b->rows[i].f.name = name_l;
		b->rows[i].f.file = file_l;
		if ((b->rows[i].addr - b->start) % 4)
			g = 0;
	}
	struct vec *d = &o->data;
	if (d->n >= NONE || !push_u64(&o->starts, b->start) || !push_u32(&o->offs, (uint32_t)d->n))
		return false;
	if (!o->aside && !put_strs(d, b->strs, b->nstrs))
		return false;
	if (o->aside && !push_u32(&o->strs, (uint32_t)b->nstrs))
		return false;
	for (size_t i = 0; o->aside && i < b->nstrs; i++)
		if (!push_u32(&o->strs, b->strs[i]))
			return false;
	struct vec *nd = &o->nodes;   /* its byte length goes first */
	nd->n = 0;
	if (b->nnodes) {
		unsigned char *q;
		if (!room(nd, b->nnodes * 5 * 10, &q))
			return false;
		for (size_t i = 0; i < b->nnodes; i++) {
			const struct node *n = &b->nodes[i];
			const struct frame *p = i ? &b->nodes[i - 1].f : &(struct frame){0, 0, 0, 0};
			q = put_uleb(q, n->f.name);
			q = put_uleb(q, n->f.file);
			q = put_uleb(q, zigzag((int64_t)n->f.line - (int64_t)p->line));
			q = put_uleb(q, zigzag((int64_t)n->f.col - (int64_t)p->col));
			q = put_uleb(q, n->parent);
		}
		nd->n = (size_t)(q - (unsigned char *)nd->v);
	}
	if (!uleb(d, b->nnodes) || !uleb(d, nd->n) || !push_bytes(d, nd->v, nd->n))
		return false;
	/* the rows: a head byte and at most six ULEB128s each */
	unsigned char *q;
	if (!room(d, 1 + 10 + b->nrows * 61, &q))
		return false;
	*q++ = (unsigned char)g;
	q = put_uleb(q, b->nrows);
	struct frame st = {0, 0, 0, 0};
	uint32_t node = 0;
	uint64_t prev = b->start;
	for (size_t i = 0; i < b->nrows; i++) {
		const struct brow *r = &b->rows[i];
		unsigned flags = 0;
		if (!r->empty) {
			flags |= r->f.name != st.name ? R_NAME : 0;
			flags |= r->f.file != st.file ? R_FILE : 0;
			flags |= r->f.line != st.line ? R_LINE : 0;
			flags |= r->f.col != st.col ? R_COL : 0;
			flags |= r->node != node ? R_NODE : 0;
			if (!flags)
				flags = R_NODE;   /* 0 means "no answer" */
		}
		uint64_t delta = (r->addr - prev) >> g;
		unsigned char head = (unsigned char)(flags | (delta >= 1 && delta <= 7 ? delta << 5 : 0));
		*q++ = head;
		if (!(head >> 5))
			q = put_uleb(q, delta);
		if (flags & R_NAME)
			q = put_uleb(q, r->f.name);
		if (flags & R_FILE)
			q = put_uleb(q, r->f.file);
		if (flags & R_LINE)
			q = put_uleb(q, zigzag((int64_t)r->f.line - (int64_t)st.line));
		if (flags & R_COL)
			q = put_uleb(q, zigzag((int64_t)r->f.col - (int64_t)st.col));
		if (flags & R_NODE)
			q = put_uleb(q, r->node);
		if (!r->empty) {
			st = r->f;
			node = r->node;
		}
		prev = r->addr;
	}
	d->n = (size_t)(q - (unsigned char *)d->v);
	o->nrows += b->nrows;
	return true;
}

static void start_block(struct block *b, uint64_t addr, uint32_t func)
{
	b->start = addr;
	b->func = func;
	b->nnodes = b->nrows = b->nstrs = 0;
	b->open = true;
}

static bool same_answer(const struct answer *a, const struct answer *b)
{
	if (a->n != b->n)
		return false;
	for (size_t k = 0; k < a->n; k++)
		if (!same_frame(&a->f[k], &b->f[k]))
			return false;
	return true;
}

/* Appends the answer a starting at addr (a->n == 0: no answer); last is
 * the answer appended before it (NULL: none); calls: a's frames after the
 * first are last's. */
static bool add_row(struct out *o, struct block *b, uint64_t addr, const struct answer *a,
                    const struct answer *last, bool calls)
{
	uint32_t func = a->n ? a->f[a->n - 1].name : 0;
	if (!b->open && !a->n)
		return true;   /* nothing before the first answer */
	if (!b->open || (a->n && func != b->func) || b->nrows == KP__SYMCACHE_ROWS) {
		if (!flush_block(o, b))
			return false;
		start_block(b, addr, func);
	}
	uint32_t node = 0;
	if (a->n && last && b->nrows && last->n == a->n &&
	    (calls || !memcmp(&last->f[1], &a->f[1], (a->n - 1) * sizeof a->f[0])))
		node = b->rows[b->nrows - 1].node;   /* the same calls: the same node */
	else if (a->n && !node_of(b, a, 1, &node)) {
		if (!flush_block(o, b))
			return false;
		start_block(b, addr, func);
		if (!node_of(b, a, 1, &node))
			return false;   /* deeper than a block holds: cannot happen */
	}
	struct brow *r = &b->rows[b->nrows++];
	r->addr = addr;
	r->empty = a->n == 0;
	r->f = a->n ? a->f[0] : (struct frame){0, 0, 0, 0};
	r->node = node;
	return true;
}

/* ---- boundaries ------------------------------------------------------------ */

/* The symbol table's boundaries, gathered once before the sweep. */
struct collect {
	struct vec v;
	const kp_symcache_cb *cb;
	bool cancelled;
	atomic_bool *stop;          /* set when the caller's thread was cancelled */
};

/* Whether the build stops here: the caller cancelled (cb, on its thread
 * only) or the other thread did; says so to the other thread. */
static bool stopping(const kp_symcache_cb *cb, atomic_bool *stop, bool *cancelled)
{
	if ((cb && cb->cancel && cb->cancel(cb->ctx)) || atomic_load(stop)) {
		*cancelled = true;
		atomic_store(stop, true);
	}
	return *cancelled;
}

static bool collect_addr(void *ctx, uint64_t a)
{
	struct collect *c = ctx;
	if ((c->v.n & 0xffff) == 0 && stopping(c->cb, c->stop, &c->cancelled))
		return false;
	return push_u64(&c->v, a);
}

/* Sorts v[0..n) (LSD radix over v[i] - min, as few passes of at most 13
 * bits as the span of the values needs, each as wide as that leaves: two
 * of 9 bits for a unit's 256 KB of code, their counts taken in one sweep;
 * a short array by insertion); s is scratch, kept for the next call;
 * false when out of memory. */
struct sortbuf {
	struct vec tmp;   /* u64: the other half of each pass */
	size_t count[5][1 << 13];   /* 5 x 13 bits: any span */
};

static bool sort_u64(uint64_t *v, size_t n, struct sortbuf *s)
{
	if (n < 64) {
		for (size_t i = 1; i < n; i++) {
			uint64_t x = v[i];
			size_t j = i;
			for (; j && v[j - 1] > x; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
		return true;
	}
	uint64_t lo = v[0], hi = v[0];
	for (size_t i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	unsigned sbits = 0;
	for (uint64_t span = hi - lo; span; span >>= 1)
		sbits++;
	if (!sbits)
		return true;   /* all equal */
	unsigned passes = (sbits + 12) / 13, bits = (sbits + passes - 1) / passes;
	size_t radix = (size_t)1 << bits, mask = radix - 1;
	if (!kp_vec_reserve(&s->tmp.v, &s->tmp.cap, n, 8))
		return false;
	for (unsigned k = 0; k < passes; k++)
		memset(s->count[k], 0, radix * sizeof s->count[k][0]);
	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; k < passes; k++)
			s->count[k][((v[i] - lo) >> (k * bits)) & mask]++;
	uint64_t *src = v, *dst = s->tmp.v;
	for (unsigned k = 0; k < passes; k++) {
		size_t *c = s->count[k], sum = 0;
		unsigned shift = k * bits;
		for (size_t d = 0; d < radix; d++) {
			size_t x = c[d];
			c[d] = sum;
			sum += x;
		}
		for (size_t i = 0; i < n; i++)
			dst[c[((src[i] - lo) >> shift) & mask]++] = src[i];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof *v);
	return true;
}

/* Sorts x and drops repeats; false when out of memory.  A long ascending
 * start (a window's rows, kp_dwarf_window) is merged with the rest once
 * that is sorted (unless it is ascending already: a window's functions),
 * into s's scratch, which then trades places with x. */
static bool sort_distinct(struct vec *x, struct sortbuf *s)
{
	uint64_t *v = x->v;
	size_t n = x->n, p = n ? 1 : 0;
	while (p < n && v[p - 1] <= v[p])
		p++;
	if (p >= 64 && p < n) {
		size_t q = p + 1;   /* the rest may be ascending too (a window's functions) */
		while (q < n && v[q - 1] <= v[q])
			q++;
		if ((q < n && !sort_u64(v + p, n - p, s)) ||
		    !kp_vec_reserve(&s->tmp.v, &s->tmp.cap, n, 8))
			return false;
		uint64_t *t = s->tmp.v;
		size_t i = 0, j = p, k = 0;
		while (i < p || j < n) {
			uint64_t a = j == n || (i < p && v[i] <= v[j]) ? v[i++] : v[j++];
			if (!k || t[k - 1] != a)
				t[k++] = a;
		}
		struct vec u = s->tmp;
		s->tmp = *x;
		*x = u;
		x->n = k;
		return true;
	}
	if (!sort_u64(v, n, s))
		return false;
	size_t k = n ? 1 : 0;
	for (size_t i = 1; i < n; i++)
		if (v[i] != v[k - 1])
			v[k++] = v[i];
	x->n = k;
	return true;
}

/* ---- runs: one thread's share of the sweep ----------------------------------- */

/* A thread's share of a build: the windows w0.. of the DWARF
 * (kp_dwarf_window), swept in address order on its own handle, each
 * window's boundaries sorted and merged with the symbol table's; the
 * answers at those of [from, to) (to 0: no end) made into blocks with a
 * string table of its own.  The first run has cb (its callbacks) and is
 * swept on the caller's thread; the others have NULL. */
struct run {
	kp_dwarf *d;
	const kp_symcache_cb *cb;
	atomic_bool *stop;
	bool cancelled;
	size_t w0, nw;
	size_t wend;                /* progress: the window holding to (nw: none) */
	uint64_t from, to;
	const uint64_t *sym;        /* the symbol table's boundaries, sorted, distinct */
	size_t nsym;
	struct vec pts;             /* scratch: one window's boundaries */
	struct sortbuf *sb;         /* scratch: their sort */
	size_t w, done;             /* the window being swept; points answered */
	/* seeking (run_start): the first point from which a block starts
	 * whatever came before it */
	bool seek, have, found;
	const char *func;
	uint64_t start;
	/* answering: two frame and answer buffers, swapped: a frame whose
	 * strings are the same pointers as the one before it at its depth
	 * reuses their ids */
	kp_symframe frb[2][KP_SYMCACHE_MAX_FRAMES];
	struct answer ab[2];
	kp_symframe *fr, *pfr;
	struct answer *cur, *prev;
	size_t pn;
	struct strtab t;
	struct out o;
	struct block *b;
	kp_status st;
	kp_error err;
	pthread_t thread;
	bool threaded;              /* swept on thread, not on the caller's */
};

static bool push_pt(void *ctx, uint64_t a)
{
	return push_u64(&((struct run *)ctx)->pts, a);
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Seeking: the first point after from at which a block starts whatever
 * came before it (so that a run may begin there and the blocks come out
 * as one run makes them): an answer whose function is named and differs
 * from that of the last answer with a function before it (add_row starts
 * a block there; the block open before holds that function's name, or
 * none after a block filled up).  false: found, or not within reach. */
static bool seek_at(struct run *r, uint64_t a)
{
	size_t k = 0;
	if (r->done++ >= 65536 ||
	    kp_dwarf_lookup(r->d, a, r->frb[0], KP_SYMCACHE_MAX_FRAMES, &k, NULL) != KP_OK)
		return false;   /* its error comes in order, from the run before */
	if (!k)
		return true;
	const char *f = r->frb[0][k - 1].function;
	if (r->have && f && !same_str(f, r->func)) {
		r->found = true;
		r->start = a;
		r->w0 = r->w;
		return false;
	}
	r->func = f;
	r->have = true;
	return true;
}

/* Answers the point a: through kp_dwarf_lookup, a row where the answer
 * changes.  false: stop (r->st says why). */
static bool answer_at(struct run *r, uint64_t a)
{
	if (r->done++ % 65536 == 0 && stopping(r->cb, r->stop, &r->cancelled)) {
		r->st = KP_ERR_LIMIT;
		return false;
	}
	size_t n = 0;
	kp_symframe *fr = r->fr, *pfr = r->pfr;
	struct answer *cur = r->cur, *prev = r->prev;
	const char *file;
	uint32_t line, col;
	if (r->pn && kp_dwarf_lookup_same(r->d, a, KP_SYMCACHE_MAX_FRAMES, &n, &file, &line, &col) &&
	    n == r->pn) {
		/* the last answer with its first frame moved: changed in place
		 * (prev and pfr stay each other's: ids of pfr's strings) */
		uint32_t fid = prev->f[0].file;
		if (file != pfr[0].file && !intern(&r->t, file, &fid)) {
			r->st = KP_ERR_NOMEM;
			return false;
		}
		if (fid == prev->f[0].file && line == prev->f[0].line && col == prev->f[0].col)
			return true; /* the same answer goes on */
		prev->f[0].file = fid;
		prev->f[0].line = line;
		prev->f[0].col = col;
		pfr[0].file = file;
		pfr[0].line = line;
		pfr[0].column = col;
		if (!add_row(&r->o, r->b, a, prev, prev, true)) {
			r->st = KP_ERR_NOMEM;
			return false;
		}
		return true;
	}
	kp_status st = kp_dwarf_lookup(r->d, a, fr, KP_SYMCACHE_MAX_FRAMES, &n, &r->err);
	if (st != KP_OK) {
		r->st = st;
		return false;
	}
	r->st = KP_ERR_NOMEM;
	cur->n = n;
	bool calls = n && n == r->pn && kp_dwarf_same_calls(r->d);
	if (calls) {
		/* the last lookup's answer (prev's, as the last row or the same as
		 * it) with the first frame moved: no other string looked at */
		memcpy(cur->f, prev->f, n * sizeof cur->f[0]);
		cur->f[0].line = fr[0].line;
		cur->f[0].col = fr[0].column;
		if (fr[0].file != pfr[0].file && !intern(&r->t, fr[0].file, &cur->f[0].file))
			return false;
		r->st = KP_OK;
		if (same_frame(&cur->f[0], &prev->f[0]))
			return true; /* the same answer goes on */
	}
	for (size_t k = 0; !calls && k < n; k++) {
		cur->f[k].line = fr[k].line;
		cur->f[k].col = fr[k].column;
		if (k < r->pn && fr[k].function == pfr[k].function)
			cur->f[k].name = prev->f[k].name;
		else if (!intern(&r->t, fr[k].function, &cur->f[k].name))
			return false;
		if (k < r->pn && fr[k].file == pfr[k].file)
			cur->f[k].file = prev->f[k].file;
		else if (!intern(&r->t, fr[k].file, &cur->f[k].file))
			return false;
	}
	r->st = KP_OK;
	if (!calls && same_answer(cur, prev))
		return true; /* the same answer goes on */
	if (!add_row(&r->o, r->b, a, cur, prev, calls)) {
		r->st = KP_ERR_NOMEM;
		return false;
	}
	r->prev = cur;
	r->cur = prev;
	r->pfr = fr;
	r->fr = pfr;
	r->pn = n;
	return true;
}

/* Sweeps r's windows in order: each window's boundaries, sorted, merged
 * with the symbol table's, each distinct point of [from, to) answered (or
 * sought).  The run of the caller's thread reports progress at each
 * window and asks whether to stop every 65536 points and at its end. */
static void *sweep_run(void *arg)
{
	struct run *r = arg;
	size_t nw = r->nw, j = kp_vec_upper_u64(r->sym, r->nsym, 8, 0, r->from ? r->from - 1 : 0);
	if (!r->from)
		j = 0;
	uint64_t last = 0;
	bool any = false, go = true;
	r->st = KP_OK;
	for (size_t w = r->w0; w < nw && go; w++) {
		r->w = w;
		if (r->cb && r->cb->progress && !r->seek && w < r->wend)
			r->cb->progress(r->cb->ctx, (w - r->w0) * 1000 / (r->wend - r->w0), 1000);
		uint64_t lo, hi;
		r->pts.n = 0;
		kp_status st = kp_dwarf_window(r->d, w, &lo, &hi, push_pt, r, &r->err);
		if (st != KP_OK) {
			r->st = st;
			return NULL;
		}
		if (!sort_distinct(&r->pts, r->sb)) {
			r->st = KP_ERR_NOMEM;
			return NULL;
		}
		if (w + 1 == nw)
			hi = UINT64_MAX;   /* the last window holds UINT64_MAX too */
		const uint64_t *p = r->pts.v;
		size_t i = 0, np = r->pts.n;
		while (go) {
			uint64_t a;
			bool have_p = i < np, have_s = j < r->nsym && (r->sym[j] < hi || w + 1 == nw);
			if (!have_p && !have_s)
				break;
			if (have_p && (!have_s || p[i] <= r->sym[j]))
				a = p[i++];
			else
				a = r->sym[j++];
			if ((any && a == last) || a < r->from)
				continue;
			if (r->to && a >= r->to) {
				go = false;
				break;
			}
			any = true;
			last = a;
			go = r->seek ? seek_at(r, a) : answer_at(r, a);
		}
		if (go && !r->seek) {
			kp_dwarf_window_done(r->d, w);   /* its memory goes to the next units */
			strtab_forget(&r->t);
		}
	}
	if (r->seek || r->st != KP_OK)
		return NULL;
	if (r->cb && stopping(r->cb, r->stop, &r->cancelled)) {
		r->st = KP_ERR_LIMIT;
		return NULL;
	}
	if (!flush_block(&r->o, r->b))
		r->st = KP_ERR_NOMEM;
	return NULL;
}

/* The last run's strings looked up in t, [from, to) of its bytes (string
 * starts): remap[off] their ids there, 0 for a string t lacks.  Only reads
 * t: two of these run at once. */
struct lookups {
	const struct strtab *t, *rt;
	uint32_t *remap;
	size_t from, to;
};

static void *look_up(void *arg)
{
	struct lookups *l = arg;
	const struct strtab *t = l->t;
	for (size_t off = l->from; off < l->to;) {
		const char *s = (const char *)l->rt->bytes.v + off;
		l->remap[off] = t->strs.cap ? t->strs.slot[kp_htab_probe(&t->strs, kp_hash_str(s), st_eq,
		                                                           t, s)]
		                            : 0;
		off += strlen(s) + 1;
	}
	return NULL;
}

/* The runs' string tables as one, as one run makes it: the first run's
 * goes on, each later run's strings take the ids the first of them met
 * gets there (a string seen before keeps its id, a new one goes at the end,
 * in the order the run met them): remaps[p] (p >= 1, indexed by run p's
 * ids) says which.  The last run's lookups go on two threads.  false when
 * out of memory or past the format's limits. */
static bool join_strings(struct run *runs, size_t nruns, struct strtab *t, uint32_t **remaps)
{
	*t = runs[0].t;
	runs[0].t = (struct strtab){0};
	for (size_t p = 1; p < nruns; p++) {
		const struct strtab *rt = &runs[p].t;
		uint32_t *remap = remaps[p] = malloc(rt->bytes.n ? rt->bytes.n * sizeof *remap : 1);
		/* room for all of it at once: one growth of each, no rehash on the
		 * way; the last run's new strings are only added to the bytes (no
		 * run after it looks them up, and its own table has each once) */
		bool last = p + 1 == nruns;
		if (!remap || (!last && !kp_htab_reserve(&t->strs, rt->strs.n, 4096, st_hash, t)) ||
		    !kp_vec_reserve(&t->bytes.v, &t->bytes.cap, t->bytes.n + rt->bytes.n, 1))
			return false;
		if (last) {
			/* looked up in halves (the second from a string's start past
			 * the middle), then the new ones added in order */
			const char *b = rt->bytes.v;
			size_t mid = rt->bytes.n / 2;
			while (mid > 1 && mid < rt->bytes.n && b[mid - 1] != '\0')
				mid++;
			struct lookups lo = {t, rt, remap, 1, mid < 1 ? 1 : mid},
			               hi = {t, rt, remap, lo.to, rt->bytes.n};
			pthread_t th;
			bool threaded = hi.from < hi.to && pthread_create(&th, NULL, look_up, &hi) == 0;
			look_up(&lo);
			if (threaded)
				pthread_join(th, NULL);
			else
				look_up(&hi);
		}
		for (size_t off = 1; off < rt->bytes.n;) {
			const char *s = (const char *)rt->bytes.v + off;
			size_t len = strlen(s) + 1;
			if (!last) {
				if (!intern_bytes(t, s, &remap[off]))
					return false;
			} else if (!remap[off]) {
				remap[off] = (uint32_t)t->bytes.n;
				if (t->bytes.n + len >= NONE || !push_bytes(&t->bytes, s, len))
					return false;
			}
			off += len;
		}
	}
	return true;
}

/* A file this large is built on every core, up to MAX_THREADS (a smaller
 * one is over before a thread pays off). */
#define KP__SYMCACHE_TWO_THREADS ((uint64_t)4 << 20)
#define MAX_THREADS 8

static unsigned cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (unsigned)n;
}

/* Where run p of n (p >= 1) is sought from in [a, b): equal shares of the
 * code (the join waits for the last run, so the first thread gains
 * nothing by a smaller share). */
static uint64_t run_target(uint64_t a, uint64_t b, unsigned p, unsigned n)
{
	uint64_t span = b - a;
	return a + span / n * p + span % n * p / n;
}

/* Makes runs[1..threads) that seek a block start at their targets, each
 * on a clone of d; the runs found (their starts ascending) are moved to
 * follow runs[0], each earlier run ending where the next starts.  The
 * number of runs that sweep (1 when none was found). */
static size_t split_runs(kp_dwarf *d, struct run *runs, unsigned threads, size_t nw)
{
	size_t nruns = 1;
	/* the code: from the first unit's start to the last one's end */
	uint64_t a = kp_dwarf_code_start(d), b = kp_dwarf_window_start(d, nw - 1);
	if (a >= b)
		return 1;
	for (unsigned p = 1; p < threads; p++) {
		struct run *r = &runs[nruns];
		uint64_t target = run_target(a, b, p, threads);
		size_t w = 0;
		while (w + 1 < nw && kp_dwarf_window_start(d, w + 1) <= target)
			w++;
		if (kp_dwarf_clone(d, &r->d, NULL) != KP_OK)
			break;
		r->seek = true;
		r->w0 = w;
		r->from = target > kp_dwarf_window_start(d, w) ? target : kp_dwarf_window_start(d, w);
		r->have = r->found = false;
		r->done = 0;
		sweep_run(r);
		if (!r->found || r->start <= runs[nruns - 1].from) {
			kp_dwarf_close(&r->d);   /* nothing new here: the run before goes on */
			continue;
		}
		r->seek = false;
		r->from = runs[nruns - 1].to = r->start;
		r->done = 0;
		r->st = KP_OK;
		nruns++;
	}
	for (size_t p = 0; p < nruns; p++) {
		struct run *r = &runs[p];
		r->wend = nw;
		if (r->to)
			while (r->wend > r->w0 + 1 && kp_dwarf_window_start(d, r->wend - 1) >= r->to)
				r->wend--;
	}
	return nruns;
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Runs [p0, p1) of the image's blocks, from block bi and data offset at:
 * each block's start and offset, then its string list (a later run's,
 * kept aside, renumbered through remaps) and its bytes.  end: the data
 * offset past them; full: an offset past the format's. */
struct part {
	const struct run *runs;
	size_t p0, p1;
	uint32_t *const *remaps;
	unsigned char *img;
	const size_t *off;
	unsigned width;
	uint64_t base;
	size_t bi, at, end;
	bool full;
};

static void *put_runs(void *arg)
{
	struct part *pa = arg;
	unsigned char *img = pa->img, *d = img + pa->off[S_DATA], *q = d + pa->at;
	size_t bi = pa->bi;
	for (size_t p = pa->p0; p < pa->p1; p++) {
		const struct out *ro = &pa->runs[p].o;
		const uint64_t *sa = ro->starts.v;
		const uint32_t *ofs = ro->offs.v, *strs = ro->strs.v;
		size_t si = 0;
		for (size_t k = 0; k < ro->starts.n; k++, bi++) {
			if ((size_t)(q - d) >= NONE) {
				pa->full = true;
				return NULL;
			}
			if (pa->width == 4)
				kp_put_le(img + pa->off[S_STARTS] + 4 * bi, (uint32_t)(sa[k] - pa->base), 4);
			else
				kp_put_le(img + pa->off[S_STARTS] + 8 * bi, sa[k] - pa->base, 8);
			kp_put_le(img + pa->off[S_OFFS] + 4 * bi, (uint32_t)(q - d), 4);
			if (p) {   /* its string list, kept aside in the run's own ids */
				uint32_t ns = strs[si++];
				int64_t last = 0;
				q = put_uleb(q, ns);
				for (uint32_t i = 0; i < ns; i++) {
					int64_t g = pa->remaps[p][strs[si + i]];
					q = put_uleb(q, zigzag(g - last));
					last = g;
				}
				si += ns;
			}
			size_t end = k + 1 < ro->starts.n ? ofs[k + 1] : ro->data.n;
			memcpy(q, (const unsigned char *)ro->data.v + ofs[k], end - ofs[k]);
			q += end - ofs[k];
		}
	}
	pa->end = (size_t)(q - d);
	return NULL;
}

/* The image from the runs' blocks in address order (a later run's string
 * lists in t's ids, through remaps) and t, written once; NULL when out of
 * memory, or (*limit set) past the format's limits. */
static unsigned char *assemble(const struct run *runs, size_t nruns, uint32_t *const *remaps,
                               const struct strtab *t, uint32_t source,
                               const kp_symcache_key *key, size_t *len, bool *limit)
{
	size_t nb = 0, dmax = 0, nrows = 0;
	uint64_t base = 0, top = 0;
	for (size_t p = 0; p < nruns; p++) {
		const struct out *ro = &runs[p].o;
		const uint64_t *sa = ro->starts.v;
		if (ro->starts.n) {
			base = nb ? base : sa[0];
			top = sa[ro->starts.n - 1];
		}
		nb += ro->starts.n;
		dmax += ro->data.n + (p ? ro->strs.n * 5 : 0);   /* a ULEB128 of a string list's: <= 5 bytes */
		nrows += ro->nrows;
	}
	if (nb >= NONE) {
		*limit = true;
		return NULL;
	}
	unsigned width = nb && top - base > UINT32_MAX ? 8 : 4;
	size_t off[NSECTIONS];
	off[S_STARTS] = KP_SYMCACHE_HDR;
	off[S_OFFS] = align8(off[S_STARTS] + nb * width);
	off[S_DATA] = align8(off[S_OFFS] + nb * 4);
	unsigned char *img = calloc(1, align8(off[S_DATA] + dmax) + align8(t->bytes.n) + 8);
	if (!img)
		return NULL;
	/* the first run's blocks here, the later runs' (their string lists
	 * renumbered) on a second thread at once, right after them */
	struct part a = {.runs = runs, .p0 = 0, .p1 = 1, .remaps = remaps, .img = img, .off = off,
	                 .width = width, .base = base};
	struct part b = a;
	b.p0 = 1, b.p1 = nruns, b.bi = runs[0].o.starts.n;
	b.at = runs[0].o.starts.n ? runs[0].o.data.n - ((const uint32_t *)runs[0].o.offs.v)[0] : 0;
	pthread_t th;
	bool threaded = nruns > 1 && pthread_create(&th, NULL, put_runs, &b) == 0;
	put_runs(&a);
	if (threaded)
		pthread_join(th, NULL);
	else
		put_runs(&b);
	if (a.full || b.full || (nruns > 1 && a.end != b.at))
		goto full;
	size_t dn = nruns > 1 ? b.end : a.end;
	if (dn > NONE)
		goto full;
	off[S_STRINGS] = align8(off[S_DATA] + dn);
	size_t total = align8(off[S_STRINGS] + t->bytes.n);
	if (t->bytes.n)
		memcpy(img + off[S_STRINGS], t->bytes.v, t->bytes.n);
	memcpy(img + H_MAGIC, KP__SYMCACHE_MAGIC, 8);
	kp_put_le(img + H_VERSION, KP_SYMCACHE_VERSION, 4);
	kp_put_le(img + H_HDRSIZE, KP_SYMCACHE_HDR, 4);
	snprintf((char *)img + H_UUID, UUID_LEN, "%s", key->uuid);
	snprintf((char *)img + H_ARCH, ARCH_LEN, "%s", key->arch ? key->arch : "");
	kp_put_le(img + H_DSIZE, key->dwarf_size, 8);
	kp_put_le(img + H_DMTIME, (uint64_t)key->dwarf_mtime_ns, 8);
	kp_put_le(img + H_FSIZE, total, 8);
	kp_put_le(img + H_BASE, base, 8);
	kp_put_le(img + H_WIDTH, width, 4);
	kp_put_le(img + H_NBLOCKS, (uint32_t)nb, 4);
	kp_put_le(img + H_DATASIZE, (uint32_t)dn, 4);
	kp_put_le(img + H_STRSIZE, (uint32_t)t->bytes.n, 4);
	kp_put_le(img + H_SOURCE, source, 4);
	kp_put_le(img + H_NROWS, nrows > NONE ? NONE : (uint32_t)nrows, 4);
	for (int i = 0; i < NSECTIONS; i++)
		kp_put_le(img + H_OFFS + 8 * i, off[i], 8);
	kp_put_le(img + H_SUM, kp__symcache_checksum(img, total), 8);
	*len = total;
	return img;
full:
	free(img);
	return NULL;   /* past the format's offsets: said as before, out of memory */
}

kp_status kp__symcache_build(kp_dwarf *d, kp_macho *m, const kp_macho_slice *slice,
                             const kp_symcache_key *key, const char *source,
                             const kp_symcache_cb *cb, void **image, size_t *len, kp_error *err)
{
	*image = NULL;
	*len = 0;
	atomic_bool stop;
	atomic_init(&stop, false);
	/* threads: each sweeps a run of the windows on its own handle,
	 * decoding their units and answering their boundaries; each run after
	 * the first from a block's start on (found before it starts), so that
	 * joined here in address order the runs make the image one thread
	 * makes */
	unsigned threads = cb && cb->threads ? cb->threads
	                   : key->dwarf_size >= KP__SYMCACHE_TWO_THREADS ? cores() : 1;
	threads = threads > MAX_THREADS ? MAX_THREADS : threads;
	struct run *runs = calloc(threads, sizeof *runs);
	struct collect sc = {{0}, cb, false, &stop};   /* the symbol table's boundaries */
	struct strtab t = {0};
	uint32_t **remaps = NULL;   /* join_strings' */
	bool limit = false;
	size_t nruns = 1;
	kp_status st = KP_ERR_NOMEM;
	if (!runs)
		return kp_error_set(err, st, 0, -1, "cannot build the symbol cache: out of memory");
	for (size_t p = 0; p < threads; p++) {
		struct run *r = &runs[p];
		r->stop = &stop;
		r->fr = r->frb[0];
		r->pfr = r->frb[1];
		r->cur = &r->ab[0];
		r->prev = &r->ab[1];
		r->st = KP_OK;
		if (!(r->b = calloc(1, sizeof *r->b)) || !(r->sb = calloc(1, sizeof *r->sb)))
			goto out;
	}
	runs[0].d = d;
	runs[0].cb = cb;
	for (size_t p = 1; p < threads; p++)
		runs[p].o.aside = true;
	/* the symbol table's boundaries, sorted before any thread looks up */
	if (!kp_macho_symbol_boundaries(m, slice, collect_addr, &sc) ||
	    !sort_distinct(&sc.v, runs[0].sb)) {
		st = sc.cancelled ? KP_ERR_LIMIT : KP_ERR_NOMEM;   /* said at out */
		goto out;
	}
	size_t nw = kp_dwarf_windows(d);
	runs[0].wend = nw;
	for (size_t p = 0; p < threads; p++) {
		runs[p].sym = sc.v.v;
		runs[p].nsym = sc.v.n;
		runs[p].nw = nw;
	}
	uint32_t src = 0;
	if (!intern(&runs[0].t, source, &src))
		goto out;
	if (threads > 1 && nw > 1)
		nruns = split_runs(d, runs, threads, nw);
	/* each run's string table sized once for its share of about one string
	 * per 10 bytes of .debug_str (the bench dSYM's; real names are longer,
	 * so fewer): grown from small, it hashed every string again at each
	 * doubling, 2.5% of the build */
	const unsigned char *ds;
	uint64_t dsz = 0;
	if (kp_macho_section(slice, "__DWARF", "__debug_str", &ds, &dsz, NULL)) {
		uint64_t want = dsz / 10 / nruns;
		want = want > ((uint64_t)1 << 21) ? (uint64_t)1 << 21 : want;
		for (size_t p = 0; p < nruns; p++)
			if (!kp_htab_reserve(&runs[p].t.strs, (size_t)want, 4096, st_hash, &runs[p].t))
				goto out;
	}
	for (size_t p = 1; p < nruns; p++)
		runs[p].threaded = pthread_create(&runs[p].thread, NULL, sweep_run, &runs[p]) == 0;
	sweep_run(&runs[0]);
	for (size_t p = 1; p < nruns; p++)
		if (!runs[p].threaded)
			sweep_run(&runs[p]);   /* no thread for it: this one sweeps it too */
	st = KP_OK;
	for (size_t p = 0; p < nruns; p++) {
		if (st != KP_OK)
			atomic_store(&stop, true);   /* their work is wasted: end it soon */
		if (runs[p].threaded)
			pthread_join(runs[p].thread, NULL);
		/* the first run's error, as one thread meets them in order */
		if (st == KP_OK && runs[p].st != KP_OK) {
			st = runs[p].st;
			if (err && st != KP_ERR_NOMEM && st != KP_ERR_LIMIT)
				*err = runs[p].err;
		}
	}
	for (size_t p = 0; p < nruns; p++)
		if (runs[p].cancelled)
			st = KP_ERR_LIMIT;
	if (st != KP_OK)
		goto out;
	st = KP_ERR_NOMEM;
	if (!(remaps = calloc(nruns, sizeof *remaps)) || !join_strings(runs, nruns, &t, remaps))
		goto out;
	*image = assemble(runs, nruns, remaps, &t, src, key, len, &limit);
	if (!*image) {
		st = limit ? KP_ERR_LIMIT : KP_ERR_NOMEM;
		goto out;
	}
	if (cb && cb->progress)
		cb->progress(cb->ctx, 1000, 1000);
	st = KP_OK;
out:;
	bool cancelled = sc.cancelled;
	for (size_t p = 0; runs && p < threads; p++)
		cancelled |= runs[p].cancelled;
	if (st == KP_ERR_NOMEM || st == KP_ERR_LIMIT)
		kp_error_set(err, st, 0, -1, "cannot build the symbol cache: %s",
		             st == KP_ERR_NOMEM ? "out of memory"
		             : cancelled || !limit ? "cancelled" : "too many blocks");
	for (size_t p = 1; runs && p < threads; p++)
		kp_dwarf_close(&runs[p].d);
	for (size_t p = 0; runs && p < threads; p++) {
		free(runs[p].pts.v);
		if (runs[p].sb)
			free(runs[p].sb->tmp.v);
		free(runs[p].sb);
		strtab_free(&runs[p].t);
		out_free(&runs[p].o);
		free(runs[p].b);
	}
	free(runs);
	free(sc.v.v);
	strtab_free(&t);
	for (size_t p = 1; remaps && p < nruns; p++)
		free(remaps[p]);
	free(remaps);
	return st;
}

/* ---- files ----------------------------------------------------------------- */

kp_status kp__symcache_write(const char *path, const void *image, size_t len, kp_error *err)
{
	kp_status st = kp_fs_mkdirs_for(path, 0755, err);
	/* no fsync: a cache damaged by a crash fails its checksum and is built
	 * again */
	return st != KP_OK ? st : kp_fs_write_atomic_unsynced(path, image, len, err);
}
