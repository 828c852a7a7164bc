/* kpt_worker.h: the symbolication worker thread (worker.c).  The UI never
 * touches DWARF.  Call order: kpt_worker_start once, then any number of
 * kpt_worker_request and (when kpt_worker_fd is readable) kpt_worker_poll
 * on the UI thread, then kpt_worker_stop once.  A request retains its
 * document until the worker is done with it, so the worker reads the
 * report the UI already holds (no index connection, no re-parse). */
#ifndef KPT_WORKER_H
#define KPT_WORKER_H

#include <stdbool.h>
#include <stddef.h>

#include "kp_disasm.h"
#include "kp_error.h"
#include "kpt_doc.h"

typedef struct kpt_app kpt_app;
typedef struct kpt_worker kpt_worker;

kp_status kpt_worker_start(kpt_app *app, kp_error *err);
void kpt_worker_stop(kpt_app *app);
int kpt_worker_fd(const kpt_app *app);   /* -1 when none */
/* Queues frames [lo,hi) of a thread; visible requests go first.  Frames
 * must be marked PENDING by the caller. */
void kpt_worker_request(kpt_app *app, kpt_doc *d, size_t proc, size_t thread,
                        size_t lo, size_t hi, bool visible);
/* Queues a search for the dSYM (or binary) of every image of d, answered
 * into d->dsyms; once per document. */
void kpt_worker_find_dsyms(kpt_app *app, kpt_doc *d);
/* A disassembly asked of the worker (kpt_worker_disasm, kp_disasm.h): the
 * worker fills status, d and err on its thread; the UI reads them only once
 * done is set, which kpt_worker_poll does on the UI thread.  Two
 * references, the asker's and the request's, each dropped on the UI thread
 * with kpt_disasm_job_release (the last one frees d). */
typedef struct kpt_disasm_job {
	int refs;
	bool done;
	kp_status status;
	kp_disasm d;
	kp_error err;
	size_t count;
} kpt_disasm_job;

/* About count instructions around frame `frame` of a thread, served before
 * any frame request; without a worker the job comes back done, failed. */
kpt_disasm_job *kpt_worker_disasm(kpt_app *app, kpt_doc *d, size_t proc, size_t thread,
                                  size_t frame, size_t count);
void kpt_disasm_job_release(kpt_disasm_job **j);

/* The symbol sources' warnings delivered so far by kpt_worker_poll, oldest
 * first, each "FILE: reason" (a --dsym of another build, a --kernelcache
 * that cannot be read), as the message line said them; untrusted text,
 * owned by the worker until kpt_worker_stop.  UI thread; NULL past the
 * last. */
size_t kpt_worker_nwarnings(const kpt_app *app);
const char *kpt_worker_warning(const kpt_app *app, size_t i);

/* drains results into the documents; KPT_REDRAW when anything arrived */
unsigned kpt_worker_poll(kpt_app *app);

#endif
