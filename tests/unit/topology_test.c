/* Unit tests of algorithms/topology.c: the Gauss-Seidel topology conditions of the Awais thesis
 * §4.3 / Algorithm 1 (as chosen in doc/algorithms/gauss-seidel.md), the execution order and levels,
 * role inference, and cycle detection. Each case draws its graph; "A -> B" means an output of A
 * is an input of B. */
#include "algorithms/topology.h"

#include "tests/check.h"

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

static char err[512];

static int plan(const char *const *names, int n, const topo_edge *e, int ne, const topo_role *roles,
                topo_plan **p)
{
    topo_graph g = {.n = n, .names = names, .n_edges = ne, .edges = e, .roles = roles};
    return topo_gs_plan(&g, p, err, sizeof err);
}

/* Lotka-Volterra split in two: X <-> Y. Both orders are valid; inference takes X (first). */
static void test_two_federates(void)
{
    static const char *const nm[] = {"X", "Y"};
    static const topo_edge e[] = {{0, 1}, {1, 0}};
    topo_plan *p = NULL;
    CHECK_INT_EQ(plan(nm, 2, e, 2, NULL, &p), TOPO_OK);
    CHECK(p != NULL, "plan expected");
    if (p) {
        CHECK_INT_EQ(p->source, 0);
        CHECK_INT_EQ(p->sink, 1);
        CHECK_INT_EQ(p->inferred, 1);
        CHECK_INT_EQ(p->candidates, 2);
        CHECK_INT_EQ(p->order[0], 0);
        CHECK_INT_EQ(p->order[1], 1);
        CHECK_INT_EQ(p->n_levels, 2);
        CHECK_INT_EQ(p->inputs[0], 0);
        CHECK_INT_EQ(p->inputs[1], 1);
        CHECK_INT_EQ(p->role[1], TOPO_ROLE_SINK);
    }
    topo_plan_free(p);
    /* roles given the other way round */
    static const topo_role r[] = {TOPO_ROLE_SINK, TOPO_ROLE_SOURCE};
    CHECK_INT_EQ(plan(nm, 2, e, 2, r, &p), TOPO_OK);
    if (p) {
        CHECK_INT_EQ(p->source, 1);
        CHECK_INT_EQ(p->sink, 0);
        CHECK_INT_EQ(p->inferred, 0);
        CHECK_INT_EQ(p->order[0], 1);
    }
    topo_plan_free(p);
}

/* Fig. 4.2-like, with a sibling edge C1 -> C2 and a doubled edge S => C1 (two variables):
 *
 *        +--> C1 ---+
 *   S ===+     |    +--> K --+
 *   ^    +--> C2 ---+        |
 *   +------------------------+
 */
static void test_fig42_with_sibling(void)
{
    static const char *const nm[] = {"S", "C1", "C2", "K"};
    static const topo_edge e[] = {{0, 1}, {0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3}, {3, 0}};
    static const topo_role r[] = {TOPO_ROLE_SOURCE, TOPO_ROLE_AUTO, TOPO_ROLE_COMMON,
                                  TOPO_ROLE_SINK};
    topo_plan *p = NULL;
    CHECK_INT_EQ(plan(nm, 4, e, N_OF(e), r, &p), TOPO_OK);
    CHECK(p != NULL, "plan expected: %s", err);
    if (!p) return;
    CHECK_INT_EQ(p->order[0], 0);
    CHECK_INT_EQ(p->order[1], 1);
    CHECK_INT_EQ(p->order[2], 2);
    CHECK_INT_EQ(p->order[3], 3);
    CHECK_INT_EQ(p->level[0], 0);
    CHECK_INT_EQ(p->level[1], 1);
    CHECK_INT_EQ(p->level[2], 2); /* after C1 because of the sibling edge */
    CHECK_INT_EQ(p->level[3], 3);
    CHECK_INT_EQ(p->n_levels, 4);
    CHECK_INT_EQ(p->inputs[1], 1); /* two edges from S, one federate */
    CHECK_INT_EQ(p->inputs[2], 2); /* S and C1 */
    CHECK_INT_EQ(p->inputs[3], 2);
    CHECK_INT_EQ(p->inputs[0], 0); /* the sink's values are from the previous step */
    CHECK_INT_EQ(p->role[1], TOPO_ROLE_COMMON);
    topo_plan_free(p);
}

