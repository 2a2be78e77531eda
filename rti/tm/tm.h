/* Time management engine: bounds, GALT, grants and time-stamp-order delivery for one
 * federation (doc/time.md–§5, normative; doc/contributing.md §3 "time management is pure code").
 * It applies events (join, resign, enable/disable, requests, sends) to a state struct and
 * reports its decisions through a sink; it never touches sockets, the clock or libevent.
 * Read doc/time.md for the rules with worked examples, then rti/tm/tm.c. */
#ifndef TEMPO_RTI_TM_H
#define TEMPO_RTI_TM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rti/proto/bound.h"
#include "rti/proto/buf.h"
#include "rti/proto/delivery.h"

/* ---- time and bounds ------------------------------------------------------------------ */

/** Logical time in ticks (doc/time.md). */
typedef int64_t tm_time;

/** Positive infinity. Sums saturate here: T + L never overflows (tm_time_add). */
#define TM_TIME_MAX INT64_MAX

/** Federate handle as the server assigns it; 0 means "none" (for example "no federate holds
 *  this GALT"). Handles index a table inside the engine, so they must be below
 *  TM_MAX_HANDLE; the server hands them out from 1 upwards. */
typedef uint32_t tm_fed;
#define TM_NO_FED     0u
#define TM_MAX_HANDLE (1u << 20)

/** A bound on time stamps (doc/time.md): (t, false) = "ts >= t may still come", (t, true) =
 *  "only ts > t". Pairs compare lexicographically with non-strict below strict at equal t:
 *  (t, false) < (t, true) < (t + 1, false). Infinity is (TM_TIME_MAX, true), the greatest
 *  pair; the engine normalises every bound whose t is TM_TIME_MAX to that. The pair and the
 *  bound table are rti/proto/bound.h, shared with libtempo's local check. */
typedef bound_pair tm_bound;

/** a + b for b >= 0, saturating at TM_TIME_MAX (lookahead sums never overflow);
 *  bound_time_add. */
tm_time tm_time_add(tm_time a, tm_time b);

/** Three-way comparison of two bounds in the pair order above (bound_cmp).
 *  @return <0, 0 or >0 as a is below, equal to or above b. */
int tm_bound_cmp(tm_bound a, tm_bound b);

/* ---- requests and decisions ----------------------------------------------------------- */

/** Kind of a time-advance request. The values equal enum bound_req, enum wire_time_kind and
 *  tp_request_kind (tied by _Static_assert in rti/tm/tm.c and federate/libtempo/client_time.c)
 *  so the server can pass them through. */
typedef enum tm_req {
    TM_REQ_NONE = 0, /* no request pending: the federate is in the granted state */
    TM_REQ_TAR = 1,  /* time advance request */
    TM_REQ_TARA = 2, /* time advance request available */
    TM_REQ_NER = 3,  /* next event request */
    TM_REQ_NERA = 4, /* next event request available */
    TM_REQ_FQR = 5   /* flush queue request */
} tm_req;

/** What a decision says. Every decision is also a line for the federation log. */
typedef enum tm_kind {
    TM_D_GRANT = 1,       /* fed is granted `time`; `req` is the request granted */
    TM_D_DELIVER = 2,     /* deliver message `token` (stamped `time`, from `sender`) to fed;
                             `tso` says TSO or RO. Deliveries for a grant precede it. */
    TM_D_REG_ENABLED = 3, /* time regulation of fed is enabled at its logical time `time` */
    TM_D_CON_ENABLED = 4, /* time constrained of fed is enabled at its logical time `time` */
    TM_D_DISCARD = 5,     /* message `token` queued for fed is dropped because fed resigned */
    TM_D_REFUSED = 6      /* a call was refused (`code`, `reason` = the error text); the same
                             status is returned by the call, so a caller that handles return
                             codes may ignore this decision (it exists for the log) */
} tm_kind;

/** Which row of the request table (doc/time.md) a grant follows: what its reason says.
 *  Values are stored in the federation log (doc/log.md): never renumber, only append. */
