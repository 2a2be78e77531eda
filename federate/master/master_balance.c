/* The explicit master with the coupling layer (algorithms/explicit.h,
 * doc/algorithms/balance-correction.md) and negotiated power exchange (algorithms/energy.h,
 * doc/algorithms/energy-balance.md) as entries of tempo-master's table. Both take their
 * connections from the file's resolved algorithm.coupling (federate/config/fedfile_balance.h),
 * one per wired input, in the couplings' order. */
#include <stdio.h>
#include <stdlib.h>

#include "algorithms/energy.h"
#include "algorithms/explicit.h"
#include "federate/config/fedfile_balance.h"
#include "federate/master/master_algos.h"

int master_run_balance(const master_run *r, char *err, size_t errlen)
{
    const fedfile_balance *b = r->ff->algo.balance;
    explicit_conn *c = calloc(b->n_conn + 1, sizeof *c);
    if (!c) return PORT_ENOMEM;
    for (size_t k = 0; k < b->n_conn; k++) {
        const fedfile_bal_conn *f = &b->conn[k];
        c[k] = (explicit_conn){.from = f->from,
                               .out = f->output,
                               .to = f->to,
                               .in = f->input,
                               .slope = f->slope,
                               .amount = f->amount,
                               .layer = f->layer};
    }
    explicit_settings set = {.H = r->ff->algo.t_step, .conns = c, .n_conns = b->n_conn};
    explicit_stats st = {0, 0};
    int rc = explicit_run(r->m, &set, &st, err, errlen);
    if (rc == PORT_OK && !r->quiet)
        printf("tempo-master: %s: balance: %ld steps over %zu connections, %ld operations\n",
               r->ff->federation, st.steps, b->n_conn, st.operations);
    free(c);
    return rc;
}

int master_run_energy(const master_run *r, char *err, size_t errlen)
{
    const fedfile_balance *b = r->ff->algo.balance;
    energy_link *l = calloc(b->n_conn + 1, sizeof *l);
    if (!l) return PORT_ENOMEM;
    size_t n = fedfile_energy_links(b, l, b->n_conn + 1);
    energy_settings set = {
        .H = r->ff->algo.t_step, .links = l, .n_links = n, .p_order = b->p_order};
    energy_stats st = {0, 0, 0, 0, 0};
    int rc = energy_run(r->m, &set, &st, err, errlen);
    if (rc == PORT_OK && !r->quiet)
        printf("tempo-master: %s: energy: %ld steps over %zu boundaries, %ld exchanges, %ld "
               "operations; energy missed over the last step %.3g; %ld landings\n",
               r->ff->federation, st.steps, n, st.exchanges, st.operations, st.missed, st.landings);
    free(l);
    return rc;
}
