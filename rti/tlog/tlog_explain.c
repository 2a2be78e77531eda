/* tempo-log explain: who waits for whom at the end of a log or at a record (doc/time.md,
 * doc/log.md). The state is rebuilt by re-running the recorded inputs of the time management
 * through the pure engine (rti/tm/tm.h): JOINED records, the enable / disable / lookahead /
 * time-request / resign frames received, connection losses and the TM_SEND records (every tm_send
 * the RTI made, with its receivers). The engine then answers with its own "who blocks whom" status
 * (GALT, holder, NER root), and the chain of holders is followed to the federate that is not
 * itself waiting: the root cause. The re-run's grants are counted against the TIME_GRANTs
 * recorded so that a disagreement is reported, never hidden. Read rti/tm/tm.h first. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rti/tlog/tlog_impl.h"

struct fedinfo {
    uint64_t req_seq;    /* record seq of the open TIME_REQUEST, 0 none */
    int64_t req_wall;    /* its wall stamp */
    uint32_t polls;      /* grants in a row without progress (the engine's rule, tm_status) */
    bool got;            /* a DELIVER to it since its last grant */
    uint64_t poll_seq;   /* the request whose grant began that run */
    int64_t poll_wall;   /* its stamp */
    tm_req poll_req;     /* the kind of its latest no-progress request */
    char grant_why[320]; /* reason of the last recorded GRANT (room for the RTI's longest) */
    uint64_t grant_seq;  /* its record seq */
};

struct rerun {
    tm_state *st;
    uint64_t grants;      /* grants the re-run made */
    uint64_t rec_grants;  /* TIME_GRANT frames recorded */
    uint64_t tm_errors;   /* calls the re-run engine refused */
    uint64_t tso_updates; /* time-stamped sends in the log */
    uint64_t tm_sends;    /* TM_SEND records */
    struct fedinfo *fi;   /* [fed] */
    uint32_t ficap;
    uint32_t *recv; /* scratch receivers for tm_send */
    uint32_t recvcap;
    uint64_t cur_seq; /* the record being re-run */
    int64_t cur_wall; /* its stamp */
};

static struct fedinfo *info(struct rerun *rr, uint32_t fed);

/* Counts the grants, and follows each federate's grants without progress (a later time, or a
 * delivery since the last grant, is progress: the engine's rule) to say since when a polling
 * federate is stalled. */
static void sink(void *ctx, const tm_decision *d)
{
    struct rerun *rr = ctx;
    struct fedinfo *fi = info(rr, d->fed);
    if (d->kind == TM_D_DELIVER && fi) fi->got = true;
    if (d->kind != TM_D_GRANT) return;
    rr->grants++;
    if (!fi || !d->grant) return;
    if (d->time > d->grant->prev || fi->got) {
        fi->polls = 0;
    } else if (fi->polls++ == 0) {
        fi->poll_seq = fi->req_seq ? fi->req_seq : rr->cur_seq;
        fi->poll_wall = fi->req_seq ? fi->req_wall : rr->cur_wall;
    }
    fi->poll_req = d->req;
    fi->got = false;
}

static struct fedinfo *info(struct rerun *rr, uint32_t fed)
{
    if (fed == 0 || fed >= TLOG_MAX_HANDLE) return NULL;
    if (fed >= rr->ficap) {
        uint32_t nc = rr->ficap ? rr->ficap : 16;
        while (nc <= fed)
            nc *= 2;
        struct fedinfo *n = realloc(rr->fi, nc * sizeof *n);
        if (!n) return NULL;
        memset(n + rr->ficap, 0, (nc - rr->ficap) * sizeof *n);
        rr->fi = n;
        rr->ficap = nc;
    }
    return &rr->fi[fed];
}