typedef enum tm_grant_row {
    TM_GROW_NONE = 0,    /* not a grant (every other decision kind) */
    TM_GROW_AT_ONCE = 1, /* the federate is not time-constrained: granted its request at once */
    TM_GROW_TAR = 2,     /* TAR/TARA(t) granted t: GALT above t (TAR) or at or above (TARA) */
    TM_GROW_NER = 3,     /* NER/NERA(t) granted g = min(smallest queued ts, t) against GALT */
    TM_GROW_FQR = 4      /* FQR(t) granted max(T, min(t, GALT)) after flushing its queue */
} tm_grant_row;

/** What the reason of a GRANT states, as fields: a reader can word the reason later
 *  (tm_grant_text) instead of the engine formatting it at once (the federation log stores
 *  these). */
typedef struct tm_grant_facts {
    tm_grant_row row; /* the request-table row followed (never TM_GROW_NONE) */
    tm_time asked;    /* the requested time t */
    tm_time prev;     /* the federate's logical time T before the grant (FQR's max(T, ..)) */
    tm_bound galt;    /* the GALT the request was checked against */
    tm_fed holder;    /* whose bound holds that GALT (TM_NO_FED: nobody); computed only while
                         reasons are on (tm_set_reasons), as it costs O(N) after fast-path
                         requests; TM_NO_FED while they are off */
    bool queued;      /* NER/NERA: the granted time is the smallest queued time stamp */
} tm_grant_facts;

/** One decision. Handed to the sink by pointer; the struct and `reason` are valid only
 *  during that sink call (copy what you keep). */
typedef struct tm_decision {
    tm_kind kind;       /* what happened */
    tm_fed fed;         /* federate concerned (the receiver for DELIVER/DISCARD) */
    tm_time time;       /* granted / enabled time, or the message time stamp (DELIVER:
                           TM_NO_TIME for an RO message sent without a time stamp) */
    tm_req req;         /* GRANT: the request kind granted; otherwise TM_REQ_NONE */
    bool tso;           /* DELIVER: true for time-stamp order, false for receive order */
    tm_fed sender;      /* DELIVER/DISCARD: the sending federate */
    uint64_t seq;       /* DELIVER/DISCARD: the sender's send sequence number (from 1) */
    uint64_t token;     /* DELIVER/DISCARD: the server's opaque message token */
    int code;           /* REFUSED: the TM_E* status */
    const char *reason; /* why, in words: "TAR(10): GALT (12, strict) > 10, held by B"; never
                           NULL; "" while reasons are off (tm_set_reasons) */
    delivery_rule rule; /* DELIVER: the delivery rule (rti/proto/delivery.h), whose text
                           delivery_rule_text() ends `reason` ("ts <= t for TAR(t)"), set even
                           while reasons are off; DELIVERY_NONE for the other kinds */
    const tm_grant_facts *grant; /* GRANT: the facts of its reason, set even while reasons
                           are off (valid during the sink call only); NULL for other kinds */
} tm_decision;

/** Word the reason of a GRANT decision from its facts, exactly as the engine words it while
 *  grant reasons are on: "TAR(10): GALT (12, strict) > 10, held by B".
 *  @param buf          output, NUL-terminated, truncated to cap - 1 bytes (cap > 0)
 *  @param d            a decision; only kind GRANT with facts (d->grant) has a text (others
 *                      give "")
 *  @param fed_name     name of d->fed (said by TM_GROW_AT_ONCE); NULL reads "nobody"
 *  @param holder_name  name of d->grant->holder; NULL reads "nobody"
 *  @return bytes written, NUL excluded. Allocates nothing. */
size_t tm_grant_text(char *buf, size_t cap, const tm_decision *d, const char *fed_name,
                     const char *holder_name);

/** "No time stamp": a receive-order send (tm_send) and its DELIVER decision. Same value as
 *  WIRE_TIME_NONE and TP_NO_TIME (tied by _Static_assert). */
#define TM_NO_TIME INT64_MIN

/** Where decisions go. Called synchronously, in order, from inside the tm_* call that made
 *  them; it must not call back into the same tm_state. */
typedef void (*tm_sink)(void *ctx, const tm_decision *d);

/* ---- status codes --------------------------------------------------------------------- */

/** Status codes: 0 on success, negative on error. On error the state is unchanged and the
 *  error buffer names the federate, the time and the rule at fault. */
