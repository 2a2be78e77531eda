/* Federation services of bin/tempo-rti with raw wire clients: isolation, names, FOM checks,
 * destroy rules, the secret on JOIN / CREATE / DESTROY, declaration/object management
 * (subclasses, filtering, late discovery, ownership), synchronization points, resign and
 * connection loss (objects deleted, or kept for a JOIN with the keep flag), and a
 * time-stamped update through time management. doc/time.md, §6, §10. Read doc/rti.md for
 * the rules checked. */
#include "fom/fom.h"
#include "tests/check.h"
#include "tests/integration/rti_harness.h"

static char *fom_text, *demo_text;
static struct fom *fom;
static struct rti_proc rti;

#define TO    2000 /* ms to wait for a frame that must come */
#define QUIET 300  /* ms to wait to show that a frame does not come */

static fom_handle cls(const char *name)
{
    return fom_class_find(fom, name);
}

static uint32_t attr(const char *cname, const char *aname)
{
    return fom_attr_find(fom, cls(cname), aname);
}

static fom_handle inter(const char *name)
{
    return fom_inter_find(fom, name);
}

static uint32_t param(const char *iname, const char *pname)
{
    return fom_param_find(fom, inter(iname), pname);
}

/* Connect, handshake and join; returns the federate handle (> 0) or <= 0. */
static int64_t join(struct cli *c, const char *federation, const char *name, uint32_t flags)
{
    if (cli_connect(c, rti.port) != 0 || cli_hello(c) != 0) return 0;
    return cli_join(c, federation, name, fom_text, flags, NULL, NULL, 0);
}

static uint64_t reg(struct cli *c, fom_handle k, const char *name, long *status, char *why)
{
    struct wire_msg m;
    wire_msg_init(&m, WIRE_REGISTER_OBJECT);
    m.a = k;
    wire_str_set(&m.str[0], name);
    uint64_t h = 0;
    *status = cli_call(c, &m, &h, why, why ? 256 : 0);
    return h;
}

/* Drain whatever arrives within ms; count frames of a type. */
static int count_within(struct cli *c, unsigned type, int ms)
{
    struct wire_msg m;
    int n = 0;
    int64_t deadline = rti_now_ms() + ms;
    for (;;) {
        int left = (int)(deadline - rti_now_ms());
        if (left <= 0 || cli_next(c, &m, left) != 1) return n;
        n += m.type == type;
    }
}

static int log_has(const struct rti_proc *p, const char *needle)
{
    char *log = h_slurp(p->log);
    int found = log && strstr(log, needle) != NULL;
    free(log);
    return found;
}

static const uint8_t f64_one[8] = {0, 0, 0, 0, 0, 0, 0xf0, 0x3f}; /* 1.0 little-endian */

/* ---- federation management ---------------------------------------------------------------- */

