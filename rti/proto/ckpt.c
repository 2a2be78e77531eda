/* The checkpoint folder: atomic writer, verifying reader and the parts' byte codec
 * (rti/proto/ckpt.h, doc/checkpoint.md). Errors are values naming the file at fault
 * (doc/contributing.md §6). Read rti/proto/ckpt.h first. */
#include "rti/proto/ckpt.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

bool ckpt_name_ok(const char *s)
{
    if (!s || !s[0] || s[0] == '.') return false;
    size_t n = 0;
    for (const char *c = s; *c; c++, n++) {
        bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                  (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-';
        if (!ok || n >= CKPT_NAME_MAX) return false;
    }
    return strcmp(s, CKPT_MANIFEST) != 0;
}

uint64_t ckpt_fnv1a(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Copy a name that passed ckpt_name_ok (at most CKPT_NAME_MAX bytes) into dst of
 * CKPT_NAME_MAX + 1 bytes. */
static void copy_name(char *dst, const char *src)
{
    size_t n = strnlen(src, CKPT_NAME_MAX);
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* ---- files -------------------------------------------------------------------------------- */

/* Write all of data to a new file path (never following a link, never replacing), fsync. */
static int write_file(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return fail(err, errlen, CKPT_EIO, "%s: cannot create: %s", path, strerror(errno));
    const uint8_t *p = data;
    size_t done = 0;
    while (done < len) {
        ssize_t k = write(fd, p + done, len - done);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            int e = errno;
            close(fd);
            return fail(err, errlen, CKPT_EIO, "%s: write failed: %s", path, strerror(e));
        }
        done += (size_t)k;
    }
    if (fsync(fd) != 0) {
        int e = errno;
        close(fd);
        return fail(err, errlen, CKPT_EIO, "%s: fsync failed: %s", path, strerror(e));
    }
    if (close(fd) != 0) return fail(err, errlen, CKPT_EIO, "%s: close: %s", path, strerror(errno));
    return CKPT_OK;
}

static int fsync_dir(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return fail(err, errlen, CKPT_EIO, "%s: cannot open: %s", path, strerror(errno));
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    if (rc != 0) return fail(err, errlen, CKPT_EIO, "%s: fsync failed: %s", path, strerror(e));
    return CKPT_OK;
}

/* Read a whole regular file of at most max bytes into a fresh allocation (+1 NUL byte). */
static int read_file(const char *path, size_t max, uint8_t **out, size_t *len, char *err,
                     size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int code = errno == ENOENT ? CKPT_EDAMAGED : CKPT_EIO;
        return fail(err, errlen, code, "%s: cannot open: %s", path, strerror(errno));
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return fail(err, errlen, CKPT_EDAMAGED, "%s: not a regular file", path);
    }
    if ((uint64_t)sb.st_size > (uint64_t)max) {
        close(fd);
        return fail(err, errlen, CKPT_EDAMAGED, "%s: %jd bytes, more than the %zu allowed", path,
                    (intmax_t)sb.st_size, max);
    }
    size_t n = (size_t)sb.st_size;
    uint8_t *p = malloc(n + 1);
    if (!p) {
        close(fd);
        return fail(err, errlen, CKPT_ENOMEM, "%s: out of memory for %zu bytes", path, n);
    }
    size_t done = 0;
    while (done < n) {
        ssize_t k = read(fd, p + done, n - done);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            int e = errno;
            free(p);
            close(fd);
            return fail(err, errlen, CKPT_EIO, "%s: read failed: %s", path, strerror(e));
        }
        if (k == 0) break; /* shrank while read: the size check below names it */
        done += (size_t)k;
    }
    close(fd);
    p[done] = 0;
    *out = p;
    *len = done;
    return CKPT_OK;
}

/* ---- writing ------------------------------------------------------------------------------ */

struct wpart {
    char name[CKPT_NAME_MAX + 1];
    uint64_t size;
    uint64_t sum;
};

