/* symhttp.c: symbol servers over HTTP(S) (symhttp.h), the one file that
 * includes libcurl.
 *
 * libcurl is not linked: it is loaded (dlopen) on the first fetch, so a run
 * with no symbol server configured, and every run that finds its files
 * locally, never maps it (issue 25).  A build without libcurl's headers
 * (KP_CURL=OFF, or AUTO without them) keeps the same API and says so when a
 * server is asked. */
#include "symhttp.h"
#include "symhttp_store.h"
#include "kp_fs.h"
#include "kp_lex.h"
#include "kp_macho.h"
#include "kp_sha1.h"
#include "kp_vec.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- servers, URLs, masking ---- */

static const char *const layout_names[] = {
	[KP__SYMHTTP_NATIVE] = "native",
	[KP__SYMHTTP_UNIFIED] = "unified",
	[KP__SYMHTTP_SYMSTORE] = "symstore",
};

bool kp__symhttp_layout_parse(const char *name, kp__symhttp_layout *out)
{
	for (size_t i = 0; i < sizeof layout_names / sizeof *layout_names; i++)
		if (strcmp(name, layout_names[i]) == 0) {
			*out = (kp__symhttp_layout)i;
			return true;
		}
	if (strcmp(name, "lldb") == 0) {
		*out = KP__SYMHTTP_NATIVE;
		return true;
	}
	return false;
}

const char *kp__symhttp_layout_name(kp__symhttp_layout l)
{
	return (unsigned)l < sizeof layout_names / sizeof *layout_names ? layout_names[l] : "?";
}

void kp__symhttp_server_init(kp__symhttp_server *srv, const char *url, kp__symhttp_layout layout)
{
	memset(srv, 0, sizeof *srv);
	size_t n = strlen(url);
	while (n > 1 && url[n - 1] == '/')
		n--;
	snprintf(srv->url, sizeof srv->url, "%.*s", (int)n, url);
	srv->layout = layout;
	char hex[41];
	kp_sha1_hex(srv->url, strlen(srv->url), hex);
	snprintf(srv->key, sizeof srv->key, "%.12s", hex);
}

/* The 32 hex digits of a canonical UUID, upper or lower case. */
static void uuid_hex(const char *uuid, bool lower, char hex[33])
{
	size_t n = 0;
	for (const char *p = uuid; *p && n < 32; p++)
		if (*p != '-')
			hex[n++] = lower && *p >= 'A' && *p <= 'F' ? (char)(*p - 'A' + 'a') : *p;
	hex[n] = '\0';
}

void kp__symhttp_url(const kp__symhttp_server *srv, const char *uuid, char *out, size_t size)
{
	char hex[33];
	switch (srv->layout) {
	case KP__SYMHTTP_UNIFIED:
		uuid_hex(uuid, true, hex);
		snprintf(out, size, "%s/%.2s/%s/debuginfo", srv->url, hex, hex + 2);
		break;
	case KP__SYMHTTP_SYMSTORE:
		uuid_hex(uuid, true, hex);
		snprintf(out, size, "%s/_.dwarf/mach-uuid-sym-%s/_.dwarf", srv->url, hex);
		break;
	case KP__SYMHTTP_NATIVE:
	default:
		uuid_hex(uuid, false, hex);
		snprintf(out, size, "%s/%.4s/%.4s/%.4s/%.4s/%.4s/%s", srv->url, hex, hex + 4, hex + 8,
		         hex + 12, hex + 16, hex + 20);
		break;
	}
}

/* Appends s[0..n) to out at *o, keeping room for the NUL. */
static void put(char *out, size_t size, size_t *o, const char *s, size_t n)
{
	while (n-- && *o + 1 < size)
		out[(*o)++] = *s++;
}

void kp__symhttp_mask(const kp__symhttp_server *srv, const char *text, char *out, size_t size)
{
	if (!size)
		return;
	size_t o = 0, tl = srv ? strlen(srv->token) : 0;
	for (const char *p = text; *p;) {
		if (tl && strncmp(p, srv->token, tl) == 0) {
			put(out, size, &o, "***", 3);
			p += tl;
			continue;
		}
		/* scheme://user:PASSWORD@host: the password goes */
		if (p[0] == ':' && p[1] == '/' && p[2] == '/') {
			const char *auth = p + 3, *end = auth + strcspn(auth, "/?# \t\"'");
			const char *at = NULL, *colon = NULL;
			for (const char *q = auth; q < end; q++)
				if (*q == '@')
					at = q;
			for (const char *q = auth; at && q < at && !colon; q++)
				if (*q == ':')
					colon = q;
			if (colon) {
				put(out, size, &o, p, (size_t)(colon + 1 - p));
				put(out, size, &o, "***", 3);
				p = at;
				continue;
			}
		}
		put(out, size, &o, p++, 1);
	}
	out[o] = '\0';
}