static void test_federations(void)
{
    struct cli a1, a2, b1, dup, other;
    char why[512];
    CHECK(join(&a1, "alpha", "pub", WIRE_JOIN_CREATE) > 0, "alpha/pub joins, creating alpha");
    CHECK(join(&a2, "alpha", "sub", 0) > 0, "alpha/sub joins");
    CHECK(join(&b1, "beta", "sub", WIRE_JOIN_CREATE) > 0, "beta/sub joins (same name, other "
                                                          "federation)");

    /* Duplicate federate name: refused, naming it. */
    CHECK(cli_connect(&dup, rti.port) == 0 && cli_hello(&dup) == 0, "dup connects");
    int64_t r = cli_join(&dup, "alpha", "sub", fom_text, 0, NULL, why, sizeof why);
    CHECK_INT_EQ(r, -31);
    CHECK_STR_HAS(why, "'sub'");
    CHECK_STR_HAS(why, "alpha");

    /* Missing federation without the create flag. */
    r = cli_join(&dup, "gamma", "x", fom_text, 0, NULL, why, sizeof why);
    CHECK_INT_EQ(r, -32);
    CHECK_STR_HAS(why, "gamma");

    /* A FOM that differs from the federation's. */
    r = cli_join(&dup, "alpha", "stranger", demo_text, 0, NULL, why, sizeof why);
    CHECK_INT_EQ(r, -33);
    CHECK_STR_HAS(why, "differs");
    CHECK_STR_HAS(why, "stranger");
    /* A FOM that does not parse. */
    r = cli_join(&dup, "alpha", "broken", "<fom name=", 0, NULL, why, sizeof why);
    CHECK_INT_EQ(r, -10);

    /* Explicit destroy while federates are joined: refused, listing them. */
    CHECK(cli_connect(&other, rti.port) == 0 && cli_hello(&other) == 0, "other connects");
    struct wire_msg m;
    wire_msg_init(&m, WIRE_DESTROY_FEDERATION);
    wire_str_set(&m.str[0], "beta");
    CHECK_INT_EQ(cli_call(&other, &m, NULL, why, sizeof why), STATUS_EREFUSED);
    CHECK_STR_HAS(why, "sub");
    /* Create an existing federation: refused. */
    wire_msg_init(&m, WIRE_CREATE_FEDERATION);
    wire_str_set(&m.str[0], "beta");
    wire_str_set(&m.str[1], fom_text);
    CHECK_INT_EQ(cli_call(&other, &m, NULL, why, sizeof why), STATUS_EEXISTS);

    /* Isolation: alpha's publisher registers and updates; beta's subscriber sees nothing. */
    uint32_t speed = attr("Vehicle", "speed");
    CHECK_INT_EQ(cli_decl(&a2, WIRE_SUBSCRIBE_OBJECT, cls("Vehicle"), &speed, 1), STATUS_OK);
    CHECK_INT_EQ(cli_decl(&b1, WIRE_SUBSCRIBE_OBJECT, cls("Vehicle"), &speed, 1), STATUS_OK);
    CHECK_INT_EQ(cli_decl(&a1, WIRE_PUBLISH_OBJECT, cls("Vehicle"), &speed, 1), STATUS_OK);
    CHECK_INT_EQ(cli_decl(&a2, WIRE_SUBSCRIBE_INTERACTION, inter("Step"), NULL, 0), STATUS_OK);
    CHECK_INT_EQ(cli_decl(&b1, WIRE_SUBSCRIBE_INTERACTION, inter("Step"), NULL, 0), STATUS_OK);
    CHECK_INT_EQ(cli_decl(&a1, WIRE_PUBLISH_INTERACTION, inter("Step"), NULL, 0), STATUS_OK);
    long st;
    uint64_t obj = reg(&a1, cls("Vehicle"), "v1", &st, NULL);
    CHECK(st == STATUS_OK && obj > 0, "register v1 in alpha");
    struct wire_value v = {speed, 8, f64_one};
    wire_msg_init(&m, WIRE_UPDATE);
    m.a = obj;
    m.nvalues = 1;
    m.values = &v;
    cli_send(&a1, &m);
    struct wire_value dt = {param("Step", "dt"), 8, f64_one};
    wire_msg_init(&m, WIRE_SEND_INTERACTION);
    m.a = inter("Step");
    m.nvalues = 1;
    m.values = &dt;
    cli_send(&a1, &m);
    CHECK(cli_expect(&a2, WIRE_DISCOVER, &m, TO) == 1, "alpha/sub discovers v1");
    CHECK(cli_expect(&a2, WIRE_REFLECT, &m, TO) == 1 && m.a == obj, "alpha/sub reflects v1");
    CHECK(cli_expect(&a2, WIRE_RECEIVE_INTERACTION, &m, TO) == 1, "alpha/sub receives Step");
    /* beta registers an object with the same name: names are per federation. */
    CHECK_INT_EQ(cli_decl(&b1, WIRE_PUBLISH_OBJECT, cls("Vehicle"), &speed, 1), STATUS_OK);
    reg(&b1, cls("Vehicle"), "v1", &st, NULL);
    CHECK_INT_EQ(st, STATUS_OK);
    int leaked = count_within(&b1, WIRE_DISCOVER, QUIET) + count_within(&b1, WIRE_REFLECT, 0);
    CHECK_INT_EQ(leaked, 0);
    CHECK_INT_EQ(count_within(&b1, WIRE_RECEIVE_INTERACTION, QUIET), 0);

    /* Resign everyone in beta: the RTI destroys it with its last federate (doc/rti.md), so a
     * DESTROY finds nothing, and beta is gone. */
    wire_msg_init(&m, WIRE_RESIGN);
    m.code = WIRE_RESIGN_DELETE_OBJECTS;
    CHECK_INT_EQ(cli_call(&b1, &m, NULL, NULL, 0), STATUS_OK);
    wire_msg_init(&m, WIRE_DESTROY_FEDERATION);
    wire_str_set(&m.str[0], "beta");
    CHECK_INT_EQ(cli_call(&other, &m, NULL, why, sizeof why), STATUS_ENOTFOUND);
    r = cli_join(&other, "beta", "late", fom_text, 0, NULL, why, sizeof why);
    CHECK_INT_EQ(r, -32);

    cli_close(&a1);
    cli_close(&a2);
    cli_close(&b1);
    cli_close(&dup);
    cli_close(&other);
}

/* ---- declaration and object management --------------------------------------------------- */

