/* store_sqlite_write.c: the sqlite store's write ops (transactions, paths,
 * reports, archives, groups, meta) and its ops table (store_sqlite.c opens
 * the handle; store_sqlite_query.c: the read ops). */
#include "store_sqlite.h"
#include "kp_hash.h"
#include "kp_vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SQ(h) ((kpi__sq *)(h))

/* ---- what a transaction has learnt (kpi__sq_memo) ---- */

static bool memo_eq(const void *ctx, uint32_t v, const void *key)
{
	return strcmp(((const kpi__sq_memo *)ctx)->e[v - 1].key, key) == 0;
}

static uint64_t memo_hash(const void *ctx, uint32_t v)
{
	return kp_hash_str(((const kpi__sq_memo *)ctx)->e[v - 1].key);
}

static bool memo_get(const kpi__sq_memo *m, const char *key, int64_t *val)
{
	if (!m->n)
		return false;
	uint32_t v = m->idx.slot[kp_htab_probe(&m->idx, kp_hash_str(key), memo_eq, m, key)];
	if (!v)
		return false;
	*val = m->e[v - 1].val;
	return true;
}

/* Remembers key; false when out of memory (then it is only forgotten:
 * the database still answers). */
static bool memo_put(kpi__sq_memo *m, const char *key, int64_t val)
{
	if (m->n >= UINT32_MAX - 1 || !kp_htab_room(&m->idx, 256, memo_hash, m))
		return false;
	size_t i = kp_htab_probe(&m->idx, kp_hash_str(key), memo_eq, m, key);
	if (!m->idx.slot[i]) {
		struct kpi__sq_learnt *e = kp_vec_push((void **)&m->e, &m->n, &m->e_cap, sizeof *e);
		if (!e)
			return false;
		if (!(e->key = strdup(key))) {
			m->n--;
			return false;
		}
		kp_htab_put(&m->idx, i, (uint32_t)m->n);
	}
	m->e[m->idx.slot[i] - 1].val = val;
	return true;
}

void kpi__sq_memo_clear(kpi__sq_memo *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->e[i].key);
	m->n = 0;
	if (m->idx.slot)
		memset(m->idx.slot, 0, m->idx.cap * sizeof *m->idx.slot);
	m->idx.n = 0;
	m->nowed = 0;
}

/* The memo key of kind k ('g', 'k', 'i') and s into buf (NULL when too
 * long to remember: then the database is asked). */
static const char *memo_key(char *buf, size_t size, char k, const char *s)
{
	int n = snprintf(buf, size, "%c%s", k, s);
	return n > 0 && (size_t)n < size ? buf : NULL;
}

/* The counts owed to group gid, added when new (NULL when out of memory). */
static struct kpi__sq_owed *owed_of(kpi__sq_memo *m, int64_t gid)
{
	char key[32];
	int64_t at;
	snprintf(key, sizeof key, "c%lld", (long long)gid);
	if (memo_get(m, key, &at) && at >= 0 && (size_t)at < m->nowed && m->owed[at].gid == gid)
		return &m->owed[at];
	struct kpi__sq_owed *o = kp_vec_push((void **)&m->owed, &m->nowed, &m->owed_cap, sizeof *o);
	if (!o)
		return NULL;
	*o = (struct kpi__sq_owed){.gid = gid, .first = KPI__UNDATED, .last = KPI__UNDATED};
	if (!memo_put(m, key, (int64_t)(m->nowed - 1))) { /* not remembered: written at once */
		m->nowed--;
		return NULL;
	}
	return o;
}

static kp_status refuse_readonly(kpi__sq *db, kp_error *err)
{
	return kp_error_set(err, KP_ERR_DB, 0, -1,
	                    "%s: the index is read-only here (no write permission on it or its "
	                    "folder); nothing was written", db->path);
}

static kp_status sq_begin(kpi_db *h, kp_error *err)
{
	if (SQ(h)->readonly)
		return refuse_readonly(SQ(h), err);
	kpi__sq_note_own_files(SQ(h)); /* -wal and -shm come and go */
	kpi__sq_memo_clear(&SQ(h)->memo);
	return kpi__sq_exec(SQ(h), Q_BEGIN, err);
}

