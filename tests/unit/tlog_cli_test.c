/* Tests of tempo-log (rti/tlog/tlog_*.c, doc/log.md): logs of synthetic federations
 * are written with the real writer and real wire frames, then the tool of the same build
 * (TLOG_BIN) is run on them: json accounts for every record, trace is valid trace-event JSON
 * (parsed with jansson, required keys checked per event), csv has the expected columns and
 * held values, explain names the federate that holds a stalled one, show filters, stats
 * counts and waiting times, cut / unknown-version logs are reported clearly, and replay
 * matches an unchanged federate to the end and reports the step where a changed one departs;
 * a shared secret shows in no subcommand (only the writer's note, or "not shown").
 * The replayed federate is this binary itself started with --fake-fed (a small federate that
 * speaks the wire protocol directly), so the test needs no RTI and no libtempo. */
#include <arpa/inet.h>
#include <jansson.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rti/flog/flog.h"
#include "rti/proto/wire.h"
#include "tests/check.h"

#ifndef TLOG_BIN
#define TLOG_BIN "bin/tempo-log"
#endif

/* A check whose condition, printed by CHECK, says all. */
#define EXPECT(cond) CHECK(cond, "expected to hold")

static char dir[] = "/tmp/tlog_test.XXXXXX";
static const char *self; /* argv[0]: the replay test runs this binary as the federate */
static int64_t fake_now;
static struct buf fb;

/* Fake clock: every record 1 ms after the previous one, so waits are exact. */
static int64_t tick_clock(void *ctx)
{
    (void)ctx;
    fake_now += 1000000;
    return fake_now;
}

static const char *fom_xml =
    "<fom name=\"balls\"><time resolution=\"0.001\"/><objects>"
    "<class name=\"Ball\"><attribute name=\"x\" type=\"float64\"/>"
    "<attribute name=\"n\" type=\"int64\"/></class></objects>"
    "<interactions><interaction name=\"Kick\"><parameter name=\"force\" type=\"float64\"/>"
    "</interaction></interactions></fom>";

static struct flog *open_log(const char *name, const char *fed)
{
    char path[256], err[FLOG_ERR_LEN];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct flog_info info = {fed, fom_xml, strlen(fom_xml), "0.001", 1700000000000000000LL};
    fake_now = info.start_wall_ns;
    struct flog *l = NULL;
    CHECK_INT_EQ(flog_open(&l, path, &info, err, sizeof err), FLOG_OK);
    flog_set_clock(l, tick_clock, NULL);
    return l;
}

/* Log one frame (kind RECV or SENT) made from m. */
static void put(struct flog *l, enum flog_kind k, uint32_t fed, const struct wire_msg *m)
{
    char err[256];
    buf_clear(&fb);
    int rc = wire_encode(&fb, m, 0, err, sizeof err);
    if (rc != WIRE_OK) fprintf(stderr, "wire_encode %s: %s\n", wire_type_name(m->type), err);
    CHECK_INT_EQ(rc, WIRE_OK);
    CHECK_INT_EQ(flog_frame(l, k, fed, fb.data, fb.len), FLOG_OK);
}

static void time_msg(struct flog *l, enum flog_kind k, uint32_t fed, unsigned type, uint32_t code,
                     int64_t t, int64_t t2)
{
    struct wire_msg m;
    wire_msg_init(&m, type);
    m.code = code;
    if (type != WIRE_ENABLE_REGULATION && type != WIRE_ENABLE_CONSTRAINED &&
        type != WIRE_MODIFY_LOOKAHEAD)
        m.time = t;
    if (type == WIRE_ENABLE_REGULATION) m.time2 = t2;
    put(l, k, fed, &m);
}

static void update(struct flog *l, uint32_t fed, uint64_t obj, int64_t t, const double *x,
                   const int64_t *n)
{
    struct wire_value v[2];
    uint32_t nv = 0;
    if (x) v[nv++] = (struct wire_value){1, 8, (const uint8_t *)x};
    if (n) v[nv++] = (struct wire_value){2, 8, (const uint8_t *)n};
    struct wire_msg m;
    wire_msg_init(&m, WIRE_UPDATE);
    m.a = obj;
    m.time = t;
    m.nvalues = nv;
    m.values = v;
    put(l, FLOG_K_RECV, fed, &m);
    wire_msg_init(&m, WIRE_REFLECT);
    m.a = obj;
    m.c = fed;
    m.code = WIRE_ORDER_TSO;
    m.time = t;
    m.nvalues = nv;
    m.values = v;
    uint32_t recv = 2;
    CHECK_INT_EQ(flog_tm_send(l, fed, t, &recv, 1, (uint64_t)t), FLOG_OK);
    put(l, FLOG_K_SENT, 2, &m);
}

/* The "balls" federation: A (1) registers ball1 and updates it at t=10 and t=20 (only x the
 * second time); B (2) subscribes and gets reflections; both advance with TAR. Returns the
 * number of records. */
