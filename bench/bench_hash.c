/* bench_hash [MB]: the index's content hash (kp_sha256) beside the SHA-1
 * it replaced and the system's sha256sum (shasum -a 256 where there is
 * none) on the same MB megabytes (default 256) of pseudo-random bytes,
 * with the CPU's SHA instructions and with the portable code, best of 5,
 * one thread.  The peer runs on a file of the same bytes (its time
 * includes reading it from the page cache).  Asserts only that the
 * digests agree. */
#include "kp_sha1.h"
#include "kp_sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

typedef void (*hex_fn)(const void *, size_t, char *);

static double best(hex_fn f, const unsigned char *b, size_t n, char *hex)
{
	double t = 1e9;
	for (int i = 0; i < 5; i++) {
		double t0 = now();
		f(b, n, hex);
		double d = now() - t0;
		t = d < t ? d : t;
	}
	return t;
}

static void sha1_hex(const void *b, size_t n, char *hex)
{
	kp_sha1_hex(b, n, hex);
}

static void sha256_hex(const void *b, size_t n, char *hex)
{
	kp_sha256_hex(b, n, hex);
}

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? (size_t)atoi(argv[1]) : 256, n = mb << 20;
	unsigned char *b = malloc(n ? n : 1);
	if (!b || !n)
		return 2;
	uint32_t x = 2463534242u;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		b[i] = (unsigned char)x;
	}
	char h1[41], h256[KP_SHA256_HEX], peer[KP_SHA256_HEX] = "";
	printf("%zu MB, one thread, best of 5\n", mb);
	for (int cpu = 1; cpu >= 0; cpu--) {
		bool on1 = kp_sha1_use_cpu(cpu), on256 = kp_sha256_use_cpu(cpu);
		if (cpu && !on1 && !on256) {
			printf("  (no SHA instructions on this CPU)\n");
			continue;
		}
		double t1 = best(sha1_hex, b, n, h1), t2 = best(sha256_hex, b, n, h256);
		printf("  %-9s kp_sha1 %7.0f MB/s   kp_sha256 %7.0f MB/s\n", cpu ? "cpu:" : "portable:",
		       (double)mb / t1, (double)mb / t2);
	}
	char path[] = "/tmp/kpbrowse-bench-hash-XXXXXX";
	int fd = mkstemp(path);
	if (fd >= 0 && write(fd, b, n) == (ssize_t)n) {
		close(fd);
		const char *tools[] = {"sha256sum", "shasum -a 256"};
		for (int k = 0; k < 2 && !peer[0]; k++) {
			char cmd[200];
			snprintf(cmd, sizeof cmd, "%s %s 2>/dev/null", tools[k], path);
			double t = 1e9;
			for (int i = 0; i < 5; i++) {
				double t0 = now();
				FILE *p = popen(cmd, "r");
				char line[256] = "";
				if (!p || !fgets(line, sizeof line, p) || strlen(line) < 64) {
					if (p)
						pclose(p);
					break;
				}
				pclose(p);
				double d = now() - t0;
				t = d < t ? d : t;
				snprintf(peer, sizeof peer, "%.64s", line);
			}
			if (peer[0])
				printf("  peer:     %-13s     %7.0f MB/s\n", tools[k], (double)mb / t);
		}
	}
	unlink(path);
	kp_sha256_use_cpu(true);
	kp_sha256_hex(b, n, h256);
	if (peer[0] && strcmp(peer, h256) != 0) {
		printf("digests differ: %s vs %s\n", h256, peer);
		return 1;
	}
	free(b);
	return 0;
}
