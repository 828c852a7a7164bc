/* symcache.h: kpsymcache's public header (reader: symcache_read.c, builder:
 * symcache_build.c): a compact per-UUID symbol cache ("symcache"), shaped
 * like LLVM's GSYM: a sorted table of functions, per function an inline
 * tree and a delta-encoded line table, one deduplicated string table; and,
 * beyond GSYM, columns and the exact names llvm-symbolizer prints (the
 * symbol-table name of the outermost frame included), so a later launch
 * answers exactly as kp_dwarf_lookup would without touching DWARF.
 *
 * File (<cache dir>/symcache/<UUID>.kpsym), little endian, every section
 * 8-byte aligned:
 *   header   KP_SYMCACHE_HDR bytes: magic "KPSYMC\r\n", version, header size,
 *            UUID, arch, source DWARF file size and mtime (ns), file size,
 *            checksum (of the whole file, that field read as 0), base address,
 *            address width (4 or 8), counts, the source path (a string
 *            offset), section offsets
 *   starts   nblocks block start addresses, minus base, ascending (u32 or u64)
 *   offs     nblocks u32 offsets of each block in data
 *   data     the blocks (below), datasize bytes
 *   strings  strsize bytes of NUL-terminated strings (the last byte is NUL)
 * A block is one function (a run of at most KP__SYMCACHE_ROWS rows whose
 * outermost frame is the same function), all ULEB128:
 *   nstrs, strs: the block's strings (offsets into strings), each a zigzag
 *            delta from the one before (the first from 0); "name+1" and
 *            "file+1" below index them
 *   nnodes, their size in bytes (a lookup skips them, then decodes only
 *            the chain of the row it found),
 *            nodes: {name+1, file+1, line, column, parent+1}: the outer frames
 *            (callers of an inlined call, with the call site), parent < self;
 *            line and column zigzag deltas from the node before's (0, 0)
 *   granule (one byte: address deltas are in units of 1 << granule),
 *   nrows, rows: {address delta, flags, then what flags say changed:
 *            innermost name+1, file+1, line and column (zigzag deltas: a
 *            column mostly moves a little), node+1}
 *            (name+1 and file+1 index strs, 0 for none; a row with no
 *            flags means "no answer" from its address on)
 * Opening checks every count and offset against the file and the checksum;
 * decoding checks every byte read, index and depth again, so a file whose
 * checksum was forged still cannot make a lookup read out of bounds.
 *
 * Ownership: a kp_symcache owns its mapping (or buffer); the strings a lookup
 * returns point into it and stay valid until kp__symcache_close(). */
#ifndef KP_SYMCACHE_H
#define KP_SYMCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_dwarf.h"
#include "kp_error.h"
#include "kp_macho.h"

/* The version a cache is written with and must have to be read: format 4
 * delta-encodes columns, the nodes' lines and columns and a block's string
 * offsets (3: absolute; 2: names as the C++ runtime spells them, not LLVM's
 * demangler); one written while libc++abi could not be loaded holds raw
 * names and has the
 * KP_SYMCACHE_RAW bit, so that a cache answers only where DWARF would give
 * the same names (the other kind is stale and rebuilt). */
#define KP_SYMCACHE_FORMAT 4u
#define KP_SYMCACHE_RAW 0x100u
uint32_t kp__symcache_version(void);
#define KP_SYMCACHE_VERSION (kp__symcache_version())
#define KP_SYMCACHE_HDR 192
#define KP_SYMCACHE_MAX_FRAMES 32 /* chains are recorded at most this deep */

typedef struct kp_symcache kp_symcache;

/* What a cache file must match to be used. */
typedef struct kp_symcache_key {
	const char *uuid;  /* canonical, as kp_macho_slice.uuid */
	const char *arch;
	uint64_t dwarf_size;
	int64_t dwarf_mtime_ns;
} kp_symcache_key;

/* Reads and validates path against key.  The file is opened
 * O_NONBLOCK|O_NOFOLLOW and must be a regular file (a FIFO or symlink planted
 * under its name is KP_ERR_FORMAT, never waited on); it is mapped under the
 * SIGBUS guard of mapguard.h.  KP_ERR_NOTFOUND: no file; KP_ERR_FORMAT:
 * corrupt, truncated, stale or for another UUID. */
kp_status kp__symcache_open(const char *path, const kp_symcache_key *key, kp_symcache **out);

/* The same over a malloc'd image (from kp__symcache_build), which the cache
 * takes over (freed on failure too). */
kp_status kp__symcache_open_mem(void *image, size_t len, const kp_symcache_key *key,
                                kp_symcache **out);

/* Frames for addr, as kp_dwarf_lookup(..., max, ...) with symbols would give
 * them.  false: an entry is corrupt, or the file was truncated under us (the
 * cache must be dropped and the DWARF asked). */
bool kp__symcache_lookup(const kp_symcache *c, uint64_t addr, kp_symframe *frames, size_t max,
                         size_t *n);

void kp__symcache_close(kp_symcache **c);

/* What a cache file says about itself, for `kpbrowse cache list`: read from
 * its header (source from its string table), checksum verified. */
typedef struct kp_symcache_info {
	char uuid[40], arch[16];
	char source[1024];        /* "" when unknown */
	uint64_t dwarf_size, size;
	int64_t dwarf_mtime_ns;
} kp_symcache_info;
kp_status kp__symcache_info(const char *path, kp_symcache_info *out);

/* Callbacks of a build: progress (per-mille figures) and cancel (true:
 * stop now; the build returns KP_ERR_LIMIT "cancelled").  Either may be NULL. */
typedef struct kp_symcache_cb {
	void (*progress)(void *ctx, size_t done, size_t total);
	bool (*cancel)(void *ctx);
	void *ctx;
	unsigned threads;   /* 0: one per core (at most 8) when the DWARF file is
	                     * large, else one; else at most that many (8) */
} kp_symcache_cb;

/* Builds the image of d (kp_dwarf_use_symbols set to m, the kp_macho of
 * slice): d swept window by window in address order (kp_dwarf_window),
 * each window's boundaries merged with slice's symbol table's (read
 * through the Mach-O reader) and answered through kp_dwarf_lookup (or its
 * memo, kp_dwarf_lookup_same, where only the first frame's line moves), each
 * unit given back once past (kp_dwarf_window_done: d keeps none of them
 * decoded).  source is recorded as the DWARF file's path.  The image is
 * malloc'd; the caller owns it.  On several threads each thread after the
 * caller's sweeps a later run of the addresses (from a block's start, sought
 * near an equal share of the code) on a handle of its own
 * (kp_dwarf_clone), into blocks and strings of its own, which the caller's
 * thread joins to its own in address order (a helper thread looking up and
 * renumbering the later runs' share at the same time); callbacks are called on the
 * caller's thread only; the image is byte for byte the one a single thread
 * builds.  m's symbol table is shared by the threads (each handle keeps its
 * own search hint, kp_macho_symbol_near). */
kp_status kp__symcache_build(kp_dwarf *d, kp_macho *m, const kp_macho_slice *slice,
                             const kp_symcache_key *key, const char *source,
                             const kp_symcache_cb *cb, void **image, size_t *len, kp_error *err);

/* Writes image to path atomically (kp_fs_write_atomic: a temporary created
 * O_EXCL|O_NOFOLLOW, then rename), creating the folders. */
kp_status kp__symcache_write(const char *path, const void *image, size_t len, kp_error *err);

/* <cache_dir>/symcache/<uuid>.kpsym; false when it does not fit. */
bool kp__symcache_path(char *buf, size_t size, const char *cache_dir, const char *uuid);

#endif
