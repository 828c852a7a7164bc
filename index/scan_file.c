/* scan_file.c: the scanner's per-file work: read each file once through
 * core's reader, parse, sign, and record it with what it contributes to
 * search (images, host key, text), superseding a report being written. */
#include "scan.h"
#include "archive.h"
#include "kp_fs.h"
#include "kp_lex.h"
#include "kp_vec.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

/* ---- records ---- */

static kp_status put_path(scan *s, const char *path, int64_t report_id, const struct stat *st,
                          const char *skip)
{
	return s->db->ops->path_put(s->db, path, report_id, (int64_t)st->st_size,
	                            kp_fs_mtime_ns(st), s->now, skip, s->err);
}

kp_status kpi__scan_group_for(kpi_db *db, const kp_sig *sig, bool retitle, int64_t *gid, kp_error *err)
{
	return db->ops->group_add(db, sig->group_key, sig->title, sig->culprit, retitle, gid, err);
}

/* ---- what a report contributes to search ---- */

/* Upper-case hex of a canonical-or-not UUID into out ("" when not one):
 * the form kpi__image keeps. */
static void uuid_hex(const char *uuid, char out[33])
{
	char c[37];
	out[0] = '\0';
	if (!uuid || !kp_uuid_canon(uuid, strlen(uuid), c))
		return;
	int j = 0;
	for (int i = 0; c[i]; i++)
		if (c[i] != '-')
			out[j++] = c[i];
	out[j] = '\0';
}

typedef struct images {
	kpi__image *v;
	size_t n, cap;
} images;

static kp_status add_image(images *im, const char *uuid, const char *name, int rank)
{
	char hex[33];
	uuid_hex(uuid, hex);
	if (!hex[0] && !(name && *name))
		return KP_OK;
	kpi__image *e = kp_vec_push((void **)&im->v, &im->n, &im->cap, sizeof *e);
	if (!e)
		return KP_ERR_NOMEM;
	memcpy(e->uuid_hex, hex, sizeof hex);
	e->name = name ? name : "";
	e->rank = rank;
	return KP_OK;
}

/* The images of r by role: 0 kernel, 1 in the panicked backtrace, 3 a
 * dependency, 2 any other; names are borrowed from r. */
static kp_status report_images(const kp_report *r, images *out)
{
	kp_status st = KP_OK;
	bool *in_bt = r->nimages ? calloc(r->nimages, 1) : NULL;
	if (r->nimages && !in_bt)
		return KP_ERR_NOMEM;
	const kp_thread *t = kp_report_panicked_thread(r, NULL);
	for (size_t i = 0; t && i < t->nframes; i++)
		if (t->frames[i].image >= 0 && (size_t)t->frames[i].image < r->nimages)
			in_bt[t->frames[i].image] = true;
	if (r->kernel_uuid)
		st = add_image(out, r->kernel_uuid, "kernel", 0);
	for (size_t i = 0; st == KP_OK && i < r->nimages; i++) {
		const kp_image *im = &r->images[i];
		bool kernel = im->kind == 'K' || (im->name && strcmp(im->name, "kernel") == 0) ||
		              (im->uuid && r->kernel_uuid && strcmp(im->uuid, r->kernel_uuid) == 0);
		if (kernel)
			st = add_image(out, im->uuid, im->name ? im->name : "kernel", 0);
		else if (im->in_backtrace || in_bt[i])
			st = add_image(out, im->uuid, im->name, 1);
		else if (im->is_dependency)
			st = add_image(out, im->uuid, im->name, 3);
		else
			st = add_image(out, im->uuid, im->name, 2);
	}
	/* Loaded Apple kexts without a UUID are in nearly every report: only
	 * third-party ones (or ones with a UUID) are worth a row. */
	for (size_t i = 0; st == KP_OK && i < r->nkexts; i++)
		if (r->kexts[i].uuid || !kp_sig_is_apple(r->kexts[i].name))
			st = add_image(out, r->kexts[i].uuid, r->kexts[i].name, 2);
	free(in_bt);
	return st;
}

