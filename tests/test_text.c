/* test_text.c: the text parser on small synthetic reports, one per grammar
 * variant of panic-formats.md section 2, plus malformed and cut inputs. */
#include "kt.h"
#include "report_build.h"

#include <stdlib.h>

/* Parses exactly len bytes from a heap copy (no NUL after them), so ASan
 * catches any read past the end. */
static kp_status parse_n(const char *s, size_t len, kp_report **r, kp_error *e)
{
	char *buf = malloc(len ? len : 1);
	if (!buf)
		return KP_ERR_NOMEM;
	memcpy(buf, s, len);
	kp_status st = kp_report_parse(buf, len, "t.panic", r, e);
	free(buf);
	return st;
}

static kp_report *parse(const char *s)
{
	kp_report *r = NULL;
	kp_error e;
	if (parse_n(s, strlen(s), &r, &e) != KP_OK) {
		char b[300];
		printf("# parse failed: %s\n", kp_error_format(&e, b, sizeof b));
	}
	return r;
}

static const kp_thread *panicked(const kp_report *r)
{
	return kp_report_panicked_thread(r, NULL);
}

static const char *img_name(const kp_report *r, const kp_frame *f)
{
	return f->image >= 0 ? r->images[f->image].name : NULL;
}

static bool has_warning(const kp_report *r, const char *part)
{
	for (size_t i = 0; i < r->nwarnings; i++)
		if (strstr(r->warnings[i].msg, part))
			return true;
	return false;
}

static const char classic[] =
	"Anonymous UUID:       035B035B-B882-B427-C3BE-BC8C248E31E5\n"
	"\n"
	"Sat Jun 13 17:31:08 2015\n"
	"panic(cpu 0 caller 0xffffff8001e33bd4): \"Spinlock timed out: lock=0x1\"@/SourceCache/xnu/locks_i386.c:365\n"
	"Backtrace (CPU 0), Frame : Return Address\n"
	"0xffffff80e4ac8d00 : 0xffffff8001e22f79 \n"
	"0xffffff80e4ac8d80 : 0xffffff7f83c06023 \n"
	"0xffffff80e4ac8dc0 : 0xffffff7f80000010 \n"
	"      Kernel Extensions in backtrace:\n"
	"         com.apple.driver.AppleAHCIPort(3.0.5)[7F56F309-28C2-342A-82C0-3908C164EBCC]@0xffffff7f83bfc000->0xffffff7f83c15fff\n"
	"            dependency: com.apple.iokit.IOAHCIFamily(2.6.5)[AB2D7D6A-B59B-3039-AE08-CBCC38208911]@0xffffff7f82fd6000\n"
	"\n"
	"BSD process name corresponding to current thread: kernel_task\n"
	"\n"
	"Mac OS version:\n"
	"13E28\n"
	"\n"
	"Kernel version:\n"
	"Darwin Kernel Version 13.3.0: Tue Jun  3 21:27:35 PDT 2014; root:xnu-2422.110.17~1/RELEASE_X86_64\n"
	"Kernel UUID: bbfadd17-672b-35a2-9b7f-e4b12213e4b8\n"
	"Kernel slide:     0x0000000001c00000\n"
	"Kernel text base: 0xffffff8001e00000\n"
	"System model name: MacBookPro8,2 (Mac-94245A3940C91C80)\n"
	"\n"
	"System uptime in nanoseconds: 481431163814\n"
	"last loaded kext at 404725715736: com.apple.driver.AppleIntelMCEReporter\t104 (addr 0xffffff7f846e4000, size 49152)\n"
	"last unloaded kext at 362464468768: com.apple.driver.AppleUSBUHCI\t656.4.1 (addr 0xffffff7f82b1f000, size 65536)\n"
	"loaded kexts:\n"
	"com.wavtap.driver.WavTap\t0.4.0\n"
	"com.apple.driver.AppleAHCIPort\t3.0.5\n"
	"\n";

static void check_classic(const kp_report *r, const char *what)
{
	char w[64];
	snprintf(w, sizeof w, "%s: format", what);
	KT_CHECK(r && r->format == KP_FORMAT_TEXT, "%s", w);
	if (!r)
		return;
	KT_STREQ(r->headline, "Spinlock timed out: lock=0x1@/SourceCache/xnu/locks_i386.c:365", what);
	KT_STREQ(r->kernel_version,
	         "Darwin Kernel Version 13.3.0: Tue Jun  3 21:27:35 PDT 2014; root:xnu-2422.110.17~1/RELEASE_X86_64",
	         "kernel version on the next line");
	KT_STREQ(r->kernel_uuid, "BBFADD17-672B-35A2-9B7F-E4B12213E4B8", "kernel uuid canonical");
	KT_STREQ(r->os_version, "13E28", "Mac OS version on the next line");
	KT_STREQ(r->build, "13E28", "build");
	KT_STREQ(r->product, "MacBookPro8,2", "System model name");
	KT_STREQ(r->timestamp, "Sat Jun 13 17:31:08 2015", "old date line");
	KT_STREQ(r->panicked_process, "kernel_task", "BSD process name");
	KT_CHECK(!r->has_panicked_pid, "no pid in a classic report");
	KT_CHECK(r->addr_flags == (KP_HAS_KERNEL_SLIDE | KP_HAS_KERNEL_TEXT_BASE), "slide and text base flags");
	KT_U64EQ(r->kernel_slide, 0x1c00000, "kernel slide");
	KT_U64EQ(r->kernel_text_base, 0xffffff8001e00000ull, "text base");
	KT_STREQ(r->last_started_kext,
	         "com.apple.driver.AppleIntelMCEReporter\t104 (addr 0xffffff7f846e4000, size 49152)",
	         "last loaded kext");
	KT_STREQ(r->last_unloaded_kext,
	         "com.apple.driver.AppleUSBUHCI\t656.4.1 (addr 0xffffff7f82b1f000, size 65536)",
	         "last unloaded kext");
	KT_CHECK(r->nkexts == 2, "two loaded kexts (got %zu)", r->nkexts);
	if (r->nkexts == 2) {
		KT_STREQ(r->kexts[0].name, "com.wavtap.driver.WavTap", "kext 0 name");
		KT_STREQ(r->kexts[0].version, "0.4.0", "kext 0 version");
	}
	KT_CHECK(r->arch == KP_ARCH_X86_64, "arch x86_64");
	KT_CHECK(!r->truncated, "loaded kext list at the end: not truncated");
	KT_CHECK(r->nimages == 3, "AHCIPort, IOAHCIFamily, kernel (got %zu)", r->nimages);
	if (r->nimages == 3) {
		const kp_image *k = &r->images[0], *d = &r->images[1], *kern = &r->images[2];
		KT_STREQ(k->name, "com.apple.driver.AppleAHCIPort", "bt kext name");
		KT_STREQ(k->version, "3.0.5", "bt kext version");
		KT_STREQ(k->uuid, "7F56F309-28C2-342A-82C0-3908C164EBCC", "bt kext uuid");
		KT_CHECK(k->kind == 'X' && k->in_backtrace && !k->is_dependency, "bt kext flags");
		KT_CHECK(k->has_start && k->start == 0xffffff7f83bfc000ull && k->has_end &&
		         k->end == 0xffffff7f83c15fffull, "bt kext range");
		KT_CHECK(d->is_dependency && !d->in_backtrace && d->has_start && !d->has_end, "dependency");
		KT_CHECK(kern->kind == 'K', "kernel image kind");
		KT_STREQ(kern->name, "kernel", "kernel image name");
		KT_STREQ(kern->uuid, r->kernel_uuid, "kernel image uuid");
	}
	const kp_process *p = NULL;
	const kp_thread *t = kp_report_panicked_thread(r, &p);
	KT_CHECK(r->nprocesses == 1 && p == &r->processes[0] && t, "one panicked process");
	if (!t)
		return;
	KT_STREQ(p->name, "kernel_task", "process name");
	KT_CHECK(!p->has_pid, "process without pid");
	KT_CHECK(t->cpu == 0 && t->nframes == 3, "thread cpu 0, 3 frames (got %zu)", t->nframes);
	if (t->nframes != 3)
		return;
	KT_U64EQ(t->frames[0].address, 0xffffff8001e22f79ull, "frame 0 address");
	KT_STREQ(img_name(r, &t->frames[0]), "kernel", "frame 0 in the kernel");
	KT_U64EQ(t->frames[0].offset, 0x22f79, "kernel offset = RA - text base");
	KT_STREQ(img_name(r, &t->frames[1]), "com.apple.driver.AppleAHCIPort", "frame 1 in the kext");
	KT_U64EQ(t->frames[1].offset, 0xa023, "kext offset = RA - start");
	KT_CHECK(t->frames[2].image == -1 && !t->frames[2].has_offset && t->frames[2].has_address,
	         "frame below the kernel in no listed kext: address only");
	KT_CHECK(!strncmp(r->panic_string, "panic(cpu 0 caller", 18), "panic_string starts at panic(");
}

