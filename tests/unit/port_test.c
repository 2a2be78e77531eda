/* Tests of the port's own helpers (algorithms/port.h): status names, ticks to seconds,
 * saturating tick sums,
 * the worst-status rule of port_sync over fake slaves, the working set port_frame_init sizes
 * and checks, the failure report of port_sync_report. doc/algorithms/port.md. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/port.h"
#include "tests/check.h"

static int fake_collect(void *ctx)
{
    return *(int *)ctx;
}
static const port_slave_ops fake_ops = {.version = PORT_OPS_VERSION, .collect = fake_collect};

/* port_sync over three fake slaves; *culprit (may be NULL) gets port_sync_first's answer. */
static int sync_of3(int a, int b, int c, int *st, long *culprit)
{
    int v[3] = {a, b, c};
    port_slave s[3];
    for (int j = 0; j < 3; j++)
        s[j] = (port_slave){.ops = &fake_ops, .ctx = &v[j]};
    port_master m = {.slaves = s, .n_slaves = 3};
    long k;
    int rc = port_sync_first(&m, st, &k);
    if (culprit) *culprit = k;
    return rc;
}

static int sync_of(int a, int b, int c, int *st)
{
    return sync_of3(a, b, c, st, NULL);
}

/* Three slaves with 1, 2, 0 outputs and 1, 1, 2 inputs and a master from 0 to 10 ticks. */
static void three(port_slave s[3], port_master *m)
{
    static const char *const names[3] = {"a", "b", "c"};
    const size_t n_out[3] = {1, 2, 0}, n_in[3] = {1, 1, 2};
    for (int j = 0; j < 3; j++)
        s[j] = (port_slave){.ops = &fake_ops,
                            .info = {.name = names[j],
                                     .n_in = n_in[j],
                                     .n_out = n_out[j],
                                     .n_state = (size_t)j,
                                     .can_save = 1}};
    *m = (port_master){.slaves = s, .n_slaves = 3, .tick = 1e-3, .t_start = 0, .t_end = 10};
}

