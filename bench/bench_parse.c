/* bench_parse.c: parse speed and peak memory of the report parser, side by
 * side with python's json module, jq and cat on the same file, in one run.
 *
 * usage: bench_parse [FILE] [N] [ROUNDS]   (default: the 1 MB full report of
 * the real corpus, N = 200 parses in process, ROUNDS = 15).  Prints figures;
 * asserts nothing.  In process: each parse timed alone (min / median / max)
 * beside python's json.loads of the same bytes and read() of the file.  Whole
 * processes (start-up included), as issue 35 measures them: `show`, `show
 * --json` (target: at most 0.25x python's json.loads of the same file),
 * python, jq and cat, run in turn ROUNDS times so that the load of a shared
 * machine falls on all of them alike; each ratio is taken within a round,
 * and wall and CPU time (user + system, from wait4) are both shown. */
#include "kp_report.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef KPBROWSE
#define KPBROWSE "kpbrowse"
#endif
#ifndef KP_REAL_DIR
#define KP_REAL_DIR "tests/real"
#endif

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Sorts v[0..n) and gives its min, median and max. */
typedef struct spread {
	double min, med, max;
} spread;
static spread spread_of(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return (spread){v[0], n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[n - 1]};
}

static void print_load(const char *when)
{
	double l[3];
	if (getloadavg(l, 3) == 3)
		printf("load average %s: %.2f %.2f %.2f (%ld CPUs)\n", when, l[0], l[1], l[2],
		       sysconf(_SC_NPROCESSORS_ONLN));
}

/* python3's own executable (sys.executable): a version manager's shim
 * (pyenv's is a shell script) would add its start-up to python's time. */
static char *python3(void)
{
	static char path[4096];
	if (path[0])
		return path;
	snprintf(path, sizeof path, "python3");
	FILE *p = popen("python3 -c 'import sys; print(sys.executable)' 2>/dev/null", "r");
	if (p) {
		char buf[sizeof path];
		if (fgets(buf, sizeof buf, p) && buf[0] == '/') {
			buf[strcspn(buf, "\n")] = '\0';
			snprintf(path, sizeof path, "%s", buf);
		}
		pclose(p);
	}
	return path;
}

/* One run of a whole process. */
typedef struct run {
	double wall_ms, cpu_ms;
	long rss_kib;
} run;

/* Runs argv in a child, stdout to /dev/null; false unless it exited 0. */
static bool run_child(char *const argv[], run *out)
{
	double t0 = now_ms();
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (pid < 0 || wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return false;
	out->wall_ms = now_ms() - t0;
	out->cpu_ms = ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3 + ru.ru_stime.tv_sec * 1e3 +
	              ru.ru_stime.tv_usec / 1e3;
#ifdef __APPLE__
	out->rss_kib = ru.ru_maxrss / 1024;   /* bytes on macOS */
#else
	out->rss_kib = ru.ru_maxrss;          /* KiB on Linux */
#endif
	return true;
}

/* python's json.loads of the file's header line and body, n times in
 * process; fills ms[0..n) (the caller's) and returns how many it read. */
static int python_in_process(const char *file, int n, double *ms)
{
	char script[1024], nbuf[16];
	snprintf(nbuf, sizeof nbuf, "%d", n);
	snprintf(script, sizeof script,
	         "import json,sys,time\n"
	         "d=open(sys.argv[1],'rb').read().decode('utf-8','replace')\n"
	         "for _ in range(int(sys.argv[2])):\n"
	         " t=time.perf_counter()\n"
	         " h,_,b=d.partition('\\n')\n"
	         " json.loads(h) if b.strip() else None\n"
	         " json.loads(b if b.strip() else h)\n"
	         " print((time.perf_counter()-t)*1e3)\n");
	int pfd[2], got = 0;
	if (pipe(pfd) != 0)
		return 0;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		execlp(python3(), "python3", "-c", script, file, nbuf, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	FILE *fp = fdopen(pfd[0], "r");
	char line[64];
	while (fp && got < n && fgets(line, sizeof line, fp))
		ms[got++] = atof(line);
	if (fp)
		fclose(fp);
	waitpid(pid, NULL, 0);
	return got;
}

/* The parser's own peak: RSS growth of a fresh child across one load. */
static long parser_peak_kib(const char *file)
{
	long delta_kib = -1;
	int pfd[2];
	if (pipe(pfd) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		struct rusage a, b;
		getrusage(RUSAGE_SELF, &a);
		kp_report *r;
		kp_error err;
		if (kp_report_load(file, &r, &err) == KP_OK)
			kp_report_free(&r);
		getrusage(RUSAGE_SELF, &b);
		long d = b.ru_maxrss - a.ru_maxrss;
#ifdef __APPLE__
		d /= 1024;
#endif
		(void)!write(pfd[1], &d, sizeof d);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], &delta_kib, sizeof delta_kib) != sizeof delta_kib)
		delta_kib = -1;
	close(pfd[0]);
	waitpid(pid, NULL, 0);
	return delta_kib;
}

