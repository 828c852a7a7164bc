/* text_kexts.c: the kexts of a panic text: "Kernel Extensions in
 * backtrace" entries, their dependency lines, the loaded kext list and the
 * last started/unloaded kext (part of kp__text_parse; shared state:
 * text_parse.h; compact ids: kext_abbrev.c). */
#include "text_parse.h"

#include <string.h>

/* ---- kexts in backtrace ---- */

/* "[dependency: ]bundle.id(version)[UUID]@0xSTART[->0xEND]". */
bool kp__text_bt_image(tp *c, const char *t)
{
	kp_report *r = c->r;
	const char *p = after(t, "dependency:");
	bool dep = p != NULL;
	p = dep ? skip_ws(p) : t;
	const char *lp = strchr(p, '(');
	if (!lp || lp == p)
		return false;
	for (const char *q = p; q < lp; q++)
		if (*q == ' ' || *q == '\t')
			return false;
	const char *rp = lp + 1;
	while (*rp && !(rp[0] == ')' && (rp[1] == '[' || rp[1] == '@')))
		rp++;
	if (!*rp)
		return false;
	const char *q = rp + 1, *u = NULL;
	size_t ulen = 0;
	if (*q == '[') {
		u = q + 1;
		const char *rb = strchr(u, ']');
		if (!rb)
			return false;
		ulen = (size_t)(rb - u);
		q = rb + 1;
	}
	uint64_t start, end = 0;
	if (*q != '@' || !hex_at(q + 1, &start, &q))
		return false;
	bool has_end = q[0] == '-' && q[1] == '>' && hex_at(q + 2, &end, NULL);

	if (c->nbt_images >= MAX_BT_IMAGES) {
		c->bt_images_dropped++;
		return true;
	}
	c->nbt_images++;
	char uuid[37];
	bool has_uuid = u && kp_uuid_canon(u, ulen, uuid);
	int idx = has_uuid ? kp__image_by_uuid(r, uuid) : kp__image_by_name(r, p, (size_t)(lp - p));
	kp_image *im;
	if (idx >= 0) {
		im = &r->images[idx];
	} else {
		if (!(im = kp__add_image(r))) {
			c->oom = true;
			return true;
		}
		im->kind = 'X';
		if (has_uuid && !(im->uuid = kp__strdup(r, uuid)))
			c->oom = true;
	}
	if (!im->name && !(im->name = kp__strndup(r, p, (size_t)(lp - p))))
		c->oom = true;
	if (!im->version && !(im->version = kp__strndup(r, lp + 1, (size_t)(rp - lp - 1))))
		c->oom = true;
	if (!im->has_start) {
		im->start = start;
		im->has_start = true;
	}
	if (!im->has_end && has_end) {
		im->end = end;
		im->has_end = true;
	}
	if (!dep) {
		im->in_backtrace = true;
		im->is_dependency = false;
	} else if (!im->in_backtrace) {
		im->is_dependency = true;
	}
	return true;
}

/* ---- loaded kexts ---- */

static bool kext_name_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || is_digit(ch) || ch == '.' ||
	       ch == '_' || ch == '-' || ch == '>' || ch == '|' || ch == '$' || ch == '@' || ch == '!';
}

/* "name<TAB>version" (a version may hold spaces: "14.0.1 45154").  After a
 * blank line inside the list only tab-separated entries continue it. */
bool kp__text_loaded_kext(tp *c, const char *t, bool need_tab)
{
	const char *e = t;
	while (kext_name_char(*e))
		e++;
	if (e == t || (*e != '\t' && *e != ' '))
		return false;
	const char *v = skip_ws(e), *q = after(v, "[loaded at "), *qe = NULL;
	uint64_t at = 0;
	bool loaded_at = q && hex_at(q, &at, &qe) && qe[0] == ']' && !*skip_ws(qe + 1);
	if (!*v || (*e != '\t' && need_tab && !loaded_at))
		return false;
	if (c->add_kexts) {
		kp_kext *k = kp__add_kext(c->r);
		if (!k) {
			c->oom = true;
			return true;
		}
		k->name = kp__kext_expand(c->r, t, (size_t)(e - t));
		if (!k->name)
			c->oom = true;
		if (loaded_at) {   /* "id [loaded at 0x…]": no version written */
			k->has_loaded_at = true;
			k->loaded_at = at;
		} else {
			k->version = kp__text_dup_trim(c, v);
		}
	}
	return true;
}

/* "last started kext at N: id<TAB>version (addr ..., size ...)": the whole
 * rest, with the id expanded from its compact form. */
void kp__text_last_kext(tp *c, const char *p, char **field)
{
	const char *colon = strchr(p, ':');
	if (*field || !colon)
		return;
	const char *s = skip_ws(colon + 1), *e = s;
	while (kext_name_char(*e))
		e++;
	char *name = kp__kext_expand(c->r, s, (size_t)(e - s));
	if (!name)
		c->oom = true;
	else if (!(*field = kp__sprintf(c->r, "%s%s", name, e)))
		c->oom = true;
}
