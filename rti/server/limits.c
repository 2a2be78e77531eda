/* Quotas of the RTI (doc/rti.md "Limits and what the RTI refuses"): FOM text size, objects
 * per federate, and handing memory back after a federate that owned many objects leaves.
 * The federation count is checked in federation.c, the total output queued in conn.c (both
 * at their one place of growth). Each refusal names the option that sets the limit. */
#include "rti/server/limits.h"

#include "rti/server/log.h"
#include "rti/server/server_impl.h"

#include <stdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

int limits_fom(const struct server *s, const char *fxname, size_t fom_len, char *err, size_t errlen)
{
    if (fom_len <= s->cfg.max_fom_bytes) return STATUS_OK;
    snprintf(err, errlen,
             "federation '%s': FOM text of %zu bytes is over the RTI's limit of %zu "
             "(--max-fom-bytes)",
             fxname, fom_len, s->cfg.max_fom_bytes);
    return STATUS_EREFUSED;
}

int limits_objects(const struct server *s, const struct federate *f, char *err, size_t errlen)
{
    if (f->n_owned < s->cfg.max_objects) return STATUS_OK;
    snprintf(err, errlen,
             "REGISTER_OBJECT: federate '%s' already owns %u objects, the RTI's limit "
             "(--max-objects)",
             f->name, f->n_owned);
    return STATUS_EREFUSED;
}

void limits_released(const struct server *s, uint32_t n_objects)
{
    /* Many small blocks freed at once: without a trim glibc keeps them for reuse by this
     * process, and the RTI's resident size would stay at its peak. */
    if (n_objects < LIMITS_TRIM_OBJECTS) return;
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    LOGD("server", "-", "%u objects freed: memory handed back to the system", n_objects);
}
