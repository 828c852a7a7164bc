/* symcache_build.c: building a symbol cache image from DWARF and the
 * symbol table (every boundary answered through kp_dwarf_lookup), and
 * writing it (format: symcache.h, layout constants: symcache_format.h). */
#include "symcache_format.h"
#include "kp_fs.h"
#include "kp_vec.h"

#include <stdlib.h>
#include <string.h>

/* ---- building -------------------------------------------------------------- */

struct vec {
	void *v;
	size_t n, cap;
};

static bool vgrow(struct vec *x, size_t need, size_t elem)
{
	return kp_vec_reserve(&x->v, &x->cap, need, elem);
}

static bool push_u64(struct vec *x, uint64_t a)
{
	if (!vgrow(x, x->n + 1, 8))
		return false;
	((uint64_t *)x->v)[x->n++] = a;
	return true;
}

static bool push_u32(struct vec *x, uint32_t a)
{
	if (!vgrow(x, x->n + 1, 4))
		return false;
	((uint32_t *)x->v)[x->n++] = a;
	return true;
}

/* Open addressing over u32 ids; hashes are recomputed when growing. */
struct htab {
	uint32_t *slot;
	size_t cap, n;
};

struct builder {
	struct vec strs;   /* char: the string table */
	struct vec frames; /* u32 x4 */
	struct vec links;  /* u32 */
	struct vec chains; /* u32 starts; one more than chains */
	struct htab hs, hf, hc;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * P1;
	return h ^ (h >> 29);
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static uint64_t hash_u32s(const uint32_t *v, size_t n)
{
	uint64_t h = P2 + n;
	for (size_t i = 0; i < n; i++)
		h = mix(h, v[i]);
	return h;
}

static uint64_t hash_of(const struct builder *b, const struct htab *t, uint32_t id)
{
	if (t == &b->hs)
		return hash_str((const char *)b->strs.v + id);
	if (t == &b->hf)
		return hash_u32s((const uint32_t *)b->frames.v + 4 * (size_t)id, 4);
	const uint32_t *st = b->chains.v;
	return hash_u32s((const uint32_t *)b->links.v + st[id], st[id + 1] - st[id]);
}

static bool ht_reserve(struct builder *b, struct htab *t)
{
	if ((t->n + 1) * 2 <= t->cap)
		return true;
	size_t nc = t->cap ? t->cap * 2 : 4096;
	uint32_t *ns = malloc(nc * sizeof *ns);
	if (!ns)
		return false;
	memset(ns, 0xff, nc * sizeof *ns);
	for (size_t i = 0; i < t->cap; i++) {
		if (t->slot[i] == NONE)
			continue;
		size_t j = hash_of(b, t, t->slot[i]) & (nc - 1);
		while (ns[j] != NONE)
			j = (j + 1) & (nc - 1);
		ns[j] = t->slot[i];
	}
	free(t->slot);
	t->slot = ns;
	t->cap = nc;
	return true;
}

/* The id of string s in the table, added if new; NONE for NULL; false on OOM. */
static bool intern(struct builder *b, const char *s, uint32_t *id)
{
	*id = NONE;
	if (!s)
		return true;
	if (!ht_reserve(b, &b->hs))
		return false;
	size_t j = hash_str(s) & (b->hs.cap - 1);
	for (; b->hs.slot[j] != NONE; j = (j + 1) & (b->hs.cap - 1))
		if (strcmp((const char *)b->strs.v + b->hs.slot[j], s) == 0) {
			*id = b->hs.slot[j];
			return true;
		}
	size_t len = strlen(s) + 1;
	if (b->strs.n + len >= NONE || !vgrow(&b->strs, b->strs.n + len, 1))
		return false;
	memcpy((char *)b->strs.v + b->strs.n, s, len);
	*id = b->hs.slot[j] = (uint32_t)b->strs.n;
	b->strs.n += len;
	b->hs.n++;
	return true;
}

static bool frame_id(struct builder *b, const uint32_t t[4], uint32_t *id)
{
	if (!ht_reserve(b, &b->hf))
		return false;
	size_t j = hash_u32s(t, 4) & (b->hf.cap - 1);
	for (; b->hf.slot[j] != NONE; j = (j + 1) & (b->hf.cap - 1))
		if (memcmp((const uint32_t *)b->frames.v + 4 * (size_t)b->hf.slot[j], t, 16) == 0) {
			*id = b->hf.slot[j];
			return true;
		}
	if (b->frames.n / 4 >= NONE - 1 || !vgrow(&b->frames, b->frames.n + 4, 4))
		return false;
	memcpy((uint32_t *)b->frames.v + b->frames.n, t, 16);
	*id = b->hf.slot[j] = (uint32_t)(b->frames.n / 4);
	b->frames.n += 4;
	b->hf.n++;
	return true;
}

/* The chain of the frame ids f[0..n), added if new. */
static bool chain_id(struct builder *b, const uint32_t *f, size_t n, uint32_t *id)
{
	if (!ht_reserve(b, &b->hc))
		return false;
	size_t nchains = b->chains.n - 1;
	size_t j = hash_u32s(f, n) & (b->hc.cap - 1);
	const uint32_t *st = b->chains.v;
	for (; b->hc.slot[j] != NONE; j = (j + 1) & (b->hc.cap - 1)) {
		uint32_t c = b->hc.slot[j];
		if (st[c + 1] - st[c] == n &&
		    (n == 0 || memcmp((const uint32_t *)b->links.v + st[c], f, n * 4) == 0)) {
			*id = c;
			return true;
		}
	}
	if (nchains >= NONE - 2 || b->links.n + n >= NONE)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!push_u32(&b->links, f[i]))
			return false;
	if (!push_u32(&b->chains, (uint32_t)b->links.n))
		return false;
	*id = b->hc.slot[j] = (uint32_t)nchains;
	b->hc.n++;
	return true;
}

