/* The wait-for rule: whom a federate waits for, and the federate to look at at the end of
 * the chain. One rule for every reader of the engine's state: tempo-log explain (over a
 * re-run of a log) and the RTI's live view (over the running engine). Serves doc/time.md
 * ("Who waits for whom") and doc/live.md. Read rti/tm/tm.h (tm_status) first. */
#include "rti/tm/tm.h"

#include <stdlib.h>
#include <string.h>

size_t tm_waits_for(const tm_state *st, const tm_status *s, tm_fed *out, size_t cap)
{
    if (s->stalled) return tm_stall_waits_for(st, s->fed, out, cap);
    if (!s->blocked || s->req == TM_REQ_NONE) return 0;
    /* A NER chain is held through the federate whose fixed bound the minimum is built from;
     * otherwise the holder of the GALT. */
    tm_fed next = s->galt_root ? s->galt_root : s->galt_holder;
    if (next == TM_NO_FED) return 0;
    if (cap > 0) out[0] = next;
    return 1;
}

static const tm_status *find(const tm_status *v, size_t n, tm_fed h)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].fed == h) return &v[i];
    return NULL;
}

bool tm_waits(const tm_status *s)
{
    return s->stalled || (s->blocked && s->req != TM_REQ_NONE);
}

tm_fed tm_wait_root(const tm_state *st, const tm_status *v, size_t n, tm_fed from, bool *cycle)
{
    tm_fed cur = from;
    *cycle = false;
    /* A chain visits each federate at most once; n + 1 hops without an end is a cycle. */
    for (size_t hop = 0; hop <= n; hop++) {
        const tm_status *s = find(v, n, cur);
        if (!s) return TM_NO_FED;
        tm_fed next;
        /* The end: a federate that does not wait, or waits for nobody (a poller every other
         * federate has sent to since: its progress is in its own hands). */
        if (!tm_waits(s) || tm_waits_for(st, s, &next, 1) == 0) return hop ? cur : TM_NO_FED;
        cur = next;
    }
    *cycle = true;
    return TM_NO_FED;
}

static int cmp_fed(const void *a, const void *b)
{
    tm_fed x = *(const tm_fed *)a, y = *(const tm_fed *)b;
    return x < y ? -1 : x > y;
}

/* How many of the k sorted roots equal r (two binary searches). */
static size_t count_root(const tm_fed *sorted, size_t k, tm_fed r)
{
    size_t lo = 0, hi = k;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (sorted[m] < r)
            lo = m + 1;
        else
            hi = m;
    }
    size_t first = lo;
    hi = k;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (sorted[m] <= r)
            lo = m + 1;
        else
            hi = m;
    }
    return lo - first;
}

/* One root per waiting federate, counted through a sorted copy: n log n after the root walks,
 * so that the live view of a federation of thousands of federates does not hold the RTI's
 * loop (doc/live.md "Bounds and cost"). As before, the first waiting federate (in v's order)
 * whose root gathers the most is the one whose root is chosen. */
tm_fed tm_look_at(const tm_state *st, const tm_status *v, size_t n, size_t *waiting, bool *cycle)
{
    tm_fed best = TM_NO_FED;
    size_t best_n = 0, k = 0;
    *cycle = false;
    if (waiting) *waiting = 0;
    tm_fed *roots = n ? malloc(2 * n * sizeof *roots) : NULL;
    if (!roots) return TM_NO_FED;
    tm_fed *sorted = roots + n;
    for (size_t i = 0; i < n; i++) {
        if (!tm_waits(&v[i])) continue;
        bool cyc;
        tm_fed r = tm_wait_root(st, v, n, v[i].fed, &cyc);
        if (cyc) *cycle = true;
        if (r != TM_NO_FED) roots[k++] = r;
    }
    memcpy(sorted, roots, k * sizeof *roots);
    qsort(sorted, k, sizeof *sorted, cmp_fed);
    for (size_t i = 0; i < k; i++) {
        size_t cnt = count_root(sorted, k, roots[i]);
        if (cnt > best_n) best = roots[i], best_n = cnt;
    }
    free(roots);
    if (waiting) *waiting = best_n;
    return best;
}
