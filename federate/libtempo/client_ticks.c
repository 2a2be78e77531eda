/* libtempo tick arithmetic: the saturating sum of federate/libtempo/tempo.h (tp_time_add),
 * doc/api.md ("Time"). Pure. Read federate/libtempo/client_time.c for the time services. */
#include "federate/libtempo/tempo.h"

tp_time tp_time_add(tp_time a, tp_time b)
{
    if (a == TP_NO_TIME || b == TP_NO_TIME) return TP_NO_TIME;
    if (a == TP_TIME_MAX || b == TP_TIME_MAX) return TP_TIME_MAX;
    if (b > 0 && a > TP_TIME_MAX - b) return TP_TIME_MAX;
    if (b < 0 && a < -TP_TIME_MAX - b) return -TP_TIME_MAX;
    return a + b;
}
