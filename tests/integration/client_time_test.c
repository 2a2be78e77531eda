/* Integration test of libtempo's time-management calls against a real bin/tempo-rti
 * (doc/time.md, the client side): the local checks that refuse bad calls before
 * anything is sent (request below the logical time, a second request, enabling twice, a time
 * stamp below the bound for L > 0 and at L = 0 after TAR/TARA grants), TSO delivery in
 * time-stamp order before the grant, GALT, LITS and the "who blocks whom" query (with the
 * root of a NER chain, part 4), and the zero lookahead TARA(t)/TAR(t) instant of the Jacobi
 * pattern. Two or three federates in one
 * process. The engine's full rules are tested by tests/conformance (rti/tm/tm.c).
 *
 * Topology (part 2):   A (regulating L = 10, constrained) --Sample.x TSO--> B (constrained) */
#include "tests/integration/client_harness.h"

#define MAXR 32

struct rec {
    tp_handle x;
    int reflects;
    tp_time refl_time[MAXR];
    tp_order refl_order[MAXR];
    double refl_x[MAXR];
    int grants;
    tp_time last_grant;
    int errors;
    int reg_enabled, con_enabled;
};

static void on_reflect(void *ctx, const tp_reflection *r)
{
    struct rec *c = ctx;
    if (c->reflects < MAXR) {
        c->refl_time[c->reflects] = r->time;
        c->refl_order[c->reflects] = r->order;
        c->refl_x[c->reflects] = NAN;
        for (size_t i = 0; i < r->n_values; i++)
            if (r->values[i].handle == c->x)
                tp_decode_float64(r->values[i].data, r->values[i].size, &c->refl_x[c->reflects]);
    }
    c->reflects++;
}

static void on_grant(void *ctx, tp_time t)
{
    struct rec *c = ctx;
    c->grants++;
    c->last_grant = t;
}

static void on_error(void *ctx, int code, const char *msg)
{
    ((struct rec *)ctx)->errors++;
    fprintf(stderr, "async error %s: %s\n", tp_strerror(code), msg);
}

static void on_reg(void *ctx, tp_time t)
{
    ((struct rec *)ctx)->reg_enabled++;
}
static void on_con(void *ctx, tp_time t)
{
    ((struct rec *)ctx)->con_enabled++;
}

static const tp_callbacks CB = {.reflect = on_reflect,
                                .grant = on_grant,
                                .error = on_error,
                                .regulation_enabled = on_reg,
                                .constrained_enabled = on_con};

static struct rec ra, rb, rc, rd;

static int b_granted(void *want)
{
    return rb.grants >= *(int *)want;
}
static int both_at_40(void *arg)
{
    return ra.last_grant == 40 && rb.last_grant == 40;
}
static int cd_granted(void *want)
{
    return rc.grants >= *(int *)want && rd.grants >= *(int *)want;
}

static int send_x(tp_federate *f, tp_object obj, tp_handle x, double v, tp_time t)
{
    uint8_t b[8];
    tp_encode_float64(v, b);
    tp_value val = {x, b, 8};
    return tp_update(f, obj, &val, 1, t);
}

/* Shared by the parts below, which main runs in order (each continues the previous). */
static const char *addr; /* RTI address */
static tp_federate *A, *B,
    *ab[2];                 /* part 1-2: A regulating L = 10 and constrained, B constrained */
static tp_handle sample, x; /* Sample and its float64 attribute x */
static tp_object s1;        /* A's Sample object */
static int one = 1, two = 2, three = 3, four = 4; /* grant counts to wait for */

