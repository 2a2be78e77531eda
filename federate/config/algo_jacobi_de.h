/* The settings of method "jacobi-de" (federate/config/algo_jacobi_de.c, doc/federation.md) as
 * the loaded file holds them, and the quantum of one output. Read algo_jacobi_de.c next.
 */
#ifndef TEMPO_FEDERATE_CONFIG_ALGO_JACOBI_DE_H
#define TEMPO_FEDERATE_CONFIG_ALGO_JACOBI_DE_H

#include <stdint.h>

#include "federate/config/fedfile.h"

typedef struct fedfile_de {
    double quantum;           /* default quantum, output unit, > 0 */
    double h_min, h_max;      /* step clamp, s; 0 < h_min <= h_max */
    int64_t t_h_min, t_h_max; /* the same in ticks */
} fedfile_de;

/** The jacobi-de settings of a loaded file, or NULL when its method is another. */
const fedfile_de *fedfile_de_of(const fedfile *ff);

/**
 * Quantum of one output: the federate's "quantum" entry for it, else algorithm.quantum.
 * @return the quantum (> 0 for jacobi-de files; 0 for other methods).
 */
double fedfile_quantum_of(const fedfile *ff, const fedfile_fed *fd, const char *var);

#endif
