/* dwarf.c: kp_dwarf over libdwarf, fed from kp_macho through libdwarf's
 * object access interface (sections served zero-copy from the mapping, so
 * fat files, UUID-picked slices and bounds checks all come from kp_macho).
 *
 * Model (what llvm-symbolizer --inlining does, which is the oracle):
 *  - Open: the CU of an address from .debug_aranges for the CUs it lists and
 *    from the CU DIE's low/high pc or DW_AT_ranges for the others, merged
 *    into one sorted table of disjoint [lo,hi) -> CU (an overlap goes to the
 *    lowest CU offset, as in llvm's DWARFDebugAranges).
 *  - First hit in a CU: its line table (rows grouped in sequences; the last
 *    row at or before addr wins) and an index of its concrete subprograms by
 *    address.  libdwarf skips their subtrees.
 *  - First hit in a subprogram: its subtree, giving an interval map address
 *    -> innermost inlined subroutine built in DIE preorder (deeper DIEs
 *    split the ranges of earlier ones: llvm's AddrDieMap).
 *  - All of that lives in our own compact arrays; libdwarf DIEs, attributes
 *    and line contexts are freed as soon as they are read.  Function names
 *    are resolved on first use (linkage name through abstract_origin and
 *    specification, demangled, else DW_AT_name) and interned once.
 *  - The chain is the innermost subroutine and its inlined-subroutine
 *    ancestors up to the first subprogram; with kp_dwarf_use_symbols() the
 *    outermost name comes from the nlist symbol holding addr, as llvm does.
 *
 * Known limits: no DWARF 4 .debug_types, no split DWARF (.dwo/.dwp), no
 * DW_AT_entry_pc as CU base; subprograms nested inside subprograms (GCC
 * nested functions) are found only through their parent's ranges; two
 * subprograms sharing one range (identical-code folding) resolve to the
 * later one throughout, where llvm keeps fragments of the earlier one's
 * inlined ranges; among nlist symbols at one address kp_macho's order
 * applies, not llvm's.  The DWARF 5 paths (rnglists, line-table dir 0) are
 * written but cannot be exercised here: dsymutil 14 breaks DWARF 5.
 *
 * libdwarf versions: written and tested against 20210528 (Debian 12); the
 * KP_LDW_0X branches target libdwarf 0.x/2.x (Homebrew) and were only
 * compile-checked against declarations transcribed from libdwarf-code's
 * libdwarf.h 2.1.  Every API difference is behind KP_LDW_* below.
 *
 * dwarf_set_de_alloc_flag(0) is process-wide: every libdwarf user in the
 * process then runs untracked (kpbrowse has no other). */
#include "kp_dwarf.h"

#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <libdwarf.h>

/* ---- libdwarf version seams ------------------------------------------ */

/* 20210528 has no version macro at all; 0.x and later define these. */
#if defined(DW_LIBDWARF_VERSION_MAJOR)
#define KP_LDW_0X 1
#define KP_LDW_AT_LEAST(ma, mi)                                                         \
	(DW_LIBDWARF_VERSION_MAJOR > (ma) ||                                             \
	 (DW_LIBDWARF_VERSION_MAJOR == (ma) && DW_LIBDWARF_VERSION_MINOR >= (mi)))
#else
#define KP_LDW_0X 0
#define KP_LDW_AT_LEAST(ma, mi) 0
#endif

#if KP_LDW_0X
/* 0.x: *_a structs with om_/as_/ai_ field names.  The section index became
 * Dwarf_Unsigned after 0.3 (0.3.x headers still say Dwarf_Half). */
typedef Dwarf_Obj_Access_Interface_a kp_ldw_iface;
typedef Dwarf_Obj_Access_Methods_a kp_ldw_methods;
typedef Dwarf_Obj_Access_Section_a kp_ldw_section;
#if KP_LDW_AT_LEAST(0, 4)
typedef Dwarf_Unsigned kp_ldw_secidx;
#else
typedef Dwarf_Half kp_ldw_secidx;
#endif
typedef Dwarf_Small kp_ldw_endian;
#define KP_LDW_LITTLE DW_END_little
#define KP_LDW_BIG DW_END_big
#define kp_ldw_object_finish(dbg) dwarf_object_finish(dbg)
#define KP_LDW_IFACE_OBJ ai_object
#define KP_LDW_IFACE_METHODS ai_methods
#else
typedef Dwarf_Obj_Access_Interface kp_ldw_iface;
typedef Dwarf_Obj_Access_Methods kp_ldw_methods;
typedef Dwarf_Obj_Access_Section kp_ldw_section;
typedef Dwarf_Half kp_ldw_secidx;
typedef Dwarf_Endianness kp_ldw_endian;
#define KP_LDW_LITTLE DW_OBJECT_LSB
#define KP_LDW_BIG DW_OBJECT_MSB
#define kp_ldw_object_finish(dbg) dwarf_object_finish((dbg), NULL)
#define KP_LDW_IFACE_OBJ object
#define KP_LDW_IFACE_METHODS methods
#endif

/* 0.9 added dwarf_next_cu_header_e (returns the CU DIE) and
 * dwarf_siblingof_c (no dbg / is_info); the older pair still exists there
 * but is slated for removal. */
#if KP_LDW_AT_LEAST(0, 9)
#define KP_LDW_HAS_E 1
#else
#define KP_LDW_HAS_E 0
#endif

static int ldw_sibling(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Die *out, Dwarf_Error *e)
{
#if KP_LDW_HAS_E
	(void)dbg;
	return dwarf_siblingof_c(die, out, e);
#else
	return dwarf_siblingof_b(dbg, die, 1, out, e);
#endif
}

/* Next CU header: its CU DIE (caller deallocs) and the next header offset. */
static int ldw_next_cu(Dwarf_Debug dbg, Dwarf_Die *cudie, Dwarf_Half *version,
                       Dwarf_Unsigned *next, Dwarf_Error *e)
{
	Dwarf_Unsigned len = 0, typeoff = 0;
	Dwarf_Off abbrev = 0;
	Dwarf_Half asize = 0, lsize = 0, esize = 0, utype = 0;
	Dwarf_Sig8 sig;
#if KP_LDW_HAS_E
	return dwarf_next_cu_header_e(dbg, 1, cudie, &len, version, &abbrev, &asize, &lsize,
	                              &esize, &sig, &typeoff, next, &utype, e);
#else
	int r = dwarf_next_cu_header_d(dbg, 1, &len, version, &abbrev, &asize, &lsize, &esize,
	                               &sig, &typeoff, next, &utype, e);
	if (r != DW_DLV_OK)
		return r;
	/* Must follow dwarf_next_cu_header_d immediately. */
	r = dwarf_siblingof_b(dbg, NULL, 1, cudie, e);
	return r == DW_DLV_NO_ENTRY ? DW_DLV_ERROR : r;
#endif
}

/* ---- sections ---------------------------------------------------------- */

static const struct {
	const char *macho, *elf;
} sect_names[] = {
	{"__debug_info", ".debug_info"},         {"__debug_abbrev", ".debug_abbrev"},
	{"__debug_str", ".debug_str"},           {"__debug_line", ".debug_line"},
	{"__debug_ranges", ".debug_ranges"},     {"__debug_aranges", ".debug_aranges"},
	{"__debug_str_offs", ".debug_str_offsets"}, {"__debug_line_str", ".debug_line_str"},
	{"__debug_rnglists", ".debug_rnglists"}, {"__debug_loclists", ".debug_loclists"},
	{"__debug_addr", ".debug_addr"},         {"__debug_loc", ".debug_loc"},
};
#define NSECT (sizeof sect_names / sizeof sect_names[0])

struct sect {
	const char *name; /* ELF-style name libdwarf looks for */
	const unsigned char *data;
	uint64_t size, addr, offset;
};

/* libdwarf 20210528 frees its table array twice when a .debug_rnglists (or
 * .debug_loclists) table claims more bytes than the section holds (found by
 * fuzz/fuzz_dwarf; tests/hostile/fuzz-dwarf-1).  So the table headers are
 * checked here first, and a section that fails is withheld from libdwarf as
 * if absent: lookups needing it then find nothing instead of crashing. */
static uint64_t rd(const unsigned char *p, int n, bool little)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[little ? i : n - 1 - i] << (8 * (little ? i : n - 1 - i));
	return v;
}

static bool lists_section_ok(const unsigned char *p, uint64_t size, bool little)
{
	uint64_t off = 0;
	while (off < size) {
		if (size - off < 4)
			return false;
		uint64_t len = rd(p + off, 4, little);
		int osz = 4;
		off += 4;
		if (len == 0xffffffffu) {
			if (size - off < 8)
				return false;
			len = rd(p + off, 8, little);
			osz = 8;
			off += 8;
		} else if (len >= 0xfffffff0u) {
			return false;   /* reserved lengths */
		}
		/* version(2) address_size(1) segment_selector_size(1) offset_entry_count(4) */
		if (len < 8 || len > size - off)
			return false;
		uint64_t version = rd(p + off, 2, little), count = rd(p + off + 4, 4, little);
		if (version != 5 || count > (len - 8) / (uint64_t)osz)
			return false;
		off += len;
	}
	return true;
}

