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
 *    row at or before addr wins; read by dwarf_line.c, libdwarf's
 *    dwarf_srclines_b only for the tables that reader leaves alone) and an index of its concrete subprograms by
 *    address.  libdwarf skips their subtrees.
 *  - First hit in a subprogram: its subtree, giving an interval map address
 *    -> innermost inlined subroutine built in DIE preorder (deeper DIEs
 *    split the ranges of earlier ones: llvm's AddrDieMap).
 *  - Those DIE walks are dwarf_walk.c's, over a DIE reader: dwarf_die.c's
 *    own .debug_info reader first (libdwarf allocates per DIE and
 *    attribute), and for whatever it leaves alone libdwarf's, below (the
 *    oracle and the fallback).  The DIE reads of name resolution likewise.
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
 * applies, not llvm's.  DWARF 5 (strx/addrx/rnglistx/loclistx forms,
 * .debug_str_offsets, .debug_addr, .debug_rnglists, line_strp names, file
 * and dir index 0, the MD5 column) is checked against llvm-symbolizer 19 on
 * the clang/dsymutil 19 fixtures and their object files.
 *
 * libdwarf versions: tested against 20210528 (Debian 12) and 2.3.1 (the 2.x
 * line Homebrew ships; the suite runs against both).  Every API difference
 * is behind KP_LDW_* below; the line-table flag bug both share is handled in
 * real_end_sequence().
 *
 * dwarf_set_de_alloc_flag(0) is process-wide: every libdwarf user in the
 * process then runs untracked (kpbrowse has no other); 0.x and 2.x only
 * (see kp_dwarf_open). */
#include "kp_dwarf.h"

#include "dwarf_model.h"
#include "kp_rd.h"
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
/* 0.x and 2.x: *_a structs with om_/as_/ai_ field names.  The section index
 * became Dwarf_Unsigned after 0.3 (0.3.x headers still say Dwarf_Half). */
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

/* Next CU header: its CU DIE (caller deallocs) and the next header offset.
 * A unit whose header reads but that holds no readable DIE (Xcode-era
 * dSYMs hold 7-byte units, a header and nothing else) is DW_DLV_OK with
 * *cudie NULL: the caller skips it and goes on at *next. */
static int ldw_next_cu(Dwarf_Debug dbg, Dwarf_Die *cudie, Dwarf_Half *version,
                       Dwarf_Unsigned *next, Dwarf_Error *e)
{
	*cudie = NULL;
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
	if (r != DW_DLV_OK) {
		if (*e)
			dwarf_dealloc_error(dbg, *e);
		*e = NULL;
		*cudie = NULL;
	}
	return DW_DLV_OK;
#endif
}

/* ---- the handle ---------------------------------------------------------- */

struct kp_dwarf {
	struct kp__dwarf_cache c; /* everything decoded (dwarf_model.h) */
	struct sect sects[KP__DWARF_NSECT + 1]; /* [0] is a dummy: libdwarf skips index 0 */
	unsigned nsects;
	struct kp__dwarf_lists lists; /* rnglists/addr; bases set per unit */
	struct kp__dwarf_linesrc linesrc; /* what dwarf_line.c reads */
	struct kp__dwarf_infosrc info;    /* what dwarf_die.c reads */
	bool little, is64;
	bool libdwarf_only; /* kp__dwarf_libdwarf_only: no dwarf_die.c */
	size_t units_skipped; /* units left out: no DIE in them */
	kp_ldw_iface iface;
	Dwarf_Debug dbg;
};

struct kp__dwarf_cache *kp__dwarf_cache(kp_dwarf *d)
{
	return &d->c;
}

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
	return ((const kp_dwarf *)obj)->c.slice->size;
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

/* A decoding: dwarf_walk.c's walk with libdwarf as its reader (rd is the
 * kp_dwarf); st OK, FORMAT (libdwarf said the data is bad) or NOMEM. */
typedef struct kp__dwarf_walk dctx;

static const struct kp__dwarf_dieops ldw_ops;

static dctx ldw_walk(kp_dwarf *d, struct cu *cu, struct func *fn)
{
	return (dctx){&ldw_ops, d, &d->lists, &d->c, cu, fn, {0}, KP_OK, false};
}

static kp_dwarf *D(const dctx *c)
{
	return c->rd;
}

