/* The federation log written by bin/tempo-rti --log DIR (doc/log.md): a real
 * federation runs, the RTI stops, and the file is read back with the reader of rti/flog/flog.h:
 * joins, every received and sent frame, the tm_send calls, the decisions with reasons, the
 * lost connection and the end note are all there, and the log ends cleanly. Read
 * rti/flog/flog.h for the format, tests/integration/rti_fed_test.c for the services. */
#include "fom/fom.h"
#include "rti/flog/flog.h"
#include "tests/check.h"
#include "tests/integration/rti_harness.h"

#include <dirent.h>
#include <sys/stat.h>

#define TO 2000

/* Run a small time-managed federation against the RTI on port. Returns B's handle. */
static int64_t run_federation(int port, const char *fom_text, struct fom *fom)
{
    struct cli a, b;
    struct wire_msg m;
    CHECK(cli_connect(&a, port) == 0 && cli_hello(&a) == 0, "A connects");
    int64_t ha = cli_join(&a, "logged", "A", fom_text, WIRE_JOIN_CREATE, NULL, NULL, 0);
    CHECK(cli_connect(&b, port) == 0 && cli_hello(&b) == 0, "B connects");
    int64_t hb = cli_join(&b, "logged", "B", fom_text, 0, NULL, NULL, 0);
    CHECK(ha > 0 && hb > 0, "both join");
    fom_handle cls = fom_class_find(fom, "Sample");
    uint32_t x = fom_attr_find(fom, cls, "x");
    CHECK_INT_EQ(cli_decl(&a, WIRE_PUBLISH_OBJECT, cls, &x, 1), STATUS_OK);
    CHECK_INT_EQ(cli_decl(&b, WIRE_SUBSCRIBE_OBJECT, cls, &x, 1), STATUS_OK);
    wire_msg_init(&m, WIRE_REGISTER_OBJECT);
    m.a = cls;
    uint64_t obj = 0;
    CHECK(cli_call(&a, &m, &obj, NULL, 0) == STATUS_OK, "register");
    CHECK(cli_expect(&b, WIRE_DISCOVER, &m, TO) == 1, "B discovers");
    wire_msg_init(&m, WIRE_ENABLE_REGULATION);
    m.time2 = 1;
    cli_send(&a, &m);
    CHECK(cli_expect(&a, WIRE_REGULATION_ENABLED, &m, TO) == 1, "A regulating");
    wire_msg_init(&m, WIRE_ENABLE_CONSTRAINED);
    cli_send(&b, &m);
    CHECK(cli_expect(&b, WIRE_CONSTRAINED_ENABLED, &m, TO) == 1, "B constrained");
    static const uint8_t one[8] = {0, 0, 0, 0, 0, 0, 0xf0, 0x3f};
    struct wire_value v = {x, 8, one};
    wire_msg_init(&m, WIRE_UPDATE);
    m.a = obj;
    m.time = 5;
    m.nvalues = 1;
    m.values = &v;
    CHECK_INT_EQ(cli_call(&a, &m, NULL, NULL, 0), STATUS_OK);
    wire_msg_init(&m, WIRE_TIME_REQUEST);
    m.code = WIRE_TR_TAR;
    m.time = 10;
    cli_send(&a, &m);
    wire_msg_init(&m, WIRE_TIME_REQUEST);
    m.code = WIRE_TR_TAR;
    m.time = 5;
    cli_send(&b, &m);
    CHECK(cli_expect(&b, WIRE_TIME_GRANT, &m, TO) == 1 && m.time == 5, "B granted 5");
    cli_close(&b); /* lost without RESIGN */
    CHECK(cli_expect(&a, WIRE_FEDERATE_RESIGNED, &m, TO) == 1, "A told B left");
    wire_msg_init(&m, WIRE_RESIGN);
    CHECK_INT_EQ(cli_call(&a, &m, NULL, NULL, 0), STATUS_OK);
    cli_close(&a);
    return hb;
}

/* Find the one *.tlog file in dir. */
static int find_log(const char *dir, char *path, size_t cap)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l > 5 && strcmp(e->d_name + l - 5, ".tlog") == 0) {
            snprintf(path, cap, "%s/%s", dir, e->d_name);
            n++;
        }
    }
    if (d) closedir(d);
    return n;
}

