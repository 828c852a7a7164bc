/* test_lzfse.c: the LZFSE/LZVN decoder (core/macho/lzfse.c) on what
 * Apple's reference encoder wrote (tests/fixtures/lzfse, made once by
 * scripts/make-lzfse-fixtures.sh: text, the fixture kernel and kernelcache,
 * random bytes, 4 MiB of zeros in bvx2 blocks, two small inputs in LZVN, two
 * rewritten as bvx1): each decodes to its original's size and SHA-1 and no
 * further.  Then hostile input: every prefix (a sample of the big ones),
 * byte mutations and hand-made blocks that lie give KP_ERR_FORMAT or
 * KP_ERR_LIMIT, never a crash (run under ASan, KP_SANITIZE, for overreads).
 *
 * test_lzfse --decode IN OUT writes IN's decoded bytes to OUT (exit 1 with
 * the error on stderr): scripts/check-lzfse.sh's and the benchmark's door
 * to the decoder. */
#include "kt_slurp.h"
#include "lzfse.h"
#include "kp_sha1.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt.h"

#define DIR KP_FIXTURES "/lzfse/"

/* Decodes an exactly sized heap copy of src[0..n) into a buffer of the
 * size its headers claim (at most cap): the status; *out malloc'd. */
static kp_status decode(const unsigned char *src, size_t n, size_t cap, unsigned char **out,
                        size_t *outlen, kp_error *err)
{
	unsigned char *copy = malloc(n ? n : 1);
	memcpy(copy, src, n);
	size_t size = 0;
	*out = NULL;
	*outlen = 0;
	kp_status st = kp__lzfse_size(copy, n, &size, err);
	if (st == KP_OK) {
		if (size > cap)
			size = cap;
		*out = malloc(size ? size : 1);
		st = kp__lzfse_decode(*out, size, outlen, copy, n, err);
	}
	free(copy);
	return st;
}

static int decode_file(const char *in, const char *outpath)
{
	size_t n;
	unsigned char *src = kt_slurp(in, &n), *out;
	if (!src) {
		fprintf(stderr, "test_lzfse: %s: cannot read\n", in);
		return 1;
	}
	size_t len;
	kp_error err;
	kp_status st = decode(src, n, SIZE_MAX, &out, &len, &err);
	free(src);
	if (st != KP_OK) {
		fprintf(stderr, "test_lzfse: %s: %s (byte %ld)\n", in, err.msg, err.byte);
		free(out);
		return 1;
	}
	FILE *f = fopen(outpath, "wb");
	int bad = !f || fwrite(out, 1, len, f) != len;
	if (f && fclose(f) != 0)
		bad = 1;
	free(out);
	if (bad)
		fprintf(stderr, "test_lzfse: %s: cannot write\n", outpath);
	return bad;
}

/* The block kinds in a stream (walking the headers the test's own way). */
static void kinds(const unsigned char *d, size_t n, char *buf, size_t size)
{
	buf[0] = 0;
	for (size_t at = 0; n - at >= 4;) {
		char k = (char)d[at + 3];
		size_t bl = strlen(buf);
		if (!strchr(buf, k) && bl + 1 < size)
			buf[bl] = k, buf[bl + 1] = 0;
		uint32_t w[3] = {0, 0, 0};
		if (n - at >= 16)
			for (int i = 0; i < 3; i++)
				w[i] = (uint32_t)d[at + 4 + 4 * i] | (uint32_t)d[at + 5 + 4 * i] << 8 |
				       (uint32_t)d[at + 6 + 4 * i] << 16 | (uint32_t)d[at + 7 + 4 * i] << 24;
		if (k == '$')
			break;
		else if (k == '-')
			at += 8 + (size_t)w[0];
		else if (k == 'n')
			at += 12 + (size_t)w[1];
		else if (k == '1')
			at += 772 + (size_t)w[1];
		else if (k == '2' && n - at >= 32) {
			uint64_t f0 = 0, f1 = 0;
			for (int i = 7; i >= 0; i--) {
				f0 = f0 << 8 | d[at + 8 + i];
				f1 = f1 << 8 | d[at + 16 + i];
			}
			size_t head = (size_t)d[at + 24] | (size_t)d[at + 25] << 8 |
			              (size_t)d[at + 26] << 16 | (size_t)d[at + 27] << 24;
			at += head + (size_t)(f0 >> 20 & 0xfffff) + (size_t)(f1 >> 40 & 0xfffff);
		} else
			break;
	}
}

typedef struct fixture {
	char name[64];
	char sha[41];
	size_t size;
	unsigned char *z;        /* the compressed bytes */
	size_t zn;
} fixture;

static fixture fx[16];
static size_t nfx;

static void load(void)
{
	FILE *f = fopen(DIR "SHA1SUMS", "r");
	KT_CHECK(f != NULL, "the fixtures' SHA1SUMS opens");
	if (!f)
		return;
	fixture x;
	while (nfx < 16 && fscanf(f, "%40s %zu %63s", x.sha, &x.size, x.name) == 3) {
		char path[256];
		snprintf(path, sizeof path, DIR "%s.lzfse", x.name);
		x.z = kt_slurp(path, &x.zn);
		KT_CHECK(x.z != NULL, "%s reads", path);
		if (x.z)
			fx[nfx++] = x;
	}
	fclose(f);
	KT_CHECK(nfx >= 9, "nine fixtures listed (%zu)", nfx);
}

