/* Explicit (non-iterative) master over the port: every macro step, read the slaves' outputs,
 * hand each receiver its input over the step as a polynomial built by the coupling layer of
 * algorithms/balance.h (extrapolation, smooth switch, balance correction), step every slave
 * once, never go back. The "standard explicit scheme" of Scharff, Moshagen, Vondrejc (2017)
 * §3 with every variant of their coupling layer, per connection.
 * doc/algorithms/balance-correction.md. Read algorithms/explicit.c next. libc and libm only.
 */
#ifndef TEMPO_ALGORITHMS_EXPLICIT_H
#define TEMPO_ALGORITHMS_EXPLICIT_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/balance.h"
#include "algorithms/port.h"

/* Where a connection's slope comes from (linear extrapolation). */
#define EXPLICIT_SLOPE_DERIV (-1) /* the sender's first output derivative (get_output_derivs) */

/* One scalar connection: output `out` of slave `from` feeds input `in` of slave `to`. */
typedef struct explicit_conn {
    size_t from, out;   /* sender slave index, output index in its outputs */
    size_t to, in;      /* receiver slave index, input index in its inputs */
    long slope;         /* output index of the sender holding du/dt, or EXPLICIT_SLOPE_DERIV;
                           unused for constant extrapolation */
    long amount;        /* output index of the sender holding the running integral of the
                           exchanged output (its differences are the amounts A_j); -1:
                           none (balance correction then refused) */
    bal_settings layer; /* the coupling layer of this connection */
} explicit_conn;

typedef struct explicit_settings {
    int64_t H;                  /* macro step, ticks, > 0 */
    const explicit_conn *conns; /* every input of every slave exactly once */
    size_t n_conns;
} explicit_settings;

/* Counts of one run. */
typedef struct explicit_stats {
    long steps;      /* macro steps taken */
    long operations; /* port operations posted (the distributed run's commands) */
} explicit_stats;

/**
 * Run from m->t_start to m->t_end (the last step is shortened to land on t_end; with a hat
 * spanning more than one interval the step must divide the span exactly, else EUSAGE).
 * Each slave records once at the start and after every step.
 * @param m     the master and its slaves, not NULL
 * @param set   settings, not NULL; validated first (every input connected once, indices in
 *              range, amounts present where balance correction is on)
 * @param st    counts, may be NULL
 * @param err   receives the reason on failure (names the slave or connection); errlen its size
 * @return PORT_OK; PORT_EUSAGE bad settings; the first failing slave's status otherwise.
 */
int explicit_run(const port_master *m, const explicit_settings *set, explicit_stats *st, char *err,
                 size_t errlen);

#endif /* TEMPO_ALGORITHMS_EXPLICIT_H */