static void test_classic(void)
{
	kp_report *r = parse(classic);
	check_classic(r, "classic");
	kp_report_free(&r);

	/* The same with CRLF line ends and NUL bytes sprinkled in. */
	size_t n = strlen(classic);
	char *crlf = malloc(3 * n + 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (classic[i] == '\n')
			crlf[k++] = '\r';
		crlf[k++] = classic[i];
		if (i % 97 == 5)
			crlf[k++] = '\0';
	}
	kp_error e;
	KT_CHECK(parse_n(crlf, k, &r, &e) == KP_OK, "CRLF + NUL parses");
	check_classic(r, "CRLF + NUL");
	KT_CHECK(r && !strchr(r->headline, '\r') && !strchr(r->kernel_version, '\r'),
	         "no CR in fields");
	kp_report_free(&r);
	free(crlf);

	/* Every prefix of the report: no crash, no read past the end, and a
	 * report cut before its kext list is flagged truncated. */
	int bad = 0, cut_ok = 0;
	const char *kl = strstr(classic, "com.wavtap");
	for (size_t len = 1; len < n; len++) {
		kp_status st = parse_n(classic, len, &r, &e);
		/* a cut right after "panic(cpu N caller 0x…):" holds no message:
		 * no headline then (issue 31 item 3), never the cpu/caller part */
		size_t p0 = (size_t)(strstr(classic, "panic(") - classic), q = (size_t)(strstr(classic, "): \"") - classic);
		bool no_msg = len >= p0 + 6 && len <= q + 4;
		if (st == KP_OK && r->headline == NULL && !no_msg)
			bad++;
		if (st == KP_OK && classic + len < kl && strstr(r->panic_string ? r->panic_string : "", "panic("))
			cut_ok += r->truncated ? 1 : 0;
		kp_report_free(&r);
	}
	KT_CHECK(bad == 0, "every accepted prefix has a headline");
	size_t panic_at = (size_t)(strstr(classic, "panic(") - classic) + 6;
	KT_CHECK(cut_ok == (int)((size_t)(kl - classic) - panic_at),
	         "every cut between panic( and the kext list is truncated (%d)", cut_ok);

	const char *cut_points[] = { "Backtrace (CPU", "      Kernel Extensions", "Kernel version:", "loaded kexts:" };
	const char *why[] = { "Kernel version", "Kernel version", "Kernel version", "kext list" };
	for (int i = 0; i < 4; i++) {
		size_t len = (size_t)(strstr(classic, cut_points[i]) - classic);
		KT_CHECK(parse_n(classic, len, &r, &e) == KP_OK && r->truncated, "cut before \"%s\" is truncated",
		         cut_points[i]);
		KT_CHECK(r && has_warning(r, "report is truncated") && has_warning(r, why[i]),
		         "warning names what is missing (%s)", why[i]);
		kp_report_free(&r);
	}
}