/* Records a failed libdwarf call.  The error is freed whatever r says:
 * some 20210528 paths (dwarf_highpc_b) fill it and still return NO_ENTRY. */
static int ldw_fail(dctx *c, Dwarf_Error *e, int r)
{
	if (*e)
		dwarf_dealloc_error(D(c)->dbg, *e);
	*e = NULL;
	if (r == DW_DLV_ERROR && c->st == KP_OK)
		c->st = KP_ERR_FORMAT;
	return r;
}

/* ---- address ranges of a DIE ---------------------------------------------- */

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

static int read_attrs(dctx *c, Dwarf_Die die, struct dieattrs *a)
{
	Dwarf_Error e = NULL;
	Dwarf_Attribute *list = NULL;
	Dwarf_Signed n = 0;
	memset(a, 0, sizeof *a);
	a->rnglists_base = a->addr_base = UINT64_MAX;
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
		case DW_AT_stmt_list:
		case DW_AT_ranges:
		case DW_AT_rnglists_base:
		case DW_AT_addr_base:
			if (form == DW_FORM_rnglistx) {
				r = dwarf_formudata(at, &u, &e);
				off = u;
			} else {
				r = dwarf_global_formref(at, &off, &e);
				if (r == DW_DLV_ERROR) {
					dwarf_dealloc_error(D(c)->dbg, e);
					e = NULL;
					r = dwarf_formudata(at, &u, &e);
					off = u;
				}
			}
			if (r == DW_DLV_OK && num == DW_AT_stmt_list) {
				a->has_stmt_list = true;
				a->stmt_list = off;
			} else if (r == DW_DLV_OK && num == DW_AT_rnglists_base) {
				a->rnglists_base = off;
			} else if (r == DW_DLV_OK && num == DW_AT_addr_base) {
				a->addr_base = off;
			} else if (r == DW_DLV_OK) {
				a->has_ranges = true;
				a->ranges_off = off;
				a->ranges_form = form;
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
		dwarf_dealloc_attribute(at);
	}
	dwarf_dealloc(D(c)->dbg, list, DW_DLA_LIST);
	return c->st == KP_OK ? DW_DLV_OK : DW_DLV_ERROR;
}

/* DWARF <= 4 .debug_ranges through dwarf_get_ranges_b. */
static void ldw_ranges_v4(dctx *c, struct kp__die *die, uint64_t off, uint64_t base,
                          struct rngbuf *out)
{
	Dwarf_Error e = NULL;
	Dwarf_Ranges *rb = NULL;
	Dwarf_Signed cnt = 0;
	Dwarf_Unsigned bytes = 0;
	Dwarf_Off real = 0;
	int r = dwarf_get_ranges_b(D(c)->dbg, off, die->h, &real, &rb, &cnt, &bytes, &e);
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
		if (!kp__dwarf_rng_push(out, rb[i].dwr_addr1 + base, rb[i].dwr_addr2 + base)) {
			c->st = KP_ERR_NOMEM;
			break;
		}
	}
	dwarf_dealloc(D(c)->dbg, rb, DW_DLA_RANGES);
}

/* The DW_AT_low_pc/high_pc pair without building the whole attribute list
 * (into a, high pc as an address); false when the DIE lacks either.  (Not
 * through dwarf_highpc_b: on a malformed constant form 20210528 overwrites,
 * and so leaks, its own Dwarf_Error.) */
static bool pc_range(dctx *c, Dwarf_Die die, struct dieattrs *a)
{
	Dwarf_Error e = NULL;
	Dwarf_Addr lo = 0, hi = 0;
	Dwarf_Attribute at = NULL;
	Dwarf_Half form = 0;
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
	a->has_lo = a->has_hi = a->hi_is_addr = true;
	a->lo = lo;
	a->hi = hi;
	return true;
}

/* ---- the walk's DIE reader ------------------------------------------------- */

/* die into *out (its offset and tag), or false (released, c->st set); prev:
 * the sibling before it, whose offset it must pass (NULL for a first child). */
