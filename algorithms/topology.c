/* Gauss-Seidel topology check and execution order (the Awais thesis §4.3, §4.3.2 Algorithm 1,
 * Figs 4.2, 4.3, 4.18; doc/references.md (Awais)), and generic cycle detection.
 * doc/algorithms/README.md. Doc: doc/algorithms/gauss-seidel.md. Next: federate/config/fedfile.c
 * builds the graphs.
 *
 * Model: nodes are federates, an edge A -> B says an output of A is an input of B (the
 * coupling matrix A-bar of the Awais thesis eq. 4.4, nonzero entry = edge). One macro step of
 * Algorithm 1 passes a token: the source integrates T_n -> T_{n+1} with the sink's values at T_n
 * and sends ⟨Update, T_{n+1}⟩; each common waits until it holds one update from every upstream
 * federate ("|Q| < subscriptions", lines 18 and 45), integrates and sends its own; the sink
 * does the same and sends ⟨Step Forward, T_{n+1}⟩ to the source.
 *
 * The thesis states the conditions loosely and in two places that disagree:
 *   §4.3:   unique source and sink; without the sink -> source edge a DAG in which "all
 *           source -> sink paths have the same number of intermediate nodes";
 *   §4.3.2: a tree rooted at the source whose only cycle is sink -> source, the sink the only
 *           leaf, sibling edges allowed, child -> parent edges break it, and a common feeding
 *           the source passes a second token.
 * Sibling edges already make paths of different lengths, so the two cannot both hold. We check
 * what Algorithm 1 needs in order to neither deadlock nor mix steps (conditions (1)-(6) in
 * topology.h); they accept DAGs that a strict tree would refuse (diamonds), and:
 *   - a cycle among commons/sink (4) deadlocks: each waits for the other's update of the step;
 *   - a node without upstream input (5) would have no step time to integrate to;
 *   - a node whose outputs never reach the sink (6) may still be working on step n when the
 *     source starts step n+1, so its queue would mix two steps (the thesis' "only leaf");
 *   - (2) and (3) are the thesis' own rules (no common feeding the source; the sink feeds only
 *     the source), kept even though (3) is implied by (4)+(6), for a clearer message.
 * "Subscriptions" counts distinct upstream federates, since one federate sends one attribute
 * update per step however many of its variables are wired.
 * Cost: O(n + e) per (source, sink) pair checked; role inference skips in O(1) the pairs whose
 * source has an input from anyone but the sink, so a ring of n federates costs O(n * (n + e)).
 */
#include "algorithms/topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *topo_role_name(topo_role r)
{
    switch (r) {
    case TOPO_ROLE_AUTO:
        return "auto";
    case TOPO_ROLE_SOURCE:
        return "source";
    case TOPO_ROLE_COMMON:
        return "common";
    case TOPO_ROLE_SINK:
        return "sink";
    }
    return "?";
}

/* Adjacency in compressed rows: out-edges of v are adj[start[v] .. start[v+1]). */
typedef struct csr {
    int n;
    int *start; /* n + 1 offsets */
    int *adj;   /* n_edges targets */
} csr;

static void csr_free(csr *c)
{
    free(c->start);
    free(c->adj);
}

static int csr_build(const topo_graph *g, csr *c)
{
    c->n = g->n;
    c->start = calloc((size_t)g->n + 1, sizeof *c->start);
    c->adj = malloc(((size_t)g->n_edges + 1) * sizeof *c->adj);
    int *fill = calloc((size_t)g->n + 1, sizeof *fill);
    if (!c->start || !c->adj || !fill) {
        free(fill);
        csr_free(c);
        return TOPO_ENOMEM;
    }
    for (int i = 0; i < g->n_edges; i++)
        c->start[g->edges[i].from + 1]++;
    for (int v = 0; v < g->n; v++)
        c->start[v + 1] += c->start[v];
    for (int i = 0; i < g->n_edges; i++) {
        int u = g->edges[i].from;
        c->adj[c->start[u] + fill[u]++] = g->edges[i].to;
    }
    free(fill);
    return TOPO_OK;
}