static void test_tiger(void)
{
	kp_report *r = parse(
		"panic(cpu 1 caller 0x0019CADF): Unresolved kernel trap (CPU 1, Type 14=page fault), registers:\n"
		"CR0: 0x8001003b, CR2: 0x00000014, CR3: 0x0164d000, CR4: 0x000026a0\n"
		"\n"
		"Backtrace, Format - Frame : Return Address (4 potential args on stack) \n"
		"0x2585bb74 : 0x128b5e (0x3bc46c 0x2585bb98 0x131bbc 0x0) \n"
		"0x2585bc70 : 0x4cd64044 (0x4cd60048 0x7150010 0x10 0x25850010) \n"
		"0x2585bfd4 : 0x197b19 (0x0 0x0 0x4fc6030 0x7159600) Backtrace terminated-invalid frame pointer 0x0\n"
		"      Kernel loadable modules in backtrace (with dependencies):\n"
		"         com.apple.driver.AppleAirPortBrcm4311(103.2)@0x4cd3c000\n"
		"            dependency: com.apple.iokit.IONetworkingFamily(1.5.0)@0x3b7fb000\n"
		"\n"
		"Kernel version:\n"
		"Darwin Kernel Version 8.7.1: Wed Jun  7 16:19:56 PDT 2006; root:xnu-792.9.72.obj~2/RELEASE_I386\n"
		"\n"
		"Model: iMac4,1, BootROM IM41.0055.B02, 2 processors, Intel Core Duo, 1.83 GHz, 2 GB\n"
		"Graphics: ATI Radeon X1600, ATY,RadeonX1600, PCIe, 128 MB\n");
	KT_CHECK(r != NULL, "10.4 parses");
	if (!r)
		return;
	KT_STREQ(r->headline, "Unresolved kernel trap (CPU 1, Type 14=page fault)", "10.4 headline");
	KT_STREQ(r->product, "iMac4,1", "product from Model:");
	KT_CHECK(!r->truncated, "Model: block ends the report");
	KT_CHECK(r->arch == KP_ARCH_I386, "i386");
	KT_CHECK(r->nimages == 3 && r->images[0].uuid == NULL && !r->images[0].has_end, "no uuid, no end");
	const kp_thread *t = panicked(r);
	KT_CHECK(t && t->nframes == 3 && t->cpu == -1, "3 frames with args, CPU unknown");
	if (t && t->nframes == 3) {
		KT_U64EQ(t->frames[2].address, 0x197b19, "frame glued to 'Backtrace terminated'");
		KT_CHECK(t->frames[2].symbol == NULL, "'Backtrace terminated' is no symbol");
		KT_CHECK(t->frames[0].image == -1, "kernel frame without base: address only");
		KT_STREQ(img_name(r, &t->frames[1]), "com.apple.driver.AppleAirPortBrcm4311",
		         "no-end kext claims the frame just above its start");
		KT_U64EQ(t->frames[1].offset, 0x28044, "offset from the kext start");
	}
	kp_report_free(&r);
}

static void test_symbolicated_quotes(void)
{
	kp_report *r = parse(
		"panic(cpu 1 caller 0xffffff800af85b8f): \"vm_page_check: trying to add page\" "
		"\"from compressor object (0x1) to pageable queue\"@/xnu/osfmk/vm/vm_resident.c:7076\n"
		"Backtrace (CPU 1), Frame : Return Address\n"
		"0xffffff911638b230 : 0xffffff800aedab12 mach_kernel : _panic + 0xe2\n"
		"0xffffff911638b870 : 0xffffff7f8bd4c283 com.apple.iokit.IOHIDFamily : __ZN11IOHIDDevice20handleReportEv + 0x191\n"
		"0xffffff83c02cb970 : 0xffffff800acbf328 mach_kernel : _panic_with_thread_context\n"
		"      Kernel Extensions in backtrace:\n"
		"         com.apple.iokit.IOHIDFamily(2.0)[8D04EA14-CDE1-3B41-8571-153FF3F3F63B]@0xffffff7f8bd46000->0xffffff7f8bdbdfff\n"
		"\n"
		"BSD process name corresponding to current thread: Python\n");
	KT_CHECK(r != NULL, "symbolicated parses");
	if (!r)
		return;
	KT_STREQ(r->headline,
	         "vm_page_check: trying to add page from compressor object (0x1) to pageable queue@/xnu/osfmk/vm/vm_resident.c:7076",
	         "two adjacent quoted strings joined");
	KT_CHECK(r->truncated && has_warning(r, "Kernel version"), "cut after the process name");
	const kp_thread *t = panicked(r);
	KT_CHECK(t && t->nframes == 3, "3 frames");
	if (t && t->nframes == 3) {
		KT_STREQ(t->frames[0].symbol, "_panic", "kernel symbol without offset");
		KT_STREQ(t->frames[1].symbol, "__ZN11IOHIDDevice20handleReportEv", "kext symbol");
		KT_STREQ(t->frames[2].symbol, "_panic_with_thread_context", "symbol without + 0x");
		KT_STREQ(img_name(r, &t->frames[1]), "com.apple.iokit.IOHIDFamily", "kext frame mapped");
		/* no slide or text base: mach_kernel's frames are the kernel's by name, without an
		 * image offset, and keep the report's own "+ 0x.." */
		KT_STREQ(img_name(r, &t->frames[0]), "kernel", "mach_kernel frame: the kernel's");
		KT_STREQ(img_name(r, &t->frames[2]), "kernel", "mach_kernel frame without + 0x: the kernel's");
		KT_CHECK(!t->frames[0].has_offset, "  no image offset without a base");
		KT_CHECK(t->frames[0].has_symbol_offset && t->frames[0].symbol_offset == 0xe2,
		         "  the report's own + 0xe2 kept");
		KT_CHECK(t->frames[1].has_symbol_offset && t->frames[1].symbol_offset == 0x191 &&
		         !t->frames[1].report_kernel, "kext frame: its + 0x191 kept, not the kernel's");
		KT_CHECK(!t->frames[2].has_symbol_offset, "no + 0x: no symbol offset");
	}
	kp_report_free(&r);
}

/* Symbolicated frames with a Kernel UUID and no slide line: the kernel
 * image of those frames carries the UUID; no version line names the arch,
 * so the 64-bit kernel addresses say x86_64. */
static void test_symbolicated_kernel_uuid(void)
{
	kp_report *r = parse(
		"panic(cpu 0 caller 0xffffff8000220792): \"a symbolicated panic\"@/x/y.c:12\n"
		"Backtrace (CPU 0), Frame : Return Address\n"
		"0xffffff80ea44bc50 : 0xffffff8000220792 mach_kernel : _panic + 0xe2\n"
		"0xffffff80ea44bcd0 : 0xffffff80002e8e54 mach_kernel : _kernel_trap + 0x5a4\n"
		"\n"
		"Kernel UUID: 4C4C44EF-5555-3144-A1CD-413F9846D32A\n");
	KT_CHECK(r != NULL, "symbolicated with a UUID parses");
	if (!r)
		return;
	const kp_thread *t = panicked(r);
	KT_CHECK(t && t->nframes == 2 && t->frames[1].image >= 0 &&
	         r->images[t->frames[1].image].uuid &&
	         strcmp(r->images[t->frames[1].image].uuid, "4C4C44EF-5555-3144-A1CD-413F9846D32A") == 0,
	         "mach_kernel frames: the kernel image with its UUID");
	KT_CHECK(t && t->nframes == 2 && t->frames[1].symbol_offset == 0x5a4, "  + 0x5a4 kept");
	KT_CHECK(r->arch == KP_ARCH_X86_64, "no version line: arch x86_64 from the addresses (%s)",
	         kp_arch_name(r->arch));
	kp_report_free(&r);
}

