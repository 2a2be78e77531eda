/* Where a federate's time goes (tempo-fmu --profile, tempo-run --profile): the peer's model
 * and exchange wrapped so that every operation is timed into one of a few parts.
 * doc/run.md "Where the time goes". Read fmufed_prof.c next. */
#ifndef TEMPO_FMUFED_FMUFED_PROF_H
#define TEMPO_FMUFED_FMUFED_PROF_H

#include "algorithms/exchange.h"
#include "algorithms/port.h"

/* The parts of a federate's time. */
enum {
    FMUFED_PROF_MODEL, /* the FMU: set inputs, step (its solver), read outputs, save/restore */
    FMUFED_PROF_WAIT,  /* a time request until its grant (and FQR polls, idle pauses) */
    FMUFED_PROF_MSG,   /* publishing outputs, taking inputs, the token: libtempo, and in
                          process the embedded RTI's core run on the federate's frames */
    FMUFED_PROF_REC,   /* results rows: reading the recorded variables, writing the CSV */
    FMUFED_PROF_OTHER, /* the algorithm's own code between those calls */
    FMUFED_PROF_N
};

/** What a profiled run measured, per part (fmufed_stats.prof). */
typedef struct fmufed_prof_out {
    int on;                             /* 1: the run was profiled */
    double wall[FMUFED_PROF_N];         /* s of wall time, exclusive: a wait holds only the
                                           time no other federate of its thread ran */
    double cpu[FMUFED_PROF_N];          /* s of CPU time (thread), from sampled calls */
    unsigned long calls[FMUFED_PROF_N]; /* operations timed (OTHER: gaps between them) */
    double waited;                      /* s of wall time from requests to their grants,
                                           whatever ran meanwhile */
} fmufed_prof_out;

typedef struct fmufed_prof fmufed_prof;

/**
 * Start profiling one peer: returns the wrapper, whose slave and exchange forward every
 * operation to model and x and time it. The monotonic clock is read twice per operation (a
 * few tens of ns); the thread's CPU clock (a system call) at the start, the end and around
 * one wait in 64 (fmufed_prof.c says how the parts' CPU time follows).
 * @param model the federate's slave, copied
 * @param x     its exchange, copied
 * @return the wrapper (free with fmufed_prof_free), or NULL when out of memory
 */
fmufed_prof *fmufed_prof_new(port_slave model, peer_exchange x);

/** The wrapped slave: same info, every operation timed into MODEL or REC (record). */
port_slave fmufed_prof_slave(fmufed_prof *p);

/** The wrapped exchange: request and idle timed into WAIT, the others into MSG. */
peer_exchange fmufed_prof_exchange(fmufed_prof *p);

/** The figures so far into *out (the CPU of each part estimated from its samples). */
void fmufed_prof_result(const fmufed_prof *p, fmufed_prof_out *out);

/** Release the wrapper. Accepts NULL. */
void fmufed_prof_free(fmufed_prof *p);

/** Name of part k ("model", "wait", "messaging", "recording", "other"); "?" otherwise. */
const char *fmufed_prof_name(int k);

/**
 * The profile as one line for tempo-run (no newline): "profile NAME steps=N model=W/C
 * wait=W/C waited=W messaging=W/C recording=W/C other=W/C", seconds, wall/CPU.
 * @param buf caller-owned, len bytes; truncated to fit
 */
void fmufed_prof_line(char *buf, size_t len, const char *name, long steps,
                      const fmufed_prof_out *o);

#endif