static bool ldw_die(dctx *c, Dwarf_Die die, const struct kp__die *prev, struct kp__die *out)
{
	Dwarf_Error e = NULL;
	Dwarf_Off off = 0;
	Dwarf_Half tag = 0;
	int r = dwarf_dieoffset(die, &off, &e);
	if (r != DW_DLV_OK || (prev && off <= prev->off)) {
		/* A DW_AT_sibling pointing back (hostile or corrupt DWARF)
		 * would loop forever: siblings must move forward. */
		ldw_fail(c, &e, r);
		dwarf_dealloc_die(die);
		if (c->st == KP_OK)
			c->st = KP_ERR_FORMAT;
		return false;
	}
	if ((r = dwarf_tag(die, &tag, &e)) != DW_DLV_OK) {
		ldw_fail(c, &e, r);
		tag = 0; /* passed by, as the walk passes unknown tags */
	}
	*out = (struct kp__die){off, tag, die, 0};
	return true;
}

static bool ldw_child(dctx *c, struct kp__die *die, struct kp__die *out)
{
	Dwarf_Error e = NULL;
	Dwarf_Die child = NULL;
	int r = dwarf_child(die->h, &child, &e);
	if (r != DW_DLV_OK) {
		ldw_fail(c, &e, r);
		return false;
	}
	return ldw_die(c, child, NULL, out);
}

static bool ldw_next(dctx *c, struct kp__die *die, struct kp__die *out)
{
	Dwarf_Error e = NULL;
	Dwarf_Die next = NULL;
	int r = ldw_sibling(D(c)->dbg, die->h, &next, &e);
	if (r != DW_DLV_OK) {
		ldw_fail(c, &e, r);
		return false;
	}
	return ldw_die(c, next, die, out);
}

static void ldw_release(dctx *c, struct kp__die *die)
{
	(void)c;
	dwarf_dealloc_die(die->h);
}

static void ldw_attrs(dctx *c, struct kp__die *die, bool index, struct dieattrs *a)
{
	if (index) {
		/* indexing needs only the ranges: the attribute list only when
		 * there is no pc pair and there is DW_AT_ranges */
		Dwarf_Error e = NULL;
		Dwarf_Bool has_ranges = 0;
		memset(a, 0, sizeof *a);
		a->rnglists_base = a->addr_base = UINT64_MAX;
		if (pc_range(c, die->h, a))
			return;
		if (c->st == KP_OK && dwarf_hasattr(die->h, DW_AT_ranges, &has_ranges, &e) == DW_DLV_OK &&
		    !has_ranges)
			return;
		if (e)
			dwarf_dealloc_error(D(c)->dbg, e);
		if (c->st != KP_OK)
			return;
	}
	read_attrs(c, die->h, a);
}

static const struct kp__dwarf_dieops ldw_ops = {
	.child = ldw_child,
	.next = ldw_next,
	.release = ldw_release,
	.attrs = ldw_attrs,
	.ranges_v4 = ldw_ranges_v4,
};

/* Whether a row libdwarf flags end_sequence really ends its sequence.
 * libdwarf from 20210528 up to and including 2.3.1 also sets that flag on
 * every row a special opcode emits with epilogue_begin set (libdwarf issue
 * #322, fixed after 2.3.1), and clang 17+ emits epilogue_begin on every
 * epilogue: trusting the flag closes the sequence there and leaves the
 * epilogue without a line.  So a flagged row that also says epilogue_begin
 * ends its sequence only when the next row cannot continue it: that row's
 * address is lower, or it was set by DW_LNE_set_address (a sequence starts
 * with one; LLVM and dsymutil never emit one inside a sequence).  Right for
 * every libdwarf, fixed or not; the last row of a table is always an end. */
static bool real_end_sequence(kp_dwarf *d, Dwarf_Line row, Dwarf_Line next, Dwarf_Addr addr)
{
	Dwarf_Error e = NULL;
	Dwarf_Bool prologue_end = 0, epilogue_begin = 0, addr_set = 0;
	Dwarf_Unsigned isa = 0, discriminator = 0;
	Dwarf_Addr next_addr = 0;
	if (dwarf_prologue_end_etc(row, &prologue_end, &epilogue_begin, &isa, &discriminator,
	                           &e) != DW_DLV_OK ||
	    !epilogue_begin || dwarf_lineaddr(next, &next_addr, &e) != DW_DLV_OK ||
	    dwarf_line_is_addr_set(next, &addr_set, &e) != DW_DLV_OK) {
		if (e)
			dwarf_dealloc_error(d->dbg, e);
		return true;
	}
	return next_addr < addr || addr_set;
}