static uint64_t write_balls(void)
{
    struct flog *l = open_log("balls.tlog", "balls");
    flog_joined(l, 1, "A");
    flog_joined(l, 2, "B");
    time_msg(l, FLOG_K_RECV, 1, WIRE_ENABLE_REGULATION, 0, 0, 5);
    time_msg(l, FLOG_K_SENT, 1, WIRE_REGULATION_ENABLED, 0, 0, 0);
    time_msg(l, FLOG_K_RECV, 2, WIRE_ENABLE_CONSTRAINED, 0, 0, 0);
    time_msg(l, FLOG_K_SENT, 2, WIRE_CONSTRAINED_ENABLED, 0, 0, 0);
    struct wire_msg m;
    wire_msg_init(&m, WIRE_REGISTER_OBJECT);
    m.req = 4;
    m.a = 1;
    wire_str_set(&m.str[0], "ball1");
    put(l, FLOG_K_RECV, 1, &m);
    wire_msg_init(&m, WIRE_REPLY);
    m.req = 4;
    m.a = 1;
    put(l, FLOG_K_SENT, 1, &m);
    wire_msg_init(&m, WIRE_DISCOVER);
    m.a = 1;
    m.b = 1;
    m.c = 1;
    wire_str_set(&m.str[0], "ball1");
    put(l, FLOG_K_SENT, 2, &m);
    double x1 = 1.5, x2 = 2.5;
    int64_t n1 = 3;
    update(l, 1, 1, 10, &x1, &n1);
    time_msg(l, FLOG_K_RECV, 1, WIRE_TIME_REQUEST, WIRE_TR_TAR, 10, 0);
    time_msg(l, FLOG_K_RECV, 2, WIRE_TIME_REQUEST, WIRE_TR_TAR, 10, 0);
    tm_decision d = {.kind = TM_D_GRANT,
                     .fed = 1,
                     .time = 10,
                     .req = TM_REQ_TAR,
                     .reason = "TAR(10): not constrained"};
    flog_decision(l, &d);
    time_msg(l, FLOG_K_SENT, 1, WIRE_TIME_GRANT, WIRE_TR_TAR, 10, 0);
    time_msg(l, FLOG_K_SENT, 2, WIRE_TIME_GRANT, WIRE_TR_TAR, 10, 0);
    /* B's grant as the RTI logs it: its fields only, worded by tempo-log with the names */
    tm_grant_facts facts = {.row = TM_GROW_TAR, .asked = 10, .galt = {12, true}, .holder = 1};
    tm_decision g = {
        .kind = TM_D_GRANT, .fed = 2, .time = 10, .req = TM_REQ_TAR, .reason = "", .grant = &facts};
    flog_decision(l, &g);
    update(l, 1, 1, 20, &x2, NULL);
    wire_msg_init(&m, WIRE_SEND_INTERACTION);
    m.a = 1;
    m.time = 20;
    struct wire_value kv = {1, 8, (const uint8_t *)&x2};
    m.nvalues = 1;
    m.values = &kv;
    put(l, FLOG_K_RECV, 1, &m);
    flog_note(l, 0, "done");
    uint64_t n = flog_records(l);
    char err[FLOG_ERR_LEN];
    CHECK_INT_EQ(flog_close(l, err, sizeof err), FLOG_OK);
    return n;
}

/* The "stall" federation: C (3) is regulating with lookahead 2 and never asks to advance;
 * A (1) is constrained and asks TAR(10); B (2) regulating with lookahead 5 asks TAR(8).
 * Both wait with GALT (2, non-strict) held by C. */
static void write_stall(void)
{
    struct flog *l = open_log("stall.tlog", "stall");
    flog_joined(l, 1, "A");
    flog_joined(l, 2, "B");
    flog_joined(l, 3, "C");
    time_msg(l, FLOG_K_RECV, 3, WIRE_ENABLE_REGULATION, 0, 0, 2);
    time_msg(l, FLOG_K_RECV, 2, WIRE_ENABLE_REGULATION, 0, 0, 5);
    time_msg(l, FLOG_K_RECV, 2, WIRE_ENABLE_CONSTRAINED, 0, 0, 0);
    time_msg(l, FLOG_K_RECV, 1, WIRE_ENABLE_CONSTRAINED, 0, 0, 0);
    time_msg(l, FLOG_K_RECV, 1, WIRE_TIME_REQUEST, WIRE_TR_TAR, 10, 0);
    time_msg(l, FLOG_K_RECV, 2, WIRE_TIME_REQUEST, WIRE_TR_TAR, 8, 0);
    char err[FLOG_ERR_LEN];
    CHECK_INT_EQ(flog_close(l, err, sizeof err), FLOG_OK);
}

/* Run tempo-log with args; stdout and stderr go to files read into *out / *errout (caller
 * frees). Returns the exit status. */
