/* Integration test of synchronization points through libtempo and a real bin/tempo-rti
 * (doc/fom.md): three federates meet at a point registered for all (nobody is
 * synchronized until the last one achieves), a point for a subset is announced only to it,
 * a duplicate label is refused, and a member that resigns is taken out of the set. Then the
 * same meeting with three forked federate processes using the blocking tp_sync(). */
#include "tests/integration/client_harness.h"

struct rec {
    int announced, synced, registered_ok, registered_fail, joined;
    char last_label[32];
    char fail_reason[128];
};

static void on_reg(void *ctx, const char *label, int status, const char *reason)
{
    struct rec *r = ctx;
    if (status == TP_OK) {
        r->registered_ok++;
    } else {
        r->registered_fail++;
        snprintf(r->fail_reason, sizeof r->fail_reason, "%s: %s", label, reason);
    }
}

static void on_announce(void *ctx, const char *label, const void *tag, size_t n)
{
    struct rec *r = ctx;
    r->announced++;
    snprintf(r->last_label, sizeof r->last_label, "%s", label);
}

static void on_synced(void *ctx, const char *label)
{
    struct rec *r = ctx;
    r->synced++;
}

static void on_joined(void *ctx, tp_fed fed, const char *name)
{
    ((struct rec *)ctx)->joined++;
}

static const tp_callbacks CB = {.sync_registered = on_reg,
                                .sync_announced = on_announce,
                                .synchronized = on_synced,
                                .federate_joined = on_joined};

static struct rec rec[3];

static int all_announced(void *arg)
{
    int want = *(int *)arg;
    return rec[0].announced >= want && rec[1].announced >= want && rec[2].announced >= want;
}

static int all_synced(void *arg)
{
    int want = *(int *)arg;
    return rec[0].synced >= want && rec[1].synced >= want && rec[2].synced >= want;
}

static int ab_announced(void *arg)
{
    return rec[0].announced >= 1 && rec[1].announced >= 1;
}

static int got_registered(void *arg)
{
    return rec[0].registered_ok + rec[0].registered_fail >= *(int *)arg;
}

/* Every federate makes two round trips to the RTI, then dispatches what it holds. */
static void barrier(tp_federate **fs, int n)
{
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            size_t k;
            if (fs[i]) tp_query_time_status(fs[i], NULL, 0, &k);
        }
    for (int i = 0; i < n; i++)
        if (fs[i]) tp_evoke(fs[i], 0);
}

/* A forked federate: join, meet at "go" with the blocking helper, exit 0 on success. */
static int child(const char *addr, int i)
{
    char name[16];
    snprintf(name, sizeof name, "proc%d", i);
    struct rec r = {0};
    tp_join_options o = {.rti = addr,
                         .federation = "procs",
                         .federate = name,
                         .fom_path = "fom/test.xml",
                         .create = 1,
                         .timeout_ms = 5000};
    tp_federate *f = NULL;
    char err[256];
    if (tp_join(&o, &CB, &r, &f, err, sizeof err) != TP_OK) {
        fprintf(stderr, "%s: join: %s\n", name, err);
        return 2;
    }
    if (i == 0) {
        /* wait until the two others have joined, then register "go" for everybody */
        while (r.joined < 2)
            if (tp_evoke(f, 5000) < 0) return 3;
        if (tp_register_sync(f, "go", "tag", 3, NULL, 0) != TP_OK) return 4;
    }
    int rc = tp_sync(f, "go", 10000);
    if (rc != TP_OK) {
        fprintf(stderr, "%s: sync: %s (%s)\n", name, tp_strerror(rc), tp_last_error(f));
        return 5;
    }
    rc = tp_resign(f, TP_DELETE_OBJECTS);
    tp_federate_free(f);
    return rc == TP_OK && r.synced == 1 && r.announced == 1 ? 0 : 6;
}