/* Apply one received frame to the engine. */
static void apply_frame(struct rerun *rr, const struct tlog_rec *x)
{
    const struct wire_msg *m = &x->msg;
    tm_fed h = x->r.fed;
    char err[TM_ERR_LEN];
    int rc = TM_OK;
    struct fedinfo *fi = info(rr, h);
    switch (m->type) {
    case WIRE_ENABLE_REGULATION:
        rc = tm_enable_regulation(rr->st, h, m->time2, err, sizeof err);
        break;
    case WIRE_DISABLE_REGULATION:
        rc = tm_disable_regulation(rr->st, h, err, sizeof err);
        break;
    case WIRE_ENABLE_CONSTRAINED:
        rc = tm_enable_constrained(rr->st, h, err, sizeof err);
        break;
    case WIRE_DISABLE_CONSTRAINED:
        rc = tm_disable_constrained(rr->st, h, err, sizeof err);
        break;
    case WIRE_MODIFY_LOOKAHEAD:
        rc = tm_modify_lookahead(rr->st, h, m->time2, err, sizeof err);
        break;
    case WIRE_RESIGN:
        rc = tm_resign(rr->st, h, err, sizeof err);
        break;
    case WIRE_TIME_REQUEST:
        if (fi) fi->req_seq = x->r.seq, fi->req_wall = x->r.wall_ns;
        rc = tm_request(rr->st, h, (tm_req)m->code, m->time, err, sizeof err);
        break;
    case WIRE_UPDATE:
    case WIRE_SEND_INTERACTION:
    case WIRE_DELETE_OBJECT:
        if (m->time != WIRE_TIME_NONE) rr->tso_updates++;
        return;
    default:
        return;
    }
    if (rc != TM_OK) rr->tm_errors++;
}

static void apply_send(struct rerun *rr, const struct flog_record *r)
{
    rr->tm_sends++;
    if (r->send.n > rr->recvcap) {
        uint32_t *n = realloc(rr->recv, r->send.n * sizeof *n);
        if (!n) {
            rr->tm_errors++;
            return;
        }
        rr->recv = n;
        rr->recvcap = r->send.n;
    }
    for (uint32_t i = 0; i < r->send.n; i++)
        rr->recv[i] = flog_tm_send_receiver(&r->send, i);
    char err[TM_ERR_LEN];
    if (tm_send(rr->st, r->fed, r->send.ts, rr->recv, r->send.n, r->send.token, err, sizeof err) !=
        TM_OK)
        rr->tm_errors++;
}

/* Re-run every record with seq <= at (at 0: all), and after it what the RTI did in response
 * (the records up to the next input: RECV, JOINED or LOST), so that a grant the re-run makes
 * on record `at` is compared with the recorded grant that follows it. Returns the seq of the
 * last record used. */
/* The first note of a restored federation's log carries the engine's state after its text
 * and a NUL (doc/log.md "Saves and restores"): the re-run starts from it, as the RTI did. */
static void restored(struct rerun *rr, const struct flog_record *r)
{
    size_t k = strlen(FLOG_NOTE_RESTORED);
    const uint8_t *p = r->payload, *nul = NULL;
    if (r->fed != 0 || r->payload_len <= k || memcmp(p, FLOG_NOTE_RESTORED, k) != 0) return;
    nul = memchr(p, 0, r->payload_len);
    if (!nul) return; /* a note without the state: the re-run cannot know it */
    size_t off = (size_t)(nul - p) + 1;
    tm_state *st = NULL;
    char err[TM_ERR_LEN];
    if (tm_restore(&st, p + off, r->payload_len - off, sink, rr, err, sizeof err) != TM_OK) {
        rr->tm_errors++;
        return;
    }
    tm_free(rr->st);
    rr->st = st;
}

