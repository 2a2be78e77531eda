/* Reading the shared secret from a file or the environment (rti/proto/secret.h). The file's
 * mode is checked because the secret is the only thing that keeps other local users out of a
 * federation. Serves doc/rti.md ("Shared secret"). */
#include "rti/proto/secret.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int secret_read_file(const char *path, char *out, size_t cap, char *err, size_t errlen)
{
    if (!path || !path[0] || cap < SECRET_MAX + 1) {
        snprintf(err, errlen, "secret file: no path given");
        return -1;
    }
    int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "secret file '%s': %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    char buf[SECRET_MAX + 3];
    ssize_t n = -1;
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "secret file '%s': fstat: %s", path, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "secret file '%s': not a regular file", path);
    } else if (st.st_mode & 077) {
        snprintf(err, errlen,
                 "secret file '%s': mode %03o lets other users read or change it; "
                 "chmod 600 it",
                 path, (unsigned)(st.st_mode & 0777));
    } else {
        n = read(fd, buf, sizeof buf);
        if (n < 0) snprintf(err, errlen, "secret file '%s': read: %s", path, strerror(errno));
    }
    close(fd);
    if (n < 0) return -1;
    size_t len = (size_t)n;
    if (len > 0 && buf[len - 1] == '\n') len--;
    if (len > 0 && buf[len - 1] == '\r') len--;
    if (len == 0 || len > SECRET_MAX || memchr(buf, '\0', len)) {
        snprintf(err, errlen, "secret file '%s': expected 1 to %d bytes without NUL bytes%s", path,
                 SECRET_MAX, len == 0 ? " (it is empty)" : "");
        return -1;
    }
    memcpy(out, buf, len);
    out[len] = '\0';
    return 0;
}

int secret_from_env(char *out, size_t cap, char *err, size_t errlen)
{
    const char *v = getenv(SECRET_ENV);
    if (v && v[0]) {
        if (strlen(v) > SECRET_MAX || cap < strlen(v) + 1) {
            snprintf(err, errlen, "%s: longer than %d bytes", SECRET_ENV, SECRET_MAX);
            return -1;
        }
        snprintf(out, cap, "%s", v);
        return 1;
    }
    const char *f = getenv(SECRET_ENV_FILE);
    if (f && f[0]) {
        char e[400];
        if (secret_read_file(f, out, cap, e, sizeof e) != 0) {
            snprintf(err, errlen, "%s: %s", SECRET_ENV_FILE, e);
            return -1;
        }
        return 1;
    }
    return 0;
}
