/* Quotas of the RTI server (rti/server/limits.c): each check returns a status and fills a
 * refusal that names the option setting the limit. Serves doc/rti.md. Read limits.c next. */
#ifndef TEMPO_RTI_SERVER_LIMITS_H
#define TEMPO_RTI_SERVER_LIMITS_H

#include <stddef.h>
#include <stdint.h>

struct server;
struct federate;

#define LIMITS_TRIM_OBJECTS 1024 /* objects freed at once past which memory is trimmed */

/* STATUS_OK, or STATUS_EREFUSED when fom_len is over --max-fom-bytes (err filled). */
int limits_fom(const struct server *s, const char *fxname, size_t fom_len, char *err,
               size_t errlen);
/* STATUS_OK, or STATUS_EREFUSED when f already owns --max-objects objects (err filled). */
int limits_objects(const struct server *s, const struct federate *f, char *err, size_t errlen);
/* n_objects were just freed (a federate resigned deleting them): give memory back. */
void limits_released(const struct server *s, uint32_t n_objects);

#endif
