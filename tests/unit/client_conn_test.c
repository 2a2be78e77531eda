/* Unit test of libtempo's connection and dispatch layer (federate/libtempo/client_conn.c,
 * client_evoke.c, client_join.c) against a scripted fake RTI on a Unix socket in a thread of
 * this process: the handshake and join, a blocking call that receives other frames before its
 * reply (they must wait, in order, for tp_evoke: no callback inside the blocking call),
 * TIME_STATUS decoding, calls made from inside callbacks, 3000 random well-formed frames of
 * every RTI->client type (all dispatched, every byte handed to a callback readable: run under
 * ASan), and the client's own defences: a garbage frame, an oversized length, a FOM
 * fingerprint mismatch and a connection closed by the RTI each give a clean error.
 * No network, no child process. Read tests/integration/client_pubsub_test.c for the real RTI. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "federate/libtempo/tempo.h"
#include "fom/fom.h"
#include "rti/proto/status.h"
#include "rti/proto/wire.h"
#include "tests/check.h"

enum scenario { SC_MAIN, SC_GARBAGE, SC_OVERSIZE, SC_FINGERPRINT, SC_RANDOM, SC_CLOSE };

struct fake {
    int lfd;              /* listening socket */
    int scenario;         /* enum scenario of the next connection */
    uint64_t fingerprint; /* of fom/test.xml */
    int cls;              /* a class handle to discover */
    int random_sent;      /* SC_RANDOM: frames sent before the END marker (atomic access) */
};

#define RANDOM_FRAMES 3000

static uint64_t rng = 0x9e3779b97f4a7c15ull; /* xorshift64 state, fixed seed */

static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* Random letters (text slots must not hold a NUL). */
static void rnd_text(struct wire_str *s, char *buf, uint32_t max)
{
    uint32_t n = rnd() % max;
    for (uint32_t i = 0; i < n; i++)
        buf[i] = (char)('a' + rnd() % 26);
    s->ptr = buf;
    s->len = n;
}

/* One random RTI->client frame of any type the client handles, with random fields in range.
 * @return 0 when encoded into @p out. */
