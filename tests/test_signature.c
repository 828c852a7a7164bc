/* test_signature.c: headline normalisation, machinery, culprit and keys. */
#include "kp_sha1.h"
#include "kp_signature.h"
#include "kt.h"
#include "index_corpus.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	const char *in, *want;
} norm_cases[] = {
	{"panic(cpu 1 caller 0xfffffe0012067e78): Kernel data abort. at pc 0xfffffe001197caec, lr "
	 "0xcbaf7e0011927fc8 (saved state: 0xfffffe600c4c3540)",
	 "Kernel data abort. at pc ADDR, lr ADDR (saved state: ADDR)"},
	{"panic(cpu 2 caller 0xffffff80002c6b3d): \"Spinlock acquisition timed out: lock=0xffffff8012345678\""
	 "@/SourceCache/xnu/xnu-2422.110.17/osfmk/i386/locks_i386.c:365",
	 "Spinlock acquisition timed out: lock=ADDR locks_i386.c"},
	{"watchdog timeout: no checkins from watchdogd in 90 seconds (1234 total checkins since "
	 "monitoring last enabled)",
	 "watchdog timeout: no checkins from watchdogd in NUM seconds (NUM total checkins since "
	 "monitoring last enabled)"},
	{"Unresolved kernel trap (CPU 1, Type 14=page fault)",
	 "Unresolved kernel trap (CPU NUM, Type NUM=page fault)"},
	{"AppleT6020PlatformErrorHandler on x86_64 T8101 at 0x10", "AppleT6020PlatformErrorHandler on x86_64 T8101 at ADDR"},
	{"bad element ffffff80deadbeef and cafebabe", "bad element ADDR and cafebabe"},
	{"  zone_require_ro failed @zalloc.c:123  ", "zone_require_ro failed @zalloc.c:NUM"},
	{"first line\nsecond line 0x1", "first line"},
	{"btn_rst", "btn_rst"},
	{"", ""},
};

/* Names the 4 panic path frames like a symbolicator would, and (when ctx
 * is non-NULL) the kext frames too. */
static const char *fake_symbols(void *ctx, const kp_report *r, const kp_thread *t, size_t i)
{
	static const char *const path[] = {"_panic + 0x1c", "panic_trap_to_debugger", "_kernel_trap",
	                                   "return_from_trap"};
	static char buf[64];
	if (i < 4)
		return path[i];
	const kp_frame *f = &t->frames[i];
	if (ctx && f->image >= 0 && r->images[f->image].name &&
	    strcmp(r->images[f->image].name, "com.example.driver.Widget") == 0) {
		snprintf(buf, sizeof buf, "Widget::fn_%" PRIx64 " + 0x4", f->offset);
		return buf;
	}
	return NULL;
}

static kp_report *make(int bug, int build, int incident)
{
	static char buf[16384];
	size_t n = gen_report(buf, sizeof buf, bug, build, incident);
	kp_report *r = NULL;
	kp_error err;
	if (kp_report_parse(buf, n, "gen", &r, &err) != KP_OK)
		printf("# parse failed: %s\n", err.msg);
	return r;
}

