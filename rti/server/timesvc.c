/* Time-management glue between the server and the pure engine rti/tm/tm.c: routes requests to
 * tm, keeps time-stamped payloads until tm delivers or discards them, sends tm's decisions in
 * its order and logs each grant with tm's reason ("who blocks whom").
 * Serves doc/protocol.md (TSO queued at the RTI) and §5. Read rti/tm/tm.h, then doc/rti.md. */
#include "rti/server/server_impl.h"

#include "rti/flog/flog.h"
#include "rti/proto/ckpt.h"
#include "rti/server/limits.h"
#include "rti/server/log.h"
#include "rti/tm/tm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FREE_MSGS_MAX       4096  /* recycled message records kept for reuse */
#define FREE_MSG_KEEP_BYTES 65536 /* a recycled record keeps at most this much storage */

/* One receiver's frame inside a message record. */
struct tso_entry {
    uint64_t to;  /* receiver federate handle */
    uint32_t off; /* frame offset in the record's data */
    uint32_t len; /* frame bytes */
};

/* One time-stamped message: the frame for each receiver, kept until tm delivers or discards
 * it for every receiver. Its address is the tm token. Records are recycled through a free
 * list, so a warm federation allocates nothing per message (doc/contributing.md §8). */
struct tso_msg {
    struct tso_entry *ent; /* [n] */
    uint32_t n, cap;       /* receivers, allocated entries */
    uint32_t remaining;    /* receivers not yet delivered or discarded */
    struct buf data;       /* the frames, back to back */
    struct tso_msg *next;  /* free-list link */
    struct charge charge;  /* the sender's accounts (QR_PENDING 1) while any receiver waits */
    int in_free;           /* 1 while on the free list (a record is recycled exactly once) */
};

struct tsoq {
    struct tso_msg *free; /* recycled records */
    uint32_t n_free;
    struct tso_msg *cur;     /* record being built between begin and commit, or NULL */
    struct federate *sender; /* of cur */
    int64_t ts;              /* of cur */
    int cur_failed;          /* 1: an add failed (out of memory): commit refuses */
    tm_fed *recv;            /* scratch receiver list for tm_send */
    uint32_t recv_cap;
    uint64_t live; /* records handed to tm and not yet finished */
};

/* ---- message records ---------------------------------------------------------------------- */

static void msg_destroy(struct tso_msg *m)
{
    free(m->ent);
    buf_fini(&m->data);
    free(m);
}

static void msg_recycle(struct tsoq *q, struct tso_msg *m)
{
    if (m->in_free) { /* recycled twice would corrupt the free list: refuse, never abort */
        LOGE("tm", "-", "message record %p recycled twice (ignored)", (void *)m);
        return;
    }
    if (q->n_free >= FREE_MSGS_MAX || m->data.cap > FREE_MSG_KEEP_BYTES) {
        msg_destroy(m);
        return;
    }
    m->n = 0;
    m->remaining = 0;
    buf_clear(&m->data);
    m->next = q->free;
    m->in_free = 1;
    q->free = m;
    q->n_free++;
}

static struct tso_msg *msg_get(struct tsoq *q)
{
    struct tso_msg *m = q->free;
    if (m) {
        q->free = m->next;
        q->n_free--;
        m->in_free = 0;
        return m;
    }
    return calloc(1, sizeof *m);
}

/* Set the order field of an encoded REFLECT / REMOVE_OBJECT / RECEIVE_INTERACTION: those
 * layouts carry no req, so the u32 code is the first body field, at byte 8 (rti/proto/wire.h). */
static void set_order(uint8_t *frame, int tso)
{
    uint32_t v = tso ? WIRE_ORDER_TSO : WIRE_ORDER_RO;
    frame[8] = (uint8_t)v;
    frame[9] = frame[10] = frame[11] = 0;
}

/* ---- decisions ---------------------------------------------------------------------------- */

