/* macho.c: the bounds-checked Mach-O reader behind kp_macho.h.
 *
 * Everything is validated once, in kp_macho_open*: fat arcs, Mach-O headers,
 * load command framing, segments and their sections, LC_SYMTAB with every
 * nlist string index, LC_FILESET_ENTRY names.  After that the accessors (here
 * and in macho_symtab.c) only read tables this file built, so they need no
 * further checks.  Any lie in
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
#include "macho_priv.h"
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

/* ---- format constants (from the Mach-O ABI, <mach-o/loader.h>, fat.h) -- */

#define FAT_MAGIC 0xcafebabeu     /* big-endian fat_header, 20-byte fat_arch */
#define FAT_MAGIC_64 0xcafebabfu  /* big-endian fat_header, 32-byte fat_arch_64 */
#define MH_MAGIC 0xfeedfaceu
#define MH_MAGIC_64 0xfeedfacfu
#define MH_CIGAM 0xcefaedfeu      /* MH_MAGIC read in the wrong byte order */
#define MH_CIGAM_64 0xcffaedfeu

#define CPU_ARCH_ABI64 0x01000000u
#define CPU_ARCH_ABI64_32 0x02000000u
#define CPU_TYPE_X86 7u
#define CPU_TYPE_ARM 12u
#define CPU_SUBTYPE_MASK 0xff000000u /* capability bits (arm64e PAC ABI version) */
#define CPU_SUBTYPE_ARM64E 2u
#define CPU_SUBTYPE_X86_64_H 8u

#define LC_SEGMENT 0x1u
#define LC_SYMTAB 0x2u
#define LC_SEGMENT_64 0x19u
#define LC_UUID 0x1bu
#define LC_DYSYMTAB 0xbu
#define LC_FILESET_ENTRY 0x80000035u /* LC_REQ_DYLD | 0x35 */
#define LC_FUNCTION_STARTS 0x26u
#define MH_FILESET 0xcu

#define MH_HEADER_SIZE 28u
#define MH_HEADER_SIZE_64 32u
#define SEGMENT_CMD_SIZE 56u
#define SEGMENT_CMD_SIZE_64 72u
#define SECTION_SIZE 68u
#define SECTION_SIZE_64 80u

#define SECTION_TYPE 0xffu
#define S_ZEROFILL 0x1u
#define S_GB_ZEROFILL 0xcu
#define S_THREAD_LOCAL_ZEROFILL 0x12u

/* ---- byte decoding (le32/le64 are in macho_priv.h) ------------------------- */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | (uint64_t)be32(p + 4);
}

/* True when [off, off+len) lies inside a buffer of size total (no overflow). */
static bool in_range(uint64_t off, uint64_t len, uint64_t total)
{
	return off <= total && len <= total - off;
}

static long pos(size_t base, uint64_t off)
{
	uint64_t p = (uint64_t)base + off;
	return p > (uint64_t)LONG_MAX ? LONG_MAX : (long)p;
}

static kp_status bad(kp_error *err, size_t base, uint64_t off, const char *what)
{
	return kp_error_set(err, KP_ERR_FORMAT, 0, pos(base, off), "%s", what);
}

static const char *arch_name(uint32_t cputype, uint32_t cpusubtype)
{
	switch (cputype) {
	case CPU_TYPE_ARM | CPU_ARCH_ABI64:
		return (cpusubtype & ~CPU_SUBTYPE_MASK) == CPU_SUBTYPE_ARM64E ? "arm64e" : "arm64";
	case CPU_TYPE_ARM | CPU_ARCH_ABI64_32:
		return "arm64_32";
	case CPU_TYPE_X86 | CPU_ARCH_ABI64:
		return (cpusubtype & ~CPU_SUBTYPE_MASK) == CPU_SUBTYPE_X86_64_H ? "x86_64h" : "x86_64";
	case CPU_TYPE_X86:
		return "i386";
	case CPU_TYPE_ARM:
		/* the names lipo, llvm-symbolizer --default-arch and Xcode use */
		switch (cpusubtype & ~CPU_SUBTYPE_MASK) {
		case 5: return "armv4t";
		case 6: return "armv6";
		case 7: return "armv5";
		case 8: return "xscale";
		case 9: return "armv7";
		case 10: return "armv7f";
		case 11: return "armv7s";
		case 12: return "armv7k";
		case 13: return "armv8";
		case 14: return "armv6m";
		case 15: return "armv7m";
		case 16: return "armv7em";
		default: return "arm";
		}
	default:
		return "unknown";
	}
}

static void copy_name16(char dst[17], const unsigned char *src)
{
	memcpy(dst, src, 16);
	dst[16] = '\0';
}