/* ---- settings ---- */

/* A positive whole number from the environment, else def. */
static long env_long(const char *name, long def, long max)
{
	const char *v = getenv(name);
	char *end;
	long n = v ? strtol(v, &end, 10) : 0;
	return v && end != v && !*end && n > 0 && n <= max ? n : def;
}

void kp__symhttp_opts_env(kp__symhttp_opts *o)
{
	o->timeout_s = env_long("KPBROWSE_SYMBOL_SERVER_TIMEOUT", 120, 86400);
	o->connect_timeout_s = o->timeout_s < 10 ? o->timeout_s : 10;
	o->cap_bytes = (uint64_t)env_long("KPBROWSE_SYMBOL_SERVER_CACHE_MB", 2048, 1L << 24) << 20;
	o->max_bytes = (uint64_t)env_long("KPBROWSE_SYMBOL_SERVER_MAX_MB", 1024, 1L << 20) << 20;
	if (o->max_bytes > o->cap_bytes)
		o->max_bytes = o->cap_bytes;
	o->negative_ttl_s = env_long("KPBROWSE_SYMBOL_SERVER_NEGATIVE_TTL", 3600, 365L * 86400);
	o->parallel = (unsigned)env_long("KPBROWSE_SYMBOL_SERVER_PARALLEL", 4, 32);
	/* "BYTES[/SECONDS]": a transfer under BYTES a second for SECONDS ends */
	const char *v = getenv("KPBROWSE_SYMBOL_SERVER_MIN_SPEED");
	o->min_speed = 1024;
	o->min_speed_s = 10;
	if (v && v[0]) {
		char *end;
		long b = strtol(v, &end, 10), t = o->min_speed_s;
		if (end != v && *end == '/')
			t = strtol(end + 1, &end, 10);
		if (!*end && b >= 0 && b <= (1L << 30) && t > 0 && t <= 86400)
			o->min_speed = b, o->min_speed_s = t;
	}
}

/* ---- the negative cache: <dir>/negative/<server key>-<UUID>, its mtime
 * the time the server said it has none ---- */

static void negative_path(const kp__symhttp_opts *o, const kp__symhttp_job *j, char *out,
                          size_t size)
{
	snprintf(out, size, "%s/negative/%s-%s", o->dir, j->srv->key, j->uuid);
}

/* Seconds the entry of j has left, 0 when none or expired; a refusal it
 * remembers ("refused: the file holds UUID ...") into why, else "". */
