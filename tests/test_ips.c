/* test_ips.c: the JSON report forms (.ips bug_type 210, Intel JSON) through
 * kp_report_parse: synthetic variants, big numbers, truncation, bad input,
 * and the two real .ips reports with values read off the files by hand. */
#include "kt.h"
#include "kp_report.h"
#include "kp_signature.h"

#include <stdlib.h>

static kp_report *parse(const char *s, kp_error *err)
{
	kp_report *r = NULL;
	kp_report_parse(s, strlen(s), "t.ips", &r, err);
	return r;
}

static const char *field(const kp_report *r, const char *key)
{
	for (size_t i = 0; i < r->nfields; i++)
		if (strcmp(r->fields[i].key, key) == 0)
			return r->fields[i].value;
	return NULL;
}

static const char PS[] =
	"panic(cpu 1 caller 0xfffffe0012345678): \\\"wrapped\\\" boom @/x/y.c:12\\n"
	"Kernel UUID: 4c4c44bd-5555-3144-a14b-0078ec5e31e1\\n"
	"KernelCache slide: 0x0000000000010000\\n"
	"Panicked task 0xfffffe1000000000: 10 pages, 2 threads: pid 77: victim\\n"
	"Panicked thread: 0xfffffe2000000000, backtrace: 0xfffffe3000000000, tid: 5000\\n"
	"** Stackshot Succeeded **\\n";

/* processByPid before binaryImages; bases > 2^63; unknown keys; [idx,0] into 'A' dropped */
static void synthetic_ips(char *buf, size_t size)
{
	snprintf(buf, size,
	         "{\"os_version\":\"macOS 14.1 (23B74)\",\"bug_type\":\"210\",\"timestamp\":\"2023-11-01 10:00:00.00 +0000\",\"newkey\":[1,2]}\n"
	         "{\n \"processByPid\" : {\n"
	         "  \"0\" : {\"pid\":0,\"procname\":\"kernel_task\",\"threadById\":{\"9\":{\"id\":9,\"state\":[\"TH_WAIT\",\"TH_UNINT\"],\"kernelFrames\":[[0,16],[2,0]]}}},\n"
	         "  \"77\" : {\"pid\":77,\"procname\":\"victim\",\"threadById\":{\"5000\":{\"id\":5000,\"name\":\"w\\u00e9rker\",\"schedPriority\":47,\"basePriority\":31,"
	         "\"snapshotFlags\":[\"kKernel64_p\"],\"kernelFrames\":[[1,18446744073709551615],[0,4096],[9,1],\"junk\",[0]],\"userFrames\":[[3,100]]}}}\n },\n"
	         " \"panicString\" : \"%s\",\n"
	         " \"binaryImages\" : [[\"4c4c44bd-5555-3144-a14b-0078ec5e31e1\",18446744005165581456,\"T\"],[\"4C4C44A3555531 44A151249D146ED38D\",0,\"T\"],"
	         "[\"00000000-0000-0000-0000-000000000000\",0,\"A\"],[\"11111111-2222-3333-4444-555555555555\",4294967296,\"P\"]],\n"
	         " \"memoryStatus\" : {\"compressorSize\":1},\n \"someFutureKey\" : \"kept\"\n}\n",
	         PS);
}

static const char INTEL[] = "{\"macOSProcessedStackshotData\":\"AAAA\",\"macOSPanicString\":\"panic(cpu 0 caller 0xffffff801234): \\\"Intel\\\"@/a.c:1\\nBacktrace (CPU 0), Frame : Return Address\\n0xffffff81aaaa : 0xffffff8012345678 \\nKernel version:\\nDarwin Kernel Version 19.6.0: x; root:xnu-6153/RELEASE_X86_64\\nKernel text base: 0xffffff8012000000\\n\"}";