static kp_status step_done(kpi__sq *db, sqlite3_stmt *q, kp_error *err, const char *what);

/* Writes the counts owed to one group. */
static kp_status pay_one(kpi__sq *db, const struct kpi__sq_owed *o, kp_error *err)
{
	sqlite3_stmt *q = kpi__sq_stmt(db, Q_GROUP_COUNT_ADD, err);
	if (!q)
		return KP_ERR_DB;
	sqlite3_bind_int64(q, 1, o->gid);
	sqlite3_bind_int64(q, 2, o->hosts);
	if (o->first > KPI__UNDATED) {
		sqlite3_bind_int64(q, 3, o->first);
		sqlite3_bind_int64(q, 5, o->last);
	}
	sqlite3_bind_int64(q, 4, o->count);
	return step_done(db, q, err, "updating group counts");
}

/* Writes the counts report_add owes (kpi__sq_memo). */
static kp_status pay_counts(kpi__sq *db, kp_error *err)
{
	kpi__sq_memo *m = &db->memo;
	for (size_t i = 0; i < m->nowed; i++) {
		kp_status st = pay_one(db, &m->owed[i], err);
		if (st != KP_OK)
			return st;
	}
	m->nowed = 0; /* the "c" keys left point past it: owed_of checks */
	return KP_OK;
}

static kp_status sq_commit(kpi_db *h, kp_error *err)
{
	kp_status st = pay_counts(SQ(h), err);
	return st == KP_OK ? kpi__sq_exec(SQ(h), Q_COMMIT, err) : st;
}

static void sq_rollback(kpi_db *h)
{
	kpi__sq_memo_clear(&SQ(h)->memo);
	sqlite3_exec(SQ(h)->db, "ROLLBACK", NULL, NULL, NULL);
}

static bool sq_is_own_file(kpi_db *h, const struct stat *st)
{
	kpi__sq *db = SQ(h);
	for (int i = 0; i < db->nown; i++)
		if (st->st_dev == db->own_dev[i] && st->st_ino == db->own_ino[i])
			return true;
	return false;
}

static void bind_opt(sqlite3_stmt *q, int i, const char *v)
{
	if (v)
		kpi__sq_bind_text(q, i, v);
}

/* Steps a write statement to its end; KP_ERR_DB naming what otherwise. */
static kp_status step_done(kpi__sq *db, sqlite3_stmt *q, kp_error *err, const char *what)
{
	int rc = sqlite3_step(q);
	sqlite3_reset(q);
	return rc == SQLITE_DONE ? KP_OK : kpi__sq_err(db, err, what);
}

static kp_status sq_path_get(kpi_db *h, const char *path, kpi__path_rec *out, kp_error *err)
{
	kpi__sq *db = SQ(h);
	memset(out, 0, sizeof *out);
	sqlite3_stmt *q = kpi__sq_stmt(db, Q_PATH_GET, err);
	if (!q)
		return KP_ERR_DB;
	kpi__sq_bind_text(q, 1, path);
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		out->known = true;
		out->report_id = sqlite3_column_int64(q, 0);
		out->size = sqlite3_column_int64(q, 1);
		out->mtime_ns = sqlite3_column_int64(q, 2);
	}
	sqlite3_reset(q);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? KP_OK : kpi__sq_err(db, err, "looking up a path");
}

static kp_status sq_path_put(kpi_db *h, const char *path, int64_t report_id, int64_t size,
                             int64_t mtime_ns, int64_t seen_at, const char *skip, kp_error *err)
{
	kpi__sq *db = SQ(h);
	sqlite3_stmt *q = kpi__sq_stmt(db, Q_PATH_PUT, err);
	if (!q)
		return KP_ERR_DB;
	kpi__sq_bind_text(q, 1, path);
	if (report_id > 0)
		sqlite3_bind_int64(q, 2, report_id);
	sqlite3_bind_int64(q, 3, size);
	sqlite3_bind_int64(q, 4, mtime_ns);
	sqlite3_bind_int64(q, 5, seen_at);
	bind_opt(q, 6, skip);
	return step_done(db, q, err, "recording a path");
}

