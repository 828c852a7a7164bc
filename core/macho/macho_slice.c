/* macho_slice.c: one Mach-O inside a file (a thin file, a fat file's arc,
 * a fileset entry or a prelinked kext, macho.c and macho_prelink.c): its
 * header and load commands parsed and validated once (segments and their
 * sections, LC_SYMTAB with every nlist string index, LC_DYSYMTAB's indirect
 * table, LC_FUNCTION_STARTS, LC_FILESET_ENTRY names), and the queries on a
 * slice's segments and sections (kp_macho.h).  Any lie is KP_ERR_FORMAT with
 * kp_error.byte the absolute file offset of the offending field. */
#include "kp_macho.h"
#include "macho_model.h"
#include "kp_vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- queries on a slice ---------------------------------------------------- */

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
