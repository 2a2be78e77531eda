/* Tests of the output-file rules (rti/proto/outfile.h, doc/run.md "Output files"): the mode
 * parser and TEMPO_FILE_MODE, the folder mode, the folder check (world-writable refused, sticky
 * accepted, group-writable warned), mkdir -p with private folders, and outfile_open: a new file
 * with the mode, a symbolic link refused with its target untouched, a hard link replaced with
 * the other file untouched, an old file's mode not carried over, a FIFO or a folder refused. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rti/proto/outfile.h"
#include "tests/check.h"

static char root[64];

static unsigned mode_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (unsigned)(st.st_mode & 07777) : 01000000;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) fputs(text, f), fclose(f);
}

static int holds(const char *path, const char *text)
{
    char buf[64] = "";
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = '\0';
    return strcmp(buf, text) == 0;
}

static void test_modes(void)
{
    unsigned m = 0;
    char err[200];
    CHECK(outfile_parse_mode("600", &m, err, sizeof err) == 0 && m == 0600, "600");
    CHECK(outfile_parse_mode("0644", &m, err, sizeof err) == 0 && m == 0644, "0644");
    CHECK(outfile_parse_mode("666", &m, err, sizeof err) == 0 && m == 0666, "666");
    const char *bad[] = {"", "755", "400", "644x", "9", "06440", "1644", "-600", "0o644"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(outfile_parse_mode(bad[i], &m, err, sizeof err) != 0, "\"%s\" accepted", bad[i]);
    CHECK_STR_HAS(err, "600 .. 666");
    CHECK_INT_EQ(outfile_dir_mode(0600), 0700);
    CHECK_INT_EQ(outfile_dir_mode(0644), 0755);
    CHECK_INT_EQ(outfile_dir_mode(0640), 0750);
    unsetenv(OUTFILE_ENV);
    CHECK(outfile_mode(&m, err, sizeof err) == 0 && m == OUTFILE_DEFAULT_MODE, "default");
    setenv(OUTFILE_ENV, "640", 1);
    CHECK(outfile_mode(&m, err, sizeof err) == 0 && m == 0640, "TEMPO_FILE_MODE=640");
    setenv(OUTFILE_ENV, "777", 1);
    CHECK(outfile_mode(&m, err, sizeof err) != 0 && m == OUTFILE_DEFAULT_MODE, "777 refused");
    CHECK_STR_HAS(err, OUTFILE_ENV);
    unsetenv(OUTFILE_ENV);
}

static void test_dirs(void)
{
    char p[256], err[1200], warn[1200];
    snprintf(p, sizeof p, "%s/a/b/c", root);
    CHECK(outfile_mkdirs(p, err, sizeof err) == 0, "mkdirs: %s", err);
    CHECK_INT_EQ(mode_of(p), 0700);
    snprintf(p, sizeof p, "%s/a", root);
    CHECK_INT_EQ(mode_of(p), 0700);
    snprintf(p, sizeof p, "%s/w", root);
    mkdir(p, 0700);
    chmod(p, 0777);
    CHECK(outfile_check_dir(p, warn, sizeof warn, err, sizeof err) != 0, "world-writable");
    CHECK_STR_HAS(err, "writable by everyone");
    CHECK(outfile_mkdirs(p, err, sizeof err) != 0, "mkdirs checks the folder");
    chmod(p, 01777);
    CHECK(outfile_check_dir(p, warn, sizeof warn, err, sizeof err) == 0 && !warn[0], "sticky");
    chmod(p, 0770);
    CHECK(outfile_check_dir(p, warn, sizeof warn, err, sizeof err) == 0, "group-writable");
    CHECK_STR_HAS(warn, "writable by its group");
    chmod(p, 0700);
    CHECK(outfile_check_dir(p, warn, sizeof warn, err, sizeof err) == 0 && !warn[0], "private");
    snprintf(p, sizeof p, "%s/file", root);
    put(p, "x");
    CHECK(outfile_check_dir(p, warn, sizeof warn, err, sizeof err) != 0, "a file");
    CHECK_STR_HAS(err, "not a folder");
}

static void test_open(void)
{
    char path[256], victim[256], err[1200];
    snprintf(victim, sizeof victim, "%s/victim", root);
    snprintf(path, sizeof path, "%s/out.csv", root);
    put(victim, "precious");
    chmod(victim, 0644);
    /* a new file, with the mode */
    int fd = outfile_open(path, err, sizeof err);
    CHECK(fd >= 0, "new file: %s", err);
    CHECK(fd >= 0 && write(fd, "new", 3) == 3, "write");
    if (fd >= 0) close(fd);
    CHECK_INT_EQ(mode_of(path), 0600);
    /* an old file of another mode: replaced by a new private one */
    chmod(path, 0644);
    FILE *f = outfile_fopen(path, err, sizeof err);
    CHECK(f != NULL, "old file: %s", err);
    if (f) fputs("again", f), fclose(f);
    CHECK(holds(path, "again"), "rewritten");
    CHECK_INT_EQ(mode_of(path), 0600);
    /* a symbolic link: refused, naming the target; the target untouched */
    unlink(path);
    CHECK(symlink(victim, path) == 0, "symlink");
    CHECK(outfile_open(path, err, sizeof err) < 0, "a link was opened");
    CHECK_STR_HAS(err, "is a symbolic link (to ");
    CHECK_STR_HAS(err, victim);
    CHECK(outfile_check_entry(path, err, sizeof err) != 0, "check_entry sees the link");
    CHECK(holds(victim, "precious") && mode_of(victim) == 0644, "the target changed");
    /* a dangling link: refused as well (nothing created at its target) */
    char ghost[256];
    snprintf(ghost, sizeof ghost, "%s/ghost", root);
    unlink(path);
    CHECK(symlink(ghost, path) == 0, "symlink");
    CHECK(outfile_open(path, err, sizeof err) < 0, "a dangling link was opened");
    CHECK(access(ghost, F_OK) != 0, "the dangling link's target was created");
    /* a hard link: replaced; the other file untouched */
    unlink(path);
    CHECK(link(victim, path) == 0, "link");
    f = outfile_fopen(path, err, sizeof err);
    CHECK(f != NULL, "hard link: %s", err);
    if (f) fputs("mine", f), fclose(f);
    CHECK(holds(victim, "precious"), "the hard-linked file changed");
    CHECK(holds(path, "mine"), "the new file");
    /* a FIFO, a folder: refused */
    unlink(path);
    CHECK(mkfifo(path, 0600) == 0, "mkfifo");
    CHECK(outfile_open(path, err, sizeof err) < 0, "a FIFO was opened");
    CHECK_STR_HAS(err, "not a regular file");
    unlink(path);
    mkdir(path, 0700);
    CHECK(outfile_open(path, err, sizeof err) < 0, "a folder was opened");
    rmdir(path);
    /* TEMPO_FILE_MODE */
    setenv(OUTFILE_ENV, "644", 1);
    mode_t old = umask(022);
    fd = outfile_open(path, err, sizeof err);
    if (fd >= 0) close(fd);
    CHECK_INT_EQ(mode_of(path), 0644);
    umask(old);
    unsetenv(OUTFILE_ENV);
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/outfile_test.XXXXXX");
    if (!mkdtemp(root)) return fprintf(stderr, "mkdtemp failed\n"), 1;
    test_modes();
    test_dirs();
    test_open();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
    return check_summary();
}