/* ---- load commands -------------------------------------------------------- */

struct parse {
	struct mslice *s;
	const unsigned char *d; /* slice bytes */
	size_t size;            /* slice size */
	size_t base;            /* slice offset in the file */
	size_t sect_cap, fs_cap, seg_cap;
	kp_error *err;
};

static kp_status parse_segment(struct parse *p, uint64_t at, uint32_t cmdsize, bool is64)
{
	const unsigned char *c = p->d + at;
	uint32_t hdr = is64 ? SEGMENT_CMD_SIZE_64 : SEGMENT_CMD_SIZE;
	uint32_t secsize = is64 ? SECTION_SIZE_64 : SECTION_SIZE;
	if (cmdsize < hdr)
		return bad(p->err, p->base, at, "segment command shorter than its header");
	char segname[17];
	copy_name16(segname, c + 8);
	uint64_t vmaddr, fileoff, filesize;
	uint32_t nsects;
	if (is64) {
		vmaddr = le64(c + 24);
		fileoff = le64(c + 40);
		filesize = le64(c + 48);
		nsects = le32(c + 64);
	} else {
		vmaddr = le32(c + 24);
		fileoff = le32(c + 32);
		filesize = le32(c + 36);
		nsects = le32(c + 48);
	}
	if (!in_range(fileoff, filesize, p->size))
		return bad(p->err, p->base, at, "segment file range outside the file");
	if (nsects > (cmdsize - hdr) / secsize)
		return bad(p->err, p->base, at, "segment section count overflows its command");

	struct mseg *sg = kp_vec_push((void **)&p->s->segs, &p->s->nsegs, &p->seg_cap, sizeof *sg);
	if (!sg)
		return kp_error_set(p->err, KP_ERR_NOMEM, 0, -1, "out of memory for segments");
	memcpy(sg->segname, segname, sizeof sg->segname);
	sg->vmaddr = vmaddr;
	sg->vmsize = is64 ? le64(c + 32) : le32(c + 28);
	sg->fileoff = fileoff;
	sg->filesize = filesize;

	if (strcmp(segname, "__TEXT") == 0 && !p->s->pub.has_text) {
		p->s->pub.has_text = true;
		p->s->pub.text_vmaddr = vmaddr;
	} else if (strcmp(segname, "__TEXT_EXEC") == 0 && !p->s->pub.has_text_exec) {
		p->s->pub.has_text_exec = true;
		p->s->pub.text_exec_vmaddr = vmaddr;
	}

	for (uint32_t i = 0; i < nsects; i++) {
		uint64_t so = at + hdr + (uint64_t)i * secsize;
		const unsigned char *q = p->d + so;
		struct msect m;
		uint32_t offset, flags;
		copy_name16(m.sectname, q);
		copy_name16(m.segname, q + 16);
		if (is64) {
			m.addr = le64(q + 32);
			m.size = le64(q + 40);
			offset = le32(q + 48);
			flags = le32(q + 64);
		} else {
			m.addr = le32(q + 32);
			m.size = le32(q + 36);
			offset = le32(q + 40);
			flags = le32(q + 56);
		}
		uint32_t type = flags & SECTION_TYPE;
		m.type = type;
		m.reserved1 = le32(q + (is64 ? 68 : 60));
		m.reserved2 = le32(q + (is64 ? 72 : 64));
		m.data = NULL;
		/* A dSYM keeps the binary's segments with filesize 0 and their
		 * sections' offsets 0: the headers are there, the bytes are not. */
		if (type != S_ZEROFILL && type != S_GB_ZEROFILL && type != S_THREAD_LOCAL_ZEROFILL &&
		    filesize != 0 && m.size != 0) {
			if (!in_range(offset, m.size, p->size))
				return bad(p->err, p->base, so, "section data outside the file");
			m.data = p->d + offset;
		}
		if (!kp_vec_reserve((void **)&p->s->sects, &p->sect_cap, p->s->nsects + 1, sizeof m))
			return kp_error_set(p->err, KP_ERR_NOMEM, 0, -1, "out of memory for sections");
		p->s->sects[p->s->nsects++] = m;
	}
	return KP_OK;
}