static long negative_left(const kp__symhttp_opts *o, const kp__symhttp_job *j, char *why,
                          size_t wsize)
{
	char p[4400];
	struct stat st;
	why[0] = '\0';
	negative_path(o, j, p, sizeof p);
	if (stat(p, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	FILE *f = fopen(p, "r");
	if (f) {
		char line[2800];
		const char *r = fgets(line, sizeof line, f) ? strstr(line, " refused: ") : NULL;
		if (r)
			snprintf(why, wsize, "%.*s", (int)strcspn(r + 1, "\n"), r + 1);
		fclose(f);
	}
	long age = (long)(time(NULL) - st.st_mtime);
	if (age < 0)
		age = 0;
	return age < o->negative_ttl_s ? o->negative_ttl_s - age : 0;
}

#ifdef KP_HAVE_CURL   /* used only by the transfers */
static void negative_add(const kp__symhttp_opts *o, const kp__symhttp_job *j, const char *why)
{
	char p[4400], line[2800];
	negative_path(o, j, p, sizeof p);
	int n = snprintf(line, sizeof line, "%s %s\n", j->url, why);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof line)   /* a long URL: the line still ends */
		line[sizeof line - 2] = '\n';
	if (kp_fs_mkdirs_for(p, 0700, NULL) == KP_OK)
		kp_fs_write_atomic(p, line, strlen(line), NULL);
}
#endif

/* "N min", "N s", "N h" for a trail */
static void say_span(char *out, size_t size, long secs)
{
	if (secs >= 7200)
		snprintf(out, size, "%ld h", secs / 3600);
	else if (secs >= 120)
		snprintf(out, size, "%ld min", secs / 60);
	else
		snprintf(out, size, "%ld s", secs);
}

/* Sets what came of j, text masked. */
static void job_say(kp__symhttp_job *j, kp__symhttp_result r, const char *text)
{
	j->result = r;
	kp__symhttp_mask(j->srv, text, j->said, sizeof j->said);
}

#ifdef KP_HAVE_CURL   /* used only by the transfers */
/* Checks that the file at tmp holds j's UUID; else says why (refused). */
static bool verify(kp__symhttp_job *j, const char *tmp, uint64_t got, bool *wrong_uuid)
{
	kp_macho *m = NULL;
	kp_error err;
	char line[700];
	*wrong_uuid = false;
	if (kp_macho_open(tmp, &m, &err) != KP_OK) {
		if (err.byte >= 0)
			snprintf(line, sizeof line, "refused: not a Mach-O file of this UUID (%.200s, byte %ld of %" PRIu64 ")",
			         err.msg, err.byte, got);
		else
			snprintf(line, sizeof line, "refused: not a Mach-O file of this UUID (%.200s; %" PRIu64 " bytes)",
			         err.msg, got);
		job_say(j, KP__FETCH_REFUSED, line);
		return false;
	}
	bool ok = kp_macho_find_uuid(m, j->uuid) != NULL;
	if (!ok) {
		const kp_macho_slice *sl = kp_macho_slice_at(m, 0);
		snprintf(line, sizeof line, "refused: the file holds UUID %s, not this one",
		         sl && sl->has_uuid ? sl->uuid : "(none)");
		job_say(j, KP__FETCH_REFUSED, line);
		*wrong_uuid = true;
	}
	kp_macho_close(&m);
	return ok;
}
#endif

#ifdef KP_HAVE_CURL
/* Our own calls to curl_easy_setopt go through a pointer: no type-checking
 * macros over the name. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

#include "kp_dl.h"

/* libcurl's functions this file calls, filled by curl_load; each must be
 * listed here (libcurl is not linked). */
#define CURL_FUNCS(X) \
	X(curl_global_init) X(curl_easy_init) X(curl_easy_setopt) X(curl_easy_getinfo) \
	X(curl_easy_cleanup) X(curl_easy_strerror) X(curl_multi_init) X(curl_multi_add_handle) \
	X(curl_multi_remove_handle) X(curl_multi_perform) X(curl_multi_wait) \
	X(curl_multi_info_read) X(curl_multi_cleanup) X(curl_slist_append) X(curl_slist_free_all)
#define CURL_MEMBER(f) __typeof__(f) *f;
static struct { CURL_FUNCS(CURL_MEMBER) } C;
#undef CURL_MEMBER

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static bool curl_loaded;
static char curl_why[400];

/* KPBROWSE_LIBCURL when set (a test's way to make it absent), else the
 * library the build found, then the run-time names. */
static const char *const curl_names[] = {
#ifdef KP_CURL_PATH
	KP_CURL_PATH,
#endif
#ifdef __APPLE__
	"/usr/lib/libcurl.4.dylib", "libcurl.4.dylib", "libcurl.dylib",
#else
	"libcurl.so.4", "libcurl.so",
#endif
};

#define CURL_ENTRY(f) {#f, (void **)&C.f},
static const kp_dl_sym curl_syms[] = {CURL_FUNCS(CURL_ENTRY)};
#undef CURL_ENTRY

static void curl_load_once(void)
{
	const char *env = getenv("KPBROWSE_LIBCURL"), *tried, *e;
	const char *const only[] = {env};
	void *h = env && env[0] ? kp_dl_open(only, 1, &tried, &e)
	                        : kp_dl_open(curl_names, sizeof curl_names / sizeof *curl_names, &tried, &e);
	if (!h) {
		snprintf(curl_why, sizeof curl_why,
		         "cannot load libcurl (%.100s): %.200s; install it (Debian: apt install libcurl4)",
		         tried ? tried : "", e);
		return;
	}
	const char *missing = kp_dl_syms(h, curl_syms, sizeof curl_syms / sizeof *curl_syms);
	if (missing) {
		snprintf(curl_why, sizeof curl_why, "cannot load libcurl: %s is missing", missing);
		return;
	}
	if (C.curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(curl_why, sizeof curl_why, "libcurl would not start (curl_global_init)");
		return;
	}
	curl_loaded = true;
}

bool kp__symhttp_available(char *why, size_t size)
{
	pthread_once(&curl_once, curl_load_once);
	if (!curl_loaded && why)
		snprintf(why, size, "%s", curl_why[0] ? curl_why : "cannot load libcurl");
	return curl_loaded;
}

/* One transfer. */
struct xfer {
	kp__symhttp_job *job;
	const kp__symhttp_opts *o;
	struct kp__symhttp_budget *b;
	CURL *h;
	struct curl_slist *hdr;
	FILE *fp;
	char tmp[4400];
	uint64_t got;
	uint64_t reserved;       /* of b: at least got, the Content-Length once known */
	unsigned evicted;        /* downloads removed to make room for it */
	curl_off_t now, total;   /* for progress */
	bool over;               /* the body passed max_bytes */
	bool full;               /* no room under the cap */
	char errbuf[CURL_ERROR_SIZE];
};

/* Room under the cap for want bytes of x's body in all. */
static bool reserve(struct xfer *x, uint64_t want)
{
	if (want <= x->reserved)
		return true;
	if (!kp__symhttp_budget_take(x->b, want - x->reserved, &x->evicted)) {
		x->full = true;
		return false;
	}
	x->reserved = want;
	return true;
}

static size_t on_write(char *p, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t n = size * nmemb;
	if (x->got + n > x->o->max_bytes) {
		x->over = true;
		return 0;   /* aborts the transfer */
	}
	/* room for the whole body once its length is known (the headers came
	 * before the first byte), so nothing is evicted for a body that would
	 * not fit anyway */
	curl_off_t clen = -1;
	uint64_t want = x->got + n;
	C.curl_easy_getinfo(x->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &clen);
	if (clen > 0 && (uint64_t)clen > want && (uint64_t)clen <= x->o->max_bytes)
		want = (uint64_t)clen;
	if (!reserve(x, want))
		return 0;
	if (fwrite(p, 1, n, x->fp) != n)
		return 0;
	x->got += n;
	return n;
}

static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
	(void)ultotal, (void)ulnow;
	struct xfer *x = ud;
	x->now = dlnow;
	x->total = dltotal;
	return x->o->cancel && atomic_load(x->o->cancel);   /* non-zero aborts it */
}

