/* fuzz_same.h: what the fuzz targets' differential checks share (the
 * targets are also compiled into one test, test_hostile_replay: hence
 * static inline behind a guard). */
#ifndef KP_FUZZ_SAME_H
#define KP_FUZZ_SAME_H

#include <stdbool.h>
#include <string.h>

/* Two strings a parse may leave NULL: both NULL, or equal. */
static inline bool kf_same_str(const char *a, const char *b)
{
	return (!a || !b) ? a == b : strcmp(a, b) == 0;
}

#endif
