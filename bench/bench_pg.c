/* bench_pg.c: one index for a lab of Macs (issue 16), side by side on the
 * PostgreSQL and the sqlite store: HOSTS simulated Macs x PER_HOST reports
 * (generated around the fixtures: each Mac's own reports carry its own
 * Anonymous UUID, and a fifth of every Mac's reports come from one shared
 * pool, the same bytes on many Macs), pushed by 8 concurrent pushers
 * (processes, each its own connection); then the group list, a UUID search
 * (its first page and total, as the TUI and `search --limit` ask; and every
 * row, paging through, as `search` prints) and the host list, p50/p99 over
 * 200 queries each (every row: 10), and the TUI's first paint (open, the
 * groups and the first page of reports, the panic list drawn by curses
 * into /dev/null) with the time the rest of the list takes to come in;
 * and the groups screen's first paint (with its trend columns and
 * without) and a kext-UUID search (first page and total), each beside
 * the store's shell (psql, sqlite3) running the equivalent query.
 * Prints figures only.  bench/bench_pg.sh starts a throwaway server.
 * Usage: bench_pg PG_TARGET SQLITE_PATH WORKDIR [HOSTS [PER_HOST]]
 * (default 100 x 1000); WORKDIR "-": the queries only, on indexes pushed
 * before; "=": issue 35 item 4's two figures only (the groups screen and
 * the kext-UUID search beside the shells), on indexes pushed before. */
#include "kp_index.h"
#include "index_corpus.h"
#include "kpt_bench.h"
#include "kpt_view.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PUSHERS 8
#define QUERIES 200

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int hosts = 100, per_host = 1000;

/* Mac h's report i: a fifth from the shared pool (as is), the rest its own
 * with the Mac's Anonymous UUID. */
static size_t host_report(char *buf, size_t size, int h, int i)
{
	bool shared = i % 5 == 0;
	int incident = shared ? 1000000 + (i / 5) % 200 : 1 + h * per_host + i;
	size_t n = gen_report(buf, size, incident % 3, (incident / 3) % 2, incident);
	if (!shared) {
		char key[64];
		snprintf(key, sizeof key, "Anonymous UUID:       %08X-0000-4000-8000-00000000%04X\n", 0xAC000000u + (unsigned)h, (unsigned)h);
		size_t kl = strlen(key);
		char *nl = memchr(buf, '\n', n);
		if (nl && (size_t)(nl + 1 - buf) == kl)
			memcpy(buf, key, kl);
	}
	return n;
}

static int generate(const char *work)
{
	char dir[4096], name[64], buf[16384];
	for (int h = 0; h < hosts; h++) {
		snprintf(dir, sizeof dir, "%s/mac%03d", work, h);
		if (mkdir(dir, 0755) != 0)
			return -1;
		for (int i = 0; i < per_host; i++) {
			size_t n = host_report(buf, sizeof buf, h, i);
			snprintf(name, sizeof name, "r%05d.panic", i);
			if (gen_write(dir, name, buf, n) != 0)
				return -1;
		}
	}
	return 0;
}

