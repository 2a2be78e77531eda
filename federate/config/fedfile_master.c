/* Master methods of the federation file (federate/config/fedfile_master.h, doc/master.md). */
#include "federate/config/fedfile_master.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fedfile_is_master(const fedfile *ff)
{
    /* Every master-side entry of the registry is run by tempo-master (federate/master/
     * master_algos.c): the side is the rule, written once. */
    const fedfile_algo_entry *e = ff ? fedfile_algo_find(ff->algo.kind) : NULL;
    return e && e->side == FEDFILE_SIDE_MASTER;
}

int64_t fedfile_master_horizon(const fedfile *ff)
{
    if (ff->algo.kind == FEDFILE_ALG_DEFECT_CONTROL && !ff->algo.dc.clip_end) return INT64_MAX;
    return ff->algo.t_end;
}

int fedfile_master_couplings(const fedfile *ff, fedfile_coupling **out, size_t *n, char *err,
                             size_t errlen)
{
    if (!ff || !out || !n) return FEDFILE_EUSAGE;
    *out = NULL;
    *n = 0;
    size_t total = 0;
    for (size_t i = 0; i < ff->n_feds; i++) {
        if (strcmp(ff->feds[i].name, "master") == 0) {
            snprintf(err, errlen,
                     "%s: federates[%zu]: the name \"master\" is the master's own "
                     "(method \"%s\")",
                     ff->path, i, fedfile_alg_name(ff->algo.kind));
            return FEDFILE_ESCHEMA;
        }
        total += ff->feds[i].n_inputs;
    }
    fedfile_coupling *c = calloc(total + 1, sizeof *c);
    if (!c) return FEDFILE_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < ff->n_feds; i++) {
        const fedfile_fed *fd = &ff->feds[i];
        for (size_t m = 0; m < fd->n_inputs; m++) {
            const fedfile_wire *w = &fd->inputs[m];
            /* fedfile_load resolved the publisher (w->source); find the output it publishes. */
            long src = w->source;
            long out_k = -1;
            for (size_t q = 0;
                 src >= 0 && (size_t)src < ff->n_feds && q < ff->feds[src].n_outputs && out_k < 0;
                 q++) {
                const fedfile_wire *o = &ff->feds[src].outputs[q];
                if (!strcmp(o->cls, w->cls) && !strcmp(o->attr, w->attr)) out_k = (long)q;
            }
            if (out_k < 0) {
                snprintf(err, errlen,
                         "%s: federates[%zu].inputs[\"%s\"]: no output publishes "
                         "%s.%s",
                         ff->path, i, w->var, w->cls, w->attr);
                free(c);
                return FEDFILE_ESCHEMA;
            }
            c[k++] = (fedfile_coupling){
                .to = i, .input = m, .from = (size_t)src, .output = (size_t)out_k};
        }
    }
    *out = c;
    *n = k;
    return FEDFILE_OK;
}

/* 1 when cls.attr is listed in algorithm.hybrid.discrete. */
static int listed_discrete(const fedfile *ff, const char *cls, const char *attr)
{
    size_t lc = strlen(cls);
    for (size_t q = 0; q < ff->algo.hy_n_discrete; q++) {
        const char *d = ff->algo.hy_discrete[q];
        if (!strncmp(d, cls, lc) && d[lc] == '.' && !strcmp(d + lc + 1, attr)) return 1;
    }
    return 0;
}

size_t fedfile_hybrid_flags(const fedfile *ff, size_t idx, unsigned char *out, unsigned char *in)
{
    const fedfile_fed *fd = &ff->feds[idx];
    int hy = ff->algo.kind == FEDFILE_ALG_HYBRID;
    size_t n = 0;
    for (size_t k = 0; out && k < fd->n_outputs; k++)
        n += out[k] =
            (unsigned char)(hy && listed_discrete(ff, fd->outputs[k].cls, fd->outputs[k].attr));
    for (size_t i = 0; in && i < fd->n_inputs; i++)
        n += in[i] = (unsigned char)(hy && fd->inputs[i].source >= 0 &&
                                     listed_discrete(ff, fd->inputs[i].cls, fd->inputs[i].attr));
    return n;
}

int fedfile_hybrid_source(const fedfile *ff, size_t idx, size_t i, size_t *src, size_t *k)
{
    const fedfile_fed *fd = &ff->feds[idx];
    if (ff->algo.kind != FEDFILE_ALG_HYBRID || i >= fd->n_inputs || fd->inputs[i].source < 0)
        return -1;
    const fedfile_wire *in = &fd->inputs[i];
    if (!listed_discrete(ff, in->cls, in->attr)) return -1;
    const fedfile_fed *sf = &ff->feds[in->source];
    size_t n = 0;
    for (size_t o = 0; o < sf->n_outputs; o++) {
        const fedfile_wire *w = &sf->outputs[o];
        if (!strcmp(w->cls, in->cls) && !strcmp(w->attr, in->attr)) {
            *src = (size_t)in->source, *k = n;
            return 0;
        }
        n += listed_discrete(ff, w->cls, w->attr);
    }
    return -1;
}

dc_config fedfile_dc_config(const fedfile *ff, const dc_link *links, size_t n_links)
{
    const fedfile_dc *d = &ff->algo.dc;
    return (dc_config){.m = d->m,
                       .n = d->n,
                       .variable = d->tol > 0,
                       .h1 = d->h1,
                       .tol = d->tol,
                       .h_min = d->h_min,
                       .h_max = d->h_max,
                       .kp = d->kp,
                       .ki = d->ki,
                       .theta_max = d->theta_max,
                       .defect = (dc_defect)d->defect,
                       .init = (dc_init)d->init,
                       .exchange = (dc_exchange)d->exchange,
                       .clip_end = d->clip_end,
                       .n_links = n_links,
                       .links = links};
}