/* ---- cached, decoded CU -------------------------------------------------- */

struct row {
	uint64_t addr;
	uint32_t line, column, file;
};

struct seq {
	uint64_t lo, hi;       /* [first row address, end_sequence address) */
	uint32_t first, count; /* rows[first .. first+count-1]; the last is the end row */
};

struct sub {
	const char *name;                /* resolved on first lookup */
	const char *raw_linkage, *raw_name; /* point into the mapping */
	uint64_t origin, spec, die_off;
	uint32_t call_file, call_line, call_column; /* call_file UINT32_MAX: none */
	int32_t parent; /* nearest enclosing subprogram/inlined subroutine, -1 */
	bool is_subprogram, has_origin, has_spec, resolved;
};

struct amap {
	uint64_t lo, hi;
	uint32_t sub;
};

/* Sorted, disjoint [lo,hi) -> index (LLVM's std::map AddrDieMap). */
struct amapv {
	struct amap *v;
	size_t n, cap;
};

/* One concrete subprogram, its inlined subroutines decoded on first hit. */
struct func {
	uint64_t die_off;
	int state;        /* 0 not decoded, 1 decoded, -1 broken */
	struct sub *subs; /* [0] is the subprogram itself, then preorder */
	size_t nsubs, capsubs;
	struct amapv map; /* address -> subs index, innermost wins */
};

struct cu {
	uint64_t hdr_off, die_off;
	int state; /* 0 not decoded, 1 decoded, -1 broken */
	uint16_t version;
	const char *comp_dir;
	uint64_t base;
	struct row *rows;
	size_t nrows;
	struct seq *seqs;
	size_t nseqs;
	const char **files; /* indexed by DWARF file number - file_base */
	size_t nfiles;
	int64_t file_base;
	struct func *funcs;
	size_t nfuncs, capfuncs;
	struct amapv map; /* address -> funcs index */
};

struct arange {
	uint64_t lo, hi;
	uint32_t cu;
};

/* String interning: one copy per distinct string per kp_dwarf. */
struct strblock {
	struct strblock *next;
	size_t used, cap;
	char data[];
};

/* nlist symbol (kp_macho's stable pointer) -> its printed name. */
struct symname {
	const char *sym, *name;
};

/* die offset -> resolved function name (NULL allowed), for abstract origins. */
struct nameent {
	uint64_t off; /* UINT64_MAX: empty */
	const char *name;
};

struct kp_dwarf {
	const kp_macho_slice *slice;
	kp_macho *syms; /* optional symbol table (kp_dwarf_use_symbols) */
	struct sect sects[NSECT + 1]; /* [0] is a dummy: libdwarf skips index 0 */
	unsigned nsects;
	bool little, is64;
	kp_ldw_iface iface;
	Dwarf_Debug dbg;

	struct cu *cus;
	size_t ncus;
	struct arange *ar;
	size_t nar;

	struct strblock *blocks;
	const char **strtab;
	size_t nstr, capstr;

	struct nameent *names;
	size_t nnames, capnames;

	struct symname *syms_names; /* nlist name -> printed name */
	size_t nsymn, capsymn;
};

/* ---- object access callbacks ------------------------------------------- */

#if KP_LDW_0X
static int oa_section_info(void *obj, kp_ldw_secidx i, kp_ldw_section *out, int *error)
{
	const kp_dwarf *d = obj;
	if (i >= d->nsects) {
		*error = DW_DLE_MDE;
		return DW_DLV_NO_ENTRY;
	}
	memset(out, 0, sizeof *out);
	out->as_name = d->sects[i].name;
	out->as_addr = d->sects[i].addr;
	out->as_offset = d->sects[i].offset;
	out->as_size = d->sects[i].size;
	return DW_DLV_OK;
}

static Dwarf_Unsigned oa_filesize(void *obj)
{
	return ((const kp_dwarf *)obj)->slice->size;
}
#else
static int oa_section_info(void *obj, kp_ldw_secidx i, kp_ldw_section *out, int *error)
{
	const kp_dwarf *d = obj;
	if (i >= d->nsects) {
		*error = DW_DLE_MDE;
		return DW_DLV_NO_ENTRY;
	}
	memset(out, 0, sizeof *out);
	out->name = d->sects[i].name;
	out->addr = d->sects[i].addr;
	out->size = d->sects[i].size;
	return DW_DLV_OK;
}
#endif

static kp_ldw_endian oa_byte_order(void *obj)
{
	return ((const kp_dwarf *)obj)->little ? KP_LDW_LITTLE : KP_LDW_BIG;
}

static Dwarf_Small oa_length_size(void *obj)
{
	(void)obj;
	return 4;
}

static Dwarf_Small oa_pointer_size(void *obj)
{
	return ((const kp_dwarf *)obj)->is64 ? 8 : 4;
}

static Dwarf_Unsigned oa_section_count(void *obj)
{
	return ((const kp_dwarf *)obj)->nsects;
}

/* Zero-copy: libdwarf gets a pointer into the read-only mapping.  It only
 * writes section data when relocating, and we offer no relocation. */
static int oa_load_section(void *obj, kp_ldw_secidx i, Dwarf_Small **data, int *error)
{
	const kp_dwarf *d = obj;
	if (i >= d->nsects || !d->sects[i].data) {
		*error = DW_DLE_MDE;
		return DW_DLV_NO_ENTRY;
	}
	*data = (Dwarf_Small *)(uintptr_t)d->sects[i].data;
	return DW_DLV_OK;
}

#if KP_LDW_0X
static const kp_ldw_methods oa_methods = {
	.om_get_section_info = oa_section_info,
	.om_get_byte_order = oa_byte_order,
	.om_get_length_size = oa_length_size,
	.om_get_pointer_size = oa_pointer_size,
	.om_get_filesize = oa_filesize,
	.om_get_section_count = oa_section_count,
	.om_load_section = oa_load_section,
};
#else
static const kp_ldw_methods oa_methods = {
	.get_section_info = oa_section_info,
	.get_byte_order = oa_byte_order,
	.get_length_size = oa_length_size,
	.get_pointer_size = oa_pointer_size,
	.get_section_count = oa_section_count,
	.load_section = oa_load_section,
};
#endif

/* Only reached when some libdwarf call got no Dwarf_Error*; every call here
 * passes one, so this just keeps libdwarf from calling abort(). */
static void ldw_errhand(Dwarf_Error e, Dwarf_Ptr arg)
{
	(void)e;
	(void)arg;
}

/* ---- small utilities ------------------------------------------------------ */

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return true;
	size_t n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, n * elem);
	if (!q)
		return false;
	*p = q;
	*cap = n;
	return true;
}

/* Gives back a growth array's slack once it is complete (caches live long). */
static void shrink(void **p, size_t *cap, size_t n, size_t elem)
{
	if (n && n < *cap) {
		void *q = realloc(*p, n * elem);
		if (q) {
			*p = q;
			*cap = n;
		}
	}
}

