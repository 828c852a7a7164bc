/* test_disasm.c: kp_disasm on the real fixtures (the instructions llvm-
 * objdump-19 prints for them are test_disasm.sh's oracle; here the shape
 * of an answer: window, mark, named targets, where the bytes come from) and
 * on hostile input: a truncated binary, an address outside every section,
 * a slice that is not there, a dSYM whose binary is missing: one named
 * error each, no crash (run under ASan with KP_SANITIZE). */
#include "kp_disasm.h"
#include "kp_macho.h"
#include "kp_symbols.h"
#include "kt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BIN KP_FIXTURES "/bin"

static const kp_disasm_insn *marked(const kp_disasm *d)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->insns[i].marked)
			return &d->insns[i];
	return NULL;
}

static void file_cases(void)
{
	kp_disasm d;
	kp_error err;
	/* x86_64: 0x5e2 is panic's return address after `call panic_trap_to_debugger` */
	kp_status st = kp_disasm_file(BIN "/fakekernel.x86_64", NULL, 0x5e2, 8, &d, &err);
	KT_CHECK(st == KP_OK, "x86_64 kernel at 0x5e2: %s", st ? err.msg : "ok");
	KT_CHECK(d.n == 8, "x86_64: 8 instructions (got %zu)", d.n);
	const kp_disasm_insn *m = marked(&d);
	KT_CHECK(m && m->address == 0x5e2 && m - d.insns == 4, "x86_64: the 5th holds 0x5e2");
	KT_CHECK(m && m > d.insns && m[-1].has_target && m[-1].target == 0x540 &&
	             strcmp(m[-1].mnemonic, "call") == 0,
	         "x86_64: the call before it targets 0x540");
	KT_STREQ(m && m > d.insns ? m[-1].target_name : NULL, "panic_trap_to_debugger",
	         "x86_64: the call target named from the symbol table");
	char line[400];
	kp_disasm_format(&m[-1], line, sizeof line);
	KT_STREQ(line, "call 0x540 <panic_trap_to_debugger>", "x86_64: formatted as llvm-objdump");
	KT_STREQ(d.arch, "x86_64", "x86_64: arch");
	kp_disasm_free(&d);
	KT_CHECK(d.insns == NULL && d.n == 0, "free zeroes");

	/* arm64, universal file: the slice chosen by arch */
	st = kp_disasm_file(BIN "/fakekext.universal", "arm64", 0xc1f0, 5, &d, &err);
	KT_CHECK(st == KP_OK && d.n == 5, "arm64 slice of the universal kext: %s",
	         st ? err.msg : "5 instructions");
	m = marked(&d);
	KT_CHECK(m && m->address == 0xc1f0 && d.insns[0].address == 0xc1e8,
	         "arm64: 2 before, 4-byte steps");
	kp_disasm_free(&d);

	/* at a section's start: nothing before it is invented */
	st = kp_disasm_file(BIN "/fakekext.arm64", NULL, 0xc000, 6, &d, &err);
	KT_CHECK(st == KP_OK && d.n == 6 && d.insns[0].address == 0xc000 && d.insns[0].marked,
	         "arm64 at the section's first byte: starts there");
	kp_disasm_free(&d);

	/* hostile: outside every section, a missing slice, a universal file
	 * without an arch, a dSYM without bytes, no file, a truncated binary */
	st = kp_disasm_file(BIN "/fakekext.arm64", NULL, 0x7fff0000, 6, &d, &err);
	KT_CHECK(st == KP_ERR_NOTFOUND && strstr(err.msg, "outside every section"),
	         "address outside __TEXT: %s", err.msg);
	KT_CHECK(d.insns == NULL && d.n == 0, "nothing handed out on an error");
	st = kp_disasm_file(BIN "/fakekext.universal", "i386", 0xc000, 6, &d, &err);
	KT_CHECK(st == KP_ERR_NOTFOUND && strstr(err.msg, "no i386 slice"), "wrong arch: %s", err.msg);
	st = kp_disasm_file(BIN "/fakekext.universal", NULL, 0xc000, 6, &d, &err);
	KT_CHECK(st == KP_ERR_USAGE, "universal without an arch: %s", err.msg);
	st = kp_disasm_file(BIN "/fakekext.arm64.dSYM/Contents/Resources/DWARF/fakekext.arm64", NULL,
	                    0xc000, 6, &d, &err);
	KT_CHECK(st == KP_ERR_NOTFOUND && strstr(err.msg, "no code bytes"), "a dSYM: %s", err.msg);
	st = kp_disasm_file(BIN "/no-such-file", NULL, 0xc000, 6, &d, &err);
	KT_CHECK(st == KP_ERR_IO, "missing file: %s", err.msg);

	FILE *in = fopen(BIN "/fakekext.x86_64", "rb");
	char tmp[] = "/tmp/kpdisasm.XXXXXX";
	int fd = mkstemp(tmp);
	static unsigned char buf[1 << 20];
	size_t len = in ? fread(buf, 1, sizeof buf, in) : 0;
	if (in)
		fclose(in);
	/* cut inside __text: the header now points past the end of the file */
	KT_CHECK(fd >= 0 && len > 0x560 && write(fd, buf, 0x560) == 0x560, "truncated copy written");
	if (fd >= 0)
		close(fd);
	st = kp_disasm_file(tmp, NULL, 0x550, 6, &d, &err);
	KT_CHECK(st == KP_ERR_FORMAT && d.n == 0, "truncated binary: one FORMAT error (%s)", err.msg);
	unlink(tmp);

	/* a call through a symbol stub names the symbol (LC_DYSYMTAB) */
	kp_macho *mo = NULL;
	const char *name = NULL;
	if (kp_macho_open(BIN "/fakekext.arm64", &mo, &err) == KP_OK) {
		const kp_macho_slice *sl = kp_macho_slice_at(mo, 0);
		KT_CHECK(kp_macho_stub_symbol(sl, 0x574, &name) && strcmp(name, "_panic") == 0,
		         "stub at 0x574: _panic (%s)", name ? name : "none");
		KT_CHECK(kp_macho_stub_symbol(sl, 0x570, &name) && strcmp(name, "_IOLog") == 0,
		         "inside the stub at 0x568: _IOLog");
		KT_CHECK(!kp_macho_stub_symbol(sl, 0x580, &name), "the stub helper is no stub");
		KT_CHECK(!kp_macho_stub_symbol(sl, 0xc000, &name), "__text is no stub");
		kp_macho_close(&mo);
	}
	st = kp_disasm_file(BIN "/fakekext.arm64", NULL, 0xc1f0, 3, &d, &err);
	KT_CHECK(st == KP_OK && d.n == 3 && d.insns[0].has_target && d.insns[0].target == 0x574,
	         "the kext's call to panic goes through its stub");
	KT_STREQ(st == KP_OK ? d.insns[0].target_name : NULL, "stub for panic", "the stub named");
	kp_disasm_free(&d);

	/* count 0 and a huge count are clamped, not trusted */
	st = kp_disasm_file(BIN "/fakekext.x86_64", NULL, 0x550, 0, &d, &err);
	KT_CHECK(st == KP_OK && d.n == 1 && d.insns[0].marked, "count 0: the one instruction");
	kp_disasm_free(&d);
	st = kp_disasm_file(BIN "/fakekext.x86_64", NULL, 0x550, (size_t)-1, &d, &err);
	KT_CHECK(st == KP_OK && d.n > 1 && d.n <= KP_DISASM_MAX, "a huge count is clamped (%zu)", d.n);
	kp_disasm_free(&d);
}

