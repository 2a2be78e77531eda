/* Fault injection for rti/tm/tm.c (doc/contributing.md §12): every allocation of the engine fails
 * in turn, and each failure must return TM_ENOMEM with the state unchanged and nothing leaked
 * (LeakSanitizer runs in the sanitized pass). The engine, linked as a library, allocates
 * through counting versions of calloc/realloc installed by tm_test_set_alloc (rti/tm/tm_test.h).
 * Read tests/unit/tm_bound_test.c for the other engine unit test. */
#include <stdlib.h>

static int fail_in = -1; /* allocations left before one fails; -1: never fail */
static int allocs;       /* allocation calls seen */

static void *fi_calloc(size_t n, size_t size)
{
    allocs++;
    if (fail_in == 0) {
        fail_in = -1;
        return NULL;
    }
    if (fail_in > 0) fail_in--;
    return calloc(n, size);
}

static void *fi_realloc(void *p, size_t size)
{
    allocs++;
    if (fail_in == 0) {
        fail_in = -1;
        return NULL;
    }
    if (fail_in > 0) fail_in--;
    return realloc(p, size);
}

#include <stdint.h>

#include "rti/tm/tm.h"
#include "rti/tm/tm_test.h"
#include "tests/check.h"

struct seen {
    int grants, delivers, refused;
    uint64_t last_seq; /* seq of the last delivery */
};

static void sink(void *ctx, const tm_decision *d)
{
    struct seen *s = ctx;
    if (d->kind == TM_D_GRANT) s->grants++;
    if (d->kind == TM_D_DELIVER) {
        s->delivers++;
        s->last_seq = d->seq;
    }
    if (d->kind == TM_D_REFUSED) s->refused++;
}

int main(void)
{
    char err[TM_ERR_LEN];
    struct seen sn = {0};
    tm_test_set_alloc(fi_calloc, fi_realloc);
    tm_state *st = NULL;

    /* tm_new: its one allocation fails cleanly. */
    fail_in = 0;
    CHECK_INT_EQ(tm_new(&st, sink, &sn, err, sizeof err), TM_ENOMEM);
    CHECK(st == NULL, "no state on failure");
    CHECK_STR_HAS(err, "out of memory");
    CHECK_INT_EQ(tm_new(&st, sink, &sn, err, sizeof err), TM_OK);

    /* tm_join: fail each of its allocations in turn (handle table, federate array, record);
     * after each failure the federation is as before and the same join later succeeds. */
    int failures = 0;
    for (tm_fed h = 1; h <= 40; h++) {
        for (int k = 0;; k++) {
            fail_in = k;
            int rc = tm_join(st, h * 7, NULL, err, sizeof err); /* sparse handles grow idx */
            fail_in = -1;
            if (rc == TM_OK) break;
            failures++;
            CHECK_INT_EQ(rc, TM_ENOMEM);
            CHECK_INT_EQ(tm_count(st), h - 1);
            tm_status q;
            CHECK_INT_EQ(tm_query(st, h * 7, &q, NULL, 0), TM_EUNKNOWN);
            if (k > 5) break;
        }
    }
    CHECK_INT_EQ(tm_count(st), 40);
    CHECK(failures >= 40, "every join met at least one failing allocation (%d)", failures);

    /* tm_send: queue growth fails -> nothing queued, no sequence number used, no decision
     * but the refusal; the retry succeeds and the receiver's order is unchanged. */
    tm_fed a = 7, b = 14;
    CHECK_INT_EQ(tm_enable_regulation(st, a, 1, err, sizeof err), TM_OK);
    CHECK_INT_EQ(tm_enable_constrained(st, b, err, sizeof err), TM_OK);
    int sent = 0;
    for (int i = 0; i < 40; i++) {
        int before = allocs;
        fail_in = 0;
        int rc = tm_send(st, a, 5 + i, &b, 1, (uint64_t)i, err, sizeof err);
        fail_in = -1;
        tm_status q;
        tm_query(st, b, &q, NULL, 0);
        if (allocs > before) { /* this send had to grow the queue: it failed */
            CHECK_INT_EQ(rc, TM_ENOMEM);
            CHECK_STR_HAS(err, "out of memory queueing for fed14");
            CHECK_INT_EQ(q.queued, (size_t)sent);
            rc = tm_send(st, a, 5 + i, &b, 1, (uint64_t)i, err, sizeof err);
        }
        CHECK_INT_EQ(rc, TM_OK);
        sent++;
        tm_query(st, b, &q, NULL, 0);
        CHECK_INT_EQ(q.queued, (size_t)sent);
    }
    CHECK(sn.refused >= 3, "queue growth failed at 0, 8, 16, 32 messages (%d)", sn.refused);
    /* Everything arrives, in order, with consecutive sequence numbers. */
    CHECK_INT_EQ(tm_request(st, a, TM_REQ_TAR, 100, err, sizeof err), TM_OK);
    CHECK_INT_EQ(tm_request(st, b, TM_REQ_TAR, 100, err, sizeof err), TM_OK);
    CHECK_INT_EQ(sn.delivers, 40);
    CHECK_INT_EQ(sn.last_seq, 40);
    tm_free(st);
    return check_summary();
}