static uint64_t hash_str(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static const char *intern_n(kp_dwarf *d, const char *s, size_t len)
{
	if (d->nstr * 2 >= d->capstr) {
		size_t ncap = d->capstr ? d->capstr * 2 : 1024;
		const char **nt = calloc(ncap, sizeof *nt);
		if (!nt)
			return NULL;
		for (size_t i = 0; i < d->capstr; i++) {
			const char *t = d->strtab[i];
			if (!t)
				continue;
			size_t j = hash_str(t, strlen(t)) & (ncap - 1);
			while (nt[j])
				j = (j + 1) & (ncap - 1);
			nt[j] = t;
		}
		free(d->strtab);
		d->strtab = nt;
		d->capstr = ncap;
	}
	size_t j = hash_str(s, len) & (d->capstr - 1);
	while (d->strtab[j]) {
		const char *t = d->strtab[j];
		if (strncmp(t, s, len) == 0 && t[len] == '\0')
			return t;
		j = (j + 1) & (d->capstr - 1);
	}
	struct strblock *b = d->blocks;
	if (!b || b->cap - b->used < len + 1) {
		size_t cap = len + 1 > 65536 ? len + 1 : 65536;
		b = malloc(sizeof *b + cap);
		if (!b)
			return NULL;
		b->cap = cap;
		b->used = 0;
		b->next = d->blocks;
		d->blocks = b;
	}
	char *t = b->data + b->used;
	memcpy(t, s, len);
	t[len] = '\0';
	b->used += len + 1;
	d->strtab[j] = t;
	d->nstr++;
	return t;
}

static const char *intern(kp_dwarf *d, const char *s)
{
	return intern_n(d, s, strlen(s));
}

/* Decoding status: OK, FORMAT (libdwarf said the data is bad) or NOMEM. */
typedef struct {
	kp_dwarf *d;
	struct cu *cu;
	struct func *fn; /* NULL while indexing the CU's subprograms */
	kp_status st;
} dctx;

/* Records a failed libdwarf call.  The error is freed whatever r says:
 * some 20210528 paths (dwarf_highpc_b) fill it and still return NO_ENTRY. */
static int ldw_fail(dctx *c, Dwarf_Error *e, int r)
{
	if (*e)
		dwarf_dealloc_error(c->d->dbg, *e);
	*e = NULL;
	if (r == DW_DLV_ERROR && c->st == KP_OK)
		c->st = KP_ERR_FORMAT;
	return r;
}

/* ---- address ranges of a DIE ---------------------------------------------- */

struct rng {
	uint64_t lo, hi;
};

struct rngbuf {
	struct rng *v;
	size_t n, cap;
};

static bool rng_push(struct rngbuf *b, uint64_t lo, uint64_t hi)
{
	if (!grow((void **)&b->v, &b->cap, b->n + 1, sizeof *b->v))
		return false;
	b->v[b->n].lo = lo;
	b->v[b->n].hi = hi;
	b->n++;
	return true;
}

static bool form_is_addr(Dwarf_Half form)
{
	switch (form) {
	case DW_FORM_addr:
	case DW_FORM_addrx:
	case DW_FORM_addrx1:
	case DW_FORM_addrx2:
	case DW_FORM_addrx3:
	case DW_FORM_addrx4:
	case DW_FORM_GNU_addr_index:
		return true;
	default:
		return false;
	}
}

/* The attributes of a DIE that the lookup needs.  Strings point into the
 * mapped string sections (libdwarf does not copy them). */
struct dieattrs {
	bool has_lo, has_hi, hi_is_addr, has_ranges, has_origin, has_spec;
	bool has_call_file;
	uint64_t lo, hi, ranges_off, origin, spec;
	Dwarf_Half ranges_form;
	Dwarf_Attribute ranges; /* DWARF 5 only (rnglists need it); caller deallocs */
	const char *linkage, *name, *comp_dir;
	uint64_t call_file, call_line, call_column;
};

static int read_attrs(dctx *c, Dwarf_Die die, struct dieattrs *a, bool keep_ranges_attr)
{
	Dwarf_Error e = NULL;
	Dwarf_Attribute *list = NULL;
	Dwarf_Signed n = 0;
	memset(a, 0, sizeof *a);
	int r = dwarf_attrlist(die, &list, &n, &e);
	if (r != DW_DLV_OK)
		return ldw_fail(c, &e, r);
	for (Dwarf_Signed i = 0; i < n; i++) {
		Dwarf_Attribute at = list[i];
		Dwarf_Half num = 0, form = 0;
		Dwarf_Unsigned u = 0;
		Dwarf_Off off = 0;
		Dwarf_Addr ad = 0;
		char *s = NULL;
		bool keep = false;
		r = dwarf_whatattr(at, &num, &e);
		if (r == DW_DLV_OK)
			r = dwarf_whatform(at, &form, &e);
		if (r != DW_DLV_OK) {
			ldw_fail(c, &e, r);
			dwarf_dealloc_attribute(at);
			continue;
		}
		switch (num) {
		case DW_AT_low_pc:
			if ((r = dwarf_formaddr(at, &ad, &e)) == DW_DLV_OK) {
				a->has_lo = true;
				a->lo = ad;
			}
			break;
		case DW_AT_high_pc:
			if (form_is_addr(form)) {
				if ((r = dwarf_formaddr(at, &ad, &e)) == DW_DLV_OK) {
					a->has_hi = a->hi_is_addr = true;
					a->hi = ad;
				}
			} else if ((r = dwarf_formudata(at, &u, &e)) == DW_DLV_OK) {
				a->has_hi = true;
				a->hi = u;
			}
			break;
		case DW_AT_ranges:
			if (form == DW_FORM_rnglistx) {
				r = dwarf_formudata(at, &u, &e);
				off = u;
			} else {
				r = dwarf_global_formref(at, &off, &e);
				if (r == DW_DLV_ERROR) {
					dwarf_dealloc_error(c->d->dbg, e);
					e = NULL;
					r = dwarf_formudata(at, &u, &e);
					off = u;
				}
			}
			if (r == DW_DLV_OK) {
				a->has_ranges = true;
				a->ranges_off = off;
				a->ranges_form = form;
				if (keep_ranges_attr) {
					a->ranges = at;
					keep = true;
				}
			}
			break;
		case DW_AT_abstract_origin:
		case DW_AT_specification:
			if ((r = dwarf_global_formref(at, &off, &e)) == DW_DLV_OK) {
				if (num == DW_AT_abstract_origin) {
					a->has_origin = true;
					a->origin = off;
				} else {
					a->has_spec = true;
					a->spec = off;
				}
			}
			break;
		case DW_AT_linkage_name:
		case DW_AT_MIPS_linkage_name:
		case DW_AT_name:
		case DW_AT_comp_dir:
			if ((r = dwarf_formstring(at, &s, &e)) == DW_DLV_OK) {
				if (num == DW_AT_name)
					a->name = s;
				else if (num == DW_AT_comp_dir)
					a->comp_dir = s;
				else if (!a->linkage)
					a->linkage = s;
			}
			break;
		case DW_AT_call_file:
		case DW_AT_call_line:
		case DW_AT_call_column:
			if ((r = dwarf_formudata(at, &u, &e)) == DW_DLV_OK) {
				if (num == DW_AT_call_file) {
					a->call_file = u;
					a->has_call_file = true;
				} else if (num == DW_AT_call_line)
					a->call_line = u;
				else
					a->call_column = u;
			}
			break;
		default:
			r = DW_DLV_OK;
			break;
		}
		if (r != DW_DLV_OK)
			ldw_fail(c, &e, r);
		if (!keep)
			dwarf_dealloc_attribute(at);
	}
	dwarf_dealloc(c->d->dbg, list, DW_DLA_LIST);
	return c->st == KP_OK ? DW_DLV_OK : DW_DLV_ERROR;
}

/* DW_AT_low_pc/high_pc, else DW_AT_ranges (DWARF <= 4: .debug_ranges
 * relative to the CU base; DWARF 5: rnglists, which libdwarf resolves). */
static void die_ranges(dctx *c, Dwarf_Die die, struct dieattrs *a, unsigned version,
                       uint64_t base, struct rngbuf *out)
{
	Dwarf_Error e = NULL;
	out->n = 0;
	if (a->has_lo && a->has_hi) {
		uint64_t hi = a->hi_is_addr ? a->hi : a->lo + a->hi;
		if (!rng_push(out, a->lo, hi))
			c->st = KP_ERR_NOMEM;
		return;
	}
	if (!a->has_ranges)
		return;
	if (version < 5 && a->ranges_form != DW_FORM_rnglistx) {
		Dwarf_Ranges *rb = NULL;
		Dwarf_Signed cnt = 0;
		Dwarf_Unsigned bytes = 0;
		Dwarf_Off real = 0;
		int r = dwarf_get_ranges_b(c->d->dbg, a->ranges_off, die, &real, &rb, &cnt, &bytes, &e);
		if (r != DW_DLV_OK) {
			ldw_fail(c, &e, r);
			return;
		}
		for (Dwarf_Signed i = 0; i < cnt; i++) {
			if (rb[i].dwr_type == DW_RANGES_END)
				break;
			if (rb[i].dwr_type == DW_RANGES_ADDRESS_SELECTION) {
				base = rb[i].dwr_addr2;
				continue;
			}
			if (!rng_push(out, rb[i].dwr_addr1 + base, rb[i].dwr_addr2 + base)) {
				c->st = KP_ERR_NOMEM;
				break;
			}
		}
		dwarf_dealloc(c->d->dbg, rb, DW_DLA_RANGES);
		return;
	}
	if (!a->ranges)
		return;
	Dwarf_Rnglists_Head head = NULL;
	Dwarf_Unsigned cnt = 0, goff = 0;
	int r = dwarf_rnglists_get_rle_head(a->ranges, a->ranges_form, a->ranges_off, &head, &cnt,
	                                    &goff, &e);
	if (r != DW_DLV_OK) {
		ldw_fail(c, &e, r);
		return;
	}
	for (Dwarf_Unsigned i = 0; i < cnt; i++) {
		unsigned len = 0, code = 0;
		Dwarf_Unsigned raw1 = 0, raw2 = 0, lo = 0, hi = 0;
		Dwarf_Bool unavailable = 0;
		r = dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &raw1, &raw2, &unavailable,
		                                      &lo, &hi, &e);
		if (r != DW_DLV_OK) {
			ldw_fail(c, &e, r);
			break;
		}
		if (code == DW_RLE_end_of_list)
			break;
		if (code == DW_RLE_base_address || code == DW_RLE_base_addressx || unavailable)
			continue;
		if (!rng_push(out, lo, hi)) {
			c->st = KP_ERR_NOMEM;
			break;
		}
	}
	dwarf_dealloc_rnglists_head(head);
}

/* The DW_AT_low_pc/high_pc pair without building the whole attribute list;
 * false (and nothing in rb) when the DIE lacks either.  (Not through
 * dwarf_highpc_b: on a malformed constant form 20210528 overwrites, and so
 * leaks, its own Dwarf_Error.) */
