/* Integration test of "no silent data loss" (doc/api.md, tp_callbacks.error and
 * tp_query_send_bound; doc/time.md "enabling regulation mid-run") and of stalls under polling
 * over the wire (tp_query_stall, doc/time.md §7), against a real tempo-rti:
 *   - C (constrained) advances to 10 alone; then L enables regulation with lookahead 1 at
 *     T = 0. The RTI starts L's bound at C's promise (10, strict), not at T + L = 1.
 *   - An update L sends before the confirmation arrives (stamped 5: not regulating yet by the
 *     library's mirror, so it passes locally) is refused by the RTI: the error callback runs
 *     once and the next blocking call returns TP_EBOUND naming the UPDATE; it is returned once.
 *   - After the confirmation, tp_query_send_bound gives (10, strict) and an update stamped 5
 *     fails at once with TP_EBOUND; one stamped 11 goes through.
 *   - C polls with FQR while L does nothing: tp_query_stall says C is stalled, waiting for L.
 * Read tests/integration/client_harness.h first. */
#include <string.h>

#include "federate/libtempo/tempo.h"
#include "tests/check.h"
#include "tests/integration/client_harness.h"

struct seen {
    int errors;     /* error callbacks */
    int last_code;  /* code of the last one */
    char last[512]; /* its message */
};

static void on_error(void *ctx, int code, const char *message)
{
    struct seen *s = ctx;
    s->errors++;
    s->last_code = code;
    snprintf(s->last, sizeof s->last, "%s", message);
}

static int send_x(tp_federate *f, tp_object o, tp_handle x, double v, tp_time t)
{
    uint8_t b[TP_FLOAT64_SIZE];
    tp_encode_float64(v, b);
    tp_value val = {x, b, sizeof b};
    return tp_update(f, o, &val, 1, t);
}

static void test_late_regulator(const char *addr)
{
    static const tp_callbacks cb = {.error = on_error};
    struct seen sl = {0}, sc = {0};
    tp_federate *C = harness_join(addr, "late", "C", "fom/test.xml", &cb, &sc);
    tp_federate *L = harness_join(addr, "late", "L", "fom/test.xml", &cb, &sl);
    if (!C || !L) goto out;
    tp_handle sample, x;
    tp_object obj;
    tp_time t = -1;
    CHECK_INT_EQ(tp_object_class(L, "Sample", &sample), TP_OK);
    CHECK_INT_EQ(tp_attribute(L, sample, "x", &x), TP_OK);
    CHECK_INT_EQ(tp_publish_object_class(L, sample, &x, 1), TP_OK);
    CHECK_INT_EQ(tp_register_object(L, sample, "late.s", &obj), TP_OK);
    /* C constrained, alone in time: granted 10 at once (nobody regulates), promised (10, s) */
    CHECK_INT_EQ(tp_enable_constrained(C), TP_OK);
    CHECK_INT_EQ(tp_wait_constrained_enabled(C, 5000), TP_OK);
    CHECK_INT_EQ(tp_time_advance_request(C, 10), TP_OK);
    CHECK_INT_EQ(tp_wait_grant(C, &t, 5000), TP_OK);
    CHECK_INT_EQ(t, 10);
    /* L enables regulation late and sends at once, before the RTI's confirmation */
    CHECK_INT_EQ(tp_enable_regulation(L, 1), TP_OK);
    CHECK_INT_EQ(send_x(L, obj, x, 5.0, 5), TP_OK); /* the mirror cannot know yet */
    CHECK_INT_EQ(tp_flush(L), TP_OK);
    /* the next blocking call returns the refusal, whatever it waited for */
    int rc = tp_wait_regulation_enabled(L, 5000);
    CHECK_INT_EQ(rc, TP_EBOUND);
    CHECK_STR_HAS(tp_last_error(L), "the RTI refused an earlier UPDATE of federate \"L\"");
    CHECK_INT_EQ(sl.errors, 1);
    CHECK_INT_EQ(sl.last_code, TP_EBOUND);
    /* returned once: the wait now completes */
    CHECK_INT_EQ(tp_wait_regulation_enabled(L, 5000), TP_OK);
    tp_time b = -1;
    int strict = -1;
    CHECK_INT_EQ(tp_query_send_bound(L, &b, &strict), TP_OK);
    CHECK(b == 10 && strict == 1, "L's send bound is C's promise (10, strict), got (%lld, %d)",
          (long long)b, strict);
    CHECK_INT_EQ(send_x(L, obj, x, 5.0, 5), TP_EBOUND); /* refused locally, at once */
    CHECK_STR_HAS(tp_last_error(L), "> 10");
    CHECK_INT_EQ(send_x(L, obj, x, 10.0, 10), TP_EBOUND); /* strict: 10 is not allowed */
    CHECK_INT_EQ(send_x(L, obj, x, 11.0, 11), TP_OK);
    size_t n = 0;
    CHECK_INT_EQ(tp_query_time_status(L, NULL, 0, &n), TP_OK); /* no late error pending */
    CHECK_INT_EQ(sl.errors, 1);

    /* C polls with FQR(20) while L does nothing more: each grant is max(10, min(20, GALT
     * (10, strict))) = 10; the first delivers L's update stamped 11 (progress), the next ones
     * deliver nothing: C is stalled, and waits for L */
    for (int i = 0; i < 4; i++) {
        CHECK_INT_EQ(tp_flush_queue_request(C, 20), TP_OK);
        CHECK_INT_EQ(tp_wait_grant(C, &t, 5000), TP_OK);
    }
    unsigned polls = 0;
    tp_fed waits = 0;
    CHECK_INT_EQ(tp_query_stall(C, 0, &polls, &waits), TP_OK);
    CHECK(polls >= 2, "C polled without progress (%u grants)", polls);
    CHECK_INT_EQ(waits, tp_federate_handle(L));
    CHECK_INT_EQ(tp_query_stall(L, tp_federate_handle(C), &polls, &waits), TP_OK);
    CHECK(polls >= 2 && waits == tp_federate_handle(L), "L sees the same (%u, %u)", polls, waits);
    CHECK_INT_EQ(tp_query_stall(L, 0, &polls, &waits), TP_OK);
    CHECK(polls == 0 && waits == 0, "L is not stalled (%u, %u)", polls, waits);
    CHECK_INT_EQ(tp_query_stall(L, 9999, &polls, NULL), TP_EHANDLE);
out:
    if (L) tp_resign(L, TP_DELETE_OBJECTS);
    if (C) tp_resign(C, TP_DELETE_OBJECTS);
    tp_federate_free(L);
    tp_federate_free(C);
}

