/* Names of the port's status codes, the ticks-to-seconds rule and the helpers shared by the
 * algorithms over the port (algorithms/port.h, doc/algorithms/port.md, doc/time.md). */
#include "algorithms/port.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *port_strerror(int status)
{
    switch ((port_status)status) {
    case PORT_OK:
        return "ok";
    case PORT_EVENT:
        return "stopped at an event";
    case PORT_TERMINATED:
        return "the model terminated";
    case PORT_EDISCARD:
        return "step discarded (recoverable)";
    case PORT_EUNSUPPORTED:
        return "not supported by this slave";
    case PORT_EUSAGE:
        return "bad argument or call order";
    case PORT_EFAIL:
        return "slave failed";
    case PORT_ELOST:
        return "slave lost";
    case PORT_ENOCONV:
        return "no convergence";
    case PORT_ENOMEM:
        return "out of memory";
    }
    return "unknown port status";
}

double port_seconds(double tick, int64_t t)
{
    double tps = 1.0 / tick, r = floor(tps + 0.5);
    if (r >= 1 && fabs(tps - r) <= 1e-9 * r) return (double)t / r;
    return (double)t * tick;
}

int port_sync_first(const port_master *m, int *status, long *culprit)
{
    int worst = PORT_OK;
    *culprit = -1;
    for (size_t j = 0; j < m->n_slaves; j++) {
        const port_slave *s = &m->slaves[j];
        int st = port_collect(s);
        if (status) status[j] = st;
        if (st < 0 ? (worst >= 0 || st < worst) : (worst >= 0 && st > worst)) {
            worst = st;
            *culprit = (long)j;
        }
    }
    return worst;
}

int port_sync(const port_master *m, int *status)
{
    long culprit;
    return port_sync_first(m, status, &culprit);
}

static int local_step_clock(void *ctx, int64_t t)
{
    port_local_clock *c = ctx;
    if (t < c->last) return PORT_EUSAGE; /* logical time never goes backwards */
    c->last = t;
    return PORT_OK;
}

const port_master_ops port_local_master_ops = {
    .open = local_step_clock,
    .close = local_step_clock,
    .note = NULL,
};

int port_errorf(char *err, size_t errlen, int status, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return status;
}

int port_ckpt_offer(const port_master *m, int64_t t, const void *state, size_t n)
{
    if (!m->ckpt || !m->ckpt->offer) return PORT_OK;
    return m->ckpt->offer(m->ckpt->ctx, t, state, n);
}

int port_ckpt_offer_later(const port_master *m, int64_t t,
                          int (*write)(void *arg, void **bytes, size_t *n), void *arg)
{
    if (!m->ckpt) return PORT_OK;
    if (m->ckpt->offer_later) return m->ckpt->offer_later(m->ckpt->ctx, t, write, arg);
    if (!m->ckpt->offer) return PORT_OK;
    void *p = NULL;
    size_t n = 0;
    int rc = write(arg, &p, &n);
    if (rc == PORT_OK) rc = m->ckpt->offer(m->ckpt->ctx, t, p, n);
    free(p);
    return rc;
}

int port_ckpt_marked(const port_master *m, int64_t t)
{
    return m->ckpt && m->ckpt->marked ? m->ckpt->marked(m->ckpt->ctx, t) : 0;
}

void port_note(const port_master *m, const char *what, double value)
{
    if (m->ops && m->ops->note) m->ops->note(m->ctx, what, value);
}

int port_grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap * 2 : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * size);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* A slave's name for messages: never NULL. */
static const char *slave_name(const port_master *m, size_t j)
{
    return m->slaves[j].info.name ? m->slaves[j].info.name : "?";
}

/* Prefix sums of each slave's n_out, n_in and n_state into whichever arrays exist, and the check
 * of what every slave must offer. */