int main(int argc, char **argv)
{
	const char *file = argc > 1 ? argv[1]
	                            : KP_REAL_DIR "/ips-full-ios26-iphone-sepkeystore-1.ips";
	int n = argc > 2 ? atoi(argv[2]) : 200, rounds = argc > 3 ? atoi(argv[3]) : 15;
	struct stat sb;
	if (stat(file, &sb) != 0 || n <= 0 || rounds <= 0) {
		fprintf(stderr, "bench_parse: cannot read %s\n", file);
		return 2;
	}
	int fd = open(file, O_RDONLY);
	char *buf = malloc((size_t)sb.st_size + 1);
	size_t len = fd >= 0 && buf ? (size_t)read(fd, buf, (size_t)sb.st_size) : 0;
	if (fd >= 0)
		close(fd);
	double mb = len / 1e6;
	printf("file: %s (%.2f MB), %d parses in process, %d rounds of whole processes\n", file, mb, n, rounds);
	print_load("before");

	/* in process: kpbrowse's parser, each parse alone; read() of the file
	 * (from the page cache: memory speed) the same number of times */
	double *kp = malloc((size_t)n * sizeof *kp), *rd = malloc((size_t)n * sizeof *rd);
	double *py = malloc((size_t)n * sizeof *py);
	char *copy = malloc(len + 1);
	for (int i = 0; i < n; i++) {
		double t0 = now_ms();
		kp_report *r;
		kp_error err;
		if (kp_report_parse(buf, len, file, &r, &err) != KP_OK) {
			fprintf(stderr, "bench_parse: %s\n", err.msg);
			return 2;
		}
		kp_report_free(&r);
		kp[i] = now_ms() - t0;
		t0 = now_ms();
		int rfd = open(file, O_RDONLY);
		ssize_t got = rfd >= 0 ? read(rfd, copy, len) : -1;
		if (rfd >= 0)
			close(rfd);
		rd[i] = now_ms() - t0;
		if (got != (ssize_t)len)
			rd[i] = -1;
	}
	int npy = python_in_process(file, n, py);
	spread skp = spread_of(kp, n), srd = spread_of(rd, n), spy = {0, 0, 0};
	if (npy > 0)
		spy = spread_of(py, npy);

	printf("\nin process, ms per report    min     median  max       MB/s (median)\n");
	printf("kpbrowse parser             %7.2f  %7.2f  %7.2f  %8.0f\n", skp.min, skp.med, skp.max,
	       mb / (skp.med / 1e3));
	if (npy > 0)
		printf("python3 json.loads          %7.2f  %7.2f  %7.2f  %8.0f   kpbrowse takes %.2fx its time\n",
		       spy.min, spy.med, spy.max, mb / (spy.med / 1e3), skp.med / spy.med);
	if (srd.min >= 0)
		printf("read() of the file          %7.2f  %7.2f  %7.2f  %8.0f   kpbrowse takes %.1fx its time\n",
		       srd.min, srd.med, srd.max, mb / (srd.med / 1e3), skp.med / srd.med);
	long delta_kib = parser_peak_kib(file);
	if (delta_kib >= 0)
		printf("kpbrowse parser peak memory: %ld KiB over its baseline = %.2fx the file size (target < 4x)\n",
		       delta_kib, delta_kib * 1024.0 / len);

	/* whole processes, in turn, round after round */
	enum { SHOW, SHOWJ, PY, JQ, CAT, NTOOLS };
	static const char *const names[NTOOLS] = {"kpbrowse show", "kpbrowse show --json", "python3 json.loads",
	                                          "jq empty", "cat"};
	char *argvs[NTOOLS][6] = {
		{KPBROWSE, "show", "--no-symbols", (char *)file, NULL},
		{KPBROWSE, "show", "--json", "--no-symbols", (char *)file, NULL},
		{python3(), "-c",
		 "import json,sys;h,_,b=open(sys.argv[1]).read().partition('\\n');json.loads(h);json.loads(b)",
		 (char *)file, NULL},
		{"jq", "empty", (char *)file, NULL},
		{"cat", (char *)file, NULL},
	};
	double *wall[NTOOLS], *cpu[NTOOLS], *ratio_wall = malloc((size_t)rounds * sizeof(double)),
	       *ratio_cpu = malloc((size_t)rounds * sizeof(double));
	long rss[NTOOLS] = {0};
	bool ok[NTOOLS];
	for (int t = 0; t < NTOOLS; t++) {
		wall[t] = malloc((size_t)rounds * sizeof(double));
		cpu[t] = malloc((size_t)rounds * sizeof(double));
		ok[t] = true;
	}
	for (int k = 0; k < rounds; k++) {
		for (int t = 0; t < NTOOLS; t++) {
			run r;
			if (!ok[t] || !run_child(argvs[t], &r)) {
				ok[t] = false;
				continue;
			}
			wall[t][k] = r.wall_ms;
			cpu[t][k] = r.cpu_ms;
			if (r.rss_kib > rss[t])
				rss[t] = r.rss_kib;
		}
		if (ok[SHOWJ] && ok[PY]) {
			ratio_wall[k] = wall[SHOWJ][k] / wall[PY][k];
			ratio_cpu[k] = cpu[PY][k] > 0 ? cpu[SHOWJ][k] / cpu[PY][k] : 0;
		}
	}
	printf("\nwhole process, %d runs      wall ms: min  median  max    CPU ms median   peak RSS KiB  RSS/file\n",
	       rounds);
	for (int t = 0; t < NTOOLS; t++) {
		if (!ok[t]) {
			printf("%-26s  (not run: missing or failed)\n", names[t]);
			continue;
		}
		spread w = spread_of(wall[t], rounds), c = spread_of(cpu[t], rounds);
		printf("%-26s  %8.1f %7.1f %7.1f   %10.1f   %12ld   %6.2fx\n", names[t], w.min, w.med, w.max, c.med,
		       rss[t], rss[t] * 1024.0 / len);
	}
	if (ok[SHOWJ] && ok[PY]) {
		spread rw = spread_of(ratio_wall, rounds), rc = spread_of(ratio_cpu, rounds);
		printf("\nshow --json / python3 json.loads, whole processes, within each round (target <= 0.25x):\n"
		       "  wall: min %.2fx  median %.2fx  max %.2fx;  CPU: min %.2fx  median %.2fx  max %.2fx\n",
		       rw.min, rw.med, rw.max, rc.min, rc.med, rc.max);
	}
	print_load("after");
	free(kp);
	free(rd);
	free(py);
	free(copy);
	free(buf);
	return 0;
}
