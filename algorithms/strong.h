/* Strong coupling (the Awais thesis §5.4, Algorithm 4) as a function over the port
 * (algorithms/port.h): one CVODE in the master integrates the states of every slave; each
 * right-hand-side evaluation sets the slaves' states, wires their outputs to their inputs and
 * reads their state derivatives, so the slaves act as model-exchange evaluators. The slaves
 * must offer set_states / get_outputs / get_derivatives (info.has_state_derivs). When every
 * wired output is a state (info.out_state) an evaluation is one round, as in Algorithm 4.
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
    long n_rhs;        /* right-hand-side evaluations (n_f): CVODE's own and its
                          difference-quotient Jacobian's */
    long n_rounds;     /* synchronised rounds over the port spent in them: n_f (one round per
                          evaluation) or 2 n_f (outputs read first; see one_round) */
    long n_steps;      /* CVODE's internal steps */
    int one_round;     /* 1: every wired output is a state (info.out_state), so an evaluation is
                          one round of set_states, set_inputs, get_derivatives (Algorithm 4);
                          0: set_states + get_outputs, then set_inputs + get_derivatives */
    /* Messages, one per command to one slave and one per reply carrying values (TARA/TAR and
     * close not counted), and the constants of eq. 5.19 they obey:
     *   msg_commands + msg_replies = c0 + c1 n_s + c2 n_f
     * per slave at the start get_states + reply + record (c0 = 3 n_c); per output instant
     * set_states, set_inputs, record (c1 = 3 n_c) plus get_outputs + reply (c1 = 5 n_c) when
     * not one_round; per evaluation set_states, set_inputs, get_derivatives + reply
     * (c2 = 4 n_c) plus get_outputs + reply (c2 = 6 n_c) when not one_round. */
    size_t msg_commands, msg_replies;
    size_t c0, c1, c2;
    int failed_slave; /* index of the slave at fault, -1 when none */
} strong_result;

/**
 * Run strong coupling from m->t_start to m->t_end.
 * m->ops->note (when set) receives "strong.rhs" (evaluations since the last output instant)
 * and "strong.steps" (CVODE steps since then) at every output instant.
 * @param m     the master and its slaves, not NULL; every slave has has_state_derivs
 * @param links n_links links (port_link), in any order: every input fed by exactly one output
 *              (a slave's own output too); may be NULL without inputs
 * @param o     settings, not NULL (strong_opts_default)
 * @param res   out: counts (zeroed first), not NULL
 * @param err   caller-owned buffer naming the slave or CVODE's failure; errlen its size
 * @return PORT_OK; PORT_EUSAGE (bad settings or links); PORT_EUNSUPPORTED (a slave without
 *         state derivatives); PORT_EFAIL (CVODE failed: err has its flag); a slave's error
 *         (res->failed_slave); PORT_ENOMEM.
 */
int strong_run(const port_master *m, const port_link *links, size_t n_links, const strong_opts *o,
               strong_result *res, char *err, size_t errlen);

#endif /* TEMPO_ALGORITHMS_STRONG_H */
