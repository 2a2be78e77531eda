/* libtempo status codes, detailed error messages and log lines (doc/contributing.md §6, §2.9).
 * Serves doc/api.md (int returns, tp_strerror, per-federate message). The library never
 * writes to stdout/stderr except through the default log callback below.
 * Read federate/libtempo/client_conn.c next. */
#include <stdio.h>
#include <string.h>

#include "federate/libtempo/client_impl.h"

void tpi_note_late(tp_federate *f, const struct wire_msg *m, uint64_t pos)
{
    if (pos < f->late_pos) return; /* seen already (while waiting for a reply) */
    f->late_pos = pos + 1;
    if (m->a == WIRE_TIME_REQUEST || f->late_code) return;
    int code = tpi_rti_code(m->code);
    f->late_code = code < 0 ? code : TP_EREFUSED;
    snprintf(f->late_msg, sizeof f->late_msg,
             "the RTI refused an earlier %s of federate \"%s\": %.*s",
             m->a ? wire_type_name((unsigned)m->a) : "request", f->name, (int)m->str[0].len,
             m->str[0].ptr ? m->str[0].ptr : "");
}

int tpi_take_late(tp_federate *f)
{
    if (!f || !f->late_code) return 0;
    int code = f->late_code;
    f->late_code = 0;
    snprintf(f->err, sizeof f->err, "%s", f->late_msg);
    return code;
}

const char *tp_strerror(int code)
{
    switch (code) {
    case TP_OK:
        return "TP_OK: success";
    case TP_TIMEOUT:
        return "TP_TIMEOUT: the wait ended by its timeout";
    case TP_EINVAL:
        return "TP_EINVAL: invalid argument";
    case TP_ESTATE:
        return "TP_ESTATE: not allowed in the federate's current state";
    case TP_EHANDLE:
        return "TP_EHANDLE: unknown or wrong-kind handle";
    case TP_ENOTPUB:
        return "TP_ENOTPUB: class or attribute not published";
    case TP_ESIZE:
        return "TP_ESIZE: value or buffer of the wrong size";
    case TP_EFOM:
        return "TP_EFOM: the FOM could not be read";
    case TP_ENAME:
        return "TP_ENAME: no such name in the FOM";
    case TP_ETIME:
        return "TP_ETIME: requested time below the logical time";
    case TP_EPENDING:
        return "TP_EPENDING: a time-advance request is already pending";
    case TP_EBOUND:
        return "TP_EBOUND: time stamp below the sender's bound";
    case TP_EENABLED:
        return "TP_EENABLED: already enabled";
    case TP_ENOTENABLED:
        return "TP_ENOTENABLED: not enabled";
    case TP_EREFUSED:
        return "TP_EREFUSED: the RTI refused the request";
    case TP_EEXISTS:
        return "TP_EEXISTS: name already in use";
    case TP_ENOTFOUND:
        return "TP_ENOTFOUND: no such federation or synchronization point";
    case TP_EFOMDIFF:
        return "TP_EFOMDIFF: the FOM differs from the federation's";
    case TP_EAUTH:
        return "TP_EAUTH: shared secret refused";
    case TP_ECKPT:
        return "TP_ECKPT: checkpoint foreign, damaged or failed";
    case TP_EPROTO:
        return "TP_EPROTO: protocol error";
    case TP_ECLOSED:
        return "TP_ECLOSED: the RTI closed the connection";
    case TP_ESYS:
        return "TP_ESYS: system call failed";
    case TP_ENOMEM:
        return "TP_ENOMEM: out of memory";
    default:
        return "unknown status code";
    }
}

const char *tp_last_error(const tp_federate *f)
{
    return f ? f->err : "";
}

int tpi_fail(tp_federate *f, int code, const char *fmt, ...)
{
    if (!f) return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->err, sizeof f->err, fmt, ap);
    va_end(ap);
    return code;
}

static const char *level_name(tp_log_level lv)
{
    static const char *const names[] = {"error", "warn", "info", "debug", "trace"};
    return (unsigned)lv <= TP_LOG_TRACE ? names[lv] : "?";
}

void tpi_log(tp_federate *f, tp_log_level lv, const char *fmt, ...)
{
    /* The level is checked before formatting so that disabled lines cost one comparison. */
    if (!f || lv > f->log_level) return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (f->cb.log)
        f->cb.log(f->ctx, lv, line);
    else if (lv <= TP_LOG_WARN)
        fprintf(stderr, "tempo[%s]: %s: %s\n", f->name, level_name(lv), line);
}

/* The RTI's REPLY/ERROR status codes. The server (rti/) reports refusals with the same
 * numbers as tempo.h's TP_E* codes, sent as their absolute value in the u32 code field
 * (doc/protocol.md); any other nonzero code is a generic refusal. */
int tpi_rti_code(uint32_t code)
{
    if (code == 0) return TP_OK;
    int c = -(int)(code & 0x7fffffff);
    if ((code & 0x80000000u) != 0) c = (int)code; /* already negative as two's complement */
    switch (c) {
    case TP_EINVAL:
    case TP_ESTATE:
    case TP_EHANDLE:
    case TP_ENOTPUB:
    case TP_ESIZE:
    case TP_EFOM:
    case TP_ENAME:
    case TP_ETIME:
    case TP_EPENDING:
    case TP_EBOUND:
    case TP_EENABLED:
    case TP_ENOTENABLED:
    case TP_EREFUSED:
    case TP_EEXISTS:
    case TP_ENOTFOUND:
    case TP_EFOMDIFF:
    case TP_EAUTH:
    case TP_ECKPT:
    case TP_EPROTO:
    case TP_ESYS:
        return c;
    default:
        return TP_EREFUSED;
    }
}
