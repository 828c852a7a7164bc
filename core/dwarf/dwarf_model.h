/* dwarf_model.h: the libdwarf-free half of kp_dwarf, shared by dwarf.c
 * (the only file that includes or calls libdwarf: the oracle and fallback),
 * the hand-written fast path (dwarf_die.c: .debug_info; dwarf_line.c:
 * .debug_line; dwarf_ranges.c: range lists and .debug_addr), dwarf_walk.c
 * (the one DIE walk, over either DIE reader), dwarf_cache.c (the compact
 * per-CU cache, string interning and the address -> CU table) and
 * dwarf_lookup.c (lookups and boundary enumeration over the cached arrays).
 * Calls point one way, down this list: dwarf.c; dwarf_die.c; dwarf_walk.c
 * and dwarf_line.c; dwarf_ranges.c; dwarf_cache.c (the walk reaches its
 * reader only through the reader's ops table).  The cache owns every array
 * and string below, freed by kp__dwarf_cache_free. */
#ifndef KP_DWARF_MODEL_H
#define KP_DWARF_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_htab.h"
#include "kp_dwarf.h"
#include "kp_strbuf.h"
#include "kp_vec.h"

/* ---- sections ---------------------------------------------------------- */

#define KP__DWARF_NSECT 10

struct sect {
	const char *name; /* ELF-style name libdwarf looks for */
	const unsigned char *data;
	uint64_t size, addr, offset;
};

/* Fills out[1..] with the __DWARF sections of slice libdwarf may see (out[0]
 * is libdwarf's dummy, left alone) and returns the count including out[0];
 * *have_info tells whether __debug_info is among them.  out has room for
 * KP__DWARF_NSECT + 1.  Never .debug_rnglists or .debug_loclists. */
unsigned kp__dwarf_sections(const kp_macho_slice *slice, struct sect *out, bool *have_info);

/* ---- dwarf_ranges.c: DWARF 5 range lists and .debug_addr ------------------ */

/* What reading a DWARF 5 range list of one unit needs: the sections (NULL
 * when absent) and the unit's DW_AT_rnglists_base and DW_AT_addr_base
 * (UINT64_MAX when absent); asz is the address size. */
struct kp__dwarf_lists {
	const unsigned char *rng, *addr;
	uint64_t rng_size, addr_size, rnglists_base, addr_base;
	unsigned asz;
	bool little;
};

/* Entry idx of a .debug_addr (addr, size; addr NULL when absent) from a
 * unit's DW_AT_addr_base (UINT64_MAX when absent), entries of asz (4 or 8)
 * bytes; false when any of that is missing or out of bounds. */
bool kp__dwarf_addrx(const unsigned char *addr, uint64_t size, uint64_t base, unsigned asz,
                     bool little, uint64_t idx, uint64_t *out);

struct rngbuf;
/* DWARF <= 4: the .debug_ranges list (sec, size) at off, read to its
 * end-of-list entry, appended to out relative to base (what libdwarf's
 * dwarf_get_ranges_b gives dwarf.c's die_ranges).  1 done, 0 absent or
 * malformed (the caller leaves the DIE to libdwarf), -2 out of memory. */
int kp__dwarf_ranges_v4(const unsigned char *sec, uint64_t size, bool little, unsigned asz,
                        uint64_t off, uint64_t base, struct rngbuf *out);
/* Appends the ranges of the list at val (DW_FORM_sec_offset: an offset in
 * .debug_rnglists; indexed, DW_FORM_rnglistx: an index into the unit's
 * offsets array) to out, offset pairs relative to base.  0 when read to
 * DW_RLE_end_of_list, -1 when malformed (every read is bounds-checked;
 * what came before stays in out), -2 out of memory. */
