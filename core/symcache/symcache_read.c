/* symcache_read.c: the symbol cache of symcache.h: validating, mapping
 * (under the SIGBUS guard) and answering from a cache file, and its
 * checksum.  Every byte a lookup decodes is bounds-checked: the checksum
 * guards against damage, not against a file written to lie. */
#include "symcache_format.h"
#include "kp_mapguard.h"
#include "kp_rd.h"
#include "kp_demangle.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct kp_symcache {
	const unsigned char *data;
	size_t len;
	bool mapped;
	int guard;        /* mapguard.h slot of the mapping, else -1 */
	uint64_t base;
	unsigned width;
	uint32_t nblocks, datasize, strsize;
	const unsigned char *starts, *offs, *blocks;
	const char *strings;
};

/* ---- checksum: four 64-bit multiply-rotate lanes, then a final mix ------ */

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
uint64_t kp__symcache_checksum(const unsigned char *data, size_t len)
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

/* The layout of c->data (no key): counts, sections, checksum. */
static kp_status validate_layout(kp_symcache *c)
{
	const unsigned char *h = c->data;
	size_t len = c->len;
	if (len < KP_SYMCACHE_HDR || memcmp(h + H_MAGIC, KP__SYMCACHE_MAGIC, 8) != 0 ||
	    kp_le32(h + H_VERSION) != KP_SYMCACHE_VERSION || kp_le32(h + H_HDRSIZE) != KP_SYMCACHE_HDR ||
	    kp_le64(h + H_FSIZE) != len)
		return KP_ERR_FORMAT;
	c->base = kp_le64(h + H_BASE);
	c->width = kp_le32(h + H_WIDTH);
	c->nblocks = kp_le32(h + H_NBLOCKS);
	c->datasize = kp_le32(h + H_DATASIZE);
	c->strsize = kp_le32(h + H_STRSIZE);
	uint64_t off[NSECTIONS];
	for (int i = 0; i < NSECTIONS; i++)
		off[i] = kp_le64(h + H_OFFS + 8 * i);
	if ((c->width != 4 && c->width != 8) || c->strsize == 0 ||
	    !section_ok(off[S_STARTS], c->nblocks, c->width, len) ||
	    !section_ok(off[S_OFFS], c->nblocks, 4, len) ||
	    !section_ok(off[S_DATA], c->datasize, 1, len) ||
	    !section_ok(off[S_STRINGS], c->strsize, 1, len) ||
	    h[off[S_STRINGS] + c->strsize - 1] != '\0')
		return KP_ERR_FORMAT;
	if (kp_le64(h + H_SUM) != kp__symcache_checksum(h, len))
		return KP_ERR_FORMAT;
	c->starts = h + off[S_STARTS];
	c->offs = h + off[S_OFFS];
	c->blocks = h + off[S_DATA];
	c->strings = (const char *)h + off[S_STRINGS];
	return KP_OK;
}

static kp_status validate(kp_symcache *c, const kp_symcache_key *key)
{
	kp_status st = validate_layout(c);
	if (st != KP_OK)
		return st;
	const unsigned char *h = c->data;
	if (!same_text(h + H_UUID, UUID_LEN, key->uuid) ||
	    !same_text(h + H_ARCH, ARCH_LEN, key->arch ? key->arch : "") ||
	    kp_le64(h + H_DSIZE) != key->dwarf_size || (int64_t)kp_le64(h + H_DMTIME) != key->dwarf_mtime_ns)
		return KP_ERR_FORMAT;
	return KP_OK;
}

/* Maps path (O_NONBLOCK|O_NOFOLLOW, a regular file only) into a new cache. */
static kp_status map_file(const char *path, kp_symcache **out)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? KP_ERR_NOTFOUND : errno == ELOOP ? KP_ERR_FORMAT : KP_ERR_IO;
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
	/* truncated in place later: zeros and a hit instead of SIGBUS */
	c->guard = kp__mapguard_add(p, c->len);
	*out = c;
	return KP_OK;
}

uint32_t kp__symcache_version(void)
{
	return KP_SYMCACHE_FORMAT | (kp_demangle_available(NULL) ? 0 : KP_SYMCACHE_RAW);
}

