/* Unit test of the checkpoint folder (rti/proto/ckpt.h, doc/checkpoint.md): a written folder
 * reads back with the same label, time and parts; nothing is left under the final name until
 * the commit; an existing checkpoint is never overwritten; a foreign, newer, truncated or
 * altered checkpoint is refused with an error naming the file; the byte codec refuses overruns.
 * Read rti/proto/ckpt.h first. */
#include "rti/proto/ckpt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/check.h"

static char root[256];

static void path_of(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", root, name);
}

static bool exists(const char *p)
{
    struct stat sb;
    return lstat(p, &sb) == 0;
}

static void spit(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f) return;
    fwrite(text, 1, n, f);
    fclose(f);
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

/* A checkpoint "dir" with parts rti (binary, holds NUL bytes) and fed-A (empty). */
static int make(const char *dir, int64_t t)
{
    struct ckpt_writer *w = NULL;
    char err[CKPT_ERR_LEN];
    int rc = ckpt_begin(&w, dir, "L1", t, err, sizeof err);
    if (rc != CKPT_OK) return rc;
    const uint8_t rti[] = {1, 0, 2, 0, 0xff, 'x'};
    rc = ckpt_add(w, "rti", rti, sizeof rti, err, sizeof err);
    if (rc == CKPT_OK) rc = ckpt_add(w, "fed-A", NULL, 0, err, sizeof err);
    if (rc != CKPT_OK) {
        ckpt_abort(w);
        return rc;
    }
    return ckpt_commit(w, err, sizeof err);
}

static void test_round_trip(void)
{
    char dir[300], err[CKPT_ERR_LEN];
    path_of(dir, sizeof dir, "c1");
    CHECK_INT_EQ(make(dir, -1234567890123LL), CKPT_OK);
    struct ckpt_reader *r = NULL;
    CHECK_INT_EQ(ckpt_open(&r, dir, err, sizeof err), CKPT_OK);
    if (!r) return;
    CHECK_STR_EQ(ckpt_label(r), "L1");
    CHECK(ckpt_time(r) == -1234567890123LL, "time read back");
    CHECK_INT_EQ((long)ckpt_nparts(r), 2);
    CHECK_STR_EQ(ckpt_part_name(r, 0), "rti");
    CHECK_STR_EQ(ckpt_part_name(r, 1), "fed-A");
    const uint8_t *d = NULL;
    size_t n = 0;
    CHECK_INT_EQ(ckpt_part(r, "rti", &d, &n), CKPT_OK);
    CHECK_INT_EQ((long)n, 6);
    CHECK(d && d[4] == 0xff && d[5] == 'x', "part bytes read back");
    CHECK_INT_EQ(ckpt_part(r, "fed-A", &d, &n), CKPT_OK);
    CHECK_INT_EQ((long)n, 0);
    CHECK_INT_EQ(ckpt_part(r, "fed-B", &d, &n), CKPT_ENOENT);
    ckpt_close(r);
    /* never overwritten */
    CHECK_INT_EQ(make(dir, 5), CKPT_EEXIST);
}

/* Until the commit the final name does not exist; an abort leaves nothing at all. */
static void test_atomic(void)
{
    char dir[300], tmp[340], err[CKPT_ERR_LEN];
    path_of(dir, sizeof dir, "c2");
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", dir, (long)getpid());
    struct ckpt_writer *w = NULL;
    CHECK_INT_EQ(ckpt_begin(&w, dir, "x", 0, err, sizeof err), CKPT_OK);
    CHECK_INT_EQ(ckpt_add(w, "p", "abc", 3, err, sizeof err), CKPT_OK);
    CHECK(!exists(dir), "no final folder before the commit");
    CHECK(exists(tmp), "the temporary folder holds the parts");
    ckpt_abort(w);
    CHECK(!exists(dir) && !exists(tmp), "abort leaves nothing");
    /* a folder without a manifest (a crash before the commit, renamed by hand) is foreign */
    CHECK_INT_EQ(ckpt_begin(&w, dir, "x", 0, err, sizeof err), CKPT_OK);
    CHECK_INT_EQ(ckpt_add(w, "p", "abc", 3, err, sizeof err), CKPT_OK);
    CHECK_INT_EQ(rename(tmp, dir), 0);
    ckpt_abort(w);
    struct ckpt_reader *r = NULL;
    CHECK_INT_EQ(ckpt_open(&r, dir, err, sizeof err), CKPT_EFOREIGN);
    CHECK(strstr(err, "MANIFEST") != NULL, "names the missing manifest: %s", err);
}

static void test_bad_arguments(void)
{
    char dir[300], err[CKPT_ERR_LEN];
    path_of(dir, sizeof dir, "c3");
    struct ckpt_writer *w = NULL;
    CHECK_INT_EQ(ckpt_begin(&w, dir, "../x", 0, err, sizeof err), CKPT_EINVAL);
    CHECK_INT_EQ(ckpt_begin(&w, dir, "", 0, err, sizeof err), CKPT_EINVAL);
    CHECK_INT_EQ(ckpt_begin(&w, dir, "ok", 0, err, sizeof err), CKPT_OK);
    CHECK_INT_EQ(ckpt_add(w, "a/b", "x", 1, err, sizeof err), CKPT_EINVAL);
    CHECK_INT_EQ(ckpt_add(w, CKPT_MANIFEST, "x", 1, err, sizeof err), CKPT_EINVAL);
    CHECK_INT_EQ(ckpt_add(w, ".hidden", "x", 1, err, sizeof err), CKPT_EINVAL);
    CHECK_INT_EQ(ckpt_add(w, "a", "x", 1, err, sizeof err), CKPT_OK);
    CHECK_INT_EQ(ckpt_add(w, "a", "y", 1, err, sizeof err), CKPT_EINVAL);
    CHECK(strstr(err, "twice") != NULL, "duplicate named: %s", err);
    ckpt_abort(w);
    CHECK(!ckpt_name_ok("0123456789012345678901234567890123456789012345678901234567890123x"),
          "65 bytes is too long");
}

