/* One case per row of the status-code table of doc/rti.md ("Handshake and replies"): each
 * provokes that refusal from a real bin/tempo-rti over raw sockets and checks the code the
 * table gives and a word of the message, so the page and the server cannot drift apart; then
 * one case per refusal of the rules (rti.md, protocol.md §3) that no other test provokes.
 * doc/robustness.md maps every refusal row to its test. The limits of doc/rti.md are checked
 * row by row in rti_limits_test.c. Read rti_fed_test.c. */
#include "fom/fom.h"
#include "tests/check.h"
#include "tests/integration/rti_harness.h"

static char *fom_text;
static struct rti_proc rti;
static int n_fx; /* federations made so far: each case gets its own */

static uint64_t cls_x(uint32_t *x)
{
    struct fom *fom = NULL;
    fom_parse_mem(fom_text, strlen(fom_text), "test.xml", &fom, NULL, 0);
    uint64_t c = fom_class_find(fom, "Sample");
    *x = fom_attr_find(fom, (fom_handle)c, "x");
    fom_free(fom);
    return c;
}

/* A connected, greeted client joined as name to a fresh federation (returned in fx). */
static int fresh(struct cli *c, char *fx, size_t fxlen, const char *name)
{
    snprintf(fx, fxlen, "row%d", ++n_fx);
    if (cli_connect(c, rti.port) != 0 || cli_hello(c) != 0) return -1;
    return cli_join(c, fx, name, fom_text, WIRE_JOIN_CREATE, "pw", NULL, 0) > 0 ? 0 : -1;
}

/* A second client joined to fx. */
static int second(struct cli *c, const char *fx, const char *name)
{
    if (cli_connect(c, rti.port) != 0 || cli_hello(c) != 0) return -1;
    return cli_join(c, fx, name, NULL, 0, "pw", NULL, 0) > 0 ? 0 : -1;
}

static long call(struct cli *c, struct wire_msg *m, char *why, size_t n)
{
    return cli_call(c, m, NULL, why, n);
}

/* Row 1: bad argument (an empty federate name). */
static void row_1_einval(void)
{
    struct cli c;
    char why[300];
    CHECK(cli_connect(&c, rti.port) == 0 && cli_hello(&c) == 0, "connect");
    CHECK_INT_EQ(-cli_join(&c, "row-einval", "", fom_text, WIRE_JOIN_CREATE, "pw", why, sizeof why),
                 STATUS_EINVAL);
    CHECK_STR_HAS(why, "1..127 bytes");
    cli_close(&c);
}

/* Row 2: not allowed now (a request before any join). */
static void row_2_estate(void)
{
    struct cli c;
    char why[300];
    CHECK(cli_connect(&c, rti.port) == 0 && cli_hello(&c) == 0, "connect");
    uint32_t x;
    struct wire_msg m;
    wire_msg_init(&m, WIRE_PUBLISH_OBJECT);
    m.a = cls_x(&x);
    CHECK_INT_EQ(call(&c, &m, why, sizeof why), STATUS_ESTATE);
    CHECK_STR_HAS(why, "has not joined");
    cli_close(&c);
}

/* Row 3: unknown class handle. */
static void row_3_ehandle(void)
{
    struct cli c;
    char fx[32];
    CHECK(fresh(&c, fx, sizeof fx, "a") == 0, "join");
    CHECK_INT_EQ(cli_decl(&c, WIRE_SUBSCRIBE_OBJECT, 9999, NULL, 0), STATUS_EHANDLE);
    cli_close(&c);
}

/* Row 4: registering an object of a class the sender does not publish. */
static void row_4_enotpub(void)
{
    struct cli c;
    char fx[32], why[300];
    CHECK(fresh(&c, fx, sizeof fx, "a") == 0, "join");
    uint32_t x;
    struct wire_msg m;
    wire_msg_init(&m, WIRE_REGISTER_OBJECT);
    m.a = cls_x(&x);
    CHECK_INT_EQ(call(&c, &m, why, sizeof why), STATUS_ENOTPUB);
    cli_close(&c);
}

