/* Results CSV writer and reader (federate/run/results.h). doc/run.md.
 * Divisions: errors and number formatting, the writer, the reader.
 * Read tests/unit/results_test.c next.
 */
#include "federate/run/results.h"
#include "federate/fmu/fmu_sim.h"
#include "federate/run/run_err.h"
#include "rti/proto/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* ======================================================================================
 * Errors and number formatting
 * ====================================================================================== */

char *res_format_double(double v, char *buf, size_t len)
{
    return fmu_sim_format_double(v, buf, len); /* one formatter for every CSV Tempo writes */
}

/* ======================================================================================
 * Writer
 * ====================================================================================== */

/* Bytes of rows the stream holds before they are written. The stream is given a buffer of
 * this size and is flushed before a row that would not fit, so that every write(2) carries
 * whole rows: a process that dies (an FMU's crash) leaves a CSV of whole rows, and an
 * fflush from another thread (federate/fmu/fmu_guard.c) finds whole rows, since each row goes
 * in by one fwrite, under the stream's lock (doc/robustness.md). */
#define RES_BUF 65536
/* And at most this long (ns) after the first row it holds: a crash (a signal, which runs no
 * exit handler) loses the rows of the last tenth of a second at most, not 64 KiB of them,
 * and a CSV shows a run's progress as it goes. One coarse clock read per row (a few ns,
 * `results_bench`). */
#define RES_FLUSH_NS 100000000LL

struct res_writer {
    FILE *f;
    char *path;     /* "<dir>/<fed>.csv" */
    size_t n_vars;  /* values per row, time excluded */
    char *buf;      /* the stream's buffer, RES_BUF bytes (glibc ignores the size unless the
                       buffer is given) */
    char *row;      /* one row being formatted, grown as needed */
    size_t row_cap; /* bytes of row */
    size_t pending; /* bytes handed to f since its last flush, < RES_BUF unless one row is larger */
    long long held_since; /* ns, monotonic: when the first of the pending rows came */
};

static long long now_ns(void)
{
    struct timespec ts;
#ifdef CLOCK_MONOTONIC_COARSE
    if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) == 0)
        return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
#endif
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* mkdir -p, private and checked (rti/proto/outfile.h). */
static int make_dirs(const char *dir, char *err, size_t errlen)
{
    char e[1200];
    if (outfile_mkdirs(dir, e, sizeof e) == 0) return RES_OK;
    return run_fail(err, errlen, RES_EIO, "%s", e);
}

int res_make_dirs(const char *dir, char *err, size_t errlen)
{
    return make_dirs(dir, err, errlen);
}

FILE *res_create(const char *dir, const char *name, char *err, size_t errlen)
{
    char path[4096];
    if (!dir || !name || snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        run_fail(err, errlen, RES_EUSAGE, "res_create: NULL or too long a path");
        return NULL;
    }
    if (make_dirs(dir, err, errlen) != RES_OK) return NULL;
    char e[1200];
    FILE *f = outfile_fopen(path, e, sizeof e);
    if (!f) run_fail(err, errlen, RES_EIO, "%s", e);
    return f;
}

