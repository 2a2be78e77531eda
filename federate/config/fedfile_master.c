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