static int status_of(int tmrc)
{
    switch (tmrc) {
    case TM_EEXISTS:
        return STATUS_EEXISTS;
    case TM_ETIME:
        return STATUS_ETIME;
    case TM_EPENDING:
        return STATUS_EPENDING;
    case TM_EBOUND:
        return STATUS_EBOUND;
    case TM_EENABLED:
        return STATUS_EENABLED;
    case TM_ENOTENABLED:
        return STATUS_ENOTENABLED;
    case TM_ELOOKAHEAD:
    case TM_EINVAL:
        return STATUS_EINVAL;
    case TM_EUNKNOWN:
        return STATUS_ESTATE;
    default:
        return STATUS_EREFUSED;
    }
}

static void finish_one(struct server *s, struct tsoq *q, struct tso_msg *m)
{
    if (m->remaining > 0 && --m->remaining == 0) {
        limits_uncharge(s, &m->charge, QR_PENDING, 1);
        q->live--;
        msg_recycle(q, m);
    }
}

/* DELIVER (send) or DISCARD (send nothing) one receiver's frame of a record, and log the
 * decision d (with the frame, for a delivery that is sent: one record); to is the receiver
 * d->fed, or NULL once it has resigned. */
static void release(struct server *s, struct federation *fx, struct federate *to,
                    const tm_decision *d, int send)
{
    struct tso_msg *m = (struct tso_msg *)(uintptr_t)d->token;
    int logged = 0;
    for (uint32_t i = 0; i < m->n; i++) {
        if (m->ent[i].to != d->fed) continue;
        if (to) to->tso_bytes -= m->ent[i].len;
        uint8_t *frame = m->data.data + m->ent[i].off;
        set_order(frame, d->tso);
        if (send && to && to->conn) {
            flog_delivered(fx->flog, d, frame, m->ent[i].len);
            federate_send_unlogged(s, to, frame, m->ent[i].len);
            logged = 1;
        }
        break;
    }
    if (!logged) flog_decision(fx->flog, d);
    finish_one(s, fx->tsoq, m);
}

/* The tm sink: called in order, synchronously, from inside the tm_* call. */
static void sink(void *ctx, const tm_decision *d)
{
    struct federation *fx = ctx;
    struct server *s = fx->srv;
    struct federate *f = federation_federate(fx, d->fed);
    struct wire_msg m;
    /* Progress, as the engine counts it (a delivery, or a grant past the previous time): the
     * live view's sign that a federation moves (rti/server/live_json.c). */
    if (f && (d->kind == TM_D_DELIVER ||
              (d->kind == TM_D_GRANT && d->grant && d->time > d->grant->prev)))
        f->progress++;
    if (d->kind == TM_D_DELIVER || d->kind == TM_D_DISCARD) {
        release(s, fx, f, d, d->kind == TM_D_DELIVER); /* logs d */
        return;
    }
    flog_decision(fx->flog, d);
    switch (d->kind) {
    case TM_D_GRANT:
        LOGD("tm", f ? f->tag : "?", "grant %s -> %lld: %s", tm_req_name(d->req),
             (long long)d->time, d->reason);
        if (f && fx->save) save_before_grant(s, f, d->time); /* HLA's timed save */
        wire_msg_init(&m, WIRE_TIME_GRANT);
        m.code = (uint32_t)d->req;
        m.time = d->time;
        break;
    case TM_D_REG_ENABLED:
        LOGD("tm", f ? f->tag : "?", "regulation enabled at %lld: %s", (long long)d->time,
             d->reason);
        wire_msg_init(&m, WIRE_REGULATION_ENABLED);
        m.time = d->time;
        /* the bound it starts with: above T + L when others were promised more (a late
         * regulator); the library checks its sends against it */
        tm_status rs;
        if (tm_query(fx->tm, d->fed, &rs, NULL, 0) == TM_OK && rs.regulating) {
            m.time2 = rs.bound.t;
            m.code = rs.bound.strict ? 1u : 0u;
        }
        break;
    case TM_D_CON_ENABLED:
        LOGD("tm", f ? f->tag : "?", "constrained enabled at %lld: %s", (long long)d->time,
             d->reason);
        wire_msg_init(&m, WIRE_CONSTRAINED_ENABLED);
        m.time = d->time;
        break;
    case TM_D_REFUSED:
        LOGD("tm", f ? f->tag : "?", "refused (%s): %s", tm_strerror(d->code), d->reason);
        return;
    default:
        return;
    }
    if (f && f->conn) server_send(s, f->conn, &m);
}