static void test_objects(void)
{
    struct cli p, sv, sc, late;
    struct wire_msg m;
    char why[512];
    long st;
    int64_t hp = join(&p, "om", "publisher", WIRE_JOIN_CREATE);
    CHECK(hp > 0, "publisher joins");
    CHECK(join(&sv, "om", "vehicles", 0) > 0, "vehicles joins");
    CHECK(join(&sc, "om", "cars", 0) > 0, "cars joins");

    uint32_t speed = attr("Car", "speed"), pass = attr("Car", "passengers"),
             pos = attr("Car", "position");
    /* vehicles subscribes Vehicle.speed; cars subscribes Car.passengers. */
    CHECK_INT_EQ(cli_decl(&sv, WIRE_SUBSCRIBE_OBJECT, cls("Vehicle"), &speed, 1), STATUS_OK);
    CHECK_INT_EQ(cli_decl(&sc, WIRE_SUBSCRIBE_OBJECT, cls("Car"), &pass, 1), STATUS_OK);
    /* A bad attribute for the class is refused (Truck.load is not a Car attribute). */
    uint32_t load = attr("Truck", "load");
    CHECK_INT_EQ(cli_decl(&sc, WIRE_SUBSCRIBE_OBJECT, cls("Car"), &load, 1), STATUS_EHANDLE);

    /* Register without publishing: refused. */
    reg(&p, cls("Car"), "c1", &st, why);
    CHECK_INT_EQ(st, STATUS_ENOTPUB);
    CHECK_STR_HAS(why, "publish");
    uint32_t pub[2] = {speed, pass};
    CHECK_INT_EQ(cli_decl(&p, WIRE_PUBLISH_OBJECT, cls("Car"), pub, 2), STATUS_OK);
    uint64_t c1 = reg(&p, cls("Car"), "c1", &st, NULL);
    CHECK(st == STATUS_OK && c1 > 0, "register c1");
    reg(&p, cls("Car"), "c1", &st, why);
    CHECK_INT_EQ(st, STATUS_EEXISTS);
    CHECK_STR_HAS(why, "c1");
    uint64_t anon = reg(&p, cls("Car"), "", &st, NULL);
    CHECK(st == STATUS_OK && anon > 0 && anon != c1, "register with an RTI-chosen name");

    /* Discovered as the most derived subscribed class. */
    CHECK(cli_expect(&sv, WIRE_DISCOVER, &m, TO) == 1, "vehicles discovers c1");
    CHECK(m.a == c1 && m.b == cls("Vehicle") && m.c == (uint64_t)hp,
          "c1 discovered as Vehicle owned by publisher (a=%llu b=%llu c=%llu)",
          (unsigned long long)m.a, (unsigned long long)m.b, (unsigned long long)m.c);
    CHECK(wire_str_eq(&m.str[0], "c1"), "discover carries the name");
    CHECK(cli_expect(&sc, WIRE_DISCOVER, &m, TO) == 1 && m.a == c1 && m.b == cls("Car"),
          "cars discovers c1 as Car");
    count_within(&sv, WIRE_DISCOVER, QUIET); /* the anonymous one */
    count_within(&sc, WIRE_DISCOVER, 0);

    /* Update speed + passengers: each subscriber gets only what it subscribed. */
    uint8_t three[4] = {3, 0, 0, 0};
    struct wire_value vals[2] = {{speed, 8, f64_one}, {pass, 4, three}};
    wire_msg_init(&m, WIRE_UPDATE);
    m.a = c1;
    m.nvalues = 2;
    m.values = vals;
    wire_str_set(&m.str[0], "tag1");
    cli_send(&p, &m);
    struct wire_value got[4];
    CHECK(cli_expect(&sv, WIRE_REFLECT, &m, TO) == 1, "vehicles reflects");
    CHECK_INT_EQ(wire_msg_values(&m, got, 4), 1);
    CHECK_INT_EQ(got[0].handle, speed);
    CHECK(wire_str_eq(&m.str[0], "tag1") && m.c == (uint64_t)hp && m.code == WIRE_ORDER_RO,
          "reflect carries tag, sender, receive order");
    CHECK(cli_expect(&sc, WIRE_REFLECT, &m, TO) == 1, "cars reflects");
    CHECK_INT_EQ(wire_msg_values(&m, got, 4), 1);
    CHECK_INT_EQ(got[0].handle, pass);

    /* Refusals: unpublished attribute, wrong size, non-owner. */
    struct wire_value bad = {pos, 16, (const uint8_t *)"0123456789abcdef"};
    wire_msg_init(&m, WIRE_UPDATE);
    m.a = c1;
    m.nvalues = 1;
    m.values = &bad;
    CHECK_INT_EQ(cli_call(&p, &m, NULL, why, sizeof why), STATUS_ENOTPUB);
    CHECK_STR_HAS(why, "position");
    struct wire_value shortv = {speed, 4, three};
    wire_msg_init(&m, WIRE_UPDATE);
    m.a = c1;
    m.nvalues = 1;
    m.values = &shortv;
    CHECK_INT_EQ(cli_call(&p, &m, NULL, why, sizeof why), STATUS_ESIZE);
    CHECK_STR_HAS(why, "speed");
    CHECK_INT_EQ(cli_decl(&sc, WIRE_PUBLISH_OBJECT, cls("Car"), &speed, 1), STATUS_OK);
    wire_msg_init(&m, WIRE_UPDATE);
    m.a = c1;
    m.nvalues = 1;
    m.values = &vals[0];
    CHECK_INT_EQ(cli_call(&sc, &m, NULL, why, sizeof why), STATUS_ENOTPUB);
    CHECK_STR_HAS(why, "not owned");
    wire_msg_init(&m, WIRE_UPDATE);
    m.a = 999999;
    CHECK_INT_EQ(cli_call(&p, &m, NULL, NULL, 0), STATUS_EHANDLE);

    /* Late joiner discovers existing objects when it subscribes. */
    CHECK(join(&late, "om", "late", 0) > 0, "late joins");
    CHECK_INT_EQ(cli_decl(&late, WIRE_SUBSCRIBE_OBJECT, cls("Car"), NULL, 0), STATUS_OK);
    CHECK_INT_EQ(count_within(&late, WIRE_DISCOVER, QUIET), 2);

    /* Request attribute value update reaches the owner. */
    wire_msg_init(&m, WIRE_REQUEST_UPDATE);
    m.code = WIRE_RU_OBJECT;
    m.a = c1;
    m.nhandles = 1;
    m.handles = &speed;
    cli_send(&late, &m);
    CHECK(cli_expect(&p, WIRE_PROVIDE_UPDATE, &m, TO) == 1 && m.a == c1,
          "owner asked to provide c1");
    wire_msg_init(&m, WIRE_REQUEST_UPDATE);
    m.code = WIRE_RU_CLASS;
    m.a = cls("Vehicle");
    cli_send(&late, &m);
    CHECK_INT_EQ(count_within(&p, WIRE_PROVIDE_UPDATE, QUIET), 2);

    /* Interactions: Alarm (subclass of Message) reaches a Message subscriber as Message with
     * Message's parameters only, an Alarm subscriber as Alarm; Step subscribers get nothing. */
    CHECK_INT_EQ(cli_decl(&sv, WIRE_SUBSCRIBE_INTERACTION, inter("Message"), NULL, 0), STATUS_OK);
    CHECK_INT_EQ(cli_decl(&sc, WIRE_SUBSCRIBE_INTERACTION, inter("Alarm"), NULL, 0), STATUS_OK);
    CHECK_INT_EQ(cli_decl(&late, WIRE_SUBSCRIBE_INTERACTION, inter("Step"), NULL, 0), STATUS_OK);
    struct wire_value prm[2] = {{param("Alarm", "text"), 2, (const uint8_t *)"hi"},
                                {param("Alarm", "level"), 8, f64_one}};
    wire_msg_init(&m, WIRE_SEND_INTERACTION);
    m.a = inter("Alarm");
    m.nvalues = 2;
    m.values = prm;
    CHECK_INT_EQ(cli_call(&p, &m, NULL, why, sizeof why), STATUS_ENOTPUB); /* not published yet */
    CHECK_INT_EQ(cli_decl(&p, WIRE_PUBLISH_INTERACTION, inter("Alarm"), NULL, 0), STATUS_OK);
    wire_msg_init(&m, WIRE_SEND_INTERACTION);
    m.a = inter("Alarm");
    m.nvalues = 2;
    m.values = prm;
    CHECK_INT_EQ(cli_call(&p, &m, NULL, why, sizeof why), STATUS_OK);
    CHECK(cli_expect(&sv, WIRE_RECEIVE_INTERACTION, &m, TO) == 1, "Message subscriber receives");
    CHECK_INT_EQ(m.a, inter("Message"));
    CHECK_INT_EQ(wire_msg_values(&m, got, 4), 1);
    CHECK(cli_expect(&sc, WIRE_RECEIVE_INTERACTION, &m, TO) == 1, "Alarm subscriber receives");
    CHECK_INT_EQ(m.a, inter("Alarm"));
    CHECK_INT_EQ(wire_msg_values(&m, got, 4), 2);
    CHECK_INT_EQ(count_within(&late, WIRE_RECEIVE_INTERACTION, QUIET), 0);

    /* Delete: every federate that discovered it gets REMOVE_OBJECT. */
    wire_msg_init(&m, WIRE_DELETE_OBJECT);
    m.a = c1;
    CHECK_INT_EQ(cli_call(&sc, &m, NULL, NULL, 0), STATUS_ENOTPUB); /* not the owner */
    wire_msg_init(&m, WIRE_DELETE_OBJECT);
    m.a = c1;
    CHECK_INT_EQ(cli_call(&p, &m, NULL, NULL, 0), STATUS_OK);
    CHECK(cli_expect(&sv, WIRE_REMOVE_OBJECT, &m, TO) == 1 && m.a == c1, "vehicles: remove c1");
    CHECK(cli_expect(&sc, WIRE_REMOVE_OBJECT, &m, TO) == 1 && m.a == c1, "cars: remove c1");
    CHECK(cli_expect(&late, WIRE_REMOVE_OBJECT, &m, TO) == 1 && m.a == c1, "late: remove c1");

    /* Resign keeping objects: the anonymous object survives and is still discovered. */
    wire_msg_init(&m, WIRE_RESIGN);
    m.code = WIRE_RESIGN_KEEP_OBJECTS;
    CHECK_INT_EQ(cli_call(&p, &m, NULL, NULL, 0), STATUS_OK);
    CHECK(cli_expect(&sv, WIRE_FEDERATE_RESIGNED, &m, TO) == 1 && m.a == (uint64_t)hp &&
              m.code == WIRE_REASON_RESIGNED,
          "others told the publisher resigned");
    CHECK_INT_EQ(count_within(&sv, WIRE_REMOVE_OBJECT, QUIET), 0);
    struct cli later;
    CHECK(join(&later, "om", "later", 0) > 0, "later joins");
    CHECK_INT_EQ(cli_decl(&later, WIRE_SUBSCRIBE_OBJECT, cls("Vehicle"), &speed, 1), STATUS_OK);
    CHECK(cli_expect(&later, WIRE_DISCOVER, &m, TO) == 1 && m.a == anon,
          "orphaned object discovered by a later joiner");

    /* Connection loss: cars owns an object; its socket closes; the others get
     * FEDERATE_RESIGNED (disconnected) and REMOVE_OBJECT. */
    uint64_t c2 = reg(&sc, cls("Car"), "c2", &st, NULL);
    CHECK(st == STATUS_OK, "cars registers c2");
    CHECK(cli_expect(&later, WIRE_DISCOVER, &m, TO) == 1 && m.a == c2, "later discovers c2");
    cli_close(&sc);
    int told = 0, removed = 0;
    while ((!told || !removed) && cli_next(&later, &m, TO) == 1) {
        if (m.type == WIRE_FEDERATE_RESIGNED && wire_str_eq(&m.str[0], "cars") &&
            m.code == WIRE_REASON_DISCONNECTED)
            told = 1;
        if (m.type == WIRE_REMOVE_OBJECT && m.a == c2) removed = 1;
    }
    CHECK(told, "later told cars disconnected");
    CHECK(removed, "later: c2 removed with its dead owner");
    /* The name is free again. */
    struct cli again;
    CHECK(join(&again, "om", "cars", 0) > 0, "the name 'cars' can join again");

    /* A federate that joined with WIRE_JOIN_KEEP_OBJECTS and is then expelled (a frame of
     * unknown type): the RTI resigns it keeping its object, so nobody gets a REMOVE_OBJECT
     * and a federate that subscribes afterwards still discovers it. */
    struct cli keep;
    CHECK(join(&keep, "om", "keeper", WIRE_JOIN_KEEP_OBJECTS) > 0, "keeper joins, keep flag");
    CHECK_INT_EQ(cli_decl(&keep, WIRE_PUBLISH_OBJECT, cls("Car"), &speed, 1), STATUS_OK);
    uint64_t k1 = reg(&keep, cls("Car"), "k1", &st, NULL);
    CHECK(st == STATUS_OK, "keeper registers k1");
    CHECK(cli_expect(&later, WIRE_DISCOVER, &m, TO) == 1 && m.a == k1, "later discovers k1");
    static const uint8_t junk[8] = {0, 0, 0, 0, 0xe7, 0x03, 0, 0}; /* type 999, no body */
    CHECK_INT_EQ(cli_write(&keep, junk, sizeof junk), 0);
    CHECK(cli_closed_within(&keep, TO), "the RTI closes the keeper's connection");
    told = removed = 0;
    while (cli_next(&later, &m, QUIET) == 1) { /* until nothing comes for QUIET ms */
        if (m.type == WIRE_FEDERATE_RESIGNED && wire_str_eq(&m.str[0], "keeper") &&
            m.code == WIRE_REASON_EXPELLED)
            told = 1;
        if (m.type == WIRE_REMOVE_OBJECT) removed++;
    }
    CHECK(told, "later told the keeper was expelled");
    CHECK_INT_EQ(removed, 0);
    CHECK_INT_EQ(cli_decl(&again, WIRE_SUBSCRIBE_OBJECT, cls("Car"), &speed, 1), STATUS_OK);
    int found_k1 = 0, discovers = 0;
    while (cli_next(&again, &m, QUIET) == 1)
        if (m.type == WIRE_DISCOVER) {
            discovers++;
            found_k1 += m.a == k1;
        }
    CHECK(found_k1 == 1, "kept object k1 discovered after its owner was expelled (%d of %d)",
          found_k1, discovers);
    cli_close(&keep);

    cli_close(&p);
    cli_close(&sv);
    cli_close(&late);
    cli_close(&later);
    cli_close(&again);
}

