/* Fault injection through the port, the one way the unit tests make a slave fail
 * (doc/contributing.md §12, "fault injection through override tables"; algorithms/port.h,
 * "Calling a slave"). A slave is wrapped in place: its table becomes a forwarding table whose
 * every operation calls the wrapped slave through its port_* function, except the call that
 * port_fault_arm names, which returns the chosen status without reaching the slave, and the
 * slave's next collect reports it (the post/collect contract of port.h). An empty slot of the
 * wrapped slave stays empty, so port_has and the port_* defaults see the same slave. Forwarding
 * changes no bit: a wrapped slave that is not armed gives the results of the bare one.
 * Used by wr_test.c, semi_test.c, strong_test.c and msjacobi_test.c; port_test.c tests it.
 */
#ifndef TEMPO_TESTS_UNIT_PORT_FAULT_H
#define TEMPO_TESTS_UNIT_PORT_FAULT_H

#include "algorithms/port.h"

/* The operations that can be made to fail. */
typedef enum pf_op {
    PF_NONE = 0,
    PF_SET_INPUTS,
    PF_STEP,
    PF_GET_OUTPUTS,
    PF_GET_OUTPUT_DERIVS,
    PF_GET_DISCRETE,
    PF_SET_DISCRETE,
    PF_SHARE_DISCRETE,
    PF_GET_STATES,
    PF_SET_STATES,
    PF_GET_DERIVATIVES,
    PF_GET_DIRECTIONAL,
    PF_SAVE,
    PF_RESTORE,
    PF_RECORD,
    PF_N,
} pf_op;

typedef struct port_fault {
    port_slave inner;   /* the wrapped slave, as it was */
    port_slave_ops ops; /* the wrapper's table */
    pf_op op;           /* the operation that fails; PF_NONE: none */
    long at;            /* its at-th call fails (1 = the first) */
    int status;         /* what that call returns and the next collect reports */
    long calls[PF_N];   /* calls of each operation so far, the failing one included */
    int owed;           /* status owed to the next collect (PORT_OK: none) */
} port_fault;

/* Count a call of op; 1 when it is the one to fail (its status is then owed to collect). */
static inline int pf_hit(port_fault *f, pf_op op)
{
    if (++f->calls[op] != f->at || op != f->op) return 0;
    if (f->owed == PORT_OK) f->owed = f->status;
    return 1;
}

#define PF_FORWARD(op, call)                                                                       \
    do {                                                                                           \
        port_fault *f_ = ctx;                                                                      \
        if (pf_hit(f_, op)) return f_->status;                                                     \
        return call;                                                                               \
    } while (0)

static int pf_set_inputs(void *ctx, const port_poly *u)
{
    PF_FORWARD(PF_SET_INPUTS, port_set_inputs(&f_->inner, u));
}
static int pf_step(void *ctx, int64_t t_to, int n_sub, double *y_sub, port_step_result *res)
{
    PF_FORWARD(PF_STEP, port_step(&f_->inner, t_to, n_sub, y_sub, res));
}
static int pf_get_outputs(void *ctx, double *y)
{
    PF_FORWARD(PF_GET_OUTPUTS, port_get_outputs(&f_->inner, y));
}
static int pf_get_output_derivs(void *ctx, int order, double *dy)
{
    PF_FORWARD(PF_GET_OUTPUT_DERIVS, port_get_output_derivs(&f_->inner, order, dy));
}
static int pf_get_discrete(void *ctx, port_discrete *d)
{
    PF_FORWARD(PF_GET_DISCRETE, port_get_discrete(&f_->inner, d));
}
static int pf_set_discrete(void *ctx, size_t n, const port_discrete *d)
{
    PF_FORWARD(PF_SET_DISCRETE, port_set_discrete(&f_->inner, n, d));
}
static int pf_share_discrete(void *ctx, int64_t t)
{
    PF_FORWARD(PF_SHARE_DISCRETE, port_share_discrete(&f_->inner, t));
}
static int pf_get_states(void *ctx, double *x)
{
    PF_FORWARD(PF_GET_STATES, port_get_states(&f_->inner, x));
}
static int pf_set_states(void *ctx, int64_t t, const double *x)
{
    PF_FORWARD(PF_SET_STATES, port_set_states(&f_->inner, t, x));
}
static int pf_get_derivatives(void *ctx, double *dx)
{
    PF_FORWARD(PF_GET_DERIVATIVES, port_get_derivatives(&f_->inner, dx));
}
static int pf_get_directional(void *ctx, const double *du, double *dy)
{
    PF_FORWARD(PF_GET_DIRECTIONAL, port_get_directional(&f_->inner, du, dy));
}
static int pf_save(void *ctx, int slot)
{
    PF_FORWARD(PF_SAVE, port_save(&f_->inner, slot));
}
static int pf_restore(void *ctx, int slot)
{
    PF_FORWARD(PF_RESTORE, port_restore(&f_->inner, slot));
}
static int pf_record(void *ctx)
{
    PF_FORWARD(PF_RECORD, port_record(&f_->inner));
}

/* The wrapped slave's collect, and the injected failure first: an error wins over an event. */
static int pf_collect(void *ctx)
{
    port_fault *f = ctx;
    int st = port_collect(&f->inner), owed = f->owed;
    f->owed = PORT_OK;
    return owed < 0 || (owed > 0 && st >= 0) ? owed : st;
}

/* Wrap *s in place (its info stays; its table and context become f's), failing nothing yet. */
static inline void port_fault_wrap(port_fault *f, port_slave *s)
{
    const port_slave_ops *in = s->ops;
    *f = (port_fault){.inner = *s, .op = PF_NONE};
    f->ops = (port_slave_ops){
        .version = PORT_OPS_VERSION,
        .set_inputs = in->set_inputs ? pf_set_inputs : NULL,
        .step = in->step ? pf_step : NULL,
        .get_outputs = in->get_outputs ? pf_get_outputs : NULL,
        .get_output_derivs = in->get_output_derivs ? pf_get_output_derivs : NULL,
        .get_discrete = in->get_discrete ? pf_get_discrete : NULL,
        .set_discrete = in->set_discrete ? pf_set_discrete : NULL,
        .share_discrete = in->share_discrete ? pf_share_discrete : NULL,
        .get_states = in->get_states ? pf_get_states : NULL,
        .set_states = in->set_states ? pf_set_states : NULL,
        .get_derivatives = in->get_derivatives ? pf_get_derivatives : NULL,
        .get_directional = in->get_directional ? pf_get_directional : NULL,
        .save = in->save ? pf_save : NULL,
        .restore = in->restore ? pf_restore : NULL,
        .record = in->record ? pf_record : NULL,
        .collect = pf_collect,
    };
    s->ops = &f->ops;
    s->ctx = f;
}

/* From now on, the at-th call of op (counted from the wrap) returns status. */
static inline void port_fault_arm(port_fault *f, pf_op op, long at, int status)
{
    f->op = op;
    f->at = at;
    f->status = status;
}

#endif