/* Start the RTI, join A and B, resolve handles, check the FOM's resolution. */
static int setup(void)
{
    const char *const args[] = {"--log-level", getenv("RTI_LOG") ? getenv("RTI_LOG") : "warn",
                                NULL};
    addr = harness_start_rti(args, 60);
    if (!addr) return 0;
    A = harness_join(addr, "timefed", "A", "fom/test.xml", &CB, &ra);
    B = harness_join(addr, "timefed", "B", "fom/test.xml", &CB, &rb);
    if (!A || !B) return 0;
    ab[0] = A;
    ab[1] = B;
    CHECK_INT_EQ(tp_object_class(A, "Sample", &sample), TP_OK);
    CHECK_INT_EQ(tp_attribute(A, sample, "x", &x), TP_OK);
    ra.x = rb.x = x;
    CHECK(tp_time_from_seconds(A, 1.0) == 1000000000, "FOM resolution 1 ns");
    CHECK_NEAR(tp_time_to_seconds(A, 2500000000ll), 2.5, 1e-12);
    return 1;
}

/* Part 1: local checks before and while enabling. */
static void part1(void)
{
    tp_time t = -1;
    CHECK_INT_EQ(tp_wait_grant(A, &t, 0), TP_ESTATE);
    CHECK_INT_EQ(tp_enable_regulation(A, -1), TP_EINVAL);
    CHECK_INT_EQ(tp_modify_lookahead(A, 5), TP_ENOTENABLED);
    CHECK_INT_EQ(tp_disable_regulation(A), TP_ENOTENABLED);
    CHECK_INT_EQ(tp_query_lookahead(A, &t), TP_ENOTENABLED);
    CHECK_INT_EQ(tp_wait_regulation_enabled(A, 0), TP_ENOTENABLED);
    CHECK_INT_EQ(tp_enable_regulation(A, 10), TP_OK);
    CHECK_INT_EQ(tp_enable_regulation(A, 10), TP_EENABLED); /* while being enabled */
    CHECK_INT_EQ(tp_time_advance_request(A, 5), TP_EPENDING);
    CHECK_STR_HAS(tp_last_error(A), "regulation");
    CHECK_INT_EQ(tp_wait_regulation_enabled(A, 5000), TP_OK);
    CHECK_INT_EQ(ra.reg_enabled, 1);
    CHECK_INT_EQ(tp_enable_regulation(A, 10), TP_EENABLED);
    CHECK_INT_EQ(tp_query_lookahead(A, &t), TP_OK);
    CHECK_INT_EQ(t, 10);
    CHECK_INT_EQ(tp_enable_constrained(A), TP_OK);
    CHECK_INT_EQ(tp_wait_constrained_enabled(A, 5000), TP_OK);
    CHECK_INT_EQ(tp_enable_constrained(A), TP_EENABLED);
    CHECK_INT_EQ(tp_enable_constrained(B), TP_OK);
    CHECK_INT_EQ(tp_wait_constrained_enabled(B, 5000), TP_OK);
    CHECK_INT_EQ(rb.con_enabled, 1);
}