/* ---- synchronization points -------------------------------------------------------------- */

static void test_sync(void)
{
    struct cli f[3];
    const char *names[3] = {"s0", "s1", "s2"};
    struct wire_msg m;
    char why[256];
    for (int i = 0; i < 3; i++)
        CHECK(join(&f[i], "sync", names[i], WIRE_JOIN_CREATE) > 0, "%s joins", names[i]);
    wire_msg_init(&m, WIRE_REGISTER_SYNC);
    wire_str_set(&m.str[0], "ready");
    wire_str_set(&m.str[1], "tag");
    CHECK_INT_EQ(cli_call(&f[0], &m, NULL, why, sizeof why), STATUS_OK);
    for (int i = 0; i < 3; i++)
        CHECK(cli_expect(&f[i], WIRE_ANNOUNCE_SYNC, &m, TO) == 1 &&
                  wire_str_eq(&m.str[0], "ready") && wire_str_eq(&m.str[1], "tag"),
              "%s announced", names[i]);
    wire_msg_init(&m, WIRE_REGISTER_SYNC);
    wire_str_set(&m.str[0], "ready");
    CHECK_INT_EQ(cli_call(&f[1], &m, NULL, why, sizeof why), STATUS_EEXISTS);
    CHECK_STR_HAS(why, "ready");
    for (int i = 0; i < 2; i++) {
        wire_msg_init(&m, WIRE_ACHIEVE_SYNC);
        wire_str_set(&m.str[0], "ready");
        CHECK_INT_EQ(cli_call(&f[i], &m, NULL, NULL, 0), STATUS_OK);
    }
    CHECK_INT_EQ(count_within(&f[0], WIRE_FEDERATION_SYNCED, QUIET), 0);
    wire_msg_init(&m, WIRE_ACHIEVE_SYNC);
    wire_str_set(&m.str[0], "nope");
    CHECK_INT_EQ(cli_call(&f[2], &m, NULL, NULL, 0), STATUS_ENOTFOUND);
    wire_msg_init(&m, WIRE_ACHIEVE_SYNC);
    wire_str_set(&m.str[0], "ready");
    cli_send(&f[2], &m);
    for (int i = 0; i < 3; i++)
        CHECK(cli_expect(&f[i], WIRE_FEDERATION_SYNCED, &m, TO) == 1 &&
                  wire_str_eq(&m.str[0], "ready"),
              "%s synchronized", names[i]);

    /* A point for {s0, s1}; s1 dies without achieving: s0 alone completes it. */
    wire_msg_init(&m, WIRE_REGISTER_SYNC);
    wire_str_set(&m.str[0], "pair");
    uint32_t set[2] = {1, 2}; /* handles of s0 and s1 (joined first in a new federation) */
    m.nhandles = 2;
    m.handles = set;
    CHECK_INT_EQ(cli_call(&f[0], &m, NULL, why, sizeof why), STATUS_OK);
    CHECK(cli_expect(&f[1], WIRE_ANNOUNCE_SYNC, &m, TO) == 1, "s1 announced 'pair'");
    CHECK_INT_EQ(count_within(&f[2], WIRE_ANNOUNCE_SYNC, QUIET), 0);
    wire_msg_init(&m, WIRE_ACHIEVE_SYNC);
    wire_str_set(&m.str[0], "pair");
    CHECK_INT_EQ(cli_call(&f[0], &m, NULL, NULL, 0), STATUS_OK);
    cli_close(&f[1]);
    CHECK(cli_expect(&f[0], WIRE_FEDERATION_SYNCED, &m, TO) == 1 && wire_str_eq(&m.str[0], "pair"),
          "'pair' completes once the dead member is taken out");

    /* A point for all: a federate that joins while it is pending is announced too, and the
     * point waits for it. */
    wire_msg_init(&m, WIRE_REGISTER_SYNC);
    wire_str_set(&m.str[0], "everyone");
    CHECK_INT_EQ(cli_call(&f[0], &m, NULL, why, sizeof why), STATUS_OK);
    struct cli late;
    CHECK(join(&late, "sync", "s3", 0) > 0, "s3 joins late");
    CHECK(cli_expect(&late, WIRE_ANNOUNCE_SYNC, &m, TO) == 1 && wire_str_eq(&m.str[0], "everyone"),
          "the late joiner is announced 'everyone'");
    struct cli *all[3] = {&f[0], &f[2], &late};
    for (int i = 0; i < 2; i++) {
        wire_msg_init(&m, WIRE_ACHIEVE_SYNC);
        wire_str_set(&m.str[0], "everyone");
        CHECK_INT_EQ(cli_call(all[i], &m, NULL, NULL, 0), STATUS_OK);
    }
    CHECK_INT_EQ(count_within(&f[0], WIRE_FEDERATION_SYNCED, QUIET), 0);
    wire_msg_init(&m, WIRE_ACHIEVE_SYNC);
    wire_str_set(&m.str[0], "everyone");
    cli_send(&late, &m);
    for (int i = 0; i < 3; i++)
        CHECK(cli_expect(all[i], WIRE_FEDERATION_SYNCED, &m, TO) == 1 &&
                  wire_str_eq(&m.str[0], "everyone"),
              "member %d synchronized at 'everyone'", i);
    cli_close(&late);
    cli_close(&f[0]);
    cli_close(&f[2]);
}