/* Parallel commons: S -> A, S -> B, A -> K, B -> K, K -> S: A and B share level 1. */
static void test_parallel_commons(void)
{
    static const char *const nm[] = {"K", "B", "A", "S"};
    static const topo_edge e[] = {{3, 2}, {3, 1}, {2, 0}, {1, 0}, {0, 3}};
    topo_plan *p = NULL;
    CHECK_INT_EQ(plan(nm, 4, e, N_OF(e), NULL, &p), TOPO_OK);
    if (!p) {
        CHECK(0, "plan expected: %s", err);
        return;
    }
    CHECK_INT_EQ(p->source, 3);
    CHECK_INT_EQ(p->sink, 0);
    CHECK_INT_EQ(p->candidates, 1);
    CHECK_INT_EQ(p->level[1], 1);
    CHECK_INT_EQ(p->level[2], 1);
    CHECK_INT_EQ(p->n_levels, 3);
    CHECK_INT_EQ(p->order[0], 3);
    CHECK_INT_EQ(p->order[1], 1); /* smallest index first among the ready ones */
    CHECK_INT_EQ(p->order[2], 2);
    CHECK_INT_EQ(p->order[3], 0);
    topo_plan_free(p);
}

static void expect_refused(const char *const *nm, int n, const topo_edge *e, int ne,
                           const topo_role *r, const char *has1, const char *has2)
{
    topo_plan *p = (topo_plan *)1;
    CHECK_INT_EQ(plan(nm, n, e, ne, r, &p), TOPO_EREFUSED);
    CHECK(p == NULL, "no plan on refusal");
    CHECK_STR_HAS(err, has1);
    if (has2) CHECK_STR_HAS(err, has2);
}

static void test_refusals(void)
{
    static const topo_role SAK[] = {TOPO_ROLE_SOURCE, TOPO_ROLE_COMMON, TOPO_ROLE_SINK};
    static const char *const sak[] = {"S", "A", "K"};
    /* a common feeds the source: S -> A -> K -> S, A -> S */
    static const topo_edge e1[] = {{0, 1}, {1, 2}, {2, 0}, {1, 0}};
    expect_refused(sak, 3, e1, 4, SAK, "\"A\" feeds the source \"S\"", "only the sink");
    /* the sink feeds a common: S -> A -> K -> S, K -> A */
    static const topo_edge e2[] = {{0, 1}, {1, 2}, {2, 0}, {2, 1}};
    expect_refused(sak, 3, e2, 4, SAK, "the sink \"K\" feeds \"A\"", NULL);
    /* child -> parent among commons: S -> A -> B -> K -> S, B -> A */
    static const char *const sabk[] = {"S", "A", "B", "K"};
    static const topo_role SABK[] = {TOPO_ROLE_SOURCE, TOPO_ROLE_COMMON, TOPO_ROLE_COMMON,
                                     TOPO_ROLE_SINK};
    static const topo_edge e3[] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {2, 1}};
    expect_refused(sabk, 4, e3, 5, SABK, "cycle \"A\" -> \"B\" -> \"A\"", "deadlock");
    /* a second leaf: S -> A, S -> K, K -> S (A's outputs go nowhere) */
    static const topo_edge e4[] = {{0, 1}, {0, 2}, {2, 0}};
    expect_refused(sak, 3, e4, 3, SAK, "\"A\" feeds no common and not the sink \"K\"", "only leaf");
    /* a common without input: S -> K, K -> S, A -> K */
    static const topo_edge e5[] = {{0, 2}, {2, 0}, {1, 2}};
    expect_refused(sak, 3, e5, 3, SAK, "\"A\" (a common) has no input", NULL);
    /* a self-loop is a cycle: S -> A -> K -> S, A -> A */
    static const topo_edge e6[] = {{0, 1}, {1, 2}, {2, 0}, {1, 1}};
    expect_refused(sak, 3, e6, 4, SAK, "cycle \"A\" -> \"A\"", NULL);
    /* two sinks, two sources, a missing sink */
    static const topo_role two_sinks[] = {TOPO_ROLE_SOURCE, TOPO_ROLE_SINK, TOPO_ROLE_SINK};
    expect_refused(sak, 3, e1, 4, two_sinks, "two sinks, \"A\" and \"K\"", NULL);
    static const topo_role two_src[] = {TOPO_ROLE_SOURCE, TOPO_ROLE_SOURCE, TOPO_ROLE_SINK};
    expect_refused(sak, 3, e1, 4, two_src, "two sources, \"S\" and \"A\"", NULL);
    static const topo_role no_sink[] = {TOPO_ROLE_SOURCE, TOPO_ROLE_AUTO, TOPO_ROLE_AUTO};
    expect_refused(sak, 3, e1, 4, no_sink, "no sink", NULL);
    /* a single federate */
    static const char *const one[] = {"Solo"};
    expect_refused(one, 1, NULL, 0, NULL, "at least two", "\"Solo\"");
    /* Fig. 4.3-like, no pair works: S1 -> S2 -> S3 -> S1, S2 <-> S4, S3 -> S4. The message
     * gives the reason of the pair that passed the most conditions (first such in order). */
    static const char *const f43[] = {"S1", "S2", "S3", "S4"};
    static const topo_edge e7[] = {{0, 1}, {1, 2}, {2, 0}, {1, 3}, {3, 1}, {2, 3}};
    expect_refused(f43, 4, e7, 6, NULL, "no federate can be the source", "with source \"S1\"");
}