/* PowerPC: "Backtrace:" then 0x words on one or more lines. */
static void test_ppc(void)
{
	kp_report *r = parse(
		"Sat Mar  1 10:00:00 2008\n"
		"panic(cpu 0 caller 0x002A5164): \"a PowerPC panic\"\n"
		"Latest stack backtrace for cpu 0:\n"
		"      Backtrace:\n"
		"0x0009B2F8 0x0009BC9C 0x00029DD8 0x002A5164 0x002E3AAC 0x002E3E08\n"
		"0x0029C0F0 0x00095834 0x00000000 \n"
		"Proceeding back via exception chain:\n"
		"   Exception state (sv=0x2DF4A500)\n"
		"      PC=0x00000000; MSR=0x0000D030; DAR=0x00000000; LR=0x00000000; R1=0x00000000\n"
		"\n"
		"Kernel version:\n"
		"Darwin Kernel Version 9.6.0: Mon Nov 24 17:39:01 PST 2008; root:xnu-1228.9.59~1/RELEASE_PPC\n");
	KT_CHECK(r != NULL, "ppc parses");
	if (!r)
		return;
	const kp_thread *t = panicked(r);
	KT_CHECK(t && t->nframes == 8, "ppc: 8 frames over two lines, the 0 word no frame (%zu)",
	         t ? t->nframes : 0);
	KT_CHECK(t && t->nframes == 8 && t->frames[0].address == 0x0009B2F8 && t->frames[7].address == 0x00095834,
	         "  first and last addresses");
	KT_CHECK(r->arch == KP_ARCH_PPC, "ppc: arch (%s)", kp_arch_name(r->arch));
	KT_STREQ(r->headline, "a PowerPC panic", "ppc: headline");
	kp_report_free(&r);
	/* one line, no version line: the form alone says ppc */
	r = parse("panic(cpu 0 caller 0x01BC80AC): \"one line\"\n"
	          "Backtrace: 0x01BC80AC 0x007A1D48 0x0029C0F0\n"
	          "BSD process name corresponding to current thread: kernel_task\n");
	t = r ? panicked(r) : NULL;
	KT_CHECK(t && t->nframes == 3 && t->frames[1].address == 0x007A1D48, "ppc one line: 3 frames");
	KT_CHECK(r && r->arch == KP_ARCH_PPC, "ppc one line, no version line: arch ppc (%s)",
	         r ? kp_arch_name(r->arch) : "-");
	kp_report_free(&r);
	/* "Backtrace:" followed by prose is not a frame block */
	r = parse("panic(cpu 0 caller 0x01BC80AC): \"prose\"\n"
	          "Backtrace: not available\n"
	          "Kernel version:\n"
	          "Darwin Kernel Version 10.8.0: x; root:xnu-1504.15.3~1/RELEASE_I386\n");
	KT_CHECK(r && kp_report_panicked_thread(r, NULL) == NULL && r->arch == KP_ARCH_I386,
	         "Backtrace: with prose: no frames, the version's arch");
	kp_report_free(&r);
}

static void test_arm64(void)
{
	kp_report *r = parse(
		"null\n"
		"Attempting to forcibly halt cpu 1\n"
		"cpu 1 failed to halt with error -5: halt not supported for this configuration\n"
		"panic(cpu 2 caller 0xfffffe00135220bc): Kernel data abort. at pc 0xfffffe001327947c, lr 0xfdc0fe00148e2af8 (saved state: 0xfffffe8820216e10)\n"
		"\t  x28: 0xfffffe281ea23750 fp:  0xfffffe88202171a0  lr:  0xfdc0fe00148e2af8  sp:  0xfffffe8820217160\n"
		"\n"
		"Debugger message: panic\n"
		"OS version: 22G91\n"
		"Kernel version: Darwin Kernel Version 22.6.0: Wed Jul  5 22:22:05 PDT 2023; root:xnu-8796.141.3~6/RELEASE_ARM64_T6000\n"
		"Fileset Kernelcache UUID: FB61321F4E98E49311ADEF1582F1A086\n"
		"Kernel UUID: E88B0B04-7B4D-3E52-8980-A19ED82304F7\n"
		"KernelCache slide: 0x000000000a960000\n"
		"KernelCache base:  0xfffffe0011964000\n"
		"Kernel slide:      0x000000000a968000\n"
		"Kernel text base:  0xfffffe001196c000\n"
		"Kernel text exec slide: 0x000000000bd40000\n"
		"Kernel text exec base:  0xfffffe0012d44000\n"
		"Panicked task 0xfffffe2cede14bb8: 3738 pages, 5 threads: pid 322: logd\n"
		"Panicked thread: 0xfffffe2cec6ab010, backtrace: 0xfffffe8820216590, tid: 5644055\n"
		"\t\t  lr: 0xfffffe0012d9a620  fp: 0xfffffe8820216610\n"
		"\t\t  lr: 0xfdc0fe00148e2af8  fp: 0xfffffe88202171a0\n"
		"\t\t  lr: 0x00120001002d0000  fp: 0xfffffe88202171a0\n"
		"\t\t  lr: 0xfffffe0012d4b7f8  fp:\n"
		"      Kernel Extensions in backtrace:\n"
		"         com.apple.iokit.EndpointSecurity(1.0)[CD740966-CA1C-31DA-8EBE-BFDFA49586A2]@0xfffffe00148b6d60->0xfffffe0014912a4b\n"
		"            dependency: com.apple.security.quarantine(4)[9FC2A021-C2D3-304F-8C8D-EACE8C9904CC]@0xfffffe00157d3570->0xfffffe00157dbc5b\n"
		"\n"
		"last started kext at 2419316759788: com.apple.filesystems.msdosfs\t1.10 (addr 0xfffffe00122b1780, size 5883)\n"
		"loaded kexts:\n"
		"com.apple.filesystems.msdosfs\t1.10\n"
		"\n"
		"** Stackshot Succeeded ** Bytes Traced 691328 (Uncompressed 1881680) **\n");
	KT_CHECK(r != NULL, "arm64 parses");
	if (!r)
		return;
	KT_STREQ(r->headline,
	         "Kernel data abort. at pc 0xfffffe001327947c, lr 0xfdc0fe00148e2af8 (saved state: 0xfffffe8820216e10)",
	         "arm64 headline");
	KT_CHECK(!strncmp(r->panic_string, "panic(cpu 2", 11), "noise before panic( is not in panic_string");
	KT_STREQ(r->os_version, "22G91", "OS version: same line");
	KT_STREQ(r->kernel_uuid, "E88B0B04-7B4D-3E52-8980-A19ED82304F7", "Kernel UUID, not the Fileset one");
	KT_CHECK(r->arch == KP_ARCH_ARM64, "arm64");
	KT_STREQ(r->soc, "T6000", "soc");
	KT_CHECK(r->addr_flags == 0x3f, "all six slide/base flags");
	KT_U64EQ(r->kernelcache_base, 0xfffffe0011964000ull, "KernelCache base");
	KT_U64EQ(r->kernel_text_exec_slide, 0xbd40000, "exec slide");
	KT_CHECK(r->has_panicked_task && r->panicked_task == 0xfffffe2cede14bb8ull, "panicked task");
	KT_CHECK(r->has_panicked_pid && r->panicked_pid == 322, "pid");
	KT_STREQ(r->panicked_process, "logd", "process from Panicked task");
	KT_CHECK(r->has_panicked_thread_id && r->panicked_thread_id == 5644055, "tid");
	KT_CHECK(!r->truncated, "stackshot line ends it");
	const kp_process *p = NULL;
	const kp_thread *t = kp_report_panicked_thread(r, &p);
	KT_CHECK(t && p && p->has_pid && p->pid == 322 && t->has_id && t->id == 5644055 && t->cpu == 2,
	         "process pid, thread id, cpu from panic(cpu 2");
	KT_CHECK(t && t->nframes == 4, "4 lr frames (the register dump's lr is not one)");
	if (t && t->nframes == 4) {
		KT_STREQ(img_name(r, &t->frames[0]), "kernel", "kernel frame");
		KT_U64EQ(t->frames[0].offset, 0x56620, "offset = lr - text exec base");
		KT_U64EQ(t->frames[1].address, 0xfffffe00148e2af8ull, "PAC bits stripped (bit 55 set)");
		KT_STREQ(img_name(r, &t->frames[1]), "com.apple.iokit.EndpointSecurity", "stripped lr in the kext");
		KT_U64EQ(t->frames[1].offset, 0x2bd98, "kext offset");
		KT_U64EQ(t->frames[2].address, 0x00000001002d0000ull, "bit 55 clear: top bits cleared");
		KT_CHECK(t->frames[2].image == -1, "user address below the kernel: none");
		KT_U64EQ(t->frames[3].address, 0xfffffe0012d4b7f8ull, "lr with empty fp");
	}
	kp_report_free(&r);
}

