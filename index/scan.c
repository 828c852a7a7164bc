/* scan.c: the scanner's folder walk and its batches (transactions and the
 * groups they touch), and re-signing; scan_file.c reads, parses, signs and
 * records each file, the reading to signing done ahead on scan_pool.c's
 * workers.  No query language here: every write is a store op. */
#include "scan.h"
#include "archive.h"
#include "kp_fs.h"
#include "kp_vec.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A batch is committed after the store's batch_files parsed files or this
 * much time, so a kill loses little and a second process gets the lock
 * soon.  Each commit writes every page its batch touched (the indexes'
 * pages are spread over their width) and recounts the groups its
 * superseded or re-signed reports touched (added ones are counted as they
 * are added, counts_on_add): at half a second, a cold index of 100k
 * reports spent more time committing than parsing (issue 25). */
#define BATCH_NS 2000000000LL

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- transactions ---- */

static kp_status refresh_groups(scan *s)
{
	kp_status st = s->db->ops->groups_refresh(s->db, s->dirty, s->ndirty, s->err);
	s->ndirty = 0;
	return st;
}

static kp_status tx_begin(scan *s)
{
	kp_status st = s->db->ops->begin(s->db, s->err);
	if (st == KP_OK) {
		s->in_tx = true;
		s->batch_work = 0;
		s->batch_start = mono_ns();
		if (!s->now)
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
		st = s->db->ops->commit(s->db, s->err);
	if (st != KP_OK) {
		s->db->ops->rollback(s->db);
		s->ndirty = 0;
	} else if (s->sum) {
		s->sum->new_reports += s->pend_new;
		s->sum->superseded += s->pend_superseded;
	}
	s->pend_new = s->pend_superseded = 0;
	s->in_tx = false;
	return st;
}

static kp_status maybe_commit(scan *s)
{
	if (s->batch_work < s->db->ops->batch_files && mono_ns() - s->batch_start < BATCH_NS)
		return KP_OK;
	kp_status st = tx_commit(s);
	return st == KP_OK ? tx_begin(s) : st;
}

/* The store failed on path: the summary counts it and the message names
 * it.  A store that commits each file on its own (a shared server) loses
 * only that file's transaction: it is rolled back and the walk goes on
 * with the rest; a lost connection stops the scan (ops.lost), with its
 * one error.  A batching store loses the whole batch, so the scan stops. */
static kp_status store_failed(scan *s, const char *path)
{
	if (s->db->ops->lost && s->db->ops->lost(s->db))
		return KP_ERR_DB;   /* s->err says so; no file is to blame */
	char m[sizeof s->err->msg];
	snprintf(m, sizeof m, "%s", s->err->msg);
	kp_status st = kpi__scan_add_error(s, path, m);
	if (st != KP_OK)
		return st;
	if (s->db->ops->batch_files != 1)
		return kp_error_set(s->err, KP_ERR_DB, 0, -1, "indexing %.200s: %s", path, m);
	s->db->ops->rollback(s->db);
	s->in_tx = false;
	s->ndirty = 0;
	s->pend_new = s->pend_superseded = 0;
	kp_error_clear(s->err);
	return tx_begin(s);
}

/* One file kpi__scan_look left work for, recorded (p freed). */
static kp_status finish(scan *s, kpi__prep *p)
{
	kp_status ks = kpi__scan_file(s, p);
	if (ks == KP_ERR_DB)
		ks = store_failed(s, p->path);
	else if (ks == KP_OK)
		ks = maybe_commit(s);
	kpi__prep_free(&p);
	return ks;
}

/* The files handed to the workers, recorded in walk order. */
static kp_status drain(scan *s)
{
	kp_status ks = KP_OK;
	kpi__prep *p;
	while (ks == KP_OK && s->pool && (p = kpi__pool_pop(s->pool)))
		ks = finish(s, p);
	return ks;
}

/* A note of the walk's own, after those of the files before it (the
 * summary's lists keep walk order). */
static kp_status walk_note(scan *s, const char *path, const char *msg, bool skip)
{
	kp_status ks = drain(s);
	if (ks != KP_OK)
		return ks;
	return skip ? kpi__scan_add_skip(s, path, msg) : kpi__scan_add_error(s, path, msg);
}

/* A regular file found by the walk: looked at now, recorded now (no
 * workers) or once the workers have prepared it and the files before it
 * are recorded. */
static kp_status regular_file(scan *s, const char *path, const struct stat *st)
{
	bool work = false;
	kp_status ks = kpi__scan_look(s, path, st, &work);
	if (ks == KP_ERR_DB)
		return (ks = drain(s)) == KP_OK ? store_failed(s, path) : ks;
	if (ks != KP_OK || !work)
		return ks == KP_OK ? maybe_commit(s) : ks;
	kpi__prep *p = kpi__prep_new(path, st, s->sym == NULL);
	if (!p)
		return kp_error_set(s->err, KP_ERR_NOMEM, 0, -1, "out of memory");
	if (!s->pool)
		return finish(s, p);
	while (ks == KP_OK && !kpi__pool_room(s->pool, p))
		ks = finish(s, kpi__pool_pop(s->pool));
	if (ks != KP_OK) {
		kpi__prep_free(&p);
		return ks;
	}
	kpi__pool_push(s->pool, p);
	return KP_OK;
}

static kp_status walk(scan *s, char *path, size_t plen, size_t cap, int depth)
{
	struct stat st;
	if (lstat(path, &st) != 0) {
		if (errno == ENOENT && depth == 0)
			return KP_OK;
		/* listed a moment ago: moved away (into Retired/) or removed */
		if (errno == ENOENT)
			return walk_note(s, path, "gone while indexing (moved or removed)", true);
		char msg[300];
		snprintf(msg, sizeof msg, "cannot stat: %s", strerror(errno));
		return walk_note(s, path, msg, false);
	}
	if (S_ISLNK(st.st_mode)) {
		if (stat(path, &st) != 0 || (S_ISDIR(st.st_mode) && depth > 0))
			return KP_OK; /* dangling, or a folder link inside a tree: not followed */
	}
	if (S_ISREG(st.st_mode))
		return regular_file(s, path, &st);
	if (!S_ISDIR(st.st_mode) || depth > 64)
		return KP_OK;
	/* sorted, so the order of new ids does not depend on the file system */
	char **names;
	size_t n;
	kp_error e;
	kp_status ks = kp_fs_dir_names(path, &names, &n, &e);
	if (ks == KP_ERR_IO)
		return walk_note(s, path, e.msg, false);
	if (ks != KP_OK)
		return kp_error_set(s->err, ks, 0, -1, "%s", e.msg);
	for (size_t i = 0; i < n && ks == KP_OK; i++) {
		size_t nl = strlen(names[i]);
		bool slash = plen && path[plen - 1] == '/';
		if (plen + !slash + nl + 1 > cap) {
			ks = walk_note(s, path, "path too long", false);
			continue;
		}
		size_t at = plen;
		if (!slash)
			path[at++] = '/';
		memcpy(path + at, names[i], nl + 1);
		ks = walk(s, path, at + nl, cap, depth + 1);
		path[plen] = '\0';
	}
	kp_fs_names_free(names, n);
	return ks;
}

/* Lexically: no "//", no "." components, no trailing slash; ".." drops the
 * component before it. */
static void norm_lexical(char *p)
{
	char *out = p, *in = p;
	while (*in) {
		while (*in == '/')
			in++;
		const char *c = in;
		while (*in && *in != '/')
			in++;
		size_t n = (size_t)(in - c);
		if (n == 0 || (n == 1 && c[0] == '.'))
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			while (out > p && *--out != '/')
				;
			continue;
		}
		*out++ = '/';
		memmove(out, c, n);
		out += n;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

/* Makes the absolute path p (cap bytes) one spelling per file: its folder
 * resolved with realpath (so /tmp/w//r, /tmp/w/./r and /tmp/w/../w/r are
 * one path, and ".." means what the kernel makes of it) and its last
 * component kept as given, so a root that is itself a symbolic link keeps
 * its name.  Lexical when the folder cannot be resolved (it may not exist).
 * False when the result does not fit. */
static bool norm_root(char *p, size_t cap)
{
	size_t len = strlen(p);
	while (len > 1 && p[len - 1] == '/')
		p[--len] = '\0';
	char *slash = strrchr(p, '/');
	const char *last = slash + 1;
	bool dots = strcmp(last, ".") == 0 || strcmp(last, "..") == 0 || !*last;
	char *real;
	if (dots) {
		real = realpath(p, NULL);
		last = "";
	} else if (slash == p) {
		real = strdup("/");
	} else {
		*slash = '\0';
		real = realpath(p, NULL);
		*slash = '/';
	}
	if (!real) {
		norm_lexical(p);
		return true;
	}
	size_t rl = strcmp(real, "/") == 0 ? 0 : strlen(real), nl = strlen(last);
	bool fits = rl + 1 + nl + 1 <= cap;
	if (fits) {
		memmove(p + rl + 1, last, nl + 1);
		memcpy(p, real, rl);
		p[rl] = '/';
		if (!nl && rl) /* a resolved folder: no trailing slash */
			p[rl] = '\0';
	}
	free(real);
	return fits;
}

/* p made absolute (against cwd, when known) and normalised into buf;
 * false when it does not fit. */
static bool root_path(const char *p, const char *cwd, char *buf, size_t cap)
{
	int n = p[0] == '/' || !cwd ? snprintf(buf, cap, "%s", p) : snprintf(buf, cap, "%s/%s", cwd, p);
	return n >= 0 && (size_t)n < cap && norm_root(buf, cap);
}

bool kpi_root_path(const char *p, char *buf, size_t cap)
{
	char cwd[4096];
	return root_path(p, getcwd(cwd, sizeof cwd) ? cwd : NULL, buf, cap);
}

/* The regular files walk() would hand to kpi__scan_file under path (the
 * same links followed, the same depth), for "N of M" progress: names only,
 * nothing read.  Errors count nothing (the walk reports them). */
static size_t count_files(kpi_db *db, char *path, size_t plen, size_t cap, int depth)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return 0;
	if (S_ISLNK(st.st_mode) && (stat(path, &st) != 0 || (S_ISDIR(st.st_mode) && depth > 0)))
		return 0;
	if (S_ISREG(st.st_mode))
		return !(db->ops->is_own_file && db->ops->is_own_file(db, &st));
	if (!S_ISDIR(st.st_mode) || depth > 64)
		return 0;
	DIR *d = opendir(path);
	if (!d)
		return 0;
	size_t n = 0;
	bool slash = plen && path[plen - 1] == '/';
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t nl = strlen(e->d_name);
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 || plen + !slash + nl + 1 > cap)
			continue;
		size_t at = plen;
		if (!slash)
			path[at++] = '/';
		memcpy(path + at, e->d_name, nl + 1);
		n += count_files(db, path, at + nl, cap, depth + 1);
		path[plen] = '\0';
	}
	closedir(d);
	return n;
}