static uint64_t rerun(struct tlog *t, struct rerun *rr, uint64_t at)
{
    struct flog_reader r;
    struct tlog_rec x;
    uint64_t last = 0;
    char err[TM_ERR_LEN], nb[32];
    tlog_rewind(t, &r);
    while (tlog_next(t, &r, &x)) {
        if (at && x.r.seq > at &&
            (x.r.kind == FLOG_K_RECV || x.r.kind == FLOG_K_JOINED || x.r.kind == FLOG_K_LOST))
            break;
        last = x.r.seq;
        rr->cur_seq = x.r.seq;
        rr->cur_wall = x.r.wall_ns;
        struct fedinfo *fi = info(rr, x.r.fed);
        switch (x.r.kind) {
        case FLOG_K_NOTE:
            restored(rr, &x.r);
            break;
        case FLOG_K_JOINED: {
            tm_status s; /* a federate of a restored federation is in the restored state */
            if (tm_query(rr->st, x.r.fed, &s, NULL, 0) == TM_OK) break;
            if (tm_join(rr->st, x.r.fed, tlog_fed_name(t, x.r.fed, nb, sizeof nb), err,
                        sizeof err) != TM_OK)
                rr->tm_errors++;
            break;
        }
        case FLOG_K_LOST: {
            tm_status s;
            if (tm_query(rr->st, x.r.fed, &s, NULL, 0) == TM_OK)
                tm_resign(rr->st, x.r.fed, NULL, 0);
            break;
        }
        case FLOG_K_TM_SEND:
            apply_send(rr, &x.r);
            break;
        case FLOG_K_RECV:
            if (x.has_msg) apply_frame(rr, &x);
            break;
        case FLOG_K_SENT:
            if (x.has_msg && x.msg.type == WIRE_TIME_GRANT) {
                rr->rec_grants++;
                if (fi) fi->req_seq = 0;
            }
            break;
        case FLOG_K_DECISION:
            if (x.r.dec.kind == TM_D_GRANT && fi) {
                snprintf(fi->grant_why, sizeof fi->grant_why, "%.*s", (int)x.r.dec.reason_len,
                         x.r.dec.reason);
                fi->grant_seq = x.r.seq;
            }
            break;
        default:
            break;
        }
    }
    return last;
}

/* A bound in seconds: "(0.5 s, strict)", "inf"; with the ticks in brackets when @p ticks. */
static const char *bound_text(const struct tlog *t, tm_bound b, int ticks, char *buf, size_t cap)
{
    char tb[64];
    if (b.t == TM_TIME_MAX)
        snprintf(buf, cap, "inf");
    else
        snprintf(buf, cap, "(%s, %s)",
                 ticks ? tlog_tfmt(t, b.t, tb, sizeof tb) : tlog_sfmt(t, b.t, tb, sizeof tb),
                 b.strict ? "strict" : "non-strict");
    return buf;
}

static const tm_status *find(const tm_status *v, size_t n, tm_fed h)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].fed == h) return &v[i];
    return NULL;
}

static const char *name_of(const tm_status *v, size_t n, tm_fed h)
{
    const tm_status *s = find(v, n, h);
    return h == TM_NO_FED ? "nobody" : s ? s->name : "(gone)";
}

/* One federate's state with times in seconds (ticks in brackets): the table of explain. */
static void status_line(const struct tlog *t, const tm_status *v, size_t n, const tm_status *s,
                        FILE *out)
{
    char a[64], b[64], c[96], d[96], l[64];
    fprintf(out, "  %s t=%s ", s->name, tlog_tfmt(t, s->time, a, sizeof a));
    if (s->req)
        fprintf(out, "%s(%s)", tm_req_name(s->req), tlog_tfmt(t, s->req_time, b, sizeof b));
    else
        fprintf(out, "granted");
    fprintf(out, "%s%s, bound %s, GALT %s held by %s", s->regulating ? " reg" : "",
            s->constrained ? " con" : (s->constrained_pending ? " con-pending" : ""),
            s->regulating ? bound_text(t, s->bound, 1, c, sizeof c) : "none",
            bound_text(t, s->galt, 1, d, sizeof d), name_of(v, n, s->galt_holder));
    if (s->galt_root && s->galt_root != s->galt_holder)
        fprintf(out, " (root %s)", name_of(v, n, s->galt_root));
    fprintf(out, ", LITS %s, queued %zu", tlog_sfmt(t, s->lits, l, sizeof l), s->queued);
    if (s->stalled)
        fprintf(out, ", stalled (%u grants in a row without progress)", (unsigned)s->polls);
    fputc('\n', out);
}

static void root_line(const struct tlog *t, const tm_status *s, const char *indent, FILE *out)
{
    char a[64], g[96];
    fprintf(out,
            "%sroot cause: %s is not waiting (granted state at t=%s, bound %s): the others move "
            "only when it asks to advance or sends\n",
            indent, s->name, tlog_sfmt(t, s->time, a, sizeof a),
            s->regulating ? bound_text(t, s->bound, 0, g, sizeof g) : "none");
}

