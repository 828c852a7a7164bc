/* bench_pg.c: one index for a lab of Macs (issue 16), side by side on the
 * PostgreSQL and the sqlite store: HOSTS simulated Macs x PER_HOST reports
 * (generated around the fixtures: each Mac's own reports carry its own
 * Anonymous UUID, and a fifth of every Mac's reports come from one shared
 * pool, the same bytes on many Macs), pushed by 8 concurrent pushers
 * (processes, each its own connection); then the group list, a UUID search
 * and the host list, p50/p99 over 200 queries each, and the TUI's first
 * load (groups and reports, what it reads before its first paint).
 * Prints figures only.  bench/bench_pg.sh starts a throwaway server.
 * Usage: bench_pg PG_TARGET SQLITE_PATH WORKDIR [HOSTS [PER_HOST]]
 * (default 100 x 1000). */
#include "kp_index.h"
#include "index_corpus.h"

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

/* kind 0 group list, 1 UUID search (uuid), 2 host list */
static void latency(const char *what, kpi_db *db, int kind, const char *uuid)
{
	double t[QUERIES];
	size_t rows = 0;
	for (int i = 0; i < QUERIES; i++) {
		kp_error err;
		size_t n = 0;
		double t0 = now();
		kp_status st = kind == 0 ? kpi_list_groups(db, count_group, &n, &err)
		             : kind == 1 ? kpi_search_uuid(db, uuid, count_row, &n, NULL, &err)
		                         : kpi_list_hosts(db, count_host, &n, &err);
		t[i] = (now() - t0) * 1000;
		if (st != KP_OK) {
			printf("  %s: %s\n", what, err.msg);
			return;
		}
		rows = n > rows ? n : rows;
	}
	qsort(t, QUERIES, sizeof *t, cmp_d);
	printf("  %-36s p50 %8.2f ms  p99 %8.2f ms  (up to %zu rows)\n", what, t[QUERIES / 2],
	       t[QUERIES * 99 / 100], rows);
}

static int run(const char *name, const char *target, const char *work)
{
	printf("%s: %s\n", name, target);
	double t0 = now();
	pid_t pids[PUSHERS];
	for (int k = 0; k < PUSHERS; k++) {
		pids[k] = fork();
		if (pids[k] == 0)
			_exit(pusher(target, work, k));
	}
	int bad = 0;
	for (int k = 0; k < PUSHERS; k++) {
		int ws;
		waitpid(pids[k], &ws, 0);
		bad += !WIFEXITED(ws) || WEXITSTATUS(ws) != 0;
	}
	double dt = now() - t0;
	int total = hosts * per_host;
	printf("  push: %d reports from %d Macs by %d pushers in %.1f s: %.0f reports/s%s\n", total,
	       hosts, PUSHERS, dt, total / dt, bad ? " (a pusher failed)" : "");
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
	printf("  TUI first load (every group and report): %.0f ms\n", first);
	latency("group list", db, 0, NULL);
	/* the kext of one bug in three: a third of every report comes back */
	latency("UUID search, a third of all reports", db, 1, "5E7A1C2B9D44");
	latency("UUID search, none", db, 1, "DEADBEEF0000");
	latency("host list", db, 2, NULL);
	kpi_close(&db);
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
	if (generate(argv[3]) != 0) {
		perror("generate");
		return 2;
	}
	printf("generated %d Macs x %d reports in %.1f s\n", hosts, per_host, now() - t0);
	int rc = run("PostgreSQL", argv[1], argv[3]);
	rc |= run("sqlite", argv[2], argv[3]);
	return rc ? 1 : 0;
}
