/* The algorithm registry (federate/config/fedfile.h, "the algorithm registry"): for each
 * coupling algorithm its name, its side of the port, the parser of its settings and the
 * create / run / free of one run. The peer algorithms are algorithms/jacobi.c, jacobi_de.c and
 * gauss_seidel.c (algorithms/exchange.h); a master algorithm registers here the same way with
 * run_master. doc/architecture.md ("Where a new coupling algorithm goes").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/config/fedfile_impl.h"

static int oom(const fedfile *ff, size_t idx, char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "federate %s: out of memory",
                 idx < ff->n_feds ? ff->feds[idx].name : "?");
    return FEDFILE_ENOMEM;
}

/* ---- jacobi-naive, jacobi ------------------------------------------------------------- */

static int jacobi_create(const fedfile *ff, size_t idx, void **settings, char *err, size_t errlen)
{
    jacobi_settings *s = calloc(1, sizeof *s);
    if (!s) return oom(ff, idx, err, errlen);
    s->t_step = ff->algo.t_step;
    s->naive = ff->algo.kind == FEDFILE_ALG_JACOBI_NAIVE;
    s->t_lookahead = s->naive ? ff->algo.t_lookahead : 0;
    *settings = s;
    return FEDFILE_OK;
}

static int jacobi_peer(const void *settings, peer *p)
{
    return jacobi_run(p, settings);
}

/* ---- jacobi-de ------------------------------------------------------------------------ */

typedef struct de_owned {
    jacobi_de_settings s;
    double q[]; /* one quantum per output, wiring order */
} de_owned;

static int de_create(const fedfile *ff, size_t idx, void **settings, char *err, size_t errlen)
{
    if (idx >= ff->n_feds) {
        if (err && errlen) snprintf(err, errlen, "jacobi-de: no federate %zu", idx);
        return FEDFILE_EUSAGE;
    }
    const fedfile_fed *fd = &ff->feds[idx];
    de_owned *o = calloc(1, sizeof *o + (fd->n_outputs + 1) * sizeof o->q[0]);
    if (!o) return oom(ff, idx, err, errlen);
    for (size_t k = 0; k < fd->n_outputs; k++)
        o->q[k] = fedfile_quantum_of(ff, fd, fd->outputs[k].var);
    o->s = (jacobi_de_settings){.h_min = ff->algo.h_min, .h_max = ff->algo.h_max, .q = o->q};
    *settings = o;
    return FEDFILE_OK;
}

static int de_peer(const void *settings, peer *p)
{
    return jacobi_de_run(p, &((const de_owned *)settings)->s);
}

/* ---- gauss-seidel --------------------------------------------------------------------- */

static int gs_create(const fedfile *ff, size_t idx, void **settings, char *err, size_t errlen)
{
    if (!ff->gs_plan || idx >= ff->n_feds) {
        if (err && errlen) snprintf(err, errlen, "gauss-seidel without a topology plan");
        return FEDFILE_EUSAGE;
    }
    gauss_seidel_settings *s = calloc(1, sizeof *s);
    if (!s) return oom(ff, idx, err, errlen);
    topo_role r = ff->gs_plan->role[idx];
    s->t_step = ff->algo.t_step;
    s->role = r == TOPO_ROLE_SOURCE ? GS_SOURCE : r == TOPO_ROLE_SINK ? GS_SINK : GS_COMMON;
    *settings = s;
    return FEDFILE_OK;
}

static int gs_peer(const void *settings, peer *p)
{
    return gauss_seidel_run(p, settings);
}

/* ---- the table ------------------------------------------------------------------------ */

