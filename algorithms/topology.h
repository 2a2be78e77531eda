/* Topology checks for the coupling algorithms: what the Gauss-Seidel scheme of the Awais thesis
 * §4.3 (Algorithm 1) can run, its execution order, and cycle (algebraic loop) detection.
 *
 * Serves doc/algorithms/README.md (Gauss-Seidel with FQR and a "step forward" token). Conditions
 * and our choices: algorithms/topology.c and doc/algorithms/gauss-seidel.md. Read
 * federate/config/fedfile.h next (it builds these graphs from a federation file). Pure C: libc and
 * libm only.
 */
#ifndef TEMPO_ALGORITHMS_TOPOLOGY_H
#define TEMPO_ALGORITHMS_TOPOLOGY_H

#include <stddef.h>

/* Status codes: 0 success, negative errors. */
enum {
    TOPO_OK = 0,
    TOPO_EINVAL = -1,   /* malformed graph: node index out of range, n < 1, NULL arrays */
    TOPO_EREFUSED = -2, /* a valid graph the algorithm cannot run; err gives the reason */
    TOPO_ENOMEM = -3,   /* allocation failed */
};

/* Role of a federate in Gauss-Seidel (the Awais thesis Algorithm 1). */
typedef enum topo_role {
    TOPO_ROLE_AUTO = 0, /* not given: topo_gs_plan infers it */
    TOPO_ROLE_SOURCE,   /* unique; integrates first on each ⟨Step Forward⟩ */
    TOPO_ROLE_COMMON,   /* any number; integrates once all its inputs for the step arrived */
    TOPO_ROLE_SINK,     /* unique; integrates last and sends ⟨Step Forward⟩ to the source */
} topo_role;

/* One coupling: an output of federate `from` is an input of federate `to`. Several edges
 * between the same pair (several variables) are allowed. */
typedef struct topo_edge {
    int from; /* publisher, node index 0..n-1 */
    int to;   /* subscriber, node index 0..n-1 */
} topo_edge;

/* A coupling graph. Nothing here is owned: the caller keeps the arrays alive during a call. */
typedef struct topo_graph {
    int n;                    /* nodes (federates or variables), >= 1 */
    const char *const *names; /* n names for messages; NULL: nodes are called "#i" */
    int n_edges;              /* edges, >= 0 */
    const topo_edge *edges;   /* n_edges edges; may be NULL when n_edges is 0 */
    const topo_role *roles;   /* n roles for topo_gs_plan; NULL: all TOPO_ROLE_AUTO */
} topo_graph;

/* What topo_gs_plan produces. Owned by the caller; release with topo_plan_free. */
typedef struct topo_plan {
    int n;           /* nodes, as in the graph */
    int source;      /* node index of the source */
    int sink;        /* node index of the sink */
    int inferred;    /* 1 when the roles were inferred (graph had no roles) */
    int candidates;  /* when inferred: how many (source, sink) pairs were valid; the first in
                        node order was taken */
    topo_role *role; /* n roles, all set (no AUTO) */
    int *order;      /* n node indices: an execution order, source first, sink last */
    int *level;      /* n levels by node index: longest path from the source without the
                        sink->source edges; nodes of one level can integrate in parallel */
    int n_levels;    /* 1 + level of the sink */
    int *inputs;     /* n: per node, the number of edges into it from the same step (the
                        "subscriptions" count of Algorithm 1 lines 18/45; 0 for the source) */
} topo_plan;

/**
 * Check that Gauss-Seidel (the Awais thesis §4.3, Algorithm 1) can run on the graph and build its
 * plan. Roles: when g->roles is NULL or all AUTO, the first (source, sink) pair in node order that
 * passes every check is taken; otherwise exactly one SOURCE and one SINK must be given and
 * AUTO means COMMON. The conditions (doc/algorithms/gauss-seidel.md):
 *  (1) at least two nodes; exactly one source and one sink, distinct;
 *  (2) only the sink feeds the source;
 *  (3) the sink feeds no one but the source;
 *  (4) without the sink->source edges the graph has no cycle (no self-loop either);
 *  (5) every node but the source has an input from the step's chain;
 *  (6) every node but the sink has an output to the chain: the sink is the only leaf.
 * @param g      the graph, not NULL
 * @param out    out: the plan (caller frees with topo_plan_free), not NULL; NULL on error
 * @param err    caller-owned buffer; on TOPO_EREFUSED it names the federates and the
 *               condition, e.g. "federate \"C\" feeds the source \"A\"; only the sink may"
 * @param errlen size of err
 * @return TOPO_OK, TOPO_EINVAL, TOPO_EREFUSED, TOPO_ENOMEM.
 */
int topo_gs_plan(const topo_graph *g, topo_plan **out, char *err, size_t errlen);

/**
 * Look for a cycle in any graph, such as the variable-level graph of a federation (nodes are
 * wired inputs and outputs; edges are the connections and each FMU's direct input -> output
 * dependencies from its ModelStructure): there a cycle is an algebraic loop
 * (doc/algorithms/jacobi.md "Algebraic loops"). Depth-first, O(n + e).
 * @param g      the graph, not NULL (roles are ignored)
 * @param err    caller-owned buffer; on TOPO_EREFUSED the cycle, each node named, e.g.
 *               "cycle \"A.y\" -> \"B.u\" -> \"B.y\" -> \"A.u\" -> \"A.y\""
 * @param errlen size of err
 * @return TOPO_OK (no cycle), TOPO_EREFUSED (a cycle, in err), TOPO_EINVAL, TOPO_ENOMEM.
 */
int topo_find_cycle(const topo_graph *g, char *err, size_t errlen);

/**
 * Release a plan. Accepts NULL.
 * @param p plan from topo_gs_plan, or NULL
 */
void topo_plan_free(topo_plan *p);

/**
 * Name of a role ("auto", "source", "common", "sink"). Never NULL.
 * @param r role
 * @return a static string.
 */
const char *topo_role_name(topo_role r);

#endif