/* Starts x's transfer on m; false (x's job said why) when it cannot. */
static bool xfer_start(struct xfer *x, CURLM *m)
{
	kp__symhttp_job *j = x->job;
	const kp__symhttp_opts *o = x->o;
	/* the writer's pid in the name: a later run removes it once that
	 * process is gone (killed mid-transfer), never while it lives */
	static atomic_uint seq;
	snprintf(x->tmp, sizeof x->tmp, "%s/.%s.%ld-%u.tmp", o->dir, j->uuid, (long)getpid(),
	         atomic_fetch_add(&seq, 1));
	int fd = open(x->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		char line[300];
		snprintf(line, sizeof line, "cannot create a file in the download folder: %s", strerror(errno));
		x->tmp[0] = '\0';
		job_say(j, KP__FETCH_FAILED, line);
		return false;
	}
	x->fp = fdopen(fd, "wb");
	x->h = C.curl_easy_init();
	if (!x->fp || !x->h) {
		if (!x->fp)
			close(fd);
		job_say(j, KP__FETCH_FAILED, "out of memory");
		return false;
	}
	char url[2100];
	kp__symhttp_url(j->srv, j->uuid, url, sizeof url);
	CURL *h = x->h;
	C.curl_easy_setopt(h, CURLOPT_URL, url);
	C.curl_easy_setopt(h, CURLOPT_PRIVATE, (void *)x);
	C.curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	C.curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	C.curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
#if LIBCURL_VERSION_NUM >= 0x075500
	C.curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	C.curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
	C.curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
	C.curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	C.curl_easy_setopt(h, CURLOPT_USERAGENT, "kpbrowse");
	C.curl_easy_setopt(h, CURLOPT_TIMEOUT, o->timeout_s);
	if (o->min_speed && o->min_speed_s) {
		C.curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, o->min_speed);
		C.curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, o->min_speed_s);
	}
	C.curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, o->connect_timeout_s);
	C.curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)o->max_bytes);
	C.curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
	C.curl_easy_setopt(h, CURLOPT_WRITEDATA, (void *)x);
	C.curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	C.curl_easy_setopt(h, CURLOPT_XFERINFODATA, (void *)x);
	C.curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	C.curl_easy_setopt(h, CURLOPT_ERRORBUFFER, x->errbuf);
	if (j->srv->token[0]) {
		/* a header of our own: libcurl sends it to the first host only
		 * (CURLOPT_UNRESTRICTED_AUTH stays off) */
		char auth[1100];
		snprintf(auth, sizeof auth, "Authorization: Bearer %s", j->srv->token);
		x->hdr = C.curl_slist_append(NULL, auth);
		memset(auth, 0, sizeof auth);
		if (!x->hdr) {
			job_say(j, KP__FETCH_FAILED, "out of memory");
			return false;
		}
		C.curl_easy_setopt(h, CURLOPT_HTTPHEADER, x->hdr);
	}
	if (C.curl_multi_add_handle(m, h) != CURLM_OK) {
		job_say(j, KP__FETCH_FAILED, "libcurl would not take the transfer");
		return false;
	}
	return true;
}