enum {
    TM_OK = 0,
    TM_EUNKNOWN = -1,    /* unknown federate handle (or handle 0 / >= TM_MAX_HANDLE) */
    TM_EEXISTS = -2,     /* join: the handle is already joined */
    TM_ETIME = -3,       /* request time below the federate's logical time, or a bad time */
    TM_EPENDING = -4,    /* a time request is already pending (or an enable is pending) */
    TM_EBOUND = -5,      /* TSO send stamped below the sender's bound */
    TM_EENABLED = -6,    /* enabling regulation/constrained that is already enabled/pending */
    TM_ENOTENABLED = -7, /* disabling (or modifying lookahead) when not enabled */
    TM_ELOOKAHEAD = -8,  /* negative lookahead */
    TM_ENOMEM = -9,      /* allocation failed (state unchanged) */
    TM_EINVAL = -10      /* bad argument (NULL pointer, bad request kind, ...) */
};

/** Name of a status code ("TM_EBOUND"); "TM_E?" for an unknown code. Static string. */
const char *tm_strerror(int code);

/** Recommended size of the caller's error buffers. */
#define TM_ERR_LEN 256

/* ---- the state ------------------------------------------------------------------------ */

/** One federation's time-management state (opaque). */
typedef struct tm_state tm_state;

/** Create an empty federation state.
 *  @param out   receives the new state (caller owns it; free with tm_free). Not NULL.
 *  @param sink  where decisions go; NULL drops them (queries still work).
 *  @param ctx   passed to sink.
 *  @param err   error buffer (may be NULL), errlen its size.
 *  @return TM_OK, TM_EINVAL (out NULL) or TM_ENOMEM.
 *  @see tm_free */
int tm_new(tm_state **out, tm_sink sink, void *ctx, char *err, size_t errlen);

/** Free the state and every queued message node. Tokens still queued are not reported
 *  (call tm_resign for each federate first if the server must free their payloads).
 *  Accepts NULL. @see tm_new */
void tm_free(tm_state *st);

/** Turn the reason texts of decisions on or off (on after tm_new). Formatting them costs
 *  about as much as the rest of a request, so a server that neither logs nor records them
 *  turns them off. While off, every decision's `reason` is "" (never NULL); decisions,
 *  return codes, error buffers and queries are unchanged. Cost: O(1). */
void tm_set_reasons(tm_state *st, bool on);

/** Turn the reason texts of DELIVER decisions on or off, within tm_set_reasons (on after
 *  tm_new). Deliveries are most decisions; a server whose only reader of their reasons is the
 *  federation log, which stores the `rule` as a code, turns them off. While off, a DELIVER's
 *  `reason` is "" and its `rule` is still set. Cost: O(1). */
void tm_set_delivery_reasons(tm_state *st, bool on);

/** Turn the reason texts of GRANT decisions on or off, within tm_set_reasons (on after
 *  tm_new). The federation log stores a grant's facts (tm_grant_facts) and words them when
 *  read (tm_grant_text), so a server logging only there turns them off. While off, a GRANT's
 *  `reason` is "" and its facts are still set, `holder` included as long as tm_set_reasons
 *  is on. Cost: O(1). */
void tm_set_grant_reasons(tm_state *st, bool on);

/** Test mode (check C10 of doc/master.md): order TSO messages with equal time stamps from
 *  different senders by a keyed hash of the sender handle instead of the handle, so that each
 *  seed gives another order of ties between senders; one sender's messages keep their send
 *  order. seed 0 turns it off (the tie rule of doc/time.md). Set it before any message is
 *  queued. Cost: O(1); the delivery order stays deterministic for a seed. */
void tm_set_tie_shuffle(tm_state *st, uint64_t seed);

/* ---- events: each returns TM_OK or a TM_E* code; decisions go to the sink. ------------- */

/** A federate joins: logical time 0, neither regulating nor constrained, no request.
 *  Allocates its record (the only allocation besides queue growth).
 *  @param fed   handle, 1 <= fed < TM_MAX_HANDLE, not already joined.
 *  @param name  used in reasons and errors (copied, truncated to 63 bytes); NULL = "fed<N>".
 *  @return TM_OK, TM_EUNKNOWN (bad handle), TM_EEXISTS, TM_ENOMEM.
 *  @see tm_resign */
