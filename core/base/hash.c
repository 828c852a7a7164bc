/* hash.c: the keyed string hash's seed (kp_hash.h). */
#include "kp_hash.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

static _Atomic uint64_t seed;

/* 8 random bytes from the kernel; else the clock, the pid and an address
 * (still unknown to whoever wrote the file). */
static uint64_t fresh(void)
{
	uint64_t v = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, &v, sizeof v);
		close(fd);
		if (n != (ssize_t)sizeof v)
			v = 0;
	}
	if (!v) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		v = kp_hash_mix((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)getpid() ^
		                (uint64_t)(uintptr_t)&seed);
	}
	return v ? v : 1;
}

uint64_t kp_hash_seed(void)
{
	uint64_t s = atomic_load_explicit(&seed, memory_order_relaxed);
	if (s)
		return s;
	uint64_t want = fresh(), zero = 0;
	/* two threads at once: the first one's stays */
	if (!atomic_compare_exchange_strong(&seed, &zero, want))
		return zero;
	return want;
}
