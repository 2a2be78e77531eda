/* The settings of method "hybrid" (federate/config/algo_hybrid.c, doc/federation.md) as the
 * loaded file holds them. Read algo_hybrid.c next.
 */
#ifndef TEMPO_FEDERATE_CONFIG_ALGO_HYBRID_H
#define TEMPO_FEDERATE_CONFIG_ALGO_HYBRID_H

#include <stddef.h>

#include "algorithms/hybrid.h"

typedef struct fedfile_hybrid {
    hybrid_opts opts; /* algorithm.hybrid in ticks, defaults from hybrid_opts_default */
    size_t n_discrete;
    char **discrete; /* the "Class.attribute" outputs listed as discrete-valued */
} fedfile_hybrid;

#endif
