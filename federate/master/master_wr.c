/* Waveform relaxation (algorithms/wr.h, doc/algorithms/waveform-relaxation.md) and the
 * semi-implicit coupling (algorithms/semi.h, doc/algorithms/semi-implicit.md) as entries of
 * tempo-master's table: both take the couplings as wr_links, slave by slave, input by input. */
#include <stdio.h>
#include <stdlib.h>

#include "algorithms/semi.h"
#include "algorithms/wr.h"
#include "federate/master/master_algos.h"

/* The couplings as wr_links (the couplings' order); NULL when there are none. */
static int wr_links_of(const master_run *r, wr_link **out)
{
    *out = NULL;
    if (!r->n_cp) return PORT_OK;
    wr_link *links = calloc(r->n_cp, sizeof *links);
    if (!links) return PORT_ENOMEM;
    for (size_t k = 0; k < r->n_cp; k++)
        links[k] = (wr_link){.src = (long)r->cp[k].from, .out = r->cp[k].output};
    *out = links;
    return PORT_OK;
}

int master_run_wr(const master_run *r, char *err, size_t errlen)
{
    wr_link *links;
    int rc = wr_links_of(r, &links);
    if (rc) return rc;
    wr_result res = {0};
    rc = wr_run(r->m, links, &r->ff->algo.wr, &res, err, errlen);
    if (rc == PORT_OK && !r->quiet)
        printf("tempo-master: %s: wr: %zu steps (%zu halved away), %zu iterations (most "
               "%d per step); messages %zu (eq. 5.5 convention: %zu)\n",
               r->ff->federation, res.n_accepted, res.n_abandoned, res.iter_total, res.iter_max,
               res.msg_init + res.msg_commands + res.msg_replies, res.msg_thesis);
    wr_result_fini(&res);
    free(links);
    return rc;
}

/* The semi-implicit coupling and its summary line: steps, updates, the histogram. */
int master_run_semi(const master_run *r, char *err, size_t errlen)
{
    wr_link *links;
    int rc = wr_links_of(r, &links);
    if (rc) return rc;
    semi_result res = {0};
    rc = semi_run(r->m, links, &r->ff->algo.semi, &res, err, errlen);
    if (rc == PORT_OK && !r->quiet) {
        printf("tempo-master: %s: semi-implicit (%s): %zu steps, %zu updates (most %d per "
               "step), %zu recalculation rounds; messages %zu; updates per step:",
               r->ff->federation, semi_iter_name(r->ff->algo.semi.iter), res.n_accepted,
               res.iter_total, res.iter_max, res.eval_total, res.msg_commands + res.msg_replies);
        for (int k = 0; k < SEMI_HIST_MAX; k++)
            if (res.hist[k]) printf(" %d%s:%zu", k, k == SEMI_HIST_MAX - 1 ? "+" : "", res.hist[k]);
        printf("\n");
    }
    semi_result_fini(&res);
    free(links);
    return rc;
}
