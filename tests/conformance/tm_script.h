/* A tiny script interpreter that drives rti/tm/tm.c for the conformance scenario tables
 * (doc/time.md; doc/contributing.md §12). Included by tests/conformance/tm_scenarios_test.c only.
 *
 * Federates are letters: A is handle 1, B handle 2, ... Statements are separated by ';'.
 *   join A B C        join federates (names "A", "B", ...)
 *   rc A L            enable regulation (lookahead L) and constrained; clears the log
 *   reg A L / unreg A / con A / uncon A / la A L    the single services
 *   resign A
 *   A tar 5 | A tara 5 | A ner 5 | A nera 5 | A fqr 5     time requests
 *   A send 5 B C      TSO send stamped 5 to B and C; messages are numbered m1, m2, ...
 *   A ro B            send without a time stamp (receive order)
 *   ... !EBOUND       any statement may end with the TM_E* code it must return
 *   expect D B m1@5, G B 5     the decisions since the previous expect, in order
 *                     (G grant, D TSO delivery, R RO delivery, X discard, RE / CE enabled;
 *                     refusals are not listed, they are checked by the !CODE suffix)
 *   expect            (empty) nothing happened
 *   galt B 5s | bound A 5n | galt B inf      status checks (s strict, n non-strict)
 *   holder B C | root B C | time A 5 | lits B 7 | pending A tar 5 | pending A none
 *   reason held by C  the last decision's reason contains this text
 *   errmsg below      the last error message contains this text */
#ifndef TEMPO_TESTS_CONFORMANCE_TM_SCRIPT_H
#define TEMPO_TESTS_CONFORMANCE_TM_SCRIPT_H

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rti/tm/tm.h"
#include "tests/check.h"

struct script {
    tm_state *st;
    const char *id;     /* scenario id, "tm-3.2" */
    char log[4096];     /* decisions since the last expect, "G A 5, D B m1@5" */
    char last_why[320]; /* reason of the last decision */
    char err[TM_ERR_LEN];
    int msgs;   /* messages sent so far (token = number) */
    int failed; /* checks failed in this scenario */
};

static void sc_sink(void *ctx, const tm_decision *d)
{
    struct script *s = ctx;
    char item[64];
    char f = (char)('A' + d->fed - 1);
    switch (d->kind) {
    case TM_D_GRANT:
        snprintf(item, sizeof item, "G %c %" PRId64, f, d->time);
        break;
    case TM_D_DELIVER:
    case TM_D_DISCARD: {
        char k = d->kind == TM_D_DISCARD ? 'X' : (d->tso ? 'D' : 'R');
        if (d->time == TM_NO_TIME)
            snprintf(item, sizeof item, "%c %c m%" PRIu64, k, f, d->token);
        else
            snprintf(item, sizeof item, "%c %c m%" PRIu64 "@%" PRId64, k, f, d->token, d->time);
        break;
    }
    case TM_D_REG_ENABLED:
        snprintf(item, sizeof item, "RE %c %" PRId64, f, d->time);
        break;
    case TM_D_CON_ENABLED:
        snprintf(item, sizeof item, "CE %c %" PRId64, f, d->time);
        break;
    case TM_D_REFUSED:
        return;
    }
    snprintf(s->last_why, sizeof s->last_why, "%s", d->reason);
    size_t n = strlen(s->log);
    snprintf(s->log + n, sizeof s->log - n, "%s%s", n ? ", " : "", item);
}

static tm_fed sc_fed(const char *w)
{
    return (tm_fed)(w[0] - 'A' + 1);
}

static bool sc_isfed(const char *w)
{
    return w[0] >= 'A' && w[0] <= 'Z' && w[1] == 0;
}

/* "5s" / "5n" / "inf" as a bound. */
static tm_bound sc_bound(const char *w)
{
    if (strcmp(w, "inf") == 0) return (tm_bound){TM_TIME_MAX, true};
    size_t n = strlen(w);
    tm_bound b = {strtoll(w, NULL, 10), n > 0 && w[n - 1] == 's'};
    return b;
}

static const char *sc_btxt(char *buf, tm_bound b)
{
    if (b.t == TM_TIME_MAX) return "inf";
    snprintf(buf, 32, "%" PRId64 "%c", b.t, b.strict ? 's' : 'n');
    return buf;
}

#define SC_FAIL(s, ...)                                                                            \
    do {                                                                                           \
        (s)->failed++;                                                                             \
        CHECK(0, __VA_ARGS__);                                                                     \
    } while (0)

