/* Discrete-event Jacobi (algorithms/jacobi_de.c, doc/algorithms/jacobi-de.md, the Awais thesis
 * §4.2.2) as a value of the algorithm table (federate/config/fedfile_algo.h). Keys: "quantum"
 * (the default quantum of every output, output units), "h_min" and "h_max" (the step clamp, s),
 * "extrapolation"; each federate may give its own quanta ("quantum": {"output": q}).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/config/algo_jacobi_de.h"
#include "federate/config/fedfile_algo.h"

extern const fedfile_algo_def fedfile_algo_jacobi_de;

static int parse(fedfile_keys *k, fedfile *ff, void **settings)
{
    fedfile_de *d = calloc(1, sizeof *d);
    if (!d) return fedfile_key_fail(k, NULL, "out of memory");
    *settings = d;
    int rc;
    if ((rc = fedfile_key_extrapolation(k, ff)) ||
        (rc = fedfile_key_num(k, "quantum", FEDFILE_KEY_REQUIRED, &d->quantum, NULL)) ||
        (rc = fedfile_key_ticks(k, "h_min", FEDFILE_KEY_REQUIRED, 1, &d->h_min, &d->t_h_min,
                                NULL)) ||
        (rc = fedfile_key_ticks(k, "h_max", FEDFILE_KEY_REQUIRED, 1, &d->h_max, &d->t_h_max, NULL)))
        return rc;
    if (d->h_max < d->h_min)
        return fedfile_key_fail(k, "h_max", "%g must be >= h_min %g", d->h_max, d->h_min);
    return FEDFILE_OK;
}

const fedfile_de *fedfile_de_of(const fedfile *ff)
{
    return ff && ff->algo.def == &fedfile_algo_jacobi_de ? ff->algo.settings : NULL;
}

double fedfile_quantum_of(const fedfile *ff, const fedfile_fed *fd, const char *var)
{
    for (size_t i = 0; i < fd->n_quanta; i++)
        if (strcmp(fd->quanta[i].var, var) == 0) return fd->quanta[i].q;
    const fedfile_de *d = fedfile_de_of(ff);
    return d ? d->quantum : 0.0;
}

typedef struct de_run {
    jacobi_de_settings s;
    double q[]; /* one quantum per output, wiring order */
} de_run;

static int create(const fedfile *ff, size_t idx, void **run, char *err, size_t errlen)
{
    const fedfile_de *d = fedfile_de_of(ff);
    if (idx >= ff->n_feds || !d) {
        snprintf(err, errlen, "jacobi-de: no federate %zu", idx);
        return FEDFILE_EUSAGE;
    }
    const fedfile_fed *fd = &ff->feds[idx];
    de_run *o = calloc(1, sizeof *o + (fd->n_outputs + 1) * sizeof o->q[0]);
    if (!o) {
        snprintf(err, errlen, "federate %s: out of memory", fd->name);
        return FEDFILE_ENOMEM;
    }
    for (size_t k = 0; k < fd->n_outputs; k++)
        o->q[k] = fedfile_quantum_of(ff, fd, fd->outputs[k].var);
    o->s = (jacobi_de_settings){.h_min = d->h_min, .h_max = d->h_max, .q = o->q};
    *run = o;
    return FEDFILE_OK;
}

static int run(const void *r, peer *p)
{
    return jacobi_de_run(p, &((const de_run *)r)->s);
}

const fedfile_algo_def fedfile_algo_jacobi_de = {
    .name = "jacobi-de",
    .side = FEDFILE_SIDE_PEER,
    .needs = FEDFILE_NEEDS_PROGRAMS | FEDFILE_NEEDS_QUANTA,
    .summary = "discrete-event Jacobi: NERA/NER, quantized outputs (Awais thesis §4.2.2)",
    .parse = parse,
    .free = free,
    .create = create,
    .run_peer = run,
    .destroy = free,
};
