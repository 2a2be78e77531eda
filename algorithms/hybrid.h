/* Hybrid co-simulation with discrete events, rewind and communication step-size control (the
 * Awais thesis §5.5, Algorithm 5, and §5.5.2) as a function over the port (algorithms/port.h):
 * waveform relaxation over continuous couplings, discrete couplings held over a step and
 * shared only where a step is committed, a step that sees an event rewound to its start and
 * redone in small fixed steps delta up to the event, and the step size H grown or shrunk by
 * the divergence measure e_d of eq. 5.22. doc/algorithms/hybrid.md gives the equations, the
 * printed pseudo-code and our corrections. Read algorithms/hybrid.c next. Pure C: libc, libm.
 */
#ifndef TEMPO_ALGORITHMS_HYBRID_H
#define TEMPO_ALGORITHMS_HYBRID_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/port.h"

/* The norm of the WR convergence test (the change of the continuous coupled outputs between
 * two iterates). */
typedef enum hybrid_norm {
    HYBRID_NORM_MAX = 0, /* max |d| */
    HYBRID_NORM_2,       /* sqrt(sum d^2) */
} hybrid_norm;

/* Settings, ticks and output units; hybrid_opts_default fills the defaults
 * (doc/algorithms/hybrid.md "Settings"). */
typedef struct hybrid_opts {
    int64_t step;       /* H_0: the first communication step, ticks, > 0 */
    int64_t h_min;      /* H_min, ticks, >= 1: the step after an event, the controller's floor */
    int64_t h_max;      /* H_max, ticks, >= h_min: the controller's ceiling */
    int64_t delta;      /* delta: the fixed step across an event, ticks, >= 1 */
    int bisect;         /* 1: locate the event inside its delta step by bisection */
    int64_t bisect_tol; /* ticks, >= 1: bisection stops when the bracket is this short */
    double tol;         /* WR: converged when ||change|| <= tol, > 0 */
    int max_iter;       /* WR iterations per step, >= 1 */
    hybrid_norm norm;   /* WR convergence norm (default max) */
    double tol_d;       /* divergence tolerance of eq. 5.22; 0: fixed step H_0 (no control) */
    double tau0;        /* weight of the max-norm term, >= 0 */
    double grow;        /* H <- H * grow when e_d + tau0 ||.||_max < tol_d, >= 1 */
    double shrink;      /* H <- H * shrink when it is > tol_d, in (0, 1] */
} hybrid_opts;

/** Defaults for a first step of `step` ticks: h_min = step / 100, h_max = step * 10,
 *  delta = h_min, no bisection (bisect_tol = delta / 64), tol 1e-8, max_iter 50, max-norm,
 *  tol_d 0 (fixed step), tau0 0.1, grow 1.1, shrink 0.5. */
void hybrid_opts_default(hybrid_opts *o, int64_t step);

/**
 * The communication step-size controller of §5.5.2 (pure): with e = e2 + tau0 * emax,
 * H grows by `grow` when e < tol_d, shrinks by `shrink` when e > tol_d, stays on equality,
 * and is clamped to [h_min, h_max]. A growth of less than one tick still adds one tick.
 * With tol_d = 0 the step stays h, clamped.
 * @param e2   ||y_f - y_i||_2 of the accepted step (eq. 5.22); @param emax its max-norm
 * @return the next step, ticks.
 */
int64_t hybrid_control(const hybrid_opts *o, int64_t h, double e2, double emax);

/**
 * Where the rewound step goes before its delta steps (pure): the last point of the delta grid
 * from t_from that lies strictly before the event time t_ev (ticks; the event is in
 * (t_from, t_ev]); t_from itself when t_ev - t_from <= delta.
 */
int64_t hybrid_before_event(const hybrid_opts *o, int64_t t_from, int64_t t_ev);

