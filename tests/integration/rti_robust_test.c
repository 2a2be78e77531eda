/* Robustness of bin/tempo-rti against misbehaving clients over raw sockets: bad frames and
 * handshakes close only that connection (logged with a hex sample), a subscriber that stops
 * reading is dropped while others go on without loss, random requests do no harm, SIGTERM
 * exits 0. doc/rti.md, doc/contributing.md §7 and §12. Read rti_fed_test.c next. */
#include "fom/fom.h"
#include "tests/check.h"
#include "tests/integration/rti_harness.h"

static char *fom_text;

/* A ping answered by a pong proves the connection is still served. */
static int still_served(struct cli *c)
{
    struct wire_msg m;
    wire_msg_init(&m, WIRE_PING);
    m.req = c->next_req++;
    wire_str_set(&m.str[0], "are you there");
    if (cli_send(c, &m) != 0) return 0;
    uint32_t req = m.req;
    if (cli_expect(c, WIRE_PONG, &m, H_TIMEOUT_MS) != 1) return 0;
    return m.req == req && wire_str_eq(&m.str[0], "are you there");
}

static int log_has(const struct rti_proc *p, const char *needle)
{
    char *log = h_slurp(p->log);
    int found = log && strstr(log, needle) != NULL;
    free(log);
    return found;
}

/* Send raw bytes on a fresh connection (after HELLO when greet) and expect it closed. */
static void expect_closed_after(int port, int greet, const void *bytes, size_t n, const char *what)
{
    struct cli c;
    CHECK(cli_connect(&c, port) == 0, "%s: connect", what);
    if (greet) CHECK(cli_hello(&c) == 0, "%s: handshake", what);
    cli_write(&c, bytes, n);
    CHECK(cli_closed_within(&c, H_TIMEOUT_MS), "%s: the RTI must close the connection", what);
    cli_close(&c);
}

static void put_header(uint8_t *h, uint32_t body, uint16_t type, uint16_t flags)
{
    h[0] = (uint8_t)body;
    h[1] = (uint8_t)(body >> 8);
    h[2] = (uint8_t)(body >> 16);
    h[3] = (uint8_t)(body >> 24);
    h[4] = (uint8_t)type;
    h[5] = (uint8_t)(type >> 8);
    h[6] = (uint8_t)flags;
    h[7] = (uint8_t)(flags >> 8);
}

