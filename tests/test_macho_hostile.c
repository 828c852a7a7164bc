/* test_macho_hostile.c: kp_macho on hostile input: every prefix and
 * thousands of byte mutations of the real fixtures (tests/fixtures, built by
 * fixtures/build.sh), synthetic thin / 32-bit / fat / fileset / prelinked files with one
 * field wrong at a time, and files on disk that are not Mach-O.  Any outcome
 * but OK or a FORMAT error at a sane position is a failure; run under ASan
 * (KP_SANITIZE) to catch overreads.  The fixture oracles are test_macho.c. */
#include "kt_slurp.h"
#include "kp_macho.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt.h"
#include "macho_fixture.h"

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
	put32(w, MH_MAGIC_64);
	put32(w, CPU_TYPE_ARM64);
	put32(w, subtype);
	put32(w, MH_DYLIB);
	put32(w, 3); /* ncmds */
	put32(w, UUID_CMD_SIZE + SEGMENT_64_CMD_SIZE + SECTION_64_SIZE + SYMTAB_CMD_SIZE);
	put32(w, 0);
	put32(w, 0);
	lay->uuid_cmd = w->n;
	put32(w, LC_UUID);
	put32(w, UUID_CMD_SIZE);
	for (int i = 0; i < 16; i++)
		w->b[w->n++] = (unsigned char)(0xa0 + i);
	lay->seg_cmd = w->n;
	put32(w, LC_SEGMENT_64);
	put32(w, SEGMENT_64_CMD_SIZE + SECTION_64_SIZE);
	putname(w, "__TEXT");
	put64(w, 0);      /* vmaddr */
	put64(w, 0x2000); /* vmsize */
	put64(w, 0);      /* fileoff */
	put64(w, 0x400);  /* filesize */
	put32(w, VM_PROT_READ_EXECUTE); /* maxprot */
	put32(w, VM_PROT_READ_EXECUTE); /* initprot */
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
	put32(w, S_ATTR_PURE_SOME_INSTRUCTIONS);
	put32(w, 0);
	put32(w, 0);
	put32(w, 0);
	lay->symtab_cmd = w->n;
	lay->syms = 0x300;
	lay->strs = 0x340;
	lay->strsize = 25;
	put32(w, LC_SYMTAB);
	put32(w, SYMTAB_CMD_SIZE);
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
		{1, N_SECT | N_EXT, 1, 0x1000}, /* _first */
		{8, N_SECT, 1, 0x1080},         /* _second, local */
		{16, N_FUN, 1, 0x1040},         /* a stab: must be ignored */
		{22, N_EXT, 0, 0},              /* undefined _x */
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

	make_thin64(&w, CPU_SUBTYPE_PTRAUTH_ABI | CPU_SUBTYPE_ARM64E, &L);
	KT_CHECK(kp_macho_open_mem(w.b, w.n, &m, &err) == KP_OK, "arm64e opens");
	if (m)
		KT_STREQ(kp_macho_slice_at(m, 0)->arch, "arm64e", "arm64e subtype with PAC bits");
	kp_macho_close(&m);

	make_thin64(&w, 0, &L);
	set32(&w, L.uuid_cmd + LC_OFF_CMDSIZE, 0);
	expect_format(w.b, w.n, "cmdsize 0", (long)L.uuid_cmd + LC_OFF_CMDSIZE, NULL);
	make_thin64(&w, 0, &L);
	set32(&w, L.uuid_cmd + LC_OFF_CMDSIZE, 6);
	expect_format(w.b, w.n, "cmdsize 6", (long)L.uuid_cmd + LC_OFF_CMDSIZE, NULL);
	make_thin64(&w, 0, &L);
	set32(&w, L.uuid_cmd + LC_OFF_CMDSIZE, 26);
	expect_format(w.b, w.n, "cmdsize not a multiple of 4", (long)L.uuid_cmd + LC_OFF_CMDSIZE, "multiple");
	make_thin64(&w, 0, &L);
	set32(&w, L.symtab_cmd + LC_OFF_CMDSIZE, 0x1000);
	expect_format(w.b, w.n, "cmdsize past sizeofcmds", (long)L.symtab_cmd + LC_OFF_CMDSIZE, NULL);
	make_thin64(&w, 0, &L);
	set32(&w, MH_OFF_SIZEOFCMDS, 0x10000);
	expect_format(w.b, w.n, "sizeofcmds past the file", MH_OFF_SIZEOFCMDS, NULL);
	make_thin64(&w, 0, &L);
	set32(&w, MH_OFF_NCMDS, 0xffffffff);
	expect_format(w.b, w.n, "ncmds huge", MH_OFF_NCMDS, NULL);
	make_thin64(&w, 0, &L);
	set32(&w, L.uuid_cmd + LC_OFF_CMDSIZE, 16);
	expect_format(w.b, w.n, "LC_UUID too short", (long)L.uuid_cmd, NULL);
	make_thin64(&w, 0, &L);
	set32(&w, L.seg_cmd + SEG64_OFF_NSECTS, 2);
	expect_format(w.b, w.n, "nsects overflows the command", (long)L.seg_cmd, "section count");
	make_thin64(&w, 0, &L);
	set32(&w, L.seg_cmd + SEG64_OFF_NSECTS, 0x40000000);
	expect_format(w.b, w.n, "nsects huge", (long)L.seg_cmd, NULL);
	make_thin64(&w, 0, &L);
	set32(&w, L.seg_cmd + SEGMENT_64_CMD_SIZE + SECT64_OFF_OFFSET, 0x3c0); /* section offset: 0x3c0 + 0x100 > 0x400 */
	expect_format(w.b, w.n, "section data past the end", (long)L.seg_cmd + SEGMENT_64_CMD_SIZE, NULL);
	make_thin64(&w, 0, &L);
	set32(&w, L.seg_cmd + SEG64_OFF_FILESIZE, 0x401); /* segment filesize */
	expect_format(w.b, w.n, "segment past the end", (long)L.seg_cmd, NULL);
	make_thin64(&w, 0, &L);
	set32(&w, L.symtab_cmd + SYMTAB_OFF_NSYMS, 0x10000000);
	expect_format(w.b, w.n, "nsyms huge", (long)L.symtab_cmd + SYMTAB_OFF_SYMOFF, "symbol table");
	make_thin64(&w, 0, &L);
	set32(&w, L.symtab_cmd + SYMTAB_OFF_SYMOFF, 0x3f8);
	expect_format(w.b, w.n, "symoff near the end", (long)L.symtab_cmd + SYMTAB_OFF_SYMOFF, NULL);
	make_thin64(&w, 0, &L);
	set32(&w, L.symtab_cmd + SYMTAB_OFF_STRSIZE, 0x1000);
	expect_format(w.b, w.n, "strsize past the end", (long)L.symtab_cmd + SYMTAB_OFF_STROFF, "string table");
	make_thin64(&w, 0, &L);
	set32(&w, L.syms + NLIST_64_SIZE, 25); /* second nlist's strx == strsize */
	expect_format(w.b, w.n, "strx out of range", (long)L.syms + NLIST_64_SIZE, "string table");
	make_thin64(&w, 0, &L);
	w.b[L.strs + 24] = 'x'; /* "_x" loses its NUL */
	expect_format(w.b, w.n, "unterminated name", (long)(L.strs + 22), "unterminated");
	make_thin64(&w, 0, &L);
	w.b[0] = 0xfe, w.b[1] = 0xed, w.b[2] = 0xfa, w.b[3] = 0xcf; /* MH_MAGIC_64 big endian */
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

