/* The in-memory peer exchange (inproc_impl.h): one federation's time management done by the
 * RTI's engine (rti/tm/tm.h, used as a library through its public header only; this is the
 * one file of federate/ that includes it). Each peer thread calls the engine under one mutex;
 * grants and deliveries come back through the engine's sink and wake the waiting thread.
 * Why the deliveries are the RTI's: the receivers of an update are chosen as rti/server/om.c
 * chooses them (the subscribers of its class other than the sender, given that every input
 * wire names a published attribute and one federate publishes each class, as fedfile_load
 * checks), the sends, requests and their order per federate are the algorithm's, and the
 * engine decides the rest. doc/algorithms/port.md ("In one process").
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/fmufed/fmufed.h"
#include "federate/inproc/inproc_impl.h"
#include "rti/tm/tm.h"

/* The exchange's request kinds and "no time" are the engine's (algorithms/exchange.h). */
_Static_assert((int)PEER_CLOSE == (int)TM_REQ_TAR && (int)PEER_OPEN == (int)TM_REQ_TARA &&
                   (int)PEER_EVENT_CLOSE == (int)TM_REQ_NER &&
                   (int)PEER_EVENT_OPEN == (int)TM_REQ_NERA && (int)PEER_FLUSH == (int)TM_REQ_FQR,
               "peer_req mirrors tm_req");
_Static_assert(PEER_NO_TIME == TM_NO_TIME, "PEER_NO_TIME mirrors TM_NO_TIME");

/* One message in flight: an object update (one class of the sender's outputs) or the
 * StepForward token. Its slot is reused once every receiver had it. */
typedef struct msg {
    size_t sender;          /* federate index */
    const char *cls;        /* update: the class (the sender's wiring); NULL: the token */
    size_t n;               /* values */
    const fedfile_wire **w; /* n wires of the sender (attribute names) */
    double *v;              /* n values */
    size_t remaining;       /* receivers that have not had it yet */
    size_t next_free;       /* free-list link */
} msg;

/* One federate as the hub sees it. */
typedef struct member {
    inproc_hub *h;
    size_t idx;
    tm_fed fed; /* idx + 1 */
    const fedfile_fed *fd;
    peer_input *in;  /* fd->n_inputs: newest received */
    int64_t token_t; /* newest StepForward stamp, PEER_NO_TIME */
    int granted;     /* a grant arrived for the pending request */
    int64_t grant_t;
    uint64_t sends_seen; /* hub->sends at the last grant (idle waits for a change) */
    int idling;          /* in x_idle: a send must wake it */
    pthread_cond_t cv;   /* its own wake-up: grants, sends while idling, failures */
    size_t *recv_cls;    /* scratch receivers */
    char *err;
    size_t errlen;
    inproc_stats *st;
} member;

struct inproc_hub {
    pthread_mutex_t mu; /* guards everything below and every member */
    const fedfile *ff;
    tm_state *tm;
    size_t n;
    member *m;
    tm_fed *recv; /* scratch: receivers of one send */
    msg *msgs;
    size_t n_msgs, cap_msgs, free_head; /* free list of slots; SIZE_MAX: empty */
    uint64_t sends;                     /* every send so far (idle's wake-up) */
    int failed;                         /* a peer stopped on a failure */
    size_t failed_idx;
};

