/* The one way an algorithm calls a slave's operation (algorithms/port.h, "Calling a slave"):
 * each port_OP checks the slave (not NULL, an ops table of this version), gives an empty slot
 * its meaning (PORT_EUNSUPPORTED, or PORT_OK for record and collect, which have nothing to do)
 * and the arguments every implementation needs, then forwards the call unchanged, so that a
 * run through these functions gives the same bits as through the table. doc/algorithms/port.md.
 */
#include "algorithms/port.h"

/* The slave is usable and has the operation: PORT_OK; else the status to return. */
#define PORT_CHECK(s, op, empty)                                                                   \
    do {                                                                                           \
        if (!(s) || !(s)->ops || (s)->ops->version != PORT_OPS_VERSION) return PORT_EUSAGE;        \
        if (!(s)->ops->op) return (empty);                                                         \
    } while (0)

int port_set_inputs(const port_slave *s, const port_poly *u)
{
    PORT_CHECK(s, set_inputs, PORT_EUNSUPPORTED);
    if (!u || u->order < 0 || u->order > PORT_MAX_ORDER || (u->n && !u->c)) return PORT_EUSAGE;
    return s->ops->set_inputs(s->ctx, u);
}

int port_step(const port_slave *s, int64_t t_to, int n_sub, double *y_sub, port_step_result *res)
{
    PORT_CHECK(s, step, PORT_EUNSUPPORTED);
    return s->ops->step(s->ctx, t_to, n_sub, y_sub, res);
}

int port_get_outputs(const port_slave *s, double *y)
{
    PORT_CHECK(s, get_outputs, PORT_EUNSUPPORTED);
    if (!y && s->info.n_out) return PORT_EUSAGE;
    return s->ops->get_outputs(s->ctx, y);
}

int port_get_output_derivs(const port_slave *s, int order, double *dy)
{
    PORT_CHECK(s, get_output_derivs, PORT_EUNSUPPORTED);
    if (order < 1 || (!dy && s->info.n_out)) return PORT_EUSAGE;
    return s->ops->get_output_derivs(s->ctx, order, dy);
}

int port_get_discrete(const port_slave *s, port_discrete *d)
{
    PORT_CHECK(s, get_discrete, PORT_EUNSUPPORTED);
    return s->ops->get_discrete(s->ctx, d);
}

int port_set_discrete(const port_slave *s, size_t n, const port_discrete *d)
{
    PORT_CHECK(s, set_discrete, PORT_EUNSUPPORTED);
    if (n && !d) return PORT_EUSAGE;
    return s->ops->set_discrete(s->ctx, n, d);
}

int port_share_discrete(const port_slave *s, int64_t t)
{
    PORT_CHECK(s, share_discrete, PORT_EUNSUPPORTED);
    return s->ops->share_discrete(s->ctx, t);
}

int port_get_states(const port_slave *s, double *x)
{
    PORT_CHECK(s, get_states, PORT_EUNSUPPORTED);
    return s->ops->get_states(s->ctx, x);
}

int port_set_states(const port_slave *s, int64_t t, const double *x)
{
    PORT_CHECK(s, set_states, PORT_EUNSUPPORTED);
    return s->ops->set_states(s->ctx, t, x);
}

int port_get_derivatives(const port_slave *s, double *dx)
{
    PORT_CHECK(s, get_derivatives, PORT_EUNSUPPORTED);
    return s->ops->get_derivatives(s->ctx, dx);
}

int port_get_directional(const port_slave *s, const double *du, double *dy)
{
    PORT_CHECK(s, get_directional, PORT_EUNSUPPORTED);
    if (!du || !dy) return PORT_EUSAGE;
    return s->ops->get_directional(s->ctx, du, dy);
}

int port_save(const port_slave *s, int slot)
{
    PORT_CHECK(s, save, PORT_EUNSUPPORTED);
    if (slot < 0 || slot >= PORT_SLOTS) return PORT_EUSAGE;
    return s->ops->save(s->ctx, slot);
}

int port_restore(const port_slave *s, int slot)
{
    PORT_CHECK(s, restore, PORT_EUNSUPPORTED);
    if (slot < 0 || slot >= PORT_SLOTS) return PORT_EUSAGE;
    return s->ops->restore(s->ctx, slot);
}

int port_record(const port_slave *s)
{
    PORT_CHECK(s, record, PORT_OK);
    return s->ops->record(s->ctx);
}

int port_collect(const port_slave *s)
{
    PORT_CHECK(s, collect, PORT_OK);
    return s->ops->collect(s->ctx);
}

int port_has(const port_slave *s, port_op op)
{
    if (!s || !s->ops || s->ops->version != PORT_OPS_VERSION) return 0;
    const port_slave_ops *o = s->ops;
    switch (op) {
    case PORT_OP_OUTPUT_DERIVS:
        return o->get_output_derivs != NULL;
    case PORT_OP_DISCRETE:
        return o->get_discrete != NULL;
    case PORT_OP_SHARE_DISCRETE:
        return o->share_discrete != NULL;
    case PORT_OP_STATES:
        return o->get_states && o->set_states && o->get_derivatives;
    case PORT_OP_DIRECTIONAL:
        return o->get_directional != NULL;
    case PORT_OP_SAVE:
        return o->save && o->restore;
    case PORT_OP_RECORD:
        return o->record != NULL;
    }
    return 0;
}
