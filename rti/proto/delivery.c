/* The words of the delivery rules (rti/proto/delivery.h): the one table the engine's reasons
 * and the federation log reader share. Read rti/flog/flog_read.c next. */
#include "rti/proto/delivery.h"

#include <stddef.h>

static const char *const rule_texts[DELIVERY_RULE_COUNT] = {
    [DELIVERY_NONE] = NULL,
    [DELIVERY_TAR] = "ts <= t for TAR(t)",
    [DELIVERY_TARA] = "ts <= t for TARA(t)",
    [DELIVERY_NER] = "smallest queued ts for NER/NERA",
    [DELIVERY_UNCONSTRAINED] = "receiver no longer time-constrained",
    [DELIVERY_FQR] = "FQR flushes every queued message",
    [DELIVERY_RO_SENDER] = "sender not time-regulating or no time stamp",
    [DELIVERY_RO_RECEIVER] = "receiver not time-constrained",
    [DELIVERY_AVAIL] = "stamped T after an available grant",
};

const char *delivery_rule_text(unsigned rule)
{
    return rule < DELIVERY_RULE_COUNT ? rule_texts[rule] : NULL;
}