static void ips_fields(void)
{
	kp_error err;
	char buf[8192];
	synthetic_ips(buf, sizeof buf);
	kp_report *r = parse(buf, &err);
	KT_CHECK(r != NULL, "synthetic ips parses (%s)", r ? "" : err.msg);
	if (!r)
		return;
	KT_CHECK(r->format == KP_FORMAT_IPS, "format ips");
	KT_CHECK(r->has_bug_type && r->bug_type == 210, "bug_type 210");
	KT_STREQ(r->os_version, "macOS 14.1 (23B74)", "os_version from header");
	KT_STREQ(r->kernel_uuid, "4C4C44BD-5555-3144-A14B-0078EC5E31E1", "kernel uuid canonical");
	KT_STREQ(r->headline, "wrapped boom @/x/y.c:12", "headline from the embedded text, quotes dropped");
	KT_CHECK(r->nimages == 4, "4 images");
	KT_U64EQ(r->images[0].base, 18446744005165581456ull, "base > 2^63 exact");
	KT_STREQ(r->images[1].uuid, NULL, "a malformed UUID is not kept");
	KT_STREQ(r->images[0].name, "kernel", "kernel image named");
	KT_CHECK(r->nprocesses == 2, "2 processes");
	KT_STREQ(r->processes[0].name, "victim", "panicked process first");
	const kp_process *pp;
	const kp_thread *t = kp_report_panicked_thread(r, &pp);
	KT_CHECK(t && t->id == 5000, "panicked thread by tid");
	if (t) {
		KT_STREQ(t->name, "w\xc3\xa9rker", "thread name with \\u escape");
		KT_CHECK(t->has_sched_priority && t->sched_priority == 47 && t->base_priority == 31, "priorities");
		KT_STREQ(t->flags, "kKernel64_p", "snapshot flags");
		KT_CHECK(t->nframes == 4, "frames: junk and short skipped, user kept (%zu)", t->nframes);
		KT_U64EQ(t->frames[0].offset, UINT64_MAX, "offset 2^64-1 exact");
		KT_CHECK(t->frames[2].image == -1 && t->frames[2].offset == 1, "index past images: no image");
		KT_CHECK(t->frames[3].user && t->frames[3].image == 3, "user frame");
		KT_U64EQ(t->frames[3].address, 4294967296ull + 100, "user address = base + offset");
		KT_U64EQ(t->frames[1].address, 18446744005165581456ull + 0x10000 + 4096,
		         "kernel address = base + offset + KernelCache slide");
		KT_CHECK(!t->frames[0].has_address, "base 0: no runtime address");
	}
	KT_CHECK(r->processes[1].nthreads == 1 && r->processes[1].threads[0].nframes == 1,
	         "[idx,0] into the absolute image dropped");
	KT_STREQ(r->processes[1].threads[0].state, "TH_WAIT TH_UNINT", "state joined");
	KT_STREQ(field(r, "someFutureKey"), "kept", "unknown body key kept");
	KT_STREQ(field(r, "header.newkey"), "[1,2]", "unknown header key kept as JSON");
	KT_STREQ(field(r, "memoryStatus"), "{\"compressorSize\":1}", "object member kept as JSON");
	KT_CHECK(!r->truncated, "not truncated");
	kp_report_free(&r);

}

/* truncated inside processByPid: the complete processes survive */
static void ips_truncated_in_processes(void)
{
	kp_error err;
	char buf[8192];
	synthetic_ips(buf, sizeof buf);
	size_t cut = (size_t)(strstr(buf, "\"77\"") - buf) + 40;
	buf[cut] = '\0';
	kp_report *r = parse(buf, &err);
	KT_CHECK(r && r->truncated && r->nprocesses == 1, "cut in processByPid: 1 process, truncated");
	kp_report_free(&r);

}

/* Intel JSON, with and without the header line */
static void intel_json(void)
{
	kp_error err;
	char buf[8192];
	const char *intel = INTEL;
	kp_report *r = parse(intel, &err);
	KT_CHECK(r && r->format == KP_FORMAT_INTEL_JSON, "Intel JSON without header");
	if (r) {
		KT_STREQ(r->stackshot_b64, "AAAA", "stackshot kept as written");
		KT_CHECK(r->nprocesses == 1 && r->nwarnings &&
		         strstr(r->warnings[r->nwarnings - 1].msg, "no kcdata stackshot (it begins 0x00000000)"),
		         "bytes that are no kcdata stackshot: said, not read");
		KT_STREQ(r->headline, "Intel@/a.c:1", "Intel headline");
		KT_CHECK(r->arch == KP_ARCH_X86_64, "arch from kernel version");
		const kp_thread *it = kp_report_panicked_thread(r, NULL);
		KT_CHECK(it && it->nframes == 1 && it->frames[0].offset == 0x345678, "text frame mapped to the kernel");
	}
	kp_report_free(&r);
	snprintf(buf, sizeof buf, "{\"bug_type\":\"210\",\"os_version\":\"Mac OS X 10.15.7 (19H2)\"}\n%s", intel);
	r = parse(buf, &err);
	KT_CHECK(r && r->format == KP_FORMAT_INTEL_JSON && r->os_version, "Intel JSON with header");
	kp_report_free(&r);

}

