/* kp_nvram.h: a panic that never became a report file (issue 24 item 5):
 * the text kept in NVRAM or in the panic memory region, decoded so the
 * report parsers can read it.
 *
 * Forms, sniffed by content:
 *  - `nvram -x`: an XML plist whose <data> holds the variable in base64;
 *  - `nvram -p` (or `nvram aapl,panic-info`): a line "aapl,panic-info",
 *    a tab or blanks, then the bytes with %xx escapes for any that are not
 *    printable;
 *    in both, a log too long for one variable is split into
 *    "AAPL,PanicInfo0000" .. "0009", "000K", ... (joined in order, and
 *    preferred to an aapl,panic-info beside them that holds less); a value
 *    pasted cut mid-byte decodes up to its last whole byte, with a warning;
 *  - the variable's bytes as they are, or an efivarfs file of it (a 4-byte
 *    attribute word first), taken when they decode to a panic log;
 *  - a dump of the Apple silicon / T2 panic region: an
 *    embedded_panic_header ("FUNK") or a macos_panic_header ("DEED") at
 *    offset 0, the panic log at the offset and length it states.
 * The Intel variable's bytes are xnu's packA form (8 seven-bit characters
 * in 7 bytes, little-endian bit order), unpacked here; bytes that already
 * read as text, or that begin with a region header, are taken as they are.
 *
 * Ownership: kp_nvram_decode fills a caller-owned kp_nvram whose text is
 * malloc'd; kp_nvram_free frees it and clears the struct. */
#ifndef KP_NVRAM_H
#define KP_NVRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_error.h"

typedef struct kp_nvram {
	char *text;               /* the panic log, NUL-terminated; len bytes */
	size_t len;
	const char *form;         /* "nvram -x", "nvram -p", "FUNK panic region", "DEED panic region",
	                           * "efivarfs file", "raw variable bytes", or form_buf */
	char form_buf[96];        /* "nvram -p, 12 AAPL,PanicInfo chunks" */
	char warning[320];        /* what was read with a doubt, "" if nothing */
	bool packed;              /* the bytes were packA'd (Intel) */
	/* region headers only (has_header): */
	bool has_header;
	uint32_t version;
	uint64_t flags;
	uint32_t stackshot_offset, stackshot_len, other_log_offset, other_log_len;
} kp_nvram;

/* Decodes data[0..len) (what one of the forms above holds).  Errors name
 * what is wrong and where: no aapl,panic-info, bad base64, a bad %
 * escape, a header whose log lies outside the data, an empty log. */
kp_status kp_nvram_decode(const char *data, size_t len, kp_nvram *out, kp_error *err);

void kp_nvram_free(kp_nvram *n);

#endif
