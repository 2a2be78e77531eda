/* The explicit master with the coupling layer (algorithms/explicit.h,
 * doc/algorithms/balance-correction.md) and negotiated power exchange (algorithms/energy.h,
 * doc/algorithms/energy-balance.md) as values of the algorithm table
 * (federate/config/fedfile_algo.h). Keys: "step", "coupling" (per connection, keyed by "*" or a
 * receiving "federate.input") and, for energy, "power_extrapolation"; read and resolved against
 * the wiring by federate/config/fedfile_balance.c. Both runs take one connection per wired input,
 * in the links' order.
 */
#include <stdio.h>
#include <stdlib.h>

#include "algorithms/energy.h"
#include "algorithms/explicit.h"
#include "federate/config/fedfile_algo.h"
#include "federate/config/fedfile_balance.h"
#include "federate/config/fedfile_impl.h"

static int parse_balance(fedfile_keys *k, fedfile *ff, void **settings)
{
    int rc = fedfile_key_step(k, ff);
    return rc ? rc : fedfile_balance_parse(k, 0, (fedfile_balance **)settings);
}

static int parse_energy(fedfile_keys *k, fedfile *ff, void **settings)
{
    int rc = fedfile_key_step(k, ff);
    return rc ? rc : fedfile_balance_parse(k, 1, (fedfile_balance **)settings);
}

static void bal_free(void *b)
{
    fedfile_balance_free(b);
}

static int run_balance(const fedfile_master_run *r, char *err, size_t errlen)
{
    const fedfile_balance *b = r->ff->algo.settings;
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

static int run_energy(const fedfile_master_run *r, char *err, size_t errlen)
{
    const fedfile_balance *b = r->ff->algo.settings;
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

const fedfile_algo_def fedfile_algo_balance = {
    .name = "balance",
    .side = FEDFILE_SIDE_MASTER,
    .summary = "explicit master with balance correction (Scharff, Moshagen, Vondrejc 2017)",
    .parse = parse_balance,
    .resolve = fedfile_balance_resolve,
    .free = bal_free,
    .run_master = run_balance,
    .saves = 1, /* its state between steps (doc/checkpoint.md "Master methods") */
};

const fedfile_algo_def fedfile_algo_energy = {
    .name = "energy",
    .side = FEDFILE_SIDE_MASTER,
    .summary = "negotiated power exchange between the slaves (Moshagen 2017)",
    .parse = parse_energy,
    .resolve = fedfile_balance_resolve,
    .free = bal_free,
    .run_master = run_energy,
    .saves = 1, /* its state between steps (doc/checkpoint.md "Master methods") */
};
