/* test_macho.c: kp_macho against real fixtures (tests/fixtures, built by
 * fixtures/build.sh) with the LLVM tools as oracle; hostile and synthetic
 * inputs are in test_macho_hostile.c.
 *
 * Oracles: uuids.txt (always), and when installed llvm-dwarfdump --uuid,
 * llvm-objdump --macho --private-headers (every segment vmaddr and every
 * section's addr/size), llvm-nm -n --defined-only (symbol lookups).  A
 * missing tool is a counted skip. */
#include "kp_macho.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt.h"
#include "kt_slurp.h"
#include "macho_fixture.h"

/* ---- small helpers ----------------------------------------------------------- */

static char tool_path[8][256];

/* The tool's path (PATH first, then Debian's LLVM 14 dir), or NULL. */
static const char *tool(int slot, const char *name)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "command -v %s 2>/dev/null", name);
	if (kt_capture_line(cmd, tool_path[slot], sizeof tool_path[slot]))
		return tool_path[slot];
	snprintf(tool_path[slot], sizeof tool_path[slot], "/usr/lib/llvm-14/bin/%s", name);
	return access(tool_path[slot], X_OK) == 0 ? tool_path[slot] : NULL;
}

static const char *dwarfdump, *objdump, *nm;

static const kp_macho_slice *open_slice(const char *path, const char *arch, kp_macho **m)
{
	kp_error err;
	kp_error_clear(&err);
	if (kp_macho_open(path, m, &err) != KP_OK) {
		KT_CHECK(0, "open %s: %s", path, err.msg);
		return NULL;
	}
	const kp_macho_slice *s = kp_macho_find_arch(*m, arch);
	KT_CHECK(s != NULL, "%s has an %s slice", path, arch);
	return s;
}

/* ---- fixtures vs uuids.txt and llvm-dwarfdump ------------------------------- */

static void test_uuids_txt(void)
{
	FILE *f = fopen(KP_FIXTURES "/uuids.txt", "r");
	KT_CHECK(f != NULL, "uuids.txt exists");
	if (!f)
		return;
	char line[512];
	int rows = 0;
	while (fgets(line, sizeof line, f)) {
		char file[300], arch[32], uuid[64], path[400];
		if (line[0] == '#' || sscanf(line, "%299s %31s %63s", file, arch, uuid) != 3)
			continue;
		rows++;
		snprintf(path, sizeof path, BIN "%s", file);
		kp_macho *m = NULL;
		const kp_macho_slice *s = open_slice(path, arch, &m);
		if (s) {
			KT_CHECK(s->has_uuid, "%s (%s) has LC_UUID", file, arch);
			KT_STREQ(s->uuid, uuid, file);
			KT_CHECK(kp_macho_find_uuid(m, uuid) == s, "find_uuid(%s) in %s", uuid, file);
		}
		kp_macho_close(&m);
		KT_CHECK(m == NULL, "close clears the pointer");
	}
	fclose(f);
	KT_CHECK(rows == 13, "uuids.txt lists 13 slices (got %d)", rows);
}

static void test_dwarfdump_uuids(const char *file)
{
	char path[400], cmd[900];
	snprintf(path, sizeof path, BIN "%s", file);
	if (!dwarfdump) {
		KT_SKIP("llvm-dwarfdump not installed");
		return;
	}
	snprintf(cmd, sizeof cmd, "'%s' --uuid '%s'", dwarfdump, path);
	char *out = kt_capture(cmd, NULL);
	KT_CHECK(out != NULL, "llvm-dwarfdump --uuid %s ran", file);
	if (!out)
		return;
	kp_macho *m = NULL;
	kp_error err;
	KT_CHECK(kp_macho_open(path, &m, &err) == KP_OK, "open %s", file);
	size_t seen = 0;
	for (char *l = strtok(out, "\n"); l && m; l = strtok(NULL, "\n")) {
		char uuid[64], arch[32];
		if (sscanf(l, "UUID: %63s (%31[^)])", uuid, arch) != 2)
			continue;
		seen++;
		const kp_macho_slice *s = kp_macho_find_arch(m, arch);
		KT_CHECK(s && strcmp(s->uuid, uuid) == 0, "%s %s: dwarfdump says %s, we say %s", file,
		         arch, uuid, s ? s->uuid : "(no slice)");
	}
	KT_CHECK(m && seen == kp_macho_nslices(m), "%s: %zu slices, dwarfdump lists %zu", file,
	         m ? kp_macho_nslices(m) : 0, seen);
	kp_macho_close(&m);
	free(out);
}

