/* Insides of the time management engine shared by its own files: the reason-text builder of
 * rti/tm/tm_reason.c (used by rti/tm/tm.c) and the allocation hooks that
 * rti/tm/tm_test.h lets a test replace. Not part of the contract (rti/tm/tm.h).
 * Read rti/tm/tm_reason.c next. */
#ifndef TEMPO_RTI_TM_TM_IMPL_H
#define TEMPO_RTI_TM_TM_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "rti/tm/tm.h"

/* A reason text built without printf: the texts of every grant and delivery are built when the
 * federation log records them, and snprintf made up most of the RTI's own work per step.
 * Always NUL-terminated, truncated at cap - 1 bytes. */
struct tm_text {
    char *p;    /* output, cap bytes */
    size_t n;   /* bytes written, p[n] == '\0' */
    size_t cap; /* bytes of p, > 0 */
};

/** Append a string / a time ("inf" for TM_TIME_MAX) / a bound ("inf", "(5, strict)",
 *  "(5, non-strict)") to @p w. Allocate nothing. */
void tm_text_str(struct tm_text *w, const char *s);
void tm_text_time(struct tm_text *w, tm_time t);
void tm_text_bound(struct tm_text *w, tm_bound b);

/** tm_text_time / tm_text_bound into @p buf for a printf %s argument; @p buf must hold
 *  TM_TTXT_LEN / TM_BTXT_LEN bytes. @return buf. */
#define TM_TTXT_LEN 24
#define TM_BTXT_LEN 40
const char *tm_ttxt(char *buf, tm_time t);
const char *tm_btxt(char *buf, tm_bound b);

/** The reason of a DELIVER decision: "TSO message ts 5 from A: ts <= t for TAR(t)" into
 *  @p buf (cap > 0). @return bytes written. */
size_t tm_deliver_text(char *buf, size_t cap, bool tso, tm_time ts, const char *sender,
                       delivery_rule rule);

/* The engine's allocator: calloc and realloc unless a test replaced them (tm_test.h). */
extern void *(*tm_calloc)(size_t n, size_t size);
extern void *(*tm_realloc)(void *p, size_t size);

#endif