static bool pc_range(dctx *c, Dwarf_Die die, struct rngbuf *rb)
{
	Dwarf_Error e = NULL;
	Dwarf_Addr lo = 0, hi = 0;
	Dwarf_Attribute at = NULL;
	Dwarf_Half form = 0;
	rb->n = 0;
	int r = dwarf_lowpc(die, &lo, &e);
	if (r == DW_DLV_OK)
		r = dwarf_attr(die, DW_AT_high_pc, &at, &e);
	if (r == DW_DLV_OK && (r = dwarf_whatform(at, &form, &e)) == DW_DLV_OK) {
		if (form_is_addr(form)) {
			r = dwarf_formaddr(at, &hi, &e);
		} else {
			Dwarf_Unsigned u = 0;
			r = dwarf_formudata(at, &u, &e);
			hi = lo + u;
		}
	}
	if (at)
		dwarf_dealloc_attribute(at);
	if (r != DW_DLV_OK) {
		ldw_fail(c, &e, r);
		return false;
	}
	if (!rng_push(rb, lo, hi))
		c->st = KP_ERR_NOMEM;
	return true;
}

/* ---- the per-CU address -> subroutine map (LLVM's AddrDieMap) ------------- */

static size_t amap_upper(const struct amapv *m, uint64_t key)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->v[mid].lo <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int32_t amap_find(const struct amapv *m, uint64_t addr)
{
	size_t b = amap_upper(m, addr);
	return b > 0 && addr < m->v[b - 1].hi ? (int32_t)m->v[b - 1].sub : -1;
}

static bool amap_set(struct amapv *m, uint64_t key, uint64_t hi, uint32_t sub)
{
	size_t i = amap_upper(m, key);
	if (i > 0 && m->v[i - 1].lo == key) {
		m->v[i - 1].hi = hi;
		m->v[i - 1].sub = sub;
		return true;
	}
	if (!grow((void **)&m->v, &m->cap, m->n + 1, sizeof *m->v))
		return false;
	memmove(m->v + i + 1, m->v + i, (m->n - i) * sizeof *m->v);
	m->v[i] = (struct amap){key, hi, sub};
	m->n++;
	return true;
}

/* Called in DIE preorder, so a child's range lies inside its parent's and
 * splits it into at most three pieces. */
static bool amap_add(struct amapv *m, uint64_t lo, uint64_t hi, uint32_t sub)
{
	if (lo >= hi)
		return true;
	size_t b = amap_upper(m, lo);
	if (b > 0 && lo < m->v[b - 1].hi) {
		struct amap prev = m->v[b - 1];
		if (hi < prev.hi && !amap_set(m, hi, prev.hi, prev.sub))
			return false;
		if (lo > prev.lo && !amap_set(m, prev.lo, lo, prev.sub))
			return false;
	}
	return amap_set(m, lo, hi, sub);
}

/* ---- per-CU decoding ------------------------------------------------------- */

#define MAX_DEPTH 256

static void walk_children(dctx *c, Dwarf_Die die, int32_t parent, int depth, struct rngbuf *rb);

static void visit(dctx *c, Dwarf_Die die, int32_t parent, int depth, struct rngbuf *rb)
{
	Dwarf_Error e = NULL;
	Dwarf_Half tag = 0;
	int r = dwarf_tag(die, &tag, &e);
	if (r != DW_DLV_OK) {
		ldw_fail(c, &e, r);
		return;
	}
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine: {
		struct cu *cu = c->cu;
		struct func *fn = c->fn;
		struct dieattrs a = {0};
		if (!fn && tag != DW_TAG_subprogram)
			return; /* inlined code outside any subprogram: not valid DWARF */
		Dwarf_Off off = 0;
		if ((r = dwarf_dieoffset(die, &off, &e)) != DW_DLV_OK) {
			ldw_fail(c, &e, r);
			return;
		}
		if (!fn && pc_range(c, die, rb)) {
			/* indexing needs only the ranges: skip the attribute list */
		} else {
			if (c->st != KP_OK ||
			    read_attrs(c, die, &a, cu->version >= 5) != DW_DLV_OK)
				return;
			die_ranges(c, die, &a, cu->version, cu->base, rb);
			if (a.ranges)
				dwarf_dealloc_attribute(a.ranges);
		}
		if (c->st != KP_OK)
			return;
		if (!fn) {
			/* Indexing: the subprogram's ranges only; its subtree waits
			 * for the first address inside it (libdwarf skips it). */
			if (!rb->n)
				return;
			if (cu->nfuncs >= INT32_MAX ||
			    !grow((void **)&cu->funcs, &cu->capfuncs, cu->nfuncs + 1, sizeof *cu->funcs)) {
				c->st = KP_ERR_NOMEM;
				return;
			}
			uint32_t fi = (uint32_t)cu->nfuncs++;
			memset(&cu->funcs[fi], 0, sizeof cu->funcs[fi]);
			cu->funcs[fi].die_off = off;
			for (size_t i = 0; i < rb->n; i++)
				if (!amap_add(&cu->map, rb->v[i].lo, rb->v[i].hi, fi)) {
					c->st = KP_ERR_NOMEM;
					return;
				}
			return;
		}
		if (fn->nsubs >= INT32_MAX ||
		    !grow((void **)&fn->subs, &fn->capsubs, fn->nsubs + 1, sizeof *fn->subs)) {
			c->st = KP_ERR_NOMEM;
			return;
		}
		uint32_t idx = (uint32_t)fn->nsubs++;
		struct sub *sr = fn->subs + idx;
		memset(sr, 0, sizeof *sr);
		sr->call_file = a.has_call_file ? (uint32_t)a.call_file : UINT32_MAX;
		sr->call_line = (uint32_t)a.call_line;
		sr->call_column = (uint32_t)a.call_column;
		sr->parent = parent;
		sr->is_subprogram = tag == DW_TAG_subprogram;
		sr->raw_linkage = a.linkage;
		sr->raw_name = a.name;
		sr->origin = a.origin;
		sr->spec = a.spec;
		sr->has_origin = a.has_origin;
		sr->has_spec = a.has_spec;
		sr->die_off = off;
		for (size_t i = 0; i < rb->n; i++)
			if (!amap_add(&fn->map, rb->v[i].lo, rb->v[i].hi, idx)) {
				c->st = KP_ERR_NOMEM;
				return;
			}
		walk_children(c, die, (int32_t)idx, depth + 1, rb);
		return;
	}
	/* Scopes that can hold subroutines.  Types are skipped: compilers put
	 * member function definitions at namespace scope (DW_AT_specification). */
	case DW_TAG_lexical_block:
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
	case DW_TAG_entry_point:
		walk_children(c, die, parent, depth + 1, rb);
		return;
	default:
		return;
	}
}

static void walk_children(dctx *c, Dwarf_Die die, int32_t parent, int depth, struct rngbuf *rb)
{
	Dwarf_Error e = NULL;
	Dwarf_Die child = NULL;
	if (depth > MAX_DEPTH) {
		if (c->st == KP_OK)
			c->st = KP_ERR_FORMAT;
		return;
	}
	int r = dwarf_child(die, &child, &e);
	if (r != DW_DLV_OK) {
		ldw_fail(c, &e, r);
		return;
	}
	while (child) {
		visit(c, child, parent, depth, rb);
		if (c->st != KP_OK) {
			dwarf_dealloc_die(child);
			return;
		}
		Dwarf_Die next = NULL;
		Dwarf_Off off = 0, next_off = 0;
		r = ldw_sibling(c->d->dbg, child, &next, &e);
		if (r == DW_DLV_OK && (dwarf_dieoffset(child, &off, &e) != DW_DLV_OK ||
		                       dwarf_dieoffset(next, &next_off, &e) != DW_DLV_OK ||
		                       next_off <= off)) {
			/* A DW_AT_sibling pointing back (hostile or corrupt DWARF)
			 * would loop here forever: siblings must move forward. */
			if (e)
				dwarf_dealloc_error(c->d->dbg, e);
			dwarf_dealloc_die(next);
			dwarf_dealloc_die(child);
			if (c->st == KP_OK)
				c->st = KP_ERR_FORMAT;
			return;
		}
		dwarf_dealloc_die(child);
		if (r != DW_DLV_OK) {
			ldw_fail(c, &e, r);
			return;
		}
		child = next;
	}
}

/* Path join with llvm::sys::path::append's rules: empty parts are skipped,
 * one '/' between parts, none added after a trailing separator. */
struct pbuf {
	char *s;
	size_t n, cap;
};

static bool pb_append(struct pbuf *p, const char *part)
{
	if (!part || !*part)
		return true;
	size_t len = strlen(part);
	if (!grow((void **)&p->s, &p->cap, p->n + len + 2, 1))
		return false;
	if (p->n && p->s[p->n - 1] == '/') {
		while (*part == '/')
			part++, len--;
	} else if (p->n && part[0] != '/') {
		p->s[p->n++] = '/';
	}
	memcpy(p->s + p->n, part, len);
	p->n += len;
	p->s[p->n] = '\0';
	return true;
}