/* ---- time management through the server --------------------------------------------------- */

static void test_time(void)
{
    struct cli a, b;
    struct wire_msg m;
    int64_t ha = join(&a, "time", "reg", WIRE_JOIN_CREATE);
    int64_t hb = join(&b, "time", "con", 0);
    CHECK(ha > 0 && hb > 0, "both join");
    uint32_t x = attr("Sample", "x");
    CHECK_INT_EQ(cli_decl(&a, WIRE_PUBLISH_OBJECT, cls("Sample"), &x, 1), STATUS_OK);
    CHECK_INT_EQ(cli_decl(&b, WIRE_SUBSCRIBE_OBJECT, cls("Sample"), &x, 1), STATUS_OK);
    long st;
    uint64_t obj = reg(&a, cls("Sample"), "s", &st, NULL);
    CHECK(cli_expect(&b, WIRE_DISCOVER, &m, TO) == 1, "con discovers s");

    wire_msg_init(&m, WIRE_ENABLE_REGULATION);
    m.time2 = 1;
    cli_send(&a, &m);
    CHECK(cli_expect(&a, WIRE_REGULATION_ENABLED, &m, TO) == 1, "regulation enabled");
    wire_msg_init(&m, WIRE_ENABLE_CONSTRAINED);
    cli_send(&b, &m);
    CHECK(cli_expect(&b, WIRE_CONSTRAINED_ENABLED, &m, TO) == 1, "constrained enabled");

    /* A TSO update at 5 below the bound (T + L = 1 is fine; 0 is not). */
    struct wire_value v = {x, 8, f64_one};
    wire_msg_init(&m, WIRE_UPDATE);
    m.a = obj;
    m.time = 0;
    m.nvalues = 1;
    m.values = &v;
    CHECK_INT_EQ(cli_call(&a, &m, NULL, NULL, 0), STATUS_EBOUND);
    wire_msg_init(&m, WIRE_UPDATE);
    m.a = obj;
    m.time = 5;
    m.nvalues = 1;
    m.values = &v;
    CHECK_INT_EQ(cli_call(&a, &m, NULL, NULL, 0), STATUS_OK);
    /* con asks TAR(5): not yet (reg's bound is 1), nothing delivered. */
    wire_msg_init(&m, WIRE_TIME_REQUEST);
    m.code = WIRE_TR_TAR;
    m.time = 5;
    cli_send(&b, &m);
    CHECK_INT_EQ(count_within(&b, WIRE_REFLECT, QUIET), 0);
    /* The status query names reg as the holder of con's GALT. */
    wire_msg_init(&m, WIRE_QUERY_TIME);
    m.req = 77;
    cli_send(&b, &m);
    CHECK(cli_expect(&b, WIRE_TIME_STATUS, &m, TO) == 1 && m.req == 77, "TIME_STATUS");
    struct wire_value rec[4];
    CHECK_INT_EQ(wire_msg_values(&m, rec, 4), 2);
    int found = 0;
    for (int i = 0; i < 2; i++) {
        struct wire_tstat t;
        if (wire_tstat_unpack(rec[i].data, rec[i].len, &t, NULL, 0) != WIRE_OK) continue;
        if (t.federate == (uint64_t)hb) {
            found = 1;
            CHECK_INT_EQ(t.req_kind, WIRE_TR_TAR);
            CHECK_INT_EQ(t.req_time, 5);
            CHECK_INT_EQ(t.holder, ha);
        }
    }
    CHECK(found, "con's record present");
    /* reg advances to 10: its bound becomes 11 > 5, so con gets the TSO reflect, then TAG(5). */
    wire_msg_init(&m, WIRE_TIME_REQUEST);
    m.code = WIRE_TR_TAR;
    m.time = 10;
    cli_send(&a, &m);
    CHECK(cli_expect(&a, WIRE_TIME_GRANT, &m, TO) == 1 && m.time == 10, "reg granted 10");
    CHECK(cli_next(&b, &m, TO) == 1 && m.type == WIRE_REFLECT, "con: reflect first");
    CHECK(m.code == WIRE_ORDER_TSO && m.time == 5, "TSO at 5 (code %u time %lld)", m.code,
          (long long)m.time);
    CHECK(cli_next(&b, &m, TO) == 1 && m.type == WIRE_TIME_GRANT && m.time == 5,
          "con: then granted 5");

    /* The RTI's own "who blocks whom": a debug line per grant with tm's reason, and on
     * SIGUSR1 one status line per federate whatever the level. */
    CHECK(log_has(&rti, "grant TAR -> 5"), "the grant to con is logged with its reason");
    kill(rti.pid, SIGUSR1);
    int dumped = 0;
    for (int i = 0; i < 100 && !dumped; i++) {
        usleep(20000);
        dumped = log_has(&rti, "federation 'time': 2 federate(s)");
    }
    CHECK(dumped, "SIGUSR1 dumps the time state of federation 'time'");

    /* con dies while reg waits on nothing; reg keeps advancing. */
    cli_close(&b);
    CHECK(cli_expect(&a, WIRE_FEDERATE_RESIGNED, &m, TO) == 1, "reg told con left");
    wire_msg_init(&m, WIRE_TIME_REQUEST);
    m.code = WIRE_TR_TAR;
    m.time = 20;
    cli_send(&a, &m);
    CHECK(cli_expect(&a, WIRE_TIME_GRANT, &m, TO) == 1 && m.time == 20, "reg granted 20");
    cli_close(&a);
}