static int graph_check(const topo_graph *g, char *err, size_t errlen)
{
    if (!g || g->n < 1 || g->n_edges < 0 || (g->n_edges > 0 && !g->edges)) {
        snprintf(err, errlen, "topology: malformed graph (no nodes or missing edge array)");
        return TOPO_EINVAL;
    }
    for (int i = 0; i < g->n_edges; i++) {
        const topo_edge *e = &g->edges[i];
        if (e->from < 0 || e->from >= g->n || e->to < 0 || e->to >= g->n) {
            snprintf(err, errlen, "topology: edge %d (%d -> %d) names a node outside 0..%d", i,
                     e->from, e->to, g->n - 1);
            return TOPO_EINVAL;
        }
    }
    return TOPO_OK;
}

/* Name of node i for messages; buf holds "#i" when the graph has no names. */
static const char *nm(const topo_graph *g, int i, char buf[24])
{
    if (g->names && g->names[i]) return g->names[i];
    snprintf(buf, 24, "#%d", i);
    return buf;
}

/* Append to err (bounded). */
static void append(char *err, size_t errlen, const char *s)
{
    size_t used = strnlen(err, errlen);
    if (used + 1 < errlen) snprintf(err + used, errlen - used, "%s", s);
}

/* Iterative DFS for a cycle, ignoring edges into `skip_into` (-1: none). Fills cyc/len.
 * Scratch: 3 arrays of n ints. O(n + e). Returns 1 found, 0 none, TOPO_ENOMEM. */
static int dfs_cycle(const csr *c, int skip_into, int *cyc, int *len)
{
    int n = c->n, found = 0;
    int *color = calloc((size_t)n, sizeof *color); /* 0 white, 1 on stack, 2 done */
    int *parent = malloc((size_t)n * sizeof *parent);
    int *next = malloc((size_t)n * sizeof *next); /* next out-edge index to try */
    int *stack = malloc((size_t)n * sizeof *stack);
    if (!color || !parent || !next || !stack) {
        free(color), free(parent), free(next), free(stack);
        return TOPO_ENOMEM;
    }
    *len = 0;
    for (int root = 0; root < n && !found; root++) {
        if (color[root]) continue;
        int sp = 0;
        stack[sp++] = root;
        color[root] = 1;
        parent[root] = -1;
        next[root] = c->start[root];
        while (sp > 0 && !found) {
            int u = stack[sp - 1];
            if (next[u] == c->start[u + 1]) {
                color[u] = 2;
                sp--;
                continue;
            }
            int v = c->adj[next[u]++];
            if (v == skip_into) continue;
            if (color[v] == 0) {
                color[v] = 1;
                parent[v] = u;
                next[v] = c->start[v];
                stack[sp++] = v;
            } else if (color[v] == 1) { /* back edge u -> v: cycle v .. u -> v */
                int k = 0;
                for (int w = u; w != v; w = parent[w])
                    cyc[k++] = w;
                cyc[k++] = v;
                for (int i = 0; i < k / 2; i++) { /* reverse into edge order v -> .. -> u */
                    int t = cyc[i];
                    cyc[i] = cyc[k - 1 - i];
                    cyc[k - 1 - i] = t;
                }
                *len = k;
                found = 1;
            }
        }
    }
    free(color), free(parent), free(next), free(stack);
    return found;
}

static void format_cycle(const topo_graph *g, const int *cyc, int len, char *err, size_t errlen)
{
    char b[24];
    snprintf(err, errlen, "cycle ");
    for (int i = 0; i < len; i++) {
        append(err, errlen, "\"");
        append(err, errlen, nm(g, cyc[i], b));
        append(err, errlen, "\" -> ");
    }
    append(err, errlen, "\"");
    append(err, errlen, nm(g, cyc[0], b));
    append(err, errlen, "\"");
}

int topo_find_cycle(const topo_graph *g, char *err, size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    char scratch[8];
    if (!err || !errlen) err = scratch, errlen = sizeof scratch;
    int rc = graph_check(g, err, errlen);
    if (rc != TOPO_OK) return rc;
    csr c;
    if (csr_build(g, &c) != TOPO_OK) return TOPO_ENOMEM;
    int *cyc = malloc((size_t)g->n * sizeof *cyc), len = 0;
    rc = cyc ? dfs_cycle(&c, -1, cyc, &len) : TOPO_ENOMEM;
    if (rc == 1) format_cycle(g, cyc, len, err, errlen);
    free(cyc);
    csr_free(&c);
    return rc == 1 ? TOPO_EREFUSED : rc < 0 ? TOPO_ENOMEM : TOPO_OK;
}

