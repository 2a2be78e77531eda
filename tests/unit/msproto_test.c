/* Tests of the master-slave protocol's codec (federate/msproto/msproto.h, doc/master.md): every
 * kind round-trips bit for bit (NaN, -0, subnormals included), every truncation and every
 * single-byte corruption of the header is refused or decodes to a command that passes the
 * kind's checks, counts that do not fit the kind are refused, batches of commands and of
 * replies split back into their records at every cut (and refuse a cut record), and the
 * generated FOM parses. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "federate/config/fedfile.h"
#include "federate/config/fedfile_algo.h"
#include "federate/msproto/msproto.h"
#include "fom/fom.h"
#include "tests/check.h"

static int same_bits(const double *a, const double *b, size_t n)
{
    return n == 0 || memcmp(a, b, n * sizeof *a) == 0;
}

static void round_trip_cmd(msproto_cmd c)
{
    unsigned char buf[4096];
    size_t len = 0;
    char err[MSPROTO_ERRLEN] = "";
    int rc = msproto_cmd_encode(&c, buf, sizeof buf, &len, err, sizeof err);
    CHECK(rc == MSPROTO_OK, "encode %s: %s", msproto_kind_name((int)c.kind), err);
    CHECK_INT_EQ(len, msproto_cmd_size(c.n_v, c.n_tv));
    double v[64];
    int64_t tv[64];
    msproto_cmd d;
    rc = msproto_cmd_decode(buf, len, &d, v, 64, tv, 64, err, sizeof err);
    CHECK(rc == MSPROTO_OK, "decode %s: %s", msproto_kind_name((int)c.kind), err);
    CHECK_INT_EQ(d.kind, c.kind);
    CHECK_INT_EQ(d.seq, c.seq);
    CHECK_INT_EQ(d.t, c.t);
    CHECK_INT_EQ(d.arg, c.arg);
    CHECK_INT_EQ(d.n_v, c.n_v);
    CHECK_INT_EQ(d.n_tv, c.n_tv);
    CHECK(same_bits(d.v, c.v, c.n_v), "values of %s differ", msproto_kind_name((int)c.kind));
    CHECK(c.n_tv == 0 || memcmp(d.tv, c.tv, c.n_tv * 8) == 0, "times differ");
    /* Every truncation is refused. */
    int refused = 0;
    for (size_t k = 0; k < len; k++)
        refused +=
            msproto_cmd_decode(buf, k, &d, v, 64, tv, 64, err, sizeof err) == MSPROTO_EMALFORMED;
    CHECK_INT_EQ(refused, len);
    /* One byte too many is refused. */
    buf[len] = 0;
    CHECK_INT_EQ(msproto_cmd_decode(buf, len + 1, &d, v, 64, tv, 64, err, sizeof err),
                 MSPROTO_EMALFORMED);
    /* Any single header byte changed: refused, or a command that fits its kind. */
    for (size_t k = 0; k < 26; k++) {
        for (int bit = 0; bit < 8; bit++) {
            buf[k] ^= (unsigned char)(1u << bit);
            rc = msproto_cmd_decode(buf, len, &d, v, 64, tv, 64, err, sizeof err);
            if (rc == MSPROTO_OK)
                CHECK_INT_EQ(msproto_cmd_check(&d, err, sizeof err), MSPROTO_OK);
            else
                CHECK(rc == MSPROTO_EMALFORMED || rc == MSPROTO_ESPACE, "rc %d", rc);
            buf[k] ^= (unsigned char)(1u << bit);
        }
    }
}