static void test_bad_input(struct rti_proc *p, struct cli *good)
{
    /* Garbage: an HTTP request read as a header announces a huge body. */
    const char http[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    expect_closed_after(p->port, 0, http, sizeof http - 1, "garbage");
    CHECK(still_served(good), "good federate served after garbage");

    /* Oversized: 100000-byte body against --max-frame 4096, refused from the header alone. */
    uint8_t big[8];
    put_header(big, 100000, WIRE_UPDATE, 0);
    expect_closed_after(p->port, 1, big, sizeof big, "oversized");
    CHECK(still_served(good), "good federate served after an oversized frame");
    CHECK(log_has(p, "over"), "the log names the oversized frame");

    /* Malformed: a PING whose blob length overruns the body. */
    uint8_t bad[8 + 4 + 4 + 3];
    put_header(bad, 11, WIRE_PING, 0);
    memset(bad + 8, 0, 4);                          /* req */
    bad[12] = 200, bad[13] = bad[14] = bad[15] = 0; /* blob len 200 > 3 bytes left */
    memcpy(bad + 16, "abc", 3);
    expect_closed_after(p->port, 1, bad, sizeof bad, "malformed");
    CHECK(still_served(good), "good federate served after a malformed frame");
    CHECK(log_has(p, "malformed frame"), "the log names the malformed frame");
    CHECK(log_has(p, "hex="), "the log carries a hex sample");

    /* A malformed JOIN may carry the shared secret: its sample shows the header only
     * (doc/log.md "Secrets"). A req, then text bytes under a blob length that overruns. */
    uint8_t join[8 + 4 + 4 + 16];
    put_header(join, 24, WIRE_JOIN, 0);
    memset(join + 8, 0, 4);
    join[12] = 250, join[13] = join[14] = join[15] = 0;
    memcpy(join + 16, "SECRETBYTES-XYZW", 16);
    expect_closed_after(p->port, 1, join, sizeof join, "malformed join");
    CHECK(log_has(p, "header only: the body may hold the shared secret"), "join: header only");
    CHECK(!log_has(p, "SECRETBYTES") && !log_has(p, "53 45 43 52"), "join: no body bytes logged");

    /* Reserved flag bits and an unknown type. */
    uint8_t flags[8];
    put_header(flags, 0, WIRE_PING, 1);
    expect_closed_after(p->port, 1, flags, sizeof flags, "flags");
    uint8_t unknown[8];
    put_header(unknown, 0, 999, 0);
    expect_closed_after(p->port, 1, unknown, sizeof unknown, "unknown type");
    CHECK(still_served(good), "good federate served after bad types");

    /* Silence: no HELLO within --handshake-ms 500 closes the connection. */
    struct cli mute;
    CHECK(cli_connect(&mute, p->port) == 0, "mute connects");
    int64_t t0 = rti_now_ms();
    CHECK(cli_closed_within(&mute, H_TIMEOUT_MS), "a connection that never says HELLO is closed");
    CHECK(rti_now_ms() - t0 >= 400, "not before the handshake deadline (%lld ms)",
          (long long)(rti_now_ms() - t0));
    cli_close(&mute);
    CHECK(log_has(p, "handshake timeout"), "the log names the handshake timeout");

    /* Bad handshakes: JOIN first; wrong version; wrong magic. Each gets ERROR then close. */
    struct wire_msg m;
    struct cli c;
    CHECK(cli_connect(&c, p->port) == 0, "connect");
    wire_msg_init(&m, WIRE_JOIN);
    m.req = 1;
    wire_str_set(&m.str[0], "robust");
    wire_str_set(&m.str[1], "sneaky");
    cli_send(&c, &m);
    CHECK(cli_expect(&c, WIRE_ERROR, &m, H_TIMEOUT_MS) == 1, "JOIN before HELLO: ERROR");
    CHECK_INT_EQ(m.code, STATUS_EPROTO);
    CHECK(cli_closed_within(&c, H_TIMEOUT_MS), "JOIN before HELLO: closed");
    cli_close(&c);

    CHECK(cli_connect(&c, p->port) == 0, "connect");
    wire_msg_init(&m, WIRE_HELLO);
    m.code = WIRE_VERSION + 7;
    m.str[0].ptr = WIRE_MAGIC;
    m.str[0].len = WIRE_MAGIC_LEN;
    cli_send(&c, &m);
    CHECK(cli_expect(&c, WIRE_ERROR, &m, H_TIMEOUT_MS) == 1, "wrong version: ERROR");
    char text[256];
    wire_str_copy(&m.str[0], text, sizeof text);
    CHECK_STR_HAS(text, "version");
    CHECK(cli_closed_within(&c, H_TIMEOUT_MS), "wrong version: closed");
    cli_close(&c);

    /* Bad magic, written by hand since the encoder refuses it: code, str0 "ABCD", str1 "". */
    uint8_t magic[8 + 4 + 8 + 4];
    put_header(magic, 16, WIRE_HELLO, 0);
    memset(magic + 8, 0, sizeof magic - 8);
    magic[8] = WIRE_VERSION;
    magic[12] = 4;
    memcpy(magic + 16, "ABCD", 4);
    expect_closed_after(p->port, 0, magic, sizeof magic, "bad magic");
    CHECK(log_has(p, "magic"), "the log names the bad magic");

    /* A second HELLO after the handshake is a protocol error. */
    CHECK(cli_connect(&c, p->port) == 0, "connect");
    CHECK(cli_hello(&c) == 0, "handshake");
    wire_msg_init(&m, WIRE_HELLO);
    m.code = WIRE_VERSION;
    m.str[0].ptr = WIRE_MAGIC;
    m.str[0].len = WIRE_MAGIC_LEN;
    cli_send(&c, &m);
    CHECK(cli_closed_within(&c, H_TIMEOUT_MS), "second HELLO: closed");
    cli_close(&c);
    CHECK(log_has(p, "unexpected HELLO"), "the log names the second HELLO");

    /* An RTI-to-client message sent by a client. */
    CHECK(cli_connect(&c, p->port) == 0, "connect");
    CHECK(cli_hello(&c) == 0, "handshake");
    wire_msg_init(&m, WIRE_FEDERATION_SYNCED);
    wire_str_set(&m.str[0], "x");
    cli_send(&c, &m);
    CHECK(cli_closed_within(&c, H_TIMEOUT_MS), "R2C message from a client: closed");
    cli_close(&c);
    CHECK(log_has(p, "unexpected FEDERATION_SYNCED"), "the log names the unexpected message");

    /* A joined federate that sends garbage is expelled; the others are told who and why. */
    CHECK(cli_connect(&c, p->port) == 0, "connect");
    CHECK(cli_hello(&c) == 0, "handshake");
    CHECK(cli_join(&c, "robust", "babbler", fom_text, 0, NULL, NULL, 0) > 0, "babbler joins");
    cli_write(&c, http, sizeof http - 1);
    CHECK(cli_closed_within(&c, H_TIMEOUT_MS), "babbler closed");
    cli_close(&c);
    CHECK(cli_expect(good, WIRE_FEDERATE_RESIGNED, &m, H_TIMEOUT_MS) == 1,
          "good federate told that babbler left");
    CHECK(wire_str_eq(&m.str[0], "babbler"), "FEDERATE_RESIGNED names babbler");
    CHECK_INT_EQ(m.code, WIRE_REASON_EXPELLED);
    CHECK(log_has(p, "babbler"), "the log names the federate at fault");
    CHECK(still_served(good), "good federate served after the expulsion");
}

/* Publisher floods RO updates; "sleepy" subscribes and never reads; "reader" subscribes and
 * reads everything. sleepy must be dropped, reader must get every update. */
static void test_slow_consumer(struct rti_proc *p, struct cli *pub)
{
    struct cli sleepy, reader;
    struct wire_msg m;
    struct fom *fom = NULL;
    CHECK(fom_parse_mem(fom_text, strlen(fom_text), "test.xml", &fom, NULL, 0) == FOM_OK,
          "parse fom/test.xml");
    uint64_t cls_sample = fom_class_find(fom, "Sample");
    uint32_t attr_raw = fom_attr_find(fom, (fom_handle)cls_sample, "raw");
    fom_free(fom);
    CHECK(cls_sample && attr_raw, "Sample.raw in the FOM");

    CHECK(cli_connect(&reader, p->port) == 0 && cli_hello(&reader) == 0, "reader connects");
    CHECK(cli_join(&reader, "robust", "reader", fom_text, 0, NULL, NULL, 0) > 0, "reader joins");
    /* A tiny receive buffer so that the kernel absorbs little of the flood. */
    memset(&sleepy, 0, sizeof sleepy);
    sleepy.fd = socket(AF_INET, SOCK_STREAM, 0);
    int small = 4096;
    setsockopt(sleepy.fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)p->port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(connect(sleepy.fd, (struct sockaddr *)&sa, sizeof sa) == 0, "sleepy connects");
    sleepy.next_req = 1;
    CHECK(cli_hello(&sleepy) == 0, "sleepy handshake");
    CHECK(cli_join(&sleepy, "robust", "sleepy", fom_text, 0, NULL, NULL, 0) > 0, "sleepy joins");

    uint32_t h[1] = {attr_raw};
    struct cli *subs[2] = {&sleepy, &reader};
    for (int i = 0; i < 2; i++)
        CHECK(cli_decl(subs[i], WIRE_SUBSCRIBE_OBJECT, cls_sample, h, 1) == 0,
              "subscribe Sample.raw");
    CHECK(cli_decl(pub, WIRE_PUBLISH_OBJECT, cls_sample, h, 1) == 0, "publish Sample.raw");
    wire_msg_init(&m, WIRE_REGISTER_OBJECT);
    m.a = cls_sample;
    wire_str_set(&m.str[0], "flood");
    uint64_t obj = 0;
    CHECK(cli_call(pub, &m, &obj, NULL, 0) == STATUS_OK && obj > 0, "register flood object");
    CHECK(cli_expect(&reader, WIRE_DISCOVER, &m, H_TIMEOUT_MS) == 1, "reader discovers");

    /* An update that fits in --max-frame 4096 (44 + 4052 bytes) but whose reflection would not
     * (8 bytes more) is refused to its sender, not lost on the way. */
    {
        static uint8_t big[4052];
        struct wire_value v = {attr_raw, sizeof big, big};
        char why[256];
        wire_msg_init(&m, WIRE_UPDATE);
        m.a = obj;
        m.nvalues = 1;
        m.values = &v;
        CHECK_INT_EQ(cli_call(pub, &m, NULL, why, sizeof why), STATUS_EINVAL);
        CHECK_STR_HAS(why, "frame limit");
        CHECK(still_served(pub), "publisher still served after the refusal");
    }

    /* Encode N updates of 3000 bytes into one buffer; write it non-blocking while draining the
     * reader and the publisher, until sleepy is reported gone and everything is written. */
    enum { N = 3000, SZ = 3000 };
    static uint8_t payload[SZ];
    struct buf all;
    buf_init(&all);
    for (int i = 0; i < N; i++) {
        memset(payload, (uint8_t)i, SZ);
        struct wire_value v = {attr_raw, SZ, payload};
        wire_msg_init(&m, WIRE_UPDATE);
        m.a = obj;
        m.nvalues = 1;
        m.values = &v;
        wire_encode(&all, &m, 0, NULL, 0);
    }
    fcntl(pub->fd, F_SETFL, fcntl(pub->fd, F_GETFL) | O_NONBLOCK);
    size_t written = 0;
    int reflects = 0, sleepy_gone = 0;
    int64_t deadline = rti_now_ms() + 30000;
    while ((written < all.len || reflects < N || !sleepy_gone) && rti_now_ms() < deadline) {
        if (written < all.len) {
            ssize_t w = send(pub->fd, all.data + written, all.len - written, MSG_NOSIGNAL);
            if (w > 0) written += (size_t)w;
        }
        while (cli_next(&reader, &m, 1) == 1)
            if (m.type == WIRE_REFLECT) reflects++;
        while (cli_next(pub, &m, 1) == 1)
            if (m.type == WIRE_FEDERATE_RESIGNED && wire_str_eq(&m.str[0], "sleepy"))
                sleepy_gone = 1;
    }
    fcntl(pub->fd, F_SETFL, fcntl(pub->fd, F_GETFL) & ~O_NONBLOCK);
    CHECK(written == all.len, "publisher wrote all %zu bytes (wrote %zu)", all.len, written);
    buf_fini(&all);
    CHECK(sleepy_gone, "the subscriber that stopped reading was dropped and reported");
    CHECK_INT_EQ(reflects, N);
    CHECK(log_has(p, "slow consumer") || log_has(p, "output limit"),
          "the drop is logged with its reason");
    CHECK(still_served(pub), "publisher still served after the drop");
    CHECK(still_served(&reader), "reader still served after the drop");
    cli_close(&sleepy);
    cli_close(&reader);
}

/* Semantic chaos: a joined federate sends thousands of well-formed but random requests (every
 * client-to-RTI type, small random handles, times, names, values). The RTI may refuse them
 * or close that connection, but must stay up and keep serving the others. */
static uint32_t rnd_state = 12345;
static uint32_t rnd(uint32_t n)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return (rnd_state >> 8) % n;
}

