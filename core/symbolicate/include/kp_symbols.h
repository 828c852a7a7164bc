/* kp_symbols.h: symbolicating report frames: finding dSYMs by UUID,
 * the address arithmetic of panic-formats.md section 3, and the lookups.
 *
 * Ownership: a kp_symbols owns every dSYM it opened and every string it
 * returns (function and file names, paths); they stay valid until
 * kp_symbols_free(), which clears the caller's pointer.  A kp_symbols is
 * not thread-safe: use one per thread (the TUI's worker owns its own).
 *
 * Nothing is read until a frame asks: a dSYM is located on the first lookup
 * of its UUID and opened lazily; search roots are walked once and what they
 * hold is remembered in a cache file, revalidated by size and mtime. */
#ifndef KP_SYMBOLS_H
#define KP_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_disasm.h"
#include "kp_dwarf.h"
#include "kp_error.h"
#include "kp_report.h"

typedef struct kp_symbols kp_symbols;

typedef struct kp_symbols_opts {
	const char *const *paths;  /* --dsym: bundles, DWARF/Mach-O files, folders, KDKs */
	size_t npaths;
	const char *const *kernelcaches; /* --kernelcache: files or folders of them, asked
	                              before KPBROWSE_KERNELCACHE_PATH and the config's */
	size_t nkernelcaches;
	bool no_env;               /* ignore the environment's and the config file's symbol
	                              sources (KPBROWSE_DSYM_PATH, file-mapped trees,
	                              dsymForUUID) */
	bool no_system;            /* skip KDKs, /Volumes/KernelDebugKit, Spotlight,
	                              this Mac's kernelcaches */
	bool no_shell;             /* run no dsymForUUID command (dsym-for-uuid itself) */
	const char *cache_dir;     /* NULL: KPBROWSE_CACHE_DIR, else the platform cache dir;
	                              "" disables the cache */
	bool batch;                /* many lookups to come (lookup, show): build wanted
	                              symbol caches on a side thread (see below) */
	const char *const *signatures;  /* --signatures: folders of symbolicator's
	                                   signature files, before KPBROWSE_SIGNATURES
	                                   and the config's Signatures lines */
	size_t nsignatures;
} kp_symbols_opts;

kp_status kp_symbols_new(const kp_symbols_opts *opts, kp_symbols **out, kp_error *err);

void kp_symbols_free(kp_symbols **s);

/* What was left out of the first file opened so far that could only be
 * read in part (a kernelcache's fileset entry that lies), *file naming it;
 * NULL when none was. */
const char *kp_symbols_warning(const kp_symbols *s, const char **file);
/* Every warning so far, oldest first, i from 0 (the one above first): a
 * file partly read, a signature file or folder left out (the byte where
 * its JSON breaks), signatures unusable without Capstone; NULL past the
 * last.  Strings owned by s. */
const char *kp_symbols_warning_at(const kp_symbols *s, size_t i, const char **file);

/* The sources the user named outright (--dsym, --kernelcache) that cannot
 * serve r, each one warning (kp_symbols_warning_at, once per path and s):
 * a file no Mach-O with a UUID can be read from (the parser's reason: cut
 * short, compressed in a way kpbrowse cannot read, not Mach-O), a folder
 * holding none, or, with other_build, files of another build (their UUIDs
 * match no image of r: for one report, not for a scan of many, where a
 * path serves some reports only).  Walks those paths when not walked yet. */
void kp_symbols_check_named(kp_symbols *s, const kp_report *r, bool other_build);

/* Tells the symboliser which report the next lookups are for, so KDKs can be
 * picked by build and SoC. */
void kp_symbols_set_report(kp_symbols *s, const kp_report *r);

typedef enum kp_sym_status {
	KP_SYM_OK = 0,        /* frames[] holds the answer */
	KP_SYM_NO_IMAGE,      /* the frame names no image (or no offset) */
	KP_SYM_NO_UUID,       /* its image has no UUID */
	KP_SYM_NO_DSYM,       /* no dSYM or binary with that UUID was found */
	KP_SYM_NOT_FOUND,     /* the dSYM has nothing at that address */
	KP_SYM_ERROR,         /* the dSYM is malformed: see msg */
} kp_sym_status;

