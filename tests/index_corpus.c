/* index_corpus.c: generated panic reports of known structure (see
 * index_corpus.h). */
#include "index_corpus.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

const gen_bug gen_bugs[] = {
	{"Widget ring overflow: slot 0x%x of %d busy", "WidgetRing.cpp", 412,
	 "com.example.driver.Widget", "5E7A1C2B-9D44-4F1E-8B3A-77C0DE11A001", 6,
	 {0x1a2c, 0x1b40, 0x2f88, 0x3004, 0x3120, 0x0f10}},
	{"Widget DMA mapping failed for descriptor 0x%x (len %d)", "WidgetDMA.cpp", 97,
	 "com.example.driver.Widget", "5E7A1C2B-9D44-4F1E-8B3A-77C0DE11A001", 6,
	 {0x4410, 0x4588, 0x2f88, 0x3004, 0x3120, 0x0f10}},
	{"Gadget watchdog: firmware stopped responding after %d ms (code 0x%x)", "Gadget.c", 1203,
	 "org.sample.kext.Gadget", "0B1D2E3F-4A5B-4C6D-8E7F-90A1B2C3D4E5", 5,
	 {0x0988, 0x0a10, 0x0c44, 0x0d00, 0x0e20}},
};

const gen_build gen_builds[] = {
	{"21E258", "B6F8637B-0844-355F-8C82-60FA06149384", {0x73e2d, 0x1d3cb6, 0x1c350d, 0x13a60},
	 {0x804abc, 0x8730db, 0x14246}},
	{"21F79", "C2A94E10-77B3-3E55-9D10-1AB2C3D4E5F6", {0x74f1d, 0x1d4ab6, 0x1c460d, 0x13b70},
	 {0x805bcc, 0x8741eb, 0x14356}},
};

const char gen_dep_uuid[] = "A436E92C-DE10-3718-AEF4-ED2A788A466A";