static void test_malformed(void)
{
    static const topo_edge bad[] = {{0, 5}};
    topo_graph g = {.n = 2, .n_edges = 1, .edges = bad};
    topo_plan *p = NULL;
    CHECK_INT_EQ(topo_gs_plan(&g, &p, err, sizeof err), TOPO_EINVAL);
    CHECK_STR_HAS(err, "edge 0 (0 -> 5)");
    topo_graph g0 = {.n = 0};
    CHECK_INT_EQ(topo_gs_plan(&g0, &p, err, sizeof err), TOPO_EINVAL);
    topo_plan_free(NULL);
    CHECK_STR_EQ(topo_role_name(TOPO_ROLE_COMMON), "common");
}

/* Pure feed-forward chain S -> A -> K (no feedback): the source needs no input. */
static void test_chain(void)
{
    static const char *const nm[] = {"S", "A", "K"};
    static const topo_edge e[] = {{0, 1}, {1, 2}};
    topo_plan *p = NULL;
    CHECK_INT_EQ(plan(nm, 3, e, 2, NULL, &p), TOPO_OK);
    if (p) {
        CHECK_INT_EQ(p->source, 0);
        CHECK_INT_EQ(p->sink, 2);
        CHECK_INT_EQ(p->candidates, 1);
        CHECK_INT_EQ(p->n_levels, 3);
    }
    topo_plan_free(p);
    /* A long ring 0 -> 1 -> ... -> 299 -> 0: inferred source 0, sink 299, one level each. */
    enum { R = 300 };
    static topo_edge ring[R];
    for (int i = 0; i < R; i++)
        ring[i] = (topo_edge){i, (i + 1) % R};
    topo_graph g = {.n = R, .n_edges = R, .edges = ring};
    p = NULL;
    CHECK_INT_EQ(topo_gs_plan(&g, &p, err, sizeof err), TOPO_OK);
    if (p) {
        CHECK_INT_EQ(p->source, 0);
        CHECK_INT_EQ(p->sink, R - 1);
        CHECK_INT_EQ(p->candidates, R); /* any federate can start the ring */
        CHECK_INT_EQ(p->n_levels, R);
        CHECK_INT_EQ(p->order[R - 1], R - 1);
    }
    topo_plan_free(p);
}

/* ---- randomized comparison with an independent oracle ------------------------------------
 * The oracle states the six conditions of topology.h with a reachability matrix (Warshall,
 * O(n^3)) instead of a DFS, and the plan is checked against its definition: a topological order
 * of the graph without the edges into the source, levels = longest path, inputs = distinct
 * upstream federates. */
enum { RN = 7 };

static int oracle_ok(int n, const int adj[RN][RN], int s, int k)
{
    if (s == k) return 0;
    for (int u = 0; u < n; u++) {
        if (adj[u][s] && u != k) return 0; /* (2) */
        if (adj[k][u] && u != s) return 0; /* (3) */
    }
    int r[RN][RN]; /* reachability without edges into s */
    for (int u = 0; u < n; u++)
        for (int v = 0; v < n; v++)
            r[u][v] = adj[u][v] && v != s;
    for (int m = 0; m < n; m++)
        for (int u = 0; u < n; u++)
            for (int v = 0; v < n; v++)
                r[u][v] |= r[u][m] && r[m][v];
    for (int v = 0; v < n; v++) {
        if (r[v][v]) return 0; /* (4) */
        int in = 0, out = 0;
        for (int u = 0; u < n; u++) {
            in |= adj[u][v] && v != s;
            out |= adj[v][u] && u != s;
        }
        if (v != s && !in) return 0;  /* (5) */
        if (v != k && !out) return 0; /* (6) */
    }
    return 1;
}

static unsigned rng_state = 12345u;
static unsigned rnd(unsigned m)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 16) % m;
}