/* ---- fixtures vs llvm-objdump --private-headers ----------------------------- */

/* Every segment's vmaddr and every section's addr and size, as objdump
 * prints them, must be what kp_macho reports. */
static void test_objdump_headers(const char *file, const char *arch)
{
	char path[400], cmd[900];
	snprintf(path, sizeof path, BIN "%s", file);
	if (!objdump) {
		KT_SKIP("llvm-objdump not installed");
		return;
	}
	snprintf(cmd, sizeof cmd, "'%s' --macho --private-headers --arch=%s '%s'", objdump, arch,
	         path);
	char *out = kt_capture(cmd, NULL);
	KT_CHECK(out != NULL, "llvm-objdump on %s ran", file);
	if (!out)
		return;
	kp_macho *m = NULL;
	const kp_macho_slice *s = open_slice(path, arch, &m);
	enum { NONE, SEG, SECT } mode = NONE;
	char seg[64] = "", sect[64] = "", sseg[64] = "";
	unsigned long long addr = 0, v;
	int nsects = 0, ok_sects = 0, text_seen = 0, exec_seen = 0;
	for (char *l = strtok(out, "\n"); l && s; l = strtok(NULL, "\n")) {
		char key[64] = "", val[64] = "";
		if (sscanf(l, " %63s %63s", key, val) < 1)
			continue;
		bool hex = sscanf(val, "%llx", &v) == 1;
		if (strcmp(key, "cmd") == 0)
			mode = strncmp(val, "LC_SEGMENT", 10) == 0 ? SEG : NONE;
		else if (strcmp(key, "Section") == 0)
			mode = SECT;
		else if (mode == SEG && strcmp(key, "segname") == 0)
			snprintf(seg, sizeof seg, "%s", val);
		else if (mode == SEG && strcmp(key, "vmaddr") == 0 && hex) {
			if (strcmp(seg, "__TEXT") == 0) {
				text_seen = 1;
				KT_U64EQ(s->text_vmaddr, v, "__TEXT vmaddr");
			} else if (strcmp(seg, "__TEXT_EXEC") == 0) {
				exec_seen = 1;
				KT_U64EQ(s->text_exec_vmaddr, v, "__TEXT_EXEC vmaddr");
			}
		} else if (mode == SECT && strcmp(key, "sectname") == 0)
			snprintf(sect, sizeof sect, "%s", val);
		else if (mode == SECT && strcmp(key, "segname") == 0)
			snprintf(sseg, sizeof sseg, "%s", val);
		else if (mode == SECT && strcmp(key, "addr") == 0 && hex)
			addr = v;
		else if (mode == SECT && strcmp(key, "size") == 0 && hex) {
			const unsigned char *data;
			uint64_t sz, ad;
			nsects++;
			if (kp_macho_section(s, sseg, sect, &data, &sz, &ad) && sz == v && ad == addr &&
			    (!data || (data >= s->data && sz <= (uint64_t)(s->data + s->size - data))))
				ok_sects++;
			else
				KT_CHECK(0, "%s %s %s,%s: addr/size match objdump", file, arch, sseg, sect);
		}
	}
	if (s) {
		KT_CHECK(nsects > 0 && ok_sects == nsects, "%s %s: %d/%d sections match objdump", file,
		         arch, ok_sects, nsects);
		KT_CHECK(s->has_text == text_seen && s->has_text_exec == exec_seen,
		         "%s %s: __TEXT/__TEXT_EXEC presence matches objdump", file, arch);
	}
	kp_macho_close(&m);
	free(out);
}

