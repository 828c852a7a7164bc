/* test_macho.c: kp_macho against real fixtures (tests/fixtures, built by
 * fixtures/build.sh) with the LLVM tools as oracle, then hostile inputs.
 *
 * Oracles: uuids.txt (always), and when installed llvm-dwarfdump --uuid,
 * llvm-objdump --macho --private-headers (every segment vmaddr and every
 * section's addr/size), llvm-nm -n --defined-only (symbol lookups).  A
 * missing tool is a counted skip. */
#include "kt_slurp.h"
#include "kp_macho.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kt.h"

#define BIN KP_FIXTURES "/bin/"
#define DW(name) name ".dSYM/Contents/Resources/DWARF/" name

/* ---- small helpers ----------------------------------------------------------- */

static char tool_path[8][256];

/* The tool's path (PATH first, then Debian's LLVM 14 dir), or NULL. */
static const char *tool(int slot, const char *name)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "command -v %s 2>/dev/null", name);
	FILE *p = popen(cmd, "r");
	if (p) {
		if (fgets(tool_path[slot], sizeof tool_path[slot], p)) {
			tool_path[slot][strcspn(tool_path[slot], "\n")] = '\0';
			pclose(p);
			return tool_path[slot];
		}
		pclose(p);
	}
	snprintf(tool_path[slot], sizeof tool_path[slot], "/usr/lib/llvm-14/bin/%s", name);
	return access(tool_path[slot], X_OK) == 0 ? tool_path[slot] : NULL;
}

static const char *dwarfdump, *objdump, *nm;

/* Runs cmd and returns its stdout (malloc'd, NUL-terminated) or NULL. */
static char *capture(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	if (!p)
		return NULL;
	size_t cap = 1 << 14, n = 0, r;
	char *b = malloc(cap);
	while (b && (r = fread(b + n, 1, cap - n - 1, p)) > 0) {
		n += r;
		if (n + 1 == cap) {
			char *nb = realloc(b, cap *= 2);
			if (!nb)
				free(b);
			b = nb;
		}
	}
	int rc = pclose(p);
	if (!b)
		return NULL;
	b[n] = '\0';
	if (rc != 0) {
		free(b);
		return NULL;
	}
	return b;
}

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
	char *out = capture(cmd);
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
	char *out = capture(cmd);
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
	char *out = capture(cmd);
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

/* ---- hostile inputs --------------------------------------------------------- */

static volatile size_t sink;

/* Opens a private, exactly sized copy so ASan sees any overread; exercises
 * every accessor on success.  Returns the status. */
static kp_status poke(const unsigned char *src, size_t len, kp_error *err)
{
	unsigned char *copy = malloc(len ? len : 1);
	if (len)
		memcpy(copy, src, len);
	kp_macho *m = NULL;
	kp_error_clear(err);
	kp_status st = kp_macho_open_mem(len ? copy : NULL, len, &m, err);
	if (st == KP_OK) {
		for (size_t i = 0; i < kp_macho_nslices(m); i++) {
			const kp_macho_slice *s = kp_macho_slice_at(m, i);
			const unsigned char *d;
			uint64_t size, addr;
			static const char *names[] = {"__text", "__debug_info", "__debug_str",
			                              "__cstring", "__data"};
			for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
				if (kp_macho_section(s, NULL, names[k], &d, &size, &addr) && d) {
					volatile unsigned sum = 0;
					for (uint64_t b = 0; b < size; b++)
						sum += d[b];
					(void)sum;
				}
			for (uint64_t a = 0; a < 0x11000; a += 0x101) {
				const char *name;
				uint64_t off;
				if (kp_macho_symbol(m, s, a, &name, &off))
					sink += strlen(name);
			}
			for (size_t k = 0; k < kp_macho_nfileset(s); k++) {
				const char *name;
				if (kp_macho_fileset_entry(s, k, &name, NULL, NULL))
					sink += strlen(name);
			}
			(void)kp_macho_find_uuid(m, s->uuid);
		}
	}
	kp_macho_close(&m);
	free(copy);
	return st;
}