/* A refusal that arrives while the program waits for another reply (here: resign) is
 * returned by that call: the federate cannot end "well" having lost an update. */
static void test_refusal_at_resign(const char *addr)
{
    static const tp_callbacks cb = {.error = on_error};
    struct seen sc = {0}, sl = {0};
    tp_federate *C = harness_join(addr, "late2", "C", "fom/test.xml", &cb, &sc);
    tp_federate *L = harness_join(addr, "late2", "L", "fom/test.xml", &cb, &sl);
    if (!C || !L) goto out;
    tp_handle sample, x;
    tp_object obj;
    tp_time t;
    CHECK_INT_EQ(tp_object_class(L, "Sample", &sample), TP_OK);
    CHECK_INT_EQ(tp_attribute(L, sample, "x", &x), TP_OK);
    CHECK_INT_EQ(tp_publish_object_class(L, sample, &x, 1), TP_OK);
    CHECK_INT_EQ(tp_register_object(L, sample, "late2.s", &obj), TP_OK);
    CHECK_INT_EQ(tp_enable_constrained(C), TP_OK);
    CHECK_INT_EQ(tp_wait_constrained_enabled(C, 5000), TP_OK);
    CHECK_INT_EQ(tp_time_advance_request(C, 10), TP_OK);
    CHECK_INT_EQ(tp_wait_grant(C, &t, 5000), TP_OK);
    CHECK_INT_EQ(tp_enable_regulation(L, 1), TP_OK);
    CHECK_INT_EQ(send_x(L, obj, x, 3.0, 3), TP_OK);
    /* no evoke in between: the RTI's ERROR waits in the queue before the resign's REPLY */
    CHECK_INT_EQ(tp_resign(L, TP_DELETE_OBJECTS), TP_EBOUND);
    CHECK_STR_HAS(tp_last_error(L), "UPDATE");
    CHECK_INT_EQ(tp_resign(L, TP_DELETE_OBJECTS), TP_ESTATE); /* resigned all the same */
out:
    if (C) tp_resign(C, TP_DELETE_OBJECTS);
    tp_federate_free(L);
    tp_federate_free(C);
}

int main(void)
{
    const char *const args[] = {"--log-level", "error", NULL};
    const char *addr = harness_start_rti(args, 60);
    if (addr) {
        test_late_regulator(addr);
        test_refusal_at_resign(addr);
    }
    harness_stop_rti();
    return check_summary();
}
