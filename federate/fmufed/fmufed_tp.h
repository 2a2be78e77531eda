/* The transport piece of tempo-fmu: the peer exchange (algorithms/exchange.h) over libtempo.
 * Joins the federation, publishes and subscribes per the wiring, maps reflections to inputs,
 * enables time management, synchronises the start and the end with the file's other
 * federates, and answers the exchange's operations with tp_* calls (one peer per process, the
 * RTI decides grants and deliveries). doc/algorithms/port.md; read fmufed_tp.c next.
 * Private to tempo-fmu: not installed.
 */
#ifndef TEMPO_FEDERATE_FMUFED_TP_H
#define TEMPO_FEDERATE_FMUFED_TP_H

#include <stddef.h>

#include "algorithms/exchange.h"
#include "federate/config/fedfile.h"
#include "federate/fmufed/fmufed.h"

typedef struct fmufed_tp fmufed_tp; /* opaque */

/**
 * Join, declare (publish, subscribe, register one object per published class, StepForward for
 * gauss-seidel), enable regulation (the algorithm's lookahead) and constrained. With
 * opts->restore the join restores the federate instead (tp_join_options.restore): its
 * declarations, objects, time management and sync points come back from the RTI, so only the
 * wiring is resolved, and fmufed_tp_restored gives its part.
 * @param ff     loaded file, must outlive the transport
 * @param idx    this federate's index
 * @param opts   options (rti address, timeouts), may be NULL
 * @param lookahead ticks (jacobi-naive: L; others 0)
 * @param st     counters (updates, reflections, requests), not NULL, must outlive it
 * @param err    buffer shared with later failures ("federate NAME: what"); errlen its size
 * @param out    out: the transport (fmufed_tp_free), also on failure when it got that far
 * @return FMUFED_OK, FMUFED_EUSAGE, FMUFED_ERTI, FMUFED_ENOMEM.
 */
int fmufed_tp_start(const fedfile *ff, size_t idx, const fmufed_opts *opts, int64_t lookahead,
                    fmufed_stats *st, char *err, size_t errlen, fmufed_tp **out);

/**
 * Meet the others at the start sync point "tempo-start" (the first federate of the file
 * registers it once all joined, and registers "tempo-end" after); from here on a peer leaving
 * fails the run. After a restore there is nothing to meet: the run is under way.
 * @return FMUFED_OK or FMUFED_ERTI.
 */
int fmufed_tp_sync_start(fmufed_tp *t);

/** The exchange over this transport; valid while t is. */
peer_exchange fmufed_tp_exchange(fmufed_tp *t);

/** The logical time granted now (ticks). */
int64_t fmufed_tp_time(fmufed_tp *t);

/** Meet the others at "tempo-end" and resign. @return FMUFED_OK or FMUFED_ERTI. */
int fmufed_tp_finish(fmufed_tp *t);

/* ---- checkpoints (doc/checkpoint.md, "tempo-fmu's part") ------------------------------- */

/* Writes this federate's part of save `label`, inside the grant `time` (ticks) the transport
 * received; appends to b. Returns 0, or nonzero with the reason in why. */
typedef int (*fmufed_tp_saver)(void *ctx, const char *label, int64_t time, pstate_buf *b, char *why,
                               size_t why_size);

/**
 * What a save asks of this federate: saver writes its part (NULL: the federate cannot save,
 * and a save fails naming it); mark runs at each checkpoint instant of opts (the first grant
 * at or past it), whether or not a save is written (NULL: none).
 */
void fmufed_tp_set_saver(fmufed_tp *t, fmufed_tp_saver saver, void (*mark)(void *ctx), void *ctx);

/**
 * The transport's own state for a part, inside the grant `granted`: the logical time, the
 * inputs held (values, stamps, fresh flags), the StepForward stamp, the objects registered,
 * the counters, the next checkpoint instant. Appends to b.
 */
void fmufed_tp_state_save(const fmufed_tp *t, int64_t granted, pstate_buf *b);

/**
 * Restore what fmufed_tp_state_save wrote (after fmufed_tp_start with opts->restore).
 * @return FMUFED_OK, FMUFED_EUSAGE (damaged or another wiring's; err set).
 */
int fmufed_tp_state_restore(fmufed_tp *t, pstate_rd *d);

/** The part restored by the join (opts->restore): its bytes (valid while t lives). @return 1
 *  when there is one, else 0. */
int fmufed_tp_restored(const fmufed_tp *t, const unsigned char **bytes, size_t *n);

/** Leave (resign when joined) and free. Accepts NULL. */
void fmufed_tp_free(fmufed_tp *t);

#endif
