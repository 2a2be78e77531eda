/* The wording of the time management engine's decisions (doc/time.md §3 "every decision
 * carries a reason"): request and status names, the grant reasons worded from their facts
 * (tm_grant_text, also used by tempo-log on the stored facts), the delivery reasons and the
 * printf-free text builder behind them. Read rti/tm/tm.c for where the facts come from. */
#include <stdint.h>

#include "rti/tm/tm.h"
#include "rti/tm/tm_impl.h"

/* ---- names ---------------------------------------------------------------------------- */

const char *tm_strerror(int code)
{
    switch (code) {
    case TM_OK:
        return "TM_OK";
    case TM_EUNKNOWN:
        return "TM_EUNKNOWN";
    case TM_EEXISTS:
        return "TM_EEXISTS";
    case TM_ETIME:
        return "TM_ETIME";
    case TM_EPENDING:
        return "TM_EPENDING";
    case TM_EBOUND:
        return "TM_EBOUND";
    case TM_EENABLED:
        return "TM_EENABLED";
    case TM_ENOTENABLED:
        return "TM_ENOTENABLED";
    case TM_ELOOKAHEAD:
        return "TM_ELOOKAHEAD";
    case TM_ENOMEM:
        return "TM_ENOMEM";
    case TM_EINVAL:
        return "TM_EINVAL";
    default:
        return "TM_E?";
    }
}

const char *tm_req_name(tm_req kind)
{
    switch (kind) {
    case TM_REQ_NONE:
        return "none";
    case TM_REQ_TAR:
        return "TAR";
    case TM_REQ_TARA:
        return "TARA";
    case TM_REQ_NER:
        return "NER";
    case TM_REQ_NERA:
        return "NERA";
    case TM_REQ_FQR:
        return "FQR";
    }
    return "?";
}

/* ---- the text builder ----------------------------------------------------------------- */

void tm_text_str(struct tm_text *w, const char *s)
{
    while (*s && w->n + 1 < w->cap)
        w->p[w->n++] = *s++;
    w->p[w->n] = '\0';
}

void tm_text_time(struct tm_text *w, tm_time t)
{
    if (t == TM_TIME_MAX) {
        tm_text_str(w, "inf");
        return;
    }
    char d[24], *e = d + sizeof d - 1;
    uint64_t u = t < 0 ? 0 - (uint64_t)t : (uint64_t)t; /* INT64_MIN has no positive twin */
    *e = '\0';
    do
        *--e = (char)('0' + u % 10);
    while (u /= 10);
    if (t < 0) *--e = '-';
    tm_text_str(w, e);
}

void tm_text_bound(struct tm_text *w, tm_bound b)
{
    if (b.t == TM_TIME_MAX) {
        tm_text_str(w, "inf");
        return;
    }
    tm_text_str(w, "(");
    tm_text_time(w, b.t);
    tm_text_str(w, b.strict ? ", strict)" : ", non-strict)");
}

const char *tm_ttxt(char *buf, tm_time t)
{
    struct tm_text w = {buf, 0, TM_TTXT_LEN};
    tm_text_time(&w, t);
    return buf;
}

const char *tm_btxt(char *buf, tm_bound b)
{
    struct tm_text w = {buf, 0, TM_BTXT_LEN};
    tm_text_bound(&w, b);
    return buf;
}

/* ---- decisions ------------------------------------------------------------------------ */

/* "%s message ts %s from %s: %s", the rule's words from the shared table. */
size_t tm_deliver_text(char *buf, size_t cap, bool tso, tm_time ts, const char *sender,
                       delivery_rule rule)
{
    struct tm_text w = {buf, 0, cap};
    const char *words = delivery_rule_text(rule);
    buf[0] = '\0';
    tm_text_str(&w, tso ? "TSO message ts " : "RO message ts ");
    tm_text_time(&w, ts);
    tm_text_str(&w, " from ");
    tm_text_str(&w, sender);
    tm_text_str(&w, ": ");
    tm_text_str(&w, words ? words : "?");
    return w.n;
}

size_t tm_grant_text(char *buf, size_t cap, const tm_decision *d, const char *fed_name,
                     const char *holder_name)
{
    if (!buf || cap == 0) return 0;
    struct tm_text w = {buf, 0, cap};
    buf[0] = '\0';
    if (!d || d->kind != TM_D_GRANT || !d->grant) return 0;
    const tm_grant_facts *g = d->grant;
    const char *kn = tm_req_name(d->req);
    const char *holder = holder_name ? holder_name : "nobody";
    bool plain = d->req == TM_REQ_TAR || d->req == TM_REQ_NER; /* GALT must be above, not at */
    switch (g->row) {
    case TM_GROW_NONE:
        break;
    case TM_GROW_AT_ONCE: /* "%s(%s) granted at once: %s is not time-constrained" */
        tm_text_str(&w, kn);
        tm_text_str(&w, "(");
        tm_text_time(&w, g->asked);
        tm_text_str(&w, ") granted at once: ");
        tm_text_str(&w, fed_name ? fed_name : "nobody");
        tm_text_str(&w, " is not time-constrained");
        break;
    case TM_GROW_TAR: /* "%s(%s): GALT %s %s %s, held by %s": the hot one */
        tm_text_str(&w, kn);
        tm_text_str(&w, "(");
        tm_text_time(&w, g->asked);
        tm_text_str(&w, "): GALT ");
        tm_text_bound(&w, g->galt);
        tm_text_str(&w, plain ? " > " : " >= ");
        tm_text_time(&w, g->asked);
        tm_text_str(&w, ", held by ");
        tm_text_str(&w, holder);
        break;
    case TM_GROW_NER: /* "%s(%s) granted %s (%s): GALT %s %s %s, held by %s" */
        tm_text_str(&w, kn);
        tm_text_str(&w, "(");
        tm_text_time(&w, g->asked);
        tm_text_str(&w, ") granted ");
        tm_text_time(&w, d->time);
        tm_text_str(&w,
                    g->queued ? " (smallest queued ts): GALT " : " (nothing queued <= t): GALT ");
        tm_text_bound(&w, g->galt);
        tm_text_str(&w, plain ? " > " : " >= ");
        tm_text_time(&w, d->time);
        tm_text_str(&w, ", held by ");
        tm_text_str(&w, holder);
        break;
    case TM_GROW_FQR: /* "FQR(%s) granted %s = max(T %s, min(t, GALT %s)), GALT held by %s" */
        tm_text_str(&w, "FQR(");
        tm_text_time(&w, g->asked);
        tm_text_str(&w, ") granted ");
        tm_text_time(&w, d->time);
        tm_text_str(&w, " = max(T ");
        tm_text_time(&w, g->prev);
        tm_text_str(&w, ", min(t, GALT ");
        tm_text_bound(&w, g->galt);
        tm_text_str(&w, ")), GALT held by ");
        tm_text_str(&w, holder);
        break;
    }
    return w.n;
}
