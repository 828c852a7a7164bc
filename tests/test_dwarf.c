/* test_dwarf.c: kp_dwarf against llvm-symbolizer --inlining (the oracle),
 * for every instruction of every fixture dSYM slice; DWARF-less slices;
 * mutated dSYMs (must fail cleanly, never crash); kp_demangle. */
#include "kt_slurp.h"
#include "kp_demangle.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kp_dwarf.h"
#include "kp_macho.h"
#include "kt.h"

#define BIN KP_FIXTURES "/bin/"

struct fixture {
	const char *binary; /* for instruction boundaries (the dSYM has no code) */
	const char *dwarf;  /* the DWARF file inside the .dSYM */
	const char *arch;
};

static const struct fixture fixtures[] = {
	{BIN "fakekext.arm64", BIN "fakekext.arm64.dSYM/Contents/Resources/DWARF/fakekext.arm64", "arm64"},
	{BIN "fakekext.x86_64", BIN "fakekext.x86_64.dSYM/Contents/Resources/DWARF/fakekext.x86_64", "x86_64"},
	{BIN "fakekernel.arm64", BIN "fakekernel.arm64.dSYM/Contents/Resources/DWARF/fakekernel.arm64", "arm64"},
	{BIN "fakekernel.x86_64", BIN "fakekernel.x86_64.dSYM/Contents/Resources/DWARF/fakekernel.x86_64", "x86_64"},
	{BIN "fakekext.universal", BIN "fakekext.universal.dSYM/Contents/Resources/DWARF/fakekext.universal", "arm64"},
	{BIN "fakekext.universal", BIN "fakekext.universal.dSYM/Contents/Resources/DWARF/fakekext.universal", "x86_64"},
};
#define NFIX (sizeof fixtures / sizeof fixtures[0])

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static bool have_tool(const char *name)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
	return system(cmd) == 0;
}

/* Growable text buffer. */
struct buf {
	char *s;
	size_t n, cap;
};

static void buf_add(struct buf *b, const char *s, size_t len)
{
	if (b->n + len + 1 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		while (cap < b->n + len + 1)
			cap *= 2;
		b->s = realloc(b->s, cap);
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, len);
	b->n += len;
	b->s[b->n] = '\0';
}

static void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(struct buf *b, const char *fmt, ...)
{
	char tmp[4096];
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (len > 0)
		buf_add(b, tmp, (size_t)len < sizeof tmp ? (size_t)len : sizeof tmp - 1);
}

static bool run_capture(const char *cmd, struct buf *out)
{
	FILE *p = popen(cmd, "r");
	if (!p)
		return false;
	char tmp[65536];
	size_t k;
	while ((k = fread(tmp, 1, sizeof tmp, p)) > 0)
		buf_add(out, tmp, k);
	return pclose(p) == 0;
}

/* The __text section of a slice: address and size. */
static bool text_range(const kp_macho_slice *s, uint64_t *addr, uint64_t *size)
{
	return kp_macho_section(s, "__TEXT_EXEC", "__text", NULL, size, addr) ||
	       kp_macho_section(s, "__TEXT", "__text", NULL, size, addr);
}

/* Instruction addresses: every 4 bytes on arm64, llvm-objdump's listing on
 * x86_64.  Returns a malloc'd array. */
