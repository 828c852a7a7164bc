/* test_base.c: the base library's helpers (kp_fs, kp_vec, kp_strbuf,
 * kp_lex, kp_utf8, kp_sha1, kp_sha256), one function per behaviour. */
#include "kp_base64.h"
#include "kp_bytes.h"
#include "kp_fs.h"
#include "kp_hash.h"
#include "kp_htab.h"
#include "kp_json.h"
#include "kp_lex.h"
#include "kp_sha1.h"
#include "kp_sha256.h"
#include "kp_strbuf.h"
#include "kp_utf8.h"
#include "kp_vec.h"
#include "kt.h"
#include "kt_slurp.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[256];

static void put_file(const char *path, const char *s)
{
	FILE *fp = fopen(path, "w");
	if (fp) {
		fputs(s, fp);
		fclose(fp);
	}
}

static void read_file_whole(void)
{
	char p[512], *buf;
	size_t len;
	struct stat st;
	kp_error e;
	snprintf(p, sizeof p, "%s/a.txt", dir);
	put_file(p, "hello\n");
	KT_CHECK(kp_fs_read_file(p, 100, &buf, &len, &st, &e) == KP_OK, "read_file reads a file");
	KT_CHECK(len == 6 && buf && strcmp(buf, "hello\n") == 0 && st.st_size == 6,
	         "read_file: bytes, NUL and stat");
	free(buf);
}

static void read_file_limit(void)
{
	char p[512], *buf;
	size_t len;
	kp_error e;
	snprintf(p, sizeof p, "%s/a.txt", dir);
	put_file(p, "hello\n");
	KT_CHECK(kp_fs_read_file(p, 6, &buf, &len, NULL, &e) == KP_OK, "size == limit is read");
	free(buf);
	KT_CHECK(kp_fs_read_file(p, 5, &buf, &len, NULL, &e) == KP_ERR_LIMIT && !buf,
	         "size > limit is KP_ERR_LIMIT");
	KT_CHECK(strstr(e.msg, "too large") != NULL, "limit message: %s", e.msg);
}

static void read_file_not_regular(void)
{
	char p[512], *buf;
	size_t len;
	kp_error e;
	KT_CHECK(kp_fs_read_file(dir, 1 << 20, &buf, &len, NULL, &e) == KP_ERR_IO &&
	         strcmp(e.msg, "is a directory") == 0, "a directory is KP_ERR_IO: %s", e.msg);
	snprintf(p, sizeof p, "%s/fifo", dir);
	KT_CHECK(mkfifo(p, 0600) == 0, "mkfifo");
	KT_CHECK(kp_fs_read_file(p, 1 << 20, &buf, &len, NULL, &e) == KP_ERR_IO &&
	         strcmp(e.msg, "not a regular file") == 0, "a FIFO is KP_ERR_IO without hanging: %s",
	         e.msg);
	snprintf(p, sizeof p, "%s/missing", dir);
	KT_CHECK(kp_fs_read_file(p, 1 << 20, &buf, &len, NULL, &e) == KP_ERR_IO,
	         "a missing file is KP_ERR_IO");
}

static void mkdirs_nested(void)
{
	char p[512];
	struct stat st;
	kp_error e;
	snprintf(p, sizeof p, "%s/x/y/z", dir);
	KT_CHECK(kp_fs_mkdirs(p, 0755, &e) == KP_OK && stat(p, &st) == 0 && S_ISDIR(st.st_mode),
	         "mkdirs creates every level");
	KT_CHECK(kp_fs_mkdirs(p, 0755, &e) == KP_OK, "mkdirs on an existing folder is fine");
	snprintf(p, sizeof p, "%s/m/n/file.bin", dir);
	KT_CHECK(kp_fs_mkdirs_for(p, 0755, &e) == KP_OK, "mkdirs_for");
	snprintf(p, sizeof p, "%s/m/n", dir);
	KT_CHECK(stat(p, &st) == 0 && S_ISDIR(st.st_mode), "mkdirs_for made the parent only");
	snprintf(p, sizeof p, "%s/a.txt/sub", dir);
	KT_CHECK(kp_fs_mkdirs(p, 0755, &e) == KP_ERR_IO, "mkdirs below a file fails");
}

