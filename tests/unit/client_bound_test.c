/* Unit test of libtempo's local mirror of the bound table (doc/time.md,
 * federate/libtempo/client_time.c): which time stamps a regulating federate may send in each state,
 * so that bad sends fail before they reach the RTI and good ones are never refused locally. Each
 * case is tagged with the row of the table (or the clarification) it checks, as in
 * tests/conformance. The federate is built by hand on one end of a socketpair (no RTI, no network):
 * requests are real library calls, grants are applied as client_evoke.c applies a TIME_GRANT. */
#include <sys/socket.h>
#include <unistd.h>

#include "federate/libtempo/client_impl.h"
#include "tests/check.h"

static int peer = -1; /* the other end of the socketpair: receives (and ignores) frames */

static tp_federate *fed(tp_time now, tp_time lookahead)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) return NULL;
    tp_federate *f = calloc(1, sizeof *f);
    f->fd = sv[0];
    peer = sv[1];
    f->joined = 1;
    f->max_frame = WIRE_MAX_FRAME_DEFAULT;
    f->timeout_ms = 1000;
    f->rcvtimeo_ms = -1;
    f->log_level = TP_LOG_WARN;
    snprintf(f->name, sizeof f->name, "F");
    f->pending_time = TP_NO_TIME;
    f->promised = TP_NO_TIME;
    f->lookahead = lookahead;
    f->regulation = TPI_ENABLING;
    tpi_on_regulation_enabled(f, now); /* as the REGULATION_ENABLED callback does */
    return f;
}

static void done(tp_federate *f)
{
    f->joined = 0; /* nobody would answer a resign */
    tp_federate_free(f);
    close(peer);
}

/* May f send stamped t? TP_OK or TP_EBOUND. */
static int send_at(tp_federate *f, tp_time t)
{
    return tpi_check_send_time(f, t, "update");
}