static void random_msg(struct wire_msg *m, struct wire_value *vals, uint32_t *handles,
                       uint8_t *bytes, const char *fom)
{
    static const unsigned types[] = {WIRE_CREATE_FEDERATION,
                                     WIRE_DESTROY_FEDERATION,
                                     WIRE_JOIN,
                                     WIRE_RESIGN,
                                     WIRE_PUBLISH_OBJECT,
                                     WIRE_UNPUBLISH_OBJECT,
                                     WIRE_SUBSCRIBE_OBJECT,
                                     WIRE_UNSUBSCRIBE_OBJECT,
                                     WIRE_PUBLISH_INTERACTION,
                                     WIRE_UNPUBLISH_INTERACTION,
                                     WIRE_SUBSCRIBE_INTERACTION,
                                     WIRE_UNSUBSCRIBE_INTERACTION,
                                     WIRE_REGISTER_OBJECT,
                                     WIRE_UPDATE,
                                     WIRE_DELETE_OBJECT,
                                     WIRE_SEND_INTERACTION,
                                     WIRE_REQUEST_UPDATE,
                                     WIRE_REGISTER_SYNC,
                                     WIRE_ACHIEVE_SYNC,
                                     WIRE_ENABLE_REGULATION,
                                     WIRE_DISABLE_REGULATION,
                                     WIRE_ENABLE_CONSTRAINED,
                                     WIRE_DISABLE_CONSTRAINED,
                                     WIRE_MODIFY_LOOKAHEAD,
                                     WIRE_TIME_REQUEST,
                                     WIRE_QUERY_TIME,
                                     WIRE_PING};
    static const char *names[] = {"", "robust", "x", "HLAobject1", "chaos", "a", "b"};
    unsigned type = types[rnd(sizeof types / sizeof types[0])];
    wire_msg_init(m, type);
    m->req = rnd(3) ? 0 : rnd(1000) + 1;
    /* Fields per type as rti/proto/wire.h lists them; others stay unset (the encoder refuses). */
    switch (type) {
    case WIRE_JOIN:
        m->code = rnd(2);
        wire_str_set(&m->str[0], rnd(2) ? "robust" : "elsewhere");
        wire_str_set(&m->str[1], names[rnd(7)]);
        wire_str_set(&m->str[2], rnd(2) ? fom : "");
        break;
    case WIRE_CREATE_FEDERATION:
        wire_str_set(&m->str[0], names[rnd(7)]);
        wire_str_set(&m->str[1], rnd(2) ? fom : "<fom");
        break;
    case WIRE_DESTROY_FEDERATION:
        wire_str_set(&m->str[0], names[rnd(7)]);
        break;
    case WIRE_RESIGN:
        m->code = rnd(2);
        break;
    case WIRE_REGISTER_OBJECT:
        m->a = rnd(9);
        wire_str_set(&m->str[0], names[rnd(7)]);
        break;
    case WIRE_UPDATE:
    case WIRE_SEND_INTERACTION:
        m->a = rnd(12);
        m->time = rnd(3) ? WIRE_TIME_NONE : (int64_t)rnd(50) - 5;
        m->nvalues = rnd(4);
        for (uint32_t i = 0; i < m->nvalues; i++) {
            vals[i].handle = rnd(16);
            vals[i].len = rnd(3) == 0 ? 8 : rnd(20);
            vals[i].data = bytes;
        }
        m->values = vals;
        break;
    case WIRE_DELETE_OBJECT:
        m->a = rnd(12);
        m->time = rnd(3) ? WIRE_TIME_NONE : (int64_t)rnd(50);
        break;
    case WIRE_REQUEST_UPDATE:
        m->code = rnd(2);
        m->a = rnd(12);
        __attribute__((fallthrough)); /* and the handles below */
    case WIRE_PUBLISH_OBJECT:
    case WIRE_UNPUBLISH_OBJECT:
    case WIRE_SUBSCRIBE_OBJECT:
    case WIRE_UNSUBSCRIBE_OBJECT:
        if (type != WIRE_REQUEST_UPDATE) m->a = rnd(9);
        m->nhandles = rnd(4);
        for (uint32_t i = 0; i < m->nhandles; i++)
            handles[i] = rnd(16);
        m->handles = handles;
        break;
    case WIRE_PUBLISH_INTERACTION:
    case WIRE_UNPUBLISH_INTERACTION:
    case WIRE_SUBSCRIBE_INTERACTION:
    case WIRE_UNSUBSCRIBE_INTERACTION:
        m->a = rnd(6);
        break;
    case WIRE_REGISTER_SYNC:
        wire_str_set(&m->str[0], names[rnd(7)]);
        m->nhandles = rnd(3);
        for (uint32_t i = 0; i < m->nhandles; i++)
            handles[i] = rnd(6);
        m->handles = handles;
        break;
    case WIRE_ACHIEVE_SYNC:
        wire_str_set(&m->str[0], names[rnd(7)]);
        break;
    case WIRE_ENABLE_REGULATION:
    case WIRE_MODIFY_LOOKAHEAD:
        m->time2 = (int64_t)rnd(5) - 1;
        break;
    case WIRE_TIME_REQUEST:
        m->code = rnd(5) + 1;
        m->time = (int64_t)rnd(60) - 5;
        break;
    default:
        break;
    }
}

