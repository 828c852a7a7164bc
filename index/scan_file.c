/* scan_file.c: the scanner's per-file work: read each file once through
 * core's reader, hash, parse, sign and pack it (kpi__prep: no store, so any
 * thread), and record it with what it contributes to search (images, host
 * key, text), superseding a report being written. */
#include "scan.h"
#include "kp_triage.h"
#include "kp_utf8.h"
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
	if (!*path) /* a report from an archive whose path holds another now (kpi__scan_bytes) */
		return KP_OK;
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

static kp_status add_image(kpi__prep *p, const char *uuid, const char *name, int rank)
{
	char hex[33];
	uuid_hex(uuid, hex);
	if (!hex[0] && !(name && *name))
		return KP_OK;
	kpi__image *e = kp_vec_push((void **)&p->images, &p->nimages, &p->images_cap, sizeof *e);
	if (!e)
		return KP_ERR_NOMEM;
	memcpy(e->uuid_hex, hex, sizeof hex);
	e->name = name ? name : "";
	e->rank = rank;
	return KP_OK;
}

/* The images of r by role: 0 kernel, 1 in the panicked backtrace, 3 a
 * dependency, 2 any other; names are borrowed from r. */
static kp_status report_images(const kp_report *r, kpi__prep *out)
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

static int kext_cmp(const void *a, const void *b)
{
	const kpi__image *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->uuid_hex, y->uuid_hex);
}

kp_status kpi__report_kexts(const kp_report *r, kpi__image **kexts, kpi__kext_set *out)
{
	*kexts = NULL;
	memset(out, 0, sizeof *out);
	if (!r->nkexts)
		return KP_OK;
	kpi__image *v = calloc(r->nkexts, sizeof *v);
	if (!v)
		return KP_ERR_NOMEM;
	size_t n = 0;
	for (size_t i = 0; i < r->nkexts; i++) {
		kpi__image *e = &v[n];
		uuid_hex(r->kexts[i].uuid, e->uuid_hex);
		e->name = r->kexts[i].name ? r->kexts[i].name : "";
		e->rank = 2;
		if (*e->name || e->uuid_hex[0])
			n++;
	}
	size_t u = kpi__kexts_canon(v, n, out->hash);
	if (!u) {
		free(v);
		return KP_OK;
	}
	out->kexts = v;
	out->n = u;
	*kexts = v;
	return KP_OK;
}

/* Sorts v[0..n) by kext_cmp, stably: a merge of the runs already in
 * order, pairwise until one is left.  qsort was half of making a report's
 * kext set (0.06 of 0.125 s of CPU over the 10k bench reports; hashing the
 * list is most of the rest): a call through a pointer to kext_cmp for
 * each comparison, and a list in order split as finely as any other.  The
 * bench's lists are in order but for a few kexts, where this takes about
 * a fifth of qsort's time; a real list, in load order, has short runs and
 * gains a tenth.  False when out of memory (v unchanged). */
static bool kexts_sort(kpi__image *v, size_t n)
{
	kpi__image *tmp = malloc(n * sizeof *tmp);
	size_t *bound = malloc((n + 1) * sizeof *bound);
	if (!tmp || !bound) {
		free(tmp);
		free(bound);
		return false;
	}
	/* run k is [bound[k], bound[k + 1]) */
	size_t runs = 0;
	bound[runs++] = 0;
	for (size_t i = 1; i < n; i++)
		if (kext_cmp(&v[i - 1], &v[i]) > 0)
			bound[runs++] = i;
	bound[runs] = n;
	kpi__image *a = v, *b = tmp;
	while (runs > 1) {
		size_t m = 0;
		for (size_t k = 0; k < runs; k += 2) {
			size_t lo = bound[k], mid = bound[k + 1], hi = k + 1 < runs ? bound[k + 2] : mid;
			size_t i = lo, j = mid, o = lo;
			while (i < mid && j < hi)
				b[o++] = kext_cmp(&a[j], &a[i]) < 0 ? a[j++] : a[i++];
			memcpy(b + o, a + i, (mid - i) * sizeof *b);
			o += mid - i;
			memcpy(b + o, a + j, (hi - j) * sizeof *b);
			bound[m++] = lo; /* m <= k: bound[k..k + 2] were read */
		}
		bound[m] = n;
		runs = m;
		kpi__image *t = a;
		a = b;
		b = t;
	}
	if (a != v)
		memcpy(v, a, n * sizeof *v);
	free(tmp);
	free(bound);
	return true;
}

