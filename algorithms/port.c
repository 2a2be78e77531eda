/* Names of the port's status codes (algorithms/port.h, doc/algorithms/port.md). */
#include "algorithms/port.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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

int port_sync_first(const port_master *m, int *status, long *culprit)
{
    int worst = PORT_OK;
    *culprit = -1;
    for (size_t j = 0; j < m->n_slaves; j++) {
        const port_slave *s = &m->slaves[j];
        int st = s->ops->collect(s->ctx);
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