static void check_plan(int n, const int adj[RN][RN], const topo_plan *p)
{
    int pos[RN];
    for (int i = 0; i < n; i++)
        pos[p->order[i]] = i;
    CHECK_INT_EQ(p->order[0], p->source);
    CHECK_INT_EQ(p->order[n - 1], p->sink);
    for (int v = 0; v < n; v++) {
        int want_level = 0, want_inputs = 0;
        for (int u = 0; u < n; u++) {
            if (!adj[u][v] || v == p->source) continue;
            CHECK(pos[u] < pos[v], "edge %d -> %d against the order", u, v);
            if (p->level[u] + 1 > want_level) want_level = p->level[u] + 1;
            want_inputs++;
        }
        CHECK_INT_EQ(p->level[v], want_level);
        CHECK_INT_EQ(p->inputs[v], want_inputs);
    }
}

static void test_random_against_oracle(void)
{
    int agree = 0, accepted = 0;
    for (int iter = 0; iter < 3000; iter++) {
        int n = 2 + (int)rnd(RN - 1), adj[RN][RN] = {{0}};
        topo_edge e[RN * RN * 2];
        int ne = 0, density = 15 + (int)rnd(40);
        for (int u = 0; u < n; u++)
            for (int v = 0; v < n; v++)
                if ((int)rnd(100) < density) {
                    adj[u][v] = 1;
                    e[ne++] = (topo_edge){u, v};
                    if (rnd(4) == 0)
                        e[ne++] = (topo_edge){u, v}; /* a second variable on the same pair */
                }
        topo_role roles[RN] = {0};
        int given = rnd(2), s = (int)rnd((unsigned)n), k = (int)rnd((unsigned)n);
        if (given && s != k) {
            roles[s] = TOPO_ROLE_SOURCE;
            roles[k] = TOPO_ROLE_SINK;
        } else {
            given = 0;
        }
        topo_graph g = {.n = n, .n_edges = ne, .edges = e, .roles = given ? roles : NULL};
        topo_plan *p = NULL;
        int rc = topo_gs_plan(&g, &p, err, sizeof err);
        int want = 0, ws = -1, wk = -1, count = 0;
        if (given) {
            want = oracle_ok(n, adj, s, k);
            ws = s, wk = k;
        } else {
            for (int a = 0; a < n; a++)
                for (int b = 0; b < n; b++)
                    if (oracle_ok(n, adj, a, b) && count++ == 0) ws = a, wk = b;
            want = count > 0;
        }
        agree += (rc == TOPO_OK) == want;
        CHECK((rc == TOPO_OK) == want, "iteration %d: topo_gs_plan %d, oracle %d (%s)", iter, rc,
              want, err);
        if (rc == TOPO_OK && p) {
            accepted++;
            CHECK_INT_EQ(p->source, ws);
            CHECK_INT_EQ(p->sink, wk);
            if (!given) CHECK_INT_EQ(p->candidates, count);
            check_plan(n, adj, p);
        } else {
            CHECK(err[0] != '\0', "a refusal has a reason");
        }
        topo_plan_free(p);
    }
    CHECK(accepted > 100, "the random graphs should include accepted ones (%d)", accepted);
    CHECK_INT_EQ(agree, 3000);
}

/* topo_find_cycle on a variable-level graph: the loop a.y -> b.u -> b.y -> a.u -> a.y is
 * named in edge order; without the feedthrough edge b.u -> b.y there is none. */
static void test_find_cycle(void)
{
    const char *const nm[] = {"a.y", "a.u", "b.y", "b.u"};
    topo_edge loop[] = {{0, 3}, {3, 2}, {2, 1}, {1, 0}};
    topo_graph g = {.n = 4, .names = nm, .n_edges = 4, .edges = loop};
    CHECK_INT_EQ(topo_find_cycle(&g, err, sizeof err), TOPO_EREFUSED);
    CHECK_STR_EQ(err, "cycle \"a.y\" -> \"b.u\" -> \"b.y\" -> \"a.u\" -> \"a.y\"");
    topo_edge open_[] = {{0, 3}, {2, 1}, {1, 0}};
    g.edges = open_, g.n_edges = 3;
    CHECK_INT_EQ(topo_find_cycle(&g, err, sizeof err), TOPO_OK);
    CHECK_STR_EQ(err, "");
    topo_edge self[] = {{1, 1}};
    g.edges = self, g.n_edges = 1;
    CHECK_INT_EQ(topo_find_cycle(&g, err, sizeof err), TOPO_EREFUSED);
    topo_edge bad[] = {{0, 7}};
    g.edges = bad;
    CHECK_INT_EQ(topo_find_cycle(&g, err, sizeof err), TOPO_EINVAL);
}

int main(void)
{
    test_two_federates();
    test_fig42_with_sibling();
    test_parallel_commons();
    test_refusals();
    test_malformed();
    test_chain();
    test_find_cycle();
    test_random_against_oracle();
    return check_summary();
}