#define KP_SYM_MAX_FRAMES 32

typedef struct kp_symresult {
	kp_sym_status status;
	const char *uuid;            /* the image's UUID (report-owned) */
	const char *path;            /* the DWARF or Mach-O file used */
	const char *source;          /* how the name was found: "dwarf" (a dSYM or
	                                binary's DWARF: exact), "symtab" (the nearest
	                                symbol of the binary or kernelcache entry),
	                                "map" (ipsw's symbols.json beside a cache),
	                                "signature" (a kernelcache entry's function
	                                named by symbolicator's signature files:
	                                the strings it references, its callers),
	                                "function-starts" (func_<start>: a function
	                                LC_FUNCTION_STARTS bounds, no name), or NULL */
	bool kernelcache;            /* the name is a kernelcache's (any source but
	                                "dwarf"): present on some Macs only, so
	                                never a group key (kp_symbols_sig_name) */
	bool has_lookup;
	uint64_t lookup_address;     /* what was looked up (after the return-address step back) */
	uint64_t symbol_address;     /* seg + offset, unadjusted: what the user is shown */
	kp_symframe frames[KP_SYM_MAX_FRAMES];   /* innermost first */
	size_t nframes;
	char msg[160];
} kp_symresult;

/* True when r's name is only the nearest one (symtab, function starts):
 * r->msg then holds the offset into it, "+0x1c", shown after the name. */
bool kp_symresult_approximate(const kp_symresult *r);
/* Where an approximate name came from, as kpbrowse shows it beside the
 * name: "symbol table", "ipsw map", "signature", "function starts"; NULL for a
 * dSYM's exact answer. */
const char *kp_symresult_source_label(const kp_symresult *r);

/* Symbolicates frame i of t.  Every frame but the innermost (i > 0) is a
 * return address: its line is looked up at address-1 (x86_64) or address-4
 * (arm64).  Returns the status also stored in out->status. */
kp_sym_status kp_symbols_frame(kp_symbols *s, const kp_report *r, const kp_thread *t,
                               size_t i, kp_symresult *out);

/* Looks addr up as given in the file at path (no return-address step back):
 * `kpbrowse lookup`.  arch NULL: the only slice.  In a whole kernelcache,
 * the entry whose segments hold addr (kp_macho_entry_at) answers, as for a
 * frame of that entry. */
kp_status kp_symbols_lookup_file(kp_symbols *s, const char *path, const char *arch,
                                 uint64_t addr, kp_symresult *out, kp_error *err);

/* A kp_sig_symbol_fn (kp_signature.h) over a kp_symbols passed as ctx: the
 * concrete function holding frame i of t (inlined calls are folded into it,
 * so the name is stable across inlining decisions), or NULL.  The string is
 * owned by the kp_symbols. */
const char *kp_symbols_sig_name(void *ctx, const kp_report *r, const kp_thread *t, size_t i);

/* The path of the DWARF or Mach-O file holding uuid (any case, dashes
 * optional), a dSYM preferred over a plain binary; NULL when none is found. */
const char *kp_symbols_find(kp_symbols *s, const char *uuid);
/* Every file holding uuid, one per skip (0, 1, ...) in kp_symbols_find's
 * order (dSYMs first, then binaries); NULL past the last.  Callers confirm
 * LC_UUID when they open one. */
const char *kp_symbols_find_nth(kp_symbols *s, const char *uuid, size_t skip);

/* Where the file for a UUID comes from (`kpbrowse symbols where`): the
 * symbol sources are asked in their one order (README "Symbols: where
 * dSYMs are found") until one gives a file that holds the UUID (LC_UUID
 * confirmed); each source asked, and each file refused, is one step.
 * Strings are owned by s, valid until the next kp_symbols_where or
 * kp_symbols_free; they may come from folders, files or programs outside
 * kpbrowse: sanitise before printing. */