/* Says what came of x's transfer, moves its file into place or removes it. */
static void xfer_finish(struct xfer *x, CURLcode rc)
{
	kp__symhttp_job *j = x->job;
	const kp__symhttp_opts *o = x->o;
	long code = 0;
	curl_off_t clen = -1;
	C.curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &code);
	C.curl_easy_getinfo(x->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &clen);
	bool flushed = fclose(x->fp) == 0;
	x->fp = NULL;
	char line[700], span[32];
	bool placed = false;
	if (x->full) {
		uint64_t held = x->b->used - x->b->evictable - x->reserved;   /* what cannot go */
		snprintf(line, sizeof line, "refused: no room under the downloads' cap of %" PRIu64 " MiB "
		         "(KPBROWSE_SYMBOL_SERVER_CACHE_MB): %.1f MiB are downloads in use or under way",
		         o->cap_bytes >> 20, (double)held / 1048576.0);
		job_say(j, KP__FETCH_REFUSED, line);
	} else if (rc == CURLE_FILESIZE_EXCEEDED || x->over) {
		snprintf(line, sizeof line, "refused: larger than the limit of %" PRIu64 " MiB (KPBROWSE_SYMBOL_SERVER_MAX_MB)",
		         o->max_bytes >> 20);
		job_say(j, KP__FETCH_REFUSED, line);
	} else if (rc == CURLE_PARTIAL_FILE) {
		if (clen > 0)
			snprintf(line, sizeof line, "refused: truncated: the body ended at byte %" PRIu64 " of %" PRId64,
			         x->got, (int64_t)clen);
		else
			snprintf(line, sizeof line, "refused: truncated: the body ended at byte %" PRIu64, x->got);
		job_say(j, KP__FETCH_REFUSED, line);
	} else if (rc == CURLE_OPERATION_TIMEDOUT) {
		/* curl says the same for its timeout and its minimum speed: the
		 * time taken tells them apart */
		curl_off_t us = 0;
		C.curl_easy_getinfo(x->h, CURLINFO_TOTAL_TIME_T, &us);
		if (o->min_speed && o->min_speed_s && us < (curl_off_t)o->timeout_s * 1000000 - 500000)
			snprintf(line, sizeof line, "too slow: under %ld bytes/s for %ld s (KPBROWSE_SYMBOL_SERVER_MIN_SPEED), "
			         "stopped at byte %" PRIu64, o->min_speed, o->min_speed_s, x->got);
		else if (o->deadline_s)
			snprintf(line, sizeof line, "stopped at the report's deadline (%ld s, KPBROWSE_SYMBOL_DEADLINE), at byte %" PRIu64,
			         o->deadline_s, x->got);
		else
			snprintf(line, sizeof line, "timed out after %ld s (KPBROWSE_SYMBOL_SERVER_TIMEOUT), at byte %" PRIu64,
			         o->timeout_s, x->got);
		job_say(j, KP__FETCH_FAILED, line);
	} else if (rc == CURLE_ABORTED_BY_CALLBACK && o->cancel && atomic_load(o->cancel)) {
		job_say(j, KP__FETCH_FAILED, "cancelled");
	} else if (rc != CURLE_OK) {
		snprintf(line, sizeof line, "%s", x->errbuf[0] ? x->errbuf : C.curl_easy_strerror(rc));
		job_say(j, KP__FETCH_FAILED, line);
	} else if (code == 404 || code == 410) {
		say_span(span, sizeof span, o->negative_ttl_s);
		snprintf(line, sizeof line, "not on the server (HTTP %ld); not asked again for %s", code, span);
		job_say(j, KP__FETCH_MISSING, line);
		snprintf(line, sizeof line, "HTTP %ld", code);
		negative_add(o, j, line);
	} else if (code < 200 || code > 299) {
		snprintf(line, sizeof line, "HTTP %ld", code);
		job_say(j, KP__FETCH_FAILED, line);
	} else if (!flushed) {
		job_say(j, KP__FETCH_FAILED, "cannot write the download folder");
	} else {
		bool wrong = false;
		if (verify(j, x->tmp, x->got, &wrong)) {
			snprintf(j->path, sizeof j->path, "%s/%s", o->dir, j->uuid);
			if (rename(x->tmp, j->path) == 0) {
				placed = true;
				kp__symhttp_mark_in_use(j->path);
				if (x->evicted)
					snprintf(line, sizeof line, "downloaded (%" PRIu64 " bytes; %u older download%s "
					         "removed for room under the cap)", x->got, x->evicted, x->evicted == 1 ? "" : "s");
				else
					snprintf(line, sizeof line, "downloaded (%" PRIu64 " bytes)", x->got);
				job_say(j, KP__FETCH_FOUND, line);
			} else {
				snprintf(line, sizeof line, "cannot move the download into place: %s", strerror(errno));
				job_say(j, KP__FETCH_FAILED, line);
			}
		} else if (wrong) {
			negative_add(o, j, j->said);   /* "refused: the file holds UUID X, ..." */
		}
	}
	if (!placed) {
		unlink(x->tmp);
		j->path[0] = '\0';
	}
	x->tmp[0] = '\0';
	/* the reservation becomes the file's size, or is given back */
	uint64_t keep = placed ? x->got : 0;
	x->b->used -= x->reserved - (keep < x->reserved ? keep : x->reserved);
	x->reserved = 0;
}

