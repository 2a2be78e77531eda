/* A rogue federate for tests/integration/ms_rogue.sh (doc/master.md "Commands only from the
 * master"): it joins a master-slave federation under its own name with the FOM generated from
 * the federation file, takes part in the start, then publishes every slave's Command<i> and
 * sends each command kind (valid encodings) and a malformed one to every slave, in receive
 * order; registers an object of class Slave0 and updates it with a forged reply, and, in a
 * hybrid federation, an object of every class Share<i> with a forged share; then sends one
 * more command of each kind to every slave stamped half a macro step after the start. It is
 * regulating (lookahead 0) from before the start, so the master cannot close the start instant
 * before those are queued, and the slaves, waiting for the next instant, are granted at that
 * stamp for the rogue's commands alone. Then it gets out of everyone's way (TAR to +inf) and
 * leaves. Every command must be refused and the run must go on.
 *
 *   ms_rogue FEDERATION.json RTI_ADDR NAME    prints "rogue: joined", "rogue: started",
 *                                             "rogue: sent N commands, M time-stamped",
 *                                             exits 0, or 1 with a message
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/config/fedfile.h"
#include "federate/libtempo/tempo.h"
#include "federate/msproto/msproto.h"

static int die(const char *what, int rc, tp_federate *f)
{
    fprintf(stderr, "rogue: %s: %s: %s\n", what, tp_strerror(rc), f ? tp_last_error(f) : "");
    return 1;
}

/* A valid encoding of a command of this kind (the fields each kind needs, few values). */
static size_t encode(int kind, uint32_t seq, unsigned char *buf, size_t cap)
{
    double v[2] = {1.0, 2.0};
    int64_t tv[2] = {0, 0};
    msproto_cmd c = {.kind = (msproto_kind)kind, .seq = seq, .t = 0};
    switch (kind) {
    case MSP_SET_INPUTS:
        c.arg = 0, c.n_v = 1, c.v = v;
        break;
    case MSP_STEP:
        c.t = 1000000000, c.arg = 1;
        break;
    case MSP_GET_OUTPUT_DERIVS:
        c.arg = 1;
        break;
    case MSP_SET_DISCRETE:
        c.n_v = c.n_tv = 1, c.v = v, c.tv = tv;
        break;
    case MSP_SET_STATES:
    case MSP_GET_DIRECTIONAL:
        c.n_v = 1, c.v = v;
        break;
    default:
        break;
    }
    size_t len = 0;
    char e[MSPROTO_ERRLEN];
    if (msproto_cmd_encode(&c, buf, cap, &len, e, sizeof e) != MSPROTO_OK) {
        fprintf(stderr, "rogue: encoding %s: %s\n", msproto_kind_name(kind), e);
        return 0;
    }
    return len;
}

/* Every kind, then a malformed body, to every slave at time stamp t (TP_NO_TIME: receive
 * order). Returns the number sent, or -1. */
static long send_all(tp_federate *f, const fedfile *ff, tp_time t)
{
    long n = 0;
    for (size_t i = 0; i < ff->n_feds; i++) {
        char name[32];
        tp_handle ic, param;
        msproto_command_class(i, name, sizeof name);
        int rc = tp_interaction_class(f, name, &ic);
        if (rc == TP_OK) rc = tp_parameter(f, ic, MSPROTO_BODY_PARAM, &param);
        if (rc != TP_OK) return die(name, rc, f), -1;
        for (int k = 1; k <= MSP_KIND_MAX + 1; k++) {
            unsigned char buf[256];
            size_t len = k <= MSP_KIND_MAX ? encode(k, (uint32_t)k, buf, sizeof buf) : 3;
            if (k > MSP_KIND_MAX) memcpy(buf, "\x07\xff\x00", 3); /* wrong version, no kind */
            if (!len) return -1;
            tp_value val = {.handle = param, .data = buf, .size = len};
            if ((rc = tp_send_interaction(f, ic, &val, 1, t)) != TP_OK)
                return die("sending a command", rc, f), -1;
            n++;
        }
    }
    return n;
}

/* An object of class Slave0 and one forged reply (a hello answer) on it. */
static int forge_reply(tp_federate *f, const char *me)
{
    char cls_name[32], obj_name[160];
    tp_handle cls, attr;
    tp_object obj;
    msproto_slave_class(0, cls_name, sizeof cls_name);
    snprintf(obj_name, sizeof obj_name, "%s.fake", me);
    int rc = tp_object_class(f, cls_name, &cls);
    if (rc == TP_OK) rc = tp_attribute(f, cls, MSPROTO_REPLY_ATTR, &attr);
    if (rc == TP_OK) rc = tp_publish_object_class(f, cls, &attr, 1);
    if (rc == TP_OK) rc = tp_register_object(f, cls, obj_name, &obj);
    if (rc != TP_OK) return die("registering a Slave0 object", rc, f);
    double v[MSPROTO_INFO_N] = {0};
    msproto_reply r = {.kind = MSP_HELLO, .seq = 1, .status = 0, .n_v = MSPROTO_INFO_N, .v = v};
    unsigned char buf[512];
    size_t len = 0;
    char e[MSPROTO_ERRLEN];
    if (msproto_reply_encode(&r, buf, sizeof buf, &len, e, sizeof e) != MSPROTO_OK) {
        fprintf(stderr, "rogue: encoding a reply: %s\n", e);
        return 1;
    }
    tp_value val = {.handle = attr, .data = buf, .size = len};
    if ((rc = tp_update(f, obj, &val, 1, TP_NO_TIME)) != TP_OK) return die("forged reply", rc, f);
    return 0;
}

