/* symcache_read.c: the symbol cache of symcache.h: validating, mapping
 * and answering from a cache file, and its checksum. */
#include "symcache_format.h"

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
	uint64_t base;
	unsigned width;
	uint32_t naddrs, nchains, nlinks, nframes, strsize;
	const unsigned char *addrs;
	const uint32_t *ids, *chains, *links, *frames;
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

static kp_status validate(kp_symcache *c, const kp_symcache_key *key)
{
	const unsigned char *h = c->data;
	size_t len = c->len;
	if (len < KP_SYMCACHE_HDR || memcmp(h + H_MAGIC, KP__SYMCACHE_MAGIC, 8) != 0 ||
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
	if (rd64(h + H_SUM) != kp__symcache_checksum(h, len))
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

/* ---- files ----------------------------------------------------------------- */

bool kp__symcache_path(char *buf, size_t size, const char *cache_dir, const char *uuid)
{
	int n = snprintf(buf, size, "%s/symcache/%s.kpsym", cache_dir, uuid);
	return n > 0 && (size_t)n < size;
}