static void check_log(const char *path, int64_t hb)
{
    uint8_t *data = NULL;
    size_t len = 0;
    char err[FLOG_ERR_LEN];
    CHECK(flog_load_file(path, &data, &len, err, sizeof err) == FLOG_OK, "load %s", path);
    if (!data) return;
    struct flog_reader r;
    CHECK(flog_reader_init(&r, data, len, err, sizeof err) == FLOG_OK, "header: %s", err);
    CHECK(r.hdr.federation_len == 6 && memcmp(r.hdr.federation, "logged", 6) == 0,
          "header names the federation");
    CHECK(r.hdr.fom_len > 100, "header carries the FOM text");
    int kinds[FLOG_K_END] = {0}, b_join_first = 0, b_seen_recv = 0, tso_reflect_to_b = 0;
    int grant_b5 = 0, tm_send5 = 0, lost_b = 0, destroyed = 0, deliver_b5 = 0, rc;
    struct flog_record rec;
    while ((rc = flog_reader_next(&r, &rec, err, sizeof err)) == 1) {
        if (rec.kind < FLOG_K_END) kinds[rec.kind]++;
        struct wire_msg m;
        if ((rec.kind == FLOG_K_RECV || rec.kind == FLOG_K_SENT) &&
            wire_decode(rec.payload, rec.payload_len, &m, err, sizeof err) != WIRE_OK) {
            CHECK(0, "record %llu: frame does not decode: %s", (unsigned long long)rec.index, err);
            continue;
        }
        if (rec.kind == FLOG_K_RECV && rec.fed == (uint32_t)hb && !b_seen_recv) {
            b_seen_recv = 1;
            b_join_first = m.type == WIRE_JOIN;
        }
        if (rec.kind == FLOG_K_SENT && rec.fed == (uint32_t)hb && m.type == WIRE_REFLECT &&
            m.code == WIRE_ORDER_TSO && m.time == 5)
            tso_reflect_to_b++;
        /* the grant was stored as its fields (no text: the RTI formatted none) and words
         * as the engine would have said it */
        if (rec.kind == FLOG_K_DECISION && rec.fed == (uint32_t)hb && rec.dec.kind == TM_D_GRANT &&
            rec.dec.time == 5) {
            char why[256];
            tm_fed h = rec.dec.grant.holder;
            const char *holder = h == 0 ? NULL : h == hb ? "B" : "A";
            flog_grant_text(why, sizeof why, &rec.dec, "B", holder);
            CHECK_INT_EQ(rec.dec.grant.row, TM_GROW_TAR);
            CHECK_INT_EQ(rec.dec.reason_len, 0);
            CHECK_STR_EQ(why, "TAR(5): GALT (11, non-strict) > 5, held by A"); /* A: TAR(10) + 1 */
            grant_b5++;
        }
        /* the engine's real delivery reason was recognised and written as a code */
        if (rec.kind == FLOG_K_DECISION && rec.fed == (uint32_t)hb &&
            rec.dec.kind == TM_D_DELIVER && rec.dec.time == 5 && rec.dec.why != 0 &&
            rec.dec.reason == flog_why_text(rec.dec.why)) /* the table's text: none stored */
            deliver_b5++;
        if (rec.kind == FLOG_K_TM_SEND && rec.send.ts == 5 && rec.send.n == 1 &&
            flog_tm_send_receiver(&rec.send, 0) == (uint32_t)hb)
            tm_send5++;
        if (rec.kind == FLOG_K_LOST && rec.fed == (uint32_t)hb) lost_b++;
        if (rec.kind == FLOG_K_NOTE && rec.payload_len >= 20 &&
            memcmp(rec.payload, "federation destroyed", 20) == 0)
            destroyed++;
    }
    CHECK_INT_EQ(rc, 0); /* a clean end, not a cut */
    CHECK_INT_EQ(kinds[FLOG_K_JOINED], 2);
    /* A: JOIN PUBLISH REGISTER ENABLE_REGULATION UPDATE TIME_REQUEST RESIGN;
     * B: JOIN SUBSCRIBE ENABLE_CONSTRAINED TIME_REQUEST. */
    CHECK_INT_EQ(kinds[FLOG_K_RECV], 11);
    CHECK(kinds[FLOG_K_SENT] >= 12, "SENT records: %d", kinds[FLOG_K_SENT]);
    CHECK(b_join_first, "B's first received frame is its JOIN");
    CHECK_INT_EQ(tso_reflect_to_b, 1);
    CHECK_INT_EQ(grant_b5, 1);
    CHECK_INT_EQ(deliver_b5, 1);
    CHECK_INT_EQ(tm_send5, 1);
    CHECK_INT_EQ(lost_b, 1);
    CHECK_INT_EQ(destroyed, 1);
    free(data);
}

int main(void)
{
    char *fom_text = h_slurp("fom/test.xml");
    struct fom *fom = NULL;
    if (!fom_text || fom_parse_mem(fom_text, strlen(fom_text), "test.xml", &fom, NULL, 0)) {
        CHECK(0, "fom/test.xml parses");
        return check_summary();
    }
    char dir[128];
    snprintf(dir, sizeof dir, "build/test-logs/rti_flog.%d", (int)getpid());
    mkdir("build/test-logs", 0755);
    CHECK(mkdir(dir, 0755) == 0, "create %s", dir);
    const char *args[] = {"--log", dir, NULL};
    struct rti_proc p;
    if (rti_start(&p, args, "rti_flog") != 0) {
        CHECK(0, "the RTI starts with --log");
        return check_summary();
    }
    int64_t hb = run_federation(p.port, fom_text, fom);
    /* The RTI destroyed the federation, and closed its log, when its last federate resigned
     * (doc/rti.md): a DESTROY finds nothing; then stop the RTI. */
    struct cli c;
    struct wire_msg m;
    CHECK(cli_connect(&c, p.port) == 0 && cli_hello(&c) == 0, "connect");
    wire_msg_init(&m, WIRE_DESTROY_FEDERATION);
    wire_str_set(&m.str[0], "logged");
    CHECK_INT_EQ(cli_call(&c, &m, NULL, NULL, 0), STATUS_ENOTFOUND);
    cli_close(&c);
    CHECK_INT_EQ(rti_stop(&p, 5000), 0);
    char path[512];
    CHECK_INT_EQ(find_log(dir, path, sizeof path), 1);
    check_log(path, hb);
    if (check_failed_ == 0) { /* keep the evidence of a failure, nothing otherwise */
        unlink(path);
        rmdir(dir);
    }
    fom_free(fom);
    free(fom_text);
    return check_summary();
}