static kp_status parse_symtab(struct parse *p, uint64_t at, uint32_t cmdsize)
{
	const unsigned char *c = p->d + at;
	if (cmdsize < 24)
		return bad(p->err, p->base, at, "LC_SYMTAB shorter than 24 bytes");
	if (p->s->has_symtab)
		return KP_OK; /* the first one wins */
	uint32_t symoff = le32(c + 8), nsyms = le32(c + 12);
	uint32_t stroff = le32(c + 16), strsize = le32(c + 20);
	uint32_t ent = p->s->pub.is64 ? NLIST_SIZE_64 : NLIST_SIZE;
	if (!in_range(symoff, (uint64_t)nsyms * ent, p->size))
		return bad(p->err, p->base, at + 8, "symbol table outside the file");
	if (!in_range(stroff, strsize, p->size))
		return bad(p->err, p->base, at + 16, "string table outside the file");
	const char *str = (const char *)p->d + stroff;
	/* Any index at or before the last NUL names a terminated string. */
	uint64_t lastnul = UINT64_MAX;
	for (uint32_t i = strsize; i > 0; i--)
		if (str[i - 1] == '\0') {
			lastnul = i - 1;
			break;
		}
	for (uint32_t i = 0; i < nsyms; i++) {
		uint64_t no = (uint64_t)symoff + (uint64_t)i * ent;
		uint32_t strx = le32(p->d + no);
		if (strx >= strsize)
			return bad(p->err, p->base, no, "symbol name index outside the string table");
		if (lastnul == UINT64_MAX || strx > lastnul)
			return bad(p->err, p->base, (uint64_t)stroff + strx, "unterminated symbol name");
	}
	p->s->has_symtab = true;
	p->s->syms = p->d + symoff;
	p->s->nsyms = nsyms;
	p->s->strtab = str;
	p->s->strsize = strsize;
	return KP_OK;
}

static kp_status parse_fileset_entry(struct parse *p, uint64_t at, uint32_t cmdsize)
{
	const unsigned char *c = p->d + at;
	if (cmdsize < 32)
		return bad(p->err, p->base, at, "LC_FILESET_ENTRY shorter than 32 bytes");
	struct mfileset f;
	f.vmaddr = le64(c + 8);
	f.fileoff = le64(c + 16);
	uint32_t nameoff = le32(c + 24); /* lc_str: offset from the command's start */
	/* an entry outside the file is left out by add_fileset_entries */
	if (nameoff < 32 || nameoff >= cmdsize)
		return bad(p->err, p->base, at + 24, "fileset entry name outside its command");
	if (!memchr(c + nameoff, '\0', cmdsize - nameoff))
		return bad(p->err, p->base, at + nameoff, "unterminated fileset entry name");
	f.name = (const char *)c + nameoff;
	if (!kp_vec_reserve((void **)&p->s->fileset, &p->fs_cap, p->s->nfileset + 1, sizeof f))
		return kp_error_set(p->err, KP_ERR_NOMEM, 0, -1, "out of memory for fileset entries");
	p->s->fileset[p->s->nfileset++] = f;
	return KP_OK;
}

/* The Mach-O header at d + hdr (0, or a fileset entry's fileoff: an
 * entry's load commands give file offsets from d, the fileset's start). */