static int random_frame(struct buf *out)
{
    static const unsigned types[] = {WIRE_DISCOVER,
                                     WIRE_REFLECT,
                                     WIRE_REMOVE_OBJECT,
                                     WIRE_RECEIVE_INTERACTION,
                                     WIRE_PROVIDE_UPDATE,
                                     WIRE_SYNC_REGISTERED,
                                     WIRE_ANNOUNCE_SYNC,
                                     WIRE_FEDERATION_SYNCED,
                                     WIRE_FEDERATE_JOINED,
                                     WIRE_FEDERATE_RESIGNED,
                                     WIRE_REGULATION_ENABLED,
                                     WIRE_CONSTRAINED_ENABLED,
                                     WIRE_TIME_GRANT,
                                     WIRE_ERROR,
                                     WIRE_PING,
                                     WIRE_REPLY,
                                     WIRE_JOIN_OK};
    static char t0[64], t1[64];
    static uint8_t blob[256];
    static struct wire_value vals[40];
    static uint32_t hs[40];
    for (size_t i = 0; i < sizeof blob; i++)
        blob[i] = (uint8_t)rnd();
    unsigned type = types[rnd() % (sizeof types / sizeof types[0])];
    struct wire_msg m;
    wire_msg_init(&m, type);
    uint32_t nv = rnd() % 40;
    for (uint32_t i = 0; i < nv; i++)
        vals[i] = (struct wire_value){.handle = rnd() % 20, .len = rnd() % 64, .data = blob};
    for (uint32_t i = 0; i < 40; i++)
        hs[i] = rnd() % 20;
    int64_t t = (int64_t)rnd() - 1000;
    switch (type) {
    case WIRE_DISCOVER:
        m.a = rnd() % 8; /* 0 included: an invalid handle the client must survive */
        m.b = rnd() % 12;
        m.c = rnd() % 5;
        rnd_text(&m.str[0], t0, 64);
        break;
    case WIRE_REFLECT:
    case WIRE_RECEIVE_INTERACTION:
        m.a = rnd() % 8;
        m.code = rnd() % 2;
        m.c = rnd() % 5;
        m.time = rnd() % 3 ? t : WIRE_TIME_NONE;
        m.nvalues = nv;
        m.values = vals;
        m.str[0].ptr = (const char *)blob;
        m.str[0].len = rnd() % 32;
        break;
    case WIRE_REMOVE_OBJECT:
        m.a = rnd() % 8;
        m.code = rnd() % 2;
        m.c = rnd() % 5;
        m.time = t;
        break;
    case WIRE_PROVIDE_UPDATE:
        m.a = rnd() % 8;
        m.c = rnd() % 5;
        m.nhandles = rnd() % 40;
        m.handles = hs;
        break;
    case WIRE_SYNC_REGISTERED:
        m.req = rnd();
        m.code = rnd() % 3 ? 0 : rnd() % 50;
        rnd_text(&m.str[0], t0, 8);
        rnd_text(&m.str[1], t1, 64);
        break;
    case WIRE_ANNOUNCE_SYNC:
        rnd_text(&m.str[0], t0, 8);
        m.str[1].ptr = (const char *)blob;
        m.str[1].len = rnd() % 64;
        break;
    case WIRE_FEDERATION_SYNCED:
        rnd_text(&m.str[0], t0, 8);
        break;
    case WIRE_FEDERATE_JOINED:
        m.a = rnd() % 9;
        rnd_text(&m.str[0], t0, 64);
        break;
    case WIRE_FEDERATE_RESIGNED:
        m.a = rnd() % 9;
        m.code = rnd() % 3;
        rnd_text(&m.str[0], t0, 64);
        rnd_text(&m.str[1], t1, 64);
        break;
    case WIRE_REGULATION_ENABLED:
        m.time = t;
        m.time2 = t + (int64_t)(rnd() % 5);
        m.code = rnd() % 2;
        break;
    case WIRE_CONSTRAINED_ENABLED:
        m.time = t;
        break;
    case WIRE_TIME_GRANT:
        m.code = rnd() % 6;
        m.time = t;
        break;
    case WIRE_ERROR:
    case WIRE_REPLY:
        m.req = rnd() % 4; /* no request of this test is waiting: strays */
        m.code = rnd() % 60;
        m.a = rnd() % 50;
        rnd_text(&m.str[0], t0, 64);
        break;
    case WIRE_PING:
        m.req = rnd();
        m.str[0].ptr = (const char *)blob;
        m.str[0].len = rnd() % 64;
        break;
    default: /* WIRE_JOIN_OK: unexpected after the join */
        m.req = rnd() % 4;
        m.a = rnd() % 9;
        break;
    }
    char err[128];
    return wire_encode(out, &m, 0, err, sizeof err) == WIRE_OK ? 0 : -1;
}

static long wait_for(int fd, struct buf *in, unsigned type, struct wire_msg *out);

/* SC_RANDOM, fake side: RANDOM_FRAMES random frames, then FEDERATION_SYNCED "END". */
static void random_script(int fd, struct buf *in, struct fake *fk)
{
    struct buf out;
    buf_init(&out);
    int sent = 0;
    for (int i = 0; i < RANDOM_FRAMES; i++)
        if (random_frame(&out) == 0) sent++;
    __atomic_store_n(&fk->random_sent, sent, __ATOMIC_SEQ_CST);
    struct wire_msg m;
    wire_msg_init(&m, WIRE_FEDERATION_SYNCED);
    wire_str_set(&m.str[0], "END");
    char err[128];
    wire_encode(&out, &m, 0, err, sizeof err);
    size_t off = 0;
    while (off < out.len) { /* the client reads while we write: no deadlock */
        ssize_t w = write(fd, out.data + off, out.len - off);
        if (w <= 0) break;
        off += (size_t)w;
    }
    buf_fini(&out);
    wait_for(fd, in, WIRE_RESIGN, NULL);
}

/* Read client frames until one of type @p type arrives; returns its req (or -1 on EOF). */
static long wait_for(int fd, struct buf *in, unsigned type, struct wire_msg *out)
{
    for (;;) {
        size_t flen;
        char err[128];
        while (wire_split(in->data, in->len, 0, &flen, err, sizeof err) == 1) {
            struct wire_msg m;
            int ok = wire_decode(in->data, flen, &m, err, sizeof err) == WIRE_OK;
            unsigned t = m.type;
            uint32_t req = m.req;
            if (ok && t == type && out)
                *out = m; /* only fields without pointers are used by callers */
            buf_consume(in, flen);
            if (ok && t == type) return req;
        }
        if (buf_reserve(in, 4096) < 0) return -1;
        ssize_t n = read(fd, in->data + in->len, 4096);
        if (n <= 0) return -1;
        in->len += (size_t)n;
    }
}