int kp__dwarf_rnglist(const struct kp__dwarf_lists *l, uint64_t val, bool indexed, uint64_t base,
                      struct rngbuf *out);

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
	size_t hint; /* the last lookup's answer (kp_vec_upper_u64_near) */
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
	uint64_t rnglists_base, addr_base; /* UINT64_MAX: absent */
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
	/* dwarf_die.c's reading of the unit: ustate 0 not read yet, 1 read, -1
	 * left to libdwarf; abtab indexes the cache's abbreviation tables */
	size_t row_hint, seq_hint; /* the last line_for answer (dwarf_lookup.c) */
	int8_t ustate;
	uint8_t offsz, asz;
	uint32_t abtab;
	uint64_t uend, str_offsets_base, u_addr_base;
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


/* .debug_aranges as read: [lo,hi) -> the CU DIE at cu_die. */
struct aarange {
	uint64_t lo, hi, cu_die;
};

struct rng {
	uint64_t lo, hi;
};

struct rngbuf {
	struct rng *v;
	size_t n, cap;
};

/* kp_dwarf_lookup's last answer from a function, for the next address in
 * [lo, hi) (where the unit, the function and the innermost inlined
 * subroutine are the same): asked with the same max and under the same
 * symbol, it differs only in its first frame's file, line and column,
 * which come from the line table. */
#define KP__DWARF_MEMO 8
struct kp__dwarf_memo {
	bool valid;
	uint64_t lo, hi;
	struct cu *cu;
	const char *sym;   /* kp_macho_symbol_near's answer then (NULL: none) */
	size_t max, n;
	kp_symframe f[KP__DWARF_MEMO];
};

/* Everything kp_dwarf caches, none of it libdwarf's. */
struct kp__dwarf_cache {
	struct kp__dwarf_memo memo;
	bool same_calls; /* the last lookup was answered from memo (kp_dwarf_same_calls) */
	const kp_macho_slice *slice;
	kp_macho *syms; /* optional symbol table (kp_dwarf_use_symbols) */
	size_t sym_hint; /* this handle's own (kp__macho_symbol_span): handles on one
	                  * kp_macho look up its symbols at once */
	/* kp_macho's answer for every address in [sym_lo, sym_hi) (empty: ask
	 * it): sym_at, the name of kp__macho_symbol_span's last answer */
	uint64_t sym_lo, sym_hi;
	const char *sym_at;

	struct cu *cus;
	size_t ncus;
	struct arange *ar;
	size_t nar, ar_hint;
	bool *ar_last; /* ar[i] is its unit's last range (kp_dwarf_window_done) */

	struct strblock *blocks;
	const char **strs;      /* the interned strings, in the order met */
	size_t nstr, capstr;
	kp_htab stridx;         /* i + 1 of each strs[i], by its bytes */

	struct nameent *names;
	size_t nnames, capnames;

	struct symname *syms_names; /* nlist name -> printed name */
	size_t nsymn, capsymn;

	struct kp__abtab *abtabs; /* dwarf_die.c's parsed .debug_abbrev tables */
	size_t nabtabs, capabtabs;
	size_t nfast, nslow; /* units and functions decoded by dwarf_die.c, by libdwarf */
	bool eager;          /* units decode their functions too (kp_dwarf_window) */
};

/* The attributes of a DIE that the lookup needs (read by dwarf.c through
 * libdwarf, or by dwarf_die.c).  Strings point into the mapped sections. */
struct dieattrs {
	bool has_lo, has_hi, hi_is_addr, has_ranges, has_origin, has_spec;
	bool has_call_file, has_stmt_list;
	uint64_t stmt_list;
	uint64_t lo, hi, ranges_off, origin, spec;
	unsigned ranges_form;
	uint64_t rnglists_base, addr_base; /* UINT64_MAX: absent */
	const char *linkage, *name, *comp_dir;
	uint64_t call_file, call_line, call_column;
};

/* ---- dwarf.c: the libdwarf side ------------------------------------------ */

struct kp__dwarf_cache *kp__dwarf_cache(kp_dwarf *d);
/* Decode on first hit; they set state to 1, or to -1 with err set. */
kp_status kp__dwarf_cu_decode(kp_dwarf *d, struct cu *cu, kp_error *err);
kp_status kp__dwarf_func_decode(kp_dwarf *d, struct cu *cu, struct func *fn, kp_error *err);
/* The function name of sr, resolved (and remembered) on first use; NULL with
 * *st set on failure, NULL alone when DWARF names none. */