/* Part 2: TSO delivery in time-stamp order, bounds, grants. */
static void part2(void)
{
    tp_time t = -1;
    CHECK_INT_EQ(tp_publish_object_class(A, sample, &x, 1), TP_OK);
    CHECK_INT_EQ(tp_subscribe_object_class(B, sample, &x, 1), TP_OK);
    /* Declarations are asynchronous: a round trip makes sure the RTI has B's subscription
     * before A's updates. */
    size_t nst = 0;
    CHECK_INT_EQ(tp_query_time_status(B, NULL, 0, &nst), TP_OK);
    CHECK_INT_EQ(tp_register_object(A, sample, "s1", &s1), TP_OK);
    CHECK_INT_EQ(send_x(A, s1, x, 5.0, 5), TP_EBOUND); /* bound is 0 + 10 */
    CHECK_STR_HAS(tp_last_error(A), ">= 10");
    CHECK_INT_EQ(send_x(A, s1, x, 15.0, 15), TP_OK);
    CHECK_INT_EQ(send_x(A, s1, x, 12.0, 12), TP_OK); /* sent after 15, stamped earlier */
    CHECK_INT_EQ(send_x(A, s1, x, 30.0, 30), TP_OK);
    CHECK_INT_EQ(send_x(A, s1, x, -1.0, TP_NO_TIME), TP_OK); /* receive order */
    /* LITS: the least time stamp the RTI holds for a federate. A's query returns after the
     * RTI has handled A's sends (one connection is served in order); none of them can be
     * delivered yet, since A's bound (10) does not pass 12. */
    tp_time lits = 0;
    CHECK_INT_EQ(tp_query_lits(A, &lits), TP_OK);
    CHECK_INT_EQ(lits, TP_TIME_MAX); /* nothing is sent to A */
    CHECK_INT_EQ(tp_query_lits(B, &lits), TP_OK);
    CHECK_INT_EQ(lits, 12); /* 15, 12 and 30 wait for B: 12 is the least */
    CHECK_INT_EQ(tp_time_advance_request(A, 20), TP_OK);
    CHECK_INT_EQ(tp_time_advance_request(A, 20), TP_EPENDING);
    CHECK_INT_EQ(tp_next_event_request(A, 40), TP_EPENDING);
    CHECK_INT_EQ(tp_wait_grant(A, &t, 5000), TP_OK);
    CHECK_INT_EQ(t, 20);
    CHECK_INT_EQ(tp_time_advance_request(A, 15), TP_ETIME);
    CHECK_STR_HAS(tp_last_error(A), "15");
    CHECK_INT_EQ(send_x(A, s1, x, 25.0, 25), TP_EBOUND); /* bound now 20 + 10 */

    /* B asks for 25: GALT_B = A's bound 30, so 12 and 15 come first, then the grant. */
    CHECK_INT_EQ(tp_time_advance_request(B, 25), TP_OK);
    CHECK(harness_pump(ab, 2, b_granted, &one, 5000), "B granted 25");
    CHECK_INT_EQ(rb.last_grant, 25);
    int tso = 0, ro = 0;
    tp_time prev = TP_NO_TIME;
    int ordered = 1;
    for (int i = 0; i < rb.reflects && i < MAXR; i++) {
        if (rb.refl_order[i] == TP_TIMESTAMP_ORDER) {
            if (rb.refl_time[i] < prev) ordered = 0;
            prev = rb.refl_time[i];
            tso++;
            CHECK(rb.refl_time[i] <= 25, "no TSO above the grant (got %lld)",
                  (long long)rb.refl_time[i]);
        } else {
            ro++;
        }
    }
    CHECK_INT_EQ(tso, 2);
    CHECK_INT_EQ(ro, 1);
    CHECK(ordered, "TSO reflections in time-stamp order");
    CHECK(rb.reflects >= 3 && rb.refl_time[rb.reflects - 2] == 12 &&
              rb.refl_time[rb.reflects - 1] == 15 && rb.refl_x[rb.reflects - 1] == 15.0,
          "12 then 15 delivered");
}