static void xfer_free(struct xfer *x, CURLM *m)
{
	if (x->h) {
		C.curl_multi_remove_handle(m, x->h);
		C.curl_easy_cleanup(x->h);
	}
	if (x->hdr)
		C.curl_slist_free_all(x->hdr);
	if (x->fp)
		fclose(x->fp);
	if (x->tmp[0])
		unlink(x->tmp);
	memset(x, 0, sizeof *x);
}

static void report(const kp__symhttp_opts *o, struct xfer *xs, size_t n, size_t started)
{
	if (!o->progress)
		return;
	uint64_t now = 0, total = 0;
	size_t active = 0, last = 0;
	for (size_t i = 0; i < n; i++)
		if (xs[i].h) {
			now += xs[i].now > 0 ? (uint64_t)xs[i].now : 0;
			total += xs[i].total > 0 ? (uint64_t)xs[i].total : 0;
			active++;
			last = i;
		}
	if (!active)
		return;
	char what[2300];
	if (active == 1)
		snprintf(what, sizeof what, "%s", xs[last].job->url);
	else
		snprintf(what, sizeof what, "%zu downloads (%zu of %zu started)", active, started, n);
	o->progress(o->ctx, what, (size_t)now, (size_t)(total > now ? total : now));
}

static kp_status run(const kp__symhttp_opts *o, kp__symhttp_job *jobs, size_t n,
                     const size_t *todo, size_t ntodo, kp_error *err)
{
	struct xfer *xs = calloc(ntodo ? ntodo : 1, sizeof *xs);
	CURLM *m = xs ? C.curl_multi_init() : NULL;
	if (!m) {
		free(xs);
		for (size_t i = 0; i < ntodo; i++)
			job_say(&jobs[todo[i]], KP__FETCH_FAILED, "out of memory");
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	(void)n;
	/* the folder as it is: dead writers' temporaries removed, the rest
	 * counted (a lowered cap evicts when a download needs the room) */
	struct kp__symhttp_budget b = {.cap = o->cap_bytes};
	kp__symhttp_budget_fill(&b, o->dir, o->timeout_s + 60);
	unsigned par = o->parallel ? o->parallel : 1;
	size_t next = 0, active = 0;
	struct timespec last = {0};
	while (next < ntodo || active) {
		while (next < ntodo && o->cancel && atomic_load(o->cancel))   /* none started after a cancel */
			job_say(&jobs[todo[next++]], KP__FETCH_FAILED, "cancelled");
		while (active < par && next < ntodo) {
			struct xfer *x = &xs[next];
			x->job = &jobs[todo[next++]];
			x->o = o;
			x->b = &b;
			if (xfer_start(x, m))
				active++;
			else
				xfer_free(x, m);
		}
		int still = 0;
		C.curl_multi_perform(m, &still);
		CURLMsg *msg;
		int left;
		while ((msg = C.curl_multi_info_read(m, &left)) != NULL) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			struct xfer *x = NULL;
			C.curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
			CURLcode rc = msg->data.result;
			if (!x)
				continue;
			xfer_finish(x, rc);
			xfer_free(x, m);   /* msg is not read after this */
			active--;
		}
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - last.tv_sec) * 1000 + (now.tv_nsec - last.tv_nsec) / 1000000 >= 100) {
			report(o, xs, ntodo, next);
			last = now;
		}
		if (active)
			C.curl_multi_wait(m, NULL, 0, 100, NULL);
	}
	C.curl_multi_cleanup(m);
	free(xs);
	kp__symhttp_budget_free(&b);
	return KP_OK;
}
#else
bool kp__symhttp_available(char *why, size_t size)
{
	if (why)
		snprintf(why, size, "this kpbrowse was built without libcurl: install it (Debian: apt install "
		                    "libcurl4-openssl-dev; macOS has it) and rebuild");
	return false;
}