/* not panics, broken JSON */
static void refused(void)
{
	kp_error err;
	kp_report *r;
	r = parse("{\"bug_type\":\"309\"}\n{\"procName\":\"Safari\"}", &err);
	KT_CHECK(!r && err.code == KP_ERR_NOTPANIC, "bug_type 309 is not a panic: %s", err.msg);
	r = parse("{\"a\": 1}", &err);
	KT_CHECK(!r && err.code == KP_ERR_NOTPANIC, "plain JSON is not a panic");
	r = parse("{\"bug_type\":\"210\"}\n{\"panicString\" \"x\"}", &err);
	KT_CHECK(!r && err.code == KP_ERR_FORMAT && err.line == 2 && err.byte == 34,
	         "broken body: line 2 byte 34 (line %ld byte %ld)", err.line, err.byte);
	r = parse("{\"bug_type\":\"210\"} trailing", &err);
	KT_CHECK(!r && err.code == KP_ERR_FORMAT, "text after JSON refused");
	char *deep = malloc(200003);
	memset(deep, '[', 200000);
	strcpy(deep + 200000, "\n");
	deep[0] = '{';
	r = parse(deep, &err);
	KT_CHECK(!r && err.code == KP_ERR_FORMAT, "JSON nested 200000 deep refused: %s", err.msg);
	free(deep);
	r = parse("{\"bug_type\":\"210\",\"x\":-1.5e3}\n{\"panicString\":\"panic(cpu 0 caller 0x1): neg\",\"binaryImages\":[[\"4c4c44bd-5555-3144-a14b-0078ec5e31e1\",-5,\"T\"],[\"4c4c44bd-5555-3144-a14b-0078ec5e31e2\",1.5,\"T\"]]}", &err);
	KT_CHECK(r && r->nimages >= 2 && !r->images[0].has_base && !r->images[1].has_base,
	         "negative and fractional bases are not numbers we keep");
	kp_report_free(&r);
}

/* every prefix of a small report parses or fails cleanly */
static void every_prefix(void)
{
	kp_error err;
	const char *intel = INTEL;
	size_t n = strlen(intel);
	int ok = 1;
	for (size_t i = 1; i < n; i++) {
		char *p = malloc(i);
		memcpy(p, intel, i);
		kp_report *q = NULL;
		kp_status st = kp_report_parse(p, i, "p", &q, &err);
		ok &= (st == KP_OK) == (q != NULL);
		kp_report_free(&q);
		free(p);
	}
	KT_CHECK(ok, "every prefix of an Intel JSON report parses or fails cleanly");
}

