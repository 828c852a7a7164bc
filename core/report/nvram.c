/* nvram.c: aapl,panic-info and the panic region decoded (contract:
 * kp_nvram.h). */
#include "kp_nvram.h"
#include "text_span.h"
#include "kp_base64.h"
#include "kp_lex.h"

#include <stdlib.h>
#include <string.h>

#define FUNK_MAGIC 0x46554E4Bu   /* embedded_panic_header, xnu osfmk/kern/debug.h */
#define DEED_MAGIC 0x44454544u   /* macos_panic_header */
#define FUNK_SIZE 44             /* through eph_other_log_len, packed */
#define DEED_SIZE 32             /* version 1: through mph_panic_log_len */
#define DEED_SIZE2 48            /* version 2+: also stackshot and other log */

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static long line_of(const char *data, const char *p)
{
	long l = 1;
	for (const char *q = data; q < p; q++)
		l += *q == '\n';
	return l;
}

/* Text already: printable ASCII, tabs and newlines in (nearly) every byte
 * of the first 256, and "panic" or "Debugger" among them. */
static bool reads_as_text(const unsigned char *b, size_t n)
{
	size_t k = n < 256 ? n : 256, bad = 0;
	for (size_t i = 0; i < k; i++)
		bad += !((b[i] >= 0x20 && b[i] < 0x7f) || b[i] == '\n' || b[i] == '\t' || b[i] == '\r');
	return k && bad * 50 < k &&
	       (kp__span_find((const char *)b, (const char *)b + n, "panic") || kp__span_find((const char *)b, (const char *)b + n, "Debugger"));
}

/* xnu's unpackA: each 7 bytes, read as a little-endian 56-bit number, hold
 * 8 characters of 7 bits, the first in the lowest bits.  A last group of
 * fewer than 7 bytes gives the characters its bits hold.  NUL characters
 * (the packer pads to 8) end the text. */
static char *unpack7(const unsigned char *b, size_t n, size_t *outlen)
{
	char *t = malloc(n / 7 * 8 + 9);
	if (!t)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < n; i += 7) {
		uint64_t v = 0;
		size_t k = n - i < 7 ? n - i : 7;
		for (size_t j = 0; j < k; j++)
			v |= (uint64_t)b[i + j] << (8 * j);
		size_t chars = k * 8 / 7;
		for (size_t j = 0; j < chars; j++)
			t[o++] = (char)(v >> (7 * j) & 0x7f);
	}
	t[o] = '\0';
	*outlen = strlen(t);   /* up to the first NUL */
	return t;
}

/* A region header at b[0..n): the panic log it points at. */
static kp_status region(const unsigned char *b, size_t n, kp_nvram *out, kp_error *err)
{
	uint32_t magic = le32(b);
	bool funk = magic == FUNK_MAGIC;
	size_t hsize = funk ? FUNK_SIZE : DEED_SIZE;
	if (n < hsize)
		return kp_error_set(err, KP_ERR_FORMAT, 0, 0, "%s header cut off: %zu of %zu bytes",
		                    funk ? "FUNK" : "DEED", n, hsize);
	out->has_header = true;
	out->form = funk ? "FUNK panic region" : "DEED panic region";
	out->version = le32(b + 8);
	uint32_t off, len;
	if (funk) {
		out->flags = le64(b + 12);
		off = le32(b + 20);
		len = le32(b + 24);
		out->stackshot_offset = le32(b + 28);
		out->stackshot_len = le32(b + 32);
		out->other_log_offset = le32(b + 36);
		out->other_log_len = le32(b + 40);
	} else {
		out->flags = le64(b + 16);
		off = le32(b + 24);
		len = le32(b + 28);
		if (out->version >= 2 && n >= DEED_SIZE2) {
			out->stackshot_offset = le32(b + 32);
			out->stackshot_len = le32(b + 36);
			out->other_log_offset = le32(b + 40);
			out->other_log_len = le32(b + 44);
		}
	}
	if (off < hsize || off > n || len > n - off)
		return kp_error_set(err, KP_ERR_FORMAT, 0, 0,
		                    "%s header: panic log at %u, %u bytes, outside the %zu bytes given",
		                    funk ? "FUNK" : "DEED", off, len, n);
	const unsigned char *log = b + off;
	size_t ln = len;
	while (ln && log[ln - 1] == '\0')
		ln--;
	if (!ln)
		return kp_error_set(err, KP_ERR_FORMAT, 0, 0, "%s header: the panic log is empty",
		                    funk ? "FUNK" : "DEED");
	out->text = malloc(ln + 1);
	if (!out->text)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	memcpy(out->text, log, ln);
	out->text[ln] = '\0';
	out->len = strlen(out->text);
	return KP_OK;
}