static void write_atomic_replaces(void)
{
	char p[512], *buf;
	size_t len;
	kp_error e;
	snprintf(p, sizeof p, "%s/w.txt", dir);
	put_file(p, "old");
	KT_CHECK(kp_fs_write_atomic(p, "new!", 4, &e) == KP_OK, "write_atomic");
	KT_CHECK(kp_fs_read_file(p, 100, &buf, &len, NULL, &e) == KP_OK && len == 4 &&
	         memcmp(buf, "new!", 4) == 0, "write_atomic replaced the content");
	free(buf);
	/* the unsynced form (symbol caches) replaces alike */
	KT_CHECK(kp_fs_write_atomic_unsynced(p, "newer", 5, &e) == KP_OK, "write_atomic_unsynced");
	KT_CHECK(kp_fs_read_file(p, 100, &buf, &len, NULL, &e) == KP_OK && len == 5 &&
	         memcmp(buf, "newer", 5) == 0, "write_atomic_unsynced replaced the content");
	free(buf);
	snprintf(p, sizeof p, "%s/nodir/w.txt", dir);
	KT_CHECK(kp_fs_write_atomic(p, "x", 1, &e) == KP_ERR_IO, "write_atomic into a missing folder");
	KT_CHECK(kp_fs_write_atomic_unsynced(p, "x", 1, &e) == KP_ERR_IO,
	         "write_atomic_unsynced into a missing folder");
}

static void write_atomic_symlink_not_followed(void)
{
	char p[512], tmp[600], victim[512], *buf;
	size_t len;
	kp_error e;
	snprintf(p, sizeof p, "%s/s.txt", dir);
	snprintf(victim, sizeof victim, "%s/victim", dir);
	put_file(victim, "untouched");
	/* the first temporary name write_atomic tries */
	snprintf(tmp, sizeof tmp, "%s.%ld.0.tmp", p, (long)getpid());
	KT_CHECK(symlink(victim, tmp) == 0, "plant a symlink at the temporary name");
	KT_CHECK(kp_fs_write_atomic(p, "data", 4, &e) == KP_OK, "write_atomic beside a planted link");
	KT_CHECK(kp_fs_read_file(victim, 100, &buf, &len, NULL, &e) == KP_OK &&
	         strcmp(buf, "untouched") == 0, "the link's target is untouched");
	free(buf);
	KT_CHECK(kp_fs_read_file(p, 100, &buf, &len, NULL, &e) == KP_OK && strcmp(buf, "data") == 0,
	         "the file got the data");
	free(buf);
	struct stat st;
	KT_CHECK(lstat(tmp, &st) == 0 && S_ISLNK(st.st_mode), "the planted link is left alone");
	unlink(tmp);
}

static void atomic_abort_removes_temp(void)
{
	char p[512], tmp[600];
	kp_error e;
	kp_fs_atomic a;
	snprintf(p, sizeof p, "%s/abort.txt", dir);
	KT_CHECK(kp_fs_atomic_open(&a, p, &e) == KP_OK, "atomic_open");
	snprintf(tmp, sizeof tmp, "%s", a.tmp);
	fputs("partial", a.fp);
	kp_fs_atomic_abort(&a);
	KT_CHECK(access(tmp, F_OK) != 0 && access(p, F_OK) != 0,
	         "abort removes the temporary and creates nothing");
}

/* issue 32: a writer killed before its rename leaves <path>.<pid>.<n>.tmp;
 * the next write of path removes it when that pid is gone, and leaves a
 * live process's alone */
static void atomic_sweeps_stale(void)
{
	char p[512], dead[600], live[600], other[600];
	kp_error e;
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	snprintf(p, sizeof p, "%s/UUID.kpsym", dir);
	snprintf(dead, sizeof dead, "%s.%ld.0.tmp", p, (long)child);
	snprintf(live, sizeof live, "%s.%ld.0.tmp", p, (long)getppid());
	snprintf(other, sizeof other, "%s.%ld.0.tmp.keep", p, (long)child);
	const char *made[] = {dead, live, other};
	for (int i = 0; i < 3; i++) {
		FILE *f = fopen(made[i], "w");
		if (f)
			fclose(f);
	}
	KT_CHECK(kp_fs_write_atomic(p, "x", 1, &e) == KP_OK, "write_atomic beside stale temporaries");
	KT_CHECK(access(dead, F_OK) != 0, "a dead writer's temporary is removed");
	KT_CHECK(access(live, F_OK) == 0, "a live writer's temporary is left");
	KT_CHECK(access(other, F_OK) == 0, "a name of another shape is left");
	unlink(live);
	unlink(other);
	unlink(p);
}

static void mtime(void)
{
	struct stat st = {0};
	st.st_mtime = 2;
#ifdef __APPLE__
	st.st_mtimespec.tv_nsec = 5;
#else
	st.st_mtim.tv_nsec = 5;
#endif
	KT_CHECK(kp_fs_mtime_ns(&st) == 2000000005 && kp_fs_mtime_nsec(&st) == 5, "mtime in ns");
}