static void test_chaos(struct rti_proc *p, struct cli *good)
{
    uint8_t bytes[32] = {1};
    struct wire_value vals[4];
    uint32_t handles[4];
    int sent = 0;
    const char *seed = getenv("TEMPO_CHAOS_SEED"); /* reproduce or widen a run */
    if (seed) rnd_state = (uint32_t)strtoul(seed, NULL, 10);
    for (int round = 0; round < 4; round++) {
        /* Two chaotic federates in one federation, so that their random declarations,
         * objects, time requests and time-stamped sends meet each other. */
        struct cli c[2];
        for (int k = 0; k < 2; k++) {
            char name[16];
            snprintf(name, sizeof name, "chaos%d%c", round, 'a' + k);
            CHECK(cli_connect(&c[k], p->port) == 0 && cli_hello(&c[k]) == 0, "chaos connects");
            CHECK(cli_join(&c[k], "robust", name, fom_text, 0, NULL, NULL, 0) > 0, "chaos joins");
        }
        for (int i = 0; i < 3000 && (c[0].fd >= 0 || c[1].fd >= 0); i++) {
            struct cli *x = &c[rnd(2)];
            if (x->fd < 0) continue;
            struct wire_msg m;
            random_msg(&m, vals, handles, bytes, fom_text);
            if (cli_send(x, &m) != 0) continue;
            sent++;
            struct wire_msg r;
            for (int k = 0; k < 2; k++)
                while (cli_next(&c[k], &r, i % 64 == 0 ? 1 : 0) == 1)
                    ;
        }
        cli_close(&c[0]);
        cli_close(&c[1]);
        CHECK(rti_alive(p), "the RTI survives chaos round %d", round);
        CHECK(still_served(good), "good federate served after chaos round %d", round);
    }
    CHECK(sent > 4000, "chaos sent %d requests", sent);
}