static kp_status from_bytes(const unsigned char *b, size_t n, kp_nvram *out, kp_error *err)
{
	if (n >= 4 && (le32(b) == FUNK_MAGIC || le32(b) == DEED_MAGIC)) {
		const char *form = out->form;
		kp_status st = region(b, n, out, err);
		if (st == KP_OK && form)
			out->form = form;   /* the variable's form, its content a region */
		return st;
	}
	if (!n)
		return kp_error_set(err, KP_ERR_FORMAT, 0, 0, "aapl,panic-info is empty");
	if (reads_as_text(b, n)) {
		out->text = malloc(n + 1);
		if (!out->text)
			return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
		memcpy(out->text, b, n);
		out->text[n] = '\0';
		out->len = strlen(out->text);
	} else {
		out->text = unpack7(b, n, &out->len);
		if (!out->text)
			return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
		out->packed = true;
	}
	if (!out->len)
		return kp_error_set(err, KP_ERR_FORMAT, 0, 0, "aapl,panic-info holds no text");
	return KP_OK;
}

/* `nvram -x`: the <data> after <key>aapl,panic-info</key>. */
static kp_status plist(const char *data, size_t len, kp_nvram *out, kp_error *err)
{
	const char *end = data + len;
	const char *k = kp__span_find(data, end, "<key>aapl,panic-info</key>");
	if (!k)
		return kp_error_set(err, KP_ERR_FORMAT, 0, 0, "a property list without aapl,panic-info");
	const char *d = kp__span_find(k, end, "<data>");
	const char *de = d ? kp__span_find(d, end, "</data>") : NULL;
	if (!d || !de)
		return kp_error_set(err, KP_ERR_FORMAT, line_of(data, k), k - data,
		                    "aapl,panic-info: no <data>...</data> after the key");
	d += 6;
	unsigned char *b = malloc(kp_base64_max((size_t)(de - d)));
	size_t n;
	if (!b)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	if (!kp_base64_decode(d, (size_t)(de - d), false, b, &n)) {
		free(b);
		return kp_error_set(err, KP_ERR_FORMAT, line_of(data, d), d - data, "aapl,panic-info: bad base64 in <data>");
	}
	out->form = "nvram -x";
	kp_status st = from_bytes(b, n, out, err);
	free(b);
	return st;
}

/* `nvram -p`: "aapl,panic-info<TAB>bytes" with %xx escapes, to the end of
 * the line. */
static kp_status printed(const char *data, size_t len, const char *at, kp_nvram *out, kp_error *err)
{
	const char *end = data + len, *p = at + 15 < end ? at + 15 : end;
	while (p < end && (*p == '\t' || *p == ' '))
		p++;
	const char *e = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
	if (!e)
		e = end;
	if (e > p && e[-1] == '\r')
		e--;
	unsigned char *b = malloc((size_t)(e - p) + 1);
	size_t n = 0;
	if (!b)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	for (const char *q = p; q < e; q++) {
		if (*q != '%') {
			b[n++] = (unsigned char)*q;
			continue;
		}
		int hi = e - q >= 3 ? kp_hex_digit((unsigned char)q[1]) : -1;
		int lo = e - q >= 3 ? kp_hex_digit((unsigned char)q[2]) : -1;
		if (hi < 0 || lo < 0) {
			free(b);
			return kp_error_set(err, KP_ERR_FORMAT, line_of(data, q), q - data,
			                    "aapl,panic-info: '%%' without two hex digits");
		}
		b[n++] = (unsigned char)(hi << 4 | lo);
		q += 2;
	}
	out->form = "nvram -p";
	kp_status st = from_bytes(b, n, out, err);
	free(b);
	return st;
}

kp_status kp_nvram_decode(const char *data, size_t len, kp_nvram *out, kp_error *err)
{
	memset(out, 0, sizeof *out);
	kp_error_clear(err);
	if (!len)
		return kp_error_set(err, KP_ERR_FORMAT, 0, 0, "empty input");
	const unsigned char *b = (const unsigned char *)data;
	kp_status st;
	if (len >= 4 && (le32(b) == FUNK_MAGIC || le32(b) == DEED_MAGIC)) {
		st = region(b, len, out, err);
	} else {
		const char *scan_end = data + (len < 65536 ? len : 65536);
		const char *line = NULL;
		for (const char *p = data; p < data + len && !line;) {
			if ((size_t)(data + len - p) > 15 && memcmp(p, "aapl,panic-info", 15) == 0 &&
			    (p[15] == '\t' || p[15] == ' '))
				line = p;
			const char *nl = memchr(p, '\n', (size_t)(data + len - p));
			p = nl ? nl + 1 : data + len;
		}
		if (kp__span_find(data, scan_end, "<plist"))
			st = plist(data, len, out, err);
		else if (line)
			st = printed(data, len, line, out, err);
		else
			st = kp_error_set(err, KP_ERR_FORMAT, 0, 0,
			                  "not nvram output: no aapl,panic-info (nvram -x or nvram -p) and no "
			                  "FUNK or DEED panic region header at offset 0");
	}
	if (st != KP_OK)
		kp_nvram_free(out);
	return st;
}

void kp_nvram_free(kp_nvram *n)
{
	if (!n)
		return;
	free(n->text);
	memset(n, 0, sizeof *n);
}