static void decode_lines(dctx *c, Dwarf_Die cudie, const struct dieattrs *ca)
{
	kp_dwarf *d = D(c);
	struct cu *cu = c->cu;
	if (ca->has_stmt_list) {
		int fr = kp__dwarf_lines_fast(&d->c, &d->linesrc, ca->stmt_list, cu);
		if (fr == -2)
			c->st = KP_ERR_NOMEM;
		if (fr != 0)
			return;
	}
	Dwarf_Error e = NULL;
	Dwarf_Unsigned lver = 0;
	Dwarf_Small tcount = 0;
	Dwarf_Line_Context ctx = NULL;
	int r = dwarf_srclines_b(cudie, &lver, &tcount, &ctx, &e);
	if (r != DW_DLV_OK) {
		ldw_fail(c, &e, r);
		return;
	}
	kp_sb pb = {0};

	/* File table, named by kp__dwarf_file_name as dwarf_line.c names it. */
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
		if (!kp__dwarf_file_name(&d->c, &pb, cu->comp_dir, lver >= 5, name, dir, diridx,
		                         &cu->files[i - base]))
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
	struct seqbuild sb = {0};
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
		if (endseq && i + 1 < nl && !real_end_sequence(d, lines[i], lines[i + 1], addr))
			endseq = 0;
		if (!kp__dwarf_cu_add_row(cu, &sb, addr, (uint32_t)line, (uint32_t)col,
		                          file > UINT32_MAX ? UINT32_MAX : (uint32_t)file, endseq))
			goto nomem;
	}
	kp__dwarf_cu_rows_done(cu, &sb);
	goto out;
nomem:
	c->st = KP_ERR_NOMEM;
out:
	free(pb.s);
	dwarf_srclines_dealloc_b(ctx);
}


/* The subtree of one subprogram: its inlined subroutines and their ranges. */
kp_status kp__dwarf_func_decode(kp_dwarf *d, struct cu *cu, struct func *fn, kp_error *err)
{
	dctx c = ldw_walk(d, cu, fn);
	Dwarf_Error e = NULL;
	Dwarf_Die die = NULL;
	int fr = d->libdwarf_only ? 0 : kp__dwarf_func_decode_fast(&d->c, &d->info, &d->lists, cu, fn);
	d->c.nfast += fr == 1;
	if (fr != 0)
		return kp__dwarf_func_done(fn, fr == 1 ? KP_OK : KP_ERR_NOMEM, err);
	d->c.nslow++;
	int r = dwarf_offdie_b(d->dbg, fn->die_off, 1, &die, &e);
	if (r != DW_DLV_OK) {
		ldw_fail(&c, &e, r);
		if (c.st == KP_OK)
			c.st = KP_ERR_FORMAT;
	} else {
		struct kp__die root = {fn->die_off, 0, die, 0};
		if (ldw_die(&c, die, NULL, &root)) {
			kp__dwarf_walk_func(&c, &root);
			dwarf_dealloc_die(die);
		}
	}
	free(c.rb.v);
	return kp__dwarf_func_done(fn, c.st, err);
}

kp_status kp__dwarf_cu_decode(kp_dwarf *d, struct cu *cu, kp_error *err)
{
	dctx c = ldw_walk(d, cu, NULL);
	Dwarf_Error e = NULL;
	Dwarf_Die cudie = NULL;
	int fr = d->libdwarf_only ? 0
	                          : kp__dwarf_cu_decode_fast(&d->c, &d->info, &d->lists, &d->linesrc, cu);
	d->c.nfast += fr == 1;
	if (fr == 1 && cu->nseqs > 1)
		kp__dwarf_sort_seqs(cu);
	if (fr != 0)
		return kp__dwarf_cu_done(cu, fr == 1 ? KP_OK : KP_ERR_NOMEM, err);
	d->c.nslow++;
	int r = dwarf_offdie_b(d->dbg, cu->die_off, 1, &cudie, &e);
	if (r != DW_DLV_OK) {
		ldw_fail(&c, &e, r);
		if (c.st == KP_OK)
			c.st = KP_ERR_FORMAT;
		goto done;
	}
	struct kp__die root = {cu->die_off, 0, cudie, 0};
	struct dieattrs a;
	kp__dwarf_walk_unit(&c, &root, &a);
	if (c.st == KP_OK)
		decode_lines(&c, cudie, &a);
	if (c.st == KP_OK && cu->nseqs > 1)
		kp__dwarf_sort_seqs(cu);
done:
	free(c.rb.v);
	if (cudie)
		dwarf_dealloc_die(cudie);
	return kp__dwarf_cu_done(cu, c.st, err);
}

