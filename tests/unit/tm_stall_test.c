/* Unit test of stall detection under polling (doc/time.md §7, "Stalls under polling"): a
 * Gauss–Seidel pair at lookahead 0 where B polls with FQR for A's update and A stops; B's
 * grants make no progress, so B counts as stalled and waits for A; a delivery or a later grant
 * ends the stall. Read rti/tm/tm.h (tm_stall_waits_for) first. */
#include "rti/tm/tm.h"
#include "tests/check.h"

static void status(tm_state *st, tm_fed h, tm_status *s)
{
    CHECK_INT_EQ(tm_query(st, h, s, NULL, 0), TM_OK);
}

/* A regulating (L = 0) and constrained, B regulating and constrained; both at 0. */
static tm_state *pair(void)
{
    tm_state *st = NULL;
    char err[TM_ERR_LEN];
    CHECK_INT_EQ(tm_new(&st, NULL, NULL, err, sizeof err), TM_OK);
    CHECK_INT_EQ(tm_join(st, 1, "A", err, sizeof err), TM_OK);
    CHECK_INT_EQ(tm_join(st, 2, "B", err, sizeof err), TM_OK);
    for (tm_fed h = 1; h <= 2; h++) {
        CHECK_INT_EQ(tm_enable_regulation(st, h, 0, err, sizeof err), TM_OK);
        CHECK_INT_EQ(tm_enable_constrained(st, h, err, sizeof err), TM_OK);
    }
    return st;
}

/* B polls FQR(10) while A does nothing: the first grant (at 0, nothing delivered) is one
 * poll, the second makes B stalled, waiting for A; the status line says so. */
static void test_poll_stall(void)
{
    tm_state *st = pair();
    char err[TM_ERR_LEN], line[512];
    tm_status s;
    CHECK_INT_EQ(tm_request(st, 2, TM_REQ_FQR, 10, err, sizeof err), TM_OK);
    status(st, 2, &s);
    CHECK_INT_EQ(s.time, 0); /* GALT is A's bound (0, strict... or non-strict): no advance */
    CHECK_INT_EQ(s.polls, 1);
    CHECK(!s.stalled, "one grant without progress is not yet a stall");
    CHECK_INT_EQ(tm_request(st, 2, TM_REQ_FQR, 10, err, sizeof err), TM_OK);
    CHECK_INT_EQ(tm_request(st, 2, TM_REQ_FQR, 10, err, sizeof err), TM_OK);
    status(st, 2, &s);
    CHECK_INT_EQ(s.polls, 3);
    CHECK(s.stalled && !s.blocked, "B polls without progress: stalled, no request pending");
    tm_fed w[4] = {0};
    CHECK_INT_EQ(tm_stall_waits_for(st, 2, w, 4), 1);
    CHECK_INT_EQ(w[0], 1);
    tm_status_format(&s, st, line, sizeof line);
    CHECK_STR_HAS(line, "stalled: 3 grants at t=0 without progress, waits for A");
    /* A is not stalled and waits for nobody. */
    status(st, 1, &s);
    CHECK(!s.stalled && s.polls == 0, "A has not polled");
    CHECK_INT_EQ(tm_stall_waits_for(st, 1, w, 4), 0);
    tm_free(st);
}

/* A sends its update after B began polling: A is no longer
 * waited for; the message delivered to B makes its next grant progress. */
static void test_progress_ends_stall(void)
{
    tm_state *st = pair();
    char err[TM_ERR_LEN];
    tm_status s;
    tm_fed w[4];
    for (int i = 0; i < 3; i++)
        CHECK_INT_EQ(tm_request(st, 2, TM_REQ_FQR, 10, err, sizeof err), TM_OK);
    tm_fed to = 2;
    /* A at 0, granted state after enabling: bound (0, non-strict), so ts 1 is allowed. */
    CHECK_INT_EQ(tm_send(st, 1, 1, &to, 1, 77, err, sizeof err), TM_OK);
    status(st, 2, &s);
    CHECK(s.stalled, "still stalled until its next grant");
    CHECK_INT_EQ(tm_stall_waits_for(st, 2, w, 4), 0); /* A sent since B began polling */
    CHECK_INT_EQ(tm_request(st, 2, TM_REQ_FQR, 10, err, sizeof err), TM_OK); /* delivers 77 */
    status(st, 2, &s);
    CHECK(!s.stalled && s.polls == 0, "a delivery is progress (polls %u)", (unsigned)s.polls);
    tm_free(st);
}

