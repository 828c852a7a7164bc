/* fuzz_symcache.c: the symbol cache reader over arbitrary bytes.  The input
 * is a .kpsym image whose header is made to pass the cheap checks (magic,
 * version, sizes) and whose checksum is recomputed, so the fuzzer's lies
 * reach every count, offset and block the reader decodes; then lookups at
 * the block starts, around them and at addresses taken from the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symcache_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len = size < KP_SYMCACHE_HDR ? KP_SYMCACHE_HDR : size;
	/* a heap copy of the exact size so ASan sees any read past the end;
	 * the cache takes it over */
	unsigned char *img = calloc(1, len);
	if (!img)
		return 0;
	memcpy(img, data, size);
	memcpy(img + H_MAGIC, KP__SYMCACHE_MAGIC, 8);
	kp_put_le(img + H_VERSION, KP_SYMCACHE_VERSION, 4);
	kp_put_le(img + H_HDRSIZE, KP_SYMCACHE_HDR, 4);
	memset(img + H_UUID, 0, UUID_LEN);
	memcpy(img + H_UUID, "FUZZ", 4);
	memset(img + H_ARCH, 0, ARCH_LEN);
	memcpy(img + H_ARCH, "arm64", 5);
	kp_put_le(img + H_FSIZE, len, 8);
	kp_put_le(img + H_SUM, kp__symcache_checksum(img, len), 8);
	kp_symcache_key key = {"FUZZ", "arm64", kp_le64(img + H_DSIZE), (int64_t)kp_le64(img + H_DMTIME)};
	uint64_t base = kp_le64(img + H_BASE);
	uint32_t nblocks = kp_le32(img + H_NBLOCKS);
	unsigned width = kp_le32(img + H_WIDTH);
	uint64_t starts = kp_le64(img + H_OFFS + 8 * S_STARTS);
	/* addresses to probe, read before the cache owns the image */
	uint64_t probe[64];
	size_t np = 0;
	const uint64_t fixed[] = {0, 1, base, base + 1, base - 1, UINT64_MAX, base + 0x100000000ull};
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		probe[np++] = fixed[i];
	for (uint32_t i = 0; i < nblocks && np + 3 <= sizeof probe / sizeof probe[0]; i++) {
		uint64_t at = starts + (uint64_t)i * (width == 8 ? 8 : 4);
		if (at > len || len - at < 8)
			break;
		uint64_t s = base + (width == 8 ? kp_le64(img + at) : kp_le32(img + at));
		probe[np++] = s;
		probe[np++] = s + 3;
		probe[np++] = s + 0x40;
	}
	for (size_t at = KP_SYMCACHE_HDR; at + 8 <= size && np < sizeof probe / sizeof probe[0]; at += 97)
		probe[np++] = base + kp_le32(img + at) % 0x10000;
	kp_symcache *c = NULL;
	if (kp__symcache_open_mem(img, len, &key, &c) == KP_OK) {
		kp_symframe fr[KP_SYMCACHE_MAX_FRAMES];
		for (size_t i = 0; i < np; i++) {
			size_t n = 0;
			if (kp__symcache_lookup(c, probe[i], fr, KP_SYMCACHE_MAX_FRAMES, &n))
				for (size_t k = 0; k < n; k++) {
					if (fr[k].function)
						(void)strlen(fr[k].function);
					if (fr[k].file)
						(void)strlen(fr[k].file);
				}
			(void)kp__symcache_lookup(c, probe[i], fr, 1, &n);
		}
	}
	kp__symcache_close(&c);
	return 0;
}