/* Superset of the addresses where kp_macho_symbol's answer may change:
 * every nlist value and every section start and end, from the slice's load
 * commands (bounds checked; anything malformed is skipped). */
static bool symtab_boundaries(const kp_macho_slice *s, struct vec *out)
{
	const unsigned char *d = s->data;
	size_t size = s->size;
	if (!d || size < 28)
		return true;
	uint32_t mg = rd32(d);
	if (mg != 0xfeedfaceu && mg != 0xfeedfacfu)
		return true;
	bool is64 = mg == 0xfeedfacfu;
	uint64_t at = is64 ? 32 : 28, ncmds = rd32(d + 16);
	for (uint64_t i = 0; i < ncmds && at + 8 <= size; i++) {
		uint32_t cmd = rd32(d + at), cs = rd32(d + at + 4);
		if (cs < 8 || cs > size - at)
			break;
		const unsigned char *c = d + at;
		if ((cmd == 0x19 && cs >= 72) || (cmd == 0x1 && cs >= 56)) {
			bool s64 = cmd == 0x19;
			uint64_t hdr = s64 ? 72 : 56, ssz = s64 ? 80 : 68;
			uint64_t ns = rd32(c + (s64 ? 64 : 48));
			for (uint64_t k = 0; k < ns && hdr + (k + 1) * ssz <= cs; k++) {
				const unsigned char *q = c + hdr + k * ssz;
				uint64_t a = s64 ? rd64(q + 32) : rd32(q + 32);
				uint64_t z = s64 ? rd64(q + 40) : rd32(q + 36);
				if (!push_u64(out, a) || !push_u64(out, a + z))
					return false;
			}
		} else if (cmd == 0x2 && cs >= 24) {
			uint64_t off = rd32(c + 8), n = rd32(c + 12), ent = is64 ? 16 : 12;
			for (uint64_t k = 0; k < n && off + (k + 1) * ent <= size; k++) {
				const unsigned char *e = d + off + k * ent;
				if (!push_u64(out, is64 ? rd64(e + 8) : rd32(e + 8)))
					return false;
			}
		}
		at += cs;
	}
	return true;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* What kp_dwarf_for_each_boundary feeds. */
struct collect {
	struct vec v;
	void (*fn)(void *ctx, size_t done, size_t total);
	void *ctx;
};

static bool collect_addr(void *ctx, uint64_t a)
{
	return push_u64(&((struct collect *)ctx)->v, a);
}

static void collect_progress(void *ctx, size_t done, size_t total)
{
	struct collect *c = ctx;
	if (c->fn && total)
		c->fn(c->ctx, done * 500 / total, 1000);
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

kp_status kp__symcache_build(kp_dwarf *d, const kp_macho_slice *slice, const kp_symcache_key *key,
                             void (*progress)(void *ctx, size_t done, size_t total), void *ctx,
                             void **image, size_t *len, kp_error *err)
{
	*image = NULL;
	*len = 0;
	struct collect col = {{0}, progress, ctx};
	struct builder b = {0};
	struct vec starts = {0}, ids = {0};
	kp_status st = kp_dwarf_for_each_boundary(d, collect_addr, collect_progress, &col, err);
	struct vec *bv = &col.v;
	if (st != KP_OK)
		goto out;
	st = KP_ERR_NOMEM;
	if (!symtab_boundaries(slice, bv))
		goto out;
	uint64_t *bd = bv->v;
	if (bv->n > 1)
		qsort(bd, bv->n, 8, u64_cmp);
	uint32_t empty;
	if (!push_u32(&b.chains, 0) || !chain_id(&b, NULL, 0, &empty))
		goto out;
	kp_symframe fr[KP_SYMCACHE_MAX_FRAMES];
	uint32_t fids[KP_SYMCACHE_MAX_FRAMES];
	for (size_t i = 0; i < bv->n; i++) {
		if (i && bd[i] == bd[i - 1])
			continue;
		if (progress && i % 65536 == 0)
			progress(ctx, 500 + i * 500 / bv->n, 1000);
		size_t n = 0;
		st = kp_dwarf_lookup(d, bd[i], fr, KP_SYMCACHE_MAX_FRAMES, &n, err);
		if (st != KP_OK)
			goto out;
		st = KP_ERR_NOMEM;
		for (size_t k = 0; k < n; k++) {
			uint32_t t[4] = {0, 0, fr[k].line, fr[k].column};
			if (!intern(&b, fr[k].function, &t[0]) || !intern(&b, fr[k].file, &t[1]) ||
			    !frame_id(&b, t, &fids[k]))
				goto out;
		}
		uint32_t id;
		if (!chain_id(&b, fids, n, &id))
			goto out;
		const uint32_t *prev = ids.n ? (const uint32_t *)ids.v + ids.n - 1 : NULL;
		if (prev ? *prev == id : id == empty)
			continue; /* the same answer goes on */
		if (!push_u64(&starts, bd[i]) || !push_u32(&ids, id))
			goto out;
	}
	if (starts.n >= NONE) {
		st = KP_ERR_LIMIT;
		goto out;
	}
	const uint64_t *sa = starts.v;
	uint64_t base = starts.n ? sa[0] : 0;
	unsigned width = starts.n && sa[starts.n - 1] - base > UINT32_MAX ? 8 : 4;
	uint32_t nchains = (uint32_t)(b.chains.n - 1);
	size_t off[NSECTIONS], sz[NSECTIONS] = {
		starts.n * width, ids.n * 4, b.chains.n * 4, b.links.n * 4, b.frames.n * 4, b.strs.n,
	};
	size_t total = KP_SYMCACHE_HDR;
	for (int i = 0; i < NSECTIONS; i++) {
		off[i] = total;
		total = align8(total + sz[i]);
	}
	unsigned char *img = calloc(1, total);
	if (!img)
		goto out;
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
	wr32(img + H_NADDRS, (uint32_t)starts.n);
	wr32(img + H_NCHAINS, nchains);
	wr32(img + H_NLINKS, (uint32_t)b.links.n);
	wr32(img + H_NFRAMES, (uint32_t)(b.frames.n / 4));
	wr32(img + H_STRSIZE, (uint32_t)b.strs.n);
	for (int i = 0; i < NSECTIONS; i++)
		wr64(img + H_OFFS + 8 * i, off[i]);
	for (size_t i = 0; i < starts.n; i++) {
		if (width == 4)
			wr32(img + off[S_ADDRS] + 4 * i, (uint32_t)(sa[i] - base));
		else
			wr64(img + off[S_ADDRS] + 8 * i, sa[i] - base);
		wr32(img + off[S_IDS] + 4 * i, ((const uint32_t *)ids.v)[i]);
	}
	const struct vec *u32s[] = {[S_CHAINS] = &b.chains, [S_LINKS] = &b.links, [S_FRAMES] = &b.frames};
	for (int s = S_CHAINS; s <= S_FRAMES; s++)
		for (size_t i = 0; i < u32s[s]->n; i++)
			wr32(img + off[s] + 4 * i, ((const uint32_t *)u32s[s]->v)[i]);
	if (b.strs.n)
		memcpy(img + off[S_STRINGS], b.strs.v, b.strs.n);
	wr64(img + H_SUM, kp__symcache_checksum(img, total));
	if (progress)
		progress(ctx, 1000, 1000);
	*image = img;
	*len = total;
	st = KP_OK;
out:
	if (st == KP_ERR_NOMEM || st == KP_ERR_LIMIT)
		kp_error_set(err, st, 0, -1, "cannot build the symbol cache: %s",
		             st == KP_ERR_NOMEM ? "out of memory" : "too many intervals");
	free(bv->v);
	free(starts.v);
	free(ids.v);
	free(b.strs.v);
	free(b.frames.v);
	free(b.links.v);
	free(b.chains.v);
	free(b.hs.slot);
	free(b.hf.slot);
	free(b.hc.slot);
	return st;
}

/* ---- files ----------------------------------------------------------------- */

bool kp__symcache_write(const char *path, const void *image, size_t len)
{
	return kp_fs_mkdirs_for(path, 0755, NULL) == KP_OK &&
	       kp_fs_write_atomic(path, image, len, NULL) == KP_OK;
}