static int fail(member *m, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(member *m, int code, const char *fmt, ...)
{
    if (!m->err || !m->errlen) return code;
    int n = snprintf(m->err, m->errlen, "federate %s: ", m->fd->name);
    if (n < 0 || (size_t)n >= m->errlen) return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->err + n, m->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return code;
}

/* ---- the engine's decisions (called under the mutex, inside tm_* calls) ----------------- */

static void deliver(inproc_hub *h, member *to, msg *g, int64_t ts)
{
    if (!g->cls) {
        if (to->token_t == PEER_NO_TIME || ts > to->token_t) to->token_t = ts;
    } else {
        /* Every input of the receiver wired to one of the update's attributes takes the value
         * (rti/server/om.c filters the attributes the same way); the newest stamp wins. */
        for (size_t i = 0; i < to->fd->n_inputs; i++) {
            const fedfile_wire *w = &to->fd->inputs[i];
            if (strcmp(w->cls, g->cls) != 0) continue;
            for (size_t k = 0; k < g->n; k++) {
                if (strcmp(w->attr, g->w[k]->attr) != 0) continue;
                to->in[i] = (peer_input){.v = g->v[k], .t = ts, .fresh = 1};
                if (to->st) to->st->reflections++;
            }
        }
    }
    if (--g->remaining == 0) {
        free(g->w);
        free(g->v);
        g->w = NULL;
        g->v = NULL;
        g->next_free = h->free_head;
        h->free_head = (size_t)(g - h->msgs);
    }
}

static void sink(void *ctx, const tm_decision *d)
{
    inproc_hub *h = ctx;
    if (d->fed == TM_NO_FED || d->fed > h->n) return;
    member *to = &h->m[d->fed - 1];
    switch (d->kind) {
    case TM_D_GRANT:
        to->granted = 1;
        to->grant_t = d->time;
        pthread_cond_signal(&to->cv);
        break;
    case TM_D_DELIVER:
        if (d->token < h->n_msgs) deliver(h, to, &h->msgs[d->token], d->time);
        break;
    default:
        break; /* enables, discards, refusals (the calls return those too) */
    }
}

/* ---- sends ------------------------------------------------------------------------------ */

static size_t msg_slot(inproc_hub *h)
{
    if (h->free_head != SIZE_MAX) {
        size_t k = h->free_head;
        h->free_head = h->msgs[k].next_free;
        return k;
    }
    if (h->n_msgs == h->cap_msgs) {
        size_t cap = h->cap_msgs ? 2 * h->cap_msgs : 64;
        msg *m = realloc(h->msgs, cap * sizeof *m);
        if (!m) return SIZE_MAX;
        h->msgs = m;
        h->cap_msgs = cap;
    }
    return h->n_msgs++;
}

/* Send message slot k to the n receivers in h->recv, stamped ts. Under the mutex. */
static int send_msg(member *m, size_t k, size_t n, int64_t ts)
{
    inproc_hub *h = m->h;
    h->msgs[k].remaining = n;
    char e[TM_ERR_LEN];
    int rc = n ? tm_send(h->tm, m->fed, ts, h->recv, n, (uint64_t)k, e, sizeof e) : TM_OK;
    if (rc != TM_OK || n == 0) {
        /* Nothing was queued (or nobody listens): release the slot. */
        free(h->msgs[k].w);
        free(h->msgs[k].v);
        h->msgs[k].w = NULL;
        h->msgs[k].v = NULL;
        h->msgs[k].next_free = h->free_head;
        h->free_head = k;
    }
    h->sends++;
    for (size_t j = 0; j < h->n; j++)
        if (h->m[j].idling) pthread_cond_signal(&h->m[j].cv);
    if (rc != TM_OK)
        return fail(m, PORT_ELOST, "send at %lld ticks: %s: %s", (long long)ts, tm_strerror(rc), e);
    return PORT_OK;
}

static int x_publish(void *ctx, int64_t ts, const double *y)
{
    member *m = ctx;
    inproc_hub *h = m->h;
    const fedfile_fed *fd = m->fd;
    int rc = PORT_OK;
    pthread_mutex_lock(&h->mu);
    for (size_t k = 0; k < fd->n_outputs && rc == PORT_OK; k++) {
        /* One update per class (tempo-fmu registers one object per published class). */
        int first = 1;
        for (size_t q = 0; q < k && first; q++)
            first = strcmp(fd->outputs[q].cls, fd->outputs[k].cls) != 0;
        if (!first) continue;
        size_t slot = msg_slot(h);
        if (slot == SIZE_MAX) {
            rc = fail(m, PORT_ENOMEM, "out of memory");
            break;
        }
        msg *g = &h->msgs[slot];
        *g = (msg){.sender = m->idx, .cls = fd->outputs[k].cls};
        g->w = calloc(fd->n_outputs, sizeof *g->w);
        g->v = calloc(fd->n_outputs, sizeof *g->v);
        if (!g->w || !g->v) {
            rc = fail(m, PORT_ENOMEM, "out of memory");
            send_msg(m, slot, 0, ts);
            break;
        }
        for (size_t q = k; q < fd->n_outputs; q++) {
            if (strcmp(fd->outputs[q].cls, g->cls) != 0) continue;
            g->w[g->n] = &fd->outputs[q];
            g->v[g->n++] = y[q];
        }
        /* Receivers: every other federate with an input wired to this class. */
        size_t n = 0;
        for (size_t j = 0; j < h->n; j++) {
            if (j == m->idx) continue;
            for (size_t i = 0; i < h->m[j].fd->n_inputs; i++)
                if (strcmp(h->m[j].fd->inputs[i].cls, g->cls) == 0) {
                    h->recv[n++] = h->m[j].fed;
                    break;
                }
        }
        rc = send_msg(m, slot, n, ts);
        if (rc == PORT_OK && m->st) m->st->updates++;
    }
    pthread_mutex_unlock(&h->mu);
    return rc;
}

static int x_token_send(void *ctx, int64_t ts)
{
    member *m = ctx;
    inproc_hub *h = m->h;
    pthread_mutex_lock(&h->mu);
    int rc = PORT_OK;
    size_t slot = msg_slot(h);
    if (slot == SIZE_MAX) {
        rc = fail(m, PORT_ENOMEM, "out of memory");
    } else {
        h->msgs[slot] = (msg){.sender = m->idx};
        size_t n = 0;
        for (size_t j = 0; j < h->n; j++)
            if (j != m->idx && h->ff->gs_plan && h->ff->gs_plan->role[j] == TOPO_ROLE_SOURCE)
                h->recv[n++] = h->m[j].fed;
        rc = send_msg(m, slot, n, ts);
    }
    pthread_mutex_unlock(&h->mu);
    return rc;
}

/* ---- requests and inputs ---------------------------------------------------------------- */

static int lost_peer(member *m)
{
    inproc_hub *h = m->h;
    return fail(m, PORT_ELOST, "federate %s left the federation before the end: it failed",
                h->m[h->failed_idx].fd->name);
}

static int x_request(void *ctx, peer_req kind, int64_t t, int64_t *granted)
{
    member *m = ctx;
    inproc_hub *h = m->h;
    char e[TM_ERR_LEN];
    pthread_mutex_lock(&h->mu);
    if (m->st) m->st->requests++;
    m->granted = 0;
    int rc = h->failed ? PORT_ELOST : PORT_OK;
    if (rc == PORT_OK) {
        int trc = tm_request(h->tm, m->fed, (tm_req)kind, t, e, sizeof e);
        if (trc != TM_OK)
            rc = fail(m, PORT_ELOST, "%s(%.9g s): %s: %s", peer_req_name(kind),
                      t * h->ff->resolution, tm_strerror(trc), e);
    } else {
        rc = lost_peer(m);
    }
    while (rc == PORT_OK && !m->granted && !h->failed)
        pthread_cond_wait(&m->cv, &h->mu);
    if (rc == PORT_OK && !m->granted) rc = lost_peer(m);
    if (rc == PORT_OK) {
        if (granted) *granted = m->grant_t;
        m->sends_seen = h->sends;
    }
    pthread_mutex_unlock(&h->mu);
    return rc;
}

static int x_inputs(void *ctx, peer_input *in)
{
    member *m = ctx;
    pthread_mutex_lock(&m->h->mu);
    for (size_t i = 0; i < m->fd->n_inputs; i++) {
        in[i] = m->in[i];
        m->in[i].fresh = 0;
    }
    pthread_mutex_unlock(&m->h->mu);
    return PORT_OK;
}

static int64_t x_token_time(void *ctx)
{
    member *m = ctx;
    pthread_mutex_lock(&m->h->mu);
    int64_t t = m->token_t;
    pthread_mutex_unlock(&m->h->mu);
    return t;
}

/* Nothing new after a flush: sleep until somebody sends (or fails). No time limit: a peer
 * that fails wakes everyone. */
static int x_idle(void *ctx, int attempt, int64_t t, const char *waiting_for)
{
    member *m = ctx;
    inproc_hub *h = m->h;
    pthread_mutex_lock(&h->mu);
    m->idling = 1;
    while (h->sends == m->sends_seen && !h->failed)
        pthread_cond_wait(&m->cv, &h->mu);
    m->idling = 0;
    int rc = h->failed ? lost_peer(m) : PORT_OK;
    pthread_mutex_unlock(&h->mu);
    return rc;
}

static const peer_exchange_ops hub_ops = {
    .publish = x_publish,
    .request = x_request,
    .inputs = x_inputs,
    .token_send = x_token_send,
    .token_time = x_token_time,
    .idle = x_idle,
};

/* ---- life ------------------------------------------------------------------------------- */

int inproc_hub_new(const fedfile *ff, int64_t lookahead, inproc_hub **out, char *err, size_t errlen)
{
    inproc_hub *h = calloc(1, sizeof *h);
    *out = h;
    if (!h) return FMUFED_ENOMEM;
    pthread_mutex_init(&h->mu, NULL);
    h->ff = ff;
    h->n = ff->n_feds;
    h->free_head = SIZE_MAX;
    h->m = calloc(h->n + 1, sizeof *h->m);
    h->recv = calloc(h->n + 1, sizeof *h->recv);
    if (!h->m || !h->recv) return FMUFED_ENOMEM;
    char e[TM_ERR_LEN];
    int rc = tm_new(&h->tm, sink, h, e, sizeof e);
    if (rc == TM_OK) tm_set_reasons(h->tm, false);
    for (size_t i = 0; i < h->n && rc == TM_OK; i++) {
        member *m = &h->m[i];
        *m = (member){
            .h = h, .idx = i, .fed = (tm_fed)(i + 1), .fd = &ff->feds[i], .token_t = PEER_NO_TIME};
        pthread_cond_init(&m->cv, NULL);
        m->in = calloc(m->fd->n_inputs + 1, sizeof *m->in);
        if (!m->in) return FMUFED_ENOMEM;
        for (size_t k = 0; k < m->fd->n_inputs; k++)
            m->in[k].t = PEER_NO_TIME;
        rc = tm_join(h->tm, m->fed, m->fd->name, e, sizeof e);
    }
    /* Regulation first, for everybody, then constrained: the state tempo-fmu federates are in
     * when they pass the start sync point. */
    for (size_t i = 0; i < h->n && rc == TM_OK; i++)
        rc = tm_enable_regulation(h->tm, h->m[i].fed, lookahead, e, sizeof e);
    for (size_t i = 0; i < h->n && rc == TM_OK; i++)
        rc = tm_enable_constrained(h->tm, h->m[i].fed, e, sizeof e);
    if (rc != TM_OK) {
        if (err && errlen)
            snprintf(err, errlen, "%s: time management: %s: %s", ff->path, tm_strerror(rc), e);
        return rc == TM_ENOMEM ? FMUFED_ENOMEM : FMUFED_ERTI;
    }
    return FMUFED_OK;
}

peer_exchange inproc_hub_exchange(inproc_hub *h, size_t idx, char *err, size_t errlen,
                                  inproc_stats *st)
{
    member *m = &h->m[idx];
    m->err = err;
    m->errlen = errlen;
    m->st = st;
    return (peer_exchange){.ops = &hub_ops, .ctx = m};
}

void inproc_hub_fail(inproc_hub *h, size_t idx)
{
    pthread_mutex_lock(&h->mu);
    if (!h->failed) {
        h->failed = 1;
        h->failed_idx = idx;
    }
    for (size_t j = 0; j < h->n; j++)
        pthread_cond_signal(&h->m[j].cv);
    pthread_mutex_unlock(&h->mu);
}

void inproc_hub_free(inproc_hub *h)
{
    if (!h) return;
    tm_free(h->tm);
    for (size_t k = 0; k < h->n_msgs; k++) {
        free(h->msgs[k].w);
        free(h->msgs[k].v);
    }
    free(h->msgs);
    for (size_t i = 0; h->m && i < h->n; i++) {
        free(h->m[i].in);
        if (h->m[i].fd) pthread_cond_destroy(&h->m[i].cv);
    }
    free(h->m);
    free(h->recv);
    pthread_mutex_destroy(&h->mu);
    free(h);
}
