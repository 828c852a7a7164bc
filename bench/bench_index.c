/* bench_index.c: the index on 10,000 generated reports (one in fifty a ~1 MB
 * full .ips made from the real one when present): cold scan (and its CPU
 * time) beside parse-only passes of the same files just before and after
 * it (cold / parse, issue 35: at most 1.5x; RUNS cold scans, each against
 * the passes on either side of it, min / median / max; wall and CPU time;
 * MB/s beside cat reading the same files),
 * unchanged rescan, UUID search, index size, list --json (the whole
 * process, and its writer alone on the same rows); then one flat folder of
 * 100,000 small reports (cold scan, its cold / parse, and unchanged rescan:
 * every step of a scan is O(n log n)); after each index, the TUI's first
 * paint from it beside the sqlite3 shell printing the same first page.
 * Prints figures only.
 * Usage: bench_index [COUNT [FLAT [RUNS]]] (default 10000 100000 3; FLAT 0
 * skips it); works in a temp dir. */
#include "../tests/kt_slurp.h"
#include "kp_index.h"
#include "index_corpus.h"
#include "kp_vec.h"
#include "kpc_rows.h"
#include "kpt_bench.h"
#include "kpt_view.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef KPBROWSE
#define KPBROWSE "kpbrowse"
#endif

/* User and system time of every thread of this process so far. */
static double cpu_s(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec / 1e6 + (double)u.ru_stime.tv_sec +
	       (double)u.ru_stime.tv_usec / 1e6;
}

