/* nvram.c: aapl,panic-info and the panic region decoded (contract:
 * kp_nvram.h). */
#include "kp_nvram.h"
#include "text_span.h"
#include "kp_base64.h"
#include "kp_lex.h"
#include "kp_bytes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FUNK_MAGIC 0x46554E4Bu   /* embedded_panic_header, xnu osfmk/kern/debug.h */
#define DEED_MAGIC 0x44454544u   /* macos_panic_header */
#define FUNK_SIZE 44             /* through eph_other_log_len, packed */
#define DEED_SIZE 32             /* version 1: through mph_panic_log_len */
#define DEED_SIZE2 48            /* version 2+: also stackshot and other log */

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
	uint32_t magic = kp_le32(b);
	bool funk = magic == FUNK_MAGIC;
	size_t hsize = funk ? FUNK_SIZE : DEED_SIZE;
	if (n < hsize)
		return kp_error_set(err, KP_ERR_FORMAT, 0, 0, "%s header cut off: %zu of %zu bytes",
		                    funk ? "FUNK" : "DEED", n, hsize);
	out->has_header = true;
	out->form = funk ? "FUNK panic region" : "DEED panic region";
	out->version = kp_le32(b + 8);
	uint32_t off, len;
	if (funk) {
		out->flags = kp_le64(b + 12);
		off = kp_le32(b + 20);
		len = kp_le32(b + 24);
		out->stackshot_offset = kp_le32(b + 28);
		out->stackshot_len = kp_le32(b + 32);
		out->other_log_offset = kp_le32(b + 36);
		out->other_log_len = kp_le32(b + 40);
	} else {
		out->flags = kp_le64(b + 16);
		off = kp_le32(b + 24);
		len = kp_le32(b + 28);
		if (out->version >= 2 && n >= DEED_SIZE2) {
			out->stackshot_offset = kp_le32(b + 32);
			out->stackshot_len = kp_le32(b + 36);
			out->other_log_offset = kp_le32(b + 40);
			out->other_log_len = kp_le32(b + 44);
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
	if (n >= 4 && (kp_le32(b) == FUNK_MAGIC || kp_le32(b) == DEED_MAGIC)) {
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

/* ---- the variables: aapl,panic-info and the AAPL,PanicInfo chunks ------
 *
 * A panic log longer than one variable holds is split into
 * "AAPL,PanicInfo0000" .. "0009", "000K", "000L", ...: Apple's namer adds a
 * chunk's index to '0' below ten and to 'A' from ten on (not to 'A' - 10),
 * so chunk 10 is "000K".  Each holds up to 768 bytes of the packed log; the
 * bytes are joined in index order before anything is unpacked (a 7-byte
 * packA group can straddle two chunks).  Both nvram forms name a variable
 * with or without its GUID ("7C436110-...:AAPL,PanicInfo0000"). */
#define MAX_CHUNKS 64
#define WHOLE (-1)   /* aapl,panic-info */

struct var {
	int index;               /* chunk index, or WHOLE */
	unsigned char *b;        /* its bytes (malloc'd) */
	size_t n;
	bool cut;                /* the value ended mid-byte */
};

struct vars {
	struct var v[MAX_CHUNKS + 1];
	size_t n;
	bool extra;              /* more chunks than MAX_CHUNKS */
};

static void vars_free(struct vars *vs)
{
	for (size_t i = 0; i < vs->n; i++)
		free(vs->v[i].b);
	vs->n = 0;
}

/* The chunk index of the variable named name[0..len) (after any "GUID:"),
 * WHOLE for aapl,panic-info, -2 for any other variable. */
static int var_index(const char *name, size_t len)
{
	for (size_t i = len; i > 0; i--)
		if (name[i - 1] == ':') {
			name += i;
			len -= i;
			break;
		}
	if (len == 15 && strncasecmp(name, "aapl,panic-info", 15) == 0)
		return WHOLE;
	if (len != 18 || strncasecmp(name, "aapl,panicinfo000", 17) != 0)
		return -2;
	char c = name[17];
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'K' && c <= 'Z')
		return c - 'A';
	return -2;
}

static kp_status add_var(struct vars *vs, int index, unsigned char *b, size_t n, bool cut, kp_error *err)
{
	for (size_t i = 0; i < vs->n; i++)
		if (vs->v[i].index == index) {   /* a repeated name: the first is kept */
			free(b);
			return KP_OK;
		}
	if (vs->n > MAX_CHUNKS) {
		free(b);
		vs->extra = true;
		return KP_OK;
	}
	(void)err;
	vs->v[vs->n++] = (struct var){index, b, n, cut};
	return KP_OK;
}

/* `nvram -x`: each <key>NAME</key> of a panic variable and its <data>. */
static kp_status plist_vars(const char *data, size_t len, struct vars *vs, kp_error *err)
{
	const char *end = data + len, *p = data;
	while ((p = kp__span_find(p, end, "<key>")) != NULL) {
		const char *name = p + 5, *ke = kp__span_find(name, end, "</key>");
		if (!ke)
			break;
		p = ke + 6;
		int index = var_index(name, (size_t)(ke - name));
		if (index == -2)
			continue;
		const char *next = kp__span_find(p, end, "<key>");
		const char *d = kp__span_find(p, next ? next : end, "<data>");
		const char *de = d ? kp__span_find(d, next ? next : end, "</data>") : NULL;
		if (!d || !de)
			return kp_error_set(err, KP_ERR_FORMAT, line_of(data, name), name - data,
			                    "%.*s: no <data>...</data> after the key", (int)(ke - name), name);
		d += 6;
		unsigned char *b = malloc(kp_base64_max((size_t)(de - d)));
		size_t n = 0;
		bool cut = false;
		if (!b)
			return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
		if (!kp_base64_decode(d, (size_t)(de - d), false, b, &n)) {
			/* a paste cut inside a group: its whole bytes */
			const char *t = de;
			while (t > d && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r' || t[-1] == '\n'))
				t--;
			if (t == d || !kp_base64_decode(d, (size_t)(t - 1 - d), false, b, &n)) {
				free(b);
				return kp_error_set(err, KP_ERR_FORMAT, line_of(data, d), d - data,
				                    "%.*s: bad base64 in <data>", (int)(ke - name), name);
			}
			cut = true;
		}
		if (add_var(vs, index, b, n, cut, err) != KP_OK)
			return KP_ERR_NOMEM;
		p = de;
	}
	return KP_OK;
}

/* `nvram -p`: "NAME<TAB>bytes" with %xx escapes, to the end of the line. */
static kp_status printed_vars(const char *data, size_t len, struct vars *vs, kp_error *err)
{
	const char *end = data + len;
	for (const char *line = data; line < end;) {
		const char *eol = memchr(line, '\n', (size_t)(end - line));
		const char *next = eol ? eol + 1 : end, *e = eol ? eol : end;
		const char *sep = line;
		while (sep < e && *sep != '\t' && *sep != ' ')
			sep++;
		int index = sep < e ? var_index(line, (size_t)(sep - line)) : -2;
		if (index == -2) {
			line = next;
			continue;
		}
		const char *p = sep;
		while (p < e && (*p == '\t' || *p == ' '))
			p++;
		if (e > p && e[-1] == '\r')
			e--;
		unsigned char *b = malloc((size_t)(e - p) + 1);
		size_t n = 0;
		bool cut = false;
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
				if (e - q < 3 && (e - q < 2 || kp_hex_digit((unsigned char)q[1]) >= 0)) {
					cut = true;   /* a paste cut mid-byte: its whole bytes */
					break;
				}
				free(b);
				return kp_error_set(err, KP_ERR_FORMAT, line_of(data, q), q - data,
				                    "%.*s: '%%' without two hex digits", (int)(sep - line), line);
			}
			b[n++] = (unsigned char)(hi << 4 | lo);
			q += 2;
		}
		if (add_var(vs, index, b, n, cut, err) != KP_OK)
			return KP_ERR_NOMEM;
		line = next;
	}
	return KP_OK;
}

static int cmp_var(const void *a, const void *b)
{
	const struct var *x = a, *y = b;
	return (x->index > y->index) - (x->index < y->index);
}

static void warn(kp_nvram *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(kp_nvram *out, const char *fmt, ...)
{
	size_t used = strlen(out->warning);
	if (used + 3 >= sizeof out->warning)
		return;
	if (used)
		used += (size_t)snprintf(out->warning + used, sizeof out->warning - used, "; ");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out->warning + used, sizeof out->warning - used, fmt, ap);
	va_end(ap);
}

/* The log the variables hold: the chunks joined when there are any and
 * they hold more than aapl,panic-info (which a Mac may keep beside them,
 * cut short), else aapl,panic-info. */
static kp_status from_vars(struct vars *vs, const char *form, kp_nvram *out, kp_error *err)
{
	qsort(vs->v, vs->n, sizeof vs->v[0], cmp_var);
	const struct var *whole = vs->n && vs->v[0].index == WHOLE ? &vs->v[0] : NULL;
	const struct var *c = vs->v + (whole != NULL);
	size_t nc = vs->n - (whole != NULL), total = 0;
	for (size_t i = 0; i < nc; i++)
		total += c[i].n;
	if (nc && (!whole || total > whole->n)) {
		unsigned char *b = malloc(total ? total : 1);
		if (!b)
			return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
		size_t o = 0;
		int want = 0;
		for (size_t i = 0; i < nc; i++) {
			if (c[i].index != want)
				warn(out, "AAPL,PanicInfo chunks %d to %d are missing: the log has a hole there",
				     want, c[i].index - 1);
			if (c[i].cut)
				warn(out, "chunk %d was cut mid-byte: decoded up to its last whole byte", c[i].index);
			memcpy(b + o, c[i].b, c[i].n);
			o += c[i].n;
			want = c[i].index + 1;
		}
		if (vs->extra)
			warn(out, "more than %d AAPL,PanicInfo chunks: the rest are not read", MAX_CHUNKS);
		if (whole)
			warn(out, "aapl,panic-info (%zu bytes) is a shorter copy: the %zu chunks (%zu bytes) are read",
			     whole->n, nc, total);
		snprintf(out->form_buf, sizeof out->form_buf, "%s, %zu AAPL,PanicInfo chunks", form, nc);
		out->form = out->form_buf;
		kp_status st = from_bytes(b, o, out, err);
		free(b);
		return st;
	}
	if (!whole)
		return kp_error_set(err, KP_ERR_FORMAT, 0, 0, "no aapl,panic-info or AAPL,PanicInfo variable");
	if (whole->cut)
		warn(out, "aapl,panic-info was cut mid-byte: decoded up to its last whole byte");
	out->form = form;
	return from_bytes(whole->b, whole->n, out, err);
}

/* The bytes of one variable as they are: a raw dump, or an efivarfs file
 * (a 4-byte attribute word, then the bytes).  Taken only when they decode
 * to a panic log. */
static bool raw(const unsigned char *b, size_t len, kp_nvram *out)
{
	static const struct { size_t skip; const char *form; } tries[] = {
		{4, "efivarfs file"}, {0, "raw variable bytes"}};
	for (size_t t = 0; t < 2; t++) {
		size_t skip = tries[t].skip;
		if (len <= skip || (skip == 4 && kp_le32(b) > 0x7f))   /* EFI attribute bits */
			continue;
		kp_nvram tmp = {0};
		kp_error e;
		tmp.form = tries[t].form;
		if (from_bytes(b + skip, len - skip, &tmp, &e) == KP_OK &&
		    (kp__span_find(tmp.text, tmp.text + tmp.len, "panic") ||
		     kp__span_find(tmp.text, tmp.text + tmp.len, "Debugger"))) {
			*out = tmp;
			return true;
		}
		kp_nvram_free(&tmp);
	}
	return false;
}

kp_status kp_nvram_decode(const char *data, size_t len, kp_nvram *out, kp_error *err)
{
	memset(out, 0, sizeof *out);
	kp_error_clear(err);
	if (!len)
		return kp_error_set(err, KP_ERR_FORMAT, 0, 0, "empty input");
	const unsigned char *b = (const unsigned char *)data;
	kp_status st;
	if (len >= 4 && (kp_le32(b) == FUNK_MAGIC || kp_le32(b) == DEED_MAGIC)) {
		st = region(b, len, out, err);
	} else {
		const char *scan_end = data + (len < 65536 ? len : 65536);
		bool is_plist = kp__span_find(data, scan_end, "<plist") != NULL;
		struct vars vs = {0};
		st = is_plist ? plist_vars(data, len, &vs, err) : printed_vars(data, len, &vs, err);
		if (st == KP_OK && vs.n)
			st = from_vars(&vs, is_plist ? "nvram -x" : "nvram -p", out, err);
		else if (st == KP_OK && is_plist)
			st = kp_error_set(err, KP_ERR_FORMAT, 0, 0,
			                  "a property list without aapl,panic-info or AAPL,PanicInfo variables");
		else if (st == KP_OK && !raw(b, len, out))
			st = kp_error_set(err, KP_ERR_FORMAT, 0, 0,
			                  "not nvram output: no aapl,panic-info or AAPL,PanicInfo variable (nvram -x or "
			                  "nvram -p), no FUNK or DEED panic region header at offset 0, and no panic "
			                  "log in the bytes as they are");
		vars_free(&vs);
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
