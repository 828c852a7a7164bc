/* index.c: the public face of the index over whichever store kpi_open
 * picks: choosing the store (handing it schema.h's kpi__migrated),
 * reports loaded and exported from their archives (archive.h), live paths
 * in result rows, query argument checks. */
#include "archive.h"
#include "kpi_store.h"
#include "kp_fs.h"
#include "kp_lex.h"
#include "live.h"
#include "schema.h"
#include "scan.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- choosing the store ---- */

bool kpi_target_is_postgres(const char *t)
{
	if (!t)
		return false;
	if (strncmp(t, "postgresql://", 13) == 0 || strncmp(t, "postgres://", 11) == 0)
		return true;
	/* libpq's "key=value ..." form: a keyword, optional blanks, '='.  A
	 * file whose name looks like that is reached as ./name. */
	const char *p = t;
	while (isalpha((unsigned char)*p) || *p == '_')
		p++;
	if (p == t)
		return false;
	while (*p == ' ' || *p == '\t')
		p++;
	return *p == '=';
}

kp_status kpi_open(const char *target, unsigned flags, kpi_db **out, kp_error *err)
{
	*out = NULL;
	kp_error_clear(err);
	if (!target || !*target)
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "empty database path");
#ifndef KPI_HAVE_PG
	if (kpi_target_is_postgres(target))
		return kp_error_set(err, KP_ERR_USAGE, 0, -1,
		                    "PostgreSQL support is not built in (build with libpq installed)");
#endif
	kp_status st = kpi_target_is_postgres(target) ? kpi__pg_open(target, flags, kpi__migrated, out, err)
	                                              : kpi__sqlite_open(target, flags, kpi__migrated, out, err);
	if (st == KP_OK) {
		const char *h = getenv("KPBROWSE_HOST");
		char name[256] = "";
		if (h && *h)
			snprintf(name, sizeof name, "%s", h);
		else if (gethostname(name, sizeof name) != 0)
			name[0] = '\0';
		name[sizeof name - 1] = '\0';
		kpi_set_host(*out, name[0] ? name : "localhost");
		/* a report's Mac is never guessed from the machine that reads
		 * it (issue 31 item 4): only KPBROWSE_HOST, or a caller that
		 * knows (kpi_set_report_host), says it */
		kpi_set_report_host(*out, h && *h ? name : NULL);
	}
	return st;
}

void kpi_set_report_host(kpi_db *db, const char *name)
{
	snprintf(db->report_host, sizeof db->report_host, "%s", name ? name : "");
}

void kpi_set_report_host_own(kpi_db *db)
{
#ifdef __APPLE__
	if (!db->report_host[0])
		kpi_set_report_host(db, db->host);
#else
	(void)db;   /* a report folder here holds copies from some Mac */
#endif
}

void kpi_set_host(kpi_db *db, const char *name)
{
	snprintf(db->host, sizeof db->host, "%s", name ? name : "");
}

const char *kpi_host(const kpi_db *db)
{
	return db->host;
}

/* ---- the one masker of connection secrets ----
 *
 * libpq takes a URI (postgresql:// or postgres://: user info before the
 * last '@', its password after the first ':'; "password=" among the query
 * parameters) or key=value pairs (a value single-quoted with \' and \\, or
 * bare up to white space with backslash escapes), and a dbname that is
 * itself a URI or key=value string is expanded in turn.  A password in any
 * of these is a range of the target; the display replaces each with "***",
 * and a message from the server or libpq gets every secret (as written and
 * decoded), PGPASSWORD's value and the raw target replaced.  Over-masking a
 * look-alike is fine; showing a secret is not. */

#define MAX_SECRETS 16

typedef struct secrets {
	size_t lo[MAX_SECRETS], hi[MAX_SECRETS];   /* ranges of the target */
	size_t n;
} secrets;

static void add_range(secrets *sc, size_t lo, size_t hi)
{
	if (hi > lo && sc->n < MAX_SECRETS)
		sc->lo[sc->n] = lo, sc->hi[sc->n++] = hi;
}

static bool is_uri(const char *t, size_t len)
{
	return (len >= 13 && strncmp(t, "postgresql://", 13) == 0) ||
	       (len >= 11 && strncmp(t, "postgres://", 11) == 0);
}