/* the real .ips reports, values read off the files by hand */
static void corpus_ios26(void)
{
	char path[4096];
	kp_report *r;
	kp_error err;
	snprintf(path, sizeof path, "%s/ips-full-ios26-iphone-sepkeystore-1.ips", KP_REAL_DIR);
	if (kp_report_load(path, &r, &err) != KP_OK) {
		KT_SKIP("ips-full-ios26 absent");
	} else {
		KT_CHECK(r->format == KP_FORMAT_IPS, "ios26: ips");
		KT_STREQ(r->os_version, "iPhone OS 26.1 (23B85)", "ios26: os_version");
		KT_STREQ(r->incident_id, "E8C4CC33-B0C6-43A5-90A3-C2B22A4D5A5A", "ios26: incident");
		KT_STREQ(r->product, "iPhone12,5", "ios26: product");
		KT_STREQ(r->kernel_uuid, "7C461EDE-B045-324B-B329-721BED992270", "ios26: kernel uuid");
		KT_STREQ(r->headline,
		         "[iokit.IOCommandGate]: element modified after free (off:72, val:0xfffffffffffffe00, sz:80, ptr:0xffffffe69b7d0db0)",
		         "ios26: headline");
		/* 233 binaryImages, the fileset kernelcache its paniclog 15 header
		 * names, then the dependency kexts the panic text names that
		 * binaryImages lacks */
		KT_CHECK(r->nimages == 240 && r->images[234].kind == 'X' && r->images[234].is_dependency,
		         "ios26: 233 images + the kernelcache + 6 dependency kexts (%zu)", r->nimages);
		KT_CHECK(r->images[233].kind == 'M' && r->images[233].uuid &&
		         strcmp(r->images[233].uuid, "F31B925A-1D66-63E4-BABF-80F339C69079") == 0 &&
		         strcmp(r->images[233].name, "kernelcache") == 0,
		         "ios26: Fileset Kernelcache UUID is an image");
		KT_U64EQ(r->images[0].base, 18446744005165581456ull, "ios26: image 0 base");
		KT_CHECK(r->nprocesses == 340, "ios26: 340 processes");
		size_t nt = 0;
		for (size_t i = 0; i < r->nprocesses; i++)
			nt += r->processes[i].nthreads;
		KT_CHECK(nt == 1735, "ios26: 1735 threads (%zu)", nt);
		const kp_process *p;
		const kp_thread *t = kp_report_panicked_thread(r, &p);
		KT_CHECK(t && t->id == 51809 && p == &r->processes[0], "ios26: panicked tid 51809, process first");
		KT_STREQ(p ? p->name : NULL, "Test", "ios26: panicked process");
		KT_CHECK(r->has_panicked_pid && r->panicked_pid == 956, "ios26: pid 956");
		/* 17 kernel frames, the last [2,0] into the absolute image dropped; 6 user frames */
		KT_CHECK(t && t->nframes == 22, "ios26: panicked thread 22 frames (%zu)", t ? t->nframes : 0);
		/* frame 1: [1, 0x836944] -> base + off + KernelCache slide = an lr: line */
		KT_U64EQ(t ? t->frames[1].address : 0, 0xfffffff015b7e944ull, "ios26: frame 1 runtime address");
		KT_U64EQ(r->kernelcache_slide, 0xd3a4000, "ios26: KernelCache slide");
		int sep = -1;
		for (size_t i = 0; i < r->nimages; i++)
			if (r->images[i].uuid && strcmp(r->images[i].uuid, "AD3CDADB-06B6-32F5-9E47-9889901353CA") == 0)
				sep = (int)i;
		KT_CHECK(sep >= 0 && r->images[sep].in_backtrace && r->images[sep].name &&
		         strcmp(r->images[sep].name, "com.apple.driver.AppleSEPKeyStore") == 0,
		         "ios26: SEPKeyStore named and in backtrace from the panic text");
		KT_U64EQ(sep >= 0 ? r->images[sep].start : 0, 0xfffffff016a47020ull, "ios26: kext start");
		KT_CHECK(!r->truncated, "ios26: complete");
		kp_report_free(&r);
	}
}

static void corpus_t2(void)
{
	char path[4096];
	kp_report *r;
	kp_error err;
	snprintf(path, sizeof path, "%s/ips-t2-bridgeos-sleepwake-socwatchdog-1.ips", KP_REAL_DIR);
	if (kp_report_load(path, &r, &err) != KP_OK) {
		KT_SKIP("ips-t2 absent");
	} else {
		KT_CHECK(r->format == KP_FORMAT_IPS, "t2: ips");
		KT_STREQ(r->os_version, "Bridge OS 6.2 (19P744)", "t2: os_version");
		KT_STREQ(r->headline, "Unexpected SoC (system) watchdog reset occurred during sleep/wake transition", "t2: headline");
		KT_STREQ(r->product, "iBridge2,16", "t2: product");
		KT_STREQ(field(r, "macOSPanicString"), "not yet set", "t2: macOSPanicString kept");
		KT_STREQ(field(r, "header.caused_by"), "bridgeos", "t2: header caused_by kept");
		KT_CHECK(r->nprocesses == 0, "t2: no processes");
		KT_CHECK(r->arch == KP_ARCH_ARM64 && r->soc && strcmp(r->soc, "T8010") == 0, "t2: arm64 T8010");
		kp_report_free(&r);
	}
}

