/* plist_prelink.h: private to core/macho/: a prelinked kernelcache's
 * __PRELINK_INFO,__info, read by plist_prelink.c for macho_prelink.c.
 *
 * The kernel's own XML (OSSerialize, read back by OSUnserializeXML): a
 * top-level <dict> with no <plist> wrapper or prolog, NUL-padded to the
 * section's end; integers as <integer size="64">0x...</integer>; and an
 * object written twice is written once with ID="n" and then as an empty
 * element IDREF="n" (<integer IDREF="3"/>).  Read as it streams, without
 * libplist (whose tree cost 8x to 17x the text): only the kexts' entries
 * and in them the four keys below are read, an IDREF there where its ID's
 * element lies; everything else (an OSSet's <set> too) is skipped unread.
 * The IDs must ascend, as OSSerialize numbers them.  No libplist here (that
 * is core/symsrc/plist.c, for the plists of the symbol sources).
 *
 * Ownership: strings handed to the callback are borrowed for the call. */
#ifndef KP_PLIST_PRELINK_H
#define KP_PLIST_PRELINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_error.h"

#define KP_PRELINK_STR_MAX 4096     /* an identifier or a value; a longer one is refused */
#define KP_PRELINK_DEPTH_MAX 128    /* nesting; deeper is KP_ERR_LIMIT */
#define KP_PRELINK_INFO_MAX (64u << 20) /* the info; and what its IDREFs make read
                                           again: at most four times its size
                                           and 64 KiB */

/* One kext's entry of _PrelinkInfoDictionary; has_* false when its key is
 * absent or no integer (a codeless kext has no executable). */
typedef struct kp__prelink_kext {
	const char *id;            /* CFBundleIdentifier; NULL when absent or refused */
	bool has_load, has_source, has_size;
	uint64_t load;             /* _PrelinkExecutableLoadAddr: its header's vmaddr */
	uint64_t source;           /* _PrelinkExecutableSourceAddr: where it lies in the cache */
	uint64_t size;             /* _PrelinkExecutableSize */
} kp__prelink_kext;

/* Calls fn with each dictionary of _PrelinkInfoDictionary in buf[0..len)
 * (a top-level array is taken as that array, as kclist does) in order, as
 * it reads them; the strings are borrowed for the call.  Then
 * KP_ERR_FORMAT where the text stops being such a plist (an IDREF to no
 * earlier ID, an ID that is no number or out of order, a tag cut short,
 * ...: the kexts before it were given), KP_ERR_LIMIT past
 * KP_PRELINK_INFO_MAX or nested deeper than KP_PRELINK_DEPTH_MAX.  Strings
 * with a NUL or a reference to none are taken as absent. */
kp_status kp__prelink_info_each(const void *buf, size_t len,
                                void (*fn)(void *ctx, const kp__prelink_kext *k), void *ctx,
                                kp_error *err);

#endif
