/* fuzz_dsymplist.c: what a dsymForUUID program prints (untrusted: any
 * program a lab names) through kp__dsym_answer_parse, for the UUID the
 * seeds use and for one no seed has, and the DebugSymbols defaults' reader
 * (kp__plist_strings) over the same bytes, XML or binary.
 * The same bytes also go through the prelinked kernelcache's streaming
 * __PRELINK_INFO reader (kp__prelink_info_each).
 * tests/hostile/fuzz-dsymplist-1: a binary plist whose dictionary key holds
 * NULs, on which libplist 2.2's key iteration asserts (now refused first).
 * tests/hostile/fuzz-dsymplist-2: a binary plist of 620 bytes whose shared
 * objects stand for 2^60 nodes (now refused by the element count first). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plist.h"
#include "plist_prelink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void count_strings(void *ctx, const char *s)
{
	*(size_t *)ctx += strlen(s);
}

static void count_kext(void *ctx, const kp__prelink_kext *k)
{
	*(size_t *)ctx += (k->id ? strlen(k->id) : 0) + k->has_load + k->has_source + k->has_size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const uuids[] = {"4C4C44A3-5555-3144-A151-249D146ED38D",
	                                    "01234567-89AB-CDEF-0123-456789ABCDEF"};
	for (size_t i = 0; i < 2; i++) {
		kp__dsym_answer a;
		kp_error err;
		if (kp__dsym_answer_parse(data, size, uuids[i], &a, &err) == KP_OK) {
			size_t n = 0;
			for (size_t j = 0; j < a.nremaps; j++)
				n += strlen(a.remaps[j].from) + strlen(a.remaps[j].to);
			if (a.dsym_path)
				n += strlen(a.dsym_path);
			(void)n;
		}
		kp__dsym_answer_free(&a);
	}
	size_t total = 0;
	kp__plist_strings(data, size, "DBGFileMappedPaths", count_strings, &total, NULL);
	kp_error err;
	kp__prelink_info_each(data, size, count_kext, &total, &err);
	return 0;
}
