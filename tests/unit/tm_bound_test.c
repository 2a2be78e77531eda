/* Unit test of the small pieces of rti/tm/tm.c the conformance tables lean on (doc/time.md–§5):
 * saturating time addition, the (t, strict) pair order, code and request names, and the
 * "who blocks whom" status text. Read tests/conformance/tm_scenarios_test.c next. */
#include "rti/tm/tm.h"
#include "tests/check.h"

static tm_bound B(tm_time t, bool s)
{
    return (tm_bound){t, s};
}

/* Captures the last DELIVER decision (reason and rule copied: valid only during the sink). */
static char last_reason[256];
static delivery_rule last_rule;
static int delivers;
static void capture(void *ctx, const tm_decision *d)
{
    (void)ctx;
    if (d->kind != TM_D_DELIVER) return;
    delivers++;
    snprintf(last_reason, sizeof last_reason, "%s", d->reason);
    last_rule = d->rule;
}

/* A delivery's rule is set whatever the reason settings, and its reason text ends with it
 * (the federation log stores the rule as a code: rti/flog/flog.c); tm_set_delivery_reasons(false)
 * leaves the text of deliveries out, and tm_set_reasons(false) every text. */
static void test_delivery_rule(void)
{
    tm_state *st = NULL;
    char err[TM_ERR_LEN];
    CHECK_INT_EQ(tm_new(&st, capture, NULL, err, sizeof err), TM_OK);
    CHECK_INT_EQ(tm_join(st, 1, "A", err, sizeof err), TM_OK);
    CHECK_INT_EQ(tm_join(st, 2, "B", err, sizeof err), TM_OK);
    tm_fed to = 2;
    const char *rule = "sender not time-regulating or no time stamp";
    CHECK_STR_EQ(delivery_rule_text(DELIVERY_RO_SENDER), rule);
    CHECK_INT_EQ(tm_send(st, 1, TM_NO_TIME, &to, 1, 1, err, sizeof err), TM_OK);
    CHECK_INT_EQ(delivers, 1);
    CHECK_INT_EQ(last_rule, DELIVERY_RO_SENDER);
    CHECK_STR_HAS(last_reason, rule);
    CHECK_STR_HAS(last_reason, "from A");
    size_t n = strlen(last_reason), k = strlen(rule);
    CHECK(n > k && strcmp(last_reason + n - k, rule) == 0, "\"%s\" ends with the rule",
          last_reason);
    tm_set_delivery_reasons(st, false);
    CHECK_INT_EQ(tm_send(st, 1, TM_NO_TIME, &to, 1, 2, err, sizeof err), TM_OK);
    CHECK_INT_EQ(delivers, 2);
    CHECK_STR_EQ(last_reason, "");
    CHECK_INT_EQ(last_rule, DELIVERY_RO_SENDER);
    tm_set_delivery_reasons(st, true);
    tm_set_reasons(st, false);
    CHECK_INT_EQ(tm_send(st, 1, TM_NO_TIME, &to, 1, 3, err, sizeof err), TM_OK);
    CHECK_STR_EQ(last_reason, "");
    CHECK_INT_EQ(last_rule, DELIVERY_RO_SENDER);
    tm_free(st);
}