/* ---- life cycle --------------------------------------------------------------------------- */

int timesvc_init(struct federation *fx, char *err, size_t errlen)
{
    fx->tsoq = calloc(1, sizeof *fx->tsoq);
    if (!fx->tsoq) {
        snprintf(err, errlen, "federation '%s': out of memory", fx->name);
        return -1;
    }
    char terr[TM_ERR_LEN];
    if (tm_new(&fx->tm, sink, fx, terr, sizeof terr) != TM_OK) {
        snprintf(err, errlen, "federation '%s': time management: %s", fx->name, terr);
        return -1;
    }
    if (fx->srv && fx->srv->cfg.shuffle_ties) tm_set_tie_shuffle(fx->tm, fx->srv->cfg.shuffle_ties);
    return 0;
}

void timesvc_fini(struct federation *fx)
{
    tm_free(fx->tm);
    fx->tm = NULL;
    struct tsoq *q = fx->tsoq;
    if (!q) return;
    if (q->live)
        LOGE("tm", "-", "federation '%s': %llu message record(s) still held by tm at destroy",
             fx->name, (unsigned long long)q->live);
    if (q->cur) msg_destroy(q->cur);
    while (q->free) {
        struct tso_msg *m = q->free;
        q->free = m->next;
        msg_destroy(m);
    }
    free(q->recv);
    free(q);
    fx->tsoq = NULL;
}

void timesvc_settings(struct federation *fx)
{
    /* tm's reason texts are read only by the debug log and the federation log; unread,
     * formatting them was half of the RTI's own work per grant. Both are fixed before the
     * first join (the level at start-up, the log when the federation is created). */
    tm_set_reasons(fx->tm, log_enabled(LOG_LV_DEBUG) || fx->flog != NULL);
    /* The federation log stores a delivery's rule as a code (tm_decision.rule) and rebuilds
     * its text when read, so only the debug log needs deliveries formatted: they are most
     * decisions, and formatting them was half of the log's cost per step. */
    tm_set_delivery_reasons(fx->tm, log_enabled(LOG_LV_DEBUG));
    /* Grants likewise: the log stores their facts (row, GALT, holder; the holder is looked
     * up while reasons are on) and tempo-log words them. */
    tm_set_grant_reasons(fx->tm, log_enabled(LOG_LV_DEBUG));
}

int timesvc_join(struct server *s, struct federate *f)
{
    char err[TM_ERR_LEN];
    timesvc_settings(f->fx);
    int rc = tm_join(f->fx->tm, (tm_fed)f->handle, f->name, err, sizeof err);
    if (rc != TM_OK) {
        LOGE("tm", f->tag, "join refused by time management: %s", err);
        return -1;
    }
    return 0;
}

void timesvc_resign(struct server *s, struct federate *f)
{
    char err[TM_ERR_LEN];
    if (tm_resign(f->fx->tm, (tm_fed)f->handle, err, sizeof err) != TM_OK)
        LOGE("tm", f->tag, "resign: %s", err);
}

/* ---- time-stamped messages ---------------------------------------------------------------- */

void timesvc_begin(struct server *s, struct federate *f, int64_t ts)
{
    struct tsoq *q = f->fx->tsoq;
    if (q->cur) msg_recycle(q, q->cur); /* an earlier build was abandoned */
    q->cur = msg_get(q);
    q->sender = f;
    q->ts = ts;
    q->cur_failed = q->cur == NULL;
}