static void test_frame(void)
{
    port_slave s[3];
    port_master m;
    three(s, &m);
    /* given out of input order: c.1 <- b.0, a.0 <- b.1, c.0 <- a.0, b.0 <- a.0 */
    port_link l[4] = {{2, 1, 1, 0}, {0, 0, 1, 1}, {2, 0, 0, 0}, {1, 0, 0, 0}};
    size_t n_c = 0, n_out = 0, n_in = 0, *off_out = NULL, *off_in = NULL, *off_x = NULL;
    port_step_result *sr = NULL;
    int *st = NULL;
    port_link *by_in = NULL;
    port_frame f = {&n_c, &n_out, &n_in, &off_out, &off_in, &off_x, &sr, &st, &by_in};
    port_frame_rules r = {"algo", PORT_NEED_SAVE, "cannot save", l, 4, 0};
    char err[256] = "";
    CHECK_INT_EQ(port_frame_init(&f, &m, &r, err, sizeof err), PORT_OK);
    CHECK_INT_EQ(n_c, 3);
    CHECK_INT_EQ(n_out, 3);
    CHECK_INT_EQ(n_in, 4);
    const size_t want_out[4] = {0, 1, 3, 3}, want_in[4] = {0, 1, 2, 4}, want_x[4] = {0, 0, 1, 3};
    for (int j = 0; j < 4; j++) {
        CHECK_INT_EQ(off_out[j], want_out[j]);
        CHECK_INT_EQ(off_in[j], want_in[j]);
        CHECK_INT_EQ(off_x[j], want_x[j]);
    }
    /* the links by the input they feed: a.0, b.0, c.0, c.1 */
    const size_t want_from[4] = {1, 0, 0, 1}, want_o[4] = {1, 0, 0, 0}, want_to[4] = {0, 1, 2, 2};
    for (int k = 0; by_in && k < 4; k++)
        CHECK(by_in[k].to == want_to[k] && by_in[k].from == want_from[k] &&
                  by_in[k].out == want_o[k],
              "input %d fed by slave %zu output %zu", k, by_in[k].from, by_in[k].out);
    CHECK(sr && st && st[2] == 0 && sr[2].t_reached == 0, "step results and statuses zeroed");
    port_frame_fini(&f);
    CHECK(!off_out && !off_in && !off_x && !sr && !st && !by_in, "fini clears the fields");
    port_frame_fini(NULL);
    /* Slave b (index 1) fed by its own output: refused unless self_links. */
    l[3] = (port_link){1, 0, 1, 0};
    CHECK_INT_EQ(port_frame_init(&f, &m, &r, err, sizeof err), PORT_EUSAGE);
    CHECK_STR_EQ(err, "algo: link 3 (slave 1 input 0 <- slave 1 output 0) names no input or "
                      "output (or is a slave's own)");
    port_frame_fini(&f);
    r.self_links = 1;
    CHECK_INT_EQ(port_frame_init(&f, &m, &r, err, sizeof err), PORT_OK);
    port_frame_fini(&f);
    l[2] = (port_link){2, 0, 1, 2}; /* b has outputs 0 and 1 only */
    CHECK_INT_EQ(port_frame_init(&f, &m, &r, err, sizeof err), PORT_EUSAGE);
    CHECK_STR_EQ(err,
                 "algo: link 2 (slave 2 input 0 <- slave 1 output 2) names no input or output");
    port_frame_fini(&f);
    l[2] = (port_link){2, 1, 0, 0}; /* c's input 1 twice, its input 0 never */
    CHECK_INT_EQ(port_frame_init(&f, &m, &r, err, sizeof err), PORT_EUSAGE);
    CHECK_STR_EQ(err, "algo: slave 'c' input 1 is fed twice");
    port_frame_fini(&f);
    r.n_links = 2; /* b.0 and c.0 fed by nothing */
    CHECK_INT_EQ(port_frame_init(&f, &m, &r, err, sizeof err), PORT_EUSAGE);
    CHECK_STR_EQ(err, "algo: slave 'b' input 0 is fed by no link");
    port_frame_fini(&f);
    r.n_links = 4;
    /* Only the parts asked for are allocated. */
    port_frame some = {.off_in = &off_in};
    r.links = NULL;
    CHECK_INT_EQ(port_frame_init(&some, &m, &r, err, sizeof err), PORT_EUSAGE);
    CHECK_STR_EQ(err, "algo: slaves have inputs but no links");
    CHECK(off_in && !off_out && !st, "only off_in allocated");
    port_frame_fini(&some);
    s[2].info.can_save = 0;
    s[2].info.name = NULL;
    CHECK_INT_EQ(port_frame_init(&some, &m, &r, err, sizeof err), PORT_EUNSUPPORTED);
    CHECK_STR_EQ(err, "algo: slave '?' cannot save");
    port_frame_fini(&some);
    r.need = PORT_NEED_STATE_DERIVS;
    s[2].info.can_save = 1;
    CHECK_INT_EQ(port_frame_init(&some, &m, &r, err, sizeof err), PORT_EUNSUPPORTED);
    port_frame_fini(&some);
    m.t_end = m.t_start;
    CHECK_INT_EQ(port_frame_init(&some, &m, &r, err, sizeof err), PORT_EUSAGE);
    CHECK_STR_EQ(err, "algo: no slaves, tick <= 0, or end not after start");
    CHECK(!off_in, "nothing allocated before the master is checked");
}