static void put(int fd, const struct wire_msg *m)
{
    struct buf b;
    buf_init(&b);
    char err[128];
    if (wire_encode(&b, m, 0, err, sizeof err) == WIRE_OK) {
        ssize_t w = write(fd, b.data, b.len);
        (void)w;
    } else {
        fprintf(stderr, "fake RTI: encode %s: %s\n", wire_type_name(m->type), err);
    }
    buf_fini(&b);
}

/* Handshake and join answer. */
static int handshake(int fd, struct buf *in, uint64_t fingerprint)
{
    if (wait_for(fd, in, WIRE_HELLO, NULL) < 0) return -1;
    long req = wait_for(fd, in, WIRE_JOIN, NULL);
    if (req < 0) return -1;
    struct wire_msg m;
    wire_msg_init(&m, WIRE_HELLO_OK);
    m.code = WIRE_VERSION;
    wire_str_set(&m.str[0], "fake");
    put(fd, &m);
    wire_msg_init(&m, WIRE_JOIN_OK);
    m.req = (uint32_t)req;
    m.a = 7;
    m.b = fingerprint;
    wire_str_set(&m.str[0], "fed");
    wire_str_set(&m.str[1], "1e-9");
    put(fd, &m);
    return 0;
}

/* Answer one QUERY_TIME with two TIME_STATUS records. @return 0, or -1 on EOF. */
static int time_status(int fd, struct buf *in)
{
    long req = wait_for(fd, in, WIRE_QUERY_TIME, NULL);
    if (req < 0) return -1;
    struct wire_msg m;
    struct wire_tstat ts[2] = {{.federate = 7,
                                .time = 10,
                                .req_kind = WIRE_TR_TAR,
                                .req_time = 20,
                                .bound = 30,
                                .bound_strict = 0,
                                .galt = 15,
                                .galt_strict = 1,
                                .holder = 3,
                                .lits = 25,
                                .root = 4},
                               {.federate = 3,
                                .time = 5,
                                .req_kind = WIRE_TR_NONE,
                                .req_time = WIRE_TIME_NONE,
                                .bound = 15,
                                .bound_strict = 1,
                                .galt = INT64_MAX,
                                .galt_strict = 0,
                                .holder = 0,
                                .lits = INT64_MAX,
                                .root = 0}};
    uint8_t rec[2][WIRE_TSTAT_SIZE];
    struct wire_value tv[2];
    for (int i = 0; i < 2; i++) {
        wire_tstat_pack(&ts[i], rec[i]);
        tv[i] = (struct wire_value){
            .handle = (uint32_t)ts[i].federate, .len = WIRE_TSTAT_SIZE, .data = rec[i]};
    }
    wire_msg_init(&m, WIRE_TIME_STATUS);
    m.req = (uint32_t)req;
    m.nvalues = 2;
    m.values = tv;
    put(fd, &m);
    return 0;
}

static void main_script(int fd, struct buf *in, const struct fake *fk)
{
    /* The client registers an object: send DISCOVER and REFLECT of another object first,
     * then the REPLY. */
    long req = wait_for(fd, in, WIRE_REGISTER_OBJECT, NULL);
    if (req < 0) return;
    struct wire_msg m;
    wire_msg_init(&m, WIRE_DISCOVER);
    m.a = 100;
    m.b = (uint64_t)fk->cls;
    m.c = 3;
    wire_str_set(&m.str[0], "other");
    put(fd, &m);
    uint8_t v[8] = {0, 0, 0, 0, 0, 0, 0xf0, 0x3f}; /* 1.0 */
    struct wire_value wv[2] = {{.handle = 2, .len = 8, .data = v},
                               {.handle = 3, .len = 3, .data = (const uint8_t *)"abc"}};
    wire_msg_init(&m, WIRE_REFLECT);
    m.a = 100;
    m.code = WIRE_ORDER_TSO;
    m.c = 3;
    m.time = 42;
    m.nvalues = 2;
    m.values = wv;
    put(fd, &m);
    wire_msg_init(&m, WIRE_REPLY);
    m.req = (uint32_t)req;
    m.a = 55;
    put(fd, &m);
    /* Time status, four times (the first query comes from inside a callback, the third from
     * tp_query_lits, the fourth from tp_query_galt): two records. */
    for (int q = 0; q < 4; q++)
        if (time_status(fd, in) < 0) return;

    /* A grant and an async refusal of a time request. */
    if (wait_for(fd, in, WIRE_TIME_REQUEST, NULL) < 0) return;
    wire_msg_init(&m, WIRE_ERROR);
    m.code = STATUS_EBOUND;
    m.a = WIRE_TIME_REQUEST;
    wire_str_set(&m.str[0], "no reason, fake");
    put(fd, &m);
    if (wait_for(fd, in, WIRE_TIME_REQUEST, NULL) < 0) return;
    wire_msg_init(&m, WIRE_TIME_GRANT);
    m.code = WIRE_TR_TAR;
    m.time = 9;
    put(fd, &m);
    wait_for(fd, in, WIRE_RESIGN, NULL); /* then EOF */
}