static uint64_t *instructions(const struct fixture *f, uint64_t lo, uint64_t size, size_t *n)
{
	uint64_t *v = NULL;
	size_t cap = 0;
	*n = 0;
	if (strcmp(f->arch, "arm64") == 0) {
		v = malloc((size / 4 + 1) * sizeof *v);
		for (uint64_t a = lo; a < lo + size; a += 4)
			v[(*n)++] = a;
		return v;
	}
	char cmd[1024];
	/* --arch-name is only accepted for universal files */
	bool fat = strstr(f->binary, "universal") != NULL;
	snprintf(cmd, sizeof cmd, "llvm-objdump -d --no-show-raw-insn %s%s '%s' 2>/dev/null",
	         fat ? "--arch-name=" : "", fat ? f->arch : "", f->binary);
	struct buf out = {0};
	if (!run_capture(cmd, &out) || !out.s)
		return NULL;
	for (char *line = strtok(out.s, "\n"); line; line = strtok(NULL, "\n")) {
		char *end;
		while (*line == ' ')
			line++;
		unsigned long long a = strtoull(line, &end, 16);
		if (end == line || *end != ':' || end[1] == '\0')
			continue;
		if (a < lo || a >= lo + size)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 1024;
			v = realloc(v, cap * sizeof *v);
		}
		v[(*n)++] = a;
	}
	free(out.s);
	return v;
}


/* Our answer for addrs, formatted like llvm-symbolizer --inlining. */
static void our_output(kp_dwarf *d, const uint64_t *addrs, size_t n, struct buf *out,
                       size_t *errors)
{
	for (size_t i = 0; i < n; i++) {
		kp_symframe fr[64];
		size_t k = 0;
		kp_error err;
		if (kp_dwarf_lookup(d, addrs[i], fr, 64, &k, &err) != KP_OK) {
			(*errors)++;
			k = 0;
		}
		if (k == 0)
			buf_printf(out, "??\n??:0:0\n");
		for (size_t j = 0; j < k; j++)
			buf_printf(out, "%s\n%s:%u:%u\n", fr[j].function ? fr[j].function : "??",
			           fr[j].file ? fr[j].file : "??", fr[j].line, fr[j].column);
		buf_add(out, "\n", 1);
	}
}

/* Splits into per-address blocks (separated by blank lines). */
static size_t split_blocks(char *s, char **blocks, size_t max)
{
	size_t n = 0;
	char *p = s;
	while (p && *p && n < max) {
		char *e = strstr(p, "\n\n");
		blocks[n++] = p;
		if (!e)
			break;
		e[1] = '\0';
		p = e + 2;
	}
	return n;
}