/* An i386 dylib's header: __TEXT at 0x1000 (0x1000 bytes, filesize of
 * them in the file) with nsects sections of text_size bytes from 0x1100
 * (__text, then __const right after it), and an LC_SYMTAB of nsyms 12-byte
 * entries at symoff, strings at stroff. */
static void put_i386_head(struct w *w, uint32_t filesize, uint32_t nsects, uint32_t text_size,
                          uint32_t symoff, uint32_t nsyms, uint32_t stroff, uint32_t strsize)
{
	memset(w, 0, sizeof *w);
	put32(w, MH_MAGIC);
	put32(w, CPU_TYPE_X86);
	put32(w, CPU_SUBTYPE_I386_ALL);
	put32(w, MH_DYLIB);
	put32(w, 2); /* ncmds */
	put32(w, SEGMENT_CMD_SIZE + nsects * SECTION_SIZE + SYMTAB_CMD_SIZE);
	put32(w, 0);
	put32(w, LC_SEGMENT);
	put32(w, SEGMENT_CMD_SIZE + nsects * SECTION_SIZE);
	putname(w, "__TEXT");
	put32(w, 0x1000); /* vmaddr */
	put32(w, 0x1000); /* vmsize */
	put32(w, 0);      /* fileoff */
	put32(w, filesize);
	put32(w, VM_PROT_READ_EXECUTE);
	put32(w, VM_PROT_READ_EXECUTE);
	put32(w, nsects);
	put32(w, 0);
	for (uint32_t i = 0; i < nsects; i++) {
		putname(w, i ? "__const" : "__text");
		putname(w, "__TEXT");
		put32(w, 0x1100 + i * text_size);
		put32(w, text_size);
		put32(w, 0x100 + i * text_size);
		for (int j = 0; j < 6; j++)
			put32(w, 0);
	}
	put32(w, LC_SYMTAB);
	put32(w, SYMTAB_CMD_SIZE);
	put32(w, symoff);
	put32(w, nsyms);
	put32(w, stroff);
	put32(w, strsize);
}