static bool path_is_abs(const char *s)
{
	if (!s || !*s)
		return false;
	if (s[0] == '/')
		return true;
	/* llvm checks Windows absoluteness too: "C:\x", "C:/x", "\\net\x" */
	if (((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')) && s[1] == ':' &&
	    (s[2] == '\\' || s[2] == '/'))
		return true;
	return s[0] == '\\' && s[1] == '\\';
}

static void decode_lines(dctx *c, Dwarf_Die cudie)
{
	kp_dwarf *d = c->d;
	struct cu *cu = c->cu;
	Dwarf_Error e = NULL;
	Dwarf_Unsigned lver = 0;
	Dwarf_Small tcount = 0;
	Dwarf_Line_Context ctx = NULL;
	int r = dwarf_srclines_b(cudie, &lver, &tcount, &ctx, &e);
	if (r != DW_DLV_OK) {
		ldw_fail(c, &e, r);
		return;
	}
	struct pbuf pb = {0};

	/* File table, named the way llvm's getFileNameByIndex(AbsoluteFilePath)
	 * does: absolute names as they are; else comp_dir (unless the include
	 * dir is absolute, or DWARF 5 dir 0), include dir, name. */
	Dwarf_Signed base = 0, count = 0, end = 0;
	if ((r = dwarf_srclines_files_indexes(ctx, &base, &count, &end, &e)) != DW_DLV_OK) {
		ldw_fail(c, &e, r);
		goto out;
	}
	Dwarf_Signed ndirs = 0;
	if ((r = dwarf_srclines_include_dir_count(ctx, &ndirs, &e)) != DW_DLV_OK) {
		ldw_fail(c, &e, r);
		goto out;
	}
	/* libdwarf 20210528 indexes include dirs from 1 for every version;
	 * later ones from 0 for DWARF 5.  Probe instead of guessing. */
	int dir_bias = 1;
	if (lver >= 5) {
		const char *probe = NULL;
		if (dwarf_srclines_include_dir_data(ctx, 0, &probe, &e) == DW_DLV_OK)
			dir_bias = 0;
		else if (e) {
			dwarf_dealloc_error(d->dbg, e);
			e = NULL;
		}
	}
	if (end > base && end - base < (1 << 24)) {
		cu->files = calloc((size_t)(end - base), sizeof *cu->files);
		if (!cu->files) {
			c->st = KP_ERR_NOMEM;
			goto out;
		}
		cu->nfiles = (size_t)(end - base);
		cu->file_base = base;
	}
	for (Dwarf_Signed i = base; i < end && cu->files; i++) {
		const char *name = NULL, *dir = NULL;
		Dwarf_Unsigned diridx = 0, mtime = 0, flen = 0;
		Dwarf_Form_Data16 *md5 = NULL;
		r = dwarf_srclines_files_data_b(ctx, i, &name, &diridx, &mtime, &flen, &md5, &e);
		if (r != DW_DLV_OK) {
			ldw_fail(c, &e, r);
			goto out;
		}
		if (!name)
			continue;
		pb.n = 0;
		if (path_is_abs(name)) {
			if (!pb_append(&pb, name))
				goto nomem;
		} else {
			bool have_dir = lver >= 5 ? (Dwarf_Signed)diridx < ndirs
			                          : diridx > 0 && (Dwarf_Signed)diridx <= ndirs;
			if (have_dir) {
				Dwarf_Signed di = lver >= 5 ? (Dwarf_Signed)diridx + dir_bias
				                            : (Dwarf_Signed)diridx;
				if (dwarf_srclines_include_dir_data(ctx, di, &dir, &e) != DW_DLV_OK) {
					if (e)
						dwarf_dealloc_error(d->dbg, e);
					e = NULL;
					dir = NULL;
				}
			}
			if ((lver < 5 || diridx != 0) && cu->comp_dir && *cu->comp_dir &&
			    !path_is_abs(dir) && !pb_append(&pb, cu->comp_dir))
				goto nomem;
			if (!pb_append(&pb, dir) || !pb_append(&pb, name))
				goto nomem;
		}
		if (pb.n == 0)
			continue;
		if (!(cu->files[i - base] = intern_n(d, pb.s, pb.n)))
			goto nomem;
	}

	Dwarf_Line *lines = NULL;
	Dwarf_Signed nl = 0;
	r = dwarf_srclines_from_linecontext(ctx, &lines, &nl, &e);
	if (r != DW_DLV_OK) {
		ldw_fail(c, &e, r);
		goto out;
	}
	if (nl <= 0)
		goto out;
	cu->rows = malloc((size_t)nl * sizeof *cu->rows);
	if (!cu->rows)
		goto nomem;
	size_t cap_seq = 0, first = 0;
	bool in_seq = false;
	for (Dwarf_Signed i = 0; i < nl; i++) {
		Dwarf_Addr addr = 0;
		Dwarf_Unsigned line = 0, col = 0, file = 0;
		Dwarf_Bool endseq = 0;
		if ((r = dwarf_lineaddr(lines[i], &addr, &e)) != DW_DLV_OK ||
		    (r = dwarf_lineno(lines[i], &line, &e)) != DW_DLV_OK ||
		    (r = dwarf_lineoff_b(lines[i], &col, &e)) != DW_DLV_OK ||
		    (r = dwarf_line_srcfileno(lines[i], &file, &e)) != DW_DLV_OK ||
		    (r = dwarf_lineendsequence(lines[i], &endseq, &e)) != DW_DLV_OK) {
			ldw_fail(c, &e, r);
			goto out;
		}
		size_t ri = cu->nrows++;
		cu->rows[ri] = (struct row){addr, (uint32_t)line, (uint32_t)col,
		                            file > UINT32_MAX ? UINT32_MAX : (uint32_t)file};
		if (!in_seq) {
			in_seq = true;
			first = ri;
		}
		if (endseq) {
			in_seq = false;
			/* llvm keeps only sequences with LowPC < HighPC */
			if (cu->rows[first].addr < addr) {
				if (!grow((void **)&cu->seqs, &cap_seq, cu->nseqs + 1, sizeof *cu->seqs))
					goto nomem;
				cu->seqs[cu->nseqs++] = (struct seq){cu->rows[first].addr, addr,
				                                     (uint32_t)first,
				                                     (uint32_t)(ri - first + 1)};
			}
		}
	}
	shrink((void **)&cu->seqs, &cap_seq, cu->nseqs, sizeof *cu->seqs);
	goto out;
nomem:
	c->st = KP_ERR_NOMEM;
out:
	free(pb.s);
	dwarf_srclines_dealloc_b(ctx);
}

static int seq_cmp(const void *a, const void *b)
{
	const struct seq *x = a, *y = b;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static void func_free(struct func *fn)
{
	free(fn->subs);
	free(fn->map.v);
	fn->subs = NULL;
	fn->map.v = NULL;
	fn->nsubs = fn->capsubs = fn->map.n = fn->map.cap = 0;
}

static void cu_free(struct cu *cu)
{
	for (size_t i = 0; i < cu->nfuncs; i++)
		func_free(&cu->funcs[i]);
	free(cu->funcs);
	free(cu->rows);
	free(cu->seqs);
	free(cu->files);
	free(cu->map.v);
	cu->funcs = NULL;
	cu->rows = NULL;
	cu->seqs = NULL;
	cu->files = NULL;
	cu->map.v = NULL;
	cu->nrows = cu->nseqs = cu->nfiles = cu->nfuncs = cu->capfuncs = 0;
	cu->map.n = cu->map.cap = 0;
}

/* The subtree of one subprogram: its inlined subroutines and their ranges. */
static kp_status func_decode(kp_dwarf *d, struct cu *cu, struct func *fn, kp_error *err)
{
	dctx c = {d, cu, fn, KP_OK};
	Dwarf_Error e = NULL;
	Dwarf_Die die = NULL;
	struct rngbuf rb = {0};
	int r = dwarf_offdie_b(d->dbg, fn->die_off, 1, &die, &e);
	if (r != DW_DLV_OK) {
		ldw_fail(&c, &e, r);
		if (c.st == KP_OK)
			c.st = KP_ERR_FORMAT;
	} else {
		visit(&c, die, -1, 0, &rb);
		dwarf_dealloc_die(die);
		if (c.st == KP_OK && fn->nsubs == 0)
			c.st = KP_ERR_FORMAT;
	}
	free(rb.v);
	if (c.st != KP_OK) {
		func_free(fn);
		fn->state = -1;
		return kp_error_set(err, c.st, 0, (long)fn->die_off,
		                    c.st == KP_ERR_NOMEM ? "out of memory decoding DWARF"
		                                         : "malformed DWARF in the subprogram at 0x%llx",
		                    (unsigned long long)fn->die_off);
	}
	shrink((void **)&fn->subs, &fn->capsubs, fn->nsubs, sizeof *fn->subs);
	shrink((void **)&fn->map.v, &fn->map.cap, fn->map.n, sizeof *fn->map.v);
	fn->state = 1;
	return KP_OK;
}

static kp_status cu_decode(kp_dwarf *d, struct cu *cu, kp_error *err)
{
	dctx c = {d, cu, NULL, KP_OK};
	Dwarf_Error e = NULL;
	Dwarf_Die cudie = NULL;
	struct rngbuf rb = {0};
	int r = dwarf_offdie_b(d->dbg, cu->die_off, 1, &cudie, &e);
	if (r != DW_DLV_OK) {
		ldw_fail(&c, &e, r);
		if (c.st == KP_OK)
			c.st = KP_ERR_FORMAT;
		goto done;
	}
	struct dieattrs a;
	if (read_attrs(&c, cudie, &a, false) != DW_DLV_OK)
		goto done;
	cu->base = a.has_lo ? a.lo : 0;
	if (a.comp_dir && !(cu->comp_dir = intern(d, a.comp_dir))) {
		c.st = KP_ERR_NOMEM;
		goto done;
	}
	walk_children(&c, cudie, -1, 0, &rb);
	if (c.st == KP_OK)
		decode_lines(&c, cudie);
	if (c.st == KP_OK && cu->nseqs > 1)
		qsort(cu->seqs, cu->nseqs, sizeof *cu->seqs, seq_cmp);
done:
	free(rb.v);
	if (cudie)
		dwarf_dealloc_die(cudie);
	if (c.st != KP_OK) {
		cu_free(cu);
		cu->state = -1;
		return kp_error_set(err, c.st, 0, (long)cu->hdr_off,
		                    c.st == KP_ERR_NOMEM ? "out of memory decoding DWARF"
		                                         : "malformed DWARF in the unit at 0x%llx",
		                    (unsigned long long)cu->hdr_off);
	}
	shrink((void **)&cu->funcs, &cu->capfuncs, cu->nfuncs, sizeof *cu->funcs);
	shrink((void **)&cu->map.v, &cu->map.cap, cu->map.n, sizeof *cu->map.v);
	cu->state = 1;
	return KP_OK;
}

/* ---- function names ------------------------------------------------------------ */

/* llvm-symbolizer's DemangleName: only names starting with "_Z" are
 * demangled (a failure keeps the name); applies to DWARF and nlist names. */
static const char *name_from_raw(kp_dwarf *d, const char *raw)
{
	if (!raw)
		return NULL;
	if (raw[0] == '_' && raw[1] == 'Z') {
		char *dm = kp_demangle(raw);
		if (dm) {
			const char *s = intern(d, dm);
			free(dm);
			return s;
		}
	}
	return intern(d, raw);
}

/* llvm's DWARFDie::findRecursively: depth-first over abstract_origin and
 * specification (specification popped first), first hit wins. */
#define MAX_REFS 16
static const char *find_recursive(dctx *c, const struct dieattrs *start, bool linkage)
{
	uint64_t stack[MAX_REFS], seen[MAX_REFS];
	size_t ns = 0, nseen = 0;
	const char *hit = linkage ? start->linkage : start->name;
	if (hit)
		return hit;
#define PUSH(o)                                                              \
	do {                                                                 \
		bool dup_ = false;                                           \
		for (size_t k_ = 0; k_ < nseen; k_++)                        \
			dup_ |= seen[k_] == (o);                              \
		if (!dup_ && nseen < MAX_REFS && ns < MAX_REFS) {             \
			seen[nseen++] = (o);                                 \
			stack[ns++] = (o);                                   \
		}                                                            \
	} while (0)
	if (start->has_origin)
		PUSH(start->origin);
	if (start->has_spec)
		PUSH(start->spec);
	while (ns) {
		uint64_t off = stack[--ns];
		Dwarf_Error e = NULL;
		Dwarf_Die die = NULL;
		int r = dwarf_offdie_b(c->d->dbg, off, 1, &die, &e);
		if (r != DW_DLV_OK) {
			ldw_fail(c, &e, r);
			continue;
		}
		struct dieattrs a;
		r = read_attrs(c, die, &a, false);
		dwarf_dealloc_die(die);
		if (r != DW_DLV_OK)
			return NULL;
		hit = linkage ? a.linkage : a.name;
		if (hit)
			return hit;
		if (a.has_origin)
			PUSH(a.origin);
		if (a.has_spec)
			PUSH(a.spec);
	}
#undef PUSH
	return NULL;
}

static struct nameent *name_slot(kp_dwarf *d, uint64_t off)
{
	size_t j = (size_t)((off * 0x9e3779b97f4a7c15ull) >> 20) & (d->capnames - 1);
	while (d->names[j].off != UINT64_MAX && d->names[j].off != off)
		j = (j + 1) & (d->capnames - 1);
	return &d->names[j];
}

/* The name llvm-symbolizer prints for the DIE described by a. */
static const char *die_name(dctx *c, const struct dieattrs *a)
{
	const char *raw = find_recursive(c, a, true);
	return name_from_raw(c->d, raw ? raw : find_recursive(c, a, false));
}

/* die_name of the DIE at off, cached by offset: the abstract origin of many
 * inlined copies and concrete instances. */
static const char *ref_name(dctx *c, uint64_t off)
{
	kp_dwarf *d = c->d;
	if (d->nnames * 2 >= d->capnames) {
		size_t ncap = d->capnames ? d->capnames * 2 : 256;
		struct nameent *nt = malloc(ncap * sizeof *nt);
		if (!nt) {
			c->st = KP_ERR_NOMEM;
			return NULL;
		}
		for (size_t i = 0; i < ncap; i++)
			nt[i].off = UINT64_MAX;
		struct nameent *old = d->names;
		size_t ocap = d->capnames;
		d->names = nt;
		d->capnames = ncap;
		for (size_t i = 0; i < ocap; i++)
			if (old[i].off != UINT64_MAX)
				*name_slot(d, old[i].off) = old[i];
		free(old);
	}
	struct nameent *slot = name_slot(d, off);
	if (slot->off == off)
		return slot->name;
	Dwarf_Error e = NULL;
	Dwarf_Die die = NULL;
	struct dieattrs a;
	int r = dwarf_offdie_b(d->dbg, off, 1, &die, &e);
	if (r != DW_DLV_OK) {
		ldw_fail(c, &e, r);
		if (c->st == KP_OK)
			c->st = KP_ERR_FORMAT;
		return NULL;
	}
	r = read_attrs(c, die, &a, false);
	dwarf_dealloc_die(die);
	const char *name = r == DW_DLV_OK ? die_name(c, &a) : NULL;
	if (c->st != KP_OK)
		return NULL;
	slot->off = off;
	slot->name = name;
	d->nnames++;
	return name;
}

static const char *sub_name(kp_dwarf *d, struct cu *cu, struct sub *sr, kp_status *st)
{
	if (sr->resolved)
		return sr->name;
	dctx c = {d, cu, NULL, KP_OK};
	const char *name;
	if (!sr->raw_linkage && !sr->raw_name && sr->has_origin != sr->has_spec) {
		/* only a reference: findRecursively starts right at its target */
		name = ref_name(&c, sr->has_origin ? sr->origin : sr->spec);
	} else {
		struct dieattrs a;
		memset(&a, 0, sizeof a);
		a.linkage = sr->raw_linkage;
		a.name = sr->raw_name;
		a.has_origin = sr->has_origin;
		a.origin = sr->origin;
		a.has_spec = sr->has_spec;
		a.spec = sr->spec;
		name = die_name(&c, &a);
	}
	if (c.st != KP_OK) {
		*st = c.st;
		return NULL;
	}
	sr->name = name;
	sr->resolved = true;
	return name;
}

/* ---- CU index -------------------------------------------------------------------- */

struct endpoint {
	uint64_t addr;
	uint32_t cu;
	bool start;
};

static int ep_cmp(const void *a, const void *b)
{
	const struct endpoint *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (int)x->start - (int)y->start;
}

/* LLVM's DWARFDebugAranges::construct: disjoint ranges, an overlap going to
 * the lowest CU offset (CU indexes are in offset order). */
static kp_status build_index(kp_dwarf *d, struct arange *in, size_t n)
{
	struct endpoint *ep = malloc(2 * (n ? n : 1) * sizeof *ep);
	uint32_t *active = malloc((n ? n : 1) * sizeof *active);
	size_t nactive = 0, cap = 0;
	if (!ep || !active)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		ep[2 * i] = (struct endpoint){in[i].lo, in[i].cu, true};
		ep[2 * i + 1] = (struct endpoint){in[i].hi, in[i].cu, false};
	}
	qsort(ep, 2 * n, sizeof *ep, ep_cmp);
	uint64_t prev = UINT64_MAX;
	for (size_t i = 0; i < 2 * n; i++) {
		if (prev < ep[i].addr && nactive) {
			uint32_t best = active[0];
			bool last_active = false;
			for (size_t k = 0; k < nactive; k++) {
				if (active[k] < best)
					best = active[k];
				if (d->nar && active[k] == d->ar[d->nar - 1].cu)
					last_active = true;
			}
			if (d->nar && d->ar[d->nar - 1].hi == prev && last_active) {
				d->ar[d->nar - 1].hi = ep[i].addr;
			} else {
				if (!grow((void **)&d->ar, &cap, d->nar + 1, sizeof *d->ar))
					goto nomem;
				d->ar[d->nar++] = (struct arange){prev, ep[i].addr, best};
			}
		}
		if (ep[i].start) {
			active[nactive++] = ep[i].cu;
		} else {
			for (size_t k = 0; k < nactive; k++)
				if (active[k] == ep[i].cu) {
					active[k] = active[--nactive];
					break;
				}
		}
		prev = ep[i].addr;
	}
	free(ep);
	free(active);
	return KP_OK;
nomem:
	free(ep);
	free(active);
	return KP_ERR_NOMEM;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int off_cmp(const void *key, const void *elem)
{
	uint64_t k = *(const uint64_t *)key, v = ((const struct cu *)elem)->die_off;
	return k < v ? -1 : k > v;
}

static kp_status open_index(kp_dwarf *d, kp_error *err)
{
	dctx c = {d, NULL, NULL, KP_OK};
	Dwarf_Error e = NULL;
	struct arange *raw = NULL;
	size_t nraw = 0, capraw = 0, capcu = 0;
	uint64_t *ar_cu = NULL; /* die offsets of the CUs .debug_aranges covers */
	size_t nar_cu = 0;
	struct rngbuf rb = {0};
	kp_status st = KP_OK;

	/* 1. .debug_aranges, before any CU iteration (it builds CU contexts of
	 *    its own).  A broken aranges section is ignored, as llvm does. */
	struct { uint64_t lo, hi, cu_die; } *aa = NULL;
	size_t naa = 0;
	Dwarf_Arange *arl = NULL;
	Dwarf_Signed narl = 0;
	int r = dwarf_get_aranges(d->dbg, &arl, &narl, &e);
	if (r == DW_DLV_OK) {
		aa = malloc((size_t)(narl ? narl : 1) * sizeof *aa);
		for (Dwarf_Signed i = 0; i < narl; i++) {
			Dwarf_Unsigned seg = 0, segsz = 0, len = 0;
			Dwarf_Addr start = 0;
			Dwarf_Off cudie = 0;
			if (aa && dwarf_get_arange_info_b(arl[i], &seg, &segsz, &start, &len, &cudie,
			                                  &e) == DW_DLV_OK) {
				aa[naa].lo = start;
				aa[naa].hi = start + len;
				aa[naa].cu_die = cudie;
				naa++;
			} else if (e) {
				dwarf_dealloc_error(d->dbg, e);
				e = NULL;
			}
			dwarf_dealloc(d->dbg, arl[i], DW_DLA_ARANGE);
		}
		dwarf_dealloc(d->dbg, arl, DW_DLA_LIST);
		if (!aa) {
			st = KP_ERR_NOMEM;
			goto out;
		}
	} else if (r == DW_DLV_ERROR) {
		dwarf_dealloc_error(d->dbg, e);
		e = NULL;
	}

	/* 2. Every CU header; the CU DIE's own ranges for CUs aranges missed. */
	if (naa) {
		ar_cu = malloc(naa * sizeof *ar_cu);
		if (!ar_cu) {
			st = KP_ERR_NOMEM;
			goto out;
		}
		for (size_t i = 0; i < naa; i++)
			ar_cu[i] = aa[i].cu_die;
		qsort(ar_cu, naa, sizeof *ar_cu, u64_cmp);
		nar_cu = naa;
	}
	uint64_t hdr = 0;
	for (;;) {
		Dwarf_Die cudie = NULL;
		Dwarf_Half version = 0;
		Dwarf_Unsigned next = 0;
		r = ldw_next_cu(d->dbg, &cudie, &version, &next, &e);
		if (r == DW_DLV_NO_ENTRY)
			break;
		if (r != DW_DLV_OK) {
			ldw_fail(&c, &e, r);
			break;
		}
		Dwarf_Off off = 0;
		if ((r = dwarf_dieoffset(cudie, &off, &e)) != DW_DLV_OK) {
			ldw_fail(&c, &e, r);
			dwarf_dealloc_die(cudie);
			break;
		}
		if (d->ncus >= UINT32_MAX ||
		    !grow((void **)&d->cus, &capcu, d->ncus + 1, sizeof *d->cus)) {
			dwarf_dealloc_die(cudie);
			st = KP_ERR_NOMEM;
			goto out;
		}
		struct cu *cu = &d->cus[d->ncus];
		memset(cu, 0, sizeof *cu);
		cu->hdr_off = hdr;
		cu->die_off = off;
		cu->version = version;
		uint32_t idx = (uint32_t)d->ncus++;
		bool covered = false;
		{
			size_t lo = 0, hi = nar_cu;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (ar_cu[mid] < off)
					lo = mid + 1;
				else
					hi = mid;
			}
			covered = lo < nar_cu && ar_cu[lo] == off;
		}
		if (!covered) {
			struct dieattrs a;
			c.cu = cu;
			if (read_attrs(&c, cudie, &a, version >= 5) == DW_DLV_OK) {
				die_ranges(&c, cudie, &a, version, a.has_lo ? a.lo : 0, &rb);
				for (size_t i = 0; i < rb.n && c.st == KP_OK; i++) {
					if (rb.v[i].lo >= rb.v[i].hi)
						continue;
					if (!grow((void **)&raw, &capraw, nraw + 1, sizeof *raw))
						c.st = KP_ERR_NOMEM;
					else
						raw[nraw++] = (struct arange){rb.v[i].lo, rb.v[i].hi, idx};
				}
			}
			if (a.ranges)
				dwarf_dealloc_attribute(a.ranges);
		}
		dwarf_dealloc_die(cudie);
		if (c.st != KP_OK)
			break;
		hdr = next;
	}
	if (c.st != KP_OK) {
		st = c.st;
		goto out;
	}
	for (size_t i = 0; i < naa; i++) {
		if (aa[i].lo >= aa[i].hi)
			continue;
		struct cu *cu = d->ncus ? bsearch(&aa[i].cu_die, d->cus, d->ncus, sizeof *d->cus,
		                                  off_cmp)
		                        : NULL;
		if (!cu)
			continue;
		if (!grow((void **)&raw, &capraw, nraw + 1, sizeof *raw)) {
			st = KP_ERR_NOMEM;
			goto out;
		}
		raw[nraw++] = (struct arange){aa[i].lo, aa[i].hi, (uint32_t)(cu - d->cus)};
	}
	st = build_index(d, raw, nraw);
out:
	free(aa);
	free(ar_cu);
	free(raw);
	free(rb.v);
	if (st != KP_OK)
		return kp_error_set(err, st, 0, -1,
		                    st == KP_ERR_NOMEM ? "out of memory reading DWARF"
		                                       : "malformed DWARF unit headers");
	return KP_OK;
}

/* ---- public API ----------------------------------------------------------------- */

kp_status kp_dwarf_open(const kp_macho_slice *slice, kp_dwarf **out, kp_error *err)
{
	*out = NULL;
	if (!slice || !slice->data || slice->size < 4)
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "no Mach-O slice");
	kp_dwarf *d = calloc(1, sizeof *d);
	if (!d)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	d->slice = slice;
	d->is64 = slice->is64;
	/* MH_MAGIC(_64) stored in the file's byte order: cf/ce first = little */
	d->little = slice->data[0] == 0xcf || slice->data[0] == 0xce;
	d->sects[0].name = "";
	d->nsects = 1;
	bool have_info = false;
	for (size_t i = 0; i < NSECT; i++) {
		const unsigned char *data = NULL;
		uint64_t size = 0, addr = 0;
		if (!kp_macho_section(slice, "__DWARF", sect_names[i].macho, &data, &size, &addr) ||
		    !data || !size)
			continue;
		if ((strcmp(sect_names[i].macho, "__debug_rnglists") == 0 ||
		     strcmp(sect_names[i].macho, "__debug_loclists") == 0) &&
		    !lists_section_ok(data, size, d->little))
			continue;
		struct sect *s = &d->sects[d->nsects++];
		s->name = sect_names[i].elf;
		s->data = data;
		s->size = size;
		s->addr = addr;
		s->offset = (uint64_t)(data - slice->data);
		have_info |= i == 0;
	}
	if (!have_info) {
		free(d);
		return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "no DWARF in the %s slice",
		                    slice->arch ? slice->arch : "?");
	}
	d->iface.KP_LDW_IFACE_OBJ = d;
	d->iface.KP_LDW_IFACE_METHODS = &oa_methods;

	/* Process-wide switch: libdwarf keeps no record of what it hands out,
	 * so everything must be dealloc'd here (40% faster decoding). */
	dwarf_set_de_alloc_flag(0);
	Dwarf_Error e = NULL;
	int r = dwarf_object_init_b(&d->iface, ldw_errhand, NULL, DW_GROUPNUMBER_ANY, &d->dbg, &e);
	if (r != DW_DLV_OK) {
		if (r == DW_DLV_ERROR && e)
			dwarf_dealloc_error(d->dbg, e);
		free(d);
		if (r == DW_DLV_NO_ENTRY)
			return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "no DWARF in the slice");
		return kp_error_set(err, KP_ERR_FORMAT, 0, -1, "libdwarf rejects the DWARF sections");
	}
	kp_status st = open_index(d, err);
	if (st != KP_OK) {
		kp_dwarf_close(&d);
		return st;
	}
	*out = d;
	return KP_OK;
}