/* Time-stamped data waiting at the RTI for a constrained federate that does not advance is
 * capped (half of --max-queued-bytes 65536): past it the sender gets a refusal naming the
 * receiver, nothing is lost, and what was accepted arrives once the receiver advances. */
static void test_tso_cap(struct rti_proc *p)
{
    struct cli a, b;
    struct wire_msg m;
    struct fom *fom = NULL;
    fom_parse_mem(fom_text, strlen(fom_text), "test.xml", &fom, NULL, 0);
    fom_handle cls = fom_class_find(fom, "Sample");
    uint32_t raw = fom_attr_find(fom, cls, "raw");
    fom_free(fom);
    CHECK(cli_connect(&a, p->port) == 0 && cli_hello(&a) == 0, "a connects");
    CHECK(cli_join(&a, "capped", "sender", fom_text, WIRE_JOIN_CREATE, NULL, NULL, 0) > 0,
          "sender joins");
    CHECK(cli_connect(&b, p->port) == 0 && cli_hello(&b) == 0, "b connects");
    CHECK(cli_join(&b, "capped", "laggard", fom_text, 0, NULL, NULL, 0) > 0, "laggard joins");
    CHECK(cli_decl(&b, WIRE_SUBSCRIBE_OBJECT, cls, &raw, 1) == 0, "subscribe");
    CHECK(cli_decl(&a, WIRE_PUBLISH_OBJECT, cls, &raw, 1) == 0, "publish");
    wire_msg_init(&m, WIRE_REGISTER_OBJECT);
    m.a = cls;
    uint64_t obj = 0;
    CHECK(cli_call(&a, &m, &obj, NULL, 0) == STATUS_OK, "register");
    wire_msg_init(&m, WIRE_ENABLE_REGULATION);
    m.time2 = 1;
    cli_send(&a, &m);
    CHECK(cli_expect(&a, WIRE_REGULATION_ENABLED, &m, H_TIMEOUT_MS) == 1, "regulating");
    wire_msg_init(&m, WIRE_ENABLE_CONSTRAINED);
    cli_send(&b, &m);
    CHECK(cli_expect(&b, WIRE_CONSTRAINED_ENABLED, &m, H_TIMEOUT_MS) == 1, "constrained");
    static uint8_t payload[3000];
    struct wire_value v = {raw, sizeof payload, payload};
    int accepted = 0, refused = 0;
    char why[512] = "";
    for (int i = 0; i < 30 && !refused; i++) {
        wire_msg_init(&m, WIRE_UPDATE);
        m.a = obj;
        m.time = 10 + i;
        m.nvalues = 1;
        m.values = &v;
        long st = cli_call(&a, &m, NULL, why, sizeof why);
        if (st == STATUS_OK)
            accepted++;
        else if (st == STATUS_EREFUSED)
            refused = 1;
        else
            CHECK(0, "unexpected status %ld: %s", st, why);
    }
    CHECK(refused, "the send past the cap is refused");
    CHECK(accepted >= 8 && accepted <= 11, "about 32 KiB accepted first (%d x 3 KB)", accepted);
    CHECK_STR_HAS(why, "laggard");
    /* The laggard advances: everything accepted arrives, then the grant. */
    wire_msg_init(&m, WIRE_TIME_REQUEST);
    m.code = WIRE_TR_TAR;
    m.time = 200;
    cli_send(&a, &m);
    wire_msg_init(&m, WIRE_TIME_REQUEST);
    m.code = WIRE_TR_TAR;
    m.time = 100;
    cli_send(&b, &m);
    int got = 0, granted = 0;
    while (!granted && cli_next(&b, &m, H_TIMEOUT_MS) == 1) {
        if (m.type == WIRE_REFLECT && m.code == WIRE_ORDER_TSO) got++;
        if (m.type == WIRE_TIME_GRANT && m.time == 100) granted = 1;
    }
    CHECK(granted, "laggard granted 100");
    CHECK_INT_EQ(got, accepted);
    cli_close(&a);
    cli_close(&b);
}

