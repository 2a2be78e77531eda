/* Remote port slaves over libtempo (federate/master/ms_remote.h, doc/master.md). Each slave
 * keeps a FIFO of the operations posted since its last collect, with the caller's result
 * buffers; a reply matches the FIFO's head by its sequence number (one sender, time-stamp
 * order at one instant: the RTI keeps a sender's order, so replies come in command order).
 * The commands posted to a slave wait in its batch until a collect (or the close) sends every
 * slave's batch as one interaction each, so a sync of N slaves is N messages out and N back
 * (doc/master.md "Batches"). */
#include "federate/master/ms_remote.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algorithms/pstate.h"
#include "federate/config/fedfile_algo.h"
#include "federate/config/fedfile_master.h"
#include "federate/fmufed/fmufed.h"
#include "federate/libtempo/tempo.h"
#include "federate/msproto/msproto.h"
#include "federate/msproto/msproto_peers.h"

typedef struct pend {
    msproto_kind kind;
    uint32_t seq;
    double *out;           /* results (NULL: not wanted) */
    port_discrete *dout;   /* get_discrete results */
    port_step_result *res; /* step result */
    size_t n_out;          /* values expected in out */
} pend;

typedef struct rslave {
    ms_link *L;
    size_t idx;
    const char *name;
    tp_handle cls, ic;
    tp_handle attr, param; /* Slave<i>.reply and Command<i>.body */
    unsigned char *bat;    /* commands posted and not sent yet, back to back (bat_n bytes) */
    size_t bat_n, bat_cap;
    pend *p;
    size_t p_head, p_n, p_cap;
    uint32_t seq;
    int status; /* first non-OK status since the last collect */
    int lost;   /* resigned or the connection failed: every later operation fails */
    int joined;
    tp_fed fed;            /* its federate handle (the join callback), 0 before */
    struct timespec heard; /* when this slave last replied, or its wait began (reply timeout) */
    char err[700];
    char failed[700]; /* the first failure it reported (a reply with status < 0), "" none */
    port_slave_info info;
    long *out_state; /* info.out_state, from the hello reply */
} rslave;

struct ms_link {
    const fedfile *ff;
    tp_federate *tp;
    rslave *s;
    port_slave *ps;
    size_t n;
    size_t joined;
    tp_time T;   /* the instant open, or the last closed */
    int open;    /* 1 between open(T) and close(T) */
    int opening; /* TARA(T) not asked yet: it follows the instant's first batches */
    int asking;  /* TARA(T) asked, its grant not in yet */
    int resigned;
    double *v; /* reply scratch */
    int64_t *tv;
    char msg[MSPROTO_MAX_MSG + 1];
    unsigned char *cbuf; /* one encoded command */
    size_t ccap;
    long n_cmd, n_reply, n_note;
    long n_cmd_msg, n_reply_msg; /* interactions and updates that carried them (batches) */
    long n_rounds;               /* sends of the posted batches: one per sync that posted */
    tp_handle note_ic, note_what, note_value, note_at; /* the Note interaction (msproto.h) */
    int reply_timeout_ms;    /* longest wait for a slave's next reply; <= 0 none */
    char fatal[600];         /* the RTI refused something: every wait ends with it */
    msproto_peers *peers;    /* names by handle, for the refusals */
    long refused;            /* replies refused: not from the slave their class belongs to */
    char refused_first[200]; /* the first refused reply's sender */
    /* Checkpoints (doc/checkpoint.md "tempo-master's part"). */
    ms_ckpt_opts ck;        /* the instants, the extra bytes, the outcomes (all 0: none) */
    port_ckpt pc;           /* what port_master.ckpt points at */
    unsigned char *offered; /* the algorithm's state once instant offered_t closes */
    size_t n_offered, cap_offered;
    tp_time offered_t;                                /* TP_NO_TIME: nothing offered */
    int (*later)(void *arg, void **bytes, size_t *n); /* offer_later's writer, NULL none */
    void *later_arg;
    int closing;             /* inside the TAR of a close: a save is made in its grant */
    tp_time ask_next;        /* the next save to ask for, TP_NO_TIME: none */
    tp_time mark_next;       /* the next checkpoint instant port_ckpt.marked reports */
    int save_open;           /* a save asked for has no outcome yet */
    char save_label[64];     /* that save's label */
    tp_time save_t;          /* and its time */
    struct timespec save_t0; /* when this master made its part */
    unsigned char *restored; /* the part the restoring join handed back, NULL none */
    size_t n_restored;
    const unsigned char *extra; /* in restored: the extra bytes (ms_link_restored_extra) */
    size_t n_extra;
};

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* Keep a slave's first failure (errors over informative codes). */
static void note(rslave *s, int st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(rslave *s, int st, const char *fmt, ...)
{
    if (st == PORT_OK) return;
    if (s->status == PORT_OK || (st < 0 && s->status > 0)) {
        s->status = st;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->err, sizeof s->err, fmt, ap);
        va_end(ap);
        /* kept past the collect that clears the status: the failure report quotes it */
        if (st < 0 && !s->failed[0]) snprintf(s->failed, sizeof s->failed, "%s", s->err);
    }
}

static void lose(rslave *s, const char *why)
{
    if (s->lost) return;
    s->lost = 1;
    s->status = PORT_OK; /* the loss wins over anything noted before */
    note(s, PORT_ELOST, "slave %s lost: %s", s->name, why);
}

static void ask_open(ms_link *L);
static void grant_timeout(ms_link *L, int available, tp_time t);

/* ---- callbacks --------------------------------------------------------------------------- */

static rslave *by_class(ms_link *L, tp_handle cls)
{
    for (size_t i = 0; i < L->n; i++)
        if (L->s[i].cls == cls) return &L->s[i];
    return NULL;
}

static rslave *by_name(ms_link *L, const char *name)
{
    for (size_t i = 0; i < L->n; i++)
        if (strcmp(L->s[i].name, name) == 0) return &L->s[i];
    return NULL;
}

/* The output-to-state map after the hello numbers (msproto_info_map_decode): 1 when taken. */
static int hello_map(rslave *s, const msproto_reply *r, char *e, size_t elen)
{
    size_t n_out = s->info.n_out;
    free(s->out_state);
    s->info.out_state = s->out_state = calloc(n_out + 1, sizeof *s->out_state);
    return s->out_state && r->n_v == MSPROTO_INFO_N + n_out &&
           msproto_info_map_decode(r->v + MSPROTO_INFO_N, n_out, s->info.n_state, s->out_state, e,
                                   elen) == MSPROTO_OK;
}

