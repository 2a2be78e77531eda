/* The wait-for rule: whom a federate waits for, and the federate to look at at the end of
 * the chain. One rule for every reader of the engine's state: tempo-log explain (over a
 * re-run of a log) and the RTI's live view (over the running engine). Serves doc/time.md
 * ("Who waits for whom") and doc/live.md. Read rti/tm/tm.h (tm_status) first. */
#include "rti/tm/tm.h"

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

tm_fed tm_look_at(const tm_state *st, const tm_status *v, size_t n, size_t *waiting, bool *cycle)
{
    tm_fed best = TM_NO_FED;
    size_t best_n = 0;
    *cycle = false;
    for (size_t i = 0; i < n; i++) {
        if (!tm_waits(&v[i])) continue;
        bool cyc;
        tm_fed r = tm_wait_root(st, v, n, v[i].fed, &cyc);
        if (cyc) *cycle = true;
        if (r == TM_NO_FED) continue;
        size_t cnt = 0;
        for (size_t j = 0; j < n; j++) {
            bool c2;
            if (tm_waits(&v[j]) && tm_wait_root(st, v, n, v[j].fed, &c2) == r) cnt++;
        }
        if (cnt > best_n) best = r, best_n = cnt;
    }
    if (waiting) *waiting = best_n;
    return best;
}
