/* timeit.c: timeit [-n RUNS] [-i INPUT] CMD ARGS...: runs a command RUNS
 * times (stdout to /dev/null, stdin from INPUT) and prints "median_ms
 * peak_rss_kib min_ms max_ms" of the runs.  For the benchmark scripts:
 * exact, portable timing without a shell or interpreter in the
 * measurement. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int runs = 1, i = 1;
	const char *input = NULL;
	while (i < argc && argv[i][0] == '-') {
		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (strcmp(argv[i], "-i") == 0 && i + 1 < argc)
			input = argv[++i];
		else
			break;
		i++;
	}
	if (i >= argc || runs < 1 || runs > 1000) {
		fprintf(stderr, "usage: timeit [-n RUNS] [-i INPUT] CMD ARGS...\n");
		return 2;
	}
	double *ms = calloc((size_t)runs, sizeof *ms);
	long peak = 0;
	for (int r = 0; r < runs; r++) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		pid_t pid = fork();
		if (pid == 0) {
			int out = open("/dev/null", O_WRONLY);
			dup2(out, 1);
			if (input) {
				int in = open(input, O_RDONLY);
				if (in < 0)
					_exit(126);
				dup2(in, 0);
			}
			execvp(argv[i], argv + i);
			_exit(127);
		}
		int st;
		struct rusage ru;
		if (pid < 0 || wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "timeit: %s failed\n", argv[i]);
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ms[r] = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
#ifdef __APPLE__
		long kib = ru.ru_maxrss / 1024;
#else
		long kib = ru.ru_maxrss;
#endif
		if (kib > peak)
			peak = kib;
	}
	qsort(ms, (size_t)runs, sizeof *ms, cmp);
	printf("%.1f %ld %.1f %.1f\n", ms[runs / 2], peak, ms[0], ms[runs - 1]);
	free(ms);
	return 0;
}
