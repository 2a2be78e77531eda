/* Safe .fmu unpacking with libzip, and recursive removal of the folder.
 * Serves doc/fmu.md: the archive is untrusted; every entry name, type and size is
 * checked before anything is written, and sizes are re-checked while decompressing.
 * Read next: federate/fmu/fmu_load.c. */
#include "federate/fmu/fmu_zip.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <zip.h>

/* Entry names longer than this are refused (PATH_MAX-safe once joined to the folder). */
#define ZIP_MAX_NAME 1024
/* Unpacked folders remembered for removal on a signal, and the longest path remembered. */
#define ZIP_LIVE_SLOTS 64
#define ZIP_LIVE_PATH  1024
/* Name prefix of the folders: tempo-fmu-<pid>-XXXXXX. */
#define ZIP_DIR_PREFIX "tempo-fmu-"

/* ---- live folders: a registry the signal handler can read -------------------------------- */

/* A slot is in use when used is 1; path is written before used is set and read only then. */
static char live_path[ZIP_LIVE_SLOTS][ZIP_LIVE_PATH];
static volatile sig_atomic_t live_used[ZIP_LIVE_SLOTS];

/* Writers take live_lock: FMUs of one process may be unpacked by several threads at once
 * (tempo-fmu --all, doc/inproc.md); the signal handler only reads. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static void live_add(const char *dir)
{
    if (strlen(dir) >= ZIP_LIVE_PATH) return; /* fmu_zip_sweep finds it after a kill */
    pthread_mutex_lock(&live_lock);
    for (int i = 0; i < ZIP_LIVE_SLOTS; i++)
        if (!live_used[i]) {
            strcpy(live_path[i], dir);
            live_used[i] = 1;
            break;
        }
    pthread_mutex_unlock(&live_lock);
}

static void live_remove(const char *dir)
{
    pthread_mutex_lock(&live_lock);
    for (int i = 0; i < ZIP_LIVE_SLOTS; i++)
        if (live_used[i] && strcmp(live_path[i], dir) == 0) live_used[i] = 0;
    pthread_mutex_unlock(&live_lock);
}

/* Why a name is unsafe, or NULL when it is fine. */
static const char *bad_name(const char *name)
{
    if (!name[0]) return "empty name";
    if (strlen(name) > ZIP_MAX_NAME) return "name too long";
    if (name[0] == '/') return "absolute path";
    if (strchr(name, '\\')) return "backslash in name";
    if (strlen(name) >= 2 && name[1] == ':') return "drive letter in name";
    const char *p = name;
    while (*p) {
        const char *e = strchr(p, '/');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == 2 && p[0] == '.' && p[1] == '.') return "\"..\" component escapes the folder";
        if (l == 0 && e && e != name + strlen(name) - 1) return "empty path component";
        if (!e) break;
        p = e + 1;
    }
    return NULL;
}

/* Creates every folder of rel (a relative, checked name) below root; the last component too
 * when last is set. */
static int make_dirs(const char *root, const char *rel, int last, char *err, size_t errlen)
{
    char path[4096];
    size_t rl = strlen(root);
    if (rl + 1 + strlen(rel) + 1 > sizeof path) return snprintf(err, errlen, "path too long"), -1;
    memcpy(path, root, rl);
    path[rl] = '/';
    strcpy(path + rl + 1, rel);
    size_t len = strlen(path);
    while (len > rl + 1 && path[len - 1] == '/')
        path[--len] = '\0';
    for (char *p = path + rl + 1;; p++) {
        int end = *p == '\0';
        if (*p == '/' || (end && last)) {
            char c = *p;
            *p = '\0';
            if (mkdir(path, 0700) != 0 && errno != EEXIST) {
                snprintf(err, errlen, "mkdir %s: %s", path, strerror(errno));
                return -2;
            }
            struct stat st;
            if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
                snprintf(err, errlen, "%s is not a folder", rel);
                return -1;
            }
            *p = c;
        }
        if (end) break;
    }
    return 0;
}