void timesvc_add(struct server *s, struct federate *to, const uint8_t *frame, size_t len)
{
    struct tsoq *q = to->fx->tsoq;
    struct tso_msg *m = q->cur;
    if (!m || q->cur_failed) return;
    if (m->n == m->cap) {
        uint32_t cap = m->cap ? 2 * m->cap : 4;
        struct tso_entry *e = realloc(m->ent, cap * sizeof *e);
        if (!e) {
            q->cur_failed = 1;
            return;
        }
        m->ent = e;
        m->cap = cap;
    }
    if (len > UINT32_MAX || m->data.len > UINT32_MAX - len ||
        buf_append(&m->data, frame, len) != 0) {
        q->cur_failed = 1;
        return;
    }
    m->ent[m->n].to = to->handle;
    m->ent[m->n].off = (uint32_t)(m->data.len - len);
    m->ent[m->n].len = (uint32_t)len;
    m->n++;
}

int timesvc_commit(struct server *s, struct federate *f, char *err, size_t errlen)
{
    struct tsoq *q = f->fx->tsoq;
    if (!q->cur) {
        snprintf(err, errlen, "out of memory queueing a time-stamped message");
        return STATUS_EREFUSED;
    }
    struct tso_msg *m = q->cur;
    q->cur = NULL;
    if (q->cur_failed) {
        msg_recycle(q, m);
        snprintf(err, errlen, "out of memory queueing a time-stamped message");
        return STATUS_EREFUSED;
    }
    if (m->n > q->recv_cap) {
        tm_fed *r = realloc(q->recv, m->n * sizeof *r);
        if (!r) {
            msg_recycle(q, m);
            snprintf(err, errlen, "out of memory queueing a time-stamped message");
            return STATUS_EREFUSED;
        }
        q->recv = r;
        q->recv_cap = m->n;
    }
    /* Bounded memory (doc/rti.md, limits): what waits here for one receiver is capped like its
     * output queue. Refusing the send (the sender gets the error) loses nothing silently and,
     * unlike pausing the sender, cannot deadlock a receiver that waits for the sender's
     * next time request. */
    size_t limit = s->hub.lim.high_water; /* half the output limit: a grant that releases
                                              all of it at once still fits the output queue */
    for (uint32_t i = 0; i < m->n; i++) {
        struct federate *to = federation_federate(f->fx, m->ent[i].to);
        if (to && to->tso_bytes + m->ent[i].len > limit) {
            snprintf(err, errlen,
                     "time-stamped send at %lld refused: %zu bytes already wait for federate "
                     "'%s' to advance (limit: half of --max-queued-bytes, %zu)",
                     (long long)q->ts, to->tso_bytes, to->name, limit);
            msg_recycle(q, m);
            return STATUS_EREFUSED;
        }
    }
    for (uint32_t i = 0; i < m->n; i++) {
        q->recv[i] = (tm_fed)m->ent[i].to;
        struct federate *to = federation_federate(f->fx, m->ent[i].to);
        if (to) to->tso_bytes += m->ent[i].len;
    }
    /* n is kept aside: when tm delivers to every receiver inside tm_send (receive order),
     * the record is recycled there and m->n no longer describes this message. */
    uint32_t n = m->n;
    /* What waits here counts against the sender's connection and address until its last
     * receiver has it (doc/rti.md "Memory quotas"); charging only adds, it allocates nothing. */
    if (n) {
        int st = limits_charge(s, federate_accts(f), &m->charge, QR_PENDING, 1, "time-stamped send",
                               f->name, err, errlen);
        if (st != STATUS_OK) {
            for (uint32_t i = 0; i < n; i++) {
                struct federate *to = federation_federate(f->fx, m->ent[i].to);
                if (to) to->tso_bytes -= m->ent[i].len;
            }
            msg_recycle(q, m);
            return st;
        }
    }
    m->remaining = n;
    if (n) q->live++;
    char terr[TM_ERR_LEN];
    flog_tm_send(f->fx->flog, (uint32_t)f->handle, q->ts, q->recv, n, (uint64_t)(uintptr_t)m);
    int rc = tm_send(f->fx->tm, (tm_fed)f->handle, q->ts, q->recv, n, (uint64_t)(uintptr_t)m, terr,
                     sizeof terr);
    if (rc != TM_OK) { /* tm changed nothing and made no decision: m is still ours */
        limits_uncharge(s, &m->charge, QR_PENDING, 1);
        if (n) q->live--;
        for (uint32_t i = 0; i < n; i++) {
            struct federate *to = federation_federate(f->fx, m->ent[i].to);
            if (to) to->tso_bytes -= m->ent[i].len;
        }
        msg_recycle(q, m);
        snprintf(err, errlen, "time-stamped send at %lld refused: %s", (long long)q->ts, terr);
        return status_of(rc);
    }
    if (n == 0) msg_recycle(q, m); /* no receiver: tm holds no reference to it */
    return STATUS_OK;
}

