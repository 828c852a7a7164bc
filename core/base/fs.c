/* fs.c: whole-file reads, folders, atomic replacement (contract: kp_fs.h). */
#include "kp_fs.h"
#include "kp_vec.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

kp_status kp_fs_read_file(const char *path, size_t limit, char **out, size_t *len,
                          struct stat *st_out, kp_error *err)
{
	*out = NULL;
	*len = 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return kp_error_set(err, KP_ERR_IO, 0, -1, "cannot open: %s", strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "cannot stat: %s", strerror(e));
	}
	if (st_out)
		*st_out = st;
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return kp_error_set(err, KP_ERR_IO, 0, -1,
		                    S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
	}
	if ((uint64_t)st.st_size > limit) {
		close(fd);
		if (limit % (1u << 20) == 0)
			return kp_error_set(err, KP_ERR_LIMIT, 0, -1,
			                    "file too large (%lld bytes, limit %zu MiB)",
			                    (long long)st.st_size, limit >> 20);
		return kp_error_set(err, KP_ERR_LIMIT, 0, -1, "file too large (%lld bytes, limit %zu)",
		                    (long long)st.st_size, limit);
	}
	size_t cap = (size_t)st.st_size, n = 0;
	char *buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	while (n < cap) {
		ssize_t k = read(fd, buf + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;
			free(buf);
			close(fd);
			return kp_error_set(err, KP_ERR_IO, 0, (long)n, "read failed: %s", strerror(e));
		}
		if (k == 0)
			break;   /* the file shrank while we read it */
		n += (size_t)k;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return KP_OK;
}

static kp_status mkdir_one(const char *d, mode_t mode, kp_error *err)
{
	if (mkdir(d, mode) == 0 || errno == EEXIST)
		return KP_OK;
	return kp_error_set(err, KP_ERR_IO, 0, -1, "cannot create folder %s: %s", d, strerror(errno));
}

kp_status kp_fs_mkdirs(const char *path, mode_t mode, kp_error *err)
{
	char *d = strdup(path);
	if (!d)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	kp_status st = KP_OK;
	for (char *p = d + 1; *p && st == KP_OK; p++)
		if (*p == '/') {
			*p = '\0';
			st = mkdir_one(d, mode, err);
			*p = '/';
		}
	if (st == KP_OK && *d)
		st = mkdir_one(d, mode, err);
	free(d);
	return st;
}

kp_status kp_fs_mkdirs_for(const char *path, mode_t mode, kp_error *err)
{
	const char *slash = strrchr(path, '/');
	if (!slash || slash == path)
		return KP_OK;
	char *d = strndup(path, (size_t)(slash - path));
	if (!d)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	kp_status st = kp_fs_mkdirs(d, mode, err);
	free(d);
	return st;
}

/* The temporaries "<base>.<pid>.<try>.tmp" of path that a process killed
 * before its rename left (its pid is gone), removed: nothing else would
 * (issue 32: a killed `cache build`).  A live writer's, ours included, is
 * left alone; so is any name of another shape. */
static void sweep_stale(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t blen = strlen(base);
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		const char *n = e->d_name;
		if (strncmp(n, base, blen) != 0 || n[blen] != '.')
			continue;
		char *end;
		errno = 0;
		long pid = strtol(n + blen + 1, &end, 10);
		if (errno || end == n + blen + 1 || *end != '.' || pid <= 0 || pid == (long)getpid())
			continue;
		const char *t = end + 1;
		strtoul(t, &end, 10);
		if (end == t || strcmp(end, ".tmp") != 0)
			continue;
		if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
			size_t len = strlen(dir) + strlen(n) + 2;
			char *full = malloc(len);
			if (full) {
				snprintf(full, len, "%s/%s", dir, n);
				unlink(full);
				free(full);
			}
		}
	}
	if (d)
		closedir(d);
	free(dir);
}