/* The Mac's own key, from the report itself: crashReporterKey (.ips), or
 * the "Anonymous UUID:" line of a text report (which the text parser
 * drops as noise).  Into out ("" when none), as written, at most 63 bytes. */
static void host_key(const kp_report *r, const char *data, size_t len, char out[64])
{
	out[0] = '\0';
	for (size_t i = 0; i < r->nfields; i++)
		if (strcmp(r->fields[i].key, "crashReporterKey") == 0) {
			snprintf(out, 64, "%s", r->fields[i].value);
			return;
		}
	static const char tag[] = "Anonymous UUID:";
	size_t tl = sizeof tag - 1;
	/* the header is at the top: look at the first 4 KiB only */
	size_t lim = len < 4096 ? len : 4096;
	for (size_t i = 0; i + tl <= lim; i++) {
		if ((i && data[i - 1] != '\n') || memcmp(data + i, tag, tl) != 0)
			continue;
		size_t b = i + tl, o = 0;
		while (b < len && (data[b] == ' ' || data[b] == '\t'))
			b++;
		while (b < len && o < 63 && (isalnum((unsigned char)data[b]) || data[b] == '-'))
			out[o++] = data[b++];
		out[o] = '\0';
		return;
	}
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

/* What a report is stored as: keys, group, archive, images, search text.
 * Borrowed from r and the caller's strings; free with record_free. */
typedef struct record {
	kpi__new_report nr;
	kp_sig sig;
	void *z;
	size_t zlen;
	images im;
	char *body;
	char key[64];   /* the host key */
} record;

static void record_free(record *rec)
{
	kp_sig_free(&rec->sig);
	free(rec->z);
	free(rec->im.v);
	free(rec->body);
}

void kpi__report_facts(const kp_report *r, kpi__facts *out)
{
	out->kind = kp_kind_name(r->kind);
	out->zone = r->zone.name;
	/* no date is an unknown date: never the file's time */
	if (!kpi_report_time(r->timestamp, &out->ts))
		out->ts = KPI__UNDATED;
}

/* no_incident: the report's incident id names another stored report (a
 * collision): this one is stored without it. */
static kp_status record_make(scan *s, const char *path, const char *data, size_t len,
                             const char *hash, const kp_report *r, bool no_incident, record *rec)
{
	kpi_db *db = s->db;
	memset(rec, 0, sizeof *rec);
	kp_status rs = kp_sig_compute(r, s->sym, s->sym_ctx, &rec->sig, s->err);
	if (rs != KP_OK)
		return rs;
	int64_t gid;
	if ((rs = kpi__scan_group_for(db, &rec->sig, false, &gid, s->err)) != KP_OK) {
		record_free(rec);
		return rs;
	}
	rec->z = kpi__archive_pack(data, len, &rec->zlen);
	const char *text = r->panic_string ? r->panic_string : r->headline;
	rec->body = fts_text(text);
	if (!rec->z || report_images(r, &rec->im) != KP_OK || (text && !rec->body)) {
		record_free(rec);
		return kp_error_set(s->err, KP_ERR_NOMEM, 0, -1, "out of memory recording %s", path);
	}
	kpi__facts f;
	kpi__report_facts(r, &f);
	host_key(r, data, len, rec->key);
	rec->nr = (kpi__new_report){
		.content_hash = hash,
		.incident_id = no_incident ? NULL : r->incident_id,
		.size = (int64_t)len,
		.format = kp_format_name(r->format),
		.timestamp = r->timestamp,
		.ts = f.ts,
		.os_version = r->os_version,
		.kernel_uuid = r->kernel_uuid,
		/* the report's own headline: the normalised one is only a key */
		.headline = r->headline ? r->headline : rec->sig.headline,
		.exact_key = rec->sig.exact_key,
		.group_id = gid,
		.indexed_at = s->now,
		.host = s->db->host,
		.host_key = rec->key[0] ? rec->key : NULL,
		.model = r->product,
		.images = rec->im.v,
		.nimages = rec->im.n,
		.text = rec->body,
		.kind = f.kind,
		.zone = f.zone,
	};
	return KP_OK;
}

static kp_status insert_report(scan *s, const char *path, const struct stat *st,
                               const char *data, size_t len, const char *hash,
                               const kp_report *r, bool no_incident)
{
	kpi_db *db = s->db;
	record rec;
	kp_status rs = record_make(s, path, data, len, hash, r, no_incident, &rec);
	if (rs != KP_OK)
		return rs;
	int64_t id = 0;
	bool added = false;
	rs = db->ops->report_add(db, &rec.nr, &id, &added, s->err);
	if (rs == KP_OK && added)
		rs = db->ops->archive_add(db, id, rec.z, rec.zlen, s->err);
	int64_t gid = rec.nr.group_id;
	record_free(&rec);
	if (rs == KP_OK)
		rs = put_path(s, path, id, st, NULL);
	if (rs != KP_OK)
		return rs;
	if (!added) { /* another writer stored it first */
		s->sum->duplicates++;
		return KP_OK;
	}
	if (!db->ops->counts_on_add && (rs = kpi__scan_mark_dirty(s, gid)) != KP_OK)
		return rs;
	s->pend_new++;
	return KP_OK;
}

/* ---- reports being written ---- */

/* Whether the new report (data, r) supersedes the stored record old_id of
 * the same report: the record was cut short and the new one is complete,
 * or a longer cut.  same_path: old_id was recorded at this path, so the new
 * bytes must continue the archived ones to be the same report.  *old_text
 * gets the record's search text (for report_replace).  A record whose
 * archive is damaged is superseded by any readable copy. */
/* The trailing white space of a file is no part of its report. */
static size_t trimmed(const char *d, size_t n)
{
	while (n && (d[n - 1] == '\n' || d[n - 1] == '\r' || d[n - 1] == ' ' || d[n - 1] == '\t'))
		n--;
	return n;
}

static kp_status supersedes(scan *s, int64_t old_id, bool same_path, const char *data, size_t len,
                            const kp_report *r, bool *yes, bool *same, char **old_text)
{
	*yes = false;
	*same = true;   /* unless the bytes show otherwise */
	*old_text = NULL;
	kp_error aerr;
	size_t olen = 0;
	char *old = kpi__archive_bytes(s->db, old_id, &olen, NULL, &aerr);
	if (!old) {
		if (aerr.code == KP_ERR_NOMEM)
			return kp_error_set(s->err, KP_ERR_NOMEM, 0, -1, "out of memory");
		*yes = !same_path && aerr.code == KP_ERR_DB;
		return KP_OK;
	}
	/* one report's bytes: equal but for trailing white space, or one a cut
	 * of the other (a report read while it was being written) */
	size_t a = trimmed(old, olen), b = trimmed(data, len);
	*same = memcmp(old, data, a < b ? a : b) == 0;
	if (same_path && (olen >= len || memcmp(old, data, olen) != 0)) {
		free(old);
		return KP_OK;
	}
	kp_report *o = NULL;
	kp_error perr;
	kp_status st = kp_report_parse(old, olen, NULL, &o, &perr);
	free(old);
	if (st == KP_ERR_NOMEM)
		return kp_error_set(s->err, KP_ERR_NOMEM, 0, -1, "out of memory");
	/* an archive that no longer parses counts as cut short */
	bool cut = st != KP_OK || o->truncated;
	if (cut && (!r->truncated || len > olen)) {
		*yes = true;
		if (o) {
			const char *t = o->panic_string ? o->panic_string : o->headline;
			if (t && !(*old_text = fts_text(t))) {
				kp_report_free(&o);
				return kp_error_set(s->err, KP_ERR_NOMEM, 0, -1, "out of memory");
			}
		}
	}
	kp_report_free(&o);
	return KP_OK;
}

static kp_status replace_report(scan *s, int64_t id, const char *old_text, const char *path,
                                const struct stat *st, const char *data, size_t len,
                                const char *hash, const kp_report *r)
{
	kpi_db *db = s->db;
	int64_t old_gid = 0;
	kpi__archive a = {0};
	kp_status rs = db->ops->archive_get(db, id, &a, s->err);
	if (rs == KP_OK || rs == KP_ERR_DB) /* a missing archive still has a group */
		old_gid = a.group_id;
	free(a.z);
	kp_error_clear(s->err);
	record rec;
	if ((rs = record_make(s, path, data, len, hash, r, false, &rec)) != KP_OK)
		return rs;
	rs = db->ops->report_replace(db, id, &rec.nr, old_text, rec.z, rec.zlen, s->err);
	int64_t gid = rec.nr.group_id;
	record_free(&rec);
	if (rs == KP_OK)
		rs = put_path(s, path, id, st, NULL);
	if (rs == KP_OK)
		rs = kpi__scan_mark_dirty(s, gid);
	if (rs == KP_OK && old_gid && old_gid != gid)
		rs = kpi__scan_mark_dirty(s, old_gid);
	if (rs == KP_OK)
		s->pend_superseded++;
	return rs;
}

static kp_status skip_file(scan *s, const char *path, const struct stat *st, const char *why)
{
	s->batch_work++;
	kp_status ks = kpi__scan_add_skip(s, path, why);
	return ks == KP_OK ? put_path(s, path, 0, st, why) : ks;
}

/* Reads path whole, or says it changed while being read (*changing: its
 * size or mtime moved between the walk's stat lst, the open and the end of
 * the read). */
static kp_status read_whole(const char *path, const struct stat *lst, char **data, size_t *len,
                            struct stat *st, bool *changing, kp_error *err)
{
	*changing = false;
	kp_status ks = kp_fs_read_file(path, KP_REPORT_MAX_SIZE, data, len, st, err);
	if (ks != KP_OK)
		return ks;
	struct stat after;
	if (lst->st_size != st->st_size || kp_fs_mtime_ns(lst) != kp_fs_mtime_ns(st) ||
	    stat(path, &after) != 0 || after.st_size != st->st_size ||
	    kp_fs_mtime_ns(&after) != kp_fs_mtime_ns(st) || (off_t)*len != st->st_size ||
	    after.st_ino != st->st_ino) {
		*changing = true;
		free(*data);
		*data = NULL;
	}
	return KP_OK;
}

kp_status kpi__scan_file(scan *s, const char *path, const struct stat *lst)
{
	kpi_db *db = s->db;
	if (db->ops->is_own_file && db->ops->is_own_file(db, lst))
		return KP_OK;
	s->sum->files++;
	if (s->fn) {
		kpi_progress p = {s->sum->files, s->sum->new_reports + s->pend_new, path, s->total};
		s->fn(s->ctx, &p);
	}

	kpi__path_rec known;
	kp_status ks = db->ops->path_get(db, path, &known, s->err);
	if (ks != KP_OK)
		return ks;
	int64_t old_report = known.report_id;
	if (known.known && known.size == (int64_t)lst->st_size && known.mtime_ns == kp_fs_mtime_ns(lst)) {
		if (old_report)
			s->sum->unchanged++;
		else
			s->sum->skipped++;
		return KP_OK;
	}

	if ((uint64_t)lst->st_size > KP_REPORT_MAX_SIZE)
		return skip_file(s, path, lst, "too large for a report");
	char msg[300];
	size_t len;
	struct stat st;
	char *data = NULL;
	kp_error rerr;
	bool changing = false;
	/* a report being written is left to the next scan */
	ks = read_whole(path, lst, &data, &len, &st, &changing, &rerr);
	if (ks == KP_ERR_LIMIT) /* grew since lstat */
		return skip_file(s, path, lst, "too large for a report");
	if (ks == KP_ERR_NOMEM)
		return kp_error_set(s->err, ks, 0, -1, "out of memory reading %s", path);
	if (ks != KP_OK && access(path, F_OK) != 0 && errno == ENOENT)   /* moved away meanwhile */
		return kpi__scan_add_skip(s, path, "gone while indexing (moved or removed)");
	if (ks != KP_OK)
		return kpi__scan_add_error(s, path, rerr.msg);
	if (changing) {
		s->sum->changing++;
		return KP_OK;
	}
	s->batch_work++;
	char hash[41];
	kp_sha1_hex(data, len, hash);
	int64_t id = 0;
	ks = db->ops->report_find(db, hash, NULL, &id, s->err);
	if (ks == KP_OK && id) {
		free(data);
		if ((ks = put_path(s, path, id, &st, NULL)) != KP_OK)
			return ks;
		if (old_report == id)
			s->sum->unchanged++;
		else
			s->sum->duplicates++;
		return KP_OK;
	}
	if (ks != KP_OK) {
		free(data);
		return ks;
	}
	/* core's sniffer: binary is no report (an empty file is left to the
	 * parser, whose reason is kept) */
	kp_format fmt = kp_report_sniff(data, len);
	if (fmt == KP_FORMAT_UNKNOWN && len > 0) {
		free(data);
		return skip_file(s, path, &st, "binary file");
	}
	kp_report *r = NULL;
	kp_error perr;
	ks = kp_report_parse(data, len, path, &r, &perr);
	/* the text parser fails only on text without anything of a panic, so
	 * such a failure means "not a panic report"; broken JSON is an error */
	if (ks == KP_ERR_NOTPANIC || (ks == KP_ERR_FORMAT && fmt != KP_FORMAT_IPS)) {
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
		return kpi__scan_add_error(s, path, msg);
	}
	/* the same report under other bytes: by incident id, or this path's
	 * record when the file has grown from it */
	id = 0;
	int64_t collides_with = 0;
	bool same_path = false;
	if (r->incident_id)
		ks = db->ops->report_find(db, NULL, r->incident_id, &id, s->err);
	if (ks == KP_OK && !id && old_report) {
		id = old_report;
		same_path = true;
	}
	if (ks == KP_OK && id) {
		bool yes = false, same = true;
		char *old_text = NULL;
		ks = supersedes(s, id, same_path, data, len, r, &yes, &same, &old_text);
		if (ks == KP_OK && yes) {
			ks = replace_report(s, id, old_text, path, &st, data, len, hash, r);
		} else if (ks == KP_OK && !same_path && same) {
			s->sum->duplicates++;
			ks = put_path(s, path, id, &st, NULL);
		} else if (ks == KP_OK && !same_path) {
			/* the same incident id over bytes that neither match nor
			 * continue the stored report's: another report (copies get
			 * edited, tools reuse ids).  Content decides: it is stored
			 * as a report of its own, and said. */
			collides_with = id;
			id = 0;
		} else {
			id = 0; /* this path's file now holds another report */
		}
		free(old_text);
		if (ks != KP_OK || id) {
			kp_report_free(&r);
			free(data);
			return ks;
		}
	}
	if (ks == KP_OK)
		ks = insert_report(s, path, &st, data, len, hash, r, collides_with != 0);
	if (ks == KP_OK && collides_with) {
		char w[300];
		snprintf(w, sizeof w, "incident id %.60s already names @%lld, whose content differs: "
		         "stored as a report of its own", r->incident_id, (long long)collides_with);
		ks = kpi__scan_add_warning(s, path, w);
	}
	kp_report_free(&r);
	free(data);
	return ks;
}
