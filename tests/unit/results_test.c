/* Tests of federate/run/results.h: the CSV writer (folder creation, header quoting, lossless
 * numbers, NaN and infinities) read back by the reader, and the reader's errors on bad files
 * (each naming file, line and field); a file continued at a recorded position (res_position,
 * res_resume: doc/checkpoint.md) equals one written without a stop, even when rows were
 * written after the position before the stop. doc/run.md. Read federate/run/results.h first.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "federate/run/results.h"
#include "tests/check.h"

static char g_dir[256]; /* scratch folder of this run */

static void write_file(const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", g_dir, name);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Expected strings are Python's repr() of the same doubles (shortest round-trip form), an
 * independent implementation. */
static void test_format(void)
{
    char b[40];
    CHECK_STR_EQ(res_format_double(0.3, b, sizeof b), "0.3");
    CHECK_STR_EQ(res_format_double(0.1 + 0.2, b, sizeof b), "0.30000000000000004");
    CHECK_STR_EQ(res_format_double(100, b, sizeof b), "100");
    CHECK_STR_EQ(res_format_double(-0.0, b, sizeof b), "-0");
    CHECK_STR_EQ(res_format_double(NAN, b, sizeof b), "nan");
    CHECK_STR_EQ(res_format_double(-INFINITY, b, sizeof b), "-inf");
    CHECK_STR_EQ(res_format_double(1e300, b, sizeof b), "1e+300");
    /* every form reads back to the same bits: a sweep over awkward values */
    int all = 1;
    double v = 1.0 / 3.0;
    for (int i = 0; i < 2000; i++) {
        double x = v * pow(10.0, (i % 600) - 300) * (i % 2 ? -1 : 1) + i * 1e-17;
        res_format_double(x, b, sizeof b);
        if (!same_bits(strtod(b, NULL), x)) {
            all = 0;
            fprintf(stderr, "round trip failed for %.17g -> %s\n", x, b);
            break;
        }
    }
    CHECK(all, "2000 values round-trip exactly");
    CHECK_STR_EQ(res_format_double(5e-324, b, sizeof b), "5e-324");
}

static void test_write_read(void)
{
    char err[RES_ERRLEN] = "", dir[400];
    snprintf(dir, sizeof dir, "%s/out/nested", g_dir);
    const char *vars[] = {"x", "der(y)", "a[1,2]", "say \"hi\""};
    res_writer *w = NULL;
    CHECK_INT_EQ(res_open(&w, dir, "A", 4, vars, err, sizeof err), RES_OK);
    CHECK_STR_HAS(res_path(w), "out/nested/A.csv");
    double row0[4] = {1.0, 0.1 + 0.2, NAN, -INFINITY};
    double row1[4] = {-1e-310, 1.0 / 3.0, 2.5, 123456789.123456789};
    CHECK_INT_EQ(res_write_row(w, 0.0, row0, err, sizeof err), RES_OK);
    CHECK_INT_EQ(res_write_row(w, 0.5, row1, err, sizeof err), RES_OK);
    CHECK_INT_EQ(res_close(w, err, sizeof err), RES_OK);

    char path[512];
    snprintf(path, sizeof path, "%s/A.csv", dir);
    FILE *f = fopen(path, "r");
    char text[512] = "";
    if (f) {
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = '\0';
        fclose(f);
    }
    CHECK_STR_EQ(text, "time,x,der(y),\"a[1,2]\",\"say \"\"hi\"\"\"\n"
                       "0,1,0.30000000000000004,nan,-inf\n"
                       "0.5,-1e-310,0.3333333333333333,2.5,123456789.12345679\n");

    res_table *t = NULL;
    CHECK_INT_EQ(res_read_csv(path, &t, err, sizeof err), RES_OK);
    if (t) {
        CHECK_INT_EQ(t->n_cols, 5);
        CHECK_INT_EQ(t->n_rows, 2);
        CHECK_STR_EQ(t->names[0], "time");
        CHECK_STR_EQ(t->names[3], "a[1,2]");
        CHECK_STR_EQ(t->names[4], "say \"hi\"");
        CHECK_INT_EQ(res_table_find(t, "der(y)"), 2);
        CHECK_INT_EQ(res_table_find(t, "nope"), -1);
        CHECK(same_bits(t->cols[0][1], 0.5), "time read back");
        CHECK(isnan(t->cols[3][0]), "NaN read back");
        CHECK(isinf(t->cols[4][0]) && t->cols[4][0] < 0, "-inf read back");
        for (int c = 0; c < 4; c++) {
            CHECK(same_bits(t->cols[c + 1][1], row1[c]), "column %d bits read back", c + 1);
        }
        CHECK(same_bits(t->cols[2][0], row0[1]), "0.1+0.2 read back exactly");
    }
    res_table_free(t);

    /* writing again replaces the file: identical runs give identical files */
    CHECK_INT_EQ(res_open(&w, dir, "A", 1, vars, err, sizeof err), RES_OK);
    CHECK_INT_EQ(res_close(w, err, sizeof err), RES_OK);
    CHECK_INT_EQ(res_read_csv(path, &t, err, sizeof err), RES_OK);
    CHECK(t && t->n_rows == 0 && t->n_cols == 2, "replaced by a header-only file");
    res_table_free(t);

    /* time only; res_flush makes the rows readable while the writer is still open */
    CHECK_INT_EQ(res_open(&w, dir, "T", 0, NULL, err, sizeof err), RES_OK);
    CHECK_INT_EQ(res_write_row(w, 2.0, NULL, err, sizeof err), RES_OK);
    CHECK_INT_EQ(res_flush(w, err, sizeof err), RES_OK);
    snprintf(path, sizeof path, "%s/T.csv", dir);
    CHECK_INT_EQ(res_read_csv(path, &t, err, sizeof err), RES_OK);
    CHECK(t && t->n_rows == 1 && t->n_cols == 1, "flushed row visible before close");
    res_table_free(t);
    CHECK_INT_EQ(res_close(w, err, sizeof err), RES_OK);
    CHECK_INT_EQ(res_flush(NULL, err, sizeof err), RES_EUSAGE);
}

static void test_writer_errors(void)
{
    char err[RES_ERRLEN] = "";
    const char *vars[] = {"x", ""};
    res_writer *w = (res_writer *)1;
    CHECK_INT_EQ(res_open(&w, g_dir, "a/b", 1, vars, err, sizeof err), RES_EUSAGE);
    CHECK(w == NULL, "out cleared on error");
    CHECK_STR_HAS(err, "a/b");
    CHECK_INT_EQ(res_open(&w, g_dir, "..", 1, vars, err, sizeof err), RES_EUSAGE);
    CHECK_INT_EQ(res_open(&w, g_dir, "B", 2, vars, err, sizeof err), RES_EUSAGE);
    CHECK_STR_HAS(err, "variable 1");
    CHECK_INT_EQ(res_open(&w, g_dir, "B", RES_MAX_COLS, vars, err, sizeof err), RES_EUSAGE);
    /* a file where a folder should be */
    char dir[400];
    write_file("plainfile", "x");
    snprintf(dir, sizeof dir, "%s/plainfile/sub", g_dir);
    CHECK_INT_EQ(res_open(&w, dir, "B", 1, vars, err, sizeof err), RES_EIO);
    CHECK_STR_HAS(err, "plainfile");
    CHECK_INT_EQ(res_close(NULL, err, sizeof err), RES_OK);
    CHECK_INT_EQ(res_write_row(NULL, 0, NULL, err, sizeof err), RES_EUSAGE);
}

/* Read a file with the given text and expect rc and a message fragment. */
static void bad_file(const char *text, int rc, const char *needle)
{
    char err[RES_ERRLEN] = "", path[512];
    write_file("bad.csv", text);
    snprintf(path, sizeof path, "%s/bad.csv", g_dir);
    res_table *t = (res_table *)1;
    CHECK_INT_EQ(res_read_csv(path, &t, err, sizeof err), rc);
    CHECK(t == NULL, "no table on error");
    CHECK_STR_HAS(err, "bad.csv");
    CHECK_STR_HAS(err, needle);
}

static void test_reader_errors(void)
{
    char err[RES_ERRLEN] = "", path[512];
    bad_file("", RES_EFORMAT, "empty file");
    bad_file("time,x\n0,1\n1,2x\n", RES_EFORMAT, "bad.csv:3: field 2 (\"x\"): cannot read \"2x\"");
    bad_file("time,x,y\n0,1,2\n1,2\n", RES_EFORMAT, "bad.csv:3: 2 fields, the header has 3");
    bad_file("time,x\n0,1,2\n", RES_EFORMAT, "bad.csv:2: more fields");
    bad_file("time,x\n\n0,1\n", RES_EFORMAT, "bad.csv:2: empty line");
    bad_file("time,,x\n", RES_EFORMAT, "header field 2 is empty");
    bad_file("time,\"x\n", RES_EFORMAT, "unterminated quote");
    bad_file("time,\"x\"y\n", RES_EFORMAT, "after the closing quote");
    char *huge = malloc(RES_MAX_LINE + 100);
    if (huge) {
        memcpy(huge, "time,x\n", 7);
        memset(huge + 7, '1', RES_MAX_LINE + 50);
        strcpy(huge + 7 + RES_MAX_LINE + 50, "\n");
        bad_file(huge, RES_ELIMIT, "bad.csv:2: line longer than");
        free(huge);
    }
    /* an empty field is NaN; CRLF and a missing final newline are fine */
    write_file("ok.csv", "time,x\r\n0, \r\n1,2");
    snprintf(path, sizeof path, "%s/ok.csv", g_dir);
    res_table *t = NULL;
    CHECK_INT_EQ(res_read_csv(path, &t, err, sizeof err), RES_OK);
    CHECK(t && t->n_rows == 2 && isnan(t->cols[1][0]), "empty field read as NaN");
    CHECK(t && fabs(t->cols[1][1] - 2.0) < 1e-300, "last line without newline read");
    res_table_free(t);
    snprintf(path, sizeof path, "%s/missing.csv", g_dir);
    CHECK_INT_EQ(res_read_csv(path, &t, err, sizeof err), RES_EIO);
    CHECK_STR_HAS(err, "missing.csv: cannot open");
    CHECK_INT_EQ(res_read_csv(NULL, &t, err, sizeof err), RES_EUSAGE);
    res_table_free(NULL);
}

/* Many rows: the columns grow past their first allocation. */
static void test_many_rows(void)
{
    char err[RES_ERRLEN] = "", path[512];
    const char *vars[] = {"y"};
    res_writer *w = NULL;
    CHECK_INT_EQ(res_open(&w, g_dir, "big", 1, vars, err, sizeof err), RES_OK);
    for (int i = 0; i < 10000 && w; i++) {
        double y = sin(i * 0.01);
        res_write_row(w, i * 0.01, &y, err, sizeof err);
    }
    CHECK_INT_EQ(res_close(w, err, sizeof err), RES_OK);
    snprintf(path, sizeof path, "%s/big.csv", g_dir);
    res_table *t = NULL;
    CHECK_INT_EQ(res_read_csv(path, &t, err, sizeof err), RES_OK);
    int exact = t && t->n_rows == 10000;
    for (size_t i = 0; exact && i < t->n_rows; i++)
        exact = same_bits(t->cols[1][i], sin((double)i * 0.01)) &&
                same_bits(t->cols[0][i], (double)i * 0.01);
    CHECK(exact, "10000 rows read back bit for bit");
    res_table_free(t);
}

/* A process that dies without closing its writer (an FMU's crash, doc/robustness.md) leaves
 * whole rows: a child writes 30 000 rows of varying length (several buffers) and ends with
 * _exit, the stdio buffer unwritten; the file then holds the header and a whole number of rows,
 * each the one written, and the rows past the last full buffer are missing. */
static void test_rows_whole_after_death(void)
{
    char err[RES_ERRLEN] = "", path[512];
    const char *vars[] = {"y", "z"};
    pid_t pid = fork();
    if (pid == 0) {
        res_writer *w = NULL;
        if (res_open(&w, g_dir, "dead", 2, vars, err, sizeof err) != RES_OK) _exit(2);
        for (int i = 0; i < 30000; i++) {
            double v[2] = {sin(i * 0.01), i % 7 ? 1.0 / (i + 1) : 0.5};
            if (res_write_row(w, i * 0.01, v, err, sizeof err) != RES_OK) _exit(3);
        }
        _exit(0); /* as a crash would: nothing flushed */
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "child ran");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child wrote its rows");
    snprintf(path, sizeof path, "%s/dead.csv", g_dir);
    res_table *t = NULL;
    CHECK_INT_EQ(res_read_csv(path, &t, err, sizeof err), RES_OK);
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size > 0, "the header at least is on disk");
    FILE *f = fopen(path, "r");
    int last_nl = 0;
    if (f && fseek(f, -1, SEEK_END) == 0) last_nl = fgetc(f) == '\n';
    if (f) fclose(f);
    CHECK(last_nl, "the file ends with a whole row");
    int exact = t && t->n_rows > 0 && t->n_rows < 30000;
    for (size_t i = 0; exact && i < t->n_rows; i++)
        exact = same_bits(t->cols[1][i], sin((double)i * 0.01)) &&
                same_bits(t->cols[2][i], i % 7 ? 1.0 / (double)(i + 1) : 0.5);
    CHECK(exact, "rows 0..n-1 read back bit for bit, n < 30000 (got %zu)", t ? t->n_rows : 0);
    res_table_free(t);
}

