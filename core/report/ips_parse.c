/* ips_parse.c: the JSON report forms.
 *
 *  - .ips bug_type 210: a one-line JSON header, then a (pretty-printed)
 *    JSON body with processByPid, binaryImages and an embedded panicString.
 *  - Intel JSON (macOS 10.15 .. 15 on Intel): a body holding
 *    macOSPanicString and macOSProcessedStackshotData, header line optional.
 *  - the rest of the family (panic-formats.md section 6), same container:
 *    288 Stackshot and 151 ForceReset (stackshot at the top level), 409
 *    SystemWatchdogCrash and 509 TerminatingStackshot (under a `stackshot`
 *    member); any other bug_type carrying processByPid is read as a
 *    stackshot with a warning.  The kind comes from bug_type, else from the
 *    content (a panic string, a `termination`, a processByPid).
 *
 * The body is walked member by member with json_scan and only one member
 * (one process, for processByPid) is a cJSON tree at a time, which keeps the
 * peak near the input size.  A body cut off inside a member keeps every
 * complete member before it and marks the report truncated.
 *
 * Memory stays within a few times the input whatever it holds: a member
 * bigger than KP_IPS_TREE_MAX is never made a cJSON tree (a tree of tiny
 * items costs ~30x their text); it is kept as its compacted text, and
 * binaryImages is read one element at a time.
 *
 * An Intel JSON's macOSProcessedStackshotData (base64 kcdata) is decoded by
 * kcdata.c once the panic text is read.  Known limits: keys
 * with escape sequences in their names are compared raw; at most
 * KP_IPS_MAX_IMAGES binary images; an unmodelled member bigger than
 * KP_IPS_TREE_MAX is kept as its text with white space squeezed, not
 * re-printed by cJSON. */
#include "json_scan.h"
#include "kp_base64.h"
#include "report_build.h"

#include <stdlib.h>
#include <string.h>

#define KP_IPS_TREE_MAX ((size_t)1 << 20)
#define KP_IPS_IMAGE_MAX_TEXT 4096   /* a real image entry is < 300 bytes */

typedef struct ips_ctx {
	kp_report *r;
	const char *data, *end;
	kp_error *err;
	const char *panic_text, *panic_text_key;   /* decoded copies in r's arena */
	const char *reset_text;   /* a force reset's (bug_type 151) "string" */
	char *mac_panic_text;
	bool saw_body_member;
	const char *procs, *procs_end;   /* processByPid, read once images are known */
	bool saw_termination;
	long panic_text_line;
	long stackshot_line;   /* macOSProcessedStackshotData's */
	const char *line_pos;   /* line_at's memo: line_no is the line of line_pos */
	long line_no;
	kp_jmemo memo;   /* the body's container ends, for every walk into it */
	unsigned flags;   /* KP_PARSE_* */
	kp__ips_defer defer;   /* KP_PARSE_SKIM_FRAMES: the frames not decoded yet */
} ips_ctx;

static long line_of(const char *data, const char *pos)
{
	long line = 1;
	for (const char *p = data; p < pos; p++)
		if (*p == '\n')
			line++;
	return line;
}

/* line_of, counting on from the previous answer: members come in order, so
 * warning about every member of a long body stays linear. */
static long line_at(ips_ctx *c, const char *pos)
{
	if (!pos || pos < c->data || pos > c->end)
		return 0;
	if (!c->line_pos || pos < c->line_pos) {
		c->line_pos = c->data;
		c->line_no = 1;
	}
	for (const char *p = c->line_pos; p < pos; p++)
		if (*p == '\n')
			c->line_no++;
	c->line_pos = pos;
	return c->line_no;
}

static kp_status jerr_to_error(ips_ctx *c, const kp_jerr *e, const char *what)
{
	const char *pos = e->pos ? e->pos : c->data;
	return kp_error_set(c->err, KP_ERR_FORMAT, line_of(c->data, pos), (long)(pos - c->data),
	                    "%s: %s", what, e->msg ? e->msg : "malformed JSON");
}

static bool key_is(const kp_jmember *m, const char *k)
{
	return strlen(k) == m->keylen && memcmp(m->key, k, m->keylen) == 0;
}

static char *str_of(kp_report *r, const cJSON *it)
{
	return cJSON_IsString(it) && it->valuestring ? kp__strdup(r, it->valuestring) : NULL;
}