static void scan_target(const char *t, size_t base, size_t len, secrets *sc, int depth);

static void scan_uri(const char *t, size_t base, size_t len, secrets *sc)
{
	size_t start = (size_t)(strstr(t, "://") - t) + 3;
	size_t at = SIZE_MAX;
	for (size_t i = start; i < len; i++)
		if (t[i] == '@')
			at = i;   /* the last one: a password may hold '/', '?', '@' */
	if (at != SIZE_MAX)
		for (size_t i = start; i < at; i++)
			if (t[i] == ':') {
				add_range(sc, base + i + 1, base + at);
				break;
			}
	for (size_t i = start; i < len; i++) {
		if ((t[i] == '?' || t[i] == '&') && i + 9 < len + 1 && strncmp(t + i + 1, "password=", 9) == 0) {
			size_t v = i + 10, e = v;
			while (e < len && t[e] != '&' && t[e] != '#')
				e++;
			add_range(sc, base + v, base + e);
		}
		if ((t[i] == '?' || t[i] == '&') && strncmp(t + i + 1, "dbname=", 7) == 0) {
			size_t v = i + 8, e = v;
			while (e < len && t[e] != '&' && t[e] != '#')
				e++;
			add_range(sc, base + v, base + e);   /* may carry a whole URI */
		}
	}
}

static void scan_pairs(const char *t, size_t base, size_t len, secrets *sc, int depth)
{
	size_t i = 0;
	while (i < len) {
		while (i < len && isspace((unsigned char)t[i]))
			i++;
		size_t k = i;
		while (i < len && t[i] != '=' && !isspace((unsigned char)t[i]))
			i++;
		size_t klen = i - k;
		while (i < len && isspace((unsigned char)t[i]))
			i++;
		if (i >= len || t[i] != '=') {
			while (i < len && !isspace((unsigned char)t[i]))
				i++;   /* not a pair: step over the word */
			continue;
		}
		i++;
		while (i < len && isspace((unsigned char)t[i]))
			i++;
		size_t v = i;
		if (i < len && t[i] == '\'') {
			for (i++; i < len && t[i] != '\''; i++)
				if (t[i] == '\\' && i + 1 < len)
					i++;
			if (i < len)
				i++;
		} else {
			for (; i < len && !isspace((unsigned char)t[i]); i++)
				if (t[i] == '\\' && i + 1 < len)
					i++;
		}
		if (klen == 8 && strncmp(t + k, "password", 8) == 0)
			add_range(sc, base + v, base + i);
		else if (klen == 6 && strncmp(t + k, "dbname", 6) == 0 && depth < 2) {
			size_t vv = v, ve = i;
			if (vv < ve && t[vv] == '\'')
				vv++, ve -= ve > vv && t[ve - 1] == '\'';
			scan_target(t + vv, base + vv, ve - vv, sc, depth + 1);
		}
	}
}

static void scan_target(const char *t, size_t base, size_t len, secrets *sc, int depth)
{
	if (is_uri(t, len))
		scan_uri(t, base, len, sc);
	else if (memchr(t, '=', len))
		scan_pairs(t, base, len, sc, depth);
}

static secrets find_secrets(const char *t)
{
	secrets sc = {.n = 0};
	if (kpi_target_is_postgres(t))
		scan_target(t, 0, strlen(t), &sc, 0);
	return sc;
}

void kpi_target_display(const char *t, char *buf, size_t size)
{
	if (!size)
		return;
	buf[0] = '\0';
	if (!t)
		return;
	secrets sc = find_secrets(t);
	size_t o = 0, len = strlen(t);
	for (size_t i = 0; i < len;) {
		size_t hi = 0;
		for (size_t k = 0; k < sc.n; k++)
			if (sc.lo[k] <= i && i < sc.hi[k] && sc.hi[k] > hi)
				hi = sc.hi[k];
		if (hi) {
			for (const char *m = "***"; *m && o + 1 < size; m++)
				buf[o++] = *m;
			i = hi;
			continue;
		}
		if (o + 1 < size)
			buf[o++] = t[i];
		i++;
	}
	buf[o] = '\0';
}

/* s with each occurrence of the n-byte needle (n >= 3: shorter ones would
 * mask ordinary words) replaced by rep, in place within size. */