struct ckpt_writer {
    char *dir; /* final name */
    char *tmp; /* "<dir>.tmp.<pid>" */
    char label[CKPT_NAME_MAX + 1];
    int64_t time;
    struct wpart *parts;
    size_t n, cap;
};

static char *join_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static void writer_free(struct ckpt_writer *w)
{
    free(w->dir);
    free(w->tmp);
    free(w->parts);
    free(w);
}

/* Remove what the writer put in its temporary folder, then the folder. */
static void remove_tmp(struct ckpt_writer *w)
{
    for (size_t i = 0; i <= w->n; i++) {
        char *p = join_path(w->tmp, i < w->n ? w->parts[i].name : CKPT_MANIFEST);
        if (p) unlink(p);
        free(p);
    }
    rmdir(w->tmp);
}

int ckpt_begin(struct ckpt_writer **out, const char *dir, const char *label, int64_t time,
               char *err, size_t errlen)
{
    if (!out || !dir || !dir[0]) return fail(err, errlen, CKPT_EINVAL, "checkpoint: no folder");
    if (!ckpt_name_ok(label))
        return fail(err, errlen, CKPT_EINVAL,
                    "checkpoint %s: label '%s' must be 1..%u bytes of [A-Za-z0-9._-], not "
                    "starting with '.'",
                    dir, label ? label : "(null)", CKPT_NAME_MAX);
    struct stat sb;
    if (lstat(dir, &sb) == 0)
        return fail(err, errlen, CKPT_EEXIST, "checkpoint %s: exists already (never overwritten)",
                    dir);
    struct ckpt_writer *w = calloc(1, sizeof *w);
    if (!w) return fail(err, errlen, CKPT_ENOMEM, "checkpoint %s: out of memory", dir);
    size_t n = strlen(dir) + 32;
    w->dir = strdup(dir);
    w->tmp = malloc(n);
    if (!w->dir || !w->tmp) {
        writer_free(w);
        return fail(err, errlen, CKPT_ENOMEM, "checkpoint %s: out of memory", dir);
    }
    snprintf(w->tmp, n, "%s.tmp.%ld", dir, (long)getpid());
    copy_name(w->label, label);
    w->time = time;
    if (mkdir(w->tmp, 0755) != 0) {
        int rc = fail(err, errlen, CKPT_EIO, "%s: cannot create: %s", w->tmp, strerror(errno));
        writer_free(w);
        return rc;
    }
    *out = w;
    return CKPT_OK;
}

int ckpt_add(struct ckpt_writer *w, const char *name, const void *data, size_t len, char *err,
             size_t errlen)
{
    if (!w || (!data && len)) return fail(err, errlen, CKPT_EINVAL, "checkpoint: bad argument");
    if (!ckpt_name_ok(name))
        return fail(err, errlen, CKPT_EINVAL, "%s: part name '%s' is not valid", w->dir,
                    name ? name : "(null)");
    if ((uint64_t)len > (uint64_t)CKPT_PART_MAX)
        return fail(err, errlen, CKPT_EINVAL, "%s: part %s has %zu bytes, more than allowed",
                    w->dir, name, len);
    for (size_t i = 0; i < w->n; i++)
        if (strcmp(w->parts[i].name, name) == 0)
            return fail(err, errlen, CKPT_EINVAL, "%s: part %s added twice", w->dir, name);
    if (w->n >= CKPT_MAX_PARTS)
        return fail(err, errlen, CKPT_EINVAL, "%s: more than %u parts", w->dir, CKPT_MAX_PARTS);
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 8;
        struct wpart *p = realloc(w->parts, cap * sizeof *p);
        if (!p) return fail(err, errlen, CKPT_ENOMEM, "%s: out of memory", w->dir);
        w->parts = p;
        w->cap = cap;
    }
    char *path = join_path(w->tmp, name);
    if (!path) return fail(err, errlen, CKPT_ENOMEM, "%s: out of memory", w->dir);
    int rc = write_file(path, data, len, err, errlen);
    free(path);
    if (rc != CKPT_OK) return rc;
    struct wpart *p = &w->parts[w->n++];
    copy_name(p->name, name);
    p->size = len;
    p->sum = ckpt_fnv1a(CKPT_FNV_INIT, data, len);
    return CKPT_OK;
}