/* Decompresses entry i into root/name, refusing more than want bytes or more than limit. */
static int write_entry(zip_t *za, zip_uint64_t i, const char *root, const char *name,
                       zip_uint64_t want, uint64_t *total, const fmu_zip_limits *lim, char *err,
                       size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, name);
    zip_file_t *zf = zip_fopen_index(za, i, 0);
    if (!zf) return snprintf(err, errlen, "entry \"%.200s\": %s", name, zip_strerror(za)), -1;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    if (fd < 0) {
        int e = errno;
        zip_fclose(zf);
        snprintf(err, errlen, "%s: %s", name, e == EEXIST ? "duplicate entry" : strerror(e));
        return e == EEXIST ? -1 : -2;
    }
    char buf[65536];
    uint64_t got = 0;
    int rc = 0;
    for (;;) {
        zip_int64_t n = zip_fread(zf, buf, sizeof buf);
        if (n < 0) {
            rc = -1, snprintf(err, errlen, "entry \"%.200s\": %s", name, zip_file_strerror(zf));
            break;
        }
        if (n == 0) break;
        got += (uint64_t)n;
        *total += (uint64_t)n;
        if (got > want || got > lim->max_entry_bytes) {
            rc = -1, snprintf(err, errlen, "%s: entry larger than %s (%llu bytes)", name,
                              got > want ? "it declares" : "the per-entry limit",
                              (unsigned long long)(got > want ? want : lim->max_entry_bytes));
            break;
        }
        if (*total > lim->max_total_bytes) {
            rc = -1, snprintf(err, errlen, "%s: archive larger than the total limit (%llu bytes)",
                              name, (unsigned long long)lim->max_total_bytes);
            break;
        }
        for (char *p = buf; p < buf + n;) {
            ssize_t w = write(fd, p, (size_t)(buf + n - p));
            if (w < 0) {
                if (errno == EINTR) continue;
                rc = -2, snprintf(err, errlen, "%s: write: %s", name, strerror(errno));
                break;
            }
            p += w;
        }
        if (rc) break;
    }
    if (!rc && got != want)
        rc = -1, snprintf(err, errlen, "%s: %llu bytes instead of the declared %llu", name,
                          (unsigned long long)got, (unsigned long long)want);
    zip_fclose(zf);
    if (close(fd) != 0 && !rc)
        rc = -2, snprintf(err, errlen, "%s: close: %s", name, strerror(errno));
    return rc;
}

/* Checks and unpacks every entry (the folder exists). */
static int extract_all(zip_t *za, const char *root, const fmu_zip_limits *lim, char *err,
                       size_t errlen)
{
    zip_int64_t n = zip_get_num_entries(za, 0);
    if (n < 0) return snprintf(err, errlen, "cannot count entries"), -1;
    if ((uint64_t)n > lim->max_entries)
        return snprintf(err, errlen, "%lld entries, more than the limit %llu", (long long)n,
                        (unsigned long long)lim->max_entries),
               -1;
    uint64_t declared = 0, total = 0;
    /* First pass: names, types and declared sizes, before anything is written. */
    for (zip_int64_t i = 0; i < n; i++) {
        zip_stat_t st;
        if (zip_stat_index(za, (zip_uint64_t)i, 0, &st) != 0 || !(st.valid & ZIP_STAT_NAME))
            return snprintf(err, errlen, "entry %lld: %s", (long long)i, zip_strerror(za)), -1;
        const char *why = bad_name(st.name);
        if (why) return snprintf(err, errlen, "entry \"%.200s\": %s", st.name, why), -1;
        zip_uint8_t opsys;
        zip_uint32_t attr;
        if (zip_file_get_external_attributes(za, (zip_uint64_t)i, 0, &opsys, &attr) == 0 &&
            opsys == ZIP_OPSYS_UNIX) {
            mode_t mode = (mode_t)(attr >> 16);
            if (S_ISLNK(mode))
                return snprintf(err, errlen, "entry \"%.200s\": symbolic link", st.name), -1;
            if (mode && !S_ISREG(mode) && !S_ISDIR(mode) && (mode & S_IFMT))
                return snprintf(err, errlen, "entry \"%.200s\": not a file or folder", st.name), -1;
        }
        if (!(st.valid & ZIP_STAT_SIZE))
            return snprintf(err, errlen, "entry \"%.200s\": size unknown", st.name), -1;
        if (st.size > lim->max_entry_bytes)
            return snprintf(err, errlen,
                            "entry \"%.200s\": %llu bytes, past the per-entry "
                            "limit of %llu",
                            st.name, (unsigned long long)st.size,
                            (unsigned long long)lim->max_entry_bytes),
                   -1;
        declared += st.size;
        if (declared > lim->max_total_bytes)
            return snprintf(err, errlen,
                            "entry \"%.200s\": archive past the total limit of "
                            "%llu bytes",
                            st.name, (unsigned long long)lim->max_total_bytes),
                   -1;
    }
    for (zip_int64_t i = 0; i < n; i++) {
        zip_stat_t st;
        if (zip_stat_index(za, (zip_uint64_t)i, 0, &st) != 0)
            return snprintf(err, errlen, "entry %lld: %s", (long long)i, zip_strerror(za)), -1;
        size_t l = strlen(st.name);
        int rc;
        if (st.name[l - 1] == '/') {
            if ((rc = make_dirs(root, st.name, 1, err, errlen))) return rc;
            continue;
        }
        if ((rc = make_dirs(root, st.name, 0, err, errlen)) ||
            (rc = write_entry(za, (zip_uint64_t)i, root, st.name, st.size, &total, lim, err,
                              errlen)))
            return rc;
    }
    return 0;
}