/* 32-bit i386: LC_SEGMENT, section, nlist (12-byte) entries. */
static void test_synthetic_32(void)
{
	struct w w;
	put_i386_head(&w, 0x300, 1, 0x40, 0x200, 2, 0x240, 12);
	w.n = 0x200;
	put32(&w, 1);
	w.b[w.n++] = N_SECT | N_EXT, w.b[w.n++] = 1, w.n += 2;
	put32(&w, 0x1100);
	put32(&w, 8);
	w.b[w.n++] = N_SECT | N_EXT, w.b[w.n++] = 1, w.n += 2;
	put32(&w, 0x1100); /* alias at the same address: the last one wins, as in llvm-symbolizer */
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
	KT_CHECK(kp_macho_symbol(m, s, 0x1120, &name, &off) && !strcmp(name, "_go") && off == 0x20,
	         "i386 alias resolves to the last name, as llvm-symbolizer's: %s",
	         name ? name : "(none)");
	KT_CHECK(!kp_macho_symbol(m, s, 0x1140, &name, &off), "i386 past __text");
	kp_macho_close(&m);
}

/* Many symbols in no order, several at each address (radix sort plus the
 * tie rule): at one address llvm-symbolizer keeps the largest extent, and
 * of those the last entry of the symbol table; here every symbol at an
 * address has the same extent (up to the next address), so the last entry
 * names it, at the address and inside it. */
static void test_symbol_order(void)
{
	enum { NSYM = 400, SLOTS = 100 };
	struct w w;
	uint32_t symoff = 0x200, stroff = symoff + NSYM * 12, strsize = 1 + NSYM * 6;
	put_i386_head(&w, 0x200, 1, SLOTS * 8, symoff, NSYM, stroff, strsize);
	int last[SLOTS];   /* the last entry at each slot, -1: none */
	for (int k = 0; k < SLOTS; k++)
		last[k] = -1;
	uint32_t x = 12345;
	w.n = symoff;
	for (int i = 0; i < NSYM; i++) {
		x = x * 1103515245u + 12345u;
		int slot = (int)((x >> 16) % SLOTS);
		last[slot] = i;
		put32(&w, 1 + (uint32_t)i * 6);
		w.b[w.n++] = N_SECT | N_EXT, w.b[w.n++] = 1, w.n += 2;
		put32(&w, 0x1100 + (uint32_t)slot * 8);
	}
	for (int i = 0; i < NSYM; i++) {
		char *q = (char *)w.b + stroff + 1 + i * 6;
		q[0] = '_', q[1] = 's', q[2] = (char)('0' + i / 100), q[3] = (char)('0' + i / 10 % 10);
		q[4] = (char)('0' + i % 10), q[5] = '\0';
	}
	w.n = stroff + strsize;
	kp_macho *m = NULL;
	kp_error err;
	KT_CHECK(kp_macho_open_mem(w.b, w.n, &m, &err) == KP_OK, "symbol order file opens: %s", err.msg);
	if (!m)
		return;
	const kp_macho_slice *s = kp_macho_slice_at(m, 0);
	int right = 0, slots = 0;
	for (int k = 0; k < SLOTS; k++) {
		if (last[k] < 0)
			continue;
		slots++;
		char want[16];
		snprintf(want, sizeof want, "_s%03d", last[k] % 1000);
		const char *n1 = NULL, *n2 = NULL;
		uint64_t o1 = 1, o2 = 0;
		bool a = kp_macho_symbol(m, s, 0x1100 + (uint64_t)k * 8, &n1, &o1);
		bool b = kp_macho_symbol(m, s, 0x1100 + (uint64_t)k * 8 + 2, &n2, &o2);
		right += a && b && !strcmp(n1, want) && !strcmp(n2, want) && o1 == 0 && o2 == 2;
	}
	KT_CHECK(slots > 90 && right == slots,
	         "%d symbols at %d addresses in no order: the last entry at each names it (%d of %d)",
	         NSYM, slots, right, slots);
	kp_macho_close(&m);
}