int main(void)
{
	for (size_t i = 0; i < sizeof norm_cases / sizeof *norm_cases; i++) {
		char *got = kp_sig_normalize_headline(norm_cases[i].in);
		KT_STREQ(got, norm_cases[i].want, "normalise");
		free(got);
	}
	char *null_h = kp_sig_normalize_headline(NULL);
	KT_STREQ(null_h, "", "normalise NULL");
	free(null_h);
	char longh[1000];
	memset(longh, 'x', sizeof longh - 1);
	longh[sizeof longh - 1] = '\0';
	char *lh = kp_sig_normalize_headline(longh);
	KT_CHECK(lh && strlen(lh) == 240, "long headline capped at 240 (got %zu)", lh ? strlen(lh) : 0);
	free(lh);

	KT_CHECK(kp_sig_is_machinery("_panic_trap_to_debugger + 0x1c"), "machinery with offset");
	KT_CHECK(kp_sig_is_machinery("panic"), "panic");
	KT_CHECK(kp_sig_is_machinery("DebuggerWithContext"), "Debugger*");
	KT_CHECK(kp_sig_is_machinery("panic_with_options_and_initiator"), "panic_with_options*");
	KT_CHECK(kp_sig_is_machinery("sleh_synchronous"), "sleh_synchronous");
	KT_CHECK(kp_sig_is_machinery("_Call_continuation"), "Call_continuation");
	KT_CHECK(!kp_sig_is_machinery("panicky"), "panicky is not machinery");
	KT_CHECK(!kp_sig_is_machinery("IOWorkLoop::runAction"), "IOWorkLoop is not machinery");
	KT_CHECK(!kp_sig_is_machinery(NULL), "NULL");
	KT_CHECK(kp_sig_is_apple("com.apple.iokit.IOPCIFamily") && !kp_sig_is_apple("com.applex.y") &&
	         !kp_sig_is_apple("com.example.driver.Widget"), "Apple bundle ids");

	char hex[41];
	kp_sha1_hex("abc", 3, hex);
	KT_STREQ(hex, "a9993e364706816aba3e25717850c26c9cd0d89d", "sha1(abc)");
	kp_sha1_hex("", 0, hex);
	KT_STREQ(hex, "da39a3ee5e6b4b0d3255bfef95601890afd80709", "sha1()");
	const char *q = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	kp_sha1_hex(q, strlen(q), hex);
	KT_STREQ(hex, "84983e441c3bd26ebaae4aa1f95129e5e54670f1", "sha1(448 bits)");
	char *mil = malloc(1000000);
	memset(mil, 'a', 1000000);
	kp_sha1 s;
	kp_sha1_init(&s);
	for (size_t off = 0; off < 1000000; off += 7)
		kp_sha1_update(&s, mil + off, off + 7 <= 1000000 ? 7 : 1000000 - off);
	uint8_t d[20];
	kp_sha1_final(&s, d);
	char hex2[41];
	for (int i = 0; i < 20; i++)
		snprintf(hex2 + 2 * i, 3, "%02x", d[i]);
	KT_STREQ(hex2, "34aa973cd4c4daa4f61eeb2bdbad27316534016f", "sha1(million a) in pieces");
	free(mil);

	/* same bug: incidents (slides, dates) and builds */
	kp_report *a1 = make(0, 0, 1), *a2 = make(0, 0, 2), *a3 = make(0, 1, 3);
	kp_report *b1 = make(1, 0, 4), *c1 = make(2, 1, 5);
	if (!a1 || !a2 || !a3 || !b1 || !c1) {
		KT_CHECK(0, "generated reports parse");
		return kt_done();
	}
	kp_sig sa1, sa2, sa3, sb1, sc1;
	kp_error err;
	KT_CHECK(kp_sig_compute(a1, NULL, NULL, &sa1, &err) == KP_OK, "compute a1");
	kp_sig_compute(a2, NULL, NULL, &sa2, &err);
	kp_sig_compute(a3, NULL, NULL, &sa3, &err);
	kp_sig_compute(b1, NULL, NULL, &sb1, &err);
	kp_sig_compute(c1, NULL, NULL, &sc1, &err);
	KT_STREQ(sa1.group_key, sa2.group_key, "group: same bug, other slide");
	KT_STREQ(sa1.exact_key, sa2.exact_key, "exact: same bug, same build, other slide");
	KT_STREQ(sa1.group_key, sa3.group_key, "group: same bug, other build");
	KT_CHECK(strcmp(sa1.exact_key, sa3.exact_key) != 0, "exact: other build differs");
	KT_CHECK(strcmp(sa1.group_key, sb1.group_key) != 0, "group: other bug in the same kext differs");
	KT_CHECK(strcmp(sa1.group_key, sc1.group_key) != 0, "group: other kext differs");
	KT_STREQ(sa1.culprit, "com.example.driver.Widget", "culprit: the non-Apple kext");
	KT_STREQ(sc1.culprit, "org.sample.kext.Gadget", "culprit of the other kext");
	KT_STREQ(sa1.headline, "Widget ring overflow: slot ADDR of NUM busy WidgetRing.cpp",
	         "normalised headline");
	KT_STREQ(sa1.frames,
	         "com.example.driver.Widget+0x1a2c | com.example.driver.Widget+0x1b40 | "
	         "com.example.driver.Widget+0x2f88 | com.example.driver.Widget+0x3004 | "
	         "com.example.driver.Widget+0x3120",
	         "unsymbolicated kernel panic path skipped, top 5 frames");
	KT_STREQ(sa1.title, "Widget ring overflow: slot ADDR of NUM busy WidgetRing.cpp (com.example.driver.Widget)",
	         "title");

	/* symbols: named machinery is skipped, kext frames become image!function */
	kp_sig sy1, sy3, sy_kern;
	kp_sig_compute(a1, fake_symbols, (void *)1, &sy1, &err);
	kp_sig_compute(a3, fake_symbols, (void *)1, &sy3, &err);
	KT_CHECK(strncmp(sy1.frames, "com.example.driver.Widget!Widget::fn_1a2c | ", 44) == 0,
	         "symbolicated frames: %s", sy1.frames);
	KT_STREQ(sy1.group_key, sy3.group_key, "symbolicated: same bug, other build");
	KT_CHECK(strcmp(sy1.group_key, sa1.group_key) != 0, "symbols change the group key");
	KT_STREQ(sy1.exact_key, sa1.exact_key, "symbols do not change the exact key");
	kp_sig_compute(a1, fake_symbols, NULL, &sy_kern, &err);
	KT_STREQ(sy_kern.frames, sa1.frames, "named machinery skipped like the unnamed panic path");

	/* a kernel-only backtrace keeps its kernel frames and blames the kernel */
	kp_report *real = NULL;
	kp_status ls = kp_report_load(KP_SHARED_DIR "/corpus/real/text-intel-vm-sonoma143-serial-zonerequire-1.txt",
	                              &real, &err);
	if (ls == KP_OK) {
		kp_sig sr;
		kp_sig_compute(real, NULL, NULL, &sr, &err);
		KT_CHECK(sr.culprit && strncmp(sr.culprit, "kernel", 6) == 0, "kernel-only culprit: %s",
		         sr.culprit ? sr.culprit : "(null)");
		KT_CHECK(sr.frames[0] != '\0', "kernel-only panic keeps frames: %s", sr.frames);
		kp_sig_free(&sr);
		kp_report_free(&real);
	} else {
		KT_SKIP("real corpus absent");
	}

	kp_sig *all[] = {&sa1, &sa2, &sa3, &sb1, &sc1, &sy1, &sy3, &sy_kern};
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		kp_sig_free(all[i]);
	kp_report_free(&a1);
	kp_report_free(&a2);
	kp_report_free(&a3);
	kp_report_free(&b1);
	kp_report_free(&c1);
	return kt_done();
}
