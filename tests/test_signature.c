/* test_signature.c: headline normalisation, machinery, culprit and keys. */
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

static void normalise(void)
{
	for (size_t i = 0; i < sizeof norm_cases / sizeof *norm_cases; i++) {
		char *got = kp_sig_normalize_headline(norm_cases[i].in);
		KT_STREQ(got, norm_cases[i].want, "normalise");
		free(got);
	}
	char *null_h = kp_sig_normalize_headline(NULL);
	KT_STREQ(null_h, "", "normalise NULL");
	free(null_h);
}

/* Headlines as a person would title them (issue 20): the first line, the
 * build root dropped from the call site, which stays. */
static void display(void)
{
	static const struct { const char *in, *want; } cases[] = {
		{"IOGMD: not wired for the IODMACommand@/BuildRoot/Library/Caches/com.apple.xbs/Sources/xnu/xnu-4903.201.2/iokit/Kernel/IOMemoryDescriptor.cpp:2337",
		 "IOGMD: not wired for the IODMACommand @IOMemoryDescriptor.cpp:2337"},
		{"nvme: \"Fatal error occurred. CSTS=0x1 US[1]=0x0 FW Revision=3L1QFXV7\\n\"@/System/Volumes/Data/SWE/macOS/BuildRoots/2288acc43c/Library/Caches/com.apple.xbs/Sources/IONVMeFamily/IONVMeFamily-557.100.13/Common/IONVMeController.cpp:5499",
		 "nvme: Fatal error occurred. CSTS=0x1 US[1]=0x0 FW Revision=3L1QFXV7 @IONVMeController.cpp:5499"},
		{"Machine Check at 0xffffff80002a0b2b, registers:\\n CR0: 0x000000008001003b, CR2: 0x00007fff5fc0e000\\n RAX: 0x0000000000000000@/SourceCache/xnu/xnu-2422/osfmk/i386/trap_native.c:168",
		 "Machine Check at 0xffffff80002a0b2b @trap_native.c:168"},
		{"panic(cpu 2 caller 0xfffffe001ececdf0): \"btn_rst\"", "btn_rst"},
		{"first line\nsecond line", "first line"},
		{"FakeDriver: report length 8192 exceeds buffer @FakeDriver.cpp:77",
		 "FakeDriver: report length 8192 exceeds buffer @FakeDriver.cpp:77"},
		{"  spaced   \t out  ", "spaced out"},
		/* issue 31 item 1: a call site without a path after a written
		 * newline, one escaped twice, one glued to the closing quote */
		{"nvme: \"Command timeout.\\n\" @IONVMeController.cpp:6090", "nvme: Command timeout. @IONVMeController.cpp:6090"},
		{"link down (ltssm 0x0=DETECT_QUIET)\\\\n @AppleT811xPCIePort.cpp:1644",
		 "link down (ltssm 0x0=DETECT_QUIET) @AppleT811xPCIePort.cpp:1644"},
		{"\"GPU hang\"@IntelAccelerator.cpp:7913", "GPU hang @IntelAccelerator.cpp:7913"},
		{"mail me @home: not a site", "mail me @home: not a site"},
	};
	char out[400];
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		kp_headline_display(cases[i].in, out, sizeof out);
		KT_STREQ(out, cases[i].want, "display headline");
	}
	kp_headline_display(NULL, out, sizeof out);
	KT_STREQ(out, "", "display headline of NULL");
	char small[8];
	kp_headline_display("ab\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", small, sizeof small);
	KT_STREQ(small, "ab\xc3\xa9\xc3\xa9", "display headline cut at a character boundary");
}

static void normalise_caps_length(void)
{
	char longh[1000];
	memset(longh, 'x', sizeof longh - 1);
	longh[sizeof longh - 1] = '\0';
	char *lh = kp_sig_normalize_headline(longh);
	KT_CHECK(lh && strlen(lh) == 240, "long headline capped at 240 (got %zu)", lh ? strlen(lh) : 0);
	free(lh);
}

static void machinery(void)
{
	KT_CHECK(kp_sig_is_machinery("_panic_trap_to_debugger + 0x1c"), "machinery with offset");
	KT_CHECK(kp_sig_is_machinery("panic"), "panic");
	KT_CHECK(kp_sig_is_machinery("DebuggerWithContext"), "Debugger*");
	KT_CHECK(kp_sig_is_machinery("panic_with_options_and_initiator"), "panic_with_options*");
	KT_CHECK(kp_sig_is_machinery("sleh_synchronous"), "sleh_synchronous");
	KT_CHECK(kp_sig_is_machinery("_Call_continuation"), "Call_continuation");
	KT_CHECK(!kp_sig_is_machinery("panicky"), "panicky is not machinery");
	KT_CHECK(!kp_sig_is_machinery("IOWorkLoop::runAction"), "IOWorkLoop is not machinery");
	KT_CHECK(!kp_sig_is_machinery(NULL), "NULL");
}