static int frame_fill(const port_frame *f, const port_master *m, const port_frame_rules *r,
                      char *err, size_t errlen)
{
    for (size_t j = 0; j < m->n_slaves; j++) {
        const port_slave_info *in = &m->slaves[j].info;
        int has = r->need == PORT_NEED_STATE_DERIVS ? in->has_state_derivs : in->can_save;
        if (!has)
            return port_errorf(err, errlen, PORT_EUNSUPPORTED, "%s: slave '%s' %s", r->who,
                               slave_name(m, j), r->lack);
        if (f->off_out) (*f->off_out)[j + 1] = (*f->off_out)[j] + in->n_out;
        if (f->off_in) (*f->off_in)[j + 1] = (*f->off_in)[j] + in->n_in;
        if (f->off_x) (*f->off_x)[j + 1] = (*f->off_x)[j] + in->n_state;
    }
    return PORT_OK;
}

int port_frame_init(const port_frame *f, const port_master *m, const port_frame_rules *r, char *err,
                    size_t errlen)
{
    if (!m->n_slaves || !(m->tick > 0) || m->t_end <= m->t_start)
        return port_errorf(err, errlen, PORT_EUSAGE,
                           "%s: no slaves, tick <= 0, or end not after start", r->who);
    size_t n_c = m->n_slaves, n_out = 0, n_in = 0;
    if (f->n_c) *f->n_c = n_c;
    if ((f->off_out && !(*f->off_out = calloc(n_c + 1, sizeof **f->off_out))) ||
        (f->off_in && !(*f->off_in = calloc(n_c + 1, sizeof **f->off_in))) ||
        (f->off_x && !(*f->off_x = calloc(n_c + 1, sizeof **f->off_x))) ||
        (f->sr && !(*f->sr = calloc(n_c, sizeof **f->sr))) ||
        (f->st && !(*f->st = calloc(n_c, sizeof **f->st))))
        return port_errorf(err, errlen, PORT_ENOMEM, "%s: out of memory", r->who);
    int st = frame_fill(f, m, r, err, errlen);
    if (st != PORT_OK) return st;
    for (size_t j = 0; j < n_c; j++)
        n_out += m->slaves[j].info.n_out, n_in += m->slaves[j].info.n_in;
    if (f->n_out) *f->n_out = n_out;
    if (f->n_in) *f->n_in = n_in;
    if (n_in && !r->links)
        return port_errorf(err, errlen, PORT_EUSAGE, "%s: slaves have inputs but no links", r->who);
    size_t *off = calloc(n_c + 1, sizeof *off);
    port_link *by = calloc(n_in + 1, sizeof *by);
    unsigned char *fed = calloc(n_in + 1, 1);
    if (f->by_in) *f->by_in = by;
    if (!off || !by || !fed) {
        free(off), free(fed);
        if (!f->by_in) free(by);
        return port_errorf(err, errlen, PORT_ENOMEM, "%s: out of memory", r->who);
    }
    for (size_t j = 0; j < n_c; j++)
        off[j + 1] = off[j] + m->slaves[j].info.n_in;
    st = PORT_OK;
    for (size_t k = 0; st == PORT_OK && k < r->n_links; k++) {
        const port_link *l = &r->links[k];
        if (l->to >= n_c || l->from >= n_c || l->in >= m->slaves[l->to].info.n_in ||
            l->out >= m->slaves[l->from].info.n_out || (l->to == l->from && !r->self_links))
            st = port_errorf(err, errlen, PORT_EUSAGE,
                             "%s: link %zu (slave %zu input %zu <- slave %zu output %zu) names no "
                             "input or output%s",
                             r->who, k, l->to, l->in, l->from, l->out,
                             r->self_links ? "" : " (or is a slave's own)");
        else if (fed[off[l->to] + l->in]++)
            st = port_errorf(err, errlen, PORT_EUSAGE, "%s: slave '%s' input %zu is fed twice",
                             r->who, slave_name(m, l->to), l->in);
        else
            by[off[l->to] + l->in] = *l;
    }
    for (size_t j = 0; st == PORT_OK && j < n_c; j++)
        for (size_t i = 0; st == PORT_OK && i < m->slaves[j].info.n_in; i++)
            if (!fed[off[j] + i])
                st = port_errorf(err, errlen, PORT_EUSAGE,
                                 "%s: slave '%s' input %zu is fed by no link", r->who,
                                 slave_name(m, j), i);
    free(off), free(fed);
    if (!f->by_in) free(by);
    return st;
}