/* Keeps an unmodelled member: strings verbatim, the rest as compact JSON. */
static bool keep_field(kp_report *r, const char *prefix, const char *key, size_t keylen,
                       const cJSON *v)
{
	char name[128];
	size_t pl = strlen(prefix);
	if (keylen > sizeof name - pl - 1)
		keylen = sizeof name - pl - 1;
	memcpy(name, prefix, pl);
	memcpy(name + pl, key, keylen);
	if (cJSON_IsString(v))
		return kp__add_field(r, name, pl + keylen, v->valuestring, strlen(v->valuestring));
	char *txt = cJSON_PrintUnformatted(v);
	if (!txt)
		return false;
	bool ok = kp__add_field(r, name, pl + keylen, txt, strlen(txt));
	cJSON_free(txt);
	return ok;
}

/* Keeps a big unmodelled container member as its own text, white space
 * outside strings squeezed out (one space kept between two words). */
static bool keep_raw_field(kp_report *r, const char *prefix, const kp_jmember *m)
{
	char name[128];
	size_t pl = strlen(prefix), keylen = m->keylen;
	if (keylen > sizeof name - pl - 1)
		keylen = sizeof name - pl - 1;
	memcpy(name, prefix, pl);
	memcpy(name + pl, m->key, keylen);
	size_t n = (size_t)(m->val_end - m->val);
	char *buf = malloc(n + 1), *o = buf;
	if (!buf)
		return false;
	bool in_str = false, pending_space = false;
	for (const char *p = m->val; p < m->val_end; p++) {
		char ch = *p;
		if (in_str) {
			*o++ = ch;
			if (ch == '\\' && p + 1 < m->val_end)
				*o++ = *++p;
			else if (ch == '"')
				in_str = false;
			continue;
		}
		if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
			pending_space = true;
			continue;
		}
		if (pending_space && o > buf && !strchr("{}[],:\"", o[-1]) && !strchr("{}[],:\"", ch))
			*o++ = ' ';
		pending_space = false;
		*o++ = ch;
		if (ch == '"')
			in_str = true;
	}
	bool ok = kp__add_field(r, name, pl + keylen, buf, (size_t)(o - buf));
	free(buf);
	return ok;
}

static bool set_int(const cJSON *v, int *out)
{
	uint64_t u;
	if (cJSON_IsString(v) || cJSON_IsNumber(v)) {
		if (kp__json_u64(v, &u) && u <= 0x7fffffff) {
			*out = (int)u;
			return true;
		}
	}
	return false;
}

/* Header line and the body share these scalar keys. */
static bool common_key(ips_ctx *c, const char *key, size_t keylen, const cJSON *v)
{
	kp_report *r = c->r;
#define K(s) (keylen == sizeof(s) - 1 && memcmp(key, s, keylen) == 0)
	if (K("bug_type")) {
		if (!r->has_bug_type && set_int(v, &r->bug_type))
			r->has_bug_type = true;
	} else if (K("timestamp")) {
		if (!r->timestamp)
			r->timestamp = str_of(r, v);
	} else if (K("os_version")) {
		if (!r->os_version)
			r->os_version = str_of(r, v);
	} else if (K("incident_id") || K("incident")) {
		if (!r->incident_id)
			r->incident_id = str_of(r, v);
	} else if (K("product")) {
		if (!r->product)
			r->product = str_of(r, v);
	} else if (K("modelCode")) {
		/* the model as a stackshot or watchdog report names it, kept as
		 * written too (issue 31 item 8) */
		if (!r->product)
			r->product = str_of(r, v);
		return keep_field(r, "", key, keylen, v);
	} else if (K("kernel")) {
		if (!r->kernel_version)
			r->kernel_version = str_of(r, v);
	} else if (K("build")) {
		if (!r->build)
			r->build = str_of(r, v);
	} else if (K("date")) {
		if (!r->timestamp)
			r->timestamp = str_of(r, v);
		return keep_field(r, "", key, keylen, v);
	} else {
		return false;
	}
#undef K
	return true;
}

