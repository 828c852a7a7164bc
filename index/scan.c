/* scan.c: walking report folders into the index, and re-signing. */
#include "index_priv.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* A batch is committed after this many parsed files or this much time, so
 * a kill loses little and a second process gets the lock soon. */
#define BATCH_FILES 200
#define BATCH_NS 500000000LL

typedef struct scan {
	kpi_db *db;
	kp_sig_symbol_fn sym;
	void *sym_ctx;
	kpi_progress_fn fn;
	void *ctx;
	kpi_summary *sum;
	kp_error *err;
	size_t batch_work;
	int64_t batch_start;
	int64_t now;
	int64_t *dirty;       /* groups touched in this batch */
	size_t ndirty, dirty_cap;
	bool in_tx;
} scan;

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static kp_status add_error(scan *s, const char *path, const char *msg)
{
	kpi_summary *m = s->sum;
	kpi_scan_error *v = realloc(m->error_list, (m->nerror_list + 1) * sizeof *v);
	if (!v)
		return kp_error_set(s->err, KP_ERR_NOMEM, 0, -1, "out of memory");
	m->error_list = v;
	v[m->nerror_list].path = strdup(path);
	v[m->nerror_list].msg = strdup(msg);
	m->nerror_list++;
	m->errors = m->nerror_list;
	return KP_OK;
}

void kpi_summary_free(kpi_summary *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nerror_list; i++) {
		free(s->error_list[i].path);
		free(s->error_list[i].msg);
	}
	free(s->error_list);
	memset(s, 0, sizeof *s);
}

/* ---- transactions ---- */

static kp_status refresh_groups(scan *s)
{
	for (size_t i = 0; i < s->ndirty; i++) {
		sqlite3_stmt *q = idx_stmt(s->db, Q_GROUP_REFRESH, s->err);
		if (!q)
			return KP_ERR_DB;
		sqlite3_bind_int64(q, 1, s->dirty[i]);
		int rc = sqlite3_step(q);
		sqlite3_reset(q);
		if (rc != SQLITE_DONE)
			return idx_dberr(s->db, s->err, "updating group counts");
	}
	s->ndirty = 0;
	return KP_OK;
}

static kp_status mark_dirty(scan *s, int64_t gid)
{
	for (size_t i = 0; i < s->ndirty; i++)
		if (s->dirty[i] == gid)
			return KP_OK;
	if (s->ndirty == s->dirty_cap) {
		size_t cap = s->dirty_cap ? s->dirty_cap * 2 : 64;
		int64_t *d = realloc(s->dirty, cap * sizeof *d);
		if (!d)
			return kp_error_set(s->err, KP_ERR_NOMEM, 0, -1, "out of memory");
		s->dirty = d;
		s->dirty_cap = cap;
	}
	s->dirty[s->ndirty++] = gid;
	return KP_OK;
}

static kp_status tx_begin(scan *s)
{
	kp_status st = idx_exec(s->db, Q_BEGIN, s->err);
	if (st == KP_OK) {
		s->in_tx = true;
		s->batch_work = 0;
		s->batch_start = mono_ns();
		s->now = (int64_t)time(NULL);
	}
	return st;
}

static kp_status tx_commit(scan *s)
{
	if (!s->in_tx)
		return KP_OK;
	kp_status st = refresh_groups(s);
	if (st == KP_OK)
		st = idx_exec(s->db, Q_COMMIT, s->err);
	if (st != KP_OK) {
		sqlite3_exec(s->db->db, "ROLLBACK", NULL, NULL, NULL);
		s->ndirty = 0;
	}
	s->in_tx = false;
	return st;
}

static kp_status maybe_commit(scan *s)
{
	if (s->batch_work < BATCH_FILES && mono_ns() - s->batch_start < BATCH_NS)
		return KP_OK;
	kp_status st = tx_commit(s);
	return st == KP_OK ? tx_begin(s) : st;
}

/* ---- records ---- */