typedef struct kp_symwhere_step {
	const char *source;   /* the source's name: "--dsym", "KDKs", ... */
	const char *tried;    /* what it looked at ("" when nothing) */
	const char *said;     /* what came of it */
	bool found;           /* this step gave the answer */
} kp_symwhere_step;

typedef struct kp_symwhere {
	const kp_symwhere_step *steps;
	size_t nsteps;
	const char *path;     /* the file holding the UUID; NULL when none was found */
	const char *source;   /* the source it came from */
	const char *arch;     /* the architecture of its slice with that UUID */
	bool is_dsym;         /* a dSYM's DWARF file (else a binary: symtab only) */
	const char *exec;     /* a binary with the UUID from the same source, or NULL */
	/* what a dsymForUUID command said of the sources, else NULL / 0:
	 * DBGSourcePath, DBGBuildSourcePath, and DBGSourcePathRemapping (with
	 * DBGVersion >= 3) as remap[2i] (build-time prefix) -> remap[2i+1] */
	const char *source_path, *build_source_path;
	const char *const *remap;
	size_t nremap;
} kp_symwhere;

/* KP_OK when found, KP_ERR_NOTFOUND when not (the steps say why),
 * KP_ERR_USAGE when uuid is not one (any case, dashes optional). */
kp_status kp_symbols_where(kp_symbols *s, const char *uuid, kp_symwhere *out, kp_error *err);

/* Where a build-time source path is now, as the dsymForUUID answer in w
 * says (each DBGSourcePathRemapping pair, then DBGBuildSourcePath ->
 * DBGSourcePath; a prefix matches whole path components): true and the
 * path in out, false (out untouched) when nothing maps it. */
bool kp_symwhere_map_source(const kp_symwhere *w, const char *file, char *out, size_t size);

/* The dSYM (else the kext binary) of kext bundle id bundle, found under
 * the search roots by its Info.plist, its folder name or its kext bundle
 * (dsym.h), then the system roots; its UUID (the slice for arch, e.g.
 * "x86_64", or the only slice when arch is NULL or absent) is written to
 * uuid.  NULL when none is found. */
const char *kp_symbols_find_bundle(kp_symbols *s, const char *bundle, const char *arch, char uuid[37]);

/* --load BUNDLE_ID=0xADDR (as kextstat prints a kext's id and address):
 * false when spec is not that form (then nothing is written). */
bool kp_symbols_parse_load(const char *spec, char *bundle, size_t size, uint64_t *addr);

/* Applies one --load spec to r: kp_report_set_load with the UUID of the
 * dSYM kp_symbols_find_bundle finds (s NULL: none).  *found tells whether a
 * dSYM was found.  KP_ERR_USAGE for a malformed spec, KP_ERR_NOMEM. */
kp_status kp_symbols_apply_load(kp_symbols *s, kp_report *r, const char *spec, bool *found,
                                kp_error *err);

typedef struct kp_symbols_stats {
	size_t roots_walked, roots_from_cache, files_probed, dsyms_opened;
	/* symbol caches (<cache dir>/symcache/<UUID>.kpsym) answered from and
	 * built, and DWARF files opened through libdwarf */
	size_t symcaches_used, symcaches_built, dwarf_opened;
} kp_symbols_stats;
kp_symbols_stats kp_symbols_get_stats(const kp_symbols *s);

/* Symbol cache: a compact file per UUID, <cache dir>/symcache/<UUID>.kpsym,
 * answering exactly as the DWARF does, used instead of the DWARF while the
 * DWARF file keeps its size and mtime (damaged, stale or foreign files are
 * ignored).  Lookups never build one: the first answer always comes from
 * a valid cache or straight from the DWARF.  A DWARF file of at least
 * KP_SYMCACHE_MIN_SIZE bytes opened without a valid cache is remembered as
 * wanting one, which kp_symbols_cache_step builds (the TUI's worker when
 * idle; `kpbrowse cache build` builds them on demand).  The cache dir is
 * cache_dir, KPBROWSE_CACHE_DIR or the platform one as above; with
 * cache_dir "" only an explicit KPBROWSE_CACHE_DIR enables it.
 * KPBROWSE_SYMCACHE=always wants one whatever the size, =never disables
 * the cache.  With opts.batch, a file wanting a cache whose DWARF has
 * answered KP_SYMCACHE_BATCH lookups gets it built on a thread of its own
 * while the DWARF goes on answering; lookups switch to it once it is
 * written, and kp_symbols_free waits for an unfinished build, so the next
 * process starts warm.  A short batch never pays for a build. */