int tm_join(tm_state *st, tm_fed fed, const char *name, char *err, size_t errlen);

/** A federate resigns (or dies): its pending request and bound vanish, each message still
 *  queued for it is reported as TM_D_DISCARD, and the others are re-evaluated (this may
 *  grant federates that waited on it). Messages it sent that are queued for others stay.
 *  @return TM_OK or TM_EUNKNOWN. */
int tm_resign(tm_state *st, tm_fed fed, char *err, size_t errlen);

/** Enable time regulation with lookahead L >= 0. Confirmed at once by TM_D_REG_ENABLED at
 *  the federate's current logical time T (doc/time.md: enabling mid-run keeps T); its bound
 *  starts at max(T + L, the largest promise already made to a constrained federate, each
 *  federate's promise being the greatest of all its grants made: TAR(T) then TARA(T) keeps
 *  (T, strict)). Accepted while the federate's own constrained enabling is pending.
 *  @return TM_OK, TM_EUNKNOWN, TM_ELOOKAHEAD, TM_EENABLED (already regulating),
 *          TM_EPENDING (a time request is pending). */
int tm_enable_regulation(tm_state *st, tm_fed fed, tm_time lookahead, char *err, size_t errlen);

/** Disable time regulation: the bound vanishes (others' GALT may rise and grant).
 *  @return TM_OK, TM_EUNKNOWN, TM_ENOTENABLED. */
int tm_disable_regulation(tm_state *st, tm_fed fed, char *err, size_t errlen);

/** Change the lookahead of a regulating federate. The bound never goes down: a smaller L
 *  takes effect only as the federate's time advances.
 *  @return TM_OK, TM_EUNKNOWN, TM_ENOTENABLED (not regulating), TM_ELOOKAHEAD (L < 0). */
int tm_modify_lookahead(tm_state *st, tm_fed fed, tm_time lookahead, char *err, size_t errlen);

/** Ask to become time constrained. Completes (TM_D_CON_ENABLED, possibly within this call)
 *  once GALT >= T non-strict; until then messages to the federate are receive-order and
 *  its requests are refused with TM_EPENDING.
 *  @return TM_OK, TM_EUNKNOWN, TM_EENABLED (constrained or already pending),
 *          TM_EPENDING (a time request is pending). */
int tm_enable_constrained(tm_state *st, tm_fed fed, char *err, size_t errlen);

/** Stop being time constrained (also cancels a pending enable). Messages still queued for
 *  the federate are delivered at once, in order, as receive-order; a pending request is
 *  then granted at once (a non-constrained federate is granted any request at once).
 *  @return TM_OK, TM_EUNKNOWN, TM_ENOTENABLED. */
int tm_disable_constrained(tm_state *st, tm_fed fed, char *err, size_t errlen);

/** A time request TAR/TARA/NER/NERA/FQR(t) (doc/time.md delivery/grant table). The grant
 *  and the deliveries before it come as decisions, in this call if they are already due
 *  (always for FQR and for a federate that is not constrained), otherwise from a later event.
 *  @param kind  TM_REQ_TAR ... TM_REQ_FQR.
 *  @param t     requested time, T <= t <= TM_TIME_MAX (t = T is legal: TAR(T) closes an
 *               instant opened by TARA(T)).
 *  @return TM_OK, TM_EUNKNOWN, TM_EINVAL (kind), TM_ETIME (t < T), TM_EPENDING (a request
 *          or a constrained-enable is pending). */
int tm_request(tm_state *st, tm_fed fed, tm_req kind, tm_time t, char *err, size_t errlen);

