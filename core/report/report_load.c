/* report_load.c: reading a report file, sniffing its format and choosing
 * its parser by content. */
#include "report_build.h"
#include "kp_fs.h"

#include <stdlib.h>
#include <string.h>

static const char *skip_ws(const char *p, const char *end)
{
	if (end - p >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB &&
	    (unsigned char)p[2] == 0xBF)
		p += 3;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

kp_format kp_report_sniff(const char *data, size_t len)
{
	/* a spin / stall header line may stand before a binary body */
	if (kp__spindump_header_sniff(data, len))
		return KP_FORMAT_TEXT;
	if (len == 0 || memchr(data, '\0', len < 4096 ? len : 4096))
		return KP_FORMAT_UNKNOWN;
	const char *p = skip_ws(data, data + len);
	return p < data + len && *p == '{' ? KP_FORMAT_IPS : KP_FORMAT_TEXT;
}

kp_status kp_report_parse(const char *data, size_t len, const char *path,
                          kp_report **out, kp_error *err)
{
	return kp_report_parse_flags(data, len, path, 0, out, err);
}

kp_status kp_report_parse_flags(const char *data, size_t len, const char *path, unsigned flags,
                                kp_report **out, kp_error *err)
{
	*out = NULL;
	kp_error_clear(err);
	if (len == 0)
		return kp_error_set(err, KP_ERR_FORMAT, 0, -1, "empty file");
	kp_report *r = kp__report_new(path);
	if (!r)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	const char *p = skip_ws(data, data + len);
	kp_status st;
	/* issue 24: a text crash or resource report is named, never read as a
	 * hang or failed on (a JSON header line may stand before it) */
	const char *nl = p < data + len ? memchr(p, '\n', (size_t)(data + len - p)) : NULL;
	const char *body = p < data + len && *p == '{' && nl ? nl + 1 : p;
	const char *notk = body < data + len && *body != '{' ? kp__notkernel_sniff(body, (size_t)(data + len - body)) : NULL;
	if (notk) {
		kp_report_free(&r);
		return kp_error_set(err, KP_ERR_NOTPANIC, 1, 0, "not a kernel report (%s)", notk);
	}
	if (kp__spindump_header_sniff(data, len) ||
	    ((p == data + len || *p != '{') && kp__spindump_sniff(data, len))) {
		st = kp__spindump_parse(r, data, len, err);
	} else if (p < data + len && *p == '{') {
		st = kp__ips_parse(r, data, len, flags, err);
	} else if (kp__text_stackshot_sniff(data, len)) {
		st = kp__text_stackshot_parse(r, data, len, err);
	} else {
		r->format = KP_FORMAT_TEXT;
		st = kp__text_parse(r, data, len, 1, 0, err);
		/* binary content that is no panic text (a binary spindump or
		 * tailspin, a property list): named, not "no kernel panic here"
		 * (a text report padded with NULs still parses above) */
		if (st == KP_ERR_FORMAT && err && (memchr(data, '\0', len < 4096 ? len : 4096) ||
		                                   (len >= 8 && !memcmp(data, "bplist00", 8)))) {
			long line = err->line, byte = err->byte;   /* where its first content is */
			st = kp_error_set(err, KP_ERR_FORMAT, line, byte, "%s, not a text or JSON report: kpbrowse "
			                  "reads text (on a Mac, spindump -i FILE writes a binary spindump as text)",
			                  kp__binary_what(data, len));
		}
	}
	if (st != KP_OK) {
		kp_report_free(&r);
		return st;
	}
	kp__derive_arch(r);
	kp__zone_parse(r);
	*out = r;
	return KP_OK;
}

kp_status kp_report_load(const char *path, kp_report **out, kp_error *err)
{
	*out = NULL;
	kp_error_clear(err);
	char *buf;
	size_t len;
	kp_status s = kp_fs_read_file(path, KP_REPORT_MAX_SIZE, &buf, &len, NULL, err);
	if (s != KP_OK)
		return s;
	s = kp_report_parse(buf, len, path, out, err);
	free(buf);
	return s;
}
