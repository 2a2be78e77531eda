/* Integration test: a federate process killed with SIGKILL is resigned by the RTI with the
 * resign action it gave at join: one that joined with TP_KEEP_OBJECTS leaves its object
 * registered (no remove; a late joiner still discovers it); one that joined with
 * TP_DELETE_OBJECTS has it removed. The others are told (federate_resigned), a
 * time-constrained federate that waited on the dead one's bound is granted, and the
 * survivors go on exchanging data (doc/api.md, doc/rti.md). The victims are forked processes
 * using libtempo. Last, the RTI itself is killed: the survivor's blocking wait ends with
 * TP_ECLOSED instead of hanging. */
#include "tests/integration/client_harness.h"

struct rec {
    const char *want; /* name of the object watched; NULL = "doomed" */
    int discovered, removed, resigned, received, grants;
    tp_object obj;
    tp_fed resigned_fed;
    char resigned_name[32], reason[128];
};

static void on_discover(void *ctx, tp_object obj, tp_handle cls, const char *name, tp_fed o)
{
    struct rec *r = ctx;
    if (strcmp(name, r->want ? r->want : "doomed") == 0) {
        r->discovered++;
        r->obj = obj;
    }
}

static void on_remove(void *ctx, tp_object obj, tp_time t, tp_order o, tp_fed s)
{
    struct rec *r = ctx;
    if (obj == r->obj) r->removed++;
}

static void on_resigned(void *ctx, tp_fed fed, const char *name, const char *reason)
{
    struct rec *r = ctx;
    r->resigned++;
    r->resigned_fed = fed;
    snprintf(r->resigned_name, sizeof r->resigned_name, "%s", name);
    snprintf(r->reason, sizeof r->reason, "%s", reason);
}

static void on_receive(void *ctx, const tp_interaction *i)
{
    ((struct rec *)ctx)->received++;
}

static void on_grant(void *ctx, tp_time t)
{
    ((struct rec *)ctx)->grants++;
}

static const tp_callbacks CB = {.discover = on_discover,
                                .remove = on_remove,
                                .federate_resigned = on_resigned,
                                .receive = on_receive,
                                .grant = on_grant};

static struct rec ro, rw, rk, rl;

static int cond_discovered(void *a)
{
    return ro.discovered == 1;
}
static int cond_gone(void *a)
{
    return ro.removed == 1 && ro.resigned == 1 && rw.resigned == 1;
}
static int cond_received(void *a)
{
    return ro.received == 1;
}
static int cond_granted(void *a)
{
    return ro.grants == 1;
}

static int cond_rk_discovered(void *a)
{
    return rk.discovered == 1;
}
static int cond_rk_resigned(void *a)
{
    return rk.resigned == 1;
}
static int cond_rl_discovered(void *a)
{
    return rl.discovered == 1;
}

/* The keeper: joins "keepfed" with resign action TP_KEEP_OBJECTS, owns object "kept", then
 * evokes until killed. */
static void keeper(const char *addr, int ready_fd)
{
    tp_join_options o = {.rti = addr,
                         .federation = "keepfed",
                         .federate = "keeper",
                         .fom_path = "fom/test.xml",
                         .create = 1,
                         .resign_action = TP_KEEP_OBJECTS,
                         .timeout_ms = 5000};
    tp_federate *f = NULL;
    char err[256];
    tp_handle vehicle, speed;
    tp_object obj;
    if (tp_join(&o, NULL, NULL, &f, err, sizeof err) != TP_OK ||
        tp_object_class(f, "Vehicle", &vehicle) != TP_OK ||
        tp_attribute(f, vehicle, "speed", &speed) != TP_OK ||
        tp_publish_object_class(f, vehicle, &speed, 1) != TP_OK ||
        tp_register_object(f, vehicle, "kept", &obj) != TP_OK)
        _exit(2);
    if (write(ready_fd, "r", 1) != 1) _exit(3);
    while (tp_evoke(f, -1) >= 0) /* until killed */
        ;
    _exit(0);
}

/* A federate killed after joining with TP_KEEP_OBJECTS: the RTI resigns it keeping its
 * object, so nobody gets a remove and a federate that joins later still discovers it. */