static void truncations(const char *file, size_t dense, size_t stride)
{
	char path[400];
	snprintf(path, sizeof path, BIN "%s", file);
	size_t len = 0;
	unsigned char *b = kt_slurp(path, &len);
	KT_CHECK(b && len > 0, "read %s", file);
	if (!b)
		return;
	size_t ok = 0, fmt = 0, other = 0, badpos = 0;
	kp_error err;
	for (size_t l = 0; l <= len; l += (l < dense ? 1 : stride)) {
		kp_status st = poke(b, l, &err);
		if (st == KP_OK)
			ok++;
		else if (st == KP_ERR_FORMAT) {
			fmt++;
			if (err.byte < 0 || (size_t)err.byte > l)
				badpos++;
		} else
			other++;
	}
	KT_CHECK(poke(b, len, &err) == KP_OK, "%s whole file opens", file);
	KT_CHECK(other == 0 && badpos == 0 && fmt > 0,
	         "%s prefixes: %zu ok, %zu format errors (%zu with a bad position), %zu other", file,
	         ok, fmt, badpos, other);
	free(b);
}

/* Deterministic byte mutations of the load-command area (and fat header)
 * of a real file: any outcome but a crash, an overread or a status other
 * than OK / FORMAT is a failure. */
static void mutations(const char *file, size_t region, int rounds)
{
	char path[400];
	snprintf(path, sizeof path, BIN "%s", file);
	size_t len = 0;
	unsigned char *orig = kt_slurp(path, &len), *b = orig ? malloc(len) : NULL;
	KT_CHECK(b != NULL, "read %s", file);
	if (!b) {
		free(orig);
		return;
	}
	if (region > len)
		region = len;
	uint32_t rng = 0x2545f491u;
	size_t ok = 0, fmt = 0, other = 0;
	kp_error err;
	for (int r = 0; r < rounds; r++) {
		memcpy(b, orig, len);
		int flips = 1 + r % 4;
		for (int k = 0; k < flips; k++) {
			rng = rng * 1664525u + 1013904223u;
			size_t at = (rng >> 8) % region;
			rng = rng * 1664525u + 1013904223u;
			/* mostly small edits, sometimes a whole 0xff / 0x00 word */
			if ((rng >> 28) == 0 && at + 4 <= len)
				memset(b + at, (rng >> 27) & 1 ? 0xff : 0, 4);
			else
				b[at] = (unsigned char)(rng >> 16);
		}
		kp_status st = poke(b, len, &err);
		if (st == KP_OK)
			ok++;
		else if (st == KP_ERR_FORMAT)
			fmt++;
		else
			other++;
	}
	KT_CHECK(other == 0 && ok + fmt == (size_t)rounds,
	         "%s: %d mutations: %zu ok, %zu format errors, %zu other", file, rounds, ok, fmt,
	         other);
	free(b);
	free(orig);
}

/* A tiny Mach-O writer for synthetic files. */
struct w {
	unsigned char b[8192];
	size_t n;
};

static void put32(struct w *w, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		w->b[w->n++] = (unsigned char)(v >> (8 * i));
}
static void put64(struct w *w, uint64_t v)
{
	put32(w, (uint32_t)v);
	put32(w, (uint32_t)(v >> 32));
}
static void putbe32(struct w *w, uint32_t v)
{
	for (int i = 3; i >= 0; i--)
		w->b[w->n++] = (unsigned char)(v >> (8 * i));
}
static void putname(struct w *w, const char *s)
{
	memset(w->b + w->n, 0, 16);
	memcpy(w->b + w->n, s, strlen(s) > 16 ? 16 : strlen(s));
	w->n += 16;
}
static void set32(struct w *w, size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		w->b[at + i] = (unsigned char)(v >> (8 * i));
}

/* A valid thin 64-bit arm64 file: LC_UUID, LC_SEGMENT_64 __TEXT with one
 * __text section (addr 0x1000, size 0x100, file 0x200..0x300), LC_SYMTAB with
 * three nlist_64 entries.  Offsets of interest are returned through *lay. */
struct layout {
	size_t uuid_cmd, seg_cmd, symtab_cmd, syms, strs, strsize;
};