/* Follow the holders from one blocked federate to the root cause, one line per hop; each hop is
 * the engine's wait-for rule (tm_waits_for), the one the RTI's live view draws. */
static void chain(const struct tlog *t, const tm_state *st, const tm_status *v, size_t n,
                  const tm_status *s, FILE *out)
{
    tm_fed seen[64];
    size_t nseen = 0;
    char g[96], a[64], b[64];
    const tm_status *cur = s;
    const char *indent = "  ";
    for (;;) {
        seen[nseen++] = cur->fed;
        if (cur->req == TM_REQ_NONE) {
            root_line(t, cur, indent, out);
            return;
        }
        tm_fed next = TM_NO_FED;
        tm_waits_for(st, cur, &next, 1);
        fprintf(out, "%s%s waits in %s(%s) at t=%s with GALT %s", indent, cur->name,
                tm_req_name(cur->req), tlog_sfmt(t, cur->req_time, a, sizeof a),
                tlog_sfmt(t, cur->time, b, sizeof b), bound_text(t, cur->galt, 0, g, sizeof g));
        if (next == TM_NO_FED) {
            fprintf(out, ", held by nobody (no other regulating federate): it waits for its "
                         "own enable or queue, not for another federate\n");
            return;
        }
        const tm_status *nx = find(v, n, next);
        if (!nx) {
            fprintf(out, ", held by federate %u, unknown to the re-run\n", next);
            return;
        }
        fprintf(out, ", held by %s%s\n", nx->name,
                cur->galt_root && cur->galt_root != cur->galt_holder ? " (NER root)" : "");
        for (size_t i = 0; i < nseen; i++)
            if (seen[i] == next) {
                fprintf(out, "%s  root cause: a cycle: these federates wait for each other\n",
                        indent);
                return;
            }
        if (nseen == sizeof seen / sizeof seen[0]) {
            fprintf(out, "%s  ... (chain longer than 64)\n", indent);
            return;
        }
        cur = nx;
        indent = "    ";
    }
}

/* A federate polling without progress (tm_status.stalled): since when, and whom it waits for
 * (tm_waits_for: tm_stall_waits_for's set), each followed to its own root cause. */
static void stall(const struct tlog *t, const struct rerun *rr, const tm_status *v, size_t n,
                  const tm_status *s, FILE *out)
{
    const struct fedinfo *fi = s->fed < rr->ficap ? &rr->fi[s->fed] : NULL;
    char a[64];
    if (fi && fi->poll_seq)
        fprintf(out,
                "  (%s polls without progress since its request of record #%" PRIu64
                ", for %.6f s of wall time to the last record)\n",
                s->name, fi->poll_seq, (double)(t->last_wall_ns - fi->poll_wall) / 1e9);
    fprintf(out,
            "  %s polls (%s) at t=%s: %u grants in a row left its time unchanged with no "
            "message delivered, so it waits",
            s->name, fi && fi->poll_req ? tm_req_name(fi->poll_req) : "FQR/TARA",
            tlog_sfmt(t, s->time, a, sizeof a), (unsigned)s->polls);
    tm_fed w[16];
    size_t nw = tm_waits_for(rr->st, s, w, 16);
    if (nw == 0) {
        fprintf(out, "; every other federate has sent since it began, or waits itself\n");
        return;
    }
    fprintf(out, " for ");
    for (size_t i = 0; i < nw && i < 16; i++)
        fprintf(out, "%s%s", i ? ", " : "", name_of(v, n, w[i]));
    fprintf(out, "%s: %s sent nothing since, and %s no request pending\n",
            nw > 16 ? " and more" : "", nw == 1 ? "it has" : "they have", nw == 1 ? "has" : "have");
    for (size_t i = 0; i < nw && i < 16; i++) {
        const tm_status *ws = find(v, n, w[i]);
        if (ws) root_line(t, ws, "    ", out);
    }
}

