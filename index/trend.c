/* trend.c: how each group moves (kp_index.h, kpi_group_trends): reports per
 * day, builds, and the new and regressed flags, from one pass over the
 * reports (the store's trend_rows), summed here so that both stores give
 * the same answer from the same rows.
 *
 * The rules, in days (UTC) up to "now" (kp_index.h):
 *   new        first dated report in the last KPI_TREND_NEW_DAYS days; or,
 *              first seen within the window, on a build newer than every
 *              build of the reports dated before its first day (it came
 *              with a new build: the index must hold such earlier reports)
 *   regressed  a report in the window whose group had none for the
 *              KPI_TREND_QUIET_DAYS days before it; or seen on a build
 *              newer than a build F where it had stopped: F is not one of
 *              its builds, it had reports on a build older than F, and
 *              the fleet filed so many on F that the group, at its share
 *              of the reports of its own builds, would have had at least
 *              KPI_TREND_STOP_EXPECTED of them (a rare build, or one the
 *              fleet barely ran, stops nothing)
 * Reports dated after now (a clock set ahead) count in the span and the
 * builds, not in the days of the window. */
#include "kp_index.h"
#include "kpi_store.h"
#include "kp_arena.h"
#include "kp_hash.h"
#include "kp_vec.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DAY 86400

struct kpi_trends {
	int64_t today;
	kpi_trend *t;            /* by group id, ascending */
	size_t n;
	struct kp_arena *arena;  /* builds, days, counts */
};

/* ---- builds ---- */

bool kpi_build_of(const char *os, char *out, size_t size)
{
	if (size)
		out[0] = '\0';
	if (!os || size < 2)
		return false;
	const char *b = os, *e = os + strlen(os);
	/* "macOS 14.2 (23C64)": what is in the last parentheses */
	const char *close = e;
	while (close > os && isspace((unsigned char)close[-1]))
		close--;
	if (close > os && close[-1] == ')') {
		const char *open = close - 1;
		while (open > os && open[-1] != '(')
			open--;
		if (open == os)
			return false;
		b = open;
		e = close - 1;
	}
	while (b < e && isspace((unsigned char)*b))
		b++;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	/* digits, one or two letters, digits, letters: 23C64, 16B2555, 23A5286i */
	const char *p = b;
	size_t d = 0, l = 0, n = 0;
	while (p < e && isdigit((unsigned char)*p))
		p++, d++;
	while (p < e && isalpha((unsigned char)*p))
		p++, l++;
	while (p < e && isdigit((unsigned char)*p))
		p++, n++;
	while (p < e && isalpha((unsigned char)*p))
		p++;
	if (p != e || !d || d > 3 || l != 1 || !n || n > 6 || (size_t)(e - b) >= size)
		return false;
	memcpy(out, b, (size_t)(e - b));
	out[e - b] = '\0';
	return true;
}

typedef struct build_key {
	long major, number;
	char letter;
	const char *tail;   /* the trailing letters */
	size_t ntail;
} build_key;

static bool build_parse(const char *s, build_key *k)
{
	char buf[32];
	if (!s || !kpi_build_of(s, buf, sizeof buf) || strcmp(buf, s) != 0)
		return false;
	char *p;
	k->major = strtol(s, &p, 10);
	k->letter = (char)toupper((unsigned char)*p++);
	k->number = strtol(p, &p, 10);
	k->tail = p;
	k->ntail = strlen(p);
	return true;
}

int kpi_build_cmp(const char *a, const char *b)
{
	build_key x, y;
	bool px = build_parse(a, &x), py = build_parse(b, &y);
	if (px != py)
		return px ? 1 : -1;
	if (!px)
		return strcmp(a ? a : "", b ? b : "");
	if (x.major != y.major)
		return x.major < y.major ? -1 : 1;
	if (x.letter != y.letter)
		return x.letter < y.letter ? -1 : 1;
	if (x.number != y.number)
		return x.number < y.number ? -1 : 1;
	if (x.ntail != y.ntail)   /* none first, then "a" before "aa" */
		return x.ntail < y.ntail ? -1 : 1;
	return strcmp(x.tail, y.tail);
}