static const char *file_of(const struct cu *cu, uint64_t idx)
{
	if (idx == UINT32_MAX || (int64_t)idx < cu->file_base ||
	    (uint64_t)((int64_t)idx - cu->file_base) >= cu->nfiles)
		return NULL;
	return cu->files[(int64_t)idx - cu->file_base];
}

/* llvm's LineTable::lookupAddress: the first sequence ending after addr
 * must start at or before it; then the last row at or before addr. */
static const struct row *line_for(const struct cu *cu, uint64_t addr)
{
	size_t lo = 0, hi = cu->nseqs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cu->seqs[mid].hi <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == cu->nseqs || cu->seqs[lo].lo > addr)
		return NULL;
	const struct seq *s = &cu->seqs[lo];
	size_t a = s->first + 1, b = s->first + s->count - 1; /* upper_bound in [a,b) */
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (cu->rows[mid].addr <= addr)
			a = mid + 1;
		else
			b = mid;
	}
	return &cu->rows[a - 1];
}

/* The frames DWARF gives for addr (see kp_dwarf_lookup), without the
 * symbol-table override. */
static kp_status dwarf_frames(kp_dwarf *d, uint64_t addr, kp_symframe *frames, size_t max,
                              size_t *n, bool *whole, kp_error *err)
{
	*n = 0;
	*whole = true; /* the last frame written is the outermost one */
	size_t lo = 0, hi = d->nar;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->ar[mid].hi <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == d->nar || d->ar[lo].lo > addr)
		return KP_OK;
	struct cu *cu = &d->cus[d->ar[lo].cu];
	if (cu->state == 0) {
		kp_status st = cu_decode(d, cu, err);
		if (st != KP_OK)
			return st;
	}
	if (cu->state < 0)
		return kp_error_set(err, KP_ERR_FORMAT, 0, (long)cu->hdr_off,
		                    "malformed DWARF in the unit at 0x%llx",
		                    (unsigned long long)cu->hdr_off);

	const struct row *row = line_for(cu, addr);
	const char *rowfile = row ? file_of(cu, row->file) : NULL;
	int32_t leaf = -1;
	struct func *fn = NULL;
	int32_t fi = amap_find(&cu->map, addr);
	if (fi >= 0) {
		fn = &cu->funcs[fi];
		if (fn->state == 0) {
			kp_status st = func_decode(d, cu, fn, err);
			if (st != KP_OK)
				return st;
		}
		if (fn->state < 0)
			return kp_error_set(err, KP_ERR_FORMAT, 0, (long)fn->die_off,
			                    "malformed DWARF in the subprogram at 0x%llx",
			                    (unsigned long long)fn->die_off);
		leaf = amap_find(&fn->map, addr);
	}
	if (leaf < 0) {
		/* no subroutine DIE: llvm still reports the line table's row */
		if (rowfile && max) {
			frames[0] = (kp_symframe){NULL, rowfile, row->line, row->column};
			*n = 1;
		}
		return KP_OK;
	}
	kp_status st = KP_OK;
	size_t k = 0;
	const struct sub *prev = NULL;
	for (int32_t s = leaf; s >= 0 && k < max;) {
		struct sub *sr = fn->subs + s;
		kp_symframe *f = &frames[k];
		f->function = sub_name(d, cu, sr, &st);
		if (st != KP_OK)
			return kp_error_set(err, st, 0, -1, "malformed DWARF names");
		if (!prev) {
			f->file = rowfile;
			f->line = rowfile ? row->line : 0;
			f->column = rowfile ? row->column : 0;
		} else {
			/* the caller's position, from the callee's DW_AT_call_* */
			f->file = file_of(cu, prev->call_file);
			f->line = prev->call_line;
			f->column = prev->call_column;
		}
		k++;
		if (sr->is_subprogram)
			break;
		prev = sr;
		s = sr->parent;
		if (s >= 0 && k == max)
			*whole = false;
	}
	*n = k;
	return KP_OK;
}

