/* Robustness of the example-FMU framework (examples/fmus/framework/): calls in the wrong
 * state are refused with a logged reason, allocation failures are clean, and random call
 * sequences with hostile arguments never crash (run under ASan+UBSan with the sanitized
 * binaries). doc/fmu.md, §10. Read fmus_framework_test.c for the numerical tests. */
#include <stdlib.h>

#include "tests/unit/fmus_harness.h"

/* ---- out of memory: every allocation of fmi2Instantiate and fmi2GetFMUstate may fail ---- */

static int alloc_budget; /* allocations left before failing; < 0: unlimited */
static int alloc_live;   /* blocks allocated and not yet freed through the callbacks */

static void *tight_calloc(size_t n, size_t size)
{
    if (alloc_budget == 0) return NULL;
    if (alloc_budget > 0) alloc_budget--;
    void *p = calloc(n, size);
    alloc_live += p != NULL;
    return p;
}

static void tight_free(void *p)
{
    alloc_live -= p != NULL;
    free(p);
}

static void test_out_of_memory(void)
{
    api a;
    if (load(&a, "bouncingball", 1) != 0) {
        unload(&a);
        return;
    }
    const fmi2CallbackFunctions tight = {logger, tight_calloc, tight_free, NULL, NULL};
    int succeeded_at = -1;
    for (int budget = 0; budget < 20 && succeeded_at < 0; budget++) {
        alloc_budget = budget;
        alloc_live = 0;
        last_log[0] = '\0';
        fmi2Component c =
            a.instantiate("t", fmi2CoSimulation, a.guid, NULL, &tight, fmi2False, fmi2False);
        if (!c) {
            CHECK_INT_EQ(alloc_live, 0); /* partial work undone */
            if (budget > 0) CHECK_STR_HAS(last_log, "out of memory");
            continue;
        }
        succeeded_at = budget;
        alloc_budget = 0; /* now the state copy cannot be allocated */
        fmi2FMUstate st = NULL;
        CHECK_INT_EQ(a.setup(c, fmi2False, 0, 0, fmi2False, 0), fmi2OK);
        CHECK_INT_EQ(a.enter_init(c), fmi2OK);
        CHECK_INT_EQ(a.exit_init(c), fmi2OK);
        CHECK_INT_EQ(a.get_state(c, &st), fmi2Error);
        CHECK_STR_HAS(last_log, "out of memory");
        CHECK(st == NULL, "no state on failure");
        CHECK_INT_EQ(a.do_step(c, 0, 1, fmi2True), fmi2OK); /* stepping allocates nothing */
        a.free_instance(c);
        CHECK_INT_EQ(alloc_live, 0);
    }
    CHECK(succeeded_at > 0, "instantiate never succeeded (%d)", succeeded_at);
    alloc_budget = -1;
    unload(&a);
}

/* ---- random call sequences: any order of calls and arguments is answered, never a crash --- */

static unsigned long long rng_state = 88172645463325252ull; /* xorshift64, fixed seed */