/* ---- reading the rows ---- */

typedef struct rec {
	int64_t gid, day, n;
	int build;               /* index into builds, -1 none */
} rec;

/* An OS version string seen in the rows and the build it names. */
typedef struct osv {
	char *s;
	int build;
} osv;

typedef struct reader {
	rec *r;                  /* one per (group, day, build), summed as read */
	size_t n, cap;
	uint32_t *slot;          /* open addressing over r: index + 1, 0 free; nslot a power of two */
	size_t nslot;
	const char *last_os;     /* the previous row's OS version (rows of a Mac come together) */
	char last_os_buf[128];
	int last_build;
	osv *os;                 /* open addressing, cap a power of two */
	size_t nos, oscap;
	char **builds;           /* distinct builds, in the order met (in arena) */
	size_t nbuilds, bcap;
	int *bplat;              /* each build's platform */
	size_t nbplat, bpcap;
	char plat[8][16];        /* platforms met ("" macOS); more share the last */
	int nplat;
	struct kp_arena *arena;  /* the trends' */
	bool nomem;
} reader;

/* The platform of an OS version, as an id of rd's: what comes before its
 * version, lower case without spaces, macOS's names (and a bare build, a
 * Mac's legacy report) all "": builds of other platforms (bridgeOS,
 * iPhone OS) never compare with a Mac's. */
static int platform(reader *rd, const char *os)
{
	char p[16];
	size_t n = 0;
	for (; *os && !isdigit((unsigned char)*os) && *os != '('; os++)
		if (!isspace((unsigned char)*os) && n < sizeof p - 1)
			p[n++] = (char)tolower((unsigned char)*os);
	p[n] = '\0';
	if (strcmp(p, "macos") == 0 || strcmp(p, "macosx") == 0 || strcmp(p, "osx") == 0)
		p[0] = '\0';
	for (int i = 0; i < rd->nplat; i++)
		if (strcmp(rd->plat[i], p) == 0)
			return i;
	if (rd->nplat == 8)
		return 7;
	memcpy(rd->plat[rd->nplat], p, n + 1);
	return rd->nplat++;
}

static int build_id(reader *rd, const char *b, int plat)
{
	for (size_t i = 0; i < rd->nbuilds; i++)
		if (rd->bplat[i] == plat && strcmp(rd->builds[i], b) == 0)
			return (int)i;
	int *pl = kp_vec_push((void **)&rd->bplat, &rd->nbplat, &rd->bpcap, sizeof *pl);
	if (!pl) {
		rd->nomem = true;
		return -1;
	}
	*pl = plat;
	size_t len = strlen(b) + 1;
	char *s = kp_arena_alloc(rd->arena, len);
	char **slot = s ? kp_vec_push((void **)&rd->builds, &rd->nbuilds, &rd->bcap, sizeof *slot) : NULL;
	if (!slot) {
		rd->nomem = true;
		return -1;
	}
	*slot = memcpy(s, b, len);
	return (int)rd->nbuilds - 1;
}

static bool os_grow(reader *rd)
{
	size_t cap = rd->oscap ? rd->oscap * 2 : 64;
	osv *t = calloc(cap, sizeof *t);
	if (!t)
		return false;
	for (size_t i = 0; i < rd->oscap; i++)
		if (rd->os[i].s) {
			size_t j = kp_hash_str(rd->os[i].s) & (cap - 1);
			while (t[j].s)
				j = (j + 1) & (cap - 1);
			t[j] = rd->os[i];
		}
	free(rd->os);
	rd->os = t;
	rd->oscap = cap;
	return true;
}