kp_status kpi_scan(kpi_db *db, const char *const *paths, size_t npaths, kp_sig_symbol_fn sym,
                   void *sym_ctx, kpi_progress_fn fn, void *ctx, kpi_summary *out, kp_error *err)
{
	kp_error_clear(err);
	memset(out, 0, sizeof *out);
	scan s = {.db = db, .sym = sym, .sym_ctx = sym_ctx, .fn = fn, .ctx = ctx, .sum = out, .err = err};
	char *left = NULL;
	if (db->ops->meta_get(db, KPI__META_SHA1_LEFT, &left, err) != KP_OK)
		return err->code;
	s.sha1_left = left && strcmp(left, "0") != 0;
	free(left);
	enum { CAP = 4096 };
	char *buf = malloc(CAP);
	if (!buf)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	char cwd[CAP];
	bool have_cwd = getcwd(cwd, sizeof cwd) != NULL;
	for (size_t i = 0; fn && i < npaths; i++)   /* "N of M": count first */
		if (root_path(paths[i], have_cwd ? cwd : NULL, buf, CAP))
			s.total += count_files(db, buf, strlen(buf), CAP, 0);
	s.pool = kpi__pool_new();
	kp_status st = tx_begin(&s);
	for (size_t i = 0; i < npaths && st == KP_OK; i++) {
		const char *p = paths[i];
		if (!root_path(p, have_cwd ? cwd : NULL, buf, CAP)) {
			st = walk_note(&s, p, "path too long", false);
			continue;
		}
		st = walk(&s, buf, strlen(buf), CAP, 0);
	}
	if (st == KP_OK)
		st = drain(&s);
	if (st == KP_OK)
		st = tx_commit(&s);
	else if (s.in_tx)
		db->ops->rollback(db); /* the failed batch only */
	kpi__pool_free(&s.pool);
	free(s.dirty);
	free(buf);
	return st;
}

