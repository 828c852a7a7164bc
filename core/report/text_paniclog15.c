/* text_paniclog15.c: the header lines paniclog version 15 (macOS 26) adds
 * (panic-formats.md section 6; part of kp__text_parse):
 *   SPTM load address / SPTM UUID, TXM load address / TXM UUID,
 *   Fileset Kernelcache UUID, Debug Header kernelcache load address / UUID
 *     -> images of kind 'M' named "SPTM", "TXM", "kernelcache" (UUID and
 *        load address as start), so a UUID search finds the report by them;
 *   Debug Header address / entry count, Exclaves boot status, iBoot Stage 2
 *     version -> fields ("text.NAME", the value as written).
 * An image line comes before or after its pair: the image is found by name. */
#include "text_parse.h"

#include <string.h>

static kp_image *named_image(tp *c, const char *name)
{
	kp_report *r = c->r;
	for (size_t i = 0; i < r->nimages; i++)
		if (r->images[i].kind == 'M' && r->images[i].name && strcmp(r->images[i].name, name) == 0)
			return &r->images[i];
	kp_image *im = kp__add_image(r);
	if (!im || !(im->name = kp__strdup(r, name))) {
		c->oom = true;
		return NULL;
	}
	im->kind = 'M';
	return im;
}

static void image_uuid(tp *c, const char *name, const char *v)
{
	char u[37];
	v = skip_ws(v);
	size_t n = strlen(v);
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\r'))
		n--;
	if (!kp_uuid_canon(v, n, u))
		return;
	int have = kp__image_by_uuid(c->r, u);
	if (have >= 0 && c->r->images[have].kind != 'M')
		return;   /* binaryImages has it already: searchable as it is */
	kp_image *im = named_image(c, name);
	if (im && !im->uuid && !(im->uuid = kp__strdup(c->r, u)))
		c->oom = true;
}

static void image_addr(tp *c, const char *name, const char *v)
{
	uint64_t a;
	if (!hex_at(skip_ws(v), &a, NULL))
		return;
	kp_image *im = named_image(c, name);
	if (im && !im->has_start)
		im->has_start = true, im->start = a;
}

bool kp__text_v15_line(tp *c, const char *t)
{
	static const struct {
		const char *pre, *image;
		bool uuid;
	} imgs[] = {
		{"SPTM UUID:", "SPTM", true},
		{"SPTM load address:", "SPTM", false},
		{"TXM UUID:", "TXM", true},
		{"TXM load address:", "TXM", false},
		{"Fileset Kernelcache UUID:", "kernelcache", true},
		{"Debug Header kernelcache UUID:", "kernelcache", true},
		{"Debug Header kernelcache load address:", "kernelcache", false},
	};
	static const char *const fields[] = {
		"Debug Header address:", "Debug Header entry count:", "Exclaves boot status:",
		"iBoot Stage 2 version:",
	};
	const char *p;
	for (size_t i = 0; i < sizeof imgs / sizeof imgs[0]; i++)
		if ((p = after(t, imgs[i].pre))) {
			if (imgs[i].uuid)
				image_uuid(c, imgs[i].image, p);
			else
				image_addr(c, imgs[i].image, p);
			return true;
		}
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
		if ((p = after(t, fields[i]))) {
			char key[64];
			size_t kn = strlen(fields[i]) - 1;   /* without the ':' */
			memcpy(key, "text.", 5);
			memcpy(key + 5, fields[i], kn);
			const char *v = skip_ws(p);
			size_t vn = strlen(v);
			while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\r'))
				vn--;
			bool have = false;
			for (size_t k = 0; k < c->r->nfields && !have; k++)
				have = strncmp(c->r->fields[k].key, key, 5 + kn) == 0 && !c->r->fields[k].key[5 + kn];
			if (!have && !kp__add_field(c->r, key, 5 + kn, v, vn))
				c->oom = true;
			return true;
		}
	return false;
}