const char *kp__dwarf_sub_name(kp_dwarf *d, struct cu *cu, struct sub *sr, kp_status *st);
/* on: decode with libdwarf alone, never dwarf_die.c (tests compare both). */
void kp__dwarf_libdwarf_only(kp_dwarf *d, bool on);

/* ---- dwarf_cache.c ------------------------------------------------------- */

const char *kp__dwarf_intern_n(struct kp__dwarf_cache *d, const char *s, size_t len);
const char *kp__dwarf_intern(struct kp__dwarf_cache *d, const char *s);
const char *kp__dwarf_name_from_raw(struct kp__dwarf_cache *d, const char *raw);
/* The slot for off (off UINT64_MAX when empty); NULL when out of memory. */
struct nameent *kp__dwarf_name_slot(struct kp__dwarf_cache *d, uint64_t off);
/* Forgets the names resolved by offset and by symbol (a sweep past a unit
 * needs them no more: the tables stay a unit's size, in cache); asked
 * again, they are resolved again, alike. */
void kp__dwarf_names_forget(struct kp__dwarf_cache *d);
bool kp__dwarf_rng_push(struct rngbuf *b, uint64_t lo, uint64_t hi);
/* The name of a line-table file entry (name, not NULL; its include
 * directory dir, NULL when none, at index diridx), as llvm's
 * getFileNameByIndex(AbsoluteFilePath) gives it: name as it is when
 * absolute; else comp_dir (unless dir is absolute, or it is DWARF 5's
 * directory 0), dir, name.  Interned into *out, NULL when that comes out
 * empty; pb is scratch.  false: out of memory. */
bool kp__dwarf_file_name(struct kp__dwarf_cache *d, kp_sb *pb, const char *comp_dir, bool v5,
                         const char *name, const char *dir, uint64_t diridx, const char **out);
int32_t kp__dwarf_amap_find(struct amapv *m, uint64_t addr);
bool kp__dwarf_amap_add(struct amapv *m, uint64_t lo, uint64_t hi, uint32_t sub);
/* Indexing: a concrete subprogram with ranges rb (none: not indexed). */
bool kp__dwarf_cu_add_func(struct cu *cu, uint64_t die_off, const struct rngbuf *rb);
/* The subprogram or inlined subroutine at die_off (attributes a, enclosing
 * sub parent) appended to fn->subs with ranges rb; *idx gets its index. */
bool kp__dwarf_func_add_sub(struct func *fn, const struct dieattrs *a, uint64_t die_off,
                            int32_t parent, bool is_subprogram, const struct rngbuf *rb,
                            uint32_t *idx);
/* Line-table rows in order; sb tracks the open sequence. */
struct seqbuild {
	size_t cap, first;
	bool open;
};
bool kp__dwarf_cu_end_seq(struct cu *cu, struct seqbuild *sb, size_t ri);
/* Appends a row; cu->rows has room for every row of the line table.  Inline:
 * a row passed to a call went through the stack, and reading it back as
 * one 16-byte load from its narrower stores stalled the line decode. */
static inline bool kp__dwarf_cu_add_row(struct cu *cu, struct seqbuild *sb, uint64_t addr,
                                        uint32_t line, uint32_t column, uint32_t file,
                                        bool endseq)
{
	size_t ri = cu->nrows++;
	cu->rows[ri].addr = addr;
	cu->rows[ri].line = line;
	cu->rows[ri].column = column;
	cu->rows[ri].file = file;
	if (!sb->open) {
		sb->open = true;
		sb->first = ri;
	}
	return !endseq || kp__dwarf_cu_end_seq(cu, sb, ri);
}
void kp__dwarf_cu_rows_done(struct cu *cu, struct seqbuild *sb);
void kp__dwarf_sort_seqs(struct cu *cu);
/* After decoding with status st: shrink and state 1, else free, state -1 and
 * err set. */