/* Issue 31 item 7: an Intel JSON whose macOSProcessedStackshotData is no
 * stackshot but base64 words; they are said, as written. */
static void corpus_inteljson_nested(void)
{
	kp_report *r = NULL;
	kp_error err;
	char path[1024];
	snprintf(path, sizeof path, "%s/inteljson-macos1581-vm-nestedpanic-nostackshot-1.panic", KP_REAL_DIR);
	if (kp_report_load(path, &r, &err) != KP_OK) {
		KT_SKIP("inteljson-macos1581 absent");
		return;
	}
	KT_CHECK(r->format == KP_FORMAT_INTEL_JSON, "nested: intel-json");
	KT_STREQ(r->headline, "Nested panic detected - entry count: 2 panic_caller: 0xffffff80109d360e", "nested: headline");
	bool said = false;
	for (size_t i = 0; i < r->nwarnings; i++)
		said |= r->warnings[i].line == 1 &&
		        strstr(r->warnings[i].msg, "\"no on disk or sleep/wake failure panickstashot found\"") != NULL;
	KT_CHECK(said, "nested: the stackshot member's words in a warning (line 1)");
	KT_CHECK(r->nprocesses == 0, "nested: no processes");
	kp_report_free(&r);
}

/* A stackshot (bug_type 288) that names its Mac only by modelCode: that is
 * the model.  Reconstructed from the format (the body keys of
 * panic-formats.md and the stackshot fixtures): no public stackshot .ips of
 * this shape was found to keep in tests/real. */
static void stackshot_model_code(void)
{
	kp_error err;
	kp_report *r = parse("{\"bug_type\":\"288\",\"timestamp\":\"2026-11-22 10:00:00.00 +0100\","
	                     "\"os_version\":\"macOS 26.1 (25B78)\"}\n"
	                     "{\n \"modelCode\" : \"Mac14,2\",\n \"reason\" : \"stackshot taken\"\n}\n", &err);
	KT_CHECK(r != NULL, "stackshot with modelCode parses (%s)", r ? "" : err.msg);
	if (!r)
		return;
	KT_CHECK(r->kind == KP_KIND_STACKSHOT, "bug_type 288: a stackshot");
	KT_STREQ(r->product, "Mac14,2", "modelCode is the model");
	kp_report_free(&r);
}

/* A watchdog report (bug_type 409) that names the process it blames by
 * procName only: the pid is the stackshot's process of that name.
 * Reconstructed from the format (the fixture WatchdogCrash's keys, its pid
 * left out): no public watchdog .ips of this shape was found to keep. */
static void watchdog_name_only(void)
{
	kp_error err;
	kp_report *r = parse("{\"bug_type\":\"409\",\"timestamp\":\"2026-11-22 10:00:00.00 +0100\"}\n"
	                     "{\n \"procName\" : \"fakedaemon\",\n \"reason\" : \"monitoring timed out for service\",\n"
	                     " \"processByPid\" : {\n"
	                     "  \"0\" : {\"pid\":0,\"procname\":\"kernel_task\",\"threadById\":{\"9\":{\"id\":9}}},\n"
	                     "  \"400\" : {\"pid\":400,\"procname\":\"fakedaemon\",\"threadById\":{\"5001\":{\"id\":5001}}}\n"
	                     " }\n}\n", &err);
	KT_CHECK(r != NULL, "watchdog naming its process only parses (%s)", r ? "" : err.msg);
	if (!r)
		return;
	KT_CHECK(r->kind == KP_KIND_WATCHDOG, "bug_type 409: a watchdog report");
	KT_STREQ(r->blamed_process, "fakedaemon", "blamed by procName");
	KT_CHECK(r->has_blamed_pid && r->blamed_pid == 400, "its pid from the stackshot (400)");
	KT_CHECK(r->nprocesses == 2 && r->processes[0].pid == 400, "the blamed process first");
	kp_report_free(&r);
}