static int run(const char *args, char **out, char **errout)
{
    char cmd[1024], po[300], pe[300];
    snprintf(po, sizeof po, "%s/out.txt", dir);
    snprintf(pe, sizeof pe, "%s/err.txt", dir);
    snprintf(cmd, sizeof cmd, "%s %s >'%s' 2>'%s'", TLOG_BIN, args, po, pe);
    int st = system(cmd);
    const char *paths[2] = {po, pe};
    char **dst[2] = {out, errout};
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(paths[i], "rb");
        size_t cap = 1 << 16, n = 0;
        char *b = malloc(cap);
        while (f && b) {
            if (n + 1 >= cap) {
                char *nb = realloc(b, cap *= 2);
                if (!nb) break;
                b = nb;
            }
            size_t got = fread(b + n, 1, cap - n - 1, f);
            if (got == 0) break;
            n += got;
        }
        if (f) fclose(f);
        if (b) b[n] = '\0';
        *dst[i] = b;
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void test_json(uint64_t nrec)
{
    char *out, *err, args[300];
    snprintf(args, sizeof args, "json %s/balls.tlog", dir);
    CHECK_INT_EQ(run(args, &out, &err), 0);
    CHECK_STR_EQ(err, "");
    /* a grant stored as its fields gets its reason worded */
    CHECK_STR_HAS(out, "\"reason\":\"TAR(10): GALT (12, strict) > 10, held by A\"");
    CHECK_STR_HAS(out, "\"grant\":{\"row\":\"TAR\",\"asked\":10,\"prev\":null,\"galt\":{\"t\":12,"
                       "\"strict\":true},\"holder\":1,\"queued\":false}");
    uint64_t lines = 0, records = 0, expect_seq = 1, bad = 0;
    int header = 0, end = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        lines++;
        json_error_t je;
        json_t *o = json_loads(line, 0, &je);
        if (!o) {
            bad++;
            continue;
        }
        const char *kind = json_string_value(json_object_get(o, "kind"));
        if (kind && strcmp(kind, "HEADER") == 0) {
            header = lines == 1 &&
                     strcmp(json_string_value(json_object_get(o, "federation")), "balls") == 0;
        } else if (kind && strcmp(kind, "END") == 0) {
            end = json_integer_value(json_object_get(o, "records")) == (json_int_t)nrec;
        } else {
            records++;
            /* the fake clock stamps record N at start + N ms (stored as differences) */
            if (json_integer_value(json_object_get(o, "wall_ns")) !=
                1700000000000000000LL + 1000000LL * (json_int_t)expect_seq)
                bad++;
            if (json_integer_value(json_object_get(o, "seq")) != (json_int_t)expect_seq++) bad++;
            if (!json_is_integer(json_object_get(o, "wall_ns"))) bad++;
            if (!json_object_get(o, "federate")) bad++;
            if ((strcmp(kind, "RECV") == 0 || strcmp(kind, "SENT") == 0) &&
                !json_is_object(json_object_get(o, "msg")))
                bad++;
        }
        /* The UPDATE at t=10 carries x=1.5 decoded through the FOM. */
        json_t *msg = json_object_get(o, "msg");
        if (msg && strcmp(json_string_value(json_object_get(msg, "type")), "UPDATE") == 0 &&
            json_integer_value(json_object_get(msg, "time")) == 10) {
            json_t *v0 = json_array_get(json_object_get(msg, "values"), 0);
            CHECK_STR_EQ(json_string_value(json_object_get(v0, "name")), "x");
            CHECK_STR_EQ(json_string_value(json_object_get(v0, "value")), "1.5");
        }
        json_decref(o);
    }
    CHECK_INT_EQ(bad, 0);
    EXPECT(header && end);
    CHECK_INT_EQ(records, nrec);
    CHECK_INT_EQ(lines, nrec + 2);
    free(out);
    free(err);
}

static int has_keys(json_t *ev, const char *const *keys)
{
    for (; *keys; keys++)
        if (!json_object_get(ev, *keys)) return 0;
    return 1;
}