static long ncpu(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? n : 1;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A full report: the real one with its incident id made unique, or a
 * synthetic ~1 MB .ips of many processes. */
static size_t full_report(char **out, const char *real, size_t rlen, int i)
{
	if (real) {
		char *b = malloc(rlen + 1);
		memcpy(b, real, rlen);
		char *inc = strstr(b, "\"incident_id\":\"");
		if (inc)
			snprintf(inc + 15, 9, "%08X", (unsigned)i), inc[23] = '-';
		*out = b;
		return rlen;
	}
	size_t cap = 1100000, n = 0;
	char *b = malloc(cap);
	n += (size_t)snprintf(b + n, cap - n,
	                      "{\"bug_type\":\"210\",\"timestamp\":\"2024-05-01 10:00:00.00 +0000\","
	                      "\"os_version\":\"macOS 14.5 (23F79)\",\"incident_id\":\"%08X-0000-4000-8000-000000000000\"}\n"
	                      "{\"panicString\":\"panic(cpu 0 caller 0xfffffe0012345678): synthetic %d\\n\",\"processByPid\":{",
	                      (unsigned)i, i);
	for (int p = 0; n < cap - 2000; p++)
		n += (size_t)snprintf(b + n, cap - n,
		                      "%s\"%d\":{\"pid\":%d,\"procname\":\"proc%d\",\"threadById\":{\"%d\":{\"id\":%d,"
		                      "\"kernelFrames\":[[0,%d],[0,%d],[0,%d],[0,%d]],\"state\":[\"TH_WAIT\"]}}}",
		                      p ? "," : "", p, p, p, 1000 + p, 1000 + p, 100 + p, 200 + p, 300 + p, 400 + p);
	n += (size_t)snprintf(b + n, cap - n,
	                      "},\"binaryImages\":[[\"7C461EDE-B045-324B-B329-721BED992270\",18446744005123915776,\"T\"]]}\n");
	*out = b;
	return n;
}

static int found_rows(void *ctx, const kpi_report_row *r)
{
	(void)r;
	(*(size_t *)ctx)++;
	return 0;
}

/* This thread's CPU time so far. */
static double thread_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One parse-only pass: the time spent in kp_report_parse (wall and CPU)
 * and reading the files into memory, on one thread; skim_cpu: the same
 * files parsed as the scanner parses them (KP_PARSE_SKIM_FRAMES: a panic's
 * threads but the panicked one without their frames), the same minutes.
 * The target's ratio is against the whole parse. */
typedef struct pass {
	double wall, cpu, read_wall, skim_cpu;
} pass;

static void parse_pass_once(const char *dir, pass *t, size_t *nfiles, size_t *bytes);

/* The parse-only time of the files under dir, one pass, after what was
 * just written has gone to disk.  A shared 2-core machine's speed drifts
 * over minutes (one pass took 1.1 s, the same pass later 1.8 s, and the
 * ratio swung with it from 2.3x to 1.5x): a pass is made before each cold
 * scan and one once the last index is closed, and each scan is set
 * against the mean of the two beside it. */
static pass parse_pass(const char *dir, size_t *nfiles, size_t *bytes)
{
	pass t = {0};
	sync();
	parse_pass_once(dir, &t, nfiles, bytes);
	return t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* "min / median / max" of v[0..n) (sorted in place), each printed with fmt. */
static const char *spread(double *v, int n, const char *fmt)
{
	static char out[4][128];
	static int k;
	char *o = out[k++ % 4], a[32], b[32], c[32];
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	snprintf(a, sizeof a, fmt, v[0]);
	snprintf(b, sizeof b, fmt, n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
	snprintf(c, sizeof c, fmt, v[n - 1]);
	snprintf(o, 128, "%s / %s / %s", a, b, c);
	return o;
}

static void print_load(const char *when)
{
	double l[3];
	if (getloadavg(l, 3) == 3)
		printf("load average %s: %.2f %.2f %.2f\n", when, l[0], l[1], l[2]);
}

/* `cat` of every file under dir to /dev/null (find -exec cat {} +): wall
 * seconds, and the CPU of find and cat in *cpu. */
static double cat_all(const char *dir, double *cpu)
{
	double t0 = now();
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		execlp("find", "find", dir, "-type", "f", "-exec", "cat", "{}", "+", (char *)NULL);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (pid < 0 || wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	*cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec / 1e6;
	return now() - t0;
}

/* Prints the flat folder's cold scan against the passes around it. */
static void print_ratio(const char *indent, double tcold, pass before, pass after)
{
	double mean = (before.wall + after.wall) / 2;
	printf("%sparsing alone:        %.2f s before the scan, %.2f s after (one thread, a separate pass)\n",
	       indent, before.wall, after.wall);
	printf("%scold / parse = %.1fx (target <= 1.5x; against the mean of the two)\n", indent,
	       mean > 0 ? tcold / mean : 0);
}

static void parse_pass_once(const char *dir, pass *t, size_t *nfiles, size_t *bytes)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	char p[4096];
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(p, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			parse_pass_once(p, t, nfiles, bytes);
			continue;
		}
		size_t len;
		double t0 = now();
		char *b = kt_slurp(p, &len);
		t->read_wall += now() - t0;
		if (!b)
			continue;
		kp_report *r = NULL;
		kp_error err;
		t0 = now();
		double c0 = thread_cpu_s();
		kp_report_parse(b, len, p, &r, &err);
		t->cpu += thread_cpu_s() - c0;
		t->wall += now() - t0;
		kp_report_free(&r);
		c0 = thread_cpu_s();
		kp_report_parse_flags(b, len, p, KP_PARSE_SKIM_FRAMES, &r, &err);
		t->skim_cpu += thread_cpu_s() - c0;
		kp_report_free(&r);
		free(b);
		(*nfiles)++;
		*bytes += len;
	}
	closedir(d);
}

/* Waits for the child pid started at t0: false unless it exited 0; else
 * its time since t0 goes to *best when better (or *best < 0). */
static bool timed_exit(pid_t pid, double t0, double *best)
{
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return false;
	double t = now() - t0;
	if (*best < 0 || t < *best)
		*best = t;
	return true;
}

/* The sqlite3 shell running q on db once, its output to /dev/null; -1
 * when there is no sqlite3 or it fails. */
static double sqlite3_once(const char *db, const char *q)
{
	double best = -1, t0 = now();
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execlp("sqlite3", "sqlite3", "-readonly", db, q, (char *)NULL);
		_exit(127);
	}
	return timed_exit(pid, t0, &best) ? best : -1;
}

/* The sqlite3 shell (the peer) printing the TUI's first page (200 rows,
 * newest first, with their group counts) from db: a fresh process, as
 * launching kpbrowse is; best of reps, -1 when there is no sqlite3. */
static double sqlite3_first_page(const char *db, int reps)
{
	static const char q[] = "SELECT r.id, r.timestamp, r.os_version, r.headline, g.count FROM reports r "
	                        "JOIN groups g ON g.id = r.group_id ORDER BY r.ts DESC, r.id DESC LIMIT 200";
	double best = -1;
	for (int i = 0; i < reps; i++) {
		double t = sqlite3_once(db, q);
		if (t < 0)
			return -1;
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

/* The TUI's first paint from db (what launch does before its first poll:
 * open the index, the catalog's first page, the panics view drawn by
 * curses into /dev/null), best of reps, beside the sqlite3 shell printing
 * the same first page. */
static void first_paint(const char *db, const char *what)
{
	double best = -1;
	size_t total = 0;
	for (int i = 0; i < 3; i++) {
		kpt_app *app = kpt_bench_open(30, 100);
		snprintf(app->cfg.db_path, sizeof app->cfg.db_path, "%s", db);
		kp_error err;
		double t0 = now();
		if (kpi_open(db, 0, &app->db, &err) != KP_OK ||
		    kpt_catalog_open(&app->cat, app->db, app->cfg.db_path, &err) != KP_OK) {
			fprintf(stderr, "bench_index: first paint: %s\n", err.msg);
			kpt_bench_close(app);
			return;
		}
		kpt_app_push(app, &kpt_view_panics, NULL);
		kpt_app_draw(app);
		double t = now() - t0;
		total = app->cat.partial ? app->cat.total : app->cat.n;
		kpt_bench_rest(app); /* the rest of the list, loaded in the background */
		kpt_catalog_free(&app->cat);
		kpi_close(&app->db);
		kpt_bench_close(app);
		if (best < 0 || t < best)
			best = t;
	}
	double peer = sqlite3_first_page(db, 3);
	if (peer > 0)
		printf("%sTUI first paint from %zu reports: %.1f ms; sqlite3 shell, the same first page: %.1f ms "
		       "= %.2fx (target < 200 ms)\n", what, total, best * 1e3, peer * 1e3, best / peer);
	else
		printf("%sTUI first paint from %zu reports: %.1f ms (no sqlite3 shell to compare; target < 200 ms)\n",
		       what, total, best * 1e3);
}

/* ---- issue 35 item 4: the groups screen and a kext-UUID search at fleet
 * size, each beside the sqlite3 shell running the equivalent query (a
 * fresh process, as launching kpbrowse is), RUNS runs each: min, median
 * and max, and the ratio of the medians ---- */

#define RUNS 7

/* "min / median / max ms" of t[0..n) (sorted in place); the median */
static double spread_ms(double *t, int n, char *out, size_t size)
{
	qsort(t, (size_t)n, sizeof *t, cmp_double);
	snprintf(out, size, "%.1f / %.1f / %.1f ms", t[0] * 1e3, t[n / 2] * 1e3, t[n - 1] * 1e3);
	return t[n / 2];
}


/* the shell's runs of q into t; false without a shell */
static bool sqlite3_runs(const char *db, const char *q, double *t)
{
	for (int i = 0; i < RUNS; i++)
		if ((t[i] = sqlite3_once(db, q)) < 0)
			return false;
	return true;
}

/* The groups screen's first paint (kpt_bench_groups_paint) with its trend
 * columns and without (the screen as it was), beside the shell listing
 * the groups and counting every group's reports by day and OS version
 * (what the trends are made of). */
static void groups_paint(const char *db, const char *indent)
{
	static const char q[] =
		"SELECT id, title, culprit, count, first_seen, last_seen, hosts FROM groups "
		"ORDER BY count DESC, last_seen DESC, id; "
		"SELECT group_id, ts / 86400, os_version, count(*) FROM reports GROUP BY 1, 2, 3";
	double with[RUNS], without[RUNS], peer[RUNS];
	size_t ng = 0;
	kp_error err;
	for (int i = 0; i < RUNS; i++) {
		with[i] = kpt_bench_groups_paint(db, true, 30, 100, &ng, &err);
		without[i] = kpt_bench_groups_paint(db, false, 30, 100, NULL, &err);
		if (with[i] < 0 || without[i] < 0) {
			fprintf(stderr, "bench_index: groups paint: %s\n", err.msg);
			return;
		}
	}
	char a[64], b[64], c[64];
	double mw = spread_ms(with, RUNS, a, sizeof a), mo = spread_ms(without, RUNS, b, sizeof b);
	printf("%sgroups screen, first paint (%zu groups; min / median / max of %d):\n", indent, ng, RUNS);
	printf("%s  with the trend columns:   %s\n", indent, a);
	printf("%s  without (as before them): %s  (trends add %.1f ms)\n", indent, b, (mw - mo) * 1e3);
	if (sqlite3_runs(db, q, peer)) {
		double mp = spread_ms(peer, RUNS, c, sizeof c);
		printf("%s  sqlite3 shell, the groups and their GROUP BY: %s = %.2fx (target < 1)\n", indent, c,
		       mw / mp);
	} else {
		printf("%s  (no sqlite3 shell to compare)\n", indent);
	}
}

/* A kext-UUID search as the TUI's u asks it (open, the total and the
 * first page of 200, newest first) beside the shell counting the
 * reports whose images or loaded kexts hold the UUID and printing the
 * newest 200. */
static void uuid_search(const char *db, const char *uuid, const char *indent)
{
	char q[2048];
	snprintf(q, sizeof q,
	         "SELECT count(*) FROM reports r WHERE r.image_set IN (SELECT set_id FROM image_members WHERE uuid_hex = '%s') "
	         "OR r.kext_set IN (SELECT s.set_id FROM kexts x JOIN kext_set_members s ON s.kext_id = x.id WHERE x.uuid_hex = '%s'); "
	         "SELECT r.id, r.timestamp, r.os_version, r.headline, g.count FROM reports r JOIN groups g ON g.id = r.group_id "
	         "WHERE r.image_set IN (SELECT set_id FROM image_members WHERE uuid_hex = '%s') "
	         "OR r.kext_set IN (SELECT s.set_id FROM kexts x JOIN kext_set_members s ON s.kext_id = x.id WHERE x.uuid_hex = '%s') "
	         "ORDER BY r.ts DESC, r.id DESC LIMIT 200",
	         uuid, uuid, uuid, uuid);
	double ours[RUNS], peer[RUNS];
	size_t total = 0;
	for (int i = 0; i < RUNS; i++) {
		kpi_db *h = NULL;
		kp_error err;
		kpi_page page = {.limit = 200};
		double t0 = now();
		if (kpi_open(db, 0, &h, &err) != KP_OK ||
		    kpi_search_page(h, KPI_SEARCH_UUID, uuid, &page, NULL, NULL, &err) != KP_OK) {
			fprintf(stderr, "bench_index: kext-UUID search: %s\n", err.msg);
			kpi_close(&h);
			return;
		}
		ours[i] = now() - t0;
		total = page.total;
		kpi_close(&h);
	}
	char a[64], c[64];
	double mo = spread_ms(ours, RUNS, a, sizeof a);
	printf("%skext-UUID search, the TUI's first page of 200 and the total (%zu reports; min / median / max of %d):\n",
	       indent, total, RUNS);
	printf("%s  kpbrowse (open, count, page): %s\n", indent, a);
	if (sqlite3_runs(db, q, peer)) {
		double mp = spread_ms(peer, RUNS, c, sizeof c);
		printf("%s  sqlite3 shell, the same count and page: %s = %.2fx (target < 1)\n", indent, c, mo / mp);
	} else {
		printf("%s  (no sqlite3 shell to compare)\n", indent);
	}
}

/* n small reports in one folder: cold scan, then an unchanged rescan. */
static void flat_folder(const char *tmp, int n)
{
	if (n <= 0)
		return;
	char dir[1100], db[1100], name[64];
	static char buf[16384];
	snprintf(dir, sizeof dir, "%s/flat", tmp);
	snprintf(db, sizeof db, "%s/flat.sqlite3", tmp);
	mkdir(dir, 0755);
	double t0 = now();
	for (int i = 0; i < n; i++) {
		size_t len = gen_report(buf, sizeof buf, i % 3, (i / 3) % 2, 100000 + i);
		/* names in no order, as a folder's entries come */
		snprintf(name, sizeof name, "panic-%08x.panic", (unsigned)i * 2654435761u);
		gen_write(dir, name, buf, len);
	}
	double tgen = now() - t0;
	size_t nfiles = 0, bytes = 0;
	pass tparse = parse_pass(dir, &nfiles, &bytes);
	kpi_db *h = NULL;
	kp_error err;
	if (kpi_open(db, KPI_OPEN_CREATE, &h, &err) != KP_OK) {
		fprintf(stderr, "bench_index: %s\n", err.msg);
		return;
	}
	const char *paths[] = {dir};
	kpi_summary s;
	t0 = now();
	kpi_scan(h, paths, 1, NULL, NULL, NULL, NULL, &s, &err);
	double tcold = now() - t0;
	size_t nnew = s.new_reports, n2 = 0, b2 = 0;
	kpi_summary_free(&s);
	t0 = now();
	kpi_scan(h, paths, 1, NULL, NULL, NULL, NULL, &s, &err);
	double tre = now() - t0;
	size_t nunch = s.unchanged;
	kpi_summary_free(&s);
	kpi_close(&h); /* its checkpoints done: nothing of the scan runs on */
	pass tparse2 = parse_pass(dir, &n2, &b2);
	printf("flat folder:            %d small reports in one folder (%zu bytes, %.1f s to write)\n", n, bytes,
	       tgen);
	printf("  cold index:           %.2f s for %zu new\n", tcold, nnew);
	print_ratio("  ", tcold, tparse, tparse2);
	printf("  rescan, unchanged:    %.3f s for %zu files (target well under 1-2 s)\n", tre, nunch);
	first_paint(db, "  ");
	groups_paint(db, "  ");
	char uuid[40];   /* bug 0's kext, in a third of the reports: as stored, no dashes */
	size_t k = 0;
	for (const char *u = gen_bugs[0].kext_uuid; *u && k < sizeof uuid - 1; u++)
		if (*u != '-')
			uuid[k++] = *u;
	uuid[k] = '\0';
	uuid_search(db, uuid, "  ");
}

/* Rows copied out of the query, so that writing them can be timed alone. */
typedef struct rowcopy {
	kpi_report_row *rows;
	size_t n, cap;
} rowcopy;

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int copy_row(void *ctx, const kpi_report_row *r)
{
	rowcopy *c = ctx;
	kpi_report_row *d = kp_vec_push((void **)&c->rows, &c->n, &c->cap, sizeof *d);
	if (!d)
		return 1;
	*d = *r;
	d->path = dup_or_null(r->path);
	d->timestamp = dup_or_null(r->timestamp);
	d->os_version = dup_or_null(r->os_version);
	d->headline = dup_or_null(r->headline);
	d->match = NULL;
	return 0;
}

/* list --json's writer alone (kpc_rows_*, kpc_row_sink of the CLI library, cli/rows.c)
 * on rows fetched beforehand, into a file; best of reps. */
static double list_json_writer(kpi_db *h, const char *out, int reps, size_t *bytes)
{
	rowcopy c = {0};
	kp_error err;
	if (kpi_list_reports(h, copy_row, &c, &err) != KP_OK)
		return -1;
	double best = -1;
	fflush(stdout);
	int saved = dup(1);
	for (int i = 0; i < reps; i++) {
		if (!freopen(out, "w", stdout))
			break;
		double t0 = now();
		kpc_json_rows *j = kpc_rows_open();
		for (size_t k = 0; k < c.n; k++)
			kpc_row_sink(j, &c.rows[k]);
		bool ok = kpc_rows_close(j, false);
		double t = now() - t0;
		*bytes = (size_t)ftell(stdout);
		if (ok && (best < 0 || t < best))
			best = t;
	}
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	for (size_t k = 0; k < c.n; k++) {
		free((char *)c.rows[k].path);
		free((char *)c.rows[k].timestamp);
		free((char *)c.rows[k].os_version);
		free((char *)c.rows[k].headline);
	}
	free(c.rows);
	return best;
}

/* Runs `kpbrowse list --json --db db` (the whole process), reading its
 * output through a pipe; returns the best wall time of reps and the bytes. */
static double list_json(const char *db, int reps, size_t *bytes)
{
	double best = -1;
	for (int i = 0; i < reps; i++) {
		int pfd[2];
		if (pipe(pfd) != 0)
			return -1;
		double t0 = now();
		pid_t pid = fork();
		if (pid == 0) {
			dup2(pfd[1], 1);
			close(pfd[0]);
			close(pfd[1]);
			execl(KPBROWSE, KPBROWSE, "list", "--json", "--db", db, (char *)NULL);
			_exit(127);
		}
		close(pfd[1]);
		static char sink[1 << 16];
		size_t n = 0;
		ssize_t k;
		while ((k = read(pfd[0], sink, sizeof sink)) > 0)
			n += (size_t)k;
		close(pfd[0]);
		if (!timed_exit(pid, t0, &best))
			return -1;
		*bytes = n;
	}
	return best;
}

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 10000;
	int flat = argc > 2 ? atoi(argv[2]) : 100000;
	int runs = argc > 3 && atoi(argv[3]) > 0 ? atoi(argv[3]) : 3;
	if (runs > 16)
		runs = 16;
	const char *td = getenv("TMPDIR");
	char tmp[1024], dir[1100], db[1100];
	snprintf(tmp, sizeof tmp, "%s/kpi-bench-XXXXXX", td && *td ? td : "/tmp");
	if (!mkdtemp(tmp))
		return 2;
	snprintf(dir, sizeof dir, "%s/reports", tmp);
	snprintf(db, sizeof db, "%s/index.sqlite3", tmp);
	mkdir(dir, 0755);

	size_t rlen = 0;
	char *real = kt_slurp(KP_REAL_DIR "/ips-full-ios26-iphone-sepkeystore-1.ips", &rlen);
	double t0 = now();
	static char buf[65536];
	char sub[1200], name[64];
	for (int i = 0; i < count; i++) {
		if (i % 500 == 0) {
			snprintf(sub, sizeof sub, "%s/d%03d", dir, i / 500);
			mkdir(sub, 0755);
		}
		if (i % 50 == 49) {
			char *b;
			size_t n = full_report(&b, real, rlen, i);
			snprintf(name, sizeof name, "panic-full-%05d.ips", i);
			gen_write(sub, name, b, n);
			free(b);
			continue;
		}
		size_t n = gen_report(buf, sizeof buf, i % 3, (i / 3) % 2, 1000 + i);
		/* one kext build in 200: a UUID matches about 50 reports */
		char *u = strstr(buf, gen_bugs[i % 3].kext_uuid);
		if (u)
			snprintf(u + 32, 5, "%04X", (unsigned)(i % 200)), u[36] = ']';
		/* a realistic loaded kext list (text reports are 5-15 KB) */
		for (int k = 0; k < 110 && n < sizeof buf - 100; k++)
			n += (size_t)snprintf(buf + n, sizeof buf - n, "com.apple.driver.AppleSample%03d\t%d.%d.%d\n",
			                      k, 100 + k, k % 10, i % 7);
		snprintf(name, sizeof name, "panic-%05d.panic", i);
		gen_write(sub, name, buf, n);
	}
	double tgen = now() - t0;
	print_load("before");

	/* runs cold scans, each into a fresh index, between parse passes */
	size_t nfiles = 0, bytes = 0, n2 = 0, b2 = 0, nnew = 0, nerr = 0;
	pass parse[17];
	double tcold[16], ccold[16];
	kpi_db *h = NULL;
	kp_error err;
	const char *paths[] = {dir};
	kpi_summary s;
	for (int k = 0; k < runs; k++) {
		parse[k] = parse_pass(dir, k ? &n2 : &nfiles, k ? &b2 : &bytes);
		unlink(db);
		char side[1200];
		snprintf(side, sizeof side, "%s-wal", db);
		unlink(side);
		snprintf(side, sizeof side, "%s-shm", db);
		unlink(side);
		if (kpi_open(db, KPI_OPEN_CREATE, &h, &err) != KP_OK) {
			fprintf(stderr, "bench_index: %s\n", err.msg);
			return 2;
		}
		t0 = now();
		double c0 = cpu_s();
		kpi_scan(h, paths, 1, NULL, NULL, NULL, NULL, &s, &err);
		tcold[k] = now() - t0, ccold[k] = cpu_s() - c0;
		nnew = s.new_reports, nerr = s.errors;
		kpi_summary_free(&s);
		if (k < runs - 1)
			kpi_close(&h); /* its checkpoints done before the next pass */
	}
	t0 = now();
	kpi_scan(h, paths, 1, NULL, NULL, NULL, NULL, &s, &err);
	double tre = now() - t0;
	size_t nunch = s.unchanged;
	kpi_summary_free(&s);

	char uuid[40];
	snprintf(uuid, sizeof uuid, "%.32s%04X", gen_bugs[0].kext_uuid, 42u);
	size_t found = 0, n;
	int reps = 200;
	kpi_search_uuid(h, uuid, found_rows, &found, &n, &err); /* warm */
	found = 0;
	t0 = now();
	for (int i = 0; i < reps; i++)
		kpi_search_uuid(h, uuid, found_rows, &found, &n, &err);
	double tsearch = (now() - t0) / reps;
	/* the searches that match thousands: as many times as fit in about a
	 * second (at 100k reports one takes seconds), at least 3 */
	t0 = now();
	int preps = 0;
	do
		kpi_search_uuid(h, "5E7A1C2B", NULL, NULL, &n, &err);
	while (++preps < reps && (preps < 3 || now() - t0 < 1.0));
	double tprefix = (now() - t0) / preps;
	size_t nprefix = n;
	/* a kext by bundle id (the images index) and by its last part alone
	 * (K in the TUI: a scan of the images table) */
	const char *kext = gen_bugs[2].kext, *last = strrchr(kext, '.') + 1;
	size_t nkext = 0, nlast = 0;
	kpi_search_kext(h, kext, NULL, NULL, &nkext, &err); /* warm */
	t0 = now();
	int kreps = 0;
	do
		kpi_search_kext(h, kext, NULL, NULL, &nkext, &err);
	while (++kreps < reps / 10 && (kreps < 3 || now() - t0 < 1.0));
	double tkext = (now() - t0) / kreps;
	t0 = now();
	kreps = 0;
	do
		kpi_search_kext(h, last, NULL, NULL, &nlast, &err);
	while (++kreps < reps / 10 && (kreps < 3 || now() - t0 < 1.0));
	double tlast = (now() - t0) / kreps;
	kpi_close(&h); /* its checkpoints done: nothing of the scan runs on */
	parse[runs] = parse_pass(dir, &n2, &b2);
	double tcat_cpu = 0, tcat = cat_all(dir, &tcat_cpu);

	/* list --json: the whole process (the index query is most of it), and
	 * its writer alone on the same rows, into a file */
	size_t list_bytes = 0, writer_bytes = 0;
	double tlist = list_json(db, 5, &list_bytes), twriter = -1;
	char out[1200];
	snprintf(out, sizeof out, "%s/list.json", tmp);
	if (kpi_open(db, 0, &h, &err) == KP_OK) {
		twriter = list_json_writer(h, out, 5, &writer_bytes);
		kpi_close(&h);
	}

	struct stat st;
	off_t dbsize = stat(db, &st) == 0 ? st.st_size : 0;
	char wal[1200];
	snprintf(wal, sizeof wal, "%s-wal", db);
	if (stat(wal, &st) == 0)
		dbsize += st.st_size;

	printf("reports generated:      %d (%zu bytes, %.1f s to write)\n", count, bytes, tgen);
	printf("full reports (~1 MB):   %d (%s)\n", count / 50, real ? "from the real ips-full" : "synthetic");
	/* each scan against the passes on either side of it */
	double rw[16], rc[16], share[16], pw[17], pc[17], rd[17], mbs_parse[17], mbs_cold[16], ps[17];
	for (int k = 0; k <= runs; k++) {
		pw[k] = parse[k].wall, pc[k] = parse[k].cpu, rd[k] = parse[k].read_wall, ps[k] = parse[k].skim_cpu;
		mbs_parse[k] = parse[k].cpu > 0 ? bytes / 1e6 / parse[k].cpu : 0;
	}
	for (int k = 0; k < runs; k++) {
		rw[k] = tcold[k] / ((parse[k].wall + parse[k + 1].wall) / 2);
		rc[k] = ccold[k] / ((parse[k].cpu + parse[k + 1].cpu) / 2);
		share[k] = 100 * ccold[k] / tcold[k] / ncpu();
		mbs_cold[k] = bytes / 1e6 / tcold[k];
	}
	printf("cold index:             %zu new, %zu errors; %d runs, each into a fresh index (min / median / max)\n",
	       nnew, nerr, runs);
	printf("  wall:                 %s s = %s MB/s\n", spread(tcold, runs, "%.2f"),
	       spread(mbs_cold, runs, "%.0f"));
	printf("  CPU, all threads:     %s s (%s%% of %ld CPUs busy)\n", spread(ccold, runs, "%.2f"),
	       spread(share, runs, "%.0f"), ncpu());
	printf("parsing alone, one thread, %d passes around the scans:\n", runs + 1);
	printf("  wall:                 %s s\n", spread(pw, runs + 1, "%.2f"));
	printf("  CPU:                  %s s = %s MB/s\n", spread(pc, runs + 1, "%.2f"),
	       spread(mbs_parse, runs + 1, "%.0f"));
	printf("  reading the files in those passes: %s s\n", spread(rd, runs + 1, "%.2f"));
	printf("  CPU as the scan parses (a panic's other threads' frames skipped): %s s\n",
	       spread(ps, runs + 1, "%.2f"));
	if (tcat >= 0)
		printf("cat of every file (find -exec cat): %.2f s wall, %.2f s CPU = %.0f MB/s\n", tcat, tcat_cpu,
		       bytes / 1e6 / tcat);
	printf("cold / parse, wall (target <= 1.5x): %s\n", spread(rw, runs, "%.2fx"));
	printf("cold / parse, CPU of all threads / CPU of the pass: %s\n", spread(rc, runs, "%.2fx"));
	printf("rescan, unchanged:      %.3f s for %zu files (target < 0.5 s)\n", tre, nunch);
	printf("UUID search, full:      %.3f ms, %zu reports each (target < 5 ms)\n", tsearch * 1e3,
	       found / (size_t)(reps ? reps : 1));
	printf("UUID search, 8-digit prefix matching %zu reports: %.3f ms\n", nprefix, tprefix * 1e3);
	printf("kext search, %s: %.3f ms, %zu reports; by its last part %s: %.3f ms, %zu reports\n",
	       kext, tkext * 1e3, nkext, last, tlast * 1e3, nlast);
	printf("index size:             %lld bytes = %.2f of the reports (target < 0.5)\n",
	       (long long)dbsize, bytes ? (double)dbsize / (double)bytes : 0);
	if (tlist > 0)
		printf("list --json, whole process: %.1f ms for %zu bytes = %.0f MB/s (the index query is most of it)\n",
		       tlist * 1e3, list_bytes, list_bytes / 1e6 / tlist);
	if (twriter > 0)
		printf("list --json's writer alone: %.1f ms for %zu bytes to a file = %.0f MB/s (target >= 100 MB/s)\n",
		       twriter * 1e3, writer_bytes, writer_bytes / 1e6 / twriter);
	first_paint(db, "");
	print_load("after");
	fflush(stdout);
	flat_folder(tmp, flat);
	free(real);
	char cmd[1200];
	if (getenv("KPI_BENCH_KEEP")) {
		printf("kept:                   %s\n", tmp);
		return 0;
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : 1;
}