static void compare_fixture(const struct fixture *f, size_t *total, size_t *bad)
{
	kp_macho *m = NULL;
	kp_error err;
	if (kp_macho_open(f->dwarf, &m, &err) != KP_OK) {
		KT_CHECK(0, "open %s: %s", f->dwarf, err.msg);
		return;
	}
	const kp_macho_slice *s = kp_macho_find_arch(m, f->arch);
	KT_CHECK(s != NULL, "%s has a %s slice", f->dwarf, f->arch);
	if (!s) {
		kp_macho_close(&m);
		return;
	}
	uint64_t lo = 0, size = 0;
	KT_CHECK(text_range(s, &lo, &size), "%s %s: __text found", f->dwarf, f->arch);
	size_t n = 0;
	uint64_t *addrs = instructions(f, lo, size, &n);
	KT_CHECK(addrs && n > 0, "%s %s: %zu instruction addresses", f->dwarf, f->arch, n);
	if (!addrs || !n) {
		free(addrs);
		kp_macho_close(&m);
		return;
	}

	char tmpl[] = "/tmp/kp_dwarf_addrs_XXXXXX";
	int fd = mkstemp(tmpl);
	FILE *af = fdopen(fd, "w");
	for (size_t i = 0; i < n; i++)
		fprintf(af, "0x%llx\n", (unsigned long long)addrs[i]);
	fclose(af);
	char cmd[2048];
	snprintf(cmd, sizeof cmd,
	         "llvm-symbolizer --inlining --default-arch=%s --obj='%s' < '%s' 2>/dev/null",
	         f->arch, f->dwarf, tmpl);
	struct buf want = {0}, got = {0};
	double t0 = now_ms();
	bool ok = run_capture(cmd, &want);
	double t1 = now_ms();
	unlink(tmpl);
	KT_CHECK(ok && want.s, "llvm-symbolizer ran on %s %s", f->dwarf, f->arch);

	kp_dwarf *d = NULL;
	double t2 = now_ms();
	kp_status st = kp_dwarf_open(s, &d, &err);
	KT_CHECK(st == KP_OK, "kp_dwarf_open %s %s (%s)", f->dwarf, f->arch,
	         st == KP_OK ? "ok" : err.msg);
	size_t errors = 0;
	if (st == KP_OK) {
		kp_dwarf_use_symbols(d, m);
		our_output(d, addrs, n, &got, &errors);
	}
	double t3 = now_ms();
	KT_CHECK(errors == 0, "%s %s: %zu lookup errors", f->dwarf, f->arch, errors);
	printf("# %s %s: %zu addresses, llvm-symbolizer %.1f ms (process), kp_dwarf %.2f ms "
	       "(open + all lookups)\n",
	       strrchr(f->dwarf, '/') + 1, f->arch, n, t1 - t0, t3 - t2);

	if (ok && want.s && got.s) {
		char **wb = malloc(n * sizeof *wb), **gb = malloc(n * sizeof *gb);
		size_t nw = split_blocks(want.s, wb, n), ng = split_blocks(got.s, gb, n);
		KT_CHECK(nw == n && ng == n, "%s %s: %zu/%zu/%zu answers", f->dwarf, f->arch, nw,
		         ng, n);
		size_t mism = 0;
		for (size_t i = 0; i < n && i < nw && i < ng; i++) {
			if (strcmp(wb[i], gb[i]) == 0)
				continue;
			if (mism++ < 5)
				printf("# 0x%llx\n# want:\n%s# got:\n%s", (unsigned long long)addrs[i],
				       wb[i], gb[i]);
		}
		KT_CHECK(mism == 0, "%s %s: %zu of %zu addresses differ from llvm-symbolizer",
		         strrchr(f->dwarf, '/') + 1, f->arch, mism, n);
		*total += n;
		*bad += mism;
		free(wb);
		free(gb);
	}
	kp_dwarf_close(&d);
	KT_CHECK(d == NULL, "kp_dwarf_close clears the pointer");
	free(want.s);
	free(got.s);
	free(addrs);
	kp_macho_close(&m);
}

/* A copy of a dSYM whose __debug_aranges section is renamed away, so both
 * kp_dwarf and llvm-symbolizer find CUs through their DIEs' own ranges. */
static void test_no_aranges(size_t *total, size_t *bad)
{
	const struct fixture *src = &fixtures[0];
	size_t len = 0;
	unsigned char *b = kt_slurp(src->dwarf, &len);
	if (!b) {
		KT_CHECK(0, "read %s", src->dwarf);
		return;
	}
	size_t renamed = 0;
	for (size_t p = 0; p + 32 <= len && p < 65536; p++)
		if (memcmp(b + p, "__debug_aranges", 16) == 0 && memcmp(b + p + 16, "__DWARF", 8) == 0) {
			b[p + 14] = 'z';
			renamed++;
		}
	KT_CHECK(renamed == 1, "renamed __debug_aranges (%zu)", renamed);
	char tmpl[] = "/tmp/kp_dwarf_noaranges_XXXXXX";
	int fd = mkstemp(tmpl);
	FILE *f = fdopen(fd, "wb");
	bool ok = f && fwrite(b, 1, len, f) == len;
	if (f)
		fclose(f);
	free(b);
	KT_CHECK(ok, "wrote %s", tmpl);
	if (ok) {
		struct fixture fx = {src->binary, tmpl, src->arch};
		compare_fixture(&fx, total, bad);
	}
	unlink(tmpl);
}

static void test_no_dwarf(void)
{
	static const char *plain[] = {BIN "fakekext.symtab", BIN "fakekext.arm64",
	                              BIN "fakekernel.x86_64"};
	for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
		kp_macho *m = NULL;
		kp_error err;
		if (kp_macho_open(plain[i], &m, &err) != KP_OK) {
			KT_CHECK(0, "open %s: %s", plain[i], err.msg);
			continue;
		}
		kp_dwarf *d = (kp_dwarf *)1;
		kp_status st = kp_dwarf_open(kp_macho_slice_at(m, 0), &d, &err);
		KT_CHECK(st == KP_ERR_NOTFOUND && d == NULL, "%s: no DWARF is KP_ERR_NOTFOUND (%d)",
		         strrchr(plain[i], '/') + 1, (int)st);
		kp_macho_close(&m);
	}
}