/* Writes the report text into buf (>= 8 KB); returns its length. */
size_t gen_report(char *buf, size_t size, int bug, int build, int incident)
{
	const gen_bug *b = &gen_bugs[bug];
	const gen_build *k = &gen_builds[build];
	uint64_t slide = 0x200000ull * (uint64_t)(incident % 97 + 1);
	uint64_t ktext = 0xffffff8000210000ull + slide;
	uint64_t kstart = 0xffffff7f99500000ull + slide * 3;
	uint64_t kend = kstart + 0x7ffff;
	char msg[200];
	snprintf(msg, sizeof msg, b->msg, 0x1000 + incident * 16, incident + 3);
	static const char *const days[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
	int day = incident % 28 + 1;
	size_t n = 0;
#define GEN(...) n += (size_t)snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__)
	GEN("Anonymous UUID:       %08X-2AEA-A951-3785-013ECFB913EA\n\n", 0x32BC0000u + (unsigned)incident);
	GEN("%s Mar %2d %02d:%02d:%02d 2022\n\n*** Panic Report ***\n", days[day % 7], day,
	    incident % 24, incident % 60, (incident * 7) % 60);
	GEN("panic(cpu %d caller 0x%" PRIx64 "): \"%s\" @/Library/Caches/com.apple.xbs/Sources/%s/%s:%d\n",
	    incident % 4, kstart + b->kext_off[0], msg, b->kext, b->file, b->line);
	GEN("Panicked task 0xffffff86ae9bf700: 10 threads: pid %d: WindowServer\n", 150 + incident);
	GEN("Backtrace (CPU %d), panicked thread: 0xffffff99e0a44000, Frame : Return Address\n",
	    incident % 4);
	uint64_t fp = 0xffffffd0ec273540ull;
	for (int i = 0; i < 4; i++, fp += 0x50)
		GEN("0x%" PRIx64 " : 0x%" PRIx64 " \n", fp, ktext + k->machinery[i]);
	for (int i = 0; i < b->nframes; i++, fp += 0x50)
		GEN("0x%" PRIx64 " : 0x%" PRIx64 " \n", fp, kstart + b->kext_off[i]);
	for (int i = 0; i < 3; i++, fp += 0x50)
		GEN("0x%" PRIx64 " : 0x%" PRIx64 " \n", fp, ktext + k->tail[i]);
	GEN("      Kernel Extensions in backtrace:\n");
	GEN("         %s(1.2.3)[%s]@0x%" PRIx64 "->0x%" PRIx64 "\n", b->kext, b->kext_uuid, kstart, kend);
	GEN("            dependency: com.apple.iokit.IOPCIFamily(2.9)[%s]@0x%" PRIx64 "->0x%" PRIx64 "\n",
	    gen_dep_uuid, ktext + 0x2bf3000, ktext + 0x2c1efff);
	GEN("\nProcess name corresponding to current thread (0xffffff99e0a44000): WindowServer\n\n");
	GEN("Mac OS version:\n%s\n\nKernel version:\n", k->build);
	GEN("Darwin Kernel Version 21.4.0: Fri Mar 18 00:45:05 PDT 2022; root:xnu-8020.101.4~15/RELEASE_X86_64\n");
	GEN("Kernel UUID: %s\n", k->kernel_uuid);
	GEN("KernelCache slide: 0x%016" PRIx64 "\n", slide - 0x10000);
	GEN("KernelCache base:  0x%016" PRIx64 "\n", ktext - 0x10000);
	GEN("Kernel slide:      0x%016" PRIx64 "\n", slide);
	GEN("Kernel text base:  0x%016" PRIx64 "\n", ktext);
	GEN("System model name: iMac18,2 (Mac-77F17D7DA9285301)\n");
	GEN("System uptime in nanoseconds: %d\n", 123456789 + incident);
	GEN("last started kext at 1234567: %s\t1.2.3 (addr 0x%" PRIx64 ", size 524288)\n", b->kext, kstart);
	GEN("loaded kexts:\n%s\t1.2.3\ncom.apple.iokit.IOPCIFamily\t2.9\n", b->kext);
#undef GEN
	return n < size ? n : size - 1;
}

/* A bug_type 309 (app crash) .ips: not a panic, to be skipped. */
static const char gen_app_crash[] =
	"{\"app_name\":\"Preview\",\"timestamp\":\"2022-03-02 10:00:00.00 +0100\",\"bug_type\":\"309\","
	"\"os_version\":\"macOS 12.3 (21E258)\",\"incident_id\":\"0F6B3A8E-1111-4C2D-9E3F-AAAAAAAAAAAA\"}\n"
	"{\n  \"pid\" : 812,\n  \"procName\" : \"Preview\",\n  \"exception\" : {\"type\" : \"EXC_BAD_ACCESS\"}\n}\n";

int gen_write(const char *dir, const char *name, const char *data, size_t len)
{
	char path[4096];
	int n = snprintf(path, sizeof path, "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof path)
		return -1;
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = fwrite(data, 1, len, f);
	return fclose(f) == 0 && w == len ? 0 : -1;
}

/* The known corpus under dir (which must exist):
 *   bugA-1.panic bugA-2.panic  bug 0, build 0, incidents 1 and 2
 *   bugA-3.panic               bug 0, build 1, incident 3
 *   Retired/bugA-1.panic       byte copy of bugA-1
 *   bugB-1.panic               bug 1 (same kext as A), build 0, incident 4
 *   copy-of-bugB.panic         byte copy of bugB-1
 *   gadget-1.panic             bug 2 (another kext), build 1, incident 5
 *   Preview-2022.ips           bug_type 309: skipped
 *   notes.txt                  not a report: skipped
 * Expected: 9 files, 5 new, 2 duplicates, 2 skipped; 3 groups (A x3, B, C). */
int gen_corpus(const char *dir)
{
	char sub[4096], buf[16384];
	snprintf(sub, sizeof sub, "%s/Retired", dir);
	if (mkdir(sub, 0755) != 0 && errno != EEXIST)
		return -1;
	size_t n;
	int rc = 0;
	n = gen_report(buf, sizeof buf, 0, 0, 1);
	rc |= gen_write(dir, "bugA-1.panic", buf, n);
	rc |= gen_write(sub, "bugA-1.panic", buf, n);
	n = gen_report(buf, sizeof buf, 0, 0, 2);
	rc |= gen_write(dir, "bugA-2.panic", buf, n);
	n = gen_report(buf, sizeof buf, 0, 1, 3);
	rc |= gen_write(dir, "bugA-3.panic", buf, n);
	n = gen_report(buf, sizeof buf, 1, 0, 4);
	rc |= gen_write(dir, "bugB-1.panic", buf, n);
	rc |= gen_write(dir, "copy-of-bugB.panic", buf, n);
	n = gen_report(buf, sizeof buf, 2, 1, 5);
	rc |= gen_write(dir, "gadget-1.panic", buf, n);
	rc |= gen_write(dir, "Preview-2022.ips", gen_app_crash, sizeof gen_app_crash - 1);
	rc |= gen_write(dir, "notes.txt", "shopping list\n", 14);
	return rc;
}

/* count reports spread over several bugs, builds and incidents, in
 * subfolders of 500. */
int gen_large(const char *dir, int count)
{
	char sub[4096], name[64], buf[16384];
	for (int i = 0; i < count; i++) {
		if (i % 500 == 0) {
			snprintf(sub, sizeof sub, "%s/d%03d", dir, i / 500);
			if (mkdir(sub, 0755) != 0 && errno != EEXIST)
				return -1;
		}
		size_t n = gen_report(buf, sizeof buf, i % 3, (i / 3) % 2, 100 + i);
		snprintf(name, sizeof name, "r%05d.panic", i);
		if (gen_write(sub, name, buf, n) != 0)
			return -1;
	}
	return 0;
}