static void test_sync_report(void)
{
    int v[2] = {PORT_OK, PORT_EVENT}, st[2], failed = -1;
    port_slave s[2] = {{.ops = &fake_ops, .ctx = &v[0], .info = {.name = "a"}},
                       {.ops = &fake_ops, .ctx = &v[1], .info = {.name = "b"}}};
    port_master m = {.slaves = s, .n_slaves = 2};
    char err[256] = "";
    CHECK_INT_EQ(port_sync_report(&m, st, "algo", "stepping", 1.5, PORT_PASS_EVENT, " (note)",
                                  &failed, err, sizeof err),
                 PORT_EVENT);
    CHECK_INT_EQ(failed, -1);
    CHECK_INT_EQ(
        port_sync_report(&m, st, "algo", "stepping", 1.5, 0, " (note)", &failed, err, sizeof err),
        PORT_EUNSUPPORTED);
    CHECK_INT_EQ(failed, 1);
    CHECK_STR_EQ(err, "algo: slave 'b' stepping at 1.5 s: stopped at an event (note)");
    v[0] = PORT_ELOST;
    CHECK_INT_EQ(port_sync_report(&m, st, "algo", "stepping", 0.25, PORT_PASS_EVENT, " (note)",
                                  &failed, err, sizeof err),
                 PORT_ELOST);
    CHECK_INT_EQ(failed, 0);
    CHECK_INT_EQ(st[1], PORT_EVENT);
    CHECK_STR_EQ(err, "algo: slave 'a' stepping at 0.25 s: slave lost");
    /* a discard: a failure with its report, unless the caller recovers from it */
    v[0] = PORT_OK, v[1] = PORT_EDISCARD;
    CHECK_INT_EQ(port_sync_report(&m, st, "algo", "stepping", 2, 0, "", &failed, err, sizeof err),
                 PORT_EDISCARD);
    CHECK_INT_EQ(failed, 1);
    CHECK_STR_EQ(err, "algo: slave 'b' stepping at 2 s: step discarded (recoverable)");
    snprintf(err, sizeof err, "untouched");
    failed = -1;
    CHECK_INT_EQ(port_sync_report(&m, st, "algo", "stepping", 2, PORT_PASS_DISCARD, "", &failed,
                                  err, sizeof err),
                 PORT_EDISCARD);
    CHECK_INT_EQ(failed, 1);
    CHECK_STR_EQ(err, "untouched");
    /* an event passed with a discard: the discard is the worse status, passed too */
    v[0] = PORT_EVENT;
    CHECK_INT_EQ(port_sync_report(&m, st, "algo", "stepping", 2,
                                  PORT_PASS_EVENT | PORT_PASS_DISCARD, "", &failed, err,
                                  sizeof err),
                 PORT_EDISCARD);
    CHECK_STR_EQ(err, "untouched");
    v[0] = v[1] = PORT_OK;
    CHECK_INT_EQ(port_sync_report(&m, NULL, "algo", "x", 0, 0, "", &failed, NULL, 0), PORT_OK);
}

/* port_add_cause: a failure's report names the failing slave once, with its own words where
 * the generic words of the status were (issue 38: "slave prey: prey: ..."). */
static void cause(const char *err, int status, const char *slave, const char *why, const char *want)
{
    char e[160];
    snprintf(e, sizeof e, "%s", err);
    port_add_cause(e, sizeof e, status, slave, why);
    CHECK_STR_EQ(e, want);
}

static void test_add_cause(void)
{
    /* Across the protocol: the master's record opens with "slave NAME: ". */
    cause("step at 5 s: slave bad: slave failed", PORT_EFAIL, NULL,
          "slave bad: step: fault: fmi2DoStep returned fmi2Error",
          "step at 5 s: slave bad: step: fault: fmi2DoStep returned fmi2Error");
    cause("wr: slave 'bad' integrating the step at 4.5 s: slave failed", PORT_EFAIL, NULL,
          "slave bad: step: x", "wr: slave 'bad' integrating the step at 4.5 s: step: x");
    /* In one process: the slave's words carry no name; given, it is said when err lacks it. */
    cause("semi: no convergence", PORT_ENOCONV, "prey", "step: y",
          "semi: no convergence (slave prey: step: y)");
    cause("step at 1 s: slave prey: slave failed", PORT_EFAIL, "prey", "step: y",
          "step at 1 s: slave prey: step: y");
    /* "slave NAME lost: " becomes "lost: " after a report naming the slave, else stays whole. */
    cause("step at 2 s: slave b: slave lost", PORT_ELOST, NULL, "slave b lost: no reply within 2 s",
          "step at 2 s: slave b: lost: no reply within 2 s");
    cause("strong: slave 'b' at 2 s: slave lost", PORT_ELOST, NULL, "slave b lost: gone",
          "strong: slave 'b' at 2 s: lost: gone");
    cause("strong: no convergence", PORT_ENOCONV, NULL, "slave b lost: gone",
          "strong: no convergence (slave b lost: gone)");
    /* A name that only starts like another is not that one; nothing to add leaves err. */
    cause("slave bad2: slave failed", PORT_EFAIL, NULL, "slave bad: z", "slave bad2: slave bad: z");
    cause("x: slave failed", PORT_EFAIL, "a", "", "x: slave failed");
    /* Cut to fit, never past the buffer. */
    char small[24] = "step: slave failed";
    port_add_cause(small, sizeof small, PORT_EFAIL, "a", "a very long cause of the failure");
    CHECK_INT_EQ(strlen(small), sizeof small - 1);
}