static unsigned rnd(unsigned n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

/* A value that is usually sensible and sometimes hostile. */
static double rnd_value(void)
{
    static const double odd[] = {0.0, -1.0, 1e300, -1e300, 1e-300, NAN, INFINITY, -INFINITY};
    return rnd(8) == 0 ? odd[rnd(8)] : ((double)rnd(2001) - 1000.0) / 100.0;
}

static int valid_status(fmi2Status st)
{
    return st == fmi2OK || st == fmi2Warning || st == fmi2Discard || st == fmi2Error;
}

/* One random FMI call on c; returns its status. t tracks the FMU's time for plausible calls. */
static fmi2Status random_call(api *a, fmi2Component c, int cs, double *t, fmi2FMUstate *st)
{
    fmi2ValueReference vr = rnd((unsigned)a->nvars + 2);
    double v = rnd_value(), buf[8];
    fmi2Integer order = (fmi2Integer)rnd(5);
    fmi2Boolean b1, b2;
    fmi2EventInfo info;
    fmi2Status r = fmi2OK;
    /* Initialisation calls are frequent and reset/terminate rare, so that sequences reach the
     * stepping modes often. */
    static const int pick[] = {0, 1, 1, 2, 2,  2,  3,  3,  4,  4,  5,  5,  5,  5,  5,  6,  6,
                               7, 7, 8, 9, 10, 11, 11, 12, 12, 13, 14, 14, 15, 15, 16, 17, 18};
    switch (rnd(200) == 0 ? 19 : pick[rnd(sizeof pick / sizeof pick[0])]) {
    case 0:
        return a->setup(c, rnd(2), fabs(v) * 1e-9, 0, rnd(2), 10);
    case 1:
        return a->enter_init(c);
    case 2:
        return a->exit_init(c);
    case 3:
        return a->set_real(c, &vr, 1, &v);
    case 4:
        return a->get_real(c, &vr, 1, buf);
    case 5: {
        double h = rnd(4) == 0 ? v : 0.01 * (1 + rnd(100));
        r = a->do_step(c, rnd(8) == 0 ? *t + 1 : *t, h, fmi2True);
        double now;
        if (cs && a->get_real_status(c, fmi2LastSuccessfulTime, &now) == fmi2OK) *t = now;
        return r;
    }
    case 6:
        return a->set_in_der(c, &vr, 1, &order, &v);
    case 7:
        return a->get_out_der(c, &vr, 1, &order, buf);
    case 8:
        return a->get_state(c, st);
    case 9:
        return *st ? a->set_state(c, *st) : a->free_state(c, st);
    case 10:
        return a->enter_event(c);
    case 11:
        return a->new_discrete(c, &info);
    case 12:
        return a->enter_cont(c);
    case 13:
        return a->completed(c, fmi2True, &b1, &b2);
    case 14:
        *t += 0.01 * rnd(50);
        return a->set_time(c, *t);
    case 15:
        return a->set_x(c, buf, rnd(4));
    case 16:
        return a->get_x(c, buf, rnd(4));
    case 17:
        return a->get_dx(c, buf, rnd(4));
    case 18:
        return a->get_z(c, buf, rnd(3));
    default:
        return rnd(3) == 0 ? a->reset(c) : a->terminate(c);
    }
}

static void test_random_calls(void)
{
    static const char *const some[] = {"bouncingball", "stair", "lv_prey", "osc_omega2tau",
                                       "vanderpol"};
    for (size_t i = 0; i < sizeof some / sizeof some[0]; i++)
        for (int cs = 0; cs < 2; cs++) {
            api a;
            if (load(&a, some[i], cs) != 0) {
                unload(&a);
                continue;
            }
            fmi2Component c = a.instantiate("t", cs ? fmi2CoSimulation : fmi2ModelExchange, a.guid,
                                            NULL, &callbacks, fmi2False, fmi2False);
            fmi2FMUstate st = NULL;
            double t = 0;
            int bad = 0, ok = 0;
            for (int k = 0; k < 4000 && c; k++) {
                fmi2Status r = random_call(&a, c, cs, &t, &st);
                bad += !valid_status(r);
                ok += r == fmi2OK;
            }
            CHECK(bad == 0, "%s: %d calls returned an invalid status", some[i], bad);
            CHECK(ok > 100, "%s: only %d calls succeeded", some[i], ok);
            if (st) CHECK_INT_EQ(a.free_state(c, &st), fmi2OK);
            a.free_instance(c);
            unload(&a);
        }
}

/* ---- strictness: calls in the wrong state are refused with a logged reason ------------ */

static void test_strict(void)
{
    api a;
    if (load(&a, "dahlquist", 1) != 0) {
        unload(&a);
        return;
    }
    fmi2Component c =
        a.instantiate("t", fmi2CoSimulation, a.guid, NULL, &callbacks, fmi2False, fmi2False);
    double v;
    fmi2ValueReference vr = 2;
    CHECK_INT_EQ(a.do_step(c, 0, 0.1, fmi2True), fmi2Error);
    CHECK_STR_HAS(last_log, "fmi2DoStep: not allowed in Instantiated");
    CHECK_INT_EQ(a.get_real(c, &vr, 1, &v), fmi2Error);
    CHECK_INT_EQ(a.exit_init(c), fmi2Error);
    CHECK_INT_EQ(a.set_real(c, &vr, 1, &v), fmi2Error);
    CHECK_STR_HAS(last_log, "x");
    const char *cat = "logNothing";
    CHECK_INT_EQ(a.set_debug_logging(c, fmi2True, 1, &cat), fmi2Error);
    CHECK_STR_HAS(last_log, "logNothing");
    const char *pct = "log%s%n";
    CHECK_INT_EQ(a.set_debug_logging(c, fmi2True, 1, &pct), fmi2Error);
    CHECK_STR_HAS(last_log, "\"log%s%n\""); /* '%' reaches the logger escaped */
    CHECK_INT_EQ(a.setup(c, fmi2False, 0, 0, fmi2True, 1.0), fmi2OK);
    CHECK_INT_EQ(a.enter_init(c), fmi2OK);
    CHECK_INT_EQ(a.exit_init(c), fmi2OK);
    CHECK_INT_EQ(a.enter_event(c), fmi2Error);
    CHECK_STR_HAS(last_log, "co-simulation instance");
    CHECK_INT_EQ(a.do_step(c, 0.5, 0.1, fmi2True), fmi2Error);
    CHECK_STR_HAS(last_log, "currentCommunicationPoint");
    CHECK_INT_EQ(a.do_step(c, 0, -0.1, fmi2True), fmi2Error);
    CHECK_INT_EQ(a.do_step(c, 0, 1.5, fmi2True), fmi2Error);
    CHECK_STR_HAS(last_log, "stop time");
    fmi2Integer iv;
    CHECK_INT_EQ(a.get_integer(c, &vr, 1, &iv), fmi2Error);
    CHECK_INT_EQ(a.get_integer(c, &vr, 0, &iv), fmi2OK);
    CHECK_INT_EQ(a.do_step(c, 0, 1.0, fmi2True), fmi2OK);
    CHECK_INT_EQ(a.terminate(c), fmi2OK);
    CHECK_INT_EQ(a.do_step(c, 1, 0.1, fmi2True), fmi2Error);
    CHECK_STR_HAS(last_log, "Terminated");
    CHECK_INT_EQ(a.get_real(c, &vr, 1, &v), fmi2OK);
    CHECK_NEAR(v, exp(-1.0), 1e-9);
    CHECK_INT_EQ(a.reset(c), fmi2OK);
    CHECK_INT_EQ(a.enter_init(c), fmi2OK);
    CHECK_INT_EQ(a.get_real(c, &vr, 1, &v), fmi2OK);
    CHECK_NEAR(v, 1.0, 0);
    a.free_instance(c);
    /* A model-exchange-only call sequence on an ME instance: DoStep is refused. */
    unload(&a);
    if (load(&a, "dahlquist", 0) != 0) {
        unload(&a);
        return;
    }
    c = start(&a, 0, NULL, NULL, 0);
    CHECK_INT_EQ(a.do_step(c, 0, 0.1, fmi2True), fmi2Error);
    CHECK_STR_HAS(last_log, "model-exchange instance");
    a.free_instance(c);
    unload(&a);
}

int main(void)
{
    /* This test makes illegal calls on purpose: refuse them with fmi2Error, do not abort. */
    setenv("TEMPO_FMU_LENIENT", "1", 1);
    test_strict();
    test_out_of_memory();
    test_random_calls();
    CHECK_INT_EQ(npercent, 0);
    xmlCleanupParser();
    return check_summary();
}