static void test_trace(void)
{
    char *out, *err, args[300];
    snprintf(args, sizeof args, "trace %s/balls.tlog", dir);
    CHECK_INT_EQ(run(args, &out, &err), 0);
    json_error_t je;
    json_t *doc = json_loads(out, 0, &je);
    CHECK(doc != NULL, "trace is not JSON: line %d: %s", je.line, je.text);
    json_t *evs = json_object_get(doc, "traceEvents");
    EXPECT(json_is_array(evs) && json_array_size(evs) > 10);
    static const char *const common[] = {"name", "ph", "pid", "tid", NULL};
    static const char *const timed[] = {"ts", NULL};
    size_t i;
    json_t *ev;
    int bad = 0, nx = 0, ni = 0, ns = 0, nf = 0, nm = 0, thread_a = 0;
    json_int_t sid = -1, fid = -2;
    json_array_foreach(evs, i, ev)
    {
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        if (!has_keys(ev, common) || !ph || !json_is_integer(json_object_get(ev, "pid")) ||
            !json_is_integer(json_object_get(ev, "tid"))) {
            bad++;
            continue;
        }
        if (strcmp(ph, "M") != 0 &&
            (!has_keys(ev, timed) || !json_is_number(json_object_get(ev, "ts"))))
            bad++;
        if (strcmp(ph, "X") == 0) {
            nx++;
            json_t *dur = json_object_get(ev, "dur");
            if (!json_is_number(dur) || json_number_value(dur) < 0) bad++;
        } else if (strcmp(ph, "i") == 0) {
            ni++;
            if (!json_is_string(json_object_get(ev, "s"))) bad++;
        } else if (strcmp(ph, "s") == 0 || strcmp(ph, "f") == 0) {
            if (!json_is_integer(json_object_get(ev, "id"))) bad++;
            if (ph[0] == 's')
                ns++, sid = json_integer_value(json_object_get(ev, "id"));
            else
                nf++, fid = json_integer_value(json_object_get(ev, "id"));
        } else if (strcmp(ph, "M") == 0) {
            nm++;
            const char *nm_ =
                json_string_value(json_object_get(json_object_get(ev, "args"), "name"));
            if (nm_ && strcmp(nm_, "A") == 0 && json_integer_value(json_object_get(ev, "tid")) == 1)
                thread_a = 1;
        } else {
            bad++;
        }
    }
    CHECK_INT_EQ(bad, 0);
    CHECK_INT_EQ(nx, 2); /* A's and B's wait for TAR(10) */
    CHECK_INT_EQ(ns, 2); /* one flow per REFLECT */
    CHECK_INT_EQ(nf, 2);
    EXPECT(sid == fid);
    EXPECT(ni > 10 && nm >= 3 && thread_a);
    /* A waited from its request (record 13) to its grant (record 16): 3 ms = 3000 us. */
    json_array_foreach(evs, i, ev)
    {
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        if (ph && strcmp(ph, "X") == 0 && json_integer_value(json_object_get(ev, "tid")) == 1)
            CHECK_NEAR(json_number_value(json_object_get(ev, "dur")), 3000.0, 1e-6);
    }
    json_decref(doc);
    free(out);
    free(err);
}

static void test_csv(void)
{
    char *out, *err, args[300];
    snprintf(args, sizeof args, "csv %s/balls.tlog", dir);
    CHECK_INT_EQ(run(args, &out, &err), 0);
    /* Resolution 0.001 s: t=10 ticks is 0.01 s. The second row holds n=3. */
    CHECK_STR_EQ(out, "time_s,ticks,ball1.x,ball1.n\n"
                      "0.01,10,1.5,3\n"
                      "0.02,20,2.5,3\n");
    free(out);
    free(err);
}

static void test_explain(void)
{
    char *out, *err, args[300];
    snprintf(args, sizeof args, "explain %s/stall.tlog", dir);
    CHECK_INT_EQ(run(args, &out, &err), 0);
    /* logical times in seconds (this log: 1 ms per tick), ticks in brackets in the table */
    CHECK_STR_HAS(out, "A waits in TAR(0.01 s) at t=0 s with GALT (0.002 s, non-strict), held by "
                       "C\n    root cause: C is not waiting");
    CHECK_STR_HAS(out, "B waits in TAR(0.008 s) at t=0 s with GALT (0.002 s, non-strict), held by "
                       "C\n");
    CHECK_STR_HAS(out, "B t=0 s [0] TAR(0.008 s [8]) reg con, bound (0.013 s [13], non-strict)");
    /* the test's writer wrote no closing record, and the stamps are of 2023 */
    CHECK_STR_HAS(out, "the log ends without the RTI's closing record: the RTI stopped abruptly");
    CHECK_STR_HAS(out, "2023-11-14 22:13:20.009000 UTC, +0.009000 s after the log began");
    free(out);
    free(err);
    /* Before A and B asked to advance (record 8 is A's TAR), nobody waits. */
    snprintf(args, sizeof args, "explain %s/stall.tlog --at 7", dir);
    CHECK_INT_EQ(run(args, &out, &err), 0);
    CHECK_STR_HAS(out, "state after record #7");
    CHECK_STR_HAS(out, "nobody: no federate has a pending request");
    free(out);
    free(err);
    /* the last grant reasons: one recorded as text, one worded from its fields */
    snprintf(args, sizeof args, "explain %s/balls.tlog", dir);
    CHECK_INT_EQ(run(args, &out, &err), 0);
    CHECK_STR_HAS(out, "): TAR(10): not constrained\n");
    CHECK_STR_HAS(out, "): TAR(10): GALT (12, strict) > 10, held by A\n");
    free(out);
    free(err);
}

