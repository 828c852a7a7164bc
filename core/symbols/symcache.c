/* symcache.c: the symbol cache of symcache.h: build, write, map, look up. */
#include "symcache.h"
#include "kp_fs.h"
#include "kp_vec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const unsigned char magic[8] = {'K', 'P', 'S', 'Y', 'M', 'C', '\r', '\n'};

/* header field offsets */
enum {
	H_MAGIC = 0, H_VERSION = 8, H_HDRSIZE = 12, H_UUID = 16, H_ARCH = 56, H_DSIZE = 72,
	H_DMTIME = 80, H_FSIZE = 88, H_SUM = 96, H_BASE = 104, H_WIDTH = 112, H_NADDRS = 116,
	H_NCHAINS = 120, H_NLINKS = 124, H_NFRAMES = 128, H_STRSIZE = 132, H_OFFS = 136,
	UUID_LEN = 40, ARCH_LEN = 16,
};
enum { S_ADDRS, S_IDS, S_CHAINS, S_LINKS, S_FRAMES, S_STRINGS, NSECTIONS };

#define NONE UINT32_MAX

struct kp_symcache {
	const unsigned char *data;
	size_t len;
	bool mapped;
	uint64_t base;
	unsigned width;
	uint32_t naddrs, nchains, nlinks, nframes, strsize;
	const unsigned char *addrs;
	const uint32_t *ids, *chains, *links, *frames;
	const char *strings;
};

/* ---- little-endian helpers ---------------------------------------------- */

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static void wr(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}
#define wr32(p, v) wr((p), (v), 4)
#define wr64(p, v) wr((p), (v), 8)

/* In-memory arrays are read directly: the format is little endian. */
static bool host_little(void)
{
	const uint16_t one = 1;
	return *(const unsigned char *)&one == 1;
}

/* ---- checksum: four 64-bit multiply-rotate lanes, then a final mix ------ */

#define P1 0x9e3779b185ebca87ull
#define P2 0xc2b2ae3d27d4eb4full

static uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static void sum_blocks(uint64_t h[4], const unsigned char *p, size_t nblocks)
{
	uint64_t a = h[0], b = h[1], c = h[2], d = h[3];
	for (size_t i = 0; i < nblocks; i++, p += 32) {
		uint64_t w[4];
		memcpy(w, p, 32);
		a = rotl(a + w[0] * P2, 31) * P1;
		b = rotl(b + w[1] * P2, 31) * P1;
		c = rotl(c + w[2] * P2, 31) * P1;
		d = rotl(d + w[3] * P2, 31) * P1;
	}
	h[0] = a, h[1] = b, h[2] = c, h[3] = d;
}

/* The file's checksum, its H_SUM field read as zero (the header size is a
 * multiple of 32, so the header copy and the body chain as blocks). */
static uint64_t checksum(const unsigned char *data, size_t len)
{
	unsigned char hdr[KP_SYMCACHE_HDR];
	memcpy(hdr, data, sizeof hdr);
	memset(hdr + H_SUM, 0, 8);
	uint64_t h[4] = {P1 + P2, P2, 0, -P1};
	sum_blocks(h, hdr, sizeof hdr / 32);
	const unsigned char *body = data + sizeof hdr;
	size_t blen = len - sizeof hdr, nb = blen / 32;
	sum_blocks(h, body, nb);
	uint64_t x = rotl(h[0], 1) + rotl(h[1], 7) + rotl(h[2], 12) + rotl(h[3], 18) + len;
	for (size_t i = nb * 32; i < blen; i++)
		x = rotl(x ^ (body[i] * P1), 11) * P2;
	x ^= x >> 33;
	x *= P2;
	x ^= x >> 29;
	return x;
}

/* ---- opening --------------------------------------------------------------- */

static bool section_ok(uint64_t off, uint64_t count, uint64_t elem, size_t len)
{
	return off % 8 == 0 && off >= KP_SYMCACHE_HDR && off <= len && count * elem <= len - off;
}

static bool same_text(const unsigned char *field, size_t n, const char *want)
{
	size_t wl = strlen(want);
	if (wl >= n || memcmp(field, want, wl) != 0)
		return false;
	for (size_t i = wl; i < n; i++)
		if (field[i])
			return false;
	return true;
}