#define KP_SYMCACHE_MIN_SIZE (4u << 20)
#define KP_SYMCACHE_BATCH 1000

/* The cache folder s uses ("" : none); s NULL: the default one. */
void kp_symbols_cache_dir(const kp_symbols *s, char *buf, size_t size);

/* The DWARF path of the next file wanting a cache, or NULL. */
const char *kp_symbols_cache_pending(const kp_symbols *s);

typedef struct kp_symbols_cache_cb {
	void (*progress)(void *ctx, size_t done, size_t total); /* per mille; may be NULL */
	bool (*cancel)(void *ctx);   /* true: stop now (tried again on a later step) */
	void *ctx;
} kp_symbols_cache_cb;

/* Builds, writes (atomically) and starts using the cache of the next file
 * wanting one; KP_OK with nothing done when none does.  A half-built cache
 * is never written nor used.  On the thread that uses s. */
kp_status kp_symbols_cache_step(kp_symbols *s, const kp_symbols_cache_cb *cb, kp_error *err);

/* `kpbrowse cache`: the cache folder cache_dir ("" or NULL: the default
 * one), without a kp_symbols.  build: every Mach-O slice with DWARF and a
 * UUID under path (a .dSYM, a DWARF file, a folder or a KDK, symlinks not
 * followed below it), fn told of each (status KP_OK or why not). */
typedef struct kp_symcache_entry {
	const char *uuid, *arch, *source;  /* source: the DWARF file ("" unknown) */
	uint64_t size;                     /* of the cache file */
	int64_t built_ns;                  /* its mtime */
	double seconds;                    /* build time (build only) */
	bool stale;                        /* list: source gone or changed */
	kp_status status;
	const char *msg;                   /* why not, when status != KP_OK */
} kp_symcache_entry;
typedef void (*kp_symcache_entry_fn)(void *ctx, const kp_symcache_entry *e);
kp_status kp_symcache_build_path(const char *cache_dir, const char *path, kp_symcache_entry_fn fn,
                                 void *ctx, kp_error *err);
/* list: every cache file; unreadable or damaged ones with status FORMAT. */
kp_status kp_symcache_list(const char *cache_dir, kp_symcache_entry_fn fn, void *ctx,
                           kp_error *err);
/* clear: the caches of uuids[0..n) (any case, dashes optional), or all when
 * n is 0; *removed counts the files removed. */
kp_status kp_symcache_clear(const char *cache_dir, const char *const *uuids, size_t n,
                            size_t *removed, kp_error *err);

/* This Mac's kernelcache, kept for its panics (issue 22): after an OS update
 * the kernelcache that names a panic's Apple frames is gone, so when a
 * report indexed on the Mac that wrote it has the running kernelcache's
 * kernel UUID, a copy is kept under <cache dir>/kernelcaches/<UUID>.kc
 * (content-addressed by the kernel's UUID; the file as it was, IM4P or
 * not), and every kp_symbols searches that folder after the --dsym paths.
 *
 * kp_kernelcache_running: the running kernelcache's path (Apple silicon:
 * Preboot's com.apple.kernelcaches/kernelcache; Intel: the boot kernel
 * collection), or KPBROWSE_RUNNING_KERNELCACHE when set (tests, or another
 * Mac's cache); KP_ERR_NOTFOUND elsewhere.  *kernel_uuid gets the UUID of
 * its com.apple.kernel entry (or of the file itself). */
