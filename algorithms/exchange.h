/* The peer side of the port: how a peer coupling algorithm (Jacobi, discrete-event Jacobi,
 * Gauss-Seidel; doc/algorithms/) meets the federation it runs in. A peer owns one model (a
 * port_slave of algorithms/port.h, stepped in its own process or thread) and talks to the other
 * peers only through a peer_exchange: publish outputs stamped with a logical time, ask for the
 * next instant with a typed request, read the inputs received with their stamps, pass the
 * Gauss-Seidel token. doc/algorithms/port.md describes both sides; read algorithms/peer.c next
 * (the shared steps), then jacobi.c, jacobi_de.c, gauss_seidel.c. Pure C: libc only
 * (doc/contributing.md §1, §14).
 *
 * Who implements it: federate/fmufed/fmufed_tp.c over libtempo (one peer per process, the RTI
 * decides the grants) and federate/inproc/ (every peer of a federation in one process, the same
 * time-management engine deciding the grants in memory). The algorithms cannot tell them apart.
 *
 * Errors. Every operation returns a port_status. An operation that fails writes its message,
 * "federate NAME: what", into the peer's error buffer (peer.err) before it returns, so the
 * algorithm passes the status up unchanged; the algorithms write the buffer only for what they
 * detect themselves (a grant that is not the time asked, a token passed twice).
 */
#ifndef TEMPO_ALGORITHMS_EXCHANGE_H
#define TEMPO_ALGORITHMS_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/port.h"
#include "algorithms/pstate.h"

/** "No time stamp yet": an input never received, a token never passed. */
#define PEER_NO_TIME INT64_MIN

/* The time requests of doc/time.md, typed by what the algorithm means. The values equal
 * tm_req (rti/tm/tm.h) and tp_request_kind (tempo.h); the implementations tie them with
 * _Static_assert. */
typedef enum peer_req {
    PEER_CLOSE = 1,       /* TAR(t): go to t and close it: every message stamped <= t is in */
    PEER_OPEN = 2,        /* TARA(t): open the instant t: messages stamped < t are in, and
                             messages stamped t may still be sent (lookahead 0) */
    PEER_EVENT_CLOSE = 3, /* NER(t): the next event up to t, closed */
    PEER_EVENT_OPEN = 4,  /* NERA(t): the next event up to t, open; granted t or the stamp of an
                             earlier message */
    PEER_FLUSH = 5,       /* FQR(t): deliver what is queued up to min(t, GALT) now, never wait */
} peer_req;

/** Name of a request kind ("TAR", "TARA", "NER", "NERA", "FQR"); "?" otherwise. */
const char *peer_req_name(peer_req k);

/* One input as the exchange holds it: the newest value received and its stamp. */
typedef struct peer_input {
    double v;  /* newest value received (input unit) */
    int64_t t; /* its time stamp, ticks; PEER_NO_TIME before the first */
    int fresh; /* received since the previous peer_exchange_ops.inputs call */
} peer_input;

typedef struct peer_exchange_ops {
    /* Send the n_out outputs y (wiring order), stamped ts (ticks). The receivers see them at
     * their grants per doc/time.md. Never blocks on the receivers. */
    int (*publish)(void *ctx, int64_t ts, const double *y);
    /* Issue one time request and wait for its grant (FQR never waits); *granted receives the
     * granted time (may be NULL). Receptions that come with the grant are held as inputs. */
    int (*request)(void *ctx, peer_req kind, int64_t t, int64_t *granted);
    /* Copy the n_in inputs (wiring order) into in[] and clear their fresh flags. */
    int (*inputs)(void *ctx, peer_input *in);
    /* Gauss-Seidel: send the StepForward token stamped ts (the sink only). */
    int (*token_send)(void *ctx, int64_t ts);
    /* Gauss-Seidel: the newest token stamp received, PEER_NO_TIME before the first. */
    int64_t (*token_time)(void *ctx);
    /* Nothing new arrived after a FLUSH: wait for the other peers to progress (a pause, or a
     * wake-up when something is sent), counting toward the run's time limit. attempt is 0,
     * 1, ... since the last progress; waiting_for words what is awaited, for the timeout
     * message ("StepForward", "updates of every input"), with t the step's time.
     * Returns PORT_OK, or PORT_ELOST (time limit, a peer lost). */
    int (*idle)(void *ctx, int attempt, int64_t t, const char *waiting_for);
} peer_exchange_ops;

typedef struct peer_exchange {
    const peer_exchange_ops *ops;
    void *ctx;
} peer_exchange;

/* The calls of the exchange's operations (algorithms/exchange_ops.c), the one way an algorithm
 * reaches them, as port_* for a slave: each checks the exchange (not NULL, a table) and its
 * arguments, gives an empty slot its meaning, then forwards the call unchanged. publish,
 * request and inputs are required (an empty slot: PORT_EUNSUPPORTED); an empty token_send is
 * PORT_EUNSUPPORTED, an empty token_time PEER_NO_TIME (no token ever), an empty idle PORT_OK
 * (the algorithm asks again at once). A bad exchange or argument: PORT_EUSAGE
 * (token_time: PEER_NO_TIME). Tests inject faults by wrapping the table, as
 * tests/unit/port_fault.h does for a slave. */
