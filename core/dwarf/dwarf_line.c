/* dwarf_line.c: a CU's line table read straight from .debug_line, without
 * libdwarf.  libdwarf's dwarf_srclines_b allocates (and dwarf_srclines_
 * dealloc_b frees) one record per row, which made its line reader 40% of a
 * cold lookup; this reads the plain tables current compilers write (DWARF
 * 2 to 5, one op per instruction, the standard opcodes with their standard
 * lengths, file and directory forms string/strp/line_strp/data/udata/
 * data16/block) and answers 0 for anything else (DW_LNE_define_file,
 * strx forms, an address size other than the unit's, any read out of
 * bounds), so that dwarf.c falls back to libdwarf and every answer stays
 * what it was.  Every read is bounds-checked. */
#include "dwarf_model.h"

#include <stdlib.h>
#include <string.h>

#include "kp_rd.h"
#include "kp_vec.h"

enum { LNCT_path = 1, LNCT_directory_index = 2 };

/* One DWARF 5 entry-format field: its string (path) or number (index),
 * false when the form is one this reader leaves to libdwarf. */
static bool read_form(struct kp__rd *r, const struct kp__dwarf_linesrc *src, uint64_t form,
                      unsigned offsz, const char **s, uint64_t *u)
{
	*s = NULL;
	*u = 0;
	switch (form) {
	case 0x08: /* DW_FORM_string */
		*s = kp__rd_cstr(r);
		break;
	case 0x0e: /* DW_FORM_strp */
	case 0x1f: /* DW_FORM_line_strp */ {
		uint64_t off = kp__rd_fixed(r, offsz);
		*s = form == 0x0e ? kp__rd_str_at(src->str, src->str_size, off)
		                  : kp__rd_str_at(src->line_str, src->line_str_size, off);
		if (!*s)
			return false;
		break;
	}
	case 0x0b: /* DW_FORM_data1 */
		*u = kp__rd_fixed(r, 1);
		break;
	case 0x05: /* DW_FORM_data2 */
		*u = kp__rd_fixed(r, 2);
		break;
	case 0x06: /* DW_FORM_data4 */
		*u = kp__rd_fixed(r, 4);
		break;
	case 0x07: /* DW_FORM_data8 */
		*u = kp__rd_fixed(r, 8);
		break;
	case 0x0f: /* DW_FORM_udata */
		*u = kp__rd_uleb(r);
		break;
	case 0x1e: /* DW_FORM_data16 (MD5) */
		kp__rd_skip(r, 16);
		break;
	case 0x09: /* DW_FORM_block */
		kp__rd_skip(r, kp__rd_uleb(r));
		break;
	default:
		return false;
	}
	return r->ok;
}

struct ent {
	const char *name;
	uint64_t dir;
};

/* DWARF 5 directory or file entries; *out malloc'd (NULL when n is 0). */
static bool read_entries(struct kp__rd *r, const struct kp__dwarf_linesrc *src, unsigned offsz,
                         struct ent **out, uint64_t *nout)
{
	unsigned nfmt = (unsigned)kp__rd_fixed(r, 1);
	uint64_t fmt[2 * 255];
	for (unsigned i = 0; i < nfmt; i++) {
		fmt[2 * i] = kp__rd_uleb(r);
		fmt[2 * i + 1] = kp__rd_uleb(r);
	}
	uint64_t n = kp__rd_uleb(r);
	*out = NULL;
	*nout = 0;
	if (!r->ok || n > r->end - r->pos) /* every entry takes a byte at least */
		return false;
	if (n && nfmt == 0)
		return false;
	if (n && !(*out = calloc((size_t)n, sizeof **out)))
		return false;
	for (uint64_t k = 0; k < n; k++) {
		for (unsigned i = 0; i < nfmt; i++) {
			const char *s = NULL;
			uint64_t u = 0;
			if (!read_form(r, src, fmt[2 * i + 1], offsz, &s, &u))
				goto bad;
			if (fmt[2 * i] == LNCT_path)
				(*out)[k].name = s;
			else if (fmt[2 * i] == LNCT_directory_index)
				(*out)[k].dir = u;
		}
	}
	*nout = n;
	return true;
bad:
	free(*out);
	*out = NULL;
	return false;
}

struct hdr {
	unsigned version, min_inst, line_range, opcode_base;
	int line_base;
	bool default_is_stmt;
	uint64_t prog, end;
};

static const unsigned char std_lengths[12] = {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};

