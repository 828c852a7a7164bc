
/* symcache_build.c: building a symbol cache image (format: symcache.h,
 * layout constants: symcache_format.h) from DWARF and the symbol table:
 * every boundary at which an answer may change is answered through
 * kp_dwarf_lookup, and the answers are cut into per-function blocks of an
 * inline tree and a delta-encoded line table.  Writing goes through
 * kp_fs_write_atomic. */
#include "symcache_format.h"
#include "kp_fs.h"
#include "kp_hash.h"
#include "kp_vec.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- growable byte and word buffers -------------------------------------- */

struct vec {
	void *v;
	size_t n, cap;
};

static bool push_bytes(struct vec *x, const void *p, size_t n)
{
	if (!n)
		return true;   /* p may be NULL (a block without nodes) */
	if (!kp_vec_reserve(&x->v, &x->cap, x->n + n, 1))
		return false;
	memcpy((char *)x->v + x->n, p, n);
	x->n += n;
	return true;
}

static bool push_u64(struct vec *x, uint64_t a)
{
	if (!kp_vec_reserve(&x->v, &x->cap, x->n + 1, 8))
		return false;
	((uint64_t *)x->v)[x->n++] = a;
	return true;
}

static bool push_u64s(struct vec *x, const uint64_t *a, size_t n)
{
	if (!n)
		return true;
	if (!kp_vec_reserve(&x->v, &x->cap, x->n + n, 8))
		return false;
	memcpy((uint64_t *)x->v + x->n, a, n * sizeof *a);
	x->n += n;
	return true;
}

static bool push_u32(struct vec *x, uint32_t a)
{
	if (!kp_vec_reserve(&x->v, &x->cap, x->n + 1, 4))
		return false;
	((uint32_t *)x->v)[x->n++] = a;
	return true;
}