static void *fake_rti(void *arg)
{
    struct fake *fk = arg;
    for (int sc = SC_MAIN; sc <= SC_CLOSE; sc++) {
        int fd = accept(fk->lfd, NULL, NULL);
        if (fd < 0) break;
        struct buf in;
        buf_init(&in);
        uint64_t fp = sc == SC_FINGERPRINT ? fk->fingerprint ^ 1 : fk->fingerprint;
        if (handshake(fd, &in, fp) == 0) {
            if (sc == SC_MAIN) {
                main_script(fd, &in, fk);
            } else if (sc == SC_GARBAGE) {
                /* a header announcing 4 body bytes of an unknown type 999 */
                uint8_t g[12] = {4, 0, 0, 0, 0xe7, 0x03, 0, 0, 1, 2, 3, 4};
                ssize_t w = write(fd, g, sizeof g);
                (void)w;
                wait_for(fd, &in, WIRE_RESIGN, NULL);
            } else if (sc == SC_OVERSIZE) {
                uint8_t g[8] = {0xf0, 0xff, 0xff, 0xff, WIRE_REFLECT, 0, 0, 0};
                ssize_t w = write(fd, g, sizeof g);
                (void)w;
                wait_for(fd, &in, WIRE_RESIGN, NULL);
            } else if (sc == SC_RANDOM) {
                random_script(fd, &in, fk);
            } else if (sc == SC_FINGERPRINT) {
                wait_for(fd, &in, WIRE_RESIGN, NULL);
            }
            /* SC_CLOSE: close right after the join */
        }
        buf_fini(&in);
        close(fd);
    }
    return NULL;
}

struct rec {
    tp_federate *f;                                /* for calls from callbacks */
    int nest;                                      /* 1: the discover callback makes nested calls */
    int nested_evoke, nested_query, nested_update; /* their results */
    size_t nested_n;                               /* records seen by the nested query */
    int discovers, reflects, grants, errors;
    tp_object obj;
    char name[32];
    double x;
    char text[8];
    tp_time time;
    int err_code;
};

static void on_discover(void *ctx, tp_object o, tp_handle cls, const char *name, tp_fed owner)
{
    struct rec *r = ctx;
    r->discovers++;
    r->obj = o;
    if (r->nest) {
        /* Evoking from a callback is refused; a blocking round trip is allowed and must
         * leave the frames queued behind this one (the REFLECT) in place and in order. */
        r->nested_evoke = tp_evoke(r->f, 0);
        r->nested_query = tp_query_time_status(r->f, NULL, 0, &r->nested_n);
    }
    snprintf(r->name, sizeof r->name, "%s", name);
}

static void on_reflect(void *ctx, const tp_reflection *x)
{
    struct rec *r = ctx;
    r->reflects++;
    r->time = x->time;
    if (r->nest) {
        /* Sending a larger update from the callback must not move the values we were given
         * (ASan would catch a use after free below). */
        tp_handle veh = 0, speed = 0;
        tp_object_class(r->f, "Vehicle", &veh);
        tp_attribute(r->f, veh, "speed", &speed);
        uint8_t b[8];
        tp_encode_float64(3.0, b);
        tp_value many[40];
        for (int i = 0; i < 40; i++)
            many[i] = (tp_value){speed, b, 8};
        r->nested_update = tp_update(r->f, 55, many, 40, TP_NO_TIME);
    }
    if (x->n_values == 2) {
        tp_decode_float64(x->values[0].data, x->values[0].size, &r->x);
        tp_decode_string(x->values[1].data, x->values[1].size, r->text, sizeof r->text);
    }
}

