/* The master-driven Jacobi scheme (algorithms/msjacobi.h, doc/master.md) as an entry of
 * tempo-master's table. */
#include <stdlib.h>

#include "algorithms/msjacobi.h"
#include "federate/master/master_algos.h"

int master_run_jacobi(const master_run *r, char *err, size_t errlen)
{
    msj_link *links = calloc(r->n_cp + 1, sizeof *links);
    if (!links) return PORT_ENOMEM;
    for (size_t k = 0; k < r->n_cp; k++)
        links[k] = (msj_link){.to_slave = r->cp[k].to,
                              .to_input = r->cp[k].input,
                              .from_slave = r->cp[k].from,
                              .from_output = r->cp[k].output};
    int rc = msjacobi_run(r->m, links, r->n_cp, r->ff->algo.t_step, err, errlen);
    free(links);
    return rc;
}