/* ---- fixed expectations: arches, layout, find_uuid, sections ---------------- */

static void expect_layout(const char *file, const char *arch, uint64_t seg, bool exec)
{
	char path[400];
	snprintf(path, sizeof path, BIN "%s", file);
	kp_macho *m = NULL;
	const kp_macho_slice *s = open_slice(path, arch, &m);
	if (s) {
		KT_STREQ(s->arch, arch, file);
		KT_CHECK(s->is64, "%s is 64-bit", file);
		KT_CHECK(s->has_text && s->text_vmaddr == 0, "%s __TEXT at 0", file);
		KT_CHECK(s->has_text_exec == exec, "%s __TEXT_EXEC %s", file, exec ? "present" : "absent");
		KT_U64EQ(kp_macho_seg(s), seg, "seg()");
	}
	kp_macho_close(&m);
}

static void test_layouts(void)
{
	expect_layout("fakekernel.arm64", "arm64", 0xc000, true);
	expect_layout("fakekext.arm64", "arm64", 0xc000, true);
	expect_layout("fakekernel.x86_64", "x86_64", 0, false);
	expect_layout("fakekext.x86_64", "x86_64", 0, false);
	expect_layout("fakekext.symtab", "arm64", 0, false);
	expect_layout("fakekext.universal", "arm64", 0xc000, true);
	expect_layout("fakekext.universal", "x86_64", 0, false);
	expect_layout(DW("fakekernel.arm64"), "arm64", 0xc000, true);
	expect_layout(DW("fakekext.universal"), "x86_64", 0, false);

	kp_macho *m = NULL;
	kp_error err;
	KT_CHECK(kp_macho_open(BIN "fakekernel.arm64", &m, &err) == KP_OK, "open thin kernel");
	KT_CHECK(kp_macho_nslices(m) == 1, "thin file has one slice");
	KT_CHECK(kp_macho_find_arch(m, NULL) == kp_macho_slice_at(m, 0), "find_arch(NULL) on thin");
	KT_CHECK(kp_macho_find_arch(m, "x86_64") == NULL, "no x86_64 slice in arm64 kernel");
	KT_CHECK(kp_macho_slice_at(m, 1) == NULL, "slice_at past the end");
	KT_CHECK(kp_macho_nfileset(kp_macho_slice_at(m, 0)) == 0, "dylib has no fileset entries");
	kp_macho_close(&m);
	kp_macho_close(&m); /* closing NULL is fine */
}

static void test_universal_uuid(void)
{
	kp_macho *m = NULL;
	kp_error err;
	KT_CHECK(kp_macho_open(BIN "fakekext.universal", &m, &err) == KP_OK, "open universal");
	if (!m)
		return;
	KT_CHECK(kp_macho_nslices(m) == 2, "universal has two slices");
	KT_CHECK(kp_macho_find_arch(m, NULL) == NULL, "find_arch(NULL) on fat is NULL");
	for (size_t i = 0; i < kp_macho_nslices(m); i++) {
		const kp_macho_slice *s = kp_macho_slice_at(m, i);
		char lower[40], nodash[40], mixed[40];
		size_t k = 0;
		for (const char *c = s->uuid; *c; c++) {
			lower[c - s->uuid] = (char)(*c >= 'A' && *c <= 'F' ? *c + 32 : *c);
			if (*c != '-') {
				nodash[k] = (char)(k % 2 && *c >= 'A' && *c <= 'F' ? *c + 32 : *c);
				k++;
			}
		}
		lower[36] = '\0';
		nodash[k] = '\0';
		snprintf(mixed, sizeof mixed, "%.8s%s", lower, s->uuid + 8);
		KT_CHECK(kp_macho_find_uuid(m, s->uuid) == s, "find_uuid upper %s", s->uuid);
		KT_CHECK(kp_macho_find_uuid(m, lower) == s, "find_uuid lower %s", lower);
		KT_CHECK(kp_macho_find_uuid(m, nodash) == s, "find_uuid no dashes %s", nodash);
		KT_CHECK(kp_macho_find_uuid(m, mixed) == s, "find_uuid mixed %s", mixed);
		nodash[31] = '\0';
		KT_CHECK(kp_macho_find_uuid(m, nodash) == NULL, "31 digits match nothing");
	}
	KT_CHECK(kp_macho_find_uuid(m, "00000000-0000-0000-0000-000000000000") == NULL,
	         "unknown uuid");
	KT_CHECK(kp_macho_find_uuid(m, "not a uuid") == NULL, "garbage uuid");
	kp_macho_close(&m);
}

