/* test_corpus_text.c: every text report of tests/real (real reports, MANIFEST.tsv) against
 * values read off the files by hand (and grep), not off the parser. */
#include "kt_slurp.h"
#include "kt.h"
#include "kp_report.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>

typedef struct bt_kext {
	const char *name;
	const char *uuid;         /* NULL: the entry has none */
	uint64_t start, end;      /* end 0: start only */
} bt_kext;

typedef struct expect {
	const char *file;
	const char *kernel_uuid;
	const char *headline;
	const char *os_version;
	const char *kv_prefix;    /* NULL: no Kernel version */
	const char *process;
	int nbt;
	bt_kext bt[3];
	int nthreads, nframes;
	uint64_t first;
	const char *first_image;  /* NULL: no image claims it */
	bool truncated;
	int nkexts;
} expect;

static const expect cases[] = {
	{ "legacy-intel32-tiger1047-imac41-airport-pagefault-1.panic", NULL,
	  "Unresolved kernel trap (CPU 1, Type 14=page fault)", NULL, "Darwin Kernel Version 8.7.1:", NULL,
	  1, { { "com.apple.driver.AppleAirPortBrcm4311", NULL, 0x4cd3c000, 0 } },
	  1, 16, 0x128b5e, NULL, false, 0 },
	{ "legacy-intel-109-mbp82-ahci-spinlock-1.panic", "BBFADD17-672B-35A2-9B7F-E4B12213E4B8",
	  "Spinlock acquisition timed out: lock=0xffffff80024ca528, lock owner thread=0xffffff8016c3b450, "
	  "current_thread: 0xffffff80147bab20, lock owner active on CPU 0x3, current owner: "
	  "0xffffff8016c3b450@/SourceCache/xnu/xnu-2422.110.17/osfmk/i386/locks_i386.c:365",
	  "13E28", "Darwin Kernel Version 13.3.0:", "kernel_task",
	  1, { { "com.apple.driver.AppleAHCIPort", "7F56F309-28C2-342A-82C0-3908C164EBCC", 0xffffff7f83bfc000,
	         0xffffff7f83c15fff } },
	  1, 13, 0xffffff8001e22f79, "kernel", false, 120 },
	{ "legacy-intel-10114-iohidfamily-vmpage-python-1.panic", NULL,
	  "vm_page_check_pageable_safe: trying to add page from compressor object (0xffffff800b6c35f0) to "
	  "pageable queue@/Library/Caches/com.apple.xbs/Sources/xnu/xnu-3248.40.184/osfmk/vm/vm_resident.c:7076",
	  NULL, NULL, "Python",
	  1, { { "com.apple.iokit.IOHIDFamily", "8D04EA14-CDE1-3B41-8571-153FF3F3F63B", 0xffffff7f8bd46000,
	         0xffffff7f8bdbdfff } },
	  /* "mach_kernel : _panic + 0xe2" with no slide line: the kernel's by name */
	  1, 20, 0xffffff800aedab12, "kernel", true, 0 },
	{ "legacy-intel-1013-mbp113-nvidiaweb-threadinvoke-1.panic", "1B55340B-0B14-3026-8A47-1E139DB63DA3",
	  "thread_invoke: preemption_level 1, possible cause: blocking while holding a spinlock, or within "
	  "interrupt context@/BuildRoot/Library/Caches/com.apple.xbs/Sources/xnu/xnu-4570.51.1/osfmk/kern/sched_prim.c:2231",
	  "17E199", "Darwin Kernel Version 17.5.0:", "kernel_task",
	  2, { { "com.nvidia.web.NVDAResmanWeb", "732647D4-EFC4-3E75-9618-B96D61BE214C", 0xffffff7f99b90000,
	         0xffffff7f9a208fff },
	       { "com.nvidia.web.NVDAGK100HalWeb", "BC0C27F0-12AF-36CA-AC52-ACD84F718B30", 0xffffff7f9a907000,
	         0xffffff7f9aa64fff } },
	  1, 23, 0xffffff801926e166, "kernel", false, 134 },
	{ "legacy-intel-1014-iousbfamily-iogmd-userclient-1.panic", NULL,
	  "IOGMD: not wired for the IODMACommand@/BuildRoot/Library/Caches/com.apple.xbs/Sources/xnu/"
	  "xnu-4903.201.2/iokit/Kernel/IOMemoryDescriptor.cpp:2337",
	  NULL, NULL, NULL,
	  1, { { "com.apple.iokit.IOUSBFamily", "B3A7BE9C-2002-3891-B7D1-A84CEA0AC9E0", 0xffffff7f9838c000,
	         0xffffff7f98426fff } },
	  1, 19, 0xffffff80173aca1d, "kernel", true, 0 },
	{ "panicstring-applesilicon-t8142-macos266-watchdog-kextsskipped-1.txt",
	  "447D769E-1CB7-3086-A0B4-32226837B587",
	  "watchdog timeout: no checkins from watchdogd in 94 seconds (1536 total checkins since monitoring last enabled)",
	  "25G83", "Darwin Kernel Version 25.6.0:", "kernel_task",
	  2, { { "com.apple.driver.AppleInterruptControllerV3", "17E37838-AA51-37A2-B605-871825C22626",
	         0xfffffe00420086a0, 0xfffffe004200cb13 },
	       { "com.apple.driver.AppleARMWatchdogTimer", "BDBB2E95-0C68-3FC0-9B7F-0DB0514437BC",
	         0xfffffe00415372a0, 0xfffffe004153d093 } },
	  1, 17, 0xfffffe0044208438, "kernel", false, 0 },
	{ "text-intel-1015-hackintosh-sleeptimeout-usbhost-1.txt", "A8DDE75C-CD97-3C37-B35D-1070CC50D2CE",
	  "Sleep transition timed out after 180 seconds while calling power state change callbacks. "
	  "Suspected bundle: com.apple.iokit.IOUSBHostFamily. Thread 0x12ee.",
	  "19D76", "Darwin Kernel Version 19.3.0:", "kernel_task",
	  3, { { "com.apple.iokit.IOUSBHostFamily", "B7CF50DA-73BD-3233-B207-9036BCAD8E1A", 0xffffff7f8ca83000,
	         0xffffff7f8cb7bfff },
	       { "com.apple.driver.usb.AppleUSBXHCI", "4650C412-33F6-322C-A80A-150FC3DA1B18", 0xffffff7f8d1ea000,
	         0xffffff7f8d241fff },
	       { "com.apple.driver.usb.AppleUSBXHCIPCI", "71C22181-4BD4-3E9B-AD35-E10850981E3A",
	         0xffffff7f8d319000, 0xffffff7f8d34afff } },
	  1, 17, 0xffffff800ba60178, "kernel", true, 0 },
	{ "text-intel-1015-hackintosh-watchdog-abbrevkexts-1.txt", "AB0AA7EE-3D03-3C21-91AD-5719D79D7AF6",
	  "watchdog timeout: no checkins from watchdogd in 95 seconds (3452 total checkins since monitoring last enabled)",
	  "19E266", "Darwin Kernel Version 19.4.0:", "kernel_task",
	  2, { { "com.apple.driver.watchdog", "99A75EFF-7734-31A0-80BF-FF8288E30D9B", 0xffffff7f94a4e000,
	         0xffffff7f94a56fff },
	       { "com.apple.driver.AppleSMC", "601E041E-0A5C-3B6A-A4E6-45ECC7F48A2B", 0xffffff7f94a57000,
	         0xffffff7f94a75fff } },
	  1, 11, 0xffffff80139215cd, "kernel", false, 138 },
	{ "text-intel-1015-ryzen-hackintosh-userspace-watchdog-1.txt", "9B5A7191-5B84-3990-8710-D9BD9273A8E5",
	  "userspace watchdog timeout: no successful checkins from com.apple.WindowServer since load",
	  "19H15", "Darwin Kernel Version 19.6.0:", "watchdogd",
	  2, { { "com.apple.driver.watchdog", "B6A95892-6C75-3CF5-A6CC-6D83F30FA1D5", 0xffffff7f8afa0000,
	         0xffffff7f8afa8fff },
	       { "as.vit9696.VirtualSMC", "813DCDAE-0225-34E9-8194-BCF9F3E72A56", 0xffffff7f8e16a000,
	         0xffffff7f8e191fff } },
	  1, 19, 0xffffff800a51868d, "kernel", true, 0 },
	{ "text-intel-hackintosh-bigsur-nvme-1.txt", "BB2FFEBA-7D53-301F-A238-9867CA51276F",
	  "nvme: \"Fatal error occurred. CSTS=0x1 US[1]=0x0 US[0]=0x379 VID=0x144d DID=0xa809 . FW "
	  "Revision=3L1QFXV7\\n\"@/System/Volumes/Data/SWE/macOS/BuildRoots/2288acc43c/Library/Caches/"
	  "com.apple.xbs/Sources/IONVMeFamily/IONVMeFamily-557.100.13/Common/IONVMeController.cpp:5499",
	  "20E232", "Darwin Kernel Version 20.4.0:", "kernel_task",
	  1, { { "com.apple.iokit.IONVMeFamily", "2A44DC48-B629-386C-985E-3BE03CCA48F2", 0xffffff8014aa0000,
	         0xffffff8014ac9fff } },
	  1, 14, 0xffffff801228e02d, "kernel", true, 0 },
	{ "text-intel-monterey123-imac182-amdradeon-windowserver-1.txt", "B6F8637B-0844-355F-8C82-60FA06149384",
	  "virtual bool IOAccelLegacyDisplayMachine::display_mode_did_change(uint32_t): AMDRadeonAccelerator "
	  "driver returns false @IOAccelLegacyDisplayMachine.cpp:267",
	  "21E258", "Darwin Kernel Version 21.4.0:", "WindowServer",
	  3, { { "com.apple.iokit.IOGraphicsFamily", "3ECB2385-311A-374E-9C0F-65639BA26A05", 0xffffff7f9973f000,
	         0xffffff7f9976dfff },
	       { "com.apple.iokit.IOAcceleratorFamily2", "2ED59269-2A13-3F67-AB1A-212DB14FC5F2",
	         0xffffff7f995a2000, 0xffffff7f9960cfff },
	       { "com.apple.kext.AMDFramebuffer", "2E42215C-251C-3026-B86A-F08139C86E86", 0xffffff7f813fb000,
	         0xffffff7f8141ffff } },
	  1, 24, 0xffffff8000683e2d, "kernel", false, 171 },
	{ "text-intel-vm-sonoma143-serial-zonerequire-1.txt", NULL,
	  "zone_require_ro failed: element improperly aligned (addr: 0xffffff8fbeae3c00) @zalloc.c:7288",
	  "23D56", "Darwin Kernel Version 23.3.0:", "xpcproxy",
	  0, { { 0 } },
	  1, 12, 0xffffff8005836c41, "kernel", false, 0 },
	{ "text-m1-macos12-usbhost-dataabort-1.txt", "F5893147-A9D2-3D60-B5A4-E4AE9BA0A628",
	  "Kernel data abort. at pc 0xfffffe001197caec, lr 0xcbaf7e0011927fc8 (saved state: 0xfffffe600c4c3540)",
	  "21D49", "Darwin Kernel Version 21.3.0:", "kernel_task",
	  2, { { "com.apple.driver.usb.AppleUSBCommon", "87C02733-2B8C-39C4-832D-9F84C64095EF",
	         0xfffffe0013172300, 0xfffffe00131773a7 },
	       { "com.apple.iokit.IOUSBHostFamily", "07286325-6FE6-3A8D-8426-C0C7295DFEF8", 0xfffffe0013eb07f0,
	         0xfffffe0013f6690f } },
	  1, 24, 0xfffffe001184e4c4, "kernel", false, 239 },
	{ "text-m1pro-endpointsecurity-logd-1.txt", "E88B0B04-7B4D-3E52-8980-A19ED82304F7",
	  "Kernel data abort. at pc 0xfffffe001327947c, lr 0xfdc0fe00148e2af8 (saved state: 0xfffffe8820216e10)",
	  "22G91", "Darwin Kernel Version 22.6.0:", "logd",
	  1, { { "com.apple.iokit.EndpointSecurity", "CD740966-CA1C-31DA-8EBE-BFDFA49586A2", 0xfffffe00148b6d60,
	         0xfffffe0014912a4b } },
	  1, 24, 0xfffffe0012d9a620, "kernel", false, 254 },
	{ "text-m2-macos26beta-btnrst-pandora-1.txt", "89D3AA38-586A-3997-8129-85A2A30A5016",
	  "btn_rst", "25A5306g", "Darwin Kernel Version 25.0.0:", "kernel_task",
	  1, { { "com.apple.driver.AppleM68Buttons", "38E011C0-DE3E-39EF-A736-8C81BEC719B2", 0xfffffe00456658d0,
	         0xfffffe0045683073 } },
	  1, 13, 0xfffffe0043f46200, "kernel", false, 243 },
	{ "text-m2pro-macos154-amcc-platformerror-nostackshot-1.txt", "FE69CD95-2227-3476-863E-FC0921745E33",
	  "AMCC0 DCS GROUP 0 CHANNEL 0 M3_AIC_IRQ_EN_FLD error: INTSTS 0x00000004, CLLT: sts/sts1 "
	  "0x00003703/0x7f007f00 DISP0 0x7f7f0007 ISP 0x7f7f0007 SIO 0x7f7f0000 DISPEXT0/1/2/3 "
	  "0x7f7f0007/0x7f740007/0x7f000007/0x7f7f0007 SCODEC 0x7f7f0007 EVTLOG sts/data0/data1 "
	  "0x00000000/0x00000000/0x00000000 @AppleT6020PlatformErrorHandler.cpp:3468",
	  "24E248", "Darwin Kernel Version 24.4.0:", "WindowManager",
	  2, { { "com.apple.driver.AppleT6020", "92ED98F1-1757-3D0F-96EA-D303AF4020D1", 0xfffffe001ece57d0,
	         0xfffffe001ecf70f3 },
	       { "com.apple.driver.AppleInterruptControllerV2", "8DB4EDCE-397B-3729-820C-66A4282E7C49",
	         0xfffffe001e72e310, 0xfffffe001e730c07 } },
	  1, 12, 0xfffffe001d2c0ae0, "kernel", false, 244 },
	/* issue 31 item 1: call sites without a path, after a written newline */
	{ "text-intel-monterey1261-mbp114-nvme-cmdtimeout-atsite-1.txt", "54B44BAE-1625-30CC-80B0-29E4966EFFDC",
	  "nvme: \"3rd party NVMe controller. Command timeout. Write. fBuiltIn=1 MODEL=CT1000P2SSD8 FW=P2CR048 "
	  "CSTS=0x1 US[1]=0x0 US[0]=0x1 VID=0xc0a9 DID=0x540a CRITICAL_WARNING=0x0.\\n\" @IONVMeController.cpp:6090",
	  "21G217", "Darwin Kernel Version 21.6.0:", "kernel_task",
	  1, { { "com.apple.iokit.IONVMeFamily", "DD1246CA-DCEA-310E-A5EF-D93F9E3160E0", 0xffffff801b361000,
	         0xffffff801b38dfff } },
	  1, 14, 0xffffff8018a7de9d, "kernel", false, 165 },
	{ "text-m2-macos155-pcie-linkdown-escapednl-atsite-1.txt", "3E4B2638-BBC1-36F7-BEE0-D2E41D599E88",
	  "apcie[2:lan-1gb]::_linkDownInterrupt: Unexpected link down linksts=0xa9000208 pcielint=0x00004000 "
	  "linkcdmsts=0x00000000 (ltssm 0x0=DETECT_QUIET)\\\\n @AppleT811xPCIePort.cpp:1644",
	  "24F74", "Darwin Kernel Version 24.5.0:", "kernel_task",
	  2, { { "com.apple.driver.AppleEmbeddedPCIE", "0B3B580D-98BD-38CF-B435-B91EA38FF0F0", 0xfffffe0012ea35e0,
	         0xfffffe0012eba45b },
	       { "com.apple.driver.AppleT8112PCIe", "7AFC049A-8EBC-3031-A08F-634289536312", 0xfffffe001381fbf0,
	         0xfffffe00138279f7 } },
	  1, 13, 0xfffffe0011d54ae0, "kernel", false, 238 },
	/* issue 31 item 2: machine-check state before the panic line */
	{ "legacy-intel-1012-mbp121-machinecheck-mcapreamble-1.panic", "8941AC1C-B084-37DE-8A34-4CE638C5CFC9",
	  "Machine Check at 0x00007fff7dd40e93, registers:\\n CR0: 0x0000000080010033, CR2: 0x000000011485f000, "
	  "CR3: 0x0000000332cd9085, CR4: 0x00000000003627e0\\n RAX: 0x0000608003c79480, RBX: 0x0000608003c79480, "
	  "RCX: 0x00007fff7e8bd78e, RDX: 0x0000000000000000\\n RSP: 0x00007fff5113bb38, RBP: 0x00007fff5113bb60, "
	  "RSI: 0x00007fff7e86b87d, RDI: 0x0000608000765dc0\\n R8: 0x0000000000001914, R9: 0x0000000000001915, "
	  "R10: 0x00007fff9a3c5ef8, R11: 0x00007f94d5b4c5d0\\n R12: 0x0000608000765dc0, R13: 0x00007fff7e866001, "
	  "R14: 0x0000608000765dc0, R15: 0x00007fff9485eb40\\n RFL: 0x0000000000000246, RIP: 0x00007fff7dd40e93, "
	  "CS: 0x000000000000002b, SS: 0x0000000000000023\\n Error code: 0x0000000000000000\\n"
	  "@/Library/Caches/com.apple.xbs/Sources/xnu/xnu-3789.21.3/osfmk/i386/trap_native.c:168",
	  "16B2555", "Darwin Kernel Version 16.1.0:", "Mail",
	  0, { { 0 } },
	  1, 3, 0xffffff8016af368c, "kernel", false, 125 },
	/* issue 31 item 7: "Post-boot loaded kexts:" (macOS 26, M4) */
	{ "text-m4-macos26-amcc-postbootkexts-1.txt", "815C54ED-2B20-3364-B78C-B87C506D28C6",
	  "AMCC0 DCS GROUP 2 CHANNEL 0 M3_AIC_IRQ_EN_FLD error: INTSTS 0x00000008 CLLT_STATUS 0x007f001f "
	  "CLLT_GLB_CTL 0x00000216 ISP_CTL 0x7f7f0001 DISP_CTL 0x7f000007 DISPEXT0_CTL 0x7f7f0007 DISPEXT1_CTL "
	  "0x7f7f0007 SCODEC_CTL 0x7f7f0007 AUDIO_BASE_S_ADMA_CTL 0x7f7f0007 AUDIO_BASE_NS_ADMA_CTL 0x7f7f0007 "
	  "AUDIO_LEAP_S_ADMA_CTL 0x7f7f0007 AUDIO_LEAP_NS_ADMA_CTL 0x7f7f0007 FREQ_CHANGE_CTL 0x0000001f "
	  "CALIBRATE_CTL 0x0007001d PMC_ESCALATION_CTL 0x00080000 ACC0CPM_PG_CTL 0x00080100 ACC1CPM_PG_CTL "
	  "0x00080100 FAST_AF_CLK_SCAL @AppleH16GFamilyPlatformErrorHandler.cpp:4281",
	  "26A428", "Darwin Kernel Version 27.0.0:", "kernel_task",
	  2, { { "com.apple.driver.AppleT8132", "D95BD92F-D4A4-3BC4-9AC3-269D14447CD7", 0xfffffe00470f8130,
	         0xfffffe0047108fdb },
	       { "com.apple.driver.AppleInterruptControllerV3", "75FC5D32-A881-3EE8-A1D0-D7C807B833C7",
	         0xfffffe0046a53a30, 0xfffffe0046a58373 } },
	  1, 25, 0xfffffe0048e40af4, "kernel", false, 5 },
};