/* Free what a pointer field holds and clear it; field NULL: not wanted. */
#define FRAME_FREE(field)                                                                          \
    do {                                                                                           \
        if (field) {                                                                               \
            free(*(field));                                                                        \
            *(field) = NULL;                                                                       \
        }                                                                                          \
    } while (0)

void port_frame_fini(const port_frame *f)
{
    if (!f) return;
    FRAME_FREE(f->off_out);
    FRAME_FREE(f->off_in);
    FRAME_FREE(f->off_x);
    FRAME_FREE(f->sr);
    FRAME_FREE(f->st);
    FRAME_FREE(f->by_in);
}

/* "slave NAME" or "slave 'NAME'" somewhere in err. */
static int names_slave(const char *err, const char *name, size_t len)
{
    for (const char *at = strstr(err, "slave "); at; at = strstr(at + 1, "slave ")) {
        const char *p = at + 6;
        int quoted = *p == '\'';
        if (strncmp(p + quoted, name, len) == 0 &&
            (quoted ? p[1 + len] == '\'' : (p[len] == ':' || p[len] == ' ' || !p[len])))
            return 1;
    }
    return 0;
}

void port_add_cause(char *err, size_t errlen, int status, const char *slave, const char *cause)
{
    if (!err || !errlen || !cause || !cause[0]) return;
    char name[128] = "", lead[160] = "";
    int own = 0; /* the cause opens with "slave NAME" and keeps it ("slave NAME lost: ") */
    if (slave) {
        snprintf(name, sizeof name, "%s", slave);
    } else if (strncmp(cause, "slave ", 6) == 0) {
        size_t k = strcspn(cause + 6, ": ");
        snprintf(name, sizeof name, "%.*s", (int)k, cause + 6);
        if (cause[6 + k] == ':') { /* past "slave NAME: " */
            cause += 6 + k + 1;
            if (*cause == ' ') cause++;
        } else {
            own = 1; /* "slave NAME lost: ...": kept whole unless err names the slave */
        }
    }
    size_t len = strlen(name);
    int named = len && names_slave(err, name, len);
    if (own && named)
        cause += 6 + len + 1, own = 0; /* "lost: ..." (tempo-run reads both forms, doc/run.md) */
    if (len && !own && !named) snprintf(lead, sizeof lead, "slave %s: ", name);
    size_t n = strlen(err);
    const char *generic = port_strerror(status);
    size_t g = strlen(generic);
    /* only "slave failed" and "slave lost" are words the slave's own replace */
    int slave_words = status == PORT_EFAIL || status == PORT_ELOST;
    if (slave_words && n >= g + 2 && strcmp(err + n - g, generic) == 0 && err[n - g - 2] == ':') {
        n -= g;
        snprintf(err + n, errlen - n, "%s%s", lead, cause);
    } else if (n + 4 < errlen) {
        snprintf(err + n, errlen - n, " (%s%s)", lead, cause);
    }
}

int port_sync_report(const port_master *m, int *status, const char *who, const char *what, double t,
                     int pass, const char *positive_note, int *failed_slave, char *err,
                     size_t errlen)
{
    long j;
    int st = port_sync_first(m, status, &j);
    if (st == PORT_OK || ((pass & PORT_PASS_EVENT) && st == PORT_EVENT)) return st;
    *failed_slave = (int)j;
    if ((pass & PORT_PASS_DISCARD) && st == PORT_EDISCARD) return st; /* recoverable: no report */
    return port_errorf(err, errlen, st < 0 ? st : PORT_EUNSUPPORTED,
                       "%s: slave '%s' %s at %.17g s: %s%s", who,
                       j >= 0 ? slave_name(m, (size_t)j) : "?", what, t, port_strerror(st),
                       st > 0 ? positive_note : "");
}
