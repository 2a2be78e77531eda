/* Tests of the tie-shuffling test mode of time management (tm_set_tie_shuffle, rti/tm/tm.h;
 * doc/master.md, check C10): two senders A (handle 1) and B (handle 2) each send two TSO
 * messages stamped 5 to a constrained receiver, interleaved A1 B1 A2 B2. Without the mode the
 * tie rule delivers A1 A2 B1 B2 (lower handle first). With it, every seed keeps each sender's
 * own order, and over 32 seeds both "A first" and "B first" occur: the mode does reorder ties
 * between senders (so a result that depends on that order would change), and only those. */
#include <stdint.h>
#include <string.h>

#include "rti/tm/tm.h"
#include "tests/check.h"

typedef struct seen {
    uint64_t tok[8];
    int n;
} seen;

static void sink(void *ctx, const tm_decision *d)
{
    seen *s = ctx;
    if (d->kind == TM_D_DELIVER && s->n < 8) s->tok[s->n++] = d->token;
}

/* Run the scenario with a seed (0: off); fills the delivery order. */
static int run(uint64_t seed, seen *s)
{
    memset(s, 0, sizeof *s);
    tm_state *st = NULL;
    char err[TM_ERR_LEN];
    if (tm_new(&st, sink, s, err, sizeof err) != TM_OK) return -1;
    tm_set_tie_shuffle(st, seed);
    const tm_fed A = 1, B = 2, R = 3;
    int rc = 0;
    rc |= tm_join(st, A, "A", err, sizeof err);
    rc |= tm_join(st, B, "B", err, sizeof err);
    rc |= tm_join(st, R, "R", err, sizeof err);
    rc |= tm_enable_regulation(st, A, 0, err, sizeof err);
    rc |= tm_enable_regulation(st, B, 0, err, sizeof err);
    rc |= tm_enable_constrained(st, R, err, sizeof err);
    rc |= tm_send(st, A, 5, &R, 1, 11, err, sizeof err);
    rc |= tm_send(st, B, 5, &R, 1, 21, err, sizeof err);
    rc |= tm_send(st, A, 5, &R, 1, 12, err, sizeof err);
    rc |= tm_send(st, B, 5, &R, 1, 22, err, sizeof err);
    rc |= tm_request(st, R, TM_REQ_TARA, 5, err, sizeof err);
    rc |= tm_request(st, A, TM_REQ_TAR, 10, err, sizeof err);
    rc |= tm_request(st, B, TM_REQ_TAR, 10, err, sizeof err);
    CHECK(rc == 0, "scenario refused: %s", err);
    tm_free(st);
    return rc;
}

static int pos(const seen *s, uint64_t tok)
{
    for (int i = 0; i < s->n; i++)
        if (s->tok[i] == tok) return i;
    return -1;
}

int main(void)
{
    seen s;
    run(0, &s);
    CHECK_INT_EQ(s.n, 4);
    CHECK(s.tok[0] == 11 && s.tok[1] == 12 && s.tok[2] == 21 && s.tok[3] == 22,
          "tie rule: got %llu %llu %llu %llu", (unsigned long long)s.tok[0],
          (unsigned long long)s.tok[1], (unsigned long long)s.tok[2], (unsigned long long)s.tok[3]);
    int a_first = 0, b_first = 0;
    for (uint64_t seed = 1; seed <= 32; seed++) {
        run(seed, &s);
        CHECK_INT_EQ(s.n, 4);
        /* One sender's messages keep their send order; the senders are not interleaved. */
        CHECK(pos(&s, 11) < pos(&s, 12) && pos(&s, 21) < pos(&s, 22), "seed %llu: per-sender order",
              (unsigned long long)seed);
        CHECK(pos(&s, 12) + 1 == pos(&s, 21) || pos(&s, 22) + 1 == pos(&s, 11),
              "seed %llu: senders interleaved", (unsigned long long)seed);
        if (pos(&s, 11) == 0) a_first++;
        if (pos(&s, 21) == 0) b_first++;
        /* The same seed gives the same order (a shuffled run can be replayed). */
        seen again;
        run(seed, &again);
        CHECK(memcmp(s.tok, again.tok, sizeof s.tok) == 0, "seed %llu not deterministic",
              (unsigned long long)seed);
    }
    CHECK(a_first > 0 && b_first > 0, "32 seeds: A first %d times, B first %d times", a_first,
          b_first);
    return check_summary();
}
