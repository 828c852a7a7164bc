/* fuzz_text.c: kp_report_parse on panic text (.panic, bare panic strings).
 * A leading '{' is replaced so the text parser always runs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_report_json.h"
#include "kp_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The report is also written as `show --json` writes it, to /dev/null. */
static FILE *devnull_text(void)
{
	static FILE *fp;
	if (!fp)
		fp = fopen("/dev/null", "w");
	return fp;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	/* Keep the JSON sniffer away: the first non-blank byte must not be '{'. */
	for (size_t i = 0; i < size; i++) {
		if (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n')
			continue;
		if (buf[i] == '{')
			buf[i] = 'p';
		break;
	}
	kp_report *r = NULL;
	kp_error err;
	if (kp_report_parse(buf, size, "fuzz.panic", &r, &err) == KP_OK) {
		const kp_process *p;
		(void)kp_report_panicked_thread(r, &p);
		if (devnull_text()) {
			kp_jw w;
			kp_jw_init(&w, devnull_text());
			(void)kp_report_json_write(&w, r, NULL, NULL, 0);
			(void)kp_jw_flush(&w);
			kp_jw_free(&w);
		}
	}
	kp_report_free(&r);
	free(buf);
	return 0;
}