/* Hybrid federations only (the FOM has Share<i>): an object of each Share<i> class and one
 * forged share on it, for the round 0 and one value. Returns the number forged, or -1. */
static long forge_shares(tp_federate *f, const fedfile *ff, const char *me)
{
    long n = 0;
    for (size_t i = 0; i < ff->n_feds; i++) {
        char cls_name[32], obj_name[160];
        tp_handle cls, attr;
        tp_object obj;
        msproto_share_class(i, cls_name, sizeof cls_name);
        if (tp_object_class(f, cls_name, &cls) != TP_OK) return 0; /* not hybrid */
        snprintf(obj_name, sizeof obj_name, "%s.share%zu", me, i);
        int rc = tp_attribute(f, cls, MSPROTO_SHARE_ATTR, &attr);
        if (rc == TP_OK) rc = tp_publish_object_class(f, cls, &attr, 1);
        if (rc == TP_OK) rc = tp_register_object(f, cls, obj_name, &obj);
        if (rc != TP_OK) return die("registering a Share object", rc, f), -1;
        double v[1] = {123.0};
        int64_t tv[1] = {0};
        msproto_reply r = {.kind = MSP_SHARE, .t = 0, .n_v = 1, .v = v, .n_tv = 1, .tv = tv};
        unsigned char buf[256];
        size_t len = 0;
        char e[MSPROTO_ERRLEN];
        if (msproto_reply_encode(&r, buf, sizeof buf, &len, e, sizeof e) != MSPROTO_OK) {
            fprintf(stderr, "rogue: encoding a share: %s\n", e);
            return -1;
        }
        tp_value val = {.handle = attr, .data = buf, .size = len};
        if ((rc = tp_update(f, obj, &val, 1, TP_NO_TIME)) != TP_OK)
            return die("forged share", rc, f), -1;
        n++;
    }
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: ms_rogue FEDERATION.json RTI_ADDR NAME\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    fedfile *ff = NULL;
    char err[2048];
    if (fedfile_load(argv[1], &ff, err, sizeof err) != FEDFILE_OK) {
        fprintf(stderr, "rogue: %s\n", err);
        return 1;
    }
    char *fom = NULL;
    if (msproto_fom_xml(ff, &fom, err, sizeof err) != MSPROTO_OK) {
        fprintf(stderr, "rogue: FOM: %s\n", err);
        fedfile_free(ff);
        return 1;
    }
    tp_join_options jo = {.rti = argv[2],
                          .federation = ff->federation,
                          .federate = argv[3],
                          .fom_text = fom,
                          .create = 1,
                          .timeout_ms = 10000};
    tp_federate *f = NULL;
    int rc = tp_join(&jo, NULL, NULL, &f, err, sizeof err);
    free(fom);
    int status = 1;
    if (rc != TP_OK) {
        fprintf(stderr, "rogue: join: %s: %s\n", tp_strerror(rc), err);
        goto out;
    }
    printf("rogue: joined\n");
    /* Regulating at 0 before the start: the master's close of the start instant (TAR(start))
     * waits for this federate's bound to pass it. */
    if ((rc = tp_enable_regulation(f, 0)) != TP_OK ||
        (rc = tp_wait_regulation_enabled(f, 10000)) != TP_OK) {
        die("regulation", rc, f);
        goto out;
    }
    /* Joined before the master registers the start point, so it is one of its members. */
    if ((rc = tp_sync(f, "tempo-start", 60000)) != TP_OK) {
        die("start", rc, f);
        goto out;
    }
    printf("rogue: started\n");
    for (size_t i = 0; i < ff->n_feds && rc == TP_OK; i++) {
        char name[32];
        tp_handle ic;
        msproto_command_class(i, name, sizeof name);
        if ((rc = tp_interaction_class(f, name, &ic)) == TP_OK)
            rc = tp_publish_interaction_class(f, ic);
    }
    if (rc != TP_OK) {
        die("publishing the commands", rc, f);
        goto out;
    }
    long n_ro = send_all(f, ff, TP_NO_TIME), n_share = 0;
    if (n_ro < 0 || forge_reply(f, argv[3]) != 0 || (n_share = forge_shares(f, ff, argv[3])) < 0)
        goto out;
    /* Time-stamp order, between the first two instants; then out of everyone's way (a TAR to
     * +inf no longer holds anyone back) before leaving. */
    tp_time at = ff->algo.t_start + ff->algo.t_step / 2;
    long n_tso = send_all(f, ff, at);
    if (n_tso < 0) goto out;
    if ((rc = tp_time_advance_request(f, TP_TIME_MAX)) != TP_OK) {
        die("TAR(+inf)", rc, f);
        goto out;
    }
    printf("rogue: sent %ld commands, %ld time-stamped at %lld; %ld shares forged\n", n_ro + n_tso,
           n_tso, (long long)at, n_share);
    tp_evoke(f, 200);
    status = 0;
out:
    tp_federate_free(f);
    fedfile_free(ff);
    return status;
}