/* (a) the reference's output decodes byte for byte, and no further */
static void test_oracle(void)
{
	char seen[16] = "";
	for (size_t i = 0; i < nfx; i++) {
		fixture *x = &fx[i];
		char k[8];
		kinds(x->z, x->zn, k, sizeof k);
		for (char *c = k; *c; c++) {
			size_t sl = strlen(seen);
			if (!strchr(seen, *c) && sl + 1 < sizeof seen)
				seen[sl] = *c, seen[sl + 1] = 0;
		}
		size_t size = 0;
		kp_error err;
		kp_status st = kp__lzfse_size(x->z, x->zn, &size, &err);
		KT_CHECK(st == KP_OK && size == x->size, "%s: the headers say %zu bytes (%zu)", x->name,
		         x->size, size);
		unsigned char *out;
		size_t len;
		st = decode(x->z, x->zn, x->size, &out, &len, &err);
		char hex[41] = "";
		if (st == KP_OK)
			kp_sha1_hex(out, len, hex);
		KT_CHECK(st == KP_OK && len == x->size && strcmp(hex, x->sha) == 0,
		         "%s (blocks %s): %zu -> %zu bytes, the original's SHA-1 (%s%s)", x->name, k, x->zn,
		         len, st == KP_OK ? "" : err.msg, st == KP_OK ? hex : "");
		free(out);
		/* a buffer one byte short: a limit, never a write past it */
		unsigned char *small = malloc(x->size - 1);
		st = kp__lzfse_decode(small, x->size - 1, &len, x->z, x->zn, &err);
		KT_CHECK(st == KP_ERR_LIMIT && len < x->size, "%s: one byte less room: KP_ERR_LIMIT (%s)",
		         x->name, st == KP_OK ? "ok" : err.msg);
		free(small);
	}
	KT_CHECK(strchr(seen, '2') && strchr(seen, 'n') && strchr(seen, '1'),
	         "the fixtures hold bvx2, bvxn and bvx1 blocks (%s)", seen);
}

/* Any outcome but OK or FORMAT/LIMIT at a byte inside the input fails. */
static bool sane(kp_status st, const kp_error *err, size_t n)
{
	return st == KP_OK || ((st == KP_ERR_FORMAT || st == KP_ERR_LIMIT) && err->byte >= 0 &&
	                       (size_t)err->byte <= n && err->msg[0]);
}

/* (b) every prefix (or a sample) and seeded byte mutations */
static void test_hostile(void)
{
	uint64_t rng = 30;
	for (size_t i = 0; i < nfx; i++) {
		fixture *x = &fx[i];
		size_t step = x->zn > 8192 ? x->zn / 509 : 1, bad = 0, insane = 0, tried = 0;
		for (size_t len = 0; len < x->zn; len += step, tried++) {
			unsigned char *out;
			size_t got;
			kp_error err;
			kp_status st = decode(x->z, len, x->size, &out, &got, &err);
			bad += st == KP_OK;
			insane += !sane(st, &err, len);
			free(out);
		}
		KT_CHECK(bad == 0 && insane == 0, "%s: %zu prefixes each a named error (%zu decoded, %zu odd)",
		         x->name, tried, bad, insane);
		size_t rounds = x->size > (1u << 20) ? 60 : 600, oks = 0;
		insane = 0;
		unsigned char *m = malloc(x->zn);
		for (size_t r = 0; r < rounds; r++) {
			memcpy(m, x->z, x->zn);
			for (int k = 0; k < 1 + (int)(r % 4); k++) {
				rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
				/* most flips in the headers, where the lies are */
				size_t at = r % 2 ? rng % x->zn : rng % (x->zn < 900 ? x->zn : 900);
				m[at] ^= (unsigned char)(1u << (rng >> 32) % 8 | (r % 3 == 0 ? rng >> 40 : 0));
			}
			unsigned char *out;
			size_t got;
			kp_error err;
			kp_status st = decode(m, x->zn, 2 * x->size + 4096, &out, &got, &err);
			oks += st == KP_OK;
			insane += !sane(st, &err, x->zn);
			free(out);
		}
		free(m);
		KT_CHECK(insane == 0, "%s: %zu mutations: OK or a named error at a byte inside (%zu decoded)",
		         x->name, rounds, oks);
	}
}

/* One hand-made stream: its status and message. */
static kp_status hand(const unsigned char *d, size_t n, size_t cap, char *msg, unsigned char *out,
                      size_t *got)
{
	kp_error err;
	unsigned char *copy = malloc(n);
	memcpy(copy, d, n);
	kp_status st = kp__lzfse_decode(out, cap, got, copy, n, &err);
	free(copy);
	snprintf(msg, 256, "%s", st == KP_OK ? "ok" : err.msg);
	return st;
}