/* ---- function names ------------------------------------------------------------ */

/* The attributes of the DIE at off: read_attrs, through dwarf_die.c when it
 * can.  NO_ENTRY when libdwarf finds no DIE there (c->st set when it says
 * why), ERROR when reading its attributes failed (c->st set). */
static int attrs_at(dctx *c, uint64_t off, struct dieattrs *a)
{
	kp_dwarf *d = D(c);
	int fr = d->libdwarf_only ? 0 : kp__dwarf_die_attrs_fast(&d->c, &d->info, off, a);
	if (fr == 1)
		return DW_DLV_OK;
	if (fr == -2) {
		c->st = KP_ERR_NOMEM;
		return DW_DLV_ERROR;
	}
	Dwarf_Error e = NULL;
	Dwarf_Die die = NULL;
	int r = dwarf_offdie_b(d->dbg, off, 1, &die, &e);
	if (r != DW_DLV_OK) {
		ldw_fail(c, &e, r);
		return DW_DLV_NO_ENTRY;
	}
	r = read_attrs(c, die, a);
	dwarf_dealloc_die(die);
	return r;
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
		struct dieattrs a;
		int r = attrs_at(c, off, &a);
		if (r == DW_DLV_NO_ENTRY)
			continue;
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
/* The name llvm-symbolizer prints for the DIE described by a. */
static const char *die_name(dctx *c, const struct dieattrs *a)
{
	const char *raw = find_recursive(c, a, true);
	return kp__dwarf_name_from_raw(&D(c)->c, raw ? raw : find_recursive(c, a, false));
}

/* die_name of the DIE at off, cached by offset: the abstract origin of many
 * inlined copies and concrete instances. */
static const char *ref_name(dctx *c, uint64_t off)
{
	kp_dwarf *d = D(c);
	struct nameent *slot = kp__dwarf_name_slot(&d->c, off);
	if (!slot) {
		c->st = KP_ERR_NOMEM;
		return NULL;
	}
	if (slot->off == off)
		return slot->name;
	struct dieattrs a;
	int r = attrs_at(c, off, &a);
	if (r == DW_DLV_NO_ENTRY && c->st == KP_OK)
		c->st = KP_ERR_FORMAT;
	if (r == DW_DLV_NO_ENTRY)
		return NULL;
	const char *name = r == DW_DLV_OK ? die_name(c, &a) : NULL;
	if (c->st != KP_OK)
		return NULL;
	slot->off = off;
	slot->name = name;
	d->c.nnames++;
	return name;
}

const char *kp__dwarf_sub_name(kp_dwarf *d, struct cu *cu, struct sub *sr, kp_status *st)
{
	if (sr->resolved)
		return sr->name;
	dctx c = ldw_walk(d, cu, NULL);
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

/* Where the unit whose header is at off in .debug_info ends, as its
 * initial length says; false when that does not read or leaves the
 * section. */
static bool unit_end(const kp_dwarf *d, uint64_t off, uint64_t *end)
{
	struct kp__rd r = {d->info.info, off, d->info.info_size, d->little, d->info.info != NULL};
	uint64_t len = kp__rd_fixed(&r, 4);
	if (len == 0xffffffffu)
		len = kp__rd_fixed(&r, 8);
	else if (len >= 0xfffffff0u)
		return false;
	if (!r.ok || len > r.end - r.pos)
		return false;
	*end = r.pos + len;
	return true;
}

static kp_status open_index(kp_dwarf *d, kp_error *err)
{
	dctx c = ldw_walk(d, NULL, NULL);
	Dwarf_Error e = NULL;
	struct arange *raw = NULL;
	size_t nraw = 0, capraw = 0, capcu = 0;
	uint64_t *ar_cu = NULL; /* die offsets of the CUs .debug_aranges covers */
	size_t nar_cu = 0;
	struct rngbuf rb = {0};
	kp_status st = KP_OK;

	/* 1. .debug_aranges, before any CU iteration (it builds CU contexts of
	 *    its own).  A broken aranges section is ignored, as llvm does. */
	struct aarange *aa = NULL;
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
		kp__dwarf_sort_u64(ar_cu, naa);
		nar_cu = naa;
	}
	uint64_t hdr = 0;
	for (;;) {
		Dwarf_Die cudie = NULL;
		Dwarf_Half version = 0;
		Dwarf_Unsigned next = 0;
		r = ldw_next_cu(d->dbg, &cudie, &version, &next, &e);
		if (r == DW_DLV_NO_ENTRY) {
			/* libdwarf 0.9 and later say NO_ENTRY for a unit without
			 * a DIE, past which they go on: a unit that ends inside
			 * the section is skipped, as 20210528's path does above. */
			uint64_t end;
			if (KP_LDW_HAS_E && unit_end(d, hdr, &end) && end > hdr &&
			    end < d->info.info_size) {
				d->units_skipped++;
				hdr = end;
				continue;
			}
			break;
		}
		if (r != DW_DLV_OK) {
			/* a header that does not read (a unit cut short by the
			 * section's end): the units before it still answer */
			if (e)
				dwarf_dealloc_error(d->dbg, e);
			e = NULL;
			d->units_skipped++;
			break;
		}
		if (!cudie) {   /* a unit without a DIE: the others still answer */
			if (next <= hdr)
				break;
			d->units_skipped++;
			hdr = next;
			continue;
		}
		Dwarf_Off off = 0;
		if ((r = dwarf_dieoffset(cudie, &off, &e)) != DW_DLV_OK) {
			ldw_fail(&c, &e, r);
			dwarf_dealloc_die(cudie);
			break;
		}
		if (off <= hdr || next <= off) {   /* not the unit expected at hdr */
			dwarf_dealloc_die(cudie);
			d->units_skipped++;
			break;
		}
		if (d->c.ncus >= UINT32_MAX ||
		    !kp_vec_reserve((void **)&d->c.cus, &capcu, d->c.ncus + 1, sizeof *d->c.cus)) {
			dwarf_dealloc_die(cudie);
			st = KP_ERR_NOMEM;
			goto out;
		}
		struct cu *cu = &d->c.cus[d->c.ncus];
		memset(cu, 0, sizeof *cu);
		cu->hdr_off = hdr;
		cu->die_off = off;
		cu->version = version;
		uint32_t idx = (uint32_t)d->c.ncus++;
		if (!kp__dwarf_has_u64(ar_cu, nar_cu, off)) {
			struct dieattrs a;
			c.cu = cu;
			if (read_attrs(&c, cudie, &a) == DW_DLV_OK) {
				cu->rnglists_base = a.rnglists_base;
				cu->addr_base = a.addr_base;
				struct kp__die die = {off, 0, cudie, 0};
				kp__dwarf_walk_ranges(&c, &die, &a, a.has_lo ? a.lo : 0, &rb);
				for (size_t i = 0; i < rb.n && c.st == KP_OK; i++) {
					if (rb.v[i].lo >= rb.v[i].hi)
						continue;
					if (!kp_vec_reserve((void **)&raw, &capraw, nraw + 1, sizeof *raw))
						c.st = KP_ERR_NOMEM;
					else
						raw[nraw++] = (struct arange){rb.v[i].lo, rb.v[i].hi, idx};
				}
			}
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
	st = kp__dwarf_build_index(&d->c, aa, naa, &raw, &nraw, &capraw);
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

/* kp_dwarf_open's handle before its index (open_index): the sections and
 * libdwarf's reading of them. */
static kp_status open_sections(const kp_macho_slice *slice, kp_dwarf **out, kp_error *err)
{
	*out = NULL;
	if (!slice || !slice->data || slice->size < 4)
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "no Mach-O slice");
	kp_dwarf *d = calloc(1, sizeof *d);
	if (!d)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	d->c.slice = slice;
	d->is64 = slice->is64;
	/* MH_MAGIC(_64) stored in the file's byte order: cf/ce first = little */
	d->little = slice->data[0] == 0xcf || slice->data[0] == 0xce;
	d->sects[0].name = "";
	bool have_info = false;
	d->nsects = kp__dwarf_sections(slice, d->sects, &have_info);
	d->lists.little = d->little;
	d->lists.asz = d->is64 ? 8 : 4;
	if (!kp_macho_section(slice, "__DWARF", "__debug_rnglists", &d->lists.rng,
	                      &d->lists.rng_size, NULL))
		d->lists.rng = NULL;
	if (!kp_macho_section(slice, "__DWARF", "__debug_addr", &d->lists.addr,
	                      &d->lists.addr_size, NULL))
		d->lists.addr = NULL;
	d->linesrc.little = d->little;
	d->linesrc.asz = d->lists.asz;
	if (!kp_macho_section(slice, "__DWARF", "__debug_line", &d->linesrc.line,
	                      &d->linesrc.line_size, NULL))
		d->linesrc.line = NULL;
	if (!kp_macho_section(slice, "__DWARF", "__debug_str", &d->linesrc.str,
	                      &d->linesrc.str_size, NULL))
		d->linesrc.str = NULL;
	if (!kp_macho_section(slice, "__DWARF", "__debug_line_str", &d->linesrc.line_str,
	                      &d->linesrc.line_str_size, NULL))
		d->linesrc.line_str = NULL;
	for (unsigned i = 1; i < d->nsects; i++) {
		const struct sect *sc = &d->sects[i];
		const unsigned char **p = NULL;
		uint64_t *sz = NULL;
		if (!strcmp(sc->name, ".debug_info"))
			p = &d->info.info, sz = &d->info.info_size;
		else if (!strcmp(sc->name, ".debug_abbrev"))
			p = &d->info.abbrev, sz = &d->info.abbrev_size;
		else if (!strcmp(sc->name, ".debug_str"))
			p = &d->info.str, sz = &d->info.str_size;
		else if (!strcmp(sc->name, ".debug_str_offsets"))
			p = &d->info.str_offsets, sz = &d->info.str_offsets_size;
		else if (!strcmp(sc->name, ".debug_line_str"))
			p = &d->info.line_str, sz = &d->info.line_str_size;
		else if (!strcmp(sc->name, ".debug_addr"))
			p = &d->info.addr, sz = &d->info.addr_size;
		else if (!strcmp(sc->name, ".debug_ranges"))
			p = &d->info.ranges, sz = &d->info.ranges_size;
		if (p) {
			*p = sc->data;
			*sz = sc->size;
		}
	}
	d->info.little = d->little;
	if (!have_info) {
		free(d);
		return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "no DWARF in the %s slice",
		                    slice->arch ? slice->arch : "?");
	}
	d->iface.KP_LDW_IFACE_OBJ = d;
	d->iface.KP_LDW_IFACE_METHODS = &oa_methods;

	/* Process-wide switch: libdwarf keeps no record of what it hands out,
	 * so everything must be dealloc'd here (40% faster decoding).  Not on
	 * 20210528: its dwarf_child and dwarf_siblingof_b return
	 * DW_DLE_LEB_IMPROPER from inside their LEB macro without freeing the
	 * DIE they allocated, and no caller can free what it never got (issue
	 * 32 item 0); there libdwarf's own record reclaims it at dwarf_finish. */
#if KP_LDW_0X
	dwarf_set_de_alloc_flag(0);
#endif
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
	*out = d;
	return KP_OK;
}

kp_status kp_dwarf_open(const kp_macho_slice *slice, kp_dwarf **out, kp_error *err)
{
	kp_status st = open_sections(slice, out, err);
	if (st == KP_OK && (st = open_index(*out, err)) != KP_OK)
		kp_dwarf_close(out);
	return st;
}

/* The clone's index is d's, copied (reading the unit headers again costs a
 * thread's start): each unit as open_index left it, none decoded. */
kp_status kp_dwarf_clone(const kp_dwarf *d, kp_dwarf **out, kp_error *err)
{
	kp_status st = open_sections(d->c.slice, out, err);
	if (st != KP_OK)
		return st;
	kp_dwarf *c = *out;
	if (!kp__dwarf_copy_index(&c->c, &d->c)) {
		kp_dwarf_close(out);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	c->units_skipped = d->units_skipped;
	c->libdwarf_only = d->libdwarf_only;
	c->c.syms = d->c.syms;
	return KP_OK;
}

void kp__dwarf_libdwarf_only(kp_dwarf *d, bool on)
{
	d->libdwarf_only = on;
}

size_t kp_dwarf_units_skipped(const kp_dwarf *d)
{
	return d ? d->units_skipped : 0;
}

void kp_dwarf_close(kp_dwarf **pd)
{
	if (!pd || !*pd)
		return;
	kp_dwarf *d = *pd;
	if (d->dbg)
		kp_ldw_object_finish(d->dbg);
	kp__dwarf_die_free(&d->c);
	kp__dwarf_cache_free(&d->c);
	free(d);
	*pd = NULL;
}
