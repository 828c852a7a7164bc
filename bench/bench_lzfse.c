/* bench_lzfse.c: LZFSE decode speed of kpbrowse's decoder (core/macho/
 * lzfse.c) side by side with Apple's reference (liblzfse, loaded at run
 * time, never linked), on the same compressed file, in one process, in
 * memory: best of N runs each (CPU time), interleaved (the machine may be
 * busy).
 *
 * usage: bench_lzfse FILE.lzfse [LIBLZFSE] [N]  (bench/bench_lzfse.sh makes
 * a kernel-sized payload, builds the reference and runs this).  Prints MB/s
 * of decoded output and the ratio (target: ours >= 0.8x the reference's);
 * checks the two outputs are the same bytes; asserts nothing else. */
#include "kp_dl.h"
#include "kt_slurp.h"
#include "lzfse.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* This thread's CPU time: on a machine shared with other work, wall time
 * says more about the neighbours than about the decoders. */
static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_lzfse FILE.lzfse [LIBLZFSE] [N]\n");
		return 2;
	}
	int runs = argc > 3 ? atoi(argv[3]) : 7;
	size_t n, size = 0, got = 0;
	unsigned char *src = kt_slurp(argv[1], &n);
	kp_error err;
	if (!src || kp__lzfse_size(src, n, &size, &err) != KP_OK) {
		fprintf(stderr, "bench_lzfse: %s: %s\n", argv[1], src ? err.msg : "cannot read");
		return 1;
	}
	unsigned char *ours = malloc(size), *ref = malloc(size + 1);
	size_t (*ref_decode)(unsigned char *, size_t, const unsigned char *, size_t, void *) = NULL;
	size_t (*ref_scratch)(void) = NULL;
	const char *why = "no library given (bench/bench_lzfse.sh builds it)";
	if (argc > 2 && argv[2][0]) {
		const char *names[] = {argv[2]}, *tried;
		void *h = kp_dl_open(names, 1, &tried, &why);
		const kp_dl_sym syms[] = {{"lzfse_decode_buffer", (void **)&ref_decode},
		                          {"lzfse_decode_scratch_size", (void **)&ref_scratch}};
		if (h && (why = kp_dl_syms(h, syms, 2)) != NULL)
			ref_decode = NULL;
	}
	void *scratch = ref_scratch ? malloc(ref_scratch()) : NULL;
	double best_ours = 1e9, best_ref = 1e9;
	size_t ref_got = 0;
	for (int i = 0; i < runs; i++) {
		double t0 = now_s();
		if (kp__lzfse_decode(ours, size, &got, src, n, &err) != KP_OK) {
			fprintf(stderr, "bench_lzfse: %s: %s (byte %ld)\n", argv[1], err.msg, err.byte);
			return 1;
		}
		double t1 = now_s();
		if (t1 - t0 < best_ours)
			best_ours = t1 - t0;
		if (ref_decode) {
			t0 = now_s();
			ref_got = ref_decode(ref, size + 1, src, n, scratch);
			t1 = now_s();
			if (t1 - t0 < best_ref)
				best_ref = t1 - t0;
		}
	}
	double mb = (double)size / 1e6;
	printf("payload: %s, %.1f MB compressed to %.1f MB (%.2fx), best of %d\n\n", argv[1], mb,
	       (double)n / 1e6, (double)size / (double)n, runs);
	printf("%-28s %10s %10s\n", "decoder", "CPU ms", "MB/s");
	printf("%-28s %10.1f %10.0f\n", "kpbrowse (core/macho)", best_ours * 1e3, mb / best_ours);
	if (ref_decode) {
		bool same = ref_got == size && memcmp(ours, ref, size) == 0;
		printf("%-28s %10.1f %10.0f\n", "lzfse 1.0 (Apple reference)", best_ref * 1e3, mb / best_ref);
		printf("\nkpbrowse / reference: %.2fx (target >= 0.80x); outputs %s\n", best_ref / best_ours,
		       same ? "identical" : "DIFFER");
		if (!same)
			return 1;
	} else {
		printf("%-28s %10s %10s   (%s)\n", "lzfse 1.0 (Apple reference)", "n/a", "n/a", why);
	}
	free(scratch);
	free(ours);
	free(ref);
	free(src);
	return 0;
}
