/* Seconds from integer ticks, by the one rule of doc/time.md "Seconds from ticks": with a whole
 * number of ticks per second, a correctly rounded division, so that 15e9 ticks of 1 ns are 15
 * exactly (15e9 * 1e-9 is 15.000000000000002). libtempo (tp_time_to_seconds) and tempo-log
 * use it; algorithms/port.h port_seconds holds the same rule for the algorithms, which may not
 * include rti/. Header only, libm. */
#ifndef TEMPO_RTI_PROTO_TICKS_H
#define TEMPO_RTI_PROTO_TICKS_H

#include <math.h>
#include <stdint.h>

/** @p t ticks of @p resolution seconds each, in seconds (see the file's comment). */
static inline double ticks_seconds(double resolution, int64_t t)
{
    double tps = 1.0 / resolution, r = floor(tps + 0.5);
    if (r >= 1 && fabs(tps - r) <= 1e-9 * r) return (double)t / r;
    return (double)t * resolution;
}

#endif
