/* fuzz_signature.c: headline normalisation and the signature functions of
 * kp_signature.h on a report parsed from the input (and on the raw input). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kp_report.h"
#include "kp_signature.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	free(kp_sig_normalize_headline(s));
	(void)kp_sig_is_machinery(s);
	(void)kp_sig_is_apple(s);
	kp_report *r = NULL;
	kp_error err;
	if (kp_report_parse(s, size, "fuzz", &r, &err) == KP_OK) {
		free(kp_sig_normalize_headline(r->headline));
		for (size_t i = 0; i < r->nimages; i++)
			(void)kp_sig_is_apple(r->images[i].name);
		for (size_t i = 0; i < r->nprocesses; i++)
			for (size_t j = 0; j < r->processes[i].nthreads; j++) {
				const kp_thread *t = &r->processes[i].threads[j];
				for (size_t k = 0; k < t->nframes; k++)
					if (t->frames[k].symbol)
						(void)kp_sig_is_machinery(t->frames[k].symbol);
			}
		kp_sig sig;
		if (kp_sig_compute(r, NULL, NULL, &sig, &err) == KP_OK)
			kp_sig_free(&sig);
	}
	kp_report_free(&r);
	free(s);
	return 0;
}