int fmu_zip_extract(const char *path, const fmu_zip_limits *limits, char *dir, size_t dirlen,
                    char *err, size_t errlen)
{
    fmu_zip_limits lim = {FMU_ZIP_DEFAULT_ENTRY_BYTES, FMU_ZIP_DEFAULT_TOTAL_BYTES,
                          FMU_ZIP_DEFAULT_ENTRIES};
    if (limits) {
        if (limits->max_entry_bytes) lim.max_entry_bytes = limits->max_entry_bytes;
        if (limits->max_total_bytes) lim.max_total_bytes = limits->max_total_bytes;
        if (limits->max_entries) lim.max_entries = limits->max_entries;
    }
    char msg[512];
    int zerr = 0;
    /* Without ZIP_CHECKCONS: that check refuses archives whose entries carry a data descriptor
     * and also sizes in the local header (libarchive, cmake -E tar), which every unzip
     * accepts. What is written is decided by the central directory alone (names, types and
     * sizes checked below), and each entry's bytes are checked against its declared size and
     * CRC while decompressing. */
    zip_t *za = zip_open(path, ZIP_RDONLY, &zerr);
    if (!za) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, zerr);
        snprintf(err, errlen, "%s: not a readable zip archive: %s", path,
                 zerr == ZIP_ER_NOZIP ? "not a zip file" : zip_error_strerror(&ze));
        zip_error_fini(&ze);
        return -1;
    }
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !tmp[0]) tmp = "/tmp";
    static int swept; /* once per process: folders of processes killed earlier */
    if (!swept) swept = 1, fmu_zip_sweep(tmp);
    /* The pid in the name lets a later process tell a leftover from a folder in use. */
    if ((size_t)snprintf(dir, dirlen, "%s/" ZIP_DIR_PREFIX "%ld-XXXXXX", tmp, (long)getpid()) >=
        dirlen) {
        zip_discard(za);
        return snprintf(err, errlen, "%s: temporary folder name too long", path), -2;
    }
    if (!mkdtemp(dir)) {
        snprintf(err, errlen, "%s: mkdtemp %s: %s", path, dir, strerror(errno));
        zip_discard(za);
        dir[0] = '\0';
        return -2;
    }
    /* Absolute, so that the resource URI handed to the FMU is valid whatever $TMPDIR is. */
    char abs[PATH_MAX];
    if (dir[0] != '/' && realpath(dir, abs) && strlen(abs) < dirlen) strcpy(dir, abs);
    live_add(dir);
    int rc = extract_all(za, dir, &lim, msg, sizeof msg);
    zip_discard(za);
    if (rc) {
        snprintf(err, errlen, "%s: %s", path, msg);
        fmu_zip_remove_tree(dir, msg, sizeof msg);
        dir[0] = '\0';
    }
    return rc;
}

/* Removes the contents of the folder open as dfd (which is consumed). */
static int remove_in(int dfd, const char *path, char *err, size_t errlen, int depth)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return snprintf(err, errlen, "%s: %s", path, strerror(errno)), -1;
    }
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (S_ISDIR(st.st_mode) && depth < 256) {
            int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
            if (sub < 0 || remove_in(sub, path, err, errlen, depth + 1) != 0) rc = -1;
            if (unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) != 0) rc = -1;
        } else if (unlinkat(dirfd(d), e->d_name, 0) != 0) {
            rc = -1;
        }
    }
    closedir(d);
    if (rc) snprintf(err, errlen, "%s: could not remove everything", path);
    return rc;
}

