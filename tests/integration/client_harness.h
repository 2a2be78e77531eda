/* Helpers shared by the libtempo integration tests (tests/integration/client_*.c): start a
 * real bin/tempo-rti on an ephemeral port through tests/integration/rti_proc.h (always stopped,
 * even when a check fails or the test crashes); join federates; pump several federates of one
 * process until a condition holds. Serves doc/contributing.md §12 (integration layer).
 * Read tests/integration/client_pubsub_test.c for a user. */
#ifndef TEMPO_TESTS_CLIENT_HARNESS_H
#define TEMPO_TESTS_CLIENT_HARNESS_H

#include <poll.h>
#include <stdint.h>
#include <time.h>

#include "federate/libtempo/tempo.h"
#include "tests/check.h"
#include "tests/integration/rti_proc.h"

static struct rti_proc harness_rti_; /* the RTI of harness_start_rti */

/* Stop the RTI of harness_start_rti (SIGTERM, SIGKILL after 2 s); nothing when none runs. */
static inline void harness_stop_rti(void)
{
    rti_stop(&harness_rti_, 2000);
}

/* Kill the RTI of harness_start_rti at once (SIGKILL), as a crash would. */
static inline void harness_kill_rti(void)
{
    rti_kill(&harness_rti_);
}

/* Start the RTI (rti_start, its stderr on the test's) with @p extra args (may be NULL) and
 * bound the whole test to @p watchdog_s seconds (rti_watchdog). @return its address
 * "127.0.0.1:PORT", valid until the next start, or NULL (a failed check is recorded). */
static inline const char *harness_start_rti(const char *const *extra, unsigned watchdog_s)
{
    rti_watchdog(watchdog_s);
    int rc = rti_start(&harness_rti_, extra, NULL);
    CHECK(rc == 0, "tempo-rti started and printed its \"listening on\" line");
    return rc == 0 ? harness_rti_.addr : NULL;
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
