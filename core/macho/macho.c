/* macho.c: the bounds-checked Mach-O reader behind kp_macho.h: opening a
 * file (mapped or read, an IM4P unwrapped), its fat arcs, and the slices it
 * holds: each arc's Mach-O (parsed by macho_slice.c), then each fileset
 * entry and each prelinked kext (macho_prelink.c) as a slice of its own.
 *
 * Everything is validated once, in kp_macho_open*: fat arcs, Mach-O headers,
 * load command framing, segments and their sections, LC_SYMTAB with every
 * nlist string index, LC_FILESET_ENTRY names.  After that the accessors (here,
 * in macho_slice.c and in macho_symtab.c) only read tables built then, so
 * they need no further checks.  Any lie in
 * the file is KP_ERR_FORMAT with kp_error.byte set to the absolute file
 * offset of the offending field or structure.
 *
 * All fields are decoded byte by byte: Mach-O headers as little-endian (the
 * only byte order Apple has shipped since PowerPC; byte-swapped files are
 * rejected), fat headers as big-endian, as the format defines them.
 *
 * Known limits: no PowerPC or other big-endian Mach-O; no MH_OBJECT-specific
 * handling (works, but symbols are section-relative only as the file says);
 * no LC_DYSYMTAB, exports trie or chained fixups; fat archives nested in fat
 * slices are rejected. */
#include "kp_macho.h"
#include "im4p.h"
#include "kp_lex.h"
#include "kp_vec.h"
#include "macho_model.h"
#include "kp_mapguard.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- byte decoding (le32/le64 are in macho_model.h) ------------------------- */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | (uint64_t)be32(p + 4);
}


struct arc {
	uint64_t off, size;
	size_t index; /* position in the fat header, for error offsets */
};