/* Reads the whole file into a heap buffer of exactly its size. */
static void check(const expect *x, const kp_report *r)
{
	const char *f = x->file;
	char w[160];
#define W(what) (snprintf(w, sizeof w, "%.60s: %s", f, what), w)
	KT_CHECK(r->format == KP_FORMAT_TEXT, "%s", W("format text"));
	KT_STREQ(r->kernel_uuid, x->kernel_uuid, W("kernel uuid"));
	KT_STREQ(r->headline, x->headline, W("headline"));
	KT_STREQ(r->os_version, x->os_version, W("os version"));
	if (x->kv_prefix)
		KT_CHECK(r->kernel_version && !strncmp(r->kernel_version, x->kv_prefix, strlen(x->kv_prefix)),
		         "%s (%s)", W("kernel version prefix"), r->kernel_version ? r->kernel_version : "(null)");
	else
		KT_CHECK(r->kernel_version == NULL, "%s", W("no kernel version"));
	KT_STREQ(r->panicked_process, x->process, W("panicked process"));
	KT_CHECK(r->truncated == x->truncated, "%s: %d", W("truncated"), r->truncated);
	KT_CHECK((int)r->nkexts == x->nkexts, "%s: %zu", W("loaded kexts"), r->nkexts);

	int nbt = 0;
	for (size_t i = 0; i < r->nimages; i++) {
		const kp_image *im = &r->images[i];
		if (im->kind != 'X' || !im->in_backtrace)
			continue;
		if (nbt < x->nbt) {
			const bt_kext *b = &x->bt[nbt];
			KT_STREQ(im->name, b->name, W("bt kext name"));
			KT_STREQ(im->uuid, b->uuid, W("bt kext uuid"));
			KT_U64EQ(im->start, b->start, W("bt kext start"));
			KT_CHECK(im->has_start, "%s", W("bt kext has start"));
			KT_CHECK(im->has_end == (b->end != 0), "%s", W("bt kext has end"));
			if (b->end)
				KT_U64EQ(im->end, b->end, W("bt kext end"));
		}
		nbt++;
	}
	KT_CHECK(nbt == x->nbt, "%s: %d", W("kexts in backtrace"), nbt);

	int nthreads = r->nprocesses ? (int)r->processes[0].nthreads : 0;
	KT_CHECK(r->nprocesses == 1 && nthreads == x->nthreads, "%s: %d", W("backtrace threads"), nthreads);
	const kp_process *p = NULL;
	const kp_thread *t = kp_report_panicked_thread(r, &p);
	KT_CHECK(t && p == &r->processes[0], "%s", W("panicked thread in the first process"));
	if (!t)
		return;
	KT_CHECK((int)t->nframes == x->nframes, "%s: %zu", W("panicked frames"), t->nframes);
	if (!t->nframes)
		return;
	KT_U64EQ(t->frames[0].address, x->first, W("first frame address"));
	const char *in = t->frames[0].image >= 0 ? r->images[t->frames[0].image].name : NULL;
	KT_STREQ(in, x->first_image, W("first frame image"));
#undef W
}