/* Row 5: a float64 value of 3 bytes. */
static void row_5_esize(void)
{
    struct cli c;
    char fx[32], why[300];
    CHECK(fresh(&c, fx, sizeof fx, "a") == 0, "join");
    uint32_t x;
    uint64_t cls = cls_x(&x);
    CHECK_INT_EQ(cli_decl(&c, WIRE_PUBLISH_OBJECT, cls, &x, 1), STATUS_OK);
    struct wire_msg m;
    wire_msg_init(&m, WIRE_REGISTER_OBJECT);
    m.a = cls;
    uint64_t obj = 0;
    CHECK(cli_call(&c, &m, &obj, NULL, 0) == 0, "register");
    static const uint8_t three[3] = {1, 2, 3};
    struct wire_value v = {x, 3, three};
    wire_msg_init(&m, WIRE_UPDATE);
    m.a = obj;
    m.nvalues = 1;
    m.values = &v;
    CHECK_INT_EQ(call(&c, &m, why, sizeof why), STATUS_ESIZE);
    cli_close(&c);
}

/* Row 10: FOM text that does not parse. */
static void row_10_efom(void)
{
    struct cli c;
    char why[300];
    CHECK(cli_connect(&c, rti.port) == 0 && cli_hello(&c) == 0, "connect");
    CHECK_INT_EQ(
        -cli_join(&c, "row-efom", "a", "<fom><objects>", WIRE_JOIN_CREATE, "pw", why, sizeof why),
        STATUS_EFOM);
    CHECK_STR_HAS(why, "FOM does not parse");
    cli_close(&c);
}

static void time_request(struct cli *c, int64_t t, struct wire_msg *m)
{
    wire_msg_init(m, WIRE_TIME_REQUEST);
    m->code = WIRE_TR_TAR;
    m->time = t;
}

/* Rows 20 and 21: a request below the federate's time, and a second one while one is
 * pending (a regulating peer at 0 holds the first). */
static void row_20_21_etime_epending(void)
{
    struct cli a, b, c;
    char fx[32], fx2[32], why[300];
    struct wire_msg m;
    CHECK(fresh(&c, fx2, sizeof fx2, "alone") == 0, "join alone");
    time_request(&c, 5, &m);
    cli_send(&c, &m); /* req 0: the grant is the answer */
    CHECK(cli_expect(&c, WIRE_TIME_GRANT, &m, H_TIMEOUT_MS) == 1 && m.time == 5, "alone at 5");
    time_request(&c, 3, &m);
    CHECK_INT_EQ(call(&c, &m, why, sizeof why), STATUS_ETIME);
    cli_close(&c);
    CHECK(fresh(&a, fx, sizeof fx, "a") == 0 && second(&b, fx, "b") == 0, "join both");
    wire_msg_init(&m, WIRE_ENABLE_REGULATION);
    m.time2 = 1;
    cli_send(&b, &m);
    CHECK(cli_expect(&b, WIRE_REGULATION_ENABLED, &m, H_TIMEOUT_MS) == 1, "b regulates");
    wire_msg_init(&m, WIRE_ENABLE_CONSTRAINED);
    cli_send(&a, &m);
    CHECK(cli_expect(&a, WIRE_CONSTRAINED_ENABLED, &m, H_TIMEOUT_MS) == 1, "a constrained");
    time_request(&a, 10, &m); /* held by b (at 0, lookahead 1) */
    CHECK_INT_EQ(call(&a, &m, why, sizeof why), STATUS_OK);
    time_request(&a, 11, &m);
    CHECK_INT_EQ(call(&a, &m, why, sizeof why), STATUS_EPENDING);
    cli_close(&a);
    cli_close(&b);
}

/* Rows 22, 23, 24: a time stamp below the sender's bound, enabling twice, disabling what
 * is not enabled. */