/* Time-stamped updates from a regulating sender to subscribers that are not constrained are
 * delivered at once as receive order (doc/time.md), message after message, to each of them:
 * the records holding such messages are released inside tm_send and must be reused safely. */
static void test_time_ro(void)
{
    struct cli a, b, c;
    struct wire_msg m;
    CHECK(join(&a, "ro", "reg", WIRE_JOIN_CREATE) > 0 && join(&b, "ro", "free1", 0) > 0 &&
              join(&c, "ro", "free2", 0) > 0,
          "three join");
    uint32_t x = attr("Sample", "x");
    CHECK_INT_EQ(cli_decl(&a, WIRE_PUBLISH_OBJECT, cls("Sample"), &x, 1), STATUS_OK);
    CHECK_INT_EQ(cli_decl(&b, WIRE_SUBSCRIBE_OBJECT, cls("Sample"), &x, 1), STATUS_OK);
    CHECK_INT_EQ(cli_decl(&c, WIRE_SUBSCRIBE_OBJECT, cls("Sample"), &x, 1), STATUS_OK);
    long st;
    uint64_t obj = reg(&a, cls("Sample"), "ro1", &st, NULL);
    CHECK(cli_expect(&b, WIRE_DISCOVER, &m, TO) == 1 && cli_expect(&c, WIRE_DISCOVER, &m, TO) == 1,
          "both discover");
    wire_msg_init(&m, WIRE_ENABLE_REGULATION);
    m.time2 = 1;
    cli_send(&a, &m);
    CHECK(cli_expect(&a, WIRE_REGULATION_ENABLED, &m, TO) == 1, "regulation enabled");
    struct wire_value v = {x, 8, f64_one};
    for (int64_t t = 1; t <= 6; t++) {
        wire_msg_init(&m, WIRE_UPDATE);
        m.a = obj;
        m.time = t;
        m.nvalues = 1;
        m.values = &v;
        char why[256];
        CHECK(cli_call(&a, &m, NULL, why, sizeof why) == STATUS_OK, "update at %lld: %s",
              (long long)t, why);
        struct cli *subs[2] = {&b, &c};
        for (int k = 0; k < 2; k++)
            CHECK(cli_expect(subs[k], WIRE_REFLECT, &m, TO) == 1 && m.code == WIRE_ORDER_RO &&
                      m.time == t,
                  "subscriber %d gets the update at %lld at once, receive order", k, (long long)t);
    }
    cli_close(&a);
    cli_close(&b);
    cli_close(&c);
}