static void dir_names_sorted(void)
{
	char d[300], p[400];
	snprintf(d, sizeof d, "%s/names", dir);
	mkdir(d, 0700);
	const char *mk[] = {"b", "a.ips", "B", ".hidden", "z", "a"};
	for (size_t i = 0; i < sizeof mk / sizeof *mk; i++) {
		snprintf(p, sizeof p, "%s/%s", d, mk[i]);
		put_file(p, "x");
	}
	char **names;
	size_t n;
	kp_error err;
	kp_status st = kp_fs_dir_names(d, &names, &n, &err);
	char got[200] = "";
	for (size_t i = 0; st == KP_OK && i < n; i++) {
		strcat(got, names[i]);
		strcat(got, " ");
	}
	KT_CHECK(st == KP_OK && strcmp(got, ".hidden B a a.ips b z ") == 0,
	         "folder names: sorted bytewise, without . and .. (got '%s')", got);
	kp_fs_names_free(names, n);

	snprintf(d, sizeof d, "%s/empty", dir);
	mkdir(d, 0700);
	st = kp_fs_dir_names(d, &names, &n, &err);
	KT_CHECK(st == KP_OK && n == 0 && names == NULL, "an empty folder: no names");

	snprintf(d, sizeof d, "%s/no-such-folder", dir);
	st = kp_fs_dir_names(d, &names, &n, &err);
	KT_CHECK(st == KP_ERR_IO && strstr(err.msg, "cannot open folder") && n == 0 && names == NULL,
	         "a missing folder: KP_ERR_IO, nothing handed out (%s)", err.msg);
}

static void vec_push_grows(void)
{
	int *v = NULL;
	size_t n = 0, cap = 0;
	bool ok = true;
	for (int i = 0; i < 1000 && ok; i++) {
		int *e = kp_vec_push((void **)&v, &n, &cap, sizeof *v);
		ok = e && *e == 0;
		if (e)
			*e = i;
	}
	KT_CHECK(ok && n == 1000 && cap >= 1000 && v[999] == 999 && v[0] == 0,
	         "vec_push: zeroed elements, growth keeps the old ones");
	kp_vec_shrink((void **)&v, &cap, n, sizeof *v);
	KT_CHECK(cap == 1000 && v[500] == 500, "vec_shrink drops the slack");
	KT_CHECK(!kp_vec_reserve((void **)&v, &cap, SIZE_MAX / 2, sizeof *v) && cap == 1000,
	         "vec_reserve refuses an overflowing size and keeps the array");
	free(v);
}

static void strbuf_builds(void)
{
	kp_sb b = {0};
	char *s = kp_sb_take(&b);
	KT_STREQ(s, "", "an empty strbuf takes as \"\"");
	free(s);
	for (int i = 0; i < 100; i++)
		kp_sb_str(&b, "abc");
	KT_CHECK(b.n == 300 && strlen(b.s) == 300, "strbuf appends and NUL-terminates");
	kp_sb_reset(&b);
	kp_sb_add(&b, "xy", 1);
	s = kp_sb_take(&b);
	KT_STREQ(s, "x", "reset then add");
	KT_CHECK(b.s == NULL && b.n == 0, "take empties the strbuf");
	free(s);
	b.oom = true;
	KT_CHECK(!kp_sb_str(&b, "z") && kp_sb_take(&b) == NULL, "out of memory is sticky");
}

static void uuid_canon(void)
{
	char u[37];
	KT_CHECK(kp_uuid_canon("7c461edeb045324bb329721bed992270", 32, u), "uuid without dashes");
	KT_STREQ(u, "7C461EDE-B045-324B-B329-721BED992270", "canonical uuid");
	KT_CHECK(kp_uuid_canon("7C461EDE-B045-324B-B329-721BED992270", 36, u), "uuid with dashes");
	KT_CHECK(!kp_uuid_canon("xxxx", 4, u), "bad uuid rejected");
	KT_CHECK(!kp_uuid_canon("7c461edeb045324bb329721bed99227g", 32, u), "non-hex digit rejected");
	KT_CHECK(!kp_uuid_canon("7c461edeb045324bb329721bed99227", 31, u), "short uuid rejected");
	KT_CHECK(!kp_uuid_canon("7c461edeb045324bb329721bed9922700", 33, u), "long uuid rejected");
}

static void parse_u64(void)
{
	uint64_t v = 0;
	KT_CHECK(kp_parse_u64("18446744005165581456", 20, &v), "decimal > 2^63");
	KT_U64EQ(v, 18446744005165581456ull, "decimal value");
	KT_CHECK(kp_parse_u64("18446744073709551615", 20, &v) && v == UINT64_MAX, "2^64-1");
	KT_CHECK(!kp_parse_u64("18446744073709551616", 20, &v), "2^64 overflows");
	KT_CHECK(kp_parse_u64("0xfffffe00441b5ee4", 18, &v) && v == 0xfffffe00441b5ee4ull, "hex");
	KT_CHECK(kp_parse_u64("0X1F", 4, &v) && v == 31, "upper-case 0X");
	KT_CHECK(!kp_parse_u64("0x", 2, &v), "bare 0x rejected");
	KT_CHECK(!kp_parse_u64("1a", 2, &v), "hex digits without 0x are junk");
	KT_CHECK(!kp_parse_u64("", 0, &v), "empty rejected");
}

