/* Unit tests of FMU unpacking and loading (federate/fmu/fmu_zip.c, federate/fmu/fmu_load.c): a good
 * FMU loads and its folder is removed on unload; every bad FMU (built here with libzip into a
 * folder of this process, build/fmu-fixtures/load-test.PID/, so that two runs never share one)
 * is refused with its own message and leaves nothing behind.
 * Serves doc/fmu.md §10. Read next: tests/unit/fmu_step_test.c. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zip.h>

#include "federate/fmu/fmu_load.h"
#include "tests/check.h"

#define FIX "build/fmu-fixtures" /* the fixture binaries mk/50-fmu.mk builds */

static char work[128];   /* FIX/load-test.PID: the archives this run writes */
static char tmpdir[160]; /* work/tmp: $TMPDIR, where the FMUs are unpacked */

/* work/name, in one of four rotating buffers. */
static const char *at(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", work, name);
    return buf[k];
}

typedef struct {
    const char *name;
    const char *data; /* NULL: a folder entry */
    size_t len;       /* 0: strlen(data) */
    int symlink;      /* mark as a unix symbolic link */
} entry;

/* Writes a zip with these entries; data may also come from a file (file != NULL). */
static int make_zip(const char *path, const entry *e, size_t n, const char *file_entry,
                    const char *file)
{
    int err;
    zip_t *za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &err);
    if (!za) return -1;
    for (size_t i = 0; i < n; i++) {
        zip_int64_t idx;
        if (!e[i].data) {
            idx = zip_dir_add(za, e[i].name, ZIP_FL_ENC_UTF_8);
        } else {
            size_t len = e[i].len ? e[i].len : strlen(e[i].data);
            zip_source_t *src = zip_source_buffer(za, e[i].data, len, 0);
            idx = zip_file_add(za, e[i].name, src, ZIP_FL_ENC_UTF_8);
            if (idx < 0) zip_source_free(src);
        }
        if (idx < 0) {
            fprintf(stderr, "zip_file_add %s: %s\n", e[i].name, zip_strerror(za));
            zip_discard(za);
            return -1;
        }
        if (e[i].symlink)
            zip_file_set_external_attributes(za, (zip_uint64_t)idx, 0, ZIP_OPSYS_UNIX,
                                             (zip_uint32_t)(S_IFLNK | 0777) << 16);
    }
    if (file) {
        zip_source_t *src = zip_source_file(za, file, 0, -1);
        if (!src || zip_file_add(za, file_entry, src, 0) < 0) {
            fprintf(stderr, "zip add %s: %s\n", file, zip_strerror(za));
            zip_source_free(src);
            zip_discard(za);
            return -1;
        }
    }
    return zip_close(za);
}