/* Many federates: slots grow past their first allocation (and every object's discovered
 * flags with them), freed slots are reused by later joiners, and each federate discovers
 * and reflects exactly the objects it should, no more, no less. */
static void test_many(void)
{
    enum { N = 20, OBJS = 5 };
    struct cli pub, f[N];
    struct wire_msg m;
    long st;
    CHECK(join(&pub, "many", "owner", WIRE_JOIN_CREATE) > 0, "owner joins");
    uint32_t x = attr("Sample", "x");
    CHECK_INT_EQ(cli_decl(&pub, WIRE_PUBLISH_OBJECT, cls("Sample"), &x, 1), STATUS_OK);
    uint64_t obj[OBJS];
    for (int i = 0; i < OBJS; i++) {
        char name[16];
        snprintf(name, sizeof name, "m%d", i);
        obj[i] = reg(&pub, cls("Sample"), name, &st, NULL);
    }
    for (int round = 0; round < 2; round++) {
        /* round 0: N join; round 1: the odd ones left, N/2 new ones take their slots */
        for (int i = 0; i < N; i++) {
            if (round == 1 && i % 2 == 0) continue;
            char name[16];
            snprintf(name, sizeof name, "f%d_%d", round, i);
            CHECK(join(&f[i], "many", name, 0) > 0, "%s joins", name);
            CHECK_INT_EQ(cli_decl(&f[i], WIRE_SUBSCRIBE_OBJECT, cls("Sample"), &x, 1), STATUS_OK);
            int d = 0;
            while (d < OBJS && cli_expect(&f[i], WIRE_DISCOVER, &m, TO) == 1)
                d++;
            CHECK_INT_EQ(d, OBJS);
        }
        struct wire_value v = {x, 8, f64_one};
        wire_msg_init(&m, WIRE_UPDATE);
        m.a = obj[OBJS - 1];
        m.nvalues = 1;
        m.values = &v;
        CHECK_INT_EQ(cli_call(&pub, &m, NULL, NULL, 0), STATUS_OK);
        for (int i = 0; i < N; i++) {
            /* Frames before the reflection: a DISCOVER there would be a duplicate. */
            int extra = 0, got = 0;
            while (!got && cli_next(&f[i], &m, TO) == 1) {
                extra += m.type == WIRE_DISCOVER;
                got = m.type == WIRE_REFLECT && m.a == obj[OBJS - 1];
            }
            CHECK(got, "round %d: federate %d reflects", round, i);
            CHECK_INT_EQ(extra, 0);
        }
        if (round == 0)
            for (int i = 1; i < N; i += 2)
                cli_close(&f[i]);
    }
    /* The owner leaves deleting its objects: each of the N present gets OBJS removals. */
    wire_msg_init(&m, WIRE_RESIGN);
    CHECK_INT_EQ(cli_call(&pub, &m, NULL, NULL, 0), STATUS_OK);
    for (int i = 0; i < N; i++) {
        int removed = 0;
        int64_t deadline = rti_now_ms() + TO;
        while (removed < OBJS && cli_next(&f[i], &m, (int)(deadline - rti_now_ms())) == 1)
            removed += m.type == WIRE_REMOVE_OBJECT;
        CHECK_INT_EQ(removed, OBJS);
        cli_close(&f[i]);
    }
    cli_close(&pub);
}