/* The manifest text (doc/checkpoint.md, "Manifest"): every line but the last is covered by
 * the checksum on the last. */
static int manifest_text(const struct ckpt_writer *w, struct buf *b)
{
    char line[CKPT_NAME_MAX + 96];
    int k = snprintf(line, sizeof line, "%s %u\nlabel %s\ntime %" PRId64 "\nparts %zu\n",
                     CKPT_MAGIC, CKPT_FORMAT, w->label, w->time, w->n);
    if (buf_append(b, line, (size_t)k) != 0) return -1;
    for (size_t i = 0; i < w->n; i++) {
        k = snprintf(line, sizeof line, "part %s %" PRIu64 " %016" PRIx64 "\n", w->parts[i].name,
                     w->parts[i].size, w->parts[i].sum);
        if (buf_append(b, line, (size_t)k) != 0) return -1;
    }
    k = snprintf(line, sizeof line, "end %016" PRIx64 "\n",
                 ckpt_fnv1a(CKPT_FNV_INIT, b->data, b->len));
    return buf_append(b, line, (size_t)k);
}

int ckpt_commit(struct ckpt_writer *w, char *err, size_t errlen)
{
    if (!w) return fail(err, errlen, CKPT_EINVAL, "checkpoint: no writer");
    struct buf b;
    buf_init(&b);
    int rc = CKPT_OK;
    char *mpath = join_path(w->tmp, CKPT_MANIFEST);
    if (!mpath || manifest_text(w, &b) != 0) {
        rc = fail(err, errlen, CKPT_ENOMEM, "%s: out of memory for the manifest", w->dir);
        goto out;
    }
    rc = write_file(mpath, b.data, b.len, err, errlen);
    if (rc == CKPT_OK) rc = fsync_dir(w->tmp, err, errlen);
    if (rc != CKPT_OK) goto out;
    /* rename(2) of a folder onto an existing non-empty folder fails; onto an empty one it
     * would replace it, so look first: a checkpoint is never overwritten. */
    struct stat sb;
    if (lstat(w->dir, &sb) == 0) {
        rc = fail(err, errlen, CKPT_EEXIST, "checkpoint %s: exists already (never overwritten)",
                  w->dir);
        goto out;
    }
    if (rename(w->tmp, w->dir) != 0) {
        rc = fail(err, errlen, CKPT_EIO, "%s: cannot rename to %s: %s", w->tmp, w->dir,
                  strerror(errno));
        goto out;
    }
    /* The rename is durable once the parent folder is. */
    char *parent = strdup(w->dir);
    if (!parent) {
        rc = fail(err, errlen, CKPT_ENOMEM, "%s: out of memory", w->dir);
    } else {
        char *slash = strrchr(parent, '/');
        if (!slash)
            snprintf(parent, strlen(parent) + 1, ".");
        else if (slash == parent)
            slash[1] = 0;
        else
            *slash = 0;
        rc = fsync_dir(parent, err, errlen);
        free(parent);
    }
    free(mpath);
    buf_fini(&b);
    writer_free(w); /* committed: the folder stays even if the parent's fsync failed */
    return rc;
out:
    free(mpath);
    buf_fini(&b);
    remove_tmp(w);
    writer_free(w);
    return rc;
}

void ckpt_abort(struct ckpt_writer *w)
{
    if (!w) return;
    remove_tmp(w);
    writer_free(w);
}

/* ---- reading ------------------------------------------------------------------------------ */

struct rpart {
    char name[CKPT_NAME_MAX + 1];
    uint8_t *data;
    size_t len;
};

struct ckpt_reader {
    char label[CKPT_NAME_MAX + 1];
    int64_t time;
    struct rpart *parts;
    size_t n;
};

void ckpt_close(struct ckpt_reader *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->n; i++)
        free(r->parts[i].data);
    free(r->parts);
    free(r);
}

