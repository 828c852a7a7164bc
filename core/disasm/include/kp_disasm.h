/* kp_disasm.h: the machine code around a frame's address, decoded with
 * Capstone (disasm.c is the only user of Capstone in kpbrowse) for arm64
 * and x86_64 (Intel syntax), branch and call targets named from the symbol
 * table (a call through a symbol stub names the symbol: "stub for
 * IOLog").  The bytes come from the Mach-O file with the frame's image UUID
 * that holds them: the dSYM itself when its __TEXT has bytes (real ones
 * usually do not), else the binary next to it (Foo.kext.dSYM ->
 * Foo.kext/Contents/MacOS/Foo or Foo.kext/Foo, kernel.dSYM -> kernel),
 * else any other file with that UUID under the dSYM search roots.
 * Addresses are the file's own (unslid), as lookup_address in `show`.
 *
 * A build without Capstone (KP_HAVE_CAPSTONE undefined) keeps this API:
 * kp_disasm_available() is false and every call fails with KP_ERR_USAGE
 * and kp_disasm_missing() as its message.
 *
 * Ownership: a kp_disasm owns its instruction array (every string inside
 * is an array of the instruction itself); kp_disasm_free releases it and
 * zeroes the struct.  No state is kept between calls.  A report's frame is
 * disassembled by kp_disasm_frame (kp_symbols.h), which finds the frame's
 * image and asks kp_disasm_image here: this library knows Mach-O files,
 * never a report or the symbol sources (it is given a finder instead). */
#ifndef KP_DISASM_H
#define KP_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_error.h"

#define KP_DISASM_MAX 1000   /* instructions in one answer, at most */

typedef struct kp_disasm_insn {
	uint64_t address;
	unsigned char bytes[16];
	unsigned nbytes;
	char mnemonic[32];       /* "(bad)" for bytes that decode to nothing */
	char operands[160];      /* as Capstone prints them */
	bool has_target;         /* a relative branch or call */
	uint64_t target;
	char target_name[200];   /* "FakeDriver::start(IOService*)+0x30", "stub for IOLog",
	                            "" unknown */
	bool marked;             /* holds the frame's address */
} kp_disasm_insn;

typedef struct kp_disasm {
	kp_disasm_insn *insns;
	size_t n;
	uint64_t address;        /* the address marked */
	char arch[16];
	char path[1024];         /* the file whose bytes were decoded */
} kp_disasm;

bool kp_disasm_available(void);
/* How to get a kpbrowse that disassembles (one sentence). */
const char *kp_disasm_missing(void);

/* The files beyond dsym and the binaries beside it that may hold the code
 * of the image with UUID uuid: the k-th (from 0), or NULL when there are no
 * more.  The string is borrowed until the next call. */
typedef const char *kp_disasm_find_fn(void *ctx, const char *uuid, size_t k);

/* About count instructions around addr (the image's own, unslid address)
 * of the image with UUID uuid (canonical) whose dSYM, or binary, is dsym
 * (count/2 before it, the one holding it, the rest after; fewer at a
 * section's edge).  The bytes come from dsym when its __TEXT has them, else
 * the binary beside it, else each file find (NULL: none) gives, each tried
 * once.  KP_ERR_NOTFOUND: no code bytes (the message says where the binary
 * was looked for), or an address outside every section of the image;
 * KP_ERR_FORMAT: an architecture other than arm64/x86_64, or a file that
 * changed while read. */
kp_status kp_disasm_image(const char *uuid, const char *dsym, uint64_t addr, size_t count,
                          kp_disasm_find_fn *find, void *ctx, kp_disasm *out, kp_error *err);

/* The same at addr in the file at path (arch NULL: its only slice). */
kp_status kp_disasm_file(const char *path, const char *arch, uint64_t addr, size_t count,
                         kp_disasm *out, kp_error *err);

void kp_disasm_free(kp_disasm *d);

/* "mnemonic operands" with a named target as llvm-objdump shows it:
 * "bl 0xc044 <FakeDriver::start(IOService*)>" (Capstone's '#' dropped). */
void kp_disasm_format(const kp_disasm_insn *in, char *buf, size_t size);

#endif
