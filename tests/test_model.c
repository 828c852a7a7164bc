/* test_model.c: the report model: arena, growth, free, format sniffing. */
#include "kt.h"
#include "report_build.h"

static void arena_holds_strings(void)
{
	kp_report *r = kp__report_new("x");
	KT_CHECK(r != NULL, "report allocated");
	int ok = 1;
	for (int i = 0; i < 100000; i++)
		ok &= kp__sprintf(r, "%d", i) != NULL;
	KT_CHECK(ok, "arena holds 100000 strings");
	kp_report_free(&r);
}

static void frames_grow(void)
{
	kp_report *r = kp__report_new("x");
	kp_process *p = kp__add_process(r);
	kp_thread *t = kp__add_thread(r, p);
	for (int i = 0; i < 1000; i++)
		kp__add_frame(r, t)->offset = (uint64_t)i;
	KT_CHECK(t->nframes == 1000 && t->frames[999].offset == 999 && t->frames[0].image == -1,
	         "frames grow");
	kp_report_free(&r);
	KT_CHECK(r == NULL, "free clears pointer");
}

static void sniff(void)
{
	KT_CHECK(kp_report_sniff("{\"bug_type\":\"210\"}", 18) == KP_FORMAT_IPS, "JSON sniffs as IPS");
	KT_CHECK(kp_report_sniff("\xEF\xBB\xBF \n{}", 7) == KP_FORMAT_IPS, "BOM and blanks before '{'");
	KT_CHECK(kp_report_sniff("panic(cpu 0 caller 0x1)", 23) == KP_FORMAT_TEXT, "text");
	KT_CHECK(kp_report_sniff("", 0) == KP_FORMAT_UNKNOWN, "empty is unknown");
	KT_CHECK(kp_report_sniff("panic\0\1\2", 8) == KP_FORMAT_UNKNOWN, "a NUL byte: binary");
}

int main(void)
{
	arena_holds_strings();
	frames_grow();
	sniff();
	return kt_done();
}
