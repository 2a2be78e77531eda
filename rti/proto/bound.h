/* The bound table of doc/time.md §2, written once: the (t, strict) pair, its order, the
 * saturating tick sum and the rows that depend only on a federate's own state. Pure code
 * (libc only), shared by the engine (rti/tm/tm.c, which adds the NER/NERA rows and the floor)
 * and by libtempo's local send check (federate/libtempo/client_time.c). The functions are
 * static inline: the engine calls them several times per request, and out of line they made a
 * TAR request cost about 100 ns instead of 60 (measured with bench_tm's TAR cycle).
 * Read doc/time.md §2 for the table; rti/tm/tm.h for how the engine uses it. */
#ifndef TEMPO_RTI_PROTO_BOUND_H
#define TEMPO_RTI_PROTO_BOUND_H

#include <stdbool.h>
#include <stdint.h>

/** Positive infinity in ticks (= TM_TIME_MAX = TP_TIME_MAX; tied by _Static_assert). */
#define BOUND_TIME_MAX INT64_MAX

/** A bound on time stamps: (t, false) = "ts >= t may still come", (t, true) = "only ts > t".
 *  Pairs compare lexicographically, non-strict below strict at equal t:
 *  (t, false) < (t, true) < (t + 1, false). Infinity is (BOUND_TIME_MAX, true). */
typedef struct bound_pair {
    int64_t t;   /* ticks */
    bool strict; /* true: only time stamps > t */
} bound_pair;

/** The request kinds the table distinguishes. Values equal enum wire_time_kind, tm_req and
 *  tp_request_kind (each tied to this by _Static_assert where it is declared or used). */
enum bound_req {
    BOUND_REQ_NONE = 0, /* granted state: no request pending */
    BOUND_REQ_TAR = 1,
    BOUND_REQ_TARA = 2,
    BOUND_REQ_NER = 3,
    BOUND_REQ_NERA = 4,
    BOUND_REQ_FQR = 5
};

/** a + b for b >= 0, saturating at BOUND_TIME_MAX. A negative b counts as 0: lookaheads are
 *  refused below 0 where they enter (tm_enable_regulation, tm_modify_lookahead), and a value
 *  from the wire must never abort the RTI (doc/robustness.md). Pure. */
static inline int64_t bound_time_add(int64_t a, int64_t b)
{
    if (b < 0) b = 0;
    if (a >= BOUND_TIME_MAX - b) return BOUND_TIME_MAX;
    return a + b;
}

/** The pair (t, strict), with every t = BOUND_TIME_MAX normalised to infinity (strict), so
 *  that infinity has one representation. Pure. */
static inline bound_pair bound_make(int64_t t, bool strict)
{
    bound_pair b = {t, t == BOUND_TIME_MAX ? true : strict};
    return b;
}

/** Three-way comparison in the pair order: <0, 0 or >0 as a is below, equal to or above b.
 *  (t, strict) is never folded into (t + 1, ns), so no grant depends on the tick length. */
static inline int bound_cmp(bound_pair a, bound_pair b)
{
    if (a.t != b.t) return a.t < b.t ? -1 : 1;
    if (a.strict != b.strict) return a.strict ? 1 : -1; /* non-strict sorts below strict */
    return 0;
}

/** The smaller of two pairs. Pure. */
static inline bound_pair bound_min(bound_pair a, bound_pair b)
{
    return bound_cmp(a, b) <= 0 ? a : b;
}

/** The greater of two pairs. Pure. */
static inline bound_pair bound_max(bound_pair a, bound_pair b)
{
    return bound_cmp(a, b) >= 0 ? a : b;
}

/** Does bound @p b allow a TSO message stamped @p ts, i.e. (ts, non-strict) >= b? Never at
 *  +inf: (BOUND_TIME_MAX, non-strict) is infinity itself (bound_make), so without this a
 *  federate granted +inf could send "at" the time it holds and reach a receiver's past
 *  (doc/time.md §2: a regulating federate never sends at +inf). Pure. */
static inline bool bound_admits(bound_pair b, int64_t ts)
{
    if (ts == BOUND_TIME_MAX) return false;
    return bound_cmp(bound_make(ts, false), b) >= 0;
}

/** Row "granted", L = 0: is the granted-state bound (T, strict) after a grant of kind
 *  @p granted? True after TAR, NER and FQR; false after TARA and NERA (and for
 *  BOUND_REQ_NONE, which stands for "regulation just enabled"). Pure. */
static inline bool bound_strict_after(enum bound_req granted)
{
    return granted == BOUND_REQ_TAR || granted == BOUND_REQ_NER || granted == BOUND_REQ_FQR;
}

/** The table row of a regulating federate at logical time @p T with lookahead @p L >= 0,
 *  pending request @p req for time @p R (ignored for BOUND_REQ_NONE), whose last grant
 *  left @p strict0 (bound_strict_after):
 *    granted (or FQR pending: FQR never waits)  L > 0: (T+L, ns); L = 0: (T, strict0)
 *    TAR(R) pending                             (R+L, strict when L = 0)
 *    TARA(R) pending                            (R+L, ns)
 *    NER(R) / NERA(R) pending                   the granted-state row: their own row depends
 *                                               on GALT and the queue (the engine computes
 *                                               it); since a bound never goes down this is a
 *                                               lower limit of it.
 *  The "a bound never goes down" floor is the caller's. Pure. */
static inline bound_pair bound_row(enum bound_req req, int64_t R, int64_t T, int64_t L,
                                   bool strict0)
{
    switch (req) {
    case BOUND_REQ_TAR: /* row "TAR(R) pending": R + L; strict when L = 0 */
        return bound_make(bound_time_add(R, L), L == 0);
    case BOUND_REQ_TARA: /* row "TARA(R) pending": R + L, non-strict */
        return bound_make(bound_time_add(R, L), false);
    default:
        /* rows "granted"; FQR keeps them while evaluated; NER/NERA: a lower limit (above) */
        if (L > 0) return bound_make(bound_time_add(T, L), false);
        return bound_make(T, strict0);
    }
}

#endif