/* The printed form of an nlist name, memoized by kp_macho's pointer (every
 * lookup in a function hits the same symbol). */
static const char *sym_name(kp_dwarf *d, const char *sym)
{
	if (d->nsymn * 2 >= d->capsymn) {
		size_t ncap = d->capsymn ? d->capsymn * 2 : 256;
		struct symname *nt = calloc(ncap, sizeof *nt);
		if (!nt)
			return NULL;
		for (size_t i = 0; i < d->capsymn; i++) {
			if (!d->syms_names[i].sym)
				continue;
			size_t j = (size_t)(((uintptr_t)d->syms_names[i].sym * 0x9e3779b97f4a7c15ull) >> 24) &
			           (ncap - 1);
			while (nt[j].sym)
				j = (j + 1) & (ncap - 1);
			nt[j] = d->syms_names[i];
		}
		free(d->syms_names);
		d->syms_names = nt;
		d->capsymn = ncap;
	}
	size_t j = (size_t)(((uintptr_t)sym * 0x9e3779b97f4a7c15ull) >> 24) & (d->capsymn - 1);
	while (d->syms_names[j].sym && d->syms_names[j].sym != sym)
		j = (j + 1) & (d->capsymn - 1);
	if (d->syms_names[j].sym)
		return d->syms_names[j].name;
	/* llvm drops the one '_' every Mach-O symbol carries */
	const char *name = name_from_raw(d, sym[0] == '_' ? sym + 1 : sym);
	if (name) {
		d->syms_names[j] = (struct symname){sym, name};
		d->nsymn++;
	}
	return name;
}

