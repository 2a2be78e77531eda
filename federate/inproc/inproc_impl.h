/* Private to federate/inproc: the in-memory exchange (inproc_tm.c) that inproc.c hands to
 * each peer thread. Only inproc_tm.c includes the time-management engine.
 */
#ifndef TEMPO_FEDERATE_INPROC_INPROC_IMPL_H
#define TEMPO_FEDERATE_INPROC_INPROC_IMPL_H

#include "algorithms/exchange.h"
#include "federate/config/fedfile.h"
#include "federate/inproc/inproc.h"

typedef struct inproc_hub inproc_hub; /* one federation in memory */

/**
 * Create the federation: every federate of ff joined to a fresh engine, regulating with the
 * lookahead, constrained, at logical time 0 (the state tempo-fmu federates reach at their
 * start sync point).
 * @return FMUFED_OK, FMUFED_ERTI (the engine refused: err says why), FMUFED_ENOMEM.
 */
int inproc_hub_new(const fedfile *ff, int64_t lookahead, inproc_hub **out, char *err,
                   size_t errlen);

/** Federate idx's exchange; its failures write "federate NAME: what" into err (that peer's
 *  buffer, errlen bytes) and count into st (may be NULL). */
peer_exchange inproc_hub_exchange(inproc_hub *h, size_t idx, char *err, size_t errlen,
                                  inproc_stats *st);

/** Federate idx stopped on a failure: every peer still waiting returns PORT_ELOST naming it
 *  (as tempo-fmu federates do when the RTI reports a peer gone). */
void inproc_hub_fail(inproc_hub *h, size_t idx);

/** Free the federation (after every thread has returned). Accepts NULL. */
void inproc_hub_free(inproc_hub *h);

#endif
