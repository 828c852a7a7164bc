/* le.h: private to core/report/: the little-endian readers of the binary
 * members (nvram panic headers, kcdata stackshots).  p must hold the bytes. */
#ifndef KP_REPORT_LE_H
#define KP_REPORT_LE_H

#include <stdint.h>

static inline uint32_t kp__le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t kp__le64(const unsigned char *p)
{
	return (uint64_t)kp__le32(p) | (uint64_t)kp__le32(p + 4) << 32;
}

#endif