int tlog_explain(struct tlog *t, uint64_t at, FILE *out)
{
    struct rerun rr = {0};
    char err[TM_ERR_LEN];
    if (tm_new(&rr.st, sink, &rr, err, sizeof err) != TM_OK) {
        fprintf(stderr, "tempo-log: %s\n", err);
        return 1;
    }
    /* a run selected (tlog_select_run): its state at its last record */
    if (!at && t->run_sel && t->run_sel < t->n_runs) at = t->runs[t->run_sel].first - 1;
    uint64_t last = rerun(t, &rr, at);
    if (at && last > at)
        fprintf(out,
                "federation %.*s: state after record #%" PRIu64 " and the RTI's response "
                "to it (through #%" PRIu64 ")\n",
                (int)t->hdr.federation_len, t->hdr.federation, at, last);
    else
        fprintf(out, "federation %.*s: state after record #%" PRIu64 "%s\n",
                (int)t->hdr.federation_len, t->hdr.federation, last,
                at       ? ""
                : t->cut ? " (the last complete record: the log is cut)"
                         : " (end of log)");
    int64_t end_wall = t->last_wall_ns;
    if (!at) {
        /* Waits are measured to the last record: with the RTI's closing record, or its "rti
         * alive" note written every second of silence, that is when the wait ended or now. */
        if (t->closed)
            fprintf(out, "(the log ends with the RTI's closing record; waits below are measured "
                         "to it)\n");
        else
            tlog_report_end(t, out);
    }
    size_t n = tm_count(rr.st);
    tm_status *v = calloc(n ? n : 1, sizeof *v);
    if (!v) {
        tm_free(rr.st);
        free(rr.fi), free(rr.recv);
        fprintf(stderr, "tempo-log: out of memory\n");
        return 1;
    }
    tm_status_all(rr.st, v, n);
    fprintf(out, "\nfederates (logical time, pending request, bound, GALT and its holder; "
                 "seconds, ticks in brackets):\n");
    if (n == 0) fprintf(out, "  none joined at this point (all resigned, or none joined yet)\n");
    for (size_t i = 0; i < n; i++)
        status_line(t, v, n, &v[i], out);
    fprintf(out, "\nwho waits for whom:\n");
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].stalled) {
            any = 1;
            stall(t, &rr, v, n, &v[i], out);
            continue;
        }
        if (!v[i].blocked) continue;
        any = 1;
        const struct fedinfo *fi = v[i].fed < rr.ficap ? &rr.fi[v[i].fed] : NULL;
        if (fi && fi->req_seq)
            fprintf(out,
                    "  (%s's request is record #%" PRIu64 ", pending for %.6f s of wall "
                    "time to the last record)\n",
                    v[i].name, fi->req_seq, (double)(end_wall - fi->req_wall) / 1e9);
        chain(t, rr.st, v, n, &v[i], out);
    }
    if (!any)
        fprintf(out, "  nobody: no federate has a pending request or polls without progress\n");
    fprintf(out, "\nlast recorded grant reasons (ticks):\n");
    for (size_t i = 0; i < n; i++) {
        const struct fedinfo *fi = v[i].fed < rr.ficap ? &rr.fi[v[i].fed] : NULL;
        if (fi && fi->grant_seq)
            fprintf(out, "  %s (record #%" PRIu64 "): %s\n", v[i].name, fi->grant_seq,
                    fi->grant_why);
    }
    fprintf(out,
            "\nre-run check: %" PRIu64 " grants re-derived, %" PRIu64
            " TIME_GRANT frames recorded%s\n",
            rr.grants, rr.rec_grants,
            rr.grants == rr.rec_grants ? " (they agree)" : " (they DIFFER: read with care)");
    if (rr.tm_errors)
        fprintf(out,
                "  %" PRIu64 " recorded inputs were refused by the re-run engine "
                "(the RTI refused them too, or the log misses inputs)\n",
                rr.tm_errors);
    if (rr.tso_updates && !rr.tm_sends)
        fprintf(out,
                "  warning: the log has %" PRIu64 " time-stamped sends but no TM_SEND "
                "records: queued messages (and NER bounds) are not re-derived\n",
                rr.tso_updates);
    free(v);
    tm_free(rr.st);
    free(rr.fi);
    free(rr.recv);
    return 0;
}