static kp_status sq_report_find(kpi_db *h, const char *hash, const char *incident, int64_t *id,
                                kp_error *err)
{
	kpi__sq *db = SQ(h);
	*id = 0;
	sqlite3_stmt *q = kpi__sq_stmt(db, hash ? Q_REPORT_BY_HASH : Q_REPORT_BY_INCIDENT, err);
	if (!q)
		return KP_ERR_DB;
	kpi__sq_bind_text(q, 1, hash ? hash : incident);
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(q, 0);
	sqlite3_reset(q);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? KP_OK : kpi__sq_err(db, err, "looking up a report");
}

/* Binds r's columns as ?1..?15, ?17, ?18 (Q_REPORT_INSERT, Q_REPORT_UPDATE;
 * ?16 is the id of an update, ?19 the kext set and ?20 the image set,
 * bound by the caller after kset_id and image_set_of, whose statements
 * come first). */
static void bind_report(sqlite3_stmt *q, const kpi__new_report *r)
{
	kpi__sq_bind_text(q, 1, r->content_hash);
	bind_opt(q, 2, r->incident_id);
	sqlite3_bind_int64(q, 3, r->size);
	bind_opt(q, 4, r->format);
	bind_opt(q, 5, r->timestamp);
	sqlite3_bind_int64(q, 6, r->ts);
	bind_opt(q, 7, r->os_version);
	bind_opt(q, 8, r->kernel_uuid);
	bind_opt(q, 9, r->headline);
	kpi__sq_bind_text(q, 10, r->exact_key);
	sqlite3_bind_int64(q, 11, r->group_id);
	sqlite3_bind_int64(q, 12, r->indexed_at);
	bind_opt(q, 13, r->host);
	bind_opt(q, 14, r->host_key);
	bind_opt(q, 15, r->model);
	bind_opt(q, 17, r->kind);
	bind_opt(q, 18, r->zone);
	bind_opt(q, 21, r->cls);
}

/* A set (kind 'k' kext, 'i' image) by its hash: *out its id from the
 * transaction's memory or through get, 0 when there is none yet. */
