/* Discrete-event step prediction by quantization: the Awais thesis §4.2.2, eq. (4.5) restored;
 * doc/references.md (Awais) Serves doc/algorithms/README.md (Jacobi DE with NERA/NER). Our choices
 * are written in doc/algorithms/jacobi-de.md; the caller is the tempo-fmu DE loop (not wired yet).
 *
 * Equations (times t in s, values v in the output's unit u, quantum q in u):
 *
 *   the Awais thesis eq. (4.5), as printed:   t_{n+1} = q * floor((t_n - t_{n-1}) / (v_n -
 * v_{n-1})) + t_n restored (notes §5.4):            t_{n+1} = t_n + q * |(t_n - t_{n-1}) / (v_n -
 * v_{n-1})| = t_n + q / |s|,   s = (v_n - v_{n-1}) / (t_n - t_{n-1})
 *
 *   i.e. the time at which the output, moving at its current slope s (u/s), has changed by one
 *   quantum. The printed floor() applied to dt/dv has no meaning (it would make every step a
 *   whole multiple of q seconds per unit); we read it as the garbled |.| the notes describe.
 *
 *   slope form (our use of FMI output derivatives, same equation with s = dv/dt):
 *                                     h = q / |dv/dt|
 *   clamp (our choice):               h <- min(max(h, h_min), h_max)
 *
 * Choices where the paper is silent:
 *   - zero slope (v_n = v_{n-1}): the crossing never comes, so h = h_max; tested without any
 *     division: we compare |s| * h_max <= q instead of dividing by s.
 *   - negative slope: absolute value (a quantum crossing downwards is as much an event).
 *   - several outputs: the caller takes the minimum h (quant_next_time's comment).
 *   - first step (no history, no derivative): the caller uses h_min, the cautious choice.
 *   - non-finite input: QUANT_EINVAL with h = h_min, so a broken FMU is reported, not hidden.
 */
#include "algorithms/quantize.h"

#include <math.h>
#include <stdio.h>

static void set_err(char *err, size_t errlen, const char *field, double value, const char *want)
{
    if (err && errlen > 0)
        snprintf(err, errlen, "quantize settings: %s = %g, expected %s", field, value, want);
}

int quant_cfg_check(const quant_cfg *c, char *err, size_t errlen)
{
    if (!isfinite(c->q) || c->q <= 0) {
        set_err(err, errlen, "quantum q", c->q, "a finite number > 0");
        return QUANT_EINVAL;
    }
    if (!isfinite(c->h_min) || c->h_min <= 0) {
        set_err(err, errlen, "h_min", c->h_min, "a finite number of seconds > 0");
        return QUANT_EINVAL;
    }
    if (!isfinite(c->h_max) || c->h_max < c->h_min) {
        set_err(err, errlen, "h_max", c->h_max, "a finite number of seconds >= h_min");
        return QUANT_EINVAL;
    }
    return QUANT_OK;
}

/* Clamp h to [h_min, h_max] and say which bound, if any, was applied. */
static int clamp_step(const quant_cfg *c, double h, double *out)
{
    if (h < c->h_min) {
        *out = c->h_min;
        return QUANT_AT_MIN;
    }
    if (h > c->h_max) {
        *out = c->h_max;
        return QUANT_AT_MAX;
    }
    *out = h;
    return QUANT_OK;
}

/* the Awais thesis eq. (4.5), restored: h = q / |s|. */
int quant_step_slope(const quant_cfg *c, double slope, double *h)
{
    if (quant_cfg_check(c, NULL, 0) != QUANT_OK) {
        *h = isfinite(c->h_min) && c->h_min > 0 ? c->h_min : 0;
        return QUANT_EINVAL;
    }
    if (!isfinite(slope)) {
        *h = c->h_min;
        return QUANT_EINVAL;
    }
    double s = fabs(slope);
    if (s * c->h_max <= c->q) { /* crossing at or beyond h_max, including s = 0 */
        *h = c->h_max;
        return QUANT_AT_MAX;
    }
    return clamp_step(c, c->q / s, h);
}

/* the Awais thesis eq. (4.5), restored, with the secant slope of the last two samples. */
int quant_step_secant(const quant_cfg *c, double t0, double v0, double t1, double v1, double *h)
{
    if (!isfinite(t0) || !isfinite(t1) || !(t1 > t0) || !isfinite(v0) || !isfinite(v1)) {
        *h = isfinite(c->h_min) && c->h_min > 0 ? c->h_min : 0;
        return QUANT_EINVAL;
    }
    return quant_step_slope(c, (v1 - v0) / (t1 - t0), h);
}

int64_t quant_next_time(int64_t T, double h, double tick, int64_t t_end)
{
    if (T >= t_end) return T;
    /* room = t_end - T > 0, saturated: the difference overflows only when T < 0 < t_end. */
    int64_t room = (T < 0 && t_end > INT64_MAX + T) ? INT64_MAX : t_end - T;
    int64_t steps = 1;
    if (isfinite(h) && h > 0 && isfinite(tick) && tick > 0) {
        double n = floor(h / tick);
        if (n >= (double)room)
            steps = room;
        else if (n >= 1)
            steps = (int64_t)n;
    }
    if (steps > room) steps = room;
    return T + steps;
}