/* ---- requests ----------------------------------------------------------------------------- */

static void query_time(struct server *s, struct federate *f, const struct wire_msg *m)
{
    struct federation *fx = f->fx;
    size_t n = tm_count(fx->tm);
    tm_status *st = calloc(n ? n : 1, sizeof *st);
    uint8_t *packed = calloc(n ? n : 1, WIRE_TSTAT_SIZE);
    struct wire_value *vals = calloc(n ? n : 1, sizeof *vals);
    if (!st || !packed || !vals) {
        server_refuse(s, f->conn, m->req, m->type, STATUS_EREFUSED, "QUERY_TIME: out of memory");
        goto out;
    }
    n = tm_status_all(fx->tm, st, n);
    int64_t least = WIRE_TIME_NONE;
    for (size_t i = 0; i < n; i++) {
        struct wire_tstat t = {
            .federate = st[i].fed,
            .time = st[i].time,
            .req_kind = (uint32_t)st[i].req,
            .req_time = st[i].req == TM_REQ_NONE ? WIRE_TIME_NONE : st[i].req_time,
            .bound = st[i].bound.t,
            .bound_strict = st[i].bound.strict,
            .galt = st[i].galt.t,
            .galt_strict = st[i].galt.strict,
            .holder = st[i].galt_holder,
            .lits = st[i].lits,
            .root = st[i].galt_root,
            .polls = st[i].polls,
        };
        tm_fed w = TM_NO_FED;
        if (st[i].stalled && tm_stall_waits_for(f->fx->tm, st[i].fed, &w, 1) > 0) t.waits_for = w;
        wire_tstat_pack(&t, packed + i * WIRE_TSTAT_SIZE);
        vals[i].handle = st[i].fed;
        vals[i].len = WIRE_TSTAT_SIZE;
        vals[i].data = packed + i * WIRE_TSTAT_SIZE;
        if (least == WIRE_TIME_NONE || st[i].time < least) least = st[i].time;
    }
    struct wire_msg r;
    wire_msg_init(&r, WIRE_TIME_STATUS);
    r.req = m->req;
    r.time = least;
    r.nvalues = (uint32_t)n;
    r.values = vals;
    server_send(s, f->conn, &r);
out:
    free(st);
    free(packed);
    free(vals);
}