static void row_22_23_24_ebound_eenabled_enotenabled(void)
{
    struct cli a;
    char fx[32], why[300];
    struct wire_msg m;
    CHECK(fresh(&a, fx, sizeof fx, "a") == 0, "join");
    wire_msg_init(&m, WIRE_DISABLE_CONSTRAINED);
    CHECK_INT_EQ(call(&a, &m, why, sizeof why), STATUS_ENOTENABLED);
    wire_msg_init(&m, WIRE_ENABLE_REGULATION);
    m.time2 = 1;
    cli_send(&a, &m);
    CHECK(cli_expect(&a, WIRE_REGULATION_ENABLED, &m, H_TIMEOUT_MS) == 1, "regulates");
    wire_msg_init(&m, WIRE_ENABLE_REGULATION);
    m.time2 = 1;
    CHECK_INT_EQ(call(&a, &m, why, sizeof why), STATUS_EENABLED);
    uint32_t x;
    uint64_t cls = cls_x(&x);
    CHECK_INT_EQ(cli_decl(&a, WIRE_PUBLISH_OBJECT, cls, &x, 1), STATUS_OK);
    wire_msg_init(&m, WIRE_REGISTER_OBJECT);
    m.a = cls;
    uint64_t obj = 0;
    CHECK(cli_call(&a, &m, &obj, NULL, 0) == 0, "register");
    static const uint8_t one[8] = {0, 0, 0, 0, 0, 0, 0xf0, 0x3f};
    struct wire_value v = {x, 8, one};
    wire_msg_init(&m, WIRE_UPDATE);
    m.a = obj;
    m.time = 0; /* bound is 0 + lookahead 1 */
    m.nvalues = 1;
    m.values = &v;
    CHECK_INT_EQ(call(&a, &m, why, sizeof why), STATUS_EBOUND);
    cli_close(&a);
}

/* Row 30: destroy while a federate is joined (the message lists it). */
static void row_30_erefused(void)
{
    struct cli a, b;
    char fx[32], why[300];
    CHECK(fresh(&a, fx, sizeof fx, "stayer") == 0, "join");
    CHECK(cli_connect(&b, rti.port) == 0 && cli_hello(&b) == 0, "connect");
    struct wire_msg m;
    wire_msg_init(&m, WIRE_DESTROY_FEDERATION);
    wire_str_set(&m.str[0], fx);
    wire_str_set(&m.str[1], "pw");
    CHECK_INT_EQ(call(&b, &m, why, sizeof why), STATUS_EREFUSED);
    CHECK_STR_HAS(why, "stayer");
    cli_close(&a);
    cli_close(&b);
}

/* Row 31: a federate name in use. */
static void row_31_eexists(void)
{
    struct cli a, b;
    char fx[32], why[300];
    CHECK(fresh(&a, fx, sizeof fx, "twin") == 0, "join");
    CHECK(cli_connect(&b, rti.port) == 0 && cli_hello(&b) == 0, "connect");
    CHECK_INT_EQ(-cli_join(&b, fx, "twin", NULL, 0, "pw", why, sizeof why), STATUS_EEXISTS);
    CHECK_STR_HAS(why, "twin");
    cli_close(&a);
    cli_close(&b);
}

/* Row 32: no such federation (join without create). */
static void row_32_enotfound(void)
{
    struct cli c;
    char why[300];
    CHECK(cli_connect(&c, rti.port) == 0 && cli_hello(&c) == 0, "connect");
    CHECK_INT_EQ(-cli_join(&c, "nowhere", "a", NULL, 0, "pw", why, sizeof why), STATUS_ENOTFOUND);
    CHECK_STR_HAS(why, "nowhere");
    cli_close(&c);
}