/* ---- re-signing ---- */

kp_status kpi_resign(kpi_db *db, kp_sig_symbol_fn fn, void *ctx, kpi_resign_summary *outp,
                     kp_error *err)
{
	kp_error_clear(err);
	kpi_resign_summary local = {0}, *out = outp ? outp : &local;
	memset(out, 0, sizeof *out);
	int64_t *ids = NULL;
	size_t n = 0, errors_cap = 0;
	kp_status st = db->ops->report_ids(db, &ids, &n, err);
	if (st != KP_OK)
		return st;
	out->reports = n;
	/* counted when their batch commits */
	size_t pend_done = 0, pend_changed = 0;
	scan s = {.db = db, .err = err};
	st = tx_begin(&s);
	for (size_t i = 0; i < n && st == KP_OK; i++) {
		int64_t old_gid = 0;
		kp_report *r = NULL;
		kp_error lerr;
		st = kpi__load_archived(db, ids[i], &r, &old_gid, &lerr);
		if (st == KP_ERR_NOMEM) {
			*err = lerr;
			break;
		}
		if (st != KP_OK) { /* this report's archive: skip it, say so */
			char name[32], msg[300];
			snprintf(name, sizeof name, "@%lld", (long long)ids[i]);
			kp_error_format(&lerr, msg, sizeof msg);
			kpi_scan_error *e = kp_vec_push((void **)&out->error_list, &out->nerror_list,
			                                &errors_cap, sizeof *e);
			if (!e || !(e->path = strdup(name)) || !(e->msg = strdup(msg))) {
				st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
				break;
			}
			st = KP_OK;
			continue;
		}
		kp_sig sig;
		st = kp_sig_compute(r, fn, ctx, &sig, err);
		if (st != KP_OK) {
			kp_report_free(&r);
			break;
		}
		int64_t gid = 0;
		st = kpi__scan_group_for(db, &sig, true, &gid, err);
		/* the report's own headline: the normalised one is only a key */
		if (st == KP_OK)
			st = db->ops->report_regroup(db, ids[i], r->headline ? r->headline : sig.headline,
			                             sig.exact_key, gid, err);
		kpi__facts f;
		kpi__report_facts(r, &f);
		if (st == KP_OK)
			st = db->ops->report_facts(db, ids[i], &f, err);
		kp_sig_free(&sig);
		kp_report_free(&r);
		if (st == KP_OK && gid != old_gid)
			pend_changed++;
		/* its date may have changed too (an undated report indexed before
		 * schema 4): the group is recounted either way */
		if (st == KP_OK && (st = kpi__scan_mark_dirty(&s, gid)) == KP_OK && old_gid && gid != old_gid)
			st = kpi__scan_mark_dirty(&s, old_gid);
		if (st == KP_OK)
			pend_done++;
		s.batch_work++;
		if (st == KP_OK && s.batch_work >= s.db->ops->batch_files) {
			if ((st = tx_commit(&s)) == KP_OK) {
				out->resigned += pend_done;
				out->changed += pend_changed;
				pend_done = pend_changed = 0;
				st = tx_begin(&s);
			}
		}
	}
	free(ids);
	if (st == KP_OK)
		st = db->ops->groups_prune(db, err);
	if (st == KP_OK && (st = tx_commit(&s)) == KP_OK) {
		out->resigned += pend_done;
		out->changed += pend_changed;
	} else if (s.in_tx) {
		db->ops->rollback(db);
	}
	free(s.dirty);
	if (!outp)
		kpi_resign_summary_free(&local);
	return st;
}