static void make_thin64(struct w *w, uint32_t subtype, struct layout *lay)
{
	memset(w, 0, sizeof *w);
	put32(w, 0xfeedfacf);
	put32(w, 0x0100000c);
	put32(w, subtype);
	put32(w, 6); /* MH_DYLIB */
	put32(w, 3);
	put32(w, 24 + 72 + 80 + 24);
	put32(w, 0);
	put32(w, 0);
	lay->uuid_cmd = w->n;
	put32(w, 0x1b);
	put32(w, 24);
	for (int i = 0; i < 16; i++)
		w->b[w->n++] = (unsigned char)(0xa0 + i);
	lay->seg_cmd = w->n;
	put32(w, 0x19);
	put32(w, 72 + 80);
	putname(w, "__TEXT");
	put64(w, 0);      /* vmaddr */
	put64(w, 0x2000); /* vmsize */
	put64(w, 0);      /* fileoff */
	put64(w, 0x400);  /* filesize */
	put32(w, 5);
	put32(w, 5);
	put32(w, 1); /* nsects */
	put32(w, 0);
	putname(w, "__text");
	putname(w, "__TEXT");
	put64(w, 0x1000);
	put64(w, 0x100);
	put32(w, 0x200);
	put32(w, 2);
	put32(w, 0);
	put32(w, 0);
	put32(w, 0x80000400);
	put32(w, 0);
	put32(w, 0);
	put32(w, 0);
	lay->symtab_cmd = w->n;
	lay->syms = 0x300;
	lay->strs = 0x340;
	lay->strsize = 25;
	put32(w, 2);
	put32(w, 24);
	put32(w, (uint32_t)lay->syms);
	put32(w, 4);
	put32(w, (uint32_t)lay->strs);
	put32(w, (uint32_t)lay->strsize);
	/* nlist_64: strx, type, sect, desc, value */
	static const struct {
		uint32_t strx;
		uint8_t type, sect;
		uint64_t value;
	} ns[4] = {
		{1, 0x0f, 1, 0x1000},  /* _first, N_SECT|N_EXT */
		{8, 0x0e, 1, 0x1080},  /* _second, local */
		{16, 0x24, 1, 0x1040}, /* N_FUN stab: must be ignored */
		{22, 0x01, 0, 0},      /* undefined _x */
	};
	w->n = lay->syms;
	for (int i = 0; i < 4; i++) {
		put32(w, ns[i].strx);
		w->b[w->n++] = ns[i].type;
		w->b[w->n++] = ns[i].sect;
		w->b[w->n++] = 0;
		w->b[w->n++] = 0;
		put64(w, ns[i].value);
	}
	w->n = lay->strs;
	memcpy(w->b + w->n, "\0_first\0_second\0_stab\0_x\0", 25);
	w->n = 0x400;
}

static void expect_format(const unsigned char *b, size_t len, const char *what, long byte,
                          const char *needle)
{
	kp_error err;
	kp_status st = poke(b, len, &err);
	KT_CHECK(st == KP_ERR_FORMAT, "%s: KP_ERR_FORMAT (got %d: %s)", what, (int)st, err.msg);
	if (st == KP_ERR_FORMAT) {
		if (byte >= 0)
			KT_CHECK(err.byte == byte, "%s: byte %ld (got %ld)", what, byte, err.byte);
		if (needle)
			KT_CHECK(strstr(err.msg, needle) != NULL, "%s: message \"%s\" mentions %s", what,
			         err.msg, needle);
	}
}