/* Row 33: a FOM that differs from the federation's. */
static void row_33_efomdiff(void)
{
    struct cli a, b;
    char fx[32], why[400];
    CHECK(fresh(&a, fx, sizeof fx, "a") == 0, "join");
    CHECK(cli_connect(&b, rti.port) == 0 && cli_hello(&b) == 0, "connect");
    const char *other = "<fom name=\"other\"><objects><class name=\"Z\"><attribute name=\"z\" "
                        "type=\"float64\"/></class></objects></fom>";
    CHECK_INT_EQ(-cli_join(&b, fx, "b", other, 0, "pw", why, sizeof why), STATUS_EFOMDIFF);
    CHECK_STR_HAS(why, "differs");
    cli_close(&a);
    cli_close(&b);
}

/* Row 34: a wrong shared secret. */
static void row_34_eauth(void)
{
    struct cli c;
    char why[300];
    CHECK(cli_connect(&c, rti.port) == 0 && cli_hello(&c) == 0, "connect");
    CHECK_INT_EQ(
        -cli_join(&c, "row-auth", "a", fom_text, WIRE_JOIN_CREATE, "wrong", why, sizeof why),
        STATUS_EAUTH);
    CHECK_STR_HAS(why, "secret");
    cli_close(&c);
}

/* Row 40: protocol errors: a wrong version and a first frame that is not HELLO, each
 * answered by ERROR 40 and a close (the bad magic is rti_limits_test's). */
static void row_40_eproto(void)
{
    struct cli c;
    struct wire_msg m;
    char why[300];
    CHECK(cli_connect(&c, rti.port) == 0, "connect");
    wire_msg_init(&m, WIRE_HELLO);
    m.code = WIRE_VERSION + 1;
    m.str[0].ptr = WIRE_MAGIC;
    m.str[0].len = WIRE_MAGIC_LEN;
    cli_send(&c, &m);
    CHECK(cli_next(&c, &m, H_TIMEOUT_MS) == 1 && m.type == WIRE_ERROR, "ERROR for the version");
    CHECK_INT_EQ(m.code, STATUS_EPROTO);
    wire_str_copy(&m.str[0], why, sizeof why);
    CHECK_STR_HAS(why, "version");
    CHECK(cli_closed_within(&c, H_TIMEOUT_MS), "closed");
    cli_close(&c);
    CHECK(cli_connect(&c, rti.port) == 0, "connect");
    wire_msg_init(&m, WIRE_PING);
    cli_send(&c, &m);
    CHECK(cli_next(&c, &m, H_TIMEOUT_MS) == 1 && m.type == WIRE_ERROR, "ERROR for PING first");
    CHECK_INT_EQ(m.code, STATUS_EPROTO);
    CHECK(cli_closed_within(&c, H_TIMEOUT_MS), "closed");
    cli_close(&c);
}

/* ---- the refusals of the rules of doc/rti.md and doc/protocol.md §3 that the status table
 * does not show (doc/robustness.md "Every refusal, its test" maps each row to its case) ---- */

/* protocol.md §3.1: a first frame that does not decode (a HELLO with 3 trailing bytes) is
 * answered by ERROR 40 naming the malformed first frame, then the connection is closed. */
static void rule_first_frame_undecodable(void)
{
    struct cli c;
    struct wire_msg m;
    char why[300];
    CHECK(cli_connect(&c, rti.port) == 0, "connect");
    wire_msg_init(&m, WIRE_HELLO);
    m.code = WIRE_VERSION;
    m.str[0].ptr = WIRE_MAGIC;
    m.str[0].len = WIRE_MAGIC_LEN;
    struct buf b = {0};
    CHECK(wire_encode(&b, &m, 0, why, sizeof why) == WIRE_OK, "encode HELLO");
    static const uint8_t extra[3] = {1, 2, 3};
    buf_append(&b, extra, sizeof extra);
    uint32_t body = (uint32_t)b.len - WIRE_HEADER_SIZE; /* the header announces the extra bytes */
    for (int i = 0; i < 4; i++)
        b.data[i] = (uint8_t)(body >> (8 * i)); /* u32 little-endian */
    cli_write(&c, b.data, b.len);
    buf_fini(&b);
    CHECK(cli_next(&c, &m, H_TIMEOUT_MS) == 1 && m.type == WIRE_ERROR, "ERROR answers it");
    CHECK_INT_EQ(m.code, STATUS_EPROTO);
    wire_str_copy(&m.str[0], why, sizeof why);
    CHECK_STR_HAS(why, "malformed first frame");
    CHECK_STR_HAS(why, "trailing");
    CHECK(cli_closed_within(&c, H_TIMEOUT_MS), "then closed");
    cli_close(&c);
}