static void test_dsym_sections(const char *file, const char *arch)
{
	char path[400];
	snprintf(path, sizeof path, BIN "%s", file);
	kp_macho *m = NULL;
	const kp_macho_slice *s = open_slice(path, arch, &m);
	if (!s) {
		kp_macho_close(&m);
		return;
	}
	const unsigned char *d = NULL;
	uint64_t size = 0, addr = 0;
	KT_CHECK(s->filetype == 0xa, "%s is MH_DSYM", file);
	KT_CHECK(kp_macho_section(s, "__DWARF", "__debug_info", &d, &size, &addr),
	         "%s %s has __DWARF,__debug_info", file, arch);
	KT_CHECK(d && size > 11 && d >= s->data && size <= (uint64_t)(s->data + s->size - d),
	         "__debug_info bytes inside the slice");
	/* unit_length (4), then version: 4 by build.sh's -gdwarf-4 */
	KT_CHECK(d && size > 6 && d[4] == 4 && d[5] == 0, "first CU is DWARF 4");
	KT_CHECK(kp_macho_section(s, NULL, "__debug_line", &d, &size, NULL) && d && size > 0,
	         "segname NULL finds __debug_line");
	/* The dSYM repeats the binary's headers without their bytes. */
	const char *textseg = s->has_text_exec ? "__TEXT_EXEC" : "__TEXT";
	KT_CHECK(kp_macho_section(s, textseg, "__text", &d, &size, &addr) && d == NULL && size > 0,
	         "%s,__text is listed with no data in the dSYM", textseg);
	KT_CHECK(!kp_macho_section(s, "__DWARF", "__debug_nothing", &d, &size, &addr),
	         "absent section is false");
	KT_CHECK(!kp_macho_section(s, "__TEXT", "__debug_info", &d, &size, &addr),
	         "segment name is honoured");
	kp_macho_close(&m);
}

/* ---- symbols vs llvm-nm ---------------------------------------------------- */

struct nmsym {
	uint64_t addr;
	char name[200];
};