static void on_grant(void *ctx, tp_time t)
{
    struct rec *r = ctx;
    r->grants++;
    r->time = t;
}

static void on_error(void *ctx, int code, const char *msg)
{
    struct rec *r = ctx;
    r->errors++;
    r->err_code = code;
}

static void quiet(void *ctx, tp_log_level lv, const char *line)
{
}

/* The client side, shared by the scenario functions (one per fake-RTI connection, run in
 * the order of enum scenario). */
static char addr[80]; /* "unix:/tmp/..." */
static char err[512]; /* tp_join's error message */
static struct rec r;  /* what the callbacks saw */
static const tp_callbacks cb = {.discover = on_discover,
                                .reflect = on_reflect,
                                .grant = on_grant,
                                .error = on_error,
                                .log = quiet};
static tp_join_options o = {
    .federation = "fed", .federate = "me", .fom_path = "fom/test.xml", .timeout_ms = 5000};

/* SC_MAIN: handshake, deferred frames, time status, refusal and grant. */
static void sc_main(void)
{
    tp_federate *f = NULL;
    CHECK_INT_EQ(tp_join(&o, &cb, &r, &f, err, sizeof err), TP_OK);
    if (f) {
        CHECK_INT_EQ(tp_federate_handle(f), 7);
        tp_handle veh;
        CHECK_INT_EQ(tp_object_class(f, "Vehicle", &veh), TP_OK);
        CHECK_INT_EQ(tp_publish_object_class(f, veh, NULL, 0), TP_OK);
        tp_object obj = 0;
        CHECK_INT_EQ(tp_register_object(f, veh, "mine", &obj), TP_OK);
        CHECK(obj == 55, "register returns the RTI's handle (got %llu)", (unsigned long long)obj);
        CHECK_INT_EQ(r.discovers, 0); /* no callback inside a blocking call */
        CHECK_INT_EQ(r.reflects, 0);
        r.f = f;
        r.nest = 1;
        CHECK_INT_EQ(tp_evoke(f, 1000), 2); /* the two frames that came before the reply */
        r.nest = 0;
        CHECK_INT_EQ(r.nested_evoke, TP_ESTATE);
        CHECK_INT_EQ(r.nested_query, TP_OK);
        CHECK_INT_EQ(r.nested_update, TP_OK);
        CHECK_INT_EQ(r.nested_n, 2);
        CHECK_INT_EQ(r.discovers, 1);
        CHECK_STR_EQ(r.name, "other");
        CHECK_INT_EQ(r.reflects, 1);
        CHECK_NEAR(r.x, 1.0, 0.0);
        CHECK_STR_EQ(r.text, "abc");
        CHECK_INT_EQ(r.time, 42);
        tp_time_status st[1];
        size_t n = 0;
        CHECK_INT_EQ(tp_query_time_status(f, st, 1, &n), TP_OK);
        CHECK_INT_EQ(n, 2); /* the count, although only one fits */
        CHECK_INT_EQ(st[0].federate, 7);
        CHECK_INT_EQ(st[0].pending, TP_REQ_TAR);
        CHECK_INT_EQ(st[0].pending_time, 20);
        CHECK_INT_EQ(st[0].galt, 15);
        CHECK_INT_EQ(st[0].galt_strict, 1);
        CHECK_INT_EQ(st[0].galt_holder, 3);
        CHECK_INT_EQ(st[0].galt_root, 4);
        CHECK_INT_EQ(st[0].lits, 25);
        tp_time galt = 0;
        int strict = 0;
        CHECK_INT_EQ(tp_query_lits(f, &galt), TP_OK);
        CHECK_INT_EQ(galt, 25); /* our record (federate 7) */
        CHECK_INT_EQ(tp_query_galt(f, &galt, &strict), TP_OK);
        CHECK_INT_EQ(galt, 15); /* our record (federate 7) */
        CHECK_INT_EQ(strict, 1);
        /* A refused request: the wait ends with TP_EREFUSED and the RTI's reason. */
        CHECK_INT_EQ(tp_time_advance_request(f, 10), TP_OK);
        CHECK_INT_EQ(tp_wait_grant(f, NULL, 2000), TP_EREFUSED);
        CHECK_INT_EQ(r.errors, 1);
        CHECK_INT_EQ(r.err_code, TP_EBOUND);
        CHECK_STR_HAS(tp_last_error(f), "no reason, fake");
        /* The request is no longer pending: a new one is allowed and granted. */
        CHECK_INT_EQ(tp_time_advance_request(f, 9), TP_OK);
        tp_time t = 0;
        CHECK_INT_EQ(tp_wait_grant(f, &t, 2000), TP_OK);
        CHECK_INT_EQ(t, 9);
        CHECK_INT_EQ(tp_query_logical_time(f, &t), TP_OK);
        CHECK_INT_EQ(t, 9);
        CHECK_INT_EQ(tp_time_advance_request(f, 8), TP_ETIME);
        tp_federate_free(f); /* sends RESIGN without waiting */
    }
}