static void test_synthetic_thin(void)
{
	struct w w;
	struct layout L;
	kp_error err;
	kp_macho *m = NULL;

	make_thin64(&w, 0, &L);
	KT_CHECK(kp_macho_open_mem(w.b, w.n, &m, &err) == KP_OK, "synthetic thin opens: %s", err.msg);
	if (m) {
		const kp_macho_slice *s = kp_macho_slice_at(m, 0);
		const char *name;
		uint64_t off;
		KT_STREQ(s->uuid, "A0A1A2A3-A4A5-A6A7-A8A9-AAABACADAEAF", "synthetic uuid");
		KT_STREQ(s->arch, "arm64", "synthetic arch");
		KT_CHECK(kp_macho_symbol(m, s, 0x1000, &name, &off) && !strcmp(name, "_first") && off == 0,
		         "symbol at _first");
		KT_CHECK(kp_macho_symbol(m, s, 0x1050, &name, &off) && !strcmp(name, "_first") &&
		             off == 0x50,
		         "stab between is skipped: _first+0x50");
		KT_CHECK(kp_macho_symbol(m, s, 0x10ff, &name, &off) && !strcmp(name, "_second") &&
		             off == 0x7f,
		         "last byte of __text: _second+0x7f");
		KT_CHECK(!kp_macho_symbol(m, s, 0x1100, &name, &off), "past __text: none");
		KT_CHECK(!kp_macho_symbol(m, s, 0xfff, &name, &off), "before first: none");
		KT_CHECK(!kp_macho_symbol(m, NULL, 0x1000, &name, &off), "NULL slice: none");
		kp_macho_close(&m);
	}

	make_thin64(&w, 0x80000002, &L);
	KT_CHECK(kp_macho_open_mem(w.b, w.n, &m, &err) == KP_OK, "arm64e opens");
	if (m)
		KT_STREQ(kp_macho_slice_at(m, 0)->arch, "arm64e", "arm64e subtype with PAC bits");
	kp_macho_close(&m);

	make_thin64(&w, 0, &L);
	set32(&w, L.uuid_cmd + 4, 0);
	expect_format(w.b, w.n, "cmdsize 0", (long)L.uuid_cmd + 4, NULL);
	make_thin64(&w, 0, &L);
	set32(&w, L.uuid_cmd + 4, 6);
	expect_format(w.b, w.n, "cmdsize 6", (long)L.uuid_cmd + 4, NULL);
	make_thin64(&w, 0, &L);
	set32(&w, L.uuid_cmd + 4, 26);
	expect_format(w.b, w.n, "cmdsize not a multiple of 4", (long)L.uuid_cmd + 4, "multiple");
	make_thin64(&w, 0, &L);
	set32(&w, L.symtab_cmd + 4, 0x1000);
	expect_format(w.b, w.n, "cmdsize past sizeofcmds", (long)L.symtab_cmd + 4, NULL);
	make_thin64(&w, 0, &L);
	set32(&w, 20, 0x10000);
	expect_format(w.b, w.n, "sizeofcmds past the file", 20, NULL);
	make_thin64(&w, 0, &L);
	set32(&w, 16, 0xffffffff);
	expect_format(w.b, w.n, "ncmds huge", 16, NULL);
	make_thin64(&w, 0, &L);
	set32(&w, L.uuid_cmd + 4, 16);
	expect_format(w.b, w.n, "LC_UUID too short", (long)L.uuid_cmd, NULL);
	make_thin64(&w, 0, &L);
	set32(&w, L.seg_cmd + 64, 2);
	expect_format(w.b, w.n, "nsects overflows the command", (long)L.seg_cmd, "section count");
	make_thin64(&w, 0, &L);
	set32(&w, L.seg_cmd + 64, 0x40000000);
	expect_format(w.b, w.n, "nsects huge", (long)L.seg_cmd, NULL);
	make_thin64(&w, 0, &L);
	set32(&w, L.seg_cmd + 72 + 48, 0x3c0); /* section offset: 0x3c0 + 0x100 > 0x400 */
	expect_format(w.b, w.n, "section data past the end", (long)L.seg_cmd + 72, NULL);
	make_thin64(&w, 0, &L);
	set32(&w, L.seg_cmd + 48, 0x401); /* segment filesize */
	expect_format(w.b, w.n, "segment past the end", (long)L.seg_cmd, NULL);
	make_thin64(&w, 0, &L);
	set32(&w, L.symtab_cmd + 12, 0x10000000);
	expect_format(w.b, w.n, "nsyms huge", (long)L.symtab_cmd + 8, "symbol table");
	make_thin64(&w, 0, &L);
	set32(&w, L.symtab_cmd + 8, 0x3f8);
	expect_format(w.b, w.n, "symoff near the end", (long)L.symtab_cmd + 8, NULL);
	make_thin64(&w, 0, &L);
	set32(&w, L.symtab_cmd + 20, 0x1000);
	expect_format(w.b, w.n, "strsize past the end", (long)L.symtab_cmd + 16, "string table");
	make_thin64(&w, 0, &L);
	set32(&w, L.syms + 16, 25); /* second nlist's strx == strsize */
	expect_format(w.b, w.n, "strx out of range", (long)L.syms + 16, "string table");
	make_thin64(&w, 0, &L);
	w.b[L.strs + 24] = 'x'; /* "_x" loses its NUL */
	expect_format(w.b, w.n, "unterminated name", (long)(L.strs + 22), "unterminated");
	make_thin64(&w, 0, &L);
	w.b[0] = 0xfe, w.b[1] = 0xed, w.b[2] = 0xfa, w.b[3] = 0xcf;
	expect_format(w.b, w.n, "big-endian Mach-O", 0, "big-endian");
	make_thin64(&w, 0, &L);
	expect_format(w.b, 31, "header cut", 0, NULL);
	static const char text[] = "Kernel panic: this is not a Mach-O file\n";
	expect_format((const unsigned char *)text, sizeof text - 1, "text file", 0, "not a Mach-O");
	static const unsigned char elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
	expect_format(elf, sizeof elf, "ELF file", 0, "not a Mach-O");
	expect_format((const unsigned char *)"", 0, "empty buffer", 0, "empty");
	expect_format((const unsigned char *)"\xcf\xfa", 2, "two bytes", 0, NULL);
}

