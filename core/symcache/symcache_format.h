/* symcache_format.h: private to the symbol cache: the file layout shared
 * by its reader (symcache_read.c) and its builder (symcache_build.c); the
 * layout itself is described in symcache.h. */
#ifndef KP_SYMCACHE_FORMAT_H
#define KP_SYMCACHE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_bytes.h"

#include "symcache.h"

/* multipliers of the checksum and the builder's hashes */
#define P1 0x9e3779b185ebca87ull
#define P2 0xc2b2ae3d27d4eb4full

#define KP__SYMCACHE_MAGIC "KPSYMC\r\n"   /* 8 bytes, no NUL in the file */

/* rows, inline-tree nodes and strings per block at most: they bound the
 * linear decode of one lookup (a block holds at most 2 strings per row and
 * per node) */
#define KP__SYMCACHE_ROWS 256
#define KP__SYMCACHE_NODES 512
#define KP__SYMCACHE_STRS (2 * KP__SYMCACHE_ROWS + 2 * KP__SYMCACHE_NODES)

/* header field offsets */
enum {
	H_MAGIC = 0, H_VERSION = 8, H_HDRSIZE = 12, H_UUID = 16, H_ARCH = 56, H_DSIZE = 72,
	H_DMTIME = 80, H_FSIZE = 88, H_SUM = 96, H_BASE = 104, H_WIDTH = 112, H_NBLOCKS = 116,
	H_DATASIZE = 120, H_STRSIZE = 124, H_SOURCE = 128, H_NROWS = 132, H_OFFS = 136,
	UUID_LEN = 40, ARCH_LEN = 16,
};
enum { S_STARTS, S_OFFS, S_DATA, S_STRINGS, NSECTIONS };

/* a row's head byte: these flags (none: "no answer from here on") and,
 * in the top 3 bits, the address delta in granules when 1..7 (0: a ULEB
 * delta follows) */
enum {
	R_NAME = 1, R_FILE = 2, R_LINE = 4, R_COL = 8, R_NODE = 16,
	R_ALL = 31,
};

#define NONE UINT32_MAX


/* The zigzag form of a signed delta (lines and columns), and back: small
 * steps either way are one ULEB128 byte. */
static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzigzag(uint64_t z)
{
	return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
}

/* base plus the zigzag delta z, modulo 2^64: a cache file is untrusted, so
 * the sum may not overflow a signed type; the reader range-checks what it
 * gets (a delta from a valid file gives the same bits either way). */
static inline uint64_t add_zigzag(uint64_t base, uint64_t z)
{
	return base + (uint64_t)unzigzag(z);
}

/* The file's checksum, its H_SUM field read as zero; data holds at least
 * KP_SYMCACHE_HDR bytes.  Defined in symcache_read.c. */
uint64_t kp__symcache_checksum(const unsigned char *data, size_t len);

#endif