kp_status kp_dwarf_lookup(kp_dwarf *d, uint64_t addr, kp_symframe *frames, size_t max,
                          size_t *n, kp_error *err)
{
	*n = 0;
	if (!d || (max && !frames))
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "no DWARF handle");
	bool whole = true;
	kp_status st = dwarf_frames(d, addr, frames, max, n, &whole, err);
	if (st != KP_OK || !d->syms || !max)
		return st;
	const char *sym = NULL;
	uint64_t off = 0;
	if (!kp_macho_symbol(d->syms, d->slice, addr, &sym, &off) || !sym)
		return KP_OK;
	const char *name = sym_name(d, sym);
	if (!name)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	if (*n == 0) {
		frames[0] = (kp_symframe){name, NULL, 0, 0};
		*n = 1;
	} else if (whole) {
		frames[*n - 1].function = name;
	}
	return KP_OK;
}

kp_status kp_dwarf_for_each_boundary(kp_dwarf *d, bool (*fn)(void *ctx, uint64_t addr),
                                     void (*progress)(void *ctx, size_t done, size_t total),
                                     void *ctx, kp_error *err)
{
	if (!d || !fn)
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "no DWARF handle");
	bool ok = true;
	kp_status st = KP_OK;
	/* only CUs the index can reach are decoded */
	bool *reached = calloc(d->ncus ? d->ncus : 1, sizeof *reached);
	if (!reached)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	for (size_t i = 0; i < d->nar && ok; i++) {
		reached[d->ar[i].cu] = true;
		ok = fn(ctx, d->ar[i].lo) && fn(ctx, d->ar[i].hi);
	}
	for (size_t ci = 0; ci < d->ncus && ok && st == KP_OK; ci++) {
		struct cu *cu = &d->cus[ci];
		if (!reached[ci])
			continue;
		if (cu->state == 0 && (st = cu_decode(d, cu, err)) != KP_OK)
			break;
		if (cu->state < 0) {
			st = kp_error_set(err, KP_ERR_FORMAT, 0, (long)cu->hdr_off,
			                  "malformed DWARF in the unit at 0x%llx",
			                  (unsigned long long)cu->hdr_off);
			break;
		}
		for (size_t i = 0; i < cu->nseqs && ok; i++)
			ok = fn(ctx, cu->seqs[i].lo) && fn(ctx, cu->seqs[i].hi);
		for (size_t i = 0; i < cu->nrows && ok; i++)
			ok = fn(ctx, cu->rows[i].addr);
		for (size_t i = 0; i < cu->map.n && ok; i++) {
			const struct amap *m = &cu->map.v[i];
			struct func *f = &cu->funcs[m->sub];
			ok = fn(ctx, m->lo) && fn(ctx, m->hi);
			if (f->state == 0 && (st = func_decode(d, cu, f, err)) != KP_OK)
				break;
			if (f->state < 0) {
				st = kp_error_set(err, KP_ERR_FORMAT, 0, (long)f->die_off,
				                  "malformed DWARF in the subprogram at 0x%llx",
				                  (unsigned long long)f->die_off);
				break;
			}
			for (size_t k = 0; k < f->map.n && ok; k++)
				ok = fn(ctx, f->map.v[k].lo) && fn(ctx, f->map.v[k].hi);
		}
		if (progress && st == KP_OK)
			progress(ctx, ci + 1, d->ncus);
	}
	free(reached);
	if (st != KP_OK)
		return st;
	return ok ? KP_OK : kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
}

void kp_dwarf_use_symbols(kp_dwarf *d, kp_macho *m)
{
	if (d)
		d->syms = m;
}

void kp_dwarf_close(kp_dwarf **pd)
{
	if (!pd || !*pd)
		return;
	kp_dwarf *d = *pd;
	if (d->dbg)
		kp_ldw_object_finish(d->dbg);
	for (size_t i = 0; i < d->ncus; i++)
		cu_free(&d->cus[i]);
	free(d->cus);
	free(d->ar);
	while (d->blocks) {
		struct strblock *b = d->blocks->next;
		free(d->blocks);
		d->blocks = b;
	}
	free(d->strtab);
	free(d->names);
	free(d->syms_names);
	free(d);
	*pd = NULL;
}