static void test_secret(void)
{
    const char *args[] = {"--secret", "s3cr3t", "--max-federations", "1", "--max-federates",
                          "1",        NULL};
    struct rti_proc p;
    CHECK(rti_start(&p, args, "rti_fed_secret") == 0, "RTI with --secret starts");
    struct cli c;
    char why[256];
    CHECK(cli_connect(&c, p.port) == 0 && cli_hello(&c) == 0, "connect");
    CHECK_INT_EQ(cli_join(&c, "sec", "x", fom_text, WIRE_JOIN_CREATE, NULL, why, sizeof why), -34);
    CHECK_INT_EQ(cli_join(&c, "sec", "x", fom_text, WIRE_JOIN_CREATE, "s3cr3", why, sizeof why),
                 -34);
    CHECK(cli_join(&c, "sec", "x", fom_text, WIRE_JOIN_CREATE, "s3cr3t", why, sizeof why) > 0,
          "join with the secret");
    struct cli d;
    CHECK(cli_connect(&d, p.port) == 0 && cli_hello(&d) == 0, "connect");
    struct wire_msg m;
    wire_msg_init(&m, WIRE_CREATE_FEDERATION);
    wire_str_set(&m.str[0], "other");
    wire_str_set(&m.str[1], fom_text);
    CHECK_INT_EQ(cli_call(&d, &m, NULL, NULL, 0), STATUS_EAUTH);
    /* CREATE_FEDERATION carries the secret in str2, DESTROY_FEDERATION in str1; d has not
     * joined, so only the secret in the frame can pass it. */
    m.str[2].ptr = "s3cr3";
    m.str[2].len = 5;
    CHECK_INT_EQ(cli_call(&d, &m, NULL, why, sizeof why), STATUS_EAUTH);
    CHECK_STR_HAS(why, "secret");
    wire_msg_init(&m, WIRE_DESTROY_FEDERATION);
    wire_str_set(&m.str[0], "sec");
    CHECK_INT_EQ(cli_call(&d, &m, NULL, NULL, 0), STATUS_EAUTH);
    m.str[1].ptr = "s3cr3t\0"; /* a secret is compared byte for byte, length included */
    m.str[1].len = 7;
    CHECK_INT_EQ(cli_call(&d, &m, NULL, NULL, 0), STATUS_EAUTH);
    m.str[1].len = 6;
    CHECK_INT_EQ(cli_call(&d, &m, NULL, why, sizeof why),
                 STATUS_EREFUSED); /* past the secret: x is in */
    CHECK_STR_HAS(why, "x");
    wire_msg_init(&m, WIRE_CREATE_FEDERATION);
    wire_str_set(&m.str[0], "other");
    wire_str_set(&m.str[1], fom_text);
    wire_str_set(&m.str[2], "s3cr3t");
    CHECK_INT_EQ(cli_call(&d, &m, NULL, why, sizeof why),
                 STATUS_EREFUSED); /* past the secret: the limit */
    CHECK_STR_HAS(why, "--max-federations");
    /* Limits: a second federation, and a second federate in a federation of one. */
    wire_msg_init(&m, WIRE_CREATE_FEDERATION);
    wire_str_set(&m.str[0], "other");
    wire_str_set(&m.str[1], fom_text);
    CHECK_INT_EQ(cli_call(&c, &m, NULL, why, sizeof why), STATUS_EREFUSED);
    CHECK_STR_HAS(why, "--max-federations");
    CHECK_INT_EQ(cli_join(&d, "sec", "y", fom_text, 0, "s3cr3t", why, sizeof why), -30);
    CHECK_STR_HAS(why, "--max-federates");
    cli_close(&c);
    cli_close(&d);
    CHECK_INT_EQ(rti_stop(&p, 5000), 0);
}

int main(void)
{
    fom_text = h_slurp("fom/test.xml");
    demo_text = h_slurp("fom/demo.xml");
    CHECK(fom_text && demo_text, "FOM files readable");
    if (!fom_text || !demo_text ||
        fom_parse_mem(fom_text, strlen(fom_text), "test.xml", &fom, NULL, 0) != FOM_OK) {
        CHECK(0, "fom/test.xml parses");
        return check_summary();
    }
    /* Debug level (the grant lines are checked) and the spinning loop (--spin-us), which the
     * other RTI tests do not use, so both loops are covered. */
    const char *debug[] = {"--log-level", "debug", "--spin-us", "50", NULL};
    if (rti_start(&rti, debug, "rti_fed") != 0) {
        CHECK(0, "the RTI starts and prints its port");
        return check_summary();
    }
    test_federations();
    test_objects();
    test_sync();
    test_time();
    test_time_ro();
    test_many();
    CHECK(rti_alive(&rti), "the RTI is still running");
    CHECK_INT_EQ(rti_stop(&rti, 5000), 0);
    test_secret();
    fom_free(fom);
    free(fom_text);
    free(demo_text);
    return check_summary();
}