static void test_catalina_kexts(void)
{
	kp_report *r = parse(
		"panic(cpu 2 caller 0xffffff7f94a4fa8d): watchdog timeout: no checkins from watchdogd in 95 seconds\n"
		"Kernel version:\n"
		"Darwin Kernel Version 19.4.0: Wed Mar  4 22:28:40 PST 2020; root:xnu-6153.101.6~15/RELEASE_X86_64\n"
		"last loaded kext at 26005328678643: @filesystems.smbfs\t3.4.2 (addr 0xffffff7f9769e000, size 450560)\n"
		"last unloaded kext at 90141558004840: >!UAudio\t322.2 (addr 0xffffff7f975f1000, size 434176)\n"
		"loaded kexts:\n"
		"com.parallels.kext.vnic\t14.0.1 45154\n"
		"as.vit9696.!AALC\t1.4.7\n"
		"\n"
		">!AHDA\t283.15\n"
		"|IO!BSerialManager\t7.0.4f6\n"
		"$!AImage4\t1\n"
		"@kec.pthread\t1\n"
		">|IOUserEthernet\t1.0.1\n"
		">!ASMBus!C\t1.0.18d1\n"
		"|IO!S!F\t2.1\n"
		">!A!IKBLGraphics\t14.0.5\n"
		">!Zoo\t1\n"
		"\n"
		"EOF\n"
		"Model: Macmini8,1, BootROM 1037.100.362.0.0, 6 processors\n");
	KT_CHECK(r != NULL, "abbreviated list parses");
	if (!r)
		return;
	static const char *const want[][2] = {
		{ "com.parallels.kext.vnic", "14.0.1 45154" },
		{ "as.vit9696.AppleALC", "1.4.7" },
		{ "com.apple.driver.AppleHDA", "283.15" },
		{ "com.apple.iokit.IOBluetoothSerialManager", "7.0.4f6" },
		{ "com.apple.security.AppleImage4", "1" },
		{ "com.apple.kec.pthread", "1" },
		{ "com.apple.iokit.IOUserEthernet", "1.0.1" },
		{ "com.apple.driver.AppleSMBusController", "1.0.18d1" },
		{ "com.apple.iokit.IOStorageFamily", "2.1" },
		{ "com.apple.driver.AppleIntelKBLGraphics", "14.0.5" },
		{ "com.apple.driver.!Zoo", "1" },
	};
	size_t nw = sizeof want / sizeof want[0];
	KT_CHECK(r->nkexts == nw, "list continues across one blank line, stops at EOF (%zu)", r->nkexts);
	for (size_t i = 0; i < nw && i < r->nkexts; i++) {
		KT_STREQ(r->kexts[i].name, want[i][0], "expanded name");
		KT_STREQ(r->kexts[i].version, want[i][1], "version");
	}
	KT_STREQ(r->last_started_kext, "com.apple.filesystems.smbfs\t3.4.2 (addr 0xffffff7f9769e000, size 450560)",
	         "last loaded kext expanded");
	KT_STREQ(r->last_unloaded_kext, "com.apple.driver.AppleUSBAudio\t322.2 (addr 0xffffff7f975f1000, size 434176)",
	         "last unloaded kext expanded");
	KT_STREQ(r->product, "Macmini8,1", "Model: product");
	KT_CHECK(!r->truncated, "EOF ends it");
	KT_CHECK(r->nprocesses == 0, "no backtrace, no process");
	kp_report_free(&r);
}

static void test_newest(void)
{
	kp_report *r = parse(
		"panic(cpu 0 caller 0xfffffe004153cfdc): watchdog timeout: no checkins from watchdogd in 94 seconds\n"
		"Kernel version: Darwin Kernel Version 25.6.0: Fri Jul 31 19:16:20 PDT 2026; root:xnu-12377.161.14~5/RELEASE_ARM64_T8142\n"
		"Kernel text exec base:  0xfffffe00441b0000\n"
		"Panicked task 0xf4fffe2402035c88: 0 pages, 623 threads: pid 0: kernel_task\n"
		"Panicked thread: 0xf4fffe186a31e560, backtrace: 0xfffffebfcc0076d0, tid: 562\n"
		"\t\t  lr: 0xfffffe00441b5ee4  fp: 0xfffffebfcc0078b0\n"
		"last started kext at 350323437: com.apple.filesystems.autofs\t3.0 (addr 0xfffffe0040724b80, size 5927)\n"
		"loaded kexts: (skipped, see boot kernelcache)\n");
	KT_CHECK(r && r->kexts_skipped && r->nkexts == 0 && !r->truncated, "kexts skipped ends the report");
	const kp_thread *t = r ? panicked(r) : NULL;
	KT_CHECK(t && t->nframes == 1 && t->frames[0].offset == 0x5ee4, "section 3's hand-checked frame: off 0x5ee4");
	KT_CHECK(r && r->has_panicked_pid && r->panicked_pid == 0 && r->processes[0].has_pid, "pid 0 is a pid");
	kp_report_free(&r);
}

