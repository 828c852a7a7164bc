/* test_hostile_rss.c: a helper for test_hostile.sh, not a test.
 *
 *   test_hostile_rss STATS SECONDS PROGRAM [ARG...]
 *
 * Runs PROGRAM with its stdin, stdout and stderr, kills it (SIGKILL) after
 * SECONDS, and writes one line to the file STATS:
 *   "<exit status> <peak RSS in KiB> <milliseconds> <timed out 0|1>"
 * where the exit status is 128+N for a death by signal N.  Exits 0 unless
 * the helper itself fails (then 125).  Peak RSS comes from wait4's rusage
 * (KiB on Linux, bytes on macOS: normalised to KiB). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s STATS SECONDS PROGRAM [ARG...]\n", argv[0]);
		return 125;
	}
	double limit = atof(argv[2]) * 1e3, t0 = now_ms();
	pid_t pid = fork();
	if (pid < 0)
		return 125;
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	int status = 0, timed_out = 0;
	struct rusage ru = {0};
	for (;;) {
		pid_t w = wait4(pid, &status, WNOHANG, &ru);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return 125;
		if (!timed_out && now_ms() - t0 > limit) {
			kill(pid, SIGKILL);
			timed_out = 1;
		}
		usleep(2000);
	}
	long rss = ru.ru_maxrss;
#ifdef __APPLE__
	rss /= 1024;
#endif
	int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	FILE *f = fopen(argv[1], "w");
	if (!f)
		return 125;
	fprintf(f, "%d %ld %.0f %d\n", rc, rss, now_ms() - t0, timed_out);
	fclose(f);
	return 0;
}
