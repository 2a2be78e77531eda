/* The one way integration tests start and stop a real tempo-rti (doc/contributing.md §12):
 * bin/tempo-rti (or TEMPO_RTI_BIN, e.g. the sanitized build) listens on an ephemeral port of
 * 127.0.0.1 and prints it; the test reads it. No RTI outlives its test: the child gets
 * SIGKILL when the test dies (PR_SET_PDEATHSIG), every child still running is killed at exit
 * and on a fatal signal, and rti_watchdog bounds the whole test. Used by rti_harness.h (raw
 * wire clients) and client_harness.h (libtempo federates); the scripts use its shell side,
 * tests/integration/rti_proc.sh. Read rti_harness.h next. */
#ifndef TEMPO_TESTS_INTEGRATION_RTI_PROC_H
#define TEMPO_TESTS_INTEGRATION_RTI_PROC_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RTI_START_TIMEOUT_MS 5000 /* longest wait for the RTI's "listening on" line */
#define RTI_MAX_CHILDREN     16   /* RTIs one test may run at once */

struct rti_proc {
    pid_t pid;     /* child, 0 when not running */
    int port;      /* TCP port it printed, 0 when none (a --unix only RTI) */
    char addr[64]; /* "127.0.0.1:PORT" (what tp_join_options.rti takes), "" when none */
    int out_fd;    /* read end of its stdout, -1 when closed */
    char log[256]; /* file its stderr goes to, "" when it shares the test's stderr */
};

static pid_t rti_children_[RTI_MAX_CHILDREN]; /* running children, 0 = free slot */

/* Kill every RTI still running (at exit, on a fatal signal: async-signal-safe calls only). */
static inline void rti_kill_all(void)
{
    for (int i = 0; i < RTI_MAX_CHILDREN; i++)
        if (rti_children_[i] > 0) {
            kill(rti_children_[i], SIGKILL);
            waitpid(rti_children_[i], NULL, 0);
            rti_children_[i] = 0;
        }
}

static void rti_on_fatal_signal_(int sig)
{
    rti_kill_all();
    signal(sig, SIG_DFL);
    raise(sig);
}

static inline int64_t rti_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Bound the whole test to @p seconds: then SIGALRM kills the RTIs and the test (which counts
 * as a failure in tests/run.sh). A crash of the test also kills its RTIs first. */
static inline void rti_watchdog(unsigned seconds)
{
    signal(SIGALRM, rti_on_fatal_signal_);
    signal(SIGSEGV, rti_on_fatal_signal_);
    signal(SIGABRT, rti_on_fatal_signal_);
    alarm(seconds);
}

/* Start the RTI with "--listen 127.0.0.1:0" and then @p extra (NULL-terminated, may be NULL;
 * an extra --listen or --unix replaces nothing, it adds). @p logname: its stderr goes to
 * build/test-logs/<logname>.rti.log (".alt.rti.log" under TEMPO_RTI_BIN), or to the test's
 * stderr when NULL. @return 0 with p->port and p->addr set, or -1 (reason on stderr). */