/* Opens buf, looks every address of __text up; returns the worst status. */
static kp_status exercise(const unsigned char *buf, size_t len, const char *arch)
{
	kp_macho *m = NULL;
	kp_error err;
	if (kp_macho_open_mem(buf, len, &m, &err) != KP_OK)
		return err.code;
	const kp_macho_slice *s = kp_macho_find_arch(m, arch);
	kp_status worst = KP_OK;
	kp_dwarf *d = NULL;
	if (s && (worst = kp_dwarf_open(s, &d, &err)) == KP_OK) {
		uint64_t lo = 0, size = 0;
		text_range(s, &lo, &size);
		for (uint64_t a = lo; a < lo + size; a++) {
			kp_symframe fr[16];
			size_t k;
			kp_status st = kp_dwarf_lookup(d, a, fr, 16, &k, &err);
			for (size_t j = 0; j < k; j++) /* touch every string */
				(void)((fr[j].function ? strlen(fr[j].function) : 0) +
				       (fr[j].file ? strlen(fr[j].file) : 0));
			if (st != KP_OK)
				worst = st;
		}
		kp_dwarf_close(&d);
	}
	kp_macho_close(&m);
	return worst;
}

/* Offset in buf of section sect's header (section_64) in the first slice,
 * found through kp_macho's data pointer, and of its contents. */
static bool find_sect(const unsigned char *buf, size_t len, const char *arch, const char *sect,
                      size_t *data_off, uint64_t *size)
{
	kp_macho *m = NULL;
	kp_error err;
	if (kp_macho_open_mem(buf, len, &m, &err) != KP_OK)
		return false;
	const kp_macho_slice *s = kp_macho_find_arch(m, arch);
	const unsigned char *data = NULL;
	bool ok = s && kp_macho_section(s, "__DWARF", sect, &data, size, NULL) && data;
	if (ok)
		*data_off = (size_t)(data - buf);
	kp_macho_close(&m);
	return ok;
}

static void mutate_one(const char *path, const char *arch);

static void test_mutations(void)
{
	mutate_one(fixtures[0].dwarf, "arm64");  /* C++ kext, inlining, ranges */
	mutate_one(fixtures[3].dwarf, "x86_64"); /* C kernel */
}

