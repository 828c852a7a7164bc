/* kpt_doc.h: open report documents and their per-frame symbol results
 * (doc.c).  The app owns a kpt_docs set; a document is shared by every
 * view showing that report and by the worker's queued requests: each holds
 * one reference (kpt_doc_acquire or kpt_doc_retain), dropped with
 * kpt_doc_release.  References change on the UI thread only.  The report
 * (d->r) is immutable once loaded, so the worker may read it while it holds
 * a reference; d->syms is the UI thread's alone.  A document being loaded
 * off the UI thread (kpt_loader.h) has r NULL until it arrives, and
 * load_error set instead when it could not be loaded. */
#ifndef KPT_DOC_H
#define KPT_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_index.h"
#include "kp_report.h"

typedef struct kpt_symline {
	char *function, *file;   /* malloc'd, NULL when unknown */
	char *source;            /* where file is now, as the dsymForUUID that named the
	                            dSYM remaps it (malloc'd); NULL: file as it is */
	unsigned line;
} kpt_symline;

enum { KPT_SYM_NONE = 0, KPT_SYM_PENDING, KPT_SYM_DONE };

typedef struct kpt_sym {
	int state;               /* KPT_SYM_* */
	int status;              /* kp_sym_status when DONE */
	kpt_symline *lines;      /* innermost first */
	size_t nlines;
	char *note;              /* "no dSYM for ...", symtab note */
} kpt_sym;

/* Frees s's lines and note and zeroes it (state NONE). */
void kpt_sym_clear(kpt_sym *s);

typedef struct kpt_doc {
	unsigned serial;         /* unique per open; worker results name it */
	int64_t id;              /* index id, -1 when loaded from a file */
	char *path;
	kp_report *r;            /* NULL while loading */
	char *load_error;        /* malloc'd: why the load failed (r stays NULL) */
	kpt_sym ***syms;         /* [process][thread] -> frame array, lazily */
	char **dsyms;            /* per image: the dSYM/binary found for its UUID, "" when
	                            none, NULL not known yet (kpt_worker_find_dsyms) */
	char **dsym_said;        /* per image with none found: where the symbol
	                            sources looked and what they said (else NULL) */
	bool dsyms_asked;
	int refs;
} kpt_doc;

typedef struct kpt_docs {
	kpt_doc **v;
	size_t n;
	unsigned next_serial;
} kpt_docs;

/* Loads (or shares) report id from db, or the file path when id < 0; the
 * caller holds one reference.  NULL with err set when it cannot be read. */
kpt_doc *kpt_doc_acquire(kpt_docs *docs, kpi_db *db, int64_t id, const char *path, kp_error *err);
/* The open document for id (or path when id < 0) with one more reference,
 * else NULL. */
kpt_doc *kpt_doc_find(kpt_docs *docs, int64_t id, const char *path);
/* A new document holding r (owned from now on), or loading when r is NULL;
 * the caller holds its one reference. */
kpt_doc *kpt_doc_add(kpt_docs *docs, int64_t id, const char *path, kp_report *r);
/* Gives a loading document its report (owned from now on). */
void kpt_doc_set_report(kpt_doc *d, kp_report *r);
void kpt_doc_retain(kpt_doc *d);
/* Drops one reference (*d becomes NULL); the last one frees the document. */
void kpt_doc_release(kpt_docs *docs, kpt_doc **d);
kpt_doc *kpt_doc_by_serial(const kpt_docs *docs, unsigned serial);
/* The frame results of one thread, allocated on first use; NULL when
 * proc/thread are out of range.  nframes + 1 slots: the last is the
 * thread's continuation (where a parked thread resumes), asked for as
 * frame nframes. */
kpt_sym *kpt_doc_syms(kpt_doc *d, size_t proc, size_t thread);
/* Frees the set itself; every document must have been released. */
void kpt_docs_free(kpt_docs *docs);

#endif
