/* json_scan.h: private to core/report/: the big .ips body is taken apart
 * member by member with the skimmer (kp_json.h) and each piece handed to
 * cJSON alone (a whole cJSON tree costs about 12x the input).
 *
 * Ownership: spans point into the caller's buffer; trees returned by
 * kp__json_parse_span belong to the caller (cJSON_Delete). */
#ifndef KP_JSON_SCAN_H
#define KP_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "kp_json.h"

/* Parses [s, end) with cJSON after turning every integer literal of 16 or
 * more digits into a string of its digits, so that no big base or offset goes
 * through a double (read them back with kp__json_u64).  NULL on error, with
 * e->pos mapped back into [s, end). */
cJSON *kp__json_parse_span(const char *s, const char *end, kp_jerr *e);

/* An unsigned integer from a number item (exact only, < 2^53) or from a
 * digit string (decimal or 0x hex); false for negatives, fractions, others. */
bool kp__json_u64(const cJSON *item, uint64_t *out);

#endif