void timesvc_handle(struct server *s, struct federate *f, const struct wire_msg *m)
{
    char err[TM_ERR_LEN];
    tm_state *tm = f->fx->tm;
    tm_fed h = (tm_fed)f->handle;
    int rc;
    err[0] = '\0';
    switch (m->type) {
    case WIRE_ENABLE_REGULATION:
        rc = tm_enable_regulation(tm, h, m->time2, err, sizeof err);
        break;
    case WIRE_DISABLE_REGULATION:
        rc = tm_disable_regulation(tm, h, err, sizeof err);
        break;
    case WIRE_ENABLE_CONSTRAINED:
        rc = tm_enable_constrained(tm, h, err, sizeof err);
        break;
    case WIRE_DISABLE_CONSTRAINED:
        rc = tm_disable_constrained(tm, h, err, sizeof err);
        break;
    case WIRE_MODIFY_LOOKAHEAD:
        rc = tm_modify_lookahead(tm, h, m->time2, err, sizeof err);
        break;
    case WIRE_TIME_REQUEST:
        LOGD("tm", f->tag, "request %s(%lld)", tm_req_name((tm_req)m->code), (long long)m->time);
        f->last_req = m->time;
        rc = tm_request(tm, h, (tm_req)m->code, m->time, err, sizeof err);
        break;
    default:
        query_time(s, f, m);
        return;
    }
    if (!f->conn) return;
    if (rc != TM_OK)
        server_refuse(s, f->conn, m->req, m->type, (uint32_t)status_of(rc), err);
    else if (m->req)
        server_reply(s, f->conn, m->req, STATUS_OK, 0, "");
}

int timesvc_status(struct federation *fx,
                   void (*emit)(void *ctx, const char *tag, const char *line), void *ctx)
{
    size_t n = tm_count(fx->tm);
    tm_status *st = calloc(n ? n : 1, sizeof *st);
    if (!st) return 0;
    n = tm_status_all(fx->tm, st, n);
    char line[600];
    snprintf(line, sizeof line, "federation '%s': %zu federate(s), %u object(s)", fx->name, n,
             fx->n_objects);
    emit(ctx, "-", line);
    for (size_t i = 0; i < n; i++) {
        tm_status_format(&st[i], fx->tm, line, sizeof line);
        struct federate *f = federation_federate(fx, st[i].fed);
        emit(ctx, f ? f->tag : "?", line);
    }
    /* The federate to look at: the rule of the live view and tempo-log explain (tm_look_at). */
    bool cycle = false;
    size_t waiting = 0;
    tm_fed r = tm_look_at(fx->tm, st, n, &waiting, &cycle);
    struct federate *rf = r != TM_NO_FED ? federation_federate(fx, r) : NULL;
    if (rf)
        snprintf(line, sizeof line,
                 "federation '%s': the federate to look at: %s (%zu waiting federate(s) wait for "
                 "it, directly or through others; it does not wait for anyone)",
                 fx->name, rf->name, waiting);
    else
        snprintf(line, sizeof line, "federation '%s': the federate to look at: %s", fx->name,
                 cycle ? "none, a cycle: federates wait for each other"
                       : "none (no federate waits for another)");
    emit(ctx, "-", line);
    free(st);
    return rf != NULL;
}

static void dump_line(void *ctx, const char *tag, const char *line)
{
    (void)ctx;
    log_write(LOG_LV_INFO, "tm", tag, "%s", line);
}

void timesvc_dump(struct server *s, struct federation *fx)
{
    (void)s;
    timesvc_status(fx, dump_line, NULL);
}

/* ---- checkpoints (doc/checkpoint.md "The RTI's part") -------------------------------------- */

/* The distinct tokens queued in tm, gathered through tm_map_tokens. */
struct token_set {
    uint64_t *v; /* tokens (sorted and unique after tokens_gather) */
    size_t n, cap;
    int nomem; /* 1: the array could not grow */
};