static void replace_all(char *s, size_t size, const char *needle, size_t n, const char *rep)
{
	if (n < 3)
		return;
	size_t rl = strlen(rep);
	char *p = s;
	while ((p = strstr(p, needle)) != NULL) {
		size_t tail = strlen(p + n);
		if (rl > n && (size_t)(p - s) + rl + tail + 1 > size)
			tail = size - 1 - (size_t)(p - s) - rl;   /* truncates: never overflows */
		memmove(p + rl, p + n, tail);
		memcpy(p, rep, rl);
		p[rl + tail] = '\0';
		p += rl;
	}
}

/* v decoded as libpq reads it: %XX in a URI, backslash escapes and the
 * surrounding quotes of a key=value value. */
static size_t decode(const char *v, size_t n, char *out, size_t size)
{
	size_t o = 0;
	size_t i = 0, end = n;
	if (n >= 2 && v[0] == '\'' && v[n - 1] == '\'')
		i = 1, end = n - 1;
	for (; i < end && o + 1 < size; i++) {
		if (v[i] == '\\' && i + 1 < end) {
			out[o++] = v[++i];
		} else if (v[i] == '%' && i + 2 < end && kp_hex_digit((unsigned char)v[i + 1]) >= 0 &&
		           kp_hex_digit((unsigned char)v[i + 2]) >= 0) {
			out[o++] = (char)(kp_hex_digit((unsigned char)v[i + 1]) * 16 +
			                  kp_hex_digit((unsigned char)v[i + 2]));
			i += 2;
		} else {
			out[o++] = v[i];
		}
	}
	out[o] = '\0';
	return o;
}

/* Each piece of secret s between a URI's delimiters masked in buf: libpq
 * splits a URI at them, so a password holding one ("u:WRONG/pw@") reaches
 * its messages in pieces (a port "WRONG", a query "ret9@/panics"). */
static void mask_pieces(char *buf, size_t size, const char *s)
{
	while (*s) {
		size_t n = strcspn(s, "/?#@:&=,");
		char piece[512];
		snprintf(piece, sizeof piece, "%.*s", (int)n, s);
		replace_all(buf, size, piece, strlen(piece), "***");
		s += n + (s[n] != '\0');
	}
}

void kpi_mask_secrets(const char *target, const char *text, char *buf, size_t size)
{
	if (!size)
		return;
	snprintf(buf, size, "%s", text ? text : "");
	if (!target)
		target = "";
	if (target[0]) {
		char shown[1024];
		kpi_target_display(target, shown, sizeof shown);
		replace_all(buf, size, target, strlen(target), shown);
	}
	secrets sc = find_secrets(target);
	for (size_t k = 0; k < sc.n; k++) {
		size_t n = sc.hi[k] - sc.lo[k];
		char raw[512], dec[512];
		snprintf(raw, sizeof raw, "%.*s", (int)n, target + sc.lo[k]);
		size_t dn = decode(raw, strlen(raw), dec, sizeof dec);
		replace_all(buf, size, raw, strlen(raw), "***");
		replace_all(buf, size, dec, dn, "***");
		mask_pieces(buf, size, raw);
		mask_pieces(buf, size, dec);
	}
	const char *env = getenv("PGPASSWORD");
	if (env)
		replace_all(buf, size, env, strlen(env), "***");
}

void kpi_close(kpi_db **dbp)
{
	if (!dbp || !*dbp)
		return;
	kpi_db *db = *dbp;
	*dbp = NULL;
	db->ops->close(db);
}