/* Frames checked by hand against the listed ranges and section 3. */
static void spot_checks(const char *file, const kp_report *r)
{
	const kp_thread *t = kp_report_panicked_thread(r, NULL);
	if (!t)
		return;
	if (strstr(file, "m1pro") && t->nframes > 11) {
		/* lr 0xfffffe00148e2af8 (0xfdc0fe00148e2af8 signed in the header)
		 * lies in EndpointSecurity 0xfffffe00148b6d60->0xfffffe0014912a4b. */
		KT_U64EQ(t->frames[11].address, 0xfffffe00148e2af8ull, "m1pro: frame 11");
		KT_CHECK(t->frames[11].image >= 0 &&
		         !strcmp(r->images[t->frames[11].image].name, "com.apple.iokit.EndpointSecurity"),
		         "m1pro: frame 11 in EndpointSecurity");
		KT_U64EQ(t->frames[11].offset, 0x2bd98, "m1pro: offset from the kext start");
	}
	if (strstr(file, "t8142") && t->nframes > 3) {
		/* panic-formats.md section 3: base 0xfffffe000b768000 + off 0x5ee4 +
		 * KernelCache slide = lr 0xfffffe00441b5ee4; exec base 0xfffffe00441b0000. */
		KT_U64EQ(t->frames[3].address, 0xfffffe00441b5ee4ull, "t8142: frame 3");
		KT_U64EQ(t->frames[3].offset, 0x5ee4, "t8142: kernel offset 0x5ee4");
		KT_CHECK(r->kexts_skipped, "t8142: kexts skipped");
	}
	if (strstr(file, "tiger") && t->nframes > 3) {
		KT_U64EQ(t->frames[3].address, 0x4cd64044, "tiger: frame 3");
		KT_U64EQ(t->frames[3].offset, 0x28044, "tiger: AirPort offset (start-only kext)");
	}
	if (strstr(file, "abbrevkexts") && r->nkexts > 20) {
		KT_STREQ(r->kexts[7].name, "as.acidanthera.mieze.IntelMausi", "abbrev: !I");
		KT_STREQ(r->kexts[16].name, "com.apple.driver.AudioAUUC", "abbrev: > after the blank line");
		KT_STREQ(r->kexts[26].name, "com.apple.driver.AppleHDA", "abbrev: >!A");
		KT_STREQ(r->kexts[28].name, "com.apple.iokit.IOUserEthernet", "abbrev: doubled >| prefix");
		KT_STREQ(r->last_unloaded_kext, "com.apple.driver.AppleUSBAudio\t322.2 (addr 0xffffff7f975f1000, size 434176)",
		         "abbrev: last unloaded kext");
	}
	/* issue 31 item 2: nothing before panic( is dropped; the report's own
	 * header (Anonymous UUID, date, "*** Panic Report ***", a "null") is
	 * no preamble */
	if (strstr(file, "machinecheck")) {
		KT_CHECK(r->preamble && !strncmp(r->preamble, "Machine-check capabilities: 0x0000000001000c07\n", 47),
		         "machinecheck: the preamble starts at the machine-check state");
		KT_CHECK(r->preamble && strstr(r->preamble, "\nProcessor 1: IA32_MCG_STATUS: 0x0000000000000005\n"
		                                            " IA32_MC1_STATUS(0x405): 0xbf80000000000114\n"),
		         "machinecheck: IA32_MCG_STATUS / IA32_MCi_STATUS lines kept as written");
		static const char last[] = "\n IA32_MC1_MISC(0x407):   0x0000000000000086";
		size_t n = r->preamble ? strlen(r->preamble) : 0;
		KT_CHECK(n > sizeof last && !strcmp(r->preamble + n - (sizeof last - 1), last),
		         "machinecheck: the preamble ends at the line before panic(");
		KT_CHECK(r->panic_string && !strncmp(r->panic_string, "panic(cpu 2 caller", 18),
		         "machinecheck: the panic string starts at panic(");
	} else if (strstr(file, "amcc-platformerror")) {
		static const char last[] = "\nDebugger synchronization timed out; timeout 240000 nanoseconds";
		size_t n = r->preamble ? strlen(r->preamble) : 0;
		KT_CHECK(r->preamble && !strncmp(r->preamble, "Attempting to forcibly halt cpu 0\n", 34) &&
		         n > sizeof last && !strcmp(r->preamble + n - (sizeof last - 1), last),
		         "amcc: the 25 halt lines before panic( are the preamble");
	} else if (strstr(file, "sonoma")) {
		KT_CHECK(r->preamble && !strncmp(r->preamble, "AppleKeyStore:12139:96: operation failed", 40) &&
		         strstr(r->preamble, "\ntx_flush:1336: disk3 xid 3613506"),
		         "sonoma: the console lines before panic( are the preamble");
	} else {
		KT_CHECK(r->preamble == NULL, "%s: no preamble (%.40s)", file, r->preamble ? r->preamble : "");
	}
	if (strstr(file, "postbootkexts") && r->nkexts == 5) {
		/* "com.apple.filesystems.smbfs [loaded at 0x6ab7d161]": no version */
		const kp_kext *k = &r->kexts[0], *l = &r->kexts[4];
		KT_CHECK(!strcmp(k->name, "com.apple.filesystems.smbfs") && !k->version && k->has_loaded_at &&
		         k->loaded_at == 0x6ab7d161, "postboot: the first entry, its load time and no version");
		KT_CHECK(!strcmp(l->name, "com.apple.driver.driverkit.serial") && l->has_loaded_at &&
		         l->loaded_at == 0x6ab66bc0, "postboot: the last entry");
	}
	if (strstr(file, "sonoma"))
		KT_CHECK(r->nwarnings >= 1 && strstr(r->warnings[0].msg, "not a UUID"), "sonoma: xxxx uuid warned");
}

