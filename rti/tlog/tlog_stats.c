/* tempo-log stats: per federate message counts, grants and the wall time spent waiting for
 * grants (from a TIME_REQUEST received to the TIME_GRANT sent back), and the messages of the
 * whole federation by kind (doc/log.md). One pass, O(records). Read rti/tlog/tlog_util.c. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rti/tlog/tlog_impl.h"

struct fed_stats {
    uint64_t recv, sent;       /* frames from / to it */
    uint64_t requests, grants; /* TIME_REQUEST received, TIME_GRANT sent */
    uint64_t updates, reflects, interactions_sent, interactions_received;
    int64_t wait_total_ns; /* sum of request -> grant wall times */
    int64_t wait_max_ns;   /* the longest of them */
    int64_t pending_since; /* wall ns of the open request, -1 when none */
    uint32_t pending_kind; /* enum wire_time_kind of the open request */
    int64_t pending_time;  /* its requested time (ticks) */
    int64_t granted;       /* last granted time, TM_NO_TIME before the first grant */
    int seen;              /* 1: appears in the log */
};

/* Grow the table to hold handle h. NULL on failure (h too big or out of memory). */
static struct fed_stats *slot(struct fed_stats **v, uint32_t *cap, uint32_t h)
{
    if (h >= TLOG_MAX_HANDLE) return NULL;
    if (h >= *cap) {
        uint32_t nc = *cap ? *cap : 16;
        while (nc <= h)
            nc *= 2;
        struct fed_stats *n = realloc(*v, (size_t)nc * sizeof *n);
        if (!n) return NULL;
        for (uint32_t i = *cap; i < nc; i++) {
            memset(&n[i], 0, sizeof n[i]);
            n[i].pending_since = -1;
            n[i].granted = TM_NO_TIME;
        }
        *v = n;
        *cap = nc;
    }
    (*v)[h].seen = 1;
    return &(*v)[h];
}

static void account(struct fed_stats *s, const struct tlog_rec *x)
{
    const struct wire_msg *m = &x->msg;
    int in = x->r.kind == FLOG_K_RECV;
    if (in)
        s->recv++;
    else
        s->sent++;
    if (!x->has_msg) return;
    if (in && m->type == WIRE_TIME_REQUEST) {
        s->requests++;
        s->pending_since = x->r.wall_ns;
        s->pending_kind = m->code;
        s->pending_time = m->time;
    } else if (!in && m->type == WIRE_TIME_GRANT) {
        s->grants++;
        s->granted = m->time;
        if (s->pending_since >= 0) {
            int64_t w = x->r.wall_ns - s->pending_since;
            if (w < 0) w = 0; /* a clock step backwards: count nothing rather than negative */
            s->wait_total_ns += w;
            if (w > s->wait_max_ns) s->wait_max_ns = w;
        }
        s->pending_since = -1;
    } else if (in && m->type == WIRE_UPDATE) {
        s->updates++;
    } else if (!in && m->type == WIRE_REFLECT) {
        s->reflects++;
    } else if (in && m->type == WIRE_SEND_INTERACTION) {
        s->interactions_sent++;
    } else if (!in && m->type == WIRE_RECEIVE_INTERACTION) {
        s->interactions_received++;
    }
}

