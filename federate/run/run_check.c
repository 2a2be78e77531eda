/* tempo-run's checks before start and the output folder's lock (federate/run/run_check.h).
 * Serves doc/run.md. */
#include "federate/run/run_check.h"

#include "federate/config/fedfile.h"
#include "rti/proto/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define MASTER_CSV "master.csv" /* tempo-master's notes (doc/master.md) */

int run_check_files(const char *fom, const char *outdir, char *err, size_t errlen)
{
    struct stat st;
    if (fom) {
        if (stat(fom, &st) != 0) {
            snprintf(err, errlen, "fom '%s': %s", fom, strerror(errno));
            return -1;
        }
        if (!S_ISREG(st.st_mode) || access(fom, R_OK) != 0) {
            snprintf(err, errlen, "fom '%s': not a readable file", fom);
            return -1;
        }
    }
    if (stat(outdir, &st) == 0 && !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "output '%s': exists and is not a folder", outdir);
        return -1;
    }
    char e[1200];
    if (outfile_mkdirs(outdir, e, sizeof e) != 0) { /* private; refused when anyone may write */
        snprintf(err, errlen, "output: %s", e);
        return -1;
    }
    if (access(outdir, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "output '%s': not writable: %s", outdir, strerror(errno));
        return -1;
    }
    return 0;
}

int run_check_outputs(const struct fedfile *ff, const char *outdir, int master, char *warn,
                      size_t warnlen, char *err, size_t errlen)
{
    char path[PATH_MAX], e[1200];
    if (outfile_check_dir(outdir, warn, warnlen, e, sizeof e) != 0) {
        snprintf(err, errlen, "output: %s", e);
        return -1;
    }
    for (size_t i = 0; i < ff->n_feds + 2; i++) {
        const char *base = i < ff->n_feds    ? ff->feds[i].name
                           : i == ff->n_feds ? "plot.svg"
                           : master          ? MASTER_CSV
                                             : NULL;
        if (!base) continue;
        snprintf(path, sizeof path, "%s/%s%s", outdir, base, i < ff->n_feds ? ".csv" : "");
        /* Links only: anything else that is no file is the writer's to refuse, mid-run. */
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
            outfile_check_entry(path, e, sizeof e) != 0) {
            snprintf(err, errlen, "output %s", e);
            return -1;
        }
    }
    return 0;
}

int run_proc_stopped(int pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
    return rp && rp[1] == ' ' && (rp[2] == 'T' || rp[2] == 't');
}

int run_check_names(const struct fedfile *ff, char *err, size_t errlen)
{
    for (size_t i = 0; i < ff->n_feds; i++) {
        const fedfile_fed *fd = &ff->feds[i];
        for (size_t k = 0; k < fd->n_outputs; k++) {
            size_t n = strlen(fd->name) + 1 + strlen(fd->outputs[k].cls);
            if (n <= RUN_RTI_NAME_MAX) continue;
            snprintf(err, errlen,
                     "%s: federates[%zu]: the object \"%.40s...%s\" this federate registers for "
                     "class %s would be named with %zu bytes; the RTI takes at most %d: "
                     "shorten the federate name",
                     ff->path, i, fd->name, fd->outputs[k].cls, fd->outputs[k].cls, n,
                     RUN_RTI_NAME_MAX);
            return -1;
        }
    }
    return 0;
}

int run_lock_output(const char *outdir, int *fd, char *err, size_t errlen)
{
    char path[PATH_MAX];
    *fd = -1;
    snprintf(path, sizeof path, "%s/%s", outdir, RUN_LOCK_NAME);
    /* Opened in place, never replaced: a second run must lock the same file. */
    unsigned mode;
    if (outfile_mode(&mode, err, errlen) != 0) return -1;
    int f = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, (mode_t)mode);
    struct stat st;
    if (f >= 0 && (fstat(f, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(f);
        snprintf(err, errlen, "output '%s': %s is not a regular file", outdir, RUN_LOCK_NAME);
        return -1;
    }
    if (f < 0) {
        snprintf(err, errlen, "output '%s': cannot open %s: %s", outdir, RUN_LOCK_NAME,
                 strerror(errno));
        return -1;
    }
    if (flock(f, LOCK_EX | LOCK_NB) != 0) {
        char pid[32] = "";
        ssize_t n = read(f, pid, sizeof pid - 1);
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        close(f);
        snprintf(err, errlen, "output '%s': in use by another tempo-run (pid %s); give --output",
                 outdir, pid[0] ? pid : "?");
        return -1;
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(f, 0) != 0 || write(f, pid, (size_t)n) != n) {
        /* the lock holds without the pid; only the message of a second run loses it */
    }
    *fd = f;
    return 0;
}