/* Part 2a: who blocks whom: B is at 25, its GALT (30, non-strict) is held by A. */
static void part2a(void)
{
    tp_time t = -1;
    tp_time galt = 0;
    int strict = -1;
    CHECK_INT_EQ(tp_query_galt(B, &galt, &strict), TP_OK);
    CHECK_INT_EQ(galt, 30);
    CHECK_INT_EQ(strict, 0);
    CHECK_INT_EQ(tp_time_advance_request(B, 40), TP_OK);
    tp_time_status st[4];
    size_t n = 0;
    CHECK_INT_EQ(tp_query_time_status(B, st, 4, &n), TP_OK);
    CHECK_INT_EQ(n, 2);
    for (size_t i = 0; i < n && i < 4; i++) {
        if (st[i].federate == tp_federate_handle(B)) {
            CHECK_INT_EQ(st[i].time, 25);
            CHECK_INT_EQ(st[i].pending, TP_REQ_TAR);
            CHECK_INT_EQ(st[i].pending_time, 40);
            CHECK_INT_EQ(st[i].galt_holder, tp_federate_handle(A));
            CHECK_INT_EQ(st[i].galt_root, tp_federate_handle(A)); /* A's own promise */
            CHECK_INT_EQ(st[i].lits, 30); /* 12 and 15 delivered, 30 still held */
        } else {
            CHECK_INT_EQ(st[i].federate, tp_federate_handle(A));
            CHECK_INT_EQ(st[i].time, 20);
            CHECK_INT_EQ(st[i].bound, 30);
            CHECK_INT_EQ(st[i].bound_strict, 0);
            CHECK_INT_EQ(st[i].galt_holder, 0); /* B does not regulate */
            CHECK_INT_EQ(st[i].galt_root, 0);
            CHECK_INT_EQ(st[i].lits, TP_TIME_MAX);
        }
    }
    size_t m = 0;
    CHECK_INT_EQ(tp_query_time_status(B, NULL, 0, &m), TP_OK); /* count only */
    CHECK_INT_EQ(m, 2);
    tp_evoke(B, 0);
    CHECK_INT_EQ(rb.grants, 1); /* 40 not yet: A may still send 30 */
    CHECK_INT_EQ(tp_time_advance_request(A, 40), TP_OK);
    CHECK(harness_pump(ab, 2, both_at_40, NULL, 5000), "B granted 40 once A asked for 40");
    CHECK_INT_EQ(rb.last_grant, 40);
    CHECK(rb.reflects >= 1 && rb.refl_time[rb.reflects - 1] == 30, "30 delivered before 40");
    /* A's own grant was dispatched by the pump above (it evokes both federates). */
    CHECK_INT_EQ(ra.last_grant, 40);
    CHECK_INT_EQ(tp_query_logical_time(A, &t), TP_OK);
    CHECK_INT_EQ(t, 40);
}

/* Part 2b: NER and FQR through the client (A at 40 with L = 10). */
static void part2b(void)
{
    tp_time t = -1;
    int a_before = ra.grants;
    CHECK_INT_EQ(send_x(A, s1, x, 55.0, 55), TP_OK);
    CHECK_INT_EQ(send_x(A, s1, x, 60.0, 60), TP_OK);
    CHECK_INT_EQ(tp_time_advance_request(A, 60), TP_OK); /* A's bound becomes 70 */
    CHECK_INT_EQ(tp_wait_grant(A, &t, 5000), TP_OK);
    CHECK_INT_EQ(t, 60);
    CHECK_INT_EQ(ra.grants, a_before + 1);
    /* NER(100): the next message is at 55 and nothing earlier can come (GALT 70). */
    CHECK_INT_EQ(tp_next_event_request(B, 100), TP_OK);
    CHECK(harness_pump(ab, 2, b_granted, &three, 5000), "B granted its NER");
    CHECK_INT_EQ(rb.last_grant, 55);
    CHECK(rb.reflects >= 1 && rb.refl_time[rb.reflects - 1] == 55, "55 delivered before 55");
    int refl_before = rb.reflects;
    /* FQR(100): everything queued (60) now, granted max(T, min(100, GALT 70)) = 70. */
    CHECK_INT_EQ(tp_flush_queue_request(B, 100), TP_OK);
    CHECK(harness_pump(ab, 2, b_granted, &four, 5000), "B granted its FQR");
    CHECK_INT_EQ(rb.last_grant, 70);
    CHECK_INT_EQ(rb.reflects, refl_before + 1);
    CHECK(rb.reflects >= 1 && rb.refl_time[rb.reflects - 1] == 60, "60 flushed");
    CHECK_INT_EQ(tp_next_event_request_available(B, 69), TP_ETIME);
}

/* Part 4: the root of a NER chain. E regulates at L = 0 (granted at 0: bound (0,
 * non-strict)); G regulates at L = 0, is constrained and waits in NER(100). G's bound is
 * derived from what it could still be given, min(LITS, GALT_G = E's bound), so it is
 * (0, strict): E's GALT is held by G, but its root is E itself. E sends G a message at 5:
 * G's LITS is 5.
 *
 *     E (L=0, bound (0,ns)) --TSO 5--> G (L=0, NER(100), bound (0,strict) from E's)     */
