/* fuzz_kcdata.c: the Intel JSON stackshot decoder (core/report/kcdata.c)
 * over arbitrary bytes, as the decoded macOSProcessedStackshotData of a
 * report whose panic text already made its panicked process (so the
 * takeover of that process and thread is reached too): the input follows
 * a stackshot begin marker unless it starts with a buffer magic of its own.
 * The report is then written as `show --json` writes it, to /dev/null. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_report_json.h"
#include "report_build.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char KC_TEXT[] =
	"{\"macOSPanicString\":\"panic(cpu 0 caller 0xffffff800b000544): \\\"x\\\"@/a.c:1\\n"
	"Backtrace (CPU 0), Frame : Return Address\\n0xffffff81f5a3bc40 : 0xffffff800b000544 \\n"
	"Panicked task 0xffffff8012345000: 3 threads: pid 412: fakeclient\\n"
	"Panicked thread: 0xffffff8023456000, backtrace: 0xffffff81f5a3bc40, tid: 5012\\n"
	"Kernel version:\\nDarwin Kernel Version 19.6.0: x; root:xnu-6153/RELEASE_X86_64\\n"
	"Kernel UUID: 4C4C44EF-5555-3144-A1CD-413F9846D32A\\nKernel slide: 0x000000000ae00000\\n"
	"Kernel text base: 0xffffff800b000000\\n\"}";

static FILE *devnull_kc(void)
{
	static FILE *fp;
	if (!fp)
		fp = fopen("/dev/null", "w");
	return fp;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kp_report *r = NULL;
	kp_error err;
	if (kp_report_parse(KC_TEXT, sizeof KC_TEXT - 1, "fuzz.panic", &r, &err) != KP_OK)
		abort();   /* the fixed text is a panic */
	static const unsigned char magics[][4] = {{0x07, 0x58, 0xa2, 0x59}, {0x9a, 0xa5, 0x17, 0xde},
	                                          {0x50, 0x4d, 0x4f, 0x43}};
	bool own = false;
	for (size_t i = 0; i < 3 && size >= 4; i++)
		own |= memcmp(data, magics[i], 4) == 0;
	/* a private heap copy of exactly the bytes: ASan sees any overread */
	size_t pre = own ? 0 : 16, len = size + pre;
	unsigned char *buf = malloc(len ? len : 1);
	if (!buf) {
		kp_report_free(&r);
		return 0;
	}
	if (pre) {
		memset(buf, 0, pre);
		memcpy(buf, magics[0], 4);
	}
	if (size)
		memcpy(buf + pre, data, size);
	if (kp__kcdata_decode(r, buf, len, 1) == KP_OK && devnull_kc()) {
		kp_jw w;
		kp_jw_init(&w, devnull_kc());
		(void)kp_report_json_write(&w, r, NULL, NULL, 0);
		(void)kp_jw_flush(&w);
		kp_jw_free(&w);
	}
	free(buf);
	kp_report_free(&r);
	return 0;
}
