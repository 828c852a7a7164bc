/* kp_macho.h: a bounds-checked reader for Mach-O files (thin, fat, fat64).
 *
 * Ownership: a kp_macho owns its mapping of the file and every slice,
 * section and symbol it hands out; all of them stay valid until
 * kp_macho_close(), which clears the caller's pointer. */
#ifndef KP_MACHO_H
#define KP_MACHO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_error.h"

typedef struct kp_macho kp_macho;

#define KP_MH_DSYM 0xau   /* kp_macho_slice.filetype of a dSYM's DWARF file */

typedef struct kp_macho_slice {
	uint32_t cputype, cpusubtype;
	const char *arch;          /* "arm64", "arm64e", "x86_64", "i386", or "unknown" */
	uint32_t filetype;         /* MH_EXECUTE, MH_DSYM, MH_FILESET, ... */
	bool is64;
	bool has_uuid;
	char uuid[37];             /* canonical upper case with dashes */
	bool has_text, has_text_exec;
	uint64_t text_vmaddr;      /* __TEXT vmaddr */
	uint64_t text_exec_vmaddr; /* __TEXT_EXEC vmaddr */
	const unsigned char *data; /* the slice's bytes inside the file */
	size_t size;
	const char *fileset_id;    /* a kernelcache entry's id (com.apple.kernel, a
	                              bundle id; a prelinked cache's kernel and
	                              kexts too), NULL for any other slice */
} kp_macho_slice;

/* Maps path read-only (opened O_NONBLOCK, fstat-checked regular).  A file that is not Mach-O, or whose headers, load
 * commands, fat arcs or tables point outside the file, is KP_ERR_FORMAT.
 * A kernelcache (MH_FILESET) is its own slice followed by one slice per
 * fileset entry (kernel, kexts: slice.fileset_id set), each found by its
 * UUID as a fat file's slices are; an entry that lies is left out and
 * named by kp_macho_warning.  The older prelinked kernelcache (an MH_EXECUTE
 * kernel, each kext whole in __PRELINK_TEXT, listed by __PRELINK_INFO's
 * XML) is the kernel's slice followed by one per kext the same way
 * (macho_prelink.c).  A kernelcache in an IM4P container (Preboot's
 * form: LZSS or LZFSE inside) is unwrapped into memory first. */
kp_status kp_macho_open(const char *path, kp_macho **out, kp_error *err);

/* The same over bytes the caller keeps alive until close (fuzzing, tests). */
kp_status kp_macho_open_mem(const void *data, size_t len, kp_macho **out, kp_error *err);

void kp_macho_close(kp_macho **m);

/* true once part of m's file vanished while mapped (truncated in place):
 * the pages read as zeros instead of raising SIGBUS (mapguard.h), so what
 * was read from m since may be wrong; callers turn this into an error. */
bool kp_macho_damaged(const kp_macho *m);

/* Whether a file starting with head[0..n) may be one kp_macho_open reads:
 * Mach-O, fat, or an IM4P-wrapped kernelcache (16 bytes are enough). */
bool kp_macho_sniff(const void *head, size_t n);

/* Why a part of the file was left out (a fileset entry, a prelinked kext or
 * the prelink info), or NULL: the first such reason. */
const char *kp_macho_warning(const kp_macho *m);

size_t kp_macho_nslices(const kp_macho *m);
const kp_macho_slice *kp_macho_slice_at(const kp_macho *m, size_t i);

/* The slice with that UUID (any case, dashes optional), or NULL. */
const kp_macho_slice *kp_macho_find_uuid(const kp_macho *m, const char *uuid);
/* The slice for arch ("arm64", "x86_64", ...), or NULL; NULL arch: the only
 * slice of a thin file, else NULL. */
const kp_macho_slice *kp_macho_find_arch(const kp_macho *m, const char *arch);

/* The kernelcache entry one of whose segments holds addr (its own vmaddr
 * space): a fileset entry, or a prelinked cache's kernel or kext; the first
 * in the cache's order when several do.  __PAGEZERO, __LINKEDIT and the
 * prelinked kernel's __PRELINK_* segments (its kexts' bytes and their
 * list) hold no code of the entry's own and are passed over.  NULL when m
 * is no kernelcache or no entry holds addr. */