int fmu_zip_remove_tree(const char *dir, char *err, size_t errlen)
{
    if (!dir || !dir[0]) return 0;
    live_remove(dir);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (fd < 0) return snprintf(err, errlen, "%s: %s", dir, strerror(errno)), -1;
    int rc = remove_in(fd, dir, err, errlen, 0);
    if (rmdir(dir) != 0) {
        snprintf(err, errlen, "rmdir %s: %s", dir, strerror(errno));
        rc = -1;
    }
    return rc;
}

/* ---- leftovers of dead processes ----------------------------------------------------------- */

/* The pid of a folder name tempo-fmu-<pid>-XXXXXX, or 0 when the name is not one of ours. */
static long dir_pid(const char *name)
{
    size_t pl = strlen(ZIP_DIR_PREFIX);
    if (strncmp(name, ZIP_DIR_PREFIX, pl) != 0) return 0;
    char *end;
    errno = 0;
    long pid = strtol(name + pl, &end, 10);
    if (end == name + pl || errno || pid <= 0 || *end != '-' || strlen(end + 1) != 6) return 0;
    return pid;
}

int fmu_zip_sweep(const char *tmpdir)
{
    if (!tmpdir || !tmpdir[0]) tmpdir = getenv("TMPDIR");
    if (!tmpdir || !tmpdir[0]) tmpdir = "/tmp";
    DIR *d = opendir(tmpdir);
    if (!d) return 0;
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid = dir_pid(e->d_name);
        /* kill(pid, 0) fails with ESRCH only when no such process exists; EPERM means it
         * lives under another user. (A process in another pid namespace sharing this folder
         * would look dead: such setups should give each namespace its own $TMPDIR.) */
        if (!pid || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != getuid())
            continue;
        char path[PATH_MAX], msg[256];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name) >= sizeof path)
            continue;
        if (fmu_zip_remove_tree(path, msg, sizeof msg) == 0) removed++;
    }
    closedir(d);
    return removed;
}

/* ---- removal from a signal handler --------------------------------------------------------- */

/* Removes what the folder open as dfd holds, with async-signal-safe calls only (getdents64
 * through syscall, unlinkat, openat, close; no malloc, no stdio). Depth-bounded. */
static void remove_in_sigsafe(int dfd, int depth)
{
    char buf[2048];
    /* Entries vanish while the folder is read: start again until a pass removes nothing. */
    for (int pass = 0; pass < 64; pass++) {
        int gone = 0;
        if (lseek(dfd, 0, SEEK_SET) < 0) return;
        for (;;) {
            long n = syscall(SYS_getdents64, dfd, buf, sizeof buf);
            if (n <= 0) break;
            for (long off = 0; off < n;) {
                /* struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, name. */
                unsigned short reclen;
                memcpy(&reclen, buf + off + 16, sizeof reclen);
                unsigned char type = (unsigned char)buf[off + 18];
                const char *name = buf + off + 19;
                off += reclen;
                if (reclen == 0) return;
                if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]))) continue;
                if (type != DT_DIR && unlinkat(dfd, name, 0) == 0) {
                    gone++;
                    continue;
                }
                if (depth >= 32) continue;
                int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
                if (sub >= 0) {
                    remove_in_sigsafe(sub, depth + 1);
                    close(sub);
                }
                if (unlinkat(dfd, name, AT_REMOVEDIR) == 0) gone++;
            }
        }
        if (!gone) return;
    }
}

void fmu_zip_remove_live(void)
{
    int saved = errno;
    for (int i = 0; i < ZIP_LIVE_SLOTS; i++) {
        if (!live_used[i]) continue;
        int fd = open(live_path[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        if (fd >= 0) {
            remove_in_sigsafe(fd, 0);
            close(fd);
        }
        rmdir(live_path[i]);
        live_used[i] = 0;
    }
    errno = saved;
}

static void on_signal(int sig)
{
    int saved = errno;
    fmu_zip_remove_live();
    /* End as the signal would have: the parent (tempo-run, a shell) sees the same status. */
    signal(sig, SIG_DFL);
    errno = saved;
    raise(sig);
}

void fmu_zip_remove_on_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL) continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigfillset(&sa.sa_mask); /* one handler at a time: the others wait */
        sigaction(sigs[i], &sa, NULL);
    }
}
