/* Master methods of the federation file (federate/config/fedfile_master.h, doc/master.md). */
#include "federate/config/fedfile_master.h"

#include "federate/config/fedfile_algo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fedfile_is_master(const fedfile *ff)
{
    /* Every master-side algorithm is run by tempo-master: the side is the rule, written once. */
    return ff && ff->algo.def && ff->algo.def->side == FEDFILE_SIDE_MASTER;
}

int64_t fedfile_master_horizon(const fedfile *ff)
{
    return ff->algo.needs & FEDFILE_NEEDS_PAST_END ? INT64_MAX : ff->algo.t_end;
}

/* 1 when the output published as cls.attr goes on the bus (the method's on_bus). */
static int on_bus(const fedfile *ff, const char *cls, const char *attr)
{
    const fedfile_algo_def *d = ff->algo.def;
    return d && d->on_bus && (ff->algo.needs & FEDFILE_NEEDS_BUS) &&
           d->on_bus(ff->algo.settings, cls, attr);
}

size_t fedfile_bus_flags(const fedfile *ff, size_t idx, unsigned char *out, unsigned char *in)
{
    const fedfile_fed *fd = &ff->feds[idx];
    size_t n = 0;
    for (size_t k = 0; out && k < fd->n_outputs; k++)
        n += out[k] = (unsigned char)on_bus(ff, fd->outputs[k].cls, fd->outputs[k].attr);
    for (size_t i = 0; in && i < fd->n_inputs; i++)
        n += in[i] = (unsigned char)(fd->inputs[i].source >= 0 &&
                                     on_bus(ff, fd->inputs[i].cls, fd->inputs[i].attr));
    return n;
}

int fedfile_bus_source(const fedfile *ff, size_t idx, size_t i, size_t *src, size_t *k)
{
    const fedfile_fed *fd = &ff->feds[idx];
    if (i >= fd->n_inputs || fd->inputs[i].source < 0) return -1;
    const fedfile_wire *in = &fd->inputs[i];
    if (!on_bus(ff, in->cls, in->attr)) return -1;
    const fedfile_fed *sf = &ff->feds[in->source];
    size_t n = 0;
    for (size_t o = 0; o < sf->n_outputs; o++) {
        const fedfile_wire *w = &sf->outputs[o];
        if (!strcmp(w->cls, in->cls) && !strcmp(w->attr, in->attr)) {
            *src = (size_t)in->source, *k = n;
            return 0;
        }
        n += on_bus(ff, w->cls, w->attr);
    }
    return -1;
}

int fedfile_master_links(const fedfile *ff, port_link **out, size_t *n, char *err, size_t errlen)
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
                     ff->path, i, fedfile_method_name(ff));
            return FEDFILE_ESCHEMA;
        }
        total += ff->feds[i].n_inputs;
    }
    port_link *c = calloc(total + 1, sizeof *c);
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
            c[k++] = (port_link){.to = i, .in = m, .from = (size_t)src, .out = (size_t)out_k};
        }
    }
    *out = c;
    *n = k;
    return FEDFILE_OK;
}