static void test_show_stats(void)
{
    char *out, *err, args[300];
    snprintf(args, sizeof args, "show %s/balls.tlog --federate B --kind REFLECT", dir);
    CHECK_INT_EQ(run(args, &out, &err), 0);
    CHECK_STR_HAS(out, "2 of ");
    CHECK_STR_HAS(out, "REFLECT object=1(ball1) class=Ball from=A TSO");
    EXPECT(!strstr(out, "UPDATE"));
    free(out);
    free(err);
    snprintf(args, sizeof args, "show %s/balls.tlog --class Kick", dir);
    CHECK_INT_EQ(run(args, &out, &err), 0);
    CHECK_STR_HAS(out, "SEND_INTERACTION interaction=Kick t=0.02s [20] force=2.5");
    CHECK_STR_HAS(out, "1 of ");
    free(out);
    free(err);
    snprintf(args, sizeof args, "show %s/balls.tlog --kind UPDATE --from 0.015", dir);
    CHECK_INT_EQ(run(args, &out, &err), 0);
    CHECK_STR_HAS(out, "1 of ");
    CHECK_STR_HAS(out, "t=0.02s [20]");
    free(out);
    free(err);
    snprintf(args, sizeof args, "show %s/balls.tlog --kind DECISION --federate B", dir);
    CHECK_INT_EQ(run(args, &out, &err), 0);
    CHECK_STR_HAS(out, "GRANT TAR t=0.01s [10]: TAR(10): GALT (12, strict) > 10, held by A\n");
    free(out);
    free(err);
    snprintf(args, sizeof args, "show %s/balls.tlog --bogus 1", dir);
    CHECK_INT_EQ(run(args, &out, &err), 2);
    CHECK_STR_HAS(err, "unknown option '--bogus'");
    free(out);
    free(err);
    snprintf(args, sizeof args, "stats %s/balls.tlog", dir);
    CHECK_INT_EQ(run(args, &out, &err), 0);
    /* A: requests 1, grants 1, waited 3 ms (records 15 -> 18). */
    CHECK_STR_HAS(out, "\nA  ");
    CHECK_STR_HAS(out, "0.003000");
    CHECK_STR_HAS(out, "TIME_REQUEST                    2          0");
    free(out);
    free(err);
}

/* Names and texts that are not UTF-8 (a log holds whatever bytes federates sent) keep every
 * record in json (as hex) and in trace (with '?' for the bad bytes). */
static void test_not_utf8(void)
{
    struct flog *l = open_log("utf.tlog", "u\xff");
    flog_joined(l, 1, "na\xc3\x28me");
    flog_note(l, 1, "x\xe2\x82");
    char err[FLOG_ERR_LEN];
    CHECK_INT_EQ(flog_close(l, err, sizeof err), FLOG_OK);
    char *out, *errout, args[300];
    snprintf(args, sizeof args, "json %s/utf.tlog", dir);
    CHECK_INT_EQ(run(args, &out, &errout), 0);
    CHECK_STR_HAS(out, "\"federation\":{\"hex\":\"75ff\"}");
    CHECK_STR_HAS(out, "\"federate\":{\"hex\":\"6e61c3286d65\"},");
    CHECK_STR_HAS(out, "\"text\":{\"hex\":\"78e282\"}");
    CHECK_STR_HAS(out, "{\"kind\":\"END\",\"records\":2,");
    free(out);
    free(errout);
    snprintf(args, sizeof args, "trace %s/utf.tlog", dir);
    CHECK_INT_EQ(run(args, &out, &errout), 0);
    json_error_t je;
    json_t *doc = json_loads(out, 0, &je);
    CHECK(doc != NULL, "trace is not JSON: %s", je.text);
    CHECK_INT_EQ(json_array_size(json_object_get(doc, "traceEvents")), 5); /* 3 M + 2 i */
    CHECK_STR_HAS(out, "\"name\":\"na?(me\"");
    json_decref(doc);
    free(out);
    free(errout);
}

/* A shared secret never shows (doc/log.md "Secrets"): a log written before the writer replaced
 * secrets (its JOIN, CREATE and DESTROY frames logged as they came) prints "not shown" in every
 * subcommand; one written through flog_frame_client holds and prints the verdict instead. */
