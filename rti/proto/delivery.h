/* The delivery rules of doc/time.md §4 as one enum, shared by the engine (rti/tm/tm.c says
 * which rule delivered each message) and the federation log (rti/flog/, which stores the code
 * and words it when read). Pure code, libc only. Read doc/time.md §4, then doc/log.md. */
#ifndef TEMPO_RTI_PROTO_DELIVERY_H
#define TEMPO_RTI_PROTO_DELIVERY_H

/** Why a message was delivered. The values are stored in the federation log (doc/log.md,
 *  DECISION byte 3): never renumber, only append before DELIVERY_RULE_COUNT. */
typedef enum delivery_rule {
    DELIVERY_NONE = 0,          /* not a delivery (or a reason given only as text) */
    DELIVERY_TAR = 1,           /* ts <= t, delivered with the grant of TAR(t) */
    DELIVERY_TARA = 2,          /* ts <= t, delivered with the grant of TARA(t) */
    DELIVERY_NER = 3,           /* the smallest queued ts, with the grant of NER/NERA */
    DELIVERY_UNCONSTRAINED = 4, /* queued, then the receiver disabled constrained (as RO) */
    DELIVERY_FQR = 5,           /* FQR flushes every queued message */
    DELIVERY_RO_SENDER = 6,     /* RO: sender not regulating, or no time stamp */
    DELIVERY_RO_RECEIVER = 7,   /* RO: receiver not constrained */
    DELIVERY_AVAIL = 8,         /* stamped T, arriving after an available grant at T */
    DELIVERY_RULE_COUNT         /* one past the last rule; not a rule */
} delivery_rule;

/** The words of a rule, e.g. "ts <= t for TAR(t)" (the tail of the engine's delivery reason
 *  and the text tempo-log prints). @return a static string; NULL for DELIVERY_NONE or a
 *  value outside 1 .. DELIVERY_RULE_COUNT - 1. Pure. */
const char *delivery_rule_text(unsigned rule);

#endif