/* Next line of the manifest text at *pos (without its '\n') into line; false at the end or
 * when a line is too long or unterminated. */
static bool next_line(const char *text, size_t len, size_t *pos, char *line, size_t cap)
{
    if (*pos >= len) return false;
    const char *s = text + *pos;
    const char *nl = memchr(s, '\n', len - *pos);
    if (!nl) return false;
    size_t n = (size_t)(nl - s);
    if (n >= cap) return false;
    memcpy(line, s, n);
    line[n] = 0;
    *pos += n + 1;
    return true;
}

/* Parse a decimal unsigned integer that is the whole of s (no sign, no spaces). */
static bool parse_u64(const char *s, int base, uint64_t *out)
{
    if (!s[0] || s[0] == '-' || s[0] == '+' || s[0] == ' ') return false;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, base);
    if (errno || *end) return false;
    *out = v;
    return true;
}

int ckpt_open(struct ckpt_reader **out, const char *dir, char *err, size_t errlen)
{
    if (!out || !dir) return fail(err, errlen, CKPT_EINVAL, "checkpoint: bad argument");
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return fail(err, errlen, CKPT_EIO, "checkpoint %s: %s", dir, strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return fail(err, errlen, CKPT_EFOREIGN, "checkpoint %s: not a folder", dir);
    char *mpath = join_path(dir, CKPT_MANIFEST);
    if (!mpath) return fail(err, errlen, CKPT_ENOMEM, "checkpoint %s: out of memory", dir);
    uint8_t *mt = NULL;
    size_t mlen = 0;
    int rc = CKPT_OK;
    if (lstat(mpath, &sb) != 0 && errno == ENOENT)
        rc = fail(err, errlen, CKPT_EFOREIGN, "checkpoint %s: no %s: not a Tempo checkpoint", dir,
                  CKPT_MANIFEST);
    else
        rc = read_file(mpath, CKPT_MANIFEST_MAX, &mt, &mlen, err, errlen);
    if (rc != CKPT_OK) {
        free(mpath);
        return rc;
    }
    struct ckpt_reader *r = calloc(1, sizeof *r);
    if (!r) {
        free(mt);
        free(mpath);
        return fail(err, errlen, CKPT_ENOMEM, "checkpoint %s: out of memory", dir);
    }
    const char *text = (const char *)mt;
    char line[256], word[32], name[CKPT_NAME_MAX + 2];
    size_t pos = 0, lineno = 1;
    uint64_t nparts = 0;
    /* magic and version */
    if (!next_line(text, mlen, &pos, line, sizeof line) ||
        strncmp(line, CKPT_MAGIC " ", sizeof CKPT_MAGIC) != 0) {
        rc =
            fail(err, errlen, CKPT_EFOREIGN, "%s: not a Tempo checkpoint manifest (line 1)", mpath);
        goto bad;
    }
    uint64_t v64 = 0;
    if (!parse_u64(line + sizeof CKPT_MAGIC, 10, &v64) || v64 == 0) {
        rc = fail(err, errlen, CKPT_EDAMAGED, "%s:1: bad format version '%s'", mpath,
                  line + sizeof CKPT_MAGIC);
        goto bad;
    }
    if (v64 != CKPT_FORMAT) {
        rc = fail(err, errlen, CKPT_EFOREIGN,
                  "%s:1: format version %" PRIu64 ", this build reads version %u", mpath, v64,
                  CKPT_FORMAT);
        goto bad;
    }
    /* label, time, parts */
    lineno++;
    if (!next_line(text, mlen, &pos, line, sizeof line) || strncmp(line, "label ", 6) != 0 ||
        !ckpt_name_ok(line + 6)) {
        rc = fail(err, errlen, CKPT_EDAMAGED, "%s:%zu: expected 'label NAME'", mpath, lineno);
        goto bad;
    }
    copy_name(r->label, line + 6);
    lineno++;
    errno = 0;
    char *end = NULL;
    if (!next_line(text, mlen, &pos, line, sizeof line) || strncmp(line, "time ", 5) != 0 ||
        !line[5] || line[5] == ' ' || (r->time = strtoll(line + 5, &end, 10), errno || *end)) {
        rc = fail(err, errlen, CKPT_EDAMAGED, "%s:%zu: expected 'time TICKS'", mpath, lineno);
        goto bad;
    }
    lineno++;
    if (!next_line(text, mlen, &pos, line, sizeof line) || strncmp(line, "parts ", 6) != 0 ||
        !parse_u64(line + 6, 10, &nparts) || nparts > CKPT_MAX_PARTS) {
        rc = fail(err, errlen, CKPT_EDAMAGED, "%s:%zu: expected 'parts N' with N <= %u", mpath,
                  lineno, CKPT_MAX_PARTS);
        goto bad;
    }
    r->parts = calloc(nparts ? nparts : 1, sizeof *r->parts);
    if (!r->parts) {
        rc = fail(err, errlen, CKPT_ENOMEM, "%s: out of memory", mpath);
        goto bad;
    }
    uint64_t *want_size = calloc(nparts ? nparts : 1, sizeof *want_size);
    uint64_t *want_sum = calloc(nparts ? nparts : 1, sizeof *want_sum);
    if (!want_size || !want_sum) {
        free(want_size);
        free(want_sum);
        rc = fail(err, errlen, CKPT_ENOMEM, "%s: out of memory", mpath);
        goto bad;
    }
    for (uint64_t i = 0; i < nparts; i++) {
        lineno++;
        char szs[32], sums[32];
        int k = 0;
        if (next_line(text, mlen, &pos, line, sizeof line))
            k = sscanf(line, "%4s %65s %31s %31s", word, name, szs, sums);
        uint64_t sz = 0, sum = 0;
        if (k != 4 || strcmp(word, "part") != 0 || !ckpt_name_ok(name) ||
            !parse_u64(szs, 10, &sz) || strlen(sums) != 16 || !parse_u64(sums, 16, &sum) ||
            sz > (uint64_t)CKPT_PART_MAX) {
            rc = fail(err, errlen, CKPT_EDAMAGED, "%s:%zu: expected 'part NAME SIZE CHECKSUM'",
                      mpath, lineno);
            goto bad_lists;
        }
        for (uint64_t j = 0; j < i; j++)
            if (strcmp(r->parts[j].name, name) == 0) {
                rc = fail(err, errlen, CKPT_EDAMAGED, "%s:%zu: part %s listed twice", mpath, lineno,
                          name);
                goto bad_lists;
            }
        copy_name(r->parts[i].name, name);
        want_size[i] = sz;
        want_sum[i] = sum;
    }
    /* the manifest's own checksum */
    lineno++;
    size_t covered = pos;
    uint64_t msum = 0;
    if (!next_line(text, mlen, &pos, line, sizeof line) || strncmp(line, "end ", 4) != 0 ||
        strlen(line + 4) != 16 || !parse_u64(line + 4, 16, &msum) || pos != mlen) {
        rc = fail(err, errlen, CKPT_EDAMAGED,
                  "%s:%zu: expected 'end CHECKSUM' as the last line (truncated or extended "
                  "manifest)",
                  mpath, lineno);
        goto bad_lists;
    }
    if (ckpt_fnv1a(CKPT_FNV_INIT, mt, covered) != msum) {
        rc = fail(err, errlen, CKPT_EDAMAGED, "%s: checksum mismatch (the manifest was altered)",
                  mpath);
        goto bad_lists;
    }
    /* every part: size and checksum */
    for (uint64_t i = 0; i < nparts; i++) {
        char *ppath = join_path(dir, r->parts[i].name);
        if (!ppath) {
            rc = fail(err, errlen, CKPT_ENOMEM, "%s: out of memory", dir);
            goto bad_lists;
        }
        rc = read_file(ppath, (size_t)want_size[i], &r->parts[i].data, &r->parts[i].len, err,
                       errlen);
        r->n = (size_t)i + (rc == CKPT_OK ? 1 : 0);
        if (rc == CKPT_OK && r->parts[i].len != want_size[i])
            rc = fail(err, errlen, CKPT_EDAMAGED, "%s: %zu bytes, the manifest says %" PRIu64,
                      ppath, r->parts[i].len, want_size[i]);
        else if (rc == CKPT_OK &&
                 ckpt_fnv1a(CKPT_FNV_INIT, r->parts[i].data, r->parts[i].len) != want_sum[i])
            rc = fail(err, errlen, CKPT_EDAMAGED, "%s: checksum mismatch (the file was altered)",
                      ppath);
        free(ppath);
        if (rc != CKPT_OK) goto bad_lists;
    }
    free(want_size);
    free(want_sum);
    free(mt);
    free(mpath);
    *out = r;
    return CKPT_OK;
bad_lists:
    free(want_size);
    free(want_sum);
bad:
    free(mt);
    free(mpath);
    ckpt_close(r);
    return rc;
}

const char *ckpt_label(const struct ckpt_reader *r)
{
    return r->label;
}

int64_t ckpt_time(const struct ckpt_reader *r)
{
    return r->time;
}

size_t ckpt_nparts(const struct ckpt_reader *r)
{
    return r->n;
}

const char *ckpt_part_name(const struct ckpt_reader *r, size_t i)
{
    return i < r->n ? r->parts[i].name : NULL;
}

int ckpt_part(const struct ckpt_reader *r, const char *name, const uint8_t **data, size_t *len)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->parts[i].name, name) == 0) {
            *data = r->parts[i].data;
            *len = r->parts[i].len;
            return CKPT_OK;
        }
    return CKPT_ENOENT;
}