static kp_status put_path(scan *s, const char *path, int64_t report_id, const struct stat *st,
                          const char *skip)
{
	sqlite3_stmt *q = idx_stmt(s->db, Q_PATH_PUT, s->err);
	if (!q)
		return KP_ERR_DB;
	sqlite3_bind_text(q, 1, path, -1, SQLITE_STATIC);
	if (report_id > 0)
		sqlite3_bind_int64(q, 2, report_id);
	sqlite3_bind_int64(q, 3, (sqlite3_int64)st->st_size);
	sqlite3_bind_int64(q, 4, kp_fs_mtime_ns(st));
	sqlite3_bind_int64(q, 5, s->now);
	if (skip)
		sqlite3_bind_text(q, 6, skip, -1, SQLITE_STATIC);
	int rc = sqlite3_step(q);
	sqlite3_reset(q);
	return rc == SQLITE_DONE ? KP_OK : idx_dberr(s->db, s->err, "recording a path");
}

static int64_t lookup_id(scan *s, idx_sql which, const char *key, kp_status *st)
{
	*st = KP_OK;
	sqlite3_stmt *q = idx_stmt(s->db, which, s->err);
	if (!q) {
		*st = KP_ERR_DB;
		return 0;
	}
	sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
	int rc = sqlite3_step(q);
	int64_t id = rc == SQLITE_ROW ? sqlite3_column_int64(q, 0) : 0;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		*st = idx_dberr(s->db, s->err, "looking up a report");
	sqlite3_reset(q);
	return id;
}

/* Finds or creates the group of sig; *gid gets its id. */
static kp_status group_for(kpi_db *db, const kp_sig *sig, int64_t *gid, kp_error *err)
{
	sqlite3_stmt *q = idx_stmt(db, Q_GROUP_INSERT, err);
	if (!q)
		return KP_ERR_DB;
	sqlite3_bind_text(q, 1, sig->group_key, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, sig->title, -1, SQLITE_STATIC);
	if (sig->culprit)
		sqlite3_bind_text(q, 3, sig->culprit, -1, SQLITE_STATIC);
	int rc = sqlite3_step(q);
	sqlite3_reset(q);
	if (rc != SQLITE_DONE)
		return idx_dberr(db, err, "recording a group");
	if (!(q = idx_stmt(db, Q_GROUP_GET, err)))
		return KP_ERR_DB;
	sqlite3_bind_text(q, 1, sig->group_key, -1, SQLITE_STATIC);
	rc = sqlite3_step(q);
	*gid = rc == SQLITE_ROW ? sqlite3_column_int64(q, 0) : 0;
	sqlite3_reset(q);
	return *gid ? KP_OK : idx_dberr(db, err, "finding a group");
}

static void bind_opt(sqlite3_stmt *q, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(q, i, v, -1, SQLITE_STATIC);
}

/* The panic text for full-text search, without hex numbers (0x... and
 * bare runs of 8+ hex digits): addresses differ in every report, would
 * make most of the FTS index, and are searched by UUID instead. */
static char *fts_text(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s), o = 0;
	char *out = malloc(n + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		bool start = i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_');
		size_t k = 0;
		if (start && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X'))
			k = 2;
		size_t h = k;
		while (isxdigit((unsigned char)s[i + h]))
			h++;
		if (start && ((k == 2 && h > 2) || h - k >= 8) &&
		    !(isalnum((unsigned char)s[i + h]) || s[i + h] == '_')) {
			i += h;
			continue;
		}
		out[o++] = s[i++];
	}
	out[o] = '\0';
	return out;
}