kp_status kp__macho_parse_slice(struct mslice *s, const unsigned char *d, size_t size, size_t base,
                                uint64_t hdr, kp_error *err)
{
	if (hdr > size || size - hdr < 4)
		return bad(err, base, hdr, "too short for a Mach-O header");
	const unsigned char *h = d + hdr;
	uint32_t magic = le32(h);
	if (magic == MH_CIGAM || magic == MH_CIGAM_64)
		return bad(err, base, hdr, "big-endian Mach-O is not supported");
	if (magic != MH_MAGIC && magic != MH_MAGIC_64)
		return bad(err, base, hdr, "not a Mach-O file (bad magic)");
	bool is64 = magic == MH_MAGIC_64;
	uint32_t hsize = is64 ? MH_HEADER_SIZE_64 : MH_HEADER_SIZE;
	if (size - hdr < hsize)
		return bad(err, base, hdr, "truncated Mach-O header");

	s->pub.cputype = le32(h + 4);
	s->pub.cpusubtype = le32(h + 8);
	s->pub.arch = arch_name(s->pub.cputype, s->pub.cpusubtype);
	s->pub.filetype = le32(h + 12);
	s->pub.is64 = is64;
	s->pub.data = d;
	s->pub.size = size;
	s->base = base;
	uint32_t ncmds = le32(h + 16), sizeofcmds = le32(h + 20);
	if (!in_range(hdr + hsize, sizeofcmds, size))
		return bad(err, base, hdr + 20, "load commands extend past the end of the file");
	if (ncmds > sizeofcmds / 8)
		return bad(err, base, hdr + 16, "more load commands than sizeofcmds can hold");

	struct parse p = {.s = s, .d = d, .size = size, .base = base, .err = err};
	uint64_t at = hdr + hsize, end = hdr + hsize + (uint64_t)sizeofcmds;
	for (uint32_t i = 0; i < ncmds; i++) {
		if (end - at < 8)
			return bad(err, base, at, "load command past sizeofcmds");
		uint32_t cmd = le32(d + at), cmdsize = le32(d + at + 4);
		if (cmdsize < 8)
			return bad(err, base, at + 4, "load command size smaller than 8");
		if (cmdsize % 4)
			return bad(err, base, at + 4, "load command size not a multiple of 4");
		if (cmdsize > end - at)
			return bad(err, base, at + 4, "load command extends past sizeofcmds");
		kp_status st = KP_OK;
		switch (cmd) {
		case LC_SEGMENT:
		case LC_SEGMENT_64:
			st = parse_segment(&p, at, cmdsize, cmd == LC_SEGMENT_64);
			break;
		case LC_SYMTAB:
			st = parse_symtab(&p, at, cmdsize);
			break;
		case LC_DYSYMTAB:
			/* only the indirect symbol table (stub names); a table out of
			 * bounds is ignored, not an error: nothing else needs it */
			if (cmdsize >= 80 && !s->indirect) {
				uint32_t off = le32(d + at + 56), n = le32(d + at + 60);
				if (n && in_range(off, (uint64_t)n * 4, p.size)) {
					s->indirect = p.d + off;
					s->nindirect = n;
				}
			}
			break;
		case LC_UUID:
			if (cmdsize < 24)
				return bad(err, base, at, "LC_UUID shorter than 24 bytes");
			if (!s->pub.has_uuid) {
				static const char hex[] = "0123456789ABCDEF";
				char *o = s->pub.uuid;
				for (int k = 0; k < 16; k++) {
					unsigned b = d[at + 8 + (uint64_t)k];
					if (k == 4 || k == 6 || k == 8 || k == 10)
						*o++ = '-';
					*o++ = hex[b >> 4];
					*o++ = hex[b & 15];
				}
				*o = '\0';
				s->pub.has_uuid = true;
			}
			break;
		case LC_FILESET_ENTRY:
			st = parse_fileset_entry(&p, at, cmdsize);
			break;
		case LC_FUNCTION_STARTS:
			/* ULEB128 deltas from __TEXT (macho_symtab.c decodes them); a
			 * table out of bounds is ignored: only unnamed functions need it */
			if (cmdsize >= 16 && !s->fstarts) {
				uint32_t off = le32(d + at + 8), n = le32(d + at + 12);
				if (n && in_range(off, n, p.size)) {
					s->fstarts = p.d + off;
					s->fstarts_size = n;
				}
			}
			break;
		default:
			break;
		}
		if (st != KP_OK)
			return st;
		at += cmdsize;
	}
	return KP_OK;
}

/* ---- fat ------------------------------------------------------------------- */

struct arc {
	uint64_t off, size;
	size_t index; /* position in the fat header, for error offsets */
};

static int arc_cmp(const void *a, const void *b)
{
	const struct arc *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

void kp__macho_slice_free(struct mslice *s)
{
	free(s->sects);
	free(s->fileset);
	free(s->segs);
	free(s->own_id);
	free(s->sorted_syms);
	free(s->funcs);
	memset(s, 0, sizeof *s);
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

uint64_t kp_macho_seg(const kp_macho_slice *s)
{
	if (!s)
		return 0;
	return s->has_text_exec ? s->text_exec_vmaddr : s->has_text ? s->text_vmaddr : 0;
}

bool kp_macho_section(const kp_macho_slice *s, const char *segname, const char *sectname,
                      const unsigned char **data, uint64_t *size, uint64_t *addr)
{
	if (!s || !sectname)
		return false;
	const struct mslice *ms = (const struct mslice *)s;
	for (size_t i = 0; i < ms->nsects; i++) {
		const struct msect *x = &ms->sects[i];
		if (strcmp(x->sectname, sectname) != 0 || (segname && strcmp(x->segname, segname) != 0))
			continue;
		if (data)
			*data = x->data;
		if (size)
			*size = x->size;
		if (addr)
			*addr = x->addr;
		return true;
	}
	return false;
}

bool kp_macho_section_at(const kp_macho_slice *s, uint64_t addr, const char **segname,
                         const char **sectname, const unsigned char **data, uint64_t *size,
                         uint64_t *start)
{
	if (!s)
		return false;
	const struct mslice *ms = (const struct mslice *)s;
	for (size_t i = 0; i < ms->nsects; i++) {
		const struct msect *x = &ms->sects[i];
		if (x->size == 0 || addr < x->addr || addr - x->addr >= x->size)
			continue;
		*segname = x->segname;
		*sectname = x->sectname;
		*data = x->data;
		*size = x->size;
		*start = x->addr;
		return true;
	}
	return false;
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