/* The build of an OS version string, each distinct string parsed once. */
static int os_build(reader *rd, const char *os)
{
	if (!os)
		return -1;
	if ((rd->nos + 1) * 2 > rd->oscap && !os_grow(rd)) {
		rd->nomem = true;
		return -1;
	}
	size_t j = kp_hash_str(os) & (rd->oscap - 1);
	while (rd->os[j].s) {
		if (strcmp(rd->os[j].s, os) == 0)
			return rd->os[j].build;
		j = (j + 1) & (rd->oscap - 1);
	}
	char b[32];
	int id = kpi_build_of(os, b, sizeof b) ? build_id(rd, b, platform(rd, os)) : -1;
	if (!(rd->os[j].s = strdup(os))) {
		rd->nomem = true;
		return -1;
	}
	rd->os[j].build = id;
	rd->nos++;
	return id;
}

static uint64_t rec_hash(int64_t gid, int64_t day, int build)
{
	return kp_hash_mix((uint64_t)gid * 0x9e3779b97f4a7c15ull ^ (uint64_t)day * 0xc2b2ae3d27d4eb4full ^
	                   (uint64_t)(build + 1));
}

static bool slots_grow(reader *rd)
{
	size_t n = rd->nslot ? rd->nslot * 2 : 1024;
	uint32_t *t = calloc(n, sizeof *t);
	if (!t)
		return false;
	for (size_t i = 0; i < rd->n; i++) {
		size_t j = rec_hash(rd->r[i].gid, rd->r[i].day, rd->r[i].build) & (n - 1);
		while (t[j])
			j = (j + 1) & (n - 1);
		t[j] = (uint32_t)i + 1;
	}
	free(rd->slot);
	rd->slot = t;
	rd->nslot = n;
	return true;
}

/* Sums n into the record of (gid, day, build), added when new. */
static int on_row(void *ctx, int64_t gid, int64_t day, const char *os, int64_t n)
{
	reader *rd = ctx;
	int b;
	if (os && rd->last_os && strcmp(os, rd->last_os) == 0) {
		b = rd->last_build;
	} else {
		b = os_build(rd, os);
		size_t len = os ? strlen(os) : 0;
		rd->last_os = os && len < sizeof rd->last_os_buf ? memcpy(rd->last_os_buf, os, len + 1) : NULL;
		rd->last_build = b;
	}
	if ((rd->n + 1) * 2 > rd->nslot && (rd->n >= UINT32_MAX - 1 || !slots_grow(rd)))
		rd->nomem = true;
	if (rd->nomem)
		return 1;
	size_t j = rec_hash(gid, day, b) & (rd->nslot - 1);
	for (; rd->slot[j]; j = (j + 1) & (rd->nslot - 1)) {
		rec *r = &rd->r[rd->slot[j] - 1];
		if (r->gid == gid && r->day == day && r->build == b) {
			r->n += n;
			return 0;
		}
	}
	rec *r = kp_vec_push((void **)&rd->r, &rd->n, &rd->cap, sizeof *r);
	if (!r) {
		rd->nomem = true;
		return 1;
	}
	*r = (rec){gid, day, n, b};
	rd->slot[j] = (uint32_t)rd->n;
	return 0;
}

static int cmp_rec(const void *a, const void *b)
{
	const rec *x = a, *y = b;
	if (x->gid != y->gid)
		return x->gid < y->gid ? -1 : 1;
	if (x->day != y->day)
		return x->day < y->day ? -1 : 1;
	return (x->build > y->build) - (x->build < y->build);
}

static void reader_free(reader *rd)
{
	free(rd->r);
	free(rd->slot);
	for (size_t i = 0; i < rd->oscap; i++)
		free(rd->os[i].s);
	free(rd->os);
	free(rd->builds);
	free(rd->bplat);
}

/* ---- now ---- */

static int64_t floor_day(int64_t t)
{
	return t >= 0 ? t / DAY : -((-t + DAY - 1) / DAY);
}