/* SC_GARBAGE: an unknown frame type closes the connection cleanly. */
static void sc_garbage(void)
{
    tp_federate *f = NULL;
    CHECK_INT_EQ(tp_join(&o, &cb, &r, &f, err, sizeof err), TP_OK);
    if (f) {
        int rc = tp_evoke(f, 2000);
        CHECK_INT_EQ(rc, TP_EPROTO);
        CHECK_STR_HAS(tp_last_error(f), "frame");
        CHECK_INT_EQ(tp_fileno(f), -1);
        CHECK_INT_EQ(tp_evoke(f, 0), TP_ECLOSED);
        CHECK_INT_EQ(tp_flush(f), TP_ECLOSED);
        tp_federate_free(f);
    }
}

/* SC_OVERSIZE: a length over the limit is refused before the body. */
static void sc_oversize(void)
{
    tp_federate *f = NULL;
    CHECK_INT_EQ(tp_join(&o, &cb, &r, &f, err, sizeof err), TP_OK);
    if (f) {
        CHECK_INT_EQ(tp_evoke(f, 2000), TP_EPROTO);
        CHECK_STR_HAS(tp_last_error(f), "bad frame");
        tp_federate_free(f);
    }
}

/* SC_FINGERPRINT: a different FOM is refused at join. */
static void sc_fingerprint(void)
{
    tp_federate *f = NULL;
    CHECK_INT_EQ(tp_join(&o, &cb, &r, &f, err, sizeof err), TP_EFOMDIFF);
    CHECK(f == NULL, "no federate after a refused join");
    CHECK_STR_HAS(err, "fingerprint");
}

/* SC_RANDOM, client side: callbacks that read every byte they are given (ASan checks the
 * pointers), and a count of what was dispatched. */
static long rsum, rcalls, rend;
static void touch(const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        rsum += ((const uint8_t *)p)[i];
    rcalls++;
}
static void r_discover(void *c, tp_object obj, tp_handle cls, const char *name, tp_fed w)
{
    touch(name, strlen(name));
}
static void r_reflect(void *c, const tp_reflection *x)
{
    for (size_t i = 0; i < x->n_values; i++)
        touch(x->values[i].data, x->values[i].size);
    touch(x->tag, x->tag_size);
}
static void r_receive(void *c, const tp_interaction *x)
{
    for (size_t i = 0; i < x->n_params; i++)
        touch(x->params[i].data, x->params[i].size);
    touch(x->tag, x->tag_size);
}
static void r_remove(void *c, tp_object obj, tp_time t, tp_order ord, tp_fed s)
{
    rcalls++;
}
static void r_provide(void *c, tp_object obj, const tp_handle *a, size_t n)
{
    touch(a, n * sizeof *a);
}
static void r_registered(void *c, const char *l, int st, const char *why)
{
    touch(l, strlen(l));
    touch(why, strlen(why));
}
static void r_announced(void *c, const char *l, const void *tag, size_t n)
{
    touch(l, strlen(l));
    touch(tag, n);
}
static void r_synced(void *c, const char *l)
{
    touch(l, strlen(l));
    if (strcmp(l, "END") == 0) rend = 1;
}
static void r_joined(void *c, tp_fed f, const char *n)
{
    touch(n, strlen(n));
}
static void r_resigned(void *c, tp_fed f, const char *n, const char *why)
{
    touch(n, strlen(n));
    touch(why, strlen(why));
}
static void r_time(void *c, tp_time t)
{
    rcalls++;
}
static void r_error(void *c, int code, const char *msg)
{
    touch(msg, strlen(msg));
}

