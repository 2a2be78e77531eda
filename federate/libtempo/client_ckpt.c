/* libtempo checkpoints: the save request, this federate's part of a coordinated save (the
 * `save` callback, chunks to the RTI, the hold until the outcome), the restoring join's part
 * and tp_restore_federation. Serves doc/checkpoint.md ("The coordinated save", "Restore") and
 * doc/protocol.md (checkpoint messages). Read rti/server/save.c for the RTI's side. */
#include <stdio.h>
#include <string.h>

#include "federate/libtempo/client_impl.h"
#include "rti/proto/ckpt.h"

int tp_request_save(tp_federate *f, const char *label, tp_time time)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (!label || !ckpt_name_ok(label))
        return tpi_fail(f, TP_EINVAL,
                        "tp_request_save: label '%s' is not 1..64 bytes of [A-Za-z0-9._-] "
                        "(not starting with '.', not MANIFEST)",
                        label ? label : "(null)");
    if (time == TP_NO_TIME || time < 0 || time == TP_TIME_MAX)
        return tpi_fail(f, TP_EINVAL, "tp_request_save: save time %lld is not a time",
                        (long long)time);
    if (time < f->now)
        return tpi_fail(f, TP_ETIME,
                        "tp_request_save: save time %lld is below the logical time %lld",
                        (long long)time, (long long)f->now);
    return tpi_fail(f, TP_EREFUSED, "tp_request_save: not wired to the RTI yet");
}

int tp_restore_federation(const tp_join_options *opt, const char *checkpoint, char *err,
                          size_t err_size)
{
    if (err && err_size) snprintf(err, err_size, "tp_restore_federation: not wired yet");
    (void)opt;
    (void)checkpoint;
    return TP_EREFUSED;
}