/* ---- Gauss-Seidel ------------------------------------------------------------------------ */

/* Scratch for one (source, sink) check, sized once per topo_gs_plan call. */
typedef struct gs_work {
    int *cyc;    /* n: cycle found by (4) */
    int *indeg;  /* n: in-degree without edges into the source */
    int *outdeg; /* n: out-degree without edges into the source */
    int *uniq;   /* n: the only in-neighbour of a node, -1 none, -2 several (role inference) */
} gs_work;

/* Check conditions (2)-(6) of topology.h for source s and sink k. Returns 0 when they hold,
 * else the number of the failed condition (the higher, the further the pair got), with err
 * naming the federates; or TOPO_ENOMEM (negative). */
static int gs_check_pair(const topo_graph *g, const csr *c, int s, int k, gs_work *w, char *err,
                         size_t errlen)
{
    char b1[24], b2[24], b3[24];
    /* (2) only the sink feeds the source; (3) the sink feeds only the source. */
    for (int i = 0; i < g->n_edges; i++) {
        const topo_edge *e = &g->edges[i];
        if (e->to == s && e->from != k) {
            snprintf(err, errlen,
                     "federate \"%s\" feeds the source \"%s\"; only the sink may (it would pass "
                     "a second token, the Awais thesis §4.3.2)",
                     nm(g, e->from, b1), nm(g, s, b2));
            return 2;
        }
    }
    for (int i = 0; i < g->n_edges; i++) {
        const topo_edge *e = &g->edges[i];
        if (e->from == k && e->to != s) {
            snprintf(err, errlen,
                     "the sink \"%s\" feeds \"%s\"; the sink may feed only the source \"%s\"",
                     nm(g, k, b1), nm(g, e->to, b2), nm(g, s, b3));
            return 3;
        }
    }
    /* (4) acyclic once the edges into the source are removed. */
    int l = 0, rc = dfs_cycle(c, s, w->cyc, &l);
    if (rc < 0) return rc;
    if (rc == 1) {
        char cy[256];
        format_cycle(g, w->cyc, l, cy, sizeof cy);
        snprintf(err, errlen,
                 "%s does not pass through the source \"%s\"; Gauss-Seidel would deadlock (each "
                 "waits for the other's update of the step)",
                 cy, nm(g, s, b1));
        return 4;
    }
    memset(w->indeg, 0, (size_t)g->n * sizeof *w->indeg);
    memset(w->outdeg, 0, (size_t)g->n * sizeof *w->outdeg);
    for (int i = 0; i < g->n_edges; i++) {
        if (g->edges[i].to == s) continue;
        w->indeg[g->edges[i].to]++;
        w->outdeg[g->edges[i].from]++;
    }
    /* (5) every node but the source gets an input of the step. */
    for (int v = 0; v < g->n; v++) {
        if (v != s && w->indeg[v] == 0) {
            snprintf(err, errlen,
                     "federate \"%s\" (%s) has no input from the source \"%s\" or a common, so "
                     "no update tells it when to step",
                     nm(g, v, b1), v == k ? "the sink" : "a common", nm(g, s, b2));
            return 5;
        }
    }
    /* (6) the sink is the only leaf. */
    for (int v = 0; v < g->n; v++) {
        if (v != k && w->outdeg[v] == 0) {
            snprintf(err, errlen,
                     "federate \"%s\" feeds no common and not the sink \"%s\"; the sink must be "
                     "the only leaf (the Awais thesis §4.3.2), else steps would overlap",
                     nm(g, v, b1), nm(g, k, b2));
            return 6;
        }
    }
    return 0;
}

void topo_plan_free(topo_plan *p)
{
    if (!p) return;
    free(p->role);
    free(p->order);
    free(p->level);
    free(p->inputs);
    free(p);
}

/* Fill order, level, inputs of p for the checked pair (source p->source). O(n^2 + n*e) with a
 * smallest-index-first Kahn order, so the order is deterministic. */
