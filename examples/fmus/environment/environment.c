/* The environment of the smart-grid case (the Awais thesis §4.2.3; doc/cases/houses.md): the
 * ambient temperature, a sinusoid between T_mean - T_amp and T_mean + T_amp, lowest at
 * midnight (t = 0, one day, ...) and highest at noon. No states. Both kinds. */
#include "examples/fmus/framework/fw.h"

enum { T_MEAN, T_AMP, PERIOD, T_AMB, NV };

static const fw_var vars[NV] = {
    [T_MEAN] = {"T_mean", FW_PARAM, 0, -1, 10.0, "degC", "daily mean temperature", NULL},
    [T_AMP] = {"T_amp", FW_PARAM, 0, -1, 5.0, "K", "half the daily swing", NULL},
    [PERIOD] = {"period", FW_PARAM, 0, -1, 86400.0, "s", "one day", NULL},
    [T_AMB] = {"T_amb", FW_OUTPUT, 0, -1, 0, "degC", "T_mean - T_amp cos(2 pi t / period)",
               .depends = ""},
};

static void outputs(fw_ctx *c)
{
    double *r = c->r;
    r[T_AMB] = r[T_MEAN] - r[T_AMP] * cos(2.0 * M_PI * c->t / r[PERIOD]);
}

/* d^k/dt^k of -A cos(w t): -A w^k cos(w t + k pi / 2). */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    if (vr != T_AMB || order < 1) return -1;
    const double *r = c->r;
    double w = 2.0 * M_PI / r[PERIOD];
    *value = -r[T_AMP] * pow(w, order) * cos(w * c->t + order * M_PI / 2.0);
    return 0;
}

const fw_model fw_model_def = {
    .id = "environment",
    .description = "Ambient temperature: a daily sinusoid, lowest at midnight",
    .nvars = NV,
    .vars = vars,
    .max_output_order = 2,
    .has_me = 1,
    .has_cs = 1,
    .stop_time = 86400.0,
    .step_size = 60.0,
    .tolerance = 1e-8,
    .nbounds = 1,
    .bounds = (const fw_bounds[]){{PERIOD, 1.0, 1e9}},
    .outputs = outputs,
    .output_der = output_der,
};