/* Run the RTI with a bad command line; return its exit status, its stderr in out. */
static int run_bad(const char *args, char *out, size_t cap)
{
    const char *bin = getenv("TEMPO_RTI_BIN");
    char cmd[512], path[128];
    snprintf(path, sizeof path, "build/test-logs/rti_robust_cmdline.%d.txt", (int)getpid());
    snprintf(cmd, sizeof cmd, "timeout 10 %s %s >/dev/null 2>%s",
             bin && bin[0] ? bin : "bin/tempo-rti", args, path);
    int st = system(cmd);
    char *text = h_slurp(path);
    snprintf(out, cap, "%s", text ? text : "");
    free(text);
    unlink(path);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Refusals at start: a non-loopback address without --allow-remote (exit 1, naming the
 * option), and bad options (exit 2, naming the option). */
static void test_cmdline(void)
{
    char err[1024];
    CHECK_INT_EQ(run_bad("--listen 0.0.0.0:0", err, sizeof err), 1);
    CHECK_STR_HAS(err, "--allow-remote");
    CHECK_INT_EQ(run_bad("--listen 127.0.0.1:99999", err, sizeof err), 1);
    CHECK_STR_HAS(err, "HOST:PORT");
    CHECK_INT_EQ(run_bad("--max-frame 10", err, sizeof err), 2);
    CHECK_STR_HAS(err, "--max-frame");
    CHECK_INT_EQ(run_bad("--max-queued-bytes 8K", err, sizeof err), 2);
    CHECK_STR_HAS(err, "twice");
    CHECK_INT_EQ(run_bad("--log-level loud", err, sizeof err), 2);
    CHECK_STR_HAS(err, "loud");
    CHECK_INT_EQ(run_bad("--frobnicate", err, sizeof err), 2);
    CHECK_STR_HAS(err, "--frobnicate");
    CHECK_INT_EQ(run_bad("--listen none", err, sizeof err), 1);
    CHECK_STR_HAS(err, "no listener");
}

static void test_unix_socket(void)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/tempo-rti-test-%d.sock", (int)getpid());
    const char *args[] = {"--unix", path, NULL};
    struct rti_proc p;
    CHECK(rti_start(&p, args, "rti_robust_unix") == 0, "RTI with --unix starts");
    struct cli c;
    memset(&c, 0, sizeof c);
    c.fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un su = {0};
    su.sun_family = AF_UNIX;
    snprintf(su.sun_path, sizeof su.sun_path, "%s", path);
    CHECK(connect(c.fd, (struct sockaddr *)&su, sizeof su) == 0, "connect to %s", path);
    c.next_req = 1;
    CHECK(cli_hello(&c) == 0, "handshake over the Unix socket");
    CHECK(still_served(&c), "ping over the Unix socket");
    cli_close(&c);
    CHECK_INT_EQ(rti_stop(&p, 5000), 0);
    CHECK(access(path, F_OK) != 0, "socket file removed at shutdown");
}