static int arc_cmp(const void *a, const void *b)
{
	const struct arc *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

static void free_slices(kp_macho *m)
{
	for (size_t i = 0; i < m->nslices; i++)
		kp__macho_slice_free(&m->slices[i]);
	free(m->slices);
	m->slices = NULL;
	m->nslices = 0;
}

static kp_status parse_file(kp_macho *m, kp_error *err)
{
	const unsigned char *d = m->data;
	size_t len = m->len;
	if (len == 0)
		return kp_error_set(err, KP_ERR_FORMAT, 0, 0, "empty file");
	if (len < 8 || (be32(d) != FAT_MAGIC && be32(d) != FAT_MAGIC_64)) {
		m->slices = calloc(1, sizeof *m->slices);
		if (!m->slices)
			return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
		m->nslices = 1;
		return kp__macho_parse_slice(&m->slices[0], d, len, 0, 0, err);
	}

	bool f64 = be32(d) == FAT_MAGIC_64;
	uint32_t n = be32(d + 4);
	size_t ent = f64 ? 32 : 20;
	if (n == 0)
		return bad(err, 0, 4, "fat file with no architectures");
	if (n > (len - 8) / ent)
		return bad(err, 0, 4, "fat architecture count past the end of the file");
	uint64_t hdr_end = 8 + (uint64_t)n * ent;
	struct arc *arcs = calloc(n, sizeof *arcs);
	m->slices = calloc(n, sizeof *m->slices);
	if (!arcs || !m->slices) {
		free(arcs);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	m->fat = true;
	kp_status st = KP_OK;
	for (uint32_t i = 0; i < n && st == KP_OK; i++) {
		const unsigned char *a = d + 8 + (size_t)i * ent;
		arcs[i].index = i;
		arcs[i].off = f64 ? be64(a + 8) : be32(a + 8);
		arcs[i].size = f64 ? be64(a + 16) : be32(a + 12);
		if (!in_range(arcs[i].off, arcs[i].size, len))
			st = bad(err, 0, 8 + (uint64_t)i * ent, "fat architecture outside the file");
		else if (arcs[i].off < hdr_end)
			st = bad(err, 0, 8 + (uint64_t)i * ent, "fat architecture overlaps the fat header");
	}
	if (st == KP_OK) {
		struct arc *sorted = malloc((size_t)n * sizeof *sorted);
		if (!sorted) {
			st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
		} else {
			memcpy(sorted, arcs, (size_t)n * sizeof *sorted);
			qsort(sorted, n, sizeof *sorted, arc_cmp);
			for (uint32_t i = 1; i < n && st == KP_OK; i++)
				if (sorted[i - 1].off + sorted[i - 1].size > sorted[i].off)
					st = bad(err, 0, 8 + (uint64_t)sorted[i].index * ent,
					         "fat architectures overlap");
			free(sorted);
		}
	}
	for (uint32_t i = 0; i < n && st == KP_OK; i++) {
		m->nslices = i + 1;
		st = kp__macho_parse_slice(&m->slices[i], d + arcs[i].off, (size_t)arcs[i].size,
		                 (size_t)arcs[i].off, 0, err);
	}
	if (st == KP_OK)
		m->nslices = n;
	free(arcs);
	return st;
}

/* ---- open / close ------------------------------------------------------------ */

/* A kernelcache (MH_FILESET) holds the kernel and every kext as entries,
 * each a whole Mach-O at its fileoff: each becomes a slice of its own after
 * the file's, found by its UUID like a fat file's slices.  An entry whose
 * header or tables lie is left out and named in m->warning; the rest
 * stay.  Entries are not expanded recursively. */
static kp_status add_fileset_entries(kp_macho *m)
{
	size_t top = m->nslices, cap = m->nslices;
	for (size_t i = 0; i < top; i++) {
		if (m->slices[i].pub.filetype != MH_FILESET)
			continue;
		for (size_t k = 0; k < m->slices[i].nfileset; k++) {
			struct mslice e = {0};
			const struct mslice *fs = &m->slices[i];
			const struct mfileset *f = &fs->fileset[k];
			kp_error perr;
			kp_status st = f->fileoff >= fs->pub.size
			                       ? kp_error_set(&perr, KP_ERR_FORMAT, 0, -1, "its header is outside the file")
			                       : kp__macho_parse_slice(&e, fs->pub.data, fs->pub.size, fs->base, f->fileoff, &perr);
			if (st == KP_OK && e.pub.filetype == MH_FILESET)
				st = kp_error_set(&perr, KP_ERR_FORMAT, 0, (long)(fs->base + f->fileoff),
				                  "a fileset inside a fileset");
			if (st == KP_ERR_NOMEM) {
				kp__macho_slice_free(&e);
				return st;
			}
			if (st != KP_OK) {
				if (!m->warning[0])
					snprintf(m->warning, sizeof m->warning,
					         "fileset entry %.80s left out: %.120s (at byte %llu)", f->name, perr.msg,
					         (unsigned long long)(perr.byte >= 0 ? (uint64_t)perr.byte
					                                              : fs->base + f->fileoff));
				kp__macho_slice_free(&e);
				continue;
			}
			e.pub.fileset_id = f->name;
			if (!kp_vec_reserve((void **)&m->slices, &cap, m->nslices + 1, sizeof e)) {
				kp__macho_slice_free(&e);
				return KP_ERR_NOMEM;
			}
			m->slices[m->nslices++] = e;
		}
	}
	return KP_OK;
}

/* An IM4P-wrapped kernelcache: m then reads the unwrapped Mach-O (heap),
 * its file mapping released. */
static kp_status unwrap(kp_macho *m, kp_error *err)
{
	unsigned char *buf = NULL;
	size_t len = 0;
	kp_status st = kp__im4p_unwrap(m->data, m->len, &buf, &len, err);
	if (st != KP_OK)
		return st;
	if (m->kind == MAP_MMAP) {
		kp__mapguard_remove(m->guard);
		munmap((void *)m->data, m->len);
	} else if (m->kind == MAP_HEAP) {
		free((void *)m->data);
	}
	m->guard = -1;
	m->data = buf;
	m->len = len;
	m->kind = MAP_HEAP;
	return KP_OK;
}

static kp_status finish_open(kp_macho *m, kp_macho **out, kp_error *err)
{
	kp_status st = kp__im4p_sniff(m->data, m->len) ? unwrap(m, err) : KP_OK;
	if (st == KP_OK)
		st = parse_file(m, err);
	if (st == KP_OK && add_fileset_entries(m) != KP_OK)
		st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory for fileset entries");
	if (st == KP_OK && kp__macho_add_prelinked(m) != KP_OK)
		st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory for prelinked kexts");
	if (st != KP_OK) {
		kp_macho_close(&m);
		return st;
	}
	*out = m;
	return KP_OK;
}

kp_status kp_macho_open_mem(const void *data, size_t len, kp_macho **out, kp_error *err)
{
	if (!out || (!data && len))
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "kp_macho_open_mem: bad arguments");
	*out = NULL;
	kp_macho *m = calloc(1, sizeof *m);
	if (!m)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	m->data = data;
	m->len = len;
	m->kind = MAP_NONE;
	m->guard = -1;
	return finish_open(m, out, err);
}

static kp_status read_all(int fd, size_t len, unsigned char **buf, const char *path,
                          kp_error *err)
{
	unsigned char *b = malloc(len);
	if (!b)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory reading %s", path);
	size_t got = 0;
	while (got < len) {
		ssize_t r = read(fd, b + got, len - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = r < 0 ? errno : 0;
			free(b);
			return kp_error_set(err, KP_ERR_IO, 0, -1, "cannot read %s: %s", path,
			                    e ? strerror(e) : "file shrank while reading");
		}
		got += (size_t)r;
	}
	*buf = b;
	return KP_OK;
}

kp_status kp_macho_open(const char *path, kp_macho **out, kp_error *err)
{
	if (!path || !out)
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "kp_macho_open: bad arguments");
	*out = NULL;
	/* O_NONBLOCK: a FIFO named as a dSYM must not hang the open (it is
	 * refused as not a regular file below) */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return kp_error_set(err, KP_ERR_IO, 0, -1, "cannot open %s: %s", path, strerror(errno));
	struct stat sb;
	if (fstat(fd, &sb) != 0) {
		int e = errno;
		close(fd);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "cannot stat %s: %s", path, strerror(e));
	}
	if (!S_ISREG(sb.st_mode)) {
		close(fd);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "%s is not a regular file", path);
	}
	if (sb.st_size <= 0) {
		close(fd);
		return kp_error_set(err, KP_ERR_FORMAT, 0, 0, "empty file");
	}
	if ((uintmax_t)sb.st_size > SIZE_MAX) {
		close(fd);
		return kp_error_set(err, KP_ERR_LIMIT, 0, -1, "%s is too large to map", path);
	}
	size_t len = (size_t)sb.st_size;
	kp_macho *m = calloc(1, sizeof *m);
	if (!m) {
		close(fd);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	m->guard = -1;
	void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map != MAP_FAILED) {
		m->data = map;
		m->kind = MAP_MMAP;
		m->guard = kp__mapguard_add(map, len);   /* truncated in place: no SIGBUS */
	} else {
		unsigned char *buf = NULL;
		kp_status st = read_all(fd, len, &buf, path, err);
		if (st != KP_OK) {
			close(fd);
			free(m);
			return st;
		}
		m->data = buf;
		m->kind = MAP_HEAP;
	}
	close(fd);
	m->len = len;
	return finish_open(m, out, err);
}

