#include "json_scan.h"
#include "report_build.h"

#include <stdlib.h>
#include <string.h>

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

cJSON *kp__json_parse_span(const char *s, const char *end, kp_jerr *e)
{
	size_t len = (size_t)(end - s);
	/* Count the long integers first so the copy is allocated once. */
	size_t extra = 0;
	for (const char *p = s; p < end;) {
		if (*p == '"') {
			kp_jerr dummy;
			const char *q = kp_json_skip(p, end, &dummy);
			p = q ? q : end;
		} else if (is_digit(*p)) {
			const char *q = p;
			while (q < end && is_digit(*q))
				q++;
			if (q - p >= 16 && (q == end || (*q != '.' && *q != 'e' && *q != 'E')))
				extra += 2;
			p = q;
		} else {
			p++;
		}
	}
	char *buf = malloc(len + extra + 1);
	size_t *ins = extra ? malloc(extra / 2 * sizeof *ins) : NULL;
	if (!buf || (extra && !ins)) {
		free(buf);
		free(ins);
		*e = (kp_jerr){s, "out of memory", false};
		return NULL;
	}
	size_t o = 0, nins = 0;
	for (const char *p = s; p < end;) {
		if (*p == '"') {
			kp_jerr dummy;
			const char *q = kp_json_skip(p, end, &dummy);
			if (!q)
				q = end;
			/* \u0000 would cut cJSON's C string (and everything after it
			 * in a panic string), and cJSON refuses the whole member for
			 * a surrogate without its pair (Python's json takes it): both
			 * become U+FFFD, as in ips_procs.c. */
			while (p < q) {
				unsigned u = q - p >= 6 ? kp_json_esc_u(p) : 0x10000, lo;
				bool lone = u >= 0xD800 && u <= 0xDFFF &&
				            !(u <= 0xDBFF && q - p >= 12 && (lo = kp_json_esc_u(p + 6)) >= 0xDC00 &&
				              lo <= 0xDFFF);
				if (u >= 0xD800 && u <= 0xDBFF && !lone) { /* a pair: both kept */
					memcpy(buf + o, p, 12);
					o += 12;
					p += 12;
				} else if (u == 0 || lone) {
					memcpy(buf + o, "\\ufffd", 6);
					o += 6;
					p += 6;
				} else if (*p == '\\' && q - p >= 2) {
					buf[o++] = *p++;
					buf[o++] = *p++;
				} else {
					buf[o++] = *p++;
				}
			}
		} else if (is_digit(*p)) {
			const char *q = p;
			while (q < end && is_digit(*q))
				q++;
			bool quote = q - p >= 16 && (q == end || (*q != '.' && *q != 'e' && *q != 'E')) &&
			             !(p > s && p[-1] && strchr("-.eE+", p[-1]));
			if (quote) {
				ins[nins++] = o;
				buf[o++] = '"';
			}
			memcpy(buf + o, p, (size_t)(q - p));
			o += (size_t)(q - p);
			if (quote)
				buf[o++] = '"';
			p = q;
		} else {
			buf[o++] = *p++;
		}
	}
	buf[o] = '\0';
	const char *errp = NULL;
	cJSON *tree = cJSON_ParseWithLengthOpts(buf, o, &errp, 0);
	if (!tree) {
		size_t eo = errp && errp >= buf && errp <= buf + o ? (size_t)(errp - buf) : 0;
		size_t shift = 0;
		for (size_t i = 0; i < nins; i++)
			if (ins[i] < eo)
				shift += ins[i] + 1 < eo ? 2 : 1;
		*e = (kp_jerr){s + (eo - shift), "malformed JSON", eo >= o};
	}
	free(buf);
	free(ins);
	return tree;
}

bool kp__json_u64(const cJSON *item, uint64_t *out)
{
	if (cJSON_IsNumber(item)) {
		double d = item->valuedouble;
		if (!(d >= 0) || d > 9007199254740992.0 || d != (double)(uint64_t)d)
			return false;
		*out = (uint64_t)d;
		return true;
	}
	if (cJSON_IsString(item) && item->valuestring)
		return kp_parse_u64(item->valuestring, strlen(item->valuestring), out);
	return false;
}