static kp_status run(const kp__symhttp_opts *o, kp__symhttp_job *jobs, size_t n,
                     const size_t *todo, size_t ntodo, kp_error *err)
{
	(void)o, (void)jobs, (void)n, (void)todo, (void)ntodo;
	return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "built without libcurl");
}
#endif

kp_status kp__symhttp_fetch(const kp__symhttp_opts *o, kp__symhttp_job *jobs, size_t n,
                            kp_error *err)
{
	size_t *todo = calloc(n ? n : 1, sizeof *todo), ntodo = 0;
	if (!todo)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	char why[700], span[32];
	for (size_t i = 0; i < n; i++) {
		kp__symhttp_job *j = &jobs[i];
		char url[2100];
		kp__symhttp_url(j->srv, j->uuid, url, sizeof url);
		kp__symhttp_mask(j->srv, url, j->url, sizeof j->url);
		j->path[0] = '\0';
		char refused[600];
		long left = negative_left(o, j, refused, sizeof refused);
		if (left > 0) {
			say_span(span, sizeof span, left);
			if (refused[0])
				snprintf(why, sizeof why, "%.400s (negative cache; asked again in %s)", refused, span);
			else
				snprintf(why, sizeof why, "not on the server (negative cache; asked again in %s)", span);
			job_say(j, KP__FETCH_NEGATIVE, why);
		} else {
			todo[ntodo++] = i;
		}
	}
	kp_status st = KP_OK;
	kp_error e, le;
	if (ntodo && !kp__symhttp_available(why, sizeof why))
		st = kp_error_set(&le, KP_ERR_NOTFOUND, 0, -1, "%s", why);
	else if (ntodo && kp_fs_mkdirs(o->dir, 0700, &e) != KP_OK)
		st = kp_error_set(&le, e.code, 0, -1, "the download folder %.150s: %.90s", o->dir, e.msg);
	if (st != KP_OK) {
		for (size_t i = 0; i < ntodo; i++)
			job_say(&jobs[todo[i]], KP__FETCH_FAILED, le.msg);
		if (err)
			*err = le;
	} else if (ntodo) {
		st = run(o, jobs, n, todo, ntodo, err);
	}
	free(todo);
	return st;
}