static void test_secrets(void)
{
    const char *secret = "s3cr3t-bytes-XYZ";
    struct flog *l = open_log("old.tlog", "sec");
    flog_joined(l, 1, "A");
    struct wire_msg m;
    wire_msg_init(&m, WIRE_JOIN);
    m.req = 1;
    wire_str_set(&m.str[0], "sec");
    wire_str_set(&m.str[1], "A");
    wire_str_set(&m.str[3], secret);
    put(l, FLOG_K_RECV, 1, &m); /* as a writer before the notes did */
    wire_msg_init(&m, WIRE_CREATE_FEDERATION);
    m.req = 2;
    wire_str_set(&m.str[0], "other");
    wire_str_set(&m.str[2], secret);
    put(l, FLOG_K_RECV, 1, &m);
    wire_msg_init(&m, WIRE_DESTROY_FEDERATION);
    m.req = 3;
    wire_str_set(&m.str[0], "other");
    wire_str_set(&m.str[1], secret);
    put(l, FLOG_K_RECV, 1, &m);
    char err[FLOG_ERR_LEN];
    CHECK_INT_EQ(flog_close(l, err, sizeof err), FLOG_OK);
    const char *subs[] = {"show", "json", "csv", "trace"};
    char *out, *errout, args[300];
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        snprintf(args, sizeof args, "%s %s/old.tlog", subs[i], dir);
        CHECK_INT_EQ(run(args, &out, &errout), 0);
        CHECK(out && !strstr(out, secret), "tempo-log %s prints an old log's secret", subs[i]);
        if (i < 2) CHECK_STR_HAS(out, FLOG_SECRET_HIDDEN);
        free(out);
        free(errout);
    }
    /* The writer's way: the bytes never reach the file, the verdict does. */
    l = open_log("new.tlog", "sec");
    flog_joined(l, 1, "A");
    wire_msg_init(&m, WIRE_JOIN);
    m.req = 1;
    wire_str_set(&m.str[0], "sec");
    wire_str_set(&m.str[1], "A");
    wire_str_set(&m.str[3], secret);
    buf_clear(&fb);
    CHECK_INT_EQ(wire_encode(&fb, &m, 0, err, sizeof err), WIRE_OK);
    struct wire_msg d;
    CHECK_INT_EQ(wire_decode(fb.data, fb.len, &d, err, sizeof err), WIRE_OK);
    CHECK_INT_EQ(flog_frame_client(l, 1, fb.data, fb.len, &d, FLOG_SECRET_MATCHED), FLOG_OK);
    CHECK_INT_EQ(flog_close(l, err, sizeof err), FLOG_OK);
    char path[300], bytes[4096];
    snprintf(path, sizeof path, "%s/new.tlog", dir);
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(bytes, 1, sizeof bytes, f) : 0;
    if (f) fclose(f);
    int found = 0;
    for (size_t i = 0; i + strlen(secret) <= n; i++)
        found |= memcmp(bytes + i, secret, strlen(secret)) == 0;
    CHECK(n > 0 && !found, "the secret's bytes are in the file (%zu bytes read)", n);
    snprintf(args, sizeof args, "show %s/new.tlog", dir);
    CHECK_INT_EQ(run(args, &out, &errout), 0);
    CHECK_STR_HAS(out, "secret=\"" FLOG_SECRET_MATCHED "\"");
    free(out);
    free(errout);
}

static void test_cut_and_version(void)
{
    char src[300], dst[300], args[400];
    snprintf(src, sizeof src, "%s/balls.tlog", dir);
    snprintf(dst, sizeof dst, "%s/cut.tlog", dir);
    uint8_t *p = NULL;
    size_t n = 0;
    char e[FLOG_ERR_LEN];
    CHECK_INT_EQ(flog_load_file(src, &p, &n, e, sizeof e), FLOG_OK);
    FILE *f = fopen(dst, "wb");
    fwrite(p, 1, n - 5, f); /* inside the last record */
    fclose(f);
    char *out, *err;
    snprintf(args, sizeof args, "json %s", dst);
    CHECK_INT_EQ(run(args, &out, &err), 0);
    CHECK_STR_HAS(out, "{\"kind\":\"CUT\",\"records\":");
    CHECK_STR_HAS(out, "inside record");
    CHECK_STR_HAS(err, "log cut at byte offset");
    free(out);
    free(err);
    snprintf(args, sizeof args, "show %s", dst);
    CHECK_INT_EQ(run(args, &out, &err), 0);
    CHECK_STR_HAS(out, "CUT: log cut at byte offset");
    free(out);
    free(err);
    p[8] = 2; /* a log of format version 2 (a checksum per record, before blocks) */
    f = fopen(dst, "wb");
    fwrite(p, 1, n, f);
    fclose(f);
    snprintf(args, sizeof args, "stats %s", dst);
    CHECK_INT_EQ(run(args, &out, &err), 1);
    CHECK_STR_HAS(err, "log format version 2 is not supported (this reader knows versions 3 to 4)");
    CHECK_STR_EQ(out, "");
    free(out);
    free(err);
    free(p);
}

/* ---- replay --------------------------------------------------------------------------- */

#define JAC_STEPS 3

/* The frames of federate A at step k (1..JAC_STEPS) with value x: UPDATE then TAR(10k). */
static void jac_update(struct wire_msg *m, struct wire_value *v, int k, const double *x)
{
    *v = (struct wire_value){1, 8, (const uint8_t *)x};
    wire_msg_init(m, WIRE_UPDATE);
    m->a = 1;
    m->time = 10 * k;
    m->nvalues = 1;
    m->values = v;
}