static void sc_random(struct fake *fk)
{
    tp_callbacks rcb = {.discover = r_discover,
                        .reflect = r_reflect,
                        .remove = r_remove,
                        .receive = r_receive,
                        .provide = r_provide,
                        .sync_registered = r_registered,
                        .sync_announced = r_announced,
                        .synchronized = r_synced,
                        .federate_joined = r_joined,
                        .federate_resigned = r_resigned,
                        .regulation_enabled = r_time,
                        .constrained_enabled = r_time,
                        .grant = r_time,
                        .error = r_error,
                        .log = quiet};
    tp_federate *f = NULL;
    CHECK_INT_EQ(tp_join(&o, &rcb, NULL, &f, err, sizeof err), TP_OK);
    if (!f) return;
    long dispatched = 0;
    int rc = 0;
    while (!rend && (rc = tp_evoke(f, 5000)) > 0)
        dispatched += rc;
    CHECK(rend, "END marker seen (last tp_evoke %d: %s)", rc, tp_last_error(f));
    int sent = __atomic_load_n(&fk->random_sent, __ATOMIC_SEQ_CST);
    CHECK(sent > RANDOM_FRAMES / 2, "most random frames encodable (%d)", sent);
    CHECK_INT_EQ(dispatched, sent + 1); /* every frame dispatched, none lost or doubled */
    CHECK(rcalls > sent / 2, "callbacks ran (%ld)", rcalls);
    tp_time t;
    CHECK_INT_EQ(tp_query_logical_time(f, &t), TP_OK); /* still a working federate */
    CHECK(tp_fileno(f) >= 0, "connection still open");
    tp_federate_free(f);
}

/* SC_CLOSE: the RTI closes the connection. */
/* Log lines go to the callback, filtered by the join option log_level. */
static int log_info, log_error;
static char log_last[256];
static void record_log(void *ctx, tp_log_level lv, const char *line)
{
    if (lv == TP_LOG_INFO) log_info++;
    if (lv == TP_LOG_ERROR) log_error++;
    snprintf(log_last, sizeof log_last, "%s", line);
}

static void sc_close(void)
{
    tp_federate *f = NULL;
    tp_callbacks lcb = cb;
    lcb.log = record_log;
    tp_join_options lo = o;
    lo.log_level = TP_LOG_INFO;
    CHECK_INT_EQ(tp_join(&lo, &lcb, &r, &f, err, sizeof err), TP_OK);
    CHECK_INT_EQ(log_info, 1); /* "joined federation ..." */
    CHECK_STR_HAS(log_last, "joined federation");
    if (f) {
        CHECK_INT_EQ(tp_evoke(f, 2000), TP_ECLOSED);
        CHECK_STR_HAS(tp_last_error(f), "closed");
        CHECK_INT_EQ(log_error, 1); /* the loss of the connection is logged once */
        CHECK_STR_HAS(log_last, "closed the connection");
        CHECK_INT_EQ(tp_evoke(f, 0), TP_ECLOSED);
        tp_federate_free(f);
    }
}

int main(void)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/tempo-client-test-%d.sock", (int)getpid());
    unlink(path);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    struct fake fk = {.lfd = socket(AF_UNIX, SOCK_STREAM, 0)};
    if (fk.lfd < 0 || bind(fk.lfd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
        listen(fk.lfd, 4) < 0) {
        CHECK(0, "cannot listen on %s", path);
        return check_summary();
    }
    struct fom *fom = NULL;
    CHECK_INT_EQ(fom_parse_file("fom/test.xml", &fom, err, sizeof err), FOM_OK);
    fk.fingerprint = fom_fingerprint(fom);
    fk.cls = (int)fom_class_find(fom, "Vehicle");
    fom_free(fom);
    if (getenv("CLIENT_CONN_SEED")) /* to explore other random frame sequences by hand */
        rng = strtoull(getenv("CLIENT_CONN_SEED"), NULL, 0) | 1;
    pthread_t th;
    pthread_create(&th, NULL, fake_rti, &fk);

    snprintf(addr, sizeof addr, "unix:%s", path);
    o.rti = addr;
    sc_main();
    sc_garbage();
    sc_oversize();
    sc_fingerprint();
    sc_random(&fk);
    sc_close();

    pthread_join(th, NULL);
    close(fk.lfd);
    unlink(path);
    return check_summary();
}
