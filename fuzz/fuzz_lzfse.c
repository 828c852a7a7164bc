/* fuzz_lzfse.c: the LZFSE/LZVN decoder (core/macho/lzfse.c) over
 * arbitrary bytes: the size its headers claim (capped at 16 MiB), then a
 * decode into an exactly sized heap buffer, and one into half that room
 * (KP_ERR_LIMIT, never a write past it).  Any status is fine; a crash, an
 * overread or a write past the buffer is what ASan catches. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lzfse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *src = malloc(size ? size : 1);
	if (!src)
		return 0;
	memcpy(src, data, size);
	size_t want = 0, got;
	kp_error err;
	if (kp__lzfse_size(src, size, &want, &err) == KP_OK) {
		if (want > (16u << 20))
			want = 16u << 20;
		unsigned char *out = malloc(want ? want : 1);
		if (out) {
			if (kp__lzfse_decode(out, want, &got, src, size, &err) == KP_OK && got > want)
				abort();
			if (kp__lzfse_decode(out, want / 2, &got, src, size, &err) == KP_OK && got > want / 2)
				abort();
			free(out);
		}
	}
	free(src);
	return 0;
}