int main(void)
{
    const char *const args[] = {"--log-level", "warn", NULL};
    const char *addr = harness_start_rti(args, 60);
    if (!addr) return check_summary();
    tp_federate *f[3];
    const char *names[3] = {"A", "B", "C"};
    for (int i = 0; i < 3; i++) {
        f[i] = harness_join(addr, "syncfed", names[i], "fom/test.xml", &CB, &rec[i]);
        if (!f[i]) return check_summary();
    }

    /* ---- three federates meet at "start" (registered for all) ---- */
    CHECK_INT_EQ(tp_register_sync(f[0], "start", "x", 1, NULL, 0), TP_OK);
    int one = 1, two = 2;
    CHECK(harness_pump(f, 3, all_announced, &one, 5000), "all three announced");
    CHECK_INT_EQ(rec[0].registered_ok, 1);
    CHECK_STR_EQ(rec[2].last_label, "start");
    CHECK_INT_EQ(tp_achieve_sync(f[0], "start"), TP_OK);
    CHECK_INT_EQ(tp_achieve_sync(f[1], "start"), TP_OK);
    barrier(f, 3);
    CHECK_INT_EQ(rec[0].synced + rec[1].synced + rec[2].synced, 0); /* C has not achieved */
    CHECK_INT_EQ(tp_wait_sync(f[0], "start", 0), TP_TIMEOUT);
    CHECK_INT_EQ(tp_achieve_sync(f[2], "start"), TP_OK);
    CHECK(harness_pump(f, 3, all_synced, &one, 5000), "all three synchronized");
    CHECK_INT_EQ(tp_wait_sync(f[1], "start", 0), TP_OK); /* remembered */

    /* ---- errors: unknown label, duplicate label ---- */
    CHECK_INT_EQ(tp_achieve_sync(f[0], "never"), TP_ENOTFOUND);
    CHECK_STR_HAS(tp_last_error(f[0]), "never");
    CHECK_INT_EQ(tp_register_sync(f[0], "", NULL, 0, NULL, 0), TP_EINVAL);
    /* a label still pending cannot be registered again (a completed one may be reused) */
    CHECK_INT_EQ(tp_register_sync(f[0], "dup", NULL, 0, NULL, 0), TP_OK);
    CHECK(harness_pump(f, 3, got_registered, &two, 5000), "first registration answered");
    CHECK_INT_EQ(rec[0].registered_ok, 2);
    CHECK_INT_EQ(tp_register_sync(f[1], "dup", NULL, 0, NULL, 0), TP_OK); /* sent... */
    barrier(f, 3);
    CHECK_INT_EQ(rec[1].registered_ok, 0);
    CHECK_INT_EQ(rec[1].registered_fail, 1); /* ...and refused by the RTI */
    CHECK_STR_HAS(rec[1].fail_reason, "dup");

    /* ---- a subset: {A, B}; C is not announced; B resigns and A alone completes it ---- */
    tp_fed ab[2] = {tp_federate_handle(f[0]), tp_federate_handle(f[1])};
    int c_before = rec[2].announced;
    CHECK_INT_EQ(tp_register_sync(f[0], "pair", NULL, 0, ab, 2), TP_OK);
    rec[0].announced = rec[1].announced = 0;
    CHECK(harness_pump(f, 3, ab_announced, NULL, 5000), "A and B announced \"pair\"");
    barrier(f, 3);
    CHECK_STR_EQ(rec[1].last_label, "pair");
    CHECK_INT_EQ(rec[2].announced, c_before); /* C is not in the set */
    CHECK_INT_EQ(tp_achieve_sync(f[0], "pair"), TP_OK);
    barrier(f, 3);
    CHECK_INT_EQ(rec[0].synced, 1); /* still waiting for B */
    CHECK_INT_EQ(tp_resign(f[1], TP_DELETE_OBJECTS), TP_OK);
    tp_federate_free(f[1]);
    f[1] = NULL;
    /* B's resign has been processed (it blocked for the answer), so after a round trip of
     * A's the announcement is in A's buffer: a wait with timeout 0 dispatches it. */
    size_t nq = 0;
    CHECK_INT_EQ(tp_query_time_status(f[0], NULL, 0, &nq), TP_OK);
    CHECK_INT_EQ(rec[0].synced, 1); /* not dispatched yet: queries run no callbacks */
    CHECK_INT_EQ(tp_wait_sync(f[0], "pair", 0), TP_OK);
    CHECK_INT_EQ(rec[0].synced, 2); /* A synchronized at "pair" once B resigned */

    for (int i = 0; i < 3; i++)
        if (f[i]) {
            CHECK_INT_EQ(tp_resign(f[i], TP_DELETE_OBJECTS), TP_OK);
            tp_federate_free(f[i]);
        }

    /* ---- three processes meet with the blocking helper ---- */
    pid_t kids[3];
    for (int i = 0; i < 3; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the test */
            _exit(child(addr, i));
        }
    }
    for (int i = 0; i < 3; i++) {
        int st = 0;
        waitpid(kids[i], &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "process %d met the others (status %d)", i,
              WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    harness_stop_rti();
    return check_summary();
}