static int gs_fill_plan(const topo_graph *g, const csr *c, topo_plan *p)
{
    int n = g->n, s = p->source;
    int *indeg = calloc((size_t)n, sizeof *indeg);
    int *done = calloc((size_t)n, sizeof *done);
    int *seen = malloc((size_t)n * sizeof *seen); /* upstream dedup: last node that marked it */
    if (!indeg || !done || !seen) {
        free(indeg), free(done), free(seen);
        return TOPO_ENOMEM;
    }
    for (int i = 0; i < g->n_edges; i++)
        if (g->edges[i].to != s) indeg[g->edges[i].to]++;
    for (int v = 0; v < n; v++) {
        p->level[v] = 0;
        p->inputs[v] = 0;
        seen[v] = -1;
    }
    /* inputs: distinct upstream federates per node, edges into the source excluded. */
    for (int u = 0; u < n; u++) {
        for (int j = c->start[u]; j < c->start[u + 1]; j++) {
            int v = c->adj[j];
            if (v != s && seen[v] != u) {
                seen[v] = u;
                p->inputs[v]++;
            }
        }
    }
    for (int pos = 0; pos < n; pos++) {
        int u = -1;
        for (int v = 0; v < n && u < 0; v++)
            if (!done[v] && indeg[v] == 0) u = v;
        /* The checks guarantee a DAG whose only root is the source: u always exists. */
        if (u < 0) {
            free(indeg), free(done), free(seen);
            return TOPO_EINVAL;
        }
        done[u] = 1;
        p->order[pos] = u;
        for (int j = c->start[u]; j < c->start[u + 1]; j++) {
            int v = c->adj[j];
            if (v == s) continue;
            indeg[v]--;
            if (p->level[v] < p->level[u] + 1) p->level[v] = p->level[u] + 1;
        }
    }
    p->n_levels = p->level[p->sink] + 1;
    free(indeg), free(done), free(seen);
    return TOPO_OK;
}

/* Roles given in the graph: exactly one source and one sink, AUTO = common. Returns the pair
 * in *s, *k, or TOPO_EREFUSED with the reason. 0 roles given at all: *s = *k = -1. */
static int given_roles(const topo_graph *g, int *s, int *k, char *err, size_t errlen)
{
    char b1[24], b2[24];
    int ns = 0, nk = 0, any = 0;
    *s = *k = -1;
    for (int v = 0; g->roles && v < g->n; v++) {
        if (g->roles[v] != TOPO_ROLE_AUTO) any = 1;
        if (g->roles[v] == TOPO_ROLE_SOURCE) {
            if (ns++)
                return snprintf(err, errlen,
                                "two sources, \"%s\" and \"%s\"; Gauss-Seidel needs "
                                "exactly one",
                                nm(g, *s, b1), nm(g, v, b2)),
                       TOPO_EREFUSED;
            *s = v;
        } else if (g->roles[v] == TOPO_ROLE_SINK) {
            if (nk++)
                return snprintf(err, errlen,
                                "two sinks, \"%s\" and \"%s\"; Gauss-Seidel needs "
                                "exactly one",
                                nm(g, *k, b1), nm(g, v, b2)),
                       TOPO_EREFUSED;
            *k = v;
        }
    }
    if (!any) return TOPO_OK;
    if (ns == 0 || nk == 0)
        return snprintf(err, errlen,
                        "roles are given but no %s is; Gauss-Seidel needs exactly "
                        "one source and one sink",
                        ns == 0 ? "source" : "sink"),
               TOPO_EREFUSED;
    return TOPO_OK;
}

/* Role inference: the first (source, sink) pair in node order that passes every condition;
 * *valid counts the pairs that pass. A source's in-edges may come only from the sink
 * (condition 2), so with w->uniq a pair failing (2) is skipped in O(1); it is checked in full
 * only while no message exists yet. Cost: O(n * (n + e)) plus O(n + e) per pair tried in
 * full. On refusal err gives the reason of the pair that passed the most conditions. */
