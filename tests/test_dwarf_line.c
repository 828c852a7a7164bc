/* test_dwarf_line.c: dwarf_line.c's own .debug_line reader on hand-built
 * tables: a DWARF 5 table (line_strp names, MD5 column, an epilogue_begin
 * row that must not end its sequence, two sequences), a DWARF 4 table, and
 * what it must leave to libdwarf (DW_LNE_define_file, a truncated program)
 * with the unit untouched.  The oracle tests cover real compiler output. */
#include <stdlib.h>
#include <string.h>

#include "dwarf_model.h"
#include "kt.h"

struct buf {
	unsigned char b[512];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}
static void u8(struct buf *b, unsigned v)
{
	b->b[b->n++] = (unsigned char)v;
}
static void u16(struct buf *b, unsigned v)
{
	u8(b, v & 0xff);
	u8(b, v >> 8);
}
static void u32(struct buf *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		u8(b, (v >> (8 * i)) & 0xff);
}
static void set_address(struct buf *b, uint64_t a)
{
	u8(b, 0);
	u8(b, 9);
	u8(b, 2);
	for (int i = 0; i < 8; i++)
		u8(b, (a >> (8 * i)) & 0xff);
}

static const unsigned char std_len[12] = {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};

/* The program of both versions: line 10 at 0x1000, +4 line 11 (special),
 * epilogue_begin, +4 line 12 (special), end at 0x1010; then a second
 * sequence at 0x2000 line 20 col 3 file 2, ending at 0x2008. */
static void program(struct buf *b, unsigned file2)
{
	set_address(b, 0x1000);
	u8(b, 3), u8(b, 9);          /* advance_line +9: 10 */
	u8(b, 1);                    /* copy */
	u8(b, 13 + (1 - -5) + 14 * 4); /* special: addr +4, line +1 */
	u8(b, 11);                   /* epilogue_begin */
	u8(b, 13 + (1 - -5) + 14 * 4); /* special: addr +4, line +1 */
	u8(b, 2), u8(b, 8);          /* advance_pc 8 */
	u8(b, 0), u8(b, 1), u8(b, 1); /* end_sequence at 0x1010 */
	set_address(b, 0x2000);
	u8(b, 3), u8(b, 19);         /* line 20 */
	u8(b, 5), u8(b, 3);          /* column 3 */
	u8(b, 4), u8(b, file2);      /* file */
	u8(b, 1);
	u8(b, 9), u16(b, 8);         /* fixed_advance_pc 8 */
	u8(b, 0), u8(b, 1), u8(b, 1);
}

/* Header fields from minimum_instruction_length on, through the std lengths. */
static void common(struct buf *b)
{
	u8(b, 1);   /* min_inst_length */
	u8(b, 1);   /* max_ops */
	u8(b, 1);   /* default_is_stmt */
	u8(b, 0xfb); /* line_base -5 */
	u8(b, 14);  /* line_range */
	u8(b, 13);  /* opcode_base */
	put(b, std_len, 12);
}

static const char line_str[] = "/src\0inc\0a.c\0b.h";

static size_t v5_table(struct buf *b)
{
	struct buf h = {{0}, 0};
	common(&h);
	u8(&h, 1), u8(&h, 1), u8(&h, 0x1f); /* dirs: path line_strp */
	u8(&h, 2), u32(&h, 0), u32(&h, 5);  /* "/src", "inc" */
	u8(&h, 3);                          /* files: path, dir, MD5 */
	u8(&h, 1), u8(&h, 0x1f), u8(&h, 2), u8(&h, 0x0b), u8(&h, 5), u8(&h, 0x1e);
	u8(&h, 3);
	u32(&h, 9), u8(&h, 0), put(&h, "0123456789abcdef", 16);  /* a.c in /src */
	u32(&h, 9), u8(&h, 0), put(&h, "0123456789abcdef", 16);  /* a.c again */
	u32(&h, 13), u8(&h, 1), put(&h, "0123456789abcdef", 16); /* inc/b.h */
	struct buf p = {{0}, 0};
	program(&p, 2);
	b->n = 0;
	u32(b, (uint32_t)(2 + 2 + 4 + h.n + p.n));
	u16(b, 5);
	u8(b, 8), u8(b, 0);
	u32(b, (uint32_t)h.n);
	put(b, h.b, h.n);
	put(b, p.b, p.n);
	return b->n;
}

static size_t v4_table(struct buf *b, bool define_file)
{
	struct buf h = {{0}, 0};
	common(&h);
	put(&h, "inc", 4), u8(&h, 0);            /* include_directories */
	put(&h, "a.c", 4), u8(&h, 0), u8(&h, 0), u8(&h, 0);
	put(&h, "b.h", 4), u8(&h, 1), u8(&h, 0), u8(&h, 0);
	u8(&h, 0);
	struct buf p = {{0}, 0};
	if (define_file)
		u8(&p, 0), u8(&p, 8), u8(&p, 3), put(&p, "c.c", 4), u8(&p, 0), u8(&p, 0), u8(&p, 0);
	program(&p, 2);
	b->n = 0;
	u32(b, (uint32_t)(2 + 4 + h.n + p.n));
	u16(b, 4);
	u32(b, (uint32_t)h.n);
	put(b, h.b, h.n);
	put(b, p.b, p.n);
	return b->n;
}