/* A grant at a later time is progress; a TAR that waits is a pending request, not a stall. */
static void test_advance_is_progress(void)
{
    tm_state *st = pair();
    char err[TM_ERR_LEN];
    tm_status s;
    CHECK_INT_EQ(tm_request(st, 2, TM_REQ_FQR, 10, err, sizeof err), TM_OK);
    CHECK_INT_EQ(tm_request(st, 2, TM_REQ_FQR, 10, err, sizeof err), TM_OK);
    status(st, 2, &s);
    CHECK(s.stalled, "stalled after two polls");
    CHECK_INT_EQ(tm_request(st, 1, TM_REQ_TAR, 5, err, sizeof err), TM_OK); /* A waits for B */
    CHECK_INT_EQ(tm_request(st, 2, TM_REQ_TAR, 5, err, sizeof err), TM_OK); /* both granted 5 */
    status(st, 2, &s);
    CHECK(s.time == 5 && !s.stalled && s.polls == 0, "B at %lld, polls %u", (long long)s.time,
          (unsigned)s.polls);
    tm_free(st);
}

/* The Gauss-Seidel pattern that a rule counting requests missed: B sends its update and polls;
 * A takes it with an FQR of its own (a delivery: progress for A) and stops before answering.
 * A made a request after B began polling but sent nothing: B waits for A. When A also polls
 * without progress, each waits for the other. */
static void test_request_is_not_an_answer(void)
{
    tm_state *st = pair();
    char err[TM_ERR_LEN], line[512];
    tm_status s;
    tm_fed w[4] = {0}, to = 1;
    CHECK_INT_EQ(tm_send(st, 2, 1, &to, 1, 5, err, sizeof err), TM_OK);
    CHECK_INT_EQ(tm_request(st, 2, TM_REQ_FQR, 10, err, sizeof err), TM_OK); /* B's poll run */
    CHECK_INT_EQ(tm_request(st, 1, TM_REQ_FQR, 10, err, sizeof err), TM_OK); /* A takes 5 */
    status(st, 1, &s);
    CHECK(s.polls == 0, "a delivery is progress for A (polls %u)", (unsigned)s.polls);
    CHECK_INT_EQ(tm_request(st, 2, TM_REQ_FQR, 10, err, sizeof err), TM_OK);
    status(st, 2, &s);
    CHECK(s.stalled, "B polled twice without progress (polls %u)", (unsigned)s.polls);
    CHECK_INT_EQ(tm_stall_waits_for(st, 2, w, 4), 1);
    CHECK_INT_EQ(w[0], 1);
    tm_status_format(&s, st, line, sizeof line);
    CHECK_STR_HAS(line, "without progress, waits for A");
    /* A polls on without progress and without sending: each waits for the other. */
    CHECK_INT_EQ(tm_request(st, 1, TM_REQ_FQR, 10, err, sizeof err), TM_OK);
    CHECK_INT_EQ(tm_request(st, 1, TM_REQ_FQR, 10, err, sizeof err), TM_OK);
    status(st, 1, &s);
    CHECK(s.stalled, "A polled twice without progress (polls %u)", (unsigned)s.polls);
    CHECK_INT_EQ(tm_stall_waits_for(st, 1, w, 4), 1);
    CHECK_INT_EQ(w[0], 2);
    CHECK_INT_EQ(tm_stall_waits_for(st, 2, w, 4), 1);
    CHECK_INT_EQ(w[0], 1);
    /* A answers: B no longer waits for it. */
    to = 2;
    CHECK_INT_EQ(tm_send(st, 1, 1, &to, 1, 6, err, sizeof err), TM_OK);
    CHECK_INT_EQ(tm_stall_waits_for(st, 2, w, 4), 0);
    tm_free(st);
}