static int gs_infer(const topo_graph *g, const csr *c, gs_work *w, int *s, int *k, int *valid,
                    char *err, size_t errlen)
{
    char b1[24], tmp[512];
    int best = -1;
    for (int v = 0; v < g->n; v++)
        w->uniq[v] = -1;
    for (int i = 0; i < g->n_edges; i++) {
        int *u = &w->uniq[g->edges[i].to];
        *u = *u == -1 || *u == g->edges[i].from ? g->edges[i].from : -2;
    }
    *valid = 0;
    for (int si = 0; si < g->n; si++) {
        for (int ki = 0; ki < g->n; ki++) {
            if (si == ki) continue;
            int fails2 = w->uniq[si] == -2 || (w->uniq[si] >= 0 && w->uniq[si] != ki);
            if (fails2 && best >= 0) continue; /* it fails (2); a message already exists */
            int r = gs_check_pair(g, c, si, ki, w, tmp, sizeof tmp);
            if (r < 0) return r;
            if (r == 0) {
                if ((*valid)++ == 0) *s = si, *k = ki;
            } else if (r > best && *valid == 0) {
                best = r;
                snprintf(err, errlen,
                         "no federate can be the source with another as the "
                         "sink; e.g. with source \"%s\": %s",
                         nm(g, si, b1), tmp);
            }
        }
    }
    if (!*valid) return TOPO_EREFUSED;
    if (err && errlen) err[0] = '\0';
    return TOPO_OK;
}

int topo_gs_plan(const topo_graph *g, topo_plan **out, char *err, size_t errlen)
{
    char b1[24];
    *out = NULL;
    if (err && errlen) err[0] = '\0';
    int rc = graph_check(g, err, errlen);
    if (rc != TOPO_OK) return rc;
    if (g->n < 2) {
        snprintf(err, errlen,
                 "Gauss-Seidel needs at least two federates (a source and a sink); "
                 "the federation has only \"%s\"",
                 nm(g, 0, b1));
        return TOPO_EREFUSED;
    }
    int s, k;
    rc = given_roles(g, &s, &k, err, errlen);
    if (rc != TOPO_OK) return rc;
    csr c;
    if (csr_build(g, &c) != TOPO_OK) return TOPO_ENOMEM;
    gs_work w = {malloc((size_t)g->n * sizeof(int)), malloc((size_t)g->n * sizeof(int)),
                 malloc((size_t)g->n * sizeof(int)), malloc((size_t)g->n * sizeof(int))};
    topo_plan *p = calloc(1, sizeof *p);
    if (p) {
        p->role = malloc((size_t)g->n * sizeof *p->role);
        p->order = malloc((size_t)g->n * sizeof *p->order);
        p->level = malloc((size_t)g->n * sizeof *p->level);
        p->inputs = malloc((size_t)g->n * sizeof *p->inputs);
    }
    if (!w.cyc || !w.indeg || !w.outdeg || !w.uniq || !p || !p->role || !p->order || !p->level ||
        !p->inputs) {
        rc = TOPO_ENOMEM;
        goto fail;
    }
    p->n = g->n;
    if (s >= 0) {     /* roles given */
        if (s == k) { /* cannot happen: one node has one role */
            rc = TOPO_EINVAL;
            goto fail;
        }
        rc = gs_check_pair(g, &c, s, k, &w, err, errlen);
        if (rc != 0) {
            rc = rc < 0 ? rc : TOPO_EREFUSED;
            goto fail;
        }
    } else {
        int valid = 0;
        rc = gs_infer(g, &c, &w, &s, &k, &valid, err, errlen);
        if (rc != TOPO_OK) goto fail;
        p->inferred = 1;
        p->candidates = valid;
    }
    p->source = s;
    p->sink = k;
    for (int v = 0; v < g->n; v++)
        p->role[v] = v == s ? TOPO_ROLE_SOURCE : v == k ? TOPO_ROLE_SINK : TOPO_ROLE_COMMON;
    rc = gs_fill_plan(g, &c, p);
    if (rc != TOPO_OK) goto fail;
    free(w.cyc), free(w.indeg), free(w.outdeg), free(w.uniq);
    csr_free(&c);
    *out = p;
    return TOPO_OK;
fail:
    topo_plan_free(p);
    free(w.cyc), free(w.indeg), free(w.outdeg), free(w.uniq);
    csr_free(&c);
    return rc;
}
