/* fuzz_ips.c: kp_report_parse on JSON report forms (.ips, Intel JSON).
 * An input not starting with '{' gets one in front, so every run takes the
 * JSON path and seeds can be real reports as they are. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_report_json.h"
#include "kp_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The report is also written as `show --json` writes it, to /dev/null. */
static FILE *devnull_ips(void)
{
	static FILE *fp;
	if (!fp)
		fp = fopen("/dev/null", "w");
	return fp;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A private copy without a terminating NUL: the parser must never
	 * read past len (ASan catches it). */
	size_t pre = size && data[0] == '{' ? 0 : 1, len = size + pre;
	char *buf = malloc(len);
	if (!buf)
		return 0;
	buf[0] = '{';
	if (size)
		memcpy(buf + pre, data, size);
	kp_report *r = NULL;
	kp_error err;
	if (kp_report_parse(buf, len, "fuzz.ips", &r, &err) == KP_OK) {
		const kp_process *p;
		(void)kp_report_panicked_thread(r, &p);
		if (devnull_ips()) {
			kp_jw w;
			kp_jw_init(&w, devnull_ips());
			(void)kp_report_json_write(&w, r, NULL, NULL, 0);
			(void)kp_jw_flush(&w);
			kp_jw_free(&w);
		}
		(void)kp_arch_name(r->arch);
		(void)kp_format_name(r->format);
	}
	kp_report_free(&r);
	free(buf);
	return 0;
}