static const fedfile_algo_entry REGISTRY[] = {
    {.name = "jacobi-naive",
     .kind = FEDFILE_ALG_JACOBI_NAIVE,
     .side = FEDFILE_SIDE_PEER,
     .parse = fedfile_parse_fixed,
     .create = jacobi_create,
     .run_peer = jacobi_peer,
     .free = free},
    {.name = "jacobi",
     .kind = FEDFILE_ALG_JACOBI,
     .side = FEDFILE_SIDE_PEER,
     .parse = fedfile_parse_fixed,
     .create = jacobi_create,
     .run_peer = jacobi_peer,
     .free = free},
    {.name = "jacobi-de",
     .kind = FEDFILE_ALG_JACOBI_DE,
     .side = FEDFILE_SIDE_PEER,
     .parse = fedfile_parse_de,
     .create = de_create,
     .run_peer = de_peer,
     .free = free},
    {.name = "gauss-seidel",
     .kind = FEDFILE_ALG_GAUSS_SEIDEL,
     .side = FEDFILE_SIDE_PEER,
     .parse = fedfile_parse_fixed,
     .create = gs_create,
     .run_peer = gs_peer,
     .free = free},
    /* Master algorithms: their settings are parsed here (wr's in fedfile_parse_fixed); every
     * one is run by tempo-master through its table (federate/master/master_algos.c,
     * doc/master.md), every federate of the file then its slave (fmufed_slave_run);
     * defect-control also in one process under bin/tempo-example-defect. No create / run
     * entry: tempo-fmu refuses to run them as a peer. */
    {.name = "wr",
     .kind = FEDFILE_ALG_WR,
     .side = FEDFILE_SIDE_MASTER,
     .parse = fedfile_parse_fixed},
    {.name = "semi-implicit",
     .kind = FEDFILE_ALG_SEMI,
     .side = FEDFILE_SIDE_MASTER,
     .parse = fedfile_parse_fixed},
    {.name = "master-jacobi",
     .kind = FEDFILE_ALG_MASTER_JACOBI,
     .side = FEDFILE_SIDE_MASTER,
     .parse = fedfile_parse_fixed},
    {.name = "defect-control",
     .kind = FEDFILE_ALG_DEFECT_CONTROL,
     .side = FEDFILE_SIDE_MASTER,
     .parse = fedfile_parse_dc},
    {.name = "f3ornits",
     .kind = FEDFILE_ALG_F3ORNITS,
     .side = FEDFILE_SIDE_MASTER,
     .parse = fedfile_parse_f3},
    {.name = "strong",
     .kind = FEDFILE_ALG_STRONG,
     .side = FEDFILE_SIDE_MASTER,
     .parse = fedfile_parse_strong},
    {.name = "hybrid",
     .kind = FEDFILE_ALG_HYBRID,
     .side = FEDFILE_SIDE_MASTER,
     .parse = fedfile_parse_hybrid},
    /* The explicit master with the coupling layer, and negotiated power exchange
     * (federate/config/fedfile_balance.h, run by federate/master/master_balance.c). */
    {.name = "balance",
     .kind = FEDFILE_ALG_BALANCE,
     .side = FEDFILE_SIDE_MASTER,
     .parse = fedfile_parse_balance},
    {.name = "energy",
     .kind = FEDFILE_ALG_ENERGY,
     .side = FEDFILE_SIDE_MASTER,
     .parse = fedfile_parse_balance},
};

const fedfile_algo_entry *fedfile_algos(size_t *n)
{
    *n = sizeof REGISTRY / sizeof REGISTRY[0];
    return REGISTRY;
}

const fedfile_algo_entry *fedfile_algo_find(fedfile_alg kind)
{
    for (size_t i = 0; i < sizeof REGISTRY / sizeof REGISTRY[0]; i++)
        if (REGISTRY[i].kind == kind) return &REGISTRY[i];
    return NULL;
}

const fedfile_algo_entry *fedfile_algo_by_name(const char *name)
{
    for (size_t i = 0; name && i < sizeof REGISTRY / sizeof REGISTRY[0]; i++)
        if (strcmp(REGISTRY[i].name, name) == 0) return &REGISTRY[i];
    return NULL;
}
