/* F3ORNITS of Éguillon et al. (2021) (algorithms/f3ornits_master.h, doc/algorithms/f3ornits.md)
 * as an entry of tempo-master's table: the file's "f3ornits" settings become an f3_config, the
 * couplings its dc_links, the imposed steps (by federate name) one per slave. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/f3ornits_master.h"
#include "federate/master/master_algos.h"

int master_run_f3ornits(const master_run *r, char *err, size_t errlen)
{
    const fedfile_f3 *f = &r->ff->algo.f3;
    size_t S = r->ff->n_feds;
    dc_link *links = calloc(r->n_cp + 1, sizeof *links);
    double *imposed = calloc(S + 1, sizeof *imposed);
    if (!links || !imposed) {
        free(links);
        free(imposed);
        return PORT_ENOMEM;
    }
    int rc = PORT_OK;
    for (size_t k = 0; k < f->n_imposed && rc == PORT_OK; k++) {
        long j = fedfile_find(r->ff, f->imposed_fed[k]);
        if (j < 0)
            rc = port_errorf(err, errlen, PORT_EUSAGE,
                             "%s: algorithm.f3ornits.imposed[\"%s\"]: no such federate",
                             r->ff->path, f->imposed_fed[k]);
        else
            imposed[j] = f->imposed_step[k];
    }
    for (size_t k = 0; k < r->n_cp; k++)
        links[k] = (dc_link){
            .to = r->cp[k].to, .in = r->cp[k].input, .from = r->cp[k].from, .out = r->cp[k].output};
    f3_config cfg = {.fit = (f3_fit)f->fit,
                     .order = f->order,
                     .variable = f->variable,
                     .norm = (f3_norm)f->norm,
                     .mu = f->mu,
                     .rtol = f->rtol,
                     .atol = f->atol,
                     .rho_min = f->rho_min,
                     .rho_max = f->rho_max,
                     .safety = f->safety,
                     .dt_init = f->dt_init,
                     .dt_max = f->dt_max,
                     .imposed = imposed,
                     .smooth = f->smooth,
                     .n_links = r->n_cp,
                     .links = links};
    f3_result res;
    if (rc == PORT_OK) {
        rc = f3_run(r->m, &cfg, NULL, NULL, &res);
        if (rc != PORT_OK)
            snprintf(err, errlen, "%s", res.err);
        else if (!r->quiet)
            printf("tempo-master: %s: f3ornits: %zu instants, %zu slave steps, between instants "
                   "%.4g .. %.4g s\n",
                   r->ff->federation, res.N, res.steps, res.h_min, res.h_max);
    }
    free(links);
    free(imposed);
    return rc;
}