kp_status kp_fs_atomic_open(kp_fs_atomic *a, const char *path, kp_error *err)
{
	sweep_stale(path);
	*a = (kp_fs_atomic){0};
	size_t n = strlen(path) + 48;
	a->path = strdup(path);
	a->tmp = malloc(n);
	if (!a->path || !a->tmp) {
		kp_fs_atomic_abort(a);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	/* <path>.<pid>.<try>.tmp: O_EXCL refuses anything already there,
	 * symlinks included, and the next try picks another name. */
	int fd = -1, e = 0;
	for (unsigned i = 0; i < 100 && fd < 0; i++) {
		snprintf(a->tmp, n, "%s.%ld.%u.tmp", path, (long)getpid(), i);
		fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		e = errno;
		if (fd < 0 && e != EEXIST)
			break;
	}
	if (fd < 0) {
		free(a->tmp);
		a->tmp = NULL;
		kp_fs_atomic_abort(a);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "cannot create a temporary file: %s",
		                    strerror(e));
	}
	a->fp = fdopen(fd, "w");
	if (!a->fp) {
		close(fd);
		kp_fs_atomic_abort(a);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	return KP_OK;
}

static kp_status commit(kp_fs_atomic *a, bool sync, kp_error *err)
{
	bool ok = fflush(a->fp) == 0 && !ferror(a->fp);
	int e = errno;
	ok = ok && (!sync || fsync(fileno(a->fp)) == 0);
	e = ok ? 0 : (e ? e : errno);
	if (fclose(a->fp) != 0 && ok) {
		ok = false;
		e = errno;
	}
	a->fp = NULL;
	if (ok && rename(a->tmp, a->path) != 0) {
		ok = false;
		e = errno;
	}
	if (ok) {
		free(a->tmp);
		a->tmp = NULL;
	}
	kp_fs_atomic_abort(a);
	if (!ok)
		return kp_error_set(err, KP_ERR_IO, 0, -1, "cannot write: %s", strerror(e));
	return KP_OK;
}

kp_status kp_fs_atomic_commit(kp_fs_atomic *a, kp_error *err)
{
	return commit(a, true, err);
}

void kp_fs_atomic_abort(kp_fs_atomic *a)
{
	if (a->fp)
		fclose(a->fp);
	if (a->tmp)
		unlink(a->tmp);
	free(a->tmp);
	free(a->path);
	*a = (kp_fs_atomic){0};
}

static kp_status write_atomic(const char *path, const void *data, size_t len, bool sync,
                              kp_error *err)
{
	kp_fs_atomic a;
	kp_status st = kp_fs_atomic_open(&a, path, err);
	if (st != KP_OK)
		return st;
	if (len && fwrite(data, 1, len, a.fp) != len) {
		int e = errno;
		kp_fs_atomic_abort(&a);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "cannot write: %s", strerror(e));
	}
	return commit(&a, sync, err);
}

kp_status kp_fs_write_atomic(const char *path, const void *data, size_t len, kp_error *err)
{
	return write_atomic(path, data, len, true, err);
}

kp_status kp_fs_write_atomic_unsynced(const char *path, const void *data, size_t len,
                                      kp_error *err)
{
	return write_atomic(path, data, len, false, err);
}

long kp_fs_mtime_nsec(const struct stat *st)
{
#ifdef __APPLE__
	return (long)st->st_mtimespec.tv_nsec;
#else
	return (long)st->st_mtim.tv_nsec;
#endif
}

int64_t kp_fs_mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtime * 1000000000 + kp_fs_mtime_nsec(st);
}

int64_t kp_fs_atime_ns(const struct stat *st)
{
#ifdef __APPLE__
	long ns = (long)st->st_atimespec.tv_nsec;
#else
	long ns = (long)st->st_atim.tv_nsec;
#endif
	return (int64_t)st->st_atime * 1000000000 + ns;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

kp_status kp_fs_dir_names(const char *path, char ***names, size_t *n, kp_error *err)
{
	*names = NULL;
	*n = 0;
	DIR *d = opendir(path);
	if (!d) {
		int e = errno;
		kp_status st = kp_error_set(err, KP_ERR_IO, 0, -1, "cannot open folder: %s", strerror(e));
		errno = e;
		return st;
	}
	char **v = NULL;
	size_t nv = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		const char *nm = de->d_name;
		if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
			continue;
		char *copy = NULL;
		if (!kp_vec_reserve((void **)&v, &cap, nv + 1, sizeof *v) || !(copy = strdup(nm))) {
			closedir(d);
			kp_fs_names_free(v, nv);
			return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
		}
		v[nv++] = copy;
	}
	closedir(d);
	if (nv > 1)
		qsort(v, nv, sizeof *v, cmp_names);
	*names = v;
	*n = nv;
	return KP_OK;
}

void kp_fs_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static int create_excl(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd >= 0) {
		int fl = fcntl(fd, F_GETFL);
		if (fl >= 0)
			(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	}
	return fd;
}

kp_status kp_fs_create_new(const char *path, bool next_free, char *used, size_t usize, int *fd,
                           kp_error *err)
{
	*fd = create_excl(path);
	if (*fd >= 0) {
		if (used)
			snprintf(used, usize, "%s", path);
		return KP_OK;
	}
	if (errno != EEXIST || !next_free)
		return kp_error_set(err, KP_ERR_IO, 0, -1, "%s: %s", path,
		                    errno == EEXIST ? "exists; not overwriting it" : strerror(errno));
	/* NAME-N.EXT: the extension of the last component only */
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash + 1 : path, '.');
	size_t stem = dot && dot != (slash ? slash + 1 : path) ? (size_t)(dot - path) : strlen(path);
	char name[4096];
	for (int n = 1; n < 100; n++) {
		int k = snprintf(name, sizeof name, "%.*s-%d%s", (int)stem, path, n, path + stem);
		if (k < 0 || (size_t)k >= sizeof name)
			break;
		*fd = create_excl(name);
		if (*fd >= 0) {
			if (used)
				snprintf(used, usize, "%s", name);
			return KP_OK;
		}
		if (errno != EEXIST)
			return kp_error_set(err, KP_ERR_IO, 0, -1, "%s: %s", name, strerror(errno));
	}
	return kp_error_set(err, KP_ERR_IO, 0, -1, "%s: it and NAME-1 to NAME-99 exist; not overwriting",
	                    path);
}