static void take_reply(rslave *s, const msproto_reply *r)
{
    if (!s->p_n) {
        note(s, PORT_EFAIL, "slave %s: a reply (%s, seq %u) to no command", s->name,
             msproto_kind_name((int)r->kind), (unsigned)r->seq);
        return;
    }
    pend *p = &s->p[s->p_head];
    s->p_head = (s->p_head + 1) % s->p_cap;
    s->p_n--;
    if (p->seq != r->seq || p->kind != r->kind) {
        note(s, PORT_EFAIL, "slave %s: reply %s seq %u, expected %s seq %u", s->name,
             msproto_kind_name((int)r->kind), (unsigned)r->seq, msproto_kind_name((int)p->kind),
             (unsigned)p->seq);
        return;
    }
    if (r->status < 0) {
        /* The slave's words say what it was doing ("step: ..."), or the command's name does. */
        const char *kind = msproto_kind_name((int)r->kind);
        size_t kl = strlen(kind);
        int said = strncmp(r->msg, kind, kl) == 0 && r->msg[kl] == ':';
        note(s, r->status, "slave %s: %s%s%s", s->name, said ? "" : kind, said ? "" : ": ", r->msg);
        return;
    }
    if (p->kind == MSP_HELLO) {
        char e[MSPROTO_ERRLEN];
        if (r->n_v < MSPROTO_INFO_N || msproto_info_decode(r->v, &s->info, e, sizeof e) ||
            !hello_map(s, r, e, sizeof e))
            note(s, PORT_EFAIL, "slave %s: bad hello reply", s->name);
        return;
    }
    if (p->res)
        *p->res =
            (port_step_result){.t_reached = r->t, .event = r->event, .n_sub_done = r->n_sub_done};
    if (p->out) {
        if (p->kind != MSP_STEP && r->n_v != p->n_out) {
            note(s, PORT_EFAIL, "slave %s: %s reply with %zu values, expected %zu", s->name,
                 msproto_kind_name((int)r->kind), r->n_v, p->n_out);
            return;
        }
        size_t n = r->n_v < p->n_out ? r->n_v : p->n_out;
        if (n) memcpy(p->out, r->v, n * sizeof *p->out);
    }
    if (p->dout)
        for (size_t k = 0; k < r->n_v && k < p->n_out; k++)
            p->dout[k] = (port_discrete){r->v[k], r->tv[k]};
    note(s, r->status, "slave %s: %s", s->name, port_strerror(r->status));
}

/* A reply on slave i's class from another federate (doc/master.md "Commands only from the
 * master"): not taken, logged naming the sender (the first MSPROTO_REFUSALS_LOGGED), counted. */
static void refuse(ms_link *L, const rslave *s, tp_fed sender)
{
    char who[200];
    msproto_peers_describe(L->peers, sender, who, sizeof who);
    if (!L->refused) snprintf(L->refused_first, sizeof L->refused_first, "%s", who);
    L->refused++;
    if (L->refused <= MSPROTO_REFUSALS_LOGGED)
        fprintf(stderr,
                "tempo-master: refused a reply on %s's class from %s: only %s (federate %u) "
                "may send it\n",
                s->name, who, s->name, (unsigned)s->fed);
    if (L->refused == MSPROTO_REFUSALS_LOGGED)
        fprintf(stderr, "tempo-master: further refusals are counted, not logged\n");
}

static void on_reflect(void *ctx, const tp_reflection *rf)
{
    ms_link *L = ctx;
    rslave *s = by_class(L, rf->object_class);
    if (!s) return;
    if (!s->fed || rf->sender != s->fed) {
        refuse(L, s, rf->sender);
        return;
    }
    for (size_t k = 0; k < rf->n_values; k++) {
        if (rf->values[k].handle != s->attr) continue;
        L->n_reply_msg++;
        clock_gettime(CLOCK_MONOTONIC, &s->heard);
        /* a batch: the replies back to back (msproto.h "Batches") */
        const unsigned char *b = rf->values[k].data;
        size_t left = rf->values[k].size, n = 0;
        do {
            msproto_reply r;
            char e[MSPROTO_ERRLEN];
            int rc = msproto_reply_span(b, left, &n, e, sizeof e);
            if (rc == MSPROTO_OK)
                rc = msproto_reply_decode(b, n, &r, L->v, MSPROTO_MAX_VALUES, L->tv,
                                          MSPROTO_MAX_VALUES, L->msg, sizeof L->msg, e, sizeof e);
            L->n_reply++;
            if (rc != MSPROTO_OK) {
                note(s, PORT_EFAIL, "slave %s: malformed reply: %s", s->name, e);
                break;
            }
            take_reply(s, &r);
            b += n, left -= n;
        } while (left);
    }
}

/* A slave is bound to the handle it first joined under, for the whole run: a federate that
 * takes its name after it left is someone else (its replies are refused). */
static void on_joined(void *ctx, tp_fed fed, const char *name)
{
    ms_link *L = ctx;
    if (msproto_peers_joined(L->peers, fed, name) != 0 && !L->fatal[0])
        snprintf(L->fatal, sizeof L->fatal, "out of memory recording federate %.200s", name);
    rslave *s = by_name(L, name);
    if (s && !s->joined && !s->fed) s->joined = 1, s->fed = fed, L->joined++;
}

static void on_resigned(void *ctx, tp_fed fed, const char *name, const char *reason)
{
    ms_link *L = ctx;
    msproto_peers_resigned(L->peers, fed);
    rslave *s = by_name(L, name);
    if (!s || s->fed != fed) return;
    if (s->joined) s->joined = 0, L->joined--;
    lose(s, reason ? reason : "resigned");
}

static void save_refused(ms_link *L, int code, const char *message);

/* The master's one request at a time was granted (an open's TARA, a close's TAR). */
static void on_grant(void *ctx, tp_time t)
{
    ms_link *L = ctx;
    (void)t;
    L->asking = 0;
}

static void on_error(void *ctx, int code, const char *message)
{
    ms_link *L = ctx;
    /* The RTI refused the save the master asked for (no checkpoint folder, the folder
     * exists): that save fails, the run goes on (doc/checkpoint.md). */
    if (message && strstr(message, "REQUEST_SAVE")) {
        if (L->save_open) save_refused(L, code, message);
        return;
    }
    if (!L->fatal[0])
        snprintf(L->fatal, sizeof L->fatal, "the RTI refused a request: %s (%s)",
                 message ? message : "", tp_strerror(code));
}

static void on_log(void *ctx, tp_log_level level, const char *line)
{
    if (level <= TP_LOG_WARN) fprintf(stderr, "tempo-master: %s\n", line);
}

/* ---- the port slave's operations --------------------------------------------------------- */

/* Send a slave's batch as one Command<i> interaction stamped with the open instant (nothing
 * when it is empty). A failed send loses the slave: its pending operations fail at the
 * collect. */
static void send_batch(rslave *s)
{
    ms_link *L = s->L;
    if (!s->bat_n || s->lost) {
        s->bat_n = 0;
        return;
    }
    tp_value val = {.handle = s->param, .data = s->bat, .size = s->bat_n};
    int rc = tp_send_interaction(L->tp, s->ic, &val, 1, L->T);
    s->bat_n = 0;
    if (rc != TP_OK) {
        char why[400];
        snprintf(why, sizeof why, "sending its commands at %.9g s: %s: %s",
                 (double)L->T * L->ff->resolution, tp_strerror(rc), tp_last_error(L->tp));
        lose(s, why);
        return;
    }
    L->n_cmd_msg++;
}

/* Every slave's batch, one message each: the start of a sync (or the close). */
static void send_batches(ms_link *L)
{
    int any = 0;
    for (size_t i = 0; i < L->n; i++) {
        any |= L->s[i].bat_n > 0;
        send_batch(&L->s[i]);
    }
    if (any) L->n_rounds++;
    if (L->opening) ask_open(L);
}

/* Append one encoded command to a slave's batch; a batch that would pass
 * MSPROTO_BATCH_BYTES goes out first. */
static int batch_add(rslave *s, const unsigned char *cmd, size_t len)
{
    if (s->bat_n && s->bat_n + len > MSPROTO_BATCH_BYTES) send_batch(s);
    if (s->bat_n + len > s->bat_cap) {
        size_t cap = s->bat_cap ? s->bat_cap : 256;
        while (cap < s->bat_n + len)
            cap *= 2;
        unsigned char *nb = realloc(s->bat, cap);
        if (!nb) return PORT_ENOMEM;
        s->bat = nb, s->bat_cap = cap;
    }
    memcpy(s->bat + s->bat_n, cmd, len);
    s->bat_n += len;
    return PORT_OK;
}

