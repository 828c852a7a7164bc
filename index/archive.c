/* archive.c: the archive format, one home for both directions (archive.h):
 * a report's original bytes zlib-compressed for the store, and checked
 * against the stored size and hash on the way back.  Packing may run on
 * the scanner's workers: nothing here is shared between threads (each
 * packs with a compressor of its own). */
#include "archive.h"
#include "kp_sha1.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef KPI_HAVE_LIBDEFLATE
#include <libdeflate.h>
#include <pthread.h>
#include <stdbool.h>
#endif

/* Level 1: the archive is a cold copy, read back only for export,
 * --resign and show @ID.  zlib's level 1 is 1.6x level 6's speed for
 * archives a fifth larger (0.19 of the reports against 0.15).  Where the
 * build found libdeflate, its level 1 writes the same format (a zlib
 * stream: zlib reads it back, and kpbrowse built without it too) 2.4x as
 * fast as zlib's and smaller (0.17), the largest share of a cold index's
 * work otherwise (issue 25). */
#ifdef KPI_HAVE_LIBDEFLATE
/* One compressor per thread, kept until the thread ends: making one sets
 * up tables of its own, as much work as packing a small report (4% of a
 * cold scan of small reports, one per report). */
static pthread_key_t compressor_key;
static pthread_once_t compressor_once = PTHREAD_ONCE_INIT;
static bool compressor_key_ok;

static void compressor_free(void *c)
{
	libdeflate_free_compressor(c);
}

static void compressor_key_make(void)
{
	compressor_key_ok = pthread_key_create(&compressor_key, compressor_free) == 0;
}

/* This thread's compressor (NULL when out of memory); *own: the caller
 * frees it (no key to keep it under). */
static struct libdeflate_compressor *compressor(bool *own)
{
	pthread_once(&compressor_once, compressor_key_make);
	struct libdeflate_compressor *c = compressor_key_ok ? pthread_getspecific(compressor_key) : NULL;
	*own = false;
	if (c)
		return c;
	if (!(c = libdeflate_alloc_compressor(1)))
		return NULL;
	*own = !compressor_key_ok || pthread_setspecific(compressor_key, c) != 0;
	return c;
}

void *kpi__archive_pack(const char *data, size_t len, size_t *zlen)
{
	bool own;
	struct libdeflate_compressor *c = compressor(&own);
	if (!c)
		return NULL;
	size_t n = libdeflate_zlib_compress_bound(c, len);
	void *z = malloc(n ? n : 1);
	n = z ? libdeflate_zlib_compress(c, data, len, z, n) : 0;
	if (own)
		libdeflate_free_compressor(c);
	if (!n) { /* only when out of memory: the bound always fits */
		free(z);
		return NULL;
	}
	*zlen = n;
	return z;
}
#else
void *kpi__archive_pack(const char *data, size_t len, size_t *zlen)
{
	uLongf n = compressBound((uLong)len);
	Bytef *z = malloc(n);
	if (!z || compress2(z, &n, (const Bytef *)data, (uLong)len, 1) != Z_OK) {
		free(z);
		return NULL;
	}
	*zlen = (size_t)n;
	return z;
}
#endif

char *kpi__archive_unpack(const kpi__archive *a, const char *what, size_t *len, kp_error *err)
{
	if (a->size < 0 || (uint64_t)a->size > KP_REPORT_MAX_SIZE) {
		kp_error_set(err, KP_ERR_DB, 0, -1,
		             "the archive of %s is damaged: its recorded size %lld is impossible", what,
		             (long long)a->size);
		return NULL;
	}
	char *buf = malloc((size_t)a->size + 1);
	if (!buf) {
		kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
		return NULL;
	}
	uLongf out = (uLongf)a->size;
	int zr = uncompress((Bytef *)buf, &out, a->z, (uLong)a->zlen);
	/* a SHA-256, or the SHA-1 of an index before schema 11 (kpi_store.h) */
	char got[KP_SHA256_HEX] = "";
	if (zr == Z_OK && strlen(a->hash) == 40)
		kp_sha1_hex(buf, (size_t)out, got);
	else if (zr == Z_OK)
		KPI__CONTENT_HASH(buf, (size_t)out, got);
	if (zr != Z_OK || out != (uLongf)a->size || strcmp(got, a->hash) != 0) {
		free(buf);
		kp_error_set(err, KP_ERR_DB, 0, -1, "the archive of %s is damaged", what);
		return NULL;
	}
	buf[a->size] = '\0';
	*len = (size_t)a->size;
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
