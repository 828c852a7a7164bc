/* summary.c: what a report says, said once (kp_summary.h). */
#include "kp_summary.h"

#include <stdio.h>

const char *kp_summary_image_label(const kp_report *r, int idx, size_t uuid_chars, char *buf, size_t size)
{
	if (idx < 0 || (size_t)idx >= r->nimages)
		return "?";
	const kp_image *im = &r->images[idx];
	if (im->name)
		return im->name;
	if (im->uuid)
		snprintf(buf, size, "%c:%.*s", im->kind, uuid_chars ? (int)uuid_chars : 36, im->uuid);
	else
		snprintf(buf, size, "image#%d", idx);
	return buf;
}