kp_status kp__symcache_open(const char *path, const kp_symcache_key *key, kp_symcache **out)
{
	kp_symcache *c;
	kp_status s = map_file(path, &c);
	if (s != KP_OK)
		return s;
	s = validate(c, key);
	if (s == KP_OK && kp__mapguard_hit(c->guard))
		s = KP_ERR_FORMAT;   /* truncated while validated */
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
	kp_symcache *c = calloc(1, sizeof *c);
	if (!c) {
		free(image);
		return KP_ERR_NOMEM;
	}
	c->data = image;
	c->len = len;
	c->guard = -1;
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
	if (c->mapped) {
		kp__mapguard_remove(c->guard);
		munmap((void *)(uintptr_t)c->data, c->len);
	} else {
		free((void *)(uintptr_t)c->data);
	}
	free(c);
	*cp = NULL;
}

kp_status kp__symcache_info(const char *path, kp_symcache_info *out)
{
	memset(out, 0, sizeof *out);
	kp_symcache *c;
	kp_status s = map_file(path, &c);
	if (s != KP_OK)
		return s;
	s = validate_layout(c);
	const unsigned char *h = c->data;
	if (s == KP_OK && !kp__mapguard_hit(c->guard)) {
		memcpy(out->uuid, h + H_UUID, UUID_LEN - 1);
		memcpy(out->arch, h + H_ARCH, ARCH_LEN - 1);
		out->dwarf_size = kp_le64(h + H_DSIZE);
		out->dwarf_mtime_ns = (int64_t)kp_le64(h + H_DMTIME);
		out->size = c->len;
		uint32_t src = kp_le32(h + H_SOURCE);
		if (src && src < c->strsize)
			snprintf(out->source, sizeof out->source, "%s", c->strings + src);
	} else {
		s = KP_ERR_FORMAT;
	}
	kp__symcache_close(&c);
	return s;
}

/* ---- lookup ---------------------------------------------------------------- */

/* A ULEB128 of a block: the writer never writes one longer than 10 bytes,
 * so a longer one is damage.  Most are one byte (a lookup decodes about a
 * hundred): that case is read inline, the rest through kp_rd.h. */
static inline uint64_t get(struct kp__rd *r)
{
	if (r->pos < r->end && r->p[r->pos] < 0x80)
		return r->ok ? r->p[r->pos++] : 0;
	uint64_t start = r->pos, v = kp__rd_uleb(r);
	if (r->pos - start > 10)
		r->ok = false;
	return r->ok ? v : 0;
}

/* A string id (offset + 0: none) as a string; *ok false when out of range. */
static const char *str_at(const kp_symcache *c, uint64_t id, bool *ok)
{
	if (id == 0)
		return NULL;
	if (id >= c->strsize) {
		*ok = false;
		return NULL;
	}
	return c->strings + id;
}

struct cnode {
	uint32_t name, file, line, col, parent;
};

/* A block-local string index (+1, 0: none) as a string. */
static const char *local_str(const kp_symcache *c, const uint32_t *strs, uint64_t nstrs,
                             uint64_t i, bool *ok)
{
	if (i == 0)
		return NULL;
	if (i > nstrs) {
		*ok = false;
		return NULL;
	}
	return str_at(c, strs[i - 1], ok);
}