static uint64_t token_collect(void *ctx, uint64_t token)
{
    struct token_set *t = ctx;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        uint64_t *v = realloc(t->v, cap * sizeof *v);
        if (!v) {
            t->nomem = 1;
            return token;
        }
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n++] = token;
    return token;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int timesvc_save(struct federation *fx, struct buf *b, char *err, size_t errlen)
{
    struct token_set t = {0};
    tm_map_tokens(fx->tm, token_collect, &t);
    if (t.nomem) {
        free(t.v);
        snprintf(err, errlen, "out of memory listing the queued messages");
        return -1;
    }
    if (t.n) qsort(t.v, t.n, sizeof *t.v, u64_cmp);
    size_t u = 0;
    for (size_t i = 0; i < t.n; i++)
        if (u == 0 || t.v[u - 1] != t.v[i]) t.v[u++] = t.v[i];
    /* Each record once, with every receiver's frame: those delivered already are kept too
     * (the record's offsets stay valid); `remaining` says how many receivers still wait. */
    int rc = ckpt_put_u32(b, (uint32_t)u);
    for (size_t i = 0; i < u && rc == 0; i++) {
        const struct tso_msg *m = (const struct tso_msg *)(uintptr_t)t.v[i];
        rc |= ckpt_put_u64(b, t.v[i]) | ckpt_put_u32(b, m->remaining) | ckpt_put_u32(b, m->n);
        for (uint32_t k = 0; k < m->n && rc == 0; k++) {
            rc |= ckpt_put_u64(b, m->ent[k].to) | ckpt_put_u32(b, m->ent[k].len);
            rc |= buf_append(b, m->data.data + m->ent[k].off, m->ent[k].len);
        }
    }
    free(t.v);
    char terr[TM_ERR_LEN];
    size_t at = b->len;
    if (rc != 0 || ckpt_put_u64(b, 0) != 0 || tm_save(fx->tm, b, terr, sizeof terr) != TM_OK) {
        snprintf(err, errlen, "out of memory writing the time-management state");
        return -1;
    }
    uint64_t n = b->len - at - 8; /* the length, written in front of tm_save's bytes */
    for (int k = 0; k < 8; k++)
        b->data[at + k] = (uint8_t)(n >> (8 * k));
    return 0;
}

/* Old token -> new record, sorted by old token for bsearch. */
struct token_map {
    uint64_t old;
    struct tso_msg *m;
    uint32_t seen; /* receivers whose queue holds it */
};

struct token_ctx {
    struct token_map *map;
    size_t n;
    int missing; /* a queued token no record names */
};

static int map_cmp(const void *a, const void *b)
{
    return u64_cmp(&((const struct token_map *)a)->old, &((const struct token_map *)b)->old);
}

static uint64_t token_remap(void *ctx, uint64_t token)
{
    struct token_ctx *c = ctx;
    struct token_map key = {token, NULL, 0};
    struct token_map *hit = c->n ? bsearch(&key, c->map, c->n, sizeof key, map_cmp) : NULL;
    if (!hit) {
        c->missing = 1;
        return token;
    }
    hit->seen++;
    return (uint64_t)(uintptr_t)hit->m;
}

