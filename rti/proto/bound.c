/* The bound table of doc/time.md §2 (see rti/proto/bound.h): one copy for the engine and the
 * client. Read rti/tm/tm.c next for the rows that need GALT (NER/NERA) and the floor. */
#include "rti/proto/bound.h"

#include <assert.h>

int64_t bound_time_add(int64_t a, int64_t b)
{
    assert(b >= 0);
    if (a >= BOUND_TIME_MAX - b) return BOUND_TIME_MAX;
    return a + b;
}

bound_pair bound_make(int64_t t, bool strict)
{
    bound_pair b = {t, t == BOUND_TIME_MAX ? true : strict};
    return b;
}

/* (t, strict) is never folded into (t + 1, ns), so no grant depends on the tick length. */
int bound_cmp(bound_pair a, bound_pair b)
{
    if (a.t != b.t) return a.t < b.t ? -1 : 1;
    if (a.strict != b.strict) return a.strict ? 1 : -1; /* non-strict sorts below strict */
    return 0;
}

bound_pair bound_min(bound_pair a, bound_pair b)
{
    return bound_cmp(a, b) <= 0 ? a : b;
}

bound_pair bound_max(bound_pair a, bound_pair b)
{
    return bound_cmp(a, b) >= 0 ? a : b;
}

bool bound_admits(bound_pair b, int64_t ts)
{
    return bound_cmp(bound_make(ts, false), b) >= 0;
}

bool bound_strict_after(enum bound_req granted)
{
    return granted == BOUND_REQ_TAR || granted == BOUND_REQ_NER || granted == BOUND_REQ_FQR;
}

bound_pair bound_row(enum bound_req req, int64_t R, int64_t T, int64_t L, bool strict0)
{
    switch (req) {
    case BOUND_REQ_TAR: /* row "TAR(R) pending": R + L; strict when L = 0 */
        return bound_make(bound_time_add(R, L), L == 0);
    case BOUND_REQ_TARA: /* row "TARA(R) pending": R + L, non-strict */
        return bound_make(bound_time_add(R, L), false);
    default:
        /* rows "granted"; FQR keeps them while evaluated; NER/NERA: a lower limit (header) */
        if (L > 0) return bound_make(bound_time_add(T, L), false);
        return bound_make(T, strict0);
    }
}