static kp_status set_find(kpi__sq *db, char kind, kpi__sq_sql get, const char *hash, int64_t *out,
                          kp_error *err)
{
	char kb[80];   /* a kind and a SHA-256 */
	const char *mk = memo_key(kb, sizeof kb, kind, hash);
	*out = 0;
	if (mk && memo_get(&db->memo, mk, out))
		return KP_OK;
	sqlite3_stmt *q = kpi__sq_stmt(db, get, err);
	if (!q)
		return KP_ERR_DB;
	sqlite3_bind_text(q, 1, hash, -1, SQLITE_STATIC);
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(q, 0);
	sqlite3_reset(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return kpi__sq_err(db, err, kind == 'k' ? "looking up a kext set" : "looking up an image set");
	if (*out && mk)
		memo_put(&db->memo, mk, *out);
	return KP_OK;
}

/* Remembers the set just added. */
static void set_added(kpi__sq *db, char kind, const char *hash, int64_t id)
{
	char kb[80];   /* a kind and a SHA-256 */
	const char *mk = memo_key(kb, sizeof kb, kind, hash);
	if (mk)
		memo_put(&db->memo, mk, id);
}

/* The id of the kext set ks (schema 8), added with its members when new;
 * 0 when ks is empty. */
static kp_status kset_id(kpi__sq *db, const kpi__kext_set *ks, int64_t *out, kp_error *err)
{
	*out = 0;
	if (!ks->n)
		return KP_OK;
	kp_status fs = set_find(db, 'k', Q_KSET_GET, ks->hash, out, err);
	if (fs != KP_OK || *out)
		return fs;
	sqlite3_stmt *q = kpi__sq_stmt(db, Q_KSET_INSERT, err);
	if (!q)
		return KP_ERR_DB;
	sqlite3_bind_text(q, 1, ks->hash, -1, SQLITE_STATIC);
	kp_status st = step_done(db, q, err, "recording a kext set");
	if (st != KP_OK)
		return st;
	int64_t set = sqlite3_last_insert_rowid(db->db);
	for (size_t i = 0; i < ks->n; i++) {
		const kpi__image *k = &ks->kexts[i];
		if (!(q = kpi__sq_stmt(db, Q_KEXT_INSERT, err)))
			return KP_ERR_DB;
		kpi__sq_bind_text(q, 1, k->name);
		kpi__sq_bind_text(q, 2, k->uuid_hex);
		if ((st = step_done(db, q, err, "recording a kext")) != KP_OK)
			return st;
		int64_t kid = sqlite3_changes(db->db) ? sqlite3_last_insert_rowid(db->db) : 0;
		if (!kid) {
			if (!(q = kpi__sq_stmt(db, Q_KEXT_GET, err)))
				return KP_ERR_DB;
			kpi__sq_bind_text(q, 1, k->name);
			kpi__sq_bind_text(q, 2, k->uuid_hex);
			if (sqlite3_step(q) == SQLITE_ROW)
				kid = sqlite3_column_int64(q, 0);
			sqlite3_reset(q);
			if (!kid)
				return kpi__sq_err(db, err, "finding a kext");
		}
		if (!(q = kpi__sq_stmt(db, Q_KSET_MEMBER, err)))
			return KP_ERR_DB;
		sqlite3_bind_int64(q, 1, kid);
		sqlite3_bind_int64(q, 2, set);
		if ((st = step_done(db, q, err, "recording a kext set")) != KP_OK)
			return st;
	}
	*out = set;
	set_added(db, 'k', ks->hash, set);
	return KP_OK;
}

kp_status kpi__sq_image_set(kpi__sq *db, const kpi__image *v, size_t n, const char *hash, int64_t *out,
                            kp_error *err)
{
	*out = 0;
	if (!n)
		return KP_OK;
	kp_status st = set_find(db, 'i', Q_ISET_GET, hash, out, err);
	if (st != KP_OK || *out)
		return st;
	sqlite3_stmt *q = kpi__sq_stmt(db, Q_ISET_INSERT, err);
	if (!q)
		return KP_ERR_DB;
	sqlite3_bind_text(q, 1, hash, -1, SQLITE_STATIC);
	if ((st = step_done(db, q, err, "recording an image set")) != KP_OK)
		return st;
	int64_t set = sqlite3_last_insert_rowid(db->db);
	for (size_t i = 0; i < n; i++) {
		if (!(q = kpi__sq_stmt(db, Q_IMAGE_INSERT, err)))
			return KP_ERR_DB;
		sqlite3_bind_int64(q, 1, set);
		kpi__sq_bind_text(q, 2, v[i].uuid_hex);
		const char *name = v[i].name ? v[i].name : "", *dot = strrchr(name, '.');
		kpi__sq_bind_text(q, 3, name);
		sqlite3_bind_int(q, 4, v[i].rank);
		kpi__sq_bind_text(q, 5, dot ? dot + 1 : name); /* KPI__LAST_PART_SQL's */
		if ((st = step_done(db, q, err, "recording images")) != KP_OK)
			return st;
	}
	*out = set;
	set_added(db, 'i', hash, set);
	return KP_OK;
}

/* The image set of r: a list given without its hash (a caller of the ops
 * other than the scanner) is made canonical here. */
static kp_status image_set_of(kpi__sq *db, const kpi__new_report *r, int64_t *out, kp_error *err)
{
	if (r->images_hash && r->images_hash[0])
		return kpi__sq_image_set(db, r->images, r->nimages, r->images_hash, out, err);
	*out = 0;
	if (!r->nimages)
		return KP_OK;
	kpi__image *v = malloc(r->nimages * sizeof *v);
	if (!v)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	memcpy(v, r->images, r->nimages * sizeof *v);
	for (size_t i = 0; i < r->nimages; i++)
		if (!v[i].name)
			v[i].name = "";
	char hash[KP_SHA256_HEX];
	size_t n = kpi__images_canon(v, r->nimages, hash);
	kp_status st = kpi__sq_image_set(db, v, n, hash, out, err);
	free(v);
	return st;
}

/* Records text (NULL: none) as report id's search text. */
static kp_status add_text(kpi__sq *db, int64_t id, const char *text, kp_error *err)
{
	if (!text)
		return KP_OK;
	sqlite3_stmt *q = kpi__sq_stmt(db, Q_FTS_INSERT, err);
	if (!q)
		return KP_ERR_DB;
	sqlite3_bind_int64(q, 1, id);
	kpi__sq_bind_text(q, 2, text);
	return step_done(db, q, err, "recording the panic text");
}

/* r, just added, counted in its group (counts_on_add): one more report,
 * its host when new to the group, its date in first/last seen; owed
 * until the transaction pays them (pay_counts), so a batch writes each
 * of its groups once. */
static kp_status count_added(kpi__sq *db, const kpi__new_report *r, kp_error *err)
{
	const char *ident = r->host_key ? r->host_key : r->host ? r->host : "";
	char hb[320];
	int len = snprintf(hb, sizeof hb, "h%lld:%s", (long long)r->group_id, ident);
	const char *mk = len > 0 && (size_t)len < sizeof hb ? hb : NULL;
	int64_t seen;
	bool new_host = false;
	if (!mk || !memo_get(&db->memo, mk, &seen)) {
		sqlite3_stmt *q = kpi__sq_stmt(db, Q_GROUP_HOST_ADD, err);
		if (!q)
			return KP_ERR_DB;
		sqlite3_bind_int64(q, 1, r->group_id);
		kpi__sq_bind_text(q, 2, ident);
		kp_status st = step_done(db, q, err, "counting hosts");
		if (st != KP_OK)
			return st;
		new_host = sqlite3_changes(db->db) > 0;
		if (mk)
			memo_put(&db->memo, mk, 1);
	}
	struct kpi__sq_owed now = {.gid = r->group_id, .first = KPI__UNDATED, .last = KPI__UNDATED};
	struct kpi__sq_owed *o = owed_of(&db->memo, r->group_id);
	if (!o) /* not remembered (out of memory): paid at once */
		o = &now;
	o->count++;
	o->hosts += new_host;
	if (r->ts > KPI__UNDATED) {
		if (o->first == KPI__UNDATED || r->ts < o->first)
			o->first = r->ts;
		if (o->last == KPI__UNDATED || r->ts > o->last)
			o->last = r->ts;
	}
	return o == &now ? pay_one(db, o, err) : KP_OK;
}

/* Add unless stored, in one statement: the insert does nothing when r's
 * content hash or incident id is stored already (both UNIQUE).  The sets
 * come first: their statements would reset the
 * report's (a set made for a report found stored stays, unnamed). */
static kp_status sq_report_add(kpi_db *h, const kpi__new_report *r, int64_t *id, bool *added,
                               kp_error *err)
{
	kpi__sq *db = SQ(h);
	*added = false;
	*id = 0;
	int64_t kset, iset;
	kp_status st = kset_id(db, &r->kexts, &kset, err);
	if (st == KP_OK)
		st = image_set_of(db, r, &iset, err);
	if (st != KP_OK)
		return st;
	sqlite3_stmt *q = kpi__sq_stmt(db, Q_REPORT_INSERT, err);
	if (!q)
		return KP_ERR_DB;
	bind_report(q, r);
	if (kset)
		sqlite3_bind_int64(q, 19, kset);
	if (iset)
		sqlite3_bind_int64(q, 20, iset);
	if ((st = step_done(db, q, err, "recording a report")) != KP_OK)
		return st;
	if (sqlite3_changes(db->db) == 0)
		return KP_OK; /* stored: kpi__report_add finds it */
	*id = sqlite3_last_insert_rowid(db->db);
	*added = true;
	if ((st = add_text(db, *id, r->text, err)) != KP_OK)
		return st;
	return count_added(db, r, err);
}

static kp_status sq_report_replace(kpi_db *h, int64_t id, const kpi__new_report *r,
                                   const char *old_text, const void *z, size_t zlen,
                                   kp_error *err)
{
	kpi__sq *db = SQ(h);
	int64_t kset, iset;
	kp_status st = kset_id(db, &r->kexts, &kset, err);
	if (st == KP_OK)
		st = image_set_of(db, r, &iset, err);
	if (st != KP_OK)
		return st;
	sqlite3_stmt *q = kpi__sq_stmt(db, Q_REPORT_UPDATE, err);
	if (!q)
		return KP_ERR_DB;
	bind_report(q, r);
	sqlite3_bind_int64(q, 16, id);
	if (kset)
		sqlite3_bind_int64(q, 19, kset);
	if (iset)
		sqlite3_bind_int64(q, 20, iset);
	st = step_done(db, q, err, "replacing a report");
	if (st != KP_OK)
		return st;
	if (sqlite3_changes(db->db) == 0)
		return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "no report @%lld in the index",
		                    (long long)id);
	if (old_text || !db->fts) {
		if (!(q = kpi__sq_stmt(db, Q_FTS_DELETE, err)))
			return KP_ERR_DB;
		sqlite3_bind_int64(q, 1, id);
		if (db->fts)
			kpi__sq_bind_text(q, 2, old_text);
		if ((st = step_done(db, q, err, "replacing the panic text")) != KP_OK)
			return st;
	}
	if ((st = add_text(db, id, r->text, err)) != KP_OK)
		return st;
	if (!(q = kpi__sq_stmt(db, Q_ARCHIVE_UPDATE, err)))
		return KP_ERR_DB;
	sqlite3_bind_int64(q, 1, id);
	sqlite3_bind_blob(q, 2, z, (int)zlen, SQLITE_STATIC);
	return step_done(db, q, err, "replacing an archive");
}