kp_status kpi_default_path(const char *explicit_path, char *buf, size_t size, kp_error *err)
{
	const char *e = explicit_path && *explicit_path ? explicit_path : getenv("KPBROWSE_DB");
	int n;
	if (e && *e) {
		n = snprintf(buf, size, "%s", e);
	} else {
		const char *home = getenv("HOME");
		if (!home || !*home) {
			struct passwd *pw = getpwuid(getuid());
			home = pw ? pw->pw_dir : NULL;
		}
#ifdef __APPLE__
		if (!home)
			return kp_error_set(err, KP_ERR_USAGE, 0, -1, "no home directory: use --db PATH");
		n = snprintf(buf, size, "%s/Library/Application Support/kpbrowse/index.sqlite3", home);
#else
		const char *xdg = getenv("XDG_DATA_HOME");
		if (xdg && xdg[0] == '/')
			n = snprintf(buf, size, "%s/kpbrowse/index.sqlite3", xdg);
		else if (home)
			n = snprintf(buf, size, "%s/.local/share/kpbrowse/index.sqlite3", home);
		else
			return kp_error_set(err, KP_ERR_USAGE, 0, -1, "no home directory: use --db PATH");
#endif
	}
	if (n < 0 || (size_t)n >= size)
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "database path too long");
	return KP_OK;
}

/* ---- meta ---- */

kp_status kpi_meta_get(kpi_db *db, const char *key, char **value, kp_error *err)
{
	kp_error_clear(err);
	*value = NULL;
	return db->ops->meta_get(db, key, value, err);
}

kp_status kpi_meta_set(kpi_db *db, const char *key, const char *value, kp_error *err)
{
	kp_error_clear(err);
	/* the index's own keys (text_search, ...) are not for callers to change */
	if (!key || !strchr(key, '.') || key[0] == '.')
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "meta key '%s' needs a dotted name",
		                    key ? key : "");
	return db->ops->meta_set(db, key, value, err);
}

/* ---- small shared rules ---- */

const char *kpi__role_name(int rank)
{
	static const char *const names[] = {"kernel", "backtrace", "image", "dependency"};
	return rank >= 0 && rank < 4 ? names[rank] : "image";
}

void kpi__uuid_pretty(const char *hex, char out[37])
{
	if (!hex || strlen(hex) != 32 || !kp_uuid_canon(hex, 32, out))
		out[0] = '\0';
}

void kpi__uuid_range(const char *prefix, char lo[33], char hi[33])
{
	size_t n = strlen(prefix);
	if (n > 32)
		n = 32;
	memcpy(lo, prefix, n);
	memcpy(hi, prefix, n);
	for (size_t i = n; i < 32; i++) {
		lo[i] = '0';
		hi[i] = 'F';
	}
	lo[32] = hi[32] = '\0';
}

bool kpi_parse_id(const char *s, int64_t *id)
{
	if (!s)
		return false;
	if (*s == '@')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	int64_t v = 0;
	for (; *s; s++) {
		int d = *s - '0';
		if (*s < '0' || *s > '9' || v > (INT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*id = v;
	return true;
}

/* ---- reports from their archives ---- */

static int first_path(void *ctx, const char *path)
{
	*(char **)ctx = strdup(path);
	return 1;
}

kp_status kpi_load(kpi_db *db, int64_t id, kp_report **out, kp_error *err)
{
	*out = NULL;
	kp_error_clear(err);
	size_t len;
	char *bytes = kpi__archive_bytes(db, id, &len, NULL, err);
	if (!bytes)
		return err ? err->code : KP_ERR_DB;
	char name[64];
	snprintf(name, sizeof name, "@%lld", (long long)id);
	char *path = NULL;
	db->ops->report_paths(db, id, first_path, &path, NULL);
	kp_status st = kp_report_parse(bytes, len, path ? path : name, out, err);
	free(path);
	free(bytes);
	return st;
}

/* Writes all of data to fd; false with errno set when a write fails. */
static bool write_all(int fd, const char *data, size_t len)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return false;
		}
		done += (size_t)n;
	}
	return true;
}

kp_status kpi_export_fd(kpi_db *db, int64_t id, int fd, kp_error *err)
{
	kp_error_clear(err);
	size_t len;
	char *bytes = kpi__archive_bytes(db, id, &len, NULL, err);
	if (!bytes)
		return err ? err->code : KP_ERR_DB;
	bool ok = write_all(fd, bytes, len);
	int e = errno;
	free(bytes);
	return ok ? KP_OK : kp_error_set(err, KP_ERR_IO, 0, -1, "write failed: %s", strerror(e));
}