static void part4(void)
{
    struct rec re = {0}, rg = {0};
    tp_federate *E = harness_join(addr, "nerfed", "E", "fom/test.xml", &CB, &re);
    tp_federate *G = harness_join(addr, "nerfed", "G", "fom/test.xml", &CB, &rg);
    if (E && G) {
        tp_fed he = tp_federate_handle(E), hg = tp_federate_handle(G);
        tp_object oe;
        re.x = rg.x = x;
        CHECK_INT_EQ(tp_enable_regulation(E, 0), TP_OK);
        CHECK_INT_EQ(tp_wait_regulation_enabled(E, 5000), TP_OK);
        CHECK_INT_EQ(tp_enable_regulation(G, 0), TP_OK);
        CHECK_INT_EQ(tp_wait_regulation_enabled(G, 5000), TP_OK);
        CHECK_INT_EQ(tp_enable_constrained(G), TP_OK);
        CHECK_INT_EQ(tp_wait_constrained_enabled(G, 5000), TP_OK);
        CHECK_INT_EQ(tp_publish_object_class(E, sample, &x, 1), TP_OK);
        CHECK_INT_EQ(tp_subscribe_object_class(G, sample, &x, 1), TP_OK);
        size_t n = 0;
        CHECK_INT_EQ(tp_query_time_status(G, NULL, 0, &n), TP_OK); /* subscription is in */
        CHECK_INT_EQ(tp_register_object(E, sample, "e", &oe), TP_OK);
        CHECK_INT_EQ(send_x(E, oe, x, 5.0, 5), TP_OK);
        tp_time lits = 0;
        CHECK_INT_EQ(tp_query_lits(E, &lits), TP_OK); /* also: the RTI has E's send */
        CHECK_INT_EQ(lits, TP_TIME_MAX);
        CHECK_INT_EQ(tp_next_event_request(G, 100), TP_OK);
        tp_time_status st[3];
        CHECK_INT_EQ(tp_query_time_status(G, st, 3, &n), TP_OK);
        CHECK_INT_EQ(n, 2);
        for (size_t i = 0; i < n && i < 3; i++) {
            if (st[i].federate == he) {
                CHECK_INT_EQ(st[i].bound, 0);
                CHECK_INT_EQ(st[i].bound_strict, 0);
                CHECK_INT_EQ(st[i].galt, 0);
                CHECK_INT_EQ(st[i].galt_strict, 1);
                CHECK_INT_EQ(st[i].galt_holder, hg);
                CHECK_INT_EQ(st[i].galt_root, he); /* the chain ends at E's own promise */
                CHECK_INT_EQ(st[i].lits, TP_TIME_MAX);
            } else {
                CHECK_INT_EQ(st[i].federate, hg);
                CHECK_INT_EQ(st[i].pending, TP_REQ_NER);
                CHECK_INT_EQ(st[i].pending_time, 100);
                CHECK_INT_EQ(st[i].bound, 0);
                CHECK_INT_EQ(st[i].bound_strict, 1);
                CHECK_INT_EQ(st[i].galt_holder, he);
                CHECK_INT_EQ(st[i].galt_root, he);
                CHECK_INT_EQ(st[i].lits, 5);
            }
        }
        CHECK_INT_EQ(tp_query_lits(G, &lits), TP_OK);
        CHECK_INT_EQ(lits, 5);
        CHECK_INT_EQ(re.errors + rg.errors, 0);
        CHECK_INT_EQ(tp_resign(E, TP_DELETE_OBJECTS), TP_OK);
        CHECK_INT_EQ(tp_resign(G, TP_DELETE_OBJECTS), TP_OK);
    }
    tp_federate_free(E);
    tp_federate_free(G);
}