kp_status kp__dwarf_func_done(struct func *fn, kp_status st, kp_error *err);
kp_status kp__dwarf_cu_done(struct cu *cu, kp_status st, kp_error *err);
/* Clears what a failed fast decode left in cu or fn. */
void kp__dwarf_cu_reset(struct cu *cu);
void kp__dwarf_func_reset(struct func *fn);
void kp__dwarf_sort_u64(uint64_t *v, size_t n);
bool kp__dwarf_has_u64(const uint64_t *sorted, size_t n, uint64_t key);
/* Adds aranges to raw (for the CUs that exist) and builds d->ar from raw. */
kp_status kp__dwarf_build_index(struct kp__dwarf_cache *d, const struct aarange *aa,
                                size_t naa, struct arange **raw, size_t *nraw,
                                size_t *capraw);
/* d's address index and units (each unit's place, version and bases:
 * what open_index reads; nothing decoded) copied into to, which has none;
 * false when out of memory. */
bool kp__dwarf_copy_index(struct kp__dwarf_cache *to, const struct kp__dwarf_cache *d);
/* Frees what the cache holds but dwarf_die.c's abbreviation tables
 * (kp__dwarf_die_free): dwarf_cache.c calls nothing above it. */
void kp__dwarf_cache_free(struct kp__dwarf_cache *d);

/* ---- dwarf_line.c ---------------------------------------------------------- */

/* The sections a line table reads (NULL when absent); asz is the unit's
 * address size. */
struct kp__dwarf_linesrc {
	const unsigned char *line, *str, *line_str;
	uint64_t line_size, str_size, line_str_size;
	unsigned asz;
	bool little;
};
/* Decodes the line table at .debug_line offset off into cu (files, rows,
 * seqs, file_base; cu->comp_dir set before): 1 done; 0 a table this reader
 * leaves to libdwarf (cu untouched); -2 out of memory (cu half filled: the
 * caller fails the unit). */
int kp__dwarf_lines_fast(struct kp__dwarf_cache *c, const struct kp__dwarf_linesrc *src,
                         uint64_t off, struct cu *cu);

/* ---- dwarf_walk.c: the one DIE walk, over either DIE reader ---------------- */

/* A DIE as a reader hands it to the walk. */
struct kp__die {
	uint64_t off;  /* in .debug_info */
	unsigned tag;  /* 0 when unknown: the walk passes it by */
	void *h;       /* the reader's: libdwarf's Dwarf_Die, dwarf_die.c's abbreviation */
	int state;     /* the reader's */
};

struct kp__dwarf_walk;
struct kp__mark;
/* A DIE reader: dwarf_die.c's own (.debug_info read directly) or dwarf.c's
 * (libdwarf).  A call that fails sets w->st: KP_ERR_NOMEM, or KP_ERR_FORMAT
 * for malformed DWARF (dwarf_die.c: anything it leaves to libdwarf). */
struct kp__dwarf_dieops {
	/* die's first child into *out; false when it has none (or on failure).
	 * Called once per DIE, after attrs if at all. */
	bool (*child)(struct kp__dwarf_walk *w, struct kp__die *die, struct kp__die *out);
	/* The sibling after die, whose subtree the walk is done with. */
	bool (*next)(struct kp__dwarf_walk *w, struct kp__die *die, struct kp__die *out);
	void (*release)(struct kp__dwarf_walk *w, struct kp__die *die);
	/* die's attributes, right after the walk got die; index: what indexing
	 * a subprogram needs (the pc range, or all when it has DW_AT_ranges). */
	void (*attrs)(struct kp__dwarf_walk *w, struct kp__die *die, bool index,
	              struct dieattrs *a);
	/* DWARF <= 4: the .debug_ranges list at off, relative to base, into out. */
	void (*ranges_v4)(struct kp__dwarf_walk *w, struct kp__die *die, uint64_t off,
	                  uint64_t base, struct rngbuf *out);
	/* Optional (NULL: the reader cannot go back, and no walk is eager):
	 * where the reader is, right after die's attributes, into *m; back:
	 * there again, as if die's children had not been read. */
	void (*mark)(struct kp__dwarf_walk *w, struct kp__die *die, struct kp__mark *m);
	void (*back)(struct kp__dwarf_walk *w, struct kp__die *die, const struct kp__mark *m);
};