static kp_status sq_archive_add(kpi_db *h, int64_t id, const void *z, size_t zlen, kp_error *err)
{
	kpi__sq *db = SQ(h);
	sqlite3_stmt *q = kpi__sq_stmt(db, Q_ARCHIVE_INSERT, err);
	if (!q)
		return KP_ERR_DB;
	sqlite3_bind_int64(q, 1, id);
	sqlite3_bind_blob(q, 2, z, (int)zlen, SQLITE_STATIC);
	return step_done(db, q, err, "archiving a report");
}

static kp_status sq_report_ids(kpi_db *h, int64_t **out, size_t *nout, kp_error *err)
{
	kpi__sq *db = SQ(h);
	*out = NULL;
	*nout = 0;
	sqlite3_stmt *q = kpi__sq_stmt(db, Q_REPORT_IDS, err);
	if (!q)
		return KP_ERR_DB;
	int64_t *ids = NULL;
	size_t n = 0, cap = 0;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t *slot = kp_vec_push((void **)&ids, &n, &cap, sizeof *ids);
		if (!slot) {
			sqlite3_reset(q);
			free(ids);
			return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
		}
		*slot = sqlite3_column_int64(q, 0);
	}
	sqlite3_reset(q);
	if (rc != SQLITE_DONE) {
		free(ids);
		return kpi__sq_err(db, err, "listing reports");
	}
	*out = ids;
	*nout = n;
	return KP_OK;
}