/* Runs the line program into cu->rows and cu->seqs: 1 done, 0 a program
 * left to libdwarf, -2 out of memory (then the caller frees what is in cu). */
static int run(const struct hdr *h, const struct kp__dwarf_linesrc *src, struct cu *cu)
{
	struct kp__rd r = {src->line, h->prog, h->end, src->little, true};
	struct seqbuild sb = {0};
	uint64_t addr = 0, file = 1, line = 1, col = 0;
	size_t cap = 0;
	/* room for about a row per 4 bytes of program (clang's: a special
	 * opcode and a column change), at most 64k rows: most units then grow
	 * their rows once, not a dozen times; the slack is given back below
	 * (a failure here leaves the growing to each row) */
	uint64_t guess = (h->end - h->prog) / 4;
	(void)kp_vec_reserve((void **)&cu->rows, &cap, cu->nrows + (guess < 65536 ? guess : 65536),
	                     sizeof *cu->rows);
	while (r.pos < r.end) {
		unsigned op = r.p[r.pos++];
		bool emit = false, endseq = false;
		if (op >= h->opcode_base) {
			unsigned adj = op - h->opcode_base;
			addr += (uint64_t)(adj / h->line_range) * h->min_inst;
			line += (uint64_t)(int64_t)(h->line_base + (int)(adj % h->line_range));
			emit = true;
		} else if (op == 0) {
			uint64_t len = kp__rd_uleb(&r);
			if (!r.ok || len == 0 || len > r.end - r.pos)
				return 0;
			uint64_t next = r.pos + len;
			unsigned sub = r.p[r.pos++];
			switch (sub) {
			case 1: /* DW_LNE_end_sequence */
				emit = endseq = true;
				break;
			case 2: /* DW_LNE_set_address */
				if (len - 1 != src->asz)
					return 0;
				addr = kp__rd_fixed(&r, src->asz);
				break;
			case 4: /* DW_LNE_set_discriminator */
				break;
			default: /* DW_LNE_define_file and vendor ops: libdwarf's */
				return 0;
			}
			r.pos = next;
		} else {
			switch (op) {
			case 1: /* DW_LNS_copy */
				emit = true;
				break;
			case 2: /* DW_LNS_advance_pc */
				addr += kp__rd_uleb(&r) * h->min_inst;
				break;
			case 3: /* DW_LNS_advance_line */
				line += (uint64_t)kp__rd_sleb(&r);
				break;
			case 4: /* DW_LNS_set_file */
				file = kp__rd_uleb(&r);
				break;
			case 5: /* DW_LNS_set_column */
				col = kp__rd_uleb(&r);
				break;
			case 8: /* DW_LNS_const_add_pc */
				addr += (uint64_t)((255 - h->opcode_base) / h->line_range) * h->min_inst;
				break;
			case 9: /* DW_LNS_fixed_advance_pc */
				addr += kp__rd_fixed(&r, 2);
				break;
			case 12: /* DW_LNS_set_isa */
				(void)kp__rd_uleb(&r);
				break;
			default: /* negate_stmt, basic_block, prologue_end, epilogue_begin */
				break;
			}
			if (!r.ok)
				return 0;
		}
		if (!emit)
			continue;
		if (!kp_vec_reserve((void **)&cu->rows, &cap, cu->nrows + 1, sizeof *cu->rows) ||
		    !kp__dwarf_cu_add_row(cu, &sb, addr, (uint32_t)line, (uint32_t)col,
		                          file > UINT32_MAX ? UINT32_MAX : (uint32_t)file, endseq))
			return -2;
		if (endseq) {
			addr = 0;
			file = line = 1;
			col = 0;
		}
	}
	kp__dwarf_cu_rows_done(cu, &sb);
	kp_vec_shrink((void **)&cu->rows, &cap, cu->nrows, sizeof *cu->rows);
	if (!cu->nrows) {   /* as before the guess: no rows, no array */
		free(cu->rows);
		cu->rows = NULL;
	}
	return 1;
}