/* An iOS forceReset (bug_type 151) saying what happened in "string", with
 * the panicked task: its headline and panicked task come from there.
 * Reconstructed from the format (no public forceReset .ips was found to
 * keep); the string's lines follow the panic text grammar. */
static void force_reset_string(void)
{
	kp_error err;
	kp_report *r = parse("{\"bug_type\":\"151\",\"timestamp\":\"2026-11-24 12:00:00.00 +0100\","
	                     "\"os_version\":\"iPhone OS 26.1 (23B85)\"}\n"
	                     "{\n \"product\" : \"iPhone12,5\",\n"
	                     " \"string\" : \"forceReset: user requested (button combination held)\\n"
	                     "Panicked task 0xfffffe1000000000: 10 pages, 2 threads: pid 77: backboardd\\n\"\n}\n", &err);
	KT_CHECK(r != NULL, "forceReset with a string parses (%s)", r ? "" : err.msg);
	if (!r)
		return;
	KT_CHECK(r->kind == KP_KIND_RESET, "bug_type 151: a reset");
	KT_STREQ(r->headline, "forceReset: user requested (button combination held)", "headline from string");
	KT_STREQ(r->panicked_process, "backboardd", "the panicked task from string");
	KT_CHECK(r->has_panicked_pid && r->panicked_pid == 77, "  its pid 77");
	KT_CHECK(r->nwarnings == 0, "no warning (%s)", r->nwarnings ? r->warnings[0].msg : "");
	kp_report_free(&r);
}

/* A nested panic (bug_type 210) whose panic string has no panic( line,
 * backtrace or Kernel version: listed as the panic it is, its first line
 * the headline, without a "no kernel panic here" warning beside it.
 * Reconstructed from the format (xnu's "Nested panic detected:" prefix; no
 * public report of this shape was found to keep). */
static void nested_panic_string(void)
{
	kp_error err;
	kp_report *r = parse("{\"bug_type\":\"210\",\"timestamp\":\"2026-11-24 12:00:00.00 +0100\","
	                     "\"os_version\":\"macOS 26.1 (25B78)\"}\n"
	                     "{\n \"product\" : \"Mac14,2\",\n \"panicFlags\" : \"0x1\",\n"
	                     " \"panicString\" : \"Nested panic detected:Kernel data abort. at pc 0xfffffe0012345678\\n\"\n}\n",
	                     &err);
	KT_CHECK(r != NULL, "nested panic parses (%s)", r ? "" : err.msg);
	if (!r)
		return;
	KT_CHECK(r->kind == KP_KIND_PANIC, "a panic");
	KT_STREQ(r->headline, "Nested panic detected:Kernel data abort. at pc 0xfffffe0012345678", "headline: its first line");
	bool said = false;
	for (size_t i = 0; i < r->nwarnings; i++)
		said |= strstr(r->warnings[i].msg, "no kernel panic here") != NULL;
	KT_CHECK(!said, "no 'no kernel panic here' warning beside the panic");
	KT_CHECK(r->nwarnings == 1 && strstr(r->warnings[0].msg, "shown as written"),
	         "said plainly: the string has no panic( line (%s)", r->nwarnings ? r->warnings[0].msg : "none");
	kp_report_free(&r);
}

/* ---- issue 31 item 7: the Intel JSON kcdata stackshot (fixtures written
 * by tests/fixtures/make_kcdata.py) ---- */

static kp_report *load_kc(const char *name)
{
	char path[1024];
	kp_report *r = NULL;
	kp_error err;
	snprintf(path, sizeof path, "%s/kcdata/%s", KP_FIXTURES, name);
	KT_CHECK(kp_report_load(path, &r, &err) == KP_OK, "%s loads (%s)", name, r ? "" : err.msg);
	return r;
}

static bool warned(const kp_report *r, const char *sub)
{
	for (size_t i = 0; i < r->nwarnings; i++)
		if (strstr(r->warnings[i].msg, sub))
			return true;
	return false;
}

static const kp_process *proc_pid(const kp_report *r, int64_t pid)
{
	for (size_t i = 0; i < r->nprocesses; i++)
		if (r->processes[i].has_pid && r->processes[i].pid == pid)
			return &r->processes[i];
	return NULL;
}