/* A report's frames through kp_symbols: the bytes come from the binary
 * next to the dSYM, or the error says where it was looked for. */
static void frame_cases(void)
{
	kp_report *r = NULL;
	kp_error err;
	if (kp_report_load(KP_FIXTURES "/reports/Kernel_2020-08-03-094512_kpbrowse-demo.panic", &r,
	                   &err) != KP_OK) {
		KT_CHECK(0, "demo report loads: %s", err.msg);
		return;
	}
	const kp_process *p;
	const kp_thread *t = kp_report_panicked_thread(r, &p);
	const char *paths[] = {BIN};
	kp_symbols_opts o = {.paths = paths, .npaths = 1, .no_env = true, .no_system = true,
	                     .cache_dir = ""};
	kp_symbols *s = NULL;
	KT_CHECK(kp_symbols_new(&o, &s, &err) == KP_OK, "symbols");
	kp_symbols_set_report(s, r);
	kp_disasm d;
	kp_status st = kp_disasm_frame(s, r, t, 1, 7, &d, &err);
	KT_CHECK(st == KP_OK && marked(&d) && marked(&d)->address == 0x5e2,
	         "frame 1: its return address 0x5e2 marked (%s)", st ? err.msg : "ok");
	KT_CHECK(st == KP_OK && strstr(d.path, "/bin/fakekernel.x86_64") && !strstr(d.path, ".dSYM"),
	         "frame 1: bytes from the binary next to the dSYM (%s)", d.path);
	kp_disasm_free(&d);
	kp_symbols_free(&s);

	/* only the dSYM bundle given: the binary is looked for next to it */
	const char *dsym_only[] = {BIN "/fakekernel.x86_64.dSYM"};
	o.paths = dsym_only;
	KT_CHECK(kp_symbols_new(&o, &s, &err) == KP_OK, "symbols (dSYM only)");
	kp_symbols_set_report(s, r);
	st = kp_disasm_frame(s, r, t, 0, 3, &d, &err);
	KT_CHECK(st == KP_OK && d.n == 3, "dSYM only: the sibling binary found (%s)",
	         st ? err.msg : d.path);
	kp_disasm_free(&d);
	kp_symbols_free(&s);

	/* a dSYM copied alone: no code bytes, and where they were looked for */
	char dir[] = "/tmp/kpdisasm-dsym.XXXXXX";
	KT_CHECK(mkdtemp(dir) != NULL, "temp folder");
	char cmd[512];
	snprintf(cmd, sizeof cmd, "cp -R '%s/fakekernel.x86_64.dSYM' '%s/'", BIN, dir);
	KT_CHECK(system(cmd) == 0, "dSYM copied alone");
	const char *lone[] = {dir};
	o.paths = lone;
	KT_CHECK(kp_symbols_new(&o, &s, &err) == KP_OK, "symbols (lone dSYM)");
	kp_symbols_set_report(s, r);
	st = kp_disasm_frame(s, r, t, 0, 3, &d, &err);
	KT_CHECK(st == KP_ERR_NOTFOUND && strstr(err.msg, "no code bytes: the binary with UUID "
	                                                  "4C4C44EF-5555-3144-A1CD-413F9846D32A was not found") &&
	             strstr(err.msg, "fakekernel.x86_64 ") == NULL,
	         "lone dSYM: %s", err.msg);
	KT_CHECK(strstr(err.msg, "(looked in ") && strstr(err.msg, "/fakekernel.x86_64,") != NULL,
	         "lone dSYM: names the path tried next to it");
	kp_symbols_free(&s);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	KT_CHECK(system(cmd) == 0, "cleaned up");
	kp_report_free(&r);

	/* hostile: a frame far outside the kernel's sections */
	char bad[] = "/tmp/kpdisasm-out.XXXXXX";
	int fd = mkstemp(bad);
	if (fd >= 0)
		close(fd);
	snprintf(cmd, sizeof cmd, "sed 's/0xffffff8012c00544/0xffffff8012cf0544/g' '%s' >'%s'",
	         KP_FIXTURES "/reports/Kernel_2020-08-03-094512_kpbrowse-demo.panic", bad);
	KT_CHECK(fd >= 0 && system(cmd) == 0 && kp_report_load(bad, &r, &err) == KP_OK,
	         "a report with frame 0 at kernel + 0xf0544");
	unlink(bad);
	if (!r)
		return;
	t = kp_report_panicked_thread(r, &p);
	o.paths = paths;
	KT_CHECK(kp_symbols_new(&o, &s, &err) == KP_OK, "symbols (outside)");
	kp_symbols_set_report(s, r);
	kp_disasm d2;
	st = kp_disasm_frame(s, r, t, 0, 3, &d2, &err);
	KT_CHECK(st == KP_ERR_NOTFOUND && strstr(err.msg, "0xf0544 is outside every section of the "
	                                                  "image 4C4C44EF-5555-3144-A1CD-413F9846D32A"),
	         "address outside __TEXT: one named error (%s)", err.msg);
	KT_CHECK(d2.n == 0 && d2.insns == NULL, "address outside __TEXT: nothing handed out");
	kp_symbols_free(&s);
	kp_report_free(&r);
}

int main(void)
{
	if (!kp_disasm_available()) {
		kp_disasm d;
		kp_error err;
		kp_status st = kp_disasm_file(BIN "/fakekext.x86_64", NULL, 0x550, 4, &d, &err);
		KT_CHECK(st == KP_ERR_USAGE && strstr(err.msg, "without Capstone"),
		         "no Capstone: says how to get it (%s)", err.msg);
		return kt_done();
	}
	file_cases();
	frame_cases();
	return kt_done();
}
