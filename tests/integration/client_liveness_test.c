/* Integration test of libtempo's RTI liveness deadline (tp_set_liveness, TEMPO_LIVENESS_MS;
 * doc/api.md "Liveness"): a live RTI that says nothing keeps a federate's long wait going (the
 * PINGs it earns are answered); an RTI stopped with SIGSTOP (to a federate, the same silence
 * as a cut link: no FIN, no reset) ends every blocking call with TP_ECLOSED naming the
 * deadline, never before the deadline has passed; 0 turns the check off; bad values are
 * refused. The whole test is bounded by the harness watchdog, so a hang fails it. */
#include <signal.h>
#include <stdlib.h>

#include "tests/integration/client_harness.h"

#define DEADLINE_MS 400 /* the liveness deadline under test */

/* Join @p name into "live" with a reply timeout of @p timeout_ms (< 0: wait forever). */
static tp_federate *join(const char *addr, const char *name, int timeout_ms, int *rc, char *err,
                         size_t errlen)
{
    tp_join_options o = {.rti = addr,
                         .federation = "live",
                         .federate = name,
                         .fom_path = "fom/test.xml",
                         .create = 1,
                         .timeout_ms = timeout_ms,
                         .log_level = TP_LOG_ERROR};
    tp_federate *f = NULL;
    *rc = tp_join(&o, NULL, NULL, &f, err, errlen);
    return f;
}

/* The RTI stops (SIGSTOP) or goes on (SIGCONT). */
static void rti_signal(int sig)
{
    CHECK(kill(harness_rti_.pid, sig) == 0, "signal %d to the RTI", sig);
}

/* A silent but live RTI: a wait of 4 deadlines ends by its own timeout, the PINGs answered. */
static void test_live_rti_keeps_waits(tp_federate *f)
{
    CHECK_INT_EQ(tp_set_liveness(f, DEADLINE_MS), TP_OK);
    int64_t t0 = harness_ms();
    CHECK_INT_EQ(tp_wait_announced(f, "never-registered", 4 * DEADLINE_MS), TP_TIMEOUT);
    CHECK(harness_ms() - t0 >= 4 * DEADLINE_MS, "the wait lasted its timeout (%lld ms)",
          (long long)(harness_ms() - t0));
    /* tp_evoke with a short timeout, called again and again (the federate programs' loop) */
    for (int i = 0; i < 4 * DEADLINE_MS / 50; i++)
        CHECK(tp_evoke(f, 50) >= 0, "evoke %d on a live RTI", i);
    CHECK_INT_EQ(tp_query_logical_time(f, &(tp_time){0}), TP_OK);
}

/* A program away from libtempo for longer than the deadline (computing between two calls) is
 * not cut off from a live RTI: its next wait PINGs first and goes on when the PONG comes. */
static void test_busy_program_keeps_link(tp_federate *f)
{
    CHECK_INT_EQ(tp_set_liveness(f, DEADLINE_MS), TP_OK);
    CHECK(tp_evoke(f, 0) >= 0, "evoke on a live RTI");
    struct timespec busy = {0, 3 * DEADLINE_MS / 2 * 1000000L};
    nanosleep(&busy, NULL); /* no libtempo call for 1.5 deadlines */
    int64_t t0 = harness_ms();
    CHECK_INT_EQ(tp_wait_announced(f, "never-registered", 2 * DEADLINE_MS), TP_TIMEOUT);
    CHECK(harness_ms() - t0 >= 2 * DEADLINE_MS, "the wait lasted its timeout (%lld ms)",
          (long long)(harness_ms() - t0));
    CHECK_INT_EQ(tp_query_logical_time(f, &(tp_time){0}), TP_OK);
}

/* Values out of range are refused and change nothing. */
static void test_bad_values(tp_federate *f)
{
    CHECK_INT_EQ(tp_set_liveness(f, 50), TP_EINVAL);
    CHECK_STR_HAS(tp_last_error(f), "100 .. 86400000");
    CHECK_INT_EQ(tp_set_liveness(f, -1), TP_EINVAL);
    CHECK_INT_EQ(tp_set_liveness(NULL, 1000), TP_EINVAL);
}