static kp_status insert_report(scan *s, const char *path, const struct stat *st,
                               const char *data, size_t len, const char *hash,
                               const kp_report *r)
{
	kp_sig sig;
	kp_status rs = kp_sig_compute(r, s->sym, s->sym_ctx, &sig, s->err);
	if (rs != KP_OK)
		return rs;
	int64_t gid;
	if ((rs = group_for(s->db, &sig, &gid, s->err)) != KP_OK) {
		kp_sig_free(&sig);
		return rs;
	}
	uLongf zlen = compressBound((uLong)len);
	Bytef *z = malloc(zlen);
	if (!z || compress2(z, &zlen, (const Bytef *)data, (uLong)len, 6) != Z_OK) {
		free(z);
		kp_sig_free(&sig);
		return kp_error_set(s->err, KP_ERR_NOMEM, 0, -1, "out of memory compressing %s", path);
	}
	int64_t ts;
	if (!idx_parse_time(r->timestamp, &ts))
		ts = kp_fs_mtime_ns(st) / 1000000000LL;
	sqlite3_stmt *q = idx_stmt(s->db, Q_REPORT_INSERT, s->err);
	int rc = SQLITE_ERROR;
	if (q) {
		sqlite3_bind_text(q, 1, hash, -1, SQLITE_STATIC);
		bind_opt(q, 2, r->incident_id);
		sqlite3_bind_int64(q, 3, (sqlite3_int64)len);
		sqlite3_bind_text(q, 4, kp_format_name(r->format), -1, SQLITE_STATIC);
		bind_opt(q, 5, r->timestamp);
		sqlite3_bind_int64(q, 6, ts);
		bind_opt(q, 7, r->os_version);
		bind_opt(q, 8, r->kernel_uuid);
		/* the report's own headline: the normalised one is only a key */
		sqlite3_bind_text(q, 9, r->headline ? r->headline : sig.headline, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 10, sig.exact_key, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 11, gid);
		sqlite3_bind_int64(q, 12, s->now);
		rc = sqlite3_step(q);
		sqlite3_reset(q);
	}
	kp_sig_free(&sig);
	if (rc != SQLITE_DONE) {
		free(z);
		return q ? idx_dberr(s->db, s->err, "recording a report") : KP_ERR_DB;
	}
	int64_t id = sqlite3_last_insert_rowid(s->db->db);
	rc = SQLITE_ERROR;
	if ((q = idx_stmt(s->db, Q_ARCHIVE_INSERT, s->err))) {
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_blob(q, 2, z, (int)zlen, SQLITE_STATIC);
		rc = sqlite3_step(q);
		sqlite3_reset(q);
	}
	free(z);
	if (rc != SQLITE_DONE)
		return q ? idx_dberr(s->db, s->err, "archiving a report") : KP_ERR_DB;
	if ((rs = idx_put_images(s->db, id, r, s->err)) != KP_OK)
		return rs;
	char *body = fts_text(r->panic_string ? r->panic_string : r->headline);
	if (body) {
		if (!(q = idx_stmt(s->db, Q_FTS_INSERT, s->err)))
			return KP_ERR_DB;
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_text(q, 2, body, -1, SQLITE_STATIC);
		rc = sqlite3_step(q);
		sqlite3_reset(q);
		free(body);
		if (rc != SQLITE_DONE)
			return idx_dberr(s->db, s->err, "recording the panic text");
	}
	if ((rs = put_path(s, path, id, st, NULL)) != KP_OK || (rs = mark_dirty(s, gid)) != KP_OK)
		return rs;
	s->sum->new_reports++;
	return KP_OK;
}