const kp_macho_slice *kp_macho_entry_at(const kp_macho *m, uint64_t addr);

/* seg() of panic-formats.md section 3: __TEXT_EXEC vmaddr, else __TEXT. */
uint64_t kp_macho_seg(const kp_macho_slice *s);

/* A section by segment and section name (segname NULL: any segment); false
 * when absent.  *data points into the mapping (NULL for zerofill). */
bool kp_macho_section(const kp_macho_slice *s, const char *segname, const char *sectname,
                      const unsigned char **data, uint64_t *size, uint64_t *addr);

/* The section holding addr (the first non-empty one): false when none
 * does.  *data is NULL when the file holds no bytes for it (zerofill, or
 * a dSYM's copy of the binary's headers); names are owned by m. */
bool kp_macho_section_at(const kp_macho_slice *s, uint64_t addr, const char **segname,
                         const char **sectname, const unsigned char **data, uint64_t *size,
                         uint64_t *start);

/* Nearest preceding defined symbol in the slice's LC_SYMTAB (names as the
 * symtab holds them, leading '_' included), as llvm-symbolizer picks it: a
 * symbol reaches up to the next symbol or the end of its own section (from
 * before the section's start too: _mh_execute_header), and of aliases the
 * one with the longest reach, then the last in the table.  False when no
 * symbol reaches addr.  *name is owned by m. */
bool kp_macho_symbol(kp_macho *m, const kp_macho_slice *s, uint64_t addr,
                     const char **name, uint64_t *offset);

/* The same with the caller's search hint (0 at first; it starts the next
 * search where this one ended) instead of the slice's: once a call on the
 * slice has sorted its symbols (kp_macho_symbol_boundaries; the third
 * kp_macho_symbol, the first two read the table unsorted), threads may
 * call this on one kp_macho at once, each with a hint of its own. */
bool kp_macho_symbol_near(kp_macho *m, const kp_macho_slice *s, uint64_t addr, size_t *hint,
                          const char **name, uint64_t *offset);

/* The same, and [*lo, *hi): addresses around addr that get the same answer
 * (the symbol's own address or its section's start, up to the next symbol's
 * address or the end of its reach), so that a caller asking addresses in
 * order asks again only past *hi.  For the symbol libraries (kp_dwarf). */
bool kp__macho_symbol_span(kp_macho *m, const kp_macho_slice *s, uint64_t addr, size_t *hint,
                           const char **name, uint64_t *offset, uint64_t *lo, uint64_t *hi);

/* The start of the function holding addr from LC_FUNCTION_STARTS (the
 * greatest start at or below addr, inside the same section as addr): false
 * when the slice has no such table or no start precedes addr there.  Same
 * threading rule as kp_macho_symbol (decoded on first use). */
bool kp_macho_function_start(kp_macho *m, const kp_macho_slice *s, uint64_t addr,
                             uint64_t *start);

/* The symbol a symbol stub at addr jumps to (S_SYMBOL_STUBS sections named
 * through LC_DYSYMTAB's indirect table: `bl 0x574` -> "_panic"), as the
 * symtab holds it; false when addr is in no stub or the stub names no
 * symbol.  *name is owned by m. */
bool kp_macho_stub_symbol(const kp_macho_slice *s, uint64_t addr, const char **name);

/* Calls fn with every address where kp_macho_symbol's answer may change:
 * each section's start and end and each defined symbol's address, in no
 * particular order, repeats possible (for building a symbol cache).  Same
 * threading rule as kp_macho_symbol.  false: fn returned false, or out of
 * memory. */
bool kp_macho_symbol_boundaries(kp_macho *m, const kp_macho_slice *s,
                                bool (*fn)(void *ctx, uint64_t addr), void *ctx);

/* MH_FILESET entries (LC_FILESET_ENTRY): name and vmaddr of each. */
size_t kp_macho_nfileset(const kp_macho_slice *s);
bool kp_macho_fileset_entry(const kp_macho_slice *s, size_t i, const char **name,
                            uint64_t *vmaddr, uint64_t *fileoff);

#endif