int main(void)
{
    tp_federate *f;

    /* b-1 "no request pending, L > 0": T + L, non-strict. */
    f = fed(10, 5);
    CHECK_INT_EQ(send_at(f, 15), TP_OK);
    CHECK_INT_EQ(send_at(f, 14), TP_EBOUND);
    CHECK_STR_HAS(tp_last_error(f), ">= 15");
    /* b-3 "TAR(R) pending": R + L (non-strict at L > 0). */
    CHECK_INT_EQ(tp_time_advance_request(f, 20), TP_OK);
    CHECK_INT_EQ(send_at(f, 24), TP_EBOUND);
    CHECK_INT_EQ(send_at(f, 25), TP_OK);
    tpi_on_grant(f, WIRE_TR_TAR, 20);
    CHECK_INT_EQ(send_at(f, 25), TP_OK);
    CHECK_INT_EQ(send_at(f, 24), TP_EBOUND);
    /* A smaller lookahead never withdraws the promise already made (25 > 20 + 1). */
    CHECK_INT_EQ(tp_modify_lookahead(f, 1), TP_OK);
    CHECK_INT_EQ(send_at(f, 21), TP_EBOUND);
    CHECK_INT_EQ(send_at(f, 25), TP_OK);
    CHECK_INT_EQ(tp_modify_lookahead(f, -1), TP_EINVAL);
    done(f);

    /* b-2 "no request pending, L = 0": T non-strict after enabling regulation. */
    f = fed(10, 0);
    CHECK_INT_EQ(send_at(f, 10), TP_OK);
    CHECK_INT_EQ(send_at(f, 9), TP_EBOUND);
    /* b-3 "TAR(R) pending, strict when L = 0". */
    CHECK_INT_EQ(tp_time_advance_request(f, 20), TP_OK);
    CHECK_INT_EQ(send_at(f, 20), TP_EBOUND);
    CHECK_STR_HAS(tp_last_error(f), "> 20");
    CHECK_INT_EQ(send_at(f, 21), TP_OK);
    /* b-2: T strict after a TAR grant. */
    tpi_on_grant(f, WIRE_TR_TAR, 20);
    CHECK_INT_EQ(send_at(f, 20), TP_EBOUND);
    CHECK_INT_EQ(send_at(f, 21), TP_OK);
    /* c-4 "a promise is never withdrawn": after TAR(20) at L = 0, TARA(20) is legal and
     * granted, but the federate still may not send at 20. */
    CHECK_INT_EQ(tp_time_advance_request_available(f, 20), TP_OK);
    CHECK_INT_EQ(send_at(f, 20), TP_EBOUND);
    tpi_on_grant(f, WIRE_TR_TARA, 20);
    CHECK_INT_EQ(send_at(f, 20), TP_EBOUND);
    CHECK_INT_EQ(send_at(f, 21), TP_OK);
    done(f);

    /* b-4 "TARA(R) pending": R + L non-strict; b-2 non-strict after the TARA grant. */
    f = fed(0, 0);
    CHECK_INT_EQ(tp_time_advance_request_available(f, 30), TP_OK);
    CHECK_INT_EQ(send_at(f, 30), TP_OK);
    CHECK_INT_EQ(send_at(f, 29), TP_EBOUND);
    tpi_on_grant(f, WIRE_TR_TARA, 30);
    CHECK_INT_EQ(send_at(f, 30), TP_OK); /* the Jacobi exchange at the instant */
    /* then TAR(30) closes the instant: strict from the request on (b-3 at L = 0) */
    CHECK_INT_EQ(tp_time_advance_request(f, 30), TP_OK);
    CHECK_INT_EQ(send_at(f, 30), TP_EBOUND);
    done(f);

    /* b-5 NER/NERA pending: locally the granted-state bound (the exact m + L needs the RTI's
     * queues), never stricter than the RTI; after a NER grant at L = 0, strict. */
    f = fed(10, 0);
    tpi_on_grant(f, WIRE_TR_TARA, 10); /* granted state (10, non-strict) */
    CHECK_INT_EQ(tp_next_event_request(f, 50), TP_OK);
    CHECK_INT_EQ(send_at(f, 10), TP_OK);
    CHECK_INT_EQ(send_at(f, 9), TP_EBOUND);
    tpi_on_grant(f, WIRE_TR_NER, 17);
    CHECK_INT_EQ(send_at(f, 17), TP_EBOUND);
    CHECK_INT_EQ(send_at(f, 18), TP_OK);
    /* FQR pending keeps the granted-state bound (clarification "FQR never waits"). */
    CHECK_INT_EQ(tp_flush_queue_request(f, 40), TP_OK);
    CHECK_INT_EQ(send_at(f, 17), TP_EBOUND);
    CHECK_INT_EQ(send_at(f, 18), TP_OK);
    tpi_on_grant(f, WIRE_TR_FQR, 17); /* FQR may be granted its current time */
    CHECK_INT_EQ(send_at(f, 17), TP_EBOUND);
    done(f);

    /* A refused request promised nothing: the bound goes back. */
    f = fed(0, 0);
    CHECK_INT_EQ(tp_time_advance_request(f, 100), TP_OK);
    CHECK_INT_EQ(send_at(f, 50), TP_EBOUND);
    tpi_on_time_refused(f, WIRE_TIME_REQUEST);
    CHECK_INT_EQ(f->pending, TP_REQ_NONE);
    CHECK_INT_EQ(send_at(f, 50), TP_OK);
    CHECK_INT_EQ(send_at(f, 0), TP_OK);
    done(f);

    /* Local request checks: below the logical time, a second request, TP_NO_TIME. */
    f = fed(10, 1);
    CHECK_INT_EQ(tp_time_advance_request(f, 9), TP_ETIME);
    CHECK_STR_HAS(tp_last_error(f), "below the logical time 10");
    CHECK_INT_EQ(tp_next_event_request(f, TP_NO_TIME), TP_EINVAL);
    CHECK_INT_EQ(tp_time_advance_request(f, 10), TP_OK); /* equal is legal */
    CHECK_INT_EQ(tp_flush_queue_request(f, 11), TP_EPENDING);
    CHECK_STR_HAS(tp_last_error(f), "TAR(10)");
    CHECK_INT_EQ(tp_enable_regulation(f, 1), TP_EENABLED);
    CHECK_INT_EQ(tp_enable_constrained(f), TP_EPENDING);
    /* Saturation: T + L at the end of time does not overflow. */
    tpi_on_grant(f, WIRE_TR_TAR, TP_TIME_MAX - 1);
    CHECK_INT_EQ(send_at(f, TP_TIME_MAX - 1), TP_EBOUND);
    /* ... and nothing is ever sent at +inf, whatever the bound (doc/time.md §2, issue 37) */
    CHECK_INT_EQ(send_at(f, TP_TIME_MAX), TP_EBOUND);
    done(f);
    f = fed(100, 0);
    CHECK_INT_EQ(send_at(f, TP_TIME_MAX - 1), TP_OK);
    CHECK_INT_EQ(send_at(f, TP_TIME_MAX), TP_EBOUND);
    done(f);

    /* Not regulating: time stamps are not checked (the RTI delivers them in receive order). */
    f = fed(100, 5);
    CHECK_INT_EQ(tp_disable_regulation(f), TP_OK);
    CHECK_INT_EQ(send_at(f, 0), TP_OK);
    CHECK_INT_EQ(tp_disable_regulation(f), TP_ENOTENABLED);
    done(f);
    return check_summary();
}