static bool uleb(struct vec *x, uint64_t v)
{
	unsigned char b[10];
	size_t n = 0;
	do {
		b[n] = v & 0x7f;
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	return push_bytes(x, b, n);
}

/* ---- the string table: one copy of each string ------------------------- */

struct memo {
	const char *p;
	uint32_t id;
};

struct strtab {
	struct vec bytes;   /* starts with one NUL: offset 0 is never a string id */
	uint32_t *slot;     /* open addressing over offsets; 0 is empty */
	size_t cap, n;
	/* kp_dwarf hands out interned strings: their pointers are memoized so
	 * most strings are found without hashing their bytes */
	struct memo *memo;
	size_t mcap, mn;
};

static size_t hash_ptr(const char *p, size_t cap)
{
	return (size_t)(((uintptr_t)p * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static bool st_grow(struct strtab *t)
{
	size_t nc = t->cap ? t->cap * 2 : 4096;
	uint32_t *ns = calloc(nc, sizeof *ns);
	if (!ns)
		return false;
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->slot[i])
			continue;
		size_t j = kp_hash_str((const char *)t->bytes.v + t->slot[i]) & (nc - 1);
		while (ns[j])
			j = (j + 1) & (nc - 1);
		ns[j] = t->slot[i];
	}
	free(t->slot);
	t->slot = ns;
	t->cap = nc;
	return true;
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

/* *id: s's offset in the table, 0 for NULL; false when out of memory. */
static bool intern(struct strtab *t, const char *s, uint32_t *id)
{
	*id = 0;
	if (!s)
		return true;
	if ((t->mn + 1) * 2 > t->mcap && !memo_grow(t))
		return false;
	size_t mj = hash_ptr(s, t->mcap);
	for (; t->memo[mj].p; mj = (mj + 1) & (t->mcap - 1))
		if (t->memo[mj].p == s) {
			*id = t->memo[mj].id;
			return true;
		}
	if (!t->bytes.n && !push_bytes(&t->bytes, "", 1))
		return false;
	if ((t->n + 1) * 2 > t->cap && !st_grow(t))
		return false;
	size_t j = kp_hash_str(s) & (t->cap - 1);
	for (; t->slot[j]; j = (j + 1) & (t->cap - 1))
		if (strcmp((const char *)t->bytes.v + t->slot[j], s) == 0)
			break;
	if (!t->slot[j]) {
		size_t len = strlen(s) + 1;
		if (t->bytes.n + len >= NONE)
			return false;
		t->slot[j] = (uint32_t)t->bytes.n;
		if (!push_bytes(&t->bytes, s, len))
			return false;
		t->n++;
	}
	*id = t->slot[j];
	t->memo[mj] = (struct memo){s, *id};
	t->mn++;
	return true;
}

/* ---- one answer, and the block being written ------------------------------ */

struct frame {
	uint32_t name, file, line, col;
};

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
		if (b->nodes[i].parent == parent && !memcmp(&b->nodes[i].f, &a->f[k], sizeof a->f[k])) {
			*out = (uint32_t)i + 1;
			return true;
		}
	if (b->nnodes == KP__SYMCACHE_NODES)
		return false;
	b->nodes[b->nnodes] = (struct node){a->f[k], parent};
	*out = (uint32_t)++b->nnodes;
	return true;
}

struct out {
	struct vec starts, offs, data;   /* u64, u32, bytes */
	struct vec nodes;                /* scratch: one block's nodes */
	size_t nrows;
};

/* The block-local index (+1) of global string id g, added if new. */
static uint32_t local(struct block *b, uint32_t g)
{
	if (!g)
		return 0;
	for (size_t i = b->nstrs; i-- > 0;)
		if (b->strs[i] == g)
			return (uint32_t)i + 1;
	b->strs[b->nstrs] = g;   /* room: at most 2 per row and 2 per node */
	return (uint32_t)++b->nstrs;
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
	for (size_t i = 0; i < b->nrows; i++) {
		b->rows[i].f.name = local(b, b->rows[i].f.name);
		b->rows[i].f.file = local(b, b->rows[i].f.file);
		if ((b->rows[i].addr - b->start) % 4)
			g = 0;
	}
	struct vec *d = &o->data;
	if (d->n >= NONE || !push_u64(&o->starts, b->start) || !push_u32(&o->offs, (uint32_t)d->n) ||
	    !uleb(d, b->nstrs))
		return false;
	for (size_t i = 0; i < b->nstrs; i++)
		if (!uleb(d, zigzag((int64_t)b->strs[i] - (i ? (int64_t)b->strs[i - 1] : 0))))
			return false;
	struct vec *nd = &o->nodes;   /* its byte length goes first */
	nd->n = 0;
	for (size_t i = 0; i < b->nnodes; i++) {
		const struct node *n = &b->nodes[i];
		const struct frame *p = i ? &b->nodes[i - 1].f : &(struct frame){0, 0, 0, 0};
		if (!uleb(nd, n->f.name) || !uleb(nd, n->f.file) ||
		    !uleb(nd, zigzag((int64_t)n->f.line - (int64_t)p->line)) ||
		    !uleb(nd, zigzag((int64_t)n->f.col - (int64_t)p->col)) || !uleb(nd, n->parent))
			return false;
	}
	if (!uleb(d, b->nnodes) || !uleb(d, nd->n) || !push_bytes(d, nd->v, nd->n))
		return false;
	unsigned char gb = (unsigned char)g;
	if (!push_bytes(d, &gb, 1) || !uleb(d, b->nrows))
		return false;
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
		if (!push_bytes(d, &head, 1) || (!(head >> 5) && !uleb(d, delta)))
			return false;
		if (((flags & R_NAME) && !uleb(d, r->f.name)) || ((flags & R_FILE) && !uleb(d, r->f.file)) ||
		    ((flags & R_LINE) && !uleb(d, zigzag((int64_t)r->f.line - (int64_t)st.line))) ||
		    ((flags & R_COL) && !uleb(d, zigzag((int64_t)r->f.col - (int64_t)st.col))) ||
		    ((flags & R_NODE) && !uleb(d, r->node)))
			return false;
		if (!r->empty) {
			st = r->f;
			node = r->node;
		}
		prev = r->addr;
	}
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

/* Appends the answer a starting at addr (a->n == 0: no answer). */
static bool add_row(struct out *o, struct block *b, uint64_t addr, const struct answer *a)
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
	if (a->n && !node_of(b, a, 1, &node)) {
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

struct collect {
	struct vec v;
	const kp_symcache_cb *cb;   /* NULL on the second thread */
	bool cancelled;
	atomic_bool *stop;          /* set when the caller's thread was cancelled */
};

static bool collect_addr(void *ctx, uint64_t a)
{
	struct collect *c = ctx;
	if ((c->v.n & 0xffff) == 0 && ((c->cb && c->cb->cancel && c->cb->cancel(c->cb->ctx)) ||
	                               atomic_load(c->stop))) {
		c->cancelled = true;
		atomic_store(c->stop, true);
		return false;
	}
	return push_u64(&c->v, a);
}

static void collect_progress(void *ctx, size_t done, size_t total)
{
	struct collect *c = ctx;
	if (c->cb && c->cb->progress && total)
		c->cb->progress(c->cb->ctx, done * 500 / total, 1000);
}

/* Sorts v[0..n) (LSD radix, 16 bits a pass, passes whose digit never
 * varies skipped); false when out of memory. */
static bool sort_u64(uint64_t *v, size_t n)
{
	if (n < 2)
		return true;
	uint64_t *tmp = malloc(n * sizeof *tmp);
	size_t *count = malloc(65536 * sizeof *count);
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return false;
	}
	uint64_t *src = v, *dst = tmp;
	for (unsigned shift = 0; shift < 64; shift += 16) {
		memset(count, 0, 65536 * sizeof *count);
		for (size_t i = 0; i < n; i++)
			count[(src[i] >> shift) & 0xffff]++;
		if (count[(src[0] >> shift) & 0xffff] == n)
			continue;
		size_t sum = 0;
		for (size_t k = 0; k < 65536; k++) {
			size_t c = count[k];
			count[k] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 0xffff]++] = src[i];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof *v);
	free(tmp);
	free(count);
	return true;
}

/* The second thread's share: the boundaries of the later half of the
 * units, decoded on a handle of its own, which then answers them. */
struct half {
	kp_dwarf *d;
	struct collect col;
	kp_status st;
	kp_error err;
	pthread_t thread;
};

static void *half_run(void *arg)
{
	struct half *h = arg;
	h->st = kp_dwarf_for_each_boundary_part(h->d, 1, 2, collect_addr, NULL, &h->col, &h->err);
	return NULL;
}

/* A file this large is decoded on two threads (a smaller one is over
 * before a thread pays off). */
#define KP__SYMCACHE_TWO_THREADS ((uint64_t)4 << 20)

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static bool same_answer(const struct answer *a, const struct answer *b)
{
	return a->n == b->n && !memcmp(a->f, b->f, a->n * sizeof a->f[0]);
}

/* The image from its parts; NULL when out of memory. */
static unsigned char *assemble(const struct out *o, const struct strtab *t, uint32_t source,
                               const kp_symcache_key *key, size_t *len)
{
	const uint64_t *sa = o->starts.v;
	size_t nb = o->starts.n;
	uint64_t base = nb ? sa[0] : 0;
	unsigned width = nb && sa[nb - 1] - base > UINT32_MAX ? 8 : 4;
	size_t off[NSECTIONS], sz[NSECTIONS] = {nb * width, nb * 4, o->data.n, t->bytes.n};
	size_t total = KP_SYMCACHE_HDR;
	for (int i = 0; i < NSECTIONS; i++) {
		off[i] = total;
		total = align8(total + sz[i]);
	}
	unsigned char *img = calloc(1, total);
	if (!img)
		return NULL;
	memcpy(img + H_MAGIC, KP__SYMCACHE_MAGIC, 8);
	wr32(img + H_VERSION, KP_SYMCACHE_VERSION);
	wr32(img + H_HDRSIZE, KP_SYMCACHE_HDR);
	snprintf((char *)img + H_UUID, UUID_LEN, "%s", key->uuid);
	snprintf((char *)img + H_ARCH, ARCH_LEN, "%s", key->arch ? key->arch : "");
	wr64(img + H_DSIZE, key->dwarf_size);
	wr64(img + H_DMTIME, (uint64_t)key->dwarf_mtime_ns);
	wr64(img + H_FSIZE, total);
	wr64(img + H_BASE, base);
	wr32(img + H_WIDTH, width);
	wr32(img + H_NBLOCKS, (uint32_t)nb);
	wr32(img + H_DATASIZE, (uint32_t)o->data.n);
	wr32(img + H_STRSIZE, (uint32_t)t->bytes.n);
	wr32(img + H_SOURCE, source);
	wr32(img + H_NROWS, o->nrows > NONE ? NONE : (uint32_t)o->nrows);
	for (int i = 0; i < NSECTIONS; i++)
		wr64(img + H_OFFS + 8 * i, off[i]);
	for (size_t i = 0; i < nb; i++) {
		if (width == 4)
			wr32(img + off[S_STARTS] + 4 * i, (uint32_t)(sa[i] - base));
		else
			wr64(img + off[S_STARTS] + 8 * i, sa[i] - base);
		wr32(img + off[S_OFFS] + 4 * i, ((const uint32_t *)o->offs.v)[i]);
	}
	if (o->data.n)
		memcpy(img + off[S_DATA], o->data.v, o->data.n);
	if (t->bytes.n)
		memcpy(img + off[S_STRINGS], t->bytes.v, t->bytes.n);
	wr64(img + H_SUM, kp__symcache_checksum(img, total));
	*len = total;
	return img;
}

kp_status kp__symcache_build(kp_dwarf *d, kp_macho *m, const kp_macho_slice *slice,
                             const kp_symcache_key *key, const char *source,
                             const kp_symcache_cb *cb, void **image, size_t *len, kp_error *err)
{
	*image = NULL;
	*len = 0;
	atomic_bool stop;
	atomic_init(&stop, false);
	struct collect col = {{0}, cb, false, &stop};
	struct strtab t = {{0}, NULL, 0, 0, NULL, 0, 0};
	struct out o = {{0}, {0}, {0}, {0}, 0};
	struct block *b = calloc(1, sizeof *b);
	kp_status st = b ? KP_OK : KP_ERR_NOMEM;
	/* two threads: each decodes half of the units on its own handle; the
	 * answers and the image are made here, in address order, as alone */
	unsigned threads = cb && cb->threads ? cb->threads : key->dwarf_size >= KP__SYMCACHE_TWO_THREADS ? 2 : 1;
	struct half h = {.col = {{0}, NULL, false, &stop}, .st = KP_OK};
	if (st == KP_OK && threads > 1 && kp_dwarf_clone(d, &h.d, NULL) == KP_OK &&
	    pthread_create(&h.thread, NULL, half_run, &h) != 0)
		kp_dwarf_close(&h.d);   /* no thread: this one does it all */
	size_t nparts = h.d ? 2 : 1;
	if (st == KP_OK)
		st = kp_dwarf_for_each_boundary_part(d, 0, nparts, collect_addr, collect_progress, &col, err);
	if (h.d) {
		if (st != KP_OK)
			atomic_store(&stop, true);   /* its work is wasted: end it soon */
		pthread_join(h.thread, NULL);
		if (st == KP_OK && h.st != KP_OK) {   /* a later unit's error, as alone */
			st = h.st;
			if (err)
				*err = h.err;
		}
		if (st == KP_OK && !push_u64s(&col.v, h.col.v.v, h.col.v.n))
			st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
		free(h.col.v.v);
	}
	if (col.cancelled)
		st = KP_ERR_LIMIT;
	if (st != KP_OK)
		goto out;
	st = KP_ERR_NOMEM;
	if (!kp_macho_symbol_boundaries(m, slice, collect_addr, &col)) {
		st = col.cancelled ? KP_ERR_LIMIT : KP_ERR_NOMEM;
		goto out;
	}
	uint64_t *bd = col.v.v;
	if (!sort_u64(bd, col.v.n))
		goto out;
	uint32_t src = 0;
	if (!intern(&t, source, &src))
		goto out;
	/* two frame and answer buffers, swapped: a frame whose strings are the
	 * same pointers as the one before it at its depth reuses their ids */
	kp_symframe frb[2][KP_SYMCACHE_MAX_FRAMES];
	struct answer ab[2];
	kp_symframe *fr = frb[0], *pfr = frb[1];
	struct answer *cur = &ab[0], *prev = &ab[1];
	size_t pn = 0;
	prev->n = 0;
	for (size_t i = 0; i < col.v.n; i++) {
		if (i && bd[i] == bd[i - 1])
			continue;
		if (i % 65536 == 0) {
			if (cb && cb->cancel && cb->cancel(cb->ctx)) {
				st = KP_ERR_LIMIT;
				goto out;
			}
			if (cb && cb->progress)
				cb->progress(cb->ctx, 500 + i * 500 / col.v.n, 1000);
		}
		size_t n = 0;
		kp_dwarf *dd = nparts > 1 && kp_dwarf_part_of(d, bd[i], nparts) ? h.d : d;
		st = kp_dwarf_lookup(dd, bd[i], fr, KP_SYMCACHE_MAX_FRAMES, &n, err);
		if (st != KP_OK)
			goto out;
		st = KP_ERR_NOMEM;
		cur->n = n;
		for (size_t k = 0; k < n; k++) {
			cur->f[k].line = fr[k].line;
			cur->f[k].col = fr[k].column;
			if (k < pn && fr[k].function == pfr[k].function)
				cur->f[k].name = prev->f[k].name;
			else if (!intern(&t, fr[k].function, &cur->f[k].name))
				goto out;
			if (k < pn && fr[k].file == pfr[k].file)
				cur->f[k].file = prev->f[k].file;
			else if (!intern(&t, fr[k].file, &cur->f[k].file))
				goto out;
		}
		if (same_answer(cur, prev))
			continue; /* the same answer goes on */
		if (!add_row(&o, b, bd[i], cur))
			goto out;
		struct answer *ta = prev;
		prev = cur;
		cur = ta;
		kp_symframe *tf = pfr;
		pfr = fr;
		fr = tf;
		pn = n;
	}
	if (!flush_block(&o, b))
		goto out;
	if (o.starts.n >= NONE) {
		st = KP_ERR_LIMIT;
		goto out;
	}
	*image = assemble(&o, &t, src, key, len);
	if (!*image)
		goto out;
	if (cb && cb->progress)
		cb->progress(cb->ctx, 1000, 1000);
	st = KP_OK;
out:
	if (st == KP_ERR_NOMEM || st == KP_ERR_LIMIT)
		kp_error_set(err, st, 0, -1, "cannot build the symbol cache: %s",
		             st == KP_ERR_NOMEM ? "out of memory"
		             : col.cancelled || o.starts.n < NONE ? "cancelled" : "too many blocks");
	kp_dwarf_close(&h.d);
	free(col.v.v);
	free(o.starts.v);
	free(o.offs.v);
	free(o.data.v);
	free(o.nodes.v);
	free(t.bytes.v);
	free(t.slot);
	free(t.memo);
	free(b);
	return st;
}

/* ---- files ----------------------------------------------------------------- */

kp_status kp__symcache_write(const char *path, const void *image, size_t len, kp_error *err)
{
	kp_status st = kp_fs_mkdirs_for(path, 0755, err);
	return st != KP_OK ? st : kp_fs_write_atomic(path, image, len, err);
}