/** A message send with one or more receivers (doc/time.md: TSO/RO). The message is TSO only
 *  when ts != TM_NO_TIME and the sender is regulating; then for each receiver that is
 *  constrained it is queued at the receiver in the order (ts, sender handle, sender's send
 *  sequence) and delivered per the table, and for each receiver that is not constrained it is
 *  delivered at once as RO. Otherwise it is RO for every receiver, delivered at once. A TSO
 *  send is checked against the sender's bound (the pending request's bound if one is
 *  pending). The sender's sequence number counts this call (one number for all receivers).
 *  The token appears in exactly one DELIVER or DISCARD decision per receiver.
 *  @param ts         time stamp, or TM_NO_TIME for receive order.
 *  @param receivers  n joined federate handles (the sender itself is allowed), not owned.
 *  @param token      the server's handle on the payload, returned in decisions.
 *  @return TM_OK, TM_EUNKNOWN (sender or a receiver), TM_EBOUND (ts below the bound),
 *          TM_ENOMEM (queue growth failed: nothing queued), TM_EINVAL (receivers NULL with
 *          n > 0). */
int tm_send(tm_state *st, tm_fed sender, tm_time ts, const tm_fed *receivers, size_t n,
            uint64_t token, char *err, size_t errlen);

/* ---- queries (pure: no decisions) ----------------------------------------------------- */

/** One federate's time state: the "who blocks whom" line. */
typedef struct tm_status {
    tm_fed fed;               /* handle */
    const char *name;         /* as given at join; valid until the federate resigns */
    tm_time time;             /* logical time (last grant, 0 at join) */
    bool regulating;          /* time regulation enabled */
    bool constrained;         /* time constrained enabled */
    bool constrained_pending; /* tm_enable_constrained called, not yet complete */
    tm_time lookahead;        /* ticks; 0 when not regulating */
    tm_req req;               /* pending request kind, TM_REQ_NONE if granted state */
    tm_time req_time;         /* requested time, TM_NO_TIME if none */
    tm_bound bound;           /* bound on what it may still send; infinity when not regulating */
    tm_bound galt;            /* min of the others' bounds; infinity when nobody else regulates */
    tm_fed galt_holder;       /* the federate whose bound is that minimum, TM_NO_FED if none */
    tm_fed galt_root;         /* for NER chains: the federate whose fixed bound (request, queue
                                 or held promise) the minimum is built from; else = holder */
    tm_time lits;             /* least incoming time stamp: smallest TSO ts queued for it,
                                 TM_TIME_MAX when its queue is empty */
    size_t queued;            /* TSO messages queued for it */
    bool blocked;             /* a request is pending (it waits on galt_holder / galt_root) */
    uint32_t polls;           /* its last grants in a row that left its time unchanged with no
                                 message delivered in between (0: the last grant progressed) */
    bool stalled;             /* no request pending and polls >= TM_STALL_POLLS: a federate
                                 that polls (FQR, TARA at its time) without progress waits too;
                                 tm_stall_waits_for names whom for */
} tm_status;

/** Grants in a row without progress after which a polling federate counts as waiting
 *  (tm_status.stalled): one such grant is normal (a peer has not sent yet), two in a row at
 *  one time mean it loops waiting for someone. */
#define TM_STALL_POLLS 2u

/** Fill *out with the state of one federate.
 *  @return TM_OK, TM_EUNKNOWN. */
int tm_query(const tm_state *st, tm_fed fed, tm_status *out, char *err, size_t errlen);

/** Number of joined federates. */
size_t tm_count(const tm_state *st);

/** Fill up to cap statuses, in increasing handle order. O(N), or O(N^2) when the holders
 *  must be recomputed after fast-path requests (rti/tm/tm.c, holder_of()).
 *  @return the number of joined federates (may exceed cap; then only cap are filled). */
size_t tm_status_all(const tm_state *st, tm_status *out, size_t cap);

/** Write a human-readable "who blocks whom" line for one status, e.g.
 *  "B t=4 TAR(5) bound (5, strict) GALT (4, non-strict) held by C (root C) LITS 7 queued 1".
 *  @return the length snprintf would write (output truncated to len). */
int tm_status_format(const tm_status *s, const tm_state *st, char *buf, size_t len);

/** Whom a stalled federate (tm_status.stalled) waits for: the other federates with no request
 *  pending that have sent nothing since its run of grants without progress began (they are
 *  the ones that must send for it to progress). Their requests do not count: a peer polling
 *  too, or one that took the stalled federate's update and stopped before answering, is
 *  still waited for.
 *  @param out  room for @p cap handles (may be NULL when cap is 0), increasing handle order.
 *  @return how many there are (may exceed cap); 0 when @p fed is unknown or not stalled. O(N). */