/* One binaryImages element: [uuid, base, kind, name?]. */
static void parse_image(kp_report *r, kp_image *img, const cJSON *im)
{
	if (!cJSON_IsArray(im))
		return;
	const cJSON *u = cJSON_GetArrayItem(im, 0), *k = cJSON_GetArrayItem(im, 2);
	char canon[37];
	if (cJSON_IsString(u) && kp_uuid_canon(u->valuestring, strlen(u->valuestring), canon))
		img->uuid = kp__strdup(r, canon);
	uint64_t base;
	if (kp__json_u64(cJSON_GetArrayItem(im, 1), &base)) {
		img->has_base = true;
		img->base = base;
	}
	if (cJSON_IsString(k) && k->valuestring[0])
		img->kind = k->valuestring[0];
	if (img->kind == 'A' && img->uuid && strcmp(img->uuid, "00000000-0000-0000-0000-000000000000") == 0)
		img->uuid = NULL;
	/* Images may carry more elements (a name in some releases). */
	const cJSON *extra = cJSON_GetArrayItem(im, 3);
	if (cJSON_IsString(extra))
		img->name = kp__strdup(r, extra->valuestring);
}

/* binaryImages, one element at a time: each is a tiny cJSON tree. */
static kp_status parse_images(ips_ctx *c, const char *s, const char *end)
{
	kp_report *r = c->r;
	kp_jiter it;
	kp_jerr e;
	if (!kp_json_arr_begin(&it, s, end, &e))
		return KP_OK;
	const char *p, *ve;
	while (kp_json_arr_next(&it, &p, &ve, &e)) {
		if (r->nimages >= KP_IPS_MAX_IMAGES) {
			kp__warn(r, line_at(c, p), "more than %zu binary images: the rest are ignored",
			         KP_IPS_MAX_IMAGES);
			break;
		}
		kp_image *img = kp__add_image(r);
		if (!img)
			return kp_error_set(c->err, KP_ERR_NOMEM, 0, -1, "out of memory");
		/* Keep the slot even when malformed: frames refer to images by index. */
		if (*p == '[' && (size_t)(ve - p) <= KP_IPS_IMAGE_MAX_TEXT) {
			kp_jerr ie = {0};
			cJSON *im = kp__json_parse_span(p, ve, &ie);
			if (im)
				parse_image(r, img, im);
			cJSON_Delete(im);
		}
	}
	return KP_OK;
}

/* Members kpbrowse models from a scalar: a container there is a wrong type
 * and is ignored. */
static bool modelled_scalar(const kp_jmember *m)
{
	static const char *const keys[] = {"panicString", "macOSPanicString",
	                                   "macOSProcessedStackshotData", "bug_type", "timestamp",
	                                   "os_version", "incident_id", "incident", "product",
	                                   "kernel", "build", "reason", "procName", "pid"};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (key_is(m, keys[i]))
			return true;
	return false;
}

/* ["a", "b"] -> out (strings only). */
static bool strs_of(kp_report *r, const cJSON *v, kp_strs *out)
{
	if (!cJSON_IsArray(v))
		return true;
	int n = cJSON_GetArraySize(v);
	out->v = kp__alloc(r, (size_t)(n > 0 ? n : 1) * sizeof *out->v);
	if (!out->v)
		return false;
	out->n = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, v)
	{
		if (cJSON_IsString(it) && !(out->v[out->n++] = kp__strdup(r, it->valuestring)))
			return false;
	}
	return true;
}

/* termination {namespace, code, indicator, details[]} of a watchdog: the
 * reason is its indicator, else its first detail, else namespace and code. */
static void termination_reason(ips_ctx *c, const cJSON *v)
{
	kp_report *r = c->r;
	if (!cJSON_IsObject(v))
		return;
	c->saw_termination = true;
	const cJSON *nsp = cJSON_GetObjectItemCaseSensitive(v, "namespace");
	if (cJSON_IsString(nsp) && !r->term_namespace)
		r->term_namespace = kp__strdup(r, nsp->valuestring);
	if (r->reason)
		return;
	const cJSON *ind = cJSON_GetObjectItemCaseSensitive(v, "indicator");
	const cJSON *det = cJSON_GetObjectItemCaseSensitive(v, "details");
	const cJSON *ns = cJSON_GetObjectItemCaseSensitive(v, "namespace");
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(v, "code");
	const cJSON *d0 = cJSON_IsArray(det) ? cJSON_GetArrayItem(det, 0) : NULL;
	if (cJSON_IsString(ind) && ind->valuestring[0])
		r->reason = kp__strdup(r, ind->valuestring);
	else if (cJSON_IsString(d0) && d0->valuestring[0])
		r->reason = kp__strdup(r, d0->valuestring);
	else if (cJSON_IsString(ns)) {
		uint64_t cv;
		if (code && kp__json_u64(code, &cv))
			r->reason = kp__sprintf(r, "%s code 0x%llx", ns->valuestring, (unsigned long long)cv);
		else
			r->reason = kp__strdup(r, ns->valuestring);
	}
}