static void test_no_panic_line(void)
{
	kp_report *r = parse("Unexpected SoC (system) watchdog reset occurred during sleep/wake transition");
	KT_CHECK(r != NULL, "bridgeOS-style panic string without panic( is accepted");
	if (r) {
		KT_STREQ(r->headline, "Unexpected SoC (system) watchdog reset occurred during sleep/wake transition",
		         "first line is the headline");
		KT_STREQ(r->panic_string, "Unexpected SoC (system) watchdog reset occurred during sleep/wake transition",
		         "panic_string from the first meaningful line");
		KT_CHECK(!r->truncated && r->nprocesses == 0, "nothing to be truncated");
		KT_CHECK(r->nimages == 1 && r->images[0].kind == 'K' && r->images[0].uuid == NULL,
		         "a kernel image even without uuid");
	}
	kp_report_free(&r);

	r = parse("\n\n   \n**panic(cpu 0 caller 0x1): \"x \x1b[31mred\x1b[0m  y\"@f.c:1**\n");
	KT_STREQ(r ? r->headline : NULL, "x \x1b[31mred\x1b[0m y@f.c:1", "markdown bold cut, escapes kept verbatim");
	KT_CHECK(r && r->truncated, "a lone panic line is truncated");
	kp_report_free(&r);

	r = parse("\xEF\xBB\xBF" "bom watchdog reset\n");
	KT_STREQ(r ? r->headline : NULL, "bom watchdog reset", "byte order mark skipped");
	kp_report_free(&r);
}

static void test_multiline_and_blocks(void)
{
	kp_report *r = parse(
		"panic(cpu 6 caller 0xffffff8014ac2838): nvme: \"Fatal error occurred. DID=0xa809\n"
		". FW Revision=3L1QFXV7\\n\"@/IONVMeController.cpp:5499\n"
		"Backtrace (CPU 5), Frame : Return Address\n"
		"0xffffffb08181b960 : 0xffffff8000300000\n"
		"Backtrace (CPU 6), Frame : Return Address\n"
		"0xffffffb08181b960 : 0xffffff8000300010\n"
		"0xffffffb08181b960 : 0xffffff8000300020\n"
		"Backtrace (CPU 1), panicked thread: 0xffffff99e0a44000, Frame : Return Address\n"
		"0xffffffb08181b960 : 0xffffff8000300030\n"
		"\n"
		"Process name corresponding to current thread: kernel_task (0xffffff99e0a44000)\n"
		"Kernel version:\n"
		"Darwin Kernel Version 20.4.0: Fri Mar  5 01:14:14 PST 2021; root:xnu-7195.101.1~3/RELEASE_X86_64\n"
		"Kernel UUID: xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx\n"
		"Kernel slide:      0x0000000000100000\n"
		"** In Memory Panic Stackshot Succeeded ** Bytes Traced 359065 **\n");
	KT_CHECK(r != NULL, "multi-block parses");
	if (!r)
		return;
	KT_STREQ(r->headline,
	         "nvme: \"Fatal error occurred. DID=0xa809 . FW Revision=3L1QFXV7\\n\"@/IONVMeController.cpp:5499",
	         "message continued while a quote is open");
	KT_STREQ(r->panicked_process, "kernel_task", "macOS 11 process name form");
	KT_CHECK(r->kernel_uuid == NULL && has_warning(r, "not a UUID"), "xxxx uuid: NULL and a warning");
	KT_CHECK(!r->truncated, "in-memory stackshot line ends it");
	KT_CHECK(r->nprocesses == 1 && r->processes[0].nthreads == 3, "three blocks, three threads");
	const kp_thread *t = panicked(r);
	KT_CHECK(t == &r->processes[0].threads[2] && t->cpu == 1, "the block named panicked wins over panic(cpu 6");
	if (r->nprocesses == 1 && r->processes[0].nthreads == 3) {
		const kp_frame *f = &r->processes[0].threads[1].frames[1];
		KT_STREQ(img_name(r, f), "kernel", "slide only: kernel frame");
		KT_U64EQ(f->offset, 0xffffff8000300020ull - (0xffffff8000200000ull + 0x100000), "offset via link base + slide");
	}
	kp_report_free(&r);

	r = parse("panic(cpu 6 caller 0x1): x\n"
	          "Backtrace (CPU 5), Frame : Return Address\n0x1 : 0x2\n"
	          "Backtrace (CPU 6), Frame : Return Address\n0x1 : 0x3\n"
	          "Process name corresponding to current thread (0xffffff99e0a44000): WindowServer\n");
	t = r ? panicked(r) : NULL;
	KT_CHECK(t && t->cpu == 6 && t->frames[0].address == 3, "else the block of the panic CPU");
	KT_STREQ(r ? r->panicked_process : NULL, "WindowServer", "macOS 12 process name form");
	kp_report_free(&r);
}

static void test_malformed(void)
{
	kp_report *r = NULL;
	kp_error e;
	KT_CHECK(parse_n(" \n\t\r\n  ", 7, &r, &e) == KP_ERR_FORMAT && r == NULL, "only whitespace: format error");
	KT_CHECK(parse_n("null\n", 5, &r, &e) == KP_ERR_FORMAT, "only noise: format error");

	const char readme[] = "# kpbrowse\n\nA terminal browser.\n\n## Build\n\n    cmake -S . -B build\n";
	KT_CHECK(parse_n(readme, sizeof readme - 1, &r, &e) == KP_ERR_FORMAT, "README: format error");
	KT_CHECK(e.line == 1 && e.byte == 0, "error at the first line (line %ld byte %ld)", e.line, e.byte);

	unsigned char bin[4096];
	uint32_t x = 12345;
	for (size_t i = 0; i < sizeof bin; i++) {
		x = x * 1103515245u + 12345u;
		bin[i] = (unsigned char)(x >> 24);
	}
	bin[0] = '\n';
	bin[1] = 'A';
	kp_status st = parse_n((const char *)bin, sizeof bin, &r, &e);
	KT_CHECK(st == KP_ERR_FORMAT, "binary garbage: format error (%d)", (int)st);
	KT_CHECK(e.line == 2 && e.byte == 1, "position of the first content (line %ld byte %ld)", e.line, e.byte);
	kp_report_free(&r);

	/* Positions are relative to line0/byte0 for embedded text. */
	kp_report *er = kp__report_new("x.ips");
	KT_CHECK(kp__text_parse(er, "\n\nnot yet set", 12, 40, 1000, &e) == KP_ERR_FORMAT &&
	         e.line == 42 && e.byte == 1002, "embedded error at line0+2, byte0+2 (%ld, %ld)", e.line, e.byte);
	kp_report_free(&er);
}

