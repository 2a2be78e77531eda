/* The one way a peer algorithm calls its exchange (algorithms/exchange.h, the exchange_*
 * calls): each checks the exchange and the arguments, gives an empty slot its meaning, and
 * forwards the call unchanged, so that a run through these functions gives the bits of a run
 * through the table. The peer side's twin of algorithms/port_ops.c. doc/algorithms/port.md.
 */
#include "algorithms/exchange.h"

/* The exchange is usable: PORT_OK; else PORT_EUSAGE. */
#define EXCHANGE_CHECK(x)                                                                          \
    do {                                                                                           \
        if (!(x) || !(x)->ops) return PORT_EUSAGE;                                                 \
    } while (0)

int exchange_publish(const peer_exchange *x, int64_t ts, const double *y)
{
    EXCHANGE_CHECK(x);
    if (!x->ops->publish) return PORT_EUNSUPPORTED;
    if (!y) return PORT_EUSAGE;
    return x->ops->publish(x->ctx, ts, y);
}

int exchange_request(const peer_exchange *x, peer_req kind, int64_t t, int64_t *granted)
{
    EXCHANGE_CHECK(x);
    if (!x->ops->request) return PORT_EUNSUPPORTED;
    if (kind < PEER_CLOSE || kind > PEER_FLUSH) return PORT_EUSAGE;
    return x->ops->request(x->ctx, kind, t, granted);
}

int exchange_inputs(const peer_exchange *x, peer_input *in)
{
    EXCHANGE_CHECK(x);
    if (!x->ops->inputs) return PORT_EUNSUPPORTED;
    if (!in) return PORT_EUSAGE;
    return x->ops->inputs(x->ctx, in);
}

int exchange_token_send(const peer_exchange *x, int64_t ts)
{
    EXCHANGE_CHECK(x);
    if (!x->ops->token_send) return PORT_EUNSUPPORTED;
    return x->ops->token_send(x->ctx, ts);
}

int64_t exchange_token_time(const peer_exchange *x)
{
    if (!x || !x->ops || !x->ops->token_time) return PEER_NO_TIME;
    return x->ops->token_time(x->ctx);
}

int exchange_idle(const peer_exchange *x, int attempt, int64_t t, const char *waiting_for)
{
    EXCHANGE_CHECK(x);
    if (!x->ops->idle) return PORT_OK;
    return x->ops->idle(x->ctx, attempt, t, waiting_for ? waiting_for : "");
}