static char *read_file(const char *path, size_t *len, struct stat *st, char *msg, size_t msize)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		snprintf(msg, msize, "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
		snprintf(msg, msize, "not a regular file");
		close(fd);
		return NULL;
	}
	size_t cap = (size_t)st->st_size, n = 0;
	char *buf = malloc(cap + 1);
	if (!buf) {
		snprintf(msg, msize, "out of memory");
		close(fd);
		return NULL;
	}
	while (n < cap) {
		ssize_t k = read(fd, buf + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			snprintf(msg, msize, "read failed: %s", strerror(errno));
			free(buf);
			close(fd);
			return NULL;
		}
		if (k == 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* kp_report_parse reads text unless the content starts with '{'; the text
 * parser fails only on text without anything of a panic, so such a
 * failure means "not a panic report", while broken JSON is an error. */
static bool looks_json(const char *s, size_t n)
{
	size_t i = 0;
	if (n >= 3 && (unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB &&
	    (unsigned char)s[2] == 0xBF)
		i = 3;
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
		i++;
	return i < n && s[i] == '{';
}

static kp_status skip_file(scan *s, const char *path, const struct stat *st, const char *why)
{
	s->sum->skipped++;
	s->batch_work++;
	return put_path(s, path, 0, st, why);
}

static kp_status do_file(scan *s, const char *path, const struct stat *lst)
{
	kpi_db *db = s->db;
	for (int i = 0; i < db->nown; i++)
		if (lst->st_dev == db->own_dev[i] && lst->st_ino == db->own_ino[i])
			return KP_OK;
	s->sum->files++;
	if (s->fn) {
		kpi_progress p = {s->sum->files, s->sum->new_reports, path};
		s->fn(s->ctx, &p);
	}

	sqlite3_stmt *q = idx_stmt(db, Q_PATH_GET, s->err);
	if (!q)
		return KP_ERR_DB;
	sqlite3_bind_text(q, 1, path, -1, SQLITE_STATIC);
	int rc = sqlite3_step(q);
	bool known = rc == SQLITE_ROW;
	int64_t old_report = 0;
	if (known) {
		old_report = sqlite3_column_int64(q, 0);
		bool same = sqlite3_column_int64(q, 1) == (sqlite3_int64)lst->st_size &&
		            sqlite3_column_int64(q, 2) == kp_fs_mtime_ns(lst);
		sqlite3_reset(q);
		if (same) {
			if (old_report)
				s->sum->unchanged++;
			else
				s->sum->skipped++;
			return KP_OK;
		}
	} else {
		sqlite3_reset(q);
		if (rc != SQLITE_DONE)
			return idx_dberr(db, s->err, "looking up a path");
	}

	if ((uint64_t)lst->st_size > KP_REPORT_MAX_SIZE)
		return skip_file(s, path, lst, "too large for a report");
	char msg[300];
	size_t len;
	struct stat st;
	char *data = read_file(path, &len, &st, msg, sizeof msg);
	if (!data)
		return add_error(s, path, msg);
	s->batch_work++;
	char hash[41];
	kp_sha1_hex(data, len, hash);
	kp_status ks;
	int64_t id = lookup_id(s, Q_REPORT_BY_HASH, hash, &ks);
	if (ks == KP_OK && id) {
		if (old_report == id)
			s->sum->unchanged++;
		else
			s->sum->duplicates++;
		free(data);
		return put_path(s, path, id, &st, NULL);
	}
	if (ks != KP_OK) {
		free(data);
		return ks;
	}
	if (memchr(data, '\0', len < 4096 ? len : 4096)) {
		free(data);
		return skip_file(s, path, &st, "binary file");
	}
	kp_report *r = NULL;
	kp_error perr;
	ks = kp_report_parse(data, len, path, &r, &perr);
	if (ks == KP_ERR_NOTPANIC || (ks == KP_ERR_FORMAT && !looks_json(data, len))) {
		free(data);
		return skip_file(s, path, &st, perr.msg);
	}
	if (ks == KP_ERR_NOMEM) {
		free(data);
		return kp_error_set(s->err, ks, 0, -1, "out of memory parsing %s", path);
	}
	if (ks != KP_OK) {
		free(data);
		kp_error_format(&perr, msg, sizeof msg);
		return add_error(s, path, msg);
	}
	if (r->incident_id) {
		id = lookup_id(s, Q_REPORT_BY_INCIDENT, r->incident_id, &ks);
		if (ks == KP_OK && id) {
			s->sum->duplicates++;
			ks = put_path(s, path, id, &st, NULL);
			kp_report_free(&r);
			free(data);
			return ks;
		}
	}
	if (ks == KP_OK)
		ks = insert_report(s, path, &st, data, len, hash, r);
	kp_report_free(&r);
	free(data);
	return ks;
}

static kp_status walk(scan *s, char *path, size_t plen, size_t cap, int depth)
{
	struct stat st;
	if (lstat(path, &st) != 0) {
		if (errno == ENOENT && depth == 0)
			return KP_OK;
		char msg[300];
		snprintf(msg, sizeof msg, "cannot stat: %s", strerror(errno));
		return add_error(s, path, msg);
	}
	if (S_ISLNK(st.st_mode)) {
		if (stat(path, &st) != 0 || (S_ISDIR(st.st_mode) && depth > 0))
			return KP_OK; /* dangling, or a folder link inside a tree: not followed */
	}
	if (S_ISREG(st.st_mode)) {
		kp_status ks = do_file(s, path, &st);
		return ks == KP_OK ? maybe_commit(s) : ks;
	}
	if (!S_ISDIR(st.st_mode) || depth > 64)
		return KP_OK;
	DIR *d = opendir(path);
	if (!d) {
		char msg[300];
		snprintf(msg, sizeof msg, "cannot open folder: %s", strerror(errno));
		return add_error(s, path, msg);
	}
	/* sorted, so the order of new ids does not depend on the file system */
	char **names = NULL;
	size_t n = 0, ncap = 0;
	struct dirent *e;
	kp_status ks = KP_OK;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (n == ncap) {
			ncap = ncap ? ncap * 2 : 32;
			char **v = realloc(names, ncap * sizeof *v);
			if (!v) {
				ks = kp_error_set(s->err, KP_ERR_NOMEM, 0, -1, "out of memory");
				break;
			}
			names = v;
		}
		if (!(names[n] = strdup(e->d_name))) {
			ks = kp_error_set(s->err, KP_ERR_NOMEM, 0, -1, "out of memory");
			break;
		}
		n++;
	}
	closedir(d);
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (size_t i = 0; i < n && ks == KP_OK; i++) {
		size_t nl = strlen(names[i]);
		bool slash = plen && path[plen - 1] == '/';
		if (plen + !slash + nl + 1 > cap) {
			ks = add_error(s, path, "path too long");
			continue;
		}
		size_t at = plen;
		if (!slash)
			path[at++] = '/';
		memcpy(path + at, names[i], nl + 1);
		ks = walk(s, path, at + nl, cap, depth + 1);
		path[plen] = '\0';
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ks;
}

kp_status kpi_scan(kpi_db *db, const char *const *paths, size_t npaths, kp_sig_symbol_fn sym,
                   void *sym_ctx, kpi_progress_fn fn, void *ctx, kpi_summary *out, kp_error *err)
{
	kp_error_clear(err);
	memset(out, 0, sizeof *out);
	idx_note_own_files(db);
	scan s = {.db = db, .sym = sym, .sym_ctx = sym_ctx, .fn = fn, .ctx = ctx, .sum = out, .err = err};
	enum { CAP = 4096 };
	char *buf = malloc(CAP);
	if (!buf)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	char cwd[CAP];
	bool have_cwd = getcwd(cwd, sizeof cwd) != NULL;
	kp_status st = tx_begin(&s);
	for (size_t i = 0; i < npaths && st == KP_OK; i++) {
		const char *p = paths[i];
		int n = p[0] == '/' || !have_cwd ? snprintf(buf, CAP, "%s", p)
		                                 : snprintf(buf, CAP, "%s/%s", cwd, p);
		if (n < 0 || n >= CAP) {
			st = add_error(&s, p, "path too long");
			continue;
		}
		size_t len = (size_t)n;
		while (len > 1 && buf[len - 1] == '/')
			buf[--len] = '\0';
		while (len > 2 && buf[len - 1] == '.' && buf[len - 2] == '/')
			buf[len -= 2] = '\0';
		st = walk(&s, buf, len, CAP, 0);
	}
	if (st == KP_OK)
		st = tx_commit(&s);
	else if (s.in_tx)
		sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL); /* the failed batch only */
	free(s.dirty);
	free(buf);
	return st;
}

/* ---- re-signing ---- */

kp_status kpi_resign(kpi_db *db, kp_sig_symbol_fn fn, void *ctx, size_t *nchanged, kp_error *err)
{
	kp_error_clear(err);
	if (nchanged)
		*nchanged = 0;
	int64_t *ids = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *q = idx_stmt(db, Q_REPORT_IDS, err);
	if (!q)
		return KP_ERR_DB;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			int64_t *v = realloc(ids, cap * sizeof *v);
			if (!v) {
				sqlite3_reset(q);
				free(ids);
				return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
			}
			ids = v;
		}
		ids[n++] = sqlite3_column_int64(q, 0);
	}
	sqlite3_reset(q);
	if (rc != SQLITE_DONE) {
		free(ids);
		return idx_dberr(db, err, "listing reports");
	}
	scan s = {.db = db, .err = err};
	kp_status st = tx_begin(&s);
	for (size_t i = 0; i < n && st == KP_OK; i++) {
		size_t len;
		int64_t old_gid = 0;
		if ((q = idx_stmt(db, Q_REPORT_ARCHIVE, err))) {
			sqlite3_bind_int64(q, 1, ids[i]);
			if (sqlite3_step(q) == SQLITE_ROW)
				old_gid = sqlite3_column_int64(q, 3);
			sqlite3_reset(q);
		}
		char *data = idx_archive_bytes(db, ids[i], &len, err);
		if (!data) {
			st = err ? err->code : KP_ERR_DB;
			break;
		}
		kp_report *r = NULL;
		st = kp_report_parse(data, len, NULL, &r, err);
		free(data);
		if (st != KP_OK)
			break;
		kp_sig sig;
		st = kp_sig_compute(r, fn, ctx, &sig, err);
		if (st != KP_OK) {
			kp_report_free(&r);
			break;
		}
		int64_t gid = 0;
		if ((st = group_for(db, &sig, &gid, err)) == KP_OK && (q = idx_stmt(db, Q_GROUP_SET_TITLE, err))) {
			sqlite3_bind_int64(q, 1, gid);
			sqlite3_bind_text(q, 2, sig.title, -1, SQLITE_STATIC);
			bind_opt(q, 3, sig.culprit);
			rc = sqlite3_step(q);
			sqlite3_reset(q);
			if (rc != SQLITE_DONE)
				st = idx_dberr(db, err, "updating a group");
		}
		if (st == KP_OK && (q = idx_stmt(db, Q_REPORT_RESIGN, err))) {
			sqlite3_bind_int64(q, 1, ids[i]);
			/* the report's own headline: the normalised one is only a key */
			sqlite3_bind_text(q, 2, r->headline ? r->headline : sig.headline, -1, SQLITE_STATIC);
			sqlite3_bind_text(q, 3, sig.exact_key, -1, SQLITE_STATIC);
			sqlite3_bind_int64(q, 4, gid);
			rc = sqlite3_step(q);
			sqlite3_reset(q);
			if (rc != SQLITE_DONE)
				st = idx_dberr(db, err, "updating a report");
		}
		kp_sig_free(&sig);
		kp_report_free(&r);
		if (st == KP_OK && gid != old_gid) {
			if (nchanged)
				(*nchanged)++;
			if ((st = mark_dirty(&s, gid)) == KP_OK && old_gid)
				st = mark_dirty(&s, old_gid);
		}
		s.batch_work++;
		if (st == KP_OK)
			st = maybe_commit(&s);
	}
	free(ids);
	if (st == KP_OK)
		st = idx_exec(db, Q_GROUP_DELETE_EMPTY, err);
	if (st == KP_OK)
		st = tx_commit(&s);
	else if (s.in_tx)
		sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
	free(s.dirty);
	return st;
}
