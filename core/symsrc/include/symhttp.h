/* symhttp.h: kpsymsrc's public header: fetching a file by Mach-O UUID from
 * symbol servers over HTTP(S), the one file that includes libcurl
 * (symhttp.c), which loads it with dlopen on the first fetch so no run that
 * fetches nothing pays for it.
 *
 * A server is a base URL and a layout (Sentry symbolicator's names) that
 * turns a UUID into the path of its DWARF file under that URL:
 *   native    67E9/247C/814E/392B/A027/DBDE6748FCBF       (lldb's file-mapped tree)
 *   unified   67/e9247c814e392ba027dbde6748fcbf/debuginfo
 *   symstore  _.dwarf/mach-uuid-sym-67e9247c814e392ba027dbde6748fcbf/_.dwarf
 * and an optional bearer token, sent as "Authorization: Bearer" (never to
 * another host a redirect leads to) and never written anywhere: every
 * message and trail text goes through kp__symhttp_mask.
 *
 * Downloads land in a folder of their own (<cache dir>/downloads): the
 * body goes to a temporary file there, at most max_bytes, and is renamed to
 * <dir>/<UUID> only when it is a Mach-O holding that UUID; a 404 or 410,
 * or a file that holds another UUID, is remembered per server and UUID
 * (<dir>/negative/<server key>-<UUID>) for negative_ttl_s seconds, when
 * that server is not asked again for that UUID.  Timeouts, refused
 * connections, 5xx and truncated bodies are not remembered.
 *
 * The downloads hold at most cap_bytes in all (issue 32): a transfer that
 * would pass the cap first removes the least recently used downloads (by
 * access time, which kp__symhttp_cached sets on every use, so a noatime
 * mount still orders them), never one this process answered with or made,
 * nor one used by another since it was listed, and is refused when nothing
 * else is left.  A temporary is named
 * .<UUID>.<pid>-<n>.tmp; one whose writer is gone (killed by a signal) is
 * removed when a fetch starts and by kp__symhttp_downloads, one whose
 * writer lives never.
 *
 * Ownership: servers and jobs are the caller's; everything written into a
 * job is in its fixed buffers.  Thread-safe apart from the jobs themselves
 * (libcurl is loaded once). */
#ifndef KP_SYMHTTP_H
#define KP_SYMHTTP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "kp_error.h"

typedef enum kp__symhttp_layout {
	KP__SYMHTTP_NATIVE,
	KP__SYMHTTP_UNIFIED,
	KP__SYMHTTP_SYMSTORE,
} kp__symhttp_layout;

/* "native" (or "lldb"), "unified", "symstore"; false for anything else. */
bool kp__symhttp_layout_parse(const char *name, kp__symhttp_layout *out);
const char *kp__symhttp_layout_name(kp__symhttp_layout l);

typedef struct kp__symhttp_server {
	char url[2048];             /* base URL, no trailing slash */
	kp__symhttp_layout layout;
	char token[1024];           /* "" : none */
	char key[13];               /* 12 hex digits of the URL's SHA-1: its negative cache */
} kp__symhttp_server;

/* Fills srv from a base URL (trailing slashes dropped) and layout; no token. */
void kp__symhttp_server_init(kp__symhttp_server *srv, const char *url, kp__symhttp_layout layout);

/* The URL of uuid (canonical) under srv, as sent (unmasked). */
void kp__symhttp_url(const kp__symhttp_server *srv, const char *uuid, char *out, size_t size);

/* text with srv's token and any password in a URL's user info
 * ("https://u:PW@host") replaced by "***", into out (truncating). */
void kp__symhttp_mask(const kp__symhttp_server *srv, const char *text, char *out, size_t size);