/* Rows that come slowly reach the file within a tenth of a second of the first waiting
 * (RES_FLUSH_NS), long before 64 KiB of them wait: a row every millisecond, at most 2000 rows
 * (about 30 KiB, 2 s), and the file grows past its header before the end (issue 38: a crash
 * lost up to 64 KiB of rows; a CSV showed nothing of a slow run for minutes). */
static void test_rows_in_time(void)
{
    char err[RES_ERRLEN] = "", path[512];
    const char *vars[] = {"y"};
    res_writer *w = NULL;
    CHECK_INT_EQ(res_open(&w, g_dir, "slow", 1, vars, err, sizeof err), RES_OK);
    if (!w) return;
    snprintf(path, sizeof path, "%s/slow.csv", g_dir);
    struct stat st;
    off_t header = stat(path, &st) == 0 ? st.st_size : -1;
    CHECK(header > 0, "the header is on disk at once");
    int rows = 0, seen = 0;
    for (; rows < 2000 && !seen; rows++) {
        double v = rows * 0.5;
        CHECK_INT_EQ(res_write_row(w, rows * 1e-3, &v, err, sizeof err), RES_OK);
        seen = stat(path, &st) == 0 && st.st_size > header;
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    CHECK(seen, "rows on disk before the writer is closed (%d rows written)", rows);
    CHECK_INT_EQ(res_close(w, err, sizeof err), RES_OK);
}

/* Random mutations of a valid file (fixed seed): the reader must either load it or refuse it
 * with a message naming the file, and never crash or leak (run under ASan in make test). */
static void test_mutations(void)
{
    const char *base = "time,x,\"a,b\"\n0,1.5,nan\n0.5,-2e3,inf\n1,,7\n";
    const char alphabet[] = ",\"\n\r 0123456789.eE+-naix\t\x01\xff";
    char buf[128], err[RES_ERRLEN], path[512];
    snprintf(path, sizeof path, "%s/mut.csv", g_dir);
    unsigned long long x = 99;
    int loaded = 0, refused = 0, bad_msg = 0;
    for (int k = 0; k < 600; k++) {
        size_t n = strlen(base);
        memcpy(buf, base, n);
        int edits = 1 + k % 4;
        for (int e = 0; e < edits; e++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            size_t at = (size_t)(x >> 33) % n;
            char c = alphabet[(x >> 20) % (sizeof alphabet - 1)];
            if ((x >> 8) % 3 == 0 && n + 1 < sizeof buf) { /* insert */
                memmove(buf + at + 1, buf + at, n - at);
                buf[at] = c;
                n++;
            } else if ((x >> 8) % 3 == 1 && n > 1) { /* delete */
                memmove(buf + at, buf + at + 1, n - at - 1);
                n--;
            } else {
                buf[at] = c;
            }
        }
        FILE *f = fopen(path, "wb");
        if (!f) break;
        fwrite(buf, 1, n, f);
        fclose(f);
        res_table *t = NULL;
        int rc = res_read_csv(path, &t, err, sizeof err);
        if (rc == RES_OK) {
            loaded++;
            bad_msg += !(t && t->n_cols >= 1);
        } else {
            refused++;
            bad_msg += t != NULL || strstr(err, "mut.csv") == NULL;
        }
        res_table_free(t);
    }
    CHECK(loaded > 0 && refused > 0, "both outcomes seen: %d loaded, %d refused", loaded, refused);
    CHECK_INT_EQ(bad_msg, 0);
}

/* String columns: written quoted with quotes doubled, read back as NaN; a broken quote in a
 * data field is refused with its line and field. */
static void test_text_columns(void)
{
    char err[RES_ERRLEN];
    res_writer *w = NULL;
    const char *names[] = {"x", "phase", "n"};
    CHECK_INT_EQ(res_open(&w, g_dir, "text", 3, names, err, sizeof err), RES_OK);
    double v[3] = {1.5, 0, 3};
    const char *t0[3] = {NULL, "late, \"x\"", NULL}, *t1[3] = {NULL, "", NULL};
    CHECK_INT_EQ(res_write_row_text(w, 0.0, v, t0, err, sizeof err), RES_OK);
    CHECK_INT_EQ(res_write_row_text(w, 0.5, v, t1, err, sizeof err), RES_OK);
    CHECK_INT_EQ(res_write_row_text(w, 1.0, v, NULL, err, sizeof err), RES_OK);
    CHECK_INT_EQ(res_close(w, err, sizeof err), RES_OK);
    char path[320], text[256] = "";
    snprintf(path, sizeof path, "%s/text.csv", g_dir);
    FILE *f = fopen(path, "r");
    if (f) {
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = '\0';
        fclose(f);
    }
    CHECK_STR_EQ(text, "time,x,phase,n\n0,1.5,\"late, \"\"x\"\"\",3\n0.5,1.5,\"\",3\n1,1.5,0,3\n");
    res_table *t = NULL;
    CHECK_INT_EQ(res_read_csv(path, &t, err, sizeof err), RES_OK);
    CHECK(t && t->n_rows == 3 && isnan(t->cols[2][0]) && isnan(t->cols[2][1]) &&
              t->cols[2][2] == 0 && t->cols[3][0] == 3,
          "text columns read back wrong");
    res_table_free(t);
    bad_file("time,s\n0,\"abc\n", RES_EFORMAT, "bad.csv:2: field 2: unterminated quote");
    bad_file("time,s\n0,\"a\"b\n", RES_EFORMAT, "bad.csv:2: field 2: text after the closing quote");
}

static size_t slurp(const char *path, char *out, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(out, 1, cap - 1, f);
    out[n] = 0;
    fclose(f);
    return n;
}

/* Rows 0..n-1 of a made-up signal, "a,b" quoted in the header. */
static void rows(res_writer *w, int from, int to)
{
    char err[RES_ERRLEN];
    for (int i = from; i < to; i++) {
        double v[2] = {sin(0.3 * i), 1.0 / (i + 1)};
        CHECK_INT_EQ(res_write_row(w, 0.1 * i, v, err, sizeof err), RES_OK);
    }
}

static void test_resume(void)
{
    const char *vars[] = {"x", "a,b"};
    char err[RES_ERRLEN], ref[8192], got[8192], path[400];
    res_writer *w = NULL;
    /* the reference: 30 rows without a stop */
    CHECK_INT_EQ(res_open(&w, g_dir, "ref", 2, vars, err, sizeof err), RES_OK);
    rows(w, 0, 30);
    CHECK_INT_EQ(res_close(w, err, sizeof err), RES_OK);
    snprintf(path, sizeof path, "%s/ref.csv", g_dir);
    size_t nref = slurp(path, ref, sizeof ref);
    /* 12 rows, the position, 5 more rows (then a "crash"), resume at the position */
    CHECK_INT_EQ(res_open(&w, g_dir, "cut", 2, vars, err, sizeof err), RES_OK);
    rows(w, 0, 12);
    unsigned long long at = 0;
    CHECK_INT_EQ(res_position(w, &at, err, sizeof err), RES_OK);
    rows(w, 12, 17);
    CHECK_INT_EQ(res_close(w, err, sizeof err), RES_OK);
    CHECK_INT_EQ(res_resume(&w, g_dir, "cut", 2, vars, at, err, sizeof err), RES_OK);
    rows(w, 12, 30);
    CHECK_INT_EQ(res_close(w, err, sizeof err), RES_OK);
    snprintf(path, sizeof path, "%s/cut.csv", g_dir);
    size_t ngot = slurp(path, got, sizeof got);
    CHECK(nref > 500 && ngot == nref && memcmp(ref, got, nref) == 0,
          "resumed file equals the uninterrupted one (%zu vs %zu bytes)", ngot, nref);
    /* refusals: other variables, a position past the end or inside the header, no file, a
     * symbolic link */
    const char *other[] = {"x", "b"};
    CHECK_INT_EQ(res_resume(&w, g_dir, "cut", 2, other, at, err, sizeof err), RES_EFORMAT);
    CHECK_STR_HAS(err, "another federation");
    CHECK_INT_EQ(res_resume(&w, g_dir, "cut", 2, vars, nref + 1, err, sizeof err), RES_EFORMAT);
    CHECK_STR_HAS(err, "cannot resume at byte");
    CHECK_INT_EQ(res_resume(&w, g_dir, "cut", 2, vars, 3, err, sizeof err), RES_EFORMAT);
    CHECK_INT_EQ(res_resume(&w, g_dir, "none", 2, vars, at, err, sizeof err), RES_EIO);
    CHECK_STR_HAS(err, "none.csv");
    char link[400];
    snprintf(link, sizeof link, "%s/link.csv", g_dir);
    CHECK_INT_EQ(symlink("cut.csv", link), 0);
    CHECK_INT_EQ(res_resume(&w, g_dir, "link", 2, vars, at, err, sizeof err), RES_EIO);
    CHECK(w == NULL, "nothing opened on refusal");
    /* a refused resume left the file as it was */
    CHECK_INT_EQ((long)slurp(path, got, sizeof got), (long)nref);
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "build/test-tmp/results_test.%ld", (long)getpid());
    mkdir("build", 0777);
    mkdir("build/test-tmp", 0777);
    mkdir(g_dir, 0777);
    test_format();
    test_write_read();
    test_writer_errors();
    test_reader_errors();
    test_text_columns();
    test_many_rows();
    test_rows_whole_after_death();
    test_rows_in_time();
    test_mutations();
    test_resume();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_dir);
    return check_summary();
}
