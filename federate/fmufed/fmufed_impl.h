/* Private state of the FMU federate shared by federate/fmufed/fmufed.c (set-up, wiring, recording)
 * and the algorithm files fmufed_jacobi.c, fmufed_de.c, fmufed_gs.c. Not installed, not public.
 * Serves doc/algorithms/README.md; read federate/fmufed/fmufed.h for the contract, then fmufed.c.
 */
#ifndef TEMPO_FEDERATE_FMUFED_IMPL_H
#define TEMPO_FEDERATE_FMUFED_IMPL_H

#include <stddef.h>

#include "algorithms/extrap.h"
#include "federate/config/fedfile.h"
#include "federate/fmu/fmu_step.h"
#include "federate/fmufed/fmufed.h"
#include "federate/run/results.h"
#include "federate/libtempo/tempo.h"

/* One input wire: FOM attribute -> FMU input. */
typedef struct fmufed_in {
    const fedfile_wire *w;
    fmi2ValueReference vr;
    tp_handle cls, attr;
    double next;      /* newest value received (not yet in the FMU when fresh) */
    tp_time next_t;   /* its time stamp; TP_NO_TIME before the first */
    int fresh;        /* received since the last fmufed_apply_inputs */
    extrap_hist hist; /* applied samples (time = the instant the value belongs to) */
} fmufed_in;

/* One output wire: FMU output -> FOM attribute of the object registered for its class. */
typedef struct fmufed_out {
    const fedfile_wire *w;
    fmi2ValueReference vr;
    tp_handle cls, attr;
    tp_object obj;
    double q;            /* jacobi-de quantum (0 otherwise) */
    int n_hist;          /* own samples kept for eq. 4.5: 0, 1 or 2 */
    tp_time t_prev, t_last;
    double v_prev, v_last;
} fmufed_out;

/* The whole federate. Invariant: T is the last granted logical time (ticks) and the FMU's
 * time equals T * resolution (up to rounding) between steps. */
typedef struct fmufed_ctx {
    const fedfile *ff;
    const fedfile_fed *fd;
    long idx;          /* index of fd in ff->feds */
    fmu_step *fmu;
    tp_federate *tp;
    fmufed_in *in;
    size_t n_in;
    fmufed_out *out;
    size_t n_out;
    tp_handle step_ic;     /* StepForward interaction (gauss-seidel), 0 otherwise */
    tp_time step_fwd_t;    /* newest StepForward time stamp received, TP_NO_TIME */
    tp_time T;             /* logical time, ticks */
    tp_time lookahead;     /* ticks */
    double res;            /* seconds per tick */
    res_writer *csv;
    double *rec;           /* n_rec values of the row being written */
    size_t n_rec;
    const char *const *rec_names;
    int timeout_ms;        /* joins, enabling, start sync; < 0: none */
    int run_timeout_ms;    /* grants, polling, end sync; < 0: none (the default) */
    int running;           /* 1 between the start and end syncs: a peer leaving is a failure */
    int peer_failed;       /* a peer resigned, or the RTI refused something */
    char peer_msg[512];
    size_t joined;         /* federates of the file seen joined (this one excluded) */
    char *seen;            /* ff->n_feds flags: seen joined */
    fmufed_stats *st;      /* never NULL: the caller's, or a local one (fmufed_run) */
    void (*progress)(void *ctx, double t); /* fmufed_opts.progress */
    void *progress_ctx;
    tp_time progress_next; /* report again when a recorded time reaches this */
    char *err;
    size_t errlen;
} fmufed_ctx;

/**
 * Format "federate NAME: message" into ctx->err.
 * @param c    context, not NULL
 * @param code the status to return
 * @param fmt  printf format of the message
 * @return code.
 */
int fmufed_fail(fmufed_ctx *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/**
 * Issue one time request and evoke callbacks until it is granted.
 * @param c    context
 * @param kind TP_REQ_TAR, TP_REQ_TARA, TP_REQ_NER, TP_REQ_NERA or TP_REQ_FQR
 * @param t    requested time, ticks
 * @param got  out: granted time (also stored in c->T), may be NULL
 * @return FMUFED_OK, or FMUFED_ERTI (refusal, timeout, lost connection, peer lost; c->err set).
 */
int fmufed_request(fmufed_ctx *c, tp_request_kind kind, tp_time t, tp_time *got);

/**
 * Integrate the FMU from c->T to t_next with the inputs held, or extrapolated with
 * algorithm.extrapolation from the applied samples. No-op when t_next <= c->T.
 * @return FMUFED_OK or FMUFED_EFMU (the FMU's message; a discard is an error here: the
 *         standalone algorithms have no rollback).
 */
int fmufed_integrate(fmufed_ctx *c, tp_time t_next);

/**
 * Read every output and send one TSO update per registered object stamped ts.
 * @return FMUFED_OK, FMUFED_EFMU (read failed), FMUFED_ERTI (tp_update refused).
 */
int fmufed_publish(fmufed_ctx *c, tp_time ts);

/**
 * Set every fresh received value as the FMU's input and append it to the input's history at
 * time (its time stamp - shift): shift is the lookahead for jacobi-naive (the value belongs to
 * the sender's time), 0 otherwise.
 * @return FMUFED_OK or FMUFED_EFMU.
 */
int fmufed_apply_inputs(fmufed_ctx *c, tp_time shift);

/**
 * Write one CSV row at logical time t: the recorded variables as the FMU holds them now.
 * @return FMUFED_OK, FMUFED_EFMU (a read failed), FMUFED_EIO.
 */
int fmufed_record(fmufed_ctx *c, tp_time t);

/**
 * Open c->fd's FMU with the file's parameters and solver settings into c->fmu and check it
 * against the file (fedfile_check_fmu). Needs c->ff, c->fd, c->idx.
 * @return FMUFED_OK, FMUFED_EFMU, FMUFED_ENOMEM (c->err set).
 */
int fmufed_open_fmu(fmufed_ctx *c);

/**
 * Open the results CSV "<output>/<name>.csv" (o->output, else the file's) with the recorded
 * variables as columns. Needs c->st.
 * @return FMUFED_OK, FMUFED_EIO, FMUFED_ENOMEM.
 */
int fmufed_open_csv(fmufed_ctx *c, const fmufed_opts *o);

/** Ticks to seconds, exact for whole seconds at a resolution of 1/k s (see fmufed.c). */
double fmufed_seconds(const fmufed_ctx *c, tp_time t);

/** Check for a peer lost or an asynchronous refusal. @return FMUFED_OK or FMUFED_ERTI. */
int fmufed_check_peers(fmufed_ctx *c);

/**
 * Initial exchange at lookahead 0 (fmufed_jacobi.c): publish y(T0) stamped T0, TAR(T0), apply
 * the inputs received, record the first row. Used by jacobi, jacobi-de and gauss-seidel.
 * @return FMUFED_OK or the failure's code.
 */
int fmufed_exchange_start(fmufed_ctx *c);

/* The algorithms (one file each). Each starts after the start sync with c->T = t_start and
 * returns when the end time is reached. @return FMUFED_OK or the failure's code (c->err). */
int fmufed_jacobi_run(fmufed_ctx *c, int naive);
int fmufed_de_run(fmufed_ctx *c);
int fmufed_gs_run(fmufed_ctx *c);

#endif
