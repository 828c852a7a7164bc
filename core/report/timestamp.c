/* timestamp.c: a report's date read from its timestamp as the report wrote
 * it (kp_report.h's kp_timestamp_*), the one parser of the scanner's ts, the
 * screens' dates and the JSON's ISO 8601. */
#include "kp_report.h"

#include <stdio.h>
#include <string.h>

static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* An offset at p: "+0100", "-05:00" or "Z"; false when p holds none. */
static bool offset_at(const char *p, int *min)
{
	if (*p == 'Z') {
		*min = 0;
		return true;
	}
	int oh, om, n = 0;
	if ((*p != '+' && *p != '-') ||
	    (sscanf(p + 1, "%2d%2d%n", &oh, &om, &n) != 2 && sscanf(p + 1, "%2d:%2d%n", &oh, &om, &n) != 2) ||
	    oh > 23 || om > 59)
		return false;
	*min = (*p == '-' ? -1 : 1) * (oh * 60 + om);
	return true;
}

bool kp_timestamp_parse(const char *ts, kp_timestamp *out)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	if (!ts)
		return false;
	while (*ts == ' ')
		ts++;
	kp_timestamp t = {0};
	int n = 0;
	char sep;
	if (sscanf(ts, "%4d-%2d-%2d%c%2d:%2d:%2d%n", &t.year, &t.month, &t.day, &sep, &t.hour, &t.min, &t.sec,
	           &n) == 7 &&
	    (sep == ' ' || sep == 'T')) {
		const char *p = ts + n;
		if (*p == '.')
			for (p++; *p >= '0' && *p <= '9'; p++)
				;
		while (*p == ' ')
			p++;
		t.zoned = offset_at(p, &t.offset_min);
	} else {
		char wd[4], mon[4];
		if (sscanf(ts, "%3s %3s %d %d:%d:%d %d", wd, mon, &t.day, &t.hour, &t.min, &t.sec, &t.year) != 7)
			return false;
		const char *m = strstr(months, mon);
		if (!m || strlen(mon) != 3 || (m - months) % 3)
			return false;
		t.month = (int)(m - months) / 3 + 1;
	}
	if (t.month < 1 || t.month > 12 || t.day < 1 || t.day > 31 || t.hour < 0 || t.hour > 23 || t.min < 0 ||
	    t.min > 59 || t.sec < 0 || t.sec > 60 || t.year < 1 || t.year > 9999)
		return false;
	*out = t;
	return true;
}

int64_t kp_timestamp_seconds(const kp_timestamp *t)
{
	return days_from_civil(t->year, t->month, t->day) * 86400 + (int64_t)t->hour * 3600 + (int64_t)t->min * 60 +
	       t->sec - (t->zoned ? (int64_t)t->offset_min * 60 : 0);
}

bool kp_timestamp_iso(const char *ts, char *out, size_t size)
{
	kp_timestamp t;
	if (size)
		out[0] = '\0';
	if (!kp_timestamp_parse(ts, &t))
		return false;
	int n = snprintf(out, size, "%04d-%02d-%02dT%02d:%02d:%02d", t.year, t.month, t.day, t.hour, t.min, t.sec);
	if (n > 0 && t.zoned && (size_t)n < size) {
		int a = t.offset_min < 0 ? -t.offset_min : t.offset_min;
		snprintf(out + n, size - (size_t)n, "%c%02d:%02d", t.offset_min < 0 ? '-' : '+', a / 60, a % 60);
	}
	return true;
}