static inline int rti_start(struct rti_proc *p, const char *const *extra, const char *logname)
{
    static int registered;
    if (!registered) {
        atexit(rti_kill_all);
        signal(SIGPIPE, SIG_IGN);
        registered = 1;
    }
    memset(p, 0, sizeof *p);
    p->out_fd = -1;
    const char *alt = getenv("TEMPO_RTI_BIN");
    const char *bin = alt && alt[0] ? alt : "bin/tempo-rti";
    if (logname)
        snprintf(p->log, sizeof p->log, "build/test-logs/%s%s.rti.log", logname,
                 alt && alt[0] ? ".alt" : "");
    int slot = 0;
    while (slot < RTI_MAX_CHILDREN && rti_children_[slot] > 0)
        slot++;
    int fds[2];
    if (slot == RTI_MAX_CHILDREN || pipe(fds) != 0) {
        fprintf(stderr, "rti_start: %s\n", slot == RTI_MAX_CHILDREN ? "too many RTIs" : "pipe");
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "rti_start: fork: %s\n", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127); /* the test died before prctl */
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        if (p->log[0]) {
            int lf = open(p->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (lf >= 0) dup2(lf, 2);
        }
        const char *argv[32] = {bin, "--listen", "127.0.0.1:0"};
        int n = 3;
        for (int i = 0; extra && extra[i] && n < 31; i++)
            argv[n++] = extra[i];
        argv[n] = NULL;
        execv(argv[0], (char *const *)argv);
        fprintf(stderr, "exec %s: %s\n", bin, strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    p->pid = pid;
    p->out_fd = fds[0];
    rti_children_[slot] = pid;
    char line[256];
    size_t n = 0;
    int64_t deadline = rti_now_ms() + RTI_START_TIMEOUT_MS;
    while (n < sizeof line - 1) {
        struct pollfd pf = {fds[0], POLLIN, 0};
        int left = (int)(deadline - rti_now_ms());
        if (left <= 0 || poll(&pf, 1, left) <= 0) break;
        ssize_t r = read(fds[0], line + n, 1);
        if (r <= 0) break;
        if (line[n] == '\n') break;
        n++;
    }
    line[n] = '\0';
    const char *colon = strrchr(line, ':');
    if (strncmp(line, "tempo-rti listening on ", 23) != 0 || !colon) {
        fprintf(stderr, "rti_start: unexpected first line \"%s\" from %s (see %s)\n", line, bin,
                p->log[0] ? p->log : "stderr");
        return -1;
    }
    p->port = atoi(colon + 1);
    snprintf(p->addr, sizeof p->addr, "127.0.0.1:%d", p->port);
    return p->port > 0 ? 0 : -1;
}

/* SIGTERM, then wait up to @p ms for the exit (SIGKILL after). @return its exit status, or
 * -1 (killed, timed out, or not running). */
static inline int rti_stop(struct rti_proc *p, int ms)
{
    if (p->pid <= 0) return -1;
    kill(p->pid, SIGTERM);
    int64_t deadline = rti_now_ms() + ms;
    int st = 0;
    for (;;) {
        pid_t r = waitpid(p->pid, &st, WNOHANG);
        if (r == p->pid) break;
        if (rti_now_ms() > deadline) {
            kill(p->pid, SIGKILL);
            waitpid(p->pid, &st, 0);
            st = -1;
            break;
        }
        usleep(10000);
    }
    for (int i = 0; i < RTI_MAX_CHILDREN; i++)
        if (rti_children_[i] == p->pid) rti_children_[i] = 0;
    p->pid = 0;
    if (p->out_fd >= 0) close(p->out_fd);
    p->out_fd = -1;
    if (st == -1 || !WIFEXITED(st)) return -1;
    return WEXITSTATUS(st);
}

/* SIGKILL now (a crashed RTI, as its clients see it) and reap it. */
static inline void rti_kill(struct rti_proc *p)
{
    if (p->pid <= 0) return;
    kill(p->pid, SIGKILL);
    waitpid(p->pid, NULL, 0);
    for (int i = 0; i < RTI_MAX_CHILDREN; i++)
        if (rti_children_[i] == p->pid) rti_children_[i] = 0;
    p->pid = 0;
    if (p->out_fd >= 0) close(p->out_fd);
    p->out_fd = -1;
}

/* Is the RTI process still running? */
static inline int rti_alive(const struct rti_proc *p)
{
    return p->pid > 0 && waitpid(p->pid, NULL, WNOHANG) == 0;
}

/* VmRSS of a process in KiB (/proc/PID/status), or -1: what a memory bound is measured by. */
static inline long rti_rss_kib(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) kib = atol(line + 6);
    if (f) fclose(f);
    return kib;
}

#endif