/* rti.md "Federations": names are 1..127 bytes: 128 is refused (1), federation or federate. */
static void rule_name_128_bytes(void)
{
    struct cli c;
    char why[300], name[129];
    memset(name, 'n', 128);
    name[128] = '\0';
    CHECK(cli_connect(&c, rti.port) == 0 && cli_hello(&c) == 0, "connect");
    CHECK_INT_EQ(-cli_join(&c, name, "a", fom_text, WIRE_JOIN_CREATE, "pw", why, sizeof why),
                 STATUS_EINVAL);
    CHECK_STR_HAS(why, "1..127 bytes");
    CHECK_INT_EQ(-cli_join(&c, "row-name", name, fom_text, WIRE_JOIN_CREATE, "pw", why, sizeof why),
                 STATUS_EINVAL);
    name[127] = '\0'; /* 127 bytes: accepted */
    CHECK(cli_join(&c, "row-name", name, fom_text, WIRE_JOIN_CREATE, "pw", why, sizeof why) > 0,
          "a 127-byte federate name joins: %s", why);
    cli_close(&c);
}

/* rti.md "Object management": object names starting with HLA are the RTI's (1). */
static void rule_hla_names_reserved(void)
{
    struct cli c;
    char fx[32], why[300];
    CHECK(fresh(&c, fx, sizeof fx, "a") == 0, "join");
    uint32_t x;
    uint64_t cls = cls_x(&x);
    CHECK_INT_EQ(cli_decl(&c, WIRE_PUBLISH_OBJECT, cls, &x, 1), STATUS_OK);
    struct wire_msg m;
    wire_msg_init(&m, WIRE_REGISTER_OBJECT);
    m.a = cls;
    wire_str_set(&m.str[0], "HLAobject7");
    CHECK_INT_EQ(call(&c, &m, why, sizeof why), STATUS_EINVAL);
    CHECK_STR_HAS(why, "reserved");
    cli_close(&c);
}

/* rti.md "Object management": an UPDATE with an attribute of another class (3); an
 * interaction with a parameter of another interaction (3) or an invalid value (5). */