/* Number of entries in the private temporary folder (leftover unpacked FMUs). */
static int leftovers(void)
{
    DIR *d = opendir(tmpdir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

static const char md_cs[] =
    "<?xml version=\"1.0\"?>\n"
    "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"m\" guid=\"{g}\">\n"
    "<CoSimulation modelIdentifier=\"%s\"/>\n"
    "<ModelVariables/><ModelStructure/></fmiModelDescription>\n";

/* Loads path and expects failure with both substrings in the message. */
static void expect_refused(const char *what, const char *path, fmu_kind kind,
                           const fmu_zip_limits *lim, const char *want1, const char *want2)
{
    char err[FMU_ERR_LEN] = "";
    fmu_file *f = (fmu_file *)1;
    int rc = fmu_load(path, kind, lim, &f, err, sizeof err);
    CHECK(rc == -1, "%s: rc %d (%s)", what, rc, err);
    CHECK(f == NULL, "%s: no handle on failure", what);
    CHECK_STR_HAS(err, want1);
    if (want2) CHECK_STR_HAS(err, want2);
    CHECK(leftovers() == 0, "%s: %d unpacked folder(s) left behind", what, leftovers());
    if (f && f != (fmu_file *)1) fmu_unload(f);
}

static void test_good(void)
{
    for (int k = 0; k < 2; k++) {
        const char *path = k ? "build/fmus/dahlquist_cs.fmu" : "build/fmus/dahlquist_me.fmu";
        char err[FMU_ERR_LEN] = "";
        fmu_file *f = NULL;
        int rc = fmu_load(path, FMU_KIND_AUTO, NULL, &f, err, sizeof err);
        CHECK(rc == 0, "%s: %s", path, err);
        if (!f) continue;
        CHECK_INT_EQ(f->kind, k ? FMU_KIND_CS : FMU_KIND_ME);
        CHECK_STR_EQ(f->md->model_name, "dahlquist");
        CHECK(f->fn.Instantiate && f->fn.GetReal && f->fn.FreeInstance, "common functions");
        CHECK(k ? f->fn.DoStep != NULL : f->fn.GetDerivatives != NULL, "kind functions");
        CHECK(k ? f->fn.GetDerivatives == NULL : f->fn.DoStep == NULL, "other kind not loaded");
        CHECK_STR_HAS(f->resource_uri, "file:///"); /* absolute although TMPDIR is relative */
        CHECK(f->dir[0] == '/', "absolute folder %s", f->dir);
        struct stat st;
        CHECK(stat(f->dir, &st) == 0 && S_ISDIR(st.st_mode), "unpacked folder exists");
        CHECK_INT_EQ(leftovers(), 1);
        fmu_unload(f);
        CHECK_INT_EQ(leftovers(), 0);
    }
    /* Description only: no binary loaded, nothing left on disk. */
    fmu_md *md = NULL;
    char err[FMU_ERR_LEN] = "";
    CHECK_INT_EQ(fmu_load_md("build/fmus/dahlquist_cs.fmu", NULL, &md, err, sizeof err), 0);
    CHECK(md && md->cs.present && fmu_md_find(md, "x") >= 0, "description read: %s", err);
    CHECK_INT_EQ(leftovers(), 0);
    fmu_md_free(md);
    CHECK_INT_EQ(fmu_load_md(at("none.fmu"), NULL, &md, err, sizeof err), -1);
    CHECK(md == NULL, "no description on failure");
    CHECK_STR_HAS(err, "none.fmu");
    expect_refused("kind absent", "build/fmus/dahlquist_me.fmu", FMU_KIND_CS, NULL,
                   "has no CoSimulation interface", "dahlquist_me.fmu");
    fmu_unload(NULL);
}

static void test_bad(void)
{
    char md[1024];
    const char *p;
    /* 1. Not a zip at all. */
    FILE *f = fopen(at("notzip.fmu"), "w");
    if (f) fputs("this is not a zip file\n", f), fclose(f);
    expect_refused("not a zip", at("notzip.fmu"), FMU_KIND_AUTO, NULL, "not a zip", "notzip.fmu");
    expect_refused("missing file", FIX "/does-not-exist.fmu", FMU_KIND_AUTO, NULL,
                   "not a readable zip", "does-not-exist.fmu");
    /* 2. No modelDescription.xml. */
    entry readme[] = {{"readme.txt", "hello", 0, 0}};
    make_zip(p = at("nomd.fmu"), readme, 1, NULL, NULL);
    expect_refused("no modelDescription", p, FMU_KIND_AUTO, NULL, "modelDescription.xml",
                   "not in the archive");
    /* 3. Malformed XML. */
    entry broken[] = {
        {"modelDescription.xml", "<fmiModelDescription fmiVersion=\"2.0\"\n<<", 0, 0}};
    make_zip(p = at("badxml.fmu"), broken, 1, NULL, NULL);
    expect_refused("malformed XML", p, FMU_KIND_AUTO, NULL, "malformed XML",
                   "modelDescription.xml:");
    /* 4. Unknown FMI version. */
    entry v3[] = {{"modelDescription.xml",
                   "<fmiModelDescription fmiVersion=\"1.0\" modelName=\"m\" guid=\"g\"/>", 0, 0}};
    make_zip(p = at("v3.fmu"), v3, 1, NULL, NULL);
    expect_refused("FMI 1.0", p, FMU_KIND_AUTO, NULL, "unsupported fmiVersion \"1.0\"", ":1:");
    /* 5. No binary for linux64. */
    snprintf(md, sizeof md, md_cs, "m");
    entry win[] = {{"modelDescription.xml", md, 0, 0}, {"binaries/win64/m.dll", "MZ", 0, 0}};
    make_zip(p = at("win.fmu"), win, 2, NULL, NULL);
    expect_refused("no linux64 binary", p, FMU_KIND_AUTO, NULL,
                   "no binary for this platform: binaries/linux64/m.so", "has: win64");
    /* 6. A binary that lacks functions. */
    snprintf(md, sizeof md, md_cs, "partial");
    entry part[] = {{"modelDescription.xml", md, 0, 0}};
    if (make_zip(p = at("partial.fmu"), part, 1, "binaries/linux64/partial.so",
                 FIX "/partial.so") == 0)
        expect_refused("missing function", p, FMU_KIND_AUTO, NULL,
                       "missing function fmi2SetDebugLogging", "partial.so");
    else
        CHECK(0, "could not build %s (is " FIX "/partial.so built?)", p);
    /* 7. A binary that is not an ELF object. */
    snprintf(md, sizeof md, md_cs, "junk");
    entry junk[] = {{"modelDescription.xml", md, 0, 0},
                    {"binaries/linux64/junk.so", "not elf", 0, 0}};
    make_zip(p = at("junk.fmu"), junk, 2, NULL, NULL);
    expect_refused("junk binary", p, FMU_KIND_AUTO, NULL, "dlopen failed", "junk.so");
}

static void test_hostile(void)
{
    const char *p;
    entry up[] = {{"modelDescription.xml", "x", 0, 0}, {"../escape.txt", "boo", 0, 0}};
    make_zip(p = at("dotdot.fmu"), up, 2, NULL, NULL);
    expect_refused("../ entry", p, FMU_KIND_AUTO, NULL, "\"../escape.txt\"", "escapes");
    entry mid[] = {{"a/../../escape.txt", "boo", 0, 0}};
    make_zip(p = at("dotdot2.fmu"), mid, 1, NULL, NULL);
    expect_refused("a/../../ entry", p, FMU_KIND_AUTO, NULL, "escapes", "a/../../escape.txt");
    entry abs[] = {{"/tmp/tempo-abs-escape.txt", "boo", 0, 0}};
    make_zip(p = at("abs.fmu"), abs, 1, NULL, NULL);
    expect_refused("absolute entry", p, FMU_KIND_AUTO, NULL, "absolute path",
                   "/tmp/tempo-abs-escape.txt");
    CHECK(access("/tmp/tempo-abs-escape.txt", F_OK) != 0, "nothing written outside");
    entry link[] = {{"modelDescription.xml", "/etc/passwd", 0, 1}};
    make_zip(p = at("link.fmu"), link, 1, NULL, NULL);
    expect_refused("symlink entry", p, FMU_KIND_AUTO, NULL, "symbolic link",
                   "modelDescription.xml");
    entry bs[] = {{"binaries\\linux64\\x.so", "boo", 0, 0}};
    make_zip(p = at("backslash.fmu"), bs, 1, NULL, NULL);
    expect_refused("backslash entry", p, FMU_KIND_AUTO, NULL, "backslash", NULL);

    /* Sizes: 200 kB of zeros compresses to almost nothing; the limit is on real bytes. */
    size_t big = 200000;
    char *zeros = calloc(1, big);
    entry huge[] = {{"modelDescription.xml", "x", 0, 0}, {"resources/big.bin", zeros, big, 0}};
    make_zip(p = at("huge.fmu"), huge, 2, NULL, NULL);
    fmu_zip_limits lim = {.max_entry_bytes = 100000};
    expect_refused("huge entry", p, FMU_KIND_AUTO, &lim, "resources/big.bin",
                   "past the per-entry limit of 100000");
    fmu_zip_limits tot = {.max_total_bytes = 150000};
    entry two[] = {{"a.bin", zeros, 100000, 0}, {"b.bin", zeros, 100000, 0}};
    make_zip(p = at("total.fmu"), two, 2, NULL, NULL);
    expect_refused("total size", p, FMU_KIND_AUTO, &tot, "total limit of 150000", "b.bin");
    free(zeros);
    fmu_zip_limits few = {.max_entries = 3};
    entry many[] = {{"1", "1", 0, 0}, {"2", "2", 0, 0}, {"3", "3", 0, 0}, {"4", "4", 0, 0}};
    make_zip(p = at("many.fmu"), many, 4, NULL, NULL);
    expect_refused("too many entries", p, FMU_KIND_AUTO, &few, "4 entries",
                   "more than the limit 3");
    /* A folder entry and a file below it unpack fine; a file under a file does not. */
    entry clash[] = {{"a", "file", 0, 0}, {"a/b", "under a file", 0, 0}};
    make_zip(p = at("clash.fmu"), clash, 2, NULL, NULL);
    expect_refused("file/folder clash", p, FMU_KIND_AUTO, NULL, "a/b", NULL);

    /* fmu_zip on its own: a good archive with folders unpacks and is removed. */
    entry ok[] = {{"dir/", NULL, 0, 0}, {"dir/sub/f.txt", "abc", 0, 0}, {"top.txt", "t", 0, 0}};
    make_zip(p = at("ok.zip"), ok, 3, NULL, NULL);
    char dir[4096], err[FMU_ERR_LEN] = "";
    int rc = fmu_zip_extract(p, NULL, dir, sizeof dir, err, sizeof err);
    CHECK(rc == 0, "extract: %s", err);
    char path[4200];
    snprintf(path, sizeof path, "%s/dir/sub/f.txt", dir);
    FILE *f = fopen(path, "r");
    char buf[8] = "";
    if (f) {
        CHECK(fgets(buf, sizeof buf, f) != NULL, "read back");
        fclose(f);
    }
    CHECK_STR_EQ(buf, "abc");
    CHECK_INT_EQ(fmu_zip_remove_tree(dir, err, sizeof err), 0);
    CHECK(access(dir, F_OK) != 0, "folder removed");
}

int main(void)
{
    mkdir(FIX, 0755);
    snprintf(work, sizeof work, FIX "/load-test.%ld", (long)getpid());
    snprintf(tmpdir, sizeof tmpdir, "%s/tmp", work);
    CHECK(mkdir(work, 0700) == 0 && mkdir(tmpdir, 0700) == 0, "create %s", tmpdir);
    setenv("TMPDIR", tmpdir, 1);
    CHECK(leftovers() == 0, "temporary folder %s starts empty", tmpdir);
    test_good();
    test_bad();
    test_hostile();
    char err[FMU_ERR_LEN] = "";
    CHECK(fmu_zip_remove_tree(work, err, sizeof err) == 0, "remove %s: %s", work, err);
    return check_summary();
}