static void utf8_decode(void)
{
	uint32_t cp;
	KT_CHECK(kp_utf8_decode((const unsigned char *)"\xE2\x80\xAE", 3, &cp) == 3 && cp == 0x202E,
	         "decode a 3-byte sequence");
	KT_CHECK(kp_utf8_decode((const unsigned char *)"\xF3\xA0\x80\x81", 4, &cp) == 4 &&
	         cp == 0xE0001, "decode a 4-byte sequence");
	KT_CHECK(kp_utf8_decode((const unsigned char *)"\xC0\xAF", 2, &cp) == 1 && cp == 0xFFFD,
	         "overlong: U+FFFD, one byte");
	KT_CHECK(kp_utf8_decode((const unsigned char *)"\xED\xA0\x80", 3, &cp) == 1 && cp == 0xFFFD,
	         "surrogate: U+FFFD, one byte");
	KT_CHECK(kp_utf8_decode((const unsigned char *)"\xE2\x80", 2, &cp) == 1 && cp == 0xFFFD,
	         "cut off: U+FFFD, one byte");
	KT_CHECK(kp_utf8_decode((const unsigned char *)"\xEF\xBF\xBD", 3, &cp) == 3 && cp == 0xFFFD,
	         "a literal U+FFFD is three bytes");
	char out[4];
	KT_CHECK(kp_utf8_encode(0xE0001, out) == 4 && memcmp(out, "\xF3\xA0\x80\x81", 4) == 0,
	         "encode round-trips");
}

static void unsafe_rule(void)
{
	static const uint32_t bad[] = {0x00, 0x1B, 0x7F, 0x85, 0x9B, 0x061C, 0x200E, 0x200F,
	                               0x202E, 0x2066, 0x2069, 0x2028, 0x2029, 0xFEFF, 0xFFF9,
	                               0xE0001, 0xE007F,
	                               /* invisible look-alikes (issue 19 item 7) */
	                               0x200B, 0x200C, 0x200D, 0x2060, 0x2064, 0x206A, 0x206F,
	                               0x180E, 0x00AD, 0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0,
	                               0x1D173, 0x1D17A,
	                               /* the rest of Default_Ignorable_Code_Point and the
	                                * hieroglyph format controls (issue 32 item 3) */
	                               0xFE00, 0xFE0F, 0x180B, 0x180D, 0x180F, 0x17B4, 0x17B5,
	                               0x2065, 0xFFF0, 0xFFF8, 0x1BCA0, 0x1BCA3, 0x13430, 0x1343F,
	                               0xE0080, 0xE0100, 0xE01EF, 0xE0FFF};
	static const uint32_t good[] = {'A', ' ', 0xA0, 0xE9, 0x20AC, 0xFFFD, 0x1F600, 0xE1000,
	                                0x2070, 0x1D172, 0x1D17B, 0x3165, 0x00AE, 0xFE10, 0xFDFF,
	                                0x180A, 0x17B3, 0x17B6, 0x1342F, 0x13440, 0x1BC9F, 0x1BCA4,
	                                0xFFFC, 0xDFFFF};
	bool ok = true;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		ok &= kp_text_cp_unsafe(bad[i]);
	KT_CHECK(ok, "controls, bidi, separators, BOM, tags and invisible look-alikes are unsafe");
	ok = true;
	for (size_t i = 0; i < sizeof good / sizeof *good; i++)
		ok &= !kp_text_cp_unsafe(good[i]);
	KT_CHECK(ok, "ordinary text is safe");
	KT_CHECK(kp_text_has_unsafe("com.x.Fake\xEF\xB8\x8F" "Driver", 20), "a name holding U+FE0F is flagged");
	KT_CHECK(kp_text_has_unsafe("Fake\xF3\xA0\x84\x80", 8), "a name holding U+E0100 is flagged");
	KT_CHECK(!kp_text_has_unsafe("com.x.Caf\xC3\xA9\xFF", 12), "accents and a bad byte are not flagged");
}

static void sha1(void)
{
	char hex[41];
	kp_sha1_hex("abc", 3, hex);
	KT_STREQ(hex, "a9993e364706816aba3e25717850c26c9cd0d89d", "sha1(abc)");
	kp_sha1_hex("", 0, hex);
	KT_STREQ(hex, "da39a3ee5e6b4b0d3255bfef95601890afd80709", "sha1()");
	const char *q = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	kp_sha1_hex(q, strlen(q), hex);
	KT_STREQ(hex, "84983e441c3bd26ebaae4aa1f95129e5e54670f1", "sha1(448 bits)");
}