/* Pusher k pushes Macs k, k + 8, ...: each as itself (kpi_set_host). */
static int pusher(const char *target, const char *work, int k)
{
	kpi_db *db = NULL;
	kp_error err;
	if (kpi_open(target, KPI_OPEN_CREATE, &db, &err) != KP_OK) {
		fprintf(stderr, "pusher %d: %s\n", k, err.msg);
		return 1;
	}
	int rc = 0;
	for (int h = k; h < hosts && !rc; h += PUSHERS) {
		char dir[4096], host[32];
		snprintf(dir, sizeof dir, "%s/mac%03d", work, h);
		snprintf(host, sizeof host, "mac%03d.lab", h);
		kpi_set_host(db, host);
		const char *paths[1] = {dir};
		kpi_summary s;
		if (kpi_scan(db, paths, 1, NULL, NULL, NULL, NULL, &s, &err) != KP_OK) {
			fprintf(stderr, "pusher %d: %s\n", k, err.msg);
			rc = 1;
		}
		kpi_summary_free(&s);
	}
	kpi_close(&db);
	return rc;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int count_row(void *ctx, const kpi_report_row *r)
{
	(void)r;
	(*(size_t *)ctx)++;
	return 0;
}
static int count_group(void *ctx, const kpi_group_row *g)
{
	(void)g;
	(*(size_t *)ctx)++;
	return 0;
}
static int count_host(void *ctx, const kpi_host_row *h)
{
	(void)h;
	(*(size_t *)ctx)++;
	return 0;
}

#define PAGE 100

/* Every row of a UUID search, as `search` prints them: one page without
 * a limit. */
static kp_status all_pages(kpi_db *db, const char *uuid, size_t *n, kp_error *err)
{
	kpi_page page = {0};
	return kpi_search_page(db, KPI_SEARCH_UUID, uuid, &page, count_row, n, err);
}

/* kind 0 group counts, 1 UUID search's first page (uuid), 2 host list,
 * 3 groups with their report ids, 4 every page of a UUID search */
static void latency(const char *what, kpi_db *db, int kind, const char *uuid)
{
	double t[QUERIES];
	size_t rows = 0, total = 0;
	int nq = kind == 4 ? 10 : QUERIES;
	for (int i = 0; i < nq; i++) {
		kp_error err;
		size_t n = 0;
		kpi_page page = {.limit = PAGE};
		double t0 = now();
		kp_status st = kind == 0 ? kpi_list_group_counts(db, count_group, &n, &err)
		             : kind == 1 ? kpi_search_page(db, KPI_SEARCH_UUID, uuid, &page, count_row, &n, &err)
		             : kind == 2 ? kpi_list_hosts(db, count_host, &n, &err)
		             : kind == 3 ? kpi_list_groups(db, count_group, &n, &err)
		                         : all_pages(db, uuid, &n, &err);
		t[i] = (now() - t0) * 1000;
		if (st != KP_OK) {
			printf("  %s: %s\n", what, err.msg);
			return;
		}
		rows = n > rows ? n : rows;
		total = page.total;
	}
	qsort(t, (size_t)nq, sizeof *t, cmp_d);
	printf("  %-44s p50 %8.2f ms  p99 %8.2f ms  (up to %zu rows", what, t[nq / 2], t[nq * 99 / 100],
	       rows);
	if (kind == 1)
		printf(" of %zu", total);
	printf(")\n");
}

/* What launch does before its first poll(): open the index, read the
 * groups and the first page of reports, draw the panic list; then the
 * rest of the list comes in from its thread.  p50/p99 over 10. */
static void first_paint(const char *target)
{
	double paint[10], rest[10];
	size_t shown = 0, all = 0;
	for (int i = 0; i < 10; i++) {
		kpt_app *app = kpt_bench_open(50, 160);
		snprintf(app->cfg.db_path, sizeof app->cfg.db_path, "%s", target);
		kp_error err;
		double t0 = now();
		if (kpi_open(target, 0, &app->db, &err) != KP_OK || kpt_catalog_open(&app->cat, app->db, app->cfg.db_path, &err) != KP_OK) {
			printf("  TUI first paint: %s\n", err.msg);
			kpt_bench_close(app);
			return;
		}
		kpt_app_push(app, &kpt_view_panics, NULL);
		kpt_app_draw(app);
		paint[i] = (now() - t0) * 1000;
		shown = app->cat.n;
		kpt_bench_rest(app);
		kpt_app_draw(app);
		rest[i] = (now() - t0) * 1000;
		all = app->cat.n;
		kpt_app_close_views(app);
		kpt_catalog_free(&app->cat);
		kpt_docs_free(&app->docs);
		kpi_close(&app->db);
		kpt_bench_close(app);
	}
	qsort(paint, 10, sizeof *paint, cmp_d);
	qsort(rest, 10, sizeof *rest, cmp_d);
	printf("  %-44s p50 %8.2f ms  p99 %8.2f ms  (%zu rows shown)\n", "TUI first paint", paint[5], paint[9],
	       shown);
	printf("  %-44s p50 %8.2f ms  p99 %8.2f ms  (%zu rows, in the background)\n",
	       "TUI: the whole list in", rest[5], rest[9], all);
}

/* ---- issue 35 item 4: the groups screen and a kext-UUID search beside
 * the store's own shell (psql, sqlite3) running the equivalent query, a
 * fresh process each as launching kpbrowse is: min / median / max of RUNS */

#define RUNS 7

/* "min / median / max ms" of t[0..RUNS) (sorted in place); the median */
static double spread(double *t, char *out, size_t size)
{
	qsort(t, RUNS, sizeof *t, cmp_d);
	snprintf(out, size, "%7.1f / %7.1f / %7.1f ms", t[0] * 1e3, t[RUNS / 2] * 1e3, t[RUNS - 1] * 1e3);
	return t[RUNS / 2];
}

/* The shell of the store (pg: psql, else sqlite3) running q once: its
 * time in seconds, -1 when there is none or it fails. */
static double shell_run(bool pg, const char *target, const char *q)
{
	double t0 = now();
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		if (pg)
			execlp("psql", "psql", "-X", "-q", "-d", target, "-c", q, (char *)NULL);
		else
			execlp("sqlite3", "sqlite3", "-readonly", target, q, (char *)NULL);
		_exit(127);
	}
	int ws;
	if (pid < 0 || waitpid(pid, &ws, 0) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
		return -1;
	return now() - t0;
}

/* the groups and the GROUP BY the trends are made of */
#define GROUPS_SQL(S) \
	"SELECT id, title, culprit, count, first_seen, last_seen, hosts FROM " S "groups " \
	"ORDER BY count DESC, last_seen DESC, id; " \
	"SELECT group_id, ts / 86400, os_version, count(*) FROM " S "reports GROUP BY 1, 2, 3"
/* the reports whose images (sqlite: image sets; PostgreSQL: rows of each
 * report) or loaded kexts hold the UUID: counted, and the newest 100 */
#define KSET_MATCH(S) \
	"r.kext_set IN (SELECT s.set_id FROM " S "kexts x JOIN " S "kext_set_members s ON s.kext_id = x.id " \
	"WHERE x.uuid_hex = '5E7A1C2B9D444F1E8B3A77C0DE11A001')"
#define UUID_SQL(S, IMG) \
	"SELECT count(*) FROM " S "reports r WHERE " IMG " OR " KSET_MATCH(S) "; " \
	"SELECT r.id, r.timestamp, r.os_version, r.headline, g.count FROM " S "reports r JOIN " S "groups g " \
	"ON g.id = r.group_id WHERE " IMG " OR " KSET_MATCH(S) " ORDER BY r.ts DESC, r.id DESC LIMIT 100"
/* PostgreSQL: the same groups and the rows the store reads for the trends
 * (schema 13's group_days, kept by triggers): psql given kpbrowse's own
 * shortcut, to show what is left of the difference */
#define PG_DAYS_SQL \
	"SELECT id, title, culprit, count, first_seen, last_seen, hosts FROM kpbrowse.groups " \
	"ORDER BY count DESC, last_seen DESC, id; " \
	"SELECT group_id, day, os_version, n FROM kpbrowse.group_days WHERE n > 0"
#define PG_IMG "r.id IN (SELECT report_id FROM kpbrowse.images WHERE uuid_hex = '5E7A1C2B9D444F1E8B3A77C0DE11A001')"
#define SQ_IMG "r.image_set IN (SELECT set_id FROM image_members WHERE uuid_hex = '5E7A1C2B9D444F1E8B3A77C0DE11A001')"

/* Each run: kpbrowse's groups screen (with trends, without), the shell's
 * groups query, kpbrowse's search, the shell's search: the two sides
 * alternate, so a change in the machine's load falls on both. */
static void beside_shell(bool pg, const char *target)
{
	double with[RUNS], without[RUNS], peer_g[RUNS], peer_d[RUNS], ours[RUNS], peer_u[RUNS];
	size_t ng = 0, total = 0;
	bool shell = true;
	kp_error err;
	double load[3];
	if (getloadavg(load, 3) == 3)   /* wall times: on a busy machine the ratios are what to read */
		printf("  load average %.2f %.2f %.2f (wall times; kpbrowse and the shell alternate)\n", load[0],
		       load[1], load[2]);
	for (int i = 0; i < RUNS; i++) {
		with[i] = kpt_bench_groups_paint(target, true, 50, 160, &ng, &err);
		without[i] = kpt_bench_groups_paint(target, false, 50, 160, NULL, &err);
		if (with[i] < 0 || without[i] < 0) {
			printf("  groups screen: %s\n", err.msg);
			return;
		}
		if (shell)
			shell = (peer_g[i] = shell_run(pg, target, pg ? GROUPS_SQL("kpbrowse.") : GROUPS_SQL(""))) >= 0;
		if (shell && pg)
			shell = (peer_d[i] = shell_run(pg, target, PG_DAYS_SQL)) >= 0;
		kpi_db *db = NULL;
		kpi_page page = {.limit = PAGE};
		double t0 = now();
		if (kpi_open(target, 0, &db, &err) != KP_OK ||
		    kpi_search_page(db, KPI_SEARCH_UUID, "5E7A1C2B9D444F1E8B3A77C0DE11A001", &page, NULL, NULL, &err) != KP_OK) {
			printf("  kext-UUID search: %s\n", err.msg);
			kpi_close(&db);
			return;
		}
		ours[i] = now() - t0;
		total = page.total;
		kpi_close(&db);
		if (shell)
			shell = (peer_u[i] = shell_run(pg, target, pg ? UUID_SQL("kpbrowse.", PG_IMG) : UUID_SQL("", SQ_IMG))) >= 0;
	}
	const char *sh = pg ? "psql" : "sqlite3 shell";
	char a[64], b[64], c[64];
	double mw = spread(with, a, sizeof a), mo = spread(without, b, sizeof b);
	printf("  groups screen, first paint (%zu groups; min / median / max of %d):\n", ng, RUNS);
	printf("    %-40s %s\n", "with the trend columns", a);
	printf("    %-40s %s  (trends add %.1f ms)\n", "without (as before them)", b, (mw - mo) * 1e3);
	if (shell) {
		double mp = spread(peer_g, c, sizeof c);
		printf("    %-40s %s = %.2fx (target < 1)\n", pg ? "psql, the groups and their GROUP BY" :
		       "sqlite3 shell, the groups and their GROUP BY", c, mw / mp);
		if (pg) {
			mp = spread(peer_d, c, sizeof c);
			printf("    %-40s %s = %.2fx\n", "psql, the groups and group_days' rows", c, mw / mp);
		}
	} else {
		printf("    (no %s to compare)\n", sh);
	}
	double mu = spread(ours, a, sizeof a);
	printf("  kext-UUID search, first page of %d and the total (%zu reports; min / median / max of %d):\n", PAGE,
	       total, RUNS);
	printf("    %-40s %s\n", "kpbrowse (open, count, page)", a);
	if (shell) {
		double mp = spread(peer_u, c, sizeof c);
		printf("    %-40s %s = %.2fx (target < 1)\n", pg ? "psql, the same count and page" :
		       "sqlite3 shell, the same count and page", c, mu / mp);
	} else {
		printf("    (no %s to compare)\n", sh);
	}
}

static int run(const char *name, const char *target, const char *work)
{
	printf("%s: %s\n", name, target);
	int bad = 0;
	double t0 = now();
	if (strcmp(work, "=") == 0) {
		beside_shell(strcmp(name, "PostgreSQL") == 0, target);
		return 0;
	}
	if (strcmp(work, "-") == 0)
		goto queries;
	pid_t pids[PUSHERS];
	for (int k = 0; k < PUSHERS; k++) {
		pids[k] = fork();
		if (pids[k] == 0)
			_exit(pusher(target, work, k));
	}
	for (int k = 0; k < PUSHERS; k++) {
		int ws;
		waitpid(pids[k], &ws, 0);
		bad += !WIFEXITED(ws) || WEXITSTATUS(ws) != 0;
	}
	double dt = now() - t0;
	int total = hosts * per_host;
	printf("  push: %d reports from %d Macs by %d pushers in %.1f s: %.0f reports/s%s\n", total,
	       hosts, PUSHERS, dt, total / dt, bad ? " (a pusher failed)" : "");
queries:;
	kpi_db *db = NULL;
	kp_error err;
	if (kpi_open(target, 0, &db, &err) != KP_OK) {
		printf("  open: %s\n", err.msg);
		return 1;
	}
	size_t nrep = 0, ngroups = 0, nhosts = 0;
	t0 = now();
	kpi_list_groups(db, count_group, &ngroups, &err);
	kpi_list_reports(db, count_row, &nrep, &err);
	double first = (now() - t0) * 1000;
	kpi_list_hosts(db, count_host, &nhosts, &err);
	printf("  stored: %zu distinct reports, %zu groups, %zu hosts\n", nrep, ngroups, nhosts);
	printf("  every group and report read at once (the TUI before paging): %.0f ms\n", first);
	latency("group list (counts: TUI, targets)", db, 0, NULL);
	latency("group list with every report id (--groups)", db, 3, NULL);
	/* the kext of one bug in three: most reports come back */
	latency("UUID search, many: first page + total", db, 1, "5E7A1C2B9D44");
	latency("UUID search, none: first page + total", db, 1, "DEADBEEF0000");
	latency("UUID search, many: every row (search)", db, 4, "5E7A1C2B9D44");
	latency("host list", db, 2, NULL);
	kpi_close(&db);
	first_paint(target);
	beside_shell(strcmp(name, "PostgreSQL") == 0, target);
	return bad;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: bench_pg PG_TARGET SQLITE_PATH WORKDIR [HOSTS [PER_HOST]]\n");
		return 2;
	}
	if (argc > 4)
		hosts = atoi(argv[4]);
	if (argc > 5)
		per_host = atoi(argv[5]);
	if (hosts < 1 || per_host < 1)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	double t0 = now();
	bool pushed = strcmp(argv[3], "-") == 0 || strcmp(argv[3], "=") == 0;
	if (!pushed && generate(argv[3]) != 0) {
		perror("generate");
		return 2;
	}
	if (!pushed)
		printf("generated %d Macs x %d reports in %.1f s\n", hosts, per_host, now() - t0);
	int rc = run("PostgreSQL", argv[1], argv[3]);
	rc |= run("sqlite", argv[2], argv[3]);
	return rc ? 1 : 0;
}