static kp_status sq_report_regroup(kpi_db *h, int64_t id, const char *headline,
                                   const char *exact_key, int64_t gid, kp_error *err)
{
	kpi__sq *db = SQ(h);
	sqlite3_stmt *q = kpi__sq_stmt(db, Q_REPORT_RESIGN, err);
	if (!q)
		return KP_ERR_DB;
	sqlite3_bind_int64(q, 1, id);
	bind_opt(q, 2, headline);
	kpi__sq_bind_text(q, 3, exact_key);
	sqlite3_bind_int64(q, 4, gid);
	return step_done(db, q, err, "updating a report");
}

static kp_status sq_report_facts(kpi_db *h, int64_t id, const kpi__facts *f, kp_error *err)
{
	kpi__sq *db = SQ(h);
	bool v11 = db->version < 12; /* a migration's fill before the class column */
	sqlite3_stmt *q = kpi__sq_stmt(db, v11 ? Q_REPORT_FACTS_V11 : Q_REPORT_FACTS, err);
	if (!q)
		return KP_ERR_DB;
	sqlite3_bind_int64(q, 1, id);
	bind_opt(q, 2, f->kind);
	bind_opt(q, 3, f->zone);
	sqlite3_bind_int64(q, 4, f->ts);
	if (!v11)
		bind_opt(q, 5, f->cls);
	return step_done(db, q, err, "updating a report");
}

