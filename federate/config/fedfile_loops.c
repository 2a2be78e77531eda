/* Algebraic loops of a federation: the variable-level graph of its wiring and its FMUs'
 * ModelStructure (fedfile.h, fedfile_algebraic_loop), searched for a cycle by
 * algorithms/topology.c. doc/algorithms/jacobi.md "Algebraic loops" says what a loop means
 * for each method. Read federate/run/tempo_run_main.c (check_fmus, its caller) next. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/topology.h"
#include "federate/config/fedfile.h"

/* Nodes: per federate its outputs, then its inputs, in file order; off[i] is federate i's
 * first node. Names "FED.var" in one block. */
typedef struct loop_graph {
    size_t *off;
    char **names;
    topo_edge *edges;
    int n, n_edges;
} loop_graph;

static void graph_free(loop_graph *g)
{
    if (g->names)
        for (int i = 0; i < g->n; i++)
            free(g->names[i]);
    free(g->names);
    free(g->off);
    free(g->edges);
}

/* Whether output o of federate i depends directly on its input k, by its FMU's description.
 * Where nothing is declared (a federate without a description: a program or a Python model;
 * an output listed without dependencies) it may: 1, or 0 when only declared dependencies
 * count (declared_only). */
static int feeds(const fedfile_fed *fd, const fmu_md *md, size_t o, size_t k, int declared_only)
{
    if (!md) return !declared_only;
    long vo = fmu_md_find(md, fd->outputs[o].var), vk = fmu_md_find(md, fd->inputs[k].var);
    if (vo < 0 || vk < 0) return !declared_only; /* fedfile_check_fmu refuses such a file */
    if (!fmu_md_output_depends(md, (size_t)vo, (size_t)vk)) return 0;
    if (!declared_only) return 1;
    for (size_t i = 0; i < md->n_outputs; i++) /* listed, with k among its dependencies? */
        if ((size_t)md->outputs[i].index == (size_t)vo + 1) return md->outputs[i].has_deps;
    return 0;
}

/* Output of federate src that an input names (cls.attr), or -1. */
static long source_output(const fedfile_fed *src, const fedfile_wire *in)
{
    for (size_t o = 0; o < src->n_outputs; o++)
        if (!strcmp(src->outputs[o].cls, in->cls) && !strcmp(src->outputs[o].attr, in->attr))
            return (long)o;
    return -1;
}

static int build(const fedfile *ff, fmu_md *const *mds, int declared_only, loop_graph *g)
{
    size_t n = 0, ne = 0;
    g->off = calloc(ff->n_feds + 1, sizeof *g->off);
    if (!g->off) return FEDFILE_ENOMEM;
    for (size_t i = 0; i < ff->n_feds; i++) {
        const fedfile_fed *fd = &ff->feds[i];
        g->off[i] = n;
        n += fd->n_outputs + fd->n_inputs;
        ne += fd->n_inputs * (1 + fd->n_outputs);
    }
    g->off[ff->n_feds] = n;
    if (n > INT_MAX / 2 || ne > INT_MAX / 2) return FEDFILE_EUSAGE;
    g->names = calloc(n + 1, sizeof *g->names);
    g->edges = calloc(ne + 1, sizeof *g->edges);
    if (!g->names || !g->edges) return FEDFILE_ENOMEM;
    g->n = (int)n;
    for (size_t i = 0; i < ff->n_feds; i++) {
        const fedfile_fed *fd = &ff->feds[i];
        const fmu_md *md = mds ? mds[i] : NULL;
        size_t in0 = g->off[i] + fd->n_outputs;
        for (size_t o = 0; o < fd->n_outputs + fd->n_inputs; o++) {
            const char *var =
                o < fd->n_outputs ? fd->outputs[o].var : fd->inputs[o - fd->n_outputs].var;
            size_t len = strlen(fd->name) + strlen(var) + 2;
            if (!(g->names[g->off[i] + o] = malloc(len))) return FEDFILE_ENOMEM;
            snprintf(g->names[g->off[i] + o], len, "%s.%s", fd->name, var);
        }
        for (size_t k = 0; k < fd->n_inputs; k++) {
            const fedfile_wire *in = &fd->inputs[k];
            if (in->source < 0 || (size_t)in->source >= ff->n_feds) continue;
            long o = source_output(&ff->feds[in->source], in);
            if (o >= 0) /* the connection: that output feeds this input */
                g->edges[g->n_edges++] =
                    (topo_edge){(int)(g->off[in->source] + (size_t)o), (int)(in0 + k)};
            for (size_t p = 0; p < fd->n_outputs; p++) /* direct feedthrough */
                if (feeds(fd, md, p, k, declared_only))
                    g->edges[g->n_edges++] = (topo_edge){(int)(in0 + k), (int)(g->off[i] + p)};
        }
    }
    return FEDFILE_OK;
}

int fedfile_algebraic_loop(const fedfile *ff, fmu_md *const *mds, int declared_only, char *loop,
                           size_t looplen)
{
    if (!ff || !loop || !looplen) return FEDFILE_EUSAGE;
    loop[0] = '\0';
    loop_graph g = {0};
    int rc = build(ff, mds, declared_only, &g);
    if (rc == FEDFILE_OK && g.n > 0) {
        topo_graph tg = {g.n, (const char *const *)g.names, g.n_edges, g.edges, NULL};
        int t = topo_find_cycle(&tg, loop, looplen);
        rc = t == TOPO_EREFUSED ? 1 : t == TOPO_ENOMEM ? FEDFILE_ENOMEM : t ? FEDFILE_EUSAGE : 0;
    }
    graph_free(&g);
    return rc;
}

size_t fedfile_no_feedthrough(const fedfile *ff, fmu_md *const *mds, int *none)
{
    size_t count = 0;
    for (size_t i = 0; ff && i < ff->n_feds; i++) {
        const fedfile_fed *fd = &ff->feds[i];
        int any = 0;
        for (size_t k = 0; k < fd->n_inputs && !any; k++)
            for (size_t p = 0; p < fd->n_outputs && !any; p++)
                any = feeds(fd, mds ? mds[i] : NULL, p, k, 0);
        if (none) none[i] = !any;
        count += !any;
    }
    return count;
}