/* 32-bit i386: LC_SEGMENT, section, nlist (12-byte) entries. */
static void test_synthetic_32(void)
{
	struct w w;
	memset(&w, 0, sizeof w);
	put32(&w, 0xfeedface);
	put32(&w, 7);
	put32(&w, 3);
	put32(&w, 6);
	put32(&w, 2);
	put32(&w, 56 + 68 + 24);
	put32(&w, 0);
	put32(&w, 1);
	put32(&w, 56 + 68);
	putname(&w, "__TEXT");
	put32(&w, 0x1000); /* vmaddr */
	put32(&w, 0x1000);
	put32(&w, 0);
	put32(&w, 0x300);
	put32(&w, 5);
	put32(&w, 5);
	put32(&w, 1);
	put32(&w, 0);
	putname(&w, "__text");
	putname(&w, "__TEXT");
	put32(&w, 0x1100);
	put32(&w, 0x40);
	put32(&w, 0x100);
	for (int i = 0; i < 6; i++)
		put32(&w, 0);
	put32(&w, 2);
	put32(&w, 24);
	put32(&w, 0x200);
	put32(&w, 2);
	put32(&w, 0x240);
	put32(&w, 12);
	w.n = 0x200;
	put32(&w, 1);
	w.b[w.n++] = 0x0f, w.b[w.n++] = 1, w.n += 2;
	put32(&w, 0x1100);
	put32(&w, 8);
	w.b[w.n++] = 0x0f, w.b[w.n++] = 1, w.n += 2;
	put32(&w, 0x1100); /* alias at the same address: external, ties by strtab order */
	memcpy(w.b + 0x240, "\0_start\0_go\0", 12);
	w.n = 0x300;

	kp_macho *m = NULL;
	kp_error err;
	KT_CHECK(kp_macho_open_mem(w.b, w.n, &m, &err) == KP_OK, "i386 opens: %s", err.msg);
	if (!m)
		return;
	const kp_macho_slice *s = kp_macho_slice_at(m, 0);
	const char *name = NULL;
	uint64_t off;
	KT_STREQ(s->arch, "i386", "i386 arch");
	KT_CHECK(!s->is64 && !s->has_uuid, "32-bit, no uuid");
	KT_U64EQ(kp_macho_seg(s), 0x1000, "i386 seg = __TEXT");
	KT_CHECK(kp_macho_symbol(m, s, 0x1120, &name, &off) && !strcmp(name, "_start") && off == 0x20,
	         "i386 alias resolves to the first name: %s", name ? name : "(none)");
	KT_CHECK(!kp_macho_symbol(m, s, 0x1140, &name, &off), "i386 past __text");
	kp_macho_close(&m);
}

/* fat / fat64 around copies of the synthetic thin file. */
static size_t make_fat(unsigned char *out, bool f64, int narch, const uint64_t *offs,
                       const uint64_t *sizes, const struct w *thin, const uint32_t *subtypes)
{
	struct w w;
	memset(&w, 0, sizeof w);
	putbe32(&w, f64 ? 0xcafebabf : 0xcafebabe);
	putbe32(&w, (uint32_t)narch);
	for (int i = 0; i < narch; i++) {
		putbe32(&w, 0x0100000c);
		putbe32(&w, subtypes[i]);
		if (f64) {
			putbe32(&w, (uint32_t)(offs[i] >> 32));
			putbe32(&w, (uint32_t)offs[i]);
			putbe32(&w, (uint32_t)(sizes[i] >> 32));
			putbe32(&w, (uint32_t)sizes[i]);
			putbe32(&w, 12);
			putbe32(&w, 0);
		} else {
			putbe32(&w, (uint32_t)offs[i]);
			putbe32(&w, (uint32_t)sizes[i]);
			putbe32(&w, 12);
		}
	}
	size_t total = 0x1000 + 0x1000 * 2;
	memset(out, 0, total);
	memcpy(out, w.b, w.n);
	memcpy(out + 0x1000, thin[0].b, thin[0].n);
	memcpy(out + 0x2000, thin[1].b, thin[1].n);
	return total;
}

