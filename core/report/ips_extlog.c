/* ips_extlog.c: the .ips body's ExtensiblePanicLog member (contract:
 * kp__ips_extlog in report_build.h): the state a kext or dext left for the
 * panic log through IOExtensiblePaniclog.
 *
 * The form: {"<owner UUID>": [{"DataID": N, "data": ...}, ...], ...}.
 * Quirks read leniently: an owner's value may be one entry instead of an
 * array; DataID a number or a string; data a string or an array of byte
 * values (0..255).  A string that is strict base64 (alphabet and padding
 * only, a multiple of 4 long) is decoded, any other string is its own
 * bytes: a short text that happens to be valid base64 ("TEST") is shown
 * decoded, a known ambiguity of the format.  Entries past MAX_ENTRIES and
 * bytes past MAX_BYTES per entry are dropped with a warning; a whole member
 * over ips_parse.c's KP_IPS_TREE_MAX (1 MiB) is kept as raw text in fields
 * instead, like every such member. */
#include "report_build.h"
#include "json_scan.h"
#include "kp_base64.h"
#include "kp_utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENTRIES 1024
#define MAX_BYTES ((size_t)256 << 10)   /* the kernel's buffers are a few KiB */

/* UTF-8 with no control character but \n, \r and \t: shown as text. */
static bool is_text(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t k = kp_utf8_decode(s + i, n - i, &cp);
		if (cp == 0xFFFD && k == 1)
			return false;
		if ((cp < 0x20 && cp != '\n' && cp != '\r' && cp != '\t') || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
			return false;
		i += k;
	}
	return true;
}

static bool entry(kp_report *r, size_t room, const char *owner, const cJSON *e, bool *cut)
{
	if (r->nextlogs >= room) {
		*cut = true;
		return true;
	}
	if (!cJSON_IsObject(e)) {
		kp__warn(r, 0, "ExtensiblePanicLog: an entry of %s is no object: skipped", owner);
		return true;
	}
	kp_extlog *x = &r->extlogs[r->nextlogs];
	memset(x, 0, sizeof *x);
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "DataID");
	uint64_t u;
	if (cJSON_IsString(id) && id->valuestring)
		x->data_id = kp__strdup(r, id->valuestring);
	else if (cJSON_IsNumber(id) && kp__json_u64(id, &u))
		x->data_id = kp__sprintf(r, "%llu", (unsigned long long)u);
	else if (cJSON_IsNumber(id))
		x->data_id = kp__sprintf(r, "%g", id->valuedouble);
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(e, "data");
	if (cJSON_IsString(d) && d->valuestring) {
		size_t n = strlen(d->valuestring), m = 0;
		unsigned char *b = kp__alloc(r, kp_base64_max(n) + 1);
		if (!b)
			return false;
		if (n && kp_base64_decode(d->valuestring, n, true, b, &m)) {
			x->data = b;
			x->len = m;
		} else {
			x->data = (unsigned char *)kp__strdup(r, d->valuestring);
			x->len = n;
		}
	} else if (cJSON_IsArray(d)) {
		size_t n = (size_t)cJSON_GetArraySize(d), k = 0;
		x->data = kp__alloc(r, n + 1);
		if (!x->data)
			return false;
		for (const cJSON *c = d->child; c; c = c->next)
			if (cJSON_IsNumber(c) && kp__json_u64(c, &u) && u <= 255)
				x->data[k++] = (unsigned char)u;
		if (k < n)
			kp__warn(r, 0, "ExtensiblePanicLog: %zu values of %s are no bytes: left out", n - k, owner);
		x->len = k;
	} else if (d) {
		kp__warn(r, 0, "ExtensiblePanicLog: data of %s is neither a string nor bytes: kept empty", owner);
	}
	if (x->len > MAX_BYTES) {
		kp__warn(r, 0, "ExtensiblePanicLog: %zu bytes of %s: only the first %zu kept", x->len, owner, MAX_BYTES);
		x->len = MAX_BYTES;
	}
	if (!x->data)
		x->data = (unsigned char *)kp__strdup(r, "");
	x->text = x->len && is_text(x->data, x->len);
	if (!(x->owner_uuid = kp__strdup(r, owner)) || !x->data)
		return false;
	r->nextlogs++;
	return true;
}

kp_status kp__ips_extlog(kp_report *r, const cJSON *v, kp_error *err)
{
	if (!cJSON_IsObject(v)) {
		kp__warn(r, 0, "ExtensiblePanicLog is no object: skipped");
		return KP_OK;
	}
	size_t total = 0;
	for (const cJSON *o = v->child; o; o = o->next)
		total += cJSON_IsArray(o) ? (size_t)cJSON_GetArraySize(o) : 1;
	/* A body may repeat the member (issue 32 item 0: a second one was
	 * given a fresh array sized for itself while nextlogs kept counting
	 * the first one's entries, and entry() wrote past its end): the
	 * entries of every repetition are appended, within MAX_ENTRIES. */
	if (r->nextlogs)
		kp__warn(r, 0, "ExtensiblePanicLog repeated: its entries are appended to the first one's");
	if (total > MAX_ENTRIES - r->nextlogs)
		total = MAX_ENTRIES - r->nextlogs;
	kp_extlog *all = kp__alloc(r, (r->nextlogs + total ? r->nextlogs + total : 1) * sizeof *all);
	if (!all)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	if (r->nextlogs)
		memcpy(all, r->extlogs, r->nextlogs * sizeof *all);
	r->extlogs = all;
	size_t room = r->nextlogs + total;
	bool cut = false;
	for (const cJSON *o = v->child; o; o = o->next) {
		char canon[37];
		const char *key = o->string ? o->string : "";
		const char *owner = kp_uuid_canon(key, strlen(key), canon) ? canon : key;
		bool ok = true;
		if (cJSON_IsArray(o)) {
			for (const cJSON *e = o->child; e && ok; e = e->next)
				ok = entry(r, room, owner, e, &cut);
		} else {
			ok = entry(r, room, owner, o, &cut);
		}
		if (!ok)
			return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	if (cut)
		kp__warn(r, 0, "ExtensiblePanicLog: more than %d entries: the rest are not kept", MAX_ENTRIES);
	return KP_OK;
}

const char *kp_report_owner_name(const kp_report *r, const char *uuid)
{
	if (!uuid)
		return NULL;
	for (size_t i = 0; i < r->nimages; i++)
		if (r->images[i].uuid && r->images[i].name && strcmp(r->images[i].uuid, uuid) == 0)
			return r->images[i].name;
	for (size_t i = 0; i < r->nkexts; i++)
		if (r->kexts[i].uuid && r->kexts[i].name && strcmp(r->kexts[i].uuid, uuid) == 0)
			return r->kexts[i].name;
	return NULL;
}