static int sc_code(const char *w)
{
    static const int codes[] = {TM_EUNKNOWN, TM_EEXISTS,     TM_ETIME,      TM_EPENDING, TM_EBOUND,
                                TM_EENABLED, TM_ENOTENABLED, TM_ELOOKAHEAD, TM_ENOMEM,   TM_EINVAL};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (strcmp(w + 1, tm_strerror(codes[i]) + 3) == 0) return codes[i];
    return 1; /* never returned: makes the check fail visibly */
}

/* Run one statement (already split into words). */
static void sc_stmt(struct script *s, char **w, int n, const char *raw)
{
    int want = TM_OK, rc = TM_OK;
    if (n > 1 && w[n - 1][0] == '!') {
        want = sc_code(w[n - 1]);
        n--;
    }
    if (strcmp(w[0], "errmsg") != 0) s->err[0] = 0;
    tm_status q;
    char b1[32], b2[32];
    if (strcmp(w[0], "expect") == 0) {
        const char *rest = raw + strspn(raw, " \t\n");
        rest += 6;
        rest += strspn(rest, " \t\n");
        char want_log[4096];
        snprintf(want_log, sizeof want_log, "%s", rest);
        size_t k = strlen(want_log);
        while (k && isspace((unsigned char)want_log[k - 1]))
            want_log[--k] = 0;
        if (strcmp(want_log, s->log) != 0)
            SC_FAIL(s, "%s: expect \"%s\", got \"%s\"", s->id, want_log, s->log);
        else
            CHECK(1, "ok");
        s->log[0] = 0;
        return;
    }
    if (strcmp(w[0], "join") == 0) {
        for (int i = 1; i < n; i++)
            rc = rc ? rc : tm_join(s->st, sc_fed(w[i]), w[i], s->err, sizeof s->err);
    } else if (strcmp(w[0], "rc") == 0 && n == 3) {
        rc = tm_enable_regulation(s->st, sc_fed(w[1]), atoll(w[2]), s->err, sizeof s->err);
        if (!rc) rc = tm_enable_constrained(s->st, sc_fed(w[1]), s->err, sizeof s->err);
        s->log[0] = 0;
    } else if (strcmp(w[0], "reg") == 0 && n == 3) {
        rc = tm_enable_regulation(s->st, sc_fed(w[1]), atoll(w[2]), s->err, sizeof s->err);
    } else if (strcmp(w[0], "la") == 0 && n == 3) {
        rc = tm_modify_lookahead(s->st, sc_fed(w[1]), atoll(w[2]), s->err, sizeof s->err);
    } else if (strcmp(w[0], "unreg") == 0) {
        rc = tm_disable_regulation(s->st, sc_fed(w[1]), s->err, sizeof s->err);
    } else if (strcmp(w[0], "con") == 0) {
        rc = tm_enable_constrained(s->st, sc_fed(w[1]), s->err, sizeof s->err);
    } else if (strcmp(w[0], "uncon") == 0) {
        rc = tm_disable_constrained(s->st, sc_fed(w[1]), s->err, sizeof s->err);
    } else if (strcmp(w[0], "resign") == 0) {
        rc = tm_resign(s->st, sc_fed(w[1]), s->err, sizeof s->err);
    } else if (strcmp(w[0], "galt") == 0 || strcmp(w[0], "bound") == 0) {
        tm_query(s->st, sc_fed(w[1]), &q, NULL, 0);
        tm_bound got = w[0][0] == 'g' ? q.galt : q.bound, exp = sc_bound(w[2]);
        if (tm_bound_cmp(got, exp) != 0)
            SC_FAIL(s, "%s: %s of %s is %s, want %s", s->id, w[0], w[1], sc_btxt(b1, got),
                    sc_btxt(b2, exp));
        else
            CHECK(1, "ok");
        return;
    } else if (strcmp(w[0], "holder") == 0 || strcmp(w[0], "root") == 0) {
        tm_query(s->st, sc_fed(w[1]), &q, NULL, 0);
        tm_fed got = w[0][0] == 'h' ? q.galt_holder : q.galt_root;
        tm_fed exp = strcmp(w[2], "none") == 0 ? TM_NO_FED : sc_fed(w[2]);
        if (got != exp)
            SC_FAIL(s, "%s: %s of %s is %u, want %s", s->id, w[0], w[1], got, w[2]);
        else
            CHECK(1, "ok");
        return;
    } else if (strcmp(w[0], "time") == 0 || strcmp(w[0], "lits") == 0) {
        tm_query(s->st, sc_fed(w[1]), &q, NULL, 0);
        tm_time got = w[0][0] == 't' ? q.time : q.lits;
        tm_time exp = strcmp(w[2], "inf") == 0 ? TM_TIME_MAX : atoll(w[2]);
        if (got != exp)
            SC_FAIL(s, "%s: %s of %s is %" PRId64 ", want %s", s->id, w[0], w[1], got, w[2]);
        else
            CHECK(1, "ok");
        return;
    } else if (strcmp(w[0], "pending") == 0) {
        tm_query(s->st, sc_fed(w[1]), &q, NULL, 0);
        char got[48], exp[48];
        snprintf(got, sizeof got, "%s", tm_req_name(q.req));
        if (q.req) snprintf(got + strlen(got), sizeof got - strlen(got), " %" PRId64, q.req_time);
        snprintf(exp, sizeof exp, "%s%s%s", n > 2 ? w[2] : "none", n > 3 ? " " : "",
                 n > 3 ? w[3] : "");
        if (strcasecmp(got, exp) != 0)
            SC_FAIL(s, "%s: pending of %s is \"%s\", want \"%s\"", s->id, w[1], got, exp);
        else
            CHECK(1, "ok");
        return;
    } else if (strcmp(w[0], "reason") == 0 || strcmp(w[0], "errmsg") == 0) {
        const char *rest = strstr(raw, w[0]) + strlen(w[0]);
        rest += strspn(rest, " ");
        char needle[256];
        snprintf(needle, sizeof needle, "%s", rest);
        size_t k = strlen(needle);
        while (k && isspace((unsigned char)needle[k - 1]))
            needle[--k] = 0;
        const char *hay = w[0][0] == 'r' ? s->last_why : s->err;
        if (!strstr(hay, needle))
            SC_FAIL(s, "%s: %s \"%s\" lacks \"%s\"", s->id, w[0], hay, needle);
        else
            CHECK(1, "ok");
        return;
    } else if (sc_isfed(w[0]) && n >= 2) {
        tm_fed f = sc_fed(w[0]);
        static const char *kinds[] = {"tar", "tara", "ner", "nera", "fqr"};
        int kind = 0;
        for (int i = 0; i < 5; i++)
            if (strcmp(w[1], kinds[i]) == 0) kind = i + 1;
        if (kind && n == 3) {
            rc = tm_request(s->st, f, (tm_req)kind, atoll(w[2]), s->err, sizeof s->err);
        } else if (strcmp(w[1], "send") == 0 || strcmp(w[1], "ro") == 0) {
            bool ro = w[1][0] == 'r';
            tm_time ts = ro ? TM_NO_TIME : atoll(w[2]);
            tm_fed r[26];
            int nr = 0;
            for (int i = ro ? 2 : 3; i < n && nr < 26; i++)
                r[nr++] = sc_fed(w[i]);
            uint64_t token = (uint64_t)(s->msgs + 1);
            rc = tm_send(s->st, f, ts, r, (size_t)nr, token, s->err, sizeof s->err);
            if (rc == TM_OK) s->msgs++;
        } else {
            SC_FAIL(s, "%s: bad statement \"%s\"", s->id, raw);
            return;
        }
    } else {
        SC_FAIL(s, "%s: bad statement \"%s\"", s->id, raw);
        return;
    }
    if (rc != want)
        SC_FAIL(s, "%s: \"%s\" returned %s, want %s (%s)", s->id, raw, tm_strerror(rc),
                tm_strerror(want), s->err);
    else
        CHECK(1, "ok");
}

/* Run a whole scenario; returns the number of failed checks. */
static inline int sc_run(const char *id, const char *text)
{
    struct script s;
    memset(&s, 0, sizeof s);
    s.id = id;
    if (tm_new(&s.st, sc_sink, &s, s.err, sizeof s.err) != TM_OK) {
        SC_FAIL(&s, "%s: tm_new failed", id);
        return 1;
    }
    char buf[8192];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    for (char *stmt = strtok_r(buf, ";\n", &save); stmt; stmt = strtok_r(NULL, ";\n", &save)) {
        char raw[512], words[512];
        snprintf(raw, sizeof raw, "%s", stmt);
        snprintf(words, sizeof words, "%s", stmt);
        char *w[64];
        int n = 0;
        char *save2 = NULL;
        for (char *t = strtok_r(words, " \t,", &save2); t && n < 64;
             t = strtok_r(NULL, " \t,", &save2))
            w[n++] = t;
        if (n == 0) continue;
        sc_stmt(&s, w, n, raw);
    }
    if (s.log[0]) SC_FAIL(&s, "%s: decisions left unchecked at the end: \"%s\"", id, s.log);
    tm_free(s.st);
    return s.failed;
}

#endif
