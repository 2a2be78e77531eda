/* Helpers shared by the libtempo integration tests (tests/integration/client_*.c): start a
 * real bin/tempo-rti on an ephemeral port and always stop it, even when a check fails or the
 * test crashes (atexit + a watchdog alarm); join federates; pump several federates of one
 * process until a condition holds. Serves doc/contributing.md §12 (integration layer).
 * Read tests/integration/client_pubsub_test.c for a user. */
#ifndef TEMPO_TESTS_CLIENT_HARNESS_H
#define TEMPO_TESTS_CLIENT_HARNESS_H

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "federate/libtempo/tempo.h"
#include "tests/check.h"

static pid_t harness_rti_pid_ = -1; /* the RTI child, -1 when none */
static char harness_addr_[128];     /* "127.0.0.1:PORT" it listens on */

static inline void harness_stop_rti(void)
{
    if (harness_rti_pid_ > 0) {
        kill(harness_rti_pid_, SIGTERM);
        int st;
        for (int i = 0; i < 200; i++) { /* up to 2 s for a clean exit, then SIGKILL */
            if (waitpid(harness_rti_pid_, &st, WNOHANG) == harness_rti_pid_) {
                harness_rti_pid_ = -1;
                return;
            }
            usleep(10000);
        }
        kill(harness_rti_pid_, SIGKILL);
        waitpid(harness_rti_pid_, &st, 0);
        harness_rti_pid_ = -1;
    }
}

static void harness_on_signal(int sig)
{
    if (harness_rti_pid_ > 0) kill(harness_rti_pid_, SIGKILL);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Start bin/tempo-rti --listen 127.0.0.1:0 (plus @p extra args, may be NULL) and read the
 * port it prints. The whole test is bounded by @p watchdog_s seconds (SIGALRM kills the RTI
 * and the test). @return the address string, or NULL (a failed check is recorded). */
static inline const char *harness_start_rti(const char *const *extra, unsigned watchdog_s)
{
    int fds[2];
    if (pipe(fds) < 0) {
        CHECK(0, "pipe: %s", strerror(errno));
        return NULL;
    }
    signal(SIGALRM, harness_on_signal);
    signal(SIGSEGV, harness_on_signal);
    signal(SIGABRT, harness_on_signal);
    signal(SIGPIPE, SIG_IGN);
    alarm(watchdog_s);
    pid_t pid = fork();
    if (pid == 0) {
        /* Die with the test even when it cannot run its exit handlers (a sanitizer abort,
         * SIGKILL): no RTI is ever left behind. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() == 1) _exit(1); /* the test died before prctl */
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        const char *argv[16] = {"bin/tempo-rti", "--listen", "127.0.0.1:0"};
        int n = 3;
        for (int i = 0; extra && extra[i] && n < 15; i++)
            argv[n++] = extra[i];
        argv[n] = NULL;
        execv(argv[0], (char *const *)argv);
        fprintf(stderr, "exec bin/tempo-rti: %s\n", strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    harness_rti_pid_ = pid;
    atexit(harness_stop_rti);
    FILE *in = fdopen(fds[0], "r");
    char line[256];
    const char *addr = NULL;
    while (in && fgets(line, sizeof line, in)) {
        char *p = strstr(line, "listening on ");
        if (p) {
            p += strlen("listening on ");
            p[strcspn(p, " \r\n")] = '\0';
            snprintf(harness_addr_, sizeof harness_addr_, "%s", p);
            addr = harness_addr_;
            break;
        }
    }
    /* Keep reading the RTI's stdout in the background would need a thread; the RTI prints
     * only its start line there, so closing our end is safe (it logs to stderr). */
    if (in) fclose(in);
    CHECK(addr != NULL, "tempo-rti printed no \"listening on\" line");
    return addr;
}

/* Join @p name into @p federation with FOM @p fom; NULL on failure (a failed check). */
static inline tp_federate *harness_join(const char *addr, const char *federation, const char *name,
                                        const char *fom, const tp_callbacks *cb, void *ctx)
{
    tp_join_options o = {.rti = addr,
                         .federation = federation,
                         .federate = name,
                         .fom_path = fom,
                         .create = 1,
                         .timeout_ms = 5000};
    tp_federate *f = NULL;
    char err[512] = "";
    int rc = tp_join(&o, cb, ctx, &f, err, sizeof err);
    CHECK(rc == TP_OK, "join %s/%s: %s (%s)", federation, name, tp_strerror(rc), err);
    return f;
}

static inline int64_t harness_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Evoke every federate of @p fs until cond(arg) holds or @p timeout_ms passes.
 * @return 1 when the condition held, 0 on timeout. */
static inline int harness_pump(tp_federate *const *fs, int n, int (*cond)(void *), void *arg,
                               int timeout_ms)
{
    int64_t end = harness_ms() + timeout_ms;
    for (;;) {
        for (int i = 0; i < n; i++)
            if (fs[i]) tp_evoke(fs[i], 0);
        if (cond && cond(arg)) return 1;
        if (harness_ms() >= end) return 0;
        struct pollfd p[16];
        int k = 0;
        for (int i = 0; i < n && k < 16; i++)
            if (fs[i] && tp_fileno(fs[i]) >= 0)
                p[k++] = (struct pollfd){.fd = tp_fileno(fs[i]), .events = POLLIN};
        poll(p, (nfds_t)k, 10);
    }
}

#endif