/* ---- the byte codec ----------------------------------------------------------------------- */

static int put_le(struct buf *b, uint64_t v, size_t n)
{
    uint8_t x[8];
    for (size_t i = 0; i < n; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    return buf_append(b, x, n);
}

int ckpt_put_u8(struct buf *b, uint8_t v)
{
    return put_le(b, v, 1);
}

int ckpt_put_u32(struct buf *b, uint32_t v)
{
    return put_le(b, v, 4);
}

int ckpt_put_u64(struct buf *b, uint64_t v)
{
    return put_le(b, v, 8);
}

int ckpt_put_i64(struct buf *b, int64_t v)
{
    return put_le(b, (uint64_t)v, 8);
}

int ckpt_put_str(struct buf *b, const char *s)
{
    size_t n = strlen(s);
    if (n > UINT32_MAX) return -1;
    if (ckpt_put_u32(b, (uint32_t)n) != 0) return -1;
    return buf_append(b, s, n);
}

void ckpt_dec_init(struct ckpt_dec *d, const uint8_t *p, size_t n)
{
    d->p = p;
    d->n = n;
    d->off = 0;
    d->bad = false;
}

static uint64_t get_le(struct ckpt_dec *d, size_t n)
{
    if (d->bad || d->n - d->off < n) {
        d->bad = true;
        return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)d->p[d->off + i] << (8 * i);
    d->off += n;
    return v;
}

uint8_t ckpt_get_u8(struct ckpt_dec *d)
{
    return (uint8_t)get_le(d, 1);
}

uint32_t ckpt_get_u32(struct ckpt_dec *d)
{
    return (uint32_t)get_le(d, 4);
}

uint64_t ckpt_get_u64(struct ckpt_dec *d)
{
    return get_le(d, 8);
}

int64_t ckpt_get_i64(struct ckpt_dec *d)
{
    return (int64_t)get_le(d, 8);
}

void ckpt_get_str(struct ckpt_dec *d, char *dst, size_t cap)
{
    uint32_t n = ckpt_get_u32(d);
    if (cap) dst[0] = 0;
    if (d->bad) return;
    if ((size_t)n >= cap || d->n - d->off < n || memchr(d->p + d->off, 0, n)) {
        d->bad = true;
        return;
    }
    memcpy(dst, d->p + d->off, n);
    dst[n] = 0;
    d->off += n;
}