static void apple_ids(void)
{
	KT_CHECK(kp_sig_is_apple("com.apple.iokit.IOPCIFamily") && !kp_sig_is_apple("com.applex.y") &&
	         !kp_sig_is_apple("com.example.driver.Widget"), "Apple bundle ids");
}

/* Generated reports: a* one bug (incidents differ by slide and date; a3 on
 * another build), b1 another bug in the same kext, c1 another kext. */
enum { A1, A2, A3, B1, C1, NREPORTS };
static kp_report *rep[NREPORTS];

static void keys_unsymbolicated(void)
{
	kp_sig s[NREPORTS];
	kp_error err;
	for (int i = 0; i < NREPORTS; i++)
		KT_CHECK(kp_sig_compute(rep[i], NULL, NULL, &s[i], &err) == KP_OK, "compute %d", i);
	KT_STREQ(s[A1].group_key, s[A2].group_key, "group: same bug, other slide");
	KT_STREQ(s[A1].exact_key, s[A2].exact_key, "exact: same bug, same build, other slide");
	KT_STREQ(s[A1].group_key, s[A3].group_key, "group: same bug, other build");
	KT_CHECK(strcmp(s[A1].exact_key, s[A3].exact_key) != 0, "exact: other build differs");
	KT_CHECK(strcmp(s[A1].group_key, s[B1].group_key) != 0, "group: other bug in the same kext differs");
	KT_CHECK(strcmp(s[A1].group_key, s[C1].group_key) != 0, "group: other kext differs");
	KT_STREQ(s[A1].culprit, "com.example.driver.Widget", "culprit: the non-Apple kext");
	KT_STREQ(s[C1].culprit, "org.sample.kext.Gadget", "culprit of the other kext");
	KT_STREQ(s[A1].headline, "Widget ring overflow: slot ADDR of NUM busy WidgetRing.cpp",
	         "normalised headline");
	KT_STREQ(s[A1].frames,
	         "com.example.driver.Widget+0x1a2c | com.example.driver.Widget+0x1b40 | "
	         "com.example.driver.Widget+0x2f88 | com.example.driver.Widget+0x3004 | "
	         "com.example.driver.Widget+0x3120",
	         "unsymbolicated kernel panic path skipped, top 5 frames");
	KT_STREQ(s[A1].title, "Widget ring overflow: slot ADDR of NUM busy WidgetRing.cpp",
	         "title: the headline alone (the culprit is a column of its own)");
	KT_STREQ(s[A1].culprit, "com.example.driver.Widget", "culprit");
	for (int i = 0; i < NREPORTS; i++)
		kp_sig_free(&s[i]);
}

/* symbols: named machinery is skipped, kext frames become image!function */
static void keys_symbolicated(void)
{
	kp_sig plain, sy1, sy3, sy_kern;
	kp_error err;
	kp_sig_compute(rep[A1], NULL, NULL, &plain, &err);
	kp_sig_compute(rep[A1], fake_symbols, (void *)1, &sy1, &err);
	kp_sig_compute(rep[A3], fake_symbols, (void *)1, &sy3, &err);
	KT_CHECK(strncmp(sy1.frames, "com.example.driver.Widget!Widget::fn_1a2c | ", 44) == 0,
	         "symbolicated frames: %s", sy1.frames);
	KT_STREQ(sy1.group_key, sy3.group_key, "symbolicated: same bug, other build");
	KT_CHECK(strcmp(sy1.group_key, plain.group_key) != 0, "symbols change the group key");
	KT_STREQ(sy1.exact_key, plain.exact_key, "symbols do not change the exact key");
	kp_sig_compute(rep[A1], fake_symbols, NULL, &sy_kern, &err);
	KT_STREQ(sy_kern.frames, plain.frames, "named machinery skipped like the unnamed panic path");
	kp_sig *all[] = {&plain, &sy1, &sy3, &sy_kern};
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		kp_sig_free(all[i]);
}

/* a kernel-only backtrace keeps its kernel frames and blames the kernel */
static void kernel_only(void)
{
	kp_report *real = NULL;
	kp_error err;
	kp_status ls = kp_report_load(KP_REAL_DIR "/text-intel-vm-sonoma143-serial-zonerequire-1.txt",
	                              &real, &err);
	if (ls != KP_OK) {
		KT_SKIP("real corpus absent");
		return;
	}
	kp_sig sr;
	kp_sig_compute(real, NULL, NULL, &sr, &err);
	KT_CHECK(sr.culprit && strncmp(sr.culprit, "kernel", 6) == 0, "kernel-only culprit: %s",
	         sr.culprit ? sr.culprit : "(null)");
	KT_CHECK(sr.frames[0] != '\0', "kernel-only panic keeps frames: %s", sr.frames);
	kp_sig_free(&sr);
	kp_report_free(&real);
}

/* Issue 31 item 1: real reports whose message ends in a call site; the
 * headline shown and the group title keep it (file and line shown, file
 * alone in a title), never a stray backslash; the group key is the one the
 * normalisation always gave (file name in, line number out). */
