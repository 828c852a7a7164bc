/* fuzz_nvram.c: kp_nvram_decode (nvram -x, nvram -p, FUNK and DEED region
 * dumps, 7-bit unpacking), then the decoded text through kp_report_parse,
 * as `kpbrowse nvram` does. */
#include <stdint.h>
#include <stdlib.h>

#include "kp_nvram.h"
#include "kp_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kp_nvram nv;
	kp_error err;
	if (kp_nvram_decode((const char *)data, size, &nv, &err) != KP_OK)
		return 0;
	kp_report *r = NULL;
	if (kp_report_parse(nv.text, nv.len, "fuzz-nvram", &r, &err) == KP_OK)
		kp_report_free(&r);
	kp_nvram_free(&nv);
	return 0;
}