static kp_status sq_report_kexts(kpi_db *h, int64_t id, const kpi__kext_set *ks, kp_error *err)
{
	kpi__sq *db = SQ(h);
	int64_t set;
	kp_status st = kset_id(db, ks, &set, err);
	if (st != KP_OK)
		return st;
	sqlite3_stmt *q = kpi__sq_stmt(db, Q_REPORT_KSET, err);
	if (!q)
		return KP_ERR_DB;
	sqlite3_bind_int64(q, 1, id);
	if (set)
		sqlite3_bind_int64(q, 2, set);
	return step_done(db, q, err, "recording a report's kexts");
}

static kp_status sq_report_text(kpi_db *h, int64_t id, const char *text, kp_error *err)
{
	return add_text(SQ(h), id, text, err);
}

static kp_status sq_report_rehash(kpi_db *h, int64_t id, const char *hash, kp_error *err)
{
	kpi__sq *db = SQ(h);
	sqlite3_stmt *q = kpi__sq_stmt(db, Q_REPORT_REHASH, err);
	if (!q)
		return KP_ERR_DB;
	sqlite3_bind_int64(q, 1, id);
	kpi__sq_bind_text(q, 2, hash);
	return step_done(db, q, err, "recording a content hash");
}

static kp_status sq_group_add(kpi_db *h, const char *key, const char *title, const char *culprit,
                              bool retitle, int64_t *gid, kp_error *err)
{
	kpi__sq *db = SQ(h);
	*gid = 0;
	char kb[96];
	const char *mk = memo_key(kb, sizeof kb, 'g', key);
	if (!retitle && mk && memo_get(&db->memo, mk, gid))
		return KP_OK;
	sqlite3_stmt *q = kpi__sq_stmt(db, Q_GROUP_INSERT, err);
	if (!q)
		return KP_ERR_DB;
	kpi__sq_bind_text(q, 1, key);
	kpi__sq_bind_text(q, 2, title);
	bind_opt(q, 3, culprit);
	kp_status st = step_done(db, q, err, "recording a group");
	if (st != KP_OK)
		return st;
	if (!(q = kpi__sq_stmt(db, Q_GROUP_GET, err)))
		return KP_ERR_DB;
	kpi__sq_bind_text(q, 1, key);
	if (sqlite3_step(q) == SQLITE_ROW)
		*gid = sqlite3_column_int64(q, 0);
	sqlite3_reset(q);
	if (!*gid)
		return kpi__sq_err(db, err, "finding a group");
	if (mk)
		memo_put(&db->memo, mk, *gid);
	if (!retitle)
		return KP_OK;
	if (!(q = kpi__sq_stmt(db, Q_GROUP_SET_TITLE, err)))
		return KP_ERR_DB;
	sqlite3_bind_int64(q, 1, *gid);
	kpi__sq_bind_text(q, 2, title);
	bind_opt(q, 3, culprit);
	return step_done(db, q, err, "updating a group");
}