/* Write one header name, quoted when it holds a separator, quote or line end. */
static void put_name(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int res_open(res_writer **out, const char *dir, const char *fed, size_t n_vars,
             const char *const *vars, char *err, size_t errlen)
{
    if (!out) return run_fail(err, errlen, RES_EUSAGE, "res_open: NULL out");
    *out = NULL;
    if (!dir || !dir[0] || !fed || (n_vars > 0 && !vars))
        return run_fail(err, errlen, RES_EUSAGE, "res_open: NULL or empty folder, name or vars");
    if (!fed[0] || strchr(fed, '/') || strcmp(fed, ".") == 0 || strcmp(fed, "..") == 0)
        return run_fail(err, errlen, RES_EUSAGE,
                        "res_open: federate name \"%s\" cannot be a file name", fed);
    if (n_vars >= RES_MAX_COLS)
        return run_fail(err, errlen, RES_EUSAGE, "res_open: %s: %zu variables, at most %d", fed,
                        n_vars, RES_MAX_COLS - 1);
    for (size_t i = 0; i < n_vars; i++)
        if (!vars[i] || !vars[i][0])
            return run_fail(err, errlen, RES_EUSAGE, "res_open: %s: variable %zu has no name", fed,
                            i);
    int rc = make_dirs(dir, err, errlen);
    if (rc != RES_OK) return rc;
    res_writer *w = calloc(1, sizeof *w);
    size_t plen = strlen(dir) + strlen(fed) + 6;
    if (!w || !(w->path = malloc(plen))) {
        free(w);
        return run_fail(err, errlen, RES_ENOMEM, "res_open: %s: out of memory", fed);
    }
    snprintf(w->path, plen, "%s/%s.csv", dir, fed);
    w->n_vars = n_vars;
    char e[1200];
    w->f = outfile_fopen(w->path, e, sizeof e); /* private, never through a link */
    if (!w->f) {
        rc = run_fail(err, errlen, RES_EIO, "%s", e);
        free(w->path);
        free(w);
        return rc;
    }
    if ((w->buf = malloc(RES_BUF))) setvbuf(w->f, w->buf, _IOFBF, RES_BUF);
    fputs("time", w->f);
    for (size_t i = 0; i < n_vars; i++) {
        fputc(',', w->f);
        put_name(w->f, vars[i]);
    }
    if (fputc('\n', w->f) == EOF) {
        rc = run_fail(err, errlen, RES_EIO, "%s: write: %s", w->path, strerror(errno));
        res_close(w, NULL, 0);
        return rc;
    }
    if (fflush(w->f) != 0) { /* the header at once: a CSV is never left empty */
        rc = run_fail(err, errlen, RES_EIO, "%s: write: %s", w->path, strerror(errno));
        res_close(w, NULL, 0);
        return rc;
    }
    *out = w;
    return RES_OK;
}

int res_position(res_writer *w, unsigned long long *bytes, char *err, size_t errlen)
{
    if (!w || !bytes) return run_fail(err, errlen, RES_EUSAGE, "res_position: NULL argument");
    if (fflush(w->f) != 0)
        return run_fail(err, errlen, RES_EIO, "%s: write: %s", w->path, strerror(errno));
    w->pending = 0;
    off_t at = ftello(w->f);
    if (at < 0) return run_fail(err, errlen, RES_EIO, "%s: ftello: %s", w->path, strerror(errno));
    *bytes = (unsigned long long)at;
    return RES_OK;
}

int res_resume(res_writer **out, const char *dir, const char *fed, size_t n_vars,
               const char *const *vars, unsigned long long bytes, char *err, size_t errlen)
{
    if (!out) return run_fail(err, errlen, RES_EUSAGE, "res_resume: NULL out");
    *out = NULL;
    if (!dir || !dir[0] || !fed || !fed[0] || strchr(fed, '/') || strcmp(fed, ".") == 0 ||
        strcmp(fed, "..") == 0 || n_vars >= RES_MAX_COLS || (n_vars > 0 && !vars))
        return run_fail(err, errlen, RES_EUSAGE, "res_resume: bad folder, federate name or vars");
    for (size_t i = 0; i < n_vars; i++)
        if (!vars[i] || !vars[i][0])
            return run_fail(err, errlen, RES_EUSAGE, "res_resume: %s: variable %zu has no name",
                            fed, i);
    /* the header res_open writes for these variables */
    char *head = NULL;
    size_t hlen = 0;
    FILE *hf = open_memstream(&head, &hlen);
    if (!hf) return run_fail(err, errlen, RES_ENOMEM, "res_resume: %s: out of memory", fed);
    fputs("time", hf);
    for (size_t i = 0; i < n_vars; i++) {
        fputc(',', hf);
        put_name(hf, vars[i]);
    }
    fputc('\n', hf);
    if (fclose(hf) != 0 || !head) {
        free(head);
        return run_fail(err, errlen, RES_ENOMEM, "res_resume: %s: out of memory", fed);
    }
    res_writer *w = calloc(1, sizeof *w);
    size_t plen = strlen(dir) + strlen(fed) + 6;
    if (!w || !(w->path = malloc(plen))) {
        free(w);
        free(head);
        return run_fail(err, errlen, RES_ENOMEM, "res_resume: %s: out of memory", fed);
    }
    snprintf(w->path, plen, "%s/%s.csv", dir, fed);
    w->n_vars = n_vars;
    int rc = RES_OK;
    char *got = NULL;
    int fd = open(w->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    struct stat sb;
    if (fd < 0) {
        rc = run_fail(err, errlen, RES_EIO, "%s: cannot open to resume: %s", w->path,
                      strerror(errno));
    } else if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        rc = run_fail(err, errlen, RES_EIO, "%s: not a regular file", w->path);
    } else if (bytes < hlen || (unsigned long long)sb.st_size < bytes) {
        rc = run_fail(err, errlen, RES_EFORMAT,
                      "%s: %lld bytes, cannot resume at byte %llu (the header alone has %zu)",
                      w->path, (long long)sb.st_size, bytes, hlen);
    } else if (!(got = malloc(hlen))) {
        rc = run_fail(err, errlen, RES_ENOMEM, "%s: out of memory", w->path);
    } else if (pread(fd, got, hlen, 0) != (ssize_t)hlen || memcmp(got, head, hlen) != 0) {
        rc = run_fail(err, errlen, RES_EFORMAT,
                      "%s: its header is not the one of these %zu variables: written by "
                      "another federation",
                      w->path, n_vars);
    } else if (ftruncate(fd, (off_t)bytes) != 0) {
        rc = run_fail(err, errlen, RES_EIO, "%s: cannot cut at byte %llu: %s", w->path, bytes,
                      strerror(errno));
    } else if (!(w->f = fdopen(fd, "r+"))) {
        rc = run_fail(err, errlen, RES_EIO, "%s: fdopen: %s", w->path, strerror(errno));
    } else {
        fd = -1; /* owned by w->f now */
        if ((w->buf = malloc(RES_BUF))) setvbuf(w->f, w->buf, _IOFBF, RES_BUF);
        if (fseeko(w->f, 0, SEEK_END) != 0)
            rc = run_fail(err, errlen, RES_EIO, "%s: seek: %s", w->path, strerror(errno));
    }
    if (fd >= 0) close(fd);
    free(got);
    free(head);
    if (rc != RES_OK) {
        if (w->f)
            res_close(w, NULL, 0);
        else {
            free(w->path);
            free(w);
        }
        return rc;
    }
    *out = w;
    return RES_OK;
}

int res_write_row(res_writer *w, double time, const double *values, char *err, size_t errlen)
{
    return res_write_row_text(w, time, values, NULL, err, errlen);
}

/* Append n bytes to the row being formatted at *len. 0, or -1 out of memory. */
static int row_put(res_writer *w, size_t *len, const char *p, size_t n)
{
    if (*len + n + 1 > w->row_cap) {
        size_t cap = w->row_cap ? w->row_cap : 256;
        while (*len + n + 1 > cap)
            cap *= 2;
        char *r = realloc(w->row, cap);
        if (!r) return -1;
        w->row = r, w->row_cap = cap;
    }
    memcpy(w->row + *len, p, n);
    *len += n;
    return 0;
}

int res_write_row_text(res_writer *w, double time, const double *values, const char *const *text,
                       char *err, size_t errlen)
{
    char b[40];
    if (!w || (w->n_vars > 0 && !values))
        return run_fail(err, errlen, RES_EUSAGE, "res_write_row: NULL writer or values");
    size_t len = 0;
    const char *num = res_format_double(time, b, sizeof b);
    int bad = row_put(w, &len, num, strlen(num));
    for (size_t i = 0; !bad && i < w->n_vars; i++) {
        bad |= row_put(w, &len, ",", 1);
        if (text && text[i]) {
            bad |= row_put(w, &len, "\"", 1);
            for (const char *c = text[i]; *c && !bad; c++) {
                if (*c == '"') bad |= row_put(w, &len, "\"", 1);
                bad |= row_put(w, &len, c, 1);
            }
            bad |= row_put(w, &len, "\"", 1);
            continue;
        }
        num = res_format_double(values[i], b, sizeof b);
        bad |= row_put(w, &len, num, strlen(num));
    }
    bad |= row_put(w, &len, "\n", 1);
    if (bad) return run_fail(err, errlen, RES_ENOMEM, "%s: out of memory", w->path);
    /* whole rows per write (RES_BUF) */
    if (w->pending + len > RES_BUF && w->pending > 0) {
        if (fflush(w->f) != 0)
            return run_fail(err, errlen, RES_EIO, "%s: write: %s", w->path, strerror(errno));
        w->pending = 0;
    }
    if (fwrite(w->row, 1, len, w->f) != len || ferror(w->f))
        return run_fail(err, errlen, RES_EIO, "%s: write: %s", w->path, strerror(errno));
    long long now = now_ns();
    if (!w->pending) w->held_since = now;
    w->pending += len;
    if (now - w->held_since >= RES_FLUSH_NS) { /* held long enough (RES_FLUSH_NS) */
        if (fflush(w->f) != 0)
            return run_fail(err, errlen, RES_EIO, "%s: write: %s", w->path, strerror(errno));
        w->pending = 0;
    }
    return RES_OK;
}

int res_flush(res_writer *w, char *err, size_t errlen)
{
    if (!w) return run_fail(err, errlen, RES_EUSAGE, "res_flush: NULL writer");
    if (fflush(w->f) != 0 || ferror(w->f))
        return run_fail(err, errlen, RES_EIO, "%s: write: %s", w->path, strerror(errno));
    w->pending = 0;
    return RES_OK;
}

const char *res_path(const res_writer *w)
{
    return w ? w->path : NULL;
}

int res_close(res_writer *w, char *err, size_t errlen)
{
    int rc = RES_OK;
    if (!w) return RES_OK;
    int bad = ferror(w->f);
    if (fclose(w->f) != 0 || bad)
        rc = run_fail(err, errlen, RES_EIO, "%s: write or close failed: %s", w->path,
                      strerror(errno));
    free(w->path);
    free(w->row);
    free(w->buf); /* after fclose, which flushed it */
    free(w);
    return rc;
}

/* ======================================================================================
 * Reader
 * ====================================================================================== */

void res_table_free(res_table *t)
{
    if (!t) return;
    for (size_t c = 0; c < t->n_cols; c++) {
        if (t->names) free(t->names[c]);
        if (t->cols) free(t->cols[c]);
    }
    free(t->names);
    free(t->cols);
    free(t->path);
    free(t);
}

long res_table_find(const res_table *t, const char *name)
{
    if (!t || !name) return -1;
    for (size_t c = 0; c < t->n_cols; c++)
        if (strcmp(t->names[c], name) == 0) return (long)c;
    return -1;
}

/* Split the header line into t->names (RFC 4180 quoting). */
static int read_header(res_table *t, char *line, char *err, size_t errlen)
{
    size_t cap = 0;
    char *p = line;
    for (;;) {
        size_t len = strlen(p) + 1;
        char *name = malloc(len), *o = name;
        if (!name) return run_fail(err, errlen, RES_ENOMEM, "%s: out of memory", t->path);
        if (*p == '"') {
            for (p++;; p++) {
                if (*p == '\0') {
                    free(name);
                    return run_fail(err, errlen, RES_EFORMAT,
                                    "%s:1: header field %zu: unterminated quote", t->path,
                                    t->n_cols + 1);
                }
                if (*p == '"' && p[1] == '"') {
                    *o++ = '"';
                    p++;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *o++ = *p;
                }
            }
            if (*p != ',' && *p != '\0') {
                free(name);
                return run_fail(err, errlen, RES_EFORMAT,
                                "%s:1: header field %zu: text after the closing quote", t->path,
                                t->n_cols + 1);
            }
        } else {
            while (*p && *p != ',')
                *o++ = *p++;
        }
        *o = '\0';
        if (!name[0]) {
            free(name);
            return run_fail(err, errlen, RES_EFORMAT, "%s:1: header field %zu is empty", t->path,
                            t->n_cols + 1);
        }
        if (t->n_cols >= RES_MAX_COLS) {
            free(name);
            return run_fail(err, errlen, RES_ELIMIT, "%s:1: more than %d columns", t->path,
                            RES_MAX_COLS);
        }
        if (t->n_cols == cap) {
            size_t nc = cap ? cap * 2 : 8;
            char **nn = realloc(t->names, nc * sizeof *nn);
            if (!nn) {
                free(name);
                return run_fail(err, errlen, RES_ENOMEM, "%s: out of memory", t->path);
            }
            t->names = nn;
            cap = nc;
        }
        t->names[t->n_cols++] = name;
        if (*p == '\0') break;
        p++; /* the comma */
    }
    t->cols = calloc(t->n_cols, sizeof *t->cols);
    if (!t->cols) return run_fail(err, errlen, RES_ENOMEM, "%s: out of memory", t->path);
    return RES_OK;
}

/* Parse one data line into row t->n_rows (storage already grown). */
static int read_row(res_table *t, char *line, size_t lineno, char *err, size_t errlen)
{
    char *p = line;
    size_t c = 0;
    for (;;) {
        int text = *p == '"'; /* a quoted text field (a String variable) reads as NaN */
        char *end = p + text;
        while (text && *end && (*end != '"' || end[1] == '"'))
            end += *end == '"' ? 2 : 1;
        if (text && *end++ != '"')
            return run_fail(err, errlen, RES_EFORMAT, "%s:%zu: field %zu: unterminated quote",
                            t->path, lineno, c + 1);
        if (text && *end != ',' && *end != '\0')
            return run_fail(err, errlen, RES_EFORMAT,
                            "%s:%zu: field %zu: text after the closing quote", t->path, lineno,
                            c + 1);
        while (*end && *end != ',')
            end++;
        char sep = *end;
        *end = '\0';
        if (c >= t->n_cols)
            return run_fail(err, errlen, RES_EFORMAT, "%s:%zu: more fields than the header's %zu",
                            t->path, lineno, t->n_cols);
        if (text) *p = '\0';
        const char *s = p;
        while (*s == ' ' || *s == '\t')
            s++;
        double v = NAN;
        if (*s) {
            char *q;
            errno = 0;
            v = strtod(s, &q);
            while (*q == ' ' || *q == '\t')
                q++;
            if (q == s || *q != '\0')
                return run_fail(err, errlen, RES_EFORMAT,
                                "%s:%zu: field %zu (\"%s\"): cannot read \"%s\" as a number",
                                t->path, lineno, c + 1, t->names[c], s);
        }
        t->cols[c][t->n_rows] = v;
        c++;
        if (sep == '\0') break;
        p = end + 1;
    }
    if (c != t->n_cols)
        return run_fail(err, errlen, RES_EFORMAT, "%s:%zu: %zu fields, the header has %zu", t->path,
                        lineno, c, t->n_cols);
    t->n_rows++;
    return RES_OK;
}

/* Double the row capacity of every column (amortised O(1) per row), up to RES_MAX_ROWS. */
static int grow_rows(res_table *t, size_t *cap, size_t lineno, char *err, size_t errlen)
{
    if (*cap >= RES_MAX_ROWS)
        return run_fail(err, errlen, RES_ELIMIT, "%s:%zu: more than %d rows", t->path, lineno,
                        RES_MAX_ROWS);
    size_t nc = *cap ? *cap * 2 : 256;
    if (nc > RES_MAX_ROWS) nc = RES_MAX_ROWS;
    for (size_t c = 0; c < t->n_cols; c++) {
        double *d = realloc(t->cols[c], nc * sizeof *d);
        if (!d) return run_fail(err, errlen, RES_ENOMEM, "%s:%zu: out of memory", t->path, lineno);
        t->cols[c] = d;
    }
    *cap = nc;
    return RES_OK;
}

int res_read_csv(const char *path, res_table **out, char *err, size_t errlen)
{
    if (!out) return run_fail(err, errlen, RES_EUSAGE, "res_read_csv: NULL out");
    *out = NULL;
    if (!path) return run_fail(err, errlen, RES_EUSAGE, "res_read_csv: NULL path");
    int rc = RES_OK;
    size_t cap = 0, lineno = 0;
    char *line = NULL;
    res_table *t = calloc(1, sizeof *t);
    if (!t || !(t->path = strdup(path)) || !(line = malloc(RES_MAX_LINE + 2))) {
        res_table_free(t);
        return run_fail(err, errlen, RES_ENOMEM, "%s: out of memory", path);
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        rc = run_fail(err, errlen, RES_EIO, "%s: cannot open: %s", path, strerror(errno));
        goto out;
    }
    while (fgets(line, RES_MAX_LINE + 2, f)) {
        lineno++;
        size_t n = strlen(line);
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = '\0';
        else if (!feof(f) || n > RES_MAX_LINE) {
            rc = run_fail(err, errlen, RES_ELIMIT,
                          "%s:%zu: line longer than %d bytes (or holding a NUL byte)", path, lineno,
                          RES_MAX_LINE);
            goto out;
        }
        if (n > 0 && line[n - 1] == '\r') line[--n] = '\0';
        if (n == 0) {
            rc = run_fail(err, errlen, RES_EFORMAT, "%s:%zu: empty line", path, lineno);
            goto out;
        }
        if (lineno == 1) {
            if ((rc = read_header(t, line, err, errlen)) != RES_OK) goto out;
            continue;
        }
        if (t->n_rows == cap && (rc = grow_rows(t, &cap, lineno, err, errlen)) != RES_OK) goto out;
        if ((rc = read_row(t, line, lineno, err, errlen)) != RES_OK) goto out;
    }
    if (ferror(f)) {
        rc = run_fail(err, errlen, RES_EIO, "%s: read error: %s", path, strerror(errno));
        goto out;
    }
    if (lineno == 0)
        rc = run_fail(err, errlen, RES_EFORMAT, "%s:1: empty file (a header line is required)",
                      path);
out:
    if (f) fclose(f);
    free(line);
    if (rc != RES_OK) {
        res_table_free(t);
        return rc;
    }
    *out = t;
    return RES_OK;
}