static kp_status validate(kp_symcache *c, const kp_symcache_key *key)
{
	const unsigned char *h = c->data;
	size_t len = c->len;
	if (len < KP_SYMCACHE_HDR || memcmp(h + H_MAGIC, magic, 8) != 0 ||
	    rd32(h + H_VERSION) != KP_SYMCACHE_VERSION || rd32(h + H_HDRSIZE) != KP_SYMCACHE_HDR ||
	    rd64(h + H_FSIZE) != len)
		return KP_ERR_FORMAT;
	if (!same_text(h + H_UUID, UUID_LEN, key->uuid) ||
	    !same_text(h + H_ARCH, ARCH_LEN, key->arch ? key->arch : "") ||
	    rd64(h + H_DSIZE) != key->dwarf_size || (int64_t)rd64(h + H_DMTIME) != key->dwarf_mtime_ns)
		return KP_ERR_FORMAT;
	c->base = rd64(h + H_BASE);
	c->width = rd32(h + H_WIDTH);
	c->naddrs = rd32(h + H_NADDRS);
	c->nchains = rd32(h + H_NCHAINS);
	c->nlinks = rd32(h + H_NLINKS);
	c->nframes = rd32(h + H_NFRAMES);
	c->strsize = rd32(h + H_STRSIZE);
	uint64_t off[NSECTIONS];
	for (int i = 0; i < NSECTIONS; i++)
		off[i] = rd64(h + H_OFFS + 8 * i);
	if ((c->width != 4 && c->width != 8) || c->nchains == 0 || c->nchains == NONE ||
	    !section_ok(off[S_ADDRS], c->naddrs, c->width, len) ||
	    !section_ok(off[S_IDS], c->naddrs, 4, len) ||
	    !section_ok(off[S_CHAINS], (uint64_t)c->nchains + 1, 4, len) ||
	    !section_ok(off[S_LINKS], c->nlinks, 4, len) ||
	    !section_ok(off[S_FRAMES], c->nframes, 16, len) ||
	    !section_ok(off[S_STRINGS], c->strsize, 1, len) ||
	    (c->strsize && h[off[S_STRINGS] + c->strsize - 1] != '\0'))
		return KP_ERR_FORMAT;
	if (rd64(h + H_SUM) != checksum(h, len))
		return KP_ERR_FORMAT;
	c->addrs = h + off[S_ADDRS];
	c->ids = (const uint32_t *)(const void *)(h + off[S_IDS]);
	c->chains = (const uint32_t *)(const void *)(h + off[S_CHAINS]);
	c->links = (const uint32_t *)(const void *)(h + off[S_LINKS]);
	c->frames = (const uint32_t *)(const void *)(h + off[S_FRAMES]);
	c->strings = (const char *)h + off[S_STRINGS];
	return KP_OK;
}

kp_status kp__symcache_open(const char *path, const kp_symcache_key *key, kp_symcache **out)
{
	*out = NULL;
	if (!host_little())
		return KP_ERR_FORMAT;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return errno == ENOENT ? KP_ERR_NOTFOUND : KP_ERR_IO;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < KP_SYMCACHE_HDR ||
	    (uint64_t)st.st_size > SIZE_MAX) {
		close(fd);
		return KP_ERR_FORMAT;
	}
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return KP_ERR_IO;
	kp_symcache *c = calloc(1, sizeof *c);
	if (!c) {
		munmap(p, (size_t)st.st_size);
		return KP_ERR_NOMEM;
	}
	c->data = p;
	c->len = (size_t)st.st_size;
	c->mapped = true;
	kp_status s = validate(c, key);
	if (s != KP_OK) {
		kp__symcache_close(&c);
		return s;
	}
	*out = c;
	return KP_OK;
}

kp_status kp__symcache_open_mem(void *image, size_t len, const kp_symcache_key *key,
                                kp_symcache **out)
{
	*out = NULL;
	kp_symcache *c = host_little() ? calloc(1, sizeof *c) : NULL;
	if (!c) {
		free(image);
		return KP_ERR_NOMEM;
	}
	c->data = image;
	c->len = len;
	kp_status s = validate(c, key);
	if (s != KP_OK) {
		kp__symcache_close(&c);
		return s;
	}
	*out = c;
	return KP_OK;
}

void kp__symcache_close(kp_symcache **cp)
{
	if (!cp || !*cp)
		return;
	kp_symcache *c = *cp;
	if (c->mapped)
		munmap((void *)(uintptr_t)c->data, c->len);
	else
		free((void *)(uintptr_t)c->data);
	free(c);
	*cp = NULL;
}

/* ---- lookup ---------------------------------------------------------------- */

static const char *str_at(const kp_symcache *c, uint32_t off, bool *ok)
{
	if (off == NONE)
		return NULL;
	if (off >= c->strsize) {
		*ok = false;
		return NULL;
	}
	return c->strings + off;
}

bool kp__symcache_lookup(const kp_symcache *c, uint64_t addr, kp_symframe *frames, size_t max,
                         size_t *n)
{
	*n = 0;
	if (addr < c->base || c->naddrs == 0)
		return true;
	uint64_t rel = addr - c->base;
	size_t lo = 0, hi = c->naddrs; /* upper bound: first start > rel */
	const uint32_t *a4 = (const uint32_t *)(const void *)c->addrs;
	const uint64_t *a8 = (const uint64_t *)(const void *)c->addrs;
	if (c->width == 4 && rel > UINT32_MAX)
		lo = hi;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((c->width == 4 ? a4[mid] : a8[mid]) <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return true;
	uint32_t id = c->ids[lo - 1];
	if (id >= c->nchains)
		return false;
	uint32_t first = c->chains[id], end = c->chains[id + 1];
	if (first > end || end > c->nlinks || end - first > KP_SYMCACHE_MAX_FRAMES)
		return false;
	bool ok = true;
	size_t k = 0;
	for (uint32_t i = first; i < end && k < max; i++, k++) {
		uint32_t f = c->links[i];
		if (f >= c->nframes)
			return false;
		const uint32_t *t = c->frames + 4 * (size_t)f;
		frames[k] = (kp_symframe){str_at(c, t[0], &ok), str_at(c, t[1], &ok), t[2], t[3]};
	}
	if (!ok)
		return false;
	*n = k;
	return true;
}

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
	memcpy(img + H_MAGIC, magic, 8);
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
	wr64(img + H_SUM, checksum(img, total));
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

bool kp__symcache_path(char *buf, size_t size, const char *cache_dir, const char *uuid)
{
	int n = snprintf(buf, size, "%s/symcache/%s.kpsym", cache_dir, uuid);
	return n > 0 && (size_t)n < size;
}

bool kp__symcache_write(const char *path, const void *image, size_t len)
{
	return kp_fs_mkdirs_for(path, 0755, NULL) == KP_OK &&
	       kp_fs_write_atomic(path, image, len, NULL) == KP_OK;
}