int exchange_publish(const peer_exchange *x, int64_t ts, const double *y);
int exchange_request(const peer_exchange *x, peer_req kind, int64_t t, int64_t *granted);
int exchange_inputs(const peer_exchange *x, peer_input *in);
int exchange_token_send(const peer_exchange *x, int64_t ts);
int64_t exchange_token_time(const peer_exchange *x);
int exchange_idle(const peer_exchange *x, int attempt, int64_t t, const char *waiting_for);

/* What every peer algorithm runs over: its model, its exchange and the run's common settings.
 * Filled by the caller (fmufed, inproc, a test); the algorithms only read it, except steps. */
typedef struct peer {
    port_slave model;       /* the peer's own model; info.n_in / n_out give the wiring's sizes */
    peer_exchange x;        /* the federation as this peer sees it */
    const char *name;       /* the federate's name, for messages */
    double tick;            /* seconds per tick */
    int64_t t_start, t_end; /* ticks */
    int64_t t_granted;      /* the logical time the exchange holds when the run starts (ticks);
                               below t_start, the algorithm opens t_start first (TARA) */
    int extrapolation;      /* input extrapolation order 0 (hold), 1, 2 (algorithms/extrap.h) */
    const double *u0;       /* n_in values the model's inputs hold before any is received */
    const char *const *in_names;  /* n_in input names, for messages; may be NULL */
    const char *const *out_names; /* n_out output names, for messages; may be NULL */
    char *err;                    /* message buffer shared with the model and the exchange */
    size_t errlen;
    long steps; /* out: communication points passed after the start */
    /* Checkpoints (doc/checkpoint.md, "A peer's part"). resume: NULL, or a state peer_save
     * wrote (resume_len bytes, valid during the run): the run restores it and re-enters at the
     * time request it was saved in, which it answers with the saved grant without calling the
     * exchange's request op (the exchange restores its own inputs beforehand). */
    const unsigned char *resume;
    size_t resume_len;
    struct peer_run *live; /* set by the algorithm while it runs (callers leave it NULL) */
} peer;

/**
 * Write the state of the algorithm running over p: its step decision, its inputs' values,
 * stamps and histories, its extrapolation samples, the steps counted and the time request it
 * is waiting in with that request's grant. Call it only from inside the exchange's request
 * op, while the algorithm waits for a grant: that is where a federate is told to save (the
 * grant at or past the save's time), and the only point where the algorithm's state is whole.
 * @param p        the peer whose algorithm runs, not NULL
 * @param granted  the grant the pending request receives (ticks)
 * @param b        writer to append to, not NULL
 * @return PORT_OK; PORT_EUSAGE when no algorithm of p is inside a request (message in p->err);
 *         PORT_ENOMEM (b->bad).
 */
int peer_save(peer *p, int64_t granted, pstate_buf *b);

/* ---- the three algorithms and their settings ------------------------------------------ */

/* Jacobi with a fixed macro step (doc/algorithms/jacobi.md). */
typedef struct jacobi_settings {
    int64_t t_step;      /* macro step H, ticks, > 0 */
    int naive;           /* 1: TAR with lookahead L > 0 (Fig. 4.4); 0: TARA/TAR at L = 0 */
    int64_t t_lookahead; /* L, ticks (naive only; 0 otherwise) */
} jacobi_settings;

/* Discrete-event Jacobi (doc/algorithms/jacobi-de.md). */
typedef struct jacobi_de_settings {
    double h_min, h_max; /* step clamp, s; 0 < h_min <= h_max */
    const double *q;     /* n_out quanta, output units, > 0 */
} jacobi_de_settings;

/* Gauss-Seidel roles (doc/algorithms/gauss-seidel.md, algorithms/topology.h). */
typedef enum gs_role {
    GS_SOURCE = 1, /* integrates on the token with the sink's previous outputs */
    GS_COMMON = 2, /* waits for its inputs of the step, then integrates */
    GS_SINK = 3,   /* like a common, then passes the token to the source */
} gs_role;

typedef struct gauss_seidel_settings {
    int64_t t_step; /* macro step H, ticks, > 0 */
    gs_role role;
} gauss_seidel_settings;

/**
 * Run Jacobi from p->t_start to p->t_end (doc/algorithms/jacobi.md).
 * @param p  the peer (model, exchange, settings), not NULL; p->steps is set
 * @param s  settings, not NULL
 * @return PORT_OK or the first failure's status, its message in p->err.
 *         Allocates the inputs' histories (freed before returning).
 */
int jacobi_run(peer *p, const jacobi_settings *s);

/**
 * Run discrete-event Jacobi (doc/algorithms/jacobi-de.md). Same contract as jacobi_run.
 * The model must expose first output derivatives for all outputs (info.max_output_deriv >= 1)
 * or none: with none, a step after a single sample is h_min.
 */
int jacobi_de_run(peer *p, const jacobi_de_settings *s);

/** Run Gauss-Seidel (doc/algorithms/gauss-seidel.md). Same contract as jacobi_run. */
int gauss_seidel_run(peer *p, const gauss_seidel_settings *s);

#endif /* TEMPO_ALGORITHMS_EXCHANGE_H */
