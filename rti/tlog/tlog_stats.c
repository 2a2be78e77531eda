/* tempo-log stats: per federate message counts, grants and the wall time spent waiting for
 * grants (from a TIME_REQUEST received to the TIME_GRANT sent back) and for whom (the holder
 * of the GALT the grant was checked against), and the messages of the whole federation by
 * kind (doc/log.md). One pass, O(records). Read rti/tlog/tlog_util.c. */
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
    uint32_t holder;       /* the holder named by the grant decision about to be sent */
    int seen;              /* 1: appears in the log */
};

/* Wall time of the waits by (waiting federate, holder): the holder of the GALT its grant
 * was checked against (TM_NO_FED: nobody, or a grant whose reason was stored as text). A
 * sparse list: a federation's pairs are few. */
struct wait_pair {
    uint32_t fed, holder;
    uint64_t n;
    int64_t ns;
};
struct wait_by {
    struct wait_pair *v;
    size_t n, cap;
    int oom;
};

static void wait_add(struct wait_by *w, uint32_t fed, uint32_t holder, int64_t ns)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->v[i].fed == fed && w->v[i].holder == holder) {
            w->v[i].n++, w->v[i].ns += ns;
            return;
        }
    if (w->n == w->cap) {
        size_t nc = w->cap ? 2 * w->cap : 16;
        struct wait_pair *g = realloc(w->v, nc * sizeof *g);
        if (!g) return (void)(w->oom = 1);
        w->v = g, w->cap = nc;
    }
    w->v[w->n++] = (struct wait_pair){fed, holder, 1, ns};
}

static int by_fed_then_time(const void *a, const void *b)
{
    const struct wait_pair *x = a, *y = b;
    if (x->fed != y->fed) return x->fed < y->fed ? -1 : 1;
    return x->ns > y->ns   ? -1
           : x->ns < y->ns ? 1
                           : (x->holder > y->holder) - (x->holder < y->holder);
}

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

static void account(struct fed_stats *s, const struct tlog_rec *x, struct wait_by *wb)
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
            wait_add(wb, x->r.fed, s->holder, w);
        }
        s->pending_since = -1;
        s->holder = TM_NO_FED;
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

/* "waiting for whom": per waiting federate, its holders by wall time waited, at most 4. */
static void print_wait_by(struct tlog *t, struct wait_by *wb, FILE *out)
{
    if (!wb->n) return;
    qsort(wb->v, wb->n, sizeof *wb->v, by_fed_then_time);
    fprintf(out, "\nwaiting for whom (wall time from a request to its grant, by the federate "
                 "whose bound held the GALT the grant was checked against):\n");
    for (size_t i = 0; i < wb->n;) {
        uint32_t fed = wb->v[i].fed;
        int64_t total = 0;
        size_t j = i;
        for (; j < wb->n && wb->v[j].fed == fed; j++)
            total += wb->v[j].ns;
        char nb[32], hb[32];
        fprintf(out, "  %-16s %12.6f s:", tlog_fed_name(t, fed, nb, sizeof nb),
                (double)total / 1e9);
        for (size_t k = i; k < j && k < i + 4; k++) {
            const struct wait_pair *q = &wb->v[k];
            /* nobody: no bound held the GALT, or the RTI granted on its fast path, where it
             * names no holder (doc/log.md "stats") */
            fprintf(out, "%s %s %.6f s (", k > i ? "," : "",
                    q->holder == TM_NO_FED ? "nobody" : tlog_fed_name(t, q->holder, hb, sizeof hb),
                    (double)q->ns / 1e9);
            if (total > 0) fprintf(out, "%.0f %%, ", 100.0 * (double)q->ns / (double)total);
            fprintf(out, "%" PRIu64 " grants)", q->n);
        }
        fprintf(out, "%s\n", j - i > 4 ? ", ..." : "");
        i = j;
    }
    if (wb->oom) fprintf(out, "  (out of memory: some waits are not counted)\n");
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
    struct wait_by wb = {0};
    if (t->run_sel) { /* one run of several (tlog_select_run) */
        end = t->runs[t->run_sel - 1].wall1;
        start = t->runs[t->run_sel - 1].wall0;
    }
    while (tlog_next(t, &r, &x)) {
        if (!tlog_in_run(t, x.r.seq)) continue;
        nrec++;
        by_kind[x.r.kind]++;
        if (x.r.kind == FLOG_K_DECISION) dec_by[x.r.dec.kind < 7 ? x.r.dec.kind : 7]++;
        if (x.r.kind == FLOG_K_DECISION && x.r.dec.kind == TM_D_GRANT && x.r.fed) {
            struct fed_stats *g = slot(&fs, &cap, x.r.fed); /* its TIME_GRANT follows */
            if (g) g->holder = x.r.dec.grant.row != TM_GROW_NONE ? x.r.dec.grant.holder : TM_NO_FED;
        }
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
        if (s) account(s, &x, &wb);
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
    print_wait_by(t, &wb, out);
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
    free(wb.v);
    return 0;
}