static void mutate_one(const char *path, const char *arch)
{
	size_t len = 0;
	unsigned char *orig = kt_slurp(path, &len);
	KT_CHECK(orig != NULL, "read %s", path);
	if (!orig)
		return;
	unsigned char *buf = malloc(len);
	static const char *sects[] = {"__debug_info", "__debug_line", "__debug_abbrev",
	                              "__debug_aranges", "__debug_ranges", "__debug_str"};
	unsigned seed = 12345;
	size_t runs = 0, failed_cleanly = 0;
	for (size_t si = 0; si < sizeof sects / sizeof sects[0]; si++) {
		size_t off = 0;
		uint64_t size = 0;
		if (!find_sect(orig, len, arch, sects[si], &off, &size))
			continue;
		/* byte flips: single bytes at every position class, then bursts */
		for (int trial = 0; trial < 150; trial++) {
			memcpy(buf, orig, len);
			int flips = trial < 100 ? 1 : 1 + trial % 8;
			for (int k = 0; k < flips; k++) {
				seed = seed * 1103515245u + 12345u;
				size_t at = off + (trial < 64 && (uint64_t)trial < size ? (size_t)trial
				                                                        : (seed >> 8) % size);
				seed = seed * 1103515245u + 12345u;
				buf[at] ^= (unsigned char)(1u << ((seed >> 16) % 8)) |
				           (trial % 3 == 0 ? 0xff : 0);
			}
			kp_status st = exercise(buf, len, arch);
			runs++;
			failed_cleanly += st != KP_OK;
			if (st != KP_OK && st != KP_ERR_FORMAT && st != KP_ERR_NOTFOUND)
				KT_CHECK(0, "%s flip %d: unexpected status %d", sects[si], trial, (int)st);
		}
		/* truncation: the section's bytes after a cut point zeroed and
		 * 0xff-filled (a shorter section with garbage after it) */
		for (uint64_t cut = 0; cut < size; cut += size / 23 + 1) {
			for (int fill = 0; fill < 2; fill++) {
				memcpy(buf, orig, len);
				memset(buf + off + cut, fill ? 0xff : 0, (size_t)(size - cut));
				kp_status st = exercise(buf, len, arch);
				runs++;
				failed_cleanly += st != KP_OK;
			}
		}
	}
	/* truncation proper: shrink the size field of each DWARF section header */
	for (size_t si = 0; si < sizeof sects / sizeof sects[0]; si++) {
		char name[16] = {0};
		memcpy(name, sects[si], strlen(sects[si]) < 16 ? strlen(sects[si]) : 16);
		for (size_t p = 0; p + 80 <= len && p < 65536; p++) {
			if (memcmp(orig + p, name, 16) != 0 || memcmp(orig + p + 16, "__DWARF", 8) != 0)
				continue;
			uint64_t size = 0;
			memcpy(&size, orig + p + 40, 8);
			for (uint64_t ns = 0; ns < size; ns += size / 17 + 1) {
				memcpy(buf, orig, len);
				memcpy(buf + p + 40, &ns, 8);
				kp_status st = exercise(buf, len, arch);
				runs++;
				failed_cleanly += st != KP_OK;
			}
		}
	}
	KT_CHECK(runs > 0, "%s: %zu mutated dSYMs looked up without crashing (%zu reported errors)",
	         strrchr(path, '/') + 1, runs, failed_cleanly);
	free(buf);
	free(orig);
}

static void test_demangle(void)
{
	char *s = kp_demangle("__ZN10FakeDriver12handleReportEi");
	KT_STREQ(s, "FakeDriver::handleReport(int)", "Mach-O symbol with extra '_'");
	free(s);
	s = kp_demangle("_ZN10FakeDriver12handleReportEi");
	KT_STREQ(s, "FakeDriver::handleReport(int)", "Itanium name");
	free(s);
	s = kp_demangle("_ZN9IOService5startEPS_");
	KT_STREQ(s, "IOService::start(IOService*)", "substitution");
	free(s);
	s = kp_demangle("_panic_trap_to_debugger");
	KT_STREQ(s, NULL, "C symbol is not mangled");
	s = kp_demangle("main");
	KT_STREQ(s, NULL, "plain name is not mangled");
	s = kp_demangle("_Zgarbage");
	KT_STREQ(s, NULL, "bad mangling gives NULL");
	KT_STREQ(kp_demangle(NULL), NULL, "NULL in, NULL out");
	/* LLVM's spelling (llvm-cxxfilt-19's), on every platform */
	const char *why = NULL;
	KT_CHECK(kp_demangle_available(&why), "libc++abi loads: %s", why ? why : "");
	static const char *const llvm[][3] = {
		{"_ZNSt3__16vectorIhNS_9allocatorIhEEE8__appendEm",
		 "std::__1::vector<unsigned char, std::__1::allocator<unsigned char>>::__append(unsigned long)",
		 "'>>', not '> >'"},
		{"_ZZ3barvENKUlPvE_clES_", "bar()::'lambda'(void*)::operator()(void*) const",
		 "'lambda'(void*), not {lambda(void*)#1}"},
		{"_Z3fooOi", "foo(int&&)", "an rvalue reference"},
		{"___Z3foov_block_invoke", "invocation function for block in foo()",
		 "a block, as DWARF names it"},
		{"____Z3foov_block_invoke_2", "invocation function for block in foo()",
		 "a block, as the symbol table names it"},
	};
	for (size_t i = 0; i < sizeof llvm / sizeof llvm[0]; i++) {
		s = kp_demangle(llvm[i][0]);
		KT_STREQ(s, llvm[i][1], llvm[i][2]);
		free(s);
	}
	s = kp_demangle("__Z3foov_block_invoke");
	KT_STREQ(s, NULL, "two underscores before Z: not Itanium (llvm leaves it)");
	free(s);
}