/* $KPBROWSE_NOW as a day; false when unset, KP_ERR_USAGE when no date. */
static kp_status env_today(bool *set, int64_t *today, kp_error *err)
{
	const char *e = getenv("KPBROWSE_NOW");
	*set = e && *e;
	if (!*set)
		return KP_OK;
	char *end;
	long long v = strtoll(e, &end, 10);
	int64_t t;
	if (*end == '\0' && end != e)
		t = v;
	else if (!kpi_report_time(e, &t)) {
		char buf[48];   /* a bare date: its midnight, UTC */
		if (strlen(e) != 10 || snprintf(buf, sizeof buf, "%sT00:00:00Z", e) < 0 || !kpi_report_time(buf, &t))
			return kp_error_set(err, KP_ERR_USAGE, 0, -1,
			                    "KPBROWSE_NOW is '%.40s': not epoch seconds or a date (2026-01-13)", e);
	}
	*today = floor_day(t);
	return KP_OK;
}

/* ---- the trends ---- */

typedef struct fleet_day {
	int plat;
	int64_t day;
	int rank;                /* the newest build's rank filed that day (-1 none) */
} fleet_day;

static int cmp_fleet_day(const void *a, const void *b)
{
	const fleet_day *x = a, *y = b;
	if (x->plat != y->plat)
		return x->plat < y->plat ? -1 : 1;
	return (x->day > y->day) - (x->day < y->day);
}

typedef struct build_ref {
	const char *s;
	int idx, plat;
} build_ref;

/* by platform, then build */
static int cmp_build_ref(const void *a, const void *b)
{
	const build_ref *x = a, *y = b;
	if (x->plat != y->plat)
		return x->plat < y->plat ? -1 : 1;
	return kpi_build_cmp(x->s, y->s);
}