static int post(rslave *s, msproto_cmd c, double *out, size_t n_out, port_discrete *dout,
                port_step_result *res)
{
    ms_link *L = s->L;
    if (s->lost) return PORT_ELOST;
    if (!L->open) {
        note(s, PORT_EUSAGE, "slave %s: %s posted outside an open instant", s->name,
             msproto_kind_name((int)c.kind));
        return PORT_EUSAGE;
    }
    if (s->p_n == s->p_cap) {
        size_t cap = s->p_cap ? 2 * s->p_cap : 16;
        pend *np = malloc(cap * sizeof *np);
        if (!np) return PORT_ENOMEM;
        for (size_t k = 0; k < s->p_n; k++)
            np[k] = s->p[(s->p_head + k) % s->p_cap];
        free(s->p);
        s->p = np, s->p_cap = cap, s->p_head = 0;
    }
    c.seq = ++s->seq;
    size_t len = 0;
    char e[MSPROTO_ERRLEN];
    int rc = msproto_cmd_encode(&c, L->cbuf, L->ccap, &len, e, sizeof e);
    if (rc != MSPROTO_OK) {
        note(s, PORT_EUSAGE, "slave %s: %s: %s", s->name, msproto_kind_name((int)c.kind), e);
        return PORT_EUSAGE;
    }
    if (batch_add(s, L->cbuf, len) != PORT_OK) {
        note(s, PORT_ENOMEM, "slave %s: %s: out of memory", s->name,
             msproto_kind_name((int)c.kind));
        return PORT_ENOMEM;
    }
    L->n_cmd++;
    s->p[(s->p_head + s->p_n++) % s->p_cap] =
        (pend){.kind = c.kind, .seq = c.seq, .out = out, .n_out = n_out, .dout = dout, .res = res};
    return PORT_OK;
}

static int op_set_inputs(void *ctx, const port_poly *u)
{
    rslave *s = ctx;
    if (!u || u->order < 0 || u->order > PORT_MAX_ORDER || (u->n && !u->c)) return PORT_EUSAGE;
    return post(s,
                (msproto_cmd){.kind = MSP_SET_INPUTS,
                              .t = u->t0,
                              .arg = u->order,
                              .n_v = u->n * (size_t)(u->order + 1),
                              .v = u->c},
                NULL, 0, NULL, NULL);
}
static int op_step(void *ctx, int64_t t_to, int n_sub, double *y_sub, port_step_result *res)
{
    rslave *s = ctx;
    size_t ns = n_sub > 1 ? (size_t)n_sub : 1;
    return post(s, (msproto_cmd){.kind = MSP_STEP, .t = t_to, .arg = n_sub < 0 ? 0 : n_sub}, y_sub,
                ns * s->info.n_out, NULL, res);
}
static int op_get_outputs(void *ctx, double *y)
{
    rslave *s = ctx;
    return post(s, (msproto_cmd){.kind = MSP_GET_OUTPUTS}, y, s->info.n_out, NULL, NULL);
}
static int op_get_output_derivs(void *ctx, int order, double *dy)
{
    rslave *s = ctx;
    return post(s, (msproto_cmd){.kind = MSP_GET_OUTPUT_DERIVS, .arg = order}, dy, s->info.n_out,
                NULL, NULL);
}
static int op_get_discrete(void *ctx, port_discrete *d)
{
    rslave *s = ctx;
    return post(s, (msproto_cmd){.kind = MSP_GET_DISCRETE}, NULL, s->info.n_discrete, d, NULL);
}
static int op_set_discrete(void *ctx, size_t n, const port_discrete *d)
{
    rslave *s = ctx;
    double *v = malloc((n + 1) * sizeof *v);
    int64_t *t = malloc((n + 1) * sizeof *t);
    int rc = PORT_ENOMEM;
    if (v && t) {
        for (size_t k = 0; k < n; k++)
            v[k] = d[k].v, t[k] = d[k].t;
        rc = post(s, (msproto_cmd){.kind = MSP_SET_DISCRETE, .n_v = n, .v = v, .n_tv = n, .tv = t},
                  NULL, 0, NULL, NULL);
    }
    free(v);
    free(t);
    return rc;
}
/* The slave sends its discrete values to the others through the RTI and takes theirs; the
 * master only orders it (doc/master.md "Slave to slave"). */
static int op_share_discrete(void *ctx, int64_t t)
{
    return post(ctx, (msproto_cmd){.kind = MSP_SHARE, .t = t}, NULL, 0, NULL, NULL);
}
static int op_get_states(void *ctx, double *x)
{
    rslave *s = ctx;
    return post(s, (msproto_cmd){.kind = MSP_GET_STATES}, x, s->info.n_state, NULL, NULL);
}
static int op_set_states(void *ctx, int64_t t, const double *x)
{
    rslave *s = ctx;
    return post(s, (msproto_cmd){.kind = MSP_SET_STATES, .t = t, .n_v = s->info.n_state, .v = x},
                NULL, 0, NULL, NULL);
}
static int op_get_derivatives(void *ctx, double *dx)
{
    rslave *s = ctx;
    return post(s, (msproto_cmd){.kind = MSP_GET_DERIVATIVES}, dx, s->info.n_state, NULL, NULL);
}
static int op_get_directional(void *ctx, const double *du, double *dy)
{
    rslave *s = ctx;
    return post(s, (msproto_cmd){.kind = MSP_GET_DIRECTIONAL, .n_v = s->info.n_in, .v = du}, dy,
                s->info.n_out, NULL, NULL);
}
static int op_save(void *ctx, int slot)
{
    return post(ctx, (msproto_cmd){.kind = MSP_SAVE, .arg = slot}, NULL, 0, NULL, NULL);
}
static int op_restore(void *ctx, int slot)
{
    return post(ctx, (msproto_cmd){.kind = MSP_RESTORE, .arg = slot}, NULL, 0, NULL, NULL);
}
static int op_record(void *ctx)
{
    return post(ctx, (msproto_cmd){.kind = MSP_RECORD}, NULL, 0, NULL, NULL);
}

