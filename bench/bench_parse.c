/* bench_parse.c: parse speed and peak memory of the report parser, side by
 * side with python's json module and jq on the same file, in one run.
 *
 * usage: bench_parse [FILE] [N]   (default: the 1 MB full report of the real
 * corpus, N = 200).  Prints figures; asserts nothing.  Whole processes are
 * timed best of five (start-up included): `show`, `show --json` (target: at
 * most 0.5x python's json.loads of the same file) and python, jq. */
#include "kp_report.h"
#include "kt_slurp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

/* Runs argv in a child; returns wall ms and sets *rss_kib to its peak RSS. */
static double run_child(char *const argv[], long *rss_kib)
{
	double t0 = now_ms();
	pid_t pid = fork();
	if (pid == 0) {
		freopen("/dev/null", "w", stdout);
		execvp(argv[0], argv);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (pid < 0 || wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		*rss_kib = -1;
		return -1;
	}
#ifdef __APPLE__
	*rss_kib = ru.ru_maxrss / 1024;   /* bytes on macOS */
#else
	*rss_kib = ru.ru_maxrss;          /* KiB on Linux */
#endif
	return now_ms() - t0;
}

/* The best wall time of five runs (the machine may be busy). */
/* python3's own executable (sys.executable): a version manager's shim
 * (pyenv's is a shell script) would add its start-up to python's time. */
static char *python3(void)
{
	static char path[4096];
	if (path[0])
		return path;
	snprintf(path, sizeof path, "python3");
	char buf[sizeof path];
	if (kt_capture_line("python3 -c 'import sys; print(sys.executable)' 2>/dev/null", buf, sizeof buf) &&
	    buf[0] == '/')
		snprintf(path, sizeof path, "%s", buf);
	return path;
}

static double best_child(char *const argv[], long *rss_kib)
{
	double best = -1;
	for (int i = 0; i < 5; i++) {
		double t = run_child(argv, rss_kib);
		if (t < 0)
			return -1;
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

int main(int argc, char **argv)
{
	const char *file = argc > 1 ? argv[1]
	                            : KP_REAL_DIR "/ips-full-ios26-iphone-sepkeystore-1.ips";
	int n = argc > 2 ? atoi(argv[2]) : 200;
	size_t len = 0;
	char *buf = n > 0 ? kt_slurp(file, &len) : NULL;
	if (!buf) {
		fprintf(stderr, "bench_parse: cannot read %s\n", file);
		return 2;
	}

	/* in-process: kpbrowse's parser */
	double t0 = now_ms();
	for (int i = 0; i < n; i++) {
		kp_report *r;
		kp_error err;
		if (kp_report_parse(buf, len, file, &r, &err) != KP_OK) {
			fprintf(stderr, "bench_parse: %s\n", err.msg);
			return 2;
		}
		kp_report_free(&r);
	}
	double kp_ms = (now_ms() - t0) / n;

	/* in-process: python's json module on the same bytes (header line + body) */
	char script[1024], nbuf[16];
	snprintf(nbuf, sizeof nbuf, "%d", n);
	snprintf(script, sizeof script,
	         "import json,sys,time\n"
	         "d=open(sys.argv[1],'rb').read().decode('utf-8','replace')\n"
	         "n=int(sys.argv[2]);t=time.perf_counter()\n"
	         "for _ in range(n):\n"
	         " h,_,b=d.partition('\\n')\n"
	         " json.loads(h) if b.strip() else None\n"
	         " json.loads(b if b.strip() else h)\n"
	         "print((time.perf_counter()-t)*1e3/n)\n");
	double py_ms = -1;
	int pfd[2];
	if (pipe(pfd) == 0) {
		pid_t pid = fork();
		if (pid == 0) {
			dup2(pfd[1], 1);
			close(pfd[0]);
			execlp(python3(), "python3", "-c", script, file, nbuf, (char *)NULL);
			_exit(127);
		}
		close(pfd[1]);
		char out[64] = {0};
		size_t got = 0;
		ssize_t k;
		while (got < sizeof out - 1 && (k = read(pfd[0], out + got, sizeof out - 1 - got)) > 0)
			got += (size_t)k;
		close(pfd[0]);
		waitpid(pid, NULL, 0);
		if (got > 0)
			py_ms = atof(out);
	}

	/* the parser's own peak: RSS growth of a fresh child across one load */
	long delta_kib = -1;
	if (pipe(pfd) == 0) {
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
	}

	/* whole processes, for peak memory (and start-up included) */
	long kp_rss, kpj_rss, py_rss, jq_rss;
	char *kp_argv[] = {KPBROWSE, "show", "--no-symbols", (char *)file, NULL};
	char *kpj_argv[] = {KPBROWSE, "show", "--json", "--no-symbols", (char *)file, NULL};
	char *py_argv[] = {python3(), "-c",
	                   "import json,sys;h,_,b=open(sys.argv[1]).read().partition('\\n');json.loads(h);json.loads(b)",
	                   (char *)file, NULL};
	char *jq_argv[] = {"jq", "empty", (char *)file, NULL};
	double kp_proc = best_child(kp_argv, &kp_rss);
	double kpj_proc = best_child(kpj_argv, &kpj_rss);
	double py_proc = best_child(py_argv, &py_rss);
	double jq_proc = best_child(jq_argv, &jq_rss);

	double mib = len / 1048576.0;
	printf("file: %s (%.2f MiB), %d iterations\n", file, mib, n);
	printf("%-34s %10s %10s\n", "", "ms/report", "MB/s");
	printf("%-34s %10.2f %10.1f\n", "kpbrowse parser (in process)", kp_ms, mib / (kp_ms / 1e3));
	if (py_ms > 0)
		printf("%-34s %10.2f %10.1f   kpbrowse is %.1fx faster\n", "python3 json.loads (in process)",
		       py_ms, mib / (py_ms / 1e3), py_ms / kp_ms);
	if (delta_kib >= 0)
		printf("kpbrowse parser peak memory: %ld KiB over its baseline = %.2fx the file size (target < 4x)\n",
		       delta_kib, delta_kib * 1024.0 / len);
	printf("\nwhole process        wall ms   peak RSS KiB   RSS / file size\n");
	if (kp_proc >= 0)
		printf("kpbrowse show        %7.1f   %12ld   %6.2fx\n", kp_proc, kp_rss, kp_rss * 1024.0 / len);
	if (kpj_proc >= 0)
		printf("kpbrowse show --json %7.1f   %12ld   %6.2fx\n", kpj_proc, kpj_rss, kpj_rss * 1024.0 / len);
	if (py_proc >= 0)
		printf("python3 json         %7.1f   %12ld   %6.2fx  (%.1fx kpbrowse's time, %.1fx its memory)\n",
		       py_proc, py_rss, py_rss * 1024.0 / len, py_proc / kp_proc, (double)py_rss / kp_rss);
	if (jq_proc >= 0)
		printf("jq empty             %7.1f   %12ld   %6.2fx  (%.1fx kpbrowse's time, %.1fx its memory)\n",
		       jq_proc, jq_rss, jq_rss * 1024.0 / len, jq_proc / kp_proc, (double)jq_rss / kp_rss);
	if (kpj_proc >= 0 && py_proc > 0)
		printf("\nshow --json --no-symbols: %.1f ms, python3 json.loads: %.1f ms -> %.2fx python's time"
		       " (target <= 0.50x)\n", kpj_proc, py_proc, kpj_proc / py_proc);
	if (kpj_proc >= 0 && py_ms > 0)
		printf("  against json.loads alone (in process, no interpreter start-up): %.1f ms -> %.2fx\n",
		       py_ms, kpj_proc / py_ms);
	free(buf);
	return 0;
}