/* The first lookups on a slice read its symbol table unsorted
 * (macho_symtab.c's scan); every answer, span included, must be the sorted
 * table's.  Random tables over two sections: aliases, symbols before and
 * past their section, stabs, absolute marks inside a section, section
 * numbers past the last; every address around them asked of a fresh handle
 * (its first lookup scans) and of one that has sorted. */
static bool any_boundary(void *ctx, uint64_t addr)
{
	(void)ctx, (void)addr;
	return true;
}

static void test_symbol_scan(void)
{
	enum { NSYM = 24, TABLES = 40 };
	uint32_t x = 777;
	int asked = 0, same = 0;
	for (int t = 0; t < TABLES; t++) {
		struct w w;
		uint32_t symoff = 0x300, stroff = symoff + NSYM * 12, strsize = 1 + NSYM * 4;
		put_i386_head(&w, 0x300, 2, 0x40, symoff, NSYM, stroff, strsize);
		w.n = symoff;
		for (int i = 0; i < NSYM; i++) {
			x = x * 1103515245u + 12345u;
			uint32_t r = x >> 8;
			uint8_t type = r % 9 == 0 ? 0x24 /* N_FUN stab */ : r % 9 == 1 ? 0x2 /* N_ABS */ : N_SECT;
			uint8_t sect = (uint8_t)(r / 9 % 7 == 0 ? 3 : 1 + r / 9 % 2);
			put32(&w, 1 + (uint32_t)i * 4);
			w.b[w.n++] = type, w.b[w.n++] = sect, w.n += 2;
			put32(&w, 0x10f0 + (r >> 12) % 0xa0);   /* 0x10f0-0x118f around 0x1100-0x117f */
		}
		for (int i = 0; i < NSYM; i++) {
			char *q = (char *)w.b + stroff + 1 + i * 4;
			q[0] = '_', q[1] = (char)('a' + i / 10), q[2] = (char)('0' + i % 10), q[3] = '\0';
		}
		w.n = stroff + strsize;
		kp_macho *sorted = NULL;
		kp_error err;
		if (kp_macho_open_mem(w.b, w.n, &sorted, &err) != KP_OK) {
			KT_CHECK(false, "scan table %d opens: %s", t, err.msg);
			continue;
		}
		const kp_macho_slice *ss = kp_macho_slice_at(sorted, 0);
		KT_CHECK(kp_macho_symbol_boundaries(sorted, ss, any_boundary, NULL), "table %d sorts", t);
		for (uint64_t a = 0x10e8; a < 0x1198; a++) {
			kp_macho *fresh = NULL;
			if (kp_macho_open_mem(w.b, w.n, &fresh, &err) != KP_OK)
				break;
			const kp_macho_slice *fs = kp_macho_slice_at(fresh, 0);
			const char *n1 = NULL, *n2 = NULL;
			uint64_t o1 = 0, o2 = 0, l1 = 0, l2 = 0, h1 = 0, h2 = 0;
			size_t k1 = 0, k2 = 0;
			bool a1 = kp__macho_symbol_span(fresh, fs, a, &k1, &n1, &o1, &l1, &h1);
			bool a2 = kp__macho_symbol_span(sorted, ss, a, &k2, &n2, &o2, &l2, &h2);
			asked++;
			bool ok = a1 == a2 && (!a1 || (!strcmp(n1, n2) && o1 == o2 && l1 == l2 && h1 == h2));
			same += ok;
			if (!ok)
				fprintf(stderr, "table %d at 0x%llx: scan %d %s+%llu [%llx,%llx) sorted %d %s+%llu [%llx,%llx)\n",
				        t, (unsigned long long)a, a1, a1 ? n1 : "-", (unsigned long long)o1,
				        (unsigned long long)l1, (unsigned long long)h1, a2, a2 ? n2 : "-",
				        (unsigned long long)o2, (unsigned long long)l2, (unsigned long long)h2);
			kp_macho_close(&fresh);
		}
		kp_macho_close(&sorted);
	}
	KT_CHECK(asked > 0 && same == asked,
	         "a slice's first lookup (scanning the table) answers as the sorted table does: %d of %d",
	         same, asked);
}

