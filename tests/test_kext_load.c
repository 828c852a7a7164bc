/* test_kext_load.c: the `stackshot -i` text parser (text_stackshot.c) and
 * kp_report_set_load (issue 14 item 9) on texts written here: the grammar's
 * variants, the sniffing, and where --load places frames (nearest start
 * below, in any order, within 16 MiB, a named module kept, the kernel's
 * frames and user frames untouched, a panic's own mapping untouched); the
 * bundle-id search of kp_symbols on the fixture dSYM. */
#include "kt.h"
#include "kp_report.h"
#include "kp_symbols.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static kp_report *parse(const char *text)
{
	kp_report *r = NULL;
	kp_error err;
	if (kp_report_parse(text, strlen(text), "t.txt", &r, &err) != KP_OK)
		printf("# parse: %s\n", err.msg);
	return r;
}

static const kp_frame *frame(const kp_report *r, size_t p, size_t t, size_t f)
{
	if (p >= r->nprocesses || t >= r->processes[p].nthreads || f >= r->processes[p].threads[t].nframes)
		return NULL;
	return &r->processes[p].threads[t].frames[f];
}

static const char *image_name(const kp_report *r, const kp_frame *f)
{
	return f && f->image >= 0 ? r->images[f->image].name : NULL;
}

static const char TEXT[] =
	"  PID: 7\r\n"
	"  Process: kextd\r\n"
	"Thread ID: 1234\n"
	"Thread name: worker\n"
	"Thread state: 0x1 == TH_WAIT\n"
	"Thread base priority: 31\n"
	"Thread sched priority: 47\n"
	"Thread mystery: 12\n"
	"Kernel stack:\n"
	"\t0xffffff7f81000100 (0xffffff7f81000100)\n"
	"\t0xffffff7f82000200\n"
	"\tfoo (in com.x.A) + 0x10 (0xffffff7f81000010)\n"
	"\tthread_block (in mach_kernel) + 12 (0xffffff80002a0000)\n"
	"\t0xffffff7f83000000 (0xffffff7f83000000)\n"
	"not a frame line\n"
	"\t0xffffff7f81000999 (0xffffff7f81000999)\n"
	"User stack:\n"
	"\t0xffffff7f81000300 (0xffffff7f81000300)\n"   /* inside A: still never placed */
	"Process: loner\n"
	"Thread ID: 0x10\n"
	"Kernel stack:\n"
	"\t0xffffff7f81000200 (0xffffff7f81000200)\n";

static void test_grammar(void)
{
	KT_CHECK(kp_report_sniff(TEXT, strlen(TEXT)) == KP_FORMAT_TEXT, "sniffed as text");
	kp_report *r = parse(TEXT);
	KT_CHECK(r != NULL, "parses");
	if (!r)
		return;
	KT_CHECK(r->kind == KP_KIND_STACKSHOT && r->format == KP_FORMAT_TEXT, "kind stackshot, format text");
	KT_CHECK(r->nprocesses == 2, "two processes (%zu)", r->nprocesses);
	const kp_process *p = &r->processes[0];
	KT_CHECK(p->has_pid && p->pid == 7, "PID with blanks and CR");
	KT_STREQ(p->name, "kextd", "Process name");
	KT_CHECK(!r->processes[1].has_pid, "a Process line alone starts a process");
	KT_STREQ(r->processes[1].name, "loner", "  and names it");
	const kp_thread *t = &p->threads[0];
	KT_CHECK(t->has_id && t->id == 1234, "a decimal Thread ID");
	KT_CHECK(r->processes[1].threads[0].id == 0x10, "a hex Thread ID");
	KT_STREQ(t->name, "worker", "Thread name");
	KT_STREQ(t->state, "TH_WAIT", "state names after ==");
	KT_CHECK(t->has_base_priority && t->base_priority == 31 && t->has_sched_priority && t->sched_priority == 47,
	         "priorities");
	KT_CHECK(t->nframes == 6 && t->frames[5].user && t->frames[5].address == 0xffffff7f81000300,
	         "a line that is no frame ends the stack: 5 kernel frames, then the user stack's (%zu frames)",
	         t->nframes);
	const kp_frame *f = frame(r, 0, 0, 1);
	KT_CHECK(f && f->has_address && f->address == 0xffffff7f82000200 && f->image < 0, "a bare address alone");
	f = frame(r, 0, 0, 2);
	KT_STREQ(f ? f->symbol : NULL, "foo", "named frame: symbol");
	KT_CHECK(f && f->has_symbol_offset && f->symbol_offset == 0x10, "named frame: a hex + 0x10");
	KT_STREQ(image_name(r, f), "com.x.A", "named frame: its module");
	f = frame(r, 0, 0, 3);
	KT_CHECK(f && f->report_kernel && f->symbol_offset == 12 && !f->has_offset, "mach_kernel: decimal + 12, by name");
	KT_STREQ(image_name(r, f), "kernel", "  the kernel image");
	KT_CHECK(r->arch == KP_ARCH_X86_64, "arch x86_64 from the addresses");

	/* --load in either order: nearest start below, within 16 MiB */
	KT_CHECK(kp_report_set_load(r, "com.x.B", 0xffffff7f82000000, NULL), "load B");
	KT_CHECK(kp_report_set_load(r, "com.x.A", 0xffffff7f81000000, "4C4C4449-5555-3144-A1F6-9DFF5C39A349"),
	         "load A");
	f = frame(r, 0, 0, 0);
	KT_STREQ(image_name(r, f), "com.x.A", "a frame above A's start and below B's is A's");
	KT_CHECK(f && f->has_offset && f->offset == 0x100, "  offset from A's start");
	f = frame(r, 0, 0, 1);
	KT_STREQ(image_name(r, f), "com.x.B", "a frame above B's start is B's");
	KT_CHECK(f && f->offset == 0x200, "  offset 0x200");
	f = frame(r, 0, 0, 2);
	KT_CHECK(f && f->has_offset && f->offset == 0x10, "the named frame is placed in its module");
	f = frame(r, 0, 0, 3);
	KT_CHECK(f && f->report_kernel && !f->has_offset && !strcmp(image_name(r, f), "kernel"),
	         "the kernel's frame is untouched");
	f = frame(r, 0, 0, 4);
	KT_CHECK(f && f->image < 0, "16 MiB above the last start: no image");
	f = frame(r, 0, 0, 5);
	KT_CHECK(f && f->user && f->image < 0, "a user frame is never placed");
	const kp_image *a = &r->images[frame(r, 0, 0, 0)->image];
	KT_STREQ(a->uuid, "4C4C4449-5555-3144-A1F6-9DFF5C39A349", "A gets the UUID given");
	KT_CHECK(a->user_load && a->has_start && a->start == 0xffffff7f81000000, "A's start");
	/* a later, closer start takes the frames above it */
	KT_CHECK(kp_report_set_load(r, "com.x.C", 0xffffff7f81000080, NULL), "load C");
	KT_STREQ(image_name(r, frame(r, 0, 0, 0)), "com.x.C", "a closer start placed later wins");
	KT_STREQ(image_name(r, frame(r, 0, 0, 2)), "com.x.A", "  but a frame the text names stays in its module");
	kp_report_free(&r);
}