static void jac_join(struct wire_msg *m, uint32_t req)
{
    wire_msg_init(m, WIRE_JOIN);
    m->req = req;
    wire_str_set(&m->str[0], "jac");
    wire_str_set(&m->str[1], "A");
}

/* A recorded two-federate Jacobi-style exchange: A (1) and B (2) each update their object at
 * t = 10k, reflect to the other, and advance with TAR(10k); A resigns at the end. A's
 * requests carry request ids 1 (JOIN) and 2 (RESIGN). */
static void write_jacobi(void)
{
    struct flog *l = open_log("jac.tlog", "jac");
    struct wire_msg m;
    struct wire_value v;
    flog_joined(l, 1, "A");
    jac_join(&m, 1);
    put(l, FLOG_K_RECV, 1, &m);
    wire_msg_init(&m, WIRE_JOIN_OK);
    m.req = 1;
    m.a = 1;
    m.b = 42;
    m.time = 0;
    wire_str_set(&m.str[0], "jac");
    wire_str_set(&m.str[1], "0.001");
    put(l, FLOG_K_SENT, 1, &m);
    flog_joined(l, 2, "B");
    for (int k = 1; k <= JAC_STEPS; k++) {
        double xa = k, xb = 100 + k;
        jac_update(&m, &v, k, &xa);
        put(l, FLOG_K_RECV, 1, &m);
        m.type = WIRE_REFLECT;
        m.code = WIRE_ORDER_TSO;
        m.c = 1;
        put(l, FLOG_K_SENT, 2, &m);
        jac_update(&m, &v, k, &xb);
        m.a = 2;
        put(l, FLOG_K_RECV, 2, &m);
        m.type = WIRE_REFLECT;
        m.code = WIRE_ORDER_TSO;
        m.c = 2;
        put(l, FLOG_K_SENT, 1, &m);
        time_msg(l, FLOG_K_RECV, 1, WIRE_TIME_REQUEST, WIRE_TR_TAR, 10 * k, 0);
        time_msg(l, FLOG_K_RECV, 2, WIRE_TIME_REQUEST, WIRE_TR_TAR, 10 * k, 0);
        time_msg(l, FLOG_K_SENT, 2, WIRE_TIME_GRANT, WIRE_TR_TAR, 10 * k, 0);
        time_msg(l, FLOG_K_SENT, 1, WIRE_TIME_GRANT, WIRE_TR_TAR, 10 * k, 0);
    }
    wire_msg_init(&m, WIRE_RESIGN);
    m.req = 2;
    put(l, FLOG_K_RECV, 1, &m);
    wire_msg_init(&m, WIRE_REPLY);
    m.req = 2;
    put(l, FLOG_K_SENT, 1, &m);
    char err[FLOG_ERR_LEN];
    CHECK_INT_EQ(flog_close(l, err, sizeof err), FLOG_OK);
}

/* ---- the fake federate (a child process of the replay tests) ---- */

/* Connect to "host:port" and send HELLO. The socket, or -1. */
static int dial(const char *rti)
{
    char host[64];
    int port = 0;
    if (sscanf(rti, "%63[^:]:%d", host, &port) != 2) return -1;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
        if (s >= 0) close(s);
        return -1;
    }
    struct wire_msg m;
    wire_msg_init(&m, WIRE_HELLO);
    m.code = WIRE_VERSION;
    m.str[0] = (struct wire_str){WIRE_MAGIC, WIRE_MAGIC_LEN};
    wire_str_set(&m.str[1], "fake");
    buf_clear(&fb);
    wire_encode(&fb, &m, 0, NULL, 0);
    if (write(s, fb.data, fb.len) != (ssize_t)fb.len) {
        close(s);
        return -1;
    }
    return s;
}

static int send_msg(int s, const struct wire_msg *m)
{
    buf_clear(&fb);
    if (wire_encode(&fb, m, 0, NULL, 0) != WIRE_OK) return -1;
    return write(s, fb.data, fb.len) == (ssize_t)fb.len ? 0 : -1;
}

/* Next frame from s into *m (pointing into in, valid until the next call). 0, or -1. */
static int recv_msg(int s, struct buf *in, size_t *used, struct wire_msg *m)
{
    buf_consume(in, *used);
    *used = 0;
    size_t flen = 0;
    while (wire_split(in->data, in->len, 0, &flen, NULL, 0) != 1) {
        if (buf_reserve(in, 4096) != 0) return -1;
        ssize_t n = read(s, in->data + in->len, 4096);
        if (n <= 0) return -1;
        in->len += (size_t)n;
    }
    *used = flen;
    return wire_decode(in->data, flen, m, NULL, 0) == WIRE_OK ? 0 : -1;
}

/* tp_create_federation / tp_destroy_federation style: a connection of its own with one
 * request, answered by a REPLY echoing req. 1 when it was answered. */