kp_status kpi_export(kpi_db *db, int64_t id, const char *path, kp_error *err)
{
	kp_error_clear(err);
	size_t len;
	char *bytes = kpi__archive_bytes(db, id, &len, NULL, err);
	if (!bytes)
		return err ? err->code : KP_ERR_DB;
	int fd;
	kp_status cs = kp_fs_create_new(path, false, NULL, 0, &fd, err);
	if (cs != KP_OK) {
		free(bytes);
		return cs;
	}
	bool ok = write_all(fd, bytes, len);
	int e = errno;
	if (ok && !(ok = fsync(fd) == 0))
		e = errno;
	ok = close(fd) == 0 && ok;
	free(bytes);
	if (!ok) {
		unlink(path);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "%s: write failed: %s", path, strerror(e));
	}
	return KP_OK;
}

/* ---- queries ---- */

kp_status kpi_list_reports(kpi_db *db, kpi_report_fn fn, void *ctx, kp_error *err)
{
	return kpi_list_reports_host(db, NULL, fn, ctx, err);
}

kp_status kpi_list_reports_host(kpi_db *db, const char *host, kpi_report_fn fn, void *ctx,
                                kp_error *err)
{
	kp_error_clear(err);
	kpi__live_rows l = {db, fn, ctx, NULL, {0}};
	kp_status st = db->ops->list_reports(db, host && *host ? host : NULL, kpi__live_row, &l, err);
	kpi__live_free(&l.cache);
	return st;
}

kp_status kpi_list_hosts(kpi_db *db, kpi_host_fn fn, void *ctx, kp_error *err)
{
	kp_error_clear(err);
	return db->ops->list_hosts(db, fn, ctx, err);
}

/* Groups stored before titles lost their culprit ("headline... (culprit)",
 * cut at 100 bytes) are shown as titles are made now: the culprit and the
 * "..." dropped, since the culprit has a column of its own. */
typedef struct titled {
	kpi_group_fn fn;
	void *ctx;
} titled;

static int title_row(void *ctx, const kpi_group_row *row)
{
	const titled *t = ctx;
	kpi_group_row g = *row;
	char buf[1024];
	size_t n = g.title ? strlen(g.title) : 0, cn = g.culprit ? strlen(g.culprit) : 0;
	if (cn && n > cn + 3 && n < sizeof buf && g.title[n - 1] == ')' &&
	    memcmp(g.title + n - cn - 3, " (", 2) == 0 && memcmp(g.title + n - cn - 1, g.culprit, cn) == 0) {
		n -= cn + 3;
		if (n >= 3 && memcmp(g.title + n - 3, "...", 3) == 0)
			n -= 3;
		memcpy(buf, g.title, n);
		buf[n] = '\0';
		g.title = buf;
	}
	return t->fn(t->ctx, &g);
}

kp_status kpi_list_groups(kpi_db *db, kpi_group_fn fn, void *ctx, kp_error *err)
{
	kp_error_clear(err);
	titled t = {fn, ctx};
	return db->ops->list_groups(db, title_row, &t, err);
}

kp_status kpi_list_group_counts(kpi_db *db, kpi_group_fn fn, void *ctx, kp_error *err)
{
	kp_error_clear(err);
	titled t = {fn, ctx};
	return db->ops->list_group_counts(db, title_row, &t, err);
}

static kp_status uuid_arg(const char *uuid, char hex[33], kp_error *err);

static kp_status search(kpi_db *db, kpi__search kind, const char *arg, kpi_report_fn fn,
                        void *ctx, size_t *nfound, kp_error *err)
{
	/* every row: one page without a limit */
	kpi__live_rows l = {db, fn, ctx, NULL, {0}};
	kpi_page page = {0};
	kp_status st = db->ops->search_page(db, kind, arg, &page, kpi__live_row, &l, err);
	kpi__live_free(&l.cache);
	if (nfound)
		*nfound = page.rows;
	return st;
}

kp_status kpi_search_uuid(kpi_db *db, const char *uuid, kpi_report_fn fn, void *ctx,
                          size_t *nfound, kp_error *err)
{
	kp_error_clear(err);
	if (nfound)
		*nfound = 0;
	char hex[33];
	kp_status st = uuid_arg(uuid, hex, err);
	return st == KP_OK ? search(db, KPI__SEARCH_UUID, hex, fn, ctx, nfound, err) : st;
}

kp_status kpi_check_uuid_arg(const char *uuid, kp_error *err)
{
	char hex[33];
	kp_error_clear(err);
	return uuid_arg(uuid, hex, err);
}

