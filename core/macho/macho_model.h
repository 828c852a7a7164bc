/* macho_model.h: private to the Mach-O reader (core/macho), shared by its
 * files: macho.c (files, fat arcs, filesets) above macho_prelink.c
 * (prelinked kexts) above macho_slice.c (one Mach-O's load commands) and
 * macho_symtab.c (its symbol table).
 *
 * Ownership: macho.c and macho_slice.c build, validate and free everything below, except
 * each slice's sorted_syms, which macho_symtab.c builds on the slice's first
 * kp_macho_symbol() and kp__macho_slice_free frees with the slice. */
#ifndef KP_MACHO_MODEL_H
#define KP_MACHO_MODEL_H

#include "kp_macho.h"
#include "kp_bytes.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- format constants (from the Mach-O ABI, <mach-o/loader.h>, fat.h,
 * nlist.h) ---- */

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

#define NLIST_SIZE 12u
#define NLIST_SIZE_64 16u

/* ---- private model ------------------------------------------------------ */

struct msect {
	char segname[17], sectname[17]; /* 16 bytes in the file, not always NUL-terminated */
	uint64_t addr, size;
	const unsigned char *data;      /* NULL: zerofill, or not present in this file (dSYM) */
	uint32_t type;                  /* flags & SECTION_TYPE (S_SYMBOL_STUBS ...) */
	uint32_t reserved1, reserved2;  /* stubs: first indirect-table index, stub size */
};

struct mseg {
	char segname[17];
	uint64_t vmaddr, vmsize, fileoff, filesize; /* fileoff: from the slice's data */
};

struct mfileset {
	const char *name; /* into the mapping, NUL-terminated inside its command */
	uint64_t vmaddr, fileoff;
};

struct msym {
	uint64_t addr;
	uint32_t strx;
	uint8_t sect; /* 1-based section ordinal, as n_sect */
	uint64_t end; /* where its extent ends (macho_symtab.c); 0: its section's end */
	uint32_t idx;     /* its index in the symbol table */
};

struct mslice {
	kp_macho_slice pub; /* first: a kp_macho_slice * handed out is a struct mslice * */
	size_t base;        /* offset of the slice in the file, for error positions */
	struct msect *sects;
	size_t nsects;
	struct mfileset *fileset;
	size_t nfileset;
	struct mseg *segs;  /* every LC_SEGMENT(_64), in file order */
	size_t nsegs;
	char *own_id;       /* a prelinked kext's fileset_id (pub.fileset_id), malloc'd */
	/* LC_SYMTAB, already validated */
	bool has_symtab;
	const unsigned char *syms;
	uint32_t nsyms;
	const char *strtab;
	uint32_t strsize;
	/* LC_DYSYMTAB's indirect symbol table (4-byte symtab indexes), inside
	 * the file; NULL when absent or out of bounds (then stubs go unnamed) */
	const unsigned char *indirect;
	uint32_t nindirect;
	/* LC_FUNCTION_STARTS (ULEB128 deltas), inside the file, or NULL */
	const unsigned char *fstarts;
	uint32_t fstarts_size;
	/* decoded by the first kp_macho_function_start() on this slice */
	bool funcs_done;
	uint64_t *funcs;
	size_t nfuncs;
	/* built by the first kp_macho_symbol() on this slice */
	bool sorted;
	struct msym *sorted_syms;
	size_t nsorted;
	size_t hint; /* the last kp_macho_symbol search's answer */
	unsigned scans; /* lookups answered by reading the table unsorted */
};

enum mapkind { MAP_NONE, MAP_MMAP, MAP_HEAP };

struct kp_macho {
	const unsigned char *data;
	size_t len;
	enum mapkind kind;
	int guard;          /* mapguard.h slot of a MAP_MMAP mapping, else -1 */
	bool fat;
	struct mslice *slices;   /* the file's, then each fileset entry's */
	size_t nslices;
	char warning[256];       /* a fileset entry or prelinked kext left out, or "" */
};

/* macho_slice.c: parses the Mach-O header at d + hdr into s (zeroed by the
 * caller): every file offset in its load commands counts from d, and must
 * lie inside d[0..size); base is d's offset in the file (error positions).
 * On failure s may hold arrays to free with kp__macho_slice_free. */
kp_status kp__macho_parse_slice(struct mslice *s, const unsigned char *d, size_t size, size_t base,
                                uint64_t hdr, kp_error *err);
void kp__macho_slice_free(struct mslice *s);

/* macho_prelink.c: each kext of a prelinked kernelcache (an MH_EXECUTE
 * kernel with __PRELINK_TEXT and __PRELINK_INFO) becomes a slice after
 * m's; one left out is named in m->warning.  KP_ERR_NOMEM only. */
kp_status kp__macho_add_prelinked(kp_macho *m);

/* True when [off, off+len) lies inside a buffer of size total (no overflow). */
static inline bool in_range(uint64_t off, uint64_t len, uint64_t total)
{
	return off <= total && len <= total - off;
}

static inline long pos(size_t base, uint64_t off)
{
	uint64_t p = (uint64_t)base + off;
	return p > (uint64_t)LONG_MAX ? LONG_MAX : (long)p;
}

static inline kp_status bad(kp_error *err, size_t base, uint64_t off, const char *what)
{
	return kp_error_set(err, KP_ERR_FORMAT, 0, pos(base, off), "%s", what);
}

#endif