/* fat / fat64 around copies of the synthetic thin file. */
static size_t make_fat(unsigned char *out, bool f64, int narch, const uint64_t *offs,
                       const uint64_t *sizes, const struct w *thin, const uint32_t *subtypes)
{
	struct w w;
	memset(&w, 0, sizeof w);
	putbe32(&w, f64 ? FAT_MAGIC_64 : FAT_MAGIC);
	putbe32(&w, (uint32_t)narch);
	for (int i = 0; i < narch; i++) {
		putbe32(&w, CPU_TYPE_ARM64);
		putbe32(&w, subtypes[i]);
		if (f64) {
			putbe32(&w, (uint32_t)(offs[i] >> 32));
			putbe32(&w, (uint32_t)offs[i]);
			putbe32(&w, (uint32_t)(sizes[i] >> 32));
			putbe32(&w, (uint32_t)sizes[i]);
			putbe32(&w, FAT_ALIGN_4K);
			putbe32(&w, 0);
		} else {
			putbe32(&w, (uint32_t)offs[i]);
			putbe32(&w, (uint32_t)sizes[i]);
			putbe32(&w, FAT_ALIGN_4K);
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
	make_thin64(&thin[1], CPU_SUBTYPE_ARM64E, &L);
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
		set32(&thin[1], MH_OFF_NCMDS, 0xffffffff);
		memcpy(buf + 0x2000, thin[1].b, 0x400);
		set32(&thin[1], MH_OFF_NCMDS, 3);
		expect_format(buf, n, "bad load commands in the second slice", 0x2000 + 16, NULL);
	}
}

/* MH_FILESET with LC_FILESET_ENTRY commands. */
static void test_fileset(void)
{
	struct w w;
	memset(&w, 0, sizeof w);
	put32(&w, MH_MAGIC_64);
	put32(&w, CPU_TYPE_ARM64);
	put32(&w, CPU_SUBTYPE_ARM64E);
	put32(&w, MH_FILESET);
	put32(&w, 2); /* ncmds */
	put32(&w, 64 + 48);
	put32(&w, 0);
	put32(&w, 0);
	size_t e1 = w.n;
	put32(&w, LC_FILESET_ENTRY);
	put32(&w, 64);
	put64(&w, 0xfffffe0007004000ull); /* vmaddr */
	put64(&w, 0x100);                 /* fileoff */
	put32(&w, FILESET_ENTRY_CMD_SIZE); /* entry id offset */
	put32(&w, 0);
	memcpy(w.b + w.n, "com.apple.kernel", 17);
	w.n = e1 + 64;
	size_t e2 = w.n;
	put32(&w, LC_FILESET_ENTRY);
	put32(&w, 48);
	put64(&w, 0xfffffe0008000000ull);
	put64(&w, 0x180);
	put32(&w, FILESET_ENTRY_CMD_SIZE);
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
		KT_CHECK(s->filetype == MH_FILESET && kp_macho_nfileset(s) == 2, "two fileset entries");
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
	set32(&w, e2 + FILESET_OFF_ENTRY_ID, 48);
	expect_format(w.b, w.n, "fileset name offset at cmdsize", (long)e2 + 24, NULL);
	memcpy(w.b + e2, save, 48);
	memset(w.b + e2 + 32, 'x', 16);
	expect_format(w.b, w.n, "fileset name unterminated", (long)e2 + 32, "unterminated");
	memcpy(w.b + e2, save, 48);
	set32(&w, e2 + LC_OFF_CMDSIZE, 24);
	expect_format(w.b, w.n, "fileset entry too short", (long)e2, NULL);
}

/* A prelinked kernelcache (macho_prelink.c): an MH_EXECUTE kernel with
 * __TEXT (0x000), __PRELINK_TEXT (0x400, the kext whole) and __PRELINK_INFO
 * (0x800, the XML).  The kext: MH_KEXT_BUNDLE with LC_UUID and __TEXT,__text
 * (its addr load + 0x100, its bytes at file 0x500); its file offsets count
 * from the file's start, or from its header when rel. */
#define PL_KEXT_VM 0xffffff7f80000000ull
#define PL_INFO_OK                                                                        \
	"<dict><key>_PrelinkInfoDictionary</key><array>"                                       \
	"<dict><key>CFBundleIdentifier</key><string ID=\"1\">com.fake.Prelinked</string>"      \
	"<key>X</key><integer size=\"64\" ID=\"2\">0xffffff7f80000000</integer></dict>"        \
	"<dict><key>CFBundleIdentifier</key><string IDREF=\"1\"/>"                              \
	"<key>_PrelinkExecutableLoadAddr</key><integer IDREF=\"2\"/>"                           \
	"<key>_PrelinkExecutableSourceAddr</key><integer IDREF=\"2\"/>"                         \
	"<key>_PrelinkExecutableSize</key><integer size=\"64\">%s</integer></dict>"            \
	"</array></dict>"

static void plseg(struct w *w, const char *seg, uint64_t vm, uint64_t off, uint64_t size,
                  const char *sect, uint64_t saddr, uint32_t soff, uint64_t ssize)
{
	put32(w, LC_SEGMENT_64);
	put32(w, SEGMENT_64_CMD_SIZE + (sect ? SECTION_64_SIZE : 0));
	putname(w, seg);
	put64(w, vm);
	put64(w, size);
	put64(w, off);
	put64(w, size);
	put32(w, VM_PROT_READ_EXECUTE);
	put32(w, VM_PROT_READ_EXECUTE);
	put32(w, sect ? 1 : 0);
	put32(w, 0);
	if (!sect)
		return;
	putname(w, sect);
	putname(w, seg);
	put64(w, saddr);
	put64(w, ssize);
	put32(w, soff);
	for (int i = 0; i < 7; i++)
		put32(w, 0);
}

static void pluuid(struct w *w, unsigned char first)
{
	put32(w, LC_UUID);
	put32(w, UUID_CMD_SIZE);
	for (int i = 0; i < 16; i++)
		w->b[w->n++] = (unsigned char)(first + i);
}

static void make_prelinked(struct w *w, const char *info, bool rel, uint32_t sect_off)
{
	memset(w, 0, sizeof *w);
	put32(w, MH_MAGIC_64);
	put32(w, CPU_TYPE_X86 | 0x01000000u);
	put32(w, 3);
	put32(w, 2); /* MH_EXECUTE */
	put32(w, 4);
	put32(w, UUID_CMD_SIZE + SEGMENT_64_CMD_SIZE + 2 * (SEGMENT_64_CMD_SIZE + SECTION_64_SIZE));
	put32(w, 0);
	put32(w, 0);
	pluuid(w, 0xa0);
	plseg(w, "__TEXT", 0xffffff8000200000ull, 0, 0x400, NULL, 0, 0, 0);
	plseg(w, "__PRELINK_TEXT", PL_KEXT_VM, 0x400, 0x400, "__text", PL_KEXT_VM, 0x400, 0x400);
	plseg(w, "__PRELINK_INFO", 0xffffff8000800000ull, 0x800, 0x800, "__info",
	      0xffffff8000800000ull, 0x800, 0x800);
	w->n = 0x400;
	put32(w, MH_MAGIC_64);
	put32(w, CPU_TYPE_X86 | 0x01000000u);
	put32(w, 3);
	put32(w, 0xb); /* MH_KEXT_BUNDLE */
	put32(w, 2);
	put32(w, UUID_CMD_SIZE + SEGMENT_64_CMD_SIZE + SECTION_64_SIZE);
	put32(w, 0);
	put32(w, 0);
	pluuid(w, 0xb0);
	plseg(w, "__TEXT", PL_KEXT_VM, rel ? 0 : 0x400, 0x400, "__text", PL_KEXT_VM + 0x100,
	      sect_off, 0x100);
	memset(w->b + 0x500, 0xc3, 0x100);
	w->n = 0x800;
	size_t len = strlen(info);
	memcpy(w->b + w->n, info, len < 0x800 ? len : 0x800);
	w->n = 0x1000;
}

/* Opens w, checks it has nslices slices and the warning mentions needle
 * (NULL: no warning), the kernel and, when two, the kext as they should be. */
static void expect_prelinked(const struct w *w, const char *what, size_t nslices, const char *needle)
{
	kp_macho *m = NULL;
	kp_error err;
	KT_CHECK(kp_macho_open_mem(w->b, w->n, &m, &err) == KP_OK, "%s: opens (%s)", what, err.msg);
	if (!m)
		return;
	const char *warn = kp_macho_warning(m);
	KT_CHECK(kp_macho_nslices(m) == nslices, "%s: %zu slices (got %zu)", what, nslices,
	         kp_macho_nslices(m));
	KT_CHECK(needle ? warn && strstr(warn, needle) : !warn, "%s: warning \"%s\" (want %s)", what,
	         warn ? warn : "", needle ? needle : "none");
	const kp_macho_slice *k = kp_macho_slice_at(m, 0);
	KT_CHECK(k && k->fileset_id && !strcmp(k->fileset_id, "com.apple.kernel") &&
	             kp_macho_find_uuid(m, "A0A1A2A3-A4A5-A6A7-A8A9-AAABACADAEAF") == k,
	         "%s: the kernel is the file's own slice", what);
	const kp_macho_slice *x = kp_macho_find_uuid(m, "b0b1b2b3b4b5b6b7b8b9babbbcbdbebf");
	if (nslices == 2) {
		const unsigned char *d = NULL;
		uint64_t size = 0, addr = 0;
		KT_CHECK(x && x->fileset_id && !strcmp(x->fileset_id, "com.fake.Prelinked"),
		         "%s: the kext is a slice named by its bundle id (an IDREF)", what);
		KT_CHECK(x && kp_macho_section(x, "__TEXT", "__text", &d, &size, &addr) &&
		             d == w->b + 0x500 && size == 0x100 && addr == PL_KEXT_VM + 0x100,
		         "%s: the kext's __text is its bytes in __PRELINK_TEXT", what);
	} else {
		KT_CHECK(!x, "%s: the kext is left out", what);
	}
	kp_macho_close(&m);
}

static void test_prelinked(void)
{
	static struct w w;
	char info[2048];
	snprintf(info, sizeof info, PL_INFO_OK, "0x400");
	make_prelinked(&w, info, false, 0x500);
	expect_prelinked(&w, "prelinked, offsets from the file", 2, NULL);
	make_prelinked(&w, info, true, 0x100);
	expect_prelinked(&w, "prelinked, offsets from the kext", 2, NULL);
	make_prelinked(&w, info, false, 0x700);
	expect_prelinked(&w, "a section not where its address says", 1,
	                 "prelinked kext com.fake.Prelinked left out: its sections are not where");
	snprintf(info, sizeof info, PL_INFO_OK, "0xffffffffffffffff");
	make_prelinked(&w, info, false, 0x500);
	expect_prelinked(&w, "a size that overflows", 1, "Prelinked left out: its size 0xffffffffffffffff overflows");
	snprintf(info, sizeof info, PL_INFO_OK, "0x10000");
	make_prelinked(&w, info, false, 0x500);
	expect_prelinked(&w, "a size past the file", 1, "runs outside the file");
	snprintf(info, sizeof info, PL_INFO_OK, "0x400");
	char *ref = strstr(info, "ID=\"2\"");
	if (ref)
		ref[4] = '7';   /* the integer's ID: 7, IDREFs to 2 go nowhere */
	make_prelinked(&w, info, false, 0x500);
	expect_prelinked(&w, "an IDREF to no ID", 1, "prelinked kexts left out: IDREF 2 refers to no earlier ID");
	snprintf(info, sizeof info, PL_INFO_OK, "0x400");
	char *l = strstr(info, "Prelinked</string>");
	if (l) {   /* the bundle id with a character reference, read without libplist */
		memmove(l + 9, l + 4, strlen(l + 4) + 1);   /* "Pre		memmove(l + 9, l + 3, strlen(l + 3) + 1);#108;inked" */
		memcpy(l + 3, "&#108;", 6);
	}
	make_prelinked(&w, info, false, 0x500);
	expect_prelinked(&w, "a character reference in the bundle id", 2, NULL);
	make_prelinked(&w, "<dict><key>_PrelinkInfoDictionary</key><string>x</string></dict>", false, 0x500);
	expect_prelinked(&w, "no array", 1, "prelinked kexts left out: the prelink info has no _PrelinkInfoDictionary array");
	snprintf(info, sizeof info, PL_INFO_OK, "0x400");
	char *id2 = strstr(info, "ID=\"2\"");
	if (id2)
		id2[4] = '0';   /* ID 0 after ID 1 */
	make_prelinked(&w, info, false, 0x500);
	expect_prelinked(&w, "IDs out of order", 1, "prelinked kexts left out: ID 0 out of order");
	/* the kext's dictionary itself an IDREF (to one in a <set>, skipped) */
	snprintf(info, sizeof info, PL_INFO_OK, "0x400");
	char *d2 = strstr(info, "<dict><key>CFBundleIdentifier</key><string IDREF");
	char *end = strstr(info, "</array>");
	if (d2 && end) {
		char kext[1024];
		snprintf(kext, sizeof kext, "<set><dict ID=\"3\">%.*s</set><dict IDREF=\"3\"/></array></dict>",
		         (int)(end - d2 - 6), d2 + 6);
		strcpy(d2, kext);
	}
	make_prelinked(&w, info, false, 0x500);
	expect_prelinked(&w, "the kext's entry an IDREF", 2, NULL);
	make_prelinked(&w, "<dict><key>_PrelinkInfoDictionary</key><array><dict>", false, 0x500);
	expect_prelinked(&w, "a cut plist", 1, "prelinked kexts left out: ");
	snprintf(info, sizeof info, PL_INFO_OK, "0x400");
	char *src = strstr(info, "0xffffff7f80000000");
	if (src)
		src[10] = '9';   /* the load and source address 0xffffff7f90000000 */
	make_prelinked(&w, info, false, 0x500);
	expect_prelinked(&w, "a kext outside the file", 1,
	                 "com.fake.Prelinked left out: its header is outside the file (address 0xffffff7f90000000)");
	/* IDREFs to IDREFs, each level twice the last, in elements that are no
	 * kext's dictionary: skipped unread (once 2^28 copies, then refused) */
	size_t at = (size_t)snprintf(info, sizeof info, "<dict><key>_PrelinkInfoDictionary</key><array>"
	                             "<array ID=\"1\"><string>xxxxxxxxxxxxxxxx</string></array>");
	for (int lv = 2; lv <= 28 && at < sizeof info; lv++)
		at += (size_t)snprintf(info + at, sizeof info - at,
		                       "<array ID=\"%d\"><array IDREF=\"%d\"/><array IDREF=\"%d\"/></array>", lv,
		                       lv - 1, lv - 1);
	if (at < sizeof info)
		snprintf(info + at, sizeof info - at, "</array></dict>");
	make_prelinked(&w, info, false, 0x500);
	expect_prelinked(&w, "IDREFs that double at each level", 1, NULL);
	/* every byte of the file flipped in turn: OK or FORMAT, never a crash */
	snprintf(info, sizeof info, PL_INFO_OK, "0x400");
	make_prelinked(&w, info, false, 0x500);
	size_t ok = 0, other = 0;
	kp_error err;
	for (size_t i = 0; i < 0x800 + strlen(info); i++) {
		w.b[i] ^= 0x5a;
		kp_status st = poke(w.b, w.n, &err);
		ok += st == KP_OK;
		other += st != KP_OK && st != KP_ERR_FORMAT;
		w.b[i] ^= 0x5a;
	}
	KT_CHECK(other == 0 && ok > 0, "prelinked, each byte flipped: OK or FORMAT (%zu OK, %zu other)",
	         ok, other);
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

/* Slice names as lipo and llvm-symbolizer --default-arch spell them. */
static void test_arch_names(void)
{
	static const struct { uint32_t cputype, subtype; const char *name; } t[] = {
		{0x01000007u, 3, "x86_64"}, {0x01000007u, 8, "x86_64h"}, {12, 9, "armv7"},
		{12, 11, "armv7s"}, {12, 12, "armv7k"}, {12, 16, "armv7em"}, {12, 99, "arm"},
		{0x0100000cu, 0, "arm64"}, {0x0100000cu, 0x80000002u, "arm64e"},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		struct w w;
		struct layout L;
		kp_error err;
		kp_macho *m = NULL;
		make_thin64(&w, t[i].subtype, &L);
		w.b[4] = (unsigned char)t[i].cputype, w.b[7] = (unsigned char)(t[i].cputype >> 24);
		KT_CHECK(kp_macho_open_mem(w.b, w.n, &m, &err) == KP_OK, "%s opens: %s", t[i].name,
		         err.msg);
		if (!m)
			continue;
		const kp_macho_slice *s = kp_macho_slice_at(m, 0);
		KT_STREQ(s->arch, t[i].name, "cputype and subtype name the slice");
		KT_CHECK(kp_macho_find_arch(m, t[i].name) == s, "--arch %s finds it", t[i].name);
		kp_macho_close(&m);
	}
}

int main(void)
{
	/* without the fixtures test_macho counts the skip */
	if (macho_fixtures_built()) {
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
	test_symbol_order();
	test_symbol_scan();
	test_arch_names();
	test_synthetic_fat();
	test_fileset();
	test_prelinked();
	test_files_on_disk();
	return kt_done();
}