static void test_keeps_json_fields(void)
{
	kp_report *r = kp__report_new("x.ips");
	r->format = KP_FORMAT_IPS;
	r->kernel_version = kp__strdup(r, "from json");
	r->panic_string = kp__strdup(r, "json panic string");
	r->os_version = kp__strdup(r, "macOS 13.5.2 (22G91)");
	kp_image *k = kp__add_image(r);
	k->kind = 'T';
	k->uuid = kp__strdup(r, "E88B0B04-7B4D-3E52-8980-A19ED82304F7");
	kp_image *es = kp__add_image(r);
	es->kind = 'T';
	es->uuid = kp__strdup(r, "CD740966-CA1C-31DA-8EBE-BFDFA49586A2");
	kp_process *p = kp__add_process(r);
	p->name = kp__strdup(r, "from json");
	const char txt[] =
		"panic(cpu 0 caller 0x1): Kernel data abort.\n"
		"OS version: 22G91\n"
		"Kernel version: Darwin Kernel Version 22.6.0: x; root:xnu~6/RELEASE_ARM64_T6000\n"
		"Kernel UUID: E88B0B04-7B4D-3E52-8980-A19ED82304F7\n"
		"Panicked thread: 0xfffffe2cec6ab010, backtrace: 0xfffffe8820216590, tid: 7\n"
		"\t\t  lr: 0xfffffe0012d9a620  fp: 0xfffffe8820216610\n"
		"      Kernel Extensions in backtrace:\n"
		"         com.apple.iokit.EndpointSecurity(1.0)[CD740966-CA1C-31DA-8EBE-BFDFA49586A2]@0xfffffe00148b6d60->0xfffffe0014912a4b\n"
		"** Stackshot Succeeded **\n";
	kp_error e;
	KT_CHECK(kp__text_parse(r, txt, sizeof txt - 1, 30, 500, &e) == KP_OK, "embedded text parses");
	KT_STREQ(r->kernel_version, "from json", "kernel_version kept");
	KT_STREQ(r->panic_string, "json panic string", "panic_string kept");
	KT_STREQ(r->os_version, "macOS 13.5.2 (22G91)", "os_version kept");
	KT_STREQ(r->headline, "Kernel data abort.", "headline filled");
	KT_CHECK(r->nprocesses == 1 && r->processes[0].nthreads == 0, "no threads added to JSON processes");
	KT_CHECK(r->nimages == 2, "kext and kernel matched by uuid, nothing added (%zu)", r->nimages);
	KT_STREQ(r->images[0].name, "kernel", "kernel image named");
	KT_CHECK(r->images[0].kind == 'T', "kernel image kind kept");
	KT_STREQ(r->images[1].name, "com.apple.iokit.EndpointSecurity", "json image named from text");
	KT_CHECK(r->images[1].in_backtrace && r->images[1].has_start && r->images[1].has_end, "range set");
	kp_report_free(&r);
}

/* Issue 14 item 8: what real users paste. */
static void test_pasted_variants(void)
{
	/* the leading "panic" word lost; "last stopped kext" */
	kp_report *r = parse("(cpu 0 caller 0xffffff80002c4b2a): \"Kernel trap at 0xffffff7f80e52a76, type 14=page fault\"@/x/trap.c:331\n"
	                     "Backtrace (CPU 0), Frame : Return Address\n"
	                     "0xffffff80bf3bbc40 : 0xffffff8000220702 \n"
	                     "last stopped kext at 4912345678: com.example.Foo\t1.2 (addr 0xffffff7f80e50000, size 16384)\n"
	                     "Kernel version:\nDarwin Kernel Version 10.8.0: x; root:xnu-1504.15.3~1/RELEASE_X86_64\n");
	KT_CHECK(r != NULL, "bare (cpu ...) line parses");
	if (r) {
		KT_CHECK(r->headline && strncmp(r->headline, "Kernel trap at 0xffffff7f80e52a76, type 14=page fault", 53) == 0,
		         "bare (cpu ...) line: the headline is the message (%s)", r->headline ? r->headline : "");
		KT_CHECK(r->last_unloaded_kext && strncmp(r->last_unloaded_kext, "com.example.Foo", 15) == 0,
		         "last stopped kext is the last unloaded one");
		KT_CHECK(r->nprocesses == 1 && r->processes[0].nthreads == 1, "bare (cpu ...) line: its backtrace read");
	}
	kp_report_free(&r);
	/* no version line names the arch: the kernel addresses do */
	r = parse("panic(cpu 1 caller 0xffffff800ab12345): \"x\"@/a.c:1\n"
	          "Backtrace (CPU 1), Frame : Return Address\n"
	          "0xffffff91e0b3bc40 : 0xffffff800ab12345 \n0xffffff91e0b3bca0 : 0xffffff7f8c0d1e2f \n");
	KT_CHECK(r && r->arch == KP_ARCH_X86_64, "arch from x86_64 kernel addresses (%s)", r ? kp_arch_name(r->arch) : "");
	kp_report_free(&r);
	r = parse("panic(cpu 0 caller 0x0035f1a4): \"y\"@/b.c:2\n"
	          "Backtrace (CPU 0), Frame : Return Address (4 potential args on stack)\n"
	          "0x3e28bb38 : 0x12b4c6 (0x45b82c 0x3e28bb6c 0x133243 0x0)\n0x3e28bb88 : 0x1a8c8a (0x46280c 0x0 0xe 0x46202c)\n");
	KT_CHECK(r && r->arch == KP_ARCH_I386, "arch from 32-bit kernel addresses (%s)", r ? kp_arch_name(r->arch) : "");
	kp_report_free(&r);
	r = parse("panic(cpu 0 caller 0x1): \"z\"\nKernel version:\nDarwin Kernel Version 8.11.0: Wed Oct 10 18:26:00 PDT 2007; root:xnu-792.24.17~1/RELEASE_PPC\n");
	KT_CHECK(r && r->arch == KP_ARCH_PPC && strcmp(kp_arch_name(r->arch), "ppc") == 0, "RELEASE_PPC: arch ppc");
	kp_report_free(&r);
	/* header OS version newer than the body's build */
	const char *upd = "{\"bug_type\":\"210\",\"os_version\":\"macOS 14.2 (23C64)\"}\n"
	                  "{\"build\":\"macOS 14.1 (23B74)\",\"panicString\":\"panic(cpu 0 caller 0x1): x\"}";
	kp_error err;
	r = NULL;
	kp_report_parse(upd, strlen(upd), "u.ips", &r, &err);
	bool warned = false;
	for (size_t i = 0; r && i < r->nwarnings; i++)
		warned |= strstr(r->warnings[i].msg, "(23C64)") && strstr(r->warnings[i].msg, "(23B74)");
	KT_CHECK(r && strcmp(r->build, "macOS 14.1 (23B74)") == 0 && strcmp(r->os_version, "macOS 14.1 (23B74)") == 0 &&
	         warned, "after an OS update: build and os_version are the body's, a warning names the header's too");
	kp_report_free(&r);
}