static void test_symbols_nm(const char *file, const char *arch)
{
	char path[400], cmd[900];
	snprintf(path, sizeof path, BIN "%s", file);
	if (!nm) {
		KT_SKIP("llvm-nm not installed");
		return;
	}
	snprintf(cmd, sizeof cmd, "'%s' -n --defined-only --arch=%s '%s'", nm, arch, path);
	char *out = kt_capture(cmd, NULL);
	KT_CHECK(out != NULL, "llvm-nm on %s ran", file);
	if (!out)
		return;
	kp_macho *m = NULL;
	const kp_macho_slice *s = open_slice(path, arch, &m);
	const unsigned char *d;
	uint64_t tsize = 0, taddr = 0;
	if (!s || !kp_macho_section(s, s->has_text_exec ? "__TEXT_EXEC" : "__TEXT", "__text", &d,
	                            &tsize, &taddr)) {
		KT_CHECK(0, "%s has __text", file);
		kp_macho_close(&m);
		free(out);
		return;
	}
	/* llvm-nm letters a renamed __text 'S', so filter by address instead. */
	static struct nmsym syms[512];
	size_t n = 0;
	for (char *l = strtok(out, "\n"); l && n < 512; l = strtok(NULL, "\n")) {
		unsigned long long a;
		char type;
		if (sscanf(l, "%llx %c %199s", &a, &type, syms[n].name) == 3 && a >= taddr &&
		    a < taddr + tsize) {
			syms[n].addr = a;
			n++;
		}
	}
	free(out);
	KT_CHECK(n >= 8, "%s %s: llvm-nm lists %zu symbols in __text", file, arch, n);

	size_t good = 0, tried = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t next = i + 1 < n ? syms[i + 1].addr : taddr + tsize;
		if (i + 1 < n && next == syms[i].addr)
			continue; /* aliases: any of them is right; skip the ambiguity */
		uint64_t probes[3] = {syms[i].addr, syms[i].addr + (next - syms[i].addr) / 2, next - 1};
		for (int k = 0; k < 3; k++) {
			const char *name = NULL;
			uint64_t off = ~0ull;
			tried++;
			if (kp_macho_symbol(m, s, probes[k], &name, &off) && name &&
			    strcmp(name, syms[i].name) == 0 && off == probes[k] - syms[i].addr)
				good++;
			else
				KT_CHECK(0, "%s 0x%llx: got %s+0x%llx, want %s+0x%llx", file,
				         (unsigned long long)probes[k], name ? name : "(none)",
				         (unsigned long long)off, syms[i].name,
				         (unsigned long long)(probes[k] - syms[i].addr));
		}
	}
	KT_CHECK(tried > 20 && good == tried, "%s %s: %zu/%zu lookups match llvm-nm", file, arch,
	         good, tried);
	const char *name;
	uint64_t off;
	KT_CHECK(!kp_macho_symbol(m, s, taddr + tsize, &name, &off) ||
	             (name && strcmp(name, syms[n - 1].name) != 0),
	         "%s: the end of __text is not the last function", file);
	KT_CHECK(!kp_macho_symbol(m, s, 0x7fffffffffffull, &name, &off), "far address: no symbol");
	if (n && syms[0].addr > 0)
		KT_CHECK(!kp_macho_symbol(m, s, syms[0].addr - 1, &name, &off) ||
		             strcmp(name, syms[0].name) != 0,
		         "before the first symbol is not the first symbol");
	kp_macho_close(&m);
}

int main(void)
{
	dwarfdump = tool(0, "llvm-dwarfdump");
	objdump = tool(1, "llvm-objdump");
	nm = tool(2, "llvm-nm");

	static const char *files[] = {
	    "fakekernel.arm64",  "fakekernel.x86_64",       "fakekext.arm64",
	    "fakekext.x86_64",   "fakekext.universal",      "fakekext.symtab",
	    DW("fakekernel.arm64"), DW("fakekernel.x86_64"), DW("fakekext.arm64"),
	    DW("fakekext.x86_64"), DW("fakekext.universal"),
	};
	if (!macho_fixtures_built()) {
		KT_SKIP("fixtures not built (run tests/fixtures/build.sh)");
		return kt_done();
	}
	test_uuids_txt();
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
		test_dwarfdump_uuids(files[i]);
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		const char *f = files[i];
		bool uni = strstr(f, "universal") != NULL;
		const char *arch = strstr(f, "x86_64") ? "x86_64" : "arm64";
		test_objdump_headers(f, arch);
		if (uni)
			test_objdump_headers(f, "x86_64");
	}
	test_layouts();
	test_universal_uuid();
	test_dsym_sections(DW("fakekext.arm64"), "arm64");
	test_dsym_sections(DW("fakekernel.x86_64"), "x86_64");
	test_dsym_sections(DW("fakekext.universal"), "arm64");
	test_dsym_sections(DW("fakekext.universal"), "x86_64");
	test_symbols_nm("fakekext.symtab", "arm64");
	test_symbols_nm("fakekernel.arm64", "arm64");   /* stabs present: skipped */
	test_symbols_nm("fakekernel.x86_64", "x86_64");
	test_symbols_nm("fakekext.universal", "x86_64");
	return kt_done();
}