static void keep_on_kill(const char *addr)
{
    int pfd[2];
    if (pipe(pfd) < 0) return;
    pid_t kid = fork();
    if (kid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(pfd[0]);
        keeper(addr, pfd[1]);
    }
    close(pfd[1]);
    char c = 0;
    CHECK(read(pfd[0], &c, 1) == 1 && c == 'r', "the keeper is ready");
    close(pfd[0]);
    rk.want = rl.want = "kept";
    tp_federate *K = harness_join(addr, "keepfed", "watcher", "fom/test.xml", &CB, &rk);
    if (!K) {
        kill(kid, SIGKILL);
        waitpid(kid, NULL, 0);
        return;
    }
    tp_handle vehicle, speed;
    CHECK_INT_EQ(tp_object_class(K, "Vehicle", &vehicle), TP_OK);
    CHECK_INT_EQ(tp_attribute(K, vehicle, "speed", &speed), TP_OK);
    CHECK_INT_EQ(tp_subscribe_object_class(K, vehicle, &speed, 1), TP_OK);
    CHECK(harness_pump(&K, 1, cond_rk_discovered, NULL, 5000), "watcher discovers \"kept\"");
    kill(kid, SIGKILL);
    waitpid(kid, NULL, 0);
    CHECK(harness_pump(&K, 1, cond_rk_resigned, NULL, 5000), "watcher told of the keeper's end");
    CHECK_STR_EQ(rk.resigned_name, "keeper");
    /* The RTI sends the removals of a resign before FEDERATE_RESIGNED; one more round trip
     * makes sure nothing is still on its way. */
    tp_time_status st[2];
    size_t n = 0;
    CHECK_INT_EQ(tp_query_time_status(K, st, 2, &n), TP_OK);
    CHECK_INT_EQ(n, 1); /* only the watcher is left */
    tp_evoke(K, 100);
    CHECK_INT_EQ(rk.removed, 0);
    /* A late joiner discovers the kept object: it is still registered at the RTI. */
    tp_federate *L = harness_join(addr, "keepfed", "late", "fom/test.xml", &CB, &rl);
    if (L) {
        CHECK_INT_EQ(tp_subscribe_object_class(L, vehicle, &speed, 1), TP_OK);
        CHECK(harness_pump(&L, 1, cond_rl_discovered, NULL, 5000),
              "a late joiner discovers the kept object");
        CHECK_INT_EQ(tp_resign(L, TP_DELETE_OBJECTS), TP_OK);
        tp_federate_free(L);
    }
    CHECK_INT_EQ(tp_resign(K, TP_DELETE_OBJECTS), TP_OK);
    tp_federate_free(K);
}

/* The victim: joins with resign action TP_DELETE_OBJECTS (the default, given explicitly),
 * regulating with lookahead 10, owns object "doomed", then evokes forever. */
static void victim(const char *addr, int ready_fd)
{
    tp_join_options o = {.rti = addr,
                         .federation = "killfed",
                         .federate = "victim",
                         .fom_path = "fom/test.xml",
                         .create = 1,
                         .resign_action = TP_DELETE_OBJECTS,
                         .timeout_ms = 5000};
    tp_federate *f = NULL;
    char err[256];
    tp_handle vehicle, speed;
    tp_object obj;
    if (tp_join(&o, NULL, NULL, &f, err, sizeof err) != TP_OK ||
        tp_object_class(f, "Vehicle", &vehicle) != TP_OK ||
        tp_attribute(f, vehicle, "speed", &speed) != TP_OK ||
        tp_publish_object_class(f, vehicle, &speed, 1) != TP_OK ||
        tp_register_object(f, vehicle, "doomed", &obj) != TP_OK ||
        tp_enable_regulation(f, 10) != TP_OK || tp_wait_regulation_enabled(f, 5000) != TP_OK)
        _exit(2);
    if (write(ready_fd, "r", 1) != 1) _exit(3);
    while (tp_evoke(f, -1) >= 0) /* until killed, or until the RTI is gone */
        ;
    _exit(0);
}