/* A reader's place in its stream (dieops.mark). */
struct kp__mark {
	uint64_t pos;
	int state;
};

/* One walk: the reader, what it fills, how it went. */
struct kp__dwarf_walk {
	const struct kp__dwarf_dieops *ops;
	void *rd; /* the reader's state */
	const struct kp__dwarf_lists *lists; /* sections; bases are the unit's */
	struct kp__dwarf_cache *c;
	struct cu *cu;
	struct func *fn;  /* NULL while indexing the CU's subprograms */
	struct rngbuf rb; /* scratch, the caller frees rb.v */
	kp_status st;
	/* indexing a unit, each subprogram's subtree is decoded on the way
	 * (its func made ready as kp__dwarf_func_decode makes it) instead of
	 * skipped: a sweep over every address (kp_dwarf_window) reads each
	 * DIE once.  Needs the reader's mark and back; a subtree that fails
	 * is gone back over and skipped, left to the lazy decode, which then
	 * meets the same failure and says so as before. */
	bool eager;
};

/* The CU DIE's attributes into *a and the fields of w->cu they set, then
 * the unit's subprogram index. */
void kp__dwarf_walk_unit(struct kp__dwarf_walk *w, struct kp__die *cudie, struct dieattrs *a);
/* w->fn's subtree from its DIE: fn->subs and fn->map. */
void kp__dwarf_walk_func(struct kp__dwarf_walk *w, struct kp__die *die);
/* The ranges of a DIE with attributes a: DW_AT_low_pc/high_pc, else
 * DW_AT_ranges (DWARF <= 4 .debug_ranges through the reader, relative to
 * base; DWARF 5 range lists through kp__dwarf_rnglist), into out. */
void kp__dwarf_walk_ranges(struct kp__dwarf_walk *w, struct kp__die *die,
                           const struct dieattrs *a, uint64_t base, struct rngbuf *out);

/* ---- dwarf_die.c: .debug_info read without libdwarf ------------------------ */

/* The sections dwarf_die.c reads (NULL when absent). */
struct kp__dwarf_infosrc {
	const unsigned char *info, *abbrev, *str, *str_offsets, *line_str, *addr, *ranges;
	uint64_t info_size, abbrev_size, str_size, str_offsets_size, line_str_size, addr_size,
		ranges_size;
	bool little;
};

/* Each answers 1 when done, -2 when out of memory, and 0 for anything it
 * leaves to libdwarf (a form, attribute or layout it does not read, any
 * read out of bounds, anything libdwarf might judge differently): then the
 * unit or function is as before the call and dwarf.c decodes it with
 * libdwarf, so every answer and every error stays libdwarf's. */
/* kp__dwarf_cu_decode's work: the CU DIE, its subprogram index, its line
 * table (kp__dwarf_lines_fast); cu->state is left to the caller. */
int kp__dwarf_cu_decode_fast(struct kp__dwarf_cache *c, const struct kp__dwarf_infosrc *src,
                             const struct kp__dwarf_lists *lists,
                             const struct kp__dwarf_linesrc *lsrc, struct cu *cu);
/* kp__dwarf_func_decode's work: fn's subtree into fn->subs and fn->map. */
int kp__dwarf_func_decode_fast(struct kp__dwarf_cache *c, const struct kp__dwarf_infosrc *src,
                               const struct kp__dwarf_lists *lists, struct cu *cu,
                               struct func *fn);
/* The attributes of the DIE at .debug_info offset off (for names). */
int kp__dwarf_die_attrs_fast(struct kp__dwarf_cache *c, const struct kp__dwarf_infosrc *src,
                             uint64_t off, struct dieattrs *a);
/* Frees the abbreviation tables (before kp__dwarf_cache_free). */
void kp__dwarf_die_free(struct kp__dwarf_cache *c);

#endif