#define CORPUS KP_REAL_DIR "/"

/* Every row of the table: the file parses and gives the expected values. */
static void corpus_reports(void)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char path[1024];
		snprintf(path, sizeof path, "%s%s", CORPUS, cases[i].file);
		size_t len = 0;
		char *data = kt_slurp(path, &len);
		if (!data) {
			char why[1100];
			snprintf(why, sizeof why, "%s: %s", cases[i].file, strerror(errno));
			KT_SKIP(why);
			continue;
		}
		kp_report *r = NULL;
		kp_error e;
		kp_status st = kp_report_parse(data, len, path, &r, &e);
		free(data);
		KT_CHECK(st == KP_OK, "%s parses (%s)", cases[i].file, st == KP_OK ? "" : e.msg);
		if (st == KP_OK) {
			check(&cases[i], r);
			spot_checks(cases[i].file, r);
		}
		kp_report_free(&r);
	}
}

/* A console capture that stops before "Kernel Extensions in backtrace:"
 * (the serial log of a keepsyms=1 panic, or a paste cut there): each frame
 * keeps the module it names ("com.apple.iokit.IONVMeFamily : __ZN...") as
 * its image, which is then a kext in backtrace (issue 31 item 8).  The real
 * Big Sur report, cut before its kext list. */
static void modules_without_kext_list(void)
{
	size_t len = 0;
	char *data = kt_slurp(CORPUS "text-intel-hackintosh-bigsur-nvme-1.txt", &len);
	if (!data) {
		KT_SKIP("text-intel-hackintosh-bigsur-nvme-1.txt not readable");
		return;
	}
	char *cut = strstr(data, "      Kernel Extensions in backtrace:");
	KT_CHECK(cut != NULL, "bigsur: has a kext list to cut");
	kp_report *r = NULL;
	kp_error e;
	kp_status st = cut ? kp_report_parse(data, (size_t)(cut - data), "cut.txt", &r, &e) : KP_ERR_FORMAT;
	free(data);
	KT_CHECK(st == KP_OK, "bigsur cut before its kext list parses");
	const kp_thread *t = st == KP_OK ? kp_report_panicked_thread(r, NULL) : NULL;
	KT_CHECK(t && t->nframes == 14, "bigsur cut: 14 frames");
	if (t && t->nframes == 14) {
		for (size_t f = 7; f <= 8; f++) {
			int im = t->frames[f].image;
			KT_CHECK(im >= 0 && !strcmp(r->images[im].name, "com.apple.iokit.IONVMeFamily") &&
			         r->images[im].in_backtrace,
			         "bigsur cut: frame %zu is IONVMeFamily's, a kext in backtrace", f);
		}
		KT_CHECK(t->frames[9].image >= 0 && !strcmp(r->images[t->frames[9].image].name, "kernel"),
		         "bigsur cut: frame 9 (mach_kernel) the kernel's");
	}
	kp_report_free(&r);
}

/* Every report file of the directory has a row (MANIFEST.tsv is none). */
static void every_file_has_a_row(void)
{
	DIR *d = opendir(CORPUS);
	if (!d) {
		KT_SKIP("corpus directory absent");
		return;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		size_t nl = strlen(n);
		/* JSON reports are test_ips.c's */
		if (n[0] == '.' || !strcmp(n, "MANIFEST.tsv") || (nl > 4 && !strcmp(n + nl - 4, ".ips")) ||
		    !strncmp(n, "inteljson-", 10))
			continue;
		bool found = false;
		for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
			found |= strcmp(cases[i].file, n) == 0;
		KT_CHECK(found, "%s has a row in the table", n);
	}
	closedir(d);
}

int main(void)
{
	corpus_reports();
	modules_without_kext_list();
	every_file_has_a_row();
	return kt_done();
}