static void check_rows(const struct cu *cu, const char *what)
{
	static const struct row want[] = {{0x1000, 10, 0, 1}, {0x1004, 11, 0, 1}, {0x1008, 12, 0, 1},
	                                  {0x1010, 12, 0, 1}, {0x2000, 20, 3, 2}, {0x2008, 20, 3, 2}};
	KT_CHECK(cu->nrows == 6, "%s: 6 rows (%zu)", what, cu->nrows);
	for (size_t i = 0; i < 6 && i < cu->nrows; i++)
		KT_CHECK(cu->rows[i].addr == want[i].addr && cu->rows[i].line == want[i].line &&
		             cu->rows[i].column == want[i].column && cu->rows[i].file == want[i].file,
		         "%s: row %zu", what, i);
	/* the epilogue_begin row does not close the first sequence */
	KT_CHECK(cu->nseqs == 2, "%s: 2 sequences (%zu)", what, cu->nseqs);
	if (cu->nseqs == 2) {
		KT_U64EQ(cu->seqs[0].lo, 0x1000, "first sequence start");
		KT_U64EQ(cu->seqs[0].hi, 0x1010, "first sequence end");
		KT_U64EQ(cu->seqs[0].count, 4, "first sequence rows");
		KT_U64EQ(cu->seqs[1].lo, 0x2000, "second sequence start");
	}
}

static void free_cu(struct cu *cu)
{
	free(cu->rows);
	free(cu->seqs);
	free(cu->files);
	memset(cu, 0, sizeof *cu);
}

int main(void)
{
	struct kp__dwarf_cache c;
	memset(&c, 0, sizeof c);
	struct buf b = {{0}, 0};
	struct kp__dwarf_linesrc src = {b.b, NULL, (const unsigned char *)line_str, 0, 0,
	                                sizeof line_str, 8, true};
	struct cu cu;

	memset(&cu, 0, sizeof cu);
	cu.comp_dir = "/comp";
	src.line_size = v5_table(&b);
	KT_CHECK(kp__dwarf_lines_fast(&c, &src, 0, &cu) == 1, "DWARF 5 table read");
	check_rows(&cu, "DWARF 5");
	KT_CHECK(cu.file_base == 0 && cu.nfiles == 3, "DWARF 5: files 0..2");
	if (cu.nfiles == 3) {
		KT_STREQ(cu.files[0], "/src/a.c", "file 0 (dir 0: no comp_dir)");
		KT_STREQ(cu.files[2], "/comp/inc/b.h", "file 2 (relative dir: comp_dir first)");
	}
	free_cu(&cu);

	/* every shorter length is a truncated table: left to libdwarf */
	size_t full = src.line_size;
	for (size_t len = 0; len < full; len++) {
		src.line_size = len;
		memset(&cu, 0, sizeof cu);
		int r = kp__dwarf_lines_fast(&c, &src, 0, &cu);
		if (r != 0 || cu.rows || cu.seqs || cu.files) {
			KT_CHECK(0, "truncated to %zu: left to libdwarf, unit untouched (%d)", len, r);
			free_cu(&cu);
			break;
		}
	}
	printf("# truncated DWARF 5 tables left to libdwarf\n");

	memset(&cu, 0, sizeof cu);
	cu.comp_dir = "/comp";
	src.line_size = v4_table(&b, false);
	KT_CHECK(kp__dwarf_lines_fast(&c, &src, 0, &cu) == 1, "DWARF 4 table read");
	check_rows(&cu, "DWARF 4");
	KT_CHECK(cu.file_base == 1 && cu.nfiles == 2, "DWARF 4: files 1..2");
	if (cu.nfiles == 2) {
		KT_STREQ(cu.files[0], "/comp/a.c", "file 1");
		KT_STREQ(cu.files[1], "/comp/inc/b.h", "file 2");
	}
	free_cu(&cu);

	memset(&cu, 0, sizeof cu);
	src.line_size = v4_table(&b, true);
	KT_CHECK(kp__dwarf_lines_fast(&c, &src, 0, &cu) == 0 && !cu.rows && !cu.seqs && !cu.files,
	         "DW_LNE_define_file: left to libdwarf, unit untouched");
	src.line_size = 3;
	KT_CHECK(kp__dwarf_lines_fast(&c, &src, 0, &cu) == 0, "no room for the unit length");
	KT_CHECK(kp__dwarf_lines_fast(&c, &src, 100, &cu) == 0, "offset past the section");

	kp__dwarf_cache_free(&c);
	return kt_done();
}
