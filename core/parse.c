/* parse.c: reading a report file and choosing its parser by content. */
#include "report_build.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *skip_ws(const char *p, const char *end)
{
	if (end - p >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB &&
	    (unsigned char)p[2] == 0xBF)
		p += 3;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

kp_status kp_report_parse(const char *data, size_t len, const char *path,
                          kp_report **out, kp_error *err)
{
	*out = NULL;
	kp_error_clear(err);
	if (len == 0)
		return kp_error_set(err, KP_ERR_FORMAT, 0, -1, "empty file");
	kp_report *r = kp__report_new(path);
	if (!r)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	const char *p = skip_ws(data, data + len);
	kp_status st;
	if (p < data + len && *p == '{') {
		st = kp__ips_parse(r, data, len, err);
	} else {
		r->format = KP_FORMAT_TEXT;
		st = kp__text_parse(r, data, len, 1, 0, err);
	}
	if (st != KP_OK) {
		kp_report_free(&r);
		return st;
	}
	kp__derive_arch(r);
	*out = r;
	return KP_OK;
}

kp_status kp_report_load(const char *path, kp_report **out, kp_error *err)
{
	*out = NULL;
	kp_error_clear(err);
	/* O_NONBLOCK so a FIFO does not hang the open; regular files ignore it. */
	int fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return kp_error_set(err, KP_ERR_IO, 0, -1, "cannot open: %s", strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "cannot stat: %s", strerror(e));
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "is a directory");
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "not a regular file");
	}
	if ((uint64_t)st.st_size > KP_REPORT_MAX_SIZE) {
		close(fd);
		return kp_error_set(err, KP_ERR_LIMIT, 0, -1, "file too large (%lld bytes, limit %zu MiB)",
		                    (long long)st.st_size, KP_REPORT_MAX_SIZE >> 20);
	}
	size_t cap = (size_t)st.st_size, len = 0;
	char *buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	while (len < cap) {
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			close(fd);
			return kp_error_set(err, KP_ERR_IO, 0, (long)len, "read failed: %s", strerror(e));
		}
		if (n == 0)
			break;   /* the file shrank while we read it: parse what we got */
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	kp_status s = kp_report_parse(buf, len, path, out, err);
	free(buf);
	return s;
}