bool kp__symcache_lookup(const kp_symcache *c, uint64_t addr, kp_symframe *frames, size_t max,
                         size_t *n)
{
	*n = 0;
	if (addr < c->base || c->nblocks == 0)
		return !kp__mapguard_hit(c->guard);
	uint64_t rel = addr - c->base;
	size_t lo = 0, hi = c->nblocks; /* upper bound: first start > rel */
	if (c->width == 4 && rel > UINT32_MAX)
		lo = hi;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t s = c->width == 4 ? kp_le32(c->starts + 4 * mid) : kp_le64(c->starts + 8 * mid);
		if (s <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return !kp__mapguard_hit(c->guard);
	size_t bi = lo - 1;
	uint64_t at = c->width == 4 ? kp_le32(c->starts + 4 * bi) : kp_le64(c->starts + 8 * bi);
	uint32_t off = kp_le32(c->offs + 4 * bi);
	if (off >= c->datasize)
		return false;
	struct kp__rd r = {c->blocks, off, c->datasize, true, true};
	uint64_t nstrs = get(&r);
	if (!r.ok || nstrs > KP__SYMCACHE_STRS)
		return false;
	uint32_t strs[KP__SYMCACHE_STRS];
	for (uint64_t i = 0; i < nstrs; i++) {
		uint64_t g = add_zigzag(i ? strs[i - 1] : 0, get(&r));
		if (!r.ok || g == 0 || g >= c->strsize)
			return false;
		strs[i] = (uint32_t)g;
	}
	/* the nodes are decoded once the row is known, and only as far as its
	 * chain reaches (parents come first) */
	uint64_t nnodes = get(&r), nodes_len = get(&r), nodes_at = r.pos;
	kp__rd_skip(&r, nodes_len);
	if (!r.ok || nnodes > KP__SYMCACHE_NODES)
		return false;
	unsigned g = (unsigned)kp__rd_fixed(&r, 1);
	uint64_t nrows = get(&r);
	if (!r.ok || (g != 0 && g != 2) || nrows == 0 || nrows > KP__SYMCACHE_ROWS)
		return false;
	uint64_t name = 0, file = 0, line = 0, col = 0, node = 0;
	bool empty = true;
	for (uint64_t i = 0; i < nrows; i++) {
		uint64_t row = r.pos;
		unsigned head = (unsigned)kp__rd_fixed(&r, 1);
		if (!r.ok)
			return false;
		uint64_t d = head >> 5;
		if (!d)
			d = get(&r);
		if (!r.ok || (i == 0 && d != 0) || (i > 0 && d == 0) || d > (UINT64_MAX - at) >> g)
			return false;
		if (i > 0 && at + (d << g) > rel) {
			r.pos = row;
			break;
		}
		at += d << g;
		unsigned flags = head & R_ALL;
		empty = flags == 0;
		if (flags & R_NAME)
			name = get(&r);
		if (flags & R_FILE)
			file = get(&r);
		if (flags & R_LINE)
			line = add_zigzag(line, get(&r));
		if (flags & R_COL)
			col = add_zigzag(col, get(&r));
		if (flags & R_NODE)
			node = get(&r);
	}
	/* only the row found is used: its values are the ones checked */
	if (!r.ok || name > nstrs || file > nstrs || line > UINT32_MAX || col > UINT32_MAX ||
	    node > nnodes || kp__mapguard_hit(c->guard))
		return false;
	if (empty || max == 0)
		return true;
	struct cnode nodes[KP__SYMCACHE_NODES];
	struct kp__rd nr = {c->blocks, nodes_at, nodes_at + nodes_len, true, true};
	uint64_t nline = 0, ncol = 0;   /* the node before's */
	for (uint64_t i = 0; i < node; i++) {
		uint64_t v[5];
		for (int k = 0; k < 5; k++)
			v[k] = get(&nr);
		v[2] = nline = add_zigzag(nline, v[2]);
		v[3] = ncol = add_zigzag(ncol, v[3]);
		/* parent (+1) names an earlier node, so chains end */
		if (!nr.ok || v[0] > nstrs || v[1] > nstrs || v[2] > UINT32_MAX || v[3] > UINT32_MAX ||
		    v[4] > i)
			return false;
		nodes[i] = (struct cnode){(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2], (uint32_t)v[3],
		                          (uint32_t)v[4]};
	}
	if (kp__mapguard_hit(c->guard))
		return false;
	bool ok = true;
	frames[0] = (kp_symframe){local_str(c, strs, nstrs, name, &ok),
	                          local_str(c, strs, nstrs, file, &ok), (unsigned)line, (unsigned)col};
	size_t k = 1;
	for (uint64_t nd = node; nd && k < max; k++) {
		if (k >= KP_SYMCACHE_MAX_FRAMES)
			return false;
		const struct cnode *x = &nodes[nd - 1];
		frames[k] = (kp_symframe){local_str(c, strs, nstrs, x->name, &ok),
		                          local_str(c, strs, nstrs, x->file, &ok), x->line, x->col};
		nd = x->parent;   /* < nd: checked when read, so this ends */
	}
	if (!ok)
		return false;
	*n = k;
	return true;
}

/* ---- files ----------------------------------------------------------------- */

bool kp__symcache_path(char *buf, size_t size, const char *cache_dir, const char *uuid)
{
	int n = snprintf(buf, size, "%s/symcache/%s.kpsym", cache_dir, uuid);
	return n > 0 && (size_t)n < size;
}
