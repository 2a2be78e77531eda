/* Private output files that never follow links (rti/proto/outfile.h, doc/run.md "Output
 * files"). Every output file is created new with O_EXCL | O_NOFOLLOW after whatever was at its
 * name is checked and, when it was a plain file of ours to replace, removed: so no write ever
 * lands in an inode that existed before the call, whoever planted it. */
#include "rti/proto/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int failf(char *err, size_t errlen, const char *path, const char *what)
{
    if (err && errlen) snprintf(err, errlen, "%.900s: %s", path, what);
    return -1;
}

int outfile_parse_mode(const char *text, unsigned *mode, char *err, size_t errlen)
{
    size_t n = text ? strlen(text) : 0;
    unsigned m = 0;
    for (size_t i = 0; i < n; i++) {
        if (text[i] < '0' || text[i] > '7') n = 0; /* not octal */
        m = m * 8 + (unsigned)(text[i] - '0');
    }
    if (n == 0 || n > 4 || (m & ~0666u) || (m & 0600u) != 0600u) {
        if (err && errlen)
            snprintf(err, errlen,
                     "file mode \"%.40s\": expected octal read/write bits with the owner's "
                     "(600 .. 666, e.g. 644)",
                     text ? text : "");
        return -1;
    }
    *mode = m;
    return 0;
}

int outfile_mode(unsigned *mode, char *err, size_t errlen)
{
    const char *env = getenv(OUTFILE_ENV);
    *mode = OUTFILE_DEFAULT_MODE;
    if (!env || !env[0]) return 0;
    char e[200];
    if (outfile_parse_mode(env, mode, e, sizeof e) != 0) {
        if (err && errlen) snprintf(err, errlen, "%s: %s", OUTFILE_ENV, e);
        *mode = OUTFILE_DEFAULT_MODE;
        return -1;
    }
    return 0;
}

unsigned outfile_dir_mode(unsigned file_mode)
{
    return file_mode | ((file_mode & 0444u) >> 2);
}

int outfile_check_dir(const char *dir, char *warn, size_t warnlen, char *err, size_t errlen)
{
    struct stat st;
    if (warn && warnlen) warn[0] = '\0';
    if (stat(dir, &st) != 0) return failf(err, errlen, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode)) return failf(err, errlen, dir, "exists and is not a folder");
    if (st.st_mode & S_ISVTX) return 0; /* only a file's owner may remove or rename it */
    if (st.st_mode & S_IWOTH) {
        if (err && errlen)
            snprintf(err, errlen,
                     "%.900s: output folder writable by everyone (mode %03o) without the sticky "
                     "bit: refused, as anyone could replace the files written there (chmod o-w, "
                     "or choose another folder)",
                     dir, (unsigned)(st.st_mode & 07777));
        return -1;
    }
    if (!warn || !warnlen) return 0;
    if (st.st_mode & S_IWGRP)
        snprintf(warn, warnlen,
                 "%.900s: output folder writable by its group (mode %03o): its members can "
                 "remove the files written there",
                 dir, (unsigned)(st.st_mode & 07777));
    else if (st.st_uid != geteuid() && st.st_uid != 0)
        snprintf(warn, warnlen,
                 "%.900s: output folder owned by another user (uid %u), who can remove the "
                 "files written there",
                 dir, (unsigned)st.st_uid);
    return 0;
}

int outfile_mkdirs(const char *dir, char *err, size_t errlen)
{
    unsigned fm;
    if (outfile_mode(&fm, err, errlen) != 0) return -1;
    char *p = strdup(dir);
    if (!p) return failf(err, errlen, dir, "out of memory");
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = '\0';
    int rc = 0;
    for (char *q = p + 1; rc == 0; q++) {
        char c = *q;
        if (c != '/' && c != '\0') continue;
        *q = '\0';
        struct stat st;
        if (mkdir(p, (mode_t)outfile_dir_mode(fm)) != 0 && errno != EEXIST) {
            char what[300];
            snprintf(what, sizeof what, "cannot create folder: %s", strerror(errno));
            rc = failf(err, errlen, p, what);
        } else if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
            rc = failf(err, errlen, p, "exists and is not a folder");
        }
        *q = c;
        if (c == '\0') break;
    }
    if (rc == 0) rc = outfile_check_dir(p, NULL, 0, err, errlen);
    free(p);
    return rc;
}

int outfile_check_entry(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) != 0) return 0; /* missing: it will be created */
    if (S_ISLNK(st.st_mode)) {
        char to[512];
        ssize_t k = readlink(path, to, sizeof to - 1);
        to[k > 0 ? k : 0] = '\0';
        char what[700];
        snprintf(what, sizeof what, "is a symbolic link (to %s): refused, not followed; remove it",
                 to[0] ? to : "?");
        return failf(err, errlen, path, what);
    }
    if (!S_ISREG(st.st_mode))
        return failf(err, errlen, path, "exists and is not a regular file: refused");
    return 0;
}

int outfile_open(const char *path, char *err, size_t errlen)
{
    unsigned mode;
    if (outfile_mode(&mode, err, errlen) != 0) return -1;
    if (outfile_check_entry(path, err, errlen) != 0) return -1;
    if (unlink(path) != 0 && errno != ENOENT) {
        char what[300];
        snprintf(what, sizeof what, "cannot replace: %s", strerror(errno));
        return failf(err, errlen, path, what);
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
    if (fd < 0) {
        char what[300];
        snprintf(what, sizeof what, "cannot create: %s%s", strerror(errno),
                 errno == EEXIST ? " (it reappeared while being replaced: refused)" : "");
        return failf(err, errlen, path, what);
    }
    return fd;
}

FILE *outfile_fopen(const char *path, char *err, size_t errlen)
{
    int fd = outfile_open(path, err, errlen);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        failf(err, errlen, path, strerror(errno));
        close(fd);
    }
    return f;
}