static void sha1_in_pieces(void)
{
	char *mil = malloc(1000000);
	if (!mil)
		return;
	memset(mil, 'a', 1000000);
	kp_sha1 s;
	kp_sha1_init(&s);
	for (size_t off = 0; off < 1000000; off += 7)
		kp_sha1_update(&s, mil + off, off + 7 <= 1000000 ? 7 : 1000000 - off);
	uint8_t d[20];
	char hex[41];
	kp_sha1_final(&s, d);
	kp_sha1_to_hex(d, hex);
	KT_STREQ(hex, "34aa973cd4c4daa4f61eeb2bdbad27316534016f", "sha1(million a) in pieces");
	free(mil);
}

/* The CPU's SHA instructions (where there are) and the portable code give
 * the same digests: the vectors again without them, then every length
 * from 0 to 300 and a few large ones over pseudo-random bytes, at once and
 * in uneven pieces, both ways. */
static void sha1_cpu_and_portable(void)
{
	bool cpu = kp_sha1_use_cpu(true);
	printf("# %s\n", cpu ? "the CPU's SHA instructions are used" : "no SHA instructions: portable code only");
	kp_sha1_use_cpu(false);
	sha1();
	sha1_in_pieces();
	size_t cap = 70000;
	unsigned char *b = malloc(cap);
	if (!b)
		return;
	uint32_t x = 2463534242u;
	for (size_t i = 0; i < cap; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		b[i] = (unsigned char)x;
	}
	bool same = true;
	for (size_t len = 0; len <= 70000; len = len < 300 ? len + 1 : len * 3 + 17) {
		char a[41], c[41], pieces[41];
		kp_sha1_use_cpu(false);
		kp_sha1_hex(b, len, a);
		kp_sha1_use_cpu(true);
		kp_sha1_hex(b, len, c);
		kp_sha1 s;
		kp_sha1_init(&s);
		for (size_t off = 0, step = 1; off < len; off += step, step = step * 2 + 3)
			kp_sha1_update(&s, b + off, off + step <= len ? step : len - off);
		uint8_t d[20];
		kp_sha1_final(&s, d);
		kp_sha1_to_hex(d, pieces);
		if (strcmp(a, c) != 0 || strcmp(a, pieces) != 0) {
			same = false;
			printf("# length %zu: portable %s, cpu %s, in pieces %s\n", len, a, c, pieces);
		}
	}
	KT_CHECK(same, "the same digest with and without the CPU's instructions, at once and in pieces");
	free(b);
}

/* FIPS 180-4's examples and NIST's CAVS vectors for SHA-256: one block,
 * none, 448 and 896 bits (two blocks), a million 'a's in pieces. */