int kp__dwarf_lines_fast(struct kp__dwarf_cache *c, const struct kp__dwarf_linesrc *src,
                         uint64_t off, struct cu *cu)
{
	if (!src->line || off >= src->line_size)
		return 0;
	struct kp__rd r = {src->line, off, src->line_size, src->little, true};
	uint64_t len = kp__rd_fixed(&r, 4);
	unsigned offsz = 4;
	if (len == 0xffffffff) {
		len = kp__rd_fixed(&r, 8);
		offsz = 8;
	} else if (len >= 0xfffffff0) {
		return 0;
	}
	if (!r.ok || len > r.end - r.pos)
		return 0;
	r.end = r.pos + len;
	struct hdr h = {0};
	h.end = r.end;
	h.version = (unsigned)kp__rd_fixed(&r, 2);
	if (h.version < 2 || h.version > 5)
		return 0;
	if (h.version >= 5 && (kp__rd_fixed(&r, 1) != src->asz || kp__rd_fixed(&r, 1) != 0))
		return 0;
	uint64_t hlen = kp__rd_fixed(&r, offsz);
	if (!r.ok || hlen > r.end - r.pos)
		return 0;
	h.prog = r.pos + hlen;
	h.min_inst = (unsigned)kp__rd_fixed(&r, 1);
	if (h.version >= 4 && kp__rd_fixed(&r, 1) != 1) /* maximum_operations_per_instruction */
		return 0;
	h.default_is_stmt = kp__rd_fixed(&r, 1) != 0;
	h.line_base = (int)(signed char)kp__rd_fixed(&r, 1);
	h.line_range = (unsigned)kp__rd_fixed(&r, 1);
	h.opcode_base = (unsigned)kp__rd_fixed(&r, 1);
	if (!r.ok || h.line_range == 0 || h.opcode_base == 0)
		return 0;
	for (unsigned i = 1; i < h.opcode_base; i++) {
		uint64_t l = kp__rd_fixed(&r, 1);
		if (i <= 12 && l != std_lengths[i - 1])
			return 0;
		if (i > 12) /* no opcode this reader knows takes them */
			return 0;
	}
	if (!r.ok)
		return 0;

	/* Directories and files, named by kp__dwarf_file_name. */
	struct ent *dirs = NULL, *files = NULL;
	uint64_t ndirs = 0, nfiles = 0;
	const char **names = NULL;
	kp_sb pb = {0};
	int64_t file_base = h.version >= 5 ? 0 : 1;
	int ret = 0;
	r.end = h.prog;
	if (h.version >= 5) {
		if (!read_entries(&r, src, offsz, &dirs, &ndirs) ||
		    !read_entries(&r, src, offsz, &files, &nfiles))
			goto out;
	} else {
		size_t cap = 0;
		for (;;) {
			const char *s = kp__rd_cstr(&r);
			if (!s)
				goto out;
			if (!*s)
				break;
			if (!kp_vec_reserve((void **)&dirs, &cap, (size_t)ndirs + 1, sizeof *dirs))
				goto nomem;
			dirs[ndirs++] = (struct ent){s, 0};
		}
		cap = 0;
		for (;;) {
			const char *s = kp__rd_cstr(&r);
			if (!s)
				goto out;
			if (!*s)
				break;
			uint64_t dir = kp__rd_uleb(&r);
			(void)kp__rd_uleb(&r);
			(void)kp__rd_uleb(&r);
			if (!r.ok)
				goto out;
			if (!kp_vec_reserve((void **)&files, &cap, (size_t)nfiles + 1, sizeof *files))
				goto nomem;
			files[nfiles++] = (struct ent){s, dir};
		}
	}
	if (nfiles >= (1u << 24))
		goto out;

	int rr = run(&h, src, cu);
	if (rr != 1) {
		free(cu->rows);
		free(cu->seqs);
		cu->rows = NULL;
		cu->seqs = NULL;
		cu->nrows = cu->nseqs = 0;
		ret = rr;
		goto out;
	}

	if (nfiles && !(names = calloc((size_t)nfiles, sizeof *names)))
		goto nomem;
	for (uint64_t i = 0; i < nfiles; i++) {
		const char *name = files[i].name, *dir = NULL;
		uint64_t diridx = files[i].dir;
		if (!name)
			continue;
		if (h.version >= 5 ? diridx < ndirs : diridx > 0 && diridx <= ndirs)
			dir = dirs[h.version >= 5 ? diridx : diridx - 1].name;
		if (!kp__dwarf_file_name(c, &pb, cu->comp_dir, h.version >= 5, name, dir, diridx,
		                         &names[i]))
			goto nomem_names;
	}
	free(pb.s);
	pb.s = NULL;

	cu->files = names;
	cu->nfiles = names ? (size_t)nfiles : 0;
	cu->file_base = file_base;
	ret = 1;
	goto out;
nomem_names:
	free(pb.s);
	free(names);
nomem:
	ret = -2;
out:
	free(dirs);
	free(files);
	return ret;
}