/* Members of the rest of the family (288, 409, 509, 151); true when m was
 * one of them.  notes and termination are kept as fields too. */
static bool family_member(ips_ctx *c, const kp_jmember *m, const cJSON *v, bool *keep)
{
	kp_report *r = c->r;
	*keep = false;
	if (key_is(m, "reason")) {
		if (cJSON_IsString(v))
			r->reason = kp__strdup(r, v->valuestring);
		else
			*keep = true;
	} else if (key_is(m, "procName")) {
		if (cJSON_IsString(v))
			r->blamed_process = kp__strdup(r, v->valuestring);
	} else if (key_is(m, "pid")) {
		/* -1 (or none) when the watchdog blames nobody */
		uint64_t pid;
		if (kp__json_u64(v, &pid) && pid <= INT64_MAX)
			r->has_blamed_pid = true, r->blamed_pid = (int64_t)pid;
		else
			*keep = true;
	} else if (key_is(m, "frontmostPids") && r->frontmost_pids) {
		/* repeated: a second array must not be filled on top of the
		 * first one's count (issue 32 item 0); the first is kept */
		kp__warn(r, 0, "frontmostPids repeated: the first one is kept");
		*keep = true;
	} else if (key_is(m, "frontmostPids")) {
		int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : 0;
		r->frontmost_pids = n > 0 ? kp__alloc(r, (size_t)n * sizeof *r->frontmost_pids) : NULL;
		const cJSON *it;
		if (r->frontmost_pids)
			cJSON_ArrayForEach(it, v)
			{
				uint64_t pid;
				if (kp__json_u64(it, &pid) && pid <= INT64_MAX)
					r->frontmost_pids[r->nfrontmost++] = (int64_t)pid;
			}
	} else if (key_is(m, "notes") || key_is(m, "reportNotes")) {
		if (!r->notes.n)
			strs_of(r, v, &r->notes);
		*keep = true;
	} else if (key_is(m, "panicFlags")) {
		uint64_t f;
		if (kp__json_u64(v, &f))
			r->has_panic_flags = true, r->panic_flags = f;
		*keep = true;   /* the field stays as the report wrote it */
	} else if (key_is(m, "termination")) {
		termination_reason(c, v);
		*keep = true;
	} else {
		return false;
	}
	return true;
}

/* Where processByPid's value starts when the body is cut off inside it
 * (the cut may come before the ':': then there is none). */
static void procs_after_cut(ips_ctx *c, const char *key, const char *end)
{
	const char *colon = key && (size_t)(end - key) > 13 && memcmp(key, "processByPid\"", 13) == 0
	                            ? memchr(key + 13, ':', (size_t)(end - key - 13)) : NULL;
	if (colon) {
		c->procs = kp_json_ws(colon + 1, end);
		c->procs_end = end;
	}
}

/* The `stackshot` member of a 409/509 body: its processByPid and
 * binaryImages are read like top-level ones, its other members kept as
 * "stackshot.NAME" fields.  A cut-off one keeps its complete processes. */
static kp_status stackshot_member(ips_ctx *c, const char *val, const char *end, bool *cut)
{
	kp_report *r = c->r;
	kp_jiter it;
	kp_jmember m;
	kp_jerr je = {0};
	if (!kp_json_obj_begin(&it, val, end, &je))
		return KP_OK;
	it.memo = &c->memo;
	for (;;) {
		m.key = NULL;
		if (!kp_json_obj_next(&it, &m, &je))
			break;
		if (key_is(&m, "processByPid")) {
			c->procs = m.val;
			c->procs_end = m.val_end;
		} else if (key_is(&m, "binaryImages")) {
			kp_status st = r->nimages ? KP_OK : parse_images(c, m.val, m.val_end);
			if (st != KP_OK)
				return st;
		} else if ((size_t)(m.val_end - m.val) > KP_IPS_TREE_MAX) {
			if (!keep_raw_field(r, "stackshot.", &m))
				return kp_error_set(c->err, KP_ERR_NOMEM, 0, -1, "out of memory");
		} else {
			kp_jerr e = {0};
			cJSON *v = kp__json_parse_span(m.val, m.val_end, &e);
			bool ok = !v || keep_field(r, "stackshot.", m.key, m.keylen, v);
			cJSON_Delete(v);
			if (!ok)
				return kp_error_set(c->err, KP_ERR_NOMEM, 0, -1, "out of memory");
		}
	}
	if (je.msg) {
		*cut = true;
		procs_after_cut(c, m.key, end);
	}
	return KP_OK;
}

