/* Strong coupling (algorithms/strong.h, doc/algorithms/strong-coupling.md) as an entry of
 * tempo-master's table: CVODE in the master over every slave's states, the slaves model-exchange
 * evaluators. The couplings become wr_links, slave by slave, input by input; the summary line
 * gives the counts of check C9 (eq. 5.19). Read algorithms/strong.c next.
 */
#include <stdio.h>
#include <stdlib.h>

#include "algorithms/strong.h"
#include "federate/master/master_algos.h"

int master_run_strong(const master_run *r, char *err, size_t errlen)
{
    wr_link *links = NULL;
    if (r->n_cp && !(links = calloc(r->n_cp, sizeof *links))) return PORT_ENOMEM;
    for (size_t k = 0; k < r->n_cp; k++)
        links[k] = (wr_link){.src = (long)r->cp[k].from, .out = r->cp[k].output};
    strong_result res;
    const strong_opts *o = &r->ff->algo.strong;
    int rc = strong_run(r->m, links, o, &res, err, errlen);
    if (rc == PORT_OK && !r->quiet)
        printf("tempo-master: %s: strong (%s, rtol %g, atol %g): %zu output instants, %ld "
               "right-hand sides in %ld rounds, %ld CVODE steps; messages %zu (eq. 5.19: "
               "%zu n_s + %zu n_f + %zu)\n",
               r->ff->federation, o->adams ? "adams" : "bdf", o->rtol, o->atol, res.n_out,
               res.n_rhs, res.n_rounds, res.n_steps, res.msg_commands + res.msg_replies, res.c1,
               res.c2, res.c0);
    free(links);
    return rc;
}