int main(void)
{
    /* T + L saturates at +inf and never overflows. */
    CHECK_INT_EQ(tm_time_add(5, 3), 8);
    CHECK_INT_EQ(tm_time_add(5, 0), 5);
    CHECK_INT_EQ(tm_time_add(TM_TIME_MAX, 1), TM_TIME_MAX);
    CHECK_INT_EQ(tm_time_add(TM_TIME_MAX - 2, 5), TM_TIME_MAX);
    CHECK_INT_EQ(tm_time_add(1, TM_TIME_MAX), TM_TIME_MAX);
    CHECK_INT_EQ(tm_time_add(-10, 3), -7);

    /* (t, non-strict) < (t, strict) < (t + 1, non-strict); strict is not folded into t + 1. */
    CHECK(tm_bound_cmp(B(5, false), B(5, true)) < 0, "(5,ns) < (5,s)");
    CHECK(tm_bound_cmp(B(5, true), B(6, false)) < 0, "(5,s) < (6,ns)");
    CHECK(tm_bound_cmp(B(5, true), B(5, false)) > 0, "(5,s) > (5,ns)");
    CHECK(tm_bound_cmp(B(6, false), B(5, true)) > 0, "(6,ns) > (5,s)");
    CHECK_INT_EQ(tm_bound_cmp(B(7, true), B(7, true)), 0);
    CHECK_INT_EQ(tm_bound_cmp(B(7, false), B(7, false)), 0);
    CHECK(tm_bound_cmp(B(TM_TIME_MAX, false), B(TM_TIME_MAX, true)) < 0, "inf is the top");
    CHECK(tm_bound_cmp(B(INT64_MIN, false), B(INT64_MIN, true)) < 0, "bottom pairs");

    CHECK_STR_EQ(tm_strerror(TM_EBOUND), "TM_EBOUND");
    CHECK_STR_EQ(tm_strerror(TM_OK), "TM_OK");
    CHECK_STR_EQ(tm_strerror(12345), "TM_E?");
    CHECK_STR_EQ(tm_req_name(TM_REQ_NERA), "NERA");
    CHECK_STR_EQ(tm_req_name(TM_REQ_NONE), "none");
    CHECK_STR_EQ(tm_req_name((tm_req)99), "?");

    /* The status line of a federate that waits, and of one nobody holds. */
    tm_state *st = NULL;
    char err[TM_ERR_LEN];
    CHECK_INT_EQ(tm_new(&st, NULL, NULL, err, sizeof err), TM_OK);
    CHECK_INT_EQ(tm_new(NULL, NULL, NULL, err, sizeof err), TM_EINVAL);
    CHECK_STR_HAS(err, "out is NULL");
    CHECK_INT_EQ(tm_join(st, 2, "B", err, sizeof err), TM_OK);
    CHECK_INT_EQ(tm_join(st, 3, "C", err, sizeof err), TM_OK);
    CHECK_INT_EQ(tm_join(st, 0, "Z", err, sizeof err), TM_EUNKNOWN);
    CHECK_STR_HAS(err, "outside");
    CHECK_INT_EQ(tm_join(st, TM_MAX_HANDLE, "Z", err, sizeof err), TM_EUNKNOWN);
    CHECK_INT_EQ(tm_join(st, 1, NULL, err, sizeof err), TM_OK); /* default name, joins first */
    CHECK_INT_EQ(tm_count(st), 3);
    tm_status s[4];
    CHECK_INT_EQ(tm_status_all(st, s, 4), 3);
    CHECK_INT_EQ(s[0].fed, 1); /* increasing handle order */
    CHECK_STR_EQ(s[0].name, "fed1");
    CHECK_INT_EQ(tm_status_all(st, s, 1), 3); /* count even when cap is smaller */
    for (tm_fed h = 2; h <= 3; h++) {
        CHECK_INT_EQ(tm_enable_regulation(st, h, 0, err, sizeof err), TM_OK);
        CHECK_INT_EQ(tm_enable_constrained(st, h, err, sizeof err), TM_OK);
    }
    CHECK_INT_EQ(tm_request(st, 2, TM_REQ_TAR, 5, err, sizeof err), TM_OK);
    tm_fed to = 2;
    CHECK_INT_EQ(tm_send(st, 3, 7, &to, 1, 42, err, sizeof err), TM_OK);
    CHECK_INT_EQ(tm_query(st, 2, &s[0], err, sizeof err), TM_OK);
    char line[256];
    tm_status_format(&s[0], st, line, sizeof line);
    CHECK_STR_EQ(line, "B t=0 TAR(5) reg con bound (5, strict) GALT (0, non-strict) held by C "
                       "(root C) LITS 7 queued 1");
    CHECK(s[0].blocked, "B waits");
    CHECK_INT_EQ(tm_query(st, 1, &s[1], err, sizeof err), TM_OK);
    tm_status_format(&s[1], st, line, sizeof line);
    CHECK_STR_EQ(line, "fed1 t=0 granted bound none GALT (0, non-strict) held by C (root C) "
                       "LITS inf queued 0");
    CHECK_INT_EQ(tm_query(st, 9, &s[1], err, sizeof err), TM_EUNKNOWN);
    CHECK_STR_HAS(err, "unknown federate handle 9");
    CHECK_INT_EQ(tm_send(st, 3, 8, NULL, 1, 43, err, sizeof err), TM_EINVAL);
    tm_free(st);
    tm_free(NULL);
    test_delivery_rule();
    return check_summary();
}