/* A macOSProcessedStackshotData that is no stackshot but a sentence (a
 * nested panic's report: base64 of "no on disk or sleep/wake failure
 * panickstashot found", spelt so): said in a warning as written.  A real
 * stackshot (binary kcdata) is decoded by kcdata.c. */
static void stackshot_notice(kp_report *r, const char *b64, long line)
{
	size_t len = strlen(b64), n = 0;
	unsigned char text[kp_base64_max(256)];
	if (len > 256 || !kp_base64_decode(b64, len, false, text, &n) || !n)
		return;
	for (size_t i = 0; i < n; i++)
		if (text[i] < 0x20 || text[i] > 0x7e)
			return;
	kp__warn(r, line, "macOSProcessedStackshotData holds no stackshot, only the words \"%.*s\"", (int)n,
	         (const char *)text);
}

static kp_status body_member(ips_ctx *c, const kp_jmember *m, bool *cut)
{
	kp_report *r = c->r;
	if (key_is(m, "stackshot") && *m->val == '{')
		return stackshot_member(c, m->val, m->val_end, cut);
	if (key_is(m, "processByPid")) {
		c->procs = m->val;
		c->procs_end = m->val_end;
		return KP_OK;
	}
	if (key_is(m, "binaryImages")) {
		if (r->nimages == 0)
			return parse_images(c, m->val, m->val_end);
		return KP_OK;
	}
	if ((size_t)(m->val_end - m->val) > KP_IPS_TREE_MAX && (*m->val == '{' || *m->val == '[')) {
		if (modelled_scalar(m))
			return KP_OK;
		return keep_raw_field(r, "", m) ? KP_OK
		                                : kp_error_set(c->err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	kp_jerr e = {0};
	cJSON *v = kp__json_parse_span(m->val, m->val_end, &e);
	if (!v) {
		kp__warn(r, line_at(c, e.pos), "skipped malformed member \"%.*s\"",
		         (int)(m->keylen > 64 ? 64 : m->keylen), m->key);
		return KP_OK;
	}
	kp_status st = KP_OK;
	if (key_is(m, "panicString") || key_is(m, "macOSPanicString")) {
		bool mac = key_is(m, "macOSPanicString");
		if (cJSON_IsString(v)) {
			char *s = kp__strdup(r, v->valuestring);
			if (mac)
				c->mac_panic_text = s;
			else
				c->panic_text = s;
			if (!c->panic_text_line || !mac)
				c->panic_text_line = line_at(c, m->val);
		}
	} else if (key_is(m, "string") && cJSON_IsString(v)) {
		/* an iOS or bridgeOS forceReset's text: its panic string when it has none */
		c->reset_text = kp__strdup(r, v->valuestring);
		if (!c->panic_text_line)
			c->panic_text_line = line_at(c, m->val);
	} else if (key_is(m, "ExtensiblePanicLog") || key_is(m, "ExtensiblePaniclog")) {
		/* issue 24: a kext's own state; DumpPanic spells it as the
		 * kernel class does (IOExtensiblePaniclog), others with "Log" */
		st = kp__ips_extlog(r, v, c->err);
	} else if (key_is(m, "macOSProcessedStackshotData")) {
		if (cJSON_IsString(v)) {
			r->stackshot_b64 = kp__strdup(r, v->valuestring);
			r->stackshot_len = strlen(v->valuestring);
			c->stackshot_line = line_at(c, m->val);
			stackshot_notice(r, v->valuestring, line_at(c, m->val));
		}
	} else if (!common_key(c, m->key, m->keylen, v)) {
		bool keep;
		if (!family_member(c, m, v, &keep))
			keep = true;
		if (keep && !keep_field(r, "", m->key, m->keylen, v))
			st = kp_error_set(c->err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	cJSON_Delete(v);
	return st;
}

static kp_status parse_header(ips_ctx *c, const char *s, const char *e)
{
	kp_jerr je = {0};
	if ((size_t)(e - s) > KP_IPS_TREE_MAX) {
		/* Real header lines are a few hundred bytes: keep only what a
		 * big one says in scalars, member by member. */
		kp_jiter it;
		kp_jmember m;
		if (!kp_json_obj_begin(&it, s, e, &je))
			return jerr_to_error(c, &je, "header line");
		while (kp_json_obj_next(&it, &m, &je)) {
			if (*m.val == '{' || *m.val == '[')
				continue;
			cJSON *v = kp__json_parse_span(m.val, m.val_end, &je);
			if (v && !common_key(c, m.key, m.keylen, v) &&
			    !keep_field(c->r, "header.", m.key, m.keylen, v)) {
				cJSON_Delete(v);
				return kp_error_set(c->err, KP_ERR_NOMEM, 0, -1, "out of memory");
			}
			cJSON_Delete(v);
		}
		return KP_OK;
	}
	cJSON *h = kp__json_parse_span(s, e, &je);
	if (!h)
		return jerr_to_error(c, &je, "header line");
	const cJSON *it;
	cJSON_ArrayForEach(it, h)
	{
		const char *k = it->string ? it->string : "";
		if (!common_key(c, k, strlen(k), it) && !keep_field(c->r, "header.", k, strlen(k), it)) {
			cJSON_Delete(h);
			return kp_error_set(c->err, KP_ERR_NOMEM, 0, -1, "out of memory");
		}
	}
	cJSON_Delete(h);
	return KP_OK;
}

/* Apple's user-space report types (the submission list: app crashes,
 * resource and jetsam reports, analytics...): never a kernel report, even
 * with a termination object or threads of their own. */
static bool user_space_bug_type(int bt)
{
	static const int user[] = {
		105, 109, 110, 115, 142, 145, 146, 150, 183, 185, 187, 195, 202, 206, 209,
		211, 212, 217, 225, 226, 227, 228, 230, 231, 232, 233, 245, 262, 284, 298,
		308, 309, 310, 312, 313, 318, 327, 329, 385, 388, 411, 412, 415, 419,
	};
	for (size_t i = 0; i < sizeof user / sizeof *user; i++)
		if (user[i] == bt)
			return true;
	return false;
}

/* The kind a bug_type names; false for one outside the family. */
static bool kind_of_bug_type(int bt, kp_kind *k)
{
	switch (bt) {
	case 210: *k = KP_KIND_PANIC; return true;
	case 288: case 509: *k = KP_KIND_STACKSHOT; return true;
	case 409: *k = KP_KIND_WATCHDOG; return true;
	case 151: *k = KP_KIND_RESET; return true;
	default: return false;
	}
}

static bool is_real_text(const char *s)
{
	return s && s[0] && strcmp(s, "not yet set") != 0;
}

static kp_status ips_parse(ips_ctx *c)
{
	kp_report *r = c->r;
	kp_error *err = c->err;
	const char *data = c->data, *end = c->end;
	size_t len = (size_t)(end - data);
	const char *p = data;
	/* A UTF-8 byte order mark (an editor's save) before the header line. */
	if (len >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB &&
	    (unsigned char)p[2] == 0xBF)
		p += 3;
	p = kp_json_ws(p, end);
	/* Header line: a complete JSON object ending before the first newline
	 * that is followed by more JSON. */
	const char *body = p;
	kp_jerr je = {0};
	const char *first_end = kp_json_skip_memo(p, end, &c->memo, &je);
	if (!first_end && !je.truncated)
		return jerr_to_error(c, &je, "JSON");
	/* A cut-off first value is a body without header line. */
	const char *rest = first_end ? kp_json_ws(first_end, end) : end;
	bool has_header = false;
	if (rest < end && *rest == '{') {
		kp_status st = parse_header(c, p, first_end);
		if (st != KP_OK)
			return st;
		has_header = true;
		body = rest;
	} else if (rest < end) {
		return kp_error_set(err, KP_ERR_FORMAT, line_of(data, rest), (long)(rest - data),
		                    "unexpected text after the JSON value");
	}

	kp_status st;
	kp_jiter it;
	kp_jmember m;
	bool cut = false;
	if (!kp_json_obj_begin(&it, body, end, &je))
		return jerr_to_error(c, &je, "body");
	it.memo = &c->memo;
	for (;;) {
		m.key = NULL;   /* still NULL after a failure: no member had begun */
		if (!kp_json_obj_next(&it, &m, &je))
			break;
		c->saw_body_member = true;
		if ((st = body_member(c, &m, &cut)) != KP_OK)
			return st;
	}
	if (je.msg) {
		if (!je.truncated)
			return jerr_to_error(c, &je, "body");
		/* Cut off: a partial processByPid still yields its complete processes. */
		const char *key = m.key;
		if (key && (size_t)(end - key) > 10 && memcmp(key, "stackshot\"", 10) == 0) {
			const char *colon = memchr(key + 10, ':', (size_t)(end - key - 10));
			const char *val = colon ? kp_json_ws(colon + 1, end) : end;
			if (val < end && *val == '{' && (st = stackshot_member(c, val, end, &cut)) != KP_OK)
				return st;
		} else {
			procs_after_cut(c, key, end);
		}
		cut = true;
	}

	bool panic_text = is_real_text(c->panic_text) || is_real_text(c->mac_panic_text);
	if (r->has_bug_type && user_space_bug_type(r->bug_type))
		return kp_error_set(err, KP_ERR_NOTPANIC, 1, 0,
		                    "not a kernel panic report (bug_type %d)", r->bug_type);
	kp_kind kind = KP_KIND_PANIC;
	bool known = r->has_bug_type && kind_of_bug_type(r->bug_type, &kind);
	/* an unknown type is read only when it carries the kernel's process
	 * table (processByPid): a termination alone is any app's crash */
	bool family = known ? kind != KP_KIND_PANIC : !panic_text && c->procs;
	if (family && !known) {
		kind = c->saw_termination ? KP_KIND_WATCHDOG : KP_KIND_STACKSHOT;
		if (r->has_bug_type)
			kp__warn(r, 1, "unknown bug_type %d: read as a %s", r->bug_type, kp_kind_name(kind));
		else
			kp__warn(r, 1, "no bug_type: read as a %s", kp_kind_name(kind));
	}
	if (!family && r->has_bug_type && r->bug_type != 210 && !panic_text)
		return kp_error_set(err, KP_ERR_NOTPANIC, 1, 0,
		                    "not a kernel panic report (bug_type %d)", r->bug_type);
	/* a panic's other threads: only the panicked one's frames are needed
	 * by a skimming caller, and that one is known once the text is read */
	bool skim = (c->flags & KP_PARSE_SKIM_FRAMES) && !family;
	if (c->procs && (st = kp__ips_processes(r, c->procs, c->procs_end, &c->memo,
	                                        skim ? &c->defer : NULL, &cut)) != KP_OK)
		return kp_error_set(err, st, 0, -1, "out of memory");
	if (cut) {
		r->truncated = true;
		kp__warn(r, line_of(data, je.pos ? je.pos : end), "report is truncated: the JSON body ends early");
	}

	const char *text = NULL;
	if (family) {
		r->kind = kind;
		r->format = KP_FORMAT_IPS;
		/* a panic string in a stackshot is read for its fields */
		text = is_real_text(c->panic_text) ? c->panic_text
		       : is_real_text(c->mac_panic_text) ? c->mac_panic_text : NULL;
		/* a force reset says what happened in "string": its headline and
		 * panicked task, read as the panic text (issue 31 item 8) */
		if (!text && kind == KP_KIND_RESET && is_real_text(c->reset_text))
			text = c->reset_text;
	} else if (is_real_text(c->panic_text)) {
		text = c->panic_text;
		r->format = KP_FORMAT_IPS;
	} else if (is_real_text(c->mac_panic_text)) {
		text = c->mac_panic_text;
		r->format = r->nprocesses || (r->has_bug_type && !r->stackshot_b64 && r->nimages)
		                    ? KP_FORMAT_IPS : KP_FORMAT_INTEL_JSON;
	} else if (r->has_bug_type && r->bug_type == 210) {
		r->format = KP_FORMAT_IPS;
		/* a header and nothing after it: cut short (a report caught
		 * being written, or a paste that lost its body), refused rather
		 * than listed as a panic that says nothing (issue 31 item 10);
		 * the index skips it, saying so, and reads it again once it has
		 * grown.  (With no body the header line is read as one.) */
		if (!c->procs && !r->nimages && (!has_header || !c->saw_body_member))
			return kp_error_set(err, KP_ERR_CUT, 1, (long)(end - data),
			                    "cut short: a bug_type 210 header and no body after it");
		/* a body cut before its panic string, processes and images:
		 * kept as what it is, a truncated report, never a clean panic */
		if (!c->procs && !r->nimages) {
			r->truncated = true;
			kp__warn(r, 1, "report is truncated: a bug_type 210 header and no panic in it");
			r->headline = kp__strdup(r, "panic report cut short (no panic in what is there)");
		}
	} else {
		return kp_error_set(err, KP_ERR_NOTPANIC, 1, 0,
		                    has_header ? "JSON report without bug_type 210 or a panic string"
		                               : "JSON without a panic string: not a panic report");
	}
	if (c->reset_text && text != c->reset_text)   /* not read as the panic text: a field as written */
		kp__add_field(r, "string", 6, c->reset_text, strlen(c->reset_text));
	if (c->mac_panic_text && text != c->mac_panic_text)
		kp__add_field(r, "macOSPanicString", 16, c->mac_panic_text, strlen(c->mac_panic_text));
	if (text) {
		r->panic_string = (char *)text;
		kp_error terr;
		/* The embedded text is the panic text grammar: one parser for both.
		 * Its failure is not fatal here: the JSON already made a report.
		 * A text with no panic( line, backtrace or Kernel version (a nested
		 * panic's "Nested panic detected:...") is still the panic the JSON
		 * says it is: shown as written, its first line the headline, and
		 * said so, never "no kernel panic here" beside a panic (issue 31
		 * item 10). */
		kp_status tst = kp__text_parse(r, text, strlen(text), c->panic_text_line, -1, &terr);
		if (tst == KP_ERR_FORMAT)
			kp__warn(r, c->panic_text_line, "panic string: no panic( line, backtrace or Kernel version "
			                               "in it; shown as written");
		else if (tst != KP_OK)
			kp__warn(r, c->panic_text_line, "panic string: %s", terr.msg);
	}
	/* the panicked thread's frames; every thread's when kp__derive_arch
	 * will have to infer the arch from them */
	if (c->defer.n && kp__ips_frames(r, &c->defer, r->arch == KP_ARCH_UNKNOWN &&
	                                 kp__arch_of_version(r->kernel_version) == KP_ARCH_UNKNOWN) != KP_OK)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	/* the arch the text's parse left to us (kp__text_parse): from the
	 * frames as the report wrote them, before the slide is added */
	if (text)
		kp__derive_arch(r);
	/* Intel JSON: the kcdata stackshot's tasks after the text's panicked
	 * process (issue 31 item 7) */
	if (r->format == KP_FORMAT_INTEL_JSON && r->stackshot_b64 &&
	    kp__kcdata_stackshot(r, r->stackshot_b64, r->stackshot_len, c->stackshot_line) != KP_OK)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	if (!r->headline && r->reason) {
		const char *nl = strchr(r->reason, '\n');
		r->headline = kp__strndup(r, r->reason, nl ? (size_t)(nl - r->reason) : strlen(r->reason));
	}
	if (!r->headline && r->panic_string) {
		const char *s = r->panic_string, *nl = strchr(s, '\n');
		r->headline = kp__strndup(r, s, nl ? (size_t)(nl - s) : strlen(s));
	}
	if (!r->headline && family)   /* a stackshot without reason: say what it is */
		r->headline = r->has_bug_type ? kp__sprintf(r, "%s (bug_type %d)", kp_kind_name(kind), r->bug_type)
		                              : kp__strdup(r, kp_kind_name(kind));
	kp__ips_finish(r);
	/* wait chains are read by show and the TUI, never by a record: a
	 * skimming caller goes without (a twentieth of skimming a 1 MB report of
	 * 1,735 threads: its threads sorted by id, every waitInfo line read) */
	if (skim)
		return KP_OK;
	return kp__waitchain_build(r) ? KP_OK : kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
}

kp_status kp__ips_parse(kp_report *r, const char *data, size_t len, unsigned flags, kp_error *err)
{
	ips_ctx c = {.r = r, .data = data, .end = data + len, .err = err, .memo = {.base = data},
	             .flags = flags};
	kp_status st = ips_parse(&c);
	kp_json_memo_free(&c.memo);
	free(c.defer.v);
	return st;
}