size_t tm_stall_waits_for(const tm_state *st, tm_fed fed, tm_fed *out, size_t cap);

/** Whom the federate of @p s waits for, by one rule shared by `tempo-log explain` and the
 *  RTI's live view (doc/time.md, "Who waits for whom"): a blocked federate waits for the
 *  federate its GALT is built from (galt_root for NER chains, else galt_holder); a stalled one
 *  for tm_stall_waits_for's set; any other for nobody.
 *  @param s    a status filled by tm_query / tm_status_all on @p st.
 *  @param out  room for @p cap handles (may be NULL when cap is 0).
 *  @return how many there are (may exceed cap). O(N). */
size_t tm_waits_for(const tm_state *st, const tm_status *s, tm_fed *out, size_t cap);

/** 1 when the federate of @p s waits (a pending request not yet granted, or stalled). */
bool tm_waits(const tm_status *s);

/** The federate to look at: follow the first federate each one waits for (tm_waits_for) from
 *  @p from to one that does not wait itself, or waits for nobody.
 *  @param v,n    every federate's status (tm_status_all).
 *  @param cycle  set to true when the chain comes back on itself (then TM_NO_FED).
 *  @return that federate, or TM_NO_FED when @p from does not wait, waits for nobody, or a
 *  cycle. O(N^2) at worst. */
tm_fed tm_wait_root(const tm_state *st, const tm_status *v, size_t n, tm_fed from, bool *cycle);

/** The federate to look at in a federation, one rule for the RTI's live view, its status dump
 *  (SIGUSR1, and the in-process RTI's: doc/rti.md, doc/inproc.md) and so tempo-run's
 *  watchdog: the end of the wait chain (tm_wait_root) that the most waiting federates reach.
 *  @param v,n     every federate's status (tm_status_all).
 *  @param waiting set (may be NULL) to how many waiting federates reach it.
 *  @param cycle   set to true when some waiting federate's chain closes on itself.
 *  @return that federate, or TM_NO_FED when nobody waits for anyone. O(N^3) at worst. */
tm_fed tm_look_at(const tm_state *st, const tm_status *v, size_t n, size_t *waiting, bool *cycle);

/* ---- checkpoint (doc/checkpoint.md) -------------------------------------------------- */

/** Append the whole state of @p st to @p b: every federate's time, flags, lookahead, pending
 *  request, bound, promise, send count, stall counters and queued TSO messages (in delivery
 *  order, with their tokens), and the engine's settings (reasons, tie shuffling). Call between
 *  events (never from a sink). The bytes are the "time management state" of
 *  doc/checkpoint.md; the server stores the payloads the tokens name itself.
 *  @return TM_OK, TM_EINVAL (NULL argument) or TM_ENOMEM (b may hold a partial record). */
int tm_save(const tm_state *st, struct buf *b, char *err, size_t errlen);

/** Rebuild a state from @p n bytes written by tm_save. The result behaves exactly as the saved
 *  state would have: the same events give the same decisions, reasons included. Restoring
 *  emits no decision. Bytes that tm_save did not write (wrong magic or version, truncated,
 *  out-of-range fields, handles out of order, trailing bytes) are refused, never half-loaded.
 *  @param sink, ctx  as for tm_new.
 *  @return TM_OK and *out (free with tm_free), TM_EINVAL with @p err naming the record at
 *          fault, or TM_ENOMEM. */
int tm_restore(tm_state **out, const uint8_t *p, size_t n, tm_sink sink, void *ctx, char *err,
               size_t errlen);

/** Replace the token of every queued message by fn(ctx, token), in no particular order; a
 *  message queued for several receivers is visited once per receiver. A restoring server
 *  maps the tokens tm_restore brought back (the saving server's) to its own payloads; with
 *  fn returning its argument it lists them. Emits no decision. O(queued messages). */
void tm_map_tokens(tm_state *st, uint64_t (*fn)(void *ctx, uint64_t token), void *ctx);

/** Name of a request kind ("TARA"), "none" for TM_REQ_NONE. Static string. */
const char *tm_req_name(tm_req kind);

#endif