static void test_hand(void)
{
	unsigned char out[64];
	size_t got;
	char msg[256];
	/* bvx-: stored bytes, then another block matching back into them */
	static const unsigned char raw[] = {'b', 'v', 'x', '-', 5, 0, 0, 0, 'h', 'e', 'l', 'l', 'o',
	                                    'b', 'v', 'x', 'n', 7, 0, 0, 0, 10, 0, 0, 0,
	                                    0xf7, /* sml_m: 7 at the last distance (none yet) */
	                                    0x06, 0, 0, 0, 0, 0, 0, 0, 0, 'b', 'v', 'x', '$'};
	kp_status st = hand(raw, sizeof raw, sizeof out, msg, out, &got);
	KT_CHECK(st == KP_ERR_FORMAT && strstr(msg, "before the start"),
	         "LZVN: a match at the last distance before any: an error (%s)", msg);
	static const unsigned char raw2[] = {'b', 'v', 'x', '-', 5, 0, 0, 0, 'h', 'e', 'l', 'l', 'o',
	                                     'b', 'v', 'x', 'n', 7, 0, 0, 0, 10, 0, 0, 0,
	                                     0x20, 5, /* sml_d: L 0, M 7, D 5 */
	                                     0x06, 0, 0, 0, 0, 0, 0, 0, 'b', 'v', 'x', '$'};
	st = hand(raw2, sizeof raw2, sizeof out, msg, out, &got);
	KT_CHECK(st == KP_OK && got == 12 && memcmp(out, "hellohellohe", 12) == 0,
	         "bvx- then LZVN reaching into it: \"hellohellohe\" (%s)", msg);
	st = hand(raw2, sizeof raw2, 11, msg, out, &got);
	KT_CHECK(st == KP_ERR_LIMIT, "the same with room for 11 bytes: KP_ERR_LIMIT (%s)", msg);
	unsigned char lie[sizeof raw2];
	memcpy(lie, raw2, sizeof lie);
	lie[26] = 6;   /* D 6: before the first byte */
	st = hand(lie, sizeof lie, sizeof out, msg, out, &got);
	KT_CHECK(st == KP_ERR_FORMAT, "LZVN: a distance past the start: an error (%s)", msg);
	lie[25] = 0x78;   /* an undefined opcode */
	st = hand(lie, sizeof lie, sizeof out, msg, out, &got);
	KT_CHECK(st == KP_ERR_FORMAT && strstr(msg, "undefined"), "LZVN: an undefined opcode (%s)", msg);
	static const unsigned char noend[] = {'b', 'v', 'x', '-', 1, 0, 0, 0, 'x'};
	st = hand(noend, sizeof noend, sizeof out, msg, out, &got);
	KT_CHECK(st == KP_ERR_FORMAT && strstr(msg, "bvx$"), "no end-of-stream block: an error (%s)", msg);
	static const unsigned char magic[] = {'b', 'v', 'x', '3', 0, 0, 0, 0};
	st = hand(magic, sizeof magic, sizeof out, msg, out, &got);
	KT_CHECK(st == KP_ERR_FORMAT, "an unknown block: an error (%s)", msg);
	/* bvx2 with no literal bytes (4 MiB of zeros: every literal state
	 * reads 0 bits) claiming 3 padding bits in a last byte it lacks */
	for (size_t i = 0; i < nfx; i++) {
		if (strcmp(fx[i].name, "zeros") != 0)
			continue;
		unsigned char *d = malloc(fx[i].zn), *big = malloc(fx[i].size);
		memcpy(d, fx[i].z, fx[i].zn);
		d[15] = (unsigned char)((d[15] & 0x8f) | 4 << 4);   /* literal_bits: 4 - 7 */
		st = hand(d, fx[i].zn, fx[i].size, msg, big, &got);
		KT_CHECK(st == KP_ERR_FORMAT && strstr(msg, "literal stream"),
		         "bvx2: an empty literal stream with padding bits: an error (%s)", msg);
		free(d);
		free(big);
	}
	/* bvx2 whose L state is past its 64 states: from the kernel fixture */
	for (size_t i = 0; i < nfx; i++) {
		if (strcmp(fx[i].name, "fakekernel") != 0)
			continue;
		unsigned char *d = malloc(fx[i].zn), *big = malloc(fx[i].size);
		memcpy(d, fx[i].z, fx[i].zn);
		d[24 + 4] = (unsigned char)((d[24 + 4] & 0xc0) | 0x3f);   /* l_state bits 32..41 */
		d[24 + 5] = (unsigned char)(d[24 + 5] | 0x03);
		st = hand(d, fx[i].zn, fx[i].size, msg, big, &got);
		KT_CHECK(st == KP_ERR_FORMAT && strstr(msg, "state"), "bvx2: an L state of 1023: an error (%s)",
		         msg);
		free(d);
		free(big);
	}
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "--decode") == 0)
		return decode_file(argv[2], argv[3]);
	load();
	test_oracle();
	test_hostile();
	test_hand();
	for (size_t i = 0; i < nfx; i++)
		free(fx[i].z);
	return kt_done();
}