/* Each damage is refused with the expected code and an error naming the file. */
static void expect_refused(const char *dir, int code, const char *needle)
{
    char err[CKPT_ERR_LEN] = "";
    struct ckpt_reader *r = NULL;
    int rc = ckpt_open(&r, dir, err, sizeof err);
    CHECK_INT_EQ(rc, code);
    CHECK(r == NULL, "nothing half-loaded");
    CHECK(strstr(err, needle) != NULL, "error '%s' names '%s'", err, needle);
    ckpt_close(r);
}

static void test_refusals(void)
{
    char dir[300], m[340], p[340], text[4096];
    path_of(dir, sizeof dir, "c4");
    CHECK_INT_EQ(make(dir, 42), CKPT_OK);
    snprintf(m, sizeof m, "%s/%s", dir, CKPT_MANIFEST);
    snprintf(p, sizeof p, "%s/rti", dir);
    size_t n = slurp(m, text, sizeof text);
    CHECK(n > 0, "manifest read");
    char orig[4096];
    memcpy(orig, text, n + 1);

    /* a part altered, same size */
    char part[16];
    size_t pn = slurp(p, part, sizeof part);
    part[5] = 'y';
    unlink(p);
    spit(p, part, pn);
    expect_refused(dir, CKPT_EDAMAGED, "/rti: checksum mismatch");
    /* a part truncated */
    unlink(p);
    spit(p, part, 3);
    expect_refused(dir, CKPT_EDAMAGED, "/rti: 3 bytes");
    /* a part missing */
    unlink(p);
    expect_refused(dir, CKPT_EDAMAGED, "/rti: cannot open");
    part[5] = 'x';
    spit(p, part, pn);
    struct ckpt_reader *r = NULL;
    char err[CKPT_ERR_LEN];
    CHECK_INT_EQ(ckpt_open(&r, dir, err, sizeof err), CKPT_OK); /* repaired: reads again */
    ckpt_close(r);

    /* the manifest altered: time changed by one digit */
    char *t = strstr(text, "time 42");
    CHECK(t != NULL, "manifest holds the time");
    if (t) t[6] = '3';
    unlink(m);
    spit(m, text, n);
    expect_refused(dir, CKPT_EDAMAGED, "checksum mismatch (the manifest");
    /* the manifest truncated: the last line gone */
    unlink(m);
    spit(m, orig, n - 10);
    expect_refused(dir, CKPT_EDAMAGED, "expected 'end CHECKSUM'");
    /* a newer format version */
    memcpy(text, orig, n + 1);
    text[strlen(CKPT_MAGIC) + 1] = '9';
    unlink(m);
    spit(m, text, n);
    expect_refused(dir, CKPT_EFOREIGN, "format version 9, this build reads version 1");
    /* another program's file */
    unlink(m);
    spit(m, "{\"json\": 1}\n", 12);
    expect_refused(dir, CKPT_EFOREIGN, "not a Tempo checkpoint manifest");
    /* not a folder at all */
    expect_refused(m, CKPT_EFOREIGN, "not a folder");
}

static void test_codec(void)
{
    struct buf b;
    buf_init(&b);
    CHECK_INT_EQ(ckpt_put_u8(&b, 7), 0);
    CHECK_INT_EQ(ckpt_put_u32(&b, 0xdeadbeefu), 0);
    CHECK_INT_EQ(ckpt_put_i64(&b, INT64_MIN), 0);
    CHECK_INT_EQ(ckpt_put_u64(&b, 0x0102030405060708ull), 0);
    CHECK_INT_EQ(ckpt_put_str(&b, "name"), 0);
    CHECK_INT_EQ((long)b.len, 1 + 4 + 8 + 8 + 4 + 4);
    CHECK_INT_EQ(b.data[1], 0xef); /* little-endian */
    struct ckpt_dec d;
    ckpt_dec_init(&d, b.data, b.len);
    CHECK_INT_EQ(ckpt_get_u8(&d), 7);
    CHECK(ckpt_get_u32(&d) == 0xdeadbeefu, "u32");
    CHECK(ckpt_get_i64(&d) == INT64_MIN, "i64");
    CHECK(ckpt_get_u64(&d) == 0x0102030405060708ull, "u64");
    char s[8];
    ckpt_get_str(&d, s, sizeof s);
    CHECK_STR_EQ(s, "name");
    CHECK(!d.bad && d.off == d.n, "consumed exactly");
    CHECK_INT_EQ(ckpt_get_u8(&d), 0);
    CHECK(d.bad, "overrun recorded");
    /* a string longer than its destination */
    ckpt_dec_init(&d, b.data + 21, 8);
    char small[4];
    ckpt_get_str(&d, small, sizeof small);
    CHECK(d.bad && small[0] == 0, "too long a string is refused");
    /* a length that runs past the end */
    ckpt_dec_init(&d, b.data + 21, 6);
    ckpt_get_str(&d, s, sizeof s);
    CHECK(d.bad, "truncated string refused");
    buf_fini(&b);
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/ckpt_test.%ld", (long)getpid());
    if (mkdir(root, 0755) != 0) {
        fprintf(stderr, "cannot create %s\n", root);
        return 1;
    }
    test_round_trip();
    test_atomic();
    test_bad_arguments();
    test_refusals();
    test_codec();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
    return check_summary();
}