void kp_macho_close(kp_macho **mp)
{
	if (!mp || !*mp)
		return;
	kp_macho *m = *mp;
	free_slices(m);
	if (m->kind == MAP_MMAP) {
		kp__mapguard_remove(m->guard);
		munmap((void *)m->data, m->len);
	}
	else if (m->kind == MAP_HEAP)
		free((void *)m->data);
	free(m);
	*mp = NULL;
}

/* ---- queries ------------------------------------------------------------------ */

size_t kp_macho_nslices(const kp_macho *m)
{
	return m ? m->nslices : 0;
}

const kp_macho_slice *kp_macho_slice_at(const kp_macho *m, size_t i)
{
	return m && i < m->nslices ? &m->slices[i].pub : NULL;
}

const kp_macho_slice *kp_macho_find_uuid(const kp_macho *m, const char *uuid)
{
	char want[37];
	if (!m || !uuid || !kp_uuid_canon(uuid, strlen(uuid), want))
		return NULL;
	for (size_t i = 0; i < m->nslices; i++) {
		const kp_macho_slice *s = &m->slices[i].pub;   /* s->uuid is canonical already */
		if (s->has_uuid && strcmp(want, s->uuid) == 0)
			return s;
	}
	return NULL;
}

const kp_macho_slice *kp_macho_find_arch(const kp_macho *m, const char *arch)
{
	if (!m)
		return NULL;
	if (!arch)   /* a thin file's slice (a kernelcache's entries follow it) */
		return !m->fat && m->nslices >= 1 ? &m->slices[0].pub : NULL;
	for (size_t i = 0; i < m->nslices; i++)
		if (strcmp(m->slices[i].pub.arch, arch) == 0)
			return &m->slices[i].pub;
	return NULL;
}

const kp_macho_slice *kp_macho_entry_at(const kp_macho *m, uint64_t addr)
{
	for (size_t i = 0; m && i < m->nslices; i++) {
		const struct mslice *s = &m->slices[i];
		if (!s->pub.fileset_id)
			continue;
		for (size_t j = 0; j < s->nsegs; j++) {
			const struct mseg *g = &s->segs[j];
			if (strcmp(g->segname, "__PAGEZERO") == 0 || strcmp(g->segname, "__LINKEDIT") == 0 ||
			    strncmp(g->segname, "__PRELINK_", 10) == 0)
				continue;
			if (addr >= g->vmaddr && addr - g->vmaddr < g->vmsize)
				return &s->pub;
		}
	}
	return NULL;
}

bool kp_macho_sniff(const void *head, size_t n)
{
	const unsigned char *d = head;
	if (n >= 4) {
		uint32_t le = le32(d), be = be32(d);
		if (le == MH_MAGIC || le == MH_MAGIC_64 || be == FAT_MAGIC || be == FAT_MAGIC_64)
			return true;
	}
	return kp__im4p_sniff(d, n);
}

const char *kp_macho_warning(const kp_macho *m)
{
	return m && m->warning[0] ? m->warning : NULL;
}

bool kp_macho_damaged(const kp_macho *m)
{
	return m && kp__mapguard_hit(m->guard);
}
