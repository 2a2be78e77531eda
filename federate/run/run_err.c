/* The error helper of federate/run/ (federate/run/run_err.h). */
#include "federate/run/run_err.h"

#include <stdarg.h>
#include <stdio.h>

int run_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    if (err && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}