#define KP_KERNELCACHE_KEEP_MAX (1024u << 20)
kp_status kp_kernelcache_running(char *path, size_t size, char kernel_uuid[37], kp_error *err);
/* Copies kc_path to the cache folder (cache_dir NULL: the default) as
 * kernelcaches/<kernel_uuid>.kc unless a copy is there: *kept says whether
 * this call made it, path gets the copy's path. */
kp_status kp_kernelcache_keep(const char *cache_dir, const char *kc_path, const char *kernel_uuid,
                              bool *kept, char *path, size_t size, kp_error *err);
/* Every kept kernelcache: uuid, size, built_ns (when kept), source "" */
kp_status kp_kernelcache_list(const char *cache_dir, kp_symcache_entry_fn fn, void *ctx,
                              kp_error *err);

/* Every symbol-server download (<cache dir>/downloads/<UUID>): uuid, size,
 * built_ns (when downloaded), source its path.  Temporaries of writers
 * that are gone are removed first.  *bytes: what the folder holds (live
 * temporaries too), *cap: the cap over it all (KPBROWSE_SYMBOL_SERVER_CACHE_MB). */
kp_status kp_download_list(const char *cache_dir, kp_symcache_entry_fn fn, void *ctx,
                           uint64_t *bytes, uint64_t *cap, kp_error *err);

/* Progress of a long walk or dSYM load, for the TUI's status line; may be
 * called from kp_symbols_frame.  what is a path; done/total are counts. */
typedef void (*kp_symbols_progress_fn)(void *ctx, const char *what, size_t done, size_t total);
void kp_symbols_set_progress(kp_symbols *s, kp_symbols_progress_fn fn, void *ctx);
/* Safe from any thread while another uses s: dsymForUUID programs and
 * symbol-server downloads running end at once (within 50 ms) and none
 * starts after (a quitting TUI, a cancelled `w`, does not wait out a slow
 * source).  Lookups after it go on from local sources only. */
void kp_symbols_cancel(kp_symbols *s);

/* dsymForUUID programs and symbol servers (README "Symbols: where dSYMs
 * are found"): a lookup asks them one UUID at a time.  These ask them for
 * many at once, for the UUIDs no source before them holds and that were
 * not asked for yet: the programs 4 at a time, then the servers in
 * parallel (KPBROWSE_SYMBOL_SERVER_PARALLEL transfers), all within one
 * deadline (KPBROWSE_SYMBOL_DEADLINE, default 30 s, 0 none); the lookups
 * and kp_symbols_where calls that follow answer from what came of each
 * UUID (a timeout, the deadline passing) for the rest of s's life.
 * Progress (bytes, what: the URL or "N downloads") goes to the
 * kp_symbols_set_progress callback.  Blocks until every ask ended: call it
 * where the lookups would block anyway (the TUI's worker, not its UI
 * thread; kp_symbols_cancel from another ends it).  How many files were
 * downloaded, or found downloaded before. */
size_t kp_symbols_prefetch(kp_symbols *s, const char *const *uuids, size_t n);
/* The same for the images of thread t's frames, and of every thread's
 * frames in r (`kpbrowse show`). */
size_t kp_symbols_prefetch_thread(kp_symbols *s, const kp_report *r, const kp_thread *t);
size_t kp_symbols_prefetch_report(kp_symbols *s, const kp_report *r);

/* Disassembly around frame i of t (kp_disasm.h: count/2 instructions
 * before its address, the one holding it, the rest after; fewer at a
 * section's edge), t's frames symbolicated by s after
 * kp_symbols_set_report: the frame's image and unslid address come from
 * its lookup, the bytes from its dSYM, the binary beside it or another
 * file with its UUID the symbol sources give (disasm_frame.c).  Errors as
 * kp_disasm_image; KP_ERR_NOTFOUND too when the frame has no image, UUID
 * or dSYM.  Uses s on its thread. */
kp_status kp_disasm_frame(kp_symbols *s, const kp_report *r, const kp_thread *t, size_t i,
                          size_t count, kp_disasm *out, kp_error *err);

#endif