/* The RTI stopped: a wait without timeout ends with TP_ECLOSED after the deadline. */
static void test_stopped_rti_wait(tp_federate *f)
{
    CHECK_INT_EQ(tp_set_liveness(f, DEADLINE_MS), TP_OK);
    rti_signal(SIGSTOP);
    int64_t t0 = harness_ms();
    CHECK_INT_EQ(tp_wait_announced(f, "never-registered", -1), TP_ECLOSED);
    int64_t took = harness_ms() - t0;
    CHECK(took >= DEADLINE_MS, "not before the deadline (%lld ms)", (long long)took);
    CHECK_STR_HAS(tp_last_error(f), "liveness deadline 400 ms");
    CHECK_STR_HAS(tp_last_error(f), "stopped or hung, or the link to it is cut");
    CHECK_INT_EQ(tp_evoke(f, 0), TP_ECLOSED); /* the connection stays closed */
    CHECK(tp_fileno(f) < 0, "no descriptor left");
    rti_signal(SIGCONT);
}

/* The RTI stopped: a request waiting for its reply with timeout_ms < 0 (forever) ends too. */
static void test_stopped_rti_reply(tp_federate *f)
{
    CHECK_INT_EQ(tp_set_liveness(f, DEADLINE_MS), TP_OK);
    rti_signal(SIGSTOP);
    tp_time_status st[4];
    size_t n = 0;
    CHECK_INT_EQ(tp_query_time_status(f, st, 4, &n), TP_ECLOSED);
    CHECK_STR_HAS(tp_last_error(f), "liveness deadline");
    rti_signal(SIGCONT);
}

/* Off: the same stopped RTI only makes a wait time out. */
static void test_off(tp_federate *f)
{
    CHECK_INT_EQ(tp_set_liveness(f, 0), TP_OK);
    rti_signal(SIGSTOP);
    CHECK_INT_EQ(tp_wait_announced(f, "never-registered", 3 * DEADLINE_MS), TP_TIMEOUT);
    CHECK(tp_fileno(f) >= 0, "the connection is still open");
    rti_signal(SIGCONT);
}

/* TEMPO_LIVENESS_MS: a bad value fails the join naming it; a good one is the deadline. */
static void test_environment(const char *addr)
{
    char err[512] = "";
    int rc;
    setenv("TEMPO_LIVENESS_MS", "soon", 1);
    tp_federate *f = join(addr, "env-bad", 2000, &rc, err, sizeof err);
    CHECK_INT_EQ(rc, TP_EINVAL);
    CHECK(f == NULL, "no federate");
    CHECK_STR_HAS(err, "TEMPO_LIVENESS_MS 'soon'");
    setenv("TEMPO_LIVENESS_MS", "300", 1);
    f = join(addr, "env-300", 2000, &rc, err, sizeof err);
    unsetenv("TEMPO_LIVENESS_MS");
    CHECK(rc == TP_OK, "join with TEMPO_LIVENESS_MS 300: %s", err);
    if (!f) return;
    rti_signal(SIGSTOP);
    int r;
    while ((r = tp_evoke(f, -1)) > 0) /* the FEDERATE_JOINED callbacks queued, then the wait */
        ;
    CHECK_INT_EQ(r, TP_ECLOSED);
    CHECK_STR_HAS(tp_last_error(f), "liveness deadline 300 ms");
    rti_signal(SIGCONT);
    tp_federate_free(f);
}

int main(void)
{
    const char *const args[] = {"--log-level", "error", NULL};
    const char *addr = harness_start_rti(args, 60);
    if (!addr) return check_summary();
    char err[512] = "";
    int rc;
    tp_federate *a = join(addr, "a", 5000, &rc, err, sizeof err);
    tp_federate *b = join(addr, "b", -1, &rc, err, sizeof err);
    tp_federate *c = join(addr, "c", 5000, &rc, err, sizeof err);
    tp_federate *d = join(addr, "d", 5000, &rc, err, sizeof err);
    CHECK(a && b && c && d, "four federates joined: %s", err);
    if (a && b && c && d) {
        test_live_rti_keeps_waits(a);
        test_bad_values(a);
        test_busy_program_keeps_link(d);
        test_off(c); /* before the other tests close their connections */
        test_stopped_rti_wait(a);
        test_stopped_rti_reply(b);
        test_environment(addr);
    }
    tp_set_liveness(d, 0);
    tp_federate_free(a);
    tp_federate_free(b);
    tp_federate_free(c);
    tp_federate_free(d);
    harness_stop_rti();
    return check_summary();
}