/* Part 3: zero lookahead, the Jacobi instant: TARA(10) ... TAR(10). */
static void part3(void)
{
    tp_federate *C = harness_join(addr, "timefed0", "C", "fom/test.xml", &CB, &rc);
    tp_federate *D = harness_join(addr, "timefed0", "D", "fom/test.xml", &CB, &rd);
    if (C && D) {
        tp_federate *cd[2] = {C, D};
        rc.x = rd.x = x;
        tp_object oc, od;
        for (int i = 0; i < 2; i++) {
            CHECK_INT_EQ(tp_enable_regulation(cd[i], 0), TP_OK);
            CHECK_INT_EQ(tp_wait_regulation_enabled(cd[i], 5000), TP_OK);
            CHECK_INT_EQ(tp_enable_constrained(cd[i]), TP_OK);
            CHECK_INT_EQ(tp_wait_constrained_enabled(cd[i], 5000), TP_OK);
            CHECK_INT_EQ(tp_publish_object_class(cd[i], sample, &x, 1), TP_OK);
            CHECK_INT_EQ(tp_subscribe_object_class(cd[i], sample, &x, 1), TP_OK);
        }
        CHECK_INT_EQ(tp_register_object(C, sample, "c", &oc), TP_OK);
        CHECK_INT_EQ(tp_register_object(D, sample, "d", &od), TP_OK);
        /* After enabling at L = 0 the bound is (0, non-strict): sending at 0 is allowed. */
        CHECK_INT_EQ(tp_time_advance_request_available(C, 10), TP_OK);
        CHECK_INT_EQ(tp_time_advance_request_available(D, 10), TP_OK);
        CHECK(harness_pump(cd, 2, cd_granted, &one, 5000), "TARA(10) granted to both");
        CHECK_INT_EQ(rc.last_grant, 10);
        /* At (10, non-strict) both may send stamped 10: the exchange of the instant. */
        CHECK_INT_EQ(send_x(C, oc, x, 1.0, 10), TP_OK);
        CHECK_INT_EQ(send_x(D, od, x, 2.0, 10), TP_OK);
        CHECK_INT_EQ(send_x(D, od, x, 2.0, 9), TP_EBOUND);
        CHECK_INT_EQ(tp_time_advance_request(C, 10), TP_OK); /* closes the instant */
        CHECK_INT_EQ(tp_time_advance_request(D, 10), TP_OK);
        CHECK(harness_pump(cd, 2, cd_granted, &two, 5000), "TAR(10) granted to both");
        CHECK(rc.reflects == 1 && rc.refl_time[0] == 10 && rc.refl_x[0] == 2.0,
              "C saw D's value for 10 before leaving 10");
        CHECK(rd.reflects == 1 && rd.refl_time[0] == 10 && rd.refl_x[0] == 1.0,
              "D saw C's value for 10 before leaving 10");
        /* After TAR(10) at L = 0 the bound is (10, strict): 10 is refused, 11 is fine. */
        CHECK_INT_EQ(send_x(C, oc, x, 1.0, 10), TP_EBOUND);
        CHECK_STR_HAS(tp_last_error(C), "> 10");
        CHECK_INT_EQ(send_x(C, oc, x, 1.0, 11), TP_OK);
        CHECK_INT_EQ(rc.errors + rd.errors, 0);
        CHECK_INT_EQ(tp_resign(C, TP_DELETE_OBJECTS), TP_OK);
        CHECK_INT_EQ(tp_resign(D, TP_DELETE_OBJECTS), TP_OK);
    }
    tp_federate_free(C);
    tp_federate_free(D);
}

int main(void)
{
    if (setup()) {
        part1();
        part2();
        part2a();
        part2b();
        part3();
        part4();
        CHECK_INT_EQ(ra.errors + rb.errors, 0);
        CHECK_INT_EQ(tp_disable_regulation(A), TP_OK);
        CHECK_INT_EQ(tp_disable_constrained(B), TP_OK);
        CHECK_INT_EQ(tp_resign(A, TP_DELETE_OBJECTS), TP_OK);
        CHECK_INT_EQ(tp_resign(B, TP_DELETE_OBJECTS), TP_OK);
        CHECK_INT_EQ(tp_resign(B, TP_DELETE_OBJECTS), TP_ESTATE);
        tp_federate_free(A);
        tp_federate_free(B);
    }
    harness_stop_rti();
    return check_summary();
}
