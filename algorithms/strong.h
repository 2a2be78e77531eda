/* Strong coupling (the Awais thesis §5.4, Algorithm 4) as a function over the port
 * (algorithms/port.h): one CVODE in the master integrates the states of every slave; each
 * right-hand-side evaluation sets the slaves' states, wires their outputs to their inputs and
 * reads their state derivatives, so the slaves act as model-exchange evaluators. The slaves
 * must offer set_states / get_outputs / get_derivatives (info.has_state_derivs).
 * doc/algorithms/strong-coupling.md. Read algorithms/strong.c next. C with libc, libm and
 * SUNDIALS CVODE (doc/architecture.md).
 */
#ifndef TEMPO_ALGORITHMS_STRONG_H
#define TEMPO_ALGORITHMS_STRONG_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/port.h"
#include "algorithms/wr.h"

/* The master's CVODE settings. */
typedef struct strong_opts {
    int64_t step;    /* output step, ticks, > 0: the instants at which the states are committed */
    int adams;       /* 0: BDF with Newton and a dense Jacobian (default), 1: Adams */
    double rtol;     /* relative tolerance, > 0 (default 1e-6) */
    double atol;     /* absolute tolerance, > 0 (default 1e-8) */
    double max_step; /* largest internal step, s; 0: no limit (default) */
} strong_opts;

/** Defaults: BDF, rtol 1e-6, atol 1e-8, no step limit. */
void strong_opts_default(strong_opts *o, int64_t step);

/* What a run did. */
typedef struct strong_result {
    int64_t t_reached; /* ticks: the last committed instant */
    size_t n_out;      /* output instants after the start (n_s) */
    long n_rhs;        /* right-hand-side rounds (n_f), CVODE's count */
    long n_steps;      /* CVODE's internal steps */
    /* Messages, one per command to one slave and one per reply carrying values. Per slave: at
     * the start get_states + reply + record (3); per right-hand side set_states, get_outputs +
     * reply, set_inputs, get_derivatives + reply (6); per output instant set_states + record
     * (2): total n_c (3 + 6 n_f + 2 n_s), eq. 5.19 with c1 = 2 n_c and c2 = 6 n_c. */
    size_t msg_commands, msg_replies;
    int failed_slave; /* index of the slave at fault, -1 when none */
} strong_result;

/**
 * Run strong coupling from m->t_start to m->t_end.
 * @param m     the master and its slaves, not NULL; every slave has has_state_derivs
 * @param links sum of n_in links, slave by slave (wr_link); may be NULL without inputs
 * @param o     settings, not NULL (strong_opts_default)
 * @param res   out: counts (zeroed first), not NULL
 * @param err   caller-owned buffer naming the slave or CVODE's failure; errlen its size
 * @return PORT_OK; PORT_EUSAGE (bad settings or links); PORT_EUNSUPPORTED (a slave without
 *         state derivatives); PORT_EFAIL (CVODE failed: err has its flag); a slave's error
 *         (res->failed_slave); PORT_ENOMEM.
 */
int strong_run(const port_master *m, const wr_link *links, const strong_opts *o, strong_result *res,
               char *err, size_t errlen);

#endif /* TEMPO_ALGORITHMS_STRONG_H */