static kp_status sq_groups_refresh(kpi_db *h, const int64_t *gids, size_t n, kp_error *err)
{
	kpi__sq *db = SQ(h);
	static const kpi__sq_sql steps[3] = {Q_GROUP_HOSTS_CLEAR, Q_GROUP_HOSTS_FILL, Q_GROUP_REFRESH};
	static const kpi__sq_sql steps_v6[1] = {Q_GROUP_REFRESH_V6};
	bool v6 = db->version < 7; /* a migration's fill before group_hosts */
	kp_status paid = pay_counts(db, err); /* a recount after, never before */
	if (paid != KP_OK)
		return paid;
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < (v6 ? 1 : 3); k++) {
			sqlite3_stmt *q = kpi__sq_stmt(db, v6 ? steps_v6[k] : steps[k], err);
			if (!q)
				return KP_ERR_DB;
			sqlite3_bind_int64(q, 1, gids[i]);
			kp_status st = step_done(db, q, err, "updating group counts");
			if (st != KP_OK)
				return st;
		}
	return KP_OK;
}

static kp_status sq_groups_prune(kpi_db *h, kp_error *err)
{
	kp_status st = pay_counts(SQ(h), err);
	if (st == KP_OK)
		st = kpi__sq_exec(SQ(h), Q_GROUP_DELETE_EMPTY, err);
	if (st == KP_OK)
		st = kpi__sq_exec(SQ(h), Q_GROUP_HOSTS_PRUNE, err);
	/* ids of groups gone may come back for others */
	kpi__sq_memo_clear(&SQ(h)->memo);
	return st;
}

static kp_status sq_meta_set(kpi_db *h, const char *key, const char *value, kp_error *err)
{
	kpi__sq *db = SQ(h);
	if (db->readonly)
		return refuse_readonly(db, err);
	bool own = sqlite3_get_autocommit(db->db) != 0;   /* else a migration's, open */
	kp_status st = own ? kpi__sq_exec(db, Q_BEGIN, err) : KP_OK;
	if (st != KP_OK)
		return st;
	sqlite3_stmt *q = kpi__sq_stmt(db, Q_META_SET, err);
	if (!q)
		st = KP_ERR_DB;
	else {
		kpi__sq_bind_text(q, 1, key);
		kpi__sq_bind_text(q, 2, value ? value : "");
		st = step_done(db, q, err, "saving state");
	}
	if (!own)
		return st;   /* the open transaction's to commit or roll back */
	if (st == KP_OK)
		st = kpi__sq_exec(db, Q_COMMIT, err);
	if (st != KP_OK)
		sq_rollback(h);
	return st;
}

const kpi__store_ops kpi__sqlite_ops = {
	.name = "sqlite",
	.batch_files = 2000,
	.counts_on_add = true,
	.close = kpi__sq_close,
	.begin = sq_begin,
	.commit = sq_commit,
	.rollback = sq_rollback,
	.is_own_file = sq_is_own_file,
	.path_get = sq_path_get,
	.path_put = sq_path_put,
	.report_paths = kpi__sq_report_paths,
	.report_find = sq_report_find,
	.report_add = sq_report_add,
	.archive_add = sq_archive_add,
	.report_replace = sq_report_replace,
	.archive_get = kpi__sq_archive_get,
	.report_ids = sq_report_ids,
	.report_regroup = sq_report_regroup,
	.report_facts = sq_report_facts,
	.report_kexts = sq_report_kexts,
	.report_text = sq_report_text,
	.report_rehash = sq_report_rehash,
	.group_add = sq_group_add,
	.groups_refresh = sq_groups_refresh,
	.groups_prune = sq_groups_prune,
	.list_reports = kpi__sq_list_reports,
	.list_groups = kpi__sq_list_groups,
	.list_group_counts = kpi__sq_list_group_counts,
	.trend_rows = kpi__sq_trend_rows,
	.list_hosts = kpi__sq_list_hosts,
	.search_page = kpi__sq_search_page,
	.list_page = kpi__sq_list_page,
	.meta_get = kpi__sq_meta_get,
	.meta_set = sq_meta_set,
};