/* Issue 31 item 3: headlines where posters and old kernels put them.  No
 * public report file found shows these forms whole, so each text below is
 * reconstructed from the format: a 32-bit kernel's message on the line
 * after its panic line, a paste that lost the first letters of "panic(",
 * a poster's separator lines.  The "Debugger..." lines are those a KVM
 * guest's serial console printed before its panic line (github
 * Leoyzen/KVM-Opencore issue 1, a comment seen only as an excerpt).  The
 * headline is the message, never a separator line or a cpu/caller prefix. */
static void test_headline_places(void)
{
	static const char trap[] = "Kernel trap at 0x0035f1a4, type 14=page fault";
	kp_report *r = parse("panic(cpu 1 caller 0x0019CADF): \n"
	                     "Kernel trap at 0x0035f1a4, type 14=page fault, registers:\n"
	                     "CR0: 0x8001003b, CR2: 0x00000014, CR3: 0x0164d000, CR4: 0x000026a0\n"
	                     "Backtrace (CPU 1), Frame : Return Address (4 potential args on stack)\n"
	                     "0x3e28bb38 : 0x12b4c6 (0x45b82c 0x3e28bb6c 0x133243 0x0)\n");
	KT_STREQ(r ? r->headline : NULL, trap, "32-bit era: the message on the line after the panic line");
	kp_report_free(&r);
	r = parse("panic(cpu 0 caller 0x001A8CEC):\n"
	          "\n"
	          "\"vnode_rele_ext: vp 0x7a1b2c3 kusecount(0) out of balance\"@/SourceCache/xnu/xnu-1228.15.4/bsd/vfs/vfs_subr.c:1748\n"
	          "Backtrace (CPU 0), Frame : Return Address (4 potential args on stack)\n"
	          "0x3e28bb38 : 0x12b4c6 (0x45b82c 0x3e28bb6c 0x133243 0x0)\n");
	KT_STREQ(r ? r->headline : NULL,
	         "vnode_rele_ext: vp 0x7a1b2c3 kusecount(0) out of balance@/SourceCache/xnu/xnu-1228.15.4/bsd/vfs/vfs_subr.c:1748",
	         "32-bit era: a quoted message after a blank line");
	kp_report_free(&r);
	r = parse("panic(cpu 0 caller 0x001A8CEC): \n"
	          "Backtrace (CPU 0), Frame : Return Address (4 potential args on stack)\n"
	          "0x3e28bb38 : 0x12b4c6 (0x45b82c 0x3e28bb6c 0x133243 0x0)\n");
	KT_CHECK(r && !r->headline, "no message anywhere: no headline, never the cpu/caller prefix (%s)",
	         r && r->headline ? r->headline : "");
	kp_report_free(&r);
	static const char *const lost[] = {"anic(", "nic(", "ic(", "c("};
	for (size_t i = 0; i < sizeof lost / sizeof *lost; i++) {
		char text[600];
		snprintf(text, sizeof text,
		         "Debugger: Unexpected kernel trap number: 0x0, RIP: 0xffffff800e7af218, CR2: 0x0\n"
		         "CPU 0 panic trap number 0x0, rip 0xffffff800e7af218\n"
		         "Debugger called: <panic>\n"
		         "%scpu 0 caller 0xffffff800e7c58f6): Kernel trap at 0xffffff800e7af218, type 0=divide error, registers:\n"
		         "Backtrace (CPU 0), Frame : Return Address\n"
		         "0xffffff800e59a860 : 0xffffff800e6bd8cd \n",
		         lost[i]);
		r = parse(text);
		KT_STREQ(r ? r->headline : NULL, "Kernel trap at 0xffffff800e7af218, type 0=divide error",
		         lost[i]);
		KT_CHECK(r && r->preamble && !strncmp(r->preamble, "Debugger: Unexpected kernel trap", 32) &&
		         strstr(r->preamble, "Debugger called: <panic>"), "  the Debugger lines before it kept");
		kp_report_free(&r);
	}
	r = parse("--------------------------------------------------\n"
	          "==================\n"
	          "watchdog timeout: no checkins from watchdogd in 90 seconds\n"
	          "Kernel version:\nDarwin Kernel Version 21.3.0: x; root:xnu-8019.80.24~20/RELEASE_ARM64_T8101\n");
	KT_STREQ(r ? r->headline : NULL, "watchdog timeout: no checkins from watchdogd in 90 seconds",
	         "separator lines before a report without a panic line are no headline");
	kp_report_free(&r);
	r = parse("-----\npanic(cpu 2 caller 0xfffffe0013823d64): \"x happened\" @X.cpp:1\n"
	          "Kernel version:\nDarwin Kernel Version 21.3.0: x; root:xnu-8019.80.24~20/RELEASE_ARM64_T8101\n");
	KT_CHECK(r && r->preamble == NULL, "a separator line alone is no preamble");
	kp_report_free(&r);
}

int main(void)
{
	test_headline_places();
	test_pasted_variants();
	test_classic();
	test_tiger();
	test_symbolicated_quotes();
	test_symbolicated_kernel_uuid();
	test_ppc();
	test_arm64();
	test_catalina_kexts();
	test_newest();
	test_no_panic_line();
	test_multiline_and_blocks();
	test_malformed();
	test_keeps_json_fields();
	return kt_done();
}
