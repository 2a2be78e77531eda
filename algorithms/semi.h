/* Semi-implicit coupling with a quasi-Newton solver (the Awais thesis §5.3, Algorithm 3, with
 * its errata corrected) as a function over the port (algorithms/port.h): every slave advances
 * its model over the macro step with the inputs of T_n held, then only its last internal step
 * is redone ("Recalculate", from a saved state) until the outputs at T_n+1, fed back as
 * inputs, reproduce themselves: the coupling equations u = y(u) are solved at every
 * communication point by plain fixed point, good Broyden or Newton with a finite-difference
 * Jacobian, or Jacobian-free Newton-Krylov (SUNDIALS KINSOL). doc/algorithms/semi-implicit.md
 * gives the equations, the printed pseudo-code and our choices. Read algorithms/semi.c next.
 * C with libc, libm and SUNDIALS KINSOL (the one algorithm allowed SUNDIALS; doc/architecture.md).
 */
#ifndef TEMPO_ALGORITHMS_SEMI_H
#define TEMPO_ALGORITHMS_SEMI_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/port.h"
#include "algorithms/wr.h"

#define SEMI_HIST_MAX 64   /* iteration histogram bins: 0..SEMI_HIST_MAX-2, then "more" */
#define SEMI_MAX_SUB  1024 /* internal steps per macro step the master may ask for */

/* How the coupling equations R(y) = F(y) - y = 0 are solved at each communication point. */
typedef enum semi_iter {
    SEMI_FIXED_POINT = 0, /* y <- F(y) */
    SEMI_BROYDEN,         /* good Broyden: y <- y - B^-1 R, B updated by rank one */
    SEMI_NEWTON,          /* Newton: the Jacobian of R by finite differences at every iterate */
    SEMI_NEWTON_KRYLOV,   /* Jacobian-free Newton-Krylov: SUNDIALS KINSOL with GMRES, J v by
                             difference quotients of R (one round each) */
} semi_iter;

/* The first Broyden matrix of each macro step. */
typedef enum semi_jac0 {
    SEMI_JAC0_IDENTITY = 0, /* B0 = -I: the first update is a fixed-point step */
    SEMI_JAC0_FD,           /* B0 = dR/dy by finite differences (one round per fed-back output) */
    SEMI_JAC0_DIRECTIONAL,  /* eq. 5.12: dR/dy = D A - I, D the slaves' dy/du from their
                               directional derivatives (get_directional, one round); with
                               SEMI_NEWTON at every update, with SEMI_BROYDEN as B0 */
} semi_jac0;

/* Settings; semi_opts_default fills the defaults. */
typedef struct semi_opts {
    int64_t step;   /* macro step H, ticks, > 0 (the last one is shortened to end at t_end) */
    double tol;     /* max-norm of the residual R = F(y) - y accepted, output units, > 0 */
    int max_iter;   /* updates of y per step, >= 1 */
    semi_iter iter; /* SEMI_FIXED_POINT (default), SEMI_BROYDEN, SEMI_NEWTON,
                       SEMI_NEWTON_KRYLOV */
    semi_jac0 jac0; /* Broyden: B0, SEMI_JAC0_IDENTITY (default), SEMI_JAC0_FD or
                       SEMI_JAC0_DIRECTIONAL; Newton: SEMI_JAC0_DIRECTIONAL for eq. 5.12's
                       Jacobian from directional derivatives, else finite differences */
    int n_sub;      /* internal steps per macro step, 1..SEMI_MAX_SUB (default 1): the last
                       H / n_sub is the one redone */
    double fd_rel;  /* finite-difference perturbation: fd_rel * max(1, |y_i|) (default 1e-7) */
} semi_opts;

/** Defaults: tol 1e-8, max_iter 50, fixed point, B0 = -I, n_sub 1, fd_rel 1e-7. */
void semi_opts_default(semi_opts *o, int64_t step);

/** The name of an iteration ("fixed-point", "broyden", "newton", "newton-krylov"); never NULL. */
const char *semi_iter_name(semi_iter it);

/* One accepted macro step. */
typedef struct semi_step_rec {
    int64_t t_to;   /* ticks: the communication point T_n+1 */
    int iters;      /* updates of y until ||R|| <= tol (0: the predictor already was) */
    int evals;      /* recalculation rounds, finite-difference probes included */
    size_t res_off; /* its residuals are residuals[res_off .. res_off + iters] */
} semi_step_rec;

/* What a run did. semi_run fills it (growing the arrays); semi_result_fini frees them. */
typedef struct semi_result {
    int64_t t_reached;          /* ticks: the time every slave has committed */
    size_t n_accepted;          /* accepted macro steps (n_s) */
    size_t iter_total;          /* updates of y over all steps */
    size_t eval_total;          /* recalculation rounds over all steps (residuals and probes) */
    int iter_max;               /* most updates of one step */
    size_t hist[SEMI_HIST_MAX]; /* steps by update count; hist[SEMI_HIST_MAX-1]: more */
    semi_step_rec *steps;       /* n_steps accepted steps, in order */
    size_t n_steps, cap_steps;
    double *residuals; /* ||R|| of every residual evaluation (not the probes), in order */
    size_t n_residuals, cap_residuals;
    /* Messages, one per command to one slave and one per reply (TARA/TAR not counted). */
    size_t msg_commands;
    size_t msg_replies;
    int failed_slave; /* index of the slave at fault, -1 when none */
} semi_result;

/** Free the arrays of a result and zero it. Accepts NULL. */
void semi_result_fini(semi_result *r);

/**
 * Run the semi-implicit coupling from m->t_start to m->t_end. The slaves must be at
 * m->t_start and able to save (info.can_save; slot 0 is used). Each macro step is one instant
 * (port_open(T_n+1) ... port_close(T_n+1)). m->ops->note (if not NULL) receives "semi.iter"
 * (update number), "semi.residual" (||R|| of each evaluation) and "semi.accept" (updates of
 * the step) as they happen.
 * @param m      the master and its slaves, not NULL
 * @param links  n_links links (algorithms/port.h, port_link), in any order: every input of every
 *               slave fed by exactly one output of another slave; may be NULL without inputs
 * @param o      settings, not NULL (semi_opts_default)
 * @param res    out: what happened (zeroed first; free with semi_result_fini), not NULL
 * @param err    caller-owned buffer: on failure the step, the slave or output at fault and the
 *               last residuals; errlen its size (512 is enough for the first line)
 * @return PORT_OK; PORT_EUSAGE (bad settings or links: err says which); PORT_ENOCONV (no
 *         convergence within max_iter, a residual that is not finite, or a singular
 *         Jacobian: err says which); a slave's error (PORT_EFAIL, PORT_ELOST,
 *         PORT_EUNSUPPORTED ...: res->failed_slave); PORT_ENOMEM.
 */
int semi_run(const port_master *m, const port_link *links, size_t n_links, const semi_opts *o,
             semi_result *res, char *err, size_t errlen);

#endif /* TEMPO_ALGORITHMS_SEMI_H */