static void real_call_sites(void)
{
	static const struct {
		const char *file, *shown, *title, *key_tail;
	} cases[] = {
		{"text-intel-monterey1261-mbp114-nvme-cmdtimeout-atsite-1.txt",
		 "nvme: 3rd party NVMe controller. Command timeout. Write. fBuiltIn=1 MODEL=CT1000P2SSD8 FW=P2CR048 "
		 "CSTS=0x1 US[1]=0x0 US[0]=0x1 VID=0xc0a9 DID=0x540a CRITICAL_WARNING=0x0. @IONVMeController.cpp:6090",
		 "nvme: 3rd party NVMe controller. Command timeout. Write. fBuiltIn=NUM MODEL=CT1000P2SSD8 FW=P2CR048 "
		 "CSTS=ADDR US[NUM]=ADDR US[NUM]=ADDR VID=ADDR DID=ADDR CRITICAL_WARNING=ADDR. @IONVMeController.cpp",
		 "\\n @IONVMeController.cpp:NUM"},
		{"text-m2-macos155-pcie-linkdown-escapednl-atsite-1.txt",
		 "apcie[2:lan-1gb]::_linkDownInterrupt: Unexpected link down linksts=0xa9000208 pcielint=0x00004000 "
		 "linkcdmsts=0x00000000 (ltssm 0x0=DETECT_QUIET) @AppleT811xPCIePort.cpp:1644",
		 "apcie[NUM:lan-1gb]::_linkDownInterrupt: Unexpected link down linksts=ADDR pcielint=ADDR "
		 "linkcdmsts=ADDR (ltssm ADDR=DETECT_QUIET) @AppleT811xPCIePort.cpp",
		 "\\\\n @AppleT811xPCIePort.cpp:NUM"},
		{"text-intel-hackintosh-bigsur-nvme-1.txt",
		 "nvme: Fatal error occurred. CSTS=0x1 US[1]=0x0 US[0]=0x379 VID=0x144d DID=0xa809 . FW "
		 "Revision=3L1QFXV7 @IONVMeController.cpp:5499",
		 "nvme: Fatal error occurred. CSTS=ADDR US[NUM]=ADDR US[NUM]=ADDR VID=ADDR DID=ADDR . FW "
		 "Revision=3L1QFXV7 @IONVMeController.cpp",
		 "\\n IONVMeController.cpp"},
		{"text-intel-monterey123-imac182-amdradeon-windowserver-1.txt",
		 "virtual bool IOAccelLegacyDisplayMachine::display_mode_did_change(uint32_t): AMDRadeonAccelerator "
		 "driver returns false @IOAccelLegacyDisplayMachine.cpp:267",
		 "virtual bool IOAccelLegacyDisplayMachine::display_mode_did_change(uint32_t): AMDRadeonAccelerator "
		 "driver returns false @IOAccelLegacyDisplayMachine.cpp:NUM",
		 "false @IOAccelLegacyDisplayMachine.cpp:NUM"},
		{"legacy-intel-1012-mbp121-machinecheck-mcapreamble-1.panic",
		 /* the key stops at 240 bytes, inside the register dump */
		 "Machine Check at 0x00007fff7dd40e93 @trap_native.c:168", "Machine Check at ADDR", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char path[512], shown[512];
		snprintf(path, sizeof path, "%s/%s", KP_REAL_DIR, cases[i].file);
		kp_report *r = NULL;
		kp_error err;
		if (kp_report_load(path, &r, &err) != KP_OK) {
			KT_SKIP("real report absent");
			continue;
		}
		kp_headline_display(r->headline, shown, sizeof shown);
		KT_STREQ(shown, cases[i].shown, cases[i].file);
		kp_sig s;
		if (kp_sig_compute(r, NULL, NULL, &s, &err) == KP_OK) {
			KT_STREQ(s.title, cases[i].title, "  its group title");
			const char *kt = cases[i].key_tail ? cases[i].key_tail : "";
			size_t hn = strlen(s.headline), tn = strlen(kt);
			KT_CHECK(hn >= tn && !strcmp(s.headline + hn - tn, kt),
			         "  its group key ends as before: ...%s", hn > 40 ? s.headline + hn - 40 : s.headline);
			kp_sig_free(&s);
		} else {
			KT_CHECK(false, "  signature computed: %s", err.msg);
		}
		kp_report_free(&r);
	}
}

int main(void)
{
	normalise();
	normalise_caps_length();
	display();
	real_call_sites();
	machinery();
	apple_ids();
	static const int gen[NREPORTS][3] = {[A1] = {0, 0, 1}, [A2] = {0, 0, 2}, [A3] = {0, 1, 3},
	                                     [B1] = {1, 0, 4}, [C1] = {2, 1, 5}};
	bool ok = true;
	for (int i = 0; i < NREPORTS; i++)
		ok &= (rep[i] = make(gen[i][0], gen[i][1], gen[i][2])) != NULL;
	KT_CHECK(ok, "generated reports parse");
	if (ok) {
		keys_unsymbolicated();
		keys_symbolicated();
	}
	kernel_only();
	for (int i = 0; i < NREPORTS; i++)
		kp_report_free(&rep[i]);
	return kt_done();
}
