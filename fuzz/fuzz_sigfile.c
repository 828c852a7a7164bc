/* fuzz_sigfile.c: symbolicator signature files (sigfile.h) from arbitrary
 * bytes: parsed, every signature's anchors and backtrace walked, the
 * version range asked. */
#include <stdint.h>
#include <string.h>

#include "sigfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kp__sigfile *f = NULL;
	kp_error err;
	if (kp__sigfile_parse((const char *)data, size, &f, &err) != KP_OK)
		return 0;
	static const unsigned v[3] = {23, 4, 0};
	size_t n = strlen(f->target) + kp__sigfile_covers(f, v);
	for (size_t i = 0; i < f->nsigs; i++) {
		for (size_t k = 0; k < f->sigs[i].nanchors; k++)
			n += f->sigs[i].anchors[k].len + strlen(f->sigs[i].anchors[k].section);
		for (size_t k = 0; k < f->sigs[i].nbacktrace; k++)
			n += strlen(f->sigs[i].backtrace[k]);
	}
	kp__sigfile_free(&f);
	return (int)(n & 0);
}
