/* archive.c: the archive format, one home for both directions (archive.h):
 * a report's original bytes zstd-compressed for the store (zlib-compressed
 * before: both read back), and checked against the stored size and hash
 * on the way back.  Packing may run on
 * the scanner's workers: nothing here is shared between threads (each
 * packs with a compressor of its own). */
#include "archive.h"
#include "kp_sha1.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

/* zstd level 1: the archive is a cold copy, read back only for export,
 * --resign, show @ID and superseding.  On the bench's reports it packs
 * 1.8x as fast as libdeflate's level 1 (which packed them before, in the
 * zlib format) to 0.15 of their size against 0.17: packing was a fifth of
 * a cold scan's CPU (issue 35).  Archives written before are zlib streams
 * and stay so: unpack tells the two apart by their first bytes. */
#define PACK_LEVEL 1

/* One compression context per thread, kept until the thread ends: making
 * one sets up tables of its own, as much work as packing a small report. */
static pthread_key_t cctx_key;
static pthread_once_t cctx_once = PTHREAD_ONCE_INIT;
static bool cctx_key_ok;

static void cctx_free(void *c)
{
	ZSTD_freeCCtx(c);
}

static void cctx_key_make(void)
{
	cctx_key_ok = pthread_key_create(&cctx_key, cctx_free) == 0;
}

/* This thread's context (NULL when out of memory); *own: the caller frees
 * it (no key to keep it under). */
static ZSTD_CCtx *cctx(bool *own)
{
	pthread_once(&cctx_once, cctx_key_make);
	ZSTD_CCtx *c = cctx_key_ok ? pthread_getspecific(cctx_key) : NULL;
	*own = false;
	if (c)
		return c;
	if (!(c = ZSTD_createCCtx()))
		return NULL;
	*own = !cctx_key_ok || pthread_setspecific(cctx_key, c) != 0;
	return c;
}

void *kpi__archive_pack(const char *data, size_t len, size_t *zlen)
{
	bool own;
	ZSTD_CCtx *c = cctx(&own);
	if (!c)
		return NULL;
	size_t n = ZSTD_compressBound(len);
	void *z = malloc(n);
	/* the frame records the size: a reader can tell a cut archive */
	n = z ? ZSTD_compressCCtx(c, z, n, data, len, PACK_LEVEL) : 0;
	if (own)
		ZSTD_freeCCtx(c);
	if (!z || ZSTD_isError(n)) { /* only when out of memory: the bound always fits */
		free(z);
		return NULL;
	}
	*zlen = n;
	return z;
}

/* Whether z is a zstd frame (magic 28 B5 2F FD); anything else is taken
 * for a zlib stream (0x78 ..., every archive before zstd). */
static bool is_zstd(const void *z, size_t zlen)
{
	static const unsigned char magic[4] = {0x28, 0xB5, 0x2F, 0xFD};
	return zlen >= 4 && memcmp(z, magic, 4) == 0;
}

/* z unpacked into buf (size bytes exactly); false when it is damaged or
 * unpacks to any other size. */
static bool unpack_into(const kpi__archive *a, char *buf, size_t size)
{
	if (is_zstd(a->z, a->zlen)) {
		/* one frame or more, all of it: a frame cut short or trailing
		 * bytes are errors, a longer content does not fit */
		size_t n = ZSTD_decompress(buf, size, a->z, a->zlen);
		return !ZSTD_isError(n) && n == size;
	}
	uLongf out = (uLongf)size;
	return uncompress((Bytef *)buf, &out, a->z, (uLong)a->zlen) == Z_OK && out == (uLongf)size;
}

char *kpi__archive_unpack(const kpi__archive *a, const char *what, size_t *len, kp_error *err)
{
	if (a->size < 0 || (uint64_t)a->size > KP_REPORT_MAX_SIZE) {
		kp_error_set(err, KP_ERR_DB, 0, -1,
		             "the archive of %s is damaged: its recorded size %lld is impossible", what,
		             (long long)a->size);
		return NULL;
	}
	size_t size = (size_t)a->size;
	char *buf = malloc(size + 1);
	if (!buf) {
		kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
		return NULL;
	}
	bool ok = unpack_into(a, buf, size);
	/* a SHA-256, or the SHA-1 of an index before schema 11 (kpi_store.h) */
	char got[KP_SHA256_HEX] = "";
	if (ok && strlen(a->hash) == 40)
		kp_sha1_hex(buf, size, got);
	else if (ok)
		KPI__CONTENT_HASH(buf, size, got);
	if (!ok || strcmp(got, a->hash) != 0) {
		free(buf);
		kp_error_set(err, KP_ERR_DB, 0, -1, "the archive of %s is damaged", what);
		return NULL;
	}
	buf[size] = '\0';
	*len = size;
	return buf;
}

char *kpi__archive_bytes(kpi_db *db, int64_t id, size_t *len, int64_t *group_id, kp_error *err)
{
	kpi__archive a = {0};
	if (db->ops->archive_get(db, id, &a, err) != KP_OK)
		return NULL;
	if (group_id)
		*group_id = a.group_id;
	char what[32];
	snprintf(what, sizeof what, "report @%lld", (long long)id);
	char *buf = kpi__archive_unpack(&a, what, len, err);
	free(a.z);
	return buf;
}

kp_status kpi__load_archived(kpi_db *db, int64_t id, kp_report **out, int64_t *group_id,
                             kp_error *err)
{
	size_t len;
	char *bytes = kpi__archive_bytes(db, id, &len, group_id, err);
	if (!bytes)
		return err ? err->code : KP_ERR_DB;
	kp_status st = kp_report_parse(bytes, len, NULL, out, err);
	free(bytes);
	return st;
}
