/* A throwaway coupling algorithm: fixed-step Jacobi over the port whose slaves advance each macro
 * step in n_sub equal sub-steps with their inputs held. It exists to show where a new algorithm
 * goes (doc/architecture.md); tests/integration/new_algo.sh copies it into a copy of the tree.
 * Read algorithms/subjacobi.c next.
 */
#ifndef TEMPO_ALGORITHMS_SUBJACOBI_H
#define TEMPO_ALGORITHMS_SUBJACOBI_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/port.h"

typedef struct subjacobi_settings {
    int64_t t_step; /* macro step, ticks, > 0 */
    int n_sub;      /* sub-steps per macro step, >= 1 */
} subjacobi_settings;

/** Run from m->t_start to m->t_end over the links (every input fed once). Returns a
 *  port_status; err names the slave and the time at fault. */
int subjacobi_run(const port_master *m, const port_link *links, size_t n_links,
                  const subjacobi_settings *s, char *err, size_t errlen);

#endif