static long ms_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long)(now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Evoke libtempo (the callbacks take every slave's replies as they come) until this slave's
 * FIFO is empty or it is lost. The RTI resigns a dead slave, which ends the wait; a slave that
 * lives but does not answer (stopped, hung in its FMU) is lost once it has been silent for the
 * reply timeout, counted from its last reply or from the start of this wait, whichever is
 * later. */
static int op_collect(void *ctx)
{
    rslave *s = ctx;
    ms_link *L = s->L;
    send_batches(L); /* every slave's, so that the slaves work at once */
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (s->p_n && !s->lost) {
        if (L->fatal[0]) {
            lose(s, L->fatal);
            break;
        }
        if (L->reply_timeout_ms > 0) {
            long a = ms_since(&s->heard), b = ms_since(&t0);
            long quiet = a < b ? a : b;
            if (quiet >= L->reply_timeout_ms && L->asking) {
                /* no reply can come before the open's grant: whoever holds that back is lost */
                grant_timeout(L, 1, L->T);
                if (!s->lost) s->p_n = 0, s->status = PORT_ELOST;
                break;
            }
            if (quiet >= L->reply_timeout_ms) {
                char why[300];
                const pend *p = &s->p[s->p_head];
                snprintf(why, sizeof why,
                         "no reply for %ld ms (reply timeout %d ms) to %s (seq %u) at %.9g s: "
                         "the process lives but does not answer (stopped or hung?)",
                         quiet, L->reply_timeout_ms, msproto_kind_name((int)p->kind),
                         (unsigned)p->seq, (double)L->T * L->ff->resolution);
                lose(s, why);
                break;
            }
        }
        int rc = tp_evoke(L->tp, L->reply_timeout_ms > 0 && L->reply_timeout_ms < 500
                                     ? L->reply_timeout_ms
                                     : 500);
        if (rc < 0) {
            char why[300];
            snprintf(why, sizeof why, "the master's connection failed: %s: %s", tp_strerror(rc),
                     tp_last_error(L->tp));
            for (size_t i = 0; i < L->n; i++)
                lose(&L->s[i], why);
        }
    }
    if (s->lost) s->p_n = 0;
    int st = s->status;
    if (!s->lost) s->status = PORT_OK; /* a lost slave keeps failing */
    return st;
}

static const port_slave_ops remote_ops = {
    .version = PORT_OPS_VERSION,

    .set_inputs = op_set_inputs,
    .step = op_step,
    .get_outputs = op_get_outputs,
    .get_output_derivs = op_get_output_derivs,
    .get_discrete = op_get_discrete,
    .set_discrete = op_set_discrete,
    .share_discrete = op_share_discrete,
    .get_states = op_get_states,
    .set_states = op_set_states,
    .get_derivatives = op_get_derivatives,
    .get_directional = op_get_directional,
    .save = op_save,
    .restore = op_restore,
    .record = op_record,
    .collect = op_collect,
};

/* ---- the instant ------------------------------------------------------------------------- */

/* The grant of t has not come within the reply timeout: lose the slave that holds it back.
 * The RTI's time status names it: the root of the master's GALT when that is a slave, else
 * a slave that has no request pending (granted, and not asking to go on: stopped or hung);
 * with neither, every slave (the report then says the grant did not come). */
static void grant_timeout(ms_link *L, int available, tp_time t)
{
    tp_time_status st[64];
    size_t n = 0, cap = sizeof st / sizeof st[0];
    char why[300];
    snprintf(why, sizeof why,
             "no grant of %s(%.9g s) for %d ms (reply timeout): the slave does not advance "
             "(stopped or hung?)",
             available ? "TARA" : "TAR", (double)t * L->ff->resolution, L->reply_timeout_ms);
    rslave *culprit = NULL;
    if (tp_query_time_status(L->tp, st, cap, &n) == TP_OK) {
        n = n < cap ? n : cap;
        for (size_t k = 0; k < n && !culprit; k++) { /* the master: the one not a slave */
            int slave = 0;
            for (size_t i = 0; i < L->n; i++)
                slave |= L->s[i].fed == st[k].federate;
            for (size_t i = 0; !slave && i < L->n; i++)
                if (L->s[i].fed && L->s[i].fed == st[k].galt_root) culprit = &L->s[i];
        }
        for (size_t k = 0; k < n && !culprit; k++)
            for (size_t i = 0; i < L->n; i++)
                if (L->s[i].fed == st[k].federate && st[k].pending == TP_REQ_NONE)
                    culprit = &L->s[i];
    }
    for (size_t i = 0; i < L->n; i++)
        if (!culprit || culprit == &L->s[i]) lose(&L->s[i], why);
}

static void ask_save(ms_link *L, tp_time t);

/* Wait for the grant of the master's pending request (TAR or TARA of t), within the reply
 * timeout; a failure loses the slaves (grant_timeout names the one that holds it back). */
static int wait_granted(ms_link *L, int available, tp_time t)
{
    int wait_ms = L->reply_timeout_ms > 0 ? L->reply_timeout_ms : -1;
    int rc = tp_wait_grant(L->tp, NULL, wait_ms);
    /* A refused save request comes back once from the next wait (and to on_error): that save
     * failed, the request waited for is still pending (as fmufed_tp.c). */
    for (int k = 0; k < 4 && rc != TP_OK && rc != TP_TIMEOUT &&
                    strstr(tp_last_error(L->tp), "an earlier REQUEST_SAVE");
         k++) {
        if (L->save_open) save_refused(L, rc, tp_last_error(L->tp));
        rc = tp_wait_grant(L->tp, NULL, wait_ms);
        if (rc == TP_ESTATE) rc = TP_OK; /* the grant came in with the refusal */
    }
    if (rc == TP_TIMEOUT) {
        grant_timeout(L, available, t);
        return PORT_ELOST;
    }
    if (rc != TP_OK) {
        char why[400];
        snprintf(why, sizeof why, "%s(%.9g s) failed: %s: %s", available ? "TARA" : "TAR",
                 (double)t * L->ff->resolution, tp_strerror(rc), tp_last_error(L->tp));
        for (size_t i = 0; i < L->n; i++)
            lose(&L->s[i], why);
        return PORT_ELOST;
    }
    L->asking = 0;
    return PORT_OK;
}

/* Ask TAR(t) or TARA(t); a refusal loses every slave. */
static int ask(ms_link *L, int available, tp_time t)
{
    int rc =
        available ? tp_time_advance_request_available(L->tp, t) : tp_time_advance_request(L->tp, t);
    if (rc == TP_OK) return PORT_OK;
    char why[400];
    snprintf(why, sizeof why, "%s(%.9g s) failed: %s: %s", available ? "TARA" : "TAR",
             (double)t * L->ff->resolution, tp_strerror(rc), tp_last_error(L->tp));
    for (size_t i = 0; i < L->n; i++)
        lose(&L->s[i], why);
    return PORT_ELOST;
}

static int advance(ms_link *L, int available, tp_time t)
{
    int rc = ask(L, available, t);
    return rc ? rc : wait_granted(L, available, t);
}

/* The open's TARA(T) goes right behind the instant's first batches, without waiting for its
 * grant (doc/master.md "One instant per macro step"): after the last close the master's bound
 * is (T_prev, strict), so the commands stamped T may leave first, and the RTI grants the
 * slaves (with the commands) and the master in one pass. The replies stamped T come after the
 * master's grant (they wait for it at the RTI), so a collect that has every reply has the
 * grant too. */
static void ask_open(ms_link *L)
{
    L->opening = 0;
    if (ask(L, 1, L->T) == PORT_OK) L->asking = 1;
}

/* The instant is opened lazily: nothing is asked until its first batches leave (ask_open). */
static int m_open(void *ctx, int64_t t)
{
    ms_link *L = ctx;
    if (L->open && t == L->T) return PORT_OK; /* already open (the start instant) */
    if (L->open || t < L->T) return PORT_EUSAGE;
    L->later = NULL; /* a writer offered for the last close is not called after it */
    ask_save(L, t);  /* before this instant's TARA (ask_open, with its first batches) */
    L->T = t;
    L->open = 1;
    L->opening = 1;
    return PORT_OK;
}

static int m_close(void *ctx, int64_t t)
{
    ms_link *L = ctx;
    if (!L->open || t != L->T) return PORT_EUSAGE;
    L->opening = 0; /* nothing went out at this instant before its close: the TAR alone */
    for (size_t i = 0; i < L->n; i++) {
        rslave *s = &L->s[i];
        if (s->lost) continue;
        unsigned char b[64];
        size_t len = 0;
        msproto_cmd c = {.kind = MSP_CLOSE, .seq = ++s->seq, .t = t};
        msproto_cmd_encode(&c, b, sizeof b, &len, NULL, 0);
        if (batch_add(s, b, len) != PORT_OK) lose(s, "out of memory");
        L->n_cmd++;
    }
    send_batches(L); /* the close after whatever was posted since the last sync */
    int rc = L->asking ? wait_granted(L, 1, t) : PORT_OK; /* the open's TARA first */
    L->closing = 1; /* a save is made in this grant (link_save) */
    if (rc == PORT_OK) rc = advance(L, 0, t);
    L->closing = 0;
    L->open = 0;
    for (size_t i = 0; i < L->n; i++)
        if (L->s[i].lost) return PORT_ELOST;
    return rc;
}

/* A note for the federation log: one Note interaction, stamped with the open instant, or in
 * receive order between instants (after a close nothing may be stamped at that instant); its
 * "at" parameter carries the instant either way. Nobody subscribes: the RTI logs the request.
 * A failed send is not the algorithm's failure (the next command reports a lost link). */
static void m_note(void *ctx, const char *what, double value)
{
    ms_link *L = ctx;
    if (!L->note_ic || L->resigned) return;
    double at = (double)L->T * L->ff->resolution;
    tp_value v[3] = {{.handle = L->note_what, .data = what, .size = strlen(what)},
                     {.handle = L->note_value, .data = &value, .size = sizeof value},
                     {.handle = L->note_at, .data = &at, .size = sizeof at}};
    if (tp_send_interaction(L->tp, L->note_ic, v, 3, L->open ? L->T : TP_NO_TIME) == TP_OK)
        L->n_note++;
}

static const port_master_ops link_ops = {.open = m_open, .close = m_close, .note = m_note};

/* ---- checkpoints (doc/checkpoint.md "tempo-master's part") ------------------------------- */

#define MASTER_PART_MAGIC   0x52534d54u /* "TMSR" */
#define MASTER_PART_VERSION 1u

/* The first checkpoint instant after t (ticks) before the end, as tempo-fmu counts them
 * (fmufed_tp.c): the next multiple of every past the start, or the next of at. */
static tp_time plan_next(const ms_link *L, tp_time t)
{
    const ms_ckpt_opts *o = &L->ck;
    tp_time best = TP_NO_TIME, t0 = L->ff->algo.t_start, end = L->ff->algo.t_end;
    if (o->every > 0) {
        tp_time k = t < t0 ? 1 : (t - t0) / o->every + 1;
        if (k <= (end - t0) / o->every) best = t0 + k * o->every;
    }
    for (size_t i = 0; i < o->n_at; i++) {
        tp_time a = o->at[i];
        if (a > t && a > t0 && a < end && (best == TP_NO_TIME || a < best)) best = a;
    }
    return best < end ? best : TP_NO_TIME;
}

static double since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* Before opening instant t: ask for the next save once t reaches its instant, labelled
 * "ckpt-<ticks>" at that instant, one at a time. Every federate makes its part in the grant
 * that closes the first instant at or past it (doc/checkpoint.md "The cut"); a request the
 * RTI refuses is that save's failure, and the run goes on. */
static void ask_save(ms_link *L, tp_time t)
{
    if (L->save_open || L->ask_next == TP_NO_TIME || t < L->ask_next) return;
    snprintf(L->save_label, sizeof L->save_label, "ckpt-%lld", (long long)L->ask_next);
    L->save_t = L->ask_next;
    clock_gettime(CLOCK_MONOTONIC, &L->save_t0);
    int rc = tp_request_save(L->tp, L->save_label, L->ask_next);
    if (rc == TP_OK) {
        L->save_open = 1;
        return;
    }
    L->ask_next = plan_next(L, L->save_t);
    if (L->ck.done)
        L->ck.done(L->ck.ctx, L->save_label, tp_time_to_seconds(L->tp, L->save_t), rc,
                   tp_last_error(L->tp), 0);
}

static void save_refused(ms_link *L, int code, const char *message)
{
    L->save_open = 0;
    L->ask_next = plan_next(L, L->save_t);
    if (L->ck.done)
        L->ck.done(L->ck.ctx, L->save_label, tp_time_to_seconds(L->tp, L->save_t), code, message,
                   since(&L->save_t0));
}

static void link_saved(void *ctx, const char *label, int status, const char *detail)
{
    ms_link *L = ctx;
    if (!L->save_open || strcmp(label, L->save_label) != 0) return;
    L->save_open = 0;
    L->ask_next = plan_next(L, L->save_t);
    if (L->ck.done)
        L->ck.done(L->ck.ctx, label, tp_time_to_seconds(L->tp, L->save_t), status, detail,
                   since(&L->save_t0));
}

/* port_ckpt.offer: keep a copy of the algorithm's state once instant t closes. */
static int link_offer(void *ctx, int64_t t, const void *state, size_t n)
{
    ms_link *L = ctx;
    if (n > L->cap_offered) {
        unsigned char *p = realloc(L->offered, n);
        if (!p) return PORT_ENOMEM;
        L->offered = p, L->cap_offered = n;
    }
    if (n) memcpy(L->offered, state, n);
    L->n_offered = n;
    L->offered_t = t;
    L->later = NULL;
    return PORT_OK;
}

/* port_ckpt.marked: the first instant closed at or past each checkpoint instant, whatever
 * the saves' outcomes, as the slaves restart their model-exchange integrators there. */
static int link_marked(void *ctx, int64_t t)
{
    ms_link *L = ctx;
    if (L->mark_next == TP_NO_TIME || t < L->mark_next) return 0;
    L->mark_next = plan_next(L, t);
    return 1;
}

/* port_ckpt.offer_later: keep the writer; link_save calls it in the close's grant. */
static int link_offer_later(void *ctx, int64_t t, int (*write)(void *arg, void **bytes, size_t *n),
                            void *arg)
{
    ms_link *L = ctx;
    L->later = write;
    L->later_arg = arg;
    L->offered_t = t;
    L->n_offered = 0;
    return PORT_OK;
}

/* The master's part, in the grant of the close of instant `time`. Layout: u32 "TMSR", u32
 * version, bytes method, i64 the instant, i64 the next save to ask for, i64 x 6 counters
 * (commands, replies, notes, rounds, messages out and in), u32 N slaves, each: bytes name, i64
 * its federate handle, u32 the last command's sequence number, u32 n + n x f64 its
 * description (the hello reply's values); bytes the algorithm's state (the offer), bytes the
 * caller's extra (ms_ckpt_opts.save_extra). */
static int link_save(void *ctx, const char *label, tp_time time, void **bytes, size_t *n, char *why,
                     size_t why_size)
{
    ms_link *L = ctx;
    (void)label;
    clock_gettime(CLOCK_MONOTONIC, &L->save_t0);
    double at = (double)time * L->ff->resolution;
    const char *method = L->ff->algo.def->name;
    if (!L->ff->algo.def->saves) {
        snprintf(why, why_size, "the master: method \"%s\" cannot save its state between steps",
                 method);
        return TP_ESTATE;
    }
    /* The close of the run's last instant needs no state of the algorithm: a run resumed
     * there only ends (tempo-master does not run the algorithm again, ms_link_resumed_at). */
    int last = L->T >= L->ff->algo.t_end;
    if (!L->closing || time != L->T || (L->offered_t != L->T && !last)) {
        snprintf(why, why_size,
                 "the master saves only in the grant that closes an instant whose state the "
                 "algorithm offered (asked at %.9g s)",
                 at);
        return TP_ESTATE;
    }
    for (size_t i = 0; i < L->n; i++) {
        const rslave *sl = &L->s[i];
        if (sl->lost || sl->status < 0 || sl->p_n) {
            snprintf(why, why_size, "the master: slave %s %s at %.9g s", sl->name,
                     sl->lost         ? "is lost"
                     : sl->status < 0 ? "failed"
                                      : "still owes replies",
                     at);
            return TP_ESTATE;
        }
    }
    if (L->later && L->offered_t == L->T) { /* written now that the replies have landed */
        void *p = NULL;
        size_t np = 0;
        int wrc = L->later(L->later_arg, &p, &np);
        if (wrc == PORT_OK) wrc = link_offer(L, L->offered_t, p, np);
        free(p);
        if (wrc != PORT_OK) {
            snprintf(why, why_size, "the master: the algorithm's state: %s", port_strerror(wrc));
            return TP_ENOMEM;
        }
    }
    pstate_buf b = {0};
    pstate_put_u32(&b, MASTER_PART_MAGIC);
    pstate_put_u32(&b, MASTER_PART_VERSION);
    pstate_put_bytes(&b, method, strlen(method));
    pstate_put_i64(&b, L->T);
    pstate_put_i64(&b, plan_next(L, L->save_open ? L->save_t : L->T));
    long counts[6] = {L->n_cmd, L->n_reply, L->n_note, L->n_rounds, L->n_cmd_msg, L->n_reply_msg};
    for (int k = 0; k < 6; k++)
        pstate_put_i64(&b, counts[k]);
    pstate_put_u32(&b, (uint32_t)L->n);
    for (size_t i = 0; i < L->n; i++) {
        const rslave *sl = &L->s[i];
        pstate_put_bytes(&b, sl->name, strlen(sl->name));
        pstate_put_i64(&b, (int64_t)sl->fed);
        pstate_put_u32(&b, sl->seq);
        size_t nv = MSPROTO_INFO_N;
        msproto_info_encode(&sl->info, L->v);
        nv += msproto_info_map_encode(&sl->info, L->v + MSPROTO_INFO_N);
        pstate_put_u32(&b, (uint32_t)nv);
        for (size_t k = 0; k < nv; k++)
            pstate_put_f64(&b, L->v[k]);
    }
    pstate_put_bytes(&b, L->offered, L->offered_t == L->T ? L->n_offered : 0);
    pstate_buf x = {0};
    if (L->ck.save_extra && L->ck.save_extra(L->ck.ctx, &x, why, why_size) != 0) {
        free(b.p), free(x.p);
        return TP_ESTATE;
    }
    if (x.bad) b.bad = 1;
    pstate_put_bytes(&b, x.p, x.n);
    free(x.p);
    if (b.bad) {
        free(b.p);
        snprintf(why, why_size, "the master: out of memory");
        return TP_ENOMEM;
    }
    *bytes = b.p;
    *n = b.n;
    return TP_OK;
}

static int link_restore_cb(void *ctx, const char *label, tp_time time, const void *bytes, size_t n,
                           char *why, size_t why_size)
{
    ms_link *L = ctx;
    (void)label, (void)time;
    free(L->restored);
    if (!(L->restored = malloc(n ? n : 1))) {
        snprintf(why, why_size, "the master: out of memory");
        return TP_ENOMEM;
    }
    if (n) memcpy(L->restored, bytes, n);
    L->n_restored = n;
    return TP_OK;
}

/* A restored master: the handles of the protocol's classes (declared before the save, kept by
 * the RTI), then its part: the instant, the slaves' handles, sequence numbers and
 * descriptions, the counters; the algorithm's state becomes port_ckpt.resume. Refuses a part
 * it did not write, of another method or other slaves, truncated or with trailing bytes. */
static int link_restore(ms_link *L, char *err, size_t errlen)
{
    for (size_t i = 0; i < L->n; i++) {
        rslave *sl = &L->s[i];
        char name[32];
        msproto_slave_class(i, name, sizeof name);
        int rc = tp_object_class(L->tp, name, &sl->cls);
        if (rc == TP_OK) rc = tp_attribute(L->tp, sl->cls, MSPROTO_REPLY_ATTR, &sl->attr);
        msproto_command_class(i, name, sizeof name);
        if (rc == TP_OK) rc = tp_interaction_class(L->tp, name, &sl->ic);
        if (rc == TP_OK) rc = tp_parameter(L->tp, sl->ic, MSPROTO_BODY_PARAM, &sl->param);
        if (rc != TP_OK)
            return fail(err, errlen, PORT_ELOST, "slave %s's classes: %s: %s", sl->name,
                        tp_strerror(rc), tp_last_error(L->tp));
    }
    int rc = tp_interaction_class(L->tp, MSPROTO_NOTE_CLASS, &L->note_ic);
    if (rc == TP_OK) rc = tp_parameter(L->tp, L->note_ic, MSPROTO_NOTE_WHAT, &L->note_what);
    if (rc == TP_OK) rc = tp_parameter(L->tp, L->note_ic, MSPROTO_NOTE_VALUE, &L->note_value);
    if (rc == TP_OK) rc = tp_parameter(L->tp, L->note_ic, MSPROTO_NOTE_AT, &L->note_at);
    if (rc != TP_OK)
        return fail(err, errlen, PORT_ELOST, "the Note interaction: %s: %s", tp_strerror(rc),
                    tp_last_error(L->tp));
    pstate_rd d = {.p = L->restored, .n = L->n_restored};
    const char *method = L->ff->algo.def->name;
    uint32_t magic = pstate_get_u32(&d), version = pstate_get_u32(&d);
    size_t lm = 0;
    const unsigned char *meth = pstate_get_bytes(&d, &lm);
    if (d.bad || magic != MASTER_PART_MAGIC)
        return fail(err, errlen, PORT_EUSAGE, "the master's part of the checkpoint is not one");
    if (version != MASTER_PART_VERSION)
        return fail(err, errlen, PORT_EUSAGE,
                    "the master's part has format version %u, this build reads %u", version,
                    MASTER_PART_VERSION);
    if (lm != strlen(method) || memcmp(meth, method, lm) != 0)
        return fail(err, errlen, PORT_EUSAGE,
                    "the master's part was saved by another method (this file runs \"%s\")",
                    method);
    int64_t T = pstate_get_i64(&d), next = pstate_get_i64(&d), c[6];
    for (int k = 0; k < 6; k++)
        c[k] = pstate_get_i64(&d);
    uint32_t n = pstate_get_u32(&d);
    if (d.bad || n != L->n)
        return fail(err, errlen, PORT_EUSAGE,
                    "the master's part has %u slaves, this file %zu (or is truncated)", n, L->n);
    tp_time now = 0;
    if (tp_query_logical_time(L->tp, &now) != TP_OK || now != T)
        return fail(err, errlen, PORT_EUSAGE,
                    "the master's part was saved at %.9g s, the RTI restored it at %.9g s",
                    (double)T * L->ff->resolution, (double)now * L->ff->resolution);
    for (size_t i = 0; i < L->n; i++) {
        rslave *sl = &L->s[i];
        size_t ln = 0;
        const unsigned char *name = pstate_get_bytes(&d, &ln);
        int64_t fed = pstate_get_i64(&d);
        uint32_t seq = pstate_get_u32(&d), nv = pstate_get_u32(&d);
        if (d.bad || ln != strlen(sl->name) || memcmp(name, sl->name, ln) != 0 || fed <= 0 ||
            nv < MSPROTO_INFO_N || nv > MSPROTO_MAX_VALUES)
            return fail(err, errlen, PORT_EUSAGE,
                        "the master's part: slave %zu is not %s, or the part is damaged", i,
                        sl->name);
        for (uint32_t k = 0; k < nv; k++)
            L->v[k] = pstate_get_f64(&d);
        msproto_reply r = {.kind = MSP_HELLO, .n_v = nv, .v = L->v};
        char e[MSPROTO_ERRLEN] = "";
        if (d.bad || msproto_info_decode(L->v, &sl->info, e, sizeof e) ||
            !hello_map(sl, &r, e, sizeof e))
            return fail(err, errlen, PORT_EUSAGE, "the master's part: slave %s's description: %s",
                        sl->name, e[0] ? e : "damaged");
        sl->info.name = sl->name;
        sl->fed = (tp_fed)fed;
        sl->joined = 1;
        sl->seq = seq;
        if (msproto_peers_joined(L->peers, sl->fed, sl->name) != 0)
            return fail(err, errlen, PORT_ENOMEM, "out of memory");
    }
    size_t na = 0, nx = 0;
    const unsigned char *algo = pstate_get_bytes(&d, &na);
    L->extra = pstate_get_bytes(&d, &nx);
    L->n_extra = nx;
    if (d.bad || d.at != d.n || !algo)
        return fail(err, errlen, PORT_EUSAGE, "the master's part is truncated or damaged");
    L->joined = L->n;
    L->T = T;
    L->open = 0;
    L->ask_next = next;
    L->mark_next = plan_next(L, T);
    L->n_cmd = c[0], L->n_reply = c[1], L->n_note = c[2];
    L->n_rounds = c[3], L->n_cmd_msg = c[4], L->n_reply_msg = c[5];
    L->pc.resume = algo;
    L->pc.n_resume = na;
    return PORT_OK;
}

int ms_link_resumed_at(const ms_link *l, int64_t *t)
{
    if (!l->restored) return 0;
    *t = l->T;
    return 1;
}

int ms_link_restored_extra(const ms_link *l, const unsigned char **p, size_t *n)
{
    *p = l->extra;
    *n = l->n_extra;
    return l->restored != NULL;
}

/* ---- set-up ------------------------------------------------------------------------------ */

static int wait_joined(ms_link *L, int timeout_ms, char *err, size_t errlen)
{
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (L->joined < L->n) {
        int rc = tp_evoke(L->tp, 100);
        if (rc < 0)
            return fail(err, errlen, PORT_ELOST, "waiting for the slaves to join: %s: %s",
                        tp_strerror(rc), tp_last_error(L->tp));
        char who[128];
        if (fmufed_abandoned(who, sizeof who)) /* in process: a slave failed at its start */
            return fail(err, errlen, PORT_ELOST, FMUFED_FOLLOWED " %s failed at its start",
                        who[0] ? who : "?");
        clock_gettime(CLOCK_MONOTONIC, &now);
        long ms = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
        if (timeout_ms >= 0 && ms > timeout_ms) {
            char miss[400] = "";
            for (size_t i = 0; i < L->n; i++)
                if (!L->s[i].joined && strlen(miss) + 70 < sizeof miss)
                    snprintf(miss + strlen(miss), sizeof miss - strlen(miss), "%s%s",
                             miss[0] ? ", " : "", L->s[i].name);
            return fail(err, errlen, PORT_ELOST, "slaves not joined after %d ms: %s", timeout_ms,
                        miss);
        }
    }
    return PORT_OK;
}

static int declare(ms_link *L, char *err, size_t errlen)
{
    for (size_t i = 0; i < L->n; i++) {
        rslave *s = &L->s[i];
        char name[32];
        msproto_slave_class(i, name, sizeof name);
        int rc = tp_object_class(L->tp, name, &s->cls);
        if (rc == TP_OK) rc = tp_attribute(L->tp, s->cls, MSPROTO_REPLY_ATTR, &s->attr);
        if (rc == TP_OK) rc = tp_subscribe_object_class(L->tp, s->cls, &s->attr, 1);
        msproto_command_class(i, name, sizeof name);
        if (rc == TP_OK) rc = tp_interaction_class(L->tp, name, &s->ic);
        if (rc == TP_OK) rc = tp_parameter(L->tp, s->ic, MSPROTO_BODY_PARAM, &s->param);
        if (rc == TP_OK) rc = tp_publish_interaction_class(L->tp, s->ic);
        if (rc != TP_OK)
            return fail(err, errlen, PORT_ELOST, "declaring slave %s's classes: %s: %s", s->name,
                        tp_strerror(rc), tp_last_error(L->tp));
    }
    int rc = tp_interaction_class(L->tp, MSPROTO_NOTE_CLASS, &L->note_ic);
    if (rc == TP_OK) rc = tp_parameter(L->tp, L->note_ic, MSPROTO_NOTE_WHAT, &L->note_what);
    if (rc == TP_OK) rc = tp_parameter(L->tp, L->note_ic, MSPROTO_NOTE_VALUE, &L->note_value);
    if (rc == TP_OK) rc = tp_parameter(L->tp, L->note_ic, MSPROTO_NOTE_AT, &L->note_at);
    if (rc == TP_OK) rc = tp_publish_interaction_class(L->tp, L->note_ic);
    if (rc != TP_OK)
        return fail(err, errlen, PORT_ELOST, "declaring the Note interaction: %s: %s",
                    tp_strerror(rc), tp_last_error(L->tp));
    return PORT_OK;
}

int ms_link_new(const fedfile *ff, const char *rti, int timeout_ms, int reply_timeout_ms,
                ms_link **out, port_master *m, char *err, size_t errlen)
{
    return ms_link_new_ckpt(ff, rti, timeout_ms, reply_timeout_ms, NULL, out, m, err, errlen);
}

int ms_link_new_ckpt(const fedfile *ff, const char *rti, int timeout_ms, int reply_timeout_ms,
                     const ms_ckpt_opts *ck, ms_link **out, port_master *m, char *err,
                     size_t errlen)
{
    *out = NULL;
    if (timeout_ms == 0) timeout_ms = 60000;
    char addr[600];
    if (rti)
        snprintf(addr, sizeof addr, "%s", rti);
    else if (ff->rti_unix)
        snprintf(addr, sizeof addr, "unix:%s", ff->rti_unix);
    else if (ff->rti_port > 0)
        snprintf(addr, sizeof addr, "%s:%d", ff->rti_host ? ff->rti_host : "127.0.0.1",
                 ff->rti_port);
    else
        return fail(err, errlen, PORT_EUSAGE, "%s gives no RTI port: pass --rti HOST:PORT",
                    ff->path);
    ms_link *L = calloc(1, sizeof *L);
    if (!L) return fail(err, errlen, PORT_ENOMEM, "out of memory");
    L->ff = ff;
    L->reply_timeout_ms = reply_timeout_ms;
    if (ck) L->ck = *ck;
    L->offered_t = TP_NO_TIME;
    L->ask_next = plan_next(L, ff->algo.t_start);
    L->mark_next = L->ask_next;
    int restore = ck && ck->restore;
    L->n = ff->n_feds;
    L->s = calloc(L->n + 1, sizeof *L->s);
    L->ps = calloc(L->n + 1, sizeof *L->ps);
    L->v = malloc(MSPROTO_MAX_VALUES * sizeof *L->v);
    L->tv = malloc(MSPROTO_MAX_VALUES * sizeof *L->tv);
    L->ccap = msproto_cmd_size(MSPROTO_MAX_VALUES, MSPROTO_MAX_VALUES);
    L->cbuf = malloc(L->ccap);
    L->peers = msproto_peers_new();
    char *fom = NULL;
    int rc = PORT_OK;
    if (!L->s || !L->ps || !L->v || !L->tv || !L->cbuf || !L->peers ||
        msproto_fom_xml(ff, &fom, NULL, 0) != MSPROTO_OK) {
        rc = fail(err, errlen, PORT_ENOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < L->n; i++)
        L->s[i] = (rslave){.L = L, .idx = i, .name = ff->feds[i].name};
    tp_callbacks cb = {.reflect = on_reflect,
                       .grant = on_grant,
                       .federate_joined = on_joined,
                       .federate_resigned = on_resigned,
                       .error = on_error,
                       .log = on_log,
                       .save = link_save,
                       .restore = link_restore_cb,
                       .saved = link_saved};
    tp_join_options jo = {.rti = addr,
                          .federation = ff->federation,
                          .federate = MSPROTO_MASTER_NAME,
                          .fom_text = fom,
                          .create = 1,
                          .timeout_ms = timeout_ms > 0 ? timeout_ms : 0,
                          .restore = restore};
    char e[MS_ERRLEN];
    int trc = tp_join(&jo, &cb, L, &L->tp, e, sizeof e);
    free(fom);
    if (trc != TP_OK) {
        rc = fail(err, errlen, PORT_ELOST, "%s %s at %s: %s: %s",
                  restore ? "rejoining the restored federation" : "joining", ff->federation, addr,
                  tp_strerror(trc), e);
        goto fail;
    }
    /* The algorithm's state: offered before each close when saves are asked for, and the
     * bytes to resume from (doc/checkpoint.md "Master methods"). */
    int saves = L->ck.every > 0 || L->ck.n_at;
    L->pc = (port_ckpt){.offer = saves ? link_offer : NULL,
                        .offer_later = saves ? link_offer_later : NULL,
                        .marked = saves ? link_marked : NULL,
                        .ctx = L};
    if (restore) { /* declarations, time management and the start came back from the RTI */
        if (!L->restored) {
            rc = fail(err, errlen, PORT_ELOST, "rejoining %s: the RTI handed back no part",
                      ff->federation);
            goto fail;
        }
        if ((rc = link_restore(L, err, errlen))) goto fail;
        *m = (port_master){.ops = &link_ops,
                           .ctx = L,
                           .slaves = L->ps,
                           .n_slaves = L->n,
                           .tick = ff->resolution,
                           .t_start = ff->algo.t_start,
                           .t_end = ff->algo.t_end,
                           .ckpt = &L->pc};
        for (size_t i = 0; i < L->n; i++)
            L->ps[i] = (port_slave){.ops = &remote_ops, .ctx = &L->s[i], .info = L->s[i].info};
        *out = L;
        return PORT_OK;
    }
    if ((rc = declare(L, err, errlen))) goto fail;
    if ((trc = tp_enable_regulation(L->tp, 0)) == TP_OK &&
        (trc = tp_wait_regulation_enabled(L->tp, timeout_ms)) == TP_OK &&
        (trc = tp_enable_constrained(L->tp)) == TP_OK)
        trc = tp_wait_constrained_enabled(L->tp, timeout_ms);
    if (trc != TP_OK) {
        rc = fail(err, errlen, PORT_ELOST, "enabling time management: %s: %s", tp_strerror(trc),
                  tp_last_error(L->tp));
        goto fail;
    }
    if ((rc = wait_joined(L, timeout_ms, err, errlen))) goto fail;
    if ((trc = tp_register_sync(L->tp, "tempo-start", NULL, 0, NULL, 0)) == TP_OK)
        trc = tp_sync(L->tp, "tempo-start", timeout_ms);
    if (trc != TP_OK) {
        rc = fail(err, errlen, PORT_ELOST, "start synchronisation: %s: %s", tp_strerror(trc),
                  tp_last_error(L->tp));
        goto fail;
    }
    *m = (port_master){.ops = &link_ops,
                       .ctx = L,
                       .slaves = L->ps,
                       .n_slaves = L->n,
                       .tick = ff->resolution,
                       .t_start = ff->algo.t_start,
                       .t_end = ff->algo.t_end,
                       .ckpt = ck ? &L->pc : NULL};
    for (size_t i = 0; i < L->n; i++) {
        L->s[i].info.name = L->s[i].name;
        L->ps[i] = (port_slave){.ops = &remote_ops, .ctx = &L->s[i], .info = L->s[i].info};
    }
    /* The start instant, and every slave's description. */
    if ((rc = m_open(L, ff->algo.t_start))) {
        fail(err, errlen, rc, "opening the start instant: %s", L->s[0].err);
        goto fail;
    }
    for (size_t i = 0; i < L->n; i++)
        post(&L->s[i], (msproto_cmd){.kind = MSP_HELLO}, NULL, 0, NULL, NULL);
    for (size_t i = 0; i < L->n; i++) {
        int st = op_collect(&L->s[i]);
        if (st < 0) {
            rc = fail(err, errlen, st, "%s", L->s[i].err);
            goto fail;
        }
    }
    for (size_t i = 0; i < L->n; i++)
        L->ps[i].info = L->s[i].info;
    *out = L;
    return PORT_OK;
fail:
    ms_link_free(L);
    return rc ? rc : PORT_ELOST;
}

int ms_link_finish(ms_link *l, char *err, size_t errlen)
{
    if (l->open) send_batches(l); /* posted at an instant left open: stamped with it */
    if (l->asking && wait_granted(l, 1, l->T) != PORT_OK) {
        char why[MS_ERRLEN];
        ms_link_lost(l, why, sizeof why);
        return fail(err, errlen, PORT_ELOST, "at the end: %s", why);
    }
    /* Where the end goes (doc/master.md "The end"): the slaves wait in NERA(horizon) after the
     * last close unless it closed the horizon itself. Stamped at the horizon (one tick past the
     * last instant when that is +inf), it is what grants each of them, with the master's TAR
     * there, so every slave's last grant is the same in every run; in receive order it raced
     * the slaves' last requests. */
    tp_time horizon = fedfile_master_horizon(l->ff), at = TP_NO_TIME;
    if (!l->open && l->T < horizon) at = horizon == INT64_MAX ? l->T + 1 : horizon;
    for (size_t i = 0; i < l->n; i++) {
        rslave *s = &l->s[i];
        if (s->lost) continue;
        unsigned char b[64];
        size_t len = 0;
        msproto_cmd c = {.kind = MSP_END, .seq = ++s->seq};
        msproto_cmd_encode(&c, b, sizeof b, &len, NULL, 0);
        tp_value val = {.handle = s->param, .data = b, .size = len};
        if (tp_send_interaction(l->tp, s->ic, &val, 1, at) != TP_OK)
            return fail(err, errlen, PORT_ELOST, "sending the end to slave %s: %s", s->name,
                        tp_last_error(l->tp));
        l->n_cmd++;
        l->n_cmd_msg++;
    }
    /* Stamped: advance there too, so that each slave has its end before the master resigns
     * (its resignation first would read "the master left before the end"); the reply timeout
     * names a slave that never gets there. */
    if (at != TP_NO_TIME && advance(l, 0, at) != PORT_OK) {
        char why[MS_ERRLEN];
        ms_link_lost(l, why, sizeof why);
        return fail(err, errlen, PORT_ELOST, "at the end: %s", why);
    }
    int rc = tp_resign(l->tp, TP_DELETE_OBJECTS);
    l->resigned = 1;
    if (rc != TP_OK)
        return fail(err, errlen, PORT_ELOST, "resign: %s: %s", tp_strerror(rc),
                    tp_last_error(l->tp));
    return PORT_OK;
}

void ms_link_free(ms_link *l)
{
    if (!l) return;
    tp_federate_free(l->tp);
    for (size_t i = 0; l->s && i < l->n; i++) {
        free(l->s[i].p);
        free(l->s[i].bat);
        free(l->s[i].out_state);
    }
    free(l->s);
    free(l->ps);
    free(l->v);
    free(l->tv);
    free(l->cbuf);
    msproto_peers_free(l->peers);
    free(l->offered);
    free(l->restored);
    free(l);
}

void ms_link_lost(const ms_link *l, char *out, size_t len)
{
    size_t n = 0;
    if (len) out[0] = '\0';
    for (size_t i = 0; i < l->n && n + 1 < len; i++) {
        const char *why = l->s[i].lost ? l->s[i].err : l->s[i].failed;
        if (!why[0]) continue;
        int w = snprintf(out + n, len - n, "%s%s", n ? "; " : "", why);
        if (w < 0) break;
        n += (size_t)w;
    }
}

long ms_link_refused(const ms_link *l, char *first, size_t len)
{
    if (len) snprintf(first, len, "%s", l->refused_first);
    return l->refused;
}

void ms_link_counts(const ms_link *l, long *commands, long *replies, long *notes)
{
    if (commands) *commands = l->n_cmd;
    if (replies) *replies = l->n_reply;
    if (notes) *notes = l->n_note;
}

void ms_link_messages(const ms_link *l, long *rounds, long *out, long *in)
{
    if (rounds) *rounds = l->n_rounds;
    if (out) *out = l->n_cmd_msg;
    if (in) *in = l->n_reply_msg;
}