static void rule_foreign_attribute_and_parameter(void)
{
    struct cli c;
    char fx[32], why[300];
    CHECK(fresh(&c, fx, sizeof fx, "a") == 0, "join");
    struct fom *fom = NULL;
    fom_parse_mem(fom_text, strlen(fom_text), "test.xml", &fom, NULL, 0);
    if (!fom) {
        CHECK(0, "fom/test.xml parses");
        cli_close(&c);
        return;
    }
    uint32_t x;
    uint64_t cls = cls_x(&x);
    fom_handle speed = fom_attr_find(fom, fom_class_find(fom, "Vehicle"), "speed");
    fom_handle step = fom_inter_find(fom, "Step");
    fom_handle dt = fom_param_find(fom, step, "dt");
    fom_handle text = fom_param_find(fom, fom_inter_find(fom, "Message"), "text");
    fom_free(fom);
    CHECK_INT_EQ(cli_decl(&c, WIRE_PUBLISH_OBJECT, cls, &x, 1), STATUS_OK);
    struct wire_msg m;
    wire_msg_init(&m, WIRE_REGISTER_OBJECT);
    m.a = cls;
    uint64_t obj = 0;
    CHECK(cli_call(&c, &m, &obj, NULL, 0) == 0, "register");
    static const uint8_t one[8] = {0, 0, 0, 0, 0, 0, 0xf0, 0x3f};
    struct wire_value v = {speed, 8, one};
    wire_msg_init(&m, WIRE_UPDATE);
    m.a = obj;
    m.nvalues = 1;
    m.values = &v;
    CHECK_INT_EQ(call(&c, &m, why, sizeof why), STATUS_EHANDLE);
    CHECK_STR_HAS(why, "is not an attribute of class");
    CHECK_INT_EQ(cli_decl(&c, WIRE_PUBLISH_INTERACTION, step, NULL, 0), STATUS_OK);
    struct wire_value p = {text, 4, (const uint8_t *)"\0\0\0\0"};
    wire_msg_init(&m, WIRE_SEND_INTERACTION);
    m.a = step;
    m.nvalues = 1;
    m.values = &p;
    CHECK_INT_EQ(call(&c, &m, why, sizeof why), STATUS_EHANDLE);
    CHECK_STR_HAS(why, "is not a parameter");
    struct wire_value bad = {dt, 3, one};
    m.values = &bad;
    CHECK_INT_EQ(call(&c, &m, why, sizeof why), STATUS_ESIZE);
    CHECK_STR_HAS(why, "invalid value");
    cli_close(&c);
}

/* rti.md "Synchronization points": REGISTER_SYNC naming a federate not joined (32);
 * ACHIEVE_SYNC from a federate outside the point's set (32). */
static void rule_sync_members(void)
{
    struct cli a, b;
    char fx[32], why[300];
    CHECK(fresh(&a, fx, sizeof fx, "a") == 0 && second(&b, fx, "b") == 0, "join both");
    struct wire_msg m;
    uint32_t nobody = 999;
    wire_msg_init(&m, WIRE_REGISTER_SYNC);
    wire_str_set(&m.str[0], "p");
    m.nhandles = 1;
    m.handles = &nobody;
    CHECK_INT_EQ(call(&a, &m, why, sizeof why), STATUS_ENOTFOUND);
    CHECK_STR_HAS(why, "not joined");
    uint32_t only_a = 1; /* a joined first into a fresh federation: handle 1 */
    wire_msg_init(&m, WIRE_REGISTER_SYNC);
    wire_str_set(&m.str[0], "p");
    m.nhandles = 1;
    m.handles = &only_a;
    CHECK_INT_EQ(call(&a, &m, why, sizeof why), STATUS_OK);
    wire_msg_init(&m, WIRE_ACHIEVE_SYNC);
    wire_str_set(&m.str[0], "p");
    CHECK_INT_EQ(call(&b, &m, why, sizeof why), STATUS_ENOTFOUND);
    CHECK_STR_HAS(why, "federate 'b'");
    cli_close(&a);
    cli_close(&b);
}

int main(void)
{
    rti_watchdog(120);
    fom_text = h_slurp("fom/test.xml");
    CHECK(fom_text != NULL, "fom/test.xml readable");
    const char *args[] = {"--secret", "pw", NULL};
    if (!fom_text || rti_start(&rti, args, "rti_refusals") != 0) {
        CHECK(0, "the RTI starts");
        return check_summary();
    }
    row_1_einval();
    row_2_estate();
    row_3_ehandle();
    row_4_enotpub();
    row_5_esize();
    row_10_efom();
    row_20_21_etime_epending();
    row_22_23_24_ebound_eenabled_enotenabled();
    row_30_erefused();
    row_31_eexists();
    row_32_enotfound();
    row_33_efomdiff();
    row_34_eauth();
    row_40_eproto();
    rule_first_frame_undecodable();
    rule_name_128_bytes();
    rule_hla_names_reserved();
    rule_foreign_attribute_and_parameter();
    rule_sync_members();
    CHECK_INT_EQ(rti_stop(&rti, 5000), 0);
    free(fom_text);
    return check_summary();
}
