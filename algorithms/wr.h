/* Waveform relaxation with rollback (the Awais thesis §5.2, Algorithm 2, with its errata
 * corrected) as a function over the port (algorithms/port.h): every slave integrates its model
 * over the macro step with the other slaves' waveforms as polynomial inputs, and the step is
 * repeated from the saved state at T_n until the waveforms stop changing.
 * doc/algorithms/waveform-relaxation.md gives the equations, the printed pseudo-code and our
 * choices. Read algorithms/wr.c next. Pure C: libc and libm only (doc/contributing.md §1).
 */
#ifndef TEMPO_ALGORITHMS_WR_H
#define TEMPO_ALGORITHMS_WR_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/port.h"

#define WR_MAX_SUB  PORT_MAX_ORDER /* sub-points per step: the fitted polynomial's degree */
#define WR_HIST_MAX 64             /* iteration histogram bins: 1..WR_HIST_MAX-1, then "more" */

/* The norm of the change between two successive iterates (doc/algorithms/waveform-relaxation.md,
 * "Convergence test"). d is the change of every output of every slave at the n_sub sub-points. */
typedef enum wr_norm {
    WR_NORM_MAX = 0, /* max |d| */
    WR_NORM_2,       /* sqrt(sum d^2) */
} wr_norm;

/* What to do when a step has not converged after max_iter iterations. */
typedef enum wr_on_fail {
    WR_FAIL = 0, /* stop: PORT_ENOCONV with a report naming the step, residuals, worst output */
    WR_HALVE,    /* roll back and retry with half the step (down to h_min), then fail */
} wr_on_fail;

/* Settings; wr_opts_default fills the defaults. */
typedef struct wr_opts {
    int64_t step;       /* macro step H, ticks, > 0 (the last one is shortened to end at t_end) */
    double tol;         /* convergence threshold of the norm, > 0 (unit of the outputs, or 1) */
    int max_iter;       /* iterations per step, >= 1 */
    wr_norm norm;       /* WR_NORM_MAX (default) or WR_NORM_2 */
    int relative;       /* 0: ||d|| <= tol; 1: ||d|| <= tol * ||y||, y the newer iterate */
    int n_sub;          /* sub-points per step, 1..WR_MAX_SUB (default 4) */
    wr_on_fail on_fail; /* default WR_FAIL */
    int64_t h_min;      /* WR_HALVE: smallest step, ticks, >= 1; default step / 1024 */
} wr_opts;

/** Defaults: tol 1e-6, max_iter 50, max-norm absolute, n_sub 4, fail, h_min = step / 1024. */
void wr_opts_default(wr_opts *o, int64_t step);

/* The decision taken after one iteration, computed before it is acted on (contributing §14). */
typedef enum wr_verdict {
    WR_ACCEPT = 0, /* converged: keep the slaves at T_n + h, commit */
    WR_ITERATE,    /* roll back to T_n and integrate again with the new waveforms */
    WR_RETRY_HALF, /* no convergence within max_iter: roll back, retry with h_next = h / 2 */
    WR_GIVE_UP,    /* no convergence and no halving left: stop with PORT_ENOCONV */
} wr_verdict;

typedef struct wr_decision {
    wr_verdict verdict;
    int64_t h_next;     /* ticks: the step of the next attempt (h, or h / 2) */
    const char *reason; /* static text */
} wr_decision;

/**
 * The step decision after iteration `iter` (1-based) of a step of h ticks whose residual is
 * `residual` (NaN counts as not converged). Pure.
 * @return the decision; reason is a static string.
 */
wr_decision wr_decide(const wr_opts *o, int iter, double residual, int64_t h);

/* One attempted step: from t_from to t_to, its iterations and last residual. */
typedef struct wr_step_rec {
    int64_t t_from, t_to; /* ticks */
    int iters;            /* iterations done */
    int accepted;         /* 1 accepted, 0 abandoned (halved, or the failing one) */
    size_t res_off;       /* its residuals are residuals[res_off .. res_off + iters - 1] */
    const char *reason;   /* the final decision's reason (static text, wr_decide) */
} wr_step_rec;

/* What a run did. wr_run fills it (growing the arrays); wr_result_fini frees the arrays. */
typedef struct wr_result {
    int64_t t_reached;        /* ticks: the time every slave has committed */
    size_t n_instants;        /* instants opened after the start (one per nominal step) */
    size_t n_accepted;        /* accepted steps (n_s): more than the instants when halving */
    size_t n_abandoned;       /* attempts abandoned by halving */
    size_t iter_total;        /* iterations over all attempts (sum of n_i) */
    int iter_max;             /* most iterations of one accepted step */
    size_t hist[WR_HIST_MAX]; /* accepted steps by iteration count; hist[WR_HIST_MAX-1]: more */
    wr_step_rec *steps;       /* n_steps attempts, in order */
    size_t n_steps, cap_steps;
    double *residuals; /* every iteration's residual, in order */
    size_t n_residuals, cap_residuals;
    /* Messages, one per command to one slave and one per reply (TARA/TAR not counted):
     * doc/algorithms/waveform-relaxation.md "Message count". */
    size_t msg_init;     /* at t_start: get_outputs + reply, save, record: 4 n_c */
    size_t msg_commands; /* after t_start */
    size_t msg_replies;  /* after t_start */
    size_t msg_thesis;   /* the same run counted as eq. 5.5 counts (a step is Advance Time +
                            Send States): equals 4 n_s n_c + 5 n_c sum n_i */
    int failed_slave;    /* index of the slave at fault, -1 when none */
} wr_result;

/** Free the arrays of a result and zero it. Accepts NULL. */
void wr_result_fini(wr_result *r);

/**
 * Run waveform relaxation from m->t_start to m->t_end. The slaves must be at m->t_start,
 * able to save (info.can_save), and m->ops->note (if not NULL) receives "wr.iter" (iteration
 * number), "wr.residual", "wr.accept" (step, s), "wr.halve" (new step, s) as they happen.
 * Each macro step is one instant: port_open(T_n + H) ... port_close(T_n + H); a halved step
 * stays inside the instant of its nominal step (the instant never goes back).
 * @param m      the master and its slaves, not NULL
 * @param links  n_links links (algorithms/port.h, port_link), in any order: every input of every
 *               slave fed by exactly one output of another slave; may be NULL without inputs
 * @param o      settings, not NULL (wr_opts_default)
 * @param res    out: what happened (zeroed first; free with wr_result_fini), not NULL
 * @param err    caller-owned buffer: on failure, the step, the slave or output at fault and
 *               the residual history; errlen its size (512 is enough for the first line)
 * @return PORT_OK; PORT_EUSAGE (bad settings or links: err says which); PORT_ENOCONV; a
 *         slave's error (PORT_EFAIL, PORT_ELOST, PORT_EUNSUPPORTED ...: res->failed_slave);
 *         PORT_ENOMEM.
 */
int wr_run(const port_master *m, const port_link *links, size_t n_links, const wr_opts *o,
           wr_result *res, char *err, size_t errlen);

/**
 * The interpolating polynomial through n_sub + 1 equally spaced samples v[0..n_sub] over a step
 * of h seconds, as Taylor coefficients about the step start: c[k] = p^(k)(0), k = 0..n_sub
 * (the form of port_poly). Exact for polynomials of degree <= n_sub.
 * @return 0, or -1 when n_sub is outside 1..WR_MAX_SUB or h <= 0.
 */
int wr_fit(int n_sub, double h, const double *v, double *c);

#endif /* TEMPO_ALGORITHMS_WR_H */