/* Timing: repeated random lookups over one fixture (all CUs cached). */
static void test_throughput(void)
{
	kp_macho *m = NULL;
	kp_error err;
	if (kp_macho_open(fixtures[2].dwarf, &m, &err) != KP_OK)
		return;
	const kp_macho_slice *s = kp_macho_find_arch(m, "arm64");
	kp_dwarf *d = NULL;
	uint64_t lo = 0, size = 0;
	if (s && text_range(s, &lo, &size) && kp_dwarf_open(s, &d, &err) == KP_OK) {
		unsigned seed = 7;
		size_t frames = 0;
		double t0 = now_ms();
		for (int i = 0; i < 100000; i++) {
			seed = seed * 1103515245u + 12345u;
			kp_symframe fr[16];
			size_t k = 0;
			kp_dwarf_lookup(d, lo + (seed >> 4) % size, fr, 16, &k, &err);
			frames += k;
		}
		double t1 = now_ms();
		printf("# 100k random lookups in %s: %.1f ms (%zu frames)\n",
		       strrchr(fixtures[2].dwarf, '/') + 1, t1 - t0, frames);
		KT_CHECK(frames > 0, "random lookups find frames");
		kp_dwarf_close(&d);
	}
	kp_macho_close(&m);
}

/* The mutation test runs in a child process (this program, re-executed with
 * --mutate): a crash there is reported here instead of killing the run.
 * Only there, leaks of objects libdwarf allocates inside dwarf_child and
 * dwarf_siblingof_b are suppressed: with allocation tracking off, 20210528
 * leaks the DIE it was building when it meets a malformed one, and nothing
 * outside libdwarf can free it.  Valid-data runs keep full leak checking. */
const char *__lsan_default_suppressions(void) __attribute__((used));
const char *__lsan_default_suppressions(void)
{
	return getenv("KP_TEST_DWARF_MUTATING") ? "leak:dwarf_child\nleak:dwarf_siblingof_b\n" : "";
}

static void run_mutation_child(const char *self)
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "KP_TEST_DWARF_MUTATING=1 '%s' --mutate 2>&1", self);
	FILE *p = popen(cmd, "r");
	if (!p) {
		KT_CHECK(0, "start the mutation child");
		return;
	}
	char line[1024];
	while (fgets(line, sizeof line, p))
		printf("#   %s", line);
	int status = pclose(p);
	KT_CHECK(status == 0, "mutated dSYMs: child exited cleanly (status %d)", status);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && strcmp(argv[1], "--mutate") == 0) {
		test_mutations();
		return kt_done();
	}
	test_demangle();
	if (access(fixtures[0].dwarf, R_OK) != 0) {
		KT_SKIP("fixtures not built (tests/fixtures/build.sh)");
		return kt_done();
	}
	test_no_dwarf();
	if (have_tool("llvm-symbolizer") && have_tool("llvm-objdump")) {
		size_t total = 0, bad = 0;
		for (size_t i = 0; i < NFIX; i++)
			compare_fixture(&fixtures[i], &total, &bad);
		test_no_aranges(&total, &bad);
		printf("# oracle: %zu addresses compared, %zu mismatches\n", total, bad);
	} else {
		for (size_t i = 0; i < NFIX; i++)
			KT_SKIP("llvm-symbolizer or llvm-objdump absent");
	}
	run_mutation_child(argv[0]);
	test_throughput();
	return kt_done();
}