/* One event: where a slave located it and where the algorithm took it into account. */
typedef struct hybrid_event {
    int64_t t_reported; /* ticks: the earliest event time the slaves reported in the attempt
                           that first saw it (the step stops there, to the next whole tick) */
    int64_t t_from;     /* ticks: start of the step that contains it (delta or bisected) */
    int64_t t_commit;   /* ticks: end of that step: the discrete outputs are shared here */
    long slave;         /* the first slave that reported it */
} hybrid_event;

/* One committed communication step. */
typedef struct hybrid_step {
    int64_t t_from, t_to; /* ticks */
    int iters;            /* WR iterations of the accepted attempt */
    int kind;             /* 0 normal, 1 up to the delta grid before an event, 2 an event-free
                             delta step, 3 a bisection step, 4 the step containing the event */
    double e_d;           /* e2 + tau0 emax of the step (normal steps), else 0 */
    int64_t h_next;       /* the controller's next H after this step, ticks */
} hybrid_step;

/* What a run did. hybrid_run fills it (growing the arrays); hybrid_result_fini frees them. */
typedef struct hybrid_result {
    int64_t t_reached;    /* ticks: the time every slave has committed */
    size_t n_steps;       /* committed steps (all kinds) */
    size_t n_normal;      /* of which normal steps */
    size_t n_attempts;    /* attempts, aborted ones included */
    size_t n_aborted;     /* attempts abandoned at an event (Abort Iteration) */
    size_t iter_total;    /* WR iterations over all attempts */
    int iter_max;         /* most iterations of one attempt */
    size_t n_instants;    /* logical instants opened after the start */
    hybrid_step *steps;   /* n_steps entries */
    size_t cap_steps;     /* capacity */
    hybrid_event *events; /* n_events entries */
    size_t n_events, cap_events;
    int failed_slave; /* the slave at fault, -1 when none */
} hybrid_result;

/** Free the arrays of a result and zero it. Accepts NULL. */
void hybrid_result_fini(hybrid_result *r);

/**
 * Run the hybrid algorithm from m->t_start to m->t_end. The slaves must be at m->t_start and
 * able to save (info.can_save). A slave that locates events stops its step at the first one
 * (port_step_result.event, PORT_EVENT from sync; fmu_slave_set_event_stop); a discrete output
 * whose value changes over a step is an event too, at the time get_discrete gives it (asked
 * after every step of a slave with info.n_discrete > 0 and get_discrete), else at the step's
 * end. When a discrete output feeds an input and every slave has share_discrete, those values
 * go slave to slave (share_discrete at the start and at every commit of a step with an event)
 * and the master hands NaN for them in set_inputs; otherwise it hands the held value over.
 *
 * Logical time: the exchanges of the step from T_n happen at the instant T_n + 1 tick
 * (port_open / port_close), whatever the step's end turns out to be, so an event that
 * shortens the step never moves logical time back (the thesis's erratum E5,
 * doc/algorithms/hybrid.md). m->ops->note (if not NULL) receives "hybrid.h" (the step, s,
 * after each commit), "hybrid.iter", "hybrid.event" (the reported time, s) and
 * "hybrid.event_commit" (s).
 * @param m        master and slaves, not NULL
 * @param links    n_links links (port_link), in any order: every input fed by exactly one
 *                 output of another slave; may be NULL without inputs
 * @param discrete NULL (every output continuous), or one flag per output, slave by slave:
 *                 1 for a discrete-valued output (held over a step, shared at commits, left
 *                 out of the norms)
 * @param o        settings, not NULL
 * @param res      out (zeroed first; hybrid_result_fini), not NULL
 * @param err      caller-owned buffer for the failure's report; errlen its size
 * @return PORT_OK; PORT_EUSAGE (bad settings or links); PORT_ENOCONV (no WR convergence, or
 *         an event that cannot be passed); a slave's error (res->failed_slave); PORT_ENOMEM.
 */
int hybrid_run(const port_master *m, const port_link *links, size_t n_links,
               const unsigned char *discrete, const hybrid_opts *o, hybrid_result *res, char *err,
               size_t errlen);

#endif /* TEMPO_ALGORITHMS_HYBRID_H */