static void test_synthetic_fat(void)
{
	static unsigned char buf[0x3000];
	struct w thin[2];
	struct layout L;
	make_thin64(&thin[0], 0, &L);
	make_thin64(&thin[1], 2, &L);
	thin[1].b[L.uuid_cmd + 8] = 0xb0; /* a different UUID */
	uint32_t sub[2] = {0, 2};
	uint64_t offs[2] = {0x1000, 0x2000}, sizes[2] = {0x400, 0x400};
	kp_error err;
	for (int f64 = 0; f64 < 2; f64++) {
		size_t n = make_fat(buf, f64, 2, offs, sizes, thin, sub);
		kp_macho *m = NULL;
		KT_CHECK(kp_macho_open_mem(buf, n, &m, &err) == KP_OK, "fat%s opens: %s", f64 ? "64" : "",
		         err.msg);
		if (!m)
			continue;
		KT_CHECK(kp_macho_nslices(m) == 2, "two slices");
		KT_STREQ(kp_macho_slice_at(m, 1)->arch, "arm64e", "second slice arch");
		KT_CHECK(kp_macho_find_uuid(m, "b0a1a2a3a4a5a6a7a8a9aaabacadaeaf") == kp_macho_slice_at(m, 1),
		         "find_uuid picks the second slice");
		KT_CHECK(kp_macho_slice_at(m, 1)->data == buf + 0x2000 &&
		             kp_macho_slice_at(m, 1)->size == 0x400,
		         "slice bytes are the arc");
		kp_macho_close(&m);
		(void)poke(buf, n, &err);

		uint64_t o2[2] = {0x1000, 0x1200}, s2[2] = {0x400, 0x400};
		n = make_fat(buf, f64, 2, o2, s2, thin, sub);
		expect_format(buf, n, f64 ? "fat64 overlapping arcs" : "fat overlapping arcs",
		              8 + (f64 ? 32 : 20), "overlap");
		uint64_t o3[2] = {0x1000, 0x2000}, s3[2] = {0x400, 0x1400};
		n = make_fat(buf, f64, 2, o3, s3, thin, sub);
		expect_format(buf, n, "fat arc past end", 8 + (f64 ? 32 : 20), "outside");
		uint64_t o4[2] = {0x0, 0x2000}, s4[2] = {0x400, 0x400};
		n = make_fat(buf, f64, 2, o4, s4, thin, sub);
		expect_format(buf, n, "fat arc over the fat header", 8, NULL);
		uint64_t o5[2] = {0xfffffffffffff000ull, 0x2000}, s5[2] = {0x2000, 0x400};
		n = make_fat(buf, f64, 2, o5, s5, thin, sub);
		expect_format(buf, n, "fat arc offset wraps", 8, NULL);
		n = make_fat(buf, f64, 2, offs, sizes, thin, sub);
		buf[4] = 0x7f; /* nfat_arch huge */
		expect_format(buf, n, "nfat_arch huge", 4, NULL);
		n = make_fat(buf, f64, 2, offs, sizes, thin, sub);
		buf[7] = 0; /* nfat_arch 0 */
		expect_format(buf, n, "nfat_arch 0", 4, NULL);
		n = make_fat(buf, f64, 2, offs, sizes, thin, sub);
		set32(&thin[1], 16, 0xffffffff);
		memcpy(buf + 0x2000, thin[1].b, 0x400);
		set32(&thin[1], 16, 3);
		expect_format(buf, n, "bad load commands in the second slice", 0x2000 + 16, NULL);
	}
}