size_t kpi__kexts_canon(kpi__image *v, size_t n, char hash[KP_SHA256_HEX])
{
	hash[0] = '\0';
	if (!n)
		return 0;
	if (!kexts_sort(v, n))
		qsort(v, n, sizeof *v, kext_cmp);
	size_t u = 0;
	kp_sha256 h;
	kp_sha256_init(&h);
	for (size_t i = 0; i < n; i++) {
		if (u && kext_cmp(&v[u - 1], &v[i]) == 0)
			continue;
		v[u++] = v[i];
		/* name NUL uuid NUL: no two lists hash the same bytes */
		kp_sha256_update(&h, v[i].name, strlen(v[i].name) + 1);
		kp_sha256_update(&h, v[i].uuid_hex, strlen(v[i].uuid_hex) + 1);
	}
	uint8_t d[32];
	kp_sha256_final(&h, d);
	kp_sha256_to_hex(d, hash);
	return u;
}

static int image_cmp(const void *a, const void *b)
{
	const kpi__image *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	int c = strcmp(x->uuid_hex, y->uuid_hex);
	return c ? c : strcmp(x->name, y->name);
}

size_t kpi__images_canon(kpi__image *v, size_t n, char hash[KP_SHA256_HEX])
{
	hash[0] = '\0';
	if (!n)
		return 0;
	qsort(v, n, sizeof *v, image_cmp);
	kp_sha256 h;
	kp_sha256_init(&h);
	size_t u = 0;
	for (size_t i = 0; i < n; i++) {
		if (u && image_cmp(&v[u - 1], &v[i]) == 0)
			continue;
		v[u++] = v[i];
		/* rank, uuid NUL, name NUL: no two lists hash the same bytes */
		char rank = (char)('0' + (v[i].rank & 7));
		kp_sha256_update(&h, &rank, 1);
		kp_sha256_update(&h, v[i].uuid_hex, strlen(v[i].uuid_hex) + 1);
		kp_sha256_update(&h, v[i].name, strlen(v[i].name) + 1);
	}
	uint8_t d[32];
	kp_sha256_final(&h, d);
	kp_sha256_to_hex(d, hash);
	return u;
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

/* ASCII only, whatever the locale: the text a report gets must not
 * change between runs (a contentless FTS5 row is deleted by its words). */
static bool hex_digit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool word_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Whether line (up to its newline) is an entry of a panic's loaded kext
 * list: a bundle id (a dot in it) then its version, nothing with a colon
 * ("com.apple.driver.AppleUSBMike\t1.0.0d1"). */
static bool kext_list_line(const char *line)
{
	size_t n = strcspn(line, "\n");
	size_t id = strcspn(line, " \t\n");
	return id && id < n && memchr(line, '.', id) && !memchr(line, ':', n);
}

/* The panic text for full-text search, without hex numbers (0x... and
 * bare runs of 8+ hex digits): addresses differ in every report, would
 * make most of the FTS index, and are searched by UUID instead.  Nor the
 * loaded kext list ("loaded kexts:" and the entries under it, up to the
 * first line that is none): a hundred or more bundle ids and versions,
 * most of a panic's words (three quarters of a cold scan's text search
 * work), searched by kext instead (search --kext, K: every loaded kext
 * since schema 8).  Schema 9 made every stored report's text so. */
static char *fts_text(const char *s)
{
	if (!s)
		return NULL;
	static const char kl[] = "loaded kexts:";
	size_t n = strlen(s), o = 0;
	char *out = malloc(n + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		if ((i == 0 || s[i - 1] == '\n') && s[i] == 'l' && strncmp(s + i, kl, sizeof kl - 1) == 0) {
			i += strcspn(s + i, "\n");
			while (i < n && s[i] == '\n' && kext_list_line(s + i + 1))
				i += 1 + strcspn(s + i + 1, "\n");
			continue;
		}
		/* a hex number starts a word with a hex digit ('0' of "0x" too) */
		if (hex_digit(s[i]) && (i == 0 || !word_char(s[i - 1]))) {
			size_t k = s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X') ? 2 : 0, h = k;
			while (hex_digit(s[i + h]))
				h++;
			if (((k == 2 && h > 2) || h - k >= 8) && !word_char(s[i + h])) {
				i += h;
				continue;
			}
		}
		out[o++] = s[i++];
	}
	if (o > KPI__SEARCH_TEXT_MAX) {
		/* after the last whole word that fits; a single word longer than
		 * the last 4 KiB is cut at a character */
		size_t c = KPI__SEARCH_TEXT_MAX;
		while (c > KPI__SEARCH_TEXT_MAX - 4096 && word_char(out[c - 1]) && word_char(out[c]))
			c--;
		if (c == KPI__SEARCH_TEXT_MAX - 4096)
			c = KPI__SEARCH_TEXT_MAX;
		while (c && ((unsigned char)out[c] & 0xC0) == 0x80)
			c--;
		o = c;
	}
	out[o] = '\0';
	return out;
}

/* The text before the panic line (machine-check state, halt chatter) is
 * searched as well, ahead of the panic string. */
char *kpi__search_text(const kp_report *r, bool *oom)
{
	const char *t = r->panic_string ? r->panic_string : r->headline;
	char *body = fts_text(t);
	*oom = t && !body;
	if (body && r->preamble && r->preamble[0]) {
		char *pre = fts_text(r->preamble);
		size_t a = pre ? strlen(pre) : 0, b = strlen(body);
		char *both = pre ? malloc(a + 1 + b + 1) : NULL;
		if (both) {
			memcpy(both, pre, a);
			both[a] = '\n';
			memcpy(both + a + 1, body, b + 1);
		}
		free(pre);
		free(body);
		body = both;
		*oom = !both;
	}
	return body;
}

void kpi__report_facts(const kp_report *r, kpi__facts *out)
{
	out->kind = kp_kind_name(r->kind);
	out->zone = r->zone.name;
	kp_triage t;
	kp_triage_classify(r, &t);
	out->cls = kp_class_name(t.cls);
	/* no date is an unknown date: never the file's time */
	if (!kpi_report_time(r->timestamp, &out->ts))
		out->ts = KPI__UNDATED;
}

/* The parts of p's record that need no store: signature (when p->sign),
 * archive, images, search text, host key, facts. */
static void record_parts(kpi__prep *p)
{
	const kp_report *r = p->r;
	if (p->sign) {
		if ((p->rec_st = kp_sig_compute(r, NULL, NULL, &p->sig, &p->rec_err)) != KP_OK)
			return;
		p->have_sig = true;
	}
	p->z = kpi__archive_pack(p->data, p->len, &p->zlen);
	bool oom;
	p->body = kpi__search_text(r, &oom);
	bool images_ok = report_images(r, p) == KP_OK;
	if (images_ok)
		p->nimages = kpi__images_canon(p->images, p->nimages, p->images_hash);
	if (!p->z || !images_ok || oom ||
	    kpi__report_kexts(r, &p->kexts, &p->kset) != KP_OK) {
		p->rec_st = kp_error_set(&p->rec_err, KP_ERR_NOMEM, 0, -1, "out of memory recording %s",
		                         p->path);
		return;
	}
	host_key(r, p->data, p->len, p->key);
	kpi__report_facts(r, &p->facts);
}

/* What p's report is stored as (*nr borrows from p and s): its parts, made
 * by kpi__prep_parse, and its group.  no_incident: the report's incident id
 * names another stored report (a collision): this one is stored without
 * it. */
static kp_status record_make(scan *s, kpi__prep *p, bool no_incident, kpi__new_report *nr)
{
	kpi_db *db = s->db;
	const kp_report *r = p->r;
	if (p->rec_st != KP_OK) {
		*s->err = p->rec_err;
		return p->rec_st;
	}
	if (!p->have_sig) { /* a symbol callback signs on this thread */
		kp_status rs = kp_sig_compute(r, s->sym, s->sym_ctx, &p->sig, s->err);
		if (rs != KP_OK)
			return rs;
		p->have_sig = true;
	}
	int64_t gid;
	kp_status rs = kpi__scan_group_for(db, &p->sig, false, &gid, s->err);
	if (rs != KP_OK)
		return rs;
	const kpi__facts f = p->facts;
	*nr = (kpi__new_report){
		.content_hash = p->hash,
		.incident_id = no_incident ? NULL : r->incident_id,
		.size = (int64_t)p->len,
		.format = kp_format_name(r->format),
		.timestamp = r->timestamp,
		.ts = f.ts,
		.os_version = r->os_version,
		.kernel_uuid = r->kernel_uuid,
		/* the report's own headline: the normalised one is only a key */
		.headline = r->headline ? r->headline : p->sig.headline,
		.exact_key = p->sig.exact_key,
		.group_id = gid,
		.indexed_at = s->now,
		.host = s->db->report_host[0] ? s->db->report_host : NULL,
		.host_key = p->key[0] ? p->key : NULL,
		.model = r->product,
		.images = p->images,
		.nimages = p->nimages,
		.images_hash = p->images_hash,
		.text = p->body,
		.kind = f.kind,
		.zone = f.zone,
		.cls = f.cls,
		.kexts = p->kset,
	};
	return KP_OK;
}

static kp_status insert_report(scan *s, kpi__prep *p, bool no_incident)
{
	kpi_db *db = s->db;
	kpi__new_report nr;
	kp_status rs = record_make(s, p, no_incident, &nr);
	if (rs != KP_OK)
		return rs;
	int64_t id = 0;
	bool added = false;
	rs = kpi__report_add(db, &nr, &id, &added, s->err);
	if (rs == KP_OK && added)
		rs = db->ops->archive_add(db, id, p->z, p->zlen, s->err);
	if (rs == KP_OK)
		rs = put_path(s, p->path, id, &p->st, NULL);
	if (rs != KP_OK)
		return rs;
	if (!added) { /* another writer stored it first */
		s->sum->duplicates++;
		return KP_OK;
	}
	if (!db->ops->counts_on_add && (rs = kpi__scan_mark_dirty(s, nr.group_id)) != KP_OK)
		return rs;
	s->pend_new++;
	return KP_OK;
}

/* ---- reports being written ---- */

/* Whether the new report (data, r) supersedes the stored record old_id of
 * the same report: the record was cut short and the new one is its
 * completion (or a longer cut): from the same Mac (kpi_db.report_host), its
 * bytes begin with the record's (white space at the end aside), and where
 * both name their Mac's key, they name the same.  same_path: old_id was
 * recorded at this path.  *same: the bytes are one report's (equal, or
 * one a cut of the other) and the record stays (a copy, or a cut of it);
 * neither *yes nor *same: another report that reuses the incident id,
 * kept beside the record (issue 32 item 9: a record replaced by anything
 * with its incident id never came back).  *old_text gets the record's
 * search text (for report_replace).  A record whose archive is damaged is
 * superseded by any readable copy the same host pushes. */
/* The trailing white space of a file is no part of its report. */
static size_t trimmed(const char *d, size_t n)
{
	while (n && (d[n - 1] == '\n' || d[n - 1] == '\r' || d[n - 1] == ' ' || d[n - 1] == '\t'))
		n--;
	return n;
}

static kp_status supersedes(scan *s, int64_t old_id, bool same_path, const char *data, size_t len,
                            const kp_report *r, bool *yes, bool *same, bool *other_host,
                            char **old_text)
{
	*yes = false;
	*other_host = false;
	*same = true;   /* unless the bytes show otherwise */
	*old_text = NULL;
	/* the host that pushed the record (this path's record is this host's) */
	bool same_host = same_path;
	if (!same_path) {
		kpi__archive a = {0};
		kp_error herr;
		kp_status hs = s->db->ops->archive_get(s->db, old_id, &a, &herr);
		free(a.z);
		if (hs == KP_ERR_NOMEM)
			return kp_error_set(s->err, KP_ERR_NOMEM, 0, -1, "out of memory");
		/* stored as the server takes text (U+FFFD for a bad byte); the
		 * record's host is its Mac as this scan would name it
		 * (kpi_set_report_host: "" when unknown to both) */
		bool oom = false;
		char *mine = kp_utf8_repair(s->db->report_host, &oom);
		if (oom)
			return kp_error_set(s->err, KP_ERR_NOMEM, 0, -1, "out of memory");
		same_host = (hs == KP_OK || hs == KP_ERR_DB) &&
		            strcmp(a.host, mine ? mine : s->db->report_host) == 0;
		free(mine);
	}
	kp_error aerr;
	size_t olen = 0;
	char *old = kpi__archive_bytes(s->db, old_id, &olen, NULL, &aerr);
	if (!old) {
		if (aerr.code == KP_ERR_NOMEM)
			return kp_error_set(s->err, KP_ERR_NOMEM, 0, -1, "out of memory");
		*yes = !same_path && same_host && aerr.code == KP_ERR_DB;
		*same = *yes;
		*other_host = !same_host;
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
	bool completes = a <= b && *same && same_host;
	kp_report *o = NULL;
	kp_error perr;
	kp_status st = kp_report_parse(old, olen, NULL, &o, &perr);
	char okey[64] = "";
	if (st == KP_OK)
		host_key(o, old, olen, okey);
	free(old);
	if (st == KP_ERR_NOMEM)
		return kp_error_set(s->err, KP_ERR_NOMEM, 0, -1, "out of memory");
	/* an archive that no longer parses counts as cut short */
	bool cut = st != KP_OK || o->truncated;
	char nkey[64];
	host_key(r, data, len, nkey);
	if (okey[0] && nkey[0] && strcmp(okey, nkey) != 0)
		completes = false;
	/* the record cut, this longer but not its completion: both kept */
	if (cut && b > a && !completes) {
		*other_host = *same;
		*same = false;
	}
	if (cut && completes && (!r->truncated || len > olen)) {
		*yes = true;
		if (o) {
			bool oom;
			*old_text = kpi__search_text(o, &oom);
			if (oom) {
				kp_report_free(&o);
				return kp_error_set(s->err, KP_ERR_NOMEM, 0, -1, "out of memory");
			}
		}
	}
	kp_report_free(&o);
	return KP_OK;
}

static kp_status replace_report(scan *s, int64_t id, const char *old_text, kpi__prep *p)
{
	kpi_db *db = s->db;
	int64_t old_gid = 0;
	kpi__archive a = {0};
	kp_status rs = db->ops->archive_get(db, id, &a, s->err);
	if (rs == KP_OK || rs == KP_ERR_DB) /* a missing archive still has a group */
		old_gid = a.group_id;
	free(a.z);
	kp_error_clear(s->err);
	kpi__new_report nr;
	if ((rs = record_make(s, p, false, &nr)) != KP_OK)
		return rs;
	rs = db->ops->report_replace(db, id, &nr, old_text, p->z, p->zlen, s->err);
	if (rs == KP_OK)
		rs = put_path(s, p->path, id, &p->st, NULL);
	if (rs == KP_OK)
		rs = kpi__scan_mark_dirty(s, nr.group_id);
	if (rs == KP_OK && old_gid && old_gid != nr.group_id)
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

/* ---- preparing a file: no store, any thread ---- */

kpi__prep *kpi__prep_new(const char *path, const struct stat *lst, bool sign)
{
	kpi__prep *p = calloc(1, sizeof *p);
	if (p && !(p->path = strdup(path))) {
		free(p);
		return NULL;
	}
	if (p) {
		p->lst = *lst;
		p->sign = sign;
		p->parse_flags = KP_PARSE_SKIM_FRAMES;
	}
	return p;
}

void kpi__prep_read(kpi__prep *p)
{
	if (p->read)
		return;
	p->read = true;
	if ((uint64_t)p->lst.st_size > KP_REPORT_MAX_SIZE) { /* kpi__scan_file skips it unread */
		p->read_st = KP_ERR_LIMIT;
		return;
	}
	/* a report being written is left to the next scan */
	p->read_st = read_whole(p->path, &p->lst, &p->data, &p->len, &p->st, &p->changing, &p->read_err);
	if (p->read_st != KP_OK && p->read_st != KP_ERR_LIMIT && p->read_st != KP_ERR_NOMEM)
		p->gone = access(p->path, F_OK) != 0 && errno == ENOENT;   /* moved away meanwhile */
	if (p->read_st != KP_OK || p->changing)
		return;
	KPI__CONTENT_HASH(p->data, p->len, p->hash);
	p->fmt = kp_report_sniff(p->data, p->len);
}

void kpi__prep_parse(kpi__prep *p)
{
	if (p->parsed)
		return;
	p->parsed = true;
	kpi__prep_read(p);
	/* core's sniffer: binary is no report (an empty file is left to the
	 * parser, whose reason is kept) */
	if (p->read_st != KP_OK || p->changing || (p->fmt == KP_FORMAT_UNKNOWN && p->len > 0))
		return;
	/* a panic's record reads only its panicked thread's frames (the
	 * signature, the images it marks): the others' are never decoded */
	p->parse_st = kp_report_parse_flags(p->data, p->len, p->path, p->parse_flags, &p->r,
	                                    &p->parse_err);
	if (p->parse_st == KP_OK)
		record_parts(p);
}

void kpi__prep_free(kpi__prep **pp)
{
	kpi__prep *p = *pp;
	if (!p)
		return;
	*pp = NULL;
	kp_sig_free(&p->sig);
	kp_report_free(&p->r);
	free(p->z);
	free(p->images);
	free(p->kexts);
	free(p->body);
	free(p->data);
	free(p->path);
	free(p);
}

/* ---- recording a file, in walk order ---- */

/* Whether the path record known says lst's file is as recorded (counted
 * then: unchanged, or a skip already known). */
static bool as_recorded(scan *s, const kpi__path_rec *known, const struct stat *lst)
{
	if (!known->known || known->size != (int64_t)lst->st_size || known->mtime_ns != kp_fs_mtime_ns(lst))
		return false;
	if (known->report_id)
		s->sum->unchanged++;
	else
		s->sum->skipped++;
	return true;
}

kp_status kpi__scan_look(scan *s, const char *path, const struct stat *lst, bool *work)
{
	kpi_db *db = s->db;
	*work = false;
	if (db->ops->is_own_file && db->ops->is_own_file(db, lst))
		return KP_OK;
	s->sum->files++;
	if (s->fn) {
		kpi_progress p = {s->sum->files, s->sum->new_reports + s->pend_new, path, s->total};
		s->fn(s->ctx, &p);
	}
	kpi__path_rec known;
	kp_status ks = db->ops->path_get(db, path, &known, s->err);
	if (ks == KP_OK)
		*work = !as_recorded(s, &known, lst);
	return ks;
}

kp_status kpi__scan_file(scan *s, kpi__prep *p)
{
	kpi_db *db = s->db;
	const char *path = p->path;
	const struct stat *lst = &p->lst;
	/* looked up again: a path walked twice (roots that overlap) may have
	 * been recorded since kpi__scan_look */
	kpi__path_rec known;
	kp_status ks = db->ops->path_get(db, path, &known, s->err);
	if (ks != KP_OK)
		return ks;
	if (as_recorded(s, &known, lst))
		return KP_OK;
	int64_t old_report = known.report_id;

	if ((uint64_t)lst->st_size > KP_REPORT_MAX_SIZE)
		return skip_file(s, path, lst, "too large for a report");
	char msg[300];
	kpi__prep_read(p);
	ks = p->read_st;
	if (ks == KP_ERR_LIMIT) /* grew since lstat */
		return skip_file(s, path, lst, "too large for a report");
	if (ks == KP_ERR_NOMEM)
		return kp_error_set(s->err, ks, 0, -1, "out of memory reading %s", path);
	if (ks != KP_OK && p->gone)
		return kpi__scan_add_skip(s, path, "gone while indexing (moved or removed)");
	if (ks != KP_OK)
		return kpi__scan_add_error(s, path, p->read_err.msg);
	if (p->changing) {
		s->sum->changing++;
		return KP_OK;
	}
	s->batch_work++;
	int64_t id = 0;
	ks = db->ops->report_find(db, p->hash, NULL, &id, s->err);
	if (ks == KP_OK && !id && s->sha1_left) {
		/* a report whose bytes the schema 11 migration could not read,
		 * kept under its SHA-1 (kpi_store.h): these bytes may be it */
		char sha1[41];
		kp_sha1_hex(p->data, p->len, sha1);
		ks = db->ops->report_find(db, sha1, NULL, &id, s->err);
	}
	if (ks == KP_OK && id) {
		if ((ks = put_path(s, path, id, &p->st, NULL)) != KP_OK)
			return ks;
		if (old_report == id)
			s->sum->unchanged++;
		else
			s->sum->duplicates++;
		return KP_OK;
	}
	if (ks != KP_OK)
		return ks;
	if (p->fmt == KP_FORMAT_UNKNOWN && p->len > 0)
		return skip_file(s, path, &p->st, "binary file");
	kpi__prep_parse(p);
	ks = p->parse_st;
	/* the text parser fails only on text without anything of a panic, so
	 * such a failure means "not a panic report"; broken JSON is an error */
	if (ks == KP_ERR_NOTPANIC || ks == KP_ERR_CUT || (ks == KP_ERR_FORMAT && p->fmt != KP_FORMAT_IPS))
		return skip_file(s, path, &p->st, p->parse_err.msg);   /* CUT: read again once it grows */
	if (ks == KP_ERR_NOMEM)
		return kp_error_set(s->err, ks, 0, -1, "out of memory parsing %s", path);
	if (ks != KP_OK) {
		kp_error_format(&p->parse_err, msg, sizeof msg);
		return kpi__scan_add_error(s, path, msg);
	}
	const kp_report *r = p->r;
	/* the same report under other bytes: by incident id, or this path's
	 * record when the file has grown from it */
	id = 0;
	int64_t collides_with = 0;
	bool same_path = false, other_host = false;
	if (r->incident_id)
		ks = db->ops->report_find(db, NULL, r->incident_id, &id, s->err);
	if (ks == KP_OK && !id && old_report) {
		id = old_report;
		same_path = true;
	}
	if (ks == KP_OK && id) {
		bool yes = false, same = true;
		char *old_text = NULL;
		ks = supersedes(s, id, same_path, p->data, p->len, r, &yes, &same, &other_host, &old_text);
		if (ks == KP_OK && yes) {
			ks = replace_report(s, id, old_text, p);
		} else if (ks == KP_OK && !same_path && same) {
			s->sum->duplicates++;
			ks = put_path(s, path, id, &p->st, NULL);
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
		if (ks != KP_OK || id)
			return ks;
	}
	if (ks == KP_OK)
		ks = insert_report(s, p, collides_with != 0);
	if (ks == KP_OK && collides_with) {
		char w[300];
		snprintf(w, sizeof w, "incident id %.60s already names @%lld, %s: stored as a report of "
		         "its own", r->incident_id, (long long)collides_with,
		         other_host ? "cut short and pushed by another host (only its own host completes it)"
		                    : "whose content differs");
		ks = kpi__scan_add_warning(s, path, w);
	}
	return ks;
}

kp_status kpi__scan_bytes(scan *s, const char *path, char *data, size_t len, bool *stored)
{
	kpi_db *db = s->db;
	*stored = false;
	char hash[KP_SHA256_HEX];
	KPI__CONTENT_HASH(data, len, hash);
	int64_t id = 0;
	kpi__path_rec known = {0};
	kp_status ks = db->ops->report_find(db, hash, NULL, &id, s->err);
	if (ks == KP_OK && !id && *path)
		ks = db->ops->path_get(db, path, &known, s->err);
	if (ks != KP_OK || id) { /* already stored from a file */
		free(data);
		return ks;
	}
	/* the path's file now holds another report (scanned before): this one
	 * is kept without it; else it keeps its last path, the file gone or
	 * outside the folders (size as the report's, mtime 0: a file there
	 * is read again by the next scan) */
	struct stat st;
	memset(&st, 0, sizeof st);
	st.st_size = (off_t)len;
	kpi__prep *p = kpi__prep_new(known.known ? "" : path, &st, s->sym == NULL);
	if (!p) {
		free(data);
		return kp_error_set(s->err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	p->read = true;
	p->data = data;
	p->len = len;
	p->st = st;
	memcpy(p->hash, hash, sizeof hash);
	p->fmt = kp_report_sniff(data, len);
	size_t before = s->pend_new + s->pend_superseded;
	ks = kpi__scan_file(s, p);
	*stored = s->pend_new + s->pend_superseded > before;
	kpi__prep_free(&p);
	return ks;
}