static void sha256(void)
{
	char hex[KP_SHA256_HEX];
	kp_sha256_hex("abc", 3, hex);
	KT_STREQ(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "sha256(abc)");
	kp_sha256_hex("", 0, hex);
	KT_STREQ(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "sha256()");
	const char *q = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	kp_sha256_hex(q, strlen(q), hex);
	KT_STREQ(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", "sha256(448 bits)");
	q = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
	    "mnopqrstnopqrstu";
	kp_sha256_hex(q, strlen(q), hex);
	KT_STREQ(hex, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1", "sha256(896 bits)");
	char *mil = malloc(1000000);
	if (!mil)
		return;
	memset(mil, 'a', 1000000);
	kp_sha256 s;
	kp_sha256_init(&s);
	for (size_t off = 0; off < 1000000; off += 7)
		kp_sha256_update(&s, mil + off, off + 7 <= 1000000 ? 7 : 1000000 - off);
	uint8_t d[32];
	kp_sha256_final(&s, d);
	kp_sha256_to_hex(d, hex);
	KT_STREQ(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", "sha256(million a) in pieces");
	free(mil);
}

/* As sha1_cpu_and_portable: the vectors without the CPU's instructions,
 * then every length 0..300 and some large ones, at once and in pieces. */
static void sha256_cpu_and_portable(void)
{
	bool cpu = kp_sha256_use_cpu(true);
	printf("# sha256: %s\n", cpu ? "the CPU's SHA instructions are used" : "portable code only");
	kp_sha256_use_cpu(false);
	sha256();
	size_t cap = 70000;
	unsigned char *b = malloc(cap);
	if (!b)
		return;
	uint32_t x = 88172645u;
	for (size_t i = 0; i < cap; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		b[i] = (unsigned char)x;
	}
	bool same = true;
	for (size_t len = 0; len <= 70000; len = len < 300 ? len + 1 : len * 3 + 17) {
		char a[KP_SHA256_HEX], c[KP_SHA256_HEX], pieces[KP_SHA256_HEX];
		kp_sha256_use_cpu(false);
		kp_sha256_hex(b, len, a);
		kp_sha256_use_cpu(true);
		kp_sha256_hex(b, len, c);
		kp_sha256 s;
		kp_sha256_init(&s);
		for (size_t off = 0, step = 1; off < len; off += step, step = step * 2 + 3)
			kp_sha256_update(&s, b + off, off + step <= len ? step : len - off);
		uint8_t d[32];
		kp_sha256_final(&s, d);
		kp_sha256_to_hex(d, pieces);
		if (strcmp(a, c) != 0 || strcmp(a, pieces) != 0) {
			same = false;
			printf("# length %zu: portable %s, cpu %s, in pieces %s\n", len, a, c, pieces);
		}
	}
	KT_CHECK(same, "sha256: the same digest with and without the CPU's instructions, at once and in pieces");
	free(b);
}

/* kp_hash.h: names made to share the low 12 bits of plain FNV-1a (the
 * slot a table of 4,096 probes from), as a hostile dSYM or folder could
 * be, spread over the slots of the keyed hash; the two forms agree. */
static uint64_t plain_fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void hash_keyed(void)
{
	enum { N = 512, BITS = 12 };
	static char names[N][16];
	static unsigned short load[1u << BITS];
	int n = 0;
	for (unsigned i = 0; n < N && i < 100000000u; i++) {
		char b[16];
		snprintf(b, sizeof b, "s%u", i);
		if ((plain_fnv1a(b) & ((1u << BITS) - 1)) == 0)
			memcpy(names[n++], b, sizeof b);
	}
	int most = 0;
	bool same = true;
	for (int i = 0; i < n; i++) {
		uint64_t h = kp_hash_str(names[i]);
		same = same && h == kp_hash_bytes(names[i], strlen(names[i]));
		int l = ++load[h & ((1u << BITS) - 1)];
		most = l > most ? l : most;
	}
	/* 512 keys in 4,096 slots: a slot of 7 has odds of about 1 in 2.5 million */
	KT_CHECK(n == N && most <= 6, "keyed hash: %d names one slot apart under plain FNV-1a, at most %d in a slot",
	         n, most);
	KT_CHECK(same && kp_hash_seed() != 0 && kp_hash_seed() == kp_hash_seed(),
	         "keyed hash: bytes and string forms agree, one seed per process");
}

/* RFC 4648 section 10's vectors, strict and lenient, and what is refused. */
static void base64(void)
{
	static const struct {
		const char *in, *out;
	} ok[] = {
		{"", ""}, {"Zg==", "f"}, {"Zm8=", "fo"}, {"Zm9v", "foo"}, {"Zm9vYg==", "foob"},
		{"Zm9vYmE=", "fooba"}, {"Zm9vYmFy", "foobar"},
	};
	unsigned char out[64];
	size_t n;
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		bool good = kp_base64_decode(ok[i].in, strlen(ok[i].in), true, out, &n);
		KT_CHECK(good && n == strlen(ok[i].out) && memcmp(out, ok[i].out, n) == 0, "base64 \"%s\"", ok[i].in);
	}
	KT_CHECK(kp_base64_decode("Zm9v\nYmE", 8, false, out, &n) && n == 5 && memcmp(out, "fooba", 5) == 0,
	         "lenient: a newline inside, padding missing");
	KT_CHECK(!kp_base64_decode("Zm9vYmE", 7, true, out, &n), "strict: padding missing");
	KT_CHECK(!kp_base64_decode("Zm9v YmE=", 9, true, out, &n), "strict: a blank");
	KT_CHECK(!kp_base64_decode("Zg==Zg==", 8, true, out, &n), "data after padding");
	KT_CHECK(!kp_base64_decode("Z===", 4, true, out, &n), "a one-character group");
	KT_CHECK(!kp_base64_decode("Zm9v!A==", 8, false, out, &n), "a character outside the alphabet");
	unsigned char all[256], enc[400], back[kp_base64_max(400)];
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t e = 0;
	for (int i = 0; i < 256; i++)
		all[i] = (unsigned char)i;
	for (size_t i = 0; i < 256; i += 3) {   /* encoded by hand: the decoder's inverse */
		unsigned v = (unsigned)all[i] << 16 | (i + 1 < 256 ? (unsigned)all[i + 1] << 8 : 0) | (i + 2 < 256 ? all[i + 2] : 0);
		enc[e++] = (unsigned char)a[v >> 18 & 63];
		enc[e++] = (unsigned char)a[v >> 12 & 63];
		enc[e++] = i + 1 < 256 ? (unsigned char)a[v >> 6 & 63] : '=';
		enc[e++] = i + 2 < 256 ? (unsigned char)a[v & 63] : '=';
	}
	KT_CHECK(kp_base64_decode((const char *)enc, e, true, back, &n) && n == 256 && memcmp(back, all, 256) == 0,
	         "every byte value round trips");
}

/* kp_json_str: escapes, a surrogate pair, a lone one (U+FFFD), \u0000 (a
 * NUL), decoded in place; a bad escape refused. */
static void json_str_in_place(void)
{
	char buf[] = "\"a\\\"b\\\\c\\/\\n\\t\\u00e9\\ud83d\\ude00\\ud800x\\u0000y\"";
	size_t n = kp_json_str(buf, buf + strlen(buf), buf);
	static const char want[] = "a\"b\\c/\n\t\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdx\0y";
	KT_CHECK(n == sizeof want - 1 && memcmp(buf, want, n) == 0 && buf[n] == '\0',
	         "json string decoded in place (length %zu, want %zu)", n, sizeof want - 1);
	char bad[] = "\"a\\qb\"", cut[] = "\"a\\u12\"", noq[] = "abc";
	KT_CHECK(kp_json_str(bad, bad + strlen(bad), bad) == (size_t)-1, "json string: \\q refused");
	KT_CHECK(kp_json_str(cut, cut + strlen(cut), cut) == (size_t)-1, "json string: short \\u refused");
	KT_CHECK(kp_json_str(noq, noq + 3, noq) == (size_t)-1, "json string: no quotes refused");
}

/* kp_htab.h over strings in one buffer (values: offset + 1), as the
 * symbol cache builder's table: grows from 16 slots, finds every one,
 * keeps its load at 1/2 at most, refuses a second copy. */
static char htab_buf[20000 * 8];
static bool htab_eq(const void *ctx, uint32_t v, const void *key)
{
	return strcmp((const char *)ctx + v - 1, key) == 0;
}
static uint64_t htab_hash(const void *ctx, uint32_t v)
{
	return kp_hash_str((const char *)ctx + v - 1);
}
static void htab_strings(void)
{
	kp_htab t = {0};
	size_t at = 0, inserts = 20000;
	bool ok = true;
	for (size_t i = 0; i < inserts; i++) {
		char key[8];
		snprintf(key, sizeof key, "k%zu", i % 10000);   /* each twice */
		ok &= kp_htab_room(&t, 16, htab_hash, htab_buf);
		size_t j = kp_htab_probe(&t, kp_hash_str(key), htab_eq, htab_buf, key);
		if (!t.slot[j]) {
			memcpy(htab_buf + at, key, strlen(key) + 1);
			kp_htab_put(&t, j, (uint32_t)at + 1);
			at += strlen(key) + 1;
		}
	}
	KT_CHECK(ok && t.n == 10000, "htab: 10000 distinct of 20000 inserts (%zu)", t.n);
	KT_CHECK(t.cap >= 2 * t.n && (t.cap & (t.cap - 1)) == 0, "htab: grown to %zu slots, a power of two, load <= 1/2",
	         t.cap);
	size_t found = 0;
	for (size_t i = 0; i < 10000; i++) {
		char key[8];
		snprintf(key, sizeof key, "k%zu", i);
		uint32_t v = t.slot[kp_htab_probe(&t, kp_hash_str(key), htab_eq, htab_buf, key)];
		found += v && strcmp(htab_buf + v - 1, key) == 0;
	}
	KT_CHECK(found == 10000, "htab: every key found at its value (%zu)", found);
	KT_CHECK(!t.slot[kp_htab_probe(&t, kp_hash_str("k10000"), htab_eq, htab_buf, "k10000")],
	         "htab: an absent key lands on an empty slot");
	kp_htab_free(&t);
	KT_CHECK(!t.slot && !t.cap && !t.n, "htab: freed and empty");
}

/* kp_bytes.h: each order, each width, at an odd (unaligned) address. */
static void bytes_orders(void)
{
	unsigned char b[17] = {0xee, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0xf9};
	const unsigned char *p = b + 1;
	KT_U64EQ(kp_le32(p), 0x04030201u, "kp_le32");
	KT_U64EQ(kp_be32(p), 0x01020304u, "kp_be32");
	KT_U64EQ(kp_le64(p), 0x0807060504030201u, "kp_le64");
	KT_U64EQ(kp_be64(p), 0x0102030405060708u, "kp_be64");
	KT_U64EQ(kp_le32(b + 6), 0xf9080706u, "kp_le32: the top byte's high bit kept (no sign)");
	KT_U64EQ(kp_le_uint(p, 3), 0x030201u, "kp_le_uint of 3 bytes");
	KT_U64EQ(kp_be_uint(p, 3), 0x010203u, "kp_be_uint of 3 bytes");
	KT_U64EQ(kp_le_uint(p, 8), kp_le64(p), "kp_le_uint of 8 bytes is kp_le64");
	KT_U64EQ(kp_be_uint(p, 8), kp_be64(p), "kp_be_uint of 8 bytes is kp_be64");
	KT_U64EQ(kp_le_uint(p, 0) + kp_be_uint(p, 0), 0, "0 bytes: 0");
	unsigned char w[9] = {0};
	kp_put_le(w + 1, 0x1122334455667788u, 8);
	KT_U64EQ(kp_le64(w + 1), 0x1122334455667788u, "kp_put_le then kp_le64");
	kp_put_le(w, 0xaabbccdd, 2);
	KT_CHECK(w[0] == 0xdd && w[1] == 0xcc && w[2] == 0x77, "kp_put_le of 2 bytes writes only those");
}

/* One skip_memo answer against kp_json_skip's from the same place and end:
 * the same end, or the same error at the same place. */
static bool memo_agrees(kp_jmemo *m, const char *p, const char *end)
{
	kp_jerr e1 = {0}, e2 = {0};
	const char *a = kp_json_skip_memo(p, end, m, &e1), *b = kp_json_skip(p, end, &e2);
	return a == b && (a || (e1.pos == e2.pos && e1.msg == e2.msg && e1.truncated == e2.truncated));
}

/* kp_json_skip_memo (the parser's memo of container ends) answers as
 * kp_json_skip does from every bracket of a text, to its end and cut short,
 * walking forward and back: the real full .ips and texts where brackets sit
 * in scalars and strings, mismatch, or are never closed. */
static void json_memo_same_ends(void)
{
	static const char *const texts[] = {
		"{\"a\":[1,2,{\"b\":\"x]}\\\"[\"}],\"c\":tr{ue, \"d\":[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]}",
		"{\"a\":[0,1],\"b\":{\"c\":[\"0123456789012345678901234567890123456789012345678901234567890123\"]]}",
		"[{\"long\":\"01234567890123456789012345678901234567890123456789012345678901234567890\"},{\"cut\":[1,2",
		"{\"x\":x\"y, \"z\":[\"0123456789012345678901234567890123456789012345678901234567890123456789\"]}}",
	};
	size_t rlen = 0;
	char *real = kt_slurp(KP_REAL_DIR "/ips-full-ios26-iphone-sepkeystore-1.ips", &rlen);
	for (size_t t = 0; t <= sizeof texts / sizeof *texts; t++) {
		const char *s = t < sizeof texts / sizeof *texts ? texts[t] : real;
		size_t len = t < sizeof texts / sizeof *texts ? strlen(s) : rlen;
		if (!s) {
			KT_CHECK(0, "json memo: the real full .ips is readable");
			continue;
		}
		kp_jmemo m = {.base = s};
		kp_jerr e;
		kp_json_skip_memo(s, s + len, &m, &e);   /* records */
		/* after the header line of the .ips: its body */
		const char *nl = memchr(s, '\n', len);
		if (nl)
			kp_json_skip_memo(nl + 1, s + len, &m, &e);
		size_t recorded = m.n, brackets = 0, bad = 0;   /* (lookups past them record more) */
		for (int pass = 0; pass < 2; pass++)   /* forward, then backward */
			for (size_t k = 0; k < len; k++) {
				size_t i = pass ? len - 1 - k : k;
				if (s[i] != '{' && s[i] != '[')
					continue;
				brackets += !pass;
				size_t cut = i + 1 + (i * 7919) % (len - i);   /* somewhere after it */
				if (!memo_agrees(&m, s + i, s + len) || !memo_agrees(&m, s + i, s + cut))
					bad++;
			}
		KT_CHECK(bad == 0 && recorded > 0, "json memo: text %zu: %zu of %zu brackets skip differently "
		         "(%zu containers recorded)", t, bad, brackets, recorded);
		kp_json_memo_free(&m);
	}
	free(real);
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/kp-test-base.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	read_file_whole();
	read_file_limit();
	read_file_not_regular();
	mkdirs_nested();
	write_atomic_replaces();
	write_atomic_symlink_not_followed();
	atomic_abort_removes_temp();
	atomic_sweeps_stale();
	mtime();
	dir_names_sorted();
	vec_push_grows();
	strbuf_builds();
	uuid_canon();
	parse_u64();
	utf8_decode();
	unsafe_rule();
	sha1();
	sha1_in_pieces();
	sha1_cpu_and_portable();
	sha256();
	sha256_cpu_and_portable();
	base64();
	hash_keyed();
	json_str_in_place();
	bytes_orders();
	htab_strings();
	json_memo_same_ends();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	return kt_done();
}