static void test_commands(void)
{
    double odd[6] = {1.5, -0.0, NAN, INFINITY, 4.9e-324, -1e308};
    int64_t times[3] = {INT64_MIN, 0, INT64_MAX};
    round_trip_cmd(
        (msproto_cmd){.kind = MSP_SET_INPUTS, .seq = 1, .t = 123, .arg = 2, .n_v = 6, .v = odd});
    round_trip_cmd((msproto_cmd){.kind = MSP_STEP, .seq = 2, .t = INT64_MAX, .arg = 10});
    round_trip_cmd((msproto_cmd){.kind = MSP_GET_OUTPUTS, .seq = UINT32_MAX});
    round_trip_cmd((msproto_cmd){.kind = MSP_GET_OUTPUT_DERIVS, .seq = 4, .arg = PORT_MAX_ORDER});
    round_trip_cmd((msproto_cmd){.kind = MSP_GET_DISCRETE, .seq = 5});
    round_trip_cmd((msproto_cmd){
        .kind = MSP_SET_DISCRETE, .seq = 6, .n_v = 3, .v = odd, .n_tv = 3, .tv = times});
    round_trip_cmd((msproto_cmd){.kind = MSP_GET_STATES, .seq = 7});
    round_trip_cmd((msproto_cmd){.kind = MSP_SET_STATES, .seq = 8, .t = -5, .n_v = 4, .v = odd});
    round_trip_cmd((msproto_cmd){.kind = MSP_GET_DERIVATIVES, .seq = 9});
    round_trip_cmd((msproto_cmd){.kind = MSP_GET_DIRECTIONAL, .seq = 10, .n_v = 2, .v = odd});
    round_trip_cmd((msproto_cmd){.kind = MSP_SAVE, .seq = 11, .arg = PORT_SLOTS - 1});
    round_trip_cmd((msproto_cmd){.kind = MSP_RESTORE, .seq = 12, .arg = 0});
    round_trip_cmd((msproto_cmd){.kind = MSP_RECORD, .seq = 13});
    round_trip_cmd((msproto_cmd){.kind = MSP_CLOSE, .seq = 14, .t = 77});
    round_trip_cmd((msproto_cmd){.kind = MSP_END, .seq = 15});
    round_trip_cmd((msproto_cmd){.kind = MSP_HELLO, .seq = 16});
    round_trip_cmd((msproto_cmd){.kind = MSP_SHARE, .seq = 17, .t = 5});
    CHECK_STR_EQ(msproto_kind_name(MSP_HELLO), "hello");
    CHECK_STR_EQ(msproto_kind_name(MSP_SHARE), "share");
    CHECK_STR_EQ(msproto_kind_name(MSP_KIND_MAX + 1), "?");
    /* The slave's description survives a hello reply; nonsense numbers are refused. */
    port_slave_info in = {.n_in = 3,
                          .n_out = 2,
                          .n_state = 5,
                          .n_discrete = 1,
                          .can_save = 1,
                          .max_output_deriv = 2,
                          .is_me = 1},
                    back = {0};
    double hv[MSPROTO_INFO_N];
    msproto_info_encode(&in, hv);
    char e[MSPROTO_ERRLEN];
    CHECK_INT_EQ(msproto_info_decode(hv, &back, e, sizeof e), MSPROTO_OK);
    CHECK(back.n_in == 3 && back.n_out == 2 && back.n_state == 5 && back.n_discrete == 1 &&
              back.can_save == 1 && back.max_output_deriv == 2 && back.is_me == 1 &&
              back.has_directional == 0,
          "info round trip");
    hv[1] = 2.5;
    CHECK_INT_EQ(msproto_info_decode(hv, &back, e, sizeof e), MSPROTO_EMALFORMED);
    hv[1] = 2;
    hv[4] = NAN;
    CHECK_INT_EQ(msproto_info_decode(hv, &back, e, sizeof e), MSPROTO_EMALFORMED);
    /* The output-to-state map after the numbers: 1 + the state, 0 for "not a state". */
    static const long map[2] = {4, -1};
    long mback[2] = {7, 7};
    double mv[2];
    in.out_state = map;
    CHECK_INT_EQ((long)msproto_info_map_encode(&in, mv), 2);
    CHECK(mv[0] == 5 && mv[1] == 0, "map encoded as 5, 0");
    CHECK_INT_EQ(msproto_info_map_decode(mv, 2, 5, mback, e, sizeof e), MSPROTO_OK);
    CHECK(mback[0] == 4 && mback[1] == -1, "map round trip");
    CHECK_INT_EQ(msproto_info_map_decode(mv, 2, 4, mback, e, sizeof e), MSPROTO_EMALFORMED);
    CHECK_STR_HAS(e, "output 0's state is 5");
    in.out_state = NULL;
    msproto_info_map_encode(&in, mv);
    CHECK(mv[0] == 0 && mv[1] == 0, "no map: zeros");
    mv[1] = 0.5;
    CHECK_INT_EQ(msproto_info_map_decode(mv, 2, 5, mback, e, sizeof e), MSPROTO_EMALFORMED);

    /* Counts that do not fit the kind are refused at encode, with the kind's name. */
    unsigned char buf[512];
    size_t len;
    char err[MSPROTO_ERRLEN];
    struct {
        msproto_cmd c;
        const char *says;
    } bad[] = {
        {{.kind = MSP_SET_INPUTS, .arg = 1, .n_v = 3, .v = odd}, "multiple of order"},
        {{.kind = MSP_SET_INPUTS, .arg = PORT_MAX_ORDER + 1}, "order"},
        {{.kind = MSP_STEP, .arg = -1}, "sub-steps"},
        {{.kind = MSP_GET_OUTPUT_DERIVS, .arg = 0}, "order 0"},
        {{.kind = MSP_SET_DISCRETE, .n_v = 2, .v = odd, .n_tv = 1, .tv = times}, "event times"},
        {{.kind = MSP_SAVE, .arg = PORT_SLOTS}, "slot"},
        {{.kind = MSP_RESTORE, .arg = -1}, "slot"},
        {{.kind = MSP_GET_OUTPUTS, .n_v = 1, .v = odd}, "no values"},
        {{.kind = MSP_SET_STATES, .n_tv = 1, .tv = times}, "no times"},
        {{.kind = (msproto_kind)0}, "unknown command kind"},
        {{.kind = (msproto_kind)(MSP_KIND_MAX + 1)}, "unknown command kind"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        err[0] = 0;
        CHECK_INT_EQ(msproto_cmd_encode(&bad[k].c, buf, sizeof buf, &len, err, sizeof err),
                     MSPROTO_EMALFORMED);
        CHECK_STR_HAS(err, bad[k].says);
    }
    /* A buffer too small, and a decode into too little room. */
    msproto_cmd c = {.kind = MSP_SET_STATES, .n_v = 6, .v = odd};
    CHECK_INT_EQ(msproto_cmd_encode(&c, buf, 40, &len, err, sizeof err), MSPROTO_ESPACE);
    CHECK_INT_EQ(msproto_cmd_encode(&c, buf, sizeof buf, &len, err, sizeof err), MSPROTO_OK);
    double v[2];
    msproto_cmd d;
    CHECK_INT_EQ(msproto_cmd_decode(buf, len, &d, v, 2, NULL, 0, err, sizeof err), MSPROTO_ESPACE);
    /* A wrong version, and counts past the limit, are named. */
    buf[0] = 9;
    CHECK_INT_EQ(msproto_cmd_decode(buf, len, &d, v, 2, NULL, 0, err, sizeof err),
                 MSPROTO_EMALFORMED);
    CHECK_STR_HAS(err, "version 9");
    buf[0] = MSPROTO_VERSION;
    buf[21] = 0x7f; /* n_v's top byte */
    CHECK_INT_EQ(msproto_cmd_decode(buf, len, &d, v, 2, NULL, 0, err, sizeof err),
                 MSPROTO_EMALFORMED);
    CHECK_STR_HAS(err, "at most");
}

static void test_replies(void)
{
    double y[4] = {1.0 / 3, -0.0, 2e-310, 7};
    int64_t t[4] = {1, 2, INT64_MIN, 4};
    msproto_reply cases[] = {
        {.kind = MSP_STEP,
         .seq = 3,
         .status = PORT_EVENT,
         .t = 999,
         .event = 1,
         .n_sub_done = 2,
         .n_v = 4,
         .v = y},
        {.kind = MSP_GET_DISCRETE, .seq = 4, .n_v = 4, .v = y, .n_tv = 4, .tv = t},
        {.kind = MSP_SAVE,
         .seq = 5,
         .status = PORT_EUNSUPPORTED,
         .msg = "prey: the FMU cannot save its state"},
        {.kind = MSP_END, .seq = 6},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        unsigned char buf[1024];
        size_t len;
        char err[MSPROTO_ERRLEN], msg[MSPROTO_MAX_MSG + 1];
        msproto_reply *r = &cases[k], d;
        int rc = msproto_reply_encode(r, buf, sizeof buf, &len, err, sizeof err);
        CHECK(rc == MSPROTO_OK, "encode reply %zu: %s", k, err);
        double v[8];
        int64_t tv[8];
        rc = msproto_reply_decode(buf, len, &d, v, 8, tv, 8, msg, sizeof msg, err, sizeof err);
        CHECK(rc == MSPROTO_OK, "decode reply %zu: %s", k, err);
        CHECK_INT_EQ(d.kind, r->kind);
        CHECK_INT_EQ(d.seq, r->seq);
        CHECK_INT_EQ(d.status, r->status);
        CHECK_INT_EQ(d.t, r->t);
        CHECK_INT_EQ(d.event, r->event);
        CHECK_INT_EQ(d.n_sub_done, r->n_sub_done);
        CHECK_INT_EQ(d.n_v, r->n_v);
        CHECK(same_bits(d.v, r->v, r->n_v), "reply %zu values differ", k);
        CHECK(r->n_tv == 0 || memcmp(d.tv, r->tv, r->n_tv * 8) == 0, "reply %zu times", k);
        CHECK_STR_EQ(d.msg, r->msg ? r->msg : "");
        int refused = 0;
        for (size_t n = 0; n < len; n++)
            refused += msproto_reply_decode(buf, n, &d, v, 8, tv, 8, msg, sizeof msg, err,
                                            sizeof err) == MSPROTO_EMALFORMED;
        CHECK_INT_EQ(refused, len);
    }
    /* A status outside the port's codes, a NUL inside the message. */
    unsigned char buf[1024];
    size_t len;
    char err[MSPROTO_ERRLEN], msg[MSPROTO_MAX_MSG + 1];
    msproto_reply r = {.kind = MSP_STEP, .status = -99};
    CHECK_INT_EQ(msproto_reply_encode(&r, buf, sizeof buf, &len, err, sizeof err),
                 MSPROTO_EMALFORMED);
    CHECK_STR_HAS(err, "not a port status");
    r = (msproto_reply){.kind = MSP_STEP, .status = PORT_EFAIL, .msg = "abc"};
    CHECK_INT_EQ(msproto_reply_encode(&r, buf, sizeof buf, &len, err, sizeof err), MSPROTO_OK);
    buf[len - 2] = 0;
    msproto_reply d;
    CHECK_INT_EQ(
        msproto_reply_decode(buf, len, &d, NULL, 0, NULL, 0, msg, sizeof msg, err, sizeof err),
        MSPROTO_EMALFORMED);
    CHECK_STR_HAS(err, "NUL");
    /* A long message is cut, not refused. */
    char longmsg[1000];
    memset(longmsg, 'x', sizeof longmsg - 1);
    longmsg[sizeof longmsg - 1] = 0;
    r.msg = longmsg;
    CHECK_INT_EQ(msproto_reply_encode(&r, buf, sizeof buf, &len, err, sizeof err), MSPROTO_OK);
    CHECK_INT_EQ(
        msproto_reply_decode(buf, len, &d, NULL, 0, NULL, 0, msg, sizeof msg, err, sizeof err),
        MSPROTO_OK);
    CHECK_INT_EQ(strlen(d.msg), MSPROTO_MAX_MSG);
}

static void test_fom(void)
{
    fedfile_fed feds[3] = {{.name = "prey"}, {.name = "predator"}, {.name = "a-b"}};
    fedfile ff = {.federation = "lv", .resolution = 1e-9, .n_feds = 3, .feds = feds};
    char *xml = NULL;
    char err[MSPROTO_ERRLEN];
    CHECK_INT_EQ(msproto_fom_xml(&ff, &xml, err, sizeof err), MSPROTO_OK);
    struct fom *f = NULL;
    char ferr[FOM_ERRLEN];
    int rc = fom_parse_mem(xml, strlen(xml), "generated", &f, ferr, sizeof ferr);
    CHECK(rc == FOM_OK, "%s\n%s", ferr, xml);
    CHECK_STR_HAS(xml, "resolution=\"1e-09\"");
    if (rc == FOM_OK) {
        char name[32];
        for (size_t i = 0; i < ff.n_feds; i++) {
            msproto_slave_class(i, name, sizeof name);
            CHECK(fom_class_find(f, name) != FOM_NONE, "no class %s", name);
            msproto_command_class(i, name, sizeof name);
            CHECK(fom_inter_find(f, name) != FOM_NONE, "no interaction %s", name);
        }
        /* The master's notes: a string and two float64 parameters, as tempo-log decodes them. */
        fom_handle note = fom_inter_find(f, MSPROTO_NOTE_CLASS);
        CHECK(note != FOM_NONE, "no interaction %s", MSPROTO_NOTE_CLASS);
        if (note != FOM_NONE) {
            CHECK_INT_EQ(fom_param_type(f, fom_param_find(f, note, MSPROTO_NOTE_WHAT)),
                         FOM_T_STRING);
            CHECK_INT_EQ(fom_param_type(f, fom_param_find(f, note, MSPROTO_NOTE_VALUE)),
                         FOM_T_FLOAT64);
            CHECK_INT_EQ(fom_param_type(f, fom_param_find(f, note, MSPROTO_NOTE_AT)),
                         FOM_T_FLOAT64);
        }
    }
    fom_free(f);
    free(xml);
    /* The hybrid method adds the slaves' own channel Share<i>.discrete; others have none. */
    char name[32];
    msproto_share_class(1, name, sizeof name);
    CHECK_STR_EQ(name, "Share1");
    ff.algo.needs = FEDFILE_NEEDS_BUS; /* hybrid's */
    CHECK_INT_EQ(msproto_fom_xml(&ff, &xml, err, sizeof err), MSPROTO_OK);
    CHECK_STR_HAS(xml, "<class name=\"Share2\"><attribute name=\"discrete\"");
    rc = fom_parse_mem(xml, strlen(xml), "generated", &f, ferr, sizeof ferr);
    CHECK(rc == FOM_OK, "%s\n%s", ferr, xml);
    fom_free(f);
    free(xml);
}

/* A share between slaves is an MSP_SHARE reply body carrying values and their event times. */
static void test_share_body(void)
{
    double v[2] = {9, 3};
    int64_t tv[2] = {200000001, INT64_MIN};
    msproto_reply r = {.kind = MSP_SHARE, .t = 42, .n_v = 2, .v = v, .n_tv = 2, .tv = tv}, d;
    unsigned char buf[256];
    size_t len = 0;
    char err[MSPROTO_ERRLEN], msg[MSPROTO_MAX_MSG + 1];
    double dv[2];
    int64_t dt[2];
    CHECK_INT_EQ(msproto_reply_encode(&r, buf, sizeof buf, &len, err, sizeof err), MSPROTO_OK);
    CHECK_INT_EQ(msproto_reply_decode(buf, len, &d, dv, 2, dt, 2, msg, sizeof msg, err, sizeof err),
                 MSPROTO_OK);
    CHECK(d.kind == MSP_SHARE && d.t == 42 && d.n_v == 2 && d.n_tv == 2 && dv[0] == 9 &&
              dt[0] == 200000001 && dt[1] == INT64_MIN,
          "share body");
    r.n_tv = 1; /* values without their times are refused */
    CHECK_INT_EQ(msproto_reply_encode(&r, buf, sizeof buf, &len, err, sizeof err),
                 MSPROTO_EMALFORMED);
}

/* Batches (msproto.h "Batches"): commands and replies back to back split into the very
 * records encoded, in order; a batch cut anywhere inside a record is refused at that record,
 * the records before it still split. */
static void test_batches(void)
{
    double c[6] = {1, 2, 3, 4, 5, 6};
    msproto_cmd cmds[] = {
        {.kind = MSP_RESTORE, .seq = 1, .arg = 0},
        {.kind = MSP_SET_INPUTS, .seq = 2, .t = 7, .arg = 2, .n_v = 6, .v = c},
        {.kind = MSP_STEP, .seq = 3, .t = 100, .arg = 3},
    };
    unsigned char buf[1024];
    size_t at = 0, ends[3];
    char err[MSPROTO_ERRLEN];
    for (size_t k = 0; k < 3; k++) {
        size_t len = 0;
        CHECK_INT_EQ(msproto_cmd_encode(&cmds[k], buf + at, sizeof buf - at, &len, err, sizeof err),
                     MSPROTO_OK);
        ends[k] = at += len;
    }
    for (size_t cut = 0; cut <= at; cut++) {
        size_t off = 0, got = 0, n = 0;
        int rc = MSPROTO_OK;
        while (off < cut &&
               (rc = msproto_cmd_span(buf + off, cut - off, &n, err, sizeof err)) == MSPROTO_OK) {
            msproto_cmd d;
            double v[8];
            int64_t tv[8];
            CHECK_INT_EQ(msproto_cmd_decode(buf + off, n, &d, v, 8, tv, 8, err, sizeof err),
                         MSPROTO_OK);
            CHECK(d.kind == cmds[got].kind && d.seq == cmds[got].seq && d.t == cmds[got].t &&
                      d.n_v == cmds[got].n_v && same_bits(d.v, cmds[got].v, d.n_v),
                  "cut %zu: command %zu differs", cut, got);
            off += n, got++;
        }
        size_t whole = 0; /* the records wholly inside the cut */
        while (whole < 3 && ends[whole] <= cut)
            whole++;
        CHECK(got == whole, "cut %zu: %zu commands split, %zu whole", cut, got, whole);
        CHECK(off == cut ? rc == MSPROTO_OK : rc == MSPROTO_EMALFORMED, "cut %zu: rc %d", cut, rc);
    }
    /* Replies: the message length counts; a count over the limit is refused. */
    msproto_reply reps[] = {{.kind = MSP_RESTORE, .seq = 1, .t = 5},
                            {.kind = MSP_STEP, .seq = 3, .status = PORT_EFAIL, .msg = "broken"},
                            {.kind = MSP_STEP, .seq = 4, .n_v = 2, .v = c}};
    at = 0;
    for (size_t k = 0; k < 3; k++) {
        size_t len = 0;
        CHECK_INT_EQ(
            msproto_reply_encode(&reps[k], buf + at, sizeof buf - at, &len, err, sizeof err),
            MSPROTO_OK);
        at += len;
    }
    size_t off = 0, got = 0, n = 0;
    while (off < at && msproto_reply_span(buf + off, at - off, &n, err, sizeof err) == MSPROTO_OK) {
        msproto_reply d;
        double v[8];
        int64_t tv[8];
        char msg[MSPROTO_MAX_MSG + 1];
        CHECK_INT_EQ(
            msproto_reply_decode(buf + off, n, &d, v, 8, tv, 8, msg, sizeof msg, err, sizeof err),
            MSPROTO_OK);
        CHECK(d.seq == reps[got].seq && d.status == reps[got].status, "reply %zu: seq %u status %d",
              got, (unsigned)d.seq, (int)d.status);
        off += n, got++;
    }
    CHECK(got == 3 && off == at, "3 replies split (%zu, %zu of %zu bytes)", got, off, at);
    buf[26] = 0xff, buf[27] = 0xff, buf[28] = 0xff; /* the first reply's n_v: past the limit */
    CHECK_INT_EQ(msproto_reply_span(buf, at, &n, err, sizeof err), MSPROTO_EMALFORMED);
    CHECK_STR_HAS(err, "at most");
    buf[0] = 2;
    CHECK_INT_EQ(msproto_cmd_span(buf, at, &n, err, sizeof err), MSPROTO_EMALFORMED);
    CHECK_STR_HAS(err, "version");
    CHECK_INT_EQ(msproto_cmd_span(NULL, 3, &n, err, sizeof err), MSPROTO_EUSAGE);
}

int main(void)
{
    test_commands();
    test_replies();
    test_fom();
    test_share_body();
    test_batches();
    return check_summary();
}