static void intel_kcdata(void)
{
	kp_report *r = load_kc("kcdata.panic");
	if (!r)
		return;
	KT_CHECK(r->format == KP_FORMAT_INTEL_JSON, "kcdata: intel-json");
	KT_CHECK(r->nwarnings == 0 && !r->truncated, "kcdata: no warning (%zu), not truncated", r->nwarnings);
	KT_CHECK(r->nprocesses == 3, "kcdata: 3 processes (%zu)", r->nprocesses);
	const kp_process *fc = &r->processes[0];
	KT_CHECK(fc->has_pid && fc->pid == 412 && fc->name && !strcmp(fc->name, "fakeclient"),
	         "kcdata: the text's panicked process first, its pid from the task");
	KT_CHECK(fc->nthreads == 3 && fc->threads[0].panicked && fc->threads[0].nframes == 5,
	         "kcdata: the text's panicked thread first, its 5 frames, then the task's threads");
	if (fc->nthreads == 3) {
		const kp_thread *t = &fc->threads[1];
		KT_CHECK(t->has_id && t->id == 5012 && t->state && !strcmp(t->state, "TH_RUN") &&
		         t->base_priority == 31 && t->sched_priority == 47, "kcdata: thread 5012's snapshot");
		KT_CHECK(t->nframes == 7 && !t->frames[4].user && t->frames[5].user, "kcdata: 5 kernel then 2 user frames");
		if (t->nframes == 7) {
			const kp_frame *k = &t->frames[2], *u = &t->frames[5];
			KT_CHECK(k->image >= 0 && r->images[k->image].kind == 'X' && k->offset == 0x6a9 &&
			         k->address == 0xffffff7f81a006a9ull, "kcdata: an unslid kext frame placed and slid");
			KT_CHECK(t->frames[0].image >= 0 && r->images[t->frames[0].image].kind == 'K' &&
			         t->frames[0].address == 0xffffff800b000544ull, "kcdata: a kernel frame (runtime = text's)");
			KT_CHECK(u->image >= 0 && r->images[u->image].kind == 'P' && r->images[u->image].base == 0x100000000ull &&
			         u->offset == 0x6a9, "kcdata: a user frame in its task's image");
		}
		KT_CHECK(fc->threads[2].has_id && fc->threads[2].id == 5013 && fc->threads[2].nframes == 0,
		         "kcdata: a thread without frames");
	}
	const kp_process *kt = proc_pid(r, 0);
	KT_CHECK(kt && kt->name && !strcmp(kt->name, "kernel_task") && kt->nthreads == 2, "kcdata: kernel_task, 2 threads");
	if (kt && kt->nthreads == 2) {
		const kp_thread *t = &kt->threads[0];
		KT_CHECK(t->id == 101 && t->name && !strcmp(t->name, "vm_pageout") && t->state &&
		         !strcmp(t->state, "TH_WAIT TH_UNINT") && t->nframes == 1, "kcdata: thread 101 (LR64)");
		KT_CHECK(t->has_continuation && t->continuation.image >= 0 && t->continuation.offset == 0x821,
		         "kcdata: its continuation placed in the kernel");
		KT_CHECK(kt->threads[1].nframes == 3 && kt->threads[1].frames[0].offset == 0x6a9,
		         "kcdata: thread 102's {lr, sp} frames (FRAME64)");
	}
	const kp_process *lg = proc_pid(r, 77);
	KT_CHECK(lg && lg->nthreads == 1 && lg->threads[0].nframes == 2 && lg->threads[0].name &&
	         !strcmp(lg->threads[0].name, "main") && lg->threads[0].dispatch_queue &&
	         !strcmp(lg->threads[0].dispatch_queue, "com.apple.main-thread"), "kcdata: legacyd's thread");
	if (lg && lg->nthreads == 1 && lg->threads[0].nframes == 2) {
		const kp_frame *f = &lg->threads[0].frames[1];
		KT_CHECK(f->user && f->address == 0x1750 && f->image >= 0 && r->images[f->image].base == 0x1000 &&
		         f->offset == 0x750, "kcdata: 32-bit LR and load info");
	}
	int shared = 0;
	for (size_t i = 0; i < r->nimages; i++)
		shared += r->images[i].kind == 'S' && r->images[i].base == 0x7fff20000000ull;
	KT_CHECK(shared == 1, "kcdata: the shared cache image at its slid base");
	kp_report_free(&r);

	/* the text names thread 5012: it is the text's, filled in */
	r = load_kc("kcdata-tid.panic");
	if (r) {
		const kp_thread *t = r->nprocesses ? &r->processes[0].threads[0] : NULL;
		KT_CHECK(r->nprocesses == 3 && r->processes[0].nthreads == 2, "kcdata-tid: no second copy of the panicked thread");
		KT_CHECK(t && t->panicked && t->id == 5012 && t->state && !strcmp(t->state, "TH_RUN") &&
		         t->sched_priority == 47 && t->nframes == 7 && t->frames[5].user && t->frames[5].offset == 0x6a9,
		         "kcdata-tid: state, priorities and user frames on the text's thread");
	}
	kp_report_free(&r);

	/* the old fixture's stand-in: a begin marker and zeros, nothing said;
	 * the same text with a whole stackshot groups with it (same keys) */
	kp_error err;
	if (kp_report_load(KP_FIXTURES "/reports/Kernel-2020-09-14-201744.panic", &r, &err) == KP_OK) {
		KT_CHECK(r->nprocesses == 1 && r->nwarnings == 0, "empty kcdata stackshot: the text's process only, no warning");
		kp_report *full = load_kc("kcdata.panic");
		kp_sig a, b;
		if (full && kp_sig_compute(r, NULL, NULL, &a, &err) == KP_OK) {
			if (kp_sig_compute(full, NULL, NULL, &b, &err) == KP_OK) {
				KT_CHECK(!strcmp(a.exact_key, b.exact_key) && !strcmp(a.group_key, b.group_key) &&
				         a.culprit && b.culprit && !strcmp(a.culprit, b.culprit),
				         "kcdata: the stackshot changes no signature (culprit %s)", b.culprit ? b.culprit : "-");
				kp_sig_free(&b);
			}
			kp_sig_free(&a);
		}
		kp_report_free(&full);
		kp_report_free(&r);
	}
}