int tlog_stats(struct tlog *t, FILE *out)
{
    struct fed_stats *fs = NULL;
    uint32_t cap = 0;
    uint64_t recv_by[WIRE_TYPE_END + 1] = {0}, sent_by[WIRE_TYPE_END + 1] = {0};
    uint64_t by_kind[FLOG_K_END] = {0}, dec_by[8] = {0}, bad_frames = 0;
    struct flog_reader r;
    struct tlog_rec x;
    tlog_rewind(t, &r);
    int64_t end = t->last_wall_ns, start = t->hdr.start_wall_ns;
    uint64_t nrec = 0;
    if (t->run_sel) { /* one run of several (tlog_select_run) */
        end = t->runs[t->run_sel - 1].wall1;
        start = t->runs[t->run_sel - 1].wall0;
    }
    while (tlog_next(t, &r, &x)) {
        if (!tlog_in_run(t, x.r.seq)) continue;
        nrec++;
        by_kind[x.r.kind]++;
        if (x.r.kind == FLOG_K_DECISION) dec_by[x.r.dec.kind < 7 ? x.r.dec.kind : 7]++;
        if (x.r.kind != FLOG_K_RECV && x.r.kind != FLOG_K_SENT) {
            if (x.r.kind == FLOG_K_JOINED) slot(&fs, &cap, x.r.fed);
            continue;
        }
        if (!x.has_msg)
            bad_frames++;
        else if (x.r.kind == FLOG_K_RECV)
            recv_by[x.msg.type < WIRE_TYPE_END ? x.msg.type : WIRE_TYPE_END]++;
        else
            sent_by[x.msg.type < WIRE_TYPE_END ? x.msg.type : WIRE_TYPE_END]++;
        struct fed_stats *s = x.r.fed ? slot(&fs, &cap, x.r.fed) : NULL;
        if (s) account(s, &x);
    }
    fprintf(out, "federation %.*s: %" PRIu64 " records over %.6f s of wall time%s\n",
            (int)t->hdr.federation_len, t->hdr.federation, nrec, (double)(end - start) / 1e9,
            t->cut ? " (log cut: counts stop at the cut)" : "");
    if (t->run_sel)
        fprintf(out, "run %u of %u (records #%" PRIu64 "..#%" PRIu64 ")\n", t->run_sel, t->n_runs,
                t->runs[t->run_sel - 1].first, t->runs[t->run_sel - 1].last);
    if (!t->run_sel || t->run_sel == t->n_runs) tlog_report_end(t, out);
    fprintf(out, "\nper federate:\n%-16s %8s %8s %8s %8s %8s %8s %12s %12s %12s  %s\n", "federate",
            "recv", "sent", "requests", "grants", "updates", "reflects", "wait total s",
            "wait mean s", "wait max s", "last grant / pending");
    for (uint32_t h = 1; h < cap; h++) {
        const struct fed_stats *s = &fs[h];
        if (!s->seen) continue;
        char nb[32], state[96];
        uint64_t waits = s->grants ? s->grants : 1;
        if (s->pending_since >= 0)
            snprintf(state, sizeof state, "waiting %s(%gs [%" PRId64 "]) for %.6f s",
                     tm_req_name((tm_req)s->pending_kind), tlog_secs(t, s->pending_time),
                     s->pending_time, (double)(end - s->pending_since) / 1e9);
        else if (s->granted != TM_NO_TIME)
            snprintf(state, sizeof state, "granted %gs [%" PRId64 "]", tlog_secs(t, s->granted),
                     s->granted);
        else
            snprintf(state, sizeof state, "never granted");
        fprintf(out,
                "%-16s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
                " %12.6f %12.6f %12.6f  %s\n",
                tlog_fed_name(t, h, nb, sizeof nb), s->recv, s->sent, s->requests, s->grants,
                s->updates, s->reflects, (double)s->wait_total_ns / 1e9,
                (double)s->wait_total_ns / 1e9 / (double)waits, (double)s->wait_max_ns / 1e9,
                state);
    }
    fprintf(out, "\nrecords by kind:\n");
    for (unsigned k = 1; k < FLOG_K_END; k++)
        if (by_kind[k]) fprintf(out, "  %-10s %10" PRIu64 "\n", flog_kind_name(k), by_kind[k]);
    fprintf(out, "\nmessages by type:        received       sent\n");
    for (unsigned ty = 1; ty <= WIRE_TYPE_END; ty++)
        if (recv_by[ty] || sent_by[ty])
            fprintf(out, "  %-22s %10" PRIu64 " %10" PRIu64 "\n",
                    ty == WIRE_TYPE_END ? "(other)" : wire_type_name(ty), recv_by[ty], sent_by[ty]);
    if (bad_frames) fprintf(out, "  %-22s %10" PRIu64 "\n", "(undecodable)", bad_frames);
    static const char *const dn[] = {"?",           "GRANT",   "DELIVER", "REG_ENABLED",
                                     "CON_ENABLED", "DISCARD", "REFUSED", "(other)"};
    int any = 0;
    for (unsigned k = 1; k < 8; k++)
        any |= dec_by[k] != 0;
    if (any) {
        fprintf(out, "\ntime-management decisions:\n");
        for (unsigned k = 1; k < 8; k++)
            if (dec_by[k]) fprintf(out, "  %-12s %10" PRIu64 "\n", dn[k], dec_by[k]);
    }
    free(fs);
    return 0;
}