/* A UUID or prefix as upper-case hex without dashes. */
static kp_status uuid_arg(const char *uuid, char hex[33], kp_error *err)
{
	size_t n = 0;
	for (const char *p = uuid ? uuid : ""; *p; p++) {
		if (*p == '-')
			continue;
		if (!isxdigit((unsigned char)*p) || n == 32)
			return kp_error_set(err, KP_ERR_USAGE, 0, -1,
			                    "'%s' is not a UUID or a prefix of one (hex digits and dashes)",
			                    uuid);
		hex[n++] = (char)toupper((unsigned char)*p);
	}
	if (n < 8)
		return kp_error_set(err, KP_ERR_USAGE, 0, -1,
		                    "a UUID prefix needs at least 8 hex digits, got %zu", n);
	hex[n] = '\0';
	return KP_OK;
}

kp_status kpi_search_kext(kpi_db *db, const char *bundle_id, kpi_report_fn fn, void *ctx,
                          size_t *nfound, kp_error *err)
{
	kp_error_clear(err);
	if (nfound)
		*nfound = 0;
	if (!bundle_id || !*bundle_id)
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "empty bundle id");
	return search(db, strchr(bundle_id, '.') ? KPI__SEARCH_KEXT : KPI__SEARCH_KEXT_LAST, bundle_id,
	              fn, ctx, nfound, err);
}

kp_status kpi_search_zone(kpi_db *db, const char *name, kpi_report_fn fn, void *ctx,
                          size_t *nfound, kp_error *err)
{
	kp_error_clear(err);
	if (nfound)
		*nfound = 0;
	if (!name || !*name)
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "empty zone name");
	return search(db, KPI__SEARCH_ZONE, name, fn, ctx, nfound, err);
}

kp_status kpi_search_text(kpi_db *db, const char *text, kpi_report_fn fn, void *ctx,
                          size_t *nfound, kp_error *err)
{
	kp_error_clear(err);
	if (nfound)
		*nfound = 0;
	const char *p = text ? text : "";
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "empty search text");
	return search(db, KPI__SEARCH_TEXT, text, fn, ctx, nfound, err);
}

kp_status kpi_search_page(kpi_db *db, kpi_search_kind kind, const char *arg, kpi_page *page,
                          kpi_report_fn fn, void *ctx, kp_error *err)
{
	kp_error_clear(err);
	page->rows = 0;
	char hex[33];
	kpi__search k = KPI__SEARCH_TEXT;
	const char *p = arg ? arg : "";
	kp_status st = KP_OK;
	switch (kind) {
	case KPI_SEARCH_UUID:
		k = KPI__SEARCH_UUID;
		st = uuid_arg(arg, hex, err);
		p = hex;
		break;
	case KPI_SEARCH_KEXT:   /* without a dot: a bundle id's last part */
		k = strchr(p, '.') ? KPI__SEARCH_KEXT : KPI__SEARCH_KEXT_LAST;
		if (!*p)
			st = kp_error_set(err, KP_ERR_USAGE, 0, -1, "empty bundle id");
		break;
	case KPI_SEARCH_ZONE:
		k = KPI__SEARCH_ZONE;
		if (!*p)
			st = kp_error_set(err, KP_ERR_USAGE, 0, -1, "empty zone name");
		break;
	case KPI_SEARCH_TEXT:
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			st = kp_error_set(err, KP_ERR_USAGE, 0, -1, "empty search text");
		p = arg;
		break;
	}
	if (st != KP_OK)
		return st;
	kpi__live_rows l = {db, fn, ctx, NULL, {0}};
	st = db->ops->search_page(db, k, p, page, kpi__live_row, &l, err);
	kpi__live_free(&l.cache);
	return st;
}

kp_status kpi_list_reports_page(kpi_db *db, kpi_page *page, kpi_report_fn fn, void *ctx,
                                kp_error *err)
{
	kp_error_clear(err);
	page->rows = 0;
	kpi__live_rows l = {db, fn, ctx, NULL, {0}};
	kp_status st = db->ops->list_page(db, page, kpi__live_row, &l, err);
	kpi__live_free(&l.cache);
	return st;
}