int main(void)
{
    fom_text = h_slurp("fom/test.xml");
    CHECK(fom_text != NULL, "fom/test.xml readable");
    if (!fom_text) return check_summary();
    const char *args[] = {"--max-frame",    "4096",       "--max-queued-bytes",
                          "65536",          "--stall-ms", "1000",
                          "--handshake-ms", "500",        NULL};
    struct rti_proc p;
    if (rti_start(&p, args, "rti_robust") != 0) {
        CHECK(0, "the RTI starts and prints its port");
        return check_summary();
    }
    struct cli good;
    CHECK(cli_connect(&good, p.port) == 0, "good federate connects");
    CHECK(cli_hello(&good) == 0, "good federate handshake");
    CHECK(cli_join(&good, "robust", "good", fom_text, WIRE_JOIN_CREATE, NULL, NULL, 0) > 0,
          "good federate joins (creating the federation)");

    test_bad_input(&p, &good);
    test_slow_consumer(&p, &good);
    test_chaos(&p, &good);
    test_tso_cap(&p);
    CHECK(rti_alive(&p), "the RTI survived everything");

    /* SIGTERM with a federate still joined: clean exit 0. */
    CHECK_INT_EQ(rti_stop(&p, 5000), 0);
    CHECK(cli_closed_within(&good, H_TIMEOUT_MS), "connections closed at shutdown");
    cli_close(&good);

    test_unix_socket();
    test_cmdline();
    free(fom_text);
    return check_summary();
}
