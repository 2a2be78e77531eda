/* Private steps shared by the peer algorithms (jacobi.c, jacobi_de.c, gauss_seidel.c): the
 * inputs' bookkeeping and histories, integrating the model with held or extrapolated inputs,
 * publishing, recording, the initial exchange. Implemented in algorithms/peer.c; the contract
 * of the peer side is algorithms/exchange.h. Not installed.
 */
#ifndef TEMPO_ALGORITHMS_PEER_IMPL_H
#define TEMPO_ALGORITHMS_PEER_IMPL_H

#include "algorithms/exchange.h"
#include "algorithms/extrap.h"

/* The state of one run. Invariant: T is the model's time (ticks) between steps. */
typedef struct peer_run {
    peer *p;
    size_t n_in, n_out;
    peer_input *in;    /* n_in: newest values the exchange holds (stamps included) */
    int *pending;      /* n_in: received, not yet applied to the model */
    double *u;         /* n_in: the values applied to the model (u0 before any arrived) */
    extrap_hist *hist; /* n_in: applied samples (time = the instant the value belongs to) */
    double *c;         /* n_in * (EXTRAP_MAX_ORDER + 1): the polynomial handed to the model */
    double *y;         /* n_out: outputs read from the model */
    int64_t T;         /* the model's time, ticks */
} peer_run;

/** Allocate the run's arrays, u = p->u0. @return PORT_OK or PORT_ENOMEM (message set). */
int peer_run_init(peer_run *r, peer *p);
/** Free the arrays. Accepts a zeroed run. */
void peer_run_fini(peer_run *r);

/** Format "federate NAME: message" into p->err. @return code. */
int peer_fail(const peer_run *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** One time request; then the inputs received are merged (pending). *g may be NULL. */
int peer_request(peer_run *r, peer_req kind, int64_t t, int64_t *g);
/** The same, failing unless the grant is exactly t (TAR, TARA, NER after NERA). */
int peer_request_exact(peer_run *r, peer_req kind, int64_t t);

/** Integrate the model from T to t_next with the inputs held, or extrapolated with
 *  p->extrapolation from the applied samples (T may lie before the newest sample: then the
 *  polynomial interpolates). No-op when t_next <= T. Sets T = t_next. */
int peer_integrate(peer_run *r, int64_t t_next);

/** Read the model's outputs and publish them stamped ts. */
int peer_publish(peer_run *r, int64_t ts);

/** Apply every pending input to the model and append it to its history at (stamp - shift):
 *  shift is the lookahead for naive Jacobi (the value belongs to the sender's time), else 0. */
int peer_apply_inputs(peer_run *r, int64_t shift);

/** Ask the model to record its row at its time. */
int peer_record(peer_run *r);

/** Before the algorithm: open t_start when the exchange holds an earlier time (TARA), so the
 *  first exchange may be stamped there. */
int peer_open_start(peer_run *r);

/** Initial exchange at lookahead 0: publish y(T0) stamped T0, TAR(T0), apply the inputs,
 *  record the first row. Used by jacobi (improved), jacobi-de and gauss-seidel. */
int peer_exchange_start(peer_run *r);

/** Post-and-collect helper for one model operation: rc is what posting returned. */
int peer_model_done(peer_run *r, int rc);

#endif
