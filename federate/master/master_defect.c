/* The defect-controlled non-iterative master of Glumac and Kovačić (2023) (algorithms/
 * defect_master.h, doc/algorithms/defect-control.md) as an entry of tempo-master's table: the
 * file's "defect-control" settings become a dc_config, the couplings its dc_links. The same
 * run as bin/tempo-example-defect, whose slaves are opened in its own process. */
#include <stdio.h>
#include <stdlib.h>

#include "algorithms/defect_master.h"
#include "federate/config/fedfile_master.h"
#include "federate/master/master_algos.h"

int master_run_defect(const master_run *r, char *err, size_t errlen)
{
    dc_link *links = calloc(r->n_cp + 1, sizeof *links);
    if (!links) return PORT_ENOMEM;
    for (size_t k = 0; k < r->n_cp; k++)
        links[k] = (dc_link){
            .to = r->cp[k].to, .in = r->cp[k].input, .from = r->cp[k].from, .out = r->cp[k].output};
    dc_config cfg = fedfile_dc_config(r->ff, links, r->n_cp);
    dc_result res;
    int rc = dc_run(r->m, &cfg, NULL, NULL, &res);
    if (rc != PORT_OK)
        snprintf(err, errlen, "%s", res.err);
    else if (!r->quiet)
        printf("tempo-master: %s: defect-control, m = %d, n = %d, %s: N = %zu steps to T_N = "
               "%.6g s, H mean %.4g s (min %.4g, max %.4g), largest defect %.3g\n",
               r->ff->federation, cfg.m, cfg.n, cfg.variable ? "variable step" : "fixed step",
               res.N, (double)res.t_end * r->m->tick, res.h_mean, res.h_min, res.h_max,
               res.eps_max);
    free(links);
    return rc;
}