/* Hostile stackshots: a warning naming the fault, what came before kept. */
static void intel_kcdata_hostile(void)
{
	static const struct {
		const char *file, *warning;
		size_t nprocs;
		bool truncated;
	} cases[] = {
		{"hostile-past-end.panic", "claims 2147483632 bytes, past the end", 3, true},
		{"hostile-unclosed.panic", "a task container (type 0x903) never closed", 3, true},
		{"hostile-count-overflow.panic", "array of 4294967295 elements of type 0x914 does not fit", 3, false},
		{"hostile-deep.panic", "containers nested deeper than 8", 2, false},
		{"hostile-huge-count.panic", "array of 4294967295 elements of type 0x31 does not fit", 3, false},
		{"hostile-stray-end.panic", "closes no open container", 2, false},
		{"delta.panic", "a delta stackshot (kcdata 0xde17a59a): not supported", 1, false},
		{"compressed.panic", "compressed kcdata buffer: not supported", 1, false},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		kp_report *r = load_kc(cases[i].file);
		if (!r)
			continue;
		KT_CHECK(warned(r, cases[i].warning), "%s: warns \"%s\"", cases[i].file, cases[i].warning);
		KT_CHECK(r->nprocesses == cases[i].nprocs && r->truncated == cases[i].truncated,
		         "%s: %zu processes (want %zu), truncated %d", cases[i].file, r->nprocesses, cases[i].nprocs,
		         r->truncated);
		KT_CHECK(r->processes[0].threads[0].panicked, "%s: the text's panicked thread first", cases[i].file);
		kp_report_free(&r);
	}
}

int main(void)
{
	nested_panic_string();
	stackshot_model_code();
	force_reset_string();
	watchdog_name_only();
	ips_fields();
	ips_truncated_in_processes();
	intel_json();
	refused();
	every_prefix();
	corpus_ios26();
	corpus_t2();
	corpus_inteljson_nested();
	intel_kcdata();
	intel_kcdata_hostile();
	return kt_done();
}