/* Read the records into map (fresh records, owned by the map until the end). */
static int read_records(struct federation *fx, struct ckpt_dec *d, struct token_ctx *c, char *err,
                        size_t errlen)
{
    uint32_t n = ckpt_get_u32(d);
    if (d->bad || n > (d->n - d->off) / 16) {
        snprintf(err, errlen, "queued messages: count %u past the end of the part", n);
        return -1;
    }
    c->map = calloc(n ? n : 1, sizeof *c->map);
    if (!c->map) {
        snprintf(err, errlen, "out of memory for %u queued messages", n);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        struct tso_msg *m = calloc(1, sizeof *m);
        if (!m) {
            snprintf(err, errlen, "out of memory for queued message %u", i);
            return -1;
        }
        c->map[c->n].m = m;
        c->map[c->n].old = ckpt_get_u64(d);
        c->n++;
        m->remaining = ckpt_get_u32(d);
        uint32_t ne = ckpt_get_u32(d);
        if (d->bad || ne == 0 || m->remaining == 0 || m->remaining > ne ||
            ne > (d->n - d->off) / 12) {
            snprintf(err, errlen, "queued message %u: %u receivers, %u waiting: impossible", i, ne,
                     m->remaining);
            return -1;
        }
        m->ent = calloc(ne, sizeof *m->ent);
        if (!m->ent) {
            snprintf(err, errlen, "out of memory for queued message %u", i);
            return -1;
        }
        m->cap = ne;
        for (uint32_t k = 0; k < ne; k++) {
            uint64_t to = ckpt_get_u64(d);
            uint32_t len = ckpt_get_u32(d);
            if (d->bad || len > d->n - d->off || len < WIRE_HEADER_SIZE + 4 ||
                !federation_federate(fx, to) || m->data.len > UINT32_MAX - len) {
                snprintf(err, errlen, "queued message %u, receiver %u: bad receiver or frame", i,
                         k);
                return -1;
            }
            m->ent[k] = (struct tso_entry){to, (uint32_t)m->data.len, len};
            if (buf_append(&m->data, d->p + d->off, len) != 0) {
                snprintf(err, errlen, "out of memory for queued message %u", i);
                return -1;
            }
            d->off += len;
            m->n++;
        }
    }
    if (c->n) qsort(c->map, c->n, sizeof *c->map, map_cmp);
    for (size_t i = 1; i < c->n; i++)
        if (c->map[i].old == c->map[i - 1].old) {
            snprintf(err, errlen, "queued messages: token %llx listed twice",
                     (unsigned long long)c->map[i].old);
            return -1;
        }
    return 0;
}

int timesvc_restore(struct federation *fx, struct ckpt_dec *d, char *err, size_t errlen)
{
    struct tsoq *q = fx->tsoq;
    struct token_ctx c = {0};
    tm_state *tm = NULL;
    int rc = read_records(fx, d, &c, err, errlen);
    if (rc == 0) {
        uint64_t n = ckpt_get_u64(d);
        char terr[TM_ERR_LEN];
        if (d->bad || n > d->n - d->off) {
            snprintf(err, errlen, "time-management state: length %llu past the end of the part",
                     (unsigned long long)n);
            rc = -1;
        } else if (tm_restore(&tm, d->p + d->off, (size_t)n, sink, fx, terr, sizeof terr) !=
                   TM_OK) {
            snprintf(err, errlen, "time-management state: %s", terr);
            rc = -1;
        } else {
            d->off += (size_t)n;
        }
    }
    if (rc == 0) {
        tm_map_tokens(tm, token_remap, &c);
        /* every federate of the engine is one of the federation's, and no other */
        tm_status st;
        size_t joined = 0;
        for (uint32_t i = 0; i < fx->slot_cap; i++)
            if (fx->slots[i]) {
                joined++;
                if (tm_query(tm, (tm_fed)fx->slots[i]->handle, &st, NULL, 0) != TM_OK) {
                    snprintf(err, errlen, "federate '%s' is missing from the time-management state",
                             fx->slots[i]->name);
                    rc = -1;
                }
            }
        if (rc == 0 && tm_count(tm) != joined) {
            snprintf(err, errlen,
                     "the time-management state holds %zu federates, the federation %zu",
                     tm_count(tm), joined);
            rc = -1;
        }
        if (rc == 0 && c.missing) {
            snprintf(err, errlen, "a queued message names no saved payload");
            rc = -1;
        }
        for (size_t i = 0; rc == 0 && i < c.n; i++)
            if (c.map[i].seen != c.map[i].m->remaining) {
                snprintf(err, errlen,
                         "queued message %zu waits for %u receivers, %u queues hold it", i,
                         c.map[i].m->remaining, c.map[i].seen);
                rc = -1;
            }
    }
    if (rc != 0) {
        tm_free(tm); /* its tokens were never handed to the sink */
        for (size_t i = 0; i < c.n; i++)
            msg_destroy(c.map[i].m);
        free(c.map);
        return -1;
    }
    tm_free(fx->tm);
    fx->tm = tm;
    q->live += c.n; /* each is queued for `remaining` >= 1 receivers (checked above) */
    free(c.map);
    timesvc_settings(fx);
    return 0;
}