/* MH_FILESET with LC_FILESET_ENTRY commands. */
static void test_fileset(void)
{
	struct w w;
	memset(&w, 0, sizeof w);
	put32(&w, 0xfeedfacf);
	put32(&w, 0x0100000c);
	put32(&w, 2);
	put32(&w, 0xc); /* MH_FILESET */
	put32(&w, 2);
	put32(&w, 64 + 48);
	put32(&w, 0);
	put32(&w, 0);
	size_t e1 = w.n;
	put32(&w, 0x80000035);
	put32(&w, 64);
	put64(&w, 0xfffffe0007004000ull);
	put64(&w, 0x100);
	put32(&w, 32);
	put32(&w, 0);
	memcpy(w.b + w.n, "com.apple.kernel", 17);
	w.n = e1 + 64;
	size_t e2 = w.n;
	put32(&w, 0x80000035);
	put32(&w, 48);
	put64(&w, 0xfffffe0008000000ull);
	put64(&w, 0x180);
	put32(&w, 32);
	put32(&w, 0);
	memcpy(w.b + w.n, "com.fake.kext", 14);
	w.n = 0x200;

	kp_macho *m = NULL;
	kp_error err;
	KT_CHECK(kp_macho_open_mem(w.b, w.n, &m, &err) == KP_OK, "fileset opens: %s", err.msg);
	if (m) {
		const kp_macho_slice *s = kp_macho_slice_at(m, 0);
		const char *name = NULL;
		uint64_t va = 0, fo = 0;
		KT_CHECK(s->filetype == 0xc && kp_macho_nfileset(s) == 2, "two fileset entries");
		KT_CHECK(kp_macho_fileset_entry(s, 1, &name, &va, &fo) && name &&
		             !strcmp(name, "com.fake.kext") && va == 0xfffffe0008000000ull && fo == 0x180,
		         "second entry");
		KT_CHECK(kp_macho_fileset_entry(s, 0, &name, &va, &fo) && !strcmp(name, "com.apple.kernel"),
		         "first entry");
		KT_CHECK(!kp_macho_fileset_entry(s, 2, &name, &va, &fo), "no third entry");
		kp_macho_close(&m);
	}
	unsigned char save[48];
	memcpy(save, w.b + e2, 48);
	set32(&w, e2 + 24, 48);
	expect_format(w.b, w.n, "fileset name offset at cmdsize", (long)e2 + 24, NULL);
	memcpy(w.b + e2, save, 48);
	memset(w.b + e2 + 32, 'x', 16);
	expect_format(w.b, w.n, "fileset name unterminated", (long)e2 + 32, "unterminated");
	memcpy(w.b + e2, save, 48);
	set32(&w, e2 + 4, 24);
	expect_format(w.b, w.n, "fileset entry too short", (long)e2, NULL);
}

static void test_files_on_disk(void)
{
	char dir[] = "/tmp/kp_test_macho_XXXXXX";
	kp_macho *m = NULL;
	kp_error err;
	KT_CHECK(mkdtemp(dir) != NULL, "temp dir");
	char empty[300];
	snprintf(empty, sizeof empty, "%s/empty", dir);
	FILE *f = fopen(empty, "w");
	if (f)
		fclose(f);
	KT_CHECK(kp_macho_open(empty, &m, &err) == KP_ERR_FORMAT && m == NULL, "empty file: %s",
	         err.msg);
	KT_CHECK(kp_macho_open(dir, &m, &err) == KP_ERR_IO, "directory: %s", err.msg);
	KT_CHECK(kp_macho_open(BIN "fakekext.arm64.dSYM", &m, &err) == KP_ERR_IO,
	         "a dSYM bundle path is a directory, not a Mach-O");
	snprintf(empty, sizeof empty, "%s/missing", dir);
	KT_CHECK(kp_macho_open(empty, &m, &err) == KP_ERR_IO, "missing file: %s", err.msg);
	KT_CHECK(kp_macho_open(KP_FIXTURES "/build.sh", &m, &err) == KP_ERR_FORMAT,
	         "a shell script is not Mach-O");
	snprintf(empty, sizeof empty, "%s/empty", dir);
	unlink(empty);
	rmdir(dir);
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
	struct stat st;
	if (stat(BIN "fakekext.universal", &st) != 0) {
		KT_SKIP("fixtures not built (run tests/fixtures/build.sh)");
	} else {
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
		truncations("fakekext.x86_64", SIZE_MAX, 1);
		truncations(DW("fakekext.x86_64"), SIZE_MAX, 1);
		truncations("fakekext.universal", 0x4100, 61);
		mutations("fakekext.x86_64", 1600, 3000);
		mutations("fakekernel.arm64", 1800, 3000);
		mutations(DW("fakekext.arm64"), 2400, 3000);
		mutations("fakekext.universal", 0x4600, 3000);
	}
	test_synthetic_thin();
	test_synthetic_32();
	test_synthetic_fat();
	test_fileset();
	test_files_on_disk();
	return kt_done();
}
