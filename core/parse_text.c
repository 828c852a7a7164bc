#include "report_build.h"
kp_status kp__text_parse(kp_report *r, const char *text, size_t len, long line0, long byte0, kp_error *err)
{
	(void)r; (void)text; (void)len;
	return kp_error_set(err, KP_ERR_FORMAT, line0, byte0, "not implemented");
}
