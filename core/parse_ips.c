#include "report_build.h"
kp_status kp__ips_parse(kp_report *r, const char *data, size_t len, kp_error *err)
{
	(void)r; (void)data; (void)len;
	return kp_error_set(err, KP_ERR_FORMAT, 0, -1, "not implemented");
}