/* The wait-for rule shared by tempo-log explain and the live view (rti/tm/tm_wait.c): a
 * pending TAR waits for its GALT's holder; a stalled poller for tm_stall_waits_for's set; the
 * chain ends at a federate that does not wait, or waits for nobody; two pollers waiting for
 * each other are a cycle. Three federates: A and B as in pair(), C regulating (L = 0). */
static void test_wait_rule(void)
{
    tm_state *st = pair();
    char err[TM_ERR_LEN];
    tm_status v[3];
    tm_fed w[4] = {0};
    bool cycle = true;
    CHECK_INT_EQ(tm_join(st, 3, "C", err, sizeof err), TM_OK);
    CHECK_INT_EQ(tm_enable_regulation(st, 3, 0, err, sizeof err), TM_OK);
    /* Nobody waits: no edge, no end. */
    CHECK_INT_EQ(tm_status_all(st, v, 3), 3);
    for (int i = 0; i < 3; i++) {
        CHECK(!tm_waits(&v[i]), "federate %d waits before any request", i + 1);
        CHECK_INT_EQ(tm_waits_for(st, &v[i], w, 4), 0);
        CHECK_INT_EQ(tm_wait_root(st, v, 3, v[i].fed, &cycle), TM_NO_FED);
        CHECK(!cycle, "no cycle");
    }
    /* A asks TAR(5): held by the others' bounds at 0, it waits for a federate that does not
     * wait (B or C, the holder the engine names): that one is the end. */
    CHECK_INT_EQ(tm_request(st, 1, TM_REQ_TAR, 5, err, sizeof err), TM_OK);
    tm_status_all(st, v, 3);
    CHECK(tm_waits(&v[0]), "A waits in TAR(5)");
    CHECK_INT_EQ(tm_waits_for(st, &v[0], w, 4), 1);
    tm_fed held = v[0].galt_root ? v[0].galt_root : v[0].galt_holder;
    CHECK_INT_EQ(w[0], held);
    CHECK(held == 2 || held == 3, "held by B or C (%u)", (unsigned)held);
    CHECK_INT_EQ(tm_wait_root(st, v, 3, 1, &cycle), held);
    CHECK(!cycle, "a chain, no cycle");
    tm_free(st);

    /* Two pollers that send nothing wait for each other: a cycle, no end. */
    st = pair();
    for (int i = 0; i < 2; i++) {
        CHECK_INT_EQ(tm_request(st, 1, TM_REQ_FQR, 10, err, sizeof err), TM_OK);
        CHECK_INT_EQ(tm_request(st, 2, TM_REQ_FQR, 10, err, sizeof err), TM_OK);
    }
    tm_status_all(st, v, 2);
    CHECK(v[0].stalled && v[1].stalled, "both stalled");
    CHECK_INT_EQ(tm_waits_for(st, &v[0], w, 4), 1);
    CHECK_INT_EQ(w[0], 2);
    CHECK_INT_EQ(tm_wait_root(st, v, 2, 1, &cycle), TM_NO_FED);
    CHECK(cycle, "A -> B -> A is a cycle");
    /* A sends: B's set empties, so B is the end of A's chain (its progress is in its hands). */
    tm_fed to = 2;
    CHECK_INT_EQ(tm_send(st, 1, 1, &to, 1, 9, err, sizeof err), TM_OK);
    tm_status_all(st, v, 2);
    CHECK_INT_EQ(tm_waits_for(st, &v[1], w, 4), 0);
    CHECK_INT_EQ(tm_wait_root(st, v, 2, 1, &cycle), 2);
    CHECK(!cycle, "no cycle once A sent");
    tm_free(st);
}

int main(void)
{
    test_wait_rule();
    test_request_is_not_an_answer();
    test_poll_stall();
    test_progress_ends_stall();
    test_advance_is_progress();
    return check_summary();
}