/* What came of one job. */
typedef enum kp__symhttp_result {
	KP__FETCH_FOUND,      /* downloaded and verified: path */
	KP__FETCH_NEGATIVE,   /* the negative cache says the server has none */
	KP__FETCH_MISSING,    /* the server said 404 / 410 (now remembered) */
	KP__FETCH_REFUSED,    /* a body that is not the file: truncated, too big, wrong UUID */
	KP__FETCH_FAILED,     /* no answer: connection, timeout, 5xx, libcurl absent */
} kp__symhttp_result;

typedef struct kp__symhttp_job {
	const char *uuid;                 /* canonical (kp_uuid_canon) */
	const kp__symhttp_server *srv;
	/* filled by kp__symhttp_fetch */
	kp__symhttp_result result;
	char path[4200];                  /* KP__FETCH_FOUND: <dir>/<UUID> */
	char url[2100];                   /* the URL asked, masked */
	char said[600];                   /* one line, masked: what came of it */
} kp__symhttp_job;

typedef void (*kp__symhttp_progress_fn)(void *ctx, const char *what, size_t done, size_t total);

typedef struct kp__symhttp_opts {
	const char *dir;            /* the download folder (created when missing) */
	long timeout_s;             /* a whole transfer */
	long connect_timeout_s;
	uint64_t max_bytes;         /* a body larger is refused (at most cap_bytes) */
	uint64_t cap_bytes;         /* all downloads together */
	long negative_ttl_s;
	unsigned parallel;          /* transfers at once (at least 1) */
	long min_speed, min_speed_s; /* a transfer under min_speed bytes/s for min_speed_s
	                               seconds ends (0: never) */
	long deadline_s;            /* not 0: timeout_s is what is left of a report's
	                               deadline of this many seconds (said so) */
	kp__symhttp_progress_fn progress;   /* bytes so far over all jobs; may be NULL */
	void *ctx;
	const atomic_bool *cancel;  /* set (by any thread): transfers end now; may be NULL */
} kp__symhttp_opts;

/* The settings from the environment into o (dir and the callbacks are
 * left alone): KPBROWSE_SYMBOL_SERVER_TIMEOUT (s, default
 * 120), _MAX_MB (per file, default 1024, at most the cap), _CACHE_MB (all
 * downloads, default 2048), _NEGATIVE_TTL (s, default 3600), _PARALLEL
 * (default 4), _MIN_SPEED (BYTES[/SECONDS], default 1024/10; 0 none). */
void kp__symhttp_opts_env(kp__symhttp_opts *o);

/* Each finished download in dir (<dir>/<UUID>, a regular file) to fn;
 * temporaries of writers still alive to fn with uuid NULL.  Temporaries of
 * dead writers (and of an older kpbrowse's name, .<UUID>.XXXXXX, not
 * written for stale_s seconds) are removed first, *removed counting them.
 * KP_OK with nothing told when dir does not exist. */
typedef void (*kp__symhttp_dl_fn)(void *ctx, const char *path, const char *uuid,
                                  const struct stat *st);
kp_status kp__symhttp_downloads(const char *dir, long stale_s, kp__symhttp_dl_fn fn, void *ctx,
                                size_t *removed, kp_error *err);

/* The downloaded file of uuid in dir when there is one (a regular file):
 * true and its path in out; its access time set to now (a use), and never
 * evicted by this process from then on. */
bool kp__symhttp_cached(const char *dir, const char *uuid, char *out, size_t size);

/* Runs jobs[0..n), up to o->parallel transfers at once; every job gets a
 * result and a said.  A job whose negative cache entry is fresh is not
 * sent.  KP_OK unless nothing could be tried at all (libcurl cannot be
 * loaded, the folder cannot be made): then every job is KP__FETCH_FAILED
 * saying why, and err says it too. */
kp_status kp__symhttp_fetch(const kp__symhttp_opts *o, kp__symhttp_job *jobs, size_t n,
                            kp_error *err);

/* Whether libcurl can be loaded; why not into why (when non-NULL). */
bool kp__symhttp_available(char *why, size_t size);

#endif