/* ---- rebuilding: the old index's archive ---- */

typedef struct salvage {
	scan s;
	kpi_rebuild_summary *out;
	kp_status st;
} salvage;

static int salvaged(void *ctx, const kpi__archive *a, const char *path)
{
	salvage *sv = ctx;
	kp_error e;
	size_t len;
	char *data = kpi__archive_unpack(a, "a report of the old index", &len, &e);
	if (!data) {
		if (e.code == KP_ERR_NOMEM) {
			*sv->s.err = e;
			sv->st = KP_ERR_NOMEM;
			return 1;
		}
		sv->out->unreadable++;
		return 0;
	}
	sv->out->archived++;
	bool stored = false;
	kp_status ks = kpi__scan_bytes(&sv->s, path, data, len, &stored);
	if (ks == KP_OK && stored)
		sv->out->restored++;
	if (ks == KP_OK)
		ks = maybe_commit(&sv->s);
	if (ks != KP_OK) {
		sv->st = ks;
		return 1;
	}
	return 0;
}

kp_status kpi__scan_salvage(kpi_db *db, const char *old_path, kp_sig_symbol_fn sym, void *sym_ctx,
                            kpi_rebuild_summary *out, kp_error *err)
{
	salvage sv = {.s = {.db = db, .sym = sym, .sym_ctx = sym_ctx, .sum = &out->archive, .err = err},
	              .out = out};
	kp_status st = tx_begin(&sv.s);
	if (st != KP_OK)
		return st;
	size_t unreadable = 0;
	bool foreign = false;
	kp_error oe;
	kp_status os = kpi__sqlite_salvage(old_path, salvaged, &sv, &unreadable, &foreign, &oe);
	out->unreadable += unreadable;
	st = sv.st;
	if (st == KP_OK && os != KP_OK) {
		if (foreign) {
			*err = oe;
			st = os;
		} else {
			out->old_unreadable = true;
			snprintf(out->old_error, sizeof out->old_error, "%s", oe.msg);
		}
	}
	if (st == KP_OK)
		st = tx_commit(&sv.s);
	else if (sv.s.in_tx)
		db->ops->rollback(db);
	free(sv.s.dirty);
	return st;
}
