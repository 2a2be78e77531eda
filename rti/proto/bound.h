/* The bound table of doc/time.md §2, written once: the (t, strict) pair, its order, the
 * saturating tick sum and the rows that depend only on a federate's own state. Pure code
 * (libc only), shared by the engine (rti/tm/tm.c, which adds the NER/NERA rows and the floor)
 * and by libtempo's local send check (federate/libtempo/client_time.c).
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

/** a + b for b >= 0, saturating at BOUND_TIME_MAX. Pure. */
int64_t bound_time_add(int64_t a, int64_t b);

/** The pair (t, strict), with every t = BOUND_TIME_MAX normalised to infinity (strict), so
 *  that infinity has one representation. Pure. */
bound_pair bound_make(int64_t t, bool strict);

/** Three-way comparison in the pair order. @return <0, 0 or >0 as a is below, equal to or
 *  above b. Pure. */
int bound_cmp(bound_pair a, bound_pair b);

/** The smaller / greater of two pairs. Pure. */
bound_pair bound_min(bound_pair a, bound_pair b);
bound_pair bound_max(bound_pair a, bound_pair b);

/** Does bound @p b allow a TSO message stamped @p ts, i.e. (ts, non-strict) >= b? Pure. */
bool bound_admits(bound_pair b, int64_t ts);

/** Row "granted", L = 0: is the granted-state bound (T, strict) after a grant of kind
 *  @p granted? True after TAR, NER and FQR; false after TARA and NERA (and for
 *  BOUND_REQ_NONE, which stands for "regulation just enabled"). Pure. */
bool bound_strict_after(enum bound_req granted);

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
bound_pair bound_row(enum bound_req req, int64_t R, int64_t T, int64_t L, bool strict0);

#endif
