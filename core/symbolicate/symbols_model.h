/* symbols_model.h: private to core/symbolicate/: what the files of kpsymbolicate
 * share: the record of one opened file and the kp_symbols handle itself
 * (kp_symbols.h).  The files call downwards only, in this order:
 *
 *   disasm_frame.c     a frame's disassembly (kp_disasm_frame);
 *   symbols.c          the handle; opens files and owns their records;
 *   symbols_sources.c  asks the symbol-source table (symsrc.h) for a UUID's
 *                      files: candidates, `where`'s trail, prefetch;
 *   symbols_look.c     names an address inside one opened file (the ladder:
 *                      DWARF or symbol cache, symbol table, ipsw map,
 *                      signatures, function starts);
 *   symbols_open.c     what answers in a record: its DWARF, or the symbol
 *                      cache built on a side thread;
 *   symbols_cache.c    the cache folder and `kpbrowse cache`, without a
 *                      kp_symbols.
 *
 * Ownership: records, names and warnings belong to the kp_symbols and die
 * with kp_symbols_free; a kp_symresult's strings are borrowed from it.
 * Not thread-safe. */
#ifndef KP_SYMBOLS_MODEL_H
#define KP_SYMBOLS_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_symbols.h"
#include "dsym.h"
#include "symsrc.h"
#include "symcache.h"
#include "symmap.h"
#include "sigfile.h"
#include "sigmatch.h"

struct side_build;   /* symbols_open.c: a symbol cache being built on a thread */

typedef struct kp__opened {
	char uuid[37];
	char *path;
	kp_macho *m;
	const kp_macho_slice *slice;
	kp_dwarf *d;
	kp_symcache *sc;      /* when set, answers instead of d (then d is NULL) */
	bool cache_wanted;    /* kp_symbols_cache_step should build sc */
	char cache_path[4200];
	uint64_t dwarf_size;  /* the key of that cache */
	int64_t dwarf_mtime_ns;
	bool failed;          /* could not be opened or verified: do not retry */
	char why[120];
	size_t dwarf_answers; /* lookups the DWARF answered (batch mode) */
	kp_symmap *map;       /* a kernelcache's <path>.symbols.json (ipsw), once tried */
	bool map_tried;
	bool map_borrowed;    /* map is another entry's of the same cache: not freed here */
	kp_symmap *sig;       /* names from signature files (sigmatch.h), once tried */
	bool sig_tried;
	struct side_build *side;
	bool borrowed;        /* m is another record's: a kernelcache entry that
	                         kp_symbols_lookup_file found an address in */
} kp__opened;

struct kp_symbols {
	kp_dsym_index *dx;
	kp__symsrc *src;      /* where files are looked for, in order (symsrc.h) */
	kp__symsrc_trail trail;   /* the last kp_symbols_where's */
	kp_symwhere_step *wsteps;
	const char **wremap;
	kp__opened *open;
	size_t nopen, ocap;
	char **owned;         /* demangled symtab names */
	size_t nowned, owcap;
	char build[32];
	size_t dsyms_opened, symcaches_used, symcaches_built, dwarf_opened;
	char symcache_dir[4096]; /* "" : no symbol cache */
	int symcache_mode;       /* KPBROWSE_SYMCACHE: -1 never, 1 always, 0 by size */
	bool batch;              /* build wanted caches on a side thread (opts.batch) */
	/* the last kp_symbols_lookup_file: its path and arch as given and the
	 * record they resolved to, so a batch on one file stats it once */
	char *last_path, *last_arch;
	size_t last_open;
	char warning[300];       /* the first part of an opened file left out */
	char warning_file[4096]; /* and that file */
	kp_symbols_progress_fn progress;
	void *progress_ctx;
	/* signature files (sigfile.h): every *.json under the folders, read
	 * when an entry first wants names from them */
	struct sigent {
		char *path;
		int major;
		kp__sigfile *f;    /* NULL: not read yet, or left out */
		bool tried;
	} *sigs;
	size_t nsigs, sigcap;
	bool sigs_walked, sig_missing_said;
	unsigned darwin[3];      /* the report's Darwin version; [0] 0: unknown */
	kp__sigstats sigstats;   /* summed over the entries matched */
	struct warn {
		char *file, *msg;
	} *warns;                /* after warning[]: one per signature file and problem */
	size_t nwarns, wcap;
	const kp_thread *sig_thread;  /* kp_symbols_sig_name's last: its images prefetched */
	struct named {            /* per kp__symsrc_named_root, for kp_symbols_check_named */
		bool said;            /* warned of already */
		bool readable;        /* holds a file with a UUID */
	} *named;
	size_t nnamed;
};

/* Appends a warning (kp_symbols_warning_at); strings copied. */
void kp__symbols_add_warning(kp_symbols *s, const char *file, const char *msg);

/* ---- symbols_open.c ---- */

/* Opens o's DWARF (none: the symbol table still serves). */
void kp__symbols_open_dwarf(kp_symbols *s, kp__opened *o);
/* Starts building o's symbol cache on a side thread (batch mode). */
void kp__symbols_side_start(kp_symbols *s, kp__opened *o);
/* Once o's side build is done, answers from the cache it wrote. */
void kp__symbols_side_adopt(kp_symbols *s, kp__opened *o);
/* Waits for o's side build, if any, and frees it; true when it wrote the
 * cache. */
bool kp__symbols_side_join(kp__opened *o);

/* ---- symbols_look.c ---- */

/* Names addr (o's own address) inside o: the ladder; out->status too. */
kp_sym_status kp__symbols_look(kp_symbols *s, kp__opened *o, uint64_t addr, kp_symresult *out);
/* A name found by matching rather than read from the binary: ipsw's map,
 * signatures, func_<start>. */
bool kp__symresult_guessed(const kp_symresult *r);
/* The target signature files name for sl: a kernelcache entry's id, a
 * plain kernel (MH_EXECUTE) com.apple.kernel; NULL for anything else. */
const char *kp__symbols_sig_target(const kp_macho_slice *sl);
/* The signature files that apply to target (the report's Darwin version,
 * when set), read on first use: at most max of them into v, borrowed from
 * s; how many. */
size_t kp__symbols_sig_files(kp_symbols *s, const char *target, const kp__sigfile **v, size_t max);

/* ---- symbols_sources.c ---- */

/* The skip-th candidate file for uuid (canonical) over every source in
 * order; borrowed from the source table.  NULL after the last. */
const char *kp__symbols_candidate(kp_symbols *s, const char *uuid, size_t skip);

#endif