static int side_call(const char *rti, unsigned type, uint32_t req)
{
    int s = dial(rti), ok = 0;
    if (s < 0) return 0;
    struct buf in = {0};
    size_t used = 0;
    struct wire_msg m;
    wire_msg_init(&m, type);
    m.req = req;
    wire_str_set(&m.str[0], "jac");
    if (type == WIRE_CREATE_FEDERATION) wire_str_set(&m.str[1], fom_xml);
    if (send_msg(s, &m) == 0)
        while (recv_msg(s, &in, &used, &m) == 0)
            if (m.type == WIRE_REPLY) {
                ok = m.req == req && m.code == 0;
                break;
            }
    close(s);
    buf_fini(&in);
    return ok;
}

/* Fake federate A, frames built like write_jacobi's but with request ids 101 and 102 (replay
 * must map them), preceded by a create-federation connection and followed by a
 * destroy-federation one (never in a log: replay answers them). At step `bad` it sends 99
 * instead of its value. Exit status 0 when every answer it expects arrived (both side
 * replies, B's reflection before each grant, the REPLY echoing 102), else 5; 6 when it cannot
 * connect. */
static int fake_fed(int bad, const char *rti)
{
    int created = side_call(rti, WIRE_CREATE_FEDERATION, 7);
    int s = dial(rti);
    if (s < 0) return 6;
    struct buf in = {0};
    size_t used = 0;
    struct wire_msg m, r;
    struct wire_value v;
    jac_join(&m, 101);
    int ok = send_msg(s, &m) == 0;
    int reflects = 0, grants = 0, done = 0;
    for (int k = 1; k <= JAC_STEPS && ok; k++) {
        double x = k == bad ? 99 : k;
        jac_update(&m, &v, k, &x);
        ok = send_msg(s, &m) == 0;
        wire_msg_init(&m, WIRE_TIME_REQUEST);
        m.code = WIRE_TR_TAR;
        m.time = 10 * k;
        ok = ok && send_msg(s, &m) == 0;
        while (ok && (ok = recv_msg(s, &in, &used, &r) == 0) && r.type != WIRE_TIME_GRANT)
            reflects += r.type == WIRE_REFLECT && r.c == 2 && r.time == 10 * k;
        grants += ok && r.time == 10 * k;
    }
    wire_msg_init(&m, WIRE_RESIGN);
    m.req = 102;
    if (ok && send_msg(s, &m) == 0)
        while (recv_msg(s, &in, &used, &r) == 0)
            if (r.type == WIRE_REPLY) {
                done = r.req == 102;
                break;
            }
    close(s);
    buf_fini(&in);
    int destroyed = side_call(rti, WIRE_DESTROY_FEDERATION, 8);
    buf_fini(&fb);
    return created && destroyed && done && reflects == JAC_STEPS && grants == JAC_STEPS ? 0 : 5;
}

static void test_replay(void)
{
    char *out, *err, args[600];
    snprintf(args, sizeof args,
             "replay %s/jac.tlog --federate A --timeout 5 -- %s --fake-fed 0 {rti}", dir, self);
    CHECK_INT_EQ(run(args, &out, &err), 0);
    CHECK_STR_HAS(out, "MATCHED to the end of the log: 8 requests as recorded, 8 callbacks sent");
    CHECK_STR_HAS(out, "command exited with status 0"); /* it got every answer it expects */
    CHECK_STR_HAS(out, "answered 1 create/destroy-federation request(s)");
    free(out);
    free(err);
    /* Changed at step 2: its UPDATE at t=20 carries 99, not 2. A's second UPDATE is record 13
     * (4 records before the loop, 8 per step) and its 4th request (JOIN, UPDATE, TAR, UPDATE). */
    snprintf(args, sizeof args,
             "replay %s/jac.tlog --federate A --timeout 5 -- %s --fake-fed 2 {rti}", dir, self);
    CHECK_INT_EQ(run(args, &out, &err), 3);
    CHECK_STR_HAS(out, "DIVERGED at record #13 (request 4 of the federate):\n"
                       "  expected: UPDATE a=1 t=0.02s [20] x=2\n"
                       "  got:      UPDATE a=1 t=0.02s [20] x=99\n");
    free(out);
    free(err);
    snprintf(args, sizeof args, "replay %s/jac.tlog --federate Z -- true", dir);
    CHECK_INT_EQ(run(args, &out, &err), 2);
    CHECK_STR_HAS(err, "no federate named 'Z'");
    free(out);
    free(err);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--fake-fed") == 0) return fake_fed(atoi(argv[2]), argv[3]);
    self = argv[0];
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    uint64_t n = write_balls();
    write_stall();
    write_jacobi();
    test_json(n);
    test_trace();
    test_csv();
    test_explain();
    test_show_stats();
    test_cut_and_version();
    test_not_utf8();
    test_secrets();
    test_replay();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (getenv("TLOG_TEST_KEEP"))
        fprintf(stderr, "logs kept in %s\n", dir);
    else if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    buf_fini(&fb);
    return check_summary();
}
