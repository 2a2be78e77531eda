/* Private steps shared by the peer algorithms (jacobi.c, jacobi_de.c, gauss_seidel.c): the
 * inputs' bookkeeping and histories, integrating the model with held or extrapolated inputs,
 * publishing, recording, the initial exchange. Implemented in algorithms/peer.c; the contract
 * of the peer side is algorithms/exchange.h. Not installed.
 */
#ifndef TEMPO_ALGORITHMS_PEER_IMPL_H
#define TEMPO_ALGORITHMS_PEER_IMPL_H

#include "algorithms/exchange.h"
#include "algorithms/extrap.h"
#include "algorithms/pstate.h"

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
    /* Checkpoints (doc/checkpoint.md, "A peer's part"). Every time request of an algorithm is a
     * site, numbered in program order within the algorithm (PEER_SITE_* before the loop, the
     * algorithm's own from PEER_SITE_ALGO up); a resumed run re-enters at the saved site, and
     * the code before a site runs only when from < site (from = peer_run.resume_site). */
    const char *algo;   /* the algorithm's name, written into the state and checked on resume */
    int site;           /* the site of the request the run waits in (0: none) */
    peer_req site_kind; /* that request's kind and time */
    int64_t site_t;
    int resume_site;  /* resuming: the site to re-enter; 0 once it is re-entered (or never) */
    int64_t replay_g; /* resuming: the grant the saved request received, ticks */
    /* The algorithm's own state (decisions, output histories): written after the common part
     * and read back before the run re-enters; may be NULL when it has none. */
    void (*save_extra)(const struct peer_run *r, pstate_buf *b);
    int (*load_extra)(struct peer_run *r, pstate_rd *d);
    void *extra;
} peer_run;

/* The sites of the shared start (peer_open_start, peer_exchange_start). */
enum { PEER_SITE_OPEN_START = 1, PEER_SITE_START_CLOSE = 2, PEER_SITE_ALGO = 10 };

/** Allocate the run's arrays, u = p->u0. @return PORT_OK or PORT_ENOMEM (message set). */
int peer_run_init(peer_run *r, peer *p);

/**
 * Name the algorithm and its own state, make the run what peer_save writes (p->live) and, when
 * p->resume is set, restore the saved state (refusing another algorithm's, another wiring's,
 * damaged bytes or a site above max_site, with the reason in p->err). Afterwards
 * r->resume_site is the site to re-enter (0: a fresh run).
 * @return PORT_OK, PORT_EUSAGE (refused state).
 */
int peer_run_start(peer_run *r, const char *algo, void *extra,
                   void (*save_extra)(const peer_run *, pstate_buf *),
                   int (*load_extra)(peer_run *, pstate_rd *), int max_site);
/** Free the arrays. Accepts a zeroed run. */
void peer_run_fini(peer_run *r);

/** Format "federate NAME: message" into p->err. @return code. */
int peer_fail(const peer_run *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** One time request at checkpoint site `site`; then the inputs received are merged
 *  (pending). Re-entering a resumed run at this site, the request is not issued: the saved
 *  grant is returned (after checking the kind and time are the saved ones). *g may be NULL. */
int peer_request(peer_run *r, int site, peer_req kind, int64_t t, int64_t *g);
/** The same, failing unless the grant is exactly t (TAR, TARA, NER after NERA). */
int peer_request_exact(peer_run *r, int site, peer_req kind, int64_t t);

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
 *  first exchange may be stamped there (site PEER_SITE_OPEN_START). Nothing when resuming
 *  past it. */
int peer_open_start(peer_run *r);

/** Initial exchange at lookahead 0: publish y(T0) stamped T0, TAR(T0) (site
 *  PEER_SITE_START_CLOSE), apply the inputs, record the first row. Used by jacobi (improved),
 *  jacobi-de and gauss-seidel. Nothing when resuming past it. */
int peer_exchange_start(peer_run *r);

/** Post-and-collect helper for one model operation: rc is what posting returned. */
int peer_model_done(peer_run *r, int rc);

#endif
