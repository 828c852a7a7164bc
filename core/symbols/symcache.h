/* symcache.h: private to core/symbols/ (reader: symcache_read.c, builder:
 * symcache_build.c): a compact per-UUID symbol cache ("symcache",
 * in the spirit of Sentry's SymCache and LLVM's GSYM).  It maps every address
 * interval over which kp_dwarf_lookup's answer (the whole frame chain) is
 * constant to that answer, so a later launch answers without touching DWARF.
 *
 * File (<cache dir>/symcache/<UUID>.kpsym), little endian, every section
 * 8-byte aligned:
 *   header   KP_SYMCACHE_HDR bytes: magic "KPSYMC\r\n", version, header size,
 *            UUID, arch, source DWARF file size and mtime (ns), file size,
 *            checksum (of the whole file, that field read as 0), base address,
 *            address width (4 or 8), counts, section offsets
 *   addrs    naddrs interval starts, minus base, ascending (u32 or u64)
 *   ids      naddrs u32 chain ids (0: no answer)
 *   chains   nchains+1 u32: chain i is links[chains[i] .. chains[i+1])
 *   links    nlinks u32 frame ids, innermost first
 *   frames   nframes x {u32 function, u32 file, u32 line, u32 column},
 *            strings as offsets into the string table, UINT32_MAX for none
 *   strings  strsize bytes of NUL-terminated strings (the last byte is NUL)
 * Opening checks every count and offset against the file and the checksum;
 * each index is checked again when used.  Anything off: the file is ignored.
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

#define KP_SYMCACHE_VERSION 1
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

/* Maps path and validates it against key.  KP_ERR_NOTFOUND: no file;
 * KP_ERR_FORMAT: corrupt, truncated, stale or for another UUID. */
kp_status kp__symcache_open(const char *path, const kp_symcache_key *key, kp_symcache **out);

/* The same over a malloc'd image (from kp__symcache_build), which the cache
 * takes over (freed on failure too). */
kp_status kp__symcache_open_mem(void *image, size_t len, const kp_symcache_key *key,
                                kp_symcache **out);

/* Frames for addr, as kp_dwarf_lookup(..., max, ...) with symbols would give
 * them.  false: an entry is corrupt (the cache must be dropped). */
bool kp__symcache_lookup(const kp_symcache *c, uint64_t addr, kp_symframe *frames, size_t max,
                         size_t *n);

void kp__symcache_close(kp_symcache **c);

/* Builds the image of d (kp_dwarf_use_symbols set to the kp_macho of slice):
 * every boundary of d and of slice's symbol table, answered through
 * kp_dwarf_lookup.  progress (may be NULL) gets per-mille figures.  The
 * image is malloc'd; the caller owns it. */
kp_status kp__symcache_build(kp_dwarf *d, const kp_macho_slice *slice, const kp_symcache_key *key,
                             void (*progress)(void *ctx, size_t done, size_t total), void *ctx,
                             void **image, size_t *len, kp_error *err);

/* Writes image to path atomically (temp file + rename), creating the
 * folders; false when it could not. */
bool kp__symcache_write(const char *path, const void *image, size_t len);

/* <cache_dir>/symcache/<uuid>.kpsym; false when it does not fit. */
bool kp__symcache_path(char *buf, size_t size, const char *cache_dir, const char *uuid);

#endif
