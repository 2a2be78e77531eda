/* doc/contributing.md §8 measured: once warm, the RTI's own code allocates nothing per message.
 * Runs against the counting build (build/rti-san/tempo-rti, tests/integration/rti_alloc_wrap.c), so
 * only tests/integration/rti_san.sh runs it: receive-order updates, time-stamped updates with
 * grants, and interactions, then the same again; the second round must allocate 0. Read
 * tests/integration/rti_alloc_wrap.c for the counter. */
#include "fom/fom.h"
#include "tests/check.h"
#include "tests/integration/rti_harness.h"

#define TO 3000

static struct rti_proc rti;

/* Ask the RTI for its allocation count (SIGUSR2 writes it to its log). */
static long alloc_count(void)
{
    static int asked;
    asked++;
    kill(rti.pid, SIGUSR2);
    for (int i = 0; i < 200; i++) {
        usleep(10000);
        char *log = h_slurp(rti.log);
        if (!log) continue;
        int seen = 0;
        long last = -1;
        for (char *p = strstr(log, "alloc-count: "); p; p = strstr(p + 1, "alloc-count: ")) {
            seen++;
            last = atol(p + 13);
        }
        free(log);
        if (seen >= asked) return last;
    }
    return -1;
}

/* One round: n RO updates, n TSO updates each followed by a TAR of both federates, and n
 * interactions; every delivery is awaited so nothing is left queued. */
static void round_trip(struct cli *a, struct cli *b, uint64_t obj, uint32_t x, fom_handle ic,
                       uint32_t dt, int64_t *t, int n)
{
    static const uint8_t one[8] = {0, 0, 0, 0, 0, 0, 0xf0, 0x3f};
    struct wire_msg m;
    for (int i = 0; i < n; i++) {
        struct wire_value v = {x, 8, one};
        wire_msg_init(&m, WIRE_UPDATE);
        m.a = obj;
        m.nvalues = 1;
        m.values = &v;
        cli_send(a, &m);
        CHECK(cli_expect(b, WIRE_REFLECT, &m, TO) == 1, "RO reflect");
        wire_msg_init(&m, WIRE_UPDATE);
        m.a = obj;
        m.time = *t + 1;
        m.nvalues = 1;
        m.values = &v;
        cli_send(a, &m);
        *t += 1;
        struct cli *both[2] = {a, b};
        for (int k = 0; k < 2; k++) {
            wire_msg_init(&m, WIRE_TIME_REQUEST);
            m.code = WIRE_TR_TAR;
            m.time = *t;
            cli_send(both[k], &m);
        }
        CHECK(cli_expect(b, WIRE_REFLECT, &m, TO) == 1 && m.code == WIRE_ORDER_TSO, "TSO reflect");
        for (int k = 0; k < 2; k++)
            CHECK(cli_expect(both[k], WIRE_TIME_GRANT, &m, TO) == 1 && m.time == *t, "grant");
        struct wire_value p = {dt, 8, one};
        wire_msg_init(&m, WIRE_SEND_INTERACTION);
        m.a = ic;
        m.nvalues = 1;
        m.values = &p;
        cli_send(a, &m);
        CHECK(cli_expect(b, WIRE_RECEIVE_INTERACTION, &m, TO) == 1, "interaction");
    }
}

int main(void)
{
    const char *bin = getenv("TEMPO_RTI_BIN");
    if (!bin || !strstr(bin, "rti-san")) {
        printf("rti_alloc_test: needs TEMPO_RTI_BIN=build/rti-san/tempo-rti (run by "
               "tests/integration/rti_san.sh)\n");
        CHECK(0, "run against the counting build");
        return check_summary();
    }
    char *fom_text = h_slurp("fom/test.xml");
    struct fom *fom = NULL;
    if (!fom_text || fom_parse_mem(fom_text, strlen(fom_text), "t", &fom, NULL, 0) != FOM_OK) {
        CHECK(0, "fom/test.xml parses");
        return check_summary();
    }
    if (rti_start(&rti, NULL, "rti_alloc") != 0) {
        CHECK(0, "the counting RTI starts");
        return check_summary();
    }
    struct cli a, b;
    CHECK(cli_connect(&a, rti.port) == 0 && cli_hello(&a) == 0 &&
              cli_join(&a, "alloc", "a", fom_text, WIRE_JOIN_CREATE, NULL, NULL, 0) > 0,
          "a joins");
    CHECK(cli_connect(&b, rti.port) == 0 && cli_hello(&b) == 0 &&
              cli_join(&b, "alloc", "b", fom_text, 0, NULL, NULL, 0) > 0,
          "b joins");
    fom_handle cls = fom_class_find(fom, "Sample"), ic = fom_inter_find(fom, "Step");
    uint32_t x = fom_attr_find(fom, cls, "x"), dt = fom_param_find(fom, ic, "dt");
    CHECK_INT_EQ(cli_decl(&a, WIRE_PUBLISH_OBJECT, cls, &x, 1), STATUS_OK);
    CHECK_INT_EQ(cli_decl(&b, WIRE_SUBSCRIBE_OBJECT, cls, &x, 1), STATUS_OK);
    CHECK_INT_EQ(cli_decl(&a, WIRE_PUBLISH_INTERACTION, ic, NULL, 0), STATUS_OK);
    CHECK_INT_EQ(cli_decl(&b, WIRE_SUBSCRIBE_INTERACTION, ic, NULL, 0), STATUS_OK);
    struct wire_msg m;
    wire_msg_init(&m, WIRE_REGISTER_OBJECT);
    m.a = cls;
    uint64_t obj = 0;
    CHECK(cli_call(&a, &m, &obj, NULL, 0) == STATUS_OK, "register");
    CHECK(cli_expect(&b, WIRE_DISCOVER, &m, TO) == 1, "discover");
    wire_msg_init(&m, WIRE_ENABLE_REGULATION);
    m.time2 = 1;
    cli_send(&a, &m);
    CHECK(cli_expect(&a, WIRE_REGULATION_ENABLED, &m, TO) == 1, "regulating");
    wire_msg_init(&m, WIRE_ENABLE_CONSTRAINED);
    cli_send(&b, &m);
    CHECK(cli_expect(&b, WIRE_CONSTRAINED_ENABLED, &m, TO) == 1, "constrained");

    int64_t t = 0;
    round_trip(&a, &b, obj, x, ic, dt, &t, 200); /* warm-up: buffers and free lists grow */
    long before = alloc_count();
    round_trip(&a, &b, obj, x, ic, dt, &t, 2000);
    long after = alloc_count();
    CHECK(before > 0 && after >= before, "counts read (%ld, %ld)", before, after);
    printf("RTI allocations: %ld during warm-up and set-up, %ld during 2000 more rounds "
           "(6000 messages, 4000 grants)\n",
           before, after - before);
    CHECK_INT_EQ(after - before, 0);
    cli_close(&a);
    cli_close(&b);
    CHECK_INT_EQ(rti_stop(&rti, 5000), 0);
    fom_free(fom);
    free(fom_text);
    return check_summary();
}