int main(void)
{
    const char *const args[] = {"--log-level", "warn", NULL};
    const char *addr = harness_start_rti(args, 60);
    if (!addr) return check_summary();
    keep_on_kill(addr);
    int pfd[2];
    if (pipe(pfd) < 0) return 1;
    pid_t kid = fork();
    if (kid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the test */
        close(pfd[0]);
        victim(addr, pfd[1]);
    }
    close(pfd[1]);
    char c = 0;
    CHECK(read(pfd[0], &c, 1) == 1 && c == 'r', "the victim is ready");
    close(pfd[0]);

    tp_federate *O = harness_join(addr, "killfed", "observer", "fom/test.xml", &CB, &ro);
    tp_federate *W = harness_join(addr, "killfed", "witness", "fom/test.xml", &CB, &rw);
    if (!O || !W) {
        kill(kid, SIGKILL);
        waitpid(kid, NULL, 0);
        return check_summary();
    }
    tp_federate *fs[2] = {O, W};
    tp_handle vehicle, speed, message;
    CHECK_INT_EQ(tp_object_class(O, "Vehicle", &vehicle), TP_OK);
    CHECK_INT_EQ(tp_attribute(O, vehicle, "speed", &speed), TP_OK);
    CHECK_INT_EQ(tp_interaction_class(O, "Message", &message), TP_OK);
    CHECK_INT_EQ(tp_subscribe_object_class(O, vehicle, &speed, 1), TP_OK);
    CHECK_INT_EQ(tp_subscribe_interaction_class(O, message), TP_OK);
    CHECK_INT_EQ(tp_publish_interaction_class(W, message), TP_OK);
    CHECK(harness_pump(fs, 2, cond_discovered, NULL, 5000), "observer discovers \"doomed\"");

    /* The observer is constrained and asks for 100: the victim's bound 0 + 10 holds it. */
    CHECK_INT_EQ(tp_enable_constrained(O), TP_OK);
    CHECK_INT_EQ(tp_wait_constrained_enabled(O, 5000), TP_OK);
    CHECK_INT_EQ(tp_time_advance_request(O, 100), TP_OK);
    tp_time_status st[4];
    size_t n = 0;
    CHECK_INT_EQ(tp_query_time_status(O, st, 4, &n), TP_OK);
    CHECK_INT_EQ(n, 3);
    int found = 0;
    for (size_t i = 0; i < n && i < 4; i++)
        if (st[i].federate == tp_federate_handle(O)) {
            found++;
            CHECK_INT_EQ(st[i].pending, TP_REQ_TAR);
            CHECK_INT_EQ(st[i].pending_time, 100);
            CHECK_INT_EQ(st[i].galt, 10); /* held by the victim: 0 + lookahead 10 */
            CHECK(st[i].galt_holder != 0 && st[i].galt_holder != tp_federate_handle(O) &&
                      st[i].galt_holder != tp_federate_handle(W),
                  "the victim holds the observer's GALT (holder %u)", st[i].galt_holder);
        }
    CHECK_INT_EQ(found, 1); /* the checks above ran: the observer has one record */
    tp_evoke(O, 0);
    CHECK_INT_EQ(ro.grants, 0);

    /* Kill it. The RTI resigns it: both survivors are told, its object is removed, and the
     * observer's request is granted since nobody regulates any more. */
    kill(kid, SIGKILL);
    int st_kid;
    waitpid(kid, &st_kid, 0);
    CHECK(harness_pump(fs, 2, cond_gone, NULL, 5000), "survivors told of the victim's end");
    CHECK_STR_EQ(ro.resigned_name, "victim");
    CHECK(ro.reason[0] != '\0', "a reason is given (\"%s\")", ro.reason);
    CHECK(harness_pump(fs, 2, cond_granted, NULL, 5000), "observer granted after the kill");
    tp_time now = -1;
    CHECK_INT_EQ(tp_query_logical_time(O, &now), TP_OK);
    CHECK_INT_EQ(now, 100);

    /* The others go on. */
    tp_handle text;
    CHECK_INT_EQ(tp_parameter(W, message, "text", &text), TP_OK);
    tp_value v = {text, "still here", 10};
    CHECK_INT_EQ(tp_send_interaction(W, message, &v, 1, TP_NO_TIME), TP_OK);
    CHECK(harness_pump(fs, 2, cond_received, NULL, 5000), "observer receives after the kill");

    CHECK_INT_EQ(tp_resign(W, TP_DELETE_OBJECTS), TP_OK);
    tp_federate_free(W);

    /* The RTI itself dies: the survivor's waits end with TP_ECLOSED, nothing hangs. */
    harness_kill_rti();
    /* No timeout: a hang would be caught by the harness watchdog, and fail the test. */
    CHECK_INT_EQ(tp_wait_sync(O, "never-registered", -1), TP_ECLOSED);
    CHECK_STR_HAS(tp_last_error(O), "closed");
    CHECK_INT_EQ(tp_evoke(O, 0), TP_ECLOSED);
    CHECK_INT_EQ(tp_send_interaction(O, message, &v, 1, TP_NO_TIME), TP_ECLOSED);
    tp_federate_free(O); /* no RTI to answer the resign: must not block */
    return check_summary();
}