static void test_panic_untouched(void)
{
	static const char P[] =
		"panic(cpu 0 caller 0xffffff7f81a00100): \"x\"@/x.c:1\n"
		"Backtrace (CPU 0), Frame : Return Address\n"
		"0xffffff81f5a3bc40 : 0xffffff7f81a00100\n"
		"      Kernel Extensions in backtrace:\n"
		"         com.x.A(1.0)[4C4C4449-5555-3144-A1F6-9DFF5C39A349]@0xffffff7f81a00000->0xffffff7f81a00fff\n"
		"Kernel version:\nDarwin Kernel Version 19.6.0: x; root:xnu-6153.141.1~1/RELEASE_X86_64\n";
	kp_report *r = parse(P);
	KT_CHECK(r && r->kind == KP_KIND_PANIC, "a panic text is no stackshot");
	if (!r)
		return;
	KT_CHECK(kp_report_set_load(r, "com.x.Z", 0xffffff7f81a00080, NULL), "load Z");
	const kp_frame *f = frame(r, 0, 0, 0);
	KT_STREQ(image_name(r, f), "com.x.A", "a frame the report placed stays");
	KT_CHECK(f && f->offset == 0x100, "  with its offset");
	kp_report_free(&r);
}

static void test_not_stackshot(void)
{
	/* the three lines are needed: a text with PID and Kernel stack only is
	 * left to the panic parser (which finds no panic) */
	static const char T[] = "PID: 1\nKernel stack:\n\t0x1 (0x1)\n";
	kp_report *r = NULL;
	kp_error err;
	KT_CHECK(kp_report_parse(T, strlen(T), "t", &r, &err) != KP_OK && !r, "no Thread ID: not read as a stackshot");
}

static void test_bundle_search(void)
{
	char dir[] = "/tmp/kt-kextload-XXXXXX";
	if (!mkdtemp(dir)) {
		KT_SKIP("mkdtemp");
		return;
	}
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "cp -R '%s/bin/fakekext.x86_64.dSYM' '%s/FakeDriver.kext.dSYM'", KP_FIXTURES, dir);
	if (system(cmd) != 0) {
		KT_SKIP("cp -R");
		return;
	}
	const char *paths[] = {dir};
	kp_symbols_opts o = {.paths = paths, .npaths = 1, .no_env = true, .no_system = true, .cache_dir = ""};
	kp_symbols *s = NULL;
	KT_CHECK(kp_symbols_new(&o, &s, NULL) == KP_OK, "symbols");
	char uuid[37] = "";
	const char *p = s ? kp_symbols_find_bundle(s, "com.kpbrowse.FakeDriver", "x86_64", uuid) : NULL;
	KT_CHECK(p && strstr(p, "FakeDriver.kext.dSYM/Contents/Resources/DWARF/"), "found by folder name (%s)",
	         p ? p : "none");
	KT_STREQ(uuid, "4C4C4449-5555-3144-A1F6-9DFF5C39A349", "  its UUID");
	KT_CHECK(s && !kp_symbols_find_bundle(s, "com.kpbrowse.Other", "x86_64", uuid), "another bundle: none");
	KT_CHECK(s && !kp_symbols_find_bundle(s, "FakeDriver.kext", "x86_64", uuid), "not by a part of a name");
	char b[64];
	uint64_t addr;
	KT_CHECK(kp_symbols_parse_load("com.x.A=0xffffff7f80e40000", b, sizeof b, &addr) && !strcmp(b, "com.x.A") &&
	         addr == 0xffffff7f80e40000, "a --load spec");
	KT_CHECK(!kp_symbols_parse_load("com.x.A=12", b, sizeof b, &addr), "a decimal address is refused");
	KT_CHECK(!kp_symbols_parse_load("c\x1b[2J=0x10", b, sizeof b, &addr), "a control byte in the id is refused");
	kp_symbols_free(&s);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	(void)!system(cmd);
}

int main(void)
{
	test_grammar();
	test_panic_untouched();
	test_not_stackshot();
	test_bundle_search();
	return kt_done();
}