/* port_seconds (doc/time.md "Seconds from ticks"): with whole ticks per second, the nearest
 * double to the decimal time, against strtod of the decimal text as the independent reference;
 * 15e9 ns is 15 exactly where 15e9 * 1e-9 is not; a tick of a minute multiplies. */
static int same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static void test_seconds(void)
{
    CHECK(same(port_seconds(1e-9, 15000000000), 15.0), "15e9 ns");
    CHECK(same(port_seconds(1e-9, 100000000000), 100.0), "1e11 ns");
    CHECK(same(port_seconds(1e-9, 99999000000), 99.999), "99.999 s");
    CHECK(same(port_seconds(60, 7), 420.0), "7 minutes");
    long bad = 0;
    for (int64_t n = 0; n <= 1000000; n += 7) {
        char txt[32];
        snprintf(txt, sizeof txt, "%lld.%03lld", (long long)(n / 1000), (long long)(n % 1000));
        double ms = port_seconds(1e-3, n), ns = port_seconds(1e-9, n * 1000000);
        if ((!same(ms, strtod(txt, NULL)) || !same(ns, ms)) && bad++ < 3)
            CHECK(0, "%lld ms: %.17g, %.17g, want %s", (long long)n, ms, ns, txt);
    }
    CHECK_INT_EQ(bad, 0);
}

int main(void)
{
    test_seconds();
    test_add_cause();
    CHECK_STR_EQ(port_strerror(PORT_OK), "ok");
    CHECK_STR_HAS(port_strerror(PORT_EDISCARD), "discarded");
    CHECK_STR_HAS(port_strerror(12345), "unknown");
    CHECK_INT_EQ(port_tick_add(INT64_MAX - 5, 10), INT64_MAX);
    CHECK_INT_EQ(port_tick_add(INT64_MIN + 5, -10), INT64_MIN);
    CHECK_INT_EQ(port_tick_add(100, -30), 70);
    int st[3];
    CHECK_INT_EQ(sync_of(PORT_OK, PORT_OK, PORT_OK, st), PORT_OK);
    CHECK_INT_EQ(sync_of(PORT_EVENT, PORT_OK, PORT_TERMINATED, st), PORT_TERMINATED);
    CHECK_INT_EQ(sync_of(PORT_EVENT, PORT_EDISCARD, PORT_ELOST, st), PORT_ELOST);
    CHECK_INT_EQ(st[0], PORT_EVENT);
    CHECK_INT_EQ(st[1], PORT_EDISCARD);
    CHECK_INT_EQ(sync_of(PORT_EFAIL, PORT_OK, PORT_EDISCARD, NULL), PORT_EFAIL);
    /* The slave a report names: the first with the status returned; none when all are ok. */
    long k = 7;
    sync_of3(PORT_OK, PORT_OK, PORT_OK, NULL, &k);
    CHECK_INT_EQ(k, -1);
    sync_of3(PORT_EVENT, PORT_EDISCARD, PORT_ELOST, NULL, &k);
    CHECK_INT_EQ(k, 2);
    sync_of3(PORT_EFAIL, PORT_OK, PORT_EFAIL, NULL, &k);
    CHECK_INT_EQ(k, 0);
    sync_of3(PORT_OK, PORT_TERMINATED, PORT_EVENT, NULL, &k);
    CHECK_INT_EQ(k, 1);
    test_frame();
    test_sync_report();
    return check_summary();
}