/* The group whose records are r[0..n) (one group, sorted by day, build). */
static bool fill(kpi_trends *T, kpi_trend *t, const rec *r, size_t n, const reader *rd, const int *rank,
                 const int *by_rank, const int64_t *fleet, const fleet_day *fd, size_t nfd)
{
	int64_t today = T->today, win0 = today - KPI_TREND_DAYS + 1;
	int nb = (int)rd->nbuilds;
	int64_t *bc = calloc((size_t)nb + 1, sizeof *bc);   /* by rank */
	size_t ndays = 0;
	for (size_t i = 0; i < n; i++)
		ndays += r[i].day != KPI__UNDATED && (i == 0 || r[i].day != r[i - 1].day);
	int64_t *day = kp_arena_alloc(T->arena, (ndays + 1) * sizeof *day);
	int64_t *dc = kp_arena_alloc(T->arena, (ndays + 1) * sizeof *dc);
	if (!bc || !day || !dc) {
		free(bc);
		return false;
	}
	memset(t, 0, sizeof *t);
	t->group_id = r[0].gid;
	t->first_day = t->last_day = -1;
	size_t k = 0;
	int first_rank = -1;     /* the newest build of its first day */
	for (size_t i = 0; i < n; i++) {
		if (r[i].build >= 0)
			bc[rank[r[i].build]] += r[i].n;
		if (r[i].day == KPI__UNDATED) {
			t->undated += r[i].n;
			continue;
		}
		if (k == 0 || day[k - 1] != r[i].day) {
			day[k] = r[i].day;
			dc[k++] = 0;
		}
		dc[k - 1] += r[i].n;
		if (k == 1 && r[i].build >= 0 && rank[r[i].build] > first_rank)
			first_rank = rank[r[i].build];
	}
	t->day = day;
	t->day_count = dc;
	t->nday = k;
	if (k) {
		t->first_day = day[0];
		t->last_day = day[k - 1];
		t->day0 = day[0] > win0 ? day[0] : win0;
		t->ndays = t->day0 <= today ? (int)(today - t->day0 + 1) : 0;
	}
	int64_t longest_quiet = 0;
	for (size_t i = 0; i < k; i++) {
		if (day[i] > today)
			continue;
		if (day[i] >= t->day0)
			t->days[day[i] - t->day0] += dc[i];
		if (day[i] > today - KPI_TREND_NEW_DAYS)
			t->last7 += dc[i];
		else if (day[i] > today - 2 * KPI_TREND_NEW_DAYS)
			t->prev7 += dc[i];
		int64_t quiet = i ? day[i] - day[i - 1] - 1 : 0;
		if (day[i] >= win0 && quiet >= KPI_TREND_QUIET_DAYS && quiet > longest_quiet)
			longest_quiet = quiet;
	}
	/* builds, oldest first */
	size_t nbuilt = 0;
	for (int b = 0; b < nb; b++)
		nbuilt += bc[b] > 0;
	kpi_build_count *bl = kp_arena_alloc(T->arena, (nbuilt + 1) * sizeof *bl);
	if (!bl) {
		free(bc);
		return false;
	}
	int64_t own = 0, fleet_own = 0;   /* its reports on its builds, the fleet's on them */
	size_t j = 0;
	for (int b = 0; b < nb; b++)
		if (bc[b] > 0) {
			bl[j++] = (kpi_build_count){rd->builds[by_rank[b]], bc[b]};
			own += bc[b];
			fleet_own += fleet[b];
		}
	t->builds = bl;
	t->nbuilds = nbuilt;
	t->first_build = nbuilt ? bl[0].build : NULL;
	t->last_build = nbuilt ? bl[nbuilt - 1].build : NULL;
	/* new */
	bool first_in_window = k && t->first_day >= win0 && t->first_day <= today;
	if (k && t->first_day > today - KPI_TREND_NEW_DAYS && t->first_day <= today)
		t->is_new = true;
	if (first_in_window && first_rank >= 0) {
		/* the fleet's newest build on the days before its first */
		/* of its platform, on the days before its first */
		fleet_day key = {rd->bplat[by_rank[first_rank]], t->first_day, 0};
		size_t lo = 0, hi = nfd;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (cmp_fleet_day(&fd[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0 && fd[lo - 1].plat == key.plat && first_rank > fd[lo - 1].rank)
			t->is_new = t->new_build = true;
	}
	/* regressed */
	t->quiet_days = longest_quiet;
	int lo_rank[8], hi_rank[8];   /* its oldest and newest build of each platform */
	for (int p = 0; p < 8; p++)
		lo_rank[p] = hi_rank[p] = -1;
	for (int b = 0; b < nb; b++)
		if (bc[b] > 0) {
			int p = rd->bplat[by_rank[b]];
			if (lo_rank[p] < 0)
				lo_rank[p] = b;
			hi_rank[p] = b;
		}
	for (int f = nb - 1; f >= 0 && fleet_own > 0; f--) {
		int p = rd->bplat[by_rank[f]];
		/* expected >= KPI_TREND_STOP_EXPECTED, in integers: own * fleet[f] / fleet_own */
		if (f > lo_rank[p] && f < hi_rank[p] && bc[f] == 0 &&
		    own * fleet[f] >= (int64_t)KPI_TREND_STOP_EXPECTED * fleet_own) {
			t->stopped_build = rd->builds[by_rank[f]];
			break;
		}
	}
	t->regressed = t->quiet_days > 0 || t->stopped_build;
	free(bc);
	return true;
}

static kp_status compute(kpi_trends *T, reader *rd, bool today_set, kp_error *err)
{
	int nb = (int)rd->nbuilds;
	int *by_rank = calloc((size_t)nb + 1, sizeof *by_rank), *rank = calloc((size_t)nb + 1, sizeof *rank);
	build_ref *ref = calloc((size_t)nb + 1, sizeof *ref);
	int64_t *fleet = calloc((size_t)nb + 1, sizeof *fleet);
	fleet_day *fd = calloc(rd->n + 1, sizeof *fd);
	kp_status st = KP_OK;
	if (!by_rank || !rank || !fleet || !fd || !ref) {
		st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
		goto out;
	}
	for (int i = 0; i < nb; i++)
		ref[i] = (build_ref){rd->builds[i], i, rd->bplat[i]};
	if (nb > 1)
		qsort(ref, (size_t)nb, sizeof *ref, cmp_build_ref);
	for (int i = 0; i < nb; i++) {
		by_rank[i] = ref[i].idx;
		rank[ref[i].idx] = i;
	}
	/* the fleet: reports per build, newest build per day, the newest day */
	int64_t newest = KPI__UNDATED;
	size_t nfd = 0;
	for (size_t i = 0; i < rd->n; i++) {
		const rec *r = &rd->r[i];
		if (r->build >= 0)
			fleet[rank[r->build]] += r->n;
		if (r->day == KPI__UNDATED)
			continue;
		newest = r->day > newest ? r->day : newest;
		if (r->build >= 0)
			fd[nfd++] = (fleet_day){rd->bplat[r->build], r->day, rank[r->build]};
	}
	if (nfd > 1)
		qsort(fd, nfd, sizeof *fd, cmp_fleet_day);
	for (size_t i = 1; i < nfd; i++)   /* a running maximum over each platform's days */
		if (fd[i - 1].plat == fd[i].plat && fd[i - 1].rank > fd[i].rank)
			fd[i].rank = fd[i - 1].rank;
	size_t w = 0;   /* one entry per platform and day: its last, the maximum so far */
	for (size_t i = 0; i < nfd; i++) {
		if (w && fd[w - 1].day == fd[i].day && fd[w - 1].plat == fd[i].plat)
			w--;
		fd[w++] = fd[i];
	}
	nfd = w;
	/* the newest report's day, never the clock's: the same trends on any
	 * machine and any day (a clock set back would move them) */
	if (!today_set)
		T->today = newest == KPI__UNDATED ? floor_day((int64_t)time(NULL)) : newest;
	if (rd->n > 1)   /* qsort(NULL, 0) is undefined */
		qsort(rd->r, rd->n, sizeof *rd->r, cmp_rec);
	size_t ngroups = 0;
	for (size_t i = 0; i < rd->n; i++)
		ngroups += i == 0 || rd->r[i].gid != rd->r[i - 1].gid;
	T->t = calloc(ngroups + 1, sizeof *T->t);
	if (!T->t) {
		st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < rd->n;) {
		size_t e = i + 1;
		while (e < rd->n && rd->r[e].gid == rd->r[i].gid)
			e++;
		/* the same (day, build) from several rows: added up in fill */
		if (!fill(T, &T->t[T->n], rd->r + i, e - i, rd, rank, by_rank, fleet, fd, nfd)) {
			st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
			goto out;
		}
		T->n++;
		i = e;
	}
out:
	free(ref);
	free(by_rank);
	free(rank);
	free(fleet);
	free(fd);
	return st;
}

kp_status kpi_group_trends(kpi_db *db, kpi_trends **out, kp_error *err)
{
	kp_error_clear(err);
	*out = NULL;
	kpi_trends *T = calloc(1, sizeof *T);
	if (!T || !(T->arena = kp_arena_new())) {
		free(T);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	bool today_set;
	kp_status st = env_today(&today_set, &T->today, err);
	reader rd = {.arena = T->arena};
	if (st == KP_OK)
		st = db->ops->trend_rows(db, on_row, &rd, err);
	if (st == KP_OK && rd.nomem)
		st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	if (st == KP_OK)
		st = compute(T, &rd, today_set, err);
	reader_free(&rd);
	if (st != KP_OK) {
		kpi_trends_free(&T);
		return st;
	}
	*out = T;
	return KP_OK;
}

const kpi_trend *kpi_trends_get(const kpi_trends *T, int64_t gid)
{
	if (!T)
		return NULL;
	size_t lo = 0, hi = T->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (T->t[mid].group_id < gid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < T->n && T->t[lo].group_id == gid ? &T->t[lo] : NULL;
}

int64_t kpi_trends_today(const kpi_trends *T)
{
	return T ? T->today : 0;
}

void kpi_trends_free(kpi_trends **T)
{
	if (!*T)
		return;
	free((*T)->t);
	kp_arena_free((*T)->arena);
	free(*T);
	*T = NULL;
}
